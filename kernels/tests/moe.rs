//! The one-launch MoE layer forward pass on CPU-device worlds of 1, 2 and 4 ranks with small
//! ragged shapes, against the f64 reference of `kosmos_testkernels::moe`: routing identical,
//! outputs within a relative bound, two workgroup counts and the unfused sequence of launches
//! bitwise equal; skewed routing (every
//! token to one expert, empty experts); bad input refused before launch; a silent rank and a
//! receive overflow reported at synchronize. Outputs are poisoned before every run, inputs
//! fresh random values (seed printed; `KOSMOS_SEED` replays).

mod common;
use common::{download, sym, world};
use kernels::{Error, MoeLayer, MoeOptions, MoeShape, MoeWeights, Routing};
use kosmos::bf16;
use kosmos::runtime::{Device, SymmetricBuffer, World, WorldError, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe::{self as reference, MoeReference};
use kosmos_testkernels::{random_bf16, seed};

const EXPERTS: usize = 8;
const TOPK: usize = 2;
const HIDDEN: usize = 64;
const FFN: usize = 48;

/// Random weights of a world (`scale`d so activations stay near 1), as host vectors.
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

/// One forward pass of a world of `ranks` with `tokens` per rank, checked against the
/// reference: every rank's picks identical, weights and outputs within bounds, and with 1
/// and 3 workgroups per rank bitwise equal. With `hot` experts, a router that sends every
/// token to them replaces the random one (`reference::skewed_router`).
fn check_forward(
    ranks: u32,
    tokens: usize,
    routing: Routing,
    shared: bool,
    hot: Option<&[usize]>,
    s: u64,
) -> MoeReference {
    let what = format!("{ranks} ranks, {tokens} tokens, {routing:?}, shared expert {shared}");
    let r_us = ranks as usize;
    let shape = small_shape(tokens);
    let ref_shape = reference::MoeShape {
        ranks: r_us,
        experts: EXPERTS,
        tokens,
        hidden: HIDDEN,
        ffn: FFN,
        topk: TOPK,
    };
    let mut host = HostWeights::random(s, r_us, &shape, shared);
    let mut x: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(s + 200 + r as u64, tokens * HIDDEN))
        .collect();
    if let Some(hot) = hot {
        host.router = reference::skewed_router(&ref_shape, hot, 7);
        for xr in &mut x {
            reference::anchor_tokens(xr, HIDDEN);
        }
    }
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
    let out = world.alloc_symmetric::<bf16>(tokens * HIDDEN).unwrap();
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
    let routing_words = download(&layer.saved().routing);
    let picked_weights = download(&layer.saved().weights);
    for r in 0..r_us {
        let picks: Vec<u32> = want.routes[r]
            .iter()
            .flat_map(|t| t.experts.clone())
            .collect();
        assert_eq!(
            routing_words[r][..tokens * TOPK],
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
    for (i, (ranks, tokens, routing, shared)) in [
        (1, 37, SOFTMAX, false),
        (2, 130, SIGMOID, true),
        (4, 20, SOFTMAX, true),
        (4, 57, SIGMOID, false),
    ]
    .into_iter()
    .enumerate()
    {
        check_forward(ranks, tokens, routing, shared, None, s + 1000 * i as u64);
    }
}

/// Every token's first pick is expert 5, its second expert 2: the other experts get no
/// tokens, and one rank receives every row of the world.
#[test]
fn moe_forward_handles_skewed_routing_and_empty_experts() {
    let s = seed();
    for ranks in [1, 2, 4] {
        let want = check_forward(
            ranks,
            45,
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
    MoeLayer::new(world, shape, options).unwrap()
}

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
    let mut world = World::emulated(&Device::cpu().unwrap(), ranks, options).unwrap();
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
    layer.recover().unwrap();
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
    layer.recover().unwrap();
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
