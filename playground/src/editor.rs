//! The editor: CodeMirror 6 (`playground/editor/index.js`, bundled into `editor/dist/editor.js`
//! and loaded with this module), told about the language by the compiler: the tokens it colours
//! (the lexer's, as the docs use), the diagnostics it marks, what a name is on hover, and what
//! can be completed. Editing itself (keys, selections, undo, search, focus) is CodeMirror's.
//!
//! In: the source signal, the compilation, marks (a run's fault, a linked output line).
//! Out: every edit into the source signal, and the byte offset under the pointer or the caret.
//! Offsets cross here between the compiler's UTF-8 bytes and the editor's UTF-16 code units
//! ([`Utf16`]).

use compiler_core::span::Utf16;
use compiler_core::syntax::highlight::{highlight, Class, Mark};
use compiler_core::Compilation;
use leptos::prelude::*;
use std::rc::Rc;

/// The compiler's tokens of `text` as the editor takes them: `[from, to, class, …]` in UTF-16
/// offsets, `class` an index into [`Class::ALL`].
pub fn token_triples(text: &str) -> Vec<u32> {
    let offsets = Utf16::new(text);
    let mut out = Vec::new();
    for h in highlight(text) {
        let class = Class::ALL.iter().position(|c| *c == h.class).unwrap_or(0);
        out.extend([
            offsets.unit(h.span.start),
            offsets.unit(h.span.end),
            class as u32,
        ]);
    }
    out
}

#[cfg(target_arch = "wasm32")]
mod code_mirror {
    use super::*;
    use compiler_core::Severity;
    use js_sys::{Array, Object, Reflect};
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(module = "/editor/dist/editor.js")]
    extern "C" {
        pub type EditorHandle;

        #[wasm_bindgen(js_name = createEditor)]
        pub fn create_editor(parent: &web_sys::HtmlElement, options: &JsValue) -> EditorHandle;

        #[wasm_bindgen(method, js_name = setDoc)]
        pub fn set_doc(this: &EditorHandle, text: &str);

        #[wasm_bindgen(method, js_name = setDiagnostics)]
        pub fn set_diagnostics(this: &EditorHandle, list: &JsValue);

        #[wasm_bindgen(method, js_name = setMarks)]
        pub fn set_marks(this: &EditorHandle, list: &JsValue);

        #[wasm_bindgen(method)]
        pub fn reveal(this: &EditorHandle, at: u32);

        #[wasm_bindgen(method)]
        pub fn destroy(this: &EditorHandle);
    }

    fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
        let _ = Reflect::set(object, &JsValue::from_str(key), &value.into());
    }

    fn record(fields: &[(&str, JsValue)]) -> JsValue {
        let object = Object::new();
        for (key, value) in fields {
            set(&object, key, value.clone());
        }
        object.into()
    }

    /// The compilation's diagnostics, in the editor's offsets.
    pub fn diagnostic_list(compilation: &Compilation) -> JsValue {
        let offsets = Utf16::new(compilation.source());
        compilation
            .diagnostics
            .iter()
            .map(|d| {
                record(&[
                    ("from", offsets.unit(d.span.start).into()),
                    ("to", offsets.unit(d.span.end).into()),
                    (
                        "severity",
                        if d.severity == Severity::Error {
                            "error"
                        } else {
                            "warning"
                        }
                        .into(),
                    ),
                    ("code", d.code.as_str().into()),
                    ("message", d.message.as_str().into()),
                    (
                        "help",
                        d.help.as_deref().map_or(JsValue::NULL, JsValue::from_str),
                    ),
                    (
                        "fix",
                        d.fix.as_deref().map_or(JsValue::NULL, |f| {
                            record(&[
                                ("from", offsets.unit(f.span.start).into()),
                                ("to", offsets.unit(f.span.end).into()),
                                ("insert", f.replacement.as_str().into()),
                            ])
                        }),
                    ),
                ])
            })
            .collect::<Array>()
            .into()
    }

    pub fn mark_list(text: &str, marks: &[Mark]) -> JsValue {
        let offsets = Utf16::new(text);
        marks
            .iter()
            .map(|m| {
                record(&[
                    ("from", offsets.unit(m.span.start).into()),
                    ("to", offsets.unit(m.span.end).into()),
                    ("class", m.class.into()),
                ])
            })
            .collect::<Array>()
            .into()
    }

    /// What CodeMirror's completion takes, from the compiler's answer at UTF-16 `caret`.
    pub fn completions(text: &str, caret: u32, explicit: bool) -> JsValue {
        let offsets = Utf16::new(text);
        let compilation = compiler_core::compile(text);
        let Some(found) = compilation.completions(offsets.byte(caret), explicit) else {
            return JsValue::NULL;
        };
        let options: Array = found
            .items
            .iter()
            .map(|c| {
                record(&[
                    ("label", c.label.as_str().into()),
                    ("type", c.kind.into()),
                    ("detail", c.detail.as_str().into()),
                ])
            })
            .collect();
        record(&[
            ("from", offsets.unit(found.from).into()),
            ("options", options.into()),
        ])
    }

    /// The closures CodeMirror calls back, kept alive as long as the editor.
    pub struct Callbacks {
        _kept: Vec<Box<dyn std::any::Any>>,
    }

    pub fn options(
        doc: &str,
        source: RwSignal<String>,
        compilation: Signal<Rc<Compilation>, LocalStorage>,
        pointer: RwSignal<Option<usize>>,
        on_run: Callback<()>,
    ) -> (JsValue, Callbacks) {
        let object = Object::new();
        set(&object, "doc", doc);
        set(&object, "label", "Kernel source");
        set(&object, "describedBy", "editor-help");
        let classes: Array = Class::ALL
            .iter()
            .map(|c| JsValue::from_str(c.css()))
            .collect();
        set(&object, "classes", classes);
        let on_change = Closure::<dyn Fn(String)>::new(move |text: String| source.set(text));
        let run = Closure::<dyn Fn()>::new(move || on_run.run(()));
        let on_pointer = Closure::<dyn Fn(JsValue)>::new(move |at: JsValue| {
            let byte = at
                .as_f64()
                .map(|unit| source.with_untracked(|s| Utf16::new(s).byte(unit as u32)));
            pointer.set(byte);
        });
        let tokens = Closure::<dyn Fn(String) -> js_sys::Uint32Array>::new(|text: String| {
            js_sys::Uint32Array::from(token_triples(&text).as_slice())
        });
        let hover = Closure::<dyn Fn(u32) -> JsValue>::new(move |unit: u32| {
            compilation.with_untracked(|c| {
                let byte = Utf16::new(c.source()).byte(unit);
                c.hover(byte)
                    .map_or(JsValue::NULL, |t| JsValue::from_str(&t))
            })
        });
        let complete = Closure::<dyn Fn(String, u32, bool) -> JsValue>::new(
            |text: String, caret: u32, explicit: bool| completions(&text, caret, explicit),
        );
        set(&object, "onChange", on_change.as_ref().clone());
        set(&object, "onRun", run.as_ref().clone());
        set(&object, "onPointer", on_pointer.as_ref().clone());
        set(&object, "tokens", tokens.as_ref().clone());
        set(&object, "hover", hover.as_ref().clone());
        set(&object, "complete", complete.as_ref().clone());
        let kept: Vec<Box<dyn std::any::Any>> = vec![
            Box::new(on_change),
            Box::new(run),
            Box::new(on_pointer),
            Box::new(tokens),
            Box::new(hover),
            Box::new(complete),
        ];
        (object.into(), Callbacks { _kept: kept })
    }
}

