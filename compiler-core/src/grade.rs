//! Grading an attempt at a puzzle (`content/puzzles/`): the checks the docs build runs on each
//! puzzle's solution and starter, and the page runs on the reader's kernel.
//!
//! In: the attempt's source, the reference kernel's source (the same parameters, computing the
//! right results), one [`Launch`] both run with on the simulator, and the puzzle's [`Rules`].
//! Out: a [`Verdict`]: a pass; the attempt's diagnostics; the first element that differs from
//! the reference's and the thread that wrote it; or the first rule it breaks.
//!
//! Invariants: results are compared by [`sim::compare_tensor`], the one comparison the
//! differential tests use (integers exactly, floats within the spec's tolerance); rules are read
//! from the lowered kernel (its IR) and the simulator's memory counts, never from the text, so a
//! comment or a dead name cannot satisfy one.

use crate::diagnostic::Diagnostic;
use crate::hierarchy::Dim3;
use crate::ir::{Kernel, Op, Over, Scalar, StmtKind};
use crate::launch::Launch;
use crate::sim::{self, Arg, Memory};
use crate::span::Span;
use crate::RunLimits;
use serde::{Deserialize, Serialize};

/// Where a browser keeps the reader's progress: the solved puzzles' slugs in localStorage,
/// separated by spaces (the playground module's workbench writes it, the site's sidebar reads
/// it), and the window event the workbench sends when one is solved.
pub const SOLVED_KEY: &str = "tessera.puzzles.solved";
pub const SOLVED_EVENT: &str = "tessera-puzzle-solved";

/// What a puzzle demands beyond right results.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// No tile: the kernel keeps nothing in shared memory.
    pub no_tiles: bool,
    /// At most this many `barrier()` calls.
    pub max_barriers: Option<u32>,
    /// What the kernel must use.
    pub uses: Vec<Feature>,
    /// At most this many 32-byte sectors per warp-level request, at every global access.
    pub max_sectors_per_request: Option<f64>,
}

impl Rules {
    /// Each rule in words, for the puzzle's page: "uses a shuffle", "no tile".
    pub fn describe(&self) -> Vec<String> {
        let mut said: Vec<String> = self.uses.iter().map(|&f| uses_rule(f)).collect();
        if self.no_tiles {
            said.push(NO_TILE_RULE.to_owned());
        }
        said.extend(self.max_barriers.map(barriers_rule));
        said.extend(self.max_sectors_per_request.map(sectors_rule));
        said
    }
}

// Each rule's name, as the page lists it and a verdict names the one broken.
const NO_TILE_RULE: &str = "no tile in shared memory";

fn uses_rule(feature: Feature) -> String {
    format!("uses {}", feature.describe())
}

fn barriers_rule(most: u32) -> String {
    format!("at most {most} barrier{}", if most == 1 { "" } else { "s" })
}

fn sectors_rule(most: f64) -> String {
    format!("at most {most} sectors per request")
}

/// One puzzle as the page's workbench needs it: the starter the reader begins from, a solution
/// to reveal, the reference kernel, the launch both run with (and the words it was written
/// in), the rules, and the hints (as HTML). The puzzles' module carries every puzzle's, as
/// JSON the docs build wrote.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Exercise {
    pub starter: String,
    pub solution: String,
    pub reference: String,
    pub launch: Launch,
    pub launch_words: String,
    pub rules: Rules,
    pub hints: Vec<String>,
}

impl Exercise {
    /// Grades `attempt` ([`grade`]).
    pub fn grade(&self, attempt: &str) -> Result<Verdict, String> {
        grade(attempt, &self.reference, &self.launch, &self.rules)
    }
}

/// A construct a rule can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// `shuffle`, `shuffle_xor`, `broadcast` and the like.
    Shuffle,
    /// A reduction over a warp's lanes (`sum<over ctx.lane>`).
    WarpReduction,
    /// A reduction over a CTA's threads (`sum<over ctx.thread>`).
    CtaReduction,
    /// `any`, `all` or `ballot`.
    Vote,
    /// `prefix_sum`.
    Scan,
    /// A tile in shared memory.
    Tile,
    /// `barrier()`.
    Barrier,
    /// `@cluster`: super-tiles dealt to nodes.
    Cluster,
    /// `atomic_add` and the other atomics.
    Atomic,
    /// A warp's matrix operation, `mma<over ctx.lane>` (tensor cores).
    Mma,
}

impl Feature {
    fn describe(self) -> &'static str {
        match self {
            Feature::Shuffle => "a shuffle",
            Feature::WarpReduction => "a reduction over the warp's lanes",
            Feature::CtaReduction => "a reduction over the CTA's threads",
            Feature::Vote => "a vote (any, all or ballot)",
            Feature::Scan => "a prefix_sum",
            Feature::Tile => "a tile",
            Feature::Barrier => "a barrier()",
            Feature::Cluster => "an @cluster",
            Feature::Atomic => "an atomic",
            Feature::Mma => "a warp's matrix operation (mma)",
        }
    }
}

