//! Symmetric arrays: a joined world's symmetric buffers handed to Python
//! (`JoinedWorld.empty`), so that the fused ops use their operands in place rather than
//! staging them through buffers of their own.
//!
//! On CUDA an array exports its rank's part through DLPack (`torch.from_dlpack` gives a
//! tensor on that memory, e.g. a layer's weight), and the ops recognise tensors on that
//! memory by address. On the CPU device, whose memory is the interpreter's, the array
//! object itself is the operand, and `copy_in` / `copy_out` move data.

use crate::arrays::{Array, Elem, Place, Want};
use crate::errors::{Failure, Result, guarded};
use crate::staging::Target;
use dlpark::allocation::dynamic;
use dlpark::ffi::{
    DLDataType, DLDataTypeCode, DLDevice, DLDeviceType, DLManagedTensor, DLManagedTensorVersioned,
};
use dlpark::metadata::Dynamic;
use dlpark::python::producer::{DlpackExporter, ExportRequest, export_dlpack};
use dlpark::{DlpackFlags, Managed, ManagedTensorBase, OpaqueContext};
use kosmos::bf16;
use kosmos_runtime::{Buffer, DeviceScalar, SymmetricBuffer, copy_range_from_peer};
use pyo3::prelude::*;
use std::sync::Arc;

/// A symmetric buffer of one of the element types the ops take.
pub enum Held {
    Bf16(SymmetricBuffer<bf16>),
    F32(SymmetricBuffer<f32>),
}

impl Held {
    pub fn elem(&self) -> Elem {
        match self {
            Held::Bf16(_) => Elem::Bf16,
            Held::F32(_) => Elem::F32,
        }
    }

    /// Elements of each rank's part.
    pub fn len(&self) -> usize {
        match self {
            Held::Bf16(b) => b.len(),
            Held::F32(b) => b.len(),
        }
    }

    /// The address of rank `rank`'s part.
    pub fn address(&self, rank: u32) -> Result<u64> {
        Ok(match self {
            Held::Bf16(b) => b.rank(rank)?.device_ptr(),
            Held::F32(b) => b.rank(rank)?.device_ptr(),
        })
    }
}

/// The element types a [`Held`] can be, to reach the typed buffer.
pub trait Symmetric: DeviceScalar {
    fn of(held: &Held) -> Option<&SymmetricBuffer<Self>>;
}

impl Symmetric for bf16 {
    fn of(held: &Held) -> Option<&SymmetricBuffer<bf16>> {
        match held {
            Held::Bf16(b) => Some(b),
            Held::F32(_) => None,
        }
    }
}

impl Symmetric for f32 {
    fn of(held: &Held) -> Option<&SymmetricBuffer<f32>> {
        match held {
            Held::F32(b) => Some(b),
            Held::Bf16(_) => None,
        }
    }
}

/// A managed DLPack tensor of `shape` (compact strides) and `elem`s at `data` on
/// `device`, whose consumer drops `ctx` when done with it.
///
/// # Safety
///
/// `data` holds the tensor's elements on `device`, alive while `ctx` is.
unsafe fn dlpack_tensor<M: ManagedTensorBase>(
    data: u64,
    device: DLDevice,
    elem: Elem,
    shape: &[usize],
    ctx: impl OpaqueContext,
) -> Result<Managed<M>> {
    let (code, bits) = match elem {
        Elem::Bf16 => (DLDataTypeCode::BFLOAT, 16),
        Elem::F32 => (DLDataTypeCode::FLOAT, 32),
    };
    let mut t: dynamic::Initialized<M> = Dynamic::compact(shape.to_vec())
        .initialize_as(ctx)
        .map_err(|e| Failure::Value(format!("DLPack export: {e}")))?;
    t.set_data(data as *mut std::ffi::c_void)
        .set_device(device)
        .set_dtype(DLDataType {
            code,
            bits,
            lanes: 1,
        });
    // SAFETY: the caller's; `Dynamic::compact` wrote the shape and strides.
    Ok(unsafe { t.finish() })
}

