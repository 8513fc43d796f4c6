//! The lowering's shared vocabulary: the [`Lowering`] state (scopes, registers, the blocks
//! being built, the calls being inlined), what a name is bound to ([`Binding`]), and the few
//! operations every part of the lowering uses (a register, an emitted statement, a nested block,
//! a guarded block). `lower` (statements), `expressions`, `tiles`, `calls` and `arrays` build on
//! it; it imports none of them, so the arrows run one way.

use super::*;
use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::ast::{self, StmtKind as AstStmt, TypeExpr};
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Copy)]
pub(super) enum Binding {
    Reg(Reg, Scalar),
    Tensor(usize),
    Scalar(usize, Scalar),
    Dim(usize),
    /// A tile: the index of its shared array.
    Tile(usize),
    /// A per-thread array: its index in `Kernel::locals`.
    Local(usize),
    /// A constant: an unrolled loop's variable.
    Const(u32, Scalar),
}

pub(super) struct Lowering {
    pub(super) params: Vec<Param>,
    pub(super) shared: Vec<SharedArray>,
    pub(super) locals: Vec<LocalArray>,
    /// The tiles the source reads or writes by element (`t[i, j]`), which padding may help.
    pub(super) indexed_tiles: Vec<bool>,
    /// The tiles bound to a name (`reuse.rs` merges only the others).
    pub(super) named_tiles: Vec<bool>,
    /// The first matrix operation lowered (`Kernel::matrix`).
    pub(super) matrix: Option<Span>,
    /// The first `mma` lowered (`Kernel::mma`).
    pub(super) mma: Option<Span>,
    pub(super) dims: Vec<String>,
    pub(super) derived: Vec<DerivedDim>,
    pub(super) regs: Vec<RegInfo>,
    pub(super) scopes: Vec<HashMap<String, Binding>>,
    pub(super) blocks: Vec<Block>,
    pub(super) threads: u32,
    pub(super) unsupported: Vec<Diagnostic>,
    /// How many source loops enclose the statement being lowered.
    pub(super) loop_depth: u32,
    /// The source statement being lowered ([`Stmt::statement`]).
    pub(super) statement: Span,
    /// The file's functions, which calls inline.
    pub(super) functions: Rc<[ast::Function]>,
    /// The calls being inlined, innermost last.
    pub(super) inlined: Vec<Inlined>,
}

pub(super) fn scalar_of(ty: &TypeExpr) -> Scalar {
    match ty {
        TypeExpr::Named(name) => Scalar::from_name(&name.name).unwrap_or(Scalar::I32),
        TypeExpr::Tensor { element, .. } | TypeExpr::Tile { element, .. } => {
            Scalar::element_from_name(&element.name).unwrap_or(Scalar::F32)
        }
        TypeExpr::Error(_) => Scalar::I32,
    }
}

/// What a step of the trace highlights for `stmt`: a loop's or an `if`'s header, or the
/// statement whole.
pub(super) fn header(stmt: &ast::Stmt) -> Span {
    match &stmt.kind {
        AstStmt::If { condition, .. } | AstStmt::While { condition, .. } => {
            Span::new(stmt.span.start, condition.span.end)
        }
        AstStmt::For { range, .. } => Span::new(stmt.span.start, range.span.end),
        _ => stmt.span,
    }
}

pub(super) fn constant(value: f64, ty: Scalar) -> Operand {
    Operand::Const(ty.bits(value))
}

pub(super) fn binary_op(op: ast::BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        ast::BinaryOp::Add => BinaryOp::Add,
        ast::BinaryOp::Sub => BinaryOp::Sub,
        ast::BinaryOp::Mul => BinaryOp::Mul,
        ast::BinaryOp::Div => BinaryOp::Div,
        ast::BinaryOp::Rem => BinaryOp::Rem,
        ast::BinaryOp::Shl => BinaryOp::Shl,
        ast::BinaryOp::Shr => BinaryOp::Shr,
        ast::BinaryOp::BitAnd => BinaryOp::And,
        ast::BinaryOp::BitOr => BinaryOp::Or,
        ast::BinaryOp::BitXor => BinaryOp::Xor,
        _ => return None,
    })
}

