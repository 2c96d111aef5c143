//! The math functions of kernels against Rust's `f64` functions (a double-double `erf`), in
//! ulp of the type each case runs in (`f32` or `f64`): fresh random inputs over each
//! function's useful range plus special values (0, -0, infinities, NaN, the largest and
//! smallest numbers), outputs poisoned first; a zero of the wrong sign fails. The fast
//! approximations (`tanh_approx`) are bounded by a relative error instead. The kernels (one per case of
//! `src/math_cases.rs`) are compiled for every target by `build.rs` and embedded as `MATH`;
//! they run on a GPU in the ignored test (`KOSMOS_DEVICE=cuda:0`). Seed printed;
//! `KOSMOS_SEED` replays.

use kosmos_runtime::{Buffer, Device, DeviceScalar, KernelArg, LaunchConfig, Module};
use rand::{Rng, SeedableRng, rngs::SmallRng};

include!("../src/math_cases.rs");

/// A float type the cases run in: its special inputs, a poison, and its ulp.
trait Float: DeviceScalar + PartialEq {
    /// 0, -0, the infinities, NaN, the largest and smallest numbers, the smallest normal and
    /// subnormal, 1 (and for `f64` arguments near a multiple of `pi/2`).
    const SPECIALS: &'static [Self];
    /// A NaN no function gives: an output left as it shows.
    const POISON: Self;
    /// Mantissa bits (without the implicit one) and the smallest normal exponent.
    const MANTISSA: i32;
    const MIN_EXP: i32;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Float for f32 {
    const SPECIALS: &'static [f32] = &[
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
    const POISON: f32 = f32::from_bits(0x7fc0_dead);
    const MANTISSA: i32 = 23;
    const MIN_EXP: i32 = -126;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Float for f64 {
    const SPECIALS: &'static [f64] = &[
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5.0e-324,
        1.0,
        // pi/2 rounded (6e-17 from it) and 1e22, classic hard reductions (the hardest is
        // checked on its own: `assert_hardest_reduction`).
        std::f64::consts::FRAC_PI_2,
        1e22,
    ];
    const POISON: f64 = f64::from_bits(0x7ff8_0000_dead_dead);
    const MANTISSA: i32 = 52;
    const MIN_EXP: i32 = -1022;
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// Where either is NaN: 0 when both are, infinite when only one is.
fn nan_error(got: f64, want: f64) -> Option<f64> {
    (got.is_nan() || want.is_nan()).then(|| {
        if got.is_nan() == want.is_nan() {
            0.0
        } else {
            f64::INFINITY
        }
    })
}

/// The distance from `got` to `want` in ulp of `T` at `want` (the subnormal spacing below
/// the normal range); 0 when both are NaN, infinite when only one is or when a zero has the
/// wrong sign.
fn ulp_error<T: Float>(got: T, want: f64) -> f64 {
    let got = got.to_f64();
    if let Some(err) = nan_error(got, want) {
        return err;
    }
    if want.is_infinite() || got.is_infinite() {
        // Results beyond the type's range round to the infinity of their sign.
        return if T::from_f64(want).to_f64() == got {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if want == 0.0 && got == 0.0 && want.is_sign_negative() != got.is_sign_negative() {
        return f64::INFINITY;
    }
    let exp = if want == 0.0 {
        T::MIN_EXP
    } else {
        (want.abs().log2().floor() as i32).max(T::MIN_EXP)
    };
    // In two steps: an ulp of the smallest f64s is below f64's range.
    (got - want).abs() / 2f64.powi(exp) * 2f64.powi(T::MANTISSA)
}

/// `|got - want| / |want|`, `want` rounded to `T` (infinite past its range), relative to the
/// smallest normal number below it; 0 when both are NaN or equal, or when a subnormal result
/// is flushed to a zero of its sign (the fast instructions may), infinite when only one is
/// NaN or a zero has the wrong sign.
fn relative_error<T: Float>(got: T, want: f64) -> f64 {
    let got = got.to_f64();
    let want = T::from_f64(want).to_f64();
    if let Some(err) = nan_error(got, want) {
        return err;
    }
    let min_normal = 2f64.powi(T::MIN_EXP);
    if got == 0.0 && want.abs() < min_normal && got.is_sign_negative() == want.is_sign_negative() {
        return 0.0;
    }
    if got == want {
        return if got.is_sign_negative() == want.is_sign_negative() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    (got - want).abs() / want.abs().max(min_normal)
}

fn inputs<T: Float>(case: &Case, rng: &mut SmallRng, len: usize) -> Vec<T> {
    let (lo, hi) = case.range;
    let mut x: Vec<T> = (0..len)
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
            T::from_f64(v)
        })
        .collect();
    x[..T::SPECIALS.len()].copy_from_slice(T::SPECIALS);
    x
}

/// The largest error of `case` (kernel `math_<index>`) in `T` on `device` (in ulp, or
/// relative), with its input.
fn max_error<T: Float>(
    device: &Device,
    module: &Module,
    index: usize,
    case: &Case,
    rng: &mut SmallRng,
) -> (f64, f64) {
    let len = 1 << 14;
    let stream = device.stream().unwrap();
    let x = inputs::<T>(case, rng, len);
    let dx = Buffer::from_slice(device, &x).unwrap();
    let dy = Buffer::from_slice(device, &vec![T::POISON; len]).unwrap();
    let args = [
        KernelArg::from(&dx),
        KernelArg::from(&dy),
        KernelArg::from(len as u32),
    ];
    let config = LaunchConfig::for_elements(len, 256);
    module
        .launch(&stream, &format!("math_{index}"), config, &args)
        .unwrap();
    let y = dy.download().unwrap();
    x.iter()
        .zip(&y)
        .map(|(&x, &y)| {
            let x = x.to_f64();
            let err = if y.to_f64().to_bits() == T::POISON.to_f64().to_bits() {
                f64::INFINITY
            } else {
                let want = (case.reference)(x);
                if case.relative {
                    relative_error(y, want)
                } else {
                    ulp_error(y, want)
                }
            };
            (err, x)
        })
        .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
}

/// The largest error of each case on `device` (in ulp, or relative), with its input.
fn max_errors(device: &Device, module: &Module) -> Vec<(f64, f64)> {
    let seed = std::env::var("KOSMOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    println!("seed {seed} on {}", device.name());
    let mut rng = SmallRng::seed_from_u64(seed);
    CASES
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let worst = match case.ty {
                "f32" => max_error::<f32>(device, module, i, case, &mut rng),
                _ => max_error::<f64>(device, module, i, case, &mut rng),
            };
            if case.relative {
                let bits = -worst.0.log2();
                println!(
                    "{:12} {} max {:.3e} relative, {bits:.1} bits (at x = {:e})",
                    case.name, case.ty, worst.0, worst.1
                );
            } else {
                println!(
                    "{:12} {} max {:.3} ulp (at x = {:e})",
                    case.name, case.ty, worst.0, worst.1
                );
            }
            worst
        })
        .collect()
}

/// The `f64` nearest to a multiple of `pi/2`: 6381956970095103 * 2^797, within 2^-60.9 of
/// one (J.-M. Muller, "Elementary Functions", table of worst cases for the reduction).
const HARDEST_REDUCTION: f64 = 5.319372648326541e255;

/// `sin` and `cos` in `f64` of `±HARDEST_REDUCTION` against their correctly rounded values
/// (computed with 3000-bit arithmetic): `cos` there is `±r` itself, so every bit of the
/// reduction shows. (Rust's own `f64::cos`, from the C library, is 8 ulp off there.)
fn assert_hardest_reduction(device: &Device, module: &Module) {
    let stream = device.stream().unwrap();
    let x = [HARDEST_REDUCTION, -HARDEST_REDUCTION];
    for (name, want) in [("sin", [1.0, -1.0]), ("cos", [-4.687165924254628e-19; 2])] {
        let index = CASES
            .iter()
            .position(|c| c.name == name && c.ty == "f64")
            .expect("an f64 case of each");
        let dx = Buffer::from_slice(device, &x).unwrap();
        let dy = Buffer::from_slice(device, &[f64::POISON; 2]).unwrap();
        let args = [
            KernelArg::from(&dx),
            KernelArg::from(&dy),
            KernelArg::from(2u32),
        ];
        module
            .launch(
                &stream,
                &format!("math_{index}"),
                LaunchConfig::linear(1, 2),
                &args,
            )
            .unwrap();
        assert_eq!(
            dy.download().unwrap(),
            want,
            "{name} of ±{HARDEST_REDUCTION:e}"
        );
    }
}

fn assert_within_bounds(device: &Device) {
    let module = device
        .load_module(&kosmos_tests::MATH.image().unwrap())
        .unwrap();
    let errors = max_errors(device, &module);
    for (case, (err, x)) in CASES.iter().zip(errors) {
        assert!(
            err <= case.max_error,
            "{} ({}): error {err} at x = {x:e}, allowed {}",
            case.name,
            case.ty,
            case.max_error
        );
    }
    assert_hardest_reduction(device, &module);
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
