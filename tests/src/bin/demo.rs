//! The main job: every reference kernel on the default device (`KOSMOS_DEVICE`, else the first
//! GPU, else the CPU device), each checked against its host reference.

use kosmos_runtime::Device;
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

fn run() -> kosmos_runtime::Result<bool> {
    let device = Device::from_env()?;
    let module = suite::load(&device)?;
    let seed = suite::seed();
    println!("device {device} ({}), seed {seed}", device.name());
    println!(
        "{:<14} {:<22} {:>10} {:>12} {:>8}  result",
        "kernel", "shape", "time ms", "max rel err", "wrong"
    );
    let mut all_passed = true;
    for case in suite::CASES {
        let o = (case.run)(&device, &module, seed)?;
        all_passed &= o.passed();
        println!(
            "{:<14} {:<22} {:>10.3} {:>12.2e} {:>8}  {}",
            o.case,
            o.shape,
            o.ms,
            o.max_rel_err,
            o.mismatches,
            if o.passed() { "ok" } else { "WRONG" }
        );
    }
    Ok(all_passed)
}
