//! The one-launch MoE layer forward pass (`kernels::MoeLayer`) on one GPU at the
//! DeepSeek-V3 and Qwen3-235B proxies (`bench/moe_torch.py` times PyTorch's paths of the same
//! layer; `bench/moe_h200.sh` runs both and prints the ratios):
//!
//! - worlds of 1 rank and emulated worlds of 2, 4 and 8 ranks on the one GPU (every rank's
//!   workgroups share it), `KOSMOS_BENCH_TOKENS` tokens per rank (default 4096);
//! - against our own unfused sequence of the same work (`MoeLayer::forward_unfused`: router
//!   and layout, pushes, expert GEMMs, fold as four launches, no overlap between them), and a
//!   dense cuBLAS GEMM pair of the same FLOPs per rank (`T K` rows through the gate+up and the
//!   down projection): the bound a grouped GEMM approaches; and the same launch with its
//!   expert tiles on the group mainloop (`MoeLayer::set_pipeline(false)`, HIP's forward
//!   pass) rather than the warp-specialised pipeline. Ratios: baseline time / ours.
//!
//! With `KOSMOS_BENCH_BACKWARD=1`, also one training step of the layer (`forward` then
//! `MoeLayer::backward` for a random `dOut`: `dx`, the router's and every expert's weight
//! gradients) against our unfused sequences of both passes, and the backward pass alone on
//! the kernel the layer chose (`bwd kernel`: `MoeLayer::backward_pipeline`) and on each of the
//! pipeline and the group mainloop (`ops::moe_backward`, HIP's), as a ratio;
//! TFLOP/s of a step count three times the forward's, `18 T K H F` per rank (as
//! `bench/moe_torch.py --backward` does). Before its timing, `dx` of sampled tokens is
//! compared with the f64 reference (`reference::backward::token_backward`), sampled entries
//! of one expert's `dw1` and `dw2` with their sums over the expert's rows, and the fused,
//! unfused and group-mainloop passes' `dx` bitwise.
//!
//! Weights and tokens are made on the device (`Ops::fill_random`); before timing, sampled
//! tokens of the first and last rank are compared with the f64 reference
//! (`kosmos_testkernels::moe`): identical picks, outputs within a relative bound (a mismatch
//! exits with code 1). TFLOP/s count the routed experts' GEMMs, `6 T K H F` per rank, as the
//! anchor figures do. Needs a CUDA GPU (`KOSMOS_DEVICE`); elsewhere it says so and exits with
//! code 2. Prints a table, writes JSON to `KOSMOS_BENCH_JSON` when set; `KOSMOS_BENCH_SHAPE`
//! keeps the proxies whose name contains it, `KOSMOS_BENCH_RANKS` (e.g. `1,8`) the world sizes.
//!
//! With `KOSMOS_BENCH_GPUS=N` (N >= 2) instead of emulated worlds: one world of a rank per
//! GPU (`World::multi_gpu`), the same checks and columns, every time by the host's clock
//! from the call until every GPU is done (`gemm::world_median_ms`); `bench/moe_ep_torch.py`
//! times PyTorch's expert-parallel path (`all_to_all_single` and grouped GEMMs) at the same
//! shapes.

