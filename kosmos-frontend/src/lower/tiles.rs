//! Tiles (docs/ir.md "Tiles"): fragments and `mma`, the four-subgroup `mma_group` with its
//! wide accumulators (and `mma_group_async` / `mma_wait`, with groups' register budgets), the
//! vectors of `load_vec8`/`load_vec4`, `store_vec8`/`store_vec4`, `splat8`, `vec4` and
//! `extract`, and the asynchronous copies that fill shared memory.

use super::bounds::{Elem, Reach};
use super::intrinsics::{Call, Lowering, intrinsic};
use super::{Binding, Lower, Val, err, strip_parens, tail_expr};
use crate::items::DeviceRet;
use crate::sig::rust_name;
use kosmos_ir::{
    ATile, AddrSpace, BTile, FragRole, KernelBuilder, MAX_PENDING_MMA_GROUPS, MmaLayout, Op,
    RegsDir, ScalarType, TileLayout, Type, Value, valid_register_count,
};
use syn::{Error, Expr, Result};

use ScalarType as S;

/// Bytes of a vector at most: one 16-byte access a lane.
const VEC_BYTES: u32 = 16;

/// Bytes `copy_async` moves.
const COPY_BYTES: u32 = 16;

/// Bytes of the shared tiles of `mma_group`: `A` is 64x64 and `B` 64x128 `bf16`s.
const GROUP_A_TILE_BYTES: u32 = 64 * 64 * 2;
const GROUP_B_TILE_BYTES: u32 = 64 * 128 * 2;

/// The elements a fragment access of `role` with row stride `stride` reaches: its whole
/// tile, or the `within` corner of it.
fn frag_reach(
    b: &mut KernelBuilder,
    role: FragRole,
    stride: Value,
    within: Option<(Value, Value)>,
) -> Reach {
    let (rows, cols) = role.shape();
    let (full_rows, full_cols) = (b.const_u32(rows), b.const_u32(cols));
    let (rows, cols) = match within {
        Some((r, c)) => (b.min(r, full_rows), b.min(c, full_cols)),
        None => (full_rows, full_cols),
    };
    Reach::Tile { rows, cols, stride }
}

/// The elements a swizzled `frag.store` of `role` with boxes of `box_rows` rows may touch:
/// its boxes of 64 columns, each of at least the fragment's 16 rows (with fewer, rows spill
/// into the next box, still inside that bound).
fn swizzled_reach(b: &mut KernelBuilder, role: FragRole, box_rows: Value) -> Reach {
    let (rows, cols) = role.shape();
    let boxes = b.const_u32(cols.div_ceil(64));
    let least = b.const_u32(rows);
    let rows = b.max(box_rows, least);
    let row_elems = b.const_u32(64);
    let box_elems = b.mul(rows, row_elems);
    Reach::Tile {
        rows: boxes,
        cols: box_elems,
        stride: box_elems,
    }
}

/// The non-scalar values of kernels: fragments (see docs/ir.md "Tiles") and the vectors of
/// wide loads and stores (8 lanes of 8- or 16-bit elements, or 4 of up to 32 bits). They are
/// plain SSA values, so branches and loops carry them like scalars, but no arithmetic
/// applies to them: `extract` reads a lane.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum TileTy {
    Frag(FragRole),
    Vector { elem: ScalarType, lanes: u32 },
}

impl TileTy {
    pub(super) fn ir(self) -> Type {
        match self {
            TileTy::Frag(role) => Type::Frag(role),
            TileTy::Vector { elem, lanes } => Type::Vector { elem, lanes },
        }
    }

