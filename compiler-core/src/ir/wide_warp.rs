//! A warp's collective of a 64-bit integer (`sum<over ctx.lane>(n)`, `min`, `max`, `and`, `or`,
//! `xor`, `prefix_sum`), lowered to shuffles, which move 64-bit values on every target (PTX
//! shuffles the two words; WGSL's split kernel does too), so no backend needs a 64-bit
//! collective of its own.
//!
//! In: the collective's name, the value's type and operand, in warp-uniform control (the
//! checker's rule). Out: the result's operand. A reduction combines down a tree to lane 0,
//! halving the distance from `ctx.lanes / 2`, a lane taking its partner only where that lane is
//! in the warp and holds a thread (a partial warp's missing lanes add nothing), then every lane
//! takes lane 0's result; a scan adds the value `k` lanes below, doubling `k`. Integers, so the
//! order of the combining changes nothing: the simulator's reduction gives the same bits.

use super::lowering::Lowering;
use super::*;

impl Lowering {
    pub(super) fn wide_warp_collective(
        &mut self,
        name: &str,
        ty: Scalar,
        value: Operand,
        span: Span,
    ) -> Operand {
        let i32_ = Scalar::I32;
        let acc = self.reg(ty, None);
        self.emit(
            StmtKind::Let {
                dst: acc,
                op: Op::Copy(value),
            },
            span,
        );
        let ctx = |l: &mut Self, field| l.value(Op::Ctx(field), i32_, span);
        let (lane, lanes) = (ctx(self, CtxField::Lane), ctx(self, CtxField::Lanes));
        let scan = name == "prefix_sum";
        let k = self.reg(i32_, None);
        let start = if scan {
            Op::Copy(Operand::Const(1))
        } else {
            Op::Binary(BinaryOp::Shr, i32_, lanes, Operand::Const(1))
        };
        self.emit(StmtKind::Let { dst: k, op: start }, span);
        let body = self.nested(|l| {
            let done = if scan {
                Op::Compare(CompareOp::Ge, i32_, Operand::Reg(k), lanes)
            } else {
                Op::Compare(CompareOp::Lt, i32_, Operand::Reg(k), Operand::Const(1))
            };
            let done = l.value(done, Scalar::Bool, span);
            l.break_if(done, span);
            let (kind, step) = if scan {
                (Shuffle::Up, BinaryOp::Shl)
            } else {
                (Shuffle::Down, BinaryOp::Shr)
            };
            let other = l.value(
                Op::Shuffle(kind, Operand::Reg(acc), Operand::Reg(k)),
                ty,
                span,
            );
            let has = if scan {
                Op::Compare(CompareOp::Ge, i32_, lane, Operand::Reg(k))
            } else {
                let source = l.value(
                    Op::Binary(BinaryOp::Add, i32_, lane, Operand::Reg(k)),
                    i32_,
                    span,
                );
                let in_warp = l.value(
                    Op::Compare(CompareOp::Lt, i32_, source, lanes),
                    Scalar::Bool,
                    span,
                );
                let thread = ctx(l, CtxField::Thread);
                let threads = ctx(l, CtxField::Threads);
                let partner = l.value(
                    Op::Binary(BinaryOp::Add, i32_, thread, Operand::Reg(k)),
                    i32_,
                    span,
                );
                let held = l.value(
                    Op::Compare(CompareOp::Lt, i32_, partner, threads),
                    Scalar::Bool,
                    span,
                );
                Op::Select(in_warp, held, Operand::Const(0))
            };
            let has = l.value(has, Scalar::Bool, span);
            let combine = match name {
                "min" => BinaryOp::Min,
                "max" => BinaryOp::Max,
                "and" => BinaryOp::And,
                "or" => BinaryOp::Or,
                "xor" => BinaryOp::Xor,
                _ => BinaryOp::Add,
            };
            let combined = l.value(Op::Binary(combine, ty, Operand::Reg(acc), other), ty, span);
            l.emit(
                StmtKind::Let {
                    dst: acc,
                    op: Op::Select(has, combined, Operand::Reg(acc)),
                },
                span,
            );
            l.emit(
                StmtKind::Let {
                    dst: k,
                    op: Op::Binary(step, i32_, Operand::Reg(k), Operand::Const(1)),
                },
                span,
            );
        });
        self.emit(
            StmtKind::Loop {
                body,
                continuing: Vec::new(),
            },
            span,
        );
        if scan {
            return Operand::Reg(acc);
        }
        self.value(
            Op::Shuffle(Shuffle::Broadcast, Operand::Reg(acc), Operand::Const(0)),
            ty,
            span,
        )
    }
}
