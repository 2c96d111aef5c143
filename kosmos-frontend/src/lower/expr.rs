//! Expressions: paths, operators, casts, indexing and assignment (plain and compound), the
//! dispatch of every expression form to its lowering, and the messages for the Rust that
//! kernels do not support.

use super::bounds::Elem;
use super::tiles::tile_as_scalar;
use super::{Binding, Lower, Val, err, math, mismatch};
use crate::sig::{rust_name, scalar_type};
use kosmos_ir::{BinOp, CmpPred, KernelBuilder, Loc, ScalarType, UnOp};
use syn::spanned::Spanned;
use syn::{Expr, Result};

use ScalarType as S;

impl Lower {
    /// An expression that must have a value.
    pub(super) fn value(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        match self.expr(b, e, expect)? {
            Some(v) => Ok(v),
            None if self.terminated => err(e, "this expression never produces a value"),
            None => err(e, "this expression has no value"),
        }
    }

    /// Lowers `e`; `None` for expressions without a value (assignments, loops, `()` blocks).
    /// Its instructions carry its position in the source, which run-time errors name.
    pub(super) fn expr(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let start = e.span().start();
        let outer = b.set_loc(Some(Loc {
            line: start.line as u32,
            col: start.column as u32 + 1,
        }));
        let v = self.expr_here(b, e, expect);
        b.set_loc(outer);
        v
    }

    fn expr_here(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let v = match e {
            Expr::Lit(lit) => Some(self.literal(b, lit, expect)?),
            Expr::Path(p) => Some(self.path(b, p, expect)?),
            Expr::Paren(p) => return self.expr(b, &p.expr, expect),
            Expr::Group(g) => return self.expr(b, &g.expr, expect),
            Expr::Block(bl) => {
                if let Some(l) = &bl.label {
                    return err(l, "labels are not supported in kernels");
                }
                return self.block(b, &bl.block, expect);
            }
            Expr::Binary(bin) => return self.binary(b, bin, expect),
            Expr::Unary(u) => Some(self.unary(b, u, expect)?),
            Expr::Cast(c) => {
                let to = scalar_type(&c.ty, "cast target")?;
                if to == S::I1 {
                    return err(&c.ty, "casts to `bool` are not supported: compare with 0");
                }
                let from = self.infer(&c.expr);
                let x = self.value(b, &c.expr, from)?;
                if x.ty == to {
                    Some(x)
                } else {
                    Some(Val {
                        v: b.cast(x.v, to),
                        ty: to,
                    })
                }
            }
            Expr::Index(ix) => {
                let e = self.element(b, &ix.expr, &ix.index, false, ix)?;
                Some(Lower::load_elem(b, e))
            }
            Expr::Assign(a) => {
                self.assign(b, &a.left, &a.right, None)?;
                None
            }
            Expr::If(i) => return self.if_expr(b, i, expect),
            Expr::ForLoop(f) => {
                self.for_loop(b, f)?;
                None
            }
            Expr::While(w) => {
                self.while_loop(b, w)?;
                None
            }
            Expr::Loop(l) => return self.loop_expr(b, l, expect),
            Expr::Break(br) => {
                self.break_(b, br)?;
                None
            }
            Expr::Continue(c) => {
                self.continue_(b, c)?;
                None
            }
            Expr::Return(r) => {
                if let Some(f) = self.inlining.last() {
                    return err(
                        r,
                        format!(
                            "`return` in device function `{f}`: it is inlined, so give its value as the body's last expression"
                        ),
                    );
                }
                if self.in_role {
                    return err(
                        r,
                        "`return` cannot leave a `dispatch` role: the loop ends when both queues are drained",
                    );
                }
                if let Some(v) = &r.expr {
                    return err(v, "kernels return nothing: write results into a `&mut [T]`");
                }
                b.ret();
                self.terminated = true;
                None
            }
            Expr::Call(c) => return self.call(b, c, expect),
            Expr::MethodCall(m) => Some(self.method(b, m, expect)?),
            Expr::Reference(r) => {
                return err(
                    r,
                    "references are not supported in kernels, except `&a[i]` as the first argument of an atomic",
                );
            }
            Expr::Closure(c) => return err(c, "closures are not supported in kernels"),
            Expr::Match(m) => {
                return err(
                    m.match_token,
                    "`match` is not supported in kernels: use `if`/`else`",
                );
            }
            Expr::Struct(s) => return err(s, "structs are not supported in kernels"),
            // Where `get_unchecked` may be called; otherwise a plain block.
            Expr::Unsafe(u) => {
                self.unsafe_depth += 1;
                let value = self.block(b, &u.block, expect);
                self.unsafe_depth -= 1;
                return value;
            }
            Expr::Let(l) => return err(l, "`if let` / `while let` are not supported in kernels"),
            Expr::Macro(m) => return err(m, "macros are not supported in kernels"),
            Expr::Field(f) => {
                return err(
                    f,
                    "fields are not supported in kernels (no structs or tuples)",
                );
            }
            Expr::Tuple(t) => return err(t, "tuples are not supported in kernels"),
            Expr::Array(a) => {
                return err(
                    a,
                    "local arrays are not supported in kernels: use `shared_array`",
                );
            }
            Expr::Repeat(a) => {
                return err(
                    a,
                    "local arrays are not supported in kernels: use `shared_array`",
                );
            }
            Expr::Range(r) => return err(r, "ranges are only supported as `for` loop bounds"),
            other => return err(other, "unsupported syntax in a kernel"),
        };
        if let (Some(expected), Some(v)) = (expect, v)
            && v.ty != expected
        {
            return err(e, mismatch(expected, rust_name(v.ty)));
        }
        Ok(v)
    }

