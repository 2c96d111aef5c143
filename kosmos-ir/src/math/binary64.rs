//! The math functions in `f64`: fdlibm's algorithms (Sun Microsystems, as in FreeBSD's msun
//! and musl) for `exp`, `ln`, `sin`, `cos` and `erf`, their `exp` core under `exp2` and `tanh`,
//! the reduction of `log2` from FreeBSD's `e_log2.c` (the logarithm carried as a head and a
//! tail), Cephes' rational `tanh` near 0. The coefficients are the published ones; the
//! branches of the originals become selects between values all computed (straight-line, as in
//! `f32`), and `fma` makes the Cody-Waite products exact. `sin`/`cos` reduce arguments below
//! `2^20` by a three-part `pi/2`, larger ones over 1166 bits of `2/pi` (Payne-Hanek, summed in
//! triple-double), so every finite argument keeps its reduced argument's bits, down to the
//! `2^-61` of the double nearest a multiple of `pi/2`.

// The coefficients are written as published, with more digits than an `f64` holds.
#![allow(clippy::excessive_precision)]

use std::f64::consts::{FRAC_2_PI, FRAC_PI_2, LN_2, LOG2_E, SQRT_2};

use super::MathFn;
use crate::{CmpPred, KernelBuilder, ScalarType as S, UnOp, Value};

/// `ln 2` in two parts, the first with 32 low zero bits (so `k * LN2_HI` is exact for every
/// exponent `k`).
const LN2_HI: f64 = 6.93147180369123816490e-01;
const LN2_LO: f64 = 1.90821492927058770002e-10;
/// `ln 2 - LN_2` and `1 / ln 2 - LOG2_E`: the tails of the rounded constants.
const LN2_TAIL: f64 = 2.319046813846299558e-17;
const LOG2_E_TAIL: f64 = 2.035527374093103e-17;
/// `pi/2 - FRAC_PI_2`.
const FRAC_PI_2_TAIL: f64 = 6.123233995736766e-17;

/// Below this magnitude `sin`/`cos` reduce by three-part `pi/2` (Cody-Waite), above it by the
/// bits of `2/pi`.
const CODY_WAITE_LIMIT: f64 = 1_048_576.0; // 2^20
/// `pi/2` in three 53-bit parts: `n * PIO2[0]` with `|n| < 2^20` leaves an exact difference.
const PIO2: [f64; 3] = [
    FRAC_PI_2,
    FRAC_PI_2_TAIL,
    f64::from_bits(0xb91f_1976_b7ed_8fbc),
];
/// The bits of `2/pi` in 22 pieces of 53 (piece `i` holds bits `53 i + 1 ..= 53 (i + 1)`),
/// each times `2^PIECE_SCALE` so the last ones are normal numbers.
const TWO_OVER_PI_PIECES: [f64; 22] = [
    f64::from_bits(0x5fe4_5f30_6dc9_c882),
    f64::from_bits(0x5c94_a7f0_9d5f_47d4),
    f64::from_bits(0x594a_6ee0_6db1_4acc),
    f64::from_bits(0x55f3_c439_041f_e516),
    f64::from_bits(0x528d_5ef5_de2b_0db8),
    f64::from_bits(0x4f42_371d_2126_e970),
    f64::from_bits(0x4b99_24bb_a827_4600),
    f64::from_bits(0x48b2_1cfe_1deb_1cb1),
    f64::from_bits(0x4544_d39f_7441_1af8),
    f64::from_bits(0x4214_baed_1213_a671),
    f64::from_bits(0x3ec8_135a_2fbf_209c),
    f64::from_bits(0x3b79_1d63_9835_339f),
    f64::from_bits(0x3812_7211_7e2e_f7e4),
    f64::from_bits(0x34c4_1d8f_fc4b_ffee),
    f64::from_bits(0x3180_2cc0_7f79_788c),
    f64::from_bits(0x2e26_b414_da3e_da6c),
    f64::from_bits(0x2adf_b3c9_f2c2_6dd2),
    f64::from_bits(0x279d_18fd_9a79_7fa8),
    f64::from_bits(0x2446_ba93_dd63_f5f2),
    f64::from_bits(0x20ff_17b3_d073_9f78),
    f64::from_bits(0x1da4_a525_d4d7_f6bf),
    f64::from_bits(0x1a48_8fc6_ae84_2b00),
];
const PIECE_SCALE: i32 = 512;

