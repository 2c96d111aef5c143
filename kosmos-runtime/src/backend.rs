//! The interface each kind of device implements — [`DeviceOps`] and [`Backend`], in `cpu`,
//! `cuda` and `hip` — and its object-safe form [`DynBackend`], which a [`Device`] holds.
//!
//! A backend's modules, streams and events are its own types ([`Backend::Module`] ...). The
//! public [`Module`](crate::Module), [`Stream`](crate::Stream) and [`Event`](crate::Event)
//! hold them type-erased ([`Object`]) next to their device, and only that device's backend
//! turns them back into its types, in the one blanket implementation of [`DynBackend`]. The
//! public types compare devices before pairing objects in a call, so a backend always gets
//! back objects it made; the downcasts still fail with an error rather than a panic.

use crate::device::{Device, DeviceKind};
use crate::error::{Error, Result};
use crate::image::ModuleImage;
use crate::module::{KernelArg, KernelShape, LaunchConfig};
use kosmos_ir::VerifiedKernel;
use std::any::Any;
use std::time::Duration;

/// A backend's module, stream or event, as the public types hold it.
pub(crate) type Object = Box<dyn Any + Send + Sync>;

/// A kernel of a loaded module, as the backends receive it for launches and queries.
#[derive(Copy, Clone)]
pub(crate) struct KernelRef<'a> {
    pub(crate) ir: &'a VerifiedKernel,
    /// Position in the module's IR, which is also its position among the backend's
    /// functions of the module.
    pub(crate) index: usize,
    pub(crate) shape: KernelShape,
    /// The device address of the kernel's bounds record (0 on the CPU device), the last
    /// argument of its GPU launches.
    pub(crate) bounds_record: u64,
}

/// What a device does without modules, streams or events: queries and memory.
pub(crate) trait DeviceOps: Send + Sync + 'static {
    fn kind(&self) -> DeviceKind;
    /// Index among the devices of its kind.
    fn ordinal(&self) -> usize;
    /// Product name; `cpu` for the CPU device.
    fn name(&self) -> &str;
    /// SMs or CUs; `None` where the notion does not apply.
    fn compute_units(&self) -> Option<u32>;
    /// The most shared memory one workgroup may have, in bytes (with opt-in where the
    /// device asks for it); `None` where nothing bounds it (the CPU device).
    fn max_shared_bytes(&self) -> Option<u64>;
    fn subgroup_size(&self) -> u32;
    /// Waits for all work submitted to the device.
    fn synchronize(&self) -> Result<()>;
    fn alloc(&self, bytes: usize) -> Result<u64>;
    /// Memory that peers on other GPUs may write and poll with system-scope atomics; plain
    /// memory unless the backend says otherwise.
    fn alloc_peer_visible(&self, bytes: usize) -> Result<u64> {
        self.alloc(bytes)
    }
    fn free(&self, addr: u64) -> Result<()>;
    /// A handle by which a world in another process maps the allocation that starts at
    /// `addr` ([`DeviceOps::import_memory`]): an IPC handle on GPUs.
    fn export_memory(&self, _addr: u64) -> Result<Vec<u8>> {
        Err(self.no_sharing())
    }
    /// Maps memory another process exported ([`DeviceOps::export_memory`]) and returns
    /// its address here; [`DeviceOps::close_imported`] unmaps it.
    fn import_memory(&self, _handle: &[u8]) -> Result<u64> {
        Err(self.no_sharing())
    }
    fn close_imported(&self, _addr: u64) -> Result<()> {
        Err(self.no_sharing())
    }
    /// Why [`DeviceOps::export_memory`] and its kin fail on a device without them.
    fn no_sharing(&self) -> Error {
        Error::Unavailable {
            device: Device::label(self.kind(), self.ordinal()),
            reason: "the device cannot share memory between processes".into(),
        }
    }
    fn write(&self, addr: u64, data: &[u8]) -> Result<()>;
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<()>;
    /// Fills `count` elements of `pattern.len()` bytes on the device; false when it has no
    /// memset of that size (the caller then uploads a filled host copy).
    fn memset(&self, _addr: u64, _pattern: &[u8], _count: usize) -> Result<bool> {
        Ok(false)
    }
    /// Whether the device shares one virtual address space with the host and other GPUs.
    fn unified_addressing(&self) -> Result<bool>;
}

