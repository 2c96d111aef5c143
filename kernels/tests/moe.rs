//! The one-launch MoE layer forward pass on CPU-device worlds of 1, 2 and 4 ranks with small
//! ragged shapes, against the f64 reference of `kosmos_testkernels::moe`: routing identical,
//! outputs within a relative bound, two workgroup counts and the unfused sequence of launches
//! bitwise equal; skewed routing (every
//! token to one expert, empty experts); bad input refused before launch; a silent rank and a
//! receive overflow reported at synchronize; a joined world (threads for processes) bitwise
//! as an emulated one. Outputs are poisoned before every run, inputs fresh random values
//! (seed printed; `KOSMOS_SEED` replays).

mod common;
mod joined;
use common::{download, sym, test_device, world};
use kernels::{Error, MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, Routing};
use kosmos::bf16;
use kosmos::runtime::{Device, SymmetricBuffer, World, WorldError, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe::backward::MoeGradients as ReferenceGradients;
use kosmos_testkernels::moe::{self as reference, MoeReference, Rounding};
use kosmos_testkernels::{random_bf16, seed};

const EXPERTS: usize = 8;
const TOPK: usize = 2;
const HIDDEN: usize = 64;
const FFN: usize = 48;

/// Random weights of a world (`scale`d so activations stay near 1), as host vectors.
#[derive(Clone)]
struct HostWeights {
    router: Vec<bf16>,
    bias: Vec<f32>,
    w1: Vec<Vec<bf16>>,
    w2: Vec<Vec<bf16>>,
    shared: Option<(Vec<bf16>, Vec<bf16>)>,
}

fn scaled(seed: u64, len: usize, scale: f64) -> Vec<bf16> {
    random_bf16(seed, len)
        .into_iter()
        .map(|v| bf16::from_f64(v.to_f64() * scale))
        .collect()
}

impl HostWeights {
    fn random(s: u64, ranks: usize, shape: &MoeShape, shared: bool) -> HostWeights {
        let (e, h, f) = (shape.experts, shape.hidden, shape.ffn);
        let local = e / ranks;
        let (in_scale, out_scale) = (2.0 / (h as f64).sqrt(), 2.0 / (f as f64).sqrt());
        HostWeights {
            router: scaled(s, e * h, 4.0 / (h as f64).sqrt()),
            bias: random_bf16(s + 1, e)
                .into_iter()
                .map(|v| v.to_f32() * 0.05)
                .collect(),
            w1: (0..ranks)
                .map(|r| scaled(s + 10 + r as u64, local * 2 * f * h, in_scale))
                .collect(),
            w2: (0..ranks)
                .map(|r| scaled(s + 50 + r as u64, local * h * f, out_scale))
                .collect(),
            shared: shared.then(|| {
                (
                    scaled(s + 90, 2 * f * h, in_scale),
                    scaled(s + 91, h * f, out_scale),
                )
            }),
        }
    }

    fn reference(&self) -> reference::MoeWeights<'_> {
        reference::MoeWeights {
            router: &self.router,
            bias: &self.bias,
            w1: &self.w1,
            w2: &self.w2,
            shared: self.shared.as_ref().map(|(a, b)| (&a[..], &b[..])),
        }
    }
}

/// The same weights on a world.
struct DeviceWeights {
    router: SymmetricBuffer<bf16>,
    bias: SymmetricBuffer<f32>,
    w1: SymmetricBuffer<bf16>,
    w2: SymmetricBuffer<bf16>,
    shared: Option<(SymmetricBuffer<bf16>, SymmetricBuffer<bf16>)>,
}

impl DeviceWeights {
    fn new(world: &mut World, w: &HostWeights) -> DeviceWeights {
        let ranks = world.ranks() as usize;
        let every = |v: &Vec<bf16>| vec![v.clone(); ranks];
        DeviceWeights {
            router: sym(world, &every(&w.router)),
            bias: sym(world, &vec![w.bias.clone(); ranks]),
            w1: sym(world, &w.w1),
            w2: sym(world, &w.w2),
            shared: w
                .shared
                .as_ref()
                .map(|(a, b)| (sym(world, &every(a)), sym(world, &every(b)))),
        }
    }

    fn args(&self, sigmoid: bool) -> MoeWeights<'_> {
        MoeWeights {
            router: &self.router,
            bias: sigmoid.then_some(&self.bias),
            w1: &self.w1,
            w2: &self.w2,
            shared: self.shared.as_ref().map(|(a, b)| (a, b)),
        }
    }
}

fn reference_routing(routing: Routing) -> reference::Routing {
    match routing {
        Routing::Softmax { normalize } => reference::Routing::Softmax { normalize },
        Routing::Sigmoid {
            groups,
            topk_groups,
            normalize,
            scale,
        } => reference::Routing::Sigmoid {
            groups: groups as usize,
            topk_groups: topk_groups as usize,
            normalize,
            scale: scale as f64,
        },
    }
}

/// The small layer of these tests with `tokens` per rank.
fn small_shape(tokens: usize) -> MoeShape {
    MoeShape {
        experts: EXPERTS,
        topk: TOPK,
        tokens,
        hidden: HIDDEN,
        ffn: FFN,
    }
}

const SOFTMAX: Routing = Routing::Softmax { normalize: true };
const SIGMOID: Routing = Routing::Sigmoid {
    groups: 4,
    topk_groups: 2,
    normalize: true,
    scale: 2.5,
};

/// Worlds of the forward and backward tests: ranks, tokens per rank, routing, shared expert.
const CASES: [(u32, usize, Routing, bool); 5] = [
    (1, 37, SOFTMAX, false),
    (2, 130, SIGMOID, true),
    (2, 33, Routing::Softmax { normalize: false }, false),
    (4, 20, SOFTMAX, true),
    (4, 57, SIGMOID, false),
];

/// Random weights and tokens of the small layer on a world of `ranks` with `tokens` per
/// rank; with `hot` experts, a router that sends every token to them
/// (`reference::skewed_router`).
fn inputs(
    ranks: u32,
    tokens: usize,
    shared: bool,
    hot: Option<&[usize]>,
    s: u64,
) -> (reference::MoeShape, HostWeights, Vec<Vec<bf16>>) {
    inputs_of(ranks, small_shape(tokens), shared, hot, s)
}

