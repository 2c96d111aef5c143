//! The memory layouts that `copy.tensor` and the `mbar.*` ops share between the runtime and
//! the backends that emulate the copy engine (the CPU device and AMD GPUs). On NVIDIA the
//! barrier object is the hardware's and the tensor map the driver's
//! (`cuTensorMapEncodeTiled`).

/// Bytes of a tensor map; maps are 64-byte aligned in global memory.
pub const TENSOR_MAP_BYTES: u64 = 128;
/// `u64` words of a tensor map.
pub const TENSOR_MAP_WORDS: usize = (TENSOR_MAP_BYTES / 8) as usize;

/// The emulated tensor map: 16 little-endian `u64` words, unused words zero. Word `i` holds
/// the field named by the constant of value `i`.
pub mod map_word {
    /// Device address of element (0, 0).
    pub const BASE: usize = 0;
    /// Columns (elements of a row, the inner dimension).
    pub const COLS: usize = 1;
    pub const ROWS: usize = 2;
    /// Bytes between the starts of consecutive rows.
    pub const ROW_STRIDE: usize = 3;
    /// Columns of the box a `copy.tensor` copies.
    pub const BOX_COLS: usize = 4;
    pub const BOX_ROWS: usize = 5;
    /// Bytes of one element.
    pub const ELEM_BYTES: usize = 6;
    /// Bytes of a swizzle span: 0 (none) or 128.
    pub const SWIZZLE: usize = 7;
}

/// Where byte `offset` of a box (rows packed `box_cols * elem_size` bytes apart) lies in
/// shared memory: with the 128-byte swizzle, 16-byte chunk `j` of each 128-byte line `i` is
/// chunk `j ^ (i % 8)` (the hardware's `CU_TENSOR_MAP_SWIZZLE_128B` from a 1024-byte aligned
/// destination).
pub fn swizzled(offset: u64, swizzle: u64) -> u64 {
    match swizzle {
        0 => offset,
        _ => offset ^ (((offset >> 7) & 7) << 4),
    }
}

/// The emulated barrier object: one `u64` in shared memory, the sum
/// `tx + pending * 2^21 + count * 2^42 + phase * 2^63` of
/// - `tx`: bytes the current phase still expects (announced minus arrived; negative while
///   copies are ahead of their announcement, which its own arrival is still pending then),
///   a 21-bit field that borrows from `pending`: a phase receives less than 1 MiB;
/// - `pending`: arrivals the current phase still expects;
/// - `count`: arrivals per phase (from `mbar.init`);
/// - `phase`: the parity of the current phase.
///
/// Every update is one atomic add, so the fields stay consistent under concurrent updates:
/// the phase is complete when the low 42 bits (`pending * 2^21 + tx`) are zero, and the
/// update that made them zero starts the next phase with [`mbar::next_phase`].
pub mod mbar {
    /// The weight of one pending arrival.
    pub const ARRIVAL: u64 = 1 << 21;
    /// The weight of one arrival of `count`.
    pub const COUNT: u64 = 1 << 42;
    /// The phase bit.
    pub const PHASE: u64 = 1 << 63;
    /// Bits of `pending * 2^21 + tx`: zero when the current phase is complete.
    pub const OPEN: u64 = COUNT - 1;
    /// The largest arrival count.
    pub const MAX_COUNT: u64 = ARRIVAL / 2;

    /// A fresh object expecting `count` arrivals per phase.
    pub fn init(count: u64) -> u64 {
        count * COUNT + count * ARRIVAL
    }

    /// What to add after an update left `word`: nothing while the phase is open; when it
    /// completed, the next phase's arrivals and a flipped phase bit.
    pub fn next_phase(word: u64) -> u64 {
        if word & OPEN != 0 {
            return 0;
        }
        ((word >> 42) & (ARRIVAL - 1)) * ARRIVAL + PHASE
    }

    /// Whether the phase of `parity` has completed: the current phase has the other parity.
    pub fn phase_done(word: u64, parity: u32) -> bool {
        (word >> 63) as u32 != parity & 1
    }
}
