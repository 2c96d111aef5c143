//! Verifier tests: every error kind triggered alone by a small kernel, and valid kernels.

use kosmos_ir::VerifyErrorKind as K;
use kosmos_ir::*;

fn errors(kernel: &Kernel) -> Vec<VerifyError> {
    verify(kernel.clone())
        .err()
        .map(|e| e.0)
        .unwrap_or_default()
}

/// Asserts exactly one error, of `kind`, reported on `op`, which the message names.
fn expect_one(kernel: &Kernel, kind: VerifyErrorKind, op: &str) -> VerifyError {
    let errs = errors(kernel);
    assert_eq!(errs.len(), 1, "expected one {kind:?}, got {errs:#?}");
    let e = errs.into_iter().next().unwrap();
    assert_eq!(e.kind, kind, "{e}");
    assert_eq!(e.op, op, "{e}");
    assert!(e.to_string().contains(&format!("`{op}`")), "{e}");
    assert!(e.to_string().starts_with(&kernel.name), "{e}");
    e
}

fn kb() -> KernelBuilder {
    KernelBuilder::new("k", 256)
}

fn global_param(b: &mut KernelBuilder) -> Value {
    b.param("out", Type::GLOBAL_PTR)
}

fn vec4_f32(b: &mut KernelBuilder) -> Value {
    let x = b.const_f32(1.0);
    b.splat(x, 4)
}

// ---- valid kernels ----

#[test]
fn vector_add_is_valid() {
    verify(kosmos_testkernels::vector_add()).unwrap();
}

/// A kernel using every op family and construct.
fn rich_kernel() -> Kernel {
    let mut b = kb();
    let out = global_param(&mut b);
    let flag = b.param("flag", Type::GLOBAL_PTR);
    let table = b.param("table", Type::Ptr(AddrSpace::Constant));
    let tile = b.shared_alloc("tile", Type::F32, 256);
    let counter = b.shared_alloc("counter", Type::U32, 1);
    let lane = b.workitem_id(Dim::X);
    let zero = b.const_u32(0);
    let one = b.const_u32(1);
    let ten = b.const_u32(10);
    let fzero = b.const_f32(0.0);
    // A for carrying a float, with a nested if producing a value.
    let sum = b.for_range(zero, ten, one, &[fzero], |b, iv, carried| {
        let odd = b.and(iv, one);
        let is_odd = b.cmp(CmpPred::Ne, odd, zero);
        let pt = b.ptr_offset(table, iv, Type::F32);
        let t = b.load(pt, Type::F32);
        let add = b.if_else(
            is_odd,
            &[Type::F32],
            |b| vec![b.add(carried[0], t)],
            |_| vec![carried[0]],
        );
        vec![add[0]]
    });
    let ps = b.ptr_offset(tile, lane, Type::F32);
    b.store(ps, sum[0]);
    // A barrier in divergent control flow is left to the CPU device's run-time check.
    let first = b.cmp(CmpPred::Eq, lane, zero);
    b.if_then(first, |b| b.barrier());
    b.barrier();
    // A loop spinning on a flag, leaving through a break inside an if.
    let got = b.loop_(&[zero], &[Type::U32], |b, carried| {
        let v = b.atomic_load(flag, ScalarType::U32, Ordering::Acquire, Scope::System);
        let done = b.cmp(CmpPred::Ne, v, zero);
        b.if_then(done, |b| b.break_(&[v]));
        vec![b.add(carried[0], one)]
    });
    // Wide scopes on shared memory are allowed (conservative).
    b.atomic_rmw(RmwOp::Add, counter, got[0], Ordering::AcqRel, Scope::System);
    let f = b.const_f32(2.0);
    b.atomic_rmw(RmwOp::Add, out, f, Ordering::Relaxed, Scope::Agent);
    b.atomic_rmw(RmwOp::Xchg, out, f, Ordering::Relaxed, Scope::Agent);
    b.atomic_cas(out, zero, one, Ordering::SeqCst, Scope::Agent);
    b.atomic_store(flag, one, Ordering::Release, Scope::System);
    b.fence(Ordering::AcqRel, Scope::Agent);
    // Vectors, casts and bitcasts.
    let v = b.splat(f, 4);
    let w = b.insert(v, 3, fzero);
    let x = b.extract(w, 3);
    let bits = b.bitcast(x, ScalarType::U32);
    let back = b.cast(bits, ScalarType::F64);
    let narrow = b.cast(back, ScalarType::BF16);
    let t = b.const_bool(true);
    let from_bool = b.cast(t, ScalarType::F32);
    let nt = b.unary(UnOp::Not, t);
    let both = b.and(t, nt);
    let picked = b.select(both, x, from_bool);
    let r = b.fma(picked, picked, x);
    let vp = b.ptr_offset(
        out,
        lane,
        Type::Vector {
            elem: ScalarType::F32,
            lanes: 4,
        },
    );
    b.store(vp, w);
    let nb = b.unary(UnOp::Neg, narrow);
    let _ = b.cast(nb, ScalarType::I8);
    let _ = b.unary(UnOp::Sqrt, r);
    b.ret();
    b.finish()
}

