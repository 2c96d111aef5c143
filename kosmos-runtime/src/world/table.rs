//! The peer table: which symmetric buffer holds each index, the entries every site's copy
//! of the table holds, and which indices a kernel reads.
//!
//! Slots are shared between a world and its [`SymmetricBuffer`](super::SymmetricBuffer)s, so
//! dropping a buffer frees its slot (the world then rewrites its table copies before the
//! next launch, the freed slot's entries pointing at address 0 rather than at freed
//! memory), and a later allocation reuses the lowest free index: the table never grows past
//! the buffers alive at once, however many a long run allocates and drops.

use kosmos_ir::{BinOp, Kernel, Op, Type, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The world's symmetric buffers by index.
#[derive(Debug, Default)]
pub(crate) struct PeerSlots {
    /// Addresses by rank of the buffer at each index; `None`: a dropped buffer's free slot.
    slots: Vec<Option<Vec<u64>>>,
    /// Whether the sites' table copies predate a drop.
    stale: bool,
}

/// [`PeerSlots`] as a world and its buffers share them.
pub(crate) type SharedSlots = Arc<Mutex<PeerSlots>>;

/// Locks `slots`; a panic elsewhere while holding the lock leaves them consistent (every
/// change is a single assignment), so a poisoned lock is used as it is.
pub(crate) fn lock(slots: &SharedSlots) -> MutexGuard<'_, PeerSlots> {
    slots.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a kernel names that the table does not hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Missing {
    /// The buffer at this index was dropped.
    Dropped(u32),
    /// No buffer ever had this index.
    Unknown(u32),
}

impl PeerSlots {
    /// Puts a buffer with `addresses` (by rank) in the lowest free slot; `None` when every
    /// `u32` index is taken.
    pub(crate) fn insert(&mut self, addresses: Vec<u64>) -> Option<u32> {
        match self.slots.iter().position(Option::is_none) {
            Some(free) => {
                self.slots[free] = Some(addresses);
                Some(free as u32)
            }
            None => {
                let index = u32::try_from(self.slots.len()).ok()?;
                self.slots.push(Some(addresses));
                Some(index)
            }
        }
    }

    /// Frees slot `index` (a dropped buffer); trailing free slots leave the table.
    pub(crate) fn remove(&mut self, index: u32) {
        if let Some(slot) = self.slots.get_mut(index as usize) {
            *slot = None;
            self.stale = true;
        }
        while self.slots.last().is_some_and(Option::is_none) {
            self.slots.pop();
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether a buffer was dropped since the table copies were last written.
    pub(crate) fn stale(&self) -> bool {
        self.stale
    }

    /// The entries of a table copy at address `table`, after which it is no longer stale.
    pub(crate) fn entries(&mut self, table: u64) -> Vec<i64> {
        self.stale = false;
        offsets(&self.slots, table)
    }

    /// The first of `indices` that no live buffer holds.
    pub(crate) fn missing(&self, indices: &[u32]) -> Option<Missing> {
        indices
            .iter()
            .find_map(|&i| match self.slots.get(i as usize) {
                Some(Some(_)) => None,
                Some(None) => Some(Missing::Dropped(i)),
                None => Some(Missing::Unknown(i)),
            })
    }
}

/// Byte offsets from `table` (an address) to every rank's copy of every buffer, in peer
/// table order (`buffer * ranks + rank`), and to address 0 for free slots. Addresses may
/// lie on other devices: in one unified address space the difference is still the
/// distance between them.
fn offsets(slots: &[Option<Vec<u64>>], table: u64) -> Vec<i64> {
    let ranks = slots.iter().flatten().map(Vec::len).max().unwrap_or(0);
    slots
        .iter()
        .flat_map(|slot| match slot {
            Some(addresses) => addresses.clone(),
            None => vec![0; ranks],
        })
        .map(|addr| addr.wrapping_sub(table) as i64)
        .collect()
}

/// The symmetric buffer indices `kernel` reads from the peer table, if every read of the
/// table has the shape `Team::peer_ptr` emits: an `i64` entry at `ptr.offset team_peers,
/// (index * team_ranks + rank)` with a constant `index`. `None` when the kernel has no
/// team parameters or reads the table some other way (then nothing can be checked before
/// a launch, and a freed slot's null entries make a read of it fault instead).
pub(crate) fn buffers_read(kernel: &Kernel) -> Option<Vec<u32>> {
    let [peers, ranks] = [0, 1].map(|i| kernel.params.get(i).copied());
    let (peers, ranks) = (peers?, ranks?);
    if kernel.value_name(peers) != Some(super::abi::TEAM_PARAMS[0]) {
        return None;
    }
    let mut consts: HashMap<Value, u64> = HashMap::new();
    let mut binaries: HashMap<Value, (BinOp, Value, Value)> = HashMap::new();
    let mut reads: Vec<Value> = Vec::new();
    kernel.walk(|_, inst| {
        let Some(&result) = inst.results.first() else {
            return;
        };
        match inst.op {
            Op::Const { value } => {
                consts.insert(result, value.bits);
            }
            Op::Binary { op, lhs, rhs } => {
                binaries.insert(result, (op, lhs, rhs));
            }
            Op::PtrOffset { base, index, elem } if base == peers && elem == Type::I64 => {
                reads.push(index);
            }
            _ => {}
        }
    });
    let mut indices: Vec<u32> = Vec::new();
    for slot in reads {
        let &(BinOp::Add, row, _) = binaries.get(&slot)? else {
            return None;
        };
        let &(BinOp::Mul, a, b) = binaries.get(&row)? else {
            return None;
        };
        let index = match (a == ranks, b == ranks) {
            (false, true) => consts.get(&a)?,
            (true, false) => consts.get(&b)?,
            _ => return None,
        };
        indices.push(u32::try_from(*index).ok()?);
    }
    indices.sort_unstable();
    indices.dedup();
    Some(indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_reach_buffers_on_both_sides_of_the_table() {
        // Two buffers x two ranks, some below the table's address (another device's
        // allocation in a unified address space), some above.
        let table = 0x7f00_0000_1000u64;
        let buffers = [
            vec![0x7f00_0000_0000, 0x7e00_0000_0000],
            vec![0x7f10_0000_0000, table + 64],
        ];
        let slots: Vec<_> = buffers.iter().cloned().map(Some).collect();
        let offsets = offsets(&slots, table);
        assert_eq!(offsets.len(), 4);
        for (i, addr) in buffers.iter().flatten().enumerate() {
            assert_eq!(table.wrapping_add(offsets[i] as u64), *addr, "entry {i}");
        }
        assert!(offsets[1] < 0 && offsets[2] > 0);
        assert_eq!(offsets[3], 64);
    }

    #[test]
    fn a_freed_slot_points_at_address_zero_and_is_reused_first() {
        let table = 0x1_0000_2000u64;
        let mut slots = PeerSlots::default();
        for base in [0x1_0000_0000u64, 0x2_0000_0000, 0x3_0000_0000] {
            slots.insert(vec![base, base + 0x100]).unwrap();
        }
        assert_eq!(slots.entries(table).len(), 6);
        slots.remove(1);
        assert!(slots.stale());
        assert_eq!(slots.missing(&[0, 1, 2]), Some(Missing::Dropped(1)));
        assert_eq!(slots.missing(&[0, 2, 7]), Some(Missing::Unknown(7)));
        let entries = slots.entries(table);
        assert!(!slots.stale());
        // The freed slot's entries lead to address 0, never to the freed buffer.
        for entry in &entries[2..4] {
            assert_eq!(table.wrapping_add(*entry as u64), 0);
        }
        assert_eq!(slots.insert(vec![0x4_0000_0000, 0x4_0000_0100]), Some(1));
        assert_eq!(slots.missing(&[0, 1, 2]), None);
        // Dropping the last buffers shrinks the table.
        slots.remove(2);
        slots.remove(1);
        assert_eq!(slots.len(), 1);
        assert_eq!(slots.missing(&[1]), Some(Missing::Unknown(1)));
    }
}
