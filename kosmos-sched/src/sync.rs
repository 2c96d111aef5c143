//! Workgroup-level synchronisation emitted as IR: queue claims, readiness signals, bounded
//! waits, the world's barrier and trace records.
//!
//! Every primitive here is called by all lanes of a workgroup (in uniform control flow) and
//! acts once for the workgroup: lane 0 performs the atomics and broadcasts what it saw
//! through shared memory between two barriers. One claim per workgroup is what a task
//! queue needs (tasks are workgroup-sized), and one poller per workgroup keeps waiting
//! workgroups from flooding memory.

use crate::abi::{CapacityRecord, Role, WaitKind, apart, control};
use crate::team::Team;
use kosmos_ir::{CmpPred, Dim, KernelBuilder, Ordering, RmwOp, ScalarType, Scope, Type, Value};

/// Back-off between polls of a wait, in nanoseconds (`s_sleep` / `nanosleep` / a yield).
pub const POLL_SLEEP_NS: u32 = 128;

/// How many times a task wait's bound a barrier waits: see [`Sched::barrier_bound`].
pub const BARRIER_PATIENCE: u32 = 4;

/// Shared-memory words used to broadcast lane 0's results.
pub const SCRATCH_WORDS: u32 = 2;

/// Wait outcomes broadcast from lane 0.
const WAIT_OK: u32 = 0;
const WAIT_TIMED_OUT: u32 = 1;
const WAIT_ABORTED: u32 = 2;

/// Build-time options of the scheduling code.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedOptions {
    /// Record a (task, role, start, end) interval per task in the control buffer.
    pub trace: bool,
}

/// The per-kernel scheduling context: the team, the broadcast scratch and the control
/// buffers. Create it at the top of the kernel body (it allocates shared memory).
pub struct Sched {
    team: Team,
    scratch: Value,
    lane0: Value,
    control: Value,
    /// Rank 0's control buffer: the team barrier's words and the world's abort flag live there.
    root: Value,
    options: SchedOptions,
}

fn word(b: &mut KernelBuilder, base: Value, index: u32) -> Value {
    let i = b.const_u32(index);
    b.ptr_offset(base, i, Type::U32)
}

impl Sched {
    pub fn new(b: &mut KernelBuilder, team: Team, options: SchedOptions) -> Sched {
        let scratch = b.shared_alloc("sched_scratch", Type::U32, SCRATCH_WORDS);
        Sched::with_scratch(b, team, options, scratch)
    }

    /// [`Sched::new`] broadcasting through [`SCRATCH_WORDS`] words of shared memory at
    /// `scratch` that the kernel lends: every claim, wait and team barrier overwrites them,
    /// so the kernel keeps nothing there across those (for a ring that fills the target's
    /// shared memory, whose words between tiles are free).
    pub fn with_scratch(
        b: &mut KernelBuilder,
        team: Team,
        options: SchedOptions,
        scratch: Value,
    ) -> Sched {
        let lane = b.workitem_id(Dim::X);
        let zero = b.const_u32(0);
        let lane0 = b.cmp(CmpPred::Eq, lane, zero);
        let control = team.control(b);
        b.set_name(control, "control");
        let root = team.peer_ptr(b, crate::abi::CONTROL_BUFFER, zero);
        b.set_name(root, "root_control");
        Sched {
            team,
            scratch,
            lane0,
            control,
            root,
            options,
        }
    }

    pub fn team(&self) -> &Team {
        &self.team
    }

    /// Whether this lane is lane 0 (`i1`).
    pub fn is_lane0(&self) -> Value {
        self.lane0
    }

    /// Runs `f` on lane 0 only; the `u32` values it returns are broadcast to every lane.
    fn one_lane(
        &self,
        b: &mut KernelBuilder,
        f: impl FnOnce(&mut KernelBuilder) -> Vec<Value>,
    ) -> Vec<Value> {
        let mut count = 0;
        let scratch = self.scratch;
        b.if_then(self.lane0, |b| {
            let values = f(b);
            assert!(
                values.len() <= SCRATCH_WORDS as usize,
                "too many broadcasts"
            );
            count = values.len();
            for (i, v) in values.into_iter().enumerate() {
                let p = word(b, scratch, i as u32);
                b.store(p, v);
            }
        });
        b.barrier();
        let out = (0..count)
            .map(|i| {
                let p = word(b, scratch, i as u32);
                b.load(p, Type::U32)
            })
            .collect();
        // Nobody may overwrite the scratch before every lane has read it.
        b.barrier();
        out
    }

