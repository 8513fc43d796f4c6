//! Lowering: a checked AST to the IR.
//!
//! In: a file the checker accepted (no errors). Out: the IR [`Module`], or a list of what
//! this version cannot lower yet (tile operations, `f16`), each with its span.
//! Invariant: untyped literals get the type of the operation they appear in (i32 / f32 by
//! default), exactly as the checker typed them.
//!
//! Here: kernels, scopes, registers and statements. Beside it: `expressions` (each expression,
//! and the type untyped literals take) and `tiles` (tile operations and the CTA scan).

use super::lowering::{binary_op, header, scalar_of, Binding, Lowering};
use super::*;
use crate::check::Checked;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{self, ExprKind, IndexArg, StmtKind as AstStmt, TypeExpr};
use crate::syntax::ctx;
use std::collections::HashMap;
use std::rc::Rc;

/// Lowers every kernel of a checked file. Call only when the checker reported no errors.
pub fn lower(file: &ast::File, checked: &Checked) -> Result<Module, Vec<Diagnostic>> {
    let mut module = Module::default();
    let mut unsupported = Vec::new();
    let functions: Rc<[ast::Function]> = file.functions.clone().into();
    for (kernel, info) in file.kernels.iter().zip(&checked.kernels) {
        let Some(threads) = info.threads else {
            continue;
        };
        let mut lowering = Lowering::new(kernel, threads, functions.clone());
        lowering.kernel_body(kernel);
        if lowering.unsupported.is_empty() {
            let mut lowered = lowering.finish(kernel);
            lowered.cluster = info.cluster.as_ref().and_then(|(dim, size)| {
                let dim = lowered.dims.iter().position(|d| d == dim)?;
                Some(Cluster { dim, size: *size })
            });
            module.kernels.push(lowered);
        } else {
            unsupported.append(&mut lowering.unsupported);
        }
    }
    for program in &file.programs {
        // Its parameters are lowered as a kernel's with no body: a launch binds them alike.
        let signature = program.signature();
        let mut lowering = Lowering::new(&signature, 1, functions.clone());
        unsupported.append(&mut lowering.unsupported);
        let signature = lowering.finish(&signature);
        module
            .programs
            .push(lower_program(program, signature, &module.kernels));
    }
    if unsupported.is_empty() {
        Ok(module)
    } else {
        Err(unsupported)
    }
}

/// The index of `kernel`'s integer scalar parameter `name`, which an extent may name.
fn scalar_param(kernel: &ast::Kernel, name: &str) -> Option<usize> {
    kernel.params.iter().position(|p| {
        p.name.name == name
            && matches!(&p.ty, TypeExpr::Named(ty) if matches!(Scalar::from_name(&ty.name), Some(Scalar::I32 | Scalar::U32)))
    })
}

impl Lowering {
    fn new(kernel: &ast::Kernel, threads: u32, functions: Rc<[ast::Function]>) -> Self {
        let mut lowering = Self {
            params: Vec::new(),
            shared: Vec::new(),
            locals: Vec::new(),
            indexed_tiles: Vec::new(),
            named_tiles: Vec::new(),
            matrix: None,
            mma: None,
            dims: Vec::new(),
            derived: Vec::new(),
            regs: Vec::new(),
            scopes: vec![HashMap::new()],
            blocks: vec![Vec::new()],
            threads,
            unsupported: Vec::new(),
            loop_depth: 0,
            statement: kernel.span,
            functions,
            inlined: Vec::new(),
        };
        for param in &kernel.params {
            let index = lowering.params.len();
            match &param.ty {
                TypeExpr::Tensor { element, dims, .. } => {
                    let dims = dims
                        .iter()
                        .map(|dim| match dim {
                            ast::Dim::Literal(n, _) => DimRef::Literal(n.unwrap_or(1) as u32),
                            // An integer scalar's extent is computed at launch, as a derived one.
                            ast::Dim::Name(name) if scalar_param(kernel, &name.name).is_some() => {
                                let e = ast::Expr {
                                    kind: ExprKind::Name(name.name.clone()),
                                    span: name.span,
                                };
                                DimRef::Dim(lowering.derived_dim(dim.text(), &e, kernel))
                            }
                            ast::Dim::Name(name) => DimRef::Dim(lowering.dim(&name.name)),
                            ast::Dim::Expr(e) => {
                                DimRef::Dim(lowering.derived_dim(dim.text(), e, kernel))
                            }
                        })
                        .collect();
                    let element = Scalar::element_from_name(&element.name).unwrap_or(Scalar::F32);
                    lowering.params.push(Param::Tensor {
                        name: param.name.name.clone(),
                        element,
                        dims,
                    });
                    lowering.bind(&param.name.name, Binding::Tensor(index));
                }
                other => {
                    let ty = scalar_of(other);
                    lowering.params.push(Param::Scalar {
                        name: param.name.name.clone(),
                        ty,
                    });
                    lowering.bind(&param.name.name, Binding::Scalar(index, ty));
                }
            }
        }
        lowering
    }

