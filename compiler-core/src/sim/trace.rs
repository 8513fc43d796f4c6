//! A trace of one CTA: the source statements it executed, in order, each with the threads
//! that ran it, the values its threads' variables took, the memory elements they read and
//! wrote, each collective's exchange and the barrier's arrivals. What the playground's stepper
//! and `tessera run --trace` show.
//!
//! In: the simulator's two hooks around each IR statement of the traced CTA (`Cta::block`).
//! Out: a [`Trace`].
//!
//! A step is one source statement ([`crate::ir::Stmt::statement`]) run once by the CTA's
//! active threads: the IR statements lowered from it that run one after another make one step,
//! so a `for` header's bounds check, its increment and the exit of the threads whose loop ends
//! are one step per trip, and a tile statement's loops are one step. A step's values are those
//! after it; its active threads are those that ran it.
//!
//! Invariants: the trace holds at most [`TraceLimits`] (a trace that stops there says so in
//! [`Trace::incomplete`], and the run goes on to its end); recording changes nothing in the
//! run; only the source's variables are recorded, not temporaries.

use super::*;
use crate::hierarchy::LaneMask;
use serde::{Deserialize, Serialize};

/// How much one trace may hold: the cap on steps, and on its size in bytes (about).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLimits {
    pub steps: usize,
    pub bytes: usize,
}

impl Default for TraceLimits {
    /// 20,000 steps and 32 MiB: a minute of stepping by hand is a few hundred steps, and a
    /// trace of a 1024-thread CTA stays within a browser tab's means.
    fn default() -> Self {
        Self {
            steps: 20_000,
            bytes: 32 << 20,
        }
    }
}

/// The steps one CTA took.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Trace {
    pub block: Dim3,
    pub threads: u32,
    /// `ctx.lanes`: how the threads group into warps.
    pub lanes: u32,
    /// The kernel's variables, in the order the steps' [`Write`]s number them.
    pub variables: Vec<Variable>,
    /// Each parameter's shape (empty for a scalar): how a [`MemoryAccess`]'s element index
    /// reads as coordinates.
    pub shapes: Vec<Vec<usize>>,
    pub steps: Vec<Step>,
    /// Why the trace ends before the CTA did, when it does: a cap reached, or a CTA the
    /// simulator cannot trace. (A fault ends the trace at its step; the run's result says it.)
    pub incomplete: Option<String>,
    /// Every variable's value after every [`CHECKPOINT`]th step, so that a jump to any step
    /// replays at most that many steps.
    #[serde(skip)]
    checkpoints: Vec<Vec<Option<u64>>>,
}

/// Steps between two stored states of all variables.
const CHECKPOINT: usize = 256;

/// A variable of the source: a `let`, a `var`, a `for` counter or an array's element.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variable {
    pub name: String,
    pub ty: Scalar,
    /// The statement that first gives it a value: tells apart two variables of one name.
    pub declared: Span,
}

impl Variable {
    /// A value of this variable as the trace shows it ([`Write::bits`]).
    pub fn show(&self, bits: u64) -> String {
        if self.ty.is_wide() {
            self.ty.show_wide(bits)
        } else {
            self.ty.show(bits as u32)
        }
    }
}

/// A set of the CTA's threads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threads(Vec<u64>);

impl Threads {
    fn from_flags(flags: &[bool]) -> Self {
        let mut words = vec![0u64; flags.len().div_ceil(64)];
        for (t, _) in flags.iter().enumerate().filter(|(_, &f)| f) {
            words[t / 64] |= 1 << (t % 64);
        }
        Self(words)
    }

    pub fn contains(&self, thread: u32) -> bool {
        let t = thread as usize;
        self.0.get(t / 64).is_some_and(|w| (w >> (t % 64)) & 1 == 1)
    }

    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The members among warp `warp`'s lanes, `lanes` to a warp.
    pub fn in_warp(&self, warp: u32, lanes: u32) -> LaneMask {
        let bits = (0..lanes)
            .filter(|&lane| self.contains(warp * lanes + lane))
            .fold(0u128, |bits, lane| bits | 1 << lane);
        LaneMask { bits, lanes }
    }

