//! Worlds of one rank per CUDA GPU (`World::multi_gpu`): the synthetic pipeline across real
//! GPUs, a cross-GPU signal -> wait round trip, peer tile-copy bandwidth by workgroups next
//! to `cuMemcpyPeerAsync`, and a planted missing signal. Opt-in, on a machine with N >= 2
//! GPUs with peer access:
//!
//! `KOSMOS_WORLD_GPUS=N cargo test -p kosmos-sched-tests --test multi_gpu_world --
//! --include-ignored --nocapture --test-threads=1`
//!
//! Without the variable, or with fewer GPUs than it names, every test fails saying so.

use kosmos_runtime::{Device, World, WorldOptions, copy_from_peer};
use kosmos_sched::WaitKind;
use kosmos_sched::plan::RankPlan;
use kosmos_sched_tests::world_kernels::{self, BLOCK, VECTOR_LANES, buffers};
use kosmos_sched_tests::{
    RunConfig, check_team_words, expect_timeout, load_in, load_world_kernels, random_words,
    run_pipeline_in, seed, time_world_launch, timed,
};
use rand::{SeedableRng, rngs::SmallRng};

const ENV: &str = "KOSMOS_WORLD_GPUS";

/// The GPUs `KOSMOS_WORLD_GPUS` asks for; fails loudly when it is unset or they are missing.
fn gpus() -> Vec<Device> {
    let value = std::env::var(ENV).unwrap_or_else(|_| {
        panic!("this test needs {ENV}=N (N >= 2 CUDA GPUs with peer access), and it is unset")
    });
    let n: usize = value
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{ENV}=`{value}` is not a number of GPUs"));
    (0..n)
        .map(|i| Device::cuda(i).unwrap_or_else(|e| panic!("{ENV}={n} needs {n} CUDA GPUs: {e}")))
        .collect()
}

fn world(options: WorldOptions) -> World {
    let devices = gpus();
    World::multi_gpu(&devices, options).unwrap_or_else(|e| panic!("{ENV}={}: {e}", devices.len()))
}

#[test]
#[ignore = "needs KOSMOS_WORLD_GPUS=N (N >= 2 CUDA GPUs)"]
fn launches_of_part_of_the_world_keep_their_start_barrier() {
    // A launch per GPU: one may start while another still runs the previous launch, and one
    // rank's may end while another's still runs.
    check_team_words(&mut world(WorldOptions::default()), 2, 3);
}

#[test]
#[ignore = "needs KOSMOS_WORLD_GPUS=N (N >= 2 CUDA GPUs)"]
fn pipeline_runs_every_task_once_across_gpus() {
    for per_rank in [None, Some(1), Some(3), Some(16)] {
        let seed = seed();
        let ranks = gpus().len() as u32;
        let mut cfg = RunConfig::small(ranks, per_rank, seed);
        cfg.pipeline.shape.blocks = 8;
        cfg.pipeline.shape.chunks_per_block = 4;
        cfg.pipeline.chunk_elems = 256;
        let world = world(cfg.world_options());
        let modules = load_in(&world).unwrap();
        let out = run_pipeline_in(world, &modules, &cfg)
            .unwrap_or_else(|e| panic!("R={ranks} W={per_rank:?} seed {seed}: {e}"));
        println!(
            "R={ranks} GPUs, W={} workgroups per GPU: {} compute + {} comm tasks per rank, all once, data exact ({:?} ms per GPU)",
            out.per_rank,
            out.plans[0].compute.len(),
            out.plans[0].comm.len(),
            out.world.last_launch_ms()
        );
        if let Err(e) = out.check {
            panic!("R={ranks} W={per_rank:?} seed {seed}:\n{e}");
        }
    }
}

/// Nanoseconds per signal -> wait round trip between rank 0 and rank 1 of `world`:
/// (ping-pong time - empty kernel time) / rounds, both timed in this call.
fn round_trip_ns(world: &mut World, rounds: u32) -> (f64, f64) {
    let modules = load_world_kernels(world).unwrap();
    let flags = world.alloc_symmetric::<u32>(2).unwrap();
    assert_eq!(flags.index(), buffers::FLAGS);
    let zero = |_: &World| Ok(flags.ranks().iter().try_for_each(|b| b.fill(0))?);
    let empty = time_world_launch(world, &modules, world_kernels::EMPTY, 1, 0, 5, zero).unwrap();
    let ms =
        time_world_launch(world, &modules, world_kernels::PINGPONG, 1, rounds, 5, zero).unwrap();
    assert_eq!(
        flags.rank(0).unwrap().download().unwrap()[1],
        rounds,
        "pongs"
    );
    assert_eq!(
        flags.rank(1).unwrap().download().unwrap()[0],
        rounds,
        "pings"
    );
    (empty, (ms - empty) * 1e6 / rounds as f64)
}

#[test]
#[ignore = "needs KOSMOS_WORLD_GPUS=N (N >= 2 CUDA GPUs)"]
fn cross_gpu_signal_wait_round_trip() {
    let rounds = 20_000;
    let mut across = world(timed());
    let (empty, ns) = round_trip_ns(&mut across, rounds);
    // The same kernel with both ranks on GPU 0 (an emulated world), in the same run.
    let mut local = World::emulated(across.device(), 2, timed()).unwrap();
    let (local_empty, local_ns) = round_trip_ns(&mut local, rounds);
    println!("signal -> wait round trip, system scope, {rounds} rounds, medians of 5");
    println!(
        "{:<34} {:>12} {:>14} {:>12}",
        "ranks 0 and 1 on", "empty ms", "ns/round trip", "x one GPU"
    );
    println!(
        "{:<34} {:>12.3} {:>14.1} {:>12.2}",
        "one GPU (emulated)", local_empty, local_ns, 1.0
    );
    println!(
        "{:<34} {:>12.3} {:>14.1} {:>12.2}",
        format!(
            "two GPUs ({} and {})",
            across.device(),
            across.rank_device(1).unwrap()
        ),
        empty,
        ns,
        ns / local_ns
    );
    assert!(
        ns > 0.0 && local_ns > 0.0,
        "round trips took no time: {ns} / {local_ns}"
    );
}

