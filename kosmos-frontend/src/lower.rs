//! Lowering of a kernel body to IR through `KernelBuilder`.
//!
//! Types are checked while lowering: every expression is lowered with the type its context
//! expects (when there is one), and literals take that type. Mutable variables live in a
//! scope stack as the SSA value they currently hold; a branch or loop that assigns outer
//! variables yields their new values as the `if`'s results or the loop's carried values.

use crate::sig::Instance;
use crate::sig::{KernelDef, ParamKind, rust_name, scalar_of_name, scalar_type};
use kosmos_ir::{
    AddrSpace, BinOp, CmpPred, Constant, Dim, FragRole, IdKind, Kernel, KernelBuilder, Ordering,
    RmwOp, ScalarType, Scope, Type, UnOp, Value,
};
use kosmos_sched::{Queues, Sched, SchedOptions, Team};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use syn::visit::Visit;
use syn::{Error, Expr, Result};

/// The intrinsic functions a kernel may call.
pub const INTRINSICS: &[&str] = &[
    "workitem_id_x",
    "workitem_id_y",
    "workitem_id_z",
    "workgroup_id_x",
    "workgroup_id_y",
    "workgroup_id_z",
    "workgroup_size_x",
    "workgroup_size_y",
    "workgroup_size_z",
    "num_workgroups_x",
    "num_workgroups_y",
    "num_workgroups_z",
    "barrier",
    "fence",
    "sleep",
    "clock",
    "shared_array",
    "atomic_add",
    "atomic_min",
    "atomic_max",
    "atomic_xchg",
    "atomic_and",
    "atomic_or",
    "atomic_load",
    "atomic_store",
    "atomic_cas",
    "sqrt",
    "exp2",
    "log2",
    "abs",
    "min",
    "max",
    "fma",
    "subgroup_size",
    "subgroup_id",
    "subgroup_lane",
    "frag_zero",
    "frag_load_a",
    "frag_load_b",
    "frag_store",
    "frag_store_within",
    "mma",
    "wide_zero",
    "mma_group",
    "copy_async",
    "async_commit",
    "async_wait",
    "load_vec8",
    "store_vec8",
    "splat8",
    "team_rank",
    "world_size",
    "peer",
    "signal",
    "wait",
    "claim",
    "start_barrier",
    "dispatch",
];

/// Intrinsics that make a tile value (a fragment or a vector) rather than a scalar.
const TILE_MAKERS: &[&str] = &[
    "frag_zero",
    "frag_load_a",
    "frag_load_b",
    "mma",
    "wide_zero",
    "mma_group",
    "load_vec8",
    "splat8",
];

/// Lanes of the vectors of `load_vec8`, `store_vec8` and `splat8`.
const VEC_LANES: u32 = 8;

use ScalarType as S;

#[derive(Copy, Clone, Debug)]
struct Val {
    v: Value,
    ty: ScalarType,
}

#[derive(Copy, Clone, Debug)]
enum Binding {
    Local {
        v: Value,
        ty: ScalarType,
        mutable: bool,
    },
    Slice {
        ptr: Value,
        elem: ScalarType,
        writable: bool,
        /// Global (parameters, peer slices) or shared (`shared_array`).
        space: AddrSpace,
    },
    Const(u32),
    /// A fragment or vector variable: only tile intrinsics take it.
    Tile {
        v: Value,
        ty: TileTy,
        mutable: bool,
    },
}

/// The non-scalar values of kernels: fragments (see docs/ir.md "Tiles") and the vectors of
/// 16-byte loads and stores. They are plain SSA values, so branches and loops carry them
/// like scalars, but no arithmetic applies to them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TileTy {
    Frag(FragRole),
    Vector(ScalarType),
}

impl TileTy {
    fn ir(self) -> Type {
        match self {
            TileTy::Frag(role) => Type::Frag(role),
            TileTy::Vector(elem) => Type::Vector {
                elem,
                lanes: VEC_LANES,
            },
        }
    }

    /// How messages name it, after the intrinsics that make it.
    fn name(self) -> String {
        match self {
            TileTy::Frag(FragRole::A) => "an `a` fragment (from `frag_load_a`)".into(),
            TileTy::Frag(FragRole::B) => "a `b` fragment (from `frag_load_b`)".into(),
            TileTy::Frag(FragRole::Acc) => {
                "an accumulator fragment (from `frag_zero` or `mma`)".into()
            }
            TileTy::Frag(FragRole::WideAcc) => {
                "a wide accumulator (from `wide_zero` or `mma_group`)".into()
            }
            TileTy::Vector(elem) => format!("a vector of {VEC_LANES} {}", rust_name(elem)),
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum LoopKind {
    For,
    While,
    Loop,
}

struct LoopCtx {
    kind: LoopKind,
    carried: Vec<String>,
    value_ty: Option<ScalarType>,
}

struct Lower {
    scopes: Vec<HashMap<String, Binding>>,
    loops: Vec<LoopCtx>,
    /// Nesting depth of IR regions (`if`/`for`/`loop` bodies); 0 is the kernel body.
    depth: usize,
    /// The current region already ended with `break` or `return`.
    terminated: bool,
    /// The scheduling context of a kernel with a `team: &Team` parameter (shared: the
    /// role bodies of `dispatch` are lowered while its loop holds it).
    sched: Option<Rc<Sched>>,
    /// Lowering a role body of `dispatch`.
    in_role: bool,
}

fn err<T>(tokens: impl quote::ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(Error::new_spanned(tokens, message))
}

fn mismatch(expected: ScalarType, found: &str) -> String {
    format!("expected {}, found {found}", rust_name(expected))
}

/// A call of a named function (an intrinsic) being lowered: its name and arguments,
/// with the checks every intrinsic makes of them.
struct Call<'a> {
    call: &'a syn::ExprCall,
    seg: &'a syn::PathSegment,
    name: String,
    args: Vec<&'a Expr>,
}

impl<'a> Call<'a> {
    /// `c` as a call of a named function; `None` if it calls anything else.
    fn of(c: &'a syn::ExprCall) -> Option<Self> {
        let Expr::Path(p) = &*c.func else {
            return None;
        };
        let seg = p.path.segments.last().expect("a path has a segment");
        Some(Call {
            call: c,
            seg,
            name: seg.ident.to_string(),
            args: c.args.iter().collect(),
        })
    }

    /// Intrinsics take no generic arguments.
    fn no_generics(&self) -> Result<()> {
        if self.seg.arguments.is_empty() {
            Ok(())
        } else {
            err(
                &self.seg.arguments,
                format!("`{}` takes no generic arguments", self.name),
            )
        }
    }

    /// The call has `n` arguments; `what` names them for the error.
    fn arity(&self, n: usize, what: &str) -> Result<()> {
        if self.args.len() == n {
            Ok(())
        } else {
            err(
                self.call,
                format!(
                    "`{}` takes {n} argument(s) ({what}), found {}",
                    self.name,
                    self.args.len()
                ),
            )
        }
    }
}

impl KernelDef {
    /// Lowers one instance to an IR kernel and verifies it.
    pub fn lower(&self, inst: &Instance) -> Result<Kernel> {
        let mut b = KernelBuilder::new(self.instance_name(inst), self.max_workgroup_size);
        let mut scope = HashMap::new();
        for (c, v) in self.consts.iter().zip(&inst.values) {
            scope.insert(c.to_string(), Binding::Const(*v));
        }
        let mut team = None;
        for p in &self.params {
            let name = p.name.to_string();
            let binding = match p.kind {
                // The team is reached through intrinsics only, so its name binds nothing.
                ParamKind::Team => {
                    team = Some(Team::params(&mut b));
                    continue;
                }
                ParamKind::Slice { elem, mutable } => Binding::Slice {
                    ptr: b.param(&name, Type::GLOBAL_PTR),
                    elem,
                    writable: mutable,
                    space: AddrSpace::Global,
                },
                ParamKind::Scalar(ty) => Binding::Local {
                    v: b.param(&name, Type::Scalar(ty)),
                    ty,
                    mutable: false,
                },
            };
            scope.insert(name, binding);
        }
        let mut l = Lower {
            scopes: vec![scope],
            loops: Vec::new(),
            depth: 0,
            terminated: false,
            sched: team.map(|t| Rc::new(Sched::new(&mut b, t, SchedOptions::default()))),
            in_role: false,
        };
        if let Some(v) = l.stmts(&mut b, &self.body.stmts, None)? {
            let tail = self
                .body
                .stmts
                .last()
                .expect("a tail value has a statement");
            return err(
                tail,
                format!(
                    "kernels return nothing, but this block ends in a {} value",
                    rust_name(v.ty)
                ),
            );
        }
        let mut kernel = b.finish();
        kernel.max_subgroups = self.max_subgroups;
        kernel.min_resident = self.min_resident;
        let kernel = kosmos_ir::verify(kernel).map_err(|e| {
            Error::new(
                self.name.span(),
                format!("the kernel's IR does not verify:\n{e}"),
            )
        })?;
        Ok(kernel.into_kernel())
    }
}

impl Lower {
    // ---- scopes ----

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: String, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name, binding);
    }

