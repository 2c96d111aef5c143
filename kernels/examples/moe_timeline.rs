//! The timeline of one MoE layer forward pass (`kernels::MoeLayer`, one launch per rank) on an
//! emulated expert-parallel world: one row per workgroup of every rank, one bar per task,
//! coloured by role — router and layout tasks, row pushes (communication), expert tiles and
//! fold tasks (computation), and waits. It also prints, per phase, the span of its tasks, the
//! workgroup time they took and the longest task.
//!
//! `cargo run --release -p kernels --example moe_timeline -- [out.svg] [backward]` (default
//! `moe-timeline.svg`); on the first GPU, else (`KOSMOS_DEVICE=cpu`, or no GPU) on the CPU
//! device with a smaller layer; `KOSMOS_MOE_SHAPE=ranks,experts,topk,tokens,hidden,ffn` sets
//! another. With `backward`, the pass drawn is the backward pass (`MoeLayer::backward`) of a
//! forward pass.
//!
//! The dispatch loops record a task's index within its queue; the phases are told apart by
//! order and index. Forward: per rank, the first compute tasks are the router's and the
//! layout task, the last ones the fold's, and an expert task's index says whether it is an
//! up- or a down-projection tile. Backward: the router's gradient blocks, then the tile
//! queue — rounds of `dh` and `dx` tiles, the router's tiles, then every expert's `dw2` and
//! `dw1` blocks (the last indices of the queue) —, then the combine's tasks, the last to run.
//! On the pipeline (`ops::moe_backward_pipeline`) the tile tasks' records carry
//! `ops::MOE_TILE_TRACE` over their index; on the group mainloop the tiles share the router
//! blocks' queue (after them).

use kernels::{MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, Ops, Routing};
use kosmos::bf16;
use kosmos::runtime::{Device, DeviceKind, World, WorldOptions};
use kosmos_sched::{Role, TraceEvent, trace};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "moe-timeline.svg".into());
    let backward = std::env::args().nth(2).as_deref() == Some("backward");
    let device = Device::from_env()?;
    let custom: Vec<usize> = std::env::var("KOSMOS_MOE_SHAPE")
        .unwrap_or_default()
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect();
    let (ranks, shape) = if let [ranks, experts, topk, tokens, hidden, ffn] = custom[..] {
        let shape = MoeShape {
            experts,
            topk,
            tokens,
            hidden,
            ffn,
        };
        (ranks as u32, shape)
    } else if device.kind() == DeviceKind::Cpu {
        let shape = MoeShape {
            experts: 8,
            topk: 2,
            tokens: 256,
            hidden: 128,
            ffn: 128,
        };
        (2u32, shape)
    } else {
        let shape = MoeShape {
            experts: 64,
            topk: 8,
            tokens: 2048,
            hidden: 2048,
            ffn: 1024,
        };
        (4, shape)
    };
    let options = WorldOptions {
        trace_capacity: 1 << 20,
        ..WorldOptions::default()
    };
    let mut world = World::emulated(&device, ranks, options)?;
    let routing = Routing::Softmax { normalize: true };
    let moe_options = MoeOptions {
        routing,
        shared_expert: false,
        capacity: Some(2 * shape.tokens * shape.topk),
    };
    let mut layer = MoeLayer::new(&mut world, shape, moe_options)?;
    let (h, f) = (shape.hidden, shape.ffn);
    let local = shape.experts / ranks as usize;
    let ops = Ops::new(&device)?;
    let mut x = world.alloc_symmetric::<bf16>(shape.tokens * h)?;
    let mut router = world.alloc_symmetric::<bf16>(shape.experts * h)?;
    let mut w1 = world.alloc_symmetric::<bf16>(local * 2 * f * h)?;
    let mut w2 = world.alloc_symmetric::<bf16>(local * h * f)?;
    let y = world.alloc_symmetric::<bf16>(shape.tokens * h)?;
    let mut dout = world.alloc_symmetric::<bf16>(shape.tokens * h)?;
    let stream = world.rank_stream(0).expect("rank 0");
    let (sh, sf) = (1.0 / (h as f32).sqrt(), 1.0 / (f as f32).sqrt());
    for r in 0..ranks as usize {
        let seed = 4 * r as u32;
        ops.fill_random(stream, &mut x.ranks_mut()[r], seed, 1.0)?;
        ops.fill_random(stream, &mut router.ranks_mut()[r], 1, 2.0 * sh)?;
        ops.fill_random(stream, &mut w1.ranks_mut()[r], seed + 2, 2.0 * sh)?;
        ops.fill_random(stream, &mut w2.ranks_mut()[r], seed + 3, 2.0 * sf)?;
        ops.fill_random(stream, &mut dout.ranks_mut()[r], seed + 100, 1.0)?;
    }
    stream.synchronize()?;
    let weights = MoeWeights {
        router: &router,
        bias: None,
        w1: &w1,
        w2: &w2,
        shared: None,
    };
    let mut pass = layer.forward(&mut world, &x, &weights, &y)?;
    world.synchronize()?;
    world.trace()?;
    let (dx, dw_router) = (
        world.alloc_symmetric::<bf16>(shape.tokens * h)?,
        world.alloc_symmetric::<f32>(shape.experts * h)?,
    );
    let (dw1, dw2) = (
        world.alloc_symmetric::<bf16>(local * 2 * f * h)?,
        world.alloc_symmetric::<bf16>(local * h * f)?,
    );
    let grads = MoeGradients {
        dx: &dx,
        router: &dw_router,
        w1: &dw1,
        w2: &dw2,
        shared: None,
    };
    let mut events = Vec::new();
    // A warm-up pass, whose records are dropped, then the traced one, then one timed.
    for i in 0..3 {
        let start = world.rank_stream(0).expect("rank 0").record_event()?;
        if backward {
            layer.backward(&mut world, &pass, &x, &dout, &weights, &grads)?;
        } else {
            pass = layer.forward(&mut world, &x, &weights, &y)?;
        }
        let end = world.rank_stream(0).expect("rank 0").record_event()?;
        world.synchronize()?;
        let trace = world.trace()?.0;
        if i == 1 {
            events = trace;
        }
        if i == 2 {
            println!("one traced pass: {:.3} ms", start.elapsed_ms(&end)?);
        }
    }
    if backward {
        summarize_backward(&events, ranks, shape, layer.backward_pipeline());
    } else {
        summarize(&events, ranks, shape, layer.pipeline());
    }
    let title = format!(
        "MoE layer {} on {device}: {ranks} emulated ranks, {} tokens each, {} experts, \
         top-{}, hidden {h}, ffn {f} (one launch per rank)",
        if backward { "backward" } else { "forward" },
        shape.tokens,
        shape.experts,
        shape.topk
    );
    std::fs::write(&out, trace::svg_timeline(&events, &title))?;
    println!("{} task records -> {out}", events.len());
    Ok(())
}

