//! Induction pointers: the global accesses of a counting loop whose address moves by the same
//! number of bytes on every trip, so the PTX can keep a 64-bit pointer per access and add to it,
//! instead of recomputing `base + 4 * flat_index` each time.
//!
//! In: one IR `Loop`. Out: its induction register and step, and the accesses to rewrite.
//! Invariants: the induction register is assigned once in the loop, as the whole `continuing`
//! block `iv = iv + step`, with `step` not assigned in the loop; an access qualifies when every
//! index is a constant, the induction register, or a register the loop never assigns, so its
//! flat index is `entry_index + trips * step * stride`. Why this is exact although Tessera's
//! `i32` arithmetic wraps: the pointer starts at the entry index computed in 64 bits and moves
//! by `step * stride` computed in 64 bits, so at every trip it is the base plus the true
//! (unwrapped) flat index; an in-bounds flat index is below 2^31 (a tensor holds at most 2^26
//! elements), where the 32-bit index other accesses use agrees with it. The entry index itself
//! may be far outside the tensor (a range that starts negative, under a guard), which is why it
//! is not computed in 32 bits: it would wrap, and the pointer would never wrap back.

use crate::ir::{BinaryOp, Block, Op, Operand, Reg, StmtKind};
use std::collections::HashSet;

/// `iv = iv + step`, the only statement of the loop's `continuing` block.
pub(super) struct Induction {
    pub iv: Reg,
    pub step: Operand,
}

/// An unguarded global access: `tensor[indices]`.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Access {
    pub tensor: usize,
    pub indices: Vec<Operand>,
}

pub(super) fn counting_induction(body: &Block, continuing: &Block) -> Option<Induction> {
    let [stmt] = continuing.as_slice() else {
        return None;
    };
    let StmtKind::Let {
        dst,
        op: Op::Binary(BinaryOp::Add, _, Operand::Reg(from), step),
    } = &stmt.kind
    else {
        return None;
    };
    let mut assigned = HashSet::new();
    collect_assigned(body, &mut assigned);
    let step_is_invariant = match step {
        Operand::Reg(r) => !assigned.contains(r) && r != dst,
        Operand::Const(_) => true,
    };
    (from == dst && !assigned.contains(dst) && step_is_invariant).then_some(Induction {
        iv: *dst,
        step: *step,
    })
}

/// The distinct accesses in `body` (nested blocks included) that move with `induction`.
pub(super) fn strided_accesses(
    body: &Block,
    continuing: &Block,
    induction: &Induction,
) -> Vec<Access> {
    let mut assigned = HashSet::new();
    collect_assigned(body, &mut assigned);
    collect_assigned(continuing, &mut assigned);
    let mut found = Vec::new();
    visit_accesses(body, &mut |tensor, indices| {
        let moves = indices.contains(&Operand::Reg(induction.iv));
        let others_fixed = indices.iter().all(|i| match i {
            Operand::Reg(r) => *r == induction.iv || !assigned.contains(r),
            Operand::Const(_) => true,
        });
        let access = Access {
            tensor,
            indices: indices.to_vec(),
        };
        if moves && others_fixed && !found.contains(&access) {
            found.push(access);
        }
    });
    found
}

fn collect_assigned(block: &Block, assigned: &mut HashSet<Reg>) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Let { dst, .. } => {
                assigned.insert(*dst);
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                collect_assigned(then_block, assigned);
                collect_assigned(else_block, assigned);
            }
            StmtKind::Loop { body, continuing } => {
                collect_assigned(body, assigned);
                collect_assigned(continuing, assigned);
            }
            _ => {}
        }
    }
}

fn visit_accesses(block: &Block, visit: &mut impl FnMut(usize, &[Operand])) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Let {
                op:
                    Op::Load {
                        tensor,
                        indices,
                        guarded: false,
                    },
                ..
            }
            | StmtKind::Store {
                tensor,
                indices,
                guarded: false,
                ..
            } => visit(*tensor, indices),
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                visit_accesses(then_block, visit);
                visit_accesses(else_block, visit);
            }
            StmtKind::Loop { body, continuing } => {
                visit_accesses(body, visit);
                visit_accesses(continuing, visit);
            }
            _ => {}
        }
    }
}
