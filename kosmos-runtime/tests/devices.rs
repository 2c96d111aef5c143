//! The runtime on every backend: one suite written against [`Device`], stamped per backend by
//! `device_suite!`, then what only one backend has. The CPU device's tests always run; the
//! CUDA and HIP tests are opt-in: run with `KOSMOS_TEST_GPU=cuda` (or `hip`, built with the
//! `hip` feature) and `-- --include-ignored cuda::` (or `hip::`); when the variable is set
//! these tests fail loudly if the GPU is missing.

use kosmos_runtime::{
    Buffer, Device, DeviceKind, Error, KernelArg, LaunchConfig, ModuleImage, Stream,
};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// One test function per suite test for each backend: `$device` opens the device, `$gate`
/// (nothing, or an `#[ignore]`) says whether the test runs by default.
macro_rules! device_suite {
    ($backend:ident, $device:expr $(, #[$gate:meta])?) => {
        mod $backend {
            use super::*;

            #[test]
            $(#[$gate])?
            fn buffers_round_trip_and_fill() {
                suite::buffers_round_trip_and_fill(&$device);
            }

            #[test]
            $(#[$gate])?
            fn vector_add_launch_and_timing() {
                suite::vector_add_launch_and_timing(&$device);
            }

            #[test]
            $(#[$gate])?
            fn shared_memory_staging() {
                suite::shared_memory_staging(&$device);
            }

            #[test]
            $(#[$gate])?
            fn streams_follow_each_other() {
                suite::streams_follow_each_other(&$device);
            }
        }
    };
}

device_suite!(
    cpu,
    Device::cpu().expect("the CPU device is always available")
);
device_suite!(cuda, gpu("cuda"), #[ignore = "needs KOSMOS_TEST_GPU=cuda"]);
#[cfg(feature = "hip")]
device_suite!(hip, gpu("hip"), #[ignore = "needs KOSMOS_TEST_GPU=hip"]);

/// The GPU under test; panics (the test fails) unless `KOSMOS_TEST_GPU=<backend>` and a GPU
/// of that backend exists.
fn gpu(backend: &str) -> Device {
    let wanted = std::env::var("KOSMOS_TEST_GPU").unwrap_or_default();
    assert_eq!(
        wanted, backend,
        "set KOSMOS_TEST_GPU={backend} to run the {backend} tests"
    );
    let device = match backend {
        "cuda" => Device::cuda(0),
        _ => Device::hip(0),
    };
    device.unwrap_or_else(|e| panic!("KOSMOS_TEST_GPU={backend} but {e}"))
}

/// The suite, written once against [`Device`].
mod suite {
    use super::*;

    pub fn buffers_round_trip_and_fill(d: &Device) {
        let data: Vec<i64> = (0..1000).map(|i| i * -7).collect();
        let buf = Buffer::from_slice(d, &data).unwrap();
        assert_eq!(buf.len(), 1000);
        assert_eq!(buf.download().unwrap(), data);

        let data: Vec<u64> = (0..4099).map(|i| i * 0x1_0000_0001).collect();
        let buf = Buffer::from_slice(d, &data).unwrap();
        assert_eq!(buf.download().unwrap(), data);
        buf.fill(u64::MAX - 1).unwrap();
        assert!(buf.download().unwrap().iter().all(|v| *v == u64::MAX - 1));

        let h = d.alloc::<half::bf16>(33).unwrap();
        h.fill(half::bf16::from_f32(1.5)).unwrap();
        assert!(h.download().unwrap().iter().all(|v| v.to_f32() == 1.5));
        let h = d.alloc::<half::f16>(1001).unwrap();
        h.fill(half::f16::from_f32(-2.5)).unwrap();
        assert!(h.download().unwrap().iter().all(|v| v.to_f32() == -2.5));
        let f = d.alloc::<f32>(77).unwrap();
        f.fill(0.25).unwrap();
        assert_eq!(f.download().unwrap(), vec![0.25; 77]);

        let bytes = d.alloc::<u8>(7).unwrap();
        bytes.fill(0xab).unwrap();
        assert_eq!(bytes.download().unwrap(), vec![0xab; 7]);

        let empty = d.alloc::<f32>(0).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.download().unwrap(), Vec::<f32>::new());
    }

    /// `vector_add` on ragged sizes, timed by events; on a GPU also at a million elements
    /// (the CPU device would take long), with its residency and a checked launch.
    pub fn vector_add_launch_and_timing(d: &Device) {
        let module = d
            .load_module(&image(d, vector_add_ir(), VECTOR_ADD_PTX))
            .unwrap();
        let stream = d.stream().unwrap();
        let mut rng = SmallRng::seed_from_u64(7);
        let mut sizes = vec![1usize, 255, 257, 1000];
        if d.kind() != DeviceKind::Cpu {
            sizes.push(1 << 20 | 3);
        }
        for n in sizes {
            let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
            let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
            let da = Buffer::from_slice(d, &a).unwrap();
            let db = Buffer::from_slice(d, &b).unwrap();
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
        if let Some(compute_units) = d.compute_units() {
            let resident = module
                .max_resident_workgroups("vector_add", [256, 1, 1])
                .unwrap();
            assert!(resident >= compute_units, "{resident}");
        }
        let err = module
            .launch(
                &stream,
                "vector_add",
                LaunchConfig::linear(1, 256),
                &[1u32.into()],
            )
            .unwrap_err();
        assert!(err.to_string().contains("expected 4 argument"), "{err}");
    }

    /// Work queued on a stream after it [`Stream::follow`]s another runs after the other's:
    /// a chain of 32 `vector_add`s on the first stream (`x + 1`, back and forth between two
    /// buffers), then on the second one more reading the chain's result, unsynchronized in
    /// between. Following a stream of another device is refused.
    pub fn streams_follow_each_other(d: &Device) {
        let module = d
            .load_module(&image(d, vector_add_ir(), VECTOR_ADD_PTX))
            .unwrap();
        let (first, second) = (d.stream().unwrap(), d.stream().unwrap());
        let n = if d.kind() == DeviceKind::Cpu {
            1000
        } else {
            1 << 22
        };
        let ones = Buffer::from_slice(d, &vec![1f32; n]).unwrap();
        let x = Buffer::from_slice(d, &vec![0f32; n]).unwrap();
        let (y, z) = (d.alloc::<f32>(n).unwrap(), d.alloc::<f32>(n).unwrap());
        z.fill(f32::NAN).unwrap();
        let add = |stream: &Stream, from: &Buffer<f32>, to: &Buffer<f32>| {
            let args = [from.into(), (&ones).into(), to.into(), (n as u32).into()];
            let cfg = LaunchConfig::for_elements(n, 256);
            module.launch(stream, "vector_add", cfg, &args).unwrap();
        };
        for _ in 0..16 {
            add(&first, &x, &y);
            add(&first, &y, &x);
        }
        second.follow(&first).unwrap();
        add(&second, &x, &z);
        second.synchronize().unwrap();
        let got = z.download().unwrap();
        assert!(got.iter().all(|&v| v == 33.0), "{:?}", &got[..4]);
        let elsewhere = Device::cpu().unwrap().stream().unwrap();
        let err = second.follow(&elsewhere).unwrap_err().to_string();
        assert!(err.contains("the earlier stream"), "{err}");
    }

    /// `shared_reverse` (the CPU device runs the IR, a GPU the binary).
    pub fn shared_memory_staging(d: &Device) {
        check_shared_reverse(d, 9);
        // 64 KiB fits every device (all of gfx942's); the CPU device has no bound.
        let module = d
            .load_module(&image(d, shared_reverse_ir(), SHARED_REVERSE_PTX))
            .unwrap();
        assert!(module.fits("shared_reverse").unwrap());
        match d.max_shared_bytes() {
            None => assert_eq!(d.kind(), DeviceKind::Cpu),
            Some(limit) => assert!(limit >= 64 << 10, "{limit}"),
        }
        let err = module.fits("no_such_kernel").unwrap_err();
        assert!(err.to_string().contains("no_such_kernel"), "{err}");
    }
}

/// The fixture's image for `d`: its IR, the hand-written PTX, and with the `hip` feature code
/// objects compiled from the IR (no AMDGPU assembly is written by hand). Only HIP builds of
/// this test call the code generator, so that the others do not link LLVM (the GPU machines
/// have none).
#[cfg_attr(not(feature = "hip"), expect(unused_variables))]
fn image(d: &Device, ir: kosmos_ir::VerifiedModule, ptx: &str) -> ModuleImage {
    let image = ModuleImage::new(ir).with_binary("sm_90a", ptx);
    #[cfg(feature = "hip")]
    if d.kind() == DeviceKind::Hip {
        return [
            kosmos_codegen::TargetKind::Gfx942,
            kosmos_codegen::TargetKind::Gfx950,
        ]
        .into_iter()
        .fold(image, |image, target| {
            let hsaco = kosmos_codegen::compile(&image.ir, target, &Default::default())
                .unwrap_or_else(|e| panic!("{target}: {e}"));
            image.with_binary(target.name(), hsaco.bytes)
        });
    }
    image
}

/// `vector_add` on `stream` writes a [`Buffer::borrowed`] view of another buffer's memory
/// (poisoned first); dropping the view leaves that memory to its owner, which reads the sums.
fn borrowed_view_as_output(d: &Device, stream: &kosmos_runtime::Stream) {
    let module = d
        .load_module(&image(d, vector_add_ir(), VECTOR_ADD_PTX))
        .unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    let n = 300;
    let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
    let (da, db) = (
        Buffer::from_slice(d, &a).unwrap(),
        Buffer::from_slice(d, &b).unwrap(),
    );
    let owner = Buffer::from_slice(d, &vec![f32::NAN; n]).unwrap();
    let view = unsafe { Buffer::<f32>::borrowed(d, owner.device_ptr(), n) }.unwrap();
    let args = [
        (&da).into(),
        (&db).into(),
        (&view).into(),
        (n as u32).into(),
    ];
    let cfg = LaunchConfig::for_elements(n, 256);
    module.launch(stream, "vector_add", cfg, &args).unwrap();
    stream.synchronize().unwrap();
    drop(view);
    let sums: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(owner.download().unwrap(), sums);
}

/// The reference `vector_add` (`out[i] = a[i] + b[i]` for `i < n`, up to 256 lanes).
fn vector_add_ir() -> kosmos_ir::VerifiedModule {
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![kosmos_testkernels::vector_add()],
    })
    .unwrap()
}

/// Runtime-only fixture: PTX for an f32 vector add written by hand (kernels proper come from
/// kosmos-codegen; this one only exercises loading and launching). Its signature matches
/// [`vector_add_ir`].
const VECTOR_ADD_PTX: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry vector_add(
    .param .u64 a,
    .param .u64 b,
    .param .u64 out,
    .param .u32 n
)
.maxntid 256, 1, 1
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.rn.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
"#;

/// Words of [`SHARED_REVERSE_PTX`]'s shared array: 64 KiB, more than the 48 KiB a kernel
/// gets without opting in.
const SHARED_WORDS: u32 = 16 * 1024;

/// Runtime-only fixture, written by hand like [`VECTOR_ADD_PTX`], laid out as kosmos-codegen
/// lays out shared memory (one dynamic array): one workgroup of 256 lanes fills 64 KiB of
/// shared memory with `word + salt` and writes them back mirrored, `out[i] = salt + 16383 - i`
/// (as [`shared_reverse_ir`] says).
const SHARED_REVERSE_PTX: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 1024 .b8 kosmos_shared[];

.visible .entry shared_reverse(
    .param .u64 out,
    .param .u32 salt
)
.maxntid 256, 1, 1
{
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [salt];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r10, kosmos_shared;
    mov.u32 %r11, 16383;
    mov.u32 %r2, %tid.x;
    shl.b32 %r3, %r2, 6;
    mov.u32 %r4, 0;
FILL:
    add.u32 %r5, %r3, %r4;
    add.u32 %r6, %r5, %r1;
    shl.b32 %r7, %r5, 2;
    add.u32 %r7, %r7, %r10;
    st.shared.u32 [%r7], %r6;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p1, %r4, 64;
    @%p1 bra FILL;
    bar.sync 0;
    mov.u32 %r4, 0;
READ:
    add.u32 %r5, %r3, %r4;
    sub.u32 %r8, %r11, %r5;
    shl.b32 %r7, %r8, 2;
    add.u32 %r7, %r7, %r10;
    ld.shared.u32 %r9, [%r7];
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r9;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p1, %r4, 64;
    @%p1 bra READ;
    ret;
}
"#;

/// The IR of [`SHARED_REVERSE_PTX`]'s `shared_reverse(out, salt)`, with 64 KiB of shared
/// memory.
fn shared_reverse_ir() -> kosmos_ir::VerifiedModule {
    use kosmos_ir::{Dim, KernelBuilder, ScalarType, Type};
    let mut b = KernelBuilder::new("shared_reverse", 256);
    let out = b.param("out", Type::GLOBAL_PTR);
    let salt = b.param("salt", Type::U32);
    let words = b.shared_alloc("words", ScalarType::U32, SHARED_WORDS);
    let t = b.workitem_id(Dim::X);
    let per_lane = b.const_u32(SHARED_WORDS / 256);
    let first = b.mul(t, per_lane);
    let zero = b.const_u32(0);
    let one = b.const_u32(1);
    b.for_range(zero, per_lane, one, &[], |b, j, _| {
        let w = b.add(first, j);
        let v = b.add(w, salt);
        let p = b.ptr_offset(words, w, Type::U32);
        b.store(p, v);
        vec![]
    });
    b.barrier();
    let last = b.const_u32(SHARED_WORDS - 1);
    b.for_range(zero, per_lane, one, &[], |b, j, _| {
        let i = b.add(first, j);
        let m = b.sub(last, i);
        let p = b.ptr_offset(words, m, Type::U32);
        let v = b.load(p, Type::U32);
        let q = b.ptr_offset(out, i, Type::U32);
        b.store(q, v);
        vec![]
    });
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![b.finish()],
    })
    .unwrap()
}

/// Runs `shared_reverse` on `d` and checks it.
fn check_shared_reverse(d: &Device, seed: u64) {
    let module = d
        .load_module(&image(d, shared_reverse_ir(), SHARED_REVERSE_PTX))
        .unwrap();
    let stream = d.stream().unwrap();
    let salt: u32 = SmallRng::seed_from_u64(seed).random_range(0..1 << 30);
    let out = d.alloc::<u32>(SHARED_WORDS as usize).unwrap();
    out.fill(u32::MAX).unwrap();
    module
        .launch(
            &stream,
            "shared_reverse",
            LaunchConfig::linear(1, 256),
            &[(&out).into(), salt.into()],
        )
        .unwrap();
    stream.synchronize().unwrap();
    let want: Vec<u32> = (0..SHARED_WORDS)
        .map(|i| salt + SHARED_WORDS - 1 - i)
        .collect();
    assert_eq!(out.download().unwrap(), want);
}

/// What needs no GPU: the CPU device's identity, launch checks and residency limits, device
/// specs, and how missing GPU backends and binaries are reported.
mod without_gpu {
    use super::*;

    fn cpu() -> Device {
        Device::cpu().expect("the CPU device is always available")
    }

    #[test]
    fn device_identity() {
        let d = cpu();
        assert_eq!(d.kind(), DeviceKind::Cpu);
        assert_eq!(d.to_string(), "cpu");
        assert_eq!(d.name(), "cpu");
    }

    #[test]
    fn a_borrowed_buffer_is_written_by_kernels_and_leaves_its_memory_on_drop() {
        let d = cpu();
        borrowed_view_as_output(&d, &d.stream().unwrap());
    }

    #[test]
    fn the_cpu_device_has_no_streams_to_borrow() {
        let msg = unsafe { cpu().borrowed_stream(0x1234) }
            .err()
            .unwrap()
            .to_string();
        assert!(
            msg.contains("cpu") && msg.contains("no external streams"),
            "{msg}"
        );
        let msg = unsafe { Buffer::<f32>::borrowed(&cpu(), 0, 4) }
            .unwrap_err()
            .to_string();
        assert!(msg.contains("address 0"), "{msg}");
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
        // Workgroup sizes whose lane count overflows a u64 (2^96 - ..., and 2^64, which would
        // wrap to zero lanes) are too large, not empty.
        for block in [[u32::MAX; 3], [1 << 22, 1 << 21, 1 << 21]] {
            let lanes = block.iter().map(|d| u128::from(*d)).product::<u128>();
            let msg = err(
                &args,
                LaunchConfig {
                    grid: [1; 3],
                    block,
                },
            );
            assert!(
                msg.contains(&format!("a workgroup of {lanes} lanes")) && msg.contains("256"),
                "{msg}"
            );
        }
        let msg = err(
            &args,
            LaunchConfig {
                grid: [u32::MAX; 3],
                block: [16, 1, 1],
            },
        );
        assert!(msg.contains("more than 2^64 - 1"), "{msg}");

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
    fn resident_workgroups() {
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
        // Workgroups whose lane count overflows (or wraps to zero in) a u64 are errors.
        for block in [[u32::MAX; 3], [1 << 22, 1 << 21, 1 << 21]] {
            let e = module
                .max_resident_workgroups("vector_add", block)
                .unwrap_err()
                .to_string();
            assert!(e.contains("exceeds the kernel's maximum"), "{block:?}: {e}");
        }
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
}

/// What only CUDA has: binaries that must be PTX, and the shared-memory opt-in above 48 KiB.
mod cuda_only {
    use super::*;

    #[test]
    #[ignore = "needs KOSMOS_TEST_GPU=cuda"]
    fn a_borrowed_view_on_the_borrowed_legacy_stream() {
        let d = gpu("cuda");
        // Handle 0: the legacy default stream of the primary context, always there.
        let stream = unsafe { d.borrowed_stream(0) }.unwrap();
        borrowed_view_as_output(&d, &stream);
    }

    #[test]
    #[ignore = "needs KOSMOS_TEST_GPU=cuda"]
    fn module_without_ptx_is_an_error() {
        let d = gpu("cuda");
        let err = d
            .load_module(&ModuleImage::new(vector_add_ir()))
            .err()
            .unwrap();
        assert_eq!(err.to_string(), "module has no PTX for cuda:0");
    }

    #[test]
    #[ignore = "needs KOSMOS_TEST_GPU=cuda"]
    fn kernels_above_48_kib_of_shared_memory() {
        let d = gpu("cuda");
        let module = d
            .load_module(
                &ModuleImage::new(shared_reverse_ir()).with_binary("sm_90a", SHARED_REVERSE_PTX),
            )
            .unwrap();
        // 64 KiB a workgroup: at most three of them share an H100/H200 multiprocessor's 228 KiB,
        // where eight workgroups of 256 lanes would fit without the shared memory.
        let sms = d.compute_units().unwrap();
        let resident = module
            .max_resident_workgroups("shared_reverse", [256, 1, 1])
            .unwrap();
        assert!(resident >= sms && resident <= 3 * sms, "{resident}");
    }
}
