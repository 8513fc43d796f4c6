//! `f16` arithmetic made explicit: each operation on `f16` values becomes the `f32` operation
//! and a cast of its result to `f16` (the spec's rule: computed in `f32`, rounded once to the
//! nearest `f16`).
//!
//! In: a lowered kernel, whose operations may name `f16`. Out: the same kernel in which no
//! operation does: each names `f32` instead, and where the `f32` result may not be an `f16`
//! (arithmetic, the approximate built-ins, `fma`, `pow`, a sum, a conversion from an integer),
//! the result goes to an `f32` temporary and a `Cast { from: F32, to: F16 }` rounds it into
//! the `f16` register. An integer converts through `f32`, which is exact for every integer an
//! `f16` holds finitely (below 2^24), so it too rounds once.
//!
//! Invariant: afterwards, `f16` appears only as a register's type (holding an `f16`'s value as
//! the `f32` of that value), a tensor's or tile's element type (two bytes in memory), and that
//! one cast, the rounding. So the rule lives here, once, and every target computes alike.

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
            _ => {}
        }
        // `widen` changes every operation on f16 (to name f32), and says which need rounding.
        let rounded = match &mut stmt.kind {
            StmtKind::Let { dst, op } => widen(op, regs[dst.0 as usize].ty).then_some(*dst),
            _ => None,
        };
        if let Some(dst) = rounded {
            let temporary = Reg(regs.len() as u32);
            regs.push(RegInfo {
                ty: Scalar::F32,
                name: None,
                variable: false,
                high_of: None,
            });
            let rounding = StmtKind::Let {
                dst,
                op: Op::Cast {
                    from: Scalar::F32,
                    to: Scalar::F16,
                    value: Operand::Reg(temporary),
                },
            };
            let mut wide = Stmt {
                kind: std::mem::replace(&mut stmt.kind, rounding),
                span: stmt.span,
                statement: stmt.statement,
            };
            if let StmtKind::Let { dst, .. } = &mut wide.kind {
                *dst = temporary;
            }
            block.push(wide);
        }
        block.push(stmt);
    }
}

/// Makes `op` (whose result has type `ty`) name `f32` where it names `f16`, and says whether
/// its result must then be rounded to an `f16`.
fn widen(op: &mut Op, ty: Scalar) -> bool {
    let f32_for = |t: &mut Scalar| {
        if *t == Scalar::F16 {
            *t = Scalar::F32;
        }
    };
    match op {
        Op::Binary(op, t, _, _) => {
            let was = *t;
            f32_for(t);
            was == Scalar::F16 && !matches!(op, BinaryOp::Min | BinaryOp::Max)
        }
        Op::Unary(_, t, _) | Op::Compare(_, t, _, _) => {
            f32_for(t);
            false
        }
        Op::Math(f, t, _) => {
            let was = *t;
            f32_for(t);
            was == Scalar::F16 && !exact_on_f16(*f)
        }
        Op::Reduce(r, _, t, _) => {
            let was = *t;
            f32_for(t);
            was == Scalar::F16 && *r == Reduce::Sum
        }
        Op::PrefixSum(t, _) => {
            let was = *t;
            f32_for(t);
            was == Scalar::F16
        }
        Op::Fma(..) | Op::Pow(..) => ty == Scalar::F16,
        Op::Cast { from, to, value } => {
            // To `f16` or `f32` from an `f16`: the value as it is.
            if *from == Scalar::F16 && to.is_float() {
                *op = Op::Copy(*value);
                return false;
            }
            f32_for(from);
            if *to == Scalar::F16 && *from != Scalar::F32 {
                *to = Scalar::F32;
                return true;
            }
            false
        }
        _ => false,
    }
}

fn exact_on_f16(f: MathFn) -> bool {
    matches!(
        f,
        MathFn::Abs | MathFn::Floor | MathFn::Ceil | MathFn::Round | MathFn::Trunc | MathFn::Sign
    )
}
