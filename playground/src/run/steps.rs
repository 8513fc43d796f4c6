//! The steps of one traced CTA as the stepper shows them, made where the trace is kept: in the
//! run's Web Worker, beside the simulator. The page asks for one step of one warp at a time
//! ([`super::messages::Job::Step`]) and gets a [`StepView`]: a trace (up to 32 MiB) never crosses
//! to the page, and the page's module carries none of the code that reads one.
//!
//! In: a [`TracedCta`] (a trace, and the compilation and launch it is of), a step and a warp.
//! Out: everything the step shows, as data, so the rules are tested without a browser.
//! Invariant: the worker keeps the last trace it made ([`kept`]); a request for another (a
//! worker that was ended and started again) traces it anew, with the same result, since a run
//! is deterministic.

use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Kernel;
use compiler_core::launch::{self, Launch};
use compiler_core::program::LaunchRecord;
use compiler_core::sim::{
    bank_of, conflict_degree, describe_barrier, element_bytes, sector_of, sectors, stored_word,
    word_of, Exchange, LaneState, Memory, Step, Trace, TraceLimits,
};
use compiler_core::span::{LineIndex, Span};
use compiler_core::{Code, Compilation, Diagnostic, RunLimits, RunOutput};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// One CTA's steps, with the compilation and launch they are of, and the fault that ended
/// the run, if one did.
pub struct TracedCta {
    pub compilation: Compilation,
    pub launch: Launch,
    /// A program's launch traced (from 0, in run order); 0 for a kernel.
    pub nth: u32,
    /// The kernel traced: the one `launch` names, or one a program launched.
    pub kernel: Option<String>,
    pub trace: Trace,
    pub fault: Option<Diagnostic>,
}

impl TracedCta {
    /// The kernel traced; `None` only for a launch that named no kernel of the source.
    pub fn kernel(&self) -> Option<&Kernel> {
        self.compilation.kernel(self.kernel.as_deref()).ok()
    }

    fn is_of(&self, source: &str, launch: &Launch, nth: u32, block: Dim3) -> bool {
        self.trace.block == block
            && self.nth == nth
            && self.launch == *launch
            && self.compilation.source() == source
    }
}

/// Keeps `traced`, CTA `block`'s trace of a run of `launch` of `compilation` (of `kernel`, the
/// program's launch `nth`), as the one [`kept`] returns.
pub fn keep(
    compilation: Compilation,
    launch: &Launch,
    nth: u32,
    kernel: Option<String>,
    traced: launch::Traced,
) -> Rc<TracedCta> {
    let mut trace = traced.trace;
    // Stored states make a jump to any step quick.
    trace.checkpoint();
    let cta = Rc::new(TracedCta {
        compilation,
        launch: launch.clone(),
        nth,
        kernel,
        trace,
        fault: traced.output.err(),
    });
    KEPT.with(|k| *k.borrow_mut() = Some(cta.clone()));
    cta
}

thread_local! {
    static KEPT: RefCell<Option<Rc<TracedCta>>> = const { RefCell::new(None) };
}

/// The trace of CTA `block` of `launch` of `source` (of a program's launch `nth`): the one
/// kept, else made again.
pub fn kept(
    source: &str,
    launch: &Launch,
    nth: u32,
    block: Dim3,
) -> Result<Rc<TracedCta>, Vec<Diagnostic>> {
    let kept = KEPT.with(|k| k.borrow().clone());
    match kept.filter(|k| k.is_of(source, launch, nth, block)) {
        Some(kept) => Ok(kept),
        None => trace(source, launch, nth, block),
    }
}

/// Traces CTA `block` of `launch` of `source` (a browser tab's limits; the trace's own caps)
/// and keeps it.
fn trace(
    source: &str,
    launch: &Launch,
    nth: u32,
    block: Dim3,
) -> Result<Rc<TracedCta>, Vec<Diagnostic>> {
    let compilation = compiler_core::compile(source);
    if compilation.runs_a_program(launch.kernel.as_deref()) {
        return trace_program(compilation, launch, nth, block).map(|(cta, _)| cta);
    }
    let traced = compilation
        .prepare(launch, RunLimits::PAGE)?
        .simulate_traced(block, TraceLimits::default());
    Ok(keep(compilation, launch, 0, launch.kernel.clone(), traced))
}

