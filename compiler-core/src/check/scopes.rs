//! Names and scopes, and the control a statement runs under: declaring and finding names,
//! and the uniformity a barrier or a collective needs of its control (E0401, E0402).

use super::*;

/// What goes where an unknown name stands: a value (anything but a tensor), or something
/// indexed (a tensor, tile or array).
#[derive(Clone, Copy)]
pub(super) enum Wants {
    Value,
    Indexed,
}

impl KernelChecker {
    pub(super) fn declare(
        &mut self,
        name: &Ident,
        ty: Type,
        kind: NameKind,
        uniformity: Uniformity,
    ) -> usize {
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
    pub(super) fn declare_local(
        &mut self,
        name: &Ident,
        ty: Type,
        kind: NameKind,
        uniformity: Uniformity,
    ) {
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

    pub(super) fn record(
        &mut self,
        name: &Ident,
        ty: Type,
        kind: NameKind,
        uniformity: Uniformity,
    ) {
        self.names.push(NameInfo {
            span: name.span,
            name: name.name.clone(),
            kind,
            ty,
            uniformity,
            declared_at: Some(name.span),
        });
    }

    /// Another occurrence of a name declared at `declared_at` (a dimension's second extent, a
    /// scalar named in an extent), so that references and rename find it with the rest.
    pub(super) fn record_use(&mut self, name: &Ident, ty: Type, kind: NameKind, declared_at: Span) {
        self.names.push(NameInfo {
            span: name.span,
            name: name.name.clone(),
            kind,
            ty,
            uniformity: Uniformity::Uniform,
            declared_at: Some(declared_at),
        });
    }

    /// Where the name `name` in scope was declared.
    pub(super) fn declared_at(&self, name: &str) -> Option<Span> {
        self.lookup(name).map(|id| self.vars[id].declared_at)
    }

    pub(super) fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.iter().rev().find(|(n, _)| n == name))
            .map(|&(_, id)| id)
    }

    /// E0201 for `name`, used where a name of kind `wants` goes. Its help is, in order: the
    /// block it was declared in, if that block has ended (where it was declared and where the
    /// block ended); CUDA's name's Tessera spelling; or a similar name in scope of the kind that
    /// goes there (a tensor only where one is indexed), never a name that would not type-check.
    pub(super) fn unknown_name(&mut self, name: &str, span: Span, wants: Wants) {
        let mut diagnostic =
            Diagnostic::error(Code::E0201, span, format!("`{name}` is not defined"))
                .with_label("not defined here");
        let ended = self.ended.iter().rev().find(|(n, _, _)| n == name);
        if let Some(&(_, declared, end)) = ended {
            diagnostic = diagnostic
                .with_secondary(declared, format!("`{name}` was declared here"))
                .with_secondary(end, "and its block ended here")
                .with_help(format!("a name lives until the end of its block: declare `{name}` before the block (a var, assigned in it) to use it after"));
        } else if let Some(help) = crate::syntax::cuda::help(name) {
            diagnostic = match crate::syntax::cuda::replacement(name) {
                Some(tessera) => diagnostic.with_fix(help, span, tessera),
                None => diagnostic.with_help(help),
            };
        } else {
            let fits = self.scopes.iter().flatten().filter(|&&(_, id)| {
                let ty = &self.vars[id].ty;
                match wants {
                    Wants::Value => !matches!(ty, Type::Tensor { .. }),
                    Wants::Indexed => {
                        matches!(
                            ty,
                            Type::Tensor { .. } | Type::Tile { .. } | Type::Array { .. }
                        )
                    }
                }
            });
            if let Some(similar) = builtins::closest(name, fits.map(|(n, _)| n.as_str())) {
                let help = format!("a name in scope is similar: `{similar}`");
                diagnostic = diagnostic.with_fix(help, span, similar);
            }
        }
        self.error(diagnostic);
    }

