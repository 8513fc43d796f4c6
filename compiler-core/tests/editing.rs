//! The editor's edits, each checked by compiling what it writes: quick fixes, renaming, and
//! formatting.

use compiler_core::compile;

/// A kernel with `BODY` in its place; `X` a tensor, `n` an i32, `x` an f32.
fn kernel(body: &str) -> String {
    format!(
        "@launch(64)\nkernel k(X: tensor<f32>[N]) {{\n  var n: i32 = 0\n  var x: f32 = 0.0\n  {body}\n}}\n"
    )
}

/// Each broken statement, its quick fix applied, compiles with no error at all.
#[test]
fn every_quick_fix_gives_a_kernel_that_compiles() {
    let broken = [
        ("n = ctx.threadz", "ctx.thread"),
        ("n = ctx.thraed", "ctx.thread"),
        ("n = ctx.threadIdx.x", "ctx.thread"),
        ("n = ctx.blockIdx.y", "ctx.block.y"),
        ("n = ctx.warpSize", "ctx.lanes"),
        ("n = ctx.lane.x", "ctx.lane"),
        ("n = threadIdx.x", "ctx.thread"),
        ("n = gridDim.z", "ctx.blocks.z"),
        ("n = warpSize", "ctx.lanes"),
        ("__syncthreads()", "barrier()"),
        ("x = fmaf(x, x, x)", "fma(x, x, x)"),
        ("x = sqr(x)", "sqrt(x)"),
        ("x = shufle_xor(x, 1)", "shuffle_xor(x, 1)"),
        ("x = summ<over ctx.lane>(x)", "sum<over ctx.lane>(x)"),
        ("x = xx", "x = x"),
    ];
    for (statement, fixed) in broken {
        let source = kernel(statement);
        let compilation = compile(&source);
        let fixes: Vec<_> = compilation
            .diagnostics
            .iter()
            .filter_map(|d| d.fix.as_deref())
            .collect();
        assert_eq!(fixes.len(), 1, "{statement}: {:?}", compilation.diagnostics);
        let fix = fixes[0];
        let mut edited = source.clone();
        edited.replace_range(fix.span.start..fix.span.end, &fix.replacement);
        assert!(edited.contains(fixed), "{statement} became {edited}");
        let left = compile(&edited).diagnostics;
        assert!(
            left.iter().all(|d| !d.is_error()),
            "{statement} → {edited}: {left:?}"
        );
    }
    // Where the arguments change, no edit is offered: the help says what to write.
    let compilation = compile(&kernel("x = __shfl_down_sync(0, x, 1)"));
    assert!(compilation.diagnostics.iter().all(|d| d.fix.is_none()));
    assert!(compilation.diagnostics.iter().any(|d| d.help.is_some()));
}

const BFS: &str = include_str!("../../examples/programs/bfs_grid.tsr");

/// The texts at `spans`, each with the line it is on (1-based).
fn written(source: &str, spans: &[compiler_core::span::Span]) -> Vec<(usize, String)> {
    spans
        .iter()
        .map(|s| {
            let line = source[..s.start].matches('\n').count() + 1;
            (line, source[s.start..s.end].to_owned())
        })
        .collect()
}

fn line_of(source: &str, text: &str) -> usize {
    let at = source
        .find(text)
        .unwrap_or_else(|| panic!("{text} not found"));
    source[..at].matches('\n').count() + 1
}