/// One rank's view of a symmetric buffer of a joined world, shaped.
#[pyclass(module = "kosmos._native", frozen)]
pub struct SymmetricArray {
    pub held: Arc<Held>,
    /// Where the array starts in each rank's part, in elements (row views start past 0).
    pub at: usize,
    pub shape: Vec<usize>,
    pub rank: u32,
    pub target: &'static Target,
}

impl SymmetricArray {
    fn dl_device(&self) -> Result<DLDevice> {
        match self.target.place {
            Place::Cuda(n) => Ok(DLDevice {
                device_type: DLDeviceType::CUDA,
                device_id: n as i32,
            }),
            Place::Host => Err(Failure::Type(
                "a symmetric array of a CPU-device world lives in the interpreter's memory, \
                 not the host's: pass the array itself to the JoinedWorld's ops, and move \
                 data with copy_ and numpy()"
                    .into(),
            )),
        }
    }

    /// A fresh managed tensor on this rank's part, keeping the buffer alive.
    fn managed<M: ManagedTensorBase>(&self) -> PyResult<Managed<M>> {
        let bytes = self.held.elem().bytes();
        let data = self.held.address(self.rank)? + self.at as u64 * bytes;
        let ctx = Box::new(self.held.clone());
        // SAFETY: the data is this rank's part from element `at`, `shape` elements long
        // (checked when the array was made), and the context keeps it alive until the
        // consumer drops the tensor.
        Ok(unsafe { dlpack_tensor(data, self.dl_device()?, self.held.elem(), &self.shape, ctx) }?)
    }

    /// Copies between `array` and this rank's part: `into` the part, or out of it.
    fn copy(&self, array: &Bound<'_, PyAny>, stream: u64, into: bool) -> Result<()> {
        let want = Want {
            name: if into { "src" } else { "dst" },
            elems: &[self.held.elem()],
            ndim: self.shape.len(),
            output: !into,
        };
        let a = Array::import(array, want, stream)?;
        if a.shape != self.shape {
            return Err(Failure::Value(format!(
                "{}: shape {:?}, but the symmetric array's is {:?}",
                a.name, a.shape, self.shape
            )));
        }
        if a.place != self.target.place {
            return Err(Failure::Value(format!(
                "{}: in {}, but the symmetric array is on {}",
                a.name, a.place, self.target.device
            )));
        }
        match &*self.held {
            Held::Bf16(b) => self.copy_typed(b, &a, stream, into),
            Held::F32(b) => self.copy_typed(b, &a, stream, into),
        }
    }

    fn copy_typed<T: DeviceScalar>(
        &self,
        sym: &SymmetricBuffer<T>,
        a: &Array,
        stream: u64,
        into: bool,
    ) -> Result<()> {
        let (own, slab, t, at) = (sym.rank(self.rank)?, a.slab(), self.target, self.at);
        let stream = t.stream(stream)?;
        if into {
            let src: Buffer<T> = t.input(slab)?;
            copy_range_from_peer(&stream, own, at, &src, 0, slab.len)?;
        } else {
            let dst: Buffer<T> = t.output(slab)?;
            copy_range_from_peer(&stream, &dst, 0, own, at, slab.len)?;
            t.write_back(&dst, slab)?;
        }
        Ok(())
    }
}

impl DlpackExporter for SymmetricArray {
    fn device(&self) -> DLDevice {
        // `__dlpack_device__` refused CPU-device arrays before an export gets here.
        self.dl_device().unwrap_or(DLDevice::CPU)
    }

    fn flags(&self) -> DlpackFlags {
        DlpackFlags::empty()
    }

    /// Nothing to order: the world's work on this memory queues on the caller's stream,
    /// as the consumer's does, and allocation zero-filled it before returning.
    fn prepare_export(&self, _py: Python<'_>, _request: &ExportRequest<'_>) -> PyResult<()> {
        Ok(())
    }