    /// Runs `f` in a new scope, the block `block` (whose last character is its `}`).
    pub(super) fn with_scope<T>(&mut self, block: Span, f: impl FnOnce(&mut Self) -> T) -> T {
        self.scopes.push(Vec::new());
        let result = f(self);
        let end = Span::new(block.end.saturating_sub(1), block.end);
        for (name, id) in self.scopes.pop().unwrap_or_default() {
            self.ended.push((name, self.vars[id].declared_at, end));
        }
        result
    }

    /// Reports `what` if control here is more divergent than `needed`. Inside a call, where
    /// the divergence is the caller's, the error stands at the call made under it and names the
    /// chain of calls down to `what`.
    pub(super) fn require_control(&mut self, needed: Uniformity, what: &str, span: Span) {
        let Some(cause) = strongest(&self.control) else {
            return;
        };
        if cause.uniformity <= needed {
            return;
        }
        let at = self.control.iter().position(|c| *c == cause).unwrap_or(0);
        let (code, needed_text) = if needed == Uniformity::Uniform {
            (Code::E0401, "every thread of the CTA")
        } else {
            (Code::E0402, "every lane of the warp")
        };
        let chain: Vec<(usize, Span, usize)> = self
            .calls
            .iter()
            .filter_map(|c| c.call.map(|call| (c.function, call, c.control_base)))
            .collect();
        let culprit = chain.iter().position(|&(_, _, base)| base > at);
        let name = |f: usize| self.functions[f].name.name.clone();
        let mut diagnostic = match culprit {
            Some(k) => {
                let (function, call, _) = chain[k];
                Diagnostic::error(
                    code,
                    call,
                    format!(
                        "`{}` is called under {} control, and it runs {what}",
                        name(function),
                        cause.uniformity.name()
                    ),
                )
                .with_label(format!(
                    "{what} in `{}` needs {needed_text} to get here together",
                    name(function)
                ))
            }
            None => Diagnostic::error(
                code,
                span,
                format!(
                    "{what} is reached under {} control",
                    cause.uniformity.name()
                ),
            )
            .with_label(format!("{what} needs {needed_text} to get here together")),
        }
        .with_secondary(cause.span, cause.label());
        if let CauseKind::EarlyExit { jump, keyword } = cause.kind {
            diagnostic = diagnostic.with_secondary(jump, format!("some threads `{keyword}` here"));
        }
        match culprit {
            Some(k) => {
                for &(function, call, _) in &chain[k + 1..] {
                    diagnostic = diagnostic
                        .with_secondary(call, format!("which calls `{}`", name(function)));
                }
                let inner = chain.last().map_or(String::new(), |&(f, _, _)| name(f));
                diagnostic =
                    diagnostic.with_secondary(span, format!("{what} is here, in `{inner}`"));
            }
            None => {
                for &(function, call, _) in &chain {
                    diagnostic = diagnostic
                        .with_secondary(call, format!("in this call of `{}`", name(function)));
                }
            }
        }
        let help = match (needed, culprit) {
            (Uniformity::Uniform, Some(_)) => "call it where every thread of the CTA reaches the call, or make the condition uniform (from ctx.block, ctx.blocks, parameters and literals)".to_owned(),
            (_, Some(_)) => "call it where every lane of the warp reaches the call, or make the condition warp-uniform (ctx.warp and uniform values)".to_owned(),
            (Uniformity::Uniform, None) => format!(
                "move {what} where every thread of the CTA reaches it, or make the condition uniform (from ctx.block, ctx.blocks, parameters and literals)"
            ),
            _ => format!(
                "move {what} where every lane of the warp reaches it, or make the condition warp-uniform (ctx.warp and uniform values)"
            ),
        };
        self.error(diagnostic.with_help(help));
    }

    pub(super) fn push_cause(&mut self, uniformity: Uniformity, span: Span, kind: CauseKind) {
        self.control.push(Cause {
            uniformity,
            span,
            kind,
        });
    }
}
