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

/// `h = gelu(z)` in its tanh form, rounded to bf16, for `i < n` (the activation between the
/// two GEMMs of a transformer MLP).
#[kernel(max_workgroup_size = 256)]
pub fn gelu(z: &[f32], h: &mut [bf16], n: u32) {
    let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if i < n {
        let x = z[i];
        let t = tanh(GELU_C * (x + GELU_A * x * x * x));
        h[i] = (0.5 * x * (1.0 + t)) as bf16;
    }
}

/// `dz = dh gelu'(z)` (the derivative of [`gelu`]'s tanh form), rounded to bf16, for
/// `i < n`.
#[kernel(max_workgroup_size = 256)]
pub fn gelu_backward(dh: &[f32], z: &[f32], dz: &mut [bf16], n: u32) {
    let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if i < n {
        let x = z[i];
        let t = tanh(GELU_C * (x + GELU_A * x * x * x));
        let slope =
            0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * GELU_A * x * x);
        dz[i] = (dh[i] * slope) as bf16;
    }
}

/// `out[i] += part[i]` for `i < n` (`out[i] = 0 + part[i]` when `first` is 1): one term of
/// an elementwise sum of parts in a fixed order, as a weight every rank holds sums its
/// ranks' gradients.
#[kernel(max_workgroup_size = 256)]
pub fn accumulate(part: &[f32], out: &mut [f32], first: u32, n: u32) {
    let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if i < n {
        let sum = if first == 1 { 0.0 } else { out[i] };
        out[i] = sum + part[i];
    }
}

/// [`accumulate`] of a bf16 part.
#[kernel(max_workgroup_size = 256)]
pub fn accumulate_bf16(part: &[bf16], out: &mut [f32], first: u32, n: u32) {
    let i = workgroup_id_x() * workgroup_size_x() + workitem_id_x();
    if i < n {
        let sum = if first == 1 { 0.0 } else { out[i] };
        out[i] = sum + part[i] as f32;
    }
}

/// `out[i] = scale * u(i)`, `u(i)` in `[-1, 1)` a hash of `i` and `seed` (reproducible,
/// the same on every device), for every element of `out` (a grid-stride loop over 64-bit
/// indices): weights of any size made where they live.
#[kernel(max_workgroup_size = 256)]
pub fn fill_random(out: &mut [bf16], seed: u32, scale: f32) {
    let n = out.len();
    let mut i = (workgroup_id_x() * workgroup_size_x() + workitem_id_x()) as u64;
    let stride = (num_workgroups_x() * workgroup_size_x()) as u64;
    while i < n {
        // A 32-bit integer hash (two xor-shift-multiply rounds) of both index halves.
        let mut v = (i as u32) ^ ((i >> 32) as u32 * 0x9e37_79b9) ^ (seed * 0x85eb_ca6b);
        v = (v ^ (v >> 16)) * 0x7feb_352d;
        v = (v ^ (v >> 15)) * 0x846c_a68b;
        v ^= v >> 16;
        let u = (v >> 8) as f32 * (1.0 / 8_388_608.0) - 1.0;
        out[i] = (u * scale) as bf16;
        i += stride;
    }
}

/// `sqrt(2 / pi)` and the cubic coefficient of the tanh form of GELU.
pub const GELU_C: f32 = 0.797_884_6;
pub const GELU_A: f32 = 0.044_715;

/// The tile row of output tile `tile` in the grouped order of the GEMMs: runs of 8 tile rows,
/// column by column, so that tiles running at one time share rows of `a` and columns of `b`.
#[device]
fn tile_row(tile: u32, tiles_m: u32, tiles_n: u32) -> u32 {
    let first_row = tile / (8 * tiles_n) * 8;
    let group_rows = min(tiles_m - first_row, 8);
    first_row + tile % (8 * tiles_n) % group_rows
}

/// The tile column of output tile `tile` in the order of [`tile_row`].
#[device]
fn tile_col(tile: u32, tiles_m: u32, tiles_n: u32) -> u32 {
    let first_row = tile / (8 * tiles_n) * 8;
    let group_rows = min(tiles_m - first_row, 8);
    tile % (8 * tiles_n) / group_rows
}

/// Whether `a` and `b` hold the `need_a` and `need_b` elements a GEMM reads unchecked; where
/// one does not, the checked read of its last needed element names it in the launch's error.
#[device]
fn operands_fit(a: &[bf16], b: &[bf16], need_a: u64, need_b: u64) -> bool {
    if need_a > a.len() {
        let missing = a[need_a - 1];
    }
    if need_b > b.len() {
        let missing = b[need_b - 1];
    }
    need_a <= a.len() && need_b <= b.len()
}

/// `C = A B` (A `m x k`, B `k x n`, row-major bf16; C f32, f32 accumulation), any sizes
/// (ragged edges masked): the fallback of [`gemm_group`] for rows that are not whole
/// 16-byte chunks, which neither its 16-byte copies nor tensor maps can read.
///
/// The tiles and products are [`gemm_group`]'s (a workgroup of 8 subgroups, 128 x 128 output
/// tiles, each subgroup a 16 x 128 slab in one wide accumulator, 64-deep steps through the
/// swizzled layout `mma_group` reads), but each step is staged element by element
/// ([`stage_elements`]), zeros outside the matrices, through one stage of 32 KiB:
/// `min_resident = 2` lets one workgroup multiply while the other stages. Tiles inside `c`
/// whose rows are whole 16-byte chunks are stored straight; the others go slab by slab
/// through an 8 KiB scratch, then element by element.
///
/// `PERSISTENT = 0`: one workgroup per tile (`workgroup_id_x`), `counter` unused.
/// `PERSISTENT = 1`: workgroup `w` starts with tile `w`, then pulls tile
/// `grid + atomic_add(counter[0], 1)` (`counter[0]` is 0 at launch) until none are left.
/// Tiles are numbered in groups of 8 tile rows that walk the tile columns together
/// ([`tile_row`]). Launch with `8 * subgroup_size()` work-items.
#[kernel(
    max_workgroup_size = 512,
    max_subgroups = 8,
    min_resident = 2,
    instances(PERSISTENT = 0),
    instances(PERSISTENT = 1)
)]
pub fn gemm<const PERSISTENT: u32>(
    a: &[bf16],
    b: &[bf16],
    c: &mut [f32],
    counter: &mut [u32],
    m: u32,
    n: u32,
    k: u32,
) {
    // `a` (128 rows of 64, group g's at element 4096 g), then `b` (two 64-column blocks of
    // 64 rows from element 8192).
    let stage = shared_array::<bf16, { 2 * STEP_WORDS }>();
    let scratch = shared_array::<f32, { 16 * 128 }>();
    let claimed = shared_array::<u32, 1>();
    let tid = workitem_id_x();
    let sg = subgroup_id();
    let group = sg >> 2;
    let tiles_n = (n + 127) / 128;
    let tiles_m = (m + 127) / 128;
    let tiles = tiles_n * tiles_m;
    let steps = (k + 63) / 64;
    // The staging reads `a` and `b` unchecked, inside the matrices: slices too short for
    // them end the kernel with the bounds error of the last element it would read.
    if !operands_fit(a, b, (m as u64) * (k as u64), (k as u64) * (n as u64)) {
        return;
    }
    let mut tile = workgroup_id_x();
    while tile < tiles {
        let m0 = tile_row(tile, tiles_m, tiles_n) * 128;
        let n0 = tile_col(tile, tiles_m, tiles_n) * 128;
        let mut acc = wide_zero();
        for s in 0..steps {
            stage_elements(stage, a, b, m0, n0, s * 64, m, n, k);
            barrier();
            // SAFETY: both tiles lie inside the stage.
            unsafe {
                acc = mma_group(
                    stage.get_unchecked(group * 4096),
                    stage.get_unchecked(8192),
                    acc,
                );
            }
            // Every lane is done with the stage before the next step refills it.
            barrier();
        }
        if m0 + 128 <= m && n0 + 128 <= n && (n & 7) == 0 {
            frag_store(&c[(m0 + group * 64 + (sg & 3) * 16) * n + n0], acc, n);
        } else {
            // Fragment stores need rows of whole 16-byte chunks: each subgroup's slab goes
            // through `scratch` in turn, then to `c` element by element. The branch is
            // uniform over the workgroup, so the barriers are too.
            for j in 0..8 {
                if sg == j {
                    frag_store(&scratch[0], acc, 128);
                }
                barrier();
                let row0 = m0 + (j >> 2) * 64 + (j & 3) * 16;
                for e in (tid..2048).step_by(workgroup_size_x()) {
                    let row = row0 + (e >> 7);
                    let col = n0 + (e & 127);
                    if row < m && col < n {
                        c[row * n + col] = scratch[e];
                    }
                }
                barrier();
            }
        }
        if PERSISTENT == 1 {
            if tid == 0 {
                claimed[0] = num_workgroups_x()
                    + atomic_add(&counter[0], 1, Ordering::Relaxed, Scope::Agent);
            }
            barrier();
            tile = claimed[0];
            // Every lane has read the claim before lane 0 overwrites it.
            barrier();
        } else {
            tile = tiles;
        }
    }
}

/// Stages the 64-deep step at `k0` of the output tile at (`m0`, `n0`) for [`gemm`]: 128 rows
/// of `a` and 64 rows of 128 columns of `b`, each lane 8 consecutive elements of a row at a
/// time (their loads all issued before the first store, so they wait once), each at its
/// place in the swizzled layout of `mma_group` (the 8 columns from `8 ch` of a 64-element row
/// `r` in chunk `ch ^ r % 8`), zeros outside the matrices. `a` and `b` must hold their
/// `m x k` and `k x n` elements.
#[device]
#[allow(clippy::too_many_arguments)]
fn stage_elements(
    stage: &mut [bf16],
    a: &[bf16],
    b: &[bf16],
    m0: u32,
    n0: u32,
    k0: u32,
    m: u32,
    n: u32,
    k: u32,
) {
    for i in (workitem_id_x()..1024).step_by(workgroup_size_x()) {
        let r = i >> 3;
        let ch = i & 7;
        let row = m0 + r;
        let at = r * 64 + (ch ^ (r & 7)) * 8;
        stage_chunk(stage, at, a, row * k, row < m, k0 + ch * 8, k);
    }
    for i in (workitem_id_x()..1024).step_by(workgroup_size_x()) {
        let r = i >> 4;
        let ch = i & 15;
        let row = k0 + r;
        let at = 8192 + (ch >> 3) * 4096 + r * 64 + ((ch & 7) ^ (r & 7)) * 8;
        stage_chunk(stage, at, b, row * n, row < k, n0 + ch * 8, n);
    }
}

/// Copies elements `col .. col + 8` of the row of `src` starting at element `row_at` into
/// `stage` from `at`, zeros past `cols` or where the row is not `inside`.
#[device]
fn stage_chunk(
    stage: &mut [bf16],
    at: u32,
    src: &[bf16],
    row_at: u32,
    inside: bool,
    col: u32,
    cols: u32,
) {
    let zero: bf16 = 0.0;
    for e in 0..8 {
        let mut v = zero;
        // SAFETY: the element lies inside the matrix, which the caller checked `src` holds;
        // `at + e` lies in the stage (the callers' layout).
        unsafe {
            if inside && col + e < cols {
                v = *src.get_unchecked(row_at + col + e);
            }
            *stage.get_unchecked_mut(at + e) = v;
        }
    }
}

/// `C = A B` like [`gemm`], on group-wide matrix instructions (`mma_group`: `wgmma` on
/// NVIDIA, 16x16 MFMAs on AMD), for `k` and `n` multiples of 8 (rows of 16-byte chunks).
///
/// A workgroup of 8 subgroups computes 128 x 128 output tiles: group `g` (subgroups
/// `4g .. 4g + 4`) the rows `64g .. 64g + 64`, each subgroup a 16 x 128 slab in one wide
/// accumulator. K advances 64 at a time through two stages of shared memory (32 KiB each:
/// `a` as two 64 x 64 group tiles, then `b` as two 64 x 64 column blocks, in the swizzled
/// layout `mma_group` reads). The copies of step `s` (`copy_async`, zeros outside the
/// matrices) fly while step `s - 1` multiplies; one barrier per step both publishes step
/// `s - 1` and tells every lane that step `s - 2`'s stage may be refilled. The stages fill
/// the 64 KiB every target has, so they are declared as 32-bit words and the persistent
/// claim borrows word 0 between tiles, when no copy or product uses them.
/// `min_resident = 2` keeps two workgroups per processor (128 registers per lane on
/// NVIDIA): the other one multiplies while this one waits at its barrier, which measured
/// faster on the H200 than one workgroup with more registers (bench/RESULTS.md).
///
/// Tiles are numbered in groups of 8 tile rows as in [`gemm`]. Interior tiles store each
/// slab straight to `c`; edge tiles store the part inside `c`.
/// `PERSISTENT = 0`: a grid-stride loop over the tiles (launched with one workgroup per
/// tile); `PERSISTENT = 1` as in [`gemm`]. Launch with `8 * subgroup_size()` work-items.
#[kernel(
    max_workgroup_size = 512,
    max_subgroups = 8,
    min_resident = 2,
    instances(PERSISTENT = 0),
    instances(PERSISTENT = 1)
)]
pub fn gemm_group<const PERSISTENT: u32>(
    a: &[bf16],
    b: &[bf16],
    c: &mut [f32],
    counter: &mut [u32],
    m: u32,
    n: u32,
    k: u32,
) {
    let stages = shared_array::<u32, { 2 * STEP_WORDS }>();
    let tid = workitem_id_x();
    let sg = subgroup_id();
    let group = sg >> 2;
    let tiles_n = (n + 127) / 128;
    let tiles_m = (m + 127) / 128;
    let tiles = tiles_n * tiles_m;
    // The copies read `a` and `b` in 8-element chunks without bounds checks (checks cost a
    // sixth of the throughput, bench/RESULTS.md): up to element `m k - 1` of `a` and
    // `k n - 1` of `b`, 7 more where rows are not whole chunks. Slices too short for that
    // end the kernel with the bounds error of the last element it would read.
    let tail_a: u64 = if (k & 7) == 0 { 0 } else { 7 };
    let tail_b: u64 = if (n & 7) == 0 { 0 } else { 7 };
    let need_a = (m as u64) * (k as u64) + tail_a;
    let need_b = (k as u64) * (n as u64) + tail_b;
    if !operands_fit(a, b, need_a, need_b) {
        return;
    }
    let mut tile = workgroup_id_x();
    while tile < tiles {
        let m0 = tile_row(tile, tiles_m, tiles_n) * 128;
        let n0 = tile_col(tile, tiles_m, tiles_n) * 128;
        let acc = tile_product(stages, a, b, m0, n0, m, n, k, 0, 0, 0, 2, 2);

        let row0 = m0 + group * 64 + (sg & 3) * 16;
        if m0 + 128 <= m && n0 + 128 <= n {
            frag_store(&c[row0 * n + n0], acc, n);
        } else if row0 < m {
            frag_store_within(&c[row0 * n + n0], acc, n, m - row0, n - n0);
        }

        if PERSISTENT == 1 {
            if tid == 0 {
                stages[0] = num_workgroups_x()
                    + atomic_add(&counter[0], 1, Ordering::Relaxed, Scope::Agent);
            }
            barrier();
            tile = stages[0];
            // Every lane has read the claim before the next tile's copies overwrite it.
            barrier();
        } else {
            // Launched with a workgroup per tile this runs once; as a grid-stride loop it
            // also keeps the compiler from flattening it (which spilled registers).
            tile += num_workgroups_x();
        }
    }
}

/// 32-bit words of one 64-deep step of a 128 x 128 output tile in shared memory: `a` (128
/// rows of the tile, 64 deep; group `g`'s 64 rows at word 2048 g), then `b` from word 4096
/// (two 64-column blocks of 2048 words, or the 128 rows of `b^T`: the same bytes). Each
/// 128-byte row of 64 elements has its 16-byte chunks swizzled (chunk `ch` of row `r` at
/// chunk `ch ^ (r % 8)`), as the matrix instructions and tensor copies expect.
pub const STEP_WORDS: u32 = 8192;

/// `op(A) op(B)` over all of `k` for the 128 x 128 output tile at row `m0`, column `n0`:
/// the 64 x 128 accumulator of the caller's group (`subgroup_id() / 4`: rows `64 g..`).
/// Rows at or past `m` and columns at or past `n` read as zeros (a group whose rows all lie
/// there keeps a zero accumulator without multiplying). The steps go through `ring`
/// stages of [`STEP_WORDS`] in `stages` (a constant: 2, or 3 where `stages` has room for a
/// third from word `2 * STEP_WORDS`), the copies of `ring - 1` steps in flight while a
/// step multiplies. `ta = 0`: `a` is `m x k` row-major, 1: `a` holds `A^T` (`k x m`); `tb =
/// 0`: `b` is `k x n`, 1: `b` holds `B^T` (`n x k`); the row lengths these give must be
/// multiples of 8 (16-byte chunks), and `a`, `b` must hold every chunk a step reads.
/// `pair` (with `tb = 1`; 0 otherwise) pairs rows of `B^T` instead: output columns 0..64
/// are rows `n0..` and columns 64..128 rows `pair + n0..`, both halves bounded by `n` (how
/// a SwiGLU projection gets the gate and up columns of the same features into one tile).
/// Collective over a workgroup of `tile_groups` groups of four subgroups (a constant): 2,
/// or 3 where the third only passes the barriers (its accumulator zero); shared by
/// [`gemm_group`], the fused tensor-parallel ops and the MoE kernels.
#[device]
#[allow(clippy::too_many_arguments)]
fn tile_product(
    stages: &mut [u32],
    a: &[bf16],
    b: &[bf16],
    m0: u32,
    n0: u32,
    m: u32,
    n: u32,
    k: u32,
    ta: u32,
    tb: u32,
    pair: u32,
    tile_groups: u32,
    ring: u32,
) -> WideAcc {
    let steps = (k + 63) / 64;
    tile_product_steps(
        stages,
        a,
        b,
        m0,
        n0,
        m,
        n,
        k,
        ta,
        tb,
        pair,
        tile_groups,
        0,
        steps,
        ring,
    )
}

/// [`tile_product`] over `steps` of its 64-deep steps from step `first_step` only (columns
/// `64 first_step..` of `op(A)`'s rows, as many rows of `op(B)`): a part of the sum over `k`.
#[device]
#[allow(clippy::too_many_arguments)]
fn tile_product_steps(
    stages: &mut [u32],
    a: &[bf16],
    b: &[bf16],
    m0: u32,
    n0: u32,
    m: u32,
    n: u32,
    k: u32,
    ta: u32,
    tb: u32,
    pair: u32,
    tile_groups: u32,
    first_step: u32,
    steps: u32,
    ring: u32,
) -> WideAcc {
    let group = subgroup_id() >> 2;
    let mine = tile_groups == 2 || group < 2;
    // A group whose rows all lie at or past `m` (the padding of a last tile) has only
    // zeros to multiply: its accumulator stays zero, and the other group has the tensor
    // cores to itself.
    let multiplies = mine && m0 + 64 * group < m;
    let lead = ring - 1;
    let mut acc = wide_zero();
    for s in 0..steps + lead {
        if s >= lead {
            await_ring_step(s, steps, ring);
        }
        if s < steps {
            let base = s % ring * STEP_WORDS;
            let k0 = (first_step + s) * 64;
            if mine {
                if ta == 0 {
                    stage_rows(stages, base, a, m0, k0, m, k, 0, tile_groups);
                } else {
                    stage_columns(stages, base, a, k0, m0, k, m, tile_groups);
                }
                if tb == 0 {
                    stage_columns(stages, base + 4096, b, k0, n0, k, n, tile_groups);
                } else {
                    stage_rows(stages, base + 4096, b, n0, k0, n, k, pair, tile_groups);
                }
            }
            async_commit();
        }
        if s >= lead && multiplies {
            let base = (s - lead) % ring * STEP_WORDS;
            // SAFETY: both tiles lie inside the stage at `base`.
            unsafe {
                acc = mma_group_trans(
                    stages.get_unchecked(base + group * 2048),
                    stages.get_unchecked(base + 4096),
                    acc,
                    ta,
                    tb,
                );
            }
        }
    }
    // Every lane is done with the stages before the next tile overwrites them.
    barrier();
    acc
}

/// Before step `s - (ring - 1)` of a product of `steps` steps through `ring` places (2 or 3)
/// multiplies: waits until that step has landed (with three places, step `s - 1` may still
/// fly, unless it was the last) and every lane is done with step `s - ring`, whose place
/// step `s` takes.
#[device]
fn await_ring_step(s: u32, steps: u32, ring: u32) {
    if ring == 3 && s <= steps {
        async_wait(1);
    } else {
        async_wait(0);
    }
    barrier();
}

/// Starts copying 128 rows x 64 columns of the row-major `rows x cols` matrix `src` from row
/// `r0`, column `c0` into `stages` at word `to` (32 words a row, chunks swizzled as
/// [`STEP_WORDS`] says), zeros outside the matrix. Lanes keep their chunk column from pass
/// to pass and move whole multiples of 8 rows, so the swizzle is the lane's own; the trip
/// count is a constant, so the loop unrolls. With `pair` not 0, rows 64.. of the box are
/// rows `pair + r0..` of `src` instead (both halves bounded by `rows`). Collective over the
/// first two of `tile_groups` groups of four subgroups (as [`stage_columns`]).
#[device]
#[allow(clippy::too_many_arguments)]
fn stage_rows(
    stages: &mut [u32],
    to: u32,
    src: &[bf16],
    r0: u32,
    c0: u32,
    rows: u32,
    cols: u32,
    pair: u32,
    tile_groups: u32,
) {
    let tid = workitem_id_x();
    let row = tid >> 3;
    let col = (tid & 7) * 8;
    let at = to + ((tid & 7) ^ (row & 7)) * 4;
    for j in 0..128 / subgroup_size() {
        // The first two groups' lanes cover eight chunks of as many rows at a pass.
        let r = row + j * ((workgroup_size_x() * 2 / tile_groups) >> 3);
        let second = pair != 0 && r >= 64;
        let within = if second { r - 64 } else { r };
        let first_row = if second { pair + r0 } else { r0 };
        let inside = r0 + within < rows && c0 + col < cols;
        let from = if inside {
            (first_row + within) * cols + c0 + col
        } else {
            0
        };
        // SAFETY: the word lies in the 4096 after `to`; `from` is a chunk the caller
        // promises `src` holds.
        unsafe {
            copy_async(
                stages.get_unchecked_mut(at + r * 32),
                src.get_unchecked(from),
                inside,
            );
        }
    }
}

/// Starts copying 64 rows x 128 columns of the row-major `rows x cols` matrix `src` from row
/// `r0`, column `c0` into `stages` at word `to`, as two 64-column blocks of 2048 words
/// (chunks swizzled as [`STEP_WORDS`] says), zeros outside the matrix.
#[device]
#[allow(clippy::too_many_arguments)]
fn stage_columns(
    stages: &mut [u32],
    to: u32,
    src: &[bf16],
    r0: u32,
    c0: u32,
    rows: u32,
    cols: u32,
    tile_groups: u32,
) {
    let tid = workitem_id_x();
    let row = tid >> 4;
    let col = (tid & 15) * 8;
    let at = to + ((tid & 15) >> 3) * 2048 + ((tid & 7) ^ (row & 7)) * 4;
    for j in 0..128 / subgroup_size() {
        let r = row + j * ((workgroup_size_x() * 2 / tile_groups) >> 4);
        let inside = r0 + r < rows && c0 + col < cols;
        let from = if inside {
            (r0 + r) * cols + c0 + col
        } else {
            0
        };
        // SAFETY: as in `stage_rows`.
        unsafe {
            copy_async(
                stages.get_unchecked_mut(at + r * 32),
                src.get_unchecked(from),
                inside,
            );
        }
    }
}

/// Stages of [`gemm_pipeline`]'s ring in shared memory.
pub const PIPE_STAGES: u32 = 4;
/// 32-bit words of one stage: a 128 x 64 box of `a` (16 KiB), then up to four 64 x 64 boxes
/// of `b` (8 KiB each).
const PIPE_STAGE_WORDS: u32 = 12288;

/// `C = op(A) op(B)` (bf16 in, f32 accumulation) as a warp-specialised persistent pipeline
/// fed by tensor copies. `TA = 0`: `a` is `m x k` row-major, mapped by `a_map` in boxes of
/// 128 rows x 64 columns; `TA = 1`: `a` holds A^T (`k x m`), in boxes of 64 x 64. `TB = 0`:
/// `b` is `k x n`, in boxes of 64 x 64; `TB = 1`: `b` holds B^T (`n x k`), in boxes of
/// 128 x 64. All with the 128-byte swizzle, which the matrix
/// instructions read in either orientation (`mma_group_async_trans`). Elements outside the
/// matrices arrive as zeros, so any `m`, `n`, `k` works where the maps can be made (rows of
/// whole 16-byte units). `C` (`m x n`, row-major) goes to `c` (f32) or, with `BF16 = 1`, to
/// `c16` (rounded to bf16); the other one is not touched. Output tiles are 128 rows by 128
/// columns, or 256 with `WIDE = 1` (each step then reads its `a` tiles for twice the
/// products, which pays where there are enough tiles to fill the processors), over rows
/// `first_row..m` (a multiple of 128): `kernels::GemmPlan` may cut the rows in a wide part
/// and a narrow one, each its own launch.
///
/// A workgroup is three groups of four subgroups. Group 0 produces: its first subgroup copies
/// each 64-deep step of a tile into the next stage of a ring of [`PIPE_STAGES`] and the
/// copies complete on that stage's `full` barrier; the group gives its registers to the
/// others. Groups 1 and 2 consume: each multiplies 64 rows of the output tile (one
/// accumulator per 128 columns) with one step's products in flight, and hands a stage back on
/// its `empty` barrier (one arrival per subgroup) once the products that read it have
/// finished. Workgroup `w` takes tiles `w, w + grid, ...` in the grouped order of
/// [`tile_row`]; producer and consumers walk the same sequence, so the copies run up to a
/// ring ahead of the products, across tiles. Launch with 12 subgroups of 32 lanes.
#[kernel(
    max_workgroup_size = 384,
    max_subgroups = 12,
    min_resident = 1,
    instances(WIDE = 0, TA = 0, TB = 0, BF16 = 0),
    instances(WIDE = 0, TA = 0, TB = 0, BF16 = 1),
    instances(WIDE = 0, TA = 0, TB = 1, BF16 = 0),
    instances(WIDE = 0, TA = 0, TB = 1, BF16 = 1),
    instances(WIDE = 0, TA = 1, TB = 0, BF16 = 0),
    instances(WIDE = 0, TA = 1, TB = 0, BF16 = 1),
    instances(WIDE = 0, TA = 1, TB = 1, BF16 = 0),
    instances(WIDE = 0, TA = 1, TB = 1, BF16 = 1),
    instances(WIDE = 1, TA = 0, TB = 0, BF16 = 0),
    instances(WIDE = 1, TA = 0, TB = 0, BF16 = 1),
    instances(WIDE = 1, TA = 0, TB = 1, BF16 = 0),
    instances(WIDE = 1, TA = 0, TB = 1, BF16 = 1),
    instances(WIDE = 1, TA = 1, TB = 0, BF16 = 0),
    instances(WIDE = 1, TA = 1, TB = 0, BF16 = 1),
    instances(WIDE = 1, TA = 1, TB = 1, BF16 = 0),
    instances(WIDE = 1, TA = 1, TB = 1, BF16 = 1)
)]
#[allow(clippy::too_many_arguments)]
pub fn gemm_pipeline<const WIDE: u32, const TA: u32, const TB: u32, const BF16: u32>(
    a_map: &TensorMap,
    b_map: &TensorMap,
    c: &mut [f32],
    c16: &mut [bf16],
    m: u32,
    n: u32,
    k: u32,
    first_row: u32,
) {
    // Stage `s` at word `s * PIPE_STAGE_WORDS`: `a` (128 rows of the tile, group g's 64 at
    // 2048 g), then `b` in 64-column blocks of 2048 words from word 4096 (a `b^T` box of
    // 128 rows lands there as the same bytes as two blocks).
    let stages = shared_array::<u32, { PIPE_STAGES * PIPE_STAGE_WORDS }>();
    let full = shared_array::<u64, PIPE_STAGES>();
    let empty = shared_array::<u64, PIPE_STAGES>();
    let sg = subgroup_id();
    let group = sg >> 2;
    let first_lane = subgroup_lane() == 0;
    let tile_cols = 128 << WIDE;
    let tiles_n = (n + tile_cols - 1) / tile_cols;
    let tiles_m = (m - first_row + 127) / 128;
    let tiles = tiles_n * tiles_m;
    let steps = (k + 63) / 64;
    if workitem_id_x() == 0 {
        for s in 0..PIPE_STAGES {
            mbar_init(&full[s], 1);
            // One arrival per consumer subgroup.
            mbar_init(&empty[s], 8);
        }
    }
    barrier();
    // `it` counts the steps the workgroup has gone through, over all its tiles: step `it`
    // uses stage `it % PIPE_STAGES` in its round `it / PIPE_STAGES`, whose parity the
    // barriers of that stage complete.
    let mut it = 0;
    let mut tile = workgroup_id_x();
    if group == 0 {
        regs_dec(40);
        if sg != 0 {
            return;
        }
        let b_boxes = 2 << WIDE;
        while tile < tiles {
            let m0 = first_row + tile_row(tile, tiles_m, tiles_n) * 128;
            let n0 = tile_col(tile, tiles_m, tiles_n) * tile_cols;
            for step in 0..steps {
                let s = it % PIPE_STAGES;
                // A fresh barrier counts its previous round as complete, so the first round
                // does not wait.
                mbar_wait(&empty[s], ((it / PIPE_STAGES) & 1) ^ 1);
                let k0 = step * 64;
                let base = s * PIPE_STAGE_WORDS;
                copy_step(
                    &a_map, &b_map, stages, full, s, base, m0, n0, k0, TA, TB, b_boxes,
                );
                it += 1;
            }
            tile += num_workgroups_x();
        }
    } else {
        regs_inc(232);
        let rows = (group - 1) * 64;
        while tile < tiles {
            let m0 = first_row + tile_row(tile, tiles_m, tiles_n) * 128;
            let n0 = tile_col(tile, tiles_m, tiles_n) * tile_cols;
            let mut left = wide_zero();
            let mut right = wide_zero();
            for step in 0..steps {
                let s = it % PIPE_STAGES;
                mbar_wait(&full[s], (it / PIPE_STAGES) & 1);
                let base = s * PIPE_STAGE_WORDS;
                let a = base + rows * 32;
                left = multiply_async(stages, a, base + 4096, left, TA, TB);
                if WIDE == 1 {
                    right = multiply_async(stages, a, base + 8192, right, TA, TB);
                }
                // The products of the previous step have finished: its stage goes back.
                if WIDE == 1 {
                    left = mma_wait(2, left);
                    right = mma_wait(2, right);
                } else {
                    left = mma_wait(1, left);
                }
                if step > 0 && first_lane {
                    mbar_arrive(&empty[(it + PIPE_STAGES - 1) % PIPE_STAGES]);
                }
                it += 1;
            }
            left = mma_wait(0, left);
            if WIDE == 1 {
                right = mma_wait(0, right);
            }
            if first_lane {
                mbar_arrive(&empty[(it + PIPE_STAGES - 1) % PIPE_STAGES]);
            }
            let row0 = m0 + rows + (sg & 3) * 16;
            store_slab(c, c16, BF16, left, row0, n0, m, n);
            if WIDE == 1 && n0 + 128 < n {
                store_slab(c, c16, BF16, right, row0, n0 + 128, m, n);
            }
            tile += num_workgroups_x();
        }
    }
}

