//! Per-thread arrays (`var acc = array<f32>[8](0.0)`) and the `for` loops unrolled for them.
//!
//! In: a checked array declaration, element access or store. Out: a [`LocalArray`] of the
//! kernel, filled element by element, and `LocalLoad`/`LocalStore` at a flat row-major index.
//! An index that is a constant expression (literals, and the variables of unrolled loops) is a
//! constant operand. A `for` loop with literal bounds, at most [`MAX_UNROLL`] trips and no
//! `break` or `continue` of its own, whose body indexes an array with its variable, is
//! unrolled: each trip's body is lowered with the variable a constant. [`mark_registers`]
//! then says which arrays only ever see constant indices: PTX keeps those in registers.

use super::lowering::{Binding, Lowering};
use super::*;
use crate::syntax::ast::{self, ExprKind, IndexArg, StmtKind as AstStmt};

/// The most trips of a `for` loop unrolled for an array.
pub const MAX_UNROLL: i64 = 64;

impl Lowering {
    /// `var name = array<E>[shape](fill)`: the array, every element `fill`.
    pub(super) fn local_array(&mut self, name: &str, value: &ast::Expr) -> Option<usize> {
        let ExprKind::Array {
            element,
            shape,
            fill,
        } = &value.kind
        else {
            return None;
        };
        let element = Scalar::from_name(&element.name)?;
        let shape: Vec<u32> = shape
            .iter()
            .map(|s| match s {
                IndexArg::Single(ast::Expr {
                    kind: ExprKind::Int(Some(n)),
                    ..
                }) => *n as u32,
                _ => 1,
            })
            .collect();
        let (fill, _) = self.expr(fill.first()?, Some(element));
        self.locals.push(LocalArray {
            name: name.to_owned(),
            element,
            shape,
            in_registers: true,
        });
        let array = self.locals.len() - 1;
        for at in 0..self.locals[array].len() {
            self.emit(
                StmtKind::LocalStore {
                    array,
                    index: Operand::Const(at as u32),
                    coordinates: Vec::new(),
                    value: fill,
                },
                value.span,
            );
        }
        Some(array)
    }

    /// The flat index of `indices` into array `array` (a constant where every coordinate
    /// is), and for a two-axis array each coordinate, which the simulator checks.
    pub(super) fn local_index(
        &mut self,
        array: usize,
        indices: &[IndexArg],
        span: Span,
    ) -> (Operand, Vec<Operand>) {
        let shape = self.locals[array].shape.clone();
        let mut coordinates = Vec::new();
        let mut flat = Operand::Const(0);
        for (axis, index) in indices.iter().enumerate() {
            let IndexArg::Single(e) = index else {
                continue;
            };
            let (coordinate, ty) = match self.static_int(e) {
                Some(n) => (Operand::Const(n as u32), Scalar::I32),
                None => self.index(e),
            };
            if shape.len() > 1 {
                coordinates.push(coordinate);
            }
            let stride = shape[axis + 1..].iter().product::<u32>();
            flat = match (flat, coordinate) {
                (Operand::Const(f), Operand::Const(c)) => {
                    Operand::Const(f.wrapping_add(c.wrapping_mul(stride)))
                }
                (flat, coordinate) => {
                    // A `u32` coordinate takes part in the `i32` arithmetic as the `i32` of
                    // its bits (its own value goes to `coordinates`, which faults name).
                    let coordinate = match (coordinate, ty) {
                        (Operand::Reg(_), Scalar::U32)
                            if stride != 1 || flat != Operand::Const(0) =>
                        {
                            self.value(
                                Op::Bitcast {
                                    from: Scalar::U32,
                                    to: Scalar::I32,
                                    value: coordinate,
                                },
                                Scalar::I32,
                                span,
                            )
                        }
                        _ => coordinate,
                    };
                    let scaled = match stride {
                        1 => coordinate,
                        _ => self.value(
                            Op::Binary(
                                BinaryOp::Mul,
                                Scalar::I32,
                                coordinate,
                                Operand::Const(stride),
                            ),
                            Scalar::I32,
                            span,
                        ),
                    };
                    match flat {
                        Operand::Const(0) => scaled,
                        _ => self.value(
                            Op::Binary(BinaryOp::Add, Scalar::I32, flat, scaled),
                            Scalar::I32,
                            span,
                        ),
                    }
                }
            };
        }
        (flat, coordinates)
    }

    /// The value of an integer expression known now: literals and constant bindings under
    /// `+ - * / % << >> & | ^` and unary `-`, as `i32` arithmetic (wrapping; `None` for a
    /// division by zero, which the run reports).
    pub(super) fn static_int(&self, e: &ast::Expr) -> Option<i32> {
        use ast::BinaryOp::*;
        match &e.kind {
            ExprKind::Int(Some(n)) => Some(*n as u32 as i32),
            ExprKind::Name(name) => match self.lookup(name)? {
                Binding::Const(bits, _) => Some(bits as i32),
                _ => None,
            },
            ExprKind::Unary(ast::UnaryOp::Neg, x) => Some(self.static_int(x)?.wrapping_neg()),
            ExprKind::Binary(op, l, r) => {
                let (a, b) = (self.static_int(l)?, self.static_int(r)?);
                Some(match op {
                    Add => a.wrapping_add(b),
                    Sub => a.wrapping_sub(b),
                    Mul => a.wrapping_mul(b),
                    Div => a.checked_div(b)?,
                    Rem => a.checked_rem(b)?,
                    Shl => a.wrapping_shl(b as u32 & 31),
                    Shr => a.wrapping_shr(b as u32 & 31),
                    BitAnd => a & b,
                    BitOr => a | b,
                    BitXor => a ^ b,
                    _ => return None,
                })
            }
            _ => None,
        }
    }

