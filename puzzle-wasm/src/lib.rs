//! The puzzles' module (`dist/lazy/puzzle-HASH.js`, built by
//! `scripts/build-playground-module.sh`): a puzzle's docs page loads it to put the workbench
//! under the story (`playground::puzzle::Workbench`: the editor, Check graded by the worker's
//! module, the verdict, the solution). Every puzzle's `Exercise` is built in, so the site's
//! pages carry none of the kernels.
//!
//! In: an element of the site's page and the puzzle's slug. Out: a [`Mounted`] view, which the
//! site unmounts when it leaves the page. A module of its own, not a part of the playground's,
//! so `/play` does not carry the workbench and a puzzle's page does not carry the playground.

use compiler_core::grade::Exercise;
use leptos::prelude::*;
use playground::puzzle::Workbench;
use wasm_bindgen::prelude::*;
use web_sys::HtmlElement;

const EXERCISES: &str = include_str!(concat!(env!("OUT_DIR"), "/exercises.json"));

/// The exercise of the puzzle `slug`.
fn exercise(slug: &str) -> Result<Exercise, String> {
    let all: Vec<(String, Exercise)> =
        serde_json::from_str(EXERCISES).map_err(|e| format!("the puzzles cannot be read: {e}"))?;
    all.into_iter()
        .find_map(|(s, exercise)| (s == slug).then_some(exercise))
        .ok_or_else(|| format!("there is no puzzle “{slug}” in this build"))
}

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

/// The workbench of the puzzle `slug`, in `parent`.
#[wasm_bindgen]
pub fn mount_puzzle(parent: HtmlElement, slug: String) -> Mounted {
    let exercise = exercise(&slug);
    Mounted {
        _view: Box::new(leptos::mount::mount_to(parent, move || match exercise {
            Ok(exercise) => view! { <Workbench slug=slug exercise=exercise/> }.into_any(),
            Err(why) => view! { <p class="error">{why}</p> }.into_any(),
        })),
    }
}
