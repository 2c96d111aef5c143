//! A bf16 GEMM on register fragments: `c[M,N] = a[M,K] x b[K,N]`, row major, f32
//! accumulation and output, any sizes (edges masked).
//!
//! A workgroup of [`GEMM_SUBGROUPS`] subgroups computes a [`GEMM_BM`] x [`GEMM_BN`] block of
//! `c`; the subgroups form a 2 x 4 grid over it, each accumulating a 64 x 32 sub-tile as 4 x 2
//! 16x16 fragments, so every `a` fragment feeds two `mma`s and every `b` fragment four. Per
//! [`GEMM_BK`]-deep step the block's `a` and `b` tiles are staged in shared memory,
//! zero-filled outside the matrices (fragment loads never see the ragged edges). When K and N
//! are multiples of 8 the staging moves 16-byte vectors (a vector is then wholly inside or
//! wholly outside the matrix); otherwise single elements.
//!
//! Workgroups are numbered in groups of [`GEMM_GROUP_M`] block rows that walk the block
//! columns together, so the blocks running at one time share their `a` rows and `b` columns
//! in L2. Interior blocks store their fragments straight to `c` (when N is a multiple of 8);
//! edge blocks pass each fragment through shared memory and store the part inside `c`.
//!
//! The subgroup size is read, never assumed: launch with `GEMM_SUBGROUPS * subgroup size`
//! work-items in x and a grid of `[ceil(N / GEMM_BN), ceil(M / GEMM_BM)]`.

use kosmos_ir::{CmpPred, Constant, Dim, FragRole, Kernel, KernelBuilder, ScalarType, Type, Value};

pub const GEMM_BM: u32 = 128;
pub const GEMM_BN: u32 = 128;
pub const GEMM_BK: u32 = 32;
/// Subgroups per workgroup, as a 2 x 4 grid over the block.
pub const GEMM_SUBGROUPS: u32 = 8;
/// Block rows per group of the workgroup order.
pub const GEMM_GROUP_M: u32 = 8;
const SG_COLS: u32 = 4;
/// Fragments per subgroup along M and N.
const FM: u32 = 4;
const FN: u32 = 2;
/// Padded shared-memory row strides (in elements): multiples of 8, as fragment loads need,
/// and an odd number of 16-byte units, so the eight rows of a matrix load hit distinct banks.
const A_STRIDE: u32 = GEMM_BK + 8;
const B_STRIDE: u32 = GEMM_BN + 8;
const A_ELEMS: u32 = GEMM_BM * A_STRIDE;
const B_ELEMS: u32 = GEMM_BK * B_STRIDE;
/// Edge blocks: each subgroup's 16x16 f32 scratch, row stride 24 (a multiple of 8), laid
/// over the staging tiles once the K loop is done.
const SCRATCH_STRIDE: u32 = 24;
const SCRATCH_ELEMS: u32 = 16 * SCRATCH_STRIDE;
const _: () = assert!(GEMM_SUBGROUPS * SCRATCH_ELEMS * 4 <= (A_ELEMS + B_ELEMS) * 2);
/// Elements per vector of the staging fast path (16 bytes).
const VEC: u32 = 8;

/// Work-items of a GEMM workgroup for a device with `subgroup_size` lanes per subgroup.
pub fn gemm_block(subgroup_size: u32) -> u32 {
    GEMM_SUBGROUPS * subgroup_size
}

/// `[ceil(n / GEMM_BN), ceil(m / GEMM_BM), 1]`.
pub fn gemm_grid(m: u32, n: u32) -> [u32; 3] {
    [n.div_ceil(GEMM_BN), m.div_ceil(GEMM_BM), 1]
}

/// What the K loop and the epilogue share.
struct Ctx {
    pa: Value,
    pb: Value,
    m: Value,
    n: Value,
    k: Value,
    m0: Value,
    n0: Value,
    tid: Value,
    threads: Value,
    a_tile: Value,
    b_tile: Value,
    sub_row: Value,
    sub_col: Value,
}

