//! NVIDIA Hopper (sm_90a) through PTX (ISA 8.0: the oldest with sm_90a, accepted by CUDA 12
//! and 13).

use super::{FragLayout, Target, lane_term, run, subgroup_id};
use crate::llvm::{AtomicRmw, Fail, FnBuilder, call_result, instruction, scalar_type};
use inkwell::module::Module;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FastMathFlags, IntValue, PointerValue, StructValue,
    VectorValue,
};
use inkwell::{AddressSpace, IntPredicate};
use kosmos_ir::{
    ATile, AddrSpace, BTile, Dim, FragRole, IdKind, MmaLayout, Op, Ordering, RmwOp, Scope,
};

pub(crate) struct Nvptx;

/// NVPTX's kernel calling convention (`ptx_kernel`); annotations alone give a `.func`.
const PTX_KERNEL_CC: u32 = 71;

// `mma.m16n8k16` (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with g = lane / 4 and
// t = lane % 4: A a0..a7 at rows g, g+8 and columns 2t, 2t+1, 2t+8, 2t+9 (register i holds
// a[2i], a[2i+1]); B b0..b3 at rows (k) 2t, 2t+1, 2t+8, 2t+9 and column (n) g; C c0..c3 at
// rows g, g+8 and columns 2t, 2t+1. A 16x16 B or accumulator is two 16x8 halves: elements
// 0..4 for columns 0..8, 4..8 for columns 8..16.
const MMA_A_ACC: FragLayout = FragLayout {
    row: lane_term(2, 7, 1),
    col: lane_term(0, 3, 2),
    runs: &[run(0, 0, 2), run(8, 0, 2), run(0, 8, 2), run(8, 8, 2)],
};
const MMA_B: FragLayout = FragLayout {
    row: lane_term(0, 3, 2),
    col: lane_term(2, 7, 1),
    runs: &[
        run(0, 0, 1),
        run(1, 0, 1),
        run(8, 0, 1),
        run(9, 0, 1),
        run(0, 8, 1),
        run(1, 8, 1),
        run(8, 8, 1),
        run(9, 8, 1),
    ],
};

