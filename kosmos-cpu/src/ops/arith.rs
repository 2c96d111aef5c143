//! Arithmetic, comparison and conversion: `const`, binary and unary ops, `fma`, `cmp`,
//! `select`, `cast` and `bitcast`. All are pure and run over every lane; only integer
//! division looks at the mask, to report a zero divisor in an active lane.

use crate::CpuError;
use crate::arith;
use crate::compile::Compiler;
use crate::exec::lanes::{elem_get, f32op, get, map1, map2, map3, set};
use crate::exec::{Exec, Res};
use crate::program::{Slot, VTy};
use kosmos_ir::{BinOp, CmpPred, Inst, Op, ScalarType, UnOp};

#[derive(Debug)]
pub(crate) enum Arith {
    Bin(Bin),
    Un {
        op: UnOp,
        ty: VTy,
        dst: Slot,
        a: Slot,
    },
    Fma {
        ty: VTy,
        dst: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
    },
    Cmp {
        pred: CmpPred,
        ty: ScalarType,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    Select {
        dst: Slot,
        c: Slot,
        a: Slot,
        b: Slot,
    },
    Cast {
        from: ScalarType,
        to: ScalarType,
        dst: Slot,
        a: Slot,
    },
    /// `tanh.approx` (Rust's `f32::tanh`, within a few ulp) and `rcp.approx` (`1 / x`,
    /// exact): the GPUs approximate them.
    F32Fn {
        f: fn(f32) -> f32,
        dst: Slot,
        a: Slot,
    },
    /// `bitcast`: values are kept as little-endian packed bits, so it is a copy.
    Copy {
        dst: Slot,
        a: Slot,
    },
}

/// A binary op, `dst = a op b`; `pos` locates the op for a zero divisor.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Bin {
    op: BinOp,
    ty: VTy,
    dst: Slot,
    a: Slot,
    b: Slot,
    pos: u32,
}

impl Compiler<'_> {
    /// `None` for `const`, which becomes a constant slot.
    #[inline(always)]
    pub(crate) fn arith(&mut self, inst: &Inst, at: u32) -> Option<Arith> {
        let dst = self.result(inst);
        Some(match inst.op {
            Op::Const { value: c } => {
                self.constant(dst, c.bits);
                return None;
            }
            Op::Binary { op, lhs, rhs } => Arith::Bin(Bin {
                op,
                ty: self.vty(lhs),
                dst,
                a: lhs.0,
                b: rhs.0,
                pos: at,
            }),
            Op::Unary { op, arg } => Arith::Un {
                op,
                ty: self.vty(arg),
                dst,
                a: arg.0,
            },
            Op::Exp2Approx { arg } => Arith::Un {
                op: UnOp::Exp2,
                ty: self.vty(arg),
                dst,
                a: arg.0,
            },
            Op::TanhApprox { arg } => Arith::F32Fn {
                f: f32::tanh,
                dst,
                a: arg.0,
            },
            Op::RcpApprox { arg } => Arith::F32Fn {
                f: f32::recip,
                dst,
                a: arg.0,
            },
            Op::Fma { a, b, c } => Arith::Fma {
                ty: self.vty(a),
                dst,
                a: a.0,
                b: b.0,
                c: c.0,
            },
            Op::Cmp { pred, lhs, rhs } => Arith::Cmp {
                pred,
                ty: self.sty(lhs),
                dst,
                a: lhs.0,
                b: rhs.0,
            },
            Op::Select {
                cond,
                if_true,
                if_false,
            } => Arith::Select {
                dst,
                c: cond.0,
                a: if_true.0,
                b: if_false.0,
            },
            Op::Cast { arg, to } => Arith::Cast {
                from: self.sty(arg),
                to: to
                    .scalar()
                    .unwrap_or_else(|| unreachable!("the verifier casts to scalars only")),
                dst,
                a: arg.0,
            },
            Op::Bitcast { arg, .. } => Arith::Copy { dst, a: arg.0 },
            ref op => unreachable!("`{}` is not an arithmetic op", op.name()),
        })
    }
}

