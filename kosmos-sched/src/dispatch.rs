//! Role dispatch: one persistent loop in which every workgroup serves both queues.

use crate::abi::Role;
use crate::sync::Sched;
use kosmos_ir::{CmpPred, KernelBuilder, Scope, Type, Value};
use std::cell::RefCell;

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
}

impl Sched {
    /// The self-scheduling loop. A free workgroup
    /// 1. takes the head compute task if it is ready ([`Sched::claim_if_ready`] with
    ///    `readiness(b, task) -> (counter pointer, expected, counter id)`; the id names the
    ///    counter in error records) and runs `compute(b, task)`;
    /// 2. else claims the next communication task and runs `comm(b, task)`;
    /// 3. else — no communication work is left — takes compute tasks by ticket
    ///    ([`Sched::claim`]: one atomic add, where claiming only a ready head is a CAS that
    ///    every free workgroup retries each time the head moves), waits (bounded, backing
    ///    off) for each one's counter and runs it, until the compute queue is drained.
    ///
    /// Step 3 cannot deadlock: every communication task is claimed by a running workgroup,
    /// and a compute task only waits for tasks queued before it, which hold lower tickets.
    /// `comm` and `compute` are emitted once each; with tracing on, each task (and each
    /// wait, as role `wait`) is recorded.
    pub fn dispatch_loop(
        &self,
        b: &mut KernelBuilder,
        q: &Queues,
        readiness: impl FnMut(&mut KernelBuilder, Value) -> (Value, Value, Value),
        comm: impl FnOnce(&mut KernelBuilder, Value),
        compute: impl FnOnce(&mut KernelBuilder, Value),
    ) {
        // The loop carries the mode: 0 while communication tasks may be left, 1 once none
        // are (a workgroup that saw the queue empty never finds it refilled).
        // Both ways of claiming ask for a task's readiness.
        let readiness = RefCell::new(readiness);
        let zero = b.const_u32(0);
        b.loop_(&[zero], &[], |b, carried| {
            let tickets = carried[0];
            let one = b.const_u32(1);
            let by_ticket = b.cmp(CmpPred::Eq, tickets, one);
            // The task to run, as (task, run it?): a ready head, or the next ticket.
            let picked = b.if_else(
                by_ticket,
                &[Type::U32, Type::I1],
                |b| {
                    let t = self.claim(b, q.compute_head, q.compute_len);
                    let drained = b.cmp(CmpPred::Ge, t, q.compute_len);
                    b.if_then(drained, |b| b.break_(&[]));
                    let (counter, expected, id) = (readiness.borrow_mut())(b, t);
                    self.traced(b, Role::Wait, t, |b| {
                        self.wait(b, counter, expected, q.ready_scope, t, id);
                    });
                    vec![t, b.const_bool(true)]
                },
                |b| {
                    let (head, claimed) = self.claim_if_ready(
                        b,
                        q.compute_head,
                        q.compute_len,
                        q.ready_scope,
                        |b, t| {
                            let (counter, expected, _) = (readiness.borrow_mut())(b, t);
                            (counter, expected)
                        },
                    );
                    vec![head, claimed]
                },
            );
            let (task, claimed) = (picked[0], picked[1]);
            b.if_else(
                claimed,
                &[Type::U32],
                |b| {
                    self.traced(b, Role::Compute, task, |b| compute(b, task));
                    vec![tickets]
                },
                |b| {
                    let ticket = self.claim(b, q.comm_head, q.comm_len);
                    let got = b.cmp(CmpPred::Lt, ticket, q.comm_len);
                    b.if_else(
                        got,
                        &[Type::U32],
                        |b| {
                            self.traced(b, Role::Comm, ticket, |b| comm(b, ticket));
                            vec![tickets]
                        },
                        |b| {
                            let drained = b.cmp(CmpPred::Ge, task, q.compute_len);
                            b.if_then(drained, |b| b.break_(&[]));
                            vec![b.const_u32(1)]
                        },
                    )
                },
            )
        });
    }
}
