//! The eight `ctx` fields, and the mistakes in reading them that the hierarchy page lists.
//!
//! In: `ctx` paths and declared names from the AST. Out: a [`CtxField`], or a diagnostic
//! with exactly the page's meaning: `ctx` alone is read only through a field (E0110);
//! `ctx.block` needs an axis (E0111); `ctx.warp_size` is no field, the warp width is
//! `ctx.lanes` (E0112); `ctx` is reserved (E0113).

use super::ast::*;
use super::similar;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Axis, CtxField};
use crate::span::Span;

const FIELDS: &str =
    "ctx.blocks, ctx.block, ctx.threads, ctx.warps, ctx.lanes, ctx.warp, ctx.thread, ctx.lane";

/// What a CUDA programmer may reach for, and the ctx field that means it.
fn cuda_spelling(field: &str) -> Option<(&'static str, &'static str)> {
    Some(match field {
        "warp_size" | "warpSize" | "warpsize" => (
            "there is no such field; the warp width is ctx.lanes",
            "lanes",
        ),
        "threadIdx" | "thread_idx" | "tid" => (
            "there is no such field; the thread's index in its CTA is ctx.thread",
            "thread",
        ),
        "blockIdx" | "block_idx" | "bid" => (
            "there is no such field; the CTA's index is ctx.block.x (.y, .z)",
            "block",
        ),
        "blockDim" | "block_dim" => (
            "there is no such field; the CTA's thread count is ctx.threads",
            "threads",
        ),
        "gridDim" | "grid_dim" => (
            "there is no such field; the grid's extent is ctx.blocks.x (.y, .z)",
            "blocks",
        ),
        "laneid" | "lane_id" | "laneId" => (
            "there is no such field; the thread's index in its warp is ctx.lane",
            "lane",
        ),
        "warpid" | "warp_id" | "warpId" => (
            "there is no such field; the warp's index in the CTA is ctx.warp",
            "warp",
        ),
        _ => return None,
    })
}

pub fn resolve(path: &CtxPath, span: Span) -> Result<CtxField, Diagnostic> {
    let Some(first) = path.fields.first() else {
        return Err(
            Diagnostic::error(Code::E0110, span, "ctx is read only through a field")
                .with_label("ctx on its own is not a value")
                .with_help(format!("read one of its fields: {FIELDS}")),
        );
    };
    let field = match first.name.as_str() {
        "blocks" | "block" => return resolve_axis(path, first, span),
        "threads" => CtxField::Threads,
        "warps" => CtxField::Warps,
        "lanes" => CtxField::Lanes,
        "warp" => CtxField::Warp,
        "thread" => CtxField::Thread,
        "lane" => CtxField::Lane,
        other => {
            const NAMES: [&str; 8] = [
                "blocks", "block", "threads", "warps", "lanes", "warp", "thread", "lane",
            ];
            let (message, field) = match cuda_spelling(other) {
                Some((message, field)) => (message.to_owned(), Some(field)),
                None => (
                    format!("ctx has no field `{other}`"),
                    similar::closest(other, NAMES.into_iter()),
                ),
            };
            let error = Diagnostic::error(Code::E0112, first.span, message)
                .with_label("not a field of ctx");
            let help = format!("the fields are {FIELDS}");
            // A field with no axes replaces CUDA's `.x` too (`threadIdx.x` → `thread`).
            let replaced = match (field, path.fields.get(1)) {
                (Some("block" | "blocks"), _) | (_, None) => first.span,
                (_, Some(axis)) => first.span.to(axis.span),
            };
            return Err(match field {
                Some(field) => error.with_fix(help, replaced, field),
                None => error.with_help(help),
            });
        }
    };
    match path.fields.get(1) {
        None => Ok(field),
        Some(extra) => Err(Diagnostic::error(
            Code::E0114,
            span.to(extra.span),
            format!("{} has no axis: a CTA is one-dimensional", field.name()),
        )
        .with_label(format!("`.{}` is not a field of {}", extra.name, field.name()))
        .with_fix(
            format!(
                "write {}; ctx.thread is already the linear thread index, so the threadIdx.x % 32 trap cannot happen",
                field.name()
            ),
            span.to(extra.span),
            field.name(),
        )),
    }
}

