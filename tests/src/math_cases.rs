// The functions of the math accuracy test (`tests/math.rs`): included by `build.rs`, which
// writes one kernel per case (`math_<i>`), and by the test, which checks them.

/// A function under test: its kernel expression over `x`, the float type it runs in (`f32`
/// or `f64`), its reference (Rust's `f64` function, or a double-double one), the range its
/// random inputs are drawn from (magnitudes log-uniform, either sign, when `log`), and its
/// largest error allowed: in ulp of its type, or relative (for the fast approximations, whose
/// error is a number of bits) where `relative`.
// The build script reads only the names, types and expressions.
#[allow(dead_code)]
struct Case {
    name: &'static str,
    expr: &'static str,
    ty: &'static str,
    reference: fn(f64) -> f64,
    range: (f64, f64),
    log: bool,
    relative: bool,
    max_error: f64,
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
        ty: "f32",
        reference,
        range,
        log,
        relative: false,
        max_error: max_ulp,
    }
}

impl Case {
    /// The case in `f64`.
    const fn in_f64(self) -> Case {
        Case { ty: "f64", ..self }
    }

    /// The case with its bound a relative error.
    const fn relative(self) -> Case {
        Case {
            relative: true,
            ..self
        }
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
    // About 11 bits on the GPUs (exact on the CPU device).
    case(
        "tanh_approx",
        "tanh_approx(x)",
        f64::tanh,
        (-12.0, 12.0),
        false,
        1.0 / 1024.0,
    )
    .relative(),
    // About 1 ulp on the GPUs; results below the normal range may flush to zero.
    case("rcp_approx", "rcp_approx(x)", f64::recip, (1e-37, 1e37), true, 1.0 / 2097152.0).relative(),
    case("exp", "x.exp()", f64::exp, (-746.0, 710.0), false, 2.0).in_f64(),
    case("exp2", "exp2(x)", f64::exp2, (-1076.0, 1025.0), false, 2.0).in_f64(),
    case("ln", "x.ln()", f64::ln, (1e-320, 1.7e308), true, 2.0).in_f64(),
    case("log2", "log2(x)", f64::log2, (1e-320, 1.7e308), true, 2.0).in_f64(),
    case("sin", "x.sin()", f64::sin, (-1e4, 1e4), false, 2.0).in_f64(),
    case("sin (large)", "sin(x)", f64::sin, (1e-300, 1.7e308), true, 2.0).in_f64(),
    case("cos", "x.cos()", f64::cos, (-1e4, 1e4), false, 2.0).in_f64(),
    case("cos (large)", "cos(x)", f64::cos, (1e-300, 1.7e308), true, 2.0).in_f64(),
    case("tanh", "x.tanh()", f64::tanh, (-25.0, 25.0), false, 3.0).in_f64(),
    case("erf", "erf(x)", erf, (-7.0, 7.0), false, 2.0).in_f64(),
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

/// `erf` beyond `f64` precision (Rust has no stable one): below 3 its Maclaurin series in
/// double-double arithmetic (the alternating terms cancel at most a few bits of the 106),
/// else `1 - erfc` by erfc's continued fraction (erfc is below 2.3e-5 there, so its own
/// rounding is far below an ulp of the result).
fn erf(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return a;
    }
    let r = if a < 3.0 {
        // sum of (-1)^n a^(2n+1) / (n! (2n+1)), times 2/sqrt(pi)
        let minus_a2 = Dd::product(-a, a);
        let (mut power, mut sum, mut n) = (Dd(a, 0.0), Dd(a, 0.0), 0.0);
        loop {
            n += 1.0;
            power = power.mul(minus_a2).div(n);
            let term = power.div(2.0 * n + 1.0);
            sum = sum.add(term);
            if term.0.abs() <= 1e-36 * sum.0.abs() {
                break;
            }
        }
        let two_over_sqrt_pi = Dd(std::f64::consts::FRAC_2_SQRT_PI, 1.533545961316588e-17);
        sum.mul(two_over_sqrt_pi).0
    } else {
        let mut f = 0.0;
        for n in (1..80).rev() {
            f = (n as f64 / 2.0) / (a + f);
        }
        1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * (a + f))
    };
    r.copysign(x)
}

/// A double-double number `hi + lo`, `|lo|` at most half an ulp of `hi`.
#[derive(Copy, Clone)]
struct Dd(f64, f64);

#[allow(dead_code)]
impl Dd {
    /// `a * b` exactly.
    fn product(a: f64, b: f64) -> Dd {
        let hi = a * b;
        Dd(hi, a.mul_add(b, -hi))
    }

    fn normalized(hi: f64, lo: f64) -> Dd {
        let s = hi + lo;
        Dd(s, lo - (s - hi))
    }

    fn add(self, o: Dd) -> Dd {
        let s = self.0 + o.0;
        let v = s - self.0;
        let err = (self.0 - (s - v)) + (o.0 - v);
        Dd::normalized(s, err + self.1 + o.1)
    }

    fn mul(self, o: Dd) -> Dd {
        let p = Dd::product(self.0, o.0);
        Dd::normalized(p.0, p.1 + self.0 * o.1 + self.1 * o.0)
    }

    fn div(self, d: f64) -> Dd {
        let q = self.0 / d;
        let rest = self.add(Dd::product(-q, d));
        Dd::normalized(q, (rest.0 + rest.1) / d)
    }
}

/// One kernel per case, `math_<i>(xs, ys, n)` over slices of the case's type:
/// `ys[t] = expr` of `x = xs[t]`.
#[allow(dead_code)]
fn kernel_source() -> String {
    CASES
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "#[kernel]
fn math_{i}(xs: &[{ty}], ys: &mut [{ty}], n: u32) {{
    let t = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if t < n {{
        let x = xs[t];
        ys[t] = {};
    }}
}}\n",
                c.expr,
                ty = c.ty,
            )
        })
        .collect()
}