/// [`inputs`] of a layer of any `shape`.
fn inputs_of(
    ranks: u32,
    shape: MoeShape,
    shared: bool,
    hot: Option<&[usize]>,
    s: u64,
) -> (reference::MoeShape, HostWeights, Vec<Vec<bf16>>) {
    let r_us = ranks as usize;
    let ref_shape = reference::MoeShape {
        ranks: r_us,
        experts: shape.experts,
        tokens: shape.tokens,
        hidden: shape.hidden,
        ffn: shape.ffn,
        topk: shape.topk,
    };
    let mut host = HostWeights::random(s, r_us, &shape, shared);
    let mut x: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(s + 200 + r as u64, shape.tokens * shape.hidden))
        .collect();
    if let Some(hot) = hot {
        host.router = reference::skewed_router(&ref_shape, hot, 7);
        for xr in &mut x {
            reference::anchor_tokens(xr, shape.hidden);
        }
    }
    (ref_shape, host, x)
}

/// One forward pass of a world of `ranks` with `tokens` per rank, checked against the
/// reference: every rank's picks identical, weights and outputs within bounds, and with 1
/// and 3 workgroups per rank bitwise equal; `hot` as [`inputs`] says.
fn check_forward(
    ranks: u32,
    shape: MoeShape,
    routing: Routing,
    shared: bool,
    hot: Option<&[usize]>,
    s: u64,
) -> MoeReference {
    let tokens = shape.tokens;
    let what = format!("{ranks} ranks, {shape:?}, {routing:?}, shared expert {shared}");
    let r_us = ranks as usize;
    let (ref_shape, host, x) = inputs_of(ranks, shape, shared, hot, s);
    let want = MoeReference::new(
        &x,
        &ref_shape,
        &host.reference(),
        &reference_routing(routing),
    );

    let mut world = world(ranks);
    let options = MoeOptions {
        routing,
        shared_expert: shared,
        capacity: None,
    };
    let mut layer = MoeLayer::new(&mut world, shape, options).unwrap();
    let weights = DeviceWeights::new(&mut world, &host);
    let xs = sym(&mut world, &x);
    let out = world
        .alloc_symmetric::<bf16>(tokens * shape.hidden)
        .unwrap();
    let sigmoid = matches!(routing, Routing::Sigmoid { .. });
    let mut runs = Vec::new();
    for per_rank in [1, 3] {
        for b in out.ranks() {
            b.fill(bf16::NAN).unwrap();
        }
        layer.set_workgroups_per_rank(Some(per_rank));
        layer
            .forward(&mut world, &xs, &weights.args(sigmoid), &out)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        world
            .synchronize()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        runs.push(download(&out));
    }
    assert!(
        runs[0] == runs[1],
        "{what}: 1 and 3 workgroups per rank differ"
    );
    // The same work as an unfused sequence of launches gives the same bits.
    for b in out.ranks() {
        b.fill(bf16::NAN).unwrap();
    }
    layer
        .forward_unfused(&mut world, &xs, &weights.args(sigmoid), &out)
        .unwrap_or_else(|e| panic!("{what}, unfused: {e}"));
    world.synchronize().unwrap();
    assert!(
        download(&out) == runs[1],
        "{what}: the unfused sequence differs"
    );
    // The group mainloop (HIP's forward pass) gives the same bits as the pipeline (the
    // default here), in the output and in what the backward pass reads.
    let activations = |layer: &MoeLayer| (download(&layer.saved().h), download(&layer.saved().y));
    let pipelined = activations(&layer);
    layer.set_pipeline(false).unwrap();
    for b in out.ranks() {
        b.fill(bf16::NAN).unwrap();
    }
    layer
        .forward(&mut world, &xs, &weights.args(sigmoid), &out)
        .unwrap_or_else(|e| panic!("{what}, group mainloop: {e}"));
    world.synchronize().unwrap();
    assert!(
        download(&out) == runs[1] && activations(&layer) == pipelined,
        "{what}: the group mainloop differs from the pipeline"
    );
    let routing_words = download(&layer.saved().routing);
    let picked_weights = download(&layer.saved().weights);
    for r in 0..r_us {
        let picks: Vec<u32> = want.routes[r]
            .iter()
            .flat_map(|t| t.experts.clone())
            .collect();
        assert_eq!(
            routing_words[r][..tokens * shape.topk],
            picks[..],
            "{what}: rank {r}'s picks"
        );
        let weights: Vec<f64> = want.routes[r]
            .iter()
            .flat_map(|t| t.weights.clone())
            .collect();
        compare::rel_err(
            &picked_weights[r],
            &weights,
            Scale::Each { floor: 1e-3 },
            1e-5,
        )
        .assert(format!("{what}: rank {r}'s weights"));
        // bf16 roundings of the activations (the reference rounds at the same points, but
        // its f64 sums may round the other way) and of the output, relative to the larger of
        // an element and the outputs' root mean square.
        let rms =
            (want.out[r].iter().map(|v| v * v).sum::<f64>() / want.out[r].len() as f64).sqrt();
        compare::rel_err(&runs[1][r], &want.out[r], Scale::Each { floor: rms }, 3e-2)
            .assert(format!("{what}: rank {r}'s output"));
    }
    want
}

#[test]
fn moe_forward_matches_the_reference() {
    let s = seed();
    for (i, (ranks, tokens, routing, shared)) in CASES.into_iter().enumerate() {
        check_forward(
            ranks,
            small_shape(tokens),
            routing,
            shared,
            None,
            s + 1000 * i as u64,
        );
    }
}

/// A wider layer: the expert tiles (128 rows by 256 columns on the pipeline, 128 on the
/// group mainloop) cut at every edge — a second up-projection tile with 8 of its 128
/// features, the first one's second half partly filled, a down-projection tile of 8
/// columns.
#[test]
fn moe_forward_cuts_wide_tiles_at_every_edge() {
    let shape = MoeShape {
        experts: EXPERTS,
        topk: TOPK,
        tokens: 24,
        hidden: 264,
        ffn: 136,
    };
    check_forward(2, shape, SIGMOID, true, None, seed());
}

/// A deep router: `hidden` past twice `ops::MOE_ROUTER_DEPTH`, so that each block's logits
/// are the sum of three partial tiles, the last one ragged.
#[test]
fn moe_forward_sums_the_router_over_parts_of_its_depth() {
    let hidden = 2 * kernels::ops::MOE_ROUTER_DEPTH as usize + 264;
    let shape = MoeShape {
        experts: EXPERTS,
        topk: TOPK,
        tokens: 24,
        hidden,
        ffn: FFN,
    };
    check_forward(2, shape, SOFTMAX, false, None, seed());
}

