//! The CPU backend: the IR interpreter of `kosmos-cpu`, which runs launches synchronously.
//! Its modules are the IR itself, its streams have nothing to queue (a capturing stream
//! keeps its launches to replay them), and its events are host clock readings.

use crate::backend::{Backend, DeviceOps, KernelRef};
use crate::device::DeviceKind;
use crate::error::{Error, Result};
use crate::image::ModuleImage;
use crate::module::{ArgRepr, KernelArg, KernelShape, LaunchConfig};
use kosmos_cpu::{Arg, CpuConfig, CpuDevice, CpuError};
use kosmos_ir::VerifiedKernel;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub(crate) struct CpuBackend {
    device: CpuDevice,
    /// Tells this device from the other CPU devices of the process in memory handles.
    id: u64,
}

/// Source of [`CpuBackend::id`]s.
static NEXT_CPU_ID: AtomicU64 = AtomicU64::new(0);

/// The tag that opens a CPU device's memory handle.
const CPU_HANDLE_TAG: &[u8; 4] = b"kcpu";

impl CpuBackend {
    /// A CPU device running up to `resident` workgroups at once (its default when `None`).
    pub(crate) fn new(resident: Option<u32>) -> CpuBackend {
        let mut config = CpuConfig::default();
        if let Some(n) = resident {
            config.max_resident_workgroups = n as usize;
        }
        CpuBackend {
            device: CpuDevice::with_config(config),
            id: NEXT_CPU_ID.fetch_add(1, Ordering::Relaxed),
        }
    }
}

impl DeviceOps for CpuBackend {
    fn kind(&self) -> DeviceKind {
        DeviceKind::Cpu
    }

    fn ordinal(&self) -> usize {
        0
    }

    fn name(&self) -> &str {
        "cpu"
    }

    fn compute_units(&self) -> Option<u32> {
        None
    }

    fn max_shared_bytes(&self) -> Option<u64> {
        None
    }

    /// Lanes of a subgroup, as the interpreter forms them.
    fn subgroup_size(&self) -> u32 {
        self.device.config().subgroup_size
    }

    /// Launches finish before they return: nothing is ever outstanding.
    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn alloc(&self, bytes: usize) -> Result<u64> {
        Ok(self.device.alloc(bytes as u64)?)
    }

    fn free(&self, addr: u64) -> Result<()> {
        Ok(self.device.free(addr)?)
    }

    fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        Ok(self.device.write(addr, data)?)
    }

    fn read(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        Ok(self.device.read(addr, out)?)
    }

    /// Each CPU device has an address space of its own.
    fn unified_addressing(&self) -> Result<bool> {
        Ok(false)
    }

    /// The CPU device's memory is this process's: its handle (tag, process, device,
    /// address) opens only in worlds of this process on the same device, as the memory
    /// itself.
    fn export_memory(&self, addr: u64) -> Result<Vec<u8>> {
        let mut h = CPU_HANDLE_TAG.to_vec();
        h.extend(std::process::id().to_le_bytes());
        h.extend(self.id.to_le_bytes());
        h.extend(addr.to_le_bytes());
        Ok(h)
    }

    fn import_memory(&self, handle: &[u8]) -> Result<u64> {
        let refuse = |reason: &str| Error::Unavailable {
            device: "cpu".into(),
            reason: reason.into(),
        };
        let [t0, t1, t2, t3, p0, p1, p2, p3, rest @ ..] = handle else {
            return Err(refuse("not a CPU device memory handle"));
        };
        if [*t0, *t1, *t2, *t3] != *CPU_HANDLE_TAG || rest.len() != 16 {
            return Err(refuse("not a CPU device memory handle"));
        }
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
        if u32::from_le_bytes([*p0, *p1, *p2, *p3]) != std::process::id() {
            return Err(refuse(
                "CPU device memory is not shared between processes (a world of several processes needs GPUs)",
            ));
        }
        if word(&rest[..8]) != self.id {
            return Err(refuse(
                "the memory belongs to another CPU device (the ranks of a joined CPU world share one device)",
            ));
        }
        Ok(word(&rest[8..]))
    }

    /// The exporter's memory was never mapped anew: nothing to undo.
    fn close_imported(&self, _addr: u64) -> Result<()> {
        Ok(())
    }
}

/// A CPU stream: launches run in the calling thread, so there is nothing to queue; only
/// how long a launch may run, and the launches of a capture in progress.
pub(crate) struct CpuStream {
    /// A bound of the stream's own on each launch (the shorter of it and
    /// `CpuConfig::time_limit` applies); `None`: the device's.
    time_limit: Option<Duration>,
    /// `Some` while capturing: the launches queued since `begin_capture`, not yet run.
    capture: Mutex<Option<Vec<CpuLaunch>>>,
}

impl CpuStream {
    fn new(time_limit: Option<Duration>) -> CpuStream {
        CpuStream {
            time_limit,
            capture: Mutex::new(None),
        }
    }

