//! Typed device buffers.

use crate::backend::DynBackend;
use crate::device::Device;
use crate::error::{Error, Result};
use kosmos_ir::{Constant, ScalarType};
use std::fmt;
use std::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// A scalar type that buffers hold and kernels take: plain bits, no padding, every bit
/// pattern valid. Sealed: implemented for the integer and float types of the IR.
pub trait DeviceScalar: sealed::Sealed + Copy + Send + Sync + fmt::Debug + 'static {
    /// The IR type of this scalar.
    const SCALAR_TYPE: ScalarType;
    /// The value as an IR constant.
    fn to_constant(self) -> Constant;
}

macro_rules! device_scalar {
    ($($t:ty => $st:ident, |$v:ident| $bits:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceScalar for $t {
            const SCALAR_TYPE: ScalarType = ScalarType::$st;
            fn to_constant(self) -> Constant {
                let $v = self;
                Constant { ty: ScalarType::$st, bits: $bits }
            }
        }
    )*};
}

device_scalar! {
    u8 => U8, |v| v as u64;
    u16 => U16, |v| v as u64;
    u32 => U32, |v| v as u64;
    u64 => U64, |v| v;
    i8 => I8, |v| v as u8 as u64;
    i16 => I16, |v| v as u16 as u64;
    i32 => I32, |v| v as u32 as u64;
    i64 => I64, |v| v as u64;
    f32 => F32, |v| v.to_bits() as u64;
    f64 => F64, |v| v.to_bits();
    half::f16 => F16, |v| v.to_bits() as u64;
    half::bf16 => BF16, |v| v.to_bits() as u64;
}

fn as_bytes<T: DeviceScalar>(data: &[T]) -> &[u8] {
    // Sound: DeviceScalar types are plain bits without padding (the trait is sealed).
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

fn as_bytes_mut<T: DeviceScalar>(data: &mut [T]) -> &mut [u8] {
    // Sound: every bit pattern is a valid DeviceScalar value.
    unsafe {
        std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(data))
    }
}

/// `len` elements of `T` in a device's memory, freed on drop.
///
/// Transfers (`upload`, `download`, `fill`) are synchronous: they first wait for all work
/// submitted to the device on any stream, then complete before returning. Dropping a buffer
/// also waits for the device, so a kernel still running never sees its memory freed.
///
/// A buffer made by [`Buffer::borrowed`] is a view of memory another library owns (a
/// PyTorch tensor's storage): dropping it neither frees nor waits. A peer's buffer in a
/// world of several processes is a mapping of memory another process owns: dropping it
/// unmaps it.
pub struct Buffer<T: DeviceScalar> {
    device: Device,
    addr: u64,
    len: usize,
    owner: Owner,
    _elem: PhantomData<T>,
}

/// Whose memory a [`Buffer`] is, which decides what dropping it does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Owner {
    /// Allocated by the buffer: freed on drop.
    Own,
    /// Another library's ([`Buffer::borrowed`]): left alone.
    Borrowed,
    /// Another process's, mapped here ([`Buffer::imported`]): unmapped on drop.
    Imported,
}

impl<T: DeviceScalar> Buffer<T> {
    pub(crate) fn new(device: &Device, len: usize) -> Result<Buffer<T>> {
        Buffer::allocate(device, len, |backend, bytes| backend.alloc(bytes))
    }

    /// A buffer that peers on other GPUs may write and poll with system-scope atomics (see
    /// `World::multi_gpu`). On AMD GPUs that is fine-grained memory (coarse-grained memory
    /// is made coherent across devices only at kernel boundaries); NVIDIA GPUs keep peer
    /// atomics coherent in ordinary device memory.
    pub(crate) fn new_peer_visible(device: &Device, len: usize) -> Result<Buffer<T>> {
        Buffer::allocate(device, len, |backend, bytes| {
            backend.alloc_peer_visible(bytes)
        })
    }

    fn allocate(
        device: &Device,
        len: usize,
        alloc: impl FnOnce(&dyn DynBackend, usize) -> Result<u64>,
    ) -> Result<Buffer<T>> {
        let bytes = Self::bytes_of(len)?;
        // Drivers reject empty allocations; an empty buffer owns no memory.
        let addr = if bytes == 0 {
            0
        } else {
            alloc(device.backend(), bytes)?
        };
        Ok(Buffer {
            device: device.clone(),
            addr,
            len,
            owner: Owner::Own,
            _elem: PhantomData,
        })
    }

