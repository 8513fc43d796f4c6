//! One press of Run: the simulator, then WebGPU, both in the run's Web Worker (`worker`), each
//! result published as it comes, with the run's stage (CTAs done, seconds) and Cancel in
//! [`Running`].
//!
//! The simulator is the reference; it runs with the page's step limit, so a runaway kernel
//! stops with an explanation, and off the page's thread, so a long run never freezes the page.
//! The GPU runs when the browser offers WebGPU; otherwise the outcome says why.

use super::messages::{first_problem, Done, GpuOutcome, Job, Reply, Simulation, Stepped, Traced};
use crate::outputs::{Output, Shown};
use compiler_core::cluster::ClusterRun;
use compiler_core::grade::{Exercise, Verdict};
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Kernel;
use compiler_core::launch::Launch;
use compiler_core::program::LaunchRecord;
use compiler_core::share::Tab;
use compiler_core::sim::{Args, MemoryProfile, Writers};
use compiler_core::wgsl::WarpMode;
use compiler_core::{Compilation, Diagnostic};
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
    /// The kernel that ran, or the program's signature; `None` only for a launch that named
    /// nothing of the source.
    pub fn kernel(&self) -> Option<&Kernel> {
        self.compilation
            .signature(self.launch.kernel.as_deref())
            .ok()
    }

    /// The tensors the run may have changed (indices into [`RunReport::kernel`]'s).
    pub fn written(&self) -> Vec<usize> {
        self.compilation
            .written_tensors(self.launch.kernel.as_deref())
    }

    /// Whether a program ran (its launches, in order).
    pub fn ran_a_program(&self) -> bool {
        self.compilation
            .runs_a_program(self.launch.kernel.as_deref())
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
    /// A program's launches, in the order it made them (none for a kernel).
    pub launches: Rc<Vec<LaunchRecord>>,
    /// Its f32 atomic sums depend on the order of their additions.
    pub order_dependent_sums: bool,
}

fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// The run in flight in one Run panel: its stage for the progress line, Cancel, and the
/// number that tells a run's late results from the current run's.
#[derive(Clone, Copy)]
pub struct Running {
    pub report: RwSignal<Option<RunReport>, LocalStorage>,
    /// What the run in flight is doing; `None` when none is.
    pub stage: RwSignal<Option<Stage>>,
    /// The time, ticking while a run is in flight (for its elapsed seconds).
    pub now: RwSignal<f64>,
    /// What the last cancel did (or why the simulator's worker failed), until the next run
    /// ends.
    pub note: RwSignal<Option<String>>,
    runs: StoredValue<u64>,
    ticking: StoredValue<Option<gloo_timers::callback::Interval>, LocalStorage>,
    jobs: StoredValue<JobRunner, LocalStorage>,
}

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stage {
    /// On the simulator: CTAs done of the total (both 0 until the worker first tells).
    Simulating {
        done: u64,
        total: u64,
        since_ms: f64,
    },
    /// On the GPU, the simulator's results shown.
    Gpu { since_ms: f64 },
}

impl Stage {
    pub fn since_ms(self) -> f64 {
        match self {
            Stage::Simulating { since_ms, .. } | Stage::Gpu { since_ms } => since_ms,
        }
    }
}

/// How often the elapsed time of a run in flight is redrawn.
const TICK_MS: u32 = 100;

impl Running {
    pub fn new(report: RwSignal<Option<RunReport>, LocalStorage>) -> Self {
        Self {
            report,
            stage: RwSignal::new(None),
            now: RwSignal::new(now_ms()),
            note: RwSignal::new(None),
            runs: StoredValue::new(0),
            ticking: StoredValue::new_local(None),
            jobs: StoredValue::new_local(JobRunner::default()),
        }
    }

    /// A new run's number; a run in flight is cancelled, and the note says so.
    fn begin(self) -> u64 {
        if self.stage.get_untracked().is_some() {
            self.stop("The run before this one was cancelled");
        } else {
            self.note.set(None);
        }
        self.runs.update_value(|n| *n += 1);
        self.set_stage(Some(Stage::Simulating {
            done: 0,
            total: 0,
            since_ms: now_ms(),
        }));
        self.runs.get_value()
    }