    /// Gives the innermost variable `name` (a mutable local) a new value.
    /// After an `if` or a loop: the outer variables it assigned now name its results.
    fn rebind(&mut self, carried: &[String], results: &[Value]) {
        for (name, v) in carried.iter().zip(results) {
            self.set_local(name, *v);
        }
    }

    fn set_local(&mut self, name: &str, value: Value) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(Binding::Local { v, .. } | Binding::Tile { v, .. }) = scope.get_mut(name) {
                *v = value;
                return;
            }
        }
    }

    /// The current value of a carried variable and its IR type.
    fn local_val(&self, name: &str) -> (Value, Type) {
        match self.lookup(name) {
            Some(Binding::Local { v, ty, .. }) => (v, Type::Scalar(ty)),
            Some(Binding::Tile { v, ty, .. }) => (v, ty.ir()),
            _ => unreachable!("carried variables are locals"),
        }
    }

    fn carried_vals(&self, names: &[String]) -> Vec<(Value, Type)> {
        names.iter().map(|n| self.local_val(n)).collect()
    }

    /// Outer mutable locals that `node` assigns: the values a region must yield.
    fn assigned_outer(&self, visit: impl FnOnce(&mut Assigned)) -> Vec<String> {
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
    fn region(
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
        let r = f(self, b);
        let terminated = std::mem::replace(&mut self.terminated, outer_terminated);
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

    // ---- statements ----

    fn block(
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

    fn stmts(
        &mut self,
        b: &mut KernelBuilder,
        stmts: &[syn::Stmt],
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let mut result = None;
        for (i, stmt) in stmts.iter().enumerate() {
            if self.terminated {
                return err(stmt, "unreachable code after `break` or `return`");
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
        if let Some(call) = shared_array_call(&init.expr) {
            if ann.is_some() {
                return err(
                    ann,
                    "shared arrays take their type from `shared_array::<T, N>()`",
                );
            }
            let binding = self.shared_array(b, call, &name)?;
            self.bind(name, binding);
            return Ok(());
        }
        if let Some((call, seg)) = peer_call(&init.expr) {
            if ann.is_some() {
                return err(ann, "peer slices take their type from `peer::<T, K>(rank)`");
            }
            let binding = self.peer_slice(b, call, seg)?;
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
        let expect = expect.or_else(|| self.infer(&init.expr));
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

    fn shared_array(
        &mut self,
        b: &mut KernelBuilder,
        call: &syn::ExprCall,
        name: &str,
    ) -> Result<Binding> {
        if self.depth > 0 {
            return err(
                call,
                "shared arrays are allocated at the kernel's top level only, not inside `if` or loops",
            );
        }
        if !call.args.is_empty() {
            return err(&call.args, "`shared_array` takes no arguments");
        }
        let generics = match &*call.func {
            Expr::Path(p) => &p.path.segments.last().expect("a path").arguments,
            _ => unreachable!("shared_array_call checked the callee"),
        };
        let syn::PathArguments::AngleBracketed(args) = generics else {
            return err(
                call,
                "write `shared_array::<T, N>()`: an element type and a length",
            );
        };
        let args: Vec<&syn::GenericArgument> = args.args.iter().collect();
        let [syn::GenericArgument::Type(elem), len] = args[..] else {
            return err(
                generics,
                "write `shared_array::<T, N>()`: an element type and a length",
            );
        };
        let elem = scalar_type(elem, "shared array element")?;
        if elem == S::I1 {
            return err(
                args[0],
                "shared arrays of `bool` are not supported: use `u8`",
            );
        }
        let len = match len {
            syn::GenericArgument::Const(e) => self.const_eval(e, SHARED_LEN)?,
            syn::GenericArgument::Type(syn::Type::Path(p)) if p.path.get_ident().is_some() => {
                let ident = p.path.get_ident().expect("checked");
                match self.lookup(&ident.to_string()) {
                    Some(Binding::Const(v)) => u64::from(v),
                    _ => {
                        return err(p, non_constant(SHARED_LEN));
                    }
                }
            }
            other => return err(other, "expected the shared array's length"),
        };
        let count = match u32::try_from(len) {
            Ok(n) if n > 0 => n,
            _ => {
                return err(args[1], format!("a shared array of {len} elements"));
            }
        };
        let ptr = b.shared_alloc(name, Type::Scalar(elem), count);
        Ok(Binding::Slice {
            ptr,
            elem,
            writable: true,
            space: AddrSpace::Shared,
        })
    }

    /// Evaluates a constant expression of literals and const generics; `what` names it in
    /// the error for anything else.
    fn const_eval(&self, e: &Expr, what: &str) -> Result<u64> {
        let fail = || err(e, non_constant(what));
        match e {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse(),
            Expr::Paren(p) => self.const_eval(&p.expr, what),
            Expr::Group(g) => self.const_eval(&g.expr, what),
            Expr::Block(bl) if bl.block.stmts.len() == 1 => match &bl.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.const_eval(inner, what),
                _ => fail(),
            },
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                Some(Binding::Const(v)) => Ok(u64::from(v)),
                _ => fail(),
            },
            Expr::Binary(bin) => {
                let (l, r) = (
                    self.const_eval(&bin.left, what)?,
                    self.const_eval(&bin.right, what)?,
                );
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

    // ---- expressions ----

    /// An expression that must have a value.
    fn value(
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
    fn expr(
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
                let (ptr, elem) = self.element_ptr(b, &ix.expr, &ix.index, false)?;
                Some(Val {
                    v: b.load(ptr, elem),
                    ty: elem,
                })
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
                return err(c, "`continue` is not supported in kernels: use `if`");
            }
            Expr::Return(r) => {
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
            Expr::Unsafe(u) => {
                return err(
                    u.unsafe_token,
                    "`unsafe` blocks are not supported in kernels",
                );
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

    fn literal(
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

    fn path(
        &mut self,
        b: &mut KernelBuilder,
        p: &syn::ExprPath,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
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
            Some(Binding::Slice { .. }) => {
                err(p, format!("`{ident}` is a slice: index it, `{ident}[i]`"))
            }
            Some(Binding::Tile { ty, .. }) => err(p, tile_as_scalar(&ident.to_string(), ty)),
            None => err(p, format!("cannot find value `{ident}` in this kernel")),
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
            syn::UnOp::Deref(_) => err(u, "dereferencing is not supported in kernels"),
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
            let r = if matches!(op, BinOp::Shl | BinOp::Shr) {
                let rt = self
                    .infer(&e.right)
                    .filter(|t| t.is_int() && *t != S::I1)
                    .unwrap_or(l.ty);
                let r = self.value(b, &e.right, Some(rt))?;
                if r.ty == l.ty {
                    r
                } else {
                    Val {
                        v: b.cast(r.v, l.ty),
                        ty: l.ty,
                    }
                }
            } else {
                self.value(b, &e.right, Some(l.ty))?
            };
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
                    None => return err(p, format!("cannot find value `{name}` in this kernel")),
                };
                let new = self.combine(b, compound, Val { v: old, ty }, right)?;
                self.set_local(&name, new.v);
                Ok(())
            }
            Expr::Index(ix) => {
                let (ptr, elem) = self.element_ptr(b, &ix.expr, &ix.index, true)?;
                let new = match compound {
                    Some(_) => {
                        let old = Val {
                            v: b.load(ptr, elem),
                            ty: elem,
                        };
                        self.combine(b, compound, old, right)?
                    }
                    None => self.value(b, right, Some(elem))?,
                };
                b.store(ptr, new.v);
                Ok(())
            }
            Expr::Paren(p) => self.assign(b, &p.expr, right, compound),
            other => err(other, "only variables and slice elements can be assigned"),
        }
    }

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
        let r = if matches!(op, BinOp::Shl | BinOp::Shr) {
            let rt = self
                .infer(right)
                .filter(|t| t.is_int() && *t != S::I1)
                .unwrap_or(old.ty);
            let r = self.value(b, right, Some(rt))?;
            if r.ty == old.ty {
                r
            } else {
                Val {
                    v: b.cast(r.v, old.ty),
                    ty: old.ty,
                }
            }
        } else {
            self.value(b, right, Some(old.ty))?
        };
        self.arith(b, op, old, r, tokens)
    }

    /// The address of `base[index]` and the element type; `write` for stores and atomics
    /// that modify memory.
    fn element_ptr(
        &mut self,
        b: &mut KernelBuilder,
        base: &Expr,
        index: &Expr,
        write: bool,
    ) -> Result<(Value, ScalarType)> {
        let (ptr, elem, _) = self.element_ptr_at(b, base, index, write)?;
        Ok((ptr, elem))
    }

    /// [`Lower::element_ptr`] that also returns the index it lowered.
    fn element_ptr_at(
        &mut self,
        b: &mut KernelBuilder,
        base: &Expr,
        index: &Expr,
        write: bool,
    ) -> Result<(Value, ScalarType, Val)> {
        let ident = match base {
            Expr::Path(p) => p.path.get_ident(),
            _ => None,
        };
        let Some(ident) = ident else {
            return err(
                base,
                "only slice parameters and shared arrays can be indexed",
            );
        };
        let (ptr, elem) = match self.lookup(&ident.to_string()) {
            Some(Binding::Slice {
                ptr,
                elem,
                writable,
                ..
            }) => {
                if write && !writable {
                    let e = rust_name(elem);
                    return err(
                        base,
                        format!(
                            "`{ident}` is a `&[{e}]` and cannot be written: declare it `&mut [{e}]`"
                        ),
                    );
                }
                (ptr, elem)
            }
            Some(Binding::Local { ty, .. }) => {
                return err(
                    base,
                    format!("cannot index into `{ident}`, a {}", rust_name(ty)),
                );
            }
            Some(Binding::Const(_)) => {
                return err(
                    base,
                    format!("cannot index into `{ident}`, a const generic"),
                );
            }
            Some(Binding::Tile { ty, .. }) => {
                return err(base, format!("cannot index into `{ident}`, {}", ty.name()));
            }
            None => return err(base, format!("cannot find value `{ident}` in this kernel")),
        };
        let t = self.infer(index).unwrap_or(S::U32);
        if !t.is_int() || t == S::I1 {
            return err(
                index,
                format!("indices are integers, found {}", rust_name(t)),
            );
        }
        let i = self.value(b, index, Some(t))?;
        Ok((b.ptr_offset(ptr, i.v, elem), elem, i))
    }

    // ---- control flow ----

    fn if_expr(
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
        let carried = self.assigned_outer(|a| a.visit_expr_if(e));
        let saved = self.carried_vals(&carried);
        let mut types: Vec<Type> = saved.iter().map(|v| v.1).collect();
        types.extend(value_ty.map(Type::Scalar));
        let mut failed = Ok(());
        let yields =
            |l: &mut Self, v: Option<Val>, tokens: &dyn quote::ToTokens| -> Result<Vec<Value>> {
                let mut out: Vec<Value> = l.carried_vals(&carried).iter().map(|v| v.0).collect();
                match (value_ty, v) {
                    (Some(_), Some(v)) => out.push(v.v),
                    (Some(t), None) if !l.terminated => {
                        return err(tokens, mismatch(t, "`()`"));
                    }
                    _ => {}
                }
                Ok(out)
            };
        // Both branch closures need the lowering state; the builder runs them one at a time.
        let state = std::cell::RefCell::new((&mut *self, &mut failed));
        let results = {
            let state = &state;
            b.if_else(
                cond.v,
                &types,
                |b| {
                    let (l, failed) = &mut *state.borrow_mut();
                    l.region(b, failed, |l, b| {
                        let v = l.block(b, &e.then_branch, value_ty)?;
                        yields(l, v, &e.then_branch)
                    })
                },
                |b| {
                    let (l, failed) = &mut *state.borrow_mut();
                    for (name, v) in carried.iter().zip(&saved) {
                        l.set_local(name, v.0);
                    }
                    l.region(b, failed, |l, b| match &e.else_branch {
                        Some((_, else_expr)) => {
                            let v = l.expr(b, else_expr, value_ty)?;
                            yields(l, v, else_expr)
                        }
                        None => yields(l, None, &e.then_branch),
                    })
                },
            )
        };
        failed?;
        self.rebind(&carried, &results);
        Ok(value_ty.map(|ty| Val {
            v: *results.last().expect("the if's value"),
            ty,
        }))
    }

    fn for_loop(&mut self, b: &mut KernelBuilder, f: &syn::ExprForLoop) -> Result<()> {
        if let Some(l) = &f.label {
            return err(l, "loop labels are not supported in kernels");
        }
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
        let t = self.infer_pair(start, end).unwrap_or(S::I32);
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
        let carried = self.assigned_outer(|a| a.visit_block(&f.body));
        let inits: Vec<Value> = self.carried_vals(&carried).iter().map(|v| v.0).collect();
        self.loops.push(LoopCtx {
            kind: LoopKind::For,
            carried: carried.clone(),
            value_ty: None,
        });
        let mut failed = Ok(());
        let results = b.for_range(lb.v, ub.v, step, &inits, |b, iv, args| {
            self.region(b, &mut failed, |l, b| {
                for (name, v) in carried.iter().zip(args) {
                    l.set_local(name, *v);
                }
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
                let r = l.block(b, &f.body, None);
                l.scopes.pop();
                r?;
                Ok(l.carried_vals(&carried).iter().map(|v| v.0).collect())
            })
        });
        self.loops.pop();
        failed?;
        self.rebind(&carried, &results);
        Ok(())
    }

    fn while_loop(&mut self, b: &mut KernelBuilder, w: &syn::ExprWhile) -> Result<()> {
        if let Some(l) = &w.label {
            return err(l, "loop labels are not supported in kernels");
        }
        let carried = self.assigned_outer(|a| a.visit_expr_while(w));
        let vals = self.carried_vals(&carried);
        let inits: Vec<Value> = vals.iter().map(|v| v.0).collect();
        let types: Vec<Type> = vals.iter().map(|v| v.1).collect();
        let mut failed = Ok(());
        let results = b.loop_(&inits, &types, |b, args| {
            self.region(b, &mut failed, |l, b| {
                for (name, v) in carried.iter().zip(args) {
                    l.set_local(name, *v);
                }
                let cond = l.value(b, &w.cond, Some(S::I1))?;
                let done = b.unary(UnOp::Not, cond.v);
                let current = args.to_vec();
                b.if_then(done, |b| b.break_(&current));
                l.loops.push(LoopCtx {
                    kind: LoopKind::While,
                    carried: carried.clone(),
                    value_ty: None,
                });
                let r = l.block(b, &w.body, None);
                l.loops.pop();
                r?;
                Ok(l.carried_vals(&carried).iter().map(|v| v.0).collect())
            })
        });
        failed?;
        self.rebind(&carried, &results);
        Ok(())
    }

    fn loop_expr(
        &mut self,
        b: &mut KernelBuilder,
        lp: &syn::ExprLoop,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        if let Some(l) = &lp.label {
            return err(l, "loop labels are not supported in kernels");
        }
        let mut breaks = BreakValues(Vec::new());
        breaks.visit_block(&lp.body);
        let value_ty = breaks.0.first().map(|first| {
            expect
                .or_else(|| breaks.0.iter().find_map(|e| self.infer(e)))
                .or_else(|| self.infer(first))
                .unwrap_or(S::I32)
        });
        let carried = self.assigned_outer(|a| a.visit_block(&lp.body));
        let vals = self.carried_vals(&carried);
        let inits: Vec<Value> = vals.iter().map(|v| v.0).collect();
        let mut types: Vec<Type> = vals.iter().map(|v| v.1).collect();
        types.extend(value_ty.map(Type::Scalar));
        let mut failed = Ok(());
        let results = b.loop_(&inits, &types, |b, args| {
            self.region(b, &mut failed, |l, b| {
                for (name, v) in carried.iter().zip(args) {
                    l.set_local(name, *v);
                }
                l.loops.push(LoopCtx {
                    kind: LoopKind::Loop,
                    carried: carried.clone(),
                    value_ty,
                });
                let r = l.block(b, &lp.body, None);
                l.loops.pop();
                r?;
                Ok(l.carried_vals(&carried).iter().map(|v| v.0).collect())
            })
        });
        failed?;
        self.rebind(&carried, &results);
        Ok(value_ty.map(|ty| Val {
            v: *results.last().expect("the loop's value"),
            ty,
        }))
    }

    fn break_(&mut self, b: &mut KernelBuilder, br: &syn::ExprBreak) -> Result<()> {
        if let Some(l) = &br.label {
            return err(l, "loop labels are not supported in kernels");
        }
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
        let mut values: Vec<Value> = self.carried_vals(&carried).iter().map(|v| v.0).collect();
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

    // ---- intrinsics and methods ----

    fn call(
        &mut self,
        b: &mut KernelBuilder,
        c: &syn::ExprCall,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let Some(call) = Call::of(c) else {
            return err(&c.func, "only intrinsics can be called in kernels");
        };
        let (name, args) = (&call.name, &call.args);
        if name == "shared_array" {
            return err(
                c,
                "`shared_array` is only allowed as `let name = shared_array::<T, N>();`",
            );
        }
        if name == "peer" {
            return err(
                c,
                "`peer` is only allowed as `let name = peer::<T, K>(rank);` (symmetric buffer `K` of rank `rank`)",
            );
        }
        call.no_generics()?;
        if let Some((kind, dim)) = id_intrinsic(name) {
            call.arity(0, "none")?;
            return Ok(Some(Val {
                v: b.id(kind, dim),
                ty: S::U32,
            }));
        }
        if TILE_MAKERS.contains(&name.as_str()) {
            return err(
                c,
                format!(
                    "`{name}` makes a fragment or vector, not a number: bind it with `let`, or pass it to `mma`, `mma_group`, `frag_store` or `store_vec8`"
                ),
            );
        }
        let v = match name.as_str() {
            "subgroup_size" | "subgroup_id" | "subgroup_lane" => {
                call.arity(0, "none")?;
                Val {
                    v: match name.as_str() {
                        "subgroup_size" => b.subgroup_size(),
                        "subgroup_id" => b.subgroup_id(),
                        _ => b.subgroup_lane(),
                    },
                    ty: S::U32,
                }
            }
            "frag_store" | "frag_store_within" => {
                let within = name == "frag_store_within";
                if within {
                    call.arity(5, "&c[i], accumulator, stride, rows, cols")?;
                } else {
                    call.arity(3, "&c[i], accumulator, stride")?;
                }
                let (ptr, elem) = self.elem_ref(b, args[0], name, true)?;
                if elem != S::F32 {
                    return err(
                        args[0],
                        format!("`{name}` writes f32 elements, found {}", rust_name(elem)),
                    );
                }
                let acc = self.acc_arg(b, args[1])?;
                let stride = self.value(b, args[2], Some(S::U32))?;
                if within {
                    let rows = self.value(b, args[3], Some(S::U32))?;
                    let cols = self.value(b, args[4], Some(S::U32))?;
                    b.frag_store_within(ptr, acc, stride.v, rows.v, cols.v);
                } else {
                    b.frag_store(ptr, acc, stride.v);
                }
                return Ok(None);
            }
            "copy_async" => {
                call.arity(3, "&shared_dst[i], &global_src[j], pred")?;
                let (dst, _) = self.elem_ref_in(
                    b,
                    args[0],
                    (name, "the destination of `copy_async`"),
                    true,
                    AddrSpace::Shared,
                )?;
                let (src, _) = self.elem_ref_in(
                    b,
                    args[1],
                    (name, "the source of `copy_async`"),
                    false,
                    AddrSpace::Global,
                )?;
                let pred = self.value(b, args[2], Some(S::I1))?;
                b.copy_async(dst, src, pred.v);
                return Ok(None);
            }
            "async_commit" => {
                call.arity(0, "none")?;
                b.async_commit();
                return Ok(None);
            }
            "async_wait" => {
                call.arity(1, "groups left in flight, a constant")?;
                let what = "the count of `async_wait`";
                let pending = u32::try_from(self.const_eval(args[0], what)?).map_err(|_| {
                    Error::new_spanned(args[0], format!("{what} out of range for u32"))
                })?;
                b.async_wait(pending);
                return Ok(None);
            }
            "store_vec8" => {
                call.arity(2, "&a[i], vector")?;
                let (ptr, elem) = self.elem_ref(b, args[0], name, true)?;
                let v = self.tile_arg(b, args[1], TileTy::Vector(elem))?;
                b.store(ptr, v);
                return Ok(None);
            }
            "barrier" => {
                call.arity(0, "none")?;
                b.barrier();
                return Ok(None);
            }
            "fence" => {
                call.arity(2, "ordering, scope")?;
                let ord = ordering(args[0])?;
                if ord == Ordering::Relaxed {
                    return err(
                        args[0],
                        "a fence cannot be `Relaxed`: use Acquire, Release, AcqRel or SeqCst",
                    );
                }
                b.fence(ord, scope(args[1])?);
                return Ok(None);
            }
            "sleep" => {
                call.arity(1, "nanoseconds, a constant")?;
                let ns = u32::try_from(self.const_eval(args[0], "the time of `sleep`")?)
                    .map_err(|_| Error::new_spanned(args[0], "sleep time out of range for u32"))?;
                b.sleep(ns);
                return Ok(None);
            }
            "clock" => {
                call.arity(0, "none")?;
                Val {
                    v: b.clock(),
                    ty: S::U64,
                }
            }
            "atomic_load" => {
                call.arity(3, "&a[i], ordering, scope")?;
                let (ptr, elem) = self.elem_ref(b, args[0], name, false)?;
                check_atomic_type(args[0], name, elem, false)?;
                let ord = ordering(args[1])?;
                if matches!(ord, Ordering::Release | Ordering::AcqRel) {
                    return err(
                        args[1],
                        "an atomic load cannot be `Release` or `AcqRel`: use Relaxed, Acquire or SeqCst",
                    );
                }
                Val {
                    v: b.atomic_load(ptr, elem, ord, scope(args[2])?),
                    ty: elem,
                }
            }
            "atomic_store" => {
                call.arity(4, "&a[i], value, ordering, scope")?;
                let (ptr, elem) = self.elem_ref(b, args[0], name, true)?;
                check_atomic_type(args[0], name, elem, false)?;
                let v = self.value(b, args[1], Some(elem))?;
                let ord = ordering(args[2])?;
                if matches!(ord, Ordering::Acquire | Ordering::AcqRel) {
                    return err(
                        args[2],
                        "an atomic store cannot be `Acquire` or `AcqRel`: use Relaxed, Release or SeqCst",
                    );
                }
                b.atomic_store(ptr, v.v, ord, scope(args[3])?);
                return Ok(None);
            }
            "atomic_cas" => {
                call.arity(5, "&a[i], expected, desired, ordering, scope")?;
                let (ptr, elem) = self.elem_ref(b, args[0], name, true)?;
                check_atomic_type(args[0], name, elem, false)?;
                let expected = self.value(b, args[1], Some(elem))?;
                let desired = self.value(b, args[2], Some(elem))?;
                let ord = ordering(args[3])?;
                Val {
                    v: b.atomic_cas(ptr, expected.v, desired.v, ord, scope(args[4])?),
                    ty: elem,
                }
            }
            "atomic_add" | "atomic_min" | "atomic_max" | "atomic_xchg" | "atomic_and"
            | "atomic_or" => {
                call.arity(4, "&a[i], value, ordering, scope")?;
                let op = match name.as_str() {
                    "atomic_add" => RmwOp::Add,
                    "atomic_min" => RmwOp::Min,
                    "atomic_max" => RmwOp::Max,
                    "atomic_xchg" => RmwOp::Xchg,
                    "atomic_and" => RmwOp::And,
                    _ => RmwOp::Or,
                };
                let (ptr, elem) = self.elem_ref(b, args[0], name, true)?;
                check_atomic_type(args[0], name, elem, matches!(op, RmwOp::Add | RmwOp::Xchg))?;
                let v = self.value(b, args[1], Some(elem))?;
                let ord = ordering(args[2])?;
                Val {
                    v: b.atomic_rmw(op, ptr, v.v, ord, scope(args[3])?),
                    ty: elem,
                }
            }
            "team_rank" | "world_size" => {
                call.arity(0, "none")?;
                let team = *self.sched(c, name)?.team();
                Val {
                    v: if name == "team_rank" {
                        team.rank()
                    } else {
                        team.world_size()
                    },
                    ty: S::U32,
                }
            }
            "start_barrier" => {
                call.arity(0, "none")?;
                self.sched(c, name)?.start_barrier(b);
                return Ok(None);
            }
            "signal" => {
                call.arity(3, "&counter[i], n, scope")?;
                let (ptr, _) = self.counter_ref(b, args[0], name)?;
                let n = self.value(b, args[1], Some(S::U32))?;
                let scope = scope(args[2])?;
                self.sched(c, name)?.signal(b, ptr, n.v, scope);
                return Ok(None);
            }
            "wait" => {
                call.arity(4, "&counter[i], expected, scope, task")?;
                let (ptr, index) = self.counter_ref(b, args[0], name)?;
                let expected = self.value(b, args[1], Some(S::U32))?;
                let scope = scope(args[2])?;
                let task = self.value(b, args[3], Some(S::U32))?;
                // The counter's index names it in the error record of a timed-out wait.
                let id = if index.ty == S::U32 {
                    index.v
                } else {
                    b.cast(index.v, Type::U32)
                };
                self.sched(c, name)?
                    .wait(b, ptr, expected.v, scope, task.v, id);
                return Ok(None);
            }
            "dispatch" => {
                call.arity(
                    8,
                    "&comm_head[i], n_comm, &compute_head[j], n_compute, scope, |t| (&ready[k], expected), |t| { comm }, |t| { compute }",
                )?;
                self.dispatch(b, c, args)?;
                return Ok(None);
            }
            "claim" => {
                call.arity(2, "&head[i], len")?;
                let (ptr, _) = self.counter_ref(b, args[0], name)?;
                let len = self.value(b, args[1], Some(S::U32))?;
                Val {
                    v: self.sched(c, name)?.claim(b, ptr, len.v),
                    ty: S::U32,
                }
            }
            "sqrt" | "exp2" | "log2" | "abs" => {
                call.arity(1, "x")?;
                let t = expect.or_else(|| self.infer(args[0]));
                let x = self.value(b, args[0], t)?;
                self.math1(b, name, x, c)?
            }
            "min" | "max" => {
                call.arity(2, "a, b")?;
                let t = expect.or_else(|| self.infer_pair(args[0], args[1]));
                let x = self.value(b, args[0], t)?;
                let y = self.value(b, args[1], Some(x.ty))?;
                self.minmax(b, name, x, y, c)?
            }
            "fma" => {
                call.arity(3, "a, b, c")?;
                let t = expect.or_else(|| args.iter().find_map(|a| self.infer(a)));
                let x = self.value(b, args[0], t)?;
                let y = self.value(b, args[1], Some(x.ty))?;
                let z = self.value(b, args[2], Some(x.ty))?;
                self.fma(b, x, y, z, c)?
            }
            _ => {
                return err(
                    &c.func,
                    format!(
                        "unknown intrinsic `{name}` (kernels can call: {})",
                        INTRINSICS.join(", ")
                    ),
                );
            }
        };
        if let Some(t) = expect.filter(|t| *t != v.ty) {
            return err(c, mismatch(t, rust_name(v.ty)));
        }
        Ok(Some(v))
    }

    fn method(
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

    /// The element an atomic, a fragment or a vector access starts at: `&a[i]` (or
    /// `&mut a[i]`).
    fn elem_ref(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        intrinsic: &str,
        write: bool,
    ) -> Result<(Value, ScalarType)> {
        if let Expr::Reference(r) = e
            && let Expr::Index(ix) = strip_parens(&r.expr)
        {
            return self.element_ptr(b, &ix.expr, &ix.index, write);
        }
        err(
            e,
            format!("`{intrinsic}` takes an element reference: `&a[i]`"),
        )
    }

    /// [`Lower::elem_ref`] of an element in `space`: shared memory is a `shared_array`'s,
    /// global memory a slice parameter's or a peer slice's. `what` names the operand in
    /// errors ("the source of `copy_async`").
    fn elem_ref_in(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        (intrinsic, what): (&str, &str),
        write: bool,
        space: AddrSpace,
    ) -> Result<(Value, ScalarType)> {
        if let Expr::Reference(r) = e
            && let Expr::Index(ix) = strip_parens(&r.expr)
            && let Expr::Path(p) = &*ix.expr
            && let Some(ident) = p.path.get_ident()
            && let Some(Binding::Slice { space: found, .. }) = self.lookup(&ident.to_string())
            && found != space
        {
            let (want, found) = if space == AddrSpace::Shared {
                (
                    "in shared memory (an element of a `shared_array`)",
                    "a global slice",
                )
            } else {
                (
                    "in global memory (an element of a slice parameter)",
                    "a shared array",
                )
            };
            return err(
                e,
                format!("{what} must be {want}, but `{ident}` is {found}"),
            );
        }
        self.elem_ref(b, e, intrinsic, write)
    }

    // ---- scheduling ----

    /// The scheduling context, or an error at `c` for a kernel without a team.
    fn sched(&self, c: &syn::ExprCall, name: &str) -> Result<&Rc<Sched>> {
        self.sched.as_ref().ok_or_else(|| {
            Error::new_spanned(
                c,
                format!("`{name}` needs a world: make `team: &Team` the kernel's first parameter"),
            )
        })
    }

    /// A readiness counter or queue head `&c[i]` of a `u32` slice (written): its pointer and
    /// its index.
    fn counter_ref(&mut self, b: &mut KernelBuilder, e: &Expr, name: &str) -> Result<(Value, Val)> {
        if let Expr::Reference(r) = e
            && let Expr::Index(ix) = strip_parens(&r.expr)
        {
            let (ptr, elem, index) = self.element_ptr_at(b, &ix.expr, &ix.index, true)?;
            if elem != S::U32 {
                return err(
                    e,
                    format!("`{name}` takes a `u32` counter, found {}", rust_name(elem)),
                );
            }
            return Ok((ptr, index));
        }
        err(
            e,
            format!(
                "`{name}` takes a counter: an element reference `&counters[i]` of a `&mut [u32]`"
            ),
        )
    }

    /// `dispatch(&comm_head[i], n_comm, &compute_head[j], n_compute, scope,
    /// |t| (&ready[k], expected), |t| { comm }, |t| { compute })`: the role switch,
    /// lowered onto `Sched::dispatch_loop`. The closures are syntax only: each is lowered
    /// inline with its parameter bound to the task (`u32`); the readiness one is lowered
    /// twice (the head check and the bounded wait), the roles once each. The roles run
    /// inside the dispatch loop without carried values, so they may not assign outer
    /// variables, `break` out of it, `return`, or nest another `dispatch`.
    fn dispatch(&mut self, b: &mut KernelBuilder, c: &syn::ExprCall, args: &[&Expr]) -> Result<()> {
        if self.in_role {
            return err(
                c,
                "`dispatch` cannot be nested in a role of another `dispatch`",
            );
        }
        let sched = Rc::clone(self.sched(c, "dispatch")?);
        let (comm_head, _) = self.counter_ref(b, args[0], "dispatch")?;
        let comm_len = self.value(b, args[1], Some(S::U32))?.v;
        let (compute_head, _) = self.counter_ref(b, args[2], "dispatch")?;
        let compute_len = self.value(b, args[3], Some(S::U32))?.v;
        let ready_scope = scope(args[4])?;
        let (ready_task, ready_body) = role_closure(args[5], "the readiness")?;
        let syn::Expr::Tuple(ready) = strip_parens(ready_body) else {
            return err(
                ready_body,
                "the readiness closure returns `(&counter[i], expected)`",
            );
        };
        let [counter, expected] = ready.elems.iter().collect::<Vec<_>>()[..] else {
            return err(
                ready,
                "the readiness closure returns `(&counter[i], expected)`",
            );
        };
        let roles = [
            role_closure(args[6], "the communication")?,
            role_closure(args[7], "the compute")?,
        ];
        for (_, body) in &roles {
            let assigned = self.assigned_outer(|a| a.visit_expr(body));
            if let Some(name) = assigned.first() {
                return err(
                    body,
                    format!(
                        "a `dispatch` role cannot assign the outer variable `{name}`: its loop carries no values"
                    ),
                );
            }
        }
        let q = Queues {
            compute_head,
            compute_len,
            comm_head,
            comm_len,
            ready_scope,
        };
        // `break` inside a role would leave the dispatch loop: no enclosing loop is visible.
        let outer_loops = std::mem::take(&mut self.loops);
        self.in_role = true;
        let failed = RefCell::new(Ok(()));
        let this = RefCell::new(&mut *self);
        let role = |b: &mut KernelBuilder, task: Value, (name, body): (String, &Expr)| {
            let mut failed = failed.borrow_mut();
            this.borrow_mut().region(b, &mut failed, |l, b| {
                l.scopes.push(HashMap::new());
                l.bind(name, task_binding(task));
                let r = l.expr(b, body, None);
                l.scopes.pop();
                r?;
                Ok(Vec::new())
            });
        };
        let [comm, compute] = roles;
        sched.dispatch_loop(
            b,
            &q,
            |b, task| {
                let mut l = this.borrow_mut();
                l.scopes.push(HashMap::new());
                l.bind(ready_task.clone(), task_binding(task));
                let r = l
                    .counter_ref(b, counter, "dispatch")
                    .and_then(|(ptr, index)| {
                        let expected = l.value(b, expected, Some(S::U32))?.v;
                        // The counter's index names it in the error record of a timed-out wait.
                        let id = if index.ty == S::U32 {
                            index.v
                        } else {
                            b.cast(index.v, Type::U32)
                        };
                        Ok((ptr, expected, id))
                    });
                l.scopes.pop();
                r.unwrap_or_else(|e| {
                    let mut failed = failed.borrow_mut();
                    if failed.is_ok() {
                        *failed = Err(e);
                    }
                    // Well-typed placeholders: the kernel is discarded.
                    let zero = b.const_u32(0);
                    (comm_head, zero, zero)
                })
            },
            |b, task| role(b, task, comm),
            |b, task| role(b, task, compute),
        );
        self.in_role = false;
        self.loops = outer_loops;
        failed.into_inner()
    }

    /// `peer::<T, K>(rank)`: rank `rank`'s copy of symmetric buffer `K` (the world's
    /// allocations in order, from 1), as a writable slice of `T`.
    fn peer_slice(
        &mut self,
        b: &mut KernelBuilder,
        call: &syn::ExprCall,
        seg: &syn::PathSegment,
    ) -> Result<Binding> {
        let usage = "write `peer::<T, K>(rank)`: element type `T`, symmetric buffer `K`";
        let syn::PathArguments::AngleBracketed(g) = &seg.arguments else {
            return err(call, usage);
        };
        let gargs: Vec<&syn::GenericArgument> = g.args.iter().collect();
        let [syn::GenericArgument::Type(ty), k] = gargs[..] else {
            return err(g, usage);
        };
        let elem = scalar_type(ty, "symmetric buffer element")?;
        let k_expr = match k {
            syn::GenericArgument::Const(e) => e.clone(),
            syn::GenericArgument::Type(syn::Type::Path(p)) => Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: p.path.clone(),
            }),
            other => return err(other, usage),
        };
        let index = u32::try_from(self.const_eval(&k_expr, "the symmetric buffer index")?)
            .map_err(|_| Error::new_spanned(k, "symmetric buffer index out of range for u32"))?;
        if index == kosmos_sched::abi::CONTROL_BUFFER {
            return err(
                k,
                "symmetric buffer 0 is the world's control buffer: the world's allocations start at 1",
            );
        }
        if call.args.len() != 1 {
            return err(call, "`peer` takes 1 argument (rank)");
        }
        let rank = self.value(b, &call.args[0], Some(S::U32))?;
        let team = *self.sched(call, "peer")?.team();
        Ok(Binding::Slice {
            ptr: team.peer_ptr(b, index, rank.v),
            elem,
            writable: true,
            space: AddrSpace::Global,
        })
    }

    // ---- fragments and vectors ----

    /// Lowers `e` if it is a tile expression (a tile variable or a call of an intrinsic
    /// that makes one); `None` if it is not, without lowering anything.
    fn tile(&mut self, b: &mut KernelBuilder, e: &Expr) -> Result<Option<(Value, TileTy)>> {
        let c = match strip_parens(e) {
            Expr::Path(p) => {
                return Ok(
                    match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                        Some(Binding::Tile { v, ty, .. }) => Some((v, ty)),
                        _ => None,
                    },
                );
            }
            Expr::Call(c) => c,
            _ => return Ok(None),
        };
        let Some(call) = Call::of(c) else {
            return Ok(None);
        };
        let (name, args) = (&call.name, &call.args);
        if !TILE_MAKERS.contains(&name.as_str()) {
            return Ok(None);
        }
        call.no_generics()?;
        let made = match name.as_str() {
            "frag_zero" => {
                call.arity(0, "none")?;
                (b.frag_zero(), TileTy::Frag(FragRole::Acc))
            }
            "wide_zero" => {
                call.arity(0, "none")?;
                (b.wide_zero(), TileTy::Frag(FragRole::WideAcc))
            }
            "frag_load_a" | "frag_load_b" => {
                call.arity(2, "&tile[i], stride")?;
                let (ptr, elem) = self.elem_ref(b, args[0], name, false)?;
                if elem != S::BF16 {
                    return err(
                        args[0],
                        format!("`{name}` reads bf16 elements, found {}", rust_name(elem)),
                    );
                }
                let stride = self.value(b, args[1], Some(S::U32))?;
                let role = if name == "frag_load_a" {
                    FragRole::A
                } else {
                    FragRole::B
                };
                (b.frag_load(role, ptr, stride.v), TileTy::Frag(role))
            }
            "mma" => {
                call.arity(3, "a, b, accumulator")?;
                let x = self.tile_arg(b, args[0], TileTy::Frag(FragRole::A))?;
                let y = self.tile_arg(b, args[1], TileTy::Frag(FragRole::B))?;
                let acc = self.tile_arg(b, args[2], TileTy::Frag(FragRole::Acc))?;
                (b.mma(x, y, acc), TileTy::Frag(FragRole::Acc))
            }
            "mma_group" => {
                call.arity(3, "&a_tile[i], &b_tile[j], wide accumulator")?;
                let x = self.group_tile(b, args[0], "the `a` tile")?;
                let y = self.group_tile(b, args[1], "the `b` tile")?;
                let acc = self.tile_arg(b, args[2], TileTy::Frag(FragRole::WideAcc))?;
                (b.mma_group(x, y, acc), TileTy::Frag(FragRole::WideAcc))
            }
            "load_vec8" => {
                call.arity(1, "&a[i]")?;
                let (ptr, elem) = self.elem_ref(b, args[0], name, false)?;
                check_vector_elem(args[0], elem)?;
                let ty = TileTy::Vector(elem);
                (b.load(ptr, ty.ir()), ty)
            }
            _ => {
                call.arity(1, "a scalar for every lane")?;
                let t = self.infer(args[0]);
                let x = self.value(b, args[0], t)?;
                check_vector_elem(args[0], x.ty)?;
                (b.splat(x.v, VEC_LANES), TileTy::Vector(x.ty))
            }
        };
        Ok(Some(made))
    }

    /// A tile of `mma_group` in shared memory, `&tile[i]`; `tile` names it in errors. The
    /// product reads bf16 in its swizzled layout whatever the array's element type (a kernel
    /// may keep its stages in 32-bit words to share them with other data).
    fn group_tile(&mut self, b: &mut KernelBuilder, e: &Expr, tile: &str) -> Result<Value> {
        let what = format!("{tile} of `mma_group`");
        let (ptr, _) = self.elem_ref_in(b, e, ("mma_group", &what), false, AddrSpace::Shared)?;
        Ok(ptr)
    }

    /// An accumulator of either width, as `frag_store` takes.
    fn acc_arg(&mut self, b: &mut KernelBuilder, e: &Expr) -> Result<Value> {
        let want = "an accumulator (from `frag_zero`, `mma`, `wide_zero` or `mma_group`)";
        match self.tile(b, e)? {
            Some((v, TileTy::Frag(role))) if role.is_acc() => Ok(v),
            Some((_, ty)) => err(e, format!("expected {want}, found {}", ty.name())),
            None => err(e, format!("expected {want}, found a scalar")),
        }
    }

    /// A tile expression of type `want`.
    fn tile_arg(&mut self, b: &mut KernelBuilder, e: &Expr, want: TileTy) -> Result<Value> {
        match self.tile(b, e)? {
            Some((v, ty)) if ty == want => Ok(v),
            Some((_, ty)) => err(e, format!("expected {}, found {}", want.name(), ty.name())),
            None => err(e, format!("expected {}, found a scalar", want.name())),
        }
    }

    // ---- static types ----

    /// The type `e` has regardless of context, where it can be told without lowering it:
    /// unsuffixed literals and const generics have none (they adapt), except that when
    /// nothing else decides, an integer literal is `i32`, a float literal `f64` and a const
    /// generic `u32`.
    fn infer(&self, e: &Expr) -> Option<ScalarType> {
        self.static_ty(e).or_else(|| self.default_ty(e))
    }

    /// The common type of two operands: a static type of either, else a const generic's
    /// `u32` over a literal's default.
    fn infer_pair(&self, a: &Expr, b: &Expr) -> Option<ScalarType> {
        let (da, db) = (self.default_ty(a), self.default_ty(b));
        self.static_ty(a)
            .or_else(|| self.static_ty(b))
            .or_else(|| [da, db].into_iter().flatten().find(|t| *t == S::U32))
            .or(da)
            .or(db)
    }

    fn default_ty(&self, e: &Expr) -> Option<ScalarType> {
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

    fn static_ty(&self, e: &Expr) -> Option<ScalarType> {
        use syn::BinOp as B;
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => scalar_of_name(i.suffix()),
                syn::Lit::Float(f) => scalar_of_name(f.suffix()),
                syn::Lit::Bool(_) => Some(S::I1),
                _ => None,
            },
            Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Local { ty, .. } => Some(ty),
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
                _ => None,
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
            Expr::MethodCall(m) => self
                .static_ty(&m.receiver)
                .or_else(|| m.args.iter().find_map(|a| self.static_ty(a))),
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let name = p.path.segments.last()?.ident.to_string();
                if id_intrinsic(&name).is_some()
                    || matches!(
                        name.as_str(),
                        "subgroup_size"
                            | "subgroup_id"
                            | "subgroup_lane"
                            | "team_rank"
                            | "world_size"
                            | "claim"
                    )
                {
                    return Some(S::U32);
                }
                match name.as_str() {
                    "clock" => Some(S::U64),
                    n if n.starts_with("atomic_") => match c.args.first()? {
                        Expr::Reference(r) => self.static_ty(&r.expr),
                        _ => None,
                    },
                    _ => c.args.iter().find_map(|a| self.static_ty(a)),
                }
            }
            Expr::If(i) => tail_expr(&i.then_branch)
                .and_then(|t| self.static_ty(t))
                .or_else(|| self.static_ty(&i.else_branch.as_ref()?.1)),
            Expr::Block(bl) => self.static_ty(tail_expr(&bl.block)?),
            _ => None,
        }
    }
}

/// A closure argument of `dispatch`: `|t| body` with one plain parameter, the task.
fn role_closure<'a>(e: &'a Expr, what: &str) -> Result<(String, &'a Expr)> {
    let usage = format!("{what} argument of `dispatch` is a closure of the task: `|t| ...`");
    let Expr::Closure(c) = strip_parens(e) else {
        return err(e, usage);
    };
    match c.inputs.iter().collect::<Vec<_>>()[..] {
        [syn::Pat::Ident(p)]
            if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
        {
            Ok((p.ident.to_string(), &c.body))
        }
        _ => err(&c.inputs, usage),
    }
}

/// The task parameter of a `dispatch` closure.
fn task_binding(task: Value) -> Binding {
    Binding::Local {
        v: task,
        ty: S::U32,
        mutable: false,
    }
}

/// Names assigned (`x = ...`, `x += ...`) anywhere in a syntax tree.
struct Assigned(Vec<String>);

impl<'ast> Visit<'ast> for Assigned {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Expr::Path(p) = &*a.left
            && let Some(i) = p.path.get_ident()
        {
            self.0.push(i.to_string());
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, bin: &'ast syn::ExprBinary) {
        let compound = matches!(
            bin.op,
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
        );
        if compound
            && let Expr::Path(p) = &*bin.left
            && let Some(i) = p.path.get_ident()
        {
            self.0.push(i.to_string());
        }
        syn::visit::visit_expr_binary(self, bin);
    }
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

fn tail_expr(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
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
        Expr::Binary(b) => !matches!(
            b.op,
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
        ),
        Expr::If(i) => {
            i.else_branch.is_some() && tail_expr(&i.then_branch).is_some_and(produces_value)
        }
        Expr::Block(b) => tail_expr(&b.block).is_some_and(produces_value),
        Expr::Paren(p) => produces_value(&p.expr),
        Expr::Loop(l) => {
            let mut breaks = BreakValues(Vec::new());
            breaks.visit_block(&l.body);
            !breaks.0.is_empty()
        }
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => !p.path.segments.last().is_some_and(|s| {
                matches!(
                    s.ident.to_string().as_str(),
                    "barrier"
                        | "fence"
                        | "sleep"
                        | "atomic_store"
                        | "frag_store"
                        | "frag_store_within"
                        | "store_vec8"
                        | "copy_async"
                        | "async_commit"
                        | "async_wait"
                )
            }),
            _ => true,
        },
        _ => true,
    }
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}

fn shared_array_call(e: &Expr) -> Option<&syn::ExprCall> {
    match strip_parens(e) {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.last()?.ident == "shared_array" => Some(c),
            _ => None,
        },
        _ => None,
    }
}

fn peer_call(e: &Expr) -> Option<(&syn::ExprCall, &syn::PathSegment)> {
    match strip_parens(e) {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.last()?.ident == "peer" => {
                Some((c, p.path.segments.last()?))
            }
            _ => None,
        },
        _ => None,
    }
}

