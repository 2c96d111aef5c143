//! Executes one workgroup at a time on the calling thread, all lanes in lockstep.
//!
//! Values live in structure-of-arrays form: one `Vec<u64>` per slot with one word per lane
//! (two for 16-byte vectors). Pure ops run over every lane regardless of the mask (their
//! results in inactive lanes are never observed, since results leave a region only through
//! masked `yield`/`break` copies); ops with effects or errors look at the mask. Each op
//! family's execute side lives with its compile side in [`crate::ops`].

mod access;
pub(crate) mod lanes;

use crate::memory::MemoryView;
use crate::program::{Ins, Program, Slot};
use crate::{CpuError, StoppedWorkgroup, StuckWorkgroup};
use kosmos_ir::Kernel;
use lanes::{count, get, set};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AO};

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

pub(crate) type Res = Result<(), Stop>;

/// What a resident slot (one worker thread) tells the watchdog.
pub(crate) struct SlotState {
    /// Bumped on every step that is not a pure poll.
    pub progress: AtomicU64,
    /// Linear id of the workgroup being run, `u64::MAX` when idle.
    pub current: AtomicU64,
    /// The load being polled: (instruction index, address, last value).
    pub spin: Mutex<Option<(u32, u64, u64)>>,
    /// Where an abort stopped this thread's workgroup: (workgroup, loop's instruction index).
    pub stopped: Mutex<Option<([u32; 3], u32)>>,
}

impl SlotState {
    pub fn new() -> SlotState {
        SlotState {
            progress: AtomicU64::new(0),
            current: AtomicU64::new(u64::MAX),
            spin: Mutex::new(None),
            stopped: Mutex::new(None),
        }
    }

    /// The workgroup an abort stopped, and in which loop.
    pub fn stopped(&self, launch: &Launch) -> Option<StoppedWorkgroup> {
        let stopped = *self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        stopped.map(|(workgroup, i)| StoppedWorkgroup {
            workgroup,
            pos: launch.prog.positions[i as usize],
        })
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
    /// The byte length of each parameter's buffer (0 for scalars): what `buffer.len` reads.
    pub buffer_bytes: Vec<u64>,
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
    pub(crate) l: &'a Launch<'a>,
    slot: &'a SlotState,
    /// Lanes per workgroup.
    pub(crate) n: usize,
    pub(crate) vals: Vec<Vec<u64>>,
    /// Per dimension, each lane's work-item id.
    pub(crate) lane_id: [Vec<u64>; 3],
    /// Per lane, whether it executed `return`.
    pub(crate) returned: Vec<bool>,
    pub(crate) shared: Vec<u8>,
    pub(crate) wg: [u32; 3],
    /// Spare masks, so that regions allocate none.
    pub(crate) pool: Vec<Vec<bool>>,
    /// Per enclosing loop, innermost last: the lanes that left it with `break`.
    pub(crate) broken: Vec<Vec<bool>>,
    /// Memory-changing operations so far (a loop iteration without any is a poll).
    pub(crate) writes: u64,
    pub(crate) atomic_loads: u64,
    pub(crate) last_atomic_load: (u32, u64, u64),
    progress: u64,
    spin_published: bool,
    alloc_cache: usize,
    pub lane_ops: u64,
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

    /// A mask (from the pool) of the lanes `f` picks.
    pub(crate) fn mask_from(&mut self, f: impl Fn(usize) -> bool) -> Vec<bool> {
        let mut m = self.pool.pop().unwrap_or_default();
        m.clear();
        m.extend((0..self.n).map(f));
        m
    }

    /// Stops at loop `pos` because the launch is being aborted, noting where.
    pub(crate) fn aborted_at(&mut self, pos: u32) -> Stop {
        *self.slot.stopped.lock().unwrap_or_else(|e| e.into_inner()) = Some((self.wg, pos));
        Stop::Aborted
    }

    pub(crate) fn bump_progress(&mut self) {
        self.progress += 1;
        self.slot.progress.store(self.progress, AO::Relaxed);
        if self.spin_published {
            self.spin_published = false;
            *self.slot.spin.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// Publishes the load being polled for the watchdog, until the next progress.
    pub(crate) fn publish_spin(&mut self) {
        self.spin_published = true;
        *self.slot.spin.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.last_atomic_load);
    }

    /// The kernel as errors name it: with its source file when it has one, whose lines and
    /// columns the positions then are.
    pub(crate) fn kernel(&self) -> String {
        let k = self.l.kernel;
        match &k.source {
            Some(file) => format!("{} ({file})", k.name),
            None => k.name.clone(),
        }
    }

    pub(crate) fn pos(&self, i: u32) -> kosmos_ir::InstPos {
        self.l.prog.positions[i as usize]
    }

    pub(crate) fn op_name(&self, pos: u32) -> &'static str {
        let mut name = "";
        self.l.kernel.walk(|i, inst| {
            if i == pos as usize {
                name = inst.op.name();
            }
        });
        name
    }

    /// Copies `srcs` into `dsts` for the lanes of `mask`.
    pub(crate) fn copy_masked(&mut self, srcs: &[Slot], dsts: &[Slot], mask: &[bool]) {
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

    pub(crate) fn copy_all(&mut self, srcs: &[Slot], dsts: &[Slot]) {
        for (s, d) in srcs.iter().zip(dsts) {
            let mut dv = std::mem::take(&mut self.vals[*d as usize]);
            dv.copy_from_slice(&self.vals[*s as usize]);
            self.vals[*d as usize] = dv;
        }
    }

    /// Runs `code` for the lanes of `mask`, which lanes leaving early (`break`, `return`)
    /// drop out of.
    pub(crate) fn block(&mut self, code: &[Ins], mask: &mut [bool]) -> Res {
        let mut active = count(mask);
        for ins in code {
            if active == 0 {
                return Ok(());
            }
            self.lane_ops += active as u64;
            match ins {
                Ins::Arith(i) => self.arith(i, mask)?,
                Ins::Memory(i) => self.memory(i, mask)?,
                Ins::Atomic(i) => self.atomic(i, mask)?,
                Ins::Machine(i) => self.machine(i, mask)?,
                Ins::Tile(i) => self.tile(i, mask)?,
                Ins::SharedTile(i) => self.shared_tile(i, mask)?,
                Ins::AsyncCopy(i) => self.async_copy(i, mask)?,
                Ins::Vector(i) => self.vector(i),
                Ins::Control(i) => self.control(i, mask, &mut active)?,
            }
        }
        Ok(())
    }
}
