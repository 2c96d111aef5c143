//! The verifier: every kernel passes it before it is interpreted or lowered.
//!
//! The CPU device and the code generator assume well-typed IR (LLVM fails on malformed
//! input), so the verifier checks everything either of them relies on, and rejects what a
//! target cannot express: a verified kernel runs on the CPU device and compiles for every
//! target. It never stops at the first finding: it reports every error it finds, each
//! naming the kernel, the instruction's position and its op. The rules are listed in docs/ir.md ("Verifier").

use crate::{
    AddrSpace, BinOp, Inst, InstPos, Kernel, Module, Op, Ordering, Region, RmwOp, ScalarType,
    TileLayout, Type, UnOp, Value,
};
use std::collections::HashSet;
use std::fmt;

mod arith;
mod async_mma;
mod control;
mod memory;
mod verified;

pub use verified::{VerifiedKernel, VerifiedModule};

/// Largest amount of shared memory one kernel may allocate, in bytes: the most any target
/// offers (227 KiB per block on sm_90a, with the opt-in the CUDA runtime asks for). Targets
/// with less (64 KiB of LDS on gfx942, 160 KiB on gfx950) leave a kernel that needs more out
/// of their binaries, and launching it there is an error that says so.
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;

/// Largest `min_resident` a kernel may ask for (NVIDIA's resident-block limit per SM).
pub const MAX_MIN_RESIDENT: u32 = 32;

/// Deepest nesting of regions (`if`, `for`, `loop` bodies) a kernel may have, the kernel body
/// counting as the first. The parser, the verifier, the CPU device and the code generator
/// walk regions recursively: this bound keeps every walk far from its thread's stack limit.
pub const MAX_REGION_DEPTH: usize = 64;

/// Largest `max_workgroup_size` a kernel may declare (the limit of every target).
pub const MAX_WORKGROUP_SIZE: u32 = 1024;

