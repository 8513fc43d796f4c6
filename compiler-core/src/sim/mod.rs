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

// Threads are addressed by index in parallel arrays (mask, registers, tensors): index loops
// read better here than zipped iterators.
#![allow(clippy::needless_range_loop)]

use crate::check::Scalar;
use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::Dim3;
use crate::ir::*;
use crate::span::Span;
use crate::syntax::ctx::{Axis, CtxField};

/// How the simulator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimOptions {
    /// `ctx.lanes`: 32 as on NVIDIA by default.
    pub lanes: u32,
    /// Statement executions (for a whole CTA at a time) before the run is stopped.
    pub step_limit: u64,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            lanes: 32,
            step_limit: 200_000_000,
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
    /// Statement executions, each for a whole CTA.
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
        Diagnostic::error(self.code, self.span, self.message.clone()).with_label(format!(
            "in block ({}, {}, {}), warp {}, lane {}, thread {}",
            self.block.x, self.block.y, self.block.z, self.warp, self.lane, self.thread
        ))
    }
}

/// Runs `kernel` over the whole grid, updating the tensors in `args`.
pub fn run(kernel: &Kernel, args: &mut Args, options: SimOptions) -> Result<Stats, Fault> {
    run_recording(kernel, args, options, None)
}

/// Which thread of the launch last wrote each element of each tensor: per parameter, per
/// element, the thread's index in the whole launch plus one (0: nobody), where the launch
/// numbers threads CTA by CTA in x, y, z order. Scalars have no entries.
pub type Writers = Vec<Vec<u32>>;

/// The thread index [`Writers`] records for `thread` of CTA `block`.
pub fn launch_thread(grid: Dim3, block: Dim3, threads: u32, thread: u32) -> u32 {
    ((block.z * grid.y + block.y) * grid.x + block.x) * threads + thread
}

/// [`run`], also recording in `writers` (when given) who wrote each tensor element last.
pub fn run_recording(
    kernel: &Kernel,
    args: &mut Args,
    options: SimOptions,
    mut writers: Option<&mut Writers>,
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
                cta.first_thread = launch_thread(grid, block, kernel.threads, 0);
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
}

/// The accesses to one shared element in the current epoch: the writer and the reader (a
/// thread index + 1; 0 for none; `u32::MAX` for several readers).
#[derive(Clone, Copy, Default)]
struct Access {
    epoch: u32,
    writer: u32,
    reader: u32,
}

fn combine(reduce: Reduce, ty: Scalar, a: u32, b: u32) -> u32 {
    let op = match reduce {
        Reduce::Sum => BinaryOp::Add,
        Reduce::Max => BinaryOp::Max,
        Reduce::Min => BinaryOp::Min,
        Reduce::And => BinaryOp::And,
        Reduce::Or => BinaryOp::Or,
        Reduce::Xor => BinaryOp::Xor,
    };
    binary(op, ty, a, b).unwrap_or(0)
}

/// The xor-butterfly combination of `values`, padded with the identity to a power of two at
/// least `width`: the order a GPU's shuffle reduction uses.
fn butterfly(reduce: Reduce, ty: Scalar, values: &mut Vec<u32>, width: usize) -> u32 {
    let width = width.max(values.len()).next_power_of_two().max(1);
    values.resize(width, reduce.identity(ty));
    let mut offset = width / 2;
    while offset > 0 {
        let previous = values.clone();
        for (i, value) in values.iter_mut().enumerate() {
            *value = combine(reduce, ty, previous[i], previous[i ^ offset]);
        }
        offset /= 2;
    }
    values[0]
}

