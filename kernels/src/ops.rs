//! The kernels, written with `#[kernel]`. `build.rs` compiles this file for every target;
//! the macro turns each function into a module with its typed launcher.

use kosmos::prelude::*;

/// Lanes per workgroup of the one-dimensional kernels.
pub const BLOCK: u32 = 256;

/// `out[i] = a[i] + b[i]` for `i < n`.
#[kernel(max_workgroup_size = 256)]
pub fn vector_add(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
    let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if i < n {
        out[i] = a[i] + b[i];
    }
}

/// One partial sum per workgroup: a grid-stride pass, then a tree in shared memory (the
/// order of additions is fixed, so results do not depend on timing). Runs with 256 lanes.
#[kernel(max_workgroup_size = 256)]
pub fn reduce_partial(input: &[f32], partials: &mut [f32], n: u32) {
    let tile = shared_array::<f32, 256>();
    let lane = workitem_id_x();
    let stride = num_workgroups_x() * 256;
    let mut acc: f32 = 0.0;
    let mut i = workgroup_id_x() * 256 + lane;
    while i < n {
        acc += input[i];
        i += stride;
    }
    tile[lane] = acc;
    barrier();
    let mut half = 128u32;
    while half > 0 {
        if lane < half {
            tile[lane] += tile[lane + half];
        }
        barrier();
        half >>= 1;
    }
    if lane == 0 {
        partials[workgroup_id_x()] = tile[0];
    }
}

/// `C = A B` (A `m x k`, B `k x n`, row-major bf16; C f32): each `TILE x TILE` output tile
/// is computed by a `TILE x TILE` workgroup through shared-memory tiles of A and B (bf16
/// widened to f32), with f32 accumulation.
#[kernel(max_workgroup_size = 256, instances(TILE = 16))]
pub fn gemm<const TILE: u32>(a: &[bf16], b: &[bf16], c: &mut [f32], m: u32, n: u32, k: u32) {
    let a_tile = shared_array::<f32, { TILE * TILE }>();
    let b_tile = shared_array::<f32, { TILE * TILE }>();
    let tx = workitem_id_x();
    let ty = workitem_id_y();
    let row = workgroup_id_y() * TILE + ty;
    let col = workgroup_id_x() * TILE + tx;
    let mut acc: f32 = 0.0;
    for k0 in (0..k).step_by(TILE) {
        let ak = k0 + tx;
        a_tile[ty * TILE + tx] = if row < m && ak < k {
            a[row * k + ak] as f32
        } else {
            0.0
        };
        let bk = k0 + ty;
        b_tile[ty * TILE + tx] = if bk < k && col < n {
            b[bk * n + col] as f32
        } else {
            0.0
        };
        barrier();
        for kk in 0..TILE {
            acc = fma(a_tile[ty * TILE + kk], b_tile[kk * TILE + tx], acc);
        }
        barrier();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

/// `gemm` on a persistent grid: each workgroup pulls output tiles from `counter[0]` (which
/// must be 0 at launch) until none are left, so any grid size covers the whole output.
#[kernel(max_workgroup_size = 256, instances(TILE = 16))]
pub fn gemm_persistent<const TILE: u32>(
    a: &[bf16],
    b: &[bf16],
    c: &mut [f32],
    counter: &mut [u32],
    m: u32,
    n: u32,
    k: u32,
) {
    let a_tile = shared_array::<f32, { TILE * TILE }>();
    let b_tile = shared_array::<f32, { TILE * TILE }>();
    let claimed = shared_array::<u32, 1>();
    let tx = workitem_id_x();
    let ty = workitem_id_y();
    let tiles_n = (n + TILE - 1) / TILE;
    let tiles = tiles_n * ((m + TILE - 1) / TILE);
    loop {
        if tx == 0 && ty == 0 {
            claimed[0] = atomic_add(&counter[0], 1, Ordering::Relaxed, Scope::Agent);
        }
        barrier();
        let tile = claimed[0];
        // Every lane has read the claim before lane 0 overwrites it.
        barrier();
        if tile >= tiles {
            break;
        }
        let row = tile / tiles_n * TILE + ty;
        let col = tile % tiles_n * TILE + tx;
        let mut acc: f32 = 0.0;
        for k0 in (0..k).step_by(TILE) {
            let ak = k0 + tx;
            a_tile[ty * TILE + tx] = if row < m && ak < k {
                a[row * k + ak] as f32
            } else {
                0.0
            };
            let bk = k0 + ty;
            b_tile[ty * TILE + tx] = if bk < k && col < n {
                b[bk * n + col] as f32
            } else {
                0.0
            };
            barrier();
            for kk in 0..TILE {
                acc = fma(a_tile[ty * TILE + kk], b_tile[kk * TILE + tx], acc);
            }
            barrier();
        }
        if row < m && col < n {
            c[row * n + col] = acc;
        }
    }
}