/// Runs the program `launch` names, tracing CTA `block` of its launch `nth` (from 0, in the
/// order the run makes them), and keeps the trace; with the launch traced.
pub fn trace_program(
    compilation: Compilation,
    launch: &Launch,
    nth: u32,
    block: Dim3,
) -> Result<(Rc<TracedCta>, LaunchRecord), Vec<Diagnostic>> {
    let prepared = compilation.prepare_program(launch, RunLimits::PAGE)?;
    let (output, traced) = prepared.simulate_traced(nth as usize, block, TraceLimits::default());
    drop(prepared);
    let Some((record, trace)) = traced else {
        let why = match output {
            Err(fault) => format!(
                "the run stopped before its launch {}: {}: {}",
                nth + 1,
                fault.code.as_str(),
                fault.message
            ),
            Ok(output) => format!(
                "the program made {} launches, so it has no launch {}",
                output.launches.len(),
                nth + 1
            ),
        };
        return Err(vec![Diagnostic::error(Code::E0515, Span::empty(0), why)]);
    };
    let traced = launch::Traced {
        output: output.map(|o| RunOutput {
            args: o.args,
            stats: o.stats,
            writers: None,
            cluster: None,
        }),
        trace,
    };
    let kernel = Some(record.kernel.clone());
    Ok((keep(compilation, launch, nth, kernel, traced), record))
}

/// One lane's row of the values table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaneRow {
    pub lane: u32,
    /// `None`: the lane holds no thread.
    pub thread: Option<u32>,
    pub state: LaneState,
    /// Each variable's value after the step ("—" before its first), and whether the step
    /// wrote it.
    pub values: Vec<(String, bool)>,
}

/// Everything one step shows for one warp.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    /// From 0.
    pub index: usize,
    pub count: usize,
    pub line: usize,
    /// The statement's first line.
    pub statement: String,
    /// The whole statement in the source, which the editor marks.
    pub span: Span,
    pub mask: String,
    pub active: u32,
    pub lanes: Vec<LaneRow>,
    /// The table's column headings: each variable's name, with the line of its declaration
    /// when two share a name.
    pub variables: Vec<String>,
    /// What the lanes read, wrote and exchanged, one line each.
    pub effects: Vec<String>,
    /// A shuffle's exchanges within the warp: (source lane, destination lane), for each lane
    /// that took another's value.
    pub arrows: Vec<(u32, u32)>,
    /// At a barrier: the sentence, and each warp of the CTA with its state.
    pub barrier: Option<(String, Vec<(u32, String)>)>,
    /// What the live region says.
    pub announce: String,
    /// The step's memory accesses, one group per tensor or tile read or written: where each
    /// lane's element lies (its sector, or its bank).
    pub memory: Vec<AccessGroup>,
    /// What the step says of memory when `memory` is empty.
    pub without_memory: String,
}

/// One tensor or tile a step reads or writes, for the lane row: each lane's 32-byte sector
/// (global memory) or bank (shared memory) of its first element there, by the rules of the
/// memory counts (`compiler_core::sim::profile`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessGroup {
    /// "In, global read".
    pub label: String,
    pub shared: bool,
    /// Per lane.
    pub places: Vec<Option<u64>>,
    /// "4 sectors for 32 lanes", "2-way bank conflict".
    pub summary: String,
}

