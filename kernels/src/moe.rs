//! The Mixture-of-Experts layer on an expert-parallel [`World`]: router, dispatch, expert
//! GEMMs (SwiGLU), combine and fold in one self-scheduled persistent launch per rank
//! (`ops::moe_pipeline` on CUDA and the CPU device, `ops::moe_forward` elsewhere). Token
//! counts never leave the device, so the launch queues without a
//! host wait and can be captured in a graph; receive buffers hold a declared number of rows
//! (by default the worst case), and a launch that would need more reports
//! [`kosmos::runtime::WorldError::CapacityExceeded`] at [`World::synchronize`] instead of
//! dropping tokens. docs/moe.md has the math, the layouts and the schedule.

use crate::maps::{MapCache, addresses, runs_pipelines, tile_map_words};
use crate::{Error, Result, check_len, ops, subgroup_size};
use kosmos::bf16;
use kosmos::runtime::{Module, SymmetricBuffer, World, WorldModules};
use std::sync::atomic::{AtomicU64, Ordering};

/// The phases of `ops::moe_forward` (router and layout, pushes, expert tiles, fold) and of
/// `ops::moe_backward` (pushes, router, expert tiles, combine), one bit each.
const ALL_PHASES: u32 = 15;
const PHASES_IN_ORDER: [u32; 4] = [1, 2, 4, 8];

/// Subgroups of a `moe_forward` workgroup (a 128 x 128 GEMM tile).
const MOE_SUBGROUPS: u32 = 8;
/// Subgroups of a `moe_pipeline` workgroup (a producer, three more, two consumer groups).
const MOE_PIPE_SUBGROUPS: u32 = 12;
const OP: &str = "moe_forward";
const PIPE_KERNEL: &str = "moe_pipeline";
const BACKWARD_OP: &str = "moe_backward";
const BACKWARD_PIPE_KERNEL: &str = "moe_backward_pipeline";
/// Rows per expert (on average, over the world's tokens) from which the backward pass runs on
/// the pipeline by default (H200: the group mainloop was faster at 128 and 256, the pipeline
/// at 1024 and 2048; bench/RESULTS.md).
pub const PIPELINED_BACKWARD_ROWS: usize = 512;

/// Tells layers apart, so that a forward pass is only differentiated by its own layer.
static LAYER_IDS: AtomicU64 = AtomicU64::new(0);

/// How the router turns a token's logits into its experts and their weights.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Routing {
    /// Softmax over all experts; the `topk` most probable, weighted by their probabilities
    /// (renormalized over the picks if `normalize`: Qwen3, Mixtral).
    Softmax { normalize: bool },
    /// DeepSeek-V3: sigmoid scores; experts picked by score plus the `bias` weight among the
    /// `topk_groups` best of `groups` contiguous expert groups (a group's score: the sum of
    /// its two best), weighted by their scores (renormalized if `normalize`) times `scale`.
    Sigmoid {
        groups: u32,
        topk_groups: u32,
        normalize: bool,
        scale: f32,
    },
}

/// The layer's dimensions: `experts` in all (split evenly over the ranks), `topk` picks per
/// token, `tokens` per rank, `hidden` model width, `ffn` width of each expert's SwiGLU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoeShape {
    pub experts: usize,
    pub topk: usize,
    pub tokens: usize,
    pub hidden: usize,
    pub ffn: usize,
}

/// Routing, the shared expert (a dense SwiGLU of the same `ffn` on every token, added after
/// the routed experts: DeepSeek-V3's) and the receive capacity in rows per rank (`None`: the
/// worst case, every rank's tokens all routed to one rank).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MoeOptions {
    pub routing: Routing,
    pub shared_expert: bool,
    pub capacity: Option<usize>,
}

/// The weights, one copy per rank, in PyTorch's `out x in` layout: `router` (`experts x
/// hidden`, the same on every rank), `bias` (`experts`, f32; sigmoid routing only), the
/// rank's `experts / ranks` local experts `w1` (each `2 ffn x hidden`: the gate projection's
/// rows, then the up projection's) and `w2` (each `hidden x ffn`), and the shared expert's
/// `(w1, w2)` when the options ask for one.
pub struct MoeWeights<'a> {
    pub router: &'a SymmetricBuffer<bf16>,
    pub bias: Option<&'a SymmetricBuffer<f32>>,
    pub w1: &'a SymmetricBuffer<bf16>,
    pub w2: &'a SymmetricBuffer<bf16>,
    pub shared: Option<(&'a SymmetricBuffer<bf16>, &'a SymmetricBuffer<bf16>)>,
}

/// What a forward pass leaves for the backward pass, per rank (rows of the expert buffers:
/// the rank's experts' received rows in expert order, then the shared expert's `tokens`
/// from row `capacity`).
pub struct MoeSaved {
    /// `tokens x experts`: softmax probabilities or sigmoid scores.
    pub scores: SymmetricBuffer<f32>,
    /// `tokens x topk`: the picks' weights, in pick order.
    pub weights: SymmetricBuffer<f32>,
    /// `tokens x topk` picked experts, then `tokens x topk` positions of each pick among the
    /// rank's picks of its expert (in token order).
    pub routing: SymmetricBuffer<u32>,
    /// The counts table and layout (docs/moe.md).
    pub plan: SymmetricBuffer<u32>,
    /// `capacity x hidden`: the received token rows.
    pub recv: SymmetricBuffer<bf16>,
    /// Up-projection outputs, `ceil(ffn / 64) x 128` columns a row: per 64 features, their
    /// gate then up values.
    pub z: SymmetricBuffer<bf16>,
    /// `silu(gate) up`, `ffn` columns a row.
    pub h: SymmetricBuffer<bf16>,
    /// Expert outputs, `hidden` columns a row.
    pub y: SymmetricBuffer<bf16>,
}