impl Target for Nvptx {
    fn triple(&self) -> &'static str {
        "nvptx64-nvidia-cuda"
    }

    fn cpu(&self) -> &'static str {
        "sm_90a"
    }

    fn features(&self) -> &'static str {
        "+ptx80"
    }

    fn addr_space(&self, space: AddrSpace) -> AddressSpace {
        match space {
            AddrSpace::Global => AddressSpace::from(1u16),
            AddrSpace::Shared => AddressSpace::from(3u16),
            // NVIDIA's constant space is the constant bank, not device memory a kernel gets a
            // pointer to: read-only device memory is global memory there.
            AddrSpace::Constant => AddressSpace::from(1u16),
        }
    }

    fn sync_scope(&self, scope: Scope) -> &'static str {
        // Never "agent": NVPTX has a fatal error on scopes it does not know.
        match scope {
            Scope::Workgroup => "block",
            Scope::Agent => "device",
            Scope::System => "",
        }
    }

    fn configure_module(&self, _module: &Module<'_>) {}

    fn configure_kernel(&self, cx: &FnBuilder<'_, '_>) {
        cx.function.set_call_conventions(PTX_KERNEL_CC);
        let bound = cx.kernel.workgroup_bound(self.subgroup_size());
        cx.add_fn_attr("nvvm.maxntid", &bound.to_string());
        if let Some(n) = cx.kernel.min_resident {
            cx.add_fn_attr("nvvm.minctasm", &n.to_string());
        }
    }

    fn lower_op<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        op: &Op,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let i32t = cx.ctx.i32_type();
        match op {
            Op::Id { kind, dim } => Ok(vec![self.id(cx, *kind, *dim)?.into()]),
            Op::Barrier => {
                if cx.kernel.uses_groups() {
                    // `wgmma` reads shared memory through the async proxy: what this thread
                    // wrote (stores, completed cp.async) must be fenced towards it before
                    // the barrier.
                    cx.inline_asm(None, "fence.proxy.async.shared::cta;", "~{memory}", &[])?;
                }
                // bar.sync orders the CTA's memory accesses itself.
                let zero = i32t.const_zero();
                cx.call_void_intrinsic("llvm.nvvm.barrier.cta.sync.aligned.all", &[zero.into()])?;
                Ok(vec![])
            }
            Op::SubgroupBarrier => {
                // bar.warp.sync orders memory among the warp's lanes.
                let all = i32t.const_all_ones();
                cx.call_void_intrinsic("llvm.nvvm.bar.warp.sync", &[all.into()])?;
                Ok(vec![])
            }
            Op::Shuffle { .. } => {
                // Every lane of the warp takes part; clamp 31 reads lane `lane & 31`.
                let moved = cx.with_i32_bits(args[0], |value| {
                    let all = i32t.const_all_ones();
                    let clamp = i32t.const_int(31, false);
                    let args = [all.into(), value.into(), args[1].into(), clamp.into()];
                    cx.call_intrinsic("llvm.nvvm.shfl.sync.idx.i32", &[], &args)
                })?;
                Ok(vec![moved])
            }
            Op::Exp2Approx { .. } => Ok(vec![cx.call_intrinsic(
                "llvm.nvvm.ex2.approx.ftz",
                &[cx.ctx.f32_type().into()],
                &[args[0].into()],
            )?]),
            Op::RcpApprox { .. } => Ok(vec![cx.call_intrinsic(
                "llvm.nvvm.rcp.approx.ftz.f",
                &[],
                &[args[0].into()],
            )?]),
            // `llvm.tanh` allowed to approximate (`afn`) is `tanh.approx.f32` (sm_75 on).
            Op::TanhApprox { .. } => {
                let tanh =
                    cx.call_intrinsic("llvm.tanh", &[cx.ctx.f32_type().into()], &[args[0].into()])?;
                instruction(tanh)
                    .set_fast_math_flags(FastMathFlags::ApproxFunc)
                    .map_err(|e| Fail(format!("marking tanh approximate: {e:?}")))?;
                Ok(vec![tanh])
            }
            // %globaltimer: nanoseconds, the same on every SM.
            Op::Clock => Ok(vec![cx.call_intrinsic(
                "llvm.nvvm.read.ptx.sreg.globaltimer",
                &[],
                &[],
            )?]),
            Op::Sleep { nanos } => {
                let arg = i32t.const_int(*nanos as u64, false);
                cx.inline_asm(None, "nanosleep.u32 $0;", "r", &[arg.into()])?;
                Ok(vec![])
            }
            // `cp.async.cg` (16 bytes, through L2 only) with a source size of 0 when the
            // predicate is false: the hardware then reads nothing and fills zeros.
            Op::CopyAsync { .. } => {
                let pred = args[2].into_int_value();
                let size = cx.builder.build_select(
                    pred,
                    i32t.const_int(16, false),
                    i32t.const_zero(),
                    "",
                )?;
                let (dst, src) = (args[0], args[1]);
                cx.call_void_intrinsic(
                    "llvm.nvvm.cp.async.cg.shared.global.16.s",
                    &[dst.into(), src.into(), size.into()],
                )?;
                Ok(vec![])
            }
            Op::AsyncCommit => {
                cx.call_void_intrinsic("llvm.nvvm.cp.async.commit.group", &[])?;
                Ok(vec![])
            }
            Op::AsyncWait { pending } => {
                let n = i32t.const_int(*pending as u64, false);
                cx.call_void_intrinsic("llvm.nvvm.cp.async.wait.group", &[n.into()])?;
                Ok(vec![])
            }
            Op::MbarInit { .. } => {
                let asm = "mbarrier.init.shared::cta.b64 [$0], $1;";
                cx.inline_asm(None, asm, "l,r,~{memory}", &[addr(cx, args[0])?, args[1]])?;
                Ok(vec![])
            }
            Op::MbarArrive { .. } => {
                let asm = "{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [$0];\n}";
                cx.inline_asm(None, asm, "l,~{memory}", &[addr(cx, args[0])?])?;
                Ok(vec![])
            }
            Op::MbarArriveExpect { .. } => {
                let asm = "{\n.reg .b64 state;\n\
                           mbarrier.arrive.expect_tx.shared::cta.b64 state, [$0], $1;\n}";
                cx.inline_asm(None, asm, "l,r,~{memory}", &[addr(cx, args[0])?, args[1]])?;
                Ok(vec![])
            }
            Op::MbarTryWait { .. } => {
                // try_wait suspends the thread for a while (a hardware-chosen time) before
                // answering false, so a loop over it does not flood the barrier.
                let asm = "{\n.reg .pred done;\n\
                           mbarrier.try_wait.parity.shared::cta.b64 done, [$1], $2;\n\
                           selp.u32 $0, 1, 0, done;\n}";
                let done = cx.inline_asm(
                    Some(i32t.into()),
                    asm,
                    "=r,l,r,~{memory}",
                    &[addr(cx, args[0])?, args[1]],
                )?;
                let done = call_result(done).into_int_value();
                let one = cx
                    .builder
                    .build_int_truncate(done, cx.ctx.bool_type(), "")?;
                Ok(vec![one.into()])
            }
            Op::CopyTensor { .. } => {
                // One elected lane of the warp issues the copy; the map is a generic address.
                let map = cx.builder.build_address_space_cast(
                    args[1].into_pointer_value(),
                    cx.ctx.ptr_type(AddressSpace::default()),
                    "",
                )?;
                let asm = "{\n.reg .pred first;\nelect.sync _|first, 0xffffffff;\n\
                           @first cp.async.bulk.tensor.2d.shared::cluster.global.\
                           mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];\n}";
                let operands = [
                    addr(cx, args[0])?,
                    addr(cx, map.into())?,
                    args[2],
                    args[3],
                    addr(cx, args[4])?,
                ];
                cx.inline_asm(None, asm, "l,l,r,r,l,~{memory}", &operands)?;
                Ok(vec![])
            }
            Op::CopyTensorStore { .. } => {
                // One elected lane issues the copy, each in a bulk group of its own; the
                // waits below run on every lane, so the issuing one waits for its groups.
                let map = cx.builder.build_address_space_cast(
                    args[0].into_pointer_value(),
                    cx.ctx.ptr_type(AddressSpace::default()),
                    "",
                )?;
                let asm = "{\n.reg .pred first;\nelect.sync _|first, 0xffffffff;\n\
                           @first cp.async.bulk.tensor.2d.global.shared::cta.bulk_group \
                           [$0, {$1, $2}], [$3];\n\
                           @first cp.async.bulk.commit_group;\n}";
                let operands = [addr(cx, map.into())?, args[1], args[2], addr(cx, args[3])?];
                cx.inline_asm(None, asm, "l,r,r,l,~{memory}", &operands)?;
                Ok(vec![])
            }
            // The subgroup meets after the issuing lane's wait, so none of its lanes writes
            // the source before the copy has read it.
            Op::CopyTensorWaitRead { pending } | Op::CopyTensorWait { pending } => {
                let read = if matches!(op, Op::CopyTensorWaitRead { .. }) {
                    ".read"
                } else {
                    ""
                };
                let asm = format!("cp.async.bulk.wait_group{read} {pending};\nbar.warp.sync -1;");
                cx.inline_asm(None, &asm, "~{memory}", &[])?;
                Ok(vec![])
            }
            Op::FenceProxyAsync => {
                // Every state space: rows that plain stores put in global memory are read by
                // tensor copies too, not only shared tiles.
                cx.inline_asm(None, "fence.proxy.async;", "~{memory}", &[])?;
                Ok(vec![])
            }
            Op::FenceProxyAsyncShared => {
                cx.inline_asm(None, "fence.proxy.async.shared::cta;", "~{memory}", &[])?;
                Ok(vec![])
            }
            Op::MmaWait { pending, .. } => {
                let accs: Vec<VectorValue> = args.iter().map(|a| a.into_vector_value()).collect();
                mma_wait(cx, *pending, &accs)
            }
            Op::RegsSet { dir, count } => {
                let asm = format!("setmaxnreg.{dir}.sync.aligned.u32 {count};");
                cx.inline_asm(None, &asm, "~{memory}", &[])?;
                Ok(vec![])
            }
            op => Err(Fail::no_rule(self.cpu(), op)),
        }
    }

    fn log2_intrinsic(&self) -> &'static str {
        // `llvm.log2.f32` finds no libcall on NVPTX (a fatal error); this is `lg2.approx.f32`,
        // the instruction CUDA's log2f uses.
        "llvm.nvvm.lg2.approx.f"
    }

    /// Inline PTX: LLVM 22's NVPTX backend drops ordering and scope from `atomicrmw`.
    fn emit_atomic_rmw<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        rmw: AtomicRmw<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = rmw.ty;
        let bits = ty.bits();
        let (op, suffix) = match (rmw.op, ty.is_float()) {
            (RmwOp::Add, true) => ("add", format!("f{bits}")),
            // Two's complement: a signed add is an unsigned add (PTX has no .s64 add).
            (RmwOp::Add, false) => ("add", format!("u{bits}")),
            (RmwOp::Min | RmwOp::Max, false) => {
                let sign = if ty.is_signed_int() { "s" } else { "u" };
                let op = if rmw.op == RmwOp::Min { "min" } else { "max" };
                (op, format!("{sign}{bits}"))
            }
            (RmwOp::Xchg, _) => ("exch", format!("b{bits}")),
            (RmwOp::And, false) => ("and", format!("b{bits}")),
            (RmwOp::Or, false) => ("or", format!("b{bits}")),
            (op, _) => unreachable!("the verifier rejects atomic.rmw {op} on {ty}"),
        };
        let scope = match rmw.scope {
            Scope::Workgroup => "cta",
            Scope::Agent => "gpu",
            Scope::System => "sys",
        };
        let (fence, sem) = match rmw.ordering {
            Ordering::Relaxed => ("", "relaxed"),
            Ordering::Acquire => ("", "acquire"),
            Ordering::Release => ("", "release"),
            Ordering::AcqRel => ("", "acq_rel"),
            // The PTX memory model's mapping of a sequentially consistent RMW.
            Ordering::SeqCst => ("fence.sc.", "acq_rel"),
        };
        let fence = if fence.is_empty() {
            String::new()
        } else {
            format!("{fence}{scope}; ")
        };
        let space = match rmw.space {
            AddrSpace::Shared => "shared",
            AddrSpace::Global | AddrSpace::Constant => "global",
        };
        // Floats other than add travel as integers of their width (b32/b64 operations).
        let float_reg = ty.is_float() && rmw.op == RmwOp::Add;
        let (reg_ty, constraint): (BasicTypeEnum, _) = match (float_reg, bits) {
            (true, 32) => (cx.ctx.f32_type().into(), "f"),
            (true, _) => (cx.ctx.f64_type().into(), "d"),
            (false, 32) => (cx.ctx.i32_type().into(), "r"),
            (false, _) => (cx.ctx.i64_type().into(), "l"),
        };
        let value = if !float_reg && ty.is_float() {
            cx.builder.build_bit_cast(rmw.value, reg_ty, "")?
        } else {
            rmw.value
        };
        // The address as a 64-bit integer: within .shared it is the window offset PTX expects.
        let addr = cx
            .builder
            .build_ptr_to_int(rmw.ptr, cx.ctx.i64_type(), "")?;
        let asm = format!("{fence}atom.{sem}.{scope}.{space}.{op}.{suffix} $0, [$1], $2;");
        let constraints = format!("={constraint},l,{constraint},~{{memory}}");
        let old = cx.inline_asm(Some(reg_ty), &asm, &constraints, &[addr.into(), value])?;
        let old = call_result(old);
        old.set_name("old");
        if !float_reg && ty.is_float() {
            Ok(cx
                .builder
                .build_bit_cast(old, scalar_type(cx.ctx, ty), "old")?)
        } else {
            Ok(old)
        }
    }

    fn links_object(&self) -> bool {
        false
    }

    fn subgroup_size(&self) -> u32 {
        32
    }

    fn frag_layout(&self, role: FragRole) -> FragLayout {
        match role {
            // A `frag<wacc>` is `frag<acc>` pieces side by side: the layout is per piece.
            FragRole::A | FragRole::Acc | FragRole::WideAcc => MMA_A_ACC,
            FragRole::B => MMA_B,
        }
    }

    /// `ldmatrix.x4`: four 8x8 matrices, lane `l` naming row `l % 16` at column `8 (l / 16)`
    /// of the tile, so registers 0..4 are (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15),
    /// (8-15, 8-15). For `a` these are exactly the mma A registers; `b` is loaded transposed
    /// (`.trans`: rows are k), which gives B's k-pairs per column in the same order.
    fn emit_shared_frag_load<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        role: FragRole,
        base: PointerValue<'ctx>,
        stride: IntValue<'ctx>,
    ) -> Result<Option<VectorValue<'ctx>>, Fail> {
        let name = match role {
            FragRole::A => "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16",
            FragRole::B => "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16",
            FragRole::Acc | FragRole::WideAcc => return Ok(None),
        };
        let b = &cx.builder;
        let i32t = cx.ctx.i32_type();
        let c = |x: u64| i32t.const_int(x, false);
        let lane = self.id(cx, IdKind::SubgroupLane, Dim::X)?;
        let row = b.build_and(lane, c(15), "")?;
        let col = b.build_left_shift(b.build_right_shift(lane, c(4), false, "")?, c(3), "")?;
        let index = b.build_int_add(b.build_int_mul(row, stride, "")?, col, "")?;
        let bytes = b.build_int_mul(index, c(2), "")?;
        let bytes = b.build_int_z_extend(bytes, cx.ctx.i64_type(), "")?;
        // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
        let p = unsafe { b.build_gep(cx.ctx.i8_type(), base, &[bytes], "")? };
        let r = cx.call_intrinsic(name, &[p.get_type().into()], &[p.into()])?;
        let v = cx.insert_fields(i32t.vec_type(4).get_undef(), r.into_struct_value(), 0)?;
        let v = b.build_bit_cast(v, cx.ctx.i16_type().vec_type(8), "")?;
        Ok(Some(v.into_vector_value()))
    }

    fn has_aligned_wide_bf16_store(&self) -> bool {
        true
    }

    /// Lane `4 g + t` holds, for rows `g` and `g + 8` of the 16 x 128 slab, columns `2t, 2t + 1`
    /// of each of the 16 blocks of 8 columns: a store of the layout's runs writes 4 bytes a
    /// lane, half a 32-byte sector of each of 8 rows. Here each quad exchanges its pieces of
    /// four blocks at a time (in round `r`, lane `t` sends its piece of block `t ^ r` to lane
    /// `t ^ r`), so that lane `t` holds all 8 columns of block `4s + t`: one 16-byte store a
    /// lane, 64 contiguous bytes of each of 8 rows.
    fn emit_aligned_wide_bf16_store<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        base: PointerValue<'ctx>,
        stride: IntValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<(), Fail> {
        let b = &cx.builder;
        let i32t = cx.ctx.i32_type();
        let c = |x: u64| i32t.const_int(x, false);
        let words = b
            .build_bit_cast(acc, i32t.vec_type(acc.get_type().get_size() / 2), "")?
            .into_vector_value();
        // Piece `j` (columns 16j..) holds runs (g, 2t), (g + 8, 2t), (g, 8 + 2t), (g + 8, 8 + 2t):
        // row half `h`'s piece of block `k` is word 4 (k / 2) + 2 (k % 2) + h.
        let word = |h: u64, block: u64| {
            b.build_extract_element(words, c(4 * (block / 2) + 2 * (block % 2) + h), "")
        };
        let lane = self.id(cx, IdKind::SubgroupLane, Dim::X)?;
        let g = b.build_right_shift(lane, c(2), false, "")?;
        let t = b.build_and(lane, c(3), "")?;
        let pick = |of: &[IntValue<'ctx>; 4], i: IntValue<'ctx>| -> Result<IntValue<'ctx>, Fail> {
            let mut v = of[3];
            for k in (0..3).rev() {
                let is = b.build_int_compare(IntPredicate::EQ, i, c(k as u64), "")?;
                v = b.build_select(is, of[k], v, "")?.into_int_value();
            }
            Ok(v)
        };
        for h in 0..2 {
            let row = b.build_int_add(g, c(8 * h), "")?;
            let row_at = b.build_int_mul(row, stride, "")?;
            for set in 0..4 {
                let mut mine = [c(0); 4];
                for (k, w) in mine.iter_mut().enumerate() {
                    *w = word(h, 4 * set + k as u64)?.into_int_value();
                }
                let mut out = mine;
                for r in 1..4 {
                    let partner = b.build_xor(t, c(r), "")?;
                    let send = pick(&mine, partner)?;
                    let args = [
                        i32t.const_all_ones().into(),
                        send.into(),
                        c(r).into(),
                        c(31).into(),
                    ];
                    let got = cx
                        .call_intrinsic("llvm.nvvm.shfl.sync.bfly.i32", &[], &args)?
                        .into_int_value();
                    for (k, slot) in out.iter_mut().enumerate() {
                        let is = b.build_int_compare(IntPredicate::EQ, partner, c(k as u64), "")?;
                        *slot = b.build_select(is, got, *slot, "")?.into_int_value();
                    }
                }
                let mut chunk = i32t.vec_type(4).get_undef();
                for (k, w) in out.iter().enumerate() {
                    chunk = b.build_insert_element(chunk, *w, c(k as u64), "")?;
                }
                // Block `4 set + t`: columns 32 set + 8 t .. + 8.
                let col = b.build_int_add(b.build_left_shift(t, c(3), "")?, c(32 * set), "")?;
                let index = b.build_int_add(row_at, col, "")?;
                let bytes = b.build_int_mul(index, c(2), "")?;
                let bytes = b.build_int_z_extend(bytes, cx.ctx.i64_type(), "")?;
                // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
                let p = unsafe { b.build_gep(cx.ctx.i8_type(), base, &[bytes], "")? };
                cx.store(p, chunk, 16)?;
            }
        }
        Ok(())
    }

    fn emit_mma<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        a: VectorValue<'ctx>,
        b: VectorValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        // Two m16n8k16 halves: the same A, B registers 0-1 / 2-3, C elements 0-3 / 4-7.
        let bld = &cx.builder;
        let i32t = cx.ctx.i32_type();
        let idx = |i: u64| i32t.const_int(i, false);
        let regs = |v: VectorValue<'ctx>| -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
            let v = bld
                .build_bit_cast(v, i32t.vec_type(4), "")?
                .into_vector_value();
            (0..4)
                .map(|i| Ok(bld.build_extract_element(v, idx(i), "")?))
                .collect()
        };
        let (ra, rb) = (regs(a)?, regs(b)?);
        let mut d = acc.get_type().get_undef();
        for half in 0..2u64 {
            let mut args: Vec<BasicMetadataValueEnum> = ra.iter().map(|r| (*r).into()).collect();
            args.push(rb[2 * half as usize].into());
            args.push(rb[2 * half as usize + 1].into());
            for i in 0..4 {
                args.push(
                    bld.build_extract_element(acc, idx(4 * half + i), "")?
                        .into(),
                );
            }
            let r = cx.call_intrinsic("llvm.nvvm.mma.m16n8k16.row.col.bf16", &[], &args)?;
            d = cx.insert_fields(d, r.into_struct_value(), 4 * half as u32)?;
        }
        Ok(d)
    }

    /// Four `wgmma.mma_async` m64n128k16 (one per 16-deep step), A and B from shared memory
    /// through descriptors of their 128-byte-swizzled layouts, committed as one group: the
    /// four subgroups of the group are the warpgroup. With `wait` the same asm waits for the
    /// group (`mma.group`); without, the registers stay the tensor cores' until an
    /// `mma.wait` (`mma.group.async`).
    fn emit_mma_group<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        a: PointerValue<'ctx>,
        b: PointerValue<'ctx>,
        acc: VectorValue<'ctx>,
        layout: MmaLayout,
        wait: bool,
    ) -> Result<Option<VectorValue<'ctx>>, Fail> {
        let bld = &cx.builder;
        let (i32t, i64t) = (cx.ctx.i32_type(), cx.ctx.i64_type());
        let n = acc.get_type().get_size();
        // Descriptor: start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29),
        // stride byte offset >> 4 (32-45), swizzle mode 1 = 128 bytes (62-63). Built as
        // its low word, where a step's offset goes (it stays below bit 16), and a constant
        // high word: in 64-bit math every step's descriptor took a carry and two moves to
        // uniform registers.
        let low = |p: PointerValue<'ctx>, lbo: u64| -> Result<IntValue<'ctx>, Fail> {
            let addr = bld.build_ptr_to_int(p, i32t, "")?;
            let addr = bld.build_and(addr, i32t.const_int(0x3ffff, false), "")?;
            let start = bld.build_right_shift(addr, i32t.const_int(4, false), false, "")?;
            Ok(bld.build_or(start, i32t.const_int((lbo >> 4) << 16, false), "")?)
        };
        // Either major: 8-row atoms 1024 bytes apart (the stride byte offset).
        let high = i64t.const_int(((1024 >> 4) | (1 << 30)) << 32, false);
        let (a_major, b_major) = (
            Major::of(layout.a == ATile::MK),
            Major::of(layout.b == BTile::NK),
        );
        let (da, db) = (a_major.desc(&low, a)?, b_major.desc(&low, b)?);
        let mut args = vector_elements(cx, &[acc])?;
        let steps = kosmos_ir::GROUP_K / 16;
        for k in 0..steps as u64 {
            for (d, major) in [(da, a_major), (db, b_major)] {
                // Descriptor addresses count 16-byte units.
                let step = i32t.const_int((k * major.step_bytes()) >> 4, false);
                let lo = bld.build_int_nuw_add(d, step, "")?;
                let lo = bld.build_int_z_extend(lo, i64t, "")?;
                args.push(bld.build_or(lo, high, "")?.into());
            }
        }
        args.push(cx.ctx.i32_type().const_int(1, false).into());
        let regs = |from: u32| -> String {
            let list: Vec<String> = (from..from + n).map(|i| format!("${i}")).collect();
            format!("{{{}}}", list.join(", "))
        };
        // `p` (scale-d) true: accumulate into the registers.
        let mut asm = format!(
            "{{\n.reg .pred p;\nsetp.ne.b32 p, ${}, 0;\nwgmma.fence.sync.aligned;\n",
            2 * n + 2 * steps
        );
        for k in 0..steps {
            asm += &format!(
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {}, ${}, ${}, p, 1, 1, {}, {};\n",
                regs(0),
                2 * n + 2 * k,
                2 * n + 2 * k + 1,
                a_major.transpose(),
                b_major.transpose(),
            );
        }
        asm += "wgmma.commit_group.sync.aligned;\n";
        if wait {
            asm += &wait_group(0);
            asm += "\n";
        }
        asm += "}";
        let mut constraints = tied_f32_constraints(n);
        constraints.extend((0..2 * steps).map(|_| "l".to_string()));
        constraints.push("r".into());
        constraints.push("~{memory}".into());
        let r = f32_asm(cx, &asm, &constraints, n, &args)?;
        Ok(Some(cx.insert_fields(acc.get_type().get_undef(), r, 0)?))
    }

    fn dynamic_shared(&self) -> bool {
        // CUDA caps static shared memory at 48 KiB; the dynamic array may be larger.
        true
    }
}

