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
    if dst.len() != src.len() {
        return Err(Error::LengthMismatch {
            buffer: dst.len(),
            host: src.len(),
        });
    }
    copy_range_from_peer(stream, dst, 0, src, 0, dst.len())
}

/// [`copy_from_peer`] of `len` elements of `src` from element `src_at` into `dst` from
/// element `dst_at`; an error if either range runs past its buffer.
pub fn copy_range_from_peer<T: DeviceScalar>(
    stream: &Stream,
    dst: &Buffer<T>,
    dst_at: usize,
    src: &Buffer<T>,
    src_at: usize,
    len: usize,
) -> Result<()> {
    if dst.device() != stream.device() {
        return Err(Error::WrongDevice {
            what: "the destination buffer".into(),
            owner: dst.device().to_string(),
            device: stream.device().to_string(),
        });
    }
    for (b, at) in [(dst, dst_at), (src, src_at)] {
        if at.checked_add(len).is_none_or(|end| end > b.len()) {
            return Err(Error::LengthMismatch {
                buffer: b.len(),
                host: at.saturating_add(len),
            });
        }
    }
    if len == 0 {
        return Ok(());
    }
    let size = std::mem::size_of::<T>() as u64;
    dst.device().backend().copy_from_peer(
        &*stream.inner,
        dst.device_ptr() + dst_at as u64 * size,
        src.device().backend(),
        src.device_ptr() + src_at as u64 * size,
        len * size as usize,
    )
}
