//! `World`: a world of ranks emulated on one device, with the fused tensor-parallel ops
//! (`kernels::TpOps`) and the MoE layer (`kernels::MoeLayer`, forward and backward) on it.
//!
//! Per-rank tensors are arrays stacked over a leading rank axis (`R x ...`), host arrays or
//! CUDA tensors on the world's GPU: each call stages them into symmetric buffers the world
//! keeps for the call's shapes (`pool`: uploads, or device copies on the caller's stream),
//! runs the op and copies the results back: into host arrays after waiting for the world
//! (`World::synchronize`, which is where a bounded wait that gave up is reported, naming
//! rank, workgroup and task), into CUDA tensors by device copies queued on the caller's
//! stream, without a host wait (`World.synchronize()` reports). The MoE backward pass sums
//! the replicated weights' gradients on the host, so it waits.

use crate::arrays::{Array, Elem, Place, Want, check_shape, weight_dims};
use crate::errors::{Failure, Result, guarded};
use crate::moe_args::{MoeArgs, MoeGradientArgs, MoeInputs, moe_gradients, moe_inputs};
use crate::pool::{Pool, Pooled};
use crate::staging::{Slab, Target, place_of, target};
use kernels::{
    Layout, MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, Part, TpForward, TpOps,
    TpOutput,
};
use kosmos::bf16;
use kosmos_runtime::{DeviceScalar, SymmetricBuffer, WorldOptions, copy_range_from_peer};
use pyo3::prelude::*;
use std::time::Duration;

/// A world of `ranks` ranks emulated on one device (`"cpu"` or `"cuda:N"`).
#[pyclass(module = "kosmos._native")]
pub struct World {
    world: kosmos_runtime::World,
    /// The world's device, with the kernels loaded (shared with `gemm`'s arrays there).
    target: &'static Target,
    tp: TpOps,
    /// The MoE layer of the last shape and options used (it holds buffers for them).
    moe: Option<MoeLayer>,
    /// The buffers the calls stage their arrays through, kept for their shapes.
    pool: Pool,
    workgroups: Option<u32>,
    /// The caller's CUDA stream of the call in progress (0 outside CUDA).
    stream: u64,
}

/// A world's settings from the Python arguments: the polls of a bounded wait, and how long
/// the host waits for a launch.
pub(crate) fn world_options(
    wait_bound: Option<u32>,
    host_wait_seconds: Option<f64>,
) -> Result<WorldOptions> {
    let host_wait_limit = host_wait_seconds
        .map(|s| {
            Duration::try_from_secs_f64(s)
                .map_err(|e| Failure::Value(format!("host_wait_seconds = {s}: {e}")))
        })
        .transpose()?;
    Ok(WorldOptions {
        wait_bound,
        host_wait_limit,
        ..WorldOptions::default()
    })
}

/// An array of the leading-rank-axis form, as the work released from the interpreter lock
/// sees it.
#[derive(Copy, Clone)]
struct Stacked(Slab);

impl Stacked {
    /// Rank `r`'s part of `len` elements, of a host array.
    ///
    /// # Safety
    ///
    /// As [`Slab::host`]; `len * (r + 1)` is within the array (its shape was checked).
    unsafe fn rank<'a, T>(self, r: usize, len: usize) -> &'a [T] {
        unsafe { &self.0.host::<T>()[r * len..(r + 1) * len] }
    }
}

impl World {
    /// Imports an argument: a host array, or a CUDA tensor on the world's GPU.
    fn import(
        &self,
        object: &Bound<'_, PyAny>,
        name: &'static str,
        elems: &[Elem],
        ndim: usize,
        output: bool,
    ) -> Result<Array> {
        let want = Want {
            name,
            elems,
            ndim,
            output,
        };
        let a = Array::import(object, want, self.stream)?;
        if a.place != Place::Host && a.place != self.target.place {
            return Err(Failure::Value(format!(
                "{name}: in {}, but the world runs on {} (host arrays, or CUDA tensors on its GPU)",
                a.place,
                self.world.device()
            )));
        }
        Ok(a)
    }

    fn input(&self, object: &Bound<'_, PyAny>, name: &'static str, ndim: usize) -> Result<Array> {
        self.import(object, name, &[Elem::Bf16], ndim, false)
    }

    fn output(&self, object: &Bound<'_, PyAny>, name: &'static str, ndim: usize) -> Result<Array> {
        self.import(object, name, &[Elem::F32, Elem::Bf16], ndim, true)
    }

