//! The content check: the docs say only what the compiler does.
//!
//! Every page has a title and a byline block; every kernel compiles without a problem, or fails
//! with exactly the code it says (`expect=E0112`; run-time codes by running its launch on the
//! simulator), and its diagnostic holds the words the prose quotes from it (`says="…"`); a
//! kernel with a launch runs; every diagram directive is one the diagram draws; every link
//! inside the site resolves, anchors included; the error index has an entry for every code the
//! compiler can give; and a number of puzzles the prose prints ("eighteen exercises") is how
//! many there are.

use crate::{Block, KernelBlock, Page};
use compiler_core::diagnostic::{Code, Phase};
use compiler_core::launch::Launch;
use compiler_core::ptx::Arch;
use compiler_core::share::Stepping;
use compiler_core::{Diagnostic, RunLimits};

/// Codes no kernel block can show: a source over 1 MiB, bytes that are not UTF-8, a line
/// ended by a carriage return alone (Markdown makes it a line break), and the WGSL backend's
/// own bug report. Their index entries explain them in prose.
/// E0512 too: the checker refuses, with E0401, every source that could reach it; and E0501,
/// which no kernel reaches since `f16` runs.
pub const CODES_WITHOUT_EXAMPLES: [&str; 6] =
    ["E0106", "E0107", "E0109", "E0501", "E0512", "E0520"];

/// The slug of the error index.
pub const ERROR_INDEX: &str = "errors";

/// Everything wrong with the pages, as `page: problem` lines; empty when all is well.
pub fn check(pages: &[Page]) -> Vec<String> {
    let mut problems = Vec::new();
    for page in pages {
        let mut say = |what: String| problems.push(format!("{}: {what}", page.slug));
        if page.title.trim().is_empty() {
            say("no title".into());
        }
        if page.byline.is_none() {
            say("no byline block ([byline] in the front matter)".into());
        }
        for (i, block) in page.blocks.iter().enumerate() {
            match block {
                Block::Kernel(kernel) => {
                    if let Err(e) = check_kernel(kernel) {
                        say(format!(
                            "kernel {} ({}…): {e}",
                            i,
                            first_line(&kernel.source)
                        ));
                    }
                }
                Block::Diagram(params) => {
                    if let Err(e) = diagram::DiagramConfig::from_params(params) {
                        say(format!("diagram `{params}`: {e}"));
                    }
                }
                Block::Occupancy(Err(why)) => say(format!("occupancy: {why}")),
                // A puzzle is graded by `puzzles::check`.
                Block::Html(_) | Block::Occupancy(Ok(_)) | Block::Puzzle(_) | Block::LaneMap => {}
            }
        }
        for link in &page.links {
            if let Err(e) = resolve(link, page, pages) {
                say(format!("link {link}: {e}"));
            }
        }
    }
    problems.extend(check_error_index(pages));
    problems.extend(check_puzzle_counts(pages));
    problems
}

/// Every number of puzzles a page prints, in its summary or its text, is how many puzzle pages
/// there are.
fn check_puzzle_counts(pages: &[Page]) -> Vec<String> {
    let puzzles = pages.iter().filter(|p| p.entry().puzzle).count();
    let mut problems = Vec::new();
    for page in pages {
        for said in puzzle_counts(&page.summary)
            .into_iter()
            .chain(puzzle_counts(&page.text))
        {
            if said != puzzles {
                problems.push(format!(
                    "{}: says there are {said} puzzles, but there are {puzzles}",
                    page.slug
                ));
            }
        }
    }
    problems
}

/// The numbers of puzzles a text prints: a number, in figures or a word up to twenty, before
/// `puzzles` or `exercises`, or before `graded` and one of them ("sixteen graded puzzles").
pub fn puzzle_counts(text: &str) -> Vec<usize> {
    const WORDS: &str = "zero one two three four five six seven eight nine ten eleven twelve \
                         thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty";
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let number = |word: &str| {
        word.parse::<usize>()
            .ok()
            .or_else(|| WORDS.split_whitespace().position(|w| w == word))
    };
    let counted = |word: Option<&String>| word.is_some_and(|w| w == "puzzles" || w == "exercises");
    words
        .iter()
        .enumerate()
        .filter_map(|(i, word)| {
            let n = number(word)?;
            let next = words.get(i + 1);
            (counted(next) || next.is_some_and(|w| w == "graded") && counted(words.get(i + 2)))
                .then_some(n)
        })
        .collect()
}

fn first_line(source: &str) -> &str {
    source
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        .unwrap_or("")
}

