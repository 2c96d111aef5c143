//! Executes one workgroup at a time on the calling thread, all lanes in lockstep; or, for
//! kernels whose groups of subgroups wait on each other, each group on a thread of its own
//! ([`groups`]), the lanes of a group in lockstep.
//!
//! Values live in structure-of-arrays form: one `Vec<u64>` per slot with one word per lane
//! (two for 16-byte vectors). Pure ops run over every lane regardless of the mask (their
//! results in inactive lanes are never observed, since results leave a region only through
//! masked `yield`/`break` copies); ops with effects or errors look at the mask. Each op
//! family's execute side lives with its compile side in [`crate::ops`].

mod access;
mod groups;
pub(crate) mod lanes;
mod shared;

use crate::memory::MemoryView;
use crate::program::{Ins, Program, Slot};
use crate::{CpuError, StoppedWorkgroup, StuckWorkgroup};
pub(crate) use groups::threads_per_workgroup;
use groups::{GroupShare, WorkgroupBarrier};
use kosmos_ir::{GROUP_SUBGROUPS, Kernel};
use lanes::{count, get, set};
use shared::SHARED_POISON;
pub(crate) use shared::SharedMemory;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AO};

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

/// A resident slot (one worker thread, and its group threads when the kernel's groups run
/// on threads of their own): what it tells the watchdog, and what its groups share.
pub(crate) struct SlotState {
    /// Bumped on every step that is not a pure poll.
    pub progress: AtomicU64,
    /// Linear id of the workgroup being run, `u64::MAX` when idle.
    pub current: AtomicU64,
    /// Per group, the load it is polling: (instruction index, address, last value).
    pub spin: Vec<Mutex<Option<(u32, u64, u64)>>>,
    /// Where an abort stopped this slot's workgroup: (workgroup, loop's instruction index).
    pub stopped: Mutex<Option<([u32; 3], u32)>>,
    /// The workgroup's shared memory and barrier, for group threads.
    share: GroupShare,
}

impl SlotState {
    pub fn new(launch: &Launch) -> SlotState {
        SlotState {
            progress: AtomicU64::new(0),
            current: AtomicU64::new(u64::MAX),
            spin: (0..launch.groups).map(|_| Mutex::new(None)).collect(),
            stopped: Mutex::new(None),
            share: GroupShare::new(launch),
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
        let spin = self
            .spin
            .iter()
            .find_map(|s| *s.lock().unwrap_or_else(|e| e.into_inner()));
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
    /// Threads per workgroup: its groups when they must progress independently
    /// ([`Program::independent_groups`]) and there is more than one, else 1.
    pub groups: usize,
    pub abort: AtomicBool,
}

impl Launch<'_> {
    /// Lanes per workgroup.
    pub fn lanes(&self) -> usize {
        self.block.iter().map(|b| *b as usize).product()
    }

    /// The lanes of a workgroup that thread `group` runs.
    fn group_lanes(&self, group: usize) -> Range<usize> {
        if self.groups == 1 {
            return 0..self.lanes();
        }
        let size = GROUP_SUBGROUPS as usize * self.prog.subgroup;
        group * size..((group + 1) * size).min(self.lanes())
    }

    pub fn decode(&self, i: u64) -> [u32; 3] {
        let (gx, gy) = (self.grid[0] as u64, self.grid[1] as u64);
        [
            (i % gx) as u32,
            ((i / gx) % gy) as u32,
            (i / (gx * gy)) as u32,
        ]
    }
}

/// The interpreters of one resident slot: one for the whole workgroup, or one per group
/// when they run on threads of their own.
pub(crate) struct Worker<'a> {
    slot: &'a SlotState,
    execs: Vec<Exec<'a>>,
}

