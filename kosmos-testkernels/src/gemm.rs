//! A bf16 GEMM on register fragments: `c[M,N] = a[M,K] x b[K,N]`, row major, f32
//! accumulation and output, any sizes (edges masked).
//!
//! A workgroup of [`GEMM_SUBGROUPS`] subgroups computes a [`GEMM_BM`] x [`GEMM_BN`] block of
//! `c`. Per [`GEMM_BK`]-deep step it stages the block's `a` and `b` tiles in shared memory,
//! zero-filled outside the matrices (so fragment loads never see the ragged edges), and
//! each subgroup accumulates its own 2x2 grid of 16x16 fragments (32x32 of `c`). The
//! result goes through shared memory too, so the masked store to `c` needs no alignment.
//! The subgroup size is read, never assumed: launch with `GEMM_SUBGROUPS * subgroup size`
//! work-items in x and a grid of `[ceil(N / GEMM_BN), ceil(M / GEMM_BM)]`.

use kosmos_ir::{CmpPred, Constant, Dim, FragRole, Kernel, KernelBuilder, ScalarType, Type, Value};

pub const GEMM_BM: u32 = 64;
pub const GEMM_BN: u32 = 64;
pub const GEMM_BK: u32 = 32;
/// Subgroups per workgroup, as a 2x2 grid over the block.
pub const GEMM_SUBGROUPS: u32 = 4;
/// Padded shared-memory row strides (in elements): multiples of 8, as fragment loads need,
/// and off the bank period so the subgroup's rows do not collide.
const A_STRIDE: u32 = GEMM_BK + 8;
const B_STRIDE: u32 = GEMM_BN + 8;
const C_STRIDE: u32 = GEMM_BN + 8;
/// Fragments per subgroup along M and N.
const FRAGS: u32 = 2;

/// Work-items of a GEMM workgroup for a device with `subgroup_size` lanes per subgroup.
pub fn gemm_block(subgroup_size: u32) -> u32 {
    GEMM_SUBGROUPS * subgroup_size
}

/// `[ceil(n / GEMM_BN), ceil(m / GEMM_BM), 1]`.
pub fn gemm_grid(m: u32, n: u32) -> [u32; 3] {
    [n.div_ceil(GEMM_BN), m.div_ceil(GEMM_BM), 1]
}

