//! The synthetic pipeline on emulated worlds of one CUDA GPU (all ranks' workgroups in one
//! co-resident grid). Opt-in: `cargo test -p kosmos-sched-tests --test gpu_world --
//! --include-ignored`; a missing GPU then fails loudly.

use kosmos_runtime::{Device, World, WorldOptions};
use kosmos_sched::WaitKind;
use kosmos_sched_tests::{RunConfig, check_team_words, expect_timeout, load, run_pipeline, seed};

fn gpu() -> Device {
    Device::cuda(0).unwrap_or_else(|e| panic!("this test needs a CUDA GPU: {e}"))
}

#[test]
#[ignore = "needs a CUDA GPU (cuda:0)"]
fn pipeline_on_emulated_worlds_of_2_4_8_ranks() {
    let device = gpu();
    let module = load(&device).unwrap();
    for ranks in [2, 4, 8] {
        for per_rank in [None, Some(1), Some(3), Some(16)] {
            let seed = seed();
            let mut cfg = RunConfig::small(ranks, per_rank, seed);
            // Bigger shards than on the CPU device: 8 blocks of 4 chunks of 256 f32.
            cfg.pipeline.shape.blocks = 8;
            cfg.pipeline.shape.chunks_per_block = 4;
            cfg.pipeline.chunk_elems = 256;
            let out = run_pipeline(&device, &module, &cfg)
                .unwrap_or_else(|e| panic!("R={ranks} W={per_rank:?} seed {seed}: {e}"));
            println!(
                "R={ranks} W={} ({} workgroups): {} compute + {} comm tasks per rank, all once",
                out.per_rank,
                out.per_rank * ranks,
                out.plans[0].compute.len(),
                out.plans[0].comm.len()
            );
            if let Err(e) = out.check {
                panic!("R={ranks} W={per_rank:?} seed {seed}:\n{e}");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU (cuda:0)"]
fn a_launch_of_the_whole_world_on_the_gpu_skips_the_start_barrier() {
    // All ranks in one launch on one stream, the workgroups co-resident: `team_apart` 0.
    let mut world = World::emulated(&gpu(), 4, WorldOptions::default()).unwrap();
    check_team_words(&mut world, 3, 0);
}

#[test]
#[ignore = "needs a CUDA GPU (cuda:0)"]
fn a_missing_signal_times_out_on_the_gpu() {
    let device = gpu();
    let module = load(&device).unwrap();
    let seed = seed();
    let mut cfg = RunConfig::small(4, None, seed);
    cfg.wait_bound = Some(20_000);
    cfg.drop_signal = Some((1, 0));
    let start = std::time::Instant::now();
    let (err, records) = expect_timeout(run_pipeline(&device, &module, &cfg), seed);
    println!("gave up after {:?}: {err}", start.elapsed());
    for r in records {
        assert_eq!((r.kind, r.rank, r.task), (WaitKind::Task, 1, 2), "{r}");
        assert_eq!((r.counter, r.expected, r.seen), (4, 2, 1), "{r}");
    }
}
