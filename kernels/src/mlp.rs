//! A Megatron-style tensor + sequence-parallel MLP block built from the fused ops:
//! `Y_r = ReduceScatter(gelu(AllGather(X) W1_r) W2_r)`, forward and backward.
//!
//! Each rank holds `m / R` rows of tokens (`R` the world size) and a column slice `W1_r`
//! (`d_model x d_ff / R`) and row slice `W2_r` (`d_ff / R x d_model`) of the weights. FC1 is
//! one [`TpOps::ag_gemm`] launch, FC2 one [`TpOps::gemm_rs`] launch; the backward pass is
//! [`TpOps::backward`] of FC2, the activation's derivative, and [`TpOps::backward`] of FC1. The activations the backward pass reads (the gathered
//! input, FC1's output and its activation) stay in the block between the two.

use crate::tp::{TpForward, TpOps};
use crate::{Error, Result};
use kosmos::bf16;
use kosmos::runtime::{SymmetricBuffer, World};

/// Sizes of a [`TpMlp`]: `tokens` rows over all ranks, the model width and the hidden
/// width over all ranks.
#[derive(Copy, Clone, Debug)]
pub struct MlpShape {
    pub tokens: usize,
    pub d_model: usize,
    pub d_ff: usize,
}

/// The weights and saved activations of one MLP block on a world.
pub struct TpMlp {
    shape: MlpShape,
    /// `W1_r`, `d_model x d_ff / R`.
    pub w1: SymmetricBuffer<bf16>,
    /// `W2_r`, `d_ff / R x d_model`.
    pub w2: SymmetricBuffer<bf16>,
    /// The gathered input, `tokens x d_model`: rank `r` writes its own rows
    /// (`r tokens / R..`) before [`TpMlp::forward`]; the forward pass gathers the rest.
    pub x: SymmetricBuffer<bf16>,
    /// FC1's output (`tokens x d_ff / R`, f32) and its activation (bf16), kept for the
    /// backward pass.
    z: SymmetricBuffer<f32>,
    h: SymmetricBuffer<bf16>,
    /// The backward pass's `dH` (f32) and `dZ` (bf16), `tokens x d_ff / R`.
    dh: SymmetricBuffer<f32>,
    dz: SymmetricBuffer<bf16>,
}

impl TpMlp {
    /// Allocates the block's buffers on `world` (zeroed weights: upload them through
    /// [`TpMlp::w1`] and [`TpMlp::w2`]).
    pub fn new(world: &mut World, shape: MlpShape) -> Result<TpMlp> {
        let ranks = world.ranks() as usize;
        if !shape.d_ff.is_multiple_of(ranks) {
            return Err(Error::Shape {
                op: "TpMlp::new",
                message: format!(
                    "d_ff = {} does not split evenly over the world's {ranks} ranks",
                    shape.d_ff
                ),
            });
        }
        let MlpShape {
            tokens,
            d_model,
            d_ff,
        } = shape;
        let hidden = d_ff / ranks;
        Ok(TpMlp {
            shape,
            w1: world.alloc_symmetric(d_model * hidden)?,
            w2: world.alloc_symmetric(hidden * d_model)?,
            x: world.alloc_symmetric(tokens * d_model)?,
            z: world.alloc_symmetric(tokens * hidden)?,
            h: world.alloc_symmetric(tokens * hidden)?,
            dh: world.alloc_symmetric(tokens * hidden)?,
            dz: world.alloc_symmetric(tokens * hidden)?,
        })
    }

    pub fn shape(&self) -> MlpShape {
        self.shape
    }

    fn hidden(&self, world: &World) -> usize {
        self.shape.d_ff / world.ranks() as usize
    }

    /// `y` (`tokens / R x d_model` per rank) = this rank's rows of
    /// `gelu(AllGather(X) W1) W2`, summed over the ranks. Queued on the world's streams.
    pub fn forward(
        &mut self,
        ops: &mut TpOps,
        world: &mut World,
        y: &SymmetricBuffer<f32>,
    ) -> Result<()> {
        let MlpShape {
            tokens, d_model, ..
        } = self.shape;
        let hidden = self.hidden(world);
        let w_n = crate::Layout::N;
        ops.ag_gemm(
            world, &self.x, &self.w1, w_n, &self.z, tokens, hidden, d_model,
        )?;
        ops.each_rank(world, |local, stream, r| {
            let (z, h) = (&self.z.ranks()[r], &mut self.h.ranks_mut()[r]);
            local.gelu(stream, z, h)
        })?;
        ops.gemm_rs(world, &self.h, &self.w2, w_n, y, tokens, d_model, hidden)
    }

    /// The backward pass of the last [`TpMlp::forward`]: from `dy` (the gathered
    /// `tokens x d_model` gradient of the output, in which rank `r` has put its own rows),
    /// `dx` (`tokens / R x d_model`, this rank's rows of the input's gradient), `dw1`
    /// (`d_model x d_ff / R`) and `dw2` (`d_ff / R x d_model`). `dy` is gathered in place.
    pub fn backward(
        &mut self,
        ops: &mut TpOps,
        world: &mut World,
        dy: &SymmetricBuffer<bf16>,
        dx: &SymmetricBuffer<f32>,
        dw1: &mut SymmetricBuffer<f32>,
        dw2: &mut SymmetricBuffer<f32>,
    ) -> Result<()> {
        let MlpShape {
            tokens, d_model, ..
        } = self.shape;
        let hidden = self.hidden(world);
        // FC2 (Y = RS(H W2)): dH = AG(dY) W2^T, dW2 = H^T AG(dY).
        let fc2 = (tokens, d_model, hidden);
        ops.backward(
            world,
            TpForward::GemmRs,
            dy,
            &self.h,
            &self.w2,
            &self.dh,
            dw2,
            fc2,
        )?;
        ops.each_rank(world, |local, stream, r| {
            let (dh, z) = (&self.dh.ranks()[r], &self.z.ranks()[r]);
            local.gelu_backward(stream, dh, z, &mut self.dz.ranks_mut()[r])
        })?;
        // FC1 (Z = AG(X) W1): dX = RS(dZ W1^T), dW1 = AG(X)^T dZ.
        let fc1 = (tokens, hidden, d_model);
        ops.backward(
            world,
            TpForward::AgGemm,
            &self.dz,
            &self.x,
            &self.w1,
            dx,
            dw1,
            fc1,
        )
    }
}
