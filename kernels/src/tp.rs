//! The fused tensor/sequence-parallel ops on a [`World`]: all-gather + GEMM, GEMM +
//! reduce-scatter and GEMM + all-reduce, forward and backward. Each forward op is one
//! self-scheduled persistent launch per rank (`ops::ag_gemm`, `ops::gemm_rs`): its
//! workgroups switch between moving rows and multiplying tiles as data become ready, with no
//! split of the processors, chunk size or schedule to tune.
//!
//! Every per-rank tensor is a [`SymmetricBuffer`] (one copy per rank, reachable by peers):
//! bf16 operands, f32 accumulation, an f32 or bf16 result ([`TpOutput`]). Shapes are given
//! for the whole layer (`m` rows of tokens over all ranks; `n`, `k` as each rank's GEMM
//! sees them) and checked before any launch, with errors naming the argument.

use crate::maps::{MapCache, addresses, runs_pipelines, tile_map_words};
use crate::plans::{MemoryPlan, Operand, PlanCache};
use crate::{Error, GemmPlan, Layout, Ops, Result, check_len, ops, subgroup_size};
use kosmos::bf16;
use kosmos::runtime::{Buffer, Module, Stream, SymmetricBuffer, World, WorldError};

/// Subgroups of a fused-op workgroup on the group mainloop (two groups of four: a 128 x 128
/// output tile).
const TP_SUBGROUPS: u32 = 8;
/// Subgroups of a fused-op workgroup on the pipeline (a producer and three communication
/// subgroups, two consumer groups of four).
const TP_PIPE_SUBGROUPS: u32 = 12;

/// The forward op whose backward pass [`TpOps::backward`] runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TpForward {
    /// [`TpOps::ag_gemm`].
    AgGemm,
    /// [`TpOps::gemm_rs`].
    GemmRs,
}

/// The result of a fused op: f32, or bf16 (rounded to nearest even; the accumulation and
/// reductions are f32 either way).
pub enum TpOutput<'a> {
    F32(&'a SymmetricBuffer<f32>),
    Bf16(&'a SymmetricBuffer<bf16>),
}

impl<'a> From<&'a SymmetricBuffer<f32>> for TpOutput<'a> {
    fn from(y: &'a SymmetricBuffer<f32>) -> Self {
        TpOutput::F32(y)
    }
}

impl<'a> From<&'a SymmetricBuffer<bf16>> for TpOutput<'a> {
    fn from(y: &'a SymmetricBuffer<bf16>) -> Self {
        TpOutput::Bf16(y)
    }
}

impl TpOutput<'_> {
    fn len(&self) -> usize {
        match self {
            TpOutput::F32(y) => y.len(),
            TpOutput::Bf16(y) => y.len(),
        }
    }

    fn bf16_bit(&self) -> u32 {
        matches!(self, TpOutput::Bf16(_)) as u32
    }
}

/// The scheduling state of the fused ops in one world: readiness counters, queue heads,
/// the partial products of the reduce-scatter, and the result argument a launch does not
/// write. Grown on demand.
struct Workspace {
    ready: SymmetricBuffer<u32>,
    queues: SymmetricBuffer<u32>,
    partial: SymmetricBuffer<f32>,
    spare_f32: SymmetricBuffer<f32>,
    spare_bf16: SymmetricBuffer<bf16>,
}

/// The fused ops, loaded on every device of one world.
pub struct TpOps {
    modules: Vec<Module>,
    /// Whether the launches run the warp-specialised pipeline (`ops::tp_pipeline`, on CUDA
    /// and the CPU device) rather than the group mainloop (`ops::ag_gemm`, `ops::gemm_rs`,
    /// elsewhere).
    pipeline: bool,
    /// The tensor maps of recent calls (`ops::FUSED_MAP_WORDS` a rank).
    maps: MapCache,
    /// The plans of recent local GEMMs of the backward passes. Declared before `local`, whose
    /// ops they borrow: dropped first.
    local_plans: PlanCache<LocalKey>,
    /// Per device of the world (in [`World::devices`] order): the local GEMMs of the
    /// backward passes. Never changed after [`TpOps::new`] (the plans borrow them).
    local: Vec<Ops>,
    workspace: Option<Workspace>,
    workgroups: Option<u32>,
    /// Blocks of 128 rows of each shard in 128 x 256 output tiles, the rest in 128 x 128;
    /// `None`: chosen per call.
    wide_blocks: Option<u32>,
    /// (rank, communication task) of the next `ag_gemm` whose signal goes astray.
    missing: Option<(u32, u32)>,
}