/// Prints each phase's span (first start to last end, over all ranks) and the workgroup time
/// its tasks took, in microseconds of the device clock (nanoseconds on NVIDIA). The expert
/// tiles are 128 x 256 on the pipeline, else 128 x 128.
fn summarize(events: &[TraceEvent], ranks: u32, s: MoeShape, pipeline: bool) {
    let blocks = s.tokens.div_ceil(128);
    let folds = s.tokens.div_ceil(8);
    let cols = if pipeline { 256 } else { 128 };
    // An up-projection tile covers the gate and up columns of half as many features; a
    // round holds several row tiles' worth.
    let rows = kernels::ops::MOE_ROUND_ROWS as usize;
    let up_tiles = rows * s.ffn.div_ceil(cols / 2);
    let round = up_tiles + rows * s.hidden.div_ceil(cols);
    // Router tasks (logits tiles, picks, counts), the layout and the fill tasks, in the
    // order of the planning queue (`ops::moe_plan`).
    let splits = 128 / kernels::ops::MOE_ROUTE_TOKENS as usize;
    let parts = s.hidden.div_ceil(kernels::ops::MOE_ROUTER_DEPTH as usize);
    let pick_tasks = blocks * s.experts.div_ceil(128) * parts;
    let count_tasks = pick_tasks + blocks * splits;
    let layout_task = count_tasks + blocks;
    let planning = layout_task + 1 + blocks;
    let names = [
        "router logits",
        "router picks",
        "block counts",
        "layout",
        "send lists",
        "push rows",
        "up tiles",
        "down tiles",
        "fold",
        "wait",
    ];
    summarize_phases(events, ranks, &names, 5, 9, |compute| {
        let n = compute.len();
        let phase = |(i, e): (usize, &&TraceEvent)| {
            let t = e.task as usize;
            if i < planning {
                match t {
                    t if t < pick_tasks => 0,
                    t if t < count_tasks => 1,
                    t if t < layout_task => 2,
                    t if t == layout_task => 3,
                    _ => 4,
                }
            } else if i + folds >= n {
                8
            } else if t % round < up_tiles {
                6
            } else {
                7
            }
        };
        compute.iter().enumerate().map(phase).collect()
    });
}

