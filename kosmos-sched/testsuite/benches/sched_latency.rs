//! Latency of the scheduling primitives on one device (`KOSMOS_DEVICE`, default the first
//! GPU, else the CPU device), in a one-rank world with a persistent grid:
//! - a claim, uncontended (one workgroup) and contended (every resident workgroup);
//! - a signal -> wait round trip between two workgroups, agent and system scope;
//!
//! each as (kernel time - empty kernel time) / operations, the empty kernel (same team
//! parameters, same world launch path) timed in the same run. Prints a table and writes
//! JSON to `KOSMOS_BENCH_JSON` when set. `KOSMOS_BENCH_OPS` scales the work (default
//! 200000 claims / 20000 round trips on GPUs, 2000 / 200 on the CPU device).

use kosmos_ir::Scope;
use kosmos_runtime::{Device, DeviceKind, KernelArg, Module, World, WorldOptions};
use kosmos_sched::latency::{self, BLOCK};
use std::time::Instant;

const TRIALS: usize = 5;

struct Row {
    name: String,
    ops: u64,
    kernel_us: f64,
    ns_per_op: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median wall time (µs) of a world launch of `kernel` and the wait for it
/// (`World::launch`, then `World::synchronize`) after a warm-up; `state` zeroed before each launch.
fn time(
    world: &mut World,
    module: &Module,
    kernel: &str,
    wgs: u32,
    n: u32,
    extra: Option<u32>,
) -> f64 {
    let state = world.device().alloc::<u32>(4).expect("state buffer");
    let mut trial = || {
        state.fill(0).expect("zero state");
        let mut args = vec![KernelArg::from(&state), KernelArg::from(n)];
        args.extend(extra.map(KernelArg::from));
        let t = Instant::now();
        world
            .launch(module, kernel, wgs, BLOCK, &args)
            .and_then(|()| world.synchronize())
            .unwrap_or_else(|e| panic!("{kernel}: {e}"));
        t.elapsed().as_secs_f64() * 1e6
    };
    trial();
    median((0..TRIALS).map(|_| trial()).collect())
}

fn main() {
    let device = Device::from_env().expect("a device");
    let module = device
        .load_module(&kosmos_sched_tests::SCHED.image().expect("embedded module"))
        .expect("load");
    let scale: u32 = std::env::var("KOSMOS_BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if device.kind() == DeviceKind::Cpu {
            1
        } else {
            100
        });
    let (claims, rounds) = (2000 * scale, 200 * scale);
    let mut world = World::emulated(
        &device,
        1,
        WorldOptions {
            wait_bound: Some(u32::MAX),
            ..WorldOptions::default()
        },
    )
    .expect("world");
    let wgs = world
        .persistent_workgroups(&module, latency::CLAIM, BLOCK)
        .expect("occupancy");
    let empty = time(&mut world, &module, latency::EMPTY, wgs, 0, None);
    let mut rows = Vec::new();
    let mut row = |name: String, ops: u32, us: f64| {
        rows.push(Row {
            name,
            ops: ops as u64,
            kernel_us: us,
            ns_per_op: ((us - empty) * 1e3 / ops as f64).max(0.0),
        })
    };
    let us = time(&mut world, &module, latency::CLAIM, wgs, claims, Some(1));
    row("claim, uncontended (1 workgroup)".into(), claims, us);
    let us = time(&mut world, &module, latency::CLAIM, wgs, claims, Some(wgs));
    row(format!("claim, contended ({wgs} workgroups)"), claims, us);
    for scope in [Scope::Agent, Scope::System] {
        let us = time(
            &mut world,
            &module,
            latency::pingpong(scope),
            wgs.max(2),
            rounds,
            None,
        );
        row(
            format!("signal->wait round trip, {scope:?} scope"),
            rounds,
            us,
        );
    }
    println!(
        "scheduling primitives on {device} ({}), {wgs} resident workgroups",
        device.name()
    );
    println!("empty kernel (baseline): {empty:.1} us per world launch");
    println!(
        "{:<44} {:>9} {:>12} {:>10} {:>9}",
        "operation", "ops", "kernel us", "ns/op", "x empty"
    );
    for r in &rows {
        println!(
            "{:<44} {:>9} {:>12.1} {:>10.1} {:>9.2}",
            r.name,
            r.ops,
            r.kernel_us,
            r.ns_per_op,
            r.kernel_us / empty
        );
    }
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let json = serde_json::json!({
            "bench": "sched_latency",
            "device": device.to_string(),
            "device_name": device.name(),
            "resident_workgroups": wgs,
            "empty_kernel_us": empty,
            "rows": rows.iter().map(|r| serde_json::json!({
                "operation": r.name,
                "ops": r.ops,
                "kernel_us": r.kernel_us,
                "ns_per_op": r.ns_per_op,
                "ratio_to_empty_kernel": r.kernel_us / empty,
            })).collect::<Vec<_>>(),
        });
        std::fs::write(&path, json.to_string()).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}
