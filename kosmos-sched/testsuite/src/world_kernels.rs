//! Kernels that measure a world's links: a cross-rank signal -> wait ping-pong and a peer
//! tile copy, with an empty kernel (same team parameters, same start barrier) as the
//! baseline. Built from `kosmos-sched`'s primitives; compiled by this crate's build script
//! (which includes this file) and named by the tests through the constants here.

use kosmos_ir::{
    CmpPred, Dim, Kernel, KernelBuilder, Ordering, RmwOp, ScalarType, Scope, Type, Value,
};
use kosmos_sched::{Sched, SchedOptions, Team};

/// Lanes per workgroup of every kernel here.
pub const BLOCK: u32 = 256;
/// The baseline: team parameters and the start barrier, which a launch of the whole world on
/// one GPU skips (parameter `n`, unused).
pub const EMPTY: &str = "world_empty";
/// `n` round trips between workgroup 0 of rank 0 and workgroup 0 of rank 1 (parameter
/// `n`): rank 0 signals `FLAGS[0]` in rank 1's memory and waits for its own `FLAGS[1]`;
/// rank 1 waits for its `FLAGS[0]` and signals `FLAGS[1]` in rank 0's memory. Both at
/// system scope: the producer and the consumer are on different GPUs.
pub const PINGPONG: &str = "world_pingpong";
/// Every rank pulls all of `SRC` of rank `rank + 1 (mod ranks)` into its own `DST`
/// (parameter `n`: 16-byte vectors per buffer), every workgroup of the rank copying tiles
/// of [`BLOCK`] vectors in turn.
pub const PEER_COPY: &str = "world_peer_copy";

/// Two rounds of the world's barrier (parameter `launch`, a launch number from 1, growing
/// from launch to launch): in round `k` every workgroup marks its arrival `2 launch + k` in
/// `ARRIVED`, passes the team barrier, and counts in `EARLY` the workgroups of the world
/// whose mark is still below that: a barrier that let it pass before everyone arrived.
/// (Marks only grow, so a workgroup already in the next round is never counted.)
pub const BARRIER_CHECK: &str = "world_barrier_check";

/// The end of a launch without a wait (parameter `launch`, as for [`BARRIER_CHECK`]): every
/// workgroup marks `launch` in `ARRIVED` and leaves through `Sched::team_last_out`; the
/// workgroup told it left last counts itself in its rank's `LASTS` and counts in `EARLY`
/// the workgroups of the world whose mark it does not see (an older one).
pub const LAST_OUT_CHECK: &str = "world_last_out_check";

/// Every workgroup writes its team parameters as it reads them — rank, world size,
/// workgroups per rank, and how the world's workgroups run (`team_apart`: whether they may
/// start apart, which keeps the start barrier, and whether the world runs in several
/// launches) — as words `4 w..4 w + 4` of its rank's `TEAM`, `w` its index in its rank.
pub const TEAM_CHECK: &str = "world_team_check";

/// The symmetric buffer of [`TEAM_CHECK`], allocated first after the control buffer:
/// `u32[4 x workgroups per rank]`.
pub const TEAM: u32 = 1;

/// Symmetric buffers of [`BARRIER_CHECK`], in allocation order after the control buffer.
pub mod barrier_buffers {
    /// `u32[workgroups per rank]` (or more): each workgroup's last mark.
    pub const ARRIVED: u32 = 1;
    /// `u32[1]`: marks found missing after the barrier.
    pub const EARLY: u32 = 2;
    /// `u32[1]` ([`LAST_OUT_CHECK`]): workgroups of this rank told they left last.
    pub const LASTS: u32 = 3;
}

/// Symmetric buffers of the other kernels, in allocation order after the control buffer.
pub mod buffers {
    /// `u32[2]`: ping and pong counters.
    pub const FLAGS: u32 = 1;
    /// `u32[4 n]`: what peers copy.
    pub const SRC: u32 = 2;
    /// `u32[4 n]`: where the copy lands.
    pub const DST: u32 = 3;
}

/// Elements of one copied vector.
pub const VECTOR_LANES: u32 = 4;

fn start(name: &str) -> (KernelBuilder, Team, Sched, Value) {
    let mut b = KernelBuilder::new(name, BLOCK);
    let team = Team::params(&mut b);
    let n = b.param("n", Type::U32);
    let sched = Sched::new(&mut b, team, SchedOptions::default());
    sched.start_barrier(&mut b);
    (b, team, sched, n)
}

fn empty() -> Kernel {
    start(EMPTY).0.finish()
}

fn pingpong() -> Kernel {
    let (mut b, team, sched, n) = start(PINGPONG);
    let [zero, one] = [0, 1].map(|v| b.const_u32(v));
    let first = b.cmp(CmpPred::Eq, team.workgroup(), zero);
    for (me, peer) in [(0u32, 1u32), (1, 0)] {
        let me_v = b.const_u32(me);
        let is_me = b.cmp(CmpPred::Eq, team.rank(), me_v);
        let active = b.and(is_me, first);
        b.if_then(active, |b| {
            let peer_v = b.const_u32(peer);
            let theirs = team.peer_ptr(b, buffers::FLAGS, peer_v);
            let mine = team.local_ptr(b, buffers::FLAGS);
            // Rank 0 signals word 0 and waits on word 1; rank 1 the other way round.
            let send = b.ptr_offset(theirs, if me == 0 { zero } else { one }, Type::U32);
            let recv = b.ptr_offset(mine, if me == 0 { one } else { zero }, Type::U32);
            b.for_range(zero, n, one, &[], |b, i, _| {
                let one = b.const_u32(1);
                let round = b.add(i, one);
                if me == 0 {
                    sched.signal(b, send, one, Scope::System);
                    sched.wait(b, recv, round, Scope::System, i, i);
                } else {
                    sched.wait(b, recv, round, Scope::System, i, i);
                    sched.signal(b, send, one, Scope::System);
                }
                vec![]
            });
        });
    }
    b.finish()
}

