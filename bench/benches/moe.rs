//! The one-launch MoE layer forward pass (`kernels::MoeLayer`) on one GPU at the
//! DeepSeek-V3 and Qwen3-235B proxies (`bench/moe_torch.py` times PyTorch's paths of the same
//! layer; `bench/moe_h200.sh` runs both and prints the ratios):
//!
//! - worlds of 1 rank and emulated worlds of 2, 4 and 8 ranks on the one GPU (every rank's
//!   workgroups share it), `KOSMOS_BENCH_TOKENS` tokens per rank (default 4096);
//! - against our own unfused sequence of the same work (`MoeLayer::forward_unfused`: router
//!   and layout, pushes, expert GEMMs, fold as four launches, no overlap between them), and a
//!   dense cuBLAS GEMM pair of the same FLOPs per rank (`T K` rows through the gate+up and the
//!   down projection): the bound a grouped GEMM approaches. Ratios: baseline time / ours.
//!
//! Weights and tokens are made on the device (`Ops::fill_random`); before timing, sampled
//! tokens of the first and last rank are compared with the f64 reference
//! (`kosmos_testkernels::moe`): identical picks, outputs within a relative bound (a mismatch
//! exits with code 1). TFLOP/s count the routed experts' GEMMs, `6 T K H F` per rank, as the
//! anchor figures do. Needs a CUDA GPU (`KOSMOS_DEVICE`); elsewhere it says so and exits with
//! code 2. Prints a table, writes JSON to `KOSMOS_BENCH_JSON` when set; `KOSMOS_BENCH_SHAPE`
//! keeps the proxies whose name contains it, `KOSMOS_BENCH_RANKS` (e.g. `1,8`) the world sizes.

use half::bf16;
use kernels::{MoeLayer, MoeOptions, MoeShape, MoeWeights, Ops, Routing};
use kosmos_bench::Result;
use kosmos_bench::cublas::{Cublas, GemmArgs, OutType};
use kosmos_bench::gemm;
use kosmos_bench::report::{self, Field};
use kosmos_runtime::{Device, DeviceKind, SymmetricBuffer, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe as reference;
use std::process::ExitCode;

/// Tokens checked against the reference on each of the first and last rank.
const SAMPLED: usize = 3;
/// Outputs against the reference: bf16 roundings of the activations and the output,
/// relative to a tenth of the row's largest magnitude.
const TOLERANCE: f64 = 3e-2;

#[derive(Copy, Clone)]
struct Proxy {
    name: &'static str,
    hidden: usize,
    experts: usize,
    ffn: usize,
    routing: Routing,
}

const PROXIES: [Proxy; 2] = [
    Proxy {
        name: "deepseek-v3",
        hidden: 7168,
        experts: 256,
        ffn: 2048,
        routing: Routing::Sigmoid {
            groups: 8,
            topk_groups: 4,
            normalize: true,
            scale: 2.5,
        },
    },
    Proxy {
        name: "qwen3-235b",
        hidden: 4096,
        experts: 128,
        ffn: 1536,
        routing: Routing::Softmax { normalize: true },
    },
];
const TOPK: usize = 8;

/// The world's weights and tokens, made on the device.
struct Inputs {
    x: SymmetricBuffer<bf16>,
    router: SymmetricBuffer<bf16>,
    bias: SymmetricBuffer<f32>,
    w1: SymmetricBuffer<bf16>,
    w2: SymmetricBuffer<bf16>,
    out: SymmetricBuffer<bf16>,
}

impl Inputs {
    fn new(world: &mut World, ops: &Ops, p: Proxy, tokens: usize) -> Result<Inputs> {
        let ranks = world.ranks() as usize;
        let local = p.experts / ranks;
        let (h, f) = (p.hidden, p.ffn);
        let mut i = Inputs {
            x: world.alloc_symmetric(tokens * h)?,
            router: world.alloc_symmetric(p.experts * h)?,
            bias: world.alloc_symmetric(p.experts)?,
            w1: world.alloc_symmetric(local * 2 * f * h)?,
            w2: world.alloc_symmetric(local * h * f)?,
            out: world.alloc_symmetric(tokens * h)?,
        };
        let bias: Vec<f32> = (0..p.experts)
            .map(|e| ((e * 37 % 101) as f32 / 101.0 - 0.5) * 0.02)
            .collect();
        let stream = world.rank_stream(0).expect("rank 0");
        let (sh, sf) = (1.0 / (h as f32).sqrt(), 1.0 / (f as f32).sqrt());
        for r in 0..ranks {
            let seed = 16 * r as u32;
            ops.fill_random(stream, &mut i.x.ranks_mut()[r], seed, 1.0)?;
            ops.fill_random(stream, &mut i.router.ranks_mut()[r], 7, 2.0 * sh)?;
            ops.fill_random(stream, &mut i.w1.ranks_mut()[r], seed + 1, 2.0 * sh)?;
            ops.fill_random(stream, &mut i.w2.ranks_mut()[r], seed + 2, 2.0 * sf)?;
            i.bias.ranks()[r].upload(&bias)?;
        }
        stream.synchronize()?;
        Ok(i)
    }

    fn weights(&self, routing: Routing) -> MoeWeights<'_> {
        MoeWeights {
            router: &self.router,
            bias: matches!(routing, Routing::Sigmoid { .. }).then_some(&self.bias),
            w1: &self.w1,
            w2: &self.w2,
            shared: None,
        }
    }
}

