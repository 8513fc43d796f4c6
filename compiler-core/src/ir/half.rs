//! `f16` arithmetic made explicit: each operation on `f16` values becomes the `f32` operation
//! and a cast of its result to `f16` (the spec's rule: computed in `f32`, rounded once to the
//! nearest `f16`).
//!
//! In: a lowered kernel, whose operations may name `f16`. Out: the same kernel in which only
//! the operations exact on `f16` values still do (copies, moves between lanes, comparisons,
//! negation, `min`, `max`, `abs`, `floor`, `ceil`, `round`, `trunc`, `sign`, and the reductions
//! `max` and `min`); every other result is an `f32` temporary and a `Cast { from: F32, to: F16 }`.
//! An integer converts to `f16` through `f32`, which is exact for every integer an `f16`
//! holds finitely (below 2^24).
//!
//! Invariant: afterwards, the backends and the simulator meet `f16` only as a register that
//! holds an `f16`'s value as an `f32`, a memory element of two bytes, and that one cast,
//! the rounding; so the rule lives here, once, and every target computes alike.

use super::*;

/// Rewrites every block of `kernel` (see the module doc).
pub(super) fn explicit_rounding(kernel: &mut Kernel) {
    let mut body = std::mem::take(&mut kernel.body);
    rewrite(&mut body, &mut kernel.regs);
    kernel.body = body;
}

fn rewrite(block: &mut Block, regs: &mut Vec<RegInfo>) {
    let old = std::mem::take(block);
    for mut stmt in old {
        match &mut stmt.kind {
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                rewrite(then_block, regs);
                rewrite(else_block, regs);
            }
            StmtKind::Loop { body, continuing } => {
                rewrite(body, regs);
                rewrite(continuing, regs);
            }
            StmtKind::Let { dst, op } => {
                if let Some(wide) = in_f32(op, regs[dst.0 as usize].ty) {
                    let temporary = Reg(regs.len() as u32);
                    regs.push(RegInfo {
                        ty: Scalar::F32,
                        name: None,
                        variable: false,
                    });
                    let dst = *dst;
                    block.push(Stmt {
                        kind: StmtKind::Let {
                            dst: temporary,
                            op: wide,
                        },
                        span: stmt.span,
                        statement: stmt.statement,
                    });
                    stmt.kind = StmtKind::Let {
                        dst,
                        op: Op::Cast {
                            from: Scalar::F32,
                            to: Scalar::F16,
                            value: Operand::Reg(temporary),
                        },
                    };
                }
            }
            _ => {}
        }
        block.push(stmt);
    }
}

/// The `f32` operation whose result, rounded, is `op`'s, when `op` gives an `f16` (of type
/// `ty`) that is not exact on its operands; `None` when `op` may stay as it is.
fn in_f32(op: &Op, ty: Scalar) -> Option<Op> {
    const F16: Scalar = Scalar::F16;
    const F32: Scalar = Scalar::F32;
    Some(match *op {
        Op::Binary(
            op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem),
            F16,
            a,
            b,
        ) => Op::Binary(op, F32, a, b),
        Op::Math(f, F16, x) if !exact_on_f16(f) => Op::Math(f, F32, x),
        Op::Fma(a, b, c) if ty == F16 => Op::Fma(a, b, c),
        Op::Pow(x, y) if ty == F16 => Op::Pow(x, y),
        Op::Reduce(Reduce::Sum, over, F16, x) => Op::Reduce(Reduce::Sum, over, F32, x),
        Op::PrefixSum(F16, x) => Op::PrefixSum(F32, x),
        Op::Cast {
            from: from @ (Scalar::I32 | Scalar::U32 | Scalar::Bool),
            to: F16,
            value,
        } => Op::Cast {
            from,
            to: F32,
            value,
        },
        _ => return None,
    })
}

fn exact_on_f16(f: MathFn) -> bool {
    matches!(
        f,
        MathFn::Abs | MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::Trunc | MathFn::Sign
    )
}
