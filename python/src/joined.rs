//! `JoinedWorld`: this process's rank of a world whose ranks are processes
//! (`kosmos_runtime::World::join`), e.g. one per GPU under `torchrun`, running the fused
//! tensor-parallel ops on this rank's own arrays.
//!
//! The processes exchange bytes through a Python callable (`bytes -> list of bytes`, every
//! rank's message in rank order: `torch.distributed.all_gather_object` does it), which
//! carries the memory handles of the symmetric buffers. The ops copy this rank's inputs
//! into symmetric buffers kept for their shapes, and the results out of them: on CUDA as
//! device copies queued on the caller's stream with the launch (no host synchronisation;
//! [`JoinedWorld::synchronize`] reports what the kernels recorded), on the CPU device at
//! once (each call then waits for the world and raises what it reports).

use crate::arrays::{Array, Elem, Place, Want, check_shape, weight_dims};
use crate::errors::{Failure, Result, guarded};
use crate::moe_args::{MoeArgs, MoeGradientArgs, MoeInputs, moe_gradients, moe_inputs};
use crate::staging::{Slab, Target, place_of, target};
use crate::world::world_options;
use kernels::{
    Layout, MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, TpForward, TpOps, TpOutput,
};
use kosmos::bf16;
use kosmos_runtime::{Buffer, DeviceScalar, Exchange, SymmetricBuffer, copy_range_from_peer};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::HashMap;

/// An [`Exchange`] through a Python callable.
struct PyExchange(Py<PyAny>);

impl Exchange for PyExchange {
    fn all_gather(&mut self, mine: Vec<u8>) -> std::result::Result<Vec<Vec<u8>>, String> {
        Python::attach(|py| {
            let all = self
                .0
                .call1(py, (PyBytes::new(py, &mine),))
                .map_err(|e| e.to_string())?;
            all.extract::<Vec<Vec<u8>>>(py)
                .map_err(|e| format!("the exchange must return a list of bytes: {e}"))
        })
    }
}

