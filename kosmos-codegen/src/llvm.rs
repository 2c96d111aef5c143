//! LLVM building blocks shared by the lowering and the targets: the builder of one kernel's
//! function, intrinsic and inline-asm calls, atomics with a sync scope. Nothing here knows a
//! target or lowers an IR op.

use inkwell::AtomicOrdering;
use inkwell::attributes::AttributeLoc;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::llvm_sys;
use inkwell::module::Module;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, IntType};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue,
    InstructionValue, IntValue, PointerValue, StructValue, ValueKind, VectorValue,
};
use kosmos_ir::{AddrSpace, Kernel, Ordering, RmwOp, ScalarType, Scope};
use std::cell::RefCell;

/// Why an instruction could not be lowered: the target cannot express it, or LLVM refused a
/// builder call (a bug in the lowering). The lowering adds the kernel and position.
#[derive(Debug)]
pub(crate) struct Fail(pub String);

impl Fail {
    /// The target `cpu` has no lowering rule for `op`.
    pub fn no_rule(cpu: &str, op: &kosmos_ir::Op) -> Fail {
        Fail(format!("{cpu} has no lowering for `{}`", op.name()))
    }
}

impl From<BuilderError> for Fail {
    fn from(e: BuilderError) -> Fail {
        Fail(format!("LLVM builder: {e}"))
    }
}

/// Operands of an atomic read-modify-write, as the verifier admits them: 32- or 64-bit
/// integers, or `f32` for `add` and `xchg`.
#[derive(Copy, Clone)]
pub(crate) struct AtomicRmw<'ctx> {
    pub op: RmwOp,
    pub ty: ScalarType,
    pub space: AddrSpace,
    pub ptr: PointerValue<'ctx>,
    pub value: BasicValueEnum<'ctx>,
    pub ordering: Ordering,
    pub scope: Scope,
}

/// The LLVM type of a scalar (`i1` stays `i1`: memory accesses widen it).
pub(crate) fn scalar_type(ctx: &Context, s: ScalarType) -> BasicTypeEnum<'_> {
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

/// The integer type of `bits` (8, 16, 32 or 64) bits.
pub(crate) fn int_type(ctx: &Context, bits: u32) -> IntType<'_> {
    match bits {
        8 => ctx.i8_type(),
        16 => ctx.i16_type(),
        32 => ctx.i32_type(),
        64 => ctx.i64_type(),
        _ => unreachable!("no {bits}-bit integer type is used"),
    }
}

pub(crate) fn atomic_ordering(o: Ordering) -> AtomicOrdering {
    match o {
        Ordering::Relaxed => AtomicOrdering::Monotonic,
        Ordering::Acquire => AtomicOrdering::Acquire,
        Ordering::Release => AtomicOrdering::Release,
        Ordering::AcqRel => AtomicOrdering::AcquireRelease,
        Ordering::SeqCst => AtomicOrdering::SequentiallyConsistent,
    }
}

/// Builds the LLVM function of one kernel.
pub(crate) struct FnBuilder<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub builder: Builder<'ctx>,
    pub function: FunctionValue<'ctx>,
    pub kernel: &'a Kernel,
    /// Copies a target holds in registers until an `async.wait` (AMD's `copy.async`).
    pub staged: RefCell<Staged<'ctx>>,
}

/// The copies staged in registers and the waits that store them.
#[derive(Default)]
pub(crate) struct Staged<'ctx> {
    pub copies: Vec<StagedCopy<'ctx>>,
    /// Per `async.wait`: the last block of its stores (copies lowered later are added there)
    /// and the block after the wait.
    pub waits: Vec<(BasicBlock<'ctx>, BasicBlock<'ctx>)>,
}

/// A copy staged in registers: private slots (promoted to registers) for the data, its
/// destination and whether it is still to be stored.
#[derive(Copy, Clone)]
pub(crate) struct StagedCopy<'ctx> {
    pub data: PointerValue<'ctx>,
    pub dst: PointerValue<'ctx>,
    pub pending: PointerValue<'ctx>,
}