    fn bytes(&self) -> usize {
        self.0.len() * 8
    }
}

/// One source statement run once by the CTA's active threads.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Step {
    /// The source statement ([`crate::ir::Stmt::statement`]).
    pub statement: Span,
    /// The threads that ran it.
    pub active: Threads,
    /// The threads that had returned before it.
    pub exited: Threads,
    pub writes: Vec<Write>,
    pub accesses: Vec<MemoryAccess>,
    pub exchanges: Vec<Exchange>,
    pub barrier: Option<Barrier>,
}

/// A thread gave a variable a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Write {
    pub thread: u32,
    /// The index in [`Trace::variables`].
    pub variable: u32,
    /// The value's bits: a 64-bit variable's both words, any other's in the low 32 bits.
    pub bits: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Memory {
    /// The kernel's parameter of this index.
    Tensor(usize),
    /// The CTA's shared array of this index (a tile).
    Shared(usize),
    /// The warps' partial results a CTA collective (`sum<over ctx.thread>`) passes through
    /// shared memory, one word a warp (the PTX's `NAME_warp_partials`): counted by the memory
    /// profile, never recorded in a trace.
    Partials,
    /// A per-thread array of this index that PTX keeps in `.local` memory (an index known at
    /// run time): counted by the memory profile as NVIDIA lays local memory out, each warp's
    /// element `e` in 32 consecutive words, a lane's in word `e * 32 + lane`; never recorded
    /// in a trace.
    Local(usize),
}

/// A thread read or wrote one element (row-major index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryAccess {
    pub thread: u32,
    pub memory: Memory,
    pub element: u32,
    pub write: bool,
}

/// What a collective combined.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Exchange {
    /// For each active thread, the thread whose value it took: itself when the source lane
    /// is outside the warp or inactive (it keeps its own value, as the spec says).
    Shuffle {
        kind: Shuffle,
        sources: Vec<(u32, u32)>,
    },
    /// The active threads whose condition held.
    Vote { kind: Vote, ayes: Threads },
    /// Each active thread's input to a reduction.
    Reduce {
        kind: Reduce,
        over: Over,
        ty: Scalar,
        inputs: Vec<(u32, u32)>,
    },
    /// Each active thread's input to `prefix_sum`.
    Scan { ty: Scalar, inputs: Vec<(u32, u32)> },
    /// An atomic: each active thread's operand and the element it changed (row-major), so a
    /// view can show which lanes met on one element (they take turns there).
    Atomic {
        op: AtomicOp,
        ty: Scalar,
        memory: Memory,
        inputs: Vec<(u32, u32)>,
        elements: Vec<(u32, u32)>,
    },
}

/// Who met at a `barrier()`, by warp: every warp of the CTA is in one of the three lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Barrier {
    /// Warps whose live threads all arrived.
    pub arrived: Vec<u32>,
    /// Warps whose threads have all returned: nobody is waited for.
    pub finished: Vec<u32>,
    /// Warps with a live thread that did not arrive: the barrier faults (E0512).
    pub missing: Vec<u32>,
}

/// What a lane of a warp is at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LaneState {
    /// It ran the step.
    Active,
    /// It is live but did not run the step: its branch or loop is elsewhere.
    Inactive,
    /// It has returned.
    Exited,
    /// The CTA has no thread there: the last warp of a CTA whose size is not a multiple of
    /// the warp width.
    NoThread,
}

impl Trace {
    fn empty(block: Dim3, threads: u32, lanes: u32) -> Self {
        Self {
            block,
            threads,
            lanes: lanes.max(1),
            variables: Vec::new(),
            shapes: Vec::new(),
            steps: Vec::new(),
            incomplete: None,
            checkpoints: Vec::new(),
        }
    }

