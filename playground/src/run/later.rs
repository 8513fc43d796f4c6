//! The views a first visit to `/play` does not show, each in a part of the module that the page
//! fetches the first time it is shown: a run's written tensors, the memory table, the stepper,
//! the lane map, the PTX, WGSL and IR listings, and the launch diagram, which sits below the
//! fold and loads when its place comes near the screen ([`WhenSeen`]); and the reading of the
//! worker's replies, fetched with the first one.
//!
//! In: a view's props. Out: the view, drawn once its part is loaded (a `Suspend`), or a line
//! that says it could not be loaded (the network went away); the rest of the page goes on.
//! Each function in `split` is a split point (`wasm_split`, which leptos's `#[lazy]` is made
//! of, here with its failure kept): the release build splits the playground's wasm there
//! (wasm-split-cli, scripts/build-playground-module.sh), and the code that only these views
//! reach leaves the first download. A native build calls them directly. Why: `/play`'s first
//! load has a budget of 700 KB of gzip (BENCHMARKS.md, "Site size"), which these views had
//! pushed to 895.

use super::diagram::LaunchDiagramProps;
use super::memory::MemoryViewProps;
use super::stepper::StepperProps;
use super::tensors::WrittenProps;
use crate::outputs::ListingViewProps;
use diagram::FragmentMapProps;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::future::Future;
use wasm_split_helpers::SplitLoaderError;

/// The view `loading` makes, once its part is there. The futures hold the page's `Rc`s: they
/// are polled on the page's one thread only.
fn shown(
    loading: impl Future<Output = Result<AnyView, SplitLoaderError>> + 'static,
) -> impl IntoView {
    Suspend::new(SendWrapper::new(async move {
        loading.await.unwrap_or_else(|_| {
            view! {
                <p class="notice" role="alert" data-testid="part-failed">
                    "This part of the playground could not be loaded (is the network there?). Reload the page to try again."
                </p>
            }
            .into_any()
        })
    }))
}

pub(super) fn written(props: WrittenProps) -> impl IntoView {
    shown(split::written(props))
}

pub fn memory(props: MemoryViewProps) -> impl IntoView {
    shown(split::memory(props))
}

pub fn stepper(props: StepperProps) -> impl IntoView {
    shown(split::stepper(props))
}

pub fn fragment_map(props: FragmentMapProps) -> impl IntoView {
    shown(split::fragment_map(props))
}

pub fn diagram(props: LaunchDiagramProps) -> impl IntoView {
    shown(split::diagram(props))
}

pub fn listing(props: ListingViewProps) -> impl IntoView {
    shown(split::listing(props))
}

/// How far from the screen a [`WhenSeen`] place starts loading: a reader scrolling down finds
/// it drawn.
#[cfg(target_arch = "wasm32")]
const NEAR: &str = "200px 0px";

/// `children` once their place (a box in the page, at least `min_height` tall until then) comes
/// within [`NEAR`] of the screen, by scrolling or by a link or a button that brings it there; a
/// browser without IntersectionObserver draws them at once.
#[component]
pub fn WhenSeen(
    /// The part's name, on the place as `data-part` (for tests and for links to it).
    part: &'static str,
    /// The place's height until the part is there (CSS), so the page does not jump when it is.
    min_height: &'static str,
    children: ChildrenFn,
) -> impl IntoView {
    let seen = RwSignal::new(false);
    let place = NodeRef::<leptos::html::Div>::new();
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::prelude::*;
        use wasm_bindgen::JsCast;
        let watching = StoredValue::new_local(
            None::<(
                web_sys::IntersectionObserver,
                Closure<dyn FnMut(js_sys::Array)>,
            )>,
        );
        Effect::new(move |_| {
            let Some(element) = place.get() else { return };
            let near = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                let entered = entries.iter().any(|e| {
                    e.unchecked_into::<web_sys::IntersectionObserverEntry>()
                        .is_intersecting()
                });
                if entered {
                    seen.set(true);
                }
            });
            let options = web_sys::IntersectionObserverInit::new();
            options.set_root_margin(NEAR);
            match web_sys::IntersectionObserver::new_with_options(
                near.as_ref().unchecked_ref(),
                &options,
            ) {
                Ok(observer) => {
                    observer.observe(&element);
                    watching.set_value(Some((observer, near)));
                }
                Err(_) => seen.set(true),
            }
        });
        // Seen once is enough; a view that goes stops watching.
        let stop = move || {
            if let Some((observer, _)) = watching.try_update_value(Option::take).flatten() {
                observer.disconnect();
            }
        };
        Effect::new(move |_| {
            if seen.get() {
                stop();
            }
        });
        on_cleanup(stop);
    }
    #[cfg(not(target_arch = "wasm32"))]
    seen.set(true);
    view! {
        <div node_ref=place data-part=part style:min-height=move || (!seen.get()).then_some(min_height)>
            {move || seen.get().then(|| children())}
        </div>
    }
}

/// The worker's reply in `data`, read by a part of its own.
#[cfg(target_arch = "wasm32")]
pub(super) async fn reply(data: wasm_bindgen::JsValue, kind: String) -> super::worker::Outcome {
    split::reply(data, kind).await.unwrap_or_else(|_| {
        Err("the page could not load the part that reads the worker's replies (is the network there?): reload the page to try again".to_owned())
    })
}

#[allow(unsafe_code)] // The loader that `wasm_split` writes for each split point.
mod split {
    use super::super::diagram::{LaunchDiagram, LaunchDiagramProps};
    use super::super::memory::{MemoryView, MemoryViewProps};
    use super::super::stepper::{Stepper, StepperProps};
    use super::super::tensors::{Written, WrittenProps};
    use crate::outputs::{ListingView, ListingViewProps};
    use diagram::{FragmentMap, FragmentMapProps};
    use leptos::prelude::*;
    use wasm_split_helpers::{wasm_split, SplitLoaderError};

    /// A split point `$name` that draws component `$view` from its props.
    macro_rules! view_part {
        ($name:ident, $props:ty, $view:ident) => {
            #[wasm_split($name, fallible, return_wrapper(let view = _; { Ok(view) } -> Result<AnyView, SplitLoaderError>))]
            pub fn $name(props: $props) -> AnyView {
                $view(props).into_any()
            }
        };
    }

    view_part!(written, WrittenProps, Written);

    view_part!(memory, MemoryViewProps, MemoryView);

    view_part!(stepper, StepperProps, Stepper);

    #[cfg(target_arch = "wasm32")]
    #[wasm_split(reply, fallible, return_wrapper(let outcome = _; { Ok(outcome) } -> Result<super::super::worker::Outcome, SplitLoaderError>))]
    pub fn reply(data: wasm_bindgen::JsValue, kind: String) -> super::super::worker::Outcome {
        super::super::worker::decode(&data, &kind)
    }

    view_part!(diagram, LaunchDiagramProps, LaunchDiagram);

    view_part!(listing, ListingViewProps, ListingView);

    view_part!(fragment_map, FragmentMapProps, FragmentMap);
}
