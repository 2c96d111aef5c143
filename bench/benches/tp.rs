//! The fused tensor-parallel ops (`kernels::TpOps`) on one GPU, in two parts, every figure a
//! ratio to a baseline timed in the same run:
//!
//! 1. A world of one rank: each op (no peers, so its machinery with nothing to move) against
//!    our plain gemm (`GemmPlan`, the pipelined kernel), the group gemm the fused ops'
//!    tiles come from (`gemm_persistent`) and cuBLAS, on the Llama-3-70B TP=8 GEMM each op
//!    serves (f32 output).
//! 2. An emulated world of 8 ranks (or of 2 or 4) on the one GPU (every rank's workgroups
//!    share it): each op against the unfused sequence on the same GPU — driver peer copies
//!    of the peers' rows then a gemm per rank (all-gather), or a gemm per rank then a
//!    reduce-scatter kernel (`ops::reduce_scatter_rows`) — at the same per-rank shapes.
//!
//! 3. With `KOSMOS_BENCH_GPUS=N` instead: one rank per GPU on N GPUs, at N-way tensor
//!    parallelism, bf16 output; each result first compared bitwise with the same op on N
//!    ranks emulated on the first GPU (`bench/tp_multi_gpu.sh` sets these against NCCL +
//!    cuBLAS and PyTorch's async-TP, from `bench/tp_torch.py`).
//!
//! Needs a CUDA GPU (`KOSMOS_DEVICE`, default the first GPU); elsewhere it says so and exits
//! with code 2. Prints a table, writes JSON to `KOSMOS_BENCH_JSON` when set;
//! `KOSMOS_BENCH_SHAPE` keeps the cases whose name contains it; `KOSMOS_BENCH_TOKENS` (a
//! comma-separated list, default 8192) sweeps the tokens, the GEMMs' `m`; `KOSMOS_BENCH_RANKS`
//! (world sizes among 1, 2, 4 and 8, comma-separated; `1,8` the default) the parts to run.
//! Each op runs `WARMUP` times, then `TIMED` times between events on the world's stream;
//! medians are reported.
//! The "queued" columns time the fused op and its baseline (our gemm, the unfused sequence)
//! over calls queued back to back instead (`gemm::queued_ms`): the device's time, without
//! the host's launch work that a single call between two events also counts.
//! Before timing, every fused result is compared with the unfused one (relative to the
//! largest magnitude); a mismatch exits with code 1.

use half::bf16;
use kernels::{Layout, Ops, TpOps, TpOutput, ops};
use kosmos_bench::Result;
use kosmos_bench::cublas::{Cublas, GemmArgs, OutType};
use kosmos_bench::gemm::{self, Shape};
use kosmos_bench::report::{self, Field};
use kosmos_runtime::{
    Device, DeviceKind, Module, SymmetricBuffer, World, WorldOptions, copy_range_from_peer,
};
use std::process::ExitCode;

/// Largest difference between a fused result and the unfused one, relative to the largest
/// magnitude: both sum the same bf16 products in f32, in different orders.
const TOLERANCE: f64 = 1e-3;

#[derive(Copy, Clone, Debug, PartialEq)]
enum Op {
    AgGemm,
    GemmRs,
    GemmAr,
}

/// A fused op at the per-rank GEMM it runs (`m` rows over all ranks).
#[derive(Copy, Clone)]
struct Case {
    name: &'static str,
    op: Op,
    shape: Shape,
}

const fn case(name: &'static str, op: Op, m: usize, n: usize, k: usize) -> Case {
    Case {
        name,
        op,
        shape: Shape { name, m, n, k },
    }
}

/// Llama-3-70B's tensor-parallel GEMMs of one rank at `tp`-way tensor parallelism over
/// `tokens` tokens (hidden 8192; QKV 10240 columns, 64 query and 8 key/value heads of 128;
/// FFN 28672, gate and up): QKV and FC1 take the gathered input and split their columns, out-proj
/// and FC2 split their reduction and produce partial sums (reduce-scattered with sequence
/// parallelism, all-reduced without). At TP=8: `n` 1280 and 7168, `k` 1024 and 3584.
fn cases(tp: usize, tokens: usize) -> [Case; 5] {
    const HIDDEN: usize = 8192;
    const QKV: usize = 10240;
    const FFN: usize = 28672;
    [
        case("qkv ag_gemm", Op::AgGemm, tokens, QKV / tp, HIDDEN),
        case("fc1 ag_gemm", Op::AgGemm, tokens, 2 * FFN / tp, HIDDEN),
        case("out-proj gemm_rs", Op::GemmRs, tokens, HIDDEN, HIDDEN / tp),
        case("fc2 gemm_rs", Op::GemmRs, tokens, HIDDEN, FFN / tp),
        case("fc2 gemm_ar", Op::GemmAr, tokens, HIDDEN, FFN / tp),
    ]
}

