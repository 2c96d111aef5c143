//! The f64 reference of a Mixture-of-Experts layer's forward pass over a world of `R`
//! expert-parallel ranks: routing (softmax, or DeepSeek-V3's sigmoid with a selection bias
//! and group limiting), the top-K experts' SwiGLU FFNs, an optional shared expert, and the
//! fold of their outputs in routing order.
//!
//! The core is per token ([`route`], [`token_output`]) so that tests at large shapes can check
//! a sample of tokens; [`MoeReference`] runs every token of every rank. Products and sums are
//! f64; values are rounded to bf16 where the layer hands them on, as the kernel does: the gate
//! and up projections, the SwiGLU activation and each expert's output. The fold stays f64 and
//! the output unrounded (the kernel folds in f32 and rounds the sum to bf16).
//! [`token_output_with`] can leave out the rounding ([`Rounding::Exact`]), and the inputs may
//! then be f64 too, which makes the layer a smooth function that finite differences check
//! [`backward`] against.
//!
//! Layouts (row major, weights as `out_features x in_features`): tokens `T x H`; router
//! `E x H`; rank `r` holds the `El = E / R` experts `r El ..`, global expert `e` being local
//! expert `e % El` of rank `e / El`, its `w1` (`2F x H`, gate rows `[0, F)` then up rows
//! `[F, 2F)`) at `w1[r][(e % El) 2F H ..]` and its `w2` (`H x F`) at `w2[r][(e % El) H F ..]`.

pub mod backward;

use crate::random_bf16;
use half::bf16;

/// Whether the reference rounds to bf16 where a kernel hands values on in bf16.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Forward: `z`, `h` and `y` (see above); backward: see [`backward`].
    Bf16,
    /// No rounding: the layer as a smooth function of its inputs.
    Exact,
}

impl Rounding {
    fn apply(self, v: f64) -> f64 {
        match self {
            Rounding::Bf16 => bf16::from_f64(v).to_f64(),
            Rounding::Exact => v,
        }
    }
}

/// A value type of inputs and weights: bf16 as the kernels take them, or f64 for the
/// unrounded layer.
pub trait Element: Copy + Into<f64> {}
impl Element for bf16 {}
impl Element for f64 {}

/// How a token picks its experts and weighs them. Ties between equal keys (or group scores)
/// go to the lower index.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Routing {
    /// Top-K by softmax probability over all experts (the same order as by logit); the
    /// weights are the probabilities, divided by their sum over the K picks if `normalize`
    /// (Mixtral, Qwen3).
    Softmax { normalize: bool },
    /// DeepSeek-V3: key = `sigmoid(logit) + bias`. The experts form `groups` contiguous
    /// groups, each scored by the sum of its two largest keys; only the experts of the
    /// `topk_groups` best groups are eligible, and the top-K of those by key are picked. The
    /// weights are the sigmoids (not the keys), divided by their sum if `normalize`, then
    /// multiplied by `scale` (the routed scaling factor).
    Sigmoid {
        groups: usize,
        topk_groups: usize,
        normalize: bool,
        scale: f64,
    },
}

/// Sizes of an expert-parallel MoE layer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoeShape {
    pub ranks: usize,
    /// Experts of the whole world, a multiple of `ranks`.
    pub experts: usize,
    /// Tokens per rank: the most any rank holds ([`MoeReference::new`] accepts ranks with
    /// fewer).
    pub tokens: usize,
    pub hidden: usize,
    /// Each expert's FFN size (the shared expert's too).
    pub ffn: usize,
    /// Experts per token.
    pub topk: usize,
}

impl MoeShape {
    /// Experts per rank.
    pub fn local_experts(&self) -> usize {
        self.experts / self.ranks
    }