/// Symmetric buffers kept for the shapes of past calls, by use and length: allocating one
/// is an exchange between the processes, so a training step's calls find theirs.
#[derive(Default)]
struct Pool {
    bf16: HashMap<(&'static str, usize), SymmetricBuffer<bf16>>,
    f32: HashMap<(&'static str, usize), SymmetricBuffer<f32>>,
}

/// Buffers a pool keeps before it gives them all back (with the world synchronized and
/// the processes met, as freeing memory peers map needs).
const POOL_LIMIT: usize = 32;

trait Pooled: DeviceScalar {
    fn of(pool: &mut Pool) -> &mut HashMap<(&'static str, usize), SymmetricBuffer<Self>>;
}

impl Pooled for bf16 {
    fn of(pool: &mut Pool) -> &mut HashMap<(&'static str, usize), SymmetricBuffer<bf16>> {
        &mut pool.bf16
    }
}

impl Pooled for f32 {
    fn of(pool: &mut Pool) -> &mut HashMap<(&'static str, usize), SymmetricBuffer<f32>> {
        &mut pool.f32
    }
}

/// This process's rank of a world of processes.
#[pyclass(module = "kosmos._native")]
pub struct JoinedWorld {
    /// `None` once closed.
    world: Option<kosmos_runtime::World>,
    rank: u32,
    ranks: u32,
    device: String,
    tp: TpOps,
    /// The MoE layer of the last shape and options used (it holds buffers for them).
    moe: Option<MoeLayer>,
    target: &'static Target,
    pool: Pool,
    workgroups: Option<u32>,
}

/// An imported array with its use: input or output, and its element type.
fn import(
    object: &Bound<'_, PyAny>,
    name: &'static str,
    elems: &[Elem],
    ndim: usize,
    output: bool,
    stream: u64,
) -> Result<Array> {
    let want = Want {
        name,
        elems,
        ndim,
        output,
    };
    Array::import(object, want, stream)
}

/// A fused op's operands, checked.
struct Operands {
    x: Array,
    w: Array,
    y: Array,
}

/// The memory of a fused op's operands: what work released from the interpreter lock
/// holds (the arrays stay with the caller).
#[derive(Copy, Clone)]
struct Slabs {
    x: Slab,
    w: Slab,
    y: (Slab, Elem),
}

impl Operands {
    fn slabs(&self) -> Slabs {
        Slabs {
            x: self.x.slab(),
            w: self.w.slab(),
            y: (self.y.slab(), self.y.elem),
        }
    }
}

/// The world of `world`, unless it was closed (a field, so that the others stay free to
/// borrow).
fn open(world: &mut Option<kosmos_runtime::World>) -> Result<&mut kosmos_runtime::World> {
    world
        .as_mut()
        .ok_or_else(|| Failure::Value("the JoinedWorld was closed".into()))
}

impl JoinedWorld {
    fn ranks(&self) -> usize {
        self.ranks as usize
    }

    /// Refuses an array that is not where the world runs.
    fn check_place(&self, arrays: &[&Array]) -> Result<()> {
        for a in arrays {
            if a.place != self.target.place {
                return Err(Failure::Value(format!(
                    "{}: in {}, but this world's rank runs on {}",
                    a.name, a.place, self.device
                )));
            }
        }
        Ok(())
    }

    /// The pool's buffer for `use_` of `len` elements, allocated (an exchange) if new.
    fn buffer<T: Pooled>(&mut self, use_: &'static str, len: usize) -> Result<()> {
        if T::of(&mut self.pool).contains_key(&(use_, len)) {
            return Ok(());
        }
        let world = open(&mut self.world)?;
        if self.pool.bf16.len() + self.pool.f32.len() >= POOL_LIMIT {
            world.synchronize()?;
            world.meet()?;
            self.pool = Pool::default();
        }
        let b = world.alloc_symmetric::<T>(len)?;
        T::of(&mut self.pool).insert((use_, len), b);
        Ok(())
    }

    /// Queues on the rank's stream (the caller's, on CUDA) this rank's launches and copies.
    fn use_stream(&mut self, handle: u64) -> Result<()> {
        if self.target.place != Place::Host {
            let stream = self.target.stream(handle)?;
            open(&mut self.world)?.use_stream(self.rank, stream)?;
        }
        Ok(())
    }

    /// Waits for the world where the launches ran already (the CPU device), so that a
    /// failure raises from the call that caused it.
    fn settle(&mut self) -> Result<()> {
        if self.target.place == Place::Host {
            open(&mut self.world)?.synchronize()?;
        }
        Ok(())
    }
}

/// Copies between this rank's arrays and its copies of symmetric buffers, queued on its
/// stream (done at once on the CPU device).
struct Stage<'a> {
    target: &'static Target,
    world: &'a kosmos_runtime::World,
    rank: u32,
}

impl<'a> Stage<'a> {
    fn new(target: &'static Target, world: &'a kosmos_runtime::World, rank: u32) -> Stage<'a> {
        Stage {
            target,
            world,
            rank,
        }
    }

    fn stream(&self) -> &kosmos_runtime::Stream {
        self.world.rank_stream(self.rank).expect("the local rank")
    }

    /// `src` into this rank's copy of `sym` from element `at`.
    fn copy_in<T: DeviceScalar>(
        &self,
        sym: &SymmetricBuffer<T>,
        at: usize,
        src: Slab,
    ) -> Result<()> {
        let own = sym.rank(self.rank)?;
        let src_buffer = match self.target.place {
            // SAFETY: a host array of `T`s (checked at import), alive for the call.
            Place::Host => Buffer::from_slice(&self.target.device, unsafe { src.host::<T>() })?,
            Place::Cuda(_) => self.target.view::<T>(src)?,
        };
        Ok(copy_range_from_peer(
            self.stream(),
            own,
            at,
            &src_buffer,
            0,
            src.len,
        )?)
    }

    /// This rank's copy of `sym` from element `at` into `dst`.
    fn copy_out<T: DeviceScalar>(
        &self,
        sym: &SymmetricBuffer<T>,
        at: usize,
        dst: Slab,
    ) -> Result<()> {
        let own = sym.rank(self.rank)?;
        match self.target.place {
            Place::Host => {
                let all = own.download()?;
                // SAFETY: the output array (`dst.len` `T`s, checked), writable, alive.
                unsafe { dst.host_mut::<T>() }.copy_from_slice(&all[at..at + dst.len]);
                Ok(())
            }
            Place::Cuda(_) => {
                let view = self.target.view::<T>(dst)?;
                Ok(copy_range_from_peer(
                    self.stream(),
                    &view,
                    0,
                    own,
                    at,
                    dst.len,
                )?)
            }
        }
    }
}

/// Which fused forward op.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Op {
    AgGemm,
    GemmRs,
    GemmAr,
}

