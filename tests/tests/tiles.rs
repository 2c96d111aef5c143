//! Fragments and `mma` on the CPU device: one 16x16x16 product and the kernels crate's
//! fragment gemm on ragged shapes, for subgroups of 32 and 64 lanes, against f64 references.

use half::bf16;
use kosmos_cpu::{Arg, CpuConfig, CpuDevice};
use kosmos_ir::{Constant, FragRole, KernelBuilder, ScalarType, Type};
use kosmos_testkernels as k;
use rand::{Rng, SeedableRng, rngs::SmallRng};

fn rng(test: &str) -> SmallRng {
    let seed: u64 = rand::rng().random();
    println!("{test}: seed {seed}");
    SmallRng::seed_from_u64(seed)
}

fn device(subgroup_size: u32) -> CpuDevice {
    CpuDevice::with_config(CpuConfig {
        subgroup_size,
        ..CpuConfig::default()
    })
}

fn u32_arg(v: u32) -> Arg {
    Arg::Scalar(Constant::int(ScalarType::U32, v as i64))
}

fn upload(dev: &CpuDevice, bytes: &[u8]) -> u64 {
    let p = dev.alloc(bytes.len() as u64).unwrap();
    dev.write(p, bytes).unwrap();
    p
}

fn random_bf16(rng: &mut SmallRng, len: usize) -> Vec<bf16> {
    (0..len)
        .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect()
}

