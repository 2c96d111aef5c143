//! The one-launch MoE layer, forward and backward (`kernels::MoeLayer`), on an emulated
//! expert-parallel world of the device, through the public API, on random inputs against the
//! f64 reference of `kosmos_testkernels::moe`: DeepSeek-V3's routing (sigmoid with a
//! selection bias, group limited) and a shared expert; the demo's first rows.

use crate::gemm_check::Check;
use half::bf16;
use kernels::{MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, Routing};
use kosmos_runtime::{Device, DeviceScalar, SymmetricBuffer, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe::{self as reference, Rounding};
use kosmos_testkernels::random_bf16;
use std::time::Instant;

/// Outputs against the reference, relative to the larger of an element and the outputs'
/// root mean square: the activations are rounded to bf16 between the GEMMs at the same
/// points in both, but f64 and f32 sums may round them to neighbouring values.
const TOLERANCE: f64 = 3e-2;

/// Groups of experts, and the groups each token may pick from.
const GROUPS: u32 = 4;
const TOPK_GROUPS: u32 = 2;

/// Runs the layer on a world of `ranks` emulated on `device` from `seed`: the outputs
/// poisoned first, one forward pass, then every rank's picks and output against the
/// reference; then one backward pass for a random `dOut`, every gradient against the
/// reference's (the router's and the shared expert's summed over the ranks). `ms` is the
/// host's time for a pass's launch and its synchronisation.
pub fn check_moe(
    device: &Device,
    ranks: u32,
    shape: MoeShape,
    seed: u64,
) -> kernels::Result<Vec<Check>> {
    let MoeShape {
        experts,
        topk,
        tokens,
        hidden,
        ffn,
    } = shape;
    let r_us = ranks as usize;
    let local = experts / r_us;
    let routing = Routing::Sigmoid {
        groups: GROUPS,
        topk_groups: TOPK_GROUPS,
        normalize: true,
        scale: 2.5,
    };
    let mut world = World::emulated(device, ranks, WorldOptions::default())?;
    let options = MoeOptions {
        routing,
        shared_expert: true,
        capacity: None,
    };
    let mut layer = MoeLayer::new(&mut world, shape, options)?;
    // Weights scaled by 2 / sqrt(fan-in): activations near 1.
    let scaled = |seed: u64, len: usize, fan_in: usize| -> Vec<bf16> {
        let s = 2.0 / (fan_in as f64).sqrt();
        random_bf16(seed, len)
            .into_iter()
            .map(|v| bf16::from_f64(v.to_f64() * s))
            .collect()
    };
    let router = scaled(seed ^ 1, experts * hidden, hidden);
    let bias: Vec<f32> = random_bf16(seed ^ 2, experts)
        .into_iter()
        .map(|v| v.to_f32() * 0.05)
        .collect();
    let w1: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| scaled(seed ^ (16 + r as u64), local * 2 * ffn * hidden, hidden))
        .collect();
    let w2: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| scaled(seed ^ (64 + r as u64), local * hidden * ffn, ffn))
        .collect();
    let ws1 = scaled(seed ^ 3, 2 * ffn * hidden, hidden);
    let ws2 = scaled(seed ^ 4, hidden * ffn, ffn);
    let x: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(seed ^ (128 + r as u64), tokens * hidden))
        .collect();

    let every = |v: &Vec<bf16>| vec![v.clone(); r_us];
    let router_d = sym(&mut world, &every(&router))?;
    let bias_d = sym(&mut world, &vec![bias.clone(); r_us])?;
    let w1_d = sym(&mut world, &w1)?;
    let w2_d = sym(&mut world, &w2)?;
    let ws1_d = sym(&mut world, &every(&ws1))?;
    let ws2_d = sym(&mut world, &every(&ws2))?;
    let x_d = sym(&mut world, &x)?;
    let out = world.alloc_symmetric::<bf16>(tokens * hidden)?;
    for copy in out.ranks() {
        copy.fill(bf16::NAN)?;
    }
    let weights = MoeWeights {
        router: &router_d,
        bias: Some(&bias_d),
        w1: &w1_d,
        w2: &w2_d,
        shared: Some((&ws1_d, &ws2_d)),
    };
    let start = Instant::now();
    let pass = layer.forward(&mut world, &x_d, &weights, &out)?;
    world.synchronize()?;
    let ms = start.elapsed().as_secs_f64() * 1e3;

    let ref_shape = reference::MoeShape {
        ranks: r_us,
        experts,
        tokens,
        hidden,
        ffn,
        topk,
    };
    let ref_weights = reference::MoeWeights {
        router: &router,
        bias: &bias,
        w1: &w1,
        w2: &w2,
        shared: Some((&ws1, &ws2)),
    };
    let ref_routing = reference::Routing::Sigmoid {
        groups: GROUPS as usize,
        topk_groups: TOPK_GROUPS as usize,
        normalize: true,
        scale: 2.5,
    };
    let want = reference::MoeReference::new(&x, &ref_shape, &ref_weights, &ref_routing);
    let picks = layer.saved().routing.ranks();
    let (mut got_all, mut want_all, mut picked, mut want_picks) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (r, (copy, routes)) in out.ranks().iter().zip(&want.routes).enumerate() {
        got_all.extend(copy.download()?.into_iter().map(f64::from));
        want_all.extend(&want.out[r]);
        let p = picks[r].download()?;
        picked.extend(p[..tokens * topk].iter().map(|&e| f64::from(e)));
        want_picks.extend(
            routes
                .iter()
                .flat_map(|t| t.experts.iter().map(|&e| f64::from(e))),
        );
    }
    let shape_text = format!("{ranks} ranks {tokens}x{hidden} E{experts} top{topk} F{ffn}");
    let mut checks = vec![
        Check {
            op: "moe_forward picks",
            shape: shape_text.clone(),
            err: compare::rel_err(&picked, &want_picks, Scale::Fixed(1.0), 0.0),
            ms,
        },
        Check {
            op: "moe_forward out",
            shape: shape_text.clone(),
            err: close(&got_all, &want_all),
            ms,
        },
    ];

    let dout: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(seed ^ (256 + r as u64), tokens * hidden))
        .collect();
    let dout_d = sym(&mut world, &dout)?;
    let mut poisoned = |len: usize| -> kernels::Result<SymmetricBuffer<bf16>> {
        let b = world.alloc_symmetric::<bf16>(len)?;
        for copy in b.ranks() {
            copy.fill(bf16::NAN)?;
        }
        Ok(b)
    };
    let (dx, dw1, dw2) = (
        poisoned(tokens * hidden)?,
        poisoned(local * 2 * ffn * hidden)?,
        poisoned(local * hidden * ffn)?,
    );
    let (dws1, dws2) = (poisoned(2 * ffn * hidden)?, poisoned(hidden * ffn)?);
    let d_router = world.alloc_symmetric::<f32>(experts * hidden)?;
    for copy in d_router.ranks() {
        copy.fill(f32::NAN)?;
    }
    let grads = MoeGradients {
        dx: &dx,
        router: &d_router,
        w1: &dw1,
        w2: &dw2,
        shared: Some((&dws1, &dws2)),
    };
    let start = Instant::now();
    layer.backward(&mut world, &pass, &x_d, &dout_d, &weights, &grads)?;
    world.synchronize()?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let want = reference::backward::MoeGradients::new(
        &x,
        &dout,
        &ref_shape,
        &ref_weights,
        &ref_routing,
        Rounding::Bf16,
    );
    let (want_shared1, want_shared2) = want.shared.as_ref().expect("a shared expert");
    let per_rank = [
        ("moe_backward dx", &dx, &want.dx),
        ("moe_backward dw1", &dw1, &want.w1),
        ("moe_backward dw2", &dw2, &want.w2),
    ];
    for (op, got, want) in per_rank {
        let got: Vec<f64> = concatenated(got)?;
        checks.push(Check {
            op,
            shape: shape_text.clone(),
            err: close(&got, &want.concat()),
            ms,
        });
    }
    let replicated = [
        ("moe_backward router", summed(&d_router)?, &want.router),
        ("moe_backward shared dw1", summed(&dws1)?, want_shared1),
        ("moe_backward shared dw2", summed(&dws2)?, want_shared2),
    ];
    for (op, got, want) in replicated {
        checks.push(Check {
            op,
            shape: shape_text.clone(),
            err: close(&got, want),
            ms,
        });
    }
    Ok(checks)
}

