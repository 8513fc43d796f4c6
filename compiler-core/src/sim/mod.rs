//! The reference simulator: runs an IR kernel on the CPU, exactly.
//!
//! In: an IR kernel, its bound arguments ([`Args`]) and [`SimOptions`]. Out: the tensors as the
//! kernel left them, statistics, or the first [`Fault`], naming the block, warp, lane, thread
//! and source span.
//!
//! Execution model: the CTAs of the grid run one after another, or spread over `threads` OS
//! threads that each take the next CTA in grid order (CTAs are independent: the spec gives no
//! order between them, so a kernel whose result does not depend on that order gets the same
//! bits from any number of threads). Inside a CTA every thread runs
//! in lockstep under an active mask (one mask for the whole CTA, so its warps advance together
//! and reconverge at the end of every structured construct). That schedule is one of those the
//! language allows, and it gives the same results as any other for every program the checker
//! accepts and the simulator does not fault on: collectives need warp-uniform control, barriers
//! uniform control, and the simulator checks at run time that every live thread reaches each
//! barrier. Warp collectives combine lanes in xor-butterfly order (as a GPU's shuffle reduction
//! does), so float results are bit-identical to the PTX backend's.
//!
//! Invariants: deterministic for every kernel whose CTAs do not touch each other's elements (no
//! hashing order; the fault reported is the one of the first faulting CTA in grid order, as one
//! thread finds it; counts and statistics are sums); never panics on a kernel or launch: faults
//! are values. While the grid runs, the tensors live in relaxed atomics ([`AtomicU32`]), so
//! CTAs on several threads can store into them without `unsafe`.
//!
//! Here: the run's types, the grid loop and a CTA's state. Beside it: `control` (statements
//! under the active mask, loops, the step limit, barriers), `ops` (each operation, collectives
//! and shuffles), `memory` (elements, bounds, the shared-memory race detector), `arith` (the
//! arithmetic of bits), `fault` (what stops a run, and the order of CTAs it was found in),
//! `compare` (a GPU's results against these), `trace` (one CTA's
//! steps, for the stepper) and `profile` (memory requests counted by sector, line and bank).

// Threads are addressed by index in parallel arrays (mask, registers, tensors): index loops
// read better here than zipped iterators.
#![allow(clippy::needless_range_loop)]

mod arith;
mod compare;
mod control;
mod fault;
mod matrix;
mod memory;
mod ops;
mod profile;
mod trace;
mod trace_text;

pub use arith::{fold, ERF_LARGE, ERF_SMALL, ERF_SPLIT};
pub use compare::{compare_tensor, Comparison, FLOAT_TOLERANCE};
pub use fault::{CtaOrder, Fault, Waits, INTERRUPTED};
pub use profile::{
    bank_of, conflict_degree, element_bytes, sector_of, sectors, stored_word, word_of, AccessSite,
    ArrayPlace, MemoryProfile, Work, BANKS, LINE_BYTES, PARTIALS, SECTOR_BYTES,
};
pub use trace::{
    Barrier, Exchange, LaneState, Memory, MemoryAccess, Step, Threads, Trace, TraceLimits,
    Variable, Write,
};
pub use trace_text::{describe_barrier, shuffle_name};

use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::{self, Dim3};
use crate::ir::*;
use crate::span::Span;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// How the simulator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// `ctx.lanes`: 32 as on NVIDIA by default.
    pub lanes: u32,
    /// Statement executions of one CTA (each for all its active threads at once) before the
    /// run is stopped (E0514). Per CTA, so a large grid of short CTAs never reaches it while a
    /// runaway loop in any CTA does.
    pub step_limit: u64,
    /// OS threads that run CTAs (1: this thread, in grid order; a browser has one).
    pub threads: usize,
    /// The order CTAs are taken in.
    pub order: CtaOrder,
}

impl Default for SimOptions {
    /// NVIDIA's 32 lanes, and a million statements per CTA (a host picks its own limit from
    /// the CTA's size: `launch::RunLimits`).
    fn default() -> Self {
        Self {
            lanes: 32,
            step_limit: 1_000_000,
            threads: 1,
            order: CtaOrder::Grid,
        }
    }
}

/// A tensor's elements as the bits of its element type, row-major; a 64-bit integer as two
/// words, the low first (so `bits` has twice as many entries as elements).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tensor {
    pub element: Scalar,
    pub shape: Vec<usize>,
    pub bits: Vec<u32>,
}

