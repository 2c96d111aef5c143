//! Gemm plans of CUDA operands, kept across calls.
//!
//! A plan (`kernels::GemmPlan`) holds its operands' tensor maps in device memory: making one
//! allocates and uploads them (the upload waits for the device), and freeing one waits for
//! its launches. Made per call, a gemm would synchronise with the host twice. Kept here,
//! keyed by everything a map encodes (device, operand addresses and sizes, layouts, shape),
//! a call with operands seen before — PyTorch's caching allocator hands the same addresses
//! out again step after step — is one asynchronous launch on the caller's stream. A key fully
//! determines its maps, so an entry whose tensors were freed meanwhile is still right for
//! new tensors at the same addresses; it is only ever launched with such live operands.

use crate::errors::Result;
use crate::staging::{Slab, Target};
use kernels::{GemmPlan, Layout};
use kosmos::bf16;
use kosmos_runtime::Buffer;
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

struct CachedPlan {
    key: PlanKey,
    /// Declared before `_views`: dropped first, as it borrows them.
    plan: GemmPlan<'static>,
    /// The operand views the plan borrows, at fixed heap addresses.
    _views: Box<(Buffer<bf16>, Buffer<bf16>)>,
}

impl CachedPlan {
    fn new(target: &'static Target, key: PlanKey) -> Result<CachedPlan> {
        let views = Box::new((target.view(key.a.0)?, target.view(key.b.0)?));
        // SAFETY: the views live on the heap in `_views`, which outlives `plan` (field
        // order) and is never moved out or changed while the entry exists.
        let (a, b): (&'static Buffer<bf16>, &'static Buffer<bf16>) =
            unsafe { (&*(&views.0 as *const _), &*(&views.1 as *const _)) };
        let (m, n, k) = key.shape;
        let plan = target.ops.gemm_plan(a, key.a.1, b, key.b.1, m, n, k)?;
        Ok(CachedPlan {
            key,
            plan,
            _views: views,
        })
    }
}

/// Most recently used last.
static PLANS: Mutex<Vec<CachedPlan>> = Mutex::new(Vec::new());

/// Calls `f` with the plan of `key`, made and kept on first use, or with the error of
/// making it (e.g. operands the pipelined kernel cannot take, for which the caller may run
/// another gemm).
pub fn with_plan(
    target: &'static Target,
    key: PlanKey,
    f: impl FnOnce(Result<&GemmPlan<'static>>) -> Result<()>,
) -> Result<()> {
    let mut plans = PLANS.lock().unwrap_or_else(|e| e.into_inner());
    match plans.iter().position(|p| p.key == key) {
        Some(i) => {
            let hit = plans.remove(i);
            plans.push(hit);
        }
        None => match CachedPlan::new(target, key) {
            Ok(made) => {
                if plans.len() == CAPACITY {
                    plans.remove(0);
                }
                plans.push(made);
            }
            Err(e) => return f(Err(e)),
        },
    }
    f(Ok(&plans.last().expect("pushed above").plan))
}
