//! Tensor maps: what `copy.tensor` (`copy_tensor` in kernels) reads to copy a 2-D box of a
//! row-major tensor in global memory into shared memory. A map is 128 bytes of device
//! memory passed to the kernel as a pointer: on CUDA the driver's encoding
//! (`cuTensorMapEncodeTiled`, for the copy engine), elsewhere the emulated layout of
//! [`kosmos_ir::async_copy::map_word`]. Every argument is checked when the map is made, so
//! a bad map never reaches a launch.

use crate::buffer::{Buffer, DeviceScalar};
use crate::device::DeviceKind;
use crate::error::{Error, Result};
use crate::module::KernelArg;
pub use kosmos_ir::async_copy::TENSOR_MAP_WORDS;
use kosmos_ir::async_copy::map_word;
use std::marker::PhantomData;

/// How a box is laid out in shared memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// Rows packed one after the other.
    None,
    /// 128-byte rows whose 16-byte chunk `j` of row `r` lies at chunk `j ^ (r % 8)`: the
    /// layout `mma_group` reads (`CU_TENSOR_MAP_SWIZZLE_128B`).
    B128,
}

/// Largest box dimension (the copy engine's limit).
pub const MAX_BOX_DIM: u32 = 256;

/// The shape of a tensor and of the boxes copied from it, in elements.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TensorShape {
    pub rows: u64,
    pub cols: u64,
    /// Elements between the starts of consecutive rows.
    pub row_stride: u64,
    pub box_rows: u32,
    pub box_cols: u32,
}

/// A tensor map of a buffer (which it borrows): see the module docs. Pass it to a kernel
/// parameter `map: &TensorMap`; the launcher takes no other buffer there.
pub struct TensorMap<'a> {
    words: Buffer<u64>,
    box_bytes: u32,
    _tensor: PhantomData<&'a ()>,
}

impl<'a> TensorMap<'a> {
    /// A map of the `shape.rows x shape.cols` row-major tensor at the start of `buffer`.
    /// Checks, naming the argument at fault: the element type is one the copy engine knows
    /// (not `i8`, `i16`, `bool`); the tensor is not empty and fits `buffer`; a row is at most
    /// `row_stride` elements and `row_stride` a multiple of 16 bytes; box dimensions are in
    /// `1..=256` and a box row a multiple of 16 bytes — exactly 128 with [`Swizzle::B128`].
    pub fn tiled<T: DeviceScalar>(
        buffer: &'a Buffer<T>,
        shape: TensorShape,
        swizzle: Swizzle,
    ) -> Result<TensorMap<'a>> {
        let words = TensorMap::encode(buffer, shape, swizzle)?;
        Ok(TensorMap {
            words: Buffer::from_slice(buffer.device(), &words)?,
            box_bytes: shape.box_rows * shape.box_cols * T::SCALAR_TYPE.size_bytes(),
            _tensor: PhantomData,
        })
    }

    /// The [`TENSOR_MAP_WORDS`] words of [`TensorMap::tiled`]'s map, checked the same way,
    /// for a kernel that finds its maps in a buffer (`copy_tensor(.., &maps[i], ..)`): one
    /// per rank of a world in a symmetric buffer, each rank's copy holding the maps of its
    /// own tensors. Such words name `buffer`'s address without borrowing it: they must not
    /// be used after it is dropped.
    pub fn encode<T: DeviceScalar>(
        buffer: &Buffer<T>,
        shape: TensorShape,
        swizzle: Swizzle,
    ) -> Result<[u64; TENSOR_MAP_WORDS]> {
        check(buffer, shape, swizzle)?;
        let e = u64::from(T::SCALAR_TYPE.size_bytes());
        Ok(match buffer.device().kind() {
            DeviceKind::Cuda => crate::cuda::encode_tensor_map(buffer, shape, swizzle)?,
            DeviceKind::Cpu | DeviceKind::Hip => {
                let mut words = [0u64; TENSOR_MAP_WORDS];
                words[map_word::BASE] = buffer.device_ptr();
                words[map_word::COLS] = shape.cols;
                words[map_word::ROWS] = shape.rows;
                words[map_word::ROW_STRIDE] = shape.row_stride * e;
                words[map_word::BOX_COLS] = u64::from(shape.box_cols);
                words[map_word::BOX_ROWS] = u64::from(shape.box_rows);
                words[map_word::ELEM_BYTES] = e;
                words[map_word::SWIZZLE] = match swizzle {
                    Swizzle::None => 0,
                    Swizzle::B128 => 128,
                };
                words
            }
        })
    }

    /// Bytes of one box: what a `copy_tensor` completes on its barrier, and so what
    /// `mbar_arrive_expect` announces for it.
    pub fn box_bytes(&self) -> u32 {
        self.box_bytes
    }
}

impl<'a> From<&'a TensorMap<'_>> for KernelArg<'a> {
    fn from(map: &'a TensorMap<'_>) -> KernelArg<'a> {
        KernelArg::from(&map.words)
    }
}