fn peer_copy() -> Kernel {
    let (mut b, team, _, n) = start(PEER_COPY);
    let one = b.const_u32(1);
    let next = b.add(team.rank(), one);
    let from = b.rem(next, team.world_size());
    let src = team.peer_ptr(&mut b, buffers::SRC, from);
    let dst = team.local_ptr(&mut b, buffers::DST);
    let lanes = b.workgroup_size(Dim::X);
    let lane = b.workitem_id(Dim::X);
    let tile = b.mul(team.workgroup(), lanes);
    let first = b.add(tile, lane);
    let step = b.mul(team.workgroups_per_rank(), lanes);
    let vector = Type::Vector {
        elem: ScalarType::U32,
        lanes: VECTOR_LANES,
    };
    b.for_range(first, n, step, &[], |b, i, _| {
        let p = b.ptr_offset(src, i, vector);
        let x = b.load(p, vector);
        let q = b.ptr_offset(dst, i, vector);
        b.store(q, x);
        vec![]
    });
    b.finish()
}

fn barrier_check() -> Kernel {
    let mut b = KernelBuilder::new(BARRIER_CHECK, BLOCK);
    let team = Team::params(&mut b);
    let launch = b.param("launch", Type::U32);
    let sched = Sched::new(&mut b, team, SchedOptions::default());
    let lane0 = sched.is_lane0();
    let arrived = team.local_ptr(&mut b, barrier_buffers::ARRIVED);
    let mine = b.ptr_offset(arrived, team.workgroup(), Type::U32);
    let early = team.local_ptr(&mut b, barrier_buffers::EARLY);
    let two = b.const_u32(2);
    let first_mark = b.mul(launch, two);
    for round in 0..2 {
        let round = b.const_u32(round);
        let mark = b.add(first_mark, round);
        b.if_then(lane0, |b| {
            b.atomic_store(mine, mark, Ordering::Relaxed, Scope::System)
        });
        sched.team_barrier(&mut b);
        b.if_then(lane0, |b| count_missing_marks(b, team, early, mark));
    }
    b.finish()
}

fn last_out_check() -> Kernel {
    let mut b = KernelBuilder::new(LAST_OUT_CHECK, BLOCK);
    let team = Team::params(&mut b);
    let launch = b.param("launch", Type::U32);
    let sched = Sched::new(&mut b, team, SchedOptions::default());
    let lane0 = sched.is_lane0();
    let arrived = team.local_ptr(&mut b, barrier_buffers::ARRIVED);
    let mine = b.ptr_offset(arrived, team.workgroup(), Type::U32);
    let early = team.local_ptr(&mut b, barrier_buffers::EARLY);
    let lasts = team.local_ptr(&mut b, barrier_buffers::LASTS);
    let (relaxed, system) = (Ordering::Relaxed, Scope::System);
    b.if_then(lane0, |b| b.atomic_store(mine, launch, relaxed, system));
    let last = sched.team_last_out(&mut b);
    let counts = b.and(last, lane0);
    b.if_then(counts, |b| {
        let one = b.const_u32(1);
        b.atomic_rmw(RmwOp::Add, lasts, one, relaxed, system);
        count_missing_marks(b, team, early, launch);
    });
    b.finish()
}

/// Adds to `*early` the workgroups of the world whose mark in `ARRIVED` is below `mark`
/// (one lane's loop).
fn count_missing_marks(b: &mut KernelBuilder, team: Team, early: Value, mark: Value) {
    let (relaxed, system) = (Ordering::Relaxed, Scope::System);
    let [zero, one] = [0, 1].map(|v| b.const_u32(v));
    b.for_range(zero, team.world_size(), one, &[], |b, rank, _| {
        let theirs = team.peer_ptr(b, barrier_buffers::ARRIVED, rank);
        b.for_range(zero, team.workgroups_per_rank(), one, &[], |b, wg, _| {
            let p = b.ptr_offset(theirs, wg, Type::U32);
            let seen = b.atomic_load(p, ScalarType::U32, relaxed, system);
            let missing = b.cmp(CmpPred::Lt, seen, mark);
            b.if_then(missing, |b| {
                b.atomic_rmw(RmwOp::Add, early, one, relaxed, system);
            });
            vec![]
        });
        vec![]
    });
}

fn team_check() -> Kernel {
    let mut b = KernelBuilder::new(TEAM_CHECK, BLOCK);
    let team = Team::params(&mut b);
    let lane = b.workitem_id(Dim::X);
    let zero = b.const_u32(0);
    let lane0 = b.cmp(CmpPred::Eq, lane, zero);
    let out = team.local_ptr(&mut b, TEAM);
    let four = b.const_u32(4);
    let first = b.mul(team.workgroup(), four);
    let words = [
        team.rank(),
        team.world_size(),
        team.workgroups_per_rank(),
        team.apart(),
    ];
    b.if_then(lane0, |b| {
        for (i, v) in (0u32..).zip(words) {
            let i = b.const_u32(i);
            let at = b.add(first, i);
            let p = b.ptr_offset(out, at, Type::U32);
            b.store(p, v);
        }
    });
    b.finish()
}

/// Every kernel of this file, as one module.
pub fn module() -> kosmos_ir::Module {
    kosmos_ir::Module {
        kernels: vec![
            empty(),
            pingpong(),
            peer_copy(),
            barrier_check(),
            last_out_check(),
            team_check(),
        ],
    }
}
