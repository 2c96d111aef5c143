//! The math functions of kernels against Rust's `f64` functions, in ulp of `f32`: fresh
//! random inputs over each function's useful range plus special values (0, -0, infinities,
//! NaN, the largest and smallest numbers), outputs poisoned first. The same kernels compile
//! for every GPU target here, and run on a GPU in the ignored test (`KOSMOS_DEVICE=cuda:0`).
//! Seed printed; `KOSMOS_SEED` replays.

use kosmos_codegen::{Options, TargetKind};
use kosmos_runtime::{Buffer, Device, KernelArg, LaunchConfig, ModuleImage};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// A function under test: its kernel expression over `x`, its `f64` reference, the range its
/// random inputs are drawn from (magnitudes log-uniform, either sign, when `log`), and its
/// largest error allowed, in ulp.
struct Case {
    name: &'static str,
    expr: &'static str,
    reference: fn(f64) -> f64,
    range: (f64, f64),
    log: bool,
    max_ulp: f64,
}

const fn case(
    name: &'static str,
    expr: &'static str,
    reference: fn(f64) -> f64,
    range: (f64, f64),
    log: bool,
    max_ulp: f64,
) -> Case {
    Case {
        name,
        expr,
        reference,
        range,
        log,
        max_ulp,
    }
}

const CASES: &[Case] = &[
    case("exp", "x.exp()", f64::exp, (-105.0, 90.0), false, 2.0),
    case("exp2", "exp2(x)", f64::exp2, (-152.0, 130.0), false, 2.0),
    case("ln", "x.ln()", f64::ln, (1e-45, 3e38), true, 2.0),
    case("log2", "log2(x)", f64::log2, (1e-45, 3e38), true, 2.0),
    case("sin", "x.sin()", f64::sin, (-1e4, 1e4), false, 2.0),
    case("sin (large)", "sin(x)", f64::sin, (1e-30, 3e38), true, 2.0),
    case("cos", "x.cos()", f64::cos, (-1e4, 1e4), false, 2.0),
    case("cos (large)", "cos(x)", f64::cos, (1e-30, 3e38), true, 2.0),
    case("tanh", "x.tanh()", f64::tanh, (-12.0, 12.0), false, 3.0),
    case("erf", "erf(x)", erf, (-5.0, 5.0), false, 2.0),
    case("sqrt", "x.sqrt()", f64::sqrt, (1e-45, 3e38), true, 0.5),
    case("rsqrt", "rsqrt(x)", rsqrt, (1e-38, 3e38), true, 1.5),
    case("powi(3)", "x.powi(3)", cube, (-1e12, 1e12), false, 1.5),
    // Every multiplication of binary powering rounds, as in Rust's own `powi`.
    case("powi(-5)", "powi(x, -5)", inv_fifth, (1e-7, 1e7), true, 4.5),
];

fn rsqrt(x: f64) -> f64 {
    1.0 / x.sqrt()
}

fn cube(x: f64) -> f64 {
    x * x * x
}

fn inv_fifth(x: f64) -> f64 {
    1.0 / x.powi(5)
}

/// `erf` to `f64` precision (Rust has no stable one): its Maclaurin series below 3, else
/// `1 - erfc` by erfc's continued fraction.
fn erf(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return a;
    }
    let r = if a < 3.0 {
        let (mut term, mut sum, mut n) = (a, a, 0.0);
        while term.abs() > 1e-18 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        let mut f = 0.0;
        for n in (1..80).rev() {
            f = (n as f64 / 2.0) / (a + f);
        }
        1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * (a + f))
    };
    r.copysign(x)
}

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

/// One kernel per case, `math_<i>(xs, ys, n)`: `ys[t] = expr` of `x = xs[t]`.
fn source() -> String {
    CASES
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "#[kernel]
                fn math_{i}(xs: &[f32], ys: &mut [f32], n: u32) {{
                    let t = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
                    if t < n {{
                        let x = xs[t];
                        ys[t] = {};
                    }}
                }}\n",
                c.expr
            )
        })
        .collect()
}

/// The module for every device: the IR (the CPU device) and a binary per GPU target, each
/// compiled here (so every function compiles for gfx942, gfx950 and sm_90a).
fn image() -> ModuleImage {
    let kernels = kosmos_frontend::lower_source(&source()).unwrap_or_else(|e| panic!("{e}"));
    let ir = kosmos_ir::verify_module(kosmos_ir::Module { kernels }).unwrap();
    let mut image = ModuleImage::new(ir.clone());
    for target in TargetKind::ALL {
        let binary = kosmos_codegen::compile(&ir, target, &Options::default())
            .unwrap_or_else(|e| panic!("the math kernels for {target}: {e}"));
        image = image.with_binary(target.name(), binary.bytes);
    }
    image
}

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
    let module = device.load_module(&image()).unwrap();
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
