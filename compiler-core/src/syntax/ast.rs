//! The abstract syntax tree: what the parser makes and the checker reads.
//!
//! Invariant: every node carries the byte span of its text. Where the parser recovered from an
//! error it leaves an `Error` node; later phases treat those as already reported.

use crate::span::Span;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct File {
    pub kernels: Vec<Kernel>,
    pub programs: Vec<Program>,
    pub functions: Vec<Function>,
}

/// `fn name(params) -> T { ... }`: called from kernels and other functions, inlined where it
/// is called (the spec's "Functions").
#[derive(Clone, Debug, Serialize)]
pub struct Function {
    pub name: Ident,
    pub params: Vec<Param>,
    /// `-> T`; none for a function that returns no value.
    pub result: Option<TypeExpr>,
    pub body: Block,
    pub span: Span,
}

/// `program name(params) { ... }`: launches of the file's kernels, in order, over the same
/// tensors (the spec's "Programs").
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: ProgramBlock,
    pub span: Span,
}

impl Program {
    /// Its parameters as a kernel with no body: the checker, the lowering and a launch treat a
    /// program's signature as a kernel's.
    pub fn signature(&self) -> Kernel {
        Kernel {
            attributes: Vec::new(),
            name: self.name.clone(),
            params: self.params.clone(),
            body: Block {
                stmts: Vec::new(),
                span: self.span,
            },
            span: self.span,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ProgramBlock {
    pub stmts: Vec<ProgramStmt>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProgramStmt {
    pub kind: ProgramStmtKind,
    pub span: Span,
}

impl ProgramStmt {
    /// The blocks it holds: a loop's body, an `if`'s branches.
    pub fn blocks(&self) -> Vec<&ProgramBlock> {
        match &self.kind {
            ProgramStmtKind::For { body, .. } | ProgramStmtKind::While { body, .. } => vec![body],
            ProgramStmtKind::If {
                then, otherwise, ..
            } => std::iter::once(then).chain(otherwise).collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub enum ProgramStmtKind {
    /// `let T = tensor<f32>[ceil(N / 256)]`: a temporary tensor, zeros, for the whole program.
    Temporary {
        name: Ident,
        element: Ident,
        dims: Vec<Expr>,
    },
    /// `launch k(A, B, n) grid(x, y)`.
    Launch {
        kernel: Ident,
        args: Vec<Expr>,
        grid: Vec<Expr>,
        /// The `grid(...)` text, or the launch's end where it is missing.
        grid_span: Span,
    },
    /// `for i in range(...) { ... }`: a fixed number of passes.
    For {
        var: Ident,
        range: Expr,
        body: ProgramBlock,
    },
    /// `while Flag[0] != 0 limit 64 { ... }`: passes until a value the kernels wrote says
    /// stop, at most `limit`.
    While {
        condition: Expr,
        limit: Option<Expr>,
        body: ProgramBlock,
    },
    /// `if Count[0] > 0 { ... } else { ... }`: launches made or not on a value the kernels
    /// wrote (or on the run's sizes). `else if` is an `else` block holding one `If`.
    If {
        condition: Expr,
        then: ProgramBlock,
        otherwise: Option<ProgramBlock>,
    },
    /// `swap(A, B)`: the two names trade tensors (ping-pong buffers, no copy).
    Swap(Ident, Ident),
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct Kernel {
    pub attributes: Vec<Attribute>,
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Attribute {
    pub name: Ident,
    pub args: Vec<AttributeArg>,
    pub span: Span,
}

/// `256` in `@launch(256)`, `N: 4096` in `@cluster(N: 4096)`.
#[derive(Clone, Debug, Serialize)]
pub struct AttributeArg {
    pub key: Option<Ident>,
    pub value: Expr,
}

#[derive(Clone, Debug, Serialize)]
pub struct Param {
    /// `None` where the source wrote `ctx`, which is reserved (reported by the parser).
    pub name: Ident,
    pub ty: TypeExpr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum TypeExpr {
    /// `f32`, `i32`, `u32`, `f16`, `bool`, or any other name (the checker rejects unknown ones).
    Named(Ident),
    Tensor {
        element: Ident,
        dims: Vec<Dim>,
        span: Span,
    },
    /// `tile<f32>[32, 32]`: a function's tile parameter (literal extents).
    Tile {
        element: Ident,
        dims: Vec<Dim>,
        span: Span,
    },
    Error(Span),
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(ident) => ident.span,
            TypeExpr::Tensor { span, .. } | TypeExpr::Tile { span, .. } | TypeExpr::Error(span) => {
                *span
            }
        }
    }
}

/// One extent of a tensor type: a literal, a dimension name bound at launch, or an integer
/// expression of dimensions (`N / 2`, `L - K + 1`) the launch computes.
#[derive(Clone, Debug, Serialize)]
pub enum Dim {
    Literal(Option<u64>, Span),
    Name(Ident),
    Expr(Expr),
}

impl Dim {
    pub fn span(&self) -> Span {
        match self {
            Dim::Literal(_, span) => *span,
            Dim::Name(name) => name.span,
            Dim::Expr(e) => e.span,
        }
    }

    /// The extent as written, spaced one way (`N / 2`, `ceil(N / 4)`): a derived
    /// dimension's name in types, messages and the IR.
    pub fn text(&self) -> String {
        match self {
            Dim::Literal(n, _) => n.map_or("?".into(), |n| n.to_string()),
            Dim::Name(name) => name.name.clone(),
            Dim::Expr(e) => extent_text(e, 0),
        }
    }
}

/// `e` printed with the parentheses its operators need below a parent binding `outer` tightly.
fn extent_text(e: &Expr, outer: u8) -> String {
    let precedence = |op: &BinaryOp| match op {
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 2,
        _ => 1,
    };
    match &e.kind {
        ExprKind::Int(n) => n.map_or("?".into(), |n| n.to_string()),
        ExprKind::Name(name) => name.clone(),
        ExprKind::Unary(UnaryOp::Neg, x) => format!("-{}", extent_text(x, 3)),
        ExprKind::Binary(op, l, r) => {
            let p = precedence(op);
            // Left-associative: a right operand of the same precedence keeps its parentheses.
            let text = format!(
                "{} {} {}",
                extent_text(l, p),
                op.symbol(),
                extent_text(r, p + 1)
            );
            if p < outer {
                format!("({text})")
            } else {
                text
            }
        }
        ExprKind::Call { callee, args } => {
            let args: Vec<String> = args.iter().map(|a| extent_text(a, 0)).collect();
            format!("{}({})", callee.name, args.join(", "))
        }
        _ => "?".into(),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub enum StmtKind {
    Let {
        mutable: bool,
        name: Ident,
        ty: Option<TypeExpr>,
        value: Expr,
    },
    /// `target = value`, or `target op= value` with `op` the binary operator.
    Assign {
        target: Expr,
        op: Option<BinaryOp>,
        value: Expr,
    },
    Expr(Expr),
    If {
        condition: Expr,
        then_block: Block,
        else_branch: Option<Box<Stmt>>,
    },
    /// An `else { }` block, as the else branch of an `If`.
    Block(Block),
    While {
        condition: Expr,
        body: Block,
    },
    For {
        var: Ident,
        range: Expr,
        body: Block,
    },
    Break,
    Continue,
    /// `return`, or `return value` in a function with a result.
    Return(Option<Expr>),
    Error,
}

#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

impl Expr {
    /// Its direct subexpressions that are values: operands, arguments, a base and its index
    /// coordinates, a scratch tile's fill (not a collective's `over` path, nor a tile's shape).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Unary(_, x) => vec![x],
            ExprKind::Binary(_, a, b) => vec![a, b],
            ExprKind::Call { args, .. }
            | ExprKind::Collective { args, .. }
            | ExprKind::Bitcast { args, .. } => args.iter().collect(),
            ExprKind::Index { base, indices } => {
                let mut out = vec![&**base];
                for index in indices {
                    match index {
                        IndexArg::Single(e) => out.push(e),
                        IndexArg::Tile { start, length } => out.extend([start, length]),
                        IndexArg::Whole(_) => {}
                    }
                }
                out
            }
            ExprKind::Scratch { fill, .. } | ExprKind::Array { fill, .. } => fill.iter().collect(),
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Name(_)
            | ExprKind::Ctx(_)
            | ExprKind::Error => Vec::new(),
        }
    }

    /// The names in this expression's operands and arguments, left to right (the dimensions
    /// of a derived extent, `L - KS + 1`).
    pub fn names(&self) -> Vec<Ident> {
        fn walk(e: &Expr, found: &mut Vec<Ident>) {
            match &e.kind {
                ExprKind::Name(name) => found.push(Ident {
                    name: name.clone(),
                    span: e.span,
                }),
                ExprKind::Unary(_, x) => walk(x, found),
                ExprKind::Binary(_, l, r) => {
                    walk(l, found);
                    walk(r, found);
                }
                ExprKind::Call { args, .. } => args.iter().for_each(|a| walk(a, found)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        walk(self, &mut found);
        found
    }
}

#[derive(Clone, Debug, Serialize)]
pub enum ExprKind {
    Int(Option<u64>),
    Float(f64),
    Bool(bool),
    Name(String),
    /// `ctx.a.b`, the fields as written; `syntax::ctx` resolves them.
    Ctx(CtxPath),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `f(args)`, including casts (`f32(x)`), built-ins and `barrier()`.
    Call {
        callee: Ident,
        args: Vec<Expr>,
    },
    /// `sum<over ctx.lane>(x)`.
    Collective {
        op: Ident,
        over: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `A[i, j]`, `A[r :+ 64, :]`.
    Index {
        base: Box<Expr>,
        indices: Vec<IndexArg>,
    },
    /// `bitcast<u32>(x)`: `x`'s bits read as another 32-bit type (the checker holds it to
    /// `i32`, `u32` and `f32`, and one argument).
    Bitcast {
        to: Ident,
        args: Vec<Expr>,
    },
    /// `tile<f32>[8, 32](0.0)`: a scratch tile, in shared memory with no tensor behind it,
    /// every element `fill` (parsed as an index and arguments are; the checker wants integer
    /// literals and one value).
    Scratch {
        element: Ident,
        shape: Vec<IndexArg>,
        fill: Vec<Expr>,
    },
    /// `array<f32>[8](0.0)`: a per-thread array, every element `fill`, parsed as a scratch
    /// tile is (the checker wants integer literals, at most 256 elements, and one value).
    Array {
        element: Ident,
        shape: Vec<IndexArg>,
        fill: Vec<Expr>,
    },
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CtxPath {
    pub fields: Vec<Ident>,
}

#[derive(Clone, Debug, Serialize)]
pub enum IndexArg {
    Single(Expr),
    Tile { start: Expr, length: Expr },
    Whole(Span),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    MatMul,
    Add,
    Sub,
    Shl,
    Shr,
    BitAnd,
    BitXor,
    BitOr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::MatMul => "@",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        )
    }
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}
