//! Arguments as DLPack tensors (numpy arrays, torch tensors, anything with `__dlpack__`),
//! imported through `dlpark` without a copy and checked before any launch: element type,
//! shape, C-contiguous strides, alignment, the device (host memory or a CUDA GPU) and, for
//! outputs, writability. Every message names the argument.

use crate::errors::{Failure, Result};
use dlpark::DlpackFlags;
use dlpark::ffi::{DLDataTypeCode, DLDevice, DLDeviceType};
use dlpark::python::consumer::stream::{self, StreamArg};
use dlpark::python::{DlpackStream, ImportRequest, ImportedDlpack};
use pyo3::prelude::*;

/// The element types the ops take. bf16 arrives as DLPack bfloat16 (torch.bfloat16) or as
/// 16-bit unsigned bit patterns: numpy has no bf16 of its own, so the Python layer passes
/// `ml_dtypes.bfloat16` arrays as their `uint16` view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    Bf16,
    F32,
}

impl Elem {
    pub fn name(self) -> &'static str {
        match self {
            Elem::Bf16 => "bfloat16",
            Elem::F32 => "float32",
        }
    }

    pub fn bytes(self) -> u64 {
        match self {
            Elem::Bf16 => 2,
            Elem::F32 => 4,
        }
    }
}

/// Where an array's memory is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// Host memory (numpy, torch CPU tensors): the ops run on the CPU device.
    Host,
    /// CUDA GPU number `n`: the ops run there, on the caller's stream.
    Cuda(usize),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Host => f.write_str("host memory"),
            Place::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

/// An imported, checked array: its memory stays the producer's while this lives.
pub struct Array {
    /// Keeps the producer's memory alive (its deleter runs on drop).
    _owner: ImportedDlpack,
    pub name: &'static str,
    pub shape: Vec<usize>,
    pub elem: Elem,
    pub place: Place,
    /// The address of element 0 (data pointer plus byte offset).
    pub addr: u64,
}

/// The consumer stream handed to a CUDA producer's `__dlpack__(stream=...)`: the producer
/// orders its pending writes before work queued on it (none to do when it is the
/// producer's current stream, as the Python layer passes).
struct CudaStreamHandle(u64);

// SAFETY: the handle is the caller's current CUDA stream, live for the call, in the
// CUDA convention of the Python DLPack protocol (`stream::cuda` maps 0 to the legacy 1).
unsafe impl DlpackStream for CudaStreamHandle {
    fn as_python_arg(&self, _py: Python<'_>, device: DLDevice) -> PyResult<StreamArg> {
        Ok(if device.device_type == DLDeviceType::CUDA {
            stream::cuda(self.0 as usize as *mut std::ffi::c_void)
        } else {
            stream::none()
        })
    }
}

/// What an argument must be.
pub struct Want<'a> {
    pub name: &'static str,
    /// Accepted element types (the first is what messages call for when one is wrong).
    pub elems: &'a [Elem],
    pub ndim: usize,
    /// Whether the op writes it.
    pub output: bool,
}

impl Array {
    /// Imports `object` (without a copy) and checks it against `want`; `cuda_stream` is the
    /// caller's current stream, for CUDA producers.
    pub fn import(object: &Bound<'_, PyAny>, want: Want<'_>, cuda_stream: u64) -> Result<Array> {
        let name = want.name;
        // The producer's first line says why (torch appends its C++ stack).
        let py_err = |e: PyErr| {
            let why = e.to_string();
            let why = why.lines().next().unwrap_or_default();
            Failure::Type(format!(
                "{name}: not a DLPack array (numpy array, torch tensor): {why}"
            ))
        };
        let request = ImportRequest::new(object.as_borrowed()).map_err(py_err)?;
        let stream = CudaStreamHandle(cuda_stream);
        let imported = request.import(Some(&stream), None).map_err(py_err)?;
        let tensor = imported
            .validate()
            .map_err(|e| Failure::Value(format!("{name}: malformed DLPack tensor: {e}")))?;
        let place = match tensor.device() {
            DLDevice {
                device_type: DLDeviceType::CPU | DLDeviceType::CUDAHOST,
                ..
            } => Place::Host,
            DLDevice {
                device_type: DLDeviceType::CUDA,
                device_id,
            } => Place::Cuda(device_id as usize),
            d => {
                return Err(Failure::Value(format!(
                    "{name}: on DLPack device type {} (id {}); the ops take host memory or CUDA tensors",
                    d.device_type.0, d.device_id
                )));
            }
        };
        let dtype = tensor.dtype();
        let elem = match (dtype.code, dtype.bits, dtype.lanes) {
            (DLDataTypeCode::BFLOAT, 16, 1) | (DLDataTypeCode::UINT, 16, 1) => Some(Elem::Bf16),
            (DLDataTypeCode::FLOAT, 32, 1) => Some(Elem::F32),
            _ => None,
        }
        .filter(|e| want.elems.contains(e));
        let Some(elem) = elem else {
            let wanted: Vec<&str> = want.elems.iter().map(|e| e.name()).collect();
            return Err(Failure::Type(format!(
                "{name}: expected {} elements, got {}",
                wanted.join(" or "),
                dtype_name(dtype.code, dtype.bits, dtype.lanes)
            )));
        };
        let shape: Vec<usize> = tensor.shape().iter().map(|&d| d as usize).collect();
        if shape.len() != want.ndim {
            return Err(Failure::Value(format!(
                "{name}: expected {} dimensions, got shape {shape:?}",
                want.ndim
            )));
        }
        if let Some(strides) = tensor.strides() {
            check_contiguous(name, &shape, strides)?;
        }
        if want.output && imported.flags().contains(DlpackFlags::READ_ONLY) {
            return Err(Failure::Value(format!(
                "{name}: read-only, but the op writes it"
            )));
        }
        let addr = tensor.data_ptr() as u64 + tensor.byte_offset();
        if !addr.is_multiple_of(elem.bytes()) {
            return Err(Failure::Value(format!(
                "{name}: its data at {addr:#x} is not aligned to its {}-byte elements",
                elem.bytes()
            )));
        }
        Ok(Array {
            _owner: imported,
            name,
            shape,
            elem,
            place,
            addr,
        })
    }

    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
}

