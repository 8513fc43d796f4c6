//! Running a program: its launches one after another over its tensors, on the simulator or,
//! through the same walk, on a GPU (the runtime hands [`PreparedProgram::execute`] a function
//! that runs one launch).
//!
//! In: a [`PreparedProgram`] (the launch bound to the program's signature, as a kernel's is).
//! Out: the program's tensors after its last launch, or the first problem: a size that does not
//! evaluate (E0515, at its expression's statement), a launch's fault (named with the launch),
//! a `while` past its limit (E0517).
//!
//! Invariants: launches run in source order, each to its end before the next starts (what
//! makes a program's passes ordered where a kernel's CTAs are not); temporaries start as zeros;
//! `swap` trades two names' tensors without a copy.

use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::Dim3;
use crate::ir::{
    CompareOp, Condition, DimRef, Kernel, LaunchArg, Module, Param, Program, Scalar, Size, Step,
};
use crate::launch::{PreparedRun, MAX_ELEMENTS};
use crate::sim::{
    self, Arg, Args, MemoryProfile, Observers, SimOptions, Stats, Tensor, Trace, TraceLimits,
};
use crate::span::Span;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::task::{Context, Poll};

/// A program with its launch bound: the inputs built, its dimensions known.
pub struct PreparedProgram<'m> {
    pub module: &'m Module,
    pub program: &'m Program,
    /// The launch bound to the program's signature.
    pub run: PreparedRun<'m>,
    /// The most elements a temporary may hold (the host's limit).
    pub max_elements: u64,
    /// The most launches a run may make ([`MAX_LAUNCHES`] unless set lower): a loop of a
    /// billion passes stops with E0517 instead of running for hours.
    pub max_launches: usize,
}

/// The launches and loop passes a program run makes at most, by default: 65,536, under a
/// second of the smallest kernels on the simulator and some seconds on a software GPU
/// (lavapipe took 108 s for 2^20), so a runaway loop stops in the spirit of a kernel's step
/// limit; BENCHMARKS.md has the figures.
pub const MAX_LAUNCHES: usize = 1 << 16;

/// One launch a program made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchRecord {
    pub kernel: String,
    pub grid: Dim3,
    /// The `launch` statement.
    pub span: Span,
}

/// What a program run gives.
#[derive(Clone, Debug)]
pub struct ProgramOutput {
    /// The program's parameters after its last launch.
    pub args: Args,
    /// Summed over its launches.
    pub stats: Stats,
    pub launches: Vec<LaunchRecord>,
}

/// What runs a program's launches ([`PreparedProgram::execute_with`]).
pub trait Runner<'m> {
    type Error;

    /// Runs one launch: the kernel, its arguments (its tensors moved in), the program's
    /// storage slot of each tensor parameter (`None` for a scalar; a slot keeps its identity
    /// through `swap`), and the launch. Gives the arguments back when it is done; a runner
    /// that keeps tensors on its device may give them back as they came, and is asked for
    /// them by [`Runner::fetch`] when the walk reads them.
    fn launch(
        &mut self,
        kernel: &'m Kernel,
        args: Args,
        slots: Vec<Option<usize>>,
        record: LaunchRecord,
    ) -> impl Future<Output = (Args, Result<Stats, Self::Error>)>;

    /// Slot `slot`'s tensor as the launches left it, given the walk's copy.
    fn fetch(
        &mut self,
        slot: usize,
        tensor: Tensor,
    ) -> impl Future<Output = Result<Tensor, Self::Error>>;
}

/// A runner whose launches give their tensors back, as [`PreparedProgram::execute`] and
/// [`PreparedProgram::execute_async`] take them.
struct HostRunner<F>(F);