fn id_intrinsic(name: &str) -> Option<(IdKind, Dim)> {
    let (kind, dim) = name.rsplit_once('_')?;
    let kind = match kind {
        "workitem_id" => IdKind::WorkitemId,
        "workgroup_id" => IdKind::WorkgroupId,
        "workgroup_size" => IdKind::WorkgroupSize,
        "num_workgroups" => IdKind::NumWorkgroups,
        _ => return None,
    };
    let dim = match dim {
        "x" => Dim::X,
        "y" => Dim::Y,
        "z" => Dim::Z,
        _ => return None,
    };
    Some((kind, dim))
}

/// The variant name of `Enum::Variant` (or a longer path ending so) when `Enum` is `enum_name`.
fn variant<'a>(e: &'a Expr, enum_name: &str) -> Option<&'a syn::Ident> {
    let Expr::Path(p) = strip_parens(e) else {
        return None;
    };
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    match segs[..] {
        [.., ty, v] if ty.ident == enum_name => Some(&v.ident),
        _ => None,
    }
}

fn ordering(e: &Expr) -> Result<Ordering> {
    let o = match variant(e, "Ordering").map(|v| v.to_string()).as_deref() {
        Some("Relaxed") => Ordering::Relaxed,
        Some("Acquire") => Ordering::Acquire,
        Some("Release") => Ordering::Release,
        Some("AcqRel") => Ordering::AcqRel,
        Some("SeqCst") => Ordering::SeqCst,
        _ => {
            return err(
                e,
                "expected an ordering: `Ordering::Relaxed`, `Acquire`, `Release`, `AcqRel` or `SeqCst`",
            );
        }
    };
    Ok(o)
}

