//! Calls of `#[device]` functions, inlined: the callee's body is lowered at the call, in a
//! scope of its own that binds its parameters to the caller's values (slices to the caller's
//! slices, with their lengths, so accesses stay checked), and its tail value is the call's.
//! Module-level constants are lowered where they are used, from their expressions.

use super::tiles::TileTy;
use super::{Binding, Lower, SymParam, Val, err, mismatch, strip_parens};
use crate::items::{DeviceFn, DeviceParamTy, DeviceRet, Items};
use crate::sig::{DEFAULT_MAX_WORKGROUP_SIZE, rust_name};
use kosmos_ir::{AddrSpace, FragRole, KernelBuilder, ScalarType, Type, Value};
use kosmos_sched::{Sched, SchedOptions, Team};
use std::collections::HashMap;
use std::rc::Rc;
use syn::{Expr, ExprRange, RangeLimits, Result};

/// [`DeviceFn::check`](crate::items::DeviceFn::check).
pub(crate) fn check_device(f: &DeviceFn, items: Rc<Items>) -> Result<()> {
    Lower::check_device(f, items)
}

impl Lower {
    /// `f(args...)` of device function `f`, inlined: its scalar value, if it returns one.
    pub(super) fn device_call(
        &mut self,
        b: &mut KernelBuilder,
        c: &syn::ExprCall,
        f: &DeviceFn,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        if let DeviceRet::Tile(_) = f.ret {
            return err(
                c,
                format!(
                    "`{}` returns a fragment or vector: bind it with `let`",
                    f.name
                ),
            );
        }
        let scope = self.bind_args(b, c, f)?;
        let value = self.inline(b, f, scope);
        self.failed_inlined |= value.is_err();
        match value? {
            Some(v) if expect.is_some_and(|t| t != v.ty) => {
                err(c, mismatch(expect.expect("checked"), rust_name(v.ty)))
            }
            value => Ok(value),
        }
    }

    /// `f(args...)` of a device function `f` that returns a fragment or vector, inlined.
    pub(super) fn device_tile_call(
        &mut self,
        b: &mut KernelBuilder,
        c: &syn::ExprCall,
        f: &DeviceFn,
    ) -> Result<(Value, TileTy)> {
        let scope = self.bind_args(b, c, f)?;
        let value = self.inline_tile(b, f, scope);
        self.failed_inlined |= value.is_err();
        value
    }

    /// The scope of an inlined call of `f`: its parameters bound to the arguments of `c`,
    /// after checking that the call does not recurse.
    fn bind_args(
        &mut self,
        b: &mut KernelBuilder,
        c: &syn::ExprCall,
        f: &DeviceFn,
    ) -> Result<HashMap<String, Binding>> {
        let name = f.name.to_string();
        if let Some(first) = self.inlining.iter().position(|n| *n == name) {
            let mut chain = self.inlining[first..].to_vec();
            chain.push(name.clone());
            return err(
                c,
                format!(
                    "`{name}` calls itself ({}): device functions are inlined, so they cannot recurse",
                    chain.join(" -> ")
                ),
            );
        }
        if c.args.len() != f.params.len() {
            return err(
                c,
                format!(
                    "`{name}` takes {} argument(s), found {}",
                    f.params.len(),
                    c.args.len()
                ),
            );
        }
        let mut scope = HashMap::new();
        for (p, arg) in f.params.iter().zip(&c.args) {
            let binding = match &p.ty {
                DeviceParamTy::Slice { elem, mutable } => {
                    self.slice_arg(b, arg, *elem, *mutable)?
                }
                // A `u32` the callee does not assign, passed a constant (a literal, a const
                // generic or a module constant), is a constant in the body too, so it can go
                // where constants are needed (a shared array's length, a tile's layout).
                DeviceParamTy::Scalar(t) => {
                    let fixed = *t == ScalarType::U32 && !p.mutable;
                    match fixed.then(|| self.const_eval(arg, "").ok()).flatten() {
                        Some(v) => match u32::try_from(v) {
                            Ok(v) => Binding::Const(v),
                            Err(_) => {
                                return err(arg, mismatch(ScalarType::U32, "a larger constant"));
                            }
                        },
                        None => Binding::Local {
                            v: self.value(b, arg, Some(*t))?.v,
                            ty: *t,
                            mutable: p.mutable,
                        },
                    }
                }
                DeviceParamTy::Tile(ty) => {
                    let ty = TileTy::of_type(ty)?;
                    Binding::Tile {
                        v: self.tile_arg(b, arg, ty)?,
                        ty,
                        mutable: p.mutable,
                    }
                }
                DeviceParamTy::TensorMap => Binding::TensorMap(self.tensor_map(b, arg)?),
                DeviceParamTy::Sym(elem) => Binding::Sym(self.sym_arg(arg, *elem)?),
            };
            scope.insert(p.name.to_string(), binding);
        }
        Ok(scope)
    }

