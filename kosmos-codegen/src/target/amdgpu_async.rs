//! Barrier objects and tensor copies on AMD GPUs, which have no copy engine: the barrier
//! object is the emulated word of [`kosmos_ir::async_copy::mbar`] in LDS, updated by
//! atomic adds, and `copy.tensor` is the subgroup's lanes copying the box in 16-byte chunks
//! (global loads, LDS stores) from the emulated tensor map
//! ([`kosmos_ir::async_copy::map_word`]), each lane then completing its own bytes;
//! `copy.tensor.store` copies the other way, complete when the lanes are.

use crate::llvm::{AtomicRmw, Fail, FnBuilder, instruction};
use inkwell::AtomicOrdering;
use inkwell::IntPredicate as P;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use kosmos_ir::async_copy::{map_word, mbar};
use kosmos_ir::{AddrSpace, Ordering, RmwOp, ScalarType, Scope};

/// Lanes of a wave64 subgroup.
const LANES: u64 = 64;

/// `mbar.init`: a plain store, which the `barrier` after it orders.
pub(super) fn init<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    bar: PointerValue<'ctx>,
    count: IntValue<'ctx>,
) -> Result<(), Fail> {
    let i64t = cx.ctx.i64_type();
    let count = cx.builder.build_int_z_extend(count, i64t, "")?;
    let word = cx
        .builder
        .build_int_mul(count, i64t.const_int(mbar::init(1), false), "")?;
    cx.store(bar, word, 8)?;
    Ok(())
}

/// Adds `delta` to the barrier object at `bar` (acquire-release, workgroup scope); the add
/// that completes the phase starts the next one. A zero `delta` changes nothing.
pub(super) fn add<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    bar: PointerValue<'ctx>,
    delta: IntValue<'ctx>,
) -> Result<(), Fail> {
    let (b, i64t) = (&cx.builder, cx.ctx.i64_type());
    let k = |v: u64| i64t.const_int(v, false);
    let old = atomic_add(cx, bar, delta, Ordering::AcqRel)?;
    let new = b.build_int_add(old, delta, "")?;
    let open = b.build_and(new, k(mbar::OPEN), "")?;
    let closed = b.build_int_compare(P::EQ, open, k(0), "")?;
    let moved = b.build_int_compare(P::NE, delta, k(0), "")?;
    let completed = b.build_and(closed, moved, "completed")?;
    // The next phase: `count` arrivals again and the phase bit flipped (see `mbar::next_phase`).
    let count = b.build_right_shift(new, k(42), false, "")?;
    let count = b.build_and(count, k(mbar::ARRIVAL - 1), "")?;
    let rearm = b.build_int_mul(count, k(mbar::ARRIVAL), "")?;
    let rearm = b.build_int_add(rearm, k(mbar::PHASE), "")?;
    let next = b.build_select(completed, rearm, k(0), "")?.into_int_value();
    atomic_add(cx, bar, next, Ordering::Release)?;
    Ok(())
}

fn atomic_add<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    bar: PointerValue<'ctx>,
    value: IntValue<'ctx>,
    ordering: Ordering,
) -> Result<IntValue<'ctx>, Fail> {
    let rmw = AtomicRmw {
        op: RmwOp::Add,
        ty: ScalarType::U64,
        space: AddrSpace::Shared,
        ptr: bar,
        value: value.into(),
        ordering,
        scope: Scope::Workgroup,
    };
    Ok(cx.atomic_rmw(rmw, "workgroup").into_int_value())
}

/// `mbar.try_wait`: an acquire load of the word, its phase bit against the parity.
pub(super) fn try_wait<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    bar: PointerValue<'ctx>,
    parity: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Fail> {
    let (b, i64t) = (&cx.builder, cx.ctx.i64_type());
    let word = cx.load(i64t, bar, 8)?;
    let load = instruction(word);
    load.set_atomic_ordering(AtomicOrdering::Acquire)
        .map_err(|e| Fail(e.to_string()))?;
    cx.set_sync_scope(load, "workgroup");
    let word = word.into_int_value();
    let phase = b.build_right_shift(word, i64t.const_int(63, false), false, "")?;
    let phase = b.build_int_truncate(phase, cx.ctx.i32_type(), "")?;
    let parity = b.build_and(parity, cx.ctx.i32_type().const_int(1, false), "")?;
    Ok(b.build_int_compare(P::NE, phase, parity, "done")?)
}

