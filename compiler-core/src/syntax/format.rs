//! `tessera fmt` and the editor's "format document": the layout every example is written in.
//!
//! In: a source that parses. Out: the same tokens in the same order, laid out: two spaces of
//! indentation a `{` level (one more on a line that continues the one before: inside open
//! parentheses or brackets, or after a line that ends with an operator or a comma), one space
//! between tokens where there was any (none before `,`, `)` and `]` or after `(` and `[`; one
//! after `,`), no trailing blanks, at most one blank line in a row (none at the start or the
//! end, after a `{` or before a `}`), and one line break at the end (`\n`).
//!
//! Invariants: only blanks change (comments, including the inside of a block comment over
//! several lines, are kept as written), which is checked: the formatted text is lexed again
//! and must give the same tokens, or the source is returned unformatted with an error rather
//! than changed. Formatting a formatted source changes nothing. A source with syntax errors is
//! refused: where its statements end is not known.

use super::highlight::{highlight, Class, Highlight};
use crate::diagnostic::{Diagnostic, Phase};

/// `source` laid out, or the first syntax error that keeps it from being formatted.
pub fn format(source: &str) -> Result<String, Diagnostic> {
    let (_, diagnostics) = super::parse(source);
    if let Some(error) = diagnostics
        .into_iter()
        .find(|d| d.is_error() && d.code.phase() == Phase::Syntax)
    {
        return Err(error);
    }
    let tokens = highlight(source);
    let out = lay_out(source, &tokens);
    let same = |a: &str, ta: &[Highlight], b: &str, tb: &[Highlight]| {
        ta.len() == tb.len()
            && ta
                .iter()
                .zip(tb)
                .all(|(x, y)| x.class == y.class && token(a, x) == token(b, y))
    };
    if !same(source, &tokens, &out, &highlight(&out)) {
        let at = crate::span::Span::empty(0);
        return Err(Diagnostic::error(
            crate::diagnostic::Code::E0100,
            at,
            "the formatter would change a token here, so it left the source as it is",
        )
        .with_help("please report this source: formatting only ever changes blanks"));
    }
    Ok(out)
}

/// A token's text, but for the `\r` a line comment of a CRLF source ends with (the formatted
/// text ends its lines with `\n`).
fn token<'t>(text: &'t str, t: &Highlight) -> &'t str {
    text[t.span.start..t.span.end].trim_end_matches('\r')
}

fn lay_out(source: &str, tokens: &[Highlight]) -> String {
    let text = |t: &Highlight| &source[t.span.start..t.span.end];
    let mut out = String::with_capacity(source.len() + source.len() / 8);
    let (mut braces, mut open, mut continues) = (0usize, 0usize, false);
    let mut blank_lines = 0usize;
    let mut next = 0; // the first token not yet written
    let mut line_start = 0;
    while line_start < source.len() {
        let line_end = source[line_start..]
            .find('\n')
            .map_or(source.len(), |i| line_start + i);
        // A line inside a block comment that began on an earlier line: as written, with the
        // code that may follow the comment's end on it.
        if next > 0 && tokens[next - 1].span.end > line_start {
            out.push_str(source[line_start..line_end].trim_end_matches('\r'));
            out.push('\n');
            while next < tokens.len() && tokens[next].span.start < line_end {
                match text(&tokens[next]) {
                    "{" => braces += 1,
                    "}" => braces = braces.saturating_sub(1),
                    "(" | "[" => open += 1,
                    ")" | "]" => open = open.saturating_sub(1),
                    _ => {}
                }
                next += 1;
            }
            line_start = line_end + 1;
            continue;
        }
        let first = next;
        while next < tokens.len() && tokens[next].span.start < line_end {
            next += 1;
        }
        let line = &tokens[first..next];
        if line.is_empty() {
            blank_lines += 1;
            line_start = line_end + 1;
            continue;
        }
        let closes = matches!(text(&line[0]), "}");
        // A blank line is kept between lines, not after a `{` or before a `}`.
        if blank_lines > 0 && !out.is_empty() && !closes && !out.ends_with("{\n") {
            out.push('\n');
        }
        blank_lines = 0;
        let closes_group = matches!(text(&line[0]), ")" | "]");
        let level = braces.saturating_sub(usize::from(closes))
            + usize::from((open > 0 && !closes_group) || (continues && !closes));
        out.push_str(&"  ".repeat(level));
        for (i, token) in line.iter().enumerate() {
            if i > 0 {
                let before = &line[i - 1];
                let gap = &source[before.span.end..token.span.start];
                let (a, b) = (text(before), text(token));
                if !gap.trim().is_empty() {
                    out.push_str(gap); // never: blanks are all a gap holds in a parsed source
                } else if a == "," {
                    out.push(' ');
                } else if matches!(b, "," | ")" | "]") || matches!(a, "(" | "[") {
                } else if !gap.is_empty() {
                    out.push(' ');
                }
            }
            // A block comment that goes on past this line is written to the line's end.
            let end = token.span.end.min(line_end);
            out.push_str(source[token.span.start..end].trim_end_matches([' ', '\t', '\r']));
            match text(token) {
                "{" => braces += 1,
                "}" => braces = braces.saturating_sub(1),
                "(" | "[" => open += 1,
                ")" | "]" => open = open.saturating_sub(1),
                _ => {}
            }
        }
        let last_code = line.iter().rev().find(|t| t.class != Class::Comment);
        continues = last_code.is_some_and(|t| t.class == Class::Operator || matches!(text(t), ","));
        out.push('\n');
        line_start = line_end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_are_laid_out_and_nothing_else_changes() {
        let messy = "\n\n@launch(64)\nkernel k( X: tensor<f32>[N] ,Y: tensor<f32>[N]) {   \n      let i = ctx.thread   // the thread\n\n\n   if i<N {\n Y[i]  =  X[ i ] +\n1.0\n  /* two\n        lines */\n }\n}\n\n";
        let Ok(formatted) = format(messy) else {
            panic!("not formatted")
        };
        assert_eq!(
            formatted,
            "@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  let i = ctx.thread // the thread\n\n  if i<N {\n    Y[i] = X[i] +\n      1.0\n    /* two\n        lines */\n  }\n}\n"
        );
        assert_eq!(format(&formatted).ok(), Some(formatted.clone()));
    }

    /// A CRLF source's line comments, and code after a block comment's last line, format
    /// (they had been refused as "would change a token").
    #[test]
    fn crlf_comments_and_code_after_a_block_comment_format() {
        let crlf = "// saxpy\r\n@launch(64)\r\nkernel k(X: tensor<f32>[N]) { // body\r\n  X[0] = 1.0\r\n}\r\n";
        assert_eq!(
            format(crlf).ok().as_deref(),
            Some("// saxpy\n@launch(64)\nkernel k(X: tensor<f32>[N]) { // body\n  X[0] = 1.0\n}\n")
        );
        let block = "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  /* one\n  two */ X[0] = 1.0\n  X[1] = 2.0\n}\n";
        let Ok(formatted) = format(block) else {
            panic!("not formatted")
        };
        assert_eq!(formatted, block);
        assert_eq!(format(&formatted).ok(), Some(formatted.clone()));
    }

    #[test]
    fn a_source_that_does_not_parse_is_refused() {
        let broken = "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  X[0] = 1.0 +\n}\n";
        assert!(format(broken).is_err());
    }
}
