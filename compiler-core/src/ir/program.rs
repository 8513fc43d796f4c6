//! Programs in the IR: the launches a program makes, in order, over its tensors and the
//! temporaries it makes, with sizes, grids and pass counts as expressions of its dimensions
//! and scalars, evaluated when it runs (`crate::program`).
//!
//! In: a checked `program` (lowered by [`lower_program`]). Out: a [`Program`]. Invariants:
//! every name is resolved (a buffer, a dimension, a scalar, a loop counter); every launch
//! names a kernel of the module and gives each of its parameters an argument of its kind.

use super::*;
use crate::syntax::ast::{self, ExprKind, ProgramStmtKind};

/// A program: its signature (parameters and dimensions, as a kernel's, so a launch binds it
/// by the same rules), its temporaries and its steps.
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    pub name: String,
    /// The parameters and dimensions as a kernel with no body.
    pub signature: Kernel,
    pub temporaries: Vec<Temporary>,
    /// Loop counters, by index (`Size::Counter`).
    pub counters: Vec<String>,
    pub body: Vec<Step>,
    pub span: Span,
}

/// `let T = tensor<f32>[ceil(N / 256)]`: zeros, made before the first launch.
#[derive(Clone, Debug, Serialize)]
pub struct Temporary {
    pub name: String,
    pub element: Scalar,
    pub extents: Vec<Size>,
    pub span: Span,
}

/// A `while` or `if` condition: comparisons joined by `&&` and `||`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Condition {
    Compare(CompareOp, Size, Size),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
}

impl Condition {
    /// The buffers whose elements it reads.
    pub fn buffers_read(&self) -> Vec<usize> {
        match self {
            Condition::Compare(_, a, b) => [a.buffers_read(), b.buffers_read()].concat(),
            Condition::And(a, b) | Condition::Or(a, b) => {
                [a.buffers_read(), b.buffers_read()].concat()
            }
        }
    }
}

/// What a launch gives one of its kernel's parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum LaunchArg {
    /// A buffer: `signature.params`' tensor `i`, or temporary `i - params.len()`.
    Buffer(usize),
    /// An integer, for an `i32` or `u32` scalar.
    Integer(Size),
    /// The program's own float scalar parameter `i`, for an `f32` or `f16` scalar.
    Scalar(usize),
    /// A literal, for an `f32` or `f16` scalar: rounded once, as a launch's value is.
    Float(f64),
}

#[derive(Clone, Debug, Serialize)]
pub enum Step {
    Launch {
        /// Its index in the module's kernels.
        kernel: usize,
        args: Vec<LaunchArg>,
        /// x, y, z.
        grid: [Size; 3],
        span: Span,
    },
    /// `for counter in range(start, end, step)`.
    For {
        counter: usize,
        start: Size,
        end: Size,
        step: Size,
        body: Vec<Step>,
        span: Span,
    },
    While {
        condition: Condition,
        limit: Size,
        body: Vec<Step>,
        span: Span,
    },
    /// `if`: `then` when the condition holds, else `otherwise` (empty without an `else`).
    If {
        condition: Condition,
        then: Vec<Step>,
        otherwise: Vec<Step>,
        span: Span,
    },
    /// Two buffers trade names; at run time their shapes must be equal.
    Swap(usize, usize, Span),
}

impl Step {
    /// The blocks of steps it holds: a loop's body, an `if`'s two branches.
    pub fn blocks(&self) -> Vec<&[Step]> {
        match self {
            Step::For { body, .. } | Step::While { body, .. } => vec![body],
            Step::If {
                then, otherwise, ..
            } => vec![then, otherwise],
            Step::Launch { .. } | Step::Swap(..) => Vec::new(),
        }
    }
}

impl Program {
    /// Buffers: the tensor parameters (by parameter index; a scalar's slot is unused), then
    /// the temporaries.
    pub fn buffer_count(&self) -> usize {
        self.signature.params.len() + self.temporaries.len()
    }

    /// A buffer's name.
    pub fn buffer_name(&self, buffer: usize) -> &str {
        let params = self.signature.params.len();
        if buffer < params {
            self.signature.params[buffer].name()
        } else {
            self.temporaries
                .get(buffer - params)
                .map_or("?", |t| t.name.as_str())
        }
    }

