//! The CUDA backend, through cudarc's driver API (loaded at run time: binaries start without
//! libcuda and report its absence as an error).
//!
//! A kernel's shared memory is one dynamic shared array laid out by
//! [`kosmos_ir::Kernel::shared_layout`]: every launch and occupancy query passes its size, and
//! kernels above the 48 KiB that need no opt-in get
//! `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` when their module is loaded.

use crate::backend::{Backend, DeviceOps, KernelRef};
use crate::buffer::{Buffer, DeviceScalar};
use crate::device::DeviceKind;
use crate::error::{Error, Result};
use crate::image::ModuleImage;
use crate::module::{ArgBits, KernelArg, KernelShape, LaunchConfig};
use crate::tensor_map::{Swizzle, TensorShape};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaModule, CudaStream, DriverError,
    PushKernelArg, result, sys,
};
use std::sync::{Arc, Mutex};

/// Lanes of a warp.
const SUBGROUP_SIZE: u32 = 32;

/// The code-generation target whose binary (PTX) CUDA devices load.
const TARGET: &str = "sm_90a";

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

/// A loaded PTX module and its kernels, in the module's kernel order.
pub(crate) struct PtxModule {
    /// Keeps the functions' module loaded.
    _module: Arc<CudaModule>,
    functions: Vec<CudaFunction>,
}

/// An instantiated graph. The driver's graph handles may be used from any thread, one
/// thread at a time: the backend keeps it behind a mutex.
pub(crate) struct CapturedGraph(CudaGraph);

// SAFETY: the handles are plain driver objects of a context, usable from any thread that
// binds the context (every use goes through cudarc, which binds it); the mutex around it
// serialises the calls, as the driver requires of graph objects.
unsafe impl Send for CapturedGraph {}

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
    ordinal: usize,
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
            ordinal,
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

    /// Binds the context to this thread and waits for all its work: transfers and frees are
    /// ordered after every launch on every stream.
    fn quiesce(&self, op: &'static str) -> Result<()> {
        self.check(op, self.ctx.bind_to_thread())?;
        self.check(op, self.ctx.synchronize())
    }

    /// The dynamic shared memory of a launch of `kernel`, which needs `needed` bytes; an
    /// error when this GPU cannot give a workgroup that many.
    fn dynamic_shared(&self, kernel: &str, needed: u64) -> Result<u32> {
        let device = format!("{} ({})", self.label, self.name);
        shared_for_launch(kernel, &device, needed, self.shared_limit)
    }
}

impl DeviceOps for CudaBackend {
    fn kind(&self) -> DeviceKind {
        DeviceKind::Cuda
    }

    fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute_units(&self) -> Option<u32> {
        Some(self.multiprocessors)
    }

    fn max_shared_bytes(&self) -> Option<u64> {
        Some(self.shared_limit.into())
    }

    fn subgroup_size(&self) -> u32 {
        SUBGROUP_SIZE
    }

    fn synchronize(&self) -> Result<()> {
        self.quiesce("device synchronize")
    }

    fn alloc(&self, bytes: usize) -> Result<u64> {
        self.check("memory allocation", self.ctx.bind_to_thread())?;
        self.check("memory allocation", unsafe { result::malloc_sync(bytes) })
    }

    fn free(&self, addr: u64) -> Result<()> {
        self.quiesce("memory free")?;
        self.check("memory free", unsafe { result::free_sync(addr) })
    }

    /// Finished when it returns: from pageable memory the driver may return before its DMA
    /// has landed, and work on the runtime's streams (non-blocking) does not wait for it.
    fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        self.quiesce("host-to-device copy")?;
        self.check("host-to-device copy", unsafe {
            result::memcpy_htod_sync(addr, data)
        })?;
        self.quiesce("host-to-device copy")
    }

    fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        self.quiesce("device-to-host copy")?;
        self.check("device-to-host copy", unsafe {
            result::memcpy_dtoh_sync(out, addr)
        })
    }

    fn memset(&self, addr: u64, pattern: &[u8], count: usize) -> Result<bool> {
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
        // The memset is queued on the legacy stream, which the runtime's (non-blocking)
        // streams do not wait for: finish it here, as a fill promises.
        self.quiesce("memset")?;
        Ok(true)
    }

    /// A `CUipcMemHandle` of the allocation at `addr` (a `cuMemAlloc` allocation's start).
    fn export_memory(&self, addr: u64) -> Result<Vec<u8>> {
        let op = "IPC handle export";
        self.check(op, self.ctx.bind_to_thread())?;
        let mut handle = sys::CUipcMemHandle_st { reserved: [0; 64] };
        self.check(
            op,
            unsafe { sys::cuIpcGetMemHandle(&mut handle, addr) }.result(),
        )?;
        Ok(handle.reserved.iter().map(|&b| b as u8).collect())
    }

    /// Opens another process's `CUipcMemHandle` (enabling peer access if the memory is on
    /// another GPU). The driver refuses handles of this process's own memory.
    fn import_memory(&self, handle: &[u8]) -> Result<u64> {
        let op = "IPC handle import";
        let mut h = sys::CUipcMemHandle_st { reserved: [0; 64] };
        if handle.len() != h.reserved.len() {
            return Err(Error::Unavailable {
                device: self.label.clone(),
                reason: format!("a CUDA IPC handle has 64 bytes, not {}", handle.len()),
            });
        }
        for (d, &b) in h.reserved.iter_mut().zip(handle) {
            *d = b as _;
        }
        self.check(op, self.ctx.bind_to_thread())?;
        let mut addr = 0;
        let flags = sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
        self.check(
            op,
            unsafe { sys::cuIpcOpenMemHandle_v2(&mut addr, h, flags) }.result(),
        )?;
        Ok(addr)
    }

    fn close_imported(&self, addr: u64) -> Result<()> {
        self.quiesce("IPC mapping close")?;
        self.check(
            "IPC mapping close",
            unsafe { sys::cuIpcCloseMemHandle(addr) }.result(),
        )
    }

    /// `CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING`: then every allocation of every device has
    /// a distinct address, and a peer's buffer is reachable at its own address.
    fn unified_addressing(&self) -> Result<bool> {
        let v = self.check(
            "unified addressing query",
            self.ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
        )?;
        Ok(v != 0)
    }
}

