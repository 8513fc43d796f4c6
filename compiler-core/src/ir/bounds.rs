//! Loops whose trips a constant bounds, so the loop guard needs no counter in them.
//!
//! In: a kernel. Out: the counting loops (`for x in range(start, end, step)` as `lower.rs`
//! writes it, and the tiles' cooperative loops) whose `end` is a constant, whose `start` is a
//! constant or a `ctx` index (at least 0) and whose `step` is a positive constant or a `ctx`
//! count (at least 1), each with its bound, `end - start`. The counter is assigned by its
//! start and its step alone, and the bounds by one statement each, so the bound holds
//! whatever the body does (a `break` only ends it sooner).
//!
//! The backends' loop guard (`wgsl/guard.rs`) counts no trips in a loop whose bound is within
//! its budget: a hand-written kernel has no such counter, and in a tiled transpose it cost
//! a fifth of the kernel's time on lavapipe (issue 55).

use super::{BinaryOp, CompareOp, CtxField, Kernel, Op, Operand, Stmt, StmtKind, UnaryOp};
use std::collections::HashMap;

/// A loop statement, by address: the kernel is borrowed while its code is built.
pub type LoopId = usize;

pub fn id(stmt: &Stmt) -> LoopId {
    std::ptr::from_ref(stmt) as LoopId
}

/// Each counting loop a constant bounds, with its bound in trips.
pub fn trip_bounds(kernel: &Kernel) -> HashMap<LoopId, i64> {
    let mut defs: Vec<Vec<Option<Op>>> = vec![Vec::new(); kernel.regs.len()];
    kernel.visit(&mut |kind| {
        let (dst, op) = match kind {
            StmtKind::Let { dst, op } => (Some(*dst), Some(op.clone())),
            // An atomic's old value: no operation to read a bound from.
            StmtKind::Atomic(atomic) => (atomic.dst, None),
            _ => (None, None),
        };
        if let Some(d) = dst.and_then(|d| defs.get_mut(d.0 as usize)) {
            d.push(op);
        }
    });
    let mut bounds = HashMap::new();
    visit(&kernel.body, &Defs(defs), &mut bounds);
    bounds
}

/// Each register's assignments, in the order of the code (`None`: an atomic's).
struct Defs(Vec<Vec<Option<Op>>>);

impl Defs {
    /// The one statement that assigns `operand`'s register.
    fn single(&self, operand: Operand) -> Option<&Op> {
        match operand {
            Operand::Reg(r) => match self.0.get(r.0 as usize)?.as_slice() {
                [Some(op)] => Some(op),
                _ => None,
            },
            Operand::Const(_) => None,
        }
    }

    /// An `i32` operand's value, where it is a constant.
    fn exact(&self, operand: Operand) -> Option<i64> {
        match operand {
            Operand::Const(bits) => Some(i64::from(bits as i32)),
            Operand::Reg(_) => match self.single(operand)? {
                Op::Copy(x) => self.exact(*x),
                _ => None,
            },
        }
    }

    /// The least value an `i32` operation can give, where a constant or `ctx` bounds it.
    fn lowest(&self, op: &Op) -> Option<i64> {
        match op {
            Op::Copy(Operand::Const(bits)) => Some(i64::from(*bits as i32)),
            Op::Copy(x) => self.lowest(self.single(*x)?),
            Op::Ctx(CtxField::Thread | CtxField::Lane | CtxField::Warp | CtxField::Block(_)) => {
                Some(0)
            }
            Op::Ctx(
                CtxField::Threads | CtxField::Lanes | CtxField::Warps | CtxField::Blocks(_),
            ) => Some(1),
            _ => None,
        }
    }

    /// Whether a step is at least 1.
    fn positive(&self, step: Operand) -> bool {
        match step {
            Operand::Const(_) => self.exact(step).is_some_and(|s| s >= 1),
            Operand::Reg(_) => self
                .single(step)
                .and_then(|op| self.lowest(op))
                .is_some_and(|s| s >= 1),
        }
    }
}

fn visit(stmts: &[Stmt], defs: &Defs, bounds: &mut HashMap<LoopId, i64>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                visit(then_block, defs, bounds);
                visit(else_block, defs, bounds);
            }
            StmtKind::Loop { body, continuing } => {
                if let Some(bound) = counting_bound(body, continuing, defs) {
                    bounds.insert(id(stmt), bound);
                }
                visit(body, defs, bounds);
                visit(continuing, defs, bounds);
            }
            _ => {}
        }
    }
}