/// The step's accesses by warp `warp`'s lanes, grouped by memory and direction, in order: a
/// statement that reads one tile three times gives three groups (each lane's first, second and
/// third read).
fn access_groups(trace: &Trace, kernel: &Kernel, step: &Step, warp: u32) -> Vec<AccessGroup> {
    let first = warp * trace.lanes;
    type Key = (Memory, bool, usize);
    let mut groups: Vec<(Key, Vec<Option<u64>>)> = Vec::new();
    let mut seen: Vec<((Memory, bool), Vec<usize>)> = Vec::new();
    for access in &step.accesses {
        let Some(lane) = access
            .thread
            .checked_sub(first)
            .filter(|&l| l < trace.lanes)
        else {
            continue;
        };
        let lane = lane as usize;
        let pair = (access.memory, access.write);
        let counted = match seen.iter().position(|(k, _)| *k == pair) {
            Some(at) => at,
            None => {
                seen.push((pair, vec![0; trace.lanes as usize]));
                seen.len() - 1
            }
        };
        let key = (access.memory, access.write, seen[counted].1[lane]);
        seen[counted].1[lane] += 1;
        let at = match groups.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                groups.push((key, vec![None; trace.lanes as usize]));
                groups.len() - 1
            }
        };
        groups[at].1[lane] = Some(stored_word(kernel, access.memory, access.element));
    }
    let repeats = |memory: Memory, write: bool| {
        groups
            .iter()
            .filter(|((m, w, _), _)| *m == memory && *w == write)
            .count()
    };
    let ordinal = |n: usize| match n {
        0 => "first",
        1 => "second",
        2 => "third",
        _ => "next",
    };
    let groups: Vec<(Key, Vec<Option<u64>>, bool)> = groups
        .iter()
        .map(|((m, w, k), places)| ((*m, *w, *k), places.clone(), repeats(*m, *w) > 1))
        .collect();
    groups
        .into_iter()
        .map(|((memory, write, k), words, repeated)| {
            let (name, shared) = match memory {
                Memory::Tensor(i) => (kernel.params.get(i).map_or("?", |p| p.name()), false),
                Memory::Shared(i) => (kernel.shared.get(i).map_or("?", |a| a.name.as_str()), true),
                Memory::Partials => (compiler_core::sim::PARTIALS, true),
                Memory::Local(i) => (kernel.locals.get(i).map_or("?", |a| a.name.as_str()), false),
            };
            let way = if write { "write" } else { "read" };
            let bytes = element_bytes(kernel, memory);
            // A tile's elements by the word that holds them (two f16s share one).
            let words: Vec<Option<u64>> = if shared {
                words.iter().map(|w| w.map(|e| word_of(e, bytes))).collect()
            } else {
                words
            };
            let mut distinct: Vec<u64> = words.iter().flatten().copied().collect();
            distinct.sort_unstable();
            distinct.dedup();
            let lanes = words.iter().flatten().count();
            let (places, summary) = if shared {
                let degree = conflict_degree(&distinct);
                let places = words.iter().map(|w| w.map(bank_of)).collect();
                (places, format!("{degree}-way bank conflict"))
            } else {
                let s = sectors(&distinct, bytes);
                let places = words
                    .iter()
                    .map(|w| w.map(|e| sector_of(e, bytes)))
                    .collect();
                let plural = |n| if n == 1 { "" } else { "s" };
                let summary = format!(
                    "{s} sector{} for {lanes} lane{}",
                    plural(s as usize),
                    plural(lanes)
                );
                (places, summary)
            };
            let nth = if repeated {
                format!(" ({})", ordinal(k))
            } else {
                String::new()
            };
            AccessGroup {
                label: format!(
                    "{name}, {} {way}{nth}",
                    if shared { "shared" } else { "global" }
                ),
                shared,
                places,
                summary,
            }
        })
        .collect()
}

/// The headings of the values table.
fn variable_headings(trace: &Trace, source: &str) -> Vec<String> {
    let lines = LineIndex::new(source);
    trace
        .variables
        .iter()
        .map(|v| {
            let twins = trace.variables.iter().filter(|w| w.name == v.name).count();
            if twins > 1 {
                format!("{} (line {})", v.name, lines.line_of(v.declared.start) + 1)
            } else {
                v.name.clone()
            }
        })
        .collect()
}

/// What step `index` (clamped to the trace) shows for warp `warp`.
pub fn step_view(run: &TracedCta, index: usize, warp: u32) -> Option<StepView> {
    let trace = &run.trace;
    let kernel = run.kernel()?;
    let source = run.compilation.source();
    let index = index.min(trace.steps.len().checked_sub(1)?);
    let step = &trace.steps[index];
    let line = LineIndex::new(source).line_of(step.statement.start) + 1;
    let statement = step.statement.first_line(source).to_owned();
    let mask = step.active.in_warp(warp, trace.lanes);
    let values = trace.values_after(index);
    let vars = trace.variables.len();
    let first = warp * trace.lanes;
    let lanes = (0..trace.lanes)
        .map(|lane| {
            let state = trace.lane(index, warp, lane);
            let thread = (state != LaneState::NoThread).then_some(first + lane);
            let values = match thread {
                None => Vec::new(),
                Some(t) => (0..vars)
                    .map(|v| {
                        let text = values[t as usize * vars + v]
                            .map_or("—".to_owned(), |bits| trace.variables[v].show(bits));
                        let wrote = step
                            .writes
                            .iter()
                            .any(|w| w.thread == t && w.variable as usize == v);
                        (text, wrote)
                    })
                    .collect(),
            };
            LaneRow {
                lane,
                thread,
                state,
                values,
            }
        })
        .collect();
    let arrows = shuffle_arrows(trace, step, warp).collect();
    let barrier = step.barrier.as_ref().map(|b| {
        let mut warps: Vec<(u32, String)> = b
            .arrived
            .iter()
            .map(|&w| (w, "arrived".to_owned()))
            .chain(b.finished.iter().map(|&w| (w, "finished".to_owned())))
            .chain(b.missing.iter().map(|&w| (w, "missing".to_owned())))
            .collect();
        warps.sort_unstable();
        (describe_barrier(b), warps)
    });
    Some(StepView {
        index,
        count: trace.steps.len(),
        line,
        statement,
        span: step.statement,
        mask: mask.to_string(),
        active: mask.count(),
        lanes,
        variables: variable_headings(trace, source),
        effects: trace.effects(kernel, index, warp),
        arrows,
        barrier,
        announce: trace.announce(index, warp, line),
        memory: access_groups(trace, kernel, step, warp),
        without_memory: trace.without_memory(index),
    })
}

