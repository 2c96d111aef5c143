//! `World`: a world of ranks emulated on one device, with the fused tensor-parallel ops
//! (`kernels::TpOps`) and the MoE layer (`kernels::MoeLayer`, forward and backward) on it.
//!
//! Per-rank tensors are arrays stacked over a leading rank axis (`R x ...`), host arrays or
//! CUDA tensors on the world's GPU: each call stages them into the world's symmetric
//! buffers (uploads, or device copies on the caller's stream), runs the op, waits for the
//! world (`World::synchronize`, which is where a bounded wait that gave up is reported,
//! naming rank, workgroup and task) and copies the results back (downloads, or device
//! copies queued on the caller's stream).

use crate::arrays::{Array, Elem, Place, Want, check_shape, weight_dims};
use crate::errors::{Failure, Result, guarded};
use crate::moe_args::{MoeArgs, MoeGradientArgs, MoeInputs, moe_gradients, moe_inputs};
use crate::staging::{Slab, Target, place_of, target};
use kernels::{
    Layout, MoeForwardPass, MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, TpForward,
    TpOps,
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

    /// A symmetric buffer of `len` elements per rank, and for a CUDA array `src` copies of
    /// `parts(r)` = (element of `src`, element of rank `r`'s copy, length) into each rank's
    /// copy, queued on the rank's stream; for a host array `fill(r, copy)` fills rank `r`'s
    /// copy (the rest zero) and uploads it.
    fn staged<T: DeviceScalar + Default>(
        &mut self,
        src: Stacked,
        len: usize,
        parts: impl Fn(usize) -> (usize, usize, usize),
        fill: impl Fn(usize, &mut [T]),
    ) -> Result<SymmetricBuffer<T>> {
        let b = self.world.alloc_symmetric::<T>(len)?;
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
        Ok(b)
    }

    /// Every rank's copy of `len` elements: `src`'s rank parts.
    fn each_rank<T: DeviceScalar + Default>(
        &mut self,
        src: Stacked,
        len: usize,
    ) -> Result<SymmetricBuffer<T>> {
        // SAFETY: `src` holds ranks x len elements (checked), alive for the call.
        self.staged(
            src,
            len,
            |r| (r * len, 0, len),
            |r, copy| copy.copy_from_slice(unsafe { src.rank(r, len) }),
        )
    }

    /// Every rank's copy of `ranks x shard`: its own part of `src` at `r shard`, zeros for
    /// the peers' rows the op gathers.
    fn own_rows(&mut self, src: Stacked, shard: usize) -> Result<SymmetricBuffer<bf16>> {
        let ranks = self.ranks();
        self.staged(
            src,
            ranks * shard,
            |r| (r * shard, r * shard, shard),
            |r, copy| {
                // SAFETY: as in `each_rank`.
                copy[r * shard..(r + 1) * shard].copy_from_slice(unsafe { src.rank(r, shard) });
            },
        )
    }

    /// Every rank's copy is all of `src` (`len` elements): weights every rank holds alike,
    /// the gathered input of a backward pass.
    fn replicated<T: DeviceScalar + Default>(
        &mut self,
        src: Stacked,
        len: usize,
    ) -> Result<SymmetricBuffer<T>> {
        // SAFETY: `src` holds `len` elements (checked), alive for the call.
        self.staged(
            src,
            len,
            |_| (0, 0, len),
            |_, copy| copy.copy_from_slice(unsafe { src.rank(0, len) }),
        )
    }

    fn ranks(&self) -> usize {
        self.world.ranks() as usize
    }

    /// Waits for the world, then copies every rank's copy into `dst` (queued on the ranks'
    /// stream for a CUDA array: dropping `y` waits for them).
    fn finish<T: DeviceScalar>(&mut self, y: &SymmetricBuffer<T>, dst: Slab) -> Result<()> {
        self.world.synchronize()?;
        if dst.place != Place::Host {
            let view = self.target.view::<T>(dst)?;
            for (r, copy) in y.ranks().iter().enumerate() {
                let stream = self
                    .world
                    .rank_stream(r as u32)
                    .expect("a rank of the world");
                copy_range_from_peer(stream, &view, r * y.len(), copy, 0, y.len())?;
            }
            return Ok(());
        }
        // SAFETY: the output array (ranks x y.len(), checked), writable, alive for the call.
        let dst = unsafe { dst.host_mut::<T>() };
        for (copy, part) in y.ranks().iter().zip(dst.chunks_mut(y.len())) {
            copy.download_into(part)?;
        }
        Ok(())
    }

    /// Waits for the world, then writes into `dst` (float32) the sum of every rank's copy,
    /// in rank order: the gradient of a weight every rank holds alike (summed on the host,
    /// then uploaded for a CUDA array).
    fn finish_summed<T: DeviceScalar + Default + Into<f32>>(
        &mut self,
        parts: &SymmetricBuffer<T>,
        dst: Slab,
    ) -> Result<()> {
        self.world.synchronize()?;
        let mut sum = vec![0f32; parts.len()];
        let mut part = vec![T::default(); parts.len()];
        for copy in parts.ranks() {
            copy.download_into(&mut part)?;
            for (s, &v) in sum.iter_mut().zip(&part) {
                *s += v.into();
            }
        }
        if dst.place != Place::Host {
            return Ok(self.target.view::<f32>(dst)?.upload(&sum)?);
        }
        // SAFETY: the output array (parts.len() float32s, checked), writable, alive for the
        // call.
        unsafe { dst.host_mut::<f32>() }.copy_from_slice(&sum);
        Ok(())
    }

    /// Runs `f` with the output staged as a symmetric buffer of its element type, then
    /// copies it back.
    fn with_output(
        &mut self,
        y: (Slab, Elem),
        len: usize,
        f: impl FnOnce(&mut Self, kernels::TpOutput<'_>) -> Result<()>,
    ) -> Result<()> {
        match y.1 {
            Elem::F32 => {
                let out = self.world.alloc_symmetric::<f32>(len)?;
                f(self, (&out).into())?;
                self.finish(&out, y.0)
            }
            Elem::Bf16 => {
                let out = self.world.alloc_symmetric::<bf16>(len)?;
                f(self, (&out).into())?;
                self.finish(&out, y.0)
            }
        }
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
            FusedOp::AgGemm => {
                let x = self.own_rows(call.x, shard * k)?;
                let w = self.each_rank(call.w, k * n)?;
                self.with_output(call.y, m * n, |s, y| {
                    Ok(s.tp.ag_gemm(&mut s.world, &x, &w, layout, y, m, n, k)?)
                })
            }
            FusedOp::GemmRs | FusedOp::GemmAr => {
                let x = self.each_rank(call.x, m * k)?;
                let w = self.each_rank(call.w, k * n)?;
                let all = call.op == FusedOp::GemmAr;
                let rows = if all { m } else { shard };
                self.with_output(call.y, rows * n, |s, y| {
                    if all {
                        Ok(s.tp.gemm_ar(&mut s.world, &x, &w, y, m, n, k)?)
                    } else {
                        Ok(s.tp.gemm_rs(&mut s.world, &x, &w, layout, y, m, n, k)?)
                    }
                })
            }
        }
    }

    fn backward(&mut self, call: Backward) -> Result<()> {
        let r = self.ranks();
        let (m, n, k) = call.shape;
        let shard = m / r;
        self.tp.set_workgroups_per_rank(self.workgroups);
        let (dy, x) = match call.of {
            // dY is whole on every rank; X the gathered input of the forward pass.
            TpForward::AgGemm => (
                self.each_rank(call.dy, m * n)?,
                self.replicated(call.x, m * k)?,
            ),
            // dY's rows are gathered in place; X_r is each rank's own.
            TpForward::GemmRs => (
                self.own_rows(call.dy, shard * n)?,
                self.each_rank(call.x, m * k)?,
            ),
        };
        let w = self.each_rank(call.w, k * n)?;
        let mut dw = self.world.alloc_symmetric::<f32>(k * n)?;
        let dx_rows = match call.of {
            TpForward::AgGemm => shard,
            TpForward::GemmRs => m,
        };
        self.with_output(call.dx, dx_rows * k, |s, dx| {
            Ok(s.tp.backward(&mut s.world, call.of, &dy, &x, &w, dx, &mut dw, (m, n, k))?)
        })?;
        self.finish(&dw, call.dw)
    }
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
        let local = s.experts / self.ranks();
        let x = self.each_rank(call.x, s.tokens * s.hidden)?;
        // The router, bias and shared expert are the same on every rank.
        let router = self.replicated(call.router, s.experts * s.hidden)?;
        let bias = match call.bias {
            Some(b) => Some(self.replicated(b, s.experts)?),
            None => None,
        };
        let w1 = self.each_rank(call.w1, local * 2 * s.ffn * s.hidden)?;
        let w2 = self.each_rank(call.w2, local * s.hidden * s.ffn)?;
        let shared = match call.shared {
            Some((a, b)) => Some((
                self.replicated(a, 2 * s.ffn * s.hidden)?,
                self.replicated(b, s.hidden * s.ffn)?,
            )),
            None => None,
        };
        let out = self.world.alloc_symmetric::<bf16>(s.tokens * s.hidden)?;
        let weights = MoeWeights {
            router: &router,
            bias: bias.as_ref(),
            w1: &w1,
            w2: &w2,
            shared: shared.as_ref().map(|(a, b)| (a, b)),
        };
        let layer = self.moe.as_mut().expect("made above");
        layer.set_workgroups_per_rank(self.workgroups);
        let pass = layer.forward(&mut self.world, &x, &weights, &out)?;
        match call.wants {
            MoeWants::Output(dst) => self.finish(&out, dst),
            MoeWants::Gradients(to) => self.moe_gradients(&pass, &x, &weights, to),
        }
    }

    /// Queues the backward pass of the layer's forward pass `pass` (of the tokens `x`, with
    /// `weights`), then copies the gradients out.
    fn moe_gradients(
        &mut self,
        pass: &MoeForwardPass,
        x: &SymmetricBuffer<bf16>,
        weights: &MoeWeights<'_>,
        to: MoeBackward,
    ) -> Result<()> {
        let s = self.moe.as_ref().expect("the forward pass made it").shape();
        let local = s.experts / self.ranks();
        let dout = self.each_rank(to.dout, s.tokens * s.hidden)?;
        let dx = self.world.alloc_symmetric::<bf16>(s.tokens * s.hidden)?;
        let router = self.world.alloc_symmetric::<f32>(s.experts * s.hidden)?;
        let w1 = self
            .world
            .alloc_symmetric::<bf16>(local * 2 * s.ffn * s.hidden)?;
        let w2 = self
            .world
            .alloc_symmetric::<bf16>(local * s.hidden * s.ffn)?;
        let shared = match to.shared {
            Some(_) => Some((
                self.world.alloc_symmetric::<bf16>(2 * s.ffn * s.hidden)?,
                self.world.alloc_symmetric::<bf16>(s.hidden * s.ffn)?,
            )),
            None => None,
        };
        let grads = MoeGradients {
            dx: &dx,
            router: &router,
            w1: &w1,
            w2: &w2,
            shared: shared.as_ref().map(|(a, b)| (a, b)),
        };
        let layer = self.moe.as_mut().expect("the forward pass made it");
        layer.backward(&mut self.world, pass, x, &dout, weights, &grads)?;
        self.finish(&dx, to.dx)?;
        self.finish(&w1, to.w1)?;
        self.finish(&w2, to.w2)?;
        self.finish_summed(&router, to.router)?;
        if let (Some((a, b)), Some((to_a, to_b))) = (&shared, to.shared) {
            self.finish_summed(a, to_a)?;
            self.finish_summed(b, to_b)?;
        }
        Ok(())
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
