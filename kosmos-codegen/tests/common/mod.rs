//! Test kernels shared by the codegen tests (the reference kernels come from
//! kosmos-testkernels; tool helpers from `kosmos_codegen::check`).
#![allow(dead_code)] // the compile-time bench uses a subset

use kosmos_ir::{
    BinOp, CmpPred, Dim, IdKind, Kernel, KernelBuilder, Ordering, RmwOp, ScalarType, Scope, Type,
    UnOp, VerifiedModule,
};

/// A one-kernel module, verified (the code generator takes nothing else).
pub fn module(kernel: Kernel) -> VerifiedModule {
    let name = kernel.name.clone();
    kosmos_ir::verify(kernel)
        .unwrap_or_else(|e| panic!("test kernel {name} does not verify:\n{e}"))
        .into()
}

/// A single atomic (or fence, when `op` is None) on `flag`, result stored to `out`.
pub fn one_atomic(kind: &str, ordering: Ordering, scope: Scope) -> Kernel {
    let mut b = KernelBuilder::new(format!("atomic_{kind}"), 64);
    let flag = b.param("flag", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let one = b.const_u32(1);
    let two = b.const_u32(2);
    let result = match kind {
        "load" => Some(b.atomic_load(flag, ScalarType::U32, ordering, scope)),
        "store" => {
            b.atomic_store(flag, one, ordering, scope);
            None
        }
        "add" => Some(b.atomic_rmw(RmwOp::Add, flag, one, ordering, scope)),
        "cas" => Some(b.atomic_cas(flag, one, two, ordering, scope)),
        "fence" => {
            b.fence(ordering, scope);
            None
        }
        other => panic!("unknown atomic kind {other}"),
    };
    if let Some(r) = result {
        b.store(out, r);
    }
    b.finish()
}

/// Every rmw op on every 32/64-bit type it takes, plus cas on u64 and f32.
pub fn all_rmw() -> Kernel {
    let mut b = KernelBuilder::new("all_rmw", 128);
    let p = b.param("p", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let tile = b.shared_alloc("tile", Type::U32, 64);
    let mut k = 0i64;
    let mut sink = |b: &mut KernelBuilder, v| {
        let idx = b.const_i32(k as i32);
        k += 1;
        let q = b.ptr_offset(out, idx, Type::U64);
        b.store(q, v);
    };
    for ty in [
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::I64,
        ScalarType::U64,
    ] {
        let v = b.const_int(ty, 3);
        for op in [
            RmwOp::Add,
            RmwOp::Min,
            RmwOp::Max,
            RmwOp::Xchg,
            RmwOp::And,
            RmwOp::Or,
        ] {
            let r = b.atomic_rmw(op, p, v, Ordering::AcqRel, Scope::Agent);
            sink(&mut b, r);
        }
    }
    let f = b.const_f32(1.5);
    let r = b.atomic_rmw(RmwOp::Add, p, f, Ordering::Relaxed, Scope::System);
    sink(&mut b, r);
    let r = b.atomic_rmw(RmwOp::Xchg, p, f, Ordering::SeqCst, Scope::Workgroup);
    sink(&mut b, r);
    let u = b.const_u32(7);
    let r = b.atomic_rmw(RmwOp::Add, tile, u, Ordering::Release, Scope::Workgroup);
    sink(&mut b, r);
    let e = b.const_u64(1);
    let d = b.const_u64(2);
    let r = b.atomic_cas(p, e, d, Ordering::SeqCst, Scope::System);
    sink(&mut b, r);
    let r = b.atomic_cas(tile, u, u, Ordering::Acquire, Scope::Workgroup);
    sink(&mut b, r);
    let r = b.atomic_load(tile, ScalarType::U32, Ordering::Acquire, Scope::Workgroup);
    sink(&mut b, r);
    b.atomic_store(tile, u, Ordering::Release, Scope::Workgroup);
    for (o, s) in [
        (Ordering::Acquire, Scope::Workgroup),
        (Ordering::Release, Scope::Agent),
        (Ordering::AcqRel, Scope::System),
        (Ordering::SeqCst, Scope::Agent),
    ] {
        b.fence(o, s);
    }
    b.finish()
}

/// Shared memory staging with a barrier: out[tid] = in[tid] read back through shared.
pub fn shared_reverse() -> Kernel {
    let mut b = KernelBuilder::new("shared_reverse", 256);
    let input = b.param("input", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let tile = b.shared_alloc("tile", Type::F32, 256);
    let tid = b.workitem_id(Dim::X);
    let pi = b.ptr_offset(input, tid, Type::F32);
    let v = b.load(pi, Type::F32);
    let ps = b.ptr_offset(tile, tid, Type::F32);
    b.store(ps, v);
    b.barrier();
    let last = b.const_u32(255);
    let rev = b.sub(last, tid);
    let pr = b.ptr_offset(tile, rev, Type::F32);
    let r = b.load(pr, Type::F32);
    let po = b.ptr_offset(out, tid, Type::F32);
    b.store(po, r);
    b.finish()
}

/// vec<4 x f32> loads, lane ops and stores.
pub fn vectors() -> Kernel {
    let v4 = Type::Vector {
        elem: ScalarType::F32,
        lanes: 4,
    };
    let mut b = KernelBuilder::new("vectors", 256);
    let input = b.param("input", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let i = b.global_id_x();
    let p = b.ptr_offset(input, i, v4);
    let v = b.load(p, v4);
    let x = b.extract(v, 2);
    let s = b.splat(x, 4);
    let sum = b.add(v, s);
    let y = b.const_f32(7.0);
    let w = b.insert(sum, 0, y);
    let q = b.ptr_offset(out, i, v4);
    b.store(q, w);
    b.finish()
}

/// Every conversion family: int<->int, int<->float, float<->float (bf16, f16), bitcast.
pub fn casts() -> Kernel {
    let mut b = KernelBuilder::new("casts", 256);
    let input = b.param("input", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let i = b.global_id_x();
    let p = b.ptr_offset(input, i, Type::F32);
    let x = b.load(p, Type::F32);
    let mut slot = 0i32;
    let mut put = |b: &mut KernelBuilder, v| {
        let idx = b.const_i32(slot);
        slot += 1;
        let q = b.ptr_offset(out, idx, Type::U64);
        b.store(q, v);
    };
    let bf = b.cast(x, ScalarType::BF16);
    put(&mut b, bf);
    let back = b.cast(bf, ScalarType::F32);
    put(&mut b, back);
    let h = b.cast(x, ScalarType::F16);
    put(&mut b, h);
    let hb = b.cast(h, ScalarType::BF16);
    put(&mut b, hb);
    let d = b.cast(x, ScalarType::F64);
    put(&mut b, d);
    let si = b.cast(x, ScalarType::I32);
    put(&mut b, si);
    let ui = b.cast(x, ScalarType::U8);
    put(&mut b, ui);
    let wide = b.cast(si, ScalarType::I64);
    put(&mut b, wide);
    let zwide = b.cast(ui, ScalarType::U64);
    put(&mut b, zwide);
    let narrow = b.cast(wide, ScalarType::I16);
    put(&mut b, narrow);
    let f = b.cast(narrow, ScalarType::F32);
    put(&mut b, f);
    let uf = b.cast(ui, ScalarType::BF16);
    put(&mut b, uf);
    let bits = b.bitcast(x, ScalarType::U32);
    put(&mut b, bits);
    let flag = b.cmp(CmpPred::Gt, x, back);
    let fb = b.cast(flag, ScalarType::U32);
    put(&mut b, fb);
    b.finish()
}

/// Every binary, unary, fma, cmp and select on a range of types.
pub fn arithmetic() -> Kernel {
    let mut b = KernelBuilder::new("arithmetic", 256);
    let input = b.param("input", Type::GLOBAL_PTR);
    let out = b.param("out", Type::GLOBAL_PTR);
    let i = b.global_id_x();
    let mut slot = 0i32;
    let mut put = |b: &mut KernelBuilder, v| {
        let idx = b.const_i32(slot);
        slot += 1;
        let q = b.ptr_offset(out, idx, Type::U64);
        b.store(q, v);
    };
    let int_types = [
        ScalarType::I8,
        ScalarType::U16,
        ScalarType::I32,
        ScalarType::U32,
        ScalarType::I64,
        ScalarType::U64,
    ];
    let float_types = [
        ScalarType::F16,
        ScalarType::BF16,
        ScalarType::F32,
        ScalarType::F64,
    ];
    for ty in int_types.into_iter().chain(float_types) {
        let p = b.ptr_offset(input, i, ty);
        let x = b.load(p, ty);
        let one = if ty.is_float() {
            b.constant(kosmos_ir::Constant::float(ty, 1.25))
        } else {
            b.const_int(ty, 3)
        };
        let bin: &[BinOp] = if ty.is_float() {
            &[
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::Div,
                BinOp::Min,
                BinOp::Max,
            ]
        } else {
            BinOp::ALL
        };
        for op in bin {
            let r = b.binary(*op, x, one);
            put(&mut b, r);
        }
        // exp2/log2 take no f64 on GPUs; `not` takes integers.
        let un: &[UnOp] = match ty {
            ScalarType::F64 => &[UnOp::Neg, UnOp::Abs, UnOp::Sqrt],
            t if t.is_float() => &[UnOp::Neg, UnOp::Abs, UnOp::Sqrt, UnOp::Exp2, UnOp::Log2],
            t if t.is_signed_int() => &[UnOp::Neg, UnOp::Not, UnOp::Abs],
            _ => &[UnOp::Not],
        };
        for op in un {
            let r = b.unary(*op, x);
            put(&mut b, r);
        }
        if ty.is_float() {
            let r = b.fma(x, one, x);
            put(&mut b, r);
        }
        for pred in CmpPred::ALL {
            let c = b.cmp(*pred, x, one);
            let s = b.select(c, x, one);
            put(&mut b, s);
        }
    }
    let t = b.const_bool(true);
    let f = b.cmp(CmpPred::Eq, i, i);
    let x = b.xor(t, f);
    let n = b.unary(UnOp::Not, x);
    put(&mut b, n);
    b.finish()
}

/// for (with carried values), loop/break, if with results, return, and every id.
pub fn control_flow() -> Kernel {
    let mut b = KernelBuilder::new("control_flow", 1024);
    let out = b.param("out", Type::GLOBAL_PTR);
    let n = b.param("n", Type::I32);
    let mut ids = Vec::new();
    for kind in IdKind::ALL {
        // Subgroup ids have no dimension (x stands for none).
        let dims: &[Dim] = if kind.has_dim() { Dim::ALL } else { &[Dim::X] };
        for dim in dims {
            ids.push(b.id(*kind, *dim));
        }
    }
    let tid = ids[0];
    let zero = b.const_i32(0);
    let one = b.const_i32(1);
    let fzero = b.const_f32(0.0);
    let sums = b.for_range(zero, n, one, &[fzero, zero], |b, iv, acc| {
        let f = b.cast(iv, ScalarType::F32);
        let s = b.add(acc[0], f);
        let c = b.add(acc[1], iv);
        vec![s, c]
    });
    let found = b.loop_(&[zero], &[Type::I32], |b, args| {
        let done = b.cmp(CmpPred::Ge, args[0], n);
        b.if_then(done, |b| b.break_(&[args[0]]));
        let next = b.add(args[0], one);
        vec![next]
    });
    let is_zero = b.cmp(CmpPred::Eq, tid, ids[1]);
    let picked = b.if_else(
        is_zero,
        &[Type::F32],
        |_| vec![sums[0]],
        |b| {
            let f = b.cast(found[0], ScalarType::F32);
            vec![f]
        },
    );
    let big = b.cmp(CmpPred::Gt, found[0], sums[1]);
    b.if_then(big, |b| b.ret());
    let p = b.ptr_offset(out, tid, Type::F32);
    b.store(p, picked[0]);
    let mut acc = ids[0];
    for id in &ids[1..] {
        acc = b.add(acc, *id);
    }
    let q = b.ptr_offset(out, one, Type::U32);
    b.store(q, acc);
    b.finish()
}

/// Every lane copies 16-byte chunks of `a` (24 KiB: an `a` and a `b` tile) into shared memory
/// with `copy.async`, then a group product accumulates it and every subgroup stores its slab,
/// plainly and masked to `rows x cols`.
pub fn group_product() -> Kernel {
    let mut b = KernelBuilder::new("group_product", 512);
    let a = b.param("a", Type::GLOBAL_PTR);
    let c = b.param("c", Type::GLOBAL_PTR);
    let rows = b.param("rows", Type::U32);
    let cols = b.param("cols", Type::U32);
    let tiles = b.shared_alloc("tiles", Type::U32, 6144);
    let tid = b.workitem_id(Dim::X);
    let four = b.const_u32(4);
    let limit = b.const_u32(6144);
    let size = b.workgroup_size(Dim::X);
    let step = b.mul(size, four);
    let first = b.mul(tid, four);
    b.for_range(first, limit, step, &[], |b, i, _| {
        let dst = b.ptr_offset(tiles, i, Type::U32);
        let src = b.ptr_offset(a, i, Type::U32);
        let inside = b.cmp(CmpPred::Lt, i, rows);
        b.copy_async(dst, src, inside);
        vec![]
    });
    b.async_commit();
    b.async_wait(0);
    b.barrier();
    let zero = b.wide_zero();
    let off = b.const_u32(2048);
    let tb = b.ptr_offset(tiles, off, Type::U32);
    let acc = b.mma_group(tiles, tb, zero);
    let sg = b.subgroup_id();
    let slab = b.const_u32(16 * 128);
    let at = b.mul(sg, slab);
    let pc = b.ptr_offset(c, at, Type::F32);
    let stride = b.const_u32(128);
    b.frag_store(pc, acc, stride);
    b.frag_store_within(pc, acc, stride, rows, cols);
    let mut k = b.finish();
    k.max_subgroups = Some(8);
    k
}