    /// Takes a ticket from the queue whose head counter is at `head` (`u32`): returns the
    /// claimed index, `>= len` when the queue is empty. A relaxed atomic add is enough:
    /// atomicity makes tickets unique, and the task table is written before the launch.
    /// An empty queue is detected with a load first, so idle workgroups do not keep
    /// hammering (and overflowing) the head.
    pub fn claim(&self, b: &mut KernelBuilder, head: Value, len: Value) -> Value {
        self.one_lane(b, |b| vec![ticket_lane0(b, head, len)])[0]
    }

    /// Claims the head of a queue only if it is ready: loads the head index `h`; if
    /// `h < len`, asks `readiness(b, h)` for the task's `(counter pointer, expected)`,
    /// acquire-loads the counter at `scope` and, if it has reached `expected`, moves the
    /// head from `h` to `h + 1` with a CAS. Returns `(h, claimed: i1)`; `h >= len` means
    /// the queue is drained. The acquire happens before the claim, so the claimer sees
    /// the data the signal published.
    pub fn claim_if_ready(
        &self,
        b: &mut KernelBuilder,
        head: Value,
        len: Value,
        scope: Scope,
        readiness: impl FnOnce(&mut KernelBuilder, Value) -> (Value, Value),
    ) -> (Value, Value) {
        let out = self.one_lane(b, |b| {
            let (h, got) = self.claim_if_ready_lane0(b, head, len, scope, readiness);
            vec![h, got]
        });
        let zero = b.const_u32(0);
        let claimed = b.cmp(CmpPred::Ne, out[1], zero);
        (out[0], claimed)
    }

    /// Lane 0's part of [`Sched::claim_if_ready`]: `(h, claimed as u32)`.
    fn claim_if_ready_lane0(
        &self,
        b: &mut KernelBuilder,
        head: Value,
        len: Value,
        scope: Scope,
        readiness: impl FnOnce(&mut KernelBuilder, Value) -> (Value, Value),
    ) -> (Value, Value) {
        let h = b.atomic_load(head, ScalarType::U32, Ordering::Relaxed, Scope::Agent);
        let inside = b.cmp(CmpPred::Lt, h, len);
        let got = b.if_else(
            inside,
            &[Type::U32],
            |b| {
                let (counter, expected) = readiness(b, h);
                let seen = b.atomic_load(counter, ScalarType::U32, Ordering::Acquire, scope);
                let ready = b.cmp(CmpPred::Ge, seen, expected);
                b.if_else(
                    ready,
                    &[Type::U32],
                    |b| {
                        let one = b.const_u32(1);
                        let next = b.add(h, one);
                        let old = b.atomic_cas(head, h, next, Ordering::Relaxed, Scope::Agent);
                        let won = b.cmp(CmpPred::Eq, old, h);
                        vec![b.cast(won, Type::U32)]
                    },
                    |b| vec![b.const_u32(0)],
                )
            },
            |b| vec![b.const_u32(0)],
        )[0];
        (h, got)
    }