    /// A trace with no steps, and why.
    pub fn unavailable(block: Dim3, threads: u32, lanes: u32, why: String) -> Self {
        Self {
            incomplete: Some(why),
            ..Self::empty(block, threads, lanes)
        }
    }

    pub fn warps(&self) -> u32 {
        self.threads.div_ceil(self.lanes)
    }

    /// What lane `lane` of warp `warp` is at step `step`.
    pub fn lane(&self, step: usize, warp: u32, lane: u32) -> LaneState {
        let thread = warp * self.lanes + lane;
        let Some(step) = self.steps.get(step) else {
            return LaneState::NoThread;
        };
        if lane >= self.lanes || thread >= self.threads {
            LaneState::NoThread
        } else if step.active.contains(thread) {
            LaneState::Active
        } else if step.exited.contains(thread) {
            LaneState::Exited
        } else {
            LaneState::Inactive
        }
    }

    /// The value of every variable of every thread after step `step` (`None` before its
    /// first value): indexed `thread * variables + variable`.
    pub fn values_after(&self, step: usize) -> Vec<Option<u64>> {
        let step = step.min(self.steps.len().saturating_sub(1));
        let checkpoint = (step + 1) / CHECKPOINT;
        let (mut values, from) = match checkpoint.checked_sub(1) {
            Some(c) if c < self.checkpoints.len() => {
                (self.checkpoints[c].clone(), checkpoint * CHECKPOINT)
            }
            _ => (self.no_values(), 0),
        };
        for s in &self.steps[from..(step + 1).min(self.steps.len())] {
            self.apply(s, &mut values);
        }
        values
    }

    fn no_values(&self) -> Vec<Option<u64>> {
        vec![None; self.threads as usize * self.variables.len()]
    }

    fn apply(&self, step: &Step, values: &mut [Option<u64>]) {
        let vars = self.variables.len();
        for w in &step.writes {
            values[w.thread as usize * vars + w.variable as usize] = Some(w.bits);
        }
    }

    /// Stores the checkpoints, once every step is in (a trace read back from JSON has none:
    /// then [`Trace::values_after`] replays from the first step until this is called).
    pub fn checkpoint(&mut self) {
        let mut values = self.no_values();
        let mut checkpoints = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            self.apply(step, &mut values);
            if (i + 1) % CHECKPOINT == 0 {
                checkpoints.push(values.clone());
            }
        }
        self.checkpoints = checkpoints;
    }
}

/// Builds a [`Trace`] from the simulator's hooks.
pub(super) struct Recorder {
    trace: Trace,
    limits: TraceLimits,
    bytes: usize,
    /// Each register's index in the trace's variables, if it is one.
    variable_of: Vec<Option<u32>>,
    /// Each per-thread array's first element's index in the trace's variables (one variable
    /// per element, `acc[3]`, `m[2, 1]`).
    elements_of: Vec<u32>,
    /// Whether the current statement's effects are being recorded (not past a cap).
    recording: bool,
}

