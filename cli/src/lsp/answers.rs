//! The compiler's answers in the protocol's terms: diagnostics, hover, completion, definition,
//! the document's outline and its semantic tokens. Every answer comes from `compiler-core`
//! (the same queries the playground's editor asks), converted here and nowhere else. A
//! document over the compiler's limit has its diagnostic (E0106) and empty answers, not
//! errors, which an editor would show as a failure at every hover.

use super::document::Document;
use compiler_core::span::Span;
use compiler_core::syntax::highlight::{highlight, Class};
use compiler_core::Severity;
use lsp_types::{
    CodeDescription, CompletionItem, CompletionItemKind, CompletionTextEdit, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, Hover, HoverContents,
    Location, MarkupContent, MarkupKind, NumberOrString, SemanticToken, SemanticTokenModifier,
    SemanticTokenType, SemanticTokensLegend, SymbolKind, TextEdit, Uri,
};
use std::str::FromStr;

pub fn diagnostics(uri: &Uri, document: &Document, docs_url: Option<&str>) -> Vec<Diagnostic> {
    let location = |span: Span, message: String| DiagnosticRelatedInformation {
        location: Location::new(uri.clone(), document.range(span)),
        message,
    };
    document
        .compilation()
        .diagnostics
        .iter()
        .map(|d| {
            let mut related: Vec<_> = d
                .label
                .iter()
                .map(|l| location(d.span, l.clone()))
                .collect();
            related.extend(d.labels.iter().map(|l| location(l.span, l.message.clone())));
            related.extend(
                d.help
                    .iter()
                    .map(|h| location(d.span, format!("help: {h}"))),
            );
            let href = docs_url.map(|url| {
                format!(
                    "{}/docs/errors#{}",
                    url.trim_end_matches('/'),
                    d.code.as_str()
                )
            });
            Diagnostic {
                range: document.range(d.span),
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    _ => DiagnosticSeverity::WARNING,
                }),
                code: Some(NumberOrString::String(d.code.as_str().to_owned())),
                code_description: href
                    .and_then(|href| Uri::from_str(&href).ok())
                    .map(|href| CodeDescription { href }),
                source: Some("tessera".to_owned()),
                message: d.message.clone(),
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: None,
            }
        })
        .collect()
}

/// Where to ask about the word at `offset`: there, and just before it when `offset` is just
/// past a word (where a caret rests after typing one), not when it is on something else.
pub(super) fn asked_at(document: &Document, offset: usize) -> Vec<usize> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let text = &document.text;
    let on_word = text[offset..].chars().next().is_some_and(word);
    let after_word = text[..offset].chars().next_back().is_some_and(word);
    if !document.within_limit() {
        Vec::new()
    } else if !on_word && after_word {
        vec![offset, offset - 1]
    } else {
        vec![offset]
    }
}

/// The name's type and uniformity, or what a built-in does.
pub fn hover(document: &Document, offset: usize) -> Option<Hover> {
    let compilation = document.compilation();
    let (at, text) = asked_at(document, offset)
        .into_iter()
        .find_map(|at| compilation.hover(at).map(|text| (at, text)))?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::PlainText,
            value: text,
        }),
        range: compilation
            .checked
            .name_at(at)
            .map(|name| document.range(name.span)),
    })
}

pub fn definition(uri: &Uri, document: &Document, offset: usize) -> Option<Location> {
    let compilation = document.compilation();
    let span = asked_at(document, offset)
        .into_iter()
        .find_map(|at| compilation.definition(at))?;
    Some(Location::new(uri.clone(), document.range(span)))
}

/// What can be written at the caret, each item replacing the word begun there, in the
/// compiler's order (the names in scope first).
pub fn completions(document: &Document, offset: usize, explicit: bool) -> Vec<CompletionItem> {
    if !document.within_limit() {
        return Vec::new();
    }
    let Some(found) = document.compilation().completions(offset, explicit) else {
        return Vec::new();
    };
    let replaced = document.range(Span::new(found.from, offset));
    found
        .items
        .into_iter()
        .enumerate()
        .map(|(i, item)| CompletionItem {
            kind: Some(match item.kind {
                "property" => CompletionItemKind::FIELD,
                "function" => CompletionItemKind::FUNCTION,
                "variable" => CompletionItemKind::VARIABLE,
                "type" => CompletionItemKind::TYPE_PARAMETER,
                _ => CompletionItemKind::KEYWORD,
            }),
            detail: (!item.detail.is_empty()).then_some(item.detail),
            sort_text: Some(format!("{i:04}")),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                replaced,
                item.label.clone(),
            ))),
            label: item.label,
            ..CompletionItem::default()
        })
        .collect()
}

