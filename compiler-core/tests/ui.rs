//! UI tests as data: each `tests/ui/NAME.tsr` is compiled and its rendered diagnostics are
//! compared with `tests/ui/NAME.stderr` (empty when the kernel is correct).
//!
//! Refresh every golden file with `TESSERA_BLESS=1 cargo test -p compiler-core --test ui`, then
//! review the diff like code.

mod common;

use common::Golden;
use compiler_core::diagnostic::{render_all, Code, Phase};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "tsr"))
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}

fn rendered(case: &Path) -> String {
    let bytes = std::fs::read(case).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
    let name = case
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let compilation = compiler_core::compile_bytes(&bytes);
    render_all(&compilation.diagnostics, compilation.source(), &name)
}

#[test]
fn ui_golden_files() {
    let cases = cases();
    assert!(!cases.is_empty(), "no UI cases found");
    let mut golden = Golden::default();
    for case in &cases {
        golden.check(&case.with_extension("stderr"), &rendered(case));
    }
    golden.finish();
}

#[test]
fn every_code_has_a_ui_case() {
    let mut seen = BTreeSet::new();
    for case in cases() {
        let golden = std::fs::read_to_string(case.with_extension("stderr")).unwrap_or_default();
        for code in Code::ALL {
            if golden.contains(&format!("[{}]", code.as_str())) {
                seen.insert(code.as_str());
            }
        }
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .copied()
        // E0106 needs a source over 1 MiB (`tests/robustness.rs` covers it); lowering,
        // launching and running need a launch (`tests/faults.rs` covers them).
        .filter(|c| !seen.contains(c.as_str()) && *c != Code::E0106)
        .filter(|c| !c.phase().needs_a_launch() && c.phase() != Phase::Backend)
        .map(|c| c.as_str())
        .collect();
    assert!(missing.is_empty(), "codes without a UI case: {missing:?}");
}
