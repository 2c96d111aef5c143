//! Device memory: allocations backed by atomic words.
//!
//! Every access goes through Rust atomics on `u64` words, so workgroup threads may race on
//! memory exactly as GPU threads do without undefined behaviour in Rust. Accesses narrower
//! than a word that write update the word with a compare-exchange loop, leaving neighbouring
//! bytes (possibly written by other threads) untouched.

use std::sync::atomic::{AtomicU64, Ordering};

/// One live allocation.
pub(crate) struct Allocation {
    pub base: u64,
    pub size: u64,
    words: Box<[AtomicU64]>,
}

/// Bit mask of the low `len` bytes (`len` <= 8).
#[inline(always)]
fn byte_mask(len: usize) -> u64 {
    if len >= 8 {
        u64::MAX
    } else {
        (1u64 << (len * 8)) - 1
    }
}

/// Read-modify-write ordering for an IR ordering.
pub(crate) fn rmw_ordering(o: kosmos_ir::Ordering) -> Ordering {
    use kosmos_ir::Ordering as O;
    match o {
        O::Relaxed => Ordering::Relaxed,
        O::Acquire => Ordering::Acquire,
        O::Release => Ordering::Release,
        O::AcqRel => Ordering::AcqRel,
        O::SeqCst => Ordering::SeqCst,
    }
}

impl Allocation {
    pub fn new(base: u64, size: u64) -> Option<Allocation> {
        let n = usize::try_from(size.div_ceil(8)).ok()?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).ok()?;
        v.extend((0..n).map(|_| AtomicU64::new(0)));
        Some(Allocation {
            base,
            size,
            words: v.into_boxed_slice(),
        })
    }

    pub fn end(&self) -> u64 {
        self.base + self.size
    }

    /// Updates the bytes selected by `mask` in word `w` to `bits`.
    #[inline(always)]
    fn update_word(&self, w: usize, mask: u64, bits: u64, ord: Ordering) {
        if mask == u64::MAX {
            self.words[w].store(bits, ord);
            return;
        }
        let word = &self.words[w];
        let mut cur = word.load(Ordering::Relaxed);
        loop {
            let new = (cur & !mask) | (bits & mask);
            match word.compare_exchange_weak(cur, new, ord, Ordering::Relaxed) {
                Ok(_) => return,
                Err(actual) => cur = actual,
            }
        }
    }

    /// Loads `len` (<= 16) bytes at byte offset `off`, little endian. The caller checked bounds.
    #[inline]
    pub fn load(&self, off: u64, len: usize, ord: Ordering) -> u128 {
        let off = off as usize;
        let (w, b) = (off / 8, off % 8);
        if b + len <= 8 {
            return ((self.words[w].load(ord) >> (b * 8)) & byte_mask(len)) as u128;
        }
        let mut out = 0u128;
        for i in 0..len {
            let a = off + i;
            let byte = (self.words[a / 8].load(ord) >> ((a % 8) * 8)) & 0xFF;
            out |= (byte as u128) << (i * 8);
        }
        out
    }

    /// Stores the low `len` (<= 16) bytes of `v` at byte offset `off`. Bounds checked by the
    /// caller.
    #[inline]
    pub fn store(&self, off: u64, len: usize, v: u128, ord: Ordering) {
        let off = off as usize;
        let mut done = 0;
        while done < len {
            let a = off + done;
            let (w, b) = (a / 8, a % 8);
            let n = (8 - b).min(len - done);
            let bits = ((v >> (done * 8)) as u64) << (b * 8);
            self.update_word(w, byte_mask(n) << (b * 8), bits, ord);
            done += n;
        }
    }

    /// Atomically replaces the naturally aligned `len`-byte (<= 8) value at `off` with
    /// `f(old)` unless `f` returns `None`; returns the old value.
    #[inline]
    pub fn rmw(
        &self,
        off: u64,
        len: usize,
        ord: Ordering,
        mut f: impl FnMut(u64) -> Option<u64>,
    ) -> u64 {
        let off = off as usize;
        let (w, b) = (off / 8, off % 8);
        let shift = b * 8;
        let mask = byte_mask(len);
        let failure = match ord {
            Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
            Ordering::SeqCst => Ordering::SeqCst,
            _ => Ordering::Acquire,
        };
        let word = &self.words[w];
        let mut cur = word.load(failure);
        loop {
            let old = (cur >> shift) & mask;
            let Some(new) = f(old) else { return old };
            let next = (cur & !(mask << shift)) | ((new & mask) << shift);
            match word.compare_exchange_weak(cur, next, ord, failure) {
                Ok(_) => return old,
                Err(actual) => cur = actual,
            }
        }
    }

    /// Sets every byte to `byte`.
    pub fn fill(&self, byte: u8) {
        for w in &self.words {
            w.store(u64::from_ne_bytes([byte; 8]), Ordering::Relaxed);
        }
    }

    pub fn read_bytes(&self, off: u64, out: &mut [u8]) {
        for (i, chunk) in out.chunks_mut(16).enumerate() {
            let v = self.load(off + i as u64 * 16, chunk.len(), Ordering::SeqCst);
            chunk.copy_from_slice(&v.to_le_bytes()[..chunk.len()]);
        }
    }

    pub fn write_bytes(&self, off: u64, data: &[u8]) {
        for (i, chunk) in data.chunks(16).enumerate() {
            let mut b = [0u8; 16];
            b[..chunk.len()].copy_from_slice(chunk);
            self.store(
                off + i as u64 * 16,
                chunk.len(),
                u128::from_le_bytes(b),
                Ordering::SeqCst,
            );
        }
    }
}