    fn is_current(self, run: u64) -> bool {
        self.runs.get_value() == run
    }

    /// Stops the run in flight at once: the simulator's worker ends; a GPU run is abandoned
    /// (its results are ignored when they come).
    pub fn cancel(self) {
        if self.stage.get_untracked().is_some() {
            self.stop("Cancelled");
        }
    }

    fn stop(self, what: &str) {
        let Some(stage) = self.stage.get_untracked() else {
            return;
        };
        let seconds = (now_ms() - stage.since_ms()) / 1000.0;
        let note = match stage {
            Stage::Simulating { done, total, .. } if total > 0 => {
                format!("{what} after {seconds:.1} s, with {done} of {total} CTAs simulated.")
            }
            Stage::Simulating { .. } => format!("{what} after {seconds:.1} s."),
            Stage::Gpu { .. } => {
                let why = format!("cancelled after {seconds:.1} s");
                self.report.update(|r| {
                    if let Some(r) = r {
                        r.gpu = GpuOutcome::Skipped(why);
                    }
                });
                format!("{what} on WebGPU after {seconds:.1} s; the simulator's results stay.")
            }
        };
        self.note.set(Some(note));
        self.runs.update_value(|n| *n += 1);
        self.set_stage(None);
        self.jobs.with_value(JobRunner::cancel);
    }

    /// The simulator could not answer (its worker did not start, or failed): the note says why.
    fn failed(self, why: String) {
        self.note
            .set(Some(format!("The simulator's worker failed: {why}.")));
        self.set_stage(None);
    }

    /// Sets the stage; the clock ticks while there is one.
    fn set_stage(self, stage: Option<Stage>) {
        self.stage.set(stage);
        self.now.set(now_ms());
        let ticking = stage.is_some();
        if ticking != self.ticking.with_value(Option::is_some) {
            let now = self.now;
            self.ticking.set_value(
                ticking.then(|| {
                    gloo_timers::callback::Interval::new(TICK_MS, move || now.set(now_ms()))
                }),
            );
        }
    }

    /// Publishes a run's report, if it is still the current run.
    fn publish(self, run: u64, report: RunReport) {
        if self.is_current(run) {
            self.report.set(Some(report));
        }
    }
}

/// Runs `launch` of `compilation` into `running`'s report: the simulator's results (or why
/// there are none) as soon as they are made, then the GPU's outcome, each only while it is the
/// current run (a later Run or Cancel replaces it). `forced` picks the GPU's warp mode; `None`
/// lets the GPU's subgroups decide. In the browser the simulator runs in a worker.
pub fn start_run(
    compilation: Rc<Compilation>,
    launch: Launch,
    forced: Option<WarpMode>,
    running: Running,
) {
    let run = running.begin();
    simulate_then(
        compilation.clone(),
        launch.clone(),
        running,
        run,
        move |sim| {
            let report = |sim, gpu| RunReport {
                compilation: compilation.clone(),
                launch: launch.clone(),
                sim,
                gpu,
            };
            if sim.is_err() {
                // Nothing to compare with; after the step limit the reader may send it anyway
                // (`run_on_gpu_anyway`), where the loop guard stops a loop that never ends.
                let why = "the simulator stopped the run, so it was not sent to the GPU".to_owned();
                running.publish(run, report(sim, GpuOutcome::Skipped(why)));
                running.set_stage(None);
                return;
            }
            running.publish(run, report(sim, GpuOutcome::Pending));
            gpu_then(compilation.source(), launch.clone(), forced, running, run);
        },
    );
}

