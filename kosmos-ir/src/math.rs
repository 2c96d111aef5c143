//! Accurate math functions, expanded into basic IR ops (arithmetic, `fma`, comparisons,
//! selects, casts and bitcasts) when a kernel is built.
//!
//! Why an expansion and not an op per function: the GPU targets have no accurate instruction
//! for most of these (NVPTX has no libm, so `llvm.sin.f32` and friends do not lower there, and
//! its `ex2`/`lg2` are approximations; AMDGPU's `v_sin_f32` is exact only for small arguments),
//! so each target would need its own software routine. Built here once, out of ops every
//! backend implements exactly (IEEE arithmetic and `fma`), the CPU device and every GPU run
//! the same sequence and give the same bits. The sequences are straight-line (both sides
//! computed, then selected): no divergence on GPUs.
//!
//! `f32` is computed directly, `f16` and `bf16` through `f32` and rounded once (a few `f32`
//! ulp become correctly rounded halves in nearly all cases), `f64` directly (`binary64`).
//! The reductions and polynomials are the classic ones. In `f32`: Cody-Waite reductions and
//! the minimax polynomials of Cephes (S. L. Moshier) for `exp`, `exp2`, `ln`, `log2`, `sin`,
//! `cos` and `tanh`; N. Juffa's faithfully rounded `erf` (Stack Overflow answer 35148199);
//! a Payne-Hanek style reduction for `sin`/`cos` in `f64` over a 203-bit `2/pi`, so large
//! arguments stay accurate. In `f64`: see `binary64`. Measured errors: `docs/math.md`.

mod binary64;

use crate::{BinOp, CmpPred, Constant, KernelBuilder, ScalarType, UnOp, Value};

use ScalarType as S;

/// The math functions of one float operand that are expanded here.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Exp,
    Exp2,
    Ln,
    Log2,
    Sin,
    Cos,
    Tanh,
    Erf,
    /// `1 / sqrt(x)`: two correctly rounded steps.
    Rsqrt,
}

impl MathFn {
    /// Every function, for tests and tables.
    pub const ALL: [MathFn; 9] = [
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Ln,
        MathFn::Log2,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tanh,
        MathFn::Erf,
        MathFn::Rsqrt,
    ];

    /// Its name in kernels (`exp(x)`, `x.exp()`).
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Ln => "ln",
            MathFn::Log2 => "log2",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tanh => "tanh",
            MathFn::Erf => "erf",
            MathFn::Rsqrt => "rsqrt",
        }
    }

    pub fn from_name(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether it is defined on values of type `t`: the floats.
    pub fn takes(self, t: ScalarType) -> bool {
        t.is_float()
    }
}

impl KernelBuilder {
    /// `f(x)` for a scalar `x` of a type [`MathFn::takes`].
    pub fn math(&mut self, f: MathFn, x: Value) -> Value {
        let t = self.ty(x).scalar().expect("math takes scalars");
        assert!(f.takes(t), "{} is not defined on {t}", f.name());
        if f == MathFn::Rsqrt {
            let one = self.constant(Constant::float(t, 1.0));
            let root = self.unary(UnOp::Sqrt, x);
            return self.div(one, root);
        }
        match t {
            S::F32 => return self.math_f32(f, x),
            S::F64 => return self.math_f64(f, x),
            _ => {}
        }
        let wide = self.cast(x, S::F32);
        let r = self.math_f32(f, wide);
        self.cast(r, t)
    }

