//! KOSMOS IR -> LLVM IR, written once for every target.
//!
//! The verifier has run before this, but the lowering still checks every operand it relies on
//! and refuses (with an error) what it cannot lower: LLVM aborts the process on invalid input.

mod tile;

pub(crate) use tile::{FragLayout, LaneTerm, Run};

use crate::target::{AtomicRmw, Target};
use inkwell::AtomicOrdering;
use inkwell::attributes::AttributeLoc;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::llvm_sys;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue,
    InstructionOpcode as Opc, InstructionValue, IntValue, PhiValue, PointerValue, ValueKind,
};
use inkwell::{FloatPredicate, IntPredicate};
use kosmos_ir::{
    AddrSpace, BinOp, CmpPred, Constant, Inst, Kernel, Op, Ordering, Region, RmwOp, ScalarType,
    Scope, Type, UnOp, Value, VerifiedKernel,
};

/// Why an instruction could not be lowered: a message (the caller adds the kernel and
/// position) or an error already located in a nested region.
#[derive(Debug)]
pub(crate) enum Fail {
    Msg(String),
    Located(Box<LowerError>),
}

impl From<BuilderError> for Fail {
    fn from(e: BuilderError) -> Fail {
        Fail::Msg(format!("LLVM builder: {e}"))
    }
}

impl From<String> for Fail {
    fn from(s: String) -> Fail {
        Fail::Msg(s)
    }
}

impl From<&str> for Fail {
    fn from(s: &str) -> Fail {
        Fail::Msg(s.to_string())
    }
}

impl Fail {
    fn message(self) -> String {
        match self {
            Fail::Msg(m) => m,
            Fail::Located(e) => e.message,
        }
    }
}

/// A lowering failure located in the IR.
#[derive(Debug)]
pub(crate) struct LowerError {
    pub kernel: String,
    pub pos: String,
    pub op: &'static str,
    pub message: String,
}

/// How a region ended.
enum Exit<'ctx> {
    /// `yield` from the builder's current block.
    Yield(Vec<BasicValueEnum<'ctx>>),
    /// `break` or `return`: control left the region.
    Left,
    /// The last instruction was not a terminator (only valid for the kernel body).
    FellOff,
}

/// The innermost `loop` a `break` leaves.
struct LoopExit<'ctx> {
    block: BasicBlock<'ctx>,
    types: Vec<BasicTypeEnum<'ctx>>,
    incoming: Vec<(Vec<BasicValueEnum<'ctx>>, BasicBlock<'ctx>)>,
}

/// The lowering state of one kernel.
pub(crate) struct Cx<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub builder: Builder<'ctx>,
    target: &'a dyn Target,
    kernel: &'a Kernel,
    function: FunctionValue<'ctx>,
    values: Vec<Option<BasicValueEnum<'ctx>>>,
    loops: Vec<LoopExit<'ctx>>,
    /// Walk index of the instruction being lowered, for messages on kernels built in Rust.
    next_index: usize,
}

/// Lowers every kernel of `kernels` into `module`.
pub(crate) fn lower_kernels<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    target: &dyn Target,
    kernels: &[VerifiedKernel],
) -> Result<(), LowerError> {
    for kernel in kernels {
        lower_kernel(ctx, module, target, kernel)?;
    }
    Ok(())
}

fn lower_kernel<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    target: &dyn Target,
    kernel: &Kernel,
) -> Result<(), LowerError> {
    let fail = |message: String| LowerError {
        kernel: kernel.name.clone(),
        pos: "signature".into(),
        op: "kernel",
        message,
    };
    if module.get_function(&kernel.name).is_some() {
        return Err(fail("a kernel of this name was already lowered".into()));
    }
    let mut params = Vec::new();
    for p in &kernel.params {
        let ty = kernel
            .values
            .get(p.index())
            .ok_or_else(|| fail(format!("parameter %{} is not in the value table", p.0)))?
            .ty;
        params.push(
            llvm_type(ctx, target, ty)
                .map_err(|e| fail(e.message()))?
                .into(),
        );
    }
    let fn_ty = ctx.void_type().fn_type(&params, false);
    let function = module.add_function(&kernel.name, fn_ty, None);
    let mut cx = Cx {
        ctx,
        module,
        builder: ctx.create_builder(),
        target,
        kernel,
        function,
        values: vec![None; kernel.values.len()],
        loops: Vec::new(),
        next_index: 0,
    };
    target.configure_kernel(&cx, function, kernel);
    for (i, p) in kernel.params.iter().enumerate() {
        let arg = function
            .get_nth_param(i as u32)
            .ok_or_else(|| fail("parameter count mismatch".into()))?;
        if let Some(name) = kernel.value_name(*p) {
            arg.set_name(name);
        }
        cx.values[p.index()] = Some(arg);
    }
    let entry = ctx.append_basic_block(function, "entry");
    cx.builder.position_at_end(entry);
    match cx.region(&kernel.body, &[])? {
        Exit::FellOff => {
            cx.builder
                .build_return(None)
                .map_err(|e| fail(e.to_string()))?;
            Ok(())
        }
        Exit::Left => Ok(()),
        Exit::Yield(_) => Err(fail("`yield` at the top level of the kernel body".into())),
    }
}

/// The LLVM type of an IR type. `i1` is `i1` in registers (memory accesses widen it).
pub(crate) fn llvm_type<'ctx>(
    ctx: &'ctx Context,
    target: &dyn Target,
    ty: Type,
) -> Result<BasicTypeEnum<'ctx>, Fail> {
    if !ty.is_well_formed() {
        return Err(Fail::Msg(format!("ill-formed type {ty}")));
    }
    Ok(match ty {
        Type::Scalar(s) => scalar_type(ctx, s),
        Type::Ptr(space) => ctx.ptr_type(target.addr_space(space)).into(),
        Type::Vector { elem, lanes } => match scalar_type(ctx, elem) {
            BasicTypeEnum::IntType(t) => t.vec_type(lanes).into(),
            BasicTypeEnum::FloatType(t) => t.vec_type(lanes).into(),
            _ => return Err(Fail::Msg(format!("bad vector element {elem}"))),
        },
        Type::Frag(role) => tile::frag_type(ctx, target, role),
    })
}

fn scalar_type(ctx: &Context, s: ScalarType) -> BasicTypeEnum<'_> {
    use ScalarType::*;
    match s {
        I1 => ctx.bool_type().into(),
        I8 | U8 => ctx.i8_type().into(),
        I16 | U16 => ctx.i16_type().into(),
        I32 | U32 => ctx.i32_type().into(),
        I64 | U64 => ctx.i64_type().into(),
        F16 => ctx.f16_type().into(),
        BF16 => ctx.bf16_type().into(),
        F32 => ctx.f32_type().into(),
        F64 => ctx.f64_type().into(),
    }
}

fn llvm_ordering(o: Ordering) -> AtomicOrdering {
    match o {
        Ordering::Relaxed => AtomicOrdering::Monotonic,
        Ordering::Acquire => AtomicOrdering::Acquire,
        Ordering::Release => AtomicOrdering::Release,
        Ordering::AcqRel => AtomicOrdering::AcquireRelease,
        Ordering::SeqCst => AtomicOrdering::SequentiallyConsistent,
    }
}

