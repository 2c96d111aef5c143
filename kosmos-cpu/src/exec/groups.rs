//! Workgroups whose groups of subgroups wait on each other. On a GPU the subgroups (warps)
//! of a workgroup progress independently, and warp-specialised kernels rely on it: a
//! producer group polls a barrier object for arrivals that consumer groups make in the
//! other branch of the same `if`. Run in lockstep on one thread, the producer's branch
//! would spin forever before the consumers' branch started.
//!
//! So a kernel with group-wide ops or barrier objects ([`Program::independent_groups`])
//! runs each group of [`GROUP_SUBGROUPS`] subgroups of a workgroup on a scoped thread of its
//! own, its lanes in lockstep (group-wide ops need the group's subgroups together). The
//! groups share the workgroup's shared memory as atomic words, with the discipline device
//! memory has across workgroups, and meet at `barrier`, where a group whose lanes have all
//! returned counts as arrived (exited warps do not hold up a GPU's barrier either).

use super::shared::SHARED_POISON;
use super::{Exec, Res, Stop};
use crate::memory::Allocation;
use crate::program::Program;
use kosmos_ir::GROUP_SUBGROUPS;
use std::sync::atomic::{AtomicBool, Ordering as AO};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// How often a group waiting at `barrier` looks whether the launch was aborted.
const ABORT_POLL: Duration = Duration::from_millis(5);

/// Threads that run a workgroup of `lanes` lanes of `prog`.
pub(crate) fn threads_per_workgroup(prog: &Program, lanes: usize) -> usize {
    if prog.independent_groups {
        lanes.div_ceil(GROUP_SUBGROUPS as usize * prog.subgroup)
    } else {
        1
    }
}

/// What the group threads of a resident slot share.
pub(crate) struct GroupShare {
    pub memory: Allocation,
    pub barrier: WorkgroupBarrier,
}

impl GroupShare {
    pub fn new(launch: &super::Launch) -> GroupShare {
        // One thread keeps shared memory of its own.
        let bytes = if launch.groups > 1 {
            launch.prog.shared_bytes
        } else {
            0
        };
        GroupShare {
            memory: Allocation::new(0, bytes as u64).expect("shared memory is bounded"),
            barrier: WorkgroupBarrier::new(launch.groups),
        }
    }
}

/// Runs workgroup `wg` with each of `execs` (one per group) on a thread of its own; the
/// first error of a group is the workgroup's.
pub(crate) fn run_workgroup(share: &GroupShare, execs: &mut [Exec], wg: [u32; 3]) -> Res {
    share.memory.fill(SHARED_POISON);
    share.barrier.reset();
    let mut results: Vec<Res> = std::thread::scope(|s| {
        let (first, rest) = execs.split_first_mut().expect("a workgroup has groups");
        let others: Vec<_> = rest
            .iter_mut()
            .map(|ex| s.spawn(move || run_group(ex, wg)))
            .collect();
        let mut results = vec![run_group(first, wg)];
        for h in others {
            results.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        results
    });
    let failed = results
        .iter()
        .position(|r| matches!(r, Err(Stop::Error(_))));
    match failed.or_else(|| results.iter().position(Result::is_err)) {
        Some(i) => results.swap_remove(i),
        None => Ok(()),
    }
}

/// Runs one group's lanes of `wg`. Whatever way the group ends (returning, failing or
/// panicking), it leaves the barrier; a failure first aborts the launch, so that the other
/// groups stop instead of waiting for this one.
fn run_group(ex: &mut Exec, wg: [u32; 3]) -> Res {
    struct Leave<'b> {
        barrier: &'b WorkgroupBarrier,
        abort: &'b AtomicBool,
    }
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.abort.store(true, AO::SeqCst);
            }
            self.barrier.leave();
        }
    }
    let barrier = ex.barrier.expect("group threads share a barrier");
    let _leave = Leave {
        barrier,
        abort: &ex.l.abort,
    };
    let r = ex.run_workgroup(wg);
    if let Err(Stop::Error(_)) = r {
        ex.l.abort.store(true, AO::SeqCst);
    }
    r
}

/// The `barrier` of a workgroup's group threads.
pub(crate) struct WorkgroupBarrier {
    groups: usize,
    state: Mutex<BarrierState>,
    released: Condvar,
}

#[derive(Default)]
struct BarrierState {
    /// Groups waiting for the others.
    waiting: usize,
    /// Groups whose lanes have all returned.
    left: usize,
    /// Barriers passed so far: a waiting group goes on when this changes.
    passed: u64,
}

impl BarrierState {
    /// Releases the waiting groups if every group that is still running is here.
    fn release_if_complete(&mut self, groups: usize, released: &Condvar) {
        if self.waiting > 0 && self.waiting + self.left == groups {
            self.waiting = 0;
            self.passed += 1;
            released.notify_all();
        }
    }
}

impl WorkgroupBarrier {
    fn new(groups: usize) -> WorkgroupBarrier {
        WorkgroupBarrier {
            groups,
            state: Mutex::new(BarrierState::default()),
            released: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BarrierState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn reset(&self) {
        *self.lock() = BarrierState::default();
    }

    /// Waits until every group still running has arrived; `false` when the launch was
    /// aborted first.
    pub fn wait(&self, abort: &AtomicBool) -> bool {
        let mut state = self.lock();
        let passed = state.passed;
        state.waiting += 1;
        state.release_if_complete(self.groups, &self.released);
        while state.passed == passed {
            if abort.load(AO::SeqCst) {
                return false;
            }
            state = self
                .released
                .wait_timeout(state, ABORT_POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// A group has ended: the others no longer wait for it.
    fn leave(&self) {
        let mut state = self.lock();
        state.left += 1;
        state.release_if_complete(self.groups, &self.released);
    }
}
