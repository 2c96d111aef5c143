//! Plain memory access: `shared.alloc`, `ptr.offset`, `load` and `store`, lane by lane;
//! every address is checked for alignment and bounds (see `exec::access`). Also the slice
//! checks of kernels: `buffer.len` and `bounds.fail`, which ends the launch with its error.

use crate::CpuError;
use crate::arith::{self, width_mask};
use crate::compile::{Compiler, vty};
use crate::exec::lanes::{get, map2, set};
use crate::exec::{Exec, Res};
use crate::program::{Slot, Space, VTy};
use kosmos_ir::{Inst, Op, ScalarType, Type};

#[derive(Debug)]
pub(crate) enum Memory {
    PtrOffset {
        dst: Slot,
        base: Slot,
        index: Slot,
        index_ty: ScalarType,
        size: u64,
    },
    Load(Access),
    Store(Access),
    /// `buffer.len` of the kernel's parameter number `param`.
    BufferLen {
        dst: Slot,
        param: usize,
    },
    BoundsFail {
        index: Slot,
        len: Slot,
        origin: String,
    },
    WaitFail {
        polls: Slot,
        origin: String,
    },
}

/// A `load` or `store` of a `ty` at `ptr`: `value` is the slot loaded into or stored from.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Access {
    ptr: Slot,
    value: Slot,
    space: Space,
    ty: VTy,
    align: u32,
    pos: u32,
}

impl Compiler<'_> {
    /// `None` for `shared.alloc`, which becomes a constant slot holding its offset.
    #[inline]
    pub(crate) fn memory(&mut self, inst: &Inst, at: u32) -> Option<Memory> {
        Some(match inst.op {
            Op::SharedAlloc { .. } => {
                let offset = self.next_shared_offset();
                self.constant(self.result(inst), offset);
                return None;
            }
            Op::PtrOffset { base, index, elem } => Memory::PtrOffset {
                dst: self.result(inst),
                base: base.0,
                index: index.0,
                index_ty: self.sty(index),
                size: elem.size_bytes() as u64,
            },
            Op::Load { ptr, ty, align } => Memory::Load(Access {
                ptr: ptr.0,
                value: self.result(inst),
                space: self.space(ptr),
                ty: in_memory(ty),
                align,
                pos: at,
            }),
            Op::Store { ptr, value, align } => Memory::Store(Access {
                ptr: ptr.0,
                value: value.0,
                space: self.space(ptr),
                ty: in_memory(self.ty(value)),
                align,
                pos: at,
            }),
            Op::BufferLen { buffer } => Memory::BufferLen {
                dst: self.result(inst),
                param: self.param_index(buffer),
            },
            Op::BoundsFail {
                index,
                len,
                ref origin,
            } => Memory::BoundsFail {
                index: index.0,
                len: len.0,
                origin: origin.0.clone(),
            },
            Op::WaitFail { polls, ref origin } => Memory::WaitFail {
                polls: polls.0,
                origin: origin.0.clone(),
            },
            ref op => unreachable!("`{}` is not a memory op", op.name()),
        })
    }
}

/// What a `load` or `store` of `ty` moves: a pointer is its 8-byte address (the verifier
/// keeps `ptr<shared>` out of memory), anything else its scalar or vector.
fn in_memory(ty: Type) -> VTy {
    match ty {
        Type::Ptr(_) => VTy {
            elem: ScalarType::U64,
            lanes: 0,
        },
        _ => vty(ty),
    }
}

impl Exec<'_> {
    #[inline]
    pub(crate) fn memory(&mut self, ins: &Memory, mask: &[bool]) -> Res {
        match *ins {
            Memory::PtrOffset {
                dst,
                base,
                index,
                index_ty,
                size,
            } => map2(&mut self.vals, dst, base, index, |p, i| {
                p.wrapping_add((arith::to_i64(index_ty, i) as u64).wrapping_mul(size))
            }),
            Memory::Load(access) => self.load(access, mask)?,
            Memory::Store(access) => self.store(access, mask)?,
            Memory::BufferLen { dst, param } => {
                self.vals[dst as usize].fill(self.l.buffer_bytes[param])
            }
            Memory::WaitFail { polls, ref origin } => {
                if let Some(lane) = (0..self.n).find(|l| mask[*l]) {
                    return Err(CpuError::WaitGaveUp {
                        kernel: self.l.kernel.name.clone(),
                        workgroup: self.wg,
                        lane: self.lane(lane),
                        origin: origin.clone(),
                        polls: self.vals[polls as usize][lane],
                    }
                    .into());
                }
            }
            Memory::BoundsFail {
                index,
                len,
                ref origin,
            } => {
                if let Some(lane) = (0..self.n).find(|l| mask[*l]) {
                    return Err(CpuError::IndexOutOfBounds {
                        // The origin names the source file.
                        kernel: self.l.kernel.name.clone(),
                        workgroup: self.wg,
                        lane: self.lane(lane),
                        origin: origin.clone(),
                        index: self.vals[index as usize][lane],
                        len: self.vals[len as usize][lane],
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    fn load(&mut self, a: Access, mask: &[bool]) -> Res {
        let len = a.ty.bytes();
        let w = self.l.prog.wide[a.value as usize];
        let vmask = if a.ty.lanes == 0 {
            width_mask(a.ty.elem) as u128
        } else {
            u128::MAX
        };
        let mut d = std::mem::take(&mut self.vals[a.value as usize]);
        let r = (|| {
            for l in (0..self.n).filter(|l| mask[*l]) {
                let addr = self.vals[a.ptr as usize][l];
                self.check_align(l, addr, a.align, a.pos)?;
                let v = self.read(l, addr, len, a.space, a.pos)?;
                set(&mut d, l, w, v & vmask);
            }
            Ok(())
        })();
        self.vals[a.value as usize] = d;
        r
    }

    fn store(&mut self, a: Access, mask: &[bool]) -> Res {
        let len = a.ty.bytes();
        let w = self.l.prog.wide[a.value as usize];
        for l in (0..self.n).filter(|l| mask[*l]) {
            let addr = self.vals[a.ptr as usize][l];
            let v = get(&self.vals[a.value as usize], l, w);
            self.check_align(l, addr, a.align, a.pos)?;
            self.write(l, addr, len, v, a.space, a.pos)?;
        }
        self.writes += 1;
        Ok(())
    }
}
