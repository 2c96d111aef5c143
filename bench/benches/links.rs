//! The links between ranks that the fused ops stand on, in one run:
//!
//! - the round trip of a readiness signal between ranks 0 and 1 (`ops::ping_pong`: a
//!   system-scope signal into the peer's counter, then a bounded wait for its answer), in
//!   microseconds;
//! - a rank pulling its neighbour's buffer with its workgroups (`ops::peer_copy`: 16-byte
//!   chunks, four in flight a lane, as the fused all-gather pulls rows), every rank at once,
//!   in GB/s per rank, next to the driver's peer copy (`copy_range_from_peer`, the path of
//!   `cudaMemcpyPeer`) of the same bytes from rank 1 to rank 0 alone.
//!
//! On a world of one rank per GPU with `KOSMOS_BENCH_GPUS=N` (N >= 2; NCCL's all-gather of
//! the same bytes comes from `bench/tp_torch.py`, which `bench/tp_multi_gpu.sh` runs after
//! this), else on two ranks emulated on one GPU (the same kernels through one GPU's memory:
//! a reference point, not a link). Needs a CUDA GPU (`KOSMOS_DEVICE`); elsewhere it says so
//! and exits with code 2. Times are device times of the launches (`World::slowest_launch_ms`,
//! the slowest device), medians of `TIMED` after `WARMUP`; the driver's copy between events
//! on rank 0's stream. Before timing, every rank's pulled copy is compared with its
//! neighbour's bytes (a mismatch exits with code 1). Prints a table, writes JSON to
//! `KOSMOS_BENCH_JSON` when set.

use half::bf16;
use kernels::ops;
use kosmos_bench::Result;
use kosmos_bench::gemm;
use kosmos_bench::report::{self, Field};
use kosmos_runtime::{Device, DeviceKind, Module, World, WorldOptions, copy_range_from_peer};
use std::process::ExitCode;

/// Round trips a launch of `ping_pong`: long enough that its start and end barriers vanish.
const ROUNDS: u32 = 10_000;
/// Bytes each rank pulls: far beyond the caches.
const PULL_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("links: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Median over runs of the slowest device's time of the launch `launch` queues.
fn launch_ms(world: &mut World, mut launch: impl FnMut(&mut World) -> Result<()>) -> Result<f64> {
    let mut ms = Vec::with_capacity(gemm::TIMED);
    for i in 0..gemm::WARMUP + gemm::TIMED {
        launch(world)?;
        world.synchronize()?;
        if i >= gemm::WARMUP {
            ms.push(gemm::slowest_launch_ms(world)?);
        }
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms[ms.len() / 2])
}

fn run() -> Result<ExitCode> {
    let device = Device::from_env()?;
    if device.kind() != DeviceKind::Cuda {
        eprintln!("links: needs a CUDA GPU (KOSMOS_DEVICE), found {device}");
        return Ok(ExitCode::from(2));
    }
    let gpus: Option<usize> = std::env::var("KOSMOS_BENCH_GPUS")
        .ok()
        .and_then(|g| g.parse().ok())
        .filter(|&g| g > 1);
    let timed = WorldOptions {
        time_launches: true,
        ..WorldOptions::default()
    };
    let mut world = match gpus {
        Some(g) => {
            let devices = (0..g).map(Device::cuda).collect::<Result<Vec<_>, _>>()?;
            World::multi_gpu(&devices, timed)?
        }
        None => World::emulated(&device, 2, timed)?,
    };
    let ranks = world.ranks() as usize;
    let modules: Vec<Module> = world.load_module(&kernels::KERNELS.image()?)?;

    let counters = world.alloc_symmetric::<u32>(2)?;
    for r in counters.ranks() {
        r.fill(0)?;
    }
    let round_trip_ms = launch_ms(&mut world, |w| {
        Ok(ops::ping_pong::launch(
            w, &modules, 1, 32, &counters, ROUNDS,
        )?)
    })?;
    let round_trip_us = round_trip_ms * 1e3 / f64::from(ROUNDS);

    let len = PULL_BYTES / 2;
    let mut src = world.alloc_symmetric::<bf16>(len)?;
    let dst = world.alloc_symmetric::<bf16>(len)?;
    for r in 0..ranks {
        let stream = world.rank_stream(r as u32).expect("a rank");
        let filler = kernels::Ops::new(world.rank_device(r as u32).expect("a rank"))?;
        filler.fill_random(stream, &mut src.ranks_mut()[r], 77 + r as u32, 1.0)?;
        stream.synchronize()?;
        dst.ranks()[r].fill(bf16::NAN)?;
    }
    let groups = world.persistent_workgroups(&modules, "peer_copy", 256)?;
    ops::peer_copy::launch(&mut world, &modules, groups, 256, &src, &dst, groups)?;
    world.synchronize()?;
    let mut wrong = false;
    for r in 0..ranks {
        let got = dst.ranks()[r].download()?;
        let want = src.ranks()[(r + 1) % ranks].download()?;
        if got
            .iter()
            .zip(&want)
            .any(|(g, w)| g.to_bits() != w.to_bits())
        {
            eprintln!(
                "links: rank {r}'s pulled copy differs from rank {}'s bytes",
                (r + 1) % ranks
            );
            wrong = true;
        }
    }
    let pull_ms = launch_ms(&mut world, |w| {
        Ok(ops::peer_copy::launch(
            w, &modules, groups, 256, &src, &dst, groups,
        )?)
    })?;
    let stream = world.rank_stream(0).expect("rank 0");
    let (to, from) = (&dst.ranks()[0], &src.ranks()[1]);
    let driver_ms = gemm::median_ms(
        |f| gemm::time_on(stream, f),
        |_| Ok(copy_range_from_peer(stream, to, 0, from, 0, len)?),
    )?;
    let gbps = |ms: f64| PULL_BYTES as f64 / (ms * 1e-3) / 1e9;

    let what = match gpus {
        Some(g) => format!("{g} GPUs, a rank each"),
        None => format!("2 ranks emulated on {device}"),
    };
    let table = vec![
        vec![
            "signal round trip, rank 0 <-> 1".into(),
            format!("{round_trip_us:.2} us"),
            format!("{ROUNDS} round trips a launch"),
        ],
        vec![
            "pull by workgroups (peer_copy), every rank".into(),
            format!("{:.1} GB/s a rank", gbps(pull_ms)),
            format!(
                "{} MiB a rank, {groups} workgroups a rank",
                PULL_BYTES >> 20
            ),
        ],
        vec![
            "driver peer copy, rank 1 -> 0".into(),
            format!("{:.1} GB/s", gbps(driver_ms)),
            format!("{} MiB", PULL_BYTES >> 20),
        ],
    ];
    println!("{what}");
    println!("{}", report::table(&["link", "measured", "how"], &table));
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let header = [
            ("bench", Field::Str("links".into())),
            ("world", Field::Str(what)),
        ];
        let results = [report::object(&[
            ("round_trip_us", Field::Num(round_trip_us)),
            ("pull_gbps_per_rank", Field::Num(gbps(pull_ms))),
            ("driver_peer_copy_gbps", Field::Num(gbps(driver_ms))),
            ("pull_bytes", Field::Int(PULL_BYTES as u64)),
            ("workgroups_per_rank", Field::Int(groups.into())),
        ])];
        std::fs::write(path, report::document(&header, &results))?;
    }
    Ok(if wrong {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
