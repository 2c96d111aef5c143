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

use crate::arrays::{Array, Elem, Place, Shaped, Want, check_shape, weight_dims};
use crate::errors::{Failure, Result, guarded};
use crate::moe_args::{MoeArgs, MoeGradientArgs, MoeInputs, moe_gradients, moe_inputs};
use crate::pool::{Pool, Pooled};
use crate::staging::{Slab, Target, place_of, target};
use crate::symmetric::{Held, Symmetric, SymmetricArray};
use crate::world::world_options;
use kernels::{
    Layout, MoeGradients, MoeLayer, MoeOptions, MoeShape, MoeWeights, TpForward, TpOps, TpOutput,
};
use kosmos::bf16;
use kosmos_runtime::{Buffer, DeviceScalar, Exchange, SymmetricBuffer, copy_range_from_peer};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

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
    /// The symmetric arrays handed out (`JoinedWorld::empty`), found by address; one the
    /// caller no longer holds is freed at the next `empty`.
    symmetric: Vec<Arc<Held>>,
    workgroups: Option<u32>,
}

/// Where an operand of a fused op is.
#[derive(Clone)]
enum Site {
    /// The caller's memory: staged through a symmetric buffer of the pool.
    Staged(Slab),
    /// This world's symmetric array: `len` elements from element `at` of this rank's part;
    /// `alone` unless it shares memory with another operand of a call that writes one of
    /// them ([`keep_apart`]).
    InPlace {
        held: Arc<Held>,
        at: usize,
        len: usize,
        alone: bool,
    },
}

impl Site {
    /// The symmetric buffer itself when the operand is exactly elements `at..` of a
    /// symmetric array of `len` elements of `T`, sharing no memory the call writes: the op
    /// then uses it in place.
    fn fits<T: Symmetric>(&self, at: usize, len: usize) -> Option<&SymmetricBuffer<T>> {
        match self {
            Site::InPlace {
                held,
                at: a,
                alone: true,
                ..
            } if *a == at && held.len() == len => T::of(held),
            _ => None,
        }
    }

    /// Whether both are parts of one symmetric array that share an element.
    fn overlaps(&self, other: &Site) -> bool {
        match (self, other) {
            (
                Site::InPlace {
                    held: a,
                    at: i,
                    len: n,
                    ..
                },
                Site::InPlace {
                    held: b,
                    at: j,
                    len: m,
                    ..
                },
            ) => Arc::ptr_eq(a, b) && i < &(j + m) && j < &(i + n),
            _ => false,
        }
    }
}

/// Stages every operand a call writes (`true` beside it) that shares memory with another of
/// its operands: the launch then writes a buffer of the pool, copied to the operand after
/// it, so that no launch reads or writes memory another of its operands names (which would
/// give a wrong answer, not an error).
fn keep_apart(sites: &mut [(&mut Site, bool)]) {
    let shared: Vec<bool> = (0..sites.len())
        .map(|i| {
            let (site, written) = (&sites[i].0, sites[i].1);
            written && (0..sites.len()).any(|j| j != i && site.overlaps(sites[j].0))
        })
        .collect();
    for ((site, _), shared) in sites.iter_mut().zip(shared) {
        if let Site::InPlace { alone, .. } = site {
            *alone &= !shared;
        }
    }
}

/// An operand of a fused op, imported and checked.
struct Operand {
    name: &'static str,
    shape: Vec<usize>,
    elem: Elem,
    site: Site,
    /// Keeps the caller's array alive while the op uses its memory.
    _array: Option<Array>,
}

impl Shaped for Operand {
    fn name(&self) -> &str {
        self.name
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }
}

/// A fused op's operands, checked.
struct Operands {
    x: Operand,
    w: Operand,
    y: Operand,
}

/// Where a fused op's operands are: what work released from the interpreter lock holds
/// (the arrays stay with the caller).
#[derive(Clone)]
struct Sites {
    x: Site,
    w: Site,
    y: (Site, Elem),
}