#[test]
fn references_follow_the_checker_and_the_program() {
    let compilation = compile(BFS);
    let at = |text: &str, skip: usize| BFS.match_indices(text).nth(skip).map_or(0, |(i, _)| i);
    // `r` in `offer`: its `let`, then its eight uses, none in another kernel.
    let Some(spans) = compilation.references(at("r - 1", 0)) else {
        panic!("no references of r")
    };
    let found = written(BFS, &spans);
    assert_eq!(found[0], (line_of(BFS, "let r = i / W"), "r".to_owned()));
    assert_eq!(found.len(), 12, "{found:?}");
    // A kernel: its declaration, then each launch of it.
    let Some(spans) = compilation.references(at("keep(Dist, Next", 0)) else {
        panic!("no references of keep")
    };
    let lines: Vec<usize> = written(BFS, &spans).iter().map(|(l, _)| *l).collect();
    assert_eq!(
        lines,
        [line_of(BFS, "kernel keep"), line_of(BFS, "launch keep")]
    );
    // A program's temporary, from a use: its `let`, the launches' arguments, the `while`.
    let Some(spans) = compilation.references(at("Changed[0] != 0", 0)) else {
        panic!("no references of Changed")
    };
    let found = written(BFS, &spans);
    assert_eq!(found[0].0, line_of(BFS, "let Changed"));
    assert_eq!(found.len(), 5, "{found:?}");
    // ctx fields and built-ins are no one's.
    assert_eq!(compilation.references(at("ctx.threads", 0) + 5), None);
    assert_eq!(compilation.references(at("atomic_min", 0)), None);
}

/// Renames `text`'s `skip`th occurrence to `to`; the source it gives, or why not.
fn renamed(source: &str, text: &str, skip: usize, to: &str) -> Result<String, String> {
    let offset = source.match_indices(text).nth(skip).map_or(0, |(i, _)| i);
    let mut spans = compile(source).rename(offset, to)?;
    spans.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut out = source.to_owned();
    for span in spans {
        out.replace_range(span.start..span.end, to);
    }
    Ok(out)
}

#[test]
fn a_rename_compiles_the_same_or_is_refused() {
    // A kernel's parameter: that kernel's, not another's of the same name.
    let Ok(out) = renamed(BFS, "Changed", 0, "Flag") else {
        panic!("Changed was not renamed")
    };
    assert_eq!(out.matches("Flag").count(), 2);
    assert!(out.contains("Flag[0] = 1") && out.contains("atomic_add(Changed[0], 1)"));
    assert!(compile(&out).diagnostics.is_empty());
    // A program's temporary: its `let`, the launches' arguments and the `while`.
    let Ok(out) = renamed(BFS, "Changed = tensor", 0, "Count") else {
        panic!("the temporary Changed was not renamed")
    };
    assert!(out.contains("while Count[0] != 0") && out.contains("launch clear(Count)"));
    assert!(compile(&out).diagnostics.is_empty());
    // A kernel, and its launch.
    let Ok(out) = renamed(BFS, "keep(", 0, "settle") else {
        panic!("keep was not renamed")
    };
    assert!(out.contains("kernel settle(") && out.contains("launch settle(Dist"));
    let Ok(out) = renamed(BFS, "Next = tensor", 0, "Spare") else {
        panic!("Next was not renamed")
    };
    assert_eq!(out.matches("Spare").count(), 4);
    assert_eq!(out.matches("Next").count(), BFS.matches("Next").count() - 4);
    assert!(compile(&out).diagnostics.is_empty());
    // Refused: a clash with another name in scope, a keyword, a non-name; `ctx` fields.
    let clash = renamed(BFS, "r = i / W", 0, "c");
    assert!(clash.is_err_and(|why| why.contains("would clash")));
    assert!(renamed(BFS, "r = i / W", 0, "while").is_err());
    assert!(renamed(BFS, "r = i / W", 0, "2r").is_err());
    assert!(renamed(BFS, "threads", 0, "t").is_err());
}

/// Every kernel the repository holds: its `.tsr` files and the docs' ```` ```tsr ```` blocks, by
/// where they are.
fn every_kernel() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.')
                    && !matches!(name.as_str(), "target" | "node_modules" | "dist")
                {
                    stack.push(path);
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let shown = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            if name.ends_with(".tsr") {
                found.push((shown, text));
            } else if name.ends_with(".md") && shown.starts_with("content") {
                // A puzzle's starter, solution and reference, in its front matter.
                for (n, block) in text.split("'''\n").skip(1).step_by(2).enumerate() {
                    let code = block.split("'''").next().unwrap_or_default();
                    found.push((format!("{shown} puzzle kernel {n}"), code.to_owned()));
                }
                for (n, block) in text.split("```tsr").skip(1).enumerate() {
                    let (info, body) = block.split_once('\n').unwrap_or_default();
                    let code = body.split("\n```").next().unwrap_or_default();
                    found.push((format!("{shown} block {n} ({info})"), format!("{code}\n")));
                }
            }
        }
    }
    found.sort();
    found
}

