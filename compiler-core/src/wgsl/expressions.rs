//! Operations: each IR `Op` as naga expressions (arithmetic, comparisons, casts, math,
//! loads), handing collectives to `collectives`.

use super::*;

impl<'k> Builder<'k> {
    pub(super) fn op(&mut self, block: &mut Block, op: &ir::Op, ty: Scalar) -> Handle<E> {
        use ir::Op;
        match op {
            Op::Copy(a) => self.operand(block, *a, ty),
            Op::Ctx(field) => self.ctx(block, *field),
            Op::Dim(i) => {
                let member = self.dim_members[*i];
                self.uniform(block, member)
            }
            Op::Scalar(i) => {
                let member = self.scalar_members[*i].unwrap_or(0);
                self.uniform(block, member)
            }
            Op::Unary(u, t, a) => {
                let a = self.operand(block, *a, *t);
                let op = match u {
                    ir::UnaryOp::Neg => UnaryOperator::Negate,
                    ir::UnaryOp::Not => UnaryOperator::LogicalNot,
                    ir::UnaryOp::BitNot => UnaryOperator::BitwiseNot,
                };
                self.add(block, E::Unary { op, expr: a })
            }
            Op::Binary(b, t, x, y) => {
                let x = self.operand(block, *x, *t);
                let y = self.operand(block, *y, *t);
                let op = match b {
                    ir::BinaryOp::Add => B::Add,
                    ir::BinaryOp::Sub => B::Subtract,
                    ir::BinaryOp::Mul => B::Multiply,
                    ir::BinaryOp::Div => B::Divide,
                    ir::BinaryOp::Rem => B::Modulo,
                    ir::BinaryOp::And => B::And,
                    ir::BinaryOp::Or => B::InclusiveOr,
                    ir::BinaryOp::Xor => B::ExclusiveOr,
                    ir::BinaryOp::Shl | ir::BinaryOp::Shr => {
                        // WGSL shifts by a u32 count, taken modulo 32 as Tessera's is.
                        let count = self.bitcast(block, y, ScalarKind::Uint);
                        let op = if *b == ir::BinaryOp::Shl {
                            B::ShiftLeft
                        } else {
                            B::ShiftRight
                        };
                        return self.binary(block, op, x, count);
                    }
                    ir::BinaryOp::Min | ir::BinaryOp::Max => {
                        let fun = if *b == ir::BinaryOp::Min {
                            MathFunction::Min
                        } else {
                            MathFunction::Max
                        };
                        return self.add(
                            block,
                            E::Math {
                                fun,
                                arg: x,
                                arg1: Some(y),
                                arg2: None,
                                arg3: None,
                            },
                        );
                    }
                };
                self.binary(block, op, x, y)
            }
            Op::Compare(c, t, x, y) => {
                let x = self.operand(block, *x, *t);
                let y = self.operand(block, *y, *t);
                let op = match c {
                    ir::CompareOp::Lt => B::Less,
                    ir::CompareOp::Le => B::LessEqual,
                    ir::CompareOp::Gt => B::Greater,
                    ir::CompareOp::Ge => B::GreaterEqual,
                    ir::CompareOp::Eq => B::Equal,
                    ir::CompareOp::Ne => B::NotEqual,
                };
                self.binary(block, op, x, y)
            }
            Op::Select(c, a, b) => {
                let condition = self.operand(block, *c, Scalar::Bool);
                let accept = self.operand(block, *a, ty);
                let reject = self.operand(block, *b, ty);
                self.add(
                    block,
                    E::Select {
                        condition,
                        accept,
                        reject,
                    },
                )
            }
            Op::Fma(a, b, c) => {
                let (a, b, c) = (
                    self.operand(block, *a, ty),
                    self.operand(block, *b, ty),
                    self.operand(block, *c, ty),
                );
                self.add(
                    block,
                    E::Math {
                        fun: MathFunction::Fma,
                        arg: a,
                        arg1: Some(b),
                        arg2: Some(c),
                        arg3: None,
                    },
                )
            }
            Op::Math(f, t, a) => {
                let a = self.operand(block, *a, *t);
                if *t == Scalar::U32 {
                    return a;
                }
                let fun = match f {
                    ir::MathFn::Abs => MathFunction::Abs,
                    ir::MathFn::Sqrt => MathFunction::Sqrt,
                    ir::MathFn::Rsqrt => MathFunction::InverseSqrt,
                    ir::MathFn::Exp => MathFunction::Exp,
                    ir::MathFn::Exp2 => MathFunction::Exp2,
                    ir::MathFn::Log => MathFunction::Log,
                    ir::MathFn::Log2 => MathFunction::Log2,
                    ir::MathFn::Sin => MathFunction::Sin,
                    ir::MathFn::Cos => MathFunction::Cos,
                    ir::MathFn::Tanh => MathFunction::Tanh,
                    ir::MathFn::Floor => MathFunction::Floor,
                    ir::MathFn::Ceil => MathFunction::Ceil,
                };
                self.add(
                    block,
                    E::Math {
                        fun,
                        arg: a,
                        arg1: None,
                        arg2: None,
                        arg3: None,
                    },
                )
            }
            Op::Cast { from, to, value } => {
                let v = self.operand(block, *value, *from);
                if from == to {
                    return v;
                }
                self.convert(block, v, *to)
            }
            Op::Load {
                tensor,
                indices,
                guarded,
            } => {
                let element = self.kernel.params[*tensor].element();
                let (pointer, inside) = self.tensor_pointer(block, *tensor, indices, *guarded);
                let value = self.add(block, E::Load { pointer });
                match inside {
                    None => value,
                    // Reading outside is clamped by WGSL, so both sides may be evaluated.
                    Some(condition) => {
                        let zero = self.lit(block, literal(0, element));
                        self.add(
                            block,
                            E::Select {
                                condition,
                                accept: value,
                                reject: zero,
                            },
                        )
                    }
                }
            }
            Op::SharedLoad { array, indices } => {
                let pointer = self.shared_pointer(block, *array, indices);
                self.add(block, E::Load { pointer })
            }
            Op::Reduce(r, over, t, a) => {
                let a = self.operand(block, *a, *t);
                let warp = self.subgroup_reduce(block, *r, *t, a);
                match over {
                    Over::Warp => warp,
                    Over::Cta => self.cta_reduce(block, *r, *t, warp),
                }
            }
            Op::Vote(v, a) => {
                let predicate = self.operand(block, *a, Scalar::Bool);
                self.uses_subgroups = true;
                match v {
                    Vote::Any | Vote::All => {
                        let bool_t = scalar_type(&mut self.module, naga::Scalar::BOOL);
                        let result = self.add(block, E::SubgroupOperationResult { ty: bool_t });
                        let op = if *v == Vote::Any {
                            SubgroupOperation::Any
                        } else {
                            SubgroupOperation::All
                        };
                        self.push(
                            block,
                            St::SubgroupCollectiveOperation {
                                op,
                                collective_op: CollectiveOperation::Reduce,
                                argument: predicate,
                                result,
                            },
                        );
                        result
                    }
                    Vote::Ballot => {
                        let result = self.add(block, E::SubgroupBallotResult);
                        self.push(
                            block,
                            St::SubgroupBallot {
                                result,
                                predicate: Some(predicate),
                            },
                        );
                        self.add(
                            block,
                            E::AccessIndex {
                                base: result,
                                index: 0,
                            },
                        )
                    }
                }
            }
            Op::PrefixSum(t, a) => {
                let a = self.operand(block, *a, *t);
                self.uses_subgroups = true;
                let ty = scalar_type(&mut self.module, naga_scalar(*t));
                let result = self.add(block, E::SubgroupOperationResult { ty });
                self.push(
                    block,
                    St::SubgroupCollectiveOperation {
                        op: SubgroupOperation::Add,
                        collective_op: CollectiveOperation::InclusiveScan,
                        argument: a,
                        result,
                    },
                );
                result
            }
            Op::Shuffle(kind, x, l) => self.shuffle(block, ty, *kind, *x, *l),
        }
    }
}