/// Whether one kernel block does what the page says.
pub fn check_kernel(block: &KernelBlock) -> Result<(), String> {
    let compilation = compiler_core::compile(&block.source);
    let errors: Vec<&str> = compilation
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.as_str())
        .collect();
    let expected = match block.expect.as_deref() {
        Some(text) => {
            Some(Code::parse(text).ok_or_else(|| format!("`expect={text}` is not a code"))?)
        }
        None => None,
    };
    if block.step.is_some() && !block.view.runnable {
        return Err("`step=` needs a kernel that runs".into());
    }
    let says = block.view.says.as_deref();
    match (says, expected) {
        (Some(""), _) => return Err("`says=` quotes nothing".into()),
        (Some(_), None) => return Err("`says=` needs `expect=`: it quotes a diagnostic".into()),
        _ => {}
    }
    if let Some(Err(why)) = &block.view.memory {
        return Err(format!("`profile` needs a run that finishes: {why}"));
    }
    let found_by_a_launch = expected.is_some_and(|c| c.phase().needs_a_launch());
    if let Some(code) = expected.filter(|c| c.phase() == Phase::Backend) {
        return check_backends(&compilation, code, says);
    }
    match expected {
        // A warning: the kernel compiles and the warning is among its diagnostics.
        Some(code) if code.is_warning() => {
            if !errors.is_empty() {
                return Err(format!(
                    "should warn with {}, but fails with {}",
                    code.as_str(),
                    errors.join(", ")
                ));
            }
            if !compilation.diagnostics.iter().any(|d| d.code == code) {
                return Err(format!("should warn with {}, but does not", code.as_str()));
            }
            return quotes(
                compilation.diagnostics.iter().filter(|d| d.code == code),
                says,
            );
        }
        Some(code) if !found_by_a_launch => {
            let code = code.as_str();
            if errors.is_empty() {
                return Err(format!("should fail with {code}, but compiles"));
            }
            if errors.iter().any(|e| *e != code) {
                return Err(format!(
                    "should fail with {code} only, gives {}",
                    errors.join(", ")
                ));
            }
            return quotes(
                compilation.diagnostics.iter().filter(|d| d.is_error()),
                says,
            );
        }
        // A kernel that shows a run-time problem may carry the lints that foretell it.
        Some(_) if !errors.is_empty() => {
            return Err(format!("does not compile: {}", errors.join(", ")));
        }
        None if !compilation.diagnostics.is_empty() => {
            return Err(format!(
                "does not compile cleanly: {}",
                listed(&compilation.diagnostics)
            ));
        }
        _ => {}
    }
    let launch = block.launch.as_ref().map_err(Clone::clone)?;
    let launch: Launch =
        serde_json::from_str(launch).map_err(|e| format!("the launch does not read back: {e}"))?;
    let stepping = block
        .step
        .as_ref()
        .and_then(|s| serde_json::from_str::<Stepping>(&s.stepping).ok());
    if let (Some(at), Ok(kernel)) = (stepping, compilation.kernel(launch.kernel.as_deref())) {
        let warps = kernel.threads.div_ceil(launch.lanes.max(1));
        if at.warp >= warps {
            return Err(format!(
                "`step=…,{}`: a CTA of {} threads has {warps} warps",
                at.warp, kernel.threads
            ));
        }
    }
    if compilation.runs_a_program(launch.kernel.as_deref()) {
        return check_program(&compilation, &launch, expected, says);
    }
    if !block.view.runnable && !found_by_a_launch {
        return Ok(());
    }
    let prepared = compilation.prepare(&launch, RunLimits::TERMINAL);
    let outcome = prepared
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|prepared| {
            let output = prepared.simulate_recording().map_err(|d| vec![d])?;
            Ok(output.unwritten(prepared.kernel).unwrap_or_default())
        });
    match (outcome, expected) {
        // A launch that leaves part of an output as it was shows the reader a wrong result.
        (Ok(unwritten), None) if !unwritten.is_empty() => Err(format!(
            "its launch leaves outputs unwritten: {}",
            unwritten.join("; ")
        )),
        (Ok(_), None) => Ok(()),
        (Ok(_), Some(code)) => Err(format!("should stop with {}, but runs", code.as_str())),
        (Err(d), Some(code)) if d.iter().all(|d| d.code == code) => quotes(d.iter(), says),
        (Err(d), _) => Err(format!("the run stops: {}", listed(&d))),
    }
}

/// Whether one of the diagnostics a kernel fails with holds the words the page quotes from it
/// (`says=`; nothing to find without it).
fn quotes<'a>(
    diagnostics: impl Iterator<Item = &'a Diagnostic>,
    says: Option<&str>,
) -> Result<(), String> {
    let Some(says) = says else {
        return Ok(());
    };
    let messages: Vec<&str> = diagnostics.map(|d| d.message.as_str()).collect();
    if messages.iter().any(|m| m.contains(says)) {
        Ok(())
    } else {
        Err(format!(
            "the page quotes \"{says}\", but the diagnostic says: {}",
            messages.join("; ")
        ))
    }
}

