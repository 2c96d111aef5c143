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
//!
//! Each kind of device is a backend (`cpu`, `cuda`, `hip`) implementing one trait with its
//! own module, stream and event types; [`Device`] and the objects made on it dispatch to it
//! (see `backend`). A [`ModuleImage`] holds one binary per code-generation target, keyed by
//! the target's name; each backend picks the one its device runs. [`world`] runs persistent
//! kernels over ranks and defines their contract with the host ([`world::abi`]).

mod backend;
mod bounds;
mod buffer;
mod cpu;
mod cuda;
mod device;
mod error;
#[cfg(feature = "hip")]
mod hip;
mod image;
mod module;
mod stream;
mod tensor_map;
pub mod world;

pub use buffer::{Buffer, DeviceScalar};
pub use device::{CPU_RESIDENT_ENV, DEVICE_ENV, Device, DeviceKind, DeviceSpec};
pub use error::{Error, Result};
pub use image::{EmbeddedModule, ModuleImage};
pub use module::{ARG_ALIGN, KernelArg, LaunchConfig, Module};
pub use stream::{Event, Stream};
pub use tensor_map::{MAX_BOX_DIM, Swizzle, TENSOR_MAP_WORDS, TensorMap, TensorShape};
pub use world::{
    Exchange, SymmetricBuffer, World, WorldError, WorldGraph, WorldModules, WorldOptions,
    copy_from_peer, copy_range_from_peer,
};
