//! Executes one workgroup at a time on the calling thread, all lanes in lockstep.
//!
//! Values live in structure-of-arrays form: one `Vec<u64>` per slot with one word per lane
//! (two for 16-byte vectors). Pure ops run over every lane regardless of the mask (their
//! results in inactive lanes are never observed, since results leave a region only through
//! masked `yield`/`break` copies); ops with effects or errors look at the mask.

use crate::arith::{self, width_mask};
use crate::compile::{FRAG_ELEMS, Ins, Program, Slot, Space, VTy};
use crate::memory::{Allocation, MemoryView, load_ordering, rmw_ordering, store_ordering};
use crate::{CpuError, StuckWorkgroup};
use kosmos_ir::{
    BinOp, FRAG_M, GROUP_K, GROUP_N, GROUP_SUBGROUPS, IdKind, Kernel, Ordering, RmwOp, ScalarType,
};
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{self, AtomicBool, AtomicU64, Ordering as AO};
use std::time::Duration;

/// Byte pattern of fresh shared memory: reads before writes give NaNs and -1s, not zeros.
const SHARED_POISON: u8 = 0xFF;

/// Why execution stopped early.
pub(crate) enum Stop {
    Error(Box<CpuError>),
    /// Another workgroup failed or the watchdog fired.
    Aborted,
}

impl From<CpuError> for Stop {
    fn from(e: CpuError) -> Stop {
        Stop::Error(Box::new(e))
    }
}

type Res = Result<(), Stop>;

/// What a resident slot (one worker thread) tells the watchdog.
pub(crate) struct SlotState {
    /// Bumped on every step that is not a pure poll.
    pub progress: AtomicU64,
    /// Linear id of the workgroup being run, `u64::MAX` when idle.
    pub current: AtomicU64,
    /// The load being polled: (instruction index, address, last value).
    pub spin: Mutex<Option<(u32, u64, u64)>>,
}

impl SlotState {
    pub fn new() -> SlotState {
        SlotState {
            progress: AtomicU64::new(0),
            current: AtomicU64::new(u64::MAX),
            spin: Mutex::new(None),
        }
    }

    pub fn stuck(&self, launch: &Launch) -> Option<StuckWorkgroup> {
        let cur = self.current.load(AO::SeqCst);
        if cur == u64::MAX {
            return None;
        }
        let spin = *self.spin.lock().unwrap_or_else(|e| e.into_inner());
        Some(StuckWorkgroup {
            workgroup: launch.decode(cur),
            spinning_on: spin.map(|(i, addr, v)| (launch.prog.positions[i as usize], addr, v)),
        })
    }
}

/// Everything the workers of one launch share.
pub(crate) struct Launch<'a> {
    pub prog: &'a Program,
    pub kernel: &'a Kernel,
    pub mem: MemoryView,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// (slot, bits) of each parameter.
    pub params: Vec<(Slot, u64)>,
    pub abort: AtomicBool,
}

impl Launch<'_> {
    pub fn decode(&self, i: u64) -> [u32; 3] {
        let (gx, gy) = (self.grid[0] as u64, self.grid[1] as u64);
        [
            (i % gx) as u32,
            ((i / gx) % gy) as u32,
            (i / (gx * gy)) as u32,
        ]
    }
}

/// The per-thread interpreter state, reused across the workgroups the thread runs.
pub(crate) struct Exec<'a> {
    l: &'a Launch<'a>,
    slot: &'a SlotState,
    n: usize,
    vals: Vec<Vec<u64>>,
    lane_id: [Vec<u64>; 3],
    returned: Vec<bool>,
    shared: Vec<u8>,
    wg: [u32; 3],
    pool: Vec<Vec<bool>>,
    broken: Vec<Vec<bool>>,
    /// Memory-changing operations so far (a loop iteration without any is a poll).
    writes: u64,
    atomic_loads: u64,
    last_atomic_load: (u32, u64, u64),
    progress: u64,
    spin_published: bool,
    alloc_cache: usize,
    pub lane_ops: u64,
}

/// The value of lane `l` of a slot, as up to 16 bytes.
#[inline(always)]
fn get(v: &[u64], l: usize, wide: bool) -> u128 {
    if wide {
        v[2 * l] as u128 | (v[2 * l + 1] as u128) << 64
    } else {
        v[l] as u128
    }
}

#[inline(always)]
fn set(v: &mut [u64], l: usize, wide: bool, x: u128) {
    if wide {
        v[2 * l] = x as u64;
        v[2 * l + 1] = (x >> 64) as u64;
    } else {
        v[l] = x as u64;
    }
}

#[inline(always)]
fn map1(vals: &mut [Vec<u64>], dst: Slot, a: Slot, f: impl Fn(u64) -> u64) {
    let mut d = std::mem::take(&mut vals[dst as usize]);
    for (o, x) in d.iter_mut().zip(&vals[a as usize]) {
        *o = f(*x);
    }
    vals[dst as usize] = d;
}

#[inline(always)]
fn map2(vals: &mut [Vec<u64>], dst: Slot, a: Slot, b: Slot, f: impl Fn(u64, u64) -> u64) {
    let mut d = std::mem::take(&mut vals[dst as usize]);
    for ((o, x), y) in d.iter_mut().zip(&vals[a as usize]).zip(&vals[b as usize]) {
        *o = f(*x, *y);
    }
    vals[dst as usize] = d;
}

#[inline(always)]
fn map3(
    vals: &mut [Vec<u64>],
    dst: Slot,
    a: Slot,
    b: Slot,
    c: Slot,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let mut d = std::mem::take(&mut vals[dst as usize]);
    for (((o, x), y), z) in d
        .iter_mut()
        .zip(&vals[a as usize])
        .zip(&vals[b as usize])
        .zip(&vals[c as usize])
    {
        *o = f(*x, *y, *z);
    }
    vals[dst as usize] = d;
}

