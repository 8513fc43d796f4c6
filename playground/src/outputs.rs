//! The output views: PTX, WGSL and IR text with each line linked to the source it came from
//! (the backends' line maps), Copy, and Download for the PTX.
//!
//! Hovering a source line marks the output lines it produced; hovering an output line marks
//! its source span in the editor. The listings are written by the playground's worker
//! ([`listing`], run as a job: `run::ListingWriter`), so the page's module carries no backend.

use compiler_core::diagnostic::Code;
use compiler_core::ptx::Arch;
use compiler_core::share::Tab;
use compiler_core::span::Span;
use compiler_core::wgsl::{WarpMode, Wgsl};
use compiler_core::{Compilation, Diagnostic};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// Which listing: a target's text, or the IR.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Output {
    Ptx(Arch),
    Wgsl { lanes: u32, mode: WarpMode },
    Ir,
}

impl Output {
    /// The tab that shows it.
    pub fn tab(self) -> Tab {
        match self {
            Output::Ptx(_) => Tab::Ptx,
            Output::Wgsl { .. } => Tab::Wgsl,
            Output::Ir => Tab::Ir,
        }
    }
}

/// One target's text, and which source span each of its (1-based) lines came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    pub text: String,
    pub line_map: Vec<(usize, Span)>,
    /// The file name Download saves under.
    pub file_name: String,
}

/// A listing as a view shows it: the text, or why there is none.
pub type Shown = Rc<Result<Listing, String>>;

/// Why there is no listing: the first diagnostic that stops it. The source is at fault,
/// except where the target lacks what it uses (E0521, E0522): then another target, picked
/// above the listing, builds it.
fn blocked(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .find(|d| d.is_error())
        .map_or_else(String::new, |d| {
            let (code, message) = (d.code.as_str(), &d.message);
            match d.code {
                Code::E0522 => {
                    format!("Needs sm_80 or later: pick it above. {message} ({code})")
                }
                Code::E0521 => format!(
                    "Needs a target with more shared memory: pick another above, or make the tiles smaller. {message} ({code})"
                ),
                _ => format!("Fix the source first: {code} {message}"),
            }
        })
}

/// The listing `of` of `kernel` (the first when `None`), or why there is none.
pub fn listing(
    compilation: &Compilation,
    kernel: Option<&str>,
    of: Output,
) -> Result<Listing, String> {
    match of {
        Output::Ptx(arch) => ptx_listing(compilation, kernel, arch),
        Output::Wgsl { lanes, mode } if compilation.runs_a_program(kernel) => {
            program_wgsl_listing(compilation, kernel, lanes, mode)
        }
        Output::Wgsl { lanes, mode } => {
            let wgsl = compilation
                .wgsl(kernel, lanes, mode)
                .map_err(|d| blocked(&d))?;
            let name = compilation
                .kernel(kernel)
                .map_or("kernel", |k| k.name.as_str());
            Ok(wgsl_listing(&wgsl, format!("{name}.wgsl")))
        }
        Output::Ir => ir_listing(compilation),
    }
}

fn ptx_listing(
    compilation: &Compilation,
    kernel: Option<&str>,
    arch: Arch,
) -> Result<Listing, String> {
    let ptx = compilation.ptx(kernel, arch).map_err(|d| blocked(&d))?;
    let name = compilation
        .signature(kernel)
        .map_or("kernel", |k| k.name.as_str());
    Ok(Listing {
        text: ptx.text,
        line_map: ptx.line_map,
        file_name: format!("{name}.ptx"),
    })
}

/// A program's WGSL: one shader per kernel it launches, in first-launch order, each under a
/// line that names it (WebGPU takes one module per pipeline).
fn program_wgsl_listing(
    compilation: &Compilation,
    name: Option<&str>,
    lanes: u32,
    mode: WarpMode,
) -> Result<Listing, String> {
    let module = compilation.ir().map_err(|d| blocked(&d))?;
    let program = compilation.program(name).map_err(|d| blocked(&d))?;
    let mut listing = Listing {
        text: String::new(),
        line_map: Vec::new(),
        file_name: format!("{}.wgsl", program.name),
    };
    for index in program.kernels() {
        let kernel = &module.kernels[index];
        let wgsl = compilation
            .wgsl(Some(&kernel.name), lanes, mode)
            .map_err(|d| blocked(&d))?;
        let part = wgsl_listing(&wgsl, String::new());
        listing.text.push_str(&format!(
            "// ---- kernel {} (program {}): a shader module of its own ----\n",
            kernel.name, program.name
        ));
        let shift = listing.text.lines().count();
        listing.line_map.extend(
            part.line_map
                .iter()
                .map(|&(line, span)| (line + shift, span)),
        );
        listing.text.push_str(&part.text);
        if !listing.text.ends_with('\n') {
            listing.text.push('\n');
        }
        listing.text.push('\n');
    }
    Ok(listing)
}

/// The WGSL as a browser takes it.
fn wgsl_listing(wgsl: &Wgsl, file_name: String) -> Listing {
    let shift = wgsl.browser_prefix_lines();
    Listing {
        text: wgsl.browser_text(),
        line_map: wgsl.line_map.iter().map(|&(l, s)| (l + shift, s)).collect(),
        file_name,
    }
}

fn ir_listing(compilation: &Compilation) -> Result<Listing, String> {
    let module = compilation.ir().map_err(|d| blocked(&d))?;
    Ok(Listing {
        text: compiler_core::ir::print(module),
        line_map: Vec::new(),
        file_name: "kernel.ir".into(),
    })
}

/// Saves `text` as a file.
fn download(file_name: &str, text: &str) {
    save(
        file_name,
        gloo_file::Blob::new_with_options(text, Some("text/plain")),
    );
}

