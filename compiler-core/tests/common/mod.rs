//! Helpers shared by the integration tests.
// Each test binary includes this module and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `examples/*.tsr`, as (name without extension, source), sorted by name.
pub fn examples() -> Vec<(String, String)> {
    let dir = root().join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsr"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, std::fs::read_to_string(&p).unwrap_or_default())
        })
        .collect()
}

/// Golden files: each output is compared with the file that holds what it should be, or, with
/// `TESSERA_BLESS=1` set, written to it (then review the diff like code). [`Golden::finish`]
/// fails once, naming every file that differs and the first line where it does.
#[derive(Default)]
pub struct Golden {
    differ: Vec<String>,
}

impl Golden {
    pub fn check(&mut self, golden: &Path, actual: &str) {
        if std::env::var_os("TESSERA_BLESS").is_some() {
            std::fs::write(golden, actual).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
            return;
        }
        let expected = std::fs::read_to_string(golden).unwrap_or_default();
        if expected == actual {
            return;
        }
        let (expected_lines, actual_lines): (Vec<&str>, Vec<&str>) =
            (expected.lines().collect(), actual.lines().collect());
        let line = (0..expected_lines.len().max(actual_lines.len()))
            .find(|&i| expected_lines.get(i) != actual_lines.get(i))
            .unwrap_or(0);
        self.differ.push(format!(
            "{}:{}\n  expected: {}\n  actual:   {}",
            golden.display(),
            line + 1,
            expected_lines.get(line).unwrap_or(&"(end of file)"),
            actual_lines.get(line).unwrap_or(&"(end of output)"),
        ));
    }

    pub fn finish(self) {
        assert!(
            self.differ.is_empty(),
            "{} golden file(s) differ (TESSERA_BLESS=1 refreshes them; review the diff):\n{}",
            self.differ.len(),
            self.differ.join("\n")
        );
    }
}
