//! The fused tensor-parallel ops on CPU-device worlds of 1 to 8 ranks with ragged shapes
//! (tiles cut by the shard, `n` and `k` edges), against unfused f64 host references;
//! outputs poisoned before every run, inputs fresh random values (seed printed; set
//! `KOSMOS_SEED` to replay). Each op also runs with two workgroup counts and both tile
//! widths of the pipeline, and on the group mainloop (HIP's kernels): all bitwise equal.

mod common;
use common::{download, sym, test_device, world};
use kernels::{Error, Layout, TpOps};
use kosmos::bf16;
use kosmos::runtime::{DeviceScalar, SymmetricBuffer, World, WorldOptions};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::mlp::transposed;
use kosmos_testkernels::{random_bf16, seed};

/// World size, rows per rank, and each rank's `n` and `k`.
const CASES: [(u32, usize, usize, usize); 5] = [
    (1, 37, 24, 40),
    (2, 40, 24, 72),
    (3, 130, 136, 16),
    (4, 20, 40, 136),
    (8, 9, 16, 24),
];

/// Each rank's `k x n` weights as `layout` stores them.
fn stored(ws: &[Vec<bf16>], layout: Layout, k: usize, n: usize) -> Vec<Vec<bf16>> {
    match layout {
        Layout::N => ws.to_vec(),
        Layout::T => ws.iter().map(|w| transposed(w, k, n)).collect(),
    }
}

/// `a b` in f64 (`a` `m x k`, `b` `k x n`).
fn product(a: &[bf16], b: &[bf16], m: usize, n: usize, k: usize) -> Vec<f64> {
    kosmos_testkernels::matmul_bf16_ref(a, b, m, n, k)
}

/// Every rank's copy of `y`, poisoned with NaN.
fn poison<T: DeviceScalar>(y: &SymmetricBuffer<T>, nan: T) {
    for b in y.ranks() {
        b.fill(nan).unwrap();
    }
}

/// Runs `op` on the pipeline with 1 workgroup per rank and 128 x 128 tiles, then 3 and
/// 128 x 256, then 2 and the first block of rows of each shard wide, the rest narrow
/// (mixed where a shard has more than one block), then on the group mainloop (HIP's
/// kernels) with 2 (output poisoned before each), checks the results are bitwise equal
/// and returns them.
fn thrice<T: DeviceScalar + PartialEq + std::fmt::Debug>(
    ops: &mut TpOps,
    y: &SymmetricBuffer<T>,
    nan: T,
    what: &str,
    mut op: impl FnMut(&mut TpOps) -> Result<(), Error>,
) -> Vec<Vec<T>> {
    let mut runs = Vec::new();
    let configs = [
        (true, 1, 0),
        (true, 3, u32::MAX),
        (true, 2, 1),
        (false, 2, 0),
    ];
    for (pipeline, per_rank, wide_blocks) in configs {
        poison(y, nan);
        ops.set_pipeline(pipeline).unwrap();
        ops.set_workgroups_per_rank(Some(per_rank));
        ops.set_wide_blocks(Some(wide_blocks));
        op(ops).unwrap_or_else(|e| panic!("{what}: {e}"));
        runs.push(download(y));
    }
    assert!(
        runs[0] == runs[1],
        "{what}: 1 and 3 workgroups per rank (narrow and wide tiles) differ"
    );
    assert!(
        runs[0] == runs[2],
        "{what}: narrow tiles and a split between widths differ"
    );
    assert!(
        runs[0] == runs[3],
        "{what}: the pipeline and the group mainloop differ"
    );
    runs.swap_remove(0)
}

fn check<T: Copy + Into<f64>>(got: &[T], want: &[f64], tolerance: f64, what: String) {
    compare::rel_err(got, want, Scale::Each { floor: 1.0 }, tolerance).assert(what);
}

/// bf16 results: half an ulp (up to 2^-8 of the value) on top of the f32 result's error.
const BF16_OUT: f64 = 1.0 / 128.0;

/// Runs `test` on every case of [`CASES`] — (world size, rows per rank, rows in all, `n`,
/// `k`, the seed of its inputs) — each with a fresh CPU world and its ops.
fn each_case(mut test: impl FnMut((u32, usize, usize, usize, usize, u64), &mut World, &mut TpOps)) {
    let seed = seed();
    for (i, &(ranks, shard, n, k)) in CASES.iter().enumerate() {
        let mut world = world(ranks);
        let mut ops = TpOps::new(&world).unwrap();
        let case = (
            ranks,
            shard,
            shard * ranks as usize,
            n,
            k,
            seed.wrapping_add(100 * i as u64),
        );
        test(case, &mut world, &mut ops);
    }
}