impl Tensor {
    /// Elements (a 64-bit one takes two of `bits`).
    pub fn len(&self) -> usize {
        self.bits.len() / self.element.words()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Element `i` as a table shows it.
    pub fn show(&self, i: usize) -> Option<String> {
        let w = self.element.words();
        self.bits
            .get(i * w..(i + 1) * w)
            .map(|words| self.element.show_words(words))
    }

    /// Element `i` in full ([`Scalar::show_exact`]), as a cell's tooltip gives it.
    pub fn show_exact(&self, i: usize) -> Option<String> {
        let w = self.element.words();
        let words = self.bits.get(i * w..(i + 1) * w)?;
        Some(match words {
            [_, _] => self.element.show_words(words),
            _ => self.element.show_exact(words[0]),
        })
    }

    /// The number element `i` holds (a 64-bit integer exact up to 2^53).
    pub fn value(&self, i: usize) -> Option<f64> {
        let w = self.element.words();
        let words = self.bits.get(i * w..(i + 1) * w)?;
        Some(match words {
            [_, _] => self.element.wide_value(join_words(words)),
            _ => self.element.value(words[0]),
        })
    }

    /// The elements as a GPU's memory holds them, in 32-bit little-endian words: a word an
    /// element, two `f16`s a word or four 8-bit elements a word, the first in the lowest bits
    /// (the last word padded with zeros). Never empty, since GPU APIs refuse empty buffers.
    pub fn memory_words(&self) -> Vec<u32> {
        if self.element.is_wide() {
            // Two words an element already, the low first.
            return if self.bits.is_empty() {
                vec![0]
            } else {
                self.bits.clone()
            };
        }
        let per_word = 4 / self.element.size() as usize;
        let stored = |b: u32| match self.element {
            Scalar::F16 => u32::from(f16_storage(b)),
            Scalar::I8 | Scalar::U8 => b & 0xff,
            _ => b,
        };
        let bits = 32 / per_word;
        let mut words: Vec<u32> = self
            .bits
            .chunks(per_word)
            .map(|chunk| {
                chunk
                    .iter()
                    .enumerate()
                    .fold(0, |word, (i, &b)| word | stored(b) << (i * bits))
            })
            .collect();
        if words.is_empty() {
            words.push(0);
        }
        words
    }

    /// Takes the elements back from `words`, laid out as [`Tensor::memory_words`] gives them
    /// (words past the elements are ignored).
    pub fn set_from_memory(&mut self, words: impl IntoIterator<Item = u32>) {
        let count = self.bits.len();
        let element = self.element;
        if element.is_wide() {
            self.bits = words.into_iter().take(count).collect();
            return;
        }
        let per_word = 4 / element.size() as usize;
        let bits = 32 / per_word;
        let mask = if bits == 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        self.bits = words
            .into_iter()
            .flat_map(|w| (0..per_word).map(move |i| (w >> (i * bits)) & mask))
            .map(|stored| match element {
                Scalar::F16 => f16_from_storage(stored as u16),
                other => other.narrow(stored),
            })
            .take(count)
            .collect();
    }
}

/// A kernel's arguments: the grid, each dimension's value, and per parameter a tensor or a
/// scalar's bits.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Args {
    pub grid: Dim3,
    pub dims: Vec<i32>,
    pub params: Vec<Arg>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Arg {
    Tensor(Tensor),
    /// A scalar's bits ([`Scalar::argument_bits`]): a 64-bit one's two words, any other's one
    /// word in the low 32 bits.
    Scalar(u64),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Statement executions, each for a whole CTA, over the whole launch.
    pub steps: u64,
    /// Operations times the threads that executed them.
    pub lane_ops: u64,
    /// Whether an `f32` `atomic_add` on a tensor rounded or met a term of the other sign: then
    /// a GPU, which adds in an order of its own, may give another sum (the spec's "The
    /// simulator's order"), and a run says so.
    pub order_dependent_sums: bool,
}

impl std::ops::AddAssign for Stats {
    /// Two runs' statistics together (CTAs on several threads, super-tiles, a program's
    /// launches).
    fn add_assign(&mut self, other: Stats) {
        self.steps += other.steps;
        self.lane_ops += other.lane_ops;
        self.order_dependent_sums |= other.order_dependent_sums;
    }
}

/// What a run says when [`Stats::order_dependent_sums`]: the CLI's note and the playground's.
pub const ORDER_DEPENDENT_SUMS: &str = "an f32 atomic_add on a tensor rounded or met terms of both signs, so its sum depends on the order of the additions: these results are the simulator's order (CTAs in grid order, threads in order), and a GPU, adding in an order of its own, may give another sum";

/// Runs `kernel` over the whole grid, updating the tensors in `args`.
pub fn run(kernel: &Kernel, args: &mut Args, options: SimOptions) -> Result<Stats, Fault> {
    run_recording(kernel, args, options, None)
}

/// Which thread of the launch last wrote each element of each tensor: per parameter, per
/// element, the thread's index in the whole launch plus one (0: nobody), where the launch
/// numbers threads CTA by CTA in x, y, z order ([`hierarchy::launch_thread`]). Scalars have
/// no entries.
pub type Writers = Vec<Vec<u32>>;

/// Told the number of CTAs that have just finished (from any of the run's threads), so a host
/// can show progress.
pub type Progress<'p> = &'p (dyn Fn(u64) + Sync);

/// What a run observes besides its results; all optional.
#[derive(Default)]
pub struct Observers<'o> {
    /// Filled with who wrote each tensor element last.
    pub writers: Option<&'o mut Writers>,
    /// Told as CTAs finish.
    pub progress: Option<Progress<'o>>,
    /// Set by the host to stop the run (a notebook's interrupt, Ctrl-C): the CTAs stop within
    /// [`STOP_CHECK`] statements, faulting with [`INTERRUPTED`] (E0514, the step limit's code:
    /// the host knows it asked, and says so its own way).
    pub stop: Option<&'o AtomicBool>,
}

