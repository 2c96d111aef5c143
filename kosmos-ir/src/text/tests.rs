use super::*;
use crate::{Constant, KernelBuilder, Op, ScalarType, Type};
use proptest::prelude::*;

#[test]
fn parse_keeps_locations_and_names() {
    let text = "kernel @k(%p: ptr<global>) max_workgroup_size 1 {\n  %v = const u8 255\n  store %p, %v, align 1\n}\n";
    let module = parse_module(text).unwrap();
    let k = &module.kernels[0];
    assert_eq!(k.body.insts[0].loc, Some(Loc { line: 2, col: 3 }));
    assert_eq!(k.body.insts[1].loc, Some(Loc { line: 3, col: 3 }));
    assert_eq!(k.value_name(k.body.insts[0].results[0]), Some("v"));
    assert_eq!(print_module(&module), text);
}

#[test]
fn type_errors_parse() {
    let text = "kernel @k(%a: u32, %b: f32) max_workgroup_size 1 {\n  %c = add %a, %b\n}\n";
    let module = parse_module(text).unwrap();
    let k = &module.kernels[0];
    assert_eq!(k.ty(k.body.insts[0].results[0]), Type::U32);
}

fn parse_err(body: &str) -> String {
    let text = format!("kernel @k(%a: u32, %p: ptr<global>) max_workgroup_size 1 {{\n{body}}}\n");
    parse_module(&text).unwrap_err().to_string()
}

#[test]
fn parse_errors_name_position_and_expectation() {
    assert_eq!(
        parse_err("  %c = add %a %a\n"),
        "2:15: expected ',' after operand, found '%a'"
    );
    assert_eq!(parse_err("  %c = frob %a\n"), "2:8: unknown op 'frob'");
    assert_eq!(parse_err("  %c = add %a, %d\n"), "2:16: undefined value %d");
    assert_eq!(
        parse_err("  %a = add %a, %a\n"),
        "2:3: redefinition of %a (first defined at 1:11)"
    );
    assert_eq!(
        parse_err("  %c = const u8 256\n"),
        "2:17: integer literal 256 is out of range for u8 (0 to 255)"
    );
    assert_eq!(
        parse_err("  %c = load f33, %p, align 4\n"),
        "2:13: unknown type 'f33'"
    );
    assert_eq!(
        parse_err("  %c = cmp lt %a, %a\n  if %c {\n    %d = add %a, %a\n  }\n"),
        "5:3: expected a terminator (yield, break or return) before '}'"
    );
    assert_eq!(
        parse_err(
            "  %c = cmp lt %a, %a\n  if %c {\n    %d = add %a, %a\n    yield\n  }\n  %e = add %d, %d\n"
        ),
        "7:12: value %d is not in scope here (defined at 4:5)"
    );
}

fn const_round_trip(c: Constant) -> Constant {
    let mut b = KernelBuilder::new("c", 1);
    b.constant(c);
    let text = print_kernel(&b.finish());
    let module = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    match &module.kernels[0].body.insts[0].op {
        Op::Const { value } => *value,
        other => panic!("not a constant: {other:?}"),
    }
}

#[test]
fn float_constants_round_trip_bit_for_bit() {
    let f32s = [
        0.0f32,
        -0.0,
        1.5,
        0.1,
        -3.75e-20,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),           // smallest subnormal
        f32::from_bits(0x007f_ffff), // largest subnormal
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    for v in f32s {
        let c = Constant::float(ScalarType::F32, v as f64);
        assert_eq!(const_round_trip(c), c, "{v:?}");
    }
    let f64s = [
        0.0f64,
        -0.0,
        0.1,
        1e300,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for v in f64s {
        let c = Constant::float(ScalarType::F64, v);
        assert_eq!(const_round_trip(c), c, "{v:?}");
    }
    for ty in [ScalarType::F16, ScalarType::BF16] {
        // zero, -0, 1, max, smallest and largest subnormal, inf, -inf, quiet and signalling NaN
        // with payloads, and an arbitrary pattern.
        for bits in [
            0u64, 0x8000, 0x3c00, 0x7bff, 0x0001, 0x03ff, 0x8001, 0x3f80, 0x7f7f, 0x1234,
        ] {
            let c = Constant { ty, bits };
            assert_eq!(const_round_trip(c), c, "{ty} {bits:#x}");
        }
    }
    let nans = [
        Constant {
            ty: ScalarType::F32,
            bits: 0x7fc0_0000,
        },
        Constant {
            ty: ScalarType::F32,
            bits: 0xffa0_0001,
        },
        Constant {
            ty: ScalarType::F64,
            bits: 0x7ff0_0000_0000_0001,
        },
        Constant {
            ty: ScalarType::F16,
            bits: 0x7e00,
        },
        Constant {
            ty: ScalarType::F16,
            bits: 0xfc01,
        },
        Constant {
            ty: ScalarType::BF16,
            bits: 0x7fc1,
        },
        Constant {
            ty: ScalarType::F16,
            bits: 0x7c00,
        },
        Constant {
            ty: ScalarType::BF16,
            bits: 0xff80,
        },
    ];
    for c in nans {
        assert_eq!(const_round_trip(c), c, "{c:?}");
    }
    assert_eq!(super::printer::format_constant(nans[0]), "nan:0x7fc00000");
    assert_eq!(super::printer::format_constant(nans[3]), "nan:0x7e00");
    assert_eq!(
        super::printer::format_constant(Constant::float(ScalarType::F32, -0.0)),
        "-0.0"
    );
}

#[test]
fn bad_float_literals_are_rejected() {
    let err = |lit: &str, ty: &str| {
        let text = format!("kernel @k() max_workgroup_size 1 {{\n  %c = const {ty} {lit}\n}}\n");
        parse_module(&text).unwrap_err().message
    };
    assert_eq!(
        err("1e39", "f32"),
        "float literal 1e39 is out of range for f32"
    );
    assert_eq!(
        err("70000", "f16"),
        "float literal 70000 is out of range for f16"
    );
    assert_eq!(err("1.2.3", "f64"), "bad float literal '1.2.3' for f64");
    assert_eq!(err("-nan", "f64"), "bad float literal '-nan' for f64");
    assert_eq!(
        err("nan:0x7f800000", "f32"),
        "bad NaN literal 'nan:0x7f800000' for f32: expected nan:0x<32-bit NaN pattern>"
    );
    assert_eq!(
        err("nan:0x17e00", "f16"),
        "bad NaN literal 'nan:0x17e00' for f16: expected nan:0x<16-bit NaN pattern>"
    );
}

fn any_constant() -> impl Strategy<Value = Constant> {
    (
        proptest::sample::select(ScalarType::ALL.to_vec()),
        any::<u64>(),
    )
        .prop_map(|(ty, bits)| {
            let width = ty.bits();
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1 << width) - 1
            };
            Constant {
                ty,
                bits: bits & mask,
            }
        })
}

proptest! {
    #[test]
    fn random_constants_round_trip(c in any_constant()) {
        prop_assert_eq!(const_round_trip(c), c);
    }

    #[test]
    fn random_f32_values_round_trip(v in any::<f32>()) {
        let c = Constant { ty: ScalarType::F32, bits: v.to_bits() as u64 };
        prop_assert_eq!(const_round_trip(c), c);
    }

    #[test]
    fn random_f64_values_round_trip(v in any::<f64>()) {
        let c = Constant { ty: ScalarType::F64, bits: v.to_bits() };
        prop_assert_eq!(const_round_trip(c), c);
    }
}