/// Local GEMM plans kept: making one writes its operands' tensor maps (a synchronous copy)
/// and giving one back waits for its launches, so a plan made per call would make every
/// backward pass wait on the host (and could not be captured in a graph).
const LOCAL_PLANS: usize = 16;

/// What a local GEMM's plan depends on: the rank, each operand's address, length and
/// layout, the shape.
#[derive(Copy, Clone, PartialEq, Eq)]
struct LocalKey {
    rank: usize,
    a: Operand,
    b: Operand,
    shape: (usize, usize, usize),
}

/// Blocks of 128 rows of each shard (`blocks` per shard, `n` columns) that a pipelined
/// launch cuts in 128 x 256 tiles, the rest in 128 x 128, on `per_rank` workgroups a rank:
/// the split with the fewest waves ([`crate::fewest_waves`]). Each rank's launch covers
/// every rank's rows (a gathered shard or an owner's).
fn wide_blocks(ranks: u32, blocks: u32, n: u32, per_rank: u32) -> u32 {
    let tiles = |wide: u32| {
        let narrow = (blocks - wide) * n.div_ceil(128);
        (ranks * wide * n.div_ceil(256), ranks * narrow)
    };
    crate::fewest_waves(blocks, tiles, per_rank)
}

/// Dimensions of one fused op, checked: `m` rows in all, `shard` per rank.
#[derive(Copy, Clone, Debug)]
struct Dims {
    shard: u32,
    n: u32,
    k: u32,
}

impl TpOps {
    /// Loads the fused ops on every device of `world`.
    pub fn new(world: &World) -> Result<TpOps> {
        let modules = world
            .load_module(&crate::KERNELS.image()?)
            .map_err(Error::World)?;
        let local = world
            .devices()
            .into_iter()
            .map(Ops::new)
            .collect::<Result<Vec<_>>>()?;
        let pipeline = without_pipeline(&local).is_none();
        Ok(TpOps {
            modules,
            pipeline,
            maps: MapCache::default(),
            local_plans: PlanCache::new(LOCAL_PLANS),
            local,
            workspace: None,
            workgroups: None,
            wide_blocks: None,
            missing: None,
        })
    }

    /// Workgroups per rank of the fused launches: `None` (the default) for as many as can be
    /// resident, else `Some(n)` (refused at launch if they cannot all be resident). Results
    /// are bitwise the same for every count.
    pub fn set_workgroups_per_rank(&mut self, workgroups: Option<u32>) {
        self.workgroups = workgroups;
    }

    /// Runs the fused ops on the warp-specialised pipeline (`true`, the default on CUDA and
    /// the CPU device) or on the group mainloop that HIP runs (`false`); the results are
    /// bitwise the same. Refused, naming the device, where the pipeline cannot run.
    pub fn set_pipeline(&mut self, on: bool) -> Result<()> {
        if on && let Some(d) = without_pipeline(&self.local) {
            return Err(Error::Shape {
                op: "TpOps::set_pipeline",
                message: format!(
                    "the pipelined fused ops run on CUDA and the CPU device, not on {d}"
                ),
            });
        }
        self.pipeline = on;
        Ok(())
    }

    /// The output tiles of the pipelined launches (CUDA and the CPU device): the first
    /// `Some(b)` blocks of 128 rows of every rank's shard in tiles of 128 x 256, the rest in
    /// 128 x 128 (`Some(0)`: all narrow, `Some(u32::MAX)`: all wide), or `None` (the
    /// default) for the split with the fewest waves of a rank's workgroups, as the plain
    /// gemm splits its rows (narrow tiles fill a last wave that wide ones would leave part
    /// empty). Results are bitwise the same whatever the split.
    pub fn set_wide_blocks(&mut self, blocks: Option<u32>) {
        self.wide_blocks = blocks;
    }