#[test]
fn control_flow_atomics_shared_vectors_are_valid() {
    verify(rich_kernel()).unwrap();
}

/// Retyping values at random (malformed vectors included) and redirecting results yields
/// errors, never a panic.
#[test]
fn random_retyping_never_panics() {
    let pool = [
        Type::I1,
        Type::I32,
        Type::U64,
        Type::F32,
        Type::BF16,
        Type::GLOBAL_PTR,
        Type::SHARED_PTR,
        Type::Ptr(AddrSpace::Constant),
        Type::Vector {
            elem: ScalarType::F32,
            lanes: 4,
        },
        Type::Vector {
            elem: ScalarType::I1,
            lanes: 8,
        },
        Type::Vector {
            elem: ScalarType::F64,
            lanes: u32::MAX,
        },
    ];
    let base = rich_kernel();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        // xorshift64: deterministic, no dependency.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..300 {
        let mut k = base.clone();
        for _ in 0..4 {
            let i = next() as usize % k.values.len();
            k.values[i].ty = pool[next() as usize % pool.len()];
        }
        if next() % 4 == 0 {
            let i = next() as usize % k.body.insts.len();
            k.body.insts[i].results = vec![Value(next() as u32 % 200)];
        }
        let _ = verify(k.clone());
    }
}

#[test]
fn module_of_distinct_kernels_is_valid() {
    let module = Module {
        kernels: vec![kb().finish(), KernelBuilder::new("other", 1024).finish()],
    };
    verify_module(module.clone()).unwrap();
}

// ---- kernel header ----

#[test]
fn kernel_names_are_identifiers() {
    for bad in ["", "names.v2", "2fast", "a-b"] {
        let e = expect_one(
            &KernelBuilder::new(bad, 64).finish(),
            K::KernelName,
            KERNEL_OP,
        );
        assert!(e.to_string().contains("is not an identifier"), "{e}");
    }
}

#[test]
fn duplicate_kernel_name() {
    let module = Module {
        kernels: vec![kb().finish(), kb().finish()],
    };
    let errs = verify_module(module.clone()).unwrap_err().0;
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].kind, K::DuplicateKernelName);
    assert_eq!(errs[0].op, KERNEL_OP);
}

#[test]
fn workgroup_size_bounds() {
    for size in [0, 1025, u32::MAX] {
        let e = expect_one(
            &KernelBuilder::new("k", size).finish(),
            K::WorkgroupSize,
            KERNEL_OP,
        );
        assert!(e.message.contains(&size.to_string()));
    }
}

#[test]
fn malformed_param_type() {
    let mut b = kb();
    b.param(
        "v",
        Type::Vector {
            elem: ScalarType::F64,
            lanes: 3,
        },
    );
    expect_one(&b.finish(), K::MalformedType, KERNEL_OP);
}

#[test]
fn malformed_splat_result() {
    let mut b = kb();
    let x = b.const_f32(1.0);
    b.splat(x, 17);
    expect_one(&b.finish(), K::MalformedType, "vec.splat");
}

#[test]
fn malformed_bitcast_target() {
    let mut b = kb();
    let x = b.const_u32(1);
    b.bitcast(
        x,
        Type::Vector {
            elem: ScalarType::I1,
            lanes: 32,
        },
    );
    expect_one(&b.finish(), K::MalformedType, "bitcast");
}

#[test]
fn malformed_if_result_type() {
    let mut b = kb();
    let c = b.const_bool(true);
    let bad = Type::Vector {
        elem: ScalarType::U8,
        lanes: u32::MAX,
    };
    b.if_else(c, &[bad], |_| vec![], |_| vec![]);
    // The regions cannot yield a value of the malformed type, so they mismatch too.
    let kinds: Vec<_> = errors(&b.finish()).into_iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [K::MalformedType, K::YieldMismatch, K::YieldMismatch]
    );
}

