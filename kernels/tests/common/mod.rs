//! Helpers the world tests share: emulated worlds (on the CPU device, or the device
//! `KOSMOS_TEST_DEVICE` names) and symmetric buffers filled from, and read back into, host
//! vectors. Each test binary uses some of them.
#![allow(dead_code)]

use kosmos::runtime::{Device, DeviceScalar, DeviceSpec, SymmetricBuffer, World, WorldOptions};

/// The device of the emulated worlds: the CPU device, or the one `KOSMOS_TEST_DEVICE` names
/// (`cuda:0`: the same tests on a GPU; run them one at a time there, `--test-threads=1`,
/// as each launch takes every processor).
pub fn test_device() -> Device {
    match std::env::var("KOSMOS_TEST_DEVICE") {
        Ok(spec) => Device::open(DeviceSpec::parse(&spec).unwrap()).unwrap(),
        Err(_) => Device::cpu().unwrap(),
    }
}

/// An emulated world of `ranks` on [`test_device`].
pub fn world(ranks: u32) -> World {
    World::emulated(&test_device(), ranks, WorldOptions::default()).unwrap()
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
