// The functions of the math accuracy test (`tests/math.rs`): included by `build.rs`, which
// writes one kernel per case (`math_<i>`), and by the test, which checks them.

/// A function under test: its kernel expression over `x`, its `f64` reference, the range its
/// random inputs are drawn from (magnitudes log-uniform, either sign, when `log`), and its
/// largest error allowed, in ulp.
// The build script reads only the names and expressions.
#[allow(dead_code)]
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

/// One kernel per case, `math_<i>(xs, ys, n)`: `ys[t] = expr` of `x = xs[t]`.
#[allow(dead_code)]
fn kernel_source() -> String {
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
