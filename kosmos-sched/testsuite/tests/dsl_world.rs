//! The DSL all-gather (`dsl_kernels::allgather_scale`) on emulated worlds of the CPU
//! device: every rank gathers every shard exactly and computes from it only after the
//! shard's signal; a planted missing signal becomes a timeout naming who waited on what;
//! another world's symmetric buffer is refused before the launch, naming the argument; a
//! kernel that finds a receive buffer too small (`pull_rows`) reports it as
//! `CapacityExceeded` naming rank, workgroup, call site and sizes, without hanging.
//! Launches are queued back to back with no host wait between them, a timeout is reported
//! at the next synchronize (and the world runs again after it), and captured launches
//! replay exactly as eager ones. The capture test also runs on a GPU, opt-in:
//! `KOSMOS_DEVICE=cuda:0 cargo test -p kosmos-sched-tests --test dsl_world --
//! --include-ignored`.

use kosmos_runtime::{Buffer, Device, Module, SymmetricBuffer, World, WorldError, WorldOptions};
use kosmos_sched::{CapacityRecord, WaitKind};
use kosmos_sched_tests::dsl_kernels::{allgather_scale, allgather_scale_dispatch, pull_rows};
use kosmos_sched_tests::{DSL, expect_timeout, seed};
use rand::{Rng, SeedableRng, rngs::SmallRng};

const CHUNK: u32 = 100;
const BLOCK: u32 = 32;

/// A world and the symmetric buffers of the all-gather kernels.
struct Run {
    world: World,
    b: Buffers,
}

/// The all-gather kernels' shards and symmetric buffers, apart from the world (a capture
/// borrows the world while the launches it records borrow these).
struct Buffers {
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

/// An emulated world of `ranks` ranks on `device` whose waits give up after `bound` polls
/// (`None`: the device's default).
fn emulated(device: &Device, ranks: u32, bound: Option<u32>) -> World {
    let options = WorldOptions {
        wait_bound: bound,
        ..WorldOptions::default()
    };
    World::emulated(device, ranks, options).unwrap()
}

/// A world of `ranks` ranks with random shards and poisoned outputs.
fn setup(device: &Device, ranks: u32, bound: Option<u32>, seed: u64) -> Run {
    let mut world = emulated(device, ranks, bound);
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
        b: Buffers {
            shards,
            shard,
            gathered,
            ready,
            out,
            queues,
            tally,
        },
    }
}

impl Run {
    /// Queues `allgather_scale` on this world's buffers.
    fn allgather(
        &mut self,
        module: &Module,
        per_rank: u32,
        scale: f32,
        skip: u32,
    ) -> Result<(), WorldError> {
        let b = &self.b;
        allgather_scale::launch(
            &mut self.world,
            module,
            per_rank,
            BLOCK,
            &b.shard,
            &b.gathered,
            &b.ready,
            &b.out,
            &b.queues,
            CHUNK,
            scale,
            skip,
        )
    }

    /// Queues `allgather_scale_dispatch` on this world's buffers.
    fn dispatch(&mut self, module: &Module, per_rank: u32, scale: f32) -> Result<(), WorldError> {
        self.b.dispatch(&mut self.world, module, per_rank, scale)
    }
}