impl Backend for CudaBackend {
    type Module = PtxModule;
    type Stream = Arc<CudaStream>;
    type Event = CudaEvent;
    type Graph = Mutex<CapturedGraph>;

    /// Loads the PTX and looks up every kernel in it; raises the dynamic shared limit of
    /// those above 48 KiB that the device can hold (the others are refused at launch by
    /// [`CudaBackend::dynamic_shared`]).
    fn load_module(&self, image: &ModuleImage, shapes: &[KernelShape]) -> Result<PtxModule> {
        let missing = || Error::MissingBinary {
            binary: "PTX".into(),
            device: self.label.clone(),
        };
        let ptx = image.binary(TARGET).ok_or_else(missing)?;
        let ptx = std::str::from_utf8(ptx).map_err(|_| Error::Unavailable {
            device: self.label.clone(),
            reason: "the module's PTX is not UTF-8 text".into(),
        })?;
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
        let mut functions = Vec::with_capacity(shapes.len());
        for (kernel, shape) in image.ir.kernels().iter().zip(shapes) {
            let func = self.check("kernel lookup", module.load_function(&kernel.name))?;
            let shared = shape.shared_bytes;
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
        Ok(PtxModule {
            _module: module,
            functions,
        })
    }

    /// Safety rests on the caller: `args` were checked against the IR signature the binary
    /// was compiled from.
    fn launch(
        &self,
        module: &PtxModule,
        stream: &Arc<CudaStream>,
        kernel: KernelRef<'_>,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let shared = self.dynamic_shared(&kernel.ir.name, kernel.shape.shared_bytes)?;
        let bits = ArgBits::of_launch(args, kernel.bounds_record);
        let mut builder = stream.launch_builder(&module.functions[kernel.index]);
        for arg in &bits {
            match arg {
                ArgBits::B8(v) => builder.arg(v),
                ArgBits::B16(v) => builder.arg(v),
                ArgBits::B32(v) => builder.arg(v),
                ArgBits::B64(v) => builder.arg(v),
            };
        }
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (gx, gy, gz),
            block_dim: (bx, by, bz),
            shared_mem_bytes: shared,
        };
        self.check("kernel launch", unsafe { builder.launch(cfg) })
            .map(|_| ())
    }

    /// Occupancy per multiprocessor, with the kernel's dynamic shared memory, times the
    /// multiprocessors.
    fn max_resident_workgroups(
        &self,
        module: &PtxModule,
        kernel: KernelRef<'_>,
        lanes: u32,
    ) -> Result<u32> {
        let shared = self.dynamic_shared(&kernel.ir.name, kernel.shape.shared_bytes)?;
        self.check("context bind", self.ctx.bind_to_thread())?;
        let per_sm = self.check(
            "occupancy query",
            module.functions[kernel.index].occupancy_max_active_blocks_per_multiprocessor(
                lanes,
                shared as usize,
                None,
            ),
        )?;
        crate::backend::resident_on_device(&self.label, per_sm, self.multiprocessors)
    }

    fn stream(&self) -> Result<Arc<CudaStream>> {
        self.check("stream creation", self.ctx.new_stream())
    }

    /// The stream of another library (PyTorch's current stream), in the primary context this
    /// backend shares with the CUDA runtime; handle 0 is the legacy default stream.
    unsafe fn borrowed_stream(&self, handle: u64) -> Result<Arc<CudaStream>> {
        // SAFETY: the caller promises a live stream of this context; cudarc's wrapper does
        // not destroy it on drop.
        Ok(unsafe {
            self.ctx
                .wrap_borrowed_stream(handle as usize as sys::CUstream)
        })
    }

    fn stream_follow(&self, stream: &Arc<CudaStream>, earlier: &Arc<CudaStream>) -> Result<()> {
        if stream.cu_stream() == earlier.cu_stream() {
            return Ok(());
        }
        // The event may go at once: the wait keeps what it needs.
        let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING;
        let event = self.check("event record", earlier.record_event(Some(flags)))?;
        self.check("stream wait", stream.wait(&event))
    }

