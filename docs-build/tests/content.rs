//! The content check over the real `content/`: every kernel compiles or fails as the page says,
//! every link and anchor resolves, every page has a title and a byline, the error index covers
//! every code, and the prose counts the puzzles there are.

use std::path::Path;

#[test]
fn the_docs_say_only_what_the_compiler_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content");
    let pages = docs_build::load(&dir).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    let problems = docs_build::check(&pages);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(pages.len() >= 10, "only {} pages", pages.len());
}

/// Every puzzle's solution passes its checks, and its starter compiles and fails as the puzzle
/// says (a wrong element, a broken rule, a fault); at least fourteen puzzles.
#[test]
fn every_puzzle_is_solvable_and_its_starter_is_not_solved() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/puzzles");
    let puzzles = docs_build::puzzles::load(&dir).unwrap_or_else(|e| panic!("{}", e.join("\n")));
    let problems: Vec<String> = puzzles
        .iter()
        .flat_map(docs_build::puzzles::check)
        .collect();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(puzzles.len() >= 14, "only {} puzzles", puzzles.len());
}

/// The repository's README counts the puzzles as the pages do (the content check holds the
/// pages to it).
#[test]
fn the_readme_counts_the_puzzles_there_are() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let puzzles = docs_build::puzzles::load(&root.join("content/puzzles"))
        .unwrap_or_else(|e| panic!("{}", e.join("\n")));
    let readme = std::fs::read_to_string(root.join("README.md"))
        .unwrap_or_else(|e| panic!("README.md: {e}"));
    let said = docs_build::check::puzzle_counts(&readme);
    assert!(
        said.iter().all(|&n| n == puzzles.len()),
        "README.md says {said:?} puzzles; there are {}",
        puzzles.len()
    );
}
