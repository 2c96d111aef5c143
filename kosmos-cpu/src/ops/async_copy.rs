//! Barrier objects and the bulk copies that complete on them: `mbar.*`, `copy.tensor`,
//! `copy.tensor.store` and its waits, and `fence.proxy.async`. A barrier object is the
//! emulated word of [`kosmos_ir::async_copy::mbar`] in the workgroup's shared memory, updated
//! atomically (the workgroup's groups may run on threads of their own): arrivals release what
//! the arriving lanes and copies wrote, and a wait that sees its phase complete acquires it.
//! `copy.tensor` reads the emulated tensor map ([`kosmos_ir::async_copy::map_word`]) and
//! completes at once; so does `copy.tensor.store`, whose waits have nothing to wait for.

use crate::CpuError;
use crate::compile::Compiler;
use crate::exec::{Exec, Res, Stop};
use crate::program::{Slot, Space};
use kosmos_ir::async_copy::{TENSOR_MAP_BYTES, map_word, mbar, swizzled};
use kosmos_ir::{Inst, Op};
use std::sync::atomic::Ordering as AO;

#[derive(Debug)]
pub(crate) enum AsyncCopy {
    /// `mbar.init`.
    Init { bar: Slot, count: Slot, pos: u32 },
    /// `mbar.arrive` (`bytes: None`) and `mbar.arrive.expect`.
    Arrive {
        bar: Slot,
        bytes: Option<Slot>,
        pos: u32,
    },
    TryWait {
        dst: Slot,
        bar: Slot,
        parity: Slot,
        pos: u32,
    },
    CopyTensor {
        dst: Slot,
        map: Slot,
        x: Slot,
        y: Slot,
        bar: Slot,
        pos: u32,
    },
    CopyTensorStore {
        map: Slot,
        x: Slot,
        y: Slot,
        src: Slot,
        pos: u32,
    },
}

impl Compiler<'_> {
    /// `None` for `fence.proxy.async` (one memory is one proxy here) and the waits for
    /// `copy.tensor.store` (complete at once).
    pub(crate) fn async_copy(&mut self, inst: &Inst, at: u32) -> Option<AsyncCopy> {
        Some(match inst.op {
            Op::MbarInit { bar, count } => AsyncCopy::Init {
                bar: bar.0,
                count: count.0,
                pos: at,
            },
            Op::MbarArrive { bar } => AsyncCopy::Arrive {
                bar: bar.0,
                bytes: None,
                pos: at,
            },
            Op::MbarArriveExpect { bar, bytes } => AsyncCopy::Arrive {
                bar: bar.0,
                bytes: Some(bytes.0),
                pos: at,
            },
            Op::MbarTryWait { bar, parity } => AsyncCopy::TryWait {
                dst: self.result(inst),
                bar: bar.0,
                parity: parity.0,
                pos: at,
            },
            Op::CopyTensor {
                dst,
                map,
                x,
                y,
                bar,
            } => AsyncCopy::CopyTensor {
                dst: dst.0,
                map: map.0,
                x: x.0,
                y: y.0,
                bar: bar.0,
                pos: at,
            },
            Op::CopyTensorStore { map, x, y, src } => AsyncCopy::CopyTensorStore {
                map: map.0,
                x: x.0,
                y: y.0,
                src: src.0,
                pos: at,
            },
            Op::FenceProxyAsync
            | Op::FenceProxyAsyncShared
            | Op::CopyTensorWaitRead { .. }
            | Op::CopyTensorWait { .. } => return None,
            ref op => unreachable!("`{}` is not a barrier-object op", op.name()),
        })
    }
}

/// The fields of an emulated tensor map.
struct TensorMap {
    base: u64,
    cols: i64,
    rows: i64,
    row_stride: u64,
    box_cols: u64,
    box_rows: u64,
    elem_bytes: u64,
    swizzle: u64,
}

impl TensorMap {
    fn box_bytes(&self) -> u64 {
        self.box_cols * self.elem_bytes * self.box_rows
    }

    /// The box at column `x`, row `y` (32-bit signed, as the copy engine takes them),
    /// element by element: its byte offset in shared memory (swizzled as the map says) and
    /// its global address, `None` outside the tensor.
    fn box_elements(&self, x: u64, y: u64) -> impl Iterator<Item = (usize, Option<u64>)> + '_ {
        let (x, y) = (i64::from(x as u32 as i32), i64::from(y as u32 as i32));
        let row_bytes = self.box_cols * self.elem_bytes;
        (0..self.box_rows).flat_map(move |r| {
            (0..self.box_cols).map(move |c| {
                let (row, col) = (y + r as i64, x + c as i64);
                let inside = (0..self.rows).contains(&row) && (0..self.cols).contains(&col);
                let global = inside.then(|| {
                    self.base + row as u64 * self.row_stride + col as u64 * self.elem_bytes
                });
                let at = swizzled(r * row_bytes + c * self.elem_bytes, self.swizzle);
                (at as usize, global)
            })
        })
    }
}

