//! The intrinsics: one table of every function a kernel may call — its name, its
//! parameters, what a call gives and the function that lowers it — and the lowering of a
//! call through that table. Adding an intrinsic is one entry here and its lowering function
//! in the module of its family; the work-item and subgroup queries and `clock` lower here.

use super::tiles::TileTy;
use super::{Binding, Lower, Val, err, mismatch};
use crate::sig::rust_name;
use kosmos_ir::{Dim, IdKind, KernelBuilder, Op, ScalarType, Value};
use syn::{Expr, Result};

use Lowering::{Effect, Let, Scalar, Tile};
use ResultTy::{Element, First, Fixed, Lane, Operands};
use ScalarType as S;

/// A function a kernel may call.
pub(super) struct Intrinsic {
    pub(super) name: &'static str,
    /// Its arguments as its arity error names them; their count is its arity. (`Let`
    /// intrinsics check their own, after their generic arguments.)
    pub(super) params: &'static [&'static str],
    pub(super) lowering: Lowering,
}

/// What a call of an intrinsic gives, and the function that lowers it.
pub(super) enum Lowering {
    /// A number, of the type the rule tells (before lowering, for type inference).
    Scalar(ResultTy, ScalarFn),
    /// Nothing: the call is a statement.
    Effect(EffectFn),
    /// A fragment or a vector: only `let` and the tile intrinsics take it.
    Tile(TileFn),
    /// A slice, which only `let name = ...;` binds.
    Let(LetForm, LetFn),
}

/// The type of a number an intrinsic gives.
pub(super) enum ResultTy {
    Fixed(ScalarType),
    /// The element type of its first argument, `&a[i]` (atomics).
    Element,
    /// The type of its operands (math).
    Operands,
    /// The type of its first argument (`subgroup_shuffle`: the lane that follows is a `u32`).
    First,
    /// The element type of the vector that is its first argument (`extract`).
    Lane,
}

/// How a `Let` intrinsic is written, for its messages.
pub(super) struct LetForm {
    /// What it binds: "shared arrays".
    pub(super) binds: &'static str,
    /// The call with its generic arguments: "shared_array::<T, N>()".
    pub(super) call: &'static str,
}

