//! Gemm plans of CUDA operands, kept across calls (`kernels::plans`).
//!
//! A plan (`kernels::GemmPlan`) holds its operands' tensor maps in device memory: making one
//! allocates and uploads them (the upload waits for the device), and freeing one waits for
//! its launches. Made per call, a gemm would synchronise with the host twice. Kept here,
//! keyed by everything a map encodes (device, operand addresses and sizes, layouts, shape),
//! a call with operands seen before — PyTorch's caching allocator hands the same addresses
//! out again step after step — is one asynchronous launch on the caller's stream.

use crate::errors::Result;
use crate::staging::{Slab, Target};
use kernels::plans::{MemoryPlan, PlanCache};
use kernels::{GemmPlan, Layout};
use std::sync::Mutex;

/// Plans kept at most; the least recently used goes first (freeing it waits for the device).
const CAPACITY: usize = 64;

/// What a plan's tensor maps and launch depend on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlanKey {
    pub target: *const Target,
    pub a: (Slab, Layout),
    pub b: (Slab, Layout),
    pub shape: (usize, usize, usize),
}

// SAFETY: the pointer only identifies a process-lifetime `Target` (`staging::target`); it
// is never dereferenced through the key.
unsafe impl Send for PlanKey {}

static PLANS: Mutex<PlanCache<PlanKey>> = Mutex::new(PlanCache::new(CAPACITY));

/// Calls `f` with the plan of `key`, made and kept on first use, or with the error of
/// making it (e.g. operands the pipelined kernel cannot take, for which the caller may run
/// another gemm).
pub fn with_plan(
    target: &'static Target,
    key: PlanKey,
    f: impl FnOnce(Result<&GemmPlan<'static>>) -> Result<()>,
) -> Result<()> {
    let mut plans = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    let operand = |(s, layout): (Slab, Layout)| (s.addr, s.len, layout);
    // SAFETY: the operands are tensors on the target's GPU, kept alive by their arrays for
    // the call; the target's ops live as long as the process. A key fully determines its
    // maps, so an entry whose tensors were freed meanwhile is right for new tensors at the
    // same addresses, and it is only ever launched with such live operands.
    let made = plans.get_or_make(key, || unsafe {
        MemoryPlan::new(&target.ops, operand(key.a), operand(key.b), key.shape)
    });
    match made {
        Ok(plan) => f(Ok(plan.plan())),
        Err(e) => f(Err(e.into())),
    }
}
