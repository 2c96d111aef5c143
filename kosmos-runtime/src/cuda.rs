//! The CUDA backend, through cudarc's driver API (loaded at run time: binaries start without
//! libcuda and report its absence as an error).
//!
//! A kernel's shared memory is one dynamic shared array laid out by
//! [`kosmos_ir::Kernel::shared_layout`]: every launch and occupancy query passes its size, and
//! kernels above the 48 KiB that need no opt-in get
//! `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` when their module is loaded.

use crate::error::{Error, Result};
use crate::module::ArgBits;
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaStream, DriverError, PushKernelArg,
    result, sys,
};
use std::sync::Arc;

/// Lanes of a warp.
pub(crate) const SUBGROUP_SIZE: u32 = 32;

/// Shared memory a workgroup may use without raising the kernel's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
const SHARED_WITHOUT_OPT_IN: u64 = 48 * 1024;

/// `needed` bytes of shared memory as the dynamic size of a launch of `kernel`, or an error
/// when `device` allows a workgroup only `limit` bytes.
fn shared_for_launch(kernel: &str, device: &str, needed: u64, limit: u32) -> Result<u32> {
    match u32::try_from(needed) {
        Ok(bytes) if bytes <= limit => Ok(bytes),
        _ => Err(Error::invalid_launch(
            kernel,
            format!(
                "the kernel needs {needed} bytes of shared memory, but {device} allows a \
                 workgroup at most {limit} (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)"
            ),
        )),
    }
}

/// Number of CUDA devices, or why there are none to be had.
pub(crate) fn device_count() -> Result<usize> {
    let unavailable = |reason: String| Error::Unavailable {
        device: "cuda".into(),
        reason,
    };
    // CudaContext::new panics when the driver library is missing: look for it first.
    if !unsafe { sys::is_culib_present() } {
        return Err(unavailable(
            "the CUDA driver library (libcuda.so) was not found".into(),
        ));
    }
    match result::init() {
        Ok(()) => {}
        Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => return Ok(0),
        Err(e) => return Err(unavailable(format!("cuInit failed: {e}"))),
    }
    let count = result::device::get_count()
        .map_err(|e| unavailable(format!("cuDeviceGetCount failed: {e}")))?;
    Ok(count.max(0) as usize)
}

pub(crate) struct CudaBackend {
    ctx: Arc<CudaContext>,
    label: String,
    name: String,
    multiprocessors: u32,
    /// Most shared memory a workgroup may have once its kernel opts in.
    shared_limit: u32,
}

