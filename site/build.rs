//! Renders `content/` into the docs' pages, and the home page's kernel into highlighted HTML
//! (`$OUT_DIR/home.html`), at build time, so the browser gets HTML and never a Markdown parser
//! or a compiler. Into `$OUT_DIR`:
//! - `index.json`: every page's `Entry` (title, section, headings), which the site embeds;
//! - `docs/pages/SLUG.json`: each page, which the site fetches when it is opened;
//! - `docs/search.json`: every page's words, in the index's order, fetched on the first search.
//!
//! `docs/` is copied into the built site as `lazy/docs-HASH/` by trunk's post-build hook
//! (`scripts/build-playground-module.sh`), which gives the site its URL. A page that does not
//! parse stops the build with its file and problem; the content check proper is `docs-build`'s
//! test.

use compiler_core::syntax::highlight::highlight_html;
use docs_build::{Block, Page};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn main() {
    let content = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content");
    println!("cargo:rerun-if-changed={}", content.display());
    let pages = match docs_build::load(&content) {
        Ok(pages) => pages,
        Err(errors) => {
            for e in &errors {
                println!("cargo:warning={e}");
            }
            std::process::exit(1);
        }
    };
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let entries: Vec<_> = pages.iter().map(Page::entry).collect();
    write(&out.join("index.json"), &entries);
    let docs = out.join("docs");
    // A page removed from content/ leaves no file behind.
    let _ = std::fs::remove_dir_all(&docs);
    let words: Vec<String> = pages.iter().map(search_words).collect();
    write(&docs.join("search.json"), &words);
    for page in &pages {
        // What the site does not read of a page: its words (in search.json) and its links
        // (for the content check).
        let shown = Page {
            text: String::new(),
            links: Vec::new(),
            ..page.clone()
        };
        write(
            &docs.join("pages").join(format!("{}.json", page.slug)),
            &shown,
        );
    }

    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("home.tsr");
    println!("cargo:rerun-if-changed={}", home.display());
    let kernel = std::fs::read_to_string(&home).unwrap_or_default();
    let html = highlight_html(kernel.trim_end(), &[]);
    if let Err(e) = std::fs::write(out.join("home.html"), html) {
        fail(&out.join("home.html"), &e);
    }
}

/// What the search looks in: the words of the page's text and its kernels' sources, in lower
/// case, each once, sorted (the search looks for each word of a query, which holds no space, so
/// it finds the same pages in these as in the whole text, at less than half the bytes).
fn search_words(page: &Page) -> String {
    let kernels = page.blocks.iter().filter_map(|block| match block {
        Block::Kernel(kernel) => Some(kernel.source.to_lowercase()),
        _ => None,
    });
    let text: Vec<String> = std::iter::once(page.text.clone()).chain(kernels).collect();
    let words: BTreeSet<&str> = text.iter().flat_map(|t| t.split_whitespace()).collect();
    words.into_iter().collect::<Vec<_>>().join(" ")
}

fn write(path: &Path, value: &impl serde::Serialize) {
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| {
            let json = serde_json::to_string(value).map_err(std::io::Error::other)?;
            std::fs::write(path, json)
        });
    if let Err(e) = written {
        fail(path, &e);
    }
}

fn fail(path: &Path, e: &std::io::Error) -> ! {
    println!("cargo:warning=cannot write {}: {e}", path.display());
    std::process::exit(1);
}