impl<'m, E, F, Done> Runner<'m> for HostRunner<F>
where
    F: FnMut(&'m Kernel, Args, LaunchRecord) -> Done,
    Done: Future<Output = (Args, Result<Stats, E>)>,
{
    type Error = E;

    fn launch(
        &mut self,
        kernel: &'m Kernel,
        args: Args,
        _: Vec<Option<usize>>,
        record: LaunchRecord,
    ) -> impl Future<Output = (Args, Result<Stats, E>)> {
        (self.0)(kernel, args, record)
    }

    fn fetch(&mut self, _: usize, tensor: Tensor) -> impl Future<Output = Result<Tensor, E>> {
        std::future::ready(Ok(tensor))
    }
}

/// Why a program stopped: a problem of the program itself, or of a launch's runner.
#[derive(Debug)]
pub enum ProgramError<E> {
    Program(Diagnostic),
    /// What the launch's runner said, and the launch.
    Launch(Box<(E, LaunchRecord)>),
}

/// The program's tensors while it runs: a slot per buffer (parameters, then temporaries), and
/// which slot each name holds now (`swap` trades them).
struct Buffers {
    tensors: Vec<Option<Tensor>>,
    slot: Vec<usize>,
}

impl Buffers {
    fn get(&self, buffer: usize) -> Option<&Tensor> {
        self.slot
            .get(buffer)
            .and_then(|&s| self.tensors.get(s))
            .and_then(Option::as_ref)
    }

    fn take(&mut self, buffer: usize) -> Option<Tensor> {
        let slot = *self.slot.get(buffer)?;
        self.tensors.get_mut(slot)?.take()
    }

    fn put(&mut self, buffer: usize, tensor: Tensor) {
        if let Some(&slot) = self.slot.get(buffer) {
            if let Some(place) = self.tensors.get_mut(slot) {
                *place = Some(tensor);
            }
        }
    }
}

/// A walk's state: the values it evaluates sizes from.
struct Walk<'p> {
    program: &'p Program,
    module: &'p Module,
    dims: Vec<i64>,
    scalars: Vec<Option<(Scalar, u64)>>,
    counters: Vec<i64>,
    buffers: Buffers,
    stats: Stats,
    launches: Vec<LaunchRecord>,
    max_elements: u64,
    max_launches: usize,
    /// Launches and loop passes so far.
    work: usize,
    /// Per slot: whether the runner's copy may be newer than the walk's (a launch wrote it).
    stale: Vec<bool>,
}