// ---- SSA values ----

#[test]
fn value_out_of_range() {
    let mut b = kb();
    let out = global_param(&mut b);
    let mut k = b.finish();
    k.body.insts.push(Inst {
        op: Op::Store {
            ptr: out,
            value: Value(99),
            align: 4,
        },
        results: vec![],
        loc: None,
    });
    let e = expect_one(&k, K::ValueOutOfRange, "store");
    assert!(e.message.contains("%99"), "{e}");
}

#[test]
fn out_of_range_everywhere_does_not_panic() {
    let bad = Value(u32::MAX);
    let ops = vec![
        Op::Binary {
            op: BinOp::Add,
            lhs: bad,
            rhs: bad,
        },
        Op::Fma {
            a: bad,
            b: bad,
            c: bad,
        },
        Op::Splat {
            value: bad,
            lanes: u32::MAX,
        },
        Op::Insert {
            vector: bad,
            lane: 9,
            value: bad,
        },
        Op::AtomicCas {
            ptr: bad,
            expected: bad,
            desired: bad,
            ordering: Ordering::Relaxed,
            scope: Scope::Agent,
        },
        Op::SharedAlloc {
            elem: Type::Vector {
                elem: ScalarType::F64,
                lanes: u32::MAX,
            },
            count: u32::MAX,
        },
        Op::For {
            range: ForRange {
                lb: bad,
                ub: bad,
                step: bad,
            },
            inits: vec![bad],
            body: Region {
                args: vec![bad],
                insts: vec![],
            },
        },
        Op::Loop {
            inits: vec![bad],
            body: Region::default(),
            result_types: vec![],
        },
        Op::Break { values: vec![bad] },
    ];
    let mut k = kb().finish();
    k.params.push(bad);
    for op in ops {
        k.body.insts.push(Inst {
            op,
            results: vec![bad, Value(7)],
            loc: None,
        });
    }
    let errs = errors(&k);
    assert!(errs.iter().any(|e| e.kind == K::ValueOutOfRange));
    assert!(errs.iter().any(|e| e.kind == K::ResultCount));
}

#[test]
fn use_before_definition() {
    let mut b = kb();
    let x = b.const_i32(1);
    b.add(x, x);
    let mut k = b.finish();
    k.body.insts.swap(0, 1);
    expect_one(&k, K::UndefinedValue, "add");
}

#[test]
fn use_out_of_scope() {
    let mut b = kb();
    let c = b.const_bool(true);
    let mut inner = None;
    b.if_then(c, |b| inner = Some(b.const_i32(1)));
    let inner = inner.unwrap();
    b.add(inner, inner);
    let e = expect_one(&b.finish(), K::OutOfScope, "add");
    // const, if, const, yield, yield (the implicit else), add.
    assert_eq!(e.pos, InstPos::Index(5));
}

#[test]
fn loop_argument_out_of_scope_after_loop() {
    let mut b = kb();
    let zero = b.const_u32(0);
    let mut arg = None;
    b.loop_(&[zero], &[], |b, args| {
        arg = Some(args[0]);
        b.break_(&[]);
        vec![]
    });
    let arg = arg.unwrap();
    b.add(arg, zero);
    expect_one(&b.finish(), K::OutOfScope, "add");
}

#[test]
fn redefinition() {
    let mut b = kb();
    b.const_i32(1);
    b.const_i32(2);
    let mut k = b.finish();
    k.body.insts[1].results = k.body.insts[0].results.clone();
    expect_one(&k, K::Redefinition, "const");
}

#[test]
fn result_count() {
    let mut b = kb();
    b.const_i32(1);
    let mut k = b.finish();
    k.body.insts[0].results.clear();
    expect_one(&k, K::ResultCount, "const");
}

#[test]
fn result_type() {
    let mut b = kb();
    let x = b.const_i32(1);
    let mut k = b.finish();
    k.values[x.index()].ty = Type::F32;
    expect_one(&k, K::ResultType, "const");
}

#[test]
fn constant_bits() {
    let mut b = kb();
    b.constant(Constant {
        ty: ScalarType::I8,
        bits: 0x100,
    });
    expect_one(&b.finish(), K::ConstantBits, "const");
}

// ---- typing ----

