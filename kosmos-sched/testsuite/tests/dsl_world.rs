//! The DSL all-gather (`dsl_kernels::allgather_scale`) on emulated worlds of the CPU
//! device: every rank gathers every shard exactly and computes from it only after the
//! shard's signal; a planted missing signal becomes a timeout naming who waited on what.

use kosmos_runtime::{Device, Module, SymmetricBuffer, World, WorldOptions};
use kosmos_sched::WaitKind;
use kosmos_sched_tests::dsl_kernels::{
    allgather_buffers as buf, allgather_scale, allgather_scale_dispatch,
};
use kosmos_sched_tests::{DSL, expect_timeout, seed};
use rand::{Rng, SeedableRng, rngs::SmallRng};

const CHUNK: u32 = 100;
const BLOCK: u32 = 32;

struct Run {
    world: World,
    shards: Vec<Vec<f32>>,
    gathered: SymmetricBuffer<f32>,
    out: SymmetricBuffer<f32>,
    /// Per-task run counts of `allgather_scale_dispatch` (zeroed).
    tally: SymmetricBuffer<u32>,
    /// The rest of the kernel's buffers, kept alive for its launches (the shard, the
    /// counters, the queue heads).
    _inputs: (
        SymmetricBuffer<f32>,
        SymmetricBuffer<u32>,
        SymmetricBuffer<u32>,
    ),
}

/// A world of `ranks` ranks with random shards and poisoned outputs, its buffers allocated
/// in the order `allgather_buffers` gives.
fn setup(device: &Device, ranks: u32, bound: Option<u32>, seed: u64) -> Run {
    let options = WorldOptions {
        wait_bound: bound,
        ..WorldOptions::default()
    };
    let mut world = World::emulated(device, ranks, options).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    let n = (ranks * CHUNK) as usize;
    let shard = world.alloc_symmetric::<f32>(CHUNK as usize).unwrap();
    let gathered = world.alloc_symmetric::<f32>(n).unwrap();
    let ready = world.alloc_symmetric::<u32>(ranks as usize + 1).unwrap();
    let out = world.alloc_symmetric::<f32>(n).unwrap();
    let queues = world.alloc_symmetric::<u32>(2).unwrap();
    let tally = world.alloc_symmetric::<u32>(2 * ranks as usize).unwrap();
    let indices = [shard.index(), gathered.index(), ready.index(), out.index()];
    assert_eq!(
        (indices, queues.index(), tally.index()),
        (
            [buf::SHARD, buf::GATHERED, buf::READY, buf::OUT],
            buf::QUEUES,
            buf::TALLY
        )
    );
    let mut shards = Vec::new();
    for r in 0..ranks {
        let data: Vec<f32> = (0..CHUNK).map(|_| rng.random_range(-4.0..4.0)).collect();
        shard.rank(r).unwrap().upload(&data).unwrap();
        gathered
            .rank(r)
            .unwrap()
            .upload(&vec![f32::NAN; n])
            .unwrap();
        out.rank(r).unwrap().upload(&vec![f32::NAN; n]).unwrap();
        shards.push(data);
    }
    Run {
        world,
        shards,
        gathered,
        out,
        tally,
        _inputs: (shard, ready, queues),
    }
}

fn load(device: &Device) -> Module {
    device.load_module(&DSL.image().unwrap()).unwrap()
}

#[test]
fn dsl_allgather_delivers_every_shard_and_computes_after_its_signal() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    on_worlds(&device, |run, per_rank, what| {
        let scale = 0.75f32;
        allgather_scale::launch(
            &mut run.world,
            &module,
            per_rank,
            BLOCK,
            CHUNK,
            scale,
            u32::MAX,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        check_gathered_and_scaled(run, scale, what);
    });
}

/// Runs `case` on fresh worlds of 1, 2 and 4 ranks, with 1 and 3 workgroups per rank (its
/// second argument); `what` names the shape and the seed in messages.
fn on_worlds(device: &Device, mut case: impl FnMut(&mut Run, u32, &str)) {
    for ranks in [1, 2, 4] {
        for per_rank in [1, 3] {
            let seed = seed();
            let what = format!("R={ranks} W={per_rank} seed {seed}");
            println!("{what}");
            let mut run = setup(device, ranks, None, seed);
            case(&mut run, per_rank, &what);
        }
    }
}

/// Every rank holds every shard bit for bit and `out = gathered * scale + 1` (checked in
/// f64).
fn check_gathered_and_scaled(run: &Run, scale: f32, what: &str) {
    let all: Vec<f32> = run.shards.concat();
    for r in 0..run.world.ranks() {
        let gathered = run.gathered.rank(r).unwrap().download().unwrap();
        assert!(
            gathered
                .iter()
                .zip(&all)
                .all(|(g, x)| g.to_bits() == x.to_bits()),
            "{what}: rank {r} gathered the wrong shards"
        );
        let out = run.out.rank(r).unwrap().download().unwrap();
        for (i, (y, x)) in out.iter().zip(&all).enumerate() {
            let want = f64::from(*x) * f64::from(scale) + 1.0;
            let rel = (f64::from(*y) - want).abs() / want.abs().max(1e-3);
            assert!(rel <= 1e-6, "{what}: rank {r} out[{i}] = {y}, want {want}");
        }
    }
}

#[test]
fn dsl_dispatch_runs_every_push_and_row_once_after_its_signal() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    on_worlds(&device, |run, per_rank, what| {
        let scale = 1.25f32;
        allgather_scale_dispatch::launch(&mut run.world, &module, per_rank, BLOCK, CHUNK, scale)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        check_gathered_and_scaled(run, scale, what);
        let ranks = run.world.ranks();
        for r in 0..ranks {
            let tally = run.tally.rank(r).unwrap().download().unwrap();
            assert_eq!(
                tally,
                vec![1; 2 * ranks as usize],
                "{what}: rank {r} ran its pushes and rows these many times"
            );
        }
    });
}

#[test]
fn dsl_missing_signal_times_out_naming_rank_workgroup_and_task() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    let seed = seed();
    println!("seed {seed}");
    let ranks = 2;
    let mut run = setup(&device, ranks, Some(150), seed);
    // Rank 0's push to rank 1 signals the spare counter: rank 1's task for source 0 never
    // becomes ready.
    let skip = 1;
    let launch = allgather_scale::launch(&mut run.world, &module, 2, BLOCK, CHUNK, 1.0, skip);
    let (err, records) = expect_timeout(launch, seed);
    assert_eq!(records.len(), 1, "{err}");
    let r = records[0];
    assert_eq!((r.kind, r.rank, r.task), (WaitKind::Task, 1, 0), "{r}");
    assert!(r.workgroup < 2, "{r}");
    assert_eq!((r.counter, r.expected, r.seen), (0, 1, 0), "{r}");
    let text = err.to_string();
    assert!(
        text.contains("rank 1 workgroup") && text.contains("task 0"),
        "{text}"
    );
}