    /// The most workgroups per rank that every fused op's launch can keep resident on
    /// `world` (what [`TpOps::set_workgroups_per_rank`] may ask for at most).
    pub fn max_workgroups_per_rank(&self, world: &World) -> Result<u32> {
        let names = if self.pipeline {
            [
                ops::tp_pipeline::name::<{ ops::TP_ALL_GATHER }, 0, 0, 0>(),
                ops::tp_pipeline::name::<{ ops::TP_REDUCE_SCATTER }, 0, 0, 0>(),
                ops::tp_pipeline::name::<{ ops::TP_ALL_REDUCE }, 0, 0, 0>(),
            ]
        } else {
            [
                ops::ag_gemm::name::<0, 0>(),
                ops::gemm_rs::name::<0, 0, 0>(),
                ops::gemm_rs::name::<0, 0, 1>(),
            ]
        };
        let block = self.block(world);
        let mut fewest = u32::MAX;
        for name in names {
            fewest = fewest.min(world.persistent_workgroups(&self.modules, &name, block)?);
        }
        Ok(fewest)
    }

    /// `Y = AllGather_M(X) op(W_r)` on every rank: `x` is the gathered `m x k` input, in
    /// which rank `r` has put its own rows `r m / R..` (`R` the world size) before the call;
    /// the op fills in the peers' rows (so `x` is also the gathered `X` that the backward
    /// pass needs). `w` holds `W_r` (`k x n`, [`Layout::N`]) or `W_r^T` (`n x k`,
    /// [`Layout::T`]); `y` is `m x n` on every rank.
    #[allow(clippy::too_many_arguments)]
    pub fn ag_gemm<'y>(
        &mut self,
        world: &mut World,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        w_layout: Layout,
        y: impl Into<TpOutput<'y>>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<()> {
        let y = y.into();
        let d = operands("ag_gemm", world, x, w, (&y, m), (m, n, k))?;
        // A counter per block of rows, and the spare one of a planted missing signal.
        let blocks = d.shard.div_ceil(128) * world.ranks();
        self.ensure_workspace(world, blocks as usize + 1, 0)?;
        let missing = self.missing.take().map_or(u32::MAX, |(r, t)| r * 65536 + t);
        let (tb, bf16_out) = (w_layout.bit(), y.bf16_bit());
        if self.pipeline {
            return self.launch_pipeline(
                world,
                ops::TP_ALL_GATHER,
                x,
                w,
                tb,
                &y,
                (m, n, k),
                missing,
            );
        }
        let name = ops::ag_gemm::name_of(tb, bf16_out);
        let (per_rank, block) = self.grid(world, &name)?;
        let ws = self.workspace.as_ref().expect("allocated above");
        let (y32, y16) = outputs(&y, ws);
        let md = &self.modules;
        let (ready, queues) = (&ws.ready, &ws.queues);
        let Dims { shard, n, k } = d;
        macro_rules! launch {
            ($tb:literal, $bf16:literal) => {
                ops::ag_gemm::launch::<_, $tb, $bf16>(
                    world, md, per_rank, block, x, w, y32, y16, ready, queues, shard, n, k, missing,
                )
            };
        }
        match (tb, bf16_out) {
            (0, 0) => launch!(0, 0),
            (0, _) => launch!(0, 1),
            (_, 0) => launch!(1, 0),
            _ => launch!(1, 1),
        }
        .map_err(Error::World)
    }

    /// `Y_r = ReduceScatter_M(X_r op(W_r))` on every rank: `x` is `X_r` (`m x k`), `w` holds
    /// `W_r` (`k x n`, [`Layout::N`]) or `W_r^T` (`n x k`, [`Layout::T`]); `y` is this
    /// rank's `m / R x n` rows of the sum, summed over the ranks in rank order (the result
    /// does not depend on timing or workgroup counts).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_rs<'y>(
        &mut self,
        world: &mut World,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        w_layout: Layout,
        y: impl Into<TpOutput<'y>>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<()> {
        let y = y.into();
        self.reduce(world, "gemm_rs", x, w, w_layout, y, (m, n, k), false)
    }

    /// `Y = AllReduce(X_r W_r)` on every rank: `x` is `X_r` (`m x k`), `w` is `W_r` (`k x
    /// n`); `y` (`m x n`) gets the same sum on every rank, summed in rank order.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_ar<'y>(
        &mut self,
        world: &mut World,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        y: impl Into<TpOutput<'y>>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<()> {
        let y = y.into();
        self.reduce(world, "gemm_ar", x, w, Layout::N, y, (m, n, k), true)
    }

    /// [`TpOps::gemm_rs`], or [`TpOps::gemm_ar`] with `all`.
    #[allow(clippy::too_many_arguments)]
    fn reduce(
        &mut self,
        world: &mut World,
        op: &'static str,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        w_layout: Layout,
        y: TpOutput<'_>,
        (m, n, k): (usize, usize, usize),
        all: bool,
    ) -> Result<()> {
        let y_rows = if all {
            m
        } else {
            m / world.ranks().max(1) as usize
        };
        let d = operands(op, world, x, w, (&y, y_rows), (m, n, k))?;
        let (tb, bf16_out, ar) = (w_layout.bit(), y.bf16_bit(), all as u32);
        let tiles = d.shard.div_ceil(128) * d.n.div_ceil(128);
        if self.pipeline {
            // One rank has nothing to reduce: `Y = X op(W)`, which the all-gather's instance
            // computes alike (tiles, order and stores: bitwise the same) with no reduction
            // code in its consumers' function, where that code, though never run on one
            // rank, cost the tile loop 3% (bench/RESULTS.md, forty-fourth batch).
            let (op, counters, partial) = match (world.ranks(), all) {
                (1, _) => (ops::TP_ALL_GATHER, d.shard.div_ceil(128) + 1, 0),
                (_, false) => (ops::TP_REDUCE_SCATTER, tiles, m * n),
                (_, true) => (ops::TP_ALL_REDUCE, tiles, m * n),
            };
            self.ensure_workspace(world, counters as usize, partial)?;
            return self.launch_pipeline(world, op, x, w, tb, &y, (m, n, k), u32::MAX);
        }
        self.ensure_workspace(world, tiles as usize, m * n)?;
        let name = ops::gemm_rs::name_of(tb, bf16_out, ar);
        let (per_rank, block) = self.grid(world, &name)?;
        let ws = self.workspace.as_ref().expect("allocated above");
        let (y32, y16) = outputs(&y, ws);
        let md = &self.modules;
        let (partial, ready, queues) = (&ws.partial, &ws.ready, &ws.queues);
        let Dims { shard, n, k } = d;
        macro_rules! launch {
            ($tb:literal, $bf16:literal, $ar:literal) => {
                ops::gemm_rs::launch::<_, $tb, $bf16, $ar>(
                    world, md, per_rank, block, x, w, y32, y16, partial, ready, queues, shard, n, k,
                )
            };
        }
        match (tb, bf16_out, all) {
            (0, 0, false) => launch!(0, 0, 0),
            (0, _, false) => launch!(0, 1, 0),
            (_, 0, false) => launch!(1, 0, 0),
            (_, _, false) => launch!(1, 1, 0),
            (_, 0, true) => launch!(0, 0, 1),
            (_, _, true) => launch!(0, 1, 1),
        }
        .map_err(Error::World)
    }

    /// Queues `ops::tp_pipeline` for collective `op` (checked operands, workspace in place):
    /// its tensor maps made or found, its tiles as [`TpOps::set_wide_blocks`] says.
    #[allow(clippy::too_many_arguments)]
    fn launch_pipeline(
        &mut self,
        world: &mut World,
        op: u32,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        tb: u32,
        y: &TpOutput<'_>,
        (m, n, k): (usize, usize, usize),
        missing: u32,
    ) -> Result<()> {
        let ranks = world.ranks();
        let shard = (m / ranks as usize) as u32;
        let (n, k) = (n as u32, k as u32);
        let narrow = ops::tp_pipeline::name_of(op, tb, y.bf16_bit(), 0);
        let (per_rank, block) = self.grid(world, &narrow)?;
        let blocks = shard.div_ceil(128);
        let wide_blocks = match self.wide_blocks {
            Some(b) => b.min(blocks),
            None => wide_blocks(ranks, blocks, n, per_rank),
        };
        // The one-width instances where the split takes one width (their loops keep the
        // width a constant), the mixed one otherwise.
        let wide = match wide_blocks {
            0 => 0,
            b if b == blocks => 1,
            _ => 2,
        };
        let name = ops::tp_pipeline::name_of(op, tb, y.bf16_bit(), wide);
        let ws = self.workspace.as_ref().expect("allocated by the caller");
        let (y32, y16) = outputs(y, ws);
        let maps = pipeline_maps(&mut self.maps, world, x, w, tb, (m, n as usize, k as usize))?;
        let (partial, ready, queues) = (&ws.partial, &ws.ready, &ws.queues);
        ops::tp_pipeline::launch_instance(
            world,
            &self.modules,
            per_rank,
            block,
            &name,
            x,
            w,
            maps,
            y32,
            y16,
            partial,
            ready,
            queues,
            shard,
            n,
            k,
            wide_blocks,
            missing,
        )
        .map_err(Error::World)
    }

    /// The backward pass of `of` (`W_r` stored `k x n` in the forward pass), as fused
    /// launches and a local GEMM per rank, from `dy`, the forward pass's `x` and `w`:
    /// - [`TpForward::AgGemm`] (`Y = AllGather(X) W_r`): `dx = ReduceScatter(dY W_r^T)`
    ///   (`m / R x k`, the reduce-scatter kernel reading `W_r` transposed) and `dw = X^T dY_r`
    ///   (`k x n`, reading the gathered `x` the forward pass left, transposed); `dy` is
    ///   `m x n` on every rank.
    /// - [`TpForward::GemmRs`] (`Y_r = ReduceScatter(X_r W_r)`): `dx = AllGather(dY) W_r^T`
    ///   (`m x k`, the all-gather kernel reading `W_r` transposed) and `dw = X_r^T
    ///   AllGather(dY)` (`k x n`); `dy` is the gathered `m x n` gradient, in which rank `r`
    ///   has put its own rows (as for [`TpOps::ag_gemm`]'s `x`), gathered in place.
    #[allow(clippy::too_many_arguments)]
    pub fn backward<'a>(
        &mut self,
        world: &mut World,
        of: TpForward,
        dy: &SymmetricBuffer<bf16>,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        dx: impl Into<TpOutput<'a>>,
        dw: &mut SymmetricBuffer<f32>,
        shape: (usize, usize, usize),
    ) -> Result<()> {
        let local = world.local_ranks();
        let dw = &mut dw.ranks_mut()[local.start as usize..local.end as usize];
        self.backward_local_dw(world, of, dy, x, w, dx, dw, shape)
    }

    /// [`TpOps::backward`] with `dw` this process's ranks' own buffers (`dw[i]` is rank
    /// `world.local_ranks().start + i`'s), which need not be symmetric: no peer reads them,
    /// so `dw` can be any memory of the rank's device, e.g. a framework's gradient tensor.
    #[allow(clippy::too_many_arguments)]
    pub fn backward_local_dw<'a>(
        &mut self,
        world: &mut World,
        of: TpForward,
        dy: &SymmetricBuffer<bf16>,
        x: &SymmetricBuffer<bf16>,
        w: &SymmetricBuffer<bf16>,
        dx: impl Into<TpOutput<'a>>,
        dw: &mut [Buffer<f32>],
        (m, n, k): (usize, usize, usize),
    ) -> Result<()> {
        let op = match of {
            TpForward::AgGemm => "backward of ag_gemm",
            TpForward::GemmRs => "backward of gemm_rs",
        };
        dims(op, world, m, n, k)?;
        check_len(op, "x", x.len(), &[m, k])?;
        let local = world.local_ranks();
        if dw.len() != local.len() {
            return Err(Error::Shape {
                op,
                message: format!(
                    "dw has {} buffers, expected one per rank of this process ({})",
                    dw.len(),
                    local.len()
                ),
            });
        }
        for d in dw.iter() {
            check_len(op, "dw", d.len(), &[k, n])?;
        }
        match of {
            TpForward::AgGemm => self.gemm_rs(world, dy, w, Layout::T, dx, m, k, n)?,
            TpForward::GemmRs => self.ag_gemm(world, dy, w, Layout::T, dx, m, k, n)?,
        }
        // dW_r = op(X)^T dY: `a` holds X (m x k) = (X^T)^T.
        self.local_gemms(world, x, Layout::T, dy, Layout::N, dw, (k, n, m))
    }

    /// `c[i] = op(a_r) op(b_r)` on every local rank `r` (the `i`-th of
    /// `world.local_ranks()`), queued on the rank's stream, through plans kept across calls
    /// ([`TpOps::local_plan`]): no host wait once made.
    #[allow(clippy::too_many_arguments)]
    fn local_gemms(
        &mut self,
        world: &World,
        a: &SymmetricBuffer<bf16>,
        a_layout: Layout,
        b: &SymmetricBuffer<bf16>,
        b_layout: Layout,
        c: &mut [Buffer<f32>],
        shape: (usize, usize, usize),
    ) -> Result<()> {
        for (r, c) in world.local_ranks().zip(c) {
            let stream = world.rank_stream(r).expect("a local rank of the world");
            let r = r as usize;
            let key = LocalKey {
                rank: r,
                a: (a.ranks()[r].device_ptr(), a.len(), a_layout),
                b: (b.ranks()[r].device_ptr(), b.len(), b_layout),
                shape,
            };
            self.local_plan(world, stream, key)?.launch(stream, c)?;
        }
        Ok(())
    }

    /// The plan of `key`'s local GEMM on `stream`'s device: a recent one, or a new one (the
    /// least recently used of [`LOCAL_PLANS`] given back). Refused while the world captures
    /// a graph: making a plan writes memory from the host.
    fn local_plan(
        &mut self,
        world: &World,
        stream: &Stream,
        key: LocalKey,
    ) -> Result<&GemmPlan<'static>> {
        if world.is_capturing() && !self.local_plans.holds(&key) {
            return Err(Error::World(WorldError::InCapture {
                what: "planning the local GEMM of a backward pass for buffers no call used before (make one call with them before capturing)",
            }));
        }
        let ops = self
            .local
            .iter()
            .find(|ops| ops.device() == stream.device())
            .expect("ops loaded on every device of the world");
        let made = self.local_plans.get_or_make(key, || {
            // SAFETY: `self.local` is never changed after `new` and is dropped after
            // `self.local_plans` (field order), so its ops outlive every plan; the operands
            // are the rank's memory on the stream's device (`key`), and a plan is only
            // launched again with operands at the same addresses, lengths and layouts.
            unsafe { MemoryPlan::new(ops, key.a, key.b, key.shape) }
        })?;
        Ok(made.plan())
    }

    /// Calls `f(ops, stream, r)` for every local rank `r` of `world`, with the single-device ops
    /// of the rank's device and its stream: how per-rank work (an activation, a local GEMM)
    /// is queued between fused launches, in order with them.
    pub fn each_rank(
        &self,
        world: &World,
        mut f: impl FnMut(&Ops, &Stream, usize) -> Result<()>,
    ) -> Result<()> {
        for r in world.local_ranks() {
            let stream = world.rank_stream(r).expect("a local rank of the world");
            let local = self
                .local
                .iter()
                .find(|ops| ops.device() == stream.device())
                .expect("ops loaded on every device of the world");
            f(local, stream, r as usize)?;
        }
        Ok(())
    }

    /// Plants a missing signal in the next [`TpOps::ag_gemm`]: communication task `task`
    /// of rank `rank` (a block of rows pulled from a peer) signals a spare counter instead
    /// of its own, so the tiles that need those rows wait in vain. Their bounded waits must
    /// give up and [`World::synchronize`] report a timeout naming rank, workgroup and task:
    /// a check that a lost signal cannot hang a training step (then call
    /// [`TpOps::recover`]).
    pub fn plant_missing_signal(&mut self, rank: u32, task: u32) {
        self.missing = Some((rank, task));
    }

    /// Makes the ops usable again after a launch whose wait gave up
    /// ([`kosmos::runtime::WorldError::Timeout`] at [`World::synchronize`]): such a launch
    /// left its readiness counters and queue heads where it stopped, which the kernels
    /// otherwise zero at their end. Call it after that synchronize, with nothing queued; in
    /// a joined world every process calls it, and they meet ([`World::meet`]) once every
    /// rank's state is reset.
    pub fn recover(&self, world: &mut World) -> Result<()> {
        self.workspace.as_ref().map_or(Ok(()), Workspace::reset)?;
        Ok(world.meet()?)
    }

    /// Workgroups per rank and lanes per workgroup of a launch of `kernel`.
    fn grid(&self, world: &World, kernel: &str) -> Result<(u32, u32)> {
        let block = self.block(world);
        let per_rank = match self.workgroups {
            Some(n) => n,
            None => world.persistent_workgroups(&self.modules, kernel, block)?,
        };
        Ok((per_rank, block))
    }

    /// Lanes per workgroup of the fused launches.
    fn block(&self, world: &World) -> u32 {
        let subgroups = if self.pipeline {
            TP_PIPE_SUBGROUPS
        } else {
            TP_SUBGROUPS
        };
        subgroups * subgroup_size(world.device())
    }

    /// Makes the workspace hold `counters` readiness counters and `partial` partial-product
    /// elements per rank.
    fn ensure_workspace(
        &mut self,
        world: &mut World,
        counters: usize,
        partial: usize,
    ) -> Result<()> {
        let fits = self
            .workspace
            .as_ref()
            .is_some_and(|ws| ws.ready.len() >= counters && ws.partial.len() >= partial);
        if fits {
            return Ok(());
        }
        let (old_counters, old_partial) = self
            .workspace
            .as_ref()
            .map_or((0, 0), |ws| (ws.ready.len(), ws.partial.len()));
        if self.workspace.is_some() {
            // Launches still queued may use the old buffers: let them finish before the
            // buffers (and their table slots) are given back for the larger ones.
            world.synchronize()?;
            self.workspace = None;
        }
        self.workspace = Some(Workspace {
            ready: world.alloc_symmetric(counters.max(old_counters))?,
            queues: world.alloc_symmetric(2)?,
            partial: world.alloc_symmetric(partial.max(old_partial).max(1))?,
            spare_f32: world.alloc_symmetric(1)?,
            spare_bf16: world.alloc_symmetric(1)?,
        });
        Ok(())
    }
}

