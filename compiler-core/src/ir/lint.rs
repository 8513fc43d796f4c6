//! Lints: kernels the checker accepts and the simulator may run to the intuitive answer, whose
//! results on a GPU rest on what no target promises: an order between CTAs.
//!
//! In: a lowered kernel. Out: warnings, each at the source it names. Two patterns, both about
//! a tensor atomic's old value (the only way CTAs of one launch observe each other):
//! - **A CTA that waits** (E0405): a loop whose every exit depends on what an atomic with
//!   unchanging operands reads in it (`while atomic_add(Flag[0], 0) == 0 {}`, a spin lock's
//!   compare-exchange). CTAs have no forward-progress guarantee: the CTA it waits for may not
//!   be running, and never start while this one holds its SM. A retry loop whose atomic's
//!   operands change each trip (a compare-exchange loop) makes progress and is not one.
//! - **A read that needs a fence** (E0406): a plain load of a tensor the kernel writes
//!   plainly, under control that depends on a tensor atomic's old value, or after a wait:
//!   message passing through relaxed atomics, the last CTA summing what the others wrote
//!   (CUDA's threadFenceReduction), a spin lock's critical section. Relaxed atomics order
//!   nothing else, and Tessera has no fence: the read may miss another CTA's write.
//!
//! Invariant: a warning never stops a run; each loop and each tensor is named once.

use super::*;
use crate::diagnostic::{Code, Diagnostic, Severity};
use std::collections::{HashMap, HashSet};

/// The lints' warnings for `kernel`, in source order.
pub fn lint(kernel: &Kernel) -> Vec<Diagnostic> {
    let tainted = tainted_registers(kernel);
    let mut plainly_written = HashSet::new();
    kernel.visit(&mut |kind| {
        if let StmtKind::Store { tensor, .. } = kind {
            plainly_written.insert(*tensor);
        }
    });
    let mut linter = Linter {
        kernel,
        tainted,
        plainly_written,
        reported: HashSet::new(),
        warnings: Vec::new(),
    };
    linter.block(&kernel.body, false);
    let mut warnings = linter.warnings;
    warnings.sort_by_key(|d| d.span.start);
    warnings
}

/// The registers whose value depends on a tensor atomic's old value, through any chain of
/// operations (to a fixed point: a `var` assigned in a loop may carry it back).
fn tainted_registers(kernel: &Kernel) -> HashSet<Reg> {
    let mut tainted = HashSet::new();
    loop {
        let before = tainted.len();
        kernel.visit(&mut |kind| match kind {
            StmtKind::Atomic(Atomic {
                dst: Some(dst),
                place: Place::Tensor { .. },
                ..
            }) => {
                tainted.insert(*dst);
            }
            StmtKind::Let { dst, op } if op_registers(op).iter().any(|r| tainted.contains(r)) => {
                tainted.insert(*dst);
            }
            _ => {}
        });
        if tainted.len() == before {
            return tainted;
        }
    }
}

/// The registers an operation reads.
fn op_registers(op: &Op) -> Vec<Reg> {
    let operands: Vec<Operand> = match op {
        Op::Copy(a)
        | Op::Unary(_, _, a)
        | Op::Math(_, _, a)
        | Op::Cast { value: a, .. }
        | Op::Bitcast { value: a, .. }
        | Op::Reduce(_, _, _, a)
        | Op::Vote(_, a)
        | Op::PrefixSum(_, a) => vec![*a],
        Op::LocalLoad {
            index, coordinates, ..
        } => [vec![*index], coordinates.clone()].concat(),
        Op::Binary(_, _, a, b) | Op::Compare(_, _, a, b) | Op::Pow(a, b) | Op::Shuffle(_, a, b) => {
            vec![*a, *b]
        }
        Op::Select(a, b, c) | Op::Fma(a, b, c) => vec![*a, *b, *c],
        Op::Load { indices, .. } | Op::SharedLoad { indices, .. } => indices.clone(),
        Op::Ctx(_) | Op::Dim(_) | Op::Scalar(_) | Op::ScalarHigh(_) | Op::Const64(_) => Vec::new(),
    };
    operands
        .into_iter()
        .filter_map(|o| match o {
            Operand::Reg(r) => Some(r),
            Operand::Const(_) => None,
        })
        .collect()
}

struct Linter<'k> {
    kernel: &'k Kernel,
    tainted: HashSet<Reg>,
    plainly_written: HashSet<usize>,
    /// Loops (by span) and tensors already warned about.
    reported: HashSet<(Code, usize)>,
    warnings: Vec<Diagnostic>,
}

