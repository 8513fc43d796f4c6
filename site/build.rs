//! Renders `content/` into the pages the site embeds (`$OUT_DIR/pages.json`), at build time,
//! so the browser gets HTML and never a Markdown parser. A page that does not parse stops the
//! build with its file and problem; the content check proper is `docs-build`'s test.

use std::path::Path;

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
    let json = serde_json::to_string(&pages).unwrap_or_default();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("pages.json");
    if let Err(e) = std::fs::write(&out, json) {
        println!("cargo:warning=cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}
