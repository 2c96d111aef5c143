//! Fragments and `mma` on the CPU device: one 16x16x16 product, the kernels crate's fragment
//! gemm on ragged shapes, and a 128x128 tile on `copy.async` and `mma.group`, for subgroups
//! of 32 and 64 lanes, against f64 references.

use kosmos_cpu::{Arg, CpuConfig, CpuDevice};
use kosmos_ir::{CmpPred, Dim, FragRole, KernelBuilder, ScalarType, Type, Value};
use kosmos_testkernels as k;
use kosmos_testkernels::compare::{self, Scale};
use kosmos_tests::cpu::{download_f32, rng, u32_arg, upload, upload_bf16};
use kosmos_tests::suite::random_bf16;
use rand::rngs::SmallRng;

fn device(subgroup_size: u32) -> CpuDevice {
    CpuDevice::with_config(CpuConfig {
        subgroup_size,
        ..CpuConfig::default()
    })
}

/// A NaN-filled f32 output, so that unwritten elements show.
fn poisoned(dev: &CpuDevice, len: usize) -> u64 {
    upload(dev, &f32::NAN.to_le_bytes().repeat(len))
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
    let kernel = kosmos_ir::verify(kb.finish()).unwrap();

    let (a, b) = (random_bf16(&mut rng, 512), random_bf16(&mut rng, 512));
    let mut want = vec![0f64; 256];
    for t in 0..2 {
        let r = k::matmul_bf16_ref(&a[256 * t..256 * (t + 1)], &b[256 * t..], 16, 16, 16);
        want.iter_mut().zip(r).for_each(|(w, x)| *w += x);
    }
    for sg in [32, 64] {
        let dev = device(sg);
        let (da, db) = (upload_bf16(&dev, &a), upload_bf16(&dev, &b));
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
        compare::rel_err(&got, &want, Scale::Largest, 1e-6).assert(format_args!("subgroup {sg}"));
    }
}

