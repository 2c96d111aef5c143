//! A synthetic all-gather -> compute pipeline: the scheduling protocol end to end, with
//! tasks of chosen durations and cross-rank dependencies.
//!
//! Rank `r` pulls every peer's shard chunk by chunk (communication tasks, each signalling a
//! readiness counter at system scope) and computes on every shard, its own first, block by
//! block (compute tasks, each waiting for its block's chunks). Every task adds 1 to its
//! done slot, so the host can check that each ran exactly once, and the compute result
//! depends on the data, so the host can check that it arrived before it was used.

use crate::dispatch::Queues;
use crate::plan::{COMM_WORDS, COMPUTE_WORDS, PipelineShape, RankPlan};
use crate::sync::{Sched, SchedOptions};
use crate::team::Team;
use kosmos_ir::{CmpPred, Dim, Kernel, KernelBuilder, Ordering, RmwOp, Scope, Type, Value};

/// Symmetric buffers of the pipeline, in allocation order (after the world's control
/// buffer, index 0).
pub mod buffers {
    /// `f32[shard]`: this rank's shard.
    pub const INPUT: u32 = 1;
    /// `f32[ranks * shard]`: the shards pulled from peers, by source rank.
    pub const GATHERED: u32 = 2;
    /// `f32[ranks * shard]`: the compute result, by source rank.
    pub const OUTPUT: u32 = 3;
    /// `u32[2 + counters + tasks]`: queue heads, readiness counters, done counts.
    pub const STATE: u32 = 4;
    /// `u32`: the rank's [`crate::plan::RankPlan::encode`] table.
    pub const PLAN: u32 = 5;
    /// `u32[tasks]`: busy time of each task in ns (compute tasks, then comm tasks).
    pub const DURATIONS: u32 = 6;
    pub const COUNT: u32 = 6;
}

/// Lanes per workgroup of the pipeline kernel.
pub const BLOCK: u32 = 64;

/// Kernel parameters after the team's, in order (all `u32`).
pub const PARAMS: [&str; 6] = [
    "compute_len",
    "comm_len",
    "counters",
    "chunk_elems",
    "chunks_per_block",
    "iters",
];

/// The pipeline's fixed parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    pub shape: PipelineShape,
    /// `f32` elements per communication chunk.
    pub chunk_elems: u32,
    /// `y = y * 0.5 + 1` steps per element of a compute task.
    pub iters: u32,
}

impl Pipeline {
    /// Elements of one rank's shard.
    pub fn shard_elems(&self) -> usize {
        self.shape.chunks() as usize * self.chunk_elems as usize
    }

    /// Words of the state buffer: 2 heads, the counters, one done slot per task.
    pub fn state_words(&self, plan: &RankPlan) -> usize {
        2 + self.shape.counters() as usize + plan.compute.len() + plan.comm.len()
    }