fn bf16_bytes(v: &[bf16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A NaN-filled f32 output, so that unwritten elements show.
fn poisoned(dev: &CpuDevice, len: usize) -> u64 {
    upload(dev, &f32::NAN.to_le_bytes().repeat(len))
}

fn download_f32(dev: &CpuDevice, p: u64, n: usize) -> Vec<f32> {
    let mut b = vec![0u8; n * 4];
    dev.read(p, &mut b).unwrap();
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Largest error relative to the largest reference magnitude (NaN counts as infinite).
fn max_rel_err(got: &[f32], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0f64, |m, w| m.max(w.abs())).max(1e-30);
    got.iter()
        .zip(want)
        .map(|(g, w)| {
            let e = (*g as f64 - w).abs() / scale;
            if e.is_nan() { f64::INFINITY } else { e }
        })
        .fold(0f64, f64::max)
}

/// `c = c0 + a x b` for one 16x16x16 tile per subgroup, with a non-zero starting
/// accumulator made by a first `mma` (c0 = a0 x b0).
#[test]
fn mma_16x16x16_matches_f64_for_both_subgroup_sizes() {
    let mut rng = rng("mma_16x16x16");
    let mut kb = KernelBuilder::new("mma_tile", 128);
    let pa = kb.param("a", Type::GLOBAL_PTR);
    let pb = kb.param("b", Type::GLOBAL_PTR);
    let pc = kb.param("c", Type::GLOBAL_PTR);
    let stride = kb.const_u32(16);
    let second = kb.const_u32(256);
    let zero = kb.frag_zero();
    let a0 = kb.frag_load(FragRole::A, pa, stride);
    let b0 = kb.frag_load(FragRole::B, pb, stride);
    let c0 = kb.mma(a0, b0, zero);
    let pa1 = kb.ptr_offset(pa, second, Type::BF16);
    let pb1 = kb.ptr_offset(pb, second, Type::BF16);
    let a1 = kb.frag_load(FragRole::A, pa1, stride);
    let b1 = kb.frag_load(FragRole::B, pb1, stride);
    let c = kb.mma(a1, b1, c0);
    kb.frag_store(pc, c, stride);
    let kernel = kb.finish();

    let (a, b) = (random_bf16(&mut rng, 512), random_bf16(&mut rng, 512));
    let mut want = vec![0f64; 256];
    for t in 0..2 {
        let r = k::matmul_bf16_ref(&a[256 * t..256 * (t + 1)], &b[256 * t..], 16, 16, 16);
        want.iter_mut().zip(r).for_each(|(w, x)| *w += x);
    }
    for sg in [32, 64] {
        let dev = device(sg);
        let (da, db) = (upload(&dev, &bf16_bytes(&a)), upload(&dev, &bf16_bytes(&b)));
        let dc = poisoned(&dev, 256);
        // Two subgroups store the same tile: both must compute it.
        dev.launch(
            &kernel,
            [1, 1, 1],
            [2 * sg, 1, 1],
            &[Arg::Ptr(da), Arg::Ptr(db), Arg::Ptr(dc)],
        )
        .unwrap();
        let got = download_f32(&dev, dc, 256);
        let err = max_rel_err(&got, &want);
        assert!(err < 1e-6, "subgroup {sg}: max relative error {err}");
    }
}

/// The kernels crate's gemm instance `name`, as IR for the CPU device.
fn kernels_gemm(persistent: bool) -> kosmos_ir::Kernel {
    let name = if persistent {
        kernels::ops::gemm::name::<1>()
    } else {
        kernels::ops::gemm::name::<0>()
    };
    let ir = kernels::MODULE.ir().expect("the embedded IR verifies");
    ir.kernels
        .into_iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("{name} is not in kernels::MODULE"))
}

/// The kernels crate's gemm on an `m x n x kk` problem with `subgroup`-lane subgroups: one
/// workgroup per tile, or (`persistent`) three workgroups pulling tiles from a counter.
fn run_gemm(
    rng: &mut SmallRng,
    subgroup: u32,
    persistent: bool,
    (m, n, kk): (usize, usize, usize),
) {
    let (a, b) = (random_bf16(rng, m * kk), random_bf16(rng, kk * n));
    let dev = device(subgroup);
    let (da, db) = (upload(&dev, &bf16_bytes(&a)), upload(&dev, &bf16_bytes(&b)));
    let dc = poisoned(&dev, m * n);
    let counter = upload(&dev, &0u32.to_le_bytes());
    let tile = kernels::GEMM_TILE as usize;
    let tiles = (m.div_ceil(tile) * n.div_ceil(tile)) as u32;
    let grid = if persistent { tiles.min(3) } else { tiles };
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(db),
        Arg::Ptr(dc),
        Arg::Ptr(counter),
        u32_arg(m as u32),
        u32_arg(n as u32),
        u32_arg(kk as u32),
    ];
    dev.launch(
        &kernels_gemm(persistent),
        [grid, 1, 1],
        [kernels::GEMM_SUBGROUPS * subgroup, 1, 1],
        &args,
    )
    .unwrap();
    let got = download_f32(&dev, dc, m * n);
    let want = k::matmul_bf16_ref(&a, &b, m, n, kk);
    let err = max_rel_err(&got, &want);
    assert!(
        err < 1e-5,
        "subgroup {subgroup}, persistent {persistent}, M={m} N={n} K={kk}: max relative error {err}"
    );
}

#[test]
fn gemm_ragged_shapes_subgroup_32() {
    let mut rng = rng("gemm_ragged_32");
    for shape in [(130, 96, 72), (1, 1, 1), (257, 257, 257)] {
        run_gemm(&mut rng, 32, false, shape);
    }
}

/// Whole tiles (fragments stored straight to `c`) beside edge tiles, and more tile rows
/// than one group of the tile order, on both staging paths (K a multiple of 8 or not); the
/// persistent instance on the same shapes.
#[test]
fn gemm_interior_tiles_and_grouped_order() {
    let mut rng = rng("gemm_interior");
    for shape in [(256, 256, 48), (1100, 136, 24), (1100, 136, 20)] {
        run_gemm(&mut rng, 32, false, shape);
        run_gemm(&mut rng, 32, true, shape);
    }
}

#[test]
fn gemm_ragged_shapes_subgroup_64() {
    let mut rng = rng("gemm_ragged_64");
    for shape in [(130, 96, 72), (1, 1, 1), (64, 200, 33), (200, 129, 257)] {
        run_gemm(&mut rng, 64, false, shape);
        run_gemm(&mut rng, 64, true, shape);
    }
}