pub fn gemm_bf16_mma() -> Kernel {
    let mut b = KernelBuilder::new("gemm_bf16_mma", GEMM_SUBGROUPS * 64);
    let pa = b.param("a", Type::GLOBAL_PTR);
    let pb = b.param("b", Type::GLOBAL_PTR);
    let pc = b.param("c", Type::GLOBAL_PTR);
    let m = b.param("m", Type::U32);
    let n = b.param("n", Type::U32);
    let k = b.param("k", Type::U32);
    let tiles = b.shared_alloc("tiles", Type::BF16, A_ELEMS + B_ELEMS);
    let b_off = b.const_u32(A_ELEMS);
    let b_tile = b.ptr_offset(tiles, b_off, Type::BF16);
    let tid = b.workitem_id(Dim::X);
    let threads = b.workgroup_size(Dim::X);
    let (bm, bn) = block_coords(&mut b);
    let bm_size = b.const_u32(GEMM_BM);
    let m0 = b.mul(bm, bm_size);
    let bn_size = b.const_u32(GEMM_BN);
    let n0 = b.mul(bn, bn_size);
    let sg = b.subgroup_id();
    let sg_shift = b.const_u32(SG_COLS.trailing_zeros());
    let sg_m = b.shr(sg, sg_shift);
    let sg_mask = b.const_u32(SG_COLS - 1);
    let sg_n = b.and(sg, sg_mask);
    let sub_rows = b.const_u32(16 * FM);
    let sub_row = b.mul(sg_m, sub_rows);
    let sub_cols = b.const_u32(16 * FN);
    let sub_col = b.mul(sg_n, sub_cols);
    let cx = Ctx {
        pa,
        pb,
        m,
        n,
        k,
        m0,
        n0,
        tid,
        threads,
        a_tile: tiles,
        b_tile,
        sub_row,
        sub_col,
    };

    let seven = b.const_u32(VEC - 1);
    let k_tail = b.and(k, seven);
    let n_tail = b.and(n, seven);
    let tails = b.or(k_tail, n_tail);
    let zero = b.const_u32(0);
    let vectors = b.cmp(CmpPred::Eq, tails, zero);
    let acc_types = vec![Type::Frag(FragRole::Acc); (FM * FN) as usize];
    let acc = b.if_else(
        vectors,
        &acc_types,
        |b| k_loop(b, &cx, true),
        |b| k_loop(b, &cx, false),
    );

    // Interior blocks with 16-byte aligned rows of c take the fragments straight there.
    let bm_c = b.const_u32(GEMM_BM);
    let bn_c = b.const_u32(GEMM_BN);
    let m_end = b.add(m0, bm_c);
    let n_end = b.add(n0, bn_c);
    let rows_in = b.cmp(CmpPred::Le, m_end, m);
    let cols_in = b.cmp(CmpPred::Le, n_end, n);
    let inside = b.and(rows_in, cols_in);
    let n_aligned = b.cmp(CmpPred::Eq, n_tail, zero);
    let direct = b.and(inside, n_aligned);
    b.if_else(
        direct,
        &[],
        |b| {
            for i in 0..FM {
                for j in 0..FN {
                    let row = frag_row(b, &cx, i);
                    let col = frag_col(b, &cx, j);
                    let at = b.mul(row, n);
                    let at = b.add(at, col);
                    let p = b.ptr_offset(pc, at, Type::F32);
                    b.frag_store(p, acc[(i * FN + j) as usize], n);
                }
            }
            vec![]
        },
        |b| {
            edge_store(b, &cx, pc, tiles, &acc);
            vec![]
        },
    );
    b.finish()
}

