//! Reference kernels, built with [`KernelBuilder`], each with a host reference.
//!
//! The tests' build script compiles [`module`] for every target, and the same kernels run on
//! the CPU device and on GPUs, so they use only plain IR and document their launch shape.

pub mod compare;
pub mod mlp;
pub mod moe;

use half::bf16;
use kosmos_ir::{
    CmpPred, Dim, Kernel, KernelBuilder, Module, Ordering, RmwOp, ScalarType, Scope, Type,
};

/// Every reference kernel, as one module.
pub fn module() -> Module {
    Module {
        kernels: vec![
            vector_add(),
            workgroup_sum(),
            matmul_bf16(),
            histogram(),
            handshake(),
        ],
    }
}

/// `out[i] = a[i] + b[i]` for `i < n`; launch with `ceil(n / block)` workgroups of any block
/// size up to 256 (the tail workgroup is ragged).
pub fn vector_add() -> Kernel {
    let mut b = KernelBuilder::new("vector_add", 256);
    let a = b.param("a", Type::GLOBAL_PTR);
    let bb = b.param("b", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let n = b.param("n", Type::U32);
    let i = b.global_id_x();
    let inside = b.cmp(CmpPred::Lt, i, n);
    b.if_then(inside, |b| {
        let pa = b.ptr_offset(a, i, Type::F32);
        let x = b.load(pa, Type::F32);
        let pb = b.ptr_offset(bb, i, Type::F32);
        let y = b.load(pb, Type::F32);
        let s = b.add(x, y);
        let po = b.ptr_offset(out, i, Type::F32);
        b.store(po, s);
    });
    b.finish()
}

pub fn vector_add_ref(a: &[f32], b: &[f32]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| *x as f64 + *y as f64)
        .collect()
}

/// Largest block of [`workgroup_sum`].
pub const SUM_BLOCK: u32 = 256;

/// `partials[wg] = sum(input[wg * block .. (wg + 1) * block] ∩ [0, n))`: a tree reduction in
/// shared memory with a barrier per level. The block size (x only) must be a power of two up
/// to [`SUM_BLOCK`].
pub fn workgroup_sum() -> Kernel {
    let mut b = KernelBuilder::new("workgroup_sum", SUM_BLOCK);
    let input = b.param("input", Type::GLOBAL_PTR);
    let partials = b.param("partials", Type::GLOBAL_PTR);
    let n = b.param("n", Type::U32);
    let sh = b.shared_alloc("sh", Type::F32, SUM_BLOCK);
    let tid = b.workitem_id(Dim::X);
    let i = b.global_id_x();
    let inside = b.cmp(CmpPred::Lt, i, n);
    let v = b.if_else(
        inside,
        &[Type::F32],
        |b| {
            let p = b.ptr_offset(input, i, Type::F32);
            vec![b.load(p, Type::F32)]
        },
        |b| vec![b.const_f32(0.0)],
    )[0];
    let slot = b.ptr_offset(sh, tid, Type::F32);
    b.store(slot, v);
    b.barrier();
    let size = b.workgroup_size(Dim::X);
    let one = b.const_u32(1);
    let half = b.shr(size, one);
    b.loop_(&[half], &[], |b, args| {
        let s = args[0];
        let zero = b.const_u32(0);
        let done = b.cmp(CmpPred::Eq, s, zero);
        b.if_then(done, |b| b.break_(&[]));
        let low = b.cmp(CmpPred::Lt, tid, s);
        b.if_then(low, |b| {
            let j = b.add(tid, s);
            let pj = b.ptr_offset(sh, j, Type::F32);
            let x = b.load(pj, Type::F32);
            let mine = b.load(slot, Type::F32);
            let sum = b.add(mine, x);
            b.store(slot, sum);
        });
        b.barrier();
        let one = b.const_u32(1);
        vec![b.shr(s, one)]
    });
    let zero = b.const_u32(0);
    let first = b.cmp(CmpPred::Eq, tid, zero);
    b.if_then(first, |b| {
        let total = b.load(sh, Type::F32);
        let wg = b.workgroup_id(Dim::X);
        let p = b.ptr_offset(partials, wg, Type::F32);
        b.store(p, total);
    });
    b.finish()
}

pub fn workgroup_sum_ref(input: &[f32], block: usize) -> Vec<f64> {
    input
        .chunks(block)
        .map(|c| c.iter().map(|x| *x as f64).sum())
        .collect()
}

/// Tile edge of [`matmul_bf16`]: launch with block `[TILE, TILE, 1]` and grid
/// `[ceil(N / TILE), ceil(M / TILE), 1]`.
pub const TILE: u32 = 16;

