//! What a lane asks of the machine it runs on: its ids, the clock, `barrier`,
//! `subgroup.barrier` and `sleep`.
//! Registers are not a resource here: `regs.set` gives no instruction.

use crate::CpuError;
use crate::compile::Compiler;
use crate::exec::{Exec, Res, Stop};
use crate::program::Slot;
use kosmos_ir::{Dim, IdKind, Inst, Op};
use std::sync::atomic::{self, Ordering as AO};

#[derive(Debug)]
pub(crate) enum Machine {
    Id { dst: Slot, kind: IdKind, dim: Dim },
    Barrier { pos: u32 },
    SubgroupBarrier { pos: u32 },
    Sleep,
    Clock { dst: Slot },
}

impl Compiler<'_> {
    /// `None` for `regs.set`.
    pub(crate) fn machine(&mut self, inst: &Inst, at: u32) -> Option<Machine> {
        Some(match inst.op {
            Op::Id { kind, dim } => Machine::Id {
                dst: self.result(inst),
                kind,
                dim,
            },
            Op::Barrier => Machine::Barrier { pos: at },
            Op::SubgroupBarrier => Machine::SubgroupBarrier { pos: at },
            Op::Sleep { .. } => Machine::Sleep,
            Op::Clock => Machine::Clock {
                dst: self.result(inst),
            },
            Op::RegsSet { .. } => return None,
            ref op => unreachable!("`{}` is not an id, barrier, sleep or clock", op.name()),
        })
    }
}

impl Exec<'_> {
    pub(crate) fn machine(&mut self, ins: &Machine, mask: &[bool]) -> Res {
        match *ins {
            Machine::Id { dst, kind, dim } => self.id(dst, kind, dim),
            Machine::Barrier { pos } => {
                // Lanes run in lockstep on this thread, so a barrier only has to check that
                // every live lane of it is here, wait for the workgroup's other group
                // threads if it has any, and order memory.
                if let Some(l) = (0..self.n).find(|l| !self.returned[*l] && !mask[*l]) {
                    return Err(CpuError::DivergentBarrier {
                        kernel: self.kernel(),
                        workgroup: self.wg,
                        lane: self.lane(l),
                        pos: self.pos(pos),
                    }
                    .into());
                }
                if let Some(barrier) = self.barrier
                    && !barrier.wait(&self.l.abort)
                {
                    return Err(Stop::Aborted);
                }
                atomic::fence(AO::SeqCst);
            }
            Machine::SubgroupBarrier { pos } => {
                // A subgroup's lanes run in lockstep on one thread: every lane of it must be
                // here; then memory is ordered.
                self.full_subgroups(mask, pos)?;
                atomic::fence(AO::SeqCst);
            }
            // Other workgroups may need this core; a polling loop backs off further by itself.
            Machine::Sleep => std::thread::yield_now(),
            Machine::Clock { dst } => {
                // One epoch per process, so timestamps of all workgroups (and launches) compare.
                static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
                let ns = EPOCH
                    .get_or_init(std::time::Instant::now)
                    .elapsed()
                    .as_nanos();
                self.vals[dst as usize].fill(ns as u64);
            }
        }
        Ok(())
    }

    fn id(&mut self, dst: Slot, kind: IdKind, dim: Dim) {
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
            IdKind::SubgroupSize => self.vals[dst as usize].fill(self.l.prog.subgroup as u64),
            IdKind::SubgroupId | IdKind::SubgroupLane => {
                let (sg, first) = (self.l.prog.subgroup, self.first_lane);
                let f = |l: usize| match kind {
                    IdKind::SubgroupId => ((first + l) / sg) as u64,
                    _ => (l % sg) as u64,
                };
                for (l, v) in self.vals[dst as usize].iter_mut().enumerate() {
                    *v = f(l);
                }
            }
        }
    }
}
