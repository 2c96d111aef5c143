//! AMD Instinct GPUs (CDNA3 gfx942, CDNA4 gfx950): code object v5 (ROCm 6 loaders), linked
//! into an HSACO by `ld.lld -shared`.

use super::{FragLayout, Target, amdgpu_async, amdgpu_staged, lane_term, run, subgroup_id};
use crate::llvm::{Fail, FnBuilder, int_type};
use inkwell::AddressSpace;
use inkwell::FloatPredicate;
use inkwell::module::{FlagBehavior, Module};
use inkwell::values::{BasicValueEnum, FloatValue, IntValue, VectorValue};
use kosmos_ir::{AddrSpace, Dim, FragRole, IdKind, Op, Ordering, Scope};

pub(crate) struct Amdgpu {
    cpu: &'static str,
}

impl Amdgpu {
    /// The target for the processor `cpu` (`gfx942`, `gfx950`).
    pub fn new(cpu: &'static str) -> Amdgpu {
        Amdgpu { cpu }
    }

    fn id<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        kind: IdKind,
        dim: Dim,
    ) -> Result<IntValue<'ctx>, Fail> {
        let d = dim.name();
        match kind {
            IdKind::WorkitemId => cx.call_int_intrinsic(&format!("llvm.amdgcn.workitem.id.{d}")),
            IdKind::WorkgroupId => cx.call_int_intrinsic(&format!("llvm.amdgcn.workgroup.id.{d}")),
            IdKind::WorkgroupSize => workgroup_size(cx, dim),
            IdKind::NumWorkgroups => {
                // The packet holds the grid size in work-items: round up to whole workgroups.
                let grid = packet_field(cx, PACKET_GRID_SIZE_X + 4 * dim.index() as u64, 4)?;
                let size = workgroup_size(cx, dim)?;
                let one = cx.ctx.i32_type().const_int(1, false);
                let b = &cx.builder;
                let sum = b.build_int_add(grid, size, "")?;
                let sum = b.build_int_sub(sum, one, "")?;
                Ok(b.build_int_unsigned_div(sum, size, "num_workgroups")?)
            }
            IdKind::SubgroupSize | IdKind::SubgroupId | IdKind::SubgroupLane => {
                subgroup_id(self.subgroup_size(), cx, kind, |k, d| self.id(cx, k, d))
            }
        }
    }
}

/// AMDGPU's kernel calling convention (`amdgpu_kernel`).
const AMDGPU_KERNEL_CC: u32 = 91;

/// Field offsets in the HSA kernel dispatch packet (`hsa_kernel_dispatch_packet_t`).
const PACKET_WORKGROUP_SIZE_X: u64 = 4;
const PACKET_GRID_SIZE_X: u64 = 12;

// `v_mfma_f32_16x16x16_bf16` (wave64), per the CDNA3 ISA's matrix layouts: lane l holds
// A[l % 16][4 * (l / 16) + i], B[4 * (l / 16) + i][l % 16] and D[4 * (l / 16) + i][l % 16]
// for i in 0..4.
const MFMA_A: FragLayout = FragLayout {
    row: lane_term(0, 15, 1),
    col: lane_term(4, 3, 4),
    runs: &[run(0, 0, 4)],
};
const MFMA_B_ACC: FragLayout = FragLayout {
    row: lane_term(4, 3, 4),
    col: lane_term(0, 15, 1),
    runs: &[run(0, 0, 1), run(1, 0, 1), run(2, 0, 1), run(3, 0, 1)],
};

// `v_mfma_f32_16x16x32_bf16` (wave64, gfx950): lane l holds A[l % 16][8 (l / 16) + i] and
// B[8 (l / 16) + i][l % 16] for i in 0..8; D as above.
const MFMA_DEEP_A: FragLayout = FragLayout {
    row: lane_term(0, 15, 1),
    col: lane_term(4, 3, 8),
    runs: &[run(0, 0, 8)],
};
const MFMA_DEEP_B: FragLayout = FragLayout {
    row: lane_term(4, 3, 8),
    col: lane_term(0, 15, 1),
    runs: &[
        run(0, 0, 1),
        run(1, 0, 1),
        run(2, 0, 1),
        run(3, 0, 1),
        run(4, 0, 1),
        run(5, 0, 1),
        run(6, 0, 1),
        run(7, 0, 1),
    ],
};

