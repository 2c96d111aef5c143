//! The MoE layer's arguments as the Python methods take them (a dict), checked: for a
//! `World` of emulated ranks (per-rank arrays stacked over a leading axis of the ranks) and
//! for a `JoinedWorld`'s rank (its own arrays) alike.

use crate::arrays::{Array, Elem, Shaped, check_shape};
use crate::errors::{Failure, Result};
use kernels::{MoeOptions, MoeShape, Routing};
use pyo3::prelude::*;

/// The MoE layer's arguments, as `moe_forward` and `moe_backward` take them: a dict with
/// these keys. `x` `tokens x hidden`, `router` `experts x hidden`, `w1` `experts/R x 2 ffn x
/// hidden` (gate rows, then up rows), `w2` `experts/R x hidden x ffn`, bfloat16 (`x`, `w1`,
/// `w2` stacked over a leading axis of the ranks in an emulated world); `routing`
/// `"softmax"` or `"sigmoid"` (with `bias`: `experts`, float32, and `groups`,
/// `topk_groups`, `scale`); the shared expert's `shared_w1` (`2 ffn x hidden`) and
/// `shared_w2` (`hidden x ffn`) or None; `capacity` in rows per rank or None.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct MoeArgs<'py> {
    x: Bound<'py, PyAny>,
    router: Bound<'py, PyAny>,
    w1: Bound<'py, PyAny>,
    w2: Bound<'py, PyAny>,
    topk: usize,
    routing: String,
    normalize: bool,
    bias: Option<Bound<'py, PyAny>>,
    groups: u32,
    topk_groups: u32,
    scale: f32,
    shared_w1: Option<Bound<'py, PyAny>>,
    shared_w2: Option<Bound<'py, PyAny>>,
    capacity: Option<usize>,
}

/// The MoE layer's checked inputs (their memory alive while these live), shape and options:
/// imported arrays, or a joined world's operands.
pub struct MoeInputs<A = Array> {
    pub shape: MoeShape,
    pub options: MoeOptions,
    pub x: A,
    pub router: A,
    pub bias: Option<A>,
    pub w1: A,
    pub w2: A,
    pub shared: Option<(A, A)>,
}

/// How the caller imports an array: `(object, name, element types, dimensions, whether the
/// op writes it)`.
pub type Import<'a, A> =
    &'a dyn Fn(&Bound<'_, PyAny>, &'static str, &[Elem], usize, bool) -> Result<A>;

