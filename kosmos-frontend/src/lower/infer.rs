//! Literal inference: the types of unannotated `let` variables and `for` loop variables whose
//! initial values are only literals (`let mut sum = 0.0;`), decided by their later uses, as
//! rustc decides them.
//!
//! Before a body is lowered, one walk gives each such variable a type variable and each
//! unsuffixed literal a fresh one, and unifies them along the uses that demand one type:
//! the operands of arithmetic and comparisons, assignments and compound assignments, the
//! bounds and step of a range, the arguments of math intrinsics, atomics and device
//! functions. Each class of unified variables then takes, in this order: a type it met
//! (a parameter, a suffixed literal, a cast, an element, an intrinsic's result), `f64` for a
//! float literal, `u64` (`usize`) when it is used as an index, `u32` for a const generic,
//! `i32` for an integer literal. This is a unification over variables, not a type checker:
//! a conflict is left for the lowering to report at the tokens where it happens, and a
//! variable the walk cannot type keeps the type its initial value gives it.

use super::intrinsics::{Call, Lowering, ResultTy, intrinsic};
use super::tiles::sole_tail;
use super::{Binding, Lower, strip_parens};
use crate::items::{DeviceFn, DeviceParamTy};
use crate::sig::{scalar_of_name, scalar_type};
use kosmos_ir::ScalarType;
use std::collections::HashMap;
use syn::{Expr, Stmt};

use ScalarType as S;

/// The inferred types, by the address of the `syn::Local` or `syn::ExprForLoop` that binds
/// the variable (the syntax outlives the lowering, so addresses identify it).
#[derive(Debug, Default)]
pub(super) struct Solution(HashMap<usize, ScalarType>);

fn key<T>(node: &T) -> usize {
    node as *const T as usize
}

impl Solution {
    pub(super) fn of<T>(&self, node: &T) -> Option<ScalarType> {
        self.0.get(&key(node)).copied()
    }
}

/// What the walk knows of an expression's type.
#[derive(Copy, Clone, Debug)]
enum Term {
    /// Nothing (no value, or one the walk does not type).
    Unknown,
    Known(ScalarType),
    Var(usize),
}

/// What a class of unified variables has met.
#[derive(Copy, Clone, Debug, Default)]
struct Class {
    known: Option<ScalarType>,
    float_literal: bool,
    index: bool,
    const_generic: bool,
    int_literal: bool,
}

impl Class {
    fn merge(self, o: Class) -> Class {
        Class {
            known: self.known.or(o.known),
            float_literal: self.float_literal || o.float_literal,
            index: self.index || o.index,
            const_generic: self.const_generic || o.const_generic,
            int_literal: self.int_literal || o.int_literal,
        }
    }

    fn resolve(self) -> Option<ScalarType> {
        self.known.or(if self.float_literal {
            Some(S::F64)
        } else if self.index {
            Some(S::U64)
        } else if self.const_generic {
            Some(S::U32)
        } else if self.int_literal {
            Some(S::I32)
        } else {
            None
        })
    }
}

/// What a name is during the walk.
#[derive(Copy, Clone)]
enum Name {
    Value(Term),
    Slice(ScalarType),
    /// A symmetric buffer parameter of this element type.
    Sym(ScalarType),
    /// A vector whose elements are of this type (what `extract` gives).
    Vector(Term),
    ConstGeneric,
}

struct Walk<'a> {
    lower: &'a Lower,
    /// Union-find over type variables, and each root's class.
    parent: Vec<usize>,
    class: Vec<Class>,
    scopes: Vec<HashMap<String, Name>>,
    /// The result variables of the enclosing `loop`s (`None` for `for` and `while`).
    loops: Vec<Option<usize>>,
    bound: Vec<(usize, usize)>,
}

