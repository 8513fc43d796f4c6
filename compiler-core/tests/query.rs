//! The editor's query: for a position, the name there, its type and its uniformity.

use compiler_core::compile;

const MATVEC: &str = include_str!("ui/matvec.tsr");

/// The hover text at the `nth` occurrence of `needle` (its first byte).
fn hover_at(needle: &str, nth: usize) -> Option<String> {
    let offset = MATVEC.match_indices(needle).nth(nth).map(|(at, _)| at)?;
    compile(MATVEC).hover(offset)
}

#[test]
fn names_show_their_type_and_uniformity() {
    assert_eq!(
        hover_at("col < N", 0).as_deref(),
        Some("col: i32 · warp-uniform")
    );
    assert_eq!(hover_at("N]) {", 0).as_deref(), Some("N: i32 · uniform"));
    assert_eq!(hover_at("acc)", 0).as_deref(), Some("acc: f32 · varying"));
    assert_eq!(
        hover_at("total = sum", 0).as_deref(),
        Some("total: f32 · warp-uniform")
    );
    assert_eq!(
        hover_at("k in range", 0).as_deref(),
        Some("k: i32 · varying")
    );
    assert_eq!(
        hover_at("W[col, k]", 0).as_deref(),
        Some("W: tensor<f32>[N, K] · uniform")
    );
}

#[test]
fn ctx_fields_show_their_uniformity() {
    assert_eq!(
        hover_at("ctx.warp\n", 0).as_deref(),
        Some("ctx.warp: i32 · warp-uniform")
    );
    assert_eq!(
        hover_at("ctx.lane, K", 0).as_deref(),
        Some("ctx.lane: i32 · varying")
    );
    assert_eq!(
        hover_at("ctx.block.x", 0).as_deref(),
        Some("ctx.block.x: i32 · uniform")
    );
}

#[test]
fn nothing_is_shown_between_names() {
    assert_eq!(hover_at("{\n", 0), None);
}
