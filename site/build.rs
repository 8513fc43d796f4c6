//! Renders `content/` into the pages the site embeds (`$OUT_DIR/pages.json`), and the home
//! page's kernel into highlighted HTML (`$OUT_DIR/home.html`), at build time, so the browser
//! gets HTML and never a Markdown parser or a compiler on first load. A page that does not
//! parse stops the build with its file and problem; the content check proper is `docs-build`'s
//! test.

use compiler_core::syntax::highlight::highlight_html;
use std::path::Path;

fn main() {
    let content = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content");
    println!("cargo:rerun-if-changed={}", content.display());
    let mut pages = match docs_build::load(&content) {
        Ok(pages) => pages,
        Err(errors) => {
            for e in &errors {
                println!("cargo:warning={e}");
            }
            std::process::exit(1);
        }
    };
    // The search's text is the pages' own, which the site reads from their HTML on the first
    // search: shipping it again would cost the first load 13 KB of gzip.
    for page in &mut pages {
        page.text.clear();
    }
    write(
        "pages.json",
        &serde_json::to_string(&pages).unwrap_or_default(),
    );
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("home.tsr");
    println!("cargo:rerun-if-changed={}", home.display());
    let kernel = std::fs::read_to_string(&home).unwrap_or_default();
    write("home.html", &highlight_html(kernel.trim_end(), &[]));
}

fn write(name: &str, text: &str) {
    let out = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join(name);
    if let Err(e) = std::fs::write(&out, text) {
        println!("cargo:warning=cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}