/// The tensor parallelism of parts 1 and 2's per-rank shapes.
const TP: usize = 8;

/// One case's buffers on a world: inputs, weights, the fused result and the unfused one.
struct Buffers {
    x: SymmetricBuffer<bf16>,
    w: SymmetricBuffer<bf16>,
    y: SymmetricBuffer<f32>,
    unfused: SymmetricBuffer<f32>,
    /// The unfused reduce-scatter's partial products (`m x n` f32 per rank).
    partial: SymmetricBuffer<f32>,
    /// The unfused all-reduce's reduce-scattered rows (`m / ranks x n`).
    reduced: SymmetricBuffer<f32>,
}

fn random(seed: u64, len: usize) -> Vec<bf16> {
    kosmos_testkernels::random_bf16(seed, len)
        .into_iter()
        .map(|v| bf16::from_bits(v.to_bits()))
        .collect()
}

impl Buffers {
    fn new(world: &mut World, c: Case) -> Result<Buffers> {
        let Shape { m, n, k, .. } = c.shape;
        let ranks = world.ranks() as usize;
        let y_len = if c.op == Op::GemmRs {
            m / ranks * n
        } else {
            m * n
        };
        let b = Buffers {
            x: world.alloc_symmetric(m * k)?,
            w: world.alloc_symmetric(k * n)?,
            y: world.alloc_symmetric(y_len)?,
            unfused: world.alloc_symmetric(y_len)?,
            partial: world.alloc_symmetric(if c.op == Op::AgGemm { 1 } else { m * n })?,
            reduced: world.alloc_symmetric(if c.op == Op::GemmAr { m / ranks * n } else { 1 })?,
        };
        for r in 0..ranks {
            // For the all-gather every rank's copy of `x` holds the whole input: the op
            // overwrites the peers' rows with the same values.
            let seed = if c.op == Op::AgGemm { 0 } else { r as u64 };
            b.x.ranks()[r].upload(&random(seed, m * k))?;
            b.w.ranks()[r].upload(&random(100 + r as u64, k * n))?;
        }
        Ok(b)
    }
}

/// Queues the fused op of `c` on `world`.
fn fused(tp: &mut TpOps, world: &mut World, c: Case, b: &Buffers) -> Result<()> {
    fused_into(tp, world, c, &b.x, &b.w, (&b.y).into())
}

/// Queues the fused op of `c` on `world`, its result into `y` (f32 or bf16).
fn fused_into(
    tp: &mut TpOps,
    world: &mut World,
    c: Case,
    x: &SymmetricBuffer<bf16>,
    w: &SymmetricBuffer<bf16>,
    y: TpOutput<'_>,
) -> Result<()> {
    let Shape { m, n, k, .. } = c.shape;
    match c.op {
        Op::AgGemm => tp.ag_gemm(world, x, w, Layout::N, y, m, n, k)?,
        Op::GemmRs => tp.gemm_rs(world, x, w, Layout::N, y, m, n, k)?,
        Op::GemmAr => tp.gemm_ar(world, x, w, y, m, n, k)?,
    }
    Ok(())
}

