//! Building kernels from Rust.
//!
//! The builder infers result types and never checks them: run the verifier on the result.
//!
//! ```
//! use kosmos_ir::{KernelBuilder, Type, ScalarType, Dim};
//! let mut b = KernelBuilder::new("fill", 256);
//! let out = b.param("out", Type::GLOBAL_PTR);
//! let tid = b.workitem_id(Dim::X);
//! let one = b.const_f32(1.0);
//! let p = b.ptr_offset(out, tid, Type::F32);
//! b.store(p, one);
//! let kernel = b.finish();
//! kosmos_ir::verify(kernel).unwrap();
//! ```

use crate::*;

/// Appends instructions to a kernel, region by region.
pub struct KernelBuilder {
    kernel: Kernel,
    /// Regions being filled, innermost last; the kernel body is the first.
    open: Vec<Region>,
    /// The source position the next instructions come from.
    loc: Option<Loc>,
}

impl KernelBuilder {
    pub fn new(name: impl Into<String>, max_workgroup_size: u32) -> KernelBuilder {
        KernelBuilder {
            kernel: Kernel::new(name, max_workgroup_size),
            open: vec![Region::default()],
            loc: None,
        }
    }

    /// The source file of the kernel ([`Kernel::source`]): the positions given to
    /// [`KernelBuilder::set_loc`] are in it.
    pub fn set_source(&mut self, file: impl Into<String>) {
        self.kernel.source = Some(file.into());
    }

    /// The source position of the instructions appended from now on; returns the previous
    /// one.
    pub fn set_loc(&mut self, loc: Option<Loc>) -> Option<Loc> {
        std::mem::replace(&mut self.loc, loc)
    }

    /// Declares the next kernel parameter.
    pub fn param(&mut self, name: &str, ty: Type) -> Value {
        let v = self.kernel.new_value(ty, Some(name.to_string()));
        self.kernel.params.push(v);
        v
    }

    /// Gives `v` a name in the text format.
    pub fn set_name(&mut self, v: Value, name: &str) {
        self.kernel.values[v.index()].name = Some(name.to_string());
    }

    pub fn ty(&self, v: Value) -> Type {
        self.kernel.ty(v)
    }

    /// The finished kernel. Unclosed regions (a closure that panicked) are dropped.
    pub fn finish(mut self) -> Kernel {
        self.kernel.body = self.open.swap_remove(0);
        self.kernel
    }

    /// Appends `op`, defining one value per result type; returns them.
    pub fn push(&mut self, op: Op) -> Vec<Value> {
        let types = op.result_types(|v| self.kernel.ty(v));
        let results = types
            .into_iter()
            .map(|t| self.kernel.new_value(t, None))
            .collect();
        let loc = self.loc;
        self.current().insts.push(Inst {
            op,
            results: Vec::clone(&results),
            loc,
        });
        results
    }

    /// Appends an op with exactly one result.
    pub fn value(&mut self, op: Op) -> Value {
        let name = op.name();
        let results = self.push(op);
        assert_eq!(
            results.len(),
            1,
            "`{name}` does not define exactly one value"
        );
        results[0]
    }

    fn current(&mut self) -> &mut Region {
        self.open.last_mut().expect("builder has an open region")
    }

    fn region_with_args(&mut self, arg_types: &[Type]) -> Vec<Value> {
        let args: Vec<Value> = arg_types
            .iter()
            .map(|t| self.kernel.new_value(*t, None))
            .collect();
        self.open.push(Region {
            args: args.clone(),
            insts: Vec::new(),
        });
        args
    }

    /// Closes the innermost region, ending it with `yield values` unless it already ends in a
    /// terminator.
    fn close_region(&mut self, values: Vec<Value>) -> Region {
        let ends = self
            .current()
            .insts
            .last()
            .is_some_and(|i| i.op.is_terminator());
        if !ends {
            self.push(Op::Yield { values });
        }
        self.open.pop().expect("an open region")
    }

    // ---- constants ----

    pub fn constant(&mut self, c: Constant) -> Value {
        self.value(Op::Const { value: c })
    }

    pub fn const_int(&mut self, ty: ScalarType, v: i64) -> Value {
        self.constant(Constant::int(ty, v))
    }

    pub fn const_u32(&mut self, v: u32) -> Value {
        self.const_int(ScalarType::U32, v as i64)
    }