impl Workspace {
    /// Zeroes the local ranks' counters and queue heads (the kernels do so at their end; a
    /// launch that gave up did not get there).
    fn reset(&self) -> Result<()> {
        for (_, b) in self.ready.local().chain(self.queues.local()) {
            b.fill(0)?;
        }
        Ok(())
    }
}

/// Every rank's tensor maps of `x` (`m x k`) and `w` (`k x n`, or `n x k` with `tb`), as
/// the pipelines read them: the cache's set for these buffers and shape.
fn pipeline_maps<'c>(
    cache: &'c mut MapCache,
    world: &mut World,
    x: &SymmetricBuffer<bf16>,
    w: &SymmetricBuffer<bf16>,
    tb: u32,
    (m, n, k): (usize, usize, usize),
) -> Result<&'c SymmetricBuffer<u64>> {
    let mut key = addresses(x);
    key.extend(addresses(w));
    key.extend([m, n, k, tb as usize].map(|v| v as u64));
    let (m, n, k) = (m as u32, n as u32, k as u32);
    let words = ops::FUSED_MAP_WORDS as usize;
    cache.get(world, key, words, |r| {
        let x_map = tile_map_words(&x.ranks()[r], m, k, 128)?;
        let w_map = match tb {
            0 => tile_map_words(&w.ranks()[r], k, n, 64)?,
            _ => tile_map_words(&w.ranks()[r], n, k, 128)?,
        };
        Ok([x_map, w_map].concat())
    })
}

