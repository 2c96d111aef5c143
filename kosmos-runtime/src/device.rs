//! Devices: enumeration, selection and the backend behind each (see `backend`).

use crate::backend::{Backend, DynBackend};
use crate::buffer::{Buffer, DeviceScalar};
use crate::cpu::CpuBackend;
use crate::cuda::CudaBackend;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::fmt;
use std::sync::Arc;

/// The environment variable that selects the device: `cpu`, `cuda:N` or `hip:N`.
pub const DEVICE_ENV: &str = "KOSMOS_DEVICE";
/// The environment variable that sets the CPU device's resident workgroup limit.
pub const CPU_RESIDENT_ENV: &str = "KOSMOS_CPU_RESIDENT";

/// The kind of a device.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// The IR interpreter of `kosmos-cpu`.
    Cpu,
    /// An NVIDIA GPU through the CUDA driver.
    Cuda,
    /// An AMD GPU through HIP (feature `hip`).
    Hip,
}

impl DeviceKind {
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Cuda => "cuda",
            DeviceKind::Hip => "hip",
        }
    }
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A device that buffers live on and kernels run on. Cheap to clone (shared handle); equal
/// handles are the same opened device.
#[derive(Clone)]
pub struct Device {
    backend: Arc<dyn DynBackend>,
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.backend, &other.backend)
    }
}

impl Eq for Device {}

impl fmt::Display for Device {
    /// The device's identifier: `cpu`, `cuda:N` or `hip:N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Device::label(self.kind(), self.ordinal()))
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({self}, {:?})", self.name())
    }
}

/// Which device a `KOSMOS_DEVICE`-style string names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeviceSpec {
    Cpu,
    Cuda(usize),
    Hip(usize),
}

impl DeviceSpec {
    /// Parses `cpu`, `cuda`, `cuda:N`, `hip` or `hip:N` (a bare GPU kind means index 0).
    pub fn parse(value: &str) -> Result<DeviceSpec> {
        let bad = || Error::BadDeviceSpec {
            value: value.to_string(),
        };
        let v = value.trim();
        let (kind, index) = match v.split_once(':') {
            Some((kind, index)) => {
                let index: usize = index.parse().map_err(|_| bad())?;
                (kind, Some(index))
            }
            None => (v, None),
        };
        match (kind, index) {
            ("cpu", None) => Ok(DeviceSpec::Cpu),
            ("cuda", i) => Ok(DeviceSpec::Cuda(i.unwrap_or(0))),
            ("hip", i) => Ok(DeviceSpec::Hip(i.unwrap_or(0))),
            _ => Err(bad()),
        }
    }
}

impl Device {
    fn new(backend: impl Backend) -> Device {
        Device {
            backend: Arc::new(backend),
        }
    }

    /// How a device of `kind` number `ordinal` is named: `cpu`, `cuda:N` or `hip:N`.
    pub(crate) fn label(kind: DeviceKind, ordinal: usize) -> String {
        match kind {
            DeviceKind::Cpu => kind.to_string(),
            kind => format!("{kind}:{ordinal}"),
        }
    }

    pub(crate) fn backend(&self) -> &dyn DynBackend {
        &*self.backend
    }

    /// The device named by `KOSMOS_DEVICE`, or when it is unset the default: the first CUDA
    /// GPU if the driver and a GPU are present, else (feature `hip`) the first HIP GPU, else
    /// the CPU device.
    pub fn from_env() -> Result<Device> {
        match std::env::var(DEVICE_ENV) {
            Ok(value) => Device::open(DeviceSpec::parse(&value)?),
            Err(std::env::VarError::NotPresent) => Device::default_device(),
            Err(std::env::VarError::NotUnicode(v)) => Err(Error::BadDeviceSpec {
                value: v.to_string_lossy().into_owned(),
            }),
        }
    }

    /// The GPU named by `KOSMOS_DEVICE` (`cuda:N`, `hip:N`): what tests and tools that need
    /// a GPU open. The CPU device, or no `KOSMOS_DEVICE`, is [`Error::Unavailable`].
    pub fn gpu_from_env() -> Result<Device> {
        let unavailable = |reason: &str| Error::Unavailable {
            device: "a GPU".into(),
            reason: reason.into(),
        };
        let value = std::env::var(DEVICE_ENV)
            .map_err(|_| unavailable("KOSMOS_DEVICE is not set (cuda:N or hip:N)"))?;
        let device = Device::open(DeviceSpec::parse(&value)?)?;
        if device.kind() == DeviceKind::Cpu {
            return Err(unavailable("KOSMOS_DEVICE names the CPU device"));
        }
        Ok(device)
    }

    /// The first GPU found (CUDA, then HIP), else the CPU device.
    pub fn default_device() -> Result<Device> {
        if crate::cuda::device_count().is_ok_and(|n| n > 0) {
            return Device::cuda(0);
        }
        #[cfg(feature = "hip")]
        if crate::hip::device_count().is_ok_and(|n| n > 0) {
            return Device::hip(0);
        }
        Device::cpu()
    }

