//! The playground, built as its own WebAssembly module (`dist/lazy/playground-HASH.js`, by
//! `scripts/build-playground-module.sh`) and loaded by the site only when a reader opens
//! `/play` or presses Run on a docs kernel. The site's first load is then the pages, the
//! diagram and the framework; the compiler's front end, the PTX writer, the editor and the
//! WebGPU runner come here; the simulator and the WGSL writer come in the worker's module
//! (`playground-worker`), when first needed.
//!
//! In: an element of the site's page to render into. Out: a [`Mounted`] view, which the site
//! unmounts when it leaves the page. Or, when `/play` is opened directly, the whole page
//! ([`mount_play_page`]): then the site's module never loads. The module has its own leptos
//! runtime; it shares nothing with the site's but the DOM under that element.

use compiler_core::launch::Launch;
use frame::Frame;
use leptos::prelude::*;
use playground::run::KernelRun;
use playground::Playground;
use wasm_bindgen::prelude::*;
use web_sys::HtmlElement;

/// A view this module rendered into the site's page; dropping it unmounts the view.
#[wasm_bindgen]
pub struct Mounted {
    _view: Box<dyn std::any::Any>,
}

#[wasm_bindgen]
impl Mounted {
    /// Removes the view and disposes of its reactive state.
    pub fn unmount(self) {
        drop(self);
    }
}

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The whole playground, in `parent`.
#[wasm_bindgen]
pub fn mount_playground(parent: HtmlElement) -> Mounted {
    Mounted {
        _view: Box::new(leptos::mount::mount_to(parent, Playground)),
    }
}

/// `/play` opened directly (a share link, a bookmark, a reload): the playground in the site's
/// frame, in the page's body, so the site's own module is not loaded at all (`site/index.html`'s
/// boot script decides). It stays until the page goes; the frame's links load the other pages.
#[wasm_bindgen]
pub fn mount_play_page() {
    let path = window()
        .location()
        .pathname()
        .unwrap_or_else(|_| "/play".to_owned());
    leptos::mount::mount_to_body(move || {
        view! {
            <Frame path=path>
                <h1 class="visually-hidden">"Tessera playground"</h1>
                <div class="playground-host"><Playground/></div>
            </Frame>
        }
    });
}

/// One docs kernel run in place, in `parent`: `launch` is the JSON of the `Launch` the docs
/// build resolved from the page's launch words; `counts`, "FLOPS,BYTES", the run's work where
/// the docs build counted it.
#[wasm_bindgen]
pub fn mount_kernel_run(
    parent: HtmlElement,
    source: String,
    launch: String,
    counts: Option<String>,
) -> Mounted {
    let launch = serde_json::from_slice::<Launch>(launch.as_bytes());
    let counts = counts.and_then(|text| {
        let (flops, bytes) = text.split_once(',')?;
        Some((flops.parse().ok()?, bytes.parse().ok()?))
    });
    Mounted {
        _view: Box::new(leptos::mount::mount_to(parent, move || match launch {
            Ok(launch) => {
                view! { <KernelRun source=source launch=launch counts=counts/> }.into_any()
            }
            Err(error) => view! {
                <p class="error">{format!("This kernel's launch cannot be read: {error}")}</p>
            }
            .into_any(),
        })),
    }
}