/// Where [`MoeLayer::backward`] writes the gradients, per rank, in the layouts of the
/// forward's arguments: `dx` (`tokens x hidden` bf16), the rank's local experts' `w1` and
/// `w2` (bf16), and this rank's part of the replicated weights' gradients — the router's
/// (`experts x hidden` f32) and the shared expert's `(w1, w2)` (bf16) — which the world's
/// gradient sums over the ranks, as any data-parallel weight's.
pub struct MoeGradients<'a> {
    pub dx: &'a SymmetricBuffer<bf16>,
    pub router: &'a SymmetricBuffer<f32>,
    pub w1: &'a SymmetricBuffer<bf16>,
    pub w2: &'a SymmetricBuffer<bf16>,
    pub shared: Option<(&'a SymmetricBuffer<bf16>, &'a SymmetricBuffer<bf16>)>,
}

/// A forward pass a layer has queued: what [`MoeLayer::backward`] differentiates. Only the
/// layer's latest forward pass has its saved state; the backward pass refuses an older one
/// (or another layer's) before launch.
#[derive(Debug)]
pub struct MoeForwardPass {
    layer: u64,
    generation: u64,
}

/// The backward pass's scratch, per rank, allocated by the first backward pass.
struct BackwardBuffers {
    sync: SymmetricBuffer<u32>,
    /// `tokens x topk` f32: the picks' weights' gradients.
    dweights: SymmetricBuffer<f32>,
    /// `tokens x experts` bf16.
    dlogits: SymmetricBuffer<bf16>,
    /// `tokens x hidden` f32: the router's part of `dx`.
    dx_router: SymmetricBuffer<f32>,
    /// `capacity x hidden` bf16: the received output gradients.
    dy: SymmetricBuffer<bf16>,
    /// Expert rows x `ffn` f32, expert rows x `2 ffn` bf16, expert rows x `hidden` bf16.
    dh: SymmetricBuffer<f32>,
    dz: SymmetricBuffer<bf16>,
    dxe: SymmetricBuffer<bf16>,
}

/// The MoE layer, loaded on every device of one world, with its buffers.
pub struct MoeLayer {
    modules: Vec<Module>,
    shape: MoeShape,
    options: MoeOptions,
    dims: Dims,
    saved: MoeSaved,
    sync: SymmetricBuffer<u32>,
    /// The router's logits: a `tokens x experts` matrix per part of the router's depth
    /// (`ops::MOE_ROUTER_DEPTH`), their sums in the first (then sigmoids in place under
    /// sigmoid routing).
    logits: SymmetricBuffer<f32>,
    /// Stand-ins for the arguments a launch does not read: the bias of softmax routing,
    /// the shared expert's weights.
    no_bias: SymmetricBuffer<f32>,
    no_weights: SymmetricBuffer<bf16>,
    workgroups: Option<u32>,
    /// Whether the forward pass runs `ops::moe_pipeline` (CUDA, the CPU device) rather than
    /// `ops::moe_forward` (elsewhere).
    pipeline: bool,
    /// Whether the backward pass runs `ops::moe_backward_pipeline` rather than
    /// `ops::moe_backward`: `None` to choose by rows per expert (see
    /// [`MoeLayer::backward_pipeline`]).
    backward_pipeline: Option<bool>,
    /// Whether `ops::moe_backward` stores its bf16 tiles through its staging tile: `None`
    /// where every device's shared memory holds it.
    backward_staging: Option<bool>,
    /// A device of the world where the pipeline cannot run.
    without_pipeline: Option<String>,
    /// Tensor maps of the pipelines' operands (`ops::MOE_MAP_WORDS` and
    /// `ops::MOE_BACKWARD_MAP_WORDS` a rank).
    maps: MapCache,
    backward_maps: MapCache,
    /// The rank of the next forward pass whose pushes go unsignalled.
    silent: Option<u32>,
    id: u64,
    /// Counts the forward passes (and recoveries): which one the saved state is from.
    generation: u64,
    backward: Option<BackwardBuffers>,
}

/// The launch's `u32` dimensions, checked.
#[derive(Copy, Clone, Debug)]
struct Dims {
    ranks: u32,
    tokens: u32,
    hidden: u32,
    ffn: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    max_tiles: u32,
}

impl Dims {
    fn local(&self) -> u32 {
        self.experts / self.ranks
    }

    /// Rows of the expert activations: the received rows, then the shared expert's.
    fn expert_rows(&self, shared: bool) -> usize {
        self.capacity as usize + if shared { self.tokens as usize } else { 0 }
    }

    /// Columns of `z`: 128 per 64 features.
    fn z_cols(&self) -> usize {
        self.ffn.div_ceil(64) as usize * 128
    }

    /// Where the sections of `plan` start (`ops::moe_forward` says what they hold): send
    /// offsets, chunk destinations, block counts, local experts, status, row tiles, send
    /// list; and the words in all.
    fn plan_offsets(&self) -> ([u32; 7], usize) {
        let (r, e, b) = (self.ranks, self.experts, self.blocks() as u32);
        let send = r * e;
        let dest = send + e;
        let blocks = dest + e;
        let local = blocks + b * e;
        let status = local + 3 * (self.local() + 1);
        let tiles = status + 2;
        let list = tiles + self.max_tiles;
        let words = list as usize + self.tokens as usize * self.topk as usize;
        ([send, dest, blocks, local, status, tiles, list], words)
    }

    /// `ops::moe_forward`'s: heads, then a counter per local expert, per row tile and per
    /// block of 128 tokens.
    fn sync_words(&self) -> usize {
        (ops::MOE_SYNC_HEAD_WORDS + self.local() + self.max_tiles) as usize + self.blocks()
    }

    /// `ops::moe_backward`'s: heads, then a counter per local expert, per row tile, and per
    /// local expert and the shared one.
    fn backward_sync_words(&self) -> usize {
        (ops::MOE_BACKWARD_SYNC_HEAD_WORDS + 2 * self.local() + self.max_tiles + 1) as usize
    }