use half::bf16;
use kernels::{MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, Ops, Routing};
use kosmos_bench::Result;
use kosmos_bench::cublas::{Cublas, GemmArgs, OutType};
use kosmos_bench::gemm;
use kosmos_bench::report::{self, Field};
use kosmos_runtime::{Device, DeviceKind, Stream, SymmetricBuffer, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe::{self as reference, Rounding};
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

/// One training step's figures (milliseconds) and the largest relative error of its checks.
struct Step {
    ms: f64,
    unfused_ms: f64,
    /// The backward pass on the kernel the layer chose (`kernel`), then on each.
    backward_ms: f64,
    kernel: &'static str,
    pipeline_backward_ms: f64,
    mainloop_backward_ms: f64,
    err: f64,
}

/// The world's weights and tokens, made on the device.
struct Inputs {
    x: SymmetricBuffer<bf16>,
    router: SymmetricBuffer<bf16>,
    bias: SymmetricBuffer<f32>,
    w1: SymmetricBuffer<bf16>,
    w2: SymmetricBuffer<bf16>,
    out: SymmetricBuffer<bf16>,
}

/// A training step's output gradient and the gradients it makes.
struct Gradients {
    dout: SymmetricBuffer<bf16>,
    dx: SymmetricBuffer<bf16>,
    router: SymmetricBuffer<f32>,
    w1: SymmetricBuffer<bf16>,
    w2: SymmetricBuffer<bf16>,
}

impl Gradients {
    fn new(world: &mut World, ops: &[Ops], p: Proxy, tokens: usize) -> Result<Gradients> {
        let local = p.experts / world.ranks() as usize;
        let (h, f) = (p.hidden, p.ffn);
        let mut g = Gradients {
            dout: world.alloc_symmetric(tokens * h)?,
            dx: world.alloc_symmetric(tokens * h)?,
            router: world.alloc_symmetric(p.experts * h)?,
            w1: world.alloc_symmetric(local * 2 * f * h)?,
            w2: world.alloc_symmetric(local * h * f)?,
        };
        for r in 0..world.ranks() as usize {
            let (ops, stream) = rank_ops(world, ops, r);
            ops.fill_random(stream, &mut g.dout.ranks_mut()[r], 1000 + r as u32, 1.0)?;
            stream.synchronize()?;
        }
        Ok(g)
    }

    fn args(&self) -> MoeGradients<'_> {
        MoeGradients {
            dx: &self.dx,
            router: &self.router,
            w1: &self.w1,
            w2: &self.w2,
            shared: None,
        }
    }
}