    /// `x.powi(n)` for a float `x` and an `i32` `n`: binary powering, the multiplications
    /// in the order of compiler-rt's `__powisf2` (what Rust's `powi` runs), then `1 / r` for
    /// a negative `n`.
    pub fn powi(&mut self, x: Value, n: Value) -> Value {
        let t = self.ty(x);
        let one = self.constant(Constant::float(t.scalar().expect("a scalar"), 1.0));
        let zero = self.const_i32(0);
        let negative = self.cmp(CmpPred::Lt, n, zero);
        let minus_n = self.sub(zero, n);
        let magnitude = self.select(negative, minus_n, n);
        // The magnitude as unsigned: `i32::MIN` is 2^31.
        let bits = self.cast(magnitude, S::U32);
        let out = self.loop_(&[one, x, bits], &[t], |b, carried| {
            let [r, base, bits] = [carried[0], carried[1], carried[2]];
            let zero = b.const_u32(0);
            let done = b.cmp(CmpPred::Eq, bits, zero);
            b.if_then(done, |b| b.break_(&[r]));
            let one = b.const_u32(1);
            let low = b.and(bits, one);
            let set = b.cmp(CmpPred::Ne, low, zero);
            let times = b.mul(r, base);
            let r = b.select(set, times, r);
            let base = b.mul(base, base);
            let bits = b.shr(bits, one);
            vec![r, base, bits]
        })[0];
        let inverse = self.div(one, out);
        self.select(negative, inverse, out)
    }

    /// `x.clamp(lo, hi)` as Rust defines it: `lo` below `lo`, `hi` above `hi`, else `x`
    /// (a NaN stays NaN, unlike `min`/`max`, which drop it).
    pub fn clamp(&mut self, x: Value, lo: Value, hi: Value) -> Value {
        let below = self.cmp(CmpPred::Lt, x, lo);
        let x = self.select(below, lo, x);
        let above = self.cmp(CmpPred::Gt, x, hi);
        self.select(above, hi, x)
    }

    fn math_f32(&mut self, f: MathFn, x: Value) -> Value {
        match f {
            MathFn::Exp => self.exp_f32(x),
            MathFn::Exp2 => self.exp2_f32(x),
            MathFn::Ln => self.log_f32(x, false),
            MathFn::Log2 => self.log_f32(x, true),
            MathFn::Sin => self.sin_cos_f32(x, false),
            MathFn::Cos => self.sin_cos_f32(x, true),
            MathFn::Tanh => self.tanh_f32(x),
            MathFn::Erf => self.erf_f32(x),
            MathFn::Rsqrt => unreachable!("rsqrt is not expanded in f32"),
        }
    }

    /// `e^x`: `x = n ln 2 + r` with `|r| <= ln 2 / 2` (Cody-Waite: `ln 2` in two parts, the
    /// first short enough that `n * C1` is exact), `e^r` by a degree-7 polynomial, times `2^n`.
    fn exp_f32(&mut self, x: Value) -> Value {
        // Beyond these, e^x is infinite or rounds to 0; clamping keeps `n` in range.
        let xc = self.clamp_c(x, -104.0, 89.0);
        let scaled = self.mul_c(xc, std::f32::consts::LOG2_E as f64);
        let n = self.rint_f32(scaled);
        let r = self.fma_c(n, -0.693_359_4, xc);
        let r = self.fma_c(n, 2.121_944_4e-4, r);
        let p = self.horner(
            r,
            &[
                1.987_569_1e-4,
                1.398_199_9e-3,
                8.333_452e-3,
                4.166_579_6e-2,
                1.666_666_5e-1,
                0.5,
            ],
        );
        let r2 = self.mul(r, r);
        let one = self.const_f32(1.0);
        let one_r = self.add(r, one);
        let e_r = self.fma(p, r2, one_r);
        let e = self.scale_by_pow2(e_r, n);
        self.keep_nan(x, e)
    }

    /// `2^x`: `x = n + r` with `|r| <= 1/2` (exact), `2^r` by a degree-6 polynomial, times
    /// `2^n`.
    fn exp2_f32(&mut self, x: Value) -> Value {
        let xc = self.clamp_c(x, -152.0, 129.0);
        let n = self.rint_f32(xc);
        let r = self.sub(xc, n);
        let p = self.horner(
            r,
            &[
                1.535_336_2e-4,
                1.339_887_4e-3,
                9.618_437e-3,
                5.550_332_5e-2,
                2.402_264_8e-1,
                6.931_472e-1,
            ],
        );
        let one = self.const_f32(1.0);
        let e_r = self.fma(p, r, one);
        let e = self.scale_by_pow2(e_r, n);
        self.keep_nan(x, e)
    }