    fn dim(&mut self, name: &str) -> usize {
        if let Some(index) = self.dims.iter().position(|d| d == name) {
            return index;
        }
        self.dims.push(name.to_owned());
        let index = self.dims.len() - 1;
        self.bind(name, Binding::Dim(index));
        index
    }

    /// A derived extent's dimension: one per distinct text, computed from the named dimensions
    /// and integer scalars.
    fn derived_dim(&mut self, text: String, e: &ast::Expr, kernel: &ast::Kernel) -> usize {
        if let Some(index) = self.dims.iter().position(|d| *d == text) {
            return index;
        }
        let size = Size::from_expr(e, &mut |leaf| match &leaf.kind {
            ast::ExprKind::Name(name) => match scalar_param(kernel, name) {
                Some(index) => Size::Scalar(index),
                None => Size::Dim(self.dim(name)),
            },
            _ => Size::Literal(0),
        });
        self.dims.push(text);
        self.derived.push(DerivedDim {
            dim: self.dims.len() - 1,
            size,
        });
        self.dims.len() - 1
    }

    fn finish(self, kernel: &ast::Kernel) -> Kernel {
        let indexed = self.indexed_tiles;
        let named = self.named_tiles;
        let mut lowered = Kernel {
            name: kernel.name.name.clone(),
            threads: self.threads,
            params: self.params,
            dims: self.dims,
            derived: self.derived,
            regs: self.regs,
            shared: self.shared,
            locals: self.locals,
            body: self.blocks.into_iter().next().unwrap_or_default(),
            span: kernel.span,
            cluster: None,
            matrix: self.matrix,
            mma: self.mma,
        };
        super::tiles::pad_tiles(&mut lowered, &indexed);
        super::reuse::reuse_tiles(&mut lowered, &named);
        super::arrays::mark_registers(&mut lowered);
        super::half::explicit_rounding(&mut lowered);
        lowered
    }

    // ---- statements ----

    fn kernel_body(&mut self, kernel: &ast::Kernel) {
        for stmt in &kernel.body.stmts {
            self.stmt(stmt);
        }
    }

    fn block(&mut self, block: &ast::Block) -> Block {
        self.nested(|l| {
            for stmt in &block.stmts {
                l.stmt(stmt);
            }
        })
    }

    pub(super) fn stmt(&mut self, stmt: &ast::Stmt) {
        let outer = std::mem::replace(&mut self.statement, header(stmt));
        self.lower_stmt(stmt);
        self.statement = outer;
    }

    fn lower_stmt(&mut self, stmt: &ast::Stmt) {
        let span = stmt.span;
        match &stmt.kind {
            AstStmt::Let {
                name, ty, value, ..
            } => {
                let hint = ty.as_ref().map(scalar_of);
                if let Some(array) = self
                    .local_array(&name.name, value)
                    .or_else(|| self.fragment_let(&name.name, value))
                {
                    self.bind(&name.name, Binding::Local(array));
                    return;
                }
                if self.is_tile_value(value) {
                    if let Some(array) = self.tile_binding(&name.name, value) {
                        self.bind(&name.name, Binding::Tile(array));
                    }
                    return;
                }
                let (operand, ty) = self.expr(value, hint);
                let dst = self.reg(ty, Some(&name.name));
                self.emit(
                    StmtKind::Let {
                        dst,
                        op: Op::Copy(operand),
                    },
                    span,
                );
                self.bind(&name.name, Binding::Reg(dst, ty));
            }
            AstStmt::Assign { target, op, value } => self.assign(target, *op, value, span),
            AstStmt::Expr(expr) => {
                if self.fragment_store(expr) {
                    return;
                }
                if let ExprKind::Call { callee, args } = &expr.kind {
                    if callee.name == "barrier" {
                        self.emit(StmtKind::Barrier, span);
                        return;
                    }
                    if let Some(op) = AtomicOp::from_name(&callee.name) {
                        self.atomic(op, args, false, span);
                        return;
                    }
                }
                self.expr(expr, None);
            }
            AstStmt::If {
                condition,
                then_block,
                else_branch,
            } => {
                let (condition, _) = self.expr(condition, Some(Scalar::Bool));
                let then_block = self.block(then_block);
                let else_block = match else_branch {
                    Some(branch) => self.nested(|l| l.stmt(branch)),
                    None => Vec::new(),
                };
                self.emit(
                    StmtKind::If {
                        condition,
                        then_block,
                        else_block,
                    },
                    span,
                );
            }
            AstStmt::Block(block) => {
                let block = self.block(block);
                if let Some(current) = self.blocks.last_mut() {
                    current.extend(block);
                }
            }
            AstStmt::While { condition, body } => {
                let body_ast = body;
                let body = self.nested(|l| {
                    let (c, _) = l.expr(condition, Some(Scalar::Bool));
                    l.exit_unless(c, condition.span);
                    l.loop_depth += 1;
                    let inner = l.block(body);
                    l.loop_depth -= 1;
                    if let Some(current) = l.blocks.last_mut() {
                        current.extend(inner);
                    }
                });
                self.emit(
                    StmtKind::Loop {
                        body,
                        continuing: Vec::new(),
                    },
                    span,
                );
                self.after_loop(body_ast, span);
            }
            AstStmt::For { var, range, body } => {
                if let Some(trips) = self.unrolled_trips(var, range, body) {
                    self.unroll(var, &trips, body);
                    return;
                }
                self.for_(var, range, body, span);
                self.after_loop(body, span);
            }
            AstStmt::Break => self.emit(StmtKind::Break, span),
            AstStmt::Continue => self.emit(StmtKind::Continue, span),
            AstStmt::Return(value) => self.return_(value.as_ref(), span),
            AstStmt::Error => {}
        }
    }