fn reference_routing(routing: Routing) -> reference::Routing {
    match routing {
        Routing::Softmax { normalize } => reference::Routing::Softmax { normalize },
        Routing::Sigmoid {
            groups,
            topk_groups,
            normalize,
            scale,
        } => reference::Routing::Sigmoid {
            groups: groups as usize,
            topk_groups: topk_groups as usize,
            normalize,
            scale: scale.into(),
        },
    }
}

/// Sampled tokens of the first and last rank against the f64 reference: the largest
/// relative error of their outputs (infinite where a pick differs).
fn check(layer: &MoeLayer, i: &Inputs, p: Proxy, tokens: usize) -> Result<f64> {
    let ranks = i.x.ranks().len();
    let shape = reference::MoeShape {
        ranks,
        experts: p.experts,
        tokens,
        hidden: p.hidden,
        ffn: p.ffn,
        topk: TOPK,
    };
    let w1: Vec<Vec<bf16>> =
        i.w1.ranks()
            .iter()
            .map(|b| b.download())
            .collect::<std::result::Result<_, _>>()?;
    let w2: Vec<Vec<bf16>> =
        i.w2.ranks()
            .iter()
            .map(|b| b.download())
            .collect::<std::result::Result<_, _>>()?;
    let router = i.router.ranks()[0].download()?;
    let bias = i.bias.ranks()[0].download()?;
    let weights = reference::MoeWeights {
        router: &router,
        bias: &bias,
        w1: &w1,
        w2: &w2,
        shared: None,
    };
    let routing = reference_routing(p.routing);
    let mut worst = 0f64;
    for r in [0, ranks - 1] {
        let x = i.x.ranks()[r].download()?;
        let out = i.out.ranks()[r].download()?;
        let picks = layer.saved().routing.ranks()[r].download()?;
        for t in gemm::sample_rows(tokens).into_iter().take(SAMPLED) {
            let row = &x[t * p.hidden..][..p.hidden];
            let route = reference::route(row, &shape, &weights, &routing);
            if picks[t * TOPK..][..TOPK] != route.experts[..] {
                eprintln!(
                    "{}: rank {r} token {t} picked {:?}, the reference {:?}",
                    p.name,
                    &picks[t * TOPK..][..TOPK],
                    route.experts
                );
                return Ok(f64::INFINITY);
            }
            let want = reference::token_output(row, &route, &shape, &weights);
            let floor = 0.1 * want.iter().fold(0f64, |m, v| m.max(v.abs()));
            let got = &out[t * p.hidden..][..p.hidden];
            let e = compare::rel_err(got, &want, Scale::Each { floor }, TOLERANCE);
            worst = worst.max(e.max);
        }
    }
    Ok(worst)
}