/// Copies the step at depth `k0` of the output tile at (`m0`, `n0`) into stage `s` of a
/// pipeline's ring (at word `base` of `stages`), completing on `full[s]`, which the subgroup's first lane arms
/// with the step's bytes: the tile's 128 rows of `a` (one box, or two 64-row boxes of `a^T`
/// when `ta` is 1) and `b_boxes` 64-column boxes of `b` (or half as many 128-row boxes of
/// `b^T` when `tb` is 1: the same bytes). Collective over a subgroup.
#[device]
#[allow(clippy::too_many_arguments)]
fn copy_step(
    a_map: &TensorMap,
    b_map: &TensorMap,
    stages: &mut [u32],
    full: &mut [u64],
    s: u32,
    base: u32,
    m0: u32,
    n0: u32,
    k0: u32,
    ta: u32,
    tb: u32,
    b_boxes: u32,
) {
    if subgroup_lane() == 0 {
        mbar_arrive_expect(&full[s], 16384 + b_boxes * 8192);
    }
    if ta == 0 {
        copy_tensor(&stages[base], &a_map, k0, m0, &full[s]);
    } else {
        copy_tensor(&stages[base], &a_map, m0, k0, &full[s]);
        copy_tensor(&stages[base + 2048], &a_map, m0 + 64, k0, &full[s]);
    }
    if tb == 0 {
        for j in 0u32..b_boxes {
            copy_tensor(
                &stages[base + 4096 + j * 2048],
                &b_map,
                n0 + j * 64,
                k0,
                &full[s],
            );
        }
    } else {
        for j in 0u32..b_boxes / 2 {
            copy_tensor(
                &stages[base + 4096 + j * 4096],
                &b_map,
                k0,
                n0 + j * 128,
                &full[s],
            );
        }
    }
}

/// `acc` plus the product of the group's `a` tile at word `a` and the `b` tile at word `b` of
/// `stages` (laid out as the constants `ta`, `tb` say, as for `mma_group_async_trans`), left
/// in flight. Collective over a group of four subgroups.
#[device]
fn multiply_async(stages: &[u32], a: u32, b: u32, acc: WideAcc, ta: u32, tb: u32) -> WideAcc {
    let mut sum = acc;
    // SAFETY: callers pass tiles that lie inside `stages` (a stage of the ring).
    unsafe {
        sum = mma_group_async_trans(
            stages.get_unchecked(a),
            stages.get_unchecked(b),
            sum,
            ta,
            tb,
        );
    }
    sum
}

/// Stores the 16 x 128 slab `acc` of a subgroup at row `row0`, column `n0` of the `m x n`
/// matrix `C`: in `c` (f32), or in `c16` (rounded to bf16) when `to_bf16` is 1; straight when
/// it lies inside, else the part inside.
#[device]
#[allow(clippy::too_many_arguments)]
fn store_slab(
    c: &mut [f32],
    c16: &mut [bf16],
    to_bf16: u32,
    acc: WideAcc,
    row0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    let at = row0 * n + n0;
    if row0 + 16 <= m && n0 + 128 <= n {
        if to_bf16 == 1 {
            frag_store(&c16[at], acc, n);
        } else {
            frag_store(&c[at], acc, n);
        }
    } else if row0 < m {
        let rows = m - row0;
        let cols = n - n0;
        if to_bf16 == 1 {
            frag_store_within(&c16[at], acc, n, rows, cols);
        } else {
            frag_store_within(&c[at], acc, n, rows, cols);
        }
    }
}

/// Stores the 128 x 128 output tile `acc` (every subgroup's 16 x 128 slab, as
/// [`store_slab`] places them) at row `m0`, column `n0` of the `m x n` bf16 matrix `c16`,
/// the part inside it: rounded to bf16 into `tile` first (32 KiB: each subgroup's slab as
/// two 16 x 64 boxes of 128-byte rows whose 16-byte chunks are swizzled, chunk `j` of row
/// `r` at `j ^ r % 8`, so that the rows a fragment store writes at once fall in different
/// banks without padding), then copied out in 16-byte chunks, each row's 256 bytes written
/// whole. A fragment store straight to memory writes 4-byte pieces of eight rows at once,
/// which caps a tile's store at about a quarter of the memory's bandwidth: the cost of a
/// tile with a short `k` (a weight gradient over one expert's rows). `n` must be a multiple
/// of 8. Collective over a workgroup of eight subgroups.
#[device]
#[allow(clippy::too_many_arguments)]
fn store_tile_bf16(
    tile: &mut [bf16],
    acc: WideAcc,
    c16: &mut [bf16],
    m0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    frag_store_swizzled(&tile[subgroup_id() * 2048], acc, 16);
    barrier();
    let rows = min(m - m0, 128);
    let chunks = min(n - n0, 128) / 8;
    // A lane keeps one chunk column and one row of every slab it copies, and moves a whole
    // number of slabs a pass (the workgroup is a multiple of 256 lanes): its addresses
    // advance by constants, where working out row and chunk of every chunk index cost a
    // dozen instructions a 16-byte chunk.
    let tid = workitem_id_x();
    let ch = tid & 15;
    let row = (tid >> 4) & 15;
    let slab_step = workgroup_size_x() >> 8;
    if ch < chunks {
        let from = slab_chunk(row, ch);
        let mut slab = tid >> 8;
        while slab * 16 + row < rows {
            // SAFETY: row `16 slab + row` and chunk `ch` lie in the staging tile, and that
            // row of `m0..`, columns `n0 + 8 ch..` in `c16`'s `m x n` (the caller's bound).
            unsafe {
                let v = load_vec8(tile.get_unchecked(slab * 2048 + from));
                let r = m0 + slab * 16 + row;
                store_vec8(c16.get_unchecked_mut(r * n + n0 + ch * 8), v);
            }
            slab += slab_step;
        }
    }
    // Every lane has copied its chunks before the next tile is staged.
    barrier();
}

/// Where the 16-byte chunk `ch` (0..16) of row `r` (0..16) of a subgroup's 16 x 128 bf16 slab
/// lies, in elements from the slab's start, as `frag_store_swizzled` writes it (rows of 16):
/// two 16 x 64 boxes of 128-byte rows, chunk `j` of a box's row `r` at `j ^ r % 8`.
#[device]
fn slab_chunk(r: u32, ch: u32) -> u32 {
    (ch >> 3) * 1024 + r * 64 + ((ch & 7) ^ (r & 7)) * 8
}

/// The end of a fused op: the ranks' first `count` readiness counters and first
/// `head_count` queue heads zeroed, so that the next launch needs no host work, once nobody
/// signals a counter or reads a buffer any more. Where the whole world is this launch, by
/// the world's last workgroup to leave (`team_last_out`: no workgroup waits for another);
/// where its ranks run in launches of their own, each rank's launch ends at a team barrier
/// (its host may reuse its buffers once it has ended) and its workgroup 0 zeroes its own.
#[device]
fn rearm(ready: &Sym<[u32]>, count: u32, queues: &Sym<[u32]>, head_count: u32) {
    if team_one_launch() {
        if team_last_out() {
            for r in 0..world_size() {
                zero_counters(ready, count, queues, head_count, r);
            }
        }
    } else {
        team_barrier();
        if team_workgroup() == 0 {
            zero_counters(ready, count, queues, head_count, team_rank());
        }
    }
}

/// Rank `r`'s first `count` readiness counters and first `head_count` queue heads zeroed by
/// the calling workgroup.
#[device]
fn zero_counters(ready: &Sym<[u32]>, count: u32, queues: &Sym<[u32]>, head_count: u32, r: u32) {
    let counters = ready.peer(r);
    let heads = queues.peer(r);
    for i in (workitem_id_x()..count).step_by(workgroup_size_x()) {
        counters[i] = 0;
    }
    if workitem_id_x() < head_count {
        heads[workitem_id_x()] = 0;
    }
}

/// `Y = AllGather_M(X) op(W_r)` on every rank of the world, in one self-scheduled
/// persistent launch: `X` is gathered by rows (`shard_rows` per rank, `M = ranks *
/// shard_rows`, `K` = `k` columns) into each rank's copy of `x` (`M x K` bf16), where rank
/// `r`'s own rows `r * shard_rows..` are already in place; `W_r` (`w`) is `k x n` (`TB = 0`)
/// or holds `W_r^T` (`n x k`, `TB = 1`); `Y` (`M x n`) goes to `y` (f32), or to `y16` (bf16)
/// with `BF16 = 1` (the other is not touched). `ready` holds a readiness counter per block
/// of rows (`ranks * ceil(shard_rows / 128)`) and a spare one, `queues` the two queue heads,
/// all zero.
///
/// Communication tasks pull a peer's block of up to 128 rows into the local copy and signal
/// its counter; they come in the order the compute queue consumes them: the next rank's
/// blocks first, then the one after (a ring). Compute tasks are the 128 x 128 output tiles
/// in the order their rows arrive: this rank's own shard first (needing nothing), then the
/// peers in the same ring order; a tile never straddles two shards. One dispatch loop serves
/// both queues, so no workgroup is set aside for either role. Communication task `t` of
/// rank `r` signals the spare counter instead when `missing` is `r * 65536 + t` (a planted missing signal, which the waits
/// must report; `u32::MAX` plants none). Launch with 8 subgroups; two workgroups share a
/// processor (128 registers a lane: the tile spills a few bytes, and still runs faster
/// than one workgroup alone waiting at every step's barrier, bench/RESULTS.md).
#[kernel(
    max_workgroup_size = 512,
    max_subgroups = 8,
    min_resident = 2,
    scheduler_scratch = stages,
    instances(TB = 0, BF16 = 0),
    instances(TB = 0, BF16 = 1),
    instances(TB = 1, BF16 = 0),
    instances(TB = 1, BF16 = 1)
)]
pub fn ag_gemm<const TB: u32, const BF16: u32>(
    team: &Team,
    x: &Sym<[bf16]>,
    w: &Sym<[bf16]>,
    y: &Sym<[f32]>,
    y16: &Sym<[bf16]>,
    ready: &Sym<[u32]>,
    queues: &Sym<[u32]>,
    shard_rows: u32,
    n: u32,
    k: u32,
    missing: u32,
) {
    let stages = shared_array::<u32, { 2 * STEP_WORDS }>();
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let blocks = (shard_rows + 127) / 128;
    let tiles_n = (n + 127) / 128;
    let per_shard = blocks * tiles_n;
    // Each role looks its buffers up itself: pointers held across the loop would take
    // registers from the tile's main loop (and spill it at two workgroups per processor).
    let heads = queues.local();
    dispatch(
        &heads[0],
        (ranks - 1) * blocks,
        &heads[1],
        ranks * per_shard,
        Scope::Agent,
        // Tile `t` reads shard `(rank + t / per_shard) % ranks`; the own shard (the first
        // `per_shard` tiles) waits for nothing.
        |t| {
            (
                &ready.local()[(rank + t / per_shard) % ranks * blocks
                    + tile_row(t % per_shard, blocks, tiles_n)],
                min(t / per_shard, 1),
            )
        },
        |t| {
            let src = (rank + 1 + t / blocks) % ranks;
            let block = t % blocks;
            let first = src * shard_rows + block * 128;
            let rows = min(shard_rows - block * 128, 128);
            let from = x.peer(src);
            let gathered = x.local();
            copy_chunks(
                from,
                gathered,
                first * k,
                first * k,
                rows * k / 8,
                lane,
                lanes,
            );
            // A planted missing signal goes to the spare counter, which nobody waits on.
            let slot = if rank * 65536 + t == missing {
                ranks * blocks
            } else {
                src * blocks + block
            };
            signal(&ready.local()[slot], 1, Scope::Agent);
        },
        |t| {
            let src = (rank + t / per_shard) % ranks;
            let tile = t % per_shard;
            let m0 = src * shard_rows + tile_row(tile, blocks, tiles_n) * 128;
            let n0 = tile_col(tile, blocks, tiles_n) * 128;
            // Rows past the shard's end belong to the next shard: not read, not written.
            let end = (src + 1) * shard_rows;
            let gathered = x.local();
            let weights = w.local();
            let acc = tile_product(stages, gathered, weights, m0, n0, end, n, k, 0, TB, 0, 2, 2);
            let row0 = slab_row(m0);
            let out = y.local();
            let out16 = y16.local();
            store_slab(out, out16, BF16, acc, row0, n0, end, n);
        },
    );
    rearm(ready, ranks * blocks + 1, queues, 2);
}

/// Writes `v` at `at..at + 4` of rank `rank`'s copy of `y` (f32), or of `y16` rounded to
/// bf16 when `to_bf16` is 1; `at` is a multiple of 4: one aligned 8- or 16-byte store.
#[device]
fn put4(y: &Sym<[f32]>, y16: &Sym<[bf16]>, to_bf16: u32, rank: u32, at: u32, v: Vec4<f32>) {
    if to_bf16 == 1 {
        let out = y16.peer(rank);
        let h = vec4(
            extract(v, 0) as bf16,
            extract(v, 1) as bf16,
            extract(v, 2) as bf16,
            extract(v, 3) as bf16,
        );
        store_vec4(&out[at], h);
    } else {
        let out = y.peer(rank);
        store_vec4(&out[at], v);
    }
}

/// `a + b` lane by lane where `add` is 1, else `a + 0.0`: `a` itself (a sum begun at +0.0
/// is never -0.0), with `b` loaded either way, so that its load is in flight with others.
#[device]
fn add4(a: Vec4<f32>, b: Vec4<f32>, add: u32) -> Vec4<f32> {
    let zero = 0.0f32;
    vec4(
        extract(a, 0) + if add == 1 { extract(b, 0) } else { zero },
        extract(a, 1) + if add == 1 { extract(b, 1) } else { zero },
        extract(a, 2) + if add == 1 { extract(b, 2) } else { zero },
        extract(a, 3) + if add == 1 { extract(b, 3) } else { zero },
    )
}

/// `Y_r = ReduceScatter_M(X_r op(W_r))` (`AR = 0`) or `Y = AllReduce(X_r op(W_r))` (`AR =
/// 1`) on every rank of the world, in one self-scheduled persistent launch. `X_r` (`x`) is
/// `M x k` (`M = ranks * shard_rows`), `W_r` (`w`) is `k x n` (`TB = 0`) or holds `W_r^T`
/// (`TB = 1`), both bf16. Rank `r` owns rows `r * shard_rows..` of the sum: with `AR = 0`
/// they go to its `Y` (`shard_rows x n`), with `AR = 1` to those rows of every rank's `Y`
/// (`M x n`); `Y` is `y` (f32), or `y16` (bf16) with `BF16 = 1`. `partial` (`M x n` f32)
/// holds this rank's partial products `X_r W_r`, `ready` a readiness counter per owned tile
/// (`ceil(shard_rows / 128) * ceil(n / 128)`), `queues` the two queue heads, all zero.
///
/// Partial tiles (128 x 128 of `X_r W_r`, into this rank's `partial`) are computed in the
/// order their owners reduce them: block row by block row, within one column by column, at a
/// column the owners from the next rank round the ring, so every owner's first tiles are
/// complete early. Each partial tile adds 1 to its owner's counter (system scope: the owner
/// may be another device). The owner's reduction tasks take a tile once all `ranks` partials
/// are in and sum them in rank order 0, 1, ..., so the result does not depend on timing or
/// workgroup count. Launch with 8 subgroups; two workgroups share a processor, as in
/// [`ag_gemm`].
#[kernel(
    max_workgroup_size = 512,
    max_subgroups = 8,
    min_resident = 2,
    scheduler_scratch = stages,
    instances(TB = 0, BF16 = 0, AR = 0),
    instances(TB = 0, BF16 = 1, AR = 0),
    instances(TB = 1, BF16 = 0, AR = 0),
    instances(TB = 1, BF16 = 1, AR = 0),
    instances(TB = 0, BF16 = 0, AR = 1),
    instances(TB = 0, BF16 = 1, AR = 1)
)]
pub fn gemm_rs<const TB: u32, const BF16: u32, const AR: u32>(
    team: &Team,
    x: &Sym<[bf16]>,
    w: &Sym<[bf16]>,
    y: &Sym<[f32]>,
    y16: &Sym<[bf16]>,
    partial: &Sym<[f32]>,
    ready: &Sym<[u32]>,
    queues: &Sym<[u32]>,
    shard_rows: u32,
    n: u32,
    k: u32,
) {
    let stages = shared_array::<u32, { 2 * STEP_WORDS }>();
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let blocks = (shard_rows + 127) / 128;
    let tiles_n = (n + 127) / 128;
    // Each role looks its buffers up itself (as in `ag_gemm`).
    let heads = queues.local();
    // One rank and an f32 result: the partial tile is the result, written by the tile's own
    // workgroup (rounding to bf16 there would cost the tile registers: that goes through
    // the reduction).
    let alone = ranks == 1 && BF16 == 0;
    dispatch(
        &heads[0],
        ranks * blocks * tiles_n,
        &heads[1],
        if alone { 0 } else { blocks * tiles_n },
        Scope::System,
        |t| (&ready.local()[t], ranks),
        |t| {
            let block = t / (ranks * tiles_n);
            // Column by column, every owner's tile at a column (as `tp_tile` orders them).
            let owner = (rank + 1 + t % ranks) % ranks;
            let col = t / ranks % tiles_n;
            let m0 = owner * shard_rows + block * 128;
            let end = (owner + 1) * shard_rows;
            let operand = x.local();
            let weights = w.local();
            let acc = tile_product(
                stages,
                operand,
                weights,
                m0,
                col * 128,
                end,
                n,
                k,
                0,
                TB,
                0,
                2,
                2,
            );
            let row0 = slab_row(m0);
            let out16 = y16.local();
            if alone {
                let out = y.local();
                store_slab(out, out16, 0, acc, row0, col * 128, end, n);
            } else {
                let partials = partial.local();
                store_slab(partials, out16, 0, acc, row0, col * 128, end, n);
                signal(&ready.peer(owner)[block * tiles_n + col], 1, Scope::System);
            }
        },
        |t| {
            let block = t / tiles_n;
            let n0 = t % tiles_n * 128;
            reduce_tile(
                partial, y, y16, BF16, AR, shard_rows, block, n0, n, lane, lanes,
            );
        },
    );
    rearm(ready, blocks * tiles_n, queues, 2);
}

/// Stages of a fused pipeline's ring ([`tp_pipeline`]): six of [`STEP_WORDS`] for 128 x 128
/// tiles, four of 12288 words (`a`, then four 64-column boxes of `b`) for 128 x 256 tiles,
/// in the same 192 KiB.
const FUSED_RING_WORDS: u32 = 49152;
/// Stages of the narrow ring (the wide one has two fewer); barrier objects for that many.
const FUSED_STAGES: u32 = 6;
/// Task slots between a fused pipeline's producer subgroup and its consumers.
const TASK_SLOTS: u32 = 2;
/// A task slot's value that ends the consumers' loop.
const NO_TASK: u32 = 4294967295;
/// Words of a rank's tensor maps in the `maps` argument of [`tp_pipeline`]: the map of `x`
/// (boxes of 128 rows x 64), then, from word 16, that of `w` (64 x 64, or 128 rows x 64 of
/// `W^T`).
pub const FUSED_MAP_WORDS: u32 = 32;
/// [`tp_pipeline`]'s `OP`: all-gather + GEMM.
pub const TP_ALL_GATHER: u32 = 0;
/// [`tp_pipeline`]'s `OP`: GEMM + reduce-scatter.
pub const TP_REDUCE_SCATTER: u32 = 1;
/// [`tp_pipeline`]'s `OP`: GEMM + all-reduce.
pub const TP_ALL_REDUCE: u32 = 2;

/// Sets up the barrier objects of a fused pipeline (one thread), before a workgroup barrier:
/// each stage's `full` (the producer's arrival with the copies' bytes) and `empty` (one
/// arrival per consumer subgroup), each task slot's `task_full` (the producer's) and
/// `task_empty` (one per lane of the eight consumer subgroups: [`task_taken`]).
#[device]
fn init_fused_ring(
    full: &mut [u64],
    empty: &mut [u64],
    task_full: &mut [u64],
    task_empty: &mut [u64],
) {
    if workitem_id_x() == 0 {
        for s in 0..FUSED_STAGES {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 8);
        }
        for s in 0..TASK_SLOTS {
            mbar_init(&task_full[s], 1);
            mbar_init(&task_empty[s], 8 * subgroup_size());
        }
    }
    barrier();
}

/// Words of a task slot ([`post_task`]): the task, then four words of where its tile lies,
/// worked out by the producer (whose copies need them anyway) so that its consumers start
/// multiplying without a chain of loads — for [`tp_pipeline`] the rank whose rows it covers,
/// its block of 128 rows, first column and width (1: 256 columns); for [`moe_pipeline`] its
/// row tile, tile column, first row and the end of its expert's rows.
const TASK_WORDS: u32 = 5;

/// The producer subgroup hands task `t` (or [`NO_TASK`]) and its tile's place (`p1..p4`:
/// see [`TASK_WORDS`]) to the consumers in the slot of its `posted`-th task, once they have
/// taken the task that slot held before.
#[device]
#[allow(clippy::too_many_arguments)]
fn post_task(
    tasks: &mut [u32],
    task_full: &mut [u64],
    task_empty: &mut [u64],
    posted: u32,
    t: u32,
    p1: u32,
    p2: u32,
    p3: u32,
    p4: u32,
) {
    let slot = posted % TASK_SLOTS;
    mbar_wait(&task_empty[slot], ((posted / TASK_SLOTS) & 1) ^ 1);
    if subgroup_lane() == 0 {
        let at = slot * TASK_WORDS;
        tasks[at] = t;
        tasks[at + 1] = p1;
        tasks[at + 2] = p2;
        tasks[at + 3] = p3;
        tasks[at + 4] = p4;
        mbar_arrive(&task_full[slot]);
    }
}

/// Waits for a consumer subgroup's `taken`-th task from the producer ([`post_task`]) and
/// returns the index of its slot's first word in the task slots (of `words` words each);
/// the subgroup reads the words it needs, then gives the slot back ([`task_taken`]).
#[device]
fn task_slot(task_full: &mut [u64], taken: u32, words: u32) -> u32 {
    let slot = taken % TASK_SLOTS;
    mbar_wait(&task_full[slot], (taken / TASK_SLOTS) & 1);
    slot * words
}

/// Gives the consumer subgroup's `taken`-th slot ([`task_slot`]) back to the producer, once
/// its lanes have read what they need of it. Every lane arrives: an arrive releases its own
/// lane's reads, so the producer's next stores to the slot cannot overtake any lane's. (One
/// lane arriving after a subgroup barrier is ordered as well by the PTX memory model, but
/// ptxas drops the `bar.warp.sync` of a converged subgroup, and compute-sanitizer's
/// racecheck, which reads the SASS, then sees the other lanes' reads unordered.)
#[device]
fn task_taken(task_empty: &mut [u64], taken: u32) {
    mbar_arrive(&task_empty[taken % TASK_SLOTS]);
}

/// Part `part` of compute task `t` of rank `rank`'s [`tp_pipeline`]: 0 the rank whose rows
/// it covers, 1 its block of 128 rows within that rank's shard, 2 its first column, 3
/// whether it is wide (128 x 256; else 128 x 128). Blocks `0..wide_blocks` of each shard are
/// cut in wide tiles, the rest in narrow ones, so that the narrow ones fill the last wave.
/// With `by_shard` 1 (the all-gather, and every op of one rank) the tiles go shard by
/// shard, this rank's first, then the next ones round the ring as they arrive, each shard's
/// wide tiles then its narrow ones in the grouped order of [`tile_row`] (as our gemm's); with
/// 0 (the reductions over several ranks) block row by block row (the wide ones first), in a
/// block row column by column, at a column every owner's tile from the next rank round the
/// ring: the order the owners reduce in, which reads each column of `w` once a block row
/// while the owners' rows stay in the L2 (owner by owner, every owner's block row read all
/// of `w`, which on 8 emulated ranks did not stay in the L2: bench/RESULTS.md, 42nd batch).
#[device]
#[allow(clippy::too_many_arguments)]
fn tp_tile(
    by_shard: u32,
    t: u32,
    rank: u32,
    ranks: u32,
    blocks: u32,
    wide_blocks: u32,
    n: u32,
    part: u32,
) -> u32 {
    let tiles_w = (n + 255) / 256;
    let tiles_n = (n + 127) / 128;
    let wide_tasks = wide_blocks * tiles_w;
    let per_shard = wide_tasks + (blocks - wide_blocks) * tiles_n;
    // The task's place among its own width's tasks: `q` of `rows` blocks by `cols`
    // columns, from block `first`.
    let u = if by_shard == 1 { t % per_shard } else { t };
    let wide = if by_shard == 1 {
        u < wide_tasks
    } else {
        u < wide_tasks * ranks
    };
    let q = if wide {
        u
    } else if by_shard == 1 {
        u - wide_tasks
    } else {
        u - wide_tasks * ranks
    };
    let cols = if wide { tiles_w } else { tiles_n };
    let first = if wide { 0 } else { wide_blocks };
    let rows = if wide {
        wide_blocks
    } else {
        blocks - wide_blocks
    };
    let width = if wide { 256 } else { 128 };
    if part == 0 {
        if by_shard == 1 {
            (rank + t / per_shard) % ranks
        } else {
            (rank + 1 + q % ranks) % ranks
        }
    } else if part == 1 {
        if by_shard == 1 {
            first + tile_row(q, rows, cols)
        } else {
            first + q / (ranks * cols)
        }
    } else if part == 2 {
        if by_shard == 1 {
            tile_col(q, rows, cols) * width
        } else {
            q / ranks % cols * width
        }
    } else {
        wide as u32
    }
}

