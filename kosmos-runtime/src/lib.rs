//! The KOSMOS runtime: devices, buffers, streams, events, modules and checked launches on
//! CUDA, HIP (feature `hip`) and the CPU device.
//!
//! ```no_run
//! use kosmos_runtime::{Device, KernelArg, LaunchConfig, ModuleImage};
//! # fn demo(image: ModuleImage) -> kosmos_runtime::Result<()> {
//! let device = Device::from_env()?; // KOSMOS_DEVICE=cpu|cuda:N|hip:N, else the first GPU
//! let module = device.load_module(&image)?;
//! let x = device.alloc::<f32>(1000)?;
//! x.fill(1.0)?;
//! let stream = device.stream()?;
//! let cfg = LaunchConfig::for_elements(x.len(), 256);
//! module.launch(&stream, "scale", cfg, &[KernelArg::from(&x), KernelArg::from(1000u32)])?;
//! stream.synchronize()?;
//! let host = x.download()?;
//! # Ok(()) }
//! ```
//!
//! Launches are checked before they reach the device (see [`Module::launch`]): a workgroup
//! has at most [`kosmos_ir::Kernel::workgroup_bound`] lanes for the device's
//! [`Device::subgroup_size`] (32 on CUDA, the wavefront size on HIP, the configured size on
//! the CPU device), and a kernel with `mma.group` needs a multiple of four subgroups. On CUDA
//! a kernel's shared memory ([`kosmos_ir::Kernel::shared_layout`]) is the dynamic shared
//! memory of every launch and occupancy query; kernels above 48 KiB are opted in to it when
//! their module is loaded, and a launch needing more than the GPU allows a workgroup
//! (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`) is refused. HIP kernels keep
//! static LDS.

mod buffer;
mod cpu;
mod cuda;
mod device;
mod embedded;
mod error;
#[cfg(feature = "hip")]
mod hip;
mod module;
mod stream;
pub mod world;
mod world_peer;

pub use buffer::{Buffer, DeviceScalar};
pub use device::{CPU_RESIDENT_ENV, DEVICE_ENV, Device, DeviceKind, DeviceSpec};
pub use embedded::EmbeddedModule;
pub use error::{Error, Result};
pub use module::{ARG_ALIGN, KernelArg, LaunchConfig, Module, ModuleImage};
pub use stream::{Event, Stream};
pub use world::{SymmetricBuffer, World, WorldError, WorldModules, WorldOptions};
pub use world_peer::copy_from_peer;