    /// `ln x` or `log2 x`: `x = 2^e m` with `sqrt(1/2) <= m < sqrt(2)`, `ln m` by a
    /// polynomial in `f = m - 1`, plus `e ln 2` (in two parts) or `e` (for `log2`, the
    /// polynomial's part times `log2(e)` split as `1 + 0.4427`, so nothing is lost).
    fn log_f32(&mut self, x: Value, base2: bool) -> Value {
        // Subnormals are scaled into the normal range first.
        let tiny = self.cmp_c(CmpPred::Lt, x, f32::MIN_POSITIVE as f64);
        let scaled = self.mul_c(x, 8_388_608.0); // 2^23
        let xs = self.select(tiny, scaled, x);
        let bits = self.bitcast(xs, S::I32);
        let c23 = self.const_i32(23);
        let biased = self.shr(bits, c23);
        let mantissa_mask = self.const_i32(0x007f_ffff);
        let mantissa = self.and(bits, mantissa_mask);
        let one_bits = self.const_i32(0x3f80_0000);
        let m_bits = self.or(mantissa, one_bits);
        let m = self.bitcast(m_bits, S::F32); // in [1, 2)
        let big = self.cmp_c(CmpPred::Gt, m, std::f32::consts::SQRT_2 as f64);
        let half_m = self.mul_c(m, 0.5);
        let m = self.select(big, half_m, m);
        let one = self.const_f32(1.0);
        let f = self.sub(m, one);
        let c1 = self.const_i32(1);
        let c0 = self.const_i32(0);
        let carry = self.select(big, c1, c0);
        let c127 = self.const_i32(127);
        let c150 = self.const_i32(150);
        let bias = self.select(tiny, c150, c127);
        let e = self.sub(biased, bias);
        let e = self.add(e, carry);
        let e = self.cast(e, S::F32);
        let z = self.mul(f, f);
        let p = self.horner(
            f,
            &[
                7.037_683_6e-2,
                -1.151_461e-1,
                1.167_699_84e-1,
                -1.242_014_1e-1,
                1.424_932_3e-1,
                -1.666_805_8e-1,
                2.000_071_4e-1,
                -2.499_999_4e-1,
                3.333_333e-1,
            ],
        );
        // y = f^3 p(f) - f^2 / 2: ln(1 + f) = f + y.
        let fz = self.mul(f, z);
        let y = self.mul(fz, p);
        let y = self.fma_c(z, -0.5, y);
        let r = if base2 {
            // log2(1 + f) + e = y log2e + f log2e + e, log2e = 1 + 0.4427..., largest last.
            let log2e_m1 = (std::f32::consts::LOG2_E - 1.0) as f64;
            let t = self.mul_c(y, log2e_m1);
            let t = self.fma_c(f, log2e_m1, t);
            let t = self.add(t, y);
            let t = self.add(t, f);
            self.add(t, e)
        } else {
            let y = self.fma_c(e, -2.121_944_4e-4, y);
            let r = self.add(f, y);
            self.fma_c(e, 0.693_359_4, r)
        };
        self.log_specials(x, r)
    }

