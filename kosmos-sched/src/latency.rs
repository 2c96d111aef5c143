//! Kernels that time the protocol's primitives (run by the latency bench): an empty kernel
//! with the same team parameters as the baseline, a claim loop, and a signal -> wait ping-pong.
//! Each takes, after the team parameters, `state: ptr<global>` (`u32` words, zeroed by the
//! host) and `n: u32`.

use crate::sync::{Sched, SchedOptions};
use crate::team::Team;
use kosmos_ir::{CmpPred, Kernel, KernelBuilder, Scope, Type, Value};

/// Lanes per workgroup of the latency kernels.
pub const BLOCK: u32 = 64;

/// The baseline: team parameters, nothing done.
pub const EMPTY: &str = "sched_empty";
/// `n` claims from the queue head `state[0]`, by workgroups `0..active` of rank 0
/// (parameters `n`, `active`).
pub const CLAIM: &str = "sched_claim";
/// `n` round trips: workgroup 0 signals `state[0]` and waits for `state[1]`, workgroup 1
/// waits for `state[0]` and signals `state[1]`.
pub fn pingpong(scope: Scope) -> &'static str {
    match scope {
        Scope::System => "sched_pingpong_system",
        _ => "sched_pingpong_agent",
    }
}

fn start(name: &str) -> (KernelBuilder, Team, Sched, Value, Value) {
    let mut b = KernelBuilder::new(name, BLOCK);
    let team = Team::params(&mut b);
    let state = b.param("state", Type::GLOBAL_PTR);
    let n = b.param("n", Type::U32);
    let sched = Sched::new(&mut b, team, SchedOptions::default());
    (b, team, sched, state, n)
}

fn empty() -> Kernel {
    start(EMPTY).0.finish()
}

fn claim() -> Kernel {
    let (mut b, team, sched, state, n) = start(CLAIM);
    let active = b.param("active", Type::U32);
    let mine = b.cmp(CmpPred::Lt, team.workgroup(), active);
    b.if_then(mine, |b| {
        b.loop_(&[], &[], |b, _| {
            let t = sched.claim(b, state, n);
            let empty = b.cmp(CmpPred::Ge, t, n);
            b.if_then(empty, |b| b.break_(&[]));
            vec![]
        });
    });
    b.finish()
}

fn pingpong_kernel(scope: Scope) -> Kernel {
    let (mut b, team, sched, state, n) = start(pingpong(scope));
    let [zero, one] = [0, 1].map(|v| b.const_u32(v));
    let ping = b.ptr_offset(state, zero, Type::U32);
    let pong = b.ptr_offset(state, one, Type::U32);
    let wg = team.workgroup();
    for (who, send, recv) in [(0u32, ping, pong), (1, pong, ping)] {
        let me = b.const_u32(who);
        let is_me = b.cmp(CmpPred::Eq, wg, me);
        b.if_then(is_me, |b| {
            let zero = b.const_u32(0);
            let step = b.const_u32(1);
            b.for_range(zero, n, step, &[], |b, i, _| {
                let one = b.const_u32(1);
                let round = b.add(i, one);
                if who == 0 {
                    sched.signal(b, send, one, scope);
                    sched.wait(b, recv, round, scope, i, i);
                } else {
                    sched.wait(b, recv, round, scope, i, i);
                    sched.signal(b, send, one, scope);
                }
                vec![]
            });
        });
    }
    b.finish()
}

/// Every latency kernel.
pub fn kernels() -> Vec<Kernel> {
    vec![
        empty(),
        claim(),
        pingpong_kernel(Scope::Agent),
        pingpong_kernel(Scope::System),
    ]
}