    /// `if !condition { break }`.
    pub(super) fn exit_unless(&mut self, condition: Operand, span: Span) {
        let negated = self.value(
            Op::Unary(UnaryOp::Not, Scalar::Bool, condition),
            Scalar::Bool,
            span,
        );
        self.break_if(negated, span);
    }

    fn for_(&mut self, var: &ast::Ident, range: &ast::Expr, body: &ast::Block, span: Span) {
        let args = match &range.kind {
            ExprKind::Call { args, .. } => args.as_slice(),
            _ => &[],
        };
        let zero = Operand::Const(0);
        let one = Operand::Const(1);
        let (start, end, step) = match args {
            [end] => (zero, self.expr(end, Some(Scalar::I32)).0, one),
            [start, end] => {
                let start = self.expr(start, Some(Scalar::I32)).0;
                (start, self.expr(end, Some(Scalar::I32)).0, one)
            }
            [start, end, step] => {
                let start = self.expr(start, Some(Scalar::I32)).0;
                let end = self.expr(end, Some(Scalar::I32)).0;
                (start, end, self.expr(step, Some(Scalar::I32)).0)
            }
            _ => return,
        };
        // The bounds are evaluated once, before the first trip, as in C.
        let end = self.value(Op::Copy(end), Scalar::I32, range.span);
        let step = self.value(Op::Copy(step), Scalar::I32, range.span);
        let counter = self.reg(Scalar::I32, Some(&var.name));
        self.emit(
            StmtKind::Let {
                dst: counter,
                op: Op::Copy(start),
            },
            range.span,
        );
        let i = Operand::Reg(counter);
        let known_positive = step_is_positive(args.get(2));
        let body = self.nested(|l| {
            let rs = range.span;
            let running = if known_positive {
                l.value(
                    Op::Compare(CompareOp::Lt, Scalar::I32, i, end),
                    Scalar::Bool,
                    rs,
                )
            } else {
                // A positive step runs while i < end, a negative one while i > end.
                let up = l.value(
                    Op::Compare(CompareOp::Gt, Scalar::I32, step, zero),
                    Scalar::Bool,
                    rs,
                );
                let below = l.value(
                    Op::Compare(CompareOp::Lt, Scalar::I32, i, end),
                    Scalar::Bool,
                    rs,
                );
                let above = l.value(
                    Op::Compare(CompareOp::Gt, Scalar::I32, i, end),
                    Scalar::Bool,
                    rs,
                );
                l.value(Op::Select(up, below, above), Scalar::Bool, rs)
            };
            l.exit_unless(running, rs);
            l.bind(&var.name, Binding::Reg(counter, Scalar::I32));
            l.loop_depth += 1;
            let inner = l.block(body);
            l.loop_depth -= 1;
            if let Some(current) = l.blocks.last_mut() {
                current.extend(inner);
            }
        });
        let continuing = vec![Stmt {
            kind: StmtKind::Let {
                dst: counter,
                op: Op::Binary(BinaryOp::Add, Scalar::I32, i, step),
            },
            span: range.span,
            statement: self.statement,
        }];
        self.emit(StmtKind::Loop { body, continuing }, span);
    }