/// `copy.tensor` by the lanes of one subgroup: chunk `c` of the box (row `c / per_row`,
/// 16 bytes at `16 (c % per_row)` in it) is copied by lane `c % 64`. A chunk inside the
/// tensor is one 16-byte load; one over its edge is loaded byte by byte, bytes outside
/// read from the tensor's first element and replaced by zeros.
pub(super) fn copy_tensor<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    [dst, map, x, y, bar]: [BasicValueEnum<'ctx>; 5],
    lane: IntValue<'ctx>,
) -> Result<(), Fail> {
    let (b, i8t) = (&cx.builder, cx.ctx.i8_type());
    let v16 = i8t.vec_type(16);
    let chunks = for_each_chunk(cx, map, [x, y], lane, |chunk| {
        let (inside, edge, join) = (
            cx.block("tensor.inside"),
            cx.block("tensor.edge"),
            cx.block("tensor.store"),
        );
        b.build_conditional_branch(chunk.whole, inside, edge)?;
        b.position_at_end(inside);
        let whole_chunk = cx.load(v16, chunk.global_ptr(cx, 0)?, 1)?;
        b.build_unconditional_branch(join)?;

        b.position_at_end(edge);
        let mut bytes = v16.const_zero();
        for i in 0..16u64 {
            let ok = chunk.byte_inside(cx, i)?;
            // A byte outside reads the tensor's first element instead.
            let p = chunk.global_ptr(cx, i)?;
            let p = b.build_select(ok, p, chunk.base_ptr(cx)?, "")?;
            let byte = cx.load(i8t, p.into_pointer_value(), 1)?.into_int_value();
            let byte = b.build_select(ok, byte, i8t.const_zero(), "")?;
            bytes =
                b.build_insert_element(bytes, byte, cx.ctx.i32_type().const_int(i, false), "")?;
        }
        b.build_unconditional_branch(join)?;

        b.position_at_end(join);
        let v = b.build_phi(v16, "chunk")?;
        v.add_incoming(&[(&whole_chunk, inside), (&bytes, edge)]);
        // SAFETY: the offset lies in the box at `dst`.
        let to = unsafe { b.build_gep(i8t, dst.into_pointer_value(), &[chunk.shared], "")? };
        cx.store(to, v.as_basic_value(), 16)?;
        Ok(())
    })?;
    // This lane's chunks: ceil((chunks - lane) / 64) when it has any.
    let i64t = cx.ctx.i64_type();
    let k = |v: u64| i64t.const_int(v, false);
    let lane = b.build_int_z_extend(lane, i64t, "")?;
    let has = b.build_int_compare(P::UGT, chunks, lane, "")?;
    let left = b.build_int_sub(chunks, lane, "")?;
    let left = b.build_int_add(left, k(LANES - 1), "")?;
    let mine = b.build_right_shift(left, k(6), false, "")?;
    let mine = b.build_select(has, mine, k(0), "")?.into_int_value();
    let done = b.build_int_mul(mine, k(16), "")?;
    let delta = b.build_int_neg(done, "")?;
    add(cx, bar.into_pointer_value(), delta)
}