#[test]
fn operand_mismatch() {
    let mut b = kb();
    let x = b.const_i32(1);
    let y = b.const_u32(1);
    b.add(x, y);
    expect_one(&b.finish(), K::OperandMismatch, "add");
}

#[test]
fn binary_types() {
    let cases: [(BinOp, Type); 5] = [
        (BinOp::And, Type::F32),
        (BinOp::Rem, Type::F32),
        (BinOp::Add, Type::I1),
        (BinOp::Shl, Type::I1),
        (BinOp::Add, Type::GLOBAL_PTR),
    ];
    for (op, ty) in cases {
        let mut b = kb();
        let p = b.param("x", ty);
        b.binary(op, p, p);
        expect_one(&b.finish(), K::BinaryType, op.name());
    }
}

#[test]
fn unary_types() {
    let cases = [
        (UnOp::Sqrt, Type::I32),
        (UnOp::Neg, Type::U32),
        (UnOp::Abs, Type::I1),
        (UnOp::Not, Type::F32),
        (UnOp::Exp2, Type::GLOBAL_PTR),
    ];
    for (op, ty) in cases {
        let mut b = kb();
        let p = b.param("x", ty);
        b.unary(op, p);
        expect_one(&b.finish(), K::UnaryType, op.name());
    }
}

#[test]
fn fma_on_integers() {
    let mut b = kb();
    let x = b.const_i32(1);
    b.fma(x, x, x);
    expect_one(&b.finish(), K::FmaType, "fma");
}

#[test]
fn cmp_on_vectors() {
    let mut b = kb();
    let v = vec4_f32(&mut b);
    b.cmp(CmpPred::Eq, v, v);
    expect_one(&b.finish(), K::CmpType, "cmp");
}

#[test]
fn select_condition() {
    let mut b = kb();
    let x = b.const_i32(1);
    b.select(x, x, x);
    expect_one(&b.finish(), K::SelectCondition, "select");
}

#[test]
fn cast_types() {
    let mut b = kb();
    let p = global_param(&mut b);
    b.cast(p, ScalarType::U64);
    expect_one(&b.finish(), K::CastType, "cast");

    let mut b = kb();
    let x = b.const_i32(1);
    b.cast(x, ScalarType::I1);
    expect_one(&b.finish(), K::CastType, "cast");

    let mut b = kb();
    let x = b.const_i32(1);
    b.cast(x, Type::GLOBAL_PTR);
    expect_one(&b.finish(), K::CastType, "cast");
}

#[test]
fn bitcast_types() {
    let mut b = kb();
    let x = b.const_i32(1);
    b.bitcast(x, ScalarType::U64);
    expect_one(&b.finish(), K::BitcastType, "bitcast");

    let mut b = kb();
    let p = global_param(&mut b);
    b.bitcast(p, ScalarType::U64);
    expect_one(&b.finish(), K::BitcastType, "bitcast");
}

#[test]
fn pointer_operand() {
    let mut b = kb();
    let x = b.const_u64(0);
    b.load(x, Type::F32);
    expect_one(&b.finish(), K::PointerOperand, "load");

    let mut b = kb();
    let x = b.const_u64(0);
    b.ptr_offset(x, x, Type::F32);
    expect_one(&b.finish(), K::PointerOperand, "ptr.offset");
}

#[test]
fn index_type() {
    for ty in [Type::F32, Type::I1, Type::GLOBAL_PTR] {
        let mut b = kb();
        let p = global_param(&mut b);
        let i = b.param("i", ty);
        b.ptr_offset(p, i, Type::F32);
        expect_one(&b.finish(), K::IndexType, "ptr.offset");
    }
}

#[test]
fn alignment() {
    for align in [0, 3, 32] {
        let mut b = kb();
        let p = global_param(&mut b);
        b.value(Op::Load {
            ptr: p,
            ty: Type::F32,
            align,
        });
        expect_one(&b.finish(), K::Alignment, "load");
    }
}

#[test]
fn store_to_constant() {
    let mut b = kb();
    let p = b.param("c", Type::Ptr(AddrSpace::Constant));
    let x = b.const_f32(1.0);
    b.store(p, x);
    expect_one(&b.finish(), K::ConstantWrite, "store");
}

#[test]
fn atomic_on_constant() {
    let mut b = kb();
    let p = b.param("c", Type::Ptr(AddrSpace::Constant));
    b.atomic_load(p, ScalarType::U32, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::AtomicSpace, "atomic.load");
}