fn is_power_of_two_align(align: u32) -> bool {
    align.is_power_of_two() && align <= 1 << 16
}

impl<'a, 'ctx> Cx<'a, 'ctx> {
    // ---- helpers used by targets ----

    pub fn add_fn_attr(&self, function: FunctionValue<'_>, key: &str, value: &str) {
        let attr = self.ctx.create_string_attribute(key, value);
        function.add_attribute(AttributeLoc::Function, attr);
    }

    pub fn llvm_scalar(&self, s: ScalarType) -> BasicTypeEnum<'ctx> {
        scalar_type(self.ctx, s)
    }

    pub fn call_intrinsic(
        &self,
        name: &str,
        overloads: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let call = self.call(name, overloads, args)?;
        self.call_result(call)
    }

    pub fn call_int_intrinsic(&self, name: &str) -> Result<IntValue<'ctx>, Fail> {
        let v = self.call_intrinsic(name, &[], &[])?;
        self.expect_int(v)
    }

    pub fn call_void_intrinsic(
        &self,
        name: &str,
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<(), Fail> {
        self.call(name, &[], args).map(|_| ())
    }

    fn call(
        &self,
        name: &str,
        overloads: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<CallSiteValue<'ctx>, Fail> {
        let intrinsic = Intrinsic::find(name)
            .ok_or_else(|| Fail::Msg(format!("LLVM has no intrinsic {name}")))?;
        let decl = intrinsic
            .get_declaration(self.module, overloads)
            .ok_or_else(|| Fail::Msg(format!("cannot declare {name} for {overloads:?}")))?;
        Ok(self.builder.build_call(decl, args, "")?)
    }

    pub fn call_result(&self, call: CallSiteValue<'ctx>) -> Result<BasicValueEnum<'ctx>, Fail> {
        match call.try_as_basic_value() {
            ValueKind::Basic(v) => Ok(v),
            ValueKind::Instruction(_) => Err("call returns no value".into()),
        }
    }

    pub fn expect_int(&self, v: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>, Fail> {
        match v {
            BasicValueEnum::IntValue(i) => Ok(i),
            other => Err(Fail::Msg(format!(
                "expected an integer, got {}",
                other.get_type()
            ))),
        }
    }

    pub fn expect_ptr(&self, v: BasicValueEnum<'ctx>) -> Result<PointerValue<'ctx>, Fail> {
        match v {
            BasicValueEnum::PointerValue(p) => Ok(p),
            other => Err(Fail::Msg(format!(
                "expected a pointer, got {}",
                other.get_type()
            ))),
        }
    }

    /// Gives an atomic instruction its scope (inkwell has no API for it).
    fn set_scope(&self, inst: impl AsValueRef, scope: Scope) {
        let name = self.target.sync_scope(scope);
        // SAFETY: `inst` is an atomic instruction of this context; the name outlives the call.
        unsafe {
            let id = llvm_sys::core::LLVMGetSyncScopeID(
                self.ctx.raw(),
                name.as_ptr().cast(),
                name.len(),
            );
            llvm_sys::core::LLVMSetAtomicSyncScopeID(inst.as_value_ref(), id);
        }
    }

    pub fn fence(&self, ordering: Ordering, scope: Scope) -> Result<(), Fail> {
        if ordering == Ordering::Relaxed {
            return Err("a fence cannot be relaxed".into());
        }
        let fence = self
            .builder
            .build_fence(llvm_ordering(ordering), false, "")?;
        self.set_scope(fence, scope);
        Ok(())
    }

    /// `atomicrmw` with ordering and scope.
    pub fn llvm_atomic_rmw(&self, rmw: AtomicRmw<'ctx>) -> Result<BasicValueEnum<'ctx>, Fail> {
        use llvm_sys::LLVMAtomicRMWBinOp as L;
        let ty = rmw.ty;
        let op = match (rmw.op, ty.is_float()) {
            (RmwOp::Add, false) => L::LLVMAtomicRMWBinOpAdd,
            (RmwOp::Add, true) => L::LLVMAtomicRMWBinOpFAdd,
            (RmwOp::Min, false) if ty.is_signed_int() => L::LLVMAtomicRMWBinOpMin,
            (RmwOp::Min, false) => L::LLVMAtomicRMWBinOpUMin,
            (RmwOp::Max, false) if ty.is_signed_int() => L::LLVMAtomicRMWBinOpMax,
            (RmwOp::Max, false) => L::LLVMAtomicRMWBinOpUMax,
            (RmwOp::Xchg, _) => L::LLVMAtomicRMWBinOpXchg,
            (RmwOp::And, false) => L::LLVMAtomicRMWBinOpAnd,
            (RmwOp::Or, false) => L::LLVMAtomicRMWBinOpOr,
            (op, true) => return Err(Fail::Msg(format!("atomic.rmw {op} on {ty}"))),
        };
        // SAFETY: the builder is positioned, the operands are values of this context with the
        // pointer/value types LLVM requires (checked by the caller).
        let inst = unsafe {
            llvm_sys::core::LLVMBuildAtomicRMW(
                self.builder.as_mut_ptr(),
                op,
                rmw.ptr.as_value_ref(),
                rmw.value.as_value_ref(),
                llvm_ordering(rmw.ordering).into(),
                0,
            )
        };
        // SAFETY: LLVMBuildAtomicRMW returns a valid instruction with the operand's type.
        let value = unsafe { BasicValueEnum::new(inst) };
        self.set_scope(value, rmw.scope);
        Ok(value)
    }

    // ---- values ----

    fn get(&self, v: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        self.values
            .get(v.index())
            .copied()
            .flatten()
            .ok_or_else(|| Fail::Msg(format!("value %{} used before its definition", v.0)))
    }

    fn ty(&self, v: Value) -> Result<Type, Fail> {
        self.kernel
            .values
            .get(v.index())
            .map(|d| d.ty)
            .ok_or_else(|| Fail::Msg(format!("value %{} is not in the value table", v.0)))
    }

    fn get_int(&self, v: Value) -> Result<IntValue<'ctx>, Fail> {
        self.expect_int(self.get(v)?)
    }

    fn get_ptr(&self, v: Value) -> Result<(PointerValue<'ctx>, AddrSpace), Fail> {
        match self.ty(v)? {
            Type::Ptr(space) => Ok((self.expect_ptr(self.get(v)?)?, space)),
            other => Err(Fail::Msg(format!("expected a pointer, got {other}"))),
        }
    }

    fn get_bool(&self, v: Value) -> Result<IntValue<'ctx>, Fail> {
        if self.ty(v)? != Type::I1 {
            return Err(Fail::Msg(format!(
                "condition has type {}, not i1",
                self.ty(v)?
            )));
        }
        self.get_int(v)
    }

    fn llvm_type(&self, ty: Type) -> Result<BasicTypeEnum<'ctx>, Fail> {
        llvm_type(self.ctx, self.target, ty)
    }

    fn define(&mut self, inst: &Inst, values: Vec<BasicValueEnum<'ctx>>) -> Result<(), Fail> {
        if inst.results.len() != values.len() {
            return Err(Fail::Msg(format!(
                "defines {} values, the op gives {}",
                inst.results.len(),
                values.len()
            )));
        }
        for (r, v) in inst.results.iter().zip(values) {
            let want = self.llvm_type(self.ty(*r)?)?;
            if v.get_type() != want {
                return Err(Fail::Msg(format!(
                    "result %{} is declared {} but the op gives {}",
                    r.0,
                    self.ty(*r)?,
                    v.get_type()
                )));
            }
            let slot = self
                .values
                .get_mut(r.index())
                .ok_or_else(|| Fail::Msg(format!("result %{} is not in the value table", r.0)))?;
            if slot.is_some() {
                return Err(Fail::Msg(format!("value %{} is defined twice", r.0)));
            }
            // Constants (a global, or a constant expression over one) keep their names.
            if let Some(name) = self.kernel.value_name(*r)
                && !v.is_const()
            {
                v.set_name(name);
            }
            *slot = Some(v);
        }
        Ok(())
    }

    /// Values (a yield's or a break's) checked against the types their receivers expect.
    fn get_typed(
        &self,
        values: &[Value],
        types: &[BasicTypeEnum<'ctx>],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        if values.len() != types.len() {
            return Err(Fail::Msg(format!(
                "{} values where {} are expected",
                values.len(),
                types.len()
            )));
        }
        values
            .iter()
            .zip(types)
            .map(|(v, t)| {
                let v = self.get(*v)?;
                if v.get_type() == *t {
                    Ok(v)
                } else {
                    Err(Fail::Msg(format!(
                        "value of type {} where {t} is expected",
                        v.get_type()
                    )))
                }
            })
            .collect()
    }

    // ---- regions and control flow ----

    fn region(
        &mut self,
        region: &Region,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Exit<'ctx>, LowerError> {
        for (a, v) in region.args.iter().zip(args) {
            if let Some(slot) = self.values.get_mut(a.index()) {
                *slot = Some(*v);
            }
        }
        if region.args.len() != args.len()
            || region.args.iter().any(|a| a.index() >= self.values.len())
        {
            return Err(self.error_at(
                None,
                "region",
                "region arguments do not match its op".into(),
            ));
        }
        for (i, inst) in region.insts.iter().enumerate() {
            let index = self.next_index;
            self.next_index += 1;
            let exit = self.inst(inst).map_err(|f| match f {
                Fail::Msg(m) => self.error_at(Some((inst, index)), inst.op.name(), m),
                Fail::Located(e) => *e,
            })?;
            if let Some(exit) = exit {
                if i + 1 != region.insts.len() {
                    return Err(self.error_at(
                        Some((inst, index)),
                        inst.op.name(),
                        "instructions follow this terminator".into(),
                    ));
                }
                return Ok(exit);
            }
        }
        Ok(Exit::FellOff)
    }

    fn error_at(
        &self,
        inst: Option<(&Inst, usize)>,
        op: &'static str,
        message: String,
    ) -> LowerError {
        let pos = match inst {
            Some((inst, index)) => Kernel::inst_pos(inst, index).to_string(),
            None => format!("inst #{}", self.next_index),
        };
        LowerError {
            kernel: self.kernel.name.clone(),
            pos,
            op,
            message,
        }
    }

    /// A nested region that must end in a terminator.
    fn nested(
        &mut self,
        region: &Region,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Exit<'ctx>, Fail> {
        match self.region(region, args) {
            Ok(Exit::FellOff) => Err("region does not end in a terminator".into()),
            Ok(exit) => Ok(exit),
            // Inner errors carry their own position: pass them through unchanged.
            Err(e) => Err(Fail::Located(Box::new(e))),
        }
    }

    fn block(&self, name: &str) -> BasicBlock<'ctx> {
        self.ctx.append_basic_block(self.function, name)
    }

    fn current_block(&self) -> Result<BasicBlock<'ctx>, Fail> {
        self.builder
            .get_insert_block()
            .ok_or_else(|| "builder is not positioned".into())
    }

    /// Phis at the start of the current block, one per type, with their incoming values.
    fn phis(
        &self,
        types: &[BasicTypeEnum<'ctx>],
        incoming: &[(Vec<BasicValueEnum<'ctx>>, BasicBlock<'ctx>)],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        Ok(self
            .phi_nodes(types, incoming)?
            .iter()
            .map(|p| p.as_basic_value())
            .collect())
    }

    fn phi_nodes(
        &self,
        types: &[BasicTypeEnum<'ctx>],
        incoming: &[(Vec<BasicValueEnum<'ctx>>, BasicBlock<'ctx>)],
    ) -> Result<Vec<PhiValue<'ctx>>, Fail> {
        let mut out = Vec::new();
        for (i, ty) in types.iter().enumerate() {
            let phi = self.builder.build_phi(*ty, "")?;
            for (values, block) in incoming {
                phi.add_incoming(&[(&values[i] as &dyn BasicValue, *block)]);
            }
            out.push(phi);
        }
        Ok(out)
    }

    pub fn int_type(&self, bits: u32) -> Result<IntType<'ctx>, Fail> {
        Ok(match bits {
            8 => self.ctx.i8_type(),
            16 => self.ctx.i16_type(),
            32 => self.ctx.i32_type(),
            64 => self.ctx.i64_type(),
            _ => return Err(Fail::Msg(format!("no {bits}-bit integer type"))),
        })
    }

    fn lower_if(
        &mut self,
        cond: Value,
        then_region: &Region,
        else_region: &Region,
        result_types: &[Type],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let cond = self.get_bool(cond)?;
        let types = result_types
            .iter()
            .map(|t| self.llvm_type(*t))
            .collect::<Result<Vec<_>, _>>()?;
        let then_bb = self.block("then");
        let else_bb = self.block("else");
        let merge = self.block("endif");
        self.builder
            .build_conditional_branch(cond, then_bb, else_bb)?;
        let mut incoming = Vec::new();
        for (bb, region) in [(then_bb, then_region), (else_bb, else_region)] {
            self.builder.position_at_end(bb);
            match self.nested(region, &[])? {
                Exit::Yield(values) => {
                    let values = self.check_types(values, &types)?;
                    incoming.push((values, self.current_block()?));
                    self.builder.build_unconditional_branch(merge)?;
                }
                Exit::Left => {}
                Exit::FellOff => unreachable_exit()?,
            }
        }
        self.builder.position_at_end(merge);
        self.phis(&types, &incoming)
    }

    fn check_types(
        &self,
        values: Vec<BasicValueEnum<'ctx>>,
        types: &[BasicTypeEnum<'ctx>],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        if values.len() != types.len() || values.iter().zip(types).any(|(v, t)| v.get_type() != *t)
        {
            return Err("yielded values do not match the op's result types".into());
        }
        Ok(values)
    }

    fn lower_for(
        &mut self,
        lb: Value,
        ub: Value,
        step: Value,
        inits: &[Value],
        body: &Region,
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let iv_ty = self.ty(lb)?;
        let signed = match iv_ty {
            Type::Scalar(s) if s.is_int() && !s.is_bool() => s.is_signed_int(),
            other => return Err(Fail::Msg(format!("induction variable of type {other}"))),
        };
        if self.ty(ub)? != iv_ty || self.ty(step)? != iv_ty {
            return Err("lb, ub and step must share one integer type".into());
        }
        let (lb, ub, step) = (self.get_int(lb)?, self.get_int(ub)?, self.get_int(step)?);
        let init_vals = inits
            .iter()
            .map(|v| self.get(*v))
            .collect::<Result<Vec<_>, _>>()?;
        let types: Vec<BasicTypeEnum> = init_vals.iter().map(|v| v.get_type()).collect();

        let pre = self.current_block()?;
        let header = self.block("for.header");
        let body_bb = self.block("for.body");
        let exit = self.block("for.exit");
        self.builder.build_unconditional_branch(header)?;

        self.builder.position_at_end(header);
        let iv = self.builder.build_phi(lb.get_type(), "iv")?;
        iv.add_incoming(&[(&lb, pre)]);
        let carried_phis = self.phi_nodes(&types, &[(init_vals, pre)])?;
        let carried: Vec<BasicValueEnum> =
            carried_phis.iter().map(|p| p.as_basic_value()).collect();
        let iv_val = iv.as_basic_value().into_int_value();
        let pred = if signed {
            IntPredicate::SLT
        } else {
            IntPredicate::ULT
        };
        let go = self.builder.build_int_compare(pred, iv_val, ub, "")?;
        self.builder.build_conditional_branch(go, body_bb, exit)?;
        let mut exit_incoming = vec![(carried.clone(), header)];

        self.builder.position_at_end(body_bb);
        let mut args = vec![iv.as_basic_value()];
        args.extend(&carried);
        match self.nested(body, &args)? {
            Exit::Yield(next) => {
                let next = self.check_types(next, &types)?;
                let latch = self.current_block()?;
                // Continue while iv + step < ub, tested without overflow: step < ub - iv
                // (ub - iv is positive here, as an unsigned number even for signed types).
                let remaining = self.builder.build_int_sub(ub, iv_val, "")?;
                let more =
                    self.builder
                        .build_int_compare(IntPredicate::ULT, step, remaining, "")?;
                let iv_next = self.builder.build_int_add(iv_val, step, "iv.next")?;
                self.builder.build_conditional_branch(more, header, exit)?;
                iv.add_incoming(&[(&iv_next, latch)]);
                for (phi, v) in carried_phis.iter().zip(&next) {
                    phi.add_incoming(&[(v as &dyn BasicValue, latch)]);
                }
                exit_incoming.push((next, latch));
            }
            Exit::Left => {}
            Exit::FellOff => unreachable_exit()?,
        }
        self.builder.position_at_end(exit);
        self.phis(&types, &exit_incoming)
    }

    fn lower_loop(
        &mut self,
        inits: &[Value],
        body: &Region,
        result_types: &[Type],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let init_vals = inits
            .iter()
            .map(|v| self.get(*v))
            .collect::<Result<Vec<_>, _>>()?;
        let types: Vec<BasicTypeEnum> = init_vals.iter().map(|v| v.get_type()).collect();
        let result_types = result_types
            .iter()
            .map(|t| self.llvm_type(*t))
            .collect::<Result<Vec<_>, _>>()?;
        let pre = self.current_block()?;
        let header = self.block("loop");
        let exit = self.block("loop.exit");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let carried_phis = self.phi_nodes(&types, &[(init_vals, pre)])?;
        let carried: Vec<BasicValueEnum> =
            carried_phis.iter().map(|p| p.as_basic_value()).collect();
        self.loops.push(LoopExit {
            block: exit,
            types: result_types.clone(),
            incoming: Vec::new(),
        });
        let body_exit = self.nested(body, &carried);
        let lp = self.loops.pop().ok_or("loop stack underflow")?;
        match body_exit? {
            Exit::Yield(next) => {
                let next = self.check_types(next, &types)?;
                let latch = self.current_block()?;
                self.builder.build_unconditional_branch(header)?;
                for (phi, v) in carried_phis.iter().zip(&next) {
                    phi.add_incoming(&[(v as &dyn BasicValue, latch)]);
                }
            }
            Exit::Left => {}
            Exit::FellOff => unreachable_exit()?,
        }
        self.builder.position_at_end(exit);
        self.phis(&result_types, &lp.incoming)
    }

    // ---- instructions ----

    /// Lowers one instruction; returns how its region ends when it is a terminator.
    fn inst(&mut self, inst: &Inst) -> Result<Option<Exit<'ctx>>, Fail> {
        let results: Vec<BasicValueEnum<'ctx>> = match &inst.op {
            Op::Const { value: c } => vec![self.constant(*c)?],
            Op::Binary { op, lhs, rhs } => vec![self.binary(*op, *lhs, *rhs)?],
            Op::Unary { op, arg } => vec![self.unary(*op, *arg)?],
            Op::Fma { a, b, c } => {
                let ty = self.ty(*a)?;
                if !ty.elem().is_some_and(|e| e.is_float())
                    || self.ty(*b)? != ty
                    || self.ty(*c)? != ty
                {
                    return Err(Fail::Msg(format!(
                        "fma needs three floats of one type, got {ty}"
                    )));
                }
                let lt = self.llvm_type(ty)?;
                let args = [
                    self.get(*a)?.into(),
                    self.get(*b)?.into(),
                    self.get(*c)?.into(),
                ];
                vec![self.call_intrinsic("llvm.fma", &[lt], &args)?]
            }
            Op::Cmp { pred, lhs, rhs } => vec![self.compare(*pred, *lhs, *rhs)?],
            Op::Select {
                cond,
                if_true,
                if_false,
            } => {
                if self.ty(*if_true)? != self.ty(*if_false)? {
                    return Err("select operands differ in type".into());
                }
                let cond = self.get_bool(*cond)?;
                let (t, f) = (self.get(*if_true)?, self.get(*if_false)?);
                vec![self.builder.build_select(cond, t, f, "")?]
            }
            Op::Cast { arg, to } => vec![self.cast(*arg, *to)?],
            Op::Bitcast { arg, to } => vec![self.bitcast(*arg, *to)?],
            Op::PtrOffset { base, index, elem } => vec![self.ptr_offset(*base, *index, *elem)?],
            Op::Load { ptr, ty, align } => vec![self.load(*ptr, *ty, *align)?],
            Op::Store { ptr, value, align } => {
                self.store(*ptr, *value, *align)?;
                vec![]
            }
            Op::AtomicLoad {
                ptr,
                ty,
                ordering,
                scope,
            } => vec![self.atomic_load(*ptr, *ty, *ordering, *scope)?],
            Op::AtomicStore {
                ptr,
                value,
                ordering,
                scope,
            } => {
                self.atomic_store(*ptr, *value, *ordering, *scope)?;
                vec![]
            }
            Op::AtomicRmw {
                op,
                ptr,
                value,
                ordering,
                scope,
            } => vec![self.atomic_rmw(*op, *ptr, *value, *ordering, *scope)?],
            Op::AtomicCas {
                ptr,
                expected,
                desired,
                ordering,
                scope,
            } => vec![self.atomic_cas(*ptr, *expected, *desired, *ordering, *scope)?],
            Op::Fence { ordering, scope } => {
                self.fence(*ordering, *scope)?;
                vec![]
            }
            Op::Barrier => {
                self.target.emit_barrier(self)?;
                vec![]
            }
            Op::Clock => vec![self.target.emit_clock(self)?.into()],
            Op::Sleep { nanos } => {
                self.target.emit_sleep(self, *nanos)?;
                vec![]
            }
            Op::Id { kind, dim } => vec![self.target.emit_id(self, *kind, *dim)?.into()],
            Op::SharedAlloc { elem, count } => vec![self.shared_alloc(inst, *elem, *count)?],
            Op::FragZero { role } => vec![self.frag_zero(*role)?],
            Op::FragLoad { role, ptr, stride } => vec![self.frag_load(*role, *ptr, *stride)?],
            Op::FragStore {
                ptr,
                value,
                stride,
                within,
            } => {
                self.frag_store(*ptr, *value, *stride, *within)?;
                vec![]
            }
            Op::Mma { a, b, acc } => vec![self.mma(*a, *b, *acc)?],
            Op::MmaGroup { a, b, acc } => vec![self.mma_group(*a, *b, *acc)?],
            Op::CopyAsync { dst, src, pred } => {
                self.copy_async(*dst, *src, *pred)?;
                vec![]
            }
            Op::AsyncCommit => {
                self.target.emit_async_commit(self)?;
                vec![]
            }
            Op::AsyncWait { pending } => {
                self.target.emit_async_wait(self, *pending)?;
                vec![]
            }
            Op::Splat { value, lanes } => vec![self.splat(*value, *lanes)?],
            Op::Extract { vector, lane } => {
                let v = self.vector(*vector, *lane)?;
                let idx = self.ctx.i32_type().const_int(*lane as u64, false);
                vec![self.builder.build_extract_element(v, idx, "")?]
            }
            Op::Insert {
                vector,
                lane,
                value,
            } => {
                let v = self.vector(*vector, *lane)?;
                if Some(self.ty(*value)?) != self.ty(*vector)?.elem().map(Type::Scalar) {
                    return Err("inserted value does not match the vector's lanes".into());
                }
                let idx = self.ctx.i32_type().const_int(*lane as u64, false);
                let x = self.get(*value)?;
                vec![self.builder.build_insert_element(v, x, idx, "")?.into()]
            }
            Op::If {
                cond,
                then_region,
                else_region,
                result_types,
            } => self.lower_if(*cond, then_region, else_region, result_types)?,
            Op::For {
                lb,
                ub,
                step,
                inits,
                body,
            } => self.lower_for(*lb, *ub, *step, inits, body)?,
            Op::Loop {
                inits,
                body,
                result_types,
            } => self.lower_loop(inits, body, result_types)?,
            Op::Yield { values } => {
                let values = values
                    .iter()
                    .map(|v| self.get(*v))
                    .collect::<Result<_, _>>()?;
                return Ok(Some(Exit::Yield(values)));
            }
            Op::Break { values } => {
                let lp = self.loops.last().ok_or("`break` outside a loop")?;
                let (block, types) = (lp.block, lp.types.clone());
                let values = self.get_typed(values, &types)?;
                let from = self.current_block()?;
                self.builder.build_unconditional_branch(block)?;
                self.loops
                    .last_mut()
                    .ok_or("`break` outside a loop")?
                    .incoming
                    .push((values, from));
                return Ok(Some(Exit::Left));
            }
            Op::Return => {
                self.builder.build_return(None)?;
                return Ok(Some(Exit::Left));
            }
        };
        self.define(inst, results)?;
        Ok(None)
    }

    fn constant(&self, c: Constant) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.llvm_scalar(c.ty);
        Ok(match ty {
            BasicTypeEnum::IntType(t) => t.const_int(c.bits, false).into(),
            // Bit-exact floats (NaN payloads included): an integer of the width, bitcast.
            BasicTypeEnum::FloatType(_) => {
                let bits = self.int_type(c.ty.bits())?.const_int(c.bits, false);
                self.builder.build_bit_cast(bits, ty, "")?
            }
            _ => return Err("bad constant type".into()),
        })
    }

    fn binary(&self, op: BinOp, lhs: Value, rhs: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(lhs)?;
        if self.ty(rhs)? != ty {
            return Err(Fail::Msg(format!(
                "operands of {op} differ: {ty} and {}",
                self.ty(rhs)?
            )));
        }
        let elem = ty
            .elem()
            .ok_or_else(|| Fail::Msg(format!("{op} on {ty}")))?;
        let (a, b) = (self.get(lhs)?, self.get(rhs)?);
        let lt = self.llvm_type(ty)?;
        let bld = &self.builder;
        if elem.is_float() {
            let opc = match op {
                BinOp::Add => Opc::FAdd,
                BinOp::Sub => Opc::FSub,
                BinOp::Mul => Opc::FMul,
                BinOp::Div => Opc::FDiv,
                // minnum/maxnum: a NaN operand yields the other operand.
                BinOp::Min => {
                    return self.call_intrinsic("llvm.minnum", &[lt], &[a.into(), b.into()]);
                }
                BinOp::Max => {
                    return self.call_intrinsic("llvm.maxnum", &[lt], &[a.into(), b.into()]);
                }
                _ => return Err(Fail::Msg(format!("{op} on float type {ty}"))),
            };
            return Ok(bld.build_binop(opc, a, b, "")?);
        }
        let signed = elem.is_signed_int();
        let opc = match op {
            BinOp::Add => Opc::Add,
            BinOp::Sub => Opc::Sub,
            BinOp::Mul => Opc::Mul,
            // Division by zero: the CPU device reports it; on GPUs it is undefined.
            BinOp::Div if signed => Opc::SDiv,
            BinOp::Div => Opc::UDiv,
            BinOp::Rem if signed => Opc::SRem,
            BinOp::Rem => Opc::URem,
            BinOp::Min | BinOp::Max => {
                let name = match (op == BinOp::Min, signed) {
                    (true, true) => "llvm.smin",
                    (true, false) => "llvm.umin",
                    (false, true) => "llvm.smax",
                    (false, false) => "llvm.umax",
                };
                return self.call_intrinsic(name, &[lt], &[a.into(), b.into()]);
            }
            BinOp::And => Opc::And,
            BinOp::Or => Opc::Or,
            BinOp::Xor => Opc::Xor,
            BinOp::Shl | BinOp::Shr => {
                // The amount is taken modulo the width (LLVM: poison beyond it).
                let mask = self.int_splat(ty, (elem.bits() - 1) as u64)?;
                let amount = bld.build_binop(Opc::And, b, mask, "")?;
                let opc = match (op, signed) {
                    (BinOp::Shl, _) => Opc::Shl,
                    (_, true) => Opc::AShr,
                    (_, false) => Opc::LShr,
                };
                return Ok(bld.build_binop(opc, a, amount, "")?);
            }
        };
        Ok(bld.build_binop(opc, a, b, "")?)
    }

    /// An integer constant of type `ty` (scalar or vector, every lane `value`).
    fn int_splat(&self, ty: Type, value: u64) -> Result<BasicValueEnum<'ctx>, Fail> {
        let elem = ty.elem().ok_or("not a number type")?;
        let c = self
            .llvm_scalar(elem)
            .into_int_type()
            .const_int(value, false);
        match ty {
            Type::Vector { lanes, .. } => {
                let lanes = vec![c; lanes as usize];
                Ok(inkwell::types::VectorType::const_vector(&lanes).into())
            }
            _ => Ok(c.into()),
        }
    }

    fn unary(&self, op: UnOp, arg: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(arg)?;
        let elem = ty
            .elem()
            .ok_or_else(|| Fail::Msg(format!("{op} on {ty}")))?;
        let a = self.get(arg)?;
        let lt = self.llvm_type(ty)?;
        let bld = &self.builder;
        let float_fn = |name: &str| {
            if !elem.is_float() {
                return Err(Fail::Msg(format!("{op} on integer type {ty}")));
            }
            if elem.bits() > 16 {
                return self.float_unary_call(name, a);
            }
            // f16/bf16 through f32: NVPTX has no half log2 (LLVM aborts looking for a
            // libcall), and sqrt rounded twice (f32, then half) is still correctly rounded.
            let wide_ty = self.llvm_type(with_elem(ty, ScalarType::F32))?;
            let wide = bld.build_cast(Opc::FPExt, a, wide_ty, "")?;
            let r = self.float_unary_call(name, wide)?;
            Ok(bld.build_cast(Opc::FPTrunc, r, lt, "")?)
        };
        match op {
            UnOp::Neg if elem.is_float() => match a {
                BasicValueEnum::FloatValue(f) => Ok(bld.build_float_neg(f, "")?.into()),
                BasicValueEnum::VectorValue(v) => Ok(bld.build_float_neg(v, "")?.into()),
                _ => Err("neg of a non-float value".into()),
            },
            UnOp::Neg => {
                let zero = self.int_splat(ty, 0)?;
                Ok(bld.build_binop(Opc::Sub, zero, a, "")?)
            }
            UnOp::Not if elem.is_int() => {
                let ones = self.int_splat(ty, u64::MAX)?;
                Ok(bld.build_binop(Opc::Xor, a, ones, "")?)
            }
            UnOp::Not => Err(Fail::Msg(format!("not on float type {ty}"))),
            UnOp::Abs if elem.is_float() => self.call_intrinsic("llvm.fabs", &[lt], &[a.into()]),
            UnOp::Abs if elem.is_signed_int() => {
                let poison_on_min = self.ctx.bool_type().const_zero();
                self.call_intrinsic("llvm.abs", &[lt], &[a.into(), poison_on_min.into()])
            }
            UnOp::Abs => Ok(a),
            UnOp::Sqrt => float_fn("llvm.sqrt"),
            UnOp::Exp2 | UnOp::Log2 => {
                // Neither target has an f64 exp2/log2 instruction; LLVM would need a libm call.
                if elem == ScalarType::F64 {
                    return Err(Fail::Msg(format!(
                        "{op} on f64 is not supported on GPU targets"
                    )));
                }
                let name = match op {
                    UnOp::Exp2 => "llvm.exp2",
                    _ => self.target.log2_intrinsic(),
                };
                float_fn(name)
            }
        }
    }

    /// Calls a one-operand float intrinsic: overloaded ones (`llvm.*`) on the value's type,
    /// target ones (f32 only, e.g. `llvm.nvvm.lg2.approx.f`) lane by lane.
    fn float_unary_call(
        &self,
        name: &str,
        a: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let overloaded = !name.starts_with("llvm.nvvm.") && !name.starts_with("llvm.amdgcn.");
        if overloaded {
            return self.call_intrinsic(name, &[a.get_type()], &[a.into()]);
        }
        let BasicValueEnum::VectorValue(v) = a else {
            return self.call_intrinsic(name, &[], &[a.into()]);
        };
        let mut out = v.get_type().get_undef();
        for lane in 0..v.get_type().get_size() {
            let idx = self.ctx.i32_type().const_int(lane as u64, false);
            let x = self.builder.build_extract_element(v, idx, "")?;
            let r = self.call_intrinsic(name, &[], &[x.into()])?;
            out = self.builder.build_insert_element(out, r, idx, "")?;
        }
        Ok(out.into())
    }

    fn compare(&self, pred: CmpPred, lhs: Value, rhs: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(lhs)?;
        if self.ty(rhs)? != ty {
            return Err("compared values differ in type".into());
        }
        let s = ty
            .scalar()
            .ok_or_else(|| Fail::Msg(format!("cmp on {ty}")))?;
        let (a, b) = (self.get(lhs)?, self.get(rhs)?);
        if s.is_float() {
            // Ordered, except `ne`, which is true when either operand is NaN.
            let p = match pred {
                CmpPred::Eq => FloatPredicate::OEQ,
                CmpPred::Ne => FloatPredicate::UNE,
                CmpPred::Lt => FloatPredicate::OLT,
                CmpPred::Le => FloatPredicate::OLE,
                CmpPred::Gt => FloatPredicate::OGT,
                CmpPred::Ge => FloatPredicate::OGE,
            };
            return Ok(self
                .builder
                .build_float_compare(p, a.into_float_value(), b.into_float_value(), "")?
                .into());
        }
        let signed = s.is_signed_int();
        let p = match (pred, signed) {
            (CmpPred::Eq, _) => IntPredicate::EQ,
            (CmpPred::Ne, _) => IntPredicate::NE,
            (CmpPred::Lt, true) => IntPredicate::SLT,
            (CmpPred::Lt, false) => IntPredicate::ULT,
            (CmpPred::Le, true) => IntPredicate::SLE,
            (CmpPred::Le, false) => IntPredicate::ULE,
            (CmpPred::Gt, true) => IntPredicate::SGT,
            (CmpPred::Gt, false) => IntPredicate::UGT,
            (CmpPred::Ge, true) => IntPredicate::SGE,
            (CmpPred::Ge, false) => IntPredicate::UGE,
        };
        Ok(self
            .builder
            .build_int_compare(p, self.expect_int(a)?, self.expect_int(b)?, "")?
            .into())
    }

    fn cast(&self, arg: Value, to: Type) -> Result<BasicValueEnum<'ctx>, Fail> {
        let from = self.ty(arg)?;
        let (src, dst) = match (from, to) {
            (Type::Scalar(a), Type::Scalar(b)) => (a, b),
            (Type::Vector { elem: a, lanes: n }, Type::Vector { elem: b, lanes: m }) if n == m => {
                (a, b)
            }
            _ => return Err(Fail::Msg(format!("cast from {from} to {to}"))),
        };
        let a = self.get(arg)?;
        let lt = self.llvm_type(to)?;
        let bld = &self.builder;
        let v = match (src.is_float(), dst.is_float()) {
            (false, false) => {
                let opc = match src.bits().cmp(&dst.bits()) {
                    std::cmp::Ordering::Equal => return Ok(a),
                    std::cmp::Ordering::Greater => Opc::Trunc,
                    std::cmp::Ordering::Less if src.is_signed_int() => Opc::SExt,
                    std::cmp::Ordering::Less => Opc::ZExt,
                };
                bld.build_cast(opc, a, lt, "")?
            }
            (false, true) => {
                let opc = if src.is_signed_int() {
                    Opc::SIToFP
                } else {
                    Opc::UIToFP
                };
                bld.build_cast(opc, a, lt, "")?
            }
            (true, false) => {
                // Saturating, NaN -> 0, as the IR specifies.
                let name = if dst.is_signed_int() {
                    "llvm.fptosi.sat"
                } else {
                    "llvm.fptoui.sat"
                };
                self.call_intrinsic(name, &[lt, a.get_type()], &[a.into()])?
            }
            (true, true) => {
                if src == dst {
                    return Ok(a);
                }
                let half_pair = src.bits() == 16 && dst.bits() == 16;
                if half_pair {
                    // f16 <-> bf16: through f32, which holds either exactly: one rounding.
                    let f32t = self.llvm_type(with_elem(to, ScalarType::F32))?;
                    let wide = bld.build_cast(Opc::FPExt, a, f32t, "")?;
                    bld.build_cast(Opc::FPTrunc, wide, lt, "")?
                } else if src.bits() < dst.bits() {
                    bld.build_cast(Opc::FPExt, a, lt, "")?
                } else {
                    bld.build_cast(Opc::FPTrunc, a, lt, "")?
                }
            }
        };
        Ok(v)
    }

    fn bitcast(&self, arg: Value, to: Type) -> Result<BasicValueEnum<'ctx>, Fail> {
        let from = self.ty(arg)?;
        let bits = |t: Type| match t {
            Type::Scalar(s) => Some(s.bits()),
            Type::Vector { elem, lanes } if elem != ScalarType::I1 => Some(elem.bits() * lanes),
            _ => None,
        };
        match (bits(from), bits(to)) {
            (Some(a), Some(b)) if a == b => {}
            _ => return Err(Fail::Msg(format!("bitcast from {from} to {to}"))),
        }
        let lt = self.llvm_type(to)?;
        Ok(self.builder.build_bit_cast(self.get(arg)?, lt, "")?)
    }

    fn ptr_offset(
        &self,
        base: Value,
        index: Value,
        elem: Type,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (ptr, _) = self.get_ptr(base)?;
        let idx_ty = self
            .ty(index)?
            .scalar()
            .filter(|s| s.is_int())
            .ok_or("ptr.offset index must be an integer")?;
        if !elem.is_well_formed() {
            return Err(Fail::Msg(format!("ptr.offset over ill-formed type {elem}")));
        }
        let i64t = self.ctx.i64_type();
        let idx = self.get_int(index)?;
        let idx = if idx_ty.bits() == 64 {
            idx
        } else if idx_ty.is_signed_int() {
            self.builder.build_int_s_extend(idx, i64t, "")?
        } else {
            self.builder.build_int_z_extend(idx, i64t, "")?
        };
        // Byte offsets: the IR's element size (packed vectors) is not LLVM's alloc size.
        let size = i64t.const_int(elem.size_bytes() as u64, false);
        let bytes = self.builder.build_int_mul(idx, size, "")?;
        // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
        let p = unsafe {
            self.builder
                .build_gep(self.ctx.i8_type(), ptr, &[bytes], "")?
        };
        Ok(p.into())
    }

    /// The register type and its in-memory type (i1 is a byte, pointers are 64-bit integers).
    fn memory_type(&self, ty: Type) -> Result<BasicTypeEnum<'ctx>, Fail> {
        match ty {
            Type::Scalar(ScalarType::I1) => Ok(self.ctx.i8_type().into()),
            Type::Ptr(_) => Ok(self.ctx.i64_type().into()),
            other => self.llvm_type(other),
        }
    }

    fn check_align(&self, align: u32, ty: Type) -> Result<(), Fail> {
        if !is_power_of_two_align(align) {
            return Err(Fail::Msg(format!(
                "alignment {align} is not a power of two"
            )));
        }
        if align > ty.size_bytes().next_power_of_two().max(1) && align > 16 {
            return Err(Fail::Msg(format!(
                "alignment {align} exceeds what {ty} allows"
            )));
        }
        Ok(())
    }

    fn load(&self, ptr: Value, ty: Type, align: u32) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (p, _) = self.get_ptr(ptr)?;
        self.check_align(align, ty)?;
        let mt = self.memory_type(ty)?;
        let raw = self.builder.build_load(mt, p, "")?;
        set_align(raw, align)?;
        self.load_from_memory(raw, ty)
    }

    fn load_from_memory(
        &self,
        raw: BasicValueEnum<'ctx>,
        ty: Type,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let lt = self.llvm_type(ty)?;
        Ok(match ty {
            Type::Scalar(ScalarType::I1) => self.builder.build_cast(Opc::Trunc, raw, lt, "")?,
            Type::Ptr(_) => self.builder.build_cast(Opc::IntToPtr, raw, lt, "")?,
            _ => raw,
        })
    }

    fn store_to_memory(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: Type,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let mt = self.memory_type(ty)?;
        Ok(match ty {
            Type::Scalar(ScalarType::I1) => self.builder.build_cast(Opc::ZExt, v, mt, "")?,
            Type::Ptr(_) => self.builder.build_cast(Opc::PtrToInt, v, mt, "")?,
            _ => v,
        })
    }

    fn writable_ptr(&self, ptr: Value) -> Result<(PointerValue<'ctx>, AddrSpace), Fail> {
        let (p, space) = self.get_ptr(ptr)?;
        if space == AddrSpace::Constant {
            return Err("write through a ptr<constant>".into());
        }
        Ok((p, space))
    }

    fn store(&self, ptr: Value, value: Value, align: u32) -> Result<(), Fail> {
        let (p, _) = self.writable_ptr(ptr)?;
        let ty = self.ty(value)?;
        self.check_align(align, ty)?;
        let v = self.store_to_memory(self.get(value)?, ty)?;
        let st = self.builder.build_store(p, v)?;
        st.set_alignment(align)
            .map_err(|e| Fail::Msg(e.to_string()))?;
        Ok(())
    }

    /// An atomic access's scalar type: floats and integers up to 64 bits (i1 as a byte).
    fn atomic_scalar(&self, ty: Type) -> Result<ScalarType, Fail> {
        ty.scalar()
            .ok_or_else(|| Fail::Msg(format!("atomic access of {ty}")))
    }

    fn atomic_load(
        &self,
        ptr: Value,
        ty: ScalarType,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        if matches!(ordering, Ordering::Release | Ordering::AcqRel) {
            return Err(Fail::Msg(format!("an atomic load cannot be {ordering}")));
        }
        let (p, _) = self.get_ptr(ptr)?;
        let ty = Type::Scalar(ty);
        let raw = self.builder.build_load(self.memory_type(ty)?, p, "")?;
        let inst = raw
            .as_instruction_value()
            .ok_or("load is not an instruction")?;
        self.make_atomic(inst, ordering, scope, ty)?;
        self.load_from_memory(raw, ty)
    }

    fn make_atomic(
        &self,
        inst: InstructionValue<'ctx>,
        ordering: Ordering,
        scope: Scope,
        ty: Type,
    ) -> Result<(), Fail> {
        inst.set_alignment(ty.size_bytes())
            .map_err(|e| Fail::Msg(e.to_string()))?;
        inst.set_atomic_ordering(llvm_ordering(ordering))
            .map_err(|e| Fail::Msg(e.to_string()))?;
        self.set_scope(inst, scope);
        Ok(())
    }

    fn atomic_store(
        &self,
        ptr: Value,
        value: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<(), Fail> {
        if matches!(ordering, Ordering::Acquire | Ordering::AcqRel) {
            return Err(Fail::Msg(format!("an atomic store cannot be {ordering}")));
        }
        let (p, _) = self.writable_ptr(ptr)?;
        let ty = Type::Scalar(self.atomic_scalar(self.ty(value)?)?);
        let v = self.store_to_memory(self.get(value)?, ty)?;
        let st = self.builder.build_store(p, v)?;
        self.make_atomic(st, ordering, scope, ty)
    }

    fn atomic_rmw(
        &self,
        op: RmwOp,
        ptr: Value,
        value: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (p, space) = self.writable_ptr(ptr)?;
        let ty = self.atomic_scalar(self.ty(value)?)?;
        // Sub-word atomics have no common lowering on both targets (PTX atom has none).
        if ty.bits() < 32 {
            return Err(Fail::Msg(format!(
                "atomic.rmw on {ty}: only 32- and 64-bit types are supported"
            )));
        }
        if ty.is_float() && !matches!(op, RmwOp::Add | RmwOp::Xchg) {
            return Err(Fail::Msg(format!("atomic.rmw {op} on float type {ty}")));
        }
        let rmw = AtomicRmw {
            op,
            ty,
            space,
            ptr: p,
            value: self.get(value)?,
            ordering,
            scope,
        };
        self.target.emit_atomic_rmw(self, rmw)
    }

    fn atomic_cas(
        &self,
        ptr: Value,
        expected: Value,
        desired: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (p, _) = self.writable_ptr(ptr)?;
        let ty = self.atomic_scalar(self.ty(expected)?)?;
        if self.ty(desired)? != Type::Scalar(ty) {
            return Err("expected and desired values differ in type".into());
        }
        if ty.bits() < 32 {
            return Err(Fail::Msg(format!(
                "atomic.cas on {ty}: only 32- and 64-bit types are supported"
            )));
        }
        // cmpxchg takes integers: floats compare by their bits.
        let it = self.int_type(ty.bits())?;
        let as_int = |v: Value| -> Result<IntValue<'ctx>, Fail> {
            let v = self.get(v)?;
            let v = if ty.is_float() {
                self.builder.build_bit_cast(v, it, "")?
            } else {
                v
            };
            self.expect_int(v)
        };
        let (e, d) = (as_int(expected)?, as_int(desired)?);
        let failure = match ordering {
            Ordering::Relaxed | Ordering::Release => Ordering::Relaxed,
            Ordering::Acquire | Ordering::AcqRel => Ordering::Acquire,
            Ordering::SeqCst => Ordering::SeqCst,
        };
        let pair =
            self.builder
                .build_cmpxchg(p, e, d, llvm_ordering(ordering), llvm_ordering(failure))?;
        self.set_scope(pair, scope);
        let old = self.builder.build_extract_value(pair, 0, "old")?;
        if ty.is_float() {
            Ok(self
                .builder
                .build_bit_cast(old, self.llvm_scalar(ty), "old")?)
        } else {
            Ok(old)
        }
    }

    fn shared_alloc(
        &self,
        inst: &Inst,
        elem: Type,
        count: u32,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        if !elem.is_well_formed() {
            return Err(Fail::Msg(format!("shared.alloc of ill-formed type {elem}")));
        }
        let bytes = u64::from(elem.size_bytes()) * u64::from(count);
        let bytes = u32::try_from(bytes).map_err(|_| Fail::Msg("shared.alloc too large".into()))?;
        if self.target.dynamic_shared() {
            // One dynamically sized array for the kernel, at the offsets every target and the
            // runtime compute alike.
            let (offsets, _) = self.kernel.shared_layout();
            let mut index = None;
            let mut seen = 0;
            self.kernel.walk(|_, i| {
                if matches!(i.op, Op::SharedAlloc { .. }) {
                    if i.results == inst.results {
                        index = Some(seen);
                    }
                    seen += 1;
                }
            });
            let offset = index
                .and_then(|i| offsets.get(i).copied())
                .ok_or("shared.alloc outside the kernel's layout")?;
            let base = self.dynamic_shared_base();
            let at = self.ctx.i64_type().const_int(offset, false);
            // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
            let p = unsafe {
                self.builder
                    .build_gep(self.ctx.i8_type(), base, &[at], "")?
            };
            return Ok(p.into());
        }
        let array = self.ctx.i8_type().array_type(bytes);
        let name = match inst
            .results
            .first()
            .and_then(|r| self.kernel.value_name(*r))
        {
            Some(n) => format!("{}.{n}", self.kernel.name),
            None => format!("{}.shared", self.kernel.name),
        };
        let global = self.module.add_global(
            array,
            Some(self.target.addr_space(AddrSpace::Shared)),
            &name,
        );
        global.set_linkage(Linkage::Internal);
        global.set_initializer(&array.get_undef());
        global.set_alignment(kosmos_ir::shared_alloc_align(u64::from(bytes)) as u32);
        Ok(global.as_pointer_value().into())
    }

    /// The module's dynamic shared array (declared once, shared by its kernels).
    fn dynamic_shared_base(&self) -> PointerValue<'ctx> {
        const NAME: &str = "kosmos_dynamic_shared";
        let global = self.module.get_global(NAME).unwrap_or_else(|| {
            let array = self.ctx.i8_type().array_type(0);
            let g = self.module.add_global(
                array,
                Some(self.target.addr_space(AddrSpace::Shared)),
                NAME,
            );
            g.set_linkage(Linkage::External);
            g.set_alignment(1024);
            g
        });
        global.as_pointer_value()
    }

    /// The kernel being lowered.
    pub fn kernel(&self) -> &Kernel {
        self.kernel
    }

    fn splat(&self, value: Value, lanes: u32) -> Result<BasicValueEnum<'ctx>, Fail> {
        let elem = self
            .ty(value)?
            .scalar()
            .ok_or("vec.splat of a non-scalar")?;
        let vt = self
            .llvm_type(Type::Vector { elem, lanes })?
            .into_vector_type();
        let x = self.get(value)?;
        let mut v = vt.get_undef();
        for i in 0..lanes {
            let idx = self.ctx.i32_type().const_int(i as u64, false);
            v = self.builder.build_insert_element(v, x, idx, "")?;
        }
        Ok(v.into())
    }

    fn vector(&self, v: Value, lane: u32) -> Result<inkwell::values::VectorValue<'ctx>, Fail> {
        match self.ty(v)? {
            Type::Vector { lanes, .. } if lane < lanes => match self.get(v)? {
                BasicValueEnum::VectorValue(x) => Ok(x),
                _ => Err("vector value is not a vector".into()),
            },
            Type::Vector { lanes, .. } => {
                Err(Fail::Msg(format!("lane {lane} of a {lanes}-lane vector")))
            }
            other => Err(Fail::Msg(format!("vector op on {other}"))),
        }
    }
}

fn with_elem(ty: Type, elem: ScalarType) -> Type {
    match ty {
        Type::Vector { lanes, .. } => Type::Vector { elem, lanes },
        _ => Type::Scalar(elem),
    }
}

fn set_align(v: BasicValueEnum<'_>, align: u32) -> Result<(), Fail> {
    let inst = v
        .as_instruction_value()
        .ok_or("memory access is not an instruction")?;
    inst.set_alignment(align)
        .map_err(|e| Fail::Msg(e.to_string()))
}

fn unreachable_exit() -> Result<(), Fail> {
    Err("region does not end in a terminator".into())
}