/// Many experts: 128, in two groups of 64 (wider than a subgroup, so each lane ranks several
/// of a group's experts before the lanes' best are merged), then 4104; picks identical to the
/// reference. The routers are skewed (`reference::skewed_router`: the hot experts' logits
/// exact and well apart) so that no two keys near a pick come within rounding of each
/// other, which with 128 random logits a token happens often enough to make picks compared
/// with an f64 reference flaky.
#[test]
fn moe_forward_routes_among_many_experts() {
    let shape = |topk| MoeShape {
        experts: 128,
        topk,
        tokens: 40,
        hidden: HIDDEN,
        ffn: FFN,
    };
    let grouped = |topk_groups| Routing::Sigmoid {
        groups: 2,
        topk_groups,
        normalize: true,
        scale: 1.0,
    };
    // Top-8 of softmax over all 128: four hot experts share lane 3, four lane 4.
    let softmax = Routing::Softmax { normalize: false };
    let hot = [100, 3, 67, 35, 99, 4, 36, 68];
    check_forward(2, shape(8), softmax, false, Some(&hot), seed());
    // Top-8 within the better of two groups, the hot ones all in group 0.
    let hot = [3, 35, 10, 42, 17, 49, 60, 28];
    check_forward(2, shape(8), grouped(1), false, Some(&hot), seed());
    // Group 0's two best keys (experts 3 and 35) lie in one lane's experts: the group's
    // score needs the lane's second best, and beats group 1's (expert 70 the hottest alone,
    // then a random one).
    check_forward(2, shape(2), grouped(1), false, Some(&[70, 3, 35]), seed());
    // More experts than the counts' token masks hold at once (two windows of them), and keys
    // of which only three tokens fit the shared memory the router's picks have (three
    // subgroups route at once).
    let all = MoeShape {
        experts: 4104,
        ..shape(2)
    };
    check_forward(2, all, softmax, false, Some(&[4100, 4000, 3]), seed());
}

/// Every token's first pick is expert 5, its second expert 2: the other experts get no
/// tokens, and one rank receives every row of the world.
#[test]
fn moe_forward_handles_skewed_routing_and_empty_experts() {
    let s = seed();
    for ranks in [1, 2, 4] {
        let want = check_forward(
            ranks,
            small_shape(45),
            SOFTMAX,
            ranks == 2,
            Some(&[5, 2]),
            s + ranks as u64,
        );
        let counts = reference::tokens_per_expert(want.routes.iter().flatten(), EXPERTS);
        let total = 45 * ranks as usize;
        assert_eq!(counts, [0, 0, total, 0, 0, total, 0, 0], "{ranks} ranks");
    }
}

fn small_layer(world: &mut World, tokens: usize, capacity: Option<usize>) -> MoeLayer {
    let shape = small_shape(tokens);
    let options = MoeOptions {
        routing: SOFTMAX,
        shared_expert: false,
        capacity,
    };
    let mut layer = MoeLayer::new(world, shape, options).unwrap();
    layer.set_workgroups_per_rank(Some(FEW_WORKGROUPS));
    layer
}

/// Workgroups per rank of the tests that do not vary them: every workgroup of a CPU world
/// is a thread, and the CPU device's watchdog (8 s) must not take a loaded machine's slow
/// start of many for a deadlock.
const FEW_WORKGROUPS: u32 = 3;

/// A world of `ranks` with random tokens and weights of the small shape: the layer, its
/// tokens, weights and output.
fn small_world(
    ranks: u32,
    tokens: usize,
    capacity: Option<usize>,
    s: u64,
    options: WorldOptions,
) -> (
    World,
    MoeLayer,
    SymmetricBuffer<bf16>,
    DeviceWeights,
    SymmetricBuffer<bf16>,
) {
    let mut world = World::emulated(&test_device(), ranks, options).unwrap();
    let layer = small_layer(&mut world, tokens, capacity);
    let shape = layer.shape();
    let host = HostWeights::random(s, ranks as usize, &shape, false);
    let weights = DeviceWeights::new(&mut world, &host);
    let x: Vec<Vec<bf16>> = (0..ranks)
        .map(|r| random_bf16(s + 7 + r as u64, tokens * HIDDEN))
        .collect();
    let xs = sym(&mut world, &x);
    let out = world.alloc_symmetric::<bf16>(tokens * HIDDEN).unwrap();
    (world, layer, xs, weights, out)
}

/// Wrong shapes, weights and routing are refused before launch, naming what is wrong.
#[test]
fn moe_forward_refuses_bad_input_naming_it() {
    let mut world = world(2);
    let shape = small_shape(16);
    let options = MoeOptions {
        routing: SOFTMAX,
        shared_expert: false,
        capacity: None,
    };
    let refused = |world: &mut World, shape: MoeShape, options: MoeOptions| match MoeLayer::new(
        world, shape, options,
    ) {
        Err(Error::Shape { message, .. }) => message,
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("{shape:?} {options:?} accepted"),
    };
    let topk = MoeShape { topk: 9, ..shape };
    assert!(refused(&mut world, topk, options).contains("topk = 9"));
    let experts = MoeShape {
        experts: 12,
        ..shape
    };
    let mut three = self::world(3);
    let message = refused(
        &mut three,
        MoeShape {
            experts: 16,
            ..shape
        },
        options,
    );
    assert!(
        message.contains("experts = 16") && message.contains("3 ranks"),
        "{message}"
    );
    assert!(refused(&mut world, experts, options).contains("experts = 12"));
    let groups = MoeOptions {
        routing: Routing::Sigmoid {
            groups: 3,
            topk_groups: 1,
            normalize: true,
            scale: 1.0,
        },
        ..options
    };
    assert!(refused(&mut world, shape, groups).contains("groups = 3"));

    let (mut world, mut layer, x, weights, out) =
        small_world(2, 16, None, seed(), WorldOptions::default());
    let short = world
        .alloc_symmetric::<bf16>(EXPERTS / 2 * 2 * FFN * HIDDEN - 8)
        .unwrap();
    let args = MoeWeights {
        w1: &short,
        ..weights.args(false)
    };
    match layer.forward(&mut world, &x, &args, &out) {
        Err(Error::Shape { message, .. }) => assert!(message.starts_with("w1 has"), "{message}"),
        other => panic!("a short w1 gave {other:?}"),
    }
    match layer.forward(&mut world, &x, &weights.args(true), &out) {
        Err(Error::Shape { message, .. }) => assert!(message.contains("bias"), "{message}"),
        other => panic!("a bias with softmax routing gave {other:?}"),
    }
}