/// Where a thread sits: what the page shows of the thread that wrote a wrong element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadPlace {
    pub block: Dim3,
    pub thread: u32,
    pub warp: u32,
    pub lane: u32,
}

/// How an attempt fared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every tensor equals the reference's and every rule holds.
    Pass,
    /// The attempt does not compile, does not fit the launch, or its run stopped.
    Broken { diagnostics: Vec<Diagnostic> },
    /// The attempt's kernel does not take the puzzle's parameters, so its results cannot be
    /// compared: what it takes and what it should.
    Parameters { want: Vec<String>, got: Vec<String> },
    /// A tensor differs from the reference's: the first element that does, by its index (one
    /// number per axis), and the thread that wrote it last (`None`: no thread wrote it).
    Wrong {
        tensor: String,
        index: Vec<usize>,
        got: String,
        want: String,
        writer: Option<ThreadPlace>,
    },
    /// The results are right but a rule is broken, and why; at `span` where one access is to
    /// blame.
    Rule {
        rule: String,
        why: String,
        span: Option<Span>,
    },
}

/// Grades `attempt` against `reference`, both run with `launch` on the simulator; an error when
/// the reference itself does not run (a fault of the puzzle, which the docs build rules out).
pub fn grade(
    attempt: &str,
    reference: &str,
    launch: &Launch,
    rules: &Rules,
) -> Result<Verdict, String> {
    let want = run_reference(reference, launch)?;
    Ok(grade_against(attempt, &want, launch, rules))
}

fn grade_against(attempt: &str, want: &Reference, launch: &Launch, rules: &Rules) -> Verdict {
    let compilation = crate::compile(attempt);
    let kernel = match compilation.kernel(launch.kernel.as_deref()) {
        Ok(kernel) => kernel,
        Err(diagnostics) => return Verdict::Broken { diagnostics },
    };
    let got: Vec<String> = kernel.params.iter().map(|p| p.name().to_owned()).collect();
    if got != want.params {
        return Verdict::Parameters {
            want: want.params.clone(),
            got,
        };
    }
    let prepared = match compilation.prepare(launch, RunLimits::TERMINAL) {
        Ok(prepared) => prepared,
        Err(diagnostics) => return Verdict::Broken { diagnostics },
    };
    let profiled = prepared.simulate_profiled();
    let output = match profiled.output {
        Ok(output) => output,
        Err(diagnostic) => {
            return Verdict::Broken {
                diagnostics: vec![diagnostic],
            }
        }
    };
    if let Some(wrong) = first_wrong(kernel, launch, &output, &want.args) {
        return wrong;
    }
    if let Some(broken_rule) = broken_rule(kernel, rules) {
        return broken_rule;
    }
    if let (Some(most), Ok(profile)) = (rules.max_sectors_per_request, &profiled.profile) {
        for site in &profile.sites {
            let global = matches!(site.memory, Memory::Tensor(_));
            if !global || site.requests == 0 {
                continue;
            }
            let per_request = site.sectors as f64 / site.requests as f64;
            if per_request > most {
                return Verdict::Rule {
                    rule: sectors_rule(most),
                    why: format!(
                        "this {} of `{}` moves {per_request:.1} sectors per warp-level request",
                        if site.write { "write" } else { "read" },
                        site.name
                    ),
                    span: Some(site.span),
                };
            }
        }
    }
    Verdict::Pass
}

/// The reference's results, and its parameters' names (the attempt must have the same).
struct Reference {
    args: sim::Args,
    params: Vec<String>,
}

fn run_reference(reference: &str, launch: &Launch) -> Result<Reference, String> {
    let compilation = crate::compile(reference);
    let failed = |d: Vec<Diagnostic>| {
        let first = d.first().map_or(String::new(), |d| d.message.clone());
        format!("the puzzle's reference kernel does not run: {first}")
    };
    let kernel = compilation
        .kernel(launch.kernel.as_deref())
        .map_err(failed)?;
    let params = kernel.params.iter().map(|p| p.name().to_owned()).collect();
    let output = compilation
        .prepare(launch, RunLimits::TERMINAL)
        .map_err(failed)?
        .simulate()
        .map_err(|d| failed(vec![d]))?;
    Ok(Reference {
        args: output.args,
        params,
    })
}

