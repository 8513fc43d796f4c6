//! Every place a name is written, and renaming it: the editor's "find references" and
//! "rename".
//!
//! In: a compilation and a byte offset. Out: the spans where the name there is written (its
//! declaration first), or a rename's spans. Invariant: a rename is checked by compiling the
//! renamed source: it is refused, with why, when the new name would mean something else there
//! (it clashes with a name, a keyword or a built-in) rather than written and left broken.

use super::word_around;
use crate::span::Span;
use crate::syntax::highlight::{highlight, Class};
use crate::Compilation;

impl Compilation {
    /// Every place the name at `offset` is written, its declaration first and then in source
    /// order: a kernel's parameter, dimension or local (the checker's record of each use); a
    /// kernel (its declaration and each launch of it); a program's parameter, temporary or
    /// loop counter. `None` for `ctx` fields, built-ins, keywords and what is not a name.
    pub fn references(&self, offset: usize) -> Option<Vec<Span>> {
        // A program's signature is checked as a kernel's, but its body's uses are words the
        // checker does not record: a program's names are found below, from the source.
        let in_program = self.file.programs.iter().any(|p| p.span.contains(offset));
        if let Some(name) = self.checked.name_at(offset).filter(|_| !in_program) {
            let declared = name.declared_at?;
            let uses = self
                .checked
                .names
                .iter()
                .filter(|n| n.declared_at == Some(declared))
                .map(|n| n.span);
            return Some(declaration_first(declared, uses));
        }
        let (from, to) = word_around(self.source(), offset)?;
        let word = &self.source()[from..to];
        let launched = self.launched_kernels();
        let kernel = self.file.kernels.iter().find(|k| k.name.name == word);
        let at_launch = launched.iter().any(|s| s.start == from);
        if let Some(kernel) = kernel.filter(|k| at_launch || k.name.span.start == from) {
            let launches = launched.iter().copied().filter(|s| self.text(*s) == word);
            return Some(declaration_first(kernel.name.span, launches));
        }
        let (declared, _) = self.program_name(offset, word)?;
        let program = self
            .file
            .programs
            .iter()
            .find(|p| p.span.contains(offset))?;
        // A program's names are unique in it (E0203): each word that spells one is it, but for
        // a launch's kernel of the same name.
        let uses = highlight(self.source())
            .into_iter()
            .filter(|h| !matches!(h.class, Class::Comment | Class::Number))
            .map(|h| h.span)
            .filter(|s| program.span.start <= s.start && s.end <= program.span.end)
            .filter(|s| self.text(*s) == word && !launched.contains(s));
        Some(declaration_first(declared, uses))
    }

    /// The spans to write `new_name` over to rename the name at `offset`, or why not: it is no
    /// name declared in this file (a `ctx` field, a built-in), `new_name` is no identifier,
    /// or the renamed source would mean something else (a clash: more errors than before, or
    /// the new name's references are not the renamed ones).
    pub fn rename(&self, offset: usize, new_name: &str) -> Result<Vec<Span>, String> {
        let Some(spans) = self.references(offset) else {
            return Err("only a name declared in this file can be renamed".to_owned());
        };
        let old = self.text(spans[0]).to_owned();
        let identifier = new_name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && new_name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(format!(
                "`{new_name}` is not a name: a letter or `_`, then letters, digits and `_`"
            ));
        }
        if new_name == old {
            return Ok(spans);
        }
        let mut ordered = spans.clone();
        ordered.sort_by_key(|s| s.start);
        let mut renamed = String::with_capacity(self.source().len());
        let mut moved = Vec::with_capacity(ordered.len());
        let mut last = 0;
        for span in &ordered {
            renamed.push_str(&self.source()[last..span.start]);
            let start = renamed.len();
            renamed.push_str(new_name);
            moved.push(Span::new(start, renamed.len()));
            last = span.end;
        }
        renamed.push_str(&self.source()[last..]);
        let after = crate::compile(&renamed);
        let errors = |c: &Compilation| c.diagnostics.iter().filter(|d| d.is_error()).count();
        let declared = spans[0];
        let declared_now = moved[ordered.iter().position(|s| *s == declared).unwrap_or(0)];
        let mut found = after.references(declared_now.start).unwrap_or_default();
        found.sort_by_key(|s| s.start);
        if errors(&after) > errors(self) || found != moved {
            return Err(format!(
                "`{new_name}` would clash here (a name, keyword or built-in already spelled so): `{old}` is left as it is"
            ));
        }
        Ok(spans)
    }

    /// The kernel name of each `launch` in the file's programs.
    fn launched_kernels(&self) -> Vec<Span> {
        use crate::syntax::ast::{ProgramBlock, ProgramStmtKind};
        fn walk(block: &ProgramBlock, out: &mut Vec<Span>) {
            for stmt in &block.stmts {
                match &stmt.kind {
                    ProgramStmtKind::Launch { kernel, .. } => out.push(kernel.span),
                    _ => stmt.blocks().into_iter().for_each(|block| walk(block, out)),
                }
            }
        }
        let mut out = Vec::new();
        for program in &self.file.programs {
            walk(&program.body, &mut out);
        }
        out
    }

    /// The source at `span` (empty where it is not one).
    pub fn text(&self, span: Span) -> &str {
        self.source().get(span.start..span.end).unwrap_or_default()
    }
}

/// `declared`, then the other spans in source order, each once.
fn declaration_first(declared: Span, uses: impl Iterator<Item = Span>) -> Vec<Span> {
    let mut uses: Vec<Span> = uses.filter(|s| *s != declared).collect();
    uses.sort_by_key(|s| s.start);
    uses.dedup();
    let mut spans = vec![declared];
    spans.extend(uses);
    spans
}