impl Exec<'_> {
    #[inline(always)]
    pub(crate) fn arith(&mut self, ins: &Arith, mask: &[bool]) -> Res {
        match *ins {
            Arith::Bin(bin) => self.binary(bin, mask)?,
            Arith::Un { op, ty, dst, a } => {
                if ty.lanes == 0 {
                    map1(&mut self.vals, dst, a, |x| arith::unary(op, ty.elem, x));
                } else {
                    self.vector_map(ty, dst, &[a], |e| arith::unary(op, ty.elem, e[0]));
                }
            }
            Arith::Fma { ty, dst, a, b, c } => match (ty.lanes, ty.elem) {
                (0, ScalarType::F32) => map3(&mut self.vals, dst, a, b, c, |x, y, z| {
                    f32::from_bits(x as u32)
                        .mul_add(f32::from_bits(y as u32), f32::from_bits(z as u32))
                        .to_bits() as u64
                }),
                (0, e) => map3(&mut self.vals, dst, a, b, c, |x, y, z| {
                    arith::fma(e, x, y, z)
                }),
                _ => self.vector_map(ty, dst, &[a, b, c], |e| {
                    arith::fma(ty.elem, e[0], e[1], e[2])
                }),
            },
            Arith::Cmp {
                pred,
                ty,
                dst,
                a,
                b,
            } => map2(&mut self.vals, dst, a, b, |x, y| {
                arith::compare(pred, ty, x, y) as u64
            }),
            Arith::Select { dst, c, a, b } => {
                let w = self.l.prog.wide[dst as usize];
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let (cv, av, bv) = (
                    &self.vals[c as usize],
                    &self.vals[a as usize],
                    &self.vals[b as usize],
                );
                for (l, c) in cv.iter().enumerate() {
                    let v = if c & 1 != 0 {
                        get(av, l, w)
                    } else {
                        get(bv, l, w)
                    };
                    set(&mut d, l, w, v);
                }
                self.vals[dst as usize] = d;
            }
            Arith::Cast { from, to, dst, a } => {
                map1(&mut self.vals, dst, a, |x| arith::cast(from, to, x))
            }
            Arith::F32Fn { f, dst, a } => map1(&mut self.vals, dst, a, |x| {
                f(f32::from_bits(x as u32)).to_bits() as u64
            }),
            Arith::Copy { dst, a } => self.copy_all(&[a], &[dst]),
        }
        Ok(())
    }

    fn binary(&mut self, bin: Bin, mask: &[bool]) -> Res {
        let (op, ty, dst, a, b) = (bin.op, bin.ty, bin.dst, bin.a, bin.b);
        let e = ty.elem;
        if matches!(op, BinOp::Div | BinOp::Rem) && e.is_int() {
            let bv = &self.vals[b as usize];
            let w = self.l.prog.wide[b as usize];
            for l in (0..self.n).filter(|l| mask[*l]) {
                let v = get(bv, l, w);
                if (0..ty.lanes.max(1)).any(|i| elem_get(v, e, i) == 0) {
                    return Err(CpuError::DivByZero {
                        kernel: self.kernel(),
                        workgroup: self.wg,
                        lane: self.lane(l),
                        pos: self.pos(bin.pos),
                    }
                    .into());
                }
            }
        }
        if ty.lanes != 0 {
            self.vector_map(ty, dst, &[a, b], |x| {
                arith::binary(op, e, x[0], x[1]).unwrap_or(0)
            });
            return Ok(());
        }
        let v = &mut self.vals;
        use ScalarType::*;
        match (op, e) {
            (BinOp::Add, F32) => map2(v, dst, a, b, |x, y| f32op(x, y, |p, q| p + q)),
            (BinOp::Sub, F32) => map2(v, dst, a, b, |x, y| f32op(x, y, |p, q| p - q)),
            (BinOp::Mul, F32) => map2(v, dst, a, b, |x, y| f32op(x, y, |p, q| p * q)),
            (BinOp::Add, I32 | U32) => map2(v, dst, a, b, |x, y| {
                (x as u32).wrapping_add(y as u32) as u64
            }),
            (BinOp::Sub, I32 | U32) => map2(v, dst, a, b, |x, y| {
                (x as u32).wrapping_sub(y as u32) as u64
            }),
            (BinOp::Mul, I32 | U32) => map2(v, dst, a, b, |x, y| {
                (x as u32).wrapping_mul(y as u32) as u64
            }),
            (BinOp::Add, I64 | U64) => map2(v, dst, a, b, |x, y| x.wrapping_add(y)),
            (BinOp::Mul, I64 | U64) => map2(v, dst, a, b, |x, y| x.wrapping_mul(y)),
            _ => map2(v, dst, a, b, |x, y| arith::binary(op, e, x, y).unwrap_or(0)),
        }
        Ok(())
    }
}
