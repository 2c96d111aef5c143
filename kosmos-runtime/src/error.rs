//! The runtime's error type.

use std::fmt;

/// Everything that can go wrong in the runtime. A missing driver or GPU is an error, never a
/// panic.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `KOSMOS_DEVICE` (or a string given to [`crate::DeviceSpec::parse`]) is not a device name.
    #[error(
        "invalid device `{value}`: expected `cpu`, `cuda`, `cuda:N`, `hip` or `hip:N` (N a device index)"
    )]
    BadDeviceSpec { value: String },
    /// The requested backend cannot be used on this machine (no driver, no GPU, not built in).
    #[error("{device} is not available: {reason}")]
    Unavailable { device: String, reason: String },
    /// A CUDA driver call failed.
    #[error("CUDA driver error in {op} on {device}: {source}")]
    Cuda {
        device: String,
        op: &'static str,
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// A HIP runtime call failed.
    #[error("HIP error in {op} on {device}: {message}")]
    Hip {
        device: String,
        op: &'static str,
        message: String,
    },
    /// A kernel indexed a slice out of its bounds: the first such access of a launch, with
    /// its place in the kernel's source. The CPU device ends the launch with it; on GPUs the
    /// access is skipped and the error comes from the next `Stream::synchronize`.
    #[error(
        "kernel `{kernel}`: {origin}: index {index} is out of bounds for a slice of {len} elements"
    )]
    IndexOutOfBounds {
        kernel: String,
        origin: String,
        index: u64,
        len: u64,
    },
    /// A kernel's bounded wait (`mbar_wait`) gave up: the first such wait of a launch, with
    /// its place in the kernel's source. Reported as [`Error::IndexOutOfBounds`] is.
    #[error("kernel `{kernel}`: {origin}: the wait gave up after {polls} polls")]
    WaitGaveUp {
        kernel: String,
        origin: String,
        polls: u64,
    },
    /// A tensor map's argument is unusable (see `TensorMap::tiled`).
    #[error("bad tensor map: `{argument}`: {problem}")]
    BadTensorMap {
        argument: &'static str,
        problem: String,
    },
    /// The CPU device reported an error.
    #[error("CPU device: {0}")]
    Cpu(#[from] kosmos_cpu::CpuError),
    /// An embedded module's IR text does not parse or verify (a build that went wrong).
    #[error("embedded module `{module}` is invalid: {message}")]
    BadEmbeddedModule { module: String, message: String },
    /// A host slice and a buffer differ in length.
    #[error("length mismatch: the buffer has {buffer} elements, the host slice {host}")]
    LengthMismatch { buffer: usize, host: usize },
    /// A buffer's size in bytes does not fit the address space.
    #[error("a buffer of {len} {elem} elements is too large")]
    BufferTooLarge {
        len: usize,
        elem: kosmos_ir::ScalarType,
    },
    /// An object of one device was used with another.
    #[error("{what} belongs to {owner}, not to {device}")]
    WrongDevice {
        what: String,
        owner: String,
        device: String,
    },
    /// A module image lacks the binary this device needs.
    #[error("module has no {binary} for {device}")]
    MissingBinary { binary: String, device: String },
    /// The module has no kernel of that name.
    #[error("module has no kernel `{name}` (it has: {available})")]
    NoSuchKernel { name: String, available: String },
    /// A kernel argument does not fit its parameter (`index` counts from 0).
    #[error("argument {index} (`{param}`) of `{kernel}`: {problem}")]
    BadArgument {
        kernel: String,
        index: usize,
        param: String,
        problem: String,
    },
    /// A launch was rejected before it reached the device.
    #[error("launch of `{kernel}`: {problem}")]
    InvalidLaunch { kernel: String, problem: String },
    /// An event was timed against an event of another device or an unrecorded one.
    #[error("cannot time events: {0}")]
    Timing(String),
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn invalid_launch(kernel: &str, problem: impl fmt::Display) -> Error {
        Error::InvalidLaunch {
            kernel: kernel.to_string(),
            problem: problem.to_string(),
        }
    }
}