/// A kind of device, with its own module, stream and event types.
pub(crate) trait Backend: DeviceOps + Sized {
    /// A loaded module: the backend's handle of every kernel, in the IR's order.
    type Module: Send + Sync + 'static;
    type Stream: Send + Sync + 'static;
    type Event: Send + Sync + 'static;
    /// Work recorded from a stream ([`Backend::begin_capture`]), replayed as a whole.
    type Graph: Send + Sync + 'static;

    /// Loads the binary this device runs out of `image`, whose kernels have `shapes`.
    fn load_module(&self, image: &ModuleImage, shapes: &[KernelShape]) -> Result<Self::Module>;
    /// Queues a launch whose configuration and arguments were checked against the kernel.
    fn launch(
        &self,
        module: &Self::Module,
        stream: &Self::Stream,
        kernel: KernelRef<'_>,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()>;
    /// Workgroups of `lanes` lanes of `kernel` that can be resident on the device at once.
    fn max_resident_workgroups(
        &self,
        module: &Self::Module,
        kernel: KernelRef<'_>,
        lanes: u32,
    ) -> Result<u32>;
    fn stream(&self) -> Result<Self::Stream>;
    /// Wraps a stream that another library created on this device (a raw driver handle),
    /// without taking it over: dropping the wrapper leaves the stream. An error where the
    /// device has no such handles.
    ///
    /// # Safety
    ///
    /// `handle` is a live stream of this device's context, kept alive while the wrapper is.
    unsafe fn borrowed_stream(&self, _handle: u64) -> Result<Self::Stream> {
        Err(Error::Unavailable {
            device: Device::label(self.kind(), self.ordinal()),
            reason: "the device has no external streams to borrow".into(),
        })
    }
    /// A stream whose launches the host waits for at most `limit`. Where launches run in
    /// the calling thread (the CPU device) the stream stops them after `limit`; where they
    /// are queued (GPUs) it is a plain stream and the caller bounds its wait by polling
    /// [`Backend::stream_complete`].
    fn bounded_stream(&self, _limit: Duration) -> Result<Self::Stream> {
        self.stream()
    }
    fn stream_synchronize(&self, stream: &Self::Stream) -> Result<()>;
    /// Whether the work queued on `stream` so far has finished, without waiting for it.
    fn stream_complete(&self, stream: &Self::Stream) -> Result<bool>;
    /// Orders the work queued on `stream` from now on after the work queued so far on
    /// `earlier` (without a host wait); nothing where both are the same stream.
    fn stream_follow(&self, stream: &Self::Stream, earlier: &Self::Stream) -> Result<()>;
    fn record_event(&self, stream: &Self::Stream) -> Result<Self::Event>;
    /// Makes `stream` record the launches queued on it from now on instead of running them,
    /// until [`Backend::end_capture`].
    fn begin_capture(&self, _stream: &Self::Stream) -> Result<()> {
        Err(self.no_capture())
    }
    /// Ends the recording begun on `stream`: the launches queued since, ready to replay.
    fn end_capture(&self, _stream: &Self::Stream) -> Result<Self::Graph> {
        Err(self.no_capture())
    }
    /// Queues the launches of `graph` on `stream`, the stream it was captured from.
    fn launch_graph(&self, _graph: &Self::Graph, _stream: &Self::Stream) -> Result<()> {
        Err(self.no_capture())
    }
    /// Why [`Backend::begin_capture`] and its kin fail on a backend without graphs.
    fn no_capture(&self) -> Error {
        Error::Unavailable {
            device: Device::label(self.kind(), self.ordinal()),
            reason: "capturing launches into graphs is not supported on this device yet".into(),
        }
    }
    /// Whether the work queued before `event` has finished, without waiting for it.
    fn event_complete(&self, event: &Self::Event) -> Result<bool>;
    /// Milliseconds from `start` to `end` (negative if `end` came first).
    fn elapsed_ms(&self, start: &Self::Event, end: &Self::Event) -> Result<f32>;
    /// Lets kernels on this device access `peer`'s memory; `Ok(Err(reason))` when the pair
    /// cannot (no peer path, or no native atomics on it). Enabling twice is not an error.
    fn enable_peer_access(&self, peer: &Self) -> Result<std::result::Result<(), String>>;
    /// Queues a copy of `bytes` from `src` on `peer` to `dst` on this device on `stream`.
    fn copy_from_peer(
        &self,
        stream: &Self::Stream,
        dst: u64,
        peer: &Self,
        src: u64,
        bytes: usize,
    ) -> Result<()>;
}

/// [`Backend`] with its own types erased, for `dyn` use: implemented for every backend.
pub(crate) trait DynBackend: DeviceOps {
    fn as_any(&self) -> &dyn Any;
    fn load_module(&self, image: &ModuleImage, shapes: &[KernelShape]) -> Result<Object>;
    fn launch(
        &self,
        module: &dyn Any,
        stream: &dyn Any,
        kernel: KernelRef<'_>,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()>;
    fn max_resident_workgroups(
        &self,
        module: &dyn Any,
        kernel: KernelRef<'_>,
        lanes: u32,
    ) -> Result<u32>;
    fn stream(&self) -> Result<Object>;
    /// # Safety
    ///
    /// As [`Backend::borrowed_stream`].
    unsafe fn borrowed_stream(&self, handle: u64) -> Result<Object>;
    fn bounded_stream(&self, limit: Duration) -> Result<Object>;
    fn stream_synchronize(&self, stream: &dyn Any) -> Result<()>;
    fn stream_complete(&self, stream: &dyn Any) -> Result<bool>;
    fn stream_follow(&self, stream: &dyn Any, earlier: &dyn Any) -> Result<()>;
    fn record_event(&self, stream: &dyn Any) -> Result<Object>;
    fn begin_capture(&self, stream: &dyn Any) -> Result<()>;
    fn end_capture(&self, stream: &dyn Any) -> Result<Object>;
    fn launch_graph(&self, graph: &dyn Any, stream: &dyn Any) -> Result<()>;
    fn event_complete(&self, event: &dyn Any) -> Result<bool>;
    fn elapsed_ms(&self, start: &dyn Any, end: &dyn Any) -> Result<f32>;
    fn enable_peer_access(&self, peer: &dyn DynBackend) -> Result<std::result::Result<(), String>>;
    fn copy_from_peer(
        &self,
        stream: &dyn Any,
        dst: u64,
        peer: &dyn DynBackend,
        src: u64,
        bytes: usize,
    ) -> Result<()>;
}

impl<B: Backend> DynBackend for B {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn load_module(&self, image: &ModuleImage, shapes: &[KernelShape]) -> Result<Object> {
        Ok(Box::new(Backend::load_module(self, image, shapes)?))
    }

