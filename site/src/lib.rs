//! Tessera's website, built to wasm by trunk.
//!
//! In: the user's browser. Out: the pages, rendered by leptos on the client.
//! Invariant: pages show only what the project really does; the compiler runs here as the
//! same `compiler-core` the CLI uses, compiled to wasm, never a copy of its logic in JS. It
//! comes in a second module, loaded when first needed ([`lazy`]).

mod app;
mod lazy;
mod occupancy;
mod pages;

pub use app::App;