    fn blocks(&self) -> usize {
        self.tokens.div_ceil(128) as usize
    }
}

impl MoeLayer {
    /// Loads the layer on every device of `world` and allocates its buffers for `shape`.
    /// Refused, naming the argument: experts not divisible by the world size or not a
    /// multiple of 8, `topk` of 0 or more than the eligible experts (or than 128),
    /// `hidden`, `ffn` not multiples of 8, groups that do not divide the experts, a capacity
    /// of 0, sizes past the kernel's 32-bit indexing.
    pub fn new(world: &mut World, shape: MoeShape, options: MoeOptions) -> Result<MoeLayer> {
        let dims = check_shape(world.ranks(), &shape, &options)?;
        let modules = world
            .load_module(&crate::KERNELS.image()?)
            .map_err(Error::World)?;
        let (t, k, e) = (shape.tokens, shape.topk, shape.experts);
        let rows = dims.expert_rows(options.shared_expert);
        let without_pipeline = world
            .devices()
            .iter()
            .find(|d| !runs_pipelines(d))
            .map(ToString::to_string);
        let saved = MoeSaved {
            scores: world.alloc_symmetric(t * e)?,
            weights: world.alloc_symmetric(t * k)?,
            routing: world.alloc_symmetric(2 * t * k)?,
            plan: world.alloc_symmetric(dims.plan_offsets().1)?,
            recv: world.alloc_symmetric(dims.capacity as usize * shape.hidden)?,
            z: world.alloc_symmetric(rows * dims.z_cols())?,
            h: world.alloc_symmetric(rows * shape.ffn)?,
            y: world.alloc_symmetric(rows * shape.hidden)?,
        };
        Ok(MoeLayer {
            modules,
            shape,
            options,
            dims,
            saved,
            sync: world.alloc_symmetric(dims.sync_words())?,
            logits: world.alloc_symmetric(router_parts(shape.hidden) * t * e)?,
            no_bias: world.alloc_symmetric(e)?,
            no_weights: world.alloc_symmetric(8)?,
            workgroups: None,
            pipeline: without_pipeline.is_none(),
            backward_pipeline: None,
            backward_staging: None,
            without_pipeline,
            maps: MapCache::default(),
            backward_maps: MapCache::default(),
            silent: None,
            id: LAYER_IDS.fetch_add(1, Ordering::Relaxed),
            generation: 0,
            backward: None,
        })
    }

    pub fn shape(&self) -> MoeShape {
        self.shape
    }

    pub fn options(&self) -> MoeOptions {
        self.options
    }

    /// Receive rows per rank.
    pub fn capacity(&self) -> usize {
        self.dims.capacity as usize
    }

    /// What the last forward pass left for the backward pass.
    pub fn saved(&self) -> &MoeSaved {
        &self.saved
    }

    /// Workgroups per rank: `None` (the default) for as many as can be resident, else
    /// `Some(n)` (refused at launch if they cannot all be resident). Results are bitwise
    /// the same for every count.
    pub fn set_workgroups_per_rank(&mut self, workgroups: Option<u32>) {
        self.workgroups = workgroups;
    }

    /// Whether the forward pass runs on the warp-specialised pipeline (see
    /// [`MoeLayer::set_pipeline`]).
    pub fn pipeline(&self) -> bool {
        self.pipeline
    }

    /// Whether the backward pass runs on the warp-specialised pipeline. Unless set
    /// ([`MoeLayer::set_pipeline`], [`MoeLayer::set_backward_pipeline`]), it does where the
    /// forward's does and an expert has at least [`PIPELINED_BACKWARD_ROWS`] rows on average:
    /// with fewer, the weight gradients are sums over so few rows that their tiles are
    /// bound by storing the gradients, which the group mainloop's two workgroups per
    /// processor overlap better.
    pub fn backward_pipeline(&self) -> bool {
        let s = self.shape;
        let rows_per_expert = s.tokens * self.dims.ranks as usize * s.topk / s.experts;
        self.backward_pipeline
            .unwrap_or(self.pipeline && rows_per_expert >= PIPELINED_BACKWARD_ROWS)
    }

    /// Runs the GEMM tiles of both passes on the warp-specialised pipeline (`true`, the
    /// default on CUDA and the CPU device: `ops::moe_pipeline`, `ops::moe_backward_pipeline`)
    /// or on the group mainloop that HIP runs (`false`: `ops::moe_forward`,
    /// `ops::moe_backward`); the results are bitwise the same. Refused, naming the device,
    /// where the pipeline cannot run.
    pub fn set_pipeline(&mut self, on: bool) -> Result<()> {
        self.check_pipeline(on, "MoeLayer::set_pipeline")?;
        self.pipeline = on;
        self.backward_pipeline = Some(on);
        Ok(())
    }

    /// The backward pass's mainloop alone: `Some(on)` as [`MoeLayer::set_pipeline`], `None`
    /// to choose by rows per expert (the default; see [`MoeLayer::backward_pipeline`]).
    pub fn set_backward_pipeline(&mut self, on: Option<bool>) -> Result<()> {
        self.check_pipeline(on == Some(true), "MoeLayer::set_backward_pipeline")?;
        self.backward_pipeline = on;
        Ok(())
    }

    /// Whether the group mainloop's backward pass (`ops::moe_backward`) stores its bf16
    /// tiles through a staging tile beside its ring (16-byte stores; 98 KiB of shared
    /// memory) or straight from the accumulators (64 KiB: gfx942's limit): `None` (the
    /// default) for the staging tile wherever the devices hold it. The results are bitwise
    /// the same; a staging tile a device cannot hold is refused at launch.
    pub fn set_backward_staging(&mut self, on: Option<bool>) {
        self.backward_staging = on;
    }