    /// Queues the call's launches and device copies on the caller's stream, on a CUDA world.
    fn use_caller_stream(&mut self) -> Result<()> {
        if self.target.place != Place::Host {
            let stream = self.target.stream(self.stream)?;
            self.world.use_stream(0, stream)?;
        }
        Ok(())
    }

    /// Makes the pool's buffer for `use_` of `len` elements per rank hold `src`: for a CUDA
    /// array copies of `parts(r)` = (element of `src`, element of rank `r`'s copy, length)
    /// into each rank's copy, queued on the rank's stream; for a host array `fill(r, copy)`
    /// fills rank `r`'s copy (the rest zero) and uploads it.
    fn staged<T: Pooled + Default>(
        &mut self,
        use_: &'static str,
        src: Stacked,
        len: usize,
        parts: impl Fn(usize) -> (usize, usize, usize),
        fill: impl Fn(usize, &mut [T]),
    ) -> Result<()> {
        self.pool.ensure::<T>(&mut self.world, use_, len)?;
        let b = self.pool.get::<T>(use_, len);
        if src.0.place == Place::Host {
            let mut host = vec![T::default(); len];
            for (r, copy) in b.ranks().iter().enumerate() {
                host.fill(T::default());
                fill(r, &mut host);
                copy.upload(&host)?;
            }
        } else {
            let view = self.target.view::<T>(src.0)?;
            for (r, copy) in b.ranks().iter().enumerate() {
                let (from, at, count) = parts(r);
                let stream = self
                    .world
                    .rank_stream(r as u32)
                    .expect("a rank of the world");
                copy_range_from_peer(stream, copy, at, &view, from, count)?;
            }
        }
        Ok(())
    }

    /// Stages `src`'s rank parts of `len` elements, each into its rank's copy.
    fn each_rank<T: Pooled + Default>(
        &mut self,
        use_: &'static str,
        src: Stacked,
        len: usize,
    ) -> Result<()> {
        // SAFETY: `src` holds ranks x len elements (checked), alive for the call.
        self.staged(
            use_,
            src,
            len,
            |r| (r * len, 0, len),
            |r, copy: &mut [T]| copy.copy_from_slice(unsafe { src.rank(r, len) }),
        )
    }

    /// Stages into every rank's copy of `ranks x shard` its own part of `src` at `r shard`
    /// (the peers' rows the op gathers are zeros from a host array, stale from a CUDA one).
    fn own_rows(&mut self, use_: &'static str, src: Stacked, shard: usize) -> Result<()> {
        let ranks = self.ranks();
        self.staged(
            use_,
            src,
            ranks * shard,
            |r| (r * shard, r * shard, shard),
            |r, copy: &mut [bf16]| {
                // SAFETY: as in `each_rank`.
                copy[r * shard..(r + 1) * shard].copy_from_slice(unsafe { src.rank(r, shard) });
            },
        )
    }

    /// Stages all of `src` (`len` elements) into every rank's copy: weights every rank holds
    /// alike, the gathered input of a backward pass.
    fn replicated<T: Pooled + Default>(
        &mut self,
        use_: &'static str,
        src: Stacked,
        len: usize,
    ) -> Result<()> {
        // SAFETY: `src` holds `len` elements (checked), alive for the call.
        self.staged(
            use_,
            src,
            len,
            |_| (0, 0, len),
            |_, copy: &mut [T]| copy.copy_from_slice(unsafe { src.rank(0, len) }),
        )
    }

    fn ranks(&self) -> usize {
        self.world.ranks() as usize
    }

    /// The pool's output buffer for `use_` of `len` elements of `elem` per rank.
    fn output_buffer(&mut self, use_: &'static str, elem: Elem, len: usize) -> Result<()> {
        match elem {
            Elem::F32 => self.pool.ensure::<f32>(&mut self.world, use_, len),
            Elem::Bf16 => self.pool.ensure::<bf16>(&mut self.world, use_, len),
        }
    }

    /// Copies the pool's output buffer `use_` (`len` elements of `y.1` per rank) into `y.0`.
    fn finish_output(&mut self, use_: &'static str, y: (Slab, Elem), len: usize) -> Result<()> {
        match y.1 {
            Elem::F32 => finish(
                &mut self.world,
                self.target,
                self.pool.get::<f32>(use_, len),
                y.0,
            ),
            Elem::Bf16 => finish(
                &mut self.world,
                self.target,
                self.pool.get::<bf16>(use_, len),
                y.0,
            ),
        }
    }