impl Recorder {
    pub(super) fn new(
        kernel: &Kernel,
        args: &Args,
        block: Dim3,
        lanes: u32,
        limits: TraceLimits,
    ) -> Self {
        let mut trace = Trace::empty(block, kernel.threads, lanes);
        // A 64-bit tensor's shape without its word axis: the trace speaks of elements.
        trace.shapes = args
            .params
            .iter()
            .zip(&kernel.params)
            .map(|(arg, param)| match arg {
                Arg::Tensor(t) if param.element().is_wide() => {
                    t.shape[..t.shape.len().saturating_sub(1)].to_vec()
                }
                Arg::Tensor(t) => t.shape.clone(),
                Arg::Scalar(_) => Vec::new(),
            })
            .collect();
        let mut declared = vec![None; kernel.regs.len()];
        first_assignments(&kernel.body, &mut declared);
        // A 64-bit variable, split into words (`ir::wide`), is one variable written when its
        // high word is, the last of the two: its low word's register names it.
        let mut wide_of = vec![None; kernel.regs.len()];
        for (r, info) in kernel.regs.iter().enumerate() {
            if let Some((low, ty)) = info.high_of {
                wide_of[low as usize] = Some((r, ty));
            }
        }
        let mut variable_of = vec![None; kernel.regs.len()];
        for (r, info) in kernel.regs.iter().enumerate() {
            let Some(name) = info
                .name
                .as_ref()
                .filter(|_| info.variable && info.high_of.is_none())
            else {
                continue;
            };
            let (written, name, ty) = match wide_of[r] {
                Some((high, ty)) => (high, name.strip_suffix(".lo").unwrap_or(name), ty),
                None => (r, name.as_str(), info.ty),
            };
            variable_of[written] = Some(trace.variables.len() as u32);
            trace.variables.push(Variable {
                name: name.to_owned(),
                ty,
                declared: declared[r].unwrap_or(kernel.span),
            });
        }
        let mut arrays_declared = vec![None; kernel.locals.len()];
        first_array_stores(&kernel.body, &mut arrays_declared);
        let mut elements_of = Vec::new();
        for (array, declared) in kernel.locals.iter().zip(arrays_declared) {
            elements_of.push(trace.variables.len() as u32);
            // A 64-bit element's two words (the split's last axis) are one variable.
            let shape = &array.shape[..array.shape.len() - usize::from(array.element.is_wide())];
            for e in 0..shape.iter().product::<u32>() as usize {
                let mut at = Vec::new();
                let mut rest = e;
                for &extent in shape.iter().rev() {
                    at.push((rest % extent as usize).to_string());
                    rest /= extent as usize;
                }
                at.reverse();
                trace.variables.push(Variable {
                    name: format!("{}[{}]", array.name, at.join(", ")),
                    ty: array.element,
                    declared: declared.unwrap_or(kernel.span),
                });
            }
        }
        Self {
            trace,
            limits,
            bytes: 0,
            variable_of,
            elements_of,
            recording: false,
        }
    }

    pub(super) fn finish(mut self) -> Trace {
        self.trace.checkpoint();
        self.trace
    }

    /// Starts IR statement `stmt`: a new step when it comes from another source statement
    /// than the last one. Returns whether its effects are to be recorded.
    pub(super) fn begin(&mut self, stmt: &Stmt, mask: &[bool], exited: &[bool]) -> bool {
        if self.trace.incomplete.is_some() {
            return false;
        }
        let same = self
            .trace
            .steps
            .last()
            .is_some_and(|s| s.statement == stmt.statement);
        if !same {
            if self.trace.steps.len() >= self.limits.steps || self.bytes >= self.limits.bytes {
                self.trace.incomplete = Some(format!(
                    "the trace stops at its cap ({} steps, {} MiB); the run went on to its end",
                    self.trace.steps.len(),
                    self.bytes.div_ceil(1 << 20)
                ));
                self.recording = false;
                return false;
            }
            let step = Step {
                statement: stmt.statement,
                active: Threads::from_flags(mask),
                exited: Threads::from_flags(exited),
                writes: Vec::new(),
                accesses: Vec::new(),
                exchanges: Vec::new(),
                barrier: None,
            };
            self.bytes += std::mem::size_of::<Step>() + step.active.bytes() * 2;
            self.trace.steps.push(step);
        }
        self.recording = true;
        true
    }

    /// The open step (there is one once `begin` has returned true).
    fn step(&mut self) -> Option<&mut Step> {
        self.trace.steps.last_mut()
    }

    pub(super) fn variable(&self, reg: Reg) -> Option<u32> {
        self.variable_of.get(reg.0 as usize).copied().flatten()
    }

    pub(super) fn write(&mut self, thread: usize, variable: u32, bits: u64) {
        self.bytes += std::mem::size_of::<Write>();
        if let Some(step) = self.step() {
            step.writes.push(Write {
                thread: thread as u32,
                variable,
                bits,
            });
        }
    }