/// A rank that pushes its rows but never signals them: its peers' expert tiles time out, the
/// error names a rank, workgroup and task, and after `recover` the layer runs correctly.
#[test]
fn a_silent_rank_is_reported_not_a_hang() {
    let s = seed();
    // Few workgroups and a short bound: the CPU device's waits give up in well under a
    // second.
    let options = WorldOptions {
        wait_bound: Some(200),
        ..WorldOptions::default()
    };
    let (mut world, mut layer, x, weights, out) = small_world(2, 40, None, s, options);
    layer.set_workgroups_per_rank(Some(2));
    layer
        .forward(&mut world, &x, &weights.args(false), &out)
        .unwrap();
    world.synchronize().unwrap();
    let good = download(&out);
    layer.plant_silent_rank(1);
    layer
        .forward(&mut world, &x, &weights.args(false), &out)
        .unwrap();
    match world.synchronize() {
        Err(WorldError::Timeout { records }) => {
            let text = format!(
                "{}",
                WorldError::Timeout {
                    records: records.clone()
                }
            );
            assert!(
                text.contains("workgroup") && text.contains("task"),
                "{text}"
            );
            assert!(!records.is_empty());
        }
        other => panic!("a silent rank gave {other:?}"),
    }
    layer.recover(&mut world).unwrap();
    for b in out.ranks() {
        b.fill(bf16::NAN).unwrap();
    }
    layer
        .forward(&mut world, &x, &weights.args(false), &out)
        .unwrap();
    world.synchronize().unwrap();
    assert!(download(&out) == good, "after recover");
}

/// Every token to experts 5 and 6 (both on rank 1 of 2), with room for a quarter: rank 1
/// reports the overflow at synchronize, nothing is written, and with room the layer runs.
#[test]
fn a_receive_overflow_is_reported() {
    let s = seed();
    let tokens = 40;
    let (mut world, mut layer, x, mut weights, out) =
        small_world(2, tokens, Some(tokens), s, WorldOptions::default());
    let shape = reference::MoeShape {
        ranks: 2,
        experts: EXPERTS,
        tokens,
        hidden: HIDDEN,
        ffn: FFN,
        topk: TOPK,
    };
    let router = reference::skewed_router(&shape, &[5, 6], 3);
    weights.router = sym(&mut world, &vec![router; 2]);
    let anchored: Vec<Vec<bf16>> = x
        .ranks()
        .iter()
        .map(|b| {
            let mut v = b.download().unwrap();
            reference::anchor_tokens(&mut v, HIDDEN);
            v
        })
        .collect();
    let x = sym(&mut world, &anchored);
    for b in out.ranks() {
        b.fill(bf16::NAN).unwrap();
    }
    layer
        .forward(&mut world, &x, &weights.args(false), &out)
        .unwrap();
    match world.synchronize() {
        Err(WorldError::CapacityExceeded { records, .. }) => {
            assert_eq!(records.len(), 1, "{records:?}");
            let text = format!("{}", records[0]);
            assert!(text.contains("rank 1"), "{text}");
            assert!(text.contains(&format!("{}", 4 * tokens)), "{text}");
        }
        other => panic!("an overflow gave {other:?}"),
    }
    assert!(
        download(&out).iter().flatten().all(|v| v.is_nan()),
        "an overflowing pass wrote its output"
    );
    layer.recover(&mut world).unwrap();
    let mut roomy = small_layer(&mut world, tokens, None);
    roomy
        .forward(&mut world, &x, &weights.args(false), &out)
        .unwrap();
    world.synchronize().unwrap();
    assert!(download(&out).iter().flatten().all(|v| !v.is_nan()));
}

/// The forward pass captured once and replayed: no host work inside the launch, so a graph
/// of it gives the eager pass's bits every time.
#[test]
fn a_captured_forward_replays_the_eager_result() {
    let (mut world, mut layer, x, weights, out) =
        small_world(2, 33, None, seed(), WorldOptions::default());
    layer
        .forward(&mut world, &x, &weights.args(false), &out)
        .unwrap();
    world.synchronize().unwrap();
    let eager = download(&out);
    let graph = world
        .capture(|world| {
            layer
                .forward(world, &x, &weights.args(false), &out)
                .map(drop)
                .map_err(|e| match e {
                    Error::World(e) => e,
                    e => panic!("{e}"),
                })
        })
        .unwrap();
    for _ in 0..3 {
        for b in out.ranks() {
            b.fill(bf16::NAN).unwrap();
        }
        // SAFETY: the layer's buffers and every argument outlive the replays.
        unsafe { graph.replay(&mut world) }.unwrap();
        world.synchronize().unwrap();
        assert!(
            download(&out) == eager,
            "a replay differs from the eager pass"
        );
    }
}

/// A world's gradient buffers (`kernels::MoeGradients` borrows them).
struct DeviceGradients {
    dx: SymmetricBuffer<bf16>,
    router: SymmetricBuffer<f32>,
    w1: SymmetricBuffer<bf16>,
    w2: SymmetricBuffer<bf16>,
    shared: Option<(SymmetricBuffer<bf16>, SymmetricBuffer<bf16>)>,
}

/// One vector per rank.
type PerRank<T> = Vec<Vec<T>>;

/// Their contents.
#[derive(PartialEq)]
struct HostGradients {
    dx: PerRank<bf16>,
    router: PerRank<f32>,
    w1: PerRank<bf16>,
    w2: PerRank<bf16>,
    shared: Option<(PerRank<bf16>, PerRank<bf16>)>,
}

impl DeviceGradients {
    fn new(world: &mut World, shape: &MoeShape, shared: bool) -> DeviceGradients {
        let (t, e, h, f) = (shape.tokens, shape.experts, shape.hidden, shape.ffn);
        let local = e / world.ranks() as usize;
        DeviceGradients {
            dx: world.alloc_symmetric(t * h).unwrap(),
            router: world.alloc_symmetric(e * h).unwrap(),
            w1: world.alloc_symmetric(local * 2 * f * h).unwrap(),
            w2: world.alloc_symmetric(local * h * f).unwrap(),
            shared: shared.then(|| {
                (
                    world.alloc_symmetric(2 * f * h).unwrap(),
                    world.alloc_symmetric(h * f).unwrap(),
                )
            }),
        }
    }

