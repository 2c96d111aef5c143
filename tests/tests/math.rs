//! The math functions of kernels against Rust's `f64` functions, in ulp of `f32`: fresh
//! random inputs over each function's useful range plus special values (0, -0, infinities,
//! NaN, the largest and smallest numbers), outputs poisoned first. The kernels (one per case of
//! `src/math_cases.rs`) are compiled for every target by `build.rs` and embedded as `MATH`;
//! they run on a GPU in the ignored test (`KOSMOS_DEVICE=cuda:0`). Seed printed;
//! `KOSMOS_SEED` replays.

use kosmos_runtime::{Buffer, Device, KernelArg, LaunchConfig};
use rand::{Rng, SeedableRng, rngs::SmallRng};

include!("../src/math_cases.rs");

const SPECIALS: [f32; 10] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1.0e-45,
    1.0,
];

/// A NaN no function gives: an output left as it shows.
const POISON: u32 = 0x7fc0_dead;

/// The distance from `got` to `want` in ulp of `f32` at `want` (the subnormal spacing below
/// the normal range); 0 when both are NaN, infinite when only one is.
fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() == got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if want.is_infinite() || got.is_infinite() {
        // Results beyond f32's range round to the infinity of their sign.
        return if want as f32 == got {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if want == 0.0 {
        return (got as f64).abs() / 2f64.powi(-149);
    }
    let exp = want.abs().log2().floor().max(-126.0);
    let ulp = (exp - 23.0).exp2();
    (got as f64 - want).abs() / ulp
}

fn inputs(case: &Case, rng: &mut SmallRng, len: usize) -> Vec<f32> {
    let (lo, hi) = case.range;
    let mut x: Vec<f32> = (0..len)
        .map(|_| {
            let v = if case.log {
                let magnitude = rng.random_range(lo.ln()..hi.ln()).exp();
                if rng.random_bool(0.5) {
                    -magnitude
                } else {
                    magnitude
                }
            } else {
                rng.random_range(lo..hi)
            };
            v as f32
        })
        .collect();
    x[..SPECIALS.len()].copy_from_slice(&SPECIALS);
    x
}

/// The largest error of each case on `device`, in ulp, with its input.
fn max_errors(device: &Device) -> Vec<(f64, f32)> {
    let seed = std::env::var("KOSMOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    println!("seed {seed} on {}", device.name());
    let mut rng = SmallRng::seed_from_u64(seed);
    let module = device
        .load_module(&kosmos_tests::MATH.image().unwrap())
        .unwrap();
    let stream = device.stream().unwrap();
    let len = 1 << 14;
    CASES
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let x = inputs(case, &mut rng, len);
            let dx = Buffer::from_slice(device, &x).unwrap();
            let dy = Buffer::from_slice(device, &vec![f32::from_bits(POISON); len]).unwrap();
            let args = [
                KernelArg::from(&dx),
                KernelArg::from(&dy),
                KernelArg::from(len as u32),
            ];
            let config = LaunchConfig::for_elements(len, 256);
            module
                .launch(&stream, &format!("math_{i}"), config, &args)
                .unwrap();
            let y = dy.download().unwrap();
            let worst = x
                .iter()
                .zip(&y)
                .map(|(&x, &y)| {
                    let err = if y.to_bits() == POISON {
                        f64::INFINITY
                    } else {
                        ulp_error(y, (case.reference)(x as f64))
                    };
                    (err, x)
                })
                .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
            println!(
                "{:12} max {:.3} ulp (at x = {:e})",
                case.name, worst.0, worst.1
            );
            worst
        })
        .collect()
}

fn assert_within_bounds(device: &Device) {
    let errors = max_errors(device);
    for (case, (err, x)) in CASES.iter().zip(errors) {
        assert!(
            err <= case.max_ulp,
            "{}: {err} ulp at x = {x:e}, allowed {}",
            case.name,
            case.max_ulp
        );
    }
}

#[test]
fn math_is_accurate_on_the_cpu_device() {
    assert_within_bounds(&Device::cpu().unwrap());
}

#[test]
#[ignore = "needs KOSMOS_DEVICE=cuda:0"]
fn math_is_accurate_on_the_gpu() {
    let device = Device::gpu_from_env().unwrap();
    assert_within_bounds(&device);
}
