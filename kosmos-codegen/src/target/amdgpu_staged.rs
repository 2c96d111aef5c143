//! `copy.async` on AMD GPUs, which have no asynchronous copy to LDS that takes a lane's own
//! destination: the load goes to registers and the LDS store waits for the next
//! `async.wait`, so that the loads of one step are in flight while the lane works on the
//! previous one. The staged copies live in private variables at the start of the kernel,
//! read and written whole at constant places, which LLVM keeps in registers.

use crate::llvm::{Fail, FnBuilder, StagedCopy};
use inkwell::AddressSpace;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};

/// Stages the copy of 16 bytes from `src` (zeros unless `pred`) to `dst`. Each call site
/// keeps its last [`STAGED_PER_SITE`] copies; an older one is stored when a newer one pushes
/// it out.
pub(super) fn copy<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    dst: PointerValue<'ctx>,
    src: PointerValue<'ctx>,
    pred: IntValue<'ctx>,
) -> Result<(), Fail> {
    // Newest first; made oldest first, so that a wait stores a site's copies in the
    // order they were issued.
    let mut slots = (0..STAGED_PER_SITE)
        .map(|_| staged_slot(cx))
        .collect::<Result<Vec<_>, Fail>>()?;
    slots.reverse();
    // The oldest copy's store comes before the load, so that the load can take over
    // its registers.
    store_staged(cx, slots[STAGED_PER_SITE - 1])?;
    let data = load_or_zero(cx, src, pred)?;
    let b = &cx.builder;
    for pair in slots.windows(2).rev() {
        let (newer, older) = (pair[0], pair[1]);
        let moves = [
            (newer.data, older.data),
            (newer.dst, older.dst),
            (newer.pending, older.pending),
        ];
        for ((from, to), ty) in moves.into_iter().zip(slot_types(cx)) {
            b.build_store(to, b.build_load(ty, from, "")?)?;
        }
    }
    let first = slots[0];
    b.build_store(first.data, data)?;
    b.build_store(first.dst, dst)?;
    b.build_store(first.pending, cx.ctx.bool_type().const_all_ones())?;
    Ok(())
}

/// The 16 bytes at `src` where `pred`, else zeros.
fn load_or_zero<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    src: PointerValue<'ctx>,
    pred: IntValue<'ctx>,
) -> Result<BasicValueEnum<'ctx>, Fail> {
    let b = &cx.builder;
    let v4 = cx.ctx.i32_type().vec_type(4);
    let from = cx.current_block();
    let (load, join) = (cx.block("copy.load"), cx.block("copy.join"));
    b.build_conditional_branch(pred, load, join)?;
    b.position_at_end(load);
    let x = cx.load(v4, src, 16)?;
    b.build_unconditional_branch(join)?;
    b.position_at_end(join);
    let phi = b.build_phi(v4, "")?;
    phi.add_incoming(&[(&x, load), (&v4.const_zero(), from)]);
    Ok(phi.as_basic_value())
}

/// Copies of one `copy.async` site held in registers at once: a site in a loop runs
/// several times per step.
const STAGED_PER_SITE: usize = 2;

/// The types of a staged slot's data, destination and flag.
fn slot_types<'ctx>(cx: &FnBuilder<'_, 'ctx>) -> [BasicTypeEnum<'ctx>; 3] {
    [
        cx.ctx.i32_type().vec_type(4).into(),
        // LDS is address space 3.
        cx.ctx.ptr_type(AddressSpace::from(3)).into(),
        cx.ctx.bool_type().into(),
    ]
}

/// An `async.wait`: stores every staged copy, those of `copy.async`s lowered later included.
pub(super) fn wait(cx: &FnBuilder<'_, '_>) -> Result<(), Fail> {
    let (wait, after) = (cx.block("async.wait"), cx.block("async.waited"));
    cx.builder.build_unconditional_branch(wait)?;
    cx.builder.position_at_end(wait);
    cx.builder.build_unconditional_branch(after)?;
    cx.builder.position_at_end(after);
    let index = {
        let mut staged = cx.staged.borrow_mut();
        staged.waits.push((wait, after));
        staged.waits.len() - 1
    };
    let copies = cx.staged.borrow().copies.clone();
    for copy in copies {
        store_at_wait(cx, index, copy)?;
    }
    Ok(())
}

/// Adds the store of `copy` to the end of wait `index`'s block, the builder left where it was.
fn store_at_wait<'ctx>(
    cx: &FnBuilder<'_, 'ctx>,
    index: usize,
    copy: StagedCopy<'ctx>,
) -> Result<(), Fail> {
    let here = cx.current_block();
    let (tail, after) = cx.staged.borrow().waits[index];
    tail.get_terminator()
        .expect("a wait's last block ends in its branch to `after`")
        .erase_from_basic_block();
    cx.builder.position_at_end(tail);
    store_staged(cx, copy)?;
    cx.builder.build_unconditional_branch(after)?;
    cx.staged.borrow_mut().waits[index].0 = cx.current_block();
    cx.builder.position_at_end(here);
    Ok(())
}

/// A fresh, empty slot: private variables at the start of the kernel, which LLVM keeps in
/// registers (they are only read and written whole, at constant places).
fn staged_slot<'ctx>(cx: &FnBuilder<'_, 'ctx>) -> Result<StagedCopy<'ctx>, Fail> {
    let b = cx.ctx.create_builder();
    let entry = cx
        .function
        .get_first_basic_block()
        .expect("the kernel has its entry block");
    match entry.get_first_instruction() {
        Some(first) => b.position_before(&first),
        None => b.position_at_end(entry),
    }
    let [data, dst, flag] = slot_types(cx);
    let slot = StagedCopy {
        data: b.build_alloca(data, "staged.data")?,
        dst: b.build_alloca(dst, "staged.dst")?,
        pending: b.build_alloca(flag, "staged.pending")?,
    };
    b.build_store(slot.pending, cx.ctx.bool_type().const_zero())?;
    let waits = cx.staged.borrow().waits.len();
    for index in 0..waits {
        store_at_wait(cx, index, slot)?;
    }
    cx.staged.borrow_mut().copies.push(slot);
    Ok(slot)
}

/// Stores `copy` to LDS if it is pending, and marks it done.
fn store_staged<'ctx>(cx: &FnBuilder<'_, 'ctx>, copy: StagedCopy<'ctx>) -> Result<(), Fail> {
    let b = &cx.builder;
    let [data_type, dst_type, flag] = slot_types(cx);
    let pending = b.build_load(flag, copy.pending, "")?.into_int_value();
    let (store, join) = (cx.block("staged.store"), cx.block("staged.join"));
    b.build_conditional_branch(pending, store, join)?;
    b.position_at_end(store);
    let dst = b.build_load(dst_type, copy.dst, "")?;
    let data = b.build_load(data_type, copy.data, "")?;
    cx.store(dst.into_pointer_value(), data, 16)?;
    b.build_unconditional_branch(join)?;
    b.position_at_end(join);
    b.build_store(copy.pending, cx.ctx.bool_type().const_zero())?;
    Ok(())
}