    fn check_pipeline(&self, on: bool, op: &'static str) -> Result<()> {
        match &self.without_pipeline {
            Some(d) if on => Err(Error::Shape {
                op,
                message: format!("the pipelined passes run on CUDA and the CPU device, not on {d}"),
            }),
            _ => Ok(()),
        }
    }

    /// Queues the layer's forward pass on every rank: `out[t]` (`tokens x hidden` bf16) from
    /// `x` (`tokens x hidden` bf16). One launch, no host wait; timeouts and a receive
    /// overflow are reported by [`World::synchronize`] (after which [`MoeLayer::recover`]).
    /// The pass returned is what [`MoeLayer::backward`] differentiates.
    pub fn forward(
        &mut self,
        world: &mut World,
        x: &SymmetricBuffer<bf16>,
        weights: &MoeWeights,
        out: &SymmetricBuffer<bf16>,
    ) -> Result<MoeForwardPass> {
        self.launch(world, x, weights, out, ALL_PHASES)?;
        Ok(self.next_pass())
    }

    /// The same forward pass as an unfused sequence of four launches per rank — router and
    /// layout, the token pushes, the expert GEMMs, the fold — each starting when the one
    /// before has ended (no overlap between phases): the baseline [`MoeLayer::forward`] is
    /// measured against. The result is bitwise the same.
    pub fn forward_unfused(
        &mut self,
        world: &mut World,
        x: &SymmetricBuffer<bf16>,
        weights: &MoeWeights,
        out: &SymmetricBuffer<bf16>,
    ) -> Result<MoeForwardPass> {
        for phase in PHASES_IN_ORDER {
            self.launch(world, x, weights, out, phase)?;
        }
        Ok(self.next_pass())
    }

    /// The saved state now belongs to a new forward pass.
    fn next_pass(&mut self) -> MoeForwardPass {
        self.generation += 1;
        MoeForwardPass {
            layer: self.id,
            generation: self.generation,
        }
    }

    /// Queues the backward pass of `pass` (the layer's latest forward pass, of the tokens
    /// `x`, with the same `weights`) on every rank, from the output's gradient `dout`
    /// (`tokens x hidden` bf16), into `grads`. One launch per rank, no host wait. Refused
    /// before launch: a stale pass (the layer has run forward or recovered since) or another
    /// layer's, and wrong-sized arguments.
    pub fn backward(
        &mut self,
        world: &mut World,
        pass: &MoeForwardPass,
        x: &SymmetricBuffer<bf16>,
        dout: &SymmetricBuffer<bf16>,
        weights: &MoeWeights,
        grads: &MoeGradients,
    ) -> Result<()> {
        self.launch_backward(world, pass, x, dout, weights, grads, ALL_PHASES)
    }

    /// The same backward pass as an unfused sequence of four launches per rank (gradient
    /// pushes, router, expert GEMMs, combine): the baseline of [`MoeLayer::backward`], with
    /// bitwise the same result.
    #[allow(clippy::too_many_arguments)]
    pub fn backward_unfused(
        &mut self,
        world: &mut World,
        pass: &MoeForwardPass,
        x: &SymmetricBuffer<bf16>,
        dout: &SymmetricBuffer<bf16>,
        weights: &MoeWeights,
        grads: &MoeGradients,
    ) -> Result<()> {
        for phase in PHASES_IN_ORDER {
            self.launch_backward(world, pass, x, dout, weights, grads, phase)?;
        }
        Ok(())
    }

