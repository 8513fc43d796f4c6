//! The editor's questions, answered by the compiler: what the name under the pointer is, and
//! what can be written at the caret. Offsets are bytes into the compilation's source.
//!
//! Invariant: the answers come from what the compiler itself knows (the checker's names, the
//! built-in table, the `ctx` fields), so the editor says nothing the compiler would not.

use crate::check::NameKind;
use crate::ir::{Axis, CtxField};
use crate::span::Span;
use crate::syntax::ast::{Function, Kernel, ProgramBlock, ProgramStmt, ProgramStmtKind};
use crate::syntax::builtins;
use crate::syntax::highlight::{highlight, Class};
use crate::Compilation;

mod names;
mod signature;

pub use signature::{Signature, SignatureHelp};

/// One thing the editor can offer at the caret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    /// CodeMirror's kind: `property`, `function`, `variable`, `keyword` or `type`.
    pub kind: &'static str,
    pub detail: String,
}

/// What can be written at the caret, replacing `source[from..caret]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completions {
    pub from: usize,
    pub items: Vec<Completion>,
}

/// Words a completion offers: the language's keywords, and a program's (`launch`, `grid`,
/// `limit`, `swap`), which are names elsewhere.
const KEYWORDS: [&str; 20] = [
    "kernel", "fn", "program", "let", "var", "if", "else", "while", "for", "in", "break",
    "continue", "return", "true", "false", "ctx", "launch", "grid", "limit", "swap",
];
const TYPES: [&str; 10] = [
    "i32", "u32", "f32", "f16", "i64", "u64", "i8", "u8", "bool", "tensor",
];

fn ctx_fields() -> Vec<Completion> {
    let field = |f: CtxField, why: &str| Completion {
        label: f
            .name()
            .trim_start_matches("ctx.")
            .split('.')
            .next()
            .unwrap_or_default()
            .to_owned(),
        kind: "property",
        detail: why.to_owned(),
    };
    vec![
        field(
            CtxField::Blocks(Axis::X),
            "the grid's extent (.x, .y, .z) · uniform",
        ),
        field(
            CtxField::Block(Axis::X),
            "this CTA's index in the grid (.x, .y, .z) · uniform",
        ),
        field(
            CtxField::Threads,
            "threads per CTA, the @launch count · uniform",
        ),
        field(CtxField::Warps, "warps per CTA · uniform"),
        field(CtxField::Lanes, "lanes per warp · uniform"),
        field(
            CtxField::Warp,
            "this thread's warp in the CTA · warp-uniform",
        ),
        field(CtxField::Thread, "this thread's index in the CTA · varying"),
        field(CtxField::Lane, "this thread's lane in its warp · varying"),
    ]
}

fn axes() -> Vec<Completion> {
    ["x", "y", "z"]
        .map(|a| Completion {
            label: a.to_owned(),
            kind: "property",
            detail: format!("along {a} · uniform"),
        })
        .to_vec()
}

impl Compilation {
    /// What the editor shows when the pointer rests at byte `offset`: the name there, its type
    /// and its uniformity, as in `col: i32 · warp-uniform`; for a built-in, what it does.
    /// A kernel's name (at a program's `launch`, say) shows its signature and attributes, as
    /// in `kernel total(Partial: tensor<f32>[B], Out: tensor<f32>[1]) · @launch(256)`; a name
    /// of a program, its declaration.
    pub fn hover(&self, offset: usize) -> Option<String> {
        if let Some(name) = self.checked.name_at(offset) {
            if name.kind == NameKind::Function {
                return self
                    .function_named(&name.name)
                    .map(|f| self.function_text(f));
            }
            return Some(name.describe());
        }
        let (from, to) = word_around(self.source(), offset)?;
        let word = &self.source()[from..to];
        if let Some((_, declared)) = self.program_name(offset, word) {
            return Some(declared);
        }
        if let Some(kernel) = self.file.kernels.iter().find(|k| k.name.name == word) {
            return Some(self.signature_text(kernel));
        }
        // In a program, these are a size's exact integer functions, not a kernel's built-ins.
        if self.file.programs.iter().any(|p| p.span.contains(offset)) {
            let size = match word {
                "ceil" => Some("ceil(a / b): the quotient rounded up, exact in 64 bits"),
                "log2" => Some("log2(x): the largest k with 2^k <= x, exact (x is 1 or more)"),
                "min" => Some("min(a, b): the smaller of two sizes"),
                "max" => Some("max(a, b): the larger of two sizes"),
                _ => None,
            };
            if size.is_some() {
                return size.map(str::to_owned);
            }
        }
        builtins::describe(word).map(str::to_owned)
    }

