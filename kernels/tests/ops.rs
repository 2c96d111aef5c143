//! Every operation on the CPU device with ragged shapes, against f64 references; outputs are
//! poisoned (NaN) before each run and inputs are fresh random values (seed printed; set
//! `KOSMOS_SEED` to replay).

use kernels::{Error, Ops};
use kosmos::runtime::{Buffer, Device, Error as RuntimeError, LaunchConfig, Stream};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_testkernels::{matmul_bf16_ref, random_bf16, seed, vector_add_ref};
use rand::{Rng, SeedableRng, rngs::SmallRng};

const SIZES: [usize; 6] = [1, 2, 17, 64, 255, 257];

/// The kernels loaded on `device`, and a stream to run them on.
fn ops_on(device: &Device) -> (Ops, Stream) {
    (Ops::new(device).unwrap(), device.stream().unwrap())
}

/// An f32 output of `len` NaNs, so that unwritten elements show.
fn poisoned(device: &Device, len: usize) -> Buffer<f32> {
    let out = device.alloc::<f32>(len).unwrap();
    out.fill(f32::NAN).unwrap();
    out
}

fn random_f32(rng: &mut SmallRng, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

#[test]
fn vector_add_matches_reference() {
    let device = Device::cpu().unwrap();
    let (ops, stream) = ops_on(&device);
    let mut rng = SmallRng::seed_from_u64(seed());
    for n in SIZES.into_iter().chain([1000]) {
        let (a_h, b_h) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let a = Buffer::from_slice(&device, &a_h).unwrap();
        let b = Buffer::from_slice(&device, &b_h).unwrap();
        let mut out = poisoned(&device, n);
        ops.vector_add(&stream, &a, &b, &mut out).unwrap();
        stream.synchronize().unwrap();
        compare::rel_err(
            &out.download().unwrap(),
            &vector_add_ref(&a_h, &b_h),
            Scale::Each { floor: 1e-6 },
            1e-6,
        )
        .assert(format_args!("n={n}"));
    }
}

#[test]
fn reduce_sum_matches_reference() {
    let device = Device::cpu().unwrap();
    let (ops, stream) = ops_on(&device);
    let mut rng = SmallRng::seed_from_u64(seed());
    for n in SIZES.into_iter().chain([4096, 70_000]) {
        let input_h = random_f32(&mut rng, n);
        let input = Buffer::from_slice(&device, &input_h).unwrap();
        let mut out = poisoned(&device, 1);
        ops.reduce_sum(&stream, &input, &mut out).unwrap();
        let want: f64 = input_h.iter().map(|x| f64::from(*x)).sum();
        // f32 accumulation: the error scales with the sum of magnitudes.
        let scale: f64 = input_h.iter().map(|x| f64::from(x.abs())).sum();
        compare::rel_err(&out.download().unwrap(), &[want], Scale::Fixed(scale), 1e-5)
            .assert(format_args!("n={n}"));
    }
}

/// (m, n, k) shapes sampling 1..=257 in each dimension: edge tiles on both staging paths
/// of the fragment kernel (K and N multiples of 8 or not), interior tiles stored straight to
/// `c` beside edge tiles, and more tile rows than one group of the tile order (257 x 136:
/// 3 x 2 tiles). Those with K and N multiples of 8 run on the pipelined kernel (on the CPU
/// device; `gemm_group` elsewhere): single rows and columns of chunks, K steps cut short,
/// masked edge slabs. The last five also suit the transposed layouts of the pipeline (whose
/// stored rows of `a^T` are `m` long) and wrap its ring around across tiles (300 x 264 x 520).
const GEMM_SHAPES: [(usize, usize, usize); 15] = [
    (1, 1, 1),
    (2, 17, 64),
    (17, 2, 255),
    (64, 33, 2),
    (255, 1, 17),
    (16, 257, 31),
    (257, 136, 48),
    (130, 256, 200),
    (1, 8, 8),
    (129, 248, 72),
    (9, 8, 16),
    (24, 40, 264),
    (136, 24, 17),
    (300, 264, 520),
    (64, 8, 255),
];

/// `sum_parts` of one to four parts, f32 and bf16, against their f64 sum; parts of another
/// length and an empty list refused before launch.
#[test]
fn sum_parts_matches_reference() {
    let device = Device::cpu().unwrap();
    let (ops, stream) = ops_on(&device);
    let mut rng = SmallRng::seed_from_u64(seed());
    for (n, count) in SIZES.into_iter().zip([1, 2, 3, 4, 2, 3]) {
        let host: Vec<Vec<f32>> = (0..count).map(|_| random_f32(&mut rng, n)).collect();
        let want: Vec<f64> = (0..n)
            .map(|i| host.iter().map(|p| f64::from(p[i])).sum())
            .collect();
        let parts: Vec<_> = host
            .iter()
            .map(|p| Buffer::from_slice(&device, p).unwrap())
            .collect();
        let mut out = poisoned(&device, n);
        ops.sum_parts(&stream, &parts, &mut out).unwrap();
        stream.synchronize().unwrap();
        // Relative to the parts' size (1): a sum of terms that cancel is as exact as its terms.
        compare::rel_err(
            &out.download().unwrap(),
            &want,
            Scale::Each { floor: 1.0 },
            1e-6,
        )
        .assert(format_args!("f32, n={n}, {count} parts"));

        let host16: Vec<Vec<kosmos::bf16>> = (0..count)
            .map(|r| random_bf16(seed() + 7 * r as u64 + n as u64, n))
            .collect();
        let want16: Vec<f64> = (0..n)
            .map(|i| host16.iter().map(|p| f64::from(p[i])).sum())
            .collect();
        let parts16: Vec<_> = host16
            .iter()
            .map(|p| Buffer::from_slice(&device, p).unwrap())
            .collect();
        let mut out = poisoned(&device, n);
        ops.sum_parts(&stream, &parts16, &mut out).unwrap();
        stream.synchronize().unwrap();
        compare::rel_err(
            &out.download().unwrap(),
            &want16,
            Scale::Each { floor: 1.0 },
            1e-6,
        )
        .assert(format_args!("bf16, n={n}, {count} parts"));
    }
    let short = Buffer::from_slice(&device, &[1.0f32; 3]).unwrap();
    let mut out = poisoned(&device, 4);
    let err = ops.sum_parts(&stream, &[short], &mut out).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Shape {
                op: "sum_parts",
                ..
            }
        ) && err.to_string().contains("3"),
        "{err}"
    );
    let err = ops.sum_parts::<f32>(&stream, &[], &mut out).unwrap_err();
    assert!(err.to_string().contains("no parts"), "{err}");
}