fn scope(e: &Expr) -> Result<Scope> {
    let s = match variant(e, "Scope").map(|v| v.to_string()).as_deref() {
        Some("Workgroup") => Scope::Workgroup,
        Some("Agent") => Scope::Agent,
        Some("System") => Scope::System,
        _ => {
            return err(
                e,
                "expected a scope: `Scope::Workgroup`, `Scope::Agent` or `Scope::System`",
            );
        }
    };
    Ok(s)
}

/// What the length of a shared array is called in messages.
const SHARED_LEN: &str = "the length of a shared array";

/// The message for a non-constant where `what` must be a constant.
fn non_constant(what: &str) -> String {
    format!("{what} must be a constant: literals and const generics only")
}

/// The message for a tile variable used where a number is expected.
fn tile_as_scalar(name: &str, ty: TileTy) -> String {
    let takers = match ty {
        TileTy::Frag(_) => "fragments only go to `mma`, `mma_group` and `frag_store`",
        TileTy::Vector(_) => "vectors only go to `store_vec8`",
    };
    format!(
        "`{name}` is {}, not a number: {takers}, never into arithmetic",
        ty.name()
    )
}

/// Vectors are 16 bytes at most: 8 lanes of 8- or 16-bit elements.
fn check_vector_elem(e: &Expr, elem: ScalarType) -> Result<()> {
    if elem != S::I1 && elem.bits() <= 16 {
        return Ok(());
    }
    err(
        e,
        format!(
            "vectors of {VEC_LANES} take 8- or 16-bit elements (16 bytes at most), found {}",
            rust_name(elem)
        ),
    )
}