/// A shuffle's exchanges within warp `warp` in step `step`: (source lane, destination lane)
/// for each lane that took another's value.
fn shuffle_arrows<'a>(
    trace: &'a Trace,
    step: &'a Step,
    warp: u32,
) -> impl Iterator<Item = (u32, u32)> + 'a {
    let first = warp * trace.lanes;
    step.exchanges
        .iter()
        .filter_map(|e| match e {
            Exchange::Shuffle { sources, .. } => Some(sources),
            _ => None,
        })
        .flatten()
        .filter(move |(to, from)| to != from && (first..first + trace.lanes).contains(to))
        .map(move |&(to, from)| (from - first, to - first))
}

/// What the lane strip makes room for, for the whole trace of warp `warp`: arrows above the
/// lanes if any step shuffles values between them, places under them if any step accesses
/// memory. The strip keeps one height from step to step, so what lies below it stays put.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StripRoom {
    pub arrows: bool,
    pub places: bool,
}

pub fn strip_room(trace: &Trace, warp: u32) -> StripRoom {
    let lanes = warp * trace.lanes..(warp + 1) * trace.lanes;
    StripRoom {
        arrows: trace
            .steps
            .iter()
            .any(|step| shuffle_arrows(trace, step, warp).next().is_some()),
        places: trace.steps.iter().any(|step| {
            step.accesses
                .iter()
                .any(|access| lanes.contains(&access.thread))
        }),
    }
}