/// What a [`VerifyError`] is about: one variant per check.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VerifyErrorKind {
    // ---- kernel header ----
    /// The kernel's name is not an identifier (letters, digits, `_`; not starting with a digit).
    KernelName,
    /// Two kernels of a module share a name.
    DuplicateKernelName,
    /// `max_workgroup_size` is outside `1..=1024`.
    WorkgroupSize,
    /// A type named by a parameter or an op is not well formed (a vector out of its limits).
    MalformedType,
    /// A kernel parameter of a type no launch can pass: a vector (launches pass pointers and
    /// scalars).
    ParamType,
    // ---- SSA values ----
    /// A value id beyond the kernel's value table.
    ValueOutOfRange,
    /// A value used before (or without) its definition.
    UndefinedValue,
    /// A value used outside the region that defines it.
    OutOfScope,
    /// A value defined twice.
    Redefinition,
    /// An instruction defines more or fewer values than its op has results.
    ResultCount,
    /// A result's type in the value table differs from the op's result type.
    ResultType,
    /// A constant whose bits do not fit its type.
    ConstantBits,
    // ---- typing ----
    /// An operand whose type the op's signature in the op table does not accept.
    OperandType,
    /// Operands that must share a type do not.
    OperandMismatch,
    /// A binary op on a type it does not accept.
    BinaryType,
    /// A unary op on a type it does not accept.
    UnaryType,
    /// `fma` on non-float operands.
    FmaType,
    /// `cmp` on operands that are not scalars.
    CmpType,
    /// `select`'s condition is not `i1`.
    SelectCondition,
    /// `cast` between types that are not scalar numbers (or to `i1`).
    CastType,
    /// `bitcast` between types of different sizes, or involving pointers.
    BitcastType,
    /// An operand that must be a pointer is not.
    PointerOperand,
    /// `ptr.offset`'s index is not an integer (or is `i1`).
    IndexType,
    /// A memory access alignment that is not a power of two in `1..=16`.
    Alignment,
    /// A plain store to `ptr<constant>`.
    ConstantWrite,
    /// An atomic on `ptr<constant>`.
    AtomicSpace,
    /// An atomic on a value type it does not support.
    AtomicType,
    /// An ordering the op cannot have (a release load, an acquire store, a relaxed fence).
    InvalidOrdering,
    /// A vector op on an operand of the wrong kind.
    VectorOperand,
    /// A vector lane index beyond the vector's lanes.
    LaneOutOfRange,
    /// A constant attribute outside the range the op takes: `mma.wait`'s pending groups,
    /// `regs.set`'s register count.
    AttributeRange,
    /// A subgroup id (`subgroup.size`, `.id`, `.lane`) with a dimension other than x.
    IdDimension,
    // ---- tiles ----
    /// A fragment where only scalars, vectors or pointers go: a parameter, memory, an
    /// arithmetic, vector, conversion or `select` operand, a `shared.alloc` element.
    FragPlacement,
    /// A fragment op's operand of the wrong type: `mma` roles out of place, a stride or
    /// bound that is not `u32`, `frag.store` of something other than an accumulator,
    /// `frag.load acc`, `mma.group` tiles outside shared memory.
    FragOperand,
    /// `buffer.len` of a value that is not a pointer parameter of the kernel in global or
    /// constant memory.
    BufferLenOperand,
    /// A `bounds.fail` or `wait.fail` origin with a line break (the text format keeps it on one line).
    OriginText,
    /// A use of an accumulator that `mma.group.async` is still writing (not passed through
    /// `mma.wait`).
    InFlightAccumulator,
    /// `copy.async` with a destination not in shared memory, a source not in global memory
    /// or a predicate that is not `i1`.
    CopyAsyncOperand,
    // ---- shared memory ----
    /// `shared.alloc` outside the kernel body's top level.
    SharedAllocPlacement,
    /// `shared.alloc` of zero elements.
    SharedAllocCount,
    /// The kernel's shared allocations exceed 64 KiB.
    SharedMemoryLimit,
    /// A `ptr<shared>` leaving the workgroup: stored to memory, passed to an atomic, loaded
    /// from memory or taken as a kernel parameter.
    SharedEscape,
    // ---- structure ----
    /// Regions nested deeper than [`MAX_REGION_DEPTH`].
    RegionDepth,
    /// A region of `if`/`for`/`loop` that does not end with a terminator.
    MissingTerminator,
    /// An instruction after a terminator of its region.
    AfterTerminator,
    /// Region arguments that do not match the construct (`for`: induction variable and
    /// carried values; `loop`: carried values; `if` and the kernel body: none).
    RegionArgs,
    /// `if` condition that is not `i1`.
    IfCondition,
    /// `for` bounds and step that are not one integer type (other than `i1`).
    ForBounds,
    /// `yield` values that do not match the enclosing construct.
    YieldMismatch,
    /// `yield` directly in the kernel body.
    MisplacedYield,
    /// `break` outside any `loop`.
    BreakOutsideLoop,
    /// `break` inside a `for` nested in the loop it would leave.
    BreakInsideFor,
    /// `break` values that do not match the loop's result types.
    BreakMismatch,
}

/// The `op` of errors about the kernel itself (its name, launch bound, parameters, body).
pub const KERNEL_OP: &str = "kernel";

/// One verifier finding: the kernel, where, the op, and what is wrong.
///
/// Errors about the kernel itself (its header and parameters) have `op` [`KERNEL_OP`] and
/// position `inst #0`; they print without the position.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct VerifyError {
    pub kernel: String,
    pub pos: InstPos,
    pub op: &'static str,
    pub kind: VerifyErrorKind,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.op == KERNEL_OP {
            write!(f, "{}: `{}`: {}", self.kernel, self.op, self.message)
        } else {
            write!(
                f,
                "{}: {}: `{}`: {}",
                self.kernel, self.pos, self.op, self.message
            )
        }
    }
}

/// All findings of one verification.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

/// Checks one kernel; on success it becomes a [`VerifiedKernel`], the only form the CPU device
/// and the code generator take.
pub fn verify(kernel: Kernel) -> Result<VerifiedKernel, VerifyErrors> {
    into_result(Verifier::new(&kernel).run())?;
    Ok(VerifiedKernel(kernel))
}

/// Checks every kernel of a module, and that kernel names are unique; on success the module
/// becomes a [`VerifiedModule`].
pub fn verify_module(module: Module) -> Result<VerifiedModule, VerifyErrors> {
    let mut errors = Vec::new();
    let mut names = HashSet::new();
    for kernel in &module.kernels {
        if !kernel.name.is_empty() && !names.insert(kernel.name.as_str()) {
            errors.push(VerifyError {
                kernel: kernel.name.clone(),
                pos: InstPos::Index(0),
                op: KERNEL_OP,
                kind: VerifyErrorKind::DuplicateKernelName,
                message: format!("another kernel of the module is named `{}`", kernel.name),
            });
        }
        errors.extend(Verifier::new(kernel).run());
    }
    into_result(errors)?;
    Ok(VerifiedModule {
        kernels: module.kernels.into_iter().map(VerifiedKernel).collect(),
    })
}

