//! Operations of the IR.
//!
//! An [`Inst`](crate::Inst) holds one [`Op`] and the values it defines. Control flow is
//! structured: `if`, `for` and `loop` own [`Region`]s, and each region ends in a terminator
//! (`yield`, `break` or `return`).

mod define;
pub(crate) mod field;

use crate::{AddrSpace, FragRole, Region, ScalarType, Type, Value};
use define::define_ops;
pub use field::Want;
use std::fmt;

/// An enum of named members: the enum itself, `ALL`, `name`, `from_name` and `Display`, from
/// one list of `Variant => "name"`.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident { $($(#[$vmeta:meta])* $variant:ident => $name:literal),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $ty { $($(#[$vmeta])* $variant),* }

        impl $ty {
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];

            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }

            pub fn from_name(name: &str) -> Option<$ty> {
                match name { $($name => Some($ty::$variant),)* _ => None }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum! {
    /// Memory ordering of an atomic or a fence (the C++ / LLVM model).
    pub enum Ordering {
        Relaxed => "relaxed",
        Acquire => "acquire",
        Release => "release",
        AcqRel => "acq_rel",
        SeqCst => "seq_cst",
    }
}

named_enum! {
    /// The set of threads an atomic or fence synchronises with.
    #[derive(PartialOrd, Ord)]
    pub enum Scope {
        /// Threads of the same workgroup.
        Workgroup => "workgroup",
        /// Threads of the same device (AMD "agent", NVIDIA "gpu").
        Agent => "agent",
        /// Every device and the host.
        System => "system",
    }
}

named_enum! {
    /// Which way a `regs.set` moves the executing group's register budget.
    pub enum RegsDir {
        /// Raise it: the group may then use up to the new count (waits for registers that
        /// other groups release).
        Inc => "inc",
        /// Lower it, releasing registers for other groups of the workgroup.
        Dec => "dec",
    }
}

named_enum! {
    /// Grid dimension of an id or size query.
    pub enum Dim {
        X => "x",
        Y => "y",
        Z => "z",
    }
}

named_enum! {
    /// Which id or size an [`Op::Id`] reads. All are `u32`.
    pub enum IdKind {
        /// Index of the work-item (lane) within its workgroup.
        WorkitemId => "workitem.id",
        /// Index of the workgroup within the grid.
        WorkgroupId => "workgroup.id",
        /// Number of work-items per workgroup (the launch's block size).
        WorkgroupSize => "workgroup.size",
        /// Number of workgroups in the grid.
        NumWorkgroups => "grid.size",
        /// Number of lanes of a subgroup (32 on NVIDIA, 64 on AMD, configurable on the CPU
        /// device). Subgroups are consecutive runs of linear work-item ids
        /// (`x + size_x * (y + size_y * z)`). Has no dimension.
        SubgroupSize => "subgroup.size",
        /// Index of the work-item's subgroup within its workgroup (linear id / subgroup size).
        SubgroupId => "subgroup.id",
        /// Index of the work-item within its subgroup (linear id % subgroup size).
        SubgroupLane => "subgroup.lane",
    }
}

impl IdKind {
    /// Whether the id names a grid dimension (`workitem.id x`); subgroup ids do not.
    pub fn has_dim(self) -> bool {
        !matches!(
            self,
            IdKind::SubgroupSize | IdKind::SubgroupId | IdKind::SubgroupLane
        )
    }
}

named_enum! {
    /// Two-operand arithmetic and bit operations; both operands and the result share one type
    /// (scalar or vector). Signedness comes from the type.
    pub enum BinOp {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        /// Integer division truncates toward zero; division by zero is an error on the CPU device.
        Div => "div",
        Rem => "rem",
        Min => "min",
        Max => "max",
        And => "and",
        Or => "or",
        Xor => "xor",
        /// Shift amount taken modulo the bit width.
        Shl => "shl",
        /// Arithmetic for signed types, logical for unsigned types.
        Shr => "shr",
    }
}

named_enum! {
    /// One-operand operations.
    pub enum UnOp {
        Neg => "neg",
        /// Bitwise not (logical not on `i1`).
        Not => "not",
        Abs => "abs",
        Sqrt => "sqrt",
        Exp2 => "exp2",
        Log2 => "log2",
    }
}

named_enum! {
    /// Comparison predicates; signedness from the operand type, floats compare ordered
    /// (any comparison with NaN is false, except `ne`).
    pub enum CmpPred {
        Eq => "eq",
        Ne => "ne",
        Lt => "lt",
        Le => "le",
        Gt => "gt",
        Ge => "ge",
    }
}

named_enum! {
    /// Read-modify-write atomic operations. All return the old value.
    pub enum RmwOp {
        /// Integers and `f32`.
        Add => "add",
        Min => "min",
        Max => "max",
        Xchg => "xchg",
        And => "and",
        Or => "or",
    }
}

named_enum! {
    /// How the `A` tile of an `mma.group` lies in shared memory, named by the rows and
    /// columns of the matrix stored row-major: `mk` (K-major, `A` itself) or `km`
    /// (M-major, `A^T`).
    pub enum ATile {
        MK => "mk",
        KM => "km",
    }
}

named_enum! {
    /// How the `B` tile of an `mma.group` lies in shared memory, named like [`ATile`]: `kn`
    /// (N-major, `B` itself) or `nk` (K-major, `B^T`).
    pub enum BTile {
        KN => "kn",
        NK => "nk",
    }
}

named_enum! {
    /// How `frag.store` lays its tile out: `rows` (row-major, `stride` elements between
    /// rows) or `swizzled` (`bf16` only: 128-byte-swizzled boxes of 64 columns and `stride`
    /// rows one after the other, as a tensor map with the 128-byte swizzle lays a box out in
    /// shared memory: what `copy.tensor.store` of those boxes reads; see
    /// [`TileLayout::swizzled_box`]).
    pub enum TileLayout {
        Rows => "rows",
        Swizzled => "swizzled",
    }
}

impl TileLayout {
    /// Byte offset of element (`row`, `col`) of a `swizzled` tile of `bf16` whose boxes
    /// have `box_rows` rows: box `col / 64` at `128 box_rows (col / 64)`, its 16-byte chunk
    /// `j` of row `r` at chunk `j ^ (r % 8)` of that row's 128 bytes (from a 1024-byte
    /// aligned pointer, the hardware's pattern).
    pub fn swizzled_box(row: u64, col: u64, box_rows: u64) -> u64 {
        128 * box_rows * (col / 64)
            + 128 * row
            + 16 * (((col % 64) / 8) ^ (row % 8))
            + 2 * (col % 8)
    }
}

/// The layouts of the two tiles of an `mma.group`: each is the 128-byte-swizzled image of
/// its matrix stored row-major ([`MmaLayout::swizzled`]), the matrix being the operand or
/// its transpose. A tensor copy with the 128-byte swizzle writes exactly this from a box of
/// 64-element rows (see [`Op::CopyTensor`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MmaLayout {
    pub a: ATile,
    pub b: BTile,
}

