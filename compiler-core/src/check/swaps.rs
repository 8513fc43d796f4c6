//! A lint on the hierarchy's two kinds of number (E0407, a warning): an **index** says where a
//! thread is (`ctx.block.x`, `ctx.warp`, `ctx.thread`, `ctx.lane`), a **count** how many there
//! are (`ctx.blocks.x`, `ctx.warps`, `ctx.threads`, `ctx.lanes`). A linear index multiplies an
//! outer index by an inner count and adds an inner index (`ctx.block.x * ctx.threads +
//! ctx.thread`); a swap of the two spellings, one letter apart, reads as one of two shapes no
//! kernel means:
//! - an outer index times an inner index (`ctx.block.x * ctx.thread`): the count was meant;
//! - an outer count times an inner count, plus the inner index, in a sum with no outer index
//!   (`ctx.blocks.x * ctx.threads + ctx.thread`): the outer index was meant.
//!
//! In: a kernel's AST. Out: warnings at the swapped field, each with the other spelling as its
//! fix. Invariant: only those two shapes of `ctx` fields as written, nothing through a `let`,
//! so no kernel in the repository (the examples, the docs' kernels, the puzzles' answers) is
//! warned about, which a test holds (`compiler-core/tests/editing.rs`).

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::ir::CtxField;
use crate::syntax::ast::*;
use crate::syntax::ctx;

/// Which level a field is about, and whether it is that level's index or its count.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Block,
    Warp,
    Thread,
    Lane,
}

/// The outer and inner levels a linear index combines.
const NESTED: [(Level, Level); 3] = [
    (Level::Block, Level::Thread),
    (Level::Block, Level::Warp),
    (Level::Warp, Level::Lane),
];

#[derive(Clone, Copy)]
struct Field {
    level: Level,
    count: bool,
    field: CtxField,
}

fn field(expr: &Expr) -> Option<Field> {
    let ExprKind::Ctx(path) = &expr.kind else {
        return None;
    };
    let field = ctx::resolve(path, expr.span).ok()?;
    let (level, count) = match field {
        CtxField::Block(_) => (Level::Block, false),
        CtxField::Blocks(_) => (Level::Block, true),
        CtxField::Warp => (Level::Warp, false),
        CtxField::Warps => (Level::Warp, true),
        CtxField::Thread => (Level::Thread, false),
        CtxField::Threads => (Level::Thread, true),
        CtxField::Lane => (Level::Lane, false),
        CtxField::Lanes => (Level::Lane, true),
        CtxField::TensorCores => return None,
    };
    Some(Field {
        level,
        count,
        field,
    })
}

/// The other spelling: the count for an index, the index for a count.
fn other(field: CtxField) -> CtxField {
    match field {
        CtxField::Block(a) => CtxField::Blocks(a),
        CtxField::Blocks(a) => CtxField::Block(a),
        CtxField::Warp => CtxField::Warps,
        CtxField::Warps => CtxField::Warp,
        CtxField::Thread => CtxField::Threads,
        CtxField::Threads => CtxField::Thread,
        CtxField::Lane => CtxField::Lanes,
        CtxField::Lanes => CtxField::Lane,
        CtxField::TensorCores => CtxField::TensorCores,
    }
}

/// A field and where it is written.
type Written<'a> = (Field, &'a Expr);

/// `a * b` with both operands `ctx` fields, outer first.
fn product(expr: &Expr) -> Option<(Written<'_>, Written<'_>)> {
    let ExprKind::Binary(BinaryOp::Mul, a, b) = &expr.kind else {
        return None;
    };
    let (fa, fb) = (field(a)?, field(b)?);
    if NESTED.contains(&(fa.level, fb.level)) {
        Some(((fa, a), (fb, b)))
    } else if NESTED.contains(&(fb.level, fa.level)) {
        Some(((fb, b), (fa, a)))
    } else {
        None
    }
}

pub(super) fn lint(body: &Block, out: &mut Vec<Diagnostic>) {
    let mut exprs = Vec::new();
    statements(&body.stmts, &mut exprs);
    for expr in exprs {
        visit(expr, out);
    }
}

pub(super) fn statements<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Expr>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Let { value, .. } | StmtKind::Expr(value) | StmtKind::Return(Some(value)) => {
                out.push(value)
            }
            StmtKind::Assign { target, value, .. } => out.extend([target, value]),
            StmtKind::If {
                condition,
                then_block,
                else_branch,
            } => {
                out.push(condition);
                statements(&then_block.stmts, out);
                if let Some(branch) = else_branch {
                    statements(std::slice::from_ref(branch), out);
                }
            }
            StmtKind::Block(block) => statements(&block.stmts, out),
            StmtKind::While { condition, body } => {
                out.push(condition);
                statements(&body.stmts, out);
            }
            StmtKind::For { range, body, .. } => {
                out.push(range);
                statements(&body.stmts, out);
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Error => {}
        }
    }
}

/// The terms of a chain of `+` (`a + b + c`: three).
fn terms<'a>(expr: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &expr.kind {
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            terms(a, out);
            terms(b, out);
        }
        _ => out.push(expr),
    }
}

fn reads_index_of(expr: &Expr, level: Level) -> bool {
    if let Some(f) = field(expr) {
        return f.level == level && !f.count;
    }
    expr.children()
        .into_iter()
        .any(|e| reads_index_of(e, level))
}

fn visit(expr: &Expr, out: &mut Vec<Diagnostic>) {
    if let Some(((outer, _), (inner, at))) = product(expr) {
        if !outer.count && !inner.count {
            out.push(swapped(
                at,
                inner.field,
                format!(
                    "{} * {} multiplies two indices",
                    outer.field.name(),
                    inner.field.name()
                ),
                "a linear index multiplies an index by a count",
            ));
        }
    }
    if matches!(expr.kind, ExprKind::Binary(BinaryOp::Add, ..)) {
        let mut sum = Vec::new();
        terms(expr, &mut sum);
        for term in &sum {
            let Some(((outer, at), (inner, _))) = product(term) else {
                continue;
            };
            let plus_inner = sum
                .iter()
                .any(|t| field(t).is_some_and(|f| f.level == inner.level && !f.count));
            let outer_index = sum.iter().any(|t| reads_index_of(t, outer.level));
            if outer.count && inner.count && plus_inner && !outer_index {
                out.push(swapped(
                    at,
                    outer.field,
                    format!(
                        "{} * {} + {} is the same for every CTA's thread",
                        outer.field.name(),
                        inner.field.name(),
                        other(inner.field).name()
                    ),
                    "a linear index multiplies the outer index by the inner count",
                ));
            }
        }
        for term in sum {
            visit(term, out);
        }
        return;
    }
    for child in expr.children() {
        visit(child, out);
    }
}

fn swapped(at: &Expr, written: CtxField, message: String, why: &str) -> Diagnostic {
    let meant = other(written);
    Diagnostic {
        severity: Severity::Warning,
        ..Diagnostic::error(Code::E0407, at.span, message)
    }
    .with_label(format!(
        "{} here: did you mean {}?",
        written.name(),
        meant.name()
    ))
    .with_fix(
        format!(
            "{why}: write {} (the names are one letter apart)",
            meant.name()
        ),
        at.span,
        meant.name(),
    )
}
