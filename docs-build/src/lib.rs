//! The docs' build step and their checks.
//!
//! In: `content/**/*.md`, each a Markdown page with TOML front matter between `+++` lines.
//! Out: [`Page`]s (front matter, headings with anchors, the body as [`Block`]s: HTML, runnable
//! kernels and hierarchy diagrams), which `site/build.rs` writes as JSON: every page's [`Entry`]
//! for the site to embed, and each page for the site to fetch when it is opened; and [`check`],
//! the content check the test command runs.
//!
//! Directives are fenced code blocks, so the Markdown stays readable anywhere:
//! - ```` ```tsr ```` a kernel: highlighted, with Run and Open in playground. Its info string
//!   may name a launch (`launch=matvec` takes the example's; `grid=4` or `grid=4x2`, `lanes=8`,
//!   `N=1000` for a dimension, `alpha=2.5` for a scalar, `A=rand:1` for an input: see
//!   `launch_words`) and what it should fail with (`expect=E0112`; a code found only by a
//!   launch, such as `expect=E0510`, is checked by running the launch on the simulator), and
//!   words of that diagnostic's message which the prose quotes (`says="waits for CTA (1, 0,
//!   0)"`; in double quotes when they hold blanks).
//! - ```` ```diagram ```` the hierarchy diagram, its parameters in the info string (see
//!   `diagram::DiagramConfig::from_params`: `grid=4x3 threads=256 lanes=32`,
//!   `preset=partial-warp`, `cluster=4x6`).
//! - ```` ```lanemap ```` the interactive lane map of a warp's `mma` operands.
//!
//! Invariant: a page that builds has a title, a byline block and unique heading anchors.

#[cfg(feature = "render")]
pub mod check;
#[cfg(feature = "render")]
pub mod launch_words;
#[cfg(feature = "render")]
pub mod puzzles;
#[cfg(feature = "render")]
mod render;

use serde::{Deserialize, Serialize};

#[cfg(feature = "render")]
pub use check::check;
#[cfg(feature = "render")]
pub use render::{anchor, load, parse};

/// Who wrote and checked a page. A page is a draft until it names an author and a different
/// reviewer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Byline {
    pub written_by: String,
    pub reviewed_by: String,
    pub written_on: String,
    pub last_checked_on: String,
}

impl Byline {
    pub fn is_draft(&self) -> bool {
        self.written_by.trim().is_empty()
            || self.reviewed_by.trim().is_empty()
            || self.written_by.trim() == self.reviewed_by.trim()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub id: String,
    pub text: String,
}

/// A kernel in the docs, and how it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelBlock {
    pub source: String,
    /// The code it must fail with, compile time or run time.
    pub expect: Option<String>,
    /// The launch its info string names, resolved when the docs are built (the default launch
    /// when it names none) and written as the JSON the playground module takes, or why it does
    /// not resolve (the content check reports it). JSON, not a `Launch`, so the site's first
    /// load carries no code to read or write one.
    pub launch: Result<String, String>,
    /// What the page shows of it, prepared when the docs are built, so the site's first load
    /// carries no compiler (it comes with Run).
    #[serde(default)]
    pub view: KernelView,
    /// `step=CTA,WARP`: a "Step through" link that opens the playground's stepper on that
    /// warp (the CTA counted x fastest in the launch's grid).
    #[serde(default)]
    pub step: Option<StepLink>,
}

/// A docs kernel's "Step through" link, prepared when the docs are built.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepLink {
    /// The stepper's position (`compiler_core::share::Stepping`) as JSON, for the link.
    pub stepping: String,
    /// "Step through warp 3".
    pub label: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelView {
    /// The source as highlighted HTML (the compiler's highlighter, as in the playground).
    pub html: String,
    /// The diagnostics of a kernel that does not compile (the page shows it failing).
    pub diagnostics: Vec<ShownDiagnostic>,
    /// It compiles and names a launch that resolves: Run can run it.
    pub runnable: bool,
    /// `profile` and `roofline`: the run's memory accesses counted (`tessera run --profile`) as
    /// an HTML table, and its work as a roofline chart (`charts::roofline`); or why there are
    /// none (the content check reports it).
    #[serde(default)]
    pub memory: Option<Result<String, String>>,
    /// With `profile` or `roofline`: the run's floating-point operations and global bytes, so
    /// the GPU's time of a run from the page turns into the rates it means.
    #[serde(default)]
    pub counts: Option<[u64; 2]>,
    /// `says="…"`: words the page's prose quotes from the diagnostic the kernel fails with
    /// (`expect=`), which the content check finds in that diagnostic's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShownDiagnostic {
    pub code: String,
    pub message: String,
    pub help: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Block {
    Html(String),
    Kernel(Box<KernelBlock>),
    Diagram(String),
    /// ```` ```occupancy ```` with starting values: a calculator the reader changes.
    Occupancy(Result<OccupancyStart, String>),
    /// ```` ```lanemap ````: the interactive map of which lane holds which element of a warp's
    /// `mma` operands (`diagram::FragmentMap`).
    LaneMap,
    /// Where a puzzle's workbench goes (`content/puzzles/`), by the puzzle's slug: the puzzles'
    /// module, which carries every puzzle's `Exercise`, puts it there.
    Puzzle(String),
}

/// The starting values of an occupancy calculator: `arch=sm_80 threads=256 shared=16384
/// registers=32` (each optional).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OccupancyStart {
    /// "sm_70", "sm_80" or "sm_90".
    pub arch: String,
    pub threads: u32,
    pub shared: u64,
    pub registers: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Page {
    /// The URL: `/docs/{slug}`.
    pub slug: String,
    pub title: String,
    pub section: String,
    pub order: u32,
    pub summary: String,
    /// `None` when the page has no byline block (the check refuses that).
    pub byline: Option<Byline>,
    pub headings: Vec<Heading>,
    pub blocks: Vec<Block>,
    /// Links to other pages of the site, as written (`/docs/x#y`, `/play`).
    pub links: Vec<String>,
    /// The words of the page in lower case, for search (the site's build writes every page's,
    /// with its kernels' sources, into one file, which the site fetches on its first search).
    pub text: String,
}

/// What the site's module carries of a page: enough for the sidebar, the pager, the window's
/// title and the search's titles and headings. The page itself is fetched when it is opened,
/// so a reader's first load does not carry every page's HTML (BENCHMARKS.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub slug: String,
    pub title: String,
    pub section: String,
    pub summary: String,
    pub headings: Vec<Heading>,
    /// The page holds a puzzle's workbench: the sidebar counts them, and marks those solved.
    pub puzzle: bool,
}

impl Page {
    pub fn entry(&self) -> Entry {
        Entry {
            slug: self.slug.clone(),
            title: self.title.clone(),
            section: self.section.clone(),
            summary: self.summary.clone(),
            headings: self.headings.clone(),
            puzzle: self.blocks.iter().any(|b| matches!(b, Block::Puzzle(_))),
        }
    }
}
