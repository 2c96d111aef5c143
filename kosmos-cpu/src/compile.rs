//! Resolves a kernel into a compact program: operands become slot indices, types become the
//! few facts the executor dispatches on, constants and shared-memory offsets are hoisted, and
//! every terminator knows which slots it writes. Anything the executor could not run safely
//! is rejected here, so execution itself never indexes out of range.

use crate::CpuError;
use kosmos_ir::{
    AddrSpace, BinOp, CmpPred, Dim, FragRole, IdKind, Inst, InstPos, Kernel, MAX_SHARED_BYTES, Op,
    Ordering, Region, RmwOp, ScalarType, Type, UnOp, Value,
};

pub(crate) type Slot = u32;

/// Elements of a `frag<a>`, `frag<b>` or `frag<acc>` tile (16 x 16).
pub(crate) const FRAG_ELEMS: usize = (kosmos_ir::FRAG_M * kosmos_ir::FRAG_N) as usize;

/// Words per lane of a fragment of `role` in subgroups of `subgroup` lanes (a power of two
/// in 8..=64, which divides every tile's 128 or 1024 words).
fn frag_words(role: FragRole, subgroup: u32) -> usize {
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

#[derive(Debug)]
pub(crate) enum Ins {
    Bin {
        op: BinOp,
        ty: VTy,
        dst: Slot,
        a: Slot,
        b: Slot,
        pos: u32,
    },
    Un {
        op: UnOp,
        ty: VTy,
        dst: Slot,
        a: Slot,
    },
    Fma {
        ty: VTy,
        dst: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
    },
    Cmp {
        pred: CmpPred,
        ty: ScalarType,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    Select {
        dst: Slot,
        c: Slot,
        a: Slot,
        b: Slot,
    },
    Cast {
        from: ScalarType,
        to: ScalarType,
        dst: Slot,
        a: Slot,
    },
    Copy {
        dst: Slot,
        a: Slot,
    },
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
    AtomicLoad {
        dst: Slot,
        ptr: Slot,
        space: Space,
        ty: ScalarType,
        ord: Ordering,
        pos: u32,
    },
    AtomicStore {
        ptr: Slot,
        val: Slot,
        space: Space,
        ty: ScalarType,
        ord: Ordering,
        pos: u32,
    },
    AtomicRmw {
        op: RmwOp,
        dst: Slot,
        ptr: Slot,
        val: Slot,
        space: Space,
        ty: ScalarType,
        ord: Ordering,
        pos: u32,
    },
    AtomicCas {
        dst: Slot,
        ptr: Slot,
        expected: Slot,
        desired: Slot,
        space: Space,
        ty: ScalarType,
        ord: Ordering,
        pos: u32,
    },
    Fence {
        ord: Ordering,
    },
    Barrier {
        pos: u32,
    },
    Sleep,
    Clock {
        dst: Slot,
    },
    Id {
        dst: Slot,
        kind: IdKind,
        dim: Dim,
    },
    FragZero {
        dst: Slot,
        pos: u32,
    },
    /// `frag.load a|b`: both are 16x16 `bf16` tiles, held alike.
    FragLoad {
        dst: Slot,
        ptr: Slot,
        stride: Slot,
        space: Space,
        pos: u32,
    },
    /// `frag.store` of a tile with `cols` columns (`frag<acc>` or `frag<wacc>`), writing
    /// only inside `within` (rows, cols) when given.
    FragStore {
        ptr: Slot,
        val: Slot,
        stride: Slot,
        within: Option<(Slot, Slot)>,
        cols: u32,
        space: Space,
        pos: u32,
    },
    Mma {
        dst: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        pos: u32,
    },
    /// `mma.group`: `a` and `b` are shared-memory offsets, `c` and `dst` `frag<wacc>`s.
    MmaGroup {
        dst: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        pos: u32,
    },
    /// `copy.async`, done at once (`async.commit` and `async.wait` compile to nothing).
    CopyAsync {
        dst: Slot,
        src: Slot,
        pred: Slot,
        pos: u32,
    },
    Splat {
        dst: Slot,
        a: Slot,
        elem: ScalarType,
        lanes: u32,
    },
    Extract {
        dst: Slot,
        v: Slot,
        elem: ScalarType,
        lane: u32,
    },
    Insert {
        dst: Slot,
        v: Slot,
        elem: ScalarType,
        lane: u32,
        a: Slot,
    },
    If {
        cond: Slot,
        then: Vec<Ins>,
        els: Vec<Ins>,
        exits: bool,
    },
    For {
        ty: ScalarType,
        lb: Slot,
        ub: Slot,
        step: Slot,
        inits: Vec<Slot>,
        iv: Slot,
        args: Vec<Slot>,
        next: Vec<Slot>,
        results: Vec<Slot>,
        body: Vec<Ins>,
        exits: bool,
    },
    Loop {
        inits: Vec<Slot>,
        args: Vec<Slot>,
        next: Vec<Slot>,
        body: Vec<Ins>,
        exits: bool,
    },
    /// `yield` / `break`: copy `srcs` to `dsts` for the active lanes.
    Yield {
        srcs: Vec<Slot>,
        dsts: Vec<Slot>,
    },
    Break {
        srcs: Vec<Slot>,
        dsts: Vec<Slot>,
    },
    Return,
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

/// Where a terminator sends its values.
#[derive(Clone)]
enum Target {
    Top,
    If(Vec<Slot>),
    Loop { next: Vec<Slot> },
}

struct Compiler<'k> {
    k: &'k Kernel,
    wide: Vec<bool>,
    frag: Vec<usize>,
    defined: Vec<bool>,
    consts: Vec<(Slot, u64)>,
    /// Offsets of the `shared.alloc`s in walk order ([`Kernel::shared_layout`]) and how
    /// many of them were compiled.
    shared_offsets: Vec<u64>,
    shared_seen: usize,
    positions: Vec<InstPos>,
    /// The innermost enclosing loop's (next, results) slots.
    loops: Vec<(Vec<Slot>, Vec<Slot>)>,
}

/// Compiles `k` for subgroups of `subgroup` lanes (a power of two in 8..=64).
pub(crate) fn compile(k: &Kernel, subgroup: u32) -> Result<Program, CpuError> {
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
        defined: vec![false; k.values.len()],
        consts: Vec::new(),
        shared_offsets,
        shared_seen: 0,
        positions: Vec::new(),
        loops: Vec::new(),
    };
    for &p in &k.params {
        c.define(p, "kernel", InstPos::Index(0))?;
    }
    let body = c.region(&k.body, Target::Top, true)?;
    Ok(Program {
        body,
        wide: c.wide,
        frag: c.frag,
        subgroup: subgroup as usize,
        consts: c.consts,
        // Each allocation was checked to end within MAX_SHARED_BYTES, so the total fits.
        shared_bytes: shared_bytes as usize,
        positions: c.positions,
    })
}

fn scalar_or_vector(t: Type) -> Option<VTy> {
    match t {
        Type::Scalar(s) => Some(VTy { elem: s, lanes: 0 }),
        Type::Vector { elem, lanes } if t.is_well_formed() => Some(VTy { elem, lanes }),
        _ => None,
    }
}

impl<'k> Compiler<'k> {
    fn err(&self, pos: InstPos, op: &'static str, message: impl Into<String>) -> CpuError {
        CpuError::Unsupported {
            kernel: self.k.name.clone(),
            pos,
            op,
            message: message.into(),
        }
    }

    fn define(&mut self, v: Value, op: &'static str, pos: InstPos) -> Result<Slot, CpuError> {
        match self.defined.get_mut(v.index()) {
            Some(d) if !*d => {
                *d = true;
                Ok(v.0)
            }
            Some(_) => Err(self.err(
                pos,
                op,
                format!("{} is defined twice", self.k.display_value(v)),
            )),
            None => Err(self.err(
                pos,
                op,
                format!("value %{} is not in the kernel's table", v.0),
            )),
        }
    }

    fn use_(&self, v: Value, op: &'static str, pos: InstPos) -> Result<Slot, CpuError> {
        match self.defined.get(v.index()) {
            Some(true) => Ok(v.0),
            Some(false) => Err(self.err(
                pos,
                op,
                format!("{} is used before it is defined", self.k.display_value(v)),
            )),
            None => Err(self.err(
                pos,
                op,
                format!("value %{} is not in the kernel's table", v.0),
            )),
        }
    }

    fn new_slot(&mut self, like: Slot) -> Slot {
        let w = self.wide[like as usize];
        self.wide.push(w);
        let f = self.frag[like as usize];
        self.frag.push(f);
        self.defined.push(true);
        self.wide.len() as Slot - 1
    }

    fn region(&mut self, r: &Region, target: Target, top: bool) -> Result<Vec<Ins>, CpuError> {
        let mut out = Vec::with_capacity(r.insts.len());
        for inst in &r.insts {
            let index = self.positions.len();
            let pos = Kernel::inst_pos(inst, index);
            self.positions.push(pos);
            if let Some(ins) = self.inst(inst, index as u32, pos, &target, top)? {
                out.push(ins);
            }
        }
        Ok(out)
    }

    fn ty(&self, v: Value) -> Type {
        self.k.ty(v)
    }

    fn vty(&self, v: Value, op: &'static str, pos: InstPos) -> Result<VTy, CpuError> {
        scalar_or_vector(self.ty(v)).ok_or_else(|| {
            self.err(
                pos,
                op,
                format!("operand of type {} is not a scalar or vector", self.ty(v)),
            )
        })
    }

    fn sty(&self, v: Value, op: &'static str, pos: InstPos) -> Result<ScalarType, CpuError> {
        self.ty(v).scalar().ok_or_else(|| {
            self.err(
                pos,
                op,
                format!("operand of type {} is not a scalar", self.ty(v)),
            )
        })
    }

    fn space(&self, v: Value, op: &'static str, pos: InstPos) -> Result<Space, CpuError> {
        match self.ty(v) {
            Type::Ptr(AddrSpace::Shared) => Ok(Space::Shared),
            Type::Ptr(_) => Ok(Space::Global),
            t => Err(self.err(pos, op, format!("address of type {t} is not a pointer"))),
        }
    }

    fn expect_ty(
        &self,
        v: Value,
        want: Type,
        op: &'static str,
        pos: InstPos,
    ) -> Result<(), CpuError> {
        if self.ty(v) == want {
            Ok(())
        } else {
            Err(self.err(
                pos,
                op,
                format!("operand of type {} is not a {want}", self.ty(v)),
            ))
        }
    }

    fn same(&self, a: Value, b: Value, op: &'static str, pos: InstPos) -> Result<(), CpuError> {
        if self.ty(a) == self.ty(b) {
            Ok(())
        } else {
            Err(self.err(
                pos,
                op,
                format!("operand types {} and {} differ", self.ty(a), self.ty(b)),
            ))
        }
    }

    fn one_result(
        &mut self,
        inst: &Inst,
        op: &'static str,
        pos: InstPos,
    ) -> Result<Slot, CpuError> {
        match inst.results.as_slice() {
            [r] => self.define(*r, op, pos),
            _ => Err(self.err(pos, op, "expected exactly one result")),
        }
    }

    fn checked_values(
        &self,
        vs: &[Value],
        op: &'static str,
        pos: InstPos,
    ) -> Result<Vec<Slot>, CpuError> {
        vs.iter().map(|v| self.use_(*v, op, pos)).collect()
    }

    fn define_all(
        &mut self,
        vs: &[Value],
        op: &'static str,
        pos: InstPos,
    ) -> Result<Vec<Slot>, CpuError> {
        vs.iter().map(|v| self.define(*v, op, pos)).collect()
    }

    fn atomic_ty(
        &self,
        ty: ScalarType,
        op: &'static str,
        pos: InstPos,
    ) -> Result<ScalarType, CpuError> {
        if ty == ScalarType::I1 {
            return Err(self.err(pos, op, "atomics on i1 are not supported"));
        }
        Ok(ty)
    }

    fn inst(
        &mut self,
        inst: &Inst,
        index: u32,
        pos: InstPos,
        target: &Target,
        top: bool,
    ) -> Result<Option<Ins>, CpuError> {
        let name = inst.op.name();
        self.check_types(inst, pos)?;
        let u = |c: &Self, v: Value| c.use_(v, name, pos);
        let ins = match &inst.op {
            Op::Const { value: c } => {
                let dst = self.one_result(inst, name, pos)?;
                self.consts.push((dst, c.bits));
                return Ok(None);
            }
            Op::SharedAlloc { elem, count } => {
                if !top {
                    return Err(self.err(
                        pos,
                        name,
                        "shared.alloc must be at the kernel's top level",
                    ));
                }
                let dst = self.one_result(inst, name, pos)?;
                let Some(&start) = self.shared_offsets.get(self.shared_seen) else {
                    return Err(self.err(pos, name, "not in the kernel's shared layout"));
                };
                self.shared_seen += 1;
                let end = start.saturating_add(u64::from(elem.size_bytes()) * u64::from(*count));
                if end > MAX_SHARED_BYTES {
                    return Err(self.err(
                        pos,
                        name,
                        format!("shared memory reaches {end} bytes; at most {MAX_SHARED_BYTES}"),
                    ));
                }
                self.consts.push((dst, start));
                return Ok(None);
            }
            Op::Binary { op, lhs, rhs } => {
                let (a, b) = (u(self, *lhs)?, u(self, *rhs)?);
                self.same(*lhs, *rhs, name, pos)?;
                let ty = self.vty(*lhs, name, pos)?;
                Ins::Bin {
                    op: *op,
                    ty,
                    dst: self.one_result(inst, name, pos)?,
                    a,
                    b,
                    pos: index,
                }
            }
            Op::Unary { op, arg } => {
                let a = u(self, *arg)?;
                let ty = self.vty(*arg, name, pos)?;
                Ins::Un {
                    op: *op,
                    ty,
                    dst: self.one_result(inst, name, pos)?,
                    a,
                }
            }
            Op::Fma { a, b, c } => {
                let (sa, sb, sc) = (u(self, *a)?, u(self, *b)?, u(self, *c)?);
                self.same(*a, *b, name, pos)?;
                self.same(*a, *c, name, pos)?;
                let ty = self.vty(*a, name, pos)?;
                Ins::Fma {
                    ty,
                    dst: self.one_result(inst, name, pos)?,
                    a: sa,
                    b: sb,
                    c: sc,
                }
            }
            Op::Cmp { pred, lhs, rhs } => {
                let (a, b) = (u(self, *lhs)?, u(self, *rhs)?);
                self.same(*lhs, *rhs, name, pos)?;
                let ty = match self.ty(*lhs) {
                    Type::Scalar(s) => s,
                    // Pointers compare as unsigned addresses.
                    Type::Ptr(_) => ScalarType::U64,
                    t => {
                        return Err(self.err(
                            pos,
                            name,
                            format!("cannot compare values of type {t}"),
                        ));
                    }
                };
                Ins::Cmp {
                    pred: *pred,
                    ty,
                    dst: self.one_result(inst, name, pos)?,
                    a,
                    b,
                }
            }
            Op::Select {
                cond,
                if_true,
                if_false,
            } => {
                let (c, a, b) = (u(self, *cond)?, u(self, *if_true)?, u(self, *if_false)?);
                self.same(*if_true, *if_false, name, pos)?;
                if self.ty(*cond) != Type::I1 {
                    return Err(self.err(pos, name, "condition is not i1"));
                }
                Ins::Select {
                    dst: self.one_result(inst, name, pos)?,
                    c,
                    a,
                    b,
                }
            }
            Op::Cast { arg, to } => {
                let a = u(self, *arg)?;
                let from = self.sty(*arg, name, pos)?;
                let to = to
                    .scalar()
                    .ok_or_else(|| self.err(pos, name, "vector casts are not supported"))?;
                Ins::Cast {
                    from,
                    to,
                    dst: self.one_result(inst, name, pos)?,
                    a,
                }
            }
            Op::Bitcast { arg, to } => {
                let a = u(self, *arg)?;
                if self.ty(*arg).size_bytes() != to.size_bytes()
                    || self.ty(*arg).is_ptr()
                    || to.is_ptr()
                {
                    return Err(self.err(
                        pos,
                        name,
                        format!("cannot bitcast {} to {to}", self.ty(*arg)),
                    ));
                }
                // Values are kept as little-endian packed bits, so a bitcast is a copy.
                Ins::Copy {
                    dst: self.one_result(inst, name, pos)?,
                    a,
                }
            }
            Op::PtrOffset {
                base,
                index: idx,
                elem,
            } => {
                let (b, i) = (u(self, *base)?, u(self, *idx)?);
                self.space(*base, name, pos)?;
                let index_ty = self.sty(*idx, name, pos)?;
                if index_ty.is_float() {
                    return Err(self.err(pos, name, "index is not an integer"));
                }
                Ins::PtrOffset {
                    dst: self.one_result(inst, name, pos)?,
                    base: b,
                    index: i,
                    index_ty,
                    size: elem.size_bytes() as u64,
                }
            }
            Op::Load { ptr, ty, align } => {
                let p = u(self, *ptr)?;
                let space = self.space(*ptr, name, pos)?;
                let ty = scalar_or_vector(*ty)
                    .ok_or_else(|| self.err(pos, name, format!("cannot load {ty}")))?;
                Ins::Load {
                    dst: self.one_result(inst, name, pos)?,
                    ptr: p,
                    space,
                    ty,
                    align: (*align).max(1),
                    pos: index,
                }
            }
            Op::Store { ptr, value, align } => {
                let (p, v) = (u(self, *ptr)?, u(self, *value)?);
                let space = self.space(*ptr, name, pos)?;
                let ty = self.vty(*value, name, pos)?;
                Ins::Store {
                    ptr: p,
                    val: v,
                    space,
                    ty,
                    align: (*align).max(1),
                    pos: index,
                }
            }
            Op::AtomicLoad {
                ptr, ty, ordering, ..
            } => {
                let p = u(self, *ptr)?;
                let space = self.space(*ptr, name, pos)?;
                let ty = self.atomic_ty(*ty, name, pos)?;
                Ins::AtomicLoad {
                    dst: self.one_result(inst, name, pos)?,
                    ptr: p,
                    space,
                    ty,
                    ord: *ordering,
                    pos: index,
                }
            }
            Op::AtomicStore {
                ptr,
                value,
                ordering,
                ..
            } => {
                let (p, v) = (u(self, *ptr)?, u(self, *value)?);
                let space = self.space(*ptr, name, pos)?;
                let ty = self.sty(*value, name, pos)?;
                let ty = self.atomic_ty(ty, name, pos)?;
                Ins::AtomicStore {
                    ptr: p,
                    val: v,
                    space,
                    ty,
                    ord: *ordering,
                    pos: index,
                }
            }
            Op::AtomicRmw {
                op,
                ptr,
                value,
                ordering,
                ..
            } => {
                let (p, v) = (u(self, *ptr)?, u(self, *value)?);
                let space = self.space(*ptr, name, pos)?;
                let ty = self.sty(*value, name, pos)?;
                let ty = self.atomic_ty(ty, name, pos)?;
                if ty.is_float()
                    && !(ty == ScalarType::F32 && matches!(op, RmwOp::Add | RmwOp::Xchg))
                {
                    return Err(self.err(
                        pos,
                        name,
                        format!("atomic {op} on {ty} is not supported"),
                    ));
                }
                Ins::AtomicRmw {
                    op: *op,
                    dst: self.one_result(inst, name, pos)?,
                    ptr: p,
                    val: v,
                    space,
                    ty,
                    ord: *ordering,
                    pos: index,
                }
            }
            Op::AtomicCas {
                ptr,
                expected,
                desired,
                ordering,
                ..
            } => {
                let (p, e, d) = (u(self, *ptr)?, u(self, *expected)?, u(self, *desired)?);
                self.same(*expected, *desired, name, pos)?;
                let space = self.space(*ptr, name, pos)?;
                let ty = self.sty(*expected, name, pos)?;
                let ty = self.atomic_ty(ty, name, pos)?;
                Ins::AtomicCas {
                    dst: self.one_result(inst, name, pos)?,
                    ptr: p,
                    expected: e,
                    desired: d,
                    space,
                    ty,
                    ord: *ordering,
                    pos: index,
                }
            }
            Op::Fence { ordering, .. } => Ins::Fence { ord: *ordering },
            Op::Barrier => Ins::Barrier { pos: index },
            Op::Sleep { .. } => Ins::Sleep,
            Op::Clock => Ins::Clock {
                dst: self.one_result(inst, name, pos)?,
            },
            Op::Id { kind, dim } => Ins::Id {
                dst: self.one_result(inst, name, pos)?,
                kind: *kind,
                dim: *dim,
            },
            Op::FragZero { role } => {
                if !role.is_acc() {
                    return Err(self.err(pos, name, "frag.zero makes frag<acc> or frag<wacc>"));
                }
                Ins::FragZero {
                    dst: self.one_result(inst, name, pos)?,
                    pos: index,
                }
            }
            Op::FragLoad { role, ptr, stride } => {
                if role.is_acc() {
                    return Err(self.err(pos, name, "frag.load loads frag<a> or frag<b>"));
                }
                self.expect_ty(*stride, Type::U32, name, pos)?;
                Ins::FragLoad {
                    ptr: u(self, *ptr)?,
                    stride: u(self, *stride)?,
                    space: self.space(*ptr, name, pos)?,
                    dst: self.one_result(inst, name, pos)?,
                    pos: index,
                }
            }
            Op::FragStore {
                ptr,
                value,
                stride,
                within,
            } => {
                let cols = match self.ty(*value) {
                    Type::Frag(role) if role.is_acc() => role.shape().1,
                    t => {
                        return Err(self.err(pos, name, format!("cannot store a {t} as a tile")));
                    }
                };
                self.expect_ty(*stride, Type::U32, name, pos)?;
                let within = match within {
                    Some((rows, cols)) => {
                        self.expect_ty(*rows, Type::U32, name, pos)?;
                        self.expect_ty(*cols, Type::U32, name, pos)?;
                        Some((u(self, *rows)?, u(self, *cols)?))
                    }
                    None => None,
                };
                Ins::FragStore {
                    ptr: u(self, *ptr)?,
                    val: u(self, *value)?,
                    stride: u(self, *stride)?,
                    within,
                    cols,
                    space: self.space(*ptr, name, pos)?,
                    pos: index,
                }
            }
            Op::Mma { a, b, acc } => {
                self.expect_ty(*a, Type::Frag(FragRole::A), name, pos)?;
                self.expect_ty(*b, Type::Frag(FragRole::B), name, pos)?;
                self.expect_ty(*acc, Type::Frag(FragRole::Acc), name, pos)?;
                Ins::Mma {
                    a: u(self, *a)?,
                    b: u(self, *b)?,
                    c: u(self, *acc)?,
                    dst: self.one_result(inst, name, pos)?,
                    pos: index,
                }
            }
            Op::MmaGroup { a, b, acc } => {
                self.expect_ty(*a, Type::SHARED_PTR, name, pos)?;
                self.expect_ty(*b, Type::SHARED_PTR, name, pos)?;
                self.expect_ty(*acc, Type::Frag(FragRole::WideAcc), name, pos)?;
                Ins::MmaGroup {
                    a: u(self, *a)?,
                    b: u(self, *b)?,
                    c: u(self, *acc)?,
                    dst: self.one_result(inst, name, pos)?,
                    pos: index,
                }
            }
            Op::CopyAsync { dst, src, pred } => {
                self.expect_ty(*dst, Type::SHARED_PTR, name, pos)?;
                self.expect_ty(*src, Type::GLOBAL_PTR, name, pos)?;
                self.expect_ty(*pred, Type::I1, name, pos)?;
                Ins::CopyAsync {
                    dst: u(self, *dst)?,
                    src: u(self, *src)?,
                    pred: u(self, *pred)?,
                    pos: index,
                }
            }
            // Copies complete when they start, so there is nothing to wait for.
            Op::AsyncCommit | Op::AsyncWait { .. } => return Ok(None),
            Op::Splat { value, lanes } => {
                let a = u(self, *value)?;
                let elem = self.sty(*value, name, pos)?;
                let vt = Type::Vector {
                    elem,
                    lanes: *lanes,
                };
                if !vt.is_well_formed() {
                    return Err(self.err(pos, name, format!("{vt} is not a valid vector type")));
                }
                Ins::Splat {
                    dst: self.one_result(inst, name, pos)?,
                    a,
                    elem,
                    lanes: *lanes,
                }
            }
            Op::Extract { vector, lane } => {
                let v = u(self, *vector)?;
                let ty = self.vty(*vector, name, pos)?;
                if *lane >= ty.lanes {
                    return Err(self.err(pos, name, format!("lane {lane} out of range")));
                }
                Ins::Extract {
                    dst: self.one_result(inst, name, pos)?,
                    v,
                    elem: ty.elem,
                    lane: *lane,
                }
            }
            Op::Insert {
                vector,
                lane,
                value,
            } => {
                let (v, a) = (u(self, *vector)?, u(self, *value)?);
                let ty = self.vty(*vector, name, pos)?;
                if *lane >= ty.lanes || self.ty(*value) != Type::Scalar(ty.elem) {
                    return Err(self.err(
                        pos,
                        name,
                        "lane out of range or value of the wrong type",
                    ));
                }
                Ins::Insert {
                    dst: self.one_result(inst, name, pos)?,
                    v,
                    elem: ty.elem,
                    lane: *lane,
                    a,
                }
            }
            Op::If {
                cond,
                then_region,
                else_region,
                result_types,
            } => {
                let c = u(self, *cond)?;
                if self.ty(*cond) != Type::I1 {
                    return Err(self.err(pos, name, "condition is not i1"));
                }
                if inst.results.len() != result_types.len() {
                    return Err(self.err(pos, name, "result count differs from the result types"));
                }
                for r in &inst.results {
                    if r.index() >= self.k.values.len() {
                        return Err(self.err(
                            pos,
                            name,
                            format!("value %{} is not in the kernel's table", r.0),
                        ));
                    }
                }
                let results: Vec<Slot> = inst.results.iter().map(|r| r.0).collect();
                let then = self.region(then_region, Target::If(results.clone()), false)?;
                let els = self.region(else_region, Target::If(results.clone()), false)?;
                self.define_all(&inst.results, name, pos)?;
                let exits = exits(then_region) || exits(else_region);
                Ins::If {
                    cond: c,
                    then,
                    els,
                    exits,
                }
            }
            Op::For {
                lb,
                ub,
                step,
                inits,
                body,
            } => {
                let (l, h, s) = (u(self, *lb)?, u(self, *ub)?, u(self, *step)?);
                let ty = self.sty(*lb, name, pos)?;
                self.same(*lb, *ub, name, pos)?;
                self.same(*lb, *step, name, pos)?;
                if ty.is_float() || ty == ScalarType::I1 {
                    return Err(self.err(pos, name, "induction variable is not an integer"));
                }
                let inits_s = self.checked_values(inits, name, pos)?;
                if body.args.len() != inits.len() + 1 || inst.results.len() != inits.len() {
                    return Err(self.err(
                        pos,
                        name,
                        "argument or result count differs from the inits",
                    ));
                }
                let args = self.define_all(&body.args, name, pos)?;
                let next: Vec<Slot> = args[1..].iter().map(|a| self.new_slot(*a)).collect();
                let results: Vec<Slot> = inst.results.iter().map(|r| r.0).collect();
                self.check_in_table(&inst.results, name, pos)?;
                self.loops.push((next.clone(), results.clone()));
                let target = Target::Loop { next: next.clone() };
                let b = self.region(body, target, false);
                self.loops.pop();
                let b = b?;
                self.define_all(&inst.results, name, pos)?;
                Ins::For {
                    ty,
                    lb: l,
                    ub: h,
                    step: s,
                    inits: inits_s,
                    iv: args[0],
                    args: args[1..].to_vec(),
                    next,
                    results,
                    body: b,
                    exits: exits(body),
                }
            }
            Op::Loop {
                inits,
                body,
                result_types,
            } => {
                let inits_s = self.checked_values(inits, name, pos)?;
                if body.args.len() != inits.len() || inst.results.len() != result_types.len() {
                    return Err(self.err(pos, name, "argument or result count differs"));
                }
                let args = self.define_all(&body.args, name, pos)?;
                let next: Vec<Slot> = args.iter().map(|a| self.new_slot(*a)).collect();
                self.check_in_table(&inst.results, name, pos)?;
                let results: Vec<Slot> = inst.results.iter().map(|r| r.0).collect();
                self.loops.push((next.clone(), results.clone()));
                let target = Target::Loop { next: next.clone() };
                let b = self.region(body, target, false);
                self.loops.pop();
                let b = b?;
                self.define_all(&inst.results, name, pos)?;
                Ins::Loop {
                    inits: inits_s,
                    args,
                    next,
                    body: b,
                    exits: exits(body),
                }
            }
            Op::Yield { values } => {
                let srcs = self.checked_values(values, name, pos)?;
                let dsts = match target {
                    Target::Top if values.is_empty() => vec![],
                    Target::Top => {
                        return Err(self.err(
                            pos,
                            name,
                            "yield with values at the kernel's top level",
                        ));
                    }
                    Target::If(d) => d.clone(),
                    Target::Loop { next, .. } => next.clone(),
                };
                self.check_arity(&srcs, &dsts, name, pos)?;
                Ins::Yield { srcs, dsts }
            }
            Op::Break { values } => {
                let srcs = self.checked_values(values, name, pos)?;
                let Some((_, results)) = self.loops.last() else {
                    return Err(self.err(pos, name, "break outside a loop"));
                };
                let dsts = results.clone();
                self.check_arity(&srcs, &dsts, name, pos)?;
                Ins::Break { srcs, dsts }
            }
            Op::Return => Ins::Return,
        };
        Ok(Some(ins))
    }

    /// Operands, results and loop arguments exist and have the types the op implies, so the
    /// executor's per-lane copies always see slots of matching sizes.
    fn check_types(&self, inst: &Inst, pos: InstPos) -> Result<(), CpuError> {
        let name = inst.op.name();
        let mut loop_args: Vec<(Value, Value)> = Vec::new();
        match &inst.op {
            Op::For {
                lb, inits, body, ..
            } => {
                let carried = std::iter::once(lb).chain(inits);
                loop_args.extend(carried.copied().zip(body.args.iter().copied()));
            }
            Op::Loop { inits, body, .. } => {
                loop_args.extend(inits.iter().copied().zip(body.args.iter().copied()));
            }
            _ => {}
        }
        let all = inst
            .op
            .operands()
            .into_iter()
            .chain(inst.results.iter().copied());
        let loop_values = loop_args.iter().flat_map(|(a, b)| [*a, *b]);
        self.check_in_table(&all.chain(loop_values).collect::<Vec<_>>(), name, pos)?;
        let expected = inst.op.result_types(|v| self.ty(v));
        let actual: Vec<Type> = inst.results.iter().map(|r| self.ty(*r)).collect();
        if expected != actual {
            return Err(self.err(pos, name, "result types differ from the op's"));
        }
        if loop_args
            .iter()
            .any(|(init, arg)| self.ty(*init) != self.ty(*arg))
        {
            return Err(self.err(pos, name, "loop argument types differ from the inits"));
        }
        Ok(())
    }

    fn check_in_table(&self, vs: &[Value], op: &'static str, pos: InstPos) -> Result<(), CpuError> {
        match vs.iter().find(|v| v.index() >= self.k.values.len()) {
            Some(v) => Err(self.err(
                pos,
                op,
                format!("value %{} is not in the kernel's table", v.0),
            )),
            None => Ok(()),
        }
    }

    fn check_arity(
        &self,
        srcs: &[Slot],
        dsts: &[Slot],
        op: &'static str,
        pos: InstPos,
    ) -> Result<(), CpuError> {
        if srcs.len() != dsts.len() {
            return Err(self.err(
                pos,
                op,
                format!("{} values where {} are expected", srcs.len(), dsts.len()),
            ));
        }
        for (s, d) in srcs.iter().zip(dsts) {
            if self.wide[*s as usize] != self.wide[*d as usize]
                || self.frag[*s as usize] != self.frag[*d as usize]
            {
                return Err(self.err(pos, op, "value of a different size than its destination"));
            }
        }
        Ok(())
    }
}

/// Whether lanes may leave a region early (`break` or `return` anywhere inside).
fn exits(r: &Region) -> bool {
    r.insts.iter().any(|i| {
        matches!(i.op, Op::Break { .. } | Op::Return) || i.op.regions().into_iter().any(exits)
    })
}
