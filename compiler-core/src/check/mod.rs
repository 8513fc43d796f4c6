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
//!
//! Here: what the checker learns and the checker's state. Beside it: `signature` (attributes
//! and parameters), `scopes` (names, and the control a construct needs), `statements`,
//! `expressions` (operators, tiles and indexing), `builtins` (every call), `types` and
//! `uniformity` (the lattice and the causes of divergence).

mod arrays;
mod builtins;
mod edges;
mod expressions;
mod functions;
mod matrix;
mod program;
mod scopes;
mod signature;
mod statements;
mod swaps;
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
use scopes::Wants;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
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
    /// A function of the file, at its declaration or a call.
    Function,
}

#[derive(Clone, Debug, Serialize)]
pub struct NameInfo {
    pub span: Span,
    pub name: String,
    pub kind: NameKind,
    pub ty: Type,
    pub uniformity: Uniformity,
    /// Where the name is declared (its own span at a declaration); none for `ctx` fields.
    pub declared_at: Option<Span>,
}

impl NameInfo {
    /// `col: i32 · warp-uniform`, as the editor shows it.
    pub fn describe(&self) -> String {
        format!("{}: {} · {}", self.name, self.ty, self.uniformity)
    }
}

pub fn check(file: &File) -> Checked {
    let mut checked = Checked::default();
    let mut seen: HashMap<String, Span> = HashMap::new();
    let functions: Rc<[Function]> = file.functions.clone().into();
    for kernel in &file.kernels {
        if let Some(first) = seen.insert(kernel.name.name.clone(), kernel.name.span) {
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
        let (info, names, diagnostics) = fixed_point(&functions, |checker| checker.kernel(kernel));
        checked.kernels.push(info);
        checked.names.extend(names);
        checked.diagnostics.extend(diagnostics);
        swaps::lint(&kernel.body, &mut checked.diagnostics);
        edges::lint(kernel, &mut checked.diagnostics);
    }
    for program in &file.programs {
        if let Some(first) = seen.insert(program.name.name.clone(), program.name.span) {
            checked.diagnostics.push(
                Diagnostic::error(
                    Code::E0205,
                    program.name.span,
                    format!(
                        "a kernel or program named `{}` is already defined",
                        program.name.name
                    ),
                )
                .with_label("defined again here")
                .with_secondary(first, "first defined here")
                .with_help("kernels and programs are picked by name, so each needs its own"),
            );
        }
        let (names, diagnostics) = program::check_program(program, file, &checked.kernels);
        checked.names.extend(names);
        checked.diagnostics.extend(diagnostics);
    }
    checked
        .diagnostics
        .extend(functions::check_names(file, &mut seen));
    for (index, function) in file.functions.iter().enumerate() {
        checked.names.push(NameInfo {
            span: function.name.span,
            name: function.name.name.clone(),
            kind: NameKind::Function,
            ty: Type::Unit,
            uniformity: Uniformity::Uniform,
            declared_at: Some(function.name.span),
        });
        let ((), names, diagnostics) =
            fixed_point(&functions, |checker| checker.function_alone(index));
        checked.names.extend(names);
        swaps::lint(&function.body, &mut checked.diagnostics);
        // Before the kernels': a call's copy of an error found alone is dropped below.
        checked.diagnostics.splice(0..0, diagnostics);
    }
    // A function's body is checked at every call too: report each finding once.
    let mut reported = HashSet::new();
    checked
        .diagnostics
        .retain(|d| reported.insert((d.code, d.span, d.message.clone())));
    checked.diagnostics.sort_by_key(|d| (d.span.start, d.code));
    checked
}

/// Walks a kernel (or a function alone) until the loops' uniformity is stable.
fn fixed_point<R>(
    functions: &Rc<[Function]>,
    mut walk: impl FnMut(&mut KernelChecker) -> R,
) -> (R, Vec<NameInfo>, Vec<Diagnostic>) {
    let mut loops = HashMap::new();
    let mut pass = 0;
    loop {
        let widen = pass == MAX_PASSES;
        let mut checker = KernelChecker::new(loops, widen, functions.clone());
        let info = walk(&mut checker);
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
    /// The names of the blocks that have closed, latest last: each with where it was declared
    /// and where its block ended, for a use after it (E0201 says both).
    ended: Vec<(String, Span, Span)>,
    control: Vec<Cause>,
    frames: Vec<LoopFrame>,
    loops: HashMap<usize, LoopState>,
    previous_loops: HashMap<usize, LoopState>,
    loops_changed: bool,
    widen: bool,
    shared_bytes: u64,
    /// Each store into a tensor parameter: its name and where (the @cluster rules).
    tensor_stores: Vec<(String, Span)>,
    /// The names the kernel stores into anywhere (`X[..] = ..`): a load from one of them is
    /// varying, whatever its index.
    written: HashSet<String>,
    /// The file's functions, which calls check.
    functions: Rc<[Function]>,
    /// The calls whose bodies are being checked, outermost first.
    calls: Vec<functions::CallFrame>,
    /// Mixed into loop keys inside a call, so each pasted copy of a loop has its own state.
    loop_salt: usize,
    /// The call a statement is, whose value nothing uses (an atomic whose old value is
    /// dropped: a 64-bit `atomic_add` must be one).
    dropped_call: Option<Span>,
    /// The function bodies the kernel's calls paste in so far ([`functions::MAX_INLINED`]).
    inlined: usize,
    /// The first matrix operation (`mma<over ctx.lane>` and its loads and store): the kernel
    /// then runs whole warps.
    mma_call: Option<Span>,
    /// The one place a fragment may be given: the whole value of the `let` or assignment
    /// being checked.
    fragment_site: Option<Span>,
}

/// Joins `b` into `a` variable by variable; `a` keeps its length (variables declared after
/// it was taken are out of its scope).
fn join_env(a: &mut [Uniformity], b: &[Uniformity]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.join(*y);
    }
}

impl KernelChecker {
    fn new(
        previous_loops: HashMap<usize, LoopState>,
        widen: bool,
        functions: Rc<[Function]>,
    ) -> Self {
        Self {
            diagnostics: Vec::new(),
            names: Vec::new(),
            vars: Vec::new(),
            env: Vec::new(),
            scopes: vec![Vec::new()],
            ended: Vec::new(),
            control: Vec::new(),
            frames: Vec::new(),
            loops: HashMap::new(),
            previous_loops,
            loops_changed: false,
            widen,
            shared_bytes: 0,
            tensor_stores: Vec::new(),
            written: HashSet::new(),
            functions,
            calls: Vec::new(),
            loop_salt: 0,
            dropped_call: None,
            inlined: 0,
            mma_call: None,
            fragment_site: None,
        }
    }

    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

/// The names `stmts` store into, at any depth: `X` for every `X[..] = ..`, `X[..] op= ..` and
/// atomic on `X[..]`, `t` for a whole `t = ..` or `t op= ..`, and an argument a called function
/// writes (`written` remembers each function's, found once).
fn stored_names<'s>(
    stmts: impl IntoIterator<Item = &'s Stmt>,
    functions: &[Function],
    written: &mut functions::Written,
    names: &mut HashSet<String>,
) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Let { value, .. } | StmtKind::Expr(value) | StmtKind::Return(Some(value)) => {
                atomic_targets(value, functions, written, names);
                if let Some(name) = matrix::stored_name(value) {
                    names.insert(name.to_owned());
                }
            }
            StmtKind::Assign { target, value, .. } => {
                match &target.kind {
                    ExprKind::Index { base, .. } => {
                        if let ExprKind::Name(name) = &base.kind {
                            names.insert(name.clone());
                        }
                    }
                    // A whole tile written (`t += a @ b`): a function's tile parameter.
                    ExprKind::Name(name) => {
                        names.insert(name.clone());
                    }
                    _ => {}
                }
                atomic_targets(target, functions, written, names);
                atomic_targets(value, functions, written, names);
            }
            StmtKind::If {
                condition,
                then_block,
                else_branch,
            } => {
                atomic_targets(condition, functions, written, names);
                stored_names(&then_block.stmts, functions, written, names);
                stored_names(else_branch.as_deref(), functions, written, names);
            }
            StmtKind::While { condition, body }
            | StmtKind::For {
                range: condition,
                body,
                ..
            } => {
                atomic_targets(condition, functions, written, names);
                stored_names(&body.stmts, functions, written, names)
            }
            StmtKind::Block(body) => stored_names(&body.stmts, functions, written, names),
            _ => {}
        }
    }
}

