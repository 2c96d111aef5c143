//! Control flow: `if`/`else` (also as a value), `for` over ranges, `while`, `loop` with
//! `break` (and `break value`), and the IR regions they lower to, whose results and carried
//! values are the outer variables the body assigns.

use super::intrinsics::{Call, Lowering, intrinsic};
use super::{Binding, Lower, Val, err, mismatch, strip_parens, tail_expr};
use crate::sig::rust_name;
use kosmos_ir::{KernelBuilder, ScalarType, Type, UnOp, Value};
use std::collections::HashMap;
use syn::visit::Visit;
use syn::{Expr, Result};

use ScalarType as S;

/// The kind of loop a `break` would leave.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum LoopKind {
    For,
    While,
    Loop,
}

/// The hidden variable of a loop body with `continue`: whether the iteration continued, so
/// that the rest of the body is skipped. A keyword, so that no variable of the kernel has
/// its name.
const CONTINUED: &str = "continue";

/// An enclosing loop: what its `break`s must yield.
pub(super) struct LoopCtx {
    kind: LoopKind,
    carried: Vec<String>,
    value_ty: Option<ScalarType>,
}

impl Lower {
    /// Outer mutable locals assigned in the syntax that `visit` walks: the values a region
    /// must yield.
    pub(super) fn assigned_outer(&self, visit: impl FnOnce(&mut Assigned)) -> Vec<String> {
        let mut a = Assigned(Vec::new());
        visit(&mut a);
        let mut names: Vec<String> = Vec::new();
        for n in a.0 {
            if matches!(
                self.lookup(&n),
                Some(Binding::Local { mutable: true, .. } | Binding::Tile { mutable: true, .. })
            ) && !names.contains(&n)
            {
                names.push(n);
            }
        }
        names
    }

    /// Runs `f` as the body of an IR region; an error is parked in `failed` and the region
    /// closes empty (the kernel is discarded).
    pub(super) fn region(
        &mut self,
        b: &mut KernelBuilder,
        failed: &mut Result<()>,
        f: impl FnOnce(&mut Self, &mut KernelBuilder) -> Result<Vec<Value>>,
    ) -> Vec<Value> {
        if failed.is_err() {
            return Vec::new();
        }
        self.depth += 1;
        let outer_terminated = std::mem::replace(&mut self.terminated, false);
        let outer_continued = std::mem::replace(&mut self.continued, false);
        let r = f(self, b);
        let terminated = std::mem::replace(&mut self.terminated, outer_terminated);
        self.continued = outer_continued;
        self.depth -= 1;
        match r {
            Ok(_) if terminated => Vec::new(),
            Ok(v) => v,
            Err(e) => {
                *failed = Err(e);
                Vec::new()
            }
        }
    }

    /// A loop region: binds the `carried` locals to the region's arguments, runs `body`, and
    /// yields the locals' values at its end.
    fn loop_region(
        &mut self,
        b: &mut KernelBuilder,
        failed: &mut Result<()>,
        carried: &[String],
        args: &[Value],
        body: impl FnOnce(&mut Self, &mut KernelBuilder) -> Result<()>,
    ) -> Vec<Value> {
        self.region(b, failed, |l, b| {
            for (name, v) in carried.iter().zip(args) {
                l.set_local(name, *v);
            }
            body(l, b)?;
            Ok(l.carried_values(carried))
        })
    }

    /// Lowers a loop's body with `ctx` as the loop its `break`s leave. A body with
    /// `continue` has its own [`CONTINUED`] flag, false at the start of each iteration.
    fn loop_body(&mut self, b: &mut KernelBuilder, ctx: LoopCtx, body: &syn::Block) -> Result<()> {
        self.loops.push(ctx);
        self.scopes.push(HashMap::new());
        let mut finder = Continues(false);
        finder.visit_block(body);
        if finder.0 {
            let no = b.const_bool(false);
            self.bind(
                CONTINUED.into(),
                Binding::Local {
                    v: no,
                    ty: S::I1,
                    mutable: true,
                },
            );
        }
        let r = self.block(b, body, None);
        self.scopes.pop();
        self.loops.pop();
        r.map(drop)
    }

