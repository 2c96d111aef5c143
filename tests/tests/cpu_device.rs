//! The reference kernels and the error paths of the CPU device.

use kosmos_cpu::{Arg, CpuConfig, CpuDevice, CpuError};
use kosmos_ir::{CmpPred, Constant, Dim, KernelBuilder, Ordering, ScalarType, Scope, Type};
use kosmos_testkernels::compare::{self, Scale};
use kosmos_tests::cpu::{
    download_f32, download_u32, rng, u32_arg, upload_bf16, upload_f32, upload_u32,
};
use kosmos_tests::kernels;
use kosmos_tests::suite::random_bf16;
use rand::{Rng, rngs::SmallRng};
use std::time::{Duration, Instant};

#[test]
fn vector_add_ragged_tail() {
    let mut r = rng("vector_add_ragged_tail");
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::vector_add()).unwrap();
    for (n, block) in [(1000usize, 128u32), (257, 256), (1, 64)] {
        let a: Vec<f32> = (0..n).map(|_| r.random_range(-1e3..1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| r.random_range(-1e3..1e3)).collect();
        let (pa, pb) = (upload_f32(&dev, &a), upload_f32(&dev, &b));
        let po = upload_f32(&dev, &vec![f32::NAN; n]);
        let grid = (n as u32).div_ceil(block);
        let args = [Arg::Ptr(pa), Arg::Ptr(pb), Arg::Ptr(po), u32_arg(n as u32)];
        let stats = dev.launch(&k, [grid, 1, 1], [block, 1, 1], &args).unwrap();
        assert!(stats.lane_ops > n as u64);
        let want = kernels::vector_add_ref(&a, &b);
        compare::rel_err(
            &download_f32(&dev, po, n),
            &want,
            Scale::Each { floor: 1.0 },
            1e-7,
        )
        .assert(format_args!("n={n}"));
    }
}

#[test]
fn workgroup_sum_tree_reduction() {
    let mut r = rng("workgroup_sum_tree_reduction");
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::workgroup_sum()).unwrap();
    for (n, block) in [(5000usize, 256u32), (100, 64), (33, 32)] {
        let input: Vec<f32> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
        let pi = upload_f32(&dev, &input);
        let groups = (n as u32).div_ceil(block);
        let pp = upload_f32(&dev, &vec![f32::NAN; groups as usize]);
        let args = [Arg::Ptr(pi), Arg::Ptr(pp), u32_arg(n as u32)];
        dev.launch(&k, [groups, 1, 1], [block, 1, 1], &args)
            .unwrap();
        let want = kernels::workgroup_sum_ref(&input, block as usize);
        let got = download_f32(&dev, pp, groups as usize);
        compare::rel_err(&got, &want, Scale::Each { floor: 1.0 }, 1e-5)
            .assert(format_args!("n={n}"));
    }
}

fn run_matmul(dev: &CpuDevice, r: &mut SmallRng, m: usize, n: usize, k: usize) {
    let (a, b) = (random_bf16(r, m * k), random_bf16(r, k * n));
    let (pa, pb) = (upload_bf16(dev, &a), upload_bf16(dev, &b));
    let pc = upload_f32(dev, &vec![f32::NAN; m * n]);
    let t = kernels::TILE;
    let grid = [(n as u32).div_ceil(t), (m as u32).div_ceil(t), 1];
    let args = [
        Arg::Ptr(pa),
        Arg::Ptr(pb),
        Arg::Ptr(pc),
        u32_arg(m as u32),
        u32_arg(n as u32),
        u32_arg(k as u32),
    ];
    dev.launch(
        &kosmos_ir::verify(kernels::matmul_bf16()).unwrap(),
        grid,
        [t, t, 1],
        &args,
    )
    .unwrap();
    let want = kernels::matmul_bf16_ref(&a, &b, m, n, k);
    // f32 accumulation of k products of magnitude <= 1.
    let got = download_f32(dev, pc, m * n);
    compare::rel_err(&got, &want, Scale::Each { floor: 1.0 }, 1e-6 * k as f64)
        .assert(format_args!("M={m} N={n} K={k}"));
}

