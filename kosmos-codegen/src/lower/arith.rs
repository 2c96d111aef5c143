//! Arithmetic, comparisons, conversions and vectors.

use super::Cx;
use crate::llvm::{Fail, int_type, scalar_type};
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{BasicValueEnum, InstructionOpcode as Opc, VectorValue};
use inkwell::{FloatPredicate, IntPredicate};
use kosmos_ir::{BinOp, CmpPred, Constant, ScalarType, Type, UnOp, Value};

impl<'ctx> Cx<'_, 'ctx> {
    pub(super) fn constant(&self, c: Constant) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = scalar_type(self.ctx, c.ty);
        Ok(match ty {
            // Bit-exact floats (NaN payloads included): an integer of the width, bitcast.
            BasicTypeEnum::FloatType(_) => {
                let bits = int_type(self.ctx, c.ty.bits()).const_int(c.bits, false);
                self.builder.build_bit_cast(bits, ty, "")?
            }
            _ => ty.into_int_type().const_int(c.bits, false).into(),
        })
    }

    pub(super) fn binary(
        &self,
        op: BinOp,
        lhs: Value,
        rhs: Value,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(lhs);
        debug_assert_eq!(self.ty(rhs), ty, "the verifier gives {op} one operand type");
        let elem = ty.elem().expect("the verifier gives binary ops numbers");
        let (a, b) = (self.get(lhs), self.get(rhs));
        let lt = self.llvm_type(ty);
        let bld = &self.builder;
        if elem.is_float() {
            let opc = match op {
                BinOp::Add => Opc::FAdd,
                BinOp::Sub => Opc::FSub,
                BinOp::Mul => Opc::FMul,
                BinOp::Div => Opc::FDiv,
                // minnum/maxnum: a NaN operand yields the other operand.
                BinOp::Min => {
                    return self.call_intrinsic("llvm.minnum", &[lt], &[a.into(), b.into()]);
                }
                BinOp::Max => {
                    return self.call_intrinsic("llvm.maxnum", &[lt], &[a.into(), b.into()]);
                }
                _ => unreachable!("the verifier rejects {op} on {ty}"),
            };
            return Ok(bld.build_binop(opc, a, b, "")?);
        }
        let signed = elem.is_signed_int();
        let opc = match op {
            BinOp::Add => Opc::Add,
            BinOp::Sub => Opc::Sub,
            BinOp::Mul => Opc::Mul,
            // Division by zero: the CPU device reports it; on GPUs it is undefined.
            BinOp::Div if signed => Opc::SDiv,
            BinOp::Div => Opc::UDiv,
            BinOp::Rem if signed => Opc::SRem,
            BinOp::Rem => Opc::URem,
            BinOp::Min | BinOp::Max => {
                let name = match (op == BinOp::Min, signed) {
                    (true, true) => "llvm.smin",
                    (true, false) => "llvm.umin",
                    (false, true) => "llvm.smax",
                    (false, false) => "llvm.umax",
                };
                return self.call_intrinsic(name, &[lt], &[a.into(), b.into()]);
            }
            BinOp::And => Opc::And,
            BinOp::Or => Opc::Or,
            BinOp::Xor => Opc::Xor,
            BinOp::Shl | BinOp::Shr => {
                // The amount is taken modulo the width (LLVM: poison beyond it).
                let mask = self.int_splat(ty, (elem.bits() - 1) as u64);
                let amount = bld.build_binop(Opc::And, b, mask, "")?;
                let opc = match (op, signed) {
                    (BinOp::Shl, _) => Opc::Shl,
                    (_, true) => Opc::AShr,
                    (_, false) => Opc::LShr,
                };
                return Ok(bld.build_binop(opc, a, amount, "")?);
            }
        };
        Ok(bld.build_binop(opc, a, b, "")?)
    }

    /// An integer constant of type `ty` (scalar or vector, every lane `value`).
    fn int_splat(&self, ty: Type, value: u64) -> BasicValueEnum<'ctx> {
        let elem = ty.elem().expect("an integer scalar or vector type");
        let c = scalar_type(self.ctx, elem)
            .into_int_type()
            .const_int(value, false);
        match ty {
            Type::Vector { lanes, .. } => {
                let lanes = vec![c; lanes as usize];
                VectorType::const_vector(&lanes).into()
            }
            _ => c.into(),
        }
    }

    pub(super) fn unary(&self, op: UnOp, arg: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(arg);
        let elem = ty.elem().expect("the verifier gives unary ops numbers");
        let a = self.get(arg);
        let lt = self.llvm_type(ty);
        let bld = &self.builder;
        let float_fn = |name: &str| {
            debug_assert!(elem.is_float(), "the verifier gives {op} floats");
            if elem.bits() > 16 {
                return self.float_unary_call(name, a);
            }
            // f16/bf16 through f32: NVPTX has no half log2 (a fatal error looking for a
            // libcall), and sqrt rounded twice (f32, then half) is still correctly rounded.
            let wide = bld.build_cast(Opc::FPExt, a, self.f32_like(lt), "")?;
            let r = self.float_unary_call(name, wide)?;
            Ok(bld.build_cast(Opc::FPTrunc, r, lt, "")?)
        };
        match op {
            UnOp::Neg if elem.is_float() => match a {
                BasicValueEnum::FloatValue(f) => Ok(bld.build_float_neg(f, "")?.into()),
                BasicValueEnum::VectorValue(v) => Ok(bld.build_float_neg(v, "")?.into()),
                _ => unreachable!("a float type lowers to a float or a float vector"),
            },
            UnOp::Neg => {
                let zero = self.int_splat(ty, 0);
                Ok(bld.build_binop(Opc::Sub, zero, a, "")?)
            }
            UnOp::Not => {
                debug_assert!(elem.is_int(), "the verifier gives not integers");
                let ones = self.int_splat(ty, u64::MAX);
                Ok(bld.build_binop(Opc::Xor, a, ones, "")?)
            }
            UnOp::Abs if elem.is_float() => self.call_intrinsic("llvm.fabs", &[lt], &[a.into()]),
            UnOp::Abs if elem.is_signed_int() => {
                let poison_on_min = self.ctx.bool_type().const_zero();
                self.call_intrinsic("llvm.abs", &[lt], &[a.into(), poison_on_min.into()])
            }
            UnOp::Abs => Ok(a),
            UnOp::Sqrt => float_fn("llvm.sqrt"),
            UnOp::Exp2 | UnOp::Log2 => {
                debug_assert_ne!(elem, ScalarType::F64, "the verifier rejects {op} on f64");
                let name = match op {
                    UnOp::Exp2 => "llvm.exp2",
                    _ => self.target.log2_intrinsic(),
                };
                float_fn(name)
            }
        }
    }

    /// Calls a one-operand float intrinsic: overloaded ones (`llvm.*`) on the value's type,
    /// target ones (f32 only, e.g. `llvm.nvvm.lg2.approx.f`) lane by lane.
    fn float_unary_call(
        &self,
        name: &str,
        a: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let overloaded = !name.starts_with("llvm.nvvm.") && !name.starts_with("llvm.amdgcn.");
        if overloaded {
            return self.call_intrinsic(name, &[a.get_type()], &[a.into()]);
        }
        let BasicValueEnum::VectorValue(v) = a else {
            return self.call_intrinsic(name, &[], &[a.into()]);
        };
        let mut out = v.get_type().get_undef();
        for lane in 0..v.get_type().get_size() {
            let idx = self.ctx.i32_type().const_int(lane as u64, false);
            let x = self.builder.build_extract_element(v, idx, "")?;
            let r = self.call_intrinsic(name, &[], &[x.into()])?;
            out = self.builder.build_insert_element(out, r, idx, "")?;
        }
        Ok(out.into())
    }

    pub(super) fn fma(&self, a: Value, b: Value, c: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(a);
        debug_assert!(
            ty.elem().is_some_and(|e| e.is_float()) && self.ty(b) == ty && self.ty(c) == ty,
            "the verifier gives fma three floats of one type"
        );
        let args = [self.get(a).into(), self.get(b).into(), self.get(c).into()];
        self.call_intrinsic("llvm.fma", &[self.llvm_type(ty)], &args)
    }

    pub(super) fn compare(
        &self,
        pred: CmpPred,
        lhs: Value,
        rhs: Value,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let ty = self.ty(lhs);
        debug_assert_eq!(self.ty(rhs), ty, "the verifier gives cmp one operand type");
        let s = ty.scalar().expect("the verifier gives cmp scalars");
        let (a, b) = (self.get(lhs), self.get(rhs));
        if s.is_float() {
            // Ordered, except `ne`, which is true when either operand is NaN.
            let p = match pred {
                CmpPred::Eq => FloatPredicate::OEQ,
                CmpPred::Ne => FloatPredicate::UNE,
                CmpPred::Lt => FloatPredicate::OLT,
                CmpPred::Le => FloatPredicate::OLE,
                CmpPred::Gt => FloatPredicate::OGT,
                CmpPred::Ge => FloatPredicate::OGE,
            };
            return Ok(self
                .builder
                .build_float_compare(p, a.into_float_value(), b.into_float_value(), "")?
                .into());
        }
        let signed = s.is_signed_int();
        let p = match (pred, signed) {
            (CmpPred::Eq, _) => IntPredicate::EQ,
            (CmpPred::Ne, _) => IntPredicate::NE,
            (CmpPred::Lt, true) => IntPredicate::SLT,
            (CmpPred::Lt, false) => IntPredicate::ULT,
            (CmpPred::Le, true) => IntPredicate::SLE,
            (CmpPred::Le, false) => IntPredicate::ULE,
            (CmpPred::Gt, true) => IntPredicate::SGT,
            (CmpPred::Gt, false) => IntPredicate::UGT,
            (CmpPred::Ge, true) => IntPredicate::SGE,
            (CmpPred::Ge, false) => IntPredicate::UGE,
        };
        Ok(self
            .builder
            .build_int_compare(p, a.into_int_value(), b.into_int_value(), "")?
            .into())
    }

    pub(super) fn select(
        &self,
        cond: Value,
        if_true: Value,
        if_false: Value,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        debug_assert_eq!(
            self.ty(if_true),
            self.ty(if_false),
            "the verifier gives select operands of one type"
        );
        let cond = self.get_bool(cond);
        let (t, f) = (self.get(if_true), self.get(if_false));
        Ok(self.builder.build_select(cond, t, f, "")?)
    }

    pub(super) fn cast(&self, arg: Value, to: Type) -> Result<BasicValueEnum<'ctx>, Fail> {
        let from = self.ty(arg);
        let (Type::Scalar(src), Type::Scalar(dst)) = (from, to) else {
            unreachable!("the verifier gives cast scalars, not {from} to {to}");
        };
        let a = self.get(arg);
        let lt = self.llvm_type(to);
        let bld = &self.builder;
        let v = match (src.is_float(), dst.is_float()) {
            (false, false) => {
                let opc = match src.bits().cmp(&dst.bits()) {
                    std::cmp::Ordering::Equal => return Ok(a),
                    std::cmp::Ordering::Greater => Opc::Trunc,
                    std::cmp::Ordering::Less if src.is_signed_int() => Opc::SExt,
                    std::cmp::Ordering::Less => Opc::ZExt,
                };
                bld.build_cast(opc, a, lt, "")?
            }
            (false, true) => {
                let opc = if src.is_signed_int() {
                    Opc::SIToFP
                } else {
                    Opc::UIToFP
                };
                bld.build_cast(opc, a, lt, "")?
            }
            (true, false) => {
                // Saturating, NaN -> 0, as the IR specifies.
                let name = if dst.is_signed_int() {
                    "llvm.fptosi.sat"
                } else {
                    "llvm.fptoui.sat"
                };
                self.call_intrinsic(name, &[lt, a.get_type()], &[a.into()])?
            }
            (true, true) => {
                if src == dst {
                    return Ok(a);
                }
                let half_pair = src.bits() == 16 && dst.bits() == 16;
                if half_pair {
                    // f16 <-> bf16: through f32, which holds either exactly: one rounding.
                    let wide = bld.build_cast(Opc::FPExt, a, self.f32_like(lt), "")?;
                    bld.build_cast(Opc::FPTrunc, wide, lt, "")?
                } else if src.bits() < dst.bits() {
                    bld.build_cast(Opc::FPExt, a, lt, "")?
                } else {
                    bld.build_cast(Opc::FPTrunc, a, lt, "")?
                }
            }
        };
        Ok(v)
    }

    /// Reinterprets the bits (the verifier checks the sizes are equal).
    pub(super) fn bitcast(&self, arg: Value, to: Type) -> Result<BasicValueEnum<'ctx>, Fail> {
        let lt = self.llvm_type(to);
        Ok(self.builder.build_bit_cast(self.get(arg), lt, "")?)
    }

    pub(super) fn splat(&self, value: Value, lanes: u32) -> Result<BasicValueEnum<'ctx>, Fail> {
        let elem = self
            .ty(value)
            .scalar()
            .expect("the verifier gives splat a scalar");
        let vt = self
            .llvm_type(Type::Vector { elem, lanes })
            .into_vector_type();
        let x = self.get(value);
        let mut v = vt.get_undef();
        for i in 0..lanes {
            let idx = self.ctx.i32_type().const_int(i as u64, false);
            v = self.builder.build_insert_element(v, x, idx, "")?;
        }
        Ok(v.into())
    }

    pub(super) fn extract(&self, vector: Value, lane: u32) -> Result<BasicValueEnum<'ctx>, Fail> {
        let v = self.vector(vector, lane);
        let idx = self.ctx.i32_type().const_int(lane as u64, false);
        Ok(self.builder.build_extract_element(v, idx, "")?)
    }

    pub(super) fn insert(
        &self,
        vector: Value,
        lane: u32,
        value: Value,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let v = self.vector(vector, lane);
        debug_assert_eq!(
            Some(self.ty(value)),
            self.ty(vector).elem().map(Type::Scalar),
            "the verifier matches the inserted value to the lanes"
        );
        let idx = self.ctx.i32_type().const_int(lane as u64, false);
        Ok(self
            .builder
            .build_insert_element(v, self.get(value), idx, "")?
            .into())
    }

    /// `f32`, or a vector of `f32` with the lanes of `ty`: where half-precision values are
    /// computed. An LLVM type, not an IR one: 8 lanes of `f32` are wider than IR vectors go.
    fn f32_like(&self, ty: BasicTypeEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        let f32t = self.ctx.f32_type();
        match ty {
            BasicTypeEnum::VectorType(v) => f32t.vec_type(v.get_size()).into(),
            _ => f32t.into(),
        }
    }

    fn vector(&self, v: Value, lane: u32) -> VectorValue<'ctx> {
        debug_assert!(
            matches!(self.ty(v), Type::Vector { lanes, .. } if lane < lanes),
            "the verifier checks vector operands and their lanes"
        );
        self.get(v).into_vector_value()
    }
}
