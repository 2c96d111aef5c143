//! Lowering of a kernel body to IR through `KernelBuilder`.
//!
//! Types are checked while lowering: every expression is lowered with the type its context
//! expects (when there is one), and literals take that type. Mutable variables live in a
//! scope stack as the SSA value they currently hold; a branch or loop that assigns outer
//! variables yields their new values as the `if`'s results or the loop's carried values.
//!
//! One context, [`Lower`] (here, with its bindings and scopes), walks the body; its methods
//! live with the part of the language they lower: `stmt` (statements and `let`), `expr`
//! (operators, paths, indexing, assignment), `control` (`if`, loops, `break`, regions),
//! `types` (literals, static types, constant expressions) and the intrinsics, which
//! `intrinsics` dispatches through one table to their families: `memory` (shared arrays,
//! barriers, fences, atomics), `math`, `tiles` (fragments, vectors, asynchronous copies) and
//! `sched` (the team intrinsics).

pub(crate) use self::device::check_device;

mod async_copy;
mod bounds;
mod control;
mod device;
mod expr;
mod infer;
mod intrinsics;
mod math;
mod memory;
mod sched;
mod stmt;
mod tiles;
mod types;

pub use intrinsics::intrinsic_names;

use crate::items::Items;
use crate::sig::{Instance, KernelDef, ParamKind, rust_name};
use control::LoopCtx;
use kosmos_ir::{AddrSpace, Kernel, KernelBuilder, ScalarType, Type, Value};
use kosmos_sched::{Sched, SchedOptions, Team};
use std::collections::HashMap;
use std::rc::Rc;
use syn::{Error, Expr, Ident, Result};
use tiles::TileTy;

/// A lowered scalar and its type.
#[derive(Copy, Clone, Debug)]
struct Val {
    v: Value,
    ty: ScalarType,
}

/// What a name in scope stands for.
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
        /// Global (parameters, ranks' copies of symmetric buffers) or shared
        /// (`shared_array`).
        space: AddrSpace,
        /// The length in elements (`u64`) that accesses are checked against.
        len: Value,
    },
    /// A `&Sym<[T]>` parameter: only `.peer(rank)`, `.local()` and `.len()` take it.
    Sym(SymParam),
    Const(u32),
    /// A module-level `const` item: the index of its `Items::consts` entry.
    ModuleConst(usize),
    /// A `&TensorMap` parameter: only `copy_tensor` takes it.
    TensorMap(Value),
    /// A fragment or vector variable: only tile intrinsics take it.
    Tile {
        v: Value,
        ty: TileTy,
        mutable: bool,
    },
}

/// A symmetric buffer parameter (`&Sym<[T]>`) as the launch passes it.
#[derive(Copy, Clone, Debug)]
struct SymParam {
    /// Its index in the peer table (`u32`).
    index: Value,
    /// Its length in elements (`u64`), the same on every rank.
    len: Value,
    elem: ScalarType,
}

impl SymParam {
    /// Declares the kernel parameters of symmetric buffer `name` of `elem`s: `name`, its
    /// index, and `name.len`, its length (what a world launcher passes for a
    /// `SymmetricBuffer`).
    fn declare(b: &mut KernelBuilder, name: &str, elem: ScalarType) -> SymParam {
        SymParam {
            index: b.param(name, Type::U32),
            len: b.param(&format!("{name}.len"), Type::Scalar(ScalarType::U64)),
            elem,
        }
    }
}

/// A kernel's scheduling context before the shared array that lends it its scratch words
/// (`#[kernel(scheduler_scratch = array)]`) exists.
struct PendingSched {
    team: Team,
    options: SchedOptions,
    array: Ident,
}

/// The lowering state of one kernel instance.
struct Lower {
    /// The source file of the kernel, for the origins of bounds errors ("" when unknown).
    file: String,
    /// Nesting depth of `unsafe` blocks, where `get_unchecked` may be called.
    unsafe_depth: usize,
    scopes: Vec<HashMap<String, Binding>>,
    loops: Vec<LoopCtx>,
    /// Nesting depth of IR regions (`if`/`for`/`loop` bodies); 0 is the kernel body.
    depth: usize,
    /// The current region already ended with `break` or `return`.
    terminated: bool,
    /// The scheduling context of a kernel with a `team: &Team` parameter (shared: the
    /// role bodies of `dispatch` are lowered while its loop holds it).
    sched: Option<Rc<Sched>>,
    /// The scheduling context still to make, once the shared array that
    /// `scheduler_scratch` names is allocated.
    pending_sched: Option<PendingSched>,
    /// The bytes of each `shared_array`, by its pointer (what a `shared_view` may cover).
    shared_bytes: HashMap<Value, u64>,
    /// Lowering a role body of `dispatch`.
    in_role: bool,
    /// The device functions and constants of the kernel's file.
    items: Rc<Items>,
    /// The device functions being inlined, outermost first (a call of one of them recurses).
    inlining: Vec<String>,
    /// The current region reached a `continue`: the rest of its block is skipped.
    continued: bool,
    /// The types that literal inference gave unannotated `let`s and `for` variables
    /// ([`infer::Solution`]).
    inferred: infer::Solution,
    /// A name was not found that may be an item the `Items` lack (they are incomplete).
    unresolved: bool,
    /// The error came from the body of an inlined device function.
    failed_inlined: bool,
}

fn err<T>(tokens: impl quote::ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(Error::new_spanned(tokens, message))
}

fn mismatch(expected: ScalarType, found: &str) -> String {
    format!("expected {}, found {found}", rust_name(expected))
}

