//! Types before and without lowering: literals (which take the type their context
//! expects), the static types that decide what an unannotated expression is, and constant
//! expressions (shared array lengths, `async_wait` counts, symmetric buffer indices).

use super::intrinsics::{Call, Lowering, ResultTy, intrinsic};
use super::tiles::TileTy;
use super::{Binding, Lower, Val, err, math, mismatch, tail_expr};
use crate::sig::{rust_name, scalar_of_name, scalar_type};
use kosmos_ir::{Constant, KernelBuilder, ScalarType};
use syn::{Error, Expr, Result};

use ScalarType as S;

impl Lower {
    pub(super) fn literal(
        &mut self,
        b: &mut KernelBuilder,
        lit: &syn::ExprLit,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let suffix_type = |suffix: &str| -> Result<Option<ScalarType>> {
            if suffix.is_empty() {
                return Ok(None);
            }
            match scalar_of_name(suffix) {
                Some(t) if t != S::I1 => Ok(Some(t)),
                _ => err(lit, format!("unsupported literal suffix `{suffix}`")),
            }
        };
        match &lit.lit {
            syn::Lit::Int(i) => {
                let ty = match (suffix_type(i.suffix())?, expect) {
                    (Some(t), _) => t,
                    (None, Some(t)) if t.is_float() || t == S::I1 => {
                        return err(lit, mismatch(t, "integer literal"));
                    }
                    (None, Some(t)) => t,
                    (None, None) => S::I32,
                };
                if ty.is_float() {
                    let v: f64 = i.base10_parse()?;
                    return Ok(Val {
                        v: b.constant(Constant::float(ty, v)),
                        ty,
                    });
                }
                let v: u64 = i.base10_parse()?;
                // Signed types admit 2^(bits-1) so that `-2147483648` reads as i32::MIN.
                let max = if ty.is_signed_int() {
                    1u64 << (ty.bits() - 1)
                } else if ty.bits() == 64 {
                    u64::MAX
                } else {
                    (1u64 << ty.bits()) - 1
                };
                if v > max {
                    return err(lit, format!("literal out of range for {}", rust_name(ty)));
                }
                Ok(Val {
                    v: b.const_int(ty, v as i64),
                    ty,
                })
            }
            syn::Lit::Float(f) => {
                let ty = match (suffix_type(f.suffix())?, expect) {
                    (Some(t), _) => t,
                    (None, Some(t)) if !t.is_float() => {
                        return err(lit, mismatch(t, "floating-point literal"));
                    }
                    (None, Some(t)) => t,
                    (None, None) => S::F64,
                };
                if !ty.is_float() {
                    return err(lit, format!("a float literal cannot be {}", rust_name(ty)));
                }
                let v: f64 = f.base10_parse()?;
                Ok(Val {
                    v: b.constant(Constant::float(ty, v)),
                    ty,
                })
            }
            syn::Lit::Bool(bo) => {
                if let Some(t) = expect.filter(|t| *t != S::I1) {
                    return err(lit, mismatch(t, "bool"));
                }
                Ok(Val {
                    v: b.const_bool(bo.value),
                    ty: S::I1,
                })
            }
            other => err(other, "unsupported literal in a kernel"),
        }
    }

    /// Evaluates a constant expression of literals, const generics and integer module
    /// constants; `what` names it in the error for anything else.
    pub(super) fn const_eval(&self, e: &Expr, what: &str) -> Result<u64> {
        self.const_eval_in(e, what, None)
    }

