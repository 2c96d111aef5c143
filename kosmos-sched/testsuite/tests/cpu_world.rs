//! The synthetic pipeline on emulated worlds of the CPU device: every task exactly once and
//! every shard delivered, for many world sizes and grid sizes; refusals and planted faults
//! become clear errors.

use kosmos_runtime::{Device, World, WorldError, WorldOptions};
use kosmos_sched::WaitKind;
use kosmos_sched_tests::{RunConfig, expect_timeout, load, run_pipeline, run_pipeline_in, seed};
use std::time::{Duration, Instant};

#[test]
fn pipeline_runs_every_task_once_for_all_world_and_grid_sizes() {
    let device = Device::cpu_with_resident_limit(128);
    let module = load(&device).unwrap();
    for ranks in [1, 2, 4, 8] {
        for per_rank in [1, 2, 3, 7, 16] {
            let seed = seed();
            let mut cfg = RunConfig::small(ranks, Some(per_rank), seed);
            cfg.max_task_ns = 5_000;
            let out = run_pipeline(&device, &module, &cfg)
                .unwrap_or_else(|e| panic!("R={ranks} W={per_rank} seed {seed}: {e}"));
            if let Err(e) = out.check {
                panic!("R={ranks} W={per_rank} seed {seed}:\n{e}");
            }
        }
    }
}

#[test]
fn persistent_grid_uses_the_resident_limit() {
    let device = Device::cpu_with_resident_limit(12);
    let module = load(&device).unwrap();
    let seed = seed();
    let out = run_pipeline(&device, &module, &RunConfig::small(4, None, seed)).unwrap();
    assert_eq!(out.per_rank, 3, "12 resident workgroups shared by 4 ranks");
    out.check.unwrap_or_else(|e| panic!("seed {seed}: {e}"));
}

#[test]
fn a_grid_that_cannot_be_co_resident_is_refused_before_launch() {
    let device = Device::cpu_with_resident_limit(64);
    let module = load(&device).unwrap();
    let err = run_pipeline(&device, &module, &RunConfig::small(8, Some(16), 1))
        .err()
        .expect("8 x 16 workgroups exceed 64 resident");
    match &err {
        WorldError::NotCoResident {
            needed, resident, ..
        } => assert_eq!((*needed, *resident), (128, 64)),
        other => panic!("unexpected error {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("cannot be co-resident") && text.contains("8 ranks x 16"),
        "{text}"
    );
    // More ranks than resident workgroups: not even one workgroup per rank.
    let small = Device::cpu_with_resident_limit(2);
    let err = run_pipeline(
        &small,
        &load(&small).unwrap(),
        &RunConfig::small(4, None, 1),
    );
    assert!(matches!(err, Err(WorldError::NotCoResident { .. })));
}

#[test]
fn a_missing_signal_times_out_naming_rank_workgroup_and_task() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device).unwrap();
    let seed = seed();
    let mut cfg = RunConfig::small(2, Some(3), seed);
    cfg.wait_bound = Some(150);
    // Rank 1's first comm task feeds its first peer block: compute task 2 (after the two
    // local blocks) never becomes ready.
    cfg.drop_signal = Some((1, 0));
    let start = std::time::Instant::now();
    let (err, records) = expect_timeout(run_pipeline(&device, &module, &cfg), seed);
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
    for r in records {
        assert_eq!((r.kind, r.rank, r.task), (WaitKind::Task, 1, 2), "{r}");
        assert!(r.workgroup < 3, "{r}");
        // Counter of block 0 of rank 0's shard: 2 chunks expected, one signal dropped.
        assert_eq!((r.counter, r.expected, r.seen), (0, 2, 1), "{r}");
    }
    let text = err.to_string();
    assert!(
        text.contains("rank 1 workgroup") && text.contains("task 2"),
        "{text}"
    );
}

#[test]
fn the_host_stops_waiting_for_a_launch_at_its_bound() {
    // A missing signal with an in-kernel wait bound no launch reaches: only the host's
    // bound ends the launch, well before the CPU device's 8 s deadlock watchdog would.
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device).unwrap();
    let seed = seed();
    let mut cfg = RunConfig::small(2, Some(3), seed);
    cfg.wait_bound = Some(u32::MAX);
    cfg.drop_signal = Some((1, 0));
    let limit = Duration::from_millis(300);
    let options = WorldOptions {
        host_wait_limit: Some(limit),
        ..cfg.world_options()
    };
    let world = World::emulated(&device, cfg.ranks, options).unwrap();
    let start = Instant::now();
    let err = run_pipeline_in(world, &module, &cfg)
        .err()
        .unwrap_or_else(|| panic!("seed {seed}: a launch that cannot finish finished"));
    let waited = start.elapsed();
    assert!(
        waited >= limit && waited < limit + Duration::from_millis(1200),
        "seed {seed}: waited {waited:?}"
    );
    let WorldError::HostTimeout {
        kernel,
        first_rank,
        end_rank,
        running,
        ..
    } = &err
    else {
        panic!("seed {seed}: unexpected error {err}");
    };
    assert_eq!(
        (kernel.as_str(), *first_rank, *end_rank),
        ("sched_pipeline", 0, 2)
    );
    assert!(!running.is_empty(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("not finished after the host waited 300ms") && text.contains("still running"),
        "{text}"
    );
}

#[test]
fn multi_gpu_worlds_say_what_they_need() {
    let options = WorldOptions::default();
    let err = World::multi_gpu(&[], options).unwrap_err();
    assert!(matches!(err, WorldError::TooFewGpus { given: 0 }), "{err}");
    assert!(err.to_string().contains("at least 2 GPUs"), "{err}");
    let cpu = Device::cpu_with_resident_limit(4);
    for devices in [vec![cpu.clone()], vec![cpu.clone(), cpu.clone()]] {
        let err = World::multi_gpu(&devices, options).unwrap_err();
        assert!(
            matches!(&err, WorldError::NotAGpu { device } if device == "cpu"),
            "{err}"
        );
        assert!(err.to_string().contains("World::emulated"), "{err}");
    }
    // Without a CUDA driver (CI), asking for GPUs fails before any world is built.
    if Device::cuda_device_count() < 2 {
        let err = Device::cuda(1).unwrap_err();
        assert!(err.to_string().contains("cuda:1"), "{err}");
    }
    let err = World::emulated(
        &Device::cpu_with_resident_limit(4),
        0,
        WorldOptions::default(),
    );
    assert!(matches!(err, Err(WorldError::NoRanks)));
}

#[test]
fn a_traced_run_records_every_task_once() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device).unwrap();
    let seed = seed();
    let mut cfg = RunConfig::small(4, Some(3), seed);
    cfg.trace = true;
    cfg.trace_capacity = 256;
    let mut out = run_pipeline(&device, &module, &cfg).unwrap();
    out.check
        .as_ref()
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let (events, dropped) = out.trace().unwrap();
    assert_eq!(dropped, 0);
    let plan = &out.plans[0];
    let mut tasks: Vec<_> = events
        .iter()
        .filter(|e| e.role != kosmos_sched::Role::Wait)
        .map(|e| (e.rank, e.role, e.task))
        .collect();
    tasks.sort_unstable();
    tasks.dedup();
    assert_eq!(tasks.len(), 4 * (plan.compute.len() + plan.comm.len()));
    assert!(
        events
            .iter()
            .all(|e| e.start <= e.end && e.workgroup < 3 && e.rank < 4)
    );
    // Reading the trace clears it: records accumulate only until the next read.
    let (again, dropped) = out.trace().unwrap();
    assert_eq!((again.len(), dropped), (0, 0));
}