impl Buffers {
    /// Queues `allgather_scale_dispatch` on `world` with these buffers.
    fn dispatch(
        &self,
        world: &mut World,
        module: &Module,
        per_rank: u32,
        scale: f32,
    ) -> Result<(), WorldError> {
        allgather_scale_dispatch::launch(
            world,
            module,
            per_rank,
            BLOCK,
            &self.shard,
            &self.gathered,
            &self.ready,
            &self.out,
            &self.queues,
            &self.tally,
            CHUNK,
            scale,
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
            .and_then(|()| run.world.synchronize())
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
    let all: Vec<f32> = run.b.shards.concat();
    for r in 0..run.world.ranks() {
        let gathered = run.b.gathered.rank(r).unwrap().download().unwrap();
        assert!(
            gathered
                .iter()
                .zip(&all)
                .all(|(g, x)| g.to_bits() == x.to_bits()),
            "{what}: rank {r} gathered the wrong shards"
        );
        let out = run.b.out.rank(r).unwrap().download().unwrap();
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
        run.dispatch(&module, per_rank, scale)
            .and_then(|()| run.world.synchronize())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        check_gathered_and_scaled(run, scale, what);
        check_tally(run, 1, what);
    });
}

/// Every push and row of every rank ran `times` times in all.
fn check_tally(run: &Run, times: u32, what: &str) {
    let ranks = run.world.ranks();
    for r in 0..ranks {
        let tally = run.b.tally.rank(r).unwrap().download().unwrap();
        assert_eq!(
            tally,
            vec![times; 2 * ranks as usize],
            "{what}: rank {r} ran its pushes and rows these many times"
        );
    }
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
    let launch = run
        .allgather(&module, 2, 1.0, skip)
        .and_then(|()| run.world.synchronize());
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

/// Workgroups per rank and scale of the launches the back-to-back and capture tests queue:
/// sizes differ from launch to launch, so each barrier counts a different world.
const LAUNCHES: [(u32, f32); 5] = [(1, 0.5), (3, 1.5), (2, -2.0), (3, 0.25), (1, 3.0)];

/// Queues every launch of [`LAUNCHES`] of `allgather_scale_dispatch`, without waiting.
fn queue_launches(world: &mut World, module: &Module, b: &Buffers) -> Result<(), WorldError> {
    for (per_rank, scale) in LAUNCHES {
        b.dispatch(world, module, per_rank, scale)?;
    }
    Ok(())
}

#[test]
fn dsl_back_to_back_launches_without_host_waits_run_every_task_each_time() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    for ranks in [1, 2, 4] {
        let seed = seed();
        let what = format!("R={ranks} seed {seed}");
        let mut run = setup(&device, ranks, None, seed);
        queue_launches(&mut run.world, &module, &run.b).unwrap_or_else(|e| panic!("{what}: {e}"));
        run.world
            .synchronize()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let (_, last_scale) = LAUNCHES[LAUNCHES.len() - 1];
        check_gathered_and_scaled(&run, last_scale, &what);
        check_tally(&run, LAUNCHES.len() as u32, &what);
    }
}

#[test]
fn dsl_timeout_is_reported_at_synchronize_and_then_the_world_runs_again() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    let seed = seed();
    println!("seed {seed}");
    let mut run = setup(&device, 2, Some(150), seed);
    // A planted missing signal (rank 1's task for source 0 never becomes ready), then a
    // launch queued behind it: the sticky abort flag ends that one at its first barrier.
    run.allgather(&module, 2, 1.0, 1).unwrap();
    run.dispatch(&module, 3, 1.0).unwrap();
    let (err, records) = expect_timeout(run.world.synchronize(), seed);
    assert_eq!(records.len(), 1, "{err}");
    let r = records[0];
    assert_eq!((r.kind, r.rank, r.task), (WaitKind::Task, 1, 0), "{r}");
    assert!(r.workgroup < 2, "{r}");
    check_tally(&run, 0, "the launch queued after the timeout");
    // Reported once: the records and the abort flag are cleared.
    run.world.synchronize().unwrap();
    // The failed launch's own counters are the kernel's business: zero them, then the
    // world runs normally again.
    for b in run.b.ready.ranks().iter().chain(run.b.queues.ranks()) {
        b.fill(0).unwrap();
    }
    run.dispatch(&module, 3, 0.5)
        .and_then(|()| run.world.synchronize())
        .unwrap();
    check_gathered_and_scaled(&run, 0.5, &format!("after the timeout, seed {seed}"));
    check_tally(&run, 1, "after the timeout");
}

