//! The runtime on the CPU device (always run): buffers, launches and launch checks.

use kosmos_runtime::{Device, DeviceKind, Error, KernelArg, LaunchConfig, ModuleImage};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The reference `vector_add` (`out[i] = a[i] + b[i]` for `i < n`, up to 256 lanes).
fn vector_add_ir() -> kosmos_ir::VerifiedModule {
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![kosmos_testkernels::vector_add()],
    })
    .unwrap()
}

fn cpu() -> Device {
    Device::cpu().expect("the CPU device is always available")
}

#[test]
fn cpu_device_identity() {
    let d = cpu();
    assert_eq!(d.kind(), DeviceKind::Cpu);
    assert_eq!(d.to_string(), "cpu");
    assert_eq!(d.name(), "cpu");
}

#[test]
fn buffers_round_trip_and_fill() {
    let d = cpu();
    let data: Vec<i64> = (0..1000).map(|i| i * -7).collect();
    let buf = kosmos_runtime::Buffer::from_slice(&d, &data).unwrap();
    assert_eq!(buf.len(), 1000);
    assert_eq!(buf.download().unwrap(), data);

    let h = d.alloc::<half::bf16>(33).unwrap();
    h.fill(half::bf16::from_f32(1.5)).unwrap();
    assert!(h.download().unwrap().iter().all(|v| v.to_f32() == 1.5));

    let bytes = d.alloc::<u8>(7).unwrap();
    bytes.fill(0xab).unwrap();
    assert_eq!(bytes.download().unwrap(), vec![0xab; 7]);

    let empty = d.alloc::<f32>(0).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.download().unwrap(), Vec::<f32>::new());
}

#[test]
fn length_mismatch_is_an_error() {
    let d = cpu();
    let buf = d.alloc::<f32>(4).unwrap();
    let err = buf.upload(&[1.0; 5]).unwrap_err();
    assert!(
        matches!(err, Error::LengthMismatch { buffer: 4, host: 5 }),
        "{err}"
    );
    let mut out = [0f32; 3];
    assert!(buf.download_into(&mut out).is_err());
}

#[test]
fn vector_add_with_ragged_tail() {
    let d = cpu();
    let module = d.load_module(&ModuleImage::new(vector_add_ir())).unwrap();
    let stream = d.stream().unwrap();
    let mut rng = SmallRng::seed_from_u64(7);
    for n in [1usize, 255, 257, 1000] {
        let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let da = kosmos_runtime::Buffer::from_slice(&d, &a).unwrap();
        let db = kosmos_runtime::Buffer::from_slice(&d, &b).unwrap();
        let out = d.alloc::<f32>(n).unwrap();
        out.fill(f32::NAN).unwrap();
        let start = stream.record_event().unwrap();
        module
            .launch(
                &stream,
                "vector_add",
                LaunchConfig::for_elements(n, 256),
                &[(&da).into(), (&db).into(), (&out).into(), (n as u32).into()],
            )
            .unwrap();
        let end = stream.record_event().unwrap();
        stream.synchronize().unwrap();
        assert!(start.elapsed_ms(&end).unwrap() >= 0.0);
        let got = out.download().unwrap();
        for i in 0..n {
            assert_eq!(got[i].to_bits(), (a[i] + b[i]).to_bits(), "n={n}, i={i}");
        }
    }
}

