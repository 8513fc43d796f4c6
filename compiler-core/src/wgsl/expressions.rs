//! Operations: each IR `Op` as naga expressions (arithmetic, comparisons, casts, math,
//! loads), handing collectives to `collectives`.

use super::*;

impl<'k> Builder<'k> {
    /// The value of `op` computed from constants alone, the known constants among its
    /// operands included (temporaries assigned once from such an operation), as the simulator
    /// computes it. An operation of constants would otherwise be a WGSL constant expression,
    /// which the shader's compiler evaluates when it creates the shader and refuses where the
    /// result is NaN, infinite or out of its type's range (`0.0 / 0.0`, `3.0e38 * 10.0`,
    /// `2147483647 + 1`; issue 51), and whose run-time arithmetic a GPU may compute as if no
    /// float were NaN or infinite (WGSL allows it; lavapipe gave 0 for `-1.0 / 0.0` cast to
    /// `i32`). The spec's value is the simulator's.
    pub(super) fn folded(&self, op: &ir::Op) -> Option<u32> {
        use ir::Op;
        let c = |o: &Operand| match o {
            Operand::Reg(r) => self
                .constants
                .get(r.0 as usize)
                .copied()
                .flatten()
                .map_or(*o, Operand::Const),
            Operand::Const(_) => *o,
        };
        let op = match op {
            Op::Copy(a) => {
                return match c(a) {
                    Operand::Const(bits) => Some(bits),
                    Operand::Reg(_) => None,
                }
            }
            Op::Unary(u, t, a) => Op::Unary(*u, *t, c(a)),
            Op::Binary(b, t, x, y) => Op::Binary(*b, *t, c(x), c(y)),
            Op::Compare(k, t, x, y) => Op::Compare(*k, *t, c(x), c(y)),
            Op::Select(a, b, d) => Op::Select(c(a), c(b), c(d)),
            Op::Fma(a, b, d) => Op::Fma(c(a), c(b), c(d)),
            Op::Pow(x, y) => Op::Pow(c(x), c(y)),
            Op::Math(f, t, a) => Op::Math(*f, *t, c(a)),
            Op::Cast { from, to, value } => Op::Cast {
                from: *from,
                to: *to,
                value: c(value),
            },
            Op::Bitcast { from, to, value } => Op::Bitcast {
                from: *from,
                to: *to,
                value: c(value),
            },
            _ => return None,
        };
        crate::sim::fold(&op)
    }