    /// The next compute task of a dispatch loop: with `by_ticket` 0, the head if it is ready
    /// ([`Sched::claim_if_ready`]); with `by_ticket` 1, the next ticket ([`Sched::claim`]'s
    /// atomic add), then lane 0 waits for its counter as [`Sched::wait`] does (bounded; a
    /// timeout records the task and counter, and the workgroup leaves the kernel). Returns
    /// `(task, claimed: i1)`; not claimed with `task >= len` means the queue is drained.
    /// Everything happens in one broadcast, so the loop around it keeps one shape either way.
    pub fn claim_next(
        &self,
        b: &mut KernelBuilder,
        head: Value,
        len: Value,
        scope: Scope,
        by_ticket: Value,
        readiness: impl FnMut(&mut KernelBuilder, Value) -> (Value, Value, Value),
    ) -> (Value, Value) {
        // Both ways of claiming ask for a task's readiness.
        let readiness = std::cell::RefCell::new(readiness);
        let one = b.const_u32(1);
        let tickets = b.cmp(CmpPred::Eq, by_ticket, one);
        let out = self.one_lane(b, |b| {
            b.if_else(
                tickets,
                &[Type::U32, Type::U32],
                |b| {
                    let t = ticket_lane0(b, head, len);
                    let got = b.cmp(CmpPred::Lt, t, len);
                    b.if_else(
                        got,
                        &[Type::U32, Type::U32],
                        |b| {
                            let (counter, expected, id) = (readiness.borrow_mut())(b, t);
                            let status = self.wait_lane0(b, counter, expected, scope, t, id);
                            // Claimed, with the wait's outcome above the claimed bit.
                            let one = b.const_u32(1);
                            let outcome = b.shl(status, one);
                            vec![t, b.or(outcome, one)]
                        },
                        |b| {
                            let none = b.const_u32(WAIT_OK << 1);
                            vec![t, none]
                        },
                    )
                },
                |b| {
                    let (h, got) = self.claim_if_ready_lane0(b, head, len, scope, |b, t| {
                        let (counter, expected, _) = (readiness.borrow_mut())(b, t);
                        (counter, expected)
                    });
                    let ok = b.const_u32(WAIT_OK << 1);
                    vec![h, b.or(got, ok)]
                },
            )
        });
        let one = b.const_u32(1);
        let status = b.shr(out[1], one);
        self.leave_unless_ok(b, status);
        let bit = b.and(out[1], one);
        let claimed = b.cmp(CmpPred::Eq, bit, one);
        (out[0], claimed)
    }

    /// Runs `f` on lane 0 of the calling subgroup only; the `u32` it returns goes to every
    /// lane of the subgroup by shuffle. No workgroup barrier: each subgroup calls it on its
    /// own (all its lanes together).
    fn one_subgroup_lane(
        &self,
        b: &mut KernelBuilder,
        f: impl FnOnce(&mut KernelBuilder) -> Value,
    ) -> Value {
        let first = subgroup_lane0(b);
        let out = b.if_else(
            first,
            &[Type::U32],
            |b| vec![f(b)],
            |b| vec![b.const_u32(0)],
        )[0];
        let zero = b.const_u32(0);
        b.value(kosmos_ir::Op::Shuffle {
            value: out,
            lane: zero,
        })
    }

    /// [`Sched::claim`] for one subgroup: lane 0 takes the ticket, every lane of the
    /// subgroup gets it. For workgroups whose subgroups take different roles (a producer
    /// subgroup feeding the others through shared memory), where a workgroup barrier would
    /// stall the roles that do not claim.
    pub fn subgroup_claim(&self, b: &mut KernelBuilder, head: Value, len: Value) -> Value {
        self.one_subgroup_lane(b, |b| ticket_lane0(b, head, len))
    }

    /// [`Sched::wait`] for one subgroup: lane 0 polls as `wait` does and, when it gives up,
    /// writes the same error record and raises the abort flag. Returns whether the counter
    /// was reached (`i1`, the same in every lane); rather than leave the kernel, the caller
    /// winds its role down (the roles it feeds must be told to stop).
    pub fn subgroup_wait(
        &self,
        b: &mut KernelBuilder,
        counter: Value,
        expected: Value,
        scope: Scope,
        task: Value,
        counter_id: Value,
    ) -> Value {
        let status = self.one_subgroup_lane(b, |b| {
            self.wait_lane0(b, counter, expected, scope, task, counter_id)
        });
        let ok = b.const_u32(WAIT_OK);
        b.cmp(CmpPred::Eq, status, ok)
    }

