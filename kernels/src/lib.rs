//! Ready-made GPU operations, written with `#[kernel]` (see `ops.rs`) and compiled for every
//! target by this crate's build script. Shapes, element types and devices are checked before
//! anything is launched.
//!
//! ```no_run
//! use kosmos::runtime::Device;
//! # fn demo() -> Result<(), kernels::Error> {
//! let device = Device::from_env()?;
//! let ops = kernels::Ops::new(&device)?;
//! let stream = device.stream()?;
//! let a = device.alloc::<f32>(1000)?;
//! let b = device.alloc::<f32>(1000)?;
//! let mut out = device.alloc::<f32>(1000)?;
//! ops.vector_add(&stream, &a, &b, &mut out)?;
//! stream.synchronize()?;
//! # Ok(()) }
//! ```

pub mod ops;

use kosmos::bf16;
use kosmos::runtime::{
    Buffer, Device, DeviceKind, DeviceScalar, LaunchConfig, Module, Stream, Swizzle, TensorMap,
    TensorShape,
};

include!(concat!(env!("OUT_DIR"), "/kosmos_modules.rs"));

/// The kernels of this crate, compiled for every target of the build (IR for the CPU
/// device, PTX, HSACOs): what static checks of the binaries inspect.
pub const MODULE: &kosmos::runtime::EmbeddedModule = &KERNELS;

/// Side of the square output tiles of the gemm kernels.
pub const GEMM_TILE: u32 = 128;
/// Subgroups per gemm workgroup.
pub const GEMM_SUBGROUPS: u32 = 8;

/// Lanes per subgroup on `device`: what the gemm's workgroup size depends on.
pub fn subgroup_size(device: &Device) -> u32 {
    match device.kind() {
        // The CPU device's default configuration runs warp-sized subgroups.
        DeviceKind::Cpu | DeviceKind::Cuda => 32,
        DeviceKind::Hip => 64,
    }
}

