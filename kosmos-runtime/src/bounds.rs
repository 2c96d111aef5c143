//! Bounds records: where a GPU kernel notes the first failure of a launch, an out-of-bounds
//! slice access (`bounds.fail`) or a wait that gave up (`wait.fail`), read back when a
//! stream that ran the kernel synchronizes. The CPU
//! device needs none: it ends the launch with the error at once.

use crate::buffer::Buffer;
use crate::device::{Device, DeviceKind};
use crate::error::{Error, Result};
use kosmos_ir::{Failure, VerifiedModule};
use std::sync::Arc;

/// Words per kernel: the failure's position among the kernel's
/// [`bounds_origins`](kosmos_ir::Kernel::bounds_origins) plus one (0: none), then the
/// access's index and the slice's length, or the wait's poll count; the fourth keeps
/// records 32-byte aligned.
const WORDS: usize = 4;

/// The bounds records of one loaded module: one per kernel.
pub(crate) struct BoundsRecords {
    records: Buffer<u64>,
    ir: Arc<VerifiedModule>,
}

impl BoundsRecords {
    /// Zeroed records for the kernels of `ir` on `device`; `None` on the CPU device.
    pub(crate) fn new(device: &Device, ir: &Arc<VerifiedModule>) -> Result<Option<Arc<Self>>> {
        if device.kind() == DeviceKind::Cpu {
            return Ok(None);
        }
        let zeros = vec![0u64; WORDS * ir.kernels().len().max(1)];
        Ok(Some(Arc::new(BoundsRecords {
            records: Buffer::from_slice(device, &zeros)?,
            ir: ir.clone(),
        })))
    }

    /// The device address of kernel `index`'s record: the last argument of its launches.
    pub(crate) fn address(&self, index: usize) -> u64 {
        self.records.device_ptr() + (index * WORDS * size_of::<u64>()) as u64
    }

    /// The first recorded failure as an error, clearing the records; call it
    /// only when no launch of the module is running.
    pub(crate) fn take_error(&self) -> Result<()> {
        let words = self.records.download()?;
        let failed = words
            .chunks_exact(WORDS)
            .zip(self.ir.kernels())
            .find(|(record, _)| record[0] != 0);
        let Some((record, kernel)) = failed else {
            return Ok(());
        };
        self.records.fill(0)?;
        let origins = kernel.bounds_origins();
        let kernel = kernel.name.clone();
        let Some((origin, failure)) = usize::try_from(record[0] - 1)
            .ok()
            .and_then(|i| origins.get(i))
        else {
            return Err(Error::IndexOutOfBounds {
                kernel,
                origin: format!("unknown access #{}", record[0] - 1),
                index: record[1],
                len: record[2],
            });
        };
        let origin = origin.0.clone();
        Err(match failure {
            Failure::Bounds => Error::IndexOutOfBounds {
                kernel,
                origin,
                index: record[1],
                len: record[2],
            },
            Failure::Wait => Error::WaitGaveUp {
                kernel,
                origin,
                polls: record[1],
            },
        })
    }
}