#[test]
fn atomic_types() {
    let mut b = kb();
    let p = global_param(&mut b);
    b.atomic_load(p, ScalarType::U16, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::AtomicType, "atomic.load");

    let mut b = kb();
    let p = global_param(&mut b);
    let x = b.const_f32(1.0);
    b.atomic_rmw(RmwOp::Max, p, x, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::AtomicType, "atomic.rmw");

    let mut b = kb();
    let p = global_param(&mut b);
    let x = b.constant(Constant::float(ScalarType::F64, 1.0));
    b.atomic_rmw(RmwOp::Add, p, x, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::AtomicType, "atomic.rmw");

    let mut b = kb();
    let p = global_param(&mut b);
    let x = b.const_f32(1.0);
    b.atomic_cas(p, x, x, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::AtomicType, "atomic.cas");
}

#[test]
fn cas_operand_mismatch() {
    let mut b = kb();
    let p = global_param(&mut b);
    let x = b.const_u32(1);
    let y = b.const_u64(1);
    b.atomic_cas(p, x, y, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::OperandMismatch, "atomic.cas");
}

#[test]
fn invalid_orderings() {
    for ordering in [Ordering::Release, Ordering::AcqRel] {
        let mut b = kb();
        let p = global_param(&mut b);
        b.atomic_load(p, ScalarType::U32, ordering, Scope::Agent);
        expect_one(&b.finish(), K::InvalidOrdering, "atomic.load");
    }
    for ordering in [Ordering::Acquire, Ordering::AcqRel] {
        let mut b = kb();
        let p = global_param(&mut b);
        let x = b.const_u32(1);
        b.atomic_store(p, x, ordering, Scope::Agent);
        expect_one(&b.finish(), K::InvalidOrdering, "atomic.store");
    }
    let mut b = kb();
    b.fence(Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::InvalidOrdering, "fence");
}

#[test]
fn vector_operands() {
    let mut b = kb();
    let x = b.const_f32(1.0);
    b.extract(x, 0);
    expect_one(&b.finish(), K::VectorOperand, "vec.extract");

    let mut b = kb();
    let v = vec4_f32(&mut b);
    b.splat(v, 2);
    expect_one(&b.finish(), K::VectorOperand, "vec.splat");
}

#[test]
fn insert_type_mismatch() {
    let mut b = kb();
    let v = vec4_f32(&mut b);
    let x = b.const_i32(1);
    b.insert(v, 0, x);
    expect_one(&b.finish(), K::OperandMismatch, "vec.insert");
}

#[test]
fn lane_out_of_range() {
    let mut b = kb();
    let v = vec4_f32(&mut b);
    b.extract(v, 4);
    expect_one(&b.finish(), K::LaneOutOfRange, "vec.extract");
}

// ---- shared memory ----

#[test]
fn shared_alloc_placement() {
    let mut b = kb();
    let c = b.const_bool(true);
    b.if_then(c, |b| {
        b.shared_alloc("t", Type::F32, 4);
    });
    expect_one(&b.finish(), K::SharedAllocPlacement, "shared.alloc");
}

#[test]
fn shared_alloc_count() {
    let mut b = kb();
    b.shared_alloc("t", Type::F32, 0);
    expect_one(&b.finish(), K::SharedAllocCount, "shared.alloc");
}

#[test]
fn shared_memory_limit() {
    // 113 + 114 KiB fill the limit (227 KiB, the most a target offers); one more element not.
    let mut b = kb();
    b.shared_alloc("a", Type::F32, 113 * 256);
    b.shared_alloc("b", Type::F32, 114 * 256);
    verify(b.finish()).unwrap();

    let mut b = kb();
    b.shared_alloc("a", Type::F32, 113 * 256);
    b.shared_alloc("b", Type::F32, 114 * 256 + 1);
    b.shared_alloc("c", Type::F32, u32::MAX);
    let e = expect_one(&b.finish(), K::SharedMemoryLimit, "shared.alloc");
    assert_eq!(e.pos, InstPos::Index(1));
}