/// The allocations of a launch, sorted by base, with a one-entry cache per lookup site.
pub(crate) struct MemoryView {
    pub allocs: Vec<std::sync::Arc<Allocation>>,
}

impl MemoryView {
    /// The allocation holding `[addr, addr + len)` and the offset of `addr` in it.
    #[inline]
    pub fn find(&self, addr: u64, len: u64) -> Option<(&Allocation, u64)> {
        let i = self
            .allocs
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        let a = &self.allocs[i];
        let off = addr - a.base;
        (off.checked_add(len)? <= a.size).then_some((a, off))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_stores_from_many_threads_keep_their_neighbours() {
        // Each thread owns every fourth byte of the same words; compare-exchange updates
        // must never lose a neighbour's write.
        let a = Allocation::new(0, 64).unwrap();
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let a = &a;
                s.spawn(move || {
                    for round in 0..200u64 {
                        for i in (t..64).step_by(4) {
                            a.store(i, 1, ((i + round) & 0xFF) as u128, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let mut out = [0u8; 64];
        a.read_bytes(0, &mut out);
        for (i, b) in out.iter().enumerate() {
            assert_eq!(*b as u64, (i as u64 + 199) & 0xFF, "byte {i}");
        }
    }

    #[test]
    fn unaligned_and_straddling_accesses_round_trip() {
        let a = Allocation::new(0, 40).unwrap();
        let v = 0x0102_0304_0506_0708_090A_0B0C_0D0E_0F10u128;
        a.store(5, 16, v, Ordering::Relaxed);
        assert_eq!(a.load(5, 16, Ordering::Relaxed), v);
        assert_eq!(a.load(5, 2, Ordering::Relaxed), 0x0F10);
        assert_eq!(a.load(4, 1, Ordering::Relaxed), 0);
        assert_eq!(a.load(21, 1, Ordering::Relaxed), 0);
        let old = a.rmw(24, 4, Ordering::SeqCst, |x| Some(x + 5));
        assert_eq!(old, 0);
        assert_eq!(a.load(24, 4, Ordering::Relaxed), 5);
        // A refused update leaves memory alone and still returns the old value.
        assert_eq!(a.rmw(24, 4, Ordering::SeqCst, |_| None), 5);
    }

    #[test]
    fn lookup_respects_bounds_and_gaps() {
        let view = MemoryView {
            allocs: vec![
                std::sync::Arc::new(Allocation::new(0x1000, 10).unwrap()),
                std::sync::Arc::new(Allocation::new(0x2000, 8).unwrap()),
            ],
        };
        assert_eq!(
            view.find(0x1000, 10).map(|(a, o)| (a.base, o)),
            Some((0x1000, 0))
        );
        assert!(view.find(0x1008, 4).is_none());
        assert!(view.find(0x1800, 1).is_none());
        assert!(view.find(0xFFF, 1).is_none());
        assert_eq!(view.find(0x2004, 4).map(|(_, o)| o), Some(4));
        assert!(view.find(u64::MAX, 2).is_none());
    }
}