/// Within [`TOLERANCE`] of the larger of an element and the reference's root mean square.
fn close(got: &[f64], want: &[f64]) -> compare::RelErr {
    let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
    compare::rel_err(got, want, Scale::Each { floor: rms }, TOLERANCE)
}

/// Every rank's copy, one after the other.
fn concatenated<T: DeviceScalar + Into<f64>>(b: &SymmetricBuffer<T>) -> kernels::Result<Vec<f64>> {
    let mut all = Vec::new();
    for copy in b.ranks() {
        all.extend(copy.download()?.into_iter().map(Into::into));
    }
    Ok(all)
}

/// The sum over the ranks of a replicated weight's gradient parts.
fn summed<T: DeviceScalar + Into<f64>>(b: &SymmetricBuffer<T>) -> kernels::Result<Vec<f64>> {
    let mut sum: Vec<f64> = Vec::new();
    for copy in b.ranks() {
        let part = copy.download()?;
        sum.resize(part.len(), 0.0);
        for (s, v) in sum.iter_mut().zip(part) {
            *s += v.into();
        }
    }
    Ok(sum)
}

/// A symmetric buffer holding `data[r]` on rank `r`.
fn sym<T: DeviceScalar>(world: &mut World, data: &[Vec<T>]) -> kernels::Result<SymmetricBuffer<T>> {
    let b = world.alloc_symmetric::<T>(data[0].len())?;
    for (copy, d) in b.ranks().iter().zip(data) {
        copy.upload(d)?;
    }
    Ok(b)
}