    /// Where the name at byte `offset` is declared: a parameter, dimension or local, a
    /// program's parameter, temporary or loop counter, or a kernel that a program launches.
    /// `ctx` fields and built-ins have no declaration.
    pub fn definition(&self, offset: usize) -> Option<Span> {
        if let Some(name) = self.checked.name_at(offset) {
            return name.declared_at;
        }
        let (from, to) = word_around(self.source(), offset)?;
        let word = &self.source()[from..to];
        if let Some((span, _)) = self.program_name(offset, word) {
            return Some(span);
        }
        // A launch's kernel: the word just before a `launch`'s `(`, never one of its arguments.
        let kernel = self.file.kernels.iter().find(|k| k.name.name == word)?;
        Some(kernel.name.span)
    }

    /// `word`'s declaration in the program around `offset`, and that declaration in words: a
    /// parameter (`Walls: tensor<u32>[H, W] · a parameter of bfs_grid`), a temporary or a loop
    /// counter. A program's names are unique in it (E0203), so the first found is the one.
    fn program_name(&self, offset: usize, word: &str) -> Option<(Span, String)> {
        let program = self
            .file
            .programs
            .iter()
            .find(|p| p.span.contains(offset))?;
        let text = |span: Span| self.text(span);
        if let Some(param) = program.params.iter().find(|p| p.name.name == word) {
            let what = format!(
                "{} · a parameter of {}",
                text(param.span),
                program.name.name
            );
            return Some((param.name.span, what));
        }
        // A dimension: declared where its first extent names it.
        let dim = program
            .params
            .iter()
            .filter_map(|p| match &p.ty {
                crate::syntax::ast::TypeExpr::Tensor { dims, .. } => Some(dims),
                _ => None,
            })
            .flatten()
            .find_map(|d| match d {
                crate::syntax::ast::Dim::Name(name) if name.name == word => Some(name.span),
                _ => None,
            });
        if let Some(span) = dim {
            let what = format!("{word}: i32 · a dimension of {}", program.name.name);
            return Some((span, what));
        }
        if program.name.name == word {
            let head = text(Span::new(program.span.start, program.body.span.start));
            return Some((program.name.span, head.trim_end().to_owned()));
        }
        fn find<'b>(block: &'b ProgramBlock, word: &str) -> Option<&'b ProgramStmt> {
            block.stmts.iter().find_map(|stmt| match &stmt.kind {
                ProgramStmtKind::Temporary { name, .. } if name.name == word => Some(stmt),
                ProgramStmtKind::For { var, .. } if var.name == word => Some(stmt),
                _ => stmt
                    .blocks()
                    .into_iter()
                    .find_map(|block| find(block, word)),
            })
        }
        let stmt = find(&program.body, word)?;
        match &stmt.kind {
            ProgramStmtKind::Temporary { name, .. } => {
                let declared = text(stmt.span)
                    .trim_start_matches("let ")
                    .replacen(" =", ":", 1);
                let what = format!("{declared} · a temporary of {}", program.name.name);
                Some((name.span, what))
            }
            ProgramStmtKind::For { var, range, .. } => {
                let what = format!(
                    "{}: i32 · a loop counter, in {}",
                    var.name,
                    text(range.span)
                );
                Some((var.span, what))
            }
            _ => None,
        }
    }

    /// `kernel name(params) · @launch(256)`, from the source as written.
    fn signature_text(&self, kernel: &Kernel) -> String {
        let source = self.source();
        let header = source
            .get(kernel.name.span.start..kernel.body.span.start)
            .unwrap_or_default();
        let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
        let attributes: Vec<&str> = kernel
            .attributes
            .iter()
            .filter_map(|a| source.get(a.span.start..a.span.end))
            .collect();
        match attributes.is_empty() {
            true => format!("kernel {header}"),
            false => format!("kernel {header} · {}", attributes.join(" ")),
        }
    }

    /// The file's function named `name`.
    pub fn function_named(&self, name: &str) -> Option<&Function> {
        self.file.functions.iter().find(|f| f.name.name == name)
    }

    /// `fn name(params) -> T`, from the source as written.
    pub fn function_text(&self, function: &Function) -> String {
        let header = self
            .source()
            .get(function.name.span.start..function.body.span.start)
            .unwrap_or_default();
        format!(
            "fn {}",
            header.split_whitespace().collect::<Vec<_>>().join(" ")
        )
    }

    /// What can be written at byte `caret`: the `ctx` fields after `ctx.`, the axes after
    /// `ctx.block.` and `ctx.blocks.`, else the names in scope, the built-ins, the keywords and
    /// types (only when a word is begun, or the reader asked); nothing inside a comment.
    pub fn completions(&self, caret: usize, explicit: bool) -> Option<Completions> {
        let source = self.source();
        let before = source.get(..caret)?;
        if in_comment(source, caret) {
            return None;
        }
        let word = before.len() - before.trim_end_matches(is_word).len();
        let from = caret - word;
        let context = before[..from].trim_end_matches([' ', '\t']);
        if context.ends_with("ctx.block.") || context.ends_with("ctx.blocks.") {
            return Some(Completions {
                from,
                items: axes(),
            });
        }
        if context.ends_with("ctx.") {
            return Some(Completions {
                from,
                items: ctx_fields(),
            });
        }
        if context.ends_with('.') || (word == 0 && !explicit) {
            return None;
        }
        let mut items = self.names_in_scope(caret);
        for function in &self.file.functions {
            if !items.iter().any(|i| i.label == function.name.name) {
                items.push(Completion {
                    label: function.name.name.clone(),
                    kind: "function",
                    detail: self.function_text(function),
                });
            }
        }
        for name in builtins::FAMILIES.into_iter().flatten() {
            if !items.iter().any(|i| i.label == *name) {
                items.push(Completion {
                    label: (*name).to_owned(),
                    kind: "function",
                    detail: builtins::describe(name).unwrap_or_default().to_owned(),
                });
            }
        }
        items.extend(KEYWORDS.map(|k| Completion {
            label: k.to_owned(),
            kind: "keyword",
            detail: String::new(),
        }));
        items.extend(TYPES.map(|t| Completion {
            label: t.to_owned(),
            kind: "type",
            detail: String::new(),
        }));
        Some(Completions { from, items })
    }

    /// The parameters, dimensions and locals of the kernel or function around `caret` declared
    /// before it.
    fn names_in_scope(&self, caret: usize) -> Vec<Completion> {
        let kernels = self.checked.kernels.iter().map(|k| k.span);
        let functions = self.file.functions.iter().map(|f| f.span);
        let Some(around) = kernels
            .chain(functions)
            .find(|span| span.start <= caret && caret <= span.end)
        else {
            return Vec::new();
        };
        let mut found: Vec<Completion> = Vec::new();
        for name in &self.checked.names {
            let inside = around.start <= name.span.start && name.span.end <= caret;
            let skip = matches!(name.kind, NameKind::Ctx | NameKind::Function);
            if !inside || skip || found.iter().any(|f| f.label == name.name) {
                continue;
            }
            found.push(Completion {
                label: name.name.clone(),
                kind: "variable",
                detail: format!("{} · {}", name.ty, name.uniformity),
            });
        }
        found
    }
}

