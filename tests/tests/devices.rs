//! The reference kernels through kosmos-runtime on the selected device (`KOSMOS_DEVICE`; the
//! CPU device in CI), against host references. On a GPU each result is also compared with the
//! CPU device's result for the same inputs: bitwise for integer outputs, by relative error for
//! float outputs.

use kosmos_runtime::{Device, DeviceKind, Error, KernelArg, LaunchConfig};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_tests::gemm_check::check_gemm;
use kosmos_tests::suite::{self, Outcome, Verdict};

fn run_case(name: &str) {
    let case = suite::case(name);
    let device = Device::from_env().expect("KOSMOS_DEVICE names a usable device");
    let module = suite::load(&device).expect("reference module loads");
    let seed = suite::seed();
    let got = (case.run)(&device, &module, seed).expect("case runs");
    assert!(
        got.passed(),
        "{name} on {device} (seed {seed}): {got:?} does not match the reference"
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
    match &gpu.verdict {
        Verdict::Exact { .. } => assert_eq!(
            gpu.bits, cpu.bits,
            "{} (seed {seed}): devices differ",
            gpu.case
        ),
        Verdict::Close(err) => {
            let on_gpu: Vec<f32> = gpu.bits.iter().map(|b| f32::from_bits(*b)).collect();
            let on_cpu: Vec<f64> = cpu.bits.iter().map(|b| f32::from_bits(*b).into()).collect();
            compare::rel_err(&on_gpu, &on_cpu, Scale::Largest, err.tolerance).assert(format_args!(
                "{} (seed {seed}): GPU vs CPU device",
                gpu.case
            ));
        }
    }
}

#[test]
fn vector_add_ragged_tail() {
    run_case("vector_add");
}

#[test]
fn workgroup_sum_shared_memory() {
    run_case("workgroup_sum");
}

#[test]
fn matmul_bf16_130x96x72() {
    run_case("matmul_bf16");
}

#[test]
fn histogram_exact_counts() {
    run_case("histogram");
}

#[test]
fn handshake_release_acquire() {
    run_case("handshake");
}

#[test]
fn kernels_gemm_fragments_257x136x72() {
    run_case("kernels_gemm");
}

/// The demo's check of the kernels crate's GEMMs passes on the CPU device.
#[test]
fn kernels_gemm_check_on_the_cpu_device() {
    let checks = check_gemm(&Device::cpu().unwrap(), 33, 47, 65, suite::seed()).unwrap();
    assert_eq!(checks.len(), 2);
    assert!(checks.iter().all(|c| c.passed()), "{checks:?}");
}

/// A wait that nothing completes gives up and names itself: on a GPU through the launch's
/// error record at the next synchronisation (after its bound of polls; the work-item then
/// goes on, as after a bounds failure, and the error says the results are not to be used),
/// on the CPU device by the same record or by the watchdog that names the spinning poll,
/// whichever comes first.
#[test]
fn a_wait_that_never_completes_gives_up_naming_itself() {
    let device = Device::from_env().expect("KOSMOS_DEVICE names a usable device");
    let module = device
        .load_module(&kosmos_tests::WAITS.image().unwrap())
        .unwrap();
    let out = device.alloc::<u32>(1).unwrap();
    let stream = device.stream().unwrap();
    let start = std::time::Instant::now();
    let result = module
        .launch(
            &stream,
            "wait_forever",
            LaunchConfig::linear(1, 32),
            &[KernelArg::from(&out)],
        )
        .and_then(|()| stream.synchronize());
    eprintln!("{device}: {result:?} after {:?}", start.elapsed());
    match result {
        Err(Error::WaitGaveUp { origin, .. }) => {
            assert!(origin.contains("mbar_wait(&bar[0], 0)"), "{origin}")
        }
        Err(Error::Cpu(e)) if device.kind() == DeviceKind::Cpu => {
            assert!(e.to_string().contains("spinning"), "{e}")
        }
        other => panic!("expected the wait to give up, got {other:?}"),
    }
}
