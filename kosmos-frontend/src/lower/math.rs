//! Math: `sqrt`, `rsqrt`, `exp`, `exp2`, `ln`, `log2`, `sin`, `cos`, `tanh`, `erf`, `abs`,
//! `min`, `max`, `clamp`, `fma` and `powi`, as intrinsics and as the methods `x.exp()`,
//! `x.min(y)`, `x.clamp(lo, hi)`, `a.mul_add(b, c)`, `x.powi(3)`, ... with Rust's types: the
//! result has the receiver's type, `powi` takes an `i32`, integers get no float math.
//! The transcendental functions are accurate expansions into basic IR ops
//! ([`kosmos_ir::MathFn`]), the same on the CPU device and every GPU.

use super::intrinsics::Call;
use super::{Binding, Lower, Val, err};
use crate::sig::{rust_name, scalar_of_name};
use kosmos_ir::{BinOp, Constant, KernelBuilder, MathFn, ScalarType, UnOp};
use syn::{Expr, Result};

use ScalarType as S;

impl Lower {
    /// `sqrt(x)`, `exp(x)`, ..., `min(a, b)`, `clamp(x, lo, hi)`, `fma(a, b, c)`, `powi(x, n)`.
    pub(super) fn math_call(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let t = expect.or_else(|| match args[..] {
            // The base gives the type, not the `i32` exponent.
            [x, _] if call.name == "powi" => self.infer(x),
            [x, y] => self.infer_pair(x, y),
            _ => args.iter().find_map(|a| self.infer(a)),
        });
        self.math(b, &call.name, t, args, call.call)
    }

