//! Renders diagnostics: as terminal text in rustc's layout, and as structured data with lines
//! and columns for the playground.
//!
//! In: diagnostics and the source they point into. Out: text or [`Structured`] values.
//! Invariant: the renderers never fail; a span past the source is clamped to its end.

use super::{Diagnostic, Severity};
use crate::span::{LineColumn, LineIndex, Span};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// Renders every diagnostic, separated by blank lines, then a summary line when there are
/// errors.
pub fn render_all(diagnostics: &[Diagnostic], source: &str, file_name: &str) -> String {
    let index = LineIndex::new(source);
    let mut out = String::new();
    for diagnostic in diagnostics {
        out += &render_with(diagnostic, source, file_name, &index);
        out.push('\n');
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    use super::codes::Phase;
    let phase = |p: Phase| diagnostics.iter().any(|d| d.code.phase() == p);
    if phase(Phase::Launch) || phase(Phase::Run) {
        out += "error: the run stopped\n";
        return out;
    }
    // A target's refusal (E0521, E0522) or a backend's failure: the source compiles, the
    // listing for this target does not.
    if phase(Phase::Backend) {
        out += "error: could not compile for this target\n";
        return out;
    }
    match errors {
        0 => {}
        1 => out += "error: could not compile: 1 error\n",
        n => {
            let _ = writeln!(out, "error: could not compile: {n} errors");
        }
    }
    out
}

/// One diagnostic as rustc lays it out:
///
/// ```text
/// error[E0201]: `x` is not defined
///  --> kernel.tsr:3:11
///   |
/// 3 |   let y = x + 1
///   |           ^ not defined
///   = help: ...
/// ```
pub fn render(diagnostic: &Diagnostic, source: &str, file_name: &str) -> String {
    render_with(diagnostic, source, file_name, &LineIndex::new(source))
}

struct Mark<'a> {
    span: Span,
    text: Option<&'a str>,
    primary: bool,
}

fn render_with(
    diagnostic: &Diagnostic,
    source: &str,
    file_name: &str,
    index: &LineIndex,
) -> String {
    let clamp = |span: Span| {
        let start = floor_char_boundary(source, span.start.min(source.len()));
        let end = floor_char_boundary(source, span.end.min(source.len())).max(start);
        Span::new(start, end)
    };
    let severity = diagnostic.severity.name();
    let primary = clamp(diagnostic.span);
    let at = index.line_column(source, primary.start);
    let mut marks = vec![Mark {
        span: primary,
        text: diagnostic.label.as_deref(),
        primary: true,
    }];
    marks.extend(diagnostic.labels.iter().map(|label| Mark {
        span: clamp(label.span),
        text: Some(label.message.as_str()),
        primary: false,
    }));
    let mut lines: Vec<usize> = marks.iter().map(|m| index.line_of(m.span.start)).collect();
    lines.sort_unstable();
    lines.dedup();
    let width = lines.last().map_or(1, |last| (last + 1).to_string().len());
    let pad = " ".repeat(width);

    let mut out = format!(
        "{severity}[{}]: {}\n{pad}--> {file_name}:{}:{}\n{pad} |\n",
        diagnostic.code.as_str(),
        diagnostic.message,
        at.line,
        at.column
    );
    let mut previous: Option<usize> = None;
    for line in lines {
        if previous.is_some_and(|p| line > p + 1) {
            let _ = writeln!(out, "{pad}...");
        }
        previous = Some(line);
        let text = index.line_text(source, line);
        let _ = writeln!(out, "{:>width$} | {}", line + 1, text.replace('\t', " "));
        for mark in marks.iter().filter(|m| index.line_of(m.span.start) == line) {
            out += &underline(mark, text, index.line_start(line), &pad);
        }
    }
    if let Some(help) = &diagnostic.help {
        let _ = writeln!(out, "{pad} = help: {help}");
    }
    out
}

/// The caret (`^`) or dash (`-`) line under one mark, cut at the end of its first line.
fn underline(mark: &Mark<'_>, line_text: &str, line_start: usize, pad: &str) -> String {
    let before = mark.span.start - line_start;
    let lead = line_text.get(..before.min(line_text.len())).unwrap_or("");
    let indent = lead.chars().count();
    let rest = line_text.len().saturating_sub(before);
    let marked = line_text
        .get(before.min(line_text.len())..before + mark.span.len().min(rest))
        .unwrap_or("");
    let length = marked.chars().count().max(1);
    let symbol = if mark.primary { "^" } else { "-" };
    let mut out = format!("{pad} | {}{}", " ".repeat(indent), symbol.repeat(length));
    if let Some(text) = mark.text {
        out.push(' ');
        out += text;
    }
    out.push('\n');
    out
}

fn floor_char_boundary(source: &str, mut offset: usize) -> usize {
    while offset > 0 && !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A diagnostic with lines and columns resolved, for the playground and JSON output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Structured {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// The registry's one-line explanation of the code.
    pub explanation: String,
    pub primary: StructuredLabel,
    pub labels: Vec<StructuredLabel>,
    pub help: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructuredLabel {
    pub span: Span,
    pub start: LineColumn,
    pub end: LineColumn,
    pub message: Option<String>,
}

impl Structured {
    pub fn new(diagnostic: &Diagnostic, source: &str, index: &LineIndex) -> Self {
        let label = |span: Span, message: Option<String>| StructuredLabel {
            span,
            start: index.line_column(source, span.start),
            end: index.line_column(source, span.end),
            message,
        };
        Self {
            code: diagnostic.code.as_str().to_owned(),
            severity: diagnostic.severity,
            message: diagnostic.message.clone(),
            explanation: diagnostic.code.explanation().to_owned(),
            primary: label(diagnostic.span, diagnostic.label.clone()),
            labels: diagnostic
                .labels
                .iter()
                .map(|l| label(l.span, Some(l.message.clone())))
                .collect(),
            help: diagnostic.help.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    #[test]
    fn renders_primary_and_secondary_spans_with_help() {
        let source = "kernel k() {\n  if ctx.lane == 0 {\n    barrier()\n  }\n}\n";
        let barrier = source.find("barrier()").unwrap_or(0);
        let cond = source.find("ctx.lane == 0").unwrap_or(0);
        let diagnostic = Diagnostic::error(
            Code::E0401,
            Span::new(barrier, barrier + 9),
            "barrier() is reached under varying control",
        )
        .with_label("not every thread of the CTA gets here")
        .with_secondary(
            Span::new(cond, cond + 13),
            "this condition differs between threads",
        )
        .with_help("move barrier() out of the if");
        let expected = "\
error[E0401]: barrier() is reached under varying control
 --> k.tsr:3:5
  |
2 |   if ctx.lane == 0 {
  |      ------------- this condition differs between threads
3 |     barrier()
  |     ^^^^^^^^^ not every thread of the CTA gets here
  = help: move barrier() out of the if
";
        assert_eq!(render(&diagnostic, source, "k.tsr"), expected);
    }

    #[test]
    fn a_span_past_the_end_is_clamped() {
        let diagnostic = Diagnostic::error(Code::E0102, Span::new(50, 60), "unclosed");
        let text = render(&diagnostic, "ab", "x.tsr");
        assert!(text.contains("--> x.tsr:1:3"), "{text}");
    }
}
