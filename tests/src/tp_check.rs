//! The tensor-parallel MLP block (`kernels::TpMlp`: AG+GEMM FC1, GELU, GEMM+RS FC2) forward
//! and backward on an emulated world of the device, through the public API, on random
//! inputs against the f64 reference of `kosmos_testkernels::mlp`: the demo's first rows.

use crate::gemm_check::Check;
use half::bf16;
use kernels::{MlpShape, TpMlp, TpOps};
use kosmos_runtime::{Device, SymmetricBuffer, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::mlp::MlpReference;
use kosmos_testkernels::random_bf16;
use std::time::Instant;

/// Largest error of each result relative to the largest reference magnitude: a value
/// rounded to bf16 between the GEMMs may land one ulp (2^-8) from the reference's rounding.
const TOLERANCE: f64 = 1.0 / 64.0;

/// Runs the block on a world of `ranks` emulated on `device` (`shape.tokens` and
/// `shape.d_ff` divisible by `ranks`) from `seed`: every output poisoned first, one forward
/// and one backward pass, then `y`, `dx`, `dw1` and `dw2` of every rank against the
/// reference. `ms` is the host's time for both passes and the synchronisation.
pub fn check_mlp(
    device: &Device,
    ranks: u32,
    shape: MlpShape,
    seed: u64,
) -> kernels::Result<Vec<Check>> {
    let MlpShape {
        tokens,
        d_model,
        d_ff,
    } = shape;
    let (r_us, shard, hidden) = (
        ranks as usize,
        tokens / ranks as usize,
        d_ff / ranks as usize,
    );
    let mut world = World::emulated(device, ranks, WorldOptions::default())?;
    let mut ops = TpOps::new(&world)?;
    let mut mlp = TpMlp::new(&mut world, shape)?;
    let x = random_bf16(seed, tokens * d_model);
    let dy = random_bf16(seed ^ 1, tokens * d_model);
    let w1: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(seed ^ (2 + 2 * r as u64), d_model * hidden))
        .collect();
    let w2: Vec<Vec<bf16>> = (0..r_us)
        .map(|r| random_bf16(seed ^ (3 + 2 * r as u64), hidden * d_model))
        .collect();
    let dyg = world.alloc_symmetric::<bf16>(tokens * d_model)?;
    // Each rank starts with its own rows of `x` and `dy`; the rest is poison the passes
    // must gather over.
    let own = |all: &[bf16], r: usize| {
        let mut v = vec![bf16::NAN; all.len()];
        let rows = r * shard * d_model..(r + 1) * shard * d_model;
        v[rows.clone()].copy_from_slice(&all[rows]);
        v
    };
    for r in 0..r_us {
        mlp.w1.ranks()[r].upload(&w1[r])?;
        mlp.w2.ranks()[r].upload(&w2[r])?;
        mlp.x.ranks()[r].upload(&own(&x, r))?;
        dyg.ranks()[r].upload(&own(&dy, r))?;
    }
    let poisoned = |world: &mut World, len| -> kernels::Result<SymmetricBuffer<f32>> {
        let b = world.alloc_symmetric::<f32>(len)?;
        for c in b.ranks() {
            c.fill(f32::NAN)?;
        }
        Ok(b)
    };
    let y = poisoned(&mut world, shard * d_model)?;
    let dx = poisoned(&mut world, shard * d_model)?;
    let mut dw1 = poisoned(&mut world, d_model * hidden)?;
    let mut dw2 = poisoned(&mut world, hidden * d_model)?;
    let start = Instant::now();
    mlp.forward(&mut ops, &mut world, &y)?;
    mlp.backward(&mut ops, &mut world, &dyg, &dx, &mut dw1, &mut dw2)?;
    world.synchronize()?;
    let ms = start.elapsed().as_secs_f64() * 1e3;

    let want = MlpReference::new(&x, &dy, &w1, &w2, tokens, d_model);
    let rows = |v: &[f64], r: usize| v[r * shard * d_model..(r + 1) * shard * d_model].to_vec();
    let mut checks = Vec::new();
    for (op, got, want) in [
        (
            "tp_mlp y",
            &y,
            (0..r_us).map(|r| rows(&want.y, r)).collect::<Vec<_>>(),
        ),
        (
            "tp_mlp dx",
            &dx,
            (0..r_us).map(|r| rows(&want.dx, r)).collect(),
        ),
        ("tp_mlp dw1", &dw1, want.dw1.clone()),
        ("tp_mlp dw2", &dw2, want.dw2.clone()),
    ] {
        let (mut got_all, mut want_all) = (Vec::new(), Vec::new());
        for (copy, want) in got.ranks().iter().zip(&want) {
            got_all.extend(copy.download()?);
            want_all.extend(want);
        }
        checks.push(Check {
            op,
            shape: format!("{ranks} ranks {tokens}x{d_model}x{d_ff}"),
            err: compare::rel_err(&got_all, &want_all, Scale::Largest, TOLERANCE),
            ms,
        });
    }
    Ok(checks)
}
