//! Programs: a program's parameters (as a kernel's), its temporaries, its launches (a kernel
//! of the file, an argument of the right kind for each parameter, a grid), its loops and its
//! swaps, and the size expressions in all of them (integers of dimensions, integer scalars,
//! loop counters and literals; a `while` condition may read tensor elements too).

use super::builtins::closest;
use super::*;

/// What a name in a program is.
#[derive(Clone, Debug)]
enum Entry {
    /// A tensor: a parameter or a temporary.
    Buffer { element: Scalar, rank: usize },
    /// An integer: a dimension, an integer scalar parameter or a loop counter.
    Integer,
    /// A float scalar parameter.
    Float,
}

struct ProgramChecker<'f> {
    file: &'f File,
    /// The file's kernels' parameter types, by kernel name.
    kernels: &'f [KernelInfo],
    scopes: Vec<Vec<(String, Entry, Span)>>,
    diagnostics: Vec<Diagnostic>,
}

/// Checks `program` against the file's kernels (`kernels`, as the checker saw them).
pub(super) fn check_program(
    program: &Program,
    file: &File,
    kernels: &[KernelInfo],
) -> (Vec<NameInfo>, Vec<Diagnostic>) {
    // The parameters are checked as a kernel's, by the same rules.
    let signature = program.signature();
    let mut kernel_checker = KernelChecker::new(HashMap::new(), false, Rc::from(Vec::new()));
    let (params, dims) = kernel_checker.params(&signature);
    let mut scope = Vec::new();
    for (param, ast_param) in params.iter().zip(&program.params) {
        let entry = match &param.ty {
            Type::Tensor { element, dims, .. } => Entry::Buffer {
                element: *element,
                rank: dims.len(),
            },
            Type::Scalar(s) if s.is_integer() => Entry::Integer,
            _ => Entry::Float,
        };
        scope.push((param.name.clone(), entry, ast_param.name.span));
    }
    for dim in dims {
        scope.push((dim, Entry::Integer, program.name.span));
    }
    let mut checker = ProgramChecker {
        file,
        kernels,
        scopes: vec![scope],
        diagnostics: kernel_checker.diagnostics,
    };
    checker.block(&program.body, false);
    (kernel_checker.names, checker.diagnostics)
}