impl Lower {
    /// Infers the variables of `body`, whose outer names are the current scopes' (a kernel's
    /// parameters, or a device function's).
    pub(super) fn infer_body(&mut self, body: &syn::Block) {
        let outer = self
            .scopes
            .iter()
            .flat_map(|s| s.iter())
            .filter_map(|(n, b)| {
                let name = match *b {
                    Binding::Local { ty, .. } => Name::Value(Term::Known(ty)),
                    Binding::Slice { elem, .. } => Name::Slice(elem),
                    Binding::Sym(sym) => Name::Sym(sym.elem),
                    Binding::Const(_) => Name::ConstGeneric,
                    Binding::ModuleConst(_) | Binding::Tile { .. } | Binding::TensorMap(_) => {
                        return None;
                    }
                };
                Some((n.clone(), name))
            })
            .collect();
        let mut w = Walk {
            lower: self,
            parent: Vec::new(),
            class: Vec::new(),
            scopes: vec![outer],
            loops: Vec::new(),
            bound: Vec::new(),
        };
        w.block(body);
        let solved: Vec<(usize, Option<ScalarType>)> = std::mem::take(&mut w.bound)
            .into_iter()
            .map(|(node, var)| {
                let root = w.find(var);
                (node, w.class[root].resolve())
            })
            .collect();
        for (node, ty) in solved {
            if let Some(ty) = ty {
                self.inferred.0.insert(node, ty);
            }
        }
    }
}

