//! The f64 reference of the MoE layer's backward pass: from the output's gradient `dOut`, the
//! gradients of the tokens, the router and every expert's weights. The picks are fixed (no
//! gradient flows through which experts were chosen) and the selection bias of sigmoid
//! routing gets none.
//!
//! With `out = sum_k w_k y_k (+ y_s)`: `dw_k = <dOut, y_k>` and `dY_k = w_k dOut` (`dY_s =
//! dOut`). Through an expert (`z = x W1^T`, split in gate `g` and up `u`, `h = silu(g) u`,
//! `y = h W2^T`): `dW2 += dY^T h`, `dh = dY W2`, `dg = dh u silu'(g)`, `du = dh silu(g)`,
//! `dz = [dg, du]`, `dW1 += dz^T x`, `dx += dz W1`. The weights' gradients run back through
//! the normalization and scale to the logits (through the softmax over all `E`, or each pick's
//! sigmoid): `dx += dlogits W_router`, `dW_router += dlogits^T x`.
//!
//! Rounding: under [`Rounding::Bf16`] the forward values are [`token_output`]'s (bf16 `z`,
//! `h`, `y`), and the gradients a kernel hands to its GEMMs in bf16 are rounded: each `dY`
//! and each `dz`. The rest stays f64: `dw` and the logits' gradient (the router's backward is
//! small enough for a kernel to keep in f32), `dh` (used elementwise only) and every sum.
//!
//! [`token_backward`] works on one token, so that tests at large shapes can check a sample of
//! tokens' `dx`; [`MoeGradients`] sums every token of every rank.
//!
//! [`token_output`]: super::token_output

use super::{
    Element, MoeShape, MoeWeights, Rounding, Routing, TokenRoute, dot, expert_forward, route,
    sigmoid, silu, softmax, widened,
};

/// One expert's backward on one token. Its weights' gradients are the outer products
/// `dW1 += dz x^T` and `dW2 += dy h^T`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpertGradient {
    /// The gradient of the gate then the up projection (`2F`).
    pub dz: Vec<f64>,
    /// The forward activation `silu(gate) * up` (`F`).
    pub h: Vec<f64>,
    /// The gradient of the expert's output (`H`).
    pub dy: Vec<f64>,
}

/// One token's backward.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenGradient {
    /// The token's gradient (`H`).
    pub dx: Vec<f64>,
    /// The gradient of the router's logits (`E`): `dW_router += dlogits x^T`.
    pub dlogits: Vec<f64>,
    /// One per pick, in fold order.
    pub experts: Vec<ExpertGradient>,
    /// The shared expert's, when the layer has one.
    pub shared: Option<ExpertGradient>,
}

/// The backward of the token `x_row` (`H`) routed as `route` (from [`route`] with the same
/// `routing`), given its output's gradient `dout_row` (`H`).
pub fn token_backward<T: Element>(
    x_row: &[T],
    dout_row: &[T],
    route: &TokenRoute,
    shape: &MoeShape,
    weights: &MoeWeights<T>,
    routing: &Routing,
    rounding: Rounding,
) -> TokenGradient {
    shape.check_weights(weights);
    assert_eq!(x_row.len(), shape.hidden, "a token row holds H values");
    assert_eq!(
        dout_row.len(),
        shape.hidden,
        "a gradient row holds H values"
    );
    assert_eq!(
        route.experts.len(),
        route.weights.len(),
        "a route has one weight per expert"
    );
    let (x, dout) = (widened(x_row), widened(dout_row));
    let mut dx = vec![0f64; shape.hidden];
    let (mut experts, mut dweights) = (Vec::new(), Vec::new());
    for (&e, &weight) in route.experts.iter().zip(&route.weights) {
        let (w1, w2) = weights.expert(shape, e as usize);
        let (grad, dweight) = expert_backward(&x, &dout, weight, w1, w2, shape.ffn, rounding);
        add_row_combination(&mut dx, &grad.dz, w1);
        experts.push(grad);
        dweights.push(dweight);
    }
    let shared = weights.shared.map(|(ws1, ws2)| {
        let (grad, _) = expert_backward(&x, &dout, 1.0, ws1, ws2, shape.ffn, rounding);
        add_row_combination(&mut dx, &grad.dz, ws1);
        grad
    });
    let dlogits = logits_gradient(route, &dweights, routing);
    add_row_combination(&mut dx, &dlogits, weights.router);
    TokenGradient {
        dx,
        dlogits,
        experts,
        shared,
    }
}

