//! The reference simulator: runs an IR kernel on the CPU, exactly.
//!
//! In: an IR kernel, its bound arguments ([`Args`]) and [`SimOptions`]. Out: the tensors as the
//! kernel left them, statistics, or the first [`Fault`], naming the block, warp, lane, thread
//! and source span.
//!
//! Execution model: the CTAs of the grid run one after another; inside a CTA every thread runs
//! in lockstep under an active mask (one mask for the whole CTA, so its warps advance together
//! and reconverge at the end of every structured construct). That schedule is one of those the
//! language allows, and it gives the same results as any other for every program the checker
//! accepts and the simulator does not fault on: collectives need warp-uniform control, barriers
//! uniform control, and the simulator checks at run time that every live thread reaches each
//! barrier. Warp collectives combine lanes in xor-butterfly order (as a GPU's shuffle reduction
//! does), so float results are bit-identical to the PTX backend's.
//!
//! Invariants: deterministic (no threads, no hashing order); never panics on a kernel or
//! launch: faults are values.
//!
//! Here: the run's types, the grid loop and a CTA's state. Beside it: `control` (statements
//! under the active mask, loops, the step limit, barriers), `ops` (each operation, collectives
//! and shuffles), `memory` (elements, bounds, the shared-memory race detector), `arith` (the
//! arithmetic of bits), `compare` (a GPU's results against these), `trace` (one CTA's
//! steps, for the stepper) and `profile` (memory requests counted by sector, line and bank).

// Threads are addressed by index in parallel arrays (mask, registers, tensors): index loops
// read better here than zipped iterators.
#![allow(clippy::needless_range_loop)]

mod arith;
mod compare;
mod control;
mod memory;
mod ops;
mod profile;
mod trace;
mod trace_text;

pub use compare::{compare_tensor, Comparison, FLOAT_TOLERANCE};
pub use profile::{
    bank_of, conflict_degree, sector_of, sectors, stored_word, AccessSite, MemoryProfile, BANKS,
    LINE_BYTES, SECTOR_BYTES,
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

/// How the simulator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// `ctx.lanes`: 32 as on NVIDIA by default.
    pub lanes: u32,
    /// Statement executions of one CTA (each for all its active threads at once) before the
    /// run is stopped (E0514). Per CTA, so a large grid of short CTAs never reaches it while a
    /// runaway loop in any CTA does.
    pub step_limit: u64,
}

impl Default for SimOptions {
    /// NVIDIA's 32 lanes, and a million statements per CTA (a host picks its own limit from
    /// the CTA's size: `launch::RunLimits`).
    fn default() -> Self {
        Self {
            lanes: 32,
            step_limit: 1_000_000,
        }
    }
}

/// A tensor's elements as the bits of its element type, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub element: Scalar,
    pub shape: Vec<usize>,
    pub bits: Vec<u32>,
}

/// A kernel's arguments: the grid, each dimension's value, and per parameter a tensor or a
/// scalar's bits.
#[derive(Clone, Debug)]
pub struct Args {
    pub grid: Dim3,
    pub dims: Vec<i32>,
    pub params: Vec<Arg>,
}

#[derive(Clone, Debug)]
pub enum Arg {
    Tensor(Tensor),
    Scalar(u32),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Statement executions, each for a whole CTA, over the whole launch.
    pub steps: u64,
    /// Operations times the threads that executed them.
    pub lane_ops: u64,
}

/// A run-time fault: what went wrong, where in the source, and which thread did it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub code: Code,
    pub message: String,
    pub span: Span,
    pub block: Dim3,
    pub thread: u32,
    pub warp: u32,
    pub lane: u32,
}

impl Fault {
    /// The fault as a diagnostic, with the thread in its label.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let diagnostic =
            Diagnostic::error(self.code, self.span, self.message.clone()).with_label(format!(
                "in block ({}, {}, {}), warp {}, lane {}, thread {}",
                self.block.x, self.block.y, self.block.z, self.warp, self.lane, self.thread
            ));
        match self.code {
            Code::E0514 => diagnostic.with_help(
                "a loop that never ends needs an end; a kernel that is only long needs a larger limit (`tessera run --step-limit N`)",
            ),
            _ => diagnostic,
        }
    }
}

/// Runs `kernel` over the whole grid, updating the tensors in `args`.
pub fn run(kernel: &Kernel, args: &mut Args, options: SimOptions) -> Result<Stats, Fault> {
    run_recording(kernel, args, options, None)
}

/// Which thread of the launch last wrote each element of each tensor: per parameter, per
/// element, the thread's index in the whole launch plus one (0: nobody), where the launch
/// numbers threads CTA by CTA in x, y, z order ([`hierarchy::launch_thread`]). Scalars have
/// no entries.
pub type Writers = Vec<Vec<u32>>;

/// [`run`], also recording in `writers` (when given) who wrote each tensor element last.
pub fn run_recording(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    writers: Option<&mut Writers>,
) -> Result<Stats, Fault> {
    run_observed(kernel, args, options, writers, None, None)
}