fn into_result(errors: Vec<VerifyError>) -> Result<(), VerifyErrors> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(errors))
    }
}

/// Where an error is reported: an instruction's position and mnemonic.
#[derive(Copy, Clone)]
struct Site {
    pos: InstPos,
    op: &'static str,
}

const KERNEL_SITE: Site = Site {
    pos: InstPos::Index(0),
    op: KERNEL_OP,
};

/// The construct a region belongs to, for `yield` and `break`.
enum Construct<'k> {
    Body,
    If {
        result_types: &'k [Type],
    },
    /// Carried value types (from the inits; `None` where an init is out of range).
    For {
        carried: Vec<Option<Type>>,
    },
    Loop {
        carried: Vec<Option<Type>>,
        result_types: &'k [Type],
    },
}

/// One open region: its construct and the values it defined (hidden again when it closes).
struct Scope<'k> {
    construct: Construct<'k>,
    defined: Vec<Value>,
}

struct Verifier<'k> {
    kernel: &'k Kernel,
    errors: Vec<VerifyError>,
    /// Per value: defined somewhere before this point of the walk.
    defined: Vec<bool>,
    /// Per value: defined in a region that is still open.
    visible: Vec<bool>,
    scopes: Vec<Scope<'k>>,
    /// Walk index of the next instruction (matches [`Kernel::walk`]).
    next_index: usize,
    /// End of the shared allocations so far, in bytes.
    shared_bytes: u64,
    shared_limit_reported: bool,
    /// Results of `mma.group.async` (and of `mma.wait`s that leave groups pending): their
    /// registers are still being written.
    in_flight: HashSet<Value>,
}

fn is_atomic_int(t: Type) -> bool {
    matches!(t, Type::Scalar(s) if s.is_int() && matches!(s.bits(), 32 | 64))
}

/// A power of two in `1..=16`: the accesses every target can express.
fn valid_align(align: u32) -> bool {
    align.is_power_of_two() && align <= 16
}

/// Size in bits of a well-formed scalar or vector type; `None` for pointers.
fn value_bits(t: Type) -> Option<u64> {
    match t {
        Type::Scalar(s) => Some(u64::from(s.bits())),
        Type::Vector { elem, lanes } => Some(u64::from(elem.bits()) * u64::from(lanes)),
        Type::Ptr(_) | Type::Frag(_) => None,
    }
}

/// Instructions in `region` and every region nested in it, counted without recursion.
fn count_insts(region: &Region) -> usize {
    let mut count = 0;
    let mut todo = vec![region];
    while let Some(r) = todo.pop() {
        count += r.insts.len();
        todo.extend(r.insts.iter().flat_map(|i| i.op.regions()));
    }
    count
}

fn list_types(types: &[Option<Type>]) -> String {
    let names: Vec<String> = types
        .iter()
        .map(|t| t.map_or_else(|| "?".to_string(), |t| t.to_string()))
        .collect();
    format!("({})", names.join(", "))
}

impl<'k> Verifier<'k> {
    fn new(kernel: &'k Kernel) -> Verifier<'k> {
        let n = kernel.values.len();
        Verifier {
            kernel,
            errors: Vec::new(),
            defined: vec![false; n],
            visible: vec![false; n],
            scopes: Vec::new(),
            next_index: 0,
            shared_bytes: 0,
            shared_limit_reported: false,
            in_flight: HashSet::new(),
        }
    }

    fn run(mut self) -> Vec<VerifyError> {
        self.header();
        self.scopes.push(Scope {
            construct: Construct::Body,
            defined: Vec::new(),
        });
        for &p in &self.kernel.params {
            self.param(p);
        }
        if !self.kernel.body.args.is_empty() {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::RegionArgs,
                format!(
                    "the kernel body has {} region arguments; it takes none",
                    self.kernel.body.args.len()
                ),
            );
        }
        self.insts(&self.kernel.body.insts, None);
        self.pop_scope();
        self.errors
    }

    fn error(&mut self, at: Site, kind: VerifyErrorKind, message: String) {
        self.errors.push(VerifyError {
            kernel: self.kernel.name.clone(),
            pos: at.pos,
            op: at.op,
            kind,
            message,
        });
    }