    fn args(&self) -> MoeGradients<'_> {
        MoeGradients {
            dx: &self.dx,
            router: &self.router,
            w1: &self.w1,
            w2: &self.w2,
            shared: self.shared.as_ref().map(|(a, b)| (a, b)),
        }
    }

    /// Fills the local ranks' copies with NaN.
    fn poison(&self) {
        let bf16s = [&self.dx, &self.w1, &self.w2]
            .into_iter()
            .chain(self.shared.iter().flat_map(|(a, b)| [a, b]));
        for (_, b) in bf16s.flat_map(|s| s.local()) {
            b.fill(bf16::NAN).unwrap();
        }
        for (_, b) in self.router.local() {
            b.fill(f32::NAN).unwrap();
        }
    }

    fn download(&self) -> HostGradients {
        HostGradients {
            dx: download(&self.dx),
            router: download(&self.router),
            w1: download(&self.w1),
            w2: download(&self.w2),
            shared: self
                .shared
                .as_ref()
                .map(|(a, b)| (download(a), download(b))),
        }
    }
}

fn rms(v: &[f64]) -> f64 {
    (v.iter().map(|v| v * v).sum::<f64>() / v.len() as f64).sqrt()
}

/// The sum over the ranks of a replicated weight's gradient parts.
fn summed<T: Copy + Into<f64>>(parts: &[Vec<T>]) -> Vec<f64> {
    let mut sum = vec![0f64; parts[0].len()];
    for part in parts {
        for (s, &v) in sum.iter_mut().zip(part) {
            *s += v.into();
        }
    }
    sum
}

/// Within 3e-2 of the larger of the element and the reference's root mean square: bf16
/// roundings of the gradients the kernel hands on (the reference rounds at the same points,
/// but its f64 sums may round the other way) and of the results.
fn assert_close<T: Copy + Into<f64>>(got: &[T], want: &[f64], what: String) {
    compare::rel_err(got, want, Scale::Each { floor: rms(want) }, 3e-2).assert(what);
}

/// One backward pass of a world of `ranks` with `tokens` per rank (inputs as [`inputs`]),
/// checked against the f64 reference of `reference::backward`: `dx` and every local expert's
/// weight gradients per rank, the router's and the shared expert's summed over the ranks;
/// with 1 and 3 workgroups per rank, as the unfused sequence and on the group mainloop
/// bitwise equal.
fn check_backward(
    ranks: u32,
    shape: MoeShape,
    routing: Routing,
    shared: bool,
    hot: Option<&[usize]>,
    s: u64,
) {
    let tokens = shape.tokens;
    let what = format!("{ranks} ranks, {shape:?}, {routing:?}, shared expert {shared}");
    let r_us = ranks as usize;
    let (ref_shape, host, x) = inputs_of(ranks, shape, shared, hot, s);
    let dout: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(s + 300 + r as u64, tokens * shape.hidden))
        .collect();
    let want = ReferenceGradients::new(
        &x,
        &dout,
        &ref_shape,
        &host.reference(),
        &reference_routing(routing),
        Rounding::Bf16,
    );

    let mut world = world(ranks);
    let options = MoeOptions {
        routing,
        shared_expert: shared,
        capacity: None,
    };
    let mut layer = MoeLayer::new(&mut world, shape, options).unwrap();
    let weights = DeviceWeights::new(&mut world, &host);
    let args = weights.args(matches!(routing, Routing::Sigmoid { .. }));
    let (xs, douts) = (sym(&mut world, &x), sym(&mut world, &dout));
    let out = world
        .alloc_symmetric::<bf16>(tokens * shape.hidden)
        .unwrap();
    let grads = DeviceGradients::new(&mut world, &shape, shared);
    let pass = layer.forward(&mut world, &xs, &args, &out).unwrap();
    let mut runs = Vec::new();
    // The pipeline (the default here) with 1 and 3 workgroups, fused and unfused; then the
    // group mainloop (HIP's), its bf16 tiles stored through the staging tile and (gfx942's
    // instance) from the accumulators.
    for (per_rank, unfused, pipeline, staging) in [
        (1, false, true, None),
        (3, false, true, None),
        (3, true, true, None),
        (2, false, false, None),
        (2, false, false, Some(false)),
    ] {
        grads.poison();
        layer.set_pipeline(pipeline).unwrap();
        layer.set_backward_staging(staging);
        layer.set_workgroups_per_rank(Some(per_rank));
        let run = if unfused {
            MoeLayer::backward_unfused
        } else {
            MoeLayer::backward
        };
        run(
            &mut layer,
            &mut world,
            &pass,
            &xs,
            &douts,
            &args,
            &grads.args(),
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        world
            .synchronize()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        runs.push(grads.download());
    }
    assert!(
        runs[0] == runs[1],
        "{what}: 1 and 3 workgroups per rank differ"
    );
    assert!(runs[1] == runs[2], "{what}: the unfused sequence differs");
    assert!(
        runs[1] == runs[3],
        "{what}: the group mainloop differs from the pipeline"
    );
    assert!(
        runs[3] == runs[4],
        "{what}: the group mainloop's stores from the accumulators differ from the staged ones"
    );
    let got = &runs[0];
    for r in 0..r_us {
        assert_close(&got.dx[r], &want.dx[r], format!("{what}: rank {r}'s dx"));
        assert_close(&got.w1[r], &want.w1[r], format!("{what}: rank {r}'s dw1"));
        assert_close(&got.w2[r], &want.w2[r], format!("{what}: rank {r}'s dw2"));
    }
    assert_close(
        &summed(&got.router),
        &want.router,
        format!("{what}: the router's gradient"),
    );
    if let (Some((g1, g2)), Some((w1, w2))) = (&got.shared, &want.shared) {
        assert_close(&summed(g1), w1, format!("{what}: the shared dw1"));
        assert_close(&summed(g2), w2, format!("{what}: the shared dw2"));
    }
}

