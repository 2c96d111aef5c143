//! `gemm`: `c = op(a) op(b)` on the device the arrays are on.

use crate::arrays::{Array, Elem, Place, Want, check_shape, same_place};
use crate::errors::{Failure, Result, guarded};
use crate::plans::{self, PlanKey};
use crate::staging::{Slab, Target, target};
use kernels::{GemmOutput, Layout};
use kosmos::bf16;
use kosmos_runtime::{Buffer, Stream};
use pyo3::prelude::*;

/// `c = op(a) op(b)`: `a` is `m x k` (`k x m` when `a_transposed`), `b` is `k x n` (`n x k`
/// when `b_transposed`), both bfloat16; `c` is `m x n`, float32 or bfloat16 (f32
/// accumulation either way). C-contiguous arrays on one device: host memory (the CPU
/// device) or one CUDA GPU, where it queues on `stream` (a `cudaStream_t` of that GPU's
/// primary context, 0 for the legacy default stream). Transposed operands and a bfloat16
/// result need `k`, `n` (and `m` for `a` transposed) multiples of 8 and 16-byte aligned
/// operands.
#[pyfunction]
#[pyo3(signature = (a, b, c, a_transposed = false, b_transposed = false, stream = 0))]
pub fn gemm(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    c: &Bound<'_, PyAny>,
    a_transposed: bool,
    b_transposed: bool,
    stream: u64,
) -> PyResult<()> {
    Ok(guarded(|| {
        let operand = |name| Want {
            name,
            elems: &[Elem::Bf16],
            ndim: 2,
            output: false,
        };
        let a = Array::import(a, operand("a"), stream)?;
        let b = Array::import(b, operand("b"), stream)?;
        let c = Array::import(
            c,
            Want {
                name: "c",
                elems: &[Elem::F32, Elem::Bf16],
                ndim: 2,
                output: true,
            },
            stream,
        )?;
        let place = same_place(&[&a, &b, &c])?;
        let dims = |arr: &Array, t: bool| {
            let [r, c] = [arr.shape[0], arr.shape[1]];
            if t { (c, r) } else { (r, c) }
        };
        let (m, k) = dims(&a, a_transposed);
        let (kb, n) = dims(&b, b_transposed);
        if kb != k {
            return Err(Failure::Value(format!(
                "b: op(a) is {m} x {k} (a of shape {:?}{}), so op(b) needs {k} rows, but it \
                 is {kb} x {n} (b of shape {:?}{})",
                a.shape,
                if a_transposed { ", transposed" } else { "" },
                b.shape,
                if b_transposed { ", transposed" } else { "" },
            )));
        }
        check_shape(&c, &[("m", m), ("n", n)])?;
        let layout = |t| if t { Layout::T } else { Layout::N };
        let call = Call {
            a: (a.slab(), layout(a_transposed)),
            b: (b.slab(), layout(b_transposed)),
            c: (c.slab(), c.elem),
            shape: (m, n, k),
            stream,
        };
        let target = target(place)?;
        // The arrays stay alive (and borrowed) here while the work runs unlocked.
        py.detach(|| guarded(|| call.run(target)))
    })?)
}

/// A checked gemm, free of Python objects.
struct Call {
    a: (Slab, Layout),
    b: (Slab, Layout),
    c: (Slab, Elem),
    shape: (usize, usize, usize),
    stream: u64,
}

impl Call {
    fn run(&self, target: &'static Target) -> Result<()> {
        let stream = target.stream(self.stream)?;
        let (slab, elem) = self.c;
        match elem {
            Elem::F32 => {
                let mut c = target.output::<f32>(slab)?;
                self.launch(target, &stream, GemmOutput::F32(&mut c))?;
                target.write_back(&c, slab)
            }
            Elem::Bf16 => {
                let mut c = target.output::<bf16>(slab)?;
                self.launch(target, &stream, GemmOutput::Bf16(&mut c))?;
                target.write_back(&c, slab)
            }
        }
    }

    /// The pipelined kernel through a plan where it takes the operands — kept across calls
    /// on CUDA (`plans`), made and waited for on the CPU device, whose copies of the
    /// operands are new each call — else `Ops::gemm` (plain operands, an f32 result, any
    /// shape).
    fn launch(&self, target: &'static Target, stream: &Stream, c: GemmOutput<'_>) -> Result<()> {
        let (m, n, k) = self.shape;
        let ((sa, la), (sb, lb)) = (self.a, self.b);
        let plain = (la, lb) == (Layout::N, Layout::N);
        let one_shot = |a: &Buffer<bf16>, b: &Buffer<bf16>, c: &mut Buffer<f32>| -> Result<()> {
            Ok(target.ops.gemm(stream, a, b, c, m, n, k)?)
        };
        if target.place == Place::Host {
            let (a, b) = (target.input::<bf16>(sa)?, target.input::<bf16>(sb)?);
            return match (target.ops.gemm_plan(&a, la, &b, lb, m, n, k), c) {
                (Ok(plan), c) => {
                    plan.launch(stream, c)?;
                    Ok(stream.synchronize()?)
                }
                (Err(kernels::Error::Shape { .. }), GemmOutput::F32(c)) if plain => {
                    one_shot(&a, &b, c)
                }
                (Err(e), _) => Err(e.into()),
            };
        }
        let key = PlanKey {
            target,
            a: self.a,
            b: self.b,
            shape: self.shape,
        };
        plans::with_plan(target, key, |plan| match (plan, c) {
            (Ok(plan), c) => Ok(plan.launch(stream, c)?),
            (Err(Failure::Value(_)), GemmOutput::F32(c)) if plain => {
                one_shot(&target.view(sa)?, &target.view(sb)?, c)
            }
            (Err(e), _) => Err(e),
        })
    }
}