#[inline(always)]
fn f32op(x: u64, y: u64, f: impl Fn(f32, f32) -> f32) -> u64 {
    f(f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits() as u64
}

/// Element `i` of a packed vector.
#[inline(always)]
fn elem_get(v: u128, elem: ScalarType, i: u32) -> u64 {
    let bits = elem.size_bytes() * 8;
    ((v >> (i * bits)) as u64) & width_mask(elem)
}

#[inline(always)]
fn elem_set(v: u128, elem: ScalarType, i: u32, x: u64) -> u128 {
    let bits = elem.size_bytes() * 8;
    let m = (width_mask(elem) as u128) << (i * bits);
    (v & !m) | (((x & width_mask(elem)) as u128) << (i * bits))
}

fn count(mask: &[bool]) -> usize {
    mask.iter().filter(|m| **m).count()
}

/// The new value of an atomic read-modify-write.
fn rmw_apply(op: RmwOp, ty: ScalarType, old: u64, v: u64) -> u64 {
    match (op, ty) {
        (RmwOp::Add, ScalarType::F32) => f32op(old, v, |a, b| a + b),
        (RmwOp::Xchg, _) => v,
        (RmwOp::Add, _) => old.wrapping_add(v) & width_mask(ty),
        (RmwOp::Min, _) => arith::binary(BinOp::Min, ty, old, v).unwrap_or(old),
        (RmwOp::Max, _) => arith::binary(BinOp::Max, ty, old, v).unwrap_or(old),
        (RmwOp::And, _) => old & v,
        (RmwOp::Or, _) => old | v,
    }
}

impl<'a> Exec<'a> {
    pub fn new(l: &'a Launch<'a>, slot: &'a SlotState) -> Exec<'a> {
        let n = l.block.iter().map(|b| *b as usize).product();
        let prog = l.prog;
        let mut vals: Vec<Vec<u64>> = (0..prog.wide.len())
            .map(|s| vec![0u64; n * prog.words(s as Slot)])
            .collect();
        for &(s, bits) in l.prog.consts.iter().chain(&l.params) {
            vals[s as usize].fill(bits);
        }
        let [bx, by, _] = l.block.map(|b| b as usize);
        let lane_id = [
            (0..n).map(|i| (i % bx) as u64).collect(),
            (0..n).map(|i| ((i / bx) % by) as u64).collect(),
            (0..n).map(|i| (i / (bx * by)) as u64).collect(),
        ];
        Exec {
            l,
            slot,
            n,
            vals,
            lane_id,
            returned: vec![false; n],
            shared: vec![SHARED_POISON; l.prog.shared_bytes],
            wg: [0; 3],
            pool: Vec::new(),
            broken: Vec::new(),
            writes: 0,
            atomic_loads: 0,
            last_atomic_load: (0, 0, 0),
            progress: 0,
            spin_published: false,
            alloc_cache: 0,
            lane_ops: 0,
        }
    }

    pub fn run_workgroup(&mut self, wg: [u32; 3]) -> Res {
        self.wg = wg;
        self.returned.fill(false);
        self.shared.fill(SHARED_POISON);
        let mut mask = self.mask_from(|_| true);
        let prog = self.l.prog;
        let r = self.block(&prog.body, &mut mask);
        self.pool.push(mask);
        self.bump_progress();
        r
    }

    fn mask_from(&mut self, f: impl Fn(usize) -> bool) -> Vec<bool> {
        let mut m = self.pool.pop().unwrap_or_default();
        m.clear();
        m.extend((0..self.n).map(f));
        m
    }

    fn bump_progress(&mut self) {
        self.progress += 1;
        self.slot.progress.store(self.progress, AO::Relaxed);
        if self.spin_published {
            self.spin_published = false;
            *self.slot.spin.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    fn kernel(&self) -> String {
        self.l.kernel.name.clone()
    }

    fn pos(&self, i: u32) -> kosmos_ir::InstPos {
        self.l.prog.positions[i as usize]
    }

    /// Copies `srcs` into `dsts` for the lanes of `mask`.
    fn copy_masked(&mut self, srcs: &[Slot], dsts: &[Slot], mask: &[bool]) {
        for (s, d) in srcs.iter().zip(dsts) {
            let w = self.l.prog.frag[*d as usize];
            if w != 0 {
                let mut dv = std::mem::take(&mut self.vals[*d as usize]);
                let sv = &self.vals[*s as usize];
                for l in (0..self.n).filter(|l| mask[*l]) {
                    dv[l * w..(l + 1) * w].copy_from_slice(&sv[l * w..(l + 1) * w]);
                }
                self.vals[*d as usize] = dv;
                continue;
            }
            let wide = self.l.prog.wide[*d as usize];
            let mut dv = std::mem::take(&mut self.vals[*d as usize]);
            let sv = &self.vals[*s as usize];
            for l in (0..self.n).filter(|l| mask[*l]) {
                set(&mut dv, l, wide, get(sv, l, wide));
            }
            self.vals[*d as usize] = dv;
        }
    }

    fn copy_all(&mut self, srcs: &[Slot], dsts: &[Slot]) {
        for (s, d) in srcs.iter().zip(dsts) {
            let mut dv = std::mem::take(&mut self.vals[*d as usize]);
            dv.copy_from_slice(&self.vals[*s as usize]);
            self.vals[*d as usize] = dv;
        }
    }

    /// Whether any lane of `mask` holds different values in `a` and `b`.
    fn differs(&self, a: &[Slot], b: &[Slot], mask: &[bool]) -> bool {
        a.iter().zip(b).any(|(x, y)| {
            let w = self.l.prog.frag[*x as usize];
            if w != 0 {
                let (xv, yv) = (&self.vals[*x as usize], &self.vals[*y as usize]);
                return (0..self.n)
                    .any(|l| mask[l] && xv[l * w..(l + 1) * w] != yv[l * w..(l + 1) * w]);
            }
            let wide = self.l.prog.wide[*x as usize];
            let (xv, yv) = (&self.vals[*x as usize], &self.vals[*y as usize]);
            (0..self.n).any(|l| mask[l] && get(xv, l, wide) != get(yv, l, wide))
        })
    }

    /// Drops lanes that returned, or left the innermost loop, from `mask`.
    fn prune(&self, mask: &mut [bool]) -> usize {
        let broken = self.broken.last();
        for (l, m) in mask.iter_mut().enumerate() {
            *m = *m && !self.returned[l] && !broken.is_some_and(|b| b[l]);
        }
        count(mask)
    }

    fn block(&mut self, code: &[Ins], mask: &mut [bool]) -> Res {
        let mut active = count(mask);
        for ins in code {
            if active == 0 {
                return Ok(());
            }
            self.lane_ops += active as u64;
            self.inst(ins, mask, &mut active)?;
        }
        Ok(())
    }

    fn inst(&mut self, ins: &Ins, mask: &mut [bool], active: &mut usize) -> Res {
        let wide = |s: Slot| self.l.prog.wide[s as usize];
        match *ins {
            Ins::Bin {
                op,
                ty,
                dst,
                a,
                b,
                pos,
            } => self.binary(op, ty, dst, a, b, pos, mask)?,
            Ins::Un { op, ty, dst, a } => {
                if ty.lanes == 0 {
                    map1(&mut self.vals, dst, a, |x| arith::unary(op, ty.elem, x));
                } else {
                    self.vector_map(ty, dst, &[a], |e| arith::unary(op, ty.elem, e[0]));
                }
            }
            Ins::Fma { ty, dst, a, b, c } => match (ty.lanes, ty.elem) {
                (0, ScalarType::F32) => map3(&mut self.vals, dst, a, b, c, |x, y, z| {
                    f32::from_bits(x as u32)
                        .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32))
                        .to_bits() as u64
                }),
                (0, e) => map3(&mut self.vals, dst, a, b, c, |x, y, z| {
                    arith::fma(e, x, y, z)
                }),
                _ => self.vector_map(ty, dst, &[a, b, c], |e| {
                    arith::fma(ty.elem, e[0], e[1], e[2])
                }),
            },
            Ins::Cmp {
                pred,
                ty,
                dst,
                a,
                b,
            } => map2(&mut self.vals, dst, a, b, |x, y| {
                arith::compare(pred, ty, x, y) as u64
            }),
            Ins::Select { dst, c, a, b } => {
                let w = wide(dst);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let (cv, av, bv) = (
                    &self.vals[c as usize],
                    &self.vals[a as usize],
                    &self.vals[b as usize],
                );
                for (l, c) in cv.iter().enumerate() {
                    set(
                        &mut d,
                        l,
                        w,
                        if c & 1 != 0 {
                            get(av, l, w)
                        } else {
                            get(bv, l, w)
                        },
                    );
                }
                self.vals[dst as usize] = d;
            }
            Ins::Cast { from, to, dst, a } => {
                map1(&mut self.vals, dst, a, |x| arith::cast(from, to, x))
            }
            Ins::Copy { dst, a } => self.copy_all(&[a], &[dst]),
            Ins::PtrOffset {
                dst,
                base,
                index,
                index_ty,
                size,
            } => map2(&mut self.vals, dst, base, index, |p, i| {
                p.wrapping_add((arith::to_i64(index_ty, i) as u64).wrapping_mul(size))
            }),
            Ins::Load {
                dst,
                ptr,
                space,
                ty,
                align,
                pos,
            } => self.load(dst, ptr, space, ty, align, pos, mask)?,
            Ins::Store {
                ptr,
                val,
                space,
                ty,
                align,
                pos,
            } => self.store(ptr, val, space, ty, align, pos, mask)?,
            Ins::AtomicLoad {
                dst,
                ptr,
                space,
                ty,
                ord,
                pos,
            } => self.atomic(
                dst,
                ptr,
                None,
                None,
                space,
                ty,
                ord,
                pos,
                mask,
                AtomicKind::Load,
            )?,
            Ins::AtomicStore {
                ptr,
                val,
                space,
                ty,
                ord,
                pos,
            } => self.atomic(
                u32::MAX,
                ptr,
                Some(val),
                None,
                space,
                ty,
                ord,
                pos,
                mask,
                AtomicKind::Store,
            )?,
            Ins::AtomicRmw {
                op,
                dst,
                ptr,
                val,
                space,
                ty,
                ord,
                pos,
            } => self.atomic(
                dst,
                ptr,
                Some(val),
                None,
                space,
                ty,
                ord,
                pos,
                mask,
                AtomicKind::Rmw(op),
            )?,
            Ins::AtomicCas {
                dst,
                ptr,
                expected,
                desired,
                space,
                ty,
                ord,
                pos,
            } => self.atomic(
                dst,
                ptr,
                Some(desired),
                Some(expected),
                space,
                ty,
                ord,
                pos,
                mask,
                AtomicKind::Cas,
            )?,
            Ins::Fence { ord } => match ord {
                // A relaxed fence orders nothing.
                Ordering::Relaxed => {}
                o => atomic::fence(rmw_ordering(o)),
            },
            // Other workgroups may need this core; a polling loop backs off further by itself.
            Ins::Sleep => std::thread::yield_now(),
            Ins::Clock { dst } => {
                // One epoch per process, so timestamps of all workgroups (and launches) compare.
                static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
                let ns = EPOCH
                    .get_or_init(std::time::Instant::now)
                    .elapsed()
                    .as_nanos();
                self.vals[dst as usize].fill(ns as u64);
            }
            Ins::Barrier { pos } => {
                // Lanes run in lockstep on this thread, so a barrier only has to check that
                // every live lane is here, and order memory.
                if let Some(l) = (0..self.n).find(|l| !self.returned[*l] && !mask[*l]) {
                    return Err(CpuError::DivergentBarrier {
                        kernel: self.kernel(),
                        workgroup: self.wg,
                        lane: l as u32,
                        pos: self.pos(pos),
                    }
                    .into());
                }
                atomic::fence(AO::SeqCst);
            }
            Ins::Id { dst, kind, dim } => {
                let d = dim.index();
                match kind {
                    IdKind::WorkitemId => {
                        let mut v = std::mem::take(&mut self.vals[dst as usize]);
                        v.copy_from_slice(&self.lane_id[d]);
                        self.vals[dst as usize] = v;
                    }
                    IdKind::WorkgroupId => self.vals[dst as usize].fill(self.wg[d] as u64),
                    IdKind::WorkgroupSize => self.vals[dst as usize].fill(self.l.block[d] as u64),
                    IdKind::NumWorkgroups => self.vals[dst as usize].fill(self.l.grid[d] as u64),
                    IdKind::SubgroupSize => {
                        self.vals[dst as usize].fill(self.l.prog.subgroup as u64)
                    }
                    IdKind::SubgroupId | IdKind::SubgroupLane => {
                        let sg = self.l.prog.subgroup;
                        let f = |l: usize| match kind {
                            IdKind::SubgroupId => (l / sg) as u64,
                            _ => (l % sg) as u64,
                        };
                        for (l, v) in self.vals[dst as usize].iter_mut().enumerate() {
                            *v = f(l);
                        }
                    }
                }
            }
            Ins::FragZero { dst, pos } => {
                for sg in self.full_subgroups(mask, pos)? {
                    self.frag_mut(dst, sg).fill(0);
                }
            }
            Ins::FragLoad {
                dst,
                ptr,
                stride,
                space,
                pos,
            } => self.frag_load(dst, ptr, stride, space, pos, mask)?,
            Ins::FragStore {
                ptr,
                val,
                stride,
                within,
                cols,
                space,
                pos,
            } => self.frag_store(ptr, val, stride, within, cols, space, pos, mask)?,
            Ins::Mma { dst, a, b, c, pos } => {
                for sg in self.full_subgroups(mask, pos)? {
                    let tile = |s: Slot| -> [u32; FRAG_ELEMS] {
                        let words = self.frag(s, sg);
                        std::array::from_fn(|e| (words[e / 2] >> (32 * (e % 2))) as u32)
                    };
                    let (ta, tb, tc) = (tile(a), tile(b), tile(c));
                    let bf = |x: u32| f32::from_bits(x << 16);
                    let out = self.frag_mut(dst, sg);
                    for i in 0..16 {
                        for j in 0..16 {
                            // k ascending, one f32 rounding per step: bf16 products are
                            // exact in f32, so only the additions round.
                            let mut acc = f32::from_bits(tc[i * 16 + j]);
                            for k in 0..16 {
                                acc += bf(ta[i * 16 + k]) * bf(tb[k * 16 + j]);
                            }
                            let e = i * 16 + j;
                            let w = &mut out[e / 2];
                            let shift = 32 * (e % 2);
                            *w = (*w & !(0xFFFF_FFFFu64 << shift))
                                | ((acc.to_bits() as u64) << shift);
                        }
                    }
                }
            }
            Ins::MmaGroup { dst, a, b, c, pos } => self.mma_group(dst, a, b, c, pos, mask)?,
            Ins::CopyAsync {
                dst,
                src,
                pred,
                pos,
            } => self.copy_async(dst, src, pred, pos, mask)?,
            Ins::Splat {
                dst,
                a,
                elem,
                lanes,
            } => {
                let w = wide(dst);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let av = &self.vals[a as usize];
                for (l, x) in av.iter().enumerate() {
                    let v = (0..lanes).fold(0u128, |v, i| elem_set(v, elem, i, *x));
                    set(&mut d, l, w, v);
                }
                self.vals[dst as usize] = d;
            }
            Ins::Extract { dst, v, elem, lane } => {
                let w = wide(v);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let vv = &self.vals[v as usize];
                for (l, o) in d.iter_mut().enumerate() {
                    *o = elem_get(get(vv, l, w), elem, lane);
                }
                self.vals[dst as usize] = d;
            }
            Ins::Insert {
                dst,
                v,
                elem,
                lane,
                a,
            } => {
                let w = wide(dst);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let (vv, av) = (&self.vals[v as usize], &self.vals[a as usize]);
                for (l, x) in av.iter().enumerate() {
                    set(&mut d, l, w, elem_set(get(vv, l, w), elem, lane, *x));
                }
                self.vals[dst as usize] = d;
            }
            Ins::If {
                cond,
                ref then,
                ref els,
                exits,
            } => {
                let cv = std::mem::take(&mut self.vals[cond as usize]);
                let mut tm = self.mask_from(|l| mask[l] && cv[l] & 1 != 0);
                let mut em = self.mask_from(|l| mask[l] && cv[l] & 1 == 0);
                self.vals[cond as usize] = cv;
                let r = self
                    .block(then, &mut tm)
                    .and_then(|_| self.block(els, &mut em));
                self.pool.push(tm);
                self.pool.push(em);
                r?;
                if exits {
                    *active = self.prune(mask);
                }
            }
            Ins::Loop {
                ref inits,
                ref args,
                ref next,
                ref body,
                exits,
            } => {
                self.copy_all(inits, args);
                let mut live = self.mask_from(|l| mask[l]);
                let broken = self.mask_from(|_| false);
                self.broken.push(broken);
                let mut polls = 0u32;
                let r = loop {
                    if self.l.abort.load(AO::Relaxed) {
                        break Err(Stop::Aborted);
                    }
                    let (w0, a0) = (self.writes, self.atomic_loads);
                    if let Err(e) = self.block(body, &mut live) {
                        break Err(e);
                    }
                    // An iteration that wrote nothing and either polled an atomic or left
                    // its carried values unchanged can only be waiting for another
                    // workgroup (or spinning forever): back off, and count no progress.
                    let unchanged = !self.differs(next, args, &live);
                    self.copy_masked(next, args, &live);
                    if self.writes == w0 && (self.atomic_loads != a0 || unchanged) {
                        polls += 1;
                        self.poll_backoff(polls);
                    } else {
                        polls = 0;
                        self.bump_progress();
                    }
                    if !live.contains(&true) {
                        break Ok(());
                    }
                };
                self.pool.push(live);
                if let Some(b) = self.broken.pop() {
                    self.pool.push(b);
                }
                r?;
                if exits {
                    *active = self.prune(mask);
                }
            }
            Ins::For {
                ty,
                lb,
                ub,
                step,
                ref inits,
                iv,
                ref args,
                ref next,
                ref results,
                ref body,
                exits,
            } => {
                self.copy_all(&[lb], &[iv]);
                self.copy_all(inits, args);
                let (ivs, ubs, steps) = (
                    &self.vals[iv as usize],
                    &self.vals[ub as usize],
                    &self.vals[step as usize],
                );
                let lt = |l: usize| arith::compare(kosmos_ir::CmpPred::Lt, ty, ivs[l], ubs[l]);
                if let Some(l) =
                    (0..self.n).find(|l| mask[*l] && lt(*l) && arith::to_i64(ty, steps[*l]) <= 0)
                {
                    return Err(CpuError::NonPositiveStep {
                        kernel: self.kernel(),
                        workgroup: self.wg,
                        lane: l as u32,
                    }
                    .into());
                }
                let mut live: Vec<bool> = self.pool.pop().unwrap_or_default();
                live.clear();
                live.extend((0..self.n).map(|l| mask[l] && lt(l)));
                let skip = self.mask_from(|l| mask[l] && !live[l]);
                self.copy_masked(args, results, &skip);
                self.pool.push(skip);
                let broken = self.mask_from(|_| false);
                self.broken.push(broken);
                let r = loop {
                    if !live.contains(&true) {
                        break Ok(());
                    }
                    if self.l.abort.load(AO::Relaxed) {
                        break Err(Stop::Aborted);
                    }
                    self.bump_progress();
                    if let Err(e) = self.block(body, &mut live) {
                        break Err(e);
                    }
                    self.copy_masked(next, args, &live);
                    let mut ivv = std::mem::take(&mut self.vals[iv as usize]);
                    let (ubs, steps) = (&self.vals[ub as usize], &self.vals[step as usize]);
                    let mut done = self.pool.pop().unwrap_or_default();
                    done.clear();
                    done.resize(self.n, false);
                    for l in 0..self.n {
                        if !live[l] {
                            continue;
                        }
                        let old = ivv[l];
                        let new = old.wrapping_add(steps[l]) & width_mask(ty);
                        ivv[l] = new;
                        let overflow = !arith::compare(kosmos_ir::CmpPred::Gt, ty, new, old);
                        if overflow || !arith::compare(kosmos_ir::CmpPred::Lt, ty, new, ubs[l]) {
                            live[l] = false;
                            done[l] = true;
                        }
                    }
                    self.vals[iv as usize] = ivv;
                    self.copy_masked(args, results, &done);
                    self.pool.push(done);
                };
                self.pool.push(live);
                if let Some(b) = self.broken.pop() {
                    self.pool.push(b);
                }
                r?;
                if exits {
                    *active = self.prune(mask);
                }
            }
            Ins::Yield { ref srcs, ref dsts } => self.copy_masked(srcs, dsts, mask),
            Ins::Break { ref srcs, ref dsts } => {
                self.copy_masked(srcs, dsts, mask);
                if let Some(b) = self.broken.last_mut() {
                    for (b, m) in b.iter_mut().zip(mask.iter()) {
                        *b |= *m;
                    }
                }
                mask.fill(false);
                *active = 0;
            }
            Ins::Return => {
                for (r, m) in self.returned.iter_mut().zip(mask.iter()) {
                    *r |= *m;
                }
                mask.fill(false);
                *active = 0;
            }
        }
        Ok(())
    }

    /// Backs off in a loop that only polls memory, so that on few cores the workgroup it
    /// waits for gets to run; publishes what it polls for the watchdog.
    fn poll_backoff(&mut self, polls: u32) {
        if polls == 16 {
            self.spin_published = true;
            *self.slot.spin.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.last_atomic_load);
        }
        if polls < 8 {
            std::hint::spin_loop();
        } else if polls < 64 {
            std::thread::yield_now();
        } else {
            let us = 20u64 << (polls - 64).min(6);
            std::thread::sleep(Duration::from_micros(us));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        op: BinOp,
        ty: VTy,
        dst: Slot,
        a: Slot,
        b: Slot,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        let e = ty.elem;
        if matches!(op, BinOp::Div | BinOp::Rem) && e.is_int() {
            let bv = &self.vals[b as usize];
            let w = self.l.prog.wide[b as usize];
            for l in (0..self.n).filter(|l| mask[*l]) {
                let v = get(bv, l, w);
                if (0..ty.lanes.max(1)).any(|i| elem_get(v, e, i) == 0) {
                    return Err(CpuError::DivByZero {
                        kernel: self.kernel(),
                        workgroup: self.wg,
                        lane: l as u32,
                        pos: self.pos(pos),
                    }
                    .into());
                }
            }
        }
        if ty.lanes != 0 {
            self.vector_map(ty, dst, &[a, b], |x| {
                arith::binary(op, e, x[0], x[1]).unwrap_or(0)
            });
            return Ok(());
        }
        let v = &mut self.vals;
        use ScalarType::*;
        match (op, e) {
            (BinOp::Add, F32) => map2(v, dst, a, b, |x, y| f32op(x, y, |p, q| p + q)),
            (BinOp::Sub, F32) => map2(v, dst, a, b, |x, y| f32op(x, y, |p, q| p - q)),
            (BinOp::Mul, F32) => map2(v, dst, a, b, |x, y| f32op(x, y, |p, q| p * q)),
            (BinOp::Add, I32 | U32) => map2(v, dst, a, b, |x, y| {
                (x as u32).wrapping_add(y as u32) as u64
            }),
            (BinOp::Sub, I32 | U32) => map2(v, dst, a, b, |x, y| {
                (x as u32).wrapping_sub(y as u32) as u64
            }),
            (BinOp::Mul, I32 | U32) => map2(v, dst, a, b, |x, y| {
                (x as u32).wrapping_mul(y as u32) as u64
            }),
            (BinOp::Add, I64 | U64) => map2(v, dst, a, b, |x, y| x.wrapping_add(y)),
            (BinOp::Mul, I64 | U64) => map2(v, dst, a, b, |x, y| x.wrapping_mul(y)),
            _ => map2(v, dst, a, b, |x, y| arith::binary(op, e, x, y).unwrap_or(0)),
        }
        Ok(())
    }

    /// Applies `f` element by element to vectors of type `ty`.
    fn vector_map(&mut self, ty: VTy, dst: Slot, srcs: &[Slot], f: impl Fn(&[u64]) -> u64) {
        let w = self.l.prog.wide[dst as usize];
        let mut d = std::mem::take(&mut self.vals[dst as usize]);
        let mut el = [0u64; 3];
        for l in 0..self.n {
            let ins: Vec<u128> = srcs
                .iter()
                .map(|s| get(&self.vals[*s as usize], l, w))
                .collect();
            let mut out = 0u128;
            for i in 0..ty.lanes {
                for (k, v) in ins.iter().enumerate() {
                    el[k] = elem_get(*v, ty.elem, i);
                }
                out = elem_set(out, ty.elem, i, f(&el[..srcs.len()]));
            }
            set(&mut d, l, w, out);
        }
        self.vals[dst as usize] = d;
    }

    /// The allocation holding `[addr, addr + len)` and the offset in it.
    #[inline]
    fn global(&mut self, addr: u64, len: u64) -> Option<(&'a Allocation, u64)> {
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

    fn oob(&self, lane: usize, addr: u64, bytes: usize, pos: u32, space: Space) -> Stop {
        let op = self.op_name(pos);
        CpuError::OutOfBounds {
            kernel: self.kernel(),
            workgroup: self.wg,
            lane: lane as u32,
            addr,
            bytes: bytes as u32,
            pos: self.pos(pos),
            op,
            space: match space {
                Space::Global => "global",
                Space::Shared => "shared",
            },
        }
        .into()
    }

    fn op_name(&self, pos: u32) -> &'static str {
        let mut name = "";
        self.l.kernel.walk(|i, inst| {
            if i == pos as usize {
                name = inst.op.name();
            }
        });
        name
    }

    fn check_align(&self, lane: usize, addr: u64, align: u32, pos: u32) -> Res {
        if !addr.is_multiple_of(align as u64) {
            return Err(CpuError::Misaligned {
                kernel: self.kernel(),
                workgroup: self.wg,
                lane: lane as u32,
                addr,
                align,
                pos: self.pos(pos),
                op: self.op_name(pos),
            }
            .into());
        }
        Ok(())
    }

    fn shared_range(&self, lane: usize, addr: u64, len: usize, pos: u32) -> Result<usize, Stop> {
        match addr.checked_add(len as u64) {
            Some(end) if end <= self.shared.len() as u64 => Ok(addr as usize),
            _ => Err(self.oob(lane, addr, len, pos, Space::Shared)),
        }
    }

    fn shared_load(&self, off: usize, len: usize) -> u128 {
        let mut b = [0u8; 16];
        b[..len].copy_from_slice(&self.shared[off..off + len]);
        u128::from_le_bytes(b)
    }

    fn shared_store(&mut self, off: usize, len: usize, v: u128) {
        self.shared[off..off + len].copy_from_slice(&v.to_le_bytes()[..len]);
    }

    // ---- fragments ----

    /// The subgroups with live lanes under `mask`; an error when one of them is only
    /// partly here (or lacks lanes: a workgroup size not a multiple of the subgroup size).
    fn full_subgroups(&self, mask: &[bool], pos: u32) -> Result<Vec<usize>, Stop> {
        let sg = self.l.prog.subgroup;
        let mut out = Vec::new();
        for s in 0..self.n.div_ceil(sg) {
            let lanes = s * sg..((s + 1) * sg).min(self.n);
            if !lanes.clone().any(|l| mask[l]) {
                continue;
            }
            let missing = if lanes.len() < sg {
                Some(format!(
                    "the workgroup's {} lanes leave it only {} of {sg} lanes",
                    self.n,
                    lanes.len()
                ))
            } else {
                lanes.clone().find(|l| !mask[*l]).map(|l| {
                    format!(
                        "lane {} is not here (divergent control flow or returned)",
                        l % sg
                    )
                })
            };
            if let Some(message) = missing {
                return Err(self.subgroup_error(s, pos, message));
            }
            out.push(s);
        }
        Ok(out)
    }

    fn subgroup_error(&self, subgroup: usize, pos: u32, message: String) -> Stop {
        CpuError::Subgroup {
            kernel: self.kernel(),
            workgroup: self.wg,
            subgroup: subgroup as u32,
            pos: self.pos(pos),
            op: self.op_name(pos),
            message,
        }
        .into()
    }

    fn frag(&self, slot: Slot, subgroup: usize) -> &[u64] {
        let w = self.l.prog.frag[slot as usize] * self.l.prog.subgroup;
        &self.vals[slot as usize][subgroup * w..(subgroup + 1) * w]
    }

    fn frag_mut(&mut self, slot: Slot, subgroup: usize) -> &mut [u64] {
        let w = self.l.prog.frag[slot as usize] * self.l.prog.subgroup;
        &mut self.vals[slot as usize][subgroup * w..(subgroup + 1) * w]
    }

    /// The values of `operands` in `lanes`, the lanes of a collective op (a subgroup, or
    /// the four of a group), where they must all agree.
    fn uniform<const N: usize>(
        &self,
        lanes: Range<usize>,
        operands: [(Slot, &str); N],
        pos: u32,
    ) -> Result<[u64; N], Stop> {
        let sg = self.l.prog.subgroup;
        let first = lanes.start;
        let values = operands.map(|(s, _)| self.vals[s as usize][first]);
        for ((s, what), want) in operands.iter().zip(values) {
            let v = &self.vals[*s as usize];
            if let Some(l) = lanes.clone().find(|l| v[*l] != want) {
                return Err(self.subgroup_error(
                    l / sg,
                    pos,
                    format!(
                        "{what} is {:#x} in lane {} but {want:#x} in lane 0 of subgroup {}: the \
                         operands must be the same in every lane",
                        v[l],
                        l % sg,
                        first / sg
                    ),
                ));
            }
        }
        Ok(values)
    }

    /// The pointer and row stride (in elements) of a fragment op in `subgroup`: the same in
    /// every lane, the pointer 16-byte aligned and the stride a multiple of 8.
    fn tile_operands(
        &self,
        subgroup: usize,
        ptr: Slot,
        stride: Slot,
        pos: u32,
    ) -> Result<(u64, u64), Stop> {
        let sg = self.l.prog.subgroup;
        let lanes = subgroup * sg..(subgroup + 1) * sg;
        let [p, st] = self.uniform(
            lanes.clone(),
            [(ptr, "the pointer"), (stride, "the row stride")],
            pos,
        )?;
        self.check_align(lanes.start, p, 16, pos)?;
        if st % 8 != 0 {
            return Err(self.subgroup_error(
                subgroup,
                pos,
                format!("the row stride {st} is not a multiple of 8 elements"),
            ));
        }
        Ok((p, st))
    }

    /// 16 bytes of memory at `addr` (16-byte aligned).
    fn read16(&mut self, lane: usize, addr: u64, space: Space, pos: u32) -> Result<u128, Stop> {
        match space {
            Space::Global => match self.global(addr, 16) {
                Some((a, off)) => Ok(a.load(off, 16, AO::Relaxed)),
                None => Err(self.oob(lane, addr, 16, pos, space)),
            },
            Space::Shared => {
                let off = self.shared_range(lane, addr, 16, pos)?;
                Ok(self.shared_load(off, 16))
            }
        }
    }

    /// The low `len` (<= 16) bytes of `v` to memory at `addr`.
    fn write(
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
                self.shared_store(off, len, v);
            }
        }
        Ok(())
    }

    fn frag_load(
        &mut self,
        dst: Slot,
        ptr: Slot,
        stride: Slot,
        space: Space,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        for sg in self.full_subgroups(mask, pos)? {
            let (p, st) = self.tile_operands(sg, ptr, stride, pos)?;
            let lane = sg * self.l.prog.subgroup;
            let mut tile = [0u64; FRAG_ELEMS / 2];
            for r in 0..16u64 {
                let row = p.wrapping_add(r.wrapping_mul(st).wrapping_mul(2));
                for half in 0..2u64 {
                    let v = self.read16(lane, row.wrapping_add(16 * half), space, pos)?;
                    // 8 bf16 -> 4 words of two 32-bit elements each.
                    for e in 0..8 {
                        let x = (v >> (16 * e)) as u64 & 0xFFFF;
                        let idx = (r * 16 + half * 8) as usize + e;
                        tile[idx / 2] |= x << (32 * (idx % 2));
                    }
                }
            }
            self.frag_mut(dst, sg).copy_from_slice(&tile);
        }
        Ok(())
    }

    /// Stores the 16 x `cols` accumulator `val`: whole 16-byte chunks of four elements,
    /// and within `within` only the elements inside, so no other address is touched.
    #[allow(clippy::too_many_arguments)]
    fn frag_store(
        &mut self,
        ptr: Slot,
        val: Slot,
        stride: Slot,
        within: Option<(Slot, Slot)>,
        cols: u32,
        space: Space,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        let cols = u64::from(cols);
        for sg in self.full_subgroups(mask, pos)? {
            let (p, st) = self.tile_operands(sg, ptr, stride, pos)?;
            let lanes = sg * self.l.prog.subgroup..(sg + 1) * self.l.prog.subgroup;
            let (rows_in, cols_in) = match within {
                Some((r, c)) => {
                    let bounds = [(r, "the row bound"), (c, "the column bound")];
                    let [r, c] = self.uniform(lanes.clone(), bounds, pos)?;
                    (r.min(16), c.min(cols))
                }
                None => (16, cols),
            };
            let tile: Vec<u64> = self.frag(val, sg).to_vec();
            for r in 0..rows_in {
                let row = p.wrapping_add(r.wrapping_mul(st).wrapping_mul(4));
                for c in (0..cols_in).step_by(4) {
                    // Up to four f32 of two words of the tile, already in memory order.
                    let w = ((r * cols + c) / 2) as usize;
                    let v = tile[w] as u128 | (tile[w + 1] as u128) << 64;
                    let len = 4 * (cols_in - c).min(4) as usize;
                    self.write(lanes.start, row.wrapping_add(4 * c), len, v, space, pos)?;
                }
            }
        }
        self.writes += 1;
        Ok(())
    }

    /// `mma.group`: every group of four subgroups with live lanes multiplies its shared
    /// tiles, each subgroup into its own 16-row slab. Launches of kernels with `mma.group`
    /// have workgroups of whole groups, so every group's lanes exist.
    fn mma_group(&mut self, dst: Slot, a: Slot, b: Slot, c: Slot, pos: u32, mask: &[bool]) -> Res {
        const M: usize = (GROUP_SUBGROUPS * FRAG_M) as usize;
        const N: usize = GROUP_N as usize;
        const K: usize = GROUP_K as usize;
        let (sg, per_group) = (self.l.prog.subgroup, GROUP_SUBGROUPS as usize);
        let group = per_group * sg;
        for g in 0..self.n / group {
            let lanes = g * group..(g + 1) * group;
            if !lanes.clone().any(|l| mask[l]) {
                continue;
            }
            if let Some(l) = lanes.clone().find(|l| !mask[*l]) {
                return Err(self.subgroup_error(
                    l / sg,
                    pos,
                    format!(
                        "lane {} is not here (divergent control flow or returned): every lane \
                         of subgroups {}..{} runs the group's mma.group",
                        l % sg,
                        per_group * g,
                        per_group * (g + 1)
                    ),
                ));
            }
            let tiles = [(a, "the a tile"), (b, "the b tile")];
            let [pa, pb] = self.uniform(lanes.clone(), tiles, pos)?;
            let first = lanes.start;
            self.check_align(first, pa, 1024, pos)?;
            self.check_align(first, pb, 1024, pos)?;
            let a0 = self.shared_range(first, pa, M * K * 2, pos)?;
            let b0 = self.shared_range(first, pb, K * N * 2, pos)?;
            let shared = &self.shared;
            // bf16 widens to f32 exactly.
            let bf = |at: usize| {
                f32::from_bits(u32::from(u16::from_le_bytes([shared[at], shared[at + 1]])) << 16)
            };
            // Unswizzled: A row-major (i, k), B transposed (n, k) so that k runs contiguously.
            let ta: Vec<f32> = (0..M * K)
                .map(|e| {
                    let (i, k) = (e / K, e % K);
                    bf(a0 + 128 * i + 16 * ((k / 8) ^ (i % 8)) + 2 * (k % 8))
                })
                .collect();
            let tb: Vec<f32> = (0..N * K)
                .map(|e| {
                    let (n, k) = (e / K, e % K);
                    bf(b0
                        + 8192 * (n / 64)
                        + 128 * k
                        + 16 * (((n % 64) / 8) ^ (k % 8))
                        + 2 * (n % 8))
                })
                .collect();
            for q in 0..per_group {
                let s = per_group * g + q;
                let acc = self.frag(c, s);
                let mut out = vec![0u64; acc.len()];
                for r in 0..FRAG_M as usize {
                    let row = &ta[(16 * q + r) * K..][..K];
                    for n in 0..N {
                        let e = r * N + n;
                        let mut x = f32::from_bits((acc[e / 2] >> (32 * (e % 2))) as u32);
                        // k ascending, one f32 rounding per step: bf16 products are exact in
                        // f32, so only the additions round.
                        for (ya, yb) in row.iter().zip(&tb[n * K..][..K]) {
                            x += ya * yb;
                        }
                        out[e / 2] |= u64::from(x.to_bits()) << (32 * (e % 2));
                    }
                }
                self.frag_mut(dst, s).copy_from_slice(&out);
            }
        }
        Ok(())
    }

    /// `copy.async`, lane by lane and at once: 16 bytes from global to shared memory, or
    /// 16 zeros without reading the source when the predicate is false.
    fn copy_async(&mut self, dst: Slot, src: Slot, pred: Slot, pos: u32, mask: &[bool]) -> Res {
        for l in (0..self.n).filter(|l| mask[*l]) {
            let (d, s) = (self.vals[dst as usize][l], self.vals[src as usize][l]);
            self.check_align(l, d, 16, pos)?;
            self.check_align(l, s, 16, pos)?;
            let v = if self.vals[pred as usize][l] & 1 != 0 {
                self.read16(l, s, Space::Global, pos)?
            } else {
                0
            };
            self.write(l, d, 16, v, Space::Shared, pos)?;
        }
        self.writes += 1;
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
                let v = match space {
                    Space::Global => match self.global(addr, len as u64) {
                        Some((a, off)) => a.load(off, len, AO::Relaxed),
                        None => return Err(self.oob(l, addr, len, pos, space)),
                    },
                    Space::Shared => {
                        let off = self.shared_range(l, addr, len, pos)?;
                        self.shared_load(off, len)
                    }
                };
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
            match space {
                Space::Global => match self.global(addr, len as u64) {
                    Some((a, off)) => a.store(off, len, v, AO::Relaxed),
                    None => return Err(self.oob(l, addr, len, pos, space)),
                },
                Space::Shared => {
                    let off = self.shared_range(l, addr, len, pos)?;
                    self.shared_store(off, len, v);
                }
            }
        }
        self.writes += 1;
        Ok(())
    }

    /// Atomic ops, lane by lane in lane order. Every IR scope maps to a Rust atomic, which
    /// is system-wide: the strongest scope, so correct for all of them.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        dst: Slot,
        ptr: Slot,
        val: Option<Slot>,
        expected: Option<Slot>,
        space: Space,
        ty: ScalarType,
        ord: Ordering,
        pos: u32,
        mask: &[bool],
        kind: AtomicKind,
    ) -> Res {
        let len = ty.size_bytes() as usize;
        let mut d = if dst == u32::MAX {
            Vec::new()
        } else {
            std::mem::take(&mut self.vals[dst as usize])
        };
        let r = (|| {
            for l in (0..self.n).filter(|l| mask[*l]) {
                let addr = self.vals[ptr as usize][l];
                let v = val.map_or(0, |s| self.vals[s as usize][l]);
                let e = expected.map_or(0, |s| self.vals[s as usize][l]);
                self.check_align(l, addr, len as u32, pos)?;
                let (old, changed) = match space {
                    Space::Global => {
                        let Some((a, off)) = self.global(addr, len as u64) else {
                            return Err(self.oob(l, addr, len, pos, space));
                        };
                        match kind {
                            AtomicKind::Load => {
                                (a.load(off, len, load_ordering(ord)) as u64, false)
                            }
                            AtomicKind::Store => {
                                a.store(off, len, v as u128, store_ordering(ord));
                                (0, true)
                            }
                            AtomicKind::Rmw(op) => {
                                let mut changed = false;
                                let old = a.rmw(off, len, rmw_ordering(ord), |old| {
                                    let new = rmw_apply(op, ty, old, v);
                                    changed = new != old;
                                    changed.then_some(new)
                                });
                                (old, changed)
                            }
                            AtomicKind::Cas => {
                                let old = a.rmw(off, len, rmw_ordering(ord), |old| {
                                    (old == e).then_some(v)
                                });
                                (old, old == e)
                            }
                        }
                    }
                    Space::Shared => {
                        // Shared memory belongs to this thread alone: lane order is the order.
                        let off = self.shared_range(l, addr, len, pos)?;
                        let old = self.shared_load(off, len) as u64;
                        let new = match kind {
                            AtomicKind::Load => None,
                            AtomicKind::Store => Some(v),
                            AtomicKind::Rmw(op) => Some(rmw_apply(op, ty, old, v)),
                            AtomicKind::Cas => (old == e).then_some(v),
                        };
                        if let Some(n) = new {
                            self.shared_store(off, len, n as u128);
                        }
                        (old, new.is_some_and(|n| n != old))
                    }
                };
                if changed {
                    self.writes += 1;
                }
                if kind == AtomicKind::Load {
                    self.atomic_loads += 1;
                    self.last_atomic_load = (pos, addr, old);
                }
                if !d.is_empty() {
                    d[l] = old;
                }
            }
            Ok(())
        })();
        if dst != u32::MAX {
            self.vals[dst as usize] = d;
        }
        r
    }
}

#[derive(Copy, Clone, PartialEq)]
enum AtomicKind {
    Load,
    Store,
    Rmw(RmwOp),
    Cas,
}
