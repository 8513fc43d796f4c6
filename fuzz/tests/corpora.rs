//! Replays every kept fuzz input (`fuzz/corpus/TARGET/` and the failures found and fixed,
//! `fuzz/regressions/TARGET/`) through the target's property: the test command's share of the
//! fuzzing, and a regression test for each crash the fuzzers found.

use std::path::Path;

fn replay(target: &str, property: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = 0;
    for folder in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder).join(target)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            let outcome = std::panic::catch_unwind(|| property(&data));
            assert!(outcome.is_ok(), "{target} fails on {}", path.display());
            inputs += 1;
        }
    }
    assert!(inputs > 0, "no inputs kept for {target}");
}

#[test]
fn the_pipeline_corpus_passes() {
    replay("pipeline", tessera_fuzz::pipeline);
}

#[test]
fn the_share_link_corpus_passes() {
    replay("share_link", tessera_fuzz::share_link);
}

#[test]
fn the_markup_corpus_passes() {
    replay("markup", tessera_fuzz::markup);
}