    /// `continue`: sets the loop's flag; the rest of the body runs only where it is unset.
    pub(super) fn continue_(&mut self, b: &mut KernelBuilder, c: &syn::ExprContinue) -> Result<()> {
        no_label(&c.label)?;
        if self.loops.is_empty() {
            return err(c, "`continue` outside of a loop");
        }
        let yes = b.const_bool(true);
        self.set_local(CONTINUED, yes);
        self.continued = true;
        Ok(())
    }

    /// Whether `stmt` may have continued the enclosing loop (it contains a `continue` of it).
    pub(super) fn may_have_continued(&self, stmt: &syn::Stmt) -> bool {
        if self.lookup(CONTINUED).is_none() {
            return false;
        }
        let mut finder = Continues(false);
        finder.visit_stmt(stmt);
        finder.0
    }

    /// `rest`, the statements after one that may have continued the loop, lowered in an
    /// `if` on the loop's flag; their assignments to outer variables are its results.
    pub(super) fn unless_continued(
        &mut self,
        b: &mut KernelBuilder,
        rest: &[syn::Stmt],
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let (flag, _) = self.local_val(CONTINUED);
        let carried = self.assigned_outer(|a| rest.iter().for_each(|s| a.visit_stmt(s)));
        let saved = self.carried_vals(&carried);
        let types: Vec<Type> = saved.iter().map(|v| v.1).collect();
        let mut failed = Ok(());
        let results = b.if_else(
            flag,
            &types,
            |_| saved.iter().map(|v| v.0).collect(),
            |b| {
                self.region(b, &mut failed, |l, b| {
                    l.scopes.push(HashMap::new());
                    let value = l.stmts(b, rest, expect);
                    l.scopes.pop();
                    if let (Some(v), Some(last)) = (value?, rest.last()) {
                        return err(
                            last,
                            format!(
                                "a block that may `continue` cannot end in a {} value",
                                rust_name(v.ty)
                            ),
                        );
                    }
                    Ok(l.carried_values(&carried))
                })
            },
        );
        self.close_region(failed, &carried, &results, None)
    }

    /// After a region: reports the error it parked, rebinds the `carried` locals to its
    /// results, and gives its value (the last result) when it has a `value_ty`.
    fn close_region(
        &mut self,
        failed: Result<()>,
        carried: &[String],
        results: &[Value],
        value_ty: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        failed?;
        self.rebind(carried, results);
        Ok(value_ty.map(|ty| Val {
            v: *results.last().expect("the region's value"),
            ty,
        }))
    }

    /// The current values of the `carried` locals.
    fn carried_values(&self, carried: &[String]) -> Vec<Value> {
        self.carried_vals(carried).iter().map(|v| v.0).collect()
    }

    pub(super) fn if_expr(
        &mut self,
        b: &mut KernelBuilder,
        e: &syn::ExprIf,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let cond = self.value(b, &e.cond, Some(S::I1))?;
        let then_tail = tail_expr(&e.then_branch);
        let value_ty = match then_tail.filter(|t| produces_value(t)) {
            Some(tail) => {
                let Some((_, else_expr)) = &e.else_branch else {
                    return err(
                        tail,
                        "an `if` without `else` has no value: add an `else` branch",
                    );
                };
                Some(
                    expect
                        .or_else(|| self.infer(tail))
                        .or_else(|| self.infer(else_expr))
                        .unwrap_or(S::I32),
                )
            }
            None => None,
        };
        let yields =
            |l: &mut Self, v: Option<Val>, tokens: &dyn quote::ToTokens| match (value_ty, v) {
                (Some(_), Some(v)) => Ok(Some(v.v)),
                (Some(t), None) if !l.terminated => err(tokens, mismatch(t, "`()`")),
                _ => Ok(None),
            };
        let value = self.if_regions(
            b,
            cond.v,
            e,
            value_ty.map(Type::Scalar),
            |l, b| {
                let v = l.block(b, &e.then_branch, value_ty)?;
                yields(l, v, &e.then_branch)
            },
            |l, b| match &e.else_branch {
                Some((_, else_expr)) => {
                    let v = l.expr(b, else_expr, value_ty)?;
                    yields(l, v, else_expr)
                }
                None => yields(l, None, &e.then_branch),
            },
        )?;
        Ok(value_ty.map(|ty| Val {
            v: value.expect("the region's value"),
            ty,
        }))
    }