impl Linter<'_> {
    fn is_tainted(&self, operand: Operand) -> bool {
        matches!(operand, Operand::Reg(r) if self.tainted.contains(&r))
    }

    /// Walks `stmts`, `observed` when control there depends on an atomic's old value; returns
    /// whether they held a wait, after which control depends on it too (control after an `if`
    /// on an atomic's old value does not: the threads reconverge there).
    fn block(&mut self, stmts: &[Stmt], mut observed: bool) -> bool {
        let mut waited = false;
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Let {
                    op: Op::Load { tensor, .. },
                    ..
                } if observed && self.plainly_written.contains(tensor) => {
                    self.needs_a_fence(*tensor, stmt.span);
                }
                StmtKind::If {
                    condition,
                    then_block,
                    else_block,
                } => {
                    let inner = observed || self.is_tainted(*condition);
                    if self.block(then_block, inner) | self.block(else_block, inner) {
                        (observed, waited) = (true, true);
                    }
                }
                StmtKind::Loop { body, continuing } => {
                    if self.is_wait(body, continuing) {
                        self.waits(stmt.statement);
                        (observed, waited) = (true, true);
                    }
                    if self.block(body, observed) | self.block(continuing, observed) {
                        (observed, waited) = (true, true);
                    }
                }
                _ => {}
            }
        }
        waited
    }

    /// Whether a loop only leaves when an atomic it makes with unchanging operands reads a
    /// value another CTA wrote: every exit is under a condition that depends on an atomic's
    /// old value, and one such atomic polls.
    fn is_wait(&self, body: &[Stmt], continuing: &[Stmt]) -> bool {
        let mut exits = Vec::new();
        exits_of(body, true, false, &self.tainted, &mut exits);
        exits_of(continuing, true, false, &self.tainted, &mut exits);
        if exits.is_empty() || exits.iter().any(|tainted| !tainted) {
            return false;
        }
        // Each register the loop assigns, with the operations that assign it (`None`: an
        // atomic's old value), and the loop's tensor atomics that read.
        let mut assigned: HashMap<Reg, Vec<Option<&Op>>> = HashMap::new();
        let mut atomics = Vec::new();
        for part in [body, continuing] {
            visit(part, &mut |kind| match kind {
                StmtKind::Let { dst, op } => assigned.entry(*dst).or_default().push(Some(op)),
                StmtKind::Atomic(atomic) => {
                    if let Some(dst) = atomic.dst {
                        assigned.entry(dst).or_default().push(None);
                        if matches!(atomic.place, Place::Tensor { .. }) {
                            atomics.push(atomic);
                        }
                    }
                }
                _ => {}
            });
        }
        // The registers whose value is the same on every trip: not assigned in the loop, or
        // assigned only by arithmetic on such registers (the index `b - 1` the condition
        // computes again each trip). A counter, `i = i + 1`, reads itself and is not.
        let mut same = HashSet::new();
        loop {
            let before = same.len();
            for (reg, ops) in &assigned {
                let pure = ops.iter().all(|op| {
                    op.is_some_and(|op| {
                        !matches!(
                            op,
                            Op::Load { .. }
                                | Op::SharedLoad { .. }
                                | Op::Reduce(..)
                                | Op::Vote(..)
                                | Op::PrefixSum(..)
                                | Op::Shuffle(..)
                        ) && op_registers(op)
                            .iter()
                            .all(|r| !assigned.contains_key(r) || same.contains(r))
                    })
                });
                if pure {
                    same.insert(*reg);
                }
            }
            if same.len() == before {
                break;
            }
        }
        let unchanging = |o: &Operand| match o {
            Operand::Reg(r) => !assigned.contains_key(r) || same.contains(r),
            Operand::Const(_) => true,
        };
        atomics.iter().any(|atomic| {
            let Place::Tensor { indices, .. } = &atomic.place else {
                return false;
            };
            indices.iter().all(unchanging)
                && unchanging(&atomic.value)
                && atomic.expected.as_ref().is_none_or(unchanging)
        })
    }

    fn waits(&mut self, span: Span) {
        if !self.reported.insert((Code::E0405, span.start)) {
            return;
        }
        self.warnings.push(
            warning(
                Code::E0405,
                span,
                "this loop waits for another thread: it leaves only when an atomic reads a value that another thread changes, and CTAs have no forward-progress guarantee (within a CTA, only barrier() waits)",
            )
            .with_label("may wait for ever: the CTA it waits for may not be running, and may not start while this one holds its place")
            .with_help("wait for another CTA only between launches (split the kernel where it waits into two launches of a program), and for another warp of the CTA only at barrier()"),
        );
    }

    fn needs_a_fence(&mut self, tensor: usize, span: Span) {
        if !self.reported.insert((Code::E0406, tensor)) {
            return;
        }
        let name = self.kernel.params.get(tensor).map_or("?", |p| p.name());
        self.warnings.push(
            warning(
                Code::E0406,
                span,
                format!("this read of `{name}` depends on an atomic's old value, but relaxed atomics order nothing else: it may not see what another CTA wrote to `{name}` before its atomic"),
            )
            .with_label(format!("may read `{name}` before another CTA's write reaches it"))
            .with_help("use a second launch: a program's launches are ordered (the last CTA's total is a second launch; see the grid level page)"),
        );
    }
}

fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        ..Diagnostic::error(code, span, message)
    }
}

/// Each exit of a loop (a `break` of this loop, or a `return`), and whether a condition it is
/// under depends on an atomic's old value. Inside a nested loop (`breaks` false) a `break`
/// leaves that loop only, and only `return`s count.
fn exits_of(
    stmts: &[Stmt],
    breaks: bool,
    under: bool,
    tainted: &HashSet<Reg>,
    exits: &mut Vec<bool>,
) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Return => exits.push(under),
            StmtKind::Break if breaks => exits.push(under),
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let inner = under || matches!(condition, Operand::Reg(r) if tainted.contains(r));
                exits_of(then_block, breaks, inner, tainted, exits);
                exits_of(else_block, breaks, inner, tainted, exits);
            }
            StmtKind::Loop { body, continuing } => {
                exits_of(body, false, under, tainted, exits);
                exits_of(continuing, false, under, tainted, exits);
            }
            _ => {}
        }
    }
}
