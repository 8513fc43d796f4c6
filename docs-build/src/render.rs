//! Markdown to [`Page`]s with pulldown-cmark: front matter, anchors, directives.

use crate::{
    Block, Byline, Heading, KernelBlock, KernelView, OccupancyStart, Page, ShownDiagnostic,
    StepLink,
};
use compiler_core::launch::Launch;
use compiler_core::share::Stepping;
use compiler_core::syntax::highlight::highlight_html;
use compiler_core::Compilation;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
struct FrontMatter {
    title: String,
    #[serde(default)]
    section: String,
    #[serde(default)]
    order: u32,
    #[serde(default)]
    summary: String,
    byline: Option<Byline>,
}

/// Every page under `dir`, sorted by section order then page order; or what is wrong.
pub fn load(dir: &Path) -> Result<Vec<Page>, Vec<String>> {
    let mut files = Vec::new();
    collect_markdown(dir, &mut files);
    files.retain(|file| file.file_stem().is_none_or(|stem| stem != "README"));
    let mut pages = parse_each(files, parse)?;
    let puzzles = dir.join("puzzles");
    if puzzles.is_dir() {
        for puzzle in crate::puzzles::load(&puzzles)? {
            pages.push(
                crate::puzzles::page(&puzzle).map_err(|e| vec![format!("{}: {e}", puzzle.slug)])?,
            );
        }
    }
    pages.sort_by_key(|p| p.order);
    Ok(pages)
}

/// Each file read and parsed by `parse` with its slug (its name without `.md`), in the files'
/// order; or every file's problem, named by its path.
pub(crate) fn parse_each<T>(
    mut files: Vec<std::path::PathBuf>,
    parse: impl Fn(&str, &str) -> Result<T, String>,
) -> Result<Vec<T>, Vec<String>> {
    files.sort();
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let slug = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match std::fs::read_to_string(&file)
            .map_err(|e| e.to_string())
            .and_then(|text| parse(&slug, &text))
        {
            Ok(item) => parsed.push(item),
            Err(e) => errors.push(format!("{}: {e}", file.display())),
        }
    }
    if errors.is_empty() {
        Ok(parsed)
    } else {
        Err(errors)
    }
}