    fn export_legacy(&self, _py: Python<'_>) -> PyResult<Managed<DLManagedTensor>> {
        self.managed()
    }

    fn export_versioned(&self, _py: Python<'_>) -> PyResult<Managed<DLManagedTensorVersioned>> {
        self.managed()
    }
}

#[pymethods]
impl SymmetricArray {
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.shape.clone()
    }

    #[getter]
    fn dtype(&self) -> &'static str {
        self.held.elem().name()
    }

    #[getter]
    fn rank(&self) -> u32 {
        self.rank
    }

    /// Rows `start..stop` of a 2-dimensional array, on the same memory (this rank's rows
    /// of a gathered input, say).
    fn rows(&self, start: usize, stop: usize) -> PyResult<SymmetricArray> {
        let [rows, cols] = self.shape[..] else {
            return Err(Failure::Value(format!(
                "rows: a 2-dimensional array's, but the shape is {:?}",
                self.shape
            ))
            .into());
        };
        if start > stop || stop > rows {
            return Err(Failure::Value(format!(
                "rows {start}..{stop}: outside the array's {rows} rows"
            ))
            .into());
        }
        Ok(SymmetricArray {
            held: self.held.clone(),
            at: self.at + start * cols,
            shape: vec![stop - start, cols],
            rank: self.rank,
            target: self.target,
        })
    }

    /// Where the array is: `"cpu"` (the CPU device) or `"cuda:N"`.
    #[getter]
    fn device(&self) -> String {
        match self.target.place {
            Place::Host => "cpu".into(),
            Place::Cuda(n) => format!("cuda:{n}"),
        }
    }

    fn __dlpack_device__(&self) -> PyResult<(i32, i32)> {
        let d = self.dl_device()?;
        Ok((d.device_type.0 as i32, d.device_id))
    }

    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<&Bound<'_, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(u32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        self.dl_device()?;
        let request = ExportRequest::parse(stream, max_version, dl_device, copy)?;
        export_dlpack(self, py, request)
    }

    /// Copies `src` (this array's shape and element type, where the world runs) into this
    /// rank's part, on the caller's `stream` on CUDA.
    #[pyo3(signature = (src, stream = 0))]
    fn copy_in(&self, src: &Bound<'_, PyAny>, stream: u64) -> PyResult<()> {
        Ok(guarded(|| self.copy(src, stream, true))?)
    }

    /// Copies this rank's part into `dst` (of this array's shape and element type, where
    /// the world runs), on the caller's `stream` on CUDA.
    #[pyo3(signature = (dst, stream = 0))]
    fn copy_out(&self, dst: &Bound<'_, PyAny>, stream: u64) -> PyResult<()> {
        Ok(guarded(|| self.copy(dst, stream, false))?)
    }

    fn __repr__(&self) -> String {
        format!(
            "SymmetricArray(shape {:?}, {}, rank {} on {})",
            self.shape,
            self.held.elem().name(),
            self.rank,
            self.target.device
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exported_tensors_describe_the_memory_and_keep_their_context() {
        let data = [0f32; 12];
        let alive = Arc::new(());
        let t: Managed<DLManagedTensorVersioned> = unsafe {
            dlpack_tensor(
                data.as_ptr() as u64,
                DLDevice::CPU,
                Elem::F32,
                &[3, 4],
                Box::new(alive.clone()),
            )
        }
        .unwrap();
        let view = t.validate().unwrap();
        assert_eq!(view.shape(), &[3, 4]);
        assert_eq!(view.strides(), Some(&[4i64, 1][..]));
        assert_eq!(view.data_ptr(), data.as_ptr().cast());
        let dtype = view.dtype();
        assert_eq!(
            (dtype.code, dtype.bits, dtype.lanes),
            (DLDataTypeCode::FLOAT, 32, 1)
        );
        assert_eq!(Arc::strong_count(&alive), 2);
        drop(t);
        assert_eq!(
            Arc::strong_count(&alive),
            1,
            "the consumer's drop frees the context"
        );
    }
}