    /// Writes into `dst` (float32) the sum of every rank's copy of the pool's buffer `use_`,
    /// in rank order: the gradient of a weight every rank holds alike. Into a CUDA array by
    /// `Ops::sum_parts`, queued after the world's launches (no host wait); into a host array
    /// once the world is done.
    fn finish_summed<T: Pooled + Part + Default + Into<f32>>(
        &mut self,
        use_: &'static str,
        len: usize,
        dst: Slab,
    ) -> Result<()> {
        let parts = self.pool.get::<T>(use_, len).ranks();
        if dst.place != Place::Host {
            let mut view = self.target.view::<f32>(dst)?;
            // An emulated world's ranks share one device's launch, on one stream.
            let stream = self.world.rank_stream(0).expect("a rank of the world");
            return Ok(self.target.ops.sum_parts(stream, parts, &mut view)?);
        }
        self.world.synchronize()?;
        let mut sum = vec![0f32; len];
        let mut part = vec![T::default(); len];
        for copy in parts {
            copy.download_into(&mut part)?;
            for (s, &v) in sum.iter_mut().zip(&part) {
                *s += v.into();
            }
        }
        // SAFETY: the output array (`len` float32s, checked), writable, alive for the call.
        unsafe { dst.host_mut::<f32>() }.copy_from_slice(&sum);
        Ok(())
    }

    fn fused(&mut self, call: Fused) -> Result<()> {
        let r = self.ranks();
        let (m, n, k) = call.shape;
        let shard = m / r;
        let layout = if call.w_transposed {
            Layout::T
        } else {
            Layout::N
        };
        self.tp.set_workgroups_per_rank(self.workgroups);
        match call.op {
            FusedOp::AgGemm => self.own_rows("x", call.x, shard * k)?,
            FusedOp::GemmRs | FusedOp::GemmAr => self.each_rank::<bf16>("x", call.x, m * k)?,
        }
        self.each_rank::<bf16>("w", call.w, k * n)?;
        let rows = if call.op == FusedOp::GemmRs { shard } else { m };
        self.output_buffer("y", call.y.1, rows * n)?;
        let pool = &self.pool;
        let (x, w) = (pool.get::<bf16>("x", m * k), pool.get::<bf16>("w", k * n));
        let y = output_of(pool, "y", call.y.1, rows * n);
        let world = &mut self.world;
        match call.op {
            FusedOp::AgGemm => self.tp.ag_gemm(world, x, w, layout, y, m, n, k)?,
            FusedOp::GemmRs => self.tp.gemm_rs(world, x, w, layout, y, m, n, k)?,
            FusedOp::GemmAr => self.tp.gemm_ar(world, x, w, y, m, n, k)?,
        }
        self.finish_output("y", call.y, rows * n)
    }

