//! The page frame: the skip link, the header with the site navigation and the theme button, the
//! page's `main`, the footer.
//!
//! In: the current path and the page. Out: the frame around the page. Two apps draw it: the
//! site (every page, routed client-side) and the playground module when `/play` is opened
//! directly, which then loads without the site's module (ARCHITECTURE.md, "`/play` opened
//! directly"). Invariant: the navigation lists only pages that exist; the link of the current
//! part of the site carries `aria-current="page"`.

use gloo_storage::{LocalStorage, Storage};
use leptos::prelude::*;

/// Where the theme button keeps the pick (`index.html` reads it too).
const THEME_KEY: &str = "tessera.theme";

/// The parts of the site the navigation lists, with the paths each one covers.
const SECTIONS: [(&str, &str); 3] = [("/", "Home"), ("/docs", "Docs"), ("/play", "Playground")];

/// Whether `path` is in the part of the site at `section` (`/` is the home page only).
fn within(path: &str, section: &str) -> bool {
    if section == "/" {
        return path == "/";
    }
    path.strip_prefix(section)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

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

/// The frame around a page at `path`. The links are plain anchors: inside the site's router
/// they navigate client-side, elsewhere they load the page.
#[component]
pub fn Frame(#[prop(into)] path: Signal<String>, children: Children) -> impl IntoView {
    let links = SECTIONS.map(|(href, name)| {
        let current = move || path.with(|p| within(p, href)).then_some("page");
        view! { <a href=href aria-current=current>{name}</a> }
    });
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <header class="site-header">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true"></span>
                "Tessera"
            </a>
            <nav aria-label="Site">
                {links}
                <ThemeToggle/>
            </nav>
        </header>
        <main id="main">{children()}</main>
        <footer class="site-footer">
            <p>
                "Tessera is open source, under the "
                <a href="/LICENSE-MIT" rel="external" data-testid="license-mit">"MIT license"</a>
                " or the "
                <a href="/LICENSE-APACHE" rel="external" data-testid="license-apache">"Apache License 2.0"</a>
                ", at your choice. The compiler in this page is Rust compiled to WebAssembly; "
                <a href="/tessera-source.tar.gz" rel="external" download data-testid="source-archive">"its source"</a>
                " is served with the site (the build's own files, as a .tar.gz)."
            </p>
        </footer>
    }
}

#[cfg(test)]
mod tests {
    use super::within;

    #[test]
    fn a_section_covers_its_pages_and_no_others() {
        assert!(within("/", "/"));
        assert!(!within("/docs/intro", "/"));
        assert!(within("/docs", "/docs"));
        assert!(within("/docs/intro", "/docs"));
        assert!(!within("/docsx", "/docs"));
        assert!(within("/play", "/play"));
        assert!(!within("/player", "/play"));
    }
}
