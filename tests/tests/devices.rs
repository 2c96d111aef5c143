//! The reference kernels through kosmos-runtime on the selected device (`KOSMOS_DEVICE`; the
//! CPU device in CI), against host references. On a GPU each result is also compared with the
//! CPU device's result for the same inputs: bitwise for integer outputs, by relative error for
//! float outputs.

use kosmos_runtime::{Device, DeviceKind};
use kosmos_tests::suite::{self, Case, Outcome};

fn run_case(case: &Case) {
    let device = Device::from_env().expect("KOSMOS_DEVICE names a usable device");
    let module = suite::load(&device).expect("reference module loads");
    let seed = suite::seed();
    let got = (case.run)(&device, &module, seed).expect("case runs");
    assert!(
        got.passed(),
        "{} on {device} (seed {seed}): {got:?} does not match the reference",
        case.name
    );
    if device.kind() != DeviceKind::Cpu {
        let cpu = Device::cpu().unwrap();
        let cpu_module = suite::load(&cpu).unwrap();
        let on_cpu = (case.run)(&cpu, &cpu_module, seed).unwrap();
        assert_agree(&got, &on_cpu, seed);
    }
}

fn assert_agree(gpu: &Outcome, cpu: &Outcome, seed: u64) {
    assert_eq!(gpu.bits.len(), cpu.bits.len());
    if gpu.exact {
        assert_eq!(
            gpu.bits, cpu.bits,
            "{} (seed {seed}): devices differ",
            gpu.case
        );
    } else {
        let scale = cpu
            .bits
            .iter()
            .fold(0f64, |m, b| m.max(f32::from_bits(*b).abs() as f64))
            .max(1e-30);
        for (i, (g, c)) in gpu.bits.iter().zip(&cpu.bits).enumerate() {
            let (g, c) = (f32::from_bits(*g) as f64, f32::from_bits(*c) as f64);
            assert!(
                (g - c).abs() / scale <= gpu.tolerance,
                "{} (seed {seed}): element {i}: GPU {g} vs CPU device {c}",
                gpu.case
            );
        }
    }
}

#[test]
fn vector_add_ragged_tail() {
    run_case(&suite::CASES[0]);
}

#[test]
fn workgroup_sum_shared_memory() {
    run_case(&suite::CASES[1]);
}

#[test]
fn matmul_bf16_130x96x72() {
    run_case(&suite::CASES[2]);
}

#[test]
fn histogram_exact_counts() {
    run_case(&suite::CASES[3]);
}

#[test]
fn handshake_release_acquire() {
    run_case(&suite::CASES[4]);
}

#[test]
fn kernels_gemm_fragments_257x136x72() {
    run_case(&suite::CASES[5]);
}