/// A pointer operand of inline PTX: its address in its state space (64 bits; shared
/// addresses are offsets in the shared window).
fn addr<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    ptr: BasicValueEnum<'ctx>,
) -> Result<BasicValueEnum<'ctx>, Fail> {
    let i64t = cx.ctx.i64_type();
    Ok(cx
        .builder
        .build_ptr_to_int(ptr.into_pointer_value(), i64t, "")?
        .into())
}

impl Nvptx {
    fn id<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        kind: IdKind,
        dim: Dim,
    ) -> Result<IntValue<'ctx>, Fail> {
        let reg = match kind {
            IdKind::WorkitemId => "tid",
            IdKind::WorkgroupId => "ctaid",
            IdKind::WorkgroupSize => "ntid",
            IdKind::NumWorkgroups => "nctaid",
            IdKind::SubgroupSize | IdKind::SubgroupId | IdKind::SubgroupLane => {
                return subgroup_id(self.subgroup_size(), cx, kind, |k, d| self.id(cx, k, d));
            }
        };
        cx.call_int_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{reg}.{}", dim.name()))
    }
}

/// Which dimension of a `wgmma` operand tile is contiguous in shared memory.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Major {
    /// Rows of 128 bytes along k (`A` stored `mk`, `B` stored `nk`).
    K,
    /// Rows of 128 bytes along m or n, 64-column blocks after one another (`A` stored `km`,
    /// `B` stored `kn`).
    MN,
}

