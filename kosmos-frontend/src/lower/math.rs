//! Math: `sqrt`, `exp2`, `log2`, `abs`, `min`, `max` and `fma`, as intrinsics and as the
//! methods `x.sqrt()`, `x.min(y)`, `a.mul_add(b, c)`, ...

use super::intrinsics::Call;
use super::{Binding, Lower, Val, err};
use crate::sig::rust_name;
use kosmos_ir::{BinOp, KernelBuilder, ScalarType, UnOp};
use syn::{Expr, Result};

use ScalarType as S;

impl Lower {
    /// `sqrt(x)`, `exp2(x)`, `log2(x)`, `abs(x)`.
    pub(super) fn math1_call(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let x = call.args[0];
        let t = expect.or_else(|| self.infer(x));
        let x = self.value(b, x, t)?;
        self.math1(b, &call.name, x, call.call)
    }

    /// `min(a, b)`, `max(a, b)`.
    pub(super) fn minmax_call(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let t = expect.or_else(|| self.infer_pair(args[0], args[1]));
        let x = self.value(b, args[0], t)?;
        let y = self.value(b, args[1], Some(x.ty))?;
        self.minmax(b, &call.name, x, y, call.call)
    }

    /// `fma(a, b, c)`.
    pub(super) fn fma_call(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let t = expect.or_else(|| args.iter().find_map(|a| self.infer(a)));
        let x = self.value(b, args[0], t)?;
        let y = self.value(b, args[1], Some(x.ty))?;
        let z = self.value(b, args[2], Some(x.ty))?;
        self.fma(b, x, y, z, call.call)
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
            && let Some(Binding::Slice { .. }) = self.lookup(&ident.to_string())
        {
            if name == "len" {
                return err(
                    m,
                    "slices in kernels carry no length: pass it as a parameter",
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
        let args: Vec<&Expr> = m.args.iter().collect();
        let arity = |n: usize| -> Result<()> {
            if args.len() == n {
                Ok(())
            } else {
                err(
                    m,
                    format!("`{name}` takes {n} argument(s), found {}", args.len()),
                )
            }
        };
        let t = expect.or_else(|| self.infer(&m.receiver));
        match name.as_str() {
            "sqrt" | "exp2" | "log2" | "abs" => {
                arity(0)?;
                let x = self.value(b, &m.receiver, t)?;
                self.math1(b, &name, x, m)
            }
            "min" | "max" => {
                arity(1)?;
                let t = t.or_else(|| self.infer(args[0]));
                let x = self.value(b, &m.receiver, t)?;
                let y = self.value(b, args[0], Some(x.ty))?;
                self.minmax(b, &name, x, y, m)
            }
            "mul_add" => {
                arity(2)?;
                let x = self.value(b, &m.receiver, t)?;
                let y = self.value(b, args[0], Some(x.ty))?;
                let z = self.value(b, args[1], Some(x.ty))?;
                self.fma(b, x, y, z, m)
            }
            _ => err(
                &m.method,
                format!("unsupported method `{name}` in a kernel"),
            ),
        }
    }

    fn math1(
        &mut self,
        b: &mut KernelBuilder,
        name: &str,
        x: Val,
        tokens: impl quote::ToTokens,
    ) -> Result<Val> {
        let (op, ok) = match name {
            "sqrt" => (UnOp::Sqrt, x.ty.is_float()),
            "exp2" => (UnOp::Exp2, x.ty.is_float()),
            "log2" => (UnOp::Log2, x.ty.is_float()),
            _ => (UnOp::Abs, x.ty.is_float() || x.ty.is_signed_int()),
        };
        if !ok {
            return err(
                tokens,
                format!("`{name}` cannot be applied to {}", rust_name(x.ty)),
            );
        }
        Ok(Val {
            v: b.unary(op, x.v),
            ty: x.ty,
        })
    }

    fn minmax(
        &mut self,
        b: &mut KernelBuilder,
        name: &str,
        x: Val,
        y: Val,
        tokens: impl quote::ToTokens,
    ) -> Result<Val> {
        if x.ty == S::I1 {
            return err(tokens, format!("`{name}` cannot be applied to bool"));
        }
        let op = if name == "min" {
            BinOp::Min
        } else {
            BinOp::Max
        };
        Ok(Val {
            v: b.binary(op, x.v, y.v),
            ty: x.ty,
        })
    }

    fn fma(
        &mut self,
        b: &mut KernelBuilder,
        x: Val,
        y: Val,
        z: Val,
        tokens: impl quote::ToTokens,
    ) -> Result<Val> {
        if !x.ty.is_float() {
            return err(
                tokens,
                format!("fused multiply-add takes floats, found {}", rust_name(x.ty)),
            );
        }
        Ok(Val {
            v: b.fma(x.v, y.v, z.v),
            ty: x.ty,
        })
    }
}