pub fn gemm_bf16_mma() -> Kernel {
    let mut b = KernelBuilder::new("gemm_bf16_mma", GEMM_SUBGROUPS * 64);
    let pa = b.param("a", Type::GLOBAL_PTR);
    let pb = b.param("b", Type::GLOBAL_PTR);
    let pc = b.param("c", Type::GLOBAL_PTR);
    let m = b.param("m", Type::U32);
    let n = b.param("n", Type::U32);
    let k = b.param("k", Type::U32);
    let a_tile = b.shared_alloc("a_tile", Type::BF16, GEMM_BM * A_STRIDE);
    let b_tile = b.shared_alloc("b_tile", Type::BF16, GEMM_BK * B_STRIDE);
    let c_tile = b.shared_alloc("c_tile", Type::F32, GEMM_BM * C_STRIDE);
    let tid = b.workitem_id(Dim::X);
    let threads = b.workgroup_size(Dim::X);
    let sg = b.subgroup_id();
    let one = b.const_u32(1);
    let sg_m = b.shr(sg, one);
    let sg_n = b.and(sg, one);
    let span = b.const_u32(16 * FRAGS);
    let sub_row = b.mul(sg_m, span);
    let sub_col = b.mul(sg_n, span);
    let wx = b.workgroup_id(Dim::X);
    let wy = b.workgroup_id(Dim::Y);
    let bm = b.const_u32(GEMM_BM);
    let bn = b.const_u32(GEMM_BN);
    let m0 = b.mul(wy, bm);
    let n0 = b.mul(wx, bn);
    let zero = b.const_u32(0);
    let bf_zero = b.constant(Constant::float(ScalarType::BF16, 0.0));
    let inits: Vec<Value> = (0..FRAGS * FRAGS).map(|_| b.frag_zero()).collect();
    let bk = b.const_u32(GEMM_BK);
    let acc = b.for_range(zero, k, bk, &inits, |b, k0, acc| {
        // Stage a[m0.., k0..] and b[k0.., n0..], zero outside the matrices.
        stage(
            b,
            tid,
            threads,
            a_tile,
            A_STRIDE,
            (GEMM_BM, GEMM_BK),
            |b, r, c| {
                let row = b.add(m0, r);
                let col = b.add(k0, c);
                (row, col, m, k, pa)
            },
            bf_zero,
        );
        stage(
            b,
            tid,
            threads,
            b_tile,
            B_STRIDE,
            (GEMM_BK, GEMM_BN),
            |b, r, c| {
                let row = b.add(k0, r);
                let col = b.add(n0, c);
                (row, col, k, n, pb)
            },
            bf_zero,
        );
        b.barrier();
        let mut acc = acc.to_vec();
        for kk in (0..GEMM_BK).step_by(16) {
            let a_stride = b.const_u32(A_STRIDE);
            let b_stride = b.const_u32(B_STRIDE);
            let frags_a: Vec<Value> = (0..FRAGS)
                .map(|i| {
                    let r = b.const_u32(16 * i);
                    let row = b.add(sub_row, r);
                    let at = b.mul(row, a_stride);
                    let kkv = b.const_u32(kk);
                    let at = b.add(at, kkv);
                    let p = b.ptr_offset(a_tile, at, Type::BF16);
                    b.frag_load(FragRole::A, p, a_stride)
                })
                .collect();
            let frags_b: Vec<Value> = (0..FRAGS)
                .map(|j| {
                    let row = b.const_u32(kk * B_STRIDE + 16 * j);
                    let at = b.add(row, sub_col);
                    let p = b.ptr_offset(b_tile, at, Type::BF16);
                    b.frag_load(FragRole::B, p, b_stride)
                })
                .collect();
            for i in 0..FRAGS {
                for j in 0..FRAGS {
                    let x = &mut acc[(i * FRAGS + j) as usize];
                    *x = b.mma(frags_a[i as usize], frags_b[j as usize], *x);
                }
            }
        }
        b.barrier();
        acc
    });
    let c_stride = b.const_u32(C_STRIDE);
    for i in 0..FRAGS {
        for j in 0..FRAGS {
            let r = b.const_u32(16 * i);
            let row = b.add(sub_row, r);
            let at = b.mul(row, c_stride);
            let cj = b.const_u32(16 * j);
            let col = b.add(sub_col, cj);
            let at = b.add(at, col);
            let p = b.ptr_offset(c_tile, at, Type::F32);
            b.frag_store(p, acc[(i * FRAGS + j) as usize], c_stride);
        }
    }
    b.barrier();
    let total = b.const_u32(GEMM_BM * GEMM_BN);
    b.for_range(tid, total, threads, &[], |b, i, _| {
        let shift = b.const_u32(GEMM_BN.trailing_zeros());
        let r = b.shr(i, shift);
        let mask = b.const_u32(GEMM_BN - 1);
        let c = b.and(i, mask);
        let row = b.add(m0, r);
        let col = b.add(n0, c);
        let row_ok = b.cmp(CmpPred::Lt, row, m);
        let col_ok = b.cmp(CmpPred::Lt, col, n);
        let ok = b.and(row_ok, col_ok);
        b.if_then(ok, |b| {
            let at = b.mul(r, c_stride);
            let at = b.add(at, c);
            let src = b.ptr_offset(c_tile, at, Type::F32);
            let v = b.load(src, Type::F32);
            let rn = b.mul(row, n);
            let idx = b.add(rn, col);
            let dst = b.ptr_offset(pc, idx, Type::F32);
            b.store(dst, v);
        });
        vec![]
    });
    b.finish()
}

/// Copies a `rows x cols` bf16 tile into shared memory (row stride `stride`), the
/// workgroup's work-items striding over it; `at(r, c)` gives the source row, column, row
/// count, column count (= row length) and base pointer. Elements outside are zero.
#[allow(clippy::too_many_arguments)]
fn stage(
    b: &mut KernelBuilder,
    tid: Value,
    threads: Value,
    tile: Value,
    stride: u32,
    (rows, cols): (u32, u32),
    at: impl Fn(&mut KernelBuilder, Value, Value) -> (Value, Value, Value, Value, Value),
    zero: Value,
) {
    let total = b.const_u32(rows * cols);
    b.for_range(tid, total, threads, &[], |b, i, _| {
        let shift = b.const_u32(cols.trailing_zeros());
        let r = b.shr(i, shift);
        let mask = b.const_u32(cols - 1);
        let c = b.and(i, mask);
        let (row, col, nrows, ncols, base) = at(b, r, c);
        let row_ok = b.cmp(CmpPred::Lt, row, nrows);
        let col_ok = b.cmp(CmpPred::Lt, col, ncols);
        let ok = b.and(row_ok, col_ok);
        let v = b.if_else(
            ok,
            &[Type::BF16],
            |b| {
                let rn = b.mul(row, ncols);
                let idx = b.add(rn, col);
                let p = b.ptr_offset(base, idx, Type::BF16);
                vec![b.load(p, Type::BF16)]
            },
            |_| vec![zero],
        )[0];
        let s = b.const_u32(stride);
        let rs = b.mul(r, s);
        let at = b.add(rs, c);
        let p = b.ptr_offset(tile, at, Type::BF16);
        b.store(p, v);
        vec![]
    });
}
