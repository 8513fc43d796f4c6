//! Checking: names, types and uniformity.
//!
//! In: the AST (with its syntax errors already reported). Out: [`Checked`]: per kernel its
//! launch shape and parameters, a table of every name occurrence with its type and
//! uniformity (for the editor's hover), and the diagnostics.
//!
//! Uniformity is flow-sensitive: a `var` takes the uniformity of what was last assigned to
//! it, joined with the control it was assigned under (control dependence). Loops are
//! analysed to a fixed point: every pass over a kernel starts each loop from what the
//! previous pass saw at its back edges; the lattice is finite, so passes stop, and after
//! [`MAX_PASSES`] every mutable variable at a loop head is taken as varying (sound, and never
//! reached by real kernels).
//!
//! Invariant: a node whose type is `Error` was reported already; nothing is reported twice.

mod builtins;
mod types;
mod uniformity;

pub use types::Type;
pub use uniformity::{Cause, CauseKind, Uniformity};

use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::MAX_THREADS_PER_CTA;
use crate::ir::{CtxField, Scalar};
use crate::span::Span;
use crate::syntax::ast::*;
use crate::syntax::ctx;
use serde::Serialize;
use std::collections::HashMap;
use types::{assignable, unify};
use uniformity::strongest;

/// Passes over one kernel before loop heads are widened to varying.
pub const MAX_PASSES: usize = 8;