/// A fused tensor-parallel op as one warp-specialised persistent launch per rank, fed by
/// tensor copies (CUDA and the CPU device): `OP` [`TP_ALL_GATHER`] computes what [`ag_gemm`]
/// does, [`TP_REDUCE_SCATTER`] and [`TP_ALL_REDUCE`] what [`gemm_rs`] does with `AR` 0 and
/// 1 — the same operands, results and demand order — over output tiles of 128 rows by 128
/// columns, or 256 with `WIDE = 1`; with `WIDE = 2` the first `wide_blocks` blocks of 128
/// rows of each shard in tiles of 256 columns, the rest of 128 (see [`tp_tile`]: a runtime
/// choice per tile, kept out of the one-width instances' loops). `maps` holds each rank's [`FUSED_MAP_WORDS`] words of
/// tensor maps of its own `x` (`M x k`) and `w`; `ready` a counter per block of rows
/// (`ranks * ceil(shard_rows / 128)` and a spare one) for the all-gather, per 128 x 128 tile
/// of the rank's rows for the reductions; `queues` the two queue heads; all zero. `partial`
/// (`M x n` f32) is the reductions' (the all-gather does not touch it), `missing` the
/// all-gather's planted missing signal (as for [`ag_gemm`]).
///
/// A workgroup is three groups of four subgroups, one workgroup per processor:
/// - subgroup 0 produces: it takes the output tiles by ticket (the all-gather's in arrival
///   order — while a peer's block is missing it pulls blocks itself, then waits, bounded,
///   once none is left to take; the reductions' partial tiles in the order their owners
///   reduce them; one rank's in our gemm's order), hands each with its place to the
///   consumers through a ring of [`TASK_SLOTS`], and copies its 64-deep steps into the
///   stage ring;
/// - subgroups 1-3 communicate, each on its own: the all-gather's pulls of a peer's block of
///   rows (signalling its counter), or this rank's reductions of 128 x 128 tiles once all
///   `8 ranks` signals of their partials are in (summed in rank order: [`reduce_tiles`]),
///   which the producer joins once it has handed out its tiles, the consumers once no
///   tile is left (one rank, which has nothing to reduce, runs the all-gather's instance);
/// - groups 1 and 2 consume: each multiplies 64 rows of the tile and stores them — to the
///   result, or (reductions over several ranks) to this rank's `partial`, each subgroup then
///   signalling the owner's counter of each 16 x 128 slab.
///
/// So every workgroup moves data and multiplies at once, without a split of processors or
/// anything else to tune. A wait that gives up ends the producer's tiles with [`NO_TASK`]
/// and the workgroup winds down (the error names rank, workgroup, task and counter). The
/// consumers' registers: see the spill allowance of `tests/tests/binaries.rs`.
#[kernel(
    max_workgroup_size = 384,
    max_subgroups = 12,
    min_resident = 1,
    instances(OP = 0, TB = 0, BF16 = 0, WIDE = 0),
    instances(OP = 0, TB = 0, BF16 = 1, WIDE = 0),
    instances(OP = 0, TB = 1, BF16 = 0, WIDE = 0),
    instances(OP = 0, TB = 1, BF16 = 1, WIDE = 0),
    instances(OP = 0, TB = 0, BF16 = 0, WIDE = 1),
    instances(OP = 0, TB = 0, BF16 = 1, WIDE = 1),
    instances(OP = 0, TB = 1, BF16 = 0, WIDE = 1),
    instances(OP = 0, TB = 1, BF16 = 1, WIDE = 1),
    instances(OP = 1, TB = 0, BF16 = 0, WIDE = 0),
    instances(OP = 1, TB = 0, BF16 = 1, WIDE = 0),
    instances(OP = 1, TB = 1, BF16 = 0, WIDE = 0),
    instances(OP = 1, TB = 1, BF16 = 1, WIDE = 0),
    instances(OP = 1, TB = 0, BF16 = 0, WIDE = 1),
    instances(OP = 1, TB = 0, BF16 = 1, WIDE = 1),
    instances(OP = 1, TB = 1, BF16 = 0, WIDE = 1),
    instances(OP = 1, TB = 1, BF16 = 1, WIDE = 1),
    instances(OP = 2, TB = 0, BF16 = 0, WIDE = 0),
    instances(OP = 2, TB = 0, BF16 = 1, WIDE = 0),
    instances(OP = 2, TB = 0, BF16 = 0, WIDE = 1),
    instances(OP = 2, TB = 0, BF16 = 1, WIDE = 1),
    instances(OP = 0, TB = 0, BF16 = 0, WIDE = 2),
    instances(OP = 0, TB = 0, BF16 = 1, WIDE = 2),
    instances(OP = 0, TB = 1, BF16 = 0, WIDE = 2),
    instances(OP = 0, TB = 1, BF16 = 1, WIDE = 2),
    instances(OP = 1, TB = 0, BF16 = 0, WIDE = 2),
    instances(OP = 1, TB = 0, BF16 = 1, WIDE = 2),
    instances(OP = 1, TB = 1, BF16 = 0, WIDE = 2),
    instances(OP = 1, TB = 1, BF16 = 1, WIDE = 2),
    instances(OP = 2, TB = 0, BF16 = 0, WIDE = 2),
    instances(OP = 2, TB = 0, BF16 = 1, WIDE = 2)
)]
#[allow(clippy::too_many_arguments)]
pub fn tp_pipeline<const OP: u32, const TB: u32, const BF16: u32, const WIDE: u32>(
    team: &Team,
    x: &Sym<[bf16]>,
    w: &Sym<[bf16]>,
    maps: &Sym<[u64]>,
    y: &Sym<[f32]>,
    y16: &Sym<[bf16]>,
    partial: &Sym<[f32]>,
    ready: &Sym<[u32]>,
    queues: &Sym<[u32]>,
    shard_rows: u32,
    n: u32,
    k: u32,
    wide_blocks: u32,
    missing: u32,
) {
    let stages = shared_array::<u32, FUSED_RING_WORDS>();
    let full = shared_array::<u64, FUSED_STAGES>();
    let empty = shared_array::<u64, FUSED_STAGES>();
    let tasks = shared_array::<u32, { TASK_SLOTS * TASK_WORDS }>();
    let task_full = shared_array::<u64, TASK_SLOTS>();
    let task_empty = shared_array::<u64, TASK_SLOTS>();
    start_barrier();
    init_fused_ring(full, empty, task_full, task_empty);
    let rank = team_rank();
    let ranks = world_size();
    let gather = if OP == TP_ALL_GATHER { 1 } else { 0 };
    // Results straight from the tiles: the all-gather's, and a reduction over one rank
    // (whose tiles then go in our gemm's order, as no owner waits for them).
    let direct = gather == 1 || ranks == 1;
    let by_shard = if direct { 1 } else { 0 };
    // Stages for wide tiles wherever there are any.
    let stage_wide = min(WIDE, 1);
    let ring = FUSED_STAGES - 2 * stage_wide;
    let stage_words = STEP_WORDS + 4096 * stage_wide;
    let blocks = (shard_rows + 127) / 128;
    let wide_blocks = if WIDE == 2 {
        min(wide_blocks, blocks)
    } else {
        blocks * WIDE
    };
    // 128 x 128 reduction tiles per block row.
    let reduced_n = (n + 127) / 128;
    let tiles = ranks * (wide_blocks * ((n + 255) / 256) + (blocks - wide_blocks) * reduced_n);
    let comm = if gather == 1 {
        (ranks - 1) * blocks
    } else if direct {
        0
    } else {
        blocks * reduced_n
    };
    let steps = (k + 63) / 64;
    let heads = queues.local();
    let all = if OP == TP_ALL_REDUCE { 1 } else { 0 };
    let sg = subgroup_id();
    let group = sg >> 2;
    // The consumers' two wide accumulators need more registers than 168, a twelfth of
    // the file: the producer group gives them some (104 + 2 x 200 <= 3 x 168). Less than
    // 104 slowed the reductions of 8 emulated ranks (bench/RESULTS.md, 31st batch).
    if sg == 0 {
        regs_dec(104);
        let mut it = 0;
        let mut posted = 0;
        let mut more = true;
        while more {
            let t = subgroup_claim(&heads[0], tiles);
            let src = tp_tile(by_shard, t, rank, ranks, blocks, wide_blocks, n, 0);
            let block = tp_tile(by_shard, t, rank, ranks, blocks, wide_blocks, n, 1);
            let mut go = t < tiles;
            // The all-gather's own shard (its first tiles) waits for nothing. A peer's
            // block that has not arrived yet: pull blocks meanwhile (the role switch of a
            // dispatch loop), then wait, bounded, once no pull is left to take.
            if go && gather == 1 && src != rank {
                let since = clock();
                let counter = ready.local();
                let slot = src * blocks + block;
                let mut waiting = true;
                while waiting {
                    let seen = atomic_load(&counter[slot], Ordering::Acquire, Scope::Agent);
                    if subgroup_shuffle(seen, 0) > 0 {
                        waiting = false;
                    } else {
                        let p = subgroup_claim(&heads[1], comm);
                        if p < comm {
                            pull_block(x, ready, p, blocks, shard_rows, k, missing);
                        } else {
                            go = subgroup_wait(&counter[slot], 1, Scope::Agent, t);
                            waiting = false;
                        }
                    }
                }
                subgroup_trace(Role::Wait, t, since);
                // The rows came by plain stores; the tensor copies that read them are of
                // another proxy.
                fence_proxy_async();
            }
            let n0 = tp_tile(by_shard, t, rank, ranks, blocks, wide_blocks, n, 2);
            let wide = if WIDE == 2 {
                tp_tile(by_shard, t, rank, ranks, blocks, wide_blocks, n, 3)
            } else {
                WIDE
            };
            post_task(
                tasks,
                task_full,
                task_empty,
                posted,
                if go { t } else { NO_TASK },
                // The last post (no task) carries the reductions' and the tiles' counts
                // for the consumers' join.
                if go { src } else { comm },
                if go { block } else { tiles },
                n0,
                wide,
            );
            posted += 1;
            if go {
                let m0 = src * shard_rows + block * 128;
                let own = maps.local();
                let b_boxes = 2 << wide;
                for step in 0..steps {
                    let s = (it + step) % ring;
                    // A fresh barrier counts its previous round as complete: the first
                    // round passes.
                    mbar_wait(&empty[s], (((it + step) / ring) & 1) ^ 1);
                    let base = s * stage_words;
                    let k0 = step * 64;
                    copy_step(
                        &own[0], &own[16], stages, full, s, base, m0, n0, k0, 0, TB, b_boxes,
                    );
                }
                it += steps;
            }
            more = go;
        }
        // Its tiles all handed out, the producer joins the reductions.
        if gather == 0 {
            reduce_tiles(
                partial, y, y16, ready, heads, BF16, all, shard_rows, n, comm, tiles,
            );
        }
    } else if group == 0 {
        regs_dec(104);
        let mut more = gather == 1;
        while more {
            let t = subgroup_claim(&heads[1], comm);
            if t < comm {
                pull_block(x, ready, t, blocks, shard_rows, k, missing);
            }
            more = t < comm;
        }
        if gather == 0 {
            reduce_tiles(
                partial, y, y16, ready, heads, BF16, all, shard_rows, n, comm, tiles,
            );
        }
    } else {
        regs_inc(200);
        let rows = (group - 1) * 64;
        let first_lane = subgroup_lane() == 0;
        // Read once: a pointer read per tile stood between its last product and its stores.
        let out = y.local();
        let out16 = y16.local();
        let partials = partial.local();
        let mut it = 0;
        let mut taken = 0;
        let mut more = true;
        while more {
            let at = task_slot(task_full, taken, TASK_WORDS);
            let src = tasks[at + 1];
            let block = tasks[at + 2];
            let n0 = tasks[at + 3];
            let wide = if WIDE == 2 { tasks[at + 4] } else { WIDE };
            let t = tasks[at];
            task_taken(task_empty, taken);
            let since = clock();
            taken += 1;
            if t != NO_TASK {
                let row0 = src * shard_rows + block * 128 + rows + (sg & 3) * 16;
                // Rows past the shard's end belong to the next shard: not written.
                let end = (src + 1) * shard_rows;
                let counter = block * reduced_n + n0 / 128;
                // A path for each width, each with its own accumulators: with the width
                // tested in the step, the mixed instance's steps took convergence barriers
                // and register moves (bench/RESULTS.md, thirty-eighth batch).
                let mut left = wide_zero();
                if wide == 1 {
                    let mut right = wide_zero();
                    for step in 0..steps {
                        let s = (it + step) % ring;
                        mbar_wait(&full[s], ((it + step) / ring) & 1);
                        let base = s * stage_words;
                        let a = base + rows * 32;
                        left = multiply_async(stages, a, base + 4096, left, 0, TB);
                        right = multiply_async(stages, a, base + 8192, right, 0, TB);
                        left = mma_wait(2, left);
                        right = mma_wait(2, right);
                        // The previous step's products have finished: its stage goes back.
                        if step > 0 && first_lane {
                            mbar_arrive(&empty[(it + step + ring - 1) % ring]);
                        }
                    }
                    left = mma_wait(0, left);
                    right = mma_wait(0, right);
                    if first_lane {
                        mbar_arrive(&empty[(it + steps + ring - 1) % ring]);
                    }
                    if n0 + 128 < n {
                        store_tp_slab(
                            out,
                            out16,
                            partials,
                            ready,
                            right,
                            direct,
                            BF16,
                            src,
                            row0,
                            end,
                            n0 + 128,
                            n,
                            counter + 1,
                        );
                    }
                } else {
                    for step in 0..steps {
                        let s = (it + step) % ring;
                        mbar_wait(&full[s], ((it + step) / ring) & 1);
                        let base = s * stage_words;
                        let a = base + rows * 32;
                        left = multiply_async(stages, a, base + 4096, left, 0, TB);
                        left = mma_wait(1, left);
                        if step > 0 && first_lane {
                            mbar_arrive(&empty[(it + step + ring - 1) % ring]);
                        }
                    }
                    left = mma_wait(0, left);
                    if first_lane {
                        mbar_arrive(&empty[(it + steps + ring - 1) % ring]);
                    }
                }
                store_tp_slab(
                    out, out16, partials, ready, left, direct, BF16, src, row0, end, n0, n, counter,
                );
                it += steps;
                // One record per tile, from its first consumer subgroup.
                if first_consumer() {
                    subgroup_trace(Role::Compute, t, since);
                }
            }
            more = t != NO_TASK;
        }
        // No tile left: the consumers join the reductions too. Their counts come from the
        // producer's last post and `heads` is read again, rather than kept across the tile
        // loop (where they made ptxas spill more: bench/RESULTS.md, forty-third batch). The
        // code still costs one rank's tile loop 3%, so one rank runs the all-gather's
        // instance (`TpOps`; forty-fourth batch).
        if !direct {
            let at = (taken - 1) % TASK_SLOTS * TASK_WORDS;
            let left = tasks[at + 1];
            let all_tiles = tasks[at + 2];
            let queue_heads = queues.local();
            reduce_tiles(
                partial,
                y,
                y16,
                ready,
                queue_heads,
                BF16,
                all,
                shard_rows,
                n,
                left,
                all_tiles,
            );
        }
    }
    let counters = if gather == 1 {
        ranks * blocks + 1
    } else {
        blocks * reduced_n
    };
    rearm(ready, counters, queues, 2);
}

/// Whether the caller is a pipeline's first consumer subgroup (subgroup 4), which writes
/// the tiles' trace records. From the work-item id rather than a subgroup id kept in a
/// variable: the consumers' registers hold their accumulators, so that variable was
/// spilled, and its reload after a tile waited behind the tile's stores (bench/RESULTS.md,
/// thirty-eighth batch).
#[device]
fn first_consumer() -> bool {
    workitem_id_x() - 4 * subgroup_size() < subgroup_size()
}

/// A [`tp_pipeline`] consumer subgroup's 16 x 128 slab of a tile at (`row0`, `col`) of rank
/// `src`'s rows (those up to `end`): to the result when `direct`, else to this rank's
/// `partial`, then the owner's counter `counter` signalled.
#[device]
#[allow(clippy::too_many_arguments)]
fn store_tp_slab(
    out: &mut [f32],
    out16: &mut [bf16],
    partials: &mut [f32],
    ready: &Sym<[u32]>,
    acc: WideAcc,
    direct: bool,
    to_bf16: u32,
    src: u32,
    row0: u32,
    end: u32,
    col: u32,
    n: u32,
    counter: u32,
) {
    if direct {
        store_slab(out, out16, to_bf16, acc, row0, col, end, n);
    } else {
        store_slab(partials, out16, 0, acc, row0, col, end, n);
        subgroup_signal(&ready.peer(src)[counter], 1, Scope::System);
    }
}

/// The all-gather's pull `t` of rank `team_rank()` by the calling subgroup: a peer's block of
/// up to 128 rows of `x` (`k` columns) into this rank's copy — the next rank's blocks first,
/// then the one after, round the ring (the order the tiles need them) — then its
/// block's counter in `ready` signalled (the spare counter after the last block instead
/// when `missing` names this pull: a planted missing signal).
#[device]
#[allow(clippy::too_many_arguments)]
fn pull_block(
    x: &Sym<[bf16]>,
    ready: &Sym<[u32]>,
    t: u32,
    blocks: u32,
    shard_rows: u32,
    k: u32,
    missing: u32,
) {
    let since = clock();
    let rank = team_rank();
    let ranks = world_size();
    let src = (rank + 1 + t / blocks) % ranks;
    let block = t % blocks;
    let first = src * shard_rows + block * 128;
    let rows = min(shard_rows - block * 128, 128);
    let from = x.peer(src);
    let gathered = x.local();
    copy_chunks(
        from,
        gathered,
        first * k,
        first * k,
        rows * k / 8,
        subgroup_lane(),
        32,
    );
    // The tensor copies that read these rows are of another proxy.
    fence_proxy_async();
    let slot = if rank * 65536 + t == missing {
        ranks * blocks
    } else {
        src * blocks + block
    };
    subgroup_signal(&ready.local()[slot], 1, Scope::Agent);
    subgroup_trace(Role::Comm, t, since);
}

/// Copies `chunks` 16-byte chunks (8 elements each) from element `from_at` of `from` to
/// element `to_at` of `to`, lane `lane` of `lanes` taking chunks `lane, lane + lanes, ...`:
/// four per pass, all loaded before any is stored (past the last chunk a lane copies its
/// pass's first one again: the same bytes). `from` and `to` must hold every chunk
/// (unchecked).
#[device]
#[allow(clippy::too_many_arguments)]
fn copy_chunks(
    from: &[bf16],
    to: &mut [bf16],
    from_at: u32,
    to_at: u32,
    chunks: u32,
    lane: u32,
    lanes: u32,
) {
    for i in (lane..chunks).step_by(lanes * 4) {
        let d1 = if i + lanes < chunks { lanes * 8 } else { 0 };
        let d2 = if i + 2 * lanes < chunks {
            lanes * 16
        } else {
            0
        };
        let d3 = if i + 3 * lanes < chunks {
            lanes * 24
        } else {
            0
        };
        let src = from_at + i * 8;
        let dst = to_at + i * 8;
        // SAFETY: every chunk lies in `from` and `to` (the caller's bound).
        unsafe {
            let v0 = load_vec8(from.get_unchecked(src));
            let v1 = load_vec8(from.get_unchecked(src + d1));
            let v2 = load_vec8(from.get_unchecked(src + d2));
            let v3 = load_vec8(from.get_unchecked(src + d3));
            store_vec8(to.get_unchecked_mut(dst), v0);
            store_vec8(to.get_unchecked_mut(dst + d1), v1);
            store_vec8(to.get_unchecked_mut(dst + d2), v2);
            store_vec8(to.get_unchecked_mut(dst + d3), v3);
        }
    }
}

/// The reductions of [`tp_pipeline`] over several ranks (`comm` of them: this rank's 128 x
/// 128 output tiles) by the calling subgroup, each taken by ticket from `heads[1]` until none
/// is left. While this rank's producers still hand out tiles (`heads[0]` below `tiles`),
/// tiles are being made (producers wait for their consumers only): a tile's partials are
/// polled for without a bound, as a dispatch loop waits only once no other work is left;
/// then the bounded wait (at once if they are in), after which a wait that gave up ends the
/// subgroup's reductions.
#[device]
#[allow(clippy::too_many_arguments)]
fn reduce_tiles(
    partial: &Sym<[f32]>,
    y: &Sym<[f32]>,
    y16: &Sym<[bf16]>,
    ready: &Sym<[u32]>,
    heads: &mut [u32],
    to_bf16: u32,
    all: u32,
    shard_rows: u32,
    n: u32,
    comm: u32,
    tiles: u32,
) {
    let ranks = world_size();
    let reduced_n = (n + 127) / 128;
    let counter = ready.local();
    let mut more = true;
    while more {
        let t = subgroup_claim(&heads[1], comm);
        let mut go = t < comm;
        if go {
            let since = clock();
            while atomic_load(&heads[0], Ordering::Relaxed, Scope::Agent) < tiles
                && atomic_load(&counter[t], Ordering::Relaxed, Scope::System) < ranks * 8
            {
                sleep(256);
            }
            go = subgroup_wait(&counter[t], ranks * 8, Scope::System, t);
            subgroup_trace(Role::Wait, t, since);
            if go {
                let since = clock();
                let block = t / reduced_n;
                let n0 = t % reduced_n * 128;
                reduce_tile(
                    partial,
                    y,
                    y16,
                    to_bf16,
                    all,
                    shard_rows,
                    block,
                    n0,
                    n,
                    subgroup_lane(),
                    32,
                );
                subgroup_trace(Role::Comm, t, since);
            }
        }
        more = go;
    }
}

/// This rank's reduction of its output tile at block row `block`, column `n0` of a
/// reduce-scatter (`all = 0`) or all-reduce (`all = 1`): the tile's rows of every rank's
/// `partial` (`M x n` f32, `M = ranks * shard_rows`) summed in rank order 0, 1, ..., written
/// to this rank's `y` (`shard_rows x n`) or to every rank's (`M x n`) — `y16`, rounded to
/// bf16, when `to_bf16` is 1. Lane `lane` of `lanes` takes four runs of four neighbouring
/// columns at once (`n` is a multiple of 8: a run lies inside whole), and for each rank
/// loads all sixteen before adding any: one rank's loads are in flight together.
#[device]
#[allow(clippy::too_many_arguments)]
fn reduce_tile(
    partial: &Sym<[f32]>,
    y: &Sym<[f32]>,
    y16: &Sym<[bf16]>,
    to_bf16: u32,
    all: u32,
    shard_rows: u32,
    block: u32,
    n0: u32,
    n: u32,
    lane: u32,
    lanes: u32,
) {
    let rank = team_rank();
    let ranks = world_size();
    let rows = min(shard_rows - block * 128, 128);
    let cols = min(n - n0, 128);
    let first_row = rank * shard_rows + block * 128;
    let span = lanes * 4;
    for e in (lane * 4..rows * 128).step_by(span * 4) {
        // Run `j` is at element `e + j span` of the tile; one that lies outside loads the
        // tile's first elements (or run 0's) again and is not stored.
        let in0 = (e & 127) < cols;
        let at0 = if in0 {
            (first_row + (e >> 7)) * n + n0 + (e & 127)
        } else {
            first_row * n + n0
        };
        let e1 = e + span;
        let in1 = e1 < rows * 128 && (e1 & 127) < cols;
        let at1 = if in1 {
            (first_row + (e1 >> 7)) * n + n0 + (e1 & 127)
        } else {
            at0
        };
        let e2 = e + 2 * span;
        let in2 = e2 < rows * 128 && (e2 & 127) < cols;
        let at2 = if in2 {
            (first_row + (e2 >> 7)) * n + n0 + (e2 & 127)
        } else {
            at0
        };
        let e3 = e + 3 * span;
        let in3 = e3 < rows * 128 && (e3 & 127) < cols;
        let at3 = if in3 {
            (first_row + (e3 >> 7)) * n + n0 + (e3 & 127)
        } else {
            at0
        };
        let zero = 0.0f32;
        let mut s0 = vec4(zero, zero, zero, zero);
        let mut s1 = s0;
        let mut s2 = s0;
        let mut s3 = s0;
        // Two ranks' loads in flight at once (eight 16-byte loads a lane), summed in rank
        // order; past the last rank the second of a pair reads the last rank again, unused.
        for s in (0..ranks).step_by(2) {
            let part = partial.peer(s);
            let next = partial.peer(min(s + 1, ranks - 1));
            // SAFETY: every run lies in the rows of `partial`'s `M x n` (the host's bound);
            // runs start at multiples of 4 elements (`n` and the tiles' columns are
            // multiples of 8), so each is one aligned 16-byte load.
            unsafe {
                let v0 = load_vec4(part.get_unchecked(at0));
                let v1 = load_vec4(part.get_unchecked(at1));
                let v2 = load_vec4(part.get_unchecked(at2));
                let v3 = load_vec4(part.get_unchecked(at3));
                let u0 = load_vec4(next.get_unchecked(at0));
                let u1 = load_vec4(next.get_unchecked(at1));
                let u2 = load_vec4(next.get_unchecked(at2));
                let u3 = load_vec4(next.get_unchecked(at3));
                let pair = if s + 1 < ranks { 1 } else { 0 };
                s0 = add4(add4(s0, v0, 1), u0, pair);
                s1 = add4(add4(s1, v1, 1), u1, pair);
                s2 = add4(add4(s2, v2, 1), u2, pair);
                s3 = add4(add4(s3, v3, 1), u3, pair);
            }
        }
        // Rank `rank`'s rows start at row 0 of its reduce-scatter result.
        let shift = if all == 0 { rank * shard_rows * n } else { 0 };
        for d in 0..ranks {
            if all == 1 || d == rank {
                if in0 {
                    put4(y, y16, to_bf16, d, at0 - shift, s0);
                }
                if in1 {
                    put4(y, y16, to_bf16, d, at1 - shift, s1);
                }
                if in2 {
                    put4(y, y16, to_bf16, d, at2 - shift, s2);
                }
                if in3 {
                    put4(y, y16, to_bf16, d, at3 - shift, s3);
                }
            }
        }
    }
}

/// The reduce-scatter of an unfused sequence (a GEMM per rank, then this): rank `r`'s
/// `shard_rows x n` rows of `y` are rows `r * shard_rows..` of the `partial` matrices summed
/// over the ranks in rank order. Each workgroup takes every `groups`-th chunk of
/// 1024 elements (`groups` workgroups per rank). The baseline the fused `gemm_rs` is measured against.
#[kernel(max_workgroup_size = 256)]
pub fn reduce_scatter_rows(
    team: &Team,
    partial: &Sym<[f32]>,
    y: &Sym<[f32]>,
    shard_rows: u32,
    n: u32,
    groups: u32,
) {
    start_barrier();
    let rank = team_rank();
    let ranks = world_size();
    let out = y.local();
    let first = rank * shard_rows * n;
    let chunk = workgroup_id_x() % groups;
    // Four elements a lane, one 16-byte access each (`n` is a multiple of 8).
    for i in (chunk * 1024 + workitem_id_x() * 4..shard_rows * n).step_by(groups * 1024) {
        let mut s0 = 0.0f32;
        let mut s1 = 0.0f32;
        let mut s2 = 0.0f32;
        let mut s3 = 0.0f32;
        for s in 0..ranks {
            let part = partial.peer(s);
            let v = load_vec4(&part[first + i]);
            s0 += extract(v, 0);
            s1 += extract(v, 1);
            s2 += extract(v, 2);
            s3 += extract(v, 3);
        }
        store_vec4(&out[i], vec4(s0, s1, s2, s3));
    }
}

/// The latency probe of the link between ranks 0 and 1: `rounds` round trips of a signal,
/// rank 0 signalling rank 1's counter 0 (system scope) and waiting, bounded, for its own
/// counter 1, which rank 1 signals once its counter 0 has arrived; other ranks only meet the
/// team barriers. `counters` holds two words a rank, zero at launch and zeroed again at the
/// end. Launch with one workgroup a rank; its time over `rounds` is a round trip's.
#[kernel(max_workgroup_size = 32)]
pub fn ping_pong(team: &Team, counters: &Sym<[u32]>, rounds: u32) {
    // No signal of this launch reaches a rank before its previous launch has zeroed it.
    start_barrier();
    let rank = team_rank();
    if rank < 2 {
        let peer = counters.peer(1 - rank);
        let mine = counters.local();
        for i in 0..rounds {
            if rank == 0 {
                signal(&peer[0], 1, Scope::System);
                wait(&mine[1], i + 1, Scope::System, i);
            } else {
                wait(&mine[0], i + 1, Scope::System, i);
                signal(&peer[1], 1, Scope::System);
            }
        }
    }
    // Every signal is in before the counters go back to zero.
    team_barrier();
    if workitem_id_x() < 2 {
        counters.local()[workitem_id_x()] = 0;
    }
}

/// The bandwidth probe of the links between ranks: every rank copies the next rank's copy
/// of `src` (round the ring) into its own `dst`, the length of `src`, by 16-byte chunks as
/// the fused all-gather pulls rows ([`copy_chunks`]: four loads in flight a lane), spread
/// over the lanes of its `groups` workgroups. `src` and `dst` hold a multiple of 8 elements.
#[kernel(max_workgroup_size = 256)]
pub fn peer_copy(team: &Team, src: &Sym<[bf16]>, dst: &Sym<[bf16]>, groups: u32) {
    let from = src.peer((team_rank() + 1) % world_size());
    let to = dst.local();
    let chunks = (min(from.len(), to.len()) / 8) as u32;
    let lanes = groups * workgroup_size_x();
    let lane = team_workgroup() * workgroup_size_x() + workitem_id_x();
    copy_chunks(from, to, 0, 0, chunks, lane, lanes);
}

/// Words of [`moe_forward`]'s `sync` buffer before the per-expert counters: queue heads
/// (router + layout, sends, expert tiles, fold), the counters of routed blocks, of ranks whose
/// counts have arrived, of the plan's parts and of the local layout, and a counter nobody
/// signals (what tasks that wait for nothing wait on).
pub const MOE_SYNC_HEAD_WORDS: u32 = 9;
const MOE_ROUTED: u32 = 4;
const MOE_COUNTED: u32 = 5;
const MOE_PLANNED: u32 = 6;
const MOE_NEVER: u32 = 7;
const MOE_LAID_OUT: u32 = 8;
/// Row tiles a round of expert tasks holds ([`round_tile`]: every expert mainloop's order):
/// an expert's chunk of (at most sixteen) row tiles then has its up-projection tiles in one or
/// two rounds, not parted by other row tiles' down-projections, so that the tiles reading
/// the same rows run close together as well as those reading the same weights (the layer is
/// bound by its DRAM bytes: bench/RESULTS.md, thirty-ninth, forty-first and forty-third
/// batches).
pub const MOE_ROUND_ROWS: u32 = 16;
/// Tokens per fold task.
pub const MOE_FOLD_TOKENS: u32 = 8;
/// Tokens per router task that picks experts (a subgroup each).
pub const MOE_ROUTE_TOKENS: u32 = 32;
/// Depth (`hidden` columns) of a router task's logits tile: a block's logits are the sum,
/// in depth order, of `ceil(hidden / MOE_ROUTER_DEPTH)` partial tiles, each its own task, so
/// that the router's few tiles (one per 128 tokens and 128 experts) still fill the
/// processors; the `logits` buffer holds a `tokens x experts` matrix per part.
pub const MOE_ROUTER_DEPTH: u32 = 1024;