#[test]
#[ignore = "needs KOSMOS_WORLD_GPUS=N (N >= 2 CUDA GPUs)"]
fn peer_tile_copy_bandwidth_by_workgroups() {
    // 256 MiB per rank, every rank pulling its ring successor's buffer at once.
    let vectors: u32 = 1 << 24;
    let words = (vectors * VECTOR_LANES) as usize;
    let bytes = words as f64 * 4.0;
    let seed = seed();
    println!("seed {seed}");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut world = world(timed());
    let ranks = world.ranks();
    let modules = load_world_kernels(&world).unwrap();
    let _flags = world.alloc_symmetric::<u32>(2).unwrap();
    let src = world.alloc_symmetric::<u32>(words).unwrap();
    let dst = world.alloc_symmetric::<u32>(words).unwrap();
    let data: Vec<Vec<u32>> = (0..ranks).map(|_| random_words(&mut rng, words)).collect();
    for (b, d) in src.ranks().iter().zip(&data) {
        b.upload(d).unwrap();
    }
    let poison = |_: &World| Ok(dst.ranks().iter().try_for_each(|b| b.fill(0xdead_beef))?);
    let check = |what: &str| {
        for r in 0..ranks {
            let got = dst.rank(r).unwrap().download().unwrap();
            let want = &data[((r + 1) % ranks) as usize];
            let bad = (0..words).find(|i| got[*i] != want[*i]);
            assert_eq!(bad, None, "{what}: rank {r}, seed {seed}");
        }
    };

    // The baseline: the driver's peer copy, one per GPU, all queued before any wait.
    let mut times = Vec::new();
    for trial in 0..6 {
        poison(&world).unwrap();
        let mut events = Vec::new();
        for r in 0..ranks {
            let stream = world.rank_stream(r).unwrap();
            let start = stream.record_event().unwrap();
            copy_from_peer(
                stream,
                dst.rank(r).unwrap(),
                src.rank((r + 1) % ranks).unwrap(),
            )
            .unwrap();
            events.push((start, stream.record_event().unwrap()));
        }
        let slowest = events
            .iter()
            .map(|(a, b)| a.elapsed_ms(b).unwrap() as f64)
            .fold(0f64, f64::max);
        if trial > 0 {
            times.push(slowest);
        }
    }
    times.sort_by(f64::total_cmp);
    let baseline = times[times.len() / 2];
    check("cuMemcpyPeerAsync");

    let resident = world
        .persistent_workgroups(&modules, world_kernels::PEER_COPY, BLOCK)
        .unwrap();
    let mut counts: Vec<u32> = [1, 2, 4, 8, 16, 32, 64, 128]
        .into_iter()
        .filter(|w| *w < resident)
        .collect();
    counts.push(resident);
    println!("peer copy, {ranks} GPUs each pulling 256 MiB from the next at once, medians of 5");
    println!(
        "{:<28} {:>12} {:>10} {:>14} {:>12}",
        "copy", "workgroups", "ms", "GB/s per GPU", "x driver"
    );
    let gbps = |ms: f64| bytes / (ms * 1e6);
    println!(
        "{:<28} {:>12} {:>10.3} {:>14.1} {:>12.2}",
        "cuMemcpyPeerAsync",
        "-",
        baseline,
        gbps(baseline),
        1.0
    );
    for w in counts {
        let ms = time_world_launch(
            &mut world,
            &modules,
            world_kernels::PEER_COPY,
            w,
            vectors,
            5,
            poison,
        )
        .unwrap();
        check(&format!("{w} workgroups"));
        println!(
            "{:<28} {:>12} {:>10.3} {:>14.1} {:>12.2}",
            "tile copy kernel",
            w,
            ms,
            gbps(ms),
            baseline / ms
        );
    }
}

#[test]
#[ignore = "needs KOSMOS_WORLD_GPUS=N (N >= 2 CUDA GPUs)"]
fn a_missing_signal_across_gpus_times_out_naming_rank_workgroup_and_task() {
    let seed = seed();
    let ranks = gpus().len() as u32;
    let mut cfg = RunConfig::small(ranks, None, seed);
    cfg.wait_bound = Some(20_000);
    cfg.drop_signal = Some((1, 0));
    // Rank 1's first comm task would have completed this counter; the compute task that
    // needs it waits with one chunk missing.
    let plan = RankPlan::new(cfg.pipeline.shape, 1).unwrap();
    let counter = plan.comm[0].counter;
    let task = plan
        .compute
        .iter()
        .position(|t| t.counter == counter)
        .unwrap() as u32;
    let expected = cfg.pipeline.shape.chunks_per_block;
    let world = world(cfg.world_options());
    let modules = load_in(&world).unwrap();
    let start = std::time::Instant::now();
    let (err, records) = expect_timeout(run_pipeline_in(world, &modules, &cfg), seed);
    println!("gave up after {:?}: {err}", start.elapsed());
    for r in records {
        assert_eq!((r.kind, r.rank, r.task), (WaitKind::Task, 1, task), "{r}");
        assert_eq!(
            (r.counter, r.expected, r.seen),
            (counter, expected, expected - 1),
            "{r}"
        );
    }
}
