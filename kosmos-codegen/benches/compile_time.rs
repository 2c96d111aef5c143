//! Compile time per kernel and target (verify + lower + O3 + codegen + link), median of runs.
//! `cargo bench -p kosmos-codegen --bench compile_time`; JSON to `KOSMOS_BENCH_JSON` if set.

#[path = "../tests/common/mod.rs"]
mod common;

use kosmos_codegen::{Options, TargetKind, compile};
use std::time::Instant;

const RUNS: usize = 9;

fn main() {
    let kernels = [
        kosmos_testkernels::vector_add(),
        common::control_flow(),
        common::all_rmw(),
        common::shared_reverse(),
        common::arithmetic(),
    ];
    let mut rows = Vec::new();
    println!("{:<16} {:<8} {:>10}", "kernel", "target", "median ms");
    for kernel in &kernels {
        let module = common::module(kernel.clone());
        for target in TargetKind::ALL {
            let mut times: Vec<f64> = (0..RUNS)
                .map(|_| {
                    let start = Instant::now();
                    compile(&module, target, &Options::default()).expect("compile");
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let median = times[RUNS / 2];
            println!("{:<16} {:<8} {:>10.2}", kernel.name, target, median);
            rows.push(format!(
                "{{\"kernel\":\"{}\",\"target\":\"{target}\",\"median_ms\":{median:.3},\"runs\":{RUNS}}}",
                kernel.name
            ));
        }
    }
    if let Some(path) = std::env::var_os("KOSMOS_BENCH_JSON") {
        let json = format!("[\n  {}\n]\n", rows.join(",\n  "));
        std::fs::write(&path, json).expect("write KOSMOS_BENCH_JSON");
    }
}
