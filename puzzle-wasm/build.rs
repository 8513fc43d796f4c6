//! Writes every puzzle's `Exercise` (`content/puzzles/`, read by `docs-build`) as JSON to
//! `$OUT_DIR/exercises.json`, a list of `[slug, exercise]` pairs that the module embeds. A
//! puzzle that does not read stops the build; grading them is `docs-build`'s test.

use std::path::Path;

fn main() {
    // The module keeps its relocations: wasm-split-cli needs them to split it at the parts
    // loaded later (playground/src/run/later.rs, scripts/build-playground-module.sh).
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=--emit-relocs");
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/puzzles");
    println!("cargo:rerun-if-changed={}", dir.display());
    let puzzles = match docs_build::puzzles::load(&dir) {
        Ok(puzzles) => puzzles,
        Err(errors) => {
            for e in &errors {
                println!("cargo:warning={e}");
            }
            std::process::exit(1);
        }
    };
    let exercises: Vec<_> = puzzles
        .iter()
        .map(|p| (p.slug.clone(), docs_build::puzzles::exercise(p)))
        .collect();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("exercises.json");
    let json = serde_json::to_string(&exercises).unwrap_or_default();
    if let Err(e) = std::fs::write(&out, json) {
        println!("cargo:warning=cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}
