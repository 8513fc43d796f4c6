//! The Run panel's results: the status of the simulator and of the GPU, a fault with the thread
//! and the line it happened on (and the offer to step through its warp), the program's
//! launches, and each tensor the kernel writes (`tensors`: its table, numbers, downloads and
//! the GPU's verdict), with the inputs the run began with.

use super::engine::{RunReport, Running, SimRun, Stage};
use super::messages::{GpuOutcome, GpuTime};
use super::tensors::{ResultsPlace, WrittenProps};
use super::timeline::LaunchTimeline;
use compiler_core::cluster::ClusterRun;
use compiler_core::diagnostic::Phase;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Kernel;
use compiler_core::program::LaunchRecord;
use compiler_core::share::Stepping;
use compiler_core::span::LineIndex;
use compiler_core::{Code, Diagnostic, RunLimits};
use leptos::prelude::*;
use std::rc::Rc;

/// A fault or a launch problem the run stopped at, in the Run panel: its code, message, the
/// line and thread it happened on, and for the step limit an offer to raise it.
fn stopped_view(
    diagnostic: &Diagnostic,
    report: &RunReport,
    on_raise_step_limit: Option<Callback<u64>>,
    on_gpu_anyway: Option<Callback<()>>,
) -> impl IntoView {
    let code = diagnostic.code.as_str();
    let source = report.compilation.source();
    let at = LineIndex::new(source).line_column(source, diagnostic.span.start);
    let place = (diagnostic.code.phase() == Phase::Run).then(|| {
        format!(
            "At line {}, column {}{}.",
            at.line,
            at.column,
            diagnostic
                .label
                .as_ref()
                .map(|l| format!(", {l}"))
                .unwrap_or_default()
        )
    });
    let raise = (diagnostic.code == Code::E0514).then_some(()).and(on_raise_step_limit).map(|raise| {
        let threads = report.kernel().map_or(1, |k| k.threads);
        let limit = report
            .launch
            .step_limit
            .unwrap_or_else(|| RunLimits::PAGE.step_limit(threads));
        let larger = limit.saturating_mul(10);
        view! {
            <button type="button" data-testid="raise-step-limit" on:click=move |_| raise.run(larger)>
                {format!("Run again with a step limit of {larger}")}
            </button>
        }
    });
    // Not yet sent: the GPU's loop guard stops a loop that never ends there too.
    let unsent = matches!(report.gpu, GpuOutcome::Skipped(_));
    let anyway = (diagnostic.code == Code::E0514 && unsent)
        .then_some(())
        .and(on_gpu_anyway)
        .map(|anyway| {
            view! {
                " "
                <button type="button" data-testid="gpu-anyway" aria-describedby="gpu-anyway-note" on:click=move |_| anyway.run(())>
                    "Run it on the GPU anyway"
                </button>
                " "
                <span class="hint" id="gpu-anyway-note" data-testid="gpu-anyway-note">
                    "A kernel that is only long finishes there; one that never ends runs until the loop guard stops it, which can take a minute or more on a software GPU."
                </span>
            }
        });
    view! {
        <div class="run-fault" data-testid="run-fault">
            <p>
                <a class="diag-code" href=format!("/docs/errors#{code}")>{code}</a>
                " "
                <span class="message">{diagnostic.message.clone()}</span>
            </p>
            {place.map(|p| view! { <p class="where" data-testid="fault-where">{p}</p> })}
            {diagnostic.help.clone().map(|h| view! { <p class="help">"help: "{h}</p> })}
            {raise}
            {anyway}
        </div>
    }
}