impl JoinedWorld {
    /// Runs a fused forward op: `x` (this rank's rows for the all-gather) and `w` in, `y`
    /// out, and for the all-gather optionally the gathered input into `gathered`.
    fn fused(
        &mut self,
        op: Op,
        o: Slabs,
        layout: Layout,
        (m, n, k): (usize, usize, usize),
        gathered: Option<Slab>,
    ) -> Result<()> {
        let (rank, shard) = (self.rank as usize, m / self.ranks());
        let y_rows = if op == Op::GemmRs { shard } else { m };
        self.buffer::<bf16>("x", m * k)?;
        self.buffer::<bf16>("w", k * n)?;
        match o.y.1 {
            Elem::F32 => self.buffer::<f32>("y", y_rows * n)?,
            Elem::Bf16 => self.buffer::<bf16>("y", y_rows * n)?,
        }
        self.tp.set_workgroups_per_rank(self.workgroups);
        let world = open(&mut self.world)?;
        let stage = Stage::new(self.target, world, rank as u32);
        let (x, w) = (
            &self.pool.bf16[&("x", m * k)],
            &self.pool.bf16[&("w", k * n)],
        );
        let x_at = if op == Op::AgGemm {
            rank * shard * k
        } else {
            0
        };
        stage.copy_in(x, x_at, o.x)?;
        stage.copy_in(w, 0, o.w)?;
        let y: TpOutput<'_> = match o.y.1 {
            Elem::F32 => (&self.pool.f32[&("y", y_rows * n)]).into(),
            Elem::Bf16 => (&self.pool.bf16[&("y", y_rows * n)]).into(),
        };
        match op {
            Op::AgGemm => self.tp.ag_gemm(world, x, w, layout, y, m, n, k)?,
            Op::GemmRs => self.tp.gemm_rs(world, x, w, layout, y, m, n, k)?,
            Op::GemmAr => self.tp.gemm_ar(world, x, w, y, m, n, k)?,
        }
        let stage = Stage::new(self.target, world, rank as u32);
        match o.y.1 {
            Elem::F32 => stage.copy_out(&self.pool.f32[&("y", y_rows * n)], 0, o.y.0)?,
            Elem::Bf16 => stage.copy_out(&self.pool.bf16[&("y", y_rows * n)], 0, o.y.0)?,
        }
        if let Some(g) = gathered {
            stage.copy_out(x, 0, g)?;
        }
        self.settle()
    }

    /// Runs the backward pass of `of`: `dy`, `x` (the gathered input for the all-gather),
    /// `w` (`k x n`) in; `dx` (bfloat16 or float32) and `dw` (float32) out.
    fn backward(
        &mut self,
        of: TpForward,
        [dy, x, w, dx, dw]: [Slab; 5],
        dx_elem: Elem,
        (m, n, k): (usize, usize, usize),
    ) -> Result<()> {
        let (rank, shard) = (self.rank as usize, m / self.ranks());
        let dx_rows = if of == TpForward::AgGemm { shard } else { m };
        self.buffer::<bf16>("dy", m * n)?;
        self.buffer::<bf16>("x", m * k)?;
        self.buffer::<bf16>("w", k * n)?;
        self.buffer::<f32>("dw", k * n)?;
        match dx_elem {
            Elem::F32 => self.buffer::<f32>("dx", dx_rows * k)?,
            Elem::Bf16 => self.buffer::<bf16>("dx", dx_rows * k)?,
        }
        self.tp.set_workgroups_per_rank(self.workgroups);
        let mut dw_sym = self
            .pool
            .f32
            .remove(&("dw", k * n))
            .expect("allocated above");
        let result = (|| {
            let world = open(&mut self.world)?;
            let stage = Stage::new(self.target, world, rank as u32);
            let b = &self.pool.bf16;
            let (dy_sym, x_sym, w_sym) = (&b[&("dy", m * n)], &b[&("x", m * k)], &b[&("w", k * n)]);
            // The reduce-scatter's dy is this rank's rows of the gathered dy.
            let dy_at = if of == TpForward::GemmRs {
                rank * shard * n
            } else {
                0
            };
            stage.copy_in(dy_sym, dy_at, dy)?;
            stage.copy_in(x_sym, 0, x)?;
            stage.copy_in(w_sym, 0, w)?;
            let dx_out: TpOutput<'_> = match dx_elem {
                Elem::F32 => (&self.pool.f32[&("dx", dx_rows * k)]).into(),
                Elem::Bf16 => (&self.pool.bf16[&("dx", dx_rows * k)]).into(),
            };
            self.tp.backward(
                world,
                of,
                dy_sym,
                x_sym,
                w_sym,
                dx_out,
                &mut dw_sym,
                (m, n, k),
            )?;
            let stage = Stage::new(self.target, world, rank as u32);
            match dx_elem {
                Elem::F32 => stage.copy_out(&self.pool.f32[&("dx", dx_rows * k)], 0, dx)?,
                Elem::Bf16 => stage.copy_out(&self.pool.bf16[&("dx", dx_rows * k)], 0, dx)?,
            }
            stage.copy_out(&dw_sym, 0, dw)
        })();
        self.pool.f32.insert(("dw", k * n), dw_sym);
        result?;
        self.settle()
    }
}