/// A whole Mixture-of-Experts layer forward pass on every rank of an expert-parallel world,
/// in one self-scheduled persistent launch per rank: router, layout, dispatch, expert GEMMs
/// (SwiGLU), combine and fold. The math (routing, rounding points, fold order) is
/// docs/moe.md's; `kernels::moe` sizes the buffers and checks every argument.
///
/// Rank `s` holds `tokens` rows of `x` (`hidden` wide), the router `w_router` (`experts x
/// hidden`), the selection `bias` (sigmoid routing), its `experts / ranks` local experts
/// `w1` (`2 ffn x hidden` each: gate rows, then up rows) and `w2` (`hidden x ffn` each), and
/// with `shared = 1` the shared expert `ws1`, `ws2`. Phases, all inside the one launch:
/// 1. router tasks: the logits of a block of 128 tokens (a GEMM tile per 128 experts,
///    into `logits`, `tokens x experts`); once a block's are in, per [`MOE_ROUTE_TOKENS`] tokens the scores (softmax, or sigmoid when
///    `sigmoid = 1`) into `scores`, the group-limited top-`topk` into `routing` (experts) and
///    `weights`; once those are in, the block's expert counts (a counter per block after the
///    row tiles' in `sync`);
/// 2. one layout task per rank: each expert's token count is sent to every rank, the send
///    offsets (this rank's picks ordered by local expert, then owner from the next rank round
///    the ring: the order receivers consume them) and, once every rank's counts are in,
///    where every chunk lands on its owner and this rank's table of row tiles. Receive rows
///    past `capacity` on any rank: the owner reports an overflow and no rank dispatches
///    (nothing is written past a buffer). Fill tasks (a block of tokens each) put the picks
///    into the send list once the offsets are known;
/// 3. one dispatch loop: communication tasks push 128 send-list rows each into the owners'
///    `recv` and count them on the owner's per-expert counter; compute tasks are the expert
///    tiles in rounds of [`MOE_ROUND_ROWS`] row tiles' worth, ordered as [`moe_pipeline`]'s:
///    the up-projection tiles of the round's row tiles, then the down-projection tiles of
///    those `lag / MOE_ROUND_ROWS + 1` rounds before (rounded up), whose inputs are
///    finishing (the host sets `lag` so that twice the workgroups' tasks lie in between:
///    free workgroups rarely meet a head that waits). Up-projection tiles (gate and up
///    features paired by [`tile_product`], into `z`, then `h = silu(gate) up`) gated on all
///    of their expert's rows, down-projection tiles (into `y`) gated on their row tile's
///    up-projection tiles.
///    The shared expert's tiles (rows of `x`) come first and wait for nothing;
/// 4. after a team barrier, fold tasks: `out[t]` = the picks' weighted outputs, read from
///    their owners, summed in pick order (then the shared expert's), rounded to bf16.
///
/// `plan` holds, from the word offsets `o_*` the host computes: the counts table (`ranks x
/// experts`, written by every rank), send offsets (`o_send`) and chunk destinations
/// (`o_dest`) per expert, the blocks' counts (`o_blocks`, `ceil(tokens / 128) x experts`),
/// per local expert (and the shared one) its first row, rows and first row tile
/// (`o_local`), the status (`o_status`: row tiles, 1 if nothing overflowed), the row tiles'
/// experts (`o_tiles`, `max_tiles` of them) and the send list (`o_list`). Offsets passed as
/// parameters cost no registers across the dispatch loops.
/// `plan` and `sync` are scratch (`sync` zero at launch, zeroed again at the end); `routing`,
/// `weights`, `scores`, `recv`, `z`, `h`, `y` and `plan` keep what the backward pass needs.
/// Results do not depend on timing or workgroup counts. Rank `silent` (`u32::MAX`: none)
/// pushes its rows without signalling them, a planted fault whose waits must time out.
/// `phases` (bits: 1 router and layout, 2 pushes, 4 expert tiles, 8 fold) selects what the
/// launch runs: 15 for the layer; one bit per launch, in order, runs the same work as an
/// unfused sequence of four launches (the baseline the fused launch is measured against).
/// Launch with 8 subgroups.
#[kernel(
    max_workgroup_size = 512,
    max_subgroups = 8,
    min_resident = 2,
    scheduler_scratch = stages
)]
#[allow(clippy::too_many_arguments)]
pub fn moe_forward(
    team: &Team,
    x: &Sym<[bf16]>,
    w_router: &Sym<[bf16]>,
    bias: &Sym<[f32]>,
    w1: &Sym<[bf16]>,
    w2: &Sym<[bf16]>,
    ws1: &Sym<[bf16]>,
    ws2: &Sym<[bf16]>,
    out: &Sym<[bf16]>,
    scores: &Sym<[f32]>,
    weights: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    logits: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    sync: &Sym<[u32]>,
    recv: &Sym<[bf16]>,
    z: &Sym<[bf16]>,
    h: &Sym<[bf16]>,
    y: &Sym<[bf16]>,
    tokens: u32,
    hidden: u32,
    ffn: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    max_tiles: u32,
    o_send: u32,
    o_dest: u32,
    o_blocks: u32,
    o_local: u32,
    o_status: u32,
    o_tiles: u32,
    o_list: u32,
    lag: u32,
    shared: u32,
    sigmoid: u32,
    groups: u32,
    topk_groups: u32,
    normalize: u32,
    scale: f32,
    silent: u32,
    phases: u32,
) {
    let stages = shared_array::<u32, { 2 * STEP_WORDS }>();
    let keys = shared_view::<f32, { 2 * STEP_WORDS }>(stages);
    start_barrier();
    let rank = team_rank();
    let local = experts / world_size();
    let picks = tokens * topk;
    let heads = sync.local();
    moe_plan(
        stages,
        keys,
        x,
        w_router,
        bias,
        scores,
        weights,
        routing,
        logits,
        plan,
        sync,
        tokens,
        hidden,
        experts,
        topk,
        capacity,
        shared,
        o_send,
        o_dest,
        o_blocks,
        o_local,
        o_status,
        o_tiles,
        o_list,
        sigmoid,
        groups,
        topk_groups,
        normalize,
        scale,
        phases,
        max_tiles,
        2,
    );
    let row_tiles = plan.local()[o_status];
    let ok = plan.local()[o_status + 1];
    let sends = if ok == 1 && (phases & 2) == 2 {
        (picks + 127) / 128
    } else {
        0
    };
    let up_tiles = (ffn + 63) / 64;
    let down_tiles = (hidden + 127) / 128;
    // Rounds of `MOE_ROUND_ROWS` row tiles' worth, ordered as `moe_pipeline`'s.
    let round_rows = MOE_ROUND_ROWS;
    let lag_rounds = round_lag(lag);
    let round = round_rows * (up_tiles + down_tiles);
    let expert_tasks = if row_tiles > 0 && (phases & 4) == 4 {
        round_slots(row_tiles, up_tiles, down_tiles, lag_rounds)
    } else {
        0
    };
    // Phase 3: sends and expert tiles (many short tasks: by ticket once the sends are out).
    dispatch_by_ticket(
        &heads[1],
        sends,
        &heads[2],
        expert_tasks,
        Scope::System,
        |t| {
            (
                &sync.local()[expert_gate(
                    plan, t, 0, row_tiles, up_tiles, down_tiles, lag_rounds, local, o_local,
                    o_tiles,
                )],
                expert_gate(
                    plan, t, 1, row_tiles, up_tiles, down_tiles, lag_rounds, local, o_local,
                    o_tiles,
                ),
            )
        },
        |t| {
            send_rows(
                x, routing, plan, sync, recv, t, rank, tokens, hidden, experts, topk, o_send,
                o_dest, o_list, silent,
            );
        },
        |t| {
            let up = t % round < round_rows * up_tiles;
            let live = expert_slot_live(t, up_tiles, down_tiles, round_rows, lag_rounds, row_tiles);
            let g = round_tile(
                plan, t, 0, up_tiles, down_tiles, lag_rounds, row_tiles, o_local, o_tiles,
            );
            let c = round_tile(
                plan, t, 1, up_tiles, down_tiles, lag_rounds, row_tiles, o_local, o_tiles,
            );
            if live && up {
                let p = plan.local();
                let j = p[o_tiles + g];
                let first = p[o_local + 3 * j];
                let end = first + p[o_local + 3 * j + 1];
                let m0 = first + (g - p[o_local + 3 * j + 2]) * 128;
                let f0 = c * 64;
                if j == local {
                    // The shared expert: rows of `x`, kept after the `capacity` routed rows.
                    let a = x.local();
                    let w = ws1.local();
                    let a_m0 = m0 - capacity;
                    up_tile(
                        stages, a, w, a_m0, tokens, scores, z, h, m0, end, f0, ffn, hidden,
                    );
                } else {
                    let a = recv.local();
                    let w = w1.local();
                    let at = (j as u64) * (2 * ffn as u64) * (hidden as u64);
                    up_tile(
                        stages,
                        a,
                        &w[at..],
                        m0,
                        end,
                        scores,
                        z,
                        h,
                        m0,
                        end,
                        f0,
                        ffn,
                        hidden,
                    );
                }
                signal(
                    &sync.local()[MOE_SYNC_HEAD_WORDS + local + g],
                    1,
                    Scope::Agent,
                );
            }
            if live && !up {
                let p = plan.local();
                let j = p[o_tiles + g];
                let first = p[o_local + 3 * j];
                let end = first + p[o_local + 3 * j + 1];
                let m0 = first + (g - p[o_local + 3 * j + 2]) * 128;
                let n0 = c * 128;
                let a = h.local();
                // Only bf16 is stored: `scores` stands in for the f32 result.
                let spare = scores.local();
                let outputs = y.local();
                if j == local {
                    let w = ws2.local();
                    down_tile(stages, a, w, spare, outputs, m0, end, n0, hidden, ffn);
                } else {
                    let w = w2.local();
                    let at = (j as u64) * (hidden as u64) * (ffn as u64);
                    down_tile(
                        stages,
                        a,
                        &w[at..],
                        spare,
                        outputs,
                        m0,
                        end,
                        n0,
                        hidden,
                        ffn,
                    );
                }
            }
        },
    );
    moe_fold(
        stages, routing, weights, plan, out, y, scores, sync, tokens, hidden, experts, topk,
        capacity, shared, o_dest, ok, max_tiles, phases,
    );
}

/// Words of a rank's tensor maps in the `maps` argument of [`moe_pipeline`], 16 each: `recv`
/// and `x` (boxes of 128 rows x 64), `w1` and `ws1` (64 x 64), `h` (128 x 64), `w2` and
/// `ws2` (64 x 64).
pub const MOE_MAP_WORDS: u32 = 112;
const MAP_RECV: u32 = 0;
const MAP_X: u32 = 16;
const MAP_W1: u32 = 32;
const MAP_WS1: u32 = 48;
const MAP_H: u32 = 64;
const MAP_W2: u32 = 80;
const MAP_WS2: u32 = 96;
/// Stages of [`moe_pipeline`]'s ring, each a step of a 128 x 256 tile (words): 128 rows of
/// `a`, then four 64-row boxes of `b^T`.
const MOE_RING: u32 = 4;
const MOE_STAGE_WORDS: u32 = 12288;

/// [`moe_forward`] as a warp-specialised launch fed by tensor copies (CUDA and the CPU
/// device): the same arguments, work, order and results, bitwise, plus `maps` (each rank's
/// [`MOE_MAP_WORDS`] words of maps of its own tensors). The router, layout, pushes and fold
/// run on whole workgroups as in [`moe_forward`] (the router's tiles on the first two groups);
/// the expert tiles run as [`tp_pipeline`]'s: subgroup 0 takes them by ticket in the same
/// rounds, waits (bounded) for its gate — an up-projection tile for its expert's rows, a
/// down-projection tile for the eight slab signals of each of its row tile's up-projection
/// tiles — and copies its 64-deep steps into the ring, up to a ring ahead of the products;
/// groups 1 and 2 multiply 64 rows each and store their slabs, each subgroup's through its
/// own 4 KiB of shared memory, whole rows at a time (an up-projection subgroup forms `h` of
/// its 16 rows from the staged `z` and signals). A workgroup takes expert tiles once no push is
/// left to claim (the pushes' rows gate the tiles). One workgroup of 12 subgroups per
/// processor; for the tiles the producer group gives registers to the consumer groups
/// (104 / 200).
#[kernel(max_workgroup_size = 384, max_subgroups = 12, min_resident = 1)]
#[allow(clippy::too_many_arguments)]
pub fn moe_pipeline(
    team: &Team,
    x: &Sym<[bf16]>,
    w_router: &Sym<[bf16]>,
    bias: &Sym<[f32]>,
    w1: &Sym<[bf16]>,
    w2: &Sym<[bf16]>,
    ws1: &Sym<[bf16]>,
    ws2: &Sym<[bf16]>,
    out: &Sym<[bf16]>,
    scores: &Sym<[f32]>,
    weights: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    logits: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    sync: &Sym<[u32]>,
    recv: &Sym<[bf16]>,
    z: &Sym<[bf16]>,
    h: &Sym<[bf16]>,
    y: &Sym<[bf16]>,
    maps: &Sym<[u64]>,
    tokens: u32,
    hidden: u32,
    ffn: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    max_tiles: u32,
    o_send: u32,
    o_dest: u32,
    o_blocks: u32,
    o_local: u32,
    o_status: u32,
    o_tiles: u32,
    o_list: u32,
    lag: u32,
    shared: u32,
    sigmoid: u32,
    groups: u32,
    topk_groups: u32,
    normalize: u32,
    scale: f32,
    silent: u32,
    phases: u32,
) {
    let stages = shared_array::<u32, FUSED_RING_WORDS>();
    let slabs = shared_array::<bf16, { 8 * SLAB_ELEMENTS }>();
    let keys = shared_view::<f32, { 2 * STEP_WORDS }>(stages);
    let full = shared_array::<u64, FUSED_STAGES>();
    let empty = shared_array::<u64, FUSED_STAGES>();
    let tasks = shared_array::<u32, { TASK_SLOTS * TASK_WORDS }>();
    let task_full = shared_array::<u64, TASK_SLOTS>();
    let task_empty = shared_array::<u64, TASK_SLOTS>();
    start_barrier();
    init_fused_ring(full, empty, task_full, task_empty);
    let rank = team_rank();
    let local = experts / world_size();
    let picks = tokens * topk;
    let heads = sync.local();
    moe_plan(
        stages,
        keys,
        x,
        w_router,
        bias,
        scores,
        weights,
        routing,
        logits,
        plan,
        sync,
        tokens,
        hidden,
        experts,
        topk,
        capacity,
        shared,
        o_send,
        o_dest,
        o_blocks,
        o_local,
        o_status,
        o_tiles,
        o_list,
        sigmoid,
        groups,
        topk_groups,
        normalize,
        scale,
        phases,
        max_tiles,
        3,
    );
    let row_tiles = plan.local()[o_status];
    let ok = plan.local()[o_status + 1];
    let sends = if ok == 1 && (phases & 2) == 2 {
        (picks + 127) / 128
    } else {
        0
    };
    // Tiles of 128 rows by 256 columns: 128 features' gate and up values, or 256 outputs.
    let up_tiles = (ffn + 127) / 128;
    let down_tiles = (hidden + 255) / 256;
    // Rounds of `MOE_ROUND_ROWS` row tiles' worth: a chunk of an expert's row tiles (at
    // most that many) then has its up-projection tiles in at most two rounds, its down-
    // projection tiles `lag_rounds` (two at least) later.
    let round_rows = MOE_ROUND_ROWS;
    let lag_rounds = round_lag(lag);
    let round = round_rows * (up_tiles + down_tiles);
    let expert_tasks = if row_tiles > 0 && (phases & 4) == 4 {
        round_slots(row_tiles, up_tiles, down_tiles, lag_rounds)
    } else {
        0
    };
    // Phase 3, the pushes: whole workgroups, first come first served.
    dispatch(
        &heads[1],
        sends,
        &heads[MOE_NEVER],
        0,
        Scope::System,
        |t| (&sync.local()[MOE_NEVER], 0),
        |t| {
            send_rows(
                x, routing, plan, sync, recv, t, rank, tokens, hidden, experts, topk, o_send,
                o_dest, o_list, silent,
            );
        },
        |t| {},
    );
    // Then the expert tiles, on the ring the router's staging used: its plain shared
    // accesses come before the tensor copies'.
    fence_proxy_async_shared();
    barrier();
    let sg = subgroup_id();
    let group = sg >> 2;
    if group == 0 {
        // The producer group gives registers to the consumers' two accumulators (its other
        // three subgroups only wait at the fold's barrier), as `tp_pipeline`'s does.
        regs_dec(104);
        if sg == 0 {
            let mut it = 0;
            let mut posted = 0;
            let mut more = true;
            while more {
                let t = subgroup_claim(&heads[2], expert_tasks);
                let up = t % round < round_rows * up_tiles;
                let mut go = t < expert_tasks;
                let live = go
                    && expert_slot_live(t, up_tiles, down_tiles, round_rows, lag_rounds, row_tiles);
                // The tile's place: row tile `g` (of local expert `j`), tile column `c`, its
                // first row and the end of its expert's rows.
                let mut g = 0;
                let mut c = 0;
                let mut j = 0;
                let mut tile_row = 0;
                let mut end = 0;
                if live {
                    g = round_tile(
                        plan, t, 0, up_tiles, down_tiles, lag_rounds, row_tiles, o_local, o_tiles,
                    );
                    c = round_tile(
                        plan, t, 1, up_tiles, down_tiles, lag_rounds, row_tiles, o_local, o_tiles,
                    );
                    let p = plan.local();
                    j = p[o_tiles + g];
                    let first = p[o_local + 3 * j];
                    end = first + p[o_local + 3 * j + 1];
                    tile_row = first + (g - p[o_local + 3 * j + 2]) * 128;
                    let since = clock();
                    // Each consumer subgroup signals its slab of an up-projection tile.
                    let done = 8 * up_tiles;
                    let gate = row_tile_gate(plan, g, up, 0, done, local, o_local, o_tiles);
                    let count = row_tile_gate(plan, g, up, 1, done, local, o_local, o_tiles);
                    go = subgroup_wait(&sync.local()[gate], count, Scope::System, t);
                    subgroup_trace(Role::Wait, t, since);
                    // The rows came by plain stores; the tensor copies that read them are of
                    // another proxy.
                    fence_proxy_async();
                }
                if live || !go {
                    post_task(
                        tasks,
                        task_full,
                        task_empty,
                        posted,
                        if go { t } else { NO_TASK },
                        g,
                        c,
                        tile_row,
                        end,
                    );
                    posted += 1;
                }
                if live && go {
                    let m0 = tile_row;
                    let own = maps.local();
                    // Operands: (map, first row) of `a`; the map of `b^T` and the first rows of
                    // its four 64-row boxes: `b_row + b_step * {0, 1}`, then `b_row + b_half +
                    // b_step * {0, 1}`.
                    let mut a_map = MAP_H;
                    let mut a_row = m0;
                    let mut b_map = if j == local { MAP_WS2 } else { MAP_W2 };
                    let mut b_row = (j % local) * hidden + c * 256;
                    let mut b_step = 64;
                    let mut b_half = 128;
                    let mut k = ffn;
                    if up {
                        // Gate rows of 64 features, their up rows, then the next 64 features':
                        // each 128-column half of the tile is [gate | up] of 64 features, as
                        // `z` keeps them.
                        let f0 = c * 128;
                        k = hidden;
                        b_step = ffn;
                        b_half = 64;
                        if j == local {
                            // The shared expert: rows of `x`, kept after the `capacity`
                            // routed rows.
                            a_map = MAP_X;
                            a_row = m0 - capacity;
                            b_map = MAP_WS1;
                            b_row = f0;
                        } else {
                            a_map = MAP_RECV;
                            b_map = MAP_W1;
                            b_row = j * 2 * ffn + f0;
                        }
                    }
                    let steps = (k + 63) / 64;
                    for step in 0..steps {
                        let s = (it + step) % MOE_RING;
                        // A fresh barrier counts its previous round as complete: the first
                        // round passes.
                        mbar_wait(&empty[s], (((it + step) / MOE_RING) & 1) ^ 1);
                        let base = s * MOE_STAGE_WORDS;
                        let k0 = step * 64;
                        if subgroup_lane() == 0 {
                            mbar_arrive_expect(&full[s], 49152);
                        }
                        copy_tensor(&stages[base], &own[a_map], k0, a_row, &full[s]);
                        for q in 0u32..4 {
                            let row = b_row + (q >> 1) * b_half + (q & 1) * b_step;
                            let at = base + 4096 + q * 2048;
                            copy_tensor(&stages[at], &own[b_map], k0, row, &full[s]);
                        }
                    }
                    it += steps;
                }
                more = go;
            }
        }
    } else {
        regs_inc(200);
        let rows = (group - 1) * 64;
        let first_lane = subgroup_lane() == 0;
        // Read once, as `tp_pipeline`'s consumers do.
        let outputs = y.local();
        let counters = sync.local();
        let mut it = 0;
        let mut taken = 0;
        let mut more = true;
        while more {
            let at = task_slot(task_full, taken, TASK_WORDS);
            let g = tasks[at + 1];
            let c = tasks[at + 2];
            let tile_row = tasks[at + 3];
            let end = tasks[at + 4];
            let t = tasks[at];
            task_taken(task_empty, taken);
            let since = clock();
            taken += 1;
            if t != NO_TASK {
                let up = t % round < round_rows * up_tiles;
                let steps = if up {
                    (hidden + 63) / 64
                } else {
                    (ffn + 63) / 64
                };
                // Every tile takes the full path, an expert's last one of at most 64 rows too
                // (the second group's rows then padding): a path that gave each group half
                // its columns ran ahead of the tiles that read the same weights, whose reads
                // then missed the cache (bench/RESULTS.md, thirty-ninth batch).
                let row0 = tile_row + rows + (sg & 3) * 16;
                let mut left = wide_zero();
                let mut right = wide_zero();
                for step in 0..steps {
                    let s = (it + step) % MOE_RING;
                    mbar_wait(&full[s], ((it + step) / MOE_RING) & 1);
                    let base = s * MOE_STAGE_WORDS;
                    let a = base + rows * 32;
                    left = multiply_async(stages, a, base + 4096, left, 0, 1);
                    right = multiply_async(stages, a, base + 8192, right, 0, 1);
                    left = mma_wait(2, left);
                    right = mma_wait(2, right);
                    // The products of the previous step have finished: its stage goes back.
                    if step > 0 && first_lane {
                        mbar_arrive(&empty[(it + step + MOE_RING - 1) % MOE_RING]);
                    }
                }
                left = mma_wait(0, left);
                right = mma_wait(0, right);
                if first_lane {
                    mbar_arrive(&empty[(it + steps + MOE_RING - 1) % MOE_RING]);
                }
                let slab = (sg - 4) * SLAB_ELEMENTS;
                if up {
                    swiglu_slabs(
                        &mut slabs[slab..],
                        z,
                        h,
                        left,
                        right,
                        row0,
                        end,
                        c * 128,
                        ffn,
                    );
                } else {
                    let n0 = c * 256;
                    store_slabs_bf16(
                        &mut slabs[slab..],
                        left,
                        right,
                        outputs,
                        row0,
                        n0,
                        end,
                        hidden,
                    );
                }
                it += steps;
                if up {
                    subgroup_signal(&counters[MOE_SYNC_HEAD_WORDS + local + g], 1, Scope::Agent);
                }
                // One record per tile, from its first consumer subgroup.
                if first_consumer() {
                    subgroup_trace(Role::Compute, t, since);
                }
            }
            more = t != NO_TASK;
        }
    }
    moe_fold(
        stages, routing, weights, plan, out, y, scores, sync, tokens, hidden, experts, topk,
        capacity, shared, o_dest, ok, max_tiles, phases,
    );
}

/// Whether expert slot `t` of [`round_tile`]'s rounds (of `rows` row tiles' worth: `first`
/// tiles of each, then `second` tiles of each of the row tiles `lag` rounds before) holds a
/// tile of one of the `row_tiles` row tiles: the first rounds' second-pass slots and the
/// last rounds' first-pass slots are empty.
#[device]
fn expert_slot_live(t: u32, first: u32, second: u32, rows: u32, lag: u32, row_tiles: u32) -> bool {
    let round = rows * (first + second);
    let r = t / round;
    let i = t % round;
    if i < rows * first {
        r * rows * first + i < row_tiles * first
    } else {
        r >= lag && (r - lag) * rows * second + i - rows * first < row_tiles * second
    }
}

/// The number of rounds by which an expert round's second-pass tiles trail its first-pass
/// tiles, from the host's `lag` (counted in rounds of one row tile's worth): at least two,
/// so that a chunk's first-pass tiles (two rounds at most) all come before its second-pass
/// tiles in the queue.
#[device]
fn round_lag(lag: u32) -> u32 {
    (lag + MOE_ROUND_ROWS - 1) / MOE_ROUND_ROWS + 1
}

/// Slots of the expert rounds over `row_tiles` row tiles with `first` first-pass and
/// `second` second-pass tiles each, the second pass `lag` ([`round_lag`]) rounds behind.
#[device]
fn round_slots(row_tiles: u32, first: u32, second: u32, lag: u32) -> u32 {
    ((row_tiles + MOE_ROUND_ROWS - 1) / MOE_ROUND_ROWS + lag) * MOE_ROUND_ROWS * (first + second)
}

/// The row tile (`part` 0) or tile column (`part` 1) of expert slot `t` of [`moe_pipeline`],
/// [`moe_forward`] and the two passes of [`moe_backward`] and [`moe_backward_pipeline`]; 0
/// for an empty slot. Round `t / round` holds the first-pass slots (up-projection, `dh`) of
/// [`MOE_ROUND_ROWS`] row tiles' worth, then the second-pass slots of those `lag`
/// ([`round_lag`]) rounds before, each slot a tile as [`chunked_tile`] orders them in chunks
/// of up to a round's row tiles: a chunk's tiles span two rounds at most, so every
/// first-pass tile of a row tile is claimed before its first second-pass tile (the waits
/// always end).
#[device]
#[allow(clippy::too_many_arguments)]
fn round_tile(
    plan: &Sym<[u32]>,
    t: u32,
    part: u32,
    first: u32,
    second: u32,
    lag: u32,
    row_tiles: u32,
    o_local: u32,
    o_tiles: u32,
) -> u32 {
    let rows = MOE_ROUND_ROWS;
    let round = rows * (first + second);
    let r = t / round;
    let i = t % round;
    if !expert_slot_live(t, first, second, rows, lag, row_tiles) {
        0
    } else if i < rows * first {
        chunked_tile(
            plan,
            r * rows * first + i,
            first,
            rows,
            part,
            o_local,
            o_tiles,
        )
    } else {
        let slot = (r - lag) * rows * second + i - rows * first;
        chunked_tile(plan, slot, second, rows, part, o_local, o_tiles)
    }
}

/// A subgroup's 16-row slabs of an up-projection tile of [`moe_pipeline`] at row `row0`,
/// rows below `end`: `left` (columns 0..64 the gate values of features `f0..`, 64..128 their
/// up values) and `right` (the same of features `f0 + 64..`, those below `ffn`). Each goes
/// through the subgroup's `slab` of shared memory rounded to bf16, to `z` as [`up_tile`]
/// stores it ([`store_slab_staged`]: whole rows, 16 bytes a lane) and to `h = silu(gate)
/// up` of the rounded values ([`swiglu_chunks`]), made visible to tensor copies. `f0` is
/// below `ffn`, a multiple of 8.
#[device]
#[allow(clippy::too_many_arguments)]
fn swiglu_slabs(
    slab: &mut [bf16],
    z: &Sym<[bf16]>,
    h: &Sym<[bf16]>,
    left: WideAcc,
    right: WideAcc,
    row0: u32,
    end: u32,
    f0: u32,
    ffn: u32,
) {
    let z_cols = (ffn + 63) / 64 * 128;
    let zl = z.local();
    let hl = h.local();
    store_slab_staged(slab, left, zl, row0, 2 * f0, end, z_cols);
    swiglu_chunks(slab, hl, row0, end, f0, ffn);
    if f0 + 64 < ffn {
        store_slab_staged(slab, right, zl, row0, 2 * f0 + 128, end, z_cols);
        swiglu_chunks(slab, hl, row0, end, f0 + 64, ffn);
    }
    // The down-projection tiles read `h` by tensor copies.
    fence_proxy_async();
}

/// `h = silu(gate) up` of features `f0..f0 + 64` (those below `ffn`, a multiple of 8) for
/// the rows `row0..` below `end`, from a slab [`stage_slab`] wrote (the gate values in its
/// first box, the up values in its second): a lane takes eight features of a row, two
/// 16-byte loads and one 16-byte store.
#[device]
fn swiglu_chunks(slab: &[bf16], hl: &mut [bf16], row0: u32, end: u32, f0: u32, ffn: u32) {
    let rows = subgroup_shuffle(if row0 < end { min(end - row0, 16) } else { 0 }, 0);
    let ch = subgroup_lane() & 7;
    let step = subgroup_size() >> 3;
    if f0 + ch * 8 < ffn {
        let mut r = subgroup_lane() >> 3;
        while r < rows {
            // SAFETY: chunks `ch` and `ch + 8` of row `r` lie in the slab; row `row0 + r`,
            // features `f0 + 8 ch..` (below `ffn`) in the `h` rows the host sized.
            unsafe {
                let g = load_vec8(slab.get_unchecked(slab_chunk(r, ch)));
                let u = load_vec8(slab.get_unchecked(slab_chunk(r, ch + 8)));
                let v = vec8(
                    swiglu(extract(g, 0) as f32, extract(u, 0) as f32),
                    swiglu(extract(g, 1) as f32, extract(u, 1) as f32),
                    swiglu(extract(g, 2) as f32, extract(u, 2) as f32),
                    swiglu(extract(g, 3) as f32, extract(u, 3) as f32),
                    swiglu(extract(g, 4) as f32, extract(u, 4) as f32),
                    swiglu(extract(g, 5) as f32, extract(u, 5) as f32),
                    swiglu(extract(g, 6) as f32, extract(u, 6) as f32),
                    swiglu(extract(g, 7) as f32, extract(u, 7) as f32),
                );
                store_vec8(hl.get_unchecked_mut((row0 + r) * ffn + f0 + ch * 8), v);
            }
            r += step;
        }
    }
}

/// `silu(gate) up`, rounded to bf16.
#[device]
fn swiglu(gate: f32, up: f32) -> bf16 {
    (gate * sigmoid_fast(gate) * up) as bf16
}

/// `1 / (1 + e^-x)` by the fast `2^x` and reciprocal (within a few ulp of `f32`: the
/// activations it serves are rounded to bf16), a third of the instructions of the exact `exp`
/// and division. Large `|x|` give 0 or 1.
#[device]
fn sigmoid_fast(x: f32) -> f32 {
    rcp_approx(1.0 + exp2_approx(-x * f32::consts::LOG2_E))
}