/// `copy.tensor.store` by the lanes of one subgroup, chunk by chunk as [`copy_tensor`]: a
/// chunk inside the tensor is one 16-byte store, one over its edge is stored byte by byte,
/// bytes outside left alone. Done when the lanes are: its waits have nothing to wait for.
pub(super) fn store_tensor<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    [map, x, y, src]: [BasicValueEnum<'ctx>; 4],
    lane: IntValue<'ctx>,
) -> Result<(), Fail> {
    let (b, i8t) = (&cx.builder, cx.ctx.i8_type());
    let v16 = i8t.vec_type(16);
    for_each_chunk(cx, map, [x, y], lane, |chunk| {
        // SAFETY: the offset lies in the box at `src`.
        let from = unsafe { b.build_gep(i8t, src.into_pointer_value(), &[chunk.shared], "")? };
        let v = cx.load(v16, from, 16)?.into_vector_value();
        let (inside, edge, join) = (
            cx.block("tensor.inside"),
            cx.block("tensor.edge"),
            cx.block("tensor.stored"),
        );
        b.build_conditional_branch(chunk.whole, inside, edge)?;
        b.position_at_end(inside);
        cx.store(chunk.global_ptr(cx, 0)?, v, 1)?;
        b.build_unconditional_branch(join)?;

        b.position_at_end(edge);
        for i in 0..16u64 {
            let ok = chunk.byte_inside(cx, i)?;
            let (store, next) = (cx.block("tensor.byte"), cx.block("tensor.next"));
            b.build_conditional_branch(ok, store, next)?;
            b.position_at_end(store);
            let byte = b.build_extract_element(v, cx.ctx.i32_type().const_int(i, false), "")?;
            cx.store(chunk.global_ptr(cx, i)?, byte, 1)?;
            b.build_unconditional_branch(next)?;
            b.position_at_end(next);
        }
        b.build_unconditional_branch(join)?;
        b.position_at_end(join);
        Ok(())
    })?;
    Ok(())
}

/// One 16-byte chunk of a tensor copy's box, for the body of [`for_each_chunk`].
struct Chunk<'ctx> {
    /// The chunk's byte offset in shared memory, swizzled as the map says.
    shared: IntValue<'ctx>,
    /// The global address of the chunk's first byte (valid where it is inside).
    global: IntValue<'ctx>,
    /// Whether all 16 bytes are inside the tensor.
    whole: IntValue<'ctx>,
    /// The tensor's base address.
    base: IntValue<'ctx>,
    /// Bytes of a tensor row (its columns).
    cols_bytes: IntValue<'ctx>,
    /// Whether the chunk's row is inside the tensor.
    row_ok: IntValue<'ctx>,
    /// The chunk's first byte, counted from the start of the tensor's row.
    from: IntValue<'ctx>,
}

impl<'ctx> Chunk<'ctx> {
    fn global_ptr(&self, cx: &FnBuilder<'_, 'ctx>, byte: u64) -> Result<PointerValue<'ctx>, Fail> {
        let b = &cx.builder;
        let at = b.build_int_add(self.global, cx.ctx.i64_type().const_int(byte, false), "")?;
        Ok(b.build_int_to_ptr(at, global_ptr_type(cx), "")?)
    }

    fn base_ptr(&self, cx: &FnBuilder<'_, 'ctx>) -> Result<PointerValue<'ctx>, Fail> {
        Ok(cx
            .builder
            .build_int_to_ptr(self.base, global_ptr_type(cx), "")?)
    }

    /// Whether byte `i` of the chunk is inside the tensor.
    fn byte_inside(&self, cx: &FnBuilder<'_, 'ctx>, i: u64) -> Result<IntValue<'ctx>, Fail> {
        let b = &cx.builder;
        let at = b.build_int_add(self.from, cx.ctx.i64_type().const_int(i, false), "")?;
        let ok = in_range(cx, at, self.cols_bytes)?;
        Ok(b.build_and(ok, self.row_ok, "")?)
    }
}

fn global_ptr_type<'ctx>(cx: &FnBuilder<'_, 'ctx>) -> inkwell::types::PointerType<'ctx> {
    cx.ctx.ptr_type(inkwell::AddressSpace::from(1u16))
}