/// The backward pass's phases (docs of `ops::moe_backward`), told apart as the module's
/// docs say; the tiles are 128 x 256 on the pipeline, else 128 x 128.
fn summarize_backward(events: &[TraceEvent], ranks: u32, s: MoeShape, pipeline: bool) {
    let blocks = s.tokens.div_ceil(128);
    let combines = s.tokens.div_ceil(8);
    let cols = if pipeline { 256 } else { 128 };
    // A round holds several row tiles' worth of `dh` tiles, then of `dx` tiles.
    let rows = kernels::ops::MOE_ROUND_ROWS as usize;
    let (dh_tiles, x_tiles) = (s.ffn.div_ceil(cols), s.hidden.div_ceil(cols));
    let round = rows * (dh_tiles + x_tiles);
    // On the pipeline the tile queue is apart: no router blocks before its rounds.
    let grad_blocks = if pipeline {
        0
    } else {
        s.tokens
            .div_ceil(kernels::ops::MOE_ROUTER_GRAD_TOKENS as usize)
    };
    let router_tiles = (blocks + s.experts.div_ceil(128)) * x_tiles;
    let w2_blocks = s.hidden.div_ceil(128);
    let per_expert = w2_blocks + (2 * s.ffn).div_ceil(128);
    let wgrad = s.experts / ranks as usize * per_expert;
    let names = [
        "push gradients",
        "router",
        "dh tiles",
        "dx tiles",
        "dw2 blocks",
        "dw1 blocks",
        "combine",
        "wait",
    ];
    let tile_trace = kernels::ops::MOE_TILE_TRACE;
    summarize_phases(events, ranks, &names, 0, 7, |compute| {
        let n = compute.len();
        // The tile queue's length: one past its last task's index.
        let tiles = |e: &&&TraceEvent| !pipeline || e.task >= tile_trace;
        let index = |e: &TraceEvent| (e.task - if pipeline { tile_trace } else { 0 }) as usize;
        let total = compute
            .iter()
            .take(n.saturating_sub(combines))
            .filter(tiles)
            .map(|e| index(e) + 1)
            .max()
            .unwrap_or(0);
        let phase = |(i, e): (usize, &&TraceEvent)| {
            let t = index(e);
            if pipeline && e.task < tile_trace {
                // The router blocks, then the combine.
                if i + combines >= n { 6 } else { 1 }
            } else if !pipeline && i + combines >= n {
                6
            } else if t + wgrad >= total {
                if (t + wgrad - total) % per_expert < w2_blocks {
                    4
                } else {
                    5
                }
            } else if t < grad_blocks || t + wgrad + router_tiles >= total {
                1
            } else if (t - grad_blocks) % round < rows * dh_tiles {
                2
            } else {
                3
            }
        };
        compute.iter().enumerate().map(phase).collect()
    });
}

/// Groups every rank's task records into the phases `names`: its compute tasks, in the order
/// they started, as `classify` says (one phase each), its communication tasks into phase
/// `comm`, its waits into `wait`; then prints them.
fn summarize_phases(
    events: &[TraceEvent],
    ranks: u32,
    names: &[&'static str],
    comm: usize,
    wait: usize,
    classify: impl Fn(&[&TraceEvent]) -> Vec<usize>,
) {
    let mut phases: Vec<(&str, Vec<&TraceEvent>)> =
        names.iter().map(|&name| (name, Vec::new())).collect();
    for r in 0..ranks {
        let mut compute: Vec<&TraceEvent> = events
            .iter()
            .filter(|e| e.rank == r && e.role == Role::Compute)
            .collect();
        compute.sort_by_key(|e| e.start);
        for (phase, e) in classify(&compute).into_iter().zip(compute) {
            phases[phase].1.push(e);
        }
        for e in events.iter().filter(|e| e.rank == r) {
            match e.role {
                Role::Comm => phases[comm].1.push(e),
                Role::Wait => phases[wait].1.push(e),
                Role::Compute => {}
            }
        }
    }
    print_phases(events, phases);
}

/// Each phase's span (first start to last end, over all ranks), the workgroup time its
/// tasks took and its longest task.
fn print_phases(events: &[TraceEvent], phases: Vec<(&str, Vec<&TraceEvent>)>) {
    let first = events.iter().map(|e| e.start).min().unwrap_or(0);
    for (name, list) in phases {
        if list.is_empty() {
            continue;
        }
        let start = list.iter().map(|e| e.start).min().unwrap_or(0) - first;
        let end = list.iter().map(|e| e.end).max().unwrap_or(0) - first;
        let busy: u64 = list.iter().map(|e| e.end - e.start).sum();
        let longest = list.iter().map(|e| e.end - e.start).max().unwrap_or(0);
        println!(
            "{name:>16}: {:>6} tasks, from {:>9.1} to {:>9.1} us, {:>11.1} workgroup-us, longest {:>8.1} us",
            list.len(),
            start as f64 / 1e3,
            end as f64 / 1e3,
            busy as f64 / 1e3,
            longest as f64 / 1e3
        );
    }
}