impl<'m> PreparedProgram<'m> {
    /// What each launch's run observes: the host's stop ([`PreparedRun::stop`]), so an
    /// interrupt stops the launch under way and, by its fault, the program.
    fn stoppable(&self) -> Observers<'_> {
        Observers {
            stop: self.run.stop.as_deref(),
            ..Observers::default()
        }
    }

    /// Runs the program on the simulator. A run on several threads that stops at a race
    /// (E0516) runs again on one, as a kernel's does, so the report never depends on them.
    pub fn simulate(&self) -> Result<ProgramOutput, Diagnostic> {
        let (result, ()) = self.in_either_order(|options| {
            let mut made = 0;
            let result = self.execute(|kernel, args, _| {
                made += 1;
                sim::run_with(kernel, args, options, self.stoppable())
                    .map_err(|fault| fault.to_diagnostic().in_launch(made - 1))
            });
            (result, ())
        });
        result.map_err(|error| self.explain(error))
    }

    /// [`simulate`](Self::simulate), also counting every memory request of every launch
    /// (`sim::profile`'s rules): an access in the source that several launches make counts
    /// them all. The counts go up to a fault, if one ends the run.
    pub fn simulate_profiled(&self) -> (Result<ProgramOutput, Diagnostic>, MemoryProfile) {
        let (result, profile) = self.in_either_order(|options| {
            let mut profile = MemoryProfile::default();
            let mut made = 0;
            let result = self.execute(|kernel, args, _| {
                let (result, counted) = sim::run_profiled(kernel, args, options, self.stoppable());
                profile.merge(counted);
                made += 1;
                result.map_err(|fault| fault.to_diagnostic().in_launch(made - 1))
            });
            (result, profile)
        });
        (result.map_err(|error| self.explain(error)), profile)
    }

    /// [`simulate`](Self::simulate), also tracing CTA `block` of the program's launch number
    /// `launch` (from 0, in the order the run makes them) within `limits`: the launch and its
    /// trace, or `None` when the run ends before that launch.
    pub fn simulate_traced(
        &self,
        launch: usize,
        block: Dim3,
        limits: TraceLimits,
    ) -> (
        Result<ProgramOutput, Diagnostic>,
        Option<(LaunchRecord, Trace)>,
    ) {
        let (result, traced) = self.in_either_order(|options| {
            let mut made = 0;
            let mut traced = None;
            let result = self.execute(|kernel, args, record| {
                let result = if made == launch {
                    let (result, trace) =
                        sim::run_traced(kernel, args, options, self.stoppable(), block, limits);
                    traced = Some((record.clone(), trace));
                    result
                } else {
                    sim::run_with(kernel, args, options, self.stoppable())
                };
                made += 1;
                result.map_err(|fault| fault.to_diagnostic().in_launch(made as u32 - 1))
            });
            (result, traced)
        });
        (result.map_err(|error| self.explain(error)), traced)
    }

    /// `run` with the launch's options; and when several threads ran the CTAs and a launch
    /// stopped at a race on a tensor (E0516), once more on one thread, as
    /// [`PreparedRun`]'s runs do.
    ///
    /// And when a kernel the program launches has CTAs that can observe each other, a run
    /// that ends without a fault runs again with every launch's CTAs in reverse grid order,
    /// whose race or stop is the report, as a kernel's run does
    /// ([`PreparedRun`]'s decision, issue 51).
    fn in_either_order<T>(
        &self,
        run: impl Fn(SimOptions) -> (Result<ProgramOutput, ProgramError<Diagnostic>>, T),
    ) -> (Result<ProgramOutput, ProgramError<Diagnostic>>, T) {
        let first = run(self.run.options);
        let first = match &first.0 {
            Err(ProgramError::Launch(failure))
                if failure.0.code == Code::E0516 && self.run.options.threads > 1 =>
            {
                run(SimOptions {
                    threads: 1,
                    ..self.run.options
                })
            }
            _ => first,
        };
        let observes = self
            .program
            .kernels()
            .iter()
            .any(|&k| self.module.kernels[k].ctas_observe_each_other());
        if first.0.is_err() || !observes {
            return first;
        }
        let reverse = run(SimOptions {
            threads: 1,
            order: crate::sim::CtaOrder::Reverse,
            ..self.run.options
        });
        match &reverse.0 {
            Err(ProgramError::Launch(failure))
                if matches!(failure.0.code, Code::E0516 | Code::E0514) =>
            {
                reverse
            }
            _ => first,
        }
    }

    /// The WGSL a GPU runs one of the program's kernels with, its loops guarded by the run's
    /// step limit, as a kernel's launch is ([`PreparedRun::wgsl`]).
    pub fn wgsl(
        &self,
        kernel: &Kernel,
        mode: crate::wgsl::WarpMode,
    ) -> Result<crate::wgsl::Wgsl, Diagnostic> {
        crate::wgsl::emit(kernel, self.run.options.lanes, mode, self.loop_guard())
    }

    /// The PTX an NVIDIA GPU runs one of the program's kernels with, guarded alike.
    pub fn ptx(
        &self,
        kernel: &Kernel,
        source: &str,
        arch: crate::ptx::Arch,
    ) -> Result<crate::ptx::Ptx, Diagnostic> {
        crate::ptx::emit(kernel, source, arch, self.loop_guard())
    }

    fn loop_guard(&self) -> crate::guard::Guard {
        crate::guard::Guard::Trips(u32::try_from(self.run.options.step_limit).unwrap_or(u32::MAX))
    }

    /// A problem as one diagnostic: a launch's names the launch.
    pub fn explain(&self, error: ProgramError<Diagnostic>) -> Diagnostic {
        match error {
            ProgramError::Program(d) => d,
            ProgramError::Launch(failure) => self.in_launch(failure.0, &failure.1),
        }
    }

    /// `diagnostic`, with the launch it happened in pointed at.
    pub fn in_launch(&self, diagnostic: Diagnostic, record: &LaunchRecord) -> Diagnostic {
        let grid = record.grid;
        diagnostic.with_secondary(
            record.span,
            format!(
                "in this launch of `{}` (grid {} x {} x {}) by program `{}`",
                record.kernel, grid.x, grid.y, grid.z, self.program.name
            ),
        )
    }

    /// Walks the program, running each launch with `launch_one` (given the kernel, its
    /// arguments, and the launch); the program's tensors after the last.
    pub fn execute<E>(
        &self,
        mut launch_one: impl FnMut(&Kernel, &mut Args, &LaunchRecord) -> Result<Stats, E>,
    ) -> Result<ProgramOutput, ProgramError<E>> {
        let walk = self.execute_async(|kernel, mut args, record| {
            let result = launch_one(kernel, &mut args, &record);
            std::future::ready((args, result))
        });
        // Every launch above is done when it returns: the walk never waits.
        let mut walk = std::pin::pin!(walk);
        match walk
            .as_mut()
            .poll(&mut Context::from_waker(std::task::Waker::noop()))
        {
            Poll::Ready(output) => output,
            Poll::Pending => unreachable!("a synchronous launch never waits"),
        }
    }

    /// [`execute`](Self::execute) for a runner whose launches finish later (WebGPU in the
    /// browser): `launch_one` takes a launch's arguments and gives them back, as the launch
    /// left them, when it is done.
    pub async fn execute_async<E, F, Done>(
        &self,
        launch_one: F,
    ) -> Result<ProgramOutput, ProgramError<E>>
    where
        F: FnMut(&'m Kernel, Args, LaunchRecord) -> Done,
        Done: Future<Output = (Args, Result<Stats, E>)>,
    {
        self.execute_with(&mut HostRunner(launch_one)).await
    }

    /// The walk, for any [`Runner`]: one that keeps the program's tensors on its device
    /// between launches is asked for a tensor only when the walk reads it (a `while`
    /// condition's element, a size, the program's results at the end).
    pub async fn execute_with<R: Runner<'m>>(
        &self,
        runner: &mut R,
    ) -> Result<ProgramOutput, ProgramError<R::Error>> {
        let signature = &self.program.signature;
        let args = &self.run.args;
        let mut tensors: Vec<Option<Tensor>> = args
            .params
            .iter()
            .map(|p| match p {
                Arg::Tensor(t) => Some(t.clone()),
                Arg::Scalar(_) => None,
            })
            .collect();
        let scalars = signature
            .params
            .iter()
            .zip(&args.params)
            .map(|(p, a)| match (p, a) {
                (Param::Scalar { ty, .. }, Arg::Scalar(bits)) => Some((*ty, *bits)),
                _ => None,
            })
            .collect();
        let mut walk = Walk {
            program: self.program,
            module: self.module,
            dims: args.dims.iter().map(|&d| i64::from(d)).collect(),
            scalars,
            counters: vec![0; self.program.counters.len()],
            buffers: Buffers {
                tensors: Vec::new(),
                slot: Vec::new(),
            },
            stats: Stats::default(),
            launches: Vec::new(),
            max_elements: self.max_elements.min(MAX_ELEMENTS as u64),
            max_launches: self.max_launches,
            work: 0,
            stale: Vec::new(),
        };
        for temporary in &self.program.temporaries {
            let mut shape = Vec::new();
            for extent in &temporary.extents {
                let n = walk
                    .eval(extent, temporary.span)
                    .map_err(ProgramError::Program)?;
                if n < 1 || n as u64 > walk.max_elements {
                    return Err(ProgramError::Program(size_problem(
                        temporary.span,
                        format!("temporary `{}` would have an extent of {n}", temporary.name),
                    )));
                }
                shape.push(n as usize);
            }
            // Counted exactly: four extents under the limit multiply to under 2^128, where a
            // `usize` product would wrap and let a huge tensor pass as a small one.
            let len = shape.iter().fold(1u128, |n, &e| n * e as u128);
            if len > u128::from(walk.max_elements) {
                return Err(ProgramError::Program(size_problem(
                    temporary.span,
                    format!(
                        "temporary `{}` would hold {len} elements, over the limit of {}",
                        temporary.name, walk.max_elements
                    ),
                )));
            }
            let len = len as usize;
            tensors.push(Some(Tensor {
                element: temporary.element,
                shape,
                bits: vec![0; len * temporary.element.words()],
            }));
        }
        walk.buffers.slot = (0..tensors.len()).collect();
        walk.stale = vec![false; tensors.len()];
        walk.buffers.tensors = tensors;
        walk.steps(&self.program.body, runner).await?;
        walk.refresh(0..signature.params.len(), runner).await?;
        let mut params = args.params.clone();
        for (i, param) in params.iter_mut().enumerate() {
            if let Arg::Tensor(t) = param {
                if let Some(tensor) = walk.buffers.take(i) {
                    *t = tensor;
                }
            }
        }
        Ok(ProgramOutput {
            args: Args {
                grid: args.grid,
                dims: args.dims.clone(),
                params,
            },
            stats: walk.stats,
            launches: walk.launches,
        })
    }
}