#[test]
fn moe_backward_matches_the_reference() {
    let s = seed();
    for (i, (ranks, tokens, routing, shared)) in CASES.into_iter().enumerate() {
        check_backward(
            ranks,
            small_shape(tokens),
            routing,
            shared,
            None,
            s + 1000 * i as u64,
        );
    }
}

/// Every token to experts 5 and 2: the other experts' weight gradients are zeros, and one
/// rank computes every row's (75, 150, 300 rows: weight-gradient sums of two, three and
/// five 64-deep steps).
#[test]
fn moe_backward_handles_skewed_routing_and_empty_experts() {
    let s = seed();
    for ranks in [1, 2, 4] {
        check_backward(
            ranks,
            small_shape(75),
            SOFTMAX,
            ranks == 2,
            Some(&[5, 2]),
            s + ranks as u64,
        );
    }
}

/// A wider layer, as the forward's test of tile edges: the backward pass's tiles (128 rows
/// by 256 columns on the pipeline) cut at every edge — a second `dh` tile of 8 features, a
/// `dx` tile of 8 columns, weight-gradient blocks of 8 rows, a `2 ffn` (the `dx` tiles' sum)
/// that is no multiple of 64.
#[test]
fn moe_backward_cuts_wide_tiles_at_every_edge() {
    let shape = MoeShape {
        experts: EXPERTS,
        topk: TOPK,
        tokens: 24,
        hidden: 264,
        ffn: 264,
    };
    check_backward(2, shape, SIGMOID, true, None, seed());
}

/// A `dout` of the wrong size, a stale forward pass, another layer's, and gradients of a
/// shared expert the layer lacks are refused before launch, naming what is wrong.
#[test]
fn moe_backward_refuses_bad_input_naming_it() {
    let (mut world, mut layer, x, weights, out) =
        small_world(2, 16, None, seed(), WorldOptions::default());
    let shape = layer.shape();
    let grads = DeviceGradients::new(&mut world, &shape, false);
    let dout = world.alloc_symmetric::<bf16>(16 * HIDDEN).unwrap();
    let args = weights.args(false);
    let refused = |result: Result<(), Error>| match result {
        Err(Error::Shape { message, .. }) => message,
        other => panic!("accepted: {other:?}"),
    };
    let stale = layer.forward(&mut world, &x, &args, &out).unwrap();
    let pass = layer.forward(&mut world, &x, &args, &out).unwrap();
    let message = refused(layer.backward(&mut world, &stale, &x, &dout, &args, &grads.args()));
    assert!(message.contains("stale"), "{message}");
    let short = world.alloc_symmetric::<bf16>(15 * HIDDEN).unwrap();
    let message = refused(layer.backward(&mut world, &pass, &x, &short, &args, &grads.args()));
    assert!(message.starts_with("dout has"), "{message}");
    let with_shared = DeviceGradients::new(&mut world, &shape, true);
    let message = refused(layer.backward(&mut world, &pass, &x, &dout, &args, &with_shared.args()));
    assert!(message.contains("grads.shared"), "{message}");
    let mut other = small_layer(&mut world, 16, None);
    let message = refused(other.backward(&mut world, &pass, &x, &dout, &args, &grads.args()));
    assert!(message.contains("another layer"), "{message}");
    // After a recovery the saved state is no forward pass's.
    world.synchronize().unwrap();
    layer.recover(&mut world).unwrap();
    let message = refused(layer.backward(&mut world, &pass, &x, &dout, &args, &grads.args()));
    assert!(message.contains("stale"), "{message}");
}

/// Forward and backward as training steps: plain SGD on the gradients lowers the loss `0.5
/// |out - target|^2` (per token) towards another layer's outputs (the reference's, of other
/// random weights) step after step.
#[test]
fn training_steps_lower_the_loss() {
    let s = seed();
    let (ranks, tokens) = (2u32, 48);
    let (ref_shape, teacher, x) = inputs(ranks, tokens, false, None, s);
    let target = MoeReference::new(
        &x,
        &ref_shape,
        &teacher.reference(),
        &reference_routing(SOFTMAX),
    )
    .out;
    let shape = small_shape(tokens);
    let mut student = HostWeights::random(s + 1, ranks as usize, &shape, false);
    let mut world = world(ranks);
    let options = MoeOptions {
        routing: SOFTMAX,
        shared_expert: false,
        capacity: None,
    };
    let mut layer = MoeLayer::new(&mut world, shape, options).unwrap();
    layer.set_workgroups_per_rank(Some(FEW_WORKGROUPS));
    let xs = sym(&mut world, &x);
    let out = world.alloc_symmetric::<bf16>(tokens * HIDDEN).unwrap();
    let grads = DeviceGradients::new(&mut world, &shape, false);
    let per_token = (ranks as usize * tokens) as f64;
    let sgd = |w: &mut Vec<bf16>, g: &[f64]| {
        for (w, g) in w.iter_mut().zip(g) {
            *w = bf16::from_f64(w.to_f64() - 0.5 * g);
        }
    };
    let mut losses = Vec::new();
    for _ in 0..4 {
        let weights = DeviceWeights::new(&mut world, &student);
        let pass = layer
            .forward(&mut world, &xs, &weights.args(false), &out)
            .unwrap();
        world.synchronize().unwrap();
        let (mut loss, mut dout) = (0f64, Vec::new());
        for (got, want) in download(&out).iter().zip(&target) {
            let diff: Vec<f64> = got.iter().zip(want).map(|(o, y)| o.to_f64() - y).collect();
            loss += diff.iter().map(|d| 0.5 * d * d).sum::<f64>() / per_token;
            dout.push(diff.iter().map(|d| bf16::from_f64(d / per_token)).collect());
        }
        losses.push(loss);
        let douts = sym(&mut world, &dout);
        layer
            .backward(
                &mut world,
                &pass,
                &xs,
                &douts,
                &weights.args(false),
                &grads.args(),
            )
            .unwrap();
        world.synchronize().unwrap();
        let g = grads.download();
        for r in 0..ranks as usize {
            let widen = |v: &[bf16]| v.iter().map(|v| v.to_f64()).collect::<Vec<f64>>();
            sgd(&mut student.w1[r], &widen(&g.w1[r]));
            sgd(&mut student.w2[r], &widen(&g.w2[r]));
        }
        sgd(&mut student.router, &summed(&g.router));
    }
    assert!(
        losses.windows(2).all(|w| w[1] < w[0]),
        "the loss did not fall at every step: {losses:?}"
    );
}