/// Runs the launch of the run shown on WebGPU alone, after the simulator stopped it at its
/// step limit: on the GPU, the loop guard stops a loop that never ends (E0514 at the loop), and
/// a kernel that is only long runs to its end.
pub fn run_on_gpu_anyway(forced: Option<WarpMode>, running: Running) {
    let Some((compilation, launch)) = running.report.with_untracked(|r| {
        r.as_ref()
            .map(|r| (r.compilation.clone(), r.launch.clone()))
    }) else {
        return;
    };
    let run = running.begin();
    running.report.update(|r| {
        if let Some(r) = r {
            r.gpu = GpuOutcome::Pending;
        }
    });
    gpu_then(compilation.source(), launch, forced, running, run);
}

/// The GPU part of run `run`: `launch` of `source` on WebGPU in the run's worker, its outcome
/// into the report while it is the current run.
fn gpu_then(source: &str, launch: Launch, forced: Option<WarpMode>, running: Running, run: u64) {
    running.set_stage(Some(Stage::Gpu { since_ms: now_ms() }));
    let job = Job::Gpu {
        source: source.to_owned(),
        launch,
        forced,
    };
    let on_reply = move |reply: Result<Reply, String>| {
        if !running.is_current(run) {
            return;
        }
        let gpu = match reply {
            Ok(Reply::Gpu(outcome)) => outcome,
            Ok(_) => GpuOutcome::Failed(ANOTHER_QUESTION.to_owned()),
            Err(why) => GpuOutcome::Skipped(why),
        };
        running.report.update(|r| {
            if let Some(r) = r {
                r.gpu = gpu;
            }
        });
        running.set_stage(None);
    };
    running.jobs.with_value(|j| j.start(job, |_| {}, on_reply));
}

/// Where the worker's jobs run: a Web Worker in the browser (`worker`), this thread natively
/// (the unit tests). A new job cancels one in flight.
#[derive(Clone, Default)]
pub struct JobRunner {
    #[cfg(target_arch = "wasm32")]
    channel: super::worker::Channel,
}

impl JobRunner {
    fn start(
        &self,
        job: Job,
        on_progress: impl Fn(Done) + 'static,
        on_reply: impl FnOnce(Result<Reply, String>) + 'static,
    ) {
        #[cfg(target_arch = "wasm32")]
        self.channel.start(&job, on_progress, on_reply);
        #[cfg(not(target_arch = "wasm32"))]
        {
            drop(on_progress);
            on_reply(Ok(job.run(None, now_ms)));
        }
    }

    /// Stops the job in flight at once (its reply never comes).
    fn cancel(&self) {
        #[cfg(target_arch = "wasm32")]
        self.channel.cancel();
    }

    /// Whether a job is in flight.
    fn busy(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.channel.busy();
        #[cfg(not(target_arch = "wasm32"))]
        false
    }
}

/// Requests of which only the latest matters (the listing for the source as it is, the step
/// on show): one in flight and the last one waiting, so a burst of requests (typing, holding
/// an arrow key) never restarts the worker; what was made last stays until the next arrives.
pub struct Latest<T: 'static> {
    /// The last thing made; `None` before the first.
    pub made: RwSignal<Option<T>, LocalStorage>,
    waiting: StoredValue<Option<(Job, Finish<T>)>, LocalStorage>,
    worker: StoredValue<JobRunner, LocalStorage>,
    /// How many times something was shown without the worker ([`Latest::show`]): a reply to a
    /// request sent before that is out of date.
    shown: StoredValue<u64, LocalStorage>,
}

type Finish<T> = Box<dyn FnOnce(Result<Reply, String>) -> T>;

impl<T: 'static> Clone for Latest<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: 'static> Copy for Latest<T> {}