    /// Checks the weights (and the routing's and options' parts of them): the bias and the
    /// shared expert's weights to pass, `None` where the layer has none (see
    /// [`MoeLayer::standins`]).
    #[allow(clippy::type_complexity)]
    fn checked_weights<'w>(
        &self,
        op: &'static str,
        weights: &MoeWeights<'w>,
    ) -> Result<(
        Option<&'w SymmetricBuffer<f32>>,
        Option<(&'w SymmetricBuffer<bf16>, &'w SymmetricBuffer<bf16>)>,
    )> {
        let s = self.shape;
        let local = self.dims.local() as usize;
        check_len(op, "router", weights.router.len(), &[s.experts, s.hidden])?;
        check_len(op, "w1", weights.w1.len(), &[local, 2 * s.ffn, s.hidden])?;
        check_len(op, "w2", weights.w2.len(), &[local, s.hidden, s.ffn])?;
        let sigmoid = matches!(self.options.routing, Routing::Sigmoid { .. });
        let refuse = |message: &str| {
            Err(Error::Shape {
                op,
                message: message.into(),
            })
        };
        let bias = match (weights.bias, sigmoid) {
            (Some(bias), true) => {
                check_len(op, "bias", bias.len(), &[s.experts])?;
                Some(bias)
            }
            (None, false) => None,
            (None, true) => return refuse("sigmoid routing needs `bias`"),
            (Some(_), false) => return refuse("`bias` is given, but softmax routing has none"),
        };
        let shared = match (weights.shared, self.options.shared_expert) {
            (Some((ws1, ws2)), true) => {
                check_len(op, "shared.0 (w1)", ws1.len(), &[2 * s.ffn, s.hidden])?;
                check_len(op, "shared.1 (w2)", ws2.len(), &[s.hidden, s.ffn])?;
                Some((ws1, ws2))
            }
            (None, false) => None,
            (None, true) => {
                return refuse("the options ask for a shared expert: `shared` is missing");
            }
            (Some(_), false) => {
                return refuse("`shared` is given, but the options have no shared expert");
            }
        };
        Ok((bias, shared))
    }

    /// The bias and shared expert's weights to pass (`checked_weights`' answer): stand-ins
    /// where the layer has none.
    fn standins<'a>(
        &'a self,
        bias: Option<&'a SymmetricBuffer<f32>>,
        shared: Option<(&'a SymmetricBuffer<bf16>, &'a SymmetricBuffer<bf16>)>,
    ) -> (
        &'a SymmetricBuffer<f32>,
        &'a SymmetricBuffer<bf16>,
        &'a SymmetricBuffer<bf16>,
    ) {
        let (ws1, ws2) = shared.unwrap_or((&self.no_weights, &self.no_weights));
        (bias.unwrap_or(&self.no_bias), ws1, ws2)
    }

    /// `(groups, topk_groups, normalize, scale)` of the routing (softmax: one group, scale 1).
    fn routing_parameters(&self) -> (u32, u32, bool, f32) {
        match self.options.routing {
            Routing::Softmax { normalize } => (1, 1, normalize, 1.0),
            Routing::Sigmoid {
                groups,
                topk_groups,
                normalize,
                scale,
            } => (groups, topk_groups, normalize, scale),
        }
    }

    /// Workgroups per rank and the launch's block of kernel `op` (a pipeline's if `pipeline`),
    /// and the `lag` of expert tiles whose round is `round` tasks: twice the tasks the
    /// workgroups hold in between (a pipeline's workgroup holds one in its consumers' hands
    /// and one in a slot; counted in rounds of one row tile's worth, from which the kernels'
    /// rounds of `ops::MOE_ROUND_ROWS` row tiles take how far their second pass trails).
    fn workgroups_and_lag(
        &self,
        world: &World,
        op: &str,
        pipeline: bool,
        round: u32,
    ) -> Result<(u32, u32, u32)> {
        let (subgroups, in_flight) = match pipeline {
            true => (MOE_PIPE_SUBGROUPS, 2),
            false => (MOE_SUBGROUPS, 1),
        };
        let block = subgroups * subgroup_size(world.device());
        let per_rank = match self.workgroups {
            Some(n) => n,
            None => world.persistent_workgroups(&self.modules, op, block)?,
        };
        let lag = (2 * in_flight * per_rank).div_ceil(round) + 1;
        Ok((per_rank, block, lag))
    }

    /// Checks the arguments and queues one launch of the phases `phases` (`ops::moe_forward`).
    fn launch(
        &mut self,
        world: &mut World,
        x: &SymmetricBuffer<bf16>,
        weights: &MoeWeights,
        out: &SymmetricBuffer<bf16>,
        phases: u32,
    ) -> Result<()> {
        let (d, s) = (self.dims, self.shape);
        check_len(OP, "x", x.len(), &[s.tokens, s.hidden])?;
        check_len(OP, "out", out.len(), &[s.tokens, s.hidden])?;
        let (bias, shared) = self.checked_weights(OP, weights)?;
        if self.pipeline {
            self.maps.get(
                world,
                maps_key(x, weights),
                ops::MOE_MAP_WORDS as usize,
                |r| pipeline_maps(r, &self.dims, &self.saved, x, weights),
            )?;
        }
        let (bias, ws1, ws2) = self.standins(bias, shared);
        let sigmoid = matches!(self.options.routing, Routing::Sigmoid { .. });
        let (groups, topk_groups, normalize, scale) = self.routing_parameters();
        // A round of expert tasks: the up-projection tiles of a row tile, then the
        // down-projection tiles of another; the pipeline's tiles are twice as wide.
        let (kernel, round) = match self.pipeline {
            true => (PIPE_KERNEL, d.ffn.div_ceil(128) + d.hidden.div_ceil(256)),
            false => (OP, d.ffn.div_ceil(64) + d.hidden.div_ceil(128)),
        };
        let (per_rank, block, lag) =
            self.workgroups_and_lag(world, kernel, self.pipeline, round)?;
        let [o_send, o_dest, o_blocks, o_local, o_status, o_tiles, o_list] = d.plan_offsets().0;
        let silent = self.silent.unwrap_or(u32::MAX);
        let v = &self.saved;
        // The two kernels take the same arguments, the pipeline's tensor maps after `y`.
        macro_rules! launch {
            ($kernel:ident $(, $maps:expr)?) => {
                ops::$kernel::launch(
                    world,
                    &self.modules,
                    per_rank,
                    block,
                    x,
                    weights.router,
                    bias,
                    weights.w1,
                    weights.w2,
                    ws1,
                    ws2,
                    out,
                    &v.scores,
                    &v.weights,
                    &v.routing,
                    &self.logits,
                    &v.plan,
                    &self.sync,
                    &v.recv,
                    &v.z,
                    &v.h,
                    &v.y,
                    $($maps,)?
                    d.tokens,
                    d.hidden,
                    d.ffn,
                    d.experts,
                    d.topk,
                    d.capacity,
                    d.max_tiles,
                    o_send,
                    o_dest,
                    o_blocks,
                    o_local,
                    o_status,
                    o_tiles,
                    o_list,
                    lag,
                    self.options.shared_expert as u32,
                    sigmoid as u32,
                    groups,
                    topk_groups,
                    normalize as u32,
                    scale,
                    silent,
                    phases,
                )
            };
        }
        match self.pipeline {
            true => launch!(moe_pipeline, self.maps.newest()),
            false => launch!(moe_forward),
        }
        .map_err(Error::World)?;
        self.silent = None;
        Ok(())
    }

    /// Checks the arguments and queues one launch of the phases `phases`
    /// (`ops::moe_backward`).
    #[allow(clippy::too_many_arguments)]
    fn launch_backward(
        &mut self,
        world: &mut World,
        pass: &MoeForwardPass,
        x: &SymmetricBuffer<bf16>,
        dout: &SymmetricBuffer<bf16>,
        weights: &MoeWeights,
        grads: &MoeGradients,
        phases: u32,
    ) -> Result<()> {
        let (d, s) = (self.dims, self.shape);
        let op = BACKWARD_OP;
        if pass.layer != self.id {
            return Err(Error::Shape {
                op,
                message: "the forward pass is another layer's".into(),
            });
        }
        if pass.generation != self.generation {
            return Err(Error::Shape {
                op,
                message: format!(
                    "the forward pass is stale: the layer's saved state is from a later forward pass (or a recovery), {} after it",
                    self.generation - pass.generation
                ),
            });
        }
        let local = d.local() as usize;
        check_len(op, "x", x.len(), &[s.tokens, s.hidden])?;
        check_len(op, "dout", dout.len(), &[s.tokens, s.hidden])?;
        check_len(op, "grads.dx", grads.dx.len(), &[s.tokens, s.hidden])?;
        check_len(
            op,
            "grads.router",
            grads.router.len(),
            &[s.experts, s.hidden],
        )?;
        check_len(
            op,
            "grads.w1",
            grads.w1.len(),
            &[local, 2 * s.ffn, s.hidden],
        )?;
        check_len(op, "grads.w2", grads.w2.len(), &[local, s.hidden, s.ffn])?;
        if self.backward.is_none() {
            self.backward = Some(self.backward_buffers(world)?);
        }
        let (bias, shared) = self.checked_weights(op, weights)?;
        let shared_grads = match (grads.shared, self.options.shared_expert) {
            (Some((a, b)), true) => {
                check_len(op, "grads.shared.0 (w1)", a.len(), &[2 * s.ffn, s.hidden])?;
                check_len(op, "grads.shared.1 (w2)", b.len(), &[s.hidden, s.ffn])?;
                Some((a, b))
            }
            (None, false) => None,
            _ => {
                return Err(Error::Shape {
                    op,
                    message:
                        "`grads.shared` must be given exactly when the layer has a shared expert"
                            .into(),
                });
            }
        };
        let pipeline = self.backward_pipeline();
        if pipeline {
            let b = self.backward.as_ref().expect("allocated above");
            let (dims, saved) = (&self.dims, &self.saved);
            let mut key = maps_key(x, weights);
            key.extend(addresses(dout));
            key.extend(addresses(weights.router));
            key.extend(addresses(grads.w1));
            key.extend(addresses(grads.w2));
            if let Some((dws1, dws2)) = shared_grads {
                key.extend(addresses(dws1));
                key.extend(addresses(dws2));
            }
            let stores = (grads.w1, grads.w2, shared_grads);
            self.backward_maps
                .get(world, key, ops::MOE_BACKWARD_MAP_WORDS as usize, |r| {
                    backward_maps(r, dims, saved, b, x, dout, weights, stores)
                })?;
        }
        let (_, ws1, ws2) = self.standins(bias, shared);
        let (dws1, dws2) = shared_grads.unwrap_or((&self.no_weights, &self.no_weights));
        let sigmoid = matches!(self.options.routing, Routing::Sigmoid { .. });
        let (_, _, normalize, scale) = self.routing_parameters();
        // As the forward's rounds: `dh` tiles of a row tile, then `dx` tiles of another.
        let (kernel, round) = match pipeline {
            true => (
                BACKWARD_PIPE_KERNEL.to_string(),
                d.ffn.div_ceil(256) + d.hidden.div_ceil(256),
            ),
            false => (
                self.backward_group_kernel(world)?,
                d.ffn.div_ceil(128) + d.hidden.div_ceil(128),
            ),
        };
        let (per_rank, block, lag) = self.workgroups_and_lag(world, &kernel, pipeline, round)?;
        let b = self.backward.as_ref().expect("allocated above");
        let [o_send, o_dest, _, o_local, o_status, o_tiles, o_list] = d.plan_offsets().0;
        let v = &self.saved;
        // The two kernels take the same arguments, the pipeline's tensor maps after `sync`.
        macro_rules! launch {
            ($kernel:ident :: $launch:ident ($($instance:expr)?) $(, $maps:expr)?) => {
                ops::$kernel::$launch(
                    world,
                    &self.modules,
                    per_rank,
                    block,
                    $($instance,)?
                    x,
                    dout,
                    weights.router,
                    weights.w1,
                    weights.w2,
                    ws1,
                    ws2,
                    grads.dx,
                    grads.router,
                    grads.w1,
                    grads.w2,
                    dws1,
                    dws2,
                    &v.scores,
                    &v.weights,
                    &v.routing,
                    &v.plan,
                    &v.recv,
                    &v.z,
                    &v.h,
                    &v.y,
                    &b.dweights,
                    &b.dlogits,
                    &b.dx_router,
                    &b.dy,
                    &b.dh,
                    &b.dz,
                    &b.dxe,
                    &b.sync,
                    $($maps,)?
                    d.tokens,
                    d.hidden,
                    d.ffn,
                    d.experts,
                    d.topk,
                    d.capacity,
                    d.max_tiles,
                    o_send,
                    o_dest,
                    o_local,
                    o_status,
                    o_tiles,
                    o_list,
                    lag,
                    self.options.shared_expert as u32,
                    sigmoid as u32,
                    normalize as u32,
                    scale,
                    phases,
                )
            };
        }
        match pipeline {
            true => launch!(moe_backward_pipeline::launch(), self.backward_maps.newest()),
            false => launch!(moe_backward::launch_instance(&kernel)),
        }
        .map_err(Error::World)
    }

    /// `ops::moe_backward`'s instance for `world` ([`MoeLayer::set_backward_staging`]): bf16
    /// tiles stored through its staging tile where every rank's device has the shared
    /// memory for it, else straight from the accumulators (gfx942, whose 64 KiB the ring
    /// alone fills).
    fn backward_group_kernel(&self, world: &World) -> Result<String> {
        let staged = ops::moe_backward::name_of(1);
        let staging = match self.backward_staging {
            Some(on) => on,
            None => {
                let mut fits = true;
                for device in world.devices() {
                    if let Some(module) = self.modules.on(device) {
                        fits &= module.fits(&staged)?;
                    }
                }
                fits
            }
        };
        Ok(ops::moe_backward::name_of(staging.into()))
    }

    fn backward_buffers(&self, world: &mut World) -> Result<BackwardBuffers> {
        let (d, s) = (self.dims, self.shape);
        let rows = d.expert_rows(self.options.shared_expert);
        Ok(BackwardBuffers {
            sync: world.alloc_symmetric(d.backward_sync_words())?,
            dweights: world.alloc_symmetric(s.tokens * s.topk)?,
            dlogits: world.alloc_symmetric(s.tokens * s.experts)?,
            dx_router: world.alloc_symmetric(s.tokens * s.hidden)?,
            dy: world.alloc_symmetric(d.capacity as usize * s.hidden)?,
            dh: world.alloc_symmetric(rows * s.ffn)?,
            dz: world.alloc_symmetric(rows * 2 * s.ffn)?,
            dxe: world.alloc_symmetric(rows * s.hidden)?,
        })
    }

    /// Plants a fault in the next forward pass: rank `rank` pushes its token rows but never
    /// signals them, so its peers' expert tiles wait in vain. Their bounded waits must give
    /// up and [`World::synchronize`] report a timeout naming rank, workgroup and task (then
    /// call [`MoeLayer::recover`]).
    pub fn plant_silent_rank(&mut self, rank: u32) {
        self.silent = Some(rank);
    }

    /// Makes the layer usable again after a launch (forward or backward) that reported a
    /// timeout or an overflow at [`World::synchronize`] (such a launch left its counters
    /// where it stopped; the kernel zeroes them at its end otherwise). Call it after that
    /// synchronize, with nothing queued; in a joined world every process calls it, and
    /// they meet ([`World::meet`]) once every rank's counters are reset. The saved state is
    /// then no forward pass's: a backward pass needs a new forward pass.
    pub fn recover(&mut self, world: &mut World) -> Result<()> {
        self.generation += 1;
        let backward = self.backward.as_ref().map(|b| &b.sync);
        for sync in std::iter::once(&self.sync).chain(backward) {
            for (_, b) in sync.local() {
                b.fill(0)?;
            }
        }
        Ok(world.meet()?)
    }
}

