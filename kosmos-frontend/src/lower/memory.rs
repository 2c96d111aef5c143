//! Memory: shared arrays, the element references `&a[i]` that intrinsics take, barriers,
//! fences, `sleep`, and the atomics with their orderings and scopes.

use super::bounds::{Elem, Reach};
use super::intrinsics::Call;
use super::types::non_constant;
use super::{Binding, Lower, Val, err, strip_parens};
use crate::sig::{rust_name, scalar_type};
use kosmos_ir::{AddrSpace, KernelBuilder, Ordering, RmwOp, ScalarType, Scope, Type, Value};
use kosmos_sched::{SCRATCH_WORDS, Sched};
use std::rc::Rc;
use syn::{Error, Expr, Result};

use ScalarType as S;

impl Lower {
    /// `let name = shared_array::<T, N>();`: a shared allocation, at the top level only.
    pub(super) fn shared_array(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        name: &str,
    ) -> Result<Binding> {
        if self.depth > 0 {
            return err(
                call.call,
                "shared arrays are allocated at the kernel's top level only, not inside `if` or loops",
            );
        }
        if !call.call.args.is_empty() {
            return err(&call.call.args, "`shared_array` takes no arguments");
        }
        let (elem, count) = self.shared_generics(call, "shared_array::<T, N>()")?;
        let ptr = b.shared_alloc(name, Type::Scalar(elem), count);
        let bytes = u64::from(elem.size_bytes()) * u64::from(count);
        self.shared_bytes.insert(ptr, bytes);
        if self.pending_sched.as_ref().is_some_and(|p| p.array == name) {
            self.lend_scheduler_scratch(b, call.call, ptr, bytes)?;
        }
        Ok(shared_slice(b, ptr, elem, count))
    }

    /// `let name = shared_view::<T, N>(array);`: the first `N` `T`s of shared array
    /// `array`'s memory, another element type over the same bytes (for data that is never
    /// live at once with what the array holds: a tile's bf16 staging beside a ring of u32
    /// words).
    pub(super) fn shared_view(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: &str,
    ) -> Result<Binding> {
        let (elem, count) = self.shared_generics(call, "shared_view::<T, N>(array)")?;
        let arg = call.args[0];
        let array = match strip_parens(arg) {
            Expr::Path(p) => p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
            _ => None,
        };
        let base = match array {
            Some(Binding::Slice { ptr, .. }) => self.shared_bytes.get(&ptr).map(|&n| (ptr, n)),
            _ => None,
        };
        let Some((ptr, bytes)) = base else {
            return err(arg, "`shared_view` takes a shared array by its name");
        };
        let want = u64::from(elem.size_bytes()) * u64::from(count);
        if want > bytes {
            return err(
                call.call,
                format!("a view of {want} bytes over a shared array of {bytes}"),
            );
        }
        Ok(shared_slice(b, ptr, elem, count))
    }

