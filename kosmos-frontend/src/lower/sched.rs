//! Scheduling (docs/scheduling.md "In the DSL"): the intrinsics of a kernel with a
//! `team: &Team` parameter — the team queries (`team_one_launch` among them),
//! `start_barrier`, `team_barrier` and `team_last_out`, the counter operations `signal`, `wait` and `claim`,
//! `report_overflow` — the role switch `dispatch`, lowered onto `kosmos_sched::Sched`, and
//! the ranks' copies of its symmetric buffer parameters (`x.peer(rank)`).

use super::bounds::Elem;
use super::intrinsics::{Call, u32_val};
use super::memory::scope;
use super::{Binding, Lower, SymParam, Val, err, strip_parens};
use crate::sig::rust_name;
use kosmos_ir::{KernelBuilder, ScalarType, Scope, Type, Value};
use kosmos_sched::{Queues, Role, Sched};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Error, Expr, ExprMethodCall, Result};

use ScalarType as S;

impl Lower {
    pub(super) fn team_rank(
        &mut self,
        _: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        Ok(u32_val(self.sched(call)?.team().rank()))
    }

    pub(super) fn world_size(
        &mut self,
        _: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        Ok(u32_val(self.sched(call)?.team().world_size()))
    }

    pub(super) fn team_workgroup(
        &mut self,
        _: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        Ok(u32_val(self.sched(call)?.team().workgroup()))
    }

    pub(super) fn start_barrier(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        self.sched(call)?.start_barrier(b);
        Ok(())
    }

    pub(super) fn team_barrier(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        self.sched(call)?.team_barrier(b);
        Ok(())
    }

    /// `team_one_launch()`: whether the whole world runs in this launch
    /// (`Sched::one_launch`).
    pub(super) fn team_one_launch(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let one = self.sched(call)?.one_launch(b);
        Ok(Val { v: one, ty: S::I1 })
    }

    /// `team_last_out()`: whether this workgroup is the world's last to leave
    /// (`Sched::team_last_out`).
    pub(super) fn team_last_out(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let last = self.sched(call)?.team_last_out(b);
        Ok(Val { v: last, ty: S::I1 })
    }

    /// `report_overflow(capacity, needed)`: a capacity record naming the call's source
    /// line (the host names it as a bounds error names its access).
    pub(super) fn report_overflow(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let sched = self.sched(call)?.clone();
        let capacity = self.value(b, call.args[0], Some(S::U32))?;
        let needed = self.value(b, call.args[1], Some(S::U32))?;
        let line = call.call.span().start().line as u32;
        sched.report_overflow(b, capacity.v, needed.v, line);
        Ok(())
    }

    pub(super) fn signal(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let (ptr, n, scope) = self.signal_args(b, call)?;
        self.sched(call)?.signal(b, ptr, n, scope);
        Ok(())
    }

    pub(super) fn wait(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let (ptr, expected, scope, task, id) = self.wait_args(b, call)?;
        self.sched(call)?.wait(b, ptr, expected, scope, task, id);
        Ok(())
    }

    pub(super) fn claim(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let (head, len) = self.claim_args(b, call)?;
        Ok(u32_val(self.sched(call)?.claim(b, head, len)))
    }

    /// `subgroup_claim(&head[i], len)`: `claim` by the calling subgroup alone (lane 0's
    /// ticket, shuffled to its lanes), for kernels whose subgroups take different roles.
    pub(super) fn subgroup_claim(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let (head, len) = self.claim_args(b, call)?;
        Ok(u32_val(self.sched(call)?.subgroup_claim(b, head, len)))
    }

    /// `subgroup_wait(&counter[i], expected, scope, task)`: `wait` by the calling subgroup
    /// alone; `false` when it gave up (recorded as `wait` records it) or the world aborted,
    /// and the caller winds its role down instead of leaving the kernel.
    pub(super) fn subgroup_wait(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let (ptr, expected, scope, task, id) = self.wait_args(b, call)?;
        let sched = self.sched(call)?;
        let ok = sched.subgroup_wait(b, ptr, expected, scope, task, id);
        Ok(Val { v: ok, ty: S::I1 })
    }

