//! Signature help: inside a built-in's call, its forms and the parameter the caret is in.
//!
//! In: a compilation and the caret's byte offset. Out: the call's forms, as the built-in
//! table describes them (`fma(a, b, c)`; `min(a, b)` and `min<over ctx.lane>(x)`), with the
//! active form and parameter. Invariant: the forms are read from `syntax::builtins::describe`,
//! the one table hover and completion read too, so the three never disagree.

use super::{in_comment, is_word};
use crate::syntax::builtins;
use crate::Compilation;

/// One form of a call, as in `clamp(x, lo, hi)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub label: String,
    /// Each parameter's byte range in `label`.
    pub parameters: Vec<(usize, usize)>,
    /// What the built-in does.
    pub documentation: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    pub signatures: Vec<Signature>,
    pub active_signature: usize,
    pub active_parameter: usize,
}

impl Compilation {
    /// The built-in call around byte `caret`, its forms and the parameter the caret is in
    /// (the commas before it at the call's own depth); `None` outside a built-in's call.
    pub fn signature_help(&self, caret: usize) -> Option<SignatureHelp> {
        let source = self.source();
        let before = source.get(..caret)?;
        if in_comment(source, caret) {
            return None;
        }
        // Back to the `(` that is still open at the caret, counting commas at its depth.
        let (mut depth, mut commas, mut open) = (0usize, 0usize, None);
        for (at, c) in before.char_indices().rev() {
            match c {
                ')' | ']' => depth += 1,
                '[' if depth == 0 => return None, // inside an index, not a call's arguments
                '(' | '[' if depth > 0 => depth -= 1,
                '(' => {
                    open = Some(at);
                    break;
                }
                ',' if depth == 0 => commas += 1,
                '{' | '}' => return None,
                _ => {}
            }
        }
        let callee = before[..open?].trim_end();
        // `sum<over ctx.lane>(`: the name is before the `<`.
        let (callee, collective) = match callee.strip_suffix('>') {
            Some(inner) => (inner.rsplit_once('<')?.0.trim_end(), true),
            None => (callee, false),
        };
        let name_start = callee.trim_end_matches(is_word).len();
        let name = &callee[name_start..];
        if let Some(function) = self.function_named(name).filter(|_| !collective) {
            let label = self.function_text(function);
            let label = label.trim_start_matches("fn ");
            let label = label.rsplit_once(" -> ").map_or(label, |(call, _)| call);
            return Some(SignatureHelp {
                signatures: vec![Signature {
                    parameters: parameters(label),
                    label: label.to_owned(),
                    documentation: "a function of this file, inlined where it is called".to_owned(),
                }],
                active_signature: 0,
                active_parameter: commas,
            });
        }
        let describe = builtins::describe(name)?;
        let (head, what) = split_head(describe)?;
        let signatures: Vec<Signature> = forms(head)
            .into_iter()
            .map(|label| Signature {
                parameters: parameters(label),
                label: label.to_owned(),
                documentation: what.to_owned(),
            })
            .collect();
        let fits = |s: &Signature| {
            s.label.contains('<') == collective && commas < s.parameters.len().max(1)
        };
        let active_signature = signatures.iter().position(fits).unwrap_or(0);
        Some(SignatureHelp {
            signatures,
            active_signature,
            active_parameter: commas,
        })
    }
}

/// A description split at the end of its forms: `fma(a, b, c)` and `a * b + c, rounded once`.
fn split_head(describe: &str) -> Option<(&str, &str)> {
    let end = describe.find("): ")? + 1;
    Some((&describe[..end], &describe[end + 2..]))
}

/// The forms in a description's head, split at its top-level `, ` (`min(a, b), or
/// min<over ctx.lane>(x)`: two).
fn forms(head: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (at, c) in head.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(head[start..at].trim().trim_start_matches("or "));
                start = at + 1;
            }
            _ => {}
        }
    }
    out.push(head[start..].trim().trim_start_matches("or "));
    out
}

/// The byte ranges of a form's parameters: those in its last parentheses.
fn parameters(label: &str) -> Vec<(usize, usize)> {
    let Some(open) = label.rfind('(') else {
        return Vec::new();
    };
    let inner = &label[open + 1..label.len().saturating_sub(1)];
    if inner.trim().is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, open + 1);
    for (at, c) in inner.char_indices() {
        let at = open + 1 + at;
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push((start, at));
                start = at + 2;
            }
            _ => {}
        }
    }
    out.push((start, label.len() - 1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help_at(source: &str, marker: &str) -> Option<SignatureHelp> {
        let caret = source.find(marker)? + marker.len();
        crate::compile(source).signature_help(caret)
    }

    #[test]
    fn a_call_shows_its_forms_and_the_parameter_the_caret_is_in() {
        let source = "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.thread] = clamp(X[ctx.thread + 1], 0.0, 1.0)\n}\n";
        let Some(help) = help_at(source, "clamp(X[ctx.thread + 1], 0.") else {
            panic!("no help in clamp's call")
        };
        let form = &help.signatures[0];
        assert_eq!(form.label, "clamp(x, lo, hi)");
        assert_eq!(help.active_parameter, 1);
        let (from, to) = form.parameters[1];
        assert_eq!(&form.label[from..to], "lo");
        // Inside the index inside the call: no call there but the tensor's index.
        assert_eq!(help_at(source, "clamp(X[ctx.thr"), None);
        // Outside any call.
        assert_eq!(help_at(source, "X[ctx.thread] ="), None);
    }

    #[test]
    fn a_collective_picks_its_form_and_range_has_three() {
        let source = "@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  let m = max<over ctx.lane>(X[ctx.thread])\n  for i in range(0, 4) {\n  }\n}\n";
        let Some(help) = help_at(source, "max<over ctx.lane>(") else {
            panic!("no help in max's call")
        };
        let labels: Vec<&str> = help.signatures.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["max(a, b)", "max<over ctx.lane>(x)"]);
        assert_eq!(help.active_signature, 1);
        let Some(help) = help_at(source, "range(0, ") else {
            panic!("no help in range's call")
        };
        assert_eq!(help.signatures.len(), 3);
        assert_eq!(help.active_signature, 1); // range(start, end)
        assert_eq!(help.active_parameter, 1);
        // A bit cast's type comes before its parentheses, as a collective's `<over …>` does.
        let source = "@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<u32>[N]) {\n  Y[0] = bitcast<u32>(X[0])\n}\n";
        let Some(help) = help_at(source, "bitcast<u32>(") else {
            panic!("no help in bitcast's call")
        };
        assert_eq!(help.signatures[0].label, "bitcast<u32>(x)");
        assert_eq!(help.active_parameter, 0);
    }
}