/// Workgroups of the first pass of `reduce_sum` at most.
const REDUCE_GROUPS: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Arguments whose shapes do not fit the operation.
    #[error("{op}: {message}")]
    Shape { op: &'static str, message: String },
    /// A buffer or stream of another device than the one the operations were loaded on.
    #[error("{op}: {what} belongs to {owner}, the operations to {device}")]
    WrongDevice {
        op: &'static str,
        what: &'static str,
        owner: String,
        device: String,
    },
    #[error(transparent)]
    Runtime(#[from] kosmos::runtime::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The operations, loaded on one device.
pub struct Ops {
    module: Module,
    /// The `counter` argument of the one-shot gemm instance, which never touches it.
    no_counter: std::sync::Mutex<Buffer<u32>>,
}

impl Ops {
    /// Loads the kernels on `device`.
    pub fn new(device: &Device) -> Result<Ops> {
        Ok(Ops {
            module: device.load_module(&KERNELS.image()?)?,
            no_counter: std::sync::Mutex::new(device.alloc::<u32>(1)?),
        })
    }

    pub fn device(&self) -> &Device {
        self.module.device()
    }

    fn same_device<T: DeviceScalar>(
        &self,
        op: &'static str,
        what: &'static str,
        b: &Buffer<T>,
    ) -> Result<()> {
        if b.device() != self.device() {
            return Err(Error::WrongDevice {
                op,
                what,
                owner: b.device().to_string(),
                device: self.device().to_string(),
            });
        }
        Ok(())
    }

    fn check_stream(&self, op: &'static str, stream: &Stream) -> Result<()> {
        if stream.device() != self.device() {
            return Err(Error::WrongDevice {
                op,
                what: "the stream",
                owner: stream.device().to_string(),
                device: self.device().to_string(),
            });
        }
        Ok(())
    }

    /// `out = a + b`, elementwise; the three buffers have one length.
    pub fn vector_add(
        &self,
        stream: &Stream,
        a: &Buffer<f32>,
        b: &Buffer<f32>,
        out: &mut Buffer<f32>,
    ) -> Result<()> {
        const OP: &str = "vector_add";
        self.check_stream(OP, stream)?;
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        self.same_device(OP, "out", out)?;
        if a.len() != b.len() || a.len() != out.len() {
            return Err(Error::Shape {
                op: OP,
                message: format!(
                    "lengths differ: a {}, b {}, out {}",
                    a.len(),
                    b.len(),
                    out.len()
                ),
            });
        }
        let n = len_u32(OP, a.len())?;
        let cfg = LaunchConfig::for_elements(a.len(), ops::BLOCK);
        ops::vector_add::launch(&self.module, stream, cfg, a, b, out, n)?;
        Ok(())
    }

    /// `out[0] = sum(input)`, accumulated in f32 in a fixed order (two passes: per-workgroup
    /// partial sums, then their sum).
    pub fn reduce_sum(
        &self,
        stream: &Stream,
        input: &Buffer<f32>,
        out: &mut Buffer<f32>,
    ) -> Result<()> {
        const OP: &str = "reduce_sum";
        self.check_stream(OP, stream)?;
        self.same_device(OP, "input", input)?;
        self.same_device(OP, "out", out)?;
        if out.len() != 1 {
            return Err(Error::Shape {
                op: OP,
                message: format!("out holds the sum: 1 element, not {}", out.len()),
            });
        }
        let n = len_u32(OP, input.len())?;
        let groups = input
            .len()
            .div_ceil(ops::BLOCK as usize)
            .clamp(1, REDUCE_GROUPS);
        let mut partials = self.device().alloc::<f32>(groups)?;
        let cfg = LaunchConfig::linear(groups as u32, ops::BLOCK);
        ops::reduce_partial::launch(&self.module, stream, cfg, input, &mut partials, n)?;
        let cfg = LaunchConfig::linear(1, ops::BLOCK);
        ops::reduce_partial::launch(&self.module, stream, cfg, &partials, out, groups as u32)?;
        // `partials` is freed when this returns: wait for the kernels that use it.
        stream.synchronize()?;
        Ok(())
    }

    /// `c = a b` with `a` an `m x k` and `b` a `k x n` row-major bf16 matrix and `c` an
    /// `m x n` row-major f32 matrix (f32 accumulation) on matrix instructions: one workgroup
    /// per [`GEMM_TILE`] x [`GEMM_TILE`] output tile. When `k` and `n` are multiples of 8 it
    /// runs, on CUDA and the CPU device, `ops::gemm_pipeline` (a warp-specialised persistent
    /// pipeline fed by tensor copies, through a [`GemmPlan`] made and waited for here),
    /// elsewhere `ops::gemm_group` (group-wide products fed by asynchronous copies); otherwise
    /// `ops::gemm` (16x16 fragments, any shape).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm(
        &self,
        stream: &Stream,
        a: &Buffer<bf16>,
        b: &Buffer<bf16>,
        c: &mut Buffer<f32>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<()> {
        const OP: &str = "gemm";
        let (mu, nu, ku) = self.check_gemm(OP, stream, a, b, c, m, n, k)?;
        if self.pipeline_runs(a, b, nu, ku) {
            self.gemm_plan(a, b, m, n, k)?.launch(stream, c)?;
            // The plan's tensor maps are freed when this returns: wait for the kernel.
            stream.synchronize()?;
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid: [gemm_tiles(mu, nu), 1, 1],
            block: [self.gemm_block(), 1, 1],
        };
        // The launcher wants the counter writable; this instance never touches it.
        let mut no_counter = self
            .no_counter
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.launch_gemm::<0>(stream, cfg, a, b, c, &mut no_counter, mu, nu, ku)
    }

    /// [`Ops::gemm`] on a persistent grid: as many workgroups as can be resident at once
    /// (`Module::max_resident_workgroups`, at most one per tile), each pulling output tiles
    /// from an atomic counter until none are left. Returns the number of workgroups launched.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_persistent(
        &self,
        stream: &Stream,
        a: &Buffer<bf16>,
        b: &Buffer<bf16>,
        c: &mut Buffer<f32>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<u32> {
        let mut counter = self.device().alloc::<u32>(1)?;
        counter.fill(0)?;
        let groups = self.gemm_persistent_with_counter(stream, a, b, c, &mut counter, m, n, k)?;
        // `counter` is freed when this returns: wait for the kernel that uses it.
        stream.synchronize()?;
        Ok(groups)
    }

    /// [`Ops::gemm_persistent`] with the caller's tile counter, which must hold 0 when the
    /// kernel starts; the launch is asynchronous (no allocation, no synchronisation), for
    /// callers that time it or queue several.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_persistent_with_counter(
        &self,
        stream: &Stream,
        a: &Buffer<bf16>,
        b: &Buffer<bf16>,
        c: &mut Buffer<f32>,
        counter: &mut Buffer<u32>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<u32> {
        const OP: &str = "gemm_persistent";
        let (mu, nu, ku) = self.check_gemm(OP, stream, a, b, c, m, n, k)?;
        self.same_device(OP, "counter", counter)?;
        if counter.len() != 1 {
            return Err(Error::Shape {
                op: OP,
                message: format!("the counter is 1 element, not {}", counter.len()),
            });
        }
        let block = [self.gemm_block(), 1, 1];
        let name = if group_shape(nu, ku) {
            ops::gemm_group::name::<1>()
        } else {
            ops::gemm::name::<1>()
        };
        let resident = self.module.max_resident_workgroups(&name, block)?;
        let groups = resident.clamp(1, gemm_tiles(mu, nu));
        let cfg = LaunchConfig {
            grid: [groups, 1, 1],
            block,
        };
        self.launch_gemm::<1>(stream, cfg, a, b, c, counter, mu, nu, ku)?;
        Ok(groups)
    }

    /// Launches instance `PERSISTENT` of the gemm kernel for this shape: `gemm_group` when
    /// [`group_shape`] allows, else the fragment `gemm`.
    #[allow(clippy::too_many_arguments)]
    fn launch_gemm<const PERSISTENT: u32>(
        &self,
        stream: &Stream,
        cfg: LaunchConfig,
        a: &Buffer<bf16>,
        b: &Buffer<bf16>,
        c: &mut Buffer<f32>,
        counter: &mut Buffer<u32>,
        m: u32,
        n: u32,
        k: u32,
    ) -> Result<()> {
        let md = &self.module;
        if group_shape(n, k) {
            ops::gemm_group::launch::<PERSISTENT>(md, stream, cfg, a, b, c, counter, m, n, k)?;
        } else {
            ops::gemm::launch::<PERSISTENT>(md, stream, cfg, a, b, c, counter, m, n, k)?;
        }
        Ok(())
    }

    /// [`Ops::gemm`] with `a` and `b` bound once: their tensor maps are encoded here, so
    /// each [`GemmPlan::launch`] is one asynchronous launch of the pipelined kernel
    /// (`ops::gemm_pipeline`). Needs a device that runs it (CUDA or the CPU device), `k` and
    /// `n` multiples of 8 and operands 16-byte aligned.
    pub fn gemm_plan<'a>(
        &'a self,
        a: &'a Buffer<bf16>,
        b: &'a Buffer<bf16>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<GemmPlan<'a>> {
        const OP: &str = "gemm_plan";
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        let (mu, nu, ku) = check_operands(OP, a, b, m, n, k)?;
        if !self.pipeline_runs(a, b, nu, ku) {
            return Err(Error::Shape {
                op: OP,
                message: format!(
                    "the pipelined gemm runs on CUDA and the CPU device, with k and n multiples of 8 \
                     and 16-byte aligned operands (device {}, k = {k}, n = {n})",
                    self.device()
                ),
            });
        }
        let map = |buffer, rows: u32, cols: u32, box_rows| {
            let shape = TensorShape {
                rows: rows.into(),
                cols: cols.into(),
                row_stride: cols.into(),
                box_rows,
                box_cols: 64,
            };
            TensorMap::tiled(buffer, shape, Swizzle::B128)
        };
        let block = [PIPE_SUBGROUPS * 32, 1, 1];
        // The same resident count for both instances (one workgroup per processor).
        let resident = self
            .module
            .max_resident_workgroups(&ops::gemm_pipeline::name::<0>(), block)?;
        let wide = wide_tiles(mu, nu, resident);
        let tiles = mu.div_ceil(GEMM_TILE) * nu.div_ceil(GEMM_TILE << u32::from(wide));
        Ok(GemmPlan {
            ops: self,
            a_map: map(a, mu, ku, 128)?,
            b_map: map(b, ku, nu, 64)?,
            shape: (mu, nu, ku),
            wide,
            cfg: LaunchConfig {
                grid: [resident.clamp(1, tiles), 1, 1],
                block,
            },
        })
    }

    /// Whether `gemm_pipeline` runs these operands here.
    fn pipeline_runs(&self, a: &Buffer<bf16>, b: &Buffer<bf16>, n: u32, k: u32) -> bool {
        // HIP targets have too little shared memory for the kernel (their binaries leave it
        // out). The CPU device runs the groups of a workgroup on threads of their own, so the
        // producer group's waits let the consumer groups run.
        let device = matches!(self.device().kind(), DeviceKind::Cuda | DeviceKind::Cpu);
        let aligned = [a.device_ptr(), b.device_ptr()]
            .iter()
            .all(|p| p.is_multiple_of(16));
        device && aligned && group_shape(n, k)
    }

    fn gemm_block(&self) -> u32 {
        GEMM_SUBGROUPS * subgroup_size(self.device())
    }

    #[allow(clippy::too_many_arguments)]
    fn check_gemm(
        &self,
        op: &'static str,
        stream: &Stream,
        a: &Buffer<bf16>,
        b: &Buffer<bf16>,
        c: &Buffer<f32>,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<(u32, u32, u32)> {
        self.check_stream(op, stream)?;
        self.same_device(op, "a", a)?;
        self.same_device(op, "b", b)?;
        self.same_device(op, "c", c)?;
        let shape = check_operands(op, a, b, m, n, k)?;
        check_output(op, c, m, n)?;
        Ok(shape)
    }
}

/// Workgroups of [`ops::gemm_pipeline`] have this many subgroups of 32 lanes.
pub const PIPE_SUBGROUPS: u32 = 12;

/// A gemm with its operands bound: see [`Ops::gemm_plan`].
pub struct GemmPlan<'a> {
    ops: &'a Ops,
    a_map: TensorMap<'a>,
    b_map: TensorMap<'a>,
    shape: (u32, u32, u32),
    /// 128 x 256 output tiles (`WIDE = 1`) rather than 128 x 128.
    wide: bool,
    cfg: LaunchConfig,
}

impl GemmPlan<'_> {
    /// Queues `c = a b` on `stream` (no synchronisation).
    pub fn launch(&self, stream: &Stream, c: &mut Buffer<f32>) -> Result<()> {
        const OP: &str = "GemmPlan::launch";
        let ops = self.ops;
        ops.check_stream(OP, stream)?;
        ops.same_device(OP, "c", c)?;
        let (m, n, k) = self.shape;
        check_output(OP, c, m as usize, n as usize)?;
        let (md, cfg, a, b) = (&ops.module, self.cfg, &self.a_map, &self.b_map);
        if self.wide {
            ops::gemm_pipeline::launch::<1>(md, stream, cfg, a, b, c, m, n, k)?;
        } else {
            ops::gemm_pipeline::launch::<0>(md, stream, cfg, a, b, c, m, n, k)?;
        }
        Ok(())
    }

    /// Workgroups per launch.
    pub fn workgroups(&self) -> u32 {
        self.cfg.grid[0]
    }
}

/// `a` (`m x k`) and `b` (`k x n`) hold their matrices, within the kernels' u32 indexing.
fn check_operands(
    op: &'static str,
    a: &Buffer<bf16>,
    b: &Buffer<bf16>,
    m: usize,
    n: usize,
    k: usize,
) -> Result<(u32, u32, u32)> {
    if m == 0 || n == 0 || k == 0 {
        return Err(Error::Shape {
            op,
            message: format!("empty shape m={m} n={n} k={k}"),
        });
    }
    for (what, len, rows, cols) in [("a", a.len(), m, k), ("b", b.len(), k, n)] {
        check_matrix(op, what, len, rows, cols)?;
    }
    Ok((m as u32, n as u32, k as u32))
}

/// `c` holds an `m x n` matrix.
fn check_output(op: &'static str, c: &Buffer<f32>, m: usize, n: usize) -> Result<()> {
    check_matrix(op, "c", c.len(), m, n)
}

fn check_matrix(op: &'static str, what: &str, len: usize, rows: usize, cols: usize) -> Result<()> {
    if rows.checked_mul(cols) != Some(len) {
        return Err(Error::Shape {
            op,
            message: format!("{what} has {len} elements, expected {rows} x {cols}"),
        });
    }
    // Element offsets are u32 inside the kernels.
    len_u32(op, len).map(drop)
}

/// Whether a gemm of this shape runs on the group-wide matrix kernel (`gemm_group`), whose
/// 16-byte copies need rows of `a` and `b` made of whole 8-element chunks.
fn group_shape(n: u32, k: u32) -> bool {
    n.is_multiple_of(8) && k.is_multiple_of(8)
}

/// Whether the pipelined gemm of `m x n` takes 128 x 256 tiles on `workgroups` resident
/// workgroups: they multiply faster, so they win unless their last wave leaves clearly more
/// of the processors idle than 128 x 128 tiles would.
fn wide_tiles(m: u32, n: u32, workgroups: u32) -> bool {
    let busy = |tiles: u32| f64::from(tiles) / f64::from(tiles.div_ceil(workgroups) * workgroups);
    let rows = m.div_ceil(GEMM_TILE);
    busy(rows * n.div_ceil(2 * GEMM_TILE)) >= busy(rows * n.div_ceil(GEMM_TILE)) - 0.05
}

/// Output tiles of an `m x n` gemm.
fn gemm_tiles(m: u32, n: u32) -> u32 {
    m.div_ceil(GEMM_TILE) * n.div_ceil(GEMM_TILE)
}

fn len_u32(op: &'static str, len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::Shape {
        op,
        message: format!("{len} elements exceed the kernels' u32 indexing"),
    })
}