    fn lock_capture(&self) -> MutexGuard<'_, Option<Vec<CpuLaunch>>> {
        // Every change is a single assignment or push: a poisoned lock is still consistent.
        self.capture.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One launch, with everything it needs to run later (a captured graph's element).
pub(crate) struct CpuLaunch {
    kernel: VerifiedKernel,
    config: LaunchConfig,
    args: Vec<Arg>,
}

impl CpuBackend {
    /// Runs `kernel` to completion within `stream`'s time limit.
    fn run(
        &self,
        stream: &CpuStream,
        kernel: &VerifiedKernel,
        config: LaunchConfig,
        args: &[Arg],
    ) -> Result<()> {
        let device_limit = self.device.config().time_limit;
        let limit = stream
            .time_limit
            .map_or(device_limit, |l| l.min(device_limit));
        match self
            .device
            .launch_within(kernel, config.grid, config.block, args, limit)
        {
            Ok(_) => Ok(()),
            Err(CpuError::IndexOutOfBounds {
                kernel,
                origin,
                index,
                len,
                ..
            }) => Err(Error::IndexOutOfBounds {
                kernel,
                origin,
                index,
                len,
            }),
            Err(CpuError::WaitGaveUp {
                kernel,
                origin,
                polls,
                ..
            }) => Err(Error::WaitGaveUp {
                kernel,
                origin,
                polls,
            }),
            Err(e) => Err(e.into()),
        }
    }
}

impl Backend for CpuBackend {
    /// The interpreter runs the IR, which the public `Module` holds.
    type Module = ();
    type Stream = CpuStream;
    type Event = Instant;
    /// The captured launches, in order.
    type Graph = Vec<CpuLaunch>;

    fn load_module(&self, _image: &ModuleImage, _shapes: &[KernelShape]) -> Result<()> {
        Ok(())
    }

    /// Runs the kernel to completion; a capturing stream keeps it for replays instead.
    fn launch(
        &self,
        _module: &(),
        stream: &CpuStream,
        kernel: KernelRef<'_>,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let args: Vec<Arg> = args
            .iter()
            .map(|a| match a.0 {
                ArgRepr::Buffer { addr, .. } => Arg::Slice {
                    addr,
                    bytes: a.buffer_bytes(),
                },
                ArgRepr::Scalar(c) => Arg::Scalar(c),
            })
            .collect();
        if let Some(captured) = stream.lock_capture().as_mut() {
            captured.push(CpuLaunch {
                kernel: kernel.ir.clone(),
                config,
                args,
            });
            return Ok(());
        }
        self.run(stream, kernel.ir, config, &args)
    }

    /// Workgroups that run at once: each is an OS thread, so a persistent grid of this size
    /// never waits on a workgroup that has not started.
    fn max_resident_workgroups(
        &self,
        _module: &(),
        _kernel: KernelRef<'_>,
        _lanes: u32,
    ) -> Result<u32> {
        Ok(u32::try_from(self.device.config().max_resident_workgroups).unwrap_or(u32::MAX))
    }

    fn stream(&self) -> Result<CpuStream> {
        Ok(CpuStream::new(None))
    }

    /// Its launches stop after `limit`, with `CpuError::TimeLimit`.
    fn bounded_stream(&self, limit: Duration) -> Result<CpuStream> {
        Ok(CpuStream::new(Some(limit)))
    }

    fn stream_synchronize(&self, _stream: &CpuStream) -> Result<()> {
        Ok(())
    }

    /// Launches have finished when they return.
    fn stream_complete(&self, _stream: &CpuStream) -> Result<bool> {
        Ok(true)
    }

    /// Launches run when queued: everything queued anywhere has run already.
    fn stream_follow(&self, _stream: &CpuStream, _earlier: &CpuStream) -> Result<()> {
        Ok(())
    }

    fn begin_capture(&self, stream: &CpuStream) -> Result<()> {
        let mut capture = stream.lock_capture();
        if capture.is_some() {
            return Err(Error::Unavailable {
                device: "cpu".into(),
                reason: "the stream is already capturing".into(),
            });
        }
        *capture = Some(Vec::new());
        Ok(())
    }

    fn end_capture(&self, stream: &CpuStream) -> Result<Vec<CpuLaunch>> {
        stream
            .lock_capture()
            .take()
            .ok_or_else(|| Error::Unavailable {
                device: "cpu".into(),
                reason: "the stream is not capturing".into(),
            })
    }

    /// Runs the captured launches in order (the first failure ends the replay).
    fn launch_graph(&self, graph: &Vec<CpuLaunch>, stream: &CpuStream) -> Result<()> {
        graph
            .iter()
            .try_for_each(|l| self.run(stream, &l.kernel, l.config, &l.args))
    }

    /// The host clock: the work queued so far has finished.
    fn record_event(&self, _stream: &CpuStream) -> Result<Instant> {
        Ok(Instant::now())
    }

    /// Launches have finished when they return.
    fn event_complete(&self, _event: &Instant) -> Result<bool> {
        Ok(true)
    }

    fn elapsed_ms(&self, start: &Instant, end: &Instant) -> Result<f32> {
        Ok(if end >= start {
            end.duration_since(*start).as_secs_f32() * 1e3
        } else {
            -(start.duration_since(*end).as_secs_f32() * 1e3)
        })
    }

    fn enable_peer_access(&self, _peer: &CpuBackend) -> Result<std::result::Result<(), String>> {
        Ok(Err("the CPU device has no peer memory access".into()))
    }

    /// Copies through the host; finished when this returns.
    fn copy_from_peer(
        &self,
        _stream: &CpuStream,
        dst: u64,
        peer: &CpuBackend,
        src: u64,
        bytes: usize,
    ) -> Result<()> {
        let mut host = vec![0u8; bytes];
        peer.read(src, &mut host)?;
        self.write(dst, &host)
    }
}
