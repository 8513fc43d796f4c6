//! UI tests as data: each `tests/ui/NAME.tsr` is compiled and its rendered diagnostics are
//! compared with `tests/ui/NAME.stderr` (empty when the kernel is correct).
//!
//! Refresh every golden file with `TESSERA_BLESS=1 cargo test -p compiler-core --test ui`, then
//! review the diff like code.

use compiler_core::diagnostic::{render_all, Code};
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
    match compiler_core::syntax::decode(&bytes) {
        Ok(source) => render_all(&compiler_core::compile(source).diagnostics, source, &name),
        Err(diagnostic) => render_all(&[diagnostic], &String::from_utf8_lossy(&bytes), &name),
    }
}

#[test]
fn ui_golden_files() {
    let bless = std::env::var_os("TESSERA_BLESS").is_some();
    let mut failures = Vec::new();
    let cases = cases();
    assert!(!cases.is_empty(), "no UI cases found");
    for case in &cases {
        let actual = rendered(case);
        let golden = case.with_extension("stderr");
        if bless {
            std::fs::write(&golden, &actual)
                .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if actual != expected {
            failures.push(format!(
                "--- {} (expected)\n{expected}\n+++ actual\n{actual}",
                golden.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} UI case(s) differ (TESSERA_BLESS=1 refreshes them):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
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
        .map(|c| c.as_str())
        // E0106 needs a source over 1 MiB (`tests/robustness.rs` covers it); E05xx come from
        // lowering and running (`tests/faults.rs` covers them).
        .filter(|c| !seen.contains(c) && *c != "E0106" && !c.starts_with("E05"))
        .collect();
    assert!(missing.is_empty(), "codes without a UI case: {missing:?}");
}