/// Lowers a call that gives a number; the type the context expects, if any, is given.
type ScalarFn = fn(&mut Lower, &mut KernelBuilder, &Call<'_>, Option<ScalarType>) -> Result<Val>;
type EffectFn = fn(&mut Lower, &mut KernelBuilder, &Call<'_>) -> Result<()>;
type TileFn = fn(&mut Lower, &mut KernelBuilder, &Call<'_>) -> Result<(Value, TileTy)>;
/// Lowers `let name = call;` to what `name` binds (`name` is given).
type LetFn = fn(&mut Lower, &mut KernelBuilder, &Call<'_>, &str) -> Result<Binding>;

/// An entry of [`INTRINSICS`].
const fn def(name: &'static str, params: &'static [&'static str], lowering: Lowering) -> Intrinsic {
    Intrinsic {
        name,
        params,
        lowering,
    }
}

/// The parameters of an intrinsic without arguments.
const NONE: &[&str] = &[];
/// The parameters of `dispatch` and `dispatch_by_ticket`.
const DISPATCH: &[&str] = &[
    "&comm_head[i]",
    "n_comm",
    "&compute_head[j]",
    "n_compute",
    "scope",
    "|t| (&ready[k], expected)",
    "|t| { comm }",
    "|t| { compute }",
];
const ID_QUERY: Lowering = Scalar(Fixed(S::U32), Lower::id);
const RMW_PARAMS: &[&str] = &["&a[i]", "value", "ordering", "scope"];
const ATOMIC_RMW: Lowering = Scalar(Element, Lower::atomic_rmw);
const MATH: Lowering = Scalar(Operands, Lower::math_call);

/// Every intrinsic, in the order the unknown-intrinsic message lists them.
const INTRINSICS: &[Intrinsic] = &[
    def("workitem_id_x", NONE, ID_QUERY),
    def("workitem_id_y", NONE, ID_QUERY),
    def("workitem_id_z", NONE, ID_QUERY),
    def("workgroup_id_x", NONE, ID_QUERY),
    def("workgroup_id_y", NONE, ID_QUERY),
    def("workgroup_id_z", NONE, ID_QUERY),
    def("workgroup_size_x", NONE, ID_QUERY),
    def("workgroup_size_y", NONE, ID_QUERY),
    def("workgroup_size_z", NONE, ID_QUERY),
    def("num_workgroups_x", NONE, ID_QUERY),
    def("num_workgroups_y", NONE, ID_QUERY),
    def("num_workgroups_z", NONE, ID_QUERY),
    def("barrier", NONE, Effect(Lower::barrier)),
    def("subgroup_barrier", NONE, Effect(Lower::subgroup_barrier)),
    def("fence", &["ordering", "scope"], Effect(Lower::fence)),
    def("sleep", &["nanoseconds, a constant"], Effect(Lower::sleep)),
    def("clock", NONE, Scalar(Fixed(S::U64), Lower::clock)),
    def(
        "shared_array",
        NONE,
        Let(
            LetForm {
                binds: "shared arrays",
                call: "shared_array::<T, N>()",
            },
            Lower::shared_array,
        ),
    ),
    def(
        "shared_view",
        &["array"],
        Let(
            LetForm {
                binds: "shared views",
                call: "shared_view::<T, N>(array)",
            },
            Lower::shared_view,
        ),
    ),
    def("atomic_add", RMW_PARAMS, ATOMIC_RMW),
    def("atomic_min", RMW_PARAMS, ATOMIC_RMW),
    def("atomic_max", RMW_PARAMS, ATOMIC_RMW),
    def("atomic_xchg", RMW_PARAMS, ATOMIC_RMW),
    def("atomic_and", RMW_PARAMS, ATOMIC_RMW),
    def("atomic_or", RMW_PARAMS, ATOMIC_RMW),
    def(
        "atomic_load",
        &["&a[i]", "ordering", "scope"],
        Scalar(Element, Lower::atomic_load),
    ),
    def(
        "atomic_store",
        &["&a[i]", "value", "ordering", "scope"],
        Effect(Lower::atomic_store),
    ),
    def(
        "atomic_cas",
        &["&a[i]", "expected", "desired", "ordering", "scope"],
        Scalar(Element, Lower::atomic_cas),
    ),
    def("sqrt", &["x"], MATH),
    def("rsqrt", &["x"], MATH),
    def("exp", &["x"], MATH),
    def("exp2", &["x"], MATH),
    def("ln", &["x"], MATH),
    def("log2", &["x"], MATH),
    def("sin", &["x"], MATH),
    def("cos", &["x"], MATH),
    def("tanh", &["x"], MATH),
    def("erf", &["x"], MATH),
    def(
        "exp2_approx",
        &["x (f32)"],
        Scalar(Fixed(S::F32), Lower::fast_approx),
    ),
    def(
        "tanh_approx",
        &["x (f32)"],
        Scalar(Fixed(S::F32), Lower::fast_approx),
    ),
    def(
        "rcp_approx",
        &["x (f32)"],
        Scalar(Fixed(S::F32), Lower::fast_approx),
    ),
    def("abs", &["x"], MATH),
    def("min", &["a", "b"], MATH),
    def("max", &["a", "b"], MATH),
    def("clamp", &["x", "lo", "hi"], MATH),
    def("fma", &["a", "b", "c"], MATH),
    // The exponent is an `i32` whatever the base.
    def("powi", &["x", "n (i32)"], Scalar(First, Lower::math_call)),
    def(
        "subgroup_size",
        NONE,
        Scalar(Fixed(S::U32), Lower::subgroup_query),
    ),
    def(
        "subgroup_id",
        NONE,
        Scalar(Fixed(S::U32), Lower::subgroup_query),
    ),
    def(
        "subgroup_lane",
        NONE,
        Scalar(Fixed(S::U32), Lower::subgroup_query),
    ),
    def(
        "subgroup_shuffle",
        &["value (i32, u32 or f32)", "source lane"],
        Scalar(First, Lower::subgroup_shuffle),
    ),
    def(
        "mbar_init",
        &["&bars[i]", "arrivals per phase"],
        Effect(Lower::mbar_init),
    ),
    def("mbar_arrive", &["&bars[i]"], Effect(Lower::mbar_arrive)),
    def(
        "mbar_arrive_expect",
        &["&bars[i]", "bytes"],
        Effect(Lower::mbar_arrive_expect),
    ),
    def(
        "mbar_wait",
        &["&bars[i]", "phase parity"],
        Effect(Lower::mbar_wait),
    ),
    def(
        "copy_tensor",
        &["&stage[i]", "&map", "column", "row", "&bars[j]"],
        Effect(Lower::copy_tensor),
    ),
    def(
        "copy_tensor_store",
        &["&map", "column", "row", "&stage[i]"],
        Effect(Lower::copy_tensor_store),
    ),
    def(
        "copy_tensor_wait_read",
        &["stores left reading, a constant"],
        Effect(Lower::copy_tensor_wait),
    ),
    def(
        "copy_tensor_wait",
        &["stores left in flight, a constant"],
        Effect(Lower::copy_tensor_wait),
    ),
    def("fence_proxy_async", NONE, Effect(Lower::fence_proxy_async)),
    def(
        "fence_proxy_async_shared",
        NONE,
        Effect(Lower::fence_proxy_async_shared),
    ),
    def("frag_zero", NONE, Tile(Lower::frag_zero)),
    def(
        "frag_load_a",
        &["&tile[i]", "stride"],
        Tile(Lower::frag_load),
    ),
    def(
        "frag_load_b",
        &["&tile[i]", "stride"],
        Tile(Lower::frag_load),
    ),
    def(
        "frag_store",
        &["&c[i]", "accumulator", "stride"],
        Effect(Lower::frag_store),
    ),
    def(
        "frag_store_swizzled",
        &["&c[i]", "accumulator", "box_rows"],
        Effect(Lower::frag_store),
    ),
    def(
        "frag_store_within",
        &["&c[i]", "accumulator", "stride", "rows", "cols"],
        Effect(Lower::frag_store),
    ),
    def("mma", &["a", "b", "accumulator"], Tile(Lower::mma)),
    def("wide_zero", NONE, Tile(Lower::wide_zero)),
    def(
        "mma_group",
        &["&a_tile[i]", "&b_tile[j]", "wide accumulator"],
        Tile(Lower::mma_group),
    ),
    def(
        "mma_group_async",
        &["&a_tile[i]", "&b_tile[j]", "wide accumulator"],
        Tile(Lower::mma_group),
    ),
    def(
        "mma_group_trans",
        &[
            "&a_tile[i]",
            "&b_tile[j]",
            "wide accumulator",
            "a transposed (0 or 1, a constant)",
            "b transposed (0 or 1, a constant)",
        ],
        Tile(Lower::mma_group),
    ),
    def(
        "mma_group_async_trans",
        &[
            "&a_tile[i]",
            "&b_tile[j]",
            "wide accumulator",
            "a transposed (0 or 1, a constant)",
            "b transposed (0 or 1, a constant)",
        ],
        Tile(Lower::mma_group),
    ),
    def(
        "mma_wait",
        &["groups left in flight, a constant", "wide accumulator"],
        Tile(Lower::mma_wait),
    ),
    def(
        "regs_inc",
        &["register count, a constant"],
        Effect(Lower::regs_set),
    ),
    def(
        "regs_dec",
        &["register count, a constant"],
        Effect(Lower::regs_set),
    ),
    def(
        "copy_async",
        &["&shared_dst[i]", "&global_src[j]", "pred"],
        Effect(Lower::copy_async),
    ),
    def("async_commit", NONE, Effect(Lower::async_commit)),
    def(
        "async_wait",
        &["groups left in flight, a constant"],
        Effect(Lower::async_wait),
    ),
    def("load_vec8", &["&a[i]"], Tile(Lower::load_vec)),
    def("load_vec4", &["&a[i]"], Tile(Lower::load_vec)),
    def("store_vec8", &["&a[i]", "vector"], Effect(Lower::store_vec)),
    def("store_vec4", &["&a[i]", "vector"], Effect(Lower::store_vec)),
    def("splat8", &["a scalar for every lane"], Tile(Lower::splat8)),
    def(
        "vec4",
        &["lane 0", "lane 1", "lane 2", "lane 3"],
        Tile(Lower::vector_of),
    ),
    def(
        "vec8",
        &[
            "lane 0", "lane 1", "lane 2", "lane 3", "lane 4", "lane 5", "lane 6", "lane 7",
        ],
        Tile(Lower::vector_of),
    ),
    def(
        "extract",
        &["vector", "lane, a constant"],
        Scalar(Lane, Lower::extract),
    ),
    def("team_rank", NONE, Scalar(Fixed(S::U32), Lower::team_rank)),
    def("world_size", NONE, Scalar(Fixed(S::U32), Lower::world_size)),
    def(
        "team_workgroup",
        NONE,
        Scalar(Fixed(S::U32), Lower::team_workgroup),
    ),
    def(
        "signal",
        &["&counter[i]", "n", "scope"],
        Effect(Lower::signal),
    ),
    def(
        "wait",
        &["&counter[i]", "expected", "scope", "task"],
        Effect(Lower::wait),
    ),
    def(
        "claim",
        &["&head[i]", "len"],
        Scalar(Fixed(S::U32), Lower::claim),
    ),
    def(
        "report_overflow",
        &["capacity", "needed"],
        Effect(Lower::report_overflow),
    ),
    def(
        "subgroup_claim",
        &["&head[i]", "len"],
        Scalar(Fixed(S::U32), Lower::subgroup_claim),
    ),
    def(
        "subgroup_wait",
        &["&counter[i]", "expected", "scope", "task"],
        Scalar(Fixed(S::I1), Lower::subgroup_wait),
    ),
    def(
        "subgroup_signal",
        &["&counter[i]", "n", "scope"],
        Effect(Lower::subgroup_signal),
    ),
    def(
        "subgroup_trace",
        &["role", "task", "since (a `clock()`)"],
        Effect(Lower::subgroup_trace),
    ),
    def("start_barrier", NONE, Effect(Lower::start_barrier)),
    def("team_barrier", NONE, Effect(Lower::team_barrier)),
    def(
        "team_one_launch",
        NONE,
        Scalar(Fixed(S::I1), Lower::team_one_launch),
    ),
    def(
        "team_last_out",
        NONE,
        Scalar(Fixed(S::I1), Lower::team_last_out),
    ),
    def("dispatch", DISPATCH, Effect(Lower::dispatch)),
    def(
        "dispatch_by_ticket",
        DISPATCH,
        Effect(Lower::dispatch_by_ticket),
    ),
];

/// The intrinsic called `name`.
pub(super) fn intrinsic(name: &str) -> Option<&'static Intrinsic> {
    INTRINSICS.iter().find(|i| i.name == name)
}

/// The names of the intrinsic functions a kernel may call.
pub fn intrinsic_names() -> impl Iterator<Item = &'static str> {
    INTRINSICS.iter().map(|i| i.name)
}

/// The message for a call of a function kernels cannot call (`Vec::new`, `String::from`, an
/// ordinary function, a misspelt intrinsic): what it is, and the intrinsics whose names are
/// close to it (all of them are listed in the crate's docs and by [`intrinsic_names`]).
fn unknown_call(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let name = segments.last().expect("a path has a segment").as_str();
    let what = match segments.first().map(String::as_str) {
        Some("Vec" | "String" | "Box" | "HashMap" | "BTreeMap" | "Rc" | "Arc") => format!(
            "`{}` is not available in kernels: there is no heap on the GPU (use slice \
             parameters, `shared_array` or local variables)",
            segments.join("::")
        ),
        _ if segments.len() > 1 => format!(
            "`{}` is not available in kernels: kernels call intrinsics only",
            segments.join("::")
        ),
        _ => format!(
            "cannot find function `{name}` among the kernel intrinsics (they are listed in \
             kosmos-frontend's docs) or the file's `#[device]` functions"
        ),
    };
    let words = |n: &'static str| n.split('_').collect::<Vec<_>>();
    let shares_word = |n: &'static str| {
        name.split('_')
            .any(|w| w.len() > 2 && words(n).contains(&w))
    };
    let mut close: Vec<(f64, &str)> = intrinsic_names()
        .map(|n| (strsim::normalized_damerau_levenshtein(name, n), n))
        .filter(|&(score, n)| score >= 0.6 || shares_word(n))
        .collect();
    close.sort_by(|a, b| b.0.total_cmp(&a.0));
    let close: Vec<String> = close
        .iter()
        .take(3)
        .map(|(_, n)| format!("`{n}`"))
        .collect();
    match close.len() {
        0 => what,
        _ => format!("{what}; did you mean {}?", close.join(", ")),
    }
}

/// A call of a named function (an intrinsic) being lowered: its name and arguments,
/// with the checks every intrinsic makes of them.
pub(super) struct Call<'a> {
    pub(super) call: &'a syn::ExprCall,
    pub(super) seg: &'a syn::PathSegment,
    pub(super) name: String,
    pub(super) args: Vec<&'a Expr>,
}

impl<'a> Call<'a> {
    /// `c` as a call of a named function; `None` if it calls anything else.
    pub(super) fn of(c: &'a syn::ExprCall) -> Option<Self> {
        let Expr::Path(p) = &*c.func else {
            return None;
        };
        let seg = p.path.segments.last().expect("a path has a segment");
        Some(Call {
            call: c,
            seg,
            name: seg.ident.to_string(),
            args: c.args.iter().collect(),
        })
    }

    /// Intrinsics take no generic arguments.
    pub(super) fn no_generics(&self) -> Result<()> {
        if self.seg.arguments.is_empty() {
            Ok(())
        } else {
            err(
                &self.seg.arguments,
                format!("`{}` takes no generic arguments", self.name),
            )
        }
    }

    /// The call has an argument for each of `params`, which name them for the error.
    pub(super) fn arity(&self, params: &[&str]) -> Result<()> {
        let n = params.len();
        if self.args.len() == n {
            return Ok(());
        }
        let what = if params.is_empty() {
            "none".to_string()
        } else {
            params.join(", ")
        };
        err(
            self.call,
            format!(
                "`{}` takes {n} argument(s) ({what}), found {}",
                self.name,
                self.args.len()
            ),
        )
    }
}

impl Lower {
    /// Lowers a call in an expression: an intrinsic that gives a number (checked against
    /// `expect`) or nothing. Tiles and slices are made by [`Lower::tile`] and `let`.
    pub(super) fn call(
        &mut self,
        b: &mut KernelBuilder,
        c: &syn::ExprCall,
        expect: Option<ScalarType>,
    ) -> Result<Option<Val>> {
        let Some(call) = Call::of(c) else {
            return err(
                &c.func,
                "only intrinsics and `#[device]` functions can be called in kernels",
            );
        };
        let name = &call.name;
        if let Some(f) = self.items.clone().device(name) {
            return self.device_call(b, c, f, expect);
        }
        let found = intrinsic(name);
        if let Some(Intrinsic {
            lowering: Let(form, _),
            ..
        }) = found
        {
            return err(
                c,
                format!("`{name}` is only allowed as `let name = {};`", form.call),
            );
        }
        call.no_generics()?;
        let Some(intrinsic) = found else {
            let Expr::Path(p) = &*c.func else {
                unreachable!("Call::of takes paths only")
            };
            return self.not_found(&c.func, unknown_call(&p.path));
        };
        let v = match intrinsic.lowering {
            Tile(_) => {
                return err(
                    c,
                    format!(
                        "`{name}` makes a fragment or vector, not a number: bind it with `let`, or pass it to `mma`, `mma_group`, `frag_store`, `store_vec8` / `store_vec4` or `extract`"
                    ),
                );
            }
            Effect(lower) => {
                call.arity(intrinsic.params)?;
                lower(self, b, &call)?;
                return Ok(None);
            }
            Scalar(_, lower) => {
                call.arity(intrinsic.params)?;
                lower(self, b, &call, expect)?
            }
            Let(..) => unreachable!("`let` intrinsics were turned away above"),
        };
        if let Some(t) = expect.filter(|t| *t != v.ty) {
            return err(c, mismatch(t, rust_name(v.ty)));
        }
        Ok(Some(v))
    }

    /// `workitem_id_x()`, `workgroup_size_y()`, ...
    fn id(&mut self, b: &mut KernelBuilder, call: &Call, _: Option<ScalarType>) -> Result<Val> {
        let (kind, dim) = call.name.rsplit_once('_').expect("an id intrinsic");
        let kind = match kind {
            "workitem_id" => IdKind::WorkitemId,
            "workgroup_id" => IdKind::WorkgroupId,
            "workgroup_size" => IdKind::WorkgroupSize,
            "num_workgroups" => IdKind::NumWorkgroups,
            other => unreachable!("`{other}` names no id"),
        };
        let dim = match dim {
            "x" => Dim::X,
            "y" => Dim::Y,
            "z" => Dim::Z,
            other => unreachable!("`{other}` is no dimension"),
        };
        Ok(u32_val(b.id(kind, dim)))
    }

    /// `subgroup_size()`, `subgroup_id()` and `subgroup_lane()` (`u32`s).
    fn subgroup_query(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let v = match call.name.as_str() {
            "subgroup_size" => b.subgroup_size(),
            "subgroup_id" => b.subgroup_id(),
            "subgroup_lane" => b.subgroup_lane(),
            other => unreachable!("`{other}` is no subgroup query"),
        };
        Ok(u32_val(v))
    }

    /// `subgroup_shuffle(x, lane)`: `x` of lane `lane % subgroup_size()`, for every lane of
    /// the subgroup (all of which must call it together).
    fn subgroup_shuffle(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        expect: Option<ScalarType>,
    ) -> Result<Val> {
        let t = expect.or_else(|| self.infer(call.args[0]));
        let x = self.value(b, call.args[0], t)?;
        if !matches!(x.ty, S::I32 | S::U32 | S::F32) {
            return err(
                call.args[0],
                format!(
                    "subgroup_shuffle moves i32, u32 or f32, not {}",
                    rust_name(x.ty)
                ),
            );
        }
        let lane = self.value(b, call.args[1], Some(S::U32))?;
        let v = b.value(Op::Shuffle {
            value: x.v,
            lane: lane.v,
        });
        Ok(Val { v, ty: x.ty })
    }

    /// `exp2_approx(x)` (`2^x` by the GPU's fast instruction, the IR's `exp2.approx`: a few
    /// ulp, results below the normal range may flush to zero), `tanh_approx(x)` (`tanh x`
    /// by its fast sequence, `tanh.approx`: about 11 bits) and `rcp_approx(x)` (`1 / x`,
    /// `rcp.approx`: about 1 ulp), for an `f32`.
    fn fast_approx(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        _: Option<ScalarType>,
    ) -> Result<Val> {
        let op = match call.name.as_str() {
            "exp2_approx" => |arg| Op::Exp2Approx { arg },
            "tanh_approx" => |arg| Op::TanhApprox { arg },
            "rcp_approx" => |arg| Op::RcpApprox { arg },
            other => unreachable!("`{other}` is no fast approximation"),
        };
        self.approx_f32(b, call, op)
    }

    /// A fast approximation `op` of the one `f32` argument of `call`.
    fn approx_f32(
        &mut self,
        b: &mut KernelBuilder,
        call: &Call,
        op: impl FnOnce(Value) -> Op,
    ) -> Result<Val> {
        let x = self.value(b, call.args[0], Some(S::F32))?;
        if x.ty != S::F32 {
            return err(call.args[0], mismatch(S::F32, rust_name(x.ty)));
        }
        let v = b.value(op(x.v));
        Ok(Val { v, ty: S::F32 })
    }

    fn clock(&mut self, b: &mut KernelBuilder, _: &Call, _: Option<ScalarType>) -> Result<Val> {
        Ok(Val {
            v: b.clock(),
            ty: S::U64,
        })
    }
}

/// A `u32` value: ids, counts, tickets.
pub(super) fn u32_val(v: Value) -> Val {
    Val { v, ty: S::U32 }
}