/// Saves `blob` as a file through a temporary object URL (revoked when it is dropped): a
/// listing, a tensor's `.npy`, the results' `.zip`.
pub fn save(file_name: &str, blob: gloo_file::Blob) {
    let url = gloo_file::ObjectUrl::from(blob);
    if let Ok(anchor) = document().create_element("a") {
        let anchor = anchor.unchecked_into::<web_sys::HtmlAnchorElement>();
        anchor.set_href(&url);
        anchor.set_download(file_name);
        anchor.click();
    }
}

pub fn copy_to_clipboard(text: &str) {
    let clipboard = window().navigator().clipboard();
    let _ = clipboard.write_text(text);
}

/// The listing as HTML: one `<span class="listing-line">` per line, numbered by `data-line`,
/// `mapped` when the line map knows its source. Built as one string because a tiled matmul's
/// PTX has over a thousand lines, and a node per line through the framework costs a frame.
pub fn listing_html(listing: &Listing) -> String {
    let mut out = String::with_capacity(listing.text.len() * 2);
    for (i, text) in listing.text.lines().enumerate() {
        let number = i + 1;
        let mapped = listing.line_map.iter().any(|(l, _)| *l == number);
        out.push_str(if mapped {
            "<span class=\"listing-line mapped\" data-line=\""
        } else {
            "<span class=\"listing-line\" data-line=\""
        });
        out.push_str(&number.to_string());
        out.push_str("\">");
        compiler_core::syntax::highlight::escape(text, &mut out);
        out.push_str("\n</span>");
    }
    out
}

/// Whether two spans share a character (an empty span counts as its first character).
fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end.max(b.start + 1) && b.start < a.end.max(a.start + 1)
}

/// A listing with linked lines: `source_line` is the source line under the pointer, whose
/// output lines are marked; `linked` receives the span of the output line under the pointer.
#[component]
pub fn ListingView(
    #[prop(into)] listing: Signal<Shown, LocalStorage>,
    #[prop(into)] source_line_spans: Signal<Option<Span>>,
    linked: RwSignal<Option<Span>>,
    label: &'static str,
    #[prop(default = false)] downloadable: bool,
) -> impl IntoView {
    let pre = NodeRef::<leptos::html::Pre>::new();
    let html = move || listing.with(|l| l.as_ref().as_ref().map(listing_html).unwrap_or_default());
    // Mark the lines the hovered source line produced, by toggling classes in place: only the
    // lines whose mark changes (a listing has over a thousand lines, the pointer moves often).
    // The listing drawn (its address) and its lines marked: a new listing is drawn unmarked.
    let lit = StoredValue::new_local((std::ptr::null::<Result<Listing, String>>(), Vec::new()));
    Effect::new(move |_| {
        let hovered = source_line_spans.get();
        let Some(pre) = pre.get() else { return };
        let drawn = listing.with(Rc::as_ptr);
        let now: Vec<usize> = listing.with(|l| {
            let (Ok(l), Some(h)) = (l.as_ref(), hovered) else {
                return Vec::new();
            };
            let mut lines: Vec<usize> = l
                .line_map
                .iter()
                .filter(|(_, s)| overlaps(*s, h))
                .map(|(n, _)| *n)
                .collect();
            lines.dedup();
            lines
        });
        let (shown, before) = lit.get_value();
        let before = if shown == drawn { before } else { Vec::new() };
        let lines = pre.children();
        let mark = |number: usize, on: bool| {
            if let Some(line) = lines.item(number.saturating_sub(1) as u32) {
                let _ = line.class_list().toggle_with_force("linked", on);
            }
        };
        before
            .iter()
            .filter(|n| !now.contains(n))
            .for_each(|&n| mark(n, false));
        now.iter()
            .filter(|n| !before.contains(n))
            .for_each(|&n| mark(n, true));
        lit.set_value((drawn, now));
    });
    let span_of = move |line: usize| {
        listing.with(|l| {
            l.as_ref()
                .as_ref()
                .ok()
                .and_then(|l| l.line_map.iter().find(|(n, _)| *n == line).map(|(_, s)| *s))
        })
    };
    let on_over = move |ev: leptos::ev::MouseEvent| {
        let line = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest(".listing-line").ok().flatten())
            .and_then(|e| e.get_attribute("data-line"))
            .and_then(|n| n.parse::<usize>().ok());
        linked.set(line.and_then(span_of));
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
            {move || listing.with(|l| l.as_ref().as_ref().err().cloned()).map(|why| view! {
                <p class="listing-blocked" role="status">{why}</p>
            })}
            <pre
                node_ref=pre
                class="listing-text"
                class:hidden=move || listing.with(|l| l.is_err())
                tabindex="0"
                aria-label=label
                data-testid="listing"
                inner_html=html
                on:mouseover=on_over
                on:mouseleave=move |_| linked.set(None)
            ></pre>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_number_their_lines_and_escape_them() {
        let listing = Listing {
            text: "a < b\n// c & d\n".into(),
            line_map: vec![(2, Span::new(0, 1))],
            file_name: "k.ptx".into(),
        };
        assert_eq!(
            listing_html(&listing),
            "<span class=\"listing-line\" data-line=\"1\">a &lt; b\n</span>\
             <span class=\"listing-line mapped\" data-line=\"2\">// c &amp; d\n</span>"
        );
    }

    #[test]
    fn spans_overlap_when_they_share_a_character() {
        assert!(overlaps(Span::new(0, 5), Span::new(4, 9)));
        assert!(!overlaps(Span::new(0, 5), Span::new(5, 9)));
        assert!(overlaps(Span::empty(3), Span::new(0, 5)));
    }
}
