//! Atomics and fences. Atomics run lane by lane in lane order; every IR scope maps to a
//! Rust atomic, which is system-wide: the strongest scope, so correct for all of them.

use crate::arith::{self, width_mask};
use crate::compile::Compiler;
use crate::exec::lanes::f32op;
use crate::exec::{Exec, Res};
use crate::memory::rmw_ordering;
use crate::program::{Slot, Space};
use kosmos_ir::{BinOp, Inst, Op, Ordering, RmwOp, ScalarType};
use std::sync::atomic;

/// One atomic instruction: what it does, on which lanes' addresses, in which order.
#[derive(Debug)]
pub(crate) enum Atomic {
    Access(Access),
    Fence { ord: Ordering },
}

/// An atomic load, store, read-modify-write or compare-and-swap.
#[derive(Debug)]
pub(crate) struct Access {
    kind: AtomicKind,
    /// The slot of the old value; `None` for a store.
    dst: Option<Slot>,
    ptr: Slot,
    /// The value stored, added, exchanged or (for a compare-and-swap) desired.
    val: Option<Slot>,
    /// The value a compare-and-swap expects.
    expected: Option<Slot>,
    space: Space,
    ty: ScalarType,
    ord: Ordering,
    pos: u32,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum AtomicKind {
    Load,
    Store,
    Rmw(RmwOp),
    Cas,
}

impl Compiler<'_> {
    pub(crate) fn atomic(&mut self, inst: &Inst, at: u32) -> Atomic {
        // The verifier allows atomics on 32- and 64-bit integers and f32 `add`/`xchg` only.
        let (kind, ptr, val, expected, ty, ord) = match inst.op {
            Op::Fence { ordering, .. } => {
                debug_assert_ne!(ordering, Ordering::Relaxed, "the verifier rejects these");
                return Atomic::Fence { ord: ordering };
            }
            Op::AtomicLoad {
                ptr, ty, ordering, ..
            } => (AtomicKind::Load, ptr, None, None, ty, ordering),
            Op::AtomicStore {
                ptr,
                value,
                ordering,
                ..
            } => {
                let ty = self.sty(value);
                (AtomicKind::Store, ptr, Some(value), None, ty, ordering)
            }
            Op::AtomicRmw {
                op,
                ptr,
                value,
                ordering,
                ..
            } => {
                let ty = self.sty(value);
                (AtomicKind::Rmw(op), ptr, Some(value), None, ty, ordering)
            }
            Op::AtomicCas {
                ptr,
                expected,
                desired,
                ordering,
                ..
            } => {
                let ty = self.sty(desired);
                let kind = AtomicKind::Cas;
                (kind, ptr, Some(desired), Some(expected), ty, ordering)
            }
            ref op => unreachable!("`{}` is not an atomic op", op.name()),
        };
        Atomic::Access(Access {
            kind,
            dst: (kind != AtomicKind::Store).then(|| self.result(inst)),
            ptr: ptr.0,
            val: val.map(|v| v.0),
            expected: expected.map(|v| v.0),
            space: self.space(ptr),
            ty,
            ord,
            pos: at,
        })
    }
}

/// The new value of an atomic read-modify-write.
fn rmw_apply(op: RmwOp, ty: ScalarType, old: u64, v: u64) -> u64 {
    match (op, ty) {
        (RmwOp::Add, ScalarType::F32) => f32op(old, v, |a, b| a + b),
        (RmwOp::Xchg, _) => v,
        (RmwOp::Add, _) => old.wrapping_add(v) & width_mask(ty),
        (RmwOp::Min, _) => arith::binary(BinOp::Min, ty, old, v).unwrap_or(old),
        (RmwOp::Max, _) => arith::binary(BinOp::Max, ty, old, v).unwrap_or(old),
        (RmwOp::And, _) => old & v,
        (RmwOp::Or, _) => old | v,
    }
}

impl Exec<'_> {
    pub(crate) fn atomic(&mut self, ins: &Atomic, mask: &[bool]) -> Res {
        match *ins {
            Atomic::Access(ref access) => {
                let mut old = access
                    .dst
                    .map(|s| std::mem::take(&mut self.vals[s as usize]));
                let r = self.access(access, old.as_deref_mut(), mask);
                if let (Some(s), Some(old)) = (access.dst, old) {
                    self.vals[s as usize] = old;
                }
                r
            }
            Atomic::Fence { ord } => {
                atomic::fence(rmw_ordering(ord));
                Ok(())
            }
        }
    }

    /// Runs one atomic for every lane of `mask`, writing the old values to `dst`.
    fn access(&mut self, access: &Access, mut dst: Option<&mut [u64]>, mask: &[bool]) -> Res {
        let Access {
            kind,
            ptr,
            val,
            expected,
            space,
            ty,
            ord,
            pos,
            ..
        } = *access;
        let len = ty.size_bytes() as usize;
        for l in (0..self.n).filter(|l| mask[*l]) {
            let addr = self.vals[ptr as usize][l];
            let v = val.map_or(0, |s| self.vals[s as usize][l]);
            let e = expected.map_or(0, |s| self.vals[s as usize][l]);
            self.check_align(l, addr, len as u32, pos)?;
            // Each kind as a read-modify-write, noting whether it changed memory (a store
            // or a successful swap counts as a change even when it writes the old value).
            let mut changed = false;
            let update = |old: u64| {
                let (new, change) = match kind {
                    AtomicKind::Load => (None, false),
                    AtomicKind::Store => (Some(v), true),
                    AtomicKind::Rmw(op) => {
                        let new = rmw_apply(op, ty, old, v);
                        (Some(new), new != old)
                    }
                    AtomicKind::Cas => ((old == e).then_some(v), old == e),
                };
                changed = change;
                new
            };
            let ord = rmw_ordering(ord);
            let old = match space {
                Space::Global => {
                    let Some((a, off)) = self.global(addr, len as u64) else {
                        return Err(self.oob(l, addr, len, pos, space));
                    };
                    a.rmw(off, len, ord, update)
                }
                Space::Shared => {
                    let off = self.shared_range(l, addr, len, pos)?;
                    self.shared.rmw(off, len, ord, update)
                }
            };
            if changed {
                self.writes += 1;
            }
            if kind == AtomicKind::Load {
                self.atomic_loads += 1;
                self.last_atomic_load = (pos, addr, old);
            }
            if let Some(d) = dst.as_deref_mut() {
                d[l] = old;
            }
        }
        Ok(())
    }
}
