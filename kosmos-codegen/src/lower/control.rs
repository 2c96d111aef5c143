//! Regions and structured control flow: `if`, `for`, `loop`, `yield`, `break`, `return`.

use super::Cx;
use crate::llvm::Fail;
use inkwell::IntPredicate;
use inkwell::basic_block::BasicBlock;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, PhiValue};
use kosmos_ir::{ForRange, Kernel, Region, Type, Value};

/// How a region ended.
pub(super) enum Exit<'ctx> {
    /// `yield` from the builder's current block.
    Yield(Vec<BasicValueEnum<'ctx>>),
    /// `break` or `return`: control left the region.
    Left,
    /// The last instruction was not a terminator (only the kernel body may end so).
    FellOff,
}

/// The innermost `loop` a `break` leaves.
pub(super) struct LoopExit<'ctx> {
    block: BasicBlock<'ctx>,
    types: Vec<BasicTypeEnum<'ctx>>,
    incoming: Vec<(Vec<BasicValueEnum<'ctx>>, BasicBlock<'ctx>)>,
}

impl<'ctx> Cx<'_, 'ctx> {
    pub(super) fn region(
        &mut self,
        region: &Region,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Exit<'ctx>, Fail> {
        debug_assert_eq!(
            region.args.len(),
            args.len(),
            "the verifier matches region arguments to their op"
        );
        for (a, v) in region.args.iter().zip(args) {
            self.values[a.index()] = Some(*v);
        }
        for (i, inst) in region.insts.iter().enumerate() {
            let index = self.next_index;
            self.next_index += 1;
            self.at = Some((Kernel::inst_pos(inst, index), inst.op.name()));
            if let Some(exit) = self.inst(inst)? {
                debug_assert_eq!(
                    i + 1,
                    region.insts.len(),
                    "the verifier rejects instructions after a terminator"
                );
                return Ok(exit);
            }
        }
        Ok(Exit::FellOff)
    }

    /// A region of the op being lowered, which the verifier makes end in a terminator: the
    /// values it yields (of `types`), or `None` when control left it.
    fn nested(
        &mut self,
        region: &Region,
        args: &[BasicValueEnum<'ctx>],
        types: &[BasicTypeEnum<'ctx>],
    ) -> Result<Option<Vec<BasicValueEnum<'ctx>>>, Fail> {
        let owner = self.at;
        let exit = self.region(region, args)?;
        // Failures from here on are the owning op's again.
        self.at = owner;
        match exit {
            Exit::Yield(values) => {
                debug_assert!(
                    values.len() == types.len()
                        && values.iter().zip(types).all(|(v, t)| v.get_type() == *t),
                    "the verifier matches yielded values to their construct"
                );
                Ok(Some(values))
            }
            Exit::Left => Ok(None),
            Exit::FellOff => unreachable!("the verifier makes nested regions end in a terminator"),
        }
    }

    /// Phis at the start of the current block, one per type, with their incoming values.
    fn phis(
        &self,
        types: &[BasicTypeEnum<'ctx>],
        incoming: &[(Vec<BasicValueEnum<'ctx>>, BasicBlock<'ctx>)],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        Ok(self
            .phi_nodes(types, incoming)?
            .iter()
            .map(|p| p.as_basic_value())
            .collect())
    }

    fn phi_nodes(
        &self,
        types: &[BasicTypeEnum<'ctx>],
        incoming: &[(Vec<BasicValueEnum<'ctx>>, BasicBlock<'ctx>)],
    ) -> Result<Vec<PhiValue<'ctx>>, Fail> {
        let mut out = Vec::new();
        for (i, ty) in types.iter().enumerate() {
            let phi = self.builder.build_phi(*ty, "")?;
            for (values, block) in incoming {
                phi.add_incoming(&[(&values[i] as &dyn BasicValue, *block)]);
            }
            out.push(phi);
        }
        Ok(out)
    }

    pub(super) fn lower_if(
        &mut self,
        cond: Value,
        then_region: &Region,
        else_region: &Region,
        result_types: &[Type],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let cond = self.get_bool(cond);
        let types = result_types
            .iter()
            .map(|t| self.llvm_type(*t))
            .collect::<Vec<_>>();
        let then_bb = self.block("then");
        let else_bb = self.block("else");
        let merge = self.block("endif");
        self.builder
            .build_conditional_branch(cond, then_bb, else_bb)?;
        let mut incoming = Vec::new();
        for (bb, region) in [(then_bb, then_region), (else_bb, else_region)] {
            self.builder.position_at_end(bb);
            if let Some(values) = self.nested(region, &[], &types)? {
                incoming.push((values, self.current_block()));
                self.builder.build_unconditional_branch(merge)?;
            }
        }
        self.builder.position_at_end(merge);
        self.phis(&types, &incoming)
    }

    pub(super) fn lower_for(
        &mut self,
        ForRange { lb, ub, step }: ForRange,
        inits: &[Value],
        body: &Region,
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let iv_ty = self.ty(lb);
        debug_assert!(
            self.ty(ub) == iv_ty && self.ty(step) == iv_ty,
            "the verifier gives for bounds and step one integer type"
        );
        let signed = iv_ty
            .scalar()
            .expect("the verifier gives for integer bounds")
            .is_signed_int();
        let (lb, ub, step) = (self.get_int(lb), self.get_int(ub), self.get_int(step));
        let init_vals = inits.iter().map(|v| self.get(*v)).collect::<Vec<_>>();
        let types: Vec<BasicTypeEnum> = init_vals.iter().map(|v| v.get_type()).collect();

        let pre = self.current_block();
        let header = self.block("for.header");
        let body_bb = self.block("for.body");
        let exit = self.block("for.exit");
        self.builder.build_unconditional_branch(header)?;

        self.builder.position_at_end(header);
        let iv = self.builder.build_phi(lb.get_type(), "iv")?;
        iv.add_incoming(&[(&lb, pre)]);
        let carried_phis = self.phi_nodes(&types, &[(init_vals, pre)])?;
        let carried: Vec<BasicValueEnum> =
            carried_phis.iter().map(|p| p.as_basic_value()).collect();
        let iv_val = iv.as_basic_value().into_int_value();
        let pred = if signed {
            IntPredicate::SLT
        } else {
            IntPredicate::ULT
        };
        let go = self.builder.build_int_compare(pred, iv_val, ub, "")?;
        self.builder.build_conditional_branch(go, body_bb, exit)?;
        let mut exit_incoming = vec![(carried.clone(), header)];

        self.builder.position_at_end(body_bb);
        let mut args = vec![iv.as_basic_value()];
        args.extend(&carried);
        if let Some(next) = self.nested(body, &args, &types)? {
            let latch = self.current_block();
            // Continue while iv + step < ub, tested without overflow: step < ub - iv
            // (ub - iv is positive here, as an unsigned number even for signed types).
            let remaining = self.builder.build_int_sub(ub, iv_val, "")?;
            let more = self
                .builder
                .build_int_compare(IntPredicate::ULT, step, remaining, "")?;
            let iv_next = self.builder.build_int_add(iv_val, step, "iv.next")?;
            self.builder.build_conditional_branch(more, header, exit)?;
            iv.add_incoming(&[(&iv_next, latch)]);
            for (phi, v) in carried_phis.iter().zip(&next) {
                phi.add_incoming(&[(v as &dyn BasicValue, latch)]);
            }
            exit_incoming.push((next, latch));
        }
        self.builder.position_at_end(exit);
        self.phis(&types, &exit_incoming)
    }

    pub(super) fn lower_loop(
        &mut self,
        inits: &[Value],
        body: &Region,
        result_types: &[Type],
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Fail> {
        let init_vals = inits.iter().map(|v| self.get(*v)).collect::<Vec<_>>();
        let types: Vec<BasicTypeEnum> = init_vals.iter().map(|v| v.get_type()).collect();
        let result_types = result_types
            .iter()
            .map(|t| self.llvm_type(*t))
            .collect::<Vec<_>>();
        let pre = self.current_block();
        let header = self.block("loop");
        let exit = self.block("loop.exit");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let carried_phis = self.phi_nodes(&types, &[(init_vals, pre)])?;
        let carried: Vec<BasicValueEnum> =
            carried_phis.iter().map(|p| p.as_basic_value()).collect();
        self.loops.push(LoopExit {
            block: exit,
            types: result_types.clone(),
            incoming: Vec::new(),
        });
        let next = self.nested(body, &carried, &types);
        let lp = self.loops.pop().expect("the loop pushed above");
        if let Some(next) = next? {
            let latch = self.current_block();
            self.builder.build_unconditional_branch(header)?;
            for (phi, v) in carried_phis.iter().zip(&next) {
                phi.add_incoming(&[(v as &dyn BasicValue, latch)]);
            }
        }
        self.builder.position_at_end(exit);
        self.phis(&result_types, &lp.incoming)
    }

    pub(super) fn lower_break(&mut self, values: &[Value]) -> Result<Exit<'ctx>, Fail> {
        let values: Vec<BasicValueEnum> = values.iter().map(|v| self.get(*v)).collect();
        let from = self.current_block();
        let lp = self
            .loops
            .last_mut()
            .expect("the verifier places `break` inside a loop");
        debug_assert!(
            values.len() == lp.types.len()
                && values
                    .iter()
                    .zip(&lp.types)
                    .all(|(v, t)| v.get_type() == *t),
            "the verifier matches break values to the loop's results"
        );
        self.llvm.builder.build_unconditional_branch(lp.block)?;
        lp.incoming.push((values, from));
        Ok(Exit::Left)
    }
}