    /// The trips of `for var in range` to unroll: literal bounds, a few trips, no `break` or
    /// `continue` of its own, and an array indexed with `var` in its body.
    pub(super) fn unrolled_trips(
        &self,
        var: &ast::Ident,
        range: &ast::Expr,
        body: &ast::Block,
    ) -> Option<Vec<i32>> {
        let ExprKind::Call { args, .. } = &range.kind else {
            return None;
        };
        let bounds: Vec<i32> = args
            .iter()
            .map(|a| self.static_int(a))
            .collect::<Option<_>>()?;
        let (start, end, step) = match bounds.as_slice() {
            [end] => (0, *end, 1),
            [start, end] => (*start, *end, 1),
            [start, end, step] if *step != 0 => (*start, *end, *step),
            _ => return None,
        };
        let trips: Vec<i32> = (0..=MAX_UNROLL)
            .map(|k| start as i64 + k * step as i64)
            .take_while(|&i| {
                if step > 0 {
                    i < end as i64
                } else {
                    i > end as i64
                }
            })
            .map(|i| i as i32)
            .collect();
        if trips.len() as i64 > MAX_UNROLL
            || jumps(&body.stmts)
            || !self.indexes_array_with(&body.stmts, &var.name)
        {
            return None;
        }
        Some(trips)
    }

    /// Whether `stmts` index a per-thread array in scope with an index that names `var`.
    fn indexes_array_with(&self, stmts: &[ast::Stmt], var: &str) -> bool {
        let mut found = false;
        let mut visit = |e: &ast::Expr| {
            walk(e, &mut |e| {
                if let ExprKind::Index { base, indices } = &e.kind {
                    let local = matches!(&base.kind, ExprKind::Name(n) if matches!(self.lookup(n), Some(Binding::Local(_))));
                    let named = indices.iter().any(|i| match i {
                        IndexArg::Single(x) => x.names().iter().any(|n| n.name == var),
                        _ => false,
                    });
                    found |= local && named;
                }
            })
        };
        each_expr(stmts, &mut visit);
        found
    }

    /// A `for` loop's trips, each lowered with the variable bound to its value.
    pub(super) fn unroll(&mut self, var: &ast::Ident, trips: &[i32], body: &ast::Block) {
        self.loop_depth += 1;
        for &value in trips {
            let block = self.nested(|l| {
                l.bind(&var.name, Binding::Const(value as u32, Scalar::I32));
                for stmt in &body.stmts {
                    l.stmt(stmt);
                }
            });
            if let Some(current) = self.current_block() {
                current.extend(block);
            }
        }
        self.loop_depth -= 1;
    }
}

/// Whether `stmts` hold a `break` or `continue` that is not inside a loop of their own.
fn jumps(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        AstStmt::Break | AstStmt::Continue => true,
        AstStmt::If {
            then_block,
            else_branch,
            ..
        } => {
            jumps(&then_block.stmts)
                || else_branch
                    .as_deref()
                    .is_some_and(|b| jumps(std::slice::from_ref(b)))
        }
        AstStmt::Block(block) => jumps(&block.stmts),
        _ => false,
    })
}

/// `f` on every expression of `stmts`, nested blocks and loops included.
fn each_expr(stmts: &[ast::Stmt], f: &mut impl FnMut(&ast::Expr)) {
    for stmt in stmts {
        match &stmt.kind {
            AstStmt::Let { value, .. } | AstStmt::Expr(value) | AstStmt::Return(Some(value)) => {
                f(value)
            }
            AstStmt::Assign { target, value, .. } => {
                f(target);
                f(value);
            }
            AstStmt::If {
                condition,
                then_block,
                else_branch,
            } => {
                f(condition);
                each_expr(&then_block.stmts, f);
                if let Some(branch) = else_branch {
                    each_expr(std::slice::from_ref(&**branch), f);
                }
            }
            AstStmt::While { condition, body }
            | AstStmt::For {
                range: condition,
                body,
                ..
            } => {
                f(condition);
                each_expr(&body.stmts, f);
            }
            AstStmt::Block(block) => each_expr(&block.stmts, f),
            _ => {}
        }
    }
}

/// `f` on `e` and every subexpression.
fn walk(e: &ast::Expr, f: &mut impl FnMut(&ast::Expr)) {
    f(e);
    for child in e.children() {
        walk(child, f);
    }
}

/// Marks the arrays whose every access has a constant index: registers on PTX.
pub(super) fn mark_registers(kernel: &mut Kernel) {
    fn visit(block: &Block, dynamic: &mut Vec<bool>) {
        for stmt in block {
            match &stmt.kind {
                StmtKind::Let {
                    op: Op::LocalLoad { array, index, .. },
                    ..
                }
                | StmtKind::LocalStore { array, index, .. } => {
                    if matches!(index, Operand::Reg(_)) {
                        dynamic[*array] = true;
                    }
                }
                StmtKind::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    visit(then_block, dynamic);
                    visit(else_block, dynamic);
                }
                StmtKind::Loop { body, continuing } => {
                    visit(body, dynamic);
                    visit(continuing, dynamic);
                }
                _ => {}
            }
        }
    }
    let mut dynamic = vec![false; kernel.locals.len()];
    visit(&kernel.body, &mut dynamic);
    for (array, dynamic) in kernel.locals.iter_mut().zip(dynamic) {
        array.in_registers = !dynamic;
    }
}