    fn backward(&mut self, call: Backward) -> Result<()> {
        let r = self.ranks();
        let (m, n, k) = call.shape;
        let shard = m / r;
        self.tp.set_workgroups_per_rank(self.workgroups);
        match call.of {
            // dY is whole on every rank; X the gathered input of the forward pass.
            TpForward::AgGemm => {
                self.each_rank::<bf16>("dy", call.dy, m * n)?;
                self.replicated::<bf16>("x", call.x, m * k)?;
            }
            // dY's rows are gathered in place; X_r is each rank's own.
            TpForward::GemmRs => {
                self.own_rows("dy", call.dy, shard * n)?;
                self.each_rank::<bf16>("x", call.x, m * k)?;
            }
        }
        self.each_rank::<bf16>("w", call.w, k * n)?;
        let dx_rows = match call.of {
            TpForward::AgGemm => shard,
            TpForward::GemmRs => m,
        };
        self.output_buffer("dx", call.dx.1, dx_rows * k)?;
        // Each rank's dW straight into its part of a CUDA `dw` (no peer reads it); for a
        // host `dw`, into fresh buffers downloaded after.
        let mut dws = (0..r)
            .map(|rank| {
                let part = Slab {
                    addr: call.dw.addr + (rank * k * n * 4) as u64,
                    len: k * n,
                    place: call.dw.place,
                };
                match part.place {
                    Place::Host => Ok(self.target.device.alloc::<f32>(k * n)?),
                    Place::Cuda(_) => self.target.view::<f32>(part),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let pool = &self.pool;
        let (dy, x) = (pool.get::<bf16>("dy", m * n), pool.get::<bf16>("x", m * k));
        let w = pool.get::<bf16>("w", k * n);
        let dx = output_of(pool, "dx", call.dx.1, dx_rows * k);
        let shape = (m, n, k);
        let world = &mut self.world;
        (self.tp).backward_local_dw(world, call.of, dy, x, w, dx, &mut dws, shape)?;
        self.finish_output("dx", call.dx, dx_rows * k)?;
        if call.dw.place == Place::Host {
            self.world.synchronize()?;
            // SAFETY: the output array (ranks x k x n float32s, checked), writable, alive.
            let dst = unsafe { call.dw.host_mut::<f32>() };
            for (b, part) in dws.iter().zip(dst.chunks_mut(k * n)) {
                b.download_into(part)?;
            }
        }
        Ok(())
    }
}

/// The pool's output buffer `use_` of `len` elements of `elem`, as a fused op takes it.
fn output_of<'a>(pool: &'a Pool, use_: &'static str, elem: Elem, len: usize) -> TpOutput<'a> {
    match elem {
        Elem::F32 => pool.get::<f32>(use_, len).into(),
        Elem::Bf16 => pool.get::<bf16>(use_, len).into(),
    }
}

/// Copies every rank's copy of `y` into `dst`: device copies queued on the ranks' stream for
/// a CUDA array (no host wait: `World.synchronize` reports what the kernels recorded);
/// downloads for a host array, after waiting for the world (which reports it).
fn finish<T: DeviceScalar>(
    world: &mut kosmos_runtime::World,
    target: &Target,
    y: &SymmetricBuffer<T>,
    dst: Slab,
) -> Result<()> {
    if dst.place != Place::Host {
        let view = target.view::<T>(dst)?;
        for (r, copy) in y.ranks().iter().enumerate() {
            let stream = world.rank_stream(r as u32).expect("a rank of the world");
            copy_range_from_peer(stream, &view, r * y.len(), copy, 0, y.len())?;
        }
        return Ok(());
    }
    world.synchronize()?;
    // SAFETY: the output array (ranks x y.len(), checked), writable, alive for the call.
    let dst = unsafe { dst.host_mut::<T>() };
    for (copy, part) in y.ranks().iter().zip(dst.chunks_mut(y.len())) {
        copy.download_into(part)?;
    }
    Ok(())
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum FusedOp {
    AgGemm,
    GemmRs,
    GemmAr,
}

/// A checked fused forward op.
struct Fused {
    op: FusedOp,
    x: Stacked,
    w: Stacked,
    w_transposed: bool,
    y: (Slab, Elem),
    shape: (usize, usize, usize),
}

/// A checked backward pass.
struct Backward {
    of: TpForward,
    dy: Stacked,
    x: Stacked,
    w: Stacked,
    dx: (Slab, Elem),
    dw: Slab,
    shape: (usize, usize, usize),
}

fn check_ranks(world: &World, arrays: &[&Array]) -> Result<usize> {
    let r = world.ranks();
    for a in arrays {
        if a.shape[0] != r {
            return Err(Failure::Value(format!(
                "{}: the leading axis holds the ranks: expected {r}, got shape {:?}",
                a.name, a.shape
            )));
        }
    }
    Ok(r)
}

/// `array` has the shape of `like` (a gradient, its input's; `out`, the tokens').
fn check_like(array: &Array, like: &Array) -> Result<()> {
    if array.shape != like.shape {
        return Err(Failure::Value(format!(
            "{}: expected shape {:?} (that of {}), got {:?}",
            array.name, like.shape, like.name, array.shape
        )));
    }
    Ok(())
}

#[pymethods]
impl World {
    /// `ranks` ranks emulated on `device` (`"cpu"`, `"cuda"`, `"cuda:N"`);
    /// `workgroups_per_rank` fixes the fused launches' grid (default: as many as fit),
    /// `wait_bound` the polls before a bounded wait gives up, `host_wait_seconds` how long
    /// the host waits for a launch.
    #[new]
    #[pyo3(signature = (ranks, device = "cpu", workgroups_per_rank = None, wait_bound = None, host_wait_seconds = None))]
    fn new(
        ranks: u32,
        device: &str,
        workgroups_per_rank: Option<u32>,
        wait_bound: Option<u32>,
        host_wait_seconds: Option<f64>,
    ) -> PyResult<World> {
        Ok(guarded(|| {
            let target = target(place_of(device)?)?;
            let options = world_options(wait_bound, host_wait_seconds)?;
            let world = kosmos_runtime::World::emulated(&target.device, ranks, options)?;
            let tp = TpOps::new(&world)?;
            Ok(World {
                world,
                target,
                tp,
                moe: None,
                pool: Pool::default(),
                workgroups: workgroups_per_rank,
                stream: 0,
            })
        })?)
    }

    #[getter]
    fn ranks_count(&self) -> u32 {
        self.world.ranks()
    }

    #[getter]
    fn device(&self) -> String {
        self.world.device().to_string()
    }

    /// `y = AllGather(x) op(w_r)`: `x` `R x m/R x k` (each rank's rows), `w` `R x k x n`
    /// (`R x n x k` when `w_transposed`), `y` `R x m x n` (the same on every rank).
    #[pyo3(signature = (x, w, y, w_transposed = false, stream = 0))]
    #[allow(clippy::too_many_arguments)]
    fn ag_gemm(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        w_transposed: bool,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        Ok(guarded(|| {
            let (x, w, y) = (
                self.input(x, "x", 3)?,
                self.input(w, "w", 3)?,
                self.output(y, "y", 3)?,
            );
            let r = check_ranks(self, &[&x, &w, &y])?;
            let (k, n) = weight_dims(&w, w_transposed);
            let m = x.shape[1] * r;
            check_shape(&x, &[("ranks", r), ("m / ranks", x.shape[1]), ("k", k)])?;
            check_shape(&y, &[("ranks", r), ("m", m), ("n", n)])?;
            let call = Fused {
                op: FusedOp::AgGemm,
                x: Stacked(x.slab()),
                w: Stacked(w.slab()),
                w_transposed,
                y: (y.slab(), y.elem),
                shape: (m, n, k),
            };
            py.detach(|| guarded(|| self.use_caller_stream().and_then(|()| self.fused(call))))
        })?)
    }

    /// `y_r = ReduceScatter(x_r op(w_r))`: `x` `R x m x k`, `w` `R x k x n` (`R x n x k`
    /// when `w_transposed`), `y` `R x m/R x n`, summed over the ranks in rank order.
    #[pyo3(signature = (x, w, y, w_transposed = false, stream = 0))]
    #[allow(clippy::too_many_arguments)]
    fn gemm_rs(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        w_transposed: bool,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        self.reduce(py, FusedOp::GemmRs, x, w, y, w_transposed)
    }

    /// `y = AllReduce(x_r w_r)`: `x` `R x m x k`, `w` `R x k x n`, `y` `R x m x n`.
    #[pyo3(signature = (x, w, y, stream = 0))]
    fn gemm_ar(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        self.reduce(py, FusedOp::GemmAr, x, w, y, false)
    }

    /// The backward pass of `ag_gemm` (`w` stored `k x n`): from `dy` (`R x m x n`), the
    /// forward pass's `x` (`R x m/R x k`, each rank's rows) and `w` (`R x k x n`), writes
    /// `dx = ReduceScatter(dy w_r^T)` (`R x m/R x k`) and `dw = X^T dy` (`R x k x n`,
    /// float32).
    #[pyo3(signature = (dy, x, w, dx, dw, stream = 0))]
    #[allow(clippy::too_many_arguments)]
    fn ag_gemm_backward(
        &mut self,
        py: Python<'_>,
        dy: &Bound<'_, PyAny>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        dx: &Bound<'_, PyAny>,
        dw: &Bound<'_, PyAny>,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        self.backward_of(py, TpForward::AgGemm, [dy, x, w, dx, dw])
    }

    /// The backward pass of `gemm_rs` (`w` stored `k x n`): from `dy` (`R x m/R x n`, each
    /// rank's rows), the forward pass's `x` (`R x m x k`) and `w` (`R x k x n`), writes
    /// `dx = AllGather(dy) w_r^T` (`R x m x k`) and `dw = x_r^T AllGather(dy)` (`R x k x n`,
    /// float32).
    #[pyo3(signature = (dy, x, w, dx, dw, stream = 0))]
    #[allow(clippy::too_many_arguments)]
    fn gemm_rs_backward(
        &mut self,
        py: Python<'_>,
        dy: &Bound<'_, PyAny>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        dx: &Bound<'_, PyAny>,
        dw: &Bound<'_, PyAny>,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        self.backward_of(py, TpForward::GemmRs, [dy, x, w, dx, dw])
    }

    /// The MoE layer's forward pass (`kernels::MoeLayer`) on `layer` (`MoeArgs`: the tokens,
    /// weights and options); writes `out` (`R x tokens x hidden`, bfloat16).
    #[pyo3(signature = (layer, out, stream = 0))]
    fn moe_forward(
        &mut self,
        py: Python<'_>,
        layer: MoeArgs<'_>,
        out: &Bound<'_, PyAny>,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        Ok(guarded(|| {
            let layer = moe_inputs(layer, self.ranks(), true, &|o, n, e, d, w| {
                self.import(o, n, e, d, w)
            })?;
            let out = self.import(out, "out", &[Elem::Bf16], 3, true)?;
            check_like(&out, &layer.x)?;
            let call = layer.call(MoeWants::Output(out.slab()));
            py.detach(|| guarded(|| self.use_caller_stream().and_then(|()| self.moe(call))))
        })?)
    }

    /// The MoE layer's backward pass on `layer` (as `moe_forward`'s), from the output's
    /// gradient `dout` (`R x tokens x hidden`, bfloat16): writes `dx` (`R x tokens x hidden`),
    /// `dw1` and `dw2` (the shapes of `w1`, `w2`), bfloat16, and the gradients of the weights
    /// every rank holds alike, summed over the ranks, float32: `d_router` (`experts x
    /// hidden`) and, with a shared expert, `d_shared_w1`, `d_shared_w2`. The bias gets none.
    /// Nothing is kept between calls: the forward pass runs again for the state the backward
    /// pass reads.
    #[pyo3(signature = (layer, dout, dx, d_router, dw1, dw2, d_shared_w1 = None, d_shared_w2 = None, stream = 0))]
    #[allow(clippy::too_many_arguments)]
    fn moe_backward(
        &mut self,
        py: Python<'_>,
        layer: MoeArgs<'_>,
        dout: &Bound<'_, PyAny>,
        dx: &Bound<'_, PyAny>,
        d_router: &Bound<'_, PyAny>,
        dw1: &Bound<'_, PyAny>,
        dw2: &Bound<'_, PyAny>,
        d_shared_w1: Option<&Bound<'_, PyAny>>,
        d_shared_w2: Option<&Bound<'_, PyAny>>,
        stream: u64,
    ) -> PyResult<()> {
        self.stream = stream;
        Ok(guarded(|| {
            let layer = moe_inputs(layer, self.ranks(), true, &|o, n, e, d, w| {
                self.import(o, n, e, d, w)
            })?;
            let args = MoeGradientArgs {
                dout,
                dx,
                router: d_router,
                w1: dw1,
                w2: dw2,
                shared: (d_shared_w1, d_shared_w2),
            };
            let g = moe_gradients(&layer, args, Elem::F32, &|o, n, e, d, w| {
                self.import(o, n, e, d, w)
            })?;
            let call = layer.call(MoeWants::Gradients(MoeBackward {
                dout: Stacked(g.dout.slab()),
                dx: g.dx.slab(),
                router: g.router.slab(),
                w1: g.w1.slab(),
                w2: g.w2.slab(),
                shared: g.shared.as_ref().map(|(a, b)| (a.slab(), b.slab())),
            }));
            py.detach(|| guarded(|| self.use_caller_stream().and_then(|()| self.moe(call))))
        })?)
    }

    /// Makes the next `ag_gemm`'s communication task `task` of rank `rank` signal a spare
    /// counter instead of its own: its tiles' bounded waits give up, and the call raises
    /// `KosmosError` naming rank, workgroup and task (then call `recover`).
    fn plant_missing_signal(&mut self, rank: u32, task: u32) {
        self.tp.plant_missing_signal(rank, task);
    }

    /// Waits for the world's queued work and raises what the kernels recorded (a bounded
    /// wait that gave up names rank, workgroup and task): where calls on CUDA tensors,
    /// which do not wait, report it.
    fn synchronize(&mut self, py: Python<'_>) -> PyResult<()> {
        Ok(py.detach(|| guarded(|| Ok(self.world.synchronize()?)))?)
    }

    /// Makes the fused ops and the MoE layer usable again after a call whose wait gave up.
    fn recover(&mut self) -> PyResult<()> {
        Ok(guarded(|| {
            self.tp.recover(&mut self.world)?;
            if let Some(moe) = &mut self.moe {
                moe.recover(&mut self.world)?;
            }
            Ok(())
        })?)
    }

    fn __repr__(&self) -> String {
        format!(
            "World({} ranks on {})",
            self.world.ranks(),
            self.world.device()
        )
    }
}

impl World {
    fn reduce(
        &mut self,
        py: Python<'_>,
        op: FusedOp,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        w_transposed: bool,
    ) -> PyResult<()> {
        Ok(guarded(|| {
            let (x, w, y) = (
                self.input(x, "x", 3)?,
                self.input(w, "w", 3)?,
                self.output(y, "y", 3)?,
            );
            let r = check_ranks(self, &[&x, &w, &y])?;
            let (k, n) = weight_dims(&w, w_transposed);
            let m = x.shape[1];
            check_shape(&x, &[("ranks", r), ("m", m), ("k", k)])?;
            if op == FusedOp::GemmRs {
                if m % r != 0 {
                    return Err(Failure::Value(format!(
                        "x: m = {m} rows do not split evenly over {r} ranks"
                    )));
                }
                check_shape(&y, &[("ranks", r), ("m / ranks", m / r), ("n", n)])?;
            } else {
                check_shape(&y, &[("ranks", r), ("m", m), ("n", n)])?;
            }
            let call = Fused {
                op,
                x: Stacked(x.slab()),
                w: Stacked(w.slab()),
                w_transposed,
                y: (y.slab(), y.elem),
                shape: (m, n, k),
            };
            py.detach(|| guarded(|| self.use_caller_stream().and_then(|()| self.fused(call))))
        })?)
    }

