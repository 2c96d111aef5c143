//! What differs between GPU targets. The lowering in `lower.rs` is written once against
//! [`Target`]; each target only answers the questions below.

use crate::lower::{Cx, Fail, FragLayout, LaneTerm, Run};
use inkwell::AddressSpace;
use inkwell::module::{FlagBehavior, Module};
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, PointerValue, VectorValue};
use kosmos_ir::{AddrSpace, Dim, FragRole, IdKind, Kernel, Ordering, RmwOp, ScalarType, Scope};
use std::fmt;
use std::str::FromStr;

/// The GPU targets KOSMOS compiles for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// AMD Instinct MI300 (CDNA3).
    Gfx942,
    /// AMD Instinct MI350 (CDNA4).
    Gfx950,
    /// NVIDIA Hopper with architecture-specific features (H100/H200).
    Sm90a,
}

impl TargetKind {
    pub const ALL: [TargetKind; 3] = [TargetKind::Gfx942, TargetKind::Gfx950, TargetKind::Sm90a];

    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Gfx942 => "gfx942",
            TargetKind::Gfx950 => "gfx950",
            TargetKind::Sm90a => "sm_90a",
        }
    }

    pub fn is_amdgpu(self) -> bool {
        matches!(self, TargetKind::Gfx942 | TargetKind::Gfx950)
    }

    pub(crate) fn target(self) -> Box<dyn Target> {
        match self {
            TargetKind::Gfx942 | TargetKind::Gfx950 => Box::new(Amdgpu { cpu: self.name() }),
            TargetKind::Sm90a => Box::new(Nvptx),
        }
    }
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A target name that is not one of [`TargetKind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown target `{0}` (expected gfx942, gfx950 or sm_90a)")]
pub struct UnknownTarget(pub String);

impl FromStr for TargetKind {
    type Err = UnknownTarget;

    fn from_str(s: &str) -> Result<TargetKind, UnknownTarget> {
        TargetKind::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| UnknownTarget(s.to_string()))
    }
}

/// The target-specific parts of the lowering.
pub(crate) trait Target {
    fn triple(&self) -> &'static str;
    fn cpu(&self) -> &'static str;
    fn features(&self) -> &'static str;
    fn addr_space(&self, space: AddrSpace) -> AddressSpace;
    /// The LLVM `syncscope` name of `scope`.
    fn sync_scope(&self, scope: Scope) -> &'static str;
    /// Module-level settings (flags) added before lowering.
    fn configure_module(&self, module: &Module<'_>);
    /// Calling convention and launch-bound attributes of a kernel entry point.
    fn configure_kernel(&self, cx: &Cx<'_, '_>, function: FunctionValue<'_>, kernel: &Kernel);
    fn emit_id<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        kind: IdKind,
        dim: Dim,
    ) -> Result<IntValue<'ctx>, Fail>;
    /// A workgroup barrier that also orders the workgroup's memory operations around it.
    fn emit_barrier(&self, cx: &Cx<'_, '_>) -> Result<(), Fail>;
    /// A device-wide timestamp in nanoseconds (i64).
    fn emit_clock<'ctx>(&self, cx: &Cx<'_, 'ctx>) -> Result<IntValue<'ctx>, Fail>;
    /// Pauses the work-item for about `nanos` nanoseconds.
    fn emit_sleep(&self, cx: &Cx<'_, '_>, nanos: u32) -> Result<(), Fail>;
    /// An atomic read-modify-write returning the old value. The default is LLVM's `atomicrmw`.
    fn emit_atomic_rmw<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        rmw: AtomicRmw<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        cx.llvm_atomic_rmw(rmw)
    }
    /// The f32 `log2` intrinsic (LLVM's generic one needs a libcall on some targets).
    fn log2_intrinsic(&self) -> &'static str {
        "llvm.log2"
    }
    /// Whether the target's binary is an ELF code object linked by `ld.lld` (else PTX text).
    fn links_object(&self) -> bool;
    /// Lanes per subgroup: the warp or wavefront the matrix instructions span.
    fn subgroup_size(&self) -> u32;
    /// Which tile elements a lane holds in a fragment (what the `mma` instruction expects).
    fn frag_layout(&self, role: FragRole) -> FragLayout;
    /// A `frag<a>`/`frag<b>` load from shared memory (row-major tile at `base`, row stride
    /// `stride` elements) with a matrix-load instruction, giving the [`Target::frag_layout`]
    /// vector; `None` (the default) lowers it as per-lane loads of the layout's runs.
    fn emit_shared_frag_load<'ctx>(
        &self,
        _cx: &Cx<'_, 'ctx>,
        _role: FragRole,
        _base: PointerValue<'ctx>,
        _stride: IntValue<'ctx>,
    ) -> Result<Option<VectorValue<'ctx>>, Fail> {
        Ok(None)
    }
    /// `acc + a x b` on fragments laid out by [`Target::frag_layout`].
    fn emit_mma<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        a: VectorValue<'ctx>,
        b: VectorValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail>;
    /// `mma.group` on a `frag<wacc>` (pieces of `frag<acc>`); the default gathers 16x16
    /// fragments from the swizzled tiles and runs [`Target::emit_mma`] on them.
    fn emit_mma_group<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        a: PointerValue<'ctx>,
        b: PointerValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        cx.mma_group_by_fragments(a, b, acc)
    }
    /// `copy.async`; the default is a plain load (when `pred`) and store, complete at once.
    fn emit_copy_async<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        dst: PointerValue<'ctx>,
        src: PointerValue<'ctx>,
        pred: IntValue<'ctx>,
    ) -> Result<(), Fail> {
        cx.copy_by_load_store(dst, src, pred)
    }
    /// `async.commit`: nothing to do where copies complete at once.
    fn emit_async_commit(&self, _cx: &Cx<'_, '_>) -> Result<(), Fail> {
        Ok(())
    }
    /// `async.wait`: nothing to do where copies complete at once.
    fn emit_async_wait(&self, _cx: &Cx<'_, '_>, _pending: u32) -> Result<(), Fail> {
        Ok(())
    }
    /// Whether a kernel's shared memory is one dynamically sized array (laid out by
    /// `Kernel::shared_layout`, its size given at launch) rather than static allocations.
    fn dynamic_shared(&self) -> bool {
        false
    }
}

const fn lane_term(shift: u32, mask: u32, scale: u32) -> LaneTerm {
    LaneTerm { shift, mask, scale }
}

const fn run(row: u32, col: u32, len: u32) -> Run {
    Run { row, col, len }
}

// AMD CDNA3/CDNA4 `v_mfma_f32_16x16x16_bf16` (wave64), per the CDNA3 ISA's matrix layouts:
// lane l holds A[l % 16][4 * (l / 16) + i], B[4 * (l / 16) + i][l % 16] and
// D[4 * (l / 16) + i][l % 16] for i in 0..4.
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

// NVIDIA `mma.m16n8k16` (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
// g = lane / 4 and t = lane % 4: A a0..a7 at rows g, g+8 and columns 2t, 2t+1, 2t+8, 2t+9
// (register i holds a[2i], a[2i+1]); B b0..b3 at rows (k) 2t, 2t+1, 2t+8, 2t+9 and
// column (n) g; C c0..c3 at rows g, g+8 and columns 2t, 2t+1. A 16x16 B or accumulator is
// two 16x8 halves: elements 0..4 for columns 0..8, 4..8 for columns 8..16.
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

/// Operands of an atomic read-modify-write, checked by the lowering.
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

/// AMD GPUs: code object v5 (ROCm 6 loaders), linked into an HSACO by `ld.lld -shared`.
pub(crate) struct Amdgpu {
    cpu: &'static str,
}

/// AMDGPU's kernel calling convention (`amdgpu_kernel`).
const AMDGPU_KERNEL_CC: u32 = 91;
/// NVPTX's kernel calling convention (`ptx_kernel`); annotations alone give a `.func`.
const PTX_KERNEL_CC: u32 = 71;

/// Field offsets in the HSA kernel dispatch packet (`hsa_kernel_dispatch_packet_t`).
const PACKET_WORKGROUP_SIZE_X: u64 = 4;
const PACKET_GRID_SIZE_X: u64 = 12;

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

    fn configure_kernel(&self, cx: &Cx<'_, '_>, function: FunctionValue<'_>, kernel: &Kernel) {
        function.set_call_conventions(AMDGPU_KERNEL_CC);
        // `min_resident` stays NVIDIA's: `amdgpu-waves-per-eu` would cap the registers and
        // spill the fragment-by-fragment `mma.group` (CDNA's occupancy follows from the
        // registers the kernel needs).
        let bound = format!("1,{}", kernel.workgroup_bound(self.subgroup_size()));
        cx.add_fn_attr(function, "amdgpu-flat-work-group-size", &bound);
    }

    fn emit_id<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        kind: IdKind,
        dim: Dim,
    ) -> Result<IntValue<'ctx>, Fail> {
        let d = dim.name();
        match kind {
            IdKind::WorkitemId => cx.call_int_intrinsic(&format!("llvm.amdgcn.workitem.id.{d}")),
            IdKind::WorkgroupId => cx.call_int_intrinsic(&format!("llvm.amdgcn.workgroup.id.{d}")),
            IdKind::WorkgroupSize => self.workgroup_size(cx, dim),
            IdKind::NumWorkgroups => {
                // The packet holds the grid size in work-items: round up to whole workgroups.
                let grid = self.packet_field(cx, PACKET_GRID_SIZE_X + 4 * dim.index() as u64, 4)?;
                let size = self.workgroup_size(cx, dim)?;
                let one = cx.ctx.i32_type().const_int(1, false);
                let b = &cx.builder;
                let sum = b.build_int_add(grid, size, "")?;
                let sum = b.build_int_sub(sum, one, "")?;
                Ok(b.build_int_unsigned_div(sum, size, "num_workgroups")?)
            }
            IdKind::SubgroupSize | IdKind::SubgroupId | IdKind::SubgroupLane => {
                cx.subgroup_id(self, kind)
            }
        }
    }

    fn emit_barrier(&self, cx: &Cx<'_, '_>) -> Result<(), Fail> {
        // s_barrier alone orders no memory: fence the workgroup's accesses around it.
        cx.fence(Ordering::Release, Scope::Workgroup)?;
        cx.call_void_intrinsic("llvm.amdgcn.s.barrier", &[])?;
        cx.fence(Ordering::Acquire, Scope::Workgroup)
    }

    fn emit_clock<'ctx>(&self, cx: &Cx<'_, 'ctx>) -> Result<IntValue<'ctx>, Fail> {
        // s_memrealtime counts a constant 100 MHz clock shared by the device.
        let ticks = cx.call_int_intrinsic("llvm.amdgcn.s.memrealtime")?;
        let ten = cx.ctx.i64_type().const_int(10, false);
        Ok(cx.builder.build_int_mul(ticks, ten, "clock_ns")?)
    }

    fn emit_sleep(&self, cx: &Cx<'_, '_>, nanos: u32) -> Result<(), Fail> {
        // s_sleep N waits about 64 * N cycles; at ~2 GHz that is ~32 ns per unit (1..=127).
        let units = (nanos / 32).clamp(1, 127);
        let imm = cx.ctx.i32_type().const_int(units as u64, false);
        cx.call_void_intrinsic("llvm.amdgcn.s.sleep", &[imm.into()])
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
        cx: &Cx<'_, 'ctx>,
        a: VectorValue<'ctx>,
        b: VectorValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        // `.1k` takes bf16 bits as <4 x i16>; cbsz, abid, blgp 0: no broadcast or swizzle.
        let zero = cx.ctx.i32_type().const_zero();
        let d = cx.call_intrinsic(
            "llvm.amdgcn.mfma.f32.16x16x16bf16.1k",
            &[],
            &[
                a.into(),
                b.into(),
                acc.into(),
                zero.into(),
                zero.into(),
                zero.into(),
            ],
        )?;
        match d {
            BasicValueEnum::VectorValue(d) => Ok(d),
            other => Err(Fail::Msg(format!("mfma returned {}", other.get_type()))),
        }
    }
}

impl Amdgpu {
    fn workgroup_size<'ctx>(&self, cx: &Cx<'_, 'ctx>, dim: Dim) -> Result<IntValue<'ctx>, Fail> {
        let size = self.packet_field(cx, PACKET_WORKGROUP_SIZE_X + 2 * dim.index() as u64, 2)?;
        Ok(cx
            .builder
            .build_int_z_extend(size, cx.ctx.i32_type(), "workgroup_size")?)
    }

    /// Loads an integer field of `bytes` bytes at `offset` in the dispatch packet.
    fn packet_field<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        offset: u64,
        bytes: u32,
    ) -> Result<IntValue<'ctx>, Fail> {
        let packet = cx.call_intrinsic("llvm.amdgcn.dispatch.ptr", &[], &[])?;
        let packet = cx.expect_ptr(packet)?;
        let i8t = cx.ctx.i8_type();
        let offset = cx.ctx.i64_type().const_int(offset, false);
        // SAFETY: the offset lies inside the 64-byte dispatch packet.
        let field = unsafe { cx.builder.build_gep(i8t, packet, &[offset], "")? };
        let ty = cx.int_type(bytes * 8)?;
        let load = cx.builder.build_load(ty, field, "")?;
        if let Some(inst) = inkwell::values::BasicValue::as_instruction_value(&load) {
            inst.set_alignment(bytes)
                .map_err(|e| Fail::Msg(e.to_string()))?;
        }
        cx.expect_int(load)
    }
}

/// NVIDIA GPUs through PTX (ISA 8.0: the oldest with sm_90a, accepted by CUDA 12 and 13).
pub(crate) struct Nvptx;

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
        // Never "agent": NVPTX aborts on scopes it does not know.
        match scope {
            Scope::Workgroup => "block",
            Scope::Agent => "device",
            Scope::System => "",
        }
    }

    fn configure_module(&self, _module: &Module<'_>) {}

    fn configure_kernel(&self, cx: &Cx<'_, '_>, function: FunctionValue<'_>, kernel: &Kernel) {
        function.set_call_conventions(PTX_KERNEL_CC);
        cx.add_fn_attr(
            function,
            "nvvm.maxntid",
            &kernel.workgroup_bound(self.subgroup_size()).to_string(),
        );
        if let Some(n) = kernel.min_resident {
            cx.add_fn_attr(function, "nvvm.minctasm", &n.to_string());
        }
    }

    fn emit_id<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        kind: IdKind,
        dim: Dim,
    ) -> Result<IntValue<'ctx>, Fail> {
        let reg = match kind {
            IdKind::WorkitemId => "tid",
            IdKind::WorkgroupId => "ctaid",
            IdKind::WorkgroupSize => "ntid",
            IdKind::NumWorkgroups => "nctaid",
            IdKind::SubgroupSize | IdKind::SubgroupId | IdKind::SubgroupLane => {
                return cx.subgroup_id(self, kind);
            }
        };
        cx.call_int_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{reg}.{}", dim.name()))
    }

    fn log2_intrinsic(&self) -> &'static str {
        // `llvm.log2.f32` finds no libcall on NVPTX and aborts; this is `lg2.approx.f32`,
        // the instruction CUDA's log2f uses.
        "llvm.nvvm.lg2.approx.f"
    }

    fn emit_barrier(&self, cx: &Cx<'_, '_>) -> Result<(), Fail> {
        if cx.kernel().uses_groups() {
            // `wgmma` reads shared memory through the async proxy: what this thread wrote
            // (stores, completed cp.async) must be fenced towards it before the barrier.
            inline_asm(cx, "fence.proxy.async.shared::cta;", "~{memory}", &[])?;
        }
        // bar.sync orders the CTA's memory accesses itself.
        let zero = cx.ctx.i32_type().const_zero();
        cx.call_void_intrinsic("llvm.nvvm.barrier.cta.sync.aligned.all", &[zero.into()])
    }

    fn emit_clock<'ctx>(&self, cx: &Cx<'_, 'ctx>) -> Result<IntValue<'ctx>, Fail> {
        // %globaltimer: nanoseconds, the same on every SM.
        cx.call_int_intrinsic("llvm.nvvm.read.ptx.sreg.globaltimer")
    }

    fn emit_sleep(&self, cx: &Cx<'_, '_>, nanos: u32) -> Result<(), Fail> {
        let arg = cx.ctx.i32_type().const_int(nanos as u64, false);
        inline_asm(cx, "nanosleep.u32 $0;", "r", &[arg.into()])
    }

    /// Inline PTX: LLVM 22's NVPTX backend drops ordering and scope from `atomicrmw`.
    fn emit_atomic_rmw<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
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
            (op, _) => {
                return Err(Fail::Msg(format!(
                    "atomic.rmw {op} is not supported on {ty} by sm_90a"
                )));
            }
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
        let (reg_ty, constraint) = match (float_reg, bits) {
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
        let fn_ty = match reg_ty {
            inkwell::types::BasicTypeEnum::FloatType(t) => {
                t.fn_type(&[cx.ctx.i64_type().into(), t.into()], false)
            }
            inkwell::types::BasicTypeEnum::IntType(t) => {
                t.fn_type(&[cx.ctx.i64_type().into(), t.into()], false)
            }
            _ => return Err(Fail::Msg("atomic operand is neither int nor float".into())),
        };
        let asm_fn = cx
            .ctx
            .create_inline_asm(fn_ty, asm, constraints, true, false, None, false);
        let old =
            cx.builder
                .build_indirect_call(fn_ty, asm_fn, &[addr.into(), value.into()], "old")?;
        let old = cx.call_result(old)?;
        if !float_reg && ty.is_float() {
            Ok(cx.builder.build_bit_cast(old, cx.llvm_scalar(ty), "old")?)
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
        cx: &Cx<'_, 'ctx>,
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
        let lane = cx.subgroup_id(self, IdKind::SubgroupLane)?;
        let row = b.build_and(lane, c(15), "")?;
        let col = b.build_left_shift(b.build_right_shift(lane, c(4), false, "")?, c(3), "")?;
        let index = b.build_int_add(b.build_int_mul(row, stride, "")?, col, "")?;
        let bytes = b.build_int_mul(index, c(2), "")?;
        let bytes = b.build_int_z_extend(bytes, cx.ctx.i64_type(), "")?;
        // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
        let p = unsafe { b.build_gep(cx.ctx.i8_type(), base, &[bytes], "")? };
        let r = cx.call_intrinsic(name, &[p.get_type().into()], &[p.into()])?;
        let BasicValueEnum::StructValue(r) = r else {
            return Err(Fail::Msg(format!("ldmatrix returned {}", r.get_type())));
        };
        let v = insert_fields(cx, i32t.vec_type(4).get_undef(), r, 0)?;
        let v = b.build_bit_cast(v, cx.ctx.i16_type().vec_type(8), "")?;
        Ok(Some(v.into_vector_value()))
    }

    fn emit_mma<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
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
            let mut args: Vec<inkwell::values::BasicMetadataValueEnum> =
                ra.iter().map(|r| (*r).into()).collect();
            args.push(rb[2 * half as usize].into());
            args.push(rb[2 * half as usize + 1].into());
            for i in 0..4 {
                args.push(
                    bld.build_extract_element(acc, idx(4 * half + i), "")?
                        .into(),
                );
            }
            let r = cx.call_intrinsic("llvm.nvvm.mma.m16n8k16.row.col.bf16", &[], &args)?;
            let BasicValueEnum::StructValue(r) = r else {
                return Err(Fail::Msg(format!("mma.sync returned {}", r.get_type())));
            };
            d = insert_fields(cx, d, r, 4 * half as u32)?;
        }
        Ok(d)
    }

    /// Four `wgmma.mma_async` m64n128k16 (one per 16-deep step), A and B from shared memory
    /// through descriptors of their 128-byte-swizzled layouts, waited for before the
    /// accumulator is used: the four subgroups of the group are the warpgroup.
    fn emit_mma_group<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        a: PointerValue<'ctx>,
        b: PointerValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        let bld = &cx.builder;
        let i64t = cx.ctx.i64_type();
        let f32t = cx.ctx.f32_type();
        let n = acc.get_type().get_size();
        // Descriptor: start address >> 4 (bits 0-13), leading byte offset >> 4 (16-29),
        // stride byte offset >> 4 (32-45), swizzle mode 1 = 128 bytes (62-63).
        let desc = |p: PointerValue<'ctx>, lbo: u64, sbo: u64| -> Result<IntValue<'ctx>, Fail> {
            let addr = bld.build_ptr_to_int(p, i64t, "")?;
            let addr = bld.build_and(addr, i64t.const_int(0x3ffff, false), "")?;
            let start = bld.build_right_shift(addr, i64t.const_int(4, false), false, "")?;
            let fixed = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 62);
            Ok(bld.build_or(start, i64t.const_int(fixed, false), "")?)
        };
        // A is K-major: rows of 128 bytes, 8-row atoms 1024 bytes apart (the leading offset
        // is unused inside one swizzle atom); a 16-deep step moves 32 bytes along the row.
        // B is N-major: 64-column blocks 8192 bytes apart, 8-row (k) atoms 1024 bytes apart;
        // a 16-deep step moves 16 rows, 2048 bytes.
        let (da, db) = (desc(a, 16, 1024)?, desc(b, 8192, 1024)?);
        let mut args: Vec<inkwell::values::BasicMetadataValueEnum> = Vec::new();
        for i in 0..n {
            let x =
                bld.build_extract_element(acc, cx.ctx.i32_type().const_int(i as u64, false), "")?;
            args.push(x.into());
        }
        let steps = kosmos_ir::GROUP_K / 16;
        for k in 0..steps as u64 {
            args.push(
                bld.build_int_add(da, i64t.const_int(2 * k, false), "")?
                    .into(),
            );
            args.push(
                bld.build_int_add(db, i64t.const_int(128 * k, false), "")?
                    .into(),
            );
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
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {}, ${}, ${}, p, 1, 1, 0, 1;\n",
                regs(0),
                2 * n + 2 * k,
                2 * n + 2 * k + 1
            );
        }
        asm += "wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}";
        let mut constraints: Vec<String> = (0..n).map(|_| "=f".to_string()).collect();
        constraints.extend((0..n).map(|i| i.to_string()));
        constraints.extend((0..2 * steps).map(|_| "l".to_string()));
        constraints.push("r".into());
        constraints.push("~{memory}".into());
        let mut params: Vec<inkwell::types::BasicMetadataTypeEnum> =
            (0..n).map(|_| f32t.into()).collect();
        params.extend((0..2 * steps).map(|_| inkwell::types::BasicMetadataTypeEnum::from(i64t)));
        params.push(cx.ctx.i32_type().into());
        let out_ty = cx.ctx.struct_type(&vec![f32t.into(); n as usize], false);
        let fn_ty = out_ty.fn_type(&params, false);
        let asm_fn =
            cx.ctx
                .create_inline_asm(fn_ty, asm, constraints.join(","), true, false, None, false);
        let r = bld.build_indirect_call(fn_ty, asm_fn, &args, "")?;
        let BasicValueEnum::StructValue(r) = cx.call_result(r)? else {
            return Err(Fail::Msg("wgmma returned no struct".into()));
        };
        insert_fields(cx, acc.get_type().get_undef(), r, 0)
    }

    /// `cp.async.cg` (16 bytes, through L2 only) with a source size of 0 when `pred` is
    /// false: the hardware then reads nothing and fills zeros.
    fn emit_copy_async<'ctx>(
        &self,
        cx: &Cx<'_, 'ctx>,
        dst: PointerValue<'ctx>,
        src: PointerValue<'ctx>,
        pred: IntValue<'ctx>,
    ) -> Result<(), Fail> {
        let i32t = cx.ctx.i32_type();
        let size =
            cx.builder
                .build_select(pred, i32t.const_int(16, false), i32t.const_zero(), "")?;
        cx.call_void_intrinsic(
            "llvm.nvvm.cp.async.cg.shared.global.16.s",
            &[dst.into(), src.into(), size.into()],
        )
    }

    fn emit_async_commit(&self, cx: &Cx<'_, '_>) -> Result<(), Fail> {
        cx.call_void_intrinsic("llvm.nvvm.cp.async.commit.group", &[])
    }

    fn emit_async_wait(&self, cx: &Cx<'_, '_>, pending: u32) -> Result<(), Fail> {
        let n = cx.ctx.i32_type().const_int(pending as u64, false);
        cx.call_void_intrinsic("llvm.nvvm.cp.async.wait.group", &[n.into()])
    }

    fn dynamic_shared(&self) -> bool {
        // CUDA caps static shared memory at 48 KiB; the dynamic array may be larger.
        true
    }
}

/// `v` with the fields of the struct `r` (an intrinsic's or asm's results) written into
/// elements `at ..`.
fn insert_fields<'ctx>(
    cx: &Cx<'_, 'ctx>,
    mut v: VectorValue<'ctx>,
    r: inkwell::values::StructValue<'ctx>,
    at: u32,
) -> Result<VectorValue<'ctx>, Fail> {
    let i32t = cx.ctx.i32_type();
    for i in 0..r.get_type().count_fields() {
        let x = cx.builder.build_extract_value(r, i, "")?;
        v = cx
            .builder
            .build_insert_element(v, x, i32t.const_int(u64::from(at + i), false), "")?;
    }
    Ok(v)
}

/// A `void` inline-asm statement with side effects.
fn inline_asm(
    cx: &Cx<'_, '_>,
    asm: &str,
    constraints: &str,
    args: &[inkwell::values::BasicMetadataValueEnum],
) -> Result<(), Fail> {
    let params: Vec<inkwell::types::BasicMetadataTypeEnum> = args
        .iter()
        .map(|a| match a {
            inkwell::values::BasicMetadataValueEnum::IntValue(v) => Ok(v.get_type().into()),
            _ => Err(Fail::Msg("inline asm takes integer operands here".into())),
        })
        .collect::<Result<_, _>>()?;
    let fn_ty = cx.ctx.void_type().fn_type(&params, false);
    let f = cx.ctx.create_inline_asm(
        fn_ty,
        asm.to_string(),
        constraints.to_string(),
        true,
        false,
        None,
        false,
    );
    cx.builder.build_indirect_call(fn_ty, f, args, "")?;
    Ok(())
}