    /// The type a device function's parameter names (`FragA`, `FragB`, `FragAcc`,
    /// `WideAcc`, `Vec8<T>`, `Vec4<T>`, see [`crate::items::TILE_TYPES`]).
    pub(super) fn of_type(ty: &syn::Type) -> Result<TileTy> {
        let seg = match ty {
            syn::Type::Path(p) => p.path.segments.last(),
            _ => None,
        };
        let vector = |seg: &syn::PathSegment, lanes: u32| {
            let form = format!("write `{}<T>`, `T` the element type", seg.ident);
            match &seg.arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => {
                        let elem = crate::sig::scalar_type(t, "vector element")?;
                        check_vector_elem(t, elem, lanes)?;
                        Ok(TileTy::Vector { elem, lanes })
                    }
                    _ => err(seg, form),
                },
                _ => err(seg, form),
            }
        };
        Ok(match seg {
            Some(s) if s.ident == "FragA" => TileTy::Frag(FragRole::A),
            Some(s) if s.ident == "FragB" => TileTy::Frag(FragRole::B),
            Some(s) if s.ident == "FragAcc" => TileTy::Frag(FragRole::Acc),
            Some(s) if s.ident == "WideAcc" => TileTy::Frag(FragRole::WideAcc),
            Some(s) if s.ident == "Vec8" => vector(s, 8)?,
            Some(s) if s.ident == "Vec4" => vector(s, 4)?,
            _ => {
                return err(
                    ty,
                    "expected a fragment or vector type: `FragA`, `FragB`, `FragAcc`, `WideAcc`, `Vec8<T>` or `Vec4<T>`",
                );
            }
        })
    }

    /// How messages name it, after the intrinsics that make it.
    pub(super) fn name(self) -> String {
        match self {
            TileTy::Frag(FragRole::A) => "an `a` fragment (from `frag_load_a`)".into(),
            TileTy::Frag(FragRole::B) => "a `b` fragment (from `frag_load_b`)".into(),
            TileTy::Frag(FragRole::Acc) => {
                "an accumulator fragment (from `frag_zero` or `mma`)".into()
            }
            TileTy::Frag(FragRole::WideAcc) => {
                "a wide accumulator (from `wide_zero` or `mma_group`)".into()
            }
            TileTy::Vector { elem, lanes } => format!("a vector of {lanes} {}", rust_name(elem)),
        }
    }
}