impl<T: 'static> Latest<T> {
    /// Requests sent to `worker`, which other work may share: a request waits while that
    /// work is in flight.
    pub fn new(worker: JobRunner) -> Self {
        Self {
            made: RwSignal::new_local(None),
            waiting: StoredValue::new_local(None),
            worker: StoredValue::new_local(worker),
            shown: StoredValue::new_local(0),
        }
    }

    /// Asks for `job`, whose reply `finish` makes into what is shown.
    pub fn request(self, job: Job, finish: impl FnOnce(Result<Reply, String>) -> T + 'static) {
        self.waiting.set_value(Some((job, Box::new(finish))));
        self.resume();
    }

    /// Shows `made` at once, made already: the request waiting is dropped, and the reply to
    /// the one in flight will not replace it.
    pub fn show(self, made: T) {
        self.waiting.set_value(None);
        self.shown.update_value(|n| *n += 1);
        self.made.set(Some(made));
    }

    /// Sends the request waiting, if there is one and the worker is free (after other work
    /// on the same worker ends).
    pub fn resume(self) {
        if !self.worker.with_value(JobRunner::busy) {
            self.send_waiting();
        }
    }

    /// Whether a request waits to be sent.
    fn is_waiting(self) -> bool {
        self.waiting.with_value(Option::is_some)
    }

    fn send_waiting(self) {
        let Some((job, finish)) = self.waiting.try_update_value(Option::take).flatten() else {
            return;
        };
        let shown = self.shown.get_value();
        let on_reply = move |reply: Result<Reply, String>| {
            if self.is_waiting() {
                // Already out of date: make the newer one.
                return self.send_waiting();
            }
            if self.shown.get_value() == shown {
                self.made.set(Some(finish(reply)));
            }
        };
        self.worker.with_value(|w| w.start(job, |_| {}, on_reply));
    }
}

/// The listing of the open tab (PTX, WGSL or IR) for the source as it is: the worker writes
/// it (the page's module carries no backend), the latest request only.
#[derive(Clone, Copy)]
pub struct ListingWriter(pub Latest<(Output, Shown)>);

impl Default for ListingWriter {
    fn default() -> Self {
        Self(Latest::new(JobRunner::default()))
    }
}

impl ListingWriter {
    /// Asks for the listing `of` of `kernel` of `compilation` (its first when `None`).
    pub fn request(self, compilation: &Compilation, kernel: Option<&str>, of: Output) {
        let job = Job::Listing {
            source: compilation.source().to_owned(),
            kernel: kernel.map(str::to_owned),
            of,
        };
        self.0.request(job, move |reply| {
            let listing = match reply {
                Ok(Reply::Listing(listing)) => listing,
                Ok(_) => Err(ANOTHER_QUESTION.to_owned()),
                Err(why) => Err(format!("The listing could not be written: {why}.")),
            };
            (of, Rc::new(listing))
        });
    }

    /// The last listing made for `tab`, else "Writing the `what`…".
    pub fn shown(self, tab: Tab, what: &'static str) -> Signal<Shown, LocalStorage> {
        Signal::derive_local(move || {
            self.0
                .made
                .get()
                .filter(|(made, _)| made.tab() == tab)
                .map_or_else(|| Rc::new(Err(format!("Writing the {what}…"))), |(_, l)| l)
        })
    }
}

/// The step on show in the stepper, read by the worker that made the trace (which keeps it):
/// the latest request only. `Err`: why the step cannot be shown.
///
/// The steps either side of the one on show are read ahead while the worker is idle, so an
/// arrow key shows its step at once, without a round trip to the worker (and a reply to
/// parse) inside the move.
#[derive(Clone, Copy)]
pub struct StepReader {
    latest: Latest<Result<Stepped, String>>,
    /// Steps read ahead, and the last ones shown, the newest last.
    read: StoredValue<Vec<(StepKey, StepMade)>, LocalStorage>,
    /// Steps to read ahead when the worker is free.
    wanted: StoredValue<Vec<StepKey>, LocalStorage>,
}

type StepMade = Result<Stepped, String>;

/// Steps kept on the page: the two either side of the one on show, and the last few shown.
const STEPS_KEPT: usize = 6;

/// One step of one warp of one trace: everything a [`Job::Step`] names.
#[derive(Clone, PartialEq)]
struct StepKey {
    source: String,
    launch: Launch,
    nth: u32,
    block: Dim3,
    index: usize,
    warp: u32,
}