#[component]
pub fn Results(
    report: RwSignal<Option<RunReport>, LocalStorage>,
    /// Where the reader is in the results, when it is to outlive this view.
    #[prop(optional)]
    place: Option<ResultsPlace>,
    /// The run in flight: its progress line and Cancel.
    #[prop(optional)]
    running: Option<Running>,
    /// Why Run did not run (errors in the source, a launch that does not fit).
    #[prop(optional, into)]
    blocked: Option<Signal<Option<String>>>,
    /// Whether the source or the launch changed since the run shown.
    #[prop(optional, into)]
    stale: Option<Signal<bool, LocalStorage>>,
    /// Runs again with a larger step limit, after a run stopped at it.
    #[prop(optional)]
    on_raise_step_limit: Option<Callback<u64>>,
    /// Runs the same launch on the GPU alone, after the simulator stopped it at its step limit.
    #[prop(optional)]
    on_gpu_anyway: Option<Callback<()>>,
    /// Opens the stepper on warp 0 of the first CTA, offered after a run.
    #[prop(optional)]
    on_step_through: Option<Callback<Stepping>>,
    /// Runs again counting every memory access, offered after a run.
    #[prop(optional)]
    on_measure: Option<Callback<()>>,
    /// The run's floating-point operations and global bytes, from memory counts of the source
    /// and launch as they are: with the GPU's time, the rates it means.
    #[prop(optional, into)]
    counts: Option<Signal<Option<(u64, u64)>, LocalStorage>>,
) -> impl IntoView {
    let place = place.unwrap_or_default();
    let results = move || {
        if let Some(why) = blocked.and_then(|b| b.get()) {
            return view! {
                <p class="run-blocked" role="status" data-testid="run-blocked">{why}</p>
            }
            .into_any();
        }
        let Some(report) = report.get() else {
            return view! {
                <p class="hint">"Press Run (or Ctrl+Enter in the editor) to run the kernel on the simulator and on your GPU."</p>
            }
            .into_any();
        };
        let stale_note = stale.filter(|s| s.get()).map(|_| {
            view! {
                <p class="stale" role="status" data-testid="stale">
                    "The source or the launch changed since this run: press Run to run it again."
                </p>
            }
        });
        let program = report.ran_a_program();
        let gpu_line = match &report.gpu {
            GpuOutcome::Pending => "WebGPU: running…".to_owned(),
            GpuOutcome::Skipped(why) if report.sim.is_ok() => {
                format!("WebGPU: not run: {why}. The simulator's results are below.")
            }
            GpuOutcome::Skipped(why) => format!("WebGPU: not run: {why}."),
            GpuOutcome::Failed(why) => format!("WebGPU: {why}"),
            GpuOutcome::Done { ms, how, .. } => {
                let ran = match program {
                    true => "its launches",
                    false => "kernel",
                };
                format!("WebGPU ({how}): {ms:.1} ms, the whole run: upload, {ran} and read-back")
            }
        };
        let mut timeline = None;
        let gpu_time = match &report.gpu {
            GpuOutcome::Done {
                timing: Ok(GpuTime::Launches(times)),
                ..
            } => {
                let counts = counts.and_then(|c| c.get());
                let records = match &report.sim {
                    Ok(run) => run.launches.to_vec(),
                    Err(_) => Vec::new(),
                };
                timeline = Some(view! { <LaunchTimeline times=times.clone() launches=records/> });
                let more = if counts.is_none() && on_measure.is_some() {
                    ". Count memory accesses to see the bandwidth and FLOP/s this time means"
                } else {
                    ""
                };
                Some(format!("GPU time: {}{more}.", times.summary(counts)))
            }
            GpuOutcome::Done {
                timing: Ok(GpuTime::Kernel(timing)),
                ms,
                ..
            } => {
                let run = std::time::Duration::from_secs_f64(ms / 1000.0);
                let counts = counts.and_then(|c| c.get());
                let more = if counts.is_none() && on_measure.is_some() {
                    ". Count memory accesses to see the bandwidth and FLOP/s this time means"
                } else {
                    ""
                };
                Some(format!(
                    "GPU time: {}{more}.",
                    timing.summary(counts, Some(run))
                ))
            }
            GpuOutcome::Done {
                timing: Err(why), ..
            } => Some(format!("GPU time: {why}.")),
            _ => None,
        };
        let gpu_time =
            gpu_time.map(|text| view! { <p data-testid="gpu-time">{text}</p> {timeline} });
        let gpu_args = match &report.gpu {
            GpuOutcome::Done { args, .. } => Some(args.clone()),
            _ => None,
        };
        // Stepping needs a run that started: not one a launch problem stopped before.
        let started = match &report.sim {
            Ok(_) => true,
            Err(diagnostics) => diagnostics.iter().all(|d| d.code.phase() == Phase::Run),
        };
        let launches = match &report.sim {
            Ok(run) => run.launches.clone(),
            Err(_) => Rc::default(),
        };
        let launches_line = (!launches.is_empty()).then(|| launches_line(&launches));
        // A run that stopped at a fault offers the warp that faulted, at its last step.
        let fault_at = match &report.sim {
            Err(diagnostics) => diagnostics
                .iter()
                .find_map(|d| d.fault_at.as_deref().copied()),
            Ok(_) => None,
        };
        let step_button = on_step_through.filter(|_| started).map(|step_through| {
            // A program's launch to step, from 1 as the list above counts them.
            let nth = RwSignal::new(fault_at.map_or(1, |at| at.launch + 1));
            let step = move |_| {
                step_through.run(match fault_at {
                    Some(at) => Stepping {
                        launch: nth.get_untracked().saturating_sub(1),
                        block: at.block,
                        warp: at.warp,
                        step: u32::MAX,
                    },
                    None => Stepping {
                        launch: nth.get_untracked().saturating_sub(1),
                        block: Dim3::new(0, 0, 0),
                        warp: 0,
                        step: 0,
                    },
                })
            };
            let pick_launch = program.then(|| view! {
                <label class="field small">
                    <span>"launch"</span>
                    <input type="number" min="1" max=launches.len().max(1) data-testid="step-launch"
                        prop:value=move || nth.get().to_string()
                        on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).trim().parse::<u32>() {
                                nth.set(n.max(1));
                            }
                        }/>
                </label>
            });
            let what = match (fault_at, program) {
                (Some(at), _) => format!(
                    "Step through warp {} of block ({}, {}, {}), to where the run stopped",
                    at.warp, at.block.x, at.block.y, at.block.z
                ),
                (None, true) => "Step through warp 0 of block (0, 0, 0) of that launch".to_owned(),
                (None, false) => "Step through warp 0 of block (0, 0, 0)".to_owned(),
            };
            view! {
                {pick_launch}
                <button type="button" class="step-through" data-testid="step-through" on:click=step>
                    {what}
                </button>
            }
        });
        let pick_hint = (!program && step_button.is_some()).then(|| {
            view! { <span class="hint">"Or pick a warp in the diagram below."</span> }
        });
        let measure_button = on_measure.filter(|_| started).map(|measure| {
            view! {
                <button type="button" class="step-through" data-testid="measure-memory" on:click=move |_| measure.run(())>
                    "Count memory accesses"
                </button>
            }
        });
        let step_button =
            view! { <div class="run-actions">{step_button} {measure_button} {pick_hint}</div> };
        match &report.sim {
            Err(diagnostics) => view! {
                {stale_note}
                <div class="run-status" role="status" data-testid="run-status">
                    <p>"The simulator stopped the run:"</p>
                    {diagnostics.iter().map(|d| stopped_view(d, &report, on_raise_step_limit, on_gpu_anyway)).collect_view()}
                    <p data-testid="gpu-status">{gpu_line}</p>
                    {gpu_time}
                </div>
                {step_button}
            }
            .into_any(),
            Ok(SimRun {
                args,
                ms,
                cluster,
                inputs,
                order_dependent_sums,
                ..
            }) => {
                let Some(kernel) = report.kernel() else {
                    return ().into_any();
                };
                let tensors: Vec<(usize, String)> = kernel
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (i, p.name().to_owned()))
                    .collect();
                let written: Vec<(usize, String)> = report
                    .written()
                    .into_iter()
                    .map(|i| (i, kernel.params[i].name().to_owned()))
                    .collect();
                let args = args.clone();
                let cluster_line = cluster.as_ref().map(|run| super_tiles_line(kernel, run));
                view! {
                    {stale_note}
                    <div class="run-status" role="status" data-testid="run-status">
                        <p data-testid="sim-status">{format!("Simulator: {ms:.1} ms")}</p>
                        {cluster_line.map(|line| view! { <p data-testid="cluster-status">{line}</p> })}
                        {launches_line.map(|line| view! { <p data-testid="program-launches">{line}</p> })}
                        {order_dependent_sums.then(|| view! {
                            <p class="hint" data-testid="order-note">{format!("Note: {}.", compiler_core::sim::ORDER_DEPENDENT_SUMS)}</p>
                        })}
                        <p data-testid="gpu-status">{gpu_line}</p>
                        {gpu_time}
                    </div>
                    {step_button}
                    {super::later::written(WrittenProps {
                        kernel: kernel.name.clone(),
                        written,
                        params: tensors,
                        sim: args,
                        gpu: gpu_args,
                        inputs: inputs.clone(),
                        place,
                    })}
                }
                .into_any()
            }
        }
    };
    view! { {running.map(progress_view)} {results} }
}