#[test]
fn shared_pointer_escapes() {
    let mut b = kb();
    let out = global_param(&mut b);
    let t = b.shared_alloc("t", Type::F32, 4);
    b.store(out, t);
    expect_one(&b.finish(), K::SharedEscape, "store");

    let mut b = kb();
    let out = global_param(&mut b);
    let t = b.shared_alloc("t", Type::F32, 4);
    b.atomic_rmw(RmwOp::Xchg, out, t, Ordering::Relaxed, Scope::Agent);
    expect_one(&b.finish(), K::SharedEscape, "atomic.rmw");

    let mut b = kb();
    let out = global_param(&mut b);
    b.load(out, Type::SHARED_PTR);
    expect_one(&b.finish(), K::SharedEscape, "load");

    let mut b = kb();
    b.param("s", Type::SHARED_PTR);
    expect_one(&b.finish(), K::SharedEscape, KERNEL_OP);
}

// ---- structure ----

#[test]
fn missing_terminator() {
    let mut b = kb();
    let c = b.const_bool(true);
    b.if_then(c, |b| b.barrier());
    let mut k = b.finish();
    let Op::If { then_region, .. } = &mut k.body.insts[1].op else {
        unreachable!()
    };
    then_region.insts.pop();
    let e = expect_one(&k, K::MissingTerminator, "if");
    assert!(e.message.contains("then region"), "{e}");
}

#[test]
fn after_terminator() {
    let mut b = kb();
    b.ret();
    b.barrier();
    expect_one(&b.finish(), K::AfterTerminator, "barrier");
}

#[test]
fn region_args() {
    let mut b = kb();
    let zero = b.const_u32(0);
    b.loop_(&[zero], &[], |b, _| {
        b.break_(&[]);
        vec![]
    });
    let mut k = b.finish();
    let Op::Loop { body, .. } = &mut k.body.insts[1].op else {
        unreachable!()
    };
    body.args.clear();
    expect_one(&k, K::RegionArgs, "loop");
}

#[test]
fn for_iv_type_mismatch() {
    let mut b = kb();
    let zero = b.const_u32(0);
    b.for_range(zero, zero, zero, &[], |_, _, _| vec![]);
    let mut k = b.finish();
    let Op::For { body, .. } = &k.body.insts[1].op else {
        unreachable!()
    };
    let iv = body.args[0];
    k.values[iv.index()].ty = Type::I64;
    expect_one(&k, K::RegionArgs, "for");
}

#[test]
fn if_condition() {
    let mut b = kb();
    let x = b.const_u32(1);
    b.if_then(x, |_| {});
    expect_one(&b.finish(), K::IfCondition, "if");
}

#[test]
fn for_bounds() {
    let mut b = kb();
    let x = b.const_f32(1.0);
    b.for_range(x, x, x, &[], |_, _, _| vec![]);
    expect_one(&b.finish(), K::ForBounds, "for");

    let mut b = kb();
    let x = b.const_u32(1);
    let y = b.const_i32(1);
    b.for_range(x, y, x, &[], |_, _, _| vec![]);
    expect_one(&b.finish(), K::OperandMismatch, "for");
}

#[test]
fn yield_mismatch() {
    let mut b = kb();
    let c = b.const_bool(true);
    let x = b.const_i32(1);
    let f = b.const_f32(1.0);
    b.if_else(c, &[Type::F32], |_| vec![x], |_| vec![f]);
    let e = expect_one(&b.finish(), K::YieldMismatch, "yield");
    assert_eq!(e.pos, InstPos::Index(4));

    let mut b = kb();
    let zero = b.const_u32(0);
    b.for_range(zero, zero, zero, &[zero], |_, _, _| vec![]);
    expect_one(&b.finish(), K::YieldMismatch, "yield");
}

#[test]
fn misplaced_yield() {
    let mut b = kb();
    b.push(Op::Yield { values: vec![] });
    expect_one(&b.finish(), K::MisplacedYield, "yield");
}

#[test]
fn break_outside_loop() {
    let mut b = kb();
    let c = b.const_bool(true);
    b.if_then(c, |b| b.break_(&[]));
    expect_one(&b.finish(), K::BreakOutsideLoop, "break");
}

#[test]
fn break_inside_for() {
    let mut b = kb();
    let zero = b.const_u32(0);
    let c = b.const_bool(true);
    b.loop_(&[], &[], |b, _| {
        b.for_range(zero, zero, zero, &[], |b, _, _| {
            b.if_then(c, |b| b.break_(&[]));
            vec![]
        });
        b.break_(&[]);
        vec![]
    });
    expect_one(&b.finish(), K::BreakInsideFor, "break");
}

#[test]
fn break_mismatch() {
    let mut b = kb();
    b.loop_(&[], &[Type::U32], |b, _| {
        b.break_(&[]);
        vec![]
    });
    expect_one(&b.finish(), K::BreakMismatch, "break");
}

