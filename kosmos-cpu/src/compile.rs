//! Resolves a verified kernel into a [`Program`]: operands become slot indices, types become
//! the few facts the executor dispatches on, constants and shared-memory offsets are hoisted,
//! and every terminator knows which slots it writes.
//!
//! The kernel passed the verifier, so operand types, scoping, result counts and region
//! structure are facts here, not questions: what the executor could still get wrong at
//! run time (addresses, division by zero, divergence) it checks itself. Each op family's
//! compile side lives with its execute side in [`crate::ops`].

use crate::program::{Ins, Program, Slot, Space, VTy, frag_words};
use kosmos_ir::{
    AddrSpace, Inst, Kernel, OpFamily, Region, ScalarType, Type, Value, VerifiedKernel,
};

/// Where the terminators of an open region send their values.
enum Target {
    /// An `if`: `yield` writes its results.
    If { results: Vec<Slot> },
    /// A `for` or `loop`: `yield` writes the next iteration's carried values, `break`
    /// (only ever in a `loop`) its results.
    Loop { next: Vec<Slot>, results: Vec<Slot> },
}

pub(crate) struct Compiler<'k> {
    k: &'k Kernel,
    wide: Vec<bool>,
    frag: Vec<usize>,
    consts: Vec<(Slot, u64)>,
    /// Offsets of the `shared.alloc`s in walk order ([`Kernel::shared_layout`]) and how
    /// many of them were compiled.
    shared_offsets: Vec<u64>,
    shared_seen: usize,
    positions: Vec<kosmos_ir::InstPos>,
    /// The regions being compiled, innermost last (the kernel body has none).
    targets: Vec<Target>,
}

/// Compiles `k` for subgroups of `subgroup` lanes (a power of two in 8..=64).
pub(crate) fn compile(k: &VerifiedKernel, subgroup: u32) -> Program {
    // The layout every target uses, so that offsets (and the 1 KiB alignment `mma.group`
    // tiles need) agree with the verifier and the code generators.
    let (shared_offsets, shared_bytes) = k.shared_layout();
    let mut c = Compiler {
        k,
        wide: k
            .values
            .iter()
            .map(|v| !v.ty.is_frag() && v.ty.size_bytes() > 8)
            .collect(),
        frag: k
            .values
            .iter()
            .map(|v| match v.ty {
                Type::Frag(role) => frag_words(role, subgroup),
                _ => 0,
            })
            .collect(),
        consts: Vec::new(),
        shared_offsets,
        shared_seen: 0,
        positions: Vec::new(),
        targets: Vec::new(),
    };
    let body = c.region(&k.body);
    let mut barrier_objects = false;
    k.walk(|_, inst| barrier_objects |= inst.op.family() == OpFamily::Async);
    Program {
        body,
        wide: c.wide,
        frag: c.frag,
        subgroup: subgroup as usize,
        consts: c.consts,
        // The verifier bounds the allocations by MAX_SHARED_BYTES, so the total fits.
        shared_bytes: shared_bytes as usize,
        independent_groups: k.uses_groups() || barrier_objects,
        positions: c.positions,
    }
}

impl<'k> Compiler<'k> {
    /// The instructions of `r`, with every instruction's position recorded in walk order.
    fn region(&mut self, r: &Region) -> Vec<Ins> {
        let mut out = Vec::with_capacity(r.insts.len());
        for inst in &r.insts {
            let index = self.positions.len();
            self.positions.push(Kernel::inst_pos(inst, index));
            out.extend(self.inst(inst, index as u32));
        }
        out
    }

    /// Compiles `r` as the region of an `if` (writing `results`) or of a loop.
    pub(crate) fn nested_region(
        &mut self,
        r: &Region,
        results: Vec<Slot>,
        next: Option<Vec<Slot>>,
    ) -> Vec<Ins> {
        self.targets.push(match next {
            None => Target::If { results },
            Some(next) => Target::Loop { next, results },
        });
        let code = self.region(r);
        self.targets.pop();
        code
    }

