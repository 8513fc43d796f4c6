//! A launch bound and ready: the prepared run and its ways to run (the simulator, traced,
//! profiled, in either CTA order; its WGSL and PTX), and what a run gives back. It binds the
//! launch through `problems.rs`, which never calls back here.

use super::{Launch, RunLimits};
use crate::cluster;
use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::Dim3;
use crate::ir::Kernel;
use crate::ptx;
use crate::sim::{
    self, Arg, Args, CtaOrder, MemoryProfile, Observers, Progress, SimOptions, Trace, TraceLimits,
};
use crate::syntax::ast;
use crate::wgsl::{self, WarpMode};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a simulated run produced: every parameter as the kernel left it, and statistics.
pub struct RunOutput {
    pub args: Args,
    pub stats: sim::Stats,
    /// Who wrote each element last, when the run recorded it ([`PreparedRun::simulate_recording`];
    /// not for a kernel under `@cluster`, whose super-tiles are separate launches).
    pub writers: Option<sim::Writers>,
    /// The super-tiles and their nodes, for a kernel under `@cluster`.
    pub cluster: Option<cluster::ClusterRun>,
}

impl RunOutput {
    /// The tensors `kernel` writes that this recorded run left partly unwritten, each as
    /// "`Y`: 24 of the 40 elements are never written (the first at flat index 16)": a launch too
    /// small for its data leaves the rest as it was, which a reader takes for a result. `None`
    /// when the run recorded no writers.
    pub fn unwritten(&self, kernel: &Kernel) -> Option<Vec<String>> {
        let writers = self.writers.as_ref()?;
        Some(
            kernel
                .written_tensors()
                .into_iter()
                .filter_map(|i| {
                    let missed: Vec<usize> = writers
                        .get(i)?
                        .iter()
                        .enumerate()
                        .filter(|&(_, &w)| w == 0)
                        .map(|(e, _)| e)
                        .collect();
                    let first = *missed.first()?;
                    Some(format!(
                        "`{}`: {} of the {} elements are never written (the first at flat index {first})",
                        kernel.params[i].name(),
                        missed.len(),
                        writers[i].len()
                    ))
                })
                .collect(),
        )
    }
}

/// A run and the trace of one of its CTAs ([`PreparedRun::simulate_traced`]).
pub struct Traced {
    pub output: Result<RunOutput, Diagnostic>,
    pub trace: Trace,
}

/// A run with its memory requests counted ([`PreparedRun::simulate_profiled`]).
pub struct Profiled {
    pub output: Result<RunOutput, Diagnostic>,
    /// `Err`: why nothing was counted.
    pub profile: Result<MemoryProfile, String>,
}

/// A launch checked against its kernel once and its arguments built once: it runs on the
/// simulator ([`PreparedRun::simulate`]) and gives the WGSL a GPU runs it with
/// ([`PreparedRun::wgsl`]), as often as wanted.
pub struct PreparedRun<'k> {
    pub kernel: &'k Kernel,
    /// The arguments before the run: the inputs as the launch made them.
    pub args: Args,
    /// `ctx.lanes`, and the step limit (the host's default when the launch sets none).
    pub options: SimOptions,
    /// The nodes a kernel under `@cluster` deals its super-tiles to.
    pub nodes: usize,
    /// Told each time a CTA finishes (of [`PreparedRun::ctas`]), from any of the run's threads.
    pub progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
    /// Set from any thread to stop a simulated run within a few statements
    /// ([`sim::Observers::stop`]): a notebook's interrupt.
    pub stop: Option<Arc<AtomicBool>>,
}

