//! The views a first visit to `/play` does not show, each in a part of the module that the page
//! fetches the first time it is shown: a run's written tensors, the memory table, the stepper
//! and the lane map.
//!
//! In: a view's props. Out: the view, drawn once its part is loaded (a `Suspend`), or a line
//! that says it could not be loaded (the network went away); the rest of the page goes on.
//! Each function in `split` is a split point (`wasm_split`, which leptos's `#[lazy]` is made
//! of, here with its failure kept): the release build splits the playground's wasm there
//! (wasm-split-cli, scripts/build-playground-module.sh), and the code that only these views
//! reach leaves the first download. A native build calls them directly. Why: `/play`'s first
//! load has a budget of 700 KB of gzip (BENCHMARKS.md, "Site size"), which these views had
//! pushed to 895.

use super::fragments::FragmentMapProps;
use super::memory::MemoryViewProps;
use super::stepper::StepperProps;
use super::tensors::WrittenProps;
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

#[allow(unsafe_code)] // The loader that `wasm_split` writes for each split point.
mod split {
    use super::super::fragments::{FragmentMap, FragmentMapProps};
    use super::super::memory::{MemoryView, MemoryViewProps};
    use super::super::stepper::{Stepper, StepperProps};
    use super::super::tensors::{Written, WrittenProps};
    use leptos::prelude::*;
    use wasm_split_helpers::{wasm_split, SplitLoaderError};

    #[wasm_split(written, fallible, return_wrapper(let view = _; { Ok(view) } -> Result<AnyView, SplitLoaderError>))]
    pub fn written(props: WrittenProps) -> AnyView {
        Written(props).into_any()
    }

    #[wasm_split(memory, fallible, return_wrapper(let view = _; { Ok(view) } -> Result<AnyView, SplitLoaderError>))]
    pub fn memory(props: MemoryViewProps) -> AnyView {
        MemoryView(props).into_any()
    }

    #[wasm_split(stepper, fallible, return_wrapper(let view = _; { Ok(view) } -> Result<AnyView, SplitLoaderError>))]
    pub fn stepper(props: StepperProps) -> AnyView {
        Stepper(props).into_any()
    }

    #[wasm_split(fragment_map, fallible, return_wrapper(let view = _; { Ok(view) } -> Result<AnyView, SplitLoaderError>))]
    pub fn fragment_map(props: FragmentMapProps) -> AnyView {
        FragmentMap(props).into_any()
    }
}