impl StepKey {
    fn job(&self) -> Job {
        Job::Step {
            source: self.source.clone(),
            launch: self.launch.clone(),
            nth: self.nth,
            block: self.block,
            index: self.index,
            warp: self.warp,
        }
    }

    fn at(&self, index: usize) -> Self {
        Self {
            index,
            ..self.clone()
        }
    }
}

fn stepped(reply: Result<Reply, String>) -> Result<Stepped, String> {
    match reply {
        Ok(Reply::Step(stepped)) => stepped,
        Ok(_) => Err(ANOTHER_QUESTION.to_owned()),
        Err(why) => Err(format!("the simulator's worker failed: {why}")),
    }
}

impl StepReader {
    /// Steps of the traces `tracer` makes, read by its worker.
    pub fn of(tracer: OnRequest<TraceRun>) -> Self {
        Self {
            latest: Latest::new(tracer.jobs.get_value()),
            read: StoredValue::new_local(Vec::new()),
            wanted: StoredValue::new_local(Vec::new()),
        }
    }

    /// The step on show: the last one made.
    pub fn made(self) -> RwSignal<Option<Result<Stepped, String>>, LocalStorage> {
        self.latest.made
    }

    /// Asks for step `index` of warp `warp` of `run`: shown at once when it was read ahead.
    pub fn request(self, run: &TraceRun, index: usize, warp: u32) {
        let key = StepKey {
            source: run.compilation.source().to_owned(),
            launch: run.launch.clone(),
            nth: run.nth,
            block: run.block,
            index,
            warp,
        };
        // Read from the end: the next step first, then the one before.
        let ahead = [index.saturating_sub(1), index + 1].map(|i| key.at(i));
        self.wanted
            .set_value(ahead.into_iter().filter(|k| k.index != index).collect());
        match self.already_read(&key) {
            Some(stepped) => {
                self.latest.show(stepped);
                self.read_ahead_after_paint();
            }
            None => self.latest.request(key.job(), move |reply| {
                let stepped = stepped(reply);
                if stepped.is_ok() {
                    self.keep(key, stepped.clone());
                }
                self.read_ahead_after_paint();
                stepped
            }),
        }
    }

    fn already_read(self, key: &StepKey) -> Option<Result<Stepped, String>> {
        self.read
            .with_value(|read| read.iter().find(|(k, _)| k == key).map(|(_, s)| s.clone()))
    }

    fn keep(self, key: StepKey, stepped: Result<Stepped, String>) {
        self.read.update_value(|read| {
            read.retain(|(k, _)| *k != key);
            read.push((key, stepped));
            let over = read.len().saturating_sub(STEPS_KEPT);
            read.drain(..over);
        });
    }

    /// Reads ahead once the step on show is painted: the jobs' replies are parsed on this
    /// thread, and would otherwise share the move's frame.
    fn read_ahead_after_paint(self) {
        #[cfg(target_arch = "wasm32")]
        request_animation_frame(move || {
            set_timeout(move || self.read_ahead(), std::time::Duration::ZERO);
        });
        #[cfg(not(target_arch = "wasm32"))]
        self.read_ahead();
    }

    /// Reads the next wanted step while the worker is free and the reader waits for nothing;
    /// a request the reader makes meanwhile is sent when it is read.
    fn read_ahead(self) {
        if self.latest.is_waiting() || self.latest.worker.with_value(JobRunner::busy) {
            return;
        }
        let next = self.wanted.try_update_value(|wanted| {
            while let Some(key) = wanted.pop() {
                if self.already_read(&key).is_none() {
                    return Some(key);
                }
            }
            None
        });
        let Some(key) = next.flatten() else {
            return;
        };
        let job = key.job();
        let on_reply = move |reply: Result<Reply, String>| {
            if let Ok(stepped) = stepped(reply) {
                self.keep(key, Ok(stepped));
            }
            if self.latest.is_waiting() {
                self.latest.resume();
            } else {
                self.read_ahead();
            }
        };
        self.latest
            .worker
            .with_value(|w| w.start(job, |_| {}, on_reply));
    }
}