    /// The IR `if` on `cond` of the syntax `e`: each branch a region, lowered by `then` and
    /// `otherwise` (the else branch from the outer variables' values before the `if`),
    /// yielding the outer variables it assigns and then the value it gives (of type
    /// `value`, if the `if` has one); the variables are rebound to the results, and the
    /// value is returned.
    pub(super) fn if_regions(
        &mut self,
        b: &mut KernelBuilder,
        cond: Value,
        e: &syn::ExprIf,
        value: Option<Type>,
        then: impl FnOnce(&mut Self, &mut KernelBuilder) -> Result<Option<Value>>,
        otherwise: impl FnOnce(&mut Self, &mut KernelBuilder) -> Result<Option<Value>>,
    ) -> Result<Option<Value>> {
        let carried = self.assigned_outer(|a| a.visit_expr_if(e));
        let saved = self.carried_vals(&carried);
        let mut types: Vec<Type> = saved.iter().map(|v| v.1).collect();
        types.extend(value);
        let mut failed = Ok(());
        // Both branch closures need the lowering state; the builder runs them one at a time.
        let state = std::cell::RefCell::new((&mut *self, &mut failed));
        let results = {
            let state = &state;
            b.if_else(
                cond,
                &types,
                |b| {
                    let (l, failed) = &mut *state.borrow_mut();
                    l.region(b, failed, |l, b| {
                        let v = then(l, b)?;
                        Ok(l.carried_values(&carried).into_iter().chain(v).collect())
                    })
                },
                |b| {
                    let (l, failed) = &mut *state.borrow_mut();
                    for (name, v) in carried.iter().zip(&saved) {
                        l.set_local(name, v.0);
                    }
                    l.region(b, failed, |l, b| {
                        let v = otherwise(l, b)?;
                        Ok(l.carried_values(&carried).into_iter().chain(v).collect())
                    })
                },
            )
        };
        failed?;
        self.rebind(&carried, &results);
        Ok(value.map(|_| *results.last().expect("the region's value")))
    }

    pub(super) fn for_loop(&mut self, b: &mut KernelBuilder, f: &syn::ExprForLoop) -> Result<()> {
        no_label(&f.label)?;
        let var = match &*f.pat {
            syn::Pat::Ident(pi) if pi.mutability.is_none() && pi.subpat.is_none() => {
                Some(pi.ident.to_string())
            }
            syn::Pat::Wild(_) => None,
            p => return err(p, "the loop variable is a plain name"),
        };
        let (range, step) = match strip_parens(&f.expr) {
            Expr::MethodCall(m) if m.method == "step_by" => {
                if m.args.len() != 1 {
                    return err(m, "`step_by` takes one argument");
                }
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            other => (other, None),
        };
        let Expr::Range(range) = range else {
            return err(
                &f.expr,
                "`for` loops run over a range: `for i in a..b` or `(a..b).step_by(s)`",
            );
        };
        if let syn::RangeLimits::Closed(t) = range.limits {
            return err(t, "inclusive ranges are not supported: write `a..b + 1`");
        }
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return err(range, "`for` ranges need both bounds: `a..b`");
        };
        let t = [&**start, &**end]
            .into_iter()
            .chain(step)
            .find_map(|e| self.static_ty(e))
            .or_else(|| self.inferred.of(f))
            .or_else(|| self.infer_pair(start, end))
            .unwrap_or(S::I32);
        if !t.is_int() || t == S::I1 {
            return err(
                range,
                format!("range bounds are integers, found {}", rust_name(t)),
            );
        }
        let lb = self.value(b, start, Some(t))?;
        let ub = self.value(b, end, Some(t))?;
        let step = match step {
            Some(s) => self.value(b, s, Some(t))?.v,
            None => b.const_int(t, 1),
        };
        let carried = self.assigned_outer(|a| a.visit_expr_for_loop(f));
        let inits = self.carried_values(&carried);
        let mut failed = Ok(());
        let results = b.for_range(lb.v, ub.v, step, &inits, |b, iv, args| {
            self.loop_region(b, &mut failed, &carried, args, |l, b| {
                l.scopes.push(HashMap::new());
                if let Some(var) = &var {
                    l.bind(
                        var.clone(),
                        Binding::Local {
                            v: iv,
                            ty: t,
                            mutable: false,
                        },
                    );
                }
                let ctx = LoopCtx {
                    kind: LoopKind::For,
                    carried: carried.clone(),
                    value_ty: None,
                };
                let r = l.loop_body(b, ctx, &f.body);
                l.scopes.pop();
                r
            })
        });
        self.close_region(failed, &carried, &results, None)?;
        Ok(())
    }