/// `tessera fmt` leaves every kernel in the repository as it is (they are written in its
/// layout), and a formatted source formats to itself; a source with syntax errors is refused.
#[test]
fn every_kernel_in_the_repository_is_formatted() {
    let kernels = every_kernel();
    assert!(kernels.len() > 100, "only {} kernels found", kernels.len());
    let mut changed = Vec::new();
    let mut formatted_count = 0;
    for (place, source) in &kernels {
        match compiler_core::format(source) {
            Ok(formatted) => {
                formatted_count += 1;
                assert_eq!(
                    compiler_core::format(&formatted).ok().as_ref(),
                    Some(&formatted),
                    "{place}: formatting twice changed it"
                );
                if formatted != *source {
                    changed.push(place.clone());
                }
            }
            Err(error) => assert!(
                compiler_core::compile(source).has_errors(),
                "{place} compiles but was refused: {error:?}"
            ),
        }
    }
    assert!(formatted_count > 100);
    assert!(
        changed.is_empty(),
        "not in tessera fmt's layout: {changed:#?}"
    );
}

/// E0407: the two swaps of an index and a count a linear index can suffer are warned about,
/// with the other spelling as the fix; no kernel in the repository is (they are all right).
#[test]
fn a_swapped_index_and_count_is_warned_about_and_nothing_else_is() {
    let warned = |statement: &str| {
        let source = kernel(statement);
        compile(&source)
            .diagnostics
            .iter()
            .filter(|d| d.code == compiler_core::Code::E0407)
            .map(|d| {
                assert!(!d.is_error());
                let fix = d
                    .fix
                    .as_deref()
                    .map(|f| (&source[f.span.start..f.span.end], f.replacement.as_str()));
                fix.map(|(was, now)| format!("{was} → {now}"))
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        warned("n = ctx.block.x * ctx.thread + ctx.thread"),
        ["ctx.thread → ctx.threads"]
    );
    assert_eq!(
        warned("X[ctx.thread * ctx.block.y] = 1.0"),
        ["ctx.thread → ctx.threads"]
    );
    assert_eq!(warned("n = ctx.warp * ctx.lane"), ["ctx.lane → ctx.lanes"]);
    assert_eq!(
        warned("X[ctx.blocks.x * ctx.threads + ctx.thread] = 1.0"),
        ["ctx.blocks.x → ctx.block.x"]
    );
    assert_eq!(
        warned("n = ctx.lane + ctx.lanes * ctx.warps"),
        ["ctx.warps → ctx.warp"]
    );
    // What a kernel means: a linear index, a grid stride, an end, a second chunk.
    for right in [
        "n = ctx.block.x * ctx.threads + ctx.thread",
        "n = ctx.blocks.x * ctx.threads",
        "n += ctx.blocks.x * ctx.threads",
        "n = ctx.block.x * ctx.threads + ctx.threads",
        "n = ctx.blocks.x * ctx.threads + ctx.block.x * ctx.threads + ctx.thread",
        "n = ctx.warp * ctx.lanes + ctx.lane",
        "n = ctx.thread + ctx.threads",
        "n = ctx.block.x * ctx.block.y",
    ] {
        assert_eq!(warned(right), Vec::<String>::new(), "{right}");
    }
    for (place, source) in every_kernel() {
        let compilation = compile(&source);
        let warning = compilation
            .diagnostics
            .iter()
            .find(|d| d.code == compiler_core::Code::E0407);
        assert!(
            warning.is_none()
                || place.contains("ui/swapped_counts")
                || place.contains("expect=E0407"),
            "{place}: {warning:?}"
        );
    }
}
