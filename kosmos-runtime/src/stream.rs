//! Streams (ordered work queues) and timing events.

use crate::backend::Object;
use crate::bounds::BoundsRecords;
use crate::device::Device;
use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An ordered queue of launches on one device.
pub struct Stream {
    pub(crate) device: Device,
    /// The backend's stream.
    pub(crate) inner: Object,
    /// The bounds records of the modules launched since the last synchronize.
    launched: Mutex<Vec<Arc<BoundsRecords>>>,
}

/// Launches captured from a stream ([`Stream::begin_capture`]), replayed on it as a whole.
pub(crate) struct StreamGraph {
    device: Device,
    /// The backend's graph.
    inner: Object,
    /// The bounds records of the captured launches' modules, read after each replay.
    watched: Vec<Arc<BoundsRecords>>,
}

/// A point in a stream's work, for timing.
pub struct Event {
    device: Device,
    /// The backend's event.
    inner: Object,
}

impl Stream {
    pub(crate) fn new(device: &Device) -> Result<Stream> {
        Ok(Stream {
            device: device.clone(),
            inner: device.backend().stream()?,
            launched: Mutex::default(),
        })
    }

    /// See [`Device::borrowed_stream`].
    pub(crate) unsafe fn borrowed(device: &Device, handle: u64) -> Result<Stream> {
        Ok(Stream {
            device: device.clone(),
            // SAFETY: the caller's promise, passed on.
            inner: unsafe { device.backend().borrowed_stream(handle)? },
            launched: Mutex::default(),
        })
    }

    /// A stream whose launches the host waits for at most `limit` (see
    /// `Backend::bounded_stream`).
    pub(crate) fn bounded(device: &Device, limit: Duration) -> Result<Stream> {
        Ok(Stream {
            device: device.clone(),
            inner: device.backend().bounded_stream(limit)?,
            launched: Mutex::default(),
        })
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits until all work queued on this stream has finished; then reports the first
    /// out-of-bounds slice access of the launches since the last synchronize, if any
    /// ([`Error::IndexOutOfBounds`]).
    pub fn synchronize(&self) -> Result<()> {
        self.device.backend().stream_synchronize(&*self.inner)?;
        let launched = std::mem::take(&mut *self.lock_launched());
        let mut first = Ok(());
        for bounds in launched {
            let found = bounds.take_error();
            if first.is_ok() {
                first = found;
            }
        }
        first
    }

    /// Whether the work queued on this stream so far has finished, without waiting for it;
    /// an error of that work is returned here (its out-of-bounds accesses are reported by
    /// [`Stream::synchronize`]).
    pub fn is_complete(&self) -> Result<bool> {
        self.device.backend().stream_complete(&*self.inner)
    }

    /// Orders the work queued on this stream from now on after all the work queued so far
    /// on `earlier` (of the same device), without waiting on the host; nothing where both
    /// are the same stream (borrowed handles of one stream are).
    pub fn follow(&self, earlier: &Stream) -> Result<()> {
        if earlier.device != self.device {
            return Err(Error::WrongDevice {
                what: "the earlier stream".into(),
                owner: earlier.device.to_string(),
                device: self.device.to_string(),
            });
        }
        self.device
            .backend()
            .stream_follow(&*self.inner, &*earlier.inner)
    }

    /// Notes a launch of a module whose bounds records `synchronize` must read.
    pub(crate) fn watch(&self, bounds: &Arc<BoundsRecords>) {
        let mut launched = self.lock_launched();
        if !launched.iter().any(|b| Arc::ptr_eq(b, bounds)) {
            launched.push(bounds.clone());
        }
    }

    fn lock_launched(&self) -> std::sync::MutexGuard<'_, Vec<Arc<BoundsRecords>>> {
        // The list stays consistent even if a holder panicked: it is only pushed to.
        self.launched.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// From now on records the launches queued on this stream instead of running them, until
    /// [`Stream::end_capture`]; an error where the device cannot capture.
    pub(crate) fn begin_capture(&self) -> Result<()> {
        self.device.backend().begin_capture(&*self.inner)
    }

    /// Ends a capture: the launches queued since [`Stream::begin_capture`], to replay.
    pub(crate) fn end_capture(&self) -> Result<StreamGraph> {
        Ok(StreamGraph {
            device: self.device.clone(),
            inner: self.device.backend().end_capture(&*self.inner)?,
            watched: self.lock_launched().clone(),
        })
    }

    /// Queues `graph`'s launches on this stream, the one it was captured from.
    pub(crate) fn replay(&self, graph: &StreamGraph) -> Result<()> {
        if graph.device != self.device {
            return Err(Error::WrongDevice {
                what: "the graph".into(),
                owner: graph.device.to_string(),
                device: self.device.to_string(),
            });
        }
        self.device
            .backend()
            .launch_graph(&*graph.inner, &*self.inner)?;
        for bounds in &graph.watched {
            self.watch(bounds);
        }
        Ok(())
    }

    /// Records an event after the work queued so far. On GPUs it is a timing event of the
    /// driver; on the CPU device the host clock at the time of the call (its launches are
    /// synchronous, so that is when the queued work ended).
    pub fn record_event(&self) -> Result<Event> {
        Ok(Event {
            device: self.device.clone(),
            inner: self.device.backend().record_event(&*self.inner)?,
        })
    }
}

impl Event {
    /// Whether the work queued before this event has finished, without waiting for it; an
    /// error of that work is returned here.
    pub fn is_complete(&self) -> Result<bool> {
        self.device.backend().event_complete(&*self.inner)
    }

    /// Milliseconds from this event to `end` (negative if `end` came first); waits for both.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        if self.device != end.device {
            return Err(Error::Timing(format!(
                "the events belong to {} and {}",
                self.device, end.device
            )));
        }
        self.device.backend().elapsed_ms(&*self.inner, &*end.inner)
    }
}
