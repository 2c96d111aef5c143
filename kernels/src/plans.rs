//! Gemm plans over memory the caller owns (a framework's tensors, a world's buffers), kept
//! across calls. Making a [`GemmPlan`] writes its operands' tensor maps (a synchronous copy)
//! and giving one back waits for its launches: a plan made per call would make every call
//! wait on the host, and could not be captured in a graph. A cache keyed by everything the
//! maps encode (operand addresses, lengths, layouts, shape) makes a repeated call — a
//! caching allocator hands the same addresses out step after step — one asynchronous launch.

use crate::{GemmPlan, Layout, Ops, Result};
use kosmos::bf16;
use kosmos::runtime::Buffer;

/// One operand of a [`MemoryPlan`]: the device address of its first element, its length in
/// elements and its layout.
pub type Operand = (u64, usize, Layout);

/// A gemm plan over two operands given by address, with the views it borrows kept beside it.
pub struct MemoryPlan {
    /// Declared before `_views`: dropped first, as it borrows them.
    plan: GemmPlan<'static>,
    /// The operand views the plan reads, at fixed heap addresses.
    _views: Box<(Buffer<bf16>, Buffer<bf16>)>,
}

impl MemoryPlan {
    /// The plan of `C = op(A) op(B)` (`m x n x k`, [`Ops::gemm_plan`]) over `a` and `b`.
    ///
    /// # Safety
    /// Both operands must be bf16 memory of `ops`' device, and `ops` must outlive the plan. The
    /// plan may be launched only while memory of the same addresses and lengths holds its
    /// operands (a key that names them: [`PlanCache`]).
    pub unsafe fn new(
        ops: &Ops,
        a: Operand,
        b: Operand,
        (m, n, k): (usize, usize, usize),
    ) -> Result<MemoryPlan> {
        let device = ops.device();
        // SAFETY: the caller's: the memory is the device's, the ops outlive the plan.
        let (ops, views) = unsafe {
            let ops: &'static Ops = &*(ops as *const Ops);
            let views = Box::new((
                Buffer::borrowed(device, a.0, a.1)?,
                Buffer::borrowed(device, b.0, b.1)?,
            ));
            (ops, views)
        };
        // SAFETY: the views live on the heap in `_views`, which outlives `plan` (field
        // order) and is never moved out or changed while the plan exists.
        let (va, vb): (&'static Buffer<bf16>, &'static Buffer<bf16>) =
            unsafe { (&*(&views.0 as *const _), &*(&views.1 as *const _)) };
        let plan = ops.gemm_plan(va, a.2, vb, b.2, m, n, k)?;
        Ok(MemoryPlan {
            plan,
            _views: views,
        })
    }

    pub fn plan(&self) -> &GemmPlan<'static> {
        &self.plan
    }
}

/// Recently used [`MemoryPlan`]s by key, most recent last; at `capacity` the least recently
/// used is given back first (which waits for its launches).
pub struct PlanCache<K> {
    plans: Vec<(K, MemoryPlan)>,
    capacity: usize,
}

impl<K: PartialEq> PlanCache<K> {
    pub const fn new(capacity: usize) -> PlanCache<K> {
        PlanCache {
            plans: Vec::new(),
            capacity,
        }
    }

    /// The plan of `key`: a recent one, or the one `make` makes (kept; its error is given
    /// back and nothing kept).
    pub fn get_or_make<E>(
        &mut self,
        key: K,
        make: impl FnOnce() -> std::result::Result<MemoryPlan, E>,
    ) -> std::result::Result<&MemoryPlan, E> {
        if let Some(at) = self.plans.iter().position(|(k, _)| *k == key) {
            let hit = self.plans.remove(at);
            self.plans.push(hit);
        } else {
            let made = make()?;
            if self.plans.len() == self.capacity.max(1) {
                self.plans.remove(0);
            }
            self.plans.push((key, made));
        }
        Ok(&self.plans.last().expect("pushed above").1)
    }

    /// Whether a plan of `key` is kept.
    pub fn holds(&self, key: &K) -> bool {
        self.plans.iter().any(|(k, _)| k == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kosmos::runtime::Device;
    use kosmos_testkernels::compare::{self, Scale};
    use kosmos_testkernels::{matmul_bf16_ref, random_bf16, seed};

    /// A cache of two keeps the two most recently used plans, gives back the least recently
    /// used one first, and keeps nothing for a make that failed; a plan kept through those
    /// moves still reads its operands (random, against the f64 product; output poisoned).
    #[test]
    fn the_least_recently_used_plan_goes_first() {
        let device = Device::cpu().unwrap();
        let ops = Ops::new(&device).unwrap();
        let (m, n, k) = (24, 40, 72);
        let (ah, bh) = (random_bf16(seed(), m * k), random_bf16(seed() + 1, k * n));
        let a = Buffer::from_slice(&device, &ah).unwrap();
        let b = Buffer::from_slice(&device, &bh).unwrap();
        let operands = (
            (a.device_ptr(), a.len(), Layout::N),
            (b.device_ptr(), b.len(), Layout::N),
        );
        // SAFETY: the buffers are the device's and outlive the cache, as do the ops.
        let make = || unsafe { MemoryPlan::new(&ops, operands.0, operands.1, (m, n, k)) };
        let mut cache = PlanCache::new(2);
        for key in [1, 2, 1, 3] {
            cache.get_or_make(key, make).unwrap();
        }
        assert!(cache.holds(&1) && cache.holds(&3) && !cache.holds(&2));
        let failed = cache.get_or_make(4, || Err::<MemoryPlan, _>("no plan"));
        assert_eq!(failed.err(), Some("no plan"));
        assert!(!cache.holds(&4) && cache.holds(&1) && cache.holds(&3));

        let stream = device.stream().unwrap();
        let mut c = device.alloc::<f32>(m * n).unwrap();
        c.fill(f32::NAN).unwrap();
        let plan = cache.get_or_make(1, make).unwrap().plan();
        plan.launch(&stream, &mut c).unwrap();
        stream.synchronize().unwrap();
        compare::rel_err(
            &c.download().unwrap(),
            &matmul_bf16_ref(&ah, &bh, m, n, k),
            Scale::Each { floor: 1.0 },
            compare::BF16_DOT_F32,
        )
        .assert("the kept plan's product");
    }
}