/// Parts of the router's depth (`ops::MOE_ROUTER_DEPTH` columns of `hidden` each): a
/// `tokens x experts` matrix of partial logits each.
fn router_parts(hidden: usize) -> usize {
    hidden.div_ceil(ops::MOE_ROUTER_DEPTH as usize)
}

fn shape(message: String) -> Error {
    Error::Shape { op: OP, message }
}

/// Checks `shape` and `options` for a world of `ranks`, naming the argument at fault.
fn check_shape(ranks: u32, s: &MoeShape, options: &MoeOptions) -> Result<Dims> {
    let ranks_u = ranks as usize;
    if s.tokens == 0 || s.hidden == 0 || s.ffn == 0 || s.experts == 0 {
        return Err(shape(format!("empty shape {s:?}")));
    }
    if !s.experts.is_multiple_of(ranks_u) {
        return Err(shape(format!(
            "experts = {} do not split evenly over the world's {ranks} ranks",
            s.experts
        )));
    }
    for (what, len) in [("experts", s.experts), ("hidden", s.hidden), ("ffn", s.ffn)] {
        if !len.is_multiple_of(8) {
            return Err(shape(format!("{what} = {len} must be a multiple of 8")));
        }
    }
    // The router task keeps a block's picks and two words per expert in shared memory.
    if s.topk == 0 || s.topk > s.experts || s.topk > 128 || s.experts > 8192 {
        return Err(shape(format!(
            "topk = {} must be 1..={} (the experts, at most 128; at most 8192 experts)",
            s.topk,
            s.experts.min(128)
        )));
    }
    if let Routing::Sigmoid {
        groups,
        topk_groups,
        ..
    } = options.routing
    {
        let (g, kg) = (groups as usize, topk_groups as usize);
        if g == 0 || g > 32 || !s.experts.is_multiple_of(g) {
            return Err(shape(format!(
                "groups = {groups} must divide the {} experts (at most 32 groups)",
                s.experts
            )));
        }
        if kg == 0 || kg > g || s.topk > kg * (s.experts / g) {
            return Err(shape(format!(
                "topk_groups = {topk_groups} must be 1..={groups} and leave topk = {} eligible experts",
                s.topk
            )));
        }
    }
    let local = s.experts / ranks_u;
    let worst = ranks_u * s.tokens * s.topk.min(local);
    let capacity = options.capacity.unwrap_or(worst);
    if capacity == 0 {
        return Err(shape("capacity must be at least 1 row".into()));
    }
    let blocks = s.tokens.div_ceil(128);
    let max_tiles = capacity.div_ceil(128) + local + if options.shared_expert { blocks } else { 0 };
    let rows = capacity + s.tokens;
    let z_cols = s.ffn.div_ceil(64) * 128;
    let fits = |n: usize| u32::try_from(n).is_ok();
    let largest = [
        rows * s.hidden.max(z_cols),
        s.tokens * s.experts,
        2 * s.ffn * s.hidden,
        ranks_u * s.tokens * s.topk,
        max_tiles + s.tokens * s.topk + (ranks_u + blocks + 3) * s.experts + 3 * local + 8,
    ];
    if largest.into_iter().any(|n| !fits(n)) {
        return Err(shape(format!(
            "{s:?} with a capacity of {capacity} rows exceeds the kernel's u32 indexing"
        )));
    }
    Ok(Dims {
        ranks,
        tokens: s.tokens as u32,
        hidden: s.hidden as u32,
        ffn: s.ffn as u32,
        experts: s.experts as u32,
        topk: s.topk as u32,
        capacity: capacity as u32,
        max_tiles: max_tiles as u32,
    })
}

