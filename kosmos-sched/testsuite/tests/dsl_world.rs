//! The DSL all-gather (`dsl_kernels::allgather_scale`) on emulated worlds of the CPU
//! device: every rank gathers every shard exactly and computes from it only after the
//! shard's signal; a planted missing signal becomes a timeout naming who waited on what;
//! another world's symmetric buffer is refused before the launch, naming the argument.

use kosmos_runtime::{Device, Module, SymmetricBuffer, World, WorldError, WorldOptions};
use kosmos_sched::WaitKind;
use kosmos_sched_tests::dsl_kernels::{allgather_scale, allgather_scale_dispatch};
use kosmos_sched_tests::{DSL, expect_timeout, seed};
use rand::{Rng, SeedableRng, rngs::SmallRng};

const CHUNK: u32 = 100;
const BLOCK: u32 = 32;

/// A world and the symmetric buffers of the all-gather kernels.
struct Run {
    world: World,
    shards: Vec<Vec<f32>>,
    shard: SymmetricBuffer<f32>,
    gathered: SymmetricBuffer<f32>,
    /// A readiness counter per source rank, and a spare one.
    ready: SymmetricBuffer<u32>,
    out: SymmetricBuffer<f32>,
    /// The push and consumer queue heads.
    queues: SymmetricBuffer<u32>,
    /// Per-task run counts of `allgather_scale_dispatch` (zeroed).
    tally: SymmetricBuffer<u32>,
}

/// A world of `ranks` ranks with random shards and poisoned outputs.
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
        shard,
        gathered,
        ready,
        out,
        queues,
        tally,
    }
}

impl Run {
    /// `allgather_scale` on this world's buffers.
    fn allgather(
        &mut self,
        module: &Module,
        per_rank: u32,
        scale: f32,
        skip: u32,
    ) -> Result<(), WorldError> {
        allgather_scale::launch(
            &mut self.world,
            module,
            per_rank,
            BLOCK,
            &self.shard,
            &self.gathered,
            &self.ready,
            &self.out,
            &self.queues,
            CHUNK,
            scale,
            skip,
        )
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
        run.allgather(&module, per_rank, scale, u32::MAX)
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
        allgather_scale_dispatch::launch(
            &mut run.world,
            &module,
            per_rank,
            BLOCK,
            &run.shard,
            &run.gathered,
            &run.ready,
            &run.out,
            &run.queues,
            &run.tally,
            CHUNK,
            scale,
        )
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
    let launch = run.allgather(&module, 2, 1.0, skip);
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

#[test]
fn a_symmetric_buffer_of_another_world_is_refused_naming_the_argument() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    let seed = seed();
    println!("seed {seed}");
    let mut run = setup(&device, 2, None, seed);
    let mut other = setup(&device, 2, None, seed);
    // A new `out` in a slot freed by a drop, and another world's buffer of that index.
    let len = run.out.len();
    let index = run.world.alloc_symmetric::<f32>(len).unwrap().index();
    let mut reallocated = run.world.alloc_symmetric::<f32>(len).unwrap();
    let foreign = other.world.alloc_symmetric::<f32>(len).unwrap();
    assert_eq!((reallocated.index(), foreign.index()), (index, index));
    for copy in reallocated.ranks() {
        copy.upload(&vec![f32::NAN; len]).unwrap();
    }
    std::mem::swap(&mut run.out, &mut reallocated);
    // Another world's buffers have the indices of live ones here.
    assert_eq!(other.shard.index(), run.shard.index());
    let mut launch = |shard: &SymmetricBuffer<f32>, out: &SymmetricBuffer<f32>| {
        allgather_scale::launch(
            &mut run.world,
            &module,
            1,
            BLOCK,
            shard,
            &run.gathered,
            &run.ready,
            out,
            &run.queues,
            CHUNK,
            1.0,
            u32::MAX,
        )
    };
    let cases = [
        (&run.shard, &foreign, "out", index),
        (&other.shard, &run.out, "shard", run.shard.index()),
    ];
    for (shard, out, want, want_index) in cases {
        match launch(shard, out) {
            Err(WorldError::ForeignBuffer { kernel, arg, index }) => {
                assert_eq!(
                    (kernel.as_str(), arg.as_str(), index),
                    ("allgather_scale", want, want_index)
                );
            }
            result => panic!("expected a refusal of `{want}`, got {result:?}"),
        }
    }
    let err = launch(&run.shard, &foreign).unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "argument `out` is symmetric buffer {index} of another world"
        )),
        "{err}"
    );
    // Refused before launching: nothing was gathered.
    for r in 0..2 {
        let copy = run.gathered.rank(r).unwrap().download().unwrap();
        assert!(copy.iter().all(|g| g.is_nan()), "rank {r} ran");
    }
    // The world's own buffers, the reallocated one included, are taken.
    run.allgather(&module, 1, 0.5, u32::MAX).unwrap();
    check_gathered_and_scaled(&run, 0.5, &format!("seed {seed}"));
}
