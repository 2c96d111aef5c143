//! The reference kernels run through `kosmos-runtime` on any device, each checked against its
//! host reference. Shared by the device tests and the `demo` binary.

use half::bf16;
use kosmos_runtime::{Buffer, Device, DeviceScalar, KernelArg, LaunchConfig, Module, Result};
use kosmos_testkernels as k;
use kosmos_testkernels::compare::{self, RelErr, Scale};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

/// What a case produced: the output's bits (so two devices can be compared exactly) and how
/// it compares with the host reference.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub case: &'static str,
    pub shape: String,
    /// The output buffer as raw 32-bit words.
    pub bits: Vec<u32>,
    pub verdict: Verdict,
    /// Wall time of the launch and its synchronisation, in milliseconds.
    pub ms: f64,
}

/// How an output compares with its reference.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// An integer output, compared bitwise: the number of words that differ.
    Exact { mismatches: usize },
    /// A float output, by relative error against the largest reference magnitude.
    Close(RelErr),
}

impl Outcome {
    pub fn passed(&self) -> bool {
        match &self.verdict {
            Verdict::Exact { mismatches } => *mismatches == 0,
            Verdict::Close(err) => err.passed(),
        }
    }

    /// Largest relative error against the f64 reference (0 for integer outputs).
    pub fn max_rel_err(&self) -> f64 {
        match &self.verdict {
            Verdict::Exact { .. } => 0.0,
            Verdict::Close(err) => err.max,
        }
    }

    /// Elements that differ (integers) or exceed the tolerance (floats).
    pub fn wrong(&self) -> usize {
        match &self.verdict {
            Verdict::Exact { mismatches } => *mismatches,
            Verdict::Close(err) => err.over,
        }
    }
}

/// A reference-kernel case: its name and how to run it with inputs drawn from a seed.
pub struct Case {
    pub name: &'static str,
    pub run: fn(&Device, &Module, u64) -> Result<Outcome>,
}

/// The case called `name`; panics naming the cases there are when none is.
pub fn case(name: &str) -> &'static Case {
    CASES.iter().find(|c| c.name == name).unwrap_or_else(|| {
        let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
        panic!("no case `{name}` (there are {names:?})")
    })
}

/// Every case, in a fixed order.
pub const CASES: &[Case] = &[
    Case {
        name: "vector_add",
        run: vector_add,
    },
    Case {
        name: "workgroup_sum",
        run: workgroup_sum,
    },
    Case {
        name: "matmul_bf16",
        run: matmul_bf16,
    },
    Case {
        name: "histogram",
        run: histogram,
    },
    Case {
        name: "handshake",
        run: handshake,
    },
    Case {
        name: "kernels_gemm",
        run: kernels_gemm,
    },
];

/// The kernels crate's any-shape gemm (its one-shot instance, launched directly so that the
/// launch alone is timed), on edge and interior tiles.
fn kernels_gemm(device: &Device, _reference: &Module, seed: u64) -> Result<Outcome> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (m, n, kk) = (257usize, 136usize, 72usize);
    let (a, b) = (random_bf16(&mut rng, m * kk), random_bf16(&mut rng, kk * n));
    let (da, db) = (
        Buffer::from_slice(device, &a)?,
        Buffer::from_slice(device, &b)?,
    );
    let c = poisoned(device, m * n, f32::NAN)?;
    // Unused by the one-shot instance.
    let counter = device.alloc::<u32>(1)?;
    let module = device.load_module(&kernels::MODULE.image()?)?;
    let tile = kernels::GEMM_TILE as usize;
    let cfg = LaunchConfig {
        grid: [(m.div_ceil(tile) * n.div_ceil(tile)) as u32, 1, 1],
        block: [
            kernels::GEMM_SUBGROUPS * kernels::subgroup_size(device),
            1,
            1,
        ],
    };
    let args = [
        (&da).into(),
        (&db).into(),
        (&c).into(),
        (&counter).into(),
        (m as u32).into(),
        (n as u32).into(),
        (kk as u32).into(),
    ];
    let name = kernels::ops::gemm::name::<0>();
    let ms = timed(device, &module, &name, cfg, &args)?;
    let want = k::matmul_bf16_ref(&a, &b, m, n, kk);
    Ok(float_outcome(
        "kernels_gemm",
        format!("M={m} N={n} K={kk}"),
        &c.download()?,
        &want,
        1e-5,
        ms,
    ))
}

/// Loads the embedded reference module on `device`.
pub fn load(device: &Device) -> Result<Module> {
    device.load_module(&crate::REFERENCE.image()?)
}

/// `len` bf16 values uniform in [-1, 1).
pub fn random_bf16(rng: &mut SmallRng, len: usize) -> Vec<bf16> {
    (0..len)
        .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect()
}

/// A buffer of `len` elements filled with `poison`, so that unwritten outputs show.
fn poisoned<T: DeviceScalar>(device: &Device, len: usize, poison: T) -> Result<Buffer<T>> {
    let buffer = device.alloc::<T>(len)?;
    buffer.fill(poison)?;
    Ok(buffer)
}