/// The unfused sequence of `c` on `world` (emulated on one device, so on one stream):
/// all-gather by driver peer copies then a gemm per rank, or a gemm per rank then the
/// reduce-scatter kernel (for the all-reduce, followed by peer copies of the reduced rows).
fn unfused(
    local: &Ops,
    modules: &[Module],
    world: &mut World,
    c: Case,
    b: &mut Buffers,
) -> Result<()> {
    let Shape { m, n, k, .. } = c.shape;
    let ranks = world.ranks() as usize;
    let shard = m / ranks;
    {
        let stream = world.rank_stream(0).expect("rank 0");
        if c.op == Op::AgGemm {
            for r in 0..ranks {
                for s in (0..ranks).filter(|&s| s != r) {
                    let (to, from, at) = (&b.x.ranks()[r], &b.x.ranks()[s], s * shard * k);
                    copy_range_from_peer(stream, to, at, from, at, shard * k)?;
                }
            }
        }
        let out = if c.op == Op::AgGemm {
            &mut b.unfused
        } else {
            &mut b.partial
        };
        for r in 0..ranks {
            let (x, w) = (&b.x.ranks()[r], &b.w.ranks()[r]);
            let plan = local.gemm_plan(x, Layout::N, w, Layout::N, m, n, k)?;
            plan.launch(stream, &mut out.ranks_mut()[r])?;
        }
    }
    if c.op == Op::AgGemm {
        return Ok(());
    }
    let per_rank = world.persistent_workgroups(modules, "reduce_scatter_rows", 256)?;
    let reduced = if c.op == Op::GemmRs {
        &b.unfused
    } else {
        &b.reduced
    };
    let (shard_u, n_u) = (shard as u32, n as u32);
    let partial = &b.partial;
    ops::reduce_scatter_rows::launch(
        world, modules, per_rank, 256, partial, reduced, shard_u, n_u, per_rank,
    )?;
    if c.op == Op::GemmAr {
        let stream = world.rank_stream(0).expect("rank 0");
        for r in 0..ranks {
            for s in 0..ranks {
                let (to, from) = (&b.unfused.ranks()[r], &b.reduced.ranks()[s]);
                copy_range_from_peer(stream, to, s * shard * n, from, 0, shard * n)?;
            }
        }
    }
    Ok(())
}

/// Largest difference of `got` from `want`, relative to `want`'s largest magnitude.
fn rel_diff(got: &[f32], want: &[f32]) -> f64 {
    let scale = want
        .iter()
        .fold(0f64, |m, &v| m.max(f64::from(v).abs()))
        .max(1e-30);
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            if g.is_nan() {
                f64::INFINITY
            } else {
                (f64::from(g) - f64::from(w)).abs() / scale
            }
        })
        .fold(0.0, f64::max)
}

/// Part 2's figures of one case: milliseconds of one call between its own events and of a
/// call queued behind others ([`gemm::queued_ms`]), and the largest difference of the fused
/// result from the unfused one.
struct Emulated {
    fused_ms: f64,
    unfused_ms: f64,
    fused_queued_ms: f64,
    unfused_queued_ms: f64,
    diff: f64,
}

/// Part 2 of one case: the fused op on an emulated world of `ranks` against the unfused
/// sequence.
fn emulated_case(device: &Device, ranks: u32, c: Case) -> Result<Emulated> {
    let mut world = World::emulated(device, ranks, WorldOptions::default())?;
    let mut tp = TpOps::new(&world)?;
    let local = Ops::new(device)?;
    let modules = world.load_module(&kernels::KERNELS.image()?)?;
    let mut b = Buffers::new(&mut world, c)?;
    for out in [&b.y, &b.unfused] {
        for r in out.ranks() {
            r.fill(f32::NAN)?;
        }
    }
    fused(&mut tp, &mut world, c, &b)?;
    unfused(&local, &modules, &mut world, c, &mut b)?;
    world.synchronize()?;
    let mut diff = 0f64;
    for r in 0..ranks as usize {
        diff = diff.max(rel_diff(
            &b.y.ranks()[r].download()?,
            &b.unfused.ranks()[r].download()?,
        ));
    }
    let fused_ms = gemm::world_median_ms(&mut world, |w| fused(&mut tp, w, c, &b))?;
    let unfused_ms =
        gemm::world_median_ms(&mut world, |w| unfused(&local, &modules, w, c, &mut b))?;
    let fused_queued_ms = gemm::queued_ms(|runs| {
        gemm::world_trial_ms(&mut world, runs, |w| fused(&mut tp, w, c, &b))
    })?;
    let unfused_queued_ms = gemm::queued_ms(|runs| {
        gemm::world_trial_ms(&mut world, runs, |w| {
            unfused(&local, &modules, w, c, &mut b)
        })
    })?;
    Ok(Emulated {
        fused_ms,
        unfused_ms,
        fused_queued_ms,
        unfused_queued_ms,
        diff,
    })
}