fn check_gemm(device: &Device, persistent: bool, shapes: &[(usize, usize, usize)]) {
    let (ops, stream) = ops_on(device);
    let seed = seed();
    for (i, &(m, n, k)) in shapes.iter().enumerate() {
        let a_h = random_bf16(seed.wrapping_add(2 * i as u64), m * k);
        let b_h = random_bf16(seed.wrapping_add(2 * i as u64 + 1), k * n);
        let a = Buffer::from_slice(device, &a_h).unwrap();
        let b = Buffer::from_slice(device, &b_h).unwrap();
        let mut c = poisoned(device, m * n);
        if persistent {
            let groups = ops
                .gemm_persistent(&stream, &a, &b, &mut c, m, n, k)
                .unwrap();
            assert!(groups >= 1);
        } else {
            ops.gemm(&stream, &a, &b, &mut c, m, n, k).unwrap();
        }
        stream.synchronize().unwrap();
        let want = matmul_bf16_ref(&a_h, &b_h, m, n, k);
        let err = compare::rel_err(
            &c.download().unwrap(),
            &want,
            Scale::Each { floor: 1.0 },
            compare::BF16_DOT_F32,
        );
        err.assert(format_args!("{m}x{n}x{k}"));
    }
}

/// `x` (`rows x cols`, row-major) transposed.
fn transposed(x: &[kosmos::bf16], rows: usize, cols: usize) -> Vec<kosmos::bf16> {
    (0..rows * cols)
        .map(|i| x[(i % rows) * cols + i / rows])
        .collect()
}