#[test]
fn matmul_bf16_ragged_sizes() {
    let mut r = rng("matmul_bf16_ragged_sizes");
    let dev = CpuDevice::new();
    for (m, n, k) in [(130, 96, 72), (17, 33, 5), (1, 1, 1), (48, 16, 40)] {
        run_matmul(&dev, &mut r, m, n, k);
    }
}

#[test]
fn histogram_exact_under_contention() {
    let mut r = rng("histogram_exact_under_contention");
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::histogram()).unwrap();
    for (n, nbins) in [(100_000usize, 4u32), (30_001, 7)] {
        let input: Vec<u32> = (0..n).map(|_| r.random()).collect();
        let pi = upload_u32(&dev, &input);
        let pb = upload_u32(&dev, &vec![0; nbins as usize]);
        let args = [
            Arg::Ptr(pi),
            Arg::Ptr(pb),
            u32_arg(n as u32),
            u32_arg(nbins),
        ];
        dev.launch(&k, [(n as u32).div_ceil(1024), 1, 1], [1024, 1, 1], &args)
            .unwrap();
        assert_eq!(
            download_u32(&dev, pb, nbins as usize),
            kernels::histogram_ref(&input, nbins)
        );
    }
}

#[test]
fn handshake_delivers_data() {
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::handshake()).unwrap();
    for (n, block, resident) in [(200usize, 256u32, 64usize), (64, 64, 1)] {
        let dev = CpuDevice::with_config(CpuConfig {
            max_resident_workgroups: resident,
            ..dev.config().clone()
        });
        let data = upload_u32(&dev, &vec![0xDEAD_BEEF; n]);
        let flag = upload_u32(&dev, &[0]);
        let out = upload_u32(&dev, &vec![0xDEAD_BEEF; n]);
        let status = upload_u32(&dev, &[0xDEAD_BEEF]);
        let args = [
            Arg::Ptr(data),
            Arg::Ptr(flag),
            Arg::Ptr(out),
            Arg::Ptr(status),
            u32_arg(n as u32),
            u32_arg(u32::MAX),
        ];
        dev.launch(&k, [2, 1, 1], [block, 1, 1], &args).unwrap();
        assert_eq!(download_u32(&dev, status, 1), [kernels::HANDSHAKE_OK]);
        assert_eq!(download_u32(&dev, out, n), kernels::handshake_ref(n));
    }
}

fn expect_err(r: Result<kosmos_cpu::LaunchStats, CpuError>) -> (CpuError, String) {
    let e = r.expect_err("launch should fail");
    let s = e.to_string();
    println!("{s}");
    (e, s)
}

