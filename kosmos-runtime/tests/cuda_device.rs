//! The runtime on a CUDA GPU. Opt-in: run with `KOSMOS_TEST_GPU=cuda` and `--include-ignored`;
//! when the variable is set these tests fail loudly if the GPU is missing.

use kosmos_runtime::{Buffer, Device, DeviceKind, LaunchConfig, ModuleImage};
use rand::{Rng, SeedableRng, rngs::SmallRng};

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

/// The reference `vector_add` (`out[i] = a[i] + b[i]` for `i < n`, up to 256 lanes).
fn vector_add_ir() -> kosmos_ir::Module {
    kosmos_ir::Module {
        kernels: vec![kosmos_testkernels::vector_add()],
    }
}

/// The GPU under test; panics (the test fails) unless `KOSMOS_TEST_GPU=cuda` and a GPU exists.
fn gpu() -> Device {
    let wanted = std::env::var("KOSMOS_TEST_GPU").unwrap_or_default();
    assert_eq!(
        wanted, "cuda",
        "set KOSMOS_TEST_GPU=cuda to run the CUDA tests"
    );
    Device::cuda(0).unwrap_or_else(|e| panic!("KOSMOS_TEST_GPU=cuda but {e}"))
}

#[test]
#[ignore = "needs KOSMOS_TEST_GPU=cuda"]
fn cuda_buffers_and_fill() {
    let d = gpu();
    assert_eq!(d.kind(), DeviceKind::Cuda);
    assert!(d.compute_units().unwrap() > 0);
    let data: Vec<u64> = (0..4099).map(|i| i * 0x1_0000_0001).collect();
    let buf = Buffer::from_slice(&d, &data).unwrap();
    assert_eq!(buf.download().unwrap(), data);
    buf.fill(u64::MAX - 1).unwrap();
    assert!(buf.download().unwrap().iter().all(|v| *v == u64::MAX - 1));
    let h = d.alloc::<half::f16>(1001).unwrap();
    h.fill(half::f16::from_f32(-2.5)).unwrap();
    assert!(h.download().unwrap().iter().all(|v| v.to_f32() == -2.5));
    let f = d.alloc::<f32>(77).unwrap();
    f.fill(0.25).unwrap();
    assert_eq!(f.download().unwrap(), vec![0.25; 77]);
}

#[test]
#[ignore = "needs KOSMOS_TEST_GPU=cuda"]
fn cuda_vector_add_launch_and_timing() {
    let d = gpu();
    let image = ModuleImage::new(vector_add_ir()).with_ptx(VECTOR_ADD_PTX);
    let module = d.load_module(&image).unwrap();
    let stream = d.stream().unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    for n in [1usize, 255, 257, 1 << 20 | 3] {
        let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3..1e3)).collect();
        let da = Buffer::from_slice(&d, &a).unwrap();
        let db = Buffer::from_slice(&d, &b).unwrap();
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
    let resident = module
        .max_resident_workgroups("vector_add", [256, 1, 1])
        .unwrap();
    assert!(resident >= d.compute_units().unwrap(), "{resident}");
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

#[test]
#[ignore = "needs KOSMOS_TEST_GPU=cuda"]
fn cuda_module_without_ptx_is_an_error() {
    let d = gpu();
    let err = d
        .load_module(&ModuleImage::new(vector_add_ir()))
        .err()
        .unwrap();
    assert_eq!(err.to_string(), "module has no PTX for cuda:0");
}