    /// [`Sched::signal`] for one subgroup: every lane fences its writes (release at
    /// `scope`), the lanes meet at a shuffle, then lane 0 adds `n` with a release at `scope`.
    pub fn subgroup_signal(&self, b: &mut KernelBuilder, counter: Value, n: Value, scope: Scope) {
        b.fence(Ordering::Release, scope);
        // Lane 0 learns it is lane 0 from a shuffle, which every lane reaches only after
        // its fence: no lane's writes can follow the signal.
        let lane = b.subgroup_lane();
        let met = b.value(kosmos_ir::Op::Shuffle { value: lane, lane });
        let zero = b.const_u32(0);
        let first = b.cmp(CmpPred::Eq, met, zero);
        b.if_then(first, |b| {
            b.atomic_rmw(RmwOp::Add, counter, n, Ordering::Release, scope);
        });
    }

    /// Marks readiness: once every lane's writes are done (a barrier), lane 0 adds `n`
    /// (`u32`) to the counter with a release at `scope` — agent for consumers on this
    /// device, system for consumers on other devices or the host.
    pub fn signal(&self, b: &mut KernelBuilder, counter: Value, n: Value, scope: Scope) {
        b.barrier();
        b.if_then(self.lane0, |b| {
            b.atomic_rmw(RmwOp::Add, counter, n, Ordering::Release, scope);
        });
    }

    /// Waits until the counter reaches `expected` (`u32`, unsigned `>=`): lane 0 polls with
    /// acquire loads at `scope`, sleeping [`POLL_SLEEP_NS`] between polls, and the barrier
    /// after it passes lane 0's view on to the other lanes. After `team_bound` polls lane 0
    /// writes an error record (rank, workgroup, `task`, `counter_id` — the caller's name for
    /// the counter, e.g. its index —, expected, last value seen),
    /// raises the world's abort flag and the whole workgroup returns from the kernel; a
    /// workgroup that notices the abort flag returns too, without a record. So a missing
    /// signal ends the kernel instead of hanging it.
    pub fn wait(
        &self,
        b: &mut KernelBuilder,
        counter: Value,
        expected: Value,
        scope: Scope,
        task: Value,
        counter_id: Value,
    ) {
        let status = self.one_lane(b, |b| {
            vec![self.wait_lane0(b, counter, expected, scope, task, counter_id)]
        })[0];
        self.leave_unless_ok(b, status);
    }

    /// Lane 0's part of [`Sched::wait`]: the bounded poll, and the error record if it timed
    /// out. Returns the outcome (`WAIT_*`).
    fn wait_lane0(
        &self,
        b: &mut KernelBuilder,
        counter: Value,
        expected: Value,
        scope: Scope,
        task: Value,
        counter_id: Value,
    ) -> Value {
        let bound = self.team.wait_bound();
        let (status, seen) = self.poll(b, counter, scope, bound, |b, seen| {
            b.cmp(CmpPred::Ge, seen, expected)
        });
        let kind = WaitKind::TASK_CODE;
        self.record_if_timed_out(b, status, kind, task, counter_id, expected, |_| seen);
        status
    }

    /// Reports that a buffer is too small for what this launch needs: lane 0 writes a
    /// capacity record (rank, workgroup, `site` — the caller's name for the call site, a
    /// `#[kernel]`'s source line —, `capacity`, `needed`, both `u32`) and raises the world's
    /// abort flag as a timed-out wait does, so the other workgroups' waits and barriers
    /// leave instead of waiting for the work this one skips. It does not leave the kernel:
    /// the caller skips what would not fit (its next barrier or wait returns at the flag).
    /// The host reports the record as `WorldError::CapacityExceeded`.
    pub fn report_overflow(
        &self,
        b: &mut KernelBuilder,
        capacity: Value,
        needed: Value,
        site: u32,
    ) {
        b.if_then(self.lane0, |b| {
            let site = b.const_u32(site);
            let none = b.const_u32(u32::MAX);
            self.record_error(b, CapacityRecord::CODE, site, none, capacity, needed);
        });
    }

