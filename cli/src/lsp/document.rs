//! An open document: its text as the client last sent it, its compilation, and the conversion
//! between the protocol's positions (0-based lines, UTF-16 columns) and the compiler's bytes.

use compiler_core::span::{LineIndex, Span};
use compiler_core::syntax::MAX_SOURCE_BYTES;
use compiler_core::Compilation;
use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

pub struct Document {
    pub text: String,
    pub version: i32,
    lines: LineIndex,
    compilation: Compilation,
}

impl Document {
    pub fn new(text: String, version: i32) -> Self {
        Self {
            lines: LineIndex::new(&text),
            compilation: compiler_core::compile(&text),
            text,
            version,
        }
    }

    /// Applies the client's changes in order (each range is in the text the previous change
    /// left), then compiles once.
    pub fn change(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(range) => {
                    let from = self.offset(range.start);
                    let to = self.offset(range.end).max(from);
                    self.text.replace_range(from..to, &change.text);
                }
            }
            self.lines = LineIndex::new(&self.text);
        }
        self.version = version;
        self.compilation = compiler_core::compile(&self.text);
    }

    pub fn compilation(&self) -> &Compilation {
        &self.compilation
    }

    /// Whether the compiler reads it at all: over its limit, it says so in a diagnostic and the
    /// editor's questions get no answer (not a lexing of megabytes per keystroke).
    pub fn within_limit(&self) -> bool {
        self.text.len() <= MAX_SOURCE_BYTES
    }

    pub fn offset(&self, position: Position) -> usize {
        self.lines
            .offset_of_utf16(&self.text, position.line, position.character)
    }

    pub fn position(&self, offset: usize) -> Position {
        let (line, character) = self.lines.utf16_position(&self.text, offset);
        Position { line, character }
    }

    pub fn range(&self, span: Span) -> Range {
        Range {
            start: self.position(span.start),
            end: self.position(span.end),
        }
    }

    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }
}
