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

const BFS: &str = include_str!("../../examples/programs/bfs_grid.tsr");

/// The hover text and the declaration's text at `needle` (its first byte) in the BFS program.
fn at_bfs(needle: &str) -> (Option<String>, Option<&'static str>) {
    let offset = BFS.find(needle).unwrap_or_else(|| panic!("{needle}"));
    let compiled = compile(BFS);
    let declared = compiled.definition(offset).map(|s| &BFS[s.start..s.end]);
    (compiled.hover(offset), declared)
}

#[test]
fn a_programs_names_lead_to_their_declarations_and_a_launch_shows_its_kernel() {
    let (hover, declared) = at_bfs("offer(Walls, Dist, Next) grid");
    assert_eq!(
        hover.as_deref(),
        Some("kernel offer(Walls: tensor<u32>[H, W], Dist: tensor<u32>[H, W], Next: tensor<u32>[H, W]) · @launch(256)")
    );
    assert_eq!(declared, Some("offer"));
    let (hover, declared) = at_bfs("Next, Changed) grid");
    assert_eq!(
        hover.as_deref(),
        Some("Next: tensor<u32>[H, W] · a temporary of bfs_grid")
    );
    // The `let`'s name, not the use.
    let offset = compile(BFS)
        .definition(BFS.find("Next, Changed) grid").unwrap_or_default())
        .map(|s| s.start);
    assert_eq!(offset, BFS.find("Next = tensor"));
    assert_eq!(declared, Some("Next"));
    let (hover, _) = at_bfs("Walls, Dist, Next) grid");
    assert_eq!(
        hover.as_deref(),
        Some("Walls: tensor<u32>[H, W] · a parameter of bfs_grid")
    );
    // Inside a kernel, a kernel's own names are the checker's as before.
    let (hover, _) = at_bfs("d + 1)");
    assert_eq!(hover.as_deref(), Some("d: u32 · varying"));
}

const FUNCTIONS: &str = "fn clamp_index(i: i32, n: i32) -> i32 {\n  if i < 0 {\n    return 0\n  }\n  return min(i, n - 1)\n}\n\n@launch(64)\nkernel k(X: tensor<f32>[N]) {\n  let j = clamp_index(ctx.thread - 1, N)\n  X[j] = 1.0\n}\n";

#[test]
fn a_function_is_hovered_completed_helped_found_and_renamed() {
    let c = compile(FUNCTIONS);
    assert!(
        c.checked.diagnostics.is_empty(),
        "{:?}",
        c.checked.diagnostics
    );
    let call = FUNCTIONS.find("clamp_index(ctx").unwrap_or(0);
    let decl = FUNCTIONS.find("clamp_index(i").unwrap_or(0);
    let signature = "fn clamp_index(i: i32, n: i32) -> i32";
    assert_eq!(c.hover(call + 2).as_deref(), Some(signature));
    assert_eq!(c.hover(decl + 2).as_deref(), Some(signature));
    // Inside the function, its parameters are its names; the parameter `n` is i32, uniform
    // as checked alone.
    let n_use = FUNCTIONS.find("n - 1").unwrap_or(0);
    assert_eq!(c.hover(n_use).as_deref(), Some("n: i32 · uniform"));
    assert_eq!(
        c.definition(call),
        Some(compiler_core::span::Span::new(decl, decl + 11))
    );
    // Completion offers the function, with its signature, in a kernel; and the function's
    // parameters inside it.
    let source = FUNCTIONS.replace("X[j] = 1.0", "X[j] = cla");
    let caret = source.find("= cla").unwrap_or(0) + 5;
    let Some(found) = compile(&source).completions(caret, false) else {
        panic!("completions")
    };
    let Some(item) = found.items.iter().find(|i| i.label == "clamp_index") else {
        panic!("offered")
    };
    assert_eq!((item.kind, item.detail.as_str()), ("function", signature));
    let inside = FUNCTIONS.find("return min").unwrap_or(0);
    let Some(found) = c.completions(inside, true) else {
        panic!("completions")
    };
    assert!(found
        .items
        .iter()
        .any(|i| i.label == "n" && i.kind == "variable"));
    // Signature help in the call's second argument.
    let caret = FUNCTIONS.find(", N)").unwrap_or(0) + 2;
    let Some(help) = c.signature_help(caret) else {
        panic!("help")
    };
    assert_eq!(help.signatures[0].label, "clamp_index(i: i32, n: i32)");
    assert_eq!(help.active_parameter, 1);
    // References: the declaration, then the call; a rename writes both.
    let Some(refs) = c.references(call) else {
        panic!("references")
    };
    assert_eq!(
        refs.iter().map(|s| s.start).collect::<Vec<_>>(),
        [decl, call]
    );
    let Ok(spans) = c.rename(call, "clamp_to") else {
        panic!("renamed")
    };
    assert_eq!(spans.len(), 2);
    // A rename onto a built-in's name is refused.
    assert!(c.rename(call, "min").is_err());
}

