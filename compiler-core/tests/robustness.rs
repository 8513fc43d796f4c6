//! No input makes the front end panic, overflow the stack or take seconds, and every span it
//! reports lies inside the source on character boundaries.

use compiler_core::syntax::{MAX_NESTING, MAX_SOURCE_BYTES};
use compiler_core::{compile, Code, Compilation};
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// A guard against hangs and blow-ups, not a performance target (those are the criterion
/// benchmarks in `benches/`, reported in BENCHMARKS.md): debug builds are slow.
const HANG: Duration = Duration::from_secs(30);

const MATVEC: &str = include_str!("ui/matvec.tsr");
const UNIFORMITY: &str = include_str!("ui/uniformity_ok.tsr");
/// Kernels to mutate: the front end's cases and examples that exercise tiles, shuffles and
/// divergent loops in the simulator.
const SEEDS: [&str; 5] = [
    MATVEC,
    UNIFORMITY,
    include_str!("../../examples/tiled_matmul.tsr"),
    include_str!("../../examples/shuffles.tsr"),
    include_str!("../../examples/collatz.tsr"),
];

/// Compiles on a thread with a small stack (like wasm's 1 MiB) and a time limit.
fn compile_bounded(source: String) -> (Compilation, Duration) {
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let start = Instant::now();
            let compilation = compile(&source);
            let spans = compilation.check_spans();
            (compilation, start.elapsed(), spans)
        });
    let joined = match handle {
        Ok(handle) => handle.join(),
        Err(error) => panic!("could not start the compile thread: {error}"),
    };
    match joined {
        Ok((compilation, elapsed, Ok(()))) => (compilation, elapsed),
        Ok((_, _, Err(message))) => panic!("{message}"),
        Err(_) => panic!("the compiler panicked"),
    }
}

