//! Where a fused tensor-parallel op's time goes, at the Llama-3-70B TP=8 shapes on a world
//! of one rank (or of the ranks the first argument names, emulated on the device): one
//! traced call of each op, then, from the records of its tiles, when the workgroups started
//! their first tile and ended their last (min / median / max over the workgroups,
//! microseconds after the first record's start), the tiles' times and each workgroup's time
//! between its tiles, beside the call's time between two events of the world's stream (the
//! rest of which is the host's work of the call, the launch itself and the world's
//! barriers); over several ranks, the same of the reductions and the pulls, and the
//! subgroups' waits. Then the host's time of a
//! call (from the call until it returns, the device idle before it), against a launch of our
//! `gemm` of the same shape: what a single call between two events counts on top of the
//! device's work.
//!
//! `cargo run --release -p kernels --example tp_profile [ranks]` on the first GPU; on the
//! CPU device (`KOSMOS_DEVICE=cpu`, or no GPU) at a 32nd of each dimension, a check of the
//! program only.

use kernels::{Layout, Ops, TpOps};
use kosmos::bf16;
use kosmos::runtime::{Device, DeviceKind, World, WorldOptions};
use kosmos_sched::{Role, TraceEvent};
use kosmos_testkernels::random_bf16;
use std::collections::BTreeMap;
use std::time::Instant;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
/// Each (rank, workgroup)'s (start, end) records of one role, in time order.
type Records = BTreeMap<(u32, u32), Vec<(u64, u64)>>;

/// `min / median / max` of nanosecond times, in microseconds.
fn spread(mut ns: Vec<u64>) -> String {
    ns.sort_unstable();
    let us = |i: usize| ns[i] as f64 / 1e3;
    format!(
        "{:7.1} / {:7.1} / {:7.1}",
        us(0),
        us(ns.len() / 2),
        us(ns.len() - 1)
    )
}

/// Each workgroup's records of `role`, in time order.
fn by_workgroup(events: &[TraceEvent], role: Role) -> Records {
    let mut out = Records::new();
    for e in events.iter().filter(|e| e.role == role) {
        out.entry((e.rank, e.workgroup))
            .or_default()
            .push((e.start, e.end));
    }
    out.values_mut().for_each(|v| v.sort_unstable());
    out
}

/// [`spread`] of `f` over each workgroup's records.
fn column(of: &Records, f: impl Fn(&[(u64, u64)]) -> u64) -> String {
    spread(of.values().map(|v| f(v)).collect())
}

/// Prints `label` after `indent`, padded to one column, then `value`.
fn line(indent: &str, label: &str, value: String) {
    let width = 24usize.saturating_sub(indent.len());
    println!("{indent}{label:<width$}{value}");
}

/// When the workgroups' records of `of` started first and ended last (`after` gives a
/// time's offset), and their durations, each line after `indent`.
fn spans(of: &Records, after: impl Fn(u64) -> u64, indent: &str) {
    let durations = of.values().flatten().map(|(s, e)| e - s).collect();
    line(indent, "first started", column(of, |v| after(v[0].0)));
    line(
        indent,
        "last ended",
        column(of, |v| after(v[v.len() - 1].1)),
    );
    line(indent, "each", spread(durations));
}

fn report(name: &str, launch_ms: f32, events: &[TraceEvent]) {
    let tiles = by_workgroup(events, Role::Compute);
    if tiles.is_empty() {
        println!("{name}: no tile records (is the trace full?)");
        return;
    }
    let first = events.iter().map(|e| e.start).min().unwrap_or(0);
    let after = |t: u64| t.saturating_sub(first);
    let count: usize = tiles.values().map(Vec::len).sum();
    let gaps = |v: &[(u64, u64)]| v.windows(2).map(|p| p[1].0.saturating_sub(p[0].1)).sum();
    println!(
        "{name}: {:.1} us between the call's events, {count} tiles",
        launch_ms * 1e3
    );
    spans(&tiles, after, "  tile ");
    let between = column(&tiles, gaps);
    line(
        "  ",
        "between tiles",
        format!("{between} (a workgroup's sum)"),
    );
    // Over several ranks: the reductions or pulls (`Role::Comm`) and the waits.
    for (role, what) in [(Role::Comm, "reductions / pulls"), (Role::Wait, "waits")] {
        let of = by_workgroup(events, role);
        if of.is_empty() {
            continue;
        }
        println!("  {what}: {}", of.values().map(Vec::len).sum::<usize>());
        spans(&of, after, "    ");
        let busy = column(&of, |v| v.iter().map(|(s, e)| e - s).sum());
        line("    ", "a workgroup's sum", busy);
    }
}