#[test]
fn launch_errors_name_kernel_and_parameter() {
    let d = cpu();
    let module = d.load_module(&ModuleImage::new(vector_add_ir())).unwrap();
    let stream = d.stream().unwrap();
    let buf = d.alloc::<f32>(16).unwrap();
    let cfg = LaunchConfig::linear(1, 16);
    let err = |args: &[KernelArg<'_>], cfg: LaunchConfig| {
        module
            .launch(&stream, "vector_add", cfg, args)
            .unwrap_err()
            .to_string()
    };

    let msg = err(&[(&buf).into(), (&buf).into()], cfg);
    assert!(
        msg.contains("`vector_add`") && msg.contains("expected 4 argument"),
        "{msg}"
    );

    let msg = err(
        &[(&buf).into(), (&buf).into(), (&buf).into(), 3.0f32.into()],
        cfg,
    );
    assert_eq!(
        msg,
        "argument 3 (`%n`) of `vector_add`: expected u32, got f32"
    );

    let msg = err(
        &[(&buf).into(), 1u32.into(), (&buf).into(), 3u32.into()],
        cfg,
    );
    assert_eq!(
        msg,
        "argument 1 (`%b`) of `vector_add`: expected ptr<global>, got u32"
    );

    let msg = err(
        &[(&buf).into(), (&buf).into(), (&buf).into(), (&buf).into()],
        cfg,
    );
    assert!(
        msg.starts_with("argument 3 (`%n`) of `vector_add`: expected u32, got a buffer"),
        "{msg}"
    );

    let args = [(&buf).into(), (&buf).into(), (&buf).into(), 16u32.into()];
    let msg = err(&args, LaunchConfig::linear(1, 512));
    assert!(
        msg.contains("`vector_add`") && msg.contains("512 lanes") && msg.contains("256"),
        "{msg}"
    );
    let msg = err(
        &args,
        LaunchConfig {
            grid: [1, 0, 1],
            block: [16, 1, 1],
        },
    );
    assert!(msg.contains("grid") && msg.contains("zero"), "{msg}");
    let msg = err(
        &args,
        LaunchConfig {
            grid: [1, 1, 1],
            block: [16, 0, 1],
        },
    );
    assert!(msg.contains("workgroup") && msg.contains("zero"), "{msg}");

    let msg = module
        .launch(&stream, "vector_sub", cfg, &args)
        .unwrap_err()
        .to_string();
    assert_eq!(
        msg,
        "module has no kernel `vector_sub` (it has: `vector_add`)"
    );

    // A buffer of another device.
    let other = cpu();
    let foreign = other.alloc::<f32>(16).unwrap();
    let msg = err(
        &[
            (&foreign).into(),
            (&buf).into(),
            (&buf).into(),
            16u32.into(),
        ],
        cfg,
    );
    assert!(
        msg.starts_with("argument 0 (`%a`) of `vector_add`: the buffer belongs to"),
        "{msg}"
    );
}

#[test]
fn resident_workgroups_on_cpu() {
    let d = Device::cpu_with_resident_limit(12);
    let module = d.load_module(&ModuleImage::new(vector_add_ir())).unwrap();
    assert_eq!(
        module
            .max_resident_workgroups("vector_add", [256, 1, 1])
            .unwrap(),
        12
    );
    assert!(
        module
            .max_resident_workgroups("vector_add", [512, 1, 1])
            .is_err()
    );
}

#[test]
fn device_specs() {
    use kosmos_runtime::DeviceSpec;
    assert_eq!(DeviceSpec::parse("cpu").unwrap(), DeviceSpec::Cpu);
    assert_eq!(DeviceSpec::parse("cuda:3").unwrap(), DeviceSpec::Cuda(3));
    assert_eq!(DeviceSpec::parse("hip").unwrap(), DeviceSpec::Hip(0));
    for bad in ["bogus", "cuda:x", "cpu:0", "", "cuda:-1"] {
        let msg = DeviceSpec::parse(bad).unwrap_err().to_string();
        assert!(
            msg.contains("`cpu`") && msg.contains("`cuda:N`") && msg.contains("`hip:N`"),
            "{msg}"
        );
    }
}

/// The one test that touches the process environment (tests run in parallel threads).
#[test]
fn kosmos_device_env() {
    // SAFETY: no other test of this binary reads or writes the environment.
    unsafe { std::env::set_var("KOSMOS_DEVICE", "bogus") };
    let msg = Device::from_env().unwrap_err().to_string();
    assert!(msg.contains("`bogus`") && msg.contains("`cuda:N`"), "{msg}");
    unsafe { std::env::set_var("KOSMOS_DEVICE", "cpu") };
    assert_eq!(Device::from_env().unwrap().kind(), DeviceKind::Cpu);
    unsafe { std::env::remove_var("KOSMOS_DEVICE") };
}

#[test]
fn missing_gpu_backends_are_errors() {
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        let msg = Device::cuda(0).unwrap_err().to_string();
        assert_eq!(
            msg,
            "cuda:0 is not available: the CUDA driver library (libcuda.so) was not found"
        );
    } else if Device::cuda_device_count() == 0 {
        let msg = Device::cuda(0).unwrap_err().to_string();
        assert!(msg.starts_with("cuda:0 is not available: "), "{msg}");
    }
    if !cfg!(feature = "hip") {
        let msg = Device::hip(0).unwrap_err().to_string();
        assert!(msg.contains("built without the `hip` feature"), "{msg}");
    }
}

#[test]
fn missing_binary_is_an_error_on_gpus() {
    // Only a GPU can lack a binary; on a machine without one the check is on the message.
    if let Ok(d) = Device::cuda(0) {
        let msg = d
            .load_module(&ModuleImage::new(vector_add_ir()))
            .err()
            .unwrap()
            .to_string();
        assert_eq!(msg, format!("module has no PTX for {d}"));
    }
}