/// What [`MoeLayer`]'s pipeline maps depend on besides the layer: every rank's addresses of
/// `x` and the weights.
fn maps_key(x: &SymmetricBuffer<bf16>, weights: &MoeWeights) -> Vec<u64> {
    let mut key = addresses(x);
    key.extend(addresses(weights.w1));
    key.extend(addresses(weights.w2));
    if let Some((ws1, ws2)) = weights.shared {
        key.extend(addresses(ws1));
        key.extend(addresses(ws2));
    }
    key
}

/// Rank `r`'s tensor maps of `ops::moe_pipeline` (`ops::MOE_MAP_WORDS`, in its order): the
/// activations' boxes 128 rows x 64, the weights' 64 x 64; zeros for a shared expert the
/// layer does not have.
fn pipeline_maps(
    r: usize,
    d: &Dims,
    saved: &MoeSaved,
    x: &SymmetricBuffer<bf16>,
    weights: &MoeWeights,
) -> Result<Vec<u64>> {
    let (hidden, ffn, local) = (d.hidden, d.ffn, d.local());
    let rows = (saved.h.len() / ffn as usize) as u32;
    let none = [0; kosmos::runtime::TENSOR_MAP_WORDS];
    let (ws1, ws2) = match weights.shared {
        Some((ws1, ws2)) => (
            tile_map_words(&ws1.ranks()[r], 2 * ffn, hidden, 64)?,
            tile_map_words(&ws2.ranks()[r], hidden, ffn, 64)?,
        ),
        None => (none, none),
    };
    Ok([
        tile_map_words(&saved.recv.ranks()[r], d.capacity, hidden, 128)?,
        tile_map_words(&x.ranks()[r], d.tokens, hidden, 128)?,
        tile_map_words(&weights.w1.ranks()[r], local * 2 * ffn, hidden, 64)?,
        ws1,
        tile_map_words(&saved.h.ranks()[r], rows, ffn, 128)?,
        tile_map_words(&weights.w2.ranks()[r], local * hidden, ffn, 64)?,
        ws2,
    ]
    .concat())
}

