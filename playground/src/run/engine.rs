//! One press of Run: the launch prepared once (`Compilation::prepare`, with a browser tab's
//! limits), the simulator at once, then WebGPU, each result published as it comes.
//!
//! The simulator is the reference; it runs on the page's thread with the page's step limit, so
//! a runaway kernel stops with an explanation instead of freezing the page. The GPU runs when
//! the browser offers WebGPU; otherwise the outcome says why.

use compiler_core::cluster::ClusterRun;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Kernel;
use compiler_core::launch::Launch;
use compiler_core::sim::{Args, MemoryProfile, Trace, TraceLimits, Writers};
use compiler_core::wgsl::WarpMode;
use compiler_core::{Compilation, Diagnostic, PreparedRun, RunLimits};
use leptos::prelude::*;
use std::rc::Rc;

/// What one press of Run produced.
#[derive(Clone)]
pub struct RunReport {
    /// The compilation the run was of, so its kernel is read in place, not copied.
    pub compilation: Rc<Compilation>,
    /// The launch it ran.
    pub launch: Launch,
    pub sim: Result<SimRun, Vec<Diagnostic>>,
    pub gpu: GpuOutcome,
}

impl RunReport {
    /// The kernel that ran; `None` only for a launch that named no kernel of the source.
    pub fn kernel(&self) -> Option<&Kernel> {
        self.compilation.kernel(self.launch.kernel.as_deref()).ok()
    }
}

/// The simulator's results, who wrote each element, and how long it took.
#[derive(Clone)]
pub struct SimRun {
    /// The arguments as the run began: the inputs the launch made.
    pub inputs: Rc<Args>,
    pub args: Args,
    pub writers: Rc<Writers>,
    pub ms: f64,
    /// For a kernel under `@cluster`: its super-tiles and the nodes that ran them.
    pub cluster: Option<ClusterRun>,
}

#[derive(Clone)]
pub enum GpuOutcome {
    Pending,
    Skipped(String),
    Failed(String),
    Done { args: Args, ms: f64, how: String },
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Runs `launch` of `compilation` into `report`: the simulator's results (or why there are
/// none) at once, then the GPU's outcome, each only while `is_current` (a later Run replaces
/// this one). `forced` picks the GPU's warp mode; `None` lets the GPU's subgroups decide.
pub fn start_run(
    compilation: Rc<Compilation>,
    launch: Launch,
    forced: Option<WarpMode>,
    report: RwSignal<Option<RunReport>, LocalStorage>,
    is_current: impl Fn() -> bool + 'static,
) {
    // The prepared run borrows the compilation, so both live in the task: the simulator runs
    // in its first poll, the GPU in the next.
    leptos::task::spawn_local(async move {
        let publish = |sim, gpu| {
            if is_current() {
                report.set(Some(RunReport {
                    compilation: compilation.clone(),
                    launch: launch.clone(),
                    sim,
                    gpu,
                }));
            }
        };
        let prepared = match compilation.prepare(&launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => {
                let why = "the launch does not fit the kernel".to_owned();
                publish(Err(diagnostics), GpuOutcome::Skipped(why));
                return;
            }
        };
        let sim = simulate(&prepared);
        if sim.is_err() {
            // A kernel that faults or never ends would hang the GPU, or compare with nothing.
            let why = "the simulator stopped the run, so it was not sent to the GPU".to_owned();
            publish(sim, GpuOutcome::Skipped(why));
            return;
        }
        publish(sim, GpuOutcome::Pending);
        let gpu = run_gpu(&prepared, forced).await;
        if is_current() {
            report.update(|r| {
                if let Some(r) = r {
                    r.gpu = gpu;
                }
            });
        }
    });
}

/// Work the reader asks for (a trace, memory counts), made a moment after the request so that
/// its "…ing" line shows first (the simulator then runs on the page's thread); a later request
/// or a cancel supersedes one not made yet.
pub struct OnRequest<T: 'static> {
    /// The last work made, while not cancelled.
    pub made: RwSignal<Option<Rc<T>>, LocalStorage>,
    /// Whether a request is waiting to be made.
    pub busy: RwSignal<bool>,
    requests: StoredValue<u64>,
}

impl<T: 'static> Clone for OnRequest<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: 'static> Copy for OnRequest<T> {}

impl<T: 'static> Default for OnRequest<T> {
    fn default() -> Self {
        Self {
            made: RwSignal::new_local(None),
            busy: RwSignal::new(false),
            requests: StoredValue::new(0),
        }
    }
}

impl<T: 'static> OnRequest<T> {
    /// Makes the work with `make` in a moment; `failed` hears why it could not be made.
    pub fn start(
        self,
        make: impl FnOnce() -> Result<T, Vec<Diagnostic>> + 'static,
        failed: impl FnOnce(String) + 'static,
    ) {
        self.requests.update_value(|n| *n += 1);
        let this = self.requests.get_value();
        self.busy.set(true);
        gloo_timers::callback::Timeout::new(0, move || {
            if self.requests.get_value() != this {
                return;
            }
            let made = make();
            self.busy.set(false);
            match made {
                Ok(work) => self.made.set(Some(Rc::new(work))),
                Err(diagnostics) => {
                    self.made.set(None);
                    failed(diagnostics.first().map_or_else(String::new, |d| {
                        format!("{}: {}", d.code.as_str(), d.message)
                    }));
                }
            }
        })
        .forget();
    }

    /// Drops the work made and any request not made yet.
    pub fn cancel(self) {
        self.requests.update_value(|n| *n += 1);
        self.busy.set(false);
        self.made.set(None);
    }
}