/// One expert's gradient on the token `x` and its weight's gradient `<dout, y>`, for an
/// expert whose output the layer adds `weight` times.
fn expert_backward<T: Element>(
    x: &[f64],
    dout: &[f64],
    weight: f64,
    w1: &[T],
    w2: &[T],
    ffn: usize,
    rounding: Rounding,
) -> (ExpertGradient, f64) {
    let forward = expert_forward(x, w1, w2, ffn, rounding);
    let dweight = dot(dout, &forward.y);
    let dy: Vec<f64> = dout.iter().map(|&d| rounding.apply(weight * d)).collect();
    let mut dh = vec![0f64; ffn];
    add_row_combination(&mut dh, &dy, w2);
    let (gate, up) = forward.z.split_at(ffn);
    let silu_slope = |g: f64| {
        let s = sigmoid(g);
        s * (1.0 + g * (1.0 - s))
    };
    let dgate = dh
        .iter()
        .zip(gate.iter().zip(up))
        .map(|(dh, (&g, u))| dh * u * silu_slope(g));
    let dup = dh.iter().zip(gate).map(|(dh, &g)| dh * silu(g));
    let dz = dgate.chain(dup).map(|v| rounding.apply(v)).collect();
    let grad = ExpertGradient {
        dz,
        h: forward.h,
        dy,
    };
    (grad, dweight)
}

/// The gradient of the logits (`E`) from that of the picks' weights, `dweights` (fold order).
fn logits_gradient(route: &TokenRoute, dweights: &[f64], routing: &Routing) -> Vec<f64> {
    let (normalize, scale) = match *routing {
        Routing::Softmax { normalize } => (normalize, 1.0),
        Routing::Sigmoid {
            normalize, scale, ..
        } => (normalize, scale),
    };
    // The picks' weights before normalization and scale: probabilities or sigmoids.
    let probability = match routing {
        Routing::Softmax { .. } => softmax(&route.logits),
        Routing::Sigmoid { .. } => route.logits.iter().map(|&l| sigmoid(l)).collect(),
    };
    let picks: Vec<usize> = route.experts.iter().map(|&e| e as usize).collect();
    let raw: Vec<f64> = picks.iter().map(|&e| probability[e]).collect();
    // w_i = scale r_i / S with S = sum_j r_j (1 without normalization), so
    // dr_i = scale (dw_i - sum_j dw_j r_j / S) / S.
    let draw: Vec<f64> = if normalize {
        let total: f64 = raw.iter().sum();
        let mean = dot(dweights, &raw) / total;
        dweights
            .iter()
            .map(|dw| scale * (dw - mean) / total)
            .collect()
    } else {
        dweights.iter().map(|dw| scale * dw).collect()
    };
    let mut dlogits = vec![0f64; route.logits.len()];
    match routing {
        // dl_e = p_e (dp_e - sum_i p_i dp_i), over all E (dp is zero off the picks).
        Routing::Softmax { .. } => {
            let mean = dot(&draw, &raw);
            for (dl, p) in dlogits.iter_mut().zip(&probability) {
                *dl = -p * mean;
            }
            for (&e, dr) in picks.iter().zip(&draw) {
                dlogits[e] += probability[e] * dr;
            }
        }
        Routing::Sigmoid { .. } => {
            for (&e, dr) in picks.iter().zip(&draw) {
                let s = probability[e];
                dlogits[e] = dr * s * (1.0 - s);
            }
        }
    }
    dlogits
}

/// `acc += c M`: adds `sum_i c[i] M[i, ..]` for the `c.len() x acc.len()` matrix `m`.
fn add_row_combination<T: Element>(acc: &mut [f64], c: &[f64], m: &[T]) {
    for (&c, row) in c.iter().zip(m.chunks_exact(acc.len())) {
        for (a, &v) in acc.iter_mut().zip(row) {
            *a += c * v.into();
        }
    }
}

