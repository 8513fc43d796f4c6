//! The page frame: the header with the site navigation, the page, the footer.
//!
//! Navigation lists only the parts of the site that exist.

use crate::pages::home::Home;
use leptos::prelude::*;

#[component]
pub fn App() -> impl IntoView {
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <header class="site-header">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true"></span>
                "Tessera"
            </a>
            <nav aria-label="Site">
                <a href="/" aria-current="page">"Home"</a>
            </nav>
        </header>
        <main id="main">
            <Home/>
        </main>
        <footer class="site-footer">
            <p>"Tessera is open source. The compiler in this page is Rust compiled to WebAssembly."</p>
        </footer>
    }
}
