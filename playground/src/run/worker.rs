//! The simulator, the backends and WebGPU off the page's thread: a Web Worker that loads the
//! worker's module (crate `playground-worker`, `window.tesseraWorker`, content-hashed) and runs
//! the jobs, so typing, diagnostics and the diagram keep working during a long run, and the
//! page's module carries neither the simulator, nor naga, nor the WebGPU runner. A worker
//! opens its WebGPU device on its first GPU run and keeps it; Cancel ends the worker and the
//! device with it.
//!
//! In (page → worker): a [`Job`] as bytes (a `Uint8Array`, [`super::messages::to_bytes`]). Out
//! (worker → page): `{kind: "ready"}` once the module is up, `{kind: "progress", done, total}`
//! at most every [`PROGRESS_MS`], and `{kind: "done", header, buffers}`: the [`Reply`] as bytes
//! with a run's bits moved out into `buffers` (`Uint32Array`s, transferred, not copied: the
//! inputs' tensors, the results', then the writers), or `{kind: "failed", why}`.
//!
//! Invariants: one job at a time per worker; cancelling ends the worker (`terminate`), which
//! stops a run at once wherever it is, and the next job starts a new one.

use super::messages::{from_bytes, to_bytes, Done, GpuOutcome, GpuTime, Job, Progress, Reply};
use compiler_core::launch::Launch;
use compiler_core::sim::{Arg, Args};
use compiler_core::wgsl::WarpMode;
use compiler_core::RunLimits;
use js_sys::{Array, Object, Reflect, Uint32Array, Uint8Array};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker};

/// Progress messages are at least this far apart: often enough for a smooth bar, rarely
/// enough to cost the run nothing.
const PROGRESS_MS: f64 = 50.0;

// ---------------------------------------------------------------------------------------
// The worker's side.

/// Starts serving jobs: called by the worker's script once the module is up.
pub fn serve() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        let reply = match event.data().dyn_into::<Uint8Array>() {
            Ok(bytes) => match from_bytes::<Job>(&bytes.to_vec()) {
                Ok(Job::Gpu {
                    source,
                    launch,
                    forced,
                }) => {
                    wasm_bindgen_futures::spawn_local(async move {
                        let outcome = run_on_gpu(&source, &launch, forced).await;
                        let reply = reply_message(Reply::Gpu(outcome));
                        post(&reply.0, &reply.1);
                    });
                    return;
                }
                Ok(job) => reply_message(job.run(Some(progress_poster()), js_sys::Date::now)),
                Err(error) => failed(format!(
                    "the page sent a job this worker cannot read: {error}"
                )),
            },
            Err(_) => failed("the page sent a job that is not bytes".to_owned()),
        };
        post(&reply.0, &reply.1);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&message("ready"), &Array::new());
}

/// The message that carries `reply`, with its tensors' bits moved out to be transferred.
fn reply_message(mut reply: Reply) -> (Object, Array) {
    let buffers = Array::new();
    match &mut reply {
        Reply::Run(Ok(ran)) => {
            move_bits(&mut ran.inputs, &buffers);
            move_bits(&mut ran.args, &buffers);
            for written in &mut ran.writers {
                buffers.push(&Uint32Array::from(&written[..]));
                *written = Vec::new();
            }
        }
        Reply::Gpu(GpuOutcome::Done { args, .. }) => move_bits(args, &buffers),
        _ => {}
    }
    done(&reply, buffers)
}

thread_local! {
    static GPU: RefCell<Option<Rc<runtime::Gpu>>> = const { RefCell::new(None) };
}

/// This worker's WebGPU device, opened on first use and kept.
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

/// Runs `launch` of `source` on WebGPU with warps as `forced` says, else as the device's
/// subgroups allow.
async fn run_on_gpu(source: &str, launch: &Launch, forced: Option<WarpMode>) -> GpuOutcome {
    let compilation = compiler_core::compile(source);
    if compilation.runs_a_program(launch.kernel.as_deref()) {
        return run_program_on_gpu(&compilation, launch, forced).await;
    }
    let Ok(prepared) = compilation.prepare(launch, RunLimits::PAGE) else {
        return GpuOutcome::Skipped("the launch does not fit the kernel".to_owned());
    };
    let gpu = match gpu().await {
        Ok(gpu) => gpu,
        Err(why) => return GpuOutcome::Skipped(why),
    };
    let lanes = prepared.options.lanes;
    let mode = forced.unwrap_or_else(|| gpu.report.warp_mode(lanes));
    let outcome = runtime::run_timed(&gpu, &prepared, mode, runtime::TIMED_DISPATCHES)
        .await
        .map(|output| {
            (
                output.args,
                output.elapsed,
                output.timing.map(GpuTime::Kernel),
            )
        });
    gpu_outcome(source, &gpu, lanes, mode, outcome)
}

