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

mod maps;
pub mod mlp;
pub mod moe;
pub mod ops;
pub mod plans;
pub mod tp;

pub use mlp::{MlpShape, TpMlp};
pub use moe::{
    MoeForwardPass, MoeGradients, MoeLayer, MoeOptions, MoeSaved, MoeShape, MoeWeights,
    PIPELINED_BACKWARD_ROWS, Routing,
};
pub use tp::{TpForward, TpOps, TpOutput};

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
    /// A world's refusal or a scheduled launch's failure (a bounded wait that gave up names
    /// rank, workgroup and task).
    #[error(transparent)]
    World(#[from] kosmos::runtime::WorldError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The operations, loaded on one device.
pub struct Ops {
    module: Module,
    /// The `counter` argument of the one-shot gemm instance, which never touches it.
    no_counter: std::sync::Mutex<Buffer<u32>>,
    /// The output argument of the pipelined gemm that a launch does not write (f32 for a
    /// bf16 result and the other way round).
    spare_outputs: std::sync::Mutex<(Buffer<f32>, Buffer<bf16>)>,
}

impl Ops {
    /// Loads the kernels on `device`.
    pub fn new(device: &Device) -> Result<Ops> {
        Ok(Ops {
            module: device.load_module(&KERNELS.image()?)?,
            no_counter: std::sync::Mutex::new(device.alloc::<u32>(1)?),
            spare_outputs: std::sync::Mutex::new((device.alloc(1)?, device.alloc(1)?)),
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
        let inputs = [("a", a.device(), a.len()), ("b", b.device(), b.len())];
        let (n, cfg) = self.check_elementwise(OP, stream, &inputs, ("out", out))?;
        ops::vector_add::launch(&self.module, stream, cfg, a, b, out, n)?;
        Ok(())
    }

    /// `h = gelu(z)` elementwise (the tanh form; `ops::gelu`), rounded to bf16.
    pub fn gelu(&self, stream: &Stream, z: &Buffer<f32>, h: &mut Buffer<bf16>) -> Result<()> {
        const OP: &str = "gelu";
        let (n, cfg) =
            self.check_elementwise(OP, stream, &[("z", z.device(), z.len())], ("h", h))?;
        ops::gelu::launch(&self.module, stream, cfg, z, h, n)?;
        Ok(())
    }

    /// Fills `out` with `scale` times hashed values in `[-1, 1)` of `seed` and each index
    /// (`ops::fill_random`): reproducible random weights made on the device, of any size.
    pub fn fill_random(
        &self,
        stream: &Stream,
        out: &mut Buffer<bf16>,
        seed: u32,
        scale: f32,
    ) -> Result<()> {
        const OP: &str = "fill_random";
        self.check_stream(OP, stream)?;
        self.same_device(OP, "out", out)?;
        // A grid-stride loop over 64-bit indices: any length, at most 65536 workgroups.
        let grid = out.len().div_ceil(ops::BLOCK as usize).clamp(1, 65_536) as u32;
        ops::fill_random::launch(
            &self.module,
            stream,
            LaunchConfig::linear(grid, ops::BLOCK),
            out,
            seed,
            scale,
        )?;
        Ok(())
    }

    /// `dz = dh gelu'(z)` elementwise (`ops::gelu_backward`), rounded to bf16.
    pub fn gelu_backward(
        &self,
        stream: &Stream,
        dh: &Buffer<f32>,
        z: &Buffer<f32>,
        dz: &mut Buffer<bf16>,
    ) -> Result<()> {
        const OP: &str = "gelu_backward";
        let inputs = [("dh", dh.device(), dh.len()), ("z", z.device(), z.len())];
        let (n, cfg) = self.check_elementwise(OP, stream, &inputs, ("dz", dz))?;
        ops::gelu_backward::launch(&self.module, stream, cfg, dh, z, dz, n)?;
        Ok(())
    }

    /// The stream and every buffer of an elementwise op are on this device, and the inputs
    /// (name, device, length) are as long as the output; gives the element count and the
    /// launch's configuration.
    fn check_elementwise<T: DeviceScalar>(
        &self,
        op: &'static str,
        stream: &Stream,
        inputs: &[(&'static str, &Device, usize)],
        (out_name, out): (&'static str, &Buffer<T>),
    ) -> Result<(u32, LaunchConfig)> {
        self.check_stream(op, stream)?;
        self.same_device(op, out_name, out)?;
        for &(what, device, len) in inputs {
            if device != self.device() {
                return Err(Error::WrongDevice {
                    op,
                    what,
                    owner: device.to_string(),
                    device: self.device().to_string(),
                });
            }
            if len != out.len() {
                return Err(Error::Shape {
                    op,
                    message: format!("{what} has {len} elements, {out_name} {}", out.len()),
                });
            }
        }
        let n = len_u32(op, out.len())?;
        Ok((n, LaunchConfig::for_elements(out.len(), ops::BLOCK)))
    }

    /// `out = parts[0] + parts[1] + ...` elementwise, in f32 in the order given (one
    /// `ops::accumulate` launch per part, from `0 + parts[0]`): the gradient of a weight
    /// every rank holds, from the ranks' parts (f32 or bf16). Refused: no parts, a part of
    /// another length or device.
    pub fn sum_parts<T: Part>(
        &self,
        stream: &Stream,
        parts: &[Buffer<T>],
        out: &mut Buffer<f32>,
    ) -> Result<()> {
        const OP: &str = "sum_parts";
        if parts.is_empty() {
            return Err(Error::Shape {
                op: OP,
                message: "no parts to sum".into(),
            });
        }
        let inputs: Vec<_> = parts
            .iter()
            .map(|p| ("a part", p.device(), p.len()))
            .collect();
        let (n, cfg) = self.check_elementwise(OP, stream, &inputs, ("out", out))?;
        for (i, part) in parts.iter().enumerate() {
            T::accumulate(&self.module, stream, cfg, part, out, u32::from(i == 0), n)?;
        }
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
    /// `ops::gemm` (the group-wide products on tiles staged element by element, any shape).
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
        if self
            .pipeline_problem(a, Layout::N, b, Layout::N, (mu, nu, ku))
            .is_none()
        {
            self.gemm_plan(a, Layout::N, b, Layout::N, m, n, k)?
                .launch(stream, c)?;
            // The plan's tensor maps are freed when this returns: wait for the kernel.
            stream.synchronize()?;
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid: [gemm_tiles(mu, nu, false), 1, 1],
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
        let groups = resident.clamp(1, gemm_tiles(mu, nu, false));
        let cfg = LaunchConfig {
            grid: [groups, 1, 1],
            block,
        };
        self.launch_gemm::<1>(stream, cfg, a, b, c, counter, mu, nu, ku)?;
        Ok(groups)
    }

    /// Launches instance `PERSISTENT` of the gemm kernel for this shape: `gemm_group` when
    /// [`group_shape`] allows, else the any-shape `gemm`.
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

    /// `c = op(a) op(b)` with `a` and `b` bound once: `op(a)` is `m x k` and `op(b)` is
    /// `k x n`, each stored row-major as itself ([`Layout::N`]) or transposed ([`Layout::T`]:
    /// `a` as `k x m`, `b` as `n x k`), bf16. Their tensor maps are encoded here, so each
    /// [`GemmPlan::launch`] is one asynchronous launch of the pipelined kernel
    /// (`ops::gemm_pipeline`), writing f32 or bf16. Runs on CUDA and the CPU device, with
    /// 16-byte aligned operands whose stored rows are whole 16-byte units (a multiple of 8
    /// elements: `k` for `a` and `n` for `b` as stored, `m` for `a^T`, `k` for `b^T`) and
    /// `n` a multiple of 8 (the rows of `c`); otherwise an error says which argument does not
    /// fit.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_plan<'a>(
        &'a self,
        a: &'a Buffer<bf16>,
        a_layout: Layout,
        b: &'a Buffer<bf16>,
        b_layout: Layout,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<GemmPlan<'a>> {
        const OP: &str = "gemm_plan";
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        let (mu, nu, ku) = check_operands(OP, a, b, m, n, k)?;
        if let Some(message) = self.pipeline_problem(a, a_layout, b, b_layout, (mu, nu, ku)) {
            return Err(Error::Shape { op: OP, message });
        }
        let block = [PIPE_SUBGROUPS * 32, 1, 1];
        // The same resident count for every instance (one workgroup per processor).
        let resident = self
            .module
            .max_resident_workgroups(&ops::gemm_pipeline::name::<0, 0, 0, 0>(), block)?;
        let wide_rows = wide_rows(mu, nu, resident);
        // Boxes: `a` 128 rows of m by 64 of k, or 64 x 64 of a^T; `b` 64 x 64, or 128 rows
        // of b^T by 64 of k.
        let (a_rows, a_cols, a_box) = match a_layout {
            Layout::N => (mu, ku, 128),
            Layout::T => (ku, mu, 64),
        };
        let (b_rows, b_cols, b_box) = match b_layout {
            Layout::N => (ku, nu, 64),
            Layout::T => (nu, ku, GEMM_TILE),
        };
        Ok(GemmPlan {
            ops: self,
            a_map: tile_map(a, a_rows, a_cols, a_box)?,
            b_map: tile_map(b, b_rows, b_cols, b_box)?,
            shape: (mu, nu, ku),
            wide_rows,
            layouts: [a_layout.bit(), b_layout.bit()],
            resident,
            block,
        })
    }

    /// Why `gemm_pipeline` cannot run these operands here, if it cannot.
    fn pipeline_problem(
        &self,
        a: &Buffer<bf16>,
        a_layout: Layout,
        b: &Buffer<bf16>,
        b_layout: Layout,
        (m, n, k): (u32, u32, u32),
    ) -> Option<String> {
        // HIP targets have too little shared memory for the kernel (their binaries leave it
        // out). The CPU device runs the groups of a workgroup on threads of their own, so the
        // producer group's waits let the consumer groups run.
        if !matches!(self.device().kind(), DeviceKind::Cuda | DeviceKind::Cpu) {
            return Some(format!(
                "the pipelined gemm runs on CUDA and the CPU device, not on {}",
                self.device()
            ));
        }
        let a_row = match a_layout {
            Layout::N => ("a", "k", k),
            Layout::T => ("a^T", "m", m),
        };
        let b_row = match b_layout {
            Layout::N => ("b", "n", n),
            Layout::T => ("b^T", "k", k),
        };
        for ((what, dim, len), buffer) in
            [(a_row, Some(a)), (b_row, Some(b)), (("c", "n", n), None)]
        {
            if buffer.is_some_and(|b| !b.device_ptr().is_multiple_of(16)) {
                return Some(format!("{what} is not 16-byte aligned"));
            }
            if !len.is_multiple_of(8) {
                return Some(format!(
                    "the rows of {what} ({dim} = {len}) are not a multiple of 8 elements"
                ));
            }
        }
        None
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
        check_matrix(op, "c", c.len(), m, n)?;
        Ok(shape)
    }
}

/// How a gemm operand is stored (BLAS's convention): row-major as the operand itself, or
/// as its transpose.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `a` as `m x k`, `b` as `k x n`.
    N,
    /// `a` as `k x m` (A^T), `b` as `n x k` (B^T): e.g. `dX = dY W^T`, `dW = X^T dY`.
    T,
}

impl Layout {
    fn bit(self) -> u32 {
        match self {
            Layout::N => 0,
            Layout::T => 1,
        }
    }
}

/// The result buffer of a [`GemmPlan::launch`]: f32, or bf16 (rounded to nearest even; the
/// accumulation is f32 either way).
pub enum GemmOutput<'a> {
    F32(&'a mut Buffer<f32>),
    Bf16(&'a mut Buffer<bf16>),
}

impl<'a> From<&'a mut Buffer<f32>> for GemmOutput<'a> {
    fn from(c: &'a mut Buffer<f32>) -> Self {
        GemmOutput::F32(c)
    }
}

impl<'a> From<&'a mut Buffer<bf16>> for GemmOutput<'a> {
    fn from(c: &'a mut Buffer<bf16>) -> Self {
        GemmOutput::Bf16(c)
    }
}

/// The map of a `rows x cols` row-major bf16 tensor in boxes of `box_rows x 64` with the
/// 128-byte swizzle (the layout the group matrix instructions read).
fn tile_map(buffer: &Buffer<bf16>, rows: u32, cols: u32, box_rows: u32) -> Result<TensorMap<'_>> {
    Ok(TensorMap::tiled(
        buffer,
        tile_shape(rows, cols, box_rows),
        Swizzle::B128,
    )?)
}

/// The shape of [`tile_map`]'s map: a `rows x cols` row-major tensor, boxes of `box_rows x
/// 64` elements.
pub(crate) fn tile_shape(rows: u32, cols: u32, box_rows: u32) -> TensorShape {
    TensorShape {
        rows: rows.into(),
        cols: cols.into(),
        row_stride: cols.into(),
        box_rows,
        box_cols: 64,
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
    /// Output rows cut in 128 x 256 tiles (the rest in 128 x 128): see [`wide_rows`].
    wide_rows: u32,
    /// The const generics `TA`, `TB` of the kernel instance.
    layouts: [u32; 2],
    /// Workgroups that fit on the device at once: the most a launch takes.
    resident: u32,
    block: [u32; 3],
}

impl GemmPlan<'_> {
    /// Queues `c = op(a) op(b)` on `stream` (no synchronisation); `c` (`m x n`, row-major) is
    /// a `&mut Buffer<f32>` or `&mut Buffer<bf16>`. One launch, or two where the rows are
    /// split between tile widths ([`GemmPlan::wide_rows`]).
    pub fn launch<'c>(&self, stream: &Stream, c: impl Into<GemmOutput<'c>>) -> Result<()> {
        const OP: &str = "GemmPlan::launch";
        let ops = self.ops;
        ops.check_stream(OP, stream)?;
        let (m, n, k) = self.shape;
        let mut spare = ops
            .spare_outputs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (spare_f32, spare_bf16) = &mut *spare;
        let (c, c16, bf16_out) = match c.into() {
            GemmOutput::F32(c) => {
                ops.same_device(OP, "c", c)?;
                check_matrix(OP, "c", c.len(), m as usize, n as usize)?;
                (c, spare_bf16, 0)
            }
            GemmOutput::Bf16(c) => {
                ops.same_device(OP, "c", c)?;
                check_matrix(OP, "c", c.len(), m as usize, n as usize)?;
                (spare_f32, c, 1)
            }
        };
        let [ta, tb] = self.layouts;
        let (md, a, b) = (&ops.module, &self.a_map, &self.b_map);
        let wide_end = self.wide_rows.min(m);
        // Rows `0..wide_end` in wide tiles, then the rest in narrow ones.
        for (wide, first_row, end) in [(1, 0, wide_end), (0, wide_end, m)] {
            if first_row == end {
                continue;
            }
            let name = ops::gemm_pipeline::name_of(wide, ta, tb, bf16_out);
            let cfg = self.launch_config(end - first_row, wide == 1);
            ops::gemm_pipeline::launch_instance(
                md, stream, cfg, &name, a, b, c, c16, end, n, k, first_row,
            )?;
        }
        Ok(())
    }

    /// Output rows `0..wide_rows()` are cut in tiles of 128 x 256, the rest in 128 x 128.
    pub fn wide_rows(&self) -> usize {
        self.wide_rows as usize
    }

    /// The same plan with the first `rows` output rows in 128 x 256 tiles and the rest in
    /// 128 x 128 (by default the split that [`Ops::gemm_plan`] estimates fastest on this
    /// device's processors): `rows` a multiple of 128, at most `m` rounded up to one.
    pub fn with_wide_rows(mut self, rows: usize) -> Result<Self> {
        let (m, _, _) = self.shape;
        let most = m.next_multiple_of(GEMM_TILE) as usize;
        if !rows.is_multiple_of(GEMM_TILE as usize) || rows > most {
            return Err(Error::Shape {
                op: "GemmPlan::with_wide_rows",
                message: format!(
                    "rows {rows} must be a multiple of {GEMM_TILE} and at most {most}"
                ),
            });
        }
        self.wide_rows = rows as u32;
        Ok(self)
    }

    /// The launch of `rows` output rows in tiles of 128 x 256 (`wide`) or 128 x 128.
    fn launch_config(&self, rows: u32, wide: bool) -> LaunchConfig {
        let tiles = gemm_tiles(rows, self.shape.1, wide);
        LaunchConfig {
            grid: [self.resident.clamp(1, tiles), 1, 1],
            block: self.block,
        }
    }

    /// Workgroups of the plan's (first) launch.
    pub fn workgroups(&self) -> u32 {
        let (m, _, _) = self.shape;
        let wide_end = self.wide_rows.min(m);
        if wide_end > 0 {
            self.launch_config(wide_end, true).grid[0]
        } else {
            self.launch_config(m, false).grid[0]
        }
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

/// Time of a 128 x 128 tile of the pipelined gemm over that of a 128 x 256 one: half the
/// products, at the lower rate of tiles that read their `a` boxes for fewer of them (688
/// against 761 TF/s at 8192^3 on the H200, bench/RESULTS.md, twelfth batch).
const NARROW_TILE_COST: f64 = 0.55;

/// The rows of an `m x n` pipelined gemm to cut in 128 x 256 tiles (one launch), the rest
/// going in 128 x 128 tiles (a second launch), on `workgroups` resident workgroups: see
/// [`fewest_waves`].
fn wide_rows(m: u32, n: u32, workgroups: u32) -> u32 {
    let row_tiles = m.div_ceil(GEMM_TILE);
    let tiles = |wide: u32| {
        (
            gemm_tiles(wide * GEMM_TILE, n, true),
            gemm_tiles((row_tiles - wide) * GEMM_TILE, n, false),
        )
    };
    fewest_waves(row_tiles, tiles, workgroups) * GEMM_TILE
}

/// How many of `rows` rows of tiles to cut in 128 x 256 tiles, the rest in 128 x 128 ones,
/// for the fewest waves on `workgroups` resident workgroups, a wave of wide tiles costing 1
/// and one of narrow tiles [`NARROW_TILE_COST`]: wide tiles multiply faster, narrow ones fill
/// a last wave that wide ones would leave part empty. `tiles(r)` gives the wide and narrow
/// tiles with `r` rows wide. A tie keeps the wider split.
pub(crate) fn fewest_waves(rows: u32, tiles: impl Fn(u32) -> (u32, u32), workgroups: u32) -> u32 {
    let w = workgroups.max(1);
    let waves = |wide_rows: u32| {
        let (wide, narrow) = tiles(wide_rows);
        f64::from(wide.div_ceil(w)) + f64::from(narrow.div_ceil(w)) * NARROW_TILE_COST
    };
    let mut best = (rows, waves(rows));
    for r in (0..rows).rev() {
        let t = waves(r);
        if t < best.1 - 1e-9 {
            best = (r, t);
        }
    }
    best.0
}

/// Output tiles of an `m x n` gemm: [`GEMM_TILE`] rows by [`GEMM_TILE`] columns, or twice as
/// many columns when `wide`.
fn gemm_tiles(m: u32, n: u32, wide: bool) -> u32 {
    m.div_ceil(GEMM_TILE) * n.div_ceil(GEMM_TILE << u32::from(wide))
}

/// Each rank's copy of `what` (of a world op `op`) holds the product of `dims` elements.
pub(crate) fn check_len(op: &'static str, what: &str, len: usize, dims: &[usize]) -> Result<()> {
    let want = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if want != Some(len) {
        let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
        return Err(Error::Shape {
            op,
            message: format!(
                "{what} has {len} elements per rank, expected {}",
                dims.join(" x ")
            ),
        });
    }
    Ok(())
}

fn len_u32(op: &'static str, len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::Shape {
        op,
        message: format!("{len} elements exceed the kernels' u32 indexing"),
    })
}

/// The element types [`Ops::sum_parts`] sums (into f32).
pub trait Part: kosmos::runtime::DeviceScalar {
    #[doc(hidden)]
    fn accumulate(
        module: &Module,
        stream: &Stream,
        cfg: LaunchConfig,
        part: &Buffer<Self>,
        out: &mut Buffer<f32>,
        first: u32,
        n: u32,
    ) -> Result<()>;
}

impl Part for f32 {
    fn accumulate(
        module: &Module,
        stream: &Stream,
        cfg: LaunchConfig,
        part: &Buffer<f32>,
        out: &mut Buffer<f32>,
        first: u32,
        n: u32,
    ) -> Result<()> {
        Ok(ops::accumulate::launch(
            module, stream, cfg, part, out, first, n,
        )?)
    }
}

impl Part for bf16 {
    fn accumulate(
        module: &Module,
        stream: &Stream,
        cfg: LaunchConfig,
        part: &Buffer<bf16>,
        out: &mut Buffer<f32>,
        first: u32,
        n: u32,
    ) -> Result<()> {
        Ok(ops::accumulate_bf16::launch(
            module, stream, cfg, part, out, first, n,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::{gemm_tiles, wide_rows};

    #[test]
    fn narrow_tiles_fill_the_last_wave() {
        // Llama-3-70B QKV on the H200's 132 processors: 320 wide tiles take three waves, the
        // last 42% full; 52 rows of wide tiles (260, two waves) then 120 narrow ones (one
        // wave) take 2.55 wide waves' time.
        assert_eq!(wide_rows(8192, 1280, 132), 52 * 128);
        assert_eq!(gemm_tiles(52 * 128, 1280, true), 260);
        assert_eq!(gemm_tiles(12 * 128, 1280, false), 120);
        // 2048 wide tiles: the last of 16 waves is half full, but narrow tiles would not
        // shorten it.
        assert_eq!(wide_rows(8192, 8192, 132), 8192);
        // 64 narrow tiles fit in one wave, as 32 wide ones would, each taking longer.
        assert_eq!(wide_rows(1000, 1000, 132), 0);
    }
}