impl Target for Amdgpu {
    fn triple(&self) -> &'static str {
        "amdgcn-amd-amdhsa"
    }

    fn cpu(&self) -> &'static str {
        self.cpu
    }

    fn features(&self) -> &'static str {
        ""
    }

    fn addr_space(&self, space: AddrSpace) -> AddressSpace {
        match space {
            AddrSpace::Global => AddressSpace::from(1u16),
            AddrSpace::Shared => AddressSpace::from(3u16),
            AddrSpace::Constant => AddressSpace::from(4u16),
        }
    }

    fn sync_scope(&self, scope: Scope) -> &'static str {
        match scope {
            Scope::Workgroup => "workgroup",
            Scope::Agent => "agent",
            Scope::System => "",
        }
    }

    fn configure_module(&self, module: &Module<'_>) {
        let i32t = module.get_context().i32_type();
        module.add_basic_value_flag(
            "amdhsa_code_object_version",
            FlagBehavior::Error,
            i32t.const_int(500, false),
        );
    }

    fn configure_kernel(&self, cx: &FnBuilder<'_, '_>) {
        cx.function.set_call_conventions(AMDGPU_KERNEL_CC);
        // `min_resident` stays NVIDIA's: `amdgpu-waves-per-eu` would cap the registers and
        // spill the fragment-by-fragment `mma.group` (CDNA's occupancy follows from the
        // registers the kernel needs).
        let bound = format!("1,{}", cx.kernel.workgroup_bound(self.subgroup_size()));
        cx.add_fn_attr("amdgpu-flat-work-group-size", &bound);
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
            Op::Barrier | Op::SubgroupBarrier => {
                // s_barrier alone orders no memory, and a wavefront runs in lockstep (the wave
                // barrier only keeps the compiler from moving accesses across): fence the
                // workgroup's accesses around either.
                let meet = match op {
                    Op::Barrier => "llvm.amdgcn.s.barrier",
                    _ => "llvm.amdgcn.wave.barrier",
                };
                let workgroup = self.sync_scope(Scope::Workgroup);
                cx.fence(Ordering::Release, workgroup)?;
                cx.call_void_intrinsic(meet, &[])?;
                cx.fence(Ordering::Acquire, workgroup)?;
                Ok(vec![])
            }
            Op::Shuffle { .. } => {
                // ds_bpermute takes a byte address and reads lane (address / 4) % 64.
                let moved = cx.with_i32_bits(args[0], |value| {
                    let four = i32t.const_int(4, false);
                    let address = cx
                        .builder
                        .build_int_mul(args[1].into_int_value(), four, "")?;
                    let args = [address.into(), value.into()];
                    cx.call_intrinsic("llvm.amdgcn.ds.bpermute", &[], &args)
                })?;
                Ok(vec![moved])
            }
            // v_exp_f32, without the scaling that keeps denormal results.
            Op::Exp2Approx { .. } => Ok(vec![cx.call_intrinsic(
                "llvm.amdgcn.exp2",
                &[cx.ctx.f32_type().into()],
                &[args[0].into()],
            )?]),
            Op::RcpApprox { .. } => Ok(vec![cx.call_intrinsic(
                "llvm.amdgcn.rcp",
                &[cx.ctx.f32_type().into()],
                &[args[0].into()],
            )?]),
            Op::TanhApprox { .. } => Ok(vec![tanh_approx(cx, args[0].into_float_value())?.into()]),
            Op::Clock => {
                // s_memrealtime counts a constant 100 MHz clock shared by the device.
                let ticks = cx.call_int_intrinsic("llvm.amdgcn.s.memrealtime")?;
                let ten = cx.ctx.i64_type().const_int(10, false);
                Ok(vec![
                    cx.builder.build_int_mul(ticks, ten, "clock_ns")?.into(),
                ])
            }
            Op::Sleep { nanos } => {
                // s_sleep N waits about 64 * N cycles; at ~2 GHz that is ~32 ns per unit
                // (1..=127).
                let units = (nanos / 32).clamp(1, 127);
                let imm = i32t.const_int(units as u64, false);
                cx.call_void_intrinsic("llvm.amdgcn.s.sleep", &[imm.into()])?;
                Ok(vec![])
            }
            // A load into registers, stored to LDS at the next `async.wait` (`amdgpu_staged`).
            Op::CopyAsync { .. } => {
                let [dst, src] = [args[0], args[1]].map(|p| p.into_pointer_value());
                amdgpu_staged::copy(cx, dst, src, args[2].into_int_value())?;
                Ok(vec![])
            }
            // Groups are not tracked: every wait stores all staged copies (earlier than asked
            // is allowed).
            Op::AsyncCommit => Ok(vec![]),
            Op::AsyncWait { .. } => {
                amdgpu_staged::wait(cx)?;
                Ok(vec![])
            }
            Op::MbarInit { .. } => {
                let [bar, count] = [args[0], args[1]];
                amdgpu_async::init(cx, bar.into_pointer_value(), count.into_int_value())?;
                Ok(vec![])
            }
            Op::MbarArrive { .. } | Op::MbarArriveExpect { .. } => {
                let i64t = cx.ctx.i64_type();
                let bytes = match args.get(1) {
                    Some(b) => cx
                        .builder
                        .build_int_z_extend(b.into_int_value(), i64t, "")?,
                    None => i64t.const_zero(),
                };
                let arrival = i64t.const_int(kosmos_ir::async_copy::mbar::ARRIVAL, false);
                let delta = cx.builder.build_int_sub(bytes, arrival, "")?;
                amdgpu_async::add(cx, args[0].into_pointer_value(), delta)?;
                Ok(vec![])
            }
            Op::MbarTryWait { .. } => {
                let [bar, parity] = [args[0], args[1]];
                let done =
                    amdgpu_async::try_wait(cx, bar.into_pointer_value(), parity.into_int_value())?;
                Ok(vec![done.into()])
            }
            Op::CopyTensor { .. } => {
                let lane = self.id(cx, IdKind::SubgroupLane, Dim::X)?;
                let operands = [args[0], args[1], args[2], args[3], args[4]];
                amdgpu_async::copy_tensor(cx, operands, lane)?;
                Ok(vec![])
            }
            Op::CopyTensorStore { .. } => {
                let lane = self.id(cx, IdKind::SubgroupLane, Dim::X)?;
                amdgpu_async::store_tensor(cx, [args[0], args[1], args[2], args[3]], lane)?;
                Ok(vec![])
            }
            // The lanes' stores used what they read: nothing is left in flight to wait for
            // (a release publishes the writes, as any store's).
            Op::CopyTensorWaitRead { .. } | Op::CopyTensorWait { .. } => Ok(vec![]),
            // One memory, one proxy: LDS written by stores is what the copies and MFMAs see.
            Op::FenceProxyAsync | Op::FenceProxyAsyncShared => Ok(vec![]),
            // `mma.group.async` is `mma.group` here (MFMAs whose results the hardware
            // interlocks): nothing is in flight to wait for.
            Op::MmaWait { .. } => Ok(args.to_vec()),
            // The register file is split among waves at launch; there is nothing to move.
            Op::RegsSet { .. } => Ok(vec![]),
            op => Err(Fail::no_rule(self.cpu, op)),
        }
    }

    fn links_object(&self) -> bool {
        true
    }

    fn subgroup_size(&self) -> u32 {
        // gfx9 runs wave64 (LLVM's default for these targets).
        64
    }

    fn frag_layout(&self, role: FragRole) -> FragLayout {
        match role {
            FragRole::A => MFMA_A,
            // A `frag<wacc>` is `frag<acc>` pieces side by side: the layout is per piece.
            FragRole::B | FragRole::Acc | FragRole::WideAcc => MFMA_B_ACC,
        }
    }

    fn emit_mma<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        a: VectorValue<'ctx>,
        b: VectorValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        // `.1k` takes bf16 bits as <4 x i16>.
        mfma(
            cx,
            "llvm.amdgcn.mfma.f32.16x16x16bf16.1k",
            a.into(),
            b.into(),
            acc,
        )
    }

    fn deep_frag_layouts(&self) -> Option<[FragLayout; 2]> {
        (self.cpu == "gfx950").then_some([MFMA_DEEP_A, MFMA_DEEP_B])
    }

    /// `v_mfma_f32_16x16x32_bf16`. The 32 x 32 x 16 instruction costs the same matrix cycles
    /// per product but reads and writes 16 accumulator registers a lane at a time, and would
    /// not keep the 16 x 16 accumulator layout.
    fn emit_deep_mma<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        a: VectorValue<'ctx>,
        b: VectorValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        let bf16x8 = cx.ctx.bf16_type().vec_type(8);
        let a = cx.builder.build_bit_cast(a, bf16x8, "")?;
        let b = cx.builder.build_bit_cast(b, bf16x8, "")?;
        mfma(cx, "llvm.amdgcn.mfma.f32.16x16x32.bf16", a, b, acc)
    }
}