/// Phases 1 and 2 of [`moe_forward`] and [`moe_pipeline`] (their arguments; `tile_groups`
/// the workgroup's groups of four subgroups, a constant): the router blocks; the layout
/// task once they are all done; the fill tasks once it has the send offsets. Returns once
/// the rank's plan is complete (its status in `plan`).
#[device]
#[allow(clippy::too_many_arguments)]
fn moe_plan(
    stages: &mut [u32],
    keys: &mut [f32],
    x: &Sym<[bf16]>,
    w_router: &Sym<[bf16]>,
    bias: &Sym<[f32]>,
    scores: &Sym<[f32]>,
    weights: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    logits: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    sync: &Sym<[u32]>,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    shared: u32,
    o_send: u32,
    o_dest: u32,
    o_blocks: u32,
    o_local: u32,
    o_status: u32,
    o_tiles: u32,
    o_list: u32,
    sigmoid: u32,
    groups: u32,
    topk_groups: u32,
    normalize: u32,
    scale: f32,
    phases: u32,
    max_tiles: u32,
    tile_groups: u32,
) {
    let blocks = (tokens + 127) / 128;
    let heads = sync.local();
    // Tasks: the logits tiles (128 experts of a block each, in parts of MOE_ROUTER_DEPTH,
    // a block's together), the picks (MOE_ROUTE_TOKENS tokens each, once their block's
    // logits are in), each block's counts (once its picks are), the layout, then the fill
    // tasks.
    let parts = (hidden + MOE_ROUTER_DEPTH - 1) / MOE_ROUTER_DEPTH;
    let logit_tiles = (experts + 127) / 128 * parts;
    let splits = 128 / MOE_ROUTE_TOKENS;
    let pick_tasks = blocks * logit_tiles;
    let count_tasks = pick_tasks + blocks * splits;
    let layout_task = count_tasks + blocks;
    // A counter per block: its logits tiles, then its pick tasks, signal it.
    let block_counters = MOE_SYNC_HEAD_WORDS + experts / world_size() + max_tiles;
    // By ticket: a claim is one atomic add. Claiming only a ready head (a CAS every free
    // workgroup retries) handed out these few-microsecond tasks about one per microsecond
    // (bench/RESULTS.md, thirty-seventh batch).
    dispatch_by_ticket(
        &heads[MOE_NEVER],
        0,
        &heads[0],
        if (phases & 1) == 1 {
            layout_task + 1 + blocks
        } else {
            0
        },
        Scope::Agent,
        |t| {
            (
                &sync.local()[if t < pick_tasks {
                    MOE_NEVER
                } else if t < count_tasks {
                    block_counters + (t - pick_tasks) / splits
                } else if t < layout_task {
                    block_counters + t - count_tasks
                } else if t == layout_task {
                    MOE_ROUTED
                } else {
                    MOE_LAID_OUT
                }],
                if t < pick_tasks {
                    0
                } else if t < count_tasks {
                    logit_tiles
                } else if t < layout_task {
                    logit_tiles + splits
                } else if t == layout_task {
                    blocks
                } else {
                    1
                },
            )
        },
        |t| {},
        |t| {
            if t < pick_tasks {
                let b = t / logit_tiles;
                let tile = t % logit_tiles;
                router_logits(
                    stages,
                    x,
                    w_router,
                    logits,
                    b,
                    tile / parts * 128,
                    tile % parts,
                    tokens,
                    hidden,
                    experts,
                    tile_groups,
                );
                signal(&sync.local()[block_counters + b], 1, Scope::Agent);
            } else if t < count_tasks {
                let b = (t - pick_tasks) / splits;
                // Tokens t0..t0 + MOE_ROUTE_TOKENS (a block's last pick tasks may lie past
                // the last token), a subgroup each, each subgroup's token's keys in its own
                // `experts` words of `keys`: as many subgroups route at once as have room
                // there; other workgroups take the next tokens at once.
                let t0 = b * 128 + (t - pick_tasks) % splits * MOE_ROUTE_TOKENS;
                let rows = min(max(tokens, t0) - t0, MOE_ROUTE_TOKENS);
                let routers = min(
                    workgroup_size_x() / subgroup_size(),
                    2 * STEP_WORDS / experts,
                );
                let sg = subgroup_id();
                if sg < routers {
                    for i in (sg..rows).step_by(routers) {
                        route_token(
                            keys,
                            sg * experts,
                            bias,
                            scores,
                            weights,
                            routing,
                            logits,
                            t0 + i,
                            parts,
                            tokens,
                            experts,
                            topk,
                            sigmoid,
                            groups,
                            topk_groups,
                            normalize,
                            scale,
                        );
                    }
                }
                signal(&sync.local()[block_counters + b], 1, Scope::Agent);
            } else if t < layout_task {
                count_block(
                    stages,
                    routing,
                    plan,
                    t - count_tasks,
                    tokens,
                    experts,
                    topk,
                    o_blocks,
                );
                signal(&sync.local()[MOE_ROUTED], 1, Scope::Agent);
            } else if t == layout_task {
                lay_out(
                    stages, plan, sync, tokens, experts, capacity, shared, o_send, o_dest,
                    o_blocks, o_local, o_status, o_tiles,
                );
                signal(&sync.local()[MOE_PLANNED], 1, Scope::Agent);
            } else {
                let b = t - layout_task - 1;
                fill_send_list(
                    routing, plan, b, tokens, experts, topk, o_send, o_blocks, o_list,
                );
                signal(&sync.local()[MOE_PLANNED], 1, Scope::Agent);
            }
        },
    );
    wait(
        &sync.local()[MOE_PLANNED],
        blocks + 1,
        Scope::Agent,
        layout_task + 1 + blocks,
    );
}

/// Phase 4 of [`moe_forward`] and [`moe_pipeline`] (their arguments; `ok` the plan's
/// status), then the counters zeroed for the next launch.
#[device]
#[allow(clippy::too_many_arguments)]
fn moe_fold(
    stages: &mut [u32],
    routing: &Sym<[u32]>,
    weights: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    out: &Sym<[bf16]>,
    y: &Sym<[bf16]>,
    scores: &Sym<[f32]>,
    sync: &Sym<[u32]>,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    shared: u32,
    o_dest: u32,
    ok: u32,
    max_tiles: u32,
    phases: u32,
) {
    let local = experts / world_size();
    let heads = sync.local();
    // Phase 4: every expert output is in place once the whole world is here.
    team_barrier();
    let folds = if ok == 1 && (phases & 8) == 8 {
        (tokens + MOE_FOLD_TOKENS - 1) / MOE_FOLD_TOKENS
    } else {
        0
    };
    dispatch_by_ticket(
        &heads[MOE_NEVER],
        0,
        &heads[3],
        folds,
        Scope::Agent,
        |t| (&sync.local()[MOE_NEVER], 0),
        |t| {},
        |t| {
            fold_tokens(
                stages, routing, weights, plan, out, y, t, tokens, hidden, experts, topk, capacity,
                shared, o_dest, 1, scores, 0,
            );
        },
    );
    // The launch that folds is the last of a layer's (with `phases` split over launches,
    // the counters of the earlier phases carry over to the later launches).
    if (phases & 8) == 8 {
        let blocks = (tokens + 127) / 128;
        rearm(
            sync,
            MOE_SYNC_HEAD_WORDS + local + max_tiles + blocks,
            sync,
            0,
        );
    }
}

/// What expert task `t` of [`moe_forward`] waits for: the index of its counter in `sync`
/// (`part` 0) or the count it waits for (`part` 1), as [`row_tile_gate`] says; the empty
/// slots of the first and last rounds wait for nothing. `lag` counts rounds of
/// [`MOE_ROUND_ROWS`] row tiles' worth.
#[device]
#[allow(clippy::too_many_arguments)]
fn expert_gate(
    plan: &Sym<[u32]>,
    t: u32,
    part: u32,
    row_tiles: u32,
    up_tiles: u32,
    down_tiles: u32,
    lag: u32,
    local: u32,
    o_local: u32,
    o_tiles: u32,
) -> u32 {
    let rows = MOE_ROUND_ROWS;
    let up = t % (rows * (up_tiles + down_tiles)) < rows * up_tiles;
    let live = expert_slot_live(t, up_tiles, down_tiles, rows, lag, row_tiles);
    // An empty slot reads the first row tile's plan (there is one: else no task).
    let g = round_tile(
        plan, t, 0, up_tiles, down_tiles, lag, row_tiles, o_local, o_tiles,
    );
    let gate = row_tile_gate(plan, g, up, part, up_tiles, local, o_local, o_tiles);
    if live {
        gate
    } else if part == 0 {
        MOE_NEVER
    } else {
        0
    }
}

/// What an expert tile of row tile `g` waits for (`part` as for [`expert_gate`]): an
/// up-projection tile (`up`) of a routed expert for all of the expert's rows, a
/// down-projection tile for the `done` signals of its row tile's up-projection tiles; the
/// shared expert's up-projection tiles for nothing.
#[device]
#[allow(clippy::too_many_arguments)]
fn row_tile_gate(
    plan: &Sym<[u32]>,
    g: u32,
    up: bool,
    part: u32,
    done: u32,
    local: u32,
    o_local: u32,
    o_tiles: u32,
) -> u32 {
    let p = plan.local();
    let j = p[o_tiles + g];
    let mut counter = MOE_NEVER;
    let mut expected = 0u32;
    if !up {
        counter = MOE_SYNC_HEAD_WORDS + local + g;
        expected = done;
    }
    if up && j != local {
        counter = MOE_SYNC_HEAD_WORDS + j;
        expected = p[o_local + 3 * j + 1];
    }
    if part == 0 { counter } else { expected }
}

/// The row tile (`part` 0) or tile column (`part` 1) of slot `slot` of [`moe_pipeline`]'s
/// up- or down-projection tiles (`cols` a row tile): the slots of up to `chunk` row tiles of
/// one expert go column by column, each column's tiles one after the other, so that the
/// tiles reading the same weights run at once and the copies after the first find them in
/// the cache.
#[device]
#[allow(clippy::too_many_arguments)]
fn chunked_tile(
    plan: &Sym<[u32]>,
    slot: u32,
    cols: u32,
    chunk: u32,
    part: u32,
    o_local: u32,
    o_tiles: u32,
) -> u32 {
    let p = plan.local();
    let r = slot / cols;
    let j = p[o_tiles + r];
    let first = p[o_local + 3 * j + 2];
    let end = first + (p[o_local + 3 * j + 1] + 127) / 128;
    let c0 = first + (r - first) / chunk * chunk;
    let n = min(chunk, end - c0);
    let o = slot - c0 * cols;
    if part == 0 { c0 + o % n } else { o / n }
}

/// The routing key of expert `e` for the token whose row of `keys` starts at `at`: the
/// logit (softmax routing: the same order as the probabilities) or the sigmoid plus the
/// expert's selection bias; minus infinity for an expert outside the `eligible` groups (bit
/// `e / per_group`; all are with `per_group` 0).
#[device]
#[allow(clippy::too_many_arguments)]
fn route_key(
    keys: &[f32],
    bias: &[f32],
    at: u32,
    e: u32,
    sigmoid: u32,
    eligible: u32,
    per_group: u32,
) -> f32 {
    // SAFETY: `at + e` lies in the router task's row of `keys`, and `e` below the experts,
    // which `bias` holds (checked by the host).
    let v = unsafe { *keys.get_unchecked(at + e) };
    let b = if sigmoid == 1 {
        unsafe { *bias.get_unchecked(e) }
    } else {
        0.0
    };
    // (`||` evaluates both sides in kernels: the division must not see `per_group` 0.)
    let inside = if per_group == 0 {
        true
    } else {
        ((eligible >> (e / per_group)) & 1) == 1
    };
    if inside { v + b } else { f32::NEG_INFINITY }
}

/// Router task of [`moe_forward`]'s logits: part `part` ([`MOE_ROUTER_DEPTH`] columns of
/// `hidden`) of experts `e0..e0 + 128` of the tokens `128 b..` of `x`, a GEMM tile stored
/// into the part's `tokens x experts` matrix of `logits` (a token's row is what its
/// subgroup reads, [`route_token`]). `tile_groups` as for [`tile_product`].
#[device]
#[allow(clippy::too_many_arguments)]
fn router_logits(
    stages: &mut [u32],
    x: &Sym<[bf16]>,
    w_router: &Sym<[bf16]>,
    logits: &Sym<[f32]>,
    b: u32,
    e0: u32,
    part: u32,
    tokens: u32,
    hidden: u32,
    experts: u32,
    tile_groups: u32,
) {
    let t0 = b * 128;
    let w = w_router.local();
    let xs = x.local();
    let part_steps = MOE_ROUTER_DEPTH / 64;
    let first = part * part_steps;
    let steps = min((hidden + 63) / 64 - first, part_steps);
    let acc = tile_product_steps(
        stages,
        xs,
        w,
        t0,
        e0,
        tokens,
        experts,
        hidden,
        0,
        1,
        0,
        tile_groups,
        first,
        steps,
        2,
    );
    // Only f32 is stored: `x` stands in for the bf16 result. The tile is the first two
    // groups'; the parts' matrices lie one after another, rows of one `tokens` apart.
    if subgroup_id() < 8 {
        let lt = logits.local();
        let rows = part * tokens;
        store_slab(
            lt,
            xs,
            0,
            acc,
            rows + slab_row(t0),
            e0,
            rows + tokens,
            experts,
        );
    }
}

/// Token `t`'s routing by the calling subgroup, each lane the experts `e` with `e % lanes`
/// its own: the token's logits (its parts summed in depth order, into the first part's row
/// of `logits`) or, with sigmoid routing, their sigmoids (there too) into `keys` from `at`,
/// where every later pass reads them (read back from `logits`, every pass was a chain of
/// global loads, one expert a lane after another); its
/// `topk` experts (eligible: the `topk_groups` best of `groups` expert groups by
/// the sum of their two best keys, see [`route_key`]), each the first below the previous
/// pick in the order (key descending, index ascending: [`subgroup_first`]), into `routing`
/// with their weights (the probabilities or sigmoids, normalized if `normalize`, times
/// `scale`), and its scores row into `scores`. The softmax's sum adds each lane's terms in
/// expert order, then the lanes' in a fixed butterfly.
#[device]
#[allow(clippy::too_many_arguments)]
fn route_token(
    keys: &mut [f32],
    at: u32,
    bias: &Sym<[f32]>,
    scores: &Sym<[f32]>,
    weights: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    logits: &Sym<[f32]>,
    t: u32,
    parts: u32,
    tokens: u32,
    experts: u32,
    topk: u32,
    sigmoid: u32,
    groups: u32,
    topk_groups: u32,
    normalize: u32,
    scale: f32,
) {
    let lane = subgroup_lane();
    let lanes = subgroup_size();
    let lt = logits.local();
    let bs = bias.local();
    // The subgroup's previous token is done with `keys` (its picks read other lanes' keys).
    subgroup_barrier();
    // The logits: the parts summed in depth order. Softmax: the largest logit and the sum of
    // the exponentials; sigmoid: the sigmoids.
    let mut top = f32::NEG_INFINITY;
    let mut sum = 0.0f32;
    // SAFETY (every unchecked access below): `t < tokens` and `e < experts` index the
    // router's `tokens x experts` logits (of each of the `parts`) and scores, and `at + e`
    // the subgroup's keys (`moe_plan` gives each subgroup `experts` words).
    for e in (lane..experts).step_by(lanes) {
        unsafe {
            let mut v = *lt.get_unchecked(t * experts + e);
            for part in 1..parts {
                v += *lt.get_unchecked((part * tokens + t) * experts + e);
            }
            if sigmoid == 1 {
                v = 1.0 / (1.0 + exp(-v));
            } else {
                top = max(top, v);
            }
            *lt.get_unchecked_mut(t * experts + e) = v;
            *keys.get_unchecked_mut(at + e) = v;
        }
    }
    top = subgroup_max(top);
    if sigmoid == 0 {
        for e in (lane..experts).step_by(lanes) {
            sum += exp(unsafe { *keys.get_unchecked(at + e) } - top);
        }
        sum = subgroup_sum(sum);
    }
    // Every lane reads the others' keys below.
    subgroup_barrier();
    let none = subgroup_shuffle(experts, 0);
    // The eligible groups, one bit each: each pick the best group below the previous one
    // in the order (score descending, index ascending); lane `g` holds group `g`'s score.
    let per_group = if groups > 1 { experts / groups } else { 0 };
    let mut eligible = 0u32;
    if groups > 1 {
        let mut mine = f32::NEG_INFINITY;
        for g in 0..groups {
            let lo = g * per_group;
            let score = group_score(keys, bs, at, lo, lo + per_group, sigmoid, none);
            if lane == g {
                mine = score;
            }
        }
        let mut prev = 0.0f32;
        let mut prev_g = 0u32;
        for pick in 0..topk_groups {
            let below = pick == 0 || mine < prev || (mine == prev && lane > prev_g);
            let candidate = lane < groups && below;
            let g = subgroup_first(
                if candidate { mine } else { f32::NEG_INFINITY },
                if candidate { lane } else { none },
            );
            eligible |= 1u32 << g;
            prev = subgroup_shuffle(mine, g);
            prev_g = g;
        }
    }
    let mut prev = 0.0f32;
    let mut prev_e = 0u32;
    let mut total = 0.0f32;
    let wl = weights.local();
    let rl = routing.local();
    for pick in 0..topk {
        // The lane's first expert below the previous pick, then the subgroup's.
        let mut best = f32::NEG_INFINITY;
        let mut best_e = none;
        for e in (lane..experts).step_by(lanes) {
            let key = route_key(keys, bs, at, e, sigmoid, eligible, per_group);
            let below = pick == 0 || key < prev || (key == prev && e > prev_e);
            if below && (best_e == none || key > best) {
                best = key;
                best_e = e;
            }
        }
        let e = subgroup_first(best, best_e);
        let v = unsafe { *keys.get_unchecked(at + e) };
        let w = if sigmoid == 1 { v } else { exp(v - top) / sum };
        if lane == 0 {
            rl[t * topk + pick] = e;
            wl[t * topk + pick] = w;
        }
        total += w;
        prev = route_key(keys, bs, at, e, sigmoid, eligible, per_group);
        prev_e = e;
    }
    let norm = if normalize == 1 { scale / total } else { scale };
    // Lane 0's weights, scaled a pick per lane (a chain of reads after writes otherwise).
    subgroup_barrier();
    for pick in (lane..topk).step_by(lanes) {
        wl[t * topk + pick] = wl[t * topk + pick] * norm;
    }
    let s = scores.local();
    for e in (lane..experts).step_by(lanes) {
        unsafe {
            let v = *keys.get_unchecked(at + e);
            *s.get_unchecked_mut(t * experts + e) =
                if sigmoid == 1 { v } else { exp(v - top) / sum };
        }
    }
}

/// The sum of the calling subgroup's `x`, in every lane: a butterfly, so the same order of
/// additions (and bits) whatever the timing.
#[device]
fn subgroup_sum(x: f32) -> f32 {
    let mut v = x;
    let mut offset = subgroup_size() / 2;
    while offset > 0 {
        v += subgroup_shuffle(v, subgroup_lane() ^ offset);
        offset /= 2;
    }
    v
}

/// The largest of the calling subgroup's `x`, in every lane.
#[device]
fn subgroup_max(x: f32) -> f32 {
    let mut v = x;
    let mut offset = subgroup_size() / 2;
    while offset > 0 {
        v = max(v, subgroup_shuffle(v, subgroup_lane() ^ offset));
        offset /= 2;
    }
    v
}

/// The expert the calling subgroup's lanes put first, each offering (`key`, `e`; `e` past
/// every expert for none): the first in the routing order (key descending, index
/// ascending), found in a butterfly, the same in every lane.
#[device]
fn subgroup_first(key: f32, e: u32) -> u32 {
    let lane = subgroup_lane();
    let mut k = key;
    let mut i = e;
    let mut offset = subgroup_size() / 2;
    while offset > 0 {
        let other = subgroup_shuffle(k, lane ^ offset);
        let other_e = subgroup_shuffle(i, lane ^ offset);
        if other > k || (other == k && other_e < i) {
            k = other;
            i = other_e;
        }
        offset /= 2;
    }
    i
}

/// The score of the expert group `lo..hi` for the token whose keys start at `at` (keys by
/// [`route_key`], every expert eligible): the sum of its best two keys in the routing order, the best alone for
/// a group of one; found by the calling subgroup (each lane its experts' best two, then
/// merged in a butterfly), the same in every lane. `none` lies past every expert.
#[device]
#[allow(clippy::too_many_arguments)]
fn group_score(
    keys: &[f32],
    bias: &[f32],
    at: u32,
    lo: u32,
    hi: u32,
    sigmoid: u32,
    none: u32,
) -> f32 {
    let lane = subgroup_lane();
    let mut k1 = f32::NEG_INFINITY;
    let mut e1 = none;
    let mut k2 = f32::NEG_INFINITY;
    let mut e2 = none;
    for e in (lo + lane..hi).step_by(subgroup_size()) {
        let key = route_key(keys, bias, at, e, sigmoid, 0, 0);
        // Ascending indices: a key ties with an earlier one after it.
        if e1 == none || key > k1 {
            k2 = k1;
            e2 = e1;
            k1 = key;
            e1 = e;
        } else if e2 == none || key > k2 {
            k2 = key;
            e2 = e;
        }
    }
    let mut offset = subgroup_size() / 2;
    while offset > 0 {
        let o1 = subgroup_shuffle(k1, lane ^ offset);
        let oe1 = subgroup_shuffle(e1, lane ^ offset);
        let o2 = subgroup_shuffle(k2, lane ^ offset);
        let oe2 = subgroup_shuffle(e2, lane ^ offset);
        if o1 > k1 || (o1 == k1 && oe1 < e1) {
            // The other's first leads; then the better of this lane's first and its second.
            if o2 > k1 || (o2 == k1 && oe2 < e1) {
                k2 = o2;
                e2 = oe2;
            } else {
                k2 = k1;
                e2 = e1;
            }
            k1 = o1;
            e1 = oe1;
        } else if o1 > k2 || (o1 == k2 && oe1 < e2) {
            k2 = o1;
            e2 = oe1;
        }
        offset /= 2;
    }
    if hi - lo > 1 { k1 + k2 } else { k1 }
}

/// Experts whose token masks [`count_block`] keeps at once: four words each in the
/// smallest ring of the MoE kernels (`2 STEP_WORDS` words).
const MASKED_EXPERTS: u32 = 2 * STEP_WORDS / 4;

/// Router task of [`moe_forward`]'s counts, once block `b`'s picks are in: each expert's
/// count of the block's picks into `plan` (at `o_blocks + b experts + e`), and each pick
/// numbered among the block's picks of its expert in token order, in the second half of
/// `routing`. A token picks an expert at most once, so a pick's number is how many earlier
/// tokens of the block picked its expert: each expert gets a mask of the block's tokens
/// (four words in `stages`, set by shared atomics in any order) and a pick counts the bits
/// below its token's. Every lane takes a few picks: no lane walks the whole block.
#[device]
#[allow(clippy::too_many_arguments)]
fn count_block(
    stages: &mut [u32],
    routing: &Sym<[u32]>,
    plan: &Sym<[u32]>,
    b: u32,
    tokens: u32,
    experts: u32,
    topk: u32,
    o_blocks: u32,
) {
    let t0 = b * 128;
    let rows = min(tokens - t0, 128);
    let picks = tokens * topk;
    let rl = routing.local();
    let p = plan.local();
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    // Experts in windows whose masks fit the smallest ring (`2 STEP_WORDS` words).
    for e0 in (0..experts).step_by(MASKED_EXPERTS) {
        let e1 = min(experts, e0 + MASKED_EXPERTS);
        for i in (lane..(e1 - e0) * 4).step_by(lanes) {
            stages[i] = 0;
        }
        barrier();
        for i in (lane..rows * topk).step_by(lanes) {
            let e = rl[t0 * topk + i];
            let t = i / topk;
            if e >= e0 && e < e1 {
                atomic_or(
                    &stages[(e - e0) * 4 + t / 32],
                    1u32 << (t % 32),
                    Ordering::Relaxed,
                    Scope::Workgroup,
                );
            }
        }
        barrier();
        for i in (lane..rows * topk).step_by(lanes) {
            let e = rl[t0 * topk + i];
            let t = i / topk;
            if e >= e0 && e < e1 {
                let mask = (e - e0) * 4;
                let mut number = ones(stages[mask + t / 32] & ((1u32 << (t % 32)) - 1));
                for w in 0..t / 32 {
                    number += ones(stages[mask + w]);
                }
                rl[picks + t0 * topk + i] = number;
            }
        }
        for e in (e0 + lane..e1).step_by(lanes) {
            let mask = (e - e0) * 4;
            let count = ones(stages[mask])
                + ones(stages[mask + 1])
                + ones(stages[mask + 2])
                + ones(stages[mask + 3]);
            p[o_blocks + b * experts + e] = count;
        }
        // Every lane is done with the masks before they are zeroed or the next task
        // overwrites them.
        barrier();
    }
}

/// The number of set bits of `x`, by halves, nibbles and bytes.
#[device]
fn ones(x: u32) -> u32 {
    let pairs = x - ((x >> 1) & 0x5555_5555);
    let nibbles = (pairs & 0x3333_3333) + ((pairs >> 2) & 0x3333_3333);
    (((nibbles + (nibbles >> 4)) & 0x0f0f_0f0f) * 0x0101_0101) >> 24
}

/// The layout task of [`moe_forward`] on rank `s` (one workgroup, once every router task of
/// the rank is done): in `plan`, the blocks' counts of each expert become their offsets
/// among the rank's picks of it, whose count goes to every rank's counts table, row `s`; the
/// send offsets order the rank's picks by local expert, then owner from the next rank round
/// the ring (the order in which owners need them), then token. Once every rank's counts are
/// in, `plan` gets each expert's chunk destination (the row on its owner where this rank's
/// picks of it start: owners keep their experts' rows in expert order, each expert's by
/// source rank), this rank's expert rows and row tiles (the shared expert's first, at row
/// `capacity`), and the status; an owner whose rows pass `capacity` reports it.
///
/// Every running sum is a workgroup scan ([`workgroup_scan`]), a lane per expert: `stages`
/// holds the all-ranks totals' exclusive sums (`experts + 1` words) and the scan's words
/// after them.
#[device]
#[allow(clippy::too_many_arguments)]
fn lay_out(
    stages: &mut [u32],
    plan: &Sym<[u32]>,
    sync: &Sym<[u32]>,
    tokens: u32,
    experts: u32,
    capacity: u32,
    shared: u32,
    o_send: u32,
    o_dest: u32,
    o_blocks: u32,
    o_local: u32,
    o_status: u32,
    o_tiles: u32,
) {
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let s = team_rank();
    let ranks = world_size();
    let local = experts / ranks;
    let blocks = (tokens + 127) / 128;
    let p = plan.local();
    let scan = experts + 1;
    let total_at = scan + workgroup_size_x() / subgroup_size();
    // Lane `u` of a round takes the `u`-th expert of the send order (local expert `j`, owner
    // `q` places round the ring from the next rank): its blocks' counts become offsets, its
    // rank total goes to every rank's table, and its send offset is the scan's.
    let mut carry = 0u32;
    for base in (0..experts).step_by(lanes) {
        let u = base + lane;
        let mut run = 0u32;
        let mut e = 0u32;
        if u < experts {
            e = (s + 1 + u % ranks) % ranks * local + u / ranks;
            run = block_offsets(p, o_blocks, e, experts, blocks);
            for d in 0..ranks {
                plan.peer(d)[s * experts + e] = run;
            }
        }
        let first = carry + workgroup_scan(run, stages, scan);
        if u < experts {
            p[o_send + e] = first;
        }
        carry += stages[total_at];
    }
    for d in 0..ranks {
        signal(&sync.peer(d)[MOE_COUNTED], 1, Scope::System);
    }
    signal(&sync.local()[MOE_LAID_OUT], 1, Scope::Agent);
    wait(&sync.local()[MOE_COUNTED], ranks, Scope::System, 0);
    // Every rank's picks of each expert, their exclusive sums in expert order into
    // `stages[e]` (the sum of all at `stages[experts]`): expert `e`'s rows on its owner
    // start at `stages[e]` less the sum at the owner's first expert.
    carry = 0;
    for base in (0..experts).step_by(lanes) {
        let e = base + lane;
        let mut total = 0u32;
        if e < experts {
            for r in 0..ranks {
                total += p[r * experts + e];
            }
        }
        let first = carry + workgroup_scan(total, stages, scan);
        if e < experts {
            stages[e] = first;
        }
        carry += stages[total_at];
    }
    if lane == 0 {
        stages[experts] = carry;
    }
    barrier();
    for e in (lane..experts).step_by(lanes) {
        let mut first = stages[e] - stages[e / local * local];
        for r in 0..s {
            first += p[r * experts + e];
        }
        p[o_dest + e] = first;
    }
    // Every owner's rows within the capacity, else no rank dispatches anything.
    let mut ok = 1u32;
    for d in 0..ranks {
        if stages[(d + 1) * local] - stages[d * local] > capacity {
            ok = 0;
        }
    }
    // Row tiles: the shared expert's (rows `capacity..`), then the experts' in order, each
    // local expert's first tile a scan of the tiles before it.
    let shared_tiles = shared * blocks;
    for i in (lane..shared_tiles).step_by(lanes) {
        p[o_tiles + i] = local;
    }
    let own = s * local;
    carry = shared_tiles;
    for base in (0..local).step_by(lanes) {
        let j = base + lane;
        let mut tiles = 0u32;
        if j < local {
            tiles = (stages[own + j + 1] - stages[own + j] + 127) / 128;
        }
        let g = carry + workgroup_scan(tiles, stages, scan);
        if j < local {
            p[o_local + 3 * j] = stages[own + j] - stages[own];
            p[o_local + 3 * j + 1] = stages[own + j + 1] - stages[own + j];
            p[o_local + 3 * j + 2] = g;
            // Past the capacity, the table could not hold the tiles (none will run).
            if ok == 1 {
                for i in 0..tiles {
                    p[o_tiles + g + i] = j;
                }
            }
        }
        carry += stages[total_at];
    }
    if lane == 0 {
        p[o_local + 3 * local] = capacity;
        p[o_local + 3 * local + 1] = tokens;
        p[o_local + 3 * local + 2] = 0;
        p[o_status] = if ok == 1 { carry } else { 0 };
        p[o_status + 1] = ok;
    }
    // Every rank sees every overflow in the same table (and so dispatches nothing); the
    // owner reports its own.
    let needed = stages[own + local] - stages[own];
    if needed > capacity {
        report_overflow(capacity, needed);
    }
    // Every lane is done with `stages` before the next task overwrites it.
    barrier();
}

