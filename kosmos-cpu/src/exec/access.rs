//! How a lane's address reaches memory: bounds and alignment checks that turn bad
//! addresses into errors naming the lane and instruction, and the raw reads and writes of
//! global and shared memory that the memory, atomic and tile ops build on.

use super::{Exec, Res, Stop};
use crate::CpuError;
use crate::memory::Allocation;
use crate::program::Space;
use std::sync::atomic::Ordering as AO;

impl<'a> Exec<'a> {
    /// The allocation holding `[addr, addr + len)` and the offset in it.
    #[inline]
    pub(crate) fn global(&mut self, addr: u64, len: u64) -> Option<(&'a Allocation, u64)> {
        let allocs = &self.l.mem.allocs;
        if let Some(a) = allocs.get(self.alloc_cache)
            && addr >= a.base
            && addr.checked_add(len).is_some_and(|e| e <= a.end())
        {
            return Some((a, addr - a.base));
        }
        let (a, off) = self.l.mem.find(addr, len)?;
        self.alloc_cache = allocs
            .iter()
            .position(|x| std::ptr::eq(&**x, a))
            .unwrap_or(0);
        Some((a, off))
    }

    pub(crate) fn oob(&self, lane: usize, addr: u64, bytes: usize, pos: u32, space: Space) -> Stop {
        CpuError::OutOfBounds {
            kernel: self.kernel(),
            workgroup: self.wg,
            lane: self.lane(lane),
            addr,
            bytes: bytes as u32,
            pos: self.pos(pos),
            op: self.op_name(pos),
            space: match space {
                Space::Global => "global",
                Space::Shared => "shared",
            },
        }
        .into()
    }

    #[inline]
    pub(crate) fn check_align(&self, lane: usize, addr: u64, align: u32, pos: u32) -> Res {
        if !addr.is_multiple_of(align as u64) {
            return Err(CpuError::Misaligned {
                kernel: self.kernel(),
                workgroup: self.wg,
                lane: self.lane(lane),
                addr,
                align,
                pos: self.pos(pos),
                op: self.op_name(pos),
            }
            .into());
        }
        Ok(())
    }

    /// The offset of `[addr, addr + len)` in shared memory.
    #[inline(always)]
    pub(crate) fn shared_range(
        &self,
        lane: usize,
        addr: u64,
        len: usize,
        pos: u32,
    ) -> Result<usize, Stop> {
        match addr.checked_add(len as u64) {
            Some(end) if end <= self.shared.len() as u64 => Ok(addr as usize),
            _ => Err(self.oob(lane, addr, len, pos, Space::Shared)),
        }
    }

    /// `len` (<= 16) bytes of memory at `addr`, for `lane`.
    #[inline(always)]
    pub(crate) fn read(
        &mut self,
        lane: usize,
        addr: u64,
        len: usize,
        space: Space,
        pos: u32,
    ) -> Result<u128, Stop> {
        match space {
            Space::Global => match self.global(addr, len as u64) {
                Some((a, off)) => Ok(a.load(off, len, AO::Relaxed)),
                None => Err(self.oob(lane, addr, len, pos, space)),
            },
            Space::Shared => {
                let off = self.shared_range(lane, addr, len, pos)?;
                Ok(self.shared.load(off, len, AO::Relaxed))
            }
        }
    }

    /// The low `len` (<= 16) bytes of `v` to memory at `addr`, for `lane`.
    #[inline(always)]
    pub(crate) fn write(
        &mut self,
        lane: usize,
        addr: u64,
        len: usize,
        v: u128,
        space: Space,
        pos: u32,
    ) -> Res {
        match space {
            Space::Global => match self.global(addr, len as u64) {
                Some((a, off)) => a.store(off, len, v, AO::Relaxed),
                None => return Err(self.oob(lane, addr, len, pos, space)),
            },
            Space::Shared => {
                let off = self.shared_range(lane, addr, len, pos)?;
                self.shared.store(off, len, v, AO::Relaxed);
            }
        }
        Ok(())
    }
}