impl Exec<'_> {
    pub(crate) fn async_copy(&mut self, ins: &AsyncCopy, mask: &[bool]) -> Res {
        match *ins {
            AsyncCopy::Init { bar, count, pos } => {
                for l in (0..self.n).filter(|l| mask[*l]) {
                    let count = self.vals[count as usize][l];
                    if count == 0 || count > mbar::MAX_COUNT {
                        return Err(self.lane_error(
                            l,
                            pos,
                            format!(
                                "the arrival count {count} is not in 1..={}",
                                mbar::MAX_COUNT
                            ),
                        ));
                    }
                    let at = self.barrier_word(l, self.vals[bar as usize][l], pos)?;
                    let word = u128::from(mbar::init(count));
                    self.shared.store(at, 8, word, AO::Release);
                }
                self.writes += 1;
            }
            AsyncCopy::Arrive { bar, bytes, pos } => {
                for l in (0..self.n).filter(|l| mask[*l]) {
                    let tx = bytes.map_or(0, |b| self.vals[b as usize][l]);
                    let at = self.barrier_word(l, self.vals[bar as usize][l], pos)?;
                    self.barrier_add(at, tx.wrapping_sub(mbar::ARRIVAL));
                }
                self.writes += 1;
            }
            AsyncCopy::TryWait {
                dst,
                bar,
                parity,
                pos,
            } => {
                for l in (0..self.n).filter(|l| mask[*l]) {
                    let at = self.barrier_word(l, self.vals[bar as usize][l], pos)?;
                    let word = self.shared.load(at, 8, AO::Acquire) as u64;
                    let done = mbar::phase_done(word, self.vals[parity as usize][l] as u32);
                    self.vals[dst as usize][l] = u64::from(done);
                    // A poll: a loop of nothing else waits, and the watchdog names it.
                    self.atomic_loads += 1;
                    self.last_atomic_load = (pos, self.vals[bar as usize][l], word);
                }
            }
            AsyncCopy::CopyTensor {
                dst,
                map,
                x,
                y,
                bar,
                pos,
            } => {
                let operands = [
                    (dst, "the destination"),
                    (map, "the tensor map"),
                    (x, "the column"),
                    (y, "the row"),
                    (bar, "the barrier"),
                ];
                self.per_subgroup(mask, operands, pos, Self::copy_tensor)?;
            }
            AsyncCopy::CopyTensorStore {
                map,
                x,
                y,
                src,
                pos,
            } => {
                let operands = [
                    (map, "the tensor map"),
                    (x, "the column"),
                    (y, "the row"),
                    (src, "the source"),
                ];
                self.per_subgroup(mask, operands, pos, Self::store_tensor)?;
            }
        }
        Ok(())
    }

    /// `copy` once for each subgroup of `mask` (all of its lanes active), with its first lane
    /// and its operands (the same on every lane); then the op counts as a write.
    fn per_subgroup<const N: usize>(
        &mut self,
        mask: &[bool],
        operands: [(Slot, &str); N],
        pos: u32,
        copy: fn(&mut Self, usize, [u64; N], u32) -> Res,
    ) -> Res {
        let sg = self.l.prog.subgroup;
        for s in self.full_subgroups(mask, pos)? {
            let lanes = s * sg..(s + 1) * sg;
            let values = self.uniform(lanes.clone(), operands, pos)?;
            copy(self, lanes.start, values, pos)?;
        }
        self.writes += 1;
        Ok(())
    }

    /// The shared-memory offset of the barrier object at `addr`, for lane `l`.
    fn barrier_word(&self, l: usize, addr: u64, pos: u32) -> Result<usize, Stop> {
        self.check_align(l, addr, 8, pos)?;
        self.shared_range(l, addr, 8, pos)
    }

    /// Adds `delta` to the barrier object at `at`, starting the next phase when that
    /// completed the current one.
    fn barrier_add(&mut self, at: usize, delta: u64) {
        self.shared.rmw(at, 8, AO::AcqRel, |word| {
            let word = word.wrapping_add(delta);
            Some(word.wrapping_add(mbar::next_phase(word)))
        });
    }

    /// One subgroup's `copy.tensor` (`lane` its first lane): the box at column `x`, row `y`
    /// of the map into shared memory at `dst`, zeros outside the tensor, then its bytes
    /// completed on the barrier object at `bar`.
    fn copy_tensor(&mut self, lane: usize, [dst, map, x, y, bar]: [u64; 5], pos: u32) -> Res {
        self.check_align(lane, dst, 1024, pos)?;
        let m = self.tensor_map(lane, map, pos)?;
        let box_bytes = m.box_bytes();
        let dst = self.shared_range(lane, dst, box_bytes as usize, pos)?;
        let elem = m.elem_bytes as usize;
        for (at, src) in m.box_elements(x, y) {
            let v = match src {
                Some(src) => self.read(lane, src, elem, Space::Global, pos)?,
                None => 0,
            };
            self.shared.store(dst + at, elem, v, AO::Relaxed);
        }
        let at = self.barrier_word(lane, bar, pos)?;
        self.barrier_add(at, box_bytes.wrapping_neg());
        Ok(())
    }

    /// One subgroup's `copy.tensor.store` (`lane` its first lane): the box of shared memory
    /// at `src` into the map's box at column `x`, row `y`, the elements inside the tensor.
    fn store_tensor(&mut self, lane: usize, [map, x, y, src]: [u64; 4], pos: u32) -> Res {
        self.check_align(lane, src, 1024, pos)?;
        let m = self.tensor_map(lane, map, pos)?;
        // What the copy engine takes from a store (it faults on anything else).
        let (col, row) = (x as u32 as i32, y as u32 as i32);
        if col < 0 || row < 0 || !(col as u64 * m.elem_bytes).is_multiple_of(16) {
            return Err(self.lane_error(
                lane,
                pos,
                format!(
                    "stores a box at column {col}, row {row}: a tensor store's coordinates are \
                     non-negative and its column a whole number of 16-byte units ({} elements)",
                    16 / m.elem_bytes
                ),
            ));
        }
        // The engine writes whole 16-byte units: past a ragged last column (seen on sm_90).
        if !(m.cols as u64 * m.elem_bytes).is_multiple_of(16) {
            return Err(self.lane_error(
                lane,
                pos,
                format!(
                    "stores through a map of {} columns ({} bytes): a tensor store writes whole \
                     16-byte units, past a tensor whose rows are no whole number of them",
                    m.cols,
                    m.cols as u64 * m.elem_bytes
                ),
            ));
        }
        let src = self.shared_range(lane, src, m.box_bytes() as usize, pos)?;
        let elem = m.elem_bytes as usize;
        for (at, dst) in m.box_elements(x, y) {
            if let Some(dst) = dst {
                let v = self.shared.load(src + at, elem, AO::Relaxed);
                self.write(lane, dst, elem, v, Space::Global, pos)?;
            }
        }
        Ok(())
    }

    /// The emulated tensor map at `map`, checked.
    fn tensor_map(&mut self, lane: usize, map: u64, pos: u32) -> Result<TensorMap, Stop> {
        self.check_align(lane, map, 64, pos)?;
        let words = self.read_words(lane, map, pos)?;
        let m = TensorMap {
            base: words[map_word::BASE],
            cols: words[map_word::COLS] as i64,
            rows: words[map_word::ROWS] as i64,
            row_stride: words[map_word::ROW_STRIDE],
            box_cols: words[map_word::BOX_COLS],
            box_rows: words[map_word::BOX_ROWS],
            elem_bytes: words[map_word::ELEM_BYTES],
            swizzle: words[map_word::SWIZZLE],
        };
        if ![1, 2, 4, 8].contains(&m.elem_bytes) || ![0, 128].contains(&m.swizzle) {
            return Err(self.lane_error(
                lane,
                pos,
                format!(
                    "{map:#x} is not a tensor map (element size {}, swizzle {})",
                    m.elem_bytes, m.swizzle
                ),
            ));
        }
        Ok(m)
    }

    fn lane_error(&self, lane: usize, pos: u32, message: String) -> Stop {
        CpuError::BadOperand {
            kernel: self.kernel(),
            workgroup: self.wg,
            lane: self.lane(lane),
            pos: self.pos(pos),
            op: self.op_name(pos),
            message,
        }
        .into()
    }

    /// The 16 words of the tensor map at `map`.
    fn read_words(&mut self, lane: usize, map: u64, pos: u32) -> Result<[u64; 16], Stop> {
        let mut words = [0u64; (TENSOR_MAP_BYTES / 8) as usize];
        for (i, w) in words.iter_mut().enumerate() {
            *w = self.read(lane, map + 8 * i as u64, 8, Space::Global, pos)? as u64;
        }
        Ok(words)
    }
}