    pub(super) fn op(&mut self, block: &mut Block, op: &ir::Op, ty: Scalar) -> Handle<E> {
        use ir::Op;
        match op {
            Op::Copy(a) => self.operand(block, *a, ty),
            // `ir::wide` leaves none.
            Op::Const64(bits) => self.constant(block, *bits as u32, ty),
            Op::Ctx(field) => self.ctx(block, *field),
            Op::Dim(i) => {
                let member = self.dim_members[*i];
                self.uniform(block, member)
            }
            Op::Scalar(i) => {
                let member = self.scalar_members[*i].unwrap_or(0);
                self.uniform(block, member)
            }
            Op::ScalarHigh(i) => {
                let member = self.scalar_members[*i].unwrap_or(0) + 1;
                self.uniform(block, member)
            }
            // WGSL has no `-` on u32; Tessera's wraps, as `0u - x` does.
            Op::Unary(ir::UnaryOp::Neg, Scalar::U32, a) => {
                let zero = self.constant(block, 0, Scalar::U32);
                let a = self.operand(block, *a, Scalar::U32);
                self.add(
                    block,
                    E::Binary {
                        op: B::Subtract,
                        left: zero,
                        right: a,
                    },
                )
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
                let y = match (b, *y) {
                    // WGSL refuses an integer division by a constant 0 when it creates the
                    // shader, even in a branch never taken; Tessera's is a run-time matter.
                    (ir::BinaryOp::Div | ir::BinaryOp::Rem, Operand::Const(0))
                        if t.is_integer() =>
                    {
                        self.run_time_constant(block, "zero", 0, *t)
                    }
                    // And a constant shift count of 32 or more: the spec's shifts take the
                    // count's low five bits, as WGSL's do at run time.
                    (ir::BinaryOp::Shl | ir::BinaryOp::Shr, Operand::Const(count)) => {
                        self.constant(block, count & 31, *t)
                    }
                    (_, y) => self.operand(block, y, *t),
                };
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
            Op::Math(ir::MathFn::Sign, t, a) => {
                let a = self.operand(block, *a, *t);
                self.sign(block, *t, a)
            }
            Op::Math(ir::MathFn::Erf, _, a) => {
                let a = self.operand(block, *a, Scalar::F32);
                self.erf(block, a)
            }
            Op::Pow(x, y) => {
                let (x, y) = (self.operand(block, *x, ty), self.operand(block, *y, ty));
                self.pow(block, x, y)
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
                    ir::MathFn::Round => MathFunction::Round,
                    ir::MathFn::Trunc => MathFunction::Trunc,
                    ir::MathFn::Sign | ir::MathFn::Erf => unreachable!("matched above"),
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
            Op::Bitcast { from, to, value } => {
                let v = self.operand(block, *value, *from);
                let kind = match to {
                    Scalar::F32 => ScalarKind::Float,
                    Scalar::I32 => ScalarKind::Sint,
                    _ => ScalarKind::Uint,
                };
                self.bitcast(block, v, kind)
            }
            Op::Cast { from, to, value } => {
                let v = self.operand(block, *value, *from);
                if from == to {
                    return v;
                }
                if *to == Scalar::F16 {
                    return self.round_to_half(block, v);
                }
                let converted = self.convert(block, v, *to);
                if from.is_float() && to.is_integer() {
                    return self.saturate(block, v, converted, *to);
                }
                converted
            }
            Op::Load {
                tensor,
                indices,
                guarded,
            } => {
                let element = self.kernel.params[*tensor].element();
                let (value, inside) = if is_packed(element) {
                    self.load_packed(block, *tensor, element, indices, *guarded)
                } else {
                    let (pointer, inside) = self.tensor_pointer(block, *tensor, indices, *guarded);
                    let atomic = self.atomic_tensors.contains(tensor);
                    (self.load_stored(block, pointer, element, atomic), inside)
                };
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
            // A constant index past the array's end (an unrolled copy that the simulator
            // stops at, E0518) reads 0: WGSL refuses a constant index outside a fixed-size
            // array, and checks nothing else, as for a tensor.
            Op::LocalLoad { array, index, .. } if self.outside_array(*array, *index) => {
                let element = self.kernel.locals[*array].element;
                self.operand(block, Operand::Const(0), element)
            }
            Op::LocalLoad { array, index, .. } => {
                let pointer = self.array_pointer(block, *array, *index);
                self.add(block, E::Load { pointer })
            }
            Op::SharedLoad { array, indices } => {
                let pointer = self.shared_pointer(block, *array, indices);
                let element = self.kernel.shared[*array].element;
                let atomic = self.atomic_arrays.contains(array);
                self.load_stored(block, pointer, element, atomic)
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

impl Builder<'_> {
    /// A float-to-integer cast as the spec has it, as the simulator and PTX's `cvt.rzi.sat` give
    /// it: at least 2^31 (2^32 for `u32`) gives the type's largest value, below its range the
    /// smallest, and NaN gives 0. WGSL alone gives the largest value that is also an `f32`
    /// (2147483520) and leaves NaN and the infinities to the implementation (lavapipe gave 0
    /// for `i32(-inf)`; issue 51's random kernels found it), so NaN and the infinities are
    /// told by their bits: a GPU compiler may assume no float is either (lavapipe folds
    /// `x != x`).
    fn saturate(
        &mut self,
        block: &mut Block,
        x: Handle<E>,
        converted: Handle<E>,
        to: Scalar,
    ) -> Handle<E> {
        let (limit, low, largest, least) = match to {
            Scalar::U32 => (4_294_967_296.0f32, 0.0f32, u32::MAX, 0),
            _ => (
                2_147_483_648.0f32,
                -2_147_483_648.0f32,
                i32::MAX as u32,
                i32::MIN as u32,
            ),
        };
        let limit = self.lit(block, Literal::F32(limit));
        let above = self.binary(block, B::GreaterEqual, x, limit);
        let low = self.lit(block, Literal::F32(low));
        let below = self.binary(block, B::Less, x, low);
        let largest = self.lit(block, literal(largest, to));
        let least = self.lit(block, literal(least, to));
        let select = |b: &mut Self, block: &mut Block, condition, accept, reject| {
            b.add(
                block,
                E::Select {
                    condition,
                    accept,
                    reject,
                },
            )
        };
        let clamped = select(self, block, above, largest, converted);
        let clamped = select(self, block, below, least, clamped);
        let bits = self.bitcast(block, x, ScalarKind::Uint);
        let magnitude_mask = self.lit(block, Literal::U32(0x7fff_ffff));
        let magnitude = self.binary(block, B::And, bits, magnitude_mask);
        let infinity = self.lit(block, Literal::U32(0x7f80_0000));
        let infinite = self.binary(block, B::Equal, magnitude, infinity);
        let sign = self.lit(block, Literal::U32(0x8000_0000));
        let negative = self.binary(block, B::GreaterEqual, bits, sign);
        let bound = select(self, block, negative, least, largest);
        let clamped = select(self, block, infinite, bound, clamped);
        let nan = self.binary(block, B::Greater, magnitude, infinity);
        let zero = self.lit(block, literal(0, to));
        select(self, block, nan, zero, clamped)
    }
}

/// The built-ins WGSL has no function for, or none that agrees with the simulator: `sign` (WGSL's
/// may keep a zero's sign and a NaN differs by driver), `erf` and `pow` (WGSL's is undefined for
/// a negative base). Each is the PTX writer's sequence, in selects rather than predicates.
impl Builder<'_> {
    pub(super) fn math(
        &mut self,
        block: &mut Block,
        fun: MathFunction,
        args: &[Handle<E>],
    ) -> Handle<E> {
        let arg = |i: usize| args.get(i).copied();
        self.add(
            block,
            E::Math {
                fun,
                arg: args[0],
                arg1: arg(1),
                arg2: arg(2),
                arg3: None,
            },
        )
    }

    pub(super) fn select(
        &mut self,
        block: &mut Block,
        condition: Handle<E>,
        accept: Handle<E>,
        reject: Handle<E>,
    ) -> Handle<E> {
        self.add(
            block,
            E::Select {
                condition,
                accept,
                reject,
            },
        )
    }

    pub(super) fn f32(&mut self, block: &mut Block, value: f32) -> Handle<E> {
        self.constant(block, value.to_bits(), Scalar::F32)
    }

    fn sign(&mut self, block: &mut Block, ty: Scalar, x: Handle<E>) -> Handle<E> {
        let zero = self.constant(block, 0, ty);
        let one = match ty {
            Scalar::F32 => self.f32(block, 1.0),
            _ => self.constant(block, 1, ty),
        };
        let above = self.binary(block, B::Greater, x, zero);
        if ty == Scalar::U32 {
            return self.select(block, above, one, zero);
        }
        let minus_one = match ty {
            Scalar::I32 => self.constant(block, (-1i32) as u32, ty),
            _ => self.f32(block, -1.0),
        };
        let below = self.binary(block, B::Less, x, zero);
        // A float's zero (either sign) gives +0; a NaN, compared false to everything, stays.
        let is_zero = self.binary(block, B::Equal, x, zero);
        let rest = self.select(block, is_zero, zero, x);
        let rest = self.select(block, below, minus_one, rest);
        self.select(block, above, one, rest)
    }

    fn erf(&mut self, block: &mut Block, x: Handle<E>) -> Handle<E> {
        use crate::sim::{ERF_LARGE, ERF_SMALL, ERF_SPLIT};
        let t = self.math(block, MathFunction::Abs, &[x]);
        let s = self.binary(block, B::Multiply, x, x);
        let [a, b, c, d, e, f, g] = ERF_LARGE;
        let fma = |w: &mut Self, block: &mut Block, p: Handle<E>, q: Handle<E>, k: f32| {
            let k = w.f32(block, k);
            w.math(block, MathFunction::Fma, &[p, q, k])
        };
        let a = self.f32(block, a);
        let r = fma(self, block, t, a, b);
        let c = self.f32(block, c);
        let u = fma(self, block, t, c, d);
        let mut r = self.math(block, MathFunction::Fma, &[r, s, u]);
        for k in [e, f, g] {
            r = fma(self, block, r, t, k);
        }
        let minus_t = self.add(
            block,
            E::Unary {
                op: naga::UnaryOperator::Negate,
                expr: t,
            },
        );
        let r = self.math(block, MathFunction::Fma, &[r, t, minus_t]);
        let r = self.math(block, MathFunction::Exp, &[r]);
        let one = self.f32(block, 1.0);
        let r = self.binary(block, B::Subtract, one, r);
        let minus_r = self.add(
            block,
            E::Unary {
                op: naga::UnaryOperator::Negate,
                expr: r,
            },
        );
        let zero = self.f32(block, 0.0);
        let negative = self.binary(block, B::Less, x, zero);
        let large = self.select(block, negative, minus_r, r);
        let first = self.f32(block, ERF_SMALL[0]);
        let mut q = fma(self, block, s, first, ERF_SMALL[1]);
        for k in &ERF_SMALL[2..] {
            q = fma(self, block, q, s, *k);
        }
        let small = self.math(block, MathFunction::Fma, &[q, x, x]);
        let split = self.f32(block, ERF_SPLIT);
        let is_large = self.binary(block, B::Greater, t, split);
        self.select(block, is_large, large, small)
    }

    fn pow(&mut self, block: &mut Block, x: Handle<E>, y: Handle<E>) -> Handle<E> {
        let magnitude = self.math(block, MathFunction::Abs, &[x]);
        let r = self.math(block, MathFunction::Pow, &[magnitude, y]);
        let whole = self.math(block, MathFunction::Trunc, &[y]);
        let fraction = self.binary(block, B::NotEqual, whole, y);
        let half = self.f32(block, 0.5);
        let h = self.binary(block, B::Multiply, y, half);
        let h_whole = self.math(block, MathFunction::Trunc, &[h]);
        let odd = self.binary(block, B::NotEqual, h_whole, h);
        let minus_r = self.add(
            block,
            E::Unary {
                op: naga::UnaryOperator::Negate,
                expr: r,
            },
        );
        let signed = self.select(block, odd, minus_r, r);
        let nan = self.constant(block, 0x7FFF_FFFF, Scalar::F32);
        let of_negative = self.select(block, fraction, nan, signed);
        let zero = self.f32(block, 0.0);
        let negative = self.binary(block, B::Less, x, zero);
        let r = self.select(block, negative, of_negative, r);
        let one = self.f32(block, 1.0);
        let y_zero = self.binary(block, B::Equal, y, zero);
        let x_one = self.binary(block, B::Equal, x, one);
        let is_one = self.binary(block, B::LogicalOr, y_zero, x_one);
        self.select(block, is_one, one, r)
    }
}