/// A value carried as an unevaluated sum `hi + lo`, `|lo|` below an ulp of `hi`.
#[derive(Copy, Clone)]
struct Pair {
    hi: Value,
    lo: Value,
}

impl KernelBuilder {
    pub(super) fn math_f64(&mut self, f: MathFn, x: Value) -> Value {
        match f {
            MathFn::Exp => self.exp_f64(x),
            MathFn::Exp2 => self.exp2_f64(x),
            MathFn::Ln => self.log_f64(x, false),
            MathFn::Log2 => self.log_f64(x, true),
            MathFn::Sin => self.sin_cos_f64(x, false),
            MathFn::Cos => self.sin_cos_f64(x, true),
            MathFn::Tanh => self.tanh_f64(x),
            MathFn::Erf => self.erf_f64(x),
            MathFn::Rsqrt => unreachable!("rsqrt is not expanded in f64"),
        }
    }

    /// `e^x`: `x = k ln 2 + r`, `|r| <= ln 2 / 2`, `r` as `hi - lo` (`k LN2_HI` exact), then
    /// fdlibm's [`Self::exp_reduced`], times `2^k`.
    fn exp_f64(&mut self, x: Value) -> Value {
        // Beyond these, e^x is infinite or rounds to 0; clamping keeps `k` in range.
        let xc = self.clamp_c(x, -746.0, 710.0);
        let scaled = self.mul_c(xc, LOG2_E);
        let k = self.rint_f64(scaled);
        let hi = self.fma_c(k, -LN2_HI, xc);
        let lo = self.mul_c(k, LN2_LO);
        let e_r = self.exp_reduced(hi, lo);
        let e = self.scale_by_pow2(e_r, k);
        self.keep_nan(x, e)
    }

    /// `2^x`: `x = n + f`, `|f| <= 1/2` (exact), `f ln 2` as `hi - lo` (`fma` gives the
    /// product's rounding error), [`Self::exp_reduced`], times `2^n`.
    fn exp2_f64(&mut self, x: Value) -> Value {
        let xc = self.clamp_c(x, -1076.0, 1025.0);
        let n = self.rint_f64(xc);
        let f = self.sub(xc, n);
        let hi = self.mul_c(f, LN_2);
        let neg_hi = self.unary(UnOp::Neg, hi);
        let err = self.fma_c(f, LN_2, neg_hi);
        let tail = self.fma_c(f, LN2_TAIL, err);
        let lo = self.unary(UnOp::Neg, tail);
        let e_r = self.exp_reduced(hi, lo);
        let e = self.scale_by_pow2(e_r, n);
        self.keep_nan(x, e)
    }

    /// `e^r` for `r = hi - lo`, `|r| <= ln 2 / 2` (fdlibm `e_exp.c`): `c = r - r^2 P(r^2)`,
    /// `e^r = 1 + r + r c / (2 - c)`, the tail `lo` added before the head.
    fn exp_reduced(&mut self, hi: Value, lo: Value) -> Value {
        let r = self.sub(hi, lo);
        let t = self.mul(r, r);
        let p = self.horner(
            t,
            &[
                4.13813679705723846039e-08,
                -1.65339022054652515390e-06,
                6.61375632143793436117e-05,
                -2.77777777770155933842e-03,
                1.66666666666666019037e-01,
            ],
        );
        let neg_p = self.unary(UnOp::Neg, p);
        let c = self.fma(neg_p, t, r);
        let rc = self.mul(r, c);
        let two = self.float_like(r, 2.0);
        let d = self.sub(two, c);
        let q = self.div(rc, d);
        let s = self.sub(lo, q);
        let s = self.sub(s, hi);
        let one = self.float_like(r, 1.0);
        self.sub(one, s)
    }

