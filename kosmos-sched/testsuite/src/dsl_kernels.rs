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