/// [`run_recording`], also tracing CTA `block` (when it is in the grid) within `limits`.
pub fn run_traced(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    writers: Option<&mut Writers>,
    block: Dim3,
    limits: TraceLimits,
) -> (Result<Stats, Fault>, Trace) {
    let grid = args.grid;
    if block.x >= grid.x || block.y >= grid.y || block.z >= grid.z {
        let why = format!(
            "block ({}, {}, {}) is outside the grid ({}, {}, {})",
            block.x, block.y, block.z, grid.x, grid.y, grid.z
        );
        let result = run_observed(kernel, args, options, writers, None, None);
        return (
            result,
            Trace::unavailable(block, kernel.threads, options.lanes, why),
        );
    }
    let mut recorder = trace::Recorder::new(kernel, args, block, options.lanes, limits);
    let result = run_observed(
        kernel,
        args,
        options,
        writers,
        Some((block, &mut recorder)),
        None,
    );
    (result, recorder.finish())
}

/// [`run_recording`], also counting every memory request by sector, line and bank. A run
/// that faults gives what it counted up to the fault.
pub fn run_profiled(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    writers: Option<&mut Writers>,
) -> (Result<Stats, Fault>, MemoryProfile) {
    let mut counter = profile::Counter::default();
    let result = run_observed(kernel, args, options, writers, None, Some(&mut counter));
    (result, counter.finish())
}

fn run_observed(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    mut writers: Option<&mut Writers>,
    mut trace: Option<(Dim3, &mut trace::Recorder)>,
    mut profile: Option<&mut profile::Counter>,
) -> Result<Stats, Fault> {
    if let Some(writers) = writers.as_deref_mut() {
        *writers = args
            .params
            .iter()
            .map(|p| match p {
                Arg::Tensor(t) => vec![0; t.bits.len()],
                Arg::Scalar(_) => Vec::new(),
            })
            .collect();
    }
    let mut stats = Stats::default();
    let grid = args.grid;
    for z in 0..grid.z {
        for y in 0..grid.y {
            for x in 0..grid.x {
                let block = Dim3::new(x, y, z);
                let mut cta = Cta::new(kernel, args, options, block, &mut stats);
                cta.writers = writers.as_deref_mut();
                cta.trace = match trace.as_mut() {
                    Some((traced, recorder)) if *traced == block => Some(&mut **recorder),
                    _ => None,
                };
                cta.profile = profile.as_deref_mut();
                cta.first_thread = hierarchy::launch_thread(grid, block, kernel.threads, 0);
                let mut mask = vec![true; kernel.threads as usize];
                cta.block(&kernel.body, &mut mask)?;
            }
        }
    }
    Ok(stats)
}

struct LoopFrame {
    broken: Vec<bool>,
    continued: Vec<bool>,
}

struct Cta<'a> {
    kernel: &'a Kernel,
    args: &'a mut Args,
    options: SimOptions,
    block: Dim3,
    threads: usize,
    regs: Vec<u32>,
    exited: Vec<bool>,
    loops: Vec<LoopFrame>,
    stats: &'a mut Stats,
    /// Statements this CTA has run: what the step limit bounds.
    steps: u64,
    /// Spare mask buffers, so that an `if` in a hot loop allocates nothing.
    masks: Vec<Vec<bool>>,
    /// Operand values of the statement being run, one per thread.
    scratch: [Vec<u32>; 3],
    /// The CTA's shared memory: one array per tile.
    shared: Vec<Vec<u32>>,
    /// Who touched each shared element since the last barrier, to find data races.
    accesses: Vec<Vec<Access>>,
    /// Counts barriers: an access recorded in an older epoch is no longer in the way.
    epoch: u32,
    /// Where global stores are recorded, for the playground's per-thread view.
    writers: Option<&'a mut Writers>,
    /// The launch-wide index of this CTA's thread 0.
    first_thread: u32,
    /// Where this CTA's steps are recorded, when it is the one traced.
    trace: Option<&'a mut trace::Recorder>,
    /// Where memory requests are counted, when the run asks.
    profile: Option<&'a mut profile::Counter>,
}

/// The accesses to one shared element in the current epoch: the writer and the reader (a
/// thread index + 1; 0 for none; `u32::MAX` for several readers).
#[derive(Clone, Copy, Default)]
struct Access {
    epoch: u32,
    writer: u32,
    reader: u32,
}

impl<'a> Cta<'a> {
    fn new(
        kernel: &'a Kernel,
        args: &'a mut Args,
        options: SimOptions,
        block: Dim3,
        stats: &'a mut Stats,
    ) -> Self {
        let threads = kernel.threads as usize;
        Self {
            kernel,
            args,
            options,
            block,
            threads,
            regs: vec![0; kernel.regs.len() * threads],
            exited: vec![false; threads],
            loops: Vec::new(),
            stats,
            steps: 0,
            masks: Vec::new(),
            scratch: [vec![0; threads], vec![0; threads], vec![0; threads]],
            shared: kernel
                .shared
                .iter()
                .map(|a| vec![0; a.stored_len()])
                .collect(),
            accesses: kernel
                .shared
                .iter()
                .map(|a| vec![Access::default(); a.stored_len()])
                .collect(),
            epoch: 1,
            writers: None,
            first_thread: 0,
            trace: None,
            profile: None,
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
        }
    }
}