/// C-contiguous: each stride (in elements) is the product of the later dimensions
/// (dimensions of one element may have any stride, as torch gives them; an array of no
/// elements any strides at all).
fn check_contiguous(name: &str, shape: &[usize], strides: &[i64]) -> Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut expected = 1i64;
    for (&dim, &stride) in shape.iter().zip(strides).rev() {
        if dim != 1 && stride != expected {
            return Err(Failure::Value(format!(
                "{name}: not C-contiguous (shape {shape:?}, strides {strides:?} in elements); \
                 pass a contiguous copy (numpy.ascontiguousarray, Tensor.contiguous())"
            )));
        }
        expected *= dim as i64;
    }
    Ok(())
}

fn dtype_name(code: DLDataTypeCode, bits: u8, lanes: u16) -> String {
    let kind = match code {
        DLDataTypeCode::INT => "int",
        DLDataTypeCode::UINT => "uint",
        DLDataTypeCode::FLOAT => "float",
        DLDataTypeCode::BFLOAT => "bfloat",
        DLDataTypeCode::COMPLEX => "complex",
        DLDataTypeCode::BOOL => "bool",
        _ => "type code ",
    };
    let kind = if kind == "type code " {
        format!("type code {}, {bits} bits", code.0)
    } else {
        format!("{kind}{bits}")
    };
    if lanes == 1 {
        kind
    } else {
        format!("{kind}x{lanes}")
    }
}

/// Every array is in the same place; gives it.
pub fn same_place(arrays: &[&Array]) -> Result<Place> {
    let first = arrays[0];
    for a in &arrays[1..] {
        if a.place != first.place {
            return Err(Failure::Value(format!(
                "{} is in {} but {} in {}: every argument must be on the same device",
                first.name, first.place, a.name, a.place
            )));
        }
    }
    Ok(first.place)
}

/// `(k, n)` of a weight stored `k x n` in its last two dimensions, or `n x k` when
/// `transposed` (a rank's weight, or every rank's stacked over a leading axis).
pub fn weight_dims(w: &impl Shaped, transposed: bool) -> (usize, usize) {
    let shape = w.shape();
    let d = shape.len();
    let (a, b) = (shape[d - 2], shape[d - 1]);
    if transposed { (b, a) } else { (a, b) }
}

/// An argument with a name and a shape: an imported [`Array`], or an operand of a world op.
pub trait Shaped {
    fn name(&self) -> &str;
    fn shape(&self) -> &[usize];
}

impl Shaped for Array {
    fn name(&self) -> &str {
        self.name
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }
}

/// `array` has exactly `dims` (names of each dimension for the message).
pub fn check_shape(array: &impl Shaped, dims: &[(&str, usize)]) -> Result<()> {
    let want: Vec<usize> = dims.iter().map(|d| d.1).collect();
    if array.shape() != want {
        let names: Vec<String> = dims.iter().map(|(n, v)| format!("{n}={v}")).collect();
        return Err(Failure::Value(format!(
            "{}: expected shape {want:?} ({}), got {:?}",
            array.name(),
            names.join(", "),
            array.shape()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_must_be_row_major_except_on_unit_dimensions() {
        check_contiguous("a", &[3, 4], &[4, 1]).unwrap();
        check_contiguous("a", &[1, 4], &[99, 1]).unwrap();
        let m = match check_contiguous("a", &[3, 4], &[1, 3]) {
            Err(Failure::Value(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(
            m.starts_with("a: not C-contiguous") && m.contains("[1, 3]"),
            "{m}"
        );
        assert!(check_contiguous("a", &[3, 4], &[8, 2]).is_err());
        check_contiguous("a", &[0, 4], &[0, 0]).unwrap();
    }

    #[test]
    fn dtype_names_read_like_numpy() {
        assert_eq!(dtype_name(DLDataTypeCode::FLOAT, 64, 1), "float64");
        assert_eq!(dtype_name(DLDataTypeCode::INT, 32, 1), "int32");
        assert_eq!(dtype_name(DLDataTypeCode(9), 8, 1), "type code 9, 8 bits");
    }
}
