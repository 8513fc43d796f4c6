//! Collectives in subgroup mode: warp reductions and scans as subgroup built-ins, CTA
//! reductions through workgroup memory, shuffles that give a lane outside the warp its own
//! value.

use super::*;

impl<'k> Builder<'k> {
    pub(super) fn subgroup_reduce(
        &mut self,
        block: &mut Block,
        r: Reduce,
        t: Scalar,
        argument: Handle<E>,
    ) -> Handle<E> {
        self.uses_subgroups = true;
        let op = match r {
            Reduce::Sum => SubgroupOperation::Add,
            Reduce::Max => SubgroupOperation::Max,
            Reduce::Min => SubgroupOperation::Min,
            Reduce::And => SubgroupOperation::And,
            Reduce::Or => SubgroupOperation::Or,
            Reduce::Xor => SubgroupOperation::Xor,
        };
        let ty = scalar_type(&mut self.module, naga_scalar(t));
        let result = self.add(block, E::SubgroupOperationResult { ty });
        self.push(
            block,
            St::SubgroupCollectiveOperation {
                op,
                collective_op: CollectiveOperation::Reduce,
                argument,
                result,
            },
        );
        result
    }

    pub(super) fn combine(
        &mut self,
        block: &mut Block,
        r: Reduce,
        a: Handle<E>,
        b: Handle<E>,
    ) -> Handle<E> {
        match r {
            Reduce::Sum => self.binary(block, B::Add, a, b),
            Reduce::And => self.binary(block, B::And, a, b),
            Reduce::Or => self.binary(block, B::InclusiveOr, a, b),
            Reduce::Xor => self.binary(block, B::ExclusiveOr, a, b),
            Reduce::Max | Reduce::Min => {
                let fun = if r == Reduce::Max {
                    MathFunction::Max
                } else {
                    MathFunction::Min
                };
                self.add(
                    block,
                    E::Math {
                        fun,
                        arg: a,
                        arg1: Some(b),
                        arg2: None,
                        arg3: None,
                    },
                )
            }
        }
    }

    /// Over the CTA: lane 0 of each warp publishes its warp's result in workgroup memory (as
    /// bits), then every thread combines the warps' results in butterfly order.
    pub(super) fn cta_reduce(
        &mut self,
        block: &mut Block,
        r: Reduce,
        t: Scalar,
        warp_value: Handle<E>,
    ) -> Handle<E> {
        let partials = match self.partials {
            Some(p) => p,
            None => {
                let u32_t = scalar_type(&mut self.module, naga::Scalar::U32);
                let warps = self.kernel.threads.div_ceil(self.lanes);
                let size = NonZeroU32::new(warps).map_or(ArraySize::Dynamic, ArraySize::Constant);
                let ty = self.module.types.insert(
                    Type {
                        name: None,
                        inner: TypeInner::Array {
                            base: u32_t,
                            size,
                            stride: 4,
                        },
                    },
                    SP,
                );
                let p = self.module.global_variables.append(
                    GlobalVariable {
                        name: Some("warp_partials".into()),
                        space: AddressSpace::WorkGroup,
                        binding: None,
                        ty,
                        init: None,
                        memory_decorations: MemoryDecorations::empty(),
                    },
                    SP,
                );
                self.partials = Some(p);
                p
            }
        };
        let kind = match t {
            Scalar::F32 | Scalar::F16 => ScalarKind::Float,
            Scalar::I32 => ScalarKind::Sint,
            _ => ScalarKind::Uint,
        };
        let lane = self.lane(block);
        let zero = self.lit(block, Literal::I32(0));
        let first = self.binary(block, B::Equal, lane, zero);
        let thread = self.thread(block);
        let lanes = self.lit(block, Literal::I32(self.lanes as i32));
        let warp = self.binary(block, B::Divide, thread, lanes);
        let slot = self.bitcast(block, warp, ScalarKind::Uint);
        let base = self.add(block, E::GlobalVariable(partials));
        let pointer = self.add(block, E::Access { base, index: slot });
        let bits = self.bitcast(block, warp_value, ScalarKind::Uint);
        self.flush(block);
        let mut accept = Block::new();
        accept.push(
            St::Store {
                pointer,
                value: bits,
            },
            self.span,
        );
        block.push(
            St::If {
                condition: first,
                accept,
                reject: Block::new(),
            },
            self.span,
        );
        // A CTA reduction is a barrier for tensors too (the spec's), as `barrier()` is:
        // `workgroupBarrier()` orders workgroup memory only.
        block.push(
            St::ControlBarrier(Barrier::WORK_GROUP | Barrier::STORAGE),
            self.span,
        );
        let warps = self.kernel.threads.div_ceil(self.lanes) as usize;
        let width = warps.next_power_of_two();
        let mut values = Vec::new();
        for w in 0..width {
            let value = if w < warps {
                let base = self.add(block, E::GlobalVariable(partials));
                let pointer = self.add(
                    block,
                    E::AccessIndex {
                        base,
                        index: w as u32,
                    },
                );
                let raw = self.add(block, E::Load { pointer });
                self.bitcast(block, raw, kind)
            } else {
                self.constant(block, r.identity(t), t)
            };
            values.push(value);
        }
        let mut offset = width / 2;
        while offset > 0 {
            for i in 0..offset {
                values[i] = self.combine(block, r, values[i], values[i + offset]);
            }
            offset /= 2;
        }
        let total = values[0];
        // Keep the total in a local before the barrier that frees the slots for the next CTA
        // reduction, where there is one.
        self.flush(block);
        if !reduces_once(self.kernel) {
            block.push(St::ControlBarrier(Barrier::WORK_GROUP), self.span);
        }
        total
    }

