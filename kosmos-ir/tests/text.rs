//! The text form of builder kernels: canonical printing, print -> parse -> print, and a
//! parser that never panics on any text.

use kosmos_ir::*;
use proptest::prelude::*;

/// print -> parse -> print gives the same text, and the parsed kernel keeps its shape.
fn assert_round_trip(kernel: &Kernel) {
    let text = print_kernel(kernel);
    let module = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(module.kernels.len(), 1);
    let again = print_kernel(&module.kernels[0]);
    assert_eq!(text, again);
    assert_eq!(module.kernels[0].values.len(), kernel.values.len());
}

fn reduce_loops() -> Kernel {
    let mut b = KernelBuilder::new("reduce", 64);
    let data = b.param("data", Type::GLOBAL_PTR);
    let n = b.param("n", Type::U32);
    let tile = b.shared_alloc("tile", Type::F32, 64);
    let zero = b.const_u32(0);
    let one = b.const_u32(1);
    let acc0 = b.const_f32(0.0);
    let sums = b.for_range(zero, n, one, &[acc0], |b, i, carried| {
        let p = b.ptr_offset(data, i, Type::F32);
        let x = b.load(p, Type::F32);
        let s = b.add(carried[0], x);
        let big = b.cmp(CmpPred::Gt, s, acc0);
        let picked = b.if_else(
            big,
            &[Type::F32],
            |b| vec![b.unary(UnOp::Sqrt, s)],
            |_| vec![s],
        );
        vec![picked[0]]
    });
    let lane = b.workitem_id(Dim::Y);
    let slot = b.ptr_offset(tile, lane, Type::F32);
    b.store(slot, sums[0]);
    b.barrier();
    let counted = b.loop_(&[zero], &[Type::U32], |b, carried| {
        let next = b.add(carried[0], one);
        let done = b.cmp(CmpPred::Ge, next, n);
        b.if_then(done, |b| b.break_(&[next]));
        vec![next]
    });
    let flag = b.ptr_offset(data, zero, Type::U32);
    let old = b.atomic_rmw(RmwOp::Add, flag, counted[0], Ordering::AcqRel, Scope::Agent);
    b.atomic_cas(flag, old, one, Ordering::SeqCst, Scope::System);
    b.fence(Ordering::Release, Scope::Workgroup);
    let v = b.splat(acc0, 4);
    let e = b.extract(v, 3);
    b.insert(v, 0, e);
    b.ret();
    b.finish()
}

#[test]
fn builder_kernels_round_trip() {
    assert_round_trip(&kosmos_testkernels::vector_add());
    assert_round_trip(&reduce_loops());
}

#[test]
fn prints_canonical_text() {
    let text = print_kernel(&kosmos_testkernels::vector_add());
    let expected = "\
kernel @vector_add(%a: ptr<global>, %b: ptr<global>, %out: ptr<global>, %n: u32) max_workgroup_size 256 {
  %4 = workgroup.id x
  %5 = workgroup.size x
  %6 = workitem.id x
  %7 = mul %4, %5
  %8 = add %7, %6
  %9 = cmp lt %8, %n
  if %9 {
    %10 = ptr.offset %a, %8, f32
    %11 = load f32, %10, align 4
    %12 = ptr.offset %b, %8, f32
    %13 = load f32, %12, align 4
    %14 = add %11, %13
    %15 = ptr.offset %out, %8, f32
    store %15, %14, align 4
    yield
  }
}
";
    assert_eq!(text, expected);
}

#[test]
fn clashing_names_are_made_distinct() {
    let mut b = KernelBuilder::new("clash-2", 32);
    let x = b.param("x", Type::U32);
    let y = b.add(x, x);
    b.set_name(y, "x");
    // An unnamed value prints as its index; a stored name may already be that index.
    let z = b.add(y, y);
    b.set_name(z, &(z.0 + 1).to_string());
    let w = b.add(z, y);
    let bad = b.add(w, w);
    b.set_name(bad, "has space");
    let kernel = b.finish();
    let text = print_kernel(&kernel);
    assert!(text.starts_with("kernel @clash_2(%x: u32)"), "{text}");
    assert!(text.contains("%x.1 = add %x, %x\n"), "{text}");
    assert!(text.contains("%3 = add %x.1, %x.1\n"), "{text}");
    assert!(text.contains("%3.1 = add %3, %x.1\n"), "{text}");
    assert!(text.contains("%has_space = add %3.1, %3.1\n"), "{text}");
    assert_round_trip(&kernel);
}

/// Whatever `text` is, parsing returns (never panics), and what parses prints to text that
/// parses back to the same print.
fn parse_is_total(text: &str) -> Result<(), TestCaseError> {
    if let Ok(module) = parse_module(text) {
        let printed = print_module(&module);
        let again =
            parse_module(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        prop_assert_eq!(print_module(&again), printed);
    }
    Ok(())
}

proptest! {
    #[test]
    fn random_text_never_panics(text in "[a-z0-9%@ ,=(){}<>:.\n;_-]{0,200}") {
        parse_is_total(&text)?;
    }

    #[test]
    fn edited_kernels_never_panic(at in any::<proptest::sample::Index>(), len in 0usize..8, insert in "[a-z0-9%@ ,=(){}\n-]{0,4}") {
        let text = print_kernel(&reduce_loops());
        let start = at.index(text.len());
        let end = (start + len).min(text.len());
        let edited = format!("{}{}{}", &text[..start], insert, &text[end..]);
        parse_is_total(&edited)?;
    }
}

/// `depth` nested `if`s as text, and the line of the first `if` too deep to parse.
fn nested_ifs_text(depth: usize) -> String {
    let mut text = String::from("kernel @deep(%c: i1) max_workgroup_size 1 {\n");
    for _ in 0..depth {
        text += "if %c {\n";
    }
    for _ in 0..depth {
        text += "yield\n}\n";
    }
    text + "}\n"
}

#[test]
fn deep_nesting_is_a_parse_error_not_a_stack_overflow() {
    let ok = nested_ifs_text(MAX_REGION_DEPTH - 1);
    parse_module(&ok).unwrap_or_else(|e| panic!("{e}"));
    for depth in [MAX_REGION_DEPTH, 5_000, 100_000] {
        let e = parse_module(&nested_ifs_text(depth)).unwrap_err();
        // The body is line 1; the `if` opening region MAX_REGION_DEPTH + 1 is on the line
        // after the MAX_REGION_DEPTH - 1 that fit.
        assert_eq!(e.loc.line as usize, MAX_REGION_DEPTH + 1, "{e}");
        assert!(
            e.message.contains(&format!(
                "regions are nested deeper than {MAX_REGION_DEPTH}"
            )),
            "{e}"
        );
    }
}
