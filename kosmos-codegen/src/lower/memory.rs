//! Pointers, loads and stores, atomics, fences and shared memory.

use super::Cx;
use crate::llvm::{AtomicRmw, Fail, atomic_ordering, instruction, set_alignment};
use inkwell::AtomicOrdering;
use inkwell::module::Linkage;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{
    AsValueRef, BasicValueEnum, InstructionOpcode as Opc, InstructionValue, IntValue, PointerValue,
};
use kosmos_ir::{AddrSpace, Inst, Ordering, RmwOp, ScalarType, Scope, Type, Value};

impl<'ctx> Cx<'_, 'ctx> {
    pub(super) fn ptr_offset(
        &self,
        base: Value,
        index: Value,
        elem: Type,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (ptr, _) = self.get_ptr(base);
        let idx_ty = self
            .ty(index)
            .scalar()
            .expect("the verifier gives ptr.offset an integer index");
        let i64t = self.ctx.i64_type();
        let idx = self.get_int(index);
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

    /// The in-memory type of a register type (i1 is a byte, pointers are 64-bit integers).
    fn memory_type(&self, ty: Type) -> BasicTypeEnum<'ctx> {
        match ty {
            Type::Scalar(ScalarType::I1) => self.ctx.i8_type().into(),
            Type::Ptr(_) => self.ctx.i64_type().into(),
            other => self.llvm_type(other),
        }
    }

    /// A load; the verifier checks that `align` is a power of two in `1..=16`.
    pub(super) fn load(
        &self,
        ptr: Value,
        ty: Type,
        align: u32,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (p, _) = self.get_ptr(ptr);
        let raw = self.llvm.load(self.memory_type(ty), p, align)?;
        self.memory_cast(raw, ty, false)
    }

    /// Converts a value of `ty` between its register form and its in-memory form
    /// ([`Self::memory_type`]): `to_memory` before a store, else after a load.
    fn memory_cast(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: Type,
        to_memory: bool,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (store_opc, load_opc) = match ty {
            Type::Scalar(ScalarType::I1) => (Opc::ZExt, Opc::Trunc),
            Type::Ptr(_) => (Opc::PtrToInt, Opc::IntToPtr),
            _ => return Ok(v),
        };
        Ok(if to_memory {
            self.builder
                .build_cast(store_opc, v, self.memory_type(ty), "")?
        } else {
            self.builder
                .build_cast(load_opc, v, self.llvm_type(ty), "")?
        })
    }

    /// A pointer the verifier lets the op write through (not `ptr<constant>`).
    fn writable_ptr(&self, ptr: Value) -> (PointerValue<'ctx>, AddrSpace) {
        let (p, space) = self.get_ptr(ptr);
        debug_assert_ne!(
            space,
            AddrSpace::Constant,
            "the verifier rejects writes to constant memory"
        );
        (p, space)
    }

    /// A store; the verifier checks that `align` is a power of two in `1..=16`.
    pub(super) fn store(&self, ptr: Value, value: Value, align: u32) -> Result<(), Fail> {
        let (p, _) = self.writable_ptr(ptr);
        let v = self.memory_cast(self.get(value), self.ty(value), true)?;
        self.llvm.store(p, v, align)?;
        Ok(())
    }

    pub(super) fn atomic_load(
        &self,
        ptr: Value,
        ty: ScalarType,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        debug_assert!(
            !matches!(ordering, Ordering::Release | Ordering::AcqRel),
            "the verifier rejects {ordering} loads"
        );
        let (p, _) = self.get_ptr(ptr);
        let ty = Type::Scalar(ty);
        let raw = self.builder.build_load(self.memory_type(ty), p, "")?;
        self.make_atomic(instruction(raw), ordering, scope, ty);
        self.memory_cast(raw, ty, false)
    }

    fn make_atomic(
        &self,
        inst: InstructionValue<'ctx>,
        ordering: Ordering,
        scope: Scope,
        ty: Type,
    ) {
        set_alignment(inst, ty.size_bytes());
        inst.set_atomic_ordering(atomic_ordering(ordering))
            .expect("loads and stores take an atomic ordering");
        self.set_scope(inst, scope);
    }

    pub(super) fn atomic_store(
        &self,
        ptr: Value,
        value: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<(), Fail> {
        debug_assert!(
            !matches!(ordering, Ordering::Acquire | Ordering::AcqRel),
            "the verifier rejects {ordering} stores"
        );
        let (p, _) = self.writable_ptr(ptr);
        let ty = self.ty(value);
        let v = self.memory_cast(self.get(value), ty, true)?;
        let st = self.builder.build_store(p, v)?;
        self.make_atomic(st, ordering, scope, ty);
        Ok(())
    }

    /// The verifier admits 32- and 64-bit integers, and `f32` for `add` and `xchg` (PTX has
    /// no sub-word atomics: there is no common lowering for them).
    pub(super) fn atomic_rmw(
        &self,
        op: RmwOp,
        ptr: Value,
        value: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (p, space) = self.writable_ptr(ptr);
        let ty = self
            .ty(value)
            .scalar()
            .expect("the verifier gives atomic.rmw a scalar");
        let rmw = AtomicRmw {
            op,
            ty,
            space,
            ptr: p,
            value: self.get(value),
            ordering,
            scope,
        };
        self.target.emit_atomic_rmw(&self.llvm, rmw)
    }

    /// The verifier admits 32- and 64-bit integers.
    pub(super) fn atomic_cas(
        &self,
        ptr: Value,
        expected: Value,
        desired: Value,
        ordering: Ordering,
        scope: Scope,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (p, _) = self.writable_ptr(ptr);
        debug_assert!(
            self.ty(expected) == self.ty(desired)
                && self.ty(expected).scalar().is_some_and(|s| s.is_int()),
            "the verifier gives atomic.cas integers of one type"
        );
        let (e, d) = (self.get_int(expected), self.get_int(desired));
        let failure = match ordering {
            Ordering::Relaxed | Ordering::Release => Ordering::Relaxed,
            Ordering::Acquire | Ordering::AcqRel => Ordering::Acquire,
            Ordering::SeqCst => Ordering::SeqCst,
        };
        let pair = self.builder.build_cmpxchg(
            p,
            e,
            d,
            atomic_ordering(ordering),
            atomic_ordering(failure),
        )?;
        self.set_scope(pair, scope);
        Ok(self.builder.build_extract_value(pair, 0, "old")?)
    }

    /// The byte length the runtime passes with pointer parameter `buffer`.
    pub(super) fn buffer_len(&self, buffer: Value) -> IntValue<'ctx> {
        self.buffer_lens
            .iter()
            .find(|(p, _)| *p == buffer)
            .map(|(_, len)| *len)
            .expect("the verifier takes buffer.len of pointer parameters only")
    }

    /// `bounds.fail` and `wait.fail`: the launch's first failure takes the kernel's record,
    /// the words `[failure + 1, values...]`, `failure` its place among the kernel's
    /// `bounds_origins` (`kosmos-runtime/src/bounds.rs` reads them).
    pub(super) fn record_failure(&mut self, values: [IntValue<'ctx>; 2]) -> Result<(), Fail> {
        let origin = self.next_bounds_origin;
        self.next_bounds_origin += 1;
        let i64t = self.ctx.i64_type();
        let record = self.bounds_record;
        let first = self.builder.build_cmpxchg(
            record,
            i64t.const_zero(),
            i64t.const_int(origin + 1, false),
            AtomicOrdering::Monotonic,
            AtomicOrdering::Monotonic,
        )?;
        let won = self.builder.build_extract_value(first, 1, "")?;
        let (write, done) = (self.block("bounds.record"), self.block("bounds.done"));
        self.builder
            .build_conditional_branch(won.into_int_value(), write, done)?;
        self.builder.position_at_end(write);
        for (word, value) in (1..).zip(values) {
            // SAFETY: the record has four words.
            let at = unsafe {
                self.builder
                    .build_gep(i64t, record, &[i64t.const_int(word, false)], "")?
            };
            self.builder.build_store(at, value)?;
        }
        self.builder.build_unconditional_branch(done)?;
        self.builder.position_at_end(done);
        Ok(())
    }

    pub(super) fn fence(&self, ordering: Ordering, scope: Scope) -> Result<(), Fail> {
        self.llvm.fence(ordering, self.target.sync_scope(scope))
    }

    /// Gives an atomic instruction the target's sync scope of `scope`.
    fn set_scope(&self, inst: impl AsValueRef, scope: Scope) {
        self.set_sync_scope(inst, self.target.sync_scope(scope));
    }

    pub(super) fn shared_alloc(
        &mut self,
        inst: &Inst,
        elem: Type,
        count: u32,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let bytes = u64::from(elem.size_bytes()) * u64::from(count);
        let bytes = u32::try_from(bytes).expect("the verifier caps shared memory at 64 KiB");
        // Taken on every target, so that the walk-order count stays in step.
        let offset = self
            .shared_offsets
            .next()
            .expect("the kernel's layout places each of its shared allocations");
        if self.target.dynamic_shared() {
            // One dynamically sized array for the kernel, at the offsets every target and the
            // runtime compute alike.
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
}