/// `acc + a x b` by the MFMA intrinsic `name`, with cbsz, abid and blgp 0: no broadcast or
/// swizzle of the operands.
fn mfma<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    name: &str,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
    acc: VectorValue<'ctx>,
) -> Result<VectorValue<'ctx>, Fail> {
    let zero = cx.ctx.i32_type().const_zero();
    let args = [
        a.into(),
        b.into(),
        acc.into(),
        zero.into(),
        zero.into(),
        zero.into(),
    ];
    Ok(cx.call_intrinsic(name, &[], &args)?.into_vector_value())
}

/// `dim`'s workgroup size, from the dispatch packet.
fn workgroup_size<'ctx>(cx: &FnBuilder<'_, 'ctx>, dim: Dim) -> Result<IntValue<'ctx>, Fail> {
    let size = packet_field(cx, PACKET_WORKGROUP_SIZE_X + 2 * dim.index() as u64, 2)?;
    Ok(cx
        .builder
        .build_int_z_extend(size, cx.ctx.i32_type(), "workgroup_size")?)
}

/// Loads an integer field of `bytes` bytes at `offset` in the dispatch packet.
fn packet_field<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    offset: u64,
    bytes: u32,
) -> Result<IntValue<'ctx>, Fail> {
    let packet = cx
        .call_intrinsic("llvm.amdgcn.dispatch.ptr", &[], &[])?
        .into_pointer_value();
    let i8t = cx.ctx.i8_type();
    let offset = cx.ctx.i64_type().const_int(offset, false);
    // SAFETY: the offset lies inside the 64-byte dispatch packet.
    let field = unsafe { cx.builder.build_gep(i8t, packet, &[offset], "")? };
    let load = cx.load(int_type(cx.ctx, bytes * 8), field, bytes)?;
    Ok(load.into_int_value())
}