/// `acc += a b^T` for the `a.len() x b.len()` matrix `acc`.
fn add_outer_product(acc: &mut [f64], a: &[f64], b: &[f64]) {
    for (row, &a) in acc.chunks_exact_mut(b.len()).zip(a) {
        for (v, &b) in row.iter_mut().zip(b) {
            *v += a * b;
        }
    }
}

/// The gradients of the whole layer, in the layouts of the forward's inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct MoeGradients {
    /// Per rank, `T_r x H`.
    pub dx: Vec<Vec<f64>>,
    /// `E x H`, summed over every rank's tokens.
    pub router: Vec<f64>,
    /// Per rank, `El x 2F x H` as [`MoeWeights::w1`].
    pub w1: Vec<Vec<f64>>,
    /// Per rank, `El x H x F` as [`MoeWeights::w2`].
    pub w2: Vec<Vec<f64>>,
    /// The shared expert's `(2F x H, H x F)`, when the layer has one.
    pub shared: Option<(Vec<f64>, Vec<f64>)>,
}

impl MoeGradients {
    /// From each rank's tokens `x[r]` (`T_r x H`, `T_r <= shape.tokens`) and their output's
    /// gradient `dout[r]` (the same size).
    pub fn new<T: Element>(
        x: &[Vec<T>],
        dout: &[Vec<T>],
        shape: &MoeShape,
        weights: &MoeWeights<T>,
        routing: &Routing,
        rounding: Rounding,
    ) -> MoeGradients {
        assert_eq!(x.len(), shape.ranks, "one token matrix per rank");
        assert_eq!(dout.len(), shape.ranks, "one gradient matrix per rank");
        let (h, f, el) = (shape.hidden, shape.ffn, shape.local_experts());
        let zeros = |len| vec![0f64; len];
        let mut grads = MoeGradients {
            dx: Vec::new(),
            router: zeros(shape.experts * h),
            w1: vec![zeros(el * 2 * f * h); shape.ranks],
            w2: vec![zeros(el * h * f); shape.ranks],
            shared: weights.shared.map(|_| (zeros(2 * f * h), zeros(h * f))),
        };
        for (rank, (x, dout)) in x.iter().zip(dout).enumerate() {
            shape.check_rank_tokens(rank, x.len());
            assert_eq!(
                dout.len(),
                x.len(),
                "rank {rank}'s output gradient does not match its tokens"
            );
            let mut dx = Vec::with_capacity(x.len());
            for (row, dout_row) in x.chunks_exact(h).zip(dout.chunks_exact(h)) {
                let r = route(row, shape, weights, routing);
                let grad = token_backward(row, dout_row, &r, shape, weights, routing, rounding);
                grads.add_weight_gradients(&widened(row), &r, &grad, shape);
                dx.extend(grad.dx);
            }
            grads.dx.push(dx);
        }
        grads
    }