/// The names atomics in `expr` change (`H` for `atomic_add(H[b], 1)`), and the arguments the
/// functions it calls write.
fn atomic_targets(
    expr: &Expr,
    functions: &[Function],
    written: &mut functions::Written,
    names: &mut HashSet<String>,
) {
    if let ExprKind::Call { callee, args } = &expr.kind {
        if let Some(index) = functions.iter().position(|f| f.name.name == callee.name) {
            let params = functions::written_params(functions, index, written);
            for (arg, param) in args.iter().zip(params) {
                if let (ExprKind::Name(name), true) = (&arg.kind, param) {
                    names.insert(name.clone());
                }
            }
        }
        if crate::ir::AtomicOp::from_name(&callee.name).is_some() {
            if let Some(ExprKind::Index { base, .. }) = args.first().map(|a| &a.kind) {
                if let ExprKind::Name(name) = &base.kind {
                    names.insert(name.clone());
                }
            }
        }
    }
    for child in expr.children() {
        atomic_targets(child, functions, written, names);
    }
}

impl KernelChecker {
    /// The names `kernel` stores into, found before its body is checked: a load from one of
    /// them is varying (the spec's "Uniformity" section says why).
    fn note_written(&mut self, kernel: &Kernel) {
        let functions = self.functions.clone();
        stored_names(
            &kernel.body.stmts,
            &functions,
            &mut functions::Written::default(),
            &mut self.written,
        );
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
        NameKind::Param => "a parameter",
        NameKind::Dim => "a dimension, fixed at launch",
        NameKind::Let => "a let",
        NameKind::Var => "a var",
        NameKind::LoopVar => "a loop variable",
        NameKind::Ctx => "a ctx field",
        NameKind::Function => "a function",
    }
}

fn cast_help(from: &Type, to: &Type) -> String {
    match (from.scalar(), to.scalar()) {
        (Some(_), Some(target)) if *from == Type::IntOnlyLiteral && to.is_float() => format!(
            "`%`, `&`, `|`, `^`, `<<`, `>>` and `~` give integers; convert it explicitly: {}(...)",
            target.name()
        ),
        (Some(_), Some(target)) if from.is_numeric() && to.is_numeric() => {
            format!("convert it explicitly: {}(...)", target.name())
        }
        _ => format!("expected a {to}"),
    }
}
