//! Interpreter speed on the tiled bf16 matmul: prints a table of size, seconds, lane-ops
//! and lane-ops per second (total and per worker thread), and writes the same rows as JSON
//! to the path in `KOSMOS_BENCH_JSON` when set.
//!
//! `CARGO_TARGET_DIR=target/cpu cargo bench -p kosmos-tests --bench interp_speed`

use half::bf16;
use kosmos_cpu::{Arg, CpuDevice};
use kosmos_ir::{Constant, ScalarType};
use kosmos_tests::kernels;
use std::fmt::Write;
use std::time::Instant;

const RUNS: usize = 3;

fn main() {
    let dev = CpuDevice::new();
    let kernel = kosmos_ir::verify(kernels::matmul_bf16()).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("interp_speed: tiled bf16 matmul on the CPU device ({cores} cores), best of {RUNS}");
    println!(
        "{:>16} {:>10} {:>14} {:>14} {:>16}",
        "m x n x k", "seconds", "lane-ops", "lane-ops/s", "per thread/s"
    );
    let mut json = String::from("[");
    for (i, &(m, n, k)) in [(64usize, 64usize, 64usize), (256, 256, 256)]
        .iter()
        .enumerate()
    {
        let a: Vec<u8> = (0..m * k)
            .flat_map(|i| bf16::from_f32((i % 7) as f32 * 0.25).to_le_bytes())
            .collect();
        let b: Vec<u8> = (0..k * n)
            .flat_map(|i| bf16::from_f32((i % 5) as f32 * 0.5).to_le_bytes())
            .collect();
        let (pa, pb, pc) = (
            dev.alloc(a.len() as u64).expect("alloc a"),
            dev.alloc(b.len() as u64).expect("alloc b"),
            dev.alloc((m * n * 4) as u64).expect("alloc c"),
        );
        dev.write(pa, &a).expect("write a");
        dev.write(pb, &b).expect("write b");
        let u = |v: usize| Arg::Scalar(Constant::int(ScalarType::U32, v as i64));
        let args = [Arg::Ptr(pa), Arg::Ptr(pb), Arg::Ptr(pc), u(m), u(n), u(k)];
        let t = kernels::TILE;
        let grid = [(n as u32).div_ceil(t), (m as u32).div_ceil(t), 1];
        let mut best = f64::INFINITY;
        let mut stats = None;
        for _ in 0..RUNS {
            let start = Instant::now();
            let s = dev
                .launch(&kernel, grid, [t, t, 1], &args)
                .expect("matmul launch");
            best = best.min(start.elapsed().as_secs_f64());
            stats = Some(s);
        }
        let stats = stats.expect("at least one run");
        let rate = stats.lane_ops as f64 / best;
        let threads = stats.threads.min(cores).max(1);
        let per_thread = rate / threads as f64;
        let size = format!("{m}x{n}x{k}");
        println!(
            "{size:>16} {best:>10.4} {:>14} {rate:>14.3e} {per_thread:>16.3e}",
            stats.lane_ops
        );
        if i > 0 {
            json.push(',');
        }
        let _ = write!(
            json,
            "{{\"bench\":\"interp_matmul_bf16\",\"m\":{m},\"n\":{n},\"k\":{k},\"seconds\":{best},\"lane_ops\":{},\"lane_ops_per_s\":{rate},\"lane_ops_per_s_per_thread\":{per_thread},\"threads\":{threads}}}",
            stats.lane_ops
        );
        for p in [pa, pb, pc] {
            dev.free(p).expect("free");
        }
    }
    json.push(']');
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        std::fs::write(&path, json + "\n").unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
    }
}