impl Lower {
    /// Lowers `e` if it is a tile expression (a tile variable or a call of an intrinsic
    /// that makes one); `None` if it is not, without lowering anything.
    pub(super) fn tile(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
    ) -> Result<Option<(Value, TileTy)>> {
        let c = match strip_parens(e) {
            // `unsafe { load_vec4(a.get_unchecked(i)) }`: a tile made where `get_unchecked`
            // may be called.
            Expr::Unsafe(u) => {
                let Some(tail) = sole_tail(&u.block) else {
                    return Ok(None);
                };
                self.unsafe_depth += 1;
                let tile = self.tile(b, tail);
                self.unsafe_depth -= 1;
                return tile;
            }
            // `if c { tile } else { tile }`, where the tile's type shows without lowering.
            Expr::If(i) => {
                return match self.static_tile_ty(e) {
                    Some(ty) => self.if_tile(b, i, ty).map(Some),
                    None => Ok(None),
                };
            }
            Expr::Path(p) => {
                return Ok(
                    match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                        Some(Binding::Tile { v, ty, .. }) => Some((v, ty)),
                        _ => None,
                    },
                );
            }
            Expr::Call(c) => c,
            _ => return Ok(None),
        };
        let Some(call) = Call::of(c) else {
            return Ok(None);
        };
        if let Some(f) = self.items.clone().device(&call.name) {
            return match f.ret {
                DeviceRet::Tile(_) => self.device_tile_call(b, c, f).map(Some),
                _ => Ok(None),
            };
        }
        let Some(intrinsic) = intrinsic(&call.name) else {
            return Ok(None);
        };
        let Lowering::Tile(lower) = intrinsic.lowering else {
            return Ok(None);
        };
        call.no_generics()?;
        call.arity(intrinsic.params)?;
        lower(self, b, &call).map(Some)
    }

    /// The type of the tile `e` makes, where it shows without lowering `e`: a tile
    /// variable, a call of a tile intrinsic or of a device function returning one, or an
    /// `unsafe` block or `if` made of those. `None` for anything else (a scalar, or a
    /// branch ending in a tile bound inside it).
    fn static_tile_ty(&self, e: &Expr) -> Option<TileTy> {
        use FragRole as R;
        match strip_parens(e) {
            Expr::Path(p) => match self.lookup(&p.path.get_ident()?.to_string())? {
                Binding::Tile { ty, .. } => Some(ty),
                _ => None,
            },
            Expr::Unsafe(u) => self.static_tile_ty(tail_expr(&u.block)?),
            Expr::Block(bl) => self.static_tile_ty(tail_expr(&bl.block)?),
            Expr::If(i) => tail_expr(&i.then_branch)
                .and_then(|t| self.static_tile_ty(t))
                .or_else(|| self.static_tile_ty(&i.else_branch.as_ref()?.1)),
            Expr::Call(c) => {
                let call = Call::of(c)?;
                if let Some(f) = self.items.device(&call.name) {
                    return match &f.ret {
                        DeviceRet::Tile(t) => TileTy::of_type(t).ok(),
                        _ => None,
                    };
                }
                let vector =
                    |elem: Option<ScalarType>, lanes| Some(TileTy::Vector { elem: elem?, lanes });
                let first = call.args.first();
                match call.name.as_str() {
                    "frag_zero" | "mma" => Some(TileTy::Frag(R::Acc)),
                    "frag_load_a" => Some(TileTy::Frag(R::A)),
                    "frag_load_b" => Some(TileTy::Frag(R::B)),
                    "wide_zero"
                    | "mma_group"
                    | "mma_group_async"
                    | "mma_group_trans"
                    | "mma_group_async_trans"
                    | "mma_wait" => Some(TileTy::Frag(R::WideAcc)),
                    name @ ("load_vec8" | "load_vec4") => {
                        let elem = match strip_parens(first?) {
                            Expr::Reference(r) => self.static_ty(&r.expr),
                            unchecked => self.static_ty(unchecked),
                        };
                        vector(elem, vector_lanes(name))
                    }
                    "splat8" => vector(self.static_ty(first?), 8),
                    "vec4" => vector(self.static_ty(first?), 4),
                    "vec8" => vector(self.static_ty(first?), 8),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `if cond { .. } else { .. }` whose branches end in tiles of type `ty`, each branch a
    /// region yielding its tile (and the outer variables it assigns).
    fn if_tile(
        &mut self,
        b: &mut KernelBuilder,
        e: &syn::ExprIf,
        ty: TileTy,
    ) -> Result<(Value, TileTy)> {
        let cond = self.value(b, &e.cond, Some(S::I1))?;
        let Some((_, else_expr)) = &e.else_branch else {
            return err(
                &e.then_branch,
                format!(
                    "an `if` without `else` has no value: add an `else` branch making {}",
                    ty.name()
                ),
            );
        };
        let v = self.if_regions(
            b,
            cond.v,
            e,
            Some(ty.ir()),
            |l, b| l.block_tile(b, &e.then_branch, ty).map(Some),
            |l, b| match strip_parens(else_expr) {
                Expr::Block(bl) => l.block_tile(b, &bl.block, ty).map(Some),
                other => l.tile_arg(b, other, ty).map(Some),
            },
        )?;
        Ok((v.expect("the tile the `if` makes"), ty))
    }

    /// A block ending in a tile of type `ty`: its statements, then the tile, in a scope.
    fn block_tile(
        &mut self,
        b: &mut KernelBuilder,
        block: &syn::Block,
        ty: TileTy,
    ) -> Result<Value> {
        let Some((syn::Stmt::Expr(tail, None), stmts)) = block.stmts.split_last() else {
            return err(block, format!("this block must end in {}", ty.name()));
        };
        self.scopes.push(std::collections::HashMap::new());
        let v = self
            .stmts(b, stmts, None)
            .and_then(|_| self.tile_arg(b, tail, ty));
        self.scopes.pop();
        v
    }

    pub(super) fn frag_zero(&mut self, b: &mut KernelBuilder, _: &Call) -> Result<(Value, TileTy)> {
        Ok((b.frag_zero(), TileTy::Frag(FragRole::Acc)))
    }

    pub(super) fn wide_zero(&mut self, b: &mut KernelBuilder, _: &Call) -> Result<(Value, TileTy)> {
        Ok((b.wide_zero(), TileTy::Frag(FragRole::WideAcc)))
    }

    /// `frag_load_a(&tile[i], stride)`, `frag_load_b(&tile[i], stride)`.
    pub(super) fn frag_load(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
    ) -> Result<(Value, TileTy)> {
        let (name, args) = (&call.name, &call.args);
        let e = self.frag_memory(b, call, false, &[S::BF16])?;
        let stride = self.value(b, args[1], Some(S::U32))?;
        let role = if name == "frag_load_a" {
            FragRole::A
        } else {
            FragRole::B
        };
        let reach = frag_reach(b, role, stride.v, None);
        let v = Lower::guarded(
            b,
            e.bound,
            reach,
            None,
            &[Type::Frag(role)],
            |b| vec![b.frag_load(role, e.ptr, stride.v)],
            |b| vec![b.value(Op::FragZero { role })],
        );
        Ok((v[0], TileTy::Frag(role)))
    }

    pub(super) fn mma(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<(Value, TileTy)> {
        let args = &call.args;
        let x = self.tile_arg(b, args[0], TileTy::Frag(FragRole::A))?;
        let y = self.tile_arg(b, args[1], TileTy::Frag(FragRole::B))?;
        let acc = self.tile_arg(b, args[2], TileTy::Frag(FragRole::Acc))?;
        Ok((b.mma(x, y, acc), TileTy::Frag(FragRole::Acc)))
    }

    /// `mma_group(&a[i], &b[j], acc)` and `mma_group_async(..)`, the same but left in flight;
    /// `mma_group_trans(&a[i], &b[j], acc, ta, tb)` and `mma_group_async_trans(..)` with
    /// tiles of the transposed matrices where the constants `ta`, `tb` are 1 (`A` stored
    /// `k x m`, `B` stored `n x k`).
    pub(super) fn mma_group(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
    ) -> Result<(Value, TileTy)> {
        let args = &call.args;
        let in_flight = call.name.starts_with("mma_group_async");
        let layout = if call.name.ends_with("_trans") {
            MmaLayout {
                a: [ATile::MK, ATile::KM][self.transposed(args[3], "a")?],
                b: [BTile::KN, BTile::NK][self.transposed(args[4], "b")?],
            }
        } else {
            MmaLayout::DEFAULT
        };
        let x = self.group_tile(b, args[0], "the `a` tile")?;
        let y = self.group_tile(b, args[1], "the `b` tile")?;
        let acc = self.tile_arg(b, args[2], TileTy::Frag(FragRole::WideAcc))?;
        // Each tile is checked on its own; a failed check leaves the accumulator as it was.
        let wide = [Type::Frag(FragRole::WideAcc)];
        let product = |b: &mut KernelBuilder| {
            let [a, b_tile] = [x.ptr, y.ptr];
            vec![b.value(if in_flight {
                Op::MmaGroupAsync {
                    a,
                    b: b_tile,
                    acc,
                    layout,
                }
            } else {
                Op::MmaGroup {
                    a,
                    b: b_tile,
                    acc,
                    layout,
                }
            })]
        };
        let after_b = |b: &mut KernelBuilder| {
            let reach = Reach::Run(GROUP_B_TILE_BYTES / y.elem.size_bytes());
            Lower::guarded(b, y.bound, reach, None, &wide, product, |_| vec![acc])
        };
        let reach = Reach::Run(GROUP_A_TILE_BYTES / x.elem.size_bytes());
        let v = Lower::guarded(b, x.bound, reach, None, &wide, after_b, |_| vec![acc]);
        Ok((v[0], TileTy::Frag(FragRole::WideAcc)))
    }

    /// Whether the tile of operand `operand` is transposed: the constant `e`, 0 or 1.
    fn transposed(&self, e: &Expr, operand: &str) -> Result<usize> {
        match self.const_eval(e, &format!("whether `{operand}` is transposed"))? {
            t @ (0 | 1) => Ok(t as usize),
            t => err(
                e,
                format!("`{operand}` is transposed (1) or not (0), found {t}"),
            ),
        }
    }

    /// `load_vec8(&a[i])`, `load_vec4(&a[i])`: the lanes at `a[i..]`, aligned to the
    /// vector's size, all of them bounds-checked.
    pub(super) fn load_vec(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
    ) -> Result<(Value, TileTy)> {
        let (name, args) = (&call.name, &call.args);
        let lanes = vector_lanes(name);
        let e = self.elem_ref(b, args[0], name, false)?;
        check_vector_elem(args[0], e.elem, lanes)?;
        let ty = TileTy::Vector {
            elem: e.elem,
            lanes,
        };
        let v = Lower::guarded(
            b,
            e.bound,
            Reach::Run(lanes),
            None,
            &[ty.ir()],
            |b| vec![b.load(e.ptr, ty.ir())],
            |b| {
                let zero = Lower::zero(b, e.elem);
                vec![b.splat(zero, lanes)]
            },
        );
        Ok((v[0], ty))
    }

    pub(super) fn splat8(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<(Value, TileTy)> {
        let x = call.args[0];
        let t = self.infer(x);
        let v = self.value(b, x, t)?;
        check_vector_elem(x, v.ty, 8)?;
        Ok((
            b.splat(v.v, 8),
            TileTy::Vector {
                elem: v.ty,
                lanes: 8,
            },
        ))
    }

    /// `vec4(a, b, c, d)` or `vec8(a, .., h)`: a vector of four or eight scalars of one type,
    /// `a` in lane 0.
    pub(super) fn vector_of(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
    ) -> Result<(Value, TileTy)> {
        let first = call.args[0];
        let lanes = call.args.len() as u32;
        let t = self.infer(first);
        let v0 = self.value(b, first, t)?;
        check_vector_elem(first, v0.ty, lanes)?;
        let mut v = b.splat(v0.v, lanes);
        for (lane, x) in (1..).zip(&call.args[1..]) {
            let x = self.value(b, x, Some(v0.ty))?;
            v = b.insert(v, lane, x.v);
        }
        Ok((v, TileTy::Vector { elem: v0.ty, lanes }))
    }

    /// `extract(v, lane)`: lane `lane` (a constant) of vector `v`.
    pub(super) fn extract(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let (v, ty) = match self.tile(b, call.args[0])? {
            Some((v, ty @ TileTy::Vector { .. })) => (v, ty),
            Some((_, ty)) => {
                return err(
                    call.args[0],
                    format!("expected a vector, found {}", ty.name()),
                );
            }
            None => return err(call.args[0], "expected a vector, found a scalar"),
        };
        let TileTy::Vector { elem, lanes } = ty else {
            unreachable!("matched a vector above")
        };
        let lane = self.const_eval(call.args[1], "the lane `extract` reads")?;
        if lane >= u64::from(lanes) {
            return err(
                call.args[1],
                format!("lane {lane} of {}: its lanes are 0..{lanes}", ty.name()),
            );
        }
        Ok(Val {
            v: b.extract(v, lane as u32),
            ty: elem,
        })
    }

    /// `frag_store(&c[i], acc, stride)`, `frag_store_within(&c[i], acc, stride, rows, cols)`
    /// and `frag_store_swizzled(&c[i], acc, box_rows)` (bf16, the swizzled boxes a tensor
    /// store reads).
    pub(super) fn frag_store(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let (name, args) = (&call.name, &call.args);
        let swizzled = name == "frag_store_swizzled";
        let elems: &[S] = if swizzled {
            &[S::BF16]
        } else {
            &[S::F32, S::BF16]
        };
        let e = self.frag_memory(b, call, true, elems)?;
        let acc = self.acc_arg(b, args[1])?;
        let stride = self.value(b, args[2], Some(S::U32))?;
        let Type::Frag(role) = b.ty(acc) else {
            unreachable!("acc_arg gives accumulators")
        };
        let within = if name == "frag_store_within" {
            let rows = self.value(b, args[3], Some(S::U32))?;
            let cols = self.value(b, args[4], Some(S::U32))?;
            Some((rows.v, cols.v))
        } else {
            None
        };
        let (reach, layout) = if swizzled {
            (swizzled_reach(b, role, stride.v), TileLayout::Swizzled)
        } else {
            (frag_reach(b, role, stride.v, within), TileLayout::Rows)
        };
        Lower::guarded_effect(b, e.bound, reach, None, |b| {
            b.push(Op::FragStore {
                ptr: e.ptr,
                value: acc,
                stride: stride.v,
                within,
                layout,
                elem: e.elem,
            });
        });
        Ok(())
    }

    /// `store_vec8(&a[i], v)`, `store_vec4(&a[i], v)`: `v`'s lanes to `a[i..]`, aligned to
    /// the vector's size.
    pub(super) fn store_vec(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let (name, args) = (&call.name, &call.args);
        let lanes = vector_lanes(name);
        let e = self.elem_ref(b, args[0], name, true)?;
        let v = self.tile_arg(
            b,
            args[1],
            TileTy::Vector {
                elem: e.elem,
                lanes,
            },
        )?;
        Lower::guarded_effect(b, e.bound, Reach::Run(lanes), None, |b| b.store(e.ptr, v));
        Ok(())
    }

    pub(super) fn copy_async(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let (name, args) = (&call.name, &call.args);
        let dst = self.elem_ref_in(
            b,
            args[0],
            (name, "the destination of `copy_async`"),
            true,
            AddrSpace::Shared,
        )?;
        let src = self.elem_ref_in(
            b,
            args[1],
            (name, "the source of `copy_async`"),
            false,
            AddrSpace::Global,
        )?;
        let pred = self.value(b, args[2], Some(S::I1))?;
        // 16 bytes each side; the source is read only when `pred` holds.
        let copy = |b: &mut KernelBuilder| b.copy_async(dst.ptr, src.ptr, pred.v);
        let checked_src = |b: &mut KernelBuilder| {
            let reach = Reach::Run(COPY_BYTES / src.elem.size_bytes());
            Lower::guarded_effect(b, src.bound, reach, Some(pred.v), copy)
        };
        let reach = Reach::Run(COPY_BYTES / dst.elem.size_bytes());
        Lower::guarded_effect(b, dst.bound, reach, None, checked_src);
        Ok(())
    }

    pub(super) fn async_commit(&mut self, b: &mut KernelBuilder, _: &Call) -> Result<()> {
        b.async_commit();
        Ok(())
    }

    pub(super) fn async_wait(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let arg = call.args[0];
        let what = "the count of `async_wait`";
        let pending = u32::try_from(self.const_eval(arg, what)?)
            .map_err(|_| Error::new_spanned(arg, format!("{what} out of range for u32")))?;
        b.async_wait(pending);
        Ok(())
    }

    /// `mma_wait(pending, acc)`: the accumulator after at most `pending` `mma_group_async`s
    /// are left in flight.
    pub(super) fn mma_wait(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
    ) -> Result<(Value, TileTy)> {
        let arg = call.args[0];
        let pending = self.const_eval(arg, "the count of `mma_wait`")?;
        if pending > u64::from(MAX_PENDING_MMA_GROUPS) {
            return err(
                arg,
                format!(
                    "`mma_wait` leaves at most {MAX_PENDING_MMA_GROUPS} groups in flight, \
                     found {pending}"
                ),
            );
        }
        let acc = self.tile_arg(b, call.args[1], TileTy::Frag(FragRole::WideAcc))?;
        let waited = b.mma_wait(pending as u32, &[acc])[0];
        Ok((waited, TileTy::Frag(FragRole::WideAcc)))
    }

    /// `regs_inc(count)`, `regs_dec(count)`: the executing group's register budget.
    pub(super) fn regs_set(&mut self, b: &mut KernelBuilder, call: &Call) -> Result<()> {
        let arg = call.args[0];
        let count = self.const_eval(arg, "the register count")?;
        let count = u32::try_from(count)
            .ok()
            .filter(|c| valid_register_count(*c))
            .ok_or_else(|| {
                Error::new_spanned(
                    arg,
                    format!(
                        "`{}` takes a multiple of 8 in 24..=256 registers, found {count}",
                        call.name
                    ),
                )
            })?;
        let dir = if call.name == "regs_inc" {
            RegsDir::Inc
        } else {
            RegsDir::Dec
        };
        b.regs_set(dir, count);
        Ok(())
    }

    /// Where a fragment load or store (`call`) starts: `&a[i]` with `elem` elements.
    fn frag_memory(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        write: bool,
        elems: &[ScalarType],
    ) -> Result<Elem> {
        let (name, arg) = (&call.name, call.args[0]);
        let e = self.elem_ref(b, arg, name, write)?;
        let found = e.elem;
        if !elems.contains(&found) {
            let access = if write { "writes" } else { "reads" };
            let names: Vec<_> = elems.iter().map(|t| rust_name(*t)).collect();
            return err(
                arg,
                format!(
                    "`{name}` {access} {} elements, found {}",
                    names.join(" or "),
                    rust_name(found)
                ),
            );
        }
        Ok(e)
    }

    /// A tile of `mma_group` in shared memory, `&tile[i]`; `tile` names it in errors. The
    /// product reads bf16 in its swizzled layout whatever the array's element type (a kernel
    /// may keep its stages in 32-bit words to share them with other data).
    fn group_tile(&mut self, b: &mut KernelBuilder, e: &Expr, tile: &str) -> Result<Elem> {
        let what = format!("{tile} of `mma_group`");
        self.elem_ref_in(b, e, ("mma_group", &what), false, AddrSpace::Shared)
    }

    /// An accumulator of either width, as `frag_store` takes.
    fn acc_arg(&mut self, b: &mut KernelBuilder, e: &Expr) -> Result<Value> {
        let want = "an accumulator (from `frag_zero`, `mma`, `wide_zero` or `mma_group`)";
        match self.tile(b, e)? {
            Some((v, TileTy::Frag(role))) if role.is_acc() => Ok(v),
            Some((_, ty)) => err(e, format!("expected {want}, found {}", ty.name())),
            None => err(e, format!("expected {want}, found a scalar")),
        }
    }

    /// A tile expression of type `want`.
    pub(super) fn tile_arg(
        &mut self,
        b: &mut KernelBuilder,
        e: &Expr,
        want: TileTy,
    ) -> Result<Value> {
        match self.tile(b, e)? {
            Some((v, ty)) if ty == want => Ok(v),
            Some((_, ty)) => err(e, format!("expected {}, found {}", want.name(), ty.name())),
            None => err(e, format!("expected {}, found a scalar", want.name())),
        }
    }
}

/// The message for a tile variable used where a number is expected.
pub(super) fn tile_as_scalar(name: &str, ty: TileTy) -> String {
    let takers = match ty {
        TileTy::Frag(_) => "fragments only go to `mma`, `mma_group` and `frag_store`",
        TileTy::Vector { .. } => "vectors only go to `store_vec8` / `store_vec4` and `extract`",
    };
    format!(
        "`{name}` is {}, not a number: {takers}, never into arithmetic",
        ty.name()
    )
}

/// The expression a block is made of, if it holds nothing else.
pub(super) fn sole_tail(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

/// The lanes of the vectors a vector intrinsic (`load_vec8`, `store_vec4`, ...) moves.
fn vector_lanes(name: &str) -> u32 {
    if name.ends_with('8') { 8 } else { 4 }
}

/// Vectors are 16 bytes at most: 8 lanes of 8- or 16-bit elements, or 4 of up to 32 bits.
fn check_vector_elem(e: &impl quote::ToTokens, elem: ScalarType, lanes: u32) -> Result<()> {
    if elem != S::I1 && elem.size_bytes() * lanes <= VEC_BYTES {
        return Ok(());
    }
    let widths = if lanes == 8 {
        "8- or 16-bit"
    } else {
        "8-, 16- or 32-bit"
    };
    err(
        e,
        format!(
            "vectors of {lanes} take {widths} elements ({VEC_BYTES} bytes at most), found {}",
            rust_name(elem)
        ),
    )
}
