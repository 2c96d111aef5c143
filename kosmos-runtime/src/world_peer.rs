//! What worlds of several GPUs need from the backends: checking that every pair of GPUs can
//! reach each other's memory (with atomics) and enabling that access, memory that peers
//! may poll, and driver peer copies (the baseline of kernel-driven copies).

use crate::buffer::{Buffer, DeviceScalar};
use crate::device::{Backend, Device, DeviceKind};
use crate::error::{Error, Result};
use crate::stream::{Stream, StreamInner};
use crate::world::WorldError;

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
        if !unified_addressing(d)? {
            return Err(WorldError::NoUnifiedAddressing {
                device: d.to_string(),
            });
        }
    }
    for from in devices {
        for to in devices.iter().filter(|to| *to != from) {
            enable_peer_access(from, to)?.map_err(|reason| WorldError::NoPeerAccess {
                from: from.to_string(),
                to: to.to_string(),
                reason,
            })?;
        }
    }
    Ok(())
}

fn unified_addressing(device: &Device) -> Result<bool> {
    match &device.inner.backend {
        Backend::Cpu(_) => Ok(false),
        Backend::Cuda(b) => b.unified_addressing(),
        #[cfg(feature = "hip")]
        Backend::Hip(b) => b.unified_addressing(),
    }
}

fn enable_peer_access(from: &Device, to: &Device) -> Result<std::result::Result<(), String>> {
    match (&from.inner.backend, &to.inner.backend) {
        (Backend::Cuda(a), Backend::Cuda(b)) => a.enable_peer_access(b),
        #[cfg(feature = "hip")]
        (Backend::Hip(a), Backend::Hip(b)) => a.enable_peer_access(b),
        _ => Ok(Err(format!(
            "{} and {} are devices of different kinds",
            from.kind(),
            to.kind()
        ))),
    }
}

/// A buffer that peers on other GPUs may write and poll with system-scope atomics. On AMD
/// GPUs that must be fine-grained memory (coarse-grained memory is made coherent across
/// devices only at kernel boundaries); NVIDIA GPUs keep peer atomics coherent in ordinary
/// device memory.
pub(crate) fn alloc_peer_visible<T: DeviceScalar>(
    device: &Device,
    len: usize,
) -> Result<Buffer<T>> {
    match &device.inner.backend {
        #[cfg(feature = "hip")]
        Backend::Hip(b) if len > 0 => {
            let bytes = len
                .checked_mul(std::mem::size_of::<T>())
                .ok_or(Error::BufferTooLarge {
                    len,
                    elem: T::SCALAR_TYPE,
                })?;
            Ok(Buffer::adopt(device, b.alloc_fine_grained(bytes)?, len))
        }
        _ => device.alloc(len),
    }
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
    match (
        &dst.device().inner.backend,
        &src.device().inner.backend,
        &stream.inner,
    ) {
        (Backend::Cuda(d), Backend::Cuda(s), StreamInner::Cuda(st)) => {
            d.copy_from_peer(st, dst.device_ptr(), s, src.device_ptr(), bytes)
        }
        #[cfg(feature = "hip")]
        (Backend::Hip(d), Backend::Hip(s), StreamInner::Hip(st)) => {
            d.copy_from_peer(st, dst.device_ptr(), s, src.device_ptr(), bytes)
        }
        (Backend::Cpu(_), Backend::Cpu(_), _) => {
            let mut host = vec![0u8; bytes];
            src.device().read_bytes(src.device_ptr(), &mut host)?;
            dst.device().write_bytes(dst.device_ptr(), &host)
        }
        _ => Err(Error::WrongDevice {
            what: "the source buffer".into(),
            owner: src.device().to_string(),
            device: format!("a {} device like {}", dst.device().kind(), dst.device()),
        }),
    }
}