/// The pipelined gemm through a plan, for every layout of `a` and `b` and both output
/// types, on every [`GEMM_SHAPES`] entry the layout allows (the stored rows of each operand
/// and of `c` must be a multiple of 8 elements), on the CPU device and with two
/// resident workgroups (each walks many tiles); with the rows split between 128 x 256 and
/// 128 x 128 tiles as the plan chooses and three other ways.
#[test]
fn gemm_plan_matches_reference_in_every_layout() {
    use kernels::Layout::{N, T};
    for device in [Device::cpu().unwrap(), Device::cpu_with_resident_limit(2)] {
        let (ops, stream) = ops_on(&device);
        let seed = seed();
        for (i, &(m, n, k)) in GEMM_SHAPES.iter().enumerate() {
            let a_h = random_bf16(seed.wrapping_add(2 * i as u64), m * k);
            let b_h = random_bf16(seed.wrapping_add(2 * i as u64 + 1), k * n);
            let want = matmul_bf16_ref(&a_h, &b_h, m, n, k);
            for (la, lb) in [(N, N), (N, T), (T, N), (T, T)] {
                // Stored rows: k or m elements for `a`, n or k for `b`, n for `c`.
                let a_row = if la == N { k } else { m };
                let b_row = if lb == N { n } else { k };
                if a_row % 8 != 0 || b_row % 8 != 0 || n % 8 != 0 {
                    continue;
                }
                let a_s = if la == N {
                    a_h.clone()
                } else {
                    transposed(&a_h, m, k)
                };
                let b_s = if lb == N {
                    b_h.clone()
                } else {
                    transposed(&b_h, k, n)
                };
                let a = Buffer::from_slice(&device, &a_s).unwrap();
                let b = Buffer::from_slice(&device, &b_s).unwrap();
                let chosen = ops.gemm_plan(&a, la, &b, lb, m, n, k).unwrap().wide_rows();
                // The chosen split of the rows between 128 x 256 and 128 x 128 tiles, then all
                // narrow, wide tiles over the first 128 rows only, and all wide.
                let all = m.next_multiple_of(128);
                let mut splits = vec![chosen, 0, 128.min(all), all];
                splits.dedup();
                for rows in splits {
                    let plan = ops.gemm_plan(&a, la, &b, lb, m, n, k).unwrap();
                    let plan = plan.with_wide_rows(rows).unwrap();
                    let what = |out| format!("{m}x{n}x{k} {la:?}{lb:?} {out}, {rows} wide rows");
                    let mut c = poisoned(&device, m * n);
                    plan.launch(&stream, &mut c).unwrap();
                    stream.synchronize().unwrap();
                    let got = c.download().unwrap();
                    compare::rel_err(
                        &got,
                        &want,
                        Scale::Each { floor: 1.0 },
                        compare::BF16_DOT_F32,
                    )
                    .assert(format_args!("{}", what("f32")));
                    // Launched again into bf16 (a plan is reusable).
                    let mut c16 =
                        Buffer::from_slice(&device, &vec![kosmos::bf16::NAN; m * n]).unwrap();
                    plan.launch(&stream, &mut c16).unwrap();
                    stream.synchronize().unwrap();
                    // Rounded to bf16: half an ulp is up to 2^-8 of the value, and the f32
                    // result it rounds is itself within BF16_DOT_F32: 2^-7.
                    let got = c16.download().unwrap();
                    compare::rel_err(&got, &want, Scale::Each { floor: 1.0 }, 1.0 / 128.0)
                        .assert(format_args!("{}", what("bf16")));
                }
            }
        }
    }
}