/// `c[M,N] = a[M,K] * b[K,N]`: bf16 inputs, f32 accumulation and output, row major,
/// `TILE x TILE` tiles staged through shared memory; edges masked, so any sizes work.
pub fn matmul_bf16() -> Kernel {
    let mut b = KernelBuilder::new("matmul_bf16", TILE * TILE);
    let pa = b.param("a", Type::GLOBAL_PTR);
    let pb = b.param("b", Type::GLOBAL_PTR);
    let pc = b.param("c", Type::GLOBAL_PTR);
    let m = b.param("m", Type::U32);
    let n = b.param("n", Type::U32);
    let k = b.param("k", Type::U32);
    let a_tile = b.shared_alloc("a_tile", Type::F32, TILE * TILE);
    let b_tile = b.shared_alloc("b_tile", Type::F32, TILE * TILE);
    let tx = b.workitem_id(Dim::X);
    let ty = b.workitem_id(Dim::Y);
    let tile = b.const_u32(TILE);
    let wx = b.workgroup_id(Dim::X);
    let wy = b.workgroup_id(Dim::Y);
    let row0 = b.mul(wy, tile);
    let row = b.add(row0, ty);
    let col0 = b.mul(wx, tile);
    let col = b.add(col0, tx);
    let ty_tile = b.mul(ty, tile);
    let my = b.add(ty_tile, tx);
    let a_slot = b.ptr_offset(a_tile, my, Type::F32);
    let b_slot = b.ptr_offset(b_tile, my, Type::F32);
    let row_ok = b.cmp(CmpPred::Lt, row, m);
    let col_ok = b.cmp(CmpPred::Lt, col, n);
    let zero_u = b.const_u32(0);
    let zero_f = b.const_f32(0.0);
    let acc = b.for_range(zero_u, k, tile, &[zero_f], |b, kt, carried| {
        // Stage one tile of each input, zero outside the matrices.
        let ak = b.add(kt, tx);
        let ak_ok = b.cmp(CmpPred::Lt, ak, k);
        let a_ok = b.and(row_ok, ak_ok);
        let av = b.if_else(
            a_ok,
            &[Type::F32],
            |b| {
                let rk = b.mul(row, k);
                let idx = b.add(rk, ak);
                let p = b.ptr_offset(pa, idx, Type::BF16);
                let x = b.load(p, Type::BF16);
                vec![b.cast(x, ScalarType::F32)]
            },
            |b| vec![b.const_f32(0.0)],
        )[0];
        b.store(a_slot, av);
        let bk = b.add(kt, ty);
        let bk_ok = b.cmp(CmpPred::Lt, bk, k);
        let b_ok = b.and(bk_ok, col_ok);
        let bv = b.if_else(
            b_ok,
            &[Type::F32],
            |b| {
                let kn = b.mul(bk, n);
                let idx = b.add(kn, col);
                let p = b.ptr_offset(pb, idx, Type::BF16);
                let x = b.load(p, Type::BF16);
                vec![b.cast(x, ScalarType::F32)]
            },
            |b| vec![b.const_f32(0.0)],
        )[0];
        b.store(b_slot, bv);
        b.barrier();
        let zero = b.const_u32(0);
        let one = b.const_u32(1);
        let sum = b.for_range(zero, tile, one, &[carried[0]], |b, kk, acc| {
            let ai = b.add(ty_tile, kk);
            let pa = b.ptr_offset(a_tile, ai, Type::F32);
            let x = b.load(pa, Type::F32);
            let kk_tile = b.mul(kk, tile);
            let bi = b.add(kk_tile, tx);
            let pb = b.ptr_offset(b_tile, bi, Type::F32);
            let y = b.load(pb, Type::F32);
            vec![b.fma(x, y, acc[0])]
        })[0];
        b.barrier();
        vec![sum]
    })[0];
    let ok = b.and(row_ok, col_ok);
    b.if_then(ok, |b| {
        let rn = b.mul(row, n);
        let idx = b.add(rn, col);
        let p = b.ptr_offset(pc, idx, Type::F32);
        b.store(p, acc);
    });
    b.finish()
}

/// `C = A B` in f64 from bf16 inputs (row-major, `m x k` times `k x n`).
pub fn matmul_bf16_ref(a: &[bf16], b: &[bf16], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0f64; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p].to_f64();
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j].to_f64();
            }
        }
    }
    c
}

