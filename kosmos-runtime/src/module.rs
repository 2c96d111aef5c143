//! Modules loaded from compiled images, and checked kernel launches.
//!
//! Every launch (and every [`Module::max_resident_workgroups`] query) is checked before it
//! reaches the device: a nonzero grid and workgroup; a workgroup of at most
//! [`Kernel::workgroup_bound`] lanes for the device's [`Device::subgroup_size`]; for kernels
//! with `mma.group` ([`Kernel::uses_groups`]) a whole number of groups of
//! [`GROUP_SUBGROUPS`] subgroups; on CUDA at most the shared memory the GPU allows a
//! workgroup; and the arguments against the kernel's parameters.

use crate::backend::{KernelRef, Object};
use crate::bounds::BoundsRecords;
use crate::buffer::{Buffer, DeviceScalar};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::image::ModuleImage;
use crate::stream::Stream;
use kosmos_ir::{AddrSpace, Constant, GROUP_SUBGROUPS, Kernel, ScalarType, Type};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Smallest alignment of a buffer passed to a kernel: the widest vector access is 16 bytes.
pub const ARG_ALIGN: u64 = 16;

/// Grid and workgroup (block) dimensions of a launch, in workgroups and lanes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

impl LaunchConfig {
    /// A one-dimensional launch of `grid` workgroups of `block` lanes.
    pub fn linear(grid: u32, block: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
        }
    }

    /// Enough workgroups of `block` lanes to cover `n` elements (at least one).
    pub fn for_elements(n: usize, block: u32) -> LaunchConfig {
        let groups = n.div_ceil(block.max(1) as usize).max(1);
        LaunchConfig::linear(u32::try_from(groups).unwrap_or(u32::MAX), block)
    }
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum ArgRepr<'a> {
    Buffer {
        addr: u64,
        elem: ScalarType,
        len: usize,
        device: &'a Device,
    },
    Scalar(Constant),
}

/// One kernel argument: a buffer (passed as its device pointer) or a scalar.
/// Build it with `KernelArg::from(&buffer)` or `KernelArg::from(5u32)`.
#[derive(Copy, Clone, Debug)]
pub struct KernelArg<'a>(pub(crate) ArgRepr<'a>);

impl KernelArg<'_> {
    /// A scalar argument given as an IR constant (its type must match the parameter's).
    pub fn scalar(c: Constant) -> KernelArg<'static> {
        KernelArg(ArgRepr::Scalar(c))
    }

    /// The byte length of a buffer argument (0 for a scalar): what `buffer.len` reads.
    pub(crate) fn buffer_bytes(&self) -> u64 {
        match self.0 {
            ArgRepr::Buffer { elem, len, .. } => (len * elem.size_bytes() as usize) as u64,
            ArgRepr::Scalar(_) => 0,
        }
    }

    fn describe(&self) -> String {
        match self.0 {
            ArgRepr::Buffer { elem, len, .. } => format!("a buffer of {len} {elem}"),
            ArgRepr::Scalar(c) => c.ty.to_string(),
        }
    }
}

impl<'a, T: DeviceScalar> From<&'a Buffer<T>> for KernelArg<'a> {
    fn from(b: &'a Buffer<T>) -> KernelArg<'a> {
        KernelArg(ArgRepr::Buffer {
            addr: b.device_ptr(),
            elem: T::SCALAR_TYPE,
            len: b.len(),
            device: b.device(),
        })
    }
}

macro_rules! scalar_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for KernelArg<'static> {
            fn from(v: $t) -> KernelArg<'static> {
                KernelArg::scalar(v.to_constant())
            }
        }
    )*};
}

scalar_arg!(
    u8,
    u16,
    u32,
    u64,
    i8,
    i16,
    i32,
    i64,
    f32,
    f64,
    half::f16,
    half::bf16
);

impl From<bool> for KernelArg<'static> {
    fn from(v: bool) -> KernelArg<'static> {
        KernelArg::scalar(Constant::bool(v))
    }
}

/// An argument's bits at its parameter's width, as the drivers take them.
#[derive(Copy, Clone, Debug)]
pub(crate) enum ArgBits {
    B8(u8),
    B16(u16),
    B32(u32),
    B64(u64),
}

