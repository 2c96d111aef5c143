//! Tiles staged in shared memory: `mma.group`, which multiplies shared-memory tiles by
//! groups of four subgroups, and `copy.async`, which fills them. Copies complete when
//! they start, so `async.commit` and `async.wait` have nothing to do; so do products:
//! `mma.group.async` is `mma.group`, and `mma.wait` passes its accumulators on.

use crate::compile::Compiler;
use crate::exec::{Exec, Res};
use crate::program::{Slot, Space};
use kosmos_ir::{FRAG_M, GROUP_K, GROUP_N, GROUP_SUBGROUPS, Inst, MmaLayout, Op};
use std::sync::atomic::Ordering as AO;

#[derive(Debug)]
pub(crate) enum SharedTile {
    /// `mma.group`: `a` and `b` are shared-memory offsets of tiles laid out as `layout`,
    /// `c` and `dst` `frag<wacc>`s.
    MmaGroup {
        dst: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        layout: MmaLayout,
        pos: u32,
    },
    /// `mma.wait`: the accumulators, unchanged.
    MmaWait { dsts: Vec<Slot>, srcs: Vec<Slot> },
    /// `copy.async`, done at once.
    CopyAsync {
        dst: Slot,
        src: Slot,
        pred: Slot,
        pos: u32,
    },
}

impl Compiler<'_> {
    /// `None` for `async.commit` and `async.wait`.
    pub(crate) fn shared_tile(&mut self, inst: &Inst, at: u32) -> Option<SharedTile> {
        Some(match inst.op {
            Op::MmaGroup { a, b, acc, layout } | Op::MmaGroupAsync { a, b, acc, layout } => {
                SharedTile::MmaGroup {
                    dst: self.result(inst),
                    a: a.0,
                    b: b.0,
                    c: acc.0,
                    layout,
                    pos: at,
                }
            }
            Op::CopyAsync { dst, src, pred } => SharedTile::CopyAsync {
                dst: dst.0,
                src: src.0,
                pred: pred.0,
                pos: at,
            },
            Op::MmaWait { ref accs, .. } => SharedTile::MmaWait {
                dsts: Self::slots(&inst.results),
                srcs: Self::slots(accs),
            },
            Op::AsyncCommit | Op::AsyncWait { .. } => return None,
            ref op => unreachable!("`{}` is not a shared-memory tile op", op.name()),
        })
    }
}

impl Exec<'_> {
    pub(crate) fn shared_tile(&mut self, ins: &SharedTile, mask: &[bool]) -> Res {
        match *ins {
            SharedTile::MmaGroup {
                dst,
                a,
                b,
                c,
                layout,
                pos,
            } => self.mma_group(dst, [a, b, c], layout, pos, mask),
            SharedTile::MmaWait { ref dsts, ref srcs } => {
                self.copy_all(srcs, dsts);
                Ok(())
            }
            SharedTile::CopyAsync {
                dst,
                src,
                pred,
                pos,
            } => self.copy_async(dst, src, pred, pos, mask),
        }
    }

    /// `mma.group`: every group of four subgroups with live lanes multiplies its shared
    /// tiles, each subgroup into its own 16-row slab. Launches of kernels with `mma.group`
    /// have workgroups of whole groups, so every group's lanes exist.
    fn mma_group(
        &mut self,
        dst: Slot,
        [a, b, c]: [Slot; 3],
        layout: MmaLayout,
        pos: u32,
        mask: &[bool],
    ) -> Res {
        const M: usize = (GROUP_SUBGROUPS * FRAG_M) as usize;
        const N: usize = GROUP_N as usize;
        const K: usize = GROUP_K as usize;
        let (sg, per_group) = (self.l.prog.subgroup, GROUP_SUBGROUPS as usize);
        let group = per_group * sg;
        for g in 0..self.n / group {
            let lanes = g * group..(g + 1) * group;
            if !lanes.clone().any(|l| mask[l]) {
                continue;
            }
            if let Some(l) = lanes.clone().find(|l| !mask[*l]) {
                return Err(self.subgroup_error(
                    l / sg,
                    pos,
                    format!(
                        "lane {} is not here (divergent control flow or returned): every lane \
                         of subgroups {}..{} runs the group's mma.group",
                        l % sg,
                        self.subgroup(per_group * g),
                        self.subgroup(per_group * (g + 1))
                    ),
                ));
            }
            let tiles = [(a, "the a tile"), (b, "the b tile")];
            let [pa, pb] = self.uniform(lanes.clone(), tiles, pos)?;
            let first = lanes.start;
            self.check_align(first, pa, 1024, pos)?;
            self.check_align(first, pb, 1024, pos)?;
            let a0 = self.shared_range(first, pa, M * K * 2, pos)?;
            let b0 = self.shared_range(first, pb, K * N * 2, pos)?;
            let shared = &self.shared;
            // bf16 widens to f32 exactly.
            let bf = |at: usize| f32::from_bits((shared.load(at, 2, AO::Relaxed) as u32) << 16);
            // Unswizzled: A row-major (i, k), B transposed (n, k) so that k runs contiguously.
            let at = |i: usize, k: usize| a0 + layout.a_offset(i as u32, k as u32) as usize;
            let bt = |k: usize, n: usize| b0 + layout.b_offset(k as u32, n as u32) as usize;
            let ta: Vec<f32> = (0..M * K).map(|e| bf(at(e / K, e % K))).collect();
            let tb: Vec<f32> = (0..N * K).map(|e| bf(bt(e % K, e / K))).collect();
            for q in 0..per_group {
                let s = per_group * g + q;
                let acc = self.frag(c, s);
                let mut out = vec![0u64; acc.len()];
                for r in 0..FRAG_M as usize {
                    let row = &ta[(16 * q + r) * K..][..K];
                    for n in 0..N {
                        let e = r * N + n;
                        let mut x = f32::from_bits((acc[e / 2] >> (32 * (e % 2))) as u32);
                        // k ascending, one f32 rounding per step: bf16 products are exact in
                        // f32, so only the additions round.
                        for (ya, yb) in row.iter().zip(&tb[n * K..][..K]) {
                            x += ya * yb;
                        }
                        out[e / 2] |= u64::from(x.to_bits()) << (32 * (e % 2));
                    }
                }
                self.frag_mut(dst, s).copy_from_slice(&out);
            }
        }
        Ok(())
    }

    /// `copy.async`, lane by lane and at once: 16 bytes from global to shared memory, or
    /// 16 zeros without reading the source when the predicate is false.
    fn copy_async(&mut self, dst: Slot, src: Slot, pred: Slot, pos: u32, mask: &[bool]) -> Res {
        for l in (0..self.n).filter(|l| mask[*l]) {
            let (d, s) = (self.vals[dst as usize][l], self.vals[src as usize][l]);
            self.check_align(l, d, 16, pos)?;
            self.check_align(l, s, 16, pos)?;
            let v = if self.vals[pred as usize][l] & 1 != 0 {
                self.read(l, s, 16, Space::Global, pos)?
            } else {
                0
            };
            self.write(l, d, 16, v, Space::Shared, pos)?;
        }
        self.writes += 1;
        Ok(())
    }
}