fn check<T: DeviceScalar>(buffer: &Buffer<T>, shape: TensorShape, swizzle: Swizzle) -> Result<()> {
    let bad =
        |argument: &'static str, problem: String| Err(Error::BadTensorMap { argument, problem });
    let elem = T::SCALAR_TYPE;
    let e = u64::from(elem.size_bytes());
    if crate::cuda::tensor_data_type(elem).is_none() {
        return bad(
            "buffer",
            format!(
                "the copy engine has no {elem} elements (u8, u16, u32, i32, u64, i64, f16, bf16, f32 or f64)"
            ),
        );
    }
    if !buffer.device_ptr().is_multiple_of(16) {
        return bad(
            "buffer",
            format!(
                "its address {:#x} is not 16-byte aligned",
                buffer.device_ptr()
            ),
        );
    }
    let TensorShape {
        rows,
        cols,
        row_stride,
        box_rows,
        box_cols,
    } = shape;
    for (argument, n) in [("rows", rows), ("cols", cols)] {
        if n == 0 || n > 1 << 32 {
            return bad(argument, format!("{n} is not in 1..=2^32"));
        }
    }
    if row_stride < cols {
        return bad(
            "row_stride",
            format!("{row_stride} elements is less than a row of {cols}"),
        );
    }
    let stride_bytes = row_stride.checked_mul(e).filter(|b| *b < 1 << 40);
    match stride_bytes {
        Some(b) if b.is_multiple_of(16) => {}
        _ => {
            return bad(
                "row_stride",
                format!("{row_stride} {elem} elements is not a multiple of 16 bytes below 2^40"),
            );
        }
    }
    let needed = ((rows - 1) as u128 * row_stride as u128 + cols as u128) * e as u128;
    if needed > buffer.size_bytes() as u128 {
        return bad(
            "buffer",
            format!(
                "{} bytes cannot hold {rows} rows of {cols} {elem} elements {row_stride} apart ({needed} bytes)",
                buffer.size_bytes()
            ),
        );
    }
    for (argument, n) in [("box_rows", box_rows), ("box_cols", box_cols)] {
        if n == 0 || n > MAX_BOX_DIM {
            return bad(argument, format!("{n} is not in 1..={MAX_BOX_DIM}"));
        }
    }
    let row_bytes = u64::from(box_cols) * e;
    if !row_bytes.is_multiple_of(16) {
        return bad(
            "box_cols",
            format!(
                "a box row of {box_cols} {elem} elements ({row_bytes} bytes) is not a multiple of 16 bytes"
            ),
        );
    }
    if swizzle == Swizzle::B128 && row_bytes != 128 {
        return bad(
            "box_cols",
            format!(
                "the 128-byte swizzle needs box rows of 128 bytes, not {row_bytes} ({box_cols} {elem} elements)"
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Device;

    const SHAPE: TensorShape = TensorShape {
        rows: 16,
        cols: 64,
        row_stride: 64,
        box_rows: 8,
        box_cols: 64,
    };

    /// The argument a map of `shape` over `len` elements of `T` is refused for.
    fn refused<T: DeviceScalar + Default>(
        len: usize,
        shape: TensorShape,
        swizzle: Swizzle,
    ) -> &'static str {
        let device = Device::cpu().unwrap();
        let buffer = Buffer::from_slice(&device, &vec![T::default(); len]).unwrap();
        match TensorMap::tiled(&buffer, shape, swizzle) {
            Err(Error::BadTensorMap { argument, .. }) => argument,
            Err(e) => panic!("{e}"),
            Ok(_) => "",
        }
    }

    #[test]
    fn bad_maps_are_refused_naming_the_argument() {
        use half::bf16;
        let with = |f: fn(&mut TensorShape)| {
            let mut s = SHAPE;
            f(&mut s);
            s
        };
        assert_eq!(refused::<bf16>(1024, SHAPE, Swizzle::B128), "");
        assert_eq!(refused::<bf16>(1023, SHAPE, Swizzle::B128), "buffer");
        assert_eq!(refused::<i8>(1024, SHAPE, Swizzle::None), "buffer");
        assert_eq!(
            refused::<f32>(2048, with(|s| s.box_cols = 32), Swizzle::B128),
            ""
        );
        // (a change to SHAPE, the swizzle, the argument refused; "" for none) over 2048
        // bf16 elements.
        type Case = (fn(&mut TensorShape), Swizzle, &'static str);
        let cases: [Case; 9] = [
            (|s| s.rows = 0, Swizzle::B128, "rows"),
            (|s| s.cols = 0, Swizzle::B128, "cols"),
            (|s| s.row_stride = 63, Swizzle::B128, "row_stride"),
            (|s| s.row_stride = 68, Swizzle::B128, "row_stride"),
            (|s| s.box_rows = 257, Swizzle::B128, "box_rows"),
            (|s| s.box_rows = 0, Swizzle::B128, "box_rows"),
            (|s| s.box_cols = 4, Swizzle::None, "box_cols"),
            (|s| s.box_cols = 32, Swizzle::B128, "box_cols"),
            (|s| s.box_cols = 32, Swizzle::None, ""),
        ];
        for (i, (change, swizzle, argument)) in cases.into_iter().enumerate() {
            assert_eq!(
                refused::<bf16>(2048, with(change), swizzle),
                argument,
                "case {i}"
            );
        }
    }
}