    pub(super) fn while_loop(&mut self, b: &mut KernelBuilder, w: &syn::ExprWhile) -> Result<()> {
        no_label(&w.label)?;
        let carried = self.assigned_outer(|a| a.visit_expr_while(w));
        let vals = self.carried_vals(&carried);
        let inits: Vec<Value> = vals.iter().map(|v| v.0).collect();
        let types: Vec<Type> = vals.iter().map(|v| v.1).collect();
        let mut failed = Ok(());
        let results = b.loop_(&inits, &types, |b, args| {
            self.loop_region(b, &mut failed, &carried, args, |l, b| {
                let cond = l.value(b, &w.cond, Some(S::I1))?;
                let done = b.unary(UnOp::Not, cond.v);
                let current = args.to_vec();
                b.if_then(done, |b| b.break_(&current));
                let ctx = LoopCtx {
                    kind: LoopKind::While,
                    carried: carried.clone(),
                    value_ty: None,
                };
                l.loop_body(b, ctx, &w.body)
            })
        });
        self.close_region(failed, &carried, &results, None)?;
        Ok(())
    }

    pub(super) fn loop_expr(
        &mut self,
        b: &mut KernelBuilder,
        lp: &syn::ExprLoop,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        no_label(&lp.label)?;
        let mut breaks = BreakValues(Vec::new());
        breaks.visit_block(&lp.body);
        let value_ty = breaks.0.first().map(|first| {
            expect
                .or_else(|| breaks.0.iter().find_map(|e| self.infer(e)))
                .or_else(|| self.infer(first))
                .unwrap_or(S::I32)
        });
        let carried = self.assigned_outer(|a| a.visit_expr_loop(lp));
        let vals = self.carried_vals(&carried);
        let inits: Vec<Value> = vals.iter().map(|v| v.0).collect();
        let mut types: Vec<Type> = vals.iter().map(|v| v.1).collect();
        types.extend(value_ty.map(Type::Scalar));
        let mut failed = Ok(());
        let results = b.loop_(&inits, &types, |b, args| {
            self.loop_region(b, &mut failed, &carried, args, |l, b| {
                let ctx = LoopCtx {
                    kind: LoopKind::Loop,
                    carried: carried.clone(),
                    value_ty,
                };
                l.loop_body(b, ctx, &lp.body)
            })
        });
        self.close_region(failed, &carried, &results, value_ty)
    }

    pub(super) fn break_(&mut self, b: &mut KernelBuilder, br: &syn::ExprBreak) -> Result<()> {
        no_label(&br.label)?;
        let Some(ctx) = self.loops.last() else {
            return err(br, "`break` outside of a loop");
        };
        if ctx.kind == LoopKind::For {
            return err(
                br,
                "`break` cannot leave a `for` loop (its IR form has no early exit): use `while` or `loop`",
            );
        }
        let (carried, value_ty) = (ctx.carried.clone(), ctx.value_ty);
        let mut values = self.carried_values(&carried);
        match (&br.expr, value_ty) {
            (Some(e), Some(t)) => values.push(self.value(b, e, Some(t))?.v),
            (Some(e), None) => return err(e, "`break` with a value is only allowed in `loop`"),
            (None, Some(t)) => {
                return err(
                    br,
                    format!(
                        "this `loop` has a {} value: write `break value`",
                        rust_name(t)
                    ),
                );
            }
            (None, None) => {}
        }
        b.break_(&values);
        self.terminated = true;
        Ok(())
    }
}

/// Names assigned (`x = ...`, `x += ...`) anywhere in a syntax tree, and the [`CONTINUED`]
/// flag of the loop around it where it has a `continue` of that loop.
pub(super) struct Assigned(Vec<String>);