    fn launch(
        &self,
        module: &dyn Any,
        stream: &dyn Any,
        kernel: KernelRef<'_>,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let module = own(self, module, "the module")?;
        let stream = own(self, stream, "the stream")?;
        Backend::launch(self, module, stream, kernel, config, args)
    }

    fn max_resident_workgroups(
        &self,
        module: &dyn Any,
        kernel: KernelRef<'_>,
        lanes: u32,
    ) -> Result<u32> {
        Backend::max_resident_workgroups(self, own(self, module, "the module")?, kernel, lanes)
    }

    fn stream(&self) -> Result<Object> {
        Ok(Box::new(Backend::stream(self)?))
    }

    unsafe fn borrowed_stream(&self, handle: u64) -> Result<Object> {
        // SAFETY: the caller's promise, passed on.
        Ok(Box::new(unsafe { Backend::borrowed_stream(self, handle)? }))
    }

    fn bounded_stream(&self, limit: Duration) -> Result<Object> {
        Ok(Box::new(Backend::bounded_stream(self, limit)?))
    }

    fn stream_synchronize(&self, stream: &dyn Any) -> Result<()> {
        Backend::stream_synchronize(self, own(self, stream, "the stream")?)
    }

    fn stream_complete(&self, stream: &dyn Any) -> Result<bool> {
        Backend::stream_complete(self, own(self, stream, "the stream")?)
    }

