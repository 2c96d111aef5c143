//! The compiled form of a kernel that the executor runs: operands are slot indices, types
//! are the few facts the executor dispatches on, and each instruction belongs to the op
//! family (in [`crate::ops`]) that compiles and executes it.

use crate::ops::{Arith, AsyncCopy, Atomic, Control, Machine, Memory, SharedTile, Tile, Vector};
use kosmos_ir::{FragRole, InstPos, ScalarType};

/// Where a value lives: one per IR value, plus the loop-carried copies the compiler adds.
pub(crate) type Slot = u32;

/// Elements of a `frag<a>`, `frag<b>` or `frag<acc>` tile (16 x 16).
pub(crate) const FRAG_ELEMS: usize = (kosmos_ir::FRAG_M * kosmos_ir::FRAG_N) as usize;

/// Words per lane of a fragment of `role` in subgroups of `subgroup` lanes (a power of two
/// in 8..=64, which divides every tile's 128 or 1024 words).
pub(crate) fn frag_words(role: FragRole, subgroup: u32) -> usize {
    let (rows, cols) = role.shape();
    (rows * cols / 2 / subgroup) as usize
}

/// A scalar or vector type as the executor sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct VTy {
    pub elem: ScalarType,
    /// 0 for a scalar.
    pub lanes: u32,
}

impl VTy {
    pub fn bytes(self) -> usize {
        (self.elem.size_bytes() * self.lanes.max(1)) as usize
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Space {
    Global,
    Shared,
}

/// One instruction, by op family. Instructions that report errors carry `pos`, their walk
/// index, which [`Program::positions`] turns into the IR position.
#[derive(Debug)]
pub(crate) enum Ins {
    Arith(Arith),
    Memory(Memory),
    Atomic(Atomic),
    Machine(Machine),
    Tile(Tile),
    SharedTile(SharedTile),
    AsyncCopy(AsyncCopy),
    Vector(Vector),
    Control(Control),
}

pub(crate) struct Program {
    pub body: Vec<Ins>,
    /// Per slot: whether it holds a 16-byte vector (two words per lane) instead of one word.
    pub wide: Vec<bool>,
    /// Per slot: words per lane of a fragment, 0 for other values. A subgroup's fragment
    /// is the elements of its tile (256, or 2048 for a `frag<wacc>`), row-major, two
    /// 32-bit elements (`bf16` bits or `f32`) per word, over the consecutive words of its
    /// lanes: lane j of the subgroup holds elements `j * 2 * words ..`.
    pub frag: Vec<usize>,
    /// Lanes per subgroup.
    pub subgroup: usize,
    /// Slots with the same value in every lane of every workgroup (constants, shared offsets).
    pub consts: Vec<(Slot, u64)>,
    pub shared_bytes: usize,
    /// Whether the groups of a workgroup must progress independently, because the kernel
    /// has group-wide ops or barrier objects (a group may wait for another).
    pub independent_groups: bool,
    pub positions: Vec<InstPos>,
}

impl Program {
    /// Words per lane of `slot`.
    pub fn words(&self, slot: Slot) -> usize {
        match self.frag[slot as usize] {
            0 => 1 + self.wide[slot as usize] as usize,
            words => words,
        }
    }
}
