//! Bounds checks of slice accesses, as Rust checks them. Each `a[i]`, and each element
//! reference `&a[i]` an intrinsic takes, is lowered inside an `if` on the elements it reaches
//! against the slice's length; the `else` records the failure (`bounds.fail`, naming the
//! access by file, line and column) and gives zeros, so the access itself never happens.
//! Slice parameters get their length from the launch (`buffer.len`), shared arrays from their
//! type, a rank's copy of a symmetric buffer (`x.peer(rank)`) from the buffer's length
//! parameter. `a.get_unchecked(i)` in an `unsafe` block is the unchecked form, for measured
//! hot loops.

use super::{Binding, Lower, Val, err, strip_parens};
use crate::sig::rust_name;
use kosmos_ir::{CmpPred, KernelBuilder, Op, Origin, ScalarType, Type, Value};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall, Result};

use ScalarType as S;

/// A checked access: the index of its first element, the slice's length (both `u64`) and
/// where it is in the source.
#[derive(Clone, Debug)]
pub(super) struct Bound {
    index: Value,
    len: Value,
    origin: Origin,
}

/// An element a kernel accesses (`a[i]`, `&a[i]`, `a.get_unchecked(i)`): its address, its
/// type, and the check the access needs (`None`: unchecked).
pub(super) struct Elem {
    pub(super) ptr: Value,
    pub(super) elem: ScalarType,
    /// The index as the kernel computed it.
    pub(super) index: Val,
    pub(super) bound: Option<Bound>,
}

/// How far past its first element an access reaches.
#[derive(Copy, Clone, Debug)]
pub(super) enum Reach {
    /// One element.
    One,
    /// The start of a subslice `&a[k..]`: `k` may equal the length (an empty rest).
    Start,
    /// `n` consecutive elements.
    Run(u32),
    /// A row-major tile of `rows x cols` elements, rows `stride` apart (`u32` values, at
    /// least 1 each; an empty tile is checked as its first element).
    Tile {
        rows: Value,
        cols: Value,
        stride: Value,
    },
}

impl Lower {
    /// The length in elements (`u64`) of slice parameter `ptr` of `elem`s.
    pub(super) fn param_len(b: &mut KernelBuilder, ptr: Value, elem: ScalarType) -> Value {
        let bytes = b.value(Op::BufferLen { buffer: ptr });
        let shift = b.const_u64(elem.size_bytes().trailing_zeros() as u64);
        b.shr(bytes, shift)
    }

    /// Where `e` is in the kernel's source, and its text: what a bounds error names.
    pub(super) fn origin(&self, e: &impl ToTokens) -> Origin {
        let span = e.span();
        let start = span.start();
        let text = span
            .source_text()
            .unwrap_or_else(|| e.to_token_stream().to_string());
        // One line: an access written over several lines (or, in a macro's expansion, a
        // span that falls back to the whole attribute) keeps its words.
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let place = format!("{}:{}", start.line, start.column + 1);
        Origin(match self.file.as_str() {
            "" => format!("{place}: {text}"),
            file => format!("{file}:{place}: {text}"),
        })
    }

    /// The bound of element `index` of a slice of `len` elements, accessed by `access` in
    /// the source.
    pub(super) fn bound(
        &self,
        b: &mut KernelBuilder,
        len: Value,
        index: Val,
        access: &impl ToTokens,
    ) -> Bound {
        let index = match index.ty {
            S::U64 => index.v,
            _ => b.cast(index.v, S::U64),
        };
        Bound {
            index,
            len,
            origin: self.origin(access),
        }
    }