/// The kernels crate's gemm instance `name`, as IR for the CPU device.
fn kernels_gemm(persistent: bool) -> kosmos_ir::VerifiedKernel {
    let name = if persistent {
        kernels::ops::gemm::name::<1>()
    } else {
        kernels::ops::gemm::name::<0>()
    };
    let ir = kernels::MODULE.ir().expect("the embedded IR verifies");
    ir.kernel(&name)
        .cloned()
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
    let (da, db) = (upload_bf16(&dev, &a), upload_bf16(&dev, &b));
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
    compare::rel_err(&got, &want, Scale::Largest, 1e-5).assert(format_args!(
        "subgroup {subgroup}, persistent {persistent}, M={m} N={n} K={kk}"
    ));
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

/// `c` (m x n, at most 128 x 128, row stride `ldc`) = `a` (m x k) x `b` (k x n), row-major,
/// by one workgroup of eight subgroups (two groups), the model of a GEMM on `mma.group`.
/// Per 64-deep K block, `copy.async` stages each group's swizzled 64x64 A tile and the
/// shared 64x128 B tile (zeros outside the matrices, whose addresses are then never read),
/// then every group runs `mma.group` into its subgroups' 16x128 slabs. `k`, `n` and `ldc`
/// are multiples of 8 (whole 16-byte chunks). With `masked`, the slabs are stored within the
/// ragged edges of `c`; without, whole.
fn group_gemm_kernel(masked: bool) -> kosmos_ir::Kernel {
    let mut kb = KernelBuilder::new("group_gemm", 1024);
    let pa = kb.param("a", Type::GLOBAL_PTR);
    let pb = kb.param("b", Type::GLOBAL_PTR);
    let pc = kb.param("c", Type::GLOBAL_PTR);
    let m = kb.param("m", Type::U32);
    let n = kb.param("n", Type::U32);
    let kk = kb.param("k", Type::U32);
    let ldc = kb.param("ldc", Type::U32);
    // Two A tiles of 64x64 and one B tile of 64x128, 1 KiB aligned by the shared layout.
    let sa = kb.shared_alloc("a_tiles", Type::BF16, 2 * 64 * 64);
    let sb = kb.shared_alloc("b_tile", Type::BF16, 64 * 128);
    let tid = kb.workitem_id(Dim::X);
    let lanes = kb.workgroup_size(Dim::X);
    let sg = kb.subgroup_id();
    let [c0, c1, c4, c8, c16, c63, c64, c512, c1024, c8192] =
        [0, 1, 4, 8, 16, 63, 64, 512, 1024, 8192].map(|v| kb.const_u32(v));
    let group = kb.div(sg, c4);
    let q = kb.rem(sg, c4);
    let k_pad = kb.add(kk, c63);
    let blocks = kb.div(k_pad, c64);
    let zero = kb.wide_zero();
    let acc = kb.for_range(c0, blocks, c1, &[zero], |kb, blk, acc| {
        let k0 = kb.mul(blk, c64);
        // A: chunk (t, i, kc) holds A(64 t + i, k0 + 8 kc .. + 8), placed at byte
        // 8192 t + 128 i + 16 (kc ^ (i % 8)).
        kb.for_range(tid, c1024, lanes, &[], |kb, ch, _| {
            let t = kb.div(ch, c512);
            let row_in = kb.div(ch, c8);
            let i = kb.rem(row_in, c64);
            let kc = kb.rem(ch, c8);
            let row0 = kb.mul(t, c64);
            let row = kb.add(row0, i);
            let col0 = kb.mul(kc, c8);
            let col = kb.add(k0, col0);
            let tile = kb.mul(t, c8192);
            let at = swizzled(kb, tile, i, kc);
            copy_chunk(kb, (pa, m, kk), (row, col), (sa, at));
            vec![]
        });
        // B: chunk (kr, nc) holds B(k0 + kr, 8 nc .. + 8), placed at byte
        // 8192 (nc / 8) + 128 kr + 16 ((nc % 8) ^ (kr % 8)).
        kb.for_range(tid, c1024, lanes, &[], |kb, ch, _| {
            let kr = kb.div(ch, c16);
            let nc = kb.rem(ch, c16);
            let krow = kb.add(k0, kr);
            let col = kb.mul(nc, c8);
            let half = kb.div(nc, c8);
            let half = kb.mul(half, c8192);
            let nc8 = kb.rem(nc, c8);
            let at = swizzled(kb, half, kr, nc8);
            copy_chunk(kb, (pb, kk, n), (krow, col), (sb, at));
            vec![]
        });
        kb.async_commit();
        kb.async_wait(0);
        kb.barrier();
        let a_at = kb.mul(group, c8192);
        let a_tile = kb.ptr_offset(sa, a_at, Type::Scalar(ScalarType::U8));
        let next = kb.mma_group(a_tile, sb, acc[0]);
        // The next K block overwrites the tiles only after every group has read them.
        kb.barrier();
        vec![next]
    });
    let g_rows = kb.mul(group, c64);
    let s_rows = kb.mul(q, c16);
    let row0 = kb.add(g_rows, s_rows);
    let at = kb.mul(row0, ldc);
    let slab = kb.ptr_offset(pc, at, Type::F32);
    if masked {
        let inside = kb.cmp(CmpPred::Lt, row0, m);
        let left = kb.sub(m, row0);
        let rows = kb.select(inside, left, c0);
        kb.frag_store_within(slab, acc[0], ldc, rows, n);
    } else {
        kb.frag_store(slab, acc[0], ldc);
    }
    let mut kernel = kb.finish();
    kernel.max_subgroups = Some(8);
    kernel
}

/// Byte `base + 128 line + 16 (chunk ^ (line % 8))`: the swizzled place of 16-byte chunk
/// `chunk` of row `line` in a tile of 128-byte rows, as `mma.group` reads it.
fn swizzled(kb: &mut KernelBuilder, base: Value, line: Value, chunk: Value) -> Value {
    let [c8, c16, c128] = [8, 16, 128].map(|v| kb.const_u32(v));
    let line_mod8 = kb.rem(line, c8);
    let swz = kb.xor(chunk, line_mod8);
    let swz = kb.mul(swz, c16);
    let line = kb.mul(line, c128);
    let at = kb.add(base, line);
    kb.add(at, swz)
}

/// `copy.async` of the 16-byte chunk at (`row`, `col`) of `matrix`, row-major bf16 of
/// `rows x cols`, to byte `at` of `stage`; zeros when the chunk lies outside the matrix.
fn copy_chunk(
    kb: &mut KernelBuilder,
    (matrix, rows, cols): (Value, Value, Value),
    (row, col): (Value, Value),
    (stage, at): (Value, Value),
) {
    let src_row = kb.mul(row, cols);
    let src_at = kb.add(src_row, col);
    let src = kb.ptr_offset(matrix, src_at, Type::BF16);
    let dst = kb.ptr_offset(stage, at, Type::Scalar(ScalarType::U8));
    let row_ok = kb.cmp(CmpPred::Lt, row, rows);
    let col_ok = kb.cmp(CmpPred::Lt, col, cols);
    let inside = kb.and(row_ok, col_ok);
    kb.copy_async(dst, src, inside);
}

/// Runs [`group_gemm_kernel`] on fresh random bf16 inputs with `subgroup`-lane subgroups;
/// `c` is `128 x ldc` NaNs first, and everything outside `m x n` must stay NaN.
fn run_group_gemm(
    rng: &mut SmallRng,
    subgroup: u32,
    masked: bool,
    (m, n, kk): (usize, usize, usize),
    ldc: usize,
) {
    let (a, b) = (random_bf16(rng, m * kk), random_bf16(rng, kk * n));
    let dev = device(subgroup);
    let (da, db) = (upload_bf16(&dev, &a), upload_bf16(&dev, &b));
    let dc = poisoned(&dev, 128 * ldc);
    let dims = [m, n, kk, ldc].map(|d| u32_arg(d as u32));
    let mut args = vec![Arg::Ptr(da), Arg::Ptr(db), Arg::Ptr(dc)];
    args.extend(dims);
    let kernel = kosmos_ir::verify(group_gemm_kernel(masked)).unwrap();
    dev.launch(&kernel, [1, 1, 1], [8 * subgroup, 1, 1], &args)
        .unwrap();
    let got = download_f32(&dev, dc, 128 * ldc);
    let want = k::matmul_bf16_ref(&a, &b, m, n, kk);
    let inside: Vec<f32> = (0..m * n).map(|e| got[e / n * ldc + e % n]).collect();
    let shape = format!("subgroup {subgroup}, M={m} N={n} K={kk} ldc={ldc}");
    compare::rel_err(&inside, &want, Scale::Largest, 1e-5).assert(&shape);
    let outside = (0..128 * ldc).filter(|e| e / ldc >= m || e % ldc >= n);
    for e in outside {
        assert!(
            got[e].is_nan(),
            "{shape}: c({}, {}) = {} was written",
            e / ldc,
            e % ldc,
            got[e]
        );
    }
}

/// Two K blocks of whole tiles: 128 x 128 x 128, whole slabs stored.
#[test]
fn group_mma_128x128x128_matches_f64() {
    let mut rng = rng("group_mma");
    for subgroup in [32, 64] {
        run_group_gemm(&mut rng, subgroup, false, (128, 128, 128), 128);
    }
}

/// Ragged C (rows of the second group's last slabs and columns past `n` masked off, row
/// stride wider than `n`) and a ragged K (the second block's last columns zero-filled).
#[test]
fn group_mma_ragged_c_masked_stores() {
    let mut rng = rng("group_mma_ragged");
    for subgroup in [32, 64] {
        run_group_gemm(&mut rng, subgroup, true, (100, 88, 120), 96);
        run_group_gemm(&mut rng, subgroup, true, (17, 8, 8), 8);
    }
}

/// The kernel's `max_subgroups 8` bounds its launch below `max_workgroup_size`.
#[test]
fn group_mma_launch_bound_is_max_subgroups() {
    let dev = device(32);
    let dc = poisoned(&dev, 128 * 128);
    let mut args = vec![Arg::Ptr(dc); 3];
    args.extend([u32_arg(128); 4]);
    let e = dev
        .launch(
            &kosmos_ir::verify(group_gemm_kernel(false)).unwrap(),
            [1, 1, 1],
            [16 * 32, 1, 1],
            &args,
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            kosmos_cpu::CpuError::WorkgroupTooLarge {
                block: [512, 1, 1],
                limit: 256,
                ..
            }
        ),
        "{e}"
    );
}
