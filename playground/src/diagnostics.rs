//! The source's problems, listed under the editor (the editor marks them itself): the source's
//! own diagnostics (syntax, checking, lowering), and the last run's fault while the source is
//! the one that ran, at its line (`problem-run-fault`). A launch problem shows beside its field.
//! A diagnostic whose help is an edit (`Diagnostic::fix`) has a button that makes it, in the
//! source the list was given (one step of the editor's undo).

use compiler_core::span::LineIndex;
use compiler_core::{Compilation, Diagnostic, Severity};
use leptos::prelude::*;
use std::rc::Rc;

#[component]
pub fn DiagnosticList(
    #[prop(into)] compilation: Signal<Rc<Compilation>, LocalStorage>,
    /// The last run's fault, for this source.
    #[prop(optional, into)]
    fault: Option<Signal<Option<Diagnostic>, LocalStorage>>,
    /// The source the quick fixes edit; without it, none is offered.
    #[prop(optional)]
    source: Option<RwSignal<String>>,
) -> impl IntoView {
    let edited = source;
    move || {
        let compilation = compilation.get();
        let fault = fault.and_then(|f| f.get());
        let list: Vec<(Diagnostic, bool)> = compilation
            .diagnostics
            .iter()
            .map(|d| (d.clone(), false))
            .chain(fault.map(|f| (f, true)))
            .collect();
        let source = compilation.source();
        let index = LineIndex::new(source);
        if list.is_empty() {
            return view! { <p class="diagnostics-ok" data-testid="diagnostics-ok">"No problems."</p> }.into_any();
        }
        view! {
            <ul class="diagnostics" data-testid="diagnostics" aria-label="Problems">
                {list.into_iter().map(|(d, ran)| {
                    let at = index.line_column(source, d.span.start);
                    let code = d.code.as_str();
                    view! {
                        <li class=if d.severity == Severity::Error { "diagnostic error" } else { "diagnostic warning" } data-testid=if ran { "problem-run-fault" } else { "diagnostic" }>
                            <a class="diag-code" href=format!("/docs/errors#{code}")>{code}</a>
                            " "
                            <span class="where" data-testid="where">{format!("{}:{}", at.line, at.column)}</span>
                            " "
                            {ran.then_some("the last run stopped here: ")}
                            <span class="message">{d.message.clone()}</span>
                            {d.label.clone().map(|l| view! { <span class="label">{format!(" ({l})")}</span> })}
                            {d.labels.iter().map(|l| {
                                let at = index.line_column(source, l.span.start);
                                view! { <div class="secondary">{format!("{}:{}: {}", at.line, at.column, l.message)}</div> }
                            }).collect_view()}
                            {d.help.clone().map(|h| view! { <div class="help">"help: "{h}</div> })}
                            {edited.zip(d.fix.clone()).map(|(text, fix)| {
                                let label = format!("Write {} for {}", fix.replacement, compilation.text(fix.span));
                                let compiled = compilation.clone();
                                let apply = move |_| text.update(|s| {
                                    // Only in the text the fix was found in (not one typed since).
                                    if *s == compiled.source() {
                                        s.replace_range(fix.span.start..fix.span.end, &fix.replacement);
                                    }
                                });
                                view! {
                                    <button type="button" class="fix" data-testid="quick-fix" on:click=apply>{label}</button>
                                }
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any()
    }
}