/// Whether byte `caret` is inside a comment: after its first character, and before its end
/// or at the end of one that runs to the line's end (or is not closed).
fn in_comment(source: &str, caret: usize) -> bool {
    highlight(source)
        .iter()
        .filter(|h| h.class == Class::Comment)
        .any(|h| {
            let (start, end) = (h.span.start, h.span.end);
            let text = &source[start..end];
            let closed = text.len() >= 4 && text.starts_with("/*") && text.ends_with("*/");
            start < caret && (caret < end || (caret == end && !closed))
        })
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier around byte `offset`, as a range.
fn word_around(source: &str, offset: usize) -> Option<(usize, usize)> {
    let before = source.get(..offset)?;
    let from = before.trim_end_matches(is_word).len();
    let after = source.get(offset..)?;
    let to = offset + (after.len() - after.trim_start_matches(is_word).len());
    (from < to).then_some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  let i = ctx.thread\n  var acc = 0.0\n  acc += sum<over ctx.lane>(X[i])\n}\n";

    fn labels(c: &Completions) -> Vec<&str> {
        c.items.iter().map(|i| i.label.as_str()).collect()
    }

    #[test]
    fn after_ctx_the_eight_fields_and_after_ctx_block_the_axes() {
        let source = K.replace("ctx.thread\n", "ctx.th\n");
        let compilation = crate::compile(&source);
        let caret = source.find("ctx.th").map_or(0, |i| i + "ctx.th".len());
        let Some(found) = compilation.completions(caret, false) else {
            panic!("nothing after ctx.")
        };
        assert_eq!(found.from, caret - 2);
        assert_eq!(
            labels(&found),
            ["blocks", "block", "threads", "warps", "lanes", "warp", "thread", "lane"]
        );
        let source = K.replace("ctx.thread\n", "ctx.block.\n");
        let caret = source
            .find("ctx.block.")
            .map_or(0, |i| i + "ctx.block.".len());
        let found = crate::compile(&source).completions(caret, false);
        assert_eq!(found.map(|f| f.items.len()), Some(3));
    }

    #[test]
    fn a_begun_word_gets_the_names_in_scope_and_the_builtins() {
        let source = K.replace("  acc += sum", "  ac += sum");
        let compilation = crate::compile(&source);
        let caret = source.find("  ac +=").map_or(0, |i| i + 4);
        let Some(found) = compilation.completions(caret, false) else {
            panic!("nothing for `ac`")
        };
        let names = labels(&found);
        for expected in [
            "X",
            "N",
            "i",
            "acc",
            "shuffle_xor",
            "barrier",
            "kernel",
            "f32",
        ] {
            assert!(
                names.contains(&expected),
                "{expected} missing from {names:?}"
            );
        }
        let acc = found.items.iter().find(|i| i.label == "acc");
        assert_eq!(acc.map(|a| a.detail.as_str()), Some("f32 · uniform"));
        // Nothing offered in the middle of nowhere unless asked.
        assert_eq!(compilation.completions(source.len(), false), None);
        assert!(compilation.completions(source.len(), true).is_some());
    }

    #[test]
    fn nothing_is_offered_inside_a_comment() {
        let source = K.replace(
            "  let i = ctx.thread\n",
            "  // ac\n  /* ac */ let i = ctx.thread\n",
        );
        let compilation = crate::compile(&source);
        let after = |text: &str| source.find(text).map_or(0, |i| i + text.len());
        assert_eq!(compilation.completions(after("// ac"), true), None);
        assert_eq!(compilation.completions(after("/* ac"), true), None);
        assert_eq!(compilation.completions(after("// a"), false), None);
        // Past a closed comment, and before a comment begins, a word is completed as anywhere.
        assert!(compilation.completions(after("/* ac */"), true).is_some());
        assert!(compilation
            .completions(after("  // ac") - "// ac".len(), true)
            .is_some());
    }

    #[test]
    fn a_name_leads_to_its_declaration_and_a_launch_to_its_kernel() {
        let at = |source: &str, text: &str, skip: usize| {
            source.match_indices(text).nth(skip).map_or(0, |(i, _)| i)
        };
        let compilation = crate::compile(K);
        // `X` in `X[i]` → the parameter; `i` → its `let`; `acc +=` → the `var`.
        let x_use = at(K, "X[i]", 0);
        assert_eq!(
            compilation.definition(x_use),
            Some(Span::new(at(K, "X:", 0), at(K, "X:", 0) + 1))
        );
        let i_use = at(K, "[i]", 0) + 1;
        let i_decl = at(K, "i = ", 0);
        assert_eq!(
            compilation.definition(i_use),
            Some(Span::new(i_decl, i_decl + 1))
        );
        assert_eq!(
            compilation.definition(at(K, "acc +=", 0)).map(|s| s.start),
            Some(at(K, "acc = ", 0))
        );
        // ctx fields and built-ins are declared nowhere.
        assert_eq!(compilation.definition(at(K, "ctx.thread", 0)), None);
        assert_eq!(compilation.definition(at(K, "sum<", 0)), None);
        let program = format!("{K}program p(X: tensor<f32>[N]) {{\n  launch k(X) grid(1)\n}}\n");
        let compilation = crate::compile(&program);
        let launch = at(&program, "k(X) grid", 0);
        let kernel = at(&program, "kernel k", 0) + "kernel ".len();
        assert_eq!(
            compilation.definition(launch),
            Some(Span::new(kernel, kernel + 1))
        );
    }

    #[test]
    fn hover_names_a_value_or_says_what_a_builtin_does() {
        let compilation = crate::compile(K);
        let at = K.find("let i").map_or(0, |i| i + 4);
        assert_eq!(compilation.hover(at).as_deref(), Some("i: i32 · varying"));
        let at = K.find("sum<").map_or(0, |i| i + 1);
        assert_eq!(compilation.hover(at).as_deref(), builtins::describe("sum"));
    }
}