fn collect_markdown(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // Puzzles have a format of their own: `puzzles::load` reads them.
        if path.is_dir() && !path.ends_with("puzzles") {
            collect_markdown(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

/// `text` split into its front matter and its Markdown.
pub(crate) fn front_matter<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<(T, &str), String> {
    let rest = text
        .strip_prefix("+++\n")
        .ok_or("a page starts with front matter between +++ lines")?;
    let end = rest
        .find("\n+++\n")
        .ok_or("the front matter has no closing +++ line")?;
    let matter: T = toml::from_str(&rest[..end]).map_err(|e| format!("front matter: {e}"))?;
    Ok((matter, &rest[end + 5..]))
}

/// A heading's anchor: lower case, words joined by `-`, as GitHub does.
pub fn anchor(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if (c == ' ' || c == '-' || c == '_') && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

pub fn parse(slug: &str, text: &str) -> Result<Page, String> {
    let (matter, markdown) = front_matter::<FrontMatter>(text)?;
    let body = body(markdown)?;
    Ok(Page {
        slug: slug.to_owned(),
        title: matter.title,
        section: matter.section,
        order: matter.order,
        summary: matter.summary,
        byline: matter.byline,
        headings: body.headings,
        blocks: body.blocks,
        links: body.links,
        text: body.text,
    })
}

/// A page's Markdown, rendered: what a [`Page`] has besides its front matter.
pub(crate) struct Body {
    pub headings: Vec<Heading>,
    pub blocks: Vec<Block>,
    pub links: Vec<String>,
    pub text: String,
}

/// Short Markdown (a hint) as HTML, with no directives.
pub(crate) fn inline_html(markdown: &str) -> String {
    let mut html = String::new();
    pulldown_cmark::html::push_html(
        &mut html,
        Parser::new_ext(markdown, Options::ENABLE_SMART_PUNCTUATION),
    );
    html
}

pub(crate) fn body(markdown: &str) -> Result<Body, String> {
    let markdown = &generated(markdown);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_SMART_PUNCTUATION;
    let mut blocks = Vec::new();
    let mut headings: Vec<Heading> = Vec::new();
    let mut links = Vec::new();
    let mut plain = String::new();
    let mut pending: Vec<Event> = Vec::new();
    let mut fence: Option<(String, String)> = None;
    let mut heading: Option<(u8, Option<String>, String, Vec<Event>)> = None;
    for event in Parser::new_ext(markdown, options) {
        if let Some((_, code)) = fence.as_mut() {
            match event {
                Event::Text(t) => code.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let (info, code) = fence.take().unwrap_or_default();
                    flush(&mut pending, &mut blocks);
                    blocks.push(directive(&info, code));
                }
                _ => {}
            }
            continue;
        }
        if let Some((_, _, text, events)) = heading.as_mut() {
            match event {
                Event::End(TagEnd::Heading(_)) => {
                    let (level, id, text, events) = heading.take().unwrap_or_default();
                    let id = id.unwrap_or_else(|| anchor(&text));
                    if headings.iter().any(|h| h.id == id) {
                        return Err(format!("two headings have the anchor #{id}"));
                    }
                    let mut inner = String::new();
                    pulldown_cmark::html::push_html(&mut inner, events.into_iter());
                    pending.push(Event::Html(
                        format!(
                            "<h{level} id=\"{id}\">{inner} <a class=\"anchor\" href=\"#{id}\" aria-label=\"Link to this section\">#</a></h{level}>\n"
                        )
                        .into(),
                    ));
                    plain.push_str(&text);
                    plain.push('\n');
                    headings.push(Heading { level, id, text });
                }
                Event::Text(ref t) | Event::Code(ref t) => {
                    text.push_str(t);
                    events.push(event);
                }
                other => events.push(other),
            }
            continue;
        }
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if is_directive(&info) => {
                fence = Some((info.to_string(), String::new()));
            }
            Event::Start(Tag::Heading { level, id, .. }) => {
                heading = Some((
                    heading_level(level),
                    id.map(|i| i.to_string()),
                    String::new(),
                    Vec::new(),
                ));
            }
            Event::Start(Tag::Link { ref dest_url, .. }) => {
                if dest_url.starts_with('/') || dest_url.starts_with('#') {
                    links.push(dest_url.to_string());
                }
                pending.push(event);
            }
            Event::Text(ref t) | Event::Code(ref t) => {
                plain.push_str(t);
                plain.push(' ');
                pending.push(event);
            }
            other => pending.push(other),
        }
    }
    flush(&mut pending, &mut blocks);
    Ok(Body {
        headings,
        blocks,
        links,
        text: plain.to_lowercase(),
    })
}

/// The page's generated parts, as Markdown in place of their blocks: a `cuda-names` block is
/// the table of CUDA names and Tessera's spellings (`compiler_core::syntax::cuda`, whose every
/// example compiles), so the page and the checker's help say the same.
fn generated(markdown: &str) -> String {
    const CUDA_NAMES: &str = "```cuda-names\n```\n";
    if !markdown.contains(CUDA_NAMES) {
        return markdown.to_owned();
    }
    let cell = |text: &str| text.replace('|', "\\|");
    let code = |text: &str| {
        if text.is_empty() {
            "(none)".to_owned()
        } else {
            format!("`{}`", cell(text))
        }
    };
    let mut table = String::from("| CUDA | Tessera | What to know |\n|---|---|---|\n");
    for c in compiler_core::syntax::cuda::CUDA_NAMES {
        table += &format!(
            "| {} | {} | {} |\n",
            code(c.cuda),
            code(c.tessera),
            cell(c.note)
        );
    }
    markdown.replace(CUDA_NAMES, &table)
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn is_directive(info: &str) -> bool {
    matches!(
        info.split_whitespace().next(),
        Some("tsr" | "diagram" | "occupancy" | "lanemap")
    )
}

fn flush(pending: &mut Vec<Event>, blocks: &mut Vec<Block>) {
    if pending.is_empty() {
        return;
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, pending.drain(..));
    // A code block scrolls sideways where its lines are long (a transcript, on a phone), and a
    // table within its box (a long one, under its header): the keyboard reaches both, as the
    // site's kernels (`pre.code`) are reached.
    let html = html
        .replace("<pre><code", "<pre tabindex=\"0\"><code")
        .replace("<table>", "<table tabindex=\"0\">");
    blocks.push(Block::Html(html));
}

/// An info string's words, split at blanks but for blanks inside double quotes, which are
/// dropped: `says="waits for CTA (1, 0, 0)"` is one word.
fn info_words(info: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in info.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn directive(info: &str, code: String) -> Block {
    let words = info_words(info);
    let kind = words.first().map_or("", String::as_str);
    let rest: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
    if kind == "diagram" {
        return Block::Diagram(rest.join(" "));
    }
    if kind == "lanemap" {
        return Block::LaneMap;
    }
    if kind == "occupancy" {
        return Block::Occupancy(occupancy_start(&rest.join(" ")));
    }
    let mut expect = None;
    let mut says = None;
    let mut step = None;
    let mut profile = false;
    let mut roofline = false;
    let mut words = Vec::new();
    for word in rest {
        let (key, value) = word.split_once('=').unwrap_or((word, ""));
        match key {
            "expect" => expect = Some(value.to_owned()),
            "says" => says = Some(value.to_owned()),
            "step" => step = Some(value.to_owned()),
            "profile" => profile = true,
            "roofline" => roofline = true,
            _ => words.push((key.to_owned(), value.to_owned())),
        }
    }
    let compilation = compiler_core::compile(&code);
    // A program's launch binds its signature as a kernel's does, and runs as a kernel's does
    // (the playground's runner walks its launches); the content check runs it.
    let program = compilation.program(None).ok();
    let mut launch = match (program, compilation.kernel(None)) {
        (Some(program), _) => {
            crate::launch_words::resolve(&words, &program.signature).map(|mut l| {
                l.kernel = Some(program.name.clone());
                l
            })
        }
        (None, Ok(kernel)) => crate::launch_words::resolve(&words, kernel),
        // A kernel that does not compile has no launch to resolve; the page shows it failing.
        (None, Err(_)) => Ok(Launch::default()),
    };
    let step_link = match (&step, &launch) {
        (Some(text), Ok(l)) => match crate::launch_words::stepping(text, l.grid) {
            Ok(at) => Some(step_link(at)),
            Err(why) => {
                launch = Err(why);
                None
            }
        },
        _ => None,
    };
    // Launch words, or a step link, ask for a run.
    let runnable = expect.is_none()
        && compilation.diagnostics.is_empty()
        && (!words.is_empty() || step.is_some())
        && launch.is_ok();
    let mut view = kernel_view(&compilation, runnable);
    view.says = says;
    if profile || roofline {
        let made = match &launch {
            Ok(l) => counted(&compilation, l, profile, roofline),
            Err(why) => Err(why.clone()),
        };
        view.counts = made.as_ref().ok().map(|(_, counts)| *counts);
        view.memory = Some(made.map(|(html, _)| html));
    }
    Block::Kernel(Box::new(KernelBlock {
        source: code,
        expect,
        launch: launch.and_then(|l| serde_json::to_string(&l).map_err(|e| e.to_string())),
        view,
        step: step_link,
    }))
}

fn step_link(at: Stepping) -> StepLink {
    let b = at.block;
    let label = if (b.x, b.y, b.z) == (0, 0, 0) {
        format!("Step through warp {}", at.warp)
    } else {
        format!(
            "Step through warp {} of block ({}, {}, {})",
            at.warp, b.x, b.y, b.z
        )
    };
    StepLink {
        stepping: serde_json::to_string(&at).unwrap_or_default(),
        label,
    }
}

/// The words of an ```` ```occupancy ```` fence (`arch=sm_80 threads=256 shared=16384
/// registers=32`, each optional), checked against the targets' limits.
fn occupancy_start(words: &str) -> Result<OccupancyStart, String> {
    let mut start = OccupancyStart {
        arch: "sm_80".into(),
        threads: 256,
        shared: 0,
        registers: 32,
    };
    for word in words.split_whitespace() {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("`{word}` is not key=value"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("`{word}`: not a whole number"))
        };
        match key {
            "arch" => start.arch = value.to_owned(),
            "threads" => start.threads = number()? as u32,
            "shared" => start.shared = number()?,
            "registers" => start.registers = number()? as u32,
            _ => {
                return Err(format!(
                    "`{key}` is none of arch, threads, shared, registers"
                ))
            }
        }
    }
    let arch = start
        .arch
        .parse::<compiler_core::ptx::Arch>()
        .map_err(|e| e.to_string())?;
    compiler_core::occupancy::occupancy(arch, start.threads, start.shared, start.registers)?;
    Ok(start)
}

/// The run's memory accesses counted, as the page shows them under the kernel: the table of
/// accesses (`profile`), the roofline of the run's work (`roofline`), or both; and the run's
/// floating-point operations and global bytes.
fn counted(
    compilation: &Compilation,
    launch: &Launch,
    table: bool,
    roofline: bool,
) -> Result<(String, [u64; 2]), String> {
    let first = |d: Vec<compiler_core::Diagnostic>| {
        d.first().map_or_else(String::new, |d| {
            format!("{}: {}", d.code.as_str(), d.message)
        })
    };
    let prepared = compilation
        .prepare(launch, compiler_core::RunLimits::TERMINAL)
        .map_err(first)?;
    let profiled = prepared.simulate_profiled();
    profiled.output.map_err(|d| first(vec![d]))?;
    let profile = profiled.profile?;
    let mut html = String::new();
    if table {
        html += &memory_table(compilation.source(), &profile);
    }
    // The run's every operation and byte, for the rates of the reader's GPU time.
    let counts = [profile.work.all_flops(), profile.global_bytes()];
    if roofline {
        html += &charts::roofline(&profile.work, counts[1], None);
    }
    Ok((html, counts))
}

/// The table of a run's accesses, one row each.
fn memory_table(source: &str, profile: &compiler_core::sim::MemoryProfile) -> String {
    let lines = compiler_core::span::LineIndex::new(source);
    let mut html = String::from(
        "<div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Memory accesses\"><table class=\"values memory-table\"><caption>Memory accesses over the whole run, counted by the simulator (<a href=\"/docs/spec#memory-behaviour\">the rules</a>)</caption><thead><tr><th scope=\"col\">line</th><th scope=\"col\">access</th><th scope=\"col\">memory</th><th scope=\"col\">requests</th><th scope=\"col\">figures</th></tr></thead><tbody>",
    );
    for site in &profile.sites {
        let mut access = String::new();
        compiler_core::syntax::highlight::escape(site.span.first_line(source), &mut access);
        html += &format!(
            "<tr{}><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}{}</td></tr>",
            if site.is_poor() {
                " class=\"poor\""
            } else {
                ""
            },
            lines.line_of(site.span.start) + 1,
            access,
            site.kind(),
            site.requests,
            site.figures(),
            if site.is_poor() { " (marked)" } else { "" },
        );
    }
    html += "</tbody></table></div>";
    html
}

/// What a page shows of a kernel, prepared here so the site's first load has no compiler.
fn kernel_view(compilation: &Compilation, runnable: bool) -> KernelView {
    let source = compilation.source();
    KernelView {
        html: highlight_html(source.trim_end(), &[]),
        diagnostics: compilation
            .diagnostics
            .iter()
            .map(|d| ShownDiagnostic {
                code: d.code.as_str().to_owned(),
                message: d.message.clone(),
                help: d.help.clone(),
            })
            .collect(),
        runnable,
        memory: None,
        counts: None,
        says: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Byline;

    #[test]
    fn an_occupancy_fence_starts_from_its_words_within_the_limits() {
        let start = occupancy_start("arch=sm_90 threads=128 registers=64");
        assert_eq!(
            start,
            Ok(OccupancyStart {
                arch: "sm_90".into(),
                threads: 128,
                shared: 0,
                registers: 64
            })
        );
        assert_eq!(
            occupancy_start("threads=2048"),
            Err("a CTA of 2048 threads: sm_80 allows 1 to 1024".into())
        );
        assert!(occupancy_start("arch=sm_61").is_err());
        assert!(occupancy_start("warps=4").is_err_and(|e| e.contains("none of arch")));
    }
    use compiler_core::share::Session;

    const PAGE: &str = "+++\ntitle = \"The hierarchy\"\nsection = \"Guide\"\norder = 20\n[byline]\nwritten_by = \"A\"\nreviewed_by = \"B\"\n+++\n# The hierarchy\n\nText with a [link](/docs/x#y).\n\n```diagram grid=4x3 threads=256\n```\n\n## Every field {#fields}\n\n```tsr grid=2 N=100 expect=E0112\nkernel k() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```lanemap\n```\n";

    #[test]
    fn a_page_splits_into_html_kernels_and_diagrams() {
        let page = parse("hierarchy", PAGE).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(page.title, "The hierarchy");
        assert_eq!(page.order, 20);
        assert!(!page.byline.as_ref().is_some_and(Byline::is_draft));
        assert_eq!(
            page.headings
                .iter()
                .map(|h| h.id.as_str())
                .collect::<Vec<_>>(),
            ["the-hierarchy", "fields"]
        );
        assert_eq!(page.links, ["/docs/x#y"]);
        let kinds: Vec<&str> = page
            .blocks
            .iter()
            .map(|b| match b {
                Block::Html(_) => "html",
                Block::Kernel(_) => "kernel",
                Block::Diagram(_) => "diagram",
                Block::Occupancy(_) => "occupancy",
                Block::Puzzle(_) => "puzzle",
                Block::LaneMap => "lanemap",
            })
            .collect();
        assert_eq!(
            kinds,
            ["html", "diagram", "html", "kernel", "html", "lanemap"]
        );
        let Some(Block::Kernel(k)) = page.blocks.get(3) else {
            panic!()
        };
        assert_eq!(k.expect.as_deref(), Some("E0112"));
        let launch = k.launch.as_deref().map(serde_json::from_str::<Launch>);
        assert!(
            matches!(launch, Ok(Ok(l)) if l == Launch::default()),
            "a kernel that does not compile has the default launch"
        );
        assert!(!k.view.runnable);
        assert_eq!(k.source, "kernel k() {}\n");
        let Some(Block::Html(table)) = page.blocks.get(4) else {
            panic!()
        };
        assert!(table.contains("<table tabindex=\"0\">"));
        let Some(Block::Html(first)) = page.blocks.first() else {
            panic!()
        };
        assert!(first.contains("<h1 id=\"the-hierarchy\">The hierarchy <a class=\"anchor\""));
    }

    #[test]
    fn kernels_come_prepared_for_a_page_without_a_compiler() {
        let add = "@launch(64)\nkernel add(A: tensor<f32>[N]) {\n  A[ctx.thread] = 1.0\n}\n";
        let Block::Kernel(block) = directive("tsr N=64", add.to_owned()) else {
            panic!("not a kernel")
        };
        let launch = block.launch.as_deref().map(serde_json::from_str::<Launch>);
        assert!(matches!(launch, Ok(Ok(l)) if l.dims.get("N") == Some(&64)));
        // The site's "Open in playground" link, made of the source and the launch.
        let link =
            Session::plain_link(&block.source, block.launch.as_deref().unwrap_or("{}"), None);
        let session = Session::from_link(&link);
        assert!(
            matches!(&session, Ok(s) if s.source == add && s.launch.dims.get("N") == Some(&64))
        );
        let view = block.view;
        assert!(view.runnable);
        assert!(view.diagnostics.is_empty());
        assert!(
            view.html
                .contains("<span class=\"tok-keyword\">kernel</span>"),
            "{}",
            view.html
        );

        let Block::Kernel(failing) = directive("tsr expect=E0120", "kernel k() { x }".to_owned())
        else {
            panic!("not a kernel")
        };
        let failing = failing.view;
        assert!(!failing.runnable);
        assert_eq!(
            failing.diagnostics.first().map(|d| d.code.as_str()),
            Some("E0120")
        );
    }

    #[test]
    fn an_info_string_keeps_quoted_blanks_in_one_word() {
        assert_eq!(
            info_words("tsr grid=2  says=\"waits for CTA (1, 0, 0)\" expect=E0514"),
            [
                "tsr",
                "grid=2",
                "says=waits for CTA (1, 0, 0)",
                "expect=E0514"
            ]
        );
        let Block::Kernel(block) = directive(
            "tsr expect=E0120 says=\"not defined\"",
            "kernel k() { x }".to_owned(),
        ) else {
            panic!("not a kernel")
        };
        assert_eq!(block.view.says.as_deref(), Some("not defined"));
    }

    #[test]
    fn bylines_make_drafts_until_someone_else_reviews() {
        let mut b = Byline {
            written_by: "A".into(),
            ..Byline::default()
        };
        assert!(b.is_draft());
        b.reviewed_by = "A".into();
        assert!(b.is_draft());
        b.reviewed_by = "B".into();
        assert!(!b.is_draft());
    }

    #[test]
    fn anchors_are_github_style() {
        assert_eq!(
            anchor("Above the grid: the cluster"),
            "above-the-grid-the-cluster"
        );
        assert_eq!(
            anchor("What is a lane in a CUDA warp?"),
            "what-is-a-lane-in-a-cuda-warp"
        );
    }

    #[test]
    fn broken_front_matter_is_reported() {
        assert!(parse("x", "# no front matter").is_err());
        assert!(parse("x", "+++\ntitle = 3\n+++\n").is_err());
    }
}