fn codes(compilation: &Compilation) -> Vec<Code> {
    compilation.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn twenty_thousand_nested_parentheses_give_one_depth_error() {
    let source = format!(
        "@launch(32)\nkernel k() {{\n  let x = {}1{}\n}}\n",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    let (compilation, elapsed) = compile_bounded(source);
    assert_eq!(codes(&compilation), vec![Code::E0104]);
    assert!(elapsed < HANG, "{elapsed:?}");
}

#[test]
fn five_thousand_nested_ifs_give_one_depth_error() {
    let body = "if true {\n".repeat(5_000) + &"}\n".repeat(5_000);
    let source = format!("@launch(32)\nkernel k() {{\n{body}}}\n");
    let (compilation, elapsed) = compile_bounded(source);
    assert_eq!(codes(&compilation), vec![Code::E0104]);
    assert!(elapsed < HANG, "{elapsed:?}");
}

/// The markup fuzzer's find (fuzz/regressions/markup/nested-unclosed-indices): every index was
/// parsed twice (as `start :+ length`, then as a plain index), so calls and indices left open
/// n deep took 2^n parses: 20 deep took 4 s, 40 deep would never end.
#[test]
fn forty_unclosed_calls_and_indices_give_errors_not_a_hang() {
    let source = format!(
        "@launch(32)\nkernel k(X: tensor<f32>[N]) {{\n  let x = {}\n}}\n",
        "f(a [".repeat(40)
    );
    let (compilation, elapsed) = compile_bounded(source);
    assert!(!codes(&compilation).is_empty());
    assert!(elapsed < HANG, "{elapsed:?}");
}

#[test]
fn nesting_up_to_the_limit_is_fine() {
    let depth = MAX_NESTING - 2; // the kernel's own braces and the `let` line
    let source = format!(
        "@launch(32)\nkernel k() {{\n  let x = {}1{}\n}}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let (compilation, _) = compile_bounded(source);
    assert_eq!(codes(&compilation), Vec::<Code>::new());
}

#[test]
fn a_long_chain_of_unary_operators_is_limited() {
    let source = format!(
        "@launch(32)\nkernel k() {{\n  let x = {}1\n}}\n",
        "-".repeat(50_000)
    );
    let (compilation, _) = compile_bounded(source);
    assert_eq!(codes(&compilation), vec![Code::E0105]);
}

#[test]
fn a_megabyte_of_kernels_checks_in_well_under_seconds() {
    let mut source = String::new();
    let mut index = 0;
    while source.len() < 1_000_000 {
        source += &MATVEC.replace("kernel mv(", &format!("kernel mv{index}("));
        index += 1;
    }
    let (compilation, elapsed) = compile_bounded(source);
    assert!(
        !compilation.has_errors(),
        "{:?}",
        codes(&compilation).first()
    );
    assert_eq!(compilation.checked.kernels.len(), index);
    assert!(elapsed < HANG, "{elapsed:?}");
}

#[test]
fn a_source_over_the_limit_is_one_clear_error() {
    let source = " ".repeat(MAX_SOURCE_BYTES + 1);
    let (compilation, _) = compile_bounded(source);
    assert_eq!(codes(&compilation), vec![Code::E0106]);
}

#[test]
fn unbalanced_brackets_everywhere_never_panic() {
    for source in [
        "(((",
        ")))",
        "{{{",
        "}}}",
        "[[[",
        "]]]",
        "@launch(32) kernel k() { ( ] } ) {",
        "@",
        "kernel",
        "@launch(",
        "kernel k(",
        "kernel k() { let x = A[1 :+ ] }",
    ] {
        let (compilation, _) = compile_bounded(source.to_owned());
        assert!(compilation.has_errors(), "{source:?} gave no error");
    }
}

#[test]
fn every_example_runs_on_a_small_launch_without_panicking() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let source = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let compilation = compile(&source);
        let Ok(module) = compilation.ir() else {
            continue;
        };
        for kernel in &module.kernels {
            // Faults are fine (the dimensions are arbitrary); panics are not.
            let _ = compilation.run(&compiler_core::launch::Launch::smoke(kernel));
        }
    }
}

fn mutate(source: &str, edits: &[(usize, u8, u8)]) -> String {
    let alphabet = b"(){}[]<>:+-*/%=!&|^~@.,; \n\tabcxyz0123456789_\"ctxlanewarp";
    let mut bytes: Vec<u8> = source.bytes().collect();
    for &(position, kind, pick) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = position % bytes.len();
        let byte = alphabet[pick as usize % alphabet.len()];
        match kind % 3 {
            0 => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            _ => {
                bytes.remove(at);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    // 256 cases in the test command; `PROPTEST_CASES=20000` runs longer by hand.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,400}") {
        let compilation = compile(&source);
        prop_assert!(compilation.check_spans().is_ok());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let source = String::from_utf8_lossy(&bytes).into_owned();
        let compilation = compile(&source);
        prop_assert!(compilation.check_spans().is_ok());
    }

    #[test]
    fn mutated_kernels_never_panic(
        which in 0usize..SEEDS.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..12),
    ) {
        let source = mutate(SEEDS[which], &edits);
        let compilation = compile(&source);
        if let Err(message) = compilation.check_spans() {
            prop_assert!(false, "{}\n{}", message, source);
        }
        // What the checker accepts lowers (or says it cannot yet) and runs on the simulator
        // (or faults) without panicking.
        if let Ok(module) = compilation.ir() {
            for kernel in &module.kernels {
                let launch = compiler_core::launch::Launch::smoke(kernel);
                let _ = compilation.run(&launch);
            }
        }
    }

    /// The editor's queries at any offset of a mutated kernel never panic; a rename they allow
    /// compiles with no more errors; formatting gives a fixed point with the same diagnostics.
    #[test]
    fn editing_a_mutated_kernel_never_panics(
        which in 0usize..SEEDS.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..12),
        at in any::<usize>(),
    ) {
        let source = mutate(SEEDS[which], &edits);
        let compilation = compile(&source);
        let offset = at % (source.len() + 1);
        let _ = compilation.signature_help(offset);
        if let Some(spans) = compilation.references(offset) {
            prop_assert!(spans.iter().all(|s| s.end <= source.len() && source.is_char_boundary(s.start)));
            if let Ok(spans) = compilation.rename(offset, "renamed_") {
                let mut renamed = source.clone();
                let mut ordered = spans.clone();
                ordered.sort_by_key(|s| std::cmp::Reverse(s.start));
                for s in ordered {
                    renamed.replace_range(s.start..s.end, "renamed_");
                }
                let errors = |c: &Compilation| c.diagnostics.iter().filter(|d| d.is_error()).count();
                prop_assert!(errors(&compile(&renamed)) <= errors(&compilation), "{}", renamed);
            }
        }
        if let Ok(formatted) = compiler_core::format(&source) {
            prop_assert_eq!(compiler_core::format(&formatted).ok(), Some(formatted.clone()));
            prop_assert_eq!(codes(&compile(&formatted)), codes(&compilation), "{}", formatted);
        }
    }
}
