//! The one-launch MoE layer forward pass on CPU-device worlds of 1, 2 and 4 ranks with small
//! ragged shapes, against the f64 reference of `kosmos_testkernels::moe`: routing identical,
//! outputs within a relative bound, two workgroup counts bitwise equal; skewed routing (every
//! token to one expert, empty experts); bad input refused before launch; a silent rank and a
//! receive overflow reported at synchronize. Outputs are poisoned before every run, inputs
//! fresh random values (seed printed; `KOSMOS_SEED` replays).

use kernels::{Error, MoeLayer, MoeOptions, MoeShape, MoeWeights, Routing};
use kosmos::bf16;
use kosmos::runtime::{Device, DeviceScalar, SymmetricBuffer, World, WorldError, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe::{self as reference, MoeReference};
use kosmos_testkernels::{random_bf16, seed};

const EXPERTS: usize = 8;
const TOPK: usize = 2;
const HIDDEN: usize = 64;
const FFN: usize = 48;

fn world(ranks: u32) -> World {
    World::emulated(&Device::cpu().unwrap(), ranks, WorldOptions::default()).unwrap()
}

/// A symmetric buffer holding `data[r]` on rank `r`.
fn sym<T: DeviceScalar>(world: &mut World, data: &[Vec<T>]) -> SymmetricBuffer<T> {
    let b = world.alloc_symmetric::<T>(data[0].len()).unwrap();
    for (r, d) in data.iter().enumerate() {
        b.rank(r as u32).unwrap().upload(d).unwrap();
    }
    b
}

fn download<T: DeviceScalar>(y: &SymmetricBuffer<T>) -> Vec<Vec<T>> {
    y.ranks().iter().map(|b| b.download().unwrap()).collect()
}

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

const SOFTMAX: Routing = Routing::Softmax { normalize: true };
const SIGMOID: Routing = Routing::Sigmoid {
    groups: 4,
    topk_groups: 2,
    normalize: true,
    scale: 2.5,
};

/// One forward pass of a world of `ranks` with `tokens` per rank, checked against the
/// reference: every rank's picks identical, weights and outputs within bounds, and with 1
/// and 3 workgroups per rank bitwise equal. `router` replaces the random router (skew).
fn check_forward(
    ranks: u32,
    tokens: usize,
    routing: Routing,
    shared: bool,
    router: Option<&dyn Fn(&reference::MoeShape) -> Vec<bf16>>,
    s: u64,
) -> MoeReference {
    let what = format!("{ranks} ranks, {tokens} tokens, {routing:?}, shared expert {shared}");
    let r_us = ranks as usize;
    let shape = MoeShape {
        experts: EXPERTS,
        topk: TOPK,
        tokens,
        hidden: HIDDEN,
        ffn: FFN,
    };
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
    if let Some(make) = router {
        host.router = make(&ref_shape);
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
        // Outputs are near 0.3: bf16 roundings of the activations (the reference rounds at
        // the same points, but its f64 sums may round the other way) and of the output.
        compare::rel_err(
            &runs[1][r],
            &want.out[r],
            Scale::Each { floor: 0.25 },
            1.5e-2,
        )
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
    let hot = |shape: &reference::MoeShape| reference::skewed_router(shape, &[5, 2], 7);
    for ranks in [1, 2, 4] {
        let want = check_forward(ranks, 45, SOFTMAX, ranks == 2, Some(&hot), s + ranks as u64);
        let counts = reference::tokens_per_expert(want.routes.iter().flatten(), EXPERTS);
        let total = 45 * ranks as usize;
        assert_eq!(counts, [0, 0, total, 0, 0, total, 0, 0], "{ranks} ranks");
    }
}
