//! Register fragments and `mma`.
//!
//! A fragment is one LLVM vector per lane: the elements of the subgroup's 16x16 tile that
//! the target's matrix instruction wants in that lane. Each target describes where those
//! elements sit in the tile ([`FragLayout`]); loads, stores and zeros are lowered here from
//! that description, and only the `mma` itself is target code.

use super::Cx;
use crate::llvm::Fail;
use crate::target::{FragLayout, LaneTerm, Run, Target};
use inkwell::IntPredicate;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue, VectorValue};
use kosmos_ir::{
    ATile, AddrSpace, BTile, Dim, FRAG_N, FragRole, GROUP_N, IdKind, MmaLayout, Op, ScalarType,
    TileLayout, Type, Value,
};

/// The register type of a fragment: `<n x i16>` (`bf16` bits) for `a`/`b`, `<n x float>` for
/// the accumulator.
pub(crate) fn frag_type<'ctx>(
    ctx: &'ctx Context,
    target: &dyn Target,
    role: FragRole,
) -> BasicTypeEnum<'ctx> {
    let n = target.frag_layout(role).elems();
    match role {
        FragRole::A | FragRole::B => ctx.i16_type().vec_type(n).into(),
        FragRole::Acc => ctx.f32_type().vec_type(n).into(),
        FragRole::WideAcc => ctx.f32_type().vec_type(n * WIDE_PIECES).into(),
    }
}

/// A run of a lane's fragment at its place in memory: the address of its first element and
/// that element's (row, column) in the stored tile.
struct RunAt<'ctx> {
    run: Run,
    ptr: PointerValue<'ctx>,
    row: IntValue<'ctx>,
    col: IntValue<'ctx>,
}

/// A `frag<wacc>` is this many `frag<acc>` pieces side by side (piece `j` holds columns
/// `16j .. 16j + 16`), concatenated in one vector. On NVIDIA this is exactly the register
/// order of a `wgmma` m64n128 accumulator.
pub(crate) const WIDE_PIECES: u32 = GROUP_N / FRAG_N;

/// Byte offset of element (`row`, `col`) of a tile of 128-byte-swizzled rows of 64 `bf16`s
/// ([`TileLayout::swizzled_box`]): `block_bytes` apart, the blocks of the next 64 columns where
/// `col` may reach past 64 (an `mma.group` tile's of 64 rows, [`MmaLayout::swizzled`], or a
/// swizzled `frag.store`'s boxes); `None` where it does not.
fn swizzled<'ctx>(
    b: &Builder<'ctx>,
    c: &dyn Fn(u32) -> IntValue<'ctx>,
    row: IntValue<'ctx>,
    col: IntValue<'ctx>,
    block_bytes: Option<IntValue<'ctx>>,
) -> Result<IntValue<'ctx>, Fail> {
    let block = match block_bytes {
        Some(bytes) => {
            Some(b.build_int_mul(b.build_right_shift(col, c(6), false, "")?, bytes, "")?)
        }
        None => None,
    };
    let mut chunk = b.build_right_shift(col, c(3), false, "")?;
    if block.is_some() {
        chunk = b.build_and(chunk, c(7), "")?;
    }
    let chunk = b.build_xor(chunk, b.build_and(row, c(7), "")?, "")?;
    let row = b.build_int_mul(row, c(128), "")?;
    let within = b.build_int_mul(b.build_and(col, c(7), "")?, c(2), "")?;
    let x = match block {
        Some(block) => b.build_int_add(block, row, "")?,
        None => row,
    };
    let x = b.build_int_add(x, b.build_int_mul(chunk, c(16), "")?, "")?;
    Ok(b.build_int_add(x, within, "")?)
}

/// Byte offset of element (`row`, `col`) of an `mma.group` operand whose tile is the swizzled
/// image of the operand itself (`as_is`, with `blocks` as for [`swizzled`]) or of its
/// transpose (64 columns, so no blocks).
fn swizzled_operand<'ctx>(
    b: &Builder<'ctx>,
    c: &dyn Fn(u32) -> IntValue<'ctx>,
    as_is: bool,
    (row, col): (IntValue<'ctx>, IntValue<'ctx>),
    blocks: bool,
) -> Result<IntValue<'ctx>, Fail> {
    if as_is {
        swizzled(b, c, row, col, blocks.then(|| c(8192)))
    } else {
        swizzled(b, c, col, row, None)
    }
}

