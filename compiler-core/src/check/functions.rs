//! Functions: their names and signatures, recursion (E0207), the values they return (E0318),
//! and each call.
//!
//! A function's body is checked twice over: once alone, with every parameter uniform (its
//! types, and the hover's names, come from there), and again at each call, in the caller's
//! control and with the arguments' uniformity, as if it were pasted there, which is what the
//! lowering does. So a barrier inside a function called under divergent control is found, and
//! the error names the call (and, when functions call functions, each call of the chain) and
//! the statement inside that needs the control. What a call's check reports again is dropped
//! by [`super::check`] (one diagnostic per code, place and message).

use super::*;

/// A call being checked inside: the function, where it was called (none for a function checked
/// alone), and what its `return`s give.
pub(super) struct CallFrame {
    pub function: usize,
    pub call: Option<Span>,
    /// `control.len()` when the body started: causes below it are the caller's.
    pub control_base: usize,
    /// `-> T`, checked.
    pub result: Option<Type>,
    /// The uniformity of the value returned so far: each `return`'s value joined with the
    /// function's own control there.
    pub returned: Uniformity,
    /// Tensor and tile parameters: the kernel's name for what each is bound to.
    pub aliases: HashMap<String, String>,
}

/// The functions `stmts` call, each with the call's span, in order.
fn calls_in(stmts: &[Stmt], functions: &[Function], found: &mut Vec<(usize, Span)>) {
    fn expr(e: &Expr, functions: &[Function], found: &mut Vec<(usize, Span)>) {
        if let ExprKind::Call { callee, .. } = &e.kind {
            if let Some(index) = functions.iter().position(|f| f.name.name == callee.name) {
                found.push((index, e.span));
            }
        }
        for child in e.children() {
            expr(child, functions, found);
        }
    }
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Let { value, .. } | StmtKind::Expr(value) => expr(value, functions, found),
            StmtKind::Return(value) => {
                if let Some(value) = value {
                    expr(value, functions, found);
                }
            }
            StmtKind::Assign { target, value, .. } => {
                expr(target, functions, found);
                expr(value, functions, found);
            }
            StmtKind::If {
                condition,
                then_block,
                else_branch,
            } => {
                expr(condition, functions, found);
                calls_in(&then_block.stmts, functions, found);
                if let Some(branch) = else_branch {
                    calls_in(std::slice::from_ref(&**branch), functions, found);
                }
            }
            StmtKind::While { condition, body }
            | StmtKind::For {
                range: condition,
                body,
                ..
            } => {
                expr(condition, functions, found);
                calls_in(&body.stmts, functions, found);
            }
            StmtKind::Block(block) => calls_in(&block.stmts, functions, found),
            StmtKind::Break | StmtKind::Continue | StmtKind::Error => {}
        }
    }
}

/// Which parameters of each function its body writes, found once a function: a call graph's
/// paths may be many (a function calling another twice, and so on down), its functions few.
#[derive(Default)]
pub(super) struct Written {
    known: HashMap<usize, Vec<bool>>,
    /// The functions whose bodies are being read: one met again is recursion (E0207), and
    /// writes nothing more here.
    open: HashSet<usize>,
}

/// Which parameters of `functions[index]` its body (or a function it calls) stores into, by
/// position: a caller's argument there is written.
pub(super) fn written_params(
    functions: &[Function],
    index: usize,
    written: &mut Written,
) -> Vec<bool> {
    let function = &functions[index];
    if let Some(known) = written.known.get(&index) {
        return known.clone();
    }
    if !written.open.insert(index) {
        return vec![false; function.params.len()];
    }
    let mut names = HashSet::new();
    stored_names(&function.body.stmts, functions, written, &mut names);
    written.open.remove(&index);
    let params: Vec<bool> = function
        .params
        .iter()
        .map(|p| names.contains(&p.name.name))
        .collect();
    written.known.insert(index, params.clone());
    params
}

/// How deep calls may nest: deeper means recursion, which E0207 reports.
pub(super) const MAX_CALL_DEPTH: usize = 32;

