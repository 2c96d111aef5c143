//! bf16 GEMM (f32 accumulation): the kernels crate's pipelined gemm (`kernels::GemmPlan`:
//! a warp-specialised persistent kernel fed by tensor copies) and its group gemm on a
//! persistent grid (`gemm_persistent`: as many workgroups as can be resident, pulling tiles
//! from a counter) against cuBLAS `cublasGemmEx` in the same process, on the square 8192^3
//! shape and the four Llama-3-70B TP=8 shapes.
//!
//! Needs a CUDA GPU (`KOSMOS_DEVICE`, default the first GPU); on another device it says so
//! and exits with code 2. Prints a table, writes JSON to `KOSMOS_BENCH_JSON` when set.
//! `KOSMOS_BENCH_SEED` fixes the inputs' seed; `KOSMOS_BENCH_SHAPE` keeps the shapes whose
//! name contains it. Exits with code 1 when a checked result is wrong.
//!
//! Each implementation runs `WARMUP` times, then `TIMED` times between CUDA events; the
//! median is reported. Runs cycle through operand sets of at least `ROTATION_BYTES` in all,
//! so the inputs do not stay in L2 between runs. Correctness: 16 rows spread over M, all
//! columns, against an f64 host reference, output poisoned with NaN before the checked run.

use half::bf16;
use kernels::Layout;
use kosmos_bench::Result;
use kosmos_bench::cublas::{Cublas, GemmArgs, OutType};
use kosmos_bench::gemm::{self, Operands, Ours, SHAPES, Shape};
use kosmos_bench::report::{self, Field};
use kosmos_runtime::{Device, DeviceKind};
use std::process::ExitCode;

/// Largest relative error (to the largest reference magnitude) accepted from an f32 result;
/// a wrong tile or a missed K-step is off by O(1).
const F32_TOLERANCE: f64 = 1e-3;
/// The same for cuBLAS's bf16 output (rounded to 8 significant bits).
const BF16_TOLERANCE: f64 = 1e-2;

struct Row {
    shape: Shape,
    ours_ms: f64,
    ours_bf16_ms: f64,
    persistent_ms: f64,
    cublas_ms: f64,
    cublas_bf16_ms: f64,
    ours_err: f64,
    ours_bf16_err: f64,
    persistent_err: f64,
    cublas_err: f64,
    cublas_bf16_err: f64,
}

impl Row {
    fn tflops(&self, ms: f64) -> f64 {
        self.shape.flops() / (ms * 1e-3) / 1e12
    }
}