impl<'ctx> Cx<'_, 'ctx> {
    fn frag_value(&self, v: Value, role: FragRole) -> VectorValue<'ctx> {
        debug_assert_eq!(
            self.ty(v),
            Type::Frag(role),
            "the verifier checks fragment roles"
        );
        self.get(v).into_vector_value()
    }

    pub(super) fn frag_zero(&self, role: FragRole) -> BasicValueEnum<'ctx> {
        self.llvm_type(Type::Frag(role)).const_zero()
    }

    /// The work-item's subgroup id or lane, as the target's `Id` op gives it.
    fn subgroup_index(&self, kind: IdKind) -> Result<IntValue<'ctx>, Fail> {
        let id = Op::Id { kind, dim: Dim::X };
        Ok(self.target.lower_op(&self.llvm, &id, &[])?[0].into_int_value())
    }

    /// The lane's (row, column) in its fragment tile, from a layout's lane terms.
    fn lane_coords(&self, layout: &FragLayout) -> Result<(IntValue<'ctx>, IntValue<'ctx>), Fail> {
        let i32t = self.ctx.i32_type();
        let c = |x: u32| i32t.const_int(x as u64, false);
        let lane = self.subgroup_index(IdKind::SubgroupLane)?;
        let b = &self.builder;
        let term = |t: LaneTerm| -> Result<IntValue<'ctx>, Fail> {
            let shifted = b.build_right_shift(lane, c(t.shift), false, "")?;
            let masked = b.build_and(shifted, c(t.mask), "")?;
            Ok(b.build_int_mul(masked, c(t.scale), "")?)
        };
        Ok((term(layout.row)?, term(layout.col)?))
    }

    /// Loads the `bf16` elements a lane holds in `layout` (as `i16` bits), element (r, c) at
    /// byte `offset(r, c)` of `base`.
    /// With `rows_contiguous` (the tile's rows lie along the fragment's rows) each run is one
    /// load: runs must not cross a 16-byte chunk of the swizzled tiles (they are at most 8
    /// long and aligned to their length, so they do not). Otherwise (a transposed tile)
    /// each element is loaded on its own.
    fn gather_frag(
        &self,
        layout: FragLayout,
        base: PointerValue<'ctx>,
        rows_contiguous: bool,
        offset: &dyn Fn(IntValue<'ctx>, IntValue<'ctx>) -> Result<IntValue<'ctx>, Fail>,
    ) -> Result<VectorValue<'ctx>, Fail> {
        let (row, col) = self.lane_coords(&layout)?;
        let i32t = self.ctx.i32_type();
        let i16t = self.ctx.i16_type();
        let b = &self.builder;
        let mut v = i16t.vec_type(layout.elems()).get_undef();
        let mut next = 0u64;
        let pieces = layout.runs.iter().flat_map(|run| {
            let split = if rows_contiguous { 1 } else { run.len };
            let len = run.len / split;
            (0..split).map(move |i| Run {
                row: run.row,
                col: run.col + i * len,
                len,
            })
        });
        for run in pieces {
            let r = b.build_int_add(row, i32t.const_int(run.row as u64, false), "")?;
            let cc = b.build_int_add(col, i32t.const_int(run.col as u64, false), "")?;
            let bytes = b.build_int_z_extend(offset(r, cc)?, self.ctx.i64_type(), "")?;
            // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
            let p = unsafe { b.build_gep(self.ctx.i8_type(), base, &[bytes], "")? };
            let x = self.llvm.load(i16t.vec_type(run.len), p, 2 * run.len)?;
            for i in 0..run.len {
                let e = b.build_extract_element(
                    x.into_vector_value(),
                    i32t.const_int(i as u64, false),
                    "",
                )?;
                v = b.build_insert_element(v, e, i32t.const_int(next, false), "")?;
                next += 1;
            }
        }
        Ok(v)
    }

    /// `mma.group` from 16x16 `mma`s: the subgroup's rows of `A` and all of `B` gathered
    /// from the swizzled tiles fragment by fragment (the lowering of targets without a
    /// group-wide matrix instruction).
    fn mma_group_by_fragments(
        &self,
        a: PointerValue<'ctx>,
        b_tile: PointerValue<'ctx>,
        acc: VectorValue<'ctx>,
        layout: MmaLayout,
    ) -> Result<VectorValue<'ctx>, Fail> {
        let i32t = self.ctx.i32_type();
        let c = |x: u32| i32t.const_int(x as u64, false);
        let b = &self.builder;
        let sg = self.subgroup_index(IdKind::SubgroupId)?;
        let first_row = b.build_int_mul(b.build_and(sg, c(3), "")?, c(16), "")?;
        let piece_len = self.target.frag_layout(FragRole::Acc).elems();
        let mut pieces: Vec<VectorValue<'ctx>> = (0..WIDE_PIECES)
            .map(|j| self.piece(acc, j, piece_len))
            .collect::<Result<_, _>>()?;
        let a_as_is = layout.a == ATile::MK;
        let b_as_is = layout.b == BTile::KN;
        // 32 deep at a time where the target has a matrix instruction that deep, else 16.
        let deep = self.target.deep_frag_layouts();
        let ([la, lb], depth) = match deep {
            Some(layouts) => (layouts, 32),
            None => (
                [FragRole::A, FragRole::B].map(|r| self.target.frag_layout(r)),
                16,
            ),
        };
        for k0 in (0..kosmos_ir::GROUP_K).step_by(depth) {
            let fa = self.gather_frag(la, a, a_as_is, &|r, k| {
                let i = b.build_int_add(first_row, r, "")?;
                let k = b.build_int_add(k, c(k0), "")?;
                swizzled_operand(b, &c, a_as_is, (i, k), false)
            })?;
            for (j, piece) in pieces.iter_mut().enumerate() {
                let fb = self.gather_frag(lb, b_tile, b_as_is, &|k, n| {
                    let k = b.build_int_add(k, c(k0), "")?;
                    let n = b.build_int_add(n, c(16 * j as u32), "")?;
                    swizzled_operand(b, &c, b_as_is, (k, n), true)
                })?;
                *piece = if deep.is_some() {
                    self.target.emit_deep_mma(&self.llvm, fa, fb, *piece)?
                } else {
                    self.target.emit_mma(&self.llvm, fa, fb, *piece)?
                };
            }
        }
        self.concat_pieces(&pieces)
    }

    /// Piece `j` (elements `j * len ..`) of a `frag<wacc>` vector.
    fn piece(&self, v: VectorValue<'ctx>, j: u32, len: u32) -> Result<VectorValue<'ctx>, Fail> {
        let i32t = self.ctx.i32_type();
        let mask: Vec<_> = (0..len)
            .map(|i| i32t.const_int((j * len + i) as u64, false))
            .collect();
        let mask = VectorType::const_vector(&mask);
        Ok(self.builder.build_shuffle_vector(v, v, mask, "")?)
    }

    fn concat_pieces(&self, pieces: &[VectorValue<'ctx>]) -> Result<VectorValue<'ctx>, Fail> {
        let i32t = self.ctx.i32_type();
        let len = pieces[0].get_type().get_size();
        let mut v = self
            .llvm_type(Type::Frag(FragRole::WideAcc))
            .into_vector_type()
            .get_undef();
        for (j, piece) in pieces.iter().enumerate() {
            for i in 0..len {
                let e = self.builder.build_extract_element(
                    *piece,
                    i32t.const_int(i as u64, false),
                    "",
                )?;
                let at = i32t.const_int((j as u32 * len + i) as u64, false);
                v = self.builder.build_insert_element(v, e, at, "")?;
            }
        }
        Ok(v)
    }

    /// `mma.group` (`wait`) or `mma.group.async`.
    pub(super) fn mma_group(
        &self,
        [a, b, acc]: [Value; 3],
        layout: MmaLayout,
        wait: bool,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (a, a_space) = self.get_ptr(a);
        let (b, b_space) = self.get_ptr(b);
        debug_assert!(
            a_space == AddrSpace::Shared && b_space == AddrSpace::Shared,
            "the verifier keeps mma.group tiles in shared memory"
        );
        let acc = self.frag_value(acc, FragRole::WideAcc);
        let d = match self
            .target
            .emit_mma_group(&self.llvm, a, b, acc, layout, wait)?
        {
            Some(d) => d,
            None => self.mma_group_by_fragments(a, b, acc, layout)?,
        };
        Ok(d.into())
    }

    /// A row stride or bound: the verifier makes it a `u32`.
    fn u32_operand(&self, v: Value) -> IntValue<'ctx> {
        debug_assert_eq!(
            self.ty(v),
            Type::U32,
            "the verifier checks u32 strides and bounds"
        );
        self.get_int(v)
    }

    /// Per run of the lane's accumulator layout: where its first element is in a tile of
    /// `elem_bytes`-byte elements (the tile's column 0 being column `col0` at `ptr`).
    fn run_addresses(
        &self,
        ptr: Value,
        stride: Value,
        layout: TileLayout,
        col0: u32,
        elem_bytes: u32,
    ) -> Result<Vec<RunAt<'ctx>>, Fail> {
        let (base, _) = self.get_ptr(ptr);
        let stride = self.u32_operand(stride);
        let frag = self.target.frag_layout(FragRole::Acc);
        let i32t = self.ctx.i32_type();
        let c = |x: u32| i32t.const_int(x as u64, false);
        let (row, col) = self.lane_coords(&frag)?;
        let b = &self.builder;
        let col = b.build_int_add(col, c(col0), "")?;
        let mut out = Vec::with_capacity(frag.runs.len());
        for run in frag.runs {
            let r = b.build_int_add(row, c(run.row), "")?;
            let cc = b.build_int_add(col, c(run.col), "")?;
            // Tile offsets stay below 2^32 bytes: 32-bit math, widened once. A run (at most
            // 8 long, aligned to its length) stays inside a swizzled 16-byte chunk.
            let bytes = match layout {
                TileLayout::Rows => b.build_int_mul(
                    b.build_int_add(b.build_int_mul(r, stride, "")?, cc, "")?,
                    c(elem_bytes),
                    "",
                )?,
                TileLayout::Swizzled => {
                    let box_bytes = b.build_int_mul(stride, c(128), "")?;
                    swizzled(b, &c, r, cc, Some(box_bytes))?
                }
            };
            let bytes = b.build_int_z_extend(bytes, self.ctx.i64_type(), "")?;
            // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
            let p = unsafe { b.build_gep(self.ctx.i8_type(), base, &[bytes], "")? };
            out.push(RunAt {
                run: *run,
                ptr: p,
                row: r,
                col: cc,
            });
        }
        Ok(out)
    }

    pub(super) fn frag_load(
        &self,
        role: FragRole,
        ptr: Value,
        stride: Value,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        debug_assert!(
            !role.is_acc(),
            "the verifier keeps frag.load to frag<a> and frag<b>"
        );
        let (base, space) = self.get_ptr(ptr);
        let stride = self.u32_operand(stride);
        if space == AddrSpace::Shared
            && let Some(v) = self
                .target
                .emit_shared_frag_load(&self.llvm, role, base, stride)?
        {
            return Ok(v.as_basic_value_enum());
        }
        let b = &self.builder;
        let two = self.ctx.i32_type().const_int(2, false);
        // Row-major: element (r, c) at byte 2 (r * stride + c); 32-bit math (tile offsets
        // stay below 2^32 bytes).
        let v = self.gather_frag(self.target.frag_layout(role), base, true, &|r, c| {
            let index = b.build_int_add(b.build_int_mul(r, stride, "")?, c, "")?;
            Ok(b.build_int_mul(index, two, "")?)
        })?;
        Ok(v.as_basic_value_enum())
    }

    pub(super) fn frag_store(
        &self,
        [ptr, value, stride]: [Value; 3],
        within: Option<(Value, Value)>,
        layout: TileLayout,
        elem: ScalarType,
    ) -> Result<(), Fail> {
        debug_assert_ne!(
            self.get_ptr(ptr).1,
            AddrSpace::Constant,
            "the verifier rejects writes to constant memory"
        );
        let pieces = match self.ty(value) {
            Type::Frag(FragRole::Acc) => 1,
            Type::Frag(FragRole::WideAcc) => WIDE_PIECES,
            other => unreachable!("the verifier makes frag.store store accumulators, not {other}"),
        };
        let role = if pieces == 1 {
            FragRole::Acc
        } else {
            FragRole::WideAcc
        };
        let v = self.frag_value(value, role);
        let within = within.map(|(rows, cols)| (self.u32_operand(rows), self.u32_operand(cols)));
        // To shared memory the runs stay: with a padded row stride they are free of bank
        // conflicts, which 64-byte row pieces would not be.
        let chunked = pieces == WIDE_PIECES
            && within.is_none()
            && layout == TileLayout::Rows
            && self.get_ptr(ptr).1 == AddrSpace::Global
            && elem == ScalarType::BF16
            && self.target.has_aligned_wide_bf16_store();
        let join = if chunked {
            Some(self.aligned_wide_bf16_store(ptr, stride, v)?)
        } else {
            None
        };
        let len = self.target.frag_layout(FragRole::Acc).elems();
        for j in 0..pieces {
            let piece = if pieces == 1 {
                v
            } else {
                self.piece(v, j, len)?
            };
            self.store_piece([ptr, stride], layout, j * FRAG_N, piece, within, elem)?;
        }
        if let Some(join) = join {
            self.builder.build_unconditional_branch(join)?;
            self.builder.position_at_end(join);
        }
        Ok(())
    }

    /// Where the tile at `ptr` and its rows (`stride` elements of 2 bytes) are 16-byte
    /// aligned, stores the whole `frag<wacc>` `v` as bf16 with the target's wider stores and
    /// goes on at the returned block; elsewhere the builder is left where the layout's runs
    /// are to be stored, which must then branch to that block.
    fn aligned_wide_bf16_store(
        &self,
        ptr: Value,
        stride: Value,
        v: VectorValue<'ctx>,
    ) -> Result<BasicBlock<'ctx>, Fail> {
        let (base, _) = self.get_ptr(ptr);
        let stride = self.u32_operand(stride);
        let b = &self.builder;
        let i64t = self.ctx.i64_type();
        let address = b.build_ptr_to_int(base, i64t, "")?;
        let row_bytes = b.build_int_z_extend(
            b.build_int_mul(stride, self.ctx.i32_type().const_int(2, false), "")?,
            i64t,
            "",
        )?;
        let misaligned = b.build_and(
            b.build_or(address, row_bytes, "")?,
            i64t.const_int(15, false),
            "",
        )?;
        let aligned = b.build_int_compare(IntPredicate::EQ, misaligned, i64t.const_zero(), "")?;
        let (wide, runs, join) = (
            self.block("store.chunks"),
            self.block("store.runs"),
            self.block("store.done"),
        );
        b.build_conditional_branch(aligned, wide, runs)?;
        b.position_at_end(wide);
        let bf16 = self.ctx.bf16_type().vec_type(v.get_type().get_size());
        let rounded = b.build_float_trunc(v, bf16, "")?;
        self.target
            .emit_aligned_wide_bf16_store(&self.llvm, base, stride, rounded)?;
        b.build_unconditional_branch(join)?;
        b.position_at_end(runs);
        Ok(join)
    }

    /// Stores one 16x16 accumulator whose column 0 is column `col0` of the stored tile of
    /// `elem_ty` (`f32`, or `bf16` rounded to nearest even); with `within`, each element only
    /// inside the bounds.
    fn store_piece(
        &self,
        [ptr, stride]: [Value; 2],
        layout: TileLayout,
        col0: u32,
        v: VectorValue<'ctx>,
        within: Option<(IntValue<'ctx>, IntValue<'ctx>)>,
        elem_ty: ScalarType,
    ) -> Result<(), Fail> {
        let (f32t, bf16t) = (self.ctx.f32_type(), self.ctx.bf16_type());
        let out_t = if elem_ty == ScalarType::BF16 {
            bf16t
        } else {
            f32t
        };
        let size = elem_ty.size_bytes();
        let i32t = self.ctx.i32_type();
        let c = |x: u64| i32t.const_int(x, false);
        let b = &self.builder;
        let v = if elem_ty == ScalarType::BF16 {
            b.build_float_trunc(v, bf16t.vec_type(v.get_type().get_size()), "")?
        } else {
            v
        };
        let elem = |i: u64| b.build_extract_element(v, c(i), "");
        let mut next = 0u64;
        for at in self.run_addresses(ptr, stride, layout, col0, size)? {
            let RunAt {
                run,
                ptr: p,
                row,
                col,
            } = at;
            if let Some((rows, cols)) = within {
                // Element by element, each behind its own bounds check.
                for i in 0..run.len as u64 {
                    let col = b.build_int_add(col, c(i), "")?;
                    let inside = b.build_and(
                        b.build_int_compare(IntPredicate::ULT, row, rows, "")?,
                        b.build_int_compare(IntPredicate::ULT, col, cols, "")?,
                        "",
                    )?;
                    let (then, join) = (self.block("store.in"), self.block("store.join"));
                    b.build_conditional_branch(inside, then, join)?;
                    b.position_at_end(then);
                    // SAFETY: a plain (not inbounds) GEP is defined for any offset.
                    let q = unsafe { b.build_gep(out_t, p, &[c(i)], "")? };
                    self.llvm.store(q, elem(next + i)?, size)?;
                    b.build_unconditional_branch(join)?;
                    b.position_at_end(join);
                }
                next += run.len as u64;
                continue;
            }
            let x: BasicValueEnum = if run.len == 1 {
                elem(next)?
            } else {
                let mut x = out_t.vec_type(run.len).get_undef();
                for i in 0..run.len as u64 {
                    x = b.build_insert_element(x, elem(next + i)?, c(i), "")?;
                }
                x.into()
            };
            next += run.len as u64;
            self.llvm.store(p, x, size * run.len)?;
        }
        Ok(())
    }

    pub(super) fn mma(&self, a: Value, b: Value, acc: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (a, b, c) = (
            self.frag_value(a, FragRole::A),
            self.frag_value(b, FragRole::B),
            self.frag_value(acc, FragRole::Acc),
        );
        Ok(self.target.emit_mma(&self.llvm, a, b, c)?.into())
    }
}