/// How many function bodies one kernel's calls may paste in (each call inlines its function,
/// and a function calling another twice, down a chain of 20, would paste a million): past it,
/// E0207, rather than a checker and a lowering that never end.
pub(super) const MAX_INLINED: usize = 1024;

/// Whether `stmts` end in a `return` on every path.
fn always_returns(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(block) => always_returns(&block.stmts),
        StmtKind::If {
            then_block,
            else_branch: Some(branch),
            ..
        } => always_returns(&then_block.stmts) && always_returns(std::slice::from_ref(&**branch)),
        _ => false,
    })
}

/// Names a function may not take: the built-ins' and the casts'.
fn is_reserved(name: &str) -> bool {
    crate::syntax::builtins::FAMILIES
        .iter()
        .any(|family| family.contains(&name))
        || Scalar::from_name(name).is_some()
        || Scalar::element_from_name(name).is_some()
}

/// The file-level rules: reserved names, duplicates (with kernels and programs too: `seen`)
/// and recursion.
pub(super) fn check_names(file: &File, seen: &mut HashMap<String, Span>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for function in &file.functions {
        let name = &function.name;
        if is_reserved(&name.name) {
            diagnostics.push(
                Diagnostic::error(
                    Code::E0208,
                    name.span,
                    format!("`{}` is a built-in's name", name.name),
                )
                .with_label("a function cannot take it")
                .with_help("pick another name: a call would not know which one you meant"),
            );
        } else if let Some(first) = seen.insert(name.name.clone(), name.span) {
            diagnostics.push(
                Diagnostic::error(
                    Code::E0205,
                    name.span,
                    format!(
                        "a kernel, program or function named `{}` is already defined",
                        name.name
                    ),
                )
                .with_label("defined again here")
                .with_secondary(first, "first defined here")
                .with_help("calls and launches pick by name, so each needs its own"),
            );
        }
    }
    diagnostics.extend(recursion(&file.functions));
    diagnostics
}