/// Expert `e`'s counts of the rank's blocks in `p` (at `o_blocks + b experts + e`) replaced
/// by their exclusive sums in block order; returns their total. Four counts are read before
/// their offsets are written, so that four reads are in flight at a time (a read past the
/// last block reads the last one again, and its offset is not written).
#[device]
fn block_offsets(p: &mut [u32], o_blocks: u32, e: u32, experts: u32, blocks: u32) -> u32 {
    let mut run = 0u32;
    let mut b = 0u32;
    while b < blocks {
        let last = blocks - 1;
        let c0 = p[o_blocks + b * experts + e];
        let c1 = p[o_blocks + min(b + 1, last) * experts + e];
        let c2 = p[o_blocks + min(b + 2, last) * experts + e];
        let c3 = p[o_blocks + min(b + 3, last) * experts + e];
        p[o_blocks + b * experts + e] = run;
        run += c0;
        if b + 1 < blocks {
            p[o_blocks + (b + 1) * experts + e] = run;
            run += c1;
        }
        if b + 2 < blocks {
            p[o_blocks + (b + 2) * experts + e] = run;
            run += c2;
        }
        if b + 3 < blocks {
            p[o_blocks + (b + 3) * experts + e] = run;
            run += c3;
        }
        b += 4;
    }
    run
}

/// The exclusive sum of the workgroup's `x` in lane order (every lane calls it, in uniform
/// control flow), with the sum of all left in `scratch[at + subgroups]`: each subgroup's
/// inclusive sums by shuffles, then the subgroups' totals through `scratch[at..]`.
#[device]
fn workgroup_scan(x: u32, scratch: &mut [u32], at: u32) -> u32 {
    let lane = subgroup_lane();
    let sg = subgroup_id();
    let subgroups = workgroup_size_x() / subgroup_size();
    let mut v = x;
    let mut offset = 1u32;
    while offset < subgroup_size() {
        let other = subgroup_shuffle(v, if lane >= offset { lane - offset } else { lane });
        if lane >= offset {
            v += other;
        }
        offset *= 2;
    }
    if lane == subgroup_size() - 1 {
        scratch[at + sg] = v;
    }
    barrier();
    let mut before = 0u32;
    for i in 0..sg {
        before += scratch[at + i];
    }
    if workitem_id_x() == 0 {
        let mut total = 0u32;
        for i in 0..subgroups {
            total += scratch[at + i];
        }
        scratch[at + subgroups] = total;
    }
    // The total is in place, and every lane has read the subgroups' sums before a next
    // call overwrites them.
    barrier();
    before + v - x
}

/// Fill task `b` of [`moe_forward`]: the picks of tokens `128 b..` take their places in the
/// send list (the second half of `routing` becomes each pick's position among the rank's
/// picks of its expert).
#[device]
#[allow(clippy::too_many_arguments)]
fn fill_send_list(
    routing: &Sym<[u32]>,
    plan: &Sym<[u32]>,
    b: u32,
    tokens: u32,
    experts: u32,
    topk: u32,
    o_send: u32,
    o_blocks: u32,
    o_list: u32,
) {
    let picks = tokens * topk;
    let first = b * 128 * topk;
    let last = min(picks, first + 128 * topk);
    let p = plan.local();
    let rl = routing.local();
    for i in (first + workitem_id_x()..last).step_by(workgroup_size_x()) {
        let e = rl[i];
        let position = p[o_blocks + b * experts + e] + rl[picks + i];
        rl[picks + i] = position;
        p[o_list + p[o_send + e] + position] = i;
    }
}

/// Communication task `q` of [`moe_forward`]: pushes send-list entries `128 q..` (rows of
/// `x`) into their owners' `recv` at their chunk's destination, a subgroup per row, then
/// adds each expert's number of rows pushed to its counter on the owner (the entries of one
/// expert are consecutive in the list).
#[device]
#[allow(clippy::too_many_arguments)]
fn send_rows(
    x: &Sym<[bf16]>,
    routing: &Sym<[u32]>,
    plan: &Sym<[u32]>,
    sync: &Sym<[u32]>,
    recv: &Sym<[bf16]>,
    q: u32,
    rank: u32,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    o_send: u32,
    o_dest: u32,
    o_list: u32,
    silent: u32,
) {
    let local = experts / world_size();
    let picks = tokens * topk;
    let first = q * 128;
    let last = min(picks, first + 128);
    let p = plan.local();
    let rl = routing.local();
    let xs = x.local();
    let subgroups = workgroup_size_x() / subgroup_size();
    let chunks = hidden / 8;
    for i in (first + subgroup_id()..last).step_by(subgroups) {
        let pick = p[o_list + i];
        let e = rl[pick];
        let row = p[o_dest + e] + rl[picks + pick];
        let t = pick / topk;
        let to = recv.peer(e / local);
        // The host checked that `x` holds `tokens x hidden` elements and `recv` `capacity x
        // hidden`; rows are below `capacity` (nothing is sent otherwise).
        copy_chunks(
            xs,
            to,
            t * hidden,
            row * hidden,
            chunks,
            subgroup_lane(),
            subgroup_size(),
        );
    }
    // The owner's tensor copies (another proxy) read these rows.
    fence_proxy_async();
    count_pushed_rows(
        routing,
        plan,
        sync,
        MOE_SYNC_HEAD_WORDS,
        first,
        last,
        rank,
        experts,
        o_send,
        o_list,
        silent,
    );
}

/// Once the rows of send-list entries `first..last` are pushed: adds each expert's number of
/// them to its counter on the owner (`sync` word `counters` + the local expert); the entries
/// of one expert are consecutive in the list. A planted silent rank (`rank == silent`)
/// pushes its rows but never says so.
#[device]
#[allow(clippy::too_many_arguments)]
fn count_pushed_rows(
    routing: &Sym<[u32]>,
    plan: &Sym<[u32]>,
    sync: &Sym<[u32]>,
    counters: u32,
    first: u32,
    last: u32,
    rank: u32,
    experts: u32,
    o_send: u32,
    o_list: u32,
    silent: u32,
) {
    let local = experts / world_size();
    let p = plan.local();
    let rl = routing.local();
    let mut i = first;
    while i < last {
        let e = rl[p[o_list + i]];
        let end = min(last, p[o_send + e] + p[rank * experts + e]);
        if rank != silent {
            signal(
                &sync.peer(e / local)[counters + e % local],
                end - i,
                Scope::System,
            );
        }
        i = end;
    }
}

/// An up-projection tile of [`moe_forward`]: output rows `m0..end` (rows `a_m0..a_rows`
/// of `a`), features `f0..f0 + 64` of the SwiGLU projection `w` (gate rows, then up rows,
/// `ffn` each, paired in one tile by [`tile_product`]). The tile goes to `z` rounded to
/// bf16 (columns `2 f0..`: gate, then up), then `h = silu(gate) up` (of the rounded values)
/// to `h`.
#[device]
#[allow(clippy::too_many_arguments)]
fn up_tile(
    stages: &mut [u32],
    a: &[bf16],
    w: &[bf16],
    a_m0: u32,
    a_rows: u32,
    scores: &Sym<[f32]>,
    z: &Sym<[bf16]>,
    h: &Sym<[bf16]>,
    m0: u32,
    end: u32,
    f0: u32,
    ffn: u32,
    hidden: u32,
) {
    let acc = tile_product(stages, a, w, a_m0, f0, a_rows, ffn, hidden, 0, 1, ffn, 2, 2);
    let z_cols = (ffn + 63) / 64 * 128;
    let row0 = slab_row(m0);
    let zl = z.local();
    // Only bf16 is stored: `scores` stands in for the f32 result.
    let spare = scores.local();
    store_slab(spare, zl, 1, acc, row0, 2 * f0, end, z_cols);
    barrier();
    let rows = min(end - m0, 128);
    let cols = min(ffn - f0, 64);
    let hl = h.local();
    for i in (workitem_id_x()..rows * 64).step_by(workgroup_size_x()) {
        let r = i >> 6;
        let c = i & 63;
        if c < cols {
            let at = (m0 + r) * z_cols + 2 * f0 + c;
            // SAFETY: row `m0 + r` is below `end`, within the `z` and `h` rows the host
            // sized; column `2 f0 + c + 64` below `z_cols`, `f0 + c` below `ffn`. Unchecked,
            // the loop has no branches to keep its loads from overlapping.
            unsafe {
                let gate = *zl.get_unchecked(at) as f32;
                let up = *zl.get_unchecked(at + 64) as f32;
                *hl.get_unchecked_mut((m0 + r) * ffn + f0 + c) = swiglu(gate, up);
            }
        }
    }
}

/// A down-projection tile of [`moe_forward`]: rows `m0..end` of `a` (`h`) times `w^T` (`w`:
/// `hidden x ffn`), columns `n0..n0 + 128`, into `y` rounded to bf16, stored straight from
/// the fragments: over a `k` this long the staged store of [`store_tile_bf16`] (and the
/// shared memory it takes) measured slower (bench/RESULTS.md, twenty-fifth batch).
#[device]
#[allow(clippy::too_many_arguments)]
fn down_tile(
    stages: &mut [u32],
    a: &[bf16],
    w: &[bf16],
    spare: &mut [f32],
    y: &mut [bf16],
    m0: u32,
    end: u32,
    n0: u32,
    hidden: u32,
    ffn: u32,
) {
    let acc = tile_product(stages, a, w, m0, n0, end, hidden, ffn, 0, 1, 0, 2, 2);
    store_slab(spare, y, 1, acc, slab_row(m0), n0, end, hidden);
}

/// The first row of the calling subgroup's 16-row slab of the 128-row tile at row `m0`.
#[device]
fn slab_row(m0: u32) -> u32 {
    m0 + (subgroup_id() >> 2) * 64 + (subgroup_id() & 3) * 16
}

/// The 128 x 128 tile at row `m0`, column `n0` of `op(A) op(B)` ([`tile_product`]'s
/// arguments), stored into the `m x n` row-major matrix `C`: in `c` (f32), or in `c16`
/// (rounded to bf16, through `staging` by [`store_tile_bf16`]) when `to_bf16` is 1 (the
/// other one is not touched). Where `staged` is 1, the staging tile serves the product as
/// a third stage first.
#[device]
#[allow(clippy::too_many_arguments)]
fn product_tile(
    stages: &mut [u32],
    a: &[bf16],
    b: &[bf16],
    m0: u32,
    n0: u32,
    m: u32,
    n: u32,
    k: u32,
    ta: u32,
    tb: u32,
    c: &mut [f32],
    c16: &mut [bf16],
    to_bf16: u32,
    staging: &mut [bf16],
    staged: u32,
) {
    let acc = tile_product(stages, a, b, m0, n0, m, n, k, ta, tb, 0, 2, 2 + staged);
    store_tile(staging, staged, acc, c, c16, to_bf16, m0, n0, m, n);
}

/// Stores the 128 x 128 output tile `acc` at row `m0`, column `n0` of the `m x n` result:
/// `c` (f32) or, with `to_bf16`, `c16`, through the staging tile at element
/// `4 * STEP_WORDS` of `staging` ([`store_tile_bf16`]) where `staged` is 1, else from the
/// accumulators ([`store_slab`]).
#[device]
#[allow(clippy::too_many_arguments)]
fn store_tile(
    staging: &mut [bf16],
    staged: u32,
    acc: WideAcc,
    c: &mut [f32],
    c16: &mut [bf16],
    to_bf16: u32,
    m0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    if to_bf16 == 1 && staged == 1 {
        store_tile_bf16(&mut staging[4 * STEP_WORDS..], acc, c16, m0, n0, m, n);
    } else {
        store_slab(c, c16, to_bf16, acc, slab_row(m0), n0, m, n);
    }
}

/// Every 128 x 128 tile of the 128-row block at row `m0` of `op(A) op(B)` ([`tile_product`]'s
/// arguments), left to right, stored as [`product_tile`] stores one. For a short `k` (a
/// weight gradient summed over one expert's rows) the copies of a tile's first step are in
/// flight while the tile before finishes and stores: one pipeline over the whole block
/// rather than a fill and a drain per tile.
#[device]
#[allow(clippy::too_many_arguments)]
fn block_products(
    stages: &mut [u32],
    a: &[bf16],
    b: &[bf16],
    m0: u32,
    m: u32,
    n: u32,
    k: u32,
    ta: u32,
    tb: u32,
    c: &mut [f32],
    c16: &mut [bf16],
    to_bf16: u32,
    staging: &mut [bf16],
    staged: u32,
) {
    let group = subgroup_id() >> 2;
    let tiles = (n + 127) / 128;
    // At least one step a tile: an empty sum stores zeros.
    let steps = max((k + 63) / 64, 1);
    let total = steps * tiles;
    // Up to two steps deep (five with `staged`), the block's `op(A)` stays where its steps
    // land ([`resident_step`]) for the whole row of tiles and only `op(B)` is copied per
    // step: half the bytes of a step, where these short products are bound by what they
    // read. Steps 3 and 4 lie in the staging tile, which each tile's store overwrites: they
    // are copied again for every tile, and the store waits for every group's last product.
    let resident = steps <= 2 + 3 * staged;
    // With `op(A)` in two steps, the third step's place holds a third `op(B)` step: two
    // steps' copies in flight, where a tile's second step otherwise waited for its copy
    // issued only one short product before.
    let ring = if staged == 1 && steps <= 2 { 3 } else { 2 };
    let lead = ring - 1;
    let mut acc = wide_zero();
    // Step `s` is step `q` of the tile at column `n0`, copied into `op(B)` place `slot`;
    // step `s - lead` step `q_mul` of the tile at `n_mul`, in place `slot_mul` (counted
    // along, not divided out: `steps` is not a constant).
    let mut q = 0;
    let mut n0 = 0;
    let mut slot = 0;
    let mut q_mul = 0;
    let mut n_mul = 0;
    let mut slot_mul = 0;
    for s in 0..total + lead {
        if s >= lead {
            await_ring_step(s, total, ring);
        }
        if s < total {
            let k0 = q * 64;
            if !resident || s < steps || q >= 3 {
                let to = if resident {
                    resident_step(q)
                } else {
                    (s & 1) * STEP_WORDS
                };
                if ta == 0 {
                    stage_rows(stages, to, a, m0, k0, m, k, 0, 2);
                } else {
                    stage_columns(stages, to, a, k0, m0, k, m, 2);
                }
            }
            let to = operand_b_place(slot);
            if tb == 0 {
                stage_columns(stages, to, b, k0, n0, k, n, 2);
            } else {
                stage_rows(stages, to, b, n0, k0, n, k, 0, 2);
            }
            async_commit();
            q += 1;
            if q == steps {
                q = 0;
                n0 += 128;
            }
            slot += 1;
            if slot == ring {
                slot = 0;
            }
        }
        if s >= lead {
            let a_base = if resident {
                resident_step(q_mul)
            } else {
                ((s - lead) & 1) * STEP_WORDS
            };
            // SAFETY: both tiles lie inside the stages.
            unsafe {
                acc = mma_group_trans(
                    stages.get_unchecked(a_base + group * 2048),
                    stages.get_unchecked(operand_b_place(slot_mul)),
                    acc,
                    ta,
                    tb,
                );
            }
            if q_mul + 1 == steps {
                if resident && steps > 3 {
                    barrier();
                }
                store_tile(staging, staged, acc, c, c16, to_bf16, m0, n_mul, m, n);
                acc = wide_zero();
            }
            q_mul += 1;
            if q_mul == steps {
                q_mul = 0;
                n_mul += 128;
            }
            slot_mul += 1;
            if slot_mul == ring {
                slot_mul = 0;
            }
        }
    }
    // Every lane is done with the stages before the next task overwrites them.
    barrier();
}

/// Where [`block_products`]' `op(B)` place `slot` lies in `stages`: the `b` part of stage
/// 0 or 1, or (slot 2, when `op(A)` takes two steps) the third `op(A)` step's place.
#[device]
fn operand_b_place(slot: u32) -> u32 {
    if slot == 2 {
        3 * STEP_WORDS
    } else {
        slot * STEP_WORDS + 4096
    }
}

/// Where step `q` of [`block_products`]' resident `op(A)` lies in `stages`: the `a` part of
/// stages 0 and 1, the third past the staging tile, then the staging tile's two halves.
#[device]
fn resident_step(q: u32) -> u32 {
    if q < 2 {
        q * STEP_WORDS
    } else if q == 2 {
        3 * STEP_WORDS
    } else {
        2 * STEP_WORDS + (q - 3) * 4096
    }
}

/// `acc` plus token `t0 + j`'s pick `k` in the fold: its expert's output at columns `c..c +
/// 4` (row and owner as [`fold_tokens`] looked them up into `stages`; one 8-byte load),
/// times its weight if `weighted` is 1.
#[device]
#[allow(clippy::too_many_arguments)]
fn fold_term(
    stages: &[u32],
    weights: &Sym<[f32]>,
    y: &Sym<[bf16]>,
    t0: u32,
    topk: u32,
    j: u32,
    k: u32,
    c: u32,
    hidden: u32,
    weighted: u32,
    acc: Vec4<f32>,
) -> Vec4<f32> {
    let i = j * topk + k;
    let wl = weights.local();
    // SAFETY: `i` is below 1024 (8 tokens of at most 128 picks); the pick's weight lies in
    // `weights` (`tokens x topk`) and its row below the owner's `capacity + tokens` rows of
    // `y` (`hidden` wide, a multiple of 8, so `c` is 8-byte aligned), as the host sized
    // them. Unchecked, the loads of the eight tokens carry no branches between them and are
    // all in flight at once.
    let row = unsafe { *stages.get_unchecked(i) };
    let ys = y.peer(unsafe { *stages.get_unchecked(1024 + i) });
    let v = unsafe { load_vec4(ys.get_unchecked(row * hidden + c)) };
    // Unweighted terms are times 1, exactly themselves.
    let w = if weighted == 1 {
        unsafe { *wl.get_unchecked(t0 * topk + i) }
    } else {
        1.0f32
    };
    vec4(
        extract(acc, 0) + w * extract(v, 0) as f32,
        extract(acc, 1) + w * extract(v, 1) as f32,
        extract(acc, 2) + w * extract(v, 2) as f32,
        extract(acc, 3) + w * extract(v, 3) as f32,
    )
}

/// Writes token `t`'s folded columns `c..c + 4` (`sum`) to `out` in bf16, after adding the
/// shared expert's output (`shared` 1: row `capacity + t` of `mine`) and then `extra`'s
/// (`with_extra` 1).
#[device]
#[allow(clippy::too_many_arguments)]
fn fold_store(
    out: &mut [bf16],
    mine: &[bf16],
    extra: &Sym<[f32]>,
    sum: Vec4<f32>,
    t: u32,
    c: u32,
    hidden: u32,
    capacity: u32,
    shared: u32,
    with_extra: u32,
) {
    let mut s0 = extract(sum, 0);
    let mut s1 = extract(sum, 1);
    let mut s2 = extract(sum, 2);
    let mut s3 = extract(sum, 3);
    if shared == 1 {
        let m = load_vec4(&mine[(capacity + t) * hidden + c]);
        s0 += extract(m, 0) as f32;
        s1 += extract(m, 1) as f32;
        s2 += extract(m, 2) as f32;
        s3 += extract(m, 3) as f32;
    }
    if with_extra == 1 {
        let e = load_vec4(&extra.local()[t * hidden + c]);
        s0 += extract(e, 0);
        s1 += extract(e, 1);
        s2 += extract(e, 2);
        s3 += extract(e, 3);
    }
    store_vec4(
        &out[t * hidden + c],
        vec4(s0 as bf16, s1 as bf16, s2 as bf16, s3 as bf16),
    );
}