/// `out[i] = i + salt` for every lane `i` of the grid; at most two subgroups a workgroup.
fn two_subgroups() -> kosmos_ir::Kernel {
    use kosmos_ir::{KernelBuilder, Type};
    let mut b = KernelBuilder::new("two_subgroups", 1024);
    let out = b.param("out", Type::GLOBAL_PTR);
    let salt = b.param("salt", Type::U32);
    let i = b.global_id_x();
    let v = b.add(i, salt);
    let p = b.ptr_offset(out, i, Type::U32);
    b.store(p, v);
    let mut k = b.finish();
    k.max_subgroups = Some(2);
    kosmos_ir::verify(k).unwrap().into_kernel()
}

/// One `mma.group` on shared tiles: needs workgroups of whole groups of four subgroups.
fn one_group() -> kosmos_ir::Kernel {
    use kosmos_ir::{KernelBuilder, ScalarType};
    let mut b = KernelBuilder::new("one_group", 256);
    let a = b.shared_alloc("a", ScalarType::BF16, 64 * 64);
    let t = b.shared_alloc("b", ScalarType::BF16, 64 * 128);
    let acc = b.wide_zero();
    b.mma_group(a, t, acc);
    let k = b.finish();
    kosmos_ir::verify(k).unwrap().into_kernel()
}

#[test]
fn max_subgroups_bounds_launches_on_the_cpu_device() {
    let d = cpu();
    assert_eq!(d.subgroup_size(), 32);
    let ir = kosmos_ir::Module {
        kernels: vec![two_subgroups()],
    };
    let module = d
        .load_module(&ModuleImage::new(kosmos_ir::verify_module(ir).unwrap()))
        .unwrap();
    let stream = d.stream().unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    let groups = rng.random_range(1..6u32);
    let salt: u32 = rng.random_range(0..1 << 30);
    let n = (groups * 64) as usize;
    let out = d.alloc::<u32>(n).unwrap();
    out.fill(u32::MAX).unwrap();
    let args = [KernelArg::from(&out), salt.into()];

    // Two subgroups of 32 lanes: 64 lanes, not the kernel's 1024.
    let msg = module
        .launch(&stream, "two_subgroups", LaunchConfig::linear(1, 96), &args)
        .unwrap_err()
        .to_string();
    assert_eq!(
        msg,
        "launch of `two_subgroups`: a workgroup of 96 lanes ([96, 1, 1]) exceeds the kernel's \
         maximum of max_subgroups 2 of 32 lanes: 64"
    );
    assert!(
        module
            .max_resident_workgroups("two_subgroups", [128, 1, 1])
            .is_err()
    );
    assert_eq!(
        out.download().unwrap(),
        vec![u32::MAX; n],
        "a refused launch ran"
    );

    module
        .launch(
            &stream,
            "two_subgroups",
            LaunchConfig::linear(groups, 64),
            &args,
        )
        .unwrap();
    let want: Vec<u32> = (0..n as u32).map(|i| i + salt).collect();
    assert_eq!(out.download().unwrap(), want);
}

#[test]
fn group_kernels_need_whole_groups_on_the_cpu_device() {
    let d = cpu();
    let ir = kosmos_ir::Module {
        kernels: vec![one_group()],
    };
    let module = d
        .load_module(&ModuleImage::new(kosmos_ir::verify_module(ir).unwrap()))
        .unwrap();
    let stream = d.stream().unwrap();
    for block in [[64, 1, 1], [32, 3, 1], [192, 1, 1]] {
        let lanes: u32 = block.iter().product();
        let rule = format!(
            "a workgroup of {lanes} lanes ({block:?}) is not a whole number of groups: the \
             kernel uses mma.group, which needs workgroups of a multiple of 4 subgroups of 32 \
             lanes (128 lanes)"
        );
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block,
        };
        let msg = module
            .launch(&stream, "one_group", cfg, &[])
            .unwrap_err()
            .to_string();
        assert_eq!(msg, format!("launch of `one_group`: {rule}"));
        let msg = module
            .max_resident_workgroups("one_group", block)
            .unwrap_err()
            .to_string();
        assert_eq!(msg, format!("launch of `one_group`: {rule}"));
    }
    for block in [[128, 1, 1], [32, 4, 2], [256, 1, 1]] {
        assert!(module.max_resident_workgroups("one_group", block).is_ok());
    }
}
