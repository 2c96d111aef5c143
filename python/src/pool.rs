//! Symmetric buffers a world keeps for the shapes of past calls, by use and length, so that
//! a training step's calls find theirs: allocating one writes the world's peer table (and
//! in a joined world is an exchange between the processes), which a call must not do each
//! time.

use crate::errors::Result;
use crate::symmetric::Symmetric;
use kosmos::bf16;
use kosmos_runtime::{SymmetricBuffer, World};
use std::collections::HashMap;

/// Buffers a pool keeps before it gives them all back (with the world synchronized and,
/// in a joined world, the processes met, as freeing memory peers map needs).
const POOL_LIMIT: usize = 32;

pub type Kept<T> = HashMap<(&'static str, usize), SymmetricBuffer<T>>;

#[derive(Default)]
pub struct Pool {
    bf16: Kept<bf16>,
    f32: Kept<f32>,
}

/// The element types a pool keeps.
pub trait Pooled: Symmetric {
    fn pooled(pool: &mut Pool) -> &mut Kept<Self>;
    fn in_pool(pool: &Pool) -> &Kept<Self>;
}

impl Pooled for bf16 {
    fn pooled(pool: &mut Pool) -> &mut Kept<bf16> {
        &mut pool.bf16
    }

    fn in_pool(pool: &Pool) -> &Kept<bf16> {
        &pool.bf16
    }
}

impl Pooled for f32 {
    fn pooled(pool: &mut Pool) -> &mut Kept<f32> {
        &mut pool.f32
    }

    fn in_pool(pool: &Pool) -> &Kept<f32> {
        &pool.f32
    }
}

impl Pool {
    /// Makes sure the pool holds a buffer for `use_` of `len` elements, allocating it on
    /// `world` if new (after giving all the others back once it holds [`POOL_LIMIT`]).
    pub fn ensure<T: Pooled>(
        &mut self,
        world: &mut World,
        use_: &'static str,
        len: usize,
    ) -> Result<()> {
        if T::pooled(self).contains_key(&(use_, len)) {
            return Ok(());
        }
        if self.bf16.len() + self.f32.len() >= POOL_LIMIT {
            world.synchronize()?;
            world.meet()?;
            *self = Pool::default();
        }
        let b = world.alloc_symmetric::<T>(len)?;
        T::pooled(self).insert((use_, len), b);
        Ok(())
    }

    /// The buffer for `use_` of `len` elements ([`Pool::ensure`] made it).
    pub fn get<T: Pooled>(&self, use_: &'static str, len: usize) -> &SymmetricBuffer<T> {
        &T::in_pool(self)[&(use_, len)]
    }
}