    fn path(
        &mut self,
        b: &mut KernelBuilder,
        p: &syn::ExprPath,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        if let Some(c) = math::associated_const(&p.path)? {
            return Ok(Val {
                v: b.constant(c),
                ty: c.ty,
            });
        }
        let Some(ident) = p.path.get_ident() else {
            return err(
                p,
                "unexpected path: orderings and scopes are arguments of atomics and fences",
            );
        };
        match self.lookup(&ident.to_string()) {
            Some(Binding::Local { v, ty, .. }) => Ok(Val { v, ty }),
            Some(Binding::Const(c)) => {
                let ty = match expect {
                    Some(t) if t.is_float() || t == S::I1 => {
                        return err(p, mismatch(t, "a const generic (an integer)"));
                    }
                    Some(t) => t,
                    None => S::U32,
                };
                Ok(Val {
                    v: b.const_int(ty, i64::from(c)),
                    ty,
                })
            }
            Some(Binding::ModuleConst(index)) => self.module_const(b, index, p),
            Some(Binding::Slice { .. }) => {
                err(p, format!("`{ident}` is a slice: index it, `{ident}[i]`"))
            }
            Some(Binding::Tile { ty, .. }) => err(p, tile_as_scalar(&ident.to_string(), ty)),
            Some(Binding::TensorMap(_)) => err(
                p,
                format!("`{ident}` is a tensor map: pass it to `copy_tensor` as `&{ident}`"),
            ),
            Some(Binding::Sym(_)) => err(
                p,
                format!(
                    "`{ident}` is a symmetric buffer: take a rank's copy, `{ident}.peer(rank)`"
                ),
            ),
            None => self.not_found(p, format!("cannot find value `{ident}` in this kernel")),
        }
    }