// ---- reporting ----

#[test]
fn collects_every_error_with_positions() {
    let mut b = kb();
    let x = b.const_f32(1.0);
    b.binary(BinOp::Shl, x, x);
    b.fence(Ordering::Relaxed, Scope::Agent);
    let mut k = b.finish();
    k.body.insts[2].loc = Some(Loc { line: 7, col: 3 });
    let errs = verify(k.clone()).unwrap_err();
    let kinds: Vec<_> = errs.0.iter().map(|e| (e.kind, e.pos)).collect();
    assert_eq!(
        kinds,
        [
            (K::BinaryType, InstPos::Index(1)),
            (K::InvalidOrdering, InstPos::Source(Loc { line: 7, col: 3 })),
        ]
    );
    assert_eq!(
        errs.to_string(),
        "k: inst #1: `shl`: takes integers other than i1 (scalar or vector), not f32\n\
         k: 7:3: `fence`: ordering relaxed is invalid here: a fence must order something"
    );
}

/// A kernel whose body holds `depth - 1` nested `if`s (so `depth` regions deep), built from
/// the inside out without recursion.
fn nested_ifs(depth: usize) -> Kernel {
    let mut b = kb();
    let c = b.param("c", Type::I1);
    let mut k = b.finish();
    let yield_nothing = || Inst {
        op: Op::Yield { values: vec![] },
        results: vec![],
        loc: None,
    };
    let mut inner = Region {
        args: vec![],
        insts: vec![yield_nothing()],
    };
    for _ in 1..depth {
        let nested = Inst {
            op: Op::If {
                cond: c,
                then_region: inner,
                else_region: Region {
                    args: vec![],
                    insts: vec![yield_nothing()],
                },
                result_types: vec![],
            },
            results: vec![],
            loc: None,
        };
        inner = Region {
            args: vec![],
            insts: vec![nested, yield_nothing()],
        };
    }
    k.body.insts = inner.insts;
    k.body.insts.pop();
    k
}

#[test]
fn regions_nest_at_most_max_region_depth() {
    verify(nested_ifs(MAX_REGION_DEPTH)).unwrap();
    for depth in [MAX_REGION_DEPTH + 1, 1_000] {
        let errs = errors(&nested_ifs(depth));
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].kind, K::RegionDepth);
        assert!(
            errs[0].message.contains("nested deeper than 64"),
            "{errs:?}"
        );
    }
}

// ---- asynchronous group products and register budgets ----

/// Shared tiles for `mma.group.async`: (a, b).
fn group_tiles(b: &mut KernelBuilder) -> (Value, Value) {
    let a = b.shared_alloc("a", Type::BF16, 4096);
    let t = b.shared_alloc("b", Type::BF16, 8192);
    (a, t)
}

#[test]
fn mma_wait_needs_an_accumulator() {
    let mut b = kb();
    b.mma_wait(0, &[]);
    let e = expect_one(&b.finish(), K::FragOperand, "mma.wait");
    assert!(e.message.contains("at least one"), "{e}");
}

#[test]
fn regs_set_count_is_a_multiple_of_8_in_range() {
    for (count, bad) in [
        (24, false),
        (256, false),
        (16, true),
        (100, true),
        (264, true),
    ] {
        let mut b = kb();
        b.regs_set(RegsDir::Inc, count);
        let k = b.finish();
        if bad {
            expect_one(&k, K::AttributeRange, "regs.set");
        } else {
            verify(k).unwrap();
        }
    }
}

/// A product in flight is read only after a wait that covers it; a wait leaving groups
/// pending gives results still in flight.
#[test]
fn in_flight_accumulators_are_read_only_after_their_wait() {
    for (pending, in_flight) in [(0, false), (1, true)] {
        let mut b = kb();
        let out = global_param(&mut b);
        let (ta, tb) = group_tiles(&mut b);
        let zero = b.wide_zero();
        let p = b.mma_group_async(ta, tb, zero);
        let p = b.mma_group_async(ta, tb, p);
        let w = b.mma_wait(pending, &[p])[0];
        let stride = b.const_u32(128);
        b.frag_store(out, w, stride);
        let k = b.finish();
        if in_flight {
            expect_one(&k, K::InFlightAccumulator, "frag.store");
        } else {
            verify(k).unwrap();
        }
    }
}
