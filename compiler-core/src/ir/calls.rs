//! Calls of the file's functions, inlined: the IR has no calls.
//!
//! In: a call the checker accepted (arity, argument types, no recursion). Out: the function's
//! body lowered in place, in a scope of its own that holds only its parameters: a scalar
//! argument is copied into a register named by its parameter; a tensor or tile parameter is
//! the argument itself (by reference), and a tensor parameter's extent names are the
//! argument's extents. The statements keep the function's spans, so the stepper marks the
//! function's lines and the memory view counts per line of the function.
//!
//! A scalar argument that is a temporary becomes the parameter's register (named by it), and a
//! variable's register is the parameter itself (the function cannot assign either); only a
//! constant is copied. So a call costs what the pasted code costs.
//!
//! `return`: a function whose only `return` is its last statement is pasted as is, and the
//! call's value is the returned operand. Returns at the ends of `if` branches are pasted as is
//! too: where a branch always returns, the statements after the `if` go into its other branch
//! (`if c { return a }; rest` is `if c { return a } else { rest }`), so every `return` ends
//! its path and writes the result register. Any other body (a `return` inside a loop, or in
//! an `if` whose branches both fall through) runs inside a one-trip `Loop`, where `return` is a
//! `break` out of it; a `return` inside one of the body's own loops also sets a flag, and each
//! such loop is followed by `if flag { break }`, so the `return` leaves loop by loop. Control
//! stays structured.

use super::lowering::{scalar_of, Binding, Inlined, Lowering};
use super::*;
use crate::syntax::ast::{self, ExprKind, StmtKind as AstStmt, TypeExpr};
use std::collections::HashMap;

/// Calls nested deeper than this are not inlined (the checker refuses recursion first).
const MAX_INLINE_DEPTH: usize = 64;

/// How many `return`s `stmts` hold, and whether one is inside a loop.
fn returns(stmts: &[ast::Stmt], in_loop: bool, found: &mut (usize, bool)) {
    for stmt in stmts {
        match &stmt.kind {
            AstStmt::Return(_) => {
                found.0 += 1;
                found.1 |= in_loop;
            }
            AstStmt::If {
                then_block,
                else_branch,
                ..
            } => {
                returns(&then_block.stmts, in_loop, found);
                if let Some(branch) = else_branch {
                    returns(std::slice::from_ref(&**branch), in_loop, found);
                }
            }
            AstStmt::Block(block) => returns(&block.stmts, in_loop, found),
            AstStmt::While { body, .. } | AstStmt::For { body, .. } => {
                returns(&body.stmts, true, found)
            }
            _ => {}
        }
    }
}

/// Whether `stmts` end every path in a `return` (the checker's rule for a function's result).
fn always_returns(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        AstStmt::Return(_) => true,
        AstStmt::If {
            then_block,
            else_branch: Some(branch),
            ..
        } => always_returns(&then_block.stmts) && always_returns(std::slice::from_ref(&**branch)),
        _ => false,
    })
}

fn has_return(stmt: &ast::Stmt) -> bool {
    let mut found = (0, false);
    returns(std::slice::from_ref(stmt), false, &mut found);
    found.0 > 0
}

/// An `if` branch as statements: a block's, or an `else if`'s one.
fn branch(stmt: &ast::Stmt) -> &[ast::Stmt] {
    match &stmt.kind {
        AstStmt::Block(block) => &block.stmts,
        _ => std::slice::from_ref(stmt),
    }
}

/// Whether every `return` in `stmts` ends its path once the statements after an `if` with a
/// branch that always returns move into its other branch (what [`Lowering::paste`] does).
fn structured(stmts: &[ast::Stmt]) -> bool {
    for (i, stmt) in stmts.iter().enumerate() {
        if !has_return(stmt) {
            continue;
        }
        let last = i + 1 == stmts.len();
        match &stmt.kind {
            AstStmt::Return(_) => return last,
            AstStmt::If {
                then_block,
                else_branch,
                ..
            } => {
                let other = else_branch.as_deref().map_or(&[][..], branch);
                if !structured(&then_block.stmts) || !structured(other) {
                    return false;
                }
                if last {
                    return true;
                }
                let (a, b) = (always_returns(&then_block.stmts), always_returns(other));
                if a == b {
                    return false;
                }
                // The rest joins the branch that falls through, and must be structured there.
                return structured(&stmts[i + 1..]);
            }
            _ => return false,
        }
    }
    true
}