    /// Panics with a message unless the sizes and `routing` fit together.
    pub fn check_routing(&self, routing: &Routing) {
        assert!(
            self.ranks > 0 && self.experts.is_multiple_of(self.ranks),
            "{} experts do not split over {} ranks",
            self.experts,
            self.ranks
        );
        assert!(
            (1..=self.experts).contains(&self.topk),
            "top-{} routing over {} experts",
            self.topk,
            self.experts
        );
        if let Routing::Sigmoid {
            groups,
            topk_groups,
            ..
        } = *routing
        {
            assert!(
                groups > 0 && self.experts.is_multiple_of(groups),
                "{} experts do not split into {groups} groups",
                self.experts
            );
            assert!(
                (1..=groups).contains(&topk_groups),
                "keeping {topk_groups} of {groups} groups"
            );
            assert!(
                topk_groups * (self.experts / groups) >= self.topk,
                "{topk_groups} groups of {} experts hold fewer than top-{}",
                self.experts / groups,
                self.topk
            );
        }
    }

    /// Panics with a message unless rank `rank`'s `len` values are at most `tokens` rows of
    /// `hidden`.
    pub fn check_rank_tokens(&self, rank: usize, len: usize) {
        assert!(
            len.is_multiple_of(self.hidden) && len <= self.tokens * self.hidden,
            "rank {rank}'s {len} values are not at most {} tokens of {}",
            self.tokens,
            self.hidden
        );
    }

    /// Panics with a message naming the first of `weights` whose length does not fit.
    pub fn check_weights<T: Element>(&self, weights: &MoeWeights<T>) {
        let (e, h, f) = (self.experts, self.hidden, self.ffn);
        let el = self.local_experts();
        let len = |name: &str, got: usize, want: usize| {
            assert_eq!(
                got, want,
                "{name} holds {got} values, the shape needs {want}"
            )
        };
        len("router", weights.router.len(), e * h);
        len("bias", weights.bias.len(), e);
        len("w1's rank count", weights.w1.len(), self.ranks);
        len("w2's rank count", weights.w2.len(), self.ranks);
        for (w1, w2) in weights.w1.iter().zip(weights.w2) {
            len("a rank's w1", w1.len(), el * 2 * f * h);
            len("a rank's w2", w2.len(), el * h * f);
        }
        if let Some((ws1, ws2)) = weights.shared {
            len("shared w1", ws1.len(), 2 * f * h);
            len("shared w2", ws2.len(), h * f);
        }
    }
}

/// The weights of the whole world.
#[derive(Copy, Clone, Debug)]
pub struct MoeWeights<'a, T = bf16> {
    /// `E x H`, the same on every rank.
    pub router: &'a [T],
    /// `E`: the selection bias of [`Routing::Sigmoid`] (ignored by softmax routing).
    pub bias: &'a [f32],
    /// Per rank, its local experts' gate and up projections: `El x 2F x H`.
    pub w1: &'a [Vec<T>],
    /// Per rank, its local experts' down projections: `El x H x F`.
    pub w2: &'a [Vec<T>],
    /// The shared expert applied to every token: `(ws1, ws2)`, `2F x H` and `H x F`.
    pub shared: Option<(&'a [T], &'a [T])>,
}

impl<'a, T: Element> MoeWeights<'a, T> {
    /// Global expert `e`'s `(w1, w2)`, found on rank `e / El`.
    pub fn expert(&self, shape: &MoeShape, e: usize) -> (&'a [T], &'a [T]) {
        let el = shape.local_experts();
        let (rank, j) = (e / el, e % el);
        let w1_len = 2 * shape.ffn * shape.hidden;
        let w2_len = shape.hidden * shape.ffn;
        (
            &self.w1[rank][j * w1_len..][..w1_len],
            &self.w2[rank][j * w2_len..][..w2_len],
        )
    }
}

/// Where one token goes.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenRoute {
    /// The K picked experts in fold order: descending key, ties to the lower index.
    pub experts: Vec<u32>,
    /// Their weights, in the same order.
    pub weights: Vec<f64>,
    /// The router's logits, one per expert.
    pub logits: Vec<f64>,
}