/// Captures [`LAUNCHES`] on a fresh world of `ranks` ranks on `device`, checks that the
/// capture ran nothing, replays the graph `replays` times and checks that every output is
/// bit for bit what the same launches gave eagerly, and every task ran once per replayed
/// launch.
fn capture_replays_match_eager_launches(device: &Device, ranks: u32, replays: u32) {
    let module = load(device);
    let seed = seed();
    let what = format!("{device} R={ranks} seed {seed}");
    println!("{what}");
    let mut run = setup(device, ranks, None, seed);
    queue_launches(&mut run.world, &module, &run.b).unwrap();
    run.world.synchronize().unwrap();
    let eager: Vec<Vec<f32>> = run
        .b
        .out
        .ranks()
        .iter()
        .map(|b| b.download().unwrap())
        .collect();
    let n = (ranks * CHUNK) as usize;
    for r in 0..ranks {
        run.b
            .out
            .rank(r)
            .unwrap()
            .upload(&vec![f32::NAN; n])
            .unwrap();
        run.b.tally.rank(r).unwrap().fill(0).unwrap();
    }
    let graph = run
        .world
        .capture(|world| queue_launches(world, &module, &run.b))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    run.world.synchronize().unwrap();
    check_tally(&run, 0, &format!("{what}, after the capture"));
    for _ in 0..replays {
        // SAFETY: the launches' buffers are the world's symmetric buffers, alive in `run`.
        unsafe { graph.replay(&mut run.world) }.unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    run.world.synchronize().unwrap();
    for (r, want) in eager.iter().enumerate() {
        let got = run.b.out.rank(r as u32).unwrap().download().unwrap();
        let same = got
            .iter()
            .zip(want)
            .all(|(g, w)| g.to_bits() == w.to_bits());
        assert!(same, "{what}: rank {r} replayed output differs from eager");
    }
    check_tally(&run, replays * LAUNCHES.len() as u32, &what);
    // Graphs name the world's peer tables: a new symmetric buffer outdates them.
    let _extra = run.world.alloc_symmetric::<u32>(1).unwrap();
    let e = unsafe { graph.replay(&mut run.world) }.unwrap_err();
    assert!(matches!(e, WorldError::OutdatedGraph), "{e}");
}

#[test]
fn dsl_captured_launches_replay_100_times_as_eager_launches() {
    let device = Device::cpu_with_resident_limit(16);
    capture_replays_match_eager_launches(&device, 2, 100);
}

#[test]
#[ignore = "needs KOSMOS_DEVICE naming a GPU (cuda:0)"]
fn dsl_captured_launches_replay_as_eager_launches_on_the_device() {
    let device = Device::from_env().unwrap_or_else(|e| panic!("KOSMOS_DEVICE: {e}"));
    capture_replays_match_eager_launches(&device, 4, 100);
}

#[test]
fn a_capture_refuses_waits_and_table_changes_and_graphs_stay_with_their_world() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    let mut run = setup(&device, 2, None, seed());
    let waits = run.world.capture(|world| world.synchronize());
    assert!(
        matches!(
            waits,
            Err(WorldError::InCapture {
                what: "synchronize"
            })
        ),
        "{waits:?}"
    );
    let allocates = run
        .world
        .capture(|world| world.alloc_symmetric::<u32>(1).map(drop));
    assert!(
        matches!(allocates, Err(WorldError::InCapture { .. })),
        "{allocates:?}"
    );
    // The world is usable after failed captures.
    run.dispatch(&module, 1, 2.0)
        .and_then(|()| run.world.synchronize())
        .unwrap();
    check_gathered_and_scaled(&run, 2.0, "after failed captures");
    let graph = run
        .world
        .capture(|world| queue_launches(world, &module, &run.b))
        .unwrap();
    let mut other = setup(&device, 2, None, seed());
    let e = unsafe { graph.replay(&mut other.world) }.unwrap_err();
    assert!(matches!(e, WorldError::ForeignGraph), "{e}");
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
    let len = run.b.out.len();
    let index = run.world.alloc_symmetric::<f32>(len).unwrap().index();
    let mut reallocated = run.world.alloc_symmetric::<f32>(len).unwrap();
    let foreign = other.world.alloc_symmetric::<f32>(len).unwrap();
    assert_eq!((reallocated.index(), foreign.index()), (index, index));
    for copy in reallocated.ranks() {
        copy.upload(&vec![f32::NAN; len]).unwrap();
    }
    std::mem::swap(&mut run.b.out, &mut reallocated);
    // Another world's buffers have the indices of live ones here.
    assert_eq!(other.b.shard.index(), run.b.shard.index());
    let mut launch = |shard: &SymmetricBuffer<f32>, out: &SymmetricBuffer<f32>| {
        allgather_scale::launch(
            &mut run.world,
            &module,
            1,
            BLOCK,
            shard,
            &run.b.gathered,
            &run.b.ready,
            out,
            &run.b.queues,
            CHUNK,
            1.0,
            u32::MAX,
        )
    };
    let cases = [
        (&run.b.shard, &foreign, "out", index),
        (&other.b.shard, &run.b.out, "shard", run.b.shard.index()),
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
    let err = launch(&run.b.shard, &foreign).unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "argument `out` is symmetric buffer {index} of another world"
        )),
        "{err}"
    );
    // Refused before launching: nothing was gathered.
    for r in 0..2 {
        let copy = run.b.gathered.rank(r).unwrap().download().unwrap();
        assert!(copy.iter().all(|g| g.is_nan()), "rank {r} ran");
    }
    // The world's own buffers, the reallocated one included, are taken.
    run.allgather(&module, 1, 0.5, u32::MAX)
        .and_then(|()| run.world.synchronize())
        .unwrap();
    check_gathered_and_scaled(&run, 0.5, &format!("seed {seed}"));
}