/// A program's launches in words: "3 launches: 1. partials (grid 4 x 1 x 1), 2. …", the first
/// few of a long run.
pub fn launches_line(launches: &[LaunchRecord]) -> String {
    const LISTED: usize = 8;
    let listed: Vec<String> = launches
        .iter()
        .take(LISTED)
        .enumerate()
        .map(|(i, r)| {
            let g = r.grid;
            format!("{}. {} (grid {} x {} x {})", i + 1, r.kernel, g.x, g.y, g.z)
        })
        .collect();
    let more = launches.len().saturating_sub(LISTED);
    let rest = if more > 0 {
        format!(", and {more} more")
    } else {
        String::new()
    };
    let plural = if launches.len() == 1 { "" } else { "es" };
    format!(
        "The program made {} launch{plural}: {}{rest}.",
        launches.len(),
        listed.join(", ")
    )
}

/// Which node ran which super-tile: `@cluster: 4 super-tiles of N on 2 nodes. Node 0: 0
/// (N 0..256), 2 (N 512..768). Node 1: …`.
pub fn super_tiles_line(kernel: &Kernel, run: &ClusterRun) -> String {
    let dim = kernel.cluster_dim().unwrap_or_default();
    let mut line = format!(
        "@cluster: {} super-tiles of {dim} on {} node{}, each an ordinary launch over its slice.",
        run.tiles.len(),
        run.nodes,
        if run.nodes == 1 { "" } else { "s" }
    );
    for node in 0..run.nodes {
        let tiles: Vec<String> = run
            .tiles
            .iter()
            .filter(|t| t.node == node)
            .map(|t| format!("{} ({dim} {}..{})", t.index, t.start, t.start + t.len))
            .collect();
        let tiles = if tiles.is_empty() {
            "none".to_owned()
        } else {
            tiles.join(", ")
        };
        line.push_str(&format!(" Node {node}: {tiles}."));
    }
    line
}

