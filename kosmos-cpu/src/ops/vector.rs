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
        let wide = |s: Slot| self.l.prog.wide[s as usize];
        match *ins {
            Vector::Splat {
                dst,
                a,
                elem,
                lanes,
            } => {
                let w = wide(dst);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let av = &self.vals[a as usize];
                for (l, x) in av.iter().enumerate() {
                    let v = (0..lanes).fold(0u128, |v, i| elem_set(v, elem, i, *x));
                    set(&mut d, l, w, v);
                }
                self.vals[dst as usize] = d;
            }
            Vector::Extract { dst, v, elem, lane } => {
                let w = wide(v);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let vv = &self.vals[v as usize];
                for (l, o) in d.iter_mut().enumerate() {
                    *o = elem_get(get(vv, l, w), elem, lane);
                }
                self.vals[dst as usize] = d;
            }
            Vector::Insert {
                dst,
                v,
                elem,
                lane,
                a,
            } => {
                let w = wide(dst);
                let mut d = std::mem::take(&mut self.vals[dst as usize]);
                let (vv, av) = (&self.vals[v as usize], &self.vals[a as usize]);
                for (l, x) in av.iter().enumerate() {
                    set(&mut d, l, w, elem_set(get(vv, l, w), elem, lane, *x));
                }
                self.vals[dst as usize] = d;
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
        let mut d = std::mem::take(&mut self.vals[dst as usize]);
        let mut el = [0u64; 3];
        for l in 0..self.n {
            let ins: Vec<u128> = srcs
                .iter()
                .map(|s| get(&self.vals[*s as usize], l, w))
                .collect();
            let mut out = 0u128;
            for i in 0..ty.lanes {
                for (k, v) in ins.iter().enumerate() {
                    el[k] = elem_get(*v, ty.elem, i);
                }
                out = elem_set(out, ty.elem, i, f(&el[..srcs.len()]));
            }
            set(&mut d, l, w, out);
        }
        self.vals[dst as usize] = d;
    }
}