/// The timeline: for each step, how many of warp `warp`'s lanes were active.
pub fn active_lanes(trace: &Trace, warp: u32) -> Vec<u8> {
    trace
        .steps
        .iter()
        .map(|step| step.active.in_warp(warp, trace.lanes).count() as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::launch::Input;

    fn traced(source: &str, launch: Launch) -> Rc<TracedCta> {
        trace(source, &launch, 0, Dim3::new(0, 0, 0)).unwrap_or_else(|d| panic!("{d:?}"))
    }

    #[test]
    fn the_strip_makes_room_for_what_any_step_of_the_warp_shows() {
        let shuffles = traced(
            include_str!("../../../examples/shuffles.tsr"),
            Launch::default(),
        );
        assert_eq!(
            strip_room(&shuffles.trace, 0),
            StripRoom {
                arrows: true,
                places: true
            }
        );
        // Warp 1 of a one-warp CTA holds no thread: nothing to make room for.
        assert_eq!(strip_room(&shuffles.trace, 1), StripRoom::default());
        let source = "@launch(32)
kernel plain(Y: tensor<i32>[32]) {
  let x = ctx.lane * 2
  let y = x + 1
}
";
        let plain = traced(source, Launch::default());
        assert_eq!(strip_room(&plain.trace, 0), StripRoom::default());
    }

    #[test]
    fn a_step_that_accesses_memory_gives_each_lanes_sector_or_bank() {
        let source = "@launch(32)
kernel banks(In: tensor<f32>[R, C], Y: tensor<f32>[32]) {
  let l = ctx.lane
  var t = In[0 :+ 32, 0 :+ 32]
  let a = t[l, 0]
  let b = t[l, l]
  let x = In[l * 2, 0]
  let c = t[0, l] + t[l, l]
  Y[l] = a + b + x + c
}
";
        let mut launch = Launch::default();
        launch.dims.insert("R".into(), 64);
        launch.dims.insert("C".into(), 32);
        let run = traced(source, launch);
        let step = |text: &str| {
            let at = (0..run.trace.steps.len())
                .find(|&i| step_view(&run, i, 0).is_some_and(|v| v.statement == text))
                .unwrap_or_else(|| panic!("no step `{text}`"));
            step_view(&run, at, 0).unwrap_or_else(|| panic!("no view"))
        };
        // The padded tile's column: words 33 l, banks l, every bank once.
        let column = step("let a = t[l, 0]");
        assert_eq!(column.memory.len(), 1);
        let group = &column.memory[0];
        assert_eq!(group.label, "t, shared read");
        assert_eq!(group.places[5], Some(5));
        assert_eq!(group.summary, "1-way bank conflict");
        // The diagonal: words 34 l, banks 2 l mod 32: lanes 1 and 17 share bank 2.
        let diagonal = step("let b = t[l, l]");
        assert_eq!(
            (diagonal.memory[0].places[1], diagonal.memory[0].places[17]),
            (Some(2), Some(2))
        );
        assert_eq!(diagonal.memory[0].summary, "2-way bank conflict");
        // In[2 l, 0]: elements 64 l, 256 bytes apart: a sector per lane, sector 8 l.
        let strided = step("let x = In[l * 2, 0]");
        let group = &strided.memory[0];
        assert_eq!(group.label, "In, global read");
        assert_eq!(group.places[3], Some(24));
        assert_eq!(group.summary, "32 sectors for 32 lanes");
        // Two reads of the tile in one statement: a group each.
        let two = step("let c = t[0, l] + t[l, l]");
        let labels: Vec<&str> = two.memory.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            ["t, shared read (first)", "t, shared read (second)"]
        );
        assert_eq!(two.memory[0].summary, "1-way bank conflict");
        assert_eq!(two.memory[1].summary, "2-way bank conflict");
        // A store: one group.
        let last = step("Y[l] = a + b + x + c");
        assert_eq!(last.memory[0].label, "Y, global write");
        assert_eq!(last.memory[0].summary, "4 sectors for 32 lanes");
    }

    #[test]
    fn a_step_shows_each_lanes_state_values_and_what_it_wrote() {
        let run = traced(
            include_str!("../../../examples/lane_ids.tsr"),
            Launch::default(),
        );
        let Some(view) = step_view(&run, 0, 1) else {
            panic!("no step")
        };
        assert_eq!((view.index, view.count, view.line), (0, 4, 5));
        assert_eq!(view.statement, "let t = ctx.thread");
        assert_eq!((view.mask.as_str(), view.active), ("0x0000ffff", 16));
        assert_eq!(view.lanes.len(), 32);
        assert_eq!(view.lanes[3].thread, Some(35));
        assert_eq!(view.lanes[3].values, vec![("35".to_owned(), true)]);
        assert_eq!(view.lanes[20].state, LaneState::NoThread);
        assert!(view.lanes[20].values.is_empty());
        assert_eq!(
            view.announce,
            "step 1 of 4, line 5, 16 of 32 lanes active, mask 0x0000ffff"
        );
        // A step past the end shows the last.
        assert_eq!(step_view(&run, 99, 1).map(|v| v.index), Some(3));
        // The next step writes Lane, not t: t keeps its value, unmarked.
        let next = step_view(&run, 1, 1).map(|v| v.lanes[3].values.clone());
        assert_eq!(next, Some(vec![("35".to_owned(), false)]));
    }

    #[test]
    fn a_shuffle_step_has_an_arrow_per_lane_that_takes_anothers_value() {
        let run = traced(
            include_str!("../../../examples/shuffles.tsr"),
            Launch {
                inputs: [("X".to_owned(), Input::Iota)].into(),
                ..Launch::default()
            },
        );
        // Step 3 is `Out[1, ctx.lane] = shuffle_xor(x, 1)`; step 4 `shuffle_up(x, 2)`.
        let Some(xor) = step_view(&run, 2, 0) else {
            panic!("no step")
        };
        assert_eq!(xor.arrows.len(), 32);
        assert!(xor.arrows.iter().all(|&(from, to)| from == to ^ 1));
        let Some(up) = step_view(&run, 3, 0) else {
            panic!("no step")
        };
        // Lanes 0 and 1 have no lane two below: they keep their own value, no arrow.
        assert_eq!(up.arrows.len(), 30);
        assert!(up.arrows.iter().all(|&(from, to)| from + 2 == to));
    }

    #[test]
    fn two_variables_of_one_name_are_told_apart_by_line() {
        let source = "@launch(32)\nkernel k(Y: tensor<i32>[32]) {\n  if ctx.lane < 4 {\n    let x = 1\n    Y[ctx.lane] = x\n  } else {\n    let x = 2\n    Y[ctx.lane] = x\n  }\n}\n";
        let run = traced(source, Launch::default());
        let Some(view) = step_view(&run, 0, 0) else {
            panic!("no step")
        };
        assert_eq!(view.variables, vec!["x (line 4)", "x (line 7)"]);
        assert_eq!(active_lanes(&run.trace, 0)[..2], [32, 4]);
    }
}
