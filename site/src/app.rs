//! The page frame: the header with the site navigation, the routed page, the footer.
//!
//! Navigation lists only the parts of the site that exist. Routing is client-side
//! (leptos_router); a static host serves `index.html` for every path (`sirv --single`,
//! `trunk serve`), so `/play` and a docs URL work when opened directly.

use crate::lazy::Slot;
use crate::pages::docs::{first_slug, DocsPage};
use crate::pages::home::Home;
use gloo_storage::{LocalStorage, Storage};
use leptos::prelude::*;
use leptos_router::components::{Redirect, Route, Router, Routes, A};
use leptos_router::path;

/// Where the theme button keeps the pick (`index.html` reads it too).
const THEME_KEY: &str = "tessera.theme";

/// Light or dark: `index.html` sets `data-theme` before the first paint (the kept pick, else
/// the system's preference); the button flips it and keeps the pick.
#[component]
fn ThemeToggle() -> impl IntoView {
    let root = document().document_element();
    let dark = RwSignal::new(
        root.as_ref()
            .and_then(|r| r.get_attribute("data-theme"))
            .is_some_and(|t| t == "dark"),
    );
    let toggle = move |_| {
        let theme = if dark.get_untracked() {
            "light"
        } else {
            "dark"
        };
        dark.set(theme == "dark");
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-theme", theme);
        }
        let _ = LocalStorage::raw().set_item(THEME_KEY, theme);
    };
    view! {
        <button type="button" class="theme-toggle" data-testid="theme-toggle" aria-pressed=move || dark.get().to_string() on:click=toggle>
            "Dark theme"
        </button>
    }
}

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
    let status = RwSignal::new(Some("Loading the playground…".to_owned()));
    let slot = Slot::new();
    Effect::new(move |_| {
        let Some(host) = host.get() else { return };
        let slot = slot.clone();
        leptos::task::spawn_local(async move {
            match slot.fill("mount_playground", &[host.into()]).await {
                Ok(()) => status.set(None),
                Err(why) => status.set(Some(format!(
                    "The playground could not be loaded ({why}). Reload the page to try again."
                ))),
            }
        });
    });
    view! {
        <h1 class="visually-hidden">"Tessera playground"</h1>
        {move || status.get().map(|text| view! { <p class="loading" role="status" data-testid="play-loading">{text}</p> })}
        <div class="playground-host" node_ref=host></div>
    }
}

#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <a class="skip-link" href="#main">"Skip to content"</a>
            <header class="site-header">
                <a class="brand" href="/">
                    <span class="brand-mark" aria-hidden="true"></span>
                    "Tessera"
                </a>
                <nav aria-label="Site">
                    <A href="/" exact=true>"Home"</A>
                    <A href="/docs">"Docs"</A>
                    <A href="/play">"Playground"</A>
                    <ThemeToggle/>
                </nav>
            </header>
            <main id="main">
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=Home/>
                    <Route path=path!("/play") view=PlayPage/>
                    <Route path=path!("/docs") view=|| view! { <Redirect path=format!("/docs/{}", first_slug())/> }/>
                    <Route path=path!("/docs/:slug") view=DocsPage/>
                </Routes>
            </main>
            <footer class="site-footer">
                <p>"Tessera is open source. The compiler in this page is Rust compiled to WebAssembly."</p>
            </footer>
        </Router>
    }
}