    /// A method call: the math methods of numbers, and the lengths of slices and symmetric
    /// buffers.
    pub(super) fn method(
        &mut self,
        b: &mut KernelBuilder,
        m: &syn::ExprMethodCall,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let name = m.method.to_string();
        if let Some(sym) = self.sym_param(&m.receiver) {
            let x = &m.receiver;
            let x = quote::quote!(#x).to_string();
            return match name.as_str() {
                "len" if m.args.is_empty() => Ok(Val {
                    v: sym.len,
                    ty: S::U64,
                }),
                "len" => err(m, "`len` takes no arguments"),
                "peer" | "local" => err(
                    m,
                    format!("`{x}.{name}(..)` is a slice: bind it with `let` or index it"),
                ),
                _ => err(
                    &m.method,
                    format!(
                        "symmetric buffers have `.peer(rank)`, `.local()` and `.len()`, not `.{name}`"
                    ),
                ),
            };
        }
        if let Expr::Path(p) = &*m.receiver
            && let Some(ident) = p.path.get_ident()
            && let Some(Binding::Slice { len, .. }) = self.lookup(&ident.to_string())
        {
            if name == "len" {
                if !m.args.is_empty() {
                    return err(m, "`len` takes no arguments");
                }
                return Ok(Val { v: len, ty: S::U64 });
            }
            if name.starts_with("get_unchecked") {
                return err(
                    m,
                    format!(
                        "`{name}` gives a reference: read the element with `*{ident}.{name}(i)`"
                    ),
                );
            }
            return err(
                &m.method,
                format!("slices have no method `{name}` in kernels"),
            );
        }
        if let Some(t) = &m.turbofish {
            return err(t, "methods take no generic arguments in kernels");
        }
        let (function, arity) = match name.as_str() {
            "sqrt" | "abs" => (name.as_str(), 0),
            _ if MathFn::from_name(&name).is_some() => (name.as_str(), 0),
            "min" | "max" | "powi" => (name.as_str(), 1),
            "clamp" => (name.as_str(), 2),
            "mul_add" => ("fma", 2),
            _ => {
                return err(
                    &m.method,
                    format!("unsupported method `{name}` in a kernel"),
                );
            }
        };
        if m.args.len() != arity {
            return err(
                m,
                format!("`{name}` takes {arity} argument(s), found {}", m.args.len()),
            );
        }
        let operands: Vec<&Expr> = std::iter::once(&*m.receiver).chain(&m.args).collect();
        // The receiver gives the type; `min`, `max` and `clamp` also look at their arguments.
        let t = expect.or_else(|| self.infer(&m.receiver));
        let t = match function {
            "min" | "max" | "clamp" => t.or_else(|| self.infer(operands[1])),
            _ => t,
        };
        self.math(b, function, t, &operands, m)
    }

    /// `name` (a math intrinsic) of the `operands`, with `t` the type of the first one when
    /// known; the result has the first operand's type.
    fn math(
        &mut self,
        b: &mut KernelBuilder,
        name: &str,
        t: Option<ScalarType>,
        operands: &[&Expr],
        tokens: impl quote::ToTokens,
    ) -> Result<Val> {
        let (v, ty) = match name {
            "min" | "max" => {
                let [x, y] = self.operands(b, t, operands)?;
                if x.ty == S::I1 {
                    return err(tokens, format!("`{name}` cannot be applied to bool"));
                }
                let op = if name == "min" {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                (b.binary(op, x.v, y.v), x.ty)
            }
            "clamp" => {
                let [x, lo, hi] = self.operands(b, t, operands)?;
                if x.ty == S::I1 {
                    return err(tokens, "`clamp` cannot be applied to bool");
                }
                (b.clamp(x.v, lo.v, hi.v), x.ty)
            }
            "fma" => {
                let [x, y, z] = self.operands(b, t, operands)?;
                if !x.ty.is_float() {
                    return err(
                        tokens,
                        format!("fused multiply-add takes floats, found {}", rust_name(x.ty)),
                    );
                }
                (b.fma(x.v, y.v, z.v), x.ty)
            }
            "powi" => {
                let x = self.value(b, operands[0], t)?;
                if !x.ty.is_float() {
                    return err(
                        tokens,
                        format!("`powi` takes a float base, found {}", rust_name(x.ty)),
                    );
                }
                let n = self.value(b, operands[1], Some(S::I32))?;
                (b.powi(x.v, n.v), x.ty)
            }
            _ => {
                let [x] = self.operands(b, t, operands)?;
                if let Some(f) = MathFn::from_name(name) {
                    if !f.takes(x.ty) {
                        return err(
                            tokens,
                            format!(
                                "`{name}` cannot be applied to {}: it takes floats",
                                rust_name(x.ty)
                            ),
                        );
                    }
                    (b.math(f, x.v), x.ty)
                } else {
                    let (op, ok) = match name {
                        "sqrt" => (UnOp::Sqrt, x.ty.is_float()),
                        _ => (UnOp::Abs, x.ty.is_float() || x.ty.is_signed_int()),
                    };
                    if !ok {
                        return err(
                            tokens,
                            format!("`{name}` cannot be applied to {}", rust_name(x.ty)),
                        );
                    }
                    (b.unary(op, x.v), x.ty)
                }
            }
        };
        Ok(Val { v, ty })
    }

    /// Lowers the `operands` of a math function: the first as `t` (when known), the others
    /// as the type the first one has.
    fn operands<const N: usize>(
        &mut self,
        b: &mut KernelBuilder,
        t: Option<ScalarType>,
        operands: &[&Expr],
    ) -> Result<[Val; N]> {
        let mut vals = Vec::with_capacity(N);
        for e in operands {
            let t = vals.first().map_or(t, |first: &Val| Some(first.ty));
            vals.push(self.value(b, e, t)?);
        }
        Ok(vals.try_into().expect("the intrinsic's number of operands"))
    }
}

/// The value of an associated constant of a number type, `f32::MAX`, `u32::MAX`,
/// `f64::EPSILON`, `f32::consts::PI` (also under `std::` and `core::`); `None` when `path`
/// names none (it is then no path the kernel knows).
pub(super) fn associated_const(path: &syn::Path) -> Result<Option<Constant>> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let (ty, name, consts) = match segs[..] {
        ["std" | "core", ty, "consts", name] | [ty, "consts", name] => (ty, name, true),
        [ty, name] => (ty, name, false),
        _ => return Ok(None),
    };
    let Some(t) = scalar_of_name(ty).filter(|t| *t != S::I1) else {
        return Ok(None);
    };
    let value = if consts && t.is_float() {
        float_const(name).map(|v| Constant::float(t, v))
    } else if consts {
        None
    } else if t.is_float() {
        float_limit(t, name).map(|v| Constant::float(t, v))
    } else {
        int_limit(t, name).map(|v| Constant::int(t, v))
    };
    match value {
        Some(c) => Ok(Some(c)),
        None => err(
            path,
            format!(
                "no associated constant `{ty}::{}` in kernels",
                segs[1..].join("::")
            ),
        ),
    }
}

/// `MAX`, `MIN`, `EPSILON`, ... of a float type, from its mantissa bits and largest exponent.
fn float_limit(t: ScalarType, name: &str) -> Option<f64> {
    let (mantissa, max_exp) = match t {
        S::F16 => (10, 15),
        S::BF16 => (7, 127),
        S::F32 => (23, 127),
        _ => (52, 1023),
    };
    let max = (2.0 - 2f64.powi(-mantissa)) * 2f64.powi(max_exp);
    Some(match name {
        "INFINITY" => f64::INFINITY,
        "NEG_INFINITY" => f64::NEG_INFINITY,
        "NAN" => f64::NAN,
        "MAX" => max,
        "MIN" => -max,
        "MIN_POSITIVE" => 2f64.powi(1 - max_exp),
        "EPSILON" => 2f64.powi(-mantissa),
        _ => return None,
    })
}

fn int_limit(t: ScalarType, name: &str) -> Option<i64> {
    let bits = t.bits();
    let (min, max) = if t.is_signed_int() {
        (-1i64 << (bits - 1), ((1u64 << (bits - 1)) - 1) as i64)
    } else {
        (0, (u64::MAX >> (64 - bits)) as i64)
    };
    match name {
        "MAX" => Some(max),
        "MIN" => Some(min),
        _ => None,
    }
}

/// The constants of `std::f64::consts`, by name (rounded into the type they are asked in).
fn float_const(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "PI" => c::PI,
        "TAU" => c::TAU,
        "E" => c::E,
        "SQRT_2" => c::SQRT_2,
        "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
        "FRAC_PI_2" => c::FRAC_PI_2,
        "FRAC_PI_3" => c::FRAC_PI_3,
        "FRAC_PI_4" => c::FRAC_PI_4,
        "FRAC_PI_6" => c::FRAC_PI_6,
        "FRAC_PI_8" => c::FRAC_PI_8,
        "FRAC_1_PI" => c::FRAC_1_PI,
        "FRAC_2_PI" => c::FRAC_2_PI,
        "FRAC_2_SQRT_PI" => c::FRAC_2_SQRT_PI,
        "LN_2" => c::LN_2,
        "LN_10" => c::LN_10,
        "LOG2_E" => c::LOG2_E,
        "LOG10_E" => c::LOG10_E,
        "LOG2_10" => c::LOG2_10,
        "LOG10_2" => c::LOG10_2,
        _ => return None,
    })
}