/// A dimension's rename reaches every extent that names it, from any of them (it had renamed
/// only the one it started from, so the tensors no longer shared the dimension), in a kernel
/// and in a function; a scalar named in an extent is renamed there too.
#[test]
fn a_dimension_or_scalar_named_in_several_extents_is_renamed_everywhere() {
    let source = "fn dot(A: tensor<f32>[M], B: tensor<f32>[M]) -> f32 {\n  var s = 0.0\n  for j in range(M) {\n    s += A[j] * B[j]\n  }\n  return s\n}\n\n@launch(32)\nkernel k(A: tensor<f32>[N], B: tensor<f32>[N], Y: tensor<f32>[(N - ks) / 2 + 1], ks: i32) {\n  if ctx.thread < N {\n    Y[0] = dot(A, B) + f32(ks)\n  }\n}\n";
    let c = compile(source);
    assert!(
        c.checked.diagnostics.is_empty(),
        "{:?}",
        c.checked.diagnostics
    );
    let count = |word: &str| source.matches(word).count();
    for (at, word) in [
        (source.find("B: tensor<f32>[M]").map(|i| i + 15), "M"),
        (source.find("B: tensor<f32>[N]").map(|i| i + 15), "N"),
        (source.rfind("ks: i32"), "ks"),
    ] {
        let at = at.unwrap_or(0);
        let Ok(spans) = c.rename(at, "Len") else {
            panic!("{word} not renamed")
        };
        let want = match word {
            "M" => 3,
            "N" => 4,
            _ => count("ks"),
        };
        assert_eq!(spans.len(), want, "{word}: {spans:?}");
    }
}

/// A program's parameter, dimension and own name: references from the declaration find every
/// use (they had found the declaration alone, so every rename was refused as a clash), a
/// rename writes them all, and hover names a dimension and the program.
#[test]
fn a_programs_names_are_found_renamed_and_hovered_from_their_declarations() {
    let source = "@launch(64)\nkernel k(A: tensor<f32>[N], B: tensor<f32>[N]) {\n  B[ctx.thread] = A[ctx.thread]\n}\n\nprogram run2(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  let T = tensor<f32>[N]\n  launch k(X, T) grid(ceil(N / 64))\n  if N > 64 {\n    launch k(T, Y) grid(ceil(N / 64))\n  }\n}\n";
    let c = compile(source);
    assert!(
        c.checked.diagnostics.is_empty(),
        "{:?}",
        c.checked.diagnostics
    );
    let program = source.find("program run2").unwrap_or(0);
    let x = source.find("run2(X").map_or(0, |i| i + 5);
    let refs = c.references(x).unwrap_or_default();
    assert_eq!(refs.len(), 2, "{refs:?}");
    assert!(c.rename(x, "Src").is_ok_and(|s| s.len() == 2));
    let n = source.find("run2(X: tensor<f32>[N]").map_or(0, |i| i + 20);
    let refs = c.references(n).unwrap_or_default();
    assert_eq!(refs.len(), 6, "{refs:?}");
    assert!(c.rename(n, "Len").is_ok_and(|s| s.len() == 6));
    let in_grid = source.rfind("N / 64").unwrap_or(0);
    assert_eq!(
        c.hover(in_grid).as_deref(),
        Some("N: i32 · a dimension of run2")
    );
    assert_eq!(
        c.hover(program + 9).as_deref(),
        Some("program run2(X: tensor<f32>[N], Y: tensor<f32>[N])")
    );
    assert!(c.rename(program + 9, "copy_twice").is_ok());
    // In a program, `ceil` is a size's exact function, not the kernel's float one.
    let ceil = source.rfind("ceil(N").unwrap_or(0);
    assert_eq!(
        c.hover(ceil + 1).as_deref(),
        Some("ceil(a / b): the quotient rounded up, exact in 64 bits")
    );
}
