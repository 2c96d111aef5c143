//! Each kernel against an f64 reference on the device `KOSMOS_DEVICE` names (default: the
//! first GPU, else the CPU device): fresh random shapes and inputs, outputs poisoned with NaN
//! first, checked by relative error.

use dsl::{BLOCK, DSL, EPSILON};
use kosmos::prelude::*;
use rand::{Rng, SeedableRng, rngs::SmallRng};

struct Setup {
    device: Device,
    module: Module,
    stream: Stream,
    rng: SmallRng,
}

fn setup() -> Setup {
    let device = Device::from_env().unwrap();
    let module = device.load_module(&DSL.image().unwrap()).unwrap();
    let stream = device.stream().unwrap();
    let seed = rand::random();
    eprintln!("seed {seed}");
    Setup {
        device,
        module,
        stream,
        rng: SmallRng::seed_from_u64(seed),
    }
}

impl Setup {
    /// A random shape (up to a few chunks of `BLOCK` columns, ragged) and inputs in `range`.
    fn inputs(&mut self, range: std::ops::Range<f32>) -> (usize, usize, Vec<f32>) {
        let rows = self.rng.random_range(1..5);
        let cols = self.rng.random_range(1..3 * BLOCK as usize);
        let x = (0..rows * cols)
            .map(|_| self.rng.random_range(range.clone()))
            .collect();
        (rows, cols, x)
    }

    fn buffer(&self, data: &[f32]) -> Buffer<f32> {
        Buffer::from_slice(&self.device, data).unwrap()
    }

    fn poisoned(&self, len: usize) -> Buffer<f32> {
        self.buffer(&vec![f32::NAN; len])
    }
}

fn config(rows: usize) -> LaunchConfig {
    LaunchConfig::linear(rows as u32, BLOCK)
}

/// `got` matches `want` row by row within `tol`, relative to the row's largest magnitude.
fn assert_close(got: &[f32], want: &[f64], cols: usize, tol: f64) {
    for (r, (g, w)) in got.chunks(cols).zip(want.chunks(cols)).enumerate() {
        let scale = w.iter().fold(f64::MIN_POSITIVE, |m, v| m.max(v.abs()));
        for (j, (g, w)) in g.iter().zip(w).enumerate() {
            let e = (f64::from(*g) - w).abs() / scale;
            assert!(
                e <= tol,
                "[{r}][{j}]: {g} against {w} (relative error {e:e})"
            );
        }
    }
}

fn wide(x: &[f32]) -> impl Iterator<Item = f64> + '_ {
    x.iter().map(|v| f64::from(*v))
}

#[test]
fn softmax_matches_f64() {
    let mut s = setup();
    let (rows, cols, x) = s.inputs(-8.0..8.0);
    let mut y = s.poisoned(x.len());
    let xb = s.buffer(&x);
    dsl::softmax::launch(&s.module, &s.stream, config(rows), &xb, &mut y, cols as u32).unwrap();
    s.stream.synchronize().unwrap();
    let want: Vec<f64> = x
        .chunks(cols)
        .flat_map(|row| {
            let max = wide(row).fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = wide(row).map(|v| (v - max).exp()).sum();
            wide(row)
                .map(move |v| (v - max).exp() / sum)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_close(&y.download().unwrap(), &want, cols, 1e-5);
}

#[test]
fn layernorm_matches_f64() {
    let mut s = setup();
    let (rows, cols, x) = s.inputs(-4.0..4.0);
    let gamma: Vec<f32> = (0..cols).map(|_| s.rng.random_range(0.5..1.5)).collect();
    let beta: Vec<f32> = (0..cols).map(|_| s.rng.random_range(-1.0..1.0)).collect();
    let mut y = s.poisoned(x.len());
    let (xb, gb, bb) = (s.buffer(&x), s.buffer(&gamma), s.buffer(&beta));
    dsl::layernorm::launch(
        &s.module,
        &s.stream,
        config(rows),
        &xb,
        &gb,
        &bb,
        &mut y,
        cols as u32,
    )
    .unwrap();
    s.stream.synchronize().unwrap();
    let want: Vec<f64> = x
        .chunks(cols)
        .flat_map(|row| {
            let n = cols as f64;
            let mean = wide(row).sum::<f64>() / n;
            let var = wide(row).map(|v| (v - mean).powi(2)).sum::<f64>() / n;
            let scale = 1.0 / (var + f64::from(EPSILON)).sqrt();
            wide(row)
                .zip(wide(&gamma).zip(wide(&beta)))
                .map(move |(v, (g, b))| (v - mean) * scale * g + b)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_close(&y.download().unwrap(), &want, cols, 1e-5);
}

#[test]
fn inclusive_scan_matches_f64() {
    let mut s = setup();
    let (rows, cols, x) = s.inputs(0.0..1.0);
    let mut y = s.poisoned(x.len());
    let xb = s.buffer(&x);
    dsl::inclusive_scan::launch(&s.module, &s.stream, config(rows), &xb, &mut y, cols as u32)
        .unwrap();
    s.stream.synchronize().unwrap();
    let want: Vec<f64> = x
        .chunks(cols)
        .flat_map(|row| {
            wide(row)
                .scan(0.0, |acc, v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_close(&y.download().unwrap(), &want, cols, 1e-5);
}