/// Statements a CTA runs between two looks at [`Observers::stop`]: a relaxed load each 1,024
/// statements costs nothing measurable, and 1,024 statements take well under a millisecond.
pub const STOP_CHECK: u64 = 1 << 10;

/// [`run`], also recording in `writers` (when given) who wrote each tensor element last.
pub fn run_recording(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    writers: Option<&mut Writers>,
) -> Result<Stats, Fault> {
    run_with(
        kernel,
        args,
        options,
        Observers {
            writers,
            ..Observers::default()
        },
    )
}

/// [`run`], with `observers`.
pub fn run_with(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
) -> Result<Stats, Fault> {
    in_words(
        kernel,
        args,
        options,
        observers,
        |kernel, args, options, observers| {
            run_observed(kernel, args, options, observers, None, None)
        },
    )
}

/// Runs `run` on `kernel` as 32-bit words (`ir::wide`) when it has 64-bit integers: its 64-bit
/// tensors have a last axis of 2, their words, meanwhile (the same bits); who wrote an element
/// is who wrote its low word; and the step limit is 16 times the launch's, since the split
/// kernel's statements count (a 64-bit division is some 1,500).
fn in_words<T>(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
    run: impl FnOnce(&Kernel, &mut Args, SimOptions, Observers) -> T,
) -> T {
    if !wide::has_wide(kernel) {
        return run(kernel, args, options, observers);
    }
    let split = wide::split(kernel);
    let options = SimOptions {
        step_limit: options.step_limit.saturating_mul(16),
        ..options
    };
    let Observers {
        writers,
        progress,
        stop,
    } = observers;
    let wide: Vec<bool> = args
        .params
        .iter()
        .map(|a| matches!(a, Arg::Tensor(t) if t.element.is_wide()))
        .collect();
    let word_axis = |args: &mut Args, add: bool| {
        for (arg, _) in args.params.iter_mut().zip(&wide).filter(|(_, w)| **w) {
            if let Arg::Tensor(t) = arg {
                if add {
                    t.shape.push(2);
                } else {
                    t.shape.pop();
                }
            }
        }
    };
    word_axis(args, true);
    let mut word_writers = writers.as_ref().map(|_| Writers::new());
    let observers = Observers {
        writers: word_writers.as_mut(),
        progress,
        stop,
    };
    let result = run(&split, args, options, observers);
    word_axis(args, false);
    if let (Some(writers), Some(words)) = (writers, word_writers) {
        *writers = words
            .into_iter()
            .zip(&wide)
            .map(|(w, &wide)| {
                if wide {
                    w.into_iter().step_by(2).collect()
                } else {
                    w
                }
            })
            .collect();
    }
    result
}