    /// The kernel name for these options.
    pub fn kernel_name(options: SchedOptions) -> &'static str {
        if options.trace {
            "sched_pipeline_traced"
        } else {
            "sched_pipeline"
        }
    }

    /// The compute applied to every element, as the host reference computes it (in f64).
    pub fn reference(&self, x: f32) -> f64 {
        (0..self.iters).fold(x as f64, |y, _| y * 0.5 + 1.0)
    }

    /// The values of [`PARAMS`] for rank `plan.rank`.
    pub fn args(&self, plan: &RankPlan) -> [u32; 6] {
        [
            plan.compute.len() as u32,
            plan.comm.len() as u32,
            self.shape.counters(),
            self.chunk_elems,
            self.shape.chunks_per_block,
            self.iters,
        ]
    }

    /// The pipeline kernel. Sizes are parameters, so one binary serves every shape.
    pub fn kernel(options: SchedOptions) -> Kernel {
        let mut b = KernelBuilder::new(Pipeline::kernel_name(options), BLOCK);
        let team = Team::params(&mut b);
        let [
            compute_len,
            comm_len,
            counters,
            chunk_elems,
            chunks_per_block,
            iters,
        ] = PARAMS.map(|name| b.param(name, Type::U32));
        let sched = Sched::new(&mut b, team, options);
        sched.start_barrier(&mut b);

        let input = team.local_ptr(&mut b, buffers::INPUT);
        let gathered = team.local_ptr(&mut b, buffers::GATHERED);
        let output = team.local_ptr(&mut b, buffers::OUTPUT);
        let state = team.local_ptr(&mut b, buffers::STATE);
        let plan = team.local_ptr(&mut b, buffers::PLAN);
        let durations = team.local_ptr(&mut b, buffers::DURATIONS);
        let [zero, one, two] = [0, 1, 2].map(|v| b.const_u32(v));
        let compute_head = b.ptr_offset(state, zero, Type::U32);
        let comm_head = b.ptr_offset(state, one, Type::U32);
        let counter_base = b.ptr_offset(state, two, Type::U32);
        let done = b.ptr_offset(counter_base, counters, Type::U32);
        let chunks = b.div(counters, team.world_size());
        let chunks = b.mul(chunks, chunks_per_block);
        let shard = b.mul(chunks, chunk_elems);
        let block_elems = b.mul(chunks_per_block, chunk_elems);
        let words = b.const_u32(COMPUTE_WORDS);
        let comm_offset = b.mul(compute_len, words);
        let comm_table = b.ptr_offset(plan, comm_offset, Type::U32);
        let lane = b.workitem_id(Dim::X);
        let lanes = b.workgroup_size(Dim::X);

        let readiness = |b: &mut KernelBuilder, t: Value| {
            let entry = entry(b, plan, t, COMPUTE_WORDS);
            let counter = field(b, entry, 2);
            let expected = field(b, entry, 3);
            (
                b.ptr_offset(counter_base, counter, Type::U32),
                expected,
                counter,
            )
        };
        let comm = |b: &mut KernelBuilder, t: Value| {
            let entry = entry(b, comm_table, t, COMM_WORDS);
            let src = field(b, entry, 0);
            let chunk = field(b, entry, 1);
            let counter = field(b, entry, 2);
            let from = team.peer_ptr(b, buffers::INPUT, src);
            let at = b.mul(chunk, chunk_elems);
            let from = b.ptr_offset(from, at, Type::F32);
            let row = b.mul(src, shard);
            let row = b.ptr_offset(gathered, row, Type::F32);
            let to = b.ptr_offset(row, at, Type::F32);
            b.for_range(lane, chunk_elems, lanes, &[], |b, i, _| {
                let p = b.ptr_offset(from, i, Type::F32);
                let x = b.load(p, Type::F32);
                let q = b.ptr_offset(to, i, Type::F32);
                b.store(q, x);
                vec![]
            });
            let id = b.add(compute_len, t);
            busy(b, durations, id);
            let counter = b.ptr_offset(counter_base, counter, Type::U32);
            let one = b.const_u32(1);
            sched.signal(b, counter, one, Scope::System);
            mark_done(b, &sched, done, id);
        };
        let compute = |b: &mut KernelBuilder, t: Value| {
            let entry = entry(b, plan, t, COMPUTE_WORDS);
            let src = field(b, entry, 0);
            let block = field(b, entry, 1);
            let local = b.cmp(CmpPred::Eq, src, team.rank());
            let row = b.mul(src, shard);
            let remote = b.ptr_offset(gathered, row, Type::F32);
            let from = b.select(local, input, remote);
            let at = b.mul(block, block_elems);
            let from = b.ptr_offset(from, at, Type::F32);
            let out = b.ptr_offset(output, row, Type::F32);
            let out = b.ptr_offset(out, at, Type::F32);
            b.for_range(lane, block_elems, lanes, &[], |b, i, _| {
                let p = b.ptr_offset(from, i, Type::F32);
                let x = b.load(p, Type::F32);
                let zero = b.const_u32(0);
                let step = b.const_u32(1);
                let half = b.const_f32(0.5);
                let one = b.const_f32(1.0);
                let y = b.for_range(zero, iters, step, &[x], |b, _, y| {
                    vec![b.fma(y[0], half, one)]
                });
                let q = b.ptr_offset(out, i, Type::F32);
                b.store(q, y[0]);
                vec![]
            });
            busy(b, durations, t);
            mark_done(b, &sched, done, t);
        };
        let q = Queues {
            compute_head,
            compute_len,
            comm_head,
            comm_len,
            ready_scope: Scope::System,
            by_ticket: false,
        };
        sched.dispatch_loop(&mut b, &q, readiness, comm, compute);
        b.finish()
    }
}