impl Inputs {
    fn new(world: &mut World, ops: &[Ops], p: Proxy, tokens: usize) -> Result<Inputs> {
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
        let (sh, sf) = (1.0 / (h as f32).sqrt(), 1.0 / (f as f32).sqrt());
        for r in 0..ranks {
            let (ops, stream) = rank_ops(world, ops, r);
            let seed = 16 * r as u32;
            ops.fill_random(stream, &mut i.x.ranks_mut()[r], seed, 1.0)?;
            ops.fill_random(stream, &mut i.router.ranks_mut()[r], 7, 2.0 * sh)?;
            ops.fill_random(stream, &mut i.w1.ranks_mut()[r], seed + 1, 2.0 * sh)?;
            ops.fill_random(stream, &mut i.w2.ranks_mut()[r], seed + 2, 2.0 * sf)?;
            i.bias.ranks()[r].upload(&bias)?;
            stream.synchronize()?;
        }
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

/// The ops and stream that fill rank `r`'s buffers: `ops` holds one `Ops` for all ranks of
/// an emulated world, or one per GPU of a world of several.
fn rank_ops<'a>(world: &'a World, ops: &'a [Ops], r: usize) -> (&'a Ops, &'a Stream) {
    let stream = world.rank_stream(r as u32).expect("a rank of the world");
    (&ops[r % ops.len()], stream)
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

/// The world's weights on the host, for the reference.
struct HostWeights {
    shape: reference::MoeShape,
    routing: reference::Routing,
    router: Vec<bf16>,
    bias: Vec<f32>,
    w1: Vec<Vec<bf16>>,
    w2: Vec<Vec<bf16>>,
}

impl HostWeights {
    fn new(i: &Inputs, p: Proxy, tokens: usize) -> Result<HostWeights> {
        let download = |b: &SymmetricBuffer<bf16>| {
            b.ranks()
                .iter()
                .map(|b| b.download())
                .collect::<std::result::Result<Vec<_>, _>>()
        };
        Ok(HostWeights {
            shape: reference::MoeShape {
                ranks: i.x.ranks().len(),
                experts: p.experts,
                tokens,
                hidden: p.hidden,
                ffn: p.ffn,
                topk: TOPK,
            },
            routing: reference_routing(p.routing),
            router: i.router.ranks()[0].download()?,
            bias: i.bias.ranks()[0].download()?,
            w1: download(&i.w1)?,
            w2: download(&i.w2)?,
        })
    }

    fn weights(&self) -> reference::MoeWeights<'_, bf16> {
        reference::MoeWeights {
            router: &self.router,
            bias: &self.bias,
            w1: &self.w1,
            w2: &self.w2,
            shared: None,
        }
    }

    /// The reference's route of token `t` of `x`, or `None` (reported) where the layer
    /// picked other experts.
    fn route(
        &self,
        x: &[bf16],
        picks: &[u32],
        t: usize,
        what: &str,
    ) -> Option<reference::TokenRoute> {
        let h = self.shape.hidden;
        let route = reference::route(
            &x[t * h..][..h],
            &self.shape,
            &self.weights(),
            &self.routing,
        );
        let picked = &picks[t * TOPK..][..TOPK];
        if picked != route.experts {
            eprintln!(
                "{what}: token {t} picked {picked:?}, the reference {:?}",
                route.experts
            );
            return None;
        }
        Some(route)
    }
}

/// Sampled tokens of the first and last rank against the f64 reference: the largest
/// relative error of their outputs (infinite where a pick differs).
fn check(layer: &MoeLayer, i: &Inputs, host: &HostWeights, p: Proxy) -> Result<f64> {
    let ranks = i.x.ranks().len();
    let (h, tokens) = (p.hidden, host.shape.tokens);
    let mut worst = 0f64;
    for r in [0, ranks - 1] {
        let x = i.x.ranks()[r].download()?;
        let out = i.out.ranks()[r].download()?;
        let picks = layer.saved().routing.ranks()[r].download()?;
        for t in gemm::sample_rows(tokens).into_iter().take(SAMPLED) {
            let what = format!("{}: rank {r}", p.name);
            let Some(route) = host.route(&x, &picks, t, &what) else {
                return Ok(f64::INFINITY);
            };
            let want =
                reference::token_output(&x[t * h..][..h], &route, &host.shape, &host.weights());
            worst = worst.max(max_rel_err(&out[t * h..][..h], &want));
        }
    }
    Ok(worst)
}

/// Relative to a tenth of the reference row's largest magnitude.
fn max_rel_err<T: Copy + Into<f64>>(got: &[T], want: &[f64]) -> f64 {
    let floor = 0.1 * want.iter().fold(0f64, |m, v| m.max(v.abs()));
    compare::rel_err(got, want, Scale::Each { floor }, TOLERANCE).max
}

/// A training step's gradients against the f64 reference: `dx` of sampled tokens of the
/// first and last rank, and sampled entries of `dw1` and `dw2` of rank 0's first expert
/// (each a sum over every row of the world routed to it): the largest relative error.
fn check_backward(
    layer: &MoeLayer,
    i: &Inputs,
    g: &Gradients,
    host: &HostWeights,
    p: Proxy,
) -> Result<f64> {
    let ranks = i.x.ranks().len();
    let (h, f, tokens) = (p.hidden, p.ffn, host.shape.tokens);
    let weights = host.weights();
    let mut worst = 0f64;
    // Every row of expert 0: its token and gradient rows, and its weight.
    let mut rows: Vec<(Vec<bf16>, Vec<bf16>, f64)> = Vec::new();
    for r in 0..ranks {
        let x = i.x.ranks()[r].download()?;
        let dout = g.dout.ranks()[r].download()?;
        let picks = layer.saved().routing.ranks()[r].download()?;
        let picked_weights = layer.saved().weights.ranks()[r].download()?;
        for (pick, &e) in picks[..tokens * TOPK].iter().enumerate() {
            if e == 0 {
                let t = pick / TOPK;
                let row = |v: &[bf16]| v[t * h..][..h].to_vec();
                rows.push((row(&x), row(&dout), picked_weights[pick].into()));
            }
        }
        if r != 0 && r != ranks - 1 {
            continue;
        }
        let dx = g.dx.ranks()[r].download()?;
        for t in gemm::sample_rows(tokens).into_iter().take(SAMPLED) {
            let what = format!("{} backward: rank {r}", p.name);
            let Some(route) = host.route(&x, &picks, t, &what) else {
                return Ok(f64::INFINITY);
            };
            let want = reference::backward::token_backward(
                &x[t * h..][..h],
                &dout[t * h..][..h],
                &route,
                &host.shape,
                &weights,
                &host.routing,
                Rounding::Bf16,
            );
            worst = worst.max(max_rel_err(&dx[t * h..][..h], &want.dx));
        }
    }
    let (w1, w2) = weights.expert(&host.shape, 0);
    let round = |v: f64| bf16::from_f64(v).to_f64();
    let dot = |a: &[bf16], b: &[bf16]| {
        a.iter()
            .zip(b)
            .map(|(a, b)| a.to_f64() * b.to_f64())
            .sum::<f64>()
    };
    let (dw1, dw2) = (g.w1.ranks()[0].download()?, g.w2.ranks()[0].download()?);
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for s in 0..SAMPLED {
        // Feature `j`, output column `c` (of `w2`), input column `c` (of `w1`).
        let (j, c) = ((s * 977 + 13) % f, (s * 2741 + 5) % h);
        let (mut g2, mut g1) = (0f64, 0f64);
        for (x, dout, weight) in &rows {
            let gate = round(dot(x, &w1[j * h..][..h]));
            let up = round(dot(x, &w1[(f + j) * h..][..h]));
            let sig = 1.0 / (1.0 + (-gate).exp());
            let act = round(gate * sig * up);
            let dy: Vec<f64> = dout.iter().map(|d| round(weight * d.to_f64())).collect();
            g2 += dy[c] * act;
            let dh: f64 = dy
                .iter()
                .enumerate()
                .map(|(i, d)| d * w2[i * f + j].to_f64())
                .sum();
            g1 += round(dh * up * sig * (1.0 + gate * (1.0 - sig))) * x[c].to_f64();
        }
        got.extend([dw2[c * f + j], dw1[j * h + c]]);
        want.extend([g2, g1]);
    }
    let floor = want.iter().fold(0f64, |m, v| m.max(v.abs())) * 0.1;
    let e = compare::rel_err(&got, &want, Scale::Each { floor }, TOLERANCE).max;
    Ok(worst.max(e))
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
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let tokens: usize = env("KOSMOS_BENCH_TOKENS").parse().unwrap_or(4096);
    let filter = env("KOSMOS_BENCH_SHAPE");
    // A world of one rank per GPU, or emulated worlds on the one.
    let gpus: Option<usize> = env("KOSMOS_BENCH_GPUS").parse().ok().filter(|&g| g > 1);
    let devices: Vec<Device> = match gpus {
        Some(g) => (0..g).map(Device::cuda).collect::<Result<_, _>>()?,
        None => vec![device.clone()],
    };
    let ops = devices
        .iter()
        .map(Ops::new)
        .collect::<Result<Vec<_>, _>>()?;
    let worlds: Vec<u32> = match (gpus, env("KOSMOS_BENCH_RANKS")) {
        (Some(g), _) => vec![g as u32],
        (None, s) if s.is_empty() => vec![1, 2, 4, 8],
        (None, s) => s.split(',').filter_map(|r| r.trim().parse().ok()).collect(),
    };
    let backward = env("KOSMOS_BENCH_BACKWARD") == "1";
    let (mut table, mut steps, mut json, mut wrong) = (Vec::new(), Vec::new(), Vec::new(), false);
    for p in PROXIES.into_iter().filter(|p| p.name.contains(&filter)) {
        let flops = 6.0 * (tokens * TOPK * p.hidden * p.ffn) as f64;
        let dense_ms = dense_pair_ms(&device, &cublas, p, tokens)?;
        for &ranks in &worlds {
            let mut world = match gpus {
                Some(_) => World::multi_gpu(&devices, WorldOptions::default())?,
                None => World::emulated(&device, ranks, WorldOptions::default())?,
            };
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
            let weights = inputs.weights(p.routing);
            let (x, out) = (&inputs.x, &inputs.out);
            let pass = layer.forward(&mut world, x, &weights, out)?;
            world.synchronize()?;
            let host = HostWeights::new(&inputs, p, tokens)?;
            let err = check(&layer, &inputs, &host, p)?;
            wrong |= err > TOLERANCE;
            let mut step = None;
            if backward {
                let g = Gradients::new(&mut world, &ops, p, tokens)?;
                let (dout, grads) = (&g.dout, g.args());
                layer.backward_unfused(&mut world, &pass, x, dout, &weights, &grads)?;
                world.synchronize()?;
                let unfused_dx = g.dx.ranks()[0].download()?;
                layer.backward(&mut world, &pass, x, dout, &weights, &grads)?;
                world.synchronize()?;
                let mut err = check_backward(&layer, &inputs, &g, &host, p)?;
                if g.dx.ranks()[0].download()? != unfused_dx {
                    eprintln!(
                        "{}: the fused and unfused backward passes' dx differ",
                        p.name
                    );
                    err = f64::INFINITY;
                }
                wrong |= err > TOLERANCE;
                let backward_ms = gemm::world_median_ms(&mut world, |w| {
                    Ok(layer.backward(w, &pass, x, dout, &weights, &grads)?)
                })?;
                // The same pass on each mainloop (the default is one of them): the same bits.
                let mut on = |layer: &mut MoeLayer, pipeline| -> Result<f64> {
                    layer.set_backward_pipeline(Some(pipeline))?;
                    gemm::world_median_ms(&mut world, |w| {
                        Ok(layer.backward(w, &pass, x, dout, &weights, &grads)?)
                    })
                };
                let pipeline_backward_ms = on(&mut layer, true)?;
                let mainloop_backward_ms = on(&mut layer, false)?;
                layer.set_backward_pipeline(None)?;
                if g.dx.ranks()[0].download()? != unfused_dx {
                    eprintln!(
                        "{}: the group mainloop's backward pass differs from the pipeline's",
                        p.name
                    );
                    wrong = true;
                }
                let unfused_ms = gemm::world_median_ms(&mut world, |w| {
                    let pass = layer.forward_unfused(w, x, &weights, out)?;
                    Ok(layer.backward_unfused(w, &pass, x, dout, &weights, &grads)?)
                })?;
                let ms = gemm::world_median_ms(&mut world, |w| {
                    let pass = layer.forward(w, x, &weights, out)?;
                    Ok(layer.backward(w, &pass, x, dout, &weights, &grads)?)
                })?;
                let kernel = if layer.backward_pipeline() {
                    "pipeline"
                } else {
                    "group"
                };
                step = Some(Step {
                    ms,
                    unfused_ms,
                    backward_ms,
                    kernel,
                    pipeline_backward_ms,
                    mainloop_backward_ms,
                    err,
                });
            }
            // The fused forward first: without the backward pass, its launches are the
            // benchmark's first (the `bytes` step of bench/device_batch.sh profiles one).
            let ms = gemm::world_median_ms(&mut world, |w| {
                Ok(layer.forward(w, x, &weights, out).map(drop)?)
            })?;
            let unfused_ms = gemm::world_median_ms(&mut world, |w| {
                Ok(layer.forward_unfused(w, x, &weights, out).map(drop)?)
            })?;
            // The same launch with its expert tiles on the group mainloop (HIP's).
            layer.set_pipeline(false)?;
            let mainloop_ms = gemm::world_median_ms(&mut world, |w| {
                Ok(layer.forward(w, x, &weights, out).map(drop)?)
            })?;
            layer.set_pipeline(true)?;
            let tflops = flops * f64::from(ranks) / (ms * 1e-3) / 1e12;
            // The dense pair does one rank's FLOPs on one GPU, where every rank of an
            // emulated world shares it.
            let ranks_per_gpu = if gpus.is_some() {
                1.0
            } else {
                f64::from(ranks)
            };
            let dense = dense_ms * ranks_per_gpu / ms;
            table.push(vec![
                p.name.to_string(),
                ranks.to_string(),
                tokens.to_string(),
                format!("{ms:.3}"),
                format!("{tflops:.1}"),
                format!("{:.3}", unfused_ms / ms),
                format!("{:.3}", mainloop_ms / ms),
                format!("{dense:.3}"),
                format!("{err:.1e}"),
            ]);
            let mut fields = vec![
                ("proxy", Field::Str(p.name.into())),
                ("ranks", Field::Int(ranks.into())),
                ("tokens_per_rank", Field::Int(tokens as u64)),
                ("moe_forward_ms", Field::Num(ms)),
                ("unfused_ms", Field::Num(unfused_ms)),
                ("group_mainloop_ms", Field::Num(mainloop_ms)),
                ("tflops", Field::Num(tflops)),
                ("dense_cublas_pair_ms", Field::Num(dense_ms)),
                ("max_rel_err", Field::Num(err)),
            ];
            if let Some(st) = step {
                let step_tflops = 3.0 * flops * f64::from(ranks) / (st.ms * 1e-3) / 1e12;
                steps.push(vec![
                    p.name.to_string(),
                    ranks.to_string(),
                    format!("{:.3}", st.ms),
                    format!("{step_tflops:.1}"),
                    format!("{:.3}", st.backward_ms),
                    st.kernel.to_string(),
                    format!("{:.3}", st.mainloop_backward_ms / st.pipeline_backward_ms),
                    format!("{:.3}", st.unfused_ms / st.ms),
                    format!("{:.1e}", st.err),
                ]);
                fields.extend([
                    ("train_step_ms", Field::Num(st.ms)),
                    ("train_step_unfused_ms", Field::Num(st.unfused_ms)),
                    ("moe_backward_ms", Field::Num(st.backward_ms)),
                    ("backward_kernel", Field::Str(st.kernel.to_string())),
                    ("backward_pipeline_ms", Field::Num(st.pipeline_backward_ms)),
                    (
                        "backward_group_mainloop_ms",
                        Field::Num(st.mainloop_backward_ms),
                    ),
                    ("train_step_tflops", Field::Num(step_tflops)),
                    ("backward_max_rel_err", Field::Num(st.err)),
                ]);
            }
            json.push(report::object(&fields));
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
                "vs group mainloop",
                "vs dense cuBLAS",
                "rel err"
            ],
            &table
        )
    );
    if backward {
        println!(
            "{}",
            report::table(
                &[
                    "proxy",
                    "ranks",
                    "fwd+bwd ms",
                    "TF/s",
                    "bwd ms",
                    "bwd kernel",
                    "pipeline vs group mainloop",
                    "step vs unfused",
                    "rel err"
                ],
                &steps
            )
        );
    }
    if let Ok(path) = std::env::var("KOSMOS_BENCH_JSON") {
        let gpus = gpus.unwrap_or(1) as u64;
        let header = [
            ("device", Field::Str(device.to_string())),
            ("gpus", Field::Int(gpus)),
        ];
        std::fs::write(&path, report::document(&header, &json))?;
    }
    Ok(if wrong {
        eprintln!("moe: a result differs from the reference (see rel err)");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
