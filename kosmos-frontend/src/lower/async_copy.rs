//! Barrier objects and tensor copies: `mbar_init`, `mbar_arrive`, `mbar_arrive_expect`,
//! `mbar_wait`, `copy_tensor`, `copy_tensor_store` and its waits, and `fence_proxy_async`. A
//! barrier object is an element of a `shared_array::<u64, N>()`, taken as `&bars[i]`
//! (checked like any element reference).

use super::bounds::{Elem, Reach};
use super::intrinsics::Call;
use super::{Binding, Lower, err, strip_parens};
use kosmos_ir::async_copy::TENSOR_MAP_WORDS;
use kosmos_ir::{AddrSpace, CmpPred, KernelBuilder, Op, ScalarType as S, Value};
use syn::{Expr, Result};

/// Polls `mbar_wait` makes before it gives up (each `try_wait` itself waits a while on
/// NVIDIA): seconds on a GPU, far beyond any copy.
pub(super) const MBAR_WAIT_POLLS: u32 = 1 << 22;

const TENSOR_MAP_USAGE: &str = "expected `&map`, a `&TensorMap` parameter of the kernel, or `&maps[i]`, a map's first word in a global `u64` slice";

impl Lower {
    /// The barrier object `arg` of intrinsic `name`: `&bars[i]`, an element of a shared
    /// `u64` array.
    fn barrier_ref(&mut self, b: &mut KernelBuilder, arg: &Expr, name: &str) -> Result<Elem> {
        let what = format!("the barrier object of `{name}`");
        let e = self.elem_ref_in(b, arg, (name, &what), true, AddrSpace::Shared)?;
        if e.elem != S::U64 {
            return err(
                arg,
                format!(
                    "{what} is a `u64` of a shared array (`shared_array::<u64, N>()`), not a `{}`",
                    crate::sig::rust_name(e.elem)
                ),
            );
        }
        Ok(e)
    }

    /// The call's barrier object (its first argument), checked; `f` builds the op on its
    /// pointer where the check holds.
    fn with_barrier<R>(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        f: impl FnOnce(&mut KernelBuilder, Value) -> R,
    ) -> Result<()> {
        let e = self.barrier_ref(b, call.args[0], &call.name)?;
        let ptr = e.ptr;
        Lower::guarded_effect(b, e.bound, Reach::One, None, |b| drop(f(b, ptr)));
        Ok(())
    }

    /// `mbar_init(&bars[i], count)`: one work-item initializes the object for `count`
    /// arrivals per phase; a `barrier()` must follow before others use it.
    pub(super) fn mbar_init(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let count = self.value(b, call.args[1], Some(S::U32))?.v;
        self.with_barrier(b, call, |b, bar| b.push(Op::MbarInit { bar, count }))
    }

    /// `mbar_arrive(&bars[i])`: one arrival.
    pub(super) fn mbar_arrive(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        self.with_barrier(b, call, |b, bar| b.push(Op::MbarArrive { bar }))
    }

    /// `mbar_arrive_expect(&bars[i], bytes)`: one arrival announcing `bytes` of copies.
    pub(super) fn mbar_arrive_expect(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let bytes = self.value(b, call.args[1], Some(S::U32))?.v;
        self.with_barrier(b, call, |b, bar| {
            b.push(Op::MbarArriveExpect { bar, bytes })
        })
    }

    /// `mbar_wait(&bars[i], parity)`: polls until the phase of `parity` has completed; after
    /// [`MBAR_WAIT_POLLS`] polls it records the launch's error (`wait.fail`, naming the call)
    /// and goes on.
    pub(super) fn mbar_wait(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let parity = self.value(b, call.args[1], Some(S::U32))?.v;
        let origin = self.origin(call.call);
        self.with_barrier(b, call, |b, bar| {
            let zero = b.const_u32(0);
            b.loop_(&[zero], &[], |b, args| {
                let polls = args[0];
                let done = b.value(Op::MbarTryWait { bar, parity });
                b.if_then(done, |b| b.break_(&[]));
                let one = b.const_u32(1);
                let polls = b.add(polls, one);
                let bound = b.const_u32(MBAR_WAIT_POLLS);
                let out = b.cmp(CmpPred::Ge, polls, bound);
                b.if_then(out, |b| {
                    b.push(Op::WaitFail { polls, origin });
                    b.break_(&[]);
                });
                vec![polls]
            });
        })
    }

    /// `copy_tensor(&stage[i], &map, x, y, &bars[j])`: the subgroup copies the box at column
    /// `x`, row `y` of tensor map `map` to the shared array from `stage[i]` on, completing its
    /// bytes on the barrier object. The destination's first element is checked; the box's
    /// extent is the map's (the CPU device checks it).
    pub(super) fn copy_tensor(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let args = &call.args;
        let what = "the destination of `copy_tensor`";
        let dst = self.elem_ref_in(b, args[0], (&call.name, what), true, AddrSpace::Shared)?;
        let map = self.tensor_map(b, args[1])?;
        let [x, y] = [args[2], args[3]].map(|a| self.coordinate(b, a));
        let (x, y) = (x?, y?);
        let bar = self.barrier_ref(b, args[4], &call.name)?;
        let copy = Op::CopyTensor {
            dst: dst.ptr,
            map,
            x,
            y,
            bar: bar.ptr,
        };
        Lower::guarded_effect(b, dst.bound, Reach::One, None, |b| {
            Lower::guarded_effect(b, bar.bound, Reach::One, None, |b| drop(b.push(copy)))
        });
        Ok(())
    }