impl Operands {
    fn sites(&self) -> Sites {
        Sites {
            x: self.x.site.clone(),
            w: self.w.site.clone(),
            y: (self.y.site.clone(), self.y.elem),
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

    /// Imports an operand of a fused op: one of this world's symmetric arrays, or an
    /// array whose memory is one (a tensor on it, on CUDA) is used in place, any other
    /// array staged.
    fn operand(
        &self,
        object: &Bound<'_, PyAny>,
        name: &'static str,
        elems: &[Elem],
        ndim: usize,
        output: bool,
        stream: u64,
    ) -> Result<Operand> {
        if let Ok(s) = object.cast::<SymmetricArray>() {
            let s = s.get();
            if !self.symmetric.iter().any(|h| Arc::ptr_eq(h, &s.held)) {
                return Err(Failure::Value(format!(
                    "{name}: a symmetric array of another world (or a closed one)"
                )));
            }
            let elem = s.held.elem();
            if !elems.contains(&elem) {
                return Err(Failure::Type(format!(
                    "{name}: expected {} elements, got {}",
                    elems[0].name(),
                    elem.name()
                )));
            }
            if s.shape.len() != ndim {
                return Err(Failure::Value(format!(
                    "{name}: expected {ndim} dimensions, got shape {:?}",
                    s.shape
                )));
            }
            let site = Site::InPlace {
                held: s.held.clone(),
                at: s.at,
                len: s.shape.iter().product(),
                alone: true,
            };
            return Ok(Operand {
                name,
                shape: s.shape.clone(),
                elem,
                site,
                _array: None,
            });
        }
        let want = Want {
            name,
            elems,
            ndim,
            output,
        };
        let a = Array::import(object, want, stream)?;
        self.check_place(&[&a])?;
        let site = self.in_place(&a).unwrap_or_else(|| Site::Staged(a.slab()));
        Ok(Operand {
            name,
            shape: a.shape.clone(),
            elem: a.elem,
            site,
            _array: Some(a),
        })
    }

    /// The symmetric array a CUDA array's memory lies in, if any (host memory never is
    /// the CPU device's).
    fn in_place(&self, a: &Array) -> Option<Site> {
        if a.place == Place::Host {
            return None;
        }
        let size = a.elem.bytes();
        let bytes = a.len() as u64 * size;
        self.symmetric.iter().find_map(|held| {
            let base = held.address(self.rank).ok()?;
            let end = base + held.len() as u64 * size;
            let inside = held.elem() == a.elem && a.addr >= base && a.addr + bytes <= end;
            inside.then(|| Site::InPlace {
                held: held.clone(),
                at: ((a.addr - base) / size) as usize,
                len: a.len(),
                alone: true,
            })
        })
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

    /// The pool's buffer for an operand at `site` of a symmetric buffer of `len`
    /// elements, from element `at`, unless the op uses the operand in place.
    fn buffer_for<T: Pooled>(
        &mut self,
        site: Option<&Site>,
        use_: &'static str,
        at: usize,
        len: usize,
    ) -> Result<()> {
        match site.and_then(|s| s.fits::<T>(at, len)) {
            Some(_) => Ok(()),
            None => self.buffer::<T>(use_, len),
        }
    }

    /// The pool's buffer for `use_` of `len` elements, allocated (an exchange) if new.
    fn buffer<T: Pooled>(&mut self, use_: &'static str, len: usize) -> Result<()> {
        self.pool.ensure::<T>(open(&mut self.world)?, use_, len)
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
        let src_buffer: Buffer<T> = self.target.input(src)?;
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

/// Which way a staging copy goes: into the op's symmetric buffer, or out of it.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Way {
    In,
    Out,
}

impl Stage<'_> {
    /// Stages the operand at `site` into this rank's copy of `sym` from element `at`
    /// ([`Way::In`]), or that copy out to the operand ([`Way::Out`]): nothing when `sym` is
    /// the operand's own memory (a symmetric array used in place).
    fn stage<T: Symmetric>(
        &self,
        sym: &SymmetricBuffer<T>,
        at: usize,
        site: &Site,
        way: Way,
    ) -> Result<()> {
        match (site, way) {
            (Site::Staged(slab), Way::In) => self.copy_in(sym, at, *slab),
            (Site::Staged(slab), Way::Out) => self.copy_out(sym, at, *slab),
            (
                Site::InPlace {
                    held,
                    at: from,
                    len,
                    ..
                },
                _,
            ) => self.between(held, *from, sym, at, *len, way == Way::In),
        }
    }

    /// A device copy of `len` elements between a symmetric array (`held` from element
    /// `held_at`) and `sym` (from `at`), into `sym` or out of it; none between the same
    /// elements.
    fn between<T: Symmetric>(
        &self,
        held: &Held,
        held_at: usize,
        sym: &SymmetricBuffer<T>,
        at: usize,
        len: usize,
        into_sym: bool,
    ) -> Result<()> {
        let part = T::of(held)
            .expect("element types checked at import")
            .rank(self.rank)?;
        let own = sym.rank(self.rank)?;
        if part.device_ptr() == own.device_ptr() && held_at == at {
            return Ok(());
        }
        let stream = self.stream();
        Ok(match into_sym {
            true => copy_range_from_peer(stream, own, at, part, held_at, len),
            false => copy_range_from_peer(stream, part, held_at, own, at, len),
        }?)
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
    /// out, and for the all-gather optionally the gathered input into `gathered`. Operands
    /// that are symmetric arrays of the world's are used in place, the others staged.
    fn fused(
        &mut self,
        op: Op,
        mut o: Sites,
        layout: Layout,
        (m, n, k): (usize, usize, usize),
        mut gathered: Option<Site>,
    ) -> Result<()> {
        // The all-gather writes the peers' rows into its input.
        let mut sites = vec![
            (&mut o.x, op == Op::AgGemm),
            (&mut o.w, false),
            (&mut o.y.0, true),
        ];
        sites.extend(gathered.as_mut().map(|g| (g, true)));
        keep_apart(&mut sites);
        let (rank, shard) = (self.rank as usize, m / self.ranks());
        let y_rows = if op == Op::GemmRs { shard } else { m };
        let x_at = if op == Op::AgGemm {
            rank * shard * k
        } else {
            0
        };
        let ((x_len, w_len), y_len) = ((m * k, k * n), y_rows * n);
        self.buffer_for::<bf16>(Some(&o.x), "x", x_at, x_len)?;
        self.buffer_for::<bf16>(Some(&o.w), "w", 0, w_len)?;
        match o.y.1 {
            Elem::F32 => self.buffer_for::<f32>(Some(&o.y.0), "y", 0, y_len)?,
            Elem::Bf16 => self.buffer_for::<bf16>(Some(&o.y.0), "y", 0, y_len)?,
        }
        self.tp.set_workgroups_per_rank(self.workgroups);
        let world = open(&mut self.world)?;
        let stage = Stage::new(self.target, world, rank as u32);
        let pool = &self.pool;
        let x = through::<bf16>(pool, Some(&o.x), "x", x_at, x_len);
        let w = through::<bf16>(pool, Some(&o.w), "w", 0, w_len);
        stage.stage(x, x_at, &o.x, Way::In)?;
        stage.stage(w, 0, &o.w, Way::In)?;
        let y: TpOutput<'_> = match o.y.1 {
            Elem::F32 => through::<f32>(pool, Some(&o.y.0), "y", 0, y_len).into(),
            Elem::Bf16 => through::<bf16>(pool, Some(&o.y.0), "y", 0, y_len).into(),
        };
        match op {
            Op::AgGemm => self.tp.ag_gemm(world, x, w, layout, y, m, n, k)?,
            Op::GemmRs => self.tp.gemm_rs(world, x, w, layout, y, m, n, k)?,
            Op::GemmAr => self.tp.gemm_ar(world, x, w, y, m, n, k)?,
        }
        let stage = Stage::new(self.target, world, rank as u32);
        match o.y.1 {
            Elem::F32 => stage.stage(
                through::<f32>(pool, Some(&o.y.0), "y", 0, y_len),
                0,
                &o.y.0,
                Way::Out,
            )?,
            Elem::Bf16 => stage.stage(
                through::<bf16>(pool, Some(&o.y.0), "y", 0, y_len),
                0,
                &o.y.0,
                Way::Out,
            )?,
        }
        if let Some(g) = &gathered {
            stage.stage(x, 0, g, Way::Out)?;
        }
        self.settle()
    }

    /// Runs the backward pass of `of`: `dy`, `x` (the gathered input for the all-gather),
    /// `w` (`k x n`) in; `dx` (bfloat16 or float32) and `dw` (float32) out. `dy`, `x`, `w`
    /// and `dx` are used in place when they are symmetric arrays of the world's; `dw` is
    /// always staged (the local GEMM writing it takes its buffer mutably).
    fn backward(
        &mut self,
        of: TpForward,
        [mut dy, mut x, mut w, mut dx, mut dw]: [Site; 5],
        dx_elem: Elem,
        (m, n, k): (usize, usize, usize),
    ) -> Result<()> {
        // The all-gather of `gemm_rs`'s backward writes the peers' rows into `dy`.
        keep_apart(&mut [
            (&mut dy, of == TpForward::GemmRs),
            (&mut x, false),
            (&mut w, false),
            (&mut dx, true),
            (&mut dw, true),
        ]);
        let (rank, shard) = (self.rank as usize, m / self.ranks());
        let dx_rows = if of == TpForward::AgGemm { shard } else { m };
        // The reduce-scatter's dy is this rank's rows of the gathered dy.
        let dy_at = if of == TpForward::GemmRs {
            rank * shard * n
        } else {
            0
        };
        let dx_len = dx_rows * k;
        self.buffer_for::<bf16>(Some(&dy), "dy", dy_at, m * n)?;
        self.buffer_for::<bf16>(Some(&x), "x", 0, m * k)?;
        self.buffer_for::<bf16>(Some(&w), "w", 0, k * n)?;
        match dx_elem {
            Elem::F32 => self.buffer_for::<f32>(Some(&dx), "dx", 0, dx_len)?,
            Elem::Bf16 => self.buffer_for::<bf16>(Some(&dx), "dx", 0, dx_len)?,
        }
        self.tp.set_workgroups_per_rank(self.workgroups);
        let mut dw_out = self.local_output(&dw, k * n)?;
        {
            let world = open(&mut self.world)?;
            let stage = Stage::new(self.target, world, rank as u32);
            let pool = &self.pool;
            let dy_sym = through::<bf16>(pool, Some(&dy), "dy", dy_at, m * n);
            let x_sym = through::<bf16>(pool, Some(&x), "x", 0, m * k);
            let w_sym = through::<bf16>(pool, Some(&w), "w", 0, k * n);
            stage.stage(dy_sym, dy_at, &dy, Way::In)?;
            stage.stage(x_sym, 0, &x, Way::In)?;
            stage.stage(w_sym, 0, &w, Way::In)?;
            let dx_out: TpOutput<'_> = match dx_elem {
                Elem::F32 => through::<f32>(pool, Some(&dx), "dx", 0, dx_len).into(),
                Elem::Bf16 => through::<bf16>(pool, Some(&dx), "dx", 0, dx_len).into(),
            };
            self.tp.backward_local_dw(
                world,
                of,
                dy_sym,
                x_sym,
                w_sym,
                dx_out,
                std::slice::from_mut(&mut dw_out.buffer),
                (m, n, k),
            )?;
            let stage = Stage::new(self.target, world, rank as u32);
            match dx_elem {
                Elem::F32 => stage.stage(
                    through::<f32>(pool, Some(&dx), "dx", 0, dx_len),
                    0,
                    &dx,
                    Way::Out,
                )?,
                Elem::Bf16 => stage.stage(
                    through::<bf16>(pool, Some(&dx), "dx", 0, dx_len),
                    0,
                    &dx,
                    Way::Out,
                )?,
            }
            dw_out.deliver(&stage)?;
        }
        self.settle()
    }

    /// A buffer a launch of this rank writes a result of `len` float32s into that no peer
    /// reads (a backward pass's `dw`), for the operand at `site`: its own memory — the
    /// caller's CUDA tensor, or this rank's part of a symmetric array that shares no memory
    /// with the call's other operands —, else a buffer of its own whose contents
    /// [`LocalOutput::deliver`] copies there after the launch.
    fn local_output(&self, site: &Site, len: usize) -> Result<LocalOutput> {
        let device = &self.target.device;
        let buffer = match site {
            Site::Staged(slab) if self.target.place != Place::Host => self.target.view(*slab)?,
            Site::InPlace {
                held,
                at,
                alone: true,
                ..
            } => {
                let addr = held.address(self.rank)? + (*at as u64) * Elem::F32.bytes();
                // SAFETY: `len` float32s from element `at` of this rank's part (checked at
                // import), kept alive by the call's operand; the launches writing them are
                // queued on the rank's stream, where later work sees them.
                unsafe { Buffer::borrowed(device, addr, len)? }
            }
            _ => device.alloc(len)?,
        };
        Ok(LocalOutput {
            buffer,
            to: site.clone(),
        })
    }
}

/// A result written by a launch of this rank alone ([`JoinedWorld::local_output`]).
struct LocalOutput {
    buffer: Buffer<f32>,
    /// The operand it is for.
    to: Site,
}

impl LocalOutput {
    /// Copies the result to its operand unless the launch wrote the operand itself.
    fn deliver(&self, stage: &Stage<'_>) -> Result<()> {
        match &self.to {
            Site::Staged(slab) if stage.target.place == Place::Host => {
                Ok(stage.target.write_back(&self.buffer, *slab)?)
            }
            Site::InPlace {
                held,
                at,
                len,
                alone: false,
            } => {
                let part = f32::of(held)
                    .expect("element types checked at import")
                    .rank(stage.rank)?;
                Ok(copy_range_from_peer(
                    stage.stream(),
                    part,
                    *at,
                    &self.buffer,
                    0,
                    *len,
                )?)
            }
            _ => Ok(()),
        }
    }
}

/// The buffer an operand at `site` is used through: its symmetric array when it fits
/// ([`Site::fits`]), else the pool's for `use_` (made by [`JoinedWorld::buffer_for`]).
fn through<'a, T: Pooled>(
    pool: &'a Pool,
    site: Option<&'a Site>,
    use_: &'static str,
    at: usize,
    len: usize,
) -> &'a SymmetricBuffer<T> {
    site.and_then(|s| s.fits::<T>(at, len))
        .unwrap_or_else(|| pool.get(use_, len))
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
                symmetric: Vec::new(),
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
                    let g = self.operand(g, "gathered", &[Elem::Bf16], 2, true, stream)?;
                    check_shape(&g, &[("m", m), ("k", k)])?;
                    Ok::<_, Failure>(g)
                })
                .transpose()?;
            let layout = if w_transposed { Layout::T } else { Layout::N };
            let (sites, gathered) = (o.sites(), gathered.as_ref().map(|g| g.site.clone()));
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.fused(Op::AgGemm, sites, layout, (m, n, k), gathered)
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
            let out = self.operand(out, "out", &[Elem::Bf16], 2, true, stream)?;
            check_shape(
                &out,
                &[
                    ("tokens", layer.shape.tokens),
                    ("hidden", layer.shape.hidden),
                ],
            )?;
            let call = JoinedMoe::of(&layer, Some(out.site.clone()), None);
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
                self.operand(o, name, elems, ndim, output, stream)
            };
            let g = moe_gradients(&layer, args, Elem::Bf16, &import)?;
            let grads = MoeGradientSites {
                dout: g.dout.site.clone(),
                dx: g.dx.site.clone(),
                router: g.router.site.clone(),
                w1: g.w1.site.clone(),
                w2: g.w2.site.clone(),
                shared: pair_sites(&g.shared),
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

    /// A symmetric array of `shape` and `dtype` (`"bfloat16"` or `"float32"`, zero-filled):
    /// this rank's part of a buffer every rank allocates, which the fused ops use in place
    /// (no staging copy) when given it, or on CUDA a tensor on its memory. Collective:
    /// every process calls it alike; it waits for the world first, and gives back the
    /// memory of arrays no longer held (on every rank, as the processes drop them alike).
    #[pyo3(signature = (shape, dtype = "bfloat16"))]
    fn empty(
        &mut self,
        py: Python<'_>,
        shape: Vec<usize>,
        dtype: &str,
    ) -> PyResult<SymmetricArray> {
        Ok(guarded(|| {
            let elem = match dtype {
                "bfloat16" => Elem::Bf16,
                "float32" => Elem::F32,
                d => {
                    return Err(Failure::Value(format!(
                        "dtype {d:?}: expected \"bfloat16\" or \"float32\""
                    )));
                }
            };
            let len = shape
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(d))
                .ok_or_else(|| Failure::Value(format!("shape {shape:?}: too many elements")))?;
            let held = py.detach(|| {
                guarded(|| {
                    let world = open(&mut self.world)?;
                    // No launch of any rank is in flight past this meeting, so the memory
                    // of arrays every rank dropped can go.
                    world.synchronize()?;
                    world.meet()?;
                    self.symmetric.retain(|h| Arc::strong_count(h) > 1);
                    Ok(Arc::new(match elem {
                        Elem::Bf16 => Held::Bf16(world.alloc_symmetric(len)?),
                        Elem::F32 => Held::F32(world.alloc_symmetric(len)?),
                    }))
                })
            })?;
            self.symmetric.push(held.clone());
            Ok(SymmetricArray {
                held,
                at: 0,
                shape,
                rank: self.rank,
                target: self.target,
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

/// [`through`] for the shared expert's pair (its weights or their gradients): pool uses
/// `uses`, lengths `lens`.
fn pair_through<'a>(
    pool: &'a Pool,
    pair: Option<&'a (Site, Site)>,
    uses: [&'static str; 2],
    lens: [usize; 2],
) -> Option<(&'a SymmetricBuffer<bf16>, &'a SymmetricBuffer<bf16>)> {
    pair.map(|(a, b)| {
        (
            through(pool, Some(a), uses[0], 0, lens[0]),
            through(pool, Some(b), uses[1], 0, lens[1]),
        )
    })
}

/// Where a MoE call's gradients go, and the output's gradient.
#[derive(Clone)]
struct MoeGradientSites {
    dout: Site,
    dx: Site,
    router: Site,
    w1: Site,
    w2: Site,
    shared: Option<(Site, Site)>,
}

/// A checked MoE call on this rank, free of Python objects: the inputs, and the output
/// (`moe_forward`) or the gradients (`moe_backward`) it gives.
#[derive(Clone)]
struct JoinedMoe {
    shape: MoeShape,
    options: MoeOptions,
    x: Site,
    router: Site,
    bias: Option<Site>,
    w1: Site,
    w2: Site,
    shared: Option<(Site, Site)>,
    out: Option<Site>,
    grads: Option<MoeGradientSites>,
}

impl JoinedMoe {
    fn of(
        layer: &MoeInputs<Operand>,
        out: Option<Site>,
        grads: Option<MoeGradientSites>,
    ) -> JoinedMoe {
        JoinedMoe {
            shape: layer.shape,
            options: layer.options,
            x: layer.x.site.clone(),
            router: layer.router.site.clone(),
            bias: layer.bias.as_ref().map(|b| b.site.clone()),
            w1: layer.w1.site.clone(),
            w2: layer.w2.site.clone(),
            shared: pair_sites(&layer.shared),
            out,
            grads,
        }
    }
}

impl JoinedMoe {
    /// [`keep_apart`] over the call's operands.
    fn keep_apart(&mut self) {
        let mut sites = vec![
            (&mut self.x, false),
            (&mut self.router, false),
            (&mut self.w1, false),
            (&mut self.w2, false),
        ];
        sites.extend(self.bias.as_mut().map(|b| (b, false)));
        if let Some((a, b)) = self.shared.as_mut() {
            sites.extend([(a, false), (b, false)]);
        }
        sites.extend(self.out.as_mut().map(|o| (o, true)));
        if let Some(g) = self.grads.as_mut() {
            sites.push((&mut g.dout, false));
            sites.extend([(&mut g.dx, true), (&mut g.router, true)]);
            sites.extend([(&mut g.w1, true), (&mut g.w2, true)]);
            if let Some((a, b)) = g.shared.as_mut() {
                sites.extend([(a, true), (b, true)]);
            }
        }
        keep_apart(&mut sites);
    }
}

fn pair_sites(pair: &Option<(Operand, Operand)>) -> Option<(Site, Site)> {
    pair.as_ref().map(|(a, b)| (a.site.clone(), b.site.clone()))
}

impl JoinedWorld {
    fn moe_inputs(&self, layer: MoeArgs<'_>, stream: u64) -> Result<MoeInputs<Operand>> {
        let import = |o: &Bound<'_, PyAny>, name, elems: &[Elem], ndim, output| {
            self.operand(o, name, elems, ndim, output, stream)
        };
        moe_inputs(layer, self.ranks(), false, &import)
    }

    /// Runs the forward pass (and the backward pass for gradients) of a MoE call: its
    /// operands in the world's symmetric memory in place, the others staged in and out.
    fn moe(&mut self, mut call: JoinedMoe) -> Result<()> {
        call.keep_apart();
        let s = call.shape;
        let (t, e, h, f) = (s.tokens, s.experts, s.hidden, s.ffn);
        let local = e / self.ranks();
        let (w1_len, w2_len) = (local * 2 * f * h, local * h * f);
        let (shared_w1_len, shared_w2_len) = (2 * f * h, h * f);
        let grads = call.grads.as_ref();
        let shared = call.shared.as_ref();
        let d_shared = grads.and_then(|g| g.shared.as_ref());
        // Every bf16 operand: where the caller has it (`None`: nowhere, as the forward
        // output of a backward call), the pool buffer that stages it, its length.
        let bf16s = [
            (Some(&call.x), "moe.x", t * h),
            (Some(&call.router), "moe.router", e * h),
            (Some(&call.w1), "moe.w1", w1_len),
            (Some(&call.w2), "moe.w2", w2_len),
            (call.out.as_ref(), "moe.out", t * h),
        ];
        let shared_bf16s = [
            (shared.map(|p| &p.0), "moe.shared_w1", shared_w1_len),
            (shared.map(|p| &p.1), "moe.shared_w2", shared_w2_len),
        ];
        let grad_bf16s = [
            (grads.map(|g| &g.dout), "moe.dout", t * h),
            (grads.map(|g| &g.dx), "moe.dx", t * h),
            (grads.map(|g| &g.w1), "moe.dw1", w1_len),
            (grads.map(|g| &g.w2), "moe.dw2", w2_len),
            (d_shared.map(|p| &p.0), "moe.d_shared_w1", shared_w1_len),
            (d_shared.map(|p| &p.1), "moe.d_shared_w2", shared_w2_len),
        ];
        let wanted = bf16s
            .into_iter()
            .chain(shared_bf16s.into_iter().filter(|_| shared.is_some()))
            .chain(grad_bf16s.into_iter().filter(|(site, ..)| site.is_some()));
        for (site, use_, len) in wanted {
            self.buffer_for::<bf16>(site, use_, 0, len)?;
        }
        if let Some(bias) = &call.bias {
            self.buffer_for::<f32>(Some(bias), "moe.bias", 0, e)?;
        }
        if let Some(g) = grads {
            self.buffer_for::<f32>(Some(&g.router), "moe.d_router", 0, e * h)?;
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
        let pool = &self.pool;
        let bf = |site, use_, len| through::<bf16>(pool, site, use_, 0, len);
        let shared_lens = [shared_w1_len, shared_w2_len];
        let (target, rank) = (self.target, self.rank);
        let into = Stage::new(target, world, rank);
        let mut inputs = vec![&bf16s[0], &bf16s[1], &bf16s[2], &bf16s[3]];
        if shared.is_some() {
            inputs.extend(&shared_bf16s);
        }
        if grads.is_some() {
            inputs.push(&grad_bf16s[0]);
        }
        for &(site, use_, len) in inputs {
            into.stage(bf(site, use_, len), 0, site.expect("an input"), Way::In)?;
        }
        let bias = call.bias.as_ref().map(|b| {
            let buffer = through::<f32>(pool, Some(b), "moe.bias", 0, e);
            into.stage(buffer, 0, b, Way::In).map(|_| buffer)
        });
        let weights = MoeWeights {
            router: bf(Some(&call.router), "moe.router", e * h),
            bias: bias.transpose()?,
            w1: bf(Some(&call.w1), "moe.w1", w1_len),
            w2: bf(Some(&call.w2), "moe.w2", w2_len),
            shared: pair_through(
                pool,
                shared,
                ["moe.shared_w1", "moe.shared_w2"],
                shared_lens,
            ),
        };
        let x = bf(Some(&call.x), "moe.x", t * h);
        let out = bf(call.out.as_ref(), "moe.out", t * h);
        let pass = layer.forward(world, x, &weights, out)?;
        if let Some(dst) = &call.out {
            Stage::new(target, world, rank).stage(out, 0, dst, Way::Out)?;
        }
        if let Some(g) = grads {
            let d = MoeGradients {
                dx: bf(Some(&g.dx), "moe.dx", t * h),
                router: through::<f32>(pool, Some(&g.router), "moe.d_router", 0, e * h),
                w1: bf(Some(&g.w1), "moe.dw1", w1_len),
                w2: bf(Some(&g.w2), "moe.dw2", w2_len),
                shared: pair_through(
                    pool,
                    d_shared,
                    ["moe.d_shared_w1", "moe.d_shared_w2"],
                    shared_lens,
                ),
            };
            let dout = bf(Some(&g.dout), "moe.dout", t * h);
            layer.backward(world, &pass, x, dout, &weights, &d)?;
            let out_of = Stage::new(target, world, rank);
            out_of.stage(d.dx, 0, &g.dx, Way::Out)?;
            out_of.stage(d.router, 0, &g.router, Way::Out)?;
            out_of.stage(d.w1, 0, &g.w1, Way::Out)?;
            out_of.stage(d.w2, 0, &g.w2, Way::Out)?;
            if let (Some((a, b)), Some((to_a, to_b))) = (d.shared, d_shared) {
                out_of.stage(a, 0, to_a, Way::Out)?;
                out_of.stage(b, 0, to_b, Way::Out)?;
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
        Ok(Operands {
            x: self.operand(x, "x", &[Elem::Bf16], 2, false, stream)?,
            w: self.operand(w, "w", &[Elem::Bf16], 2, false, stream)?,
            y: self.operand(y, "y", &[Elem::F32, Elem::Bf16], 2, true, stream)?,
        })
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
            let sites = o.sites();
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.fused(op, sites, layout, (m, n, k), None)
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
            let input = |o, name| self.operand(o, name, &[Elem::Bf16], 2, false, stream);
            let (dy, x, w) = (input(dy, "dy")?, input(x, "x")?, input(w, "w")?);
            let dx = self.operand(dx, "dx", &[Elem::F32, Elem::Bf16], 2, true, stream)?;
            let dw = self.operand(dw, "dw", &[Elem::F32], 2, true, stream)?;
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
            let sites = [&dy, &x, &w, &dx, &dw].map(|o| o.site.clone());
            let dx_elem = dx.elem;
            py.detach(|| {
                guarded(|| {
                    self.use_stream(stream)?;
                    self.backward(of, sites, dx_elem, (m, n, k))
                })
            })
        })?)
    }
}