    pub(super) fn access(&mut self, thread: usize, memory: Memory, element: usize, write: bool) {
        self.bytes += std::mem::size_of::<MemoryAccess>();
        if let Some(step) = self.step() {
            step.accesses.push(MemoryAccess {
                thread: thread as u32,
                memory,
                element: element as u32,
                write,
            });
        }
    }

    /// How many accesses the open step has recorded.
    pub(super) fn accesses_recorded(&mut self) -> usize {
        self.step().map_or(0, |s| s.accesses.len())
    }

    /// The (thread, element) of each access the open step recorded after the first `from`.
    pub(super) fn accesses_since(&mut self, from: usize) -> Vec<(u32, u32)> {
        self.step().map_or(Vec::new(), |s| {
            s.accesses[from.min(s.accesses.len())..]
                .iter()
                .map(|a| (a.thread, a.element))
                .collect()
        })
    }

    pub(super) fn exchange(&mut self, exchange: Exchange) {
        self.bytes += match &exchange {
            Exchange::Shuffle { sources: pairs, .. }
            | Exchange::Reduce { inputs: pairs, .. }
            | Exchange::Scan { inputs: pairs, .. } => pairs.len() * 8,
            Exchange::Vote { ayes, .. } => ayes.bytes(),
            Exchange::Atomic {
                inputs, elements, ..
            } => (inputs.len() + elements.len()) * 8,
        };
        if let Some(step) = self.step() {
            step.exchanges.push(exchange);
        }
    }

    pub(super) fn barrier(&mut self, barrier: Barrier) {
        if let Some(step) = self.step() {
            step.barrier = Some(barrier);
        }
    }
}

/// The statement of the first store into each per-thread array (its declaration's fill).
fn first_array_stores(block: &[Stmt], declared: &mut [Option<Span>]) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::LocalStore { array, .. } => {
                if let Some(slot @ None) = declared.get_mut(*array) {
                    *slot = Some(stmt.statement);
                }
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                first_array_stores(then_block, declared);
                first_array_stores(else_block, declared);
            }
            StmtKind::Loop { body, continuing } => {
                first_array_stores(body, declared);
                first_array_stores(continuing, declared);
            }
            _ => {}
        }
    }
}

/// The statement of the first `Let` into each register, in program order.
fn first_assignments(block: &[Stmt], declared: &mut [Option<Span>]) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Let { dst, .. } => {
                if let Some(slot @ None) = declared.get_mut(dst.0 as usize) {
                    *slot = Some(stmt.statement);
                }
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                first_assignments(then_block, declared);
                first_assignments(else_block, declared);
            }
            StmtKind::Loop { body, continuing } => {
                first_assignments(body, declared);
                first_assignments(continuing, declared);
            }
            _ => {}
        }
    }
}

impl<'a> Cta<'a> {
    /// Before `stmt` runs: opens its step and records what it will read, write and exchange
    /// (before, since a statement may overwrite the registers its indices came from).
    pub(super) fn trace_before(&mut self, stmt: &Stmt, mask: &[bool]) {
        let Some(recorder) = self.trace.take() else {
            return;
        };
        if recorder.begin(stmt, mask, &self.exited) {
            self.record_effects(recorder, stmt, mask);
        }
        self.trace = Some(recorder);
    }