/// The steps of one CTA, and the compilation and launch they are of.
pub struct TraceRun {
    pub compilation: Rc<Compilation>,
    pub launch: Launch,
    pub trace: Trace,
    /// Where the run stopped, when it faulted: the trace ends there.
    pub fault: Option<Diagnostic>,
    pub ms: f64,
}

impl TraceRun {
    /// The kernel traced; `None` only for a launch that named no kernel of the source.
    pub fn kernel(&self) -> Option<&Kernel> {
        self.compilation.kernel(self.launch.kernel.as_deref()).ok()
    }
}

/// Runs `launch` on the simulator again, tracing CTA `block` (a browser tab's limits; the
/// trace's own caps). Deterministic: the same launch gives the run the Run panel shows.
pub fn trace_run(
    compilation: Rc<Compilation>,
    launch: Launch,
    block: Dim3,
) -> Result<TraceRun, Vec<Diagnostic>> {
    let start = now_ms();
    let traced = compilation
        .prepare(&launch, RunLimits::PAGE)?
        .simulate_traced(block, TraceLimits::default());
    Ok(TraceRun {
        trace: traced.trace,
        fault: traced.output.err(),
        ms: now_ms() - start,
        compilation: compilation.clone(),
        launch,
    })
}

/// A run with its memory accesses counted, and the compilation and launch it is of.
pub struct MemoryRun {
    pub compilation: Rc<Compilation>,
    pub launch: Launch,
    /// `Err`: why nothing was counted.
    pub profile: Result<MemoryProfile, String>,
    /// Where the run stopped, when it faulted: the counts go up to there.
    pub fault: Option<Diagnostic>,
    pub ms: f64,
}

/// Runs `launch` on the simulator again, counting every memory access (a browser tab's
/// limits). Deterministic: the same launch gives the run the Run panel shows.
pub fn memory_run(
    compilation: Rc<Compilation>,
    launch: Launch,
) -> Result<MemoryRun, Vec<Diagnostic>> {
    let start = now_ms();
    let profiled = compilation
        .prepare(&launch, RunLimits::PAGE)?
        .simulate_profiled();
    Ok(MemoryRun {
        profile: profiled.profile,
        fault: profiled.output.err(),
        ms: now_ms() - start,
        compilation: compilation.clone(),
        launch,
    })
}

fn simulate(prepared: &PreparedRun<'_>) -> Result<SimRun, Vec<Diagnostic>> {
    let start = now_ms();
    let output = prepared.simulate_recording().map_err(|d| vec![d])?;
    Ok(SimRun {
        inputs: Rc::new(prepared.args.clone()),
        args: output.args,
        writers: Rc::new(output.writers.unwrap_or_default()),
        ms: now_ms() - start,
        cluster: output.cluster,
    })
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    static GPU: std::cell::RefCell<Option<Rc<runtime::Gpu>>> = const { std::cell::RefCell::new(None) };
}

/// The page's WebGPU device, opened on first use and kept.
#[cfg(target_arch = "wasm32")]
async fn gpu() -> Result<Rc<runtime::Gpu>, String> {
    // A lost device never works again: open a new one instead.
    if let Some(gpu) = GPU
        .with(|g| g.borrow().clone())
        .filter(|g| g.lost().is_none())
    {
        return Ok(gpu);
    }
    let gpu = Rc::new(runtime::open().await.map_err(|e| e.to_string())?);
    GPU.with(|g| *g.borrow_mut() = Some(gpu.clone()));
    Ok(gpu)
}

/// Forgets the device (after it was lost), so the next run opens a new one.
#[cfg(target_arch = "wasm32")]
fn forget_gpu() {
    GPU.with(|g| *g.borrow_mut() = None);
}

/// Natively (the unit tests) there is no browser and no WebGPU.
#[cfg(not(target_arch = "wasm32"))]
async fn run_gpu(_: &PreparedRun<'_>, _: Option<WarpMode>) -> GpuOutcome {
    GpuOutcome::Skipped("WebGPU runs only in the browser".into())
}

#[cfg(target_arch = "wasm32")]
async fn run_gpu(prepared: &PreparedRun<'_>, forced: Option<WarpMode>) -> GpuOutcome {
    let gpu = match gpu().await {
        Ok(gpu) => gpu,
        Err(why) => return GpuOutcome::Skipped(why),
    };
    let lanes = prepared.options.lanes;
    let mode = forced.unwrap_or_else(|| gpu.report.warp_mode(lanes));
    match runtime::run(&gpu, prepared, mode).await {
        Ok(output) => GpuOutcome::Done {
            args: output.args,
            ms: output.elapsed.as_secs_f64() * 1000.0,
            how: format!(
                "{}, {} · {}",
                gpu.report.name,
                gpu.report.subgroups(),
                match mode {
                    WarpMode::Subgroups => format!("{lanes}-lane subgroups as warps"),
                    WarpMode::Emulated => format!("{lanes}-lane warps emulated"),
                }
            ),
        },
        Err(error) => {
            if matches!(error, runtime::RuntimeError::Device(_)) {
                forget_gpu();
            }
            GpuOutcome::Failed(error.to_string())
        }
    }
}