#[pymethods]
impl JoinedWorld {
    /// Rank `rank` of a world of `ranks` processes on `device` (`"cpu"`, `"cuda"`,
    /// `"cuda:N"`), joined through `exchange` (a callable taking this process's `bytes` and
    /// returning every rank's, in rank order). Every process of the world makes the same
    /// calls in the same order.
    #[new]
    #[pyo3(signature = (rank, ranks, device, exchange, workgroups_per_rank = None, wait_bound = None, host_wait_seconds = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        rank: u32,
        ranks: u32,
        device: &str,
        exchange: Py<PyAny>,
        workgroups_per_rank: Option<u32>,
        wait_bound: Option<u32>,
        host_wait_seconds: Option<f64>,
    ) -> PyResult<JoinedWorld> {
        Ok(guarded(|| {
            let options = world_options(wait_bound, host_wait_seconds)?;
            let target = target(place_of(device)?)?;
            let exchange = PyExchange(exchange);
            // The exchange takes the interpreter lock itself: joining waits for the peers.
            let world = py.detach(|| {
                kosmos_runtime::World::join(&target.device, rank, ranks, exchange, options)
            })?;
            let tp = TpOps::new(&world)?;
            Ok(JoinedWorld {
                device: world.device().to_string(),
                world: Some(world),
                rank,
                ranks,
                tp,
                moe: None,
                target,
                pool: Pool::default(),
                workgroups: workgroups_per_rank,
            })
        })?)
    }

    #[getter(rank)]
    fn get_rank(&self) -> u32 {
        self.rank
    }

    #[getter]
    fn ranks_count(&self) -> u32 {
        self.ranks
    }

    #[getter(device)]
    fn get_device(&self) -> String {
        self.device.clone()
    }

    /// `y = AllGather(x) op(w)`: `x` is this rank's `m/R x k` rows, `w` `k x n` (`n x k`
    /// when `w_transposed`), `y` `m x n`; `gathered` (`m x k` bfloat16), if given, receives
    /// the gathered input (what the backward pass needs).
    #[pyo3(signature = (x, w, y, w_transposed = false, gathered = None, stream = 0))]
    #[allow(clippy::too_many_arguments)]
    fn ag_gemm(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        w_transposed: bool,
        gathered: Option<&Bound<'_, PyAny>>,
        stream: u64,
    ) -> PyResult<()> {
        Ok(guarded(|| {
            let o = self.operands(x, w, y, stream)?;
            let (k, n) = weight_dims(&o.w, w_transposed);
            let m = o.x.shape[0] * self.ranks();
            check_shape(&o.x, &[("m / ranks", o.x.shape[0]), ("k", k)])?;
            check_shape(&o.y, &[("m", m), ("n", n)])?;
            let gathered = gathered
                .map(|g| {
                    let g = import(g, "gathered", &[Elem::Bf16], 2, true, stream)?;
                    self.check_place(&[&g])?;
                    check_shape(&g, &[("m", m), ("k", k)])?;
                    Ok::<_, Failure>(g)
                })
                .transpose()?;
            let layout = if w_transposed { Layout::T } else { Layout::N };
            let (slabs, gathered) = (o.slabs(), gathered.as_ref().map(Array::slab));
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.fused(Op::AgGemm, slabs, layout, (m, n, k), gathered)
                })
            })
        })?)
    }

    /// `y = ReduceScatter(x op(w))`: `x` `m x k`, `w` `k x n` (`n x k` when
    /// `w_transposed`), `y` this rank's `m/R x n` rows of the sum over the ranks.
    #[pyo3(signature = (x, w, y, w_transposed = false, stream = 0))]
    fn gemm_rs(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        w_transposed: bool,
        stream: u64,
    ) -> PyResult<()> {
        self.reduce(py, Op::GemmRs, (x, w, y), w_transposed, stream)
    }

    /// `y = AllReduce(x w)`: `x` `m x k`, `w` `k x n`, `y` `m x n`.
    #[pyo3(signature = (x, w, y, stream = 0))]
    fn gemm_ar(
        &mut self,
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        stream: u64,
    ) -> PyResult<()> {
        self.reduce(py, Op::GemmAr, (x, w, y), false, stream)
    }

    /// The backward pass of `ag_gemm` (`w` stored `k x n`): from `dy` (`m x n`), the
    /// gathered input `x` (`m x k`, `ag_gemm`'s `gathered`) and `w`, writes
    /// `dx = ReduceScatter(dy w^T)` (this rank's `m/R x k`) and `dw = x^T dy` (`k x n`,
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
        self.backward_of(py, TpForward::AgGemm, [dy, x, w, dx, dw], stream)
    }

    /// The backward pass of `gemm_rs` (`w` stored `k x n`): from `dy` (this rank's
    /// `m/R x n` rows), the forward pass's `x` (`m x k`) and `w`, writes
    /// `dx = AllGather(dy) w^T` (`m x k`) and `dw = x^T AllGather(dy)` (`k x n`, float32).
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
        self.backward_of(py, TpForward::GemmRs, [dy, x, w, dx, dw], stream)
    }

    /// The MoE layer's forward pass on this rank (`kernels::MoeLayer`): `layer` as
    /// `World.moe_forward`'s, with this rank's arrays (`x` `tokens x hidden`, `w1`
    /// `experts/R x 2 ffn x hidden`, `w2` `experts/R x hidden x ffn`; the router, bias and
    /// shared expert every rank's alike); writes `out` (`tokens x hidden`, bfloat16).
    #[pyo3(signature = (layer, out, stream = 0))]
    fn moe_forward(
        &mut self,
        py: Python<'_>,
        layer: MoeArgs<'_>,
        out: &Bound<'_, PyAny>,
        stream: u64,
    ) -> PyResult<()> {
        Ok(guarded(|| {
            let layer = self.moe_inputs(layer, stream)?;
            let out = import(out, "out", &[Elem::Bf16], 2, true, stream)?;
            self.check_place(&[&out])?;
            check_shape(
                &out,
                &[
                    ("tokens", layer.shape.tokens),
                    ("hidden", layer.shape.hidden),
                ],
            )?;
            let call = JoinedMoe::of(&layer, Some(out.slab()), None);
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.moe(call)
                })
            })
        })?)
    }

    /// The MoE layer's backward pass on this rank, from the output's gradient `dout`
    /// (`tokens x hidden`): runs the forward pass again, then writes `dx`, `dw1`, `dw2` (the
    /// shapes of `x`, `w1`, `w2`, bfloat16) and this rank's part of the gradients of the
    /// weights every rank holds (to be summed over the ranks, as any replicated
    /// parameter's): `d_router` (float32) and, with a shared expert, `d_shared_w1`,
    /// `d_shared_w2` (bfloat16).
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
        Ok(guarded(|| {
            let layer = self.moe_inputs(layer, stream)?;
            let args = MoeGradientArgs {
                dout,
                dx,
                router: d_router,
                w1: dw1,
                w2: dw2,
                shared: (d_shared_w1, d_shared_w2),
            };
            let import = |o: &Bound<'_, PyAny>, name, elems: &[Elem], ndim, output| {
                import(o, name, elems, ndim, output, stream)
            };
            let g = moe_gradients(&layer, args, Elem::Bf16, &import)?;
            let mut arrays = g.outputs();
            arrays.push(&g.dout);
            self.check_place(&arrays)?;
            let grads = MoeGradientSlabs {
                dout: g.dout.slab(),
                dx: g.dx.slab(),
                router: g.router.slab(),
                w1: g.w1.slab(),
                w2: g.w2.slab(),
                shared: g.shared.as_ref().map(|(a, b)| (a.slab(), b.slab())),
            };
            let call = JoinedMoe::of(&layer, None, Some(grads));
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.moe(call)
                })
            })
        })?)
    }

    /// Waits for this rank's queued work and raises what the kernels recorded (a bounded
    /// wait that gave up names rank, workgroup and task). Every process calls it.
    fn synchronize(&mut self, py: Python<'_>) -> PyResult<()> {
        Ok(py.detach(|| guarded(|| Ok(open(&mut self.world)?.synchronize()?)))?)
    }

    /// Makes the next `ag_gemm` lose a signal on rank `rank` (communication task `task`): a
    /// test of the bounded waits. Every process calls it alike.
    fn plant_missing_signal(&mut self, rank: u32, task: u32) {
        self.tp.plant_missing_signal(rank, task);
    }

    /// Makes the ops usable again after a wait gave up; every process calls it, and they
    /// meet before it returns.
    fn recover(&mut self, py: Python<'_>) -> PyResult<()> {
        Ok(py.detach(|| {
            guarded(|| {
                let world = open(&mut self.world)?;
                self.tp.recover(world)?;
                if let Some(moe) = &mut self.moe {
                    moe.recover(world)?;
                }
                Ok(())
            })
        })?)
    }

    /// Leaves the world: waits for this rank's work, then for every process to close too
    /// (peers read this rank's memory until then), and frees the world. Every process
    /// calls it (or leaves a `with` block) before it ends; the ops refuse to run after.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        Ok(py.detach(|| {
            guarded(|| match self.world.take() {
                Some(world) => Ok(world.leave()?),
                None => Ok(()),
            })
        })?)
    }

    fn __repr__(&self) -> String {
        let closed = if self.world.is_none() { ", closed" } else { "" };
        format!(
            "JoinedWorld(rank {} of {} on {}{closed})",
            self.rank, self.ranks, self.device
        )
    }
}

