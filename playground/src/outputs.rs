//! The output views: PTX, WGSL and IR text with each line linked to the source it came from
//! (the backends' line maps), Copy, and Download for the PTX.
//!
//! Hovering a source line marks the output lines it produced; hovering an output line marks
//! its source span in the editor.

use crate::Analysis;
use compiler_core::launch::WarpMode;
use compiler_core::ptx::Arch;
use compiler_core::span::Span;
use compiler_core::Diagnostic;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// One target's text, and which source span each of its (1-based) lines came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Listing {
    pub text: String,
    pub line_map: Vec<(usize, Span)>,
    /// The file name Download saves under.
    pub file_name: String,
}

/// Why there is no listing: the first diagnostic that stops it.
fn blocked(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .find(|d| d.is_error())
        .map_or_else(String::new, |d| {
            format!("Fix the source first: {} {}", d.code.as_str(), d.message)
        })
}

pub fn ptx_listing(
    analysis: &Analysis,
    kernel: Option<&str>,
    arch: Arch,
) -> Result<Listing, String> {
    let ptx = analysis
        .compilation
        .ptx(&analysis.source, kernel, arch)
        .map_err(|d| blocked(&d))?;
    let name = analysis
        .compilation
        .ir()
        .ok()
        .and_then(|m| compiler_core::pick_kernel(&m, kernel).ok())
        .map_or_else(|| "kernel".to_owned(), |k| k.name);
    Ok(Listing {
        text: ptx.text,
        line_map: ptx.line_map,
        file_name: format!("{name}.ptx"),
    })
}

pub fn wgsl_listing(
    analysis: &Analysis,
    kernel: Option<&str>,
    lanes: u32,
    mode: WarpMode,
) -> Result<Listing, String> {
    let (kernel, wgsl) = analysis
        .compilation
        .wgsl(kernel, lanes, mode)
        .map_err(|d| blocked(&d))?;
    let shift = wgsl.browser_prefix_lines();
    Ok(Listing {
        text: wgsl.browser_text(),
        line_map: wgsl.line_map.iter().map(|&(l, s)| (l + shift, s)).collect(),
        file_name: format!("{}.wgsl", kernel.name),
    })
}

pub fn ir_listing(analysis: &Analysis) -> Result<Listing, String> {
    let module = analysis.compilation.ir().map_err(|d| blocked(&d))?;
    Ok(Listing {
        text: compiler_core::ir::print(&module),
        line_map: Vec::new(),
        file_name: "kernel.ir".into(),
    })
}

/// Saves `text` as a file through a temporary object URL.
fn download(file_name: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(anchor) = document().create_element("a") {
        let anchor = anchor.unchecked_into::<web_sys::HtmlAnchorElement>();
        anchor.set_href(&url);
        anchor.set_download(file_name);
        anchor.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

pub fn copy_to_clipboard(text: &str) {
    let clipboard = window().navigator().clipboard();
    let _ = clipboard.write_text(text);
}

/// A listing with linked lines. `source_lines` are the source lines to link (0-based, from
/// the pointer); `linked` receives the span of the output line under the pointer.
#[component]
pub fn ListingView(
    #[prop(into)] listing: Signal<Rc<Result<Listing, String>>, LocalStorage>,
    #[prop(into)] source_line_spans: Signal<Option<Span>>,
    linked: RwSignal<Option<Span>>,
    label: &'static str,
    #[prop(default = false)] downloadable: bool,
) -> impl IntoView {
    let lines = move || {
        let listing = listing.get();
        let Ok(listing) = listing.as_ref() else {
            return Vec::new();
        };
        let hovered = source_line_spans.get();
        listing
            .text
            .lines()
            .enumerate()
            .map(|(i, text)| {
                let number = i + 1;
                let span = listing
                    .line_map
                    .iter()
                    .find(|(l, _)| *l == number)
                    .map(|(_, s)| *s);
                let lit = match (span, hovered) {
                    (Some(s), Some(h)) => {
                        s.start < h.end.max(h.start + 1) && h.start < s.end.max(s.start + 1)
                    }
                    _ => false,
                };
                (text.to_owned(), span, lit)
            })
            .collect::<Vec<_>>()
    };
    let text = move || {
        listing
            .get()
            .as_ref()
            .as_ref()
            .map(|l| l.text.clone())
            .unwrap_or_default()
    };
    let file_name = move || {
        listing
            .get()
            .as_ref()
            .as_ref()
            .map(|l| l.file_name.clone())
            .unwrap_or_default()
    };
    view! {
        <div class="listing">
            <div class="listing-actions">
                <button type="button" on:click=move |_| copy_to_clipboard(&text())>"Copy"</button>
                {downloadable.then(|| view! {
                    <button
                        type="button"
                        data-testid="download"
                        on:click=move |_| download(&file_name(), &text())
                    >
                        {move || format!("Download {}", file_name())}
                    </button>
                })}
            </div>
            {move || match listing.get().as_ref() {
                Err(why) => view! { <p class="listing-blocked" role="status">{why.clone()}</p> }.into_any(),
                Ok(_) => view! {
                    <pre class="listing-text" tabindex="0" aria-label=label data-testid="listing">
                        {lines().into_iter().map(|(text, span, lit)| {
                            view! {
                                <span
                                    class="listing-line"
                                    class:linked=lit
                                    class:mapped=span.is_some()
                                    on:mouseenter=move |_| linked.set(span)
                                    on:mouseleave=move |_| linked.set(None)
                                >{text}"\n"</span>
                            }
                        }).collect_view()}
                    </pre>
                }.into_any(),
            }}
        </div>
    }
}
