//! Subgroup tiles: `frag.zero`, `frag.load`, `frag.store` and `mma`, each run by whole
//! subgroups. A fragment's elements are spread over its subgroup's lanes as
//! [`Program::frag`](crate::program::Program::frag) describes; the helpers here check
//! that every lane of a subgroup is present and that its operands agree across lanes.

use crate::CpuError;
use crate::compile::Compiler;
use crate::exec::{Exec, Res, Stop};
use crate::program::{FRAG_ELEMS, Slot, Space};
use kosmos_ir::{Inst, Op, ScalarType, TileLayout, Type};
use std::ops::Range;

#[derive(Debug)]
pub(crate) enum Tile {
    FragZero {
        dst: Slot,
        pos: u32,
    },
    /// `frag.load a|b`: both are 16x16 `bf16` tiles, held alike.
    FragLoad {
        dst: Slot,
        ptr: Slot,
        stride: Slot,
        space: Space,
        pos: u32,
    },
    FragStore(FragStore),
    Mma {
        dst: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        pos: u32,
    },
    /// `subgroup.shuffle`: each lane takes `value` from lane `lane % subgroup size`.
    Shuffle {
        dst: Slot,
        value: Slot,
        lane: Slot,
        pos: u32,
    },
}

/// `frag.store` of a tile with `cols` columns (`frag<acc>` or `frag<wacc>`) as `bf16`s or
/// `f32`s, writing only inside `within` (rows, cols) when given; `swizzled`: as the
/// swizzled boxes of `stride` rows of [`TileLayout::swizzled_box`].
#[derive(Copy, Clone, Debug)]
pub(crate) struct FragStore {
    ptr: Slot,
    val: Slot,
    stride: Slot,
    within: Option<(Slot, Slot)>,
    swizzled: bool,
    cols: u32,
    bf16: bool,
    space: Space,
    pos: u32,
}

impl Compiler<'_> {
    pub(crate) fn tile(&mut self, inst: &Inst, at: u32) -> Tile {
        match inst.op {
            Op::FragZero { .. } => Tile::FragZero {
                dst: self.result(inst),
                pos: at,
            },
            Op::FragLoad { ptr, stride, .. } => Tile::FragLoad {
                dst: self.result(inst),
                ptr: ptr.0,
                stride: stride.0,
                space: self.space(ptr),
                pos: at,
            },
            Op::FragStore {
                ptr,
                value,
                stride,
                within,
                layout,
                elem,
            } => Tile::FragStore(FragStore {
                ptr: ptr.0,
                val: value.0,
                stride: stride.0,
                within: within.map(|(rows, cols)| (rows.0, cols.0)),
                swizzled: layout == TileLayout::Swizzled,
                cols: match self.ty(value) {
                    Type::Frag(role) => role.shape().1,
                    t => unreachable!("the verifier stores accumulators only, not {t}"),
                },
                bf16: elem == ScalarType::BF16,
                space: self.space(ptr),
                pos: at,
            }),
            Op::Mma { a, b, acc } => Tile::Mma {
                dst: self.result(inst),
                a: a.0,
                b: b.0,
                c: acc.0,
                pos: at,
            },
            Op::Shuffle { value, lane } => Tile::Shuffle {
                dst: self.result(inst),
                value: value.0,
                lane: lane.0,
                pos: at,
            },
            ref op => unreachable!("`{}` is not a subgroup tile op", op.name()),
        }
    }
}

