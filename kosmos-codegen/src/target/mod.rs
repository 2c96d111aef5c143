//! What differs between GPU targets. The lowering (`lower/`) is written once against
//! [`Target`]; each target (`amdgpu.rs`, `nvptx.rs`) only answers the questions below,
//! building its instructions with the LLVM helpers of `crate::llvm`.

mod amdgpu;
mod amdgpu_async;
mod amdgpu_staged;
mod nvptx;

use crate::llvm::{AtomicRmw, Fail, FnBuilder};
use amdgpu::Amdgpu;
use inkwell::AddressSpace;
use inkwell::module::Module;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue, VectorValue};
use kosmos_ir::{AddrSpace, Dim, FragRole, IdKind, MmaLayout, Op, Scope};
use nvptx::Nvptx;
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

    /// The most shared memory one workgroup may have, in bytes: LDS per workgroup on AMD,
    /// the opt-in limit per block on NVIDIA (the CUDA runtime raises each kernel's limit to
    /// what it needs).
    pub fn max_shared_bytes(self) -> u64 {
        match self {
            TargetKind::Gfx942 => 64 * 1024,
            TargetKind::Gfx950 => 160 * 1024,
            TargetKind::Sm90a => 227 * 1024,
        }
    }

    /// Whether `kernel`'s shared memory fits this target.
    pub fn fits(self, kernel: &kosmos_ir::Kernel) -> bool {
        kernel.shared_layout().1 <= self.max_shared_bytes()
    }

    pub(crate) fn target(self) -> Box<dyn Target> {
        match self {
            TargetKind::Gfx942 | TargetKind::Gfx950 => Box::new(Amdgpu::new(self.name())),
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
    /// Calling convention and launch-bound attributes of the kernel's entry point.
    fn configure_kernel(&self, cx: &FnBuilder<'_, '_>);
    /// Lowers an op whose instructions are the target's own: ids, barriers, clocks, sleeps,
    /// subgroup shuffles, copy groups — every op that the shared lowering (`Cx::inst` in
    /// `lower/mod.rs`) does not list. `args` are the op's operands in `Op::operands` order;
    /// the result holds its results. An op the target has no rule for is a [`Fail`].
    fn lower_op<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        op: &Op,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail>;
    /// An atomic read-modify-write returning the old value. The default is LLVM's `atomicrmw`.
    fn emit_atomic_rmw<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        rmw: AtomicRmw<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        Ok(cx.atomic_rmw(rmw, self.sync_scope(rmw.scope)))
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
        _cx: &FnBuilder<'_, 'ctx>,
        _role: FragRole,
        _base: PointerValue<'ctx>,
        _stride: IntValue<'ctx>,
    ) -> Result<Option<VectorValue<'ctx>>, Fail> {
        Ok(None)
    }
    /// Whether [`Target::emit_aligned_wide_bf16_store`] is offered: a faster store of a whole
    /// `frag<wacc>` as bf16 than its layout's runs one by one.
    fn has_aligned_wide_bf16_store(&self) -> bool {
        false
    }
    /// A `frag<wacc>` (`acc`, already rounded: `<n x bfloat>`) stored whole as bf16 at `base`,
    /// row stride `stride` elements; the caller branches here only where `base` and the rows
    /// are 16-byte aligned, and only on a target that has it.
    fn emit_aligned_wide_bf16_store<'ctx>(
        &self,
        _cx: &FnBuilder<'_, 'ctx>,
        _base: PointerValue<'ctx>,
        _stride: IntValue<'ctx>,
        _acc: VectorValue<'ctx>,
    ) -> Result<(), Fail> {
        Err(Fail(format!(
            "{} has no aligned bf16 tile store",
            self.cpu()
        )))
    }
    /// `acc + a x b` on fragments laid out by [`Target::frag_layout`].
    fn emit_mma<'ctx>(
        &self,
        cx: &FnBuilder<'_, 'ctx>,
        a: VectorValue<'ctx>,
        b: VectorValue<'ctx>,
        acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail>;
    /// Where a lane's elements of `a` and `b` sit for a matrix instruction 32 deep (`a` 16 x 32,
    /// `b` 32 x 16, the accumulator as [`Target::frag_layout`] says), if the target has one:
    /// the fragment lowering of `mma.group` then multiplies 32 deep at a time.
    fn deep_frag_layouts(&self) -> Option<[FragLayout; 2]> {
        None
    }
    /// `acc + a x b` with the 32-deep instruction of [`Target::deep_frag_layouts`] (`a`, `b`:
    /// `bf16` bits as `i16`).
    fn emit_deep_mma<'ctx>(
        &self,
        _cx: &FnBuilder<'_, 'ctx>,
        _a: VectorValue<'ctx>,
        _b: VectorValue<'ctx>,
        _acc: VectorValue<'ctx>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        Err(Fail(format!(
            "{} has no 32-deep matrix instruction",
            self.cpu()
        )))
    }
    /// `mma.group` (`wait`) or `mma.group.async` on a `frag<wacc>` (pieces of `frag<acc>`)
    /// with a group-wide matrix instruction, the tiles laid out as `layout`; `None` (the
    /// default) lowers either as 16x16 fragments gathered from the swizzled tiles, each
    /// through [`Target::emit_mma`], complete at once.
    fn emit_mma_group<'ctx>(
        &self,
        _cx: &FnBuilder<'_, 'ctx>,
        _a: PointerValue<'ctx>,
        _b: PointerValue<'ctx>,
        _acc: VectorValue<'ctx>,
        _layout: MmaLayout,
        _wait: bool,
    ) -> Result<Option<VectorValue<'ctx>>, Fail> {
        Ok(None)
    }
    /// Whether a kernel's shared memory is one dynamically sized array (laid out by
    /// `Kernel::shared_layout`, its size given at launch) rather than static allocations.
    fn dynamic_shared(&self) -> bool {
        false
    }
}

