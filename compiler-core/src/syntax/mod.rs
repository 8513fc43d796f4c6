//! Syntax: source text to an AST with spans.
//!
//! In: the source. Out: an [`ast::File`] and the syntax diagnostics, in source order.
//! Pipeline: `token` (chumsky lexer) → `layout` (newlines, balanced delimiters, limits) →
//! `parser` (chumsky, Pratt expressions, recovery) → `ctx` (the reading rules of ctx).
//! Invariant: parsing never fails and never panics; a file that is too large gets one
//! diagnostic and an empty AST.

pub mod ast;
pub mod builtins;
pub mod ctx;
pub mod cuda;
pub mod format;
pub mod highlight;
mod layout;
mod parser;
pub mod similar;
mod token;

use crate::diagnostic::{Code, Diagnostic};
use crate::span::{ends_line_alone, Span};
use chumsky::Parser;

pub use layout::{MAX_NESTING, MAX_OPERATORS};

/// The largest source the compiler reads: 1 MiB, far beyond any kernel file, and small enough
/// to check on every keystroke.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

pub fn parse(source: &str) -> (ast::File, Vec<Diagnostic>) {
    if source.len() > MAX_SOURCE_BYTES {
        let diagnostic = Diagnostic::error(
            Code::E0106,
            Span::new(MAX_SOURCE_BYTES, source.len()).to(Span::empty(MAX_SOURCE_BYTES)),
            format!(
                "the source is {} bytes; the compiler reads at most {MAX_SOURCE_BYTES}",
                source.len()
            ),
        )
        .with_help("split the kernels into several files");
        return (ast::File::default(), vec![diagnostic]);
    }
    if let Some(diagnostic) = lone_carriage_return(source) {
        return (ast::File::default(), vec![diagnostic]);
    }
    let tokens = token::lexer()
        .parse(source)
        .into_output()
        .unwrap_or_default();
    let (tokens, mut diagnostics) = layout::layout(tokens, source.len());
    let (file, parse_errors) = parser::parse(&tokens, source.len());
    let lexical: Vec<Span> = diagnostics
        .iter()
        .filter(|d| d.code == Code::E0100)
        .map(|d| d.span)
        .collect();
    diagnostics.extend(
        parse_errors
            .into_iter()
            .filter(|error| !follows_lexical_error(error.span, &lexical, source))
            .map(|error| explain_continuation(explain_range(error, source), source))
            .map(|error| explain_cuda_field(error, source)),
    );
    ctx::check_file(&file, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.span.start, d.code));
    (file, diagnostics)
}

