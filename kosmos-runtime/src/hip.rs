//! The HIP backend (feature `hip`), through hip-sys' raw bindings of the HIP runtime.

use crate::backend::{Backend, DeviceOps, KernelRef};
use crate::device::DeviceKind;
use crate::error::{Error, Result};
use crate::image::ModuleImage;
use crate::module::{ArgBits, KernelArg, KernelShape, LaunchConfig};
use hip_sys::hiprt::{self as hip, hipError_t};
use std::ffi::{CStr, CString, c_void};
use std::ptr;

fn error_text(e: hipError_t) -> String {
    // hipGetErrorString returns a static string (or null for unknown codes).
    let text = unsafe { hip::hipGetErrorString(e) };
    if text.is_null() {
        format!("{e:?}")
    } else {
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Number of HIP devices, or why there are none to be had.
pub(crate) fn device_count() -> Result<usize> {
    let mut count = 0;
    match unsafe { hip::hipGetDeviceCount(&mut count) } {
        hipError_t::hipSuccess => Ok(count.max(0) as usize),
        hipError_t::hipErrorNoDevice => Ok(0),
        e => Err(Error::Unavailable {
            device: "hip".into(),
            reason: format!("hipGetDeviceCount failed: {}", error_text(e)),
        }),
    }
}

pub(crate) struct HipBackend {
    /// The device's index, as the HIP API takes it.
    ordinal: i32,
    label: String,
    name: String,
    /// The gfx target without feature suffixes, e.g. `gfx942`.
    arch: String,
    multiprocessors: u32,
    /// Lanes of a wavefront (64 on MI300).
    subgroup_size: u32,
}

/// A stream owned by the runtime.
pub(crate) struct HipStream(hip::hipStream_t);
/// A timing event owned by the runtime.
pub(crate) struct HipEvent(hip::hipEvent_t);
/// A loaded code object and its kernels, in the module's kernel order.
pub(crate) struct HipModule {
    module: hip::hipModule_t,
    /// `None` for a kernel with more LDS than the device has, which the build leaves out of
    /// the binary.
    functions: Vec<Option<hip::hipFunction_t>>,
}

/// LDS per workgroup on `arch`, as the code generator budgets it (its binaries leave out
/// kernels that need more).
fn lds_limit(arch: &str) -> u64 {
    match arch {
        "gfx950" => 160 * 1024,
        _ => 64 * 1024,
    }
}

// HIP handles may be used from any thread once the device is made current there.
unsafe impl Send for HipStream {}
unsafe impl Sync for HipStream {}
unsafe impl Send for HipEvent {}
unsafe impl Sync for HipEvent {}
unsafe impl Send for HipModule {}
unsafe impl Sync for HipModule {}

impl Drop for HipStream {
    fn drop(&mut self) {
        unsafe { hip::hipStreamDestroy(self.0) };
    }
}

impl Drop for HipEvent {
    fn drop(&mut self) {
        unsafe { hip::hipEventDestroy(self.0) };
    }
}

impl Drop for HipModule {
    fn drop(&mut self) {
        unsafe { hip::hipModuleUnload(self.module) };
    }
}

fn c_chars_to_string(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl HipBackend {
    pub(crate) fn open(ordinal: usize) -> Result<HipBackend> {
        let label = format!("hip:{ordinal}");
        let count = device_count()?;
        if ordinal >= count {
            return Err(Error::Unavailable {
                device: label,
                reason: format!("this machine has {count} HIP device(s)"),
            });
        }
        let mut backend = HipBackend {
            ordinal: ordinal as i32,
            label,
            name: String::new(),
            arch: String::new(),
            multiprocessors: 0,
            subgroup_size: 0,
        };
        let mut props = std::mem::MaybeUninit::<hip::hipDeviceProp_t>::zeroed();
        backend.check("device properties", unsafe {
            hip::hipGetDeviceProperties(props.as_mut_ptr(), backend.ordinal)
        })?;
        let props = unsafe { props.assume_init() };
        backend.name = c_chars_to_string(&props.name);
        let arch = c_chars_to_string(&props.gcnArchName);
        // gcnArchName carries target features (`gfx942:sramecc+:xnack-`); binaries are chosen
        // by the processor alone.
        backend.arch = arch.split(':').next().unwrap_or_default().to_string();
        backend.multiprocessors = props.multiProcessorCount.max(0) as u32;
        backend.subgroup_size = props.warpSize.max(1) as u32;
        Ok(backend)
    }

    /// The function of `kernel`, or an error naming the LDS it needs when the binary has none.
    fn function(&self, module: &HipModule, kernel: &KernelRef<'_>) -> Result<hip::hipFunction_t> {
        module.functions[kernel.index].ok_or_else(|| {
            let needed = kernel.shape.shared_bytes;
            let limit = lds_limit(&self.arch);
            Error::invalid_launch(
                &kernel.ir.name,
                format!(
                    "the kernel needs {needed} bytes of shared memory, but {} ({}) allows a \
                     workgroup at most {limit}",
                    self.label, self.arch
                ),
            )
        })
    }

    fn check(&self, op: &'static str, e: hipError_t) -> Result<()> {
        match e {
            hipError_t::hipSuccess => Ok(()),
            e => Err(Error::Hip {
                device: self.label.clone(),
                op,
                message: error_text(e),
            }),
        }
    }

    /// Makes this device current on the calling thread (HIP keeps it per thread).
    fn bind(&self, op: &'static str) -> Result<()> {
        self.check(op, unsafe { hip::hipSetDevice(self.ordinal) })
    }

    /// Waits for all work of the device: transfers and frees are ordered after every launch.
    fn quiesce(&self, op: &'static str) -> Result<()> {
        self.bind(op)?;
        self.check(op, unsafe { hip::hipDeviceSynchronize() })
    }
}

impl DeviceOps for HipBackend {
    fn kind(&self) -> DeviceKind {
        DeviceKind::Hip
    }

    fn ordinal(&self) -> usize {
        self.ordinal as usize
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn compute_units(&self) -> Option<u32> {
        Some(self.multiprocessors)
    }

    fn max_shared_bytes(&self) -> Option<u64> {
        Some(lds_limit(&self.arch))
    }

    fn subgroup_size(&self) -> u32 {
        self.subgroup_size
    }

    fn synchronize(&self) -> Result<()> {
        self.quiesce("device synchronize")
    }

    fn alloc(&self, bytes: usize) -> Result<u64> {
        self.bind("memory allocation")?;
        let mut p: *mut c_void = ptr::null_mut();
        self.check("memory allocation", unsafe {
            hip::hipMalloc(&mut p, bytes)
        })?;
        Ok(p as u64)
    }

    fn free(&self, addr: u64) -> Result<()> {
        self.quiesce("memory free")?;
        self.check("memory free", unsafe { hip::hipFree(addr as *mut c_void) })
    }

    /// Finished when it returns, as on CUDA: the runtime's streams need not wait for the
    /// null stream's copies.
    fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        self.quiesce("host-to-device copy")?;
        self.check("host-to-device copy", unsafe {
            hip::hipMemcpyHtoD(
                addr as *mut c_void,
                data.as_ptr() as *mut c_void,
                data.len(),
            )
        })?;
        self.quiesce("host-to-device copy")
    }

    fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        self.quiesce("device-to-host copy")?;
        self.check("device-to-host copy", unsafe {
            hip::hipMemcpyDtoH(
                out.as_mut_ptr() as *mut c_void,
                addr as *mut c_void,
                out.len(),
            )
        })
    }

    fn memset(&self, addr: u64, pattern: &[u8], count: usize) -> Result<bool> {
        self.quiesce("memset")?;
        let dst = addr as *mut c_void;
        let e = unsafe {
            match *pattern {
                [b] => hip::hipMemsetD8(dst, b, count),
                [a, b] => hip::hipMemsetD16(dst, u16::from_ne_bytes([a, b]), count),
                [a, b, c, d] => hip::hipMemsetD32(dst, i32::from_ne_bytes([a, b, c, d]), count),
                _ => return Ok(false),
            }
        };
        self.check("memset", e)?;
        // Finished when it returns, as on CUDA.
        self.quiesce("memset")?;
        Ok(true)
    }

    /// Allocates fine-grained device memory (`hipDeviceMallocFinegrained`): the memory
    /// that signals and control words polled by other GPUs must live in, since
    /// system-scope atomics and release/acquire are coherent across devices only there
    /// (coarse-grained memory is made visible to peers only at kernel boundaries).
    fn alloc_peer_visible(&self, bytes: usize) -> Result<u64> {
        self.bind("fine-grained allocation")?;
        let mut p: *mut c_void = ptr::null_mut();
        self.check("fine-grained allocation", unsafe {
            hip::hipExtMallocWithFlags(&mut p, bytes, hip::hipDeviceMallocFinegrained)
        })?;
        Ok(p as u64)
    }

    /// A `hipIpcMemHandle_t` of the allocation at `addr`.
    fn export_memory(&self, addr: u64) -> Result<Vec<u8>> {
        let op = "IPC handle export";
        self.bind(op)?;
        let mut handle = hip::hipIpcMemHandle_st { reserved: [0; 64] };
        self.check(op, unsafe {
            hip::hipIpcGetMemHandle(&mut handle, addr as *mut c_void)
        })?;
        Ok(handle.reserved.iter().map(|&b| b as u8).collect())
    }

    /// Opens another process's `hipIpcMemHandle_t`.
    fn import_memory(&self, handle: &[u8]) -> Result<u64> {
        let op = "IPC handle import";
        let mut h = hip::hipIpcMemHandle_st { reserved: [0; 64] };
        if handle.len() != h.reserved.len() {
            return Err(Error::Unavailable {
                device: self.label.clone(),
                reason: format!("a HIP IPC handle has 64 bytes, not {}", handle.len()),
            });
        }
        for (d, &b) in h.reserved.iter_mut().zip(handle) {
            *d = b as _;
        }
        self.bind(op)?;
        let mut p: *mut c_void = ptr::null_mut();
        self.check(op, unsafe {
            hip::hipIpcOpenMemHandle(&mut p, h, hip::hipIpcMemLazyEnablePeerAccess)
        })?;
        Ok(p as u64)
    }

    fn close_imported(&self, addr: u64) -> Result<()> {
        self.quiesce("IPC mapping close")?;
        self.check("IPC mapping close", unsafe {
            hip::hipIpcCloseMemHandle(addr as *mut c_void)
        })
    }

    /// `hipDeviceAttributeUnifiedAddressing`: then peers' buffers keep their addresses.
    fn unified_addressing(&self) -> Result<bool> {
        let mut v = 0;
        self.check("unified addressing query", unsafe {
            hip::hipDeviceGetAttribute(
                &mut v,
                hip::hipDeviceAttribute_t::hipDeviceAttributeUnifiedAddressing,
                self.ordinal,
            )
        })?;
        Ok(v != 0)
    }
}

impl Backend for HipBackend {
    type Module = HipModule;
    type Stream = HipStream;
    type Event = HipEvent;
    /// Graphs are not captured on HIP yet (`Backend::begin_capture` says so).
    type Graph = ();

    /// Loads the code object of the GPU's processor and looks up every kernel in it.
    fn load_module(&self, image: &ModuleImage, _shapes: &[KernelShape]) -> Result<HipModule> {
        let hsaco = image
            .binary(&self.arch)
            .ok_or_else(|| Error::MissingBinary {
                binary: format!("HSACO for {}", self.arch),
                device: self.label.clone(),
            })?;
        self.bind("module load")?;
        let mut m = ptr::null_mut();
        self.check("module load", unsafe {
            hip::hipModuleLoadData(&mut m, hsaco.as_ptr() as *const c_void)
        })?;
        let mut module = HipModule {
            module: m,
            functions: Vec::with_capacity(image.ir.kernels().len()),
        };
        for kernel in image.ir.kernels() {
            if kernel.shared_layout().1 > lds_limit(&self.arch) {
                module.functions.push(None);
                continue;
            }
            let name = &kernel.name;
            let c_name = CString::new(name.as_str()).map_err(|_| Error::Hip {
                device: self.label.clone(),
                op: "kernel lookup",
                message: format!("kernel name `{name}` contains a NUL byte"),
            })?;
            let mut f = ptr::null_mut();
            self.check("kernel lookup", unsafe {
                hip::hipModuleGetFunction(&mut f, module.module, c_name.as_ptr())
            })?;
            module.functions.push(Some(f));
        }
        Ok(module)
    }

    /// Launches with a parameter array and no dynamic LDS (kernels' LDS is static on AMD,
    /// part of the code object). Safety rests on the caller: `args` were checked against
    /// the IR signature the binary was compiled from.
    fn launch(
        &self,
        module: &HipModule,
        stream: &HipStream,
        kernel: KernelRef<'_>,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.bind("kernel launch")?;
        let bits = ArgBits::of_launch(args, kernel.bounds_record);
        let mut params: Vec<*mut c_void> = bits.iter().map(ArgBits::as_ptr).collect();
        let ([gx, gy, gz], [bx, by, bz]) = (config.grid, config.block);
        let function = self.function(module, &kernel)?;
        self.check("kernel launch", unsafe {
            hip::hipModuleLaunchKernel(
                function,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                0,
                stream.0,
                params.as_mut_ptr(),
                ptr::null_mut(),
            )
        })
    }

    /// Occupancy per compute unit (no dynamic LDS, as in launches) times the compute units.
    fn max_resident_workgroups(
        &self,
        module: &HipModule,
        kernel: KernelRef<'_>,
        lanes: u32,
    ) -> Result<u32> {
        self.bind("occupancy query")?;
        let function = self.function(module, &kernel)?;
        let mut n = 0;
        self.check("occupancy query", unsafe {
            hip::hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                function,
                lanes as i32,
                0,
            )
        })?;
        crate::backend::resident_on_device(&self.label, n.max(0) as u32, self.multiprocessors)
    }

    fn stream(&self) -> Result<HipStream> {
        self.bind("stream creation")?;
        let mut s = ptr::null_mut();
        self.check("stream creation", unsafe { hip::hipStreamCreate(&mut s) })?;
        Ok(HipStream(s))
    }

    fn stream_synchronize(&self, stream: &HipStream) -> Result<()> {
        self.bind("stream synchronize")?;
        self.check("stream synchronize", unsafe {
            hip::hipStreamSynchronize(stream.0)
        })
    }

    fn stream_complete(&self, stream: &HipStream) -> Result<bool> {
        self.bind("stream query")?;
        match unsafe { hip::hipStreamQuery(stream.0) } {
            hipError_t::hipErrorNotReady => Ok(false),
            e => self.check("stream query", e).map(|()| true),
        }
    }

    fn stream_follow(&self, stream: &HipStream, earlier: &HipStream) -> Result<()> {
        if stream.0 == earlier.0 {
            return Ok(());
        }
        // Dropping the event destroys it; the wait keeps what it needs.
        let event = self.record_event(earlier)?;
        self.check("stream wait", unsafe {
            hip::hipStreamWaitEvent(stream.0, event.0, 0)
        })
    }

    fn record_event(&self, stream: &HipStream) -> Result<HipEvent> {
        self.bind("event record")?;
        let mut e = ptr::null_mut();
        self.check("event creation", unsafe { hip::hipEventCreate(&mut e) })?;
        let event = HipEvent(e);
        self.check("event record", unsafe {
            hip::hipEventRecord(event.0, stream.0)
        })?;
        Ok(event)
    }

    fn event_complete(&self, event: &HipEvent) -> Result<bool> {
        self.bind("event query")?;
        match unsafe { hip::hipEventQuery(event.0) } {
            hipError_t::hipErrorNotReady => Ok(false),
            e => self.check("event query", e).map(|()| true),
        }
    }

    fn elapsed_ms(&self, start: &HipEvent, end: &HipEvent) -> Result<f32> {
        self.bind("event elapsed time")?;
        self.check("event synchronize", unsafe {
            hip::hipEventSynchronize(end.0)
        })?;
        let mut ms = 0f32;
        self.check("event elapsed time", unsafe {
            hip::hipEventElapsedTime(&mut ms, start.0, end.0)
        })?;
        Ok(ms)
    }

    /// Refused without native atomics on the link: the scheduling protocol needs
    /// system-scope atomics on peer memory.
    fn enable_peer_access(&self, peer: &HipBackend) -> Result<std::result::Result<(), String>> {
        let op = "peer access";
        let mut can = 0;
        self.check(op, unsafe {
            hip::hipDeviceCanAccessPeer(&mut can, self.ordinal, peer.ordinal)
        })?;
        if can == 0 {
            return Ok(Err("hipDeviceCanAccessPeer says no".into()));
        }
        let mut atomics = 0;
        self.check(op, unsafe {
            hip::hipDeviceGetP2PAttribute(
                &mut atomics,
                hip::hipDeviceP2PAttr::hipDevP2PAttrNativeAtomicSupported,
                self.ordinal,
                peer.ordinal,
            )
        })?;
        if atomics == 0 {
            return Ok(Err(
                "the link has no native atomics (hipDevP2PAttrNativeAtomicSupported = 0)".into(),
            ));
        }
        // Peer access is granted to the current device.
        self.bind(op)?;
        match unsafe { hip::hipDeviceEnablePeerAccess(peer.ordinal, 0) } {
            hipError_t::hipSuccess | hipError_t::hipErrorPeerAccessAlreadyEnabled => Ok(Ok(())),
            e => self.check(op, e).map(Ok),
        }
    }

    /// Through the runtime's copy path (`hipMemcpyPeerAsync`).
    fn copy_from_peer(
        &self,
        stream: &HipStream,
        dst: u64,
        peer: &HipBackend,
        src: u64,
        bytes: usize,
    ) -> Result<()> {
        self.bind("peer copy")?;
        self.check("peer copy", unsafe {
            hip::hipMemcpyPeerAsync(
                dst as *mut c_void,
                self.ordinal,
                src as *const c_void,
                peer.ordinal,
                bytes,
                stream.0,
            )
        })
    }
}
