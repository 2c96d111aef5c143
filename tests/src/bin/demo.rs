//! The main job: every reference kernel on the default device (`KOSMOS_DEVICE`, else the first
//! GPU, else the CPU device), each checked against its host reference, then the kernels
//! crate's `gemm` and `gemm_persistent` on ragged shapes (`kernels::demo::check_gemm`).

use kosmos_runtime::{Device, DeviceKind};
use kosmos_tests::suite;
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

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let device = Device::from_env()?;
    let module = suite::load(&device)?;
    let seed = suite::seed();
    println!("device {device} ({}), seed {seed}", device.name());
    println!(
        "{:<16} {:<22} {:>10} {:>12} {:>8}  result",
        "kernel", "shape", "time ms", "max rel err", "wrong"
    );
    let mut all_passed = true;
    for case in suite::CASES {
        let o = (case.run)(&device, &module, seed)?;
        all_passed &= o.passed();
        println!(
            "{:<16} {:<22} {:>10.3} {:>12.2e} {:>8}  {}",
            o.case,
            o.shape,
            o.ms,
            o.max_rel_err,
            o.mismatches,
            if o.passed() { "ok" } else { "WRONG" }
        );
    }
    for (m, n, k) in gemm_shapes(&device) {
        for c in kernels::demo::check_gemm(&device, m, n, k, seed)? {
            all_passed &= c.passed();
            println!(
                "{:<16} {:<22} {:>10.3} {:>12.2e} {:>8}  {}",
                c.op,
                c.shape,
                c.ms,
                c.max_rel_err,
                c.mismatches,
                if c.passed() { "ok" } else { "WRONG" }
            );
        }
    }
    Ok(all_passed)
}