    /// Runs `body` in the scope of an inlined call of `f` (its parameters bound by `scope`):
    /// the body sees its parameters and the file's items, not the caller's variables, loops
    /// or `unsafe` blocks.
    fn in_callee<T>(
        &mut self,
        b: &mut KernelBuilder,
        f: &DeviceFn,
        scope: HashMap<String, Binding>,
        body: impl FnOnce(&mut Self, &mut KernelBuilder) -> Result<T>,
    ) -> Result<T> {
        let scopes = std::mem::replace(&mut self.scopes, vec![scope]);
        let loops = std::mem::take(&mut self.loops);
        let unsafe_depth = std::mem::replace(&mut self.unsafe_depth, 0);
        self.inlining.push(f.name.to_string());
        self.infer_body(&f.body);
        let value = body(self, b);
        self.inlining.pop();
        self.unsafe_depth = unsafe_depth;
        self.loops = loops;
        self.scopes = scopes;
        value
    }

    /// The body of `f` with its parameters bound by `scope`: its value, checked against its
    /// return type.
    fn inline(
        &mut self,
        b: &mut KernelBuilder,
        f: &DeviceFn,
        scope: HashMap<String, Binding>,
    ) -> Result<Option<Val>> {
        let name = &f.name;
        let value = self.in_callee(b, f, scope, |s, b| s.block(b, &f.body, f.ret.scalar()))?;
        match (f.ret.scalar(), value) {
            (Some(t), None) => err(
                &f.body,
                format!(
                    "`{name}` returns {}, but its body ends without a value",
                    rust_name(t)
                ),
            ),
            (None, Some(v)) => err(
                &f.body,
                format!(
                    "`{name}` returns nothing, but its body ends in a {} value: declare `-> {}`",
                    rust_name(v.ty),
                    rust_name(v.ty)
                ),
            ),
            (_, value) => Ok(value),
        }
    }

    /// The body of `f`, which returns a fragment or vector, with its parameters bound by
    /// `scope`: the statements, then the tail expression as a tile of the declared type.
    fn inline_tile(
        &mut self,
        b: &mut KernelBuilder,
        f: &DeviceFn,
        scope: HashMap<String, Binding>,
    ) -> Result<(Value, TileTy)> {
        let DeviceRet::Tile(ret) = &f.ret else {
            unreachable!("called for tile-returning functions")
        };
        let want = TileTy::of_type(ret)?;
        let Some((syn::Stmt::Expr(tail, None), stmts)) = f.body.stmts.split_last() else {
            return err(
                &f.body,
                format!(
                    "`{}` returns {}: end its body with that value",
                    f.name,
                    want.name()
                ),
            );
        };
        self.in_callee(b, f, scope, |s, b| {
            s.scopes.push(HashMap::new());
            s.stmts(b, stmts, None)?;
            let v = s.tile_arg(b, tail, want)?;
            s.scopes.pop();
            Ok((v, want))
        })
    }

