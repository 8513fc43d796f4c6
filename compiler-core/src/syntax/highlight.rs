//! Syntax highlighting from the compiler's own lexer, so the editor, the docs and the error
//! pages colour code exactly as the compiler reads it.
//!
//! In: source text. Out: [`Highlight`]s in source order, not overlapping; text between them
//! (spaces, unknown characters) is plain. Comments are the gaps between tokens that start with
//! `//` or `/*`, since the lexer skips them. [`highlight_html`] writes them as HTML (with marks
//! such as diagnostics' underlines), and [`text_of_markup`] checks that no source turned into
//! markup on the way.

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
    pub const ALL: [Class; 10] = [
        Class::Keyword,
        Class::Type,
        Class::Ctx,
        Class::Builtin,
        Class::Number,
        Class::Comment,
        Class::Attribute,
        Class::Operator,
        Class::Punctuation,
        Class::Name,
    ];

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

    /// Whether the site colours it: operators, punctuation and names are plain text, so
    /// [`highlight_html`] leaves them out of its spans (they were a fifth of the site's first
    /// load, in the docs' prepared kernels). The editor still tags every token.
    pub fn coloured(self) -> bool {
        !matches!(self, Class::Operator | Class::Punctuation | Class::Name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Highlight {
    pub span: Span,
    pub class: Class,
}

const TYPES: [&str; 9] = ["i32", "u32", "f32", "f16", "i64", "u64", "i8", "u8", "bool"];
const ATTRIBUTES: [&str; 2] = ["launch", "cluster"];

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
    // The `@` of `@launch` and `@cluster` (elsewhere `@` is the matrix product).
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
            (Some(Token::Op("@")), _) if ATTRIBUTES.contains(&name.as_str()) => Class::Attribute,
            _ if TYPES.contains(&name.as_str()) => Class::Type,
            _ if super::builtins::is_builtin(name) => Class::Builtin,
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

// ---- As HTML: what the editor, the docs and the error pages show. ----

/// A stretch of the source to mark, and the CSS class that marks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub span: Span,
    pub class: &'static str,
}

/// `text` as HTML text: `<`, `>` and `&` escaped, everything else as it is.
pub fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
}

/// The text that HTML written by this crate shows, or `None` when it holds anything but
/// `<span>` tags with plain attributes and escaped text: the check that no input turned into
/// markup (the tests and the fuzzers hold the highlighter and the listings to it).
pub fn text_of_markup(html: &str) -> Option<String> {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("</span>") {
            rest = after;
        } else if c == '<' {
            let end = rest.find('>')?;
            if !is_plain_span_tag(&rest[..=end]) {
                return None;
            }
            rest = &rest[end + 1..];
        } else if c == '&' {
            let (decoded, length) = [("&lt;", '<'), ("&gt;", '>'), ("&amp;", '&')]
                .into_iter()
                .find_map(|(entity, c)| rest.starts_with(entity).then_some((c, entity.len())))?;
            text.push(decoded);
            rest = &rest[length..];
        } else if c == '>' {
            return None;
        } else {
            text.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    Some(text)
}

/// `<span class="…" data-line="…">` (either, both or neither) with values free of `<`, `>`,
/// `"` and `&`.
fn is_plain_span_tag(tag: &str) -> bool {
    let Some(mut attributes) = tag.strip_prefix("<span").and_then(|t| t.strip_suffix('>')) else {
        return false;
    };
    while let Some(rest) = attributes.strip_prefix(' ') {
        let Some((name, value)) = rest.split_once("=\"") else {
            return false;
        };
        let Some((value, after)) = value.split_once('"') else {
            return false;
        };
        if !["class", "data-line"].contains(&name) || value.contains(['<', '>', '&']) {
            return false;
        }
        attributes = after;
    }
    attributes.is_empty()
}

/// The source as HTML: each coloured token ([`Class::coloured`]) in a `<span class="tok-…">`,
/// each mark's stretch in a `<span class="…">` around it (split where tokens and marks cross,
/// so the HTML nests).
/// A trailing line break gets a space after it so the `<pre>` is as tall as the textarea.
pub fn highlight_html(source: &str, marks: &[Mark]) -> String {
    let tokens = highlight(source);
    let mut cuts: Vec<usize> = vec![0, source.len()];
    for h in &tokens {
        cuts.extend([h.span.start, h.span.end]);
    }
    for m in marks {
        // An empty mark (an error at the end of the file) still shows: one character wide.
        let end = if m.span.is_empty() {
            next_boundary(source, m.span.end)
        } else {
            m.span.end
        };
        cuts.extend([m.span.start.min(source.len()), end.min(source.len())]);
    }
    cuts.retain(|&c| source.is_char_boundary(c));
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = String::with_capacity(source.len() * 2);
    let mut token = tokens.iter().peekable();
    for pair in cuts.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        while token.peek().is_some_and(|t| t.span.end <= start) {
            token.next();
        }
        let mut classes: Vec<&str> = Vec::new();
        if let Some(t) = token
            .peek()
            .filter(|t| t.span.start <= start && end <= t.span.end && t.class.coloured())
        {
            classes.push(t.class.css());
        }
        for m in marks {
            let mark_end = if m.span.is_empty() {
                next_boundary(source, m.span.end)
            } else {
                m.span.end
            };
            if m.span.start <= start && end <= mark_end {
                classes.push(m.class);
            }
        }
        let text = &source[start..end];
        if classes.is_empty() {
            escape(text, &mut out);
        } else {
            out.push_str("<span class=\"");
            out.push_str(&classes.join(" "));
            out.push_str("\">");
            escape(text, &mut out);
            out.push_str("</span>");
        }
    }
    if source.is_empty() || source.ends_with('\n') {
        out.push(' ');
    }
    out
}