    /// Lane 0's bounded poll: acquire loads of `counter` at `scope` until `reached(seen)`
    /// (`i1`), sleeping [`POLL_SLEEP_NS`] between polls, at most `team_bound` polls, and
    /// every 64 polls a look at the world's abort flag. Returns the outcome (`WAIT_*`) and
    /// the last value seen.
    fn poll(
        &self,
        b: &mut KernelBuilder,
        counter: Value,
        scope: Scope,
        bound: Value,
        reached: impl Fn(&mut KernelBuilder, Value) -> Value,
    ) -> (Value, Value) {
        let zero = b.const_u32(0);
        let res = b.loop_(&[zero], &[Type::U32, Type::U32], |b, args| {
            let polls = args[0];
            let seen = b.atomic_load(counter, ScalarType::U32, Ordering::Acquire, scope);
            let ok = reached(b, seen);
            b.if_then(ok, |b| {
                let s = b.const_u32(WAIT_OK);
                b.break_(&[s, seen]);
            });
            let out = b.cmp(CmpPred::Ge, polls, bound);
            b.if_then(out, |b| {
                let s = b.const_u32(WAIT_TIMED_OUT);
                b.break_(&[s, seen]);
            });
            // Every 64 polls, see whether another workgroup has already given up.
            let mask = b.const_u32(63);
            let low = b.and(polls, mask);
            let check = b.cmp(CmpPred::Eq, low, mask);
            b.if_then(check, |b| {
                let raised = self.abort_raised(b);
                b.if_then(raised, |b| {
                    let s = b.const_u32(WAIT_ABORTED);
                    b.break_(&[s, seen]);
                });
            });
            b.sleep(POLL_SLEEP_NS);
            let one = b.const_u32(1);
            vec![b.add(polls, one)]
        });
        (res[0], res[1])
    }

    /// Polls a barrier waits at most: [`BARRIER_PATIENCE`] times a task wait's bound
    /// (saturating). A barrier waits for the slowest rank's whole task list, and a signal
    /// lost upstream must time out where it was lost, at a task's wait, before a barrier
    /// gives up on the workgroups stuck there: the report then names the lost signal.
    fn barrier_bound(&self, b: &mut KernelBuilder) -> Value {
        let bound = self.team.wait_bound();
        let most = b.const_u32(u32::MAX / BARRIER_PATIENCE);
        let large = b.cmp(CmpPred::Gt, bound, most);
        let patience = b.const_u32(BARRIER_PATIENCE);
        let scaled = b.mul(bound, patience);
        let max = b.const_u32(u32::MAX);
        b.select(large, max, scaled)
    }

    /// Whether the world's abort flag is up (`i1`; lane 0).
    fn abort_raised(&self, b: &mut KernelBuilder) -> Value {
        let flag = word(b, self.root, control::ABORT);
        let abort = b.atomic_load(flag, ScalarType::U32, Ordering::Relaxed, Scope::System);
        let zero = b.const_u32(0);
        b.cmp(CmpPred::Ne, abort, zero)
    }

    /// Lane 0: writes an error record if `status` says the wait timed out; `seen` gives the
    /// value to report (built only on that path).
    #[allow(clippy::too_many_arguments)] // the fields of the error record it may write
    fn record_if_timed_out(
        &self,
        b: &mut KernelBuilder,
        status: Value,
        kind: u32,
        task: Value,
        counter_id: Value,
        expected: Value,
        seen: impl FnOnce(&mut KernelBuilder) -> Value,
    ) {
        let timed_out_code = b.const_u32(WAIT_TIMED_OUT);
        let timed_out = b.cmp(CmpPred::Eq, status, timed_out_code);
        b.if_then(timed_out, |b| {
            let seen = seen(b);
            self.record_error(b, kind, task, counter_id, expected, seen);
        });
    }

    /// Every lane: returns from the kernel unless the broadcast `status` is `WAIT_OK`.
    fn leave_unless_ok(&self, b: &mut KernelBuilder, status: Value) {
        let ok = b.const_u32(WAIT_OK);
        let failed = b.cmp(CmpPred::Ne, status, ok);
        b.if_then(failed, |b| b.ret());
    }