/// `loop { running = counter < end; stop = !running; if stop { break } … } continuing {
/// counter = counter + step }`, with the counter assigned by its start and that step alone.
fn counting_bound(body: &[Stmt], continuing: &[Stmt], defs: &Defs) -> Option<i64> {
    let [Stmt {
        kind:
            StmtKind::Let {
                dst: counter,
                op: Op::Binary(BinaryOp::Add, _, Operand::Reg(again), step),
            },
        ..
    }] = continuing
    else {
        return None;
    };
    let [first, second, third, ..] = body else {
        return None;
    };
    let (
        StmtKind::Let {
            dst: running,
            op: Op::Compare(CompareOp::Lt, _, Operand::Reg(compared), end),
        },
        StmtKind::Let {
            dst: stop,
            op: Op::Unary(UnaryOp::Not, _, Operand::Reg(negated)),
        },
        StmtKind::If {
            condition: Operand::Reg(tested),
            then_block,
            else_block,
        },
    ) = (&first.kind, &second.kind, &third.kind)
    else {
        return None;
    };
    let exits = matches!(
        then_block.as_slice(),
        [Stmt {
            kind: StmtKind::Break,
            ..
        }]
    );
    if again != counter
        || compared != counter
        || negated != running
        || tested != stop
        || !exits
        || !else_block.is_empty()
        || !defs.positive(*step)
    {
        return None;
    }
    // The counter's two assignments: its start, and the step in `continuing`.
    let [Some(start), Some(stepped)] = defs.0.get(counter.0 as usize)?.as_slice() else {
        return None;
    };
    let start = match stepped {
        Op::Binary(BinaryOp::Add, ..) => start,
        _ => stepped,
    };
    let end = defs.exact(*end)?;
    Some((end - defs.lowest(start)?).max(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounds of a kernel's loops, in the order of the code.
    fn bounds(body: &str) -> Vec<Option<i64>> {
        let source = format!(
            "@launch(64)\nkernel k(X: tensor<f32>[N], T: tensor<f32>[64, 64]) {{\n{body}\n}}\n"
        );
        let compilation = crate::compile(&source);
        let kernel = match compilation.kernel(None) {
            Ok(kernel) => kernel,
            Err(diagnostics) => panic!("{diagnostics:#?}"),
        };
        let found = trip_bounds(kernel);
        fn walk(stmts: &[Stmt], found: &HashMap<LoopId, i64>, loops: &mut Vec<Option<i64>>) {
            for stmt in stmts {
                match &stmt.kind {
                    StmtKind::Loop { body, continuing } => {
                        loops.push(found.get(&id(stmt)).copied());
                        walk(body, found, loops);
                        walk(continuing, found, loops);
                    }
                    StmtKind::If {
                        then_block,
                        else_block,
                        ..
                    } => {
                        walk(then_block, found, loops);
                        walk(else_block, found, loops);
                    }
                    _ => {}
                }
            }
        }
        let mut loops = Vec::new();
        walk(&kernel.body, &found, &mut loops);
        loops
    }

    #[test]
    fn constant_ends_bound_counting_loops() {
        assert_eq!(
            bounds("  for k in range(200) {\n    X[k] = 1.0\n  }"),
            [Some(200)]
        );
        assert_eq!(
            bounds("  for k in range(5, 20, 3) {\n    X[0] = 1.0\n  }"),
            [Some(15)]
        );
        assert_eq!(
            bounds("  for e in range(ctx.thread, 1024, ctx.threads) {\n    X[e] = 1.0\n  }"),
            [Some(1024)]
        );
        // A tile's cooperative loop: 64 x 64 elements from `ctx.thread`.
        assert_eq!(
            bounds("  var t = T[0 :+ 64, 0 :+ 64]\n  X[0] = t[1, 2]"),
            [Some(4096)]
        );
    }

    #[test]
    fn other_loops_keep_their_trip_count() {
        // A dimension, a step that may be negative or zero, a start of no known least value.
        assert_eq!(bounds("  for k in range(N) {\n    X[k] = 1.0\n  }"), [None]);
        assert_eq!(
            bounds("  for k in range(0, 64, N - 3) {\n    X[0] = 1.0\n  }"),
            [None]
        );
        assert_eq!(
            bounds("  for k in range(N - 100, 64) {\n    X[0] = 1.0\n  }"),
            [None]
        );
        assert_eq!(
            bounds("  var i = 0\n  while i < 10 {\n    i += 1\n  }"),
            [None]
        );
    }
}