impl<'k> PreparedRun<'k> {
    /// `signature` is the kernel's source, where a launch's problems are pointed.
    pub(crate) fn new(
        kernel: &'k Kernel,
        launch: &Launch,
        limits: RunLimits,
        signature: Option<&ast::Kernel>,
    ) -> Result<Self, Vec<Diagnostic>> {
        // Before anything is allocated: a typo in a dimension must not exhaust a tab's memory.
        let problems = launch.problems(kernel, limits);
        if !problems.is_empty() {
            return Err(problems
                .iter()
                .map(|p| p.to_diagnostic(kernel, signature, limits.spelling))
                .collect());
        }
        Ok(Self {
            kernel,
            args: launch.bind(kernel, limits.threads),
            options: SimOptions {
                lanes: launch.lanes,
                step_limit: launch
                    .step_limit
                    .unwrap_or_else(|| limits.step_limit(kernel.threads)),
                threads: 1,
                order: CtaOrder::Grid,
            },
            nodes: launch.nodes.max(1) as usize,
            progress: None,
            stop: None,
        })
    }

    /// The CTAs a simulated run runs: the grid's, once per super-tile under `@cluster`.
    pub fn ctas(&self) -> u64 {
        let grid = self.args.grid;
        let per_grid = u64::from(grid.x) * u64::from(grid.y) * u64::from(grid.z);
        match self.kernel.cluster {
            Some(_) => per_grid * cluster::plan(self.kernel, &self.args, self.nodes).len() as u64,
            None => per_grid,
        }
    }