    /// `copy_tensor_store(&map, x, y, &stage[i])`: the subgroup stores the box of the shared
    /// array from `stage[i]` on to the box at column `x`, row `y` of tensor map `map`, in the
    /// background (see [`Lower::copy_tensor_wait`]). The source's first element is checked;
    /// the box's extent is the map's (the CPU device checks it).
    pub(super) fn copy_tensor_store(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let args = &call.args;
        let map = self.tensor_map(b, args[0])?;
        let [x, y] = [args[1], args[2]].map(|a| self.coordinate(b, a));
        let (x, y) = (x?, y?);
        let what = "the source of `copy_tensor_store`";
        let src = self.elem_ref_in(b, args[3], (&call.name, what), false, AddrSpace::Shared)?;
        let store = Op::CopyTensorStore {
            map,
            x,
            y,
            src: src.ptr,
        };
        Lower::guarded_effect(b, src.bound, Reach::One, None, |b| drop(b.push(store)));
        Ok(())
    }

    /// `copy_tensor_wait_read(n)` and `copy_tensor_wait(n)`: the subgroup waits until at
    /// most `n` (a constant) of its newest `copy_tensor_store`s may still read their shared
    /// memory, or may still be writing.
    pub(super) fn copy_tensor_wait(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let arg = call.args[0];
        let what = format!("the count of `{}`", call.name);
        let Ok(pending) = u32::try_from(self.const_eval(arg, &what)?) else {
            return err(arg, format!("{what} out of range for u32"));
        };
        b.push(if call.name == "copy_tensor_wait_read" {
            Op::CopyTensorWaitRead { pending }
        } else {
            Op::CopyTensorWait { pending }
        });
        Ok(())
    }

    /// `fence_proxy_async()`: orders this work-item's shared-memory stores before the copy
    /// engine's and matrix units' accesses that follow.
    pub(super) fn fence_proxy_async(&mut self, b: &mut KernelBuilder, _: &Call) -> Result<()> {
        b.push(Op::FenceProxyAsync);
        Ok(())
    }

    /// `fence_proxy_async_shared()`: `fence_proxy_async()` for shared-memory stores only.
    pub(super) fn fence_proxy_async_shared(
        &mut self,
        b: &mut KernelBuilder,
        _: &Call,
    ) -> Result<()> {
        b.push(Op::FenceProxyAsyncShared);
        Ok(())
    }

    /// A tensor map: the parameter `&map`, or `&maps[i]`, the 16 `u64` words of a map kept
    /// from element `i` of a global `u64` slice (a rank's copy of a symmetric buffer holds
    /// that rank's maps: its tensors' addresses differ from its peers'). The words are
    /// bounds-checked; out of bounds, the failure is recorded and the slice's first map used.
    pub(super) fn tensor_map(&mut self, b: &mut KernelBuilder, e: &Expr) -> Result<Value> {
        let Expr::Reference(r) = strip_parens(e) else {
            return err(e, TENSOR_MAP_USAGE);
        };
        if r.mutability.is_some() {
            return err(e, TENSOR_MAP_USAGE);
        }
        match strip_parens(&r.expr) {
            Expr::Path(p) => match p.path.get_ident().map(|i| self.lookup(&i.to_string())) {
                Some(Some(Binding::TensorMap(ptr))) => Ok(ptr),
                _ => err(e, TENSOR_MAP_USAGE),
            },
            Expr::Index(ix) => {
                let el = self.element(b, &ix.expr, &ix.index, false, e)?;
                if el.elem != S::U64 {
                    return err(e, TENSOR_MAP_USAGE);
                }
                let first: Expr = syn::parse_quote!(0u32);
                let base = self.element(b, &ix.expr, &first, false, e)?.ptr;
                let ptr = el.ptr;
                Ok(Lower::guarded(
                    b,
                    el.bound,
                    Reach::Run(TENSOR_MAP_WORDS as u32),
                    None,
                    &[kosmos_ir::Type::GLOBAL_PTR],
                    |_| vec![ptr],
                    |_| vec![base],
                )[0])
            }
            _ => err(e, TENSOR_MAP_USAGE),
        }
    }

    /// A box coordinate: an `i32` or a `u32`.
    fn coordinate(&mut self, b: &mut KernelBuilder, e: &Expr) -> Result<Value> {
        // Coordinates are `u32` unless the expression says `i32` (a constant is a `u32`).
        let ty = match self.infer(e) {
            Some(S::I32) => S::I32,
            _ => S::U32,
        };
        let ty = Some(ty);
        let v = self.value(b, e, ty)?;
        match v.ty {
            S::I32 | S::U32 => Ok(v.v),
            t => err(
                e,
                format!(
                    "box coordinates are `i32` or `u32`, found `{}`",
                    crate::sig::rust_name(t)
                ),
            ),
        }
    }
}
