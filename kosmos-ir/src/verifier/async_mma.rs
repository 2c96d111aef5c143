//! Checks of asynchronous group MMAs (`mma.group.async`, `mma.wait`) and `regs.set`.

use super::*;
use crate::{FragRole, MAX_PENDING_MMA_GROUPS, RegsDir, valid_register_count};

impl<'k> Verifier<'k> {
    /// `mma.wait`: a pending count the target can wait for, and accumulators to thread.
    pub(super) fn mma_wait(&mut self, at: Site, pending: u32, accs: &[Value]) {
        if pending > MAX_PENDING_MMA_GROUPS {
            self.error(
                at,
                VerifyErrorKind::AttributeRange,
                format!(
                    "{pending} pending groups: at most {MAX_PENDING_MMA_GROUPS} can be left \
                     in flight"
                ),
            );
        }
        if accs.is_empty() {
            self.error(
                at,
                VerifyErrorKind::FragOperand,
                "waits for accumulators in flight: it takes at least one".to_string(),
            );
        }
        for &acc in accs {
            if let Some(t) = self.ty(acc)
                && t != Type::Frag(FragRole::WideAcc)
            {
                self.error(
                    at,
                    VerifyErrorKind::FragOperand,
                    format!(
                        "the accumulator {} must be a frag<wacc> (only mma.group.async \
                         results are in flight)",
                        self.describe(acc)
                    ),
                );
            }
        }
    }

    /// `regs.set`: the counts `setmaxnreg` takes.
    pub(super) fn regs_set(&mut self, at: Site, dir: RegsDir, count: u32) {
        if !valid_register_count(count) {
            self.error(
                at,
                VerifyErrorKind::AttributeRange,
                format!("regs.set {dir} {count}: the count must be a multiple of 8 in 24..=256"),
            );
        }
    }

    /// The rule of `mma.group.async` results: until an `mma.wait` has waited for them, the
    /// matrix units still write their registers, so only ops that pass them on untouched
    /// (the next `mma.group.async` of the chain, `mma.wait`, and the control flow that
    /// carries them) may use them. Checked on direct uses; carried values are not tracked.
    pub(super) fn in_flight_uses(&mut self, at: Site, op: &Op, operands: &[Value]) {
        let passes_on = matches!(
            op,
            Op::MmaGroupAsync { .. }
                | Op::MmaWait { .. }
                | Op::Yield { .. }
                | Op::Break { .. }
                | Op::For { .. }
                | Op::Loop { .. }
        );
        if passes_on {
            return;
        }
        for (i, &v) in operands.iter().enumerate() {
            if !operands[..i].contains(&v) && self.in_flight.contains(&v) {
                self.error(
                    at,
                    VerifyErrorKind::InFlightAccumulator,
                    format!(
                        "{} is still being written by mma.group.async: pass it through \
                         mma.wait first",
                        self.describe(v)
                    ),
                );
            }
        }
    }

    /// Records the results of `op` that are in flight after it.
    pub(super) fn mark_in_flight(&mut self, inst: &Inst) {
        let in_flight = match inst.op {
            Op::MmaGroupAsync { .. } => true,
            Op::MmaWait { pending, .. } => pending > 0,
            _ => false,
        };
        if in_flight {
            self.in_flight.extend(inst.results.iter().copied());
        }
    }
}