/// Operands the pipelined gemm cannot map are errors naming them before any launch.
#[test]
fn gemm_plan_refuses_rows_it_cannot_map() {
    use kernels::Layout::{N, T};
    let device = Device::cpu().unwrap();
    let (ops, _) = ops_on(&device);
    for (la, lb, m, n, k, message) in [
        (
            N,
            N,
            16,
            16,
            12,
            "the rows of a (k = 12) are not a multiple of 8",
        ),
        (
            N,
            N,
            16,
            12,
            16,
            "the rows of b (n = 12) are not a multiple of 8",
        ),
        (
            T,
            N,
            12,
            16,
            16,
            "the rows of a^T (m = 12) are not a multiple of 8",
        ),
        (N, T, 16, 16, 12, "the rows of a (k = 12)"),
        (T, T, 16, 16, 12, "the rows of b^T (k = 12)"),
        (N, T, 16, 12, 16, "the rows of c (n = 12)"),
    ] {
        let a = device.alloc::<kosmos::bf16>(m * k).unwrap();
        let b = device.alloc::<kosmos::bf16>(k * n).unwrap();
        let result = ops.gemm_plan(&a, la, &b, lb, m, n, k);
        match result {
            Err(e) if e.to_string().contains(message) => {}
            Err(e) => panic!("{la:?}{lb:?} {m}x{n}x{k}: {e}"),
            Ok(_) => panic!("{la:?}{lb:?} {m}x{n}x{k}: accepted"),
        }
    }
    // A split of the rows between tile widths that is not whole tiles, or past the matrix.
    let a = device.alloc::<kosmos::bf16>(200 * 16).unwrap();
    let b = device.alloc::<kosmos::bf16>(16 * 16).unwrap();
    for rows in [100, 384] {
        let plan = ops.gemm_plan(&a, N, &b, N, 200, 16, 16).unwrap();
        match plan.with_wide_rows(rows) {
            Err(e) => assert!(
                e.to_string().contains(&format!(
                    "rows {rows} must be a multiple of 128 and at most 256"
                )),
                "{e}"
            ),
            Ok(_) => panic!("{rows} wide rows accepted"),
        }
    }
}

#[test]
fn gemm_matches_reference() {
    check_gemm(&Device::cpu().unwrap(), false, &GEMM_SHAPES);
}

#[test]
fn gemm_persistent_matches_reference_with_few_resident_workgroups() {
    // Three resident workgroups: each pulls many tiles from the counter.
    check_gemm(&Device::cpu_with_resident_limit(3), true, &GEMM_SHAPES);
}

#[test]
fn bad_shapes_are_errors_before_launch() {
    let device = Device::cpu().unwrap();
    let (ops, stream) = ops_on(&device);
    let a = device.alloc::<f32>(4).unwrap();
    let b = device.alloc::<f32>(5).unwrap();
    let mut out = device.alloc::<f32>(4).unwrap();
    let e = ops.vector_add(&stream, &a, &b, &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Shape {
                op: "vector_add",
                ..
            }
        ),
        "{e}"
    );

    let mut two = device.alloc::<f32>(2).unwrap();
    let e = ops.reduce_sum(&stream, &a, &mut two).unwrap_err();
    assert!(e.to_string().contains("1 element"), "{e}");

    let x = device.alloc::<kosmos::bf16>(6).unwrap();
    let mut c = device.alloc::<f32>(5).unwrap();
    let e = ops.gemm(&stream, &x, &x, &mut c, 2, 2, 3).unwrap_err();
    assert!(
        e.to_string().contains("c has 5 elements, expected 2 x 2"),
        "{e}"
    );
    let e = ops
        .gemm_persistent(&stream, &x, &x, &mut c, 0, 2, 3)
        .unwrap_err();
    assert!(e.to_string().contains("empty shape"), "{e}");
}

#[test]
fn buffers_of_another_device_are_errors() {
    let device = Device::cpu().unwrap();
    let other = Device::cpu_with_resident_limit(2);
    let (ops, stream) = ops_on(&device);
    let a = device.alloc::<f32>(4).unwrap();
    let b = other.alloc::<f32>(4).unwrap();
    let mut out = device.alloc::<f32>(4).unwrap();
    match ops.vector_add(&stream, &a, &b, &mut out) {
        Err(Error::WrongDevice { what: "b", .. }) => {}
        other => panic!("expected a wrong-device error, got {other:?}"),
    }
}

