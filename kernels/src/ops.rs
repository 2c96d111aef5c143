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

/// `C = A B` (A `m x k`, B `k x n`, row-major bf16; C f32, f32 accumulation) on register
/// fragments, any sizes (ragged edges masked).
///
/// A workgroup of 8 subgroups computes 128 x 128 output tiles; the subgroups form a 2 x 4
/// grid over the tile, each accumulating a 64 x 32 sub-tile as 4 x 2 fragments (`cIJ`), so
/// every `a` fragment feeds two `mma`s and every `b` fragment four. Per 64-deep step the
/// tile's `a` (128 x 64, row stride 72) and `b` (64 x 128, row stride 136) are staged in
/// shared memory (64 deep rather than 32 halves the barriers per `mma`; with the scratch
/// below it stays just under the 48 KiB of static shared memory CUDA allows), zero outside the matrices; the padded strides are multiples of 8, as
/// fragment loads need, and odd numbers of 16-byte units, so the rows of a matrix load hit
/// distinct banks. When K and N are multiples of 8 the staging moves 16-byte vectors (each
/// wholly inside or wholly outside the matrix), otherwise single elements.
///
/// Tiles are numbered in groups of 8 tile rows that walk the tile columns together, so the
/// tiles running at one time share their `a` rows and `b` columns in L2. Interior tiles
/// store their fragments straight to `c` (when N is a multiple of 8); edge tiles pass each
/// fragment through a per-subgroup scratch in shared memory and store the part inside `c`.
///
/// `PERSISTENT = 0`: one workgroup per tile (`workgroup_id_x`), `counter` unused.
/// `PERSISTENT = 1`: workgroup `w` starts with tile `w`, then pulls tile
/// `grid + atomic_add(counter[0], 1)` (`counter[0]` is 0 at launch) until none are left.
/// Launch with `8 * subgroup_size()` work-items; the subgroup size is read, never assumed.
#[kernel(
    max_workgroup_size = 512,
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
    let a_tile = shared_array::<bf16, { 128 * 72 }>();
    let b_tile = shared_array::<bf16, { 64 * 136 }>();
    let scratch = shared_array::<f32, { 8 * 16 * 24 }>();
    let claimed = shared_array::<u32, 1>();
    let tid = workitem_id_x();
    let threads = workgroup_size_x();
    let sg = subgroup_id();
    let sub_row = (sg >> 2) * 64;
    let sub_col = (sg & 3) * 32;
    let tiles_n = (n + 127) / 128;
    let tiles_m = (m + 127) / 128;
    let tiles = tiles_n * tiles_m;
    let vectors = (k & 7) == 0 && (n & 7) == 0;
    let zero: bf16 = 0.0;
    // The main loop reads `a` and `b` and the tiles without bounds checks (checked, the loop
    // spills registers on gfx942): inside the matrices, `a` up to element `m k - 1` and `b` up
    // to `k n - 1`. Slices too short for that end the kernel with the bounds error of the last
    // element it would read.
    let need_a = (m as u64) * (k as u64);
    let need_b = (k as u64) * (n as u64);
    if !operands_fit(a, b, need_a, need_b) {
        return;
    }
    let mut tile = workgroup_id_x();
    while tile < tiles {
        // Grouped order: runs of 8 tile rows, column by column.
        let m0 = tile_row(tile, tiles_m, tiles_n) * 128;
        let n0 = tile_col(tile, tiles_m, tiles_n) * 128;

        let mut c00 = frag_zero();
        let mut c01 = frag_zero();
        let mut c10 = frag_zero();
        let mut c11 = frag_zero();
        let mut c20 = frag_zero();
        let mut c21 = frag_zero();
        let mut c30 = frag_zero();
        let mut c31 = frag_zero();
        for k0 in (0..k).step_by(64) {
            // SAFETY (every `get_unchecked` of this loop): global elements are read only
            // inside the matrices (the conditions before each read; rows of whole 8-element
            // vectors when `vectors`), so below `need_a` / `need_b`; tile offsets stay below
            // 128 * 72 and 64 * 136 by the loop bounds.
            if vectors {
                for i in (tid..1024).step_by(threads) {
                    let r = i >> 3;
                    let col = (i & 7) * 8;
                    let mut v = splat8(zero);
                    unsafe {
                        if m0 + r < m && k0 + col < k {
                            v = load_vec8(a.get_unchecked((m0 + r) * k + k0 + col));
                        }
                        store_vec8(a_tile.get_unchecked_mut(r * 72 + col), v);
                    }
                }
                for i in (tid..1024).step_by(threads) {
                    let r = i >> 4;
                    let col = (i & 15) * 8;
                    let mut v = splat8(zero);
                    unsafe {
                        if k0 + r < k && n0 + col < n {
                            v = load_vec8(b.get_unchecked((k0 + r) * n + n0 + col));
                        }
                        store_vec8(b_tile.get_unchecked_mut(r * 136 + col), v);
                    }
                }
            } else {
                for i in (tid..8192).step_by(threads) {
                    let r = i >> 6;
                    let col = i & 63;
                    let mut v = zero;
                    unsafe {
                        if m0 + r < m && k0 + col < k {
                            v = *a.get_unchecked((m0 + r) * k + k0 + col);
                        }
                        *a_tile.get_unchecked_mut(r * 72 + col) = v;
                    }
                }
                for i in (tid..8192).step_by(threads) {
                    let r = i >> 7;
                    let col = i & 127;
                    let mut v = zero;
                    unsafe {
                        if k0 + r < k && n0 + col < n {
                            v = *b.get_unchecked((k0 + r) * n + n0 + col);
                        }
                        *b_tile.get_unchecked_mut(r * 136 + col) = v;
                    }
                }
            }
            barrier();
            // Two 32-deep halves; inside each, both 16-deep quarters written out: straight-line
            // code lets the fragment loads of one quarter overlap the `mma`s of the other.
            // SAFETY: the fragments lie inside the tiles (rows below 128 and 64, columns
            // below 64 and 128).
            unsafe {
                for kh in (0..64u32).step_by(32) {
                    let a0 = frag_load_a(a_tile.get_unchecked(sub_row * 72 + kh), 72);
                    let a1 = frag_load_a(a_tile.get_unchecked((sub_row + 16) * 72 + kh), 72);
                    let a2 = frag_load_a(a_tile.get_unchecked((sub_row + 32) * 72 + kh), 72);
                    let a3 = frag_load_a(a_tile.get_unchecked((sub_row + 48) * 72 + kh), 72);
                    let b0 = frag_load_b(b_tile.get_unchecked(kh * 136 + sub_col), 136);
                    let b1 = frag_load_b(b_tile.get_unchecked(kh * 136 + sub_col + 16), 136);
                    c00 = mma(a0, b0, c00);
                    c01 = mma(a0, b1, c01);
                    c10 = mma(a1, b0, c10);
                    c11 = mma(a1, b1, c11);
                    c20 = mma(a2, b0, c20);
                    c21 = mma(a2, b1, c21);
                    c30 = mma(a3, b0, c30);
                    c31 = mma(a3, b1, c31);
                    let a0 = frag_load_a(a_tile.get_unchecked(sub_row * 72 + kh + 16), 72);
                    let a1 = frag_load_a(a_tile.get_unchecked((sub_row + 16) * 72 + kh + 16), 72);
                    let a2 = frag_load_a(a_tile.get_unchecked((sub_row + 32) * 72 + kh + 16), 72);
                    let a3 = frag_load_a(a_tile.get_unchecked((sub_row + 48) * 72 + kh + 16), 72);
                    let b0 = frag_load_b(b_tile.get_unchecked((kh + 16) * 136 + sub_col), 136);
                    let b1 = frag_load_b(b_tile.get_unchecked((kh + 16) * 136 + sub_col + 16), 136);
                    c00 = mma(a0, b0, c00);
                    c01 = mma(a0, b1, c01);
                    c10 = mma(a1, b0, c10);
                    c11 = mma(a1, b1, c11);
                    c20 = mma(a2, b0, c20);
                    c21 = mma(a2, b1, c21);
                    c30 = mma(a3, b0, c30);
                    c31 = mma(a3, b1, c31);
                }
            }
            barrier();
        }

        let r0 = m0 + sub_row;
        let col0 = n0 + sub_col;
        if m0 + 128 <= m && n0 + 128 <= n && (n & 7) == 0 {
            frag_store(&c[r0 * n + col0], c00, n);
            frag_store(&c[r0 * n + col0 + 16], c01, n);
            frag_store(&c[(r0 + 16) * n + col0], c10, n);
            frag_store(&c[(r0 + 16) * n + col0 + 16], c11, n);
            frag_store(&c[(r0 + 32) * n + col0], c20, n);
            frag_store(&c[(r0 + 32) * n + col0 + 16], c21, n);
            frag_store(&c[(r0 + 48) * n + col0], c30, n);
            frag_store(&c[(r0 + 48) * n + col0 + 16], c31, n);
        } else {
            // The branch is uniform over the workgroup, so the barriers are too.
            let mine = sg * 384;
            for f in 0..8u32 {
                let mut t = c00;
                if f == 1 {
                    t = c01;
                }
                if f == 2 {
                    t = c10;
                }
                if f == 3 {
                    t = c11;
                }
                if f == 4 {
                    t = c20;
                }
                if f == 5 {
                    t = c21;
                }
                if f == 6 {
                    t = c30;
                }
                if f == 7 {
                    t = c31;
                }
                frag_store(&scratch[mine], t, 24);
                barrier();
                let fr = r0 + (f >> 1) * 16;
                let fc = col0 + (f & 1) * 16;
                for e in (subgroup_lane()..256).step_by(subgroup_size()) {
                    let row = fr + (e >> 4);
                    let col = fc + (e & 15);
                    if row < m && col < n {
                        c[row * n + col] = scratch[mine + (e >> 4) * 24 + (e & 15)];
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
    // Word offsets: stage `s` at 8192 s; in it `a` at 0 (group g at 2048 g), `b` at 4096
    // (columns 64j.. at 4096 + 2048 j).
    let stages = shared_array::<u32, 16384>();
    let tid = workitem_id_x();
    let threads = workgroup_size_x();
    let sg = subgroup_id();
    let group = sg >> 2;
    let tiles_n = (n + 127) / 128;
    let tiles_m = (m + 127) / 128;
    let tiles = tiles_n * tiles_m;
    let steps = (k + 63) / 64;
    // The lane's chunks: `a` has 128 rows of 8 chunks, chunk `ch` of row `r` stored at chunk
    // `ch ^ (r % 8)` of its 32-word row; `b` has 64 rows (k) of 16 chunks, chunk `ch` in
    // column block `ch / 8` at chunk `(ch % 8) ^ (r % 8)`.
    let row_a = tid >> 3;
    let col_a = (tid & 7) * 8;
    let swizzle_a = ((tid & 7) ^ (row_a & 7)) * 4;
    let row_b = tid >> 4;
    let col_b = (tid & 15) * 8;
    let swizzle_b = 4096 + ((tid & 15) >> 3) * 2048 + ((tid & 7) ^ (row_b & 7)) * 4;
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

        let mut acc = wide_zero();
        for s in 0..steps + 1 {
            if s > 0 {
                // Step `s - 1` has landed; every lane is done with step `s - 2`.
                async_wait(0);
                barrier();
            }
            if s < steps {
                let base = (s & 1) * 8192;
                let k0 = s * 64;
                // 1024 chunks of `a` and of `b`, the same number per lane (a constant trip
                // count: the loop unrolls). Lanes keep their chunk column from pass to pass
                // and move whole multiples of 8 rows, so the swizzle is the lane's own.
                for j in 0..128 / subgroup_size() {
                    let r = row_a + j * (threads >> 3);
                    let inside = m0 + r < m && k0 + col_a < k;
                    let from = if inside { (m0 + r) * k + k0 + col_a } else { 0 };
                    // SAFETY: the stage offset + 3 < 16384 for every lane, and `from` + 7 <
                    // `need_a` <= `a.len()`; the same for `b` below.
                    unsafe {
                        let to = base + r * 32 + swizzle_a;
                        copy_async(stages.get_unchecked_mut(to), a.get_unchecked(from), inside);
                    }
                    let r = row_b + j * (threads >> 4);
                    let inside = k0 + r < k && n0 + col_b < n;
                    let from = if inside { (k0 + r) * n + n0 + col_b } else { 0 };
                    unsafe {
                        let to = base + r * 32 + swizzle_b;
                        copy_async(stages.get_unchecked_mut(to), b.get_unchecked(from), inside);
                    }
                }
                async_commit();
            }
            if s > 0 {
                let base = ((s - 1) & 1) * 8192;
                // SAFETY: both tiles lie inside the stage at `base` (8192 words).
                unsafe {
                    acc = mma_group(
                        stages.get_unchecked(base + group * 2048),
                        stages.get_unchecked(base + 4096),
                        acc,
                    );
                }
            }
        }
        // Every lane is done with the stages before the claim or the next tile reuse them.
        barrier();

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

/// Stages of [`gemm_pipeline`]'s ring in shared memory.
pub const PIPE_STAGES: u32 = 4;
/// 32-bit words of one stage: a 128 x 64 box of `a` (16 KiB), then up to four 64 x 64 boxes
/// of `b` (8 KiB each).
const PIPE_STAGE_WORDS: u32 = 12288;

/// `C = op(A) op(B)` (bf16 in, f32 accumulation) as a warp-specialised persistent pipeline
/// fed by tensor copies. `TA = 0`: `a` is `m x k` row-major, mapped by `a_map` in boxes of
/// 128 rows x 64 columns; `TA = 1`: `a` holds A^T (`k x m`), in boxes of 64 x 64. `TB = 0`:
/// `b` is `k x n`, in boxes of 64 x 64; `TB = 1`: `b` holds B^T (`n x k`), in boxes of
/// 128 x 64 (256 x 64 with `WIDE = 1`). All with the 128-byte swizzle, which the matrix
/// instructions read in either orientation (`mma_group_async_trans`). Elements outside the
/// matrices arrive as zeros, so any `m`, `n`, `k` works where the maps can be made (rows of
/// whole 16-byte units). `C` (`m x n`, row-major) goes to `c` (f32) or, with `BF16 = 1`, to
/// `c16` (rounded to bf16); the other one is not touched. Output tiles are 128 rows by 128
/// columns, or 256 with `WIDE = 1` (each step then reads its `a` tiles for twice the
/// products, which pays where there are enough tiles to fill the processors).
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
) {
    // Stage `s` at word `s * PIPE_STAGE_WORDS`: `a` (128 rows of the tile, group g's 64 at
    // 2048 g), then `b` in 64-column blocks of 2048 words from word 4096 (a `b^T` box of
    // 128 or 256 rows lands there as the same bytes).
    let stages = shared_array::<u32, { PIPE_STAGES * PIPE_STAGE_WORDS }>();
    let full = shared_array::<u64, PIPE_STAGES>();
    let empty = shared_array::<u64, PIPE_STAGES>();
    let sg = subgroup_id();
    let group = sg >> 2;
    let first_lane = subgroup_lane() == 0;
    let tile_cols = 128 << WIDE;
    let tiles_n = (n + tile_cols - 1) / tile_cols;
    let tiles_m = (m + 127) / 128;
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
            let m0 = tile_row(tile, tiles_m, tiles_n) * 128;
            let n0 = tile_col(tile, tiles_m, tiles_n) * tile_cols;
            for step in 0..steps {
                let s = it % PIPE_STAGES;
                // A fresh barrier counts its previous round as complete, so the first round
                // does not wait.
                mbar_wait(&empty[s], ((it / PIPE_STAGES) & 1) ^ 1);
                let k0 = step * 64;
                copy_step(&a_map, &b_map, stages, full, s, m0, n0, k0, TA, TB, b_boxes);
                it += 1;
            }
            tile += num_workgroups_x();
        }
    } else {
        regs_inc(232);
        let rows = (group - 1) * 64;
        while tile < tiles {
            let m0 = tile_row(tile, tiles_m, tiles_n) * 128;
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

/// Copies the step at depth `k0` of the output tile at (`m0`, `n0`) into stage `s` of
/// [`gemm_pipeline`]'s ring, completing on `full[s]`, which the subgroup's first lane arms
/// with the step's bytes: the tile's 128 rows of `a` (one box, or two 64-row boxes of `a^T`
/// when `ta` is 1) and `b_boxes` 64-column boxes of `b` (or one box of `b^T` when `tb` is 1,
/// as many rows as the boxes of `b` would have columns). Collective over a subgroup.
#[device]
#[allow(clippy::too_many_arguments)]
fn copy_step(
    a_map: &TensorMap,
    b_map: &TensorMap,
    stages: &mut [u32],
    full: &mut [u64],
    s: u32,
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
    let base = s * PIPE_STAGE_WORDS;
    if ta == 0 {
        copy_tensor(&stages[base], &a_map, k0, m0, &full[s]);
    } else {
        copy_tensor(&stages[base], &a_map, m0, k0, &full[s]);
        copy_tensor(&stages[base + 2048], &a_map, m0 + 64, k0, &full[s]);
    }
    if tb == 0 {
        for j in 0..b_boxes {
            copy_tensor(
                &stages[base + 4096 + j * 2048],
                &b_map,
                n0 + j * 64,
                k0,
                &full[s],
            );
        }
    } else {
        copy_tensor(&stages[base + 4096], &b_map, k0, n0, &full[s]);
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