    /// `ln x` or `log2 x` (fdlibm `e_log.c`, FreeBSD `e_log2.c`): `x = 2^k (1 + f)` with
    /// `sqrt(1/2) <= 1 + f < sqrt(2)`, `ln(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))` for
    /// `s = f / (2 + f)`, kept as a head `f - f^2/2` and a tail, then `k ln 2` or `k` added
    /// without losing the tail.
    fn log_f64(&mut self, x: Value, base2: bool) -> Value {
        // Subnormals are scaled into the normal range first.
        let tiny = self.cmp_c(CmpPred::Lt, x, f64::MIN_POSITIVE);
        let scaled = self.mul_c(x, 18_014_398_509_481_984.0); // 2^54
        let xs = self.select(tiny, scaled, x);
        let bits = self.bitcast(xs, S::I64);
        let c52 = self.const_int(S::I64, 52);
        let biased = self.shr(bits, c52);
        let mantissa_mask = self.const_int(S::I64, 0x000f_ffff_ffff_ffff);
        let mantissa = self.and(bits, mantissa_mask);
        let one_bits = self.const_int(S::I64, 0x3ff0_0000_0000_0000);
        let m_bits = self.or(mantissa, one_bits);
        let m = self.bitcast(m_bits, S::F64); // in [1, 2)
        let big = self.cmp_c(CmpPred::Gt, m, SQRT_2);
        let half_m = self.mul_c(m, 0.5);
        let m = self.select(big, half_m, m);
        let one = self.float_like(x, 1.0);
        let f = self.sub(m, one);
        let c1 = self.const_int(S::I64, 1);
        let c0 = self.const_int(S::I64, 0);
        let carry = self.select(big, c1, c0);
        let normal_bias = self.const_int(S::I64, 1023);
        let tiny_bias = self.const_int(S::I64, 1023 + 54);
        let bias = self.select(tiny, tiny_bias, normal_bias);
        let k = self.sub(biased, bias);
        let k = self.add(k, carry);
        let k = self.cast(k, S::F64);

        let two = self.float_like(x, 2.0);
        let two_f = self.add(two, f);
        let s = self.div(f, two_f);
        let z = self.mul(s, s);
        let p = self.horner(
            z,
            &[
                1.479819860511658591e-01,
                1.531383769920937332e-01,
                1.818357216161805012e-01,
                2.222219843214978396e-01,
                2.857142874366239149e-01,
                3.999999999940941908e-01,
                6.666666666666735130e-01,
            ],
        );
        let r = self.mul(z, p);
        let ff = self.mul(f, f);
        let hfsq = self.mul_c(ff, 0.5);
        let hfsq_r = self.add(hfsq, r);
        let s_part = self.mul(s, hfsq_r);
        // head = f - f^2/2; f - head is exact (the two are within a factor 2).
        let head = self.sub(f, hfsq);
        let lost = self.sub(f, head);
        let lost = self.sub(lost, hfsq);
        let tail = self.add(lost, s_part);

        let r = if base2 {
            // (head + tail) log2(e), the head's product exact as a pair, then + k.
            let h = self.mul_c(head, LOG2_E);
            let neg_h = self.unary(UnOp::Neg, h);
            let h_err = self.fma_c(head, LOG2_E, neg_h);
            let t = self.mul_c(tail, LOG2_E);
            let t = self.fma_c(head, LOG2_E_TAIL, t);
            let t = self.add(h_err, t);
            self.add_with_tail(k, h, t)
        } else {
            let k_hi = self.mul_c(k, LN2_HI);
            let t = self.fma_c(k, LN2_LO, tail);
            self.add_with_tail(k_hi, head, t)
        };
        self.log_specials(x, r)
    }

    /// `big + small + tail`, `|big| >= |small|` or `big = 0`: `big + small` split exactly
    /// into a sum and its rounding error (Fast2Sum), which joins the tail before the last
    /// addition.
    fn add_with_tail(&mut self, big: Value, small: Value, tail: Value) -> Value {
        let sum = self.fast_two_sum(big, small);
        let t = self.add(sum.lo, tail);
        self.add(sum.hi, t)
    }

    /// `a + b` as a pair, exact where `|a| >= |b|` or `a = 0` (Dekker's Fast2Sum).
    fn fast_two_sum(&mut self, a: Value, b: Value) -> Pair {
        let hi = self.add(a, b);
        let d = self.sub(a, hi);
        let lo = self.add(d, b);
        Pair { hi, lo }
    }

    /// `a + b` as a pair, exact for any `a`, `b` (Knuth's TwoSum).
    fn two_sum(&mut self, a: Value, b: Value) -> Pair {
        let hi = self.add(a, b);
        let b_part = self.sub(hi, a);
        let a_part = self.sub(hi, b_part);
        let b_err = self.sub(b, b_part);
        let a_err = self.sub(a, a_part);
        let lo = self.add(a_err, b_err);
        Pair { hi, lo }
    }

    /// `a * b` as a pair, exact (the rounding error of the product by `fma`).
    fn two_product(&mut self, a: Value, b: Value) -> Pair {
        let hi = self.mul(a, b);
        let neg_hi = self.unary(UnOp::Neg, hi);
        let lo = self.fma(a, b, neg_hi);
        Pair { hi, lo }
    }