/// A program's launches on WebGPU, in order; a launch's failure names the launch.
async fn run_program_on_gpu(
    compilation: &compiler_core::Compilation,
    launch: &Launch,
    forced: Option<WarpMode>,
) -> GpuOutcome {
    let Ok(prepared) = compilation.prepare_program(launch, RunLimits::PAGE) else {
        return GpuOutcome::Skipped("the launch does not fit the program".to_owned());
    };
    let gpu = match gpu().await {
        Ok(gpu) => gpu,
        Err(why) => return GpuOutcome::Skipped(why),
    };
    let lanes = prepared.run.options.lanes;
    let mode = forced.unwrap_or_else(|| gpu.report.warp_mode(lanes));
    let source = compilation.source();
    match runtime::run_program(&gpu, &prepared, mode).await {
        Ok((output, elapsed, times)) => {
            let timing = times.map(GpuTime::Launches);
            gpu_outcome(
                source,
                &gpu,
                lanes,
                mode,
                Ok((output.args, elapsed, timing)),
            )
        }
        Err(compiler_core::program::ProgramError::Program(d)) => {
            GpuOutcome::Failed(format!("{}: {}", d.code.as_str(), d.message))
        }
        Err(compiler_core::program::ProgramError::Launch(failure)) => {
            let (error, record) = *failure;
            match gpu_outcome(source, &gpu, lanes, mode, Err(error)) {
                GpuOutcome::Failed(why) => GpuOutcome::Failed(format!(
                    "{why}, in the launch of `{}` (grid {} x {} x {})",
                    record.kernel, record.grid.x, record.grid.y, record.grid.z
                )),
                other => other,
            }
        }
    }
}

/// What a GPU run's result shows: its tensors, time and how its warps ran, or why it failed.
fn gpu_outcome(
    source: &str,
    gpu: &runtime::Gpu,
    lanes: u32,
    mode: WarpMode,
    outcome: Result<
        (
            compiler_core::sim::Args,
            std::time::Duration,
            Result<GpuTime, String>,
        ),
        runtime::RuntimeError,
    >,
) -> GpuOutcome {
    match outcome {
        Ok((args, elapsed, timing)) => GpuOutcome::Done {
            args,
            timing,
            ms: elapsed.as_secs_f64() * 1000.0,
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
                GPU.with(|g| *g.borrow_mut() = None);
            }
            // A runaway loop is the source's: say which line, as the simulator does.
            let why = match error.diagnostic() {
                Some(d) => format!(
                    "{}: {} (the loop at line {})",
                    d.code.as_str(),
                    d.message,
                    compiler_core::span::LineIndex::new(source).line_of(d.span.start) + 1
                ),
                None => error.to_string(),
            };
            GpuOutcome::Failed(why)
        }
    }
}

/// Tells the page how many of `total` CTAs are done, at most every [`PROGRESS_MS`]. It holds
/// no JS value (the simulator wants a `Send` callback): it finds the worker's scope each time.
fn progress_poster() -> Progress {
    let done = AtomicU64::new(0);
    let last = AtomicU64::new(0f64.to_bits());
    Arc::new(move |n, total| {
        let now_done = done.fetch_add(n, Ordering::Relaxed) + n;
        let now = js_sys::Date::now();
        if now - f64::from_bits(last.load(Ordering::Relaxed)) < PROGRESS_MS {
            return;
        }
        last.store(now.to_bits(), Ordering::Relaxed);
        let progress = message("progress");
        set(&progress, "done", &JsValue::from_f64(now_done as f64));
        set(&progress, "total", &JsValue::from_f64(total as f64));
        post(&progress, &Array::new());
    })
}