    /// [`Lower::const_eval`]; in a module constant's expression (`item_depth`: how many
    /// constants deep) names are other module constants only.
    fn const_eval_in(&self, e: &Expr, what: &str, item_depth: Option<usize>) -> Result<u64> {
        let fail = || err(e, non_constant(what));
        let eval = |e: &Expr| self.const_eval_in(e, what, item_depth);
        match e {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse(),
            Expr::Paren(p) => eval(&p.expr),
            Expr::Group(g) => eval(&g.expr),
            Expr::Block(bl) if bl.block.stmts.len() == 1 => match &bl.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => eval(inner),
                _ => fail(),
            },
            Expr::Path(p) => {
                let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
                    return fail();
                };
                let binding = match item_depth {
                    Some(_) => self
                        .items
                        .constant(&name)
                        .map(|(i, _)| Binding::ModuleConst(i)),
                    None => self.lookup(&name),
                };
                match binding {
                    Some(Binding::Const(v)) => Ok(u64::from(v)),
                    Some(Binding::ModuleConst(index)) => {
                        let c = &self.items.consts[index];
                        let depth = item_depth.map_or(0, |d| d + 1);
                        if depth > self.items.consts.len() {
                            return err(e, format!("constant `{name}` is defined by itself"));
                        }
                        if !c.ty.is_int() || c.ty == S::I1 {
                            return fail();
                        }
                        self.const_eval_in(&c.expr, what, Some(depth))
                    }
                    _ => fail(),
                }
            }
            Expr::Binary(bin) => {
                let (l, r) = (eval(&bin.left)?, eval(&bin.right)?);
                let v = match bin.op {
                    syn::BinOp::Add(_) => l.checked_add(r),
                    syn::BinOp::Sub(_) => l.checked_sub(r),
                    syn::BinOp::Mul(_) => l.checked_mul(r),
                    syn::BinOp::Div(_) => l.checked_div(r),
                    syn::BinOp::Rem(_) => l.checked_rem(r),
                    syn::BinOp::Shl(_) => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                    syn::BinOp::Shr(_) => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
                    _ => return fail(),
                };
                v.ok_or_else(|| Error::new_spanned(e, "this constant overflows"))
            }
            _ => fail(),
        }
    }

    /// The type `e` has regardless of context, where it can be told without lowering it:
    /// unsuffixed literals and const generics have none (they adapt), except that when
    /// nothing else decides, an integer literal is `i32`, a float literal `f64` and a const
    /// generic `u32` (the types of `let` variables initialised so are inferred from their
    /// uses beforehand: `infer`).
    pub(super) fn infer(&self, e: &Expr) -> Option<ScalarType> {
        self.static_ty(e).or_else(|| self.default_ty(e))
    }

    /// The common type of two operands: a static type of either, else a const generic's
    /// `u32` over a literal's default.
    pub(super) fn infer_pair(&self, a: &Expr, b: &Expr) -> Option<ScalarType> {
        let (da, db) = (self.default_ty(a), self.default_ty(b));
        self.static_ty(a)
            .or_else(|| self.static_ty(b))
            .or_else(|| [da, db].into_iter().flatten().find(|t| *t == S::U32))
            .or(da)
            .or(db)
    }

    pub(super) fn default_ty(&self, e: &Expr) -> Option<ScalarType> {
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(_) => Some(S::I32),
                syn::Lit::Float(_) => Some(S::F64),
                _ => None,
            },
            Expr::Path(_) => Some(S::U32),
            Expr::Paren(p) => self.default_ty(&p.expr),
            Expr::Unary(u) => self.default_ty(&u.expr),
            Expr::Binary(bin) => {
                let (l, r) = (self.default_ty(&bin.left), self.default_ty(&bin.right));
                [l, r]
                    .into_iter()
                    .flatten()
                    .find(|t| *t == S::U32)
                    .or(l)
                    .or(r)
            }
            _ => None,
        }
    }

    pub(super) fn static_ty(&self, e: &Expr) -> Option<ScalarType> {
        use syn::BinOp as B;
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => scalar_of_name(i.suffix()),
                syn::Lit::Float(f) => scalar_of_name(f.suffix()),
                syn::Lit::Bool(_) => Some(S::I1),
                _ => None,
            },
            Expr::Path(p) if p.path.get_ident().is_none() => {
                Some(math::associated_const(&p.path).ok()??.ty)
            }
            Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Local { ty, .. } => Some(ty),
                Binding::ModuleConst(index) => Some(self.items.consts[index].ty),
                _ => None,
            },
            Expr::Paren(p) => self.static_ty(&p.expr),
            Expr::Group(g) => self.static_ty(&g.expr),
            Expr::Cast(c) => scalar_type(&c.ty, "cast target").ok(),
            Expr::Index(ix) => match &*ix.expr {
                Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                    Binding::Slice { elem, .. } => Some(elem),
                    _ => None,
                },
                // A rank's copy of a symmetric buffer, `x.peer(rank)[i]`.
                base => Some(self.sym_method(base)?.1.elem),
            },
            Expr::Binary(bin) => match bin.op {
                B::Eq(_)
                | B::Ne(_)
                | B::Lt(_)
                | B::Le(_)
                | B::Gt(_)
                | B::Ge(_)
                | B::And(_)
                | B::Or(_) => Some(S::I1),
                B::Shl(_) | B::Shr(_) => self.static_ty(&bin.left),
                _ => self
                    .static_ty(&bin.left)
                    .or_else(|| self.static_ty(&bin.right)),
            },
            Expr::Unary(u) => self.static_ty(&u.expr),
            Expr::MethodCall(m) if m.method == "len" => Some(S::U64),
            Expr::MethodCall(m) if Lower::as_unchecked(e).is_some() => {
                match self.lookup(&path_ident(&m.receiver)?.to_string())? {
                    Binding::Slice { elem, .. } => Some(elem),
                    _ => None,
                }
            }
            // The exponent is an `i32` whatever the base.
            Expr::MethodCall(m) if m.method == "powi" => self.static_ty(&m.receiver),
            Expr::MethodCall(m) => self
                .static_ty(&m.receiver)
                .or_else(|| m.args.iter().find_map(|a| self.static_ty(a))),
            Expr::Call(c) if self.items.device(&Call::of(c)?.name).is_some() => {
                self.items.device(&Call::of(c)?.name)?.ret.scalar()
            }
            Expr::Call(c) => match &intrinsic(&Call::of(c)?.name)?.lowering {
                Lowering::Scalar(ResultTy::Fixed(t), _) => Some(*t),
                Lowering::Scalar(ResultTy::Element, _) => match c.args.first()? {
                    Expr::Reference(r) => self.static_ty(&r.expr),
                    unchecked @ Expr::MethodCall(_) => self.static_ty(unchecked),
                    _ => None,
                },
                Lowering::Scalar(ResultTy::Operands, _) => {
                    c.args.iter().find_map(|a| self.static_ty(a))
                }
                Lowering::Scalar(ResultTy::First, _) => self.static_ty(c.args.first()?),
                Lowering::Scalar(ResultTy::Lane, _) => {
                    match self.lookup(&path_ident(c.args.first()?)?.to_string())? {
                        Binding::Tile {
                            ty: TileTy::Vector { elem, .. },
                            ..
                        } => Some(elem),
                        _ => None,
                    }
                }
                Lowering::Effect(_) | Lowering::Tile(_) | Lowering::Let(..) => None,
            },
            Expr::If(i) => tail_expr(&i.then_branch)
                .and_then(|t| self.static_ty(t))
                .or_else(|| self.static_ty(&i.else_branch.as_ref()?.1)),
            Expr::Block(bl) => self.static_ty(tail_expr(&bl.block)?),
            Expr::Unsafe(u) => self.static_ty(tail_expr(&u.block)?),
            _ => None,
        }
    }
}

/// The name `e` is, if it is a plain name.
fn path_ident(e: &Expr) -> Option<&syn::Ident> {
    match e {
        Expr::Path(p) => p.path.get_ident(),
        _ => None,
    }
}

/// The message for a non-constant where `what` must be a constant.
pub(super) fn non_constant(what: &str) -> String {
    format!("{what} must be a constant: literals, const generics and integer `const` items only")
}