    /// Adds the weight gradients of the token `x` (`H`) routed as `route`.
    fn add_weight_gradients(
        &mut self,
        x: &[f64],
        route: &TokenRoute,
        grad: &TokenGradient,
        shape: &MoeShape,
    ) {
        let (el, w1_len, w2_len) = (
            shape.local_experts(),
            2 * shape.ffn * shape.hidden,
            shape.hidden * shape.ffn,
        );
        add_outer_product(&mut self.router, &grad.dlogits, x);
        let add_expert = |dw1: &mut [f64], dw2: &mut [f64], g: &ExpertGradient| {
            add_outer_product(dw1, &g.dz, x);
            add_outer_product(dw2, &g.dy, &g.h);
        };
        for (&e, g) in route.experts.iter().zip(&grad.experts) {
            let (rank, j) = (e as usize / el, e as usize % el);
            add_expert(
                &mut self.w1[rank][j * w1_len..][..w1_len],
                &mut self.w2[rank][j * w2_len..][..w2_len],
                g,
            );
        }
        if let (Some((dws1, dws2)), Some(g)) = (&mut self.shared, &grad.shared) {
            add_expert(dws1, dws2, g);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moe::token_output_with;
    use crate::random_bf16;
    use half::bf16;

    /// Two ranks of four experts, tiny enough to perturb every input one at a time.
    const TINY: MoeShape = MoeShape {
        ranks: 2,
        experts: 8,
        tokens: 3,
        hidden: 4,
        ffn: 3,
        topk: 2,
    };

    const SOFTMAX: Routing = Routing::Softmax { normalize: true };

    /// DeepSeek-V3's routing on 8 experts: 4 groups of 2, the best 2 kept.
    const GROUPED_SIGMOID: Routing = Routing::Sigmoid {
        groups: 4,
        topk_groups: 2,
        normalize: true,
        scale: 2.5,
    };

    /// A layer's inputs and weights.
    struct Layer<T> {
        x: Vec<Vec<T>>,
        dout: Vec<Vec<T>>,
        router: Vec<T>,
        bias: Vec<f32>,
        w1: Vec<Vec<T>>,
        w2: Vec<Vec<T>>,
        shared: Option<(Vec<T>, Vec<T>)>,
    }

    impl Layer<bf16> {
        /// Random values in [-1, 1), a bias in [-0.1, 0.1); `tokens[r]` tokens on rank `r`.
        fn random(s: &MoeShape, tokens: &[usize], shared: bool, seed: u64) -> Layer<bf16> {
            let (h, f, el) = (s.hidden, s.ffn, s.local_experts());
            let per_rank = |salt: u64, len: &dyn Fn(usize) -> usize| {
                (0..s.ranks)
                    .map(|r| random_bf16(seed ^ (salt << 8) ^ r as u64, len(r)))
                    .collect()
            };
            Layer {
                x: per_rank(1, &|r| tokens[r] * h),
                dout: per_rank(2, &|r| tokens[r] * h),
                router: random_bf16(seed ^ 3, s.experts * h),
                bias: random_bf16(seed ^ 4, s.experts)
                    .iter()
                    .map(|b| 0.1 * b.to_f32())
                    .collect(),
                w1: per_rank(5, &|_| el * 2 * f * h),
                w2: per_rank(6, &|_| el * h * f),
                shared: shared.then(|| {
                    (
                        random_bf16(seed ^ 7, 2 * f * h),
                        random_bf16(seed ^ 8, h * f),
                    )
                }),
            }
        }

        /// The same values in f64, to perturb.
        fn exact(&self) -> Layer<f64> {
            let wide = |v: &Vec<bf16>| widened(v);
            let wide_ranks = |v: &Vec<Vec<bf16>>| v.iter().map(wide).collect();
            Layer {
                x: wide_ranks(&self.x),
                dout: wide_ranks(&self.dout),
                router: wide(&self.router),
                bias: self.bias.clone(),
                w1: wide_ranks(&self.w1),
                w2: wide_ranks(&self.w2),
                shared: self.shared.as_ref().map(|(a, b)| (wide(a), wide(b))),
            }
        }
    }

    impl<T: Element> Layer<T> {
        fn weights(&self) -> MoeWeights<'_, T> {
            MoeWeights {
                router: &self.router,
                bias: &self.bias,
                w1: &self.w1,
                w2: &self.w2,
                shared: self.shared.as_ref().map(|(a, b)| (&a[..], &b[..])),
            }
        }

        fn gradients(&self, s: &MoeShape, routing: &Routing, rounding: Rounding) -> MoeGradients {
            MoeGradients::new(&self.x, &self.dout, s, &self.weights(), routing, rounding)
        }

        /// Each token's picks, `[rank][token]`.
        fn picks(&self, s: &MoeShape, routing: &Routing) -> Vec<Vec<Vec<u32>>> {
            self.x
                .iter()
                .map(|x| {
                    x.chunks_exact(s.hidden)
                        .map(|row| route(row, s, &self.weights(), routing).experts)
                        .collect()
                })
                .collect()
        }
    }

    /// `sum <dOut, out>` of the unrounded layer, whose gradients are the backward's. Panics
    /// unless the tokens keep the `picks`: finite differences across a change of picks
    /// would not be the gradient.
    fn loss(layer: &Layer<f64>, s: &MoeShape, routing: &Routing, picks: &[Vec<Vec<u32>>]) -> f64 {
        let w = layer.weights();
        let mut total = 0.0;
        for ((x, dout), picks) in layer.x.iter().zip(&layer.dout).zip(picks) {
            let rows = x.chunks_exact(s.hidden).zip(dout.chunks_exact(s.hidden));
            for ((row, dout_row), picks) in rows.zip(picks) {
                let r = route(row, s, &w, routing);
                assert_eq!(&r.experts, picks, "a perturbation changed a token's picks");
                total += dot(
                    dout_row,
                    &token_output_with(row, &r, s, &w, Rounding::Exact),
                );
            }
        }
        total
    }

    /// An input the gradients cover.
    #[derive(Copy, Clone, Debug)]
    enum Slot {
        X(usize),
        Router,
        W1(usize),
        W2(usize),
        SharedW1,
        SharedW2,
    }

    fn slots(s: &MoeShape, shared: bool) -> Vec<Slot> {
        let mut slots: Vec<Slot> = (0..s.ranks).map(Slot::X).collect();
        slots.push(Slot::Router);
        slots.extend((0..s.ranks).flat_map(|r| [Slot::W1(r), Slot::W2(r)]));
        if shared {
            slots.extend([Slot::SharedW1, Slot::SharedW2]);
        }
        slots
    }

    fn input(layer: &mut Layer<f64>, slot: Slot) -> &mut [f64] {
        let shared = &mut layer.shared;
        match slot {
            Slot::X(r) => &mut layer.x[r],
            Slot::Router => &mut layer.router,
            Slot::W1(r) => &mut layer.w1[r],
            Slot::W2(r) => &mut layer.w2[r],
            Slot::SharedW1 => &mut shared.as_mut().expect("a shared expert").0,
            Slot::SharedW2 => &mut shared.as_mut().expect("a shared expert").1,
        }
    }

    fn gradient(g: &MoeGradients, slot: Slot) -> &[f64] {
        let shared = || g.shared.as_ref().expect("a shared expert's gradients");
        match slot {
            Slot::X(r) => &g.dx[r],
            Slot::Router => &g.router,
            Slot::W1(r) => &g.w1[r],
            Slot::W2(r) => &g.w2[r],
            Slot::SharedW1 => &shared().0,
            Slot::SharedW2 => &shared().1,
        }
    }

    /// Every gradient of the unrounded backward on `s` against central differences of the
    /// unrounded forward, input by input, to 1e-6 relative to `max(|gradient|, 1e-2)`.
    fn check_finite_differences(s: &MoeShape, routing: Routing, shared: bool) {
        let seed = crate::seed();
        let mut layer = Layer::random(s, &[s.tokens; 2], shared, seed).exact();
        let grads = layer.gradients(s, &routing, Rounding::Exact);
        let picks = layer.picks(s, &routing);
        let step = 1e-6;
        let mut worst = 0f64;
        for slot in slots(s, shared) {
            let len = input(&mut layer, slot).len();
            assert_eq!(gradient(&grads, slot).len(), len, "{slot:?}'s gradient");
            for i in 0..len {
                let v = input(&mut layer, slot)[i];
                let mut loss_at = |at: f64| {
                    input(&mut layer, slot)[i] = at;
                    loss(&layer, s, &routing, &picks)
                };
                let slope = (loss_at(v + step) - loss_at(v - step)) / (2.0 * step);
                input(&mut layer, slot)[i] = v;
                let got = gradient(&grads, slot)[i];
                let error = (got - slope).abs() / got.abs().max(1e-2);
                assert!(
                    error < 1e-6,
                    "{slot:?}[{i}]: backward {got}, finite differences {slope}"
                );
                worst = worst.max(error);
            }
        }
        println!("largest relative error {worst:.1e}");
    }

    #[test]
    fn softmax_normalized_matches_finite_differences() {
        check_finite_differences(&TINY, SOFTMAX, true);
    }

    #[test]
    fn softmax_unnormalized_matches_finite_differences() {
        check_finite_differences(&TINY, Routing::Softmax { normalize: false }, false);
    }

    #[test]
    fn grouped_sigmoid_matches_finite_differences() {
        let top3 = MoeShape { topk: 3, ..TINY };
        check_finite_differences(&top3, GROUPED_SIGMOID, true);
    }

    #[test]
    fn scaled_sigmoid_unnormalized_matches_finite_differences() {
        let routing = Routing::Sigmoid {
            groups: 1,
            topk_groups: 1,
            normalize: false,
            scale: 2.5,
        };
        check_finite_differences(&TINY, routing, false);
    }

    fn norm(v: impl Iterator<Item = f64>) -> f64 {
        v.map(|v| v * v).sum::<f64>().sqrt()
    }

    /// Rounding moves every gradient, by about what bf16's 2^-9 makes of a few roundings.
    #[test]
    fn rounded_backward_stays_near_the_unrounded() {
        let seed = crate::seed();
        let s = MoeShape {
            ranks: 2,
            experts: 8,
            tokens: 16,
            hidden: 64,
            ffn: 48,
            topk: 3,
        };
        let layer = Layer::random(&s, &[16, 16], true, seed);
        let rounded = layer.gradients(&s, &GROUPED_SIGMOID, Rounding::Bf16);
        let exact = layer.gradients(&s, &GROUPED_SIGMOID, Rounding::Exact);
        for slot in slots(&s, true) {
            let (a, b) = (gradient(&rounded, slot), gradient(&exact, slot));
            let error = norm(a.iter().zip(b).map(|(a, b)| a - b)) / norm(b.iter().copied());
            println!("{slot:?}: relative error {error:.1e}");
            assert!(
                error > 0.0 && error < 1e-2,
                "{slot:?}: relative error {error}"
            );
        }
    }

    /// [`MoeGradients`] is each token's [`token_backward`], with its outer products summed
    /// into the experts' places on their ranks, over ranks of different token counts.
    #[test]
    fn world_gradients_sum_the_tokens() {
        let seed = crate::seed();
        let s = TINY;
        let (h, f, el) = (s.hidden, s.ffn, s.local_experts());
        let layer = Layer::random(&s, &[3, 2], true, seed);
        let w = layer.weights();
        let world = layer.gradients(&s, &SOFTMAX, Rounding::Bf16);
        let mut router = vec![0f64; s.experts * h];
        let mut w1 = vec![vec![0f64; el * 2 * f * h]; s.ranks];
        let mut w2 = vec![vec![0f64; el * h * f]; s.ranks];
        let (mut ws1, mut ws2) = (vec![0f64; 2 * f * h], vec![0f64; h * f]);
        let is_bf16 = |v: &f64| bf16::from_f64(*v).to_f64() == *v;
        let outer = |acc: &mut [f64], column: &[f64], row: &[f64]| {
            for (i, c) in column.iter().enumerate() {
                for (j, r) in row.iter().enumerate() {
                    acc[i * row.len() + j] += c * r;
                }
            }
        };
        for (rank, (x, dout)) in layer.x.iter().zip(&layer.dout).enumerate() {
            assert_eq!(world.dx[rank].len(), x.len());
            for (t, (row, dout_row)) in x.chunks_exact(h).zip(dout.chunks_exact(h)).enumerate() {
                let r = route(row, &s, &w, &SOFTMAX);
                let g = token_backward(row, dout_row, &r, &s, &w, &SOFTMAX, Rounding::Bf16);
                assert_eq!(world.dx[rank][t * h..][..h], g.dx);
                let x = widened(row);
                outer(&mut router, &g.dlogits, &x);
                for (&e, eg) in r.experts.iter().zip(&g.experts) {
                    let (home, j) = (e as usize / el, e as usize % el);
                    outer(&mut w1[home][j * 2 * f * h..][..2 * f * h], &eg.dz, &x);
                    outer(&mut w2[home][j * h * f..][..h * f], &eg.dy, &eg.h);
                }
                let shared = g.shared.as_ref().unwrap();
                outer(&mut ws1, &shared.dz, &x);
                outer(&mut ws2, &shared.dy, &shared.h);
                for eg in g.experts.iter().chain([shared]) {
                    assert!(eg.dy.iter().chain(&eg.dz).chain(&eg.h).all(is_bf16));
                }
            }
        }
        let close = |name: &str, got: &[f64], want: &[f64]| {
            assert_eq!(got.len(), want.len(), "{name}");
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "{name}[{i}]: {g} vs {w}"
                );
            }
        };
        close("router", &world.router, &router);
        for rank in 0..s.ranks {
            close("w1", &world.w1[rank], &w1[rank]);
            close("w2", &world.w2[rank], &w2[rank]);
        }
        let (dws1, dws2) = world.shared.as_ref().unwrap();
        close("ws1", dws1, &ws1);
        close("ws2", dws2, &ws2);
        assert!(w2.iter().flatten().any(|&v| v != 0.0));
    }
}