    /// `sin x` or `cos x`: `x = k pi/2 + r`, `|r| <= pi/4` with `r` as a pair, fdlibm's
    /// kernels on `r`, picked and signed by `k mod 4`.
    fn sin_cos_f64(&mut self, x: Value, cos: bool) -> Value {
        let (near_k, near_r) = self.reduce_cody_waite(x);
        let (far_k, far_r) = self.reduce_payne_hanek(x);
        let ax = self.unary(UnOp::Abs, x);
        let near = self.cmp_c(CmpPred::Lt, ax, CODY_WAITE_LIMIT);
        let k = self.select(near, near_k, far_k);
        let r = Pair {
            hi: self.select(near, near_r.hi, far_r.hi),
            lo: self.select(near, near_r.lo, far_r.lo),
        };
        // `k` is NaN for infinite or NaN `x` (whose result is NaN whatever the quadrant):
        // 0 keeps the conversion defined.
        let finite_k = self.cmp_c(CmpPred::Lt, k, CODY_WAITE_LIMIT);
        let zero = self.float_like(x, 0.0);
        let k = self.select(finite_k, k, zero);
        let k = self.cast(k, S::I64);
        let quadrant = if cos {
            let one = self.const_int(S::I64, 1);
            self.add(k, one)
        } else {
            k
        };
        let sin_r = self.sin_kernel_f64(r);
        let cos_r = self.cos_kernel_f64(r);
        let v = self.by_quadrant(quadrant, sin_r, cos_r);
        if cos {
            return v;
        }
        // Below 2^-27, sin x rounds to x (which keeps -0 and subnormals exact).
        let tiny = self.cmp_c(CmpPred::Lt, ax, 7.450_580_596_923_828e-9);
        self.select(tiny, x, v)
    }

    /// `x = k pi/2 + r` for `|x| < 2^20`: `x - k PIO2[0]` is exact, `k PIO2[1]` is an exact
    /// pair, so `r` keeps its bits however close `x` is to a multiple of `pi/2`.
    fn reduce_cody_waite(&mut self, x: Value) -> (Value, Pair) {
        let scaled = self.mul_c(x, FRAC_2_PI);
        let k = self.rint_f64(scaled);
        let r1 = self.fma_c(k, -PIO2[0], x);
        let pio2_1 = self.float_like(x, PIO2[1]);
        let w = self.two_product(k, pio2_1);
        let neg_w = self.unary(UnOp::Neg, w.hi);
        let s = self.two_sum(r1, neg_w);
        let t = self.sub(s.lo, w.lo);
        let t = self.fma_c(k, -PIO2[2], t);
        (k, self.fast_two_sum(s.hi, t))
    }

    /// `x = k pi/2 + r` for any finite `x`: `x * 2/pi` as the sum of the exact products of
    /// `x` with the pieces of `2/pi` (each product a pair by `fma`, each part reduced modulo
    /// 4, exactly), summed smallest first in triple-double (the integer part cancels: `r`
    /// can be as small as `2^-61` for the sum's `~2`, so a double-double's 106 bits would
    /// leave a few ulp); the pieces whose product with `x` is a multiple of 4 drop out, the
    /// ones past the last bits of `x` hardly add.
    fn reduce_payne_hanek(&mut self, x: Value) -> (Value, Pair) {
        let xs = self.mul_c(x, 2f64.powi(-PIECE_SCALE));
        let zero = self.float_like(x, 0.0);
        let (mut hi, mut mid, mut lo) = (zero, zero, zero);
        for piece in TWO_OVER_PI_PIECES.into_iter().rev() {
            let c = self.float_like(x, piece);
            let product = self.two_product(xs, c);
            for part in [product.lo, product.hi] {
                let quarter = self.mul_c(part, 0.25);
                let q = self.rint_f64(quarter);
                let part_mod_4 = self.fma_c(q, -4.0, part);
                let top = self.two_sum(hi, part_mod_4);
                let next = self.two_sum(mid, top.lo);
                (hi, mid) = (top.hi, next.hi);
                lo = self.add(lo, next.lo);
            }
        }
        let k = self.rint_f64(hi);
        let frac = self.sub(hi, k);
        let head = self.two_sum(frac, mid);
        let tail = self.add(head.lo, lo);
        let frac = self.fast_two_sum(head.hi, tail);
        // r = frac * pi/2, both as pairs.
        let pi_2 = self.float_like(x, FRAC_PI_2);
        let head = self.two_product(frac.hi, pi_2);
        let t = self.fma_c(frac.lo, FRAC_PI_2, head.lo);
        let t = self.fma_c(frac.hi, FRAC_PI_2_TAIL, t);
        (k, self.fast_two_sum(head.hi, t))
    }

