//! The f64 reference of a tensor-parallel MLP block (`Y = ReduceScatter(gelu(AllGather(X)
//! W1_r) W2_r)`), forward and backward, rank by rank, rounding to bf16 where the block hands
//! activations to the next GEMM (FC1's activation and the gradient before FC1).

use crate::matmul_bf16_ref;
use half::bf16;

/// `sqrt(2 / pi)` and the cubic coefficient of GELU's tanh form.
const GELU_C: f64 = 0.797_884_560_802_865_4;
const GELU_A: f64 = 0.044_715;

/// GELU in its tanh form.
pub fn gelu(z: f64) -> f64 {
    0.5 * z * (1.0 + (GELU_C * (z + GELU_A * z * z * z)).tanh())
}

/// The derivative of [`gelu`].
pub fn gelu_slope(z: f64) -> f64 {
    let t = (GELU_C * (z + GELU_A * z * z * z)).tanh();
    0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * z * z)
}

/// `rows x cols` row-major `a`, transposed.
pub fn transposed(a: &[bf16], rows: usize, cols: usize) -> Vec<bf16> {
    let mut t = vec![bf16::ZERO; a.len()];
    for i in 0..rows {
        for j in 0..cols {
            t[j * rows + i] = a[i * cols + j];
        }
    }
    t
}

fn to_bf16(v: impl Iterator<Item = f64>) -> Vec<bf16> {
    v.map(bf16::from_f64).collect()
}

/// What the block computes, over all ranks: `y` and `dx` are the whole `tokens x d_model`
/// matrices (rank `r` holds rows `r tokens / R..`), `dw1[r]` and `dw2[r]` rank `r`'s weight
/// gradients.
pub struct MlpReference {
    pub y: Vec<f64>,
    pub dx: Vec<f64>,
    pub dw1: Vec<Vec<f64>>,
    pub dw2: Vec<Vec<f64>>,
}

impl MlpReference {
    /// From the input `x` and output gradient `dy` (`tokens x d_model`) and each rank's
    /// `w1[r]` (`d_model x hidden`) and `w2[r]` (`hidden x d_model`).
    pub fn new(
        x: &[bf16],
        dy: &[bf16],
        w1: &[Vec<bf16>],
        w2: &[Vec<bf16>],
        tokens: usize,
        d_model: usize,
    ) -> MlpReference {
        let hidden = w1[0].len() / d_model;
        let mut y = vec![0f64; tokens * d_model];
        let mut dx = vec![0f64; tokens * d_model];
        let (mut dw1, mut dw2) = (Vec::new(), Vec::new());
        let xt = transposed(x, tokens, d_model);
        for (w1, w2) in w1.iter().zip(w2) {
            let z = matmul_bf16_ref(x, w1, tokens, hidden, d_model);
            let h = to_bf16(z.iter().map(|&v| gelu(v)));
            let add =
                |acc: &mut [f64], v: Vec<f64>| acc.iter_mut().zip(v).for_each(|(a, v)| *a += v);
            add(&mut y, matmul_bf16_ref(&h, w2, tokens, d_model, hidden));
            let w2t = transposed(w2, hidden, d_model);
            let dh = matmul_bf16_ref(dy, &w2t, tokens, hidden, d_model);
            let ht = transposed(&h, tokens, hidden);
            dw2.push(matmul_bf16_ref(&ht, dy, hidden, d_model, tokens));
            let dz = to_bf16(dh.iter().zip(&z).map(|(g, &z)| g * gelu_slope(z)));
            let w1t = transposed(w1, d_model, hidden);
            add(&mut dx, matmul_bf16_ref(&dz, &w1t, tokens, d_model, hidden));
            dw1.push(matmul_bf16_ref(&xt, &dz, d_model, hidden, tokens));
        }
        MlpReference { y, dx, dw1, dw2 }
    }
}
