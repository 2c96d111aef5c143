//! Checks of arithmetic, comparisons, casts and vector ops.

use super::*;

impl<'k> Verifier<'k> {
    // ---- arithmetic ----

    /// The common type of `values`, reporting a mismatch; `None` when they differ or one is
    /// out of range.
    pub(super) fn same_type(&mut self, at: Site, values: &[Value]) -> Option<Type> {
        let types: Option<Vec<Type>> = values.iter().map(|v| self.ty(*v)).collect();
        let types = types?;
        let first = *types.first()?;
        if types.iter().all(|t| *t == first) {
            return Some(first);
        }
        let described: Vec<String> = values.iter().map(|v| self.describe(*v)).collect();
        self.error(
            at,
            VerifyErrorKind::OperandMismatch,
            format!("operands have different types: {}", described.join(", ")),
        );
        None
    }

    pub(super) fn binary(&mut self, at: Site, op: BinOp, lhs: Value, rhs: Value) {
        let Some(t) = self.same_type(at, &[lhs, rhs]) else {
            return;
        };
        let ok = t.elem().is_some_and(|e| match op {
            // Bit ops are also the logic ops of i1.
            BinOp::And | BinOp::Or | BinOp::Xor => e.is_int(),
            // i1 is a truth value: it has no arithmetic (its signedness would be arbitrary).
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Min | BinOp::Max => {
                !e.is_bool()
            }
            BinOp::Rem | BinOp::Shl | BinOp::Shr => e.is_int() && !e.is_bool(),
        });
        if !ok {
            let accepts = match op {
                BinOp::And | BinOp::Or | BinOp::Xor => "integers and i1",
                BinOp::Rem | BinOp::Shl | BinOp::Shr => "integers other than i1",
                _ => "integers other than i1 and floats",
            };
            self.error(
                at,
                VerifyErrorKind::BinaryType,
                format!("takes {accepts} (scalar or vector), not {t}"),
            );
        }
    }

    pub(super) fn unary(&mut self, at: Site, op: UnOp, arg: Value) {
        let Some(t) = self.ty(arg) else { return };
        let (accepts, ok): (&str, fn(ScalarType) -> bool) = match op {
            UnOp::Not => ("integers and i1", ScalarType::is_int),
            UnOp::Neg | UnOp::Abs => ("signed integers and floats", |e| {
                e.is_signed_int() || e.is_float()
            }),
            UnOp::Sqrt => ("floats", ScalarType::is_float),
            // The GPU targets have no f64 exp2/log2 instruction: they would need a math
            // library.
            UnOp::Exp2 | UnOp::Log2 => ("f16, bf16 and f32", |e| {
                e.is_float() && e != ScalarType::F64
            }),
        };
        if !t.elem().is_some_and(ok) {
            self.error(
                at,
                VerifyErrorKind::UnaryType,
                format!("takes {accepts} (scalar or vector), not {t}"),
            );
        }
    }

    pub(super) fn fma(&mut self, at: Site, a: Value, b: Value, c: Value) {
        let Some(t) = self.same_type(at, &[a, b, c]) else {
            return;
        };
        if !t.elem().is_some_and(|e| e.is_float()) {
            self.error(
                at,
                VerifyErrorKind::FmaType,
                format!("takes floats (scalar or vector), not {t}"),
            );
        }
    }

    pub(super) fn cmp(&mut self, at: Site, lhs: Value, rhs: Value) {
        let Some(t) = self.same_type(at, &[lhs, rhs]) else {
            return;
        };
        if t.scalar().is_none() {
            self.error(
                at,
                VerifyErrorKind::CmpType,
                format!("compares scalars, not {t}"),
            );
        }
    }

    pub(super) fn cast(&mut self, at: Site, arg: Value, to: Type) {
        if let Some(from) = self.ty(arg)
            && from.scalar().is_none()
        {
            self.error(
                at,
                VerifyErrorKind::CastType,
                format!("converts scalar numbers; {} is not one", self.describe(arg)),
            );
        }
        match to {
            // Whether a number becomes true when non-zero or by its low bit is a guess the
            // IR does not make: compare with zero instead.
            Type::Scalar(ScalarType::I1) => self.error(
                at,
                VerifyErrorKind::CastType,
                "cannot produce i1; compare with zero instead".to_string(),
            ),
            Type::Scalar(_) => {}
            _ => self.error(
                at,
                VerifyErrorKind::CastType,
                format!("converts to scalar numbers, not {to}"),
            ),
        }
    }

    pub(super) fn bitcast(&mut self, at: Site, arg: Value, to: Type) {
        if !self.well_formed(at, to, "the target") {
            return;
        }
        let Some(from) = self.ty(arg) else { return };
        match (value_bits(from), value_bits(to)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) => self.error(
                at,
                VerifyErrorKind::BitcastType,
                format!(
                    "needs equal sizes: {} has {a} bits, {to} has {b}",
                    self.describe(arg)
                ),
            ),
            _ => self.error(
                at,
                VerifyErrorKind::BitcastType,
                format!("cannot reinterpret pointers ({from} to {to})"),
            ),
        }
    }

    // ---- vectors ----

    pub(super) fn splat(&mut self, at: Site, value: Value, lanes: u32) {
        let Some(t) = self.ty(value) else { return };
        match t {
            Type::Scalar(elem) => {
                self.well_formed(at, Type::Vector { elem, lanes }, "the result");
            }
            _ => self.error(
                at,
                VerifyErrorKind::VectorOperand,
                format!("takes a scalar, not {}", self.describe(value)),
            ),
        }
    }

    /// Checks that `vector` is a vector with lane `lane`; returns its element type.
    pub(super) fn vector_lane(&mut self, at: Site, vector: Value, lane: u32) -> Option<ScalarType> {
        match self.ty(vector)? {
            Type::Vector { elem, lanes } => {
                if lane >= lanes {
                    self.error(
                        at,
                        VerifyErrorKind::LaneOutOfRange,
                        format!("lane {lane} is out of range for {}", self.describe(vector)),
                    );
                }
                Some(elem)
            }
            _ => {
                self.error(
                    at,
                    VerifyErrorKind::VectorOperand,
                    format!("{} is not a vector", self.describe(vector)),
                );
                None
            }
        }
    }

    pub(super) fn insert(&mut self, at: Site, vector: Value, lane: u32, value: Value) {
        let Some(elem) = self.vector_lane(at, vector, lane) else {
            return;
        };
        if let Some(t) = self.ty(value)
            && t != Type::Scalar(elem)
        {
            self.error(
                at,
                VerifyErrorKind::OperandMismatch,
                format!(
                    "the inserted value {} does not match the lane type {elem}",
                    self.describe(value)
                ),
            );
        }
    }
}