/// E0207 for each cycle of calls, once, at the call that closes it.
fn recursion(functions: &[Function]) -> Vec<Diagnostic> {
    let edges: Vec<Vec<(usize, Span)>> = functions
        .iter()
        .map(|f| {
            let mut found = Vec::new();
            calls_in(&f.body.stmts, functions, &mut found);
            found
        })
        .collect();
    let mut diagnostics = Vec::new();
    let mut reported: Vec<Vec<usize>> = Vec::new();
    // Depth-first from each function, along the path of calls taken. A function whose calls
    // reach no cycle is `clean` and not walked again: a chain of functions each calling the
    // next twice has a path count that doubles a function, and no cycle.
    fn walk(
        at: usize,
        path: &mut Vec<(usize, Span)>,
        edges: &[Vec<(usize, Span)>],
        found: &mut Vec<Vec<(usize, Span)>>,
        clean: &mut [bool],
    ) -> bool {
        let before = found.len();
        let mut truncated = false;
        for &(to, span) in &edges[at] {
            if let Some(start) = path.iter().position(|&(f, _)| f == to) {
                let mut cycle = path[start..].to_vec();
                cycle.push((to, span));
                found.push(cycle);
                continue;
            }
            if clean[to] {
                continue;
            }
            if path.len() < MAX_CALL_DEPTH {
                path.push((to, span));
                truncated |= walk(to, path, edges, found, clean);
                path.pop();
            } else {
                truncated = true;
            }
        }
        if found.len() == before && !truncated {
            clean[at] = true;
        }
        truncated
    }
    let mut clean = vec![false; functions.len()];
    for start in 0..functions.len() {
        let mut cycles = Vec::new();
        walk(
            start,
            &mut vec![(start, functions[start].name.span)],
            &edges,
            &mut cycles,
            &mut clean,
        );
        for cycle in cycles {
            let mut members: Vec<usize> = cycle[1..].iter().map(|&(f, _)| f).collect();
            members.sort_unstable();
            if reported.contains(&members) {
                continue;
            }
            reported.push(members);
            let names: Vec<&str> = cycle
                .iter()
                .map(|&(f, _)| functions[f].name.name.as_str())
                .collect();
            let (_, closing) = cycle[cycle.len() - 1];
            let mut diagnostic = Diagnostic::error(
                Code::E0207,
                closing,
                format!(
                    "`{}` calls itself: {}",
                    names[0],
                    names.join(" → ")
                ),
            )
            .with_label("this call closes the cycle")
            .with_help("functions are pasted where they are called, so they cannot recurse: write the recursion as a loop");
            for &(f, span) in &cycle[1..cycle.len() - 1] {
                diagnostic =
                    diagnostic.with_secondary(span, format!("calls `{}`", functions[f].name.name));
            }
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}

impl KernelChecker {
    /// The type of a function's parameter: any scalar (a `bool` too: no launch passes it), a
    /// tensor whose extents are names (bound by the argument) or numbers, or a tile.
    fn function_param_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(_) => self.local_type(ty),
            TypeExpr::Tensor { dims, .. } => {
                for dim in dims {
                    if let Dim::Expr(e) = dim {
                        self.error(
                            Diagnostic::error(
                                Code::E0127,
                                e.span,
                                "a function's tensor extent is a name or a number",
                            )
                            .with_label("the argument gives the extents")
                            .with_help("name the extent (`X: tensor<f32>[M]`) and compute from the name in the body"),
                        );
                        return Type::Error;
                    }
                }
                self.param_type(ty)
            }
            TypeExpr::Tile { .. } => self.tile_type(ty),
            TypeExpr::Error(_) => Type::Error,
        }
    }

    /// `tile<f32>[32, 32]`: literal extents, one or two axes, an element a tile may hold.
    pub(super) fn tile_type(&mut self, ty: &TypeExpr) -> Type {
        let TypeExpr::Tile {
            element,
            dims,
            span,
        } = ty
        else {
            return Type::Error;
        };
        if let Some(wide) = Scalar::from_name(&element.name).filter(|s| s.is_wide()) {
            self.refuse_wide(
                &Type::Scalar(wide),
                element.span,
                "a tile",
                "tiles hold 32-bit and 16-bit elements; pass the tensor and read it by element",
            );
            return Type::Error;
        }
        let element_type = Scalar::from_name(&element.name).filter(|s| *s != Scalar::Bool);
        let shape: Option<Vec<u64>> = dims
            .iter()
            .map(|d| match d {
                Dim::Literal(Some(n), _) if *n > 0 && *n <= 1 << 16 => Some(*n),
                _ => None,
            })
            .collect();
        match (element_type, shape) {
            (Some(element), Some(shape)) if (1..=2).contains(&shape.len()) => {
                Type::Tile { element, shape }
            }
            _ => {
                self.error(
                    Diagnostic::error(Code::E0309, *span, "a tile type has one or two axes of literal extents")
                        .with_label("not a tile type")
                        .with_help("write it as tile<f32>[32] or tile<f32>[16, 16]: an element type and numbers"),
                );
                Type::Error
            }
        }
    }

    /// `-> T`: a scalar.
    fn result_type(&mut self, function: &Function) -> Option<Type> {
        let ty = function.result.as_ref()?;
        Some(match ty {
            TypeExpr::Named(_) => self.local_type(ty),
            other => {
                self.error(
                    Diagnostic::error(Code::E0318, other.span(), "a function returns a scalar")
                        .with_label("not a scalar type")
                        .with_help("return a number or a bool; to give back a tile or a tensor, take it as a parameter and write into it"),
                );
                Type::Error
            }
        })
    }

    /// Checks `functions[index]` alone: its parameters uniform, as if called from uniform
    /// control. Its names and the errors that do not depend on a call come from here.
    pub(super) fn function_alone(&mut self, index: usize) {
        let functions = self.functions.clone();
        let function = &functions[index];
        let mut declared: HashMap<&str, Span> = HashMap::new();
        let mut types = Vec::new();
        for param in &function.params {
            let ty = self.function_param_type(&param.ty);
            if let Some(first) = declared.insert(&param.name.name, param.name.span) {
                self.error(
                    Diagnostic::error(
                        Code::E0202,
                        param.name.span,
                        format!("`{}` is already a name of this function", param.name.name),
                    )
                    .with_label("declared again as a parameter")
                    .with_secondary(first, "first declared here"),
                );
            }
            types.push(ty);
        }
        // An extent name is a name of the function too: a parameter of that name would hide
        // the argument's extent.
        for param in &function.params {
            let TypeExpr::Tensor { dims, .. } = &param.ty else {
                continue;
            };
            for dim in dims {
                let Dim::Name(name) = dim else {
                    continue;
                };
                if let Some(&at) = declared.get(name.name.as_str()) {
                    self.error(
                        Diagnostic::error(
                            Code::E0202,
                            name.span,
                            format!("`{}` is already a name of this function", name.name),
                        )
                        .with_label("an extent, named as a parameter is")
                        .with_secondary(at, "the parameter")
                        .with_help("rename the extent or the parameter: the extent is the argument's, read in the body by its name"),
                    );
                }
            }
        }
        let result = self.result_type(function);
        if result.as_ref().is_some_and(|r| !r.is_error()) && !always_returns(&function.body.stmts) {
            let end = Span::empty(function.body.span.end.saturating_sub(1));
            self.error(
                Diagnostic::error(
                    Code::E0318,
                    end,
                    format!(
                        "`{}` can reach its end without returning a value",
                        function.name.name
                    ),
                )
                .with_label("no `return` before here on some path")
                .with_secondary(function.name.span, "declared with a result")
                .with_help(
                    "end every path with `return value`, or drop `-> T` if it returns nothing",
                ),
            );
        }
        let values = types
            .iter()
            .map(|ty| Value::new(ty.clone(), Uniformity::Uniform))
            .collect::<Vec<_>>();
        let aliases = function
            .params
            .iter()
            .map(|p| (p.name.name.clone(), p.name.name.clone()))
            .collect();
        self.written = HashSet::new();
        stored_names(
            &function.body.stmts,
            &functions,
            &mut Written::default(),
            &mut self.written,
        );
        self.enter(index, None, result, &types, &values, aliases, true);
    }

    /// A call of the file's function `index`: its arguments against its parameters, then its
    /// body in the caller's control.
    pub(super) fn user_call(
        &mut self,
        index: usize,
        callee: &Ident,
        args: &[Expr],
        span: Span,
    ) -> Value {
        let functions = self.functions.clone();
        let function = &functions[index];
        let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        // The signature's own errors were reported when the function was checked alone.
        let quiet = self.diagnostics.len();
        let types: Vec<Type> = function
            .params
            .iter()
            .map(|p| self.function_param_type(&p.ty))
            .collect();
        let result = self.result_type(function);
        self.diagnostics.truncate(quiet);
        let result_type = result.clone().unwrap_or(Type::Unit);
        self.names.push(NameInfo {
            span: callee.span,
            name: callee.name.clone(),
            kind: NameKind::Function,
            ty: result_type.clone(),
            uniformity: Uniformity::Uniform,
            declared_at: Some(function.name.span),
        });
        if !self.arity(callee, args, function.params.len(), span) {
            return Value::new(result_type, Uniformity::Varying);
        }
        let mut fits = true;
        for ((arg, value), (param, ty)) in args
            .iter()
            .zip(&values)
            .zip(function.params.iter().zip(&types))
        {
            if let Some(expected) = argument_mismatch(&value.ty, ty) {
                fits = false;
                self.error(
                    Diagnostic::error(
                        Code::E0302,
                        arg.span,
                        format!(
                            "`{}` takes {expected} for `{}`, not {}",
                            callee.name, param.name.name, value.ty
                        ),
                    )
                    .with_label(format!("this is {}", value.ty))
                    .with_secondary(param.span, "the parameter"),
                );
            } else if matches!(ty, Type::Tensor { .. } | Type::Tile { .. })
                && !matches!(arg.kind, ExprKind::Name(_))
                && matches!(value.ty, Type::Tensor { .. })
            {
                fits = false;
                self.error(
                    Diagnostic::error(Code::E0302, arg.span, format!("`{}` takes a tensor by its name", callee.name))
                        .with_label("not a tensor's name")
                        .with_help("pass the tensor (`f(A)`); a slice of one is a tile: copy it into a let first"),
                );
            }
        }
        if fits {
            fits = self.extents_agree(callee, args, &values, function);
        }
        let written = written_params(&functions, index, &mut Written::default());
        for ((arg, value), (param, written)) in args
            .iter()
            .zip(&values)
            .zip(function.params.iter().zip(written))
        {
            if !written || !value.ty.is_tile() {
                continue;
            }
            let var = match &arg.kind {
                ExprKind::Name(name) => self.lookup(name).is_some_and(|id| {
                    matches!(self.vars[id].kind, NameKind::Var | NameKind::Param)
                }),
                _ => false,
            };
            if !var {
                fits = false;
                self.error(
                    Diagnostic::error(
                        Code::E0204,
                        arg.span,
                        format!(
                            "`{}` writes its tile `{}`, so it needs a var tile",
                            callee.name, param.name.name
                        ),
                    )
                    .with_label("not a var tile")
                    .with_secondary(param.span, "written in the function")
                    .with_help("copy it into a var first: var t = ..., then pass t"),
                );
            }
        }
        let recursive =
            self.calls.iter().any(|c| c.function == index) || self.calls.len() >= MAX_CALL_DEPTH;
        if !fits || recursive || self.inlined > MAX_INLINED {
            return Value::new(result_type, Uniformity::Varying);
        }
        self.inlined += 1;
        // A function checked alone stops pasting too, but only a kernel, whose calls the
        // lowering pastes, reports it: once.
        let alone = self.calls.first().is_some_and(|c| c.call.is_none());
        if self.inlined > MAX_INLINED && !alone {
            let chain: Vec<&str> = self
                .calls
                .iter()
                .map(|c| functions[c.function].name.name.as_str())
                .chain([callee.name.as_str()])
                .collect();
            self.error(
                Diagnostic::error(
                    Code::E0207,
                    span,
                    format!("the kernel's calls paste more than {MAX_INLINED} function bodies"),
                )
                .with_label(format!("the {}th, by {}", MAX_INLINED + 1, chain.join(" → ")))
                .with_help("each call is pasted where it stands: a function that calls another twice, down a chain, doubles the kernel at each step; call it once and keep its result in a variable"),
            );
            return Value::new(result_type, Uniformity::Varying);
        }
        if self.inlined > MAX_INLINED {
            return Value::new(result_type, Uniformity::Varying);
        }
        let aliases = function
            .params
            .iter()
            .zip(args)
            .filter_map(|(p, a)| match &a.kind {
                ExprKind::Name(name) => Some((p.name.name.clone(), self.kernel_name(name))),
                _ => None,
            })
            .collect();
        let names = self.names.len();
        let returned = self.enter(index, Some(span), result, &types, &values, aliases, false);
        // A call's names would repeat the function's own, with this call's uniformity.
        self.names.truncate(names);
        Value::new(result_type, returned)
    }

    /// The kernel's name for a tensor or tile named `name` here (a parameter's argument).
    pub(super) fn kernel_name(&self, name: &str) -> String {
        self.calls
            .last()
            .and_then(|c| c.aliases.get(name))
            .cloned()
            .unwrap_or_else(|| name.to_owned())
    }

    /// Checks a function's body in a fresh scope with its parameters declared; the uniformity
    /// of what it returns.
    #[allow(clippy::too_many_arguments)]
    fn enter(
        &mut self,
        index: usize,
        call: Option<Span>,
        result: Option<Type>,
        types: &[Type],
        values: &[Value],
        aliases: HashMap<String, String>,
        record: bool,
    ) -> Uniformity {
        let functions = self.functions.clone();
        let function = &functions[index];
        let scopes = std::mem::replace(&mut self.scopes, vec![Vec::new()]);
        let frames = std::mem::take(&mut self.frames);
        let salt = self.loop_salt;
        if let Some(call) = call {
            self.loop_salt = salt.wrapping_mul(0x9E37_79B9).wrapping_add(call.start + 1);
        }
        // What this body writes, and what the caller's arguments already had written.
        let mut written = HashSet::new();
        if call.is_some() {
            stored_names(
                &function.body.stmts,
                &functions,
                &mut Written::default(),
                &mut written,
            );
            for (param, value) in function.params.iter().zip(values) {
                let outer = aliases.get(&param.name.name);
                if value.ty.is_tile() || outer.is_some_and(|o| self.written.contains(o)) {
                    written.insert(param.name.name.clone());
                }
            }
        }
        let outer_written = if call.is_some() {
            Some(std::mem::replace(&mut self.written, written))
        } else {
            None
        };
        self.calls.push(CallFrame {
            function: index,
            call,
            control_base: self.control.len(),
            result,
            returned: Uniformity::Uniform,
            aliases,
        });
        let mut dims: Vec<&str> = Vec::new();
        for ((param, ty), value) in function.params.iter().zip(types).zip(values) {
            if param.name.name == "ctx" {
                continue;
            }
            self.declare(&param.name, ty.clone(), NameKind::Param, value.uniformity);
            if let TypeExpr::Tensor { dims: extents, .. } = &param.ty {
                for extent in extents {
                    if let Dim::Name(name) = extent {
                        if dims.contains(&name.name.as_str()) {
                            if record {
                                let first = self.declared_at(&name.name).unwrap_or(name.span);
                                self.record_use(name, Type::I32, NameKind::Dim, first);
                            }
                        } else {
                            dims.push(&name.name);
                            self.declare(name, Type::I32, NameKind::Dim, Uniformity::Uniform);
                        }
                    }
                }
            }
        }
        drop(self.statements(&function.body.stmts));
        let frame = self.calls.pop();
        if let Some(written) = outer_written {
            self.written = written;
        }
        self.loop_salt = salt;
        self.frames = frames;
        self.scopes = scopes;
        frame.map_or(Uniformity::Varying, |f| f.returned)
    }

    /// `return` or `return value`: checked against the kernel or function it leaves; the
    /// early exit it makes, for the statements after it.
    pub(super) fn return_(&mut self, value: Option<&Expr>, span: Span) -> Vec<Exit> {
        let base = self.calls.last().map_or(0, |c| c.control_base);
        let control = strongest(&self.control[base..]);
        let value = value.map(|v| (v.span, self.expr(v)));
        let function = self.calls.last().map(|c| c.function);
        let name = function.map(|f| self.functions[f].name.name.clone());
        let result = self.calls.last().and_then(|c| c.result.clone());
        match (value, result) {
            (Some((value_span, value)), Some(result)) => {
                if !assignable(&value.ty, &result) && !value.ty.is_error() && !result.is_error() {
                    self.error(
                        Diagnostic::error(
                            Code::E0312,
                            value_span,
                            format!(
                                "`{}` returns {result}, not {}",
                                name.unwrap_or_default(),
                                value.ty
                            ),
                        )
                        .with_label(format!("this is {}", value.ty))
                        .with_help(cast_help(&value.ty, &result)),
                    );
                }
                let joined = value
                    .uniformity
                    .join(control.map_or(Uniformity::Uniform, |c| c.uniformity));
                if let Some(frame) = self.calls.last_mut() {
                    frame.returned = frame.returned.join(joined);
                }
            }
            (Some((value_span, _)), None) => {
                let (message, help) = match name {
                    Some(name) => (
                        format!("`{name}` has no result, so `return` takes no value"),
                        format!("declare the result: fn {name}(...) -> T"),
                    ),
                    None => (
                        "a kernel returns no value".to_owned(),
                        "a kernel gives its results by writing tensors: `return` alone ends this thread".to_owned(),
                    ),
                };
                self.error(
                    Diagnostic::error(Code::E0318, value_span, message)
                        .with_label("a value returned")
                        .with_help(help),
                );
            }
            (None, Some(result)) if !result.is_error() => {
                self.error(
                    Diagnostic::error(
                        Code::E0318,
                        span,
                        format!(
                            "`{}` returns {result}: `return` needs a value",
                            name.unwrap_or_default()
                        ),
                    )
                    .with_label("no value")
                    .with_help("write `return value`"),
                );
            }
            _ => {}
        }
        let cause = control.filter(|c| c.uniformity > Uniformity::Uniform);
        vec![Exit {
            keyword: "return",
            cause: cause.map(|c| early_exit(c, "return", span)),
        }]
    }
}

