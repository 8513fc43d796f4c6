//! A lint on slices at a tensor's edge (E0408, a warning). A slice (`A[r :+ 16, k :+ 16]`, in a
//! tile copy or store, `mma_load_a`, `mma_load_b` or `mma_store`) reads an element outside the
//! tensor as 0 and drops a store there, per axis of the tensor's shape: a column past a row's
//! end is outside, never the next row's element. That is what a kernel at the ragged edge of
//! its data wants; but where the checker can see it, a slice of a tensor of literal extents at
//! a literal start that reaches past them is more likely a mistake, so it says which indices.
//!
//! In: a kernel's AST. Out: a warning at each such slice, naming the axis, the indices outside
//! and the tensor's shape. Invariant: only literal starts and literal extents, nothing through
//! a `let` or a launch's dimensions, so a kernel whose slices are all inside is never warned.

use super::swaps::statements;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::syntax::ast::*;
use std::collections::HashMap;

/// Each tensor parameter's extents, `None` where the launch gives it.
type Shapes<'a> = HashMap<&'a str, Vec<Option<u64>>>;

pub(super) fn lint(kernel: &Kernel, out: &mut Vec<Diagnostic>) {
    let shapes: Shapes = kernel
        .params
        .iter()
        .filter_map(|param| match &param.ty {
            TypeExpr::Tensor { dims, .. } => Some((
                param.name.name.as_str(),
                dims.iter()
                    .map(|d| match d {
                        Dim::Literal(n, _) => *n,
                        _ => None,
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    if shapes.is_empty() {
        return;
    }
    let mut exprs = Vec::new();
    statements(&kernel.body.stmts, &mut exprs);
    for expr in exprs {
        visit(expr, &shapes, out);
    }
}

/// A literal integer, negated or not.
fn literal(expr: &Expr) -> Option<i128> {
    match &expr.kind {
        ExprKind::Int(Some(n)) => Some(i128::from(*n)),
        ExprKind::Unary(UnaryOp::Neg, x) => literal(x).map(|n| -n),
        _ => None,
    }
}

fn visit(expr: &Expr, shapes: &Shapes, out: &mut Vec<Diagnostic>) {
    if let ExprKind::Index { base, indices } = &expr.kind {
        if let ExprKind::Name(name) = &base.kind {
            if let Some(shape) = shapes
                .get(name.as_str())
                .filter(|s| s.len() == indices.len())
            {
                let outside: Vec<String> = indices
                    .iter()
                    .zip(shape)
                    .enumerate()
                    .filter_map(|(axis, (index, extent))| {
                        let IndexArg::Tile { start, length } = index else {
                            return None;
                        };
                        let (start, length, extent) =
                            (literal(start)?, literal(length)?, i128::from((*extent)?));
                        let last = start + length - 1;
                        if start >= 0 && last < extent {
                            return None;
                        }
                        let (below, above) = ((start < 0), (last >= extent));
                        let span = |from: i128, to: i128| match from == to {
                            true => format!("{from}"),
                            false => format!("{from} to {to}"),
                        };
                        let mut ranges = Vec::new();
                        if below {
                            ranges.push(span(start, (-1).min(last)));
                        }
                        if above {
                            ranges.push(span(extent.max(start), last));
                        }
                        let one = ranges.len() == 1 && !ranges[0].contains(" to ");
                        Some(format!(
                            "{} {}",
                            axis_name(axis, shape.len(), one),
                            ranges.join(" and ")
                        ))
                    })
                    .collect();
                if !outside.is_empty() {
                    let extents: Vec<String> = shape
                        .iter()
                        .map(|e| e.map_or("?".into(), |e| e.to_string()))
                        .collect();
                    out.push(
                        Diagnostic {
                            severity: Severity::Warning,
                            ..Diagnostic::error(
                                Code::E0408,
                                expr.span,
                                format!(
                                    "this slice reaches {} of `{name}`, whose shape is [{}]: those elements load as 0 and are not stored",
                                    outside.join(", "),
                                    extents.join(", ")
                                ),
                            )
                        }
                        .with_label("partly outside the tensor")
                        .with_help("a slice reads outside its tensor as 0 and drops its stores there, axis by axis; if the edge is meant, nothing is wrong, else move the start or shorten the slice"),
                    );
                }
            }
        }
    }
    for child in expr.children() {
        visit(child, shapes, out);
    }
}

/// "rows", "columns", "indices of axis 2"; "row" and so on for `one` index.
fn axis_name(axis: usize, rank: usize, one: bool) -> String {
    let (name, names) = match (rank, axis) {
        (1, _) => ("element", "elements"),
        (2, 0) => ("row", "rows"),
        (2, 1) => ("column", "columns"),
        _ => ("index", "indices"),
    };
    let name = if one { name } else { names };
    match rank {
        1 | 2 => name.to_owned(),
        _ => format!("{name} of axis {axis}"),
    }
}
