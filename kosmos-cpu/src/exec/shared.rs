//! A workgroup's shared memory. When one thread runs the whole workgroup it is plain bytes
//! that thread owns; when the workgroup's groups run on threads of their own
//! ([`super::groups`]) it is atomic words like device memory, so that the groups may race on
//! it as GPU warps do, without undefined behaviour.

use crate::memory::Allocation;
use std::sync::atomic::Ordering;

/// Byte pattern of fresh shared memory: reads before writes give NaNs and -1s, not zeros.
pub(crate) const SHARED_POISON: u8 = 0xFF;

pub(crate) enum SharedMemory<'a> {
    /// Owned by the one thread running the workgroup: orderings do not matter.
    Private(Vec<u8>),
    /// Shared by the threads of the workgroup's groups.
    Workgroup(&'a Allocation),
}

impl SharedMemory<'_> {
    pub fn len(&self) -> usize {
        match self {
            SharedMemory::Private(bytes) => bytes.len(),
            SharedMemory::Workgroup(words) => words.size as usize,
        }
    }

    /// `len` (<= 16) bytes at `off`, which the caller checked.
    #[inline(always)]
    pub fn load(&self, off: usize, len: usize, ord: Ordering) -> u128 {
        match self {
            SharedMemory::Private(bytes) => {
                let mut b = [0u8; 16];
                b[..len].copy_from_slice(&bytes[off..off + len]);
                u128::from_le_bytes(b)
            }
            SharedMemory::Workgroup(words) => words.load(off as u64, len, ord),
        }
    }

    /// The low `len` (<= 16) bytes of `v` at `off`, which the caller checked.
    #[inline(always)]
    pub fn store(&mut self, off: usize, len: usize, v: u128, ord: Ordering) {
        match self {
            SharedMemory::Private(bytes) => {
                bytes[off..off + len].copy_from_slice(&v.to_le_bytes()[..len]);
            }
            SharedMemory::Workgroup(words) => words.store(off as u64, len, v, ord),
        }
    }

    /// Replaces the naturally aligned `len`-byte (<= 8) value at `off` with `f(old)` unless
    /// `f` returns `None`, atomically for the other groups; returns the old value.
    pub fn rmw(
        &mut self,
        off: usize,
        len: usize,
        ord: Ordering,
        mut f: impl FnMut(u64) -> Option<u64>,
    ) -> u64 {
        match self {
            SharedMemory::Private(_) => {
                let old = self.load(off, len, ord) as u64;
                if let Some(new) = f(old) {
                    self.store(off, len, u128::from(new), ord);
                }
                old
            }
            SharedMemory::Workgroup(words) => words.rmw(off as u64, len, ord, f),
        }
    }
}