impl MmaLayout {
    /// `A` K-major, `B` N-major: what `mma.group` reads when no layout is written.
    pub const DEFAULT: MmaLayout = MmaLayout {
        a: ATile::MK,
        b: BTile::KN,
    };

    /// Byte offset of element (`row`, `col`) of a row-major tile of rows of 64 `bf16`s
    /// (128 bytes), 16-byte chunks swizzled by row; columns from 64 on continue in blocks of
    /// 64 rows (8192 bytes) of the next 64 columns: [`TileLayout::swizzled_box`] with boxes
    /// of 64 rows.
    pub fn swizzled(row: u32, col: u32) -> u32 {
        TileLayout::swizzled_box(row.into(), col.into(), 64) as u32
    }

    /// Byte offset of `A(i, k)` in the `a` tile.
    pub fn a_offset(self, i: u32, k: u32) -> u32 {
        match self.a {
            ATile::MK => Self::swizzled(i, k),
            ATile::KM => Self::swizzled(k, i),
        }
    }

    /// Byte offset of `B(k, n)` in the `b` tile.
    pub fn b_offset(self, k: u32, n: u32) -> u32 {
        match self.b {
            BTile::KN => Self::swizzled(k, n),
            BTile::NK => Self::swizzled(n, k),
        }
    }
}

/// A constant: its scalar type and its bit pattern in that type (floats as their IEEE bits,
/// integers zero-extended to 64 bits).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Constant {
    pub ty: ScalarType,
    pub bits: u64,
}

impl Constant {
    /// An integer constant; `value` is truncated to the type's width.
    pub fn int(ty: ScalarType, value: i64) -> Constant {
        let bits = ty.bits();
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        Constant {
            ty,
            bits: (value as u64) & mask,
        }
    }

    /// A float constant rounded (to nearest even) into the type.
    pub fn float(ty: ScalarType, value: f64) -> Constant {
        let bits = match ty {
            ScalarType::F64 => value.to_bits(),
            ScalarType::F32 => (value as f32).to_bits() as u64,
            ScalarType::F16 => half::f16::from_f64(value).to_bits() as u64,
            ScalarType::BF16 => half::bf16::from_f64(value).to_bits() as u64,
            _ => panic!("Constant::float of non-float type {ty}"),
        };
        Constant { ty, bits }
    }

    pub fn bool(value: bool) -> Constant {
        Constant {
            ty: ScalarType::I1,
            bits: value as u64,
        }
    }

    /// The value as a signed integer (sign-extended for signed types).
    pub fn as_i64(self) -> i64 {
        let bits = self.ty.bits();
        if self.ty.is_signed_int() && bits < 64 {
            let shift = 64 - bits;
            ((self.bits << shift) as i64) >> shift
        } else {
            self.bits as i64
        }
    }