/// The weight gradients `moe_backward_pipeline` stores by tensor stores: the experts' `dw1`
/// and `dw2`, and the shared expert's where the layer has one.
type GradientStores<'a> = (
    &'a SymmetricBuffer<bf16>,
    &'a SymmetricBuffer<bf16>,
    Option<(&'a SymmetricBuffer<bf16>, &'a SymmetricBuffer<bf16>)>,
);

/// Rank `r`'s tensor maps of `ops::moe_backward_pipeline` (`ops::MOE_BACKWARD_MAP_WORDS`, in
/// its order): `dy`, `dout`, `dz`, `dlogits` in boxes of 128 rows x 64 and again of 64 x 64,
/// then the weights, `x`, `h` and `recv` in boxes of 64 x 64, then the weight gradients
/// `dw2`, `dws2`, `dw1`, `dws1` in boxes of 16 x 64 (the experts' stacked); zeros for a
/// shared expert the layer does not have.
#[allow(clippy::too_many_arguments)]
fn backward_maps(
    r: usize,
    d: &Dims,
    saved: &MoeSaved,
    b: &BackwardBuffers,
    x: &SymmetricBuffer<bf16>,
    dout: &SymmetricBuffer<bf16>,
    weights: &MoeWeights,
    (dw1, dw2, shared_grads): GradientStores,
) -> Result<Vec<u64>> {
    let (hidden, ffn, local) = (d.hidden, d.ffn, d.local());
    let rows = (saved.h.len() / ffn as usize) as u32;
    let read_as_a = [
        (&b.dy, d.capacity, hidden),
        (dout, d.tokens, hidden),
        (&b.dz, rows, 2 * ffn),
        (&b.dlogits, d.tokens, d.experts),
    ];
    let mut words = Vec::with_capacity(ops::MOE_BACKWARD_MAP_WORDS as usize);
    for box_rows in [128, 64] {
        for (t, rows, cols) in read_as_a {
            words.extend(tile_map_words(&t.ranks()[r], rows, cols, box_rows)?);
        }
    }
    let none = [0; kosmos::runtime::TENSOR_MAP_WORDS];
    let (ws1, ws2) = match weights.shared {
        Some((ws1, ws2)) => (
            tile_map_words(&ws1.ranks()[r], 2 * ffn, hidden, 64)?,
            tile_map_words(&ws2.ranks()[r], hidden, ffn, 64)?,
        ),
        None => (none, none),
    };
    words.extend(tile_map_words(
        &weights.w2.ranks()[r],
        local * hidden,
        ffn,
        64,
    )?);
    words.extend(ws2);
    words.extend(tile_map_words(
        &weights.w1.ranks()[r],
        local * 2 * ffn,
        hidden,
        64,
    )?);
    words.extend(ws1);
    words.extend(tile_map_words(
        &weights.router.ranks()[r],
        d.experts,
        hidden,
        64,
    )?);
    words.extend(tile_map_words(&x.ranks()[r], d.tokens, hidden, 64)?);
    words.extend(tile_map_words(&saved.h.ranks()[r], rows, ffn, 64)?);
    words.extend(tile_map_words(
        &saved.recv.ranks()[r],
        d.capacity,
        hidden,
        64,
    )?);
    let slabs = |t: &SymmetricBuffer<bf16>, rows: u32, cols: u32| {
        tile_map_words(&t.ranks()[r], rows, cols, ops::MOE_STORE_BOX_ROWS)
    };
    let (dws1, dws2) = match shared_grads {
        Some((dws1, dws2)) => (slabs(dws1, 2 * ffn, hidden)?, slabs(dws2, hidden, ffn)?),
        None => (none, none),
    };
    words.extend(slabs(dw2, local * hidden, ffn)?);
    words.extend(dws2);
    words.extend(slabs(dw1, local * 2 * ffn, hidden)?);
    words.extend(dws1);
    Ok(words)
}
