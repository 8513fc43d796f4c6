//! The routes, in the page frame (crate `frame`: the header with the site navigation, the
//! footer).
//!
//! Navigation lists only the parts of the site that exist. Routing is client-side
//! (leptos_router); a static host serves `index.html` for every path (`sirv --single`,
//! `trunk serve`), so `/play` and a docs URL work when opened directly.

use crate::lazy::{fill_on_mount, Module};
use crate::pages::docs::{first_slug, DocsPage};
use crate::pages::home::Home;
use frame::Frame;
use leptos::prelude::*;
use leptos_router::components::{Redirect, Route, Router, Routes};
use leptos_router::hooks::use_location;
use leptos_router::path;

#[component]
fn NotFound() -> impl IntoView {
    view! {
        <section>
            <h1>"Not found"</h1>
            <p>"There is no page here. Try the "<a href="/">"home page"</a>" or the "<a href="/play">"playground"</a>"."</p>
        </section>
    }
}

/// The playground, from the module that carries the compiler (loaded here on first visit).
#[component]
fn PlayPage() -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let status = fill_on_mount(
        host,
        Module::Playground,
        "mount_playground",
        Vec::new(),
        "playground",
    );
    view! {
        <h1 class="visually-hidden">"Tessera playground"</h1>
        {move || status.get().map(|text| view! { <p class="loading" role="status" data-testid="play-loading">{text}</p> })}
        <div class="playground-host" node_ref=host></div>
    }
}

/// The pages, in the frame; inside the router, which the location needs.
#[component]
fn Pages() -> impl IntoView {
    let path = use_location().pathname;
    view! {
        <Frame path=path>
            <Routes fallback=NotFound>
                <Route path=path!("/") view=Home/>
                <Route path=path!("/play") view=PlayPage/>
                <Route path=path!("/docs") view=|| view! { <Redirect path=format!("/docs/{}", first_slug())/> }/>
                <Route path=path!("/docs/:slug") view=DocsPage/>
            </Routes>
        </Frame>
    }
}

#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <Pages/>
        </Router>
    }
}