impl Major {
    fn of(k_major: bool) -> Major {
        if k_major { Major::K } else { Major::MN }
    }

    /// The low word of the descriptor of the tile at `p`, made by `low(p, leading byte
    /// offset)`. K-major: the leading offset unused inside one swizzle atom. MN-major:
    /// 64-column blocks 8192 bytes apart.
    fn desc<'ctx>(
        self,
        low: &dyn Fn(PointerValue<'ctx>, u64) -> Result<IntValue<'ctx>, Fail>,
        p: PointerValue<'ctx>,
    ) -> Result<IntValue<'ctx>, Fail> {
        match self {
            Major::K => low(p, 16),
            Major::MN => low(p, 8192),
        }
    }

    /// Bytes a 16-deep step moves the tile's start: 32 along a K-major row, 16 rows of an
    /// MN-major tile.
    fn step_bytes(self) -> u64 {
        match self {
            Major::K => 32,
            Major::MN => 2048,
        }
    }

    /// The operand's `imm-trans` of `wgmma`: 0 for K-major, 1 for MN-major.
    fn transpose(self) -> u32 {
        match self {
            Major::K => 0,
            Major::MN => 1,
        }
    }
}

/// The PTX line that waits until at most `pending` wgmma groups are in flight.
fn wait_group(pending: u32) -> String {
    format!("wgmma.wait_group.sync.aligned {pending};")
}