fn resolve_axis(path: &CtxPath, first: &Ident, span: Span) -> Result<CtxField, Diagnostic> {
    let level = first.name.as_str();
    let build: fn(Axis) -> CtxField = if level == "block" {
        CtxField::Block
    } else {
        CtxField::Blocks
    };
    let axis = match path.fields.get(1).map(|a| a.name.as_str()) {
        Some("x") => Axis::X,
        Some("y") => Axis::Y,
        Some("z") => Axis::Z,
        Some(other) => {
            let at = path.fields.get(1).map_or(span, |a| a.span);
            return Err(Diagnostic::error(
                Code::E0111,
                at,
                format!("ctx.{level} has no axis `{other}`; its axes are x, y and z"),
            )
            .with_label("not an axis")
            .with_help(format!("as in ctx.{level}.x")));
        }
        None => {
            return Err(Diagnostic::error(
                Code::E0111,
                span,
                format!("ctx.{level} needs an axis, as in ctx.{level}.x"),
            )
            .with_label(format!("ctx.{level} is a 3-D index, not a number"))
            .with_help(format!(
                "write ctx.{level}.x, ctx.{level}.y or ctx.{level}.z"
            )));
        }
    };
    match path.fields.get(2) {
        None => Ok(build(axis)),
        Some(extra) => Err(Diagnostic::error(
            Code::E0112,
            extra.span,
            format!(
                "ctx.{level}.{} is a number and has no field `{}`",
                path.fields[1].name, extra.name
            ),
        )
        .with_label("not a field")),
    }
}

/// Reports every ill-formed `ctx` read and every declaration named `ctx` in the file.
pub fn check_file(file: &File, diagnostics: &mut Vec<Diagnostic>) {
    for kernel in &file.kernels {
        for param in &kernel.params {
            reserved(&param.name, diagnostics);
        }
        for attribute in &kernel.attributes {
            for arg in &attribute.args {
                expr(&arg.value, diagnostics);
            }
        }
        block(&kernel.body, diagnostics);
    }
    for function in &file.functions {
        for param in &function.params {
            reserved(&param.name, diagnostics);
        }
        block(&function.body, diagnostics);
    }
}

fn reserved(name: &Ident, diagnostics: &mut Vec<Diagnostic>) {
    if name.name == "ctx" {
        diagnostics.push(
            Diagnostic::error(Code::E0113, name.span, "ctx is reserved")
                .with_label("cannot be declared")
                .with_help("pick another name; ctx always names the launch hierarchy"),
        );
    }
}

fn block(block: &Block, diagnostics: &mut Vec<Diagnostic>) {
    for statement in &block.stmts {
        stmt(statement, diagnostics);
    }
}

fn stmt(statement: &Stmt, diagnostics: &mut Vec<Diagnostic>) {
    match &statement.kind {
        StmtKind::Let { name, value, .. } => {
            reserved(name, diagnostics);
            expr(value, diagnostics);
        }
        StmtKind::Assign { target, value, .. } => {
            expr(target, diagnostics);
            expr(value, diagnostics);
        }
        StmtKind::Expr(e) => expr(e, diagnostics),
        StmtKind::If {
            condition,
            then_block,
            else_branch,
        } => {
            expr(condition, diagnostics);
            block(then_block, diagnostics);
            if let Some(branch) = else_branch {
                stmt(branch, diagnostics);
            }
        }
        StmtKind::Block(b) => block(b, diagnostics),
        StmtKind::While { condition, body } => {
            expr(condition, diagnostics);
            block(body, diagnostics);
        }
        StmtKind::For { var, range, body } => {
            reserved(var, diagnostics);
            expr(range, diagnostics);
            block(body, diagnostics);
        }
        StmtKind::Return(Some(e)) => expr(e, diagnostics),
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Error => {}
    }
}

fn indices(list: &[IndexArg], diagnostics: &mut Vec<Diagnostic>) {
    for index in list {
        match index {
            IndexArg::Single(i) => expr(i, diagnostics),
            IndexArg::Tile { start, length } => {
                expr(start, diagnostics);
                expr(length, diagnostics);
            }
            IndexArg::Whole(_) => {}
        }
    }
}

fn expr(e: &Expr, diagnostics: &mut Vec<Diagnostic>) {
    match &e.kind {
        ExprKind::Ctx(path) => {
            if let Err(diagnostic) = resolve(path, e.span) {
                diagnostics.push(diagnostic);
            }
        }
        ExprKind::Unary(_, operand) => expr(operand, diagnostics),
        ExprKind::Binary(_, l, r) => {
            expr(l, diagnostics);
            expr(r, diagnostics);
        }
        ExprKind::Call { args, .. } | ExprKind::Bitcast { args, .. } => {
            args.iter().for_each(|a| expr(a, diagnostics))
        }
        ExprKind::Collective { over, args, .. } => {
            expr(over, diagnostics);
            args.iter().for_each(|a| expr(a, diagnostics));
        }
        ExprKind::Index {
            base,
            indices: list,
        } => {
            expr(base, diagnostics);
            indices(list, diagnostics);
        }
        ExprKind::Scratch { shape, fill, .. } | ExprKind::Array { shape, fill, .. } => {
            indices(shape, diagnostics);
            fill.iter().for_each(|a| expr(a, diagnostics));
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Name(_)
        | ExprKind::Error => {}
    }
}
