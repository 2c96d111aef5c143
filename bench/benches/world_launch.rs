//! Host time of world launches (`kosmos_runtime::World`): the world measurement kernels'
//! empty op (`world_empty`: the team parameters and the start barrier, which a launch of the
//! whole world on one GPU skips; one workgroup per rank) on emulated worlds of 1 and 8
//! ranks, queued back to back with one synchronize at
//! the end — eagerly (`World::launch`), and as replays of a graph captured once
//! (`World::capture`, one launch per graph and `GRAPH_LAUNCHES` per graph) — against the
//! baseline of waiting for every launch (`World::launch` then `World::synchronize`), timed in the same process.
//!
//! Runs on `KOSMOS_DEVICE` (default the first GPU, else the CPU device). Prints a table,
//! writes JSON to `KOSMOS_BENCH_JSON` when set. `KOSMOS_BENCH_LAUNCHES` sets the launches
//! per trial (default 1000 on GPUs, 50 on the CPU device); the median of `TRIALS` trials
//! is reported. "host us" is the time of the calls that queue the launches, "total us"
//! that time plus the final synchronize, both per launch.

use kosmos_bench::report::{self, Field};
use kosmos_bench::{BenchError, Result};
use kosmos_runtime::{Device, DeviceKind, KernelArg, Module, World, WorldError, WorldOptions};
use kosmos_sched_tests::{load_world_kernels, world_kernels};
use std::process::ExitCode;
use std::time::Instant;

const TRIALS: usize = 7;
/// Launches in the larger captured graph.
const GRAPH_LAUNCHES: usize = 100;

/// One way of issuing launches, timed.
struct Row {
    ranks: u32,
    path: &'static str,
    host_us: f64,
    total_us: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn world_error(e: WorldError) -> BenchError {
    BenchError::Invalid {
        what: "world launch".into(),
        detail: e.to_string(),
    }
}

/// Median over trials of (host us, total us) per launch, a trial being `calls` calls of
/// `issue` (each queueing `per_call` launches) and one synchronize; after a warm-up trial.
fn time(
    world: &mut World,
    calls: usize,
    per_call: usize,
    mut issue: impl FnMut(&mut World) -> Result<(), WorldError>,
) -> Result<(f64, f64)> {
    let mut trial = |world: &mut World| -> Result<(f64, f64), WorldError> {
        let start = Instant::now();
        for _ in 0..calls {
            issue(world)?;
        }
        let queued = start.elapsed();
        world.synchronize()?;
        let done = start.elapsed();
        let launches = (calls * per_call) as f64;
        Ok((
            queued.as_secs_f64() * 1e6 / launches,
            done.as_secs_f64() * 1e6 / launches,
        ))
    };
    trial(world).map_err(world_error)?;
    let mut host = Vec::with_capacity(TRIALS);
    let mut total = Vec::with_capacity(TRIALS);
    for _ in 0..TRIALS {
        let (h, t) = trial(world).map_err(world_error)?;
        host.push(h);
        total.push(t);
    }
    Ok((median(host), median(total)))
}

fn bench_world(device: &Device, ranks: u32, launches: usize) -> Result<Vec<Row>> {
    let mut world = World::emulated(device, ranks, WorldOptions::default()).map_err(world_error)?;
    let modules: Vec<Module> = load_world_kernels(&world).map_err(world_error)?;
    let args = [KernelArg::from(0u32)];
    let (kernel, block) = (world_kernels::EMPTY, world_kernels::BLOCK);
    let launch = |w: &mut World| w.launch(&modules, kernel, 1, block, &args);
    let mut rows = Vec::new();
    let mut row = |path, (host_us, total_us)| {
        rows.push(Row {
            ranks,
            path,
            host_us,
            total_us,
        })
    };
    let run = |w: &mut World| {
        w.launch(&modules, kernel, 1, block, &args)?;
        w.synchronize()
    };
    row(
        "launch + synchronize each (run)",
        time(&mut world, launches, 1, run)?,
    );
    row("eager launch", time(&mut world, launches, 1, launch)?);
    let one = world.capture(launch).map_err(world_error)?;
    // SAFETY: the captured launches take no buffer arguments.
    let replay_one = |w: &mut World| unsafe { one.replay(w) };
    row(
        "graph of 1 launch, replayed",
        time(&mut world, launches, 1, replay_one)?,
    );
    let many = world
        .capture(|w| (0..GRAPH_LAUNCHES).try_for_each(|_| launch(w)))
        .map_err(world_error)?;
    // SAFETY: as above.
    let replay_many = |w: &mut World| unsafe { many.replay(w) };
    let calls = launches.div_ceil(GRAPH_LAUNCHES);
    row(
        "graph of 100 launches, replayed",
        time(&mut world, calls, GRAPH_LAUNCHES, replay_many)?,
    );
    Ok(rows)
}

fn run() -> Result<ExitCode> {
    let device = Device::from_env()?;
    let launches = match std::env::var("KOSMOS_BENCH_LAUNCHES") {
        Ok(s) => s.parse().map_err(|_| BenchError::Invalid {
            what: "KOSMOS_BENCH_LAUNCHES".into(),
            detail: format!("{s:?} is not a count"),
        })?,
        Err(_) if device.kind() == DeviceKind::Cpu => 50,
        Err(_) => 1000,
    };
    println!(
        "device: {device} ({}); {launches} launches of `{}` (1 workgroup of {} lanes per rank) \
         per trial, median of {TRIALS} trials",
        device.name(),
        world_kernels::EMPTY,
        world_kernels::BLOCK
    );
    let mut rows = Vec::new();
    for ranks in [1, 8] {
        rows.extend(bench_world(&device, ranks, launches)?);
    }
    let baseline = |r: &Row| {
        rows.iter()
            .find(|b| b.ranks == r.ranks)
            .map_or(f64::NAN, |b| b.total_us / r.total_us)
    };
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.path.to_string(),
                r.ranks.to_string(),
                format!("{:.2}", r.host_us),
                format!("{:.2}", r.total_us),
                format!("{:.2}", baseline(r)),
            ]
        })
        .collect();
    print!(
        "{}",
        report::table(
            &["path", "ranks", "host us", "total us", "speed-up"],
            &cells
        )
    );
    println!(
        "host us = time of the calls per launch; total us = with the final synchronize; \
         speed-up = total us of `run` (a wait per launch) / total us of the path"
    );
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let json: Vec<String> = rows
            .iter()
            .map(|r| {
                report::object(&[
                    ("path", Field::Str(r.path.into())),
                    ("ranks", Field::Int(r.ranks.into())),
                    ("host_us", Field::Num(r.host_us)),
                    ("total_us", Field::Num(r.total_us)),
                    ("speedup", Field::Num(baseline(r))),
                ])
            })
            .collect();
        let header = [
            ("bench", Field::Str("world_launch".into())),
            (
                "device",
                Field::Str(format!("{device} ({})", device.name())),
            ),
            ("launches", Field::Int(launches as u64)),
        ];
        std::fs::write(&path, report::document(&header, &json))?;
        println!("wrote {path}");
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    run().unwrap_or_else(|e| {
        eprintln!("world_launch: {e}");
        ExitCode::FAILURE
    })
}
