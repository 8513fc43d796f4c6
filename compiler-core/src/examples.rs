//! The example kernels (`examples/*.tsr`) and the launch each one runs with
//! (`examples/launches.json`), built into the library so the playground's menu, the docs and
//! the tests share one catalogue.
//!
//! Invariant: every `.tsr` in `examples/` is listed here once, with a launch
//! (`tests/examples.rs` checks both ways), and the menu shows them in this order. Programs
//! (several launches) are in `examples/programs/`, listed by [`programs`], in the playground's
//! menu after the kernels.

use crate::launch::Launch;
use serde::Deserialize;

pub struct Example {
    pub name: &'static str,
    pub source: &'static str,
    pub launch: Launch,
}

impl Example {
    /// The source's opening comment, joined into one line: what the example shows.
    pub fn summary(&self) -> String {
        self.source
            .lines()
            .map_while(|l| l.strip_prefix("//"))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

macro_rules! example {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../examples/", $name, ".tsr")),
        )
    };
}

const SOURCES: &[(&str, &str)] = &[
    example!("vector_add"),
    example!("saxpy"),
    example!("matvec"),
    example!("warp_reduce"),
    example!("block_sum"),
    example!("prefix_sum"),
    example!("scratch_sum"),
    example!("cta_scan"),
    example!("votes"),
    example!("shuffles"),
    example!("lane_ids"),
    example!("grid2d"),
    example!("transpose"),
    example!("softmax"),
    example!("stencil"),
    example!("dot"),
    example!("collatz"),
    example!("tiled_transpose"),
    example!("tiled_matmul"),
    example!("histogram"),
    example!("cluster_scale"),
    example!("gelu"),
    example!("channel_scale"),
    example!("dot_f16"),
    example!("quantize"),
    example!("radix_sort_f32"),
    example!("bitonic_sort"),
    example!("attention_rows"),
    example!("gemm_f16_f32"),
    example!("fnv_hash"),
    example!("splitmix"),
    example!("mma_gemm"),
];

const LAUNCHES: &str = include_str!("../../examples/launches.json");

#[derive(Deserialize)]
struct Entry {
    name: String,
    launch: Launch,
}

/// `launches.json`, parsed once.
fn launches() -> &'static [Entry] {
    static PARSED: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    PARSED.get_or_init(|| serde_json::from_slice(LAUNCHES.as_bytes()).unwrap_or_default())
}

/// Every example, in the menu's order, each with its launch (the default launch if
/// `launches.json` has none, which the tests forbid).
pub fn all() -> Vec<Example> {
    catalogue(SOURCES, launches())
}

/// Each of `sources` with its launch in `launches` (the default launch where there is none,
/// which the tests forbid).
fn catalogue(sources: &[(&'static str, &'static str)], launches: &[Entry]) -> Vec<Example> {
    sources
        .iter()
        .map(|&(name, source)| Example {
            name,
            source,
            launch: launches
                .iter()
                .find(|e| e.name == name)
                .map(|e| e.launch.clone())
                .unwrap_or_default(),
        })
        .collect()
}

/// The launches file's example names, for the tests' cross-check.
pub fn launch_names() -> Vec<String> {
    launches().iter().map(|e| e.name.clone()).collect()
}

macro_rules! program {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../examples/programs/", $name, ".tsr")),
        )
    };
}

/// The examples that are programs (`examples/programs/`), with their launches
/// (`examples/programs/launches.json`): each file's program is run by its name, the file's.
const PROGRAMS: &[(&str, &str)] = &[
    program!("grid_sum"),
    program!("scan_large"),
    program!("softmax_long_rows"),
    program!("bfs_grid"),
    program!("bfs_frontier"),
    program!("fft"),
];

const PROGRAM_LAUNCHES: &str = include_str!("../../examples/programs/launches.json");

/// Every program example, each with its launch.
pub fn programs() -> Vec<Example> {
    static PARSED: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    let launches = PARSED
        .get_or_init(|| serde_json::from_slice(PROGRAM_LAUNCHES.as_bytes()).unwrap_or_default());
    catalogue(PROGRAMS, launches)
}

/// The example called `name`: a kernel's, or a program's.
pub fn find(name: &str) -> Option<Example> {
    all().into_iter().chain(programs()).find(|e| e.name == name)
}