    pub fn const_i32(&mut self, v: i32) -> Value {
        self.const_int(ScalarType::I32, v as i64)
    }

    pub fn const_u64(&mut self, v: u64) -> Value {
        self.const_int(ScalarType::U64, v as i64)
    }

    pub fn const_f32(&mut self, v: f32) -> Value {
        self.constant(Constant::float(ScalarType::F32, v as f64))
    }

    pub fn const_bool(&mut self, v: bool) -> Value {
        self.constant(Constant::bool(v))
    }

    // ---- arithmetic ----

    pub fn binary(&mut self, op: BinOp, lhs: Value, rhs: Value) -> Value {
        self.value(Op::Binary { op, lhs, rhs })
    }

    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Add, a, b)
    }

    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Sub, a, b)
    }

    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Mul, a, b)
    }

    pub fn div(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Div, a, b)
    }

    pub fn rem(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Rem, a, b)
    }

    pub fn min(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Min, a, b)
    }

    pub fn max(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Max, a, b)
    }

    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::And, a, b)
    }

    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Or, a, b)
    }

    pub fn xor(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Xor, a, b)
    }

    pub fn shl(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Shl, a, b)
    }

    pub fn shr(&mut self, a: Value, b: Value) -> Value {
        self.binary(BinOp::Shr, a, b)
    }

    pub fn unary(&mut self, op: UnOp, arg: Value) -> Value {
        self.value(Op::Unary { op, arg })
    }

    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.value(Op::Fma { a, b, c })
    }

    pub fn cmp(&mut self, pred: CmpPred, lhs: Value, rhs: Value) -> Value {
        self.value(Op::Cmp { pred, lhs, rhs })
    }

    pub fn select(&mut self, cond: Value, if_true: Value, if_false: Value) -> Value {
        self.value(Op::Select {
            cond,
            if_true,
            if_false,
        })
    }

    pub fn cast(&mut self, arg: Value, to: impl Into<Type>) -> Value {
        self.value(Op::Cast { arg, to: to.into() })
    }

    pub fn bitcast(&mut self, arg: Value, to: impl Into<Type>) -> Value {
        self.value(Op::Bitcast { arg, to: to.into() })
    }

    // ---- memory ----

    pub fn ptr_offset(&mut self, base: Value, index: Value, elem: impl Into<Type>) -> Value {
        self.value(Op::PtrOffset {
            base,
            index,
            elem: elem.into(),
        })
    }

    /// A naturally aligned load.
    pub fn load(&mut self, ptr: Value, ty: impl Into<Type>) -> Value {
        let ty = ty.into();
        let align = natural_align(ty);
        self.value(Op::Load { ptr, ty, align })
    }

    /// A naturally aligned store.
    pub fn store(&mut self, ptr: Value, value: Value) {
        let align = natural_align(self.ty(value));
        self.push(Op::Store { ptr, value, align });
    }

    pub fn atomic_load(
        &mut self,
        ptr: Value,
        ty: ScalarType,
        ordering: Ordering,
        scope: Scope,
    ) -> Value {
        self.value(Op::AtomicLoad {
            ptr,
            ty,
            ordering,
            scope,
        })
    }

    pub fn atomic_store(&mut self, ptr: Value, value: Value, ordering: Ordering, scope: Scope) {
        self.push(Op::AtomicStore {
            ptr,
            value,
            ordering,
            scope,
        });
    }

    pub fn atomic_rmw(
        &mut self,
        op: RmwOp,
        ptr: Value,
        value: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Value {
        self.value(Op::AtomicRmw {
            op,
            ptr,
            value,
            ordering,
            scope,
        })
    }

    pub fn atomic_cas(
        &mut self,
        ptr: Value,
        expected: Value,
        desired: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Value {
        self.value(Op::AtomicCas {
            ptr,
            expected,
            desired,
            ordering,
            scope,
        })
    }

    pub fn fence(&mut self, ordering: Ordering, scope: Scope) {
        self.push(Op::Fence { ordering, scope });
    }

    pub fn barrier(&mut self) {
        self.push(Op::Barrier);
    }

    pub fn subgroup_barrier(&mut self) {
        self.push(Op::SubgroupBarrier);
    }

    /// A timestamp in nanoseconds (`u64`).
    pub fn clock(&mut self) -> Value {
        self.value(Op::Clock)
    }

    /// Pauses for about `nanos` nanoseconds (a back-off hint while polling).
    pub fn sleep(&mut self, nanos: u32) {
        self.push(Op::Sleep { nanos });
    }

    pub fn shared_alloc(&mut self, name: &str, elem: impl Into<Type>, count: u32) -> Value {
        let v = self.value(Op::SharedAlloc {
            elem: elem.into(),
            count,
        });
        self.set_name(v, name);
        v
    }

    // ---- ids ----

    pub fn id(&mut self, kind: IdKind, dim: Dim) -> Value {
        self.value(Op::Id { kind, dim })
    }

    pub fn workitem_id(&mut self, dim: Dim) -> Value {
        self.id(IdKind::WorkitemId, dim)
    }

    pub fn workgroup_id(&mut self, dim: Dim) -> Value {
        self.id(IdKind::WorkgroupId, dim)
    }

    pub fn workgroup_size(&mut self, dim: Dim) -> Value {
        self.id(IdKind::WorkgroupSize, dim)
    }

    pub fn num_workgroups(&mut self, dim: Dim) -> Value {
        self.id(IdKind::NumWorkgroups, dim)
    }

    pub fn subgroup_size(&mut self) -> Value {
        self.id(IdKind::SubgroupSize, Dim::X)
    }

    pub fn subgroup_id(&mut self) -> Value {
        self.id(IdKind::SubgroupId, Dim::X)
    }

    pub fn subgroup_lane(&mut self) -> Value {
        self.id(IdKind::SubgroupLane, Dim::X)
    }

    // ---- tiles (collective over the subgroup) ----

    /// A `frag<acc>` of zeros.
    pub fn frag_zero(&mut self) -> Value {
        self.value(Op::FragZero {
            role: FragRole::Acc,
        })
    }

    /// A `frag<wacc>` of zeros.
    pub fn wide_zero(&mut self) -> Value {
        self.value(Op::FragZero {
            role: FragRole::WideAcc,
        })
    }

    /// Loads a row-major `bf16` tile (`stride` `u32` elements between rows) as a fragment.
    pub fn frag_load(&mut self, role: FragRole, ptr: Value, stride: Value) -> Value {
        self.value(Op::FragLoad { role, ptr, stride })
    }

    /// Stores a `frag<acc>` or `frag<wacc>` as a row-major `f32` tile.
    pub fn frag_store(&mut self, ptr: Value, value: Value, stride: Value) {
        self.push(Op::FragStore {
            ptr,
            value,
            stride,
            within: None,
            layout: TileLayout::Rows,
            elem: ScalarType::F32,
        });
    }

    /// Stores the part of an accumulator inside `rows x cols` (`u32`s).
    pub fn frag_store_within(
        &mut self,
        ptr: Value,
        value: Value,
        stride: Value,
        rows: Value,
        cols: Value,
    ) {
        self.push(Op::FragStore {
            ptr,
            value,
            stride,
            within: Some((rows, cols)),
            layout: TileLayout::Rows,
            elem: ScalarType::F32,
        });
    }

    /// `acc + a x b`.
    pub fn mma(&mut self, a: Value, b: Value, acc: Value) -> Value {
        self.value(Op::Mma { a, b, acc })
    }

    /// `acc + A x B` over a group of four subgroups, `A` and `B` swizzled tiles in shared
    /// memory in the default layout (see [`Op::MmaGroup`]).
    pub fn mma_group(&mut self, a: Value, b: Value, acc: Value) -> Value {
        self.value(Op::MmaGroup {
            a,
            b,
            acc,
            layout: MmaLayout::DEFAULT,
        })
    }

    /// `mma.group` left in flight (see [`Op::MmaGroupAsync`]), tiles in the default layout.
    pub fn mma_group_async(&mut self, a: Value, b: Value, acc: Value) -> Value {
        self.value(Op::MmaGroupAsync {
            a,
            b,
            acc,
            layout: MmaLayout::DEFAULT,
        })
    }

    /// Waits until at most `pending` `mma.group.async`s are in flight; returns `accs` to read
    /// after the wait (see [`Op::MmaWait`]).
    pub fn mma_wait(&mut self, pending: u32, accs: &[Value]) -> Vec<Value> {
        self.push(Op::MmaWait {
            pending,
            accs: accs.to_vec(),
        })
    }

    /// Moves the executing group's register budget to `count` (see [`Op::RegsSet`]).
    pub fn regs_set(&mut self, dir: RegsDir, count: u32) {
        self.push(Op::RegsSet { dir, count });
    }

    /// Starts a 16-byte copy from `src` (global) to `dst` (shared); zeros when `pred` is
    /// false.
    pub fn copy_async(&mut self, dst: Value, src: Value, pred: Value) {
        self.push(Op::CopyAsync { dst, src, pred });
    }

    pub fn async_commit(&mut self) {
        self.push(Op::AsyncCommit);
    }

    pub fn async_wait(&mut self, pending: u32) {
        self.push(Op::AsyncWait { pending });
    }

    /// `workgroup_id * workgroup_size + workitem_id` in dimension x, as `u32`.
    pub fn global_id_x(&mut self) -> Value {
        let wg = self.workgroup_id(Dim::X);
        let size = self.workgroup_size(Dim::X);
        let lane = self.workitem_id(Dim::X);
        let base = self.mul(wg, size);
        self.add(base, lane)
    }

    // ---- vectors ----

    pub fn splat(&mut self, value: Value, lanes: u32) -> Value {
        self.value(Op::Splat { value, lanes })
    }

    pub fn extract(&mut self, vector: Value, lane: u32) -> Value {
        self.value(Op::Extract { vector, lane })
    }

    pub fn insert(&mut self, vector: Value, lane: u32, value: Value) -> Value {
        self.value(Op::Insert {
            vector,
            lane,
            value,
        })
    }

    // ---- control flow ----

    /// `if cond { then } else { otherwise }`; each closure returns the values its region yields.
    pub fn if_else(
        &mut self,
        cond: Value,
        result_types: &[Type],
        then: impl FnOnce(&mut Self) -> Vec<Value>,
        otherwise: impl FnOnce(&mut Self) -> Vec<Value>,
    ) -> Vec<Value> {
        self.region_with_args(&[]);
        let yielded = then(self);
        let then_region = self.close_region(yielded);
        self.region_with_args(&[]);
        let yielded = otherwise(self);
        let else_region = self.close_region(yielded);
        self.push(Op::If {
            cond,
            then_region,
            else_region,
            result_types: result_types.to_vec(),
        })
    }

    /// `if cond { then }` with no results.
    pub fn if_then(&mut self, cond: Value, then: impl FnOnce(&mut Self)) {
        self.if_else(
            cond,
            &[],
            |b| {
                then(b);
                vec![]
            },
            |_| vec![],
        );
    }

    /// `for iv in (lb..ub).step_by(step)` carrying `inits`; `body` gets the induction variable
    /// and the carried values and returns the next carried values. Returns the final ones.
    pub fn for_range(
        &mut self,
        lb: Value,
        ub: Value,
        step: Value,
        inits: &[Value],
        body: impl FnOnce(&mut Self, Value, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let mut arg_types = vec![self.ty(lb)];
        arg_types.extend(inits.iter().map(|v| self.ty(*v)));
        let args = self.region_with_args(&arg_types);
        let next = body(self, args[0], &args[1..]);
        let region = self.close_region(next);
        self.push(Op::For {
            range: ForRange { lb, ub, step },
            inits: inits.to_vec(),
            body: region,
        })
    }

    /// An unbounded loop carrying `inits`; `body` gets the carried values and returns the
    /// next ones. Leave it with [`KernelBuilder::break_`] (typically inside an `if`).
    pub fn loop_(
        &mut self,
        inits: &[Value],
        result_types: &[Type],
        body: impl FnOnce(&mut Self, &[Value]) -> Vec<Value>,
    ) -> Vec<Value> {
        let arg_types: Vec<Type> = inits.iter().map(|v| self.ty(*v)).collect();
        let args = self.region_with_args(&arg_types);
        let next = body(self, &args);
        let region = self.close_region(next);
        self.push(Op::Loop {
            inits: inits.to_vec(),
            body: region,
            result_types: result_types.to_vec(),
        })
    }

    /// Leaves the innermost loop with `values`; ends the current region.
    pub fn break_(&mut self, values: &[Value]) {
        self.push(Op::Break {
            values: values.to_vec(),
        });
    }

    /// Ends the work-item; ends the current region.
    pub fn ret(&mut self) {
        self.push(Op::Return);
    }
}

/// The natural alignment of a memory access of type `ty`.
pub fn natural_align(ty: Type) -> u32 {
    ty.size_bytes().max(1)
}