#[test]
fn ag_gemm_matches_the_unfused_reference() {
    each_case(|(ranks, shard, m, n, k, s), world, ops| {
        let r_us = ranks as usize;
        let x_all = random_bf16(s, m * k);
        let ws: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + 1 + r as u64, k * n))
            .collect();
        let want: Vec<Vec<f64>> = ws.iter().map(|w| product(&x_all, w, m, n, k)).collect();
        // Each rank's gathered buffer holds its own rows, the rest poisoned.
        let own: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| {
                let mut x = vec![bf16::NAN; m * k];
                let rows = r * shard * k..(r + 1) * shard * k;
                x[rows.clone()].copy_from_slice(&x_all[rows]);
                x
            })
            .collect();
        let y = world.alloc_symmetric::<f32>(m * n).unwrap();
        let y16 = world.alloc_symmetric::<bf16>(m * n).unwrap();
        for layout in [Layout::N, Layout::T] {
            let w = sym(world, &stored(&ws, layout, k, n));
            let what = format!("ag_gemm R={ranks} m={m} n={n} k={k} {layout:?}");
            let x = sym(world, &own);
            let got = thrice(ops, &y, f32::NAN, &what, |ops| {
                // The gather fills the peers' rows in: put them back to poison each run.
                for (r, d) in own.iter().enumerate() {
                    x.rank(r as u32).unwrap().upload(d).unwrap();
                }
                ops.ag_gemm(world, &x, &w, layout, &y, m, n, k)?;
                Ok(world.synchronize()?)
            });
            for r in 0..r_us {
                check(
                    &got[r],
                    &want[r],
                    compare::BF16_DOT_F32,
                    format!("{what} rank {r}"),
                );
                assert_eq!(x.rank(r as u32).unwrap().download().unwrap(), x_all);
            }
            let got16 = thrice(ops, &y16, bf16::NAN, &what, |ops| {
                ops.ag_gemm(world, &x, &w, layout, &y16, m, n, k)?;
                Ok(world.synchronize()?)
            });
            for r in 0..r_us {
                check(
                    &got16[r],
                    &want[r],
                    BF16_OUT,
                    format!("{what} bf16 rank {r}"),
                );
            }
        }
    });
}

#[test]
fn gemm_rs_and_gemm_ar_match_the_unfused_reference() {
    each_case(|(ranks, shard, m, n, k, s), world, ops| {
        let r_us = ranks as usize;
        let xs: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + 2 * r as u64, m * k))
            .collect();
        let ws: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + 2 * r as u64 + 1, k * n))
            .collect();
        let mut sum = vec![0f64; m * n];
        for (x, w) in xs.iter().zip(&ws) {
            for (s, p) in sum.iter_mut().zip(product(x, w, m, n, k)) {
                *s += p;
            }
        }
        let x = sym(world, &xs);
        let y = world.alloc_symmetric::<f32>(shard * n).unwrap();
        let y16 = world.alloc_symmetric::<bf16>(shard * n).unwrap();
        for layout in [Layout::N, Layout::T] {
            let w = sym(world, &stored(&ws, layout, k, n));
            let what = format!("gemm_rs R={ranks} m={m} n={n} k={k} {layout:?}");
            let got = thrice(ops, &y, f32::NAN, &what, |ops| {
                ops.gemm_rs(world, &x, &w, layout, &y, m, n, k)?;
                Ok(world.synchronize()?)
            });
            let got16 = thrice(ops, &y16, bf16::NAN, &what, |ops| {
                ops.gemm_rs(world, &x, &w, layout, &y16, m, n, k)?;
                Ok(world.synchronize()?)
            });
            for r in 0..r_us {
                let want = &sum[r * shard * n..(r + 1) * shard * n];
                check(
                    &got[r],
                    want,
                    compare::BF16_DOT_F32,
                    format!("{what} rank {r}"),
                );
                check(&got16[r], want, BF16_OUT, format!("{what} bf16 rank {r}"));
            }
        }
        let w = sym(world, &ws);
        let y = world.alloc_symmetric::<f32>(m * n).unwrap();
        let what = format!("gemm_ar R={ranks} m={m} n={n} k={k}");
        let got = thrice(ops, &y, f32::NAN, &what, |ops| {
            ops.gemm_ar(world, &x, &w, &y, m, n, k)?;
            Ok(world.synchronize()?)
        });
        for (r, got) in got.iter().enumerate() {
            check(got, &sum, compare::BF16_DOT_F32, format!("{what} rank {r}"));
        }
        // Every rank holds the same sums, bit for bit (the vectors have no NaN left).
        assert!(got.iter().all(|g| *g == got[0]), "{what}: ranks differ");
    });
}

