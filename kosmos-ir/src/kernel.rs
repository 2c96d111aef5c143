//! Kernels, regions, instructions and SSA values.

use crate::{Op, Origin, Type};
use std::fmt;

/// An SSA value: an index into its kernel's value table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

impl Value {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What the kernel knows of one value: its type and, when it has one, its name in the text
/// format (`%name`; unnamed values print as `%N`).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    pub ty: Type,
    pub name: Option<String>,
}

/// A position in `.kir` source text (1-based).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One operation and the values it defines. `loc` is set when the kernel was parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub op: Op,
    pub results: Vec<Value>,
    pub loc: Option<Loc>,
}

/// A sequence of instructions with arguments (a loop's induction variable and carried values).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    pub args: Vec<Value>,
    pub insts: Vec<Inst>,
}

/// A kernel: typed parameters, a body, and the table of its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Value>,
    /// The largest workgroup a launch may use (lowered to the targets' launch bounds).
    pub max_workgroup_size: u32,
    /// A tighter bound in subgroups, when given: a target's bound is
    /// [`Kernel::workgroup_bound`] (eight subgroups are 256 lanes on NVIDIA, 512 on AMD).
    pub max_subgroups: Option<u32>,
    /// A register-budget hint: plan for at least this many workgroups of the largest size
    /// resident on one SM at once (`.minnctapersm` on NVIDIA, where the compiler may spill
    /// to keep it; AMD targets ignore it).
    pub min_resident: Option<u32>,
    /// The source file its instructions' `loc`s refer to (a `#[kernel]`'s Rust file); `None`
    /// for kernels whose positions are those of their `.kir` text.
    pub source: Option<String>,
    pub body: Region,
    pub values: Vec<ValueData>,
}

/// A compilation unit: kernels compiled and loaded together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub kernels: Vec<Kernel>,
}

impl Module {
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// Where an instruction sits in its kernel, for messages: its source location when parsed,
/// else its position in a depth-first walk (`#N`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InstPos {
    Source(Loc),
    Index(usize),
}

impl fmt::Display for InstPos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstPos::Source(loc) => write!(f, "{loc}"),
            InstPos::Index(i) => write!(f, "inst #{i}"),
        }
    }
}

/// What a launch-error record holds: an out-of-bounds access (`bounds.fail`: its index and
/// the slice's length) or a wait that gave up (`wait.fail`: its poll count).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Bounds,
    Wait,
}

/// Alignment of a shared allocation of `bytes` bytes, the same on every target: 1024 from
/// 1 KiB up (what `mma.group` tiles need), else 16 (vector accesses).
pub fn shared_alloc_align(bytes: u64) -> u64 {
    if bytes >= 1024 { 1024 } else { 16 }
}

impl Kernel {
    /// Byte offsets of the kernel's `shared.alloc`s (in walk order) and the total size:
    /// allocations laid out in order, each aligned by [`shared_alloc_align`].
    pub fn shared_layout(&self) -> (Vec<u64>, u64) {
        let mut offsets = Vec::new();
        let mut total = 0u64;
        self.walk(|_, inst| {
            if let Op::SharedAlloc { elem, count } = inst.op {
                let bytes = u64::from(elem.size_bytes()).saturating_mul(u64::from(count));
                let start = total.next_multiple_of(shared_alloc_align(bytes));
                offsets.push(start);
                total = start.saturating_add(bytes);
            }
        });
        (offsets, total)
    }

    /// Whether the kernel uses group-wide ops (`mma.group`, `mma.group.async`, `mma.wait`,
    /// `regs.set`), which need workgroups of whole groups of four subgroups.
    pub fn uses_groups(&self) -> bool {
        let mut found = false;
        self.walk(|_, inst| {
            found |= matches!(
                inst.op,
                Op::MmaGroup { .. }
                    | Op::MmaGroupAsync { .. }
                    | Op::MmaWait { .. }
                    | Op::RegsSet { .. }
            )
        });
        found
    }

    /// The failures the kernel records (`bounds.fail`, `wait.fail`), in walk order: a
    /// GPU's launch-error record names the failure by its position here.
    pub fn bounds_origins(&self) -> Vec<(&Origin, Failure)> {
        let mut origins = Vec::new();
        self.walk(|_, inst| match &inst.op {
            Op::BoundsFail { origin, .. } => origins.push((origin, Failure::Bounds)),
            Op::WaitFail { origin, .. } => origins.push((origin, Failure::Wait)),
            _ => {}
        });
        origins
    }

    /// The largest workgroup on a target with `subgroup_size`-lane subgroups.
    pub fn workgroup_bound(&self, subgroup_size: u32) -> u32 {
        match self.max_subgroups {
            Some(n) => self.max_workgroup_size.min(n.saturating_mul(subgroup_size)),
            None => self.max_workgroup_size,
        }
    }

    pub fn new(name: impl Into<String>, max_workgroup_size: u32) -> Kernel {
        Kernel {
            name: name.into(),
            params: Vec::new(),
            max_workgroup_size,
            max_subgroups: None,
            min_resident: None,
            source: None,
            body: Region::default(),
            values: Vec::new(),
        }
    }

    /// Adds a value to the table.
    pub fn new_value(&mut self, ty: Type, name: Option<String>) -> Value {
        self.values.push(ValueData { ty, name });
        Value(self.values.len() as u32 - 1)
    }

    /// The type of `v`. Panics on a value of another kernel (out of this table's range).
    pub fn ty(&self, v: Value) -> Type {
        self.values[v.index()].ty
    }

    pub fn value_name(&self, v: Value) -> Option<&str> {
        self.values.get(v.index())?.name.as_deref()
    }

    /// How `v` is printed in the text format: `%name` or `%N`.
    pub fn display_value(&self, v: Value) -> String {
        match self.value_name(v) {
            Some(name) => format!("%{name}"),
            None => format!("%{}", v.0),
        }
    }

    pub fn param_types(&self) -> Vec<Type> {
        self.params.iter().map(|p| self.ty(*p)).collect()
    }

    /// Calls `f` on every instruction, depth first, in program order, with its walk index.
    pub fn walk<'k>(&'k self, mut f: impl FnMut(usize, &'k Inst)) {
        fn go<'k>(region: &'k Region, next: &mut usize, f: &mut dyn FnMut(usize, &'k Inst)) {
            for inst in &region.insts {
                let i = *next;
                *next += 1;
                f(i, inst);
                for r in inst.op.regions() {
                    go(r, next, f);
                }
            }
        }
        let mut next = 0;
        go(&self.body, &mut next, &mut f);
    }

    /// Position of the instruction with walk index `index` (see [`Kernel::walk`]).
    pub fn inst_pos(inst: &Inst, index: usize) -> InstPos {
        match inst.loc {
            Some(loc) => InstPos::Source(loc),
            None => InstPos::Index(index),
        }
    }
}
