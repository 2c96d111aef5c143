//! Math: `sqrt`, `exp2`, `log2`, `abs`, `min`, `max` and `fma`, as intrinsics and as the
//! methods `x.sqrt()`, `x.min(y)`, `a.mul_add(b, c)`, ...

use super::intrinsics::Call;
use super::{Binding, Lower, Val, err};
use crate::sig::rust_name;
use kosmos_ir::{BinOp, KernelBuilder, ScalarType, UnOp};
use syn::{Expr, Result};

use ScalarType as S;

impl Lower {
    /// `sqrt(x)`, `exp2(x)`, `log2(x)`, `abs(x)`, `min(a, b)`, `max(a, b)`, `fma(a, b, c)`.
    pub(super) fn math_call(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let t = expect.or_else(|| match args[..] {
            [x, y] => self.infer_pair(x, y),
            _ => args.iter().find_map(|a| self.infer(a)),
        });
        self.math(b, &call.name, t, args, call.call)
    }

    /// A method call: the math methods of numbers.
    pub(super) fn method(
        &mut self,
        b: &mut KernelBuilder,
        m: &syn::ExprMethodCall,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let name = m.method.to_string();
        if let Expr::Path(p) = &*m.receiver
            && let Some(ident) = p.path.get_ident()
            && let Some(Binding::Slice { len, .. }) = self.lookup(&ident.to_string())
        {
            if name == "len" {
                if !m.args.is_empty() {
                    return err(m, "`len` takes no arguments");
                }
                return match len {
                    Some(v) => Ok(Val { v, ty: S::U64 }),
                    None => err(
                        m,
                        format!("`{ident}` is a peer slice, whose length the kernel does not know"),
                    ),
                };
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
            "sqrt" | "exp2" | "log2" | "abs" => (name.as_str(), 0),
            "min" | "max" => (name.as_str(), 1),
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
        // The receiver gives the type; `min` and `max` also look at their argument.
        let t = expect.or_else(|| self.infer(&m.receiver));
        let t = match function {
            "min" | "max" => t.or_else(|| self.infer(operands[1])),
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
            _ => {
                let [x] = self.operands(b, t, operands)?;
                let (op, ok) = match name {
                    "sqrt" => (UnOp::Sqrt, x.ty.is_float()),
                    // The GPU targets have no f64 exp2/log2 (the IR's verifier rejects it).
                    "exp2" => (UnOp::Exp2, x.ty.is_float() && x.ty != S::F64),
                    "log2" => (UnOp::Log2, x.ty.is_float() && x.ty != S::F64),
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