/// Median microseconds of the host's time of `call(on)`, each call after `idle(on)` has
/// waited for the device.
fn host_us<T>(
    on: &mut T,
    mut call: impl FnMut(&mut T) -> Result<()>,
    mut idle: impl FnMut(&mut T) -> Result<()>,
) -> Result<f64> {
    let mut us = Vec::new();
    for _ in 0..21 {
        idle(on)?;
        let start = Instant::now();
        call(on)?;
        us.push(start.elapsed().as_secs_f64() * 1e6);
    }
    idle(on)?;
    us.sort_by(f64::total_cmp);
    Ok(us[us.len() / 2])
}

fn main() -> Result<()> {
    let device = Device::from_env()?;
    let scale = if device.kind() == DeviceKind::Cpu {
        32
    } else {
        1
    };
    let options = WorldOptions {
        trace_capacity: 1 << 16,
        ..WorldOptions::default()
    };
    let ranks: u32 = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|_| format!("ranks: not a number: {arg}"))?,
        None => 1,
    };
    let mut world = World::emulated(&device, ranks, options)?;
    let mut ops = TpOps::new(&world)?;
    let local = Ops::new(&device)?;
    let stream = device.stream()?;
    println!(
        "on {device}, {ranks} rank(s): min / median / max over the workgroups, us after the first record started"
    );
    for (name, m, n, k) in [
        ("qkv ag_gemm", 8192, 1280, 8192),
        ("fc1 ag_gemm", 8192, 3584, 8192),
        ("out-proj gemm_rs", 8192, 8192, 1024),
        ("fc2 gemm_rs", 8192, 8192, 3584),
    ] {
        let (m, n, k) = (m / scale, n / scale, k / scale);
        let x = world.alloc_symmetric::<bf16>(m * k)?;
        let w = world.alloc_symmetric::<bf16>(k * n)?;
        for r in 0..ranks as usize {
            x.ranks()[r].upload(&random_bf16(1, m * k))?;
            w.ranks()[r].upload(&random_bf16(2 + r as u64, k * n))?;
        }
        let rows = if name.ends_with("gemm_rs") {
            m / ranks as usize
        } else {
            m
        };
        let y = world.alloc_symmetric::<f32>(rows * n)?;
        // Three calls to warm up (their records dropped), then the traced one.
        let mut fused = |world: &mut World| -> Result<()> {
            if name.ends_with("ag_gemm") {
                ops.ag_gemm(world, &x, &w, Layout::N, &y, m, n, k)?;
            } else {
                ops.gemm_rs(world, &x, &w, Layout::N, &y, m, n, k)?;
            }
            Ok(())
        };
        for call in 0..4 {
            world.trace()?;
            let start = world.rank_stream(0).expect("rank 0").record_event()?;
            fused(&mut world)?;
            let end = world.rank_stream(0).expect("rank 0").record_event()?;
            world.synchronize()?;
            if call == 3 {
                let (events, dropped) = world.trace()?;
                report(name, start.elapsed_ms(&end)?, &events);
                if dropped > 0 {
                    println!("  ({dropped} records dropped: the trace was full)");
                }
            }
        }
        let fused_us = host_us(&mut world, &mut fused, |w| Ok(w.synchronize()?))?;
        let (a, b) = (&x.ranks()[0], &w.ranks()[0]);
        let plan = local.gemm_plan(a, Layout::N, b, Layout::N, m, n, k)?;
        let mut out = device.alloc::<f32>(m * n)?;
        let gemm_us = host_us(
            &mut out,
            |out| Ok(plan.launch(&stream, out)?),
            |_| Ok(stream.synchronize()?),
        )?;
        println!("  host time of a call  {fused_us:.1} us (our gemm's launch: {gemm_us:.1} us)");
    }
    Ok(())
}
