//! The playground's wasm keeps its relocations: wasm-split-cli needs them to split it at the
//! views loaded later (playground/src/run/later.rs, scripts/build-playground-module.sh).
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=--emit-relocs");
    }
}