/// `a op b` on bits of type `ty`; `None` for an integer division by zero.
fn binary(op: BinaryOp, ty: Scalar, a: u32, b: u32) -> Option<u32> {
    Some(match ty {
        Scalar::F32 | Scalar::F16 => {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Rem => x % y,
                BinaryOp::Min => x.min(y),
                BinaryOp::Max => x.max(y),
                _ => return Some(0),
            };
            r.to_bits()
        }
        Scalar::I32 => {
            let (x, y) = (a as i32, b as i32);
            (match op {
                BinaryOp::Add => x.wrapping_add(y),
                BinaryOp::Sub => x.wrapping_sub(y),
                BinaryOp::Mul => x.wrapping_mul(y),
                BinaryOp::Div => {
                    if y == 0 {
                        return None;
                    }
                    x.wrapping_div(y)
                }
                BinaryOp::Rem => {
                    if y == 0 {
                        return None;
                    }
                    x.wrapping_rem(y)
                }
                BinaryOp::Shl => x.wrapping_shl(b & 31),
                BinaryOp::Shr => x.wrapping_shr(b & 31),
                BinaryOp::And => x & y,
                BinaryOp::Or => x | y,
                BinaryOp::Xor => x ^ y,
                BinaryOp::Min => x.min(y),
                BinaryOp::Max => x.max(y),
            }) as u32
        }
        Scalar::U32 | Scalar::Bool => match op {
            BinaryOp::Add => a.wrapping_add(b),
            BinaryOp::Sub => a.wrapping_sub(b),
            BinaryOp::Mul => a.wrapping_mul(b),
            BinaryOp::Div => a.checked_div(b)?,
            BinaryOp::Rem => a.checked_rem(b)?,
            BinaryOp::Shl => a.wrapping_shl(b & 31),
            BinaryOp::Shr => a.wrapping_shr(b & 31),
            BinaryOp::And => a & b,
            BinaryOp::Or => a | b,
            BinaryOp::Xor => a ^ b,
            BinaryOp::Min => a.min(b),
            BinaryOp::Max => a.max(b),
        },
    })
}

fn compare(op: CompareOp, ty: Scalar, a: u32, b: u32) -> bool {
    use std::cmp::Ordering;
    let ordering = match ty {
        Scalar::F32 | Scalar::F16 => f32::from_bits(a).partial_cmp(&f32::from_bits(b)),
        Scalar::I32 => Some((a as i32).cmp(&(b as i32))),
        _ => Some(a.cmp(&b)),
    };
    match (op, ordering) {
        (CompareOp::Ne, None) => true,
        (_, None) => false,
        (CompareOp::Lt, Some(o)) => o == Ordering::Less,
        (CompareOp::Le, Some(o)) => o != Ordering::Greater,
        (CompareOp::Gt, Some(o)) => o == Ordering::Greater,
        (CompareOp::Ge, Some(o)) => o != Ordering::Less,
        (CompareOp::Eq, Some(o)) => o == Ordering::Equal,
        (CompareOp::Ne, Some(o)) => o != Ordering::Equal,
    }
}

fn cast(from: Scalar, to: Scalar, bits: u32) -> u32 {
    let as_f64 = match from {
        Scalar::F32 | Scalar::F16 => f64::from(f32::from_bits(bits)),
        Scalar::I32 => f64::from(bits as i32),
        _ => f64::from(bits),
    };
    match to {
        Scalar::F32 | Scalar::F16 => (as_f64 as f32).to_bits(),
        // Float to integer saturates and NaN gives 0, as Rust's `as` and PTX's cvt.rzi.sat do.
        Scalar::I32 => match from {
            Scalar::U32 | Scalar::Bool => bits,
            Scalar::I32 => bits,
            _ => (as_f64 as i32) as u32,
        },
        Scalar::U32 => match from {
            Scalar::I32 | Scalar::Bool | Scalar::U32 => bits,
            _ => as_f64 as u32,
        },
        Scalar::Bool => u32::from(bits != 0),
    }
}

