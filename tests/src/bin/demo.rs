//! The main job, on the default device (`KOSMOS_DEVICE`, else the first GPU, else the CPU
//! device): first the most complete op, a whole MoE layer forward pass in one launch per rank
//! (`kernels::MoeLayer`: router, dispatch, SwiGLU experts, a shared expert, combine and fold)
//! on an emulated expert-parallel world (`kosmos_tests::moe_check`); then a tensor-parallel
//! MLP block (`kernels::TpMlp`: the fused all-gather+GEMM, GELU, the fused
//! GEMM+reduce-scatter) forward and backward (`kosmos_tests::tp_check`); then every reference kernel,
//! each checked against its host reference; then the kernels crate's `gemm`,
//! `gemm_persistent` and `gemm_plan` (the warp-specialised pipeline, `b` stored transposed,
//! bf16 output) on ragged shapes (`kosmos_tests::gemm_check`).

use kernels::{MlpShape, MoeShape};
use kosmos_runtime::{Device, DeviceKind};
use kosmos_tests::{gemm_check, moe_check, suite, tp_check};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("demo: some results differ from their references");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Shapes of the kernels crate's gemm: ragged in every dimension (the fragment kernel, K not
/// a multiple of 8), ragged M with K and N multiples of 8 (the group kernel), and on a GPU a
/// larger square one (the CPU device would take minutes on it).
fn gemm_shapes(device: &Device) -> Vec<(usize, usize, usize)> {
    let mut shapes = vec![(257, 200, 129), (257, 200, 136)];
    if device.kind() != DeviceKind::Cpu {
        shapes.push((1024, 1024, 1024));
    }
    shapes
}

/// The MoE layer's world size and shape: 4 ranks of 32 experts on a GPU, 2 small ranks on the
/// CPU device (the f64 reference runs on the host either way).
fn moe_case(device: &Device) -> (u32, MoeShape) {
    if device.kind() == DeviceKind::Cpu {
        let shape = MoeShape {
            experts: 8,
            topk: 2,
            tokens: 72,
            hidden: 64,
            ffn: 48,
        };
        (2, shape)
    } else {
        let shape = MoeShape {
            experts: 32,
            topk: 4,
            tokens: 256,
            hidden: 512,
            ffn: 256,
        };
        (4, shape)
    }
}

/// The MLP block's world size and shape: 8 ranks at a size a GPU finishes at once, 4 small
/// ranks on the CPU device (the f64 reference runs on the host either way).
fn mlp_case(device: &Device) -> (u32, MlpShape) {
    if device.kind() == DeviceKind::Cpu {
        let shape = MlpShape {
            tokens: 64,
            d_model: 64,
            d_ff: 256,
        };
        (4, shape)
    } else {
        let shape = MlpShape {
            tokens: 512,
            d_model: 512,
            d_ff: 2048,
        };
        (8, shape)
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let device = Device::from_env()?;
    let module = suite::load(&device)?;
    let seed = suite::seed();
    println!("device {device} ({}), seed {seed}", device.name());
    println!(
        "{:<23} {:<26} {:>10} {:>12} {:>8}  result",
        "kernel", "shape", "time ms", "max rel err", "wrong"
    );
    let mut all_passed = true;
    let mut row = |name: &str, shape: &str, ms: f64, max_rel_err: f64, wrong: usize, ok: bool| {
        all_passed &= ok;
        println!(
            "{name:<23} {shape:<26} {ms:>10.3} {max_rel_err:>12.2e} {wrong:>8}  {}",
            if ok { "ok" } else { "WRONG" }
        );
    };
    let (ranks, shape) = moe_case(&device);
    for c in moe_check::check_moe(&device, ranks, shape, seed)? {
        row(c.op, &c.shape, c.ms, c.err.max, c.err.over, c.passed());
    }
    let (ranks, shape) = mlp_case(&device);
    for c in tp_check::check_mlp(&device, ranks, shape, seed)? {
        row(c.op, &c.shape, c.ms, c.err.max, c.err.over, c.passed());
    }
    for case in suite::CASES {
        let o = (case.run)(&device, &module, seed)?;
        row(
            o.case,
            &o.shape,
            o.ms,
            o.max_rel_err(),
            o.wrong(),
            o.passed(),
        );
    }
    for (m, n, k) in gemm_shapes(&device) {
        for c in gemm_check::check_gemm(&device, m, n, k, seed)? {
            row(c.op, &c.shape, c.ms, c.err.max, c.err.over, c.passed());
        }
    }
    Ok(all_passed)
}
