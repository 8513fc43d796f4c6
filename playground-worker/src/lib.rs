//! The playground's worker module (`dist/lazy/worker-HASH.js`, named by the built `index.html`
//! as `window.tesseraWorker`), loaded in a Web Worker when the playground first needs it: a
//! run, a trace, memory counts, a listing tab (PTX, WGSL, IR) or a GPU run's WGSL.
//!
//! In: the worker's messages (`playground::run::messages::Job` as JSON). Out: their replies. It
//! carries the simulator, the PTX writer and naga's WGSL writer and validator, so the page's
//! module (`playground-wasm`) does not: a reader opening `/play` downloads only what the page
//! draws and checks (ARCHITECTURE.md, "the worker has a module of its own"). No leptos here.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The worker's entry: its script calls this once the module is up (`playground::run::worker`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
pub fn worker_main() {
    playground::run::worker::serve();
}