impl CudaBackend {
    pub(crate) fn open(ordinal: usize) -> Result<CudaBackend> {
        let label = format!("cuda:{ordinal}");
        let count = device_count().map_err(|e| match e {
            Error::Unavailable { reason, .. } => Error::Unavailable {
                device: label.clone(),
                reason,
            },
            e => e,
        })?;
        if ordinal >= count {
            return Err(Error::Unavailable {
                device: label,
                reason: format!("this machine has {count} CUDA device(s)"),
            });
        }
        let ctx = CudaContext::new(ordinal).map_err(|source| Error::Cuda {
            device: label.clone(),
            op: "context creation",
            source,
        })?;
        // Transfers wait for the whole context (see `Buffer`), so cudarc's per-allocation
        // event tracking would only add work to every launch.
        unsafe { ctx.disable_event_tracking() };
        let mut backend = CudaBackend {
            ctx,
            label,
            name: String::new(),
            multiprocessors: 0,
            shared_limit: 0,
        };
        backend.name = backend.check("device name query", backend.ctx.name())?;
        let sms = backend.check(
            "multiprocessor count query",
            backend
                .ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        )?;
        backend.multiprocessors = sms.max(0) as u32;
        let shared = backend.check(
            "shared memory limit query",
            backend.ctx.attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            ),
        )?;
        backend.shared_limit = shared.max(0) as u32;
        Ok(backend)
    }

    fn check<T>(&self, op: &'static str, r: Result<T, DriverError>) -> Result<T> {
        r.map_err(|source| Error::Cuda {
            device: self.label.clone(),
            op,
            source,
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    /// Binds the context to this thread and waits for all its work: transfers and frees are
    /// ordered after every launch on every stream.
    fn quiesce(&self, op: &'static str) -> Result<()> {
        self.check(op, self.ctx.bind_to_thread())?;
        self.check(op, self.ctx.synchronize())
    }

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.quiesce("device synchronize")
    }

    pub(crate) fn alloc(&self, bytes: usize) -> Result<u64> {
        self.check("memory allocation", self.ctx.bind_to_thread())?;
        self.check("memory allocation", unsafe { result::malloc_sync(bytes) })
    }

    pub(crate) fn free(&self, addr: u64) -> Result<()> {
        self.quiesce("memory free")?;
        self.check("memory free", unsafe { result::free_sync(addr) })
    }

    pub(crate) fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        self.quiesce("host-to-device copy")?;
        self.check("host-to-device copy", unsafe {
            result::memcpy_htod_sync(addr, data)
        })
    }

    pub(crate) fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        self.quiesce("device-to-host copy")?;
        self.check("device-to-host copy", unsafe {
            result::memcpy_dtoh_sync(out, addr)
        })
    }

    /// Fills `count` elements of `pattern.len()` bytes; returns false when the element size
    /// has no memset (the caller then uploads a filled host copy).
    pub(crate) fn memset(&self, addr: u64, pattern: &[u8], count: usize) -> Result<bool> {
        self.quiesce("memset")?;
        let r = unsafe {
            match *pattern {
                [b] => sys::cuMemsetD8_v2(addr, b, count),
                [a, b] => sys::cuMemsetD16_v2(addr, u16::from_ne_bytes([a, b]), count),
                [a, b, c, d] => sys::cuMemsetD32_v2(addr, u32::from_ne_bytes([a, b, c, d]), count),
                _ => return Ok(false),
            }
        };
        self.check("memset", r.result())?;
        Ok(true)
    }

    /// Whether this GPU shares one virtual address space with the host and the other GPUs
    /// (`CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING`): then every allocation of every device
    /// has a distinct address, and a peer's buffer is reachable at its own address.
    pub(crate) fn unified_addressing(&self) -> Result<bool> {
        let v = self.check(
            "unified addressing query",
            self.ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
        )?;
        Ok(v != 0)
    }

    /// Lets kernels on this GPU access `peer`'s memory; `Ok(Err(reason))` when the pair
    /// cannot (no peer path, or no native atomics on it: the scheduling protocol needs
    /// system-scope atomics on peer memory). Enabling twice is not an error.
    pub(crate) fn enable_peer_access(
        &self,
        peer: &CudaBackend,
    ) -> Result<std::result::Result<(), String>> {
        let op = "peer access";
        let (me, them) = (self.ctx.cu_device(), peer.ctx.cu_device());
        let mut can = 0;
        self.check(
            op,
            unsafe { sys::cuDeviceCanAccessPeer(&mut can, me, them) }.result(),
        )?;
        if can == 0 {
            return Ok(Err("cuDeviceCanAccessPeer says no".into()));
        }
        let mut atomics = 0;
        self.check(
            op,
            unsafe {
                sys::cuDeviceGetP2PAttribute(
                    &mut atomics,
                    sys::CUdevice_P2PAttribute::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
                    me,
                    them,
                )
            }
            .result(),
        )?;
        if atomics == 0 {
            return Ok(Err(
                "the link has no native atomics (CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 0)"
                    .into(),
            ));
        }
        // Peer access is granted to the current context, for the peer's context.
        self.check(op, self.ctx.bind_to_thread())?;
        match unsafe { sys::cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) } {
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
                Ok(Ok(()))
            }
            e => Err(Error::Cuda {
                device: self.label.clone(),
                op,
                source: DriverError(e),
            }),
        }
    }

    /// Queues a copy of `bytes` from `src` on `peer` to `dst` on this GPU on `stream` (of
    /// this GPU), through the driver's copy path (`cuMemcpyPeerAsync`).
    pub(crate) fn copy_from_peer(
        &self,
        stream: &CudaStream,
        dst: u64,
        peer: &CudaBackend,
        src: u64,
        bytes: usize,
    ) -> Result<()> {
        let op = "peer copy";
        self.check(op, self.ctx.bind_to_thread())?;
        self.check(
            op,
            unsafe {
                sys::cuMemcpyPeerAsync(
                    dst,
                    self.ctx.cu_ctx(),
                    src,
                    peer.ctx.cu_ctx(),
                    bytes,
                    stream.cu_stream(),
                )
            }
            .result(),
        )
    }

    pub(crate) fn stream(&self) -> Result<Arc<CudaStream>> {
        self.check("stream creation", self.ctx.new_stream())
    }

    pub(crate) fn stream_synchronize(&self, stream: &CudaStream) -> Result<()> {
        self.check("stream synchronize", stream.synchronize())
    }

    pub(crate) fn record_event(&self, stream: &CudaStream) -> Result<CudaEvent> {
        self.check(
            "event record",
            stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)),
        )
    }

    pub(crate) fn elapsed_ms(&self, start: &CudaEvent, end: &CudaEvent) -> Result<f32> {
        self.check("event elapsed time", start.elapsed_ms(end))
    }

    /// Loads PTX text and looks up every kernel in it, given by name and shared memory
    /// bytes; raises the dynamic shared limit of those above 48 KiB that the device can
    /// hold (the others are refused at launch by [`Self::dynamic_shared`]).
    pub(crate) fn load_module(
        &self,
        ptx: &str,
        kernels: &[(&str, u64)],
    ) -> Result<(Arc<CudaModule>, Vec<CudaFunction>)> {
        if ptx.contains('\0') {
            return Err(Error::Unavailable {
                device: self.label.clone(),
                reason: "the module's PTX contains a NUL byte".into(),
            });
        }
        let module = self.check(
            "module load",
            self.ctx
                .load_module(cudarc::nvrtc::Ptx::from_src(ptx.to_string())),
        )?;
        let mut functions = Vec::with_capacity(kernels.len());
        for &(name, shared) in kernels {
            let func = self.check("kernel lookup", module.load_function(name))?;
            if shared > SHARED_WITHOUT_OPT_IN && shared <= u64::from(self.shared_limit) {
                let op = "dynamic shared memory opt-in";
                self.check(op, self.ctx.bind_to_thread())?;
                self.check(
                    op,
                    func.set_attribute(
                        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        shared as i32,
                    ),
                )?;
            }
            functions.push(func);
        }
        Ok((module, functions))
    }

    /// The dynamic shared memory of a launch of `kernel`, which needs `needed` bytes; an
    /// error when this GPU cannot give a workgroup that many.
    pub(crate) fn dynamic_shared(&self, kernel: &str, needed: u64) -> Result<u32> {
        let device = format!("{} ({})", self.label, self.name);
        shared_for_launch(kernel, &device, needed, self.shared_limit)
    }

    /// Workgroups of `block` lanes of `func`, each with `shared` bytes of dynamic shared
    /// memory, that fit on one multiprocessor at once.
    pub(crate) fn occupancy(&self, func: &CudaFunction, block: u32, shared: u32) -> Result<u32> {
        self.check("context bind", self.ctx.bind_to_thread())?;
        self.check(
            "occupancy query",
            func.occupancy_max_active_blocks_per_multiprocessor(block, shared as usize, None),
        )
    }

    /// Launches `func`. Safety rests on the caller: `args` were checked against the IR
    /// signature the binary was compiled from.
    pub(crate) fn launch(
        &self,
        stream: &CudaStream,
        func: &CudaFunction,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        args: &[ArgBits],
    ) -> Result<()> {
        let mut builder = stream.launch_builder(func);
        for arg in args {
            match arg {
                ArgBits::B8(v) => builder.arg(v),
                ArgBits::B16(v) => builder.arg(v),
                ArgBits::B32(v) => builder.arg(v),
                ArgBits::B64(v) => builder.arg(v),
            };
        }
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (block[0], block[1], block[2]),
            shared_mem_bytes: shared,
        };
        self.check("kernel launch", unsafe { builder.launch(cfg) })
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory_within_the_limit_is_the_dynamic_size() {
        assert_eq!(shared_for_launch("k", "cuda:0", 0, 232_448).unwrap(), 0);
        assert_eq!(
            shared_for_launch("k", "cuda:0", 65_536, 232_448).unwrap(),
            65_536
        );
        assert_eq!(
            shared_for_launch("k", "cuda:0", 232_448, 232_448).unwrap(),
            232_448
        );
    }

    #[test]
    fn shared_memory_over_the_limit_is_refused_with_kernel_bytes_and_limit() {
        let msg = shared_for_launch("gemm", "cuda:1 (NVIDIA H200)", 65_536, 49_152)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("launch of `gemm`:")
                && msg.contains("65536 bytes")
                && msg.contains("cuda:1 (NVIDIA H200)")
                && msg.contains("49152"),
            "{msg}"
        );
        // Sizes beyond u32 are refused rather than truncated.
        let msg = shared_for_launch("huge", "cuda:0", 1 << 32, u32::MAX)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("4294967296 bytes"), "{msg}");
    }
}