    /// `subgroup_signal(&counter[i], n, scope)`: `signal` once the calling subgroup's lanes
    /// have written their part (each fences, they meet, lane 0 adds).
    pub(super) fn subgroup_signal(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let (ptr, n, scope) = self.signal_args(b, call)?;
        self.sched(call)?.subgroup_signal(b, ptr, n, scope);
        Ok(())
    }

    /// The arguments of `claim` and `subgroup_claim`: the head counter's pointer and the
    /// queue's length.
    fn claim_args(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<(Value, Value)> {
        let (ptr, _) = self.counter_ref(b, call.args[0], &call.name)?;
        let len = self.value(b, call.args[1], Some(S::U32))?;
        Ok((ptr, len.v))
    }

    /// The arguments of `signal` and `subgroup_signal`: the counter's pointer, the count
    /// and the scope.
    fn signal_args(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<(Value, Value, Scope)> {
        let (ptr, _) = self.counter_ref(b, call.args[0], &call.name)?;
        let n = self.value(b, call.args[1], Some(S::U32))?;
        Ok((ptr, n.v, scope(call.args[2])?))
    }

    /// The arguments of `wait` and `subgroup_wait`: the counter's pointer, the expected
    /// count, the scope, the task and the counter's id in error records.
    fn wait_args(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
    ) -> Result<(Value, Value, Scope, Value, Value)> {
        let args = &call.args;
        let (ptr, index) = self.counter_ref(b, args[0], &call.name)?;
        let expected = self.value(b, args[1], Some(S::U32))?;
        let scope = scope(args[2])?;
        let task = self.value(b, args[3], Some(S::U32))?;
        Ok((ptr, expected.v, scope, task.v, counter_id(b, index)))
    }

    /// `subgroup_trace(Role::Compute | Role::Comm | Role::Wait, task, since)`: with tracing
    /// built in, the calling subgroup's lane 0 records task `task` in that role from clock
    /// `since` (`clock()`) until now, in the world's trace.
    pub(super) fn subgroup_trace(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let args = &call.args;
        let role = match super::memory::variant(args[0], "Role")
            .map(|v| v.to_string())
            .as_deref()
        {
            Some("Compute") => Role::Compute,
            Some("Comm") => Role::Comm,
            Some("Wait") => Role::Wait,
            _ => {
                return err(
                    args[0],
                    "expected a role: `Role::Compute`, `Role::Comm` or `Role::Wait`",
                );
            }
        };
        let task = self.value(b, args[1], Some(S::U32))?;
        let since = self.value(b, args[2], Some(S::U64))?;
        self.sched(call)?.subgroup_trace(b, role, task.v, since.v);
        Ok(())
    }

    /// The scheduling context, or an error at `call` for a kernel without a team.
    fn sched(&self, call: &Call) -> Result<&Rc<Sched>> {
        self.sched_at(call.call, &call.name)
    }

    /// The scheduling context, or an error at `tokens`, a use of `name`, for a kernel
    /// without a team.
    fn sched_at(&self, tokens: impl quote::ToTokens, name: &str) -> Result<&Rc<Sched>> {
        if let (None, Some(p)) = (&self.sched, &self.pending_sched) {
            return err(
                tokens,
                format!(
                    "`{name}` comes before `let {} = shared_array::<T, N>()`, whose last words `scheduler_scratch` lends the scheduler: declare the array first",
                    p.array
                ),
            );
        }
        self.sched.as_ref().ok_or_else(|| {
            Error::new_spanned(
                tokens,
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
            // Counters are the scheduling protocol's: their accesses are not checked.
            let Elem {
                ptr, elem, index, ..
            } = self.element(b, &ix.expr, &ix.index, true, e)?;
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
    pub(super) fn dispatch(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        self.dispatch_loop(b, call, false)
    }

    /// `dispatch_by_ticket(..)`, with `dispatch`'s arguments: once no communication task is
    /// left, compute tasks are taken by ticket, each waited for (`Sched::dispatch_loop`):
    /// for many short tasks, where claiming only a ready head is a CAS every free
    /// workgroup retries.
    pub(super) fn dispatch_by_ticket(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        self.dispatch_loop(b, call, true)
    }

    fn dispatch_loop(&mut self, b: &mut KernelBuilder, call: &Call, by_ticket: bool) -> Result<()> {
        let args = &call.args;
        if self.in_role {
            return err(
                call.call,
                "`dispatch` cannot be nested in a role of another `dispatch`",
            );
        }
        let sched = Rc::clone(self.sched(call)?);
        let (comm_head, _) = self.counter_ref(b, args[0], "dispatch")?;
        let comm_len = self.value(b, args[1], Some(S::U32))?.v;
        let (compute_head, _) = self.counter_ref(b, args[2], "dispatch")?;
        let compute_len = self.value(b, args[3], Some(S::U32))?.v;
        let ready_scope = scope(args[4])?;
        let (ready_task, ready_body) = role_closure(args[5], "the readiness")?;
        let syn::Expr::Tuple(ready) = strip_parens(tail_of(ready_body)) else {
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
            by_ticket,
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
                        Ok((ptr, expected, counter_id(b, index)))
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

    /// `e` as a method call on a symmetric buffer parameter (`x.peer(rank)`, `x.len()`):
    /// the call and the parameter.
    pub(super) fn sym_method<'e>(&self, e: &'e Expr) -> Option<(&'e ExprMethodCall, SymParam)> {
        let Expr::MethodCall(m) = strip_parens(e) else {
            return None;
        };
        Some((m, self.sym_param(&m.receiver)?))
    }

    /// The symmetric buffer parameter `e` names, if it names one.
    pub(super) fn sym_param(&self, e: &Expr) -> Option<SymParam> {
        let Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        match self.lookup(&p.path.get_ident()?.to_string())? {
            Binding::Sym(sym) => Some(sym),
            _ => None,
        }
    }

    /// `x.peer(rank)` or `x.local()` (`x.peer(team_rank())`) of a symmetric buffer
    /// parameter `x`: that rank's copy, found through the peer table as `Team::peer_ptr`
    /// finds it — its address, element type and length (every rank's copy has the
    /// buffer's length), a writable slice. `None` when `e` is no such call.
    pub(super) fn sym_view(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
    ) -> Result<Option<(Value, ScalarType, Value)>> {
        let Some((m, sym)) = self.sym_method(e) else {
            return Ok(None);
        };
        let method = m.method.to_string();
        if method != "peer" && method != "local" {
            return Ok(None);
        }
        if let Some(t) = &m.turbofish {
            return err(t, "methods take no generic arguments in kernels");
        }
        let team = *self.sched_at(m, &method)?.team();
        let rank = match (method.as_str(), m.args.len()) {
            ("peer", 1) => self.value(b, &m.args[0], Some(S::U32))?.v,
            ("local", 0) => team.rank(),
            ("peer", n) => return err(m, format!("`peer` takes 1 argument (rank), found {n}")),
            (_, n) => return err(m, format!("`local` takes no arguments, found {n}")),
        };
        let ptr = team.peer_ptr_of(b, sym.index, rank);
        Ok(Some((ptr, sym.elem, sym.len)))
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

/// `e`, or the value of a block `{ e }` holding nothing else (as rustfmt writes a long
/// closure body).
fn tail_of(e: &Expr) -> &Expr {
    match strip_parens(e) {
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(tail, None) => tail,
            _ => e,
        },
        _ => e,
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

/// The counter's index, which names it in the error record of a timed-out wait.
fn counter_id(b: &mut KernelBuilder, index: Val) -> Value {
    if index.ty == S::U32 {
        index.v
    } else {
        b.cast(index.v, Type::U32)
    }
}

#[cfg(test)]
mod dispatch_tests {
    use crate::lower_source;

    /// A team kernel whose `dispatch` call has `args` (after the queues, lengths and scope).
    fn with_roles(roles: &str) -> String {
        format!(
            "#[kernel] fn k(team: &Team, queues: &Sym<[u32]>, n: u32) {{ let q = queues.local(); \
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
    fn team_intrinsics_without_a_value_end_branches() {
        let src = "#[kernel] fn k(team: &Team, queues: &Sym<[u32]>, n: u32) { let q = queues.local(); \
                   if n > 0 { signal(&q[0], 1, Scope::System) } }";
        assert!(lower_source(src).is_ok());
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