    /// `sin x` or `cos x`. The reduction `x = k pi/2 + r` runs in `f64`: `x * 2/pi` as the
    /// sum of `x * c_i` over 29-bit pieces `c_i` of `2/pi` (each product exact, as `x` has 24
    /// bits), each reduced modulo 4 (exact), so `k mod 4` and `r` come out right for every
    /// finite `f32`, however large. `sin r`, `cos r` on `|r| <= pi/4` by polynomials in
    /// `f32`, picked and signed by the quadrant.
    fn sin_cos_f32(&mut self, x: Value, cos: bool) -> Value {
        const TWO_OVER_PI: [f64; 7] = [
            f64::from_bits(0x3fe4_5f30_6d00_0000),
            f64::from_bits(0x3e19_3910_5400_0000),
            f64::from_bits(0x3c44_fe13_ab00_0000),
            f64::from_bits(0x3a7d_1f53_4d00_0000),
            f64::from_bits(0x38ab_81b6_c500_0000),
            f64::from_bits(0x36b5_993c_4000_0000),
            f64::from_bits(0x350c_820f_f200_0000),
        ];
        let xd = self.cast(x, S::F64);
        // Smallest terms first: the sum of the fractions is then rounded once at the end.
        let mut sum = self.constant(Constant::float(S::F64, 0.0));
        for c in TWO_OVER_PI.into_iter().rev() {
            let cv = self.constant(Constant::float(S::F64, c));
            let t = self.mul(xd, cv);
            let quarter = self.mul_c(t, 0.25);
            let k = self.rint_f64(quarter);
            let t_mod_4 = self.fma_c(k, -4.0, t);
            sum = self.add(sum, t_mod_4);
        }
        let k = self.rint_f64(sum);
        let frac = self.sub(sum, k);
        let r = self.mul_c(frac, std::f64::consts::FRAC_PI_2);
        let r = self.cast(r, S::F32);
        let k = self.cast(k, S::I32);
        let quadrant = if cos {
            let one = self.const_i32(1);
            self.add(k, one)
        } else {
            k
        };
        let z = self.mul(r, r);
        let s = self.horner(z, &[-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1]);
        let rz = self.mul(r, z);
        let sin_r = self.fma(s, rz, r);
        let c = self.horner(z, &[2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2]);
        let zz = self.mul(z, z);
        let one = self.const_f32(1.0);
        let c_tail = self.fma_c(z, -0.5, one);
        let cos_r = self.fma(c, zz, c_tail);
        // Quadrant q: sin x = sin r, cos r, -sin r, -cos r; cos x is sin in quadrant q + 1.
        let v = self.by_quadrant(quadrant, sin_r, cos_r);
        if cos {
            return v;
        }
        // sin(-0) = -0, which the reduction loses: tiny x are their own sine.
        let ax = self.unary(UnOp::Abs, x);
        let tiny = self.cmp_c(CmpPred::Lt, ax, 1.0e-4);
        self.select(tiny, x, v)
    }

    /// `tanh x`: an odd polynomial below 0.625, else [`Self::tanh_large`]; `x` itself below
    /// `2^-12`.
    fn tanh_f32(&mut self, x: Value) -> Value {
        let z = self.mul(x, x);
        let p = self.horner(
            z,
            &[
                -5.704_988_7e-3,
                2.063_908_8e-2,
                -5.373_971_6e-2,
                1.333_144_2e-1,
                -3.333_328e-1,
            ],
        );
        let xz = self.mul(x, z);
        let small = self.fma(p, xz, x);
        let ax = self.unary(UnOp::Abs, x);
        let large = self.tanh_large(x, ax, Self::exp_f32);
        let is_small = self.cmp_c(CmpPred::Lt, ax, 0.625);
        // NaN fails `is_small` and goes through exp, which keeps it.
        let r = self.select(is_small, small, large);
        // Below 2^-12, tanh x rounds to x (which keeps -0).
        let tiny = self.cmp_c(CmpPred::Lt, ax, 2.441_406_25e-4);
        self.select(tiny, x, r)
    }