/// The simulator's run of `launch`, to `then` (only while `run` is current), with its progress
/// in `running`'s stage.
fn simulate_then(
    compilation: Rc<Compilation>,
    launch: Launch,
    running: Running,
    run: u64,
    then: impl FnOnce(Result<SimRun, Vec<Diagnostic>>) + 'static,
) {
    let job = Job::Simulate {
        source: compilation.source().to_owned(),
        launch,
        what: Simulation::Run,
    };
    let on_progress = move |d: Done| {
        if running.is_current(run) {
            running.stage.update(|stage| {
                if let Some(Stage::Simulating { done, total, .. }) = stage {
                    (*done, *total) = (d.done, d.total);
                }
            });
        }
    };
    let on_reply = move |reply: Result<Reply, String>| {
        if !running.is_current(run) {
            return;
        }
        match reply {
            Ok(Reply::Run(result)) => then(result.map(|ran| SimRun {
                inputs: Rc::new(ran.inputs),
                args: ran.args,
                writers: Rc::new(ran.writers),
                ms: ran.ms,
                cluster: ran.cluster,
                launches: Rc::new(ran.launches),
                order_dependent_sums: ran.order_dependent_sums,
            })),
            Ok(_) => running.failed(ANOTHER_QUESTION.to_owned()),
            Err(why) => running.failed(why),
        }
    };
    running
        .jobs
        .with_value(|s| s.start(job, on_progress, on_reply));
}

/// Work the reader asks for (a trace, memory counts), made by the simulator's worker; a later
/// request or a cancel supersedes one in flight (and ends its worker).
pub struct OnRequest<T: 'static> {
    /// The last work made, while not cancelled.
    pub made: RwSignal<Option<Rc<T>>, LocalStorage>,
    /// Whether a request is being made.
    pub busy: RwSignal<bool>,
    /// How far the request in flight has come, once the worker tells.
    pub progress: RwSignal<Option<Done>>,
    requests: StoredValue<u64>,
    jobs: StoredValue<JobRunner, LocalStorage>,
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
            progress: RwSignal::new(None),
            requests: StoredValue::new(0),
            jobs: StoredValue::new_local(JobRunner::default()),
        }
    }
}

impl<T: 'static> OnRequest<T> {
    /// Sends `job` to the simulator and makes the work from its reply with `finish`; `failed`
    /// hears why it could not be made.
    pub fn start(
        self,
        job: Job,
        finish: impl FnOnce(Reply) -> Result<T, String> + 'static,
        failed: impl FnOnce(String) + 'static,
    ) {
        self.requests.update_value(|n| *n += 1);
        let this = self.requests.get_value();
        self.busy.set(true);
        self.progress.set(None);
        let current = move || self.requests.get_value() == this;
        let on_progress = move |done: Done| {
            if current() {
                self.progress.set(Some(done));
            }
        };
        let on_reply = move |reply: Result<Reply, String>| {
            if !current() {
                return;
            }
            self.busy.set(false);
            self.progress.set(None);
            let made = reply
                .map_err(|why| format!("the simulator's worker failed: {why}"))
                .and_then(finish);
            match made {
                Ok(work) => self.made.set(Some(Rc::new(work))),
                Err(why) => {
                    self.made.set(None);
                    failed(why);
                }
            }
        };
        self.jobs
            .with_value(|s| s.start(job, on_progress, on_reply));
    }

    /// Drops the work made and stops any request in flight.
    pub fn cancel(self) {
        self.requests.update_value(|n| *n += 1);
        self.jobs.with_value(JobRunner::cancel);
        self.busy.set(false);
        self.progress.set(None);
        self.made.set(None);
    }

    /// "Tracing…", then "Tracing: 12 of 64 CTAs" once the worker tells.
    pub fn status(self, doing: &'static str) -> Signal<Option<String>> {
        let (busy, progress) = (self.busy, self.progress);
        Signal::derive(move || {
            busy.get().then(|| match progress.get() {
                Some(Done { done, total }) => format!("{doing}: {done} of {total} CTAs"),
                None => format!("{doing}…"),
            })
        })
    }
}