/// `mma.wait`: `wgmma.wait_group` with every accumulator register in flight as a tied
/// in-out operand (as Triton's dot-wait does). Outside the asm LLVM sees the registers
/// defined by the wgmma and then by this wait, so it reads, copies or spills only the
/// values after the wait; without the ties it could move a read of an accumulator above
/// the wait, where the tensor cores still write it.
fn mma_wait<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    pending: u32,
    accs: &[VectorValue<'ctx>],
) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
    let args = vector_elements(cx, accs)?;
    let n = args.len() as u32;
    let mut constraints = tied_f32_constraints(n);
    constraints.push("~{memory}".into());
    let r = f32_asm(cx, &wait_group(pending), &constraints, n, &args)?;
    let mut at = 0;
    accs.iter()
        .map(|acc| {
            let v = cx.insert_fields(acc.get_type().get_undef(), r, at)?;
            at += acc.get_type().get_size();
            Ok(v.into())
        })
        .collect()
}

/// The elements of `vectors`, in order: the registers an asm takes.
fn vector_elements<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    vectors: &[VectorValue<'ctx>],
) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
    let i32t = cx.ctx.i32_type();
    let mut out = Vec::new();
    for v in vectors {
        for i in 0..v.get_type().get_size() {
            out.push(
                cx.builder
                    .build_extract_element(*v, i32t.const_int(i as u64, false), "")?,
            );
        }
    }
    Ok(out)
}

/// `n` f32 outputs `$0 .. $n`, each tied to the input of the same number (`$n ..`).
fn tied_f32_constraints(n: u32) -> Vec<String> {
    let mut constraints: Vec<String> = (0..n).map(|_| "=f".to_string()).collect();
    constraints.extend((0..n).map(|i| i.to_string()));
    constraints
}

/// An asm with `n` f32 results (a struct of them, `$0 .. $n`).
fn f32_asm<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    asm: &str,
    constraints: &[String],
    n: u32,
    args: &[BasicValueEnum<'ctx>],
) -> Result<StructValue<'ctx>, Fail> {
    let f32t = cx.ctx.f32_type();
    let out_ty = cx.ctx.struct_type(&vec![f32t.into(); n as usize], false);
    let r = cx.inline_asm(Some(out_ty.into()), asm, &constraints.join(","), args)?;
    Ok(call_result(r).into_struct_value())
}
