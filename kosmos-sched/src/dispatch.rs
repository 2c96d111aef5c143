//! Role dispatch: one persistent loop in which every workgroup serves both queues.

use crate::abi::Role;
use crate::sync::Sched;
use kosmos_ir::{CmpPred, KernelBuilder, Scope, Type, Value};

/// The two demand-ordered queues of a kernel, as IR values (`u32` lengths, head counters
/// in global memory that start at 0).
#[derive(Copy, Clone, Debug)]
pub struct Queues {
    pub compute_head: Value,
    pub compute_len: Value,
    pub comm_head: Value,
    pub comm_len: Value,
    /// The scope compute-task readiness is acquired at (that of the signals).
    pub ready_scope: Scope,
    /// Once no communication task is left, take compute tasks by ticket and wait for each
    /// (see [`Sched::dispatch_loop`]) rather than wait for a ready head.
    pub by_ticket: bool,
}

impl Sched {
    /// The self-scheduling loop. A free workgroup
    /// 1. takes the head compute task if it is ready ([`Sched::claim_if_ready`] with
    ///    `readiness(b, task) -> (counter pointer, expected, counter id)`; the id names the
    ///    counter in error records) and runs `compute(b, task)`;
    /// 2. else claims the next communication task and runs `comm(b, task)`;
    /// 3. else, when no communication work is left, waits (bounded, backing off) for the
    ///    head compute task's counter, then tries again — or, with `q.by_ticket`, takes
    ///    compute tasks by ticket from then on ([`Sched::claim_next`]: one atomic add and a
    ///    bounded wait for that task's counter, where claiming only a ready head is a CAS
    ///    that every free workgroup retries each time the head moves: what many short tasks
    ///    need);
    ///
    /// and leaves the loop when both queues are drained. Tickets cannot deadlock: every
    /// communication task is claimed by a running workgroup, and a compute task only waits
    /// for tasks queued before it, which hold lower tickets. `comm` and `compute` are
    /// emitted once each; with tracing on, each task (and each wait for the head, as role
    /// `wait`; a ticket's wait counts in its task) is recorded.
    pub fn dispatch_loop(
        &self,
        b: &mut KernelBuilder,
        q: &Queues,
        mut readiness: impl FnMut(&mut KernelBuilder, Value) -> (Value, Value, Value),
        comm: impl FnOnce(&mut KernelBuilder, Value),
        compute: impl FnOnce(&mut KernelBuilder, Value),
    ) {
        if !q.by_ticket {
            b.loop_(&[], &[], |b, _| {
                let (head, claimed) =
                    self.claim_if_ready(b, q.compute_head, q.compute_len, q.ready_scope, |b, t| {
                        let (counter, expected, _) = readiness(b, t);
                        (counter, expected)
                    });
                self.serve(b, q, (head, claimed), &[], comm, compute, |b| {
                    let (counter, expected, id) = readiness(b, head);
                    self.traced(b, Role::Wait, head, |b| {
                        self.wait(b, counter, expected, q.ready_scope, head, id);
                    });
                    vec![]
                })
            });
            return;
        }
        // By ticket, the loop carries the mode: 0 while communication tasks may be left,
        // 1 once none are (a workgroup that saw that queue empty never finds it refilled).
        let zero = b.const_u32(0);
        b.loop_(&[zero], &[], |b, carried| {
            let by_ticket = carried[0];
            let (head, claimed) = self.claim_next(
                b,
                q.compute_head,
                q.compute_len,
                q.ready_scope,
                by_ticket,
                readiness,
            );
            self.serve(b, q, (head, claimed), &[by_ticket], comm, compute, |b| {
                vec![b.const_u32(1)]
            })
        });
    }

    /// One turn of a dispatch loop after it sought a compute task (`head`, `claimed`): runs
    /// that task if claimed, else the next communication task, else leaves the loop if the
    /// compute queue is drained, else `idle(b)`. A task carries the loop's values `carried`
    /// through; `idle` gives the next ones.
    #[allow(clippy::too_many_arguments)]
    fn serve(
        &self,
        b: &mut KernelBuilder,
        q: &Queues,
        (head, claimed): (Value, Value),
        carried: &[Value],
        comm: impl FnOnce(&mut KernelBuilder, Value),
        compute: impl FnOnce(&mut KernelBuilder, Value),
        idle: impl FnOnce(&mut KernelBuilder) -> Vec<Value>,
    ) -> Vec<Value> {
        let types: Vec<Type> = carried.iter().map(|v| b.ty(*v)).collect();
        b.if_else(
            claimed,
            &types,
            |b| {
                self.traced(b, Role::Compute, head, |b| compute(b, head));
                carried.to_vec()
            },
            |b| {
                let ticket = self.claim(b, q.comm_head, q.comm_len);
                let got = b.cmp(CmpPred::Lt, ticket, q.comm_len);
                b.if_else(
                    got,
                    &types,
                    |b| {
                        self.traced(b, Role::Comm, ticket, |b| comm(b, ticket));
                        carried.to_vec()
                    },
                    |b| {
                        let drained = b.cmp(CmpPred::Ge, head, q.compute_len);
                        b.if_then(drained, |b| b.break_(&[]));
                        idle(b)
                    },
                )
            },
        )
    }
}