/// Shapes and buffers that do not fit are errors naming the argument, before any launch.
/// The benchmarks' unfused reduce-scatter (`ops::reduce_scatter_rows`, the baseline of
/// `gemm_rs`): every rank's rows are the f32 sum of the ranks' partials in rank order,
/// bitwise, with one and with three workgroups per rank.
#[test]
fn the_unfused_reduce_scatter_sums_the_ranks_in_order() {
    each_case(|(ranks, shard, m, n, _, s), world, _| {
        let r_us = ranks as usize;
        let parts: Vec<Vec<f32>> = (0..r_us)
            .map(|r| {
                let v = random_bf16(s + r as u64, m * n);
                v.iter().map(|x| x.to_f32() * 1.7).collect()
            })
            .collect();
        let partial = sym(world, &parts);
        let y = world.alloc_symmetric::<f32>(shard * n).unwrap();
        let modules = world
            .load_module(&kernels::KERNELS.image().unwrap())
            .unwrap();
        for groups in [1, 3] {
            poison(&y, f32::NAN);
            kernels::ops::reduce_scatter_rows::launch(
                world,
                &modules,
                groups,
                256,
                &partial,
                &y,
                shard as u32,
                n as u32,
                groups,
            )
            .unwrap();
            world.synchronize().unwrap();
            for (r, got) in download(&y).iter().enumerate() {
                for (i, &g) in got.iter().enumerate() {
                    let at = r * shard * n + i;
                    let want = parts.iter().fold(0.0f32, |acc, p| acc + p[at]);
                    assert_eq!(
                        g.to_bits(),
                        want.to_bits(),
                        "R={ranks} rank {r} element {i} with {groups} workgroups: {g} != {want}"
                    );
                }
            }
        }
    });
}

#[test]
fn fused_ops_refuse_bad_input_naming_it() {
    let mut world = world(3);
    let mut ops = TpOps::new(&world).unwrap();
    let (m, n, k) = (30, 16, 8);
    let x = world.alloc_symmetric::<bf16>(m * k).unwrap();
    let w = world.alloc_symmetric::<bf16>(k * n).unwrap();
    let y = world.alloc_symmetric::<f32>(m * n).unwrap();
    let shape_error = |r: Result<(), Error>, want: &str| match r {
        Err(Error::Shape { message, .. }) => assert!(message.contains(want), "{message}"),
        other => panic!("expected a shape error naming {want}, got {other:?}"),
    };
    // 31 rows do not split over 3 ranks.
    let x31 = world.alloc_symmetric::<bf16>(31 * k).unwrap();
    let y31 = world.alloc_symmetric::<f32>(31 * n).unwrap();
    shape_error(
        ops.ag_gemm(&mut world, &x31, &w, Layout::N, &y31, 31, n, k),
        "m = 31",
    );
    shape_error(
        ops.ag_gemm(&mut world, &x, &w, Layout::N, &y, m, n + 8, k),
        "w has",
    );
    shape_error(
        ops.gemm_rs(&mut world, &x, &w, Layout::N, &y, m, n, k),
        "y has",
    );
    let x12 = world.alloc_symmetric::<bf16>(m * 12).unwrap();
    let w12 = world.alloc_symmetric::<bf16>(12 * n).unwrap();
    shape_error(
        ops.ag_gemm(&mut world, &x12, &w12, Layout::N, &y, m, n, 12),
        "k = 12",
    );
    // A buffer of another world.
    let mut other = self::world(3);
    let foreign = other.alloc_symmetric::<bf16>(k * n).unwrap();
    match ops.ag_gemm(&mut world, &x, &foreign, Layout::N, &y, m, n, k) {
        Err(Error::World(kosmos::runtime::WorldError::ForeignBuffer { arg, .. })) => {
            assert_eq!(arg, "w");
        }
        other => panic!("expected a refusal of `w`, got {other:?}"),
    }
}