/// Routes the token `x_row` (`H`).
pub fn route<T: Element>(
    x_row: &[T],
    shape: &MoeShape,
    weights: &MoeWeights<T>,
    routing: &Routing,
) -> TokenRoute {
    shape.check_routing(routing);
    shape.check_weights(weights);
    assert_eq!(x_row.len(), shape.hidden, "a token row holds H values");
    let x = widened(x_row);
    let logits: Vec<f64> = weights
        .router
        .chunks_exact(shape.hidden)
        .map(|w| dot(&x, w))
        .collect();
    let (experts, mut picked, normalize, scale): (_, Vec<f64>, _, _) = match *routing {
        Routing::Softmax { normalize } => {
            let p = softmax(&logits);
            let experts = top_k(&logits, 0..shape.experts, shape.topk);
            let p = experts.iter().map(|&e| p[e]).collect();
            (experts, p, normalize, 1.0)
        }
        Routing::Sigmoid {
            groups,
            topk_groups,
            normalize,
            scale,
        } => {
            let s: Vec<f64> = logits.iter().map(|&l| sigmoid(l)).collect();
            let key: Vec<f64> = s
                .iter()
                .zip(weights.bias)
                .map(|(s, &b)| s + f64::from(b))
                .collect();
            let size = shape.experts / groups;
            let group_score: Vec<f64> = key
                .chunks_exact(size)
                .map(|g| top_k(g, 0..size, 2).iter().map(|&i| g[i]).sum())
                .collect();
            let kept = top_k(&group_score, 0..groups, topk_groups);
            let eligible = (0..shape.experts).filter(|e| kept.contains(&(e / size)));
            let experts = top_k(&key, eligible, shape.topk);
            let s = experts.iter().map(|&e| s[e]).collect();
            (experts, s, normalize, scale)
        }
    };
    let divisor = if normalize { picked.iter().sum() } else { 1.0 };
    picked.iter_mut().for_each(|w| *w = *w / divisor * scale);
    TokenRoute {
        experts: experts.iter().map(|&e| e as u32).collect(),
        weights: picked,
        logits,
    }
}

/// The layer's output row (`H`) for the token `x_row` routed as `route`: each picked expert's
/// bf16 output times its weight, summed in fold order, then the shared expert's.
/// Costs `6 H F` multiply-adds per expert: about 0.1 s per expert at H = 7168, F = 2048 in
/// the test profile.
pub fn token_output(
    x_row: &[bf16],
    route: &TokenRoute,
    shape: &MoeShape,
    weights: &MoeWeights,
) -> Vec<f64> {
    token_output_with(x_row, route, shape, weights, Rounding::Bf16)
}

/// [`token_output`] for any [`Element`], rounding as `rounding` says.
pub fn token_output_with<T: Element>(
    x_row: &[T],
    route: &TokenRoute,
    shape: &MoeShape,
    weights: &MoeWeights<T>,
    rounding: Rounding,
) -> Vec<f64> {
    shape.check_weights(weights);
    assert_eq!(x_row.len(), shape.hidden, "a token row holds H values");
    assert_eq!(
        route.experts.len(),
        route.weights.len(),
        "a route has one weight per expert"
    );
    let x = widened(x_row);
    let mut out = vec![0f64; shape.hidden];
    let mut add = |y: Vec<f64>, weight: f64| {
        for (o, y) in out.iter_mut().zip(y) {
            *o += weight * y;
        }
    };
    for (&e, &weight) in route.experts.iter().zip(&route.weights) {
        let (w1, w2) = weights.expert(shape, e as usize);
        add(expert_forward(&x, w1, w2, shape.ffn, rounding).y, weight);
    }
    if let Some((ws1, ws2)) = weights.shared {
        add(expert_forward(&x, ws1, ws2, shape.ffn, rounding).y, 1.0);
    }
    out
}

/// What one expert computes on one token, each value rounded as the pass says.
struct ExpertActivations {
    /// The gate then the up projection (`2F`).
    z: Vec<f64>,
    /// `silu(gate) * up` (`F`).
    h: Vec<f64>,
    /// The expert's output (`H`).
    y: Vec<f64>,
}

