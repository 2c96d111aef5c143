//! Structured control flow: `if`, `for`, `loop`, `yield`, `break` and `return`. Lanes
//! diverge by masks: a region runs for the lanes that take it, and lanes that leave early
//! (`break`, `return`) drop out of the masks of the regions around them.

use crate::CpuError;
use crate::arith::{self, width_mask};
use crate::compile::Compiler;
use crate::exec::lanes::{count, get};
use crate::exec::{Exec, Res};
use crate::program::{Ins, Slot};
use kosmos_ir::{CmpPred, Inst, Op, Region, ScalarType};
use std::sync::atomic::Ordering as AO;
use std::time::Duration;

#[derive(Debug)]
pub(crate) enum Control {
    If {
        cond: Slot,
        then: Vec<Ins>,
        els: Vec<Ins>,
        exits: bool,
    },
    For(For),
    Loop(Loop),
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

/// A `for`: the body's region arguments are `iv` and `args`; each iteration's `yield`
/// writes `next`, copied to `args` for the next one, or to `results` for lanes that finish.
#[derive(Debug)]
pub(crate) struct For {
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
    /// Walk index of the op, for the time-limit error.
    pos: u32,
}

/// A `loop`: as a [`For`] without the induction variable; lanes leave by `break`, which
/// writes the results itself.
#[derive(Debug)]
pub(crate) struct Loop {
    inits: Vec<Slot>,
    args: Vec<Slot>,
    next: Vec<Slot>,
    body: Vec<Ins>,
    exits: bool,
    /// Walk index of the op, for the time-limit error.
    pos: u32,
}

/// Whether lanes may leave a region early (`break` or `return` anywhere inside).
fn exits(r: &Region) -> bool {
    r.insts.iter().any(|i| {
        matches!(i.op, Op::Break { .. } | Op::Return) || i.op.regions().into_iter().any(exits)
    })
}

impl Compiler<'_> {
    pub(crate) fn control(&mut self, inst: &Inst, at: u32) -> Control {
        let results = Self::slots(&inst.results);
        match &inst.op {
            Op::If {
                cond,
                then_region,
                else_region,
                ..
            } => Control::If {
                cond: cond.0,
                then: self.nested_region(then_region, results.clone(), None),
                els: self.nested_region(else_region, results, None),
                exits: exits(then_region) || exits(else_region),
            },
            Op::For { range, inits, body } => {
                // The body's arguments: the induction variable, then the carried values.
                let args = Self::slots(&body.args[1..]);
                let next: Vec<Slot> = args.iter().map(|a| self.new_slot(*a)).collect();
                Control::For(For {
                    ty: self.sty(range.lb),
                    lb: range.lb.0,
                    ub: range.ub.0,
                    step: range.step.0,
                    inits: Self::slots(inits),
                    iv: body.args[0].0,
                    body: self.nested_region(body, results.clone(), Some(next.clone())),
                    args,
                    next,
                    results,
                    exits: exits(body),
                    pos: at,
                })
            }
            Op::Loop { inits, body, .. } => {
                let args = Self::slots(&body.args);
                let next: Vec<Slot> = args.iter().map(|a| self.new_slot(*a)).collect();
                Control::Loop(Loop {
                    inits: Self::slots(inits),
                    body: self.nested_region(body, results, Some(next.clone())),
                    args,
                    next,
                    exits: exits(body),
                    pos: at,
                })
            }
            Op::Yield { values } => {
                let (srcs, dsts) = (Self::slots(values), self.yield_targets());
                debug_assert!(self.same_sizes(&srcs, &dsts), "the verifier matches types");
                Control::Yield { srcs, dsts }
            }
            Op::Break { values } => {
                let (srcs, dsts) = (Self::slots(values), self.break_targets());
                debug_assert!(self.same_sizes(&srcs, &dsts), "the verifier matches types");
                Control::Break { srcs, dsts }
            }
            Op::Return => Control::Return,
            op => unreachable!("`{}` is not a control-flow op", op.name()),
        }
    }
}