impl ArgBits {
    #[cfg(feature = "hip")]
    pub(crate) fn as_ptr(&self) -> *mut std::ffi::c_void {
        use std::ffi::c_void;
        match self {
            ArgBits::B8(v) => v as *const u8 as *mut c_void,
            ArgBits::B16(v) => v as *const u16 as *mut c_void,
            ArgBits::B32(v) => v as *const u32 as *mut c_void,
            ArgBits::B64(v) => v as *const u64 as *mut c_void,
        }
    }

    /// The argument words of a GPU launch, in the order of the code generator's kernel
    /// signature: the arguments, then the byte length of each buffer argument (what
    /// `buffer.len` reads), then the address of the kernel's bounds record.
    pub(crate) fn of_launch(args: &[KernelArg<'_>], bounds_record: u64) -> Vec<ArgBits> {
        let buffers = args
            .iter()
            .filter(|a| matches!(a.0, ArgRepr::Buffer { .. }));
        args.iter()
            .map(ArgBits::of)
            .chain(buffers.map(|a| ArgBits::B64(a.buffer_bytes())))
            .chain([ArgBits::B64(bounds_record)])
            .collect()
    }

    /// The bits of a checked argument: a buffer's address, a scalar at its type's width
    /// (which the check made the parameter's).
    pub(crate) fn of(arg: &KernelArg<'_>) -> ArgBits {
        match arg.0 {
            ArgRepr::Buffer { addr, .. } => ArgBits::B64(addr),
            ArgRepr::Scalar(c) => match c.ty.size_bytes() {
                1 => ArgBits::B8(c.bits as u8),
                2 => ArgBits::B16(c.bits as u16),
                4 => ArgBits::B32(c.bits as u32),
                _ => ArgBits::B64(c.bits),
            },
        }
    }
}

/// What the launch checks need of a kernel on one device, worked out when its module is
/// loaded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct KernelShape {
    /// The device's subgroup size.
    subgroup: u32,
    /// The largest workgroup: [`Kernel::workgroup_bound`] for `subgroup`.
    max_lanes: u32,
    /// Whether workgroups must be whole groups of [`GROUP_SUBGROUPS`] subgroups.
    groups: bool,
    /// Bytes of shared memory ([`Kernel::shared_layout`]): the dynamic size of CUDA launches.
    pub(crate) shared_bytes: u64,
}

impl KernelShape {
    fn of(kernel: &Kernel, subgroup: u32) -> KernelShape {
        KernelShape {
            subgroup,
            max_lanes: kernel.workgroup_bound(subgroup),
            groups: kernel.uses_groups(),
            shared_bytes: kernel.shared_layout().1,
        }
    }
}

/// A module loaded on a device: its kernels can be launched.
pub struct Module {
    device: Device,
    ir: Arc<kosmos_ir::VerifiedModule>,
    /// One per kernel of `ir`, in order.
    shapes: Vec<KernelShape>,
    /// Each kernel's index in `ir`, by name: launches look kernels up by name.
    by_name: HashMap<String, usize>,
    /// Answers of [`Module::max_resident_workgroups`] so far, by kernel index and lanes:
    /// persistent launches ask before every launch, and the answer never changes.
    resident: Mutex<Vec<(usize, u32, u32)>>,
    /// Where its kernels note out-of-bounds accesses on a GPU.
    bounds: Option<Arc<BoundsRecords>>,
    /// The backend's module.
    inner: Object,
}

impl Device {
    /// Loads `image` on this device, picking the binary the device runs (the PTX of target
    /// `sm_90a` on CUDA, the HSACO of the GPU's processor, e.g. `gfx942`, on HIP, the IR on
    /// the CPU device) and looking up every kernel of the IR in it.
    pub fn load_module(&self, image: &ModuleImage) -> Result<Module> {
        let subgroup = self.subgroup_size();
        let shapes: Vec<KernelShape> = image
            .ir
            .kernels()
            .iter()
            .map(|k| KernelShape::of(k, subgroup))
            .collect();
        let inner = self.backend().load_module(image, &shapes)?;
        let ir = Arc::new(image.ir.clone());
        let by_name = ir.kernels().iter().enumerate();
        Ok(Module {
            device: self.clone(),
            bounds: BoundsRecords::new(self, &ir)?,
            by_name: by_name.map(|(i, k)| (k.name.clone(), i)).collect(),
            ir,
            shapes,
            resident: Mutex::default(),
            inner,
        })
    }
}

