//! The editor: a native `<textarea>` (so typing, selection, undo, IME and screen readers are
//! the browser's own) over a `<pre>` that draws the same text highlighted by the compiler's
//! lexer, with diagnostics underlined and linked output lines marked.
//!
//! Both layers use one monospace font, size and line height (style.css), so a pointer position
//! maps to a line and column by arithmetic; the `<pre>` sizes the box and the textarea fills it.

use compiler_core::syntax::highlight::{highlight_html, Mark};
use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlDocument, HtmlTextAreaElement};

/// The byte offset of (0-based) `line` and `column` (in characters), clamped to the line.
pub fn offset_at(source: &str, line: usize, column: usize) -> Option<usize> {
    let mut start = 0;
    for (i, text) in source.split('\n').enumerate() {
        if i == line {
            let within = text
                .char_indices()
                .nth(column)
                .map_or(text.len(), |(at, _)| at);
            return Some(start + within);
        }
        start += text.len() + 1;
    }
    None
}

/// Inserts `text` at the selection the way typing would, so the browser's undo knows it.
fn insert_text(text: &str) {
    let document = document().unchecked_into::<HtmlDocument>();
    let _ = document.exec_command_with_show_ui_and_value("insertText", false, text);
}

thread_local! {
    static CHAR_WIDTH: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// The width of one character of the editor's monospace font, measured once.
fn char_width(area: &HtmlTextAreaElement) -> f64 {
    let known = CHAR_WIDTH.with(std::cell::Cell::get);
    if known > 0.0 {
        return known;
    }
    let (Ok(probe), Some(parent)) = (document().create_element("span"), area.parent_element())
    else {
        return 0.0;
    };
    probe.set_class_name("editor-probe");
    probe.set_text_content(Some(&"0".repeat(100)));
    let _ = parent.append_child(&probe);
    let width = probe.get_bounding_client_rect().width() / 100.0;
    probe.remove();
    CHAR_WIDTH.with(|c| c.set(width));
    width
}

/// Where the pointer is, as a byte offset into the source, by the editor's fixed metrics.
fn pointer_offset(area: &HtmlTextAreaElement, source: &str, x: f64, y: f64) -> Option<usize> {
    let style = window().get_computed_style(area).ok()??;
    let px = |name: &str| {
        style
            .get_property_value(name)
            .ok()
            .and_then(|v| v.trim_end_matches("px").parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let line_height = px("line-height").max(1.0);
    let char_width = char_width(area).max(1.0);
    let rect = area.get_bounding_client_rect();
    let line = ((y - rect.top() - px("padding-top")) / line_height).floor();
    let column = ((x - rect.left() - px("padding-left")) / char_width).floor();
    if line < 0.0 || column < 0.0 {
        return None;
    }
    let offset = offset_at(source, line as usize, column as usize)?;
    // Past the end of a line is not on a name.
    let line_text = source.split('\n').nth(line as usize)?;
    ((column as usize) < line_text.chars().count()).then_some(offset)
}

#[component]
pub fn Editor(
    /// The text; the editor writes every keystroke into it.
    source: RwSignal<String>,
    /// Diagnostics and linked lines to draw over the text.
    #[prop(into)]
    marks: Signal<Vec<Mark>>,
    /// The byte offset under the pointer (or the caret), for hover information and linking.
    pointer: RwSignal<Option<usize>>,
    /// Ctrl/Cmd+Enter.
    on_run: Callback<()>,
) -> impl IntoView {
    let area = NodeRef::<leptos::html::Textarea>::new();
    let html = move || source.with(|s| marks.with(|m| highlight_html(s, m)));
    let lines = move || source.with(|s| s.split('\n').count());
    let on_keydown = move |ev: ev::KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            on_run.run(());
        } else if ev.key() == "Tab" && !ev.shift_key() && !ev.ctrl_key() && !ev.alt_key() {
            // Tab indents; Escape then Tab leaves the editor (the textarea keeps focus order).
            ev.prevent_default();
            insert_text("  ");
        }
    };
    let on_mousemove = move |ev: ev::MouseEvent| {
        let Some(el) = area.get() else { return };
        // web-sys types the coordinates f64 on wasm32 and i32 natively (the unit tests).
        #[allow(clippy::useless_conversion)]
        let (x, y) = (f64::from(ev.client_x()), f64::from(ev.client_y()));
        let at = source.with(|s| pointer_offset(&el, s, x, y));
        pointer.set(at);
    };
    let on_caret = move || {
        if let Some(el) = area.get() {
            pointer.set(el.selection_start().ok().flatten().map(|c| {
                source.with(|s| {
                    let chars = c as usize;
                    s.char_indices().nth(chars).map_or(s.len(), |(at, _)| at)
                })
            }));
        }
    };
    view! {
        <div class="editor" data-testid="editor">
            <div class="editor-gutter" aria-hidden="true">
                {move || (1..=lines()).map(|n| view! { <div>{n}</div> }).collect_view()}
            </div>
            <div class="editor-layers">
                <pre class="editor-highlight" aria-hidden="true" inner_html=html></pre>
                <textarea
                    node_ref=area
                    class="editor-input"
                    aria-label="Kernel source"
                    spellcheck="false"
                    autocapitalize="off"
                    autocomplete="off"
                    wrap="off"
                    prop:value=move || source.get()
                    on:input=move |ev| source.set(event_target_value(&ev))
                    on:keydown=on_keydown
                    on:mousemove=on_mousemove
                    on:mouseleave=move |_| pointer.set(None)
                    on:keyup=move |_| on_caret()
                    on:click=move |_| on_caret()
                ></textarea>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_characters_within_lines() {
        let source = "ab\nçd x\n";
        assert_eq!(offset_at(source, 0, 1), Some(1));
        assert_eq!(offset_at(source, 1, 1), Some(5));
        assert_eq!(offset_at(source, 1, 99), Some(8));
        assert_eq!(offset_at(source, 5, 0), None);
    }
}