    /// Lowers `access` (which gives values of `types`) where `bound`, reaching `reach`, holds
    /// — or where `only_if` (an `i1`) is false, for accesses that touch no memory then; else
    /// records the failure and gives `fallback`'s values.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn guarded(
        b: &mut KernelBuilder,
        bound: Option<Bound>,
        reach: Reach,
        only_if: Option<Value>,
        types: &[Type],
        access: impl FnOnce(&mut KernelBuilder) -> Vec<Value>,
        fallback: impl FnOnce(&mut KernelBuilder) -> Vec<Value>,
    ) -> Vec<Value> {
        let Some(Bound { index, len, origin }) = bound else {
            return access(b);
        };
        let last = match reach {
            Reach::One | Reach::Start => index,
            Reach::Run(n) => {
                let more = b.const_u64(u64::from(n.max(1) - 1));
                b.add(index, more)
            }
            Reach::Tile { rows, cols, stride } => {
                let one = b.const_u32(1);
                let (rows, cols) = (b.max(rows, one), b.max(cols, one));
                let (rows, cols) = (b.sub(rows, one), b.sub(cols, one));
                let [rows, cols, stride] = [rows, cols, stride].map(|v| b.cast(v, S::U64));
                let down = b.mul(rows, stride);
                let more = b.add(down, cols);
                b.add(index, more)
            }
        };
        // `last < len` (`<=` for a subslice's start), and no wrap from `index` to `last` (a
        // negative index cast to u64).
        let within = match reach {
            Reach::Start => CmpPred::Le,
            _ => CmpPred::Lt,
        };
        let inside = b.cmp(within, last, len);
        let ok = match reach {
            Reach::One | Reach::Start => inside,
            _ => {
                let ordered = b.cmp(CmpPred::Le, index, last);
                b.and(ordered, inside)
            }
        };
        let ok = match only_if {
            Some(cond) => {
                let yes = b.const_bool(true);
                let skipped = b.xor(cond, yes);
                b.or(skipped, ok)
            }
            None => ok,
        };
        b.if_else(ok, types, access, |b| {
            b.push(Op::BoundsFail {
                index: last,
                len,
                origin,
            });
            fallback(b)
        })
    }

    /// `a.get_unchecked(i)` / `a.get_unchecked_mut(i)` (`write`): the element, unchecked;
    /// only in an `unsafe` block, as in Rust.
    pub(super) fn unchecked_elem(
        &mut self,
        b: &mut KernelBuilder,
        m: &ExprMethodCall,
        write: bool,
    ) -> Result<Elem> {
        let method = m.method.to_string();
        let want = if write {
            "get_unchecked_mut"
        } else {
            "get_unchecked"
        };
        if method != "get_unchecked" && method != "get_unchecked_mut" {
            return err(&m.method, format!("expected `{want}(i)`"));
        }
        if write && method != want {
            return err(
                &m.method,
                "writing through `get_unchecked` needs `get_unchecked_mut`",
            );
        }
        if self.unsafe_depth == 0 {
            return err(
                m,
                format!("call to unsafe method `{method}` requires an `unsafe` block"),
            );
        }
        if m.args.len() != 1 {
            return err(m, format!("`{method}` takes 1 argument (the index)"));
        }
        let elem = self.element(b, &m.receiver, &m.args[0], write, m)?;
        Ok(Elem {
            bound: None,
            ..elem
        })
    }

    /// The element of `e` when it is `a.get_unchecked(i)` or `a.get_unchecked_mut(i)`.
    pub(super) fn as_unchecked(e: &Expr) -> Option<&ExprMethodCall> {
        match strip_parens(e) {
            Expr::MethodCall(m) if m.method.to_string().starts_with("get_unchecked") => Some(m),
            _ => None,
        }
    }

    /// The value of `index`, an index into a slice: an unsigned integer (a `usize` when
    /// only literals say), as Rust types it.
    pub(super) fn index_value(&mut self, b: &mut KernelBuilder, index: &Expr) -> Result<Val> {
        // An index of literals alone is a `usize` (`u64`), as in Rust; one of const generics
        // a `u32`.
        let t = self
            .static_ty(index)
            .or_else(|| self.default_ty(index).filter(|t| *t == S::U32))
            .unwrap_or(S::U64);
        if !t.is_int() || t == S::I1 {
            return err(
                index,
                format!("indices are integers, found {}", rust_name(t)),
            );
        }
        if t.is_signed_int() {
            return err(
                index,
                format!(
                    "the index is an {}: indices are unsigned (`usize`, `u32`, ...), so that a negative one cannot wrap; cast it, `{} as usize`, where it cannot be negative",
                    rust_name(t),
                    match strip_parens(index) {
                        e @ (Expr::Path(_) | Expr::Lit(_)) => quote::quote!(#e).to_string(),
                        e => format!("({})", quote::quote!(#e)),
                    }
                ),
            );
        }
        self.value(b, index, Some(t))
    }

    /// The subslice `&a[start..]` of slice `a` (`ptr`, `len`): its address and length,
    /// `start` checked to be at most `len` (`access` names it); an empty slice at `a`'s
    /// start where it is not.
    pub(super) fn subslice(
        &mut self,
        b: &mut KernelBuilder,
        (ptr, elem, len): (Value, ScalarType, Value),
        start: &Expr,
        access: &impl ToTokens,
    ) -> Result<(Value, Value)> {
        let k = self.index_value(b, start)?;
        let bound = self.bound(b, len, k, access);
        let types = [b.ty(ptr), Type::Scalar(S::U64)];
        let parts = Lower::guarded(
            b,
            Some(bound),
            Reach::Start,
            None,
            &types,
            |b| {
                let k64 = b.cast(k.v, S::U64);
                let rest = b.sub(len, k64);
                vec![b.ptr_offset(ptr, k.v, elem), rest]
            },
            |b| vec![ptr, b.const_u64(0)],
        );
        Ok((parts[0], parts[1]))
    }

    /// Element `index` of slice `base` (a slice parameter, shared array, or a rank's copy
    /// of a symmetric buffer, named or `x.peer(rank)`),
    /// checked against its length; `access` is the expression that accesses it, `write`
    /// for stores and atomics that modify memory.
    pub(super) fn element(
        &mut self,
        b: &mut KernelBuilder,
        base: &Expr,
        index: &Expr,
        write: bool,
        access: &impl ToTokens,
    ) -> Result<Elem> {
        let (ptr, elem, len) = match self.sym_view(b, base)? {
            Some(view) => view,
            None => self.named_slice(base, write)?,
        };
        let i = self.index_value(b, index)?;
        let bound = self.bound(b, len, i, access);
        Ok(Elem {
            ptr: b.ptr_offset(ptr, i.v, elem),
            elem,
            index: i,
            bound: Some(bound),
        })
    }

    /// The slice `base` names (a slice parameter, shared array or rank's copy), checked to
    /// be writable where `write`: its address, element type and length.
    fn named_slice(&mut self, base: &Expr, write: bool) -> Result<(Value, ScalarType, Value)> {
        let ident = match strip_parens(base) {
            Expr::Path(p) => p.path.get_ident(),
            _ => None,
        };
        let Some(ident) = ident else {
            return err(
                base,
                "only slice parameters and shared arrays can be indexed",
            );
        };
        let (ptr, elem, len) = match self.lookup(&ident.to_string()) {
            Some(Binding::Slice {
                ptr,
                elem,
                writable,
                len,
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
                (ptr, elem, len)
            }
            Some(Binding::Local { ty, .. }) => {
                return err(
                    base,
                    format!("cannot index into `{ident}`, a {}", rust_name(ty)),
                );
            }
            Some(Binding::Const(_) | Binding::ModuleConst(_)) => {
                return err(base, format!("cannot index into `{ident}`, a constant"));
            }
            Some(Binding::Tile { ty, .. }) => {
                return err(base, format!("cannot index into `{ident}`, {}", ty.name()));
            }
            Some(Binding::TensorMap(_)) => {
                return err(
                    base,
                    format!("cannot index into `{ident}`, a tensor map: `copy_tensor` reads it"),
                );
            }
            Some(Binding::Sym(_)) => {
                return err(
                    base,
                    format!(
                        "cannot index into `{ident}`, a symmetric buffer: index a rank's copy, `{ident}.peer(rank)[i]`"
                    ),
                );
            }
            None => {
                return self.not_found(base, format!("cannot find value `{ident}` in this kernel"));
            }
        };
        Ok((ptr, elem, len))
    }

    /// A checked load of `e`: zero when out of bounds.
    pub(super) fn load_elem(b: &mut KernelBuilder, e: Elem) -> Val {
        let Elem {
            ptr, elem, bound, ..
        } = e;
        let types = [Type::Scalar(elem)];
        let v = Lower::guarded(
            b,
            bound,
            Reach::One,
            None,
            &types,
            |b| vec![b.load(ptr, elem)],
            |b| vec![Lower::zero(b, elem)],
        );
        Val { v: v[0], ty: elem }
    }

    /// [`Lower::guarded`] of an access without results (a store, a copy).
    pub(super) fn guarded_effect(
        b: &mut KernelBuilder,
        bound: Option<Bound>,
        reach: Reach,
        only_if: Option<Value>,
        access: impl FnOnce(&mut KernelBuilder),
    ) {
        let access = |b: &mut KernelBuilder| {
            access(b);
            vec![]
        };
        Lower::guarded(b, bound, reach, only_if, &[], access, |_| vec![]);
    }

    /// A checked store of `value` to `e`: none when out of bounds.
    pub(super) fn store_elem(b: &mut KernelBuilder, e: Elem, value: Value) {
        Lower::guarded_effect(b, e.bound, Reach::One, None, |b| b.store(e.ptr, value));
    }

    /// The zero of `ty`: what a failed checked load gives.
    pub(super) fn zero(b: &mut KernelBuilder, ty: ScalarType) -> Value {
        b.constant(kosmos_ir::Constant { ty, bits: 0 })
    }
}