/// What the checker learnt about a file.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Checked {
    pub kernels: Vec<KernelInfo>,
    /// Every name, `ctx` field and declaration, with its type and uniformity.
    pub names: Vec<NameInfo>,
    #[serde(skip)]
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// The innermost name at a byte offset: what the editor shows on hover.
    pub fn name_at(&self, offset: usize) -> Option<&NameInfo> {
        self.names
            .iter()
            .filter(|n| n.span.start <= offset && offset < n.span.end)
            .min_by_key(|n| n.span.len())
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct KernelInfo {
    pub name: String,
    pub span: Span,
    /// `@launch(threads)`, when it is valid.
    pub threads: Option<u32>,
    /// `@cluster(dim: size)`, when given and valid.
    pub cluster: Option<(String, u64)>,
    pub params: Vec<ParamInfo>,
    /// Dimension names in the order they first appear in the parameters.
    pub dims: Vec<String>,
    /// Bytes of shared memory the kernel's tiles take.
    pub shared_bytes: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ParamInfo {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NameKind {
    Param,
    Dim,
    Let,
    Var,
    LoopVar,
    Ctx,
}

#[derive(Clone, Debug, Serialize)]
pub struct NameInfo {
    pub span: Span,
    pub name: String,
    pub kind: NameKind,
    pub ty: Type,
    pub uniformity: Uniformity,
}

impl NameInfo {
    /// `col: i32 · warp-uniform`, as the editor shows it.
    pub fn describe(&self) -> String {
        format!("{}: {} · {}", self.name, self.ty, self.uniformity)
    }
}

pub fn check(file: &File) -> Checked {
    let mut checked = Checked::default();
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for kernel in &file.kernels {
        if let Some(first) = seen.insert(&kernel.name.name, kernel.name.span) {
            checked.diagnostics.push(
                Diagnostic::error(
                    Code::E0205,
                    kernel.name.span,
                    format!("a kernel named `{}` is already defined", kernel.name.name),
                )
                .with_label("defined again here")
                .with_secondary(first, "first defined here")
                .with_help("kernels are picked by name, so each needs its own"),
            );
        }
        let (info, names, diagnostics) = check_kernel(kernel);
        checked.kernels.push(info);
        checked.names.extend(names);
        checked.diagnostics.extend(diagnostics);
    }
    checked.diagnostics.sort_by_key(|d| (d.span.start, d.code));
    checked
}

fn check_kernel(kernel: &Kernel) -> (KernelInfo, Vec<NameInfo>, Vec<Diagnostic>) {
    let mut loops = HashMap::new();
    let mut pass = 0;
    loop {
        let widen = pass == MAX_PASSES;
        let mut checker = KernelChecker::new(loops, widen);
        let info = checker.kernel(kernel);
        let changed = checker.loops_changed;
        if !changed || widen {
            return (info, checker.names, checker.diagnostics);
        }
        loops = checker.loops;
        pass += 1;
    }
}

/// A value's type and uniformity.
#[derive(Clone, Debug)]
struct Value {
    ty: Type,
    uniformity: Uniformity,
}

impl Value {
    fn new(ty: Type, uniformity: Uniformity) -> Self {
        Self { ty, uniformity }
    }

    fn error() -> Self {
        Self::new(Type::Error, Uniformity::Uniform)
    }
}

struct Variable {
    name: String,
    ty: Type,
    kind: NameKind,
    declared_at: Span,
    /// How many control causes were in force where it was declared: assignments join with
    /// the causes pushed since.
    control_depth: usize,
}

/// What a pass saw at a loop, for the next pass to start from.
#[derive(Clone, Debug, Default, PartialEq)]
struct LoopState {
    /// Variable uniformities flowing back to the loop head (body end and `continue`s).
    back_edge: Vec<Uniformity>,
    /// The strongest early exit (break/continue) taken under divergent control in the body.
    divergent_exit: Option<(Uniformity, Span, CauseKind)>,
}

/// A `break`, `continue` or `return` leaving the statement being walked.
#[derive(Clone, Copy)]
struct Exit {
    keyword: &'static str,
    /// The strongest cause in force at the jump, counted from the loop (or kernel) it leaves.
    cause: Option<Cause>,
}

struct LoopFrame {
    key: usize,
    control_base: usize,
    continue_env: Option<Vec<Uniformity>>,
    break_env: Option<Vec<Uniformity>>,
    divergent_exit: Option<Cause>,
}

struct KernelChecker {
    diagnostics: Vec<Diagnostic>,
    names: Vec<NameInfo>,
    vars: Vec<Variable>,
    /// The current uniformity of each variable (flow-sensitive), indexed like `vars`.
    env: Vec<Uniformity>,
    scopes: Vec<Vec<(String, usize)>>,
    control: Vec<Cause>,
    frames: Vec<LoopFrame>,
    loops: HashMap<usize, LoopState>,
    previous_loops: HashMap<usize, LoopState>,
    loops_changed: bool,
    widen: bool,
    shared_bytes: u64,
    /// Each store into a tensor parameter: its name and where (the @cluster rules).
    tensor_stores: Vec<(String, Span)>,
}

/// Joins `b` into `a` variable by variable; `a` keeps its length (variables declared after
/// it was taken are out of its scope).
fn join_env(a: &mut [Uniformity], b: &[Uniformity]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.join(*y);
    }
}

impl KernelChecker {
    fn new(previous_loops: HashMap<usize, LoopState>, widen: bool) -> Self {
        Self {
            diagnostics: Vec::new(),
            names: Vec::new(),
            vars: Vec::new(),
            env: Vec::new(),
            scopes: vec![Vec::new()],
            control: Vec::new(),
            frames: Vec::new(),
            loops: HashMap::new(),
            previous_loops,
            loops_changed: false,
            widen,
            shared_bytes: 0,
            tensor_stores: Vec::new(),
        }
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    // ---- kernels, attributes, parameters ----

    fn kernel(&mut self, kernel: &Kernel) -> KernelInfo {
        let (params, dims) = self.params(kernel);
        let threads = self.launch(kernel);
        let cluster = self.cluster(kernel, &dims);
        self.unknown_attributes(kernel);
        let exits = self.block(&kernel.body);
        // A `return` ends the kernel; a stray break/continue was reported where it stands.
        drop(exits);
        if let Some((dim, _)) = &cluster {
            self.what_a_cluster_can_split(dim, &params);
        }
        KernelInfo {
            name: kernel.name.name.clone(),
            span: kernel.span,
            threads,
            cluster,
            params,
            dims,
            shared_bytes: self.shared_bytes,
        }
    }

    fn attributes<'k>(&mut self, kernel: &'k Kernel, name: &str) -> Option<&'k Attribute> {
        let mut found = kernel.attributes.iter().filter(|a| a.name.name == name);
        let first = found.next()?;
        for again in found {
            self.error(
                Diagnostic::error(Code::E0122, again.span, format!("@{name} is given twice"))
                    .with_label("given again here")
                    .with_secondary(first.span, "first given here"),
            );
        }
        Some(first)
    }

    fn launch(&mut self, kernel: &Kernel) -> Option<u32> {
        let Some(attribute) = self.attributes(kernel, "launch") else {
            self.error(
                Diagnostic::error(
                    Code::E0120,
                    kernel.name.span,
                    format!("kernel `{}` has no @launch", kernel.name.name),
                )
                .with_label("how many threads does each CTA have?")
                .with_help("add @launch(THREADS) on the line before `kernel`, e.g. @launch(256)"),
            );
            return None;
        };
        let value = match attribute.args.as_slice() {
            [AttributeArg { key: None, value }] => match value.kind {
                ExprKind::Int(Some(n)) => Some((n, value.span)),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some((n, _)) if (1..=u64::from(MAX_THREADS_PER_CTA)).contains(&n) => Some(n as u32),
            Some((n, span)) => {
                self.error(
                    Diagnostic::error(
                        Code::E0121,
                        span,
                        format!("@launch({n}) is outside 1 to {MAX_THREADS_PER_CTA} threads"),
                    )
                    .with_label("threads per CTA")
                    .with_help(format!(
                        "a CTA has at most {MAX_THREADS_PER_CTA} threads; use more CTAs in the grid for more work"
                    )),
                );
                None
            }
            None => {
                self.error(
                    Diagnostic::error(
                        Code::E0121,
                        attribute.span,
                        "@launch takes one integer literal",
                    )
                    .with_label("the CTA size must be known at compile time")
                    .with_help("write it as a number, e.g. @launch(256)"),
                );
                None
            }
        }
    }

    fn cluster(&mut self, kernel: &Kernel, dims: &[String]) -> Option<(String, u64)> {
        let attribute = self.attributes(kernel, "cluster")?;
        match attribute.args.as_slice() {
            [AttributeArg {
                key: Some(dim),
                value:
                    Expr {
                        kind: ExprKind::Int(Some(size)),
                        ..
                    },
            }] if dims.contains(&dim.name) && *size > 0 => Some((dim.name.clone(), *size)),
            [AttributeArg { key: Some(dim), .. }] if !dims.contains(&dim.name) => {
                self.error(
                    Diagnostic::error(
                        Code::E0123,
                        dim.span,
                        format!(
                            "`{}` is not a dimension of kernel `{}`",
                            dim.name, kernel.name.name
                        ),
                    )
                    .with_label("not a dimension name")
                    .with_help(match dims {
                        [] => "the kernel's tensors name no dimensions to split".to_owned(),
                        _ => format!("its dimensions are {}", dims.join(", ")),
                    }),
                );
                None
            }
            _ => {
                self.error(
                    Diagnostic::error(Code::E0123, attribute.span, "@cluster takes DIM: SIZE")
                        .with_label("e.g. @cluster(N: 4096)")
                        .with_help(
                            "name one dimension of the kernel and a positive super-tile size",
                        ),
                );
                None
            }
        }
    }

    /// Under `@cluster(dim: …)` each super-tile runs over its own slice of every tensor with
    /// `dim` in its shape, and the slices are written back: a tensor sliced twice (`[N, N]`)
    /// would be a block of the diagonal, and a tensor without `dim` would be written by every
    /// super-tile, in an order no node knows.
    fn what_a_cluster_can_split(&mut self, dim: &str, params: &[ParamInfo]) {
        let dims_of = |name: &str| {
            params
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| match &p.ty {
                    Type::Tensor { dims, .. } => Some(dims.clone()),
                    _ => None,
                })
        };
        for param in params {
            let Type::Tensor { dims, .. } = &param.ty else {
                continue;
            };
            if dims.iter().filter(|d| d.as_str() == dim).count() > 1 {
                let span = self
                    .names
                    .iter()
                    .find(|n| n.name == param.name && n.kind == NameKind::Param)
                    .map_or(Span::empty(0), |n| n.span);
                self.error(
                    Diagnostic::error(
                        Code::E0125,
                        span,
                        format!(
                            "`{}` has the cluster dimension `{dim}` on more than one axis",
                            param.name
                        ),
                    )
                    .with_label(format!("shape [{}]", dims.join(", ")))
                    .with_help(
                        "a super-tile slices one axis; give the other axis its own dimension name",
                    ),
                );
            }
        }
        let mut reported = Vec::new();
        for (name, span) in std::mem::take(&mut self.tensor_stores) {
            let sliced = dims_of(&name).is_some_and(|dims| dims.iter().any(|d| d == dim));
            if sliced || reported.contains(&name) {
                continue;
            }
            self.error(
                Diagnostic::error(
                    Code::E0126,
                    span,
                    format!("`{name}` is written, but @cluster does not slice it"),
                )
                .with_label(format!("`{name}` has no axis `{dim}`"))
                .with_help(
                    "every super-tile would write the whole tensor; write only tensors with the cluster dimension, or drop @cluster",
                ),
            );
            reported.push(name);
        }
    }

    fn unknown_attributes(&mut self, kernel: &Kernel) {
        for attribute in &kernel.attributes {
            if !matches!(attribute.name.name.as_str(), "launch" | "cluster") {
                self.error(
                    Diagnostic::error(
                        Code::E0122,
                        attribute.name.span,
                        format!("unknown attribute @{}", attribute.name.name),
                    )
                    .with_label("not an attribute")
                    .with_help("the attributes are @launch(THREADS) and @cluster(DIM: SIZE)"),
                );
            }
        }
    }

    fn params(&mut self, kernel: &Kernel) -> (Vec<ParamInfo>, Vec<String>) {
        let mut params = Vec::new();
        let mut dims: Vec<String> = Vec::new();
        let mut declared: HashMap<String, Span> = HashMap::new();
        let mut duplicate = |checker: &mut Self, name: &Ident, what: &str| {
            if let Some(first) = declared.insert(name.name.clone(), name.span) {
                checker.error(
                    Diagnostic::error(
                        Code::E0202,
                        name.span,
                        format!("`{}` is already a name of this kernel", name.name),
                    )
                    .with_label(format!("declared again as a {what}"))
                    .with_secondary(first, "first declared here"),
                );
                false
            } else {
                true
            }
        };
        for param in &kernel.params {
            let ty = self.param_type(&param.ty);
            if duplicate(self, &param.name, "parameter") && param.name.name != "ctx" {
                self.declare(
                    &param.name,
                    ty.clone(),
                    NameKind::Param,
                    Uniformity::Uniform,
                );
            }
            if let TypeExpr::Tensor {
                dims: tensor_dims, ..
            } = &param.ty
            {
                for dim in tensor_dims {
                    let Dim::Name(name) = dim else { continue };
                    if dims.contains(&name.name) {
                        self.record(name, Type::I32, NameKind::Dim, Uniformity::Uniform);
                        continue;
                    }
                    if duplicate(self, name, "dimension") {
                        dims.push(name.name.clone());
                        self.declare(name, Type::I32, NameKind::Dim, Uniformity::Uniform);
                    }
                }
            }
            params.push(ParamInfo {
                name: param.name.name.clone(),
                ty,
            });
        }
        (params, dims)
    }

    fn param_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(name) => match Scalar::from_name(&name.name) {
                Some(scalar) if scalar != Scalar::Bool => Type::Scalar(scalar),
                _ => {
                    self.error(
                        Diagnostic::error(Code::E0201, name.span, format!("unknown type `{}`", name.name))
                            .with_label("not a parameter type")
                            .with_help("scalar parameters are f32, i32, u32 or f16; tensors are tensor<f32>[N, K]"),
                    );
                    Type::Error
                }
            },
            TypeExpr::Tensor {
                element,
                dims,
                span,
            } => {
                let element_type = match Scalar::from_name(&element.name) {
                    Some(scalar) if scalar != Scalar::Bool => Some(scalar),
                    _ => {
                        self.error(
                            Diagnostic::error(
                                Code::E0124,
                                element.span,
                                format!("`{}` is not a tensor element type", element.name),
                            )
                            .with_label("expected f32, i32, u32 or f16"),
                        );
                        None
                    }
                };
                if !(1..=3).contains(&dims.len()) {
                    self.error(
                        Diagnostic::error(
                            Code::E0124,
                            *span,
                            format!("a tensor of rank {}", dims.len()),
                        )
                        .with_label("tensors have 1 to 3 dimensions"),
                    );
                    return Type::Error;
                }
                let mut names = Vec::new();
                let mut extents = Vec::new();
                for dim in dims {
                    match dim {
                        Dim::Literal(Some(n), _) if *n > 0 && *n <= u64::from(u32::MAX) => {
                            names.push(n.to_string());
                            extents.push(Some(*n));
                        }
                        Dim::Literal(_, span) => {
                            self.error(
                                Diagnostic::error(
                                    Code::E0311,
                                    *span,
                                    "a tensor extent must be from 1 to 4294967295",
                                )
                                .with_label("not a valid extent"),
                            );
                            names.push("?".into());
                            extents.push(None);
                        }
                        Dim::Name(name) => {
                            names.push(name.name.clone());
                            extents.push(None);
                        }
                    }
                }
                match element_type {
                    Some(element) => Type::Tensor {
                        element,
                        dims: names.into(),
                        extents: extents.into(),
                    },
                    None => Type::Error,
                }
            }
            TypeExpr::Error(_) => Type::Error,
        }
    }

    // ---- names and scopes ----

    fn declare(&mut self, name: &Ident, ty: Type, kind: NameKind, uniformity: Uniformity) -> usize {
        let id = self.vars.len();
        self.vars.push(Variable {
            name: name.name.clone(),
            ty: ty.clone(),
            kind,
            declared_at: name.span,
            control_depth: self.control.len(),
        });
        self.env.push(uniformity);
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name.name.clone(), id));
        }
        self.record(name, ty, kind, uniformity);
        id
    }

    /// A `let`/`var` declaration: reports a second declaration in the same scope.
    fn declare_local(&mut self, name: &Ident, ty: Type, kind: NameKind, uniformity: Uniformity) {
        if name.name == "ctx" {
            return; // reported by the parser's ctx rules
        }
        let earlier = self
            .scopes
            .last()
            .and_then(|scope| scope.iter().rev().find(|(n, _)| *n == name.name))
            .map(|&(_, id)| self.vars[id].declared_at);
        if let Some(first) = earlier {
            self.error(
                Diagnostic::error(
                    Code::E0203,
                    name.span,
                    format!("`{}` is already declared in this block", name.name),
                )
                .with_label("declared again here")
                .with_secondary(first, "first declared here")
                .with_help("pick another name, or assign to it if it is a var"),
            );
        }
        self.declare(name, ty, kind, uniformity);
    }

    fn record(&mut self, name: &Ident, ty: Type, kind: NameKind, uniformity: Uniformity) {
        self.names.push(NameInfo {
            span: name.span,
            name: name.name.clone(),
            kind,
            ty,
            uniformity,
        });
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.iter().rev().find(|(n, _)| n == name))
            .map(|&(_, id)| id)
    }

    fn names_in_scope(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().flatten().map(|(n, _)| n.as_str())
    }

    fn unknown_name(&mut self, name: &str, span: Span) {
        let mut diagnostic =
            Diagnostic::error(Code::E0201, span, format!("`{name}` is not defined"))
                .with_label("not defined here");
        if let Some(similar) = builtins::closest(name, self.names_in_scope()) {
            diagnostic = diagnostic.with_help(format!("a name in scope is similar: `{similar}`"));
        } else if matches!(
            name,
            "threadIdx" | "blockIdx" | "blockDim" | "gridDim" | "warpSize"
        ) {
            diagnostic = diagnostic.with_help("Tessera has no CUDA built-in variables: read ctx.thread, ctx.block.x, ctx.threads, ctx.blocks.x or ctx.lanes");
        }
        self.error(diagnostic);
    }

    fn with_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.scopes.push(Vec::new());
        let result = f(self);
        self.scopes.pop();
        result
    }

    // ---- control ----

    /// Reports `what` if control here is more divergent than `needed`.
    fn require_control(&mut self, needed: Uniformity, what: &str, span: Span) {
        let Some(cause) = strongest(&self.control) else {
            return;
        };
        if cause.uniformity <= needed {
            return;
        }
        let (code, needed_text) = if needed == Uniformity::Uniform {
            (Code::E0401, "every thread of the CTA")
        } else {
            (Code::E0402, "every lane of the warp")
        };
        let mut diagnostic = Diagnostic::error(
            code,
            span,
            format!(
                "{what} is reached under {} control",
                cause.uniformity.name()
            ),
        )
        .with_label(format!("{what} needs {needed_text} to get here together"))
        .with_secondary(cause.span, cause.label());
        if let CauseKind::EarlyExit { jump, keyword } = cause.kind {
            diagnostic = diagnostic.with_secondary(jump, format!("some threads `{keyword}` here"));
        }
        let help = match needed {
            Uniformity::Uniform => format!(
                "move {what} where every thread of the CTA reaches it, or make the condition uniform (from ctx.block, ctx.blocks, parameters and literals)"
            ),
            _ => format!(
                "move {what} where every lane of the warp reaches it, or make the condition warp-uniform (ctx.warp and uniform values)"
            ),
        };
        self.error(diagnostic.with_help(help));
    }

    fn push_cause(&mut self, uniformity: Uniformity, span: Span, kind: CauseKind) {
        self.control.push(Cause {
            uniformity,
            span,
            kind,
        });
    }

    // ---- statements ----

    fn block(&mut self, block: &Block) -> Vec<Exit> {
        self.with_scope(|checker| checker.statements(&block.stmts))
    }

    fn statements(&mut self, stmts: &[Stmt]) -> Vec<Exit> {
        let depth = self.control.len();
        let mut exits = Vec::new();
        for stmt in stmts {
            for exit in self.stmt(stmt) {
                if let Some(cause) = exit.cause {
                    self.control.push(cause);
                }
                exits.push(exit);
            }
        }
        self.control.truncate(depth);
        exits
    }

    fn stmt(&mut self, stmt: &Stmt) -> Vec<Exit> {
        match &stmt.kind {
            StmtKind::Let {
                mutable,
                name,
                ty,
                value,
            } => {
                self.let_(*mutable, name, ty.as_ref(), value);
                Vec::new()
            }
            StmtKind::Assign { target, op, value } => {
                self.assign(target, *op, value, stmt.span);
                Vec::new()
            }
            StmtKind::Expr(expr) => {
                self.expr(expr);
                Vec::new()
            }
            StmtKind::If {
                condition,
                then_block,
                else_branch,
            } => self.if_(condition, then_block, else_branch.as_deref()),
            StmtKind::Block(block) => self.block(block),
            StmtKind::While { condition, body } => self.while_(condition, body, stmt.span),
            StmtKind::For { var, range, body } => self.for_(var, range, body, stmt.span),
            StmtKind::Break => self.jump("break", stmt.span),
            StmtKind::Continue => self.jump("continue", stmt.span),
            StmtKind::Return => {
                let cause = strongest(&self.control).filter(|c| c.uniformity > Uniformity::Uniform);
                vec![Exit {
                    keyword: "return",
                    cause: cause.map(|c| early_exit(c, "return", stmt.span)),
                }]
            }
            StmtKind::Error => Vec::new(),
        }
    }

    fn let_(&mut self, mutable: bool, name: &Ident, declared: Option<&TypeExpr>, value: &Expr) {
        let value = self.expr(value);
        let kind = if mutable {
            NameKind::Var
        } else {
            NameKind::Let
        };
        let ty = match declared {
            None => {
                if value.ty == Type::Unit {
                    self.no_value(name.span);
                    Type::Error
                } else {
                    value.ty.clone().concrete()
                }
            }
            Some(declared) => {
                let ty = self.local_type(declared);
                if !assignable(&value.ty, &ty) && !ty.is_error() {
                    self.error(
                        Diagnostic::error(
                            Code::E0312,
                            name.span,
                            format!("`{}` is declared {ty} but given {}", name.name, value.ty),
                        )
                        .with_label(format!("expected {ty}"))
                        .with_help(cast_help(&value.ty, &ty)),
                    );
                }
                ty
            }
        };
        if let Type::Tile { element, shape } = &ty {
            self.shared_bytes += shape.iter().product::<u64>() * element.size();
        }
        self.declare_local(name, ty, kind, value.uniformity);
    }

    fn local_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(name) => match Scalar::from_name(&name.name) {
                Some(scalar) => Type::Scalar(scalar),
                None => {
                    self.error(
                        Diagnostic::error(
                            Code::E0201,
                            name.span,
                            format!("unknown type `{}`", name.name),
                        )
                        .with_label("not a type")
                        .with_help("the scalar types are f32, i32, u32, f16 and bool"),
                    );
                    Type::Error
                }
            },
            TypeExpr::Tensor { span, .. } => {
                self.error(
                    Diagnostic::error(Code::E0309, *span, "a local cannot be a tensor")
                        .with_label("tensors are kernel parameters")
                        .with_help("copy a tile of it instead: var t = A[r :+ 64, :]"),
                );
                Type::Error
            }
            TypeExpr::Error(_) => Type::Error,
        }
    }

    fn no_value(&mut self, span: Span) {
        self.error(
            Diagnostic::error(Code::E0314, span, "this expression has no value")
                .with_label("barrier() returns nothing"),
        );
    }

    /// The uniformity a variable gets when `value` is assigned to it here.
    fn assigned_uniformity(&self, id: usize, value: Uniformity) -> Uniformity {
        let depth = self.vars[id].control_depth.min(self.control.len());
        let control =
            strongest(&self.control[depth..]).map_or(Uniformity::Uniform, |c| c.uniformity);
        value.join(control)
    }

    fn assign(&mut self, target: &Expr, op: Option<BinaryOp>, value_expr: &Expr, span: Span) {
        let value = self.expr(value_expr);
        match &target.kind {
            ExprKind::Name(name) => {
                let Some(id) = self.lookup(name) else {
                    self.unknown_name(name, target.span);
                    return;
                };
                let (ty, kind, declared_at) = {
                    let var = &self.vars[id];
                    (var.ty.clone(), var.kind, var.declared_at)
                };
                let uniformity = self.env[id];
                self.names.push(NameInfo {
                    span: target.span,
                    name: name.clone(),
                    kind,
                    ty: ty.clone(),
                    uniformity,
                });
                if kind != NameKind::Var {
                    self.error(
                        Diagnostic::error(
                            Code::E0204,
                            target.span,
                            format!("`{name}` cannot be assigned: it is {}", kind_phrase(kind)),
                        )
                        .with_label("assigned here")
                        .with_secondary(declared_at, "declared here")
                        .with_help(match kind {
                            NameKind::Let => {
                                format!("declare it with `var {name} = ...` to change it")
                            }
                            _ => "copy it into a var to change it".to_owned(),
                        }),
                    );
                    return;
                }
                let result = self.assigned_value(&ty, op, &value, value_expr.span, span);
                if let Some(result) = result {
                    let combined = match op {
                        Some(_) => result.uniformity.join(self.env[id]),
                        None => result.uniformity,
                    };
                    self.env[id] = self.assigned_uniformity(id, combined);
                }
            }
            ExprKind::Index { base, indices } => {
                let Some((element, is_tile_store)) = self.store_target(base, indices, target.span)
                else {
                    return;
                };
                if is_tile_store {
                    self.require_control(Uniformity::Uniform, "a tile store", target.span);
                    let fits = match &value.ty {
                        Type::Tile { .. } => value.ty == element,
                        other => other.is_numeric() || other.is_error(),
                    };
                    if !fits && !element.is_error() {
                        self.error(
                            Diagnostic::error(
                                Code::E0309,
                                value_expr.span,
                                format!("{} cannot be stored into {element}", value.ty),
                            )
                            .with_label("shapes and element types must match")
                            .with_secondary(target.span, format!("this is {element}")),
                        );
                    }
                } else {
                    self.assigned_value(&element, op, &value, value_expr.span, span);
                }
            }
            ExprKind::Error => {}
            _ => {
                let found = self.expr(target);
                if !found.ty.is_error() {
                    self.error(
                        Diagnostic::error(Code::E0204, target.span, "this cannot be assigned to")
                            .with_label("not a variable, a tensor element or a tile")
                            .with_help("assign to a var, to A[i, j] or to a tile A[r :+ 64, :]"),
                    );
                }
            }
        }
    }

    /// Checks `target op= value` for a scalar target of type `target`; the result's value.
    fn assigned_value(
        &mut self,
        target: &Type,
        op: Option<BinaryOp>,
        value: &Value,
        value_span: Span,
        stmt_span: Span,
    ) -> Option<Value> {
        let result = match op {
            None => value.clone(),
            Some(op) => {
                let current = Value::new(target.clone(), Uniformity::Uniform);
                self.binary_types(op, &current, value, stmt_span)
            }
        };
        if result.ty.is_error() || target.is_error() {
            return Some(result);
        }
        if value.ty == Type::Unit {
            self.no_value(value_span);
            return None;
        }
        if !assignable(&result.ty, target) {
            self.error(
                Diagnostic::error(
                    Code::E0312,
                    value_span,
                    format!("expected {target}, found {}", result.ty),
                )
                .with_label(format!("this is {}", result.ty))
                .with_help(cast_help(&result.ty, target)),
            );
            return None;
        }
        Some(result)
    }

    /// The element type of an assignment target `base[indices]`, and whether it is a tile
    /// store.
    fn store_target(
        &mut self,
        base: &Expr,
        indices: &[IndexArg],
        span: Span,
    ) -> Option<(Type, bool)> {
        let ExprKind::Name(name) = &base.kind else {
            self.expr(base);
            self.error(
                Diagnostic::error(
                    Code::E0306,
                    base.span,
                    "only tensors and tiles can be indexed",
                )
                .with_label("not a tensor or tile name"),
            );
            return None;
        };
        let Some(id) = self.lookup(name) else {
            self.unknown_name(name, base.span);
            return None;
        };
        let base_value = self.use_var(id, base.span);
        if let Type::Tile { .. } = &base_value.ty {
            if self.vars[id].kind != NameKind::Var {
                self.error(
                    Diagnostic::error(
                        Code::E0204,
                        base.span,
                        format!("the tile `{name}` cannot be written: it is a let"),
                    )
                    .with_label("written here")
                    .with_secondary(self.vars[id].declared_at, "declared here")
                    .with_help(format!(
                        "declare it with `var {name} = ...` to write its elements"
                    )),
                );
            }
        }
        if let Type::Tensor { .. } = &base_value.ty {
            self.tensor_stores.push((name.clone(), base.span));
        }
        let value = self.index(&base_value, base.span, indices, span);
        let is_tile = value.ty.is_tile() && base_value.ty != value.ty;
        Some((
            value.ty,
            is_tile && matches!(base_value.ty, Type::Tensor { .. }),
        ))
    }

    fn if_(
        &mut self,
        condition: &Expr,
        then_block: &Block,
        else_branch: Option<&Stmt>,
    ) -> Vec<Exit> {
        let cond = self.condition(condition);
        self.push_cause(cond.uniformity, condition.span, CauseKind::Condition);
        let before = self.env.clone();
        let mut exits = self.block(then_block);
        let after_then = std::mem::replace(&mut self.env, before);
        self.env.resize(self.vars.len(), Uniformity::Uniform);
        if let Some(branch) = else_branch {
            exits.extend(self.stmt(branch));
        }
        join_env(&mut self.env, &after_then);
        self.control.pop();
        exits
    }

    fn condition(&mut self, condition: &Expr) -> Value {
        let value = self.expr(condition);
        if value.ty != Type::BOOL && !value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0303,
                    condition.span,
                    format!("a condition must be a bool, not {}", value.ty),
                )
                .with_label(format!("this is {}", value.ty))
                .with_help("compare it, as in `x != 0`"),
            );
        }
        value
    }

    fn jump(&mut self, keyword: &'static str, span: Span) -> Vec<Exit> {
        let Some(frame) = self.frames.last() else {
            self.error(
                Diagnostic::error(Code::E0313, span, format!("`{keyword}` outside a loop"))
                    .with_label("no loop to leave")
                    .with_help("use `return` to end the kernel for this thread"),
            );
            return Vec::new();
        };
        let cause = strongest(&self.control[frame.control_base..])
            .filter(|c| c.uniformity > Uniformity::Uniform)
            .map(|c| early_exit(c, keyword, span));
        let env = self.env.clone();
        if let Some(frame) = self.frames.last_mut() {
            let slot = if keyword == "break" {
                &mut frame.break_env
            } else {
                &mut frame.continue_env
            };
            match slot {
                Some(existing) => join_env(existing, &env),
                None => *slot = Some(env),
            }
            if let Some(cause) = cause {
                if frame
                    .divergent_exit
                    .is_none_or(|d| cause.uniformity > d.uniformity)
                {
                    frame.divergent_exit = Some(cause);
                }
            }
        }
        vec![Exit { keyword, cause }]
    }

    /// Walks a loop: `head` checks the condition or range and gives the trip-count cause.
    fn loop_(
        &mut self,
        key: Span,
        body: &Block,
        head: impl FnOnce(&mut Self) -> Option<Cause>,
        declare: impl FnOnce(&mut Self),
    ) -> Vec<Exit> {
        let state = self
            .previous_loops
            .get(&key.start)
            .cloned()
            .unwrap_or_default();
        join_env(&mut self.env, &state.back_edge);
        if self.widen {
            for (id, var) in self.vars.iter().enumerate() {
                if var.kind == NameKind::Var {
                    self.env[id] = Uniformity::Varying;
                }
            }
        }
        let at_head = self.env.clone();
        let depth = self.control.len();
        let trip = head(self);
        if let Some(trip) = trip {
            self.control.push(trip);
        }
        if let Some((uniformity, span, kind)) = state.divergent_exit {
            self.push_cause(uniformity, span, kind);
        }
        self.frames.push(LoopFrame {
            key: key.start,
            control_base: depth,
            continue_env: None,
            break_env: None,
            divergent_exit: None,
        });
        let exits = self.with_scope(|checker| {
            declare(checker);
            checker.statements(&body.stmts)
        });
        let frame = self.frames.pop();
        self.control.truncate(depth);
        let mut back_edge = self.env.clone();
        let mut after = at_head.clone();
        if let Some(frame) = frame {
            if let Some(env) = &frame.continue_env {
                join_env(&mut back_edge, env);
            }
            if let Some(env) = &frame.break_env {
                join_env(&mut after, env);
            }
            let mut merged = LoopState {
                back_edge: back_edge.clone(),
                divergent_exit: frame.divergent_exit.map(|c| (c.uniformity, c.span, c.kind)),
            };
            join_env(&mut merged.back_edge, &state.back_edge);
            if merged.divergent_exit.is_none() {
                merged.divergent_exit = state.divergent_exit;
            }
            // Another pass is needed only if what flows back would change the loop head.
            let mut head = at_head.clone();
            join_env(&mut head, &merged.back_edge);
            if head != at_head || merged.divergent_exit != state.divergent_exit {
                self.loops_changed = true;
            }
            self.loops.insert(frame.key, merged);
        }
        join_env(&mut after, &back_edge);
        // Variables declared in the body are out of scope; `env` stays indexed like `vars`.
        after.resize(self.vars.len(), Uniformity::Uniform);
        self.env = after;
        // Break and continue stay inside the loop; returns leave it.
        exits
            .into_iter()
            .filter(|e| e.keyword == "return")
            .collect()
    }

    fn while_(&mut self, condition: &Expr, body: &Block, span: Span) -> Vec<Exit> {
        self.loop_(
            span,
            body,
            |checker| {
                let cond = checker.condition(condition);
                Some(Cause {
                    uniformity: cond.uniformity,
                    span: condition.span,
                    kind: CauseKind::Condition,
                })
            },
            |_| {},
        )
    }

    fn for_(&mut self, var: &Ident, range: &Expr, body: &Block, span: Span) -> Vec<Exit> {
        let mut var_uniformity = Uniformity::Uniform;
        let mut trip = Uniformity::Uniform;
        let mut range_ok = true;
        let bounds = match &range.kind {
            ExprKind::Call { callee, args } if callee.name == "range" => Some(args),
            _ => None,
        };
        match bounds {
            Some(args) if (1..=3).contains(&args.len()) => {
                let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                for (arg, value) in args.iter().zip(&values) {
                    if !(assignable(&value.ty, &Type::I32) || value.ty.is_error()) {
                        range_ok = false;
                        self.error(
                            Diagnostic::error(
                                Code::E0310,
                                arg.span,
                                format!("range takes i32 bounds, not {}", value.ty),
                            )
                            .with_label(format!("this is {}", value.ty))
                            .with_help(cast_help(&value.ty, &Type::I32)),
                        );
                    }
                    trip = trip.join(value.uniformity);
                }
                if let [start, _end] = values.as_slice() {
                    var_uniformity = start.uniformity;
                }
                if let [start, _end, step] = values.as_slice() {
                    var_uniformity = start.uniformity.join(step.uniformity);
                    if let ExprKind::Int(Some(0)) = args[2].kind {
                        self.error(
                            Diagnostic::error(
                                Code::E0310,
                                args[2].span,
                                "a range with step 0 never ends",
                            )
                            .with_label("the step must not be zero"),
                        );
                    }
                }
            }
            Some(args) => {
                range_ok = false;
                self.error(
                    Diagnostic::error(
                        Code::E0310,
                        range.span,
                        format!("range takes 1 to 3 arguments, not {}", args.len()),
                    )
                    .with_label("range(end), range(start, end) or range(start, end, step)"),
                );
            }
            None => {
                range_ok = false;
                let value = self.expr(range);
                if !value.ty.is_error() {
                    self.error(
                        Diagnostic::error(
                            Code::E0310,
                            range.span,
                            "a for loop runs over range(...)",
                        )
                        .with_label("not a range")
                        .with_help("write for i in range(start, end, step)"),
                    );
                }
            }
        }
        let ty = if range_ok { Type::I32 } else { Type::Error };
        self.loop_(
            span,
            body,
            |_| {
                Some(Cause {
                    uniformity: trip,
                    span: range.span,
                    kind: CauseKind::TripCount,
                })
            },
            |checker| checker.declare_local(var, ty, NameKind::LoopVar, var_uniformity),
        )
    }

    // ---- expressions ----

    fn use_var(&mut self, id: usize, span: Span) -> Value {
        let var = &self.vars[id];
        let value = Value::new(var.ty.clone(), self.env[id]);
        self.names.push(NameInfo {
            span,
            name: var.name.clone(),
            kind: var.kind,
            ty: value.ty.clone(),
            uniformity: value.uniformity,
        });
        value
    }

    fn expr(&mut self, expr: &Expr) -> Value {
        match &expr.kind {
            ExprKind::Int(Some(n)) if *n <= u64::from(u32::MAX) => {
                Value::new(Type::IntLiteral, Uniformity::Uniform)
            }
            ExprKind::Int(_) => {
                self.error(
                    Diagnostic::error(
                        Code::E0311,
                        expr.span,
                        "this integer does not fit in 32 bits",
                    )
                    .with_label("larger than 4294967295"),
                );
                Value::error()
            }
            ExprKind::Float(f) if f.is_finite() => {
                Value::new(Type::FloatLiteral, Uniformity::Uniform)
            }
            ExprKind::Float(_) => {
                self.error(
                    Diagnostic::error(
                        Code::E0108,
                        expr.span,
                        "this number is too large for a float",
                    )
                    .with_label("not a finite number"),
                );
                Value::error()
            }
            ExprKind::Bool(_) => Value::new(Type::BOOL, Uniformity::Uniform),
            ExprKind::Name(name) => match self.lookup(name) {
                Some(id) => self.use_var(id, expr.span),
                None => {
                    self.unknown_name(name, expr.span);
                    Value::error()
                }
            },
            ExprKind::Ctx(path) => match ctx::resolve(path, expr.span) {
                Ok(field) => {
                    let uniformity = ctx_uniformity(field);
                    self.names.push(NameInfo {
                        span: expr.span,
                        name: field.name(),
                        kind: NameKind::Ctx,
                        ty: Type::I32,
                        uniformity,
                    });
                    Value::new(Type::I32, uniformity)
                }
                Err(_) => Value::error(),
            },
            ExprKind::Unary(op, operand) => self.unary(*op, operand, expr.span),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, expr.span),
            ExprKind::Call { callee, args } => self.call(callee, args, expr.span),
            ExprKind::Collective { op, over, args } => self.collective(op, over, args, expr.span),
            ExprKind::Index { base, indices } => {
                let base_value = match &base.kind {
                    ExprKind::Name(_) => self.expr(base),
                    _ => {
                        let value = self.expr(base);
                        if !value.ty.is_error() {
                            self.error(
                                Diagnostic::error(
                                    Code::E0306,
                                    base.span,
                                    "only tensors and tiles can be indexed",
                                )
                                .with_label(format!("this is {}", value.ty)),
                            );
                        }
                        return Value::error();
                    }
                };
                let value = self.index(&base_value, base.span, indices, expr.span);
                if value.ty.is_tile() && matches!(base_value.ty, Type::Tensor { .. }) {
                    self.require_control(Uniformity::Uniform, "a tile load", expr.span);
                }
                value
            }
            ExprKind::Error => Value::error(),
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, span: Span) -> Value {
        let value = self.expr(operand);
        let fits = match op {
            UnaryOp::Neg => value.ty.is_numeric() || value.ty.is_tile(),
            UnaryOp::Not => value.ty == Type::BOOL,
            UnaryOp::BitNot => value.ty.is_integer(),
        };
        if fits || value.ty.is_error() {
            return value;
        }
        self.error(
            Diagnostic::error(
                Code::E0301,
                span,
                format!("`{}` cannot be applied to {}", op.symbol(), value.ty),
            )
            .with_label(format!("this is {}", value.ty))
            .with_help(match op {
                UnaryOp::Neg => "negate a number",
                UnaryOp::Not => "`!` negates a bool; for integers use `~`",
                UnaryOp::BitNot => "`~` flips the bits of an integer; for a bool use `!`",
            }),
        );
        Value::error()
    }

    fn binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr, span: Span) -> Value {
        let left = self.expr(l);
        let right = if matches!(op, BinaryOp::And | BinaryOp::Or) {
            // The right side runs only where the left side lets it: control depends on it.
            self.push_cause(left.uniformity, l.span, CauseKind::Condition);
            let right = self.expr(r);
            self.control.pop();
            right
        } else {
            self.expr(r)
        };
        self.binary_types(op, &left, &right, span)
    }

    fn binary_types(&mut self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Value {
        let uniformity = left.uniformity.join(right.uniformity);
        if left.ty.is_error() || right.ty.is_error() {
            return Value::error();
        }
        if left.ty.is_tile() || right.ty.is_tile() {
            return self.tile_binary(op, left, right, span);
        }
        let operands_fit = |check: fn(&Type) -> bool| unify(&left.ty, &right.ty).filter(&check);
        let result = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
                operands_fit(Type::is_numeric)
            }
            BinaryOp::Rem
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::BitAnd
            | BinaryOp::BitOr
            | BinaryOp::BitXor => operands_fit(Type::is_integer),
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                operands_fit(Type::is_numeric).map(|_| Type::BOOL)
            }
            BinaryOp::Eq | BinaryOp::Ne => unify(&left.ty, &right.ty)
                .filter(|t| t.is_numeric() || *t == Type::BOOL)
                .map(|_| Type::BOOL),
            BinaryOp::And | BinaryOp::Or => {
                (left.ty == Type::BOOL && right.ty == Type::BOOL).then_some(Type::BOOL)
            }
            BinaryOp::MatMul => None,
        };
        match result {
            Some(ty) => Value::new(ty, uniformity),
            None => {
                let help = match op {
                    BinaryOp::MatMul => "`@` multiplies two 2-D tiles".to_owned(),
                    BinaryOp::And | BinaryOp::Or => {
                        "`&&` and `||` take bools; compare numbers first".to_owned()
                    }
                    BinaryOp::Rem
                    | BinaryOp::Shl
                    | BinaryOp::Shr
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
                        if left.ty.is_float() || right.ty.is_float() =>
                    {
                        format!("`{}` takes integers", op.symbol())
                    }
                    _ => cast_help(&right.ty, &left.ty),
                };
                self.error(
                    Diagnostic::error(
                        Code::E0301,
                        span,
                        format!(
                            "`{}` cannot combine {} and {}",
                            op.symbol(),
                            left.ty,
                            right.ty
                        ),
                    )
                    .with_label(format!("{} {} {}", left.ty, op.symbol(), right.ty))
                    .with_help(help),
                );
                Value::error()
            }
        }
    }

    fn tile_binary(&mut self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Value {
        self.require_control(Uniformity::Uniform, "a tile operation", span);
        // Each element is computed by some thread of the CTA: a scalar operand must be the same
        // in all of them, or the result would depend on the split.
        let scalar = [left, right].into_iter().find(|v| !v.ty.is_tile());
        if let Some(scalar) = scalar.filter(|v| v.uniformity != Uniformity::Uniform) {
            self.error(
                Diagnostic::error(
                    Code::E0404,
                    span,
                    format!("a scalar combined with a tile must be uniform, and this one is {}", scalar.uniformity),
                )
                .with_label(format!("the scalar {}", scalar.uniformity.differs_between()))
                .with_help("the CTA computes a tile's elements together: use a value from ctx.block, parameters and literals"),
            );
            return Value::error();
        }
        let uniformity = Uniformity::Uniform;
        let result = match (op, &left.ty, &right.ty) {
            (
                BinaryOp::MatMul,
                Type::Tile {
                    element: a,
                    shape: sa,
                },
                Type::Tile {
                    element: b,
                    shape: sb,
                },
            ) if a == b && sa.len() == 2 && sb.len() == 2 && sa[1] == sb[0] => Some(Type::Tile {
                element: *a,
                shape: vec![sa[0], sb[1]],
            }),
            (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div, l, r) => match (l, r) {
                (Type::Tile { .. }, Type::Tile { .. }) if l == r => Some(l.clone()),
                (Type::Tile { element, .. }, s) | (s, Type::Tile { element, .. })
                    if !s.is_tile() && assignable(s, &Type::Scalar(*element)) =>
                {
                    Some(if l.is_tile() { l.clone() } else { r.clone() })
                }
                _ => None,
            },
            _ => None,
        };
        match result {
            Some(ty) => Value::new(ty, uniformity),
            None => {
                self.error(
                    Diagnostic::error(
                        Code::E0309,
                        span,
                        format!("`{}` cannot combine {} and {}", op.symbol(), left.ty, right.ty),
                    )
                    .with_label("tile shapes or element types do not fit")
                    .with_help("tiles combine element-wise with tiles of the same shape or with scalars; `@` takes [m, k] and [k, n]"),
                );
                Value::error()
            }
        }
    }

    /// `base[indices]` where `base` is a tensor (an element or a tile of it) or a tile (an
    /// element).
    fn index(&mut self, base: &Value, base_span: Span, indices: &[IndexArg], span: Span) -> Value {
        let (element, extents, is_tensor) = match &base.ty {
            Type::Tensor {
                element, extents, ..
            } => (*element, extents.to_vec(), true),
            Type::Tile { element, shape } => {
                (*element, shape.iter().map(|&n| Some(n)).collect(), false)
            }
            Type::Error => {
                self.index_values(indices);
                return Value::error();
            }
            other => {
                let other = other.clone();
                self.index_values(indices);
                self.error(
                    Diagnostic::error(Code::E0306, base_span, format!("{other} cannot be indexed"))
                        .with_label("only tensors and tiles can be indexed"),
                );
                return Value::error();
            }
        };
        if indices.len() != extents.len() {
            self.index_values(indices);
            self.error(
                Diagnostic::error(
                    Code::E0304,
                    span,
                    format!(
                        "{} coordinates for a {} of rank {}",
                        indices.len(),
                        if is_tensor { "tensor" } else { "tile" },
                        extents.len()
                    ),
                )
                .with_label(format!(
                    "expected {} coordinate{}",
                    extents.len(),
                    if extents.len() == 1 { "" } else { "s" }
                ))
                .with_secondary(base_span, format!("this is {}", base.ty)),
            );
            return Value::error();
        }
        let mut uniformity = Uniformity::Uniform;
        let mut shape = Vec::new();
        let mut ok = true;
        for (arg, extent) in indices.iter().zip(&extents) {
            match arg {
                IndexArg::Single(index) => {
                    let value = self.expr(index);
                    ok &= self.integer_index(&value, index.span);
                    uniformity = uniformity.join(value.uniformity);
                }
                IndexArg::Tile { start, length } => {
                    let value = self.expr(start);
                    ok &= self.integer_index(&value, start.span);
                    if value.uniformity != Uniformity::Uniform && !value.ty.is_error() {
                        self.error(
                            Diagnostic::error(
                                Code::E0404,
                                start.span,
                                format!("a tile's start must be uniform, and this is {}", value.uniformity),
                            )
                            .with_label(format!("this start {}", value.uniformity.differs_between()))
                            .with_help("every thread copies the same tile together: compute its start from ctx.block, parameters and literals"),
                        );
                    }
                    match length.kind {
                        ExprKind::Int(Some(n)) if n > 0 && n <= u64::from(u32::MAX) => {
                            shape.push(n)
                        }
                        _ => {
                            ok = false;
                            self.expr(length);
                            self.error(
                                Diagnostic::error(Code::E0307, length.span, "a tile's length must be a positive integer literal")
                                    .with_label("not a compile-time constant")
                                    .with_help("the shared memory a tile takes is fixed when the kernel is compiled: write a number, e.g. A[r :+ 64, :]"),
                            );
                        }
                    }
                }
                IndexArg::Whole(whole) => match extent {
                    Some(n) => shape.push(*n),
                    None => {
                        ok = false;
                        self.error(
                            Diagnostic::error(Code::E0308, *whole, "`:` takes a whole axis, and this axis's extent is a name")
                                .with_label("its extent is only known at launch")
                                .with_secondary(base_span, format!("this is {}", base.ty))
                                .with_help("give a start and a length, as in r :+ 64, or declare the extent as a number"),
                        );
                    }
                },
            }
        }
        if !ok {
            return Value::error();
        }
        if shape.is_empty() {
            return Value::new(Type::Scalar(element), uniformity);
        }
        if !is_tensor {
            self.error(
                Diagnostic::error(Code::E0309, span, "a tile cannot be sliced")
                    .with_label("index a tile's elements one by one, as in a[i, j]"),
            );
            return Value::error();
        }
        Value::new(Type::Tile { element, shape }, Uniformity::Uniform)
    }

    fn index_values(&mut self, indices: &[IndexArg]) {
        for arg in indices {
            match arg {
                IndexArg::Single(e) => {
                    self.expr(e);
                }
                IndexArg::Tile { start, length } => {
                    self.expr(start);
                    self.expr(length);
                }
                IndexArg::Whole(_) => {}
            }
        }
    }

    fn integer_index(&mut self, value: &Value, span: Span) -> bool {
        if value.ty.is_integer() || value.ty.is_error() {
            return true;
        }
        self.error(
            Diagnostic::error(
                Code::E0305,
                span,
                format!("an index must be an integer, not {}", value.ty),
            )
            .with_label(format!("this is {}", value.ty))
            .with_help(cast_help(&value.ty, &Type::I32)),
        );
        false
    }
}

fn ctx_uniformity(field: CtxField) -> Uniformity {
    match field {
        CtxField::Warp => Uniformity::WarpUniform,
        CtxField::Thread | CtxField::Lane => Uniformity::Varying,
        _ => Uniformity::Uniform,
    }
}

fn early_exit(cause: Cause, keyword: &'static str, jump: Span) -> Cause {
    Cause {
        kind: CauseKind::EarlyExit { jump, keyword },
        ..cause
    }
}

fn kind_phrase(kind: NameKind) -> &'static str {
    match kind {
        NameKind::Param => "a kernel parameter",
        NameKind::Dim => "a dimension, fixed at launch",
        NameKind::Let => "a let",
        NameKind::Var => "a var",
        NameKind::LoopVar => "a loop variable",
        NameKind::Ctx => "a ctx field",
    }
}

fn cast_help(from: &Type, to: &Type) -> String {
    match (from.scalar(), to.scalar()) {
        (Some(_), Some(target)) if from.is_numeric() && to.is_numeric() => {
            format!("convert it explicitly: {}(...)", target.name())
        }
        _ => format!("expected a {to}"),
    }
}