impl<'a> Worker<'a> {
    pub fn new(l: &'a Launch<'a>, slot: &'a SlotState) -> Worker<'a> {
        Worker {
            slot,
            execs: (0..l.groups).map(|g| Exec::new(l, slot, g)).collect(),
        }
    }

    pub fn run_workgroup(&mut self, wg: [u32; 3]) -> Res {
        match &mut self.execs[..] {
            [ex] => ex.run_workgroup(wg),
            execs => groups::run_workgroup(&self.slot.share, execs, wg),
        }
    }

    /// Instructions executed, times the lanes active for each.
    pub fn lane_ops(&self) -> u64 {
        self.execs.iter().map(|ex| ex.lane_ops).sum()
    }
}

/// The per-thread interpreter state, reused across the workgroups the thread runs.
pub(crate) struct Exec<'a> {
    pub(crate) l: &'a Launch<'a>,
    slot: &'a SlotState,
    /// The thread's group, 0 when one thread runs the whole workgroup.
    group: usize,
    /// The workgroup's lane of this thread's lane 0.
    pub(crate) first_lane: usize,
    /// Lanes this thread runs.
    pub(crate) n: usize,
    pub(crate) vals: Vec<Vec<u64>>,
    /// Per dimension, each lane's work-item id.
    pub(crate) lane_id: [Vec<u64>; 3],
    /// Per lane, whether it executed `return`.
    pub(crate) returned: Vec<bool>,
    pub(crate) shared: SharedMemory<'a>,
    /// Where the workgroup's group threads meet at `barrier` (`None` with one thread).
    pub(crate) barrier: Option<&'a WorkgroupBarrier>,
    pub(crate) wg: [u32; 3],
    /// Spare masks, so that regions allocate none.
    pub(crate) pool: Vec<Vec<bool>>,
    /// Per enclosing loop, innermost last: the lanes that left it with `break`.
    pub(crate) broken: Vec<Vec<bool>>,
    /// Memory-changing operations so far (a loop iteration without any is a poll).
    pub(crate) writes: u64,
    pub(crate) atomic_loads: u64,
    pub(crate) last_atomic_load: (u32, u64, u64),
    spin_published: bool,
    alloc_cache: usize,
    pub lane_ops: u64,
}

impl<'a> Exec<'a> {
    /// The interpreter for thread `group` of the workgroups of `slot`.
    pub fn new(l: &'a Launch<'a>, slot: &'a SlotState, group: usize) -> Exec<'a> {
        let lanes = l.group_lanes(group);
        let n = lanes.len();
        let prog = l.prog;
        let mut vals: Vec<Vec<u64>> = (0..prog.wide.len())
            .map(|s| vec![0u64; n * prog.words(s as Slot)])
            .collect();
        for &(s, bits) in l.prog.consts.iter().chain(&l.params) {
            vals[s as usize].fill(bits);
        }
        let [bx, by, _] = l.block.map(|b| b as usize);
        let lane_id = [
            lanes.clone().map(|i| (i % bx) as u64).collect(),
            lanes.clone().map(|i| ((i / bx) % by) as u64).collect(),
            lanes.clone().map(|i| (i / (bx * by)) as u64).collect(),
        ];
        let (shared, barrier) = match l.groups {
            1 => (
                SharedMemory::Private(vec![SHARED_POISON; l.prog.shared_bytes]),
                None,
            ),
            _ => (
                SharedMemory::Workgroup(&slot.share.memory),
                Some(&slot.share.barrier),
            ),
        };
        Exec {
            l,
            slot,
            group,
            first_lane: lanes.start,
            n,
            vals,
            lane_id,
            returned: vec![false; n],
            shared,
            barrier,
            wg: [0; 3],
            pool: Vec::new(),
            broken: Vec::new(),
            writes: 0,
            atomic_loads: 0,
            last_atomic_load: (0, 0, 0),
            spin_published: false,
            alloc_cache: 0,
            lane_ops: 0,
        }
    }

    /// Runs this thread's lanes of workgroup `wg` (shared memory of group threads is
    /// poisoned by [`groups::run_workgroup`] before they start).
    pub fn run_workgroup(&mut self, wg: [u32; 3]) -> Res {
        self.wg = wg;
        self.returned.fill(false);
        if let SharedMemory::Private(bytes) = &mut self.shared {
            bytes.fill(SHARED_POISON);
        }
        let mut mask = self.mask_from(|_| true);
        let prog = self.l.prog;
        let r = self.block(&prog.body, &mut mask);
        self.pool.push(mask);
        self.bump_progress();
        r
    }

    /// The workgroup's number for this thread's lane `l`, as errors name lanes.
    pub(crate) fn lane(&self, l: usize) -> u32 {
        (self.first_lane + l) as u32
    }

    /// The workgroup's number for this thread's subgroup `s`.
    pub(crate) fn subgroup(&self, s: usize) -> u32 {
        let sg = self.l.prog.subgroup;
        self.lane(s * sg) / sg as u32
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
        self.slot.progress.fetch_add(1, AO::Relaxed);
        if self.spin_published {
            self.spin_published = false;
            *self.spin_cell() = None;
        }
    }

    /// Publishes the load being polled for the watchdog, until the next progress.
    pub(crate) fn publish_spin(&mut self) {
        self.spin_published = true;
        *self.spin_cell() = Some(self.last_atomic_load);
    }

    fn spin_cell(&self) -> std::sync::MutexGuard<'a, Option<(u32, u64, u64)>> {
        self.slot.spin[self.group]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
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
