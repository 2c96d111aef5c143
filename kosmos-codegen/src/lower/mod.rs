//! KOSMOS IR -> LLVM IR, written once for every target against [`Target`].
//!
//! The input is verified ([`VerifiedKernel`]): the lowering relies on every fact the verifier
//! checks (operand and result types, definitions before uses, region structure, orderings,
//! alignments, atomic widths, fragment roles) and only asserts them in debug builds. It
//! refuses with an error what the IR allows but a target cannot express.
//!
//! This file holds the kernel, its values and the dispatch per op; `control.rs` regions and
//! structured control flow; `arith.rs` arithmetic, conversions and vectors; `memory.rs`
//! pointers, loads, stores, atomics and shared memory; `tile.rs` fragments and `mma`.

mod arith;
mod control;
mod memory;
mod tile;

use crate::llvm::{Fail, FnBuilder, scalar_type};
use crate::target::Target;
use control::{Exit, LoopExit};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use kosmos_ir::{AddrSpace, Inst, InstPos, Kernel, Op, Type, Value, VerifiedKernel};
use std::cell::RefCell;
use std::ops::Deref;

/// A lowering failure located in the IR.
#[derive(Debug)]
pub(crate) struct LowerError {
    pub kernel: String,
    pub pos: String,
    pub op: &'static str,
    pub message: String,
}

/// The lowering state of one kernel.
struct Cx<'a, 'ctx> {
    /// The kernel's LLVM function; `Cx` derefs to it for the LLVM helpers.
    llvm: FnBuilder<'a, 'ctx>,
    target: &'a dyn Target,
    values: Vec<Option<BasicValueEnum<'ctx>>>,
    loops: Vec<LoopExit<'ctx>>,
    /// Walk index of the next instruction, for positions in kernels built in Rust.
    next_index: usize,
    /// The instruction being lowered (its position and op), which a failure names.
    at: Option<(InstPos, &'static str)>,
    /// Offsets of the `shared.alloc`s not yet lowered, in walk order
    /// ([`Kernel::shared_layout`]): the lowering meets them in that order.
    shared_offsets: std::vec::IntoIter<u64>,
    /// The byte length passed with each pointer parameter, by parameter (`buffer.len`).
    buffer_lens: Vec<(Value, IntValue<'ctx>)>,
    /// The kernel's bounds record, its last parameter.
    bounds_record: PointerValue<'ctx>,
    /// Walk-order position of the next `bounds.fail` ([`Kernel::bounds_origins`]).
    next_bounds_origin: u64,
}

impl<'a, 'ctx> Deref for Cx<'a, 'ctx> {
    type Target = FnBuilder<'a, 'ctx>;

    fn deref(&self) -> &FnBuilder<'a, 'ctx> {
        &self.llvm
    }
}

/// Lowers every kernel of `kernels` into `module`.
pub(crate) fn lower_kernels<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    target: &dyn Target,
    kernels: &[VerifiedKernel],
) -> Result<(), LowerError> {
    for kernel in kernels {
        lower_kernel(ctx, module, target, kernel)?;
    }
    Ok(())
}

fn lower_kernel<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    target: &dyn Target,
    kernel: &Kernel,
) -> Result<(), LowerError> {
    debug_assert!(
        module.get_function(&kernel.name).is_none(),
        "the verifier gives a module's kernels distinct names"
    );
    // The signature: the kernel's parameters, the byte length of each pointer parameter's
    // buffer, the bounds record (the runtime's `ArgBits::of_launch` passes them so).
    let pointers: Vec<Value> = kernel
        .params
        .iter()
        .copied()
        .filter(|p| matches!(kernel.ty(*p), Type::Ptr(_)))
        .collect();
    let record_ty = ctx.ptr_type(target.addr_space(AddrSpace::Global));
    let params: Vec<BasicMetadataTypeEnum> = kernel
        .params
        .iter()
        .map(|p| llvm_type(ctx, target, kernel.ty(*p)).into())
        .chain(pointers.iter().map(|_| ctx.i64_type().into()))
        .chain([record_ty.into()])
        .collect();
    let fn_ty = ctx.void_type().fn_type(&params, false);
    let function = module.add_function(&kernel.name, fn_ty, None);
    let hidden = &function.get_params()[kernel.params.len()..];
    let buffer_lens = pointers
        .iter()
        .zip(hidden)
        .map(|(p, len)| {
            if let Some(name) = kernel.value_name(*p) {
                len.set_name(&format!("{name}.len"));
            }
            (*p, len.into_int_value())
        })
        .collect();
    let bounds_record = hidden[pointers.len()].into_pointer_value();
    bounds_record.set_name("bounds_record");
    let mut cx = Cx {
        llvm: FnBuilder {
            ctx,
            module,
            builder: ctx.create_builder(),
            function,
            kernel,
            staged: RefCell::default(),
        },
        target,
        values: vec![None; kernel.values.len()],
        loops: Vec::new(),
        next_index: 0,
        at: None,
        shared_offsets: kernel.shared_layout().0.into_iter(),
        buffer_lens,
        bounds_record,
        next_bounds_origin: 0,
    };
    target.configure_kernel(&cx.llvm);
    for (p, arg) in kernel.params.iter().zip(function.get_param_iter()) {
        if let Some(name) = kernel.value_name(*p) {
            arg.set_name(name);
        }
        cx.values[p.index()] = Some(arg);
    }
    let entry = ctx.append_basic_block(function, "entry");
    cx.builder.position_at_end(entry);
    cx.body().map_err(|Fail(message)| {
        let (pos, op) = match cx.at {
            Some((pos, op)) => (pos.to_string(), op),
            None => ("signature".to_string(), "kernel"),
        };
        LowerError {
            kernel: kernel.name.clone(),
            pos,
            op,
            message,
        }
    })
}