/// The file's kernels (their parameters inside), programs and functions.
pub fn symbols(document: &Document) -> Vec<DocumentSymbol> {
    let compilation = document.compilation();
    let symbol = |name: &str, detail: String, kind, span, name_span, children| {
        #[allow(deprecated)] // `deprecated` is a field every literal must name
        DocumentSymbol {
            name: name.to_owned(),
            detail: Some(detail),
            kind,
            tags: None,
            deprecated: None,
            range: document.range(span),
            selection_range: document.range(name_span),
            children,
        }
    };
    let params = |params: &[compiler_core::syntax::ast::Param]| {
        params
            .iter()
            .map(|p| {
                let written =
                    Span::new(p.name.span.end, p.span.end).first_line(compilation.source());
                let detail = written.trim_start_matches([':', ' ']).to_owned();
                symbol(
                    &p.name.name,
                    detail,
                    SymbolKind::VARIABLE,
                    p.span,
                    p.name.span,
                    None,
                )
            })
            .collect::<Vec<_>>()
    };
    let kernels = compilation.file.kernels.iter().map(|k| {
        let launch = compilation
            .checked
            .kernels
            .iter()
            .find(|info| info.name == k.name.name)
            .and_then(|info| info.threads)
            .map_or(String::new(), |t| format!(" · @launch({t})"));
        let children = Some(params(&k.params));
        symbol(
            &k.name.name,
            format!("kernel{launch}"),
            SymbolKind::FUNCTION,
            k.span,
            k.name.span,
            children,
        )
    });
    let programs = compilation.file.programs.iter().map(|p| {
        let children = Some(params(&p.params));
        symbol(
            &p.name.name,
            "program".to_owned(),
            SymbolKind::MODULE,
            p.span,
            p.name.span,
            children,
        )
    });
    let functions = compilation.file.functions.iter().map(|f| {
        let header = compilation.function_text(f);
        let detail = header
            .rsplit_once(" -> ")
            .map_or("fn".to_owned(), |(_, result)| format!("fn -> {result}"));
        symbol(
            &f.name.name,
            detail,
            SymbolKind::FUNCTION,
            f.span,
            f.name.span,
            Some(params(&f.params)),
        )
    });
    kernels.chain(programs).chain(functions).collect()
}

/// The semantic token types, in the order of the lexer's classes that have one: punctuation
/// has none (the protocol names no such type), so the editor's grammar colours it.
static TOKEN_TYPES: [(Class, SemanticTokenType); 9] = [
    (Class::Keyword, SemanticTokenType::KEYWORD),
    (Class::Type, SemanticTokenType::TYPE),
    (Class::Ctx, SemanticTokenType::VARIABLE),
    (Class::Builtin, SemanticTokenType::FUNCTION),
    (Class::Number, SemanticTokenType::NUMBER),
    (Class::Comment, SemanticTokenType::COMMENT),
    (Class::Attribute, SemanticTokenType::DECORATOR),
    (Class::Operator, SemanticTokenType::OPERATOR),
    (Class::Name, SemanticTokenType::VARIABLE),
];

/// `ctx` and its fields, and the built-ins: the language's own names.
const DEFAULT_LIBRARY: u32 = 1;

pub fn legend() -> SemanticTokensLegend {
    let mut types: Vec<SemanticTokenType> = Vec::new();
    for (_, ty) in &TOKEN_TYPES {
        if !types.contains(ty) {
            types.push(ty.clone());
        }
    }
    SemanticTokensLegend {
        token_types: types,
        token_modifiers: vec![SemanticTokenModifier::DEFAULT_LIBRARY],
    }
}

/// The lexer's tokens (as the playground colours them), each cut at line ends, since a
/// client need not take a token across lines, and encoded relative to the one before.
pub fn semantic_tokens(document: &Document) -> Vec<SemanticToken> {
    if !document.within_limit() {
        return Vec::new();
    }
    let legend = legend();
    let text = &document.text;
    let lines = document.lines();
    let mut out = Vec::new();
    let (mut last_line, mut last_start) = (0, 0);
    // Where the last piece started, as (line, byte, UTF-16 column): columns are counted on from
    // there, so a long line costs its length once, not once per token.
    let mut cursor = (0, 0, 0);
    for token in highlight(text) {
        let Some((_, ty)) = TOKEN_TYPES.iter().find(|(c, _)| *c == token.class) else {
            continue;
        };
        let token_type = legend.token_types.iter().position(|t| t == ty).unwrap_or(0) as u32;
        let modifiers = if matches!(token.class, Class::Ctx | Class::Builtin) {
            DEFAULT_LIBRARY
        } else {
            0
        };
        let first = lines.line_of(token.span.start);
        let last = lines.line_of(token.span.end);
        for line in first..=last {
            let line_start = lines.line_start(line);
            let start = token.span.start.max(line_start);
            let end = token
                .span
                .end
                .min(line_start + lines.line_text(text, line).len());
            let Some(piece) = text.get(start..end).filter(|p| !p.is_empty()) else {
                continue;
            };
            let (from, counted) = if cursor.0 == line {
                (cursor.1, cursor.2)
            } else {
                (line_start, 0)
            };
            let column = counted
                + text
                    .get(from..start)
                    .map_or(0, |t| t.encode_utf16().count() as u32);
            cursor = (line, start, column);
            let line = line as u32;
            out.push(SemanticToken {
                delta_line: line - last_line,
                delta_start: if line == last_line {
                    column - last_start
                } else {
                    column
                },
                length: piece.encode_utf16().count() as u32,
                token_type,
                token_modifiers_bitset: modifiers,
            });
            (last_line, last_start) = (line, column);
        }
    }
    out
}
