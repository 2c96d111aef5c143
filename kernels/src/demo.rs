//! A self-check for demos: `gemm` and `gemm_persistent` on random inputs against an f64
//! reference computed on the host.

use crate::{Ops, Result};
use kosmos::bf16;
use kosmos::runtime::Device;

/// The outcome of one checked run.
#[derive(Clone, Debug)]
pub struct Check {
    pub op: &'static str,
    pub shape: String,
    /// Largest `|got - want| / max(|want|, 1)` over the output.
    pub max_rel_err: f64,
    /// Elements whose relative error exceeds [`GEMM_TOLERANCE`].
    pub mismatches: usize,
    pub ms: f64,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Tolerance of f32 accumulation of bf16 products (both sides see the same bf16 inputs).
pub const GEMM_TOLERANCE: f64 = 1e-4;

/// A reproducible stream of bf16 values in [-1, 1) (splitmix64).
pub fn random_bf16(seed: u64, len: usize) -> Vec<bf16> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            bf16::from_f64((z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
        .collect()
}

/// `C = A B` in f64 from bf16 inputs (row-major, `m x k` times `k x n`).
pub fn gemm_reference(a: &[bf16], b: &[bf16], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p].to_f64();
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j].to_f64();
            }
        }
    }
    c
}

/// Runs `gemm` and `gemm_persistent` on `device` for an `m x n x k` problem from `seed`, the
/// output poisoned with NaN first, and compares each with [`gemm_reference`].
pub fn check_gemm(device: &Device, m: usize, n: usize, k: usize, seed: u64) -> Result<Vec<Check>> {
    let ops = Ops::new(device)?;
    let stream = device.stream()?;
    let a_host = random_bf16(seed, m * k);
    let b_host = random_bf16(seed ^ 0x5eed, k * n);
    let want = gemm_reference(&a_host, &b_host, m, n, k);
    let a = kosmos::runtime::Buffer::from_slice(device, &a_host)?;
    let b = kosmos::runtime::Buffer::from_slice(device, &b_host)?;
    let mut c = device.alloc::<f32>(m * n)?;
    let mut checks = Vec::new();
    for op in ["gemm", "gemm_persistent"] {
        c.fill(f32::NAN)?;
        let start = std::time::Instant::now();
        if op == "gemm" {
            ops.gemm(&stream, &a, &b, &mut c, m, n, k)?;
        } else {
            ops.gemm_persistent(&stream, &a, &b, &mut c, m, n, k)?;
        }
        stream.synchronize()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let got = c.download()?;
        let errs: Vec<f64> = got
            .iter()
            .zip(&want)
            .map(|(g, w)| {
                let e = (f64::from(*g) - w).abs() / w.abs().max(1.0);
                if e.is_nan() { f64::INFINITY } else { e }
            })
            .collect();
        checks.push(Check {
            op,
            shape: format!("{m}x{n}x{k}"),
            max_rel_err: errs.iter().copied().fold(0.0, f64::max),
            mismatches: errs.iter().filter(|e| **e > GEMM_TOLERANCE).count(),
            ms,
        });
    }
    Ok(checks)
}
