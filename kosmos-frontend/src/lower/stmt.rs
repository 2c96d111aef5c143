//! Statements: blocks and their scopes, expression statements and `let` bindings (of
//! scalars, tiles, shared arrays, and ranks' copies of symmetric buffers, `x.peer(rank)`).

use super::intrinsics::{Call, Lowering, intrinsic};
use super::{Binding, Lower, Val, err, strip_parens};
use crate::sig::scalar_type;
use kosmos_ir::{AddrSpace, KernelBuilder, ScalarType};
use std::collections::HashMap;
use syn::{Expr, Result};

impl Lower {
    pub(super) fn block(
        &mut self,
        b: &mut KernelBuilder,
        block: &syn::Block,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        self.scopes.push(HashMap::new());
        let r = self.stmts(b, &block.stmts, expect);
        self.scopes.pop();
        r
    }

    /// Lowers `stmts`; the value of the tail expression, if any, is the result.
    pub(super) fn stmts(
        &mut self,
        b: &mut KernelBuilder,
        stmts: &[syn::Stmt],
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let mut result = None;
        for (i, stmt) in stmts.iter().enumerate() {
            if self.terminated || self.continued {
                return err(
                    stmt,
                    "unreachable code after `break`, `continue` or `return`",
                );
            }
            if i > 0 && self.may_have_continued(&stmts[i - 1]) {
                return self.unless_continued(b, &stmts[i..], expect);
            }
            match stmt {
                syn::Stmt::Local(local) => self.local(b, local)?,
                syn::Stmt::Expr(e, None) if i + 1 == stmts.len() => {
                    result = self.expr(b, e, expect)?;
                }
                syn::Stmt::Expr(e, _) => {
                    self.expr(b, e, None)?;
                }
                syn::Stmt::Item(item) => {
                    return err(
                        item,
                        "items (fn, struct, use, ...) are not supported in kernels",
                    );
                }
                syn::Stmt::Macro(m) => return err(m, "macros are not supported in kernels"),
            }
        }
        Ok(result)
    }

    fn local(&mut self, b: &mut KernelBuilder, local: &syn::Local) -> Result<()> {
        let (pat, ann) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let syn::Pat::Ident(pi) = pat else {
            return err(
                pat,
                "only `let name` and `let mut name` bind variables in kernels",
            );
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            return err(
                pi,
                "only `let name` and `let mut name` bind variables in kernels",
            );
        }
        let Some(init) = &local.init else {
            return err(local, "give the variable a value: `let x = ...;`");
        };
        if let Some((_, diverge)) = &init.diverge {
            return err(diverge, "`let ... else` is not supported in kernels");
        }
        let name = pi.ident.to_string();
        if let Some((ptr, elem, len)) = self.sym_view(b, &init.expr)? {
            if ann.is_some() {
                return err(
                    ann,
                    "a rank's copy of a symmetric buffer takes its type from it",
                );
            }
            let binding = Binding::Slice {
                ptr,
                elem,
                writable: true,
                space: AddrSpace::Global,
                len,
            };
            self.bind(name, binding);
            return Ok(());
        }
        if let Expr::Call(c) = strip_parens(&init.expr)
            && let Some(call) = Call::of(c)
            && let Some(Lowering::Let(form, lower)) = intrinsic(&call.name).map(|i| &i.lowering)
        {
            if ann.is_some() {
                return err(
                    ann,
                    format!("{} take their type from `{}`", form.binds, form.call),
                );
            }
            let binding = lower(self, b, &call, &name)?;
            self.bind(name, binding);
            return Ok(());
        }
        if let Some((v, ty)) = self.tile(b, &init.expr)? {
            if let Some(ann) = ann {
                return err(
                    ann,
                    "fragments and vectors take their type from the intrinsic that makes them: drop the annotation",
                );
            }
            let mutable = pi.mutability.is_some();
            self.bind(name, Binding::Tile { v, ty, mutable });
            return Ok(());
        }
        let expect = ann.map(|t| scalar_type(t, "variable")).transpose()?;
        let expect = expect
            .or_else(|| self.static_ty(&init.expr))
            .or_else(|| self.inferred.of(local))
            .or_else(|| self.default_ty(&init.expr));
        let val = self.value(b, &init.expr, expect)?;
        self.bind(
            name,
            Binding::Local {
                v: val.v,
                ty: val.ty,
                mutable: pi.mutability.is_some(),
            },
        );
        Ok(())
    }
}