fn next_boundary(source: &str, at: usize) -> usize {
    (at + 1..=source.len())
        .find(|&i| source.is_char_boundary(i))
        .unwrap_or(source.len())
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
        let source = "// a kernel\n@launch(32)\n@cluster(N: 64)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.lane] = sum<over ctx.lane>(1.5) /* c */ + 2\n}\n";
        let got = classes(source);
        for expected in [
            ("// a kernel", Class::Comment),
            ("@", Class::Attribute),
            ("cluster", Class::Attribute),
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

    #[test]
    fn tokens_and_marks_nest_and_the_text_survives() {
        let source = "let a = b < 3 // x & y\n";
        let marks = [Mark {
            span: Span::new(4, 9),
            class: "diag-error",
        }];
        let html = highlight_html(source, &marks);
        assert!(
            html.contains("<span class=\"tok-keyword\">let</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"diag-error\">a</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"diag-error\">=</span>"),
            "{html}"
        );
        assert!(html.contains("&lt;"), "{html}");
        assert!(html.contains("// x &amp; y"), "{html}");
        assert_eq!(text_of_markup(&html), Some(format!("{source} ")));
    }

    #[test]
    fn markup_other_than_plain_spans_is_caught() {
        assert_eq!(
            text_of_markup("<span class=\"a\" data-line=\"3\">x &lt; y</span>"),
            Some("x < y".into())
        );
        for html in [
            "<script>",
            "<span onclick=\"x\">",
            "<span class=\"a\"",
            "<span class=\"a\"><b>",
            "<span class=\"a\"\">",
            "a > b",
            "&quot;",
            "<span class=\"a<b\">",
        ] {
            assert_eq!(text_of_markup(html), None, "{html}");
        }
    }

    proptest::proptest! {
        /// No source turns into markup: the HTML is spans and escaped text, and the text read
        /// back is the source.
        #[test]
        fn any_source_is_escaped(source in "(?s).{0,200}", start in 0usize..200, len in 0usize..20) {
            let start = (0..=start.min(source.len())).rev().find(|&i| source.is_char_boundary(i)).unwrap_or(0);
            let end = (start..=(start + len).min(source.len())).rev().find(|&i| source.is_char_boundary(i)).unwrap_or(start);
            let html = highlight_html(&source, &[Mark { span: Span::new(start, end), class: "diag-error" }]);
            let expected = if source.is_empty() || source.ends_with('\n') { format!("{source} ") } else { source.clone() };
            proptest::prop_assert_eq!(text_of_markup(&html), Some(expected), "{}", html);
        }
    }

    #[test]
    fn an_empty_mark_at_the_end_still_shows() {
        let html = highlight_html(
            "let a =",
            &[Mark {
                span: Span::empty(7),
                class: "diag-error",
            }],
        );
        assert!(
            !html.contains("diag-error"),
            "nothing after the end to mark: {html}"
        );
        let html = highlight_html(
            "let a =\n",
            &[Mark {
                span: Span::empty(7),
                class: "diag-error",
            }],
        );
        assert!(
            html.contains("<span class=\"diag-error\">\n</span>"),
            "{html}"
        );
    }
}