    /// A view of `len` elements at device address `addr` of `device`, memory that another
    /// library allocated and keeps (e.g. a tensor imported through DLPack): kernels read and
    /// write it like any buffer, and dropping the view neither frees the memory nor waits
    /// for the device. An `addr` of 0 is accepted only for an empty view.
    ///
    /// # Safety
    ///
    /// `addr .. addr + len * size_of::<T>()` must be memory of `device` (of its context, on
    /// CUDA) that stays allocated while the view, or any launch queued with it, is in use;
    /// the caller orders the owner's work with the launches that use it (e.g. by queuing
    /// them on the owner's stream, [`Device::borrowed_stream`]).
    pub unsafe fn borrowed(device: &Device, addr: u64, len: usize) -> Result<Buffer<T>> {
        let bytes = Self::bytes_of(len)?;
        if addr == 0 && bytes != 0 {
            return Err(Error::Unavailable {
                device: device.to_string(),
                reason: format!("a borrowed buffer of {bytes} bytes at address 0"),
            });
        }
        Ok(Buffer {
            device: device.clone(),
            addr,
            len,
            owner: Owner::Borrowed,
            _elem: PhantomData,
        })
    }

    /// A handle by which a world in another process maps this buffer's memory
    /// ([`Buffer::imported`]); `None` for an empty buffer, which owns no memory.
    pub(crate) fn export(&self) -> Result<Option<Vec<u8>>> {
        if self.addr == 0 {
            return Ok(None);
        }
        if self.owner != Owner::Own {
            return Err(Error::Unavailable {
                device: self.device.to_string(),
                reason: "only memory a buffer allocated itself can be exported".into(),
            });
        }
        self.device.backend().export_memory(self.addr).map(Some)
    }

    /// `len` elements of memory that another process exported ([`Buffer::export`]),
    /// mapped on `device`; `None` maps nothing (an empty buffer).
    pub(crate) fn imported(
        device: &Device,
        handle: Option<&[u8]>,
        len: usize,
    ) -> Result<Buffer<T>> {
        Self::bytes_of(len)?;
        let addr = match handle {
            Some(h) => device.backend().import_memory(h)?,
            None => 0,
        };
        Ok(Buffer {
            device: device.clone(),
            addr,
            len,
            owner: Owner::Imported,
            _elem: PhantomData,
        })
    }

    /// The size of `len` elements in bytes, if it fits a `usize`.
    fn bytes_of(len: usize) -> Result<usize> {
        len.checked_mul(std::mem::size_of::<T>())
            .ok_or(Error::BufferTooLarge {
                len,
                elem: T::SCALAR_TYPE,
            })
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Buffer<T>> {
        let buffer = Buffer::new(device, data.len())?;
        buffer.upload(data)?;
        Ok(buffer)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The device this buffer lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The buffer's device address (0 for an empty buffer).
    pub fn device_ptr(&self) -> u64 {
        self.addr
    }

    /// Copies `data` into the buffer; `data.len()` must equal `self.len()`.
    pub fn upload(&self, data: &[T]) -> Result<()> {
        self.check_len(data.len())?;
        if self.len == 0 {
            return Ok(());
        }
        self.device.backend().write(self.addr, as_bytes(data))
    }

    /// Copies the buffer into `out`; `out.len()` must equal `self.len()`.
    pub fn download_into(&self, out: &mut [T]) -> Result<()> {
        self.check_len(out.len())?;
        if self.len == 0 {
            return Ok(());
        }
        self.device.backend().read(self.addr, as_bytes_mut(out))
    }

    /// The buffer's contents.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::from_zero_bits(); self.len];
        self.download_into(&mut out)?;
        Ok(out)
    }

    /// Sets every element to `value`.
    pub fn fill(&self, value: T) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        self.device
            .fill_bytes(self.addr, as_bytes(std::slice::from_ref(&value)), self.len)
    }

    fn check_len(&self, host: usize) -> Result<()> {
        if host == self.len {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                buffer: self.len,
                host,
            })
        }
    }
}

trait ZeroBits {
    fn from_zero_bits() -> Self;
}

impl<T: DeviceScalar> ZeroBits for T {
    fn from_zero_bits() -> T {
        // Sound: every bit pattern, all zeros included, is a valid DeviceScalar value.
        unsafe { std::mem::zeroed() }
    }
}

impl<T: DeviceScalar> Drop for Buffer<T> {
    fn drop(&mut self) {
        if self.addr == 0 {
            return;
        }
        // A failed free cannot be reported from drop; the driver's context is then already
        // broken and its own teardown releases the memory.
        let _ = match self.owner {
            Owner::Own => self.device.backend().free(self.addr),
            Owner::Imported => self.device.backend().close_imported(self.addr),
            Owner::Borrowed => Ok(()),
        };
    }
}

impl<T: DeviceScalar> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Buffer<{}>[{}] on {} at {:#x}",
            T::SCALAR_TYPE,
            self.len,
            self.device,
            self.addr
        )
    }
}