    /// Checks `f` on its own, as a call would lower it: its parameters are a kernel's
    /// (slices in global memory, scalars) or fresh accumulators. Where that fails, it is
    /// checked again as a call could pass them otherwise — unassigned `u32`s as constants
    /// (see `bind_args`) and slices in shared memory: all of them, or the mutable ones (a
    /// stage filled from global operands) — and only an error of every check is reported
    /// (the first one's). A function with `FragA`, `FragB` or `Vec8` parameters, which only
    /// their intrinsics make, is checked where it is called.
    fn check_device(f: &DeviceFn, items: Rc<Items>) -> Result<()> {
        let standalone = Lower::check_device_as(f, items.clone(), None);
        match standalone {
            Err(e)
                if [SharedSlices::All, SharedSlices::Mutable]
                    .into_iter()
                    .all(|shared| {
                        Lower::check_device_as(f, items.clone(), Some(shared)).is_err()
                    }) =>
            {
                Err(e)
            }
            _ => Ok(()),
        }
    }

    /// [`Lower::check_device`] with the parameters a kernel has, or (`from_context`) the
    /// shared slices and constants a call may pass.
    fn check_device_as(
        f: &DeviceFn,
        items: Rc<Items>,
        from_context: Option<SharedSlices>,
    ) -> Result<()> {
        let mut b = KernelBuilder::new(f.name.to_string(), DEFAULT_MAX_WORKGROUP_SIZE);
        // Symmetric buffers are passed by kernels with a team, whose intrinsics it may use.
        let with_team = f
            .params
            .iter()
            .any(|p| matches!(p.ty, DeviceParamTy::Sym(_)));
        let sched = with_team.then(|| {
            let team = Team::params(&mut b);
            Rc::new(Sched::new(&mut b, team, SchedOptions::default()))
        });
        let mut scope = HashMap::new();
        for p in &f.params {
            let name = p.name.to_string();
            let shared = |mutable: bool| match from_context {
                Some(SharedSlices::All) => true,
                Some(SharedSlices::Mutable) => mutable,
                None => false,
            };
            let binding = match &p.ty {
                DeviceParamTy::Slice { elem, mutable } if shared(*mutable) => {
                    let count = 1024;
                    let ptr = b.shared_alloc(&name, *elem, count);
                    Binding::Slice {
                        ptr,
                        elem: *elem,
                        writable: *mutable,
                        space: AddrSpace::Shared,
                        len: b.const_u64(u64::from(count)),
                    }
                }
                DeviceParamTy::Slice { elem, mutable } => {
                    let ptr = b.param(&name, Type::GLOBAL_PTR);
                    Binding::Slice {
                        ptr,
                        elem: *elem,
                        writable: *mutable,
                        space: AddrSpace::Global,
                        len: Lower::param_len(&mut b, ptr, *elem),
                    }
                }
                DeviceParamTy::Scalar(ScalarType::U32) if from_context.is_some() && !p.mutable => {
                    Binding::Const(0)
                }
                DeviceParamTy::Scalar(ty) => Binding::Local {
                    v: b.param(&name, Type::Scalar(*ty)),
                    ty: *ty,
                    mutable: p.mutable,
                },
                DeviceParamTy::TensorMap => Binding::TensorMap(b.param(&name, Type::GLOBAL_PTR)),
                DeviceParamTy::Sym(elem) => Binding::Sym(SymParam::declare(&mut b, &name, *elem)),
                DeviceParamTy::Tile(ty) => {
                    let (v, ty) = match TileTy::of_type(ty)? {
                        ty @ TileTy::Frag(FragRole::Acc) => (b.frag_zero(), ty),
                        ty @ TileTy::Frag(FragRole::WideAcc) => (b.wide_zero(), ty),
                        _ => return Ok(()),
                    };
                    Binding::Tile {
                        v,
                        ty,
                        mutable: p.mutable,
                    }
                }
            };
            scope.insert(name, binding);
        }
        let mut lower = Lower::new(String::new(), items, sched);
        match f.ret {
            DeviceRet::Tile(_) => lower.inline_tile(&mut b, f, scope).map(drop),
            _ => lower.inline(&mut b, f, scope).map(drop),
        }
    }