/// `v` moved by `step` times its root mean square along `direction` (scaled to the same
/// root mean square), in bf16.
fn moved(v: &[bf16], direction: &[f64], step: f64) -> Vec<bf16> {
    let scale = step * rms(&flat(&[v.to_vec()])) / rms(direction);
    v.iter()
        .zip(direction)
        .map(|(v, d)| bf16::from_f64(v.to_f64() + scale * d))
        .collect()
}

fn flat(v: &[Vec<bf16>]) -> Vec<f64> {
    v.iter().flatten().map(|v| v.to_f64()).collect()
}

/// The kernel's gradients against central differences of the kernel's own forward pass, one
/// input at a time (`x`, the router, `w1`, `w2`): with `L = sum_t <out_t, dout_t>`,
/// `(L(p + d) - L(p - d)) / 2` against `<grad, d>`, for a step `d` along the gradient (the
/// steepest direction: the change stands far above the noise of the forward's bf16
/// activations), taken as the bf16 values moved (rounding the moved inputs adds no error).
/// The picks are not differentiated: tokens whose picks a move of `x` changes are left out of
/// both sides (a move that changes more than half of them, or any pick through the weights, is
/// made smaller).
#[test]
fn gradients_match_finite_differences_of_the_forward() {
    let s = seed();
    let (ranks, tokens) = (2u32, 24);
    // The router's moves use a router that picks experts 5 and 2 by wide margins: with
    // random routers, a move large enough to stand above the noise changes picks. Under
    // sigmoid routing the two picks' weights, normalized, barely move with the router: the
    // outputs change by less than their bf16 rounding, so that case is left to the f64
    // reference's comparison (`moe_backward_matches_the_reference`).
    let cases = [
        (SOFTMAX, None, &["x", "w1", "w2"][..]),
        (SIGMOID, None, &["x", "w1", "w2"][..]),
        (SOFTMAX, Some(&[5, 2][..]), &["router"][..]),
    ];
    for (case, (routing, hot, checked_inputs)) in cases.into_iter().enumerate() {
        let s = s + 100 * case as u64;
        let sigmoid = matches!(routing, Routing::Sigmoid { .. });
        let (_, host, x) = inputs(ranks, tokens, false, hot, s);
        let shape = small_shape(tokens);
        let mut world = world(ranks);
        let options = MoeOptions {
            routing,
            shared_expert: false,
            capacity: None,
        };
        let mut layer = MoeLayer::new(&mut world, shape, options).unwrap();
        layer.set_workgroups_per_rank(Some(FEW_WORKGROUPS));
        let dout: Vec<Vec<bf16>> = (0..ranks as usize)
            .map(|r| random_bf16(s + 400 + r as u64, tokens * HIDDEN))
            .collect();
        let out = world.alloc_symmetric::<bf16>(tokens * HIDDEN).unwrap();
        // Each token's term of `L`, and its picks.
        let forward =
            |world: &mut World, layer: &mut MoeLayer, w: &HostWeights, x: &[Vec<bf16>]| {
                let weights = DeviceWeights::new(world, w);
                let xs = sym(world, x);
                layer
                    .forward(world, &xs, &weights.args(sigmoid), &out)
                    .unwrap();
                world.synchronize().unwrap();
                let terms: Vec<f64> = flat(&download(&out))
                    .chunks(HIDDEN)
                    .zip(flat(&dout).chunks(HIDDEN))
                    .map(|(o, d)| o.iter().zip(d).map(|(o, d)| o * d).sum())
                    .collect();
                let picks: Vec<Vec<u32>> = download(&layer.saved().routing)
                    .iter()
                    .flat_map(|r| {
                        r[..tokens * TOPK]
                            .chunks(TOPK)
                            .map(<[u32]>::to_vec)
                            .collect::<Vec<_>>()
                    })
                    .collect();
                (terms, picks)
            };
        let (_, picks) = forward(&mut world, &mut layer, &host, &x);
        let weights = DeviceWeights::new(&mut world, &host);
        let (xs, douts) = (sym(&mut world, &x), sym(&mut world, &dout));
        let grads = DeviceGradients::new(&mut world, &shape, false);
        let pass = layer
            .forward(&mut world, &xs, &weights.args(sigmoid), &out)
            .unwrap();
        layer
            .backward(
                &mut world,
                &pass,
                &xs,
                &douts,
                &weights.args(sigmoid),
                &grads.args(),
            )
            .unwrap();
        world.synchronize().unwrap();
        let g = grads.download();
        let gradients = [
            ("x", flat(&g.dx)),
            ("router", summed(&g.router)),
            ("w1", flat(&g.w1)),
            ("w2", flat(&g.w2)),
        ];
        for (input, gradient) in gradients
            .into_iter()
            .filter(|(input, _)| checked_inputs.contains(input))
        {
            // Per rank, the gradient's part for that rank's copy.
            let per_rank = |v: &PerRank<bf16>, step: f64| -> PerRank<bf16> {
                let len = v[0].len();
                (0..)
                    .zip(v)
                    .map(|(r, v)| moved(v, &gradient[r * len..][..len], step))
                    .collect()
            };
            let mut checked = false;
            for step in [0.02, 0.01] {
                let at = |sign: f64| {
                    let (mut w, mut x) = (host.clone(), x.clone());
                    match input {
                        "x" => x = per_rank(&x, sign * step),
                        "router" => w.router = moved(&host.router, &gradient, sign * step),
                        "w1" => w.w1 = per_rank(&host.w1, sign * step),
                        _ => w.w2 = per_rank(&host.w2, sign * step),
                    }
                    (w, x)
                };
                let ((w_plus, x_plus), (w_minus, x_minus)) = (at(1.0), at(-1.0));
                let (terms_plus, picks_plus) = forward(&mut world, &mut layer, &w_plus, &x_plus);
                let (terms_minus, picks_minus) =
                    forward(&mut world, &mut layer, &w_minus, &x_minus);
                // The tokens whose picks stayed.
                let kept: Vec<bool> = (0..picks.len())
                    .map(|t| picks_plus[t] == picks[t] && picks_minus[t] == picks[t])
                    .collect();
                let lost = kept.iter().filter(|k| !**k).count();
                if lost > 0 && (input != "x" || 2 * lost > picks.len()) {
                    continue;
                }
                let difference: f64 = (0..picks.len())
                    .filter(|&t| kept[t])
                    .map(|t| (terms_plus[t] - terms_minus[t]) / 2.0)
                    .sum();
                let (plus, minus) = match input {
                    "x" => (flat(&x_plus), flat(&x_minus)),
                    "router" => (flat(&[w_plus.router]), flat(&[w_minus.router])),
                    "w1" => (flat(&w_plus.w1), flat(&w_minus.w1)),
                    _ => (flat(&w_plus.w2), flat(&w_minus.w2)),
                };
                // Element `i` of `x` belongs to token `i / HIDDEN`.
                let predicted: f64 = (0..gradient.len())
                    .filter(|&i| input != "x" || kept[i / HIDDEN])
                    .map(|i| gradient[i] * (plus[i] - minus[i]) / 2.0)
                    .sum();
                // The router's moves change the outputs less (through the picks' weights):
                // more of the noise is left.
                let tolerance = if input == "router" { 0.05 } else { 0.02 };
                assert!(
                    (difference - predicted).abs() <= tolerance * predicted.abs(),
                    "{routing:?}, {input}: the forward's central difference {difference:.5e}, the gradient's {predicted:.5e}"
                );
                checked = true;
                break;
            }
            assert!(checked, "{routing:?}, {input}: every step changed a pick");
        }
    }
}