/// Whether a loop's body holds a `return`.
pub(super) fn loop_returns(body: &ast::Block) -> bool {
    let mut found = (0, false);
    returns(&body.stmts, true, &mut found);
    found.0 > 0
}

impl Lowering {
    /// The file's function of this name, if a call names one.
    pub(super) fn function(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name.name == name)
    }

    /// The result type of function `index`, if it has one.
    pub(super) fn result_type(&self, index: usize) -> Option<Scalar> {
        self.functions[index].result.as_ref().map(scalar_of)
    }

    /// `f(args)`: the body in place; the result, or a zero for a function with none.
    pub(super) fn inline(
        &mut self,
        index: usize,
        args: &[ast::Expr],
        span: Span,
    ) -> (Operand, Scalar) {
        let functions = self.functions.clone();
        let function = &functions[index];
        let result_type = self.result_type(index);
        if self.inlined.len() >= MAX_INLINE_DEPTH {
            return (Operand::Const(0), result_type.unwrap_or(Scalar::I32));
        }
        let mut bindings: Vec<(String, Binding)> = Vec::new();
        for (param, arg) in function.params.iter().zip(args) {
            let name = param.name.name.clone();
            match &param.ty {
                TypeExpr::Tensor { dims, .. } => {
                    let tensor = match &arg.kind {
                        ExprKind::Name(n) => match self.lookup(n) {
                            Some(Binding::Tensor(t)) => t,
                            _ => continue,
                        },
                        _ => continue,
                    };
                    bindings.push((name, Binding::Tensor(tensor)));
                    let extents = match &self.params[tensor] {
                        Param::Tensor { dims, .. } => dims.clone(),
                        Param::Scalar { .. } => Vec::new(),
                    };
                    for (dim, extent) in dims.iter().zip(extents) {
                        let ast::Dim::Name(dim) = dim else {
                            continue;
                        };
                        if bindings.iter().any(|(n, _)| *n == dim.name) {
                            continue;
                        }
                        let binding = match extent {
                            DimRef::Dim(d) => Binding::Dim(d),
                            DimRef::Literal(n) => {
                                let reg = self.reg(Scalar::I32, Some(&dim.name));
                                self.emit(
                                    StmtKind::Let {
                                        dst: reg,
                                        op: Op::Copy(Operand::Const(n)),
                                    },
                                    arg.span,
                                );
                                Binding::Reg(reg, Scalar::I32)
                            }
                        };
                        bindings.push((dim.name.clone(), binding));
                    }
                }
                TypeExpr::Tile { .. } => {
                    if let Some(array) = self.tile(arg) {
                        bindings.push((name, Binding::Tile(array)));
                    }
                }
                ty => {
                    let ty = scalar_of(ty);
                    let (value, _) = self.expr(arg, Some(ty));
                    let reg = match value {
                        Operand::Reg(reg) => {
                            let info = &mut self.regs[reg.0 as usize];
                            if info.name.is_none() {
                                info.name = Some(name.clone());
                                info.variable = true;
                            }
                            reg
                        }
                        Operand::Const(_) => {
                            let reg = self.reg(ty, Some(&name));
                            self.emit(
                                StmtKind::Let {
                                    dst: reg,
                                    op: Op::Copy(value),
                                },
                                arg.span,
                            );
                            reg
                        }
                    };
                    bindings.push((name, Binding::Reg(reg, ty)));
                }
            }
        }
        let mut found = (0, false);
        returns(&function.body.stmts, false, &mut found);
        let tail = matches!(
            function.body.stmts.last().map(|s| &s.kind),
            Some(AstStmt::Return(_))
        );
        let single = found.0 == 1 && tail;
        let wrapped = found.1 || !structured(&function.body.stmts);
        let result = result_type.filter(|_| !single).map(|ty| {
            let reg = self.internal_reg(ty, &function.name.name);
            if wrapped {
                self.emit(
                    StmtKind::Let {
                        dst: reg,
                        op: Op::Copy(Operand::Const(0)),
                    },
                    span,
                );
            }
            (reg, ty)
        });
        let done = found.1.then(|| {
            let reg = self.internal_reg(Scalar::Bool, "returned");
            self.emit(
                StmtKind::Let {
                    dst: reg,
                    op: Op::Copy(Operand::Const(0)),
                },
                span,
            );
            reg
        });
        let scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        for (name, binding) in bindings {
            self.bind(&name, binding);
        }
        self.inlined.push(Inlined {
            result,
            tail: result_type.filter(|_| single).map(|ty| (ty, None)),
            wrapped,
            done,
            loop_base: self.loop_depth,
        });
        if wrapped {
            let body = self.nested(|l| {
                for stmt in &function.body.stmts {
                    l.stmt(stmt);
                }
                if !tail {
                    l.emit(StmtKind::Break, span);
                }
            });
            self.emit(
                StmtKind::Loop {
                    body,
                    continuing: Vec::new(),
                },
                span,
            );
        } else {
            self.paste(&function.body.stmts);
        }
        let frame = self.inlined.pop();
        self.scopes = scopes;
        match (result, frame.and_then(|f| f.tail)) {
            (Some((reg, ty)), _) => (Operand::Reg(reg), ty),
            (None, Some((ty, value))) => (value.unwrap_or(Operand::Const(0)), ty),
            (None, None) => (Operand::Const(0), Scalar::I32),
        }
    }

    /// A structured body's statements ([`structured`]): where an `if` has a branch that always
    /// returns, the statements after it are pasted into its other branch.
    fn paste(&mut self, stmts: &[ast::Stmt]) {
        for (i, stmt) in stmts.iter().enumerate() {
            let AstStmt::If {
                condition,
                then_block,
                else_branch,
            } = &stmt.kind
            else {
                self.stmt(stmt);
                continue;
            };
            if !has_return(stmt) {
                self.stmt(stmt);
                continue;
            }
            let rest = &stmts[i + 1..];
            let other = else_branch.as_deref().map_or(&[][..], branch);
            let then_returns = always_returns(&then_block.stmts);
            let outer = std::mem::replace(&mut self.statement, super::lowering::header(stmt));
            let (condition, _) = self.expr(condition, Some(Scalar::Bool));
            let then_block = self.nested(|l| {
                l.paste(&then_block.stmts);
                if !then_returns {
                    l.paste(rest);
                }
            });
            let else_block = self.nested(|l| {
                l.paste(other);
                if then_returns {
                    l.paste(rest);
                }
            });
            self.emit(
                StmtKind::If {
                    condition,
                    then_block,
                    else_block,
                },
                stmt.span,
            );
            self.statement = outer;
            return;
        }
    }

    /// `return` or `return value`: the kernel's own, or a break out of an inlined body.
    pub(super) fn return_(&mut self, value: Option<&ast::Expr>, span: Span) {
        let Some(frame) = self.inlined.last() else {
            self.emit(StmtKind::Return, span);
            return;
        };
        let (result, wrapped, done) = (frame.result, frame.wrapped, frame.done);
        let tail = frame.tail.map(|(ty, _)| ty);
        let in_loop = self.loop_depth > frame.loop_base;
        if let (Some(value), Some(ty)) = (value, tail) {
            let (value, _) = self.expr(value, Some(ty));
            if let Some(frame) = self.inlined.last_mut() {
                frame.tail = Some((ty, Some(value)));
            }
        }
        if let (Some(value), Some((reg, ty))) = (value, result) {
            let (value, _) = self.expr(value, Some(ty));
            self.emit(
                StmtKind::Let {
                    dst: reg,
                    op: Op::Copy(value),
                },
                span,
            );
        }
        if let (Some(done), true) = (done, in_loop) {
            self.emit(
                StmtKind::Let {
                    dst: done,
                    op: Op::Copy(Operand::Const(1)),
                },
                span,
            );
        }
        if wrapped {
            self.emit(StmtKind::Break, span);
        }
    }

    /// After a loop of an inlined body that holds a `return`: leave the next loop out too.
    pub(super) fn after_loop(&mut self, body: &ast::Block, span: Span) {
        let Some(done) = self.inlined.last().and_then(|f| f.done) else {
            return;
        };
        if !loop_returns(body) {
            return;
        }
        self.break_if(Operand::Reg(done), span);
    }
}