/// The dense cuBLAS pair of the same FLOPs as one rank's experts: `T K x H` times `H x 2F`,
/// then `T K x F` times `F x H` (bf16 out).
fn dense_pair_ms(device: &Device, cublas: &Cublas, p: Proxy, tokens: usize) -> Result<f64> {
    let rows = tokens * TOPK;
    let (h, f) = (p.hidden, p.ffn);
    let a = device.alloc::<bf16>(rows * h)?;
    let w1 = device.alloc::<bf16>(h * 2 * f)?;
    let z = device.alloc::<bf16>(rows * 2 * f)?;
    let w2 = device.alloc::<bf16>(f * h)?;
    let y = device.alloc::<bf16>(rows * h)?;
    let gemm = |a: u64, b: u64, c: u64, m, n, k| GemmArgs {
        a,
        b,
        c,
        m,
        n,
        k,
        a_t: false,
        b_t: false,
        out: OutType::Bf16,
    };
    let up = gemm(
        a.device_ptr(),
        w1.device_ptr(),
        z.device_ptr(),
        rows,
        2 * f,
        h,
    );
    // The down projection reads the first F columns' worth of elements of `z` as `T K x F`.
    let down = gemm(z.device_ptr(), w2.device_ptr(), y.device_ptr(), rows, h, f);
    gemm::median_ms(
        |f| cublas.time(f),
        |_| {
            cublas.gemm(up)?;
            cublas.gemm(down)
        },
    )
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("moe: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    let device = Device::from_env()?;
    if device.kind() != DeviceKind::Cuda {
        eprintln!("moe: needs a CUDA GPU (KOSMOS_DEVICE), found {device}");
        return Ok(ExitCode::from(2));
    }
    let cublas = Cublas::new(device.ordinal())?;
    let ops = Ops::new(&device)?;
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let tokens: usize = env("KOSMOS_BENCH_TOKENS").parse().unwrap_or(4096);
    let filter = env("KOSMOS_BENCH_SHAPE");
    let worlds: Vec<u32> = match env("KOSMOS_BENCH_RANKS") {
        s if s.is_empty() => vec![1, 2, 4, 8],
        s => s.split(',').filter_map(|r| r.trim().parse().ok()).collect(),
    };
    let (mut table, mut json, mut wrong) = (Vec::new(), Vec::new(), false);
    for p in PROXIES.into_iter().filter(|p| p.name.contains(&filter)) {
        let flops = 6.0 * (tokens * TOPK * p.hidden * p.ffn) as f64;
        let dense_ms = dense_pair_ms(&device, &cublas, p, tokens)?;
        for &ranks in &worlds {
            let mut world = World::emulated(&device, ranks, WorldOptions::default())?;
            let shape = MoeShape {
                experts: p.experts,
                topk: TOPK,
                tokens,
                hidden: p.hidden,
                ffn: p.ffn,
            };
            // Twice the mean rows per rank: random routing stays well inside.
            let capacity = (ranks > 1).then_some(2 * tokens * TOPK);
            let options = MoeOptions {
                routing: p.routing,
                shared_expert: false,
                capacity,
            };
            let mut layer = MoeLayer::new(&mut world, shape, options)?;
            let inputs = Inputs::new(&mut world, &ops, p, tokens)?;
            layer.forward(
                &mut world,
                &inputs.x,
                &inputs.weights(p.routing),
                &inputs.out,
            )?;
            world.synchronize()?;
            let err = check(&layer, &inputs, p, tokens)?;
            wrong |= err > TOLERANCE;
            let weights = inputs.weights(p.routing);
            let (x, out) = (&inputs.x, &inputs.out);
            let unfused_ms = gemm::world_median_ms(&mut world, |w| {
                Ok(layer.forward_unfused(w, x, &weights, out)?)
            })?;
            let ms =
                gemm::world_median_ms(&mut world, |w| Ok(layer.forward(w, x, &weights, out)?))?;
            let tflops = flops * f64::from(ranks) / (ms * 1e-3) / 1e12;
            // The dense pair does one rank's FLOPs.
            let dense = dense_ms * f64::from(ranks) / ms;
            table.push(vec![
                p.name.to_string(),
                ranks.to_string(),
                tokens.to_string(),
                format!("{ms:.3}"),
                format!("{tflops:.1}"),
                format!("{:.3}", unfused_ms / ms),
                format!("{dense:.3}"),
                format!("{err:.1e}"),
            ]);
            json.push(report::object(&[
                ("proxy", Field::Str(p.name.into())),
                ("ranks", Field::Int(ranks.into())),
                ("tokens_per_rank", Field::Int(tokens as u64)),
                ("moe_forward_ms", Field::Num(ms)),
                ("unfused_ms", Field::Num(unfused_ms)),
                ("tflops", Field::Num(tflops)),
                ("dense_cublas_pair_ms", Field::Num(dense_ms)),
                ("max_rel_err", Field::Num(err)),
            ]));
        }
    }
    println!(
        "{}",
        report::table(
            &[
                "proxy",
                "ranks",
                "tokens/rank",
                "ms",
                "TF/s",
                "vs unfused",
                "vs dense cuBLAS",
                "rel err"
            ],
            &table
        )
    );
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let header = [("device", Field::Str(device.to_string()))];
        std::fs::write(&path, report::document(&header, &json))?;
    }
    Ok(if wrong {
        eprintln!("moe: a result differs from the reference (see rel err)");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