/// The LLVM type of an IR type. `i1` is `i1` in registers (memory accesses widen it).
fn llvm_type<'ctx>(ctx: &'ctx Context, target: &dyn Target, ty: Type) -> BasicTypeEnum<'ctx> {
    debug_assert!(ty.is_well_formed(), "the verifier rejects the type {ty}");
    match ty {
        Type::Scalar(s) => scalar_type(ctx, s),
        Type::Ptr(space) => ctx.ptr_type(target.addr_space(space)).into(),
        Type::Vector { elem, lanes } => match scalar_type(ctx, elem) {
            BasicTypeEnum::IntType(t) => t.vec_type(lanes).into(),
            BasicTypeEnum::FloatType(t) => t.vec_type(lanes).into(),
            _ => unreachable!("scalars are integers or floats"),
        },
        Type::Frag(role) => tile::frag_type(ctx, target, role),
    }
}

impl<'ctx> Cx<'_, 'ctx> {
    fn body(&mut self) -> Result<(), Fail> {
        let kernel = self.llvm.kernel;
        match self.region(&kernel.body, &[])? {
            Exit::FellOff => {
                self.builder.build_return(None)?;
            }
            Exit::Left => {}
            Exit::Yield(_) => unreachable!("the verifier rejects `yield` in the kernel body"),
        }
        Ok(())
    }

    // ---- values (the verifier defines each before its uses, with the type its op takes) ----

    fn get(&self, v: Value) -> BasicValueEnum<'ctx> {
        self.values[v.index()].expect("the verifier defines values before their uses")
    }

    fn ty(&self, v: Value) -> Type {
        self.kernel.values[v.index()].ty
    }

    fn get_int(&self, v: Value) -> IntValue<'ctx> {
        self.get(v).into_int_value()
    }

    fn get_ptr(&self, v: Value) -> (PointerValue<'ctx>, AddrSpace) {
        match self.ty(v) {
            Type::Ptr(space) => (self.get(v).into_pointer_value(), space),
            other => unreachable!("the verifier gives pointer operands pointers, not {other}"),
        }
    }

    fn get_bool(&self, v: Value) -> IntValue<'ctx> {
        debug_assert_eq!(self.ty(v), Type::I1, "the verifier checks i1 conditions");
        self.get_int(v)
    }

    fn llvm_type(&self, ty: Type) -> BasicTypeEnum<'ctx> {
        llvm_type(self.ctx, self.target, ty)
    }

    fn define(&mut self, inst: &Inst, values: Vec<BasicValueEnum<'ctx>>) {
        debug_assert_eq!(
            inst.results.len(),
            values.len(),
            "the verifier checks result counts"
        );
        for (r, v) in inst.results.iter().zip(values) {
            debug_assert_eq!(
                v.get_type(),
                self.llvm_type(self.ty(*r)),
                "the lowering gives %{} the type the verifier checked",
                r.0
            );
            debug_assert!(
                self.values[r.index()].is_none(),
                "the verifier rejects redefinitions"
            );
            // Constants (a global, or a constant expression over one) keep their names.
            if let Some(name) = self.kernel.value_name(*r)
                && !v.is_const()
            {
                v.set_name(name);
            }
            self.values[r.index()] = Some(v);
        }
    }

    // ---- instructions ----

    /// Lowers one instruction; returns how its region ends when it is a terminator.
    fn inst(&mut self, inst: &Inst) -> Result<Option<Exit<'ctx>>, Fail> {
        let results: Vec<BasicValueEnum<'ctx>> = match &inst.op {
            Op::Const { value: c } => vec![self.constant(*c)?],
            Op::Binary { op, lhs, rhs } => vec![self.binary(*op, *lhs, *rhs)?],
            Op::Unary { op, arg } => vec![self.unary(*op, *arg)?],
            Op::Fma { a, b, c } => vec![self.fma(*a, *b, *c)?],
            Op::Cmp { pred, lhs, rhs } => vec![self.compare(*pred, *lhs, *rhs)?],
            Op::Select {
                cond,
                if_true,
                if_false,
            } => vec![self.select(*cond, *if_true, *if_false)?],
            Op::Cast { arg, to } => vec![self.cast(*arg, *to)?],
            Op::Bitcast { arg, to } => vec![self.bitcast(*arg, *to)?],
            Op::PtrOffset { base, index, elem } => vec![self.ptr_offset(*base, *index, *elem)?],
            Op::BufferLen { buffer } => vec![self.buffer_len(*buffer).into()],
            Op::BoundsFail { index, len, .. } => {
                let [index, len] = [*index, *len].map(|v| self.get_int(v));
                self.record_failure([index, len])?;
                vec![]
            }
            Op::WaitFail { polls, .. } => {
                let i64t = self.ctx.i64_type();
                let polls = self
                    .builder
                    .build_int_z_extend(self.get_int(*polls), i64t, "")?;
                self.record_failure([polls, i64t.const_zero()])?;
                vec![]
            }
            Op::Load { ptr, ty, align } => vec![self.load(*ptr, *ty, *align)?],
            Op::Store { ptr, value, align } => {
                self.store(*ptr, *value, *align)?;
                vec![]
            }
            Op::AtomicLoad {
                ptr,
                ty,
                ordering,
                scope,
            } => vec![self.atomic_load(*ptr, *ty, *ordering, *scope)?],
            Op::AtomicStore {
                ptr,
                value,
                ordering,
                scope,
            } => {
                self.atomic_store(*ptr, *value, *ordering, *scope)?;
                vec![]
            }
            Op::AtomicRmw {
                op,
                ptr,
                value,
                ordering,
                scope,
            } => vec![self.atomic_rmw(*op, *ptr, *value, *ordering, *scope)?],
            Op::AtomicCas {
                ptr,
                expected,
                desired,
                ordering,
                scope,
            } => vec![self.atomic_cas(*ptr, *expected, *desired, *ordering, *scope)?],
            Op::Fence { ordering, scope } => {
                self.fence(*ordering, *scope)?;
                vec![]
            }
            Op::SharedAlloc { elem, count } => vec![self.shared_alloc(inst, *elem, *count)?],
            Op::FragZero { role } => vec![self.frag_zero(*role)],
            Op::FragLoad { role, ptr, stride } => vec![self.frag_load(*role, *ptr, *stride)?],
            Op::FragStore {
                ptr,
                value,
                stride,
                within,
                layout,
                elem,
            } => {
                self.frag_store([*ptr, *value, *stride], *within, *layout, *elem)?;
                vec![]
            }
            Op::Mma { a, b, acc } => vec![self.mma(*a, *b, *acc)?],
            Op::MmaGroup { a, b, acc, layout } => {
                vec![self.mma_group([*a, *b, *acc], *layout, true)?]
            }
            Op::MmaGroupAsync { a, b, acc, layout } => {
                vec![self.mma_group([*a, *b, *acc], *layout, false)?]
            }
            Op::Splat { value, lanes } => vec![self.splat(*value, *lanes)?],
            Op::Extract { vector, lane } => vec![self.extract(*vector, *lane)?],
            Op::Insert {
                vector,
                lane,
                value,
            } => vec![self.insert(*vector, *lane, *value)?],
            Op::If {
                cond,
                then_region,
                else_region,
                result_types,
            } => self.lower_if(*cond, then_region, else_region, result_types)?,
            Op::For { range, inits, body } => self.lower_for(*range, inits, body)?,
            Op::Loop {
                inits,
                body,
                result_types,
            } => self.lower_loop(inits, body, result_types)?,
            Op::Yield { values } => {
                let values = values.iter().map(|v| self.get(*v)).collect();
                return Ok(Some(Exit::Yield(values)));
            }
            Op::Break { values } => return Ok(Some(self.lower_break(values)?)),
            Op::Return => {
                self.builder.build_return(None)?;
                return Ok(Some(Exit::Left));
            }
            // Ids, barriers, clocks, shuffles, ...: each target lowers them its own way.
            op => {
                let args: Vec<_> = op.operands().into_iter().map(|v| self.get(v)).collect();
                self.target.lower_op(&self.llvm, op, &args)?
            }
        };
        self.define(inst, results);
        Ok(None)
    }
}
