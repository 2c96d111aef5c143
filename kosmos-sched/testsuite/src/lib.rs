//! Runs the scheduling kernels of `kosmos-sched` on worlds: the synthetic pipeline with
//! random inputs and task durations, checked against a host reference. Shared by the
//! CPU-device tests, the opt-in GPU tests and the benchmark binaries.

pub mod dsl_kernels;
pub mod world_kernels;

use kosmos_runtime::{Device, KernelArg, Module, World, WorldError, WorldModules, WorldOptions};
use kosmos_sched::pipeline::{BLOCK, Pipeline, buffers};
use kosmos_sched::plan::{PipelineShape, RankPlan};
use kosmos_sched::{ErrorRecord, SchedOptions, TraceEvent};
use rand::{Rng, SeedableRng, rngs::SmallRng};

include!(concat!(env!("OUT_DIR"), "/kosmos_modules.rs"));

/// Loads the scheduling kernels (`SCHED`) on `device`.
pub fn load(device: &Device) -> Result<Module, WorldError> {
    Ok(device.load_module(&SCHED.image()?)?)
}

/// Loads the scheduling kernels (`SCHED`) on every device of `world`.
pub fn load_in(world: &World) -> Result<Vec<Module>, WorldError> {
    world.load_module(&SCHED.image()?)
}

/// One run of the synthetic pipeline.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub ranks: u32,
    /// Workgroups per rank; `None`: a persistent grid (the device's resident limit shared
    /// among the ranks).
    pub per_rank: Option<u32>,
    pub pipeline: Pipeline,
    pub seed: u64,
    /// Task busy times are drawn from `0..=max_task_ns`.
    pub max_task_ns: u32,
    pub trace: bool,
    pub trace_capacity: u32,
    pub wait_bound: Option<u32>,
    /// Redirect this `(rank, comm task)`'s signal to another counter: a missing signal.
    pub drop_signal: Option<(u32, usize)>,
}

impl RunConfig {
    /// A small pipeline: 2 blocks of 2 chunks of 64 `f32` per shard.
    pub fn small(ranks: u32, per_rank: Option<u32>, seed: u64) -> RunConfig {
        RunConfig {
            ranks,
            per_rank,
            pipeline: Pipeline {
                shape: PipelineShape {
                    ranks,
                    blocks: 2,
                    chunks_per_block: 2,
                },
                chunk_elems: 64,
                iters: 3,
            },
            seed,
            max_task_ns: 20_000,
            trace: false,
            trace_capacity: 0,
            wait_bound: None,
            drop_signal: None,
        }
    }
}

/// What a finished run left.
pub struct RunOutcome {
    pub world: World,
    pub plans: Vec<RankPlan>,
    pub per_rank: u32,
    /// The host check of every rank: tasks done once, data arrived, outputs correct.
    pub check: Result<(), String>,
}

impl RunOutcome {
    pub fn trace(&mut self) -> Result<(Vec<TraceEvent>, u32), WorldError> {
        Ok(self.world.trace()?)
    }
}

impl RunConfig {
    /// The world options this run asks for.
    pub fn world_options(&self) -> WorldOptions {
        WorldOptions {
            trace_capacity: self.trace_capacity,
            wait_bound: self.wait_bound,
            ..WorldOptions::default()
        }
    }
}

/// Runs the pipeline on a fresh emulated world on `device`.
pub fn run_pipeline(
    device: &Device,
    module: &Module,
    cfg: &RunConfig,
) -> Result<RunOutcome, WorldError> {
    let world = World::emulated(device, cfg.ranks, cfg.world_options())?;
    run_pipeline_in(world, module, cfg)
}

/// Runs the pipeline on `world` (fresh: no symmetric buffers yet, `cfg.ranks` ranks) with
/// the scheduling kernels loaded on each of its devices.
pub fn run_pipeline_in<M: WorldModules + ?Sized>(
    mut world: World,
    module: &M,
    cfg: &RunConfig,
) -> Result<RunOutcome, WorldError> {
    assert_eq!(world.ranks(), cfg.ranks, "the run's world size");
    let p = cfg.pipeline;
    let plans: Vec<RankPlan> = (0..cfg.ranks)
        .map(|r| RankPlan::new(p.shape, r).expect("a valid test shape"))
        .collect();
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let shard = p.shard_elems();
    let inputs: Vec<Vec<f32>> = (0..cfg.ranks)
        .map(|_| (0..shard).map(|_| rng.random_range(0.5f32..2.0)).collect())
        .collect();

    let input = world.alloc_symmetric::<f32>(shard)?;
    let gathered = world.alloc_symmetric::<f32>(shard * cfg.ranks as usize)?;
    let output = world.alloc_symmetric::<f32>(shard * cfg.ranks as usize)?;
    let state = world.alloc_symmetric::<u32>(p.state_words(&plans[0]))?;
    let table = world.alloc_symmetric::<u32>(plans[0].encode().len())?;
    let tasks = plans[0].compute.len() + plans[0].comm.len();
    let durations = world.alloc_symmetric::<u32>(tasks)?;
    let indices = [&input, &gathered, &output].map(|b| b.index());
    assert_eq!(
        indices,
        [buffers::INPUT, buffers::GATHERED, buffers::OUTPUT]
    );
    assert_eq!(
        [state.index(), table.index(), durations.index()],
        [buffers::STATE, buffers::PLAN, buffers::DURATIONS]
    );
    for (r, plan) in plans.iter().enumerate() {
        input.rank(r as u32)?.upload(&inputs[r])?;
        gathered.rank(r as u32)?.fill(f32::NAN)?;
        output.rank(r as u32)?.fill(f32::NAN)?;
        let mut words = plan.encode();
        if let Some((rank, task)) = cfg.drop_signal
            && rank == r as u32
        {
            // Signal the local shard's first counter instead, which nobody waits for.
            let at = (plan.comm_offset() as usize) + task * 3 + 2;
            words[at] = rank * p.shape.blocks;
        }
        table.rank(r as u32)?.upload(&words)?;
        let ns: Vec<u32> = (0..tasks)
            .map(|_| rng.random_range(0..=cfg.max_task_ns))
            .collect();
        durations.rank(r as u32)?.upload(&ns)?;
    }
    let options = SchedOptions { trace: cfg.trace };
    let name = Pipeline::kernel_name(options);
    let per_rank = match cfg.per_rank {
        Some(w) => w,
        None => world.persistent_workgroups(module, name, BLOCK)?,
    };
    let args: Vec<KernelArg<'_>> = p.args(&plans[0]).into_iter().map(KernelArg::from).collect();
    world.launch(module, name, per_rank, BLOCK, &args)?;
    world.synchronize()?;

    let mut problems = Vec::new();
    for (r, plan) in plans.iter().enumerate() {
        let r = r as u32;
        let checked = p.check_rank(
            plan,
            &inputs,
            &gathered.rank(r)?.download()?,
            &output.rank(r)?.download()?,
            &state.rank(r)?.download()?,
            1e-6,
        );
        if let Err(e) = checked {
            problems.push(e);
        }
    }
    let check = if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    };
    Ok(RunOutcome {
        world,
        plans,
        per_rank,
        check,
    })
}