fn bench_shape(
    device: &Device,
    ours: &Ours<'_>,
    cublas: &Cublas,
    shape: Shape,
    seed: u64,
) -> Result<Row> {
    let ops = Operands::new(device, shape, seed)?;
    let mut c = device.alloc::<f32>(shape.m * shape.n)?;
    let c16 = device.alloc::<bf16>(shape.m * shape.n)?;
    let set = |i: usize| &ops.sets[i % ops.sets.len()];
    let rows = gemm::sample_rows(shape.m);
    let want = gemm::reference_rows(&ops.host_a, &ops.host_b, shape, &rows);

    // The pipeline: a plan per operand set (tensor maps encoded before timing); a checked
    // run on set 0, then timing.
    let plans = ops
        .sets
        .iter()
        .map(|(a, b)| ours.plan(shape, a, b, (Layout::N, Layout::N)))
        .collect::<Result<Vec<_>>>()?;
    // f32 output, then bf16 output: a checked run on set 0 over a poisoned output, then
    // timing.
    let mut ours16 = device.alloc::<bf16>(shape.m * shape.n)?;
    let (ours_err, ours_ms) =
        time_plans(&plans, ours.stream, shape, &mut c, f32::NAN, &rows, &want)?;
    let (ours_bf16_err, ours_bf16_ms) = time_plans(
        &plans,
        ours.stream,
        shape,
        &mut ours16,
        bf16::NAN,
        &rows,
        &want,
    )?;

    // Persistent: one zeroed tile counter per run (the checked one last), allocated and
    // zeroed before timing, so that runs time the kernel alone.
    let mut counters = (0..=gemm::WARMUP + gemm::TIMED)
        .map(|_| {
            let counter = device.alloc::<u32>(1)?;
            counter.fill(0)?;
            Ok(counter)
        })
        .collect::<Result<Vec<_>>>()?;
    let (checked, timed) = counters.split_last_mut().expect("counters");
    c.fill(f32::NAN)?;
    ours.launch_persistent(shape, &ops.sets[0].0, &ops.sets[0].1, &mut c, checked)?;
    device.synchronize()?;
    let persistent_err = gemm::max_rel_err(&c.download()?, shape, &rows, &want);
    let persistent_ms = gemm::median_ms(
        |f| gemm::time_on(ours.stream, f),
        |i| ours.launch_persistent(shape, &set(i).0, &set(i).1, &mut c, &mut timed[i]),
    )?;
    device.synchronize()?;

    // cuBLAS, f32 output (what ours writes) and bf16 output (the usual training case).
    let args = |i: usize, out: OutType| GemmArgs {
        a: set(i).0.device_ptr(),
        b: set(i).1.device_ptr(),
        c: match out {
            OutType::F32 => c.device_ptr(),
            OutType::Bf16 => c16.device_ptr(),
        },
        m: shape.m,
        n: shape.n,
        k: shape.k,
        a_t: false,
        b_t: false,
        out,
    };
    c.fill(f32::NAN)?;
    c16.fill(bf16::NAN)?;
    cublas.gemm(args(0, OutType::F32))?;
    cublas.gemm(args(0, OutType::Bf16))?;
    cublas.synchronize()?;
    let cublas_err = gemm::max_rel_err(&c.download()?, shape, &rows, &want);
    let cublas_bf16_err = gemm::max_rel_err(&c16.download()?, shape, &rows, &want);
    let cublas_ms = gemm::median_ms(|f| cublas.time(f), |i| cublas.gemm(args(i, OutType::F32)))?;
    let cublas_bf16_ms =
        gemm::median_ms(|f| cublas.time(f), |i| cublas.gemm(args(i, OutType::Bf16)))?;
    cublas.synchronize()?;
    Ok(Row {
        shape,
        ours_ms,
        ours_bf16_ms,
        persistent_ms,
        cublas_ms,
        cublas_bf16_ms,
        ours_err,
        ours_bf16_err,
        persistent_err,
        cublas_err,
        cublas_bf16_err,
    })
}

/// One transposed layout of the FC1 shape: ours (f32 output) and cuBLAS with the same
/// transposes, on the same operands (read as stored transposed).
struct LayoutRow {
    layouts: (Layout, Layout),
    ours_ms: f64,
    cublas_ms: f64,
    /// Largest difference of ours from cuBLAS over the sampled rows, relative to cuBLAS's
    /// largest magnitude there.
    diff: f64,
}

fn bench_layout(
    ops: &Operands,
    ours: &Ours<'_>,
    cublas: &Cublas,
    layouts: (Layout, Layout),
    c: &mut kosmos_runtime::Buffer<f32>,
) -> Result<LayoutRow> {
    let shape = ops.shape;
    let set = |i: usize| &ops.sets[i % ops.sets.len()];
    let rows = gemm::sample_rows(shape.m);
    let args = |i: usize, c: u64| GemmArgs {
        a: set(i).0.device_ptr(),
        b: set(i).1.device_ptr(),
        c,
        m: shape.m,
        n: shape.n,
        k: shape.k,
        a_t: layouts.0 == Layout::T,
        b_t: layouts.1 == Layout::T,
        out: OutType::F32,
    };
    c.fill(f32::NAN)?;
    cublas.gemm(args(0, c.device_ptr()))?;
    cublas.synchronize()?;
    let theirs = c.download()?;
    let want: Vec<Vec<f64>> = rows
        .iter()
        .map(|&r| {
            theirs[r * shape.n..(r + 1) * shape.n]
                .iter()
                .map(|x| f64::from(*x))
                .collect()
        })
        .collect();
    let cublas_ms = gemm::median_ms(|f| cublas.time(f), |i| cublas.gemm(args(i, c.device_ptr())))?;
    cublas.synchronize()?;

    let plans = ops
        .sets
        .iter()
        .map(|(a, b)| ours.plan(shape, a, b, layouts))
        .collect::<Result<Vec<_>>>()?;
    c.fill(f32::NAN)?;
    plans[0].launch(ours.stream, &mut *c)?;
    ours.stream.synchronize()?;
    let diff = gemm::max_rel_err(&c.download()?, shape, &rows, &want);
    let ours_ms = gemm::median_ms(
        |f| gemm::time_on(ours.stream, f),
        |i| Ok(plans[i % plans.len()].launch(ours.stream, &mut *c)?),
    )?;
    ours.stream.synchronize()?;
    Ok(LayoutRow {
        layouts,
        ours_ms,
        cublas_ms,
        diff,
    })
}