    /// Lane 0: appends an error record of `kind` (words 3, 4, 6 and 7 are `task`,
    /// `counter_id`, `expected` and `seen`; a [`CapacityRecord`]'s site, -, capacity and
    /// needed) to this rank's control buffer and raises the world's abort flag.
    fn record_error(
        &self,
        b: &mut KernelBuilder,
        kind: u32,
        task: Value,
        counter_id: Value,
        expected: Value,
        seen: Value,
    ) {
        let cap = b.const_u32(control::ERROR_CAPACITY);
        let (count, base, words) = (
            control::ERROR_COUNT,
            control::ERROR_BASE,
            control::ERROR_WORDS,
        );
        self.append_record(b, count, cap, base, words, |b, rec| {
            let kind = b.const_u32(kind);
            let fields = [
                (0, kind),
                (1, self.team.rank()),
                (2, self.team.workgroup()),
                (3, task),
                (4, counter_id),
                (6, expected),
                (7, seen),
            ];
            for (i, v) in fields {
                let p = word(b, rec, i);
                b.store(p, v);
            }
        });
        let flag = word(b, self.root, control::ABORT);
        let one = b.const_u32(1);
        b.atomic_store(flag, one, Ordering::Relaxed, Scope::System);
    }

    /// Takes the next of the `cap` records of `words` words from word `base` of this rank's
    /// control buffer (counted by word `count`, which goes on counting past `cap`: the
    /// records dropped) and, if it fits, fills it with `fill` (given the record's first
    /// word).
    fn append_record(
        &self,
        b: &mut KernelBuilder,
        count: u32,
        cap: Value,
        base: u32,
        words: u32,
        fill: impl FnOnce(&mut KernelBuilder, Value),
    ) {
        let count = word(b, self.control, count);
        let one = b.const_u32(1);
        let slot = b.atomic_rmw(RmwOp::Add, count, one, Ordering::Relaxed, Scope::Agent);
        let fits = b.cmp(CmpPred::Lt, slot, cap);
        b.if_then(fits, |b| {
            let words = b.const_u32(words);
            let first = b.const_u32(base);
            let off = b.mul(slot, words);
            let at = b.add(first, off);
            let rec = b.ptr_offset(self.control, at, Type::U32);
            fill(b, rec);
        });
    }

    /// The start barrier: [`Sched::team_barrier`] at the top of a kernel where the world's
    /// workgroups may start apart ([`Team::apart`]): its ranks run in several launches (a
    /// GPU or a process each), one of which may start while a peer's previous launch still
    /// runs, or on the CPU device, whose threads start as the host schedules them (a wait
    /// could spend its bound on a peer not yet started). A launch of the whole world on a
    /// GPU (an emulated world) already follows its previous launch and everything queued
    /// before it in stream order, and its workgroups start together: it skips the barrier
    /// (3-5 us on an H100, bench/RESULTS.md, thirty-fifth batch). So a launch queued after
    /// one that failed (before the next synchronize reports it) runs until a barrier, or a
    /// wait that polls, sees the abort flag, where the barrier used to end it at once:
    /// either way its results are void and the failure is reported.
    pub fn start_barrier(&self, b: &mut KernelBuilder) {
        let apart = self.team.apart_has(b, apart::START);
        b.if_then(apart, |b| self.team_barrier(b));
    }

    /// Whether the whole world runs in this one launch (`i1`): no bit
    /// [`apart::LAUNCHES`](crate::abi::apart::LAUNCHES) in `team_apart`. Then no rank's
    /// workgroups outlive the others', and [`Sched::team_last_out`] may end a launch that
    /// resets what the ranks shared; otherwise a rank's launch must not end while peers
    /// still use its buffers (its host may reuse them then): the team barrier ends it.
    pub fn one_launch(&self, b: &mut KernelBuilder) -> Value {
        let several = self.team.apart_has(b, apart::LAUNCHES);
        let yes = b.const_bool(true);
        b.xor(several, yes)
    }