/// The Megatron-style MLP block (AG+GEMM FC1, GELU, GEMM+RS FC2), forward and backward, on
/// worlds of 2 and 4 ranks, against an unfused f64 reference that rounds to bf16 where the
/// block does (the activations between the GEMMs).
#[test]
fn tp_mlp_forward_and_backward_match_the_reference() {
    use kernels::{MlpShape, TpMlp};
    let seed = seed();
    for (ranks, tokens, d_model, d_ff) in [(2u32, 48usize, 40usize, 64usize), (4, 36, 24, 96)] {
        let r_us = ranks as usize;
        let (shard, hidden) = (tokens / r_us, d_ff / r_us);
        let mut world = world(ranks);
        let mut ops = TpOps::new(&world).unwrap();
        let shape = MlpShape {
            tokens,
            d_model,
            d_ff,
        };
        let mut mlp = TpMlp::new(&mut world, shape).unwrap();
        let s = seed.wrapping_add(ranks as u64 * 1000);
        let x = random_bf16(s, tokens * d_model);
        let dy = random_bf16(s + 1, tokens * d_model);
        let w1: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + 2 + 2 * r as u64, d_model * hidden))
            .collect();
        let w2: Vec<Vec<bf16>> = (0..r_us)
            .map(|r| random_bf16(s + 3 + 2 * r as u64, hidden * d_model))
            .collect();
        // Each rank's own rows of `x` and `dy`, the rest poisoned.
        let own = |all: &[bf16]| -> Vec<Vec<bf16>> {
            (0..r_us)
                .map(|r| {
                    let mut v = vec![bf16::NAN; all.len()];
                    let rows = r * shard * d_model..(r + 1) * shard * d_model;
                    v[rows.clone()].copy_from_slice(&all[rows]);
                    v
                })
                .collect()
        };
        for r in 0..r_us {
            mlp.w1.rank(r as u32).unwrap().upload(&w1[r]).unwrap();
            mlp.w2.rank(r as u32).unwrap().upload(&w2[r]).unwrap();
            mlp.x.rank(r as u32).unwrap().upload(&own(&x)[r]).unwrap();
        }
        let y = world.alloc_symmetric::<f32>(shard * d_model).unwrap();
        let dyg = sym(&mut world, &own(&dy));
        let dx = world.alloc_symmetric::<f32>(shard * d_model).unwrap();
        let mut dw1 = world.alloc_symmetric::<f32>(d_model * hidden).unwrap();
        let mut dw2 = world.alloc_symmetric::<f32>(hidden * d_model).unwrap();
        for out in [&y, &dx, &dw1, &dw2] {
            poison(out, f32::NAN);
        }
        mlp.forward(&mut ops, &mut world, &y).unwrap();
        mlp.backward(&mut ops, &mut world, &dyg, &dx, &mut dw1, &mut dw2)
            .unwrap();
        world.synchronize().unwrap();

        let want = kosmos_testkernels::mlp::MlpReference::new(&x, &dy, &w1, &w2, tokens, d_model);
        // Rounding the activations to bf16 can land a value one ulp (2^-8) apart from the
        // reference's rounding; that error spreads over a row's sum.
        let tol = 1.0 / 64.0;
        let rows = |v: &[f64], r: usize| v[r * shard * d_model..(r + 1) * shard * d_model].to_vec();
        for r in 0..r_us {
            let what = |name: &str| format!("mlp R={ranks} {name} rank {r}");
            let ru = r as u32;
            let got = |b: &SymmetricBuffer<f32>| b.rank(ru).unwrap().download().unwrap();
            compare::rel_err(&got(&y), &rows(&want.y, r), Scale::Largest, tol).assert(what("y"));
            compare::rel_err(&got(&dx), &rows(&want.dx, r), Scale::Largest, tol).assert(what("dx"));
            compare::rel_err(&got(&dw1), &want.dw1[r], Scale::Largest, tol).assert(what("dw1"));
            compare::rel_err(&got(&dw2), &want.dw2[r], Scale::Largest, tol).assert(what("dw2"));
        }
    }
}