    /// After `stmt` ran: the values it gave variables.
    pub(super) fn trace_after(&mut self, stmt: &Stmt, mask: &[bool]) {
        // Untraced (every CTA but the one the stepper follows): nothing to record, and an
        // array store's values are not gathered (that had made arrays cost 3x named scalars).
        if self.trace.is_none() {
            return;
        }
        if let StmtKind::LocalStore { array, index, .. } = &stmt.kind {
            self.trace_array_store(*array, *index, mask);
            return;
        }
        // A warp's matrix operation writes every element of its `d` fragment.
        if let StmtKind::Mma { d, .. } = &stmt.kind {
            for e in 0..self.kernel.locals.get(*d).map_or(0, LocalArray::len) {
                self.trace_array_store(*d, Operand::Const(e as u32), mask);
            }
            return;
        }
        let dst = match &stmt.kind {
            StmtKind::Let { dst, .. } | StmtKind::Atomic(Atomic { dst: Some(dst), .. }) => dst,
            _ => return,
        };
        let Some(recorder) = self.trace.as_deref_mut() else {
            return;
        };
        let Some(variable) = recorder.variable(*dst).filter(|_| recorder.recording) else {
            return;
        };
        // A 64-bit variable's high word, written after its low word: both words.
        let low = self.kernel.regs[dst.0 as usize]
            .high_of
            .map(|(low, _)| low as usize);
        let start = dst.0 as usize * self.threads;
        for t in (0..self.threads).filter(|&t| mask[t]) {
            let word = u64::from(self.regs[start + t]);
            let bits = match low {
                Some(low) => u64::from(self.regs[low * self.threads + t]) | word << 32,
                None => word,
            };
            recorder.write(t, variable, bits);
        }
    }

    /// After a store into a per-thread array: each active thread's element's new value.
    fn trace_array_store(&mut self, array: usize, index: Operand, mask: &[bool]) {
        let len = self.kernel.locals.get(array).map_or(0, LocalArray::len);
        // A 64-bit element's words are stored low, then high: the high word's store records
        // the element.
        let wide = self.kernel.locals[array].element.is_wide();
        let threads = self.threads;
        let word = |t: usize, e: usize| u64::from(self.locals[array][e * threads + t]);
        let values: Vec<(usize, usize, u64)> = (0..self.threads)
            .filter(|&t| mask[t])
            .map(|t| self.get(index, t) as usize)
            .zip((0..self.threads).filter(|&t| mask[t]))
            .filter(|&(e, _)| e < len && (!wide || e % 2 == 1))
            .map(|(e, t)| match wide {
                true => (t, e / 2, word(t, e - 1) | word(t, e) << 32),
                false => (t, e, word(t, e)),
            })
            .collect();
        let Some(recorder) = self.trace.as_deref_mut().filter(|r| r.recording) else {
            return;
        };
        let Some(&first) = recorder.elements_of.get(array) else {
            return;
        };
        for (t, e, bits) in values {
            recorder.write(t, first + e as u32, bits);
        }
    }