    /// A barrier of every workgroup of the world, reusable any number of times in a launch
    /// and across launches of any size, with nothing reset by the host (sense reversal on
    /// rank 0's control words). Lane 0 reads the generation, then adds 1 to the arrival
    /// count (acq_rel, system scope). The last of `ranks x workgroups-per-rank` arrivals
    /// zeroes the count and then bumps the generation with a release: whoever sees the new
    /// generation also sees the zero, so the next barrier counts from 0. The others wait
    /// (bounded, as [`Sched::wait`]) for the generation to change; it cannot change twice
    /// before they leave, since the next barrier needs their arrival too.
    ///
    /// A workgroup that finds the world's abort flag up returns at once without arriving:
    /// after a timeout, the barriers of later launches end them until the host reports the
    /// errors (which also zeroes the count left by the failed barrier).
    ///
    /// Lane 0's arrival speaks for its whole workgroup, so the workgroup first meets at a
    /// workgroup barrier: no subgroup is still at work (the roles of a warp-specialised
    /// workgroup end at different times) when the other workgroups are let through.
    pub fn team_barrier(&self, b: &mut KernelBuilder) {
        b.barrier();
        let count = word(b, self.root, control::BARRIER_COUNT);
        let generation = word(b, self.root, control::BARRIER_GENERATION);
        let expected = b.mul(self.team.world_size(), self.team.workgroups_per_rank());
        let status = self.one_lane(b, |b| {
            let raised = self.abort_raised(b);
            let status = b.if_else(
                raised,
                &[Type::U32],
                |b| vec![b.const_u32(WAIT_ABORTED)],
                |b| {
                    let (relaxed, system) = (Ordering::Relaxed, Scope::System);
                    let before = b.atomic_load(generation, ScalarType::U32, relaxed, system);
                    let one = b.const_u32(1);
                    let earlier = b.atomic_rmw(RmwOp::Add, count, one, Ordering::AcqRel, system);
                    let arrived = b.add(earlier, one);
                    let last = b.cmp(CmpPred::Eq, arrived, expected);
                    b.if_else(
                        last,
                        &[Type::U32],
                        |b| {
                            let zero = b.const_u32(0);
                            b.atomic_store(count, zero, relaxed, system);
                            b.atomic_rmw(RmwOp::Add, generation, one, Ordering::Release, system);
                            vec![b.const_u32(WAIT_OK)]
                        },
                        |b| {
                            let bound = self.barrier_bound(b);
                            let (status, _) = self.poll(b, generation, system, bound, |b, seen| {
                                b.cmp(CmpPred::Ne, seen, before)
                            });
                            let none = b.const_u32(u32::MAX);
                            // The arrivals so far say how many workgroups are missing.
                            let arrivals = |b: &mut KernelBuilder| {
                                b.atomic_load(count, ScalarType::U32, relaxed, system)
                            };
                            self.record_if_timed_out(
                                b,
                                status,
                                WaitKind::BARRIER_CODE,
                                none,
                                none,
                                expected,
                                arrivals,
                            );
                            vec![status]
                        },
                    )
                },
            );
            vec![status[0]]
        })[0];
        self.leave_unless_ok(b, status);
    }

    /// The end of a launch, without a wait: every workgroup of the world leaves through
    /// here once, in uniform control flow. Its subgroups meet at a workgroup barrier (all
    /// done), then lane 0 adds 1 to rank 0's [`control::DEPARTURES`] (acq_rel, system
    /// scope), and the last of the world's `ranks x workgroups-per-rank` departures zeroes
    /// it. Returns, in every lane, whether this workgroup left last (`i1`): every other
    /// workgroup of the world has then finished, and this one sees what they wrote, so it
    /// may reset what they shared (readiness counters, queue heads) for the next launch.
    /// No later launch runs into the count: a launch of the whole world follows this one
    /// in stream order, and launches of parts of it (`team_apart`) pass their start barrier
    /// only once every rank's next launch has started, after its current one ended. (But
    /// there a rank's launch may end while peers still use its buffers: see
    /// [`Sched::one_launch`].)
    ///
    /// A workgroup that finds the world's abort flag up leaves as not last; the host zeroes
    /// the count when it reports the failure.
    pub fn team_last_out(&self, b: &mut KernelBuilder) -> Value {
        b.barrier();
        let departures = word(b, self.root, control::DEPARTURES);
        let expected = b.mul(self.team.world_size(), self.team.workgroups_per_rank());
        let last = self.one_lane(b, |b| {
            let raised = self.abort_raised(b);
            b.if_else(
                raised,
                &[Type::U32],
                |b| vec![b.const_u32(0)],
                |b| {
                    let one = b.const_u32(1);
                    let before =
                        b.atomic_rmw(RmwOp::Add, departures, one, Ordering::AcqRel, Scope::System);
                    let departed = b.add(before, one);
                    let last = b.cmp(CmpPred::Eq, departed, expected);
                    b.if_then(last, |b| {
                        let zero = b.const_u32(0);
                        b.atomic_store(departures, zero, Ordering::Relaxed, Scope::System);
                    });
                    let zero = b.const_u32(0);
                    vec![b.select(last, one, zero)]
                },
            )
        })[0];
        let zero = b.const_u32(0);
        b.cmp(CmpPred::Ne, last, zero)
    }