    fn stream_follow(&self, stream: &dyn Any, earlier: &dyn Any) -> Result<()> {
        let stream = own(self, stream, "the stream")?;
        Backend::stream_follow(self, stream, own(self, earlier, "the earlier stream")?)
    }

    fn event_complete(&self, event: &dyn Any) -> Result<bool> {
        Backend::event_complete(self, own(self, event, "the event")?)
    }

    fn record_event(&self, stream: &dyn Any) -> Result<Object> {
        let stream = own(self, stream, "the stream")?;
        Ok(Box::new(Backend::record_event(self, stream)?))
    }

    fn begin_capture(&self, stream: &dyn Any) -> Result<()> {
        Backend::begin_capture(self, own(self, stream, "the stream")?)
    }

    fn end_capture(&self, stream: &dyn Any) -> Result<Object> {
        let stream = own(self, stream, "the stream")?;
        Ok(Box::new(Backend::end_capture(self, stream)?))
    }

    fn launch_graph(&self, graph: &dyn Any, stream: &dyn Any) -> Result<()> {
        let graph = own(self, graph, "the graph")?;
        Backend::launch_graph(self, graph, own(self, stream, "the stream")?)
    }

    fn elapsed_ms(&self, start: &dyn Any, end: &dyn Any) -> Result<f32> {
        let start = own(self, start, "the start event")?;
        let end = own(self, end, "the end event")?;
        Backend::elapsed_ms(self, start, end)
    }

    fn enable_peer_access(&self, peer: &dyn DynBackend) -> Result<std::result::Result<(), String>> {
        match peer.as_any().downcast_ref::<B>() {
            Some(peer) => Backend::enable_peer_access(self, peer),
            None => Ok(Err(format!(
                "{} and {} are devices of different kinds",
                self.kind(),
                peer.kind()
            ))),
        }
    }

    fn copy_from_peer(
        &self,
        stream: &dyn Any,
        dst: u64,
        peer: &dyn DynBackend,
        src: u64,
        bytes: usize,
    ) -> Result<()> {
        let stream = own(self, stream, "the stream")?;
        let peer_backend = peer
            .as_any()
            .downcast_ref::<B>()
            .ok_or_else(|| Error::WrongDevice {
                what: "the source buffer".into(),
                owner: Device::label(peer.kind(), peer.ordinal()),
                device: format!(
                    "a {} device like {}",
                    self.kind(),
                    Device::label(self.kind(), self.ordinal())
                ),
            })?;
        Backend::copy_from_peer(self, stream, dst, peer_backend, src, bytes)
    }
}

/// Workgroups resident on a whole GPU: `per_unit` on each of `units` compute units, as
/// the occupancy query gave it; an error, not a wrap, when the product leaves `u32`.
pub(crate) fn resident_on_device(device: &str, per_unit: u32, units: u32) -> Result<u32> {
    per_unit.checked_mul(units).ok_or_else(|| {
        Error::Unavailable {
            device: device.to_string(),
            reason: format!(
                "the occupancy query gave {per_unit} workgroups on each of {units} compute units, more than a u32 counts"
            ),
        }
    })
}

/// `object` as one of `backend`'s own types.
fn own<'a, B: Backend, T: 'static>(backend: &B, object: &'a dyn Any, what: &str) -> Result<&'a T> {
    object.downcast_ref().ok_or_else(|| Error::WrongDevice {
        what: what.into(),
        owner: "a device of another kind".into(),
        device: Device::label(backend.kind(), backend.ordinal()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_workgroups_that_overflow_u32_are_an_error() {
        assert_eq!(resident_on_device("cuda:0", 16, 132).unwrap(), 2112);
        let e = resident_on_device("cuda:0", u32::MAX / 2, 132).unwrap_err();
        assert!(e.to_string().contains("more than a u32 counts"), "{e}");
    }
}