impl Observers<'_> {
    fn reborrow(&mut self) -> Observers<'_> {
        Observers {
            writers: self.writers.as_deref_mut(),
            progress: self.progress,
            stop: self.stop,
        }
    }
}

/// Runs `observe` on several threads, and once more on one if the run faults: what a run
/// observes up to a fault (a trace, counts) must be what one thread running the CTAs in grid
/// order observes, and several threads may have run CTAs past the faulting one.
fn observed_in_order<T>(
    args: &mut Args,
    options: SimOptions,
    mut observers: Observers,
    mut observe: impl FnMut(&mut Args, SimOptions, Observers) -> (Result<Stats, Fault>, T),
) -> (Result<Stats, Fault>, T) {
    let original = (options.threads > 1).then(|| args.clone());
    let (result, observed) = observe(args, options, observers.reborrow());
    match original {
        Some(original) if result.is_err() => {
            *args = original;
            let one = SimOptions {
                threads: 1,
                ..options
            };
            // Progress was told of the first attempt's CTAs already.
            observers.progress = None;
            observe(args, one, observers)
        }
        _ => (result, observed),
    }
}

/// [`run_with`], also tracing CTA `block` (when it is in the grid) within `limits`.
pub fn run_traced(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
    block: Dim3,
    limits: TraceLimits,
) -> (Result<Stats, Fault>, Trace) {
    in_words(
        kernel,
        args,
        options,
        observers,
        |kernel, args, options, observers| {
            run_traced_words(kernel, args, options, observers, block, limits)
        },
    )
}

fn run_traced_words(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
    block: Dim3,
    limits: TraceLimits,
) -> (Result<Stats, Fault>, Trace) {
    let grid = args.grid;
    if block.x >= grid.x || block.y >= grid.y || block.z >= grid.z {
        let why = format!(
            "block ({}, {}, {}) is outside the grid ({}, {}, {})",
            block.x, block.y, block.z, grid.x, grid.y, grid.z
        );
        let result = run_observed(kernel, args, options, observers, None, None);
        return (
            result,
            Trace::unavailable(block, kernel.threads, options.lanes, why),
        );
    }
    observed_in_order(args, options, observers, |args, options, observers| {
        let mut recorder = trace::Recorder::new(kernel, args, block, options.lanes, limits);
        let traced = Some((block, &mut recorder));
        let result = run_observed(kernel, args, options, observers, traced, None);
        (result, recorder.finish())
    })
}

/// [`run_with`], also counting every memory request by sector, line and bank. A run that
/// faults gives what it counted up to the fault.
pub fn run_profiled(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
) -> (Result<Stats, Fault>, MemoryProfile) {
    in_words(kernel, args, options, observers, run_profiled_words)
}

fn run_profiled_words(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
) -> (Result<Stats, Fault>, MemoryProfile) {
    observed_in_order(args, options, observers, |args, options, observers| {
        let mut counter = profile::Counter::new(kernel);
        let result = run_observed(kernel, args, options, observers, None, Some(&mut counter));
        (result, counter.finish())
    })
}

/// The launch's memory while the grid runs, shared by the threads that run its CTAs.
struct Global<'a> {
    kernel: &'a Kernel,
    /// The grid, dimensions, scalars and tensor shapes (the tensors' bits are in `cells`).
    args: &'a Args,
    options: SimOptions,
    /// Per parameter, a tensor's elements (a scalar has none).
    cells: Vec<Vec<AtomicU32>>,
    /// Per parameter, who wrote each element last, when the run records it.
    /// Which CTA (and its first thread) touched each element of a written tensor, and how:
    /// the race detector across CTAs (`memory::CrossCta`).
    races: Vec<Option<Vec<AtomicU64>>>,
    writers: Option<Vec<Vec<AtomicU32>>>,
    progress: Option<Progress<'a>>,
    stop: Option<&'a AtomicBool>,
    /// The next CTA to run, in grid order.
    next: AtomicU64,
    /// The first CTA (in grid order) known to have faulted, and its fault: CTAs after it stop.
    fault: Mutex<Option<(u64, Fault)>>,
    fault_at: AtomicU64,
}