    /// Opens the device `spec` names.
    pub fn open(spec: DeviceSpec) -> Result<Device> {
        match spec {
            DeviceSpec::Cpu => Device::cpu(),
            DeviceSpec::Cuda(n) => Device::cuda(n),
            DeviceSpec::Hip(n) => Device::hip(n),
        }
    }

    /// A new CPU device, running as many workgroups at once as `KOSMOS_CPU_RESIDENT` says
    /// (default: kosmos-cpu's default).
    pub fn cpu() -> Result<Device> {
        let resident =
            match std::env::var(CPU_RESIDENT_ENV) {
                Ok(v) => Some(v.trim().parse::<u32>().ok().filter(|n| *n > 0).ok_or_else(
                    || Error::Unavailable {
                        device: "cpu".into(),
                        reason: format!("{CPU_RESIDENT_ENV}=`{v}` is not a positive integer"),
                    },
                )?),
                Err(_) => None,
            };
        Ok(Device::new(CpuBackend::new(resident)))
    }

    /// A new CPU device running up to `resident` workgroups at once (the size of its
    /// persistent grids).
    pub fn cpu_with_resident_limit(resident: u32) -> Device {
        Device::new(CpuBackend::new(Some(resident.max(1))))
    }

    /// CUDA GPU number `ordinal`; an error when the driver or the GPU is missing.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Ok(Device::new(CudaBackend::open(ordinal)?))
    }

    /// HIP GPU number `ordinal`; an error when HIP or the GPU is missing.
    #[cfg(feature = "hip")]
    pub fn hip(ordinal: usize) -> Result<Device> {
        Ok(Device::new(crate::hip::HipBackend::open(ordinal)?))
    }

    /// HIP GPU number `ordinal`: always an error in a build without the `hip` feature.
    #[cfg(not(feature = "hip"))]
    pub fn hip(ordinal: usize) -> Result<Device> {
        Err(Error::Unavailable {
            device: format!("hip:{ordinal}"),
            reason: "kosmos-runtime was built without the `hip` feature".into(),
        })
    }

    /// Number of CUDA GPUs visible (0 when the driver is missing).
    pub fn cuda_device_count() -> usize {
        crate::cuda::device_count().unwrap_or(0)
    }

    /// The device's kind.
    pub fn kind(&self) -> DeviceKind {
        self.backend.kind()
    }

    /// The device's index among those of its kind (0 for the CPU device).
    pub fn ordinal(&self) -> usize {
        self.backend.ordinal()
    }

    /// The device's product name, e.g. `NVIDIA H200`; `cpu` for the CPU device.
    pub fn name(&self) -> &str {
        self.backend.name()
    }

    /// The number of compute units (SMs on NVIDIA, CUs on AMD); `None` for the CPU device.
    pub fn compute_units(&self) -> Option<u32> {
        self.backend.compute_units()
    }

    /// The most shared memory one workgroup may have, in bytes: 227 KiB on an H100 or
    /// H200, 64 KiB on gfx942, 160 KiB on gfx950; `None` on the CPU device, which has no
    /// bound. A kernel that needs more is not in the device's binary.
    pub fn max_shared_bytes(&self) -> Option<u64> {
        self.backend.max_shared_bytes()
    }

    /// Lanes of a subgroup (warp, wavefront): 32 on CUDA, the GPU's wavefront size on HIP
    /// (64 on MI300), the configured size on the CPU device. Bounds a kernel's workgroups
    /// through [`kosmos_ir::Kernel::workgroup_bound`].
    pub fn subgroup_size(&self) -> u32 {
        self.backend.subgroup_size()
    }

    /// A buffer of `len` elements; its contents are unspecified until written.
    pub fn alloc<T: DeviceScalar>(&self, len: usize) -> Result<Buffer<T>> {
        Buffer::new(self, len)
    }

    /// A new stream (work queue) on this device.
    pub fn stream(&self) -> Result<Stream> {
        Stream::new(self)
    }

    /// A stream that another library created on this device, by its driver handle (a
    /// `CUstream`; 0 is CUDA's legacy default stream): launches queued on it run in order
    /// with that library's work, without a host wait. Dropping it leaves the stream alive.
    /// Only CUDA devices have such handles; elsewhere this is [`Error::Unavailable`].
    ///
    /// # Safety
    ///
    /// `handle` is a live stream of this device's primary context (the one the CUDA
    /// runtime, and so PyTorch, uses), alive as long as the returned stream.
    pub unsafe fn borrowed_stream(&self, handle: u64) -> Result<Stream> {
        // SAFETY: the caller's promise, passed on.
        unsafe { Stream::borrowed(self, handle) }
    }

    /// Waits until all work submitted to the device has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.backend.synchronize()
    }

    /// Sets `count` elements of `pattern.len()` bytes each to `pattern`: the backend's
    /// memset where it has one of that size, else an upload of a filled host copy.
    pub(crate) fn fill_bytes(&self, addr: u64, pattern: &[u8], count: usize) -> Result<()> {
        if self.backend.memset(addr, pattern, count)? {
            return Ok(());
        }
        self.backend.write(addr, &pattern.repeat(count))
    }
}