/// Moves each tensor's bits into a new `Uint32Array` in `buffers`, leaving the shapes.
fn move_bits(args: &mut Args, buffers: &Array) {
    for param in &mut args.params {
        if let Arg::Tensor(tensor) = param {
            buffers.push(&Uint32Array::from(&tensor.bits[..]));
            tensor.bits = Vec::new();
        }
    }
}

fn done(reply: &Reply, buffers: Array) -> (Object, Array) {
    let header = match to_bytes(reply) {
        Ok(header) => header,
        Err(error) => return failed(format!("the reply cannot be written: {error}")),
    };
    let message = message("done");
    set(&message, "header", &Uint8Array::from(&header[..]));
    set(&message, "buffers", &buffers);
    (message, buffers)
}

fn failed(why: String) -> (Object, Array) {
    let reply = message("failed");
    set(&reply, "why", &JsValue::from_str(&why));
    (reply, Array::new())
}

fn message(kind: &str) -> Object {
    let object = Object::new();
    set(&object, "kind", &JsValue::from_str(kind));
    object
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// Posts `message`, transferring the buffers of the `Uint32Array`s in `buffers`.
fn post(message: &Object, buffers: &Array) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let transfer: Array = buffers
        .iter()
        .map(|b| JsValue::from(b.unchecked_into::<Uint32Array>().buffer()))
        .collect();
    let _ = scope.post_message_with_transfer(message, &transfer);
}

// ---------------------------------------------------------------------------------------
// The page's side.

/// What the page hears back: the job's reply, or why there is none.
pub type Outcome = Result<Reply, String>;

type OnProgress = Box<dyn Fn(Done)>;
type OnReply = Box<dyn FnOnce(Outcome)>;

/// A worker for one kind of job, started on first use, ended by [`Channel::cancel`].
#[derive(Clone, Default)]
pub struct Channel {
    live: Rc<RefCell<Option<Live>>>,
}