/// A call being inlined.
pub(super) struct Inlined {
    /// Where `return value` writes; none where the only `return` is the last statement.
    pub(super) result: Option<(Reg, Scalar)>,
    /// The result type, and the operand the last statement returned, when it is the only one.
    pub(super) tail: Option<(Scalar, Option<Operand>)>,
    /// Whether the body runs inside a one-trip loop.
    pub(super) wrapped: bool,
    /// Set by a `return` inside one of the body's loops.
    pub(super) done: Option<Reg>,
    /// `loop_depth` where the body starts.
    pub(super) loop_base: u32,
}

impl Lowering {
    pub(super) fn not_yet(&mut self, span: Span, what: &str) {
        self.unsupported.push(
            Diagnostic::error(Code::E0501, span, format!("{what} cannot run yet"))
                .with_label("not supported by this version's simulator and back ends")
                .with_help(
                    "the checker accepts it; running it arrives with the tile-level lowering",
                ),
        );
    }

    pub(super) fn mark_indexed(&mut self, array: usize) {
        if self.indexed_tiles.len() <= array {
            self.indexed_tiles.resize(array + 1, false);
        }
        self.indexed_tiles[array] = true;
    }

    pub(super) fn bind(&mut self, name: &str, binding: Binding) {
        if let Binding::Tile(array) = binding {
            if self.named_tiles.len() <= array {
                self.named_tiles.resize(array + 1, false);
            }
            self.named_tiles[array] = true;
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_owned(), binding);
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// A register for a source variable (with its name) or a temporary (without).
    pub(super) fn reg(&mut self, ty: Scalar, name: Option<&str>) -> Reg {
        self.push_reg(ty, name, name.is_some())
    }

    /// A register the lowering names for the IR's reader: a tile statement's counter or sum.
    pub(super) fn internal_reg(&mut self, ty: Scalar, name: &str) -> Reg {
        self.push_reg(ty, Some(name), false)
    }

    pub(super) fn push_reg(&mut self, ty: Scalar, name: Option<&str>, variable: bool) -> Reg {
        self.regs.push(RegInfo {
            ty,
            name: name.map(str::to_owned),
            variable,
            high_of: None,
        });
        Reg(self.regs.len() as u32 - 1)
    }

    pub(super) fn emit(&mut self, kind: StmtKind, span: Span) {
        if let Some(block) = self.blocks.last_mut() {
            block.push(Stmt {
                kind,
                span,
                statement: self.statement,
            });
        }
    }

    /// `dst = op` into a new register.
    pub(super) fn value(&mut self, op: Op, ty: Scalar, span: Span) -> Operand {
        let dst = self.reg(ty, None);
        self.emit(StmtKind::Let { dst, op }, span);
        Operand::Reg(dst)
    }

    /// The block statements are being emitted into.
    pub(super) fn current_block(&mut self) -> Option<&mut Block> {
        self.blocks.last_mut()
    }

    pub(super) fn nested(&mut self, f: impl FnOnce(&mut Self)) -> Block {
        self.blocks.push(Vec::new());
        self.scopes.push(HashMap::new());
        f(self);
        self.scopes.pop();
        self.blocks.pop().unwrap_or_default()
    }

    /// `if condition { body }`, with no else.
    pub(super) fn when(&mut self, condition: Operand, span: Span, body: impl FnOnce(&mut Self)) {
        let then_block = self.nested(body);
        self.emit(
            StmtKind::If {
                condition,
                then_block,
                else_block: Vec::new(),
            },
            span,
        );
    }

    /// `if condition { break }`: the innermost loop ends when it holds.
    pub(super) fn break_if(&mut self, condition: Operand, span: Span) {
        let brk = Stmt {
            kind: StmtKind::Break,
            span,
            statement: self.statement,
        };
        self.emit(
            StmtKind::If {
                condition,
                then_block: vec![brk],
                else_block: Vec::new(),
            },
            span,
        );
    }
}