    fn stream_synchronize(&self, stream: &Arc<CudaStream>) -> Result<()> {
        self.check("stream synchronize", stream.synchronize())
    }

    fn stream_complete(&self, stream: &Arc<CudaStream>) -> Result<bool> {
        self.check("stream query", self.ctx.bind_to_thread())?;
        // SAFETY: a live stream of this context, which is current.
        match unsafe { sys::cuStreamQuery(stream.cu_stream()) } {
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => self.check("stream query", e.result()).map(|()| true),
        }
    }

    fn record_event(&self, stream: &Arc<CudaStream>) -> Result<CudaEvent> {
        self.check(
            "event record",
            stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)),
        )
    }

    /// Relaxed capture mode: the world's checks before a launch (occupancy queries) are
    /// not stream work, and nothing else runs on these streams meanwhile.
    fn begin_capture(&self, stream: &Arc<CudaStream>) -> Result<()> {
        self.check(
            "stream capture",
            stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED),
        )
    }

    fn end_capture(&self, stream: &Arc<CudaStream>) -> Result<Mutex<CapturedGraph>> {
        let graph = self.check(
            "stream capture",
            stream.end_capture(sys::CUgraphInstantiate_flags(0)),
        )?;
        let graph = graph.ok_or_else(|| Error::Unavailable {
            device: self.label.clone(),
            reason: "the stream capture recorded no graph".into(),
        })?;
        Ok(Mutex::new(CapturedGraph(graph)))
    }

    fn launch_graph(&self, graph: &Mutex<CapturedGraph>, _stream: &Arc<CudaStream>) -> Result<()> {
        // A cudarc graph launches on the stream it was captured from.
        let graph = graph.lock().unwrap_or_else(|e| e.into_inner());
        self.check("graph launch", graph.0.launch())
    }

    fn event_complete(&self, event: &CudaEvent) -> Result<bool> {
        self.check("event query", self.ctx.bind_to_thread())?;
        self.check("event query", event.try_is_complete())
    }

    fn elapsed_ms(&self, start: &CudaEvent, end: &CudaEvent) -> Result<f32> {
        self.check("event elapsed time", start.elapsed_ms(end))
    }

    /// Refused without native atomics on the link: the scheduling protocol needs
    /// system-scope atomics on peer memory.
    fn enable_peer_access(&self, peer: &CudaBackend) -> Result<std::result::Result<(), String>> {
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

    /// Through the driver's copy path (`cuMemcpyPeerAsync`).
    fn copy_from_peer(
        &self,
        stream: &Arc<CudaStream>,
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
}

/// The driver's encoding of a tensor map of `buffer` (checked by `TensorMap::tiled`):
/// 2-D, element (0, 0) at the buffer's start, zeros for elements outside the tensor, boxes
/// promoted to L2 in 256-byte lines.
pub(crate) fn encode_tensor_map<T: DeviceScalar>(
    buffer: &Buffer<T>,
    shape: TensorShape,
    swizzle: Swizzle,
) -> Result<[u64; kosmos_ir::async_copy::TENSOR_MAP_WORDS]> {
    use sys::{
        CUtensorMapFloatOOBfill as Fill, CUtensorMapInterleave as Interleave,
        CUtensorMapL2promotion as L2, CUtensorMapSwizzle as Sw,
    };
    let elem = T::SCALAR_TYPE;
    let data_type = tensor_data_type(elem)
        .expect("TensorMap::tiled takes only element types the copy engine knows");
    let e = u64::from(elem.size_bytes());
    // Inner dimension first; strides of every dimension but the first, in bytes.
    let dims = [shape.cols, shape.rows];
    let strides = [shape.row_stride * e];
    let boxes = [shape.box_cols, shape.box_rows];
    let element_strides = [1u32, 1];
    let swizzle = match swizzle {
        Swizzle::None => Sw::CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::B128 => Sw::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: every pointer is to a live array of the rank (2) the call reads, `map` is the
    // out-parameter; the driver only encodes, touching no memory at the buffer's address.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            data_type,
            2,
            buffer.device_ptr() as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            Interleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            L2::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            Fill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    r.result().map_err(|source| Error::Cuda {
        device: buffer.device().to_string(),
        op: "cuTensorMapEncodeTiled",
        source,
    })?;
    Ok(map.opaque)
}

/// The copy engine's name for elements of `t`, if it has one.
pub(crate) fn tensor_data_type(t: kosmos_ir::ScalarType) -> Option<sys::CUtensorMapDataType> {
    use kosmos_ir::ScalarType as S;
    use sys::CUtensorMapDataType as D;
    Some(match t {
        S::U8 => D::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        S::U16 => D::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        S::U32 => D::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        S::I32 => D::CU_TENSOR_MAP_DATA_TYPE_INT32,
        S::U64 => D::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        S::I64 => D::CU_TENSOR_MAP_DATA_TYPE_INT64,
        S::F16 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        S::F32 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        S::F64 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        S::BF16 => D::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        _ => return None,
    })
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
