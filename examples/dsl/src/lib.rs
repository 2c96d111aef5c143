//! Row-wise softmax, layernorm and inclusive scan, one workgroup of [`BLOCK`] lanes per
//! row, written with `#[device]` functions for the workgroup-wide steps.
//!
//! ```ignore
//! let module = device.load_module(&dsl::DSL.image()?)?;
//! dsl::softmax::launch(&module, &stream, LaunchConfig::linear(rows, dsl::BLOCK), &x, &mut y, cols)?;
//! ```

use kosmos::prelude::*;

// `pub static DSL`, the module built from this file.
include!(concat!(env!("OUT_DIR"), "/kosmos_modules.rs"));

/// Lanes per workgroup: launch every kernel here with this block size.
pub const BLOCK: u32 = 256;

/// Added to the variance in [`layernorm`].
pub const EPSILON: f32 = 1e-5;

/// The sum of every lane's `partial`, given to every lane; `scratch` holds [`BLOCK`]
/// elements.
#[device]
fn block_sum(scratch: &mut [f32], lane: u32, partial: f32) -> f32 {
    scratch[lane] = partial;
    barrier();
    let mut width = BLOCK / 2;
    while width > 0 {
        if lane < width {
            scratch[lane] += scratch[lane + width];
        }
        barrier();
        width /= 2;
    }
    let total = scratch[0];
    barrier();
    total
}

/// The largest of every lane's `partial`, given to every lane.
#[device]
fn block_max(scratch: &mut [f32], lane: u32, partial: f32) -> f32 {
    scratch[lane] = partial;
    barrier();
    let mut width = BLOCK / 2;
    while width > 0 {
        if lane < width {
            scratch[lane] = scratch[lane].max(scratch[lane + width]);
        }
        barrier();
        width /= 2;
    }
    let largest = scratch[0];
    barrier();
    largest
}

/// The inclusive prefix sum of the lanes' `v` up to `lane`; `scratch` ends holding all of
/// them (Hillis-Steele: log2(BLOCK) steps of adding the value `offset` lanes below).
#[device]
fn block_scan(scratch: &mut [f32], lane: u32, v: f32) -> f32 {
    scratch[lane] = v;
    barrier();
    let mut offset = 1;
    while offset < BLOCK {
        let below = if lane >= offset {
            scratch[lane - offset]
        } else {
            0.0
        };
        barrier();
        scratch[lane] += below;
        barrier();
        offset *= 2;
    }
    scratch[lane]
}

/// `y[r][j] = e^(x[r][j] - max_r) / sum_j e^(x[r][j] - max_r)` for the row `r` of `cols`
/// elements of each workgroup.
#[kernel(max_workgroup_size = 256)]
pub fn softmax(x: &[f32], y: &mut [f32], cols: u32) {
    let scratch = shared_array::<f32, BLOCK>();
    let lane = workitem_id_x();
    let row = workgroup_id_x() * cols;
    let mut largest = x[row];
    for j in (lane..cols).step_by(BLOCK) {
        largest = largest.max(x[row + j]);
    }
    let largest = block_max(scratch, lane, largest);
    let mut sum = 0.0;
    for j in (lane..cols).step_by(BLOCK) {
        sum += (x[row + j] - largest).exp();
    }
    let sum = block_sum(scratch, lane, sum);
    for j in (lane..cols).step_by(BLOCK) {
        y[row + j] = (x[row + j] - largest).exp() / sum;
    }
}

/// `y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + EPSILON) * gamma[j] + beta[j]`.
#[kernel(max_workgroup_size = 256)]
pub fn layernorm(x: &[f32], gamma: &[f32], beta: &[f32], y: &mut [f32], cols: u32) {
    let scratch = shared_array::<f32, BLOCK>();
    let lane = workitem_id_x();
    let row = workgroup_id_x() * cols;
    let mut sum = 0.0;
    for j in (lane..cols).step_by(BLOCK) {
        sum += x[row + j];
    }
    let mean = block_sum(scratch, lane, sum) / cols as f32;
    let mut squares = 0.0;
    for j in (lane..cols).step_by(BLOCK) {
        let d = x[row + j] - mean;
        squares += d * d;
    }
    let variance = block_sum(scratch, lane, squares) / cols as f32;
    let scale = 1.0 / sqrt(variance + EPSILON);
    for j in (lane..cols).step_by(BLOCK) {
        y[row + j] = (x[row + j] - mean) * scale * gamma[j] + beta[j];
    }
}

/// `y[r][j] = x[r][0] + ... + x[r][j]`, a chunk of [`BLOCK`] elements at a time.
#[kernel(max_workgroup_size = 256)]
pub fn inclusive_scan(x: &[f32], y: &mut [f32], cols: u32) {
    let scratch = shared_array::<f32, BLOCK>();
    let lane = workitem_id_x();
    let row = workgroup_id_x() * cols;
    let mut carry = 0.0;
    for start in (0..cols).step_by(BLOCK) {
        let j = start + lane;
        let v = if j < cols { x[row + j] } else { 0.0 };
        let prefix = block_scan(scratch, lane, v);
        let chunk = scratch[BLOCK - 1];
        barrier();
        if j < cols {
            y[row + j] = carry + prefix;
        }
        carry += chunk;
    }
}
