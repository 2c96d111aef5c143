//! Vectors: `splat`, `extract` and `insert`, and the element-wise map that vector
//! arithmetic runs on. Vectors of up to 16 bytes are packed little-endian in a lane's
//! one or two words.

use crate::compile::Compiler;
use crate::exec::Exec;
use crate::exec::lanes::{elem_get, elem_set, get, set};
use crate::program::{Slot, VTy};
use kosmos_ir::{Inst, Op, ScalarType};

#[derive(Debug)]
pub(crate) enum Vector {
    Splat {
        dst: Slot,
        a: Slot,
        elem: ScalarType,
        lanes: u32,
    },
    Extract {
        dst: Slot,
        v: Slot,
        elem: ScalarType,
        lane: u32,
    },
    Insert {
        dst: Slot,
        v: Slot,
        elem: ScalarType,
        lane: u32,
        a: Slot,
    },
}

impl Compiler<'_> {
    pub(crate) fn vector(&mut self, inst: &Inst) -> Vector {
        let dst = self.result(inst);
        match inst.op {
            Op::Splat { value, lanes } => Vector::Splat {
                dst,
                a: value.0,
                elem: self.sty(value),
                lanes,
            },
            Op::Extract { vector, lane } => Vector::Extract {
                dst,
                v: vector.0,
                elem: self.vty(vector).elem,
                lane,
            },
            Op::Insert {
                vector,
                lane,
                value,
            } => Vector::Insert {
                dst,
                v: vector.0,
                elem: self.vty(vector).elem,
                lane,
                a: value.0,
            },
            ref op => unreachable!("`{}` is not a vector op", op.name()),
        }
    }
}

impl Exec<'_> {
    pub(crate) fn vector(&mut self, ins: &Vector) {
        match *ins {
            Vector::Splat {
                dst,
                a,
                elem,
                lanes,
            } => self.write_lanes(dst, |vals, l| {
                let x = vals[a as usize][l];
                (0..lanes).fold(0u128, |v, i| elem_set(v, elem, i, x))
            }),
            Vector::Extract { dst, v, elem, lane } => {
                let w = self.l.prog.wide[v as usize];
                self.write_lanes(dst, |vals, l| {
                    elem_get(get(&vals[v as usize], l, w), elem, lane).into()
                })
            }
            Vector::Insert {
                dst,
                v,
                elem,
                lane,
                a,
            } => {
                let w = self.l.prog.wide[dst as usize];
                self.write_lanes(dst, |vals, l| {
                    elem_set(
                        get(&vals[v as usize], l, w),
                        elem,
                        lane,
                        vals[a as usize][l],
                    )
                })
            }
        }
    }

    /// Applies `f` element by element to vectors of type `ty`.
    pub(crate) fn vector_map(
        &mut self,
        ty: VTy,
        dst: Slot,
        srcs: &[Slot],
        f: impl Fn(&[u64]) -> u64,
    ) {
        let w = self.l.prog.wide[dst as usize];
        self.write_lanes(dst, |vals, l| {
            let ins: Vec<u128> = srcs.iter().map(|s| get(&vals[*s as usize], l, w)).collect();
            let mut el = [0u64; 3];
            let mut out = 0u128;
            for i in 0..ty.lanes {
                for (k, v) in ins.iter().enumerate() {
                    el[k] = elem_get(*v, ty.elem, i);
                }
                out = elem_set(out, ty.elem, i, f(&el[..srcs.len()]));
            }
            out
        });
    }

    /// Sets each lane `l` of `dst` (one or two words, as the slot holds) to `f(vals, l)`.
    #[inline(always)]
    fn write_lanes(&mut self, dst: Slot, f: impl Fn(&[Vec<u64>], usize) -> u128) {
        let w = self.l.prog.wide[dst as usize];
        let mut d = std::mem::take(&mut self.vals[dst as usize]);
        for l in 0..self.n {
            set(&mut d, l, w, f(&self.vals, l));
        }
        self.vals[dst as usize] = d;
    }
}
