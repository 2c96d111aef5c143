//! Scheduled kernels written in the `#[kernel]` DSL: the same protocol as `kosmos-sched`'s
//! hand-built kernels, reached through `team: &Team`, symmetric buffer parameters and the
//! scheduling intrinsics.

use kosmos::prelude::*;

/// A ring all-gather with a consumer: every rank pushes its `shard` (`chunk` elements) into
/// every rank's `gathered` buffer (`ranks * chunk`; task `t` of its push queue goes to rank
/// `rank + t`, a ring) and signals that destination's counter in `ready` (one per source
/// rank plus a spare one) at system scope; then every rank computes
/// `out = gathered * scale + 1` one source shard at a time, each after a bounded wait on
/// that shard's counter. `queues` holds the two queue heads. Push `skip`
/// (`rank * ranks + dest`) signals the spare counter instead: a planted missing signal
/// (`u32::MAX` plants none).
#[kernel(max_workgroup_size = 64)]
pub fn allgather_scale(
    team: &Team,
    shard: &Sym<[f32]>,
    gathered: &Sym<[f32]>,
    ready: &Sym<[u32]>,
    out: &Sym<[f32]>,
    queues: &Sym<[u32]>,
    chunk: u32,
    scale: f32,
    skip: u32,
) {
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let mine = shard.local();
    let heads = queues.local();
    loop {
        let t = claim(&heads[0], ranks);
        if t >= ranks {
            break;
        }
        let dest = (rank + t) % ranks;
        let remote = gathered.peer(dest);
        for i in (lane..chunk).step_by(lanes) {
            remote[rank * chunk + i] = mine[i];
        }
        // Redirecting keeps `signal` (a barrier) out of a branch.
        let slot = if rank * ranks + dest == skip {
            ranks
        } else {
            rank
        };
        signal(&ready.peer(dest)[slot], 1, Scope::System);
    }
    let arrived = ready.local();
    let all = gathered.local();
    let results = out.local();
    loop {
        let src = claim(&heads[1], ranks);
        if src >= ranks {
            break;
        }
        wait(&arrived[src], 1, Scope::System, src);
        for i in (lane..chunk).step_by(lanes) {
            let at = src * chunk + i;
            results[at] = all[at] * scale + 1.0;
        }
    }
}

/// [`allgather_scale`] through the role switch: one persistent loop in which every
/// workgroup serves both queues. The pushes are communication tasks; the consumer rows
/// (task `src` computes source `src`'s shard) are compute tasks gated on `ready[src]`. A
/// free workgroup takes the head row once its shard has arrived, else claims a push, else
/// waits (bounded) for the head row. Lane 0 of every task counts it in `tally` (`2 * ranks`
/// counts: the pushes, then the consumer rows).
///
/// Launches may follow each other with no host work in between: once nobody signals a
/// counter or reads a buffer any more, the ranks' readiness counters and queue heads are
/// zeroed for the next launch — where the whole world is this launch, by its last
/// workgroup out (`team_last_out`, no wait), else, after a team barrier (a rank's launch
/// must not end while peers still read its buffers), by each rank's workgroup 0.
#[kernel(max_workgroup_size = 64)]
pub fn allgather_scale_dispatch(
    team: &Team,
    shard: &Sym<[f32]>,
    gathered: &Sym<[f32]>,
    ready: &Sym<[u32]>,
    out: &Sym<[f32]>,
    queues: &Sym<[u32]>,
    tally: &Sym<[u32]>,
    chunk: u32,
    scale: f32,
) {
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let mine = shard.local();
    let arrived = ready.local();
    let all = gathered.local();
    let results = out.local();
    let heads = queues.local();
    let counts = tally.local();
    dispatch(
        &heads[0],
        ranks,
        &heads[1],
        ranks,
        Scope::System,
        |src| (&arrived[src], 1),
        |t| {
            let dest = (rank + t) % ranks;
            let remote = gathered.peer(dest);
            for i in (lane..chunk).step_by(lanes) {
                remote[rank * chunk + i] = mine[i];
            }
            if lane == 0 {
                atomic_add(&counts[t], 1, Ordering::Relaxed, Scope::Agent);
            }
            signal(&ready.peer(dest)[rank], 1, Scope::System);
        },
        |src| {
            for i in (lane..chunk).step_by(lanes) {
                let at = src * chunk + i;
                results[at] = all[at] * scale + 1.0;
            }
            if lane == 0 {
                atomic_add(&counts[ranks + src], 1, Ordering::Relaxed, Scope::Agent);
            }
        },
    );
    if team_one_launch() {
        if team_last_out() {
            for r in 0..ranks {
                zero_counters(ready, queues, r);
            }
        }
    } else {
        team_barrier();
        if team_workgroup() == 0 {
            zero_counters(ready, queues, rank);
        }
    }
}

/// Rank `r`'s readiness counters and queue heads of [`allgather_scale_dispatch`], zeroed
/// by the calling workgroup.
#[device]
fn zero_counters(ready: &Sym<[u32]>, queues: &Sym<[u32]>, r: u32) {
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let counters = ready.peer(r);
    let heads = queues.peer(r);
    for i in (lane..world_size() + 1).step_by(lanes) {
        counters[i] = 0;
    }
    for i in (lane..2).step_by(lanes) {
        heads[i] = 0;
    }
}

/// The receive side of a Mixture-of-Experts exchange, reduced to its capacity check: rank
/// `r` pulls `counts[r]` rows (known only on the device) of the previous rank's `send` (in a
/// ring) into its own `rows`, which hold `capacity`, then tells that rank it is done
/// (`done`, a counter per rank). A rank whose rows would not fit reports the overflow and
/// skips the pull, writing nothing; the rank it would have pulled from then waits for a
/// signal that never comes, and leaves at the abort flag. Workgroup 0 of each rank pulls;
/// every workgroup checks. At the end, once the whole world is done (a team barrier),
/// workgroup 0 of each rank zeroes its `done` counter for the next launch.
#[kernel(max_workgroup_size = 64)]
pub fn pull_rows(
    team: &Team,
    counts: &[u32],
    send: &Sym<[u32]>,
    rows: &Sym<[u32]>,
    done: &Sym<[u32]>,
    capacity: u32,
) {
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let needed = counts[rank];
    if needed > capacity {
        report_overflow(capacity, needed);
        return;
    }
    let source = (rank + ranks - 1) % ranks;
    let mine = done.local();
    if team_workgroup() == 0 {
        let from = send.peer(source);
        let into = rows.local();
        for i in (lane..needed).step_by(lanes) {
            into[i] = from[i];
        }
        signal(&done.peer(source)[0], 1, Scope::System);
        // This rank's `send` is in use until its receiver has pulled it.
        wait(&mine[0], 1, Scope::System, 0);
    }
    team_barrier();
    if team_workgroup() == 0 && lane == 0 {
        mine[0] = 0;
    }
}