fn check_atomic_type(e: &Expr, name: &str, elem: ScalarType, f32_ok: bool) -> Result<()> {
    let int = elem.is_int() && elem != S::I1 && matches!(elem.bits(), 32 | 64);
    if int || (f32_ok && elem == S::F32) {
        return Ok(());
    }
    let also = if f32_ok { " or f32" } else { "" };
    err(
        e,
        format!(
            "`{name}` takes 32- or 64-bit integers{also}, found {}",
            rust_name(elem)
        ),
    )
}

#[cfg(test)]
mod dispatch_tests {
    use crate::lower_source;

    /// A team kernel whose `dispatch` call has `args` (after the queues, lengths and scope).
    fn with_roles(roles: &str) -> String {
        format!(
            "#[kernel] fn k(team: &Team, n: u32) {{ let q = peer::<u32, 1>(team_rank()); \
             let mut x = 0u32; \
             dispatch(&q[0], n, &q[1], n, Scope::System, {roles}); }}"
        )
    }

    fn error(src: &str) -> String {
        lower_source(src)
            .expect_err("the kernel should not lower")
            .to_string()
    }

    #[test]
    fn dispatch_lowers_its_roles_inline() {
        let src = with_roles("|t| (&q[2 + t], 1), |t| { q[t] = t; }, |t| { q[t] = 2 * t; }");
        assert!(lower_source(&src).is_ok());
    }