    /// `erf x`: N. Juffa's approximation, an odd polynomial up to 0.9277, beyond it
    /// `1 - e^p(|x|)` with the sign of `x`.
    fn erf_f32(&mut self, x: Value) -> Value {
        let s = self.mul(x, x);
        let ax = self.unary(UnOp::Abs, x);
        let small = self.horner(
            s,
            &[
                -5.967_617e-4,
                4.991_194_2e-3,
                -2.676_813_5e-2,
                1.128_199_25e-1,
                -3.761_253_4e-1,
                1.283_791_7e-1,
            ],
        );
        let small = self.fma(small, x, x);
        let r = self.horner(ax, &[-1.728_534_7e-5, 3.831_971_3e-4]);
        let u = self.horner(ax, &[-3.883_964_4e-3, 2.425_462_2e-2]);
        let r = self.fma(r, s, u);
        let mut r = r;
        for c in [-1.067_778_8e-1, -6.348_467e-1, -1.287_175_1e-1] {
            let cv = self.const_f32(c);
            r = self.fma(r, ax, cv);
        }
        let minus_ax = self.unary(UnOp::Neg, ax);
        let r = self.fma(r, ax, minus_ax);
        let e = self.exp_f32(r);
        let one = self.const_f32(1.0);
        let large = self.sub(one, e);
        let large = self.with_sign_of(x, large);
        let is_large = self.cmp_c(CmpPred::Gt, ax, 0.927_734_4);
        self.select(is_large, large, small)
    }

    // ---- helpers, on values of any float type ----

    /// `ln x` or `log2 x` at the edges of the domain: `-inf` at 0, NaN below 0 and at NaN,
    /// `inf` at `inf`; `r` elsewhere.
    fn log_specials(&mut self, x: Value, r: Value) -> Value {
        let zero = self.float_like(x, 0.0);
        let is_zero = self.cmp(CmpPred::Eq, x, zero);
        let ge_zero = self.cmp(CmpPred::Ge, x, zero);
        let is_inf = self.cmp_c(CmpPred::Eq, x, f64::INFINITY);
        let inf = self.float_like(x, f64::INFINITY);
        let r = self.select(is_inf, inf, r);
        let nan = self.float_like(x, f64::NAN);
        let r = self.select(ge_zero, r, nan);
        let neg_inf = self.float_like(x, f64::NEG_INFINITY);
        self.select(is_zero, neg_inf, r)
    }

    /// `sin x` from `sin r` and `cos r` for `x = k pi/2 + r` and an integer `quadrant = k mod 4`
    /// (any integer type; `k + 1` for `cos x`): `sin r`, `cos r`, `-sin r`, `-cos r`.
    fn by_quadrant(&mut self, quadrant: Value, sin_r: Value, cos_r: Value) -> Value {
        let t = self.ty(quadrant).scalar().expect("an integer quadrant");
        let one = self.const_int(t, 1);
        let two = self.const_int(t, 2);
        let zero = self.const_int(t, 0);
        let odd = self.and(quadrant, one);
        let odd = self.cmp(CmpPred::Ne, odd, zero);
        let v = self.select(odd, cos_r, sin_r);
        let upper = self.and(quadrant, two);
        let upper = self.cmp(CmpPred::Ne, upper, zero);
        let neg_v = self.unary(UnOp::Neg, v);
        self.select(upper, neg_v, v)
    }

    /// `tanh x` away from 0, given `ax = |x|`: `1 - 2 / (e^(2|x|) + 1)` with the sign of `x`
    /// (no cancellation from 0.625 on: the fraction is below 0.45; `inf` from `exp` gives 1).
    fn tanh_large(&mut self, x: Value, ax: Value, exp: fn(&mut Self, Value) -> Value) -> Value {
        let two_ax = self.add(ax, ax);
        let e = exp(self, two_ax);
        let one = self.float_like(x, 1.0);
        let e1 = self.add(e, one);
        let two = self.float_like(x, 2.0);
        let frac = self.div(two, e1);
        let large = self.sub(one, frac);
        self.with_sign_of(x, large)
    }

    /// `v` (not negative), negated where `x < 0`.
    fn with_sign_of(&mut self, x: Value, v: Value) -> Value {
        let neg_v = self.unary(UnOp::Neg, v);
        let zero = self.float_like(x, 0.0);
        let negative = self.cmp(CmpPred::Lt, x, zero);
        self.select(negative, neg_v, v)
    }