    /// The parameter tensors its launches may change, sorted: those a launched kernel writes
    /// and those a `swap` gives another tensor.
    pub fn written_params(&self, kernels: &[Kernel]) -> Vec<usize> {
        fn walk(steps: &[Step], kernels: &[Kernel], found: &mut Vec<usize>) {
            for step in steps {
                match step {
                    Step::Launch { kernel, args, .. } => {
                        let written = kernels.get(*kernel).map(Kernel::written_tensors);
                        for param in written.unwrap_or_default() {
                            if let Some(LaunchArg::Buffer(b)) = args.get(param) {
                                found.push(*b);
                            }
                        }
                    }
                    Step::Swap(a, b, _) => found.extend([*a, *b]),
                    _ => {}
                }
                for block in step.blocks() {
                    walk(block, kernels, found);
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.body, kernels, &mut found);
        found.retain(|&b| b < self.signature.params.len());
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The kernels it launches (indices into the module's), each once, in first-launch order.
    pub fn kernels(&self) -> Vec<usize> {
        fn walk(steps: &[Step], found: &mut Vec<usize>) {
            for step in steps {
                if let Step::Launch { kernel, .. } = step {
                    if !found.contains(kernel) {
                        found.push(*kernel);
                    }
                }
                for block in step.blocks() {
                    walk(block, found);
                }
            }
        }
        let mut found = Vec::new();
        walk(&self.body, &mut found);
        found
    }
}

/// The names a program's expressions resolve.
#[derive(Clone, Copy)]
enum Name {
    Buffer(usize),
    Dim(usize),
    Scalar(usize),
    Counter(usize),
}

struct ProgramLowering<'m> {
    signature: &'m Kernel,
    kernels: &'m [Kernel],
    scopes: Vec<Vec<(String, Name)>>,
    temporaries: Vec<Temporary>,
    counters: Vec<String>,
}

/// A checked program as IR. `signature` is its parameters lowered as a kernel's; `kernels` the
/// module's kernels, which its launches name.
pub fn lower_program(program: &ast::Program, signature: Kernel, kernels: &[Kernel]) -> Program {
    let mut names = Vec::new();
    for (i, param) in signature.params.iter().enumerate() {
        names.push((
            param.name().to_owned(),
            match param {
                Param::Tensor { .. } => Name::Buffer(i),
                Param::Scalar { .. } => Name::Scalar(i),
            },
        ));
    }
    for (i, dim) in signature.dims.iter().enumerate() {
        names.push((dim.clone(), Name::Dim(i)));
    }
    let mut lowering = ProgramLowering {
        signature: &signature,
        kernels,
        scopes: vec![names],
        temporaries: Vec::new(),
        counters: Vec::new(),
    };
    let body = lowering.block(&program.body);
    let (temporaries, counters) = (lowering.temporaries, lowering.counters);
    let mut program = Program {
        name: program.name.name.clone(),
        signature,
        temporaries,
        counters,
        body,
        span: program.span,
    };
    // The step limit is per CTA, from a budget divided by a CTA's threads: a program's CTAs
    // are its kernels', so the budget divides by the largest.
    let launched = program.kernels().into_iter().filter_map(|k| kernels.get(k));
    program.signature.threads = launched.map(|k| k.threads).max().unwrap_or(1);
    program
}

impl ProgramLowering<'_> {
    fn lookup(&self, name: &str) -> Option<Name> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, binding)| *binding)
    }

    fn block(&mut self, block: &ast::ProgramBlock) -> Vec<Step> {
        self.scopes.push(Vec::new());
        let steps = block.stmts.iter().filter_map(|s| self.stmt(s)).collect();
        self.scopes.pop();
        steps
    }

    fn stmt(&mut self, stmt: &ast::ProgramStmt) -> Option<Step> {
        match &stmt.kind {
            ProgramStmtKind::Temporary {
                name,
                element,
                dims,
            } => {
                let buffer = self.signature.params.len() + self.temporaries.len();
                let extents = dims.iter().map(|d| self.size(d)).collect();
                self.temporaries.push(Temporary {
                    name: name.name.clone(),
                    element: Scalar::from_name(&element.name).unwrap_or(Scalar::F32),
                    extents,
                    span: stmt.span,
                });
                self.bind(&name.name, Name::Buffer(buffer));
                None
            }
            ProgramStmtKind::Launch {
                kernel, args, grid, ..
            } => {
                let index = self.kernels.iter().position(|k| k.name == kernel.name)?;
                let params = &self.kernels[index].params;
                let args = params
                    .iter()
                    .zip(args)
                    .map(|(param, arg)| self.argument(param, arg))
                    .collect();
                let mut axes = grid.iter().map(|g| self.size(g));
                let mut axis = || axes.next().unwrap_or(Size::Literal(1));
                Some(Step::Launch {
                    kernel: index,
                    args,
                    grid: [axis(), axis(), axis()],
                    span: stmt.span,
                })
            }
            ProgramStmtKind::For { var, range, body } => {
                let (start, end, step) = match &range.kind {
                    ExprKind::Call { args, .. } => match args.as_slice() {
                        [end] => (Size::Literal(0), self.size(end), Size::Literal(1)),
                        [start, end] => (self.size(start), self.size(end), Size::Literal(1)),
                        [start, end, step, ..] => {
                            (self.size(start), self.size(end), self.size(step))
                        }
                        [] => (Size::Literal(0), Size::Literal(0), Size::Literal(1)),
                    },
                    _ => (Size::Literal(0), Size::Literal(0), Size::Literal(1)),
                };
                let counter = self.counters.len();
                self.counters.push(var.name.clone());
                self.scopes
                    .push(vec![(var.name.clone(), Name::Counter(counter))]);
                let body = self.block(body);
                self.scopes.pop();
                Some(Step::For {
                    counter,
                    start,
                    end,
                    step,
                    body,
                    span: stmt.span,
                })
            }
            ProgramStmtKind::While {
                condition,
                limit,
                body,
            } => Some(Step::While {
                condition: self.condition(condition),
                limit: limit.as_ref().map_or(Size::Literal(1), |l| self.size(l)),
                body: self.block(body),
                span: stmt.span,
            }),
            ProgramStmtKind::If {
                condition,
                then,
                otherwise,
            } => Some(Step::If {
                condition: self.condition(condition),
                then: self.block(then),
                otherwise: otherwise.as_ref().map_or(Vec::new(), |o| self.block(o)),
                span: stmt.span,
            }),
            ProgramStmtKind::Swap(a, b) => match (self.lookup(&a.name), self.lookup(&b.name)) {
                (Some(Name::Buffer(a)), Some(Name::Buffer(b))) => Some(Step::Swap(a, b, stmt.span)),
                _ => None,
            },
            ProgramStmtKind::Error => None,
        }
    }

    fn bind(&mut self, name: &str, binding: Name) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.to_owned(), binding));
        }
    }

    fn argument(&self, param: &Param, arg: &ast::Expr) -> LaunchArg {
        if let ExprKind::Name(name) = &arg.kind {
            match self.lookup(name) {
                Some(Name::Buffer(b)) => return LaunchArg::Buffer(b),
                Some(Name::Scalar(i)) if param.element().is_float() => return LaunchArg::Scalar(i),
                _ => {}
            }
        }
        match arg.kind {
            ExprKind::Float(x) => LaunchArg::Float(x),
            _ if param.element().is_float() => match &arg.kind {
                ExprKind::Int(Some(n)) => LaunchArg::Float(*n as f64),
                _ => LaunchArg::Integer(self.size(arg)),
            },
            _ => LaunchArg::Integer(self.size(arg)),
        }
    }

    fn condition(&self, e: &ast::Expr) -> Condition {
        match &e.kind {
            ExprKind::Binary(ast::BinaryOp::And, l, r) => {
                Condition::And(Box::new(self.condition(l)), Box::new(self.condition(r)))
            }
            ExprKind::Binary(ast::BinaryOp::Or, l, r) => {
                Condition::Or(Box::new(self.condition(l)), Box::new(self.condition(r)))
            }
            ExprKind::Binary(op, l, r) => {
                let op = match op {
                    ast::BinaryOp::Lt => CompareOp::Lt,
                    ast::BinaryOp::Le => CompareOp::Le,
                    ast::BinaryOp::Gt => CompareOp::Gt,
                    ast::BinaryOp::Ge => CompareOp::Ge,
                    ast::BinaryOp::Eq => CompareOp::Eq,
                    _ => CompareOp::Ne,
                };
                Condition::Compare(op, self.size(l), self.size(r))
            }
            _ => Condition::Compare(CompareOp::Ne, self.size(e), Size::Literal(0)),
        }
    }

    fn size(&self, e: &ast::Expr) -> Size {
        Size::from_expr(e, &mut |leaf| match &leaf.kind {
            ExprKind::Name(name) => match self.lookup(name) {
                Some(Name::Dim(i)) => Size::Dim(i),
                Some(Name::Scalar(i)) => Size::Scalar(i),
                Some(Name::Counter(i)) => Size::Counter(i),
                _ => Size::Literal(0),
            },
            ExprKind::Index { base, indices } => {
                let buffer = match &base.kind {
                    ExprKind::Name(name) => match self.lookup(name) {
                        Some(Name::Buffer(b)) => b,
                        _ => 0,
                    },
                    _ => 0,
                };
                let indices = indices
                    .iter()
                    .map(|i| match i {
                        ast::IndexArg::Single(e) => self.size(e),
                        _ => Size::Literal(0),
                    })
                    .collect();
                Size::Element { buffer, indices }
            }
            _ => Size::Literal(0),
        })
    }
}