/// `bins[input[i] % nbins] += 1` for `i < n` with relaxed agent-scope atomic adds (u32).
pub fn histogram() -> Kernel {
    let mut b = KernelBuilder::new("histogram", 1024);
    let input = b.param("input", Type::GLOBAL_PTR);
    let bins = b.param("bins", Type::GLOBAL_PTR);
    let n = b.param("n", Type::U32);
    let nbins = b.param("nbins", Type::U32);
    let i = b.global_id_x();
    let inside = b.cmp(CmpPred::Lt, i, n);
    b.if_then(inside, |b| {
        let p = b.ptr_offset(input, i, Type::U32);
        let v = b.load(p, Type::U32);
        let bin = b.rem(v, nbins);
        let pb = b.ptr_offset(bins, bin, Type::U32);
        let one = b.const_u32(1);
        b.atomic_rmw(RmwOp::Add, pb, one, Ordering::Relaxed, Scope::Agent);
    });
    b.finish()
}

pub fn histogram_ref(input: &[u32], nbins: u32) -> Vec<u32> {
    let mut h = vec![0u32; nbins as usize];
    for v in input {
        h[(v % nbins) as usize] += 1;
    }
    h
}

/// Status written by [`handshake`] when the flag arrived.
pub const HANDSHAKE_OK: u32 = 1;
/// Status written by [`handshake`] when the wait gave up after `limit` polls.
pub const HANDSHAKE_TIMEOUT: u32 = 0xE0;

/// Two workgroups (grid 2, block up to 256): workgroup 0 writes `data[t] = 3 t + 7` for
/// `t < n`, then lane 0 release-stores 1 to `flag` (agent scope). Workgroup 1 acquire-polls
/// `flag` up to `limit` times; on success it copies `data` to `out`; lane 0 writes
/// [`HANDSHAKE_OK`] or [`HANDSHAKE_TIMEOUT`] to `status`.
pub fn handshake() -> Kernel {
    let mut b = KernelBuilder::new("handshake", 256);
    let data = b.param("data", Type::GLOBAL_PTR);
    let flag = b.param("flag", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let status = b.param("status", Type::GLOBAL_PTR);
    let n = b.param("n", Type::U32);
    let limit = b.param("limit", Type::U32);
    let wg = b.workgroup_id(Dim::X);
    let tid = b.workitem_id(Dim::X);
    let zero = b.const_u32(0);
    let inside = b.cmp(CmpPred::Lt, tid, n);
    let producer = b.cmp(CmpPred::Eq, wg, zero);
    let is_lane0 = b.cmp(CmpPred::Eq, tid, zero);
    b.if_else(
        producer,
        &[],
        |b| {
            b.if_then(inside, |b| {
                let three = b.const_u32(3);
                let seven = b.const_u32(7);
                let t3 = b.mul(tid, three);
                let v = b.add(t3, seven);
                let p = b.ptr_offset(data, tid, Type::U32);
                b.store(p, v);
            });
            b.barrier();
            b.if_then(is_lane0, |b| {
                let one = b.const_u32(1);
                b.atomic_store(flag, one, Ordering::Release, Scope::Agent);
            });
            vec![]
        },
        |b| {
            let code = b.loop_(&[zero], &[Type::U32], |b, args| {
                let polls = args[0];
                let f = b.atomic_load(flag, ScalarType::U32, Ordering::Acquire, Scope::Agent);
                let one = b.const_u32(1);
                let set = b.cmp(CmpPred::Eq, f, one);
                b.if_then(set, |b| {
                    let ok = b.const_u32(HANDSHAKE_OK);
                    b.break_(&[ok]);
                });
                let spent = b.cmp(CmpPred::Ge, polls, limit);
                b.if_then(spent, |b| {
                    let err = b.const_u32(HANDSHAKE_TIMEOUT);
                    b.break_(&[err]);
                });
                vec![b.add(polls, one)]
            })[0];
            let ok = b.const_u32(HANDSHAKE_OK);
            let arrived = b.cmp(CmpPred::Eq, code, ok);
            let copy = b.and(arrived, inside);
            b.if_then(copy, |b| {
                let p = b.ptr_offset(data, tid, Type::U32);
                let v = b.load(p, Type::U32);
                let q = b.ptr_offset(out, tid, Type::U32);
                b.store(q, v);
            });
            b.if_then(is_lane0, |b| b.store(status, code));
            vec![]
        },
    );
    b.finish()
}

pub fn handshake_ref(n: usize) -> Vec<u32> {
    (0..n as u32).map(|t| 3 * t + 7).collect()
}

/// The seed of a test's random inputs: `KOSMOS_SEED` to replay a run, else a fresh one;
/// printed either way.
pub fn seed() -> u64 {
    use rand::Rng;
    let seed = std::env::var("KOSMOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    println!("seed {seed}");
    seed
}

/// A reproducible stream of `len` bf16 values in [-1, 1) from `seed` (splitmix64).
pub fn random_bf16(seed: u64, len: usize) -> Vec<bf16> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            bf16::from_f64((z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
        })
        .collect()
}
