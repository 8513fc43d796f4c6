//! The page frame: the header with the site navigation, the routed page, the footer.
//!
//! Navigation lists only the parts of the site that exist. Routing is client-side
//! (leptos_router); a static host serves `index.html` for every path (`sirv --single`,
//! `trunk serve`), so `/play` and a docs URL work when opened directly.

use crate::pages::docs::{first_slug, DocsPage};
use crate::pages::home::Home;
use leptos::prelude::*;
use leptos_router::components::{Redirect, Route, Router, Routes, A};
use leptos_router::path;
use playground::Playground;

#[component]
fn NotFound() -> impl IntoView {
    view! {
        <section>
            <h1>"Not found"</h1>
            <p>"There is no page here. Try the "<a href="/">"home page"</a>" or the "<a href="/play">"playground"</a>"."</p>
        </section>
    }
}

#[component]
fn PlayPage() -> impl IntoView {
    view! {
        <h1 class="visually-hidden">"Tessera playground"</h1>
        <Playground/>
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