/// `((lane >> shift) & mask) * scale`: a row or column coordinate of a lane.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LaneTerm {
    pub shift: u32,
    pub mask: u32,
    pub scale: u32,
}

impl LaneTerm {
    #[cfg(test)]
    fn at(self, lane: u32) -> u32 {
        ((lane >> self.shift) & self.mask) * self.scale
    }
}

/// `len` elements of one tile row, consecutive in memory, at (`row`, `col`) from the lane's
/// base coordinates; they are the next `len` elements of the lane's vector.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Run {
    pub row: u32,
    pub col: u32,
    pub len: u32,
}

/// Where a lane's fragment elements sit in the tile: lane `l`'s runs start at
/// (`row.at(l)`, `col.at(l)`). A run of `len` elements is accessed as one `len`-element
/// load or store aligned to its size: layouts keep runs at column multiples of `len`,
/// which with a 16-byte aligned tile and a row stride that is a multiple of 8 elements
/// makes those accesses aligned.
#[derive(Copy, Clone, Debug)]
pub(crate) struct FragLayout {
    pub row: LaneTerm,
    pub col: LaneTerm,
    pub runs: &'static [Run],
}

impl FragLayout {
    /// Elements per lane.
    pub fn elems(&self) -> u32 {
        self.runs.iter().map(|r| r.len).sum()
    }
}

const fn lane_term(shift: u32, mask: u32, scale: u32) -> LaneTerm {
    LaneTerm { shift, mask, scale }
}

const fn run(row: u32, col: u32, len: u32) -> Run {
    Run { row, col, len }
}

/// `subgroup.size`, `subgroup.id` or `subgroup.lane`, from the linear work-item id
/// (subgroups are consecutive runs of it on every target).
pub(crate) fn subgroup_id<'ctx>(
    size: u32,
    cx: &FnBuilder<'_, 'ctx>,
    kind: IdKind,
    target_id: impl Fn(IdKind, Dim) -> Result<IntValue<'ctx>, Fail>,
) -> Result<IntValue<'ctx>, Fail> {
    let i32t = cx.ctx.i32_type();
    if kind == IdKind::SubgroupSize {
        return Ok(i32t.const_int(size as u64, false));
    }
    let b = &cx.builder;
    let id = |d| target_id(IdKind::WorkitemId, d);
    let dim = |d| target_id(IdKind::WorkgroupSize, d);
    // x + size_x * (y + size_y * z)
    let yz = b.build_int_add(
        id(Dim::Y)?,
        b.build_int_mul(dim(Dim::Y)?, id(Dim::Z)?, "")?,
        "",
    )?;
    let linear = b.build_int_add(id(Dim::X)?, b.build_int_mul(dim(Dim::X)?, yz, "")?, "")?;
    Ok(if kind == IdKind::SubgroupId {
        let shift = i32t.const_int(size.trailing_zeros() as u64, false);
        b.build_right_shift(linear, shift, false, "subgroup_id")?
    } else {
        let mask = i32t.const_int(size as u64 - 1, false);
        b.build_and(linear, mask, "subgroup_lane")?
    })
}

/// `copy.async` as a plain load (only when `pred`) and store: the lowering of targets
/// without asynchronous copies.
#[cfg(test)]
mod tests {
    use super::*;

    /// Every target's layouts cover each tile element exactly once over the subgroup's lanes,
    /// and keep runs at column multiples of their length (the aligned-access promise).
    #[test]
    fn layouts_cover_the_tile_once_with_aligned_runs() {
        for kind in TargetKind::ALL {
            let target = kind.target();
            // A `frag<wacc>` is `frag<acc>` pieces: its layout is the accumulator's.
            for role in [FragRole::A, FragRole::B, FragRole::Acc] {
                let layout = target.frag_layout(role);
                let (rows, cols) = role.shape();
                let mut seen = vec![0u32; (rows * cols) as usize];
                assert_eq!(
                    layout.elems() * target.subgroup_size(),
                    rows * cols,
                    "{kind} {role}"
                );
                for lane in 0..target.subgroup_size() {
                    let (r0, c0) = (layout.row.at(lane), layout.col.at(lane));
                    for run in layout.runs {
                        assert_eq!((c0 + run.col) % run.len, 0, "{kind} {role} lane {lane}");
                        for i in 0..run.len {
                            let (r, c) = (r0 + run.row, c0 + run.col + i);
                            assert!(r < rows && c < cols, "{kind} {role} lane {lane}");
                            seen[(r * cols + c) as usize] += 1;
                        }
                    }
                }
                assert!(seen.iter().all(|n| *n == 1), "{kind} {role}: {seen:?}");
            }
        }
    }
}