/// The loop of a subgroup's tensor copy over the 16-byte chunks of the box of `map` at
/// column `x`, row `y`: chunk `c` (row `c / per_row`, 16 bytes at `16 (c % per_row)` in it)
/// is `body`'s on lane `c % 64`. Returns the box's chunk count (`i64`).
fn for_each_chunk<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    map: BasicValueEnum<'ctx>,
    [x, y]: [BasicValueEnum<'ctx>; 2],
    lane: IntValue<'ctx>,
    mut body: impl FnMut(&Chunk<'ctx>) -> Result<(), Fail>,
) -> Result<IntValue<'ctx>, Fail> {
    let (b, i64t) = (&cx.builder, cx.ctx.i64_type());
    let k = |v: u64| i64t.const_int(v, false);
    let map = map.into_pointer_value();
    let field = |i: usize| -> Result<IntValue<'ctx>, Fail> {
        // SAFETY: the map has 16 words.
        let at = unsafe { b.build_gep(i64t, map, &[k(i as u64)], "")? };
        Ok(cx.load(i64t, at, 8)?.into_int_value())
    };
    let base = field(map_word::BASE)?;
    let cols = field(map_word::COLS)?;
    let rows = field(map_word::ROWS)?;
    let stride = field(map_word::ROW_STRIDE)?;
    let box_cols = field(map_word::BOX_COLS)?;
    let box_rows = field(map_word::BOX_ROWS)?;
    let elem = field(map_word::ELEM_BYTES)?;
    let swizzle = field(map_word::SWIZZLE)?;
    let row_bytes = b.build_int_mul(box_cols, elem, "")?;
    let per_row = b.build_right_shift(row_bytes, k(4), false, "")?;
    let chunks = b.build_int_mul(per_row, box_rows, "chunks")?;
    let cols_bytes = b.build_int_mul(cols, elem, "")?;
    let x = b.build_int_s_extend(x.into_int_value(), i64t, "")?;
    let y = b.build_int_s_extend(y.into_int_value(), i64t, "")?;
    let x_bytes = b.build_int_mul(x, elem, "")?;
    let lane = b.build_int_z_extend(lane, i64t, "")?;

    let entry = cx.current_block();
    let (head, chunk_block, exit) = (
        cx.block("tensor.head"),
        cx.block("tensor.chunk"),
        cx.block("tensor.done"),
    );
    b.build_unconditional_branch(head)?;
    b.position_at_end(head);
    let c = b.build_phi(i64t, "c")?;
    let more = b.build_int_compare(P::ULT, c.as_basic_value().into_int_value(), chunks, "")?;
    b.build_conditional_branch(more, chunk_block, exit)?;

    b.position_at_end(chunk_block);
    let ci = c.as_basic_value().into_int_value();
    let r = b.build_int_unsigned_div(ci, per_row, "")?;
    let j = b.build_int_unsigned_rem(ci, per_row, "")?;
    let row = b.build_int_add(y, r, "row")?;
    let row_ok = in_range(cx, row, rows)?;
    let j16 = b.build_int_mul(j, k(16), "")?;
    let from = b.build_int_add(x_bytes, j16, "")?;
    let row_at = b.build_int_mul(row, stride, "")?;
    let global = b.build_int_add(base, row_at, "")?;
    let global = b.build_int_add(global, from, "global")?;
    let last = b.build_int_add(from, k(16), "")?;
    let starts_in = b.build_int_compare(P::SGE, from, k(0), "")?;
    let ends_in = b.build_int_compare(P::SLE, last, cols_bytes, "")?;
    let whole = b.build_and(row_ok, starts_in, "")?;
    let whole = b.build_and(whole, ends_in, "whole")?;
    let line = b.build_int_mul(r, row_bytes, "")?;
    let off = b.build_int_add(line, j16, "")?;
    // kosmos_ir::async_copy::swizzled: chunk bits 4..7 ^= line bits 7..10.
    let flip = b.build_right_shift(off, k(7), false, "")?;
    let flip = b.build_and(flip, k(7), "")?;
    let flip = b.build_left_shift(flip, k(4), "")?;
    let swizzled = b.build_int_compare(P::NE, swizzle, k(0), "")?;
    let flip = b.build_select(swizzled, flip, k(0), "")?.into_int_value();
    let shared = b.build_xor(off, flip, "")?;
    body(&Chunk {
        shared,
        global,
        whole,
        base,
        cols_bytes,
        row_ok,
        from,
    })?;
    let next = b.build_int_add(ci, k(LANES), "")?;
    let latch = cx.current_block();
    b.build_unconditional_branch(head)?;
    c.add_incoming(&[(&lane, entry), (&next, latch)]);

    b.position_at_end(exit);
    Ok(chunks)
}

/// `0 <= v < len` for a signed `v` and a length below 2^63.
fn in_range<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    v: IntValue<'ctx>,
    len: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Fail> {
    // Negative values are huge unsigned ones.
    Ok(cx.builder.build_int_compare(P::ULT, v, len, "")?)
}