    /// The slice argument `arg` (`x`, `&x` or `&mut x`, or the rest of one from `k`:
    /// `&x[k..]`, `&mut x[k..]`, `k` checked against `x`'s length) of a `&[elem]` (or
    /// `&mut [elem]`, `mutable`) parameter.
    fn slice_arg(
        &mut self,
        b: &mut KernelBuilder,
        arg: &Expr,
        elem: ScalarType,
        mutable: bool,
    ) -> Result<Binding> {
        let want = format!(
            "&{}[{}]",
            if mutable { "mut " } else { "" },
            rust_name(elem)
        );
        let name = match strip_parens(arg) {
            Expr::Reference(r) => strip_parens(&r.expr),
            e => e,
        };
        let (name, start) = match name {
            Expr::Index(ix) => match strip_parens(&ix.index) {
                Expr::Range(ExprRange {
                    start: Some(start),
                    end: None,
                    limits: RangeLimits::HalfOpen(_),
                    ..
                }) => (strip_parens(&ix.expr), Some(&**start)),
                _ => (name, None),
            },
            _ => (name, None),
        };
        let ident = match name {
            Expr::Path(p) => p.path.get_ident(),
            _ => None,
        };
        let Some(ident) = ident else {
            return err(
                arg,
                format!(
                    "expected `{want}`: pass a slice parameter or a shared array by name, or the rest of one, `&a[k..]`"
                ),
            );
        };
        match self.lookup(&ident.to_string()) {
            Some(
                binding @ Binding::Slice {
                    elem: found,
                    writable,
                    ..
                },
            ) => {
                if found != elem {
                    return err(
                        arg,
                        format!("expected `{want}`, found a slice of {}", rust_name(found)),
                    );
                }
                if mutable && !writable {
                    return err(
                        arg,
                        format!(
                            "expected `{want}`, but `{ident}` is a `&[{}]` and cannot be written",
                            rust_name(found)
                        ),
                    );
                }
                let Binding::Slice {
                    ptr, space, len, ..
                } = binding
                else {
                    unreachable!("matched a slice")
                };
                let (ptr, len) = match start {
                    Some(start) => self.subslice(b, (ptr, elem, len), start, arg)?,
                    None => (ptr, len),
                };
                Ok(Binding::Slice {
                    ptr,
                    elem,
                    writable: mutable,
                    space,
                    len,
                })
            }
            None => self.not_found(ident, format!("cannot find value `{ident}` in this kernel")),
            Some(_) => err(
                arg,
                format!("expected `{want}`, found `{ident}`, not a slice"),
            ),
        }
    }

    /// The symmetric buffer argument `arg` (`x` or `&x`) of a `&Sym<[elem]>` parameter.
    fn sym_arg(&self, arg: &Expr, elem: ScalarType) -> Result<SymParam> {
        let name = match strip_parens(arg) {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            e => e,
        };
        let want = format!("&Sym<[{}]>", rust_name(elem));
        match self.sym_param(name) {
            Some(sym) if sym.elem == elem => Ok(sym),
            Some(sym) => err(
                arg,
                format!(
                    "expected `{want}`, found a symmetric buffer of {}",
                    rust_name(sym.elem)
                ),
            ),
            None => err(
                arg,
                format!("expected `{want}`: pass a symmetric buffer parameter by name"),
            ),
        }
    }

    /// The value of module-level constant `index`, of its declared type: its expression,
    /// lowered where only constants are in scope.
    pub(super) fn module_const(
        &mut self,
        b: &mut KernelBuilder,
        index: usize,
        tokens: &impl quote::ToTokens,
    ) -> Result<Val> {
        let c = self.items.consts[index].clone();
        let name = c.name.to_string();
        if self.inlining.contains(&name) {
            return err(tokens, format!("constant `{name}` is defined by itself"));
        }
        let scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        self.inlining.push(name);
        let v = self.value(b, &c.expr, Some(c.ty));
        self.inlining.pop();
        self.scopes = scopes;
        v
    }
}

/// Which slice parameters of a device function a context check takes as shared memory.
#[derive(Copy, Clone)]
enum SharedSlices {
    All,
    Mutable,
}