/// The first device of `local` (the ops of a world's devices) where `ops::tp_pipeline`
/// cannot run: it needs tensor copies and the group matrix instructions of sm_90a (or the
/// CPU device's emulation of them).
fn without_pipeline(local: &[Ops]) -> Option<&kosmos::runtime::Device> {
    local.iter().map(Ops::device).find(|d| !runs_pipelines(d))
}

/// The f32 and bf16 result arguments of a launch: `y` and the workspace's spare of the
/// other type.
fn outputs<'a>(
    y: &'a TpOutput<'a>,
    ws: &'a Workspace,
) -> (&'a SymmetricBuffer<f32>, &'a SymmetricBuffer<bf16>) {
    match y {
        TpOutput::F32(y) => (y, &ws.spare_bf16),
        TpOutput::Bf16(y) => (&ws.spare_f32, y),
    }
}

/// Checks a fused op's shape and operands: `x` (`m x k`), `w` (`k x n` elements) and
/// `y` (`y_rows x n`) on every rank, `n` and `k` whole 16-byte chunks.
fn operands(
    op: &'static str,
    world: &World,
    x: &SymmetricBuffer<bf16>,
    w: &SymmetricBuffer<bf16>,
    (y, y_rows): (&TpOutput<'_>, usize),
    (m, n, k): (usize, usize, usize),
) -> Result<Dims> {
    let d = dims(op, world, m, n, k)?;
    check_len(op, "x", x.len(), &[m, k])?;
    check_len(op, "w", w.len(), &[k, n])?;
    check_len(op, "y", y.len(), &[y_rows, n])?;
    check_chunks(op, n, k)?;
    Ok(d)
}

/// Checks a fused op's shape on `world`: nothing empty, `m` divisible by the world size,
/// everything within the kernels' u32 indexing.
fn dims(op: &'static str, world: &World, m: usize, n: usize, k: usize) -> Result<Dims> {
    let shape = |message: String| Error::Shape { op, message };
    if m == 0 || n == 0 || k == 0 {
        return Err(shape(format!("empty shape m={m} n={n} k={k}")));
    }
    let ranks = world.ranks() as usize;
    if !m.is_multiple_of(ranks) {
        return Err(shape(format!(
            "m = {m} rows do not split evenly over the world's {ranks} ranks"
        )));
    }
    for (what, rows, cols) in [("x", m, k), ("y", m, n)] {
        if rows
            .checked_mul(cols)
            .is_none_or(|e| u32::try_from(e).is_err())
        {
            return Err(shape(format!(
                "{what} ({rows} x {cols}) exceeds u32 indexing"
            )));
        }
    }
    Ok(Dims {
        shard: (m / ranks) as u32,
        n: n as u32,
        k: k as u32,
    })
}

/// `k` and `n` are whole 16-byte chunks (multiples of 8 elements): the rows of `x`, `y` and
/// `w` (stored either way) are made of them, as the tile copies and stores move them.
fn check_chunks(op: &'static str, n: usize, k: usize) -> Result<()> {
    for (what, len) in [("k", k), ("n", n)] {
        if !len.is_multiple_of(8) {
            return Err(Error::Shape {
                op,
                message: format!("{what} = {len} must be a multiple of 8"),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::wide_blocks;

    #[test]
    fn narrow_tiles_fill_the_last_wave_where_wide_ones_leave_it_part_empty() {
        // Llama-3-70B QKV at world size 1 on 132 processors: 320 wide tiles would make 2.4
        // waves; 52 wide blocks make 2 waves, the 120 narrow tiles of the rest one.
        assert_eq!(wide_blocks(1, 64, 1280, 132), 52);
        // FC1, out-proj: whole waves of wide tiles.
        assert_eq!(wide_blocks(1, 64, 3584, 132), 64);
        assert_eq!(wide_blocks(1, 64, 8192, 132), 64);
        // 8 emulated ranks of 16 workgroups: 320 wide tiles are 20 whole waves.
        assert_eq!(wide_blocks(8, 8, 1280, 16), 8);
        // A shard of one block, too few tiles for a wave: narrow, as the plain gemm.
        assert_eq!(wide_blocks(1, 1, 256, 132), 0);
    }
}
