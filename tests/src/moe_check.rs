//! The one-launch MoE layer forward pass (`kernels::MoeLayer`) on an emulated expert-parallel
//! world of the device, through the public API, on random inputs against the f64 reference
//! of `kosmos_testkernels::moe`: DeepSeek-V3's routing (sigmoid with a selection bias, group
//! limited) and a shared expert; the demo's first row.

use crate::gemm_check::Check;
use half::bf16;
use kernels::{MoeLayer, MoeOptions, MoeShape, MoeWeights, Routing};
use kosmos_runtime::{Device, DeviceScalar, SymmetricBuffer, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::moe as reference;
use kosmos_testkernels::random_bf16;
use std::time::Instant;

/// Outputs against the reference, relative to the larger of an element and the outputs'
/// root mean square: the activations are rounded to bf16 between the GEMMs at the same
/// points in both, but f64 and f32 sums may round them to neighbouring values.
const TOLERANCE: f64 = 3e-2;

/// Groups of experts, and the groups each token may pick from.
const GROUPS: u32 = 4;
const TOPK_GROUPS: u32 = 2;

/// Runs the layer on a world of `ranks` emulated on `device` from `seed`: the output poisoned
/// first, one forward pass, then every rank's picks and output against the reference. `ms`
/// is the host's time for the launch and its synchronisation.
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
    layer.forward(&mut world, &x_d, &weights, &out)?;
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
        got_all.extend(copy.download()?);
        want_all.extend(&want.out[r]);
        let p = picks[r].download()?;
        picked.extend(p[..tokens * topk].iter().map(|&e| f64::from(e)));
        want_picks.extend(
            routes
                .iter()
                .flat_map(|t| t.experts.iter().map(|&e| f64::from(e))),
        );
    }
    let rms = (want_all.iter().map(|v| v * v).sum::<f64>() / want_all.len() as f64).sqrt();
    let shape_text = format!("{ranks} ranks {tokens}x{hidden} E{experts} top{topk} F{ffn}");
    Ok(vec![
        Check {
            op: "moe_forward picks",
            shape: shape_text.clone(),
            err: compare::rel_err(&picked, &want_picks, Scale::Fixed(1.0), 0.0),
            ms,
        },
        Check {
            op: "moe_forward out",
            shape: shape_text,
            err: compare::rel_err(&got_all, &want_all, Scale::Each { floor: rms }, TOLERANCE),
            ms,
        },
    ])
}

/// A symmetric buffer holding `data[r]` on rank `r`.
fn sym<T: DeviceScalar>(world: &mut World, data: &[Vec<T>]) -> kernels::Result<SymmetricBuffer<T>> {
    let b = world.alloc_symmetric::<T>(data[0].len())?;
    for (copy, d) in b.ranks().iter().zip(data) {
        copy.upload(d)?;
    }
    Ok(b)
}