fn math(f: MathFn, ty: Scalar, bits: u32) -> u32 {
    if ty == Scalar::I32 {
        return (bits as i32).wrapping_abs() as u32;
    }
    if ty == Scalar::U32 {
        return bits;
    }
    let x = f32::from_bits(bits);
    (match f {
        MathFn::Abs => x.abs(),
        MathFn::Sqrt => x.sqrt(),
        MathFn::Rsqrt => 1.0 / x.sqrt(),
        MathFn::Exp => x.exp(),
        MathFn::Exp2 => x.exp2(),
        MathFn::Log => x.ln(),
        MathFn::Log2 => x.log2(),
        MathFn::Sin => x.sin(),
        MathFn::Cos => x.cos(),
        MathFn::Tanh => x.tanh(),
        MathFn::Floor => x.floor(),
        MathFn::Ceil => x.ceil(),
    })
    .to_bits()
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
            masks: Vec::new(),
            scratch: [vec![0; threads], vec![0; threads], vec![0; threads]],
            shared: kernel.shared.iter().map(|a| vec![0; a.len()]).collect(),
            accesses: kernel
                .shared
                .iter()
                .map(|a| vec![Access::default(); a.len()])
                .collect(),
            epoch: 1,
            writers: None,
            first_thread: 0,
        }
    }

    /// The flat index of `tile[indices]` for thread `t`, or the out-of-bounds fault.
    fn shared_element(
        &self,
        array: usize,
        indices: &[Operand],
        t: usize,
        span: Span,
    ) -> Result<usize, Fault> {
        let Some(info) = self.kernel.shared.get(array) else {
            return Err(self.fault(Code::E0515, span, t, "a shared array is missing".into()));
        };
        let shape: Vec<usize> = info.shape.iter().map(|&n| n as usize).collect();
        self.flat_index(indices, &shape, t).ok_or_else(|| {
            let (coordinates, shape) = self.describe_access(indices, &shape, t);
            let message = format!(
                "{}[{coordinates}] is outside the tile's shape [{shape}]",
                info.name
            );
            self.fault(Code::E0510, span, t, message)
        })
    }

    /// Thread `t`'s row-major index of `indices` in `shape`, if every coordinate is inside.
    fn flat_index(&self, indices: &[Operand], shape: &[usize], t: usize) -> Option<usize> {
        if indices.len() != shape.len() {
            return None;
        }
        indices
            .iter()
            .zip(shape)
            .try_fold(0usize, |flat, (index, &extent)| {
                let i = self.get(*index, t) as i32;
                (i >= 0 && (i as usize) < extent).then(|| flat * extent + i as usize)
            })
    }

    /// "5, 300" and "4, 256": the coordinates thread `t` used and the shape, for a fault.
    fn describe_access(&self, indices: &[Operand], shape: &[usize], t: usize) -> (String, String) {
        let coordinates: Vec<String> = indices
            .iter()
            .map(|i| (self.get(*i, t) as i32).to_string())
            .collect();
        let shape: Vec<String> = shape.iter().map(usize::to_string).collect();
        (coordinates.join(", "), shape.join(", "))
    }
    /// Records thread `t`'s access to a shared element; a second thread touching it in the same
    /// epoch, one of them writing, is a data race.
    fn touch(
        &mut self,
        array: usize,
        at: usize,
        t: usize,
        write: bool,
        span: Span,
    ) -> Result<(), Fault> {
        let me = t as u32 + 1;
        let epoch = self.epoch;
        let access = &mut self.accesses[array][at];
        if access.epoch != epoch {
            *access = Access {
                epoch,
                writer: 0,
                reader: 0,
            };
        }
        let other_writer = access.writer != 0 && access.writer != me;
        let other_reader = write && access.reader != 0 && access.reader != me;
        if other_writer || other_reader {
            let other = if other_writer {
                access.writer
            } else {
                access.reader
            };
            let other = if other == u32::MAX {
                "other threads".to_owned()
            } else {
                format!("thread {}", other - 1)
            };
            let name = self
                .kernel
                .shared
                .get(array)
                .map_or("?", |a| a.name.as_str());
            let what = if other_writer { "wrote" } else { "read" };
            let verb = if write { "writes" } else { "reads" };
            return Err(self.fault(
                Code::E0513,
                span,
                t,
                format!("data race on element {at} of tile `{name}`: thread {t} {verb} it after {other} {what} it, with no barrier() between"),
            ));
        }
        if write {
            access.writer = me;
        } else {
            access.reader = if access.reader == 0 || access.reader == me {
                me
            } else {
                u32::MAX
            };
        }
        Ok(())
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

    fn take_mask(&mut self) -> Vec<bool> {
        let mut mask = self.masks.pop().unwrap_or_default();
        mask.clear();
        mask
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

    /// Drops from `mask` the threads that have left through `return`, `break` or `continue`.
    fn prune(&self, mask: &mut [bool]) {
        let frame = self.loops.last();
        for (t, active) in mask.iter_mut().enumerate() {
            if *active && (self.exited[t] || frame.is_some_and(|f| f.broken[t] || f.continued[t])) {
                *active = false;
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt], mask: &mut [bool]) -> Result<(), Fault> {
        // Only control statements change the mask: count the active threads after those.
        let mut active = mask.iter().filter(|&&m| m).count() as u64;
        for stmt in stmts {
            if active == 0 {
                return Ok(());
            }
            self.stats.steps += 1;
            if self.stats.steps > self.options.step_limit {
                let first = mask.iter().position(|&m| m).unwrap_or(0);
                return Err(self.fault(
                    Code::E0514,
                    stmt.span,
                    first,
                    format!(
                        "the kernel ran past the step limit ({} statement executions); does it ever end?",
                        self.options.step_limit
                    ),
                ));
            }
            self.stats.lane_ops += active;
            self.stmt(stmt, mask)?;
            if !matches!(
                stmt.kind,
                StmtKind::Let { .. } | StmtKind::Store { .. } | StmtKind::Barrier
            ) {
                active = mask.iter().filter(|&&m| m).count() as u64;
            }
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt, mask: &mut [bool]) -> Result<(), Fault> {
        match &stmt.kind {
            StmtKind::Let { dst, op } => self.op(*dst, op, mask, stmt.span),
            StmtKind::Store {
                tensor,
                indices,
                value,
                guarded,
            } => {
                for t in 0..self.threads {
                    if !mask[t] {
                        continue;
                    }
                    let at = match self.element(*tensor, indices, t, stmt.span) {
                        Ok(at) => at,
                        // A tile store drops what falls outside the tensor.
                        Err(fault) if *guarded && fault.code == Code::E0510 => continue,
                        Err(fault) => return Err(fault),
                    };
                    let bits = self.get(*value, t);
                    if let Some(Arg::Tensor(target)) = self.args.params.get_mut(*tensor) {
                        target.bits[at] = bits;
                    }
                    if let Some(slot) = self
                        .writers
                        .as_deref_mut()
                        .and_then(|w| w.get_mut(*tensor))
                        .and_then(|w| w.get_mut(at))
                    {
                        *slot = self.first_thread + t as u32 + 1;
                    }
                }
                Ok(())
            }
            StmtKind::SharedStore {
                array,
                indices,
                value,
            } => {
                for t in 0..self.threads {
                    if mask[t] {
                        let at = self.shared_element(*array, indices, t, stmt.span)?;
                        self.touch(*array, at, t, true, stmt.span)?;
                        let bits = self.get(*value, t);
                        self.shared[*array][at] = bits;
                    }
                }
                Ok(())
            }
            StmtKind::If {
                condition,
                then_block,
                else_block,
            } => {
                let mut then_mask = self.take_mask();
                then_mask
                    .extend((0..self.threads).map(|t| mask[t] && self.get(*condition, t) != 0));
                let mut result = self.block(then_block, &mut then_mask);
                if !else_block.is_empty() && result.is_ok() {
                    let mut else_mask = self.take_mask();
                    else_mask.extend(
                        (0..self.threads)
                            .map(|t| mask[t] && !then_mask[t] && self.get(*condition, t) == 0),
                    );
                    result = self.block(else_block, &mut else_mask);
                    self.masks.push(else_mask);
                }
                self.masks.push(then_mask);
                result?;
                self.prune(mask);
                Ok(())
            }
            StmtKind::Loop { body, continuing } => {
                let entry = mask.to_vec();
                self.loops.push(LoopFrame {
                    broken: vec![false; self.threads],
                    continued: vec![false; self.threads],
                });
                let result = self.run_loop(&entry, body, continuing);
                self.loops.pop();
                result?;
                self.prune(mask);
                Ok(())
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(stmt.kind, StmtKind::Break);
                if let Some(frame) = self.loops.last_mut() {
                    let target = if is_break {
                        &mut frame.broken
                    } else {
                        &mut frame.continued
                    };
                    for (t, active) in mask.iter_mut().enumerate() {
                        if *active {
                            target[t] = true;
                            *active = false;
                        }
                    }
                }
                Ok(())
            }
            StmtKind::Return => {
                for (t, active) in mask.iter_mut().enumerate() {
                    if *active {
                        self.exited[t] = true;
                        *active = false;
                    }
                }
                Ok(())
            }
            StmtKind::Barrier => {
                let missing = (0..self.threads).find(|&t| !mask[t] && !self.exited[t]);
                match missing {
                    None => {
                        // Accesses before the barrier cannot race with those after it.
                        self.epoch += 1;
                        Ok(())
                    }
                    Some(t) => {
                        let present = mask.iter().position(|&m| m).unwrap_or(0);
                        Err(self.fault(
                            Code::E0512,
                            stmt.span,
                            t,
                            format!("barrier() is reached by thread {present} but not by thread {t}, which has not finished"),
                        ))
                    }
                }
            }
        }
    }

    fn run_loop(
        &mut self,
        entry: &[bool],
        body: &[Stmt],
        continuing: &[Stmt],
    ) -> Result<(), Fault> {
        loop {
            let mut body_mask = self.still_looping(entry);
            if !body_mask.iter().any(|&m| m) {
                return Ok(());
            }
            self.block(body, &mut body_mask)?;
            let mut continue_mask = self.still_looping(entry);
            self.block(continuing, &mut continue_mask)?;
        }
    }

    /// The threads that entered the innermost loop and have neither left it nor the kernel;
    /// those that continued take part again, so their flags are cleared.
    fn still_looping(&mut self, entry: &[bool]) -> Vec<bool> {
        let frame = self.loops.last();
        let mask = (0..self.threads)
            .map(|t| entry[t] && !self.exited[t] && !frame.is_some_and(|f| f.broken[t]))
            .collect();
        if let Some(frame) = self.loops.last_mut() {
            frame.continued.iter_mut().for_each(|c| *c = false);
        }
        mask
    }

    /// The flat index of `tensor[indices]` for thread `t`, or the out-of-bounds fault.
    fn element(
        &self,
        tensor: usize,
        indices: &[Operand],
        t: usize,
        span: Span,
    ) -> Result<usize, Fault> {
        let Some(Arg::Tensor(data)) = self.args.params.get(tensor) else {
            return Err(self.fault(Code::E0515, span, t, "a tensor argument is missing".into()));
        };
        match self.flat_index(indices, &data.shape, t) {
            Some(flat) if flat < data.bits.len() => Ok(flat),
            _ => {
                let name = self.kernel.params.get(tensor).map_or("?", |p| p.name());
                let (coordinates, shape) = self.describe_access(indices, &data.shape, t);
                let message = format!("{name}[{coordinates}] is outside {name}'s shape [{shape}]");
                Err(self.fault(Code::E0510, span, t, message))
            }
        }
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

    fn op(&mut self, dst: Reg, op: &Op, mask: &[bool], span: Span) -> Result<(), Fault> {
        let threads = self.threads;
        match op {
            Op::Copy(a) => {
                self.zip2(dst, mask, *a, *a, |x, _| x);
                Ok(())
            }
            Op::Ctx(field) => self.lanewise(dst, mask, |c, t| c.ctx(*field, t)),
            Op::Dim(i) => {
                let value = self.args.dims.get(*i).copied().unwrap_or(0) as u32;
                self.lanewise(dst, mask, |_, _| value)
            }
            Op::Scalar(i) => {
                let value = match self.args.params.get(*i) {
                    Some(Arg::Scalar(bits)) => *bits,
                    _ => 0,
                };
                self.lanewise(dst, mask, |_, _| value)
            }
            Op::Unary(u, ty, a) => {
                let (u, ty) = (*u, *ty);
                self.lanewise(dst, mask, |c, t| {
                    let x = c.get(*a, t);
                    match (u, ty) {
                        (UnaryOp::Neg, Scalar::F32 | Scalar::F16) => (-f32::from_bits(x)).to_bits(),
                        (UnaryOp::Neg, _) => (x as i32).wrapping_neg() as u32,
                        (UnaryOp::Not, _) => u32::from(x == 0),
                        (UnaryOp::BitNot, _) => !x,
                    }
                })
            }
            Op::Binary(b, ty, x, y)
                if !matches!(b, BinaryOp::Div | BinaryOp::Rem) || ty.is_float() =>
            {
                let (b, ty) = (*b, *ty);
                self.zip2(dst, mask, *x, *y, |p, q| binary(b, ty, p, q).unwrap_or(0));
                Ok(())
            }
            Op::Binary(b, ty, x, y) => {
                for t in 0..threads {
                    if mask[t] {
                        match binary(*b, *ty, self.get(*x, t), self.get(*y, t)) {
                            Some(v) => self.set(dst, t, v),
                            None => {
                                return Err(self.fault(
                                    Code::E0511,
                                    span,
                                    t,
                                    format!(
                                        "integer {} by zero: {} {} 0",
                                        if *b == BinaryOp::Div {
                                            "division"
                                        } else {
                                            "remainder"
                                        },
                                        self.get(*x, t) as i32,
                                        if *b == BinaryOp::Div { "/" } else { "%" }
                                    ),
                                ));
                            }
                        }
                    }
                }
                Ok(())
            }
            Op::Compare(c, ty, x, y) => self.lanewise(dst, mask, |s, t| {
                u32::from(compare(*c, *ty, s.get(*x, t), s.get(*y, t)))
            }),
            Op::Select(c, a, b) => self.lanewise(dst, mask, |s, t| {
                if s.get(*c, t) != 0 {
                    s.get(*a, t)
                } else {
                    s.get(*b, t)
                }
            }),
            Op::Fma(a, b, c) => self.lanewise(dst, mask, |s, t| {
                f32::from_bits(s.get(*a, t))
                    .mul_add(f32::from_bits(s.get(*b, t)), f32::from_bits(s.get(*c, t)))
                    .to_bits()
            }),
            Op::Math(f, ty, a) => self.lanewise(dst, mask, |s, t| math(*f, *ty, s.get(*a, t))),
            Op::Cast { from, to, value } => {
                self.lanewise(dst, mask, |s, t| cast(*from, *to, s.get(*value, t)))
            }
            Op::Load {
                tensor,
                indices,
                guarded: false,
            } if indices.len() <= 3 => {
                let coordinates: Vec<Vec<u32>> = indices
                    .iter()
                    .enumerate()
                    .map(|(slot, i)| self.load(slot, *i))
                    .collect();
                let Some(Arg::Tensor(data)) = self.args.params.get(*tensor) else {
                    return Err(self.fault(
                        Code::E0515,
                        span,
                        0,
                        "a tensor argument is missing".into(),
                    ));
                };
                let rank_fits = indices.len() == data.shape.len();
                let start = dst.0 as usize * threads;
                let mut outside = None;
                let out = &mut self.regs[start..start + threads];
                for t in 0..threads {
                    if !mask[t] {
                        continue;
                    }
                    let mut flat = 0usize;
                    let mut inside = rank_fits;
                    for (values, extent) in coordinates.iter().zip(&data.shape) {
                        let i = values[t] as i32 as isize;
                        inside &= i >= 0 && (i as usize) < *extent;
                        flat = flat.wrapping_mul(*extent).wrapping_add(i as usize);
                    }
                    match data.bits.get(flat) {
                        Some(bits) if inside => out[t] = *bits,
                        _ => {
                            outside = Some(t);
                            break;
                        }
                    }
                }
                for (slot, values) in coordinates.into_iter().enumerate() {
                    self.scratch[slot] = values;
                }
                match outside {
                    Some(t) => self.element(*tensor, indices, t, span).map(|_| ()),
                    None => Ok(()),
                }
            }
            Op::Load {
                tensor,
                indices,
                guarded,
            } => {
                for t in 0..threads {
                    if !mask[t] {
                        continue;
                    }
                    let bits = match self.element(*tensor, indices, t, span) {
                        Ok(at) => match self.args.params.get(*tensor) {
                            Some(Arg::Tensor(data)) => data.bits[at],
                            _ => 0,
                        },
                        // A tile load reads 0 outside the tensor.
                        Err(fault) if *guarded && fault.code == Code::E0510 => 0,
                        Err(fault) => return Err(fault),
                    };
                    self.set(dst, t, bits);
                }
                Ok(())
            }
            Op::SharedLoad { array, indices } => {
                for t in 0..threads {
                    if mask[t] {
                        let at = self.shared_element(*array, indices, t, span)?;
                        self.touch(*array, at, t, false, span)?;
                        let bits = self.shared[*array][at];
                        self.set(dst, t, bits);
                    }
                }
                Ok(())
            }
            Op::Reduce(r, over, ty, a) => {
                // Each warp's butterfly; over the CTA, then a butterfly over the warps' results.
                let lanes = self.options.lanes.max(1) as usize;
                let warps: Vec<Vec<usize>> = (0..threads)
                    .step_by(lanes)
                    .map(|start| {
                        (start..(start + lanes).min(threads))
                            .filter(|&t| mask[t])
                            .collect()
                    })
                    .filter(|members: &Vec<usize>| !members.is_empty())
                    .collect();
                let mut results: Vec<u32> = warps
                    .iter()
                    .map(|members| {
                        let mut values: Vec<u32> =
                            members.iter().map(|&t| self.get(*a, t)).collect();
                        // A partial warp pads its missing lanes with the identity up to the
                        // full width, as the shuffle butterfly on a GPU does.
                        butterfly(*r, *ty, &mut values, lanes)
                    })
                    .collect();
                if *over == Over::Cta {
                    let total = butterfly(*r, *ty, &mut results.clone(), 1);
                    results.iter_mut().for_each(|v| *v = total);
                }
                for (members, value) in warps.iter().zip(results) {
                    for &t in members {
                        self.set(dst, t, value);
                    }
                }
                Ok(())
            }
            Op::Vote(v, a) => {
                let lanes = self.options.lanes.max(1) as usize;
                self.warp_collective(dst, mask, |s, members| {
                    let result = match v {
                        Vote::Any => u32::from(members.iter().any(|&t| s.get(*a, t) != 0)),
                        Vote::All => u32::from(members.iter().all(|&t| s.get(*a, t) != 0)),
                        Vote::Ballot => members
                            .iter()
                            .filter(|&&t| s.get(*a, t) != 0)
                            .fold(0u32, |bits, &t| {
                                bits | 1u32.checked_shl((t % lanes) as u32).unwrap_or(0)
                            }),
                    };
                    vec![result; members.len()]
                });
                Ok(())
            }
            Op::PrefixSum(ty, a) => {
                // Hillis-Steele order (distance 1, 2, 4, …), as a GPU's shuffle-up scan adds,
                // so float results match it bit for bit.
                self.warp_collective(dst, mask, |s, members| {
                    let mut values: Vec<u32> = members.iter().map(|&t| s.get(*a, t)).collect();
                    let mut distance = 1;
                    while distance < values.len() {
                        let previous = values.clone();
                        for l in distance..values.len() {
                            values[l] =
                                combine(Reduce::Sum, *ty, previous[l - distance], previous[l]);
                        }
                        distance *= 2;
                    }
                    values
                });
                Ok(())
            }
            Op::Shuffle(kind, x, l) => {
                let lanes = self.options.lanes.max(1) as i64;
                let mut out = vec![0u32; threads];
                for t in 0..threads {
                    if !mask[t] {
                        continue;
                    }
                    let lane = (t as i64) % lanes;
                    let base = t as i64 - lane;
                    let arg = self.get(*l, t) as i32 as i64;
                    let source = match kind {
                        Shuffle::Index | Shuffle::Broadcast => arg.rem_euclid(lanes),
                        Shuffle::Xor => lane ^ arg,
                        Shuffle::Up => lane - arg,
                        Shuffle::Down => lane + arg,
                    };
                    let thread = base + source;
                    let exists = (0..lanes).contains(&source)
                        && (thread as usize) < threads
                        && mask[thread as usize];
                    out[t] = if exists {
                        self.get(*x, thread as usize)
                    } else {
                        self.get(*x, t)
                    };
                }
                for t in 0..threads {
                    if mask[t] {
                        self.set(dst, t, out[t]);
                    }
                }
                Ok(())
            }
        }
    }

    fn lanewise(
        &mut self,
        dst: Reg,
        mask: &[bool],
        f: impl Fn(&Self, usize) -> u32,
    ) -> Result<(), Fault> {
        for t in 0..self.threads {
            if mask[t] {
                let v = f(self, t);
                self.set(dst, t, v);
            }
        }
        Ok(())
    }

    /// Calls `f` with the active threads of each warp, in lane order, and writes back what it
    /// returns for each.
    fn warp_collective(
        &mut self,
        dst: Reg,
        mask: &[bool],
        f: impl Fn(&Self, &[usize]) -> Vec<u32>,
    ) {
        let lanes = self.options.lanes.max(1) as usize;
        for start in (0..self.threads).step_by(lanes) {
            let end = (start + lanes).min(self.threads);
            let members: Vec<usize> = (start..end).filter(|&t| mask[t]).collect();
            if !members.is_empty() {
                let results = f(self, &members);
                for (&t, v) in members.iter().zip(results) {
                    self.set(dst, t, v);
                }
            }
        }
    }
}