/// Shapes checked and reported beside the standard ones: odd sizes (no tensor maps: the
/// any-shape gemm), a small cube and a short K.
const ODD_SHAPES: [Shape; 3] = [
    Shape {
        name: "odd 8191^3",
        m: 8191,
        n: 8191,
        k: 8191,
    },
    Shape {
        name: "cube 1000^3",
        m: 1000,
        n: 1000,
        k: 1000,
    },
    Shape {
        name: "short k=72",
        m: 8192,
        n: 8192,
        k: 72,
    },
];

/// An odd shape: ours through `Ops::gemm_plan` where the pipeline takes it, else `Ops::gemm`
/// (which waits for its kernel); f32 output, checked against the f64 reference.
/// Returns (path, ours ms, cuBLAS ms, ours error).
fn bench_odd(
    device: &Device,
    ours: &Ours<'_>,
    cublas: &Cublas,
    shape: Shape,
    seed: u64,
) -> Result<(&'static str, f64, f64, f64)> {
    let ops = Operands::new(device, shape, seed)?;
    let set = |i: usize| &ops.sets[i % ops.sets.len()];
    let rows = gemm::sample_rows(shape.m);
    let want = gemm::reference_rows(&ops.host_a, &ops.host_b, shape, &rows);
    let mut c = device.alloc::<f32>(shape.m * shape.n)?;
    let Shape { m, n, k, .. } = shape;
    let plans: Option<Vec<_>> = ops
        .sets
        .iter()
        .map(|(a, b)| ours.plan(shape, a, b, (Layout::N, Layout::N)).ok())
        .collect();
    let run = |i: usize, c: &mut kosmos_runtime::Buffer<f32>| -> Result<()> {
        match &plans {
            Some(p) => p[i % p.len()].launch(ours.stream, c)?,
            None => ours
                .ops
                .gemm(ours.stream, &set(i).0, &set(i).1, c, m, n, k)?,
        }
        Ok(())
    };
    c.fill(f32::NAN)?;
    run(0, &mut c)?;
    device.synchronize()?;
    let err = gemm::max_rel_err(&c.download()?, shape, &rows, &want);
    let ours_ms = gemm::median_ms(|f| gemm::time_on(ours.stream, f), |i| run(i, &mut c))?;
    device.synchronize()?;
    let args = |i: usize| GemmArgs {
        a: set(i).0.device_ptr(),
        b: set(i).1.device_ptr(),
        c: c.device_ptr(),
        m,
        n,
        k,
        a_t: false,
        b_t: false,
        out: OutType::F32,
    };
    let cublas_ms = gemm::median_ms(|f| cublas.time(f), |i| cublas.gemm(args(i)))?;
    cublas.synchronize()?;
    let path = if plans.is_some() {
        "pipeline"
    } else {
        "gemm (any shape)"
    };
    Ok((path, ours_ms, cublas_ms, err))
}

