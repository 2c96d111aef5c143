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

/// Words of [`SHARED_REVERSE_PTX`]'s shared array: 64 KiB, more than the 48 KiB a kernel
/// gets without opting in.
const SHARED_WORDS: u32 = 16 * 1024;

/// Runtime-only fixture, written by hand like [`VECTOR_ADD_PTX`], laid out as kosmos-codegen
/// lays out shared memory (one dynamic array): one workgroup of 256 lanes fills 64 KiB of
/// shared memory with `word + salt` and writes them back mirrored, `out[i] = salt + 16383 - i`
/// (as [`shared_reverse_ir`] says). `too_much_shared` needs more shared memory than any GPU
/// has (per its IR) and is never run.
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

.visible .entry too_much_shared()
{
    ret;
}
"#;

/// The IR of [`SHARED_REVERSE_PTX`]: `shared_reverse(out, salt)` with 64 KiB of shared
/// memory, and `too_much_shared` with 1 MiB.
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
    let reverse = b.finish();
    let reverse = kosmos_ir::verify(reverse).unwrap().into_kernel();
    // Beyond the IR's own limit (the verifier refuses it), so beyond what any GPU allows: it
    // stands for a kernel that needs more shared memory than the GPU at hand has.
    let mut b = KernelBuilder::new("too_much_shared", 256);
    b.shared_alloc("huge", ScalarType::U32, 256 * 1024);
    let huge = b.finish();
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![reverse, huge],
    })
    .unwrap()
}

/// Runs `shared_reverse` on `d` (the CPU device runs the IR, a GPU the PTX) and checks it.
fn check_shared_reverse(d: &Device, seed: u64) {
    let image = ModuleImage::new(shared_reverse_ir()).with_binary("sm_90a", SHARED_REVERSE_PTX);
    let module = d.load_module(&image).unwrap();
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

/// The fixture's IR says what its PTX computes.
#[test]
fn shared_reverse_ir_on_the_cpu_device() {
    check_shared_reverse(&Device::cpu().unwrap(), 5);
}

/// The reference `vector_add` (`out[i] = a[i] + b[i]` for `i < n`, up to 256 lanes).
fn vector_add_ir() -> kosmos_ir::VerifiedModule {
    kosmos_ir::verify_module(kosmos_ir::Module {
        kernels: vec![kosmos_testkernels::vector_add()],
    })
    .unwrap()
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
    let image = ModuleImage::new(vector_add_ir()).with_binary("sm_90a", VECTOR_ADD_PTX);
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

#[test]
#[ignore = "needs KOSMOS_TEST_GPU=cuda"]
fn cuda_kernels_above_48_kib_of_shared_memory() {
    let d = gpu();
    check_shared_reverse(&d, 9);
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

    let stream = d.stream().unwrap();
    let msg = module
        .launch(&stream, "too_much_shared", LaunchConfig::linear(1, 32), &[])
        .unwrap_err()
        .to_string();
    assert!(
        msg.starts_with("launch of `too_much_shared`: the kernel needs 1048576 bytes")
            && msg.contains("cuda:0")
            && msg.contains("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        "{msg}"
    );
    let msg = module
        .max_resident_workgroups("too_much_shared", [32, 1, 1])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("1048576 bytes"), "{msg}");
}