    fn backward_of(
        &mut self,
        py: Python<'_>,
        of: TpForward,
        [dy, x, w, dx, dw]: [&Bound<'_, PyAny>; 5],
    ) -> PyResult<()> {
        Ok(guarded(|| {
            let (dy, x, w) = (
                self.input(dy, "dy", 3)?,
                self.input(x, "x", 3)?,
                self.input(w, "w", 3)?,
            );
            let dx = self.output(dx, "dx", 3)?;
            let dw = self.import(dw, "dw", &[Elem::F32], 3, true)?;
            let r = check_ranks(self, &[&dy, &x, &w, &dx, &dw])?;
            let (k, n) = weight_dims(&w, false);
            let m = match of {
                TpForward::AgGemm => x.shape[1] * r,
                TpForward::GemmRs => x.shape[1],
            };
            if m % r != 0 {
                return Err(Failure::Value(format!(
                    "x: m = {m} rows do not split evenly over {r} ranks"
                )));
            }
            let (rows_y, rows_x) = match of {
                TpForward::AgGemm => (m, m / r),
                TpForward::GemmRs => (m / r, m),
            };
            check_shape(&x, &[("ranks", r), ("rows", rows_x), ("k", k)])?;
            check_shape(&dy, &[("ranks", r), ("rows", rows_y), ("n", n)])?;
            check_shape(&dx, &[("ranks", r), ("rows", rows_x), ("k", k)])?;
            check_shape(&dw, &[("ranks", r), ("k", k), ("n", n)])?;
            let call = Backward {
                of,
                dy: Stacked(dy.slab()),
                x: Stacked(x.slab()),
                w: Stacked(w.slab()),
                dx: (dx.slab(), dx.elem),
                dw: dw.slab(),
                shape: (m, n, k),
            };
            py.detach(|| guarded(|| self.use_caller_stream().and_then(|()| self.backward(call))))
        })?)
    }

    /// Stages the inputs, runs the forward pass and gives what the call wants of it.
    fn moe(&mut self, call: Moe) -> Result<()> {
        let s = call.shape;
        let reuse = self
            .moe
            .as_ref()
            .is_some_and(|l| l.shape() == s && l.options() == call.options);
        if !reuse {
            // The old layer's buffers go before the new one's are allocated.
            self.moe = None;
            self.moe = Some(MoeLayer::new(&mut self.world, s, call.options)?);
        }
        let lens = MoeLens::of(s, self.ranks());
        self.each_rank::<bf16>("moe.x", call.x, lens.tokens)?;
        // The router, bias and shared expert are the same on every rank.
        self.replicated::<bf16>("moe.router", call.router, lens.router)?;
        if let Some(b) = call.bias {
            self.replicated::<f32>("moe.bias", b, s.experts)?;
        }
        self.each_rank::<bf16>("moe.w1", call.w1, lens.w1)?;
        self.each_rank::<bf16>("moe.w2", call.w2, lens.w2)?;
        if let Some((a, b)) = call.shared {
            self.replicated::<bf16>("moe.shared_w1", a, lens.shared_w1)?;
            self.replicated::<bf16>("moe.shared_w2", b, lens.shared_w2)?;
        }
        self.pool
            .ensure::<bf16>(&mut self.world, "moe.out", lens.tokens)?;
        if let MoeWants::Gradients(to) = &call.wants {
            self.each_rank::<bf16>("moe.dout", to.dout, lens.tokens)?;
            let world = &mut self.world;
            for (use_, len) in lens.gradients(to.shared.is_some()) {
                self.pool.ensure::<bf16>(world, use_, len)?;
            }
            self.pool
                .ensure::<f32>(world, "moe.d_router", lens.router)?;
        }
        let pool = &self.pool;
        let bf = |use_, len| pool.get::<bf16>(use_, len);
        let weights = MoeWeights {
            router: bf("moe.router", lens.router),
            bias: call.bias.map(|_| pool.get::<f32>("moe.bias", s.experts)),
            w1: bf("moe.w1", lens.w1),
            w2: bf("moe.w2", lens.w2),
            shared: call.shared.map(|_| {
                (
                    bf("moe.shared_w1", lens.shared_w1),
                    bf("moe.shared_w2", lens.shared_w2),
                )
            }),
        };
        let (x, out) = (bf("moe.x", lens.tokens), bf("moe.out", lens.tokens));
        let layer = self.moe.as_mut().expect("made above");
        layer.set_workgroups_per_rank(self.workgroups);
        let pass = layer.forward(&mut self.world, x, &weights, out)?;
        let to = match call.wants {
            MoeWants::Output(dst) => return finish(&mut self.world, self.target, out, dst),
            MoeWants::Gradients(to) => to,
        };
        let grads = MoeGradients {
            dx: bf("moe.dx", lens.tokens),
            router: pool.get::<f32>("moe.d_router", lens.router),
            w1: bf("moe.dw1", lens.w1),
            w2: bf("moe.dw2", lens.w2),
            shared: to.shared.map(|_| {
                (
                    bf("moe.d_shared_w1", lens.shared_w1),
                    bf("moe.d_shared_w2", lens.shared_w2),
                )
            }),
        };
        let dout = bf("moe.dout", lens.tokens);
        layer.backward(&mut self.world, &pass, x, dout, &weights, &grads)?;
        let (world, target) = (&mut self.world, self.target);
        finish(world, target, grads.dx, to.dx)?;
        finish(world, target, grads.w1, to.w1)?;
        finish(world, target, grads.w2, to.w2)?;
        self.finish_summed::<f32>("moe.d_router", lens.router, to.router)?;
        if let Some((to_a, to_b)) = to.shared {
            self.finish_summed::<bf16>("moe.d_shared_w1", lens.shared_w1, to_a)?;
            self.finish_summed::<bf16>("moe.d_shared_w2", lens.shared_w2, to_b)?;
        }
        Ok(())
    }
}

/// Elements per rank of the MoE layer's buffers.
#[derive(Copy, Clone)]
struct MoeLens {
    tokens: usize,
    router: usize,
    w1: usize,
    w2: usize,
    shared_w1: usize,
    shared_w2: usize,
}

impl MoeLens {
    fn of(s: MoeShape, ranks: usize) -> MoeLens {
        let local = s.experts / ranks;
        MoeLens {
            tokens: s.tokens * s.hidden,
            router: s.experts * s.hidden,
            w1: local * 2 * s.ffn * s.hidden,
            w2: local * s.hidden * s.ffn,
            shared_w1: 2 * s.ffn * s.hidden,
            shared_w2: s.hidden * s.ffn,
        }
    }

