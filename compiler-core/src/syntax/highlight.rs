//! Syntax highlighting from the compiler's own lexer, so the editor, the docs and the error
//! pages colour code exactly as the compiler reads it.
//!
//! In: source text. Out: [`Highlight`]s in source order, not overlapping; text between them
//! (spaces, unknown characters) is plain. Comments are the gaps between tokens that start with
//! `//` or `/*`, since the lexer skips them.

use super::token::{lexer, Token};
use crate::span::Span;
use chumsky::Parser;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Class {
    Keyword,
    Type,
    /// `ctx` and its fields.
    Ctx,
    Builtin,
    Number,
    Comment,
    /// `@launch`.
    Attribute,
    Operator,
    Punctuation,
    Name,
}

impl Class {
    /// The CSS class the site styles.
    pub fn css(self) -> &'static str {
        match self {
            Class::Keyword => "tok-keyword",
            Class::Type => "tok-type",
            Class::Ctx => "tok-ctx",
            Class::Builtin => "tok-builtin",
            Class::Number => "tok-number",
            Class::Comment => "tok-comment",
            Class::Attribute => "tok-attribute",
            Class::Operator => "tok-operator",
            Class::Punctuation => "tok-punctuation",
            Class::Name => "tok-name",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Highlight {
    pub span: Span,
    pub class: Class,
}

const TYPES: [&str; 5] = ["i32", "u32", "f32", "f16", "bool"];

pub fn highlight(source: &str) -> Vec<Highlight> {
    let tokens = lexer().parse(source).into_output().unwrap_or_default();
    let mut out = Vec::with_capacity(tokens.len());
    let mut previous: Option<&Token> = None;
    let mut before_previous: Option<&Token> = None;
    let mut end_of_last = 0;
    for (token, span) in &tokens {
        comments_between(source, end_of_last, span.start, &mut out);
        end_of_last = span.end;
        let class = classify(token, previous, before_previous);
        if let Some(class) = class {
            out.push(Highlight {
                span: Span::new(span.start, span.end),
                class,
            });
        }
        if !matches!(token, Token::Newline) {
            before_previous = previous;
            previous = Some(token);
        }
    }
    comments_between(source, end_of_last, source.len(), &mut out);
    // The `@` of `@launch` (elsewhere `@` is the matrix product).
    for i in 1..out.len() {
        let adjacent = out[i - 1].span.end == out[i].span.start;
        if adjacent && out[i].class == Class::Attribute && out[i - 1].class == Class::Operator {
            out[i - 1].class = Class::Attribute;
        }
    }
    out
}

fn classify(token: &Token, previous: Option<&Token>, before: Option<&Token>) -> Option<Class> {
    Some(match token {
        Token::Int(_) | Token::Float(_) => Class::Number,
        Token::True | Token::False => Class::Keyword,
        Token::Ctx => Class::Ctx,
        Token::Tensor => Class::Type,
        Token::Ident(name) => match (previous, before) {
            // `ctx.block`, and the axis in `ctx.block.x`.
            (Some(Token::Punct('.')), Some(Token::Ctx)) => Class::Ctx,
            (Some(Token::Op("@")), _) if name == "launch" => Class::Attribute,
            _ if TYPES.contains(&name.as_str()) => Class::Type,
            _ if crate::check::is_builtin(name) => Class::Builtin,
            _ => Class::Name,
        },
        Token::Punct(_) => Class::Punctuation,
        Token::Op(_) | Token::TileLength => Class::Operator,
        Token::UnclosedComment => Class::Comment,
        Token::Newline | Token::Unknown(_) => return None,
        _ => Class::Keyword,
    })
}

/// The comments in `source[start..end]`, a stretch the lexer skipped.
fn comments_between(source: &str, start: usize, end: usize, out: &mut Vec<Highlight>) {
    let Some(gap) = source.get(start..end) else {
        return;
    };
    let mut at = 0;
    while let Some(offset) = gap[at..].find('/') {
        let from = at + offset;
        let rest = &gap[from..];
        let length = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |e| e + 2)
        } else {
            at = from + 1;
            continue;
        };
        out.push(Highlight {
            span: Span::new(start + from, start + from + length),
            class: Class::Comment,
        });
        at = from + length.max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(source: &str) -> Vec<(&str, Class)> {
        highlight(source)
            .into_iter()
            .map(|h| (&source[h.span.range()], h.class))
            .collect()
    }

    #[test]
    fn every_kind_of_token_gets_its_class() {
        let source = "// a kernel\n@launch(32)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.lane] = sum<over ctx.lane>(1.5) /* c */ + 2\n}\n";
        let got = classes(source);
        for expected in [
            ("// a kernel", Class::Comment),
            ("@", Class::Attribute),
            ("launch", Class::Attribute),
            ("kernel", Class::Keyword),
            ("k", Class::Name),
            ("tensor", Class::Type),
            ("f32", Class::Type),
            ("ctx", Class::Ctx),
            ("lane", Class::Ctx),
            ("sum", Class::Builtin),
            ("over", Class::Keyword),
            ("1.5", Class::Number),
            ("/* c */", Class::Comment),
            ("+", Class::Operator),
            ("{", Class::Punctuation),
        ] {
            assert!(got.contains(&expected), "{expected:?} not in {got:?}");
        }
    }

    #[test]
    fn highlights_are_in_order_and_never_overlap() {
        let source = "kernel k() { let a = 1 // x\n /* y */ let b = a }\n€ /* open";
        let spans: Vec<Span> = highlight(source).iter().map(|h| h.span).collect();
        for pair in spans.windows(2) {
            assert!(pair[0].end <= pair[1].start, "{pair:?}");
        }
        assert!(spans.iter().all(|s| source.get(s.range()).is_some()));
    }
}