/// Part 1's figures of one case: milliseconds of one call between its own events, of a
/// call queued behind others ([`gemm::queued_ms`]: the fused op and our gemm), and the
/// largest difference of the fused result from cuBLAS's.
struct Single {
    fused_ms: f64,
    gemm_ms: f64,
    group_ms: f64,
    cublas_ms: f64,
    fused_queued_ms: f64,
    gemm_queued_ms: f64,
    diff: f64,
}

/// Part 1 of one case on a world of one rank.
fn single_case(device: &Device, cublas: &Cublas, c: Case) -> Result<Single> {
    let Shape { m, n, k, .. } = c.shape;
    let mut world = World::emulated(device, 1, WorldOptions::default())?;
    let mut tp = TpOps::new(&world)?;
    let local = Ops::new(device)?;
    let b = Buffers::new(&mut world, c)?;
    let stream = device.stream()?;
    let (x, w) = (&b.x.ranks()[0], &b.w.ranks()[0]);
    b.y.ranks()[0].fill(f32::NAN)?;
    fused(&mut tp, &mut world, c, &b)?;
    world.synchronize()?;
    let got = b.y.ranks()[0].download()?;
    let mut theirs = device.alloc::<f32>(m * n)?;
    let args = GemmArgs {
        a: x.device_ptr(),
        b: w.device_ptr(),
        c: theirs.device_ptr(),
        m,
        n,
        k,
        a_t: false,
        b_t: false,
        out: OutType::F32,
    };
    theirs.fill(f32::NAN)?;
    cublas.gemm(args)?;
    cublas.synchronize()?;
    let diff = rel_diff(&got, &theirs.download()?);
    let fused_ms = gemm::world_median_ms(&mut world, |w| fused(&mut tp, w, c, &b))?;
    let plan = local.gemm_plan(x, Layout::N, w, Layout::N, m, n, k)?;
    let on_stream = |f: &mut dyn FnMut() -> Result<()>| gemm::time_on(&stream, f);
    let gemm_ms = gemm::median_ms(on_stream, |_| Ok(plan.launch(&stream, &mut theirs)?))?;
    let mut counters = (0..gemm::WARMUP + gemm::TIMED)
        .map(|_| {
            let counter = device.alloc::<u32>(1)?;
            counter.fill(0)?;
            Ok(counter)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut runs = counters.iter_mut();
    let group_ms = gemm::median_ms(on_stream, |_| {
        let counter = runs.next().expect("a counter per run");
        local.gemm_persistent_with_counter(&stream, x, w, &mut theirs, counter, m, n, k)?;
        Ok(())
    })?;
    let cublas_ms = gemm::median_ms(|f| cublas.time(f), |_| cublas.gemm(args))?;
    let fused_queued_ms = gemm::queued_ms(|runs| {
        gemm::world_trial_ms(&mut world, runs, |w| fused(&mut tp, w, c, &b))
    })?;
    let gemm_queued_ms = gemm::queued_ms(|runs| {
        gemm::time_on(&stream, &mut || {
            for _ in 0..runs {
                plan.launch(&stream, &mut theirs)?;
            }
            Ok(())
        })
    })?;
    stream.synchronize()?;
    Ok(Single {
        fused_ms,
        gemm_ms,
        group_ms,
        cublas_ms,
        fused_queued_ms,
        gemm_queued_ms,
        diff,
    })
}

/// Part 3 (`KOSMOS_BENCH_GPUS=N`, N >= 2, instead of parts 1 and 2): one rank per GPU
/// (`World::multi_gpu`), bf16 output as the baselines give. The result is first compared
/// with the same op on `gpus` ranks emulated on GPU 0: the kernels sum in fixed orders, so
/// the two must be bitwise equal (`Ok(None)` where they are not). Then the median over runs
/// of the slowest GPU's launch time. The baselines (NCCL + cuBLAS and PyTorch's async-TP
/// through torch) are measured by `bench/tp_torch.py`; `bench/tp_multi_gpu.sh` runs both
/// and sets them side by side.
fn multi_gpu_case(gpus: usize, c: Case) -> Result<Option<f64>> {
    let devices = (0..gpus).map(Device::cuda).collect::<Result<Vec<_>, _>>()?;
    let results = |world: &mut World| -> Result<(TpOps, Buffers, SymmetricBuffer<bf16>)> {
        let mut tp = TpOps::new(world)?;
        let b = Buffers::new(world, c)?;
        let y = world.alloc_symmetric::<bf16>(b.y.len())?;
        for r in y.ranks() {
            r.fill(bf16::NAN)?;
        }
        fused_into(&mut tp, world, c, &b.x, &b.w, (&y).into())?;
        world.synchronize()?;
        Ok((tp, b, y))
    };
    let want = {
        let mut emulated = World::emulated(&devices[0], gpus as u32, WorldOptions::default())?;
        let (_, _, y) = results(&mut emulated)?;
        y.ranks()
            .iter()
            .map(|r| r.download())
            .collect::<Result<Vec<_>, _>>()?
    };
    let timed = WorldOptions {
        time_launches: true,
        ..WorldOptions::default()
    };
    let mut world = World::multi_gpu(&devices, timed)?;
    let (mut tp, b, y) = results(&mut world)?;
    for (r, want) in want.iter().enumerate() {
        let got = y.ranks()[r].download()?;
        if got
            .iter()
            .zip(want)
            .any(|(g, w)| g.to_bits() != w.to_bits())
        {
            eprintln!(
                "tp: {} (m = {}) on {gpus} GPUs: rank {r}'s result differs from the emulated world's",
                c.name, c.shape.m
            );
            return Ok(None);
        }
    }
    let mut ms = Vec::with_capacity(gemm::TIMED);
    for i in 0..gemm::WARMUP + gemm::TIMED {
        fused_into(&mut tp, &mut world, c, &b.x, &b.w, (&y).into())?;
        world.synchronize()?;
        if i >= gemm::WARMUP {
            ms.push(gemm::slowest_launch_ms(&world)?);
        }
    }
    ms.sort_by(f64::total_cmp);
    Ok(Some(ms[ms.len() / 2]))
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tp: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    let device = Device::from_env()?;
    if device.kind() != DeviceKind::Cuda {
        eprintln!("tp: needs a CUDA GPU (KOSMOS_DEVICE), found {device}");
        return Ok(ExitCode::from(2));
    }
    let cublas = Cublas::new(device.ordinal())?;
    let filter = std::env::var("KOSMOS_BENCH_SHAPE").unwrap_or_default();
    let tokens = match std::env::var("KOSMOS_BENCH_TOKENS") {
        Ok(list) => list
            .split(',')
            .map(|t| t.trim().parse::<usize>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| kosmos_bench::BenchError::Invalid {
                what: "KOSMOS_BENCH_TOKENS".into(),
                detail: format!("{list:?} is not a list of token counts: {e}"),
            })?,
        Err(_) => vec![8192],
    };
    let cases_at = |tp: usize| -> Vec<Case> {
        tokens
            .iter()
            .flat_map(|&t| cases(tp, t))
            .filter(|c| c.name.contains(&filter))
            .collect()
    };
    let tflops = |c: &Case, ms: f64| c.shape.flops() / (ms * 1e-3) / 1e12;
    if let Some(gpus) = std::env::var("KOSMOS_BENCH_GPUS")
        .ok()
        .and_then(|g| g.parse().ok())
    {
        return multi_gpu(gpus, &cases_at(gpus));
    }
    let worlds = std::env::var("KOSMOS_BENCH_RANKS").unwrap_or_else(|_| "1,8".into());
    let parts: Vec<u32> = worlds
        .split(',')
        .map(|p| p.trim().parse().ok().filter(|r| [1, 2, 4, 8].contains(r)))
        .collect::<Option<_>>()
        .ok_or_else(|| kosmos_bench::BenchError::Invalid {
            what: "KOSMOS_BENCH_RANKS".into(),
            detail: format!("{worlds:?}: world sizes among 1, 2, 4 and 8"),
        })?;
    let cases = cases_at(TP);
    let (mut table, mut json, mut wrong) = (Vec::new(), Vec::new(), false);
    for c in cases.iter().filter(|_| parts.contains(&1)) {
        let f = single_case(&device, &cublas, *c)?;
        wrong |= f.diff > TOLERANCE;
        table.push(vec![
            c.name.to_string(),
            c.shape.m.to_string(),
            "1".into(),
            format!("{:.1}", tflops(c, f.fused_ms)),
            format!("{:.3}", f.gemm_ms / f.fused_ms),
            format!("{:.3}", f.gemm_queued_ms / f.fused_queued_ms),
            format!("{:.3}", f.group_ms / f.fused_ms),
            format!("{:.3}", f.cublas_ms / f.fused_ms),
            "-".into(),
            "-".into(),
            format!("{:.1e}", f.diff),
        ]);
        json.push(report::object(&[
            ("case", Field::Str(c.name.into())),
            ("m", Field::Int(c.shape.m as u64)),
            ("ranks", Field::Int(1)),
            ("fused_ms", Field::Num(f.fused_ms)),
            ("gemm_ms", Field::Num(f.gemm_ms)),
            ("group_gemm_ms", Field::Num(f.group_ms)),
            ("cublas_ms", Field::Num(f.cublas_ms)),
            ("fused_queued_ms", Field::Num(f.fused_queued_ms)),
            ("gemm_queued_ms", Field::Num(f.gemm_queued_ms)),
            ("max_rel_diff", Field::Num(f.diff)),
        ]));
    }
    let emulated = parts.iter().filter(|&&r| r > 1);
    for (ranks, c) in emulated.flat_map(|&r| cases.iter().map(move |c| (r, c))) {
        let f = emulated_case(&device, ranks, *c)?;
        wrong |= f.diff > TOLERANCE;
        // Every rank runs the per-rank GEMM on the one GPU.
        let all = Case {
            shape: Shape {
                m: c.shape.m * ranks as usize,
                ..c.shape
            },
            ..*c
        };
        table.push(vec![
            c.name.to_string(),
            c.shape.m.to_string(),
            ranks.to_string(),
            format!("{:.1}", tflops(&all, f.fused_ms)),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            format!("{:.3}", f.unfused_ms / f.fused_ms),
            format!("{:.3}", f.unfused_queued_ms / f.fused_queued_ms),
            format!("{:.1e}", f.diff),
        ]);
        json.push(report::object(&[
            ("case", Field::Str(c.name.into())),
            ("m", Field::Int(c.shape.m as u64)),
            ("ranks", Field::Int(ranks.into())),
            ("fused_ms", Field::Num(f.fused_ms)),
            ("unfused_ms", Field::Num(f.unfused_ms)),
            ("fused_queued_ms", Field::Num(f.fused_queued_ms)),
            ("unfused_queued_ms", Field::Num(f.unfused_queued_ms)),
            ("max_rel_diff", Field::Num(f.diff)),
        ]));
    }
    println!(
        "{}",
        report::table(
            &[
                "case",
                "m",
                "ranks",
                "fused TF/s",
                "vs our gemm",
                "queued",
                "vs group gemm",
                "vs cuBLAS",
                "vs unfused",
                "queued",
                "max rel diff"
            ],
            &table,
        )
    );
    println!(
        "(ratios: the baseline's time / the fused op's time; > 1: the fused op is faster; \
         \"queued\": both timed over {} calls queued back to back)",
        gemm::QUEUED
    );
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        std::fs::write(
            path,
            report::document(&[("bench", Field::Str("tp".into()))], &json),
        )?;
    }
    Ok(if wrong {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Part 3: every case on `gpus` GPUs, a rank each.
fn multi_gpu(gpus: usize, cases: &[Case]) -> Result<ExitCode> {
    let (mut table, mut json, mut wrong) = (Vec::new(), Vec::new(), false);
    for c in cases {
        let Some(ms) = multi_gpu_case(gpus, *c)? else {
            wrong = true;
            continue;
        };
        let tflops = c.shape.flops() * gpus as f64 / (ms * 1e-3) / 1e12;
        table.push(vec![
            c.name.to_string(),
            c.shape.m.to_string(),
            gpus.to_string(),
            format!("{ms:.3}"),
            format!("{tflops:.1}"),
        ]);
        json.push(report::object(&[
            ("case", Field::Str(c.name.into())),
            ("ranks", Field::Int(gpus as u64)),
            ("m", Field::Int(c.shape.m as u64)),
            ("n", Field::Int(c.shape.n as u64)),
            ("k", Field::Int(c.shape.k as u64)),
            ("fused_ms", Field::Num(ms)),
        ]));
    }
    println!(
        "{}",
        report::table(
            &["case", "m", "GPUs", "fused ms", "fused TF/s (all GPUs)"],
            &table
        )
    );
    println!("(bf16 output; every result bitwise equal to the same op on emulated ranks)");
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let header = [("bench", Field::Str("tp multi-gpu".into()))];
        std::fs::write(path, report::document(&header, &json))?;
    }
    Ok(if wrong {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