    /// Runs `body` as task `task` in `role`; with tracing built in, lane 0 then appends a
    /// (workgroup, rank, role, task, start, end) record to the control buffer if the world
    /// keeps a trace (`WorldOptions::trace_capacity`; dropped, but counted, once the buffer
    /// is full).
    pub fn traced(
        &self,
        b: &mut KernelBuilder,
        role: Role,
        task: Value,
        body: impl FnOnce(&mut KernelBuilder),
    ) {
        if !self.options.trace {
            body(b);
            return;
        }
        let start = b.clock();
        body(b);
        self.record_task(b, self.lane0, role, task, start);
    }

    /// [`Sched::traced`] for a task one subgroup ran from clock `start` (a `u64` of
    /// `clock()`) until now: its lane 0 appends the record, under the workgroup's index. In
    /// a warp-specialised workgroup, subgroups of different roles record overlapping
    /// intervals. Nothing without tracing built in.
    pub fn subgroup_trace(&self, b: &mut KernelBuilder, role: Role, task: Value, start: Value) {
        if !self.options.trace {
            return;
        }
        let first = subgroup_lane0(b);
        self.record_task(b, first, role, task, start);
    }

    /// Where `first` (`i1`) holds: appends a (workgroup, rank, `role`, `task`, `start`, now)
    /// record to the control buffer if the world keeps a trace
    /// (`WorldOptions::trace_capacity`; dropped, but counted, once the buffer is full).
    fn record_task(
        &self,
        b: &mut KernelBuilder,
        first: Value,
        role: Role,
        task: Value,
        start: Value,
    ) {
        let end = b.clock();
        // The world's trace bit first: a world without a trace costs no load here.
        let traced = self.team.apart_has(b, apart::TRACE);
        let records = b.and(first, traced);
        b.if_then(records, |b| {
            let cap_ptr = word(b, self.control, control::TRACE_CAPACITY);
            let cap = b.load(cap_ptr, Type::U32);
            let (count, base, words) = (
                control::TRACE_COUNT,
                control::TRACE_BASE,
                control::TRACE_WORDS,
            );
            self.append_record(b, count, cap, base, words, |b, rec| {
                let role = b.const_u32(role.code());
                for (i, v) in [
                    (0, self.team.workgroup()),
                    (1, self.team.rank()),
                    (2, role),
                    (3, task),
                ] {
                    let p = word(b, rec, i);
                    b.store(p, v);
                }
                // Words 4-7 as two u64 clocks (the record is 8-byte aligned).
                for (i, v) in [(2, start), (3, end)] {
                    let i = b.const_u32(i);
                    let p = b.ptr_offset(rec, i, Type::U64);
                    b.store(p, v);
                }
            });
        });
    }
}

/// Whether this lane is lane 0 of its subgroup (`i1`).
fn subgroup_lane0(b: &mut KernelBuilder) -> Value {
    let lane = b.subgroup_lane();
    let zero = b.const_u32(0);
    b.cmp(CmpPred::Eq, lane, zero)
}

/// Lane 0's part of [`Sched::claim`]: the ticket (an empty queue is only loaded).
fn ticket_lane0(b: &mut KernelBuilder, head: Value, len: Value) -> Value {
    let cur = b.atomic_load(head, ScalarType::U32, Ordering::Relaxed, Scope::Agent);
    let open = b.cmp(CmpPred::Lt, cur, len);
    b.if_else(
        open,
        &[Type::U32],
        |b| {
            let one = b.const_u32(1);
            vec![b.atomic_rmw(RmwOp::Add, head, one, Ordering::Relaxed, Scope::Agent)]
        },
        |_| vec![cur],
    )[0]
}