/// A program block: its launch runs to the end, or stops with the code the page expects.
fn check_program(
    compilation: &compiler_core::Compilation,
    launch: &Launch,
    expected: Option<Code>,
    says: Option<&str>,
) -> Result<(), String> {
    let outcome = compilation
        .prepare_program(launch, RunLimits::TERMINAL)
        .and_then(|p| p.simulate().map(|_| ()).map_err(|d| vec![d]));
    match (outcome, expected) {
        (Ok(()), None) => Ok(()),
        (Ok(()), Some(code)) => Err(format!("should stop with {}, but runs", code.as_str())),
        (Err(d), Some(code)) if d.iter().all(|d| d.code == code) => quotes(d.iter(), says),
        (Err(d), _) => Err(format!("the program stops: {}", listed(&d))),
    }
}

/// A kernel that compiles, and that a backend refuses with `code` (for PTX, on some target).
fn check_backends(
    compilation: &compiler_core::Compilation,
    code: Code,
    says: Option<&str>,
) -> Result<(), String> {
    if compilation.has_errors() {
        return Err(format!(
            "does not compile cleanly: {}",
            listed(&compilation.diagnostics)
        ));
    }
    let refused: Vec<Diagnostic> = Arch::ALL
        .into_iter()
        .filter_map(|arch| compilation.ptx(None, arch).err())
        .flatten()
        .filter(|d| d.code == code)
        .collect();
    if refused.is_empty() {
        Err(format!(
            "should be refused by a backend with {}, but is not",
            code.as_str()
        ))
    } else {
        quotes(refused.iter(), says)
    }
}