/// A lost signal ends the op with a timeout naming rank, workgroup and task at the next
/// synchronize, not a hang; after `recover` the same op runs correctly again.
#[test]
fn a_planted_missing_signal_is_reported_naming_rank_workgroup_and_task() {
    let options = WorldOptions {
        wait_bound: Some(200),
        ..WorldOptions::default()
    };
    let mut world = World::emulated(&test_device(), 2, options).unwrap();
    let mut ops = TpOps::new(&world).unwrap();
    let (m, n, k) = (80, 16, 24);
    let x_all = random_bf16(seed(), m * k);
    let x = sym(&mut world, &[x_all.clone(), x_all.clone()]);
    let w = sym(&mut world, &[random_bf16(1, k * n), random_bf16(2, k * n)]);
    let y = world.alloc_symmetric::<f32>(m * n).unwrap();
    ops.set_workgroups_per_rank(Some(2));
    // Rank 1's only communication task pulls rank 0's rows: its tiles of them never start.
    ops.plant_missing_signal(1, 0);
    ops.ag_gemm(&mut world, &x, &w, Layout::N, &y, m, n, k)
        .unwrap();
    match world.synchronize() {
        Err(kosmos::runtime::WorldError::Timeout { records }) => {
            use kosmos::runtime::world::abi::WaitKind;
            // Rank 1's tiles of rank 0's rows (after its own shard's one tile) waited in
            // vain; rank 0, done, may have given up at the closing barrier meanwhile.
            let tasks: Vec<_> = records
                .iter()
                .filter(|r| r.kind == WaitKind::Task)
                .collect();
            assert!(!tasks.is_empty(), "{records:?}");
            for r in tasks {
                assert_eq!(r.rank, 1, "{r}");
                assert!(r.workgroup < 2, "{r}");
                assert!(r.task >= 1, "{r}");
            }
            let others = records.iter().filter(|r| r.kind != WaitKind::Task);
            assert!(
                others.clone().all(|r| r.kind == WaitKind::Barrier),
                "{records:?}"
            );
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    ops.recover(&mut world).unwrap();
    poison(&y, f32::NAN);
    ops.ag_gemm(&mut world, &x, &w, Layout::N, &y, m, n, k)
        .unwrap();
    world.synchronize().unwrap();
    let w1 = w.rank(1).unwrap().download().unwrap();
    let got = y.rank(1).unwrap().download().unwrap();
    check(
        &got,
        &product(&x_all, &w1, m, n, k),
        compare::BF16_DOT_F32,
        "after recover".into(),
    );
}

/// A backward pass captured once and replayed gives the eager pass's bits: its local GEMM
/// reuses the plan the eager call made (no host write inside). Capturing one whose buffers
/// no call used before is refused, saying so.
#[test]
fn a_captured_backward_replays_the_eager_result() {
    let (ranks, m, n, k) = (2u32, 64usize, 24usize, 40usize);
    let s = seed();
    let mut world = world(ranks);
    let mut ops = TpOps::new(&world).unwrap();
    let r_us = ranks as usize;
    let each = |len: usize, at: u64| -> Vec<Vec<bf16>> {
        (0..r_us).map(|r| random_bf16(at + r as u64, len)).collect()
    };
    let dy = sym(&mut world, &each(m * n, s));
    let x = sym(&mut world, &each(m * k, s + 10));
    let w = sym(&mut world, &each(k * n, s + 20));
    let dx = world.alloc_symmetric::<f32>(m / r_us * k).unwrap();
    let mut dw = world.alloc_symmetric::<f32>(k * n).unwrap();
    let of = kernels::TpForward::AgGemm;
    ops.backward(&mut world, of, &dy, &x, &w, &dx, &mut dw, (m, n, k))
        .unwrap();
    world.synchronize().unwrap();
    let eager = (download(&dx), download(&dw));
    let world_error = |e: Error| match e {
        Error::World(e) => e,
        e => panic!("{e}"),
    };
    let graph = world
        .capture(|world| {
            ops.backward(world, of, &dy, &x, &w, &dx, &mut dw, (m, n, k))
                .map_err(world_error)
        })
        .unwrap();
    for _ in 0..2 {
        poison(&dx, f32::NAN);
        poison(&dw, f32::NAN);
        // SAFETY: every buffer the graph names outlives the replays.
        unsafe { graph.replay(&mut world) }.unwrap();
        world.synchronize().unwrap();
        assert!(
            (download(&dx), download(&dw)) == eager,
            "a replay differs from the eager backward pass"
        );
    }
    let fresh = sym(&mut world, &each(m * k, s + 30));
    let Err(err) = world.capture(|world| {
        ops.backward(world, of, &dy, &fresh, &w, &dx, &mut dw, (m, n, k))
            .map_err(world_error)
    }) else {
        panic!("a new plan inside a capture was not refused");
    };
    assert!(err.to_string().contains("local GEMM"), "{err}");
    // `dw` as the ranks' own buffers: one per rank of the process, each `k x n`.
    let err = ops
        .backward_local_dw(&mut world, of, &dy, &x, &w, &dx, &mut [], (m, n, k))
        .unwrap_err();
    assert!(err.to_string().contains("dw has 0 buffers"), "{err}");
}