/// `tanh x` for an `f32` from the fast instructions (CDNA has no tanh):
/// `sign(x) (1 - t) / (1 + t)` with `t = 2^(-2|x| log2 e)` by `v_exp_f32` and the division by
/// `v_rcp_f32`, each within about an ulp; `1 - t` keeps about 11 bits relative down to
/// `|x| = 2^-12`, below which `x` itself is within `2^-24` of `tanh x`.
fn tanh_approx<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    x: FloatValue<'ctx>,
) -> Result<FloatValue<'ctx>, Fail> {
    let f32t = cx.ctx.f32_type();
    let b = &cx.builder;
    let float = |v: BasicValueEnum<'ctx>| v.into_float_value();
    let ax = float(cx.call_intrinsic("llvm.fabs", &[f32t.into()], &[x.into()])?);
    let scale = f32t.const_float(-2.0 * std::f64::consts::LOG2_E);
    let power = b.build_float_mul(ax, scale, "")?;
    let t = float(cx.call_intrinsic("llvm.amdgcn.exp2", &[f32t.into()], &[power.into()])?);
    let one = f32t.const_float(1.0);
    let num = b.build_float_sub(one, t, "")?;
    let den = b.build_float_add(one, t, "")?;
    let inv = float(cx.call_intrinsic("llvm.amdgcn.rcp", &[f32t.into()], &[den.into()])?);
    let quotient = b.build_float_mul(num, inv, "")?;
    let small = f32t.const_float(1.0 / 4096.0);
    let tiny = b.build_float_compare(FloatPredicate::OLT, ax, small, "")?;
    let magnitude = float(b.build_select(tiny, ax, quotient, "")?);
    let signed = cx.call_intrinsic(
        "llvm.copysign",
        &[f32t.into()],
        &[magnitude.into(), x.into()],
    )?;
    Ok(float(signed))
}