    /// `sin(hi + lo)` for `|hi| <= pi/4` (fdlibm `k_sin.c`).
    fn sin_kernel_f64(&mut self, r: Pair) -> Value {
        let Pair { hi: x, lo: y } = r;
        let z = self.mul(x, x);
        let v = self.mul(z, x);
        let p = self.horner(
            z,
            &[
                1.58969099521155010221e-10,
                -2.50507602534068634195e-08,
                2.75573137070700676789e-06,
                -1.98412698298579493134e-04,
                8.33333333332248946124e-03,
            ],
        );
        // x - ((z (y/2 - v p) - y) - v S1)
        let vp = self.mul(v, p);
        let half_y = self.mul_c(y, 0.5);
        let t = self.sub(half_y, vp);
        let t = self.mul(z, t);
        let t = self.sub(t, y);
        let neg_v = self.unary(UnOp::Neg, v);
        let t = self.fma_c(neg_v, -1.66666666666666324348e-01, t);
        self.sub(x, t)
    }

    /// `cos(hi + lo)` for `|hi| <= pi/4` (fdlibm `k_cos.c`): `1 - z/2` split so its
    /// rounding error is kept.
    fn cos_kernel_f64(&mut self, r: Pair) -> Value {
        let Pair { hi: x, lo: y } = r;
        let z = self.mul(x, x);
        let p = self.horner(
            z,
            &[
                -1.13596475577881948265e-11,
                2.08757232129817482790e-09,
                -2.75573143513906633035e-07,
                2.48015872894767294178e-05,
                -1.38888888888741095749e-03,
                4.16666666666666019037e-02,
            ],
        );
        let zz = self.mul(z, z);
        let hz = self.mul_c(z, 0.5);
        let one = self.float_like(x, 1.0);
        let w = self.sub(one, hz);
        let lost = self.sub(one, w);
        let lost = self.sub(lost, hz);
        // z^2 p - x y
        let xy = self.mul(x, y);
        let neg_xy = self.unary(UnOp::Neg, xy);
        let t = self.fma(zz, p, neg_xy);
        let t = self.add(lost, t);
        self.add(w, t)
    }

    /// `tanh x`: below 0.625 Cephes' `x + x^3 P(x^2) / Q(x^2)`, else
    /// [`Self::tanh_large`]; below `2^-27` `x` itself (keeping `-0`).
    fn tanh_f64(&mut self, x: Value) -> Value {
        let z = self.mul(x, x);
        let p = self.horner(
            z,
            &[
                -9.64399179425052238628e-1,
                -9.92877231001918586564e1,
                -1.61468768441708447952e3,
            ],
        );
        let q = self.horner(
            z,
            &[
                1.0,
                1.12811678491632931402e2,
                2.23548839060100448583e3,
                4.84406305325125486048e3,
            ],
        );
        let zp = self.mul(z, p);
        let ratio = self.div(zp, q);
        let small = self.fma(x, ratio, x);
        let ax = self.unary(UnOp::Abs, x);
        let large = self.tanh_large(x, ax, Self::exp_f64);
        let is_small = self.cmp_c(CmpPred::Lt, ax, 0.625);
        // NaN fails `is_small` and goes through exp, which keeps it.
        let r = self.select(is_small, small, large);
        let tiny = self.cmp_c(CmpPred::Lt, ax, 7.450_580_596_923_828e-9);
        self.select(tiny, x, r)
    }

