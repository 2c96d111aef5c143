//! Where an op runs and how its arrays become buffers there.
//!
//! - Host arrays run on the CPU device of kosmos-runtime, an interpreter with an address
//!   space of its own: inputs are copied in, outputs copied back (its launches are
//!   synchronous anyway).
//! - CUDA arrays run on their GPU, in the primary context the CUDA runtime (and so PyTorch)
//!   uses: each is a [`Buffer::borrowed`] view of the tensor's memory (no copy) and launches
//!   queue on the caller's stream ([`Device::borrowed_stream`]).

use crate::arrays::{Array, Place};
use crate::errors::{Failure, Result};
use kernels::Ops;
use kosmos_runtime::{Buffer, Device, DeviceScalar, DeviceSpec, Stream};
use std::sync::Mutex;

/// A device with the kernels loaded on it.
pub struct Target {
    pub place: Place,
    pub device: Device,
    pub ops: Ops,
}

/// Opened devices, each once per process and kept for its life: a device's modules load
/// once, buffers and ops compare devices by identity, and cached plans (`plans`) borrow the
/// ops.
static TARGETS: Mutex<Vec<&'static Target>> = Mutex::new(Vec::new());

/// The place a world's device string names: `"cpu"`, `"cuda"` or `"cuda:N"`.
pub fn place_of(device: &str) -> Result<Place> {
    match DeviceSpec::parse(device)? {
        DeviceSpec::Cpu => Ok(Place::Host),
        DeviceSpec::Cuda(n) => Ok(Place::Cuda(n)),
        DeviceSpec::Hip(n) => Err(Failure::Value(format!(
            "device hip:{n}: the Python package runs on the CPU device and CUDA"
        ))),
    }
}

/// The device arrays in `place` run on, opened and loaded on first use.
pub fn target(place: Place) -> Result<&'static Target> {
    let mut targets = TARGETS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = targets.iter().find(|t| t.place == place) {
        return Ok(t);
    }
    let device = match place {
        Place::Host => Device::cpu()?,
        Place::Cuda(n) => Device::cuda(n)?,
    };
    let ops = Ops::new(&device)?;
    let t: &'static Target = Box::leak(Box::new(Target { place, device, ops }));
    targets.push(t);
    Ok(t)
}

/// The memory of an [`Array`], without the Python objects: what work released from the
/// interpreter lock may hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Slab {
    pub addr: u64,
    pub len: usize,
    pub place: Place,
}

impl Array {
    pub fn slab(&self) -> Slab {
        Slab {
            addr: self.addr,
            len: self.len(),
            place: self.place,
        }
    }
}

impl Slab {
    /// The host elements.
    ///
    /// # Safety
    ///
    /// The slab is host memory of `len` aligned `T`s, alive and not written elsewhere while
    /// the slice is used (its [`Array`] outlives the call).
    pub unsafe fn host<'a, T>(self) -> &'a [T] {
        unsafe { std::slice::from_raw_parts(self.addr as *const T, self.len) }
    }

    /// The host elements, to write.
    ///
    /// # Safety
    ///
    /// As [`Slab::host`], and no other reference to the memory is in use.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn host_mut<'a, T>(self) -> &'a mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.addr as *mut T, self.len) }
    }
}

impl Target {
    /// The stream launches queue on: the caller's (`handle`) on CUDA, a new one on the CPU
    /// device.
    pub fn stream(&self, handle: u64) -> Result<Stream> {
        match self.place {
            Place::Host => Ok(self.device.stream()?),
            // SAFETY: the Python layer passes the current stream of the tensors' device
            // (`torch.cuda.current_stream(device).cuda_stream`), alive for the call.
            Place::Cuda(_) => Ok(unsafe { self.device.borrowed_stream(handle)? }),
        }
    }

    /// An input's buffer: a copy on the CPU device, a view on CUDA.
    pub fn input<T: DeviceScalar>(&self, s: Slab) -> Result<Buffer<T>> {
        match self.place {
            // SAFETY: a host array of `T`s (its element type was checked), alive for the call.
            Place::Host => Ok(Buffer::from_slice(&self.device, unsafe { s.host::<T>() })?),
            Place::Cuda(_) => self.view(s),
        }
    }

    /// An output's buffer: fresh on the CPU device (see [`Target::write_back`]), a view on
    /// CUDA.
    pub fn output<T: DeviceScalar>(&self, s: Slab) -> Result<Buffer<T>> {
        match self.place {
            Place::Host => Ok(self.device.alloc(s.len)?),
            Place::Cuda(_) => self.view(s),
        }
    }

    /// Copies an output computed on the CPU device into its host array; nothing on CUDA,
    /// where the kernels wrote the array itself.
    pub fn write_back<T: DeviceScalar>(&self, buffer: &Buffer<T>, s: Slab) -> Result<()> {
        if self.place == Place::Host {
            // SAFETY: the output array, writable (checked at import), alive for the call.
            buffer.download_into(unsafe { s.host_mut::<T>() })?;
        }
        Ok(())
    }

    pub fn view<T: DeviceScalar>(&self, s: Slab) -> Result<Buffer<T>> {
        // SAFETY: the tensor's memory on this GPU, kept alive by its `Array` for the call;
        // the launches using it queue on the caller's stream, after the producer's work.
        unsafe { Buffer::borrowed(&self.device, s.addr, s.len) }.map_err(Failure::from)
    }
}
