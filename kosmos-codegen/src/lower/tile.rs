//! Register fragments and `mma`.
//!
//! A fragment is one LLVM vector per lane: the elements of the subgroup's 16x16 tile that
//! the target's matrix instruction wants in that lane. Each target describes where those
//! elements sit in the tile ([`FragLayout`]); loads, stores and zeros are lowered here from
//! that description, and only the `mma` itself is target code.

use super::{Cx, Fail};
use crate::target::Target;
use inkwell::context::Context;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, VectorValue};
use kosmos_ir::{Dim, FragRole, IdKind, Type, Value};

/// `((lane >> shift) & mask) * scale`: a row or column coordinate of a lane.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LaneTerm {
    pub shift: u32,
    pub mask: u32,
    pub scale: u32,
}

impl LaneTerm {
    #[cfg(test)]
    fn at(self, lane: u32) -> u32 {
        ((lane >> self.shift) & self.mask) * self.scale
    }
}

/// `len` elements of one tile row, consecutive in memory, at (`row`, `col`) from the lane's
/// base coordinates; they are the next `len` elements of the lane's vector.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Run {
    pub row: u32,
    pub col: u32,
    pub len: u32,
}

/// Where a lane's fragment elements sit in the tile: lane `l`'s runs start at
/// (`row.at(l)`, `col.at(l)`). A run of `len` elements is accessed as one `len`-element
/// load or store aligned to its size: layouts keep runs at column multiples of `len`,
/// which with a 16-byte aligned tile and a row stride that is a multiple of 8 elements
/// makes those accesses aligned.
#[derive(Copy, Clone, Debug)]
pub(crate) struct FragLayout {
    pub row: LaneTerm,
    pub col: LaneTerm,
    pub runs: &'static [Run],
}

impl FragLayout {
    /// Elements per lane.
    pub fn elems(&self) -> u32 {
        self.runs.iter().map(|r| r.len).sum()
    }
}

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
    }
}

