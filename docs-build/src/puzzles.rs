//! Puzzles: graded exercises, one file each in `content/puzzles/` (the format is in
//! `content/README.md`).
//!
//! In: a file's TOML front matter (title, order, and a `[puzzle]` table: the launch, the
//! starter, the solution, the reference kernel, hints and rules) and its Markdown story. Out:
//! [`Puzzle`]s with the launch resolved against the reference kernel, and [`check`], which the
//! test command runs: every solution passes its puzzle's grading ([`compiler_core::grade`]),
//! every starter compiles and does not.

use crate::launch_words;
use compiler_core::grade::{self, Rules, Verdict};
use compiler_core::launch::Launch;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One puzzle, ready to grade.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Puzzle {
    /// The file's name without `.md`: its place in URLs.
    pub slug: String,
    pub title: String,
    pub order: u32,
    pub summary: String,
    /// The story, as Markdown.
    pub story: String,
    pub launch: Launch,
    pub starter: String,
    pub solution: String,
    pub reference: String,
    /// Shown one at a time, in order.
    pub hints: Vec<String>,
    pub rules: Rules,
    /// How the starter fails: `wrong`, `rule` or `broken` (a [`Verdict`]'s kind).
    pub starter_fails: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PuzzleFile {
    title: String,
    order: u32,
    summary: String,
    puzzle: PuzzleData,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PuzzleData {
    /// Launch words, as a docs kernel block's (`grid=4 N=1000 X=rand:1`).
    launch: String,
    starter: String,
    solution: String,
    reference: String,
    #[serde(default)]
    hints: Vec<String>,
    #[serde(default)]
    rules: Rules,
    starter_fails: String,
}

/// Every puzzle in `dir`, in order; or what is wrong with the files.
pub fn load(dir: &Path) -> Result<Vec<Puzzle>, Vec<String>> {
    let files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| vec![format!("{}: {e}", dir.display())])?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    let mut puzzles = crate::render::parse_each(files, parse)?;
    puzzles.sort_by_key(|p| p.order);
    Ok(puzzles)
}

/// One puzzle file.
pub fn parse(slug: &str, text: &str) -> Result<Puzzle, String> {
    let (file, story) = crate::render::front_matter::<PuzzleFile>(text)?;
    let data = file.puzzle;
    let compilation = compiler_core::compile(&data.reference);
    let kernel = compilation
        .kernel(None)
        .map_err(|d| format!("the reference kernel does not compile: {d:?}"))?;
    let words: Vec<(String, String)> = data
        .launch
        .split_whitespace()
        .map(|word| match word.split_once('=') {
            Some((key, value)) => Ok((key.to_owned(), value.to_owned())),
            None => Err(format!("launch word `{word}` is not key=value")),
        })
        .collect::<Result<_, _>>()?;
    let launch = launch_words::resolve(&words, kernel)?;
    Ok(Puzzle {
        slug: slug.to_owned(),
        title: file.title,
        order: file.order,
        summary: file.summary,
        story: story.trim().to_owned(),
        launch,
        starter: data.starter,
        solution: data.solution,
        reference: data.reference,
        hints: data.hints,
        rules: data.rules,
        starter_fails: data.starter_fails,
    })
}

/// What is wrong with `puzzle`: its solution must pass, its starter must compile without a
/// diagnostic and fail as `starter_fails` says, and it needs a story and a hint.
pub fn check(puzzle: &Puzzle) -> Vec<String> {
    let mut problems = Vec::new();
    let name = &puzzle.slug;
    let grade =
        |source: &str| grade::grade(source, &puzzle.reference, &puzzle.launch, &puzzle.rules);
    match grade(&puzzle.solution) {
        Ok(Verdict::Pass) => {}
        Ok(verdict) => problems.push(format!("{name}: the solution does not pass: {verdict:?}")),
        Err(why) => problems.push(format!("{name}: {why}")),
    }
    let starter = compiler_core::compile(&puzzle.starter);
    if !starter.diagnostics.is_empty() {
        problems.push(format!(
            "{name}: the starter does not compile: {:?}",
            starter.diagnostics
        ));
    }
    match grade(&puzzle.starter).map(|v| kind(&v)) {
        Ok(kind) if kind == puzzle.starter_fails => {}
        Ok(kind) => problems.push(format!(
            "{name}: the starter's verdict is `{kind}`, not `{}` as the puzzle says",
            puzzle.starter_fails
        )),
        Err(why) => problems.push(format!("{name}: {why}")),
    }
    if puzzle.story.is_empty() {
        problems.push(format!("{name}: no story"));
    }
    if puzzle.hints.is_empty() {
        problems.push(format!("{name}: no hint"));
    }
    problems
}

/// A verdict's kind, as `starter_fails` names it.
fn kind(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "pass",
        Verdict::Broken { .. } => "broken",
        Verdict::Parameters { .. } => "parameters",
        Verdict::Wrong { .. } => "wrong",
        Verdict::Rule { .. } => "rule",
    }
}