    /// The bf16 gradient buffers of a backward call, by pool use.
    fn gradients(self, shared: bool) -> Vec<(&'static str, usize)> {
        let mut all = vec![
            ("moe.dx", self.tokens),
            ("moe.dw1", self.w1),
            ("moe.dw2", self.w2),
        ];
        if shared {
            all.extend([
                ("moe.d_shared_w1", self.shared_w1),
                ("moe.d_shared_w2", self.shared_w2),
            ]);
        }
        all
    }
}

impl MoeInputs {
    /// The call on these inputs that gives `wants`.
    fn call(&self, wants: MoeWants) -> Moe {
        Moe {
            shape: self.shape,
            options: self.options,
            x: Stacked(self.x.slab()),
            router: Stacked(self.router.slab()),
            bias: self.bias.as_ref().map(|b| Stacked(b.slab())),
            w1: Stacked(self.w1.slab()),
            w2: Stacked(self.w2.slab()),
            shared: self
                .shared
                .as_ref()
                .map(|(a, b)| (Stacked(a.slab()), Stacked(b.slab()))),
            wants,
        }
    }
}

/// A checked MoE call: the forward pass, and what the caller wants of it.
struct Moe {
    shape: MoeShape,
    options: MoeOptions,
    x: Stacked,
    router: Stacked,
    bias: Option<Stacked>,
    w1: Stacked,
    w2: Stacked,
    shared: Option<(Stacked, Stacked)>,
    wants: MoeWants,
}

/// What a MoE call gives.
enum MoeWants {
    /// The output (`moe_forward`).
    Output(Slab),
    /// The gradients, from the backward pass of the forward pass just run (`moe_backward`).
    Gradients(MoeBackward),
}

/// The backward part of a MoE call: the output's gradient, and where each gradient goes.
struct MoeBackward {
    dout: Stacked,
    dx: Slab,
    /// float32, summed over the ranks (the shared expert's likewise).
    router: Slab,
    w1: Slab,
    w2: Slab,
    shared: Option<(Slab, Slab)>,
}