    fn unary(
        &mut self,
        b: &mut KernelBuilder,
        u: &syn::ExprUnary,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let t = expect.or_else(|| self.infer(&u.expr));
                let x = self.value(b, &u.expr, t)?;
                if !(x.ty.is_signed_int() || x.ty.is_float()) {
                    return err(u, format!("cannot negate a {}", rust_name(x.ty)));
                }
                Ok(Val {
                    v: b.unary(UnOp::Neg, x.v),
                    ty: x.ty,
                })
            }
            syn::UnOp::Not(_) => {
                let t = expect.or_else(|| self.infer(&u.expr));
                let x = self.value(b, &u.expr, t)?;
                if x.ty.is_float() {
                    return err(u, format!("cannot apply `!` to a {}", rust_name(x.ty)));
                }
                Ok(Val {
                    v: b.unary(UnOp::Not, x.v),
                    ty: x.ty,
                })
            }
            syn::UnOp::Deref(_) => match Lower::as_unchecked(&u.expr) {
                Some(m) => {
                    let e = self.unchecked_elem(b, m, false)?;
                    Ok(Lower::load_elem(b, e))
                }
                None => err(
                    u,
                    "dereferencing is not supported in kernels, except `*a.get_unchecked(i)`",
                ),
            },
            _ => err(u, "unsupported operator in a kernel"),
        }
    }

    fn binary(
        &mut self,
        b: &mut KernelBuilder,
        e: &syn::ExprBinary,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        use syn::BinOp as B;
        let (op, compound) = match e.op {
            B::Add(_) => (Some(BinOp::Add), false),
            B::Sub(_) => (Some(BinOp::Sub), false),
            B::Mul(_) => (Some(BinOp::Mul), false),
            B::Div(_) => (Some(BinOp::Div), false),
            B::Rem(_) => (Some(BinOp::Rem), false),
            B::BitAnd(_) => (Some(BinOp::And), false),
            B::BitOr(_) => (Some(BinOp::Or), false),
            B::BitXor(_) => (Some(BinOp::Xor), false),
            B::Shl(_) => (Some(BinOp::Shl), false),
            B::Shr(_) => (Some(BinOp::Shr), false),
            B::AddAssign(_) => (Some(BinOp::Add), true),
            B::SubAssign(_) => (Some(BinOp::Sub), true),
            B::MulAssign(_) => (Some(BinOp::Mul), true),
            B::DivAssign(_) => (Some(BinOp::Div), true),
            B::RemAssign(_) => (Some(BinOp::Rem), true),
            B::BitAndAssign(_) => (Some(BinOp::And), true),
            B::BitOrAssign(_) => (Some(BinOp::Or), true),
            B::BitXorAssign(_) => (Some(BinOp::Xor), true),
            B::ShlAssign(_) => (Some(BinOp::Shl), true),
            B::ShrAssign(_) => (Some(BinOp::Shr), true),
            _ => (None, false),
        };
        if compound {
            self.assign(b, &e.left, &e.right, Some((op.expect("mapped"), &e.op)))?;
            return Ok(None);
        }
        if let Some(op) = op {
            let t = expect.or_else(|| self.infer_pair(&e.left, &e.right));
            let l = self.value(b, &e.left, t)?;
            let r = self.right_operand(b, op, l.ty, &e.right)?;
            return Ok(Some(self.arith(b, op, l, r, &e.op)?));
        }
        let pred = match e.op {
            B::Eq(_) => Some(CmpPred::Eq),
            B::Ne(_) => Some(CmpPred::Ne),
            B::Lt(_) => Some(CmpPred::Lt),
            B::Le(_) => Some(CmpPred::Le),
            B::Gt(_) => Some(CmpPred::Gt),
            B::Ge(_) => Some(CmpPred::Ge),
            _ => None,
        };
        if let Some(t) = expect.filter(|t| *t != S::I1) {
            return err(e, mismatch(t, "bool"));
        }
        let v = if let Some(pred) = pred {
            let t = self.infer_pair(&e.left, &e.right);
            let l = self.value(b, &e.left, t)?;
            let r = self.value(b, &e.right, Some(l.ty))?;
            b.cmp(pred, l.v, r.v)
        } else {
            // `&&` and `||`: both sides are evaluated (documented in the crate docs).
            let l = self.value(b, &e.left, Some(S::I1))?;
            let r = self.value(b, &e.right, Some(S::I1))?;
            match e.op {
                B::And(_) => b.and(l.v, r.v),
                _ => b.or(l.v, r.v),
            }
        };
        Ok(Some(Val { v, ty: S::I1 }))
    }

    /// `l op r` after checking that `op` applies to their type.
    fn arith(
        &mut self,
        b: &mut KernelBuilder,
        op: BinOp,
        l: Val,
        r: Val,
        tokens: &syn::BinOp,
    ) -> Result<Val> {
        let t = l.ty;
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Min | BinOp::Max => {
                t != S::I1
            }
            BinOp::Rem | BinOp::Shl | BinOp::Shr => t.is_int() && t != S::I1,
            BinOp::And | BinOp::Or | BinOp::Xor => t.is_int(),
        };
        if !ok {
            let sym = quote::quote!(#tokens).to_string();
            return err(
                tokens,
                format!("`{sym}` cannot be applied to {}", rust_name(t)),
            );
        }
        Ok(Val {
            v: b.binary(op, l.v, r.v),
            ty: t,
        })
    }

    /// `left = right`, or `left op= right` when `compound` is given.
    fn assign(
        &mut self,
        b: &mut KernelBuilder,
        left: &Expr,
        right: &Expr,
        compound: Option<(BinOp, &syn::BinOp)>,
    ) -> Result<()> {
        match left {
            Expr::Path(p) => {
                let Some(ident) = p.path.get_ident() else {
                    return err(p, "only variables and slice elements can be assigned");
                };
                let name = ident.to_string();
                let (old, ty) = match self.lookup(&name) {
                    Some(Binding::Local {
                        mutable: true,
                        v,
                        ty,
                    }) => (v, ty),
                    Some(Binding::Local { mutable: false, .. }) => {
                        return err(
                            p,
                            format!(
                                "cannot assign twice to immutable variable `{name}`: declare it `let mut {name}`"
                            ),
                        );
                    }
                    Some(Binding::Slice { .. }) => {
                        return err(
                            p,
                            format!(
                                "cannot assign to slice `{name}`: assign its elements, `{name}[i] = ...`"
                            ),
                        );
                    }
                    Some(Binding::Const(_)) => {
                        return err(p, format!("cannot assign to const generic `{name}`"));
                    }
                    Some(Binding::ModuleConst(_)) => {
                        return err(p, format!("cannot assign to constant `{name}`"));
                    }
                    Some(Binding::TensorMap(_)) => {
                        return err(p, format!("cannot assign to tensor map `{name}`"));
                    }
                    Some(Binding::Sym(_)) => {
                        return err(p, format!("cannot assign to symmetric buffer `{name}`"));
                    }
                    Some(Binding::Tile { mutable, ty, .. }) => {
                        if !mutable {
                            return err(
                                p,
                                format!(
                                    "cannot assign twice to immutable variable `{name}`: declare it `let mut {name}`"
                                ),
                            );
                        }
                        if let Some((_, op)) = compound {
                            return err(op, tile_as_scalar(&name, ty));
                        }
                        let new = self.tile_arg(b, right, ty)?;
                        self.set_local(&name, new);
                        return Ok(());
                    }
                    None => {
                        return self
                            .not_found(p, format!("cannot find value `{name}` in this kernel"));
                    }
                };
                let new = self.combine(b, compound, Val { v: old, ty }, right)?;
                self.set_local(&name, new.v);
                Ok(())
            }
            Expr::Index(ix) => {
                let e = self.element(b, &ix.expr, &ix.index, true, ix)?;
                self.assign_elem(b, e, right, compound)
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                match Lower::as_unchecked(&u.expr) {
                    Some(m) => {
                        let e = self.unchecked_elem(b, m, true)?;
                        self.assign_elem(b, e, right, compound)
                    }
                    None => err(
                        u,
                        "only `*a.get_unchecked_mut(i)` can be assigned through `*`",
                    ),
                }
            }
            Expr::Paren(p) => self.assign(b, &p.expr, right, compound),
            other => err(other, "only variables and slice elements can be assigned"),
        }
    }

    /// The new value of a place that holds `old`: `right`, or `old op right` when `compound`
    /// is given.
    fn combine(
        &mut self,
        b: &mut KernelBuilder,
        compound: Option<(BinOp, &syn::BinOp)>,
        old: Val,
        right: &Expr,
    ) -> Result<Val> {
        let Some((op, tokens)) = compound else {
            return self.value(b, right, Some(old.ty));
        };
        let r = self.right_operand(b, op, old.ty, right)?;
        self.arith(b, op, old, r, tokens)
    }

    /// The right operand of `op` whose left operand is a `left`: of that type, except that a
    /// shift amount may be any integer type and is cast to it.
    fn right_operand(
        &mut self,
        b: &mut KernelBuilder,
        op: BinOp,
        left: ScalarType,
        right: &Expr,
    ) -> Result<Val> {
        if !matches!(op, BinOp::Shl | BinOp::Shr) {
            return self.value(b, right, Some(left));
        }
        let amount_ty = self
            .infer(right)
            .filter(|t| t.is_int() && *t != S::I1)
            .unwrap_or(left);
        let amount = self.value(b, right, Some(amount_ty))?;
        if amount.ty == left {
            return Ok(amount);
        }
        Ok(Val {
            v: b.cast(amount.v, left),
            ty: left,
        })
    }

    /// `e = right` (or `e op= right`, `compound`), checked.
    fn assign_elem(
        &mut self,
        b: &mut KernelBuilder,
        e: Elem,
        right: &Expr,
        compound: Option<(BinOp, &syn::BinOp)>,
    ) -> Result<()> {
        let new = match compound {
            Some(_) => {
                let current = Elem {
                    bound: e.bound.clone(),
                    ..e
                };
                let old = Lower::load_elem(b, current);
                self.combine(b, compound, old, right)?
            }
            None => self.value(b, right, Some(e.elem))?,
        };
        Lower::store_elem(b, e, new.v);
        Ok(())
    }
}