impl Drop for Module {
    /// Waits for the device's work before the backend unloads the module: launches are not
    /// tied to the module that queued them, and unloading code a kernel is still running
    /// is undefined on CUDA and HIP. (On the CPU device launches have finished when they
    /// return, and this waits for nothing.) An error of that work was or will be reported
    /// by the stream that ran it; the module is unloaded either way.
    fn drop(&mut self) {
        let _ = self.device.backend().synchronize();
    }
}

impl Module {
    /// The device the module is loaded on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The module's IR.
    pub fn ir(&self) -> &kosmos_ir::VerifiedModule {
        &self.ir
    }

    /// The IR, shared: holding it pins its address, which then names this module's IR
    /// (each load has its own).
    pub(crate) fn shared_ir(&self) -> &Arc<kosmos_ir::VerifiedModule> {
        &self.ir
    }

    fn kernel(&self, name: &str) -> Result<KernelRef<'_>> {
        self.by_name
            .get(name)
            .map(|&index| KernelRef {
                ir: &self.ir.kernels()[index],
                index,
                shape: self.shapes[index],
                bounds_record: self.bounds.as_ref().map_or(0, |b| b.address(index)),
            })
            .ok_or_else(|| Error::NoSuchKernel {
                name: name.to_string(),
                available: self
                    .ir
                    .kernels()
                    .iter()
                    .map(|k| format!("`{}`", k.name))
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Launches kernel `name` on `stream` after checking the configuration and every argument
    /// against the kernel's IR signature. On GPUs the launch is queued; on the CPU device it
    /// has finished when this returns.
    pub fn launch(
        &self,
        stream: &Stream,
        name: &str,
        config: LaunchConfig,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        let kernel = self.kernel(name)?;
        if stream.device != self.device {
            return Err(Error::WrongDevice {
                what: "the stream".into(),
                owner: stream.device.to_string(),
                device: self.device.to_string(),
            });
        }
        check_config(kernel.ir, kernel.shape, config)?;
        check_args(kernel.ir, &self.device, args)?;
        self.device
            .backend()
            .launch(&*self.inner, &*stream.inner, kernel, config, args)?;
        if let Some(bounds) = &self.bounds {
            stream.watch(bounds);
        }
        Ok(())
    }

    /// Whether kernel `name`'s shared memory fits this module's device
    /// ([`Device::max_shared_bytes`]): where it does not, the device's binary leaves the
    /// kernel out and a launch is refused.
    pub fn fits(&self, name: &str) -> Result<bool> {
        let needed = self.kernel(name)?.shape.shared_bytes;
        Ok(self
            .device
            .max_shared_bytes()
            .is_none_or(|limit| needed <= limit))
    }

    /// How many workgroups of `block` lanes of kernel `name` can be resident on the device
    /// at once: the size of a persistent grid. On GPUs occupancy per compute unit times the
    /// number of compute units; on the CPU device its configured resident limit. Asked of
    /// the device once per kernel and workgroup size, then remembered.
    pub fn max_resident_workgroups(&self, name: &str, block: [u32; 3]) -> Result<u32> {
        let kernel = self.kernel(name)?;
        let lanes = check_block(kernel.ir, kernel.shape, block)?;
        let mut known = self.resident.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&(.., n)) = known.iter().find(|k| (k.0, k.1) == (kernel.index, lanes)) {
            return Ok(n);
        }
        let n = self
            .device
            .backend()
            .max_resident_workgroups(&*self.inner, kernel, lanes)?;
        known.push((kernel.index, lanes, n));
        Ok(n)
    }
}

/// Checks the workgroup shape; returns its lane count.
fn check_block(kernel: &Kernel, shape: KernelShape, block: [u32; 3]) -> Result<u32> {
    if block.contains(&0) {
        return Err(Error::invalid_launch(
            &kernel.name,
            format!("workgroup dimensions {block:?} contain a zero"),
        ));
    }
    // Three u32s multiply to less than 2^96: exact in a u128, where a u64 could wrap to 0.
    let lanes: u128 = block.iter().map(|d| u128::from(*d)).product();
    if lanes > u128::from(shape.max_lanes) {
        let bound = match kernel.max_subgroups {
            Some(n) if shape.max_lanes < kernel.max_workgroup_size => format!(
                "max_subgroups {n} of {} lanes: {}",
                shape.subgroup, shape.max_lanes
            ),
            _ => kernel.max_workgroup_size.to_string(),
        };
        return Err(Error::invalid_launch(
            &kernel.name,
            format!(
                "a workgroup of {lanes} lanes ({block:?}) exceeds the kernel's maximum of {bound}"
            ),
        ));
    }
    // Lanes are numbered x fastest, so subgroups (and groups of them) are runs of
    // consecutive lanes whatever the workgroup's shape: only the total matters.
    let group = u128::from(GROUP_SUBGROUPS * shape.subgroup);
    if shape.groups && !lanes.is_multiple_of(group) {
        return Err(Error::invalid_launch(
            &kernel.name,
            format!(
                "a workgroup of {lanes} lanes ({block:?}) is not a whole number of groups: the \
                 kernel uses mma.group, which needs workgroups of a multiple of \
                 {GROUP_SUBGROUPS} subgroups of {} lanes ({group} lanes)",
                shape.subgroup
            ),
        ));
    }
    Ok(lanes as u32)
}

fn check_config(kernel: &Kernel, shape: KernelShape, config: LaunchConfig) -> Result<()> {
    if config.grid.contains(&0) {
        return Err(Error::invalid_launch(
            &kernel.name,
            format!("grid dimensions {:?} contain a zero", config.grid),
        ));
    }
    check_block(kernel, shape, config.block).map(|_| ())
}

/// Checks `args` against the kernel's parameters.
fn check_args(kernel: &Kernel, device: &Device, args: &[KernelArg<'_>]) -> Result<()> {
    if args.len() != kernel.params.len() {
        let signature: Vec<String> = kernel
            .params
            .iter()
            .map(|p| format!("{}: {}", kernel.display_value(*p), kernel.ty(*p)))
            .collect();
        return Err(Error::invalid_launch(
            &kernel.name,
            format!(
                "expected {} argument(s) ({}), got {}",
                kernel.params.len(),
                signature.join(", "),
                args.len()
            ),
        ));
    }
    for (index, (param, arg)) in kernel.params.iter().zip(args).enumerate() {
        let expected = kernel.ty(*param);
        let bad = |problem: String| Error::BadArgument {
            kernel: kernel.name.clone(),
            index,
            param: kernel.display_value(*param),
            problem,
        };
        let mismatch = || bad(format!("expected {expected}, got {}", arg.describe()));
        match (expected, arg.0) {
            (Type::Ptr(AddrSpace::Shared), _) => {
                return Err(bad(
                    "the parameter is a ptr<shared>, which no host argument can fill".into(),
                ));
            }
            (
                Type::Ptr(_),
                ArgRepr::Buffer {
                    addr, device: d, ..
                },
            ) => {
                if d != device {
                    return Err(bad(format!("the buffer belongs to {d}, not to {device}")));
                }
                if addr % ARG_ALIGN != 0 {
                    return Err(bad(format!(
                        "buffer address {addr:#x} is not {ARG_ALIGN}-byte aligned"
                    )));
                }
            }
            (Type::Scalar(ty), ArgRepr::Scalar(c)) if c.ty == ty => {}
            _ => return Err(mismatch()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kosmos_ir::KernelBuilder;

    /// A kernel bounded to `subgroups` subgroups of any size, in a 1024-lane maximum.
    fn bounded(subgroups: u32) -> Kernel {
        let mut b = KernelBuilder::new("bounded", 1024);
        let out = b.param("out", Type::GLOBAL_PTR);
        let i = b.global_id_x();
        let p = b.ptr_offset(out, i, Type::U32);
        b.store(p, i);
        let mut k = b.finish();
        k.max_subgroups = Some(subgroups);
        kosmos_ir::verify(k).unwrap().into_kernel()
    }

    /// One `mma.group` on tiles in shared memory (24 KiB: an 8 KiB `A`, a 16 KiB `B`).
    fn grouped() -> Kernel {
        let mut b = KernelBuilder::new("grouped", 512);
        let a = b.shared_alloc("a", ScalarType::BF16, 64 * 64);
        let bt = b.shared_alloc("b", ScalarType::BF16, 64 * 128);
        let acc = b.wide_zero();
        b.mma_group(a, bt, acc);
        let k = b.finish();
        kosmos_ir::verify(k).unwrap().into_kernel()
    }

    fn refusal(kernel: &Kernel, subgroup: u32, block: [u32; 3]) -> String {
        check_block(kernel, KernelShape::of(kernel, subgroup), block)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn max_subgroups_bounds_workgroups_by_the_subgroup_size() {
        let k = bounded(2);
        for (subgroup, bound) in [(32, 64), (64, 128)] {
            let shape = KernelShape::of(&k, subgroup);
            assert_eq!(shape.max_lanes, bound);
            assert_eq!(check_block(&k, shape, [bound, 1, 1]).unwrap(), bound);
            assert_eq!(check_block(&k, shape, [bound / 4, 2, 2]).unwrap(), bound);
            let msg = refusal(&k, subgroup, [bound + subgroup, 1, 1]);
            assert_eq!(
                msg,
                format!(
                    "launch of `bounded`: a workgroup of {} lanes ([{}, 1, 1]) exceeds the \
                     kernel's maximum of max_subgroups 2 of {subgroup} lanes: {bound}",
                    bound + subgroup,
                    bound + subgroup
                )
            );
        }
        // A bound looser than max_workgroup_size leaves it in force.
        let loose = bounded(32);
        assert_eq!(KernelShape::of(&loose, 64).max_lanes, 1024);
        let msg = refusal(&loose, 64, [1024, 2, 1]);
        assert!(msg.ends_with("maximum of 1024"), "{msg}");
    }

    #[test]
    fn group_kernels_need_whole_groups_of_four_subgroups() {
        let k = grouped();
        for subgroup in [32, 64] {
            let shape = KernelShape::of(&k, subgroup);
            assert!(shape.groups);
            let group = 4 * subgroup;
            assert_eq!(check_block(&k, shape, [group, 1, 1]).unwrap(), group);
            assert_eq!(check_block(&k, shape, [subgroup, 4, 1]).unwrap(), group);
            for lanes in [subgroup, 2 * subgroup, group + subgroup] {
                let msg = refusal(&k, subgroup, [lanes, 1, 1]);
                assert!(
                    msg.starts_with(&format!(
                        "launch of `grouped`: a workgroup of {lanes} lanes"
                    )) && msg.contains("mma.group")
                        && msg.contains(&format!(
                            "multiple of 4 subgroups of {subgroup} lanes ({group} lanes)"
                        )),
                    "{msg}"
                );
            }
        }
        assert_eq!(
            check_block(&k, KernelShape::of(&k, 32), [256, 1, 1]).unwrap(),
            256
        );
        // Kernels without mma.group take any workgroup up to their bound.
        let plain = bounded(8);
        assert!(!KernelShape::of(&plain, 32).groups);
        assert_eq!(
            check_block(&plain, KernelShape::of(&plain, 32), [33, 1, 1]).unwrap(),
            33
        );
    }

    #[test]
    fn shared_bytes_follow_the_layout_rule() {
        assert_eq!(KernelShape::of(&bounded(2), 32).shared_bytes, 0);
        assert_eq!(KernelShape::of(&grouped(), 32).shared_bytes, 24 * 1024);

        // 400 bytes at 0; 16 KiB aligned to 1 KiB, at 1024; 12 bytes aligned to 16, at 17408.
        let mut b = KernelBuilder::new("mixed", 256);
        b.shared_alloc("small", ScalarType::F32, 100);
        b.shared_alloc("tile", ScalarType::BF16, 8192);
        b.shared_alloc("flags", ScalarType::U32, 3);
        let k = b.finish();
        assert_eq!(KernelShape::of(&k, 32).shared_bytes, 17_420);

        // More than CUDA's 48 KiB of static shared memory.
        let mut b = KernelBuilder::new("big", 256);
        b.shared_alloc("a", ScalarType::F32, 16 * 1024);
        b.shared_alloc("b", ScalarType::U8, 1);
        let k = b.finish();
        assert_eq!(KernelShape::of(&k, 32).shared_bytes, 65_537);
    }
}