/// A size that cannot be used, at its statement: a launch problem.
fn size_problem(span: Span, message: String) -> Diagnostic {
    Diagnostic::error(Code::E0515, span, message)
        .with_label("evaluated with this run's dimensions and scalars")
}

impl<'m> Walk<'m> {
    async fn steps<R: Runner<'m>>(
        &mut self,
        steps: &[Step],
        runner: &mut R,
    ) -> Result<(), ProgramError<R::Error>> {
        for step in steps {
            match step {
                Step::Launch {
                    kernel,
                    args,
                    grid,
                    span,
                } => {
                    let sizes = args.iter().filter_map(|a| match a {
                        LaunchArg::Integer(size) => Some(size),
                        _ => None,
                    });
                    let read = grid.iter().chain(sizes).flat_map(Size::buffers_read);
                    self.refresh(read.collect::<Vec<_>>(), runner).await?;
                    self.launch(*kernel, args, grid, *span, runner).await?
                }
                Step::For {
                    counter,
                    start,
                    end,
                    step: by,
                    body,
                    span,
                } => {
                    let read = [start, end, by].into_iter().flat_map(Size::buffers_read);
                    self.refresh(read.collect::<Vec<_>>(), runner).await?;
                    let values = [start, end, by]
                        .map(|s| self.eval(s, *span))
                        .into_iter()
                        .collect::<Result<Vec<i64>, Diagnostic>>()
                        .map_err(ProgramError::Program)?;
                    let (mut i, end, by) = (values[0], values[1], values[2]);
                    if by == 0 {
                        return Err(ProgramError::Program(size_problem(
                            *span,
                            "the loop's step is 0".into(),
                        )));
                    }
                    while (by > 0 && i < end) || (by < 0 && i > end) {
                        self.count_work(*span).map_err(ProgramError::Program)?;
                        self.counters[*counter] = i;
                        Box::pin(self.steps(body, runner)).await?;
                        i += by;
                    }
                }
                Step::While {
                    condition,
                    limit,
                    body,
                    span,
                } => {
                    self.refresh(limit.buffers_read(), runner).await?;
                    let limit = self.eval(limit, *span).map_err(ProgramError::Program)?;
                    if limit < 0 {
                        return Err(ProgramError::Program(
                            Diagnostic::error(
                                Code::E0515,
                                *span,
                                format!("the loop's limit is {limit}: a limit of passes is 0 or more"),
                            )
                            .with_label("evaluated with this run's dimensions and scalars")
                            .with_help("give the loop a limit of 0 or more passes, as in while Count[0] != 0 limit 100 { ... }"),
                        ));
                    }
                    let mut passes = 0;
                    loop {
                        self.refresh(condition.buffers_read(), runner).await?;
                        if !self
                            .holds(condition, *span)
                            .map_err(ProgramError::Program)?
                        {
                            break;
                        }
                        if passes >= limit {
                            return Err(ProgramError::Program(
                                Diagnostic::error(
                                    Code::E0517,
                                    *span,
                                    format!("the loop ran its limit of {limit} passes, and its condition still holds"),
                                )
                                .with_label("still true after the last pass")
                                .with_help("raise the limit if more passes are expected, or look for a kernel that never makes the condition false"),
                            ));
                        }
                        self.count_work(*span).map_err(ProgramError::Program)?;
                        Box::pin(self.steps(body, runner)).await?;
                        passes += 1;
                    }
                }
                Step::If {
                    condition,
                    then,
                    otherwise,
                    span,
                } => {
                    self.refresh(condition.buffers_read(), runner).await?;
                    let holds = self
                        .holds(condition, *span)
                        .map_err(ProgramError::Program)?;
                    let branch = if holds { then } else { otherwise };
                    Box::pin(self.steps(branch, runner)).await?;
                }
                Step::Swap(a, b, span) => {
                    self.same_shape(*a, *b, *span)
                        .map_err(ProgramError::Program)?;
                    self.buffers.slot.swap(*a, *b)
                }
            }
        }
        Ok(())
    }

    async fn launch<R: Runner<'m>>(
        &mut self,
        index: usize,
        args: &[LaunchArg],
        grid: &[Size; 3],
        span: Span,
        runner: &mut R,
    ) -> Result<(), ProgramError<R::Error>> {
        let module = self.module;
        let Some(kernel) = module.kernels.get(index) else {
            return Ok(());
        };
        self.count_work(span).map_err(ProgramError::Program)?;
        let mut axes = [1u32; 3];
        for ((axis, size), (most, name)) in axes
            .iter_mut()
            .zip(grid)
            .zip(crate::target::MAX_GRID.into_iter().zip(["x", "y", "z"]))
        {
            let n = self.eval(size, span).map_err(ProgramError::Program)?;
            if !(1..=i64::from(most)).contains(&n) {
                return Err(ProgramError::Program(size_problem(
                    span,
                    format!(
                        "the launch of `{}` would have a grid of {n} CTAs on axis {name}: from 1 to {most}",
                        kernel.name
                    ),
                )));
            }
            *axis = n as u32;
        }
        let record = LaunchRecord {
            kernel: kernel.name.clone(),
            grid: Dim3::new(axes[0], axes[1], axes[2]),
            span,
        };
        let bound = self
            .bind(kernel, args, record.grid, span)
            .map_err(ProgramError::Program)?;
        let slots: Vec<Option<usize>> = args
            .iter()
            .map(|a| match a {
                LaunchArg::Buffer(b) => self.buffers.slot.get(*b).copied(),
                _ => None,
            })
            .collect();
        for param in kernel.written_tensors() {
            if let Some(&Some(slot)) = slots.get(param) {
                self.stale[slot] = true;
            }
        }
        let (bound, result) = runner.launch(kernel, bound, slots, record.clone()).await;
        // The tensors go back to their names, whatever the launch did.
        for (param, arg) in bound.params.into_iter().zip(args) {
            if let (Arg::Tensor(tensor), LaunchArg::Buffer(b)) = (param, arg) {
                self.buffers.put(*b, tensor);
            }
        }
        let stats = result.map_err(|e| ProgramError::Launch(Box::new((e, record.clone()))))?;
        self.stats += stats;
        self.launches.push(record);
        Ok(())
    }

    /// Brings `buffers` up to date from the runner where a launch wrote them since.
    async fn refresh<R: Runner<'m>>(
        &mut self,
        buffers: impl IntoIterator<Item = usize>,
        runner: &mut R,
    ) -> Result<(), ProgramError<R::Error>> {
        for buffer in buffers {
            let Some(&slot) = self.buffers.slot.get(buffer) else {
                continue;
            };
            if !self.stale.get(slot).copied().unwrap_or(false) {
                continue;
            }
            let Some(tensor) = self.buffers.tensors[slot].take() else {
                continue;
            };
            match runner.fetch(slot, tensor).await {
                Ok(tensor) => self.buffers.tensors[slot] = Some(tensor),
                Err(error) => {
                    let record = self.launches.last().cloned();
                    let record = record.unwrap_or(LaunchRecord {
                        kernel: String::new(),
                        grid: Dim3::new(1, 1, 1),
                        span: self.program.span,
                    });
                    return Err(ProgramError::Launch(Box::new((error, record))));
                }
            }
            self.stale[slot] = false;
        }
        Ok(())
    }

    /// The kernel's arguments: its tensors moved out of the program's buffers, its scalars,
    /// and its dimensions from the tensors' shapes.
    fn bind(
        &mut self,
        kernel: &Kernel,
        args: &[LaunchArg],
        grid: Dim3,
        span: Span,
    ) -> Result<Args, Diagnostic> {
        let mut dims: Vec<Option<(i64, String)>> = vec![None; kernel.dims.len()];
        // Check the shapes before any tensor is moved.
        for (param, arg) in kernel.params.iter().zip(args) {
            let (
                Param::Tensor {
                    name,
                    dims: extents,
                    ..
                },
                LaunchArg::Buffer(b),
            ) = (param, arg)
            else {
                continue;
            };
            let given = self.program.buffer_name(*b).to_owned();
            let Some(tensor) = self.buffers.get(*b) else {
                continue;
            };
            for (axis, (extent, &n)) in extents.iter().zip(&tensor.shape).enumerate() {
                let n = n as i64;
                match extent {
                    DimRef::Literal(want) if i64::from(*want) != n => {
                        return Err(size_problem(span, format!("`{}`'s `{name}` has {want} elements on axis {axis}, and `{given}` has {n}", kernel.name)));
                    }
                    DimRef::Dim(d) => match &dims[*d] {
                        Some((value, from)) if *value != n => {
                            return Err(size_problem(span, format!("`{}`'s dimension {} is {value} from {from} and {n} from `{given}`", kernel.name, kernel.dims[*d])));
                        }
                        Some(_) => {}
                        None => dims[*d] = Some((n, format!("`{given}`"))),
                    },
                    DimRef::Literal(_) => {}
                }
            }
        }
        // Every integer argument is evaluated before any tensor moves into the launch: one may
        // read an element of a tensor the launch is given (`launch k(C, C[0])`).
        let mut scalars: Vec<Option<i64>> = Vec::new();
        for arg in args {
            scalars.push(match arg {
                LaunchArg::Integer(size) => Some(self.eval(size, span)?),
                _ => None,
            });
        }
        crate::launch::derive_dims(kernel, &mut dims, &scalars).map_err(|problems| {
            let message = problems.into_iter().map(|p| p.message).collect::<Vec<_>>();
            size_problem(span, format!("`{}`: {}", kernel.name, message.join("; ")))
        })?;
        if let Some(d) = dims.iter().position(Option::is_none) {
            return Err(size_problem(
                span,
                format!(
                    "`{}`'s dimension {} has no value: no tensor of the launch has it as an extent",
                    kernel.name, kernel.dims[d]
                ),
            ));
        }
        let mut params = Vec::new();
        for ((param, arg), integer) in kernel.params.iter().zip(args).zip(&scalars) {
            params.push(match arg {
                LaunchArg::Buffer(b) => match self.buffers.take(*b) {
                    Some(tensor) => Arg::Tensor(tensor),
                    None => Arg::Scalar(0),
                },
                LaunchArg::Integer(_) => {
                    let n = integer.unwrap_or(0);
                    let bits = match param.element() {
                        Scalar::U32 if (0..=i64::from(u32::MAX)).contains(&n) => n as u64,
                        Scalar::I32 if (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&n) => {
                            u64::from(n as i32 as u32)
                        }
                        Scalar::I64 => n as u64,
                        Scalar::U64 if n >= 0 => n as u64,
                        ty => {
                            return Err(size_problem(
                                span,
                                format!(
                                    "`{}`'s `{}` would be {n}, outside {}",
                                    kernel.name,
                                    param.name(),
                                    ty.name()
                                ),
                            ));
                        }
                    };
                    Arg::Scalar(bits)
                }
                // A value passes as a direct launch's does: the parameter's type rounds it
                // once (an `f16` from the literal or the program's `f32` itself).
                LaunchArg::Scalar(i) => {
                    let value = self.scalars.get(*i).copied().flatten();
                    let value = value.map_or(0.0, |(ty, bits)| ty.argument_value(bits));
                    Arg::Scalar(param.element().argument_bits(value))
                }
                LaunchArg::Float(x) => Arg::Scalar(param.element().argument_bits(*x)),
            });
        }
        Ok(Args {
            grid,
            dims: dims
                .into_iter()
                .map(|d| d.map_or(0, |(v, _)| v.clamp(0, i64::from(i32::MAX)) as i32))
                .collect(),
            params,
        })
    }

    /// Refuses a `swap` of tensors of different shapes: each name keeps its declared shape,
    /// which a kernel it is passed to derives its dimensions from.
    fn same_shape(&self, a: usize, b: usize, span: Span) -> Result<(), Diagnostic> {
        let shape = |b: usize| self.buffers.get(b).map(|t| t.shape.clone());
        match (shape(a), shape(b)) {
            (Some(x), Some(y)) if x != y => {
                let [na, nb] = [a, b].map(|b| self.program.buffer_name(b).to_owned());
                Err(Diagnostic::error(
                    Code::E0515,
                    span,
                    format!("`{na}` has shape {x:?} and `{nb}` {y:?}: swap exchanges tensors of one shape"),
                )
                .with_label("evaluated with this run's dimensions and scalars")
                .with_help(format!("give `{na}` and `{nb}` the same extents")))
            }
            _ => Ok(()),
        }
    }

    /// Counts a launch or a loop's pass against the run's limit.
    fn count_work(&mut self, span: Span) -> Result<(), Diagnostic> {
        self.work += 1;
        if self.work <= self.max_launches {
            return Ok(());
        }
        Err(Diagnostic::error(
            Code::E0517,
            span,
            format!(
                "the program made {} launches and loop passes, the run's limit",
                self.max_launches
            ),
        )
        .with_label("one too many")
        .with_help("a loop runs more passes than intended: check its count or its condition"))
    }

    fn holds(&self, condition: &Condition, span: Span) -> Result<bool, Diagnostic> {
        Ok(match condition {
            Condition::And(a, b) => self.holds(a, span)? && self.holds(b, span)?,
            Condition::Or(a, b) => self.holds(a, span)? || self.holds(b, span)?,
            Condition::Compare(op, l, r) => {
                let (l, r) = (self.eval(l, span)?, self.eval(r, span)?);
                match op {
                    CompareOp::Lt => l < r,
                    CompareOp::Le => l <= r,
                    CompareOp::Gt => l > r,
                    CompareOp::Ge => l >= r,
                    CompareOp::Eq => l == r,
                    CompareOp::Ne => l != r,
                }
            }
        })
    }

    fn eval(&self, size: &Size, span: Span) -> Result<i64, Diagnostic> {
        size.evaluate(&mut |leaf| self.leaf(leaf))
            .map_err(|message| size_problem(span, message))
    }

    /// A dimension's, scalar's, counter's or element's value this pass.
    fn leaf(&self, size: &Size) -> Result<i64, String> {
        let value = |s: &Size| s.evaluate(&mut |leaf| self.leaf(leaf));
        Ok(match size {
            Size::Dim(i) => self.dims.get(*i).copied().unwrap_or(0),
            Size::Scalar(i) => match self.scalars.get(*i).copied().flatten() {
                Some((ty, bits)) => ty.argument_value(bits) as i64,
                None => 0,
            },
            Size::Counter(i) => self.counters.get(*i).copied().unwrap_or(0),
            Size::Element { buffer, indices } => {
                let Some(tensor) = self.buffers.get(*buffer) else {
                    return Ok(0);
                };
                let mut flat = 0usize;
                for (index, &extent) in indices.iter().zip(&tensor.shape) {
                    let i = value(index)?;
                    if i < 0 || i as usize >= extent {
                        return Err(format!(
                            "{}[{i}] is outside its shape",
                            self.program.buffer_name(*buffer)
                        ));
                    }
                    flat = flat * extent + i as usize;
                }
                let bits = tensor.bits.get(flat).copied().unwrap_or(0);
                tensor.element.value(bits) as i64
            }
            other => value(other)?,
        })
    }
}