/// Fold task `q` of [`moe_forward`]: tokens `MOE_FOLD_TOKENS q..`, each `out[t]` the sum of
/// its picks' weighted outputs in pick order (read from their owners' `y`; each pick's row
/// and owner first looked up into `stages`), then the shared expert's, rounded to bf16.
/// [`moe_backward`]'s combine is the same sum with `weighted` 0 (the weights are in its
/// rows already) and `extra` (`tokens x hidden` f32) added last when `with_extra` is 1.
#[device]
#[allow(clippy::too_many_arguments)]
fn fold_tokens(
    stages: &mut [u32],
    routing: &Sym<[u32]>,
    weights: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    out: &Sym<[bf16]>,
    y: &Sym<[bf16]>,
    q: u32,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    shared: u32,
    o_dest: u32,
    weighted: u32,
    extra: &Sym<[f32]>,
    with_extra: u32,
) {
    let lane = workitem_id_x();
    let lanes = workgroup_size_x();
    let local = experts / world_size();
    let picks = tokens * topk;
    let p = plan.local();
    let rl = routing.local();
    let o = out.local();
    let mine = y.local();
    let t0 = q * MOE_FOLD_TOKENS;
    let count = min(tokens - t0, MOE_FOLD_TOKENS);
    // At most 8 tokens x 128 picks: rows, then owners from word 1024.
    for i in (lane..count * topk).step_by(lanes) {
        let pick = t0 * topk + i;
        let e = rl[pick];
        stages[i] = p[o_dest + e] + rl[picks + pick];
        stages[1024 + i] = e / local;
    }
    barrier();
    // Four columns per lane and pass, of all eight tokens at once: their picks' loads are
    // independent, so eight of them are in flight (a past-the-end token reads the last one's
    // rows and is not stored).
    let last = count - 1;
    let zero = 0.0f32;
    for c in (lane * 4..hidden).step_by(lanes * 4) {
        let mut s0 = vec4(zero, zero, zero, zero);
        let mut s1 = s0;
        let mut s2 = s0;
        let mut s3 = s0;
        let mut s4 = s0;
        let mut s5 = s0;
        let mut s6 = s0;
        let mut s7 = s0;
        for k in 0..topk {
            s0 = fold_term(stages, weights, y, t0, topk, 0, k, c, hidden, weighted, s0);
            s1 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(1, last),
                k,
                c,
                hidden,
                weighted,
                s1,
            );
            s2 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(2, last),
                k,
                c,
                hidden,
                weighted,
                s2,
            );
            s3 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(3, last),
                k,
                c,
                hidden,
                weighted,
                s3,
            );
            s4 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(4, last),
                k,
                c,
                hidden,
                weighted,
                s4,
            );
            s5 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(5, last),
                k,
                c,
                hidden,
                weighted,
                s5,
            );
            s6 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(6, last),
                k,
                c,
                hidden,
                weighted,
                s6,
            );
            s7 = fold_term(
                stages,
                weights,
                y,
                t0,
                topk,
                min(7, last),
                k,
                c,
                hidden,
                weighted,
                s7,
            );
        }
        fold_store(
            o, mine, extra, s0, t0, c, hidden, capacity, shared, with_extra,
        );
        if count > 1 {
            fold_store(
                o,
                mine,
                extra,
                s1,
                t0 + 1,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
        if count > 2 {
            fold_store(
                o,
                mine,
                extra,
                s2,
                t0 + 2,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
        if count > 3 {
            fold_store(
                o,
                mine,
                extra,
                s3,
                t0 + 3,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
        if count > 4 {
            fold_store(
                o,
                mine,
                extra,
                s4,
                t0 + 4,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
        if count > 5 {
            fold_store(
                o,
                mine,
                extra,
                s5,
                t0 + 5,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
        if count > 6 {
            fold_store(
                o,
                mine,
                extra,
                s6,
                t0 + 6,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
        if count > 7 {
            fold_store(
                o,
                mine,
                extra,
                s7,
                t0 + 7,
                c,
                hidden,
                capacity,
                shared,
                with_extra,
            );
        }
    }
    // Every lane is done with the lookups before the next task overwrites them.
    barrier();
}

/// Words of [`moe_backward`]'s (and [`moe_backward_pipeline`]'s) `sync` buffer before its
/// counters: queue heads (pushes, router and expert tasks, combine, and the expert tasks' own
/// in the unfused sequence: tickets drawn past a queue's end carry over to the next launch),
/// a counter nobody signals, the counters of the rank's finished pushes and of its finished
/// router blocks, the pipeline's head of the router's tiles in the unfused sequence. Then: per
/// local expert, its gradient rows received; per row tile, its finished `dh` tiles (or `dh`
/// slabs, on the pipeline); per local expert (and the shared one), the same.
pub const MOE_BACKWARD_SYNC_HEAD_WORDS: u32 = 8;
const MOE_BW_NEVER: u32 = 4;
const MOE_BW_PUSHED: u32 = 5;
const MOE_BW_ROUTED: u32 = 6;
const MOE_BW_ROUTER_HEAD: u32 = 7;
/// Tokens per router block of [`moe_backward`]: small blocks, so that the logits' gradient
/// is spread over many workgroups.
pub const MOE_ROUTER_GRAD_TOKENS: u32 = 16;

/// The backward pass of [`moe_forward`] on every rank of the world, in one self-scheduled
/// persistent launch per rank, from the forward's saved state (`scores`, `weights`,
/// `routing`, `plan`, `recv`, `z`, `h`, `y`: its layout is reused, nothing is routed again)
/// and the output's gradient `dout` (`tokens x hidden` bf16). docs/moe.md has the math;
/// `kernels::moe` sizes the buffers and checks every argument. Phases, in the one launch:
/// 1. push tasks (128 send-list entries each, in the forward's send order): each pick's
///    weight gradient `dweights = <dout[t], y>` (its expert's output, read from the owner)
///    and its output gradient `bf16(w dout[t])` pushed into the owner's `dy` at the row the
///    forward used, counted on the owner's per-expert counter;
/// 2. router tasks, once the rank's pushes are done: per [`MOE_ROUTER_GRAD_TOKENS`] tokens
///    the logits' gradient (through the normalization, scale and softmax or sigmoid) into
///    `dlogits` (bf16); behind the expert rounds in the queue (by then long ready),
///    `dx_router = dlogits w_router` (f32) and this rank's part of `dw_router = dlogits^T x`
///    (f32; the world's gradient is the sum over the ranks, as for any replicated weight);
/// 3. expert tasks in rounds of [`MOE_ROUND_ROWS`] row tiles' worth, ordered as
///    [`moe_pipeline`]'s: the `dh` tiles of the round's row tiles (`dy w2`, 128 features,
///    into `dh` in f32; then the SwiGLU backward into `dz`: gate gradients, then up
///    gradients, `2 ffn` columns, bf16), gated on all of their expert's gradient rows; the
///    `dx` tiles of the row tiles `lag / MOE_ROUND_ROWS + 1` rounds before, rounded up
///    (`dz w1` into `dxe`, bf16), gated on their row tile's `dh` tiles. Then per expert the
///    weight gradients (bf16), a task per block of 128 rows ([`block_products`]): `dw2 =
///    dy^T h`, gated like `dh`, and `dw1 = dz^T x_e`, gated on all of the expert's `dh`
///    tiles. The shared expert's gradient rows are `dout` itself (nothing to wait for);
///    its weights' gradients (`dws1`, `dws2`) are this rank's part, like the router's;
/// 4. after a team barrier, the combine: `dx[t]` = its picks' `dxe` rows read from their
///    owners, summed in pick order, then the shared expert's, then `dx_router`, in bf16.
/// Every sum has a fixed order: the results do not depend on timing or workgroup counts.
/// `phases` (bits: 1 pushes, 2 router, 4 experts, 8 combine) selects what the launch runs, as
/// [`moe_forward`]'s does (15: the whole pass; one bit per launch, in order: the unfused
/// baseline). `sync` is zero at launch and zeroed again at the end. Launch with 8 subgroups.
/// `STAGED = 1` stores bf16 tiles through a staging tile beside the ring (16-byte stores,
/// [`store_tile_bf16`]), which serves the `dh` and `dx` tiles' long products as a third
/// stage before it stages their results, and keeps a weight-gradient block's `op(A)` in
/// place up to five steps deep ([`block_products`]); `STAGED = 0` stores them from the
/// accumulators and has the ring alone, the 64 KiB of LDS gfx942 gives a workgroup (the
/// scheduler's words lent by the ring's end).
#[kernel(
    max_workgroup_size = 512,
    max_subgroups = 8,
    min_resident = 2,
    scheduler_scratch = stages,
    instances(STAGED = 1),
    instances(STAGED = 0)
)]
#[allow(clippy::too_many_arguments)]
pub fn moe_backward<const STAGED: u32>(
    team: &Team,
    x: &Sym<[bf16]>,
    dout: &Sym<[bf16]>,
    w_router: &Sym<[bf16]>,
    w1: &Sym<[bf16]>,
    w2: &Sym<[bf16]>,
    ws1: &Sym<[bf16]>,
    ws2: &Sym<[bf16]>,
    dx: &Sym<[bf16]>,
    dw_router: &Sym<[f32]>,
    dw1: &Sym<[bf16]>,
    dw2: &Sym<[bf16]>,
    dws1: &Sym<[bf16]>,
    dws2: &Sym<[bf16]>,
    scores: &Sym<[f32]>,
    weights: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    plan: &Sym<[u32]>,
    recv: &Sym<[bf16]>,
    z: &Sym<[bf16]>,
    h: &Sym<[bf16]>,
    y: &Sym<[bf16]>,
    dweights: &Sym<[f32]>,
    dlogits: &Sym<[bf16]>,
    dx_router: &Sym<[f32]>,
    dy: &Sym<[bf16]>,
    dh: &Sym<[f32]>,
    dz: &Sym<[bf16]>,
    dxe: &Sym<[bf16]>,
    sync: &Sym<[u32]>,
    tokens: u32,
    hidden: u32,
    ffn: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    max_tiles: u32,
    o_send: u32,
    o_dest: u32,
    o_local: u32,
    o_status: u32,
    o_tiles: u32,
    o_list: u32,
    lag: u32,
    shared: u32,
    sigmoid: u32,
    normalize: u32,
    scale: f32,
    phases: u32,
) {
    // The ring, then (`STAGED = 1`) the bf16 staging tile from word `2 * STEP_WORDS` and a
    // third step of a weight-gradient block's `op(A)` from word `3 * STEP_WORDS`: 112 KiB,
    // two workgroups to a processor.
    let stages = shared_array::<u32, { 2 * STEP_WORDS + STAGED * 3 * STEP_WORDS / 2 }>();
    let staging = shared_view::<bf16, { 4 * STEP_WORDS + STAGED * 3 * STEP_WORDS }>(stages);
    start_barrier();
    let local = experts / world_size();
    let blocks = (tokens + 127) / 128;
    let picks = tokens * topk;
    let heads = sync.local();
    let row_tiles = plan.local()[o_status];
    let ok = plan.local()[o_status + 1];
    let pushes = if ok == 1 && (phases & 1) == 1 {
        (picks + 127) / 128
    } else {
        0
    };
    let dh_tiles = (ffn + 127) / 128;
    let h_tiles = (hidden + 127) / 128;
    // Rounds of `MOE_ROUND_ROWS` row tiles' worth, as `moe_pipeline`'s: the `dh` tiles of an
    // expert's row tiles go column by column, so that those reading the same columns of
    // `w2` run at once, and the `dx` tiles `lag_rounds` later likewise.
    let round_rows = MOE_ROUND_ROWS;
    let lag_rounds = round_lag(lag);
    let round = round_rows * (dh_tiles + h_tiles);
    // Compute tasks, in queue order: the router's gradient blocks, the expert rounds, the
    // router's tiles (by then long ready), the weight gradients.
    let grad_blocks = (tokens + MOE_ROUTER_GRAD_TOKENS - 1) / MOE_ROUTER_GRAD_TOKENS;
    let router = ok == 1 && (phases & 2) == 2;
    let grad_tasks = if router { grad_blocks } else { 0 };
    let router_tiles = if router {
        (blocks + (experts + 127) / 128) * h_tiles
    } else {
        0
    };
    let expert_rounds = if ok == 1 && (phases & 4) == 4 && row_tiles > 0 {
        round_slots(row_tiles, dh_tiles, h_tiles, lag_rounds)
    } else {
        0
    };
    // Weight-gradient tasks: a block of 128 rows of `dw2`, then of `dw1`, per expert.
    let w2_blocks = h_tiles;
    let per_expert = w2_blocks + (2 * ffn + 127) / 128;
    let wgrad_tasks = if ok == 1 && (phases & 4) == 4 {
        (local + shared) * per_expert
    } else {
        0
    };
    let counted = MOE_BACKWARD_SYNC_HEAD_WORDS + local;
    let expert_counted = counted + max_tiles;
    dispatch_by_ticket(
        &heads[0],
        pushes,
        &heads[if phases == 4 { 3 } else { 1 }],
        grad_tasks + expert_rounds + router_tiles + wgrad_tasks,
        Scope::System,
        |t| {
            (
                &sync.local()[backward_gate(
                    plan,
                    t,
                    0,
                    grad_tasks,
                    expert_rounds,
                    router_tiles,
                    grad_blocks,
                    (picks + 127) / 128,
                    row_tiles,
                    dh_tiles,
                    h_tiles,
                    lag_rounds,
                    local,
                    max_tiles,
                    per_expert,
                    w2_blocks,
                    o_local,
                    o_tiles,
                )],
                backward_gate(
                    plan,
                    t,
                    1,
                    grad_tasks,
                    expert_rounds,
                    router_tiles,
                    grad_blocks,
                    (picks + 127) / 128,
                    row_tiles,
                    dh_tiles,
                    h_tiles,
                    lag_rounds,
                    local,
                    max_tiles,
                    per_expert,
                    w2_blocks,
                    o_local,
                    o_tiles,
                ),
            )
        },
        |t| {
            push_task(
                dout, routing, weights, plan, y, dy, dweights, sync, t, tokens, hidden, experts,
                topk, o_send, o_dest, o_list,
            );
        },
        |t| {
            // Slices the tiles read and write; `spare`, `spare16` stand in for the output
            // of the type a tile does not store.
            let spare = dh.local();
            let spare16 = dz.local();
            let gl = dlogits.local();
            let dzl = dz.local();
            if t < grad_tasks {
                router_gradient(
                    scores, routing, dweights, dlogits, t, tokens, experts, topk, sigmoid,
                    normalize, scale,
                );
                signal(&sync.local()[MOE_BW_ROUTED], 1, Scope::Agent);
            } else if t < grad_tasks + expert_rounds {
                let e = t - grad_tasks;
                let first_pass = e % round < round_rows * dh_tiles;
                let live =
                    expert_slot_live(e, dh_tiles, h_tiles, round_rows, lag_rounds, row_tiles);
                let g = round_tile(
                    plan, e, 0, dh_tiles, h_tiles, lag_rounds, row_tiles, o_local, o_tiles,
                );
                let c = round_tile(
                    plan, e, 1, dh_tiles, h_tiles, lag_rounds, row_tiles, o_local, o_tiles,
                );
                let p = plan.local();
                let j = if live { p[o_tiles + g] } else { local };
                let first = p[o_local + 3 * j];
                let end = first + p[o_local + 3 * j + 1];
                let m0 = first + (g - p[o_local + 3 * j + 2]) * 128;
                if live && first_pass {
                    let f0 = c * 128;
                    if j == local {
                        // The shared expert's gradient rows are `dout`'s.
                        let a = dout.local();
                        let w = ws2.local();
                        swiglu_backward_tile(
                            stages,
                            a,
                            w,
                            m0 - capacity,
                            tokens,
                            z,
                            dh,
                            dz,
                            m0,
                            end,
                            f0,
                            ffn,
                            hidden,
                            STAGED,
                        );
                    } else {
                        let a = dy.local();
                        let w = w2.local();
                        let at = (j as u64) * (hidden as u64) * (ffn as u64);
                        swiglu_backward_tile(
                            stages,
                            a,
                            &w[at..],
                            m0,
                            end,
                            z,
                            dh,
                            dz,
                            m0,
                            end,
                            f0,
                            ffn,
                            hidden,
                            STAGED,
                        );
                    }
                    signal(&sync.local()[counted + g], 1, Scope::Agent);
                    signal(&sync.local()[expert_counted + j], 1, Scope::Agent);
                }
                if live && !first_pass {
                    let n0 = c * 128;
                    let o = dxe.local();
                    if j == local {
                        let w = ws1.local();
                        product_tile(
                            stages,
                            dzl,
                            w,
                            m0,
                            n0,
                            end,
                            hidden,
                            2 * ffn,
                            0,
                            0,
                            spare,
                            o,
                            1,
                            staging,
                            STAGED,
                        );
                    } else {
                        let w = w1.local();
                        let at = (j as u64) * (2 * ffn as u64) * (hidden as u64);
                        product_tile(
                            stages,
                            dzl,
                            &w[at..],
                            m0,
                            n0,
                            end,
                            hidden,
                            2 * ffn,
                            0,
                            0,
                            spare,
                            o,
                            1,
                            staging,
                            STAGED,
                        );
                    }
                }
            } else if t < grad_tasks + expert_rounds + router_tiles {
                let u = t - grad_tasks - expert_rounds;
                if u < blocks * h_tiles {
                    let wr = w_router.local();
                    let o = dx_router.local();
                    product_tile(
                        stages,
                        gl,
                        wr,
                        u / h_tiles * 128,
                        u % h_tiles * 128,
                        tokens,
                        hidden,
                        experts,
                        0,
                        0,
                        o,
                        spare16,
                        0,
                        staging,
                        STAGED,
                    );
                } else {
                    let u = u - blocks * h_tiles;
                    let xl = x.local();
                    let o = dw_router.local();
                    product_tile(
                        stages,
                        gl,
                        xl,
                        u / h_tiles * 128,
                        u % h_tiles * 128,
                        experts,
                        hidden,
                        tokens,
                        1,
                        0,
                        o,
                        spare16,
                        0,
                        staging,
                        STAGED,
                    );
                }
            } else {
                let u = t - grad_tasks - expert_rounds - router_tiles;
                let j = u / per_expert;
                let i = u % per_expert;
                let p = plan.local();
                let first = p[o_local + 3 * j];
                let rows = p[o_local + 3 * j + 1];
                let hl = h.local();
                // A block of 128 rows of `dw2` (`dy^T h`) or `dw1` (`dz^T x_e`), all columns.
                if i < w2_blocks && j == local {
                    // The shared expert: gradient rows `dout`, input rows `x`.
                    let a = dout.local();
                    let o = dws2.local();
                    block_products(
                        stages,
                        a,
                        &hl[first * ffn..],
                        i * 128,
                        hidden,
                        ffn,
                        rows,
                        1,
                        0,
                        spare,
                        o,
                        1,
                        staging,
                        STAGED,
                    );
                }
                if i < w2_blocks && j != local {
                    let a = dy.local();
                    let o = dw2.local();
                    let to = (j as u64) * (hidden as u64) * (ffn as u64);
                    block_products(
                        stages,
                        &a[first * hidden..],
                        &hl[first * ffn..],
                        i * 128,
                        hidden,
                        ffn,
                        rows,
                        1,
                        0,
                        spare,
                        &mut o[to..],
                        1,
                        staging,
                        STAGED,
                    );
                }
                if i >= w2_blocks && j == local {
                    let b = x.local();
                    let o = dws1.local();
                    block_products(
                        stages,
                        &dzl[first * 2 * ffn..],
                        b,
                        (i - w2_blocks) * 128,
                        2 * ffn,
                        hidden,
                        rows,
                        1,
                        0,
                        spare,
                        o,
                        1,
                        staging,
                        STAGED,
                    );
                }
                if i >= w2_blocks && j != local {
                    let b = recv.local();
                    let o = dw1.local();
                    let to = (j as u64) * (2 * ffn as u64) * (hidden as u64);
                    block_products(
                        stages,
                        &dzl[first * 2 * ffn..],
                        &b[first * hidden..],
                        (i - w2_blocks) * 128,
                        2 * ffn,
                        hidden,
                        rows,
                        1,
                        0,
                        spare,
                        &mut o[to..],
                        1,
                        staging,
                        STAGED,
                    );
                }
            }
        },
    );
    moe_combine(
        stages, routing, weights, plan, dx, dxe, dx_router, sync, tokens, hidden, experts, topk,
        capacity, max_tiles, shared, o_dest, ok, phases,
    );
}

/// What compute task `t` of [`moe_backward`] waits for: the index of its counter in `sync`
/// (`part` 0) or the count it waits for (`part` 1). A router block waits for the rank's
/// pushes, the router's tiles for its blocks; a `dh` tile and a `dw2` block of a routed
/// expert for all of the expert's gradient rows, a `dx` tile for its row tile's `dh` tiles,
/// a `dw1` block for all of its expert's; the shared expert's `dh` and `dw2` tasks and the
/// empty slots of the first and last rounds wait for nothing. `lag` counts rounds of
/// [`MOE_ROUND_ROWS`] row tiles' worth.
#[device]
#[allow(clippy::too_many_arguments)]
fn backward_gate(
    plan: &Sym<[u32]>,
    t: u32,
    part: u32,
    grad_tasks: u32,
    expert_rounds: u32,
    router_tiles: u32,
    grad_blocks: u32,
    pushes: u32,
    row_tiles: u32,
    dh_tiles: u32,
    h_tiles: u32,
    lag: u32,
    local: u32,
    max_tiles: u32,
    per_expert: u32,
    w2_blocks: u32,
    o_local: u32,
    o_tiles: u32,
) -> u32 {
    let p = plan.local();
    let counted = MOE_BACKWARD_SYNC_HEAD_WORDS + local;
    let mut counter = MOE_BW_NEVER;
    let mut expected = 0u32;
    if t < grad_tasks {
        counter = MOE_BW_PUSHED;
        expected = pushes;
    } else if t < grad_tasks + expert_rounds {
        let e = t - grad_tasks;
        let rows = MOE_ROUND_ROWS;
        let first_pass = e % (rows * (dh_tiles + h_tiles)) < rows * dh_tiles;
        if expert_slot_live(e, dh_tiles, h_tiles, rows, lag, row_tiles) {
            let g = round_tile(
                plan, e, 0, dh_tiles, h_tiles, lag, row_tiles, o_local, o_tiles,
            );
            let j = p[o_tiles + g];
            if first_pass && j != local {
                counter = MOE_BACKWARD_SYNC_HEAD_WORDS + j;
                expected = p[o_local + 3 * j + 1];
            }
            if !first_pass {
                counter = counted + g;
                expected = dh_tiles;
            }
        }
    } else if t < grad_tasks + expert_rounds + router_tiles {
        counter = MOE_BW_ROUTED;
        expected = grad_blocks;
    } else {
        let u = t - grad_tasks - expert_rounds - router_tiles;
        let j = u / per_expert;
        let rows = p[o_local + 3 * j + 1];
        if u % per_expert < w2_blocks {
            if j != local {
                counter = MOE_BACKWARD_SYNC_HEAD_WORDS + j;
                expected = rows;
            }
        } else {
            counter = counted + max_tiles + j;
            expected = (rows + 127) / 128 * dh_tiles;
        }
    }
    if part == 0 { counter } else { expected }
}

/// Push task `q` of [`moe_backward`] and [`moe_backward_pipeline`]: [`push_gradients`], then
/// the rows counted on their owners' per-expert counters and the task on the rank's.
#[device]
#[allow(clippy::too_many_arguments)]
fn push_task(
    dout: &Sym<[bf16]>,
    routing: &Sym<[u32]>,
    weights: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    y: &Sym<[bf16]>,
    dy: &Sym<[bf16]>,
    dweights: &Sym<[f32]>,
    sync: &Sym<[u32]>,
    q: u32,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    o_send: u32,
    o_dest: u32,
    o_list: u32,
) {
    push_gradients(
        dout, routing, weights, plan, y, dy, dweights, q, tokens, hidden, experts, topk, o_dest,
        o_list,
    );
    let picks = tokens * topk;
    count_pushed_rows(
        routing,
        plan,
        sync,
        MOE_BACKWARD_SYNC_HEAD_WORDS,
        q * 128,
        min(picks, q * 128 + 128),
        team_rank(),
        experts,
        o_send,
        o_list,
        u32::MAX,
    );
    signal(&sync.local()[MOE_BW_PUSHED], 1, Scope::Agent);
}

/// Push task `q` of [`moe_backward`]: for send-list entries `128 q..` (a subgroup per pick),
/// the pick's weight gradient `<dout[t], y>` (its expert's output row, read from the owner;
/// lanes' partial sums combined in a fixed butterfly) into `dweights`, and its output
/// gradient `w dout[t]`, rounded to bf16, into the owner's `dy` at the row the forward
/// dispatched the token to.
#[device]
#[allow(clippy::too_many_arguments)]
fn push_gradients(
    dout: &Sym<[bf16]>,
    routing: &Sym<[u32]>,
    weights: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    y: &Sym<[bf16]>,
    dy: &Sym<[bf16]>,
    dweights: &Sym<[f32]>,
    q: u32,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    o_dest: u32,
    o_list: u32,
) {
    let local = experts / world_size();
    let picks = tokens * topk;
    let first = q * 128;
    let last = min(picks, first + 128);
    let p = plan.local();
    let rl = routing.local();
    let g = dout.local();
    let lane = subgroup_lane();
    let subgroups = workgroup_size_x() / subgroup_size();
    for i in (first + subgroup_id()..last).step_by(subgroups) {
        let pick = p[o_list + i];
        let e = rl[pick];
        let row = p[o_dest + e] + rl[picks + pick];
        let t = pick / topk;
        let ys = y.peer(e / local);
        let to = dy.peer(e / local);
        let w = weights.local()[pick];
        let mut sum = 0.0f32;
        // Eight consecutive elements a lane (`hidden` is a multiple of 8): one 16-byte load
        // of `dout` and one of `y`, both before the stores (which may alias them for all
        // the compiler knows), and two 8-byte stores.
        for c in (lane * 8..hidden).step_by(subgroup_size() * 8) {
            let at = t * hidden + c;
            let out = row * hidden + c;
            // SAFETY: the host checked that `dout` holds `tokens x hidden` elements, `y` and
            // `dy` at least `capacity` rows of `hidden`; the forward's rows are below
            // `capacity`, and `c + 8 <= hidden`; both runs start 16-byte aligned.
            unsafe {
                let dv = load_vec8(g.get_unchecked(at));
                let yv = load_vec8(ys.get_unchecked(out));
                let d0 = extract(dv, 0) as f32;
                let d1 = extract(dv, 1) as f32;
                let d2 = extract(dv, 2) as f32;
                let d3 = extract(dv, 3) as f32;
                let d4 = extract(dv, 4) as f32;
                let d5 = extract(dv, 5) as f32;
                let d6 = extract(dv, 6) as f32;
                let d7 = extract(dv, 7) as f32;
                let y0 = extract(yv, 0) as f32;
                let y1 = extract(yv, 1) as f32;
                let y2 = extract(yv, 2) as f32;
                let y3 = extract(yv, 3) as f32;
                let y4 = extract(yv, 4) as f32;
                let y5 = extract(yv, 5) as f32;
                let y6 = extract(yv, 6) as f32;
                let y7 = extract(yv, 7) as f32;
                sum += ((d0 * y0 + d1 * y1) + (d2 * y2 + d3 * y3))
                    + ((d4 * y4 + d5 * y5) + (d6 * y6 + d7 * y7));
                let low = vec4(
                    (w * d0) as bf16,
                    (w * d1) as bf16,
                    (w * d2) as bf16,
                    (w * d3) as bf16,
                );
                let high = vec4(
                    (w * d4) as bf16,
                    (w * d5) as bf16,
                    (w * d6) as bf16,
                    (w * d7) as bf16,
                );
                store_vec4(to.get_unchecked_mut(out), low);
                store_vec4(to.get_unchecked_mut(out + 4), high);
            }
        }
        let sum = subgroup_sum(sum);
        if lane == 0 {
            dweights.local()[pick] = sum;
        }
    }
}

/// Router block `b` of [`moe_backward`]: the gradient of the logits of tokens
/// `MOE_ROUTER_GRAD_TOKENS b..`, one lane
/// per (token, expert), into `dlogits` (bf16). With the picks' raw scores `r_i` (softmax
/// probabilities or sigmoids), their sum `S` (1 without normalization) and their weights'
/// gradients `dw_i`: `dr_i = scale (dw_i - sum_j dw_j r_j / S) / S` (without normalization
/// `scale dw_i`); softmax: `dl_e = p_e (dr_e - sum_i dr_i r_i)` (`dr_e` 0 off the picks);
/// sigmoid: `dl_e = dr_e s_e (1 - s_e)`.
#[device]
#[allow(clippy::too_many_arguments)]
fn router_gradient(
    scores: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    dweights: &Sym<[f32]>,
    dlogits: &Sym<[bf16]>,
    b: u32,
    tokens: u32,
    experts: u32,
    topk: u32,
    sigmoid: u32,
    normalize: u32,
    scale: f32,
) {
    let t0 = b * MOE_ROUTER_GRAD_TOKENS;
    let count = min(tokens - t0, MOE_ROUTER_GRAD_TOKENS);
    let sl = scores.local();
    let rl = routing.local();
    let dw = dweights.local();
    let out = dlogits.local();
    for i in (workitem_id_x()..count * experts).step_by(workgroup_size_x()) {
        let t = t0 + i / experts;
        let e = i % experts;
        let mut total = 0.0f32;
        let mut weighted = 0.0f32;
        for k in 0..topk {
            let r = sl[t * experts + rl[t * topk + k]];
            total += r;
            weighted += dw[t * topk + k] * r;
        }
        let sum = if normalize == 1 { total } else { 1.0 };
        let mean = if normalize == 1 {
            weighted / total
        } else {
            0.0
        };
        let mut dr_e = 0.0f32;
        let mut spread = 0.0f32;
        for k in 0..topk {
            let pick = rl[t * topk + k];
            let dr = scale * (dw[t * topk + k] - mean) / sum;
            spread += dr * sl[t * experts + pick];
            if pick == e {
                dr_e = dr;
            }
        }
        let s = sl[t * experts + e];
        let grad = if sigmoid == 1 {
            dr_e * s * (1.0 - s)
        } else {
            s * (dr_e - spread)
        };
        out[t * experts + e] = grad as bf16;
    }
}

/// A `dh` tile of [`moe_backward`]: output rows `m0..end` (rows `a_m0..a_rows` of the
/// expert's output gradients `a`) times `w` (`w2`: `hidden x ffn`), features `f0..f0 +
/// 128`, into `dh` (f32); then the SwiGLU backward of those features from the forward's `z`:
/// `dgate = dh up silu'(gate)` into `dz` column `f`, `dup = dh silu(gate)` into column `ffn +
/// f`, rounded to bf16. `staged` as [`product_tile`]'s: 1 gives the product a third stage.
#[device]
#[allow(clippy::too_many_arguments)]
fn swiglu_backward_tile(
    stages: &mut [u32],
    a: &[bf16],
    w: &[bf16],
    a_m0: u32,
    a_rows: u32,
    z: &Sym<[bf16]>,
    dh: &Sym<[f32]>,
    dz: &Sym<[bf16]>,
    m0: u32,
    end: u32,
    f0: u32,
    ffn: u32,
    hidden: u32,
    staged: u32,
) {
    let acc = tile_product(
        stages,
        a,
        w,
        a_m0,
        f0,
        a_rows,
        ffn,
        hidden,
        0,
        0,
        0,
        2,
        2 + staged,
    );
    let row0 = slab_row(m0);
    let dhl = dh.local();
    let dzl = dz.local();
    store_slab(dhl, dzl, 0, acc, row0, f0, end, ffn);
    barrier();
    let zl = z.local();
    let rows = min(end - m0, 128);
    let cols = min(ffn - f0, 128);
    // Four rows of a feature a lane ([`swiglu_backward_rows`]: their loads before any store).
    for i in (workitem_id_x()..(rows + 3) / 4 * 128).step_by(workgroup_size_x()) {
        let c = i & 127;
        if c < cols {
            swiglu_backward_rows(zl, dhl, dzl, m0 + (i >> 7) * 4, end - 1, f0 + c, ffn);
        }
    }
}

/// Words of a rank's tensor maps in the `maps` argument of [`moe_backward_pipeline`], 16
/// each, in this order: the operands read row by row as `a` (boxes of 128 rows x 64) —
/// `dy`, `dout`, `dz`, `dlogits` —, the same four read as `a^T` (64 x 64), then the `b`
/// operands (64 x 64): `w2`, `ws2`, `w1`, `ws1`, `w_router`, `x`, `h`, `recv`; then the
/// weight gradients stored by tensor stores (boxes of [`MOE_STORE_BOX_ROWS`] x 64): `dw2`
/// (`local hidden x ffn`, the experts' stacked), `dws2`, `dw1` (`local 2 ffn x hidden`),
/// `dws1`.
pub const MOE_BACKWARD_MAP_WORDS: u32 = 320;
/// Rows of the boxes of [`moe_backward_pipeline`]'s tensor stores: a consumer subgroup's
/// slab.
pub const MOE_STORE_BOX_ROWS: u32 = 16;
const BW_MAP_DY: u32 = 0;
const BW_MAP_DOUT: u32 = 16;
const BW_MAP_DZ: u32 = 32;
const BW_MAP_DLOGITS: u32 = 48;
/// Where a map of `a` read as `a^T` lies past the same tensor's map read row by row.
const BW_MAP_TRANSPOSED: u32 = 64;
const BW_MAP_W2: u32 = 128;
const BW_MAP_WS2: u32 = 144;
const BW_MAP_W1: u32 = 160;
const BW_MAP_WS1: u32 = 176;
const BW_MAP_ROUTER: u32 = 192;
const BW_MAP_X: u32 = 208;
const BW_MAP_H: u32 = 224;
const BW_MAP_RECV: u32 = 240;
/// The map a tensor store of a weight gradient uses: this, plus 32 for `dw1` (over `dw2`),
/// plus 16 for the shared expert's.
const BW_MAP_DW2_STORE: u32 = 256;
/// The kinds of [`moe_backward_pipeline`]'s tile tasks.
const BW_DH: u32 = 0;
const BW_DX: u32 = 1;
const BW_ROUTER_DX: u32 = 2;
const BW_ROUTER_DW: u32 = 3;
const BW_DW2: u32 = 4;
const BW_DW1: u32 = 5;
/// Words a task slot of [`moe_backward_pipeline`] holds: the task, its kind, expert, first
/// output row and column, output rows and columns, tiles, 64-deep steps a tile, the rows of
/// the last step to keep (64: all, and nothing to zero), its row tile.
const BW_TASK_WORDS: u32 = 11;
/// Added to the index of a tile task of [`moe_backward_pipeline`] in its trace records, which
/// tells them from the router blocks' and the combine's (other queues, the same indices).
pub const MOE_TILE_TRACE: u32 = 2147483648;
/// Elements of a consumer subgroup's staging slab in [`moe_backward_pipeline`]: 16 rows by
/// 128 columns, as two swizzled boxes of 16 x 64 (what a tensor store reads), 4 KiB apart
/// from a 1024-byte aligned start.
const SLAB_ELEMENTS: u32 = 2048;

/// [`moe_backward`] with its tiles on a warp-specialised pipeline fed by tensor copies (CUDA
/// and the CPU device): the same arguments plus `maps` (each rank's
/// [`MOE_BACKWARD_MAP_WORDS`] words of maps of its own tensors), the same work and results,
/// bitwise. The pushes and router blocks run on whole workgroups first; then every GEMM tile
/// runs as [`moe_pipeline`]'s do, 128 rows x 256 columns, in one queue: the expert rounds
/// (`dh` tiles of [`MOE_ROUND_ROWS`] row tiles, `dx` tiles of those `lag / MOE_ROUND_ROWS +
/// 1` rounds before, ordered as the forward's),
/// the router's tiles, the weight gradients (a task per 128-row block of an expert's `dw2`
/// or `dw1`, its tiles one after the other). Subgroup 0 claims a task by ticket, waits
/// (bounded) for its gate, hands it to the consumers with what they need (a task slot of
/// [`BW_TASK_WORDS`]) and copies its steps into a ring of four 48 KiB stages; groups 1 and 2
/// multiply 64 rows each and store their slabs (bf16 through a slab of shared memory per
/// subgroup: the weight gradients by tensor stores that run on while the subgroup takes its
/// next tile, the rest whole rows at a time; an expert's last tile of at most 64 rows too,
/// its second group multiplying padding). Where a tile's last step reaches past its expert's rows
/// (the weight gradients, summed over one expert's rows) or weights (`dh`, `dx` when
/// `hidden` or `2 ffn` is not a multiple of 64), the consumers zero those rows of the stage
/// before multiplying, where a tensor copy would have read the next expert's. A `dh`
/// subgroup forms `dz` of its 16 rows from the `dh` it stored and signals: a `dx` tile waits
/// for the eight slab signals of each `dh` tile of its row tile. Then, after a team barrier,
/// the combine on whole workgroups. One workgroup of 12 subgroups per processor; for the
/// tiles the producer group gives registers to the consumer groups (104 / 200).
#[kernel(max_workgroup_size = 384, max_subgroups = 12, min_resident = 1)]
#[allow(clippy::too_many_arguments)]
pub fn moe_backward_pipeline(
    team: &Team,
    x: &Sym<[bf16]>,
    dout: &Sym<[bf16]>,
    w_router: &Sym<[bf16]>,
    w1: &Sym<[bf16]>,
    w2: &Sym<[bf16]>,
    ws1: &Sym<[bf16]>,
    ws2: &Sym<[bf16]>,
    dx: &Sym<[bf16]>,
    dw_router: &Sym<[f32]>,
    dw1: &Sym<[bf16]>,
    dw2: &Sym<[bf16]>,
    dws1: &Sym<[bf16]>,
    dws2: &Sym<[bf16]>,
    scores: &Sym<[f32]>,
    weights: &Sym<[f32]>,
    routing: &Sym<[u32]>,
    plan: &Sym<[u32]>,
    recv: &Sym<[bf16]>,
    z: &Sym<[bf16]>,
    h: &Sym<[bf16]>,
    y: &Sym<[bf16]>,
    dweights: &Sym<[f32]>,
    dlogits: &Sym<[bf16]>,
    dx_router: &Sym<[f32]>,
    dy: &Sym<[bf16]>,
    dh: &Sym<[f32]>,
    dz: &Sym<[bf16]>,
    dxe: &Sym<[bf16]>,
    sync: &Sym<[u32]>,
    maps: &Sym<[u64]>,
    tokens: u32,
    hidden: u32,
    ffn: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    max_tiles: u32,
    o_send: u32,
    o_dest: u32,
    o_local: u32,
    o_status: u32,
    o_tiles: u32,
    o_list: u32,
    lag: u32,
    shared: u32,
    sigmoid: u32,
    normalize: u32,
    scale: f32,
    phases: u32,
) {
    // The small arrays first, in the first KiB (each large one is aligned to 1 KiB): the ring
    // and the slabs then end at the limit of shared memory.
    let full = shared_array::<u64, FUSED_STAGES>();
    let empty = shared_array::<u64, FUSED_STAGES>();
    let info = shared_array::<u32, { TASK_SLOTS * BW_TASK_WORDS }>();
    let task_full = shared_array::<u64, TASK_SLOTS>();
    let task_empty = shared_array::<u64, TASK_SLOTS>();
    let zeroed = shared_array::<u64, 1>();
    let stages = shared_array::<u32, FUSED_RING_WORDS>();
    let slabs = shared_array::<bf16, { 8 * SLAB_ELEMENTS }>();
    start_barrier();
    if workitem_id_x() == 0 {
        // Every lane of both consumer groups.
        mbar_init(&zeroed[0], 256);
    }
    init_fused_ring(full, empty, task_full, task_empty);
    let local = experts / world_size();
    let blocks = (tokens + 127) / 128;
    let picks = tokens * topk;
    let heads = sync.local();
    let row_tiles = plan.local()[o_status];
    let ok = plan.local()[o_status + 1];
    let pushes = if ok == 1 && (phases & 1) == 1 {
        (picks + 127) / 128
    } else {
        0
    };
    let grad_blocks = (tokens + MOE_ROUTER_GRAD_TOKENS - 1) / MOE_ROUTER_GRAD_TOKENS;
    let router = ok == 1 && (phases & 2) == 2;
    let grad_tasks = if router { grad_blocks } else { 0 };
    // Phases 1 and 2 on whole workgroups: the pushes, then the router blocks.
    dispatch_by_ticket(
        &heads[0],
        pushes,
        &heads[1],
        grad_tasks,
        Scope::System,
        |t| (&sync.local()[MOE_BW_PUSHED], (picks + 127) / 128),
        |t| {
            push_task(
                dout, routing, weights, plan, y, dy, dweights, sync, t, tokens, hidden, experts,
                topk, o_send, o_dest, o_list,
            );
        },
        |t| {
            router_gradient(
                scores, routing, dweights, dlogits, t, tokens, experts, topk, sigmoid, normalize,
                scale,
            );
            // The router's tiles read `dlogits` by tensor copies.
            fence_proxy_async();
            signal(&sync.local()[MOE_BW_ROUTED], 1, Scope::Agent);
        },
    );
    // The tiles, 128 rows x 256 columns: rounds of `dh` and `dx` tiles, the router's, the
    // weight gradients' blocks.
    let dh_tiles = (ffn + 255) / 256;
    let x_tiles = (hidden + 255) / 256;
    // Rounds of `MOE_ROUND_ROWS` row tiles' worth, as the forward's.
    let round_rows = MOE_ROUND_ROWS;
    let lag_rounds = round_lag(lag);
    let round = round_rows * (dh_tiles + x_tiles);
    let experts_on = ok == 1 && (phases & 4) == 4;
    let expert_rounds = if experts_on && row_tiles > 0 {
        round_slots(row_tiles, dh_tiles, x_tiles, lag_rounds)
    } else {
        0
    };
    let router_dx = if router { blocks * x_tiles } else { 0 };
    let router_tiles = if router {
        router_dx + (experts + 127) / 128 * x_tiles
    } else {
        0
    };
    let w2_blocks = (hidden + 127) / 128;
    let per_expert = w2_blocks + (2 * ffn + 127) / 128;
    let wgrad_tasks = if experts_on {
        (local + shared) * per_expert
    } else {
        0
    };
    let tile_tasks = expert_rounds + router_tiles + wgrad_tasks;
    let counted = MOE_BACKWARD_SYNC_HEAD_WORDS + local;
    let expert_counted = counted + max_tiles;
    // The router blocks' plain shared accesses come before the tensor copies'.
    fence_proxy_async_shared();
    barrier();
    let sg = subgroup_id();
    let group = sg >> 2;
    if group == 0 {
        // The producer group gives registers to the consumers' two accumulators (its other
        // three subgroups only wait at the barrier below), as `tp_pipeline`'s does.
        regs_dec(104);
        if sg == 0 {
            let own = maps.local();
            let mut it = 0;
            let mut posted = 0;
            let mut more = true;
            while more {
                let t = subgroup_claim(
                    &heads[if phases == 2 { MOE_BW_ROUTER_HEAD } else { 3 }],
                    tile_tasks,
                );
                let mut go = t < tile_tasks;
                let p = plan.local();
                // What the task is (one slot's words), where its operands are (maps, first rows
                // of `a` and `b`, transposed `a`), what it waits for.
                let mut kind = BW_DH;
                let mut j = 0;
                let mut g = 0;
                let mut m0 = 0;
                let mut n0 = 0;
                let mut m = 0;
                let mut n = 0;
                let mut tiles = 1;
                let mut k = 0;
                let mut stacked = false;
                let mut a_map = BW_MAP_DY;
                let mut a_row = 0;
                let mut ta = 0;
                let mut b_map = BW_MAP_W2;
                let mut b_row = 0;
                let mut gate = MOE_BW_NEVER;
                let mut count = 0;
                let mut live = go;
                if go && t < expert_rounds {
                    let first_pass = t % round < round_rows * dh_tiles;
                    live =
                        expert_slot_live(t, dh_tiles, x_tiles, round_rows, lag_rounds, row_tiles);
                    if live {
                        g = round_tile(
                            plan, t, 0, dh_tiles, x_tiles, lag_rounds, row_tiles, o_local, o_tiles,
                        );
                        let c = round_tile(
                            plan, t, 1, dh_tiles, x_tiles, lag_rounds, row_tiles, o_local, o_tiles,
                        );
                        j = p[o_tiles + g];
                        m0 = p[o_local + 3 * j] + (g - p[o_local + 3 * j + 2]) * 128;
                        m = p[o_local + 3 * j] + p[o_local + 3 * j + 1];
                        n0 = c * 256;
                        stacked = j != local;
                        b_row = (j % local) * hidden;
                        if first_pass {
                            // `dy w2` (the shared expert: `dout ws2`), gated on the expert's rows.
                            n = ffn;
                            k = hidden;
                            a_row = m0;
                            if j == local {
                                a_map = BW_MAP_DOUT;
                                a_row = m0 - capacity;
                                b_map = BW_MAP_WS2;
                                b_row = 0;
                            } else {
                                gate = MOE_BACKWARD_SYNC_HEAD_WORDS + j;
                                count = p[o_local + 3 * j + 1];
                            }
                        } else {
                            // `dz w1`, gated on the row tile's `dh` slabs.
                            kind = BW_DX;
                            n = hidden;
                            k = 2 * ffn;
                            a_map = BW_MAP_DZ;
                            a_row = m0;
                            b_map = if j == local { BW_MAP_WS1 } else { BW_MAP_W1 };
                            b_row = (j % local) * 2 * ffn;
                            gate = counted + g;
                            count = 8 * dh_tiles;
                        }
                    }
                } else if go && t < expert_rounds + router_tiles {
                    let u = t - expert_rounds;
                    gate = MOE_BW_ROUTED;
                    count = grad_blocks;
                    n = hidden;
                    b_map = BW_MAP_ROUTER;
                    if u < router_dx {
                        // `dx_router = dlogits w_router`.
                        kind = BW_ROUTER_DX;
                        m0 = u / x_tiles * 128;
                        n0 = u % x_tiles * 256;
                        m = tokens;
                        k = experts;
                        a_map = BW_MAP_DLOGITS;
                        a_row = m0;
                    } else {
                        // `dw_router = dlogits^T x`.
                        let v = u - router_dx;
                        kind = BW_ROUTER_DW;
                        m0 = v / x_tiles * 128;
                        n0 = v % x_tiles * 256;
                        m = experts;
                        k = tokens;
                        a_map = BW_MAP_DLOGITS + BW_MAP_TRANSPOSED;
                        ta = 1;
                        b_map = BW_MAP_X;
                    }
                } else if go {
                    // A block of 128 rows of `dw2 = dy^T h` or `dw1 = dz^T x_e`, all columns.
                    let u = t - expert_rounds - router_tiles;
                    j = u / per_expert;
                    let i = u % per_expert;
                    let first = p[o_local + 3 * j];
                    let rows = p[o_local + 3 * j + 1];
                    stacked = j != local;
                    k = rows;
                    ta = 1;
                    a_row = first;
                    b_row = first;
                    if i < w2_blocks {
                        kind = BW_DW2;
                        m0 = i * 128;
                        m = hidden;
                        n = ffn;
                        a_map = BW_MAP_DY + BW_MAP_TRANSPOSED;
                        b_map = BW_MAP_H;
                        if j == local {
                            // The shared expert's gradient rows are `dout`'s.
                            a_map = BW_MAP_DOUT + BW_MAP_TRANSPOSED;
                            a_row = 0;
                        } else {
                            gate = MOE_BACKWARD_SYNC_HEAD_WORDS + j;
                            count = rows;
                        }
                    } else {
                        kind = BW_DW1;
                        m0 = (i - w2_blocks) * 128;
                        m = 2 * ffn;
                        n = hidden;
                        a_map = BW_MAP_DZ + BW_MAP_TRANSPOSED;
                        b_map = BW_MAP_RECV;
                        if j == local {
                            b_map = BW_MAP_X;
                            b_row = 0;
                        }
                        gate = expert_counted + j;
                        count = 8 * dh_tiles * ((rows + 127) / 128);
                    }
                    tiles = (n + 255) / 256;
                }
                if live {
                    let since = clock();
                    go = subgroup_wait(&sync.local()[gate], count, Scope::System, t);
                    subgroup_trace(Role::Wait, MOE_TILE_TRACE + t, since);
                    // The operands came by plain stores; the tensor copies that read them are
                    // of another proxy.
                    fence_proxy_async();
                }
                // An empty sum (an expert without rows) still takes a step: it stores zeros.
                let steps = max((k + 63) / 64, 1);
                // Rows of the last step that belong to the operands: a stacked expert's rows
                // past them are the next one's, zeroed by the consumers.
                let keep = if stacked { k - (steps - 1) * 64 } else { 64 };
                if live || !go {
                    let slot = posted % TASK_SLOTS;
                    mbar_wait(&task_empty[slot], ((posted / TASK_SLOTS) & 1) ^ 1);
                    if subgroup_lane() == 0 {
                        let at = slot * BW_TASK_WORDS;
                        info[at] = if go { t } else { NO_TASK };
                        info[at + 1] = kind;
                        info[at + 2] = j;
                        info[at + 3] = m0;
                        info[at + 4] = n0;
                        info[at + 5] = m;
                        info[at + 6] = n;
                        info[at + 7] = tiles;
                        info[at + 8] = steps;
                        info[at + 9] = keep;
                        info[at + 10] = g;
                        mbar_arrive(&task_full[slot]);
                    }
                    posted += 1;
                }
                if live && go {
                    for tile in 0..tiles {
                        let col = n0 + tile * 256;
                        for step in 0..steps {
                            let s = (it + step) % MOE_RING;
                            // A fresh barrier counts its previous round as complete: the first
                            // round passes.
                            mbar_wait(&empty[s], (((it + step) / MOE_RING) & 1) ^ 1);
                            let base = s * MOE_STAGE_WORDS;
                            let k0 = step * 64;
                            if subgroup_lane() == 0 {
                                mbar_arrive_expect(&full[s], 49152);
                            }
                            if ta == 0 {
                                copy_tensor(&stages[base], &own[a_map], k0, a_row, &full[s]);
                            } else {
                                copy_tensor(&stages[base], &own[a_map], m0, a_row + k0, &full[s]);
                                copy_tensor(
                                    &stages[base + 2048],
                                    &own[a_map],
                                    m0 + 64,
                                    a_row + k0,
                                    &full[s],
                                );
                            }
                            for q in 0u32..4 {
                                copy_tensor(
                                    &stages[base + 4096 + q * 2048],
                                    &own[b_map],
                                    col + q * 64,
                                    b_row + k0,
                                    &full[s],
                                );
                            }
                        }
                        it += steps;
                    }
                }
                more = go;
            }
        }
    } else {
        regs_inc(200);
        let rows = (group - 1) * 64;
        let first_lane = subgroup_lane() == 0;
        let slab = (sg - 4) * SLAB_ELEMENTS;
        let mut it = 0;
        let mut taken = 0;
        let mut zeroings = 0u32;
        let mut more = true;
        while more {
            let at = task_slot(task_full, taken, BW_TASK_WORDS);
            let kind = info[at + 1];
            let j = info[at + 2];
            let m0 = info[at + 3];
            let n0 = info[at + 4];
            let m = info[at + 5];
            let n = info[at + 6];
            let tiles = info[at + 7];
            let steps = info[at + 8];
            let keep = info[at + 9];
            let g = info[at + 10];
            let t = info[at];
            task_taken(task_empty, taken);
            let since = clock();
            taken += 1;
            if t != NO_TASK {
                let ta = if kind >= BW_ROUTER_DW { 1 } else { 0 };
                let row0 = m0 + rows + (sg & 3) * 16;
                for tile in 0..tiles {
                    let col = n0 + tile * 256;
                    let mut left = wide_zero();
                    let mut right = wide_zero();
                    for step in 0..steps {
                        let s = (it + step) % MOE_RING;
                        mbar_wait(&full[s], ((it + step) / MOE_RING) & 1);
                        let base = s * MOE_STAGE_WORDS;
                        if step + 1 == steps && keep < 64 {
                            zero_stage_rows(stages, base, group, ta, keep);
                            mbar_arrive(&zeroed[0]);
                            mbar_wait(&zeroed[0], zeroings & 1);
                            zeroings += 1;
                        }
                        let a = base + rows * 32;
                        if ta == 1 {
                            left = multiply_async(stages, a, base + 4096, left, 1, 0);
                            right = multiply_async(stages, a, base + 8192, right, 1, 0);
                        } else {
                            left = multiply_async(stages, a, base + 4096, left, 0, 0);
                            right = multiply_async(stages, a, base + 8192, right, 0, 0);
                        }
                        left = mma_wait(2, left);
                        right = mma_wait(2, right);
                        // The products of the previous step have finished: its stage goes
                        // back.
                        if step > 0 && first_lane {
                            mbar_arrive(&empty[(it + step + MOE_RING - 1) % MOE_RING]);
                        }
                    }
                    left = mma_wait(0, left);
                    right = mma_wait(0, right);
                    if first_lane {
                        mbar_arrive(&empty[(it + steps + MOE_RING - 1) % MOE_RING]);
                    }
                    it += steps;
                    if kind == BW_DH {
                        swiglu_backward_slabs(z, dh, dz, left, right, row0, m, col, ffn);
                        subgroup_signal(&sync.local()[counted + g], 1, Scope::Agent);
                        subgroup_signal(&sync.local()[expert_counted + j], 1, Scope::Agent);
                    }
                    if kind == BW_DX {
                        let o = dxe.local();
                        store_slabs_bf16(&mut slabs[slab..], left, right, o, row0, col, m, n);
                    }
                    // Only f32 is stored: `dz` stands in for the bf16 output.
                    if kind == BW_ROUTER_DX {
                        let o = dx_router.local();
                        let spare = dz.local();
                        store_slabs_f32(o, spare, left, right, row0, col, m, n);
                    }
                    if kind == BW_ROUTER_DW {
                        let o = dw_router.local();
                        let spare = dz.local();
                        store_slabs_f32(o, spare, left, right, row0, col, m, n);
                    }
                    // The weight gradients by tensor stores, in the background, where a
                    // slab is wholly inside an expert's rows or wholly past them.
                    let by_tensor_stores = kind >= BW_DW2 && m % MOE_STORE_BOX_ROWS == 0;
                    if by_tensor_stores {
                        let stacked = j != local;
                        let map =
                            BW_MAP_DW2_STORE + 32 * (kind - BW_DW2) + if stacked { 0 } else { 16 };
                        let first = if stacked { j * m } else { 0 };
                        let own = maps.local();
                        store_slabs_tensor(
                            &mut slabs[slab..],
                            &own[map],
                            left,
                            right,
                            first,
                            row0,
                            col,
                            m,
                            n,
                        );
                    }
                    let by_slabs = kind >= BW_DW2 && !by_tensor_stores;
                    if by_slabs && kind == BW_DW2 && j == local {
                        let o = dws2.local();
                        store_slabs_bf16(&mut slabs[slab..], left, right, o, row0, col, m, n);
                    }
                    if by_slabs && kind == BW_DW2 && j != local {
                        let o = dw2.local();
                        let to = (j as u64) * (hidden as u64) * (ffn as u64);
                        store_slabs_bf16(
                            &mut slabs[slab..],
                            left,
                            right,
                            &mut o[to..],
                            row0,
                            col,
                            m,
                            n,
                        );
                    }
                    if by_slabs && kind == BW_DW1 && j == local {
                        let o = dws1.local();
                        store_slabs_bf16(&mut slabs[slab..], left, right, o, row0, col, m, n);
                    }
                    if by_slabs && kind == BW_DW1 && j != local {
                        let o = dw1.local();
                        let to = (j as u64) * (2 * ffn as u64) * (hidden as u64);
                        store_slabs_bf16(
                            &mut slabs[slab..],
                            left,
                            right,
                            &mut o[to..],
                            row0,
                            col,
                            m,
                            n,
                        );
                    }
                }
                // One record per task, from its first consumer subgroup.
                if first_consumer() {
                    subgroup_trace(Role::Compute, MOE_TILE_TRACE + t, since);
                }
            }
            more = t != NO_TASK;
        }
        // The weight gradients' tensor stores are written before the launch ends.
        copy_tensor_wait(0);
    }
    // The workgroup's roles meet before the combine's team barrier: its consumers may still
    // be signalling.
    barrier();
    moe_combine(
        stages, routing, weights, plan, dx, dxe, dx_router, sync, tokens, hidden, experts, topk,
        capacity, max_tiles, shared, o_dest, ok, phases,
    );
}

/// Phase 4 of [`moe_backward`] and [`moe_backward_pipeline`] (their arguments; `ok` the
/// plan's status): every expert's input gradient is in place once the whole world is here;
/// then `dx[t]` in tasks of [`MOE_FOLD_TOKENS`] tokens, and the counters zeroed for the next
/// launch.
#[device]
#[allow(clippy::too_many_arguments)]
fn moe_combine(
    stages: &mut [u32],
    routing: &Sym<[u32]>,
    weights: &Sym<[f32]>,
    plan: &Sym<[u32]>,
    dx: &Sym<[bf16]>,
    dxe: &Sym<[bf16]>,
    dx_router: &Sym<[f32]>,
    sync: &Sym<[u32]>,
    tokens: u32,
    hidden: u32,
    experts: u32,
    topk: u32,
    capacity: u32,
    max_tiles: u32,
    shared: u32,
    o_dest: u32,
    ok: u32,
    phases: u32,
) {
    let local = experts / world_size();
    let heads = sync.local();
    team_barrier();
    let combines = if ok == 1 && (phases & 8) == 8 {
        (tokens + MOE_FOLD_TOKENS - 1) / MOE_FOLD_TOKENS
    } else {
        0
    };
    dispatch_by_ticket(
        &heads[MOE_BW_NEVER],
        0,
        &heads[2],
        combines,
        Scope::Agent,
        |t| (&sync.local()[MOE_BW_NEVER], 0),
        |t| {},
        |t| {
            fold_tokens(
                stages, routing, weights, plan, dx, dxe, t, tokens, hidden, experts, topk,
                capacity, shared, o_dest, 0, dx_router, 1,
            );
        },
    );
    // The launch that combines is the last of a pass's (with `phases` split over launches,
    // the counters of the earlier phases carry over to the later launches).
    if (phases & 8) == 8 {
        let counted = MOE_BACKWARD_SYNC_HEAD_WORDS + local;
        rearm(sync, counted + max_tiles + local + 1, sync, 0);
    }
}

/// Zeroes rows `keep..64` of the 64-deep step in the stage at word `base` of
/// [`moe_backward_pipeline`]'s ring — the rows past the expert's that a tensor copy read —,
/// collective over the calling consumer `group` (1 or 2): its own 64 columns of `a^T` when
/// `ta` is 1 (an `a` read row by row came with zeros past `k`), and two of the four 64-column
/// boxes of `b`. A row is 128 bytes, whole under the swizzle. Made visible to the matrix
/// instructions; the caller then meets the other group at a barrier object.
#[device]
fn zero_stage_rows(stages: &mut [u32], base: u32, group: u32, ta: u32, keep: u32) {
    let lane = (subgroup_id() & 3) * 32 + subgroup_lane();
    let words = (64 - keep) * 32;
    for i in (lane..words).step_by(128) {
        let at = keep * 32 + i;
        stages[base + 4096 + (group - 1) * 4096 + at] = 0;
        stages[base + 4096 + (group - 1) * 4096 + 2048 + at] = 0;
        if ta == 1 {
            stages[base + (group - 1) * 2048 + at] = 0;
        }
    }
    fence_proxy_async_shared();
}

/// A consumer subgroup's 16-row slabs `left` (columns `n0..n0 + 128`) and `right` (the next
/// 128) of a bf16 tile of the `m x n` matrix `c16` at row `row0`, the part inside it, each
/// through the subgroup's own slab of shared memory ([`SLAB_ELEMENTS`]): its rows then go
/// out whole, 16 bytes a lane (a fragment store writes 4-byte pieces of eight rows at
/// once). `n` is a multiple of 8.
#[device]
#[allow(clippy::too_many_arguments)]
fn store_slabs_bf16(
    slab: &mut [bf16],
    left: WideAcc,
    right: WideAcc,
    c16: &mut [bf16],
    row0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    store_slab_staged(slab, left, c16, row0, n0, m, n);
    if n0 + 128 < n {
        store_slab_staged(slab, right, c16, row0, n0 + 128, m, n);
    }
}

/// One slab of [`store_slabs_bf16`].
#[device]
#[allow(clippy::too_many_arguments)]
fn store_slab_staged(
    slab: &mut [bf16],
    acc: WideAcc,
    c16: &mut [bf16],
    row0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    stage_slab(slab, acc);
    subgroup_barrier();
    let rows = subgroup_shuffle(if row0 < m { min(m - row0, 16) } else { 0 }, 0);
    let chunks = subgroup_shuffle(min(n - n0, 128) / 8, 0);
    for i in (subgroup_lane()..rows * 16).step_by(32) {
        let r = i >> 4;
        let ch = i & 15;
        if ch < chunks {
            let at = slab_chunk(r, ch);
            // SAFETY: `at` lies in the slab, and row `row0 + r`, columns `n0 + 8 ch..` in
            // `c16`'s `m x n` (the caller's bound).
            unsafe {
                let v = load_vec8(slab.get_unchecked(at));
                store_vec8(c16.get_unchecked_mut((row0 + r) * n + n0 + ch * 8), v);
            }
        }
    }
}

/// A consumer subgroup's 16 x 128 slab `acc` into its `slab` of shared memory as bf16, two
/// swizzled boxes of 16 x 64, once the subgroup's tensor stores have read what the slab held
/// and every lane is done with it. The lanes meet before reading the others' elements.
#[device]
fn stage_slab(slab: &mut [bf16], acc: WideAcc) {
    copy_tensor_wait_read(0);
    subgroup_barrier();
    frag_store_swizzled(&slab[0], acc, MOE_STORE_BOX_ROWS);
}

/// [`store_slabs_bf16`] by tensor stores, where the tile is of an `m x n` matrix that starts
/// at row `first` of the tensor of `map` (boxes of [`MOE_STORE_BOX_ROWS`] x 64, the 128-byte
/// swizzle) and `m` is a multiple of 16, so that a slab lies wholly inside the matrix or
/// wholly past it: each slab is staged in the subgroup's `slab`, and its two boxes stored in
/// the background while the subgroup goes on (the next staging waits until they have read
/// the slab; columns past `n` are not written).
#[device]
#[allow(clippy::too_many_arguments)]
fn store_slabs_tensor(
    slab: &mut [bf16],
    map: &TensorMap,
    left: WideAcc,
    right: WideAcc,
    first: u32,
    row0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    if row0 < m {
        let y = (first + row0) as i32;
        stage_slab(slab, left);
        fence_proxy_async_shared();
        subgroup_barrier();
        copy_tensor_store(&map, n0 as i32, y, &slab[0]);
        copy_tensor_store(&map, (n0 + 64) as i32, y, &slab[1024]);
        if n0 + 128 < n {
            stage_slab(slab, right);
            fence_proxy_async_shared();
            subgroup_barrier();
            copy_tensor_store(&map, (n0 + 128) as i32, y, &slab[0]);
            copy_tensor_store(&map, (n0 + 192) as i32, y, &slab[1024]);
        }
    }
}

/// A consumer subgroup's 16-row slabs `left` and `right` (columns `n0..n0 + 256`) of an f32
/// tile of the `m x n` matrix `c` at row `row0`, the part inside it (`spare` stands in for
/// the bf16 output [`store_slab`] does not write).
#[device]
#[allow(clippy::too_many_arguments)]
fn store_slabs_f32(
    c: &mut [f32],
    spare: &mut [bf16],
    left: WideAcc,
    right: WideAcc,
    row0: u32,
    n0: u32,
    m: u32,
    n: u32,
) {
    store_slab(c, spare, 0, left, row0, n0, m, n);
    if n0 + 128 < n {
        store_slab(c, spare, 0, right, row0, n0 + 128, m, n);
    }
}

/// A `dh` subgroup's 16-row slabs of [`moe_backward_pipeline`] at row `row0`, rows below
/// `end`: `left` (features `f0..f0 + 128`) and `right` (the next 128, those below `ffn`) into
/// `dh` (f32), then the SwiGLU backward of those features of its rows into `dz`, as
/// [`swiglu_backward_tile`] forms it (the same values, bitwise), made visible to tensor
/// copies. `f0` is below `ffn`.
#[device]
#[allow(clippy::too_many_arguments)]
fn swiglu_backward_slabs(
    z: &Sym<[bf16]>,
    dh: &Sym<[f32]>,
    dz: &Sym<[bf16]>,
    left: WideAcc,
    right: WideAcc,
    row0: u32,
    end: u32,
    f0: u32,
    ffn: u32,
) {
    let dhl = dh.local();
    let dzl = dz.local();
    store_slab(dhl, dzl, 0, left, row0, f0, end, ffn);
    if f0 + 128 < ffn {
        store_slab(dhl, dzl, 0, right, row0, f0 + 128, end, ffn);
    }
    // The subgroup's lanes read what the others stored.
    subgroup_barrier();
    let rows = subgroup_shuffle(if row0 < end { min(end - row0, 16) } else { 0 }, 0);
    let zl = z.local();
    let cols = min(ffn - f0, 256);
    if rows > 0 {
        let last_row = row0 + rows - 1;
        for c in (subgroup_lane()..cols).step_by(32) {
            for r in (row0..row0 + rows).step_by(4) {
                swiglu_backward_rows(zl, dhl, dzl, r, last_row, f0 + c, ffn);
            }
        }
    }
    // The `dx` tiles and `dw1` blocks read `dz` by tensor copies.
    fence_proxy_async();
}

/// The SwiGLU backward of feature `f` for rows `row0..row0 + 4` (rows past `last_row` form
/// the last one again): `dgate = dh up silu'(gate)` into `dz` column `f`, `dup = dh
/// silu(gate)` into column `ffn + f`, from `z` (the forward's gate and up values) and `dh`
/// (f32). The 12 loads are all issued before the first store (a store to `dz` could alias a
/// later load, so a loop would wait for each row's loads in turn; eight rows at once spill).
#[device]
#[allow(clippy::too_many_arguments)]
fn swiglu_backward_rows(
    zl: &[bf16],
    dhl: &[f32],
    dzl: &mut [bf16],
    row0: u32,
    last_row: u32,
    f: u32,
    ffn: u32,
) {
    let z_cols = (ffn + 63) / 64 * 128;
    let col = (f >> 6) * 128 + (f & 63);
    let r0 = min(row0, last_row);
    let r1 = min(row0 + 1, last_row);
    let r2 = min(row0 + 2, last_row);
    let r3 = min(row0 + 3, last_row);
    // SAFETY: rows up to `last_row` lie within the `z`, `dh` and `dz` rows the host sized;
    // `f` is below `ffn`, so the gate and up columns lie in a row of `z`.
    unsafe {
        let g0 = *zl.get_unchecked(r0 * z_cols + col) as f32;
        let u0 = *zl.get_unchecked(r0 * z_cols + col + 64) as f32;
        let d0 = *dhl.get_unchecked(r0 * ffn + f);
        let g1 = *zl.get_unchecked(r1 * z_cols + col) as f32;
        let u1 = *zl.get_unchecked(r1 * z_cols + col + 64) as f32;
        let d1 = *dhl.get_unchecked(r1 * ffn + f);
        let g2 = *zl.get_unchecked(r2 * z_cols + col) as f32;
        let u2 = *zl.get_unchecked(r2 * z_cols + col + 64) as f32;
        let d2 = *dhl.get_unchecked(r2 * ffn + f);
        let g3 = *zl.get_unchecked(r3 * z_cols + col) as f32;
        let u3 = *zl.get_unchecked(r3 * z_cols + col + 64) as f32;
        let d3 = *dhl.get_unchecked(r3 * ffn + f);
        swiglu_grad(dzl, r0 * 2 * ffn + f, ffn, g0, u0, d0);
        swiglu_grad(dzl, r1 * 2 * ffn + f, ffn, g1, u1, d1);
        swiglu_grad(dzl, r2 * 2 * ffn + f, ffn, g2, u2, d2);
        swiglu_grad(dzl, r3 * 2 * ffn + f, ffn, g3, u3, d3);
    }
}

/// `dgate = d up silu'(gate)` at `dz[at]` and `dup = d silu(gate)` at `dz[at + ffn]`, rounded
/// to bf16: the one formula of both backward kernels (so their `dz` is bitwise the same).
#[device]
fn swiglu_grad(dzl: &mut [bf16], at: u32, ffn: u32, gate: f32, up: f32, d: f32) {
    let s = sigmoid_fast(gate);
    // SAFETY: the caller's: `at` and `at + ffn` lie in a row of `dz`.
    unsafe {
        *dzl.get_unchecked_mut(at) = (d * up * s * (1.0 + gate * (1.0 - s))) as bf16;
        *dzl.get_unchecked_mut(at + ffn) = (d * gate * s) as bf16;
    }
}