#[component]
pub fn Editor(
    /// The text; the editor writes every edit into it, and shows it when it changes elsewhere
    /// (an example opened, Back).
    source: RwSignal<String>,
    /// The compilation of the source (diagnostics, hover).
    #[prop(into)]
    compilation: Signal<Rc<Compilation>, LocalStorage>,
    /// A run's fault and the span a hovered output line came from.
    #[prop(into)]
    marks: Signal<Vec<Mark>>,
    /// The byte offset under the pointer (or the caret), for hover information and linking.
    pointer: RwSignal<Option<usize>>,
    /// Ctrl/Cmd+Enter.
    on_run: Callback<()>,
    /// A byte offset to scroll into view whenever it changes (the stepper's statement).
    #[prop(into)]
    reveal: Signal<Option<usize>>,
    /// A text the editor starts from, replaced by `source` as an edit, so that undo brings it
    /// back (the reader's own kernel, which an opened link replaced).
    #[prop(default = None)]
    undo_to: Option<String>,
) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    #[cfg(target_arch = "wasm32")]
    {
        use code_mirror::*;
        let editor = StoredValue::new_local(None::<(EditorHandle, Callbacks)>);
        Effect::new(move |_| {
            let Some(parent) = host.get() else { return };
            if editor.with_value(Option::is_some) {
                return;
            }
            let doc = undo_to.clone().unwrap_or_else(|| source.get_untracked());
            let (options, callbacks) = options(&doc, source, compilation, pointer, on_run);
            let handle = create_editor(&parent, &options);
            if undo_to.is_some() {
                handle.set_doc(&source.get_untracked());
            }
            editor.set_value(Some((handle, callbacks)));
        });
        Effect::new(move |_| {
            let text = source.get();
            editor.with_value(|e| e.as_ref().map(|(h, _)| h.set_doc(&text)));
        });
        Effect::new(move |_| {
            let list = compilation.with(|c| diagnostic_list(c));
            editor.with_value(|e| e.as_ref().map(|(h, _)| h.set_diagnostics(&list)));
        });
        Effect::new(move |_| {
            let list = source.with_untracked(|s| marks.with(|m| mark_list(s, m)));
            editor.with_value(|e| e.as_ref().map(|(h, _)| h.set_marks(&list)));
        });
        Effect::new(move |_| {
            let Some(at) = reveal.get() else { return };
            let unit = source.with_untracked(|s| Utf16::new(s).unit(at));
            editor.with_value(|e| e.as_ref().map(|(h, _)| h.reveal(unit)));
        });
        on_cleanup(move || {
            if let Some((handle, _)) = editor.try_update_value(Option::take).flatten() {
                handle.destroy();
            }
        });
    }
    // Natively (the unit tests) there is no CodeMirror; these are read only in the browser.
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (source, compilation, marks, pointer, on_run, reveal, undo_to);
    view! {
        <div class="editor" data-testid="editor" node_ref=host></div>
        <p id="editor-help" class="visually-hidden">
            "Tab indents and Shift+Tab outdents; press Escape, then Tab, to leave the editor. "
            "Ctrl+Enter runs the kernel; Ctrl+Space completes; Ctrl+F searches."
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_come_as_triples_in_utf16_offsets() {
        let triples = token_triples("// ç\nkernel k() {}");
        // The comment is 4 units (`// ç`), then `kernel` from 5 to 11.
        let comment = Class::ALL.iter().position(|c| *c == Class::Comment);
        assert_eq!(&triples[..3], &[0, 4, comment.unwrap_or(0) as u32]);
        assert_eq!(&triples[3..5], &[5, 11]);
    }
}
