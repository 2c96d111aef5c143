//! The GEMM benchmark's pieces: shapes, operand sets that defeat the L2 cache, our fragment
//! gemm (through `kernels::Ops`), timing, and the check against an f64 reference.

use crate::{BenchError, Result};
use half::bf16;
use kosmos_runtime::{Buffer, Device, Stream, World};
use kosmos_testkernels::compare::{self, Scale};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// Row-major `c[m,n] = a[m,k] x b[k,n]`.
#[derive(Copy, Clone, Debug)]
pub struct Shape {
    pub name: &'static str,
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl Shape {
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Bytes of one `a` and one `b` operand.
    pub fn input_bytes(&self) -> usize {
        2 * (self.m * self.k + self.k * self.n)
    }
}

/// The square reference shape and the four Llama-3-70B GEMMs at TP=8 with 8192 tokens.
pub const SHAPES: [Shape; 5] = [
    Shape {
        name: "square 8192^3",
        m: 8192,
        n: 8192,
        k: 8192,
    },
    Shape {
        name: "llama70b qkv",
        m: 8192,
        n: 1280,
        k: 8192,
    },
    Shape {
        name: "llama70b out-proj",
        m: 8192,
        n: 8192,
        k: 1024,
    },
    Shape {
        name: "llama70b fc1",
        m: 8192,
        n: 7168,
        k: 8192,
    },
    Shape {
        name: "llama70b fc2",
        m: 8192,
        n: 8192,
        k: 3584,
    },
];

/// Operand bytes cycled through by repeated runs: well above the H200's 50 MiB L2, so a run
/// finds (almost) none of its inputs left in L2 by the previous one.
pub const ROTATION_BYTES: usize = 256 << 20;

/// Random bf16 operand sets for one shape, used in turn. Set 0 keeps its host copy for the
/// correctness check.
pub struct Operands {
    pub shape: Shape,
    pub sets: Vec<(Buffer<bf16>, Buffer<bf16>)>,
    pub host_a: Vec<bf16>,
    pub host_b: Vec<bf16>,
}

fn random_bf16(rng: &mut SmallRng, len: usize) -> Vec<bf16> {
    (0..len)
        .map(|_| bf16::from_f32(rng.random_range(-1.0f32..1.0)))
        .collect()
}

impl Operands {
    /// `ceil(ROTATION_BYTES / input bytes)` sets (at least one) of uniform [-1, 1) values.
    pub fn new(device: &Device, shape: Shape, seed: u64) -> Result<Operands> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let count = ROTATION_BYTES.div_ceil(shape.input_bytes()).max(1);
        let host_a = random_bf16(&mut rng, shape.m * shape.k);
        let host_b = random_bf16(&mut rng, shape.k * shape.n);
        let mut sets = vec![(
            Buffer::from_slice(device, &host_a)?,
            Buffer::from_slice(device, &host_b)?,
        )];
        for _ in 1..count {
            let a = random_bf16(&mut rng, shape.m * shape.k);
            let b = random_bf16(&mut rng, shape.k * shape.n);
            sets.push((
                Buffer::from_slice(device, &a)?,
                Buffer::from_slice(device, &b)?,
            ));
        }
        Ok(Operands {
            shape,
            sets,
            host_a,
            host_b,
        })
    }
}

/// Warm-up runs before timing, and timed runs (each between its own pair of events).
pub const WARMUP: usize = 3;
pub const TIMED: usize = 20;

/// The median of `TIMED` runs of `run(i)` (i counts from 0 over warm-up and timed runs) each
/// measured by `time`, after `WARMUP` untimed runs.
pub fn median_ms(
    mut time: impl FnMut(&mut dyn FnMut() -> Result<()>) -> Result<f64>,
    mut run: impl FnMut(usize) -> Result<()>,
) -> Result<f64> {
    for i in 0..WARMUP {
        time(&mut || run(i))?;
    }
    let mut ms = Vec::with_capacity(TIMED);
    for i in WARMUP..WARMUP + TIMED {
        ms.push(time(&mut || run(i))?);
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms[ms.len() / 2])
}

/// Milliseconds `f` takes on a kosmos-runtime stream.
pub fn time_on(stream: &Stream, f: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
    let start = stream.record_event()?;
    f()?;
    let end = stream.record_event()?;
    Ok(start.elapsed_ms(&end)? as f64)
}

/// The kernels crate's gemms on one stream.
pub struct Ours<'a> {
    pub ops: &'a kernels::Ops,
    pub stream: &'a Stream,
}

impl<'a> Ours<'a> {
    /// `kernels::Ops::gemm_plan`: the pipelined gemm with `a` and `b` bound, stored as
    /// `layouts` say.
    pub fn plan(
        &self,
        shape: Shape,
        a: &'a Buffer<bf16>,
        b: &'a Buffer<bf16>,
        layouts: (kernels::Layout, kernels::Layout),
    ) -> Result<kernels::GemmPlan<'a>> {
        let Shape { m, n, k, .. } = shape;
        Ok(self.ops.gemm_plan(a, layouts.0, b, layouts.1, m, n, k)?)
    }

    /// `kernels::Ops::gemm_persistent_with_counter`; `counter` holds 0.
    pub fn launch_persistent(
        &self,
        shape: Shape,
        a: &Buffer<bf16>,
        b: &Buffer<bf16>,
        c: &mut Buffer<f32>,
        counter: &mut Buffer<u32>,
    ) -> Result<()> {
        let Shape { m, n, k, .. } = shape;
        self.ops
            .gemm_persistent_with_counter(self.stream, a, b, c, counter, m, n, k)?;
        Ok(())
    }
}