/// Runs `plans[0]` into `c` poisoned with `poison` and returns its error against `want`
/// (the reference of `rows` of `shape`) and the median time of the plans in turn.
fn time_plans<T>(
    plans: &[kernels::GemmPlan<'_>],
    stream: &kosmos_runtime::Stream,
    shape: Shape,
    c: &mut kosmos_runtime::Buffer<T>,
    poison: T,
    rows: &[usize],
    want: &[Vec<f64>],
) -> Result<(f64, f64)>
where
    T: kosmos_runtime::DeviceScalar + Copy + Into<f64>,
    for<'c> &'c mut kosmos_runtime::Buffer<T>: Into<kernels::GemmOutput<'c>>,
{
    c.fill(poison)?;
    plans[0].launch(stream, &mut *c)?;
    stream.synchronize()?;
    let err = gemm::max_rel_err(&c.download()?, shape, rows, want);
    let ms = gemm::median_ms(
        |f| gemm::time_on(stream, f),
        |i| Ok(plans[i % plans.len()].launch(stream, &mut *c)?),
    )?;
    stream.synchronize()?;
    Ok((err, ms))
}

fn run() -> Result<ExitCode> {
    let device = Device::from_env()?;
    if device.kind() != DeviceKind::Cuda {
        eprintln!(
            "the GEMM benchmark needs a CUDA GPU (cuBLAS is its baseline); the device is \
             {device}. Run it where a GPU is present, or set KOSMOS_DEVICE=cuda:N."
        );
        return Ok(ExitCode::from(2));
    }
    let seed: u64 = match std::env::var("KOSMOS_BENCH_SEED") {
        Ok(s) => s.parse().map_err(|_| kosmos_bench::BenchError::Invalid {
            what: "KOSMOS_BENCH_SEED".into(),
            detail: format!("{s:?} is not a u64"),
        })?,
        Err(_) => rand::random(),
    };
    let filter = std::env::var("KOSMOS_BENCH_SHAPE").unwrap_or_default();
    let kernel_ops = kernels::Ops::new(&device)?;
    let stream = device.stream()?;
    let ours = Ours {
        ops: &kernel_ops,
        stream: &stream,
    };
    let cublas = Cublas::new(device.ordinal())?;
    println!(
        "device: {device} ({}); seed {seed}; median of {} runs after {} warm-up; operands \
         rotated over >= {} MiB",
        device.name(),
        gemm::TIMED,
        gemm::WARMUP,
        gemm::ROTATION_BYTES >> 20
    );

    let mut rows = Vec::new();
    for shape in SHAPES.iter().filter(|s| s.name.contains(&filter)) {
        let row = bench_shape(&device, &ours, &cublas, *shape, seed)?;
        println!(
            "  {}: pipeline {:.3} ms, group {:.3} ms, cuBLAS {:.3} ms",
            shape.name, row.ours_ms, row.persistent_ms, row.cublas_ms
        );
        rows.push(row);
    }

    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let s = r.shape;
            vec![
                s.name.to_string(),
                format!("{}x{}x{}", s.m, s.n, s.k),
                format!("{:.1}", r.tflops(r.ours_ms)),
                format!("{:.1}", r.tflops(r.cublas_ms)),
                format!("{:.3}", r.cublas_ms / r.ours_ms),
                format!("{:.1}", r.tflops(r.persistent_ms)),
                format!("{:.3}", r.cublas_ms / r.persistent_ms),
                format!("{:.1}", r.tflops(r.ours_bf16_ms)),
                format!("{:.1}", r.tflops(r.cublas_bf16_ms)),
                format!("{:.3}", r.cublas_bf16_ms / r.ours_bf16_ms),
                format!("{:.1e}", r.ours_err),
                format!("{:.1e}", r.persistent_err),
                format!("{:.1e}", r.cublas_err),
            ]
        })
        .collect();
    print!(
        "{}",
        report::table(
            &[
                "shape",
                "MxNxK",
                "pipeline TF/s",
                "cuBLAS TF/s",
                "ratio",
                "group TF/s",
                "ratio",
                "pipeline-bf16out TF/s",
                "cuBLAS-bf16out TF/s",
                "ratio",
                "pipeline err",
                "group err",
                "cuBLAS err",
            ],
            &cells
        )
    );
    println!(
        "TF/s = 2MNK / median time; ratio = ours (pipeline, then group) / cuBLAS \
         throughput (f32 output unless noted; bf16 output against cuBLAS's bf16 output)"
    );

    // The transposed layouts at the FC1 shape (training's dX = dY W^T and dW = X^T dY).
    let fc1 = SHAPES[3];
    let mut layout_rows = Vec::new();
    if fc1.name.contains(&filter) {
        let operands = Operands::new(&device, fc1, seed)?;
        let mut c = device.alloc::<f32>(fc1.m * fc1.n)?;
        for layouts in [
            (Layout::N, Layout::T),
            (Layout::T, Layout::N),
            (Layout::T, Layout::T),
        ] {
            layout_rows.push(bench_layout(&operands, &ours, &cublas, layouts, &mut c)?);
        }
    }
    let layout_name = |l: (Layout, Layout)| format!("{:?}{:?}", l.0, l.1);
    let cells: Vec<Vec<String>> = layout_rows
        .iter()
        .map(|r| {
            vec![
                layout_name(r.layouts),
                format!("{:.1}", fc1.flops() / (r.ours_ms * 1e-3) / 1e12),
                format!("{:.1}", fc1.flops() / (r.cublas_ms * 1e-3) / 1e12),
                format!("{:.3}", r.cublas_ms / r.ours_ms),
                format!("{:.1e}", r.diff),
            ]
        })
        .collect();
    if !cells.is_empty() {
        println!("{} with stored transposes (f32 output):", fc1.name);
        print!(
            "{}",
            report::table(
                &[
                    "layout",
                    "pipeline TF/s",
                    "cuBLAS TF/s",
                    "ratio",
                    "diff to cuBLAS"
                ],
                &cells
            )
        );
    }

    let mut odd_rows = Vec::new();
    for shape in ODD_SHAPES.iter().filter(|s| s.name.contains(&filter)) {
        odd_rows.push((*shape, bench_odd(&device, &ours, &cublas, *shape, seed)?));
    }
    let cells: Vec<Vec<String>> = odd_rows
        .iter()
        .map(|(s, (path, ours_ms, cublas_ms, err))| {
            vec![
                s.name.to_string(),
                format!("{}x{}x{}", s.m, s.n, s.k),
                path.to_string(),
                format!("{:.1}", s.flops() / (ours_ms * 1e-3) / 1e12),
                format!("{:.1}", s.flops() / (cublas_ms * 1e-3) / 1e12),
                format!("{:.3}", cublas_ms / ours_ms),
                format!("{err:.1e}"),
            ]
        })
        .collect();
    if !cells.is_empty() {
        println!("other shapes (f32 output):");
        print!(
            "{}",
            report::table(
                &[
                    "shape",
                    "MxNxK",
                    "path",
                    "ours TF/s",
                    "cuBLAS TF/s",
                    "ratio",
                    "ours err"
                ],
                &cells
            )
        );
    }

    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let json_rows: Vec<String> = rows
            .iter()
            .map(|r| {
                let s = r.shape;
                report::object(&[
                    ("shape", Field::Str(s.name.into())),
                    ("m", Field::Int(s.m as u64)),
                    ("n", Field::Int(s.n as u64)),
                    ("k", Field::Int(s.k as u64)),
                    ("ours_ms", Field::Num(r.ours_ms)),
                    ("ours_tflops", Field::Num(r.tflops(r.ours_ms))),
                    ("cublas_ms", Field::Num(r.cublas_ms)),
                    ("cublas_tflops", Field::Num(r.tflops(r.cublas_ms))),
                    ("ratio_to_cublas", Field::Num(r.cublas_ms / r.ours_ms)),
                    ("persistent_ms", Field::Num(r.persistent_ms)),
                    ("persistent_tflops", Field::Num(r.tflops(r.persistent_ms))),
                    (
                        "persistent_ratio_to_cublas",
                        Field::Num(r.cublas_ms / r.persistent_ms),
                    ),
                    ("persistent_max_rel_err", Field::Num(r.persistent_err)),
                    ("cublas_bf16_out_ms", Field::Num(r.cublas_bf16_ms)),
                    (
                        "cublas_bf16_out_tflops",
                        Field::Num(r.tflops(r.cublas_bf16_ms)),
                    ),
                    ("ours_bf16_out_ms", Field::Num(r.ours_bf16_ms)),
                    ("ours_bf16_out_tflops", Field::Num(r.tflops(r.ours_bf16_ms))),
                    (
                        "ratio_to_cublas_bf16_out",
                        Field::Num(r.cublas_bf16_ms / r.ours_bf16_ms),
                    ),
                    ("ours_bf16_out_max_rel_err", Field::Num(r.ours_bf16_err)),
                    ("ours_max_rel_err", Field::Num(r.ours_err)),
                    ("cublas_max_rel_err", Field::Num(r.cublas_err)),
                    ("cublas_bf16_out_max_rel_err", Field::Num(r.cublas_bf16_err)),
                ])
            })
            .chain(layout_rows.iter().map(|r| {
                report::object(&[
                    (
                        "shape",
                        Field::Str(format!("{} {}", fc1.name, layout_name(r.layouts))),
                    ),
                    ("layout", Field::Str(layout_name(r.layouts))),
                    ("ours_ms", Field::Num(r.ours_ms)),
                    ("cublas_ms", Field::Num(r.cublas_ms)),
                    ("ratio_to_cublas", Field::Num(r.cublas_ms / r.ours_ms)),
                    ("max_rel_diff_to_cublas", Field::Num(r.diff)),
                ])
            }))
            .chain(odd_rows.iter().map(|(s, (path, ours_ms, cublas_ms, err))| {
                report::object(&[
                    ("shape", Field::Str(s.name.into())),
                    ("m", Field::Int(s.m as u64)),
                    ("n", Field::Int(s.n as u64)),
                    ("k", Field::Int(s.k as u64)),
                    ("path", Field::Str((*path).into())),
                    ("ours_ms", Field::Num(*ours_ms)),
                    ("cublas_ms", Field::Num(*cublas_ms)),
                    ("ratio_to_cublas", Field::Num(cublas_ms / ours_ms)),
                    ("ours_max_rel_err", Field::Num(*err)),
                ])
            }))
            .collect();
        let doc = report::document(
            &[
                ("bench", Field::Str("gemm".into())),
                ("device", Field::Str(device.to_string())),
                ("device_name", Field::Str(device.name().into())),
                ("seed", Field::Int(seed)),
                ("warmup", Field::Int(gemm::WARMUP as u64)),
                ("timed_runs", Field::Int(gemm::TIMED as u64)),
                ("rotation_bytes", Field::Int(gemm::ROTATION_BYTES as u64)),
            ],
            &json_rows,
        );
        std::fs::write(&path, doc)?;
    }

    let mut ok = true;
    for r in &rows {
        for (what, err, tol) in [
            ("pipeline", r.ours_err, F32_TOLERANCE),
            ("pipeline bf16 output", r.ours_bf16_err, BF16_TOLERANCE),
            ("group (persistent)", r.persistent_err, F32_TOLERANCE),
            ("cuBLAS", r.cublas_err, F32_TOLERANCE),
            ("cuBLAS bf16 output", r.cublas_bf16_err, BF16_TOLERANCE),
        ] {
            if err > tol {
                eprintln!(
                    "WRONG RESULT: {what} on {} ({}x{}x{}): max relative error {err:.3e} > {tol:e}",
                    r.shape.name, r.shape.m, r.shape.n, r.shape.k
                );
                ok = false;
            }
        }
    }
    for (s, (_, _, _, err)) in &odd_rows {
        if *err > F32_TOLERANCE {
            eprintln!(
                "WRONG RESULT: ours on {} ({}x{}x{}): max relative error {err:.3e} > {F32_TOLERANCE:e}",
                s.name, s.m, s.n, s.k
            );
            ok = false;
        }
    }
    for r in &layout_rows {
        if r.diff > F32_TOLERANCE {
            eprintln!(
                "WRONG RESULT: pipeline {} on {}: max relative difference to cuBLAS {:.3e} > {F32_TOLERANCE:e}",
                layout_name(r.layouts),
                fc1.name,
                r.diff
            );
            ok = false;
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn main() -> ExitCode {
    run().unwrap_or_else(|e| {
        eprintln!("gemm benchmark: {e}");
        ExitCode::FAILURE
    })
}