/// One expert's pass over the token `x` (`H`).
fn expert_forward<T: Element>(
    x: &[f64],
    w1: &[T],
    w2: &[T],
    ffn: usize,
    rounding: Rounding,
) -> ExpertActivations {
    let z: Vec<f64> = w1
        .chunks_exact(x.len())
        .map(|row| rounding.apply(dot(x, row)))
        .collect();
    let (gate, up) = z.split_at(ffn);
    let h: Vec<f64> = gate
        .iter()
        .zip(up)
        .map(|(&g, &u)| rounding.apply(silu(g) * u))
        .collect();
    let y = w2
        .chunks_exact(ffn)
        .map(|row| rounding.apply(dot(&h, row)))
        .collect();
    ExpertActivations { z, h, y }
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

fn silu(v: f64) -> f64 {
    v / (1.0 + (-v).exp())
}

/// Softmax over all of `logits`.
fn softmax(logits: &[f64]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
    let total: f64 = exp.iter().sum();
    exp.iter().map(|e| e / total).collect()
}

fn widened<T: Element>(x: &[T]) -> Vec<f64> {
    x.iter().map(|&v| v.into()).collect()
}

/// `sum a[i] w[i]` in f64; exact products when both hold bf16 values. Four partial sums keep
/// the loop from waiting on each addition.
fn dot<T: Element>(a: &[f64], w: &[T]) -> f64 {
    let mut partial = [0f64; 4];
    let (a4, w4) = (a.chunks_exact(4), w.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(w4.remainder())
        .map(|(&a, &w)| a * w.into())
        .sum();
    for (a, w) in a4.zip(w4) {
        for ((p, &a), &w) in partial.iter_mut().zip(a).zip(w) {
            *p += a * w.into();
        }
    }
    partial.iter().sum::<f64>() + tail
}

/// The `k` of `candidates` (ascending indices into `key`) with the largest keys, descending,
/// ties to the lower index.
fn top_k(key: &[f64], candidates: impl Iterator<Item = usize>, k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = candidates.collect();
    // A stable sort keeps equal keys in ascending index order.
    order.sort_by(|&a, &b| {
        key[b]
            .partial_cmp(&key[a])
            .expect("routing keys are not NaN")
    });
    order.truncate(k);
    order
}

/// The whole layer: every token of every rank.
pub struct MoeReference {
    /// `[rank][token]`.
    pub routes: Vec<Vec<TokenRoute>>,
    /// Per rank, its `T_r x H` output.
    pub out: Vec<Vec<f64>>,
}

impl MoeReference {
    /// From each rank's tokens `x[r]` (`T_r x H`, `T_r <= shape.tokens`; ranks may differ).
    pub fn new(
        x: &[Vec<bf16>],
        shape: &MoeShape,
        weights: &MoeWeights,
        routing: &Routing,
    ) -> MoeReference {
        assert_eq!(x.len(), shape.ranks, "one token matrix per rank");
        let (mut routes, mut out) = (Vec::new(), Vec::new());
        for (rank, x) in x.iter().enumerate() {
            shape.check_rank_tokens(rank, x.len());
            let rank_routes: Vec<TokenRoute> = x
                .chunks_exact(shape.hidden)
                .map(|row| route(row, shape, weights, routing))
                .collect();
            out.push(
                x.chunks_exact(shape.hidden)
                    .zip(&rank_routes)
                    .flat_map(|(row, r)| token_output(row, r, shape, weights))
                    .collect(),
            );
            routes.push(rank_routes);
        }
        MoeReference { routes, out }
    }
}

/// How many of `routes` picked each of the `experts` experts.
pub fn tokens_per_expert<'a>(
    routes: impl IntoIterator<Item = &'a TokenRoute>,
    experts: usize,
) -> Vec<usize> {
    let mut count = vec![0; experts];
    for r in routes {
        for &e in &r.experts {
            count[e as usize] += 1;
        }
    }
    count
}

/// The token column that [`skewed_router`] keys on.
pub const ANCHOR: usize = 0;

/// Sets column [`ANCHOR`] of every token row of `x` (`T x hidden`) to 1, so that a
/// [`skewed_router`] routes the tokens.
pub fn anchor_tokens(x: &mut [bf16], hidden: usize) {
    for row in x.chunks_exact_mut(hidden) {
        row[ANCHOR] = bf16::ONE;
    }
}

/// A router (`E x H`) that sends every token to the `hot` experts, `hot[0]` as first choice,
/// `hot[1]` second, ..., for tokens from [`random_bf16`] (values in `[-1, 1)`) passed through
/// [`anchor_tokens`]. With `hot.len() == topk` the other experts receive no tokens; with fewer,
/// the remaining picks vary from token to token.
///
/// Hot expert `i`'s row is zero but for `2 + (hot.len() - 1 - i) / 2` in the anchor column, so
/// its logit is exactly that on any device. The other rows are random in `[-a, a)`,
/// `a = 1 / (2 sqrt(H))`, with a zero anchor column: their logits have a standard deviation
/// near 1/6 at any `H`, twelve of them below the last hot expert's 2. Under sigmoid routing,
/// hot keys (`sigmoid(2) = 0.88` and up) beat the others' (`0.5 +- 0.04`) unless the bias
/// spreads more than ~0.2, and with group limiting the hot experts must lie in at most
/// `topk_groups` groups.
pub fn skewed_router(shape: &MoeShape, hot: &[usize], seed: u64) -> Vec<bf16> {
    let h = shape.hidden;
    let amplitude = 0.5 / (h as f64).sqrt();
    let mut router: Vec<bf16> = random_bf16(seed, shape.experts * h)
        .iter()
        .map(|v| bf16::from_f64(v.to_f64() * amplitude))
        .collect();
    for row in router.chunks_exact_mut(h) {
        row[ANCHOR] = bf16::ZERO;
    }
    for (i, &e) in hot.iter().enumerate() {
        let row = &mut router[e * h..][..h];
        row.fill(bf16::ZERO);
        row[ANCHOR] = bf16::from_f64(2.0 + 0.5 * (hot.len() - 1 - i) as f64);
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: usize = 8;
    const H: usize = 64;
    const F: usize = 48;

    fn shape(ranks: usize, topk: usize) -> MoeShape {
        MoeShape {
            ranks,
            experts: E,
            tokens: 130,
            hidden: H,
            ffn: F,
            topk,
        }
    }

    /// Random weights for `shape`: router, zero bias, per-rank w1 and w2, shared expert.
    struct Owned {
        router: Vec<bf16>,
        bias: Vec<f32>,
        w1: Vec<Vec<bf16>>,
        w2: Vec<Vec<bf16>>,
        shared: (Vec<bf16>, Vec<bf16>),
    }

    impl Owned {
        fn random(s: &MoeShape, seed: u64) -> Owned {
            let el = s.local_experts();
            let (h, f) = (s.hidden, s.ffn);
            let per_rank = |salt: u64, len: usize| {
                (0..s.ranks as u64)
                    .map(|r| random_bf16(seed ^ (salt << 8) ^ r, len))
                    .collect()
            };
            Owned {
                router: random_bf16(seed ^ 1, s.experts * h),
                bias: vec![0.0; s.experts],
                w1: per_rank(2, el * 2 * f * h),
                w2: per_rank(3, el * h * f),
                shared: (
                    random_bf16(seed ^ 4, 2 * f * h),
                    random_bf16(seed ^ 5, h * f),
                ),
            }
        }

        fn weights(&self, shared: bool) -> MoeWeights<'_> {
            MoeWeights {
                router: &self.router,
                bias: &self.bias,
                w1: &self.w1,
                w2: &self.w2,
                shared: shared.then_some((&self.shared.0[..], &self.shared.1[..])),
            }
        }
    }

    #[test]
    fn softmax_picks_the_largest_logits_and_weighs_by_probability() {
        let seed = crate::seed();
        let s = shape(2, 2);
        let owned = Owned::random(&s, seed);
        let w = owned.weights(false);
        for t in 0..20u64 {
            let x = random_bf16(seed ^ (t << 16), H);
            let raw = route(&x, &s, &w, &Routing::Softmax { normalize: false });
            let normalized = route(&x, &s, &w, &Routing::Softmax { normalize: true });
            let mut by_logit: Vec<usize> = (0..E).collect();
            by_logit.sort_by(|&a, &b| raw.logits[b].total_cmp(&raw.logits[a]));
            let picked: Vec<usize> = raw.experts.iter().map(|&e| e as usize).collect();
            assert_eq!(picked, by_logit[..2]);
            assert_eq!(normalized.experts, raw.experts);
            let total: f64 = raw.logits.iter().map(|l| l.exp()).sum();
            for (&e, &p) in raw.experts.iter().zip(&raw.weights) {
                assert!((p - raw.logits[e as usize].exp() / total).abs() < 1e-12);
            }
            let sum: f64 = normalized.weights.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "weights sum to {sum}");
            let ratio = raw.weights[0] / raw.weights[1];
            assert!((normalized.weights[0] / normalized.weights[1] - ratio).abs() < 1e-9);
        }
    }

    #[test]
    fn sigmoid_bias_moves_selection_but_weights_stay_sigmoids() {
        let seed = crate::seed();
        let s = shape(1, 2);
        let mut owned = Owned::random(&s, seed);
        let x = random_bf16(seed ^ 9, H);
        let routing = Routing::Sigmoid {
            groups: 1,
            topk_groups: 1,
            normalize: false,
            scale: 1.0,
        };
        let unbiased = route(&x, &s, &owned.weights(false), &routing);
        let coldest = (0..E)
            .min_by(|&a, &b| unbiased.logits[a].total_cmp(&unbiased.logits[b]))
            .unwrap();
        owned.bias[coldest] = 2.0;
        let biased = route(&x, &s, &owned.weights(false), &routing);
        assert_eq!(biased.logits, unbiased.logits);
        assert_eq!(biased.experts[0] as usize, coldest);
        assert_eq!(biased.experts[1], unbiased.experts[0]);
        for (&e, &weight) in biased.experts.iter().zip(&biased.weights) {
            assert_eq!(weight, sigmoid(biased.logits[e as usize]));
        }
        // The first pick by key has the smallest sigmoid.
        assert!(biased.weights[0] < biased.weights[1]);
    }

    #[test]
    fn group_limiting_keeps_the_groups_with_the_best_two_keys() {
        let s = shape(2, 2);
        let mut owned = Owned::random(&s, 7);
        // A zero router makes every sigmoid 1/2, so the keys are 1/2 + bias: groups score
        // 0.9 + 0.1 and 0.55 + 0.5; by largest key or by sum of all the first would win.
        owned.router.fill(bf16::ZERO);
        owned.bias = vec![0.4, -0.4, -0.4, -0.4, 0.05, 0.0, -0.5, -0.5];
        let x = random_bf16(8, H);
        let w = owned.weights(false);
        let grouped = |groups, topk_groups| Routing::Sigmoid {
            groups,
            topk_groups,
            normalize: false,
            scale: 2.5,
        };
        let limited = route(&x, &s, &w, &grouped(2, 1));
        assert_eq!(limited.experts, [4, 5]);
        assert_eq!(limited.weights, [1.25, 1.25]);
        assert_eq!(route(&x, &s, &w, &grouped(1, 1)).experts, [0, 4]);
        assert_eq!(route(&x, &s, &w, &grouped(2, 2)).experts, [0, 4]);
        // Groups of two: {0, 1} scores 1.0, {2, 3} 0.2, {4, 5} 1.05, {6, 7} 0.
        assert_eq!(route(&x, &s, &w, &grouped(4, 2)).experts, [0, 4]);
        let s3 = MoeShape { topk: 3, ..s };
        assert_eq!(route(&x, &s3, &w, &grouped(4, 2)).experts, [0, 4, 5]);
    }

    #[test]
    fn ties_go_to_the_lower_index() {
        let s = shape(2, 3);
        let mut owned = Owned::random(&s, 3);
        owned.router.fill(bf16::ZERO);
        let x = random_bf16(4, H);
        let w = owned.weights(false);
        let softmax = route(&x, &s, &w, &Routing::Softmax { normalize: false });
        assert_eq!(softmax.experts, [0, 1, 2]);
        assert_eq!(softmax.weights, [1.0 / E as f64; 3]);
        let grouped = Routing::Sigmoid {
            groups: 4,
            topk_groups: 1,
            normalize: true,
            scale: 1.0,
        };
        let s2 = MoeShape { topk: 2, ..s };
        assert_eq!(route(&x, &s2, &w, &grouped).experts, [0, 1]);
        owned.bias[3] = 0.25;
        owned.bias[5] = 0.25;
        // Groups {2, 3} and {4, 5} tie; the first of them is kept.
        assert_eq!(
            route(&x, &s2, &owned.weights(false), &grouped).experts,
            [3, 2]
        );
    }

    /// E = 4 over two ranks, H = 2, F = 1, top-2 softmax, a shared expert; the numbers are
    /// worked out by hand.
    #[test]
    fn token_output_by_hand() {
        let s = MoeShape {
            ranks: 2,
            experts: 4,
            tokens: 1,
            hidden: 2,
            ffn: 1,
            topk: 2,
        };
        let b = |v: &[f64]| v.iter().map(|&v| bf16::from_f64(v)).collect::<Vec<_>>();
        let x = b(&[1.0, 2.0]);
        // Logits 0, 1, 2, -1: experts 2 then 1.
        let router = b(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, -1.0, 0.0]);
        // Experts 0 and 3 are never picked; their 7s would show if they were read.
        let w1 = vec![
            // Expert 0, then expert 1: gate (1, 2^-9) gives 1 + 2^-8, rounded to 1; up gives 3.
            b(&[7.0, 7.0, 7.0, 7.0, 1.0, 2f64.powi(-9), 1.0, 1.0]),
            // Expert 2: gate -1, up 2; then expert 3.
            b(&[-1.0, 0.0, 0.0, 1.0, 7.0, 7.0, 7.0, 7.0]),
        ];
        let w2 = vec![b(&[7.0, 7.0, 1.0, 1.0 / 3.0]), b(&[1.0, -2.0, 7.0, 7.0])];
        // Shared: gate 1, up 1.
        let (ws1, ws2) = (b(&[0.0, 0.5, 1.0, 0.0]), b(&[1.0, 1.0]));
        let weights = MoeWeights {
            router: &router,
            bias: &[0.0; 4],
            w1: &w1,
            w2: &w2,
            shared: Some((&ws1, &ws2)),
        };
        let r = route(&x, &s, &weights, &Routing::Softmax { normalize: true });
        assert_eq!(r.experts, [2, 1]);
        assert_eq!(r.logits, [0.0, 1.0, 2.0, -1.0]);
        let e = 1f64.exp();
        let (w_2, w_1) = (e / (e + 1.0), 1.0 / (e + 1.0));
        assert!((r.weights[0] - w_2).abs() < 1e-15 && (r.weights[1] - w_1).abs() < 1e-15);
        // Expert 2: h = bf16(silu(-1) 2) = bf16(-0.53788) = -0.5390625; y = h (1, -2).
        let y2 = [-0.5390625, 1.078125];
        // Expert 1: h = bf16(silu(1) 3) = bf16(2.19318) = 2.1875; y = bf16(h (1, bf16(1/3)))
        // = (2.1875, bf16(0.730591)) = (2.1875, 0.73046875).
        let y1 = [2.1875, 0.73046875];
        // Shared: h = bf16(silu(1)) = bf16(0.731059) = 0.73046875; y = h (1, 1).
        let ys = 0.73046875;
        let out = token_output(&x, &r, &s, &weights);
        for i in 0..2 {
            let want = w_2 * y2[i] + w_1 * y1[i] + ys;
            assert!(
                (out[i] - want).abs() < 1e-12,
                "out[{i}] = {}, want {want}",
                out[i]
            );
        }
    }

    #[test]
    fn reference_covers_ragged_ranks_token_by_token() {
        let seed = crate::seed();
        let s = shape(2, 2);
        let owned = Owned::random(&s, seed);
        let w = owned.weights(true);
        let routing = Routing::Softmax { normalize: true };
        let x = vec![
            random_bf16(seed ^ 10, 37 * H),
            random_bf16(seed ^ 11, 50 * H),
        ];
        let reference = MoeReference::new(&x, &s, &w, &routing);
        for (rank, tokens) in [(0, 37), (1, 50)] {
            assert_eq!(reference.routes[rank].len(), tokens);
            assert_eq!(reference.out[rank].len(), tokens * H);
            let t = tokens - 1;
            let row = &x[rank][t * H..][..H];
            let r = route(row, &s, &w, &routing);
            assert_eq!(reference.routes[rank][t], r);
            assert_eq!(
                reference.out[rank][t * H..][..H],
                token_output(row, &r, &s, &w)
            );
        }
        // Every expert, on either rank, is somebody's pick with a random router.
        let load = tokens_per_expert(reference.routes.iter().flatten(), E);
        assert!(load.iter().all(|&n| n > 0), "{load:?}");
        assert_eq!(load.iter().sum::<usize>(), 87 * 2);
    }

    #[test]
    #[should_panic(expected = "8 experts do not split over 3 ranks")]
    fn experts_must_split_over_ranks() {
        let s = shape(2, 2);
        let owned = Owned::random(&s, 1);
        let x = random_bf16(2, H);
        route(
            &x,
            &MoeShape { ranks: 3, ..s },
            &owned.weights(false),
            &Routing::Softmax { normalize: true },
        );
    }

    #[test]
    fn skewed_router_concentrates_tokens() {
        let seed = crate::seed();
        let sigmoid = Routing::Sigmoid {
            groups: 4,
            topk_groups: 2,
            normalize: true,
            scale: 2.5,
        };
        let softmax = Routing::Softmax { normalize: true };
        let mut x = random_bf16(seed ^ 12, 130 * H);
        anchor_tokens(&mut x, H);
        for routing in [softmax, sigmoid] {
            let skewed = |topk: usize, hot: &[usize]| {
                let s = shape(2, topk);
                let mut owned = Owned::random(&s, seed);
                owned.router = skewed_router(&s, hot, seed ^ 13);
                let w = owned.weights(false);
                x.chunks_exact(H)
                    .map(|row| route(row, &s, &w, &routing))
                    .collect::<Vec<_>>()
            };
            let top1 = skewed(1, &[5]);
            assert_eq!(tokens_per_expert(&top1, E), [0, 0, 0, 0, 0, 130, 0, 0]);
            let first = skewed(2, &[3]);
            assert!(first.iter().all(|r| r.experts[0] == 3));
            // The second pick still varies, with a weight that matters.
            let load = tokens_per_expert(&first, E);
            assert!(load.iter().filter(|&&n| n > 0).count() > 3, "{load:?}");
            assert!(first.iter().all(|r| r.weights[1] > 0.05 * r.weights[0]));
            let pair = skewed(2, &[6, 1]);
            assert!(pair.iter().all(|r| r.experts == [6, 1]));
        }
    }

    /// The skew does not depend on the hidden size: DeepSeek-V3's router shape.
    #[test]
    fn skewed_router_holds_at_large_hidden_sizes() {
        let seed = crate::seed();
        let s = MoeShape {
            ranks: 8,
            experts: 256,
            tokens: 16,
            hidden: 7168,
            ffn: 1,
            topk: 8,
        };
        let hot = [3, 17, 40, 41, 42, 43, 44, 45];
        let router = skewed_router(&s, &hot, seed);
        // 32 experts per rank; routing does not read them.
        let w1 = vec![vec![bf16::ZERO; 32 * 2 * s.hidden]; 8];
        let w2 = vec![vec![bf16::ZERO; 32 * s.hidden]; 8];
        let weights = MoeWeights {
            router: &router,
            bias: &[0.0; 256],
            w1: &w1,
            w2: &w2,
            shared: None,
        };
        let routing = Routing::Sigmoid {
            groups: 8,
            topk_groups: 4,
            normalize: true,
            scale: 2.5,
        };
        let mut x = random_bf16(seed ^ 14, s.tokens * s.hidden);
        anchor_tokens(&mut x, s.hidden);
        for row in x.chunks_exact(s.hidden) {
            let r = route(row, &s, &weights, &routing);
            assert_eq!(r.experts, hot.map(|e| e as u32));
        }
    }
}