impl Exec<'_> {
    pub(crate) fn tile(&mut self, ins: &Tile, mask: &[bool]) -> Res {
        match *ins {
            Tile::FragZero { dst, pos } => {
                for sg in self.full_subgroups(mask, pos)? {
                    self.frag_mut(dst, sg).fill(0);
                }
            }
            Tile::FragLoad {
                dst,
                ptr,
                stride,
                space,
                pos,
            } => self.frag_load(dst, ptr, stride, space, pos, mask)?,
            Tile::FragStore(store) => self.frag_store(store, mask)?,
            Tile::Mma { dst, a, b, c, pos } => self.mma(dst, a, b, c, pos, mask)?,
            Tile::Shuffle {
                dst,
                value,
                lane,
                pos,
            } => {
                let sg = self.l.prog.subgroup;
                let mut out = std::mem::take(&mut self.vals[dst as usize]);
                let (from, lanes) = (&self.vals[value as usize], &self.vals[lane as usize]);
                for s in self.full_subgroups(mask, pos)? {
                    for l in s * sg..(s + 1) * sg {
                        out[l] = from[s * sg + lanes[l] as usize % sg];
                    }
                }
                self.vals[dst as usize] = out;
            }
        }
        Ok(())
    }

    fn mma(&mut self, dst: Slot, a: Slot, b: Slot, c: Slot, pos: u32, mask: &[bool]) -> Res {
        for sg in self.full_subgroups(mask, pos)? {
            let tile = |s: Slot| -> [u32; FRAG_ELEMS] {
                let words = self.frag(s, sg);
                std::array::from_fn(|e| (words[e / 2] >> (32 * (e % 2))) as u32)
            };
            let (ta, tb, tc) = (tile(a), tile(b), tile(c));
            let bf = |x: u32| f32::from_bits(x << 16);
            let out = self.frag_mut(dst, sg);
            for i in 0..16 {
                for j in 0..16 {
                    // k ascending, one f32 rounding per step: bf16 products are exact in
                    // f32, so only the additions round.
                    let mut acc = f32::from_bits(tc[i * 16 + j]);
                    for k in 0..16 {
                        acc += bf(ta[i * 16 + k]) * bf(tb[k * 16 + j]);
                    }
                    let e = i * 16 + j;
                    let w = &mut out[e / 2];
                    let shift = 32 * (e % 2);
                    *w = (*w & !(0xFFFF_FFFFu64 << shift)) | ((acc.to_bits() as u64) << shift);
                }
            }
        }
        Ok(())
    }

    fn frag_load(
        &mut self,
        dst: Slot,
        ptr: Slot,
        stride: Slot,
        space: Space,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        for sg in self.full_subgroups(mask, pos)? {
            let (p, st) = self.tile_operands(sg, ptr, stride, pos)?;
            let lane = sg * self.l.prog.subgroup;
            let mut tile = [0u64; FRAG_ELEMS / 2];
            for r in 0..16u64 {
                let row = p.wrapping_add(r.wrapping_mul(st).wrapping_mul(2));
                for half in 0..2u64 {
                    let v = self.read(lane, row.wrapping_add(16 * half), 16, space, pos)?;
                    // 8 bf16 -> 4 words of two 32-bit elements each.
                    for e in 0..8 {
                        let x = (v >> (16 * e)) as u64 & 0xFFFF;
                        let idx = (r * 16 + half * 8) as usize + e;
                        tile[idx / 2] |= x << (32 * (idx % 2));
                    }
                }
            }
            self.frag_mut(dst, sg).copy_from_slice(&tile);
        }
        Ok(())
    }

    /// Stores the 16 x `cols` accumulator `val`: whole 16-byte chunks of four elements,
    /// and within `within` only the elements inside, so no other address is touched.
    fn frag_store(&mut self, store: FragStore, mask: &[bool]) -> Res {
        let (ptr, stride, space, pos) = (store.ptr, store.stride, store.space, store.pos);
        let cols = u64::from(store.cols);
        for sg in self.full_subgroups(mask, pos)? {
            let (p, st) = self.tile_operands(sg, ptr, stride, pos)?;
            let lanes = sg * self.l.prog.subgroup..(sg + 1) * self.l.prog.subgroup;
            let (rows_in, cols_in) = match store.within {
                Some((r, c)) => {
                    let bounds = [(r, "the row bound"), (c, "the column bound")];
                    let [r, c] = self.uniform(lanes.clone(), bounds, pos)?;
                    (r.min(16), c.min(cols))
                }
                None => (16, cols),
            };
            let tile: Vec<u64> = self.frag(store.val, sg).to_vec();
            let size = if store.bf16 { 2 } else { 4 };
            for r in 0..rows_in {
                let row = p.wrapping_add(r.wrapping_mul(st).wrapping_mul(size));
                for c in (0..cols_in).step_by(4) {
                    // Four elements stay inside a swizzled chunk of eight.
                    let at = if store.swizzled {
                        p.wrapping_add(TileLayout::swizzled_box(r, c, st))
                    } else {
                        row.wrapping_add(size * c)
                    };
                    // Up to four f32 of two words of the tile, already in memory order.
                    let w = ((r * cols + c) / 2) as usize;
                    let mut v = tile[w] as u128 | (tile[w + 1] as u128) << 64;
                    if store.bf16 {
                        v = (0..4).fold(0, |packed, e| {
                            let x = f32::from_bits((v >> (32 * e)) as u32);
                            packed | u128::from(half::bf16::from_f32(x).to_bits()) << (16 * e)
                        });
                    }
                    let len = (size * (cols_in - c).min(4)) as usize;
                    self.write(lanes.start, at, len, v, space, pos)?;
                }
            }
        }
        self.writes += 1;
        Ok(())
    }

    // ---- what collective ops share ----

    /// The subgroups with live lanes under `mask`; an error when one of them is only
    /// partly here (or lacks lanes: a workgroup size not a multiple of the subgroup size).
    pub(crate) fn full_subgroups(&self, mask: &[bool], pos: u32) -> Result<Vec<usize>, Stop> {
        let sg = self.l.prog.subgroup;
        let mut out = Vec::new();
        for s in 0..self.n.div_ceil(sg) {
            let lanes = s * sg..((s + 1) * sg).min(self.n);
            if !lanes.clone().any(|l| mask[l]) {
                continue;
            }
            let missing = if lanes.len() < sg {
                Some(format!(
                    "the workgroup's {} lanes leave it only {} of {sg} lanes",
                    self.l.lanes(),
                    lanes.len()
                ))
            } else {
                lanes.clone().find(|l| !mask[*l]).map(|l| {
                    format!(
                        "lane {} is not here (divergent control flow or returned)",
                        l % sg
                    )
                })
            };
            if let Some(message) = missing {
                return Err(self.subgroup_error(s, pos, message));
            }
            out.push(s);
        }
        Ok(out)
    }

    pub(crate) fn subgroup_error(&self, subgroup: usize, pos: u32, message: String) -> Stop {
        CpuError::Subgroup {
            kernel: self.kernel(),
            workgroup: self.wg,
            subgroup: self.subgroup(subgroup),
            pos: self.pos(pos),
            op: self.op_name(pos),
            message,
        }
        .into()
    }

    pub(crate) fn frag(&self, slot: Slot, subgroup: usize) -> &[u64] {
        let w = self.l.prog.frag[slot as usize] * self.l.prog.subgroup;
        &self.vals[slot as usize][subgroup * w..(subgroup + 1) * w]
    }

    pub(crate) fn frag_mut(&mut self, slot: Slot, subgroup: usize) -> &mut [u64] {
        let w = self.l.prog.frag[slot as usize] * self.l.prog.subgroup;
        &mut self.vals[slot as usize][subgroup * w..(subgroup + 1) * w]
    }

    /// The values of `operands` in `lanes`, the lanes of a collective op (a subgroup, or
    /// the four of a group), where they must all agree.
    pub(crate) fn uniform<const N: usize>(
        &self,
        lanes: Range<usize>,
        operands: [(Slot, &str); N],
        pos: u32,
    ) -> Result<[u64; N], Stop> {
        let sg = self.l.prog.subgroup;
        let first = lanes.start;
        let values = operands.map(|(s, _)| self.vals[s as usize][first]);
        for ((s, what), want) in operands.iter().zip(values) {
            let v = &self.vals[*s as usize];
            if let Some(l) = lanes.clone().find(|l| v[*l] != want) {
                return Err(self.subgroup_error(
                    l / sg,
                    pos,
                    format!(
                        "{what} is {:#x} in lane {} but {want:#x} in lane 0 of subgroup {}: the \
                         operands must be the same in every lane",
                        v[l],
                        l % sg,
                        self.subgroup(first / sg)
                    ),
                ));
            }
        }
        Ok(values)
    }

    /// The pointer and row stride (in elements) of a fragment op in `subgroup`: the same in
    /// every lane, the pointer 16-byte aligned and the stride a multiple of 8.
    fn tile_operands(
        &self,
        subgroup: usize,
        ptr: Slot,
        stride: Slot,
        pos: u32,
    ) -> Result<(u64, u64), Stop> {
        let sg = self.l.prog.subgroup;
        let lanes = subgroup * sg..(subgroup + 1) * sg;
        let [p, st] = self.uniform(
            lanes.clone(),
            [(ptr, "the pointer"), (stride, "the row stride")],
            pos,
        )?;
        self.check_align(lanes.start, p, 16, pos)?;
        if st % 8 != 0 {
            return Err(self.subgroup_error(
                subgroup,
                pos,
                format!("the row stride {st} is not a multiple of 8 elements"),
            ));
        }
        Ok((p, st))
    }
}