impl<'ast> Visit<'ast> for Assigned {
    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        self.0.push(CONTINUED.into());
    }
    // The `continue`s of inner loops set their own flags.
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        let outer = self.0.len();
        syn::visit::visit_expr_for_loop(self, f);
        drop_flags(&mut self.0, outer);
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let outer = self.0.len();
        syn::visit::visit_expr_while(self, w);
        drop_flags(&mut self.0, outer);
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        let outer = self.0.len();
        syn::visit::visit_expr_loop(self, l);
        drop_flags(&mut self.0, outer);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Expr::Path(p) = &*a.left
            && let Some(i) = p.path.get_ident()
        {
            self.0.push(i.to_string());
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, bin: &'ast syn::ExprBinary) {
        if is_compound_assign(&bin.op)
            && let Expr::Path(p) = &*bin.left
            && let Some(i) = p.path.get_ident()
        {
            self.0.push(i.to_string());
        }
        syn::visit::visit_expr_binary(self, bin);
    }
}

/// Removes the [`CONTINUED`] flags recorded after `from`: those of an inner loop.
fn drop_flags(names: &mut Vec<String>, from: usize) {
    let inner = names.split_off(from);
    names.extend(inner.into_iter().filter(|n| n != CONTINUED));
}

/// Whether a syntax tree has a `continue` of the loop around it (not of nested loops).
struct Continues(bool);

impl<'ast> Visit<'ast> for Continues {
    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        self.0 = true;
    }
    fn visit_expr_loop(&mut self, _: &'ast syn::ExprLoop) {}
    fn visit_expr_while(&mut self, _: &'ast syn::ExprWhile) {}
    fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {}
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}

/// The values of the `break`s that leave one `loop` (not those of nested loops).
struct BreakValues<'ast>(Vec<&'ast Expr>);

impl<'ast> Visit<'ast> for BreakValues<'ast> {
    fn visit_expr_break(&mut self, br: &'ast syn::ExprBreak) {
        if let Some(e) = &br.expr {
            self.0.push(e);
        }
    }
    fn visit_expr_loop(&mut self, _: &'ast syn::ExprLoop) {}
    fn visit_expr_while(&mut self, _: &'ast syn::ExprWhile) {}
    fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {}
}

/// Whether a block's tail expression gives the block a value (rather than being a statement
/// written without its semicolon).
fn produces_value(e: &Expr) -> bool {
    match e {
        Expr::Assign(_)
        | Expr::ForLoop(_)
        | Expr::While(_)
        | Expr::Break(_)
        | Expr::Return(_)
        | Expr::Continue(_) => false,
        Expr::Binary(b) => !is_compound_assign(&b.op),
        Expr::If(i) => {
            i.else_branch.is_some() && tail_expr(&i.then_branch).is_some_and(produces_value)
        }
        Expr::Block(b) => tail_expr(&b.block).is_some_and(produces_value),
        Expr::Unsafe(u) => tail_expr(&u.block).is_some_and(produces_value),
        Expr::Paren(p) => produces_value(&p.expr),
        Expr::Loop(l) => {
            let mut breaks = BreakValues(Vec::new());
            breaks.visit_block(&l.body);
            !breaks.0.is_empty()
        }
        Expr::Call(c) => !Call::of(c)
            .and_then(|call| intrinsic(&call.name))
            .is_some_and(|i| matches!(i.lowering, Lowering::Effect(_))),
        _ => true,
    }
}

/// `x op= y`: an assignment to `x`.
fn is_compound_assign(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::AddAssign(_)
            | syn::BinOp::SubAssign(_)
            | syn::BinOp::MulAssign(_)
            | syn::BinOp::DivAssign(_)
            | syn::BinOp::RemAssign(_)
            | syn::BinOp::BitAndAssign(_)
            | syn::BinOp::BitOrAssign(_)
            | syn::BinOp::BitXorAssign(_)
            | syn::BinOp::ShlAssign(_)
            | syn::BinOp::ShrAssign(_)
    )
}

/// Rejects a loop's label or a `break`'s target: kernels have no labelled loops.
fn no_label(label: &Option<impl quote::ToTokens>) -> Result<()> {
    match label {
        Some(l) => err(l, "loop labels are not supported in kernels"),
        None => Ok(()),
    }
}
