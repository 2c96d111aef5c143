//! Plain memory access: `shared.alloc`, `ptr.offset`, `load` and `store`, lane by lane;
//! every address is checked for alignment and bounds (see `exec::access`).

use crate::arith::{self, width_mask};
use crate::compile::{Compiler, vty};
use crate::exec::lanes::{get, map2, set};
use crate::exec::{Exec, Res};
use crate::program::{Slot, Space, VTy};
use kosmos_ir::{Inst, Op, ScalarType};

#[derive(Debug)]
pub(crate) enum Memory {
    PtrOffset {
        dst: Slot,
        base: Slot,
        index: Slot,
        index_ty: ScalarType,
        size: u64,
    },
    Load {
        dst: Slot,
        ptr: Slot,
        space: Space,
        ty: VTy,
        align: u32,
        pos: u32,
    },
    Store {
        ptr: Slot,
        val: Slot,
        space: Space,
        ty: VTy,
        align: u32,
        pos: u32,
    },
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
            Op::Load { ptr, ty, align } => Memory::Load {
                dst: self.result(inst),
                ptr: ptr.0,
                space: self.space(ptr),
                ty: vty(ty),
                align,
                pos: at,
            },
            Op::Store { ptr, value, align } => Memory::Store {
                ptr: ptr.0,
                val: value.0,
                space: self.space(ptr),
                ty: self.vty(value),
                align,
                pos: at,
            },
            ref op => unreachable!("`{}` is not a memory op", op.name()),
        })
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
            Memory::Load {
                dst,
                ptr,
                space,
                ty,
                align,
                pos,
            } => self.load(dst, ptr, space, ty, align, pos, mask)?,
            Memory::Store {
                ptr,
                val,
                space,
                ty,
                align,
                pos,
            } => self.store(ptr, val, space, ty, align, pos, mask)?,
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        dst: Slot,
        ptr: Slot,
        space: Space,
        ty: VTy,
        align: u32,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        let len = ty.bytes();
        let w = self.l.prog.wide[dst as usize];
        let vmask = if ty.lanes == 0 {
            width_mask(ty.elem) as u128
        } else {
            u128::MAX
        };
        let mut d = std::mem::take(&mut self.vals[dst as usize]);
        let r = (|| {
            for l in (0..self.n).filter(|l| mask[*l]) {
                let addr = self.vals[ptr as usize][l];
                self.check_align(l, addr, align, pos)?;
                let v = self.read(l, addr, len, space, pos)?;
                set(&mut d, l, w, v & vmask);
            }
            Ok(())
        })();
        self.vals[dst as usize] = d;
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        ptr: Slot,
        val: Slot,
        space: Space,
        ty: VTy,
        align: u32,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        let len = ty.bytes();
        let w = self.l.prog.wide[val as usize];
        for l in (0..self.n).filter(|l| mask[*l]) {
            let addr = self.vals[ptr as usize][l];
            let v = get(&self.vals[val as usize], l, w);
            self.check_align(l, addr, align, pos)?;
            self.write(l, addr, len, v, space, pos)?;
        }
        self.writes += 1;
        Ok(())
    }
}