const ANOTHER_QUESTION: &str = "the worker answered another question";

/// A trace of CTA `block` that the tracer's worker keeps (the page reads it a step at a time,
/// [`StepReader`]), and the compilation and launch it is of.
pub struct TraceRun {
    pub compilation: Rc<Compilation>,
    pub launch: Launch,
    /// A program's launch traced (from 0, in run order); 0 for a kernel.
    pub nth: u32,
    pub block: Dim3,
    /// What the worker told of it: steps, warps, why it ends early, the fault.
    pub traced: Traced,
}

impl TraceRun {
    /// The grid of the launch traced: the form's, or the one a program computed.
    pub fn grid(&self) -> Dim3 {
        self.traced
            .launch
            .as_ref()
            .map_or(self.launch.grid, |record| record.grid)
    }
}

/// The job that runs `launch` on the simulator again tracing CTA `block` (of a program's
/// launch `nth`; a browser tab's limits; the trace's own caps), and how its reply becomes a
/// [`TraceRun`]. Deterministic: the same launch gives the run the Run panel shows.
pub fn trace_run(
    compilation: Rc<Compilation>,
    launch: Launch,
    nth: u32,
    block: Dim3,
) -> (Job, impl FnOnce(Reply) -> Result<TraceRun, String>) {
    let job = Job::Simulate {
        source: compilation.source().to_owned(),
        launch: launch.clone(),
        what: Simulation::Trace { nth, block },
    };
    let finish = move |reply| match reply {
        Reply::Trace(traced) => traced.map_err(first_problem).map(|traced| TraceRun {
            nth,
            block,
            traced,
            compilation,
            launch,
        }),
        _ => Err(ANOTHER_QUESTION.to_owned()),
    };
    (job, finish)
}

/// A puzzle attempt graded by the simulator's worker, and the source it is of.
pub struct GradeRun {
    pub source: String,
    pub verdict: Verdict,
}

/// The job that grades `source` against `exercise` (`compiler_core::grade`, in the worker so an
/// attempt that never ends stops at the step limit there), and how its reply becomes a
/// [`GradeRun`]; `Err` when the puzzle's own reference does not run.
pub fn grade_run(
    source: String,
    exercise: &Exercise,
) -> (Job, impl FnOnce(Reply) -> Result<GradeRun, String>) {
    let job = Job::Grade {
        attempt: source.clone(),
        exercise: serde_json::to_string(exercise).unwrap_or_default(),
    };
    let finish = move |reply| match reply {
        Reply::Grade(json) => serde_json::from_slice::<Result<Verdict, String>>(json.as_bytes())
            .map_err(|e| format!("the verdict cannot be read: {e}"))
            .and_then(|verdict| verdict.map(|verdict| GradeRun { source, verdict })),
        _ => Err(ANOTHER_QUESTION.to_owned()),
    };
    (job, finish)
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

/// The job that runs `launch` on the simulator again counting every memory access (a browser
/// tab's limits), and how its reply becomes a [`MemoryRun`]. Deterministic: the same launch
/// gives the run the Run panel shows.
pub fn memory_run(
    compilation: Rc<Compilation>,
    launch: Launch,
) -> (Job, impl FnOnce(Reply) -> Result<MemoryRun, String>) {
    let job = Job::Simulate {
        source: compilation.source().to_owned(),
        launch: launch.clone(),
        what: Simulation::Count,
    };
    let finish = move |reply| match reply {
        Reply::Count(counted) => counted.map_err(first_problem).map(|c| MemoryRun {
            profile: c.profile,
            fault: c.fault,
            ms: c.ms,
            compilation,
            launch,
        }),
        _ => Err(ANOTHER_QUESTION.to_owned()),
    };
    (job, finish)
}