fn timed(
    device: &Device,
    module: &Module,
    kernel: &str,
    cfg: LaunchConfig,
    args: &[KernelArg],
) -> Result<f64> {
    let stream = device.stream()?;
    let start = Instant::now();
    module.launch(&stream, kernel, cfg, args)?;
    stream.synchronize()?;
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

fn float_outcome(
    case: &'static str,
    shape: String,
    got: &[f32],
    want: &[f64],
    tolerance: f64,
    ms: f64,
) -> Outcome {
    Outcome {
        case,
        shape,
        bits: got.iter().map(|x| x.to_bits()).collect(),
        verdict: Verdict::Close(compare::rel_err(got, want, Scale::Largest, tolerance)),
        ms,
    }
}

fn exact_outcome(case: &'static str, shape: String, got: &[u32], want: &[u32], ms: f64) -> Outcome {
    let mismatches =
        got.iter().zip(want).filter(|(g, w)| g != w).count() + got.len().abs_diff(want.len());
    Outcome {
        case,
        shape,
        bits: got.to_vec(),
        verdict: Verdict::Exact { mismatches },
        ms,
    }
}

fn vector_add(device: &Device, module: &Module, seed: u64) -> Result<Outcome> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let n = 100_003usize; // not a multiple of the block: a ragged tail
    let a: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (da, db) = (
        Buffer::from_slice(device, &a)?,
        Buffer::from_slice(device, &b)?,
    );
    let out = poisoned(device, n, f32::NAN)?;
    let args = [(&da).into(), (&db).into(), (&out).into(), (n as u32).into()];
    let ms = timed(
        device,
        module,
        "vector_add",
        LaunchConfig::for_elements(n, 256),
        &args,
    )?;
    let want = k::vector_add_ref(&a, &b);
    Ok(float_outcome(
        "vector_add",
        format!("n={n}"),
        &out.download()?,
        &want,
        1e-6,
        ms,
    ))
}

fn workgroup_sum(device: &Device, module: &Module, seed: u64) -> Result<Outcome> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (n, block) = (50_000usize, k::SUM_BLOCK as usize);
    let input: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..1.0)).collect();
    let groups = n.div_ceil(block);
    let din = Buffer::from_slice(device, &input)?;
    let partials = poisoned(device, groups, f32::NAN)?;
    let args = [(&din).into(), (&partials).into(), (n as u32).into()];
    let cfg = LaunchConfig::linear(groups as u32, block as u32);
    let ms = timed(device, module, "workgroup_sum", cfg, &args)?;
    let want = k::workgroup_sum_ref(&input, block);
    Ok(float_outcome(
        "workgroup_sum",
        format!("n={n} block={block}"),
        &partials.download()?,
        &want,
        1e-5,
        ms,
    ))
}

fn matmul_bf16(device: &Device, module: &Module, seed: u64) -> Result<Outcome> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (m, n, kk) = (130usize, 96usize, 72usize);
    let (a, b) = (random_bf16(&mut rng, m * kk), random_bf16(&mut rng, kk * n));
    let (da, db) = (
        Buffer::from_slice(device, &a)?,
        Buffer::from_slice(device, &b)?,
    );
    let c = poisoned(device, m * n, f32::NAN)?;
    let t = k::TILE;
    let cfg = LaunchConfig {
        grid: [(n as u32).div_ceil(t), (m as u32).div_ceil(t), 1],
        block: [t, t, 1],
    };
    let args = [
        (&da).into(),
        (&db).into(),
        (&c).into(),
        (m as u32).into(),
        (n as u32).into(),
        (kk as u32).into(),
    ];
    let ms = timed(device, module, "matmul_bf16", cfg, &args)?;
    let want = k::matmul_bf16_ref(&a, &b, m, n, kk);
    Ok(float_outcome(
        "matmul_bf16",
        format!("M={m} N={n} K={kk}"),
        &c.download()?,
        &want,
        1e-5,
        ms,
    ))
}

fn histogram(device: &Device, module: &Module, seed: u64) -> Result<Outcome> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (n, nbins) = (200_000usize, 7u32); // few bins: heavy contention
    let input: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let din = Buffer::from_slice(device, &input)?;
    let bins = device.alloc::<u32>(nbins as usize)?;
    bins.fill(0)?; // counters start at zero by contract; the kernel only adds
    let args = [
        (&din).into(),
        (&bins).into(),
        (n as u32).into(),
        nbins.into(),
    ];
    let ms = timed(
        device,
        module,
        "histogram",
        LaunchConfig::for_elements(n, 1024),
        &args,
    )?;
    let want = k::histogram_ref(&input, nbins);
    Ok(exact_outcome(
        "histogram",
        format!("n={n} bins={nbins}"),
        &bins.download()?,
        &want,
        ms,
    ))
}

fn handshake(device: &Device, module: &Module, seed: u64) -> Result<Outcome> {
    let n = 200usize;
    let data = poisoned(device, n, 0xDEAD_BEEFu32)?;
    let flag = device.alloc::<u32>(1)?;
    flag.fill(0)?;
    let out = poisoned(device, n, 0xDEAD_BEEFu32)?;
    let status = poisoned(device, 1, 0xDEAD_BEEFu32)?;
    // The poll bound only guards against a lost flag; the seed varies it a little.
    let limit = 1_000_000u32 + (seed % 1000) as u32;
    let args = [
        (&data).into(),
        (&flag).into(),
        (&out).into(),
        (&status).into(),
        (n as u32).into(),
        limit.into(),
    ];
    let ms = timed(
        device,
        module,
        "handshake",
        LaunchConfig::linear(2, 256),
        &args,
    )?;
    let mut got = out.download()?;
    got.extend(status.download()?);
    let mut want = k::handshake_ref(n);
    want.push(k::HANDSHAKE_OK);
    Ok(exact_outcome(
        "handshake",
        format!("n={n}"),
        &got,
        &want,
        ms,
    ))
}

/// A fresh seed per run, printed by the callers so a failure can be replayed
/// (`KOSMOS_SEED=<n>`).
pub fn seed() -> u64 {
    std::env::var("KOSMOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random())
}