    #[test]
    fn dispatch_misuse_is_an_error() {
        for (roles, want) in [
            (
                "|t| (&q[t], 1), |t| { x = t; }, |t| {}",
                "cannot assign the outer variable `x`",
            ),
            (
                "|t| (&q[t], 1), |t| { break; }, |t| {}",
                "`break` outside of a loop",
            ),
            (
                "|t| (&q[t], 1), |t| {}, |t| { return; }",
                "`return` cannot leave a `dispatch` role",
            ),
            (
                "|t| &q[t], |t| {}, |t| {}",
                "returns `(&counter[i], expected)`",
            ),
            ("|t| (&q[t], 1), 3u32, |t| {}", "closure of the task"),
            ("|a, b| (&q[a], 1), |t| {}, |t| {}", "closure of the task"),
            (
                "|t| (&q[t], 1), |t| { dispatch(&q[0], 1u32, &q[1], 1u32, Scope::System, |s| (&q[s], 1), |s| {}, |s| {}); }, |t| {}",
                "cannot be nested",
            ),
            ("|t| (&q[t], 1), |t| { q[y] = t; }, |t| {}", "y"),
        ] {
            let e = error(&with_roles(roles));
            assert!(e.contains(want), "{roles}: {e}");
        }
        let e = error(
            "#[kernel] fn k(a: &mut [u32]) { dispatch(&a[0], 1u32, &a[1], 1u32, Scope::System, |t| (&a[t], 1), |t| {}, |t| {}); }",
        );
        assert!(e.contains("needs a world"), "{e}");
    }
}