/// Checks `a` for a world of `ranks`: with `stacked`, `x`, `w1` and `w2` hold every rank's
/// part over a leading axis of the ranks (an emulated world); without, this rank's own.
pub fn moe_inputs<A: Shaped>(
    a: MoeArgs<'_>,
    ranks: usize,
    stacked: bool,
    import: Import<'_, A>,
) -> Result<MoeInputs<A>> {
    let routing = match a.routing.as_str() {
        "softmax" => Routing::Softmax {
            normalize: a.normalize,
        },
        "sigmoid" => Routing::Sigmoid {
            groups: a.groups,
            topk_groups: a.topk_groups,
            normalize: a.normalize,
            scale: a.scale,
        },
        other => {
            return Err(Failure::Value(format!(
                "routing = {other:?}: expected \"softmax\" or \"sigmoid\""
            )));
        }
    };
    let lead = stacked as usize;
    let bf16 = [Elem::Bf16];
    let x = import(&a.x, "x", &bf16, 2 + lead, false)?;
    let router = import(&a.router, "router", &bf16, 2, false)?;
    let w1 = import(&a.w1, "w1", &bf16, 3 + lead, false)?;
    let w2 = import(&a.w2, "w2", &bf16, 3 + lead, false)?;
    // `("ranks", R)` first where the arrays are stacked.
    let dims = |named: &[(&'static str, usize)]| -> Vec<(&'static str, usize)> {
        let ranks_dim = stacked.then_some(("ranks", ranks));
        ranks_dim.into_iter().chain(named.iter().copied()).collect()
    };
    let (tokens, hidden) = (x.shape()[lead], x.shape()[lead + 1]);
    let experts = router.shape()[0];
    let (local, ffn) = (w1.shape()[lead], w1.shape()[lead + 1] / 2);
    let shape = MoeShape {
        experts,
        topk: a.topk,
        tokens,
        hidden,
        ffn,
    };
    check_shape(&x, &dims(&[("tokens", tokens), ("hidden", hidden)]))?;
    check_shape(&router, &[("experts", experts), ("hidden", hidden)])?;
    let w1_dims = [
        ("experts / ranks", local),
        ("2 ffn", 2 * ffn),
        ("hidden", hidden),
    ];
    check_shape(&w1, &dims(&w1_dims))?;
    let w2_dims = [("experts / ranks", local), ("hidden", hidden), ("ffn", ffn)];
    check_shape(&w2, &dims(&w2_dims))?;
    if local * ranks != experts {
        return Err(Failure::Value(format!(
            "w1: {local} experts on each of {ranks} ranks, but the router has {experts}"
        )));
    }
    let bias = match (routing, &a.bias) {
        (Routing::Sigmoid { .. }, Some(b)) => {
            let b = import(b, "bias", &[Elem::F32], 1, false)?;
            check_shape(&b, &[("experts", experts)])?;
            Some(b)
        }
        (Routing::Sigmoid { .. }, None) => {
            return Err(Failure::Value(
                "bias: sigmoid routing takes a selection bias (experts, float32)".into(),
            ));
        }
        (Routing::Softmax { .. }, Some(_)) => {
            return Err(Failure::Value(
                "bias: only sigmoid routing takes a selection bias".into(),
            ));
        }
        (Routing::Softmax { .. }, None) => None,
    };
    let shared = match (&a.shared_w1, &a.shared_w2) {
        (Some(w1), Some(w2)) => {
            let (a, b) = (
                import(w1, "shared_w1", &bf16, 2, false)?,
                import(w2, "shared_w2", &bf16, 2, false)?,
            );
            check_shape(&a, &[("2 ffn", 2 * ffn), ("hidden", hidden)])?;
            check_shape(&b, &[("hidden", hidden), ("ffn", ffn)])?;
            Some((a, b))
        }
        (None, None) => None,
        _ => {
            return Err(Failure::Value(
                "shared_w1 and shared_w2 come together".into(),
            ));
        }
    };
    let options = MoeOptions {
        routing,
        shared_expert: shared.is_some(),
        capacity: a.capacity,
    };
    Ok(MoeInputs {
        shape,
        options,
        x,
        router,
        bias,
        w1,
        w2,
        shared,
    })
}

/// A MoE backward call's arrays as the Python methods take them: the output's gradient,
/// and where each gradient goes.
pub struct MoeGradientArgs<'a, 'py> {
    pub dout: &'a Bound<'py, PyAny>,
    pub dx: &'a Bound<'py, PyAny>,
    pub router: &'a Bound<'py, PyAny>,
    pub w1: &'a Bound<'py, PyAny>,
    pub w2: &'a Bound<'py, PyAny>,
    pub shared: (Option<&'a Bound<'py, PyAny>>, Option<&'a Bound<'py, PyAny>>),
}

/// Those arrays, checked.
pub struct MoeGradientArrays<A = Array> {
    pub dout: A,
    pub dx: A,
    pub router: A,
    pub w1: A,
    pub w2: A,
    pub shared: Option<(A, A)>,
}

/// Checks a backward call's arrays against its layer's: `dout`, `dx`, `w1`, `w2` bfloat16 in
/// the shapes of `x`, `w1`, `w2`; the router's gradient float32; the shared expert's, in
/// `shared_elem`, exactly with a shared expert.
pub fn moe_gradients<A: Shaped>(
    layer: &MoeInputs<A>,
    a: MoeGradientArgs<'_, '_>,
    shared_elem: Elem,
    import: Import<'_, A>,
) -> Result<MoeGradientArrays<A>> {
    let like = |object, name, elem, output, of: &A| -> Result<A> {
        let g = import(object, name, &[elem], of.shape().len(), output)?;
        if g.shape() != of.shape() {
            return Err(Failure::Value(format!(
                "{name}: expected shape {:?} (that of {}), got {:?}",
                of.shape(),
                of.name(),
                g.shape()
            )));
        }
        Ok(g)
    };
    let dout = like(a.dout, "dout", Elem::Bf16, false, &layer.x)?;
    let dx = like(a.dx, "dx", Elem::Bf16, true, &layer.x)?;
    let router = like(a.router, "d_router", Elem::F32, true, &layer.router)?;
    let w1 = like(a.w1, "dw1", Elem::Bf16, true, &layer.w1)?;
    let w2 = like(a.w2, "dw2", Elem::Bf16, true, &layer.w2)?;
    let shared = match (&layer.shared, a.shared) {
        (Some((w1, w2)), (Some(d1), Some(d2))) => Some((
            like(d1, "d_shared_w1", shared_elem, true, w1)?,
            like(d2, "d_shared_w2", shared_elem, true, w2)?,
        )),
        (None, (None, None)) => None,
        _ => {
            return Err(Failure::Value(
                "d_shared_w1 and d_shared_w2 come exactly with a shared expert (shared_w1, shared_w2)".into(),
            ));
        }
    };
    Ok(MoeGradientArrays {
        dout,
        dx,
        router,
        w1,
        w2,
        shared,
    })
}
