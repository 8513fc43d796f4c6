//! The answers that read or write names and layout: references, rename, signature help, the
//! quick fixes of diagnostics and formatting. Each is a `compiler-core` query converted to
//! the protocol's terms here (the compiler decides what a rename may write; this file only
//! turns spans into ranges).

use super::document::Document;
use compiler_core::span::Span;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Location, ParameterInformation,
    ParameterLabel, PrepareRenameResponse, Range, SignatureHelp, SignatureInformation, TextEdit,
    Uri, WorkspaceEdit,
};
use std::collections::HashMap;

/// Where the name at `offset` is written: its declaration (if asked for) and every use.
pub fn references(
    uri: &Uri,
    document: &Document,
    offset: usize,
    declaration: bool,
) -> Vec<Location> {
    let Some(spans) = named_at(document, offset, |at| document.compilation().references(at)) else {
        return Vec::new();
    };
    let skip = usize::from(!declaration);
    spans
        .into_iter()
        .skip(skip)
        .map(|s| Location::new(uri.clone(), document.range(s)))
        .collect()
}

/// The word a rename at `offset` would replace, or nothing where no rename can be made.
pub fn prepare_rename(document: &Document, offset: usize) -> Option<PrepareRenameResponse> {
    let spans = named_at(document, offset, |at| document.compilation().references(at))?;
    let here = spans
        .iter()
        .find(|s| s.start <= offset && offset <= s.end)
        .copied()
        .unwrap_or(spans[0]);
    Some(PrepareRenameResponse::Range(document.range(here)))
}

/// The edits that rename the name at `offset`, or why not (the compiler's words).
pub fn rename(
    uri: &Uri,
    document: &Document,
    offset: usize,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let compilation = document.compilation();
    let at = named_at(document, offset, |at| {
        compilation.references(at).map(|_| at)
    })
    .ok_or_else(|| "only a name declared in this file can be renamed".to_owned())?;
    let spans = compilation.rename(at, new_name)?;
    let edits = spans
        .into_iter()
        .map(|s| TextEdit::new(document.range(s), new_name.to_owned()))
        .collect();
    Ok(WorkspaceEdit::new(HashMap::from([(uri.clone(), edits)])))
}

/// The built-in call around the caret: its forms and the parameter the caret is in.
pub fn signature_help(document: &Document, offset: usize) -> Option<SignatureHelp> {
    if !document.within_limit() {
        return None;
    }
    let found = document.compilation().signature_help(offset)?;
    let utf16 = |s: &str| u32::try_from(s.encode_utf16().count()).unwrap_or(u32::MAX);
    let signatures = found
        .signatures
        .into_iter()
        .map(|form| {
            let parameters = form
                .parameters
                .iter()
                .map(|&(from, to)| ParameterInformation {
                    label: ParameterLabel::LabelOffsets([
                        utf16(&form.label[..from]),
                        utf16(&form.label[..to]),
                    ]),
                    documentation: None,
                })
                .collect();
            SignatureInformation {
                label: form.label,
                documentation: Some(lsp_types::Documentation::String(form.documentation)),
                parameters: Some(parameters),
                active_parameter: None,
            }
        })
        .collect();
    Some(SignatureHelp {
        signatures,
        active_signature: u32::try_from(found.active_signature).ok(),
        active_parameter: u32::try_from(found.active_parameter).ok(),
    })
}

/// A quick fix for each diagnostic in `range` whose help is an edit: "Write `ctx.thread`".
pub fn code_actions(uri: &Uri, document: &Document, range: Range) -> Vec<CodeActionOrCommand> {
    let (from, to) = (document.offset(range.start), document.offset(range.end));
    let published = super::answers::diagnostics(uri, document, None);
    let compilation = document.compilation();
    compilation
        .diagnostics
        .iter()
        .zip(published)
        .filter(|(d, _)| d.span.start <= to && from <= d.span.end)
        .filter_map(|(d, shown)| {
            let fix = d.fix.as_deref()?;
            let was = compilation.text(fix.span);
            let edit = TextEdit::new(document.range(fix.span), fix.replacement.clone());
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Write `{}` for `{was}`", fix.replacement),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![shown]),
                edit: Some(WorkspaceEdit::new(HashMap::from([(
                    uri.clone(),
                    vec![edit],
                )]))),
                is_preferred: Some(true),
                ..CodeAction::default()
            }))
        })
        .collect()
}

/// The whole document laid out, as one edit; none when it is already, or does not parse.
pub fn formatting(document: &Document) -> Option<Vec<TextEdit>> {
    if !document.within_limit() {
        return None;
    }
    let formatted = compiler_core::format(&document.text).ok()?;
    if formatted == document.text {
        return Some(Vec::new());
    }
    let whole = document.range(Span::new(0, document.text.len()));
    Some(vec![TextEdit::new(whole, formatted)])
}

/// `ask` at the offsets a request at `offset` means (there, or just before when the caret
/// is just past a word).
fn named_at<T>(document: &Document, offset: usize, ask: impl Fn(usize) -> Option<T>) -> Option<T> {
    super::answers::asked_at(document, offset)
        .into_iter()
        .find_map(ask)
}