    /// The value of a float constant, exactly, as f64.
    pub fn as_f64(self) -> f64 {
        match self.ty {
            ScalarType::F64 => f64::from_bits(self.bits),
            ScalarType::F32 => f32::from_bits(self.bits as u32) as f64,
            ScalarType::F16 => half::f16::from_bits(self.bits as u16).to_f64(),
            ScalarType::BF16 => half::bf16::from_bits(self.bits as u16).to_f64(),
            _ => self.as_i64() as f64,
        }
    }
}

/// Where a checked access is in the source, and its text (`src/ops.rs:14:9: out[i]`): what a
/// bounds error reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin(pub String);

/// The iteration space of a `for`: from `lb` up to (not including) `ub` by `step`, all of one
/// integer type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ForRange {
    pub lb: Value,
    pub ub: Value,
    pub step: Value,
}

impl ForRange {
    /// `[lb, ub, step]`, in operand order.
    pub fn values(self) -> [Value; 3] {
        [self.lb, self.ub, self.step]
    }
}

/// The families of ops. Each layer handles a family in one place (the CPU device in
/// `kosmos-cpu/src/ops/<family>.rs`), so a new op of a family is one arm there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpFamily {
    /// Constants, arithmetic, comparisons, selects and conversions.
    Arith,
    /// Plain loads and stores, pointer offsets, shared allocations.
    Memory,
    /// Atomics and fences.
    Atomic,
    /// Ids, barriers, clocks and sleeps: what the machine answers.
    Machine,
    /// Collective ops of one subgroup: fragments, `mma`, shuffles.
    Tile,
    /// Ops over tiles in shared memory: `mma.group` and asynchronous copies.
    SharedTile,
    /// Barrier objects in shared memory (`mbar.*`) and the bulk copies that complete on them.
    Async,
    /// Vector lanes.
    Vector,
    /// Structured control flow and terminators.
    Control,
}