fn listed(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| format!("{} {}", d.code.as_str(), d.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether a link inside the site leads somewhere.
fn resolve(link: &str, page: &Page, pages: &[Page]) -> Result<(), String> {
    let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
    let target = match path {
        "" => Some(page),
        "/" | "/play" | "/docs" => None,
        p if p.starts_with("/play?example=") => {
            let name = &p["/play?example=".len()..];
            return compiler_core::examples::find(name)
                .map(|_| ())
                .ok_or_else(|| format!("there is no example `{name}`"));
        }
        p => match p.strip_prefix("/docs/") {
            Some(slug) => Some(
                pages
                    .iter()
                    .find(|q| q.slug == slug)
                    .ok_or_else(|| format!("there is no page `{slug}`"))?,
            ),
            None => return Err("not a page of the site".into()),
        },
    };
    match target {
        Some(target) if !anchor.is_empty() => target
            .headings
            .iter()
            .any(|h| h.id == anchor)
            .then_some(())
            .ok_or_else(|| format!("`{}` has no heading #{anchor}", target.slug)),
        _ => Ok(()),
    }
}

/// The error index has one entry per code (a heading whose anchor is the code) and, unless the
/// code cannot be shown, a kernel that fails with it.
fn check_error_index(pages: &[Page]) -> Vec<String> {
    let Some(index) = pages.iter().find(|p| p.slug == ERROR_INDEX) else {
        return vec![format!(
            "there is no error index (content/{ERROR_INDEX}.md)"
        )];
    };
    let mut problems = Vec::new();
    for code in Code::ALL {
        let code = code.as_str();
        if !index.headings.iter().any(|h| h.id == code) {
            problems.push(format!("{ERROR_INDEX}: no entry for {code}"));
            continue;
        }
        let shown = index
            .blocks
            .iter()
            .any(|b| matches!(b, Block::Kernel(k) if k.expect.as_deref() == Some(code)));
        if !shown && !CODES_WITHOUT_EXAMPLES.contains(&code) {
            problems.push(format!(
                "{ERROR_INDEX}: {code} has no example that fails with it"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(source: &str, info: &[(&str, &str)], expect: Option<&str>) -> KernelBlock {
        let mut words: Vec<String> = info.iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.extend(expect.map(|code| format!("expect={code}")));
        let page = format!(
            "+++\ntitle = \"t\"\n[byline]\n+++\n```tsr {}\n{source}```\n",
            words.join(" ")
        );
        let page = crate::parse("t", &page).unwrap_or_else(|e| panic!("{e}"));
        match page
            .blocks
            .into_iter()
            .find(|b| matches!(b, Block::Kernel(_)))
        {
            Some(Block::Kernel(block)) => *block,
            _ => panic!("no kernel block"),
        }
    }

    const ADD: &str = "@launch(64)\nkernel add(A: tensor<f32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    A[i] = A[i] + 1.0\n  }\n}\n";

    #[test]
    fn kernels_compile_run_or_fail_as_they_say() {
        assert_eq!(check_kernel(&kernel(ADD, &[], None)), Ok(()));
        assert_eq!(
            check_kernel(&kernel(
                ADD,
                &[("grid", "2"), ("N", "100"), ("A", "iota")],
                None
            )),
            Ok(())
        );
        let broken = ADD.replace("ctx.thread\n", "ctx.thred\n");
        assert_eq!(check_kernel(&kernel(&broken, &[], Some("E0112"))), Ok(()));
        assert!(check_kernel(&kernel(&broken, &[], Some("E0201"))).is_err());
        assert!(check_kernel(&kernel(&broken, &[], None)).is_err());
        assert!(check_kernel(&kernel(ADD, &[], Some("E0112"))).is_err());
        let outside = ADD.replace("if i < N {", "if i < N + 5 {");
        assert_eq!(
            check_kernel(&kernel(
                &outside,
                &[("grid", "1"), ("N", "10")],
                Some("E0510")
            )),
            Ok(())
        );
        assert!(check_kernel(&kernel(ADD, &[("grid", "1"), ("N", "10")], Some("E0510"))).is_err());
        assert!(check_kernel(&kernel(ADD, &[("colour", "red")], None)).is_err());
    }

    #[test]
    fn a_quote_is_found_in_the_diagnostic_it_quotes() {
        let first_words = |source: &str| {
            let compilation = compiler_core::compile(source);
            let message = compilation
                .diagnostics
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_default();
            format!(
                "\"{}\"",
                message
                    .split_whitespace()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        };
        let broken = ADD.replace("ctx.thread\n", "ctx.thred\n");
        let quoted = first_words(&broken);
        assert_eq!(
            check_kernel(&kernel(&broken, &[("says", &quoted)], Some("E0112"))),
            Ok(())
        );
        let wrong = check_kernel(&kernel(
            &broken,
            &[("says", "\"words it never says\"")],
            Some("E0112"),
        ));
        assert!(
            wrong.as_ref().is_err_and(|e| e.contains("quotes")),
            "{wrong:?}"
        );
        // A quote needs a diagnostic to quote.
        assert!(check_kernel(&kernel(ADD, &[("says", "ran")], None)).is_err());
        // Found by a launch: the run's diagnostic.
        let outside = ADD.replace("if i < N {", "if i < N + 5 {");
        let launch = [("grid", "1"), ("N", "10")];
        let message = |says: &str| {
            let mut info = launch.to_vec();
            info.push(("says", says));
            check_kernel(&kernel(&outside, &info, Some("E0510")))
        };
        assert!(message("\"words it never says\"").is_err());
        assert_eq!(message("\"A[10] is outside A's shape [10]\""), Ok(()));
    }

    #[test]
    fn the_puzzles_counted_in_prose_are_found() {
        assert_eq!(puzzle_counts("eighteen exercises that climb"), [18]);
        assert_eq!(
            puzzle_counts("Sixteen graded exercises; 18 graded puzzles (`/docs/puzzles`)"),
            [16, 18]
        );
        assert!(puzzle_counts("one of the puzzles, two tensors, graded exercises").is_empty());
    }

    #[test]
    fn a_step_link_names_a_warp_of_the_launch() {
        let launch = [("grid", "2"), ("N", "100")];
        let with = |step: &str| {
            let mut info = launch.to_vec();
            info.push(("step", step));
            kernel(ADD, &info, None)
        };
        let block = with("1,1");
        assert_eq!(check_kernel(&block), Ok(()));
        let link = block.step.unwrap_or_else(|| panic!("no step link"));
        assert_eq!(link.label, "Step through warp 1 of block (1, 0, 0)");
        let at: Result<Stepping, _> = serde_json::from_str(&link.stepping);
        assert!(matches!(at, Ok(at) if (at.block.x, at.warp, at.step) == (1, 1, 0)));
        let result = check_kernel(&with("0,2"));
        assert!(
            result.as_ref().is_err_and(|e| e.contains("has 2 warps")),
            "{result:?}"
        );
        let result = check_kernel(&with("2,0"));
        assert!(
            result.as_ref().is_err_and(|e| e.contains("2 CTAs")),
            "{result:?}"
        );
        assert!(check_kernel(&with("one")).is_err());
        // A step link alone asks for a run, of the default launch.
        let ones = "@launch(32)\nkernel k(Y: tensor<i32>[32]) {\n  Y[ctx.lane] = 1\n}\n";
        assert_eq!(
            check_kernel(&kernel(ones, &[("step", "0,0")], None)),
            Ok(())
        );
        // A kernel that fails cannot be stepped through.
        let broken = ADD.replace("ctx.thread\n", "ctx.thred\n");
        assert!(check_kernel(&kernel(&broken, &[("step", "0,0")], Some("E0112"))).is_err());
    }
}