#[test]
fn embedded_binaries_hold_every_kernel_instance() {
    let ir = kernels::KERNELS.ir().unwrap();
    let names: Vec<&str> = ir.kernels().iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "vector_add",
            "reduce_partial",
            "gelu",
            "gelu_backward",
            "accumulate",
            "accumulate_bf16",
            "fill_random",
            "gemm__persistent0",
            "gemm__persistent1",
            "gemm_group__persistent0",
            "gemm_group__persistent1",
            "gemm_pipeline__wide0_ta0_tb0_bf160",
            "gemm_pipeline__wide0_ta0_tb0_bf161",
            "gemm_pipeline__wide0_ta0_tb1_bf160",
            "gemm_pipeline__wide0_ta0_tb1_bf161",
            "gemm_pipeline__wide0_ta1_tb0_bf160",
            "gemm_pipeline__wide0_ta1_tb0_bf161",
            "gemm_pipeline__wide0_ta1_tb1_bf160",
            "gemm_pipeline__wide0_ta1_tb1_bf161",
            "gemm_pipeline__wide1_ta0_tb0_bf160",
            "gemm_pipeline__wide1_ta0_tb0_bf161",
            "gemm_pipeline__wide1_ta0_tb1_bf160",
            "gemm_pipeline__wide1_ta0_tb1_bf161",
            "gemm_pipeline__wide1_ta1_tb0_bf160",
            "gemm_pipeline__wide1_ta1_tb0_bf161",
            "gemm_pipeline__wide1_ta1_tb1_bf160",
            "gemm_pipeline__wide1_ta1_tb1_bf161",
            "ag_gemm__tb0_bf160",
            "ag_gemm__tb0_bf161",
            "ag_gemm__tb1_bf160",
            "ag_gemm__tb1_bf161",
            "gemm_rs__tb0_bf160_ar0",
            "gemm_rs__tb0_bf161_ar0",
            "gemm_rs__tb1_bf160_ar0",
            "gemm_rs__tb1_bf161_ar0",
            "gemm_rs__tb0_bf160_ar1",
            "gemm_rs__tb0_bf161_ar1",
            "tp_pipeline__op0_tb0_bf160_wide0",
            "tp_pipeline__op0_tb0_bf161_wide0",
            "tp_pipeline__op0_tb1_bf160_wide0",
            "tp_pipeline__op0_tb1_bf161_wide0",
            "tp_pipeline__op0_tb0_bf160_wide1",
            "tp_pipeline__op0_tb0_bf161_wide1",
            "tp_pipeline__op0_tb1_bf160_wide1",
            "tp_pipeline__op0_tb1_bf161_wide1",
            "tp_pipeline__op1_tb0_bf160_wide0",
            "tp_pipeline__op1_tb0_bf161_wide0",
            "tp_pipeline__op1_tb1_bf160_wide0",
            "tp_pipeline__op1_tb1_bf161_wide0",
            "tp_pipeline__op1_tb0_bf160_wide1",
            "tp_pipeline__op1_tb0_bf161_wide1",
            "tp_pipeline__op1_tb1_bf160_wide1",
            "tp_pipeline__op1_tb1_bf161_wide1",
            "tp_pipeline__op2_tb0_bf160_wide0",
            "tp_pipeline__op2_tb0_bf161_wide0",
            "tp_pipeline__op2_tb0_bf160_wide1",
            "tp_pipeline__op2_tb0_bf161_wide1",
            "tp_pipeline__op0_tb0_bf160_wide2",
            "tp_pipeline__op0_tb0_bf161_wide2",
            "tp_pipeline__op0_tb1_bf160_wide2",
            "tp_pipeline__op0_tb1_bf161_wide2",
            "tp_pipeline__op1_tb0_bf160_wide2",
            "tp_pipeline__op1_tb0_bf161_wide2",
            "tp_pipeline__op1_tb1_bf160_wide2",
            "tp_pipeline__op1_tb1_bf161_wide2",
            "tp_pipeline__op2_tb0_bf160_wide2",
            "tp_pipeline__op2_tb0_bf161_wide2",
            "reduce_scatter_rows",
            "ping_pong",
            "peer_copy",
            "moe_forward",
            "moe_pipeline",
            "moe_backward__staged1",
            "moe_backward__staged0",
            "moe_backward_pipeline"
        ]
    );
    // Built with KOSMOS_TARGETS naming sm_90a (the default): the joined PTX has one header
    // and every entry.
    if let Some(ptx) = kernels::KERNELS.binary("sm_90a") {
        let ptx = std::str::from_utf8(ptx).unwrap();
        assert_eq!(ptx.matches(".version").count(), 1);
        for name in &names {
            assert!(
                ptx.contains(&format!(".entry {name}(")),
                "{name} missing from the PTX"
            );
        }
    }
}

