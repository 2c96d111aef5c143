//! Streams (ordered work queues) and timing events.

use crate::device::{Backend, Device};
use crate::error::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

pub(crate) enum StreamInner {
    /// Launches on the CPU device finish before `launch` returns: nothing to queue.
    Cpu,
    Cuda(Arc<cudarc::driver::CudaStream>),
    #[cfg(feature = "hip")]
    Hip(crate::hip::HipStream),
}

/// An ordered queue of launches on one device.
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) inner: StreamInner,
}

enum EventInner {
    Cpu(Instant),
    Cuda(cudarc::driver::CudaEvent),
    #[cfg(feature = "hip")]
    Hip(crate::hip::HipEvent),
}

/// A point in a stream's work, for timing.
pub struct Event {
    device: Device,
    inner: EventInner,
}

impl Stream {
    pub(crate) fn new(device: &Device) -> Result<Stream> {
        let inner = match &device.inner.backend {
            Backend::Cpu(_) => StreamInner::Cpu,
            Backend::Cuda(b) => StreamInner::Cuda(b.stream()?),
            #[cfg(feature = "hip")]
            Backend::Hip(b) => StreamInner::Hip(b.stream()?),
        };
        Ok(Stream {
            device: device.clone(),
            inner,
        })
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits until all work queued on this stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        match (&self.device.inner.backend, &self.inner) {
            (Backend::Cuda(b), StreamInner::Cuda(s)) => b.stream_synchronize(s),
            #[cfg(feature = "hip")]
            (Backend::Hip(b), StreamInner::Hip(s)) => b.stream_synchronize(s),
            _ => Ok(()),
        }
    }

    /// Records an event after the work queued so far. On GPUs it is a timing event of the
    /// driver; on the CPU device the host clock at the time of the call (its launches are
    /// synchronous, so that is when the queued work ended).
    pub fn record_event(&self) -> Result<Event> {
        let inner = match (&self.device.inner.backend, &self.inner) {
            (Backend::Cuda(b), StreamInner::Cuda(s)) => EventInner::Cuda(b.record_event(s)?),
            #[cfg(feature = "hip")]
            (Backend::Hip(b), StreamInner::Hip(s)) => EventInner::Hip(b.record_event(s)?),
            _ => EventInner::Cpu(Instant::now()),
        };
        Ok(Event {
            device: self.device.clone(),
            inner,
        })
    }
}

impl Event {
    /// Milliseconds from this event to `end` (negative if `end` came first); waits for both.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        if self.device != end.device {
            return Err(Error::Timing(format!(
                "the events belong to {} and {}",
                self.device, end.device
            )));
        }
        match (&self.device.inner.backend, &self.inner, &end.inner) {
            (_, EventInner::Cpu(a), EventInner::Cpu(b)) => Ok(if b >= a {
                b.duration_since(*a).as_secs_f32() * 1e3
            } else {
                -(a.duration_since(*b).as_secs_f32() * 1e3)
            }),
            (Backend::Cuda(dev), EventInner::Cuda(a), EventInner::Cuda(b)) => dev.elapsed_ms(a, b),
            #[cfg(feature = "hip")]
            (Backend::Hip(dev), EventInner::Hip(a), EventInner::Hip(b)) => dev.elapsed_ms(a, b),
            _ => Err(Error::Timing(
                "the events come from different backends".into(),
            )),
        }
    }
}