/// A parse error at the `.` of a CUDA variable's field (`threadIdx.x`, which Tessera does not
/// parse: its names have no fields) says what Tessera writes (`syntax::cuda`).
fn explain_cuda_field(error: Diagnostic, source: &str) -> Diagnostic {
    let at = error.span.start.min(source.len());
    if error.help.is_some() || !source[at..].starts_with('.') {
        return error;
    }
    let before = &source[..at];
    let name_start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let name = &before[name_start..];
    let axis_end = at
        + 1
        + source[at + 1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(source.len() - at - 1);
    let fix = cuda::field_replacement(name, &source[at + 1..axis_end]);
    match (cuda::help(name), fix) {
        (Some(help), Some(fix)) => error.with_fix(help, Span::new(name_start, axis_end), fix),
        (Some(help), None) => error.with_help(help),
        (None, _) => error,
    }
}

/// A parse error later on the same line as an unknown character is its echo: the character
/// was dropped, so what surrounds it no longer fits together.
fn follows_lexical_error(span: Span, lexical: &[Span], source: &str) -> bool {
    lexical.iter().any(|bad| {
        let line_end = source[bad.end..]
            .find('\n')
            .map_or(source.len(), |at| bad.end + at);
        (bad.start..=line_end).contains(&span.start)
    })
}

/// A parse error on a line that continues the one before (which ends with an operator or a
/// comma) says so: the usual cause is an operand forgotten at the end of that line.
fn explain_continuation(mut error: Diagnostic, source: &str) -> Diagnostic {
    let start = error.span.start.min(source.len());
    let Some(line_start) = source[..start].rfind('\n') else {
        return error;
    };
    let previous = source[..line_start].lines().last().unwrap_or("");
    let code = previous.split("//").next().unwrap_or("").trim_end();
    let ending = token::OPERATORS
        .iter()
        .copied()
        .chain([","])
        .filter(|op| !matches!(*op, "!" | "~"))
        .find(|op| code.ends_with(op));
    if let (Some(op), None) = (ending, &error.help) {
        error.help = Some(format!(
            "the line before ends with `{op}`, so this line continues its statement"
        ));
    }
    error
}

/// `for i in 0..N`, a range as Rust and other languages write it, gets the help that says how
/// Tessera writes it: `for i in range(0, N)` (`0..=N` is `range(0, N + 1)`).
fn explain_range(mut error: Diagnostic, source: &str) -> Diagnostic {
    let at = error.span.start.min(source.len());
    // The parser stops at the first `.` of `0..N`, or at the second after a `ctx` field
    // (`ctx.lane..N`), where a `.` starts the next field.
    let start = match (&source[..at], &source[at..]) {
        (_, rest) if rest.starts_with("..") => at,
        (before, rest) if before.ends_with('.') && rest.starts_with('.') => at - 1,
        _ => return error,
    };
    if error.code != Code::E0101 || error.help.is_some() {
        return error;
    }
    let rest = &source[start..];
    let line_start = source[..start].rfind('\n').map_or(0, |at| at + 1);
    let before = &source[line_start..start];
    let Some(keyword) = before.rfind("for ") else {
        return error;
    };
    let alone = before[..keyword]
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
    let Some((var, from)) = before[keyword + 4..].split_once(" in ") else {
        return error;
    };
    let inclusive = rest.starts_with("..=");
    let after = &rest[if inclusive { 3 } else { 2 }..];
    let line = after.lines().next().unwrap_or("");
    let code = line.split("//").next().unwrap_or("");
    let to = code.split('{').next().unwrap_or("").trim();
    let (var, from) = (var.trim(), from.trim());
    // Still in the loop's header: no `{` between `for` and the range.
    if !alone || var.is_empty() || from.is_empty() || from.contains('{') || to.is_empty() {
        return error;
    }
    // One past an inclusive end: `N - 1` is `N`, another operand gets `+ 1`.
    let operand = |text: &str| {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    let to = match to.strip_suffix('1').map(|t| t.trim_end().strip_suffix('-')) {
        _ if !inclusive => to.to_owned(),
        Some(Some(less)) if operand(less.trim_end()) => less.trim_end().to_owned(),
        _ if operand(to) => format!("{to} + 1"),
        _ => format!("({to}) + 1"),
    };
    error.help = Some(format!(
        "a range is written range(start, end): `for {var} in range({from}, {to})`"
    ));
    error
}

/// A line ended by `\r` alone (classic Mac OS line endings): editors show a line break there,
/// while the language's lines end with `\n` or `\r\n`, so reading on would join the lines
/// (a `//` comment would swallow the rest of the file). One diagnostic, at the first.
fn lone_carriage_return(source: &str) -> Option<Diagnostic> {
    let at = source
        .match_indices('\r')
        .map(|(at, _)| at)
        .find(|&at| ends_line_alone(source.as_bytes(), at))?;
    Some(
        Diagnostic::error(
            Code::E0109,
            Span::new(at, at + 1),
            "this line ends with a carriage return (\\r) alone; Tessera's lines end with \\n or \\r\\n",
        )
        .with_help("save the file with LF or CRLF line endings"),
    )
}

/// Source bytes as text, or the diagnostic for the first byte that is not UTF-8.
pub fn decode(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|error| {
        let at = error.valid_up_to();
        Diagnostic::error(
            Code::E0107,
            Span::new(at, at + error.error_len().unwrap_or(1)),
            format!("the source is not valid UTF-8: byte {at} starts no character"),
        )
        .with_help("save the file as UTF-8")
    })
}
