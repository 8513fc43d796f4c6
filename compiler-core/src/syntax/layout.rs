//! Between the lexer and the parser: line continuation, delimiter balance and limits.
//!
//! In: the lexer's tokens. Out: tokens the parser can trust, and diagnostics.
//! - Unknown characters are reported (one diagnostic per run) and dropped.
//! - A newline ends a statement unless the line ends inside `(`/`[`, after a binary operator
//!   or a comma, or the next line starts with `else`.
//! - Delimiters come out balanced: an unclosed one is reported and closed where the next
//!   `kernel` starts (kernels cannot nest) or at the end; a stray closer is reported and
//!   dropped. So a missing `}` in one kernel does not swallow the kernels after it.
//! - Nesting deeper than [`MAX_NESTING`] or a statement with more than [`MAX_OPERATORS`]
//!   operators is reported once and the rest of the file is not parsed: the parser and the
//!   checker recurse over the tree, and these limits keep that recursion shallow (the wasm
//!   stack is 1 MiB).
//!
//! Invariant: every `(`, `[`, `{` in the output has its closer, and no output token is
//! `Unknown` or `UnclosedComment`.

use super::token::{Spanned, Token};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use chumsky::span::SimpleSpan;

pub const MAX_NESTING: usize = 64;
pub const MAX_OPERATORS: usize = 256;

pub fn layout(tokens: Vec<Spanned>, source_len: usize) -> (Vec<Spanned>, Vec<Diagnostic>) {
    let mut layout = Layout::default();
    let mut tokens = tokens.into_iter().peekable();
    while let Some((token, span)) = tokens.next() {
        if let Token::Unknown(_) = token {
            let mut end = span.end;
            while let Some((Token::Unknown(_), next)) = tokens.peek() {
                end = next.end;
                tokens.next();
            }
            layout.unknown(Span::new(span.start, end));
            continue;
        }
        if !layout.push(token, span) {
            break;
        }
    }
    layout.finish(source_len)
}

#[derive(Default)]
struct Layout {
    out: Vec<Spanned>,
    /// Where the current kernel (its attributes included) starts in `out`.
    kernel_start: usize,
    /// Open delimiters: the opening character and where it is.
    open: Vec<(char, SimpleSpan)>,
    diagnostics: Vec<Diagnostic>,
    operators_in_statement: usize,
}