impl<'ctx> FnBuilder<'_, 'ctx> {
    pub fn add_fn_attr(&self, key: &str, value: &str) {
        let attr = self.ctx.create_string_attribute(key, value);
        self.function.add_attribute(AttributeLoc::Function, attr);
    }

    pub fn block(&self, name: &str) -> BasicBlock<'ctx> {
        self.ctx.append_basic_block(self.function, name)
    }

    pub fn current_block(&self) -> BasicBlock<'ctx> {
        self.builder
            .get_insert_block()
            .expect("the builder is positioned while a kernel is lowered")
    }

    /// A load of `ty` at `ptr`, aligned to `align` bytes.
    pub fn load(
        &self,
        ty: impl BasicType<'ctx>,
        ptr: PointerValue<'ctx>,
        align: u32,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let value = self.builder.build_load(ty, ptr, "")?;
        set_alignment(instruction(value), align);
        Ok(value)
    }

    /// A store of `value` at `ptr`, aligned to `align` bytes.
    pub fn store(
        &self,
        ptr: PointerValue<'ctx>,
        value: impl BasicValue<'ctx>,
        align: u32,
    ) -> Result<InstructionValue<'ctx>, Fail> {
        let store = self.builder.build_store(ptr, value)?;
        set_alignment(store, align);
        Ok(store)
    }

    pub fn call_intrinsic(
        &self,
        name: &str,
        overloads: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let call = self.call(name, overloads, args)?;
        Ok(call_result(call))
    }

    /// `f` applied to the bits of a 32-bit `value` as an `i32`, its result taken back to the
    /// type of `value` (for instructions that move `i32`s).
    pub fn with_i32_bits(
        &self,
        value: BasicValueEnum<'ctx>,
        f: impl FnOnce(IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>, Fail>,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let bits = self
            .builder
            .build_bit_cast(value, self.ctx.i32_type(), "")?;
        let moved = f(bits.into_int_value())?;
        Ok(self.builder.build_bit_cast(moved, value.get_type(), "")?)
    }

    pub fn call_int_intrinsic(&self, name: &str) -> Result<IntValue<'ctx>, Fail> {
        Ok(self.call_intrinsic(name, &[], &[])?.into_int_value())
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
        let intrinsic =
            Intrinsic::find(name).ok_or_else(|| Fail(format!("LLVM has no intrinsic {name}")))?;
        let decl = intrinsic
            .get_declaration(self.module, overloads)
            .ok_or_else(|| Fail(format!("cannot declare {name} for {overloads:?}")))?;
        Ok(self.builder.build_call(decl, args, "")?)
    }

    /// An inline-asm statement with side effects, giving a value of type `ty` (`None`:
    /// `void`); its parameter types are those of `args`.
    pub fn inline_asm(
        &self,
        ty: Option<BasicTypeEnum<'ctx>>,
        asm: &str,
        constraints: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<CallSiteValue<'ctx>, Fail> {
        let params: Vec<BasicMetadataTypeEnum> = args.iter().map(|a| a.get_type().into()).collect();
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        let fn_ty = match ty {
            Some(ty) => ty.fn_type(&params, false),
            None => self.ctx.void_type().fn_type(&params, false),
        };
        let f = self.ctx.create_inline_asm(
            fn_ty,
            asm.to_string(),
            constraints.to_string(),
            true,
            false,
            None,
            false,
        );
        Ok(self.builder.build_indirect_call(fn_ty, f, &args, "")?)
    }

    /// `v` with the fields of the struct `r` (an intrinsic's or asm's results) written into
    /// elements `at ..`.
    pub fn insert_fields(
        &self,
        mut v: VectorValue<'ctx>,
        r: StructValue<'ctx>,
        at: u32,
    ) -> Result<VectorValue<'ctx>, Fail> {
        let i32t = self.ctx.i32_type();
        for i in 0..r.get_type().count_fields() {
            let x = self.builder.build_extract_value(r, i, "")?;
            let index = i32t.const_int(u64::from(at + i), false);
            v = self.builder.build_insert_element(v, x, index, "")?;
        }
        Ok(v)
    }

    /// Gives an atomic instruction the sync scope `name` (inkwell has no API for it).
    pub fn set_sync_scope(&self, inst: impl AsValueRef, name: &str) {
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

    /// A fence in the sync scope `scope`.
    pub fn fence(&self, ordering: Ordering, scope: &str) -> Result<(), Fail> {
        debug_assert_ne!(
            ordering,
            Ordering::Relaxed,
            "the verifier rejects relaxed fences"
        );
        let fence = self
            .builder
            .build_fence(atomic_ordering(ordering), false, "")?;
        self.set_sync_scope(fence, scope);
        Ok(())
    }

    /// LLVM's `atomicrmw` with ordering and the sync scope `scope`.
    pub fn atomic_rmw(&self, rmw: AtomicRmw<'ctx>, scope: &str) -> BasicValueEnum<'ctx> {
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
            (op, true) => unreachable!("the verifier rejects atomic.rmw {op} on {ty}"),
        };
        // SAFETY: the builder is positioned, the operands are values of this context with the
        // pointer/value types LLVM requires (verified IR).
        let inst = unsafe {
            llvm_sys::core::LLVMBuildAtomicRMW(
                self.builder.as_mut_ptr(),
                op,
                rmw.ptr.as_value_ref(),
                rmw.value.as_value_ref(),
                atomic_ordering(rmw.ordering).into(),
                0,
            )
        };
        // SAFETY: LLVMBuildAtomicRMW returns a valid instruction with the operand's type.
        let value = unsafe { BasicValueEnum::new(inst) };
        self.set_sync_scope(value, scope);
        value
    }
}

/// The value a call returns (every call built here returns one unless it is `void`).
pub(crate) fn call_result(call: CallSiteValue<'_>) -> BasicValueEnum<'_> {
    match call.try_as_basic_value() {
        ValueKind::Basic(v) => v,
        ValueKind::Instruction(_) => panic!("a call of a void function has no result"),
    }
}

/// The instruction that gives `value` (a load's, for instance).
pub(crate) fn instruction(value: BasicValueEnum<'_>) -> InstructionValue<'_> {
    value
        .as_instruction_value()
        .expect("the value is an instruction's result")
}

/// Aligns a load or store.
pub(crate) fn set_alignment(access: InstructionValue<'_>, align: u32) {
    access
        .set_alignment(align)
        .expect("loads and stores take an alignment");
}
