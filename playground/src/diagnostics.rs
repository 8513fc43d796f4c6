//! The source's problems, listed under the editor (the editor marks them itself). Only the source's
//! own diagnostics (syntax, checking, lowering) are listed here; a launch problem shows beside
//! its field and a run's fault in the Run panel.

use compiler_core::span::LineIndex;
use compiler_core::{Compilation, Severity};
use leptos::prelude::*;
use std::rc::Rc;

#[component]
pub fn DiagnosticList(
    #[prop(into)] compilation: Signal<Rc<Compilation>, LocalStorage>,
) -> impl IntoView {
    move || {
        let compilation = compilation.get();
        let list = compilation.diagnostics.clone();
        let source = compilation.source();
        let index = LineIndex::new(source);
        if list.is_empty() {
            return view! { <p class="diagnostics-ok" data-testid="diagnostics-ok">"No problems."</p> }.into_any();
        }
        view! {
            <ul class="diagnostics" data-testid="diagnostics" aria-label="Problems">
                {list.into_iter().map(|d| {
                    let at = index.line_column(source, d.span.start);
                    let code = d.code.as_str();
                    view! {
                        <li class=if d.severity == Severity::Error { "diagnostic error" } else { "diagnostic warning" } data-testid="diagnostic">
                            <a class="diag-code" href=format!("/docs/errors#{code}")>{code}</a>
                            " "
                            <span class="where" data-testid="where">{format!("{}:{}", at.line, at.column)}</span>
                            " "
                            <span class="message">{d.message.clone()}</span>
                            {d.label.clone().map(|l| view! { <span class="label">{format!(" ({l})")}</span> })}
                            {d.labels.iter().map(|l| {
                                let at = index.line_column(source, l.span.start);
                                view! { <div class="secondary">{format!("{}:{}: {}", at.line, at.column, l.message)}</div> }
                            }).collect_view()}
                            {d.help.clone().map(|h| view! { <div class="help">"help: "{h}</div> })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any()
    }
}
