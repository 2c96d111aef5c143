//! Helpers the world tests share: CPU-device worlds and symmetric buffers filled from, and
//! read back into, host vectors.

use kosmos::runtime::{Device, DeviceScalar, SymmetricBuffer, World, WorldOptions};

/// An emulated world of `ranks` on the CPU device.
pub fn world(ranks: u32) -> World {
    World::emulated(&Device::cpu().unwrap(), ranks, WorldOptions::default()).unwrap()
}

/// A symmetric buffer holding `data[r]` on rank `r` (written by the process of the rank:
/// in a joined world this one's only).
pub fn sym<T: DeviceScalar>(world: &mut World, data: &[Vec<T>]) -> SymmetricBuffer<T> {
    let b = world.alloc_symmetric::<T>(data[0].len()).unwrap();
    for (r, copy) in b.local() {
        copy.upload(&data[r as usize]).unwrap();
    }
    b
}

/// Every rank's copy of `y`.
pub fn download<T: DeviceScalar>(y: &SymmetricBuffer<T>) -> Vec<Vec<T>> {
    y.ranks().iter().map(|b| b.download().unwrap()).collect()
}