    fn assign(
        &mut self,
        target: &ast::Expr,
        op: Option<ast::BinaryOp>,
        value: &ast::Expr,
        span: Span,
    ) {
        match &target.kind {
            ExprKind::Name(name) => {
                let (dst, ty) = match self.lookup(name) {
                    Some(Binding::Reg(dst, ty)) => (dst, ty),
                    Some(Binding::Tile(array)) => {
                        self.tile_assign(array, op.and_then(binary_op), value, span);
                        return;
                    }
                    Some(Binding::Local(array)) => {
                        self.fragment_into(array, value);
                        return;
                    }
                    _ => return,
                };
                let new = self.combined(Operand::Reg(dst), ty, op, value, span);
                self.emit(
                    StmtKind::Let {
                        dst,
                        op: Op::Copy(new),
                    },
                    span,
                );
            }
            ExprKind::Index { base, indices } => {
                let ExprKind::Name(name) = &base.kind else {
                    return;
                };
                let tensor = match self.lookup(name) {
                    Some(Binding::Tensor(tensor)) => tensor,
                    Some(Binding::Local(array)) => {
                        let element = self.locals[array].element;
                        let (index, coordinates) = self.local_index(array, indices, target.span);
                        let current = match op {
                            Some(_) => {
                                let load = Op::LocalLoad {
                                    array,
                                    index,
                                    coordinates: coordinates.clone(),
                                };
                                self.value(load, element, target.span)
                            }
                            None => Operand::Const(0),
                        };
                        let new = self.combined(current, element, op, value, span);
                        self.emit(
                            StmtKind::LocalStore {
                                array,
                                index,
                                coordinates,
                                value: new,
                            },
                            span,
                        );
                        return;
                    }
                    Some(Binding::Tile(array)) => {
                        self.mark_indexed(array);
                        let element = self.shared[array].element;
                        let indices = self.indices(indices);
                        let current = match op {
                            Some(_) => self.value(
                                Op::SharedLoad {
                                    array,
                                    indices: indices.clone(),
                                },
                                element,
                                target.span,
                            ),
                            None => Operand::Const(0),
                        };
                        let new = self.combined(current, element, op, value, span);
                        self.emit(
                            StmtKind::SharedStore {
                                array,
                                indices,
                                value: new,
                            },
                            span,
                        );
                        return;
                    }
                    _ => return,
                };
                if indices.iter().any(|i| !matches!(i, IndexArg::Single(_))) {
                    self.tile_store(tensor, indices, value, span);
                    return;
                }
                let element = self.params[tensor].element();
                let indices = self.indices(indices);
                let current = match op {
                    Some(_) => self.value(
                        Op::Load {
                            tensor,
                            indices: indices.clone(),
                            guarded: false,
                        },
                        element,
                        target.span,
                    ),
                    None => Operand::Const(0),
                };
                let new = self.combined(current, element, op, value, span);
                self.emit(
                    StmtKind::Store {
                        tensor,
                        indices,
                        value: new,
                        guarded: false,
                    },
                    span,
                );
            }
            _ => {}
        }
    }

    /// `value`, or `current op value` for a compound assignment.
    fn combined(
        &mut self,
        current: Operand,
        ty: Scalar,
        op: Option<ast::BinaryOp>,
        value: &ast::Expr,
        span: Span,
    ) -> Operand {
        let (value, _) = self.expr(value, Some(ty));
        match op.and_then(binary_op) {
            Some(op) => self.value(Op::Binary(op, ty, current, value), ty, span),
            None => value,
        }
    }

    pub(super) fn indices(&mut self, indices: &[IndexArg]) -> Vec<Operand> {
        indices
            .iter()
            .filter_map(|index| match index {
                IndexArg::Single(e) => Some(self.index(e).0),
                _ => None,
            })
            .collect()
    }

    /// An index or a slice's start, and its type: `i32`, or `u32` where the source's is one
    /// (its arithmetic stays unsigned; a `u32` past 2^31 - 1 is outside every tensor either
    /// way, and a fault names it as the `u32` it is).
    pub(super) fn index(&mut self, e: &ast::Expr) -> (Operand, Scalar) {
        let (operand, ty) = self.expr(e, Some(Scalar::I32));
        match ty {
            Scalar::U32 => (operand, ty),
            _ => (operand, Scalar::I32),
        }
    }
}

/// Whether a range's step is positive whatever the launch: absent (1), a positive literal, or a
/// count of the hierarchy (`ctx.lanes`, `ctx.threads`, `ctx.warps`, `ctx.blocks.*`).
fn step_is_positive(step: Option<&ast::Expr>) -> bool {
    match step.map(|s| &s.kind) {
        None => true,
        Some(ExprKind::Int(Some(n))) => *n > 0,
        Some(ExprKind::Ctx(path)) => matches!(
            ctx::resolve(path, Span::default()),
            Ok(CtxField::Lanes | CtxField::Threads | CtxField::Warps | CtxField::Blocks(_))
        ),
        _ => false,
    }
}