    /// `erf x` (fdlibm `s_erf.c`): `x + x R(x^2)` below 0.84375, `c + P(s)/Q(s)` with
    /// `s = |x| - 1` below 1.25, `1 - e^(-x^2 - 0.5625 + R(1/x^2)/S(1/x^2)) / |x|` below 6
    /// (two sets of coefficients, split at 1/0.35; `x^2` as the square of `x` cut to 21 bits
    /// plus a correction), 1 beyond; the sign of `x`.
    fn erf_f64(&mut self, x: Value) -> Value {
        let ax = self.unary(UnOp::Abs, x);
        let x2 = self.mul(x, x);
        let num = self.horner(
            x2,
            &[
                -2.37630166566501626084e-05,
                -5.77027029648944159157e-03,
                -2.84817495755985104766e-02,
                -3.25042107247001499370e-01,
                1.28379167095512558561e-01,
            ],
        );
        let den = self.horner(
            x2,
            &[
                -3.96022827877536812320e-06,
                1.32494738004321644526e-04,
                5.08130628187576562776e-03,
                6.50222499887672944485e-02,
                3.97917223959155352819e-01,
                1.0,
            ],
        );
        let y = self.div(num, den);
        let small = self.fma(x, y, x);

        let one = self.float_like(x, 1.0);
        let s = self.sub(ax, one);
        let num = self.horner(
            s,
            &[
                -2.16637559486879084300e-03,
                3.54783043256182359371e-02,
                -1.10894694282396677476e-01,
                3.18346619901161753674e-01,
                -3.72207876035701323847e-01,
                4.14856118683748331666e-01,
                -2.36211856075265944077e-03,
            ],
        );
        let den = self.horner(
            s,
            &[
                1.19844998467991074170e-02,
                1.36370839120290507362e-02,
                1.26171219808761642112e-01,
                7.18286544141962662868e-02,
                5.40397917702171048937e-01,
                1.06420880400844228286e-01,
                1.0,
            ],
        );
        let ratio = self.div(num, den);
        // erf(1) rounded to 24 bits (the published split).
        let erf1 = self.float_like(x, 8.45062911510467529297e-01);
        let middle = self.add(erf1, ratio);

        let ax2 = self.mul(ax, ax);
        let w = self.div(one, ax2);
        let near_num = self.horner(
            w,
            &[
                -9.81432934416914548592e+00,
                -8.12874355063065934246e+01,
                -1.84605092906711035994e+02,
                -1.62396669462573470355e+02,
                -6.23753324503260060396e+01,
                -1.05586262253232909814e+01,
                -6.93858572707181764372e-01,
                -9.86494403484714822705e-03,
            ],
        );
        let near_den = self.horner(
            w,
            &[
                -6.04244152148580987438e-02,
                6.57024977031928170135e+00,
                1.08635005541779435134e+02,
                4.29008140027567833386e+02,
                6.45387271733267880336e+02,
                4.34565877475229228821e+02,
                1.37657754143519042600e+02,
                1.96512716674392571292e+01,
                1.0,
            ],
        );
        let far_num = self.horner(
            w,
            &[
                -4.83519191608651397019e+02,
                -1.02509513161107724954e+03,
                -6.37566443368389627722e+02,
                -1.60636384855821916062e+02,
                -1.77579549177547519889e+01,
                -7.99283237680523006574e-01,
                -9.86494292470009928597e-03,
            ],
        );
        let far_den = self.horner(
            w,
            &[
                -2.24409524465858183362e+01,
                4.74528541206955367215e+02,
                2.55305040643316442583e+03,
                3.19985821950859553908e+03,
                1.53672958608443695994e+03,
                3.25792512996573918826e+02,
                3.03380607434824582924e+01,
                1.0,
            ],
        );
        let near = self.cmp_c(CmpPred::Lt, ax, 1.0 / 0.35);
        let num = self.select(near, near_num, far_num);
        let den = self.select(near, near_den, far_den);
        let ratio = self.div(num, den);
        // -x^2 = -c^2 + (c - x)(c + x) with c = x cut to 21 bits: c^2 is exact.
        let bits = self.bitcast(ax, S::I64);
        let high_mask = self.const_int(S::I64, 0xffff_ffff_0000_0000_u64 as i64);
        let cut = self.and(bits, high_mask);
        let cut = self.bitcast(cut, S::F64);
        let cut2 = self.mul(cut, cut);
        let neg_quarter = self.float_like(x, -0.5625);
        let e1_arg = self.sub(neg_quarter, cut2);
        let e1 = self.exp_f64(e1_arg);
        let d = self.sub(cut, ax);
        let u = self.add(cut, ax);
        let e2_arg = self.fma(d, u, ratio);
        let e2 = self.exp_f64(e2_arg);
        let e = self.mul(e1, e2);
        let e = self.div(e, ax);
        let tail = self.sub(one, e);

        let is_middle = self.cmp_c(CmpPred::Lt, ax, 1.25);
        let r = self.select(is_middle, middle, tail);
        // From 6 on erf is 1 within half an ulp (and inf would give inf - inf above).
        let saturated = self.cmp_c(CmpPred::Ge, ax, 6.0);
        let r = self.select(saturated, one, r);
        let r = self.with_sign_of(x, r);
        let is_small = self.cmp_c(CmpPred::Lt, ax, 0.84375);
        self.select(is_small, small, r)
    }
}