/// A run in flight shows itself only after this long: a quick run would only flicker.
const BLINK_MS: f64 = 150.0;

/// The run in flight: what it is doing, for how long, its progress, and Cancel; then what the
/// last cancel did.
fn progress_view(running: Running) -> impl IntoView {
    let note_ref = NodeRef::<leptos::html::P>::new();
    // Cancel goes away with the run: the reader's focus moves to the note that says what the
    // cancel did, not to the page's start.
    let cancel = move |_| {
        running.cancel();
        request_animation_frame(move || {
            if let Some(note) = note_ref.get_untracked() {
                let _ = note.focus();
            }
        });
    };
    let line = move || {
        let stage = running.stage.get()?;
        let elapsed = running.now.get() - stage.since_ms();
        if elapsed < BLINK_MS {
            return None;
        }
        let seconds = format!("{:.1} s", elapsed / 1000.0);
        let (text, bar) = match stage {
            Stage::Simulating { done, total, .. } if total > 0 => (
                format!("Simulating: {done} of {total} CTAs, {seconds}"),
                Some((done, total)),
            ),
            Stage::Simulating { .. } => (format!("Simulating: starting, {seconds}"), None),
            Stage::Gpu { .. } => (format!("Running on WebGPU: {seconds}"), None),
        };
        let bar = match bar {
            Some((done, total)) => view! {
                <progress max=total.to_string() value=done.to_string() aria-label="CTAs simulated"></progress>
            }
            .into_any(),
            // Without a count, an indeterminate bar: it is working.
            None => view! { <progress aria-label="running"></progress> }.into_any(),
        };
        Some(view! {
            <div class="run-progress" data-testid="run-progress">
                <span role="status" data-testid="run-progress-text">{text}</span>
                {bar}
                <button type="button" data-testid="cancel-run" on:click=cancel>"Cancel"</button>
            </div>
        })
    };
    let note = move || {
        running.note.get().map(|note| {
            view! { <p class="run-note" role="status" tabindex="-1" data-testid="run-note" node_ref=note_ref>{note}</p> }
        })
    };
    view! { {line} {note} }
}