/// The (block row, block column) of this workgroup: linear ids run down groups of
/// [`GEMM_GROUP_M`] block rows, column by column, so neighbours in time share L2 data.
fn block_coords(b: &mut KernelBuilder) -> (Value, Value) {
    let wx = b.workgroup_id(Dim::X);
    let wy = b.workgroup_id(Dim::Y);
    let gx = b.num_workgroups(Dim::X);
    let gy = b.num_workgroups(Dim::Y);
    let row_major = b.mul(wy, gx);
    let pid = b.add(row_major, wx);
    let group = b.const_u32(GEMM_GROUP_M);
    let per_group = b.mul(group, gx);
    let group_id = b.div(pid, per_group);
    let first_row = b.mul(group_id, group);
    let rows_left = b.sub(gy, first_row);
    let group_rows = b.min(rows_left, group);
    let in_group = b.rem(pid, per_group);
    let r = b.rem(in_group, group_rows);
    let bm = b.add(first_row, r);
    let bn = b.div(in_group, group_rows);
    (bm, bn)
}

fn frag_row(b: &mut KernelBuilder, cx: &Ctx, i: u32) -> Value {
    let r = b.add(cx.m0, cx.sub_row);
    let off = b.const_u32(16 * i);
    b.add(r, off)
}

fn frag_col(b: &mut KernelBuilder, cx: &Ctx, j: u32) -> Value {
    let c = b.add(cx.n0, cx.sub_col);
    let off = b.const_u32(16 * j);
    b.add(c, off)
}

/// The K loop: stage, barrier, `BK / 16` steps of fragment loads and `mma`s, barrier.
fn k_loop(b: &mut KernelBuilder, cx: &Ctx, vectors: bool) -> Vec<Value> {
    let zero = b.const_u32(0);
    let bk = b.const_u32(GEMM_BK);
    let inits: Vec<Value> = (0..FM * FN).map(|_| b.frag_zero()).collect();
    b.for_range(zero, cx.k, bk, &inits, |b, k0, acc| {
        stage(b, cx, k0, vectors);
        b.barrier();
        let mut acc = acc.to_vec();
        let a_stride = b.const_u32(A_STRIDE);
        let b_stride = b.const_u32(B_STRIDE);
        for kk in (0..GEMM_BK).step_by(16) {
            let frags_a: Vec<Value> = (0..FM)
                .map(|i| {
                    let r = b.const_u32(16 * i);
                    let row = b.add(cx.sub_row, r);
                    let at = b.mul(row, a_stride);
                    let kkv = b.const_u32(kk);
                    let at = b.add(at, kkv);
                    let p = b.ptr_offset(cx.a_tile, at, Type::BF16);
                    b.frag_load(FragRole::A, p, a_stride)
                })
                .collect();
            let frags_b: Vec<Value> = (0..FN)
                .map(|j| {
                    let row = b.const_u32(kk * B_STRIDE + 16 * j);
                    let at = b.add(row, cx.sub_col);
                    let p = b.ptr_offset(cx.b_tile, at, Type::BF16);
                    b.frag_load(FragRole::B, p, b_stride)
                })
                .collect();
            for i in 0..FM {
                for j in 0..FN {
                    let x = &mut acc[(i * FN + j) as usize];
                    *x = b.mma(frags_a[i as usize], frags_b[j as usize], *x);
                }
            }
        }
        b.barrier();
        acc
    })
}

/// Stages `a[m0.., k0..]` and `b[k0.., n0..]` in shared memory, zero outside the matrices.
fn stage(b: &mut KernelBuilder, cx: &Ctx, k0: Value, vectors: bool) {
    let width = if vectors { VEC } else { 1 };
    let a_src = |b: &mut KernelBuilder, r: Value, c: Value| {
        let row = b.add(cx.m0, r);
        let col = b.add(k0, c);
        (row, col, cx.m, cx.k, cx.pa)
    };
    let b_src = |b: &mut KernelBuilder, r: Value, c: Value| {
        let row = b.add(k0, r);
        let col = b.add(cx.n0, c);
        (row, col, cx.k, cx.n, cx.pb)
    };
    copy_tile(b, cx, cx.a_tile, A_STRIDE, (GEMM_BM, GEMM_BK), width, a_src);
    copy_tile(b, cx, cx.b_tile, B_STRIDE, (GEMM_BK, GEMM_BN), width, b_src);
}

