//! The modules that carry the compiler, loaded on first use, each at the URL the built
//! `index.html` gives: the playground's (crate `playground-wasm`, `window.tesseraPlayground`),
//! by `/play` or by Run on a docs kernel; the puzzles' (crate `puzzle-wasm`,
//! `window.tesseraPuzzles`), by a puzzle's page. Until then the site carries no compiler, which
//! keeps its first load small (BENCHMARKS.md).
//!
//! [`Slot`] is where the module renders under one of the site's elements: it unmounts what it
//! holds when refilled or when the site's view goes away, also when that happens while the
//! module is still loading.

use leptos::prelude::{Get, NodeRef, RwSignal, Set};
use send_wrapper::SendWrapper;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(inline_js = r#"
const loading = new Map();
export function load_module(name) {
  // Set by scripts/build-playground-module.sh (a trunk hook), with the module's content hash.
  const url = window[name];
  if (!url) return Promise.reject(new Error(`this build of the site has no ${name}`));
  if (!loading.has(name)) {
    loading.set(name, import(url)
      .then(async (module) => { await module.default(); return module; })
      .catch((error) => { loading.delete(name); throw error; }));
  }
  return loading.get(name);
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn load_module(name: &str) -> Result<JsValue, JsValue>;
}

/// A module the site loads when a page needs it.
#[derive(Clone, Copy)]
pub enum Module {
    /// The playground: `/play`, and a docs kernel's Run.
    Playground,
    /// A puzzle's workbench.
    Puzzles,
}

impl Module {
    /// The global the built `index.html` sets to the module's URL.
    fn global(self) -> &'static str {
        match self {
            Module::Playground => "tesseraPlayground",
            Module::Puzzles => "tesseraPuzzles",
        }
    }
}

pub(crate) fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "unknown error".to_owned())
}

#[derive(Default)]
struct Held {
    /// The module's `Mounted` object.
    mounted: Option<JsValue>,
    disposed: bool,
}

/// A place in the site's page that the module renders into.
#[derive(Clone)]
pub struct Slot(Rc<RefCell<Held>>);

impl Slot {
    /// A slot owned by the current view: emptied when the view is cleaned up.
    pub fn new() -> Self {
        let slot = Slot(Rc::default());
        let owned = SendWrapper::new(slot.clone());
        leptos::prelude::on_cleanup(move || {
            owned.0.borrow_mut().disposed = true;
            owned.empty();
        });
        slot
    }

    fn empty(&self) {
        if let Some(mounted) = self.0.borrow_mut().mounted.take() {
            unmount(&mounted);
        }
    }

    /// Loads `module` if needed, and renders its `function` with `args` (the parent element
    /// first) in place of what the slot held.
    pub async fn fill(
        &self,
        module: Module,
        function: &str,
        args: &[JsValue],
    ) -> Result<(), String> {
        let module = load_module(module.global())
            .await
            .map_err(|e| describe(&e))?;
        let mount = js_sys::Reflect::get(&module, &JsValue::from_str(function))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or_else(|| format!("the module has no `{function}`"))?;
        self.empty();
        let mounted = mount
            .apply(&JsValue::NULL, &args.iter().collect())
            .map_err(|e| describe(&e))?;
        if self.0.borrow().disposed {
            unmount(&mounted);
        } else {
            self.0.borrow_mut().mounted = Some(mounted);
        }
        Ok(())
    }
}

fn unmount(mounted: &JsValue) {
    if let Some(unmount) = js_sys::Reflect::get(mounted, &JsValue::from_str("unmount"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    {
        let _ = unmount.call0(mounted);
    }
}

/// Fills a new slot with `module`'s `function` as soon as `host` is in the page (its arguments:
/// the host, then `args`), and gives the line to show meanwhile: "Loading the `what`…", then
/// `None` once it is there, or why it could not be loaded.
pub fn fill_on_mount(
    host: NodeRef<leptos::html::Div>,
    module: Module,
    function: &'static str,
    args: Vec<JsValue>,
    what: &'static str,
) -> RwSignal<Option<String>> {
    let status = RwSignal::new(Some(format!("Loading the {what}…")));
    let slot = Slot::new();
    leptos::prelude::Effect::new(move |_| {
        let Some(host) = host.get() else { return };
        let args: Vec<JsValue> = std::iter::once(host.into()).chain(args.clone()).collect();
        let slot = slot.clone();
        leptos::task::spawn_local(async move {
            status.set(slot.fill(module, function, &args).await.err().map(|why| {
                format!("The {what} could not be loaded ({why}). Reload the page to try again.")
            }));
        });
    });
    status
}