impl Walk<'_> {
    fn fresh(&mut self, class: Class) -> Term {
        self.parent.push(self.parent.len());
        self.class.push(class);
        Term::Var(self.parent.len() - 1)
    }

    fn find(&mut self, v: usize) -> usize {
        let p = self.parent[v];
        if p == v {
            return v;
        }
        let root = self.find(p);
        self.parent[v] = root;
        root
    }

    /// Makes `a` and `b` one type; returns it.
    fn unify(&mut self, a: Term, b: Term) -> Term {
        match (a, b) {
            (Term::Var(x), Term::Var(y)) => {
                let (x, y) = (self.find(x), self.find(y));
                if x != y {
                    self.parent[y] = x;
                    self.class[x] = self.class[x].merge(self.class[y]);
                }
                Term::Var(x)
            }
            (Term::Var(x), Term::Known(t)) | (Term::Known(t), Term::Var(x)) => {
                let x = self.find(x);
                self.class[x].known.get_or_insert(t);
                Term::Var(x)
            }
            (Term::Unknown, t) | (t, Term::Unknown) => t,
            (k @ Term::Known(_), Term::Known(_)) => k,
        }
    }

    fn mark_index(&mut self, t: Term) {
        if let Term::Var(x) = t {
            let x = self.find(x);
            self.class[x].index = true;
        }
    }

    fn name(&self, name: &str) -> Option<Name> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: String, n: Name) {
        self.scopes.last_mut().expect("a scope").insert(name, n);
    }

    fn block(&mut self, block: &syn::Block) -> Term {
        self.scopes.push(HashMap::new());
        let mut tail = Term::Unknown;
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Local(local) => self.local(local),
                Stmt::Expr(e, None) if i + 1 == block.stmts.len() => tail = self.expr(e),
                Stmt::Expr(e, _) => drop(self.expr(e)),
                Stmt::Item(_) | Stmt::Macro(_) => {}
            }
        }
        self.scopes.pop();
        tail
    }

    fn local(&mut self, local: &syn::Local) {
        let (pat, ann) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        let Some(init) = &local.init else { return };
        let syn::Pat::Ident(pi) = pat else { return };
        let name = pi.ident.to_string();
        if let Some(slice) = self.made_slice(&init.expr) {
            self.bind(name, slice);
            return;
        }
        if let Some(elem) = self.made_vector(&init.expr) {
            self.bind(name, Name::Vector(elem));
            return;
        }
        let init_term = self.expr(&init.expr);
        let term = match ann {
            Some(ty) => scalar_type(ty, "").map_or(Term::Unknown, Term::Known),
            None => {
                let var = self.fresh(Class::default());
                let Term::Var(v) = self.unify(var, init_term) else {
                    unreachable!("a variable unifies to a variable")
                };
                self.bound.push((key(local), v));
                Term::Var(v)
            }
        };
        self.bind(name, Name::Value(term));
    }

    /// The slice `let x = shared_array::<T, N>()` or `sym.peer(rank)` makes.
    fn made_slice(&mut self, e: &Expr) -> Option<Name> {
        if let Some(elem) = self.sym_view(e) {
            return Some(Name::Slice(elem));
        }
        let Expr::Call(c) = strip_parens(e) else {
            return None;
        };
        let call = Call::of(c)?;
        if !matches!(intrinsic(&call.name)?.lowering, Lowering::Let(..)) {
            return None;
        }
        let syn::PathArguments::AngleBracketed(args) = &call.seg.arguments else {
            return None;
        };
        match args.args.first()? {
            syn::GenericArgument::Type(t) => scalar_type(t, "").ok().map(Name::Slice),
            _ => None,
        }
    }

    /// The element type of the vector `e` makes, if it calls a vector intrinsic.
    fn made_vector(&mut self, e: &Expr) -> Option<Term> {
        let c = match strip_parens(e) {
            Expr::Call(c) => c,
            Expr::Unsafe(u) => return self.made_vector(sole_tail(&u.block)?),
            _ => return None,
        };
        let call = Call::of(c)?;
        let first = call.args.first()?;
        Some(match call.name.as_str() {
            "load_vec8" | "load_vec4" => self.elem_ref(first),
            "splat8" => self.expr(first),
            "vec4" | "vec8" => {
                let terms: Vec<Term> = call.args.iter().map(|a| self.expr(a)).collect();
                terms
                    .into_iter()
                    .fold(Term::Unknown, |t, a| self.unify(t, a))
            }
            _ => return None,
        })
    }

    fn literal(&mut self, lit: &syn::Lit) -> Term {
        let suffixed = |suffix: &str| scalar_of_name(suffix).map(Term::Known);
        match lit {
            syn::Lit::Int(i) => suffixed(i.suffix()).unwrap_or_else(|| {
                self.fresh(Class {
                    int_literal: true,
                    ..Class::default()
                })
            }),
            syn::Lit::Float(f) => suffixed(f.suffix()).unwrap_or_else(|| {
                self.fresh(Class {
                    float_literal: true,
                    ..Class::default()
                })
            }),
            syn::Lit::Bool(_) => Term::Known(S::I1),
            _ => Term::Unknown,
        }
    }

    fn path(&mut self, p: &syn::ExprPath) -> Term {
        let Some(ident) = p.path.get_ident() else {
            return Term::Unknown;
        };
        let name = ident.to_string();
        match self.name(&name) {
            Some(Name::Value(t)) => t,
            Some(Name::ConstGeneric) => self.fresh(Class {
                const_generic: true,
                ..Class::default()
            }),
            Some(Name::Slice(_) | Name::Sym(_) | Name::Vector(_)) => Term::Unknown,
            None => self
                .lower
                .items
                .constant(&name)
                .map_or(Term::Unknown, |(_, c)| Term::Known(c.ty)),
        }
    }

    /// `x.peer(rank)` or `x.local()` of a symmetric buffer `x`: its element type; the
    /// rank is a `u32`.
    fn sym_view(&mut self, e: &Expr) -> Option<ScalarType> {
        let Expr::MethodCall(m) = strip_parens(e) else {
            return None;
        };
        let Expr::Path(p) = strip_parens(&m.receiver) else {
            return None;
        };
        let Some(Name::Sym(elem)) = self.name(&p.path.get_ident()?.to_string()) else {
            return None;
        };
        if m.method != "peer" && m.method != "local" {
            return None;
        }
        for a in &m.args {
            let t = self.expr(a);
            self.unify(t, Term::Known(S::U32));
        }
        Some(elem)
    }

    /// The element type of slice `e` (a name).
    fn slice_elem(&self, e: &Expr) -> Option<ScalarType> {
        let Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        match self.name(&p.path.get_ident()?.to_string())? {
            Name::Slice(elem) => Some(elem),
            _ => None,
        }
    }

    /// `a[i]`: its element type; `i` is an index.
    fn index(&mut self, base: &Expr, index: &Expr) -> Term {
        let i = self.expr(index);
        self.mark_index(i);
        self.sym_view(base)
            .or_else(|| self.slice_elem(base))
            .map_or(Term::Unknown, Term::Known)
    }

    /// The element an element reference (`&a[i]`, `a.get_unchecked(i)`) is of.
    fn elem_ref(&mut self, e: &Expr) -> Term {
        match strip_parens(e) {
            Expr::Reference(r) => match strip_parens(&r.expr) {
                Expr::Index(ix) => self.index(&ix.expr, &ix.index),
                other => self.expr(other),
            },
            other => self.expr(other),
        }
    }

    fn expr(&mut self, e: &Expr) -> Term {
        use syn::BinOp as B;
        match e {
            Expr::Lit(l) => self.literal(&l.lit),
            Expr::Path(p) => self.path(p),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Unary(u) => match u.op {
                syn::UnOp::Deref(_) => self.elem_ref(&u.expr),
                _ => self.expr(&u.expr),
            },
            Expr::Cast(c) => {
                self.expr(&c.expr);
                scalar_type(&c.ty, "").map_or(Term::Unknown, Term::Known)
            }
            Expr::Index(ix) => self.index(&ix.expr, &ix.index),
            Expr::Assign(a) => {
                let (l, r) = (self.expr(&a.left), self.expr(&a.right));
                self.unify(l, r);
                Term::Unknown
            }
            Expr::Binary(bin) => {
                let (l, r) = (self.expr(&bin.left), self.expr(&bin.right));
                match bin.op {
                    B::Shl(_) | B::Shr(_) => l,
                    B::ShlAssign(_) | B::ShrAssign(_) => Term::Unknown,
                    B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) => {
                        self.unify(l, r);
                        Term::Known(S::I1)
                    }
                    B::And(_) | B::Or(_) => {
                        self.unify(l, Term::Known(S::I1));
                        self.unify(r, Term::Known(S::I1));
                        Term::Known(S::I1)
                    }
                    B::AddAssign(_)
                    | B::SubAssign(_)
                    | B::MulAssign(_)
                    | B::DivAssign(_)
                    | B::RemAssign(_)
                    | B::BitAndAssign(_)
                    | B::BitOrAssign(_)
                    | B::BitXorAssign(_) => {
                        self.unify(l, r);
                        Term::Unknown
                    }
                    _ => self.unify(l, r),
                }
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::If(i) => {
                let cond = self.expr(&i.cond);
                self.unify(cond, Term::Known(S::I1));
                let then = self.block(&i.then_branch);
                let other = i.else_branch.as_ref().map(|(_, e)| self.expr(e));
                self.unify(then, other.unwrap_or(Term::Unknown))
            }
            Expr::Block(bl) => self.block(&bl.block),
            Expr::Unsafe(u) => self.block(&u.block),
            Expr::ForLoop(f) => {
                self.for_loop(f);
                Term::Unknown
            }
            Expr::While(w) => {
                self.expr(&w.cond);
                self.loops.push(None);
                self.block(&w.body);
                self.loops.pop();
                Term::Unknown
            }
            Expr::Loop(lp) => {
                let result = self.fresh(Class::default());
                let Term::Var(v) = result else {
                    unreachable!("fresh gives a variable")
                };
                self.loops.push(Some(v));
                self.block(&lp.body);
                self.loops.pop();
                Term::Var(v)
            }
            Expr::Break(br) => {
                if let Some(value) = &br.expr {
                    let t = self.expr(value);
                    if let Some(Some(v)) = self.loops.last().copied() {
                        self.unify(Term::Var(v), t);
                    }
                }
                Term::Unknown
            }
            Expr::Return(r) => {
                if let Some(value) = &r.expr {
                    self.expr(value);
                }
                Term::Unknown
            }
            Expr::Reference(r) => self.expr(&r.expr),
            Expr::Closure(c) => {
                // The roles of `dispatch`: their parameter is a task number.
                self.scopes.push(HashMap::new());
                for input in &c.inputs {
                    if let syn::Pat::Ident(pi) = input {
                        self.bind(pi.ident.to_string(), Name::Value(Term::Known(S::U32)));
                    }
                }
                self.expr(&c.body);
                self.scopes.pop();
                Term::Unknown
            }
            Expr::Tuple(t) => {
                for e in &t.elems {
                    self.expr(e);
                }
                Term::Unknown
            }
            _ => Term::Unknown,
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) {
        let (range, step) = match strip_parens(&f.expr) {
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            other => (other, None),
        };
        let mut var = self.fresh(Class::default());
        if let Expr::Range(r) = range {
            for bound in r.start.iter().chain(&r.end) {
                let t = self.expr(bound);
                var = self.unify(var, t);
            }
        }
        if let Some(step) = step {
            let t = self.expr(step);
            var = self.unify(var, t);
        }
        let Term::Var(v) = var else {
            unreachable!("a variable unifies to a variable")
        };
        self.bound.push((key(f), v));
        self.scopes.push(HashMap::new());
        if let syn::Pat::Ident(pi) = &*f.pat {
            self.bind(pi.ident.to_string(), Name::Value(var));
        }
        self.loops.push(None);
        self.block(&f.body);
        self.loops.pop();
        self.scopes.pop();
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Term {
        let method = m.method.to_string();
        if method == "len" {
            return Term::Known(S::U64);
        }
        if method.starts_with("get_unchecked") {
            let i = m.args.first().map_or(Term::Unknown, |a| self.expr(a));
            self.mark_index(i);
            return self
                .slice_elem(&m.receiver)
                .map_or(Term::Unknown, Term::Known);
        }
        let receiver = self.expr(&m.receiver);
        let args: Vec<Term> = m.args.iter().map(|a| self.expr(a)).collect();
        if SAME_TYPE_METHODS.contains(&method.as_str()) {
            args.into_iter().fold(receiver, |t, a| self.unify(t, a))
        } else if RECEIVER_TYPE_METHODS.contains(&method.as_str()) {
            receiver
        } else {
            Term::Unknown
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> Term {
        let Some(call) = Call::of(c) else {
            return Term::Unknown;
        };
        if let Some(f) = self.lower.items.device(&call.name) {
            return self.device_call(f, &call.args);
        }
        let Some(intrinsic) = intrinsic(&call.name) else {
            for a in &call.args {
                self.expr(a);
            }
            return Term::Unknown;
        };
        if call.name.starts_with("atomic_") {
            // The values an atomic takes are of the element's type.
            let elem = call
                .args
                .first()
                .map_or(Term::Unknown, |a| self.elem_ref(a));
            for a in &call.args[1.min(call.args.len())..] {
                let t = self.expr(a);
                self.unify(elem, t);
            }
            return elem;
        }
        let args: Vec<Term> = call.args.iter().map(|a| self.expr(a)).collect();
        match &intrinsic.lowering {
            Lowering::Scalar(ResultTy::Fixed(t), _) => Term::Known(*t),
            Lowering::Scalar(ResultTy::Operands, _) => args
                .into_iter()
                .fold(Term::Unknown, |t, a| self.unify(t, a)),
            Lowering::Scalar(ResultTy::First, _) => args.first().copied().unwrap_or(Term::Unknown),
            Lowering::Scalar(ResultTy::Lane, _) => {
                let vector = call.args.first().and_then(|a| match strip_parens(a) {
                    Expr::Path(p) => self.name(&p.path.get_ident()?.to_string()),
                    _ => None,
                });
                match vector {
                    Some(Name::Vector(elem)) => elem,
                    _ => Term::Unknown,
                }
            }
            _ => Term::Unknown,
        }
    }

    fn device_call(&mut self, f: &DeviceFn, args: &[&Expr]) -> Term {
        for (i, a) in args.iter().enumerate() {
            let t = self.expr(a);
            if let Some(DeviceParamTy::Scalar(p)) = f.params.get(i).map(|p| &p.ty) {
                self.unify(t, Term::Known(*p));
            }
        }
        f.ret.scalar().map_or(Term::Unknown, Term::Known)
    }
}

/// Methods whose receiver and arguments are of one type, which they give.
const SAME_TYPE_METHODS: &[&str] = &[
    "min", "max", "clamp", "mul_add", "copysign", "hypot", "atan2",
];

/// Methods that give a value of their receiver's type (whatever their arguments).
const RECEIVER_TYPE_METHODS: &[&str] = &[
    "abs",
    "sqrt",
    "rsqrt",
    "exp",
    "exp2",
    "ln",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "tanh",
    "erf",
    "powi",
    "powf",
    "recip",
    "floor",
    "ceil",
    "round",
    "trunc",
    "signum",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
];