fn run_observed(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    observers: Observers,
    trace: Option<(Dim3, &mut trace::Recorder)>,
    profile: Option<&mut profile::Counter>,
) -> Result<Stats, Fault> {
    let cells: Vec<Vec<AtomicU32>> = args
        .params
        .iter_mut()
        .map(|p| match p {
            Arg::Tensor(t) => std::mem::take(&mut t.bits)
                .into_iter()
                .map(AtomicU32::new)
                .collect(),
            Arg::Scalar(_) => Vec::new(),
        })
        .collect();
    // Only a tensor the kernel writes (plainly or by atomics) can be raced on.
    let written = kernel.written_tensors();
    let races = cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            written
                .contains(&i)
                .then(|| c.iter().map(|_| AtomicU64::new(0)).collect())
        })
        .collect();
    let writers = observers.writers.as_ref().map(|_| {
        cells
            .iter()
            .map(|c| c.iter().map(|_| AtomicU32::new(0)).collect())
            .collect()
    });
    let global = Global {
        kernel,
        args,
        options,
        cells,
        races,
        writers,
        progress: observers.progress,
        stop: observers.stop,
        next: AtomicU64::new(0),
        fault: Mutex::new(None),
        fault_at: AtomicU64::new(u64::MAX),
    };
    let stats = global.run(trace, profile);
    let Global {
        cells,
        writers,
        fault,
        ..
    } = global;
    for (param, cells) in args.params.iter_mut().zip(cells) {
        if let Arg::Tensor(t) = param {
            t.bits = cells.into_iter().map(AtomicU32::into_inner).collect();
        }
    }
    if let (Some(slot), Some(writers)) = (observers.writers, writers) {
        *slot = writers
            .into_iter()
            .map(|w| w.into_iter().map(AtomicU32::into_inner).collect())
            .collect();
    }
    match fault.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some((_, fault)) => Err(fault),
        None => Ok(stats),
    }
}

impl<'a> Global<'a> {
    fn ctas(&self) -> u64 {
        let grid = self.args.grid;
        u64::from(grid.x) * u64::from(grid.y) * u64::from(grid.z)
    }

    /// Runs every CTA on `options.threads` threads; the statistics summed over them.
    fn run(
        &self,
        trace: Option<(Dim3, &mut trace::Recorder)>,
        profile: Option<&mut profile::Counter>,
    ) -> Stats {
        // Atomics whose results depend on their order run CTA by CTA in grid order, so that
        // every run (and every thread count) gives the same bits.
        let threads = if self.kernel.atomics_need_order() {
            1
        } else {
            self.options.threads.clamp(1, self.ctas().max(1) as usize)
        };
        // The traced CTA's recorder goes to whichever thread runs that CTA.
        let trace = Mutex::new(trace);
        if threads == 1 {
            return self.run_ctas(&trace, profile);
        }
        let counted = profile.is_some();
        let results: Vec<(Stats, Option<profile::Counter>)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    let trace = &trace;
                    scope.spawn(move || {
                        let mut counter = counted.then(|| profile::Counter::new(self.kernel));
                        let stats = self.run_ctas(trace, counter.as_mut());
                        (stats, counter)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        let mut total = Stats::default();
        let mut profile = profile;
        for (stats, counter) in results {
            total += stats;
            if let (Some(into), Some(counter)) = (profile.as_deref_mut(), counter) {
                into.merge(counter);
            }
        }
        total
    }

    /// One thread's share of the grid: CTAs claimed in grid order until none is left.
    fn run_ctas(
        &self,
        trace: &Mutex<Option<(Dim3, &mut trace::Recorder)>>,
        mut profile: Option<&mut profile::Counter>,
    ) -> Stats {
        let traced = trace
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map(|(block, _)| *block);
        let mut stats = Stats::default();
        while let Some(position) = self.claim() {
            let index = self.cta_at(position);
            let block = self.block_of(index);
            let mut taken = None;
            if traced == Some(block) {
                taken = trace.lock().unwrap_or_else(PoisonError::into_inner).take();
            }
            let recorder = taken.map(|(_, recorder)| recorder);
            self.run_cta(
                index,
                position,
                &mut stats,
                recorder,
                profile.as_deref_mut(),
            );
        }
        stats
    }

    /// The CTA (its index in grid order) run at `position` of the run's order.
    fn cta_at(&self, position: u64) -> u64 {
        match self.options.order {
            CtaOrder::Grid => position,
            CtaOrder::Reverse => self.ctas() - 1 - position,
        }
    }

    /// The next position in the run's order, unless the grid is done or an earlier CTA (in
    /// that order) has faulted.
    fn claim(&self) -> Option<u64> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < self.ctas() && index < self.fault_at.load(Ordering::Relaxed)).then_some(index)
    }