define_ops! {
    Const { value: Constant } = "const"
        family Arith
        syntax [value]
        results |_ty| vec![Type::Scalar(value.ty)];
    Binary { op: BinOp, lhs: Value, rhs: Value } = (op: BinOp)
        family Arith
        syntax [lhs, rhs]
        results |ty| vec![ty(*lhs)];
    Unary { op: UnOp, arg: Value } = (op: UnOp)
        family Arith
        syntax [arg]
        results |ty| vec![ty(*arg)];
    /// `a * b + c`, rounded once (floats only).
    Fma { a: Value, b: Value, c: Value } = "fma"
        family Arith
        syntax [a, b, c]
        results |ty| vec![ty(*a)];
    /// `2^arg` for an `f32` by the target's fast instruction (`ex2.approx.ftz.f32` on NVIDIA,
    /// `v_exp_f32` on AMD): an approximation within a few ulp, for softmax and routing
    /// weights; results below the smallest normal `f32` may flush to zero. The CPU device
    /// computes `2^arg` exactly.
    Exp2Approx { arg: Value } = "exp2.approx"
        family Arith
        syntax [arg]
        operands [arg as "the argument": Want::Is(Type::F32, "")]
        results |_ty| vec![Type::F32];
    /// `1 / arg` for an `f32` by the target's fast instruction (`rcp.approx.ftz.f32` on
    /// NVIDIA, `v_rcp_f32` on AMD): within about 1 ulp, for activations and normalisations
    /// whose result is rounded to 16 bits; inputs and results below the smallest normal
    /// `f32` may flush to zero. The CPU device computes `1 / arg` exactly.
    RcpApprox { arg: Value } = "rcp.approx"
        family Arith
        syntax [arg]
        operands [arg as "the argument": Want::Is(Type::F32, "")]
        results |_ty| vec![Type::F32];
    /// `tanh(arg)` for an `f32` by the target's fast sequence (`tanh.approx.f32` on NVIDIA;
    /// on AMD `(1 - t) / (1 + t)` with `t = 2^(-2|arg| log2 e)` by `v_exp_f32` and
    /// `v_rcp_f32`): about 11 bits (relative error about 2^-11), for activations. The CPU
    /// device computes Rust's `f32::tanh` (within a few ulp).
    TanhApprox { arg: Value } = "tanh.approx"
        family Arith
        syntax [arg]
        operands [arg as "the argument": Want::Is(Type::F32, "")]
        results |_ty| vec![Type::F32];
    /// Result `i1`.
    Cmp { pred: CmpPred, lhs: Value, rhs: Value } = "cmp"
        family Arith
        syntax [pred lhs, rhs]
        results |_ty| vec![Type::I1];
    Select { cond: Value, if_true: Value, if_false: Value } = "select"
        family Arith
        syntax [cond, if_true, if_false]
        operands [cond as "the condition": Want::Is(Type::I1, "")] kind SelectCondition
        results |ty| vec![ty(*if_true)];
    /// Numeric conversion between scalar types: integer widening follows the source's
    /// signedness, narrowing truncates, float->int truncates toward zero (saturating),
    /// float->float and int->float round to nearest even.
    Cast { arg: Value, to: Type } = "cast"
        family Arith
        syntax [arg "to" to]
        results |_ty| vec![*to];
    /// Reinterpretation of bits between types of the same size (pointers excluded).
    Bitcast { arg: Value, to: Type } = "bitcast"
        family Arith
        syntax [arg "to" to]
        results |_ty| vec![*to];
    /// `base + index * size_of(elem)`, in the address space of `base`. `index` is any integer
    /// type (sign-extended when signed).
    PtrOffset { base: Value, index: Value, elem: Type } = "ptr.offset"
        family Memory
        syntax [base, index, elem]
        results |ty| vec![ty(*base)];
    /// The length in bytes of the buffer that the pointer kernel parameter `buffer` was
    /// launched with (`u64`): every pointer parameter is passed with its length.
    BufferLen { buffer: Value } = "buffer.len"
        family Memory
        syntax [buffer]
        results |_ty| vec![Type::U64];
    /// Records that the access at `origin` (its place in the source and its text, for the
    /// error) is out of bounds: element `index` of a slice of `len` elements (`u64`s). The
    /// first record of a launch is its error: the CPU device ends the launch with it, GPUs
    /// report it when the launch's stream synchronizes. It does not stop the work-item: the
    /// access it stands for must not happen (the `else` of the `if` that checks the index).
    BoundsFail { index: Value, len: Value, origin: Origin } = "bounds.fail"
        family Memory
        syntax [index, len, origin]
        operands [
            index as "the index": Want::Is(Type::U64, ""),
            len as "the length": Want::Is(Type::U64, ""),
        ]
        results |_ty| vec![];
    /// Records that the bounded wait at `origin` (its place in the source and its text) gave
    /// up after `polls` (`u32`) unsuccessful polls. Like `bounds.fail` it takes the launch's
    /// error record if it is the first failure (the CPU device ends the launch with it, GPUs
    /// report it when the stream synchronizes) and does not stop the work-item.
    WaitFail { polls: Value, origin: Origin } = "wait.fail"
        family Memory
        syntax [polls, origin]
        operands [polls as "the poll count": Want::Is(Type::U32, "")]
        results |_ty| vec![];
    /// A plain load of `ty` (its width is the access width); `align` in bytes.
    Load { ptr: Value, ty: Type, align: u32 } = "load"
        family Memory
        syntax [ty, ptr, "align" align("alignment")]
        results |_ty| vec![*ty];
    Store { ptr: Value, value: Value, align: u32 } = "store"
        family Memory
        syntax [ptr, value, "align" align("alignment")]
        results |_ty| vec![];
    AtomicLoad { ptr: Value, ty: ScalarType, ordering: Ordering, scope: Scope } = "atomic.load"
        family Atomic
        syntax [ty, ptr, ordering, scope]
        results |_ty| vec![Type::Scalar(*ty)];
    AtomicStore { ptr: Value, value: Value, ordering: Ordering, scope: Scope } = "atomic.store"
        family Atomic
        syntax [ptr, value, ordering, scope]
        results |_ty| vec![];
    /// Returns the old value.
    AtomicRmw { op: RmwOp, ptr: Value, value: Value, ordering: Ordering, scope: Scope }
        = "atomic.rmw"
        family Atomic
        syntax [op ptr, value, ordering, scope]
        results |ty| vec![ty(*value)];
    /// Compare-and-swap; returns the old value (the swap happened iff it equals `expected`).
    AtomicCas {
        ptr: Value,
        expected: Value,
        desired: Value,
        ordering: Ordering,
        scope: Scope,
    } = "atomic.cas"
        family Atomic
        syntax [ptr, expected, desired, ordering, scope]
        results |ty| vec![ty(*expected)];
    Fence { ordering: Ordering, scope: Scope } = "fence"
        family Atomic
        syntax [ordering, scope]
        results |_ty| vec![];
    /// Workgroup barrier: every work-item of the workgroup waits here, and memory operations
    /// before it (global and shared) are visible to the workgroup after it.
    Barrier = "barrier"
        family Machine
        syntax []
        results |_ty| vec![];
    /// Subgroup barrier: every live lane of the work-item's subgroup waits here, and its
    /// memory operations before it are visible to the subgroup's lanes after it.
    SubgroupBarrier = "subgroup.barrier"
        family Machine
        syntax []
        results |_ty| vec![];
    /// A hint that the work-item is waiting: pause for about `nanos` nanoseconds so that
    /// polling does not flood memory (`s_sleep` on AMD, `nanosleep` on NVIDIA; the CPU device
    /// yields its thread).
    Sleep { nanos: u32 } = "sleep"
        family Machine
        syntax [nanos("sleep time in nanoseconds")]
        results |_ty| vec![];
    /// Sets the register budget of every work-item of the executing group of four subgroups
    /// to `count` registers (a multiple of 8 in 24 ..= 256): a warp-specialised kernel gives
    /// the registers its copying group does not need to the groups that multiply. All lanes
    /// of the group execute it together, so each role's `regs.set` belongs in a branch on the
    /// group index (`subgroup.id / 4`), taken by whole groups. `setmaxnreg` on NVIDIA (a
    /// kernel using it is compiled with a register cap at entry, which `setmaxnreg` needs);
    /// nothing on AMD and the CPU device.
    RegsSet { dir: RegsDir, count: u32 } = "regs.set"
        family Machine
        syntax [dir count("register count")]
        results |_ty| vec![];
    /// A timestamp in nanoseconds (`u64`), comparable between the workgroups of a device:
    /// for traces and timings, not for ordering.
    Clock = "clock"
        family Machine
        syntax []
        results |_ty| vec![Type::U64];
    /// Result `u32`. Printed `<kind> <dim>`, or `<kind>` for kinds without a dimension.
    Id { kind: IdKind, dim: Dim } = (kind: IdKind)
        family Machine
        syntax custom
        results |_ty| vec![Type::U32];
    /// The `value` of lane `lane % subgroup size` of the subgroup, in every lane: a
    /// collective op, executed by all lanes of the subgroup together (`shfl.sync` on NVIDIA,
    /// `ds_bpermute` on AMD).
    Shuffle { value: Value, lane: Value } = "subgroup.shuffle"
        family Tile
        syntax [value, lane]
        operands [
            value as "the value": Want::OneOf(&[Type::I32, Type::U32, Type::F32]),
            lane as "the source lane": Want::Is(Type::U32, ""),
        ]
        results |ty| vec![ty(*value)];
    /// `count` elements of `elem` in the workgroup's shared memory; result `ptr<shared>`.
    /// Only at the top level of a kernel's body.
    SharedAlloc { elem: Type, count: u32 } = "shared.alloc"
        family Memory
        syntax [elem, count("element count")]
        results |_ty| vec![Type::SHARED_PTR];
    /// A fragment of zeros (any `role`). Like every fragment op, collective over the
    /// subgroup: all its lanes execute it together, with the same operands.
    FragZero { role: FragRole } = "frag.zero"
        family Tile
        syntax [role]
        results |_ty| vec![Type::Frag(*role)];
    /// Loads a row-major tile (`role.shape()`, `bf16`) into a `frag<a>` or `frag<b>`:
    /// element (r, c) at `ptr + (r * stride + c) * 2`. `ptr` is 16-byte aligned and
    /// `stride` (`u32`, in elements) a multiple of 8, both the same in every lane of the
    /// subgroup.
    FragLoad { role: FragRole, ptr: Value, stride: Value } = "frag.load"
        family Tile
        syntax [role, ptr, stride]
        operands [stride as "the row stride": Want::ROW_STRIDE] kind FragOperand
        results |_ty| vec![Type::Frag(*role)];
    /// Stores a `frag<acc>` (16x16) or `frag<wacc>` (16x128) as a row-major tile of `elem`
    /// (`f32`, or `bf16` rounded to nearest even): element (r, c) at
    /// `ptr + (r * stride + c) * size_of(elem)`; alignment and stride as for `FragLoad`.
    /// With `within: (rows, cols)` (`u32`s), only elements with `r < rows` and `c < cols`
    /// are written (ragged edges); the others' addresses are never formed. With `layout
    /// swizzled` (`bf16`, no `within`) the tile is stored as a tensor map's swizzled boxes
    /// of `stride` rows instead ([`TileLayout::swizzled_box`]), ready for
    /// `copy.tensor.store`.
    FragStore {
        ptr: Value,
        value: Value,
        stride: Value,
        within: Option<(Value, Value)>,
        layout: TileLayout,
        elem: ScalarType,
    } = "frag.store"
        family Tile
        syntax [
            ptr, value, stride
            ?"within" within
            ?"layout" layout = (TileLayout::Rows)
            ?"as" elem = (ScalarType::F32)
        ]
        operands [
            value as "the stored value": Want::Accumulator,
            stride as "the row stride": Want::ROW_STRIDE,
        ] kind FragOperand
        results |_ty| vec![];
    /// `acc + a x b` (`frag<a>`, `frag<b>`, `frag<acc>` -> `frag<acc>`): products of `bf16`
    /// are exact in `f32`; sums are `f32`, in a target-defined order (k ascending on the
    /// CPU device).
    Mma { a: Value, b: Value, acc: Value } = "mma"
        family Tile
        syntax [a, b, acc]
        operands [
            a as "the first operand": Want::Frag(FragRole::A),
            b as "the second operand": Want::Frag(FragRole::B),
            acc as "the accumulator": Want::Frag(FragRole::Acc),
        ] kind FragOperand
        results |_ty| vec![Type::Frag(FragRole::Acc)];
    /// `acc + A x B` for a group of four subgroups (see [`crate::GROUP_SUBGROUPS`]): `A` is a
    /// 64x64 (M x K) and `B` a 64x128 (K x N) `bf16` tile in shared memory, `acc` a
    /// `frag<wacc>`; subgroup `4g + q` adds rows `16q .. 16q + 16` of the product to its
    /// slab. Both pointers are `ptr<shared>`, 1024-byte aligned, the same in every lane of
    /// the group; all lanes of the four subgroups execute it together. The tiles are laid out
    /// in 16-byte chunks swizzled by row (so that the rows a matrix unit reads at once hit
    /// distinct banks), as `layout` says ([`MmaLayout`]); by default (`mk, kn`)
    /// `A(i, k)` at byte `128 i + 16 ((k / 8) ^ (i % 8)) + 2 (k % 8)` of `a`, and
    /// `B(k, n)` at byte `8192 (n / 64) + 128 k + 16 (((n % 64) / 8) ^ (k % 8)) + 2 (n % 8)`
    /// of `b`; an `A` stored `km` has `A(i, k)` at `128 k + 16 ((i / 8) ^ (k % 8)) + 2 (i % 8)`,
    /// a `B` stored `nk` has `B(k, n)` at `128 n + 16 ((k / 8) ^ (n % 8)) + 2 (k % 8)`.
    /// Shared memory written before it must be ordered by a `barrier` (and, for
    /// `copy.async`, completed by `async.wait` before that barrier). Products are exact in
    /// `f32`; sums in a target-defined order (k ascending on the CPU device).
    MmaGroup { a: Value, b: Value, acc: Value, layout: MmaLayout } = "mma.group"
        family SharedTile
        syntax [a, b, acc ?"layout" layout = (MmaLayout::DEFAULT)]
        operands [
            a as "the a tile": Want::Ptr(AddrSpace::Shared),
            b as "the b tile": Want::Ptr(AddrSpace::Shared),
            acc as "the accumulator": Want::Frag(FragRole::WideAcc),
        ] kind FragOperand
        results |_ty| vec![Type::Frag(FragRole::WideAcc)];
    /// `mma.group` that returns without waiting for its result: the product is one committed
    /// group of matrix operations still in flight, and the result is owned by the matrix
    /// units until an `mma.wait` has waited for that group. Until then the result may only
    /// be the accumulator of another `mma.group.async` (which adds to the same registers in
    /// order) or an operand of `mma.wait` (the verifier rejects any other use of it; values
    /// carried through `yield` and loop arguments are the program's responsibility). The
    /// tiles stay read until the wait too: shared memory under them must not be overwritten
    /// before it. Same operands, layout and numbers as `mma.group`; `wgmma` without
    /// `wait_group` on NVIDIA, `mma.group` elsewhere (the CPU device computes it at once).
    MmaGroupAsync { a: Value, b: Value, acc: Value, layout: MmaLayout } = "mma.group.async"
        family SharedTile
        syntax [a, b, acc ?"layout" layout = (MmaLayout::DEFAULT)]
        operands [
            a as "the a tile": Want::Ptr(AddrSpace::Shared),
            b as "the b tile": Want::Ptr(AddrSpace::Shared),
            acc as "the accumulator": Want::Frag(FragRole::WideAcc),
        ] kind FragOperand
        results |_ty| vec![Type::Frag(FragRole::WideAcc)];
    /// Waits until at most `pending` (0 ..= [`MAX_PENDING_MMA_GROUPS`]) of the group's
    /// `mma.group.async`s are still in flight, and returns `accs` (the `frag<wacc>`s in
    /// flight, at least one) unchanged: the results are the accumulators to read after the
    /// wait. With `pending` > 0 the results of the newest groups may still be in flight:
    /// they follow the rule of `mma.group.async` results. Collective over the group, like
    /// `mma.group`.
    MmaWait { pending: u32, accs: Vec<Value> } = "mma.wait"
        family SharedTile
        syntax [pending("number of pending groups"), accs]
        results |ty| accs.iter().map(|v| ty(*v)).collect();
    /// Copies 16 bytes from `src` (`ptr<global>`) to `dst` (`ptr<shared>`), both 16-byte
    /// aligned, without waiting for them; when `pred` (`i1`) is false it writes 16 zero bytes
    /// and reads nothing. Per lane. The copy is complete once an `async.wait` of the same
    /// lane has waited for the group it was committed in; other lanes see the data after that
    /// and a `barrier`.
    CopyAsync { dst: Value, src: Value, pred: Value } = "copy.async"
        family SharedTile
        syntax [dst, src, pred]
        operands [
            dst as "the destination": Want::Ptr(AddrSpace::Shared),
            src as "the source": Want::Ptr(AddrSpace::Global),
            pred as "the predicate": Want::Is(Type::I1, ""),
        ] kind CopyAsyncOperand
        results |_ty| vec![];
    /// Closes the lane's current group of `copy.async`s.
    AsyncCommit = "async.commit"
        family SharedTile
        syntax []
        results |_ty| vec![];
    /// Waits until at most `pending` of the lane's committed groups are still in flight.
    AsyncWait { pending: u32 } = "async.wait"
        family SharedTile
        syntax [pending("number of pending groups")]
        results |_ty| vec![];
    /// Initializes the barrier object at `bar` (`ptr<shared>`, a `u64` word, 8-byte
    /// aligned): phase 0, expecting `count` (`u32`, 1 ..= 2^20) arrivals per phase. Executed
    /// by one work-item, then a `barrier` before any other work-item uses the object
    /// (`mbarrier.init` on NVIDIA). A phase completes once it has had its `count` arrivals and
    /// received every byte announced by `mbar.arrive.expect` in it; the object then moves on
    /// to the next phase, expecting `count` arrivals again.
    MbarInit { bar: Value, count: Value } = "mbar.init"
        family Async
        syntax [bar, count]
        operands [
            bar as "the barrier": Want::Ptr(AddrSpace::Shared),
            count as "the arrival count": Want::Is(Type::U32, "arrivals per phase"),
        ]
        results |_ty| vec![];
    /// One arrival on the barrier object at `bar`, with release semantics for the
    /// work-item's earlier memory accesses.
    MbarArrive { bar: Value } = "mbar.arrive"
        family Async
        syntax [bar]
        operands [bar as "the barrier": Want::Ptr(AddrSpace::Shared)]
        results |_ty| vec![];
    /// One arrival on the barrier object at `bar`, announcing `bytes` (`u32`) that bulk
    /// copies (`copy.tensor`) complete on it in the current phase: the phase does not
    /// complete before they have arrived. The copies may complete before the announcement.
    MbarArriveExpect { bar: Value, bytes: Value } = "mbar.arrive.expect"
        family Async
        syntax [bar, bytes]
        operands [
            bar as "the barrier": Want::Ptr(AddrSpace::Shared),
            bytes as "the byte count": Want::Is(Type::U32, ""),
        ]
        results |_ty| vec![];
    /// Whether the phase of parity `parity` (`u32`, its bit 0) of the barrier object at
    /// `bar` has completed (`i1`), with acquire semantics when it has: what was written
    /// before the arrivals and by the copies of that phase is visible after a true result.
    /// It does not wait (beyond a target-defined moment); a wait is a loop over it, bounded
    /// by the kernel (`wait.fail`).
    MbarTryWait { bar: Value, parity: Value } = "mbar.try_wait"
        family Async
        syntax [bar, parity]
        operands [
            bar as "the barrier": Want::Ptr(AddrSpace::Shared),
            parity as "the phase parity": Want::Is(Type::U32, ""),
        ]
        results |_ty| vec![Type::I1];
    /// Copies the 2-D box of the tensor map `map` (`ptr<global>`, 64-byte aligned, made by
    /// the runtime's `TensorMap`) whose first element is at column `x` and row `y` (`i32` or
    /// `u32`, taken as 32-bit signed integers) into shared memory at `dst` (`ptr<shared>`,
    /// 1024-byte aligned), and completes the box's byte count on the barrier object `bar`
    /// in its current phase. Row `r` of the box lies at byte `r * box_cols * elem_size`;
    /// with the map's 128-byte swizzle, the 16-byte chunk at byte offset `o` lies at
    /// `o ^ (((o / 128) % 8) * 16)` (the layout `mma.group` reads). Elements outside the
    /// tensor are zeros. Collective over the subgroup: all its lanes execute it together
    /// with the same operands, and it copies one box.
    CopyTensor { dst: Value, map: Value, x: Value, y: Value, bar: Value } = "copy.tensor"
        family Async
        syntax [dst, map, x, y, bar]
        operands [
            dst as "the destination": Want::Ptr(AddrSpace::Shared),
            map as "the tensor map": Want::Ptr(AddrSpace::Global),
            x as "the column": Want::OneOf(&[Type::I32, Type::U32]),
            y as "the row": Want::OneOf(&[Type::I32, Type::U32]),
            bar as "the barrier": Want::Ptr(AddrSpace::Shared),
        ]
        results |_ty| vec![];
    /// Copies the box of shared memory at `src` (`ptr<shared>`, 1024-byte aligned, laid out
    /// as `copy.tensor` writes a box of the map, swizzle included) into the 2-D box of the
    /// tensor map `map` whose first element is at column `x` and row `y` (as for
    /// `copy.tensor`, but both non-negative and `x` a whole number of 16-byte units of the
    /// map's elements: the copy engine faults otherwise, an illegal instruction on sm_90;
    /// the CPU device reports the call); elements outside the tensor (past its last row or
    /// column) are not written, if the map's rows are whole 16-byte units (the engine writes
    /// whole units: over a ragged last column, into the row's padding; the CPU device
    /// reports such a store). Collective over the
    /// subgroup, like `copy.tensor`, and asynchronous: the copy reads `src` and writes global
    /// memory in the background, until a `copy.tensor.wait.read` (reads) or `copy.tensor.wait`
    /// (writes too) of the subgroup has waited for it. A `fence.proxy.async.shared` of each
    /// writer of `src` comes before it. `cp.async.bulk.tensor` from shared memory on NVIDIA;
    /// the subgroup's lanes copy it at once elsewhere.
    CopyTensorStore { map: Value, x: Value, y: Value, src: Value } = "copy.tensor.store"
        family Async
        syntax [map, x, y, src]
        operands [
            map as "the tensor map": Want::Ptr(AddrSpace::Global),
            x as "the column": Want::OneOf(&[Type::I32, Type::U32]),
            y as "the row": Want::OneOf(&[Type::I32, Type::U32]),
            src as "the source": Want::Ptr(AddrSpace::Shared),
        ]
        results |_ty| vec![];
    /// Waits until at most `pending` of the subgroup's `copy.tensor.store`s (the newest) may
    /// still read their shared memory, which may then be written again. Collective over the
    /// subgroup.
    CopyTensorWaitRead { pending: u32 } = "copy.tensor.wait.read"
        family Async
        syntax [pending("number of pending stores")]
        results |_ty| vec![];
    /// Waits until at most `pending` of the subgroup's `copy.tensor.store`s (the newest) are
    /// not yet complete: the others' writes are done (then `fence.proxy.async` and a release
    /// publish them to plain loads of other workgroups). Collective over the subgroup; a
    /// subgroup waits for all of its stores before it ends.
    CopyTensorWait { pending: u32 } = "copy.tensor.wait"
        family Async
        syntax [pending("number of pending stores")]
        results |_ty| vec![];
    /// Orders the work-item's earlier accesses by ordinary loads and stores (shared or global
    /// memory) before later accesses of the copy engine and the matrix units (`copy.tensor`,
    /// `mma.group`): `fence.proxy.async` on NVIDIA, nothing elsewhere.
    FenceProxyAsync = "fence.proxy.async"
        family Async
        syntax []
        results |_ty| vec![];
    /// `fence.proxy.async` for shared memory only (`fence.proxy.async.shared::cta` on NVIDIA,
    /// nothing elsewhere).
    FenceProxyAsyncShared = "fence.proxy.async.shared"
        family Async
        syntax []
        results |_ty| vec![];
    /// A vector with every lane set to `value`.
    Splat { value: Value, lanes: u32 } = "vec.splat"
        family Vector
        syntax [value, lanes("lane count")]
        results |ty| {
            let elem = ty(*value).elem().unwrap_or(ScalarType::I32);
            vec![Type::Vector { elem, lanes: *lanes }]
        };
    Extract { vector: Value, lane: u32 } = "vec.extract"
        family Vector
        syntax [vector, lane("lane index")]
        results |ty| vec![Type::Scalar(ty(*vector).elem().unwrap_or(ScalarType::I32))];
    Insert { vector: Value, lane: u32, value: Value } = "vec.insert"
        family Vector
        syntax [vector, lane("lane index"), value]
        results |ty| vec![ty(*vector)];
    /// Results typed by `result_types`, given by the `yield` ending each region.
    If { cond: Value, then_region: Region, else_region: Region, result_types: Vec<Type> } = "if"
        family Control
        syntax custom
        results |_ty| result_types.clone();
    /// `for iv in (lb..ub).step_by(step)` with loop-carried values. `body.args` are the
    /// induction variable (the type of the `range`) followed by one argument per
    /// `inits` entry; the body's `yield` gives the next iteration's values, and the results
    /// are the carried values after the last iteration. `step` must be positive.
    For { range: ForRange, inits: Vec<Value>, body: Region } = "for"
        family Control
        syntax custom
        results |ty| inits.iter().map(|v| ty(*v)).collect();
    /// An unbounded loop: `body.args` take `inits`, then each `yield`; it ends with a `break`
    /// whose values (typed by `result_types`) are the results.
    Loop { inits: Vec<Value>, body: Region, result_types: Vec<Type> } = "loop"
        family Control
        syntax custom
        results |_ty| result_types.clone();
    /// Ends the region of an `if`, or the iteration of a `for`/`loop`.
    Yield { values: Vec<Value> } = "yield"
        family Control
        syntax [values]
        results |_ty| vec![];
    /// Leaves the innermost enclosing `loop` with its results.
    Break { values: Vec<Value> } = "break"
        family Control
        syntax [values]
        results |_ty| vec![];
    /// Ends the work-item.
    Return = "return"
        family Control
        syntax []
        results |_ty| vec![];
}

impl Op {
    /// Whether this op ends its region.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Op::Yield { .. } | Op::Break { .. } | Op::Return)
    }

    /// Whether this op touches memory with an ordering and scope.
    pub fn atomic_ordering(&self) -> Option<(Ordering, Scope)> {
        match self {
            Op::AtomicLoad {
                ordering, scope, ..
            }
            | Op::AtomicStore {
                ordering, scope, ..
            }
            | Op::AtomicRmw {
                ordering, scope, ..
            }
            | Op::AtomicCas {
                ordering, scope, ..
            }
            | Op::Fence { ordering, scope } => Some((*ordering, *scope)),
            _ => None,
        }
    }
}

impl Dim {
    pub fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        }
    }
}

impl Ordering {
    pub fn is_acquire(self) -> bool {
        matches!(
            self,
            Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
        )
    }

    pub fn is_release(self) -> bool {
        matches!(
            self,
            Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
        )
    }
}