struct Live {
    worker: Worker,
    ready: bool,
    /// The job, until the worker is ready for it.
    queued: Option<Uint8Array>,
    on_progress: Option<OnProgress>,
    on_reply: Option<OnReply>,
    /// The worker's script, revoked when the worker is ready.
    script: String,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Channel {
    /// Whether a job is in flight.
    pub fn busy(&self) -> bool {
        self.live
            .borrow()
            .as_ref()
            .is_some_and(|live| live.on_reply.is_some())
    }

    /// Sends `job`; `on_progress` hears how far it has come, `on_reply` its result. A job in
    /// flight is cancelled first.
    pub fn start(
        &self,
        job: &Job,
        on_progress: impl Fn(Done) + 'static,
        on_reply: impl FnOnce(Outcome) + 'static,
    ) {
        if self.busy() {
            self.cancel();
        }
        let bytes = match to_bytes(job) {
            Ok(bytes) => Uint8Array::from(&bytes[..]),
            Err(error) => return on_reply(Err(error)),
        };
        if self.live.borrow().is_none() {
            match self.spawn() {
                Ok(live) => *self.live.borrow_mut() = Some(live),
                Err(why) => return on_reply(Err(why)),
            }
        }
        let mut slot = self.live.borrow_mut();
        let Some(live) = slot.as_mut() else { return };
        live.on_progress = Some(Box::new(on_progress));
        live.on_reply = Some(Box::new(on_reply));
        if live.ready {
            let _ = live.worker.post_message(&bytes);
        } else {
            live.queued = Some(bytes);
        }
    }

    /// Ends the worker, and with it the job in flight (whose reply never comes).
    pub fn cancel(&self) {
        // Dropping it ends the worker.
        self.live.borrow_mut().take();
    }

    fn spawn(&self) -> Result<Live, String> {
        let module = Reflect::get(&js_sys::global(), &JsValue::from_str("tesseraWorker"))
            .ok()
            .and_then(|v| v.as_string())
            .ok_or("the page does not name the worker's module (window.tesseraWorker)")?;
        let origin = web_sys::window()
            .and_then(|w| w.location().origin().ok())
            .ok_or("the page has no origin")?;
        // A module worker from a script made here: it imports the worker's module by its URL
        // (cached by the browser) and hands over to `serve`.
        let source = format!(
            "import init, {{ worker_main }} from '{origin}{module}';\nawait init();\nworker_main();\n"
        );
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("text/javascript");
        let blob = web_sys::Blob::new_with_str_sequence_and_options(
            &Array::of1(&JsValue::from_str(&source)),
            &options,
        )
        .map_err(describe)?;
        let script = web_sys::Url::create_object_url_with_blob(&blob).map_err(describe)?;
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let worker = Worker::new_with_options(&script, &options).map_err(describe)?;

        let live = Rc::downgrade(&self.live);
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(live) = live.upgrade() {
                receive(&live, &event.data());
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let live = Rc::downgrade(&self.live);
        let on_error =
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                let why = format!("the simulator's worker failed: {}", event.message());
                if let Some(live) = live.upgrade() {
                    // Dropping it ends the worker.
                    let reply = live.borrow_mut().take().and_then(|mut l| l.on_reply.take());
                    if let Some(reply) = reply {
                        reply(Err(why));
                    }
                }
            });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Live {
            worker,
            ready: false,
            queued: None,
            on_progress: None,
            on_reply: None,
            script,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

impl Drop for Live {
    /// A view that goes away (the reader leaves `/play`, a docs kernel's run unmounts) ends its
    /// worker: an idle worker would otherwise live as long as the tab.
    fn drop(&mut self) {
        self.worker.terminate();
        let _ = web_sys::Url::revoke_object_url(&self.script);
    }
}

/// A message from the worker.
fn receive(live: &RefCell<Option<Live>>, data: &JsValue) {
    let kind = get(data, "kind").as_string().unwrap_or_default();
    let mut slot = live.borrow_mut();
    let Some(state) = slot.as_mut() else { return };
    match kind.as_str() {
        "ready" => {
            state.ready = true;
            let _ = web_sys::Url::revoke_object_url(&state.script);
            if let Some(job) = state.queued.take() {
                let _ = state.worker.post_message(&job);
            }
        }
        "progress" => {
            let number = |key| get(data, key).as_f64().unwrap_or(0.0) as u64;
            if let Some(on_progress) = &state.on_progress {
                on_progress(Done {
                    done: number("done"),
                    total: number("total"),
                });
            }
        }
        _ => {
            state.on_progress = None;
            let Some(on_reply) = state.on_reply.take() else {
                return;
            };
            // The reply may start the next job on this channel: let go of it first. It is
            // read by a part of the module loaded with the first reply (`later::reply`).
            drop(slot);
            let data = data.clone();
            wasm_bindgen_futures::spawn_local(async move {
                on_reply(super::later::reply(data, kind).await);
            });
        }
    }
}

/// A reply as the worker sent it.
pub(super) fn decode(data: &JsValue, kind: &str) -> Outcome {
    if kind == "failed" {
        return Err(get(data, "why").as_string().unwrap_or_default());
    }
    let header = get(data, "header")
        .dyn_into::<Uint8Array>()
        .map_err(|_| "the worker's reply is not bytes".to_owned())?;
    let mut reply = from_bytes::<Reply>(&header.to_vec())
        .map_err(|error| format!("the worker's reply cannot be read: {error}"))?;
    let buffers: Array = get(data, "buffers").unchecked_into();
    let mut buffers = buffers
        .iter()
        .map(|b| b.unchecked_into::<Uint32Array>().to_vec());
    match &mut reply {
        Reply::Run(Ok(ran)) => {
            put_bits(&mut ran.inputs, &mut buffers);
            put_bits(&mut ran.args, &mut buffers);
            for written in &mut ran.writers {
                *written = buffers.next().unwrap_or_default();
            }
        }
        Reply::Gpu(GpuOutcome::Done { args, .. }) => put_bits(args, &mut buffers),
        _ => {}
    }
    Ok(reply)
}

fn put_bits(args: &mut Args, buffers: &mut impl Iterator<Item = Vec<u32>>) {
    for param in &mut args.params {
        if let Arg::Tensor(tensor) = param {
            tensor.bits = buffers.next().unwrap_or_default();
        }
    }
}

fn describe(error: JsValue) -> String {
    error
        .as_string()
        .or_else(|| {
            error
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "the browser refused to start a worker".to_owned())
}
