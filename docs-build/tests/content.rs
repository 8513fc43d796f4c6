//! The content check over the real `content/`: every kernel compiles or fails as the page says,
//! every link and anchor resolves, every page has a title and a byline, the error index covers
//! every code.

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