/// Rows `pull_rows`'s receive buffers hold.
const CAPACITY: u32 = 96;

/// `pull_rows`'s buffers on a world: random `send` rows, poisoned `rows` of [`CAPACITY`].
struct Pull {
    world: World,
    sent: Vec<Vec<u32>>,
    send: SymmetricBuffer<u32>,
    rows: SymmetricBuffer<u32>,
    done: SymmetricBuffer<u32>,
}

/// What `rows` hold before a launch.
const POISON: u32 = 0xdead_beef;

impl Pull {
    fn new(device: &Device, ranks: u32, bound: Option<u32>, seed: u64) -> Pull {
        let mut world = emulated(device, ranks, bound);
        let mut rng = SmallRng::seed_from_u64(seed);
        let send = world.alloc_symmetric::<u32>(CAPACITY as usize).unwrap();
        let rows = world.alloc_symmetric::<u32>(CAPACITY as usize).unwrap();
        let done = world.alloc_symmetric::<u32>(1).unwrap();
        let sent = (0..ranks)
            .map(|r| {
                let data: Vec<u32> = (0..CAPACITY).map(|_| rng.random()).collect();
                send.rank(r).unwrap().upload(&data).unwrap();
                data
            })
            .collect();
        let mut pull = Pull {
            world,
            sent,
            send,
            rows,
            done,
        };
        pull.poison();
        pull
    }

    fn poison(&mut self) {
        for b in self.rows.ranks() {
            b.fill(POISON).unwrap();
        }
    }

    /// Launches `pull_rows` (rank `r` needs `counts[r]` rows) and waits for it.
    fn run(&mut self, module: &Module, per_rank: u32, counts: &[u32]) -> Result<(), WorldError> {
        let counts = Buffer::from_slice(self.world.device(), counts)?;
        pull_rows::run(
            &mut self.world,
            module,
            per_rank,
            BLOCK,
            &counts,
            &self.send,
            &self.rows,
            &self.done,
            CAPACITY,
        )
    }

    /// Rank `r`'s rows: the first `counts[r]` pulled from the previous rank, the rest
    /// untouched (all of them untouched where `counts[r]` does not fit).
    fn check_rows(&self, counts: &[u32], what: &str) {
        let ranks = self.sent.len();
        for (r, &n) in counts.iter().enumerate() {
            let got = self.rows.rank(r as u32).unwrap().download().unwrap();
            let source = &self.sent[(r + ranks - 1) % ranks];
            let pulled = if n > CAPACITY { 0 } else { n as usize };
            let want: Vec<u32> = (0..CAPACITY as usize)
                .map(|i| if i < pulled { source[i] } else { POISON })
                .collect();
            assert!(got == want, "{what}: rank {r}'s rows");
        }
    }
}