/// `ROWS` row indices spread evenly over `0..m`, first and last included.
pub fn sample_rows(m: usize) -> Vec<usize> {
    const ROWS: usize = 16;
    if m <= ROWS {
        return (0..m).collect();
    }
    (0..ROWS).map(|i| i * (m - 1) / (ROWS - 1)).collect()
}

/// The f64 reference of rows `rows` of `a x b` (all columns), one thread per row.
pub fn reference_rows(a: &[bf16], b: &[bf16], shape: Shape, rows: &[usize]) -> Vec<Vec<f64>> {
    let (n, kk) = (shape.n, shape.k);
    std::thread::scope(|s| {
        let handles: Vec<_> = rows
            .iter()
            .map(|&r| {
                s.spawn(move || {
                    let mut acc = vec![0f64; n];
                    for (p, x) in a[r * kk..(r + 1) * kk].iter().enumerate() {
                        let x = x.to_f64();
                        for (c, y) in acc.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                            *c += x * y.to_f64();
                        }
                    }
                    acc
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("reference thread panicked"))
            .collect()
    })
}

/// Largest error over the sampled rows relative to the largest reference magnitude there;
/// NaN (a poisoned element left unwritten) counts as infinite.
pub fn max_rel_err<T: Copy + Into<f64>>(
    c: &[T],
    shape: Shape,
    rows: &[usize],
    want: &[Vec<f64>],
) -> f64 {
    let got: Vec<T> = rows
        .iter()
        .flat_map(|&r| &c[r * shape.n..(r + 1) * shape.n])
        .copied()
        .collect();
    // Reported, not judged: no tolerance applies.
    compare::rel_err(&got, &want.concat(), Scale::Largest, f64::INFINITY).max
}

/// Runs queued back to back in one trial of [`queued_ms`], and its trials.
pub const QUEUED: usize = 10;
const TRIALS: usize = 7;

/// Milliseconds a run takes when runs are queued back to back: `trial(runs)` queues `runs`
/// runs between a pair of events and gives the milliseconds between them; the median over
/// `TRIALS` trials of `QUEUED` runs, after a trial of `WARMUP`. This is the device's time,
/// the host's launch work hidden behind the runs queued before (as in a training step,
/// whose launches run ahead of the GPU), where one run between its own pair of events
/// ([`median_ms`], [`world_median_ms`]) also counts the host's work between the first event
/// and the kernel's start.
pub fn queued_ms(mut trial: impl FnMut(usize) -> Result<f64>) -> Result<f64> {
    trial(WARMUP)?;
    let mut ms = (0..TRIALS)
        .map(|_| Ok(trial(QUEUED)? / QUEUED as f64))
        .collect::<Result<Vec<f64>>>()?;
    ms.sort_by(f64::total_cmp);
    Ok(ms[TRIALS / 2])
}

/// A trial of [`queued_ms`] on a world: `runs` runs of `run(world)` between two events on
/// the stream of its rank 0, then a synchronize of the world.
pub fn world_trial_ms(
    world: &mut World,
    runs: usize,
    mut run: impl FnMut(&mut World) -> Result<()>,
) -> Result<f64> {
    let start = world.rank_stream(0).expect("rank 0").record_event()?;
    for _ in 0..runs {
        run(world)?;
    }
    let end = world.rank_stream(0).expect("rank 0").record_event()?;
    world.synchronize()?;
    Ok(f64::from(start.elapsed_ms(&end)?))
}

/// [`World::slowest_launch_ms`] of a world created to time its launches
/// ([`kosmos_runtime::WorldOptions::time_launches`]).
pub fn slowest_launch_ms(world: &World) -> Result<f64> {
    let ms = world
        .slowest_launch_ms()
        .ok_or_else(|| BenchError::Invalid {
            what: "the world's last launch".into(),
            detail: "not timed: create the world with `time_launches`".into(),
        })?;
    Ok(f64::from(ms))
}

/// Median milliseconds of `run(world)` over `TIMED` runs after `WARMUP`, each between two
/// events on the stream of the world's rank 0 (all of an emulated world's work is on it);
/// on a world of several devices, each by the host's clock from the call until
/// `World::synchronize` has returned (every device done).
pub fn world_median_ms(
    world: &mut World,
    mut run: impl FnMut(&mut World) -> Result<()>,
) -> Result<f64> {
    let several = world.devices().len() > 1;
    let mut ms = Vec::with_capacity(TIMED);
    for i in 0..WARMUP + TIMED {
        let t = if several {
            let start = std::time::Instant::now();
            run(world)?;
            world.synchronize()?;
            start.elapsed().as_secs_f64() * 1e3
        } else {
            world_trial_ms(world, 1, &mut run)?
        };
        if i >= WARMUP {
            ms.push(t);
        }
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms[ms.len() / 2])
}