impl KernelDef {
    /// Lowers one instance to an IR kernel and verifies it.
    pub fn lower(&self, inst: &Instance) -> Result<Kernel> {
        self.lower_instance(inst).0
    }

    /// Checks every instance as [`KernelDef::lower`] does (the `#[kernel]` macro's check),
    /// except for two errors it leaves to others: one in the body of a device function,
    /// which `#[device]` reports at its tokens ([`DeviceFn::check`](crate::items::DeviceFn::check)), and, when the
    /// kernel's `items` are incomplete, one after a name that may be a missing item, which
    /// the build step reports.
    pub fn check(&self) -> Result<()> {
        for inst in &self.instances {
            match self.lower_instance(inst) {
                (Err(_), l) if l.failed_inlined => return Ok(()),
                (Err(_), l) if l.unresolved && !self.items.complete => return Ok(()),
                (r, _) => drop(r?),
            }
        }
        Ok(())
    }

    /// [`KernelDef::lower`], and the lowering's state where it ended.
    fn lower_instance(&self, inst: &Instance) -> (Result<Kernel>, Lower) {
        let mut b = KernelBuilder::new(self.instance_name(inst), self.max_workgroup_size);
        if !self.file.is_empty() {
            b.set_source(&self.file);
        }
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
                // Lengths are read once at the kernel's entry (unused ones cost nothing on
                // GPUs).
                ParamKind::Slice { elem, mutable } => {
                    let ptr = b.param(&name, Type::GLOBAL_PTR);
                    Binding::Slice {
                        ptr,
                        elem,
                        writable: mutable,
                        space: AddrSpace::Global,
                        len: Lower::param_len(&mut b, ptr, elem),
                    }
                }
                ParamKind::TensorMap => Binding::TensorMap(b.param(&name, Type::GLOBAL_PTR)),
                ParamKind::Sym(elem) => Binding::Sym(SymParam::declare(&mut b, &name, elem)),
                ParamKind::Scalar(ty) => Binding::Local {
                    v: b.param(&name, Type::Scalar(ty)),
                    ty,
                    mutable: false,
                },
            };
            scope.insert(name, binding);
        }
        // Tracing is built into every team kernel: a world without trace capacity records
        // nothing (a load per task).
        let traced = SchedOptions { trace: true };
        let mut l = Lower::new(self.file.clone(), self.items.clone(), None);
        match (team, &self.scheduler_scratch) {
            (Some(team), Some(array)) => {
                l.pending_sched = Some(PendingSched {
                    team,
                    options: traced,
                    array: array.clone(),
                });
            }
            (Some(team), None) => l.sched = Some(Rc::new(Sched::new(&mut b, team, traced))),
            (None, Some(array)) => {
                let e = err(
                    array,
                    "`scheduler_scratch` lends shared memory to the scheduler of a world: make `team: &Team` the kernel's first parameter",
                );
                return (e, l);
            }
            (None, None) => {}
        }
        l.scopes = vec![scope];
        l.infer_body(&self.body);
        let r = l.body(b, self);
        (r, l)
    }
}

impl Lower {
    fn new(file: String, items: Rc<Items>, sched: Option<Rc<Sched>>) -> Lower {
        Lower {
            file,
            unsafe_depth: 0,
            scopes: Vec::new(),
            loops: Vec::new(),
            depth: 0,
            terminated: false,
            sched,
            pending_sched: None,
            shared_bytes: HashMap::new(),
            in_role: false,
            items,
            inlining: Vec::new(),
            continued: false,
            inferred: infer::Solution::default(),
            unresolved: false,
            failed_inlined: false,
        }
    }
}

impl Lower {
    /// Lowers the kernel's body and verifies the kernel.
    fn body(&mut self, mut b: KernelBuilder, def: &KernelDef) -> Result<Kernel> {
        if let Some(v) = self.stmts(&mut b, &def.body.stmts, None)? {
            let tail = def.body.stmts.last().expect("a tail value has a statement");
            return err(
                tail,
                format!(
                    "kernels return nothing, but this block ends in a {} value",
                    rust_name(v.ty)
                ),
            );
        }
        if let Some(p) = &self.pending_sched {
            return err(
                &p.array,
                format!(
                    "`scheduler_scratch` names `{0}`, but the kernel has no top-level `let {0} = shared_array::<T, N>()`",
                    p.array
                ),
            );
        }
        let mut kernel = b.finish();
        kernel.max_subgroups = def.max_subgroups;
        kernel.min_resident = def.min_resident;
        let kernel = kosmos_ir::verify(kernel).map_err(|e| {
            Error::new(
                def.name.span(),
                format!("the kernel's IR does not verify:\n{e}"),
            )
        })?;
        Ok(kernel.into_kernel())
    }
}

impl Lower {
    /// What `name` stands for: a variable, parameter or const generic in scope, else a
    /// module-level constant.
    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
            .or_else(|| Some(Binding::ModuleConst(self.items.constant(name)?.0)))
    }

    /// The error for a name that is not found: may be an item the `Items` lack.
    fn not_found<T>(&mut self, tokens: impl quote::ToTokens, message: String) -> Result<T> {
        self.unresolved = true;
        err(tokens, message)
    }

    fn bind(&mut self, name: String, binding: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name, binding);
    }

    /// After an `if` or a loop: the outer variables it assigned now name its results.
    fn rebind(&mut self, carried: &[String], results: &[Value]) {
        for (name, v) in carried.iter().zip(results) {
            self.set_local(name, *v);
        }
    }

    /// Gives the innermost variable `name` (a mutable local) a new value.
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
}

/// `e` without the parentheses (and invisible groups) around it.
fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        e => e,
    }
}

/// A block's tail expression: its last statement when that has no semicolon.
fn tail_expr(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}