#[test]
fn out_of_bounds_names_kernel_workgroup_lane_address() {
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::vector_add()).unwrap();
    let n = 100;
    let pa = upload_f32(&dev, &vec![1.0; n]);
    let pb = upload_f32(&dev, &vec![1.0; n - 1]);
    let po = upload_f32(&dev, &vec![0.0; n]);
    let args = [Arg::Ptr(pa), Arg::Ptr(pb), Arg::Ptr(po), u32_arg(n as u32)];
    let (e, s) = expect_err(dev.launch(&k, [2, 1, 1], [64, 1, 1], &args));
    match e {
        CpuError::OutOfBounds {
            kernel,
            workgroup,
            lane,
            addr,
            bytes,
            ..
        } => {
            assert_eq!(kernel, "vector_add");
            assert_eq!(workgroup, [1, 0, 0]);
            assert_eq!(lane, 35);
            assert_eq!(addr, pb + 4 * 99);
            assert_eq!(bytes, 4);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(s.contains("vector_add") && s.contains("lane 35"), "{s}");
}

/// A kernel whose workgroup spins until `flag` holds 1.
fn spin_on_flag() -> kosmos_ir::Kernel {
    let mut b = KernelBuilder::new("spin_on_flag", 64);
    let flag = b.param("flag", Type::GLOBAL_PTR);
    b.loop_(&[], &[], |b, _| {
        let f = b.atomic_load(flag, ScalarType::U32, Ordering::Acquire, Scope::Agent);
        let one = b.const_u32(1);
        let set = b.cmp(CmpPred::Eq, f, one);
        b.if_then(set, |b| b.break_(&[]));
        vec![]
    });
    b.finish()
}

#[test]
fn deadlock_is_reported_not_hung() {
    let dev = CpuDevice::with_config(CpuConfig {
        watchdog: Duration::from_millis(200),
        ..CpuConfig::default()
    });
    let flag = upload_u32(&dev, &[7]);
    let start = Instant::now();
    let (e, s) = expect_err(dev.launch(
        &kosmos_ir::verify(spin_on_flag()).unwrap(),
        [3, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(flag)],
    ));
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    match e {
        CpuError::Deadlock {
            kernel,
            stuck,
            not_started,
            ..
        } => {
            assert_eq!(kernel, "spin_on_flag");
            assert_eq!(not_started, 0);
            let mut ids: Vec<u32> = stuck.iter().map(|s| s.workgroup[0]).collect();
            ids.sort();
            assert_eq!(ids, [0, 1, 2]);
            for s in &stuck {
                let (_, addr, value) = s.spinning_on.expect("spin site recorded");
                assert_eq!((addr, value), (flag, 7));
            }
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(s.contains("workgroup (1, 0, 0)"), "{s}");
}

#[test]
fn waiting_on_a_non_resident_workgroup_is_a_deadlock() {
    // Workgroup 0 waits for the flag that workgroup 1 sets, but only one workgroup is
    // resident at a time: workgroup 1 never starts.
    let mut b = KernelBuilder::new("reverse_handshake", 64);
    let flag = b.param("flag", Type::GLOBAL_PTR);
    let wg = b.workgroup_id(Dim::X);
    let zero = b.const_u32(0);
    let waiter = b.cmp(CmpPred::Eq, wg, zero);
    b.if_else(
        waiter,
        &[],
        |b| {
            b.loop_(&[], &[], |b, _| {
                let f = b.atomic_load(flag, ScalarType::U32, Ordering::Acquire, Scope::Agent);
                let one = b.const_u32(1);
                let set = b.cmp(CmpPred::Eq, f, one);
                b.if_then(set, |b| b.break_(&[]));
                vec![]
            });
            vec![]
        },
        |b| {
            let one = b.const_u32(1);
            b.atomic_store(flag, one, Ordering::Release, Scope::Agent);
            vec![]
        },
    );
    let k = kosmos_ir::verify(b.finish()).unwrap();
    let flag = |dev: &CpuDevice| upload_u32(dev, &[0]);
    // With both resident it completes.
    let dev = CpuDevice::new();
    let f = flag(&dev);
    dev.launch(&k, [2, 1, 1], [8, 1, 1], &[Arg::Ptr(f)])
        .unwrap();
    let dev = CpuDevice::with_config(CpuConfig {
        max_resident_workgroups: 1,
        watchdog: Duration::from_millis(200),
        ..CpuConfig::default()
    });
    let f = flag(&dev);
    let (e, _) = expect_err(dev.launch(&k, [2, 1, 1], [8, 1, 1], &[Arg::Ptr(f)]));
    match e {
        CpuError::Deadlock {
            stuck, not_started, ..
        } => {
            assert_eq!(not_started, 1);
            assert_eq!(stuck.len(), 1);
            assert_eq!(stuck[0].workgroup, [0, 0, 0]);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn wrong_arguments_name_the_parameter() {
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::vector_add()).unwrap();
    let p = dev.alloc(64).unwrap();
    let (e, _) = expect_err(dev.launch(&k, [1, 1, 1], [1, 1, 1], &[Arg::Ptr(p)]));
    assert!(
        matches!(
            e,
            CpuError::ArgCount {
                expected: 4,
                got: 1,
                ..
            }
        ),
        "{e:?}"
    );
    let args = [
        Arg::Ptr(p),
        Arg::Ptr(p),
        Arg::Ptr(p),
        Arg::Scalar(Constant::int(ScalarType::I32, 3)),
    ];
    let (e, s) = expect_err(dev.launch(&k, [1, 1, 1], [1, 1, 1], &args));
    assert!(matches!(e, CpuError::ArgType { index: 3, .. }), "{e:?}");
    assert!(
        s.contains("%n") && s.contains("u32") && s.contains("i32"),
        "{s}"
    );
    let args = [Arg::Ptr(p), u32_arg(1), Arg::Ptr(p), u32_arg(1)];
    let (_, s) = expect_err(dev.launch(&k, [1, 1, 1], [1, 1, 1], &args));
    assert!(s.contains("%b"), "{s}");
    let args = [
        Arg::Ptr(p),
        Arg::Ptr(p + (1 << 20)),
        Arg::Ptr(p),
        u32_arg(1),
    ];
    let (e, _) = expect_err(dev.launch(&k, [1, 1, 1], [1, 1, 1], &args));
    assert!(matches!(e, CpuError::ArgPointer { index: 1, .. }), "{e:?}");
}

#[test]
fn bad_grid_and_block() {
    let dev = CpuDevice::new();
    let k = kosmos_ir::verify(kernels::vector_add()).unwrap();
    let p = dev.alloc(64).unwrap();
    let args = [Arg::Ptr(p), Arg::Ptr(p), Arg::Ptr(p), u32_arg(0)];
    let (e, _) = expect_err(dev.launch(&k, [1, 0, 1], [1, 1, 1], &args));
    assert!(
        matches!(
            e,
            CpuError::LaunchDim {
                what: "grid",
                dim: 'y',
                ..
            }
        ),
        "{e:?}"
    );
    let (e, _) = expect_err(dev.launch(&k, [1, 1, 1], [1, 1, 0], &args));
    assert!(
        matches!(
            e,
            CpuError::LaunchDim {
                what: "block",
                dim: 'z',
                ..
            }
        ),
        "{e:?}"
    );
    // Products of launch dimensions never wrap: 2^64 lanes are not zero lanes, and a grid
    // of (2^32 - 1)^3 workgroups is refused rather than counted modulo 2^64.
    for block in [[u32::MAX; 3], [1 << 22, 1 << 21, 1 << 21]] {
        let (e, _) = expect_err(dev.launch(&k, [1, 1, 1], block, &args));
        assert!(
            matches!(e, CpuError::WorkgroupTooLarge { block: b, limit: 256, .. } if b == block),
            "{e:?}"
        );
        let lanes = block.iter().map(|d| u128::from(*d)).product::<u128>();
        assert!(e.to_string().contains(&format!("{lanes} lanes")), "{e}");
    }
    let (e, _) = expect_err(dev.launch(&k, [u32::MAX; 3], [16, 1, 1], &args));
    assert!(matches!(e, CpuError::GridTooLarge { .. }), "{e:?}");
    // vector_add allows 256 lanes per workgroup.
    let (e, _) = expect_err(dev.launch(&k, [1, 1, 1], [16, 32, 1], &args));
    assert!(
        matches!(
            e,
            CpuError::WorkgroupTooLarge {
                block: [16, 32, 1],
                limit: 256,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn integer_division_by_zero_names_the_lane() {
    let mut b = KernelBuilder::new("div_lane", 64);
    let out = b.param("out", Type::GLOBAL_PTR);
    let tid = b.workitem_id(Dim::X);
    let five = b.const_u32(5);
    let d = b.sub(tid, five);
    let hundred = b.const_u32(100);
    let q = b.div(hundred, d);
    let p = b.ptr_offset(out, tid, Type::U32);
    b.store(p, q);
    let dev = CpuDevice::new();
    let p = dev.alloc(4 * 64).unwrap();
    let (e, _) = expect_err(dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(p)],
    ));
    assert!(
        matches!(
            e,
            CpuError::DivByZero {
                lane: 5,
                workgroup: [0, 0, 0],
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn divergent_barrier_is_an_error() {
    let mut b = KernelBuilder::new("divergent", 64);
    let tid = b.workitem_id(Dim::X);
    let ten = b.const_u32(10);
    let low = b.cmp(CmpPred::Lt, tid, ten);
    b.if_then(low, |b| b.barrier());
    let dev = CpuDevice::new();
    let (e, s) = expect_err(dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [2, 1, 1],
        [32, 1, 1],
        &[],
    ));
    assert!(
        matches!(e, CpuError::DivergentBarrier { lane: 10, .. }),
        "{e:?}"
    );
    assert!(s.contains("divergent"), "{s}");
}

#[test]
fn divergent_subgroup_barrier_is_an_error() {
    // Lanes 0..10 of the first subgroup meet without the others.
    let mut b = KernelBuilder::new("divergent_subgroup", 64);
    let tid = b.workitem_id(Dim::X);
    let ten = b.const_u32(10);
    let low = b.cmp(CmpPred::Lt, tid, ten);
    b.if_then(low, |b| b.subgroup_barrier());
    let dev = CpuDevice::new();
    let (e, s) = expect_err(dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [1, 1, 1],
        [64, 1, 1],
        &[],
    ));
    assert!(
        matches!(&e, CpuError::Subgroup { subgroup: 0, op, .. } if *op == "subgroup.barrier"),
        "{e:?}"
    );
    assert!(s.contains("lane 10 is not here"), "{s}");
}

#[test]
fn barrier_after_return_is_fine() {
    // Lanes that returned no longer take part in barriers.
    let mut b = KernelBuilder::new("early_exit", 64);
    let out = b.param("out", Type::GLOBAL_PTR);
    let tid = b.workitem_id(Dim::X);
    let ten = b.const_u32(10);
    let high = b.cmp(CmpPred::Ge, tid, ten);
    b.if_then(high, |b| b.ret());
    b.barrier();
    let p = b.ptr_offset(out, tid, Type::U32);
    b.store(p, tid);
    let dev = CpuDevice::new();
    let o = upload_u32(&dev, &[0xDEAD_BEEF; 32]);
    dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(o)],
    )
    .unwrap();
    let got = download_u32(&dev, o, 32);
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, if i < 10 { i as u32 } else { 0xDEAD_BEEF });
    }
}

#[test]
fn host_memory_errors() {
    let dev = CpuDevice::new();
    let p = dev.alloc(10).unwrap();
    assert_eq!(p % 256, 0);
    let q = dev.alloc(10).unwrap();
    assert!(q >= p + 10 + 256, "allocations are separated by a gap");
    assert!(matches!(
        dev.write(p + 8, &[0; 4]),
        Err(CpuError::HostOutOfBounds { .. })
    ));
    let mut b = [0u8; 10];
    dev.write(p, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap();
    dev.read(p, &mut b).unwrap();
    assert_eq!(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    dev.free(p).unwrap();
    assert!(matches!(dev.free(p), Err(CpuError::BadFree { .. })));
    assert!(matches!(
        dev.read(p, &mut b),
        Err(CpuError::HostOutOfBounds { .. })
    ));
}

#[test]
fn plain_load_spin_and_empty_loop_are_deadlocks() {
    let dev = CpuDevice::with_config(CpuConfig {
        watchdog: Duration::from_millis(150),
        ..CpuConfig::default()
    });
    // Polls with a plain load (no atomics), carrying nothing.
    let mut b = KernelBuilder::new("plain_spin", 64);
    let flag = b.param("flag", Type::GLOBAL_PTR);
    b.loop_(&[], &[], |b, _| {
        let f = b.load(flag, Type::U32);
        let one = b.const_u32(1);
        let set = b.cmp(CmpPred::Eq, f, one);
        b.if_then(set, |b| b.break_(&[]));
        vec![]
    });
    let f = upload_u32(&dev, &[0]);
    let (e, _) = expect_err(dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [2, 1, 1],
        [4, 1, 1],
        &[Arg::Ptr(f)],
    ));
    assert!(
        matches!(e, CpuError::Deadlock { ref stuck, .. } if stuck.len() == 2),
        "{e:?}"
    );
    // A loop that never leaves and touches nothing.
    let mut b = KernelBuilder::new("forever", 64);
    b.loop_(&[], &[], |_, _| vec![]);
    let (e, _) = expect_err(dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [1, 1, 1],
        [4, 1, 1],
        &[],
    ));
    assert!(matches!(e, CpuError::Deadlock { .. }), "{e:?}");
}

#[test]
fn compute_loops_without_writes_are_not_deadlocks() {
    // A loop that carries changing values but writes nothing runs to completion even past
    // the watchdog interval's worth of iterations.
    let dev = CpuDevice::with_config(CpuConfig {
        watchdog: Duration::from_millis(50),
        ..CpuConfig::default()
    });
    let mut b = KernelBuilder::new("count_up", 64);
    let out = b.param("out", Type::GLOBAL_PTR);
    let limit = b.param("limit", Type::U32);
    let zero = b.const_u32(0);
    let n = b.loop_(&[zero], &[Type::U32], |b, args| {
        let done = b.cmp(CmpPred::Ge, args[0], limit);
        b.if_then(done, |b| b.break_(&[args[0]]));
        let one = b.const_u32(1);
        vec![b.add(args[0], one)]
    })[0];
    b.store(out, n);
    let o = upload_u32(&dev, &[0xDEAD_BEEF]);
    let start = Instant::now();
    dev.launch(
        &kosmos_ir::verify(b.finish()).unwrap(),
        [1, 1, 1],
        [1, 1, 1],
        &[Arg::Ptr(o), u32_arg(300_000)],
    )
    .unwrap();
    println!("300k iterations in {:?}", start.elapsed());
    assert_eq!(download_u32(&dev, o, 1), [300_000]);
}

#[test]
fn kernels_nested_to_the_region_limit_run() {
    // The verifier bounds nesting (MAX_REGION_DEPTH), which keeps the CPU device's recursive
    // compile and execute walks well inside a worker thread's stack: the deepest kernel the
    // verifier accepts runs.
    fn nest(b: &mut KernelBuilder, levels: usize, out: kosmos_ir::Value, t: kosmos_ir::Value) {
        if levels == 0 {
            let p = b.ptr_offset(out, t, Type::U32);
            b.store(p, t);
            return;
        }
        let yes = b.const_bool(true);
        b.if_then(yes, |b| nest(b, levels - 1, out, t));
    }
    let mut b = KernelBuilder::new("deep", 32);
    let out = b.param("out", Type::GLOBAL_PTR);
    let t = b.workitem_id(Dim::X);
    nest(&mut b, kosmos_ir::MAX_REGION_DEPTH - 1, out, t);
    let k = kosmos_ir::verify(b.finish()).unwrap();
    let dev = CpuDevice::new();
    let p = upload_u32(&dev, &[u32::MAX; 32]);
    dev.launch(&k, [1, 1, 1], [32, 1, 1], &[Arg::Ptr(p)])
        .unwrap();
    let want: Vec<u32> = (0..32).collect();
    assert_eq!(download_u32(&dev, p, 32), want);
}

#[test]
fn a_kernel_counting_forever_ends_at_the_time_limit() {
    // Every iteration stores a new count, so the deadlock watchdog sees progress: only the
    // wall-clock bound stops it, naming each workgroup and the loop it was in.
    let mut b = KernelBuilder::new("count_forever", 32);
    let out = b.param("out", Type::GLOBAL_PTR);
    let t = b.workitem_id(Dim::X);
    let p = b.ptr_offset(out, t, Type::U32);
    let zero = b.const_u32(0);
    b.loop_(&[zero], &[], |b, args| {
        let one = b.const_u32(1);
        let next = b.add(args[0], one);
        b.store(p, next);
        vec![next]
    });
    let k = kosmos_ir::verify(b.finish()).unwrap();
    let limit = Duration::from_millis(300);
    let dev = CpuDevice::with_config(CpuConfig {
        watchdog: Duration::from_secs(60),
        time_limit: limit,
        ..CpuConfig::default()
    });
    let p = upload_u32(&dev, &[0; 32]);
    let start = Instant::now();
    let (e, s) = expect_err(dev.launch(&k, [2, 1, 1], [32, 1, 1], &[Arg::Ptr(p)]));
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    match &e {
        CpuError::TimeLimit {
            kernel, running, ..
        } => {
            assert_eq!(kernel, "count_forever");
            let mut ids: Vec<u32> = running.iter().map(|r| r.workgroup[0]).collect();
            ids.sort();
            assert_eq!(ids, [0, 1]);
            // The loop is the body's fourth instruction (walk index 3).
            assert!(
                running
                    .iter()
                    .all(|r| r.pos == kosmos_ir::InstPos::Index(3)),
                "{s}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        s.contains("still running after 300ms") && s.contains("in the loop at"),
        "{s}"
    );
    // Both workgroups count in out[0..32] (lane ids repeat across workgroups).
    assert!(
        download_u32(&dev, p, 32).iter().all(|c| *c > 0),
        "the loop ran"
    );
}