    /// The constant `v` (rounded) in the float type of `like`.
    fn float_like(&mut self, like: Value, v: f64) -> Value {
        let t = self.ty(like).scalar().expect("a scalar");
        self.constant(Constant::float(t, v))
    }

    /// `c[0] x^(n-1) + ... + c[n-1]` by Horner's rule with `fma`.
    fn horner(&mut self, x: Value, c: &[f64]) -> Value {
        let mut acc = self.float_like(x, c[0]);
        for &ci in &c[1..] {
            let cv = self.float_like(x, ci);
            acc = self.fma(acc, x, cv);
        }
        acc
    }

    fn mul_c(&mut self, x: Value, c: f64) -> Value {
        let cv = self.float_like(x, c);
        self.mul(x, cv)
    }

    /// `a * b + c` for a constant `b`.
    fn fma_c(&mut self, a: Value, b: f64, c: Value) -> Value {
        let bv = self.float_like(a, b);
        self.fma(a, bv, c)
    }

    fn cmp_c(&mut self, pred: CmpPred, x: Value, c: f64) -> Value {
        let cv = self.float_like(x, c);
        self.cmp(pred, x, cv)
    }

    /// `x` clamped to `[lo, hi]`; a NaN comes out as a number (see [`Self::keep_nan`]).
    fn clamp_c(&mut self, x: Value, lo: f64, hi: f64) -> Value {
        let lo = self.float_like(x, lo);
        let hi = self.float_like(x, hi);
        let x = self.binary(BinOp::Max, x, lo);
        self.binary(BinOp::Min, x, hi)
    }

    /// `r`, or `x` where `x` is NaN.
    fn keep_nan(&mut self, x: Value, r: Value) -> Value {
        let nan = self.cmp(CmpPred::Ne, x, x);
        self.select(nan, x, r)
    }

    /// `x` rounded to an integer, ties to even, for `|x| < 2^22`: adding and subtracting
    /// `1.5 * 2^23` leaves no fraction bits.
    fn rint_f32(&mut self, x: Value) -> Value {
        let magic = self.const_f32(12_582_912.0);
        let t = self.add(x, magic);
        self.sub(t, magic)
    }

    /// `x` rounded to an integer, ties to even, for any `f64`: from `2^52` on every `f64` is
    /// one; below, `|x| + 2^52` has no fraction bits.
    fn rint_f64(&mut self, x: Value) -> Value {
        let two52 = self.float_like(x, 4_503_599_627_370_496.0);
        let ax = self.unary(UnOp::Abs, x);
        let t = self.add(ax, two52);
        let r = self.sub(t, two52);
        let r = self.with_sign_of(x, r);
        let small = self.cmp(CmpPred::Lt, ax, two52);
        self.select(small, r, x)
    }

    /// `x * 2^n` for an integral float `n` of `x`'s type within twice the exponent range
    /// (`[-152, 129]` for `f32`, `[-1076, 1025]` for `f64`): two steps of `2^(n/2)`, each a
    /// normal number built from its exponent bits, so only the last multiplication rounds
    /// (once, into the subnormals when the result is that small).
    fn scale_by_pow2(&mut self, x: Value, n: Value) -> Value {
        let t = self.ty(x);
        let (int, bias, mantissa_bits) = match t.scalar() {
            Some(S::F32) => (S::I32, 127, 23),
            Some(S::F64) => (S::I64, 1023, 52),
            _ => unreachable!("scaling {t}"),
        };
        let n = self.cast(n, int);
        let one = self.const_int(int, 1);
        let half = self.shr(n, one);
        let rest = self.sub(n, half);
        let mut r = x;
        for part in [half, rest] {
            let bias = self.const_int(int, bias);
            let biased = self.add(part, bias);
            let shift = self.const_int(int, mantissa_bits);
            let bits = self.shl(biased, shift);
            let pow = self.bitcast(bits, t);
            r = self.mul(r, pow);
        }
        r
    }
}