/// Where a MoE call's gradients go, and the output's gradient.
#[derive(Copy, Clone)]
struct MoeGradientSlabs {
    dout: Slab,
    dx: Slab,
    router: Slab,
    w1: Slab,
    w2: Slab,
    shared: Option<(Slab, Slab)>,
}

/// A checked MoE call on this rank, free of Python objects: the inputs, and the output
/// (`moe_forward`) or the gradients (`moe_backward`) it gives.
#[derive(Copy, Clone)]
struct JoinedMoe {
    shape: MoeShape,
    options: MoeOptions,
    x: Slab,
    router: Slab,
    bias: Option<Slab>,
    w1: Slab,
    w2: Slab,
    shared: Option<(Slab, Slab)>,
    out: Option<Slab>,
    grads: Option<MoeGradientSlabs>,
}

impl JoinedMoe {
    fn of(layer: &MoeInputs, out: Option<Slab>, grads: Option<MoeGradientSlabs>) -> JoinedMoe {
        JoinedMoe {
            shape: layer.shape,
            options: layer.options,
            x: layer.x.slab(),
            router: layer.router.slab(),
            bias: layer.bias.as_ref().map(Array::slab),
            w1: layer.w1.slab(),
            w2: layer.w2.slab(),
            shared: layer.shared.as_ref().map(|(a, b)| (a.slab(), b.slab())),
            out,
            grads,
        }
    }
}

