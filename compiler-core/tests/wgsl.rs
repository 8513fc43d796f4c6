//! The WGSL backend: every example builds a module that naga's validator accepts (subgroup mode,
//! for the widths of the GPUs we meet), and its WGSL is kept as a golden file
//! (`TESSERA_BLESS=1` refreshes them; review the diff).

mod common;

use common::{examples, Golden};
use compiler_core::ir::StmtKind;
use compiler_core::wgsl::{self, WarpMode};
use std::path::Path;

#[test]
fn every_example_validates_for_every_subgroup_width() {
    let mut failures = Vec::new();
    for (name, source) in examples() {
        for lanes in [4, 8, 16, 32, 64] {
            if let Err(diagnostics) =
                compiler_core::compile(&source).wgsl(None, lanes, WarpMode::Subgroups)
            {
                failures.push(format!(
                    "{name} (lanes {lanes}): {}",
                    diagnostics[0].message
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn golden_wgsl_for_every_example() {
    let mut golden = Golden::default();
    // Every example for NVIDIA-wide warps, and two for the 4-lane subgroups of Chromium's
    // SwiftShader, which the e2e suite runs in the browser.
    let four_lanes = examples()
        .into_iter()
        .filter(|(name, _)| name == "lane_ids" || name == "warp_reduce")
        .map(|(name, source)| (name, source, 4));
    // And four with 32-lane warps emulated, which Chromium checks for barrier uniformity (and
    // runs: e2e/specs/wgsl.spec.ts).
    let emulated = examples()
        .into_iter()
        .filter(|(name, _)| {
            name == "warp_reduce"
                || name == "tiled_transpose"
                || name == "tiled_matmul"
                // A float max: its identity, -inf, which Chromium refused as a constant.
                || name == "softmax"
                // Scratch tiles, and the CTA scan's collectives under `if ctx.warp == 0`.
                || name == "scratch_sum"
                || name == "cta_scan"
        })
        .map(|(name, source)| (name, source, 32, WarpMode::Emulated));
    let cases = examples()
        .into_iter()
        .map(|(name, source)| (name, source, 32))
        .chain(four_lanes)
        .map(|(name, source, lanes)| (name, source, lanes, WarpMode::Subgroups))
        .chain(emulated);
    for (name, source, lanes, mode) in cases {
        let text = match compiler_core::compile(&source).wgsl(None, lanes, mode) {
            Ok(wgsl) => wgsl.browser_text(),
            Err(diagnostics) => panic!("{name}: {diagnostics:?}"),
        };
        let kind = if mode == WarpMode::Emulated {
            "emulated"
        } else {
            "lanes"
        };
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/wgsl/{name}.{kind}{lanes}.wgsl"));
        golden.check(&path, &text);
    }
    golden.finish();
}

/// The browser WGSL of `tests/wgsl/NAME.tsr` with 32-lane warps, in subgroup mode and emulated,
/// each holding every one of `expected` and checked against its golden file (which Chromium's
/// Tint compiles: e2e/specs/wgsl.spec.ts).
fn golden_test_kernel(name: &str, expected: &[&str]) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wgsl");
    let source =
        std::fs::read_to_string(dir.join(format!("{name}.tsr"))).unwrap_or_else(|e| panic!("{e}"));
    let compilation = compiler_core::compile(&source);
    let mut golden = Golden::default();
    let mut texts = Vec::new();
    for (mode, kind) in [
        (WarpMode::Subgroups, "lanes"),
        (WarpMode::Emulated, "emulated"),
    ] {
        let text = match compilation.wgsl(None, 32, mode) {
            Ok(wgsl) => wgsl.browser_text(),
            Err(diagnostics) => panic!("{mode:?}: {diagnostics:?}"),
        };
        for expected in expected {
            assert!(
                text.contains(expected),
                "{mode:?} lacks {expected}:\n{text}"
            );
        }
        golden.check(&dir.join(format!("{name}.{kind}32.wgsl")), &text);
        texts.push(text);
    }
    golden.finish();
    texts
}

/// The kernel of the spec's rules that WGSL alone would break (float-to-integer casts, a
/// constant zero divisor, a constant shift count of 32 or more, `barrier()` and tensors): it
/// validates in both warp modes, and its golden WGSL is what Chromium's Tint compiles
/// (e2e/specs/wgsl.spec.ts) and lavapipe runs (runtime/tests/differential.rs).
#[test]
fn the_spec_edges_wgsl_would_break_compile_and_keep_the_rules() {
    for text in golden_test_kernel("edges", &["storageBarrier();\n"]) {
        // Two barrier()s and a CTA reduction, which is a barrier for tensors too (issue 51:
        // its WGSL had only workgroupBarrier(), which orders workgroup memory alone).
        assert_eq!(text.matches("storageBarrier();").count(), 3, "{text}");
        // Constants that are NaN or infinite are read at run time, not folded (issue 51).
        assert!(!text.contains("(0f / 0f)"), "{text}");
        // The saturating cast's bound and its NaN test.
        assert!(
            text.contains("2147483600f") || text.contains("2147483648f"),
            "{text}"
        );
        assert!(
            text.contains("4294967300f") || text.contains("4294967296f"),
            "{text}"
        );
    }
}

/// `f16` (tests/wgsl/half.tsr): its tensors are u32 words, a written one atomic, its stores an
/// atomicAnd and an atomicOr on the word, and no f16 type or pack2x16float anywhere (so it runs
/// on every device).
#[test]
fn f16_wgsl_keeps_halves_in_words_and_rounds_in_integers() {
    let expected = [
        "var<storage> H: array<u32>;",
        "var<storage, read_write> R: array<atomic<u32>>;",
        "atomicAnd(",
        "atomicOr(",
    ];
    for text in golden_test_kernel("half", &expected) {
        assert!(!text.contains("enable f16"), "{text}");
        assert!(!text.contains("pack2x16float"), "{text}");
    }
}

/// 64-bit integers (tests/wgsl/wide.tsr): no 64-bit type anywhere (WGSL has none), each
/// tensor u32 words, two an element, and the 64-bit atomic_add two atomicAdds on words.
#[test]
fn wide_wgsl_keeps_64_bit_integers_in_words() {
    let expected = [
        "var<storage> A: array<u32>;",
        "var<storage, read_write> T: array<atomic<u32>>;",
        "atomicAdd(",
    ];
    for text in golden_test_kernel("wide", &expected) {
        assert!(!text.contains("i64") && !text.contains("u64"), "{text}");
        assert_eq!(text.matches("atomicAdd(").count(), 2, "{text}");
    }
}

/// 8-bit tensors (tests/wgsl/bytes.tsr): u32 words of four bytes, a written one atomic, each
/// store an atomicAnd and an atomicOr on its word.
#[test]
fn eight_bit_wgsl_keeps_bytes_in_words() {
    golden_test_kernel(
        "bytes",
        &[
            "var<storage, read_write> B: array<atomic<u32>>;",
            "atomicAnd(",
            "atomicOr(",
        ],
    );
}

/// Atomics (tests/wgsl/atomics.tsr): the tensors and tiles they change are atomic storage,
/// read and written through atomicLoad / atomicStore, and the f32 add is a compare-exchange
/// loop on the bits.
#[test]
fn atomics_wgsl_has_atomic_storage_and_a_float_add_loop() {
    golden_test_kernel(
        "atomics",
        &[
            "var<storage> X: array<i32>;",
            "var<storage, read_write> S: array<atomic<i32>>;",
            "var<storage, read_write> F: array<atomic<u32>>;",
            // Seen is only stored to: plain storage.
            "var<storage, read_write> Seen: array<u32>;",
            "var<workgroup> tile0_bins: array<atomic<i32>, 8>;",
            "var<workgroup> tile2_half: array<atomic<u32>, 1>;",
            "atomicStore((&tile0_bins[",
            "atomicSub((&S[",
            "atomicCompareExchangeWeak((&Claim[",
            "atomicLoad((&tile2_half[",
            ".exchanged",
        ],
    );
}

/// The WGSL a run sends to a GPU: loops guarded (the run's step limit as the budget). Golden
/// files too, so Chromium checks their uniformity (e2e/specs/wgsl.spec.ts): the examples whose
/// IR has a loop (the source's, or one a tile or a CTA scan lowers to), in subgroup mode and
/// with 32-lane warps emulated.
#[test]
fn golden_guarded_wgsl_for_every_example_with_a_loop() {
    let mut golden = Golden::default();
    let mut guarded = 0;
    for (name, source) in examples() {
        let compilation = compiler_core::compile(&source);
        let Ok(kernel) = compilation.kernel(None) else {
            panic!("{name}: no kernel");
        };
        let mut loops = false;
        kernel.visit(&mut |kind| loops |= matches!(kind, StmtKind::Loop { .. }));
        if !loops {
            continue;
        }
        for (lanes, mode, kind) in [
            (32, WarpMode::Subgroups, "guarded-lanes"),
            (32, WarpMode::Emulated, "guarded-emulated"),
        ] {
            let wgsl = match wgsl::emit(kernel, lanes, mode, wgsl::Guard::Trips(4096)) {
                Ok(wgsl) => wgsl,
                Err(diagnostic) => panic!("{name}: {diagnostic:?}"),
            };
            let Some(layout) = &wgsl.guard else {
                panic!("{name}: no guard");
            };
            assert_eq!(layout.binding, wgsl.uniform_binding + 1, "{name}");
            assert!(!layout.loops.is_empty(), "{name}: no loop numbered");
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("tests/wgsl/{name}.{kind}{lanes}.wgsl"));
            golden.check(&path, &wgsl.browser_text());
            guarded += 1;
        }
    }
    assert!(guarded >= 10, "{guarded}");
    golden.finish();
}

#[test]
fn bindings_are_documented_and_read_only_tensors_are_marked() {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/saxpy.tsr"),
    )
    .unwrap_or_default();
    let Ok(wgsl) = compiler_core::compile(&source).wgsl(None, 32, WarpMode::Subgroups) else {
        panic!("saxpy")
    };
    assert!(wgsl.text.contains("// @group(0): @binding(0) X (read), @binding(1) Y (read_write); @binding(2) uniform params: N, alpha."), "{}", wgsl.text);
    assert!(
        wgsl.text.contains("var<storage> X: array<f32>;"),
        "{}",
        wgsl.text
    );
    assert!(
        wgsl.text
            .contains("var<storage, read_write> Y: array<f32>;"),
        "{}",
        wgsl.text
    );
    assert!(
        wgsl.text
            .contains("@compute @workgroup_size(128, 1, 1) \nfn tessera_saxpy("),
        "{}",
        wgsl.text
    );
    assert!(!wgsl.uses_subgroups);
    assert!(!wgsl.browser_text().starts_with("enable subgroups;"));
    let matvec = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/matvec.tsr"),
    )
    .unwrap_or_default();
    let Ok(wgsl) = compiler_core::compile(&matvec).wgsl(None, 32, WarpMode::Subgroups) else {
        panic!("matvec")
    };
    assert!(wgsl
        .browser_text()
        .starts_with("enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n"));
    assert!(wgsl.text.contains("subgroupAdd("), "{}", wgsl.text);
}

#[test]
fn wgsl_lines_map_back_to_the_source() {
    let source =
        std::fs::read_to_string(common::root().join("examples/matvec.tsr")).unwrap_or_default();
    let Ok(wgsl) = compiler_core::compile(&source).wgsl(None, 32, WarpMode::Subgroups) else {
        panic!("matvec")
    };
    let lines: Vec<&str> = wgsl.text.lines().collect();
    let reduce = lines
        .iter()
        .position(|l| l.contains("subgroupAdd("))
        .map(|i| i + 1)
        .unwrap_or(0);
    let mapped = wgsl
        .line_map
        .iter()
        .find(|(line, _)| *line == reduce)
        .map(|(_, span)| &source[span.range()]);
    assert_eq!(mapped, Some("sum<over ctx.lane>(acc)"), "{}", wgsl.text);
    assert!(wgsl.line_map.len() > 20);
}

#[test]
fn every_example_validates_with_emulated_warps() {
    let mut failures = Vec::new();
    for (name, source) in examples() {
        for lanes in [8, 32] {
            let emulated = WarpMode::Emulated;
            match compiler_core::compile(&source).wgsl(None, lanes, emulated) {
                Ok(wgsl) => {
                    assert!(wgsl.emulated && !wgsl.uses_subgroups, "{name}");
                    assert!(!wgsl.text.contains("subgroup"), "{name} uses subgroups");
                }
                Err(diagnostics) => failures.push(format!(
                    "{name} (lanes {lanes}): {}",
                    diagnostics[0].message
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every kernel of every program example validates in both warp modes.
#[test]
fn every_program_kernel_validates_in_both_modes() {
    for example in compiler_core::examples::programs() {
        let compilation = compiler_core::compile(example.source);
        for kernel in compilation.kernel_names() {
            for mode in [WarpMode::Subgroups, WarpMode::Emulated] {
                if let Err(d) = compilation.wgsl(Some(&kernel), 32, mode) {
                    panic!("{} {kernel} {mode:?}: {d:?}", example.name);
                }
            }
        }
    }
}
