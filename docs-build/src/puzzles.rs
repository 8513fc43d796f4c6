//! Puzzles: graded exercises, one file each in `content/puzzles/` (the format is in
//! `content/README.md`).
//!
//! In: a file's TOML front matter (title, order, a byline, and a `[puzzle]` table: the launch,
//! the starter, the solution, the reference kernel, hints and rules) and its Markdown story.
//! Out: [`Puzzle`]s with the launch resolved against the reference kernel; each as a docs
//! [`Page`] in the section "Puzzles" ([`page`]: the story, then where the workbench goes) and as
//! the [`Exercise`] the puzzles' module shows and grades ([`exercise`]);
//! and [`check`], which the test command runs: every solution passes its puzzle's grading
//! ([`compiler_core::grade`]), every starter compiles and does not.

use crate::{launch_words, Block, Byline, Page};
use compiler_core::grade::{self, Exercise, Rules, Verdict};
use compiler_core::launch::Launch;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One puzzle, ready to grade.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Puzzle {
    /// Its page's slug, `/docs/{slug}`: `puzzle-` and the file's name without its number and
    /// `.md` (`05-warp-shuffles.md` is `puzzle-warp-shuffles`), so renumbering keeps links.
    pub slug: String,
    pub title: String,
    pub order: u32,
    pub summary: String,
    pub byline: Option<Byline>,
    /// The story, as Markdown.
    pub story: String,
    pub launch: Launch,
    /// The launch words it was resolved from.
    pub launch_words: String,
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
    byline: Option<Byline>,
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
    let name = slug.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-');
    Ok(Puzzle {
        slug: format!("puzzle-{name}"),
        title: file.title,
        order: file.order,
        summary: file.summary,
        byline: file.byline,
        story: story.trim().to_owned(),
        launch,
        launch_words: data.launch,
        starter: data.starter,
        solution: data.solution,
        reference: data.reference,
        hints: data.hints,
        rules: data.rules,
        starter_fails: data.starter_fails,
    })
}

/// Puzzles come after every other page, in their own order.
const FIRST_ORDER: u32 = 1000;

/// `puzzle` as a page of the docs: its title as the heading, the story, then the workbench.
pub fn page(puzzle: &Puzzle) -> Result<Page, String> {
    let body = crate::render::body(&format!("# {}\n\n{}", puzzle.title, puzzle.story))?;
    let mut blocks = body.blocks;
    blocks.push(Block::Puzzle(puzzle.slug.clone()));
    Ok(Page {
        slug: puzzle.slug.clone(),
        title: puzzle.title.clone(),
        section: "Puzzles".to_owned(),
        order: FIRST_ORDER + puzzle.order,
        summary: puzzle.summary.clone(),
        byline: puzzle.byline.clone(),
        headings: body.headings,
        blocks,
        links: body.links,
        text: body.text,
    })
}

/// What the puzzles' module shows of `puzzle` and grades attempts with; the hints as HTML.
pub fn exercise(puzzle: &Puzzle) -> Exercise {
    Exercise {
        starter: puzzle.starter.clone(),
        solution: puzzle.solution.clone(),
        reference: puzzle.reference.clone(),
        launch: puzzle.launch.clone(),
        launch_words: puzzle.launch_words.clone(),
        rules: puzzle.rules.clone(),
        hints: puzzle
            .hints
            .iter()
            .map(|h| crate::render::inline_html(h))
            .collect(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"+++
title = "A lane's own element"
order = 4
summary = "One line."

[byline]
written_by = "A"
reviewed_by = "B"

[puzzle]
starter_fails = "wrong"
launch = "grid=2 N=64 X=iota"
hints = ["Use `ctx.lane`.", "Then `ctx.warp`."]
starter = '''
@launch(32)
kernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  Y[ctx.block.x * 32 + ctx.thread] = 0
}
'''
solution = '''
@launch(32)
kernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  Y[ctx.block.x * 32 + ctx.lane] = X[ctx.block.x * 32 + ctx.lane]
}
'''
reference = '''
@launch(32)
kernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  let i = ctx.block.x * 32 + ctx.thread
  Y[i] = X[i]
}
'''
[puzzle.rules]
no_tiles = true
+++

Copy `X` into `Y`, a [lane](/docs/glossary) at a time.
"#;

    #[test]
    fn a_puzzle_is_a_page_of_its_section_with_its_workbench_last() {
        let puzzle = parse("04-lane", FILE).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(puzzle.slug, "puzzle-lane");
        let page = page(&puzzle).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (page.slug.as_str(), page.section.as_str(), page.order),
            ("puzzle-lane", "Puzzles", 1004)
        );
        assert_eq!(page.headings.first().map(|h| h.level), Some(1));
        assert_eq!(page.links, ["/docs/glossary"]);
        assert_eq!(
            page.blocks.last(),
            Some(&Block::Puzzle("puzzle-lane".to_owned()))
        );
        // The module shows and grades what the build hands it: the same verdicts as the docs
        // build's check.
        let exercise = exercise(&puzzle);
        assert_eq!(exercise.launch_words, "grid=2 N=64 X=iota");
        assert_eq!(exercise.rules.describe(), ["no tile in shared memory"]);
        assert_eq!(exercise.hints[0], "<p>Use <code>ctx.lane</code>.</p>\n");
        assert_eq!(exercise.grade(&exercise.solution), Ok(Verdict::Pass));
        assert!(matches!(
            exercise.grade(&exercise.starter),
            Ok(Verdict::Wrong { .. })
        ));
    }
}