impl KernelChecker {
    /// Whether a call's tensor arguments give each of the function's extents one value that
    /// the compiler knows: a literal extent needs the argument's literal there (a dimension
    /// is the launch's to decide, and the function would read past a smaller one), and an
    /// extent name shared by two parameters needs one dimension (or literal) in both
    /// arguments. Otherwise E0302 at the argument.
    fn extents_agree(
        &mut self,
        callee: &Ident,
        args: &[Expr],
        values: &[Value],
        function: &crate::syntax::ast::Function,
    ) -> bool {
        let mut bound: Vec<(&str, &str, &str, &str)> = Vec::new();
        let mut fits = true;
        for ((arg, value), param) in args.iter().zip(values).zip(&function.params) {
            let (TypeExpr::Tensor { dims: wanted, .. }, Type::Tensor { dims: given, .. }) =
                (&param.ty, &value.ty)
            else {
                continue;
            };
            let arg_name = match &arg.kind {
                ExprKind::Name(name) => name.as_str(),
                _ => continue,
            };
            for (axis, (want, have)) in wanted.iter().zip(given.iter()).enumerate() {
                match want {
                    Dim::Literal(Some(n), _) if have.parse::<u64>().ok() != Some(*n) => {
                        fits = false;
                        self.error(
                            Diagnostic::error(
                                Code::E0302,
                                arg.span,
                                format!(
                                    "`{}`'s `{}` has extent {n} on axis {axis}, and `{arg_name}`'s extent there is `{have}`",
                                    callee.name, param.name.name
                                ),
                            )
                            .with_label(format!("{have}, which the launch decides"))
                            .with_secondary(param.span, "the parameter")
                            .with_help(format!("name the extent in `{}` (`tensor<…>[M]`) and read it in the body, or give `{arg_name}` the literal extent {n}", callee.name)),
                        );
                    }
                    Dim::Name(name) => match bound.iter().find(|(n, ..)| *n == name.name) {
                        Some((_, other, first, first_param)) if *other != have.as_str() => {
                            fits = false;
                            self.error(
                                Diagnostic::error(
                                    Code::E0302,
                                    arg.span,
                                    format!(
                                        "`{}`'s `{first_param}` and `{}` share the extent `{}`, and `{first}` has `{other}` there where `{arg_name}` has `{have}`",
                                        callee.name, param.name.name, name.name
                                    ),
                                )
                                .with_label(format!("{have}, not {other}"))
                                .with_secondary(name.span, "one name for both")
                                .with_help(format!("give both tensors one dimension in the kernel, or two extent names in `{}`", callee.name)),
                            );
                        }
                        Some(_) => {}
                        None => bound.push((
                            name.name.as_str(),
                            have.as_str(),
                            arg_name,
                            param.name.name.as_str(),
                        )),
                    },
                    _ => {}
                }
            }
        }
        fits
    }
}

/// What an argument of type `given` should have been, when it does not fit a parameter of type
/// `wanted`: scalars as an assignment, a tensor of the element and rank (literal extents
/// equal), a tile of the element and shape.
fn argument_mismatch(given: &Type, wanted: &Type) -> Option<String> {
    if given.is_error() || wanted.is_error() {
        return None;
    }
    let fits = match (given, wanted) {
        (
            Type::Tensor {
                element: a,
                extents: x,
                ..
            },
            Type::Tensor {
                element: b,
                extents: y,
                ..
            },
        ) => {
            a == b
                && x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(p, q)| p.is_none() || q.is_none() || p == q)
        }
        (_, Type::Tensor { .. }) | (_, Type::Tile { .. }) => given == wanted,
        _ => assignable(given, wanted),
    };
    (!fits).then(|| wanted.to_string())
}
