//! The editor: a native `<textarea>` (so typing, selection, undo, IME and screen readers are
//! the browser's own) over a `<pre>` that draws the same text highlighted by the compiler's
//! lexer, with diagnostics underlined and linked output lines marked.
//!
//! Both layers use one monospace font, size and line height (style.css), so a pointer position
//! maps to a line and column by arithmetic; the `<pre>` sizes the box and the textarea fills it.

use compiler_core::span::Span;
use compiler_core::syntax::highlight::highlight;
use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlDocument, HtmlTextAreaElement};

/// A stretch of the source to mark, and the CSS class that marks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub span: Span,
    pub class: &'static str,
}

/// `text` as HTML text: `<`, `>` and `&` escaped, everything else as it is.
pub(crate) fn escape(text: &str, out: &mut String) {
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

/// The source as HTML: each token in a `<span class="tok-…">`, each mark's stretch in a
/// `<span class="…">` around it (split where tokens and marks cross, so the HTML nests).
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
            .filter(|t| t.span.start <= start && end <= t.span.end)
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
            html.contains("<span class=\"tok-name diag-error\">a</span>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"tok-operator diag-error\">=</span>"),
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

    #[test]
    fn offsets_count_characters_within_lines() {
        let source = "ab\nçd x\n";
        assert_eq!(offset_at(source, 0, 1), Some(1));
        assert_eq!(offset_at(source, 1, 1), Some(5));
        assert_eq!(offset_at(source, 1, 99), Some(8));
        assert_eq!(offset_at(source, 5, 0), None);
    }
}