/// The source line of `pull_rows`'s `report_overflow` call: the site its records name.
fn report_overflow_line() -> u32 {
    let source = include_str!("../src/dsl_kernels.rs");
    let line = source
        .lines()
        .position(|l| l.contains("report_overflow(capacity, needed)"))
        .expect("pull_rows reports overflows");
    line as u32 + 1
}

/// The message of a `CapacityExceeded` error, its records and how many timeouts it counts.
fn expect_overflow(run: Result<(), WorldError>, seed: u64) -> (String, Vec<CapacityRecord>, usize) {
    let err = run
        .err()
        .unwrap_or_else(|| panic!("seed {seed}: an overflow went unnoticed"));
    let WorldError::CapacityExceeded { records, timeouts } = &err else {
        panic!("seed {seed}: expected a capacity error, got {err}");
    };
    (err.to_string(), records.clone(), timeouts.len())
}

#[test]
fn dsl_overflow_is_reported_at_synchronize_naming_its_site_and_the_world_runs_again() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    let seed = seed();
    println!("seed {seed}");
    let (ranks, per_rank) = (4, 2);
    let mut pull = Pull::new(&device, ranks, None, seed);
    // Rank 1 needs more rows than it holds: it reports and skips its pull, and rank 0
    // waits for it in vain (until the abort flag), the others at the team barrier.
    let counts = [CAPACITY, CAPACITY + 37, 5, 0];
    let start = std::time::Instant::now();
    let (text, records, _) = expect_overflow(pull.run(&module, per_rank, &counts), seed);
    // Well within a wait's bound (about four seconds here): nobody waited it out.
    assert!(start.elapsed().as_secs() < 30, "{:?}", start.elapsed());
    let mut workgroups: Vec<u32> = records.iter().map(|r| r.workgroup).collect();
    workgroups.sort();
    assert_eq!(workgroups, [0, 1], "{text}");
    let site = report_overflow_line();
    for r in &records {
        assert_eq!(
            (r.rank, r.site, r.capacity, r.needed),
            (1, site, CAPACITY, CAPACITY + 37),
            "{text}"
        );
    }
    let want = format!(
        "rank 1 workgroup 0: report_overflow at line {site} of the kernel's source: the launch needs room for {}, the buffer holds {CAPACITY}",
        CAPACITY + 37
    );
    assert!(text.contains(&want), "{text}");
    pull.check_rows(&counts, "the launch that overflowed");
    // Reported once, and the world runs again (the failed launch's counters are the
    // kernel's business: zero them).
    pull.world.synchronize().unwrap();
    for b in pull.done.ranks() {
        b.fill(0).unwrap();
    }
    pull.poison();
    let counts = [CAPACITY, 17, 0, 64];
    pull.run(&module, per_rank, &counts)
        .unwrap_or_else(|e| panic!("seed {seed}: after the overflow: {e}"));
    pull.check_rows(&counts, "after the overflow");
}

#[test]
fn dsl_overflow_is_the_cause_when_waits_also_timed_out() {
    let device = Device::cpu_with_resident_limit(16);
    let module = load(&device);
    let seed = seed();
    println!("seed {seed}");
    // Rank 0's wait for rank 1 gives up after 60 polls, before its first look at the
    // abort flag (every 64 polls): a timeout recorded next to the overflow.
    let mut pull = Pull::new(&device, 2, Some(60), seed);
    let counts = [3, CAPACITY + 1];
    let (text, records, timeouts) = expect_overflow(pull.run(&module, 1, &counts), seed);
    assert_eq!(records.len(), 1, "{text}");
    assert_eq!(
        (records[0].rank, records[0].needed),
        (1, CAPACITY + 1),
        "{text}"
    );
    assert_eq!(timeouts, 1, "{text}");
    assert!(text.ends_with("(1 bounded wait also timed out)"), "{text}");
    pull.check_rows(&counts, "the launch that overflowed");
    pull.world.synchronize().unwrap();
}