/// The error of a run with a planted missing signal, and its wait records: panics (naming
/// `seed`) unless the run timed out with at least one record.
pub fn expect_timeout<T>(run: Result<T, WorldError>, seed: u64) -> (WorldError, Vec<ErrorRecord>) {
    let err = run
        .err()
        .unwrap_or_else(|| panic!("seed {seed}: a planted missing signal went unnoticed"));
    let WorldError::Timeout { records } = &err else {
        panic!("seed {seed}: unexpected error {err}");
    };
    assert!(!records.is_empty(), "{err}");
    let records = records.clone();
    (err, records)
}

/// A seed from the clock (printed by callers so a failure can be replayed with
/// `KOSMOS_SEED`).
pub fn seed() -> u64 {
    match std::env::var("KOSMOS_SEED") {
        Ok(s) => s.trim().parse().expect("KOSMOS_SEED is an integer"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
    }
}

/// The world measurement kernels (`WORLD`, see [`world_kernels`]) loaded on every device
/// of `world`.
pub fn load_world_kernels(world: &World) -> Result<Vec<Module>, WorldError> {
    world.load_module(&WORLD.image()?)
}

/// Launches `world_kernels::TEAM_CHECK` with `per_rank` workgroups a rank (its buffer
/// poisoned first) and checks that every workgroup read its rank, the world size,
/// `per_rank` and `team_apart` = `apart`.
pub fn check_team_words(world: &mut World, per_rank: u32, apart: u32) {
    let modules = load_world_kernels(world).unwrap();
    let team = world.alloc_symmetric::<u32>(4 * per_rank as usize).unwrap();
    assert_eq!(
        team.index(),
        world_kernels::TEAM,
        "the first buffer after the control buffer"
    );
    for copy in team.ranks() {
        copy.fill(u32::MAX).unwrap();
    }
    let block = world_kernels::BLOCK;
    world
        .launch(&modules, world_kernels::TEAM_CHECK, per_rank, block, &[])
        .unwrap();
    world.synchronize().unwrap();
    let ranks = world.ranks();
    for (r, copy) in (0..ranks).zip(team.ranks()) {
        let want = [r, ranks, per_rank, apart].repeat(per_rank as usize);
        assert_eq!(
            copy.download().unwrap(),
            want,
            "rank {r}: rank, world size, workgroups, apart per workgroup"
        );
    }
}

/// The options of a world whose launches [`time_world_launch`] times.
pub fn timed() -> WorldOptions {
    WorldOptions {
        time_launches: true,
        ..WorldOptions::default()
    }
}

/// Median of the slowest launch's device time (ms) over `trials` world launches of
/// `kernel` with `per_rank` workgroups and the single parameter `n`, after a warm-up;
/// `before` runs ahead of each launch (e.g. to poison outputs). The world must time its
/// launches ([`WorldOptions::time_launches`]).
pub fn time_world_launch<M: WorldModules + ?Sized>(
    world: &mut World,
    modules: &M,
    kernel: &str,
    per_rank: u32,
    n: u32,
    trials: usize,
    mut before: impl FnMut(&World) -> Result<(), WorldError>,
) -> Result<f64, WorldError> {
    let mut times = Vec::with_capacity(trials);
    for trial in 0..=trials {
        before(world)?;
        world.launch(
            modules,
            kernel,
            per_rank,
            world_kernels::BLOCK,
            &[KernelArg::from(n)],
        )?;
        world.synchronize()?;
        let slowest = world
            .slowest_launch_ms()
            .expect("a world that times its launches");
        if trial > 0 {
            times.push(f64::from(slowest));
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Random `u32` words, from `rng`.
pub fn random_words(rng: &mut SmallRng, len: usize) -> Vec<u32> {
    (0..len).map(|_| rng.random()).collect()
}