    fn ty(&self, v: Value) -> Option<Type> {
        self.kernel.values.get(v.index()).map(|d| d.ty)
    }

    fn name(&self, v: Value) -> String {
        self.kernel.display_value(v)
    }

    /// `%v (type)` for messages.
    fn describe(&self, v: Value) -> String {
        match self.ty(v) {
            Some(t) => format!("{} ({t})", self.name(v)),
            None => self.name(v),
        }
    }

    // ---- kernel header ----

    fn header(&mut self) {
        // The name is the symbol in every binary and how launches find the kernel, so it
        // must be valid everywhere: PTX identifiers take no `.`.
        let name = &self.kernel.name;
        let identifier = name.chars().next().is_some_and(|c| !c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::KernelName,
                format!(
                    "the kernel name `{name}` is not an identifier \
                     (letters, digits and `_`, not starting with a digit)"
                ),
            );
        }
        let size = self.kernel.max_workgroup_size;
        if !(1..=MAX_WORKGROUP_SIZE).contains(&size) {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::WorkgroupSize,
                format!("max_workgroup_size {size} is outside 1..={MAX_WORKGROUP_SIZE}"),
            );
        }
        if let Some(n) = self.kernel.max_subgroups
            && !(1..=MAX_WORKGROUP_SIZE / 32).contains(&n)
        {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::WorkgroupSize,
                format!(
                    "max_subgroups {n} is outside 1..={}",
                    MAX_WORKGROUP_SIZE / 32
                ),
            );
        }
        if let Some(n) = self.kernel.min_resident
            && !(1..=MAX_MIN_RESIDENT).contains(&n)
        {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::WorkgroupSize,
                format!("min_resident {n} is outside 1..={MAX_MIN_RESIDENT}"),
            );
        }
    }

    fn param(&mut self, p: Value) {
        if !self.define(KERNEL_SITE, p) {
            return;
        }
        let Some(t) = self.ty(p) else { return };
        if !t.is_well_formed() {
            self.malformed(KERNEL_SITE, t, &format!("parameter {}", self.name(p)));
        } else if t.is_frag() {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::FragPlacement,
                format!(
                    "parameter {} is a {t}: fragments live in a subgroup's registers and \
                     cannot be passed in",
                    self.name(p)
                ),
            );
        } else if matches!(t, Type::Vector { .. }) {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::ParamType,
                format!(
                    "parameter {} is a {t}: launches pass pointers and scalars; pass vectors \
                     in memory",
                    self.name(p)
                ),
            );
        } else if t == Type::SHARED_PTR {
            self.error(
                KERNEL_SITE,
                VerifyErrorKind::SharedEscape,
                format!(
                    "parameter {} is a ptr<shared>: shared memory is allocated inside its \
                     kernel and cannot be passed in",
                    self.name(p)
                ),
            );
        }
    }

    fn malformed(&mut self, at: Site, t: Type, what: &str) {
        self.error(
            at,
            VerifyErrorKind::MalformedType,
            format!(
                "{what} has type {t}, which is not a valid vector type (2..=16 lanes, at most \
                 16 bytes, no i1 lanes)"
            ),
        );
    }

    /// Reports `t` if it is not well formed; returns whether it is.
    fn well_formed(&mut self, at: Site, t: Type, what: &str) -> bool {
        let ok = t.is_well_formed();
        if !ok {
            self.malformed(at, t, what);
        }
        ok
    }

    // ---- values and scopes ----

    /// Defines `v` in the innermost scope; returns false when `v` is out of range.
    fn define(&mut self, at: Site, v: Value) -> bool {
        let i = v.index();
        if i >= self.kernel.values.len() {
            self.out_of_range(at, v);
            return false;
        }
        if self.defined[i] {
            self.error(
                at,
                VerifyErrorKind::Redefinition,
                format!("{} is defined more than once", self.name(v)),
            );
            // Visible again from here on, so that its uses do not cascade into more errors.
            if self.visible[i] {
                return true;
            }
        }
        self.defined[i] = true;
        self.visible[i] = true;
        if let Some(scope) = self.scopes.last_mut() {
            scope.defined.push(v);
        }
        true
    }

    fn out_of_range(&mut self, at: Site, v: Value) {
        self.error(
            at,
            VerifyErrorKind::ValueOutOfRange,
            format!(
                "value %{} is beyond the kernel's {} values",
                v.0,
                self.kernel.values.len()
            ),
        );
    }

    fn use_value(&mut self, at: Site, v: Value) {
        let i = v.index();
        if i >= self.kernel.values.len() {
            self.out_of_range(at, v);
        } else if !self.visible[i] {
            if self.defined[i] {
                self.error(
                    at,
                    VerifyErrorKind::OutOfScope,
                    format!(
                        "{} is used outside the region that defines it",
                        self.name(v)
                    ),
                );
            } else {
                self.error(
                    at,
                    VerifyErrorKind::UndefinedValue,
                    format!("{} is used before its definition", self.name(v)),
                );
            }
        }
    }

    fn pop_scope(&mut self) {
        if let Some(scope) = self.scopes.pop() {
            for v in scope.defined {
                self.visible[v.index()] = false;
            }
        }
    }

    // ---- regions ----

    /// Checks a region's instructions; `owner` is the op owning the region and its
    /// description, or `None` for the kernel body (which need not end in a terminator).
    fn insts(&mut self, insts: &'k [Inst], owner: Option<(Site, &str)>) {
        let mut terminated = false;
        let mut reported_after = false;
        for inst in insts {
            let index = self.next_index;
            let at = Site {
                pos: Kernel::inst_pos(inst, index),
                op: inst.op.name(),
            };
            if terminated && !reported_after {
                reported_after = true;
                self.error(
                    at,
                    VerifyErrorKind::AfterTerminator,
                    "instruction after the terminator of its region".to_string(),
                );
            }
            self.inst(inst);
            terminated |= inst.op.is_terminator();
        }
        if let Some((at, what)) = owner
            && !terminated
        {
            self.error(
                at,
                VerifyErrorKind::MissingTerminator,
                format!("{what} does not end with a terminator (yield, break or return)"),
            );
        }
    }

    /// Opens a scope for `region`, defines its arguments (checked against `expected`),
    /// checks its instructions and closes the scope.
    fn region(
        &mut self,
        at: Site,
        what: &str,
        region: &'k Region,
        construct: Construct<'k>,
        expected_args: &[Option<Type>],
    ) {
        if self.scopes.len() >= MAX_REGION_DEPTH {
            // Once per op, not once per region of an `if`.
            let reported = self
                .errors
                .last()
                .is_some_and(|e| e.kind == VerifyErrorKind::RegionDepth && e.pos == at.pos);
            if !reported {
                self.error(
                    at,
                    VerifyErrorKind::RegionDepth,
                    format!("regions are nested deeper than {MAX_REGION_DEPTH}"),
                );
            }
            // Not descending (that is the point), but keeping the walk's numbering.
            self.next_index += count_insts(region);
            return;
        }
        self.scopes.push(Scope {
            construct,
            defined: Vec::new(),
        });
        let actual: Vec<Option<Type>> = region.args.iter().map(|a| self.ty(*a)).collect();
        let matches = actual.len() == expected_args.len()
            && actual
                .iter()
                .zip(expected_args)
                .all(|(a, e)| a.is_none() || e.is_none() || a == e);
        if !matches {
            self.error(
                at,
                VerifyErrorKind::RegionArgs,
                format!(
                    "{what} has arguments of types {}, expected {}",
                    list_types(&actual),
                    list_types(expected_args)
                ),
            );
        }
        for &a in &region.args {
            self.define(at, a);
        }
        self.insts(&region.insts, Some((at, what)));
        self.pop_scope();
    }

    // ---- instructions ----

    fn inst(&mut self, inst: &'k Inst) {
        let index = self.next_index;
        self.next_index += 1;
        let at = Site {
            pos: Kernel::inst_pos(inst, index),
            op: inst.op.name(),
        };
        let operands = inst.op.operands();
        for (i, &v) in operands.iter().enumerate() {
            // A value used twice (`add %x, %x`) is reported once.
            if !operands[..i].contains(&v) {
                self.use_value(at, v);
            }
        }
        self.in_flight_uses(at, &inst.op, &operands);
        if self.misplaced_frag(at, &inst.op, &operands) {
            self.results(at, inst, &operands);
            return;
        }
        match &inst.op {
            Op::Const { value: c } => {
                let bits = c.ty.bits();
                if bits < 64 && c.bits >> bits != 0 {
                    self.error(
                        at,
                        VerifyErrorKind::ConstantBits,
                        format!("constant bits {:#x} do not fit in {}", c.bits, c.ty),
                    );
                }
            }
            Op::Binary { op, lhs, rhs } => self.binary(at, *op, *lhs, *rhs),
            Op::Unary { op, arg } => self.unary(at, *op, *arg),
            Op::Fma { a, b, c } => self.fma(at, *a, *b, *c),
            Op::Cmp { lhs, rhs, .. } => self.cmp(at, *lhs, *rhs),
            // The condition's type is the table's; the two values must agree.
            Op::Select {
                if_true, if_false, ..
            } => {
                self.same_type(at, &[*if_true, *if_false]);
            }
            Op::Cast { arg, to } => self.cast(at, *arg, *to),
            Op::Bitcast { arg, to } => self.bitcast(at, *arg, *to),
            Op::PtrOffset { base, index, elem } => self.ptr_offset(at, *base, *index, *elem),
            Op::Load { ptr, ty, align } => self.load(at, *ptr, *ty, *align),
            Op::Store { ptr, value, align } => self.store(at, *ptr, *value, *align),
            Op::AtomicLoad {
                ptr, ty, ordering, ..
            } => {
                self.atomic_ptr(at, *ptr);
                self.atomic_int(at, "the loaded type", Some(Type::Scalar(*ty)));
                if matches!(ordering, Ordering::Release | Ordering::AcqRel) {
                    self.bad_ordering(at, *ordering, "a load cannot release");
                }
            }
            Op::AtomicStore {
                ptr,
                value,
                ordering,
                ..
            } => {
                self.atomic_ptr(at, *ptr);
                if !self.shared_escape(at, *value) {
                    self.atomic_int(at, "the stored value", self.ty(*value));
                }
                if matches!(ordering, Ordering::Acquire | Ordering::AcqRel) {
                    self.bad_ordering(at, *ordering, "a store cannot acquire");
                }
            }
            Op::AtomicRmw { op, ptr, value, .. } => self.atomic_rmw(at, *op, *ptr, *value),
            Op::AtomicCas {
                ptr,
                expected,
                desired,
                ..
            } => self.atomic_cas(at, *ptr, *expected, *desired),
            Op::Fence { ordering, .. } if *ordering == Ordering::Relaxed => {
                self.bad_ordering(at, *ordering, "a fence must order something");
            }
            Op::Id { kind, dim } if !kind.has_dim() && *dim != crate::Dim::X => {
                self.error(
                    at,
                    VerifyErrorKind::IdDimension,
                    format!("{kind} has no dimension (it is stored as x, found {dim})"),
                );
            }
            Op::BufferLen { buffer } => self.buffer_len(at, *buffer),
            Op::BoundsFail { origin, .. } | Op::WaitFail { origin, .. }
                if origin.0.contains(['\n', '\r']) =>
            {
                self.error(
                    at,
                    VerifyErrorKind::OriginText,
                    format!("the origin {:?} has a line break", origin.0),
                );
            }
            Op::FragLoad { role, ptr, .. } => {
                self.pointer(at, *ptr);
                if role.is_acc() {
                    self.error(
                        at,
                        VerifyErrorKind::FragOperand,
                        "loads frag<a> or frag<b> tiles of bf16; an accumulator starts from \
                         frag.zero"
                            .to_string(),
                    );
                }
            }
            Op::FragStore {
                ptr,
                within,
                layout,
                elem,
                ..
            } => {
                if *layout == TileLayout::Swizzled
                    && (*elem != ScalarType::BF16 || within.is_some())
                {
                    self.error(
                        at,
                        VerifyErrorKind::FragOperand,
                        "stores a swizzled tile as bf16, whole (no `within`)".to_string(),
                    );
                }
                if !matches!(elem, ScalarType::F32 | ScalarType::BF16) {
                    self.error(
                        at,
                        VerifyErrorKind::FragOperand,
                        format!("stores f32 or bf16 elements, not {elem}"),
                    );
                }
                if self.pointer(at, *ptr) == Some(AddrSpace::Constant) {
                    self.error(
                        at,
                        VerifyErrorKind::ConstantWrite,
                        format!("{} points to read-only constant memory", self.name(*ptr)),
                    );
                }
                if let Some((rows, cols)) = within {
                    for bound in [*rows, *cols] {
                        if let Some(t) = self.ty(bound)
                            && t != Type::U32
                        {
                            self.error(
                                at,
                                VerifyErrorKind::FragOperand,
                                format!(
                                    "the bound {} must be u32 (rows or columns stored)",
                                    self.describe(bound)
                                ),
                            );
                        }
                    }
                }
            }
            Op::SharedAlloc { elem, count } => self.shared_alloc(at, *elem, *count),
            Op::MmaWait { pending, accs } => self.mma_wait(at, *pending, accs),
            Op::RegsSet { dir, count } => self.regs_set(at, *dir, *count),
            Op::Splat { value, lanes } => self.splat(at, *value, *lanes),
            Op::Extract { vector, lane } => {
                self.vector_lane(at, *vector, *lane);
            }
            Op::Insert {
                vector,
                lane,
                value,
            } => self.insert(at, *vector, *lane, *value),
            Op::If {
                cond,
                then_region,
                else_region,
                result_types,
            } => self.if_(at, *cond, then_region, else_region, result_types),
            Op::For { range, inits, body } => self.for_(at, range.values(), inits, body),
            Op::Loop {
                inits,
                body,
                result_types,
            } => self.loop_(at, inits, body, result_types),
            Op::Yield { values } => self.yield_(at, values),
            Op::Break { values } => self.break_(at, values),
            // Every other op has no rule beyond its signature in the op table.
            _ => {}
        }
        let mut signature_errors = Vec::new();
        inst.op.check_signature(
            |v| self.ty(v),
            |v| self.describe(v),
            |kind, message| signature_errors.push((kind, message)),
        );
        for (kind, message) in signature_errors {
            self.error(at, kind, message);
        }
        self.results(at, inst, &operands);
        self.mark_in_flight(inst);
    }

    /// Reports fragments used by an op that does not take them (fragment ops and the
    /// structured control flow carry them; nothing else does); returns whether it found any.
    fn misplaced_frag(&mut self, at: Site, op: &Op, operands: &[Value]) -> bool {
        let named = match op {
            Op::FragZero { .. }
            | Op::FragLoad { .. }
            | Op::FragStore { .. }
            | Op::Mma { .. }
            | Op::MmaGroup { .. }
            | Op::MmaGroupAsync { .. }
            | Op::MmaWait { .. }
            | Op::If { .. }
            | Op::For { .. }
            | Op::Loop { .. }
            | Op::Yield { .. }
            | Op::Break { .. } => return false,
            Op::Load { ty, .. } => Some(*ty),
            Op::PtrOffset { elem, .. } | Op::SharedAlloc { elem, .. } => Some(*elem),
            Op::Cast { to, .. } | Op::Bitcast { to, .. } => Some(*to),
            _ => None,
        };
        let mut found = false;
        if let Some(t) = named.filter(|t| t.is_frag()) {
            found = true;
            self.error(
                at,
                VerifyErrorKind::FragPlacement,
                format!(
                    "names type {t}: fragments are not in memory and convert to nothing; use \
                     frag.load, frag.store and mma"
                ),
            );
        }
        for (i, &v) in operands.iter().enumerate() {
            if !operands[..i].contains(&v) && self.ty(v).is_some_and(Type::is_frag) {
                found = true;
                self.error(
                    at,
                    VerifyErrorKind::FragPlacement,
                    format!(
                        "{} is a fragment: only frag.store, mma, yield, break and loop inits \
                         take fragments",
                        self.describe(v)
                    ),
                );
            }
        }
        found
    }

    /// Checks and defines the instruction's results (after its regions: they are not
    /// visible inside them).
    fn results(&mut self, at: Site, inst: &Inst, operands: &[Value]) {
        let n = self.kernel.values.len();
        let expected = inst
            .op
            .result_types(|v| self.ty(v).unwrap_or(Type::Scalar(ScalarType::I32)));
        if expected.len() != inst.results.len() {
            self.error(
                at,
                VerifyErrorKind::ResultCount,
                format!(
                    "defines {} values; the op has {} results",
                    inst.results.len(),
                    expected.len()
                ),
            );
        }
        // With an operand out of range the expected types are guesses: skip the comparison.
        let types_known = operands.iter().all(|v| v.index() < n);
        for (i, &r) in inst.results.iter().enumerate() {
            if !self.define(at, r) {
                continue;
            }
            if let (true, Some(want), Some(have)) = (types_known, expected.get(i), self.ty(r))
                && *want != have
            {
                self.error(
                    at,
                    VerifyErrorKind::ResultType,
                    format!(
                        "result {} has type {have}; the op's result type is {want}",
                        self.name(r)
                    ),
                );
            }
        }
    }
}