impl<'ctx> Cx<'_, 'ctx> {
    /// `subgroup.size`, `subgroup.id` or `subgroup.lane`, from the linear work-item id
    /// (subgroups are consecutive runs of it on every target).
    pub fn subgroup_id(&self, target: &dyn Target, kind: IdKind) -> Result<IntValue<'ctx>, Fail> {
        let i32t = self.ctx.i32_type();
        let size = target.subgroup_size();
        if kind == IdKind::SubgroupSize {
            return Ok(i32t.const_int(size as u64, false));
        }
        let b = &self.builder;
        let id = |d| target.emit_id(self, IdKind::WorkitemId, d);
        let dim = |d| target.emit_id(self, IdKind::WorkgroupSize, d);
        // x + size_x * (y + size_y * z)
        let yz = b.build_int_add(
            id(Dim::Y)?,
            b.build_int_mul(dim(Dim::Y)?, id(Dim::Z)?, "")?,
            "",
        )?;
        let linear = b.build_int_add(id(Dim::X)?, b.build_int_mul(dim(Dim::X)?, yz, "")?, "")?;
        Ok(if kind == IdKind::SubgroupId {
            let shift = i32t.const_int(size.trailing_zeros() as u64, false);
            b.build_right_shift(linear, shift, false, "subgroup_id")?
        } else {
            let mask = i32t.const_int(size as u64 - 1, false);
            b.build_and(linear, mask, "subgroup_lane")?
        })
    }

    fn frag_value(&self, v: Value, role: FragRole) -> Result<VectorValue<'ctx>, Fail> {
        if self.ty(v)? != Type::Frag(role) {
            return Err(Fail::Msg(format!(
                "expected a frag<{role}>, got {}",
                self.ty(v)?
            )));
        }
        match self.get(v)? {
            BasicValueEnum::VectorValue(x) => Ok(x),
            other => Err(Fail::Msg(format!(
                "fragment lowered as {}",
                other.get_type()
            ))),
        }
    }

    pub(super) fn frag_zero(&self) -> Result<BasicValueEnum<'ctx>, Fail> {
        Ok(self.llvm_type(Type::Frag(FragRole::Acc))?.const_zero())
    }

    /// Per run of the lane's layout: the address of its first element.
    fn run_addresses(
        &self,
        role: FragRole,
        ptr: Value,
        stride: Value,
    ) -> Result<Vec<(Run, inkwell::values::PointerValue<'ctx>)>, Fail> {
        let (base, _) = self.get_ptr(ptr)?;
        if self.ty(stride)? != Type::U32 {
            return Err("the row stride must be u32".into());
        }
        let stride = self.get_int(stride)?;
        let layout = self.target.frag_layout(role);
        let i32t = self.ctx.i32_type();
        let c = |x: u32| i32t.const_int(x as u64, false);
        let lane = self.subgroup_id(self.target, IdKind::SubgroupLane)?;
        let b = &self.builder;
        let term = |t: LaneTerm| -> Result<IntValue<'ctx>, Fail> {
            let shifted = b.build_right_shift(lane, c(t.shift), false, "")?;
            let masked = b.build_and(shifted, c(t.mask), "")?;
            Ok(b.build_int_mul(masked, c(t.scale), "")?)
        };
        let (row, col) = (term(layout.row)?, term(layout.col)?);
        let elem_bytes = role.elem().size_bytes();
        let mut out = Vec::with_capacity(layout.runs.len());
        for run in layout.runs {
            let r = b.build_int_add(row, c(run.row), "")?;
            let index = b.build_int_add(b.build_int_mul(r, stride, "")?, col, "")?;
            let index = b.build_int_add(index, c(run.col), "")?;
            // Tile offsets stay below 2^32 elements: 32-bit math, widened once.
            let bytes = b.build_int_mul(index, c(elem_bytes), "")?;
            let bytes = b.build_int_z_extend(bytes, self.ctx.i64_type(), "")?;
            // SAFETY: a plain (not inbounds) byte GEP is defined for any offset.
            let p = unsafe { b.build_gep(self.ctx.i8_type(), base, &[bytes], "")? };
            out.push((*run, p));
        }
        Ok(out)
    }

    pub(super) fn frag_load(
        &self,
        role: FragRole,
        ptr: Value,
        stride: Value,
    ) -> Result<BasicValueEnum<'ctx>, Fail> {
        if role == FragRole::Acc {
            return Err("frag.load loads frag<a> or frag<b>".into());
        }
        let (base, space) = self.get_ptr(ptr)?;
        if space == kosmos_ir::AddrSpace::Shared {
            if self.ty(stride)? != Type::U32 {
                return Err("the row stride must be u32".into());
            }
            let stride = self.get_int(stride)?;
            if let Some(v) = self
                .target
                .emit_shared_frag_load(self, role, base, stride)?
            {
                return Ok(v.as_basic_value_enum());
            }
        }
        let i16t = self.ctx.i16_type();
        let b = &self.builder;
        let mut v = self
            .llvm_type(Type::Frag(role))?
            .into_vector_type()
            .get_undef();
        let mut next = 0u64;
        for (run, p) in self.run_addresses(role, ptr, stride)? {
            let ty: BasicTypeEnum = if run.len == 1 {
                i16t.into()
            } else {
                i16t.vec_type(run.len).into()
            };
            let x = b.build_load(ty, p, "")?;
            super::set_align(x, 2 * run.len)?;
            for i in 0..run.len {
                let e = match x {
                    BasicValueEnum::VectorValue(x) => b.build_extract_element(
                        x,
                        self.ctx.i32_type().const_int(i as u64, false),
                        "",
                    )?,
                    scalar => scalar,
                };
                let at = self.ctx.i32_type().const_int(next, false);
                v = b.build_insert_element(v, e, at, "")?;
                next += 1;
            }
        }
        Ok(v.as_basic_value_enum())
    }

    pub(super) fn frag_store(&self, ptr: Value, value: Value, stride: Value) -> Result<(), Fail> {
        if self.get_ptr(ptr)?.1 == kosmos_ir::AddrSpace::Constant {
            return Err("frag.store to constant memory".into());
        }
        let v = self.frag_value(value, FragRole::Acc)?;
        let f32t = self.ctx.f32_type();
        let b = &self.builder;
        let mut next = 0u64;
        for (run, p) in self.run_addresses(FragRole::Acc, ptr, stride)? {
            let elem =
                |i: u64| b.build_extract_element(v, self.ctx.i32_type().const_int(i, false), "");
            let x: BasicValueEnum = if run.len == 1 {
                elem(next)?
            } else {
                let mut x = f32t.vec_type(run.len).get_undef();
                for i in 0..run.len as u64 {
                    let at = self.ctx.i32_type().const_int(i, false);
                    x = b.build_insert_element(x, elem(next + i)?, at, "")?;
                }
                x.into()
            };
            next += run.len as u64;
            let st = b.build_store(p, x)?;
            st.set_alignment(4 * run.len)
                .map_err(|e| Fail::Msg(e.to_string()))?;
        }
        Ok(())
    }

    pub(super) fn mma(&self, a: Value, b: Value, acc: Value) -> Result<BasicValueEnum<'ctx>, Fail> {
        let (a, b, c) = (
            self.frag_value(a, FragRole::A)?,
            self.frag_value(b, FragRole::B)?,
            self.frag_value(acc, FragRole::Acc)?,
        );
        Ok(self.target.emit_mma(self, a, b, c)?.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::TargetKind;

    /// Every target's layouts cover each tile element exactly once over the subgroup's lanes,
    /// and keep runs at column multiples of their length (the aligned-access promise).
    #[test]
    fn layouts_cover_the_tile_once_with_aligned_runs() {
        for kind in TargetKind::ALL {
            let target = kind.target();
            for role in FragRole::ALL {
                let layout = target.frag_layout(role);
                let (rows, cols) = role.shape();
                let mut seen = vec![0u32; (rows * cols) as usize];
                assert_eq!(
                    layout.elems() * target.subgroup_size(),
                    rows * cols,
                    "{kind} {role}"
                );
                for lane in 0..target.subgroup_size() {
                    let (r0, c0) = (layout.row.at(lane), layout.col.at(lane));
                    for run in layout.runs {
                        assert_eq!((c0 + run.col) % run.len, 0, "{kind} {role} lane {lane}");
                        for i in 0..run.len {
                            let (r, c) = (r0 + run.row, c0 + run.col + i);
                            assert!(r < rows && c < cols, "{kind} {role} lane {lane}");
                            seen[(r * cols + c) as usize] += 1;
                        }
                    }
                }
                assert!(seen.iter().all(|n| *n == 1), "{kind} {role}: {seen:?}");
            }
        }
    }
}