    /// What a run with `options` reports to: the writers, and the progress, except for the
    /// run again in grid order after a race ([`Self::in_either_order`], on fewer
    /// threads than the launch's), whose CTAs the first run counted already.
    fn observers<'o>(
        &'o self,
        options: SimOptions,
        writers: Option<&'o mut sim::Writers>,
    ) -> Observers<'o> {
        let again = options.threads < self.options.threads;
        Observers {
            writers,
            progress: self
                .progress
                .as_deref()
                .filter(|_| !again)
                .map(|p| p as Progress),
            stop: self.stop.as_deref(),
        }
    }

    /// Runs on the simulator.
    pub fn simulate(&self) -> Result<RunOutput, Diagnostic> {
        self.simulate_with(false)
    }

    /// Runs on the simulator, recording which thread wrote each element last.
    pub fn simulate_recording(&self) -> Result<RunOutput, Diagnostic> {
        self.simulate_with(true)
    }

    fn simulate_with(&self, record: bool) -> Result<RunOutput, Diagnostic> {
        if self.kernel.cluster.is_some() {
            return self.simulate_cluster();
        }
        let run = |options: SimOptions| {
            let mut args = self.args.clone();
            let mut writers = record.then(Vec::new);
            let observers = self.observers(options, writers.as_mut());
            let result = sim::run_with(self.kernel, &mut args, options, observers);
            (result, (args, writers))
        };
        let (result, (args, writers)) = self.in_either_order(run);
        let stats = result.map_err(|fault| fault.to_diagnostic())?;
        Ok(RunOutput {
            args,
            stats,
            writers,
            cluster: None,
        })
    }

    /// [`Self::simulate`], for a host that runs the launch once (the CLI): the inputs move
    /// into the run, where each [`Self::simulate`] first copies them on one thread (the 256
    /// MiB of BENCHMARKS' whole run: a tenth of a second). Only the tensors the kernel writes
    /// are copied, for the run again after a race; the rest come out of a run as they went in.
    /// A kernel that may run from its inputs more often (`@cluster`, CTAs that observe each
    /// other) runs as [`Self::simulate`] runs it.
    pub fn simulate_once(mut self) -> Result<RunOutput, Diagnostic> {
        if self.kernel.cluster.is_some() || self.observes() {
            return self.simulate();
        }
        let written: Vec<(usize, Arg)> = (self.kernel.written_tensors().into_iter())
            .map(|i| (i, self.args.params[i].clone()))
            .collect();
        let inputs = |mut args: Args| {
            for (i, arg) in &written {
                args.params[*i] = arg.clone();
            }
            args
        };
        let params = std::mem::take(&mut self.args.params);
        let mut args = Args {
            params,
            ..self.args.clone()
        };
        let run = |args: &mut Args, options| {
            sim::run_with(self.kernel, args, options, self.observers(options, None))
        };
        let mut result = run(&mut args, self.options);
        if let Some(options) = self.again(&result) {
            args = inputs(args);
            result = run(&mut args, options);
        }
        if matches!(&result, Err(fault) if fault.waits.is_some()) {
            // The run that names who changes the element starts from the inputs.
            self.args = inputs(args.clone());
        }
        self.explain(&mut result);
        Ok(RunOutput {
            args,
            stats: result.map_err(|fault| fault.to_diagnostic())?,
            writers: None,
            cluster: None,
        })
    }

    fn simulate_cluster(&self) -> Result<RunOutput, Diagnostic> {
        let mut args = self.args.clone();
        let observers = self.observers(self.options, None);
        let (stats, run) =
            cluster::simulate(self.kernel, &mut args, self.options, self.nodes, &observers)
                .map_err(|fault| fault.to_diagnostic())?;
        Ok(RunOutput {
            args,
            stats,
            writers: None,
            cluster: Some(run),
        })
    }

    /// [`PreparedRun::simulate_recording`], also tracing CTA `block`'s steps within `limits`.
    /// The run is the same, so its results are too; a fault ends the trace at its step.
    pub fn simulate_traced(&self, block: Dim3, limits: TraceLimits) -> Traced {
        if self.kernel.cluster.is_some() {
            let why = "a kernel under @cluster runs its super-tiles as separate launches, which the trace does not follow yet".to_owned();
            return Traced {
                output: self.simulate_cluster(),
                trace: Trace::unavailable(block, self.kernel.threads, self.options.lanes, why),
            };
        }
        let (output, trace) = self.observed(|args, writers, options| {
            let observers = self.observers(options, Some(writers));
            sim::run_traced(self.kernel, args, options, observers, block, limits)
        });
        Traced { output, trace }
    }

    /// [`PreparedRun::simulate_recording`], also counting every memory request by sector, line
    /// and bank (`sim::profile`'s rules). The run is the same, so its results are too.
    pub fn simulate_profiled(&self) -> Profiled {
        if self.kernel.cluster.is_some() {
            return Profiled {
                output: self.simulate_cluster(),
                profile: Err("a kernel under @cluster runs its super-tiles as separate launches, which the memory counts do not follow yet".to_owned()),
            };
        }
        let (output, profile) = self.observed(|args, writers, options| {
            sim::run_profiled(
                self.kernel,
                args,
                options,
                self.observers(options, Some(writers)),
            )
        });
        Profiled {
            output,
            profile: Ok(profile),
        }
    }

    /// `run` with the launch's options; and when several threads ran the CTAs and it stopped
    /// at a race on a tensor (E0516), once more on one thread. Which of two racing CTAs finds
    /// the race depends on the threads' timing; in grid order, the later one always does, so
    /// the fault reported is the same whatever the threads (a racy kernel pays twice).
    ///
    /// **Decision (issue 51):** CTAs may run in any order, and where they can observe each
    /// other ([`Kernel::ctas_observe_each_other`]: an atomic's old value on a tensor) one
    /// order can hide what another meets: a consumer CTA that runs first never reaches its
    /// racing read, a CTA waits for one that already ran. So such a kernel that runs clean in
    /// grid order runs again with its CTAs in reverse, and a race (E0516) or a stop (E0514)
    /// there is the report, naming the order; the results are grid order's. A CTA stopped
    /// while it polled an element is reported with the CTA that changes it, found by a run in
    /// the other order.
    fn in_either_order<T>(
        &self,
        run: impl Fn(SimOptions) -> (Result<sim::Stats, sim::Fault>, T),
    ) -> (Result<sim::Stats, sim::Fault>, T) {
        let first = run(self.options);
        let first = match self.again(&first.0) {
            Some(options) => run(options),
            None => first,
        };
        let (mut result, observed) = match &first.0 {
            Ok(_) if self.observes() => {
                let reverse = run(SimOptions {
                    threads: 1,
                    order: CtaOrder::Reverse,
                    ..self.options
                });
                match &reverse.0 {
                    Err(fault) if matches!(fault.code, Code::E0516 | Code::E0514) => reverse,
                    _ => first,
                }
            }
            _ => first,
        };
        self.explain(&mut result);
        (result, observed)
    }

    /// The options of the run again in grid order on one thread, when a run on several
    /// stopped at a race ([`Self::in_either_order`]).
    fn again(&self, result: &Result<sim::Stats, sim::Fault>) -> Option<SimOptions> {
        let raced = matches!(result, Err(fault) if fault.code == Code::E0516);
        (raced && self.options.threads > 1).then_some(SimOptions {
            threads: 1,
            ..self.options
        })
    }

    /// Whether the kernel's CTAs can observe each other in this launch, so that it runs in
    /// reverse too ([`Self::in_either_order`]).
    fn observes(&self) -> bool {
        self.kernel.ctas_observe_each_other() && self.args.grid.volume() > 1
    }

    /// Names, in a fault where a CTA waited for an element, the CTA that changes it.
    fn explain(&self, result: &mut Result<sim::Stats, sim::Fault>) {
        if let Err(fault) = result {
            if let Some(waits) = fault.waits.as_mut() {
                waits.changed_by = self.changer(waits, fault.order);
            }
        }
    }

    /// The CTA that changes the element a CTA waited for when the CTAs ran in `order`: the
    /// last to change it in a run in the other order, if that run changes it.
    fn changer(&self, waits: &sim::Waits, order: CtaOrder) -> Option<Dim3> {
        let other = match order {
            CtaOrder::Grid => CtaOrder::Reverse,
            CtaOrder::Reverse => CtaOrder::Grid,
        };
        let options = SimOptions {
            threads: 1,
            order: other,
            ..self.options
        };
        let mut args = self.args.clone();
        let mut writers = Vec::new();
        let _ = sim::run_recording(self.kernel, &mut args, options, Some(&mut writers));
        let writer = *writers.get(waits.tensor)?.get(waits.element)?;
        let cta = u64::from(writer.checked_sub(1)?) / u64::from(self.kernel.threads.max(1));
        Some(self.args.grid.block_at(cta))
    }

    /// Runs `run` on a copy of the arguments, recording who wrote each element: the output,
    /// and what the run observed besides (a trace, memory counts).
    fn observed<T>(
        &self,
        run: impl Fn(&mut Args, &mut sim::Writers, SimOptions) -> (Result<sim::Stats, sim::Fault>, T),
    ) -> (Result<RunOutput, Diagnostic>, T) {
        let (result, (observed, args, writers)) = self.in_either_order(|options| {
            let mut args = self.args.clone();
            let mut writers = Vec::new();
            let (result, observed) = run(&mut args, &mut writers, options);
            (result, (observed, args, writers))
        });
        let output = result
            .map(|stats| RunOutput {
                args,
                stats,
                writers: Some(writers),
                cluster: None,
            })
            .map_err(|fault| fault.to_diagnostic());
        (output, observed)
    }

    /// The WGSL a GPU runs this launch with, its warps as `mode` gives them, its loops guarded
    /// by the step limit: no thread of a kernel the simulator finishes runs more trips (each
    /// runs a statement), and one that never ends stops (E0514, as on the simulator).
    pub fn wgsl(&self, mode: WarpMode) -> Result<wgsl::Wgsl, Diagnostic> {
        wgsl::emit(self.kernel, self.options.lanes, mode, self.loop_guard())
    }

    /// The PTX an NVIDIA GPU runs this launch with, for `arch`, its loops guarded as
    /// [`PreparedRun::wgsl`]'s; `source` gives its line comments. PTX warps are 32 lanes wide.
    pub fn ptx(&self, source: &str, arch: ptx::Arch) -> Result<ptx::Ptx, Diagnostic> {
        ptx::emit(self.kernel, source, arch, self.loop_guard())
    }

    fn loop_guard(&self) -> crate::guard::Guard {
        crate::guard::Guard::Trips(u32::try_from(self.options.step_limit).unwrap_or(u32::MAX))
    }
}
