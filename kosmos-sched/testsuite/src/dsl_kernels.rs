//! Scheduled kernels written in the `#[kernel]` DSL: the same protocol as `kosmos-sched`'s
//! hand-built kernels, reached through `team: &Team` and the scheduling intrinsics.

use kosmos::prelude::*;

/// Symmetric buffers of [`allgather_scale`], in the order the host allocates them (buffer 0
/// is the world's control buffer): each rank's shard (`chunk` f32), the gathered shards
/// (`ranks * chunk` f32), one readiness counter per source rank plus a spare one (`u32`),
/// the output (`ranks * chunk` f32) and the two queue heads (`u32`).
pub mod allgather_buffers {
    pub const SHARD: u32 = 1;
    pub const GATHERED: u32 = 2;
    pub const READY: u32 = 3;
    pub const OUT: u32 = 4;
    pub const QUEUES: u32 = 5;
    /// Per-task run counts of [`super::allgather_scale_dispatch`] (`2 * ranks` u32: the
    /// pushes, then the consumer rows).
    pub const TALLY: u32 = 6;
}

/// A ring all-gather with a consumer: every rank pushes its shard into every rank's
/// `gathered` buffer (task `t` of its push queue goes to rank `rank + t`, a ring) and
/// signals that destination's counter for it at system scope; then every rank computes
/// `out = gathered * scale + 1` one source shard at a time, each after a bounded wait on
/// that shard's counter. Push `skip` (`rank * ranks + dest`) signals the spare counter
/// instead: a planted missing signal (`u32::MAX` plants none).
#[kernel(max_workgroup_size = 64)]
pub fn allgather_scale(team: &Team, chunk: u32, scale: f32, skip: u32) {
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let shard = peer::<f32, 1>(rank);
    let queues = peer::<u32, 5>(rank);
    loop {
        let t = claim(&queues[0], ranks);
        if t >= ranks {
            break;
        }
        let dest = (rank + t) % ranks;
        let gathered = peer::<f32, 2>(dest);
        for i in (lane..chunk).step_by(lanes) {
            gathered[rank * chunk + i] = shard[i];
        }
        // Redirecting keeps `signal` (a barrier) out of a branch.
        let slot = if rank * ranks + dest == skip {
            ranks
        } else {
            rank
        };
        let ready = peer::<u32, 3>(dest);
        signal(&ready[slot], 1, Scope::System);
    }
    let ready = peer::<u32, 3>(rank);
    let gathered = peer::<f32, 2>(rank);
    let out = peer::<f32, 4>(rank);
    loop {
        let src = claim(&queues[1], ranks);
        if src >= ranks {
            break;
        }
        wait(&ready[src], 1, Scope::System, src);
        for i in (lane..chunk).step_by(lanes) {
            let at = src * chunk + i;
            out[at] = gathered[at] * scale + 1.0;
        }
    }
}

/// [`allgather_scale`] through the role switch: one persistent loop in which every
/// workgroup serves both queues. The pushes are communication tasks; the consumer rows
/// (task `src` computes source `src`'s shard) are compute tasks gated on `ready[src]`. A
/// free workgroup takes the head row once its shard has arrived, else claims a push, else
/// waits (bounded) for the head row. Lane 0 of every task counts it in `tally`.
///
/// Launches may follow each other with no host work in between: at the end, once the
/// whole world is past its loop (a team barrier: no peer signals this rank's counters any
/// more, nor reads its buffers), workgroup 0 of each rank zeroes its own readiness
/// counters and queue heads for the next launch.
#[kernel(max_workgroup_size = 64)]
pub fn allgather_scale_dispatch(team: &Team, chunk: u32, scale: f32) {
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let shard = peer::<f32, 1>(rank);
    let ready = peer::<u32, 3>(rank);
    let gathered = peer::<f32, 2>(rank);
    let out = peer::<f32, 4>(rank);
    let queues = peer::<u32, 5>(rank);
    let tally = peer::<u32, 6>(rank);
    dispatch(
        &queues[0],
        ranks,
        &queues[1],
        ranks,
        Scope::System,
        |src| (&ready[src], 1),
        |t| {
            let dest = (rank + t) % ranks;
            let remote = peer::<f32, 2>(dest);
            for i in (lane..chunk).step_by(lanes) {
                remote[rank * chunk + i] = shard[i];
            }
            if lane == 0 {
                atomic_add(&tally[t], 1, Ordering::Relaxed, Scope::Agent);
            }
            let remote_ready = peer::<u32, 3>(dest);
            signal(&remote_ready[rank], 1, Scope::System);
        },
        |src| {
            for i in (lane..chunk).step_by(lanes) {
                let at = src * chunk + i;
                out[at] = gathered[at] * scale + 1.0;
            }
            if lane == 0 {
                atomic_add(&tally[ranks + src], 1, Ordering::Relaxed, Scope::Agent);
            }
        },
    );
    team_barrier();
    if team_workgroup() == 0 {
        for i in (lane..ranks + 1).step_by(lanes) {
            ready[i] = 0;
        }
        for i in (lane..2).step_by(lanes) {
            queues[i] = 0;
        }
    }
}