/// Entry `t` of a table of `words`-word entries.
fn entry(b: &mut KernelBuilder, table: Value, t: Value, words: u32) -> Value {
    let words = b.const_u32(words);
    let at = b.mul(t, words);
    b.ptr_offset(table, at, Type::U32)
}

fn field(b: &mut KernelBuilder, entry: Value, i: u32) -> Value {
    let i = b.const_u32(i);
    let p = b.ptr_offset(entry, i, Type::U32);
    b.load(p, Type::U32)
}

/// Spins until task `id`'s duration (ns, from the durations table) has passed on `clock`.
/// The loop carries a poll count, so the CPU device sees progress rather than a stuck poll.
fn busy(b: &mut KernelBuilder, durations: Value, id: Value) {
    let p = b.ptr_offset(durations, id, Type::U32);
    let ns = b.load(p, Type::U32);
    let ns = b.cast(ns, Type::U64);
    let start = b.clock();
    let zero = b.const_u32(0);
    b.loop_(&[zero], &[], |b, n| {
        let now = b.clock();
        let spent = b.sub(now, start);
        let over = b.cmp(CmpPred::Ge, spent, ns);
        b.if_then(over, |b| b.break_(&[]));
        let one = b.const_u32(1);
        vec![b.add(n[0], one)]
    });
}

/// Adds 1 to task `id`'s done count, once per workgroup.
fn mark_done(b: &mut KernelBuilder, sched: &Sched, done: Value, id: Value) {
    b.if_then(sched.is_lane0(), |b| {
        let p = b.ptr_offset(done, id, Type::U32);
        let one = b.const_u32(1);
        b.atomic_rmw(RmwOp::Add, p, one, Ordering::Relaxed, Scope::Agent);
    });
}

impl Pipeline {
    /// Checks rank `plan.rank`'s results after a run: every task done exactly once
    /// (`state`'s done slots), every peer's shard arrived intact in `gathered`, and every
    /// output element within `rel_tol` relative error of the f64 reference computed from
    /// `inputs` (all ranks' shards). Returns a description of the first few problems.
    pub fn check_rank(
        &self,
        plan: &RankPlan,
        inputs: &[Vec<f32>],
        gathered: &[f32],
        output: &[f32],
        state: &[u32],
        rel_tol: f64,
    ) -> Result<(), String> {
        let rank = plan.rank;
        let mut problems = Vec::new();
        let done_at = 2 + self.shape.counters() as usize;
        let tasks = plan.compute.len() + plan.comm.len();
        match state.get(done_at..done_at + tasks) {
            Some(done) => {
                for (id, n) in done.iter().enumerate() {
                    if *n != 1 {
                        let what = if id < plan.compute.len() {
                            format!("compute task {id}")
                        } else {
                            format!("comm task {}", id - plan.compute.len())
                        };
                        problems.push(format!("rank {rank}: {what} ran {n} times"));
                    }
                }
            }
            None => problems.push(format!("rank {rank}: state buffer too short")),
        }
        let shard = self.shard_elems();
        for src in 0..self.shape.ranks as usize {
            let data = &inputs[src];
            if src as u32 != rank {
                let row = &gathered[src * shard..(src + 1) * shard];
                if let Some(i) = (0..shard).find(|i| row[*i].to_bits() != data[*i].to_bits()) {
                    problems.push(format!(
                        "rank {rank}: gathered shard of rank {src} differs at {i}: {} != {}",
                        row[i], data[i]
                    ));
                }
            }
            for (i, x) in data.iter().enumerate() {
                let want = self.reference(*x);
                let got = output[src * shard + i] as f64;
                let err = (got - want).abs() / want.abs().max(f64::MIN_POSITIVE);
                if err.is_nan() || err > rel_tol {
                    problems.push(format!(
                        "rank {rank}: output of shard {src} at {i} is {got}, expected {want}"
                    ));
                    break;
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            problems.truncate(8);
            Err(problems.join("\n"))
        }
    }
}