impl ProgramChecker<'_> {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn lookup(&self, name: &str) -> Option<&Entry> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _, _)| n == name)
            .map(|(_, e, _)| e)
    }

    fn declare(&mut self, name: &Ident, entry: Entry) {
        let earlier = self
            .scopes
            .iter()
            .flatten()
            .find(|(n, _, _)| *n == name.name)
            .map(|(_, _, span)| *span);
        if let Some(first) = earlier {
            self.error(
                Diagnostic::error(
                    Code::E0203,
                    name.span,
                    format!("`{}` is already a name in this program", name.name),
                )
                .with_label("declared again here")
                .with_secondary(first, "first declared here"),
            );
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.name.clone(), entry, name.span));
        }
    }

    fn block(&mut self, block: &ProgramBlock, in_loop: bool) {
        self.scopes.push(Vec::new());
        for stmt in &block.stmts {
            self.stmt(stmt, in_loop);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, stmt: &ProgramStmt, in_loop: bool) {
        match &stmt.kind {
            ProgramStmtKind::Temporary {
                name,
                element,
                dims,
            } => {
                if in_loop {
                    self.error(
                        Diagnostic::error(
                            Code::E0130,
                            stmt.span,
                            "a temporary tensor is made once, before the program's first launch",
                        )
                        .with_label("inside a loop or an `if`")
                        .with_help("declare it at the top of the program's body"),
                    );
                }
                let element_type = match Scalar::element_from_name(&element.name) {
                    Some(s) if s != Scalar::Bool => s,
                    _ => {
                        self.error(
                            Diagnostic::error(
                                Code::E0124,
                                element.span,
                                format!(
                                    "a temporary tensor holds f32, f16, i32, u32, i64, u64, i8 or u8, not `{}`",
                                    element.name
                                ),
                            )
                            .with_label("not a tensor element type"),
                        );
                        Scalar::F32
                    }
                };
                if dims.is_empty() || dims.len() > 4 {
                    self.error(
                        Diagnostic::error(
                            Code::E0124,
                            stmt.span,
                            "a temporary tensor has rank 1 to 4",
                        )
                        .with_label(format!("{} extents", dims.len())),
                    );
                }
                for dim in dims {
                    self.size(dim, false);
                }
                self.declare(
                    name,
                    Entry::Buffer {
                        element: element_type,
                        rank: dims.len(),
                    },
                );
            }
            ProgramStmtKind::Launch {
                kernel,
                args,
                grid,
                grid_span,
            } => self.launch(kernel, args, grid, *grid_span, stmt.span),
            ProgramStmtKind::For { var, range, body } => {
                let ExprKind::Call { callee, args } = &range.kind else {
                    self.error(
                        Diagnostic::error(
                            Code::E0310,
                            range.span,
                            "a program's for loop runs over range(...)",
                        )
                        .with_label("not a range")
                        .with_help(
                            "write for i in range(count) { ... } or range(start, end, step)",
                        ),
                    );
                    return;
                };
                if callee.name != "range" || args.is_empty() || args.len() > 3 {
                    self.error(
                        Diagnostic::error(Code::E0310, range.span, "a program's for loop runs over range(end), range(start, end) or range(start, end, step)")
                            .with_label("not a range of 1 to 3 arguments"),
                    );
                }
                for arg in args {
                    self.size(arg, true);
                }
                self.scopes.push(Vec::new());
                self.declare(var, Entry::Integer);
                self.block(body, true);
                self.scopes.pop();
            }
            ProgramStmtKind::While {
                condition,
                limit,
                body,
            } => {
                self.condition(condition);
                match limit {
                    Some(limit) => self.size(limit, true),
                    None => self.error(
                        Diagnostic::error(Code::E0130, condition.span, "a program's while loop needs a limit on its passes")
                            .with_label("how many passes at most?")
                            .with_help("add a limit after the condition, as in while Count[0] != 0 limit 100 { ... }: past it the run stops and says so"),
                    ),
                }
                self.block(body, true);
            }
            ProgramStmtKind::If {
                condition,
                then,
                otherwise,
            } => {
                self.condition(condition);
                self.block(then, true);
                if let Some(otherwise) = otherwise {
                    self.block(otherwise, true);
                }
            }
            ProgramStmtKind::Swap(a, b) => {
                let found = [a, b].map(|name| match self.lookup(&name.name) {
                    Some(Entry::Buffer { element, rank }) => Some((*element, *rank)),
                    Some(_) => {
                        self.error(
                            Diagnostic::error(
                                Code::E0133,
                                name.span,
                                format!("`{}` is not a tensor", name.name),
                            )
                            .with_label("swap exchanges two tensors"),
                        );
                        None
                    }
                    None => {
                        self.unknown(name);
                        None
                    }
                });
                if let [Some(x), Some(y)] = found {
                    if x != y {
                        self.error(
                            Diagnostic::error(
                                Code::E0133,
                                stmt.span,
                                format!(
                                    "`{}` and `{}` differ in element type or rank",
                                    a.name, b.name
                                ),
                            )
                            .with_label("swap exchanges two tensors of one element type and rank")
                            .with_help("ping-pong buffers are two tensors of one type and shape"),
                        );
                    }
                }
            }
            ProgramStmtKind::Error => {}
        }
    }

    fn unknown(&mut self, name: &Ident) {
        self.error(
            Diagnostic::error(
                Code::E0201,
                name.span,
                format!("`{}` is not defined in this program", name.name),
            )
            .with_label("not a parameter, dimension, temporary or loop counter"),
        );
    }

    fn launch(
        &mut self,
        kernel: &Ident,
        args: &[Expr],
        grid: &[Expr],
        grid_span: Span,
        span: Span,
    ) {
        let Some(info) = self.kernels.iter().find(|k| k.name == kernel.name) else {
            let names = self.file.kernels.iter().map(|k| k.name.name.as_str());
            let mut diagnostic = Diagnostic::error(
                Code::E0131,
                kernel.span,
                format!("there is no kernel `{}` in this file", kernel.name),
            )
            .with_label("not a kernel");
            if let Some(similar) = closest(&kernel.name, names) {
                let help = format!("a kernel is similar: `{similar}`");
                diagnostic = diagnostic.with_fix(help, kernel.span, similar);
            }
            self.error(diagnostic);
            return;
        };
        let params = info.params.clone();
        if args.len() != params.len() {
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            self.error(
                Diagnostic::error(
                    Code::E0131,
                    span,
                    format!(
                        "`{}` takes {} arguments, not {}",
                        kernel.name,
                        params.len(),
                        args.len()
                    ),
                )
                .with_label(format!("{} given", args.len()))
                .with_help(format!("its parameters: {}", names.join(", "))),
            );
            return;
        }
        let mut passed: Vec<(&str, Span)> = Vec::new();
        for (param, arg) in params.iter().zip(args) {
            match &param.ty {
                Type::Tensor { element, dims, .. } => {
                    let found = match &arg.kind {
                        ExprKind::Name(name) => self.lookup(name).cloned().map(|e| (name, e)),
                        _ => None,
                    };
                    match found {
                        Some((name, Entry::Buffer { element: e, rank }))
                            if e == *element && rank == dims.len() =>
                        {
                            if let Some((_, first)) = passed.iter().find(|(n, _)| n == name) {
                                self.error(
                                    Diagnostic::error(Code::E0131, arg.span, format!("`{name}` is passed twice to one launch"))
                                        .with_label("passed again here")
                                        .with_secondary(*first, "first passed here")
                                        .with_help("a kernel's tensors are distinct: make a temporary tensor for the second"),
                                );
                            }
                            passed.push((name, arg.span));
                        }
                        Some((name, Entry::Buffer { element: e, rank })) => self.error(
                            Diagnostic::error(Code::E0131, arg.span, format!("`{}`'s parameter `{}` is {}, and `{name}` is a rank-{rank} tensor of {}", kernel.name, param.name, param.ty, e.name()))
                                .with_label("element type or rank differs"),
                        ),
                        None if matches!(&arg.kind, ExprKind::Name(n) if self.lookup(n).is_none()) => {
                            if let ExprKind::Name(n) = &arg.kind {
                                self.unknown(&Ident { name: n.clone(), span: arg.span });
                            }
                        }
                        _ => self.error(
                            Diagnostic::error(Code::E0131, arg.span, format!("`{}`'s parameter `{}` is a tensor", kernel.name, param.name))
                                .with_label("pass a tensor of the program here")
                                .with_help("a tensor argument is the name of a parameter or temporary tensor"),
                        ),
                    }
                }
                Type::Scalar(s) if s.is_integer() => self.size(arg, true),
                _ => {
                    let fits = match &arg.kind {
                        ExprKind::Float(_) | ExprKind::Int(_) => true,
                        ExprKind::Name(name) => matches!(self.lookup(name), Some(Entry::Float)),
                        _ => false,
                    };
                    if !fits {
                        self.error(
                            Diagnostic::error(
                                Code::E0131,
                                arg.span,
                                format!(
                                    "`{}`'s parameter `{}` is {}",
                                    kernel.name, param.name, param.ty
                                ),
                            )
                            .with_label("pass a float literal or a float scalar of the program"),
                        );
                    }
                }
            }
        }
        if grid.is_empty() || grid.len() > 3 {
            self.error(
                Diagnostic::error(
                    Code::E0131,
                    grid_span,
                    "a launch needs its grid: grid(x), grid(x, y) or grid(x, y, z)",
                )
                .with_label(if grid.is_empty() {
                    "no grid"
                } else {
                    "more than three axes"
                })
                .with_help(format!(
                    "e.g. launch {}(...) grid(ceil(N / {})): CTAs enough to cover the data",
                    kernel.name,
                    info.threads.unwrap_or(256)
                )),
            );
        }
        for axis in grid {
            self.size(axis, true);
        }
    }

    fn condition(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Binary(BinaryOp::And | BinaryOp::Or, l, r) => {
                self.condition(l);
                self.condition(r);
            }
            ExprKind::Binary(op, l, r) if op.is_comparison() => {
                self.size(l, true);
                self.size(r, true);
            }
            _ => self.error(
                Diagnostic::error(Code::E0132, e.span, "a program's condition compares integers")
                    .with_label("not a comparison")
                    .with_help("compare an element a kernel wrote with a number: while Count[0] != 0 limit 64 { ... }, if Count[0] > 0 { ... }"),
            ),
        }
    }

    /// An integer expression of dimensions, integer scalars, counters and literals; with
    /// `elements`, an element of an integer tensor too (read back between launches, where the
    /// walk reaches it: every size but a temporary's extents, made before the first launch).
    fn size(&mut self, e: &Expr, elements: bool) {
        match &e.kind {
            ExprKind::Int(Some(_)) => {}
            ExprKind::Name(name) => match self.lookup(name) {
                Some(Entry::Integer) => {}
                Some(entry) => {
                    let what = match entry {
                        Entry::Buffer { .. } => "a tensor",
                        _ => "a float",
                    };
                    self.error(
                        Diagnostic::error(Code::E0132, e.span, format!("`{name}` is {what}, and a size is an integer"))
                            .with_label(format!("this is {what}"))
                            .with_help("sizes, grids and counts are made of dimensions, integer scalars, loop counters and literals"),
                    );
                }
                None => self.unknown(&Ident {
                    name: name.clone(),
                    span: e.span,
                }),
            },
            ExprKind::Unary(crate::syntax::ast::UnaryOp::Neg, x) => self.size(x, elements),
            ExprKind::Binary(op, l, r) if crate::ir::Size::is_operator(*op) => {
                self.size(l, elements);
                self.size(r, elements);
            }
            ExprKind::Call { callee, args }
                if crate::ir::Size::is_function(&callee.name, args.len()) =>
            {
                for arg in args {
                    self.size(arg, elements);
                }
            }
            ExprKind::Index { base, indices } if elements => {
                let rank = match &base.kind {
                    ExprKind::Name(name) => match self.lookup(name) {
                        // A 64-bit element would be read as a launch's number, which holds 2^53.
                        Some(Entry::Buffer { element, rank })
                            if element.is_integer() && !element.is_wide() =>
                        {
                            Some(*rank)
                        }
                        _ => None,
                    },
                    _ => None,
                };
                match rank {
                    Some(rank) if rank == indices.len() => {}
                    _ => self.error(
                        Diagnostic::error(Code::E0132, e.span, "a size or condition reads an element of a 32-bit integer tensor (i32, u32, i8, u8), with one index per axis")
                            .with_label("not an element of a 32-bit integer tensor"),
                    ),
                }
                for index in indices {
                    match index {
                        IndexArg::Single(i) => self.size(i, false),
                        _ => self.error(
                            Diagnostic::error(Code::E0132, e.span, "a size or condition reads one element")
                                .with_label("not an element"),
                        ),
                    }
                }
            }
            ExprKind::Index { .. } => self.error(
                Diagnostic::error(Code::E0132, e.span, "a temporary's extents and an element's index read no tensor element")
                    .with_label("read before the first launch, or inside another element")
                    .with_help("a grid, an integer argument, a loop's range or limit and a condition may read an element a kernel wrote, as in grid(ceil(Count[0] / 256))"),
            ),
            _ => self.error(
                Diagnostic::error(Code::E0132, e.span, "a size, grid or count is an integer expression of dimensions, integer scalars, loop counters and literals")
                    .with_label("not such an expression")
                    .with_help("use + - * / % <<, ceil(a / b), log2(x), min and max: e.g. grid(ceil(N / 256))"),
            ),
        }
    }
}
