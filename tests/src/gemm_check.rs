//! The kernels crate's `gemm`, `gemm_persistent` and (where its shape allows) `gemm_plan`
//! with `b` stored transposed and a bf16 result, through its public API, on random inputs
//! against an f64 reference computed on the host: the demo's second table and a device test.

use kernels::{Layout, Ops};
use kosmos_runtime::{Buffer, Device, DeviceKind};
use kosmos_testkernels::compare::{self, RelErr, Scale};
use kosmos_testkernels::{matmul_bf16_ref, random_bf16};
use std::time::Instant;

/// The outcome of one checked run.
#[derive(Clone, Debug)]
pub struct Check {
    pub op: &'static str,
    pub shape: String,
    /// The output against the reference, per element relative to `max(|want|, 1)`.
    pub err: RelErr,
    pub ms: f64,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.err.passed()
    }
}

/// Runs `gemm` and `gemm_persistent` on `device` for an `m x n x k` problem from `seed`, and
/// on CUDA and the CPU device, when `n` and `k` are multiples of 8, `gemm_plan` with `b`
/// stored as `b^T` writing bf16; each output poisoned with NaN first and compared with the
/// reference (the bf16 one within its rounding, 2^-7: half an ulp is up to 2^-8).
pub fn check_gemm(
    device: &Device,
    m: usize,
    n: usize,
    k: usize,
    seed: u64,
) -> kernels::Result<Vec<Check>> {
    let ops = Ops::new(device)?;
    let stream = device.stream()?;
    let a_host = random_bf16(seed, m * k);
    let b_host = random_bf16(seed ^ 0x5eed, k * n);
    let want = matmul_bf16_ref(&a_host, &b_host, m, n, k);
    let a = Buffer::from_slice(device, &a_host)?;
    let b = Buffer::from_slice(device, &b_host)?;
    let mut c = device.alloc::<f32>(m * n)?;
    let mut checks = Vec::new();
    for op in ["gemm", "gemm_persistent"] {
        c.fill(f32::NAN)?;
        let start = Instant::now();
        if op == "gemm" {
            ops.gemm(&stream, &a, &b, &mut c, m, n, k)?;
        } else {
            ops.gemm_persistent(&stream, &a, &b, &mut c, m, n, k)?;
        }
        stream.synchronize()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let err = compare::rel_err(
            &c.download()?,
            &want,
            Scale::Each { floor: 1.0 },
            compare::BF16_DOT_F32,
        );
        checks.push(Check {
            op,
            shape: format!("{m}x{n}x{k}"),
            err,
            ms,
        });
    }
    let pipeline = matches!(device.kind(), DeviceKind::Cuda | DeviceKind::Cpu);
    if pipeline && n.is_multiple_of(8) && k.is_multiple_of(8) {
        let b_t: Vec<_> = (0..n * k).map(|i| b_host[(i % k) * n + i / k]).collect();
        let b_t = Buffer::from_slice(device, &b_t)?;
        let plan = ops.gemm_plan(&a, Layout::N, &b_t, Layout::T, m, n, k)?;
        let mut c16 = Buffer::from_slice(device, &vec![half::bf16::NAN; m * n])?;
        let start = Instant::now();
        plan.launch(&stream, &mut c16)?;
        stream.synchronize()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let got = c16.download()?;
        checks.push(Check {
            op: "gemm_plan NT bf16",
            shape: format!("{m}x{n}x{k}"),
            err: compare::rel_err(&got, &want, Scale::Each { floor: 1.0 }, 1.0 / 128.0),
            ms,
        });
    }
    Ok(checks)
}