/// The safe launcher with a length beyond the buffers: an error naming the access, on the
/// CPU device at the launch, on GPUs at the stream's synchronize; the out-of-bounds stores
/// do not happen (the poison after `out`'s 10 elements, in a larger allocation, stays).
fn out_of_bounds_launch_is_reported(device: &Device) {
    let module = device
        .load_module(&kernels::MODULE.image().unwrap())
        .unwrap();
    let stream = device.stream().unwrap();
    let a = Buffer::from_slice(device, &[1.0f32; 10]).unwrap();
    let b = Buffer::from_slice(device, &[2.0f32; 10]).unwrap();
    let mut out = poisoned(device, 10);
    let cfg = LaunchConfig::for_elements(2000, kernels::ops::BLOCK);
    let launched = kernels::ops::vector_add::launch(&module, &stream, cfg, &a, &b, &mut out, 2000);
    let e = launched
        .and_then(|()| stream.synchronize())
        .expect_err("2000 > 10");
    let text = e.to_string();
    let RuntimeError::IndexOutOfBounds {
        kernel,
        origin,
        len,
        ..
    } = e
    else {
        panic!("{text}")
    };
    assert_eq!((kernel.as_str(), len), ("vector_add", 10), "{text}");
    assert!(origin.starts_with("src/ops.rs:"), "{text}");
    println!("{text}");
    // `gemm_group` checks its operands' lengths once, then copies unchecked: a short `a`
    // ends it with the bounds error of the last element it would read.
    let (m, n, k) = (64u32, 64u32, 64u32);
    let short_a = device.alloc::<kosmos::bf16>((m * k - 1) as usize).unwrap();
    let full_b = device.alloc::<kosmos::bf16>((k * n) as usize).unwrap();
    let mut c = poisoned(device, (m * n) as usize);
    let mut counter = Buffer::from_slice(device, &[0u32]).unwrap();
    let block = kernels::GEMM_SUBGROUPS * kernels::subgroup_size(device);
    let cfg = LaunchConfig::linear(1, block);
    let launched = kernels::ops::gemm_group::launch::<0>(
        &module,
        &stream,
        cfg,
        &short_a,
        &full_b,
        &mut c,
        &mut counter,
        m,
        n,
        k,
    );
    let e = launched
        .and_then(|()| stream.synchronize())
        .expect_err("a is short");
    let RuntimeError::IndexOutOfBounds {
        origin, index, len, ..
    } = &e
    else {
        panic!("{e}")
    };
    assert!(origin.ends_with("a[need_a - 1]"), "{e}");
    assert_eq!(
        (*index, *len),
        (u64::from(m * k - 1), u64::from(m * k - 1)),
        "{e}"
    );
    // The module and the stream stay usable: an in-bounds launch runs.
    let cfg = LaunchConfig::for_elements(10, kernels::ops::BLOCK);
    kernels::ops::vector_add::launch(&module, &stream, cfg, &a, &b, &mut out, 10).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(out.download().unwrap(), vec![3.0; 10]);
}

#[test]
fn out_of_bounds_launch_is_an_error_naming_the_access() {
    out_of_bounds_launch_is_reported(&Device::cpu().unwrap());
}

#[test]
#[ignore = "needs KOSMOS_DEVICE=cuda:0"]
fn out_of_bounds_launch_on_the_gpu_is_an_error_naming_the_access() {
    let device = Device::gpu_from_env().unwrap();
    out_of_bounds_launch_is_reported(&device);
}

#[test]
#[ignore = "needs KOSMOS_DEVICE=cuda:0"]
fn every_op_on_the_gpu() {
    let device = Device::gpu_from_env().unwrap();
    let shapes = [(257, 255, 129), (1024, 1024, 1024)];
    check_gemm(&device, false, &shapes);
    check_gemm(&device, true, &shapes);
}