    pub(super) fn shuffle(
        &mut self,
        block: &mut Block,
        ty: Scalar,
        kind: Shuffle,
        x: Operand,
        l: Operand,
    ) -> Handle<E> {
        self.uses_subgroups = true;
        let own = self.operand(block, x, ty);
        let arg = self.operand(block, l, Scalar::I32);
        let lane = self.lane(block);
        let source = match kind {
            Shuffle::Index | Shuffle::Broadcast => {
                let lanes = self.lit(block, Literal::I32(self.lanes as i32));
                // l mod lanes, always in 0..lanes.
                let m = self.binary(block, B::Modulo, arg, lanes);
                let wrapped = self.binary(block, B::Add, m, lanes);
                self.binary(block, B::Modulo, wrapped, lanes)
            }
            Shuffle::Xor => self.binary(block, B::ExclusiveOr, lane, arg),
            Shuffle::Up => self.binary(block, B::Subtract, lane, arg),
            Shuffle::Down => self.binary(block, B::Add, lane, arg),
        };
        // The lanes of this warp that hold a thread: all of them, except in a partial last warp.
        let thread = self.thread(block);
        let first_of_warp = self.binary(block, B::Subtract, thread, lane);
        let threads = self.lit(block, Literal::I32(self.kernel.threads as i32));
        let left = self.binary(block, B::Subtract, threads, first_of_warp);
        let lanes = self.lit(block, Literal::I32(self.lanes as i32));
        let present = self.add(
            block,
            E::Math {
                fun: MathFunction::Min,
                arg: left,
                arg1: Some(lanes),
                arg2: None,
                arg3: None,
            },
        );
        let source_u = self.bitcast(block, source, ScalarKind::Uint);
        let present_u = self.bitcast(block, present, ScalarKind::Uint);
        let exists = self.binary(block, B::Less, source_u, present_u);
        let lane_u = self.bitcast(block, lane, ScalarKind::Uint);
        let index = self.add(
            block,
            E::Select {
                condition: exists,
                accept: source_u,
                reject: lane_u,
            },
        );
        let t = scalar_type(&mut self.module, naga_scalar(ty));
        let result = self.add(block, E::SubgroupOperationResult { ty: t });
        self.push(
            block,
            St::SubgroupGather {
                mode: GatherMode::Shuffle(index),
                argument: own,
                result,
            },
        );
        self.add(
            block,
            E::Select {
                condition: exists,
                accept: result,
                reject: own,
            },
        )
    }
}

/// Whether the kernel's one CTA reduction is outside every loop: nothing writes the warps'
/// partials after it.
fn reduces_once(kernel: &Kernel) -> bool {
    let is_cta = |kind: &StmtKind| {
        matches!(
            kind,
            StmtKind::Let {
                op: ir::Op::Reduce(_, Over::Cta, ..),
                ..
            }
        )
    };
    let mut count = 0;
    kernel.visit(&mut |kind| count += usize::from(is_cta(kind)));
    count == 1 && kernel.body.iter().any(|s| is_cta(&s.kind))
}