    /// Whether the host has asked the run to stop.
    fn stopped(&self) -> bool {
        self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }

    /// CTA `index` in grid order: x fastest, then y, then z.
    fn block_of(&self, index: u64) -> Dim3 {
        self.args.grid.block_at(index)
    }

    fn run_cta(
        &self,
        index: u64,
        position: u64,
        stats: &mut Stats,
        trace: Option<&mut trace::Recorder>,
        profile: Option<&mut profile::Counter>,
    ) {
        let mut cta = Cta::new(self, index, stats);
        cta.trace = trace;
        cta.profile = profile;
        let mut mask = vec![true; self.kernel.threads as usize];
        if let Err(fault) = cta.block(&self.kernel.body, &mut mask) {
            self.record_fault(position, fault);
        }
        if let Some(progress) = self.progress {
            progress(1);
        }
    }

    /// Keeps the fault of the first CTA in the run's order, as one thread running them in
    /// order would meet it.
    fn record_fault(&self, position: u64, fault: Fault) {
        let mut first = self.fault.lock().unwrap_or_else(PoisonError::into_inner);
        if first.as_ref().is_none_or(|(at, _)| position < *at) {
            *first = Some((position, fault));
            self.fault_at.fetch_min(position, Ordering::Relaxed);
        }
    }
}

struct LoopFrame {
    broken: Vec<bool>,
    continued: Vec<bool>,
    /// Whether any thread broke out / continued, so that a loop without either (most loops)
    /// skips the per-thread checks.
    any_broken: bool,
    any_continued: bool,
}

impl LoopFrame {
    fn new(threads: usize) -> Self {
        Self {
            broken: vec![false; threads],
            continued: vec![false; threads],
            any_broken: false,
            any_continued: false,
        }
    }
}

struct Cta<'a> {
    kernel: &'a Kernel,
    args: &'a Args,
    /// The launch's tensors, shared with the CTAs on other threads.
    global: &'a Global<'a>,
    options: SimOptions,
    block: Dim3,
    threads: usize,
    regs: Vec<u32>,
    exited: Vec<bool>,
    /// Whether any thread has returned (`exited` has a `true`).
    any_exited: bool,
    loops: Vec<LoopFrame>,
    stats: &'a mut Stats,
    /// Statements this CTA has run: what the step limit bounds.
    steps: u64,
    /// Spare mask buffers, so that an `if` in a hot loop allocates nothing.
    masks: Vec<Vec<bool>>,
    /// Operand values of the statement being run, one per thread.
    scratch: [Vec<u32>; 4],
    /// The CTA's shared memory: one array per tile.
    shared: Vec<Vec<u32>>,
    /// Each thread's arrays: array `a`'s element `e` of thread `t` at `e * threads + t`, a
    /// thread after another as a register's values are.
    locals: Vec<Vec<u32>>,
    /// Who touched each shared element since the last barrier, to find data races.
    accesses: Vec<Vec<Access>>,
    /// Counts barriers: an access recorded in an older epoch is no longer in the way.
    epoch: u32,
    /// This CTA's accesses to tensor elements since its last barrier, by `tensor << 32 |
    /// element`: the race detector within the CTA.
    tensor_accesses: FxHashMap<u64, Access>,
    /// The CTA's index in grid order.
    index: u64,
    /// Where global stores are recorded, for the playground's per-thread view.
    writers: Option<&'a [Vec<AtomicU32>]>,
    /// The launch-wide index of this CTA's thread 0.
    first_thread: u32,
    /// Where this CTA's steps are recorded, when it is the one traced.
    trace: Option<&'a mut trace::Recorder>,
    /// Where memory requests are counted, when the run asks.
    profile: Option<&'a mut profile::Counter>,
    /// The tensor element the CTA's first active thread last read by an atomic (parameter,
    /// element), the value found, and how many times in a row it found that value there: a
    /// CTA that polls one element is waiting for another CTA.
    polls: Option<(usize, usize, u32, u64)>,
}

/// The accesses to one shared element in the current epoch: the writer, the reader and the
/// atomic (a thread index + 1; 0 for none; `u32::MAX` for several readers or atomics).
#[derive(Clone, Copy, Default)]
struct Access {
    epoch: u32,
    writer: u32,
    reader: u32,
    atomic: u32,
}

