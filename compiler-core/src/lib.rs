//! Tessera's compiler core: the whole language pipeline as a pure library.
//!
//! In: kernel source text and options. Out: diagnostics and, for a correct program, the
//! checked kernels and each target's output. It does no I/O, so the same code runs in the
//! browser (wasm32), in the CLI and in the tests; whoever calls it supplies files, GPUs and
//! terminals.
//!
//! The pipeline grows one stage per module (`syntax`, `check`, `ir`, `sim`, `ptx`, `wgsl`; see
//! `ARCHITECTURE.md` at the repository root). Today it holds [`hierarchy`], the arithmetic of
//! the launch hierarchy that every later stage, the diagram and the docs share.

pub mod hierarchy;