/// What a training step of the layer gives a rank: its output, then the gradients of its
/// tokens, the router, its experts' `w1` and `w2`, and the shared expert's.
type StepOutputs = (
    Vec<bf16>,
    Vec<bf16>,
    Vec<f32>,
    Vec<bf16>,
    Vec<bf16>,
    Vec<bf16>,
);

/// A forward and a backward pass of the small layer (softmax routing, a shared expert) on
/// `world`, every input poisoned-free and every output poisoned first; gives the local ranks'
/// results by rank.
fn training_step(
    world: &mut World,
    host: &HostWeights,
    xs: &[Vec<bf16>],
    douts: &[Vec<bf16>],
) -> Vec<StepOutputs> {
    let shape = small_shape(xs[0].len() / HIDDEN);
    let options = MoeOptions {
        routing: SOFTMAX,
        shared_expert: true,
        capacity: None,
    };
    let mut layer = MoeLayer::new(world, shape, options).unwrap();
    layer.set_workgroups_per_rank(Some(FEW_WORKGROUPS));
    let weights = DeviceWeights::new(world, host);
    let (x, dout) = (sym(world, xs), sym(world, douts));
    let out = sym(world, &vec![vec![bf16::NAN; xs[0].len()]; xs.len()]);
    let grads = DeviceGradients::new(world, &shape, true);
    grads.poison();
    let pass = layer
        .forward(world, &x, &weights.args(false), &out)
        .unwrap();
    let args = grads.args();
    layer
        .backward(world, &pass, &x, &dout, &weights.args(false), &args)
        .unwrap();
    world.synchronize().unwrap();
    let own = |b: &SymmetricBuffer<bf16>, r: u32| b.rank(r).unwrap().download().unwrap();
    let shared_w1 = &grads.shared.as_ref().expect("a shared expert").0;
    world
        .local_ranks()
        .map(|r| {
            (
                own(&out, r),
                own(&grads.dx, r),
                grads.router.rank(r).unwrap().download().unwrap(),
                own(&grads.w1, r),
                own(&grads.w2, r),
                own(shared_w1, r),
            )
        })
        .collect()
}

/// The layer's training step on a joined world of two ranks (threads standing in for
/// processes) gives, rank by rank, bitwise the forward output and gradients of an emulated
/// world (whose results the other tests check against the reference).
#[test]
fn a_joined_world_runs_the_layer_bitwise_as_an_emulated_one() {
    let (ranks, tokens, s) = (2, 40, seed());
    let host = HostWeights::random(s, ranks, &small_shape(tokens), true);
    let per_rank = |offset: u64| -> Vec<Vec<bf16>> {
        (0..ranks)
            .map(|r| random_bf16(s + offset + r as u64, tokens * HIDDEN))
            .collect()
    };
    let (xs, douts) = (per_rank(100), per_rank(200));
    // Both worlds on the CPU device (whose memory is the process's: what joined threads
    // share), whatever device the other tests run on.
    let device = Device::cpu().unwrap();
    let mut emulated_world =
        World::emulated(&device, ranks as u32, WorldOptions::default()).unwrap();
    let emulated = training_step(&mut emulated_world, &host, &xs, &douts);
    let got = joined::joined(
        &device,
        ranks as u32,
        WorldOptions::default(),
        move |_, world| training_step(world, &host, &xs, &douts),
    );
    for (r, got) in got.iter().enumerate() {
        assert_eq!(got.len(), 1, "rank {r} runs its own rank only");
        assert!(
            got[0] == emulated[r],
            "rank {r}: joined and emulated results differ"
        );
    }
}

/// The backward pass's mainloop by default: the pipeline from `PIPELINED_BACKWARD_ROWS` rows
/// per expert (the world's tokens times `topk` over the experts), the group mainloop below;
/// an explicit choice holds whatever the rows.
#[test]
fn backward_mainloop_is_chosen_by_rows_per_expert() {
    let mut world = world(2);
    let options = MoeOptions {
        routing: Routing::Softmax { normalize: true },
        shared_expert: false,
        capacity: None,
    };
    // Rows per expert: 64 tokens x 2 ranks x top-2 / 8 experts = 32; 512 x 2 x 4 / 8 = 512.
    let shape = |experts, topk, tokens| MoeShape {
        experts,
        topk,
        tokens,
        hidden: 64,
        ffn: 64,
    };
    let mut few = MoeLayer::new(&mut world, shape(8, 2, 64), options).unwrap();
    let many = MoeLayer::new(&mut world, shape(8, 4, 512), options).unwrap();
    assert_eq!(kernels::PIPELINED_BACKWARD_ROWS, 512);
    assert!(few.pipeline() && !few.backward_pipeline());
    assert!(many.pipeline() && many.backward_pipeline());
    few.set_backward_pipeline(Some(true)).unwrap();
    assert!(few.backward_pipeline());
    few.set_pipeline(false).unwrap();
    assert!(!few.pipeline() && !few.backward_pipeline());
    few.set_backward_pipeline(None).unwrap();
    assert!(
        !few.backward_pipeline(),
        "no pipelined backward without the forward's"
    );
}