/// The first tensor element, in parameter order, that differs from the reference's.
fn first_wrong(
    kernel: &Kernel,
    launch: &Launch,
    output: &crate::RunOutput,
    want: &sim::Args,
) -> Option<Verdict> {
    for ((param, got), want) in kernel
        .params
        .iter()
        .zip(&output.args.params)
        .zip(&want.params)
    {
        let (Arg::Tensor(got), Arg::Tensor(want)) = (got, want) else {
            continue;
        };
        let Some(at) = sim::compare_tensor(got.element, &got.bits, &want.bits).first_mismatch
        else {
            continue;
        };
        // The shortest text that reads back as the element: an `f32` as `f32`, not its `f64`.
        let show = |bits: &[u32]| {
            bits.get(at)
                .map_or("nothing".to_owned(), |&b| match got.element {
                    Scalar::F32 | Scalar::F16 => f32::from_bits(b).to_string(),
                    _ => got.element.value(b).to_string(),
                })
        };
        let writer = output
            .writers
            .as_ref()
            .and_then(|w| {
                w.get(
                    kernel
                        .params
                        .iter()
                        .position(|p| p.name() == param.name())?,
                )
            })
            .and_then(|w| w.get(at).copied())
            .and_then(|w| w.checked_sub(1))
            .map(|index| place(launch.grid, kernel.threads, launch.lanes, index));
        return Some(Verdict::Wrong {
            tensor: param.name().to_owned(),
            index: unflatten(at, &got.shape),
            got: show(&got.bits),
            want: show(&want.bits),
            writer,
        });
    }
    None
}

/// Element `at` of a row-major tensor of `shape`, one index per axis.
fn unflatten(mut at: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len().max(1)];
    for (axis, &extent) in shape.iter().enumerate().rev() {
        let extent = extent.max(1);
        index[axis] = at % extent;
        at /= extent;
    }
    index
}

/// The thread of launch index `index` (CTA by CTA in x, y, z order).
fn place(grid: Dim3, threads: u32, lanes: u32, index: u32) -> ThreadPlace {
    let (threads, lanes) = (threads.max(1), lanes.max(1));
    let cta = index / threads;
    let (gx, gy) = (grid.x.max(1), grid.y.max(1));
    let thread = index % threads;
    ThreadPlace {
        block: Dim3::new(cta % gx, cta / gx % gy, cta / (gx * gy)),
        thread,
        warp: thread / lanes,
        lane: thread % lanes,
    }
}

/// The first rule read from the kernel's IR that it breaks.
fn broken_rule(kernel: &Kernel, rules: &Rules) -> Option<Verdict> {
    let mut used = Vec::new();
    let mut barriers = 0;
    kernel.visit(&mut |kind| {
        if matches!(kind, StmtKind::Barrier) {
            barriers += 1;
            used.push(Feature::Barrier);
        }
        if matches!(kind, StmtKind::Atomic(_)) {
            used.push(Feature::Atomic);
        }
        if matches!(kind, StmtKind::Mma { .. }) {
            used.push(Feature::Mma);
        }
        if let StmtKind::Let { op, .. } = kind {
            used.extend(match op {
                Op::Shuffle(..) => Some(Feature::Shuffle),
                Op::Reduce(_, Over::Warp, ..) => Some(Feature::WarpReduction),
                Op::Reduce(_, Over::Cta, ..) => Some(Feature::CtaReduction),
                Op::Vote(..) => Some(Feature::Vote),
                Op::PrefixSum(..) => Some(Feature::Scan),
                _ => None,
            });
        }
    });
    if !kernel.shared.is_empty() {
        used.push(Feature::Tile);
    }
    if kernel.cluster.is_some() {
        used.push(Feature::Cluster);
    }
    let rule = |rule: String, why: String| {
        Some(Verdict::Rule {
            rule,
            why,
            span: None,
        })
    };
    if rules.no_tiles && used.contains(&Feature::Tile) {
        return rule(
            NO_TILE_RULE.to_owned(),
            "the kernel keeps a tile in shared memory".to_owned(),
        );
    }
    if let Some(most) = rules.max_barriers {
        if barriers > most {
            return rule(barriers_rule(most), format!("the kernel has {barriers}"));
        }
    }
    for feature in &rules.uses {
        if !used.contains(feature) {
            return rule(
                uses_rule(*feature),
                format!(
                    "the kernel has no {}",
                    feature
                        .describe()
                        .trim_start_matches("a ")
                        .trim_start_matches("an ")
                ),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_and_a_thread_are_found_from_their_flat_indices() {
        assert_eq!(unflatten(7, &[2, 5]), vec![1, 2]);
        assert_eq!(unflatten(3, &[10]), vec![3]);
        let place = place(Dim3::new(2, 2, 1), 64, 32, 3 * 64 + 40);
        assert_eq!(place.block, Dim3::new(1, 1, 0));
        assert_eq!((place.thread, place.warp, place.lane), (40, 1, 8));
    }
}