    /// The `<T, N>` of `shared_array` or `shared_view` (written as `form`): the element
    /// type and a constant length.
    fn shared_generics(&mut self, call: &Call, form: &str) -> Result<(ScalarType, u32)> {
        let (generics, call) = (&call.seg.arguments, call.call);
        let syn::PathArguments::AngleBracketed(args) = generics else {
            return err(
                call,
                format!("write `{form}`: an element type and a length"),
            );
        };
        let args: Vec<&syn::GenericArgument> = args.args.iter().collect();
        let [syn::GenericArgument::Type(elem), len] = args[..] else {
            return err(
                generics,
                format!("write `{form}`: an element type and a length"),
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
                    Some(Binding::Const(_) | Binding::ModuleConst(_)) => {
                        self.const_eval(&syn::parse_quote!(#ident), SHARED_LEN)?
                    }
                    _ => {
                        return err(p, non_constant(SHARED_LEN));
                    }
                }
            }
            other => return err(other, "expected the shared array's length"),
        };
        match u32::try_from(len) {
            Ok(n) if n > 0 => Ok((elem, n)),
            _ => err(args[1], format!("a shared array of {len} elements")),
        }
    }

    /// Makes the kernel's scheduling context over the last [`SCRATCH_WORDS`] words of the
    /// shared array at `ptr` (`bytes` long), as `#[kernel(scheduler_scratch = ..)]` asks.
    fn lend_scheduler_scratch(
        &mut self,
        b: &mut KernelBuilder,
        call: &syn::ExprCall,
        ptr: Value,
        bytes: u64,
    ) -> Result<()> {
        let p = self.pending_sched.take().expect("checked by the caller");
        if !bytes.is_multiple_of(4) || bytes < 4 * u64::from(SCRATCH_WORDS) {
            return err(
                call,
                format!(
                    "`scheduler_scratch` takes the last {SCRATCH_WORDS} 4-byte words of `{}`, which holds {bytes} bytes",
                    p.array
                ),
            );
        }
        let last = b.const_u32((bytes / 4) as u32 - SCRATCH_WORDS);
        let scratch = b.ptr_offset(ptr, last, Type::U32);
        self.sched = Some(Rc::new(Sched::with_scratch(b, p.team, p.options, scratch)));
        Ok(())
    }

    pub(super) fn barrier(&mut self, b: &mut KernelBuilder, _: &Call) -> Result<()> {
        b.barrier();
        Ok(())
    }

    /// `subgroup_barrier()`: the subgroup's lanes meet; their memory accesses before are
    /// visible to each other after.
    pub(super) fn subgroup_barrier(&mut self, b: &mut KernelBuilder, _: &Call) -> Result<()> {
        b.subgroup_barrier();
        Ok(())
    }

    pub(super) fn fence(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let args = &call.args;
        let ord = ordering_other_than(
            args[0],
            &[Ordering::Relaxed],
            "a fence cannot be `Relaxed`: use Acquire, Release, AcqRel or SeqCst",
        )?;
        b.fence(ord, scope(args[1])?);
        Ok(())
    }

    pub(super) fn sleep(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let arg = call.args[0];
        let ns = u32::try_from(self.const_eval(arg, "the time of `sleep`")?)
            .map_err(|_| Error::new_spanned(arg, "sleep time out of range for u32"))?;
        b.sleep(ns);
        Ok(())
    }

    pub(super) fn atomic_load(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let e = self.atomic_elem(b, call, false, false)?;
        let ord = ordering_other_than(
            args[1],
            &[Ordering::Release, Ordering::AcqRel],
            "an atomic load cannot be `Release` or `AcqRel`: use Relaxed, Acquire or SeqCst",
        )?;
        let scope = scope(args[2])?;
        Ok(atomic_value(b, e, |b, ptr, elem| {
            b.atomic_load(ptr, elem, ord, scope)
        }))
    }

    pub(super) fn atomic_store(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let args = &call.args;
        let e = self.atomic_elem(b, call, true, false)?;
        let v = self.value(b, args[1], Some(e.elem))?;
        let ord = ordering_other_than(
            args[2],
            &[Ordering::Acquire, Ordering::AcqRel],
            "an atomic store cannot be `Acquire` or `AcqRel`: use Relaxed, Release or SeqCst",
        )?;
        let scope = scope(args[3])?;
        Lower::guarded_effect(b, e.bound, Reach::One, None, |b| {
            b.atomic_store(e.ptr, v.v, ord, scope)
        });
        Ok(())
    }

    pub(super) fn atomic_cas(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let e = self.atomic_elem(b, call, true, false)?;
        let expected = self.value(b, args[1], Some(e.elem))?;
        let desired = self.value(b, args[2], Some(e.elem))?;
        let ord = ordering(args[3])?;
        let scope = scope(args[4])?;
        Ok(atomic_value(b, e, |b, ptr, _| {
            b.atomic_cas(ptr, expected.v, desired.v, ord, scope)
        }))
    }

    /// `atomic_add`, `atomic_min`, `atomic_max`, `atomic_xchg`, `atomic_and`, `atomic_or`.
    pub(super) fn atomic_rmw(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let args = &call.args;
        let op = match call.name.as_str() {
            "atomic_add" => RmwOp::Add,
            "atomic_min" => RmwOp::Min,
            "atomic_max" => RmwOp::Max,
            "atomic_xchg" => RmwOp::Xchg,
            "atomic_and" => RmwOp::And,
            "atomic_or" => RmwOp::Or,
            other => unreachable!("`{other}` is no read-modify-write"),
        };
        let f32_ok = matches!(op, RmwOp::Add | RmwOp::Xchg);
        let e = self.atomic_elem(b, call, true, f32_ok)?;
        let v = self.value(b, args[1], Some(e.elem))?;
        let ord = ordering(args[2])?;
        let scope = scope(args[3])?;
        Ok(atomic_value(b, e, |b, ptr, _| {
            b.atomic_rmw(op, ptr, v.v, ord, scope)
        }))
    }

    /// The element an atomic `call` works on (its first argument, `&a[i]`), of a type
    /// atomics take: 32- or 64-bit integers, or f32 where `f32_ok`.
    fn atomic_elem(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        write: bool,
        f32_ok: bool,
    ) -> Result<Elem> {
        let (name, arg) = (&call.name, call.args[0]);
        let e = self.elem_ref(b, arg, name, write)?;
        check_atomic_type(arg, name, e.elem, f32_ok)?;
        Ok(e)
    }

    /// The element an atomic, a fragment or a vector access starts at: `&a[i]` (or
    /// `&mut a[i]`), checked, or `a.get_unchecked(i)` in an `unsafe` block.
    pub(super) fn elem_ref(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        intrinsic: &str,
        write: bool,
    ) -> Result<Elem> {
        if let Expr::Reference(r) = e
            && let Expr::Index(ix) = strip_parens(&r.expr)
        {
            return self.element(b, &ix.expr, &ix.index, write, e);
        }
        if let Some(m) = Lower::as_unchecked(e) {
            return self.unchecked_elem(b, m, write);
        }
        err(
            e,
            format!("`{intrinsic}` takes an element reference: `&a[i]`"),
        )
    }

    /// [`Lower::elem_ref`] of an element in `space`: shared memory is a `shared_array`'s,
    /// global memory a slice parameter's or a rank's copy of a symmetric buffer. `what`
    /// names the operand in errors ("the source of `copy_async`").
    pub(super) fn elem_ref_in(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        (intrinsic, what): (&str, &str),
        write: bool,
        space: AddrSpace,
    ) -> Result<Elem> {
        let slice = match strip_parens(e) {
            Expr::Reference(r) => match strip_parens(&r.expr) {
                Expr::Index(ix) => Some(&*ix.expr),
                _ => None,
            },
            e => Lower::as_unchecked(e).map(|m| &*m.receiver),
        };
        if let Some(Expr::Path(p)) = slice
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
}

/// An atomic that gives a value (`op(builder, ptr, elem)`), checked: zero when out of bounds.
fn atomic_value(
    b: &mut KernelBuilder,
    e: Elem,
    op: impl FnOnce(&mut KernelBuilder, Value, ScalarType) -> Value,
) -> Val {
    let Elem {
        ptr, elem, bound, ..
    } = e;
    let v = Lower::guarded(
        b,
        bound,
        Reach::One,
        None,
        &[Type::Scalar(elem)],
        |b| vec![op(b, ptr, elem)],
        |b| vec![Lower::zero(b, elem)],
    );
    Val { v: v[0], ty: elem }
}

const SHARED_LEN: &str = "the length of a shared array";

/// The variant name of `Enum::Variant` (or a longer path ending so) when `Enum` is `enum_name`.
pub(super) fn variant<'a>(e: &'a Expr, enum_name: &str) -> Option<&'a syn::Ident> {
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

/// [`ordering`], refusing those in `refused` with `message`.
fn ordering_other_than(e: &Expr, refused: &[Ordering], message: &str) -> Result<Ordering> {
    let o = ordering(e)?;
    if refused.contains(&o) {
        return err(e, message);
    }
    Ok(o)
}

pub(super) fn scope(e: &Expr) -> Result<Scope> {
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

/// A writable slice of `count` `elem`s of shared memory at `ptr`.
fn shared_slice(b: &mut KernelBuilder, ptr: Value, elem: ScalarType, count: u32) -> Binding {
    Binding::Slice {
        ptr,
        elem,
        writable: true,
        space: AddrSpace::Shared,
        len: b.const_u64(count.into()),
    }
}