impl Layout {
    /// Takes one token; `false` when a limit was hit and the rest must be dropped.
    fn push(&mut self, token: Token, span: SimpleSpan) -> bool {
        match &token {
            Token::Newline => {
                self.newline(span);
                return true;
            }
            Token::UnclosedComment => {
                self.diagnostics.push(
                    Diagnostic::error(Code::E0102, to_span(span), "this comment is never closed")
                        .with_label("`/*` needs a matching `*/`"),
                );
                return true;
            }
            Token::Else => self.drop_trailing_newlines(),
            Token::Kernel | Token::Program | Token::Fn => {
                if !self.open.is_empty() {
                    self.close_before_kernel(span.start);
                }
                self.kernel_start = self.attributes_start();
            }
            Token::Punct(c @ ('(' | '[' | '{')) => {
                if self.open.len() >= MAX_NESTING {
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::E0104,
                            to_span(span),
                            format!("nesting deeper than {MAX_NESTING} levels"),
                        )
                        .with_label("this delimiter is too deep")
                        .with_help(
                            "split the expression or the blocks; the rest of the file was not read",
                        ),
                    );
                    self.abandon_kernel();
                    return false;
                }
                self.open.push((*c, span));
                if *c == '{' {
                    self.operators_in_statement = 0;
                }
            }
            Token::Punct(c @ (')' | ']' | '}')) => return self.close(*c, span),
            Token::Punct(';') => self.operators_in_statement = 0,
            Token::Op(_) => {
                self.operators_in_statement += 1;
                if self.operators_in_statement > MAX_OPERATORS {
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::E0105,
                            to_span(span),
                            format!("a statement with more than {MAX_OPERATORS} operators"),
                        )
                        .with_label("the limit is reached here")
                        .with_help(
                            "split it into several statements; the rest of the file was not read",
                        ),
                    );
                    self.abandon_kernel();
                    return false;
                }
            }
            _ => {}
        }
        self.out.push((token, span));
        true
    }

    /// After a limit: the kernel being read is dropped whole, so that its truncated text
    /// causes no further errors.
    fn abandon_kernel(&mut self) {
        self.out.truncate(self.kernel_start);
        self.open.clear();
    }

    fn newline(&mut self, span: SimpleSpan) {
        let inside_brackets = matches!(self.open.last(), Some(('(' | '[', _)));
        let continues = match self.out.last() {
            None | Some((Token::Newline, _)) => true,
            Some((Token::Punct(','), _)) | Some((Token::TileLength, _)) => true,
            Some((Token::Op(op), _)) => !matches!(*op, "!" | "~"),
            Some(_) => false,
        };
        if !inside_brackets && !continues {
            self.out.push((Token::Newline, span));
            self.operators_in_statement = 0;
        }
    }

    fn drop_trailing_newlines(&mut self) {
        while let Some((Token::Newline, _)) = self.out.last() {
            self.out.pop();
        }
    }

    fn close(&mut self, closer: char, span: SimpleSpan) -> bool {
        let opener = matching_opener(closer);
        match self.open.iter().rposition(|(c, _)| *c == opener) {
            Some(position) => {
                // Openers above the match were never closed: close them here.
                while self.open.len() > position + 1 {
                    self.close_unclosed(span.start);
                }
                self.open.pop();
                self.out.push((Token::Punct(closer), span));
            }
            None => match self.open.last() {
                // `(1 + 2]`: one mistake, reported once; the closer closes what is open.
                Some(&(top @ ('(' | '['), top_span)) if closer != '}' => {
                    let expected = matching_closer(top);
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::E0103,
                            to_span(span),
                            format!("`{closer}` does not close `{top}`"),
                        )
                        .with_label(format!("expected `{expected}`"))
                        .with_secondary(to_span(top_span), format!("this `{top}` is still open")),
                    );
                    self.open.pop();
                    self.out.push((Token::Punct(expected), span));
                }
                _ => self.diagnostics.push(
                    Diagnostic::error(Code::E0103, to_span(span), format!("unexpected `{closer}`"))
                        .with_label(format!("no `{opener}` is open here")),
                ),
            },
        }
        if closer == '}' {
            self.operators_in_statement = 0;
        }
        true
    }

    /// Reports the innermost open delimiter and closes it with a synthetic closer at `at`.
    fn close_unclosed(&mut self, at: usize) {
        if let Some((opener, span)) = self.open.pop() {
            let closer = matching_closer(opener);
            self.diagnostics.push(
                Diagnostic::error(Code::E0102, to_span(span), format!("unclosed `{opener}`"))
                    .with_label(format!("this `{opener}` has no matching `{closer}`")),
            );
            self.out
                .push((Token::Punct(closer), SimpleSpan::from(at..at)));
        }
    }

    /// A `kernel` (at byte `kernel`) while delimiters are open: the previous kernel, or this
    /// kernel's attributes, lost a closer. Close everything before this kernel's attributes
    /// (right before the `kernel` when the attributes themselves are what is open).
    fn close_before_kernel(&mut self, kernel: usize) {
        let start = self.attributes_start();
        let tail = self.out.split_off(start);
        let at = tail.first().map_or(kernel, |(_, span)| span.start);
        while !self.open.is_empty() {
            self.close_unclosed(at);
        }
        self.out.push((Token::Newline, SimpleSpan::from(at..at)));
        self.out.extend(tail);
    }

    /// Where the attributes (`@name(...)` groups and newlines) right before the end of the
    /// output begin.
    fn attributes_start(&self) -> usize {
        let mut start = self.out.len();
        loop {
            let mut at = start;
            while at > 0 && self.out[at - 1].0 == Token::Newline {
                at -= 1;
            }
            let Some(open_paren) = self.matching_open_paren(at) else {
                return start;
            };
            match (
                self.out.get(open_paren.wrapping_sub(2)),
                self.out.get(open_paren.wrapping_sub(1)),
            ) {
                (Some((Token::Op("@"), _)), Some((Token::Ident(_), _))) => start = open_paren - 2,
                _ => return start,
            }
        }
    }

    /// If the token before `end` is `)`, the index of its `(`.
    fn matching_open_paren(&self, end: usize) -> Option<usize> {
        if end == 0 || self.out[end - 1].0 != Token::Punct(')') {
            return None;
        }
        let mut depth = 0usize;
        for index in (0..end).rev() {
            match self.out[index].0 {
                Token::Punct(')') => depth += 1,
                Token::Punct('(') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(index);
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn unknown(&mut self, span: Span) {
        self.diagnostics.push(
            Diagnostic::error(Code::E0100, span, "unexpected characters")
                .with_label("not part of the language"),
        );
    }

    fn finish(mut self, source_len: usize) -> (Vec<Spanned>, Vec<Diagnostic>) {
        while !self.open.is_empty() {
            self.close_unclosed(source_len);
        }
        self.diagnostics.sort_by_key(|d| d.span.start);
        (self.out, self.diagnostics)
    }
}

fn matching_opener(closer: char) -> char {
    match closer {
        ')' => '(',
        ']' => '[',
        _ => '{',
    }
}

fn matching_closer(opener: char) -> char {
    match opener {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// A parser span as the compiler's. What matched nothing (a missing `grid(...)` after the
/// tokens recovery skipped) can end before it starts: it becomes the empty span at its start.
pub fn to_span(span: SimpleSpan) -> Span {
    Span::new(span.start, span.end.max(span.start))
}