/// How a thread touches a shared element, for the race detector: two atomics never race, and
/// an atomic races with a plain read or write of another thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Touch {
    Read,
    Write,
    Atomic,
}

impl<'a> Cta<'a> {
    fn new(global: &'a Global<'a>, index: u64, stats: &'a mut Stats) -> Self {
        let block = global.block_of(index);
        let kernel = global.kernel;
        let threads = kernel.threads as usize;
        Self {
            kernel,
            args: global.args,
            global,
            options: global.options,
            block,
            threads,
            regs: vec![0; kernel.regs.len() * threads],
            exited: vec![false; threads],
            any_exited: false,
            loops: Vec::new(),
            stats,
            steps: 0,
            masks: Vec::new(),
            scratch: std::array::from_fn(|_| vec![0; threads]),
            shared: kernel
                .shared
                .iter()
                .map(|a| vec![0; a.stored_len_at(global.options.lanes)])
                .collect(),
            locals: kernel
                .locals
                .iter()
                .map(|a| vec![0; a.len() * threads])
                .collect(),
            accesses: kernel
                .shared
                .iter()
                .map(|a| vec![Access::default(); a.stored_len_at(global.options.lanes)])
                .collect(),
            epoch: 1,
            tensor_accesses: FxHashMap::default(),
            index,
            writers: global.writers.as_deref(),
            first_thread: hierarchy::launch_thread(global.args.grid, block, kernel.threads, 0),
            trace: None,
            profile: None,
            polls: None,
        }
    }

    /// Fills scratch buffer `slot` with `operand`'s value in every thread.
    fn load(&mut self, slot: usize, operand: Operand) -> Vec<u32> {
        let mut values = std::mem::take(&mut self.scratch[slot]);
        let threads = self.threads;
        match operand {
            Operand::Reg(r) => {
                let start = r.0 as usize * threads;
                values.clear();
                values.extend_from_slice(&self.regs[start..start + threads]);
            }
            Operand::Const(bits) => {
                values.clear();
                values.resize(threads, bits);
            }
        }
        values
    }

    /// `dst = f(a, b)` in every active thread, with the operands read once as whole vectors.
    fn zip2(
        &mut self,
        dst: Reg,
        mask: &[bool],
        a: Operand,
        b: Operand,
        f: impl Fn(u32, u32) -> u32,
    ) {
        let (x, y) = (self.load(0, a), self.load(1, b));
        let start = dst.0 as usize * self.threads;
        let out = &mut self.regs[start..start + self.threads];
        for (((o, m), x), y) in out.iter_mut().zip(mask).zip(&x).zip(&y) {
            if *m {
                *o = f(*x, *y);
            }
        }
        self.scratch[0] = x;
        self.scratch[1] = y;
    }

    fn fault(&self, code: Code, span: Span, thread: usize, message: String) -> Fault {
        let lanes = self.options.lanes.max(1);
        let thread = thread as u32;
        Fault {
            code,
            message,
            span,
            block: self.block,
            thread,
            warp: thread / lanes,
            lane: thread % lanes,
            order: self.options.order,
            waits: None,
        }
    }

    #[inline]
    fn get(&self, operand: Operand, thread: usize) -> u32 {
        match operand {
            Operand::Reg(r) => self.regs[r.0 as usize * self.threads + thread],
            Operand::Const(bits) => bits,
        }
    }

    #[inline]
    fn set(&mut self, reg: Reg, thread: usize, value: u32) {
        self.regs[reg.0 as usize * self.threads + thread] = value;
    }

    fn ctx(&self, field: CtxField, t: usize) -> u32 {
        let lanes = self.options.lanes.max(1) as usize;
        let axis = |d: Dim3, a: Axis| match a {
            Axis::X => d.x,
            Axis::Y => d.y,
            Axis::Z => d.z,
        };
        match field {
            CtxField::Blocks(a) => axis(self.args.grid, a),
            CtxField::Block(a) => axis(self.block, a),
            CtxField::Threads => self.threads as u32,
            CtxField::Warps => self.threads.div_ceil(lanes) as u32,
            CtxField::Lanes => lanes as u32,
            CtxField::Warp => (t / lanes) as u32,
            CtxField::Thread => t as u32,
            CtxField::Lane => (t % lanes) as u32,
            CtxField::TensorCores => u32::from(lanes as u32 == crate::mma::MMA_LANES),
        }
    }
}