    /// Routes each op to its family; `at` is its walk index. Ops that only set up slots
    /// (constants, shared offsets, async waits, register budgets) give no instruction.
    fn inst(&mut self, inst: &Inst, at: u32) -> Option<Ins> {
        match inst.op.family() {
            OpFamily::Arith => self.arith(inst, at).map(Ins::Arith),
            OpFamily::Memory => self.memory(inst, at).map(Ins::Memory),
            OpFamily::Atomic => Some(Ins::Atomic(self.atomic(inst, at))),
            OpFamily::Machine => self.machine(inst, at).map(Ins::Machine),
            OpFamily::Tile => Some(Ins::Tile(self.tile(inst, at))),
            OpFamily::SharedTile => self.shared_tile(inst, at).map(Ins::SharedTile),
            OpFamily::Async => self.async_copy(inst, at).map(Ins::AsyncCopy),
            OpFamily::Vector => Some(Ins::Vector(self.vector(inst))),
            OpFamily::Control => Some(Ins::Control(self.control(inst, at))),
        }
    }

    // ---- what the op families ask ----

    pub(crate) fn ty(&self, v: Value) -> Type {
        self.k.ty(v)
    }

    pub(crate) fn vty(&self, v: Value) -> VTy {
        vty(self.ty(v))
    }

    pub(crate) fn sty(&self, v: Value) -> ScalarType {
        let t = self.ty(v);
        t.scalar()
            .unwrap_or_else(|| unreachable!("the verifier guarantees a scalar operand, not {t}"))
    }

    pub(crate) fn space(&self, ptr: Value) -> Space {
        match self.ty(ptr) {
            Type::Ptr(AddrSpace::Shared) => Space::Shared,
            Type::Ptr(_) => Space::Global,
            t => unreachable!("the verifier guarantees a pointer operand, not {t}"),
        }
    }

    /// The slot of the op's single result (the verifier checks the count).
    pub(crate) fn result(&self, inst: &Inst) -> Slot {
        debug_assert_eq!(inst.results.len(), 1, "the verifier checks result counts");
        inst.results[0].0
    }

    pub(crate) fn slots(vs: &[Value]) -> Vec<Slot> {
        vs.iter().map(|v| v.0).collect()
    }

    /// A fresh slot of the same size as `like`.
    pub(crate) fn new_slot(&mut self, like: Slot) -> Slot {
        self.wide.push(self.wide[like as usize]);
        self.frag.push(self.frag[like as usize]);
        self.wide.len() as Slot - 1
    }

    /// `slot` holds `bits` in every lane of every workgroup.
    pub(crate) fn constant(&mut self, slot: Slot, bits: u64) {
        self.consts.push((slot, bits));
    }

    /// The position of `param` among the kernel's parameters (the verifier lets only
    /// parameters reach `buffer.len`).
    pub(crate) fn param_index(&self, param: Value) -> usize {
        self.k
            .params
            .iter()
            .position(|p| *p == param)
            .unwrap_or_else(|| unreachable!("the verifier takes buffer.len of parameters only"))
    }

    /// The offset of the next `shared.alloc` in walk order.
    pub(crate) fn next_shared_offset(&mut self) -> u64 {
        let start = self.shared_offsets[self.shared_seen];
        self.shared_seen += 1;
        start
    }

    /// Where a `yield` in the innermost region writes (the verifier keeps `yield` out of
    /// the kernel body).
    pub(crate) fn yield_targets(&self) -> Vec<Slot> {
        match self.targets.last() {
            Some(Target::If { results }) => results.clone(),
            Some(Target::Loop { next, .. }) => next.clone(),
            None => unreachable!("the verifier keeps yield out of the kernel body"),
        }
    }

    /// Where a `break` writes: the results of the innermost loop.
    pub(crate) fn break_targets(&self) -> Vec<Slot> {
        self.targets
            .iter()
            .rev()
            .find_map(|t| match t {
                Target::Loop { results, .. } => Some(results.clone()),
                Target::If { .. } => None,
            })
            .unwrap_or_else(|| unreachable!("the verifier keeps break inside a loop"))
    }

    /// Whether `srcs` fit `dsts` slot by slot, as yield and break copies need.
    pub(crate) fn same_sizes(&self, srcs: &[Slot], dsts: &[Slot]) -> bool {
        let size = |s: &Slot| (self.wide[*s as usize], self.frag[*s as usize]);
        srcs.len() == dsts.len() && srcs.iter().map(size).eq(dsts.iter().map(size))
    }
}

/// A scalar or vector type (all the verifier lets memory and arithmetic ops take).
pub(crate) fn vty(t: Type) -> VTy {
    match t {
        Type::Scalar(elem) => VTy { elem, lanes: 0 },
        Type::Vector { elem, lanes } => VTy { elem, lanes },
        t => unreachable!("the verifier guarantees a scalar or vector, not {t}"),
    }
}