/// Copies a `rows x cols` bf16 tile into shared memory (row stride `stride`) in pieces of
/// `width` elements, the workgroup's work-items striding over them; `src(r, c)` gives the
/// source row, column, row count, column count (= row length) and base pointer. A piece is
/// either wholly inside the matrix or zero-filled: with `width` > 1 the caller guarantees
/// that the column count is a multiple of `width`.
fn copy_tile(
    b: &mut KernelBuilder,
    cx: &Ctx,
    tile: Value,
    stride: u32,
    (rows, cols): (u32, u32),
    width: u32,
    src: impl Fn(&mut KernelBuilder, Value, Value) -> (Value, Value, Value, Value, Value),
) {
    let per_row = cols / width;
    let total = b.const_u32(rows * per_row);
    let ty = if width == 1 {
        Type::BF16
    } else {
        Type::Vector {
            elem: ScalarType::BF16,
            lanes: width,
        }
    };
    b.for_range(cx.tid, total, cx.threads, &[], |b, i, _| {
        let shift = b.const_u32(per_row.trailing_zeros());
        let r = b.shr(i, shift);
        let mask = b.const_u32(per_row - 1);
        let piece = b.and(i, mask);
        let w = b.const_u32(width);
        let c = b.mul(piece, w);
        let (row, col, nrows, ncols, base) = src(b, r, c);
        let row_ok = b.cmp(CmpPred::Lt, row, nrows);
        let col_ok = b.cmp(CmpPred::Lt, col, ncols);
        let ok = b.and(row_ok, col_ok);
        let v = b.if_else(
            ok,
            &[ty],
            |b| {
                let rn = b.mul(row, ncols);
                let idx = b.add(rn, col);
                let p = b.ptr_offset(base, idx, Type::BF16);
                vec![b.load(p, ty)]
            },
            |b| {
                let zero = b.constant(Constant::float(ScalarType::BF16, 0.0));
                vec![if width == 1 {
                    zero
                } else {
                    b.splat(zero, width)
                }]
            },
        )[0];
        let s = b.const_u32(stride);
        let rs = b.mul(r, s);
        let at = b.add(rs, c);
        let p = b.ptr_offset(tile, at, Type::BF16);
        b.store(p, v);
        vec![]
    });
}

/// Edge blocks: each fragment goes to the subgroup's scratch in shared memory, then its
/// lanes store the elements inside `c`. The branch around this is uniform over the
/// workgroup, so the barriers are too.
fn edge_store(b: &mut KernelBuilder, cx: &Ctx, pc: Value, tiles: Value, acc: &[Value]) {
    let sg = b.subgroup_id();
    let scratch_elems = b.const_u32(SCRATCH_ELEMS);
    let mine = b.mul(sg, scratch_elems);
    let scratch = b.ptr_offset(tiles, mine, Type::F32);
    let lane = b.subgroup_lane();
    let lanes = b.subgroup_size();
    let stride = b.const_u32(SCRATCH_STRIDE);
    for i in 0..FM {
        for j in 0..FN {
            b.frag_store(scratch, acc[(i * FN + j) as usize], stride);
            b.barrier();
            let row0 = frag_row(b, cx, i);
            let col0 = frag_col(b, cx, j);
            let count = b.const_u32(256);
            b.for_range(lane, count, lanes, &[], |b, e, _| {
                let four = b.const_u32(4);
                let r = b.shr(e, four);
                let fifteen = b.const_u32(15);
                let c = b.and(e, fifteen);
                let row = b.add(row0, r);
                let col = b.add(col0, c);
                let row_ok = b.cmp(CmpPred::Lt, row, cx.m);
                let col_ok = b.cmp(CmpPred::Lt, col, cx.n);
                let ok = b.and(row_ok, col_ok);
                b.if_then(ok, |b| {
                    let at = b.mul(r, stride);
                    let at = b.add(at, c);
                    let src = b.ptr_offset(scratch, at, Type::F32);
                    let v = b.load(src, Type::F32);
                    let rn = b.mul(row, cx.n);
                    let idx = b.add(rn, col);
                    let dst = b.ptr_offset(pc, idx, Type::F32);
                    b.store(dst, v);
                });
                vec![]
            });
            b.barrier();
        }
    }
}
