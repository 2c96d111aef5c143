//! Per-rank tensor maps that warp-specialised world kernels find in a symmetric buffer
//! (`copy_tensor(.., &maps[i], ..)`): each rank's copy holds the maps of its own tensors.
//! Maps name buffer addresses, so a set is made once per distinct set of buffers and shape
//! and kept: a training step's calls each find theirs, with no host write per call.

use crate::Result;
use kosmos::bf16;
use kosmos::runtime::{
    Buffer, Device, DeviceKind, Swizzle, SymmetricBuffer, TENSOR_MAP_WORDS, TensorMap, World,
};

/// Map sets kept per cache (the oldest is given back first).
const MAP_SETS: usize = 16;

/// Recently made map sets, newest last.
#[derive(Default)]
pub(crate) struct MapCache {
    sets: Vec<(Vec<u64>, SymmetricBuffer<u64>)>,
}

impl MapCache {
    /// Makes the map set for `key` (what the maps depend on: buffer addresses, shape) the
    /// newest: a recent one, or `words` words per rank made by `make(rank)` and written (a
    /// synchronous copy per local rank — in a joined world each process writes its own
    /// rank's maps, of its own addresses —, refused while the world captures a graph;
    /// giving back the oldest set waits for the launches queued on it).
    pub(crate) fn get(
        &mut self,
        world: &mut World,
        key: Vec<u64>,
        words: usize,
        make: impl Fn(usize) -> Result<Vec<u64>>,
    ) -> Result<&SymmetricBuffer<u64>> {
        if let Some(at) = self.sets.iter().position(|(k, _)| *k == key) {
            let set = self.sets.remove(at);
            self.sets.push(set);
        } else {
            if world.is_capturing() {
                return Err(crate::Error::World(
                    kosmos::runtime::WorldError::InCapture {
                        what: "writing the tensor maps of buffers no call used before (make one call with them before capturing)",
                    },
                ));
            }
            if self.sets.len() == MAP_SETS {
                world.synchronize()?;
                self.sets.remove(0);
            }
            let maps = world.alloc_symmetric::<u64>(words)?;
            for (r, copy) in maps.local() {
                let mut all = make(r as usize)?;
                all.resize(words, 0);
                copy.upload(&all)?;
            }
            self.sets.push((key, maps));
        }
        Ok(self.newest())
    }

    /// The newest map set (panics if there is none: [`MapCache::get`] makes one).
    pub(crate) fn newest(&self) -> &SymmetricBuffer<u64> {
        &self.sets.last().expect("a set made by `get`").1
    }
}

/// Every rank's address of `b`: part of a map set's key.
pub(crate) fn addresses<T: kosmos::runtime::DeviceScalar>(b: &SymmetricBuffer<T>) -> Vec<u64> {
    b.ranks().iter().map(Buffer::device_ptr).collect()
}

/// The words of [`crate::tile_shape`]'s map of a `rows x cols` row-major bf16 tensor (boxes
/// of `box_rows x 64`, the 128-byte swizzle: the layout the group matrix instructions read).
pub(crate) fn tile_map_words(
    buffer: &Buffer<bf16>,
    rows: u32,
    cols: u32,
    box_rows: u32,
) -> Result<[u64; TENSOR_MAP_WORDS]> {
    let shape = crate::tile_shape(rows, cols, box_rows);
    Ok(TensorMap::encode(buffer, shape, Swizzle::B128)?)
}

/// Whether the warp-specialised kernels run on `device`: they need tensor copies and the
/// group matrix instructions of sm_90a, or the CPU device's emulation of them.
pub(crate) fn runs_pipelines(device: &Device) -> bool {
    matches!(device.kind(), DeviceKind::Cuda | DeviceKind::Cpu)
}
