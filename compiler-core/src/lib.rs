//! Tessera's compiler core: the whole language pipeline as a pure library.
//!
//! In: kernel source text. Out: diagnostics and, for a correct program, the checked kernels
//! (and, as the backends land, each target's output). It does no I/O, so the same code runs
//! in the browser (wasm32), in the CLI and in the tests; whoever calls it supplies files,
//! GPUs and terminals.
//!
//! ```text
//! Source ─▶ syntax (Tokens ─▶ Ast) ─▶ check (types, uniformity) ─▶ Checked
//! ```
//!
//! [`hierarchy`] holds the arithmetic of the launch hierarchy that every stage, the diagram and
//! the docs share.

pub mod check;
pub mod diagnostic;
pub mod hierarchy;
pub mod span;
pub mod syntax;

pub use check::{Checked, Uniformity};
pub use diagnostic::{Code, Diagnostic, Severity};
pub use span::Span;

/// Everything the front end knows about one source: its tree, what the checker learnt, and
/// every diagnostic of every phase in source order.
pub struct Compilation {
    pub file: syntax::ast::File,
    pub checked: Checked,
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// What the editor shows when the pointer rests at byte `offset`: the name there, its type
    /// and its uniformity, as in `col: i32 · warp-uniform`.
    pub fn hover(&self, offset: usize) -> Option<String> {
        self.checked.name_at(offset).map(check::NameInfo::describe)
    }
}

/// The front door: parse and check `source`. Never panics, whatever the input.
pub fn compile(source: &str) -> Compilation {
    let (file, mut diagnostics) = syntax::parse(source);
    let checked = check::check(&file);
    diagnostics.extend(checked.diagnostics.iter().cloned());
    diagnostics.sort_by_key(|d| (d.span.start, d.code));
    Compilation {
        file,
        checked,
        diagnostics,
    }
}