impl JoinedWorld {
    fn moe_inputs(&self, layer: MoeArgs<'_>, stream: u64) -> Result<MoeInputs> {
        let import = |o: &Bound<'_, PyAny>, name, elems: &[Elem], ndim, output| {
            import(o, name, elems, ndim, output, stream)
        };
        let layer = moe_inputs(layer, self.ranks(), false, &import)?;
        let mut arrays = vec![&layer.x, &layer.router, &layer.w1, &layer.w2];
        arrays.extend(&layer.bias);
        arrays.extend(layer.shared.iter().flat_map(|(a, b)| [a, b]));
        self.check_place(&arrays)?;
        Ok(layer)
    }

    /// Stages a MoE call's inputs, runs the forward pass (and the backward pass for
    /// gradients) and copies out what the call wants.
    fn moe(&mut self, call: JoinedMoe) -> Result<()> {
        let s = call.shape;
        let (t, e, h, f) = (s.tokens, s.experts, s.hidden, s.ffn);
        let local = e / self.ranks();
        let (w1_len, w2_len) = (local * 2 * f * h, local * h * f);
        let with_shared = call.shared.is_some();
        let with_grads = call.grads.is_some();
        let inputs = [
            ("moe.x", t * h),
            ("moe.router", e * h),
            ("moe.w1", w1_len),
            ("moe.w2", w2_len),
            ("moe.out", t * h),
        ];
        let shared = [("moe.shared_w1", 2 * f * h), ("moe.shared_w2", h * f)];
        let grads = [
            ("moe.dout", t * h),
            ("moe.dx", t * h),
            ("moe.dw1", w1_len),
            ("moe.dw2", w2_len),
        ];
        let d_shared = [("moe.d_shared_w1", 2 * f * h), ("moe.d_shared_w2", h * f)];
        let wanted = inputs
            .into_iter()
            .chain(shared.into_iter().filter(|_| with_shared))
            .chain(grads.into_iter().filter(|_| with_grads))
            .chain(d_shared.into_iter().filter(|_| with_shared && with_grads));
        for (use_, len) in wanted {
            self.buffer::<bf16>(use_, len)?;
        }
        if call.bias.is_some() {
            self.buffer::<f32>("moe.bias", e)?;
        }
        if with_grads {
            self.buffer::<f32>("moe.d_router", e * h)?;
        }
        let world = open(&mut self.world)?;
        let reuse = self
            .moe
            .as_ref()
            .is_some_and(|l| l.shape() == s && l.options() == call.options);
        if !reuse {
            // The old layer's buffers go before the new one's are allocated.
            self.moe = None;
            self.moe = Some(MoeLayer::new(world, s, call.options)?);
        }
        let layer = self.moe.as_mut().expect("made above");
        layer.set_workgroups_per_rank(self.workgroups);
        let (b, f32s) = (&self.pool.bf16, &self.pool.f32);
        let staged = |use_: &'static str, len| &b[&(use_, len)];
        let (target, rank) = (self.target, self.rank);
        let into = Stage::new(target, world, rank);
        into.copy_in(staged("moe.x", t * h), 0, call.x)?;
        into.copy_in(staged("moe.router", e * h), 0, call.router)?;
        into.copy_in(staged("moe.w1", w1_len), 0, call.w1)?;
        into.copy_in(staged("moe.w2", w2_len), 0, call.w2)?;
        if let Some(bias) = call.bias {
            into.copy_in(&f32s[&("moe.bias", e)], 0, bias)?;
        }
        if let Some((a, b)) = call.shared {
            into.copy_in(staged("moe.shared_w1", 2 * f * h), 0, a)?;
            into.copy_in(staged("moe.shared_w2", h * f), 0, b)?;
        }
        if let Some(to) = call.grads {
            into.copy_in(staged("moe.dout", t * h), 0, to.dout)?;
        }
        let weights = MoeWeights {
            router: staged("moe.router", e * h),
            bias: call.bias.map(|_| &f32s[&("moe.bias", e)]),
            w1: staged("moe.w1", w1_len),
            w2: staged("moe.w2", w2_len),
            shared: call.shared.map(|_| {
                (
                    staged("moe.shared_w1", 2 * f * h),
                    staged("moe.shared_w2", h * f),
                )
            }),
        };
        let (x, out) = (staged("moe.x", t * h), staged("moe.out", t * h));
        let pass = layer.forward(world, x, &weights, out)?;
        if let Some(dst) = call.out {
            Stage::new(target, world, rank).copy_out(out, 0, dst)?;
        }
        if let Some(to) = call.grads {
            let d = MoeGradients {
                dx: staged("moe.dx", t * h),
                router: &f32s[&("moe.d_router", e * h)],
                w1: staged("moe.dw1", w1_len),
                w2: staged("moe.dw2", w2_len),
                shared: call.shared.map(|_| {
                    (
                        staged("moe.d_shared_w1", 2 * f * h),
                        staged("moe.d_shared_w2", h * f),
                    )
                }),
            };
            let dout = staged("moe.dout", t * h);
            layer.backward(world, &pass, x, dout, &weights, &d)?;
            let out_of = Stage::new(target, world, rank);
            out_of.copy_out(d.dx, 0, to.dx)?;
            out_of.copy_out(d.router, 0, to.router)?;
            out_of.copy_out(d.w1, 0, to.w1)?;
            out_of.copy_out(d.w2, 0, to.w2)?;
            if let (Some((a, b)), Some((to_a, to_b))) = (d.shared, to.shared) {
                out_of.copy_out(a, 0, to_a)?;
                out_of.copy_out(b, 0, to_b)?;
            }
        }
        self.settle()
    }

    fn operands(
        &self,
        x: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
        y: &Bound<'_, PyAny>,
        stream: u64,
    ) -> Result<Operands> {
        let o = Operands {
            x: import(x, "x", &[Elem::Bf16], 2, false, stream)?,
            w: import(w, "w", &[Elem::Bf16], 2, false, stream)?,
            y: import(y, "y", &[Elem::F32, Elem::Bf16], 2, true, stream)?,
        };
        self.check_place(&[&o.x, &o.w, &o.y])?;
        Ok(o)
    }

    fn reduce(
        &mut self,
        py: Python<'_>,
        op: Op,
        (x, w, y): (&Bound<'_, PyAny>, &Bound<'_, PyAny>, &Bound<'_, PyAny>),
        w_transposed: bool,
        stream: u64,
    ) -> PyResult<()> {
        Ok(guarded(|| {
            let o = self.operands(x, w, y, stream)?;
            let (k, n) = weight_dims(&o.w, w_transposed);
            let m = o.x.shape[0];
            check_shape(&o.x, &[("m", m), ("k", k)])?;
            if op == Op::GemmRs && !m.is_multiple_of(self.ranks()) {
                return Err(Failure::Value(format!(
                    "x: m = {m} rows do not split evenly over the world's {} ranks",
                    self.ranks()
                )));
            }
            let rows = if op == Op::GemmRs {
                m / self.ranks()
            } else {
                m
            };
            check_shape(&o.y, &[("rows", rows), ("n", n)])?;
            let layout = if w_transposed { Layout::T } else { Layout::N };
            let slabs = o.slabs();
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.fused(op, slabs, layout, (m, n, k), None)
                })
            })
        })?)
    }

    fn backward_of(
        &mut self,
        py: Python<'_>,
        of: TpForward,
        [dy, x, w, dx, dw]: [&Bound<'_, PyAny>; 5],
        stream: u64,
    ) -> PyResult<()> {
        Ok(guarded(|| {
            let input = |o, name| import(o, name, &[Elem::Bf16], 2, false, stream);
            let (dy, x, w) = (input(dy, "dy")?, input(x, "x")?, input(w, "w")?);
            let dx = import(dx, "dx", &[Elem::F32, Elem::Bf16], 2, true, stream)?;
            let dw = import(dw, "dw", &[Elem::F32], 2, true, stream)?;
            self.check_place(&[&dy, &x, &w, &dx, &dw])?;
            let (m, k) = (x.shape[0], x.shape[1]);
            let n = w.shape[1];
            if !m.is_multiple_of(self.ranks()) {
                return Err(Failure::Value(format!(
                    "x: m = {m} rows do not split evenly over the world's {} ranks",
                    self.ranks()
                )));
            }
            let shard = m / self.ranks();
            check_shape(&w, &[("k", k), ("n", n)])?;
            let (dy_rows, dx_rows) = match of {
                TpForward::AgGemm => (m, shard),
                TpForward::GemmRs => (shard, m),
            };
            check_shape(&dy, &[("rows", dy_rows), ("n", n)])?;
            check_shape(&dx, &[("rows", dx_rows), ("k", k)])?;
            check_shape(&dw, &[("k", k), ("n", n)])?;
            let slabs = [&dy, &x, &w, &dx, &dw].map(Array::slab);
            let dx_elem = dx.elem;
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.backward(of, slabs, dx_elem, (m, n, k))
                })
            })
        })?)
    }
}
