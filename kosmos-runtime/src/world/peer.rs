//! What worlds of several GPUs need from the backends: checking that every pair of GPUs can
//! reach each other's memory (with atomics) and enabling that access, and driver peer copies
//! (the baseline of kernel-driven copies). Memory that peers may poll is
//! `Buffer::new_peer_visible`.

use super::WorldError;
use crate::buffer::{Buffer, DeviceScalar};
use crate::device::{Device, DeviceKind};
use crate::error::{Error, Result};
use crate::stream::Stream;

/// Checks that `devices` can form a world of one rank per GPU and enables peer access
/// between every ordered pair. Never creates NVLink multicast objects: plain peer mappings
/// are all the protocol uses.
pub(crate) fn connect(devices: &[Device]) -> Result<(), WorldError> {
    for d in devices {
        if d.kind() == DeviceKind::Cpu {
            return Err(WorldError::NotAGpu {
                device: d.to_string(),
            });
        }
    }
    if devices.len() < 2 {
        return Err(WorldError::TooFewGpus {
            given: devices.len(),
        });
    }
    for (i, a) in devices.iter().enumerate() {
        for b in &devices[..i] {
            if a.kind() != b.kind() {
                return Err(WorldError::MixedKinds {
                    first: b.to_string(),
                    other: a.to_string(),
                });
            }
            if a.ordinal() == b.ordinal() {
                return Err(WorldError::SameGpuTwice {
                    device: a.to_string(),
                });
            }
        }
    }
    for d in devices {
        if !d.backend().unified_addressing()? {
            return Err(WorldError::NoUnifiedAddressing {
                device: d.to_string(),
            });
        }
    }
    for from in devices {
        for to in devices.iter().filter(|to| *to != from) {
            from.backend()
                .enable_peer_access(to.backend())?
                .map_err(|reason| WorldError::NoPeerAccess {
                    from: from.to_string(),
                    to: to.to_string(),
                    reason,
                })?;
        }
    }
    Ok(())
}

/// Queues a copy of all of `src` (on a peer GPU) into `dst` on `stream`, whose device must
/// be `dst`'s, through the driver's copy path (`cuMemcpyPeerAsync` / `hipMemcpyPeerAsync`):
/// the baseline kernel-driven peer copies are measured against. On the CPU device the copy
/// goes through the host and has finished when this returns.
pub fn copy_from_peer<T: DeviceScalar>(
    stream: &Stream,
    dst: &Buffer<T>,
    src: &Buffer<T>,
) -> Result<()> {
    if dst.device() != stream.device() {
        return Err(Error::WrongDevice {
            what: "the destination buffer".into(),
            owner: dst.device().to_string(),
            device: stream.device().to_string(),
        });
    }
    if dst.len() != src.len() {
        return Err(Error::LengthMismatch {
            buffer: dst.len(),
            host: src.len(),
        });
    }
    if dst.is_empty() {
        return Ok(());
    }
    let bytes = dst.size_bytes();
    dst.device().backend().copy_from_peer(
        &*stream.inner,
        dst.device_ptr(),
        src.device().backend(),
        src.device_ptr(),
        bytes,
    )
}