impl Exec<'_> {
    /// Runs a control-flow instruction; lanes that leave early are dropped from `mask`,
    /// and `active` counts the lanes left.
    pub(crate) fn control(&mut self, ins: &Control, mask: &mut [bool], active: &mut usize) -> Res {
        let exits = match ins {
            Control::If {
                cond,
                then,
                els,
                exits,
            } => {
                let cv = std::mem::take(&mut self.vals[*cond as usize]);
                let mut tm = self.mask_from(|l| mask[l] && cv[l] & 1 != 0);
                let mut em = self.mask_from(|l| mask[l] && cv[l] & 1 == 0);
                self.vals[*cond as usize] = cv;
                let r = self
                    .block(then, &mut tm)
                    .and_then(|_| self.block(els, &mut em));
                self.pool.push(tm);
                self.pool.push(em);
                r?;
                *exits
            }
            Control::Loop(l) => {
                self.loop_(l, mask)?;
                l.exits
            }
            Control::For(f) => {
                self.for_(f, mask)?;
                f.exits
            }
            Control::Yield { srcs, dsts } => {
                self.copy_masked(srcs, dsts, mask);
                false
            }
            Control::Break { srcs, dsts } => {
                self.copy_masked(srcs, dsts, mask);
                if let Some(b) = self.broken.last_mut() {
                    for (b, m) in b.iter_mut().zip(mask.iter()) {
                        *b |= *m;
                    }
                }
                mask.fill(false);
                *active = 0;
                false
            }
            Control::Return => {
                for (r, m) in self.returned.iter_mut().zip(mask.iter()) {
                    *r |= *m;
                }
                mask.fill(false);
                *active = 0;
                false
            }
        };
        if exits {
            *active = self.prune(mask);
        }
        Ok(())
    }

    fn loop_(&mut self, l: &Loop, mask: &[bool]) -> Res {
        let Loop {
            inits,
            args,
            next,
            body,
            ..
        } = l;
        self.copy_all(inits, args);
        let mut live = self.mask_from(|l| mask[l]);
        let broken = self.mask_from(|_| false);
        self.broken.push(broken);
        let mut polls = 0u32;
        let r = loop {
            if self.l.abort.load(AO::Relaxed) {
                break Err(self.aborted_at(l.pos));
            }
            let (w0, a0) = (self.writes, self.atomic_loads);
            if let Err(e) = self.block(body, &mut live) {
                break Err(e);
            }
            // An iteration that wrote nothing and either polled an atomic or left its
            // carried values unchanged can only be waiting for another workgroup (or
            // spinning forever): back off, and count no progress.
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
        r
    }

    fn for_(&mut self, f: &For, mask: &[bool]) -> Res {
        let For {
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
            ..
        } = *f;
        self.copy_all(&[lb], &[iv]);
        self.copy_all(inits, args);
        let (ivs, ubs, steps) = (
            &self.vals[iv as usize],
            &self.vals[ub as usize],
            &self.vals[step as usize],
        );
        let lt = |l: usize| arith::compare(CmpPred::Lt, ty, ivs[l], ubs[l]);
        if let Some(l) =
            (0..self.n).find(|l| mask[*l] && lt(*l) && arith::to_i64(ty, steps[*l]) <= 0)
        {
            return Err(CpuError::NonPositiveStep {
                kernel: self.kernel(),
                workgroup: self.wg,
                lane: self.lane(l),
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
                break Err(self.aborted_at(f.pos));
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
                let overflow = !arith::compare(CmpPred::Gt, ty, new, old);
                if overflow || !arith::compare(CmpPred::Lt, ty, new, ubs[l]) {
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
        r
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

    /// Backs off in a loop that only polls memory, so that on few cores the workgroup it
    /// waits for gets to run; publishes what it polls for the watchdog.
    fn poll_backoff(&mut self, polls: u32) {
        if polls == 16 {
            self.publish_spin();
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
}