    fn record_effects(&self, recorder: &mut Recorder, stmt: &Stmt, mask: &[bool]) {
        let active = || (0..self.threads).filter(|&t| mask[t]);
        let inputs = |a: Operand| active().map(|t| (t as u32, self.get(a, t))).collect();
        match &stmt.kind {
            StmtKind::Let { op, .. } => match op {
                Op::Load {
                    tensor, indices, ..
                } => self.record_accesses(recorder, Memory::Tensor(*tensor), indices, mask, false),
                Op::SharedLoad { array, indices } => {
                    self.record_accesses(recorder, Memory::Shared(*array), indices, mask, false)
                }
                Op::Shuffle(kind, _, lane) => {
                    let sources = active()
                        .map(|t| {
                            let source = self.shuffle_source(*kind, *lane, mask, t).unwrap_or(t);
                            (t as u32, source as u32)
                        })
                        .collect();
                    recorder.exchange(Exchange::Shuffle {
                        kind: *kind,
                        sources,
                    });
                }
                Op::Vote(kind, a) => {
                    let ayes: Vec<bool> = (0..self.threads)
                        .map(|t| mask[t] && self.get(*a, t) != 0)
                        .collect();
                    recorder.exchange(Exchange::Vote {
                        kind: *kind,
                        ayes: Threads::from_flags(&ayes),
                    });
                }
                Op::Reduce(kind, over, ty, a) => recorder.exchange(Exchange::Reduce {
                    kind: *kind,
                    over: *over,
                    ty: *ty,
                    inputs: inputs(*a),
                }),
                Op::PrefixSum(ty, a) => recorder.exchange(Exchange::Scan {
                    ty: *ty,
                    inputs: inputs(*a),
                }),
                _ => {}
            },
            StmtKind::Store {
                tensor, indices, ..
            } => self.record_accesses(recorder, Memory::Tensor(*tensor), indices, mask, true),
            StmtKind::SharedStore { array, indices, .. } => {
                self.record_accesses(recorder, Memory::Shared(*array), indices, mask, true)
            }
            StmtKind::Atomic(Atomic {
                op,
                ty,
                place,
                value,
                ..
            }) => {
                let (memory, indices) = match place {
                    Place::Tensor { tensor, indices } => (Memory::Tensor(*tensor), indices),
                    Place::Shared { array, indices } => (Memory::Shared(*array), indices),
                };
                if self.high_word(memory, indices) {
                    return;
                }
                let before = recorder.accesses_recorded();
                self.record_accesses(recorder, memory, indices, mask, true);
                let elements = recorder.accesses_since(before);
                recorder.exchange(Exchange::Atomic {
                    op: *op,
                    ty: *ty,
                    memory,
                    inputs: inputs(*value),
                    elements,
                });
            }
            StmtKind::Barrier => recorder.barrier(self.barrier_arrivals(mask)),
            _ => {}
        }
    }

    /// Each active thread's element of `memory` at `indices`; an element outside is not
    /// recorded (a tile's guarded access skips it; an unguarded one faults, which the run
    /// reports).
    fn record_accesses(
        &self,
        recorder: &mut Recorder,
        memory: Memory,
        indices: &[Operand],
        mask: &[bool],
        write: bool,
    ) {
        if self.high_word(memory, indices) {
            return;
        }
        let shape: Vec<usize> = match memory {
            Memory::Tensor(i) => match self.args.params.get(i) {
                Some(Arg::Tensor(t)) => t.shape.clone(),
                _ => return,
            },
            Memory::Shared(i) => match self.kernel.shared.get(i) {
                Some(a) => a.shape.iter().map(|&n| n as usize).collect(),
                None => return,
            },
            Memory::Partials | Memory::Local(_) => return,
        };
        // A 64-bit tensor's low word `2 e` is its element `e`.
        let words = if self.wide_tensor(memory) { 2 } else { 1 };
        for t in (0..self.threads).filter(|&t| mask[t]) {
            if let Some(element) = self.flat_index(indices, &shape, t) {
                recorder.access(t, memory, element / words, write);
            }
        }
    }

    /// Whether `indices` reach the high words of a 64-bit tensor (`ir::wide`'s last index 1):
    /// the trace records a 64-bit element's access once, at its low word, as one access.
    fn high_word(&self, memory: Memory, indices: &[Operand]) -> bool {
        self.wide_tensor(memory) && indices.last() == Some(&Operand::Const(1))
    }

    /// Whether `memory` is a 64-bit tensor, split into words.
    fn wide_tensor(&self, memory: Memory) -> bool {
        matches!(memory, Memory::Tensor(i)
            if self.kernel.params.get(i).is_some_and(|p| p.element().is_wide()))
    }

    fn barrier_arrivals(&self, mask: &[bool]) -> Barrier {
        let lanes = self.options.lanes.max(1) as usize;
        let mut barrier = Barrier::default();
        for (w, start) in (0..self.threads).step_by(lanes).enumerate() {
            let members = start..(start + lanes).min(self.threads);
            let list = if members.clone().all(|t| self.exited[t]) {
                &mut barrier.finished
            } else if members.clone().all(|t| mask[t] || self.exited[t]) {
                &mut barrier.arrived
            } else {
                &mut barrier.missing
            };
            list.push(w as u32);
        }
        barrier
    }
}
