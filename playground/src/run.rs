//! The launch panel and the results: the launch as a form (the same [`Launch`] the CLI and the
//! share links use), a run on the simulator and on the user's GPU through WebGPU, and the
//! written tensors side by side with their largest difference.
//!
//! The simulator is the reference; it runs on the page's thread with a step limit
//! ([`STEP_LIMIT`]) so a runaway kernel stops with an explanation instead of freezing the page.
//! The GPU runs when the browser offers WebGPU; otherwise the note says why.

use crate::Analysis;
use compiler_core::check::Scalar;
use compiler_core::cluster::ClusterRun;
use compiler_core::hierarchy::{Dim3, LaunchShape};
use compiler_core::ir::{Kernel, Param};
use compiler_core::launch::{from_bits, Input, Launch, WarpMode};
use compiler_core::sim::{launch_thread, Arg, Args, Tensor, Writers};
use compiler_core::Diagnostic;
use diagram::{DiagramConfig, HierarchyDiagram};
use leptos::prelude::*;
use std::rc::Rc;

/// Statement executions (each for a whole CTA) before the playground's simulator stops a run:
/// about two seconds of a 256-thread CTA in the browser.
pub const STEP_LIMIT: u64 = 2_000_000;
/// The most tensor elements a run in the page may hold together: 64 MB of data (twice that
/// while the simulator records who wrote each element), far below a tab's memory.
pub const MAX_ELEMENTS_IN_PAGE: u64 = 16 << 20;
/// Elements shown per tensor (the rest are summarised by the largest difference).
const SHOWN: usize = 256;
/// Floats agree when within this relative difference (as the differential tests require):
/// subgroup reductions may add in another order, and `exp` may be approximate.
pub const FLOAT_TOLERANCE: f64 = 1e-4;

/// What one press of Run produced.
#[derive(Clone)]
pub struct RunReport {
    pub kernel: Rc<Kernel>,
    pub sim: Result<SimRun, Vec<Diagnostic>>,
    pub gpu: GpuOutcome,
}

/// The simulator's results, who wrote each element, and how long it took.
#[derive(Clone)]
pub struct SimRun {
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

/// The kernel the launch names, from the current compilation.
/// Refuses, before allocating anything, a launch too large for a browser tab.
pub fn check_size(analysis: &Analysis, launch: &Launch) -> Result<(), Vec<Diagnostic>> {
    let kernel = analysis.compilation.kernel(launch.kernel.as_deref())?;
    let elements = launch.tensor_elements(&kernel).unwrap_or(0);
    if elements <= MAX_ELEMENTS_IN_PAGE {
        return Ok(());
    }
    let diagnostic = Diagnostic::error(
        compiler_core::Code::E0515,
        compiler_core::Span::new(kernel.span.start, kernel.span.start),
        format!(
            "the tensors would hold {elements} elements together; a run in the page holds at most {MAX_ELEMENTS_IN_PAGE} (64 MB)"
        ),
    )
    .with_help("make the dimensions smaller here, or run the same launch from a terminal with `tessera run`");
    Err(vec![diagnostic])
}

pub fn run_simulator(analysis: &Analysis, launch: &Launch) -> Result<SimRun, Vec<Diagnostic>> {
    check_size(analysis, launch)?;
    let launch = Launch {
        step_limit: launch.step_limit.or(Some(STEP_LIMIT)),
        ..launch.clone()
    };
    let start = now_ms();
    let output = analysis.compilation.run_recording(&launch)?;
    Ok(SimRun {
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
pub async fn gpu() -> Result<Rc<runtime::Gpu>, String> {
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
pub async fn run_gpu(_: &Analysis, _: &Launch, _: Option<WarpMode>) -> GpuOutcome {
    GpuOutcome::Skipped("WebGPU runs only in the browser".into())
}

#[cfg(target_arch = "wasm32")]
pub async fn run_gpu(analysis: &Analysis, launch: &Launch, forced: Option<WarpMode>) -> GpuOutcome {
    if check_size(analysis, launch).is_err() {
        return GpuOutcome::Skipped("the launch is too large for a run in the page".into());
    }
    let gpu = match gpu().await {
        Ok(gpu) => gpu,
        Err(why) => return GpuOutcome::Skipped(why),
    };
    let mode = forced.unwrap_or_else(|| gpu.report.warp_mode(launch.lanes));
    let (kernel, wgsl) =
        match analysis
            .compilation
            .wgsl(launch.kernel.as_deref(), launch.lanes, mode)
        {
            Ok(built) => built,
            Err(d) => {
                return GpuOutcome::Failed(d.first().map(|d| d.message.clone()).unwrap_or_default())
            }
        };
    let mut args = match launch.bind(&kernel) {
        Ok(args) => args,
        Err(d) => return GpuOutcome::Failed(d.message),
    };
    match runtime::run(&gpu, &kernel, &wgsl, &mut args).await {
        Ok(run) => GpuOutcome::Done {
            args,
            ms: run.elapsed.as_secs_f64() * 1000.0,
            how: format!(
                "{}, subgroups of {} · {}",
                gpu.report.name,
                if gpu.report.subgroup_min_size == gpu.report.subgroup_max_size {
                    gpu.report.subgroup_min_size.to_string()
                } else {
                    format!(
                        "{} to {}",
                        gpu.report.subgroup_min_size, gpu.report.subgroup_max_size
                    )
                },
                match mode {
                    WarpMode::Subgroups => format!("{}-lane subgroups as warps", launch.lanes),
                    WarpMode::Emulated => format!("{}-lane warps emulated", launch.lanes),
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

/// A value as the results table prints it.
fn show(bits: u32, element: Scalar) -> String {
    match element {
        Scalar::F32 | Scalar::F16 => {
            let v = f32::from_bits(bits);
            if v == v.trunc() && v.abs() < 1e7 {
                format!("{v:.0}")
            } else {
                format!("{v:.4}")
            }
        }
        Scalar::Bool => (bits != 0).to_string(),
        Scalar::U32 if bits > 0xffff => format!("{bits:#010x}"),
        _ => format!("{}", from_bits(bits, element)),
    }
}

/// The largest difference between two runs of a tensor, and whether they agree.
pub fn difference(element: Scalar, a: &[u32], b: &[u32]) -> (f64, bool) {
    let mut largest = 0.0f64;
    let mut agree = a.len() == b.len();
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (from_bits(x, element), from_bits(y, element));
        let d = (x - y).abs();
        let d = if d.is_nan() { f64::INFINITY } else { d };
        largest = largest.max(d);
        let ok = match element {
            Scalar::F32 | Scalar::F16 => {
                d <= FLOAT_TOLERANCE * y.abs().max(1.0) || (x.is_nan() && y.is_nan())
            }
            _ => d == 0.0,
        };
        agree &= ok;
    }
    (largest, agree)
}

fn tensor(args: &Args, index: usize) -> Option<&Tensor> {
    match args.params.get(index)? {
        Arg::Tensor(t) => Some(t),
        Arg::Scalar(_) => None,
    }
}

/// The heat colour of a value between `low` and `high` (2-D results).
fn heat(value: f64, low: f64, high: f64) -> String {
    let t = if high > low {
        ((value - low) / (high - low)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    format!("--heat: {:.0}%", t * 100.0)
}

#[component]
fn TensorResult(kernel: Rc<Kernel>, index: usize, sim: Args, gpu: Option<Args>) -> impl IntoView {
    let name = kernel.params[index].name().to_owned();
    let Some(want) = tensor(&sim, index).cloned() else {
        return ().into_any();
    };
    let got = gpu.as_ref().and_then(|g| tensor(g, index)).cloned();
    let shape = want
        .shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" × ");
    let verdict = got.as_ref().map(|g| {
        let (largest, agree) = difference(want.element, &g.bits, &want.bits);
        (largest, agree)
    });
    let values: Vec<f64> = want
        .bits
        .iter()
        .map(|&b| from_bits(b, want.element))
        .collect();
    let (low, high) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    let columns = if want.shape.len() == 2 {
        want.shape[1].clamp(1, 16)
    } else {
        16
    };
    let rows_total = if want.shape.len() == 2 {
        want.shape[0]
    } else {
        want.bits.len().div_ceil(16)
    };
    let row_len = if want.shape.len() == 2 {
        want.shape[1]
    } else {
        16
    };
    let rows = rows_total.min(SHOWN / columns).max(1);
    let cell = move |i: usize| -> AnyView {
        let Some(&bits) = want.bits.get(i) else {
            return view! { <td></td> }.into_any();
        };
        let sim_text = show(bits, want.element);
        let gpu_text = got
            .as_ref()
            .and_then(|g| g.bits.get(i))
            .map(|&b| show(b, want.element));
        let differs = gpu_text.as_ref().is_some_and(|g| *g != sim_text);
        let title = match &gpu_text {
            Some(g) => format!("[{i}] simulator {sim_text}, GPU {g}"),
            None => format!("[{i}] {sim_text}"),
        };
        view! {
            <td class:differs=differs style=heat(from_bits(bits, want.element), low, high) title=title>
                {sim_text}
            </td>
        }
        .into_any()
    };
    view! {
        <section class="tensor-result" data-testid=format!("result-{name}")>
            <h3>
                <code>{name.clone()}</code>" "<span class="shape">{shape}</span>
                {verdict.map(|(largest, agree)| view! {
                    <span class="verdict" class:agree=agree data-testid="verdict">
                        {if agree { "GPU = simulator" } else { "GPU ≠ simulator" }}
                        {format!(" · largest difference {largest:.3e}")}
                    </span>
                })}
            </h3>
            <div class="table-scroll">
                <table class="values" aria-label=format!("{name}, as the simulator computed it")>
                    <tbody>
                        {(0..rows).map(|r| view! {
                            <tr>
                                <th scope="row">{r * row_len}</th>
                                {(0..columns).map(|c| cell(r * row_len + c)).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            {(rows < rows_total || columns < row_len).then(|| view! {
                <p class="more">{format!("Showing the first {rows} rows and {columns} columns.")}</p>
            })}
        </section>
    }
    .into_any()
}

/// A docs kernel run in place: compiles `source`, builds its launch from the page's `key=value`
/// words, runs the simulator at once and then WebGPU, and shows the results as the playground
/// does.
#[component]
pub fn KernelRun(source: String, words: Vec<(String, String)>) -> impl IntoView {
    let analysis = Rc::new(Analysis::new(source));
    let kernel = analysis
        .compilation
        .kernel(None)
        .map_err(|d| d.first().map(|d| d.message.clone()).unwrap_or_default());
    let launch = kernel
        .clone()
        .and_then(|k| Launch::from_words(&words, &k).map(|launch| (k, launch)));
    let (kernel, launch) = match launch {
        Ok(ready) => ready,
        Err(why) => {
            return view! { <p class="error">{format!("This kernel cannot run: {why}")}</p> }
                .into_any()
        }
    };
    let report = RwSignal::new_local(Some(RunReport {
        kernel: Rc::new(kernel),
        sim: run_simulator(&analysis, &launch),
        gpu: GpuOutcome::Pending,
    }));
    leptos::task::spawn_local(async move {
        let outcome = run_gpu(&analysis, &launch, None).await;
        report.update(|r| {
            if let Some(r) = r {
                r.gpu = outcome;
            }
        });
    });
    view! { <Results report=report/> }.into_any()
}

#[component]
pub fn Results(report: RwSignal<Option<RunReport>, LocalStorage>) -> impl IntoView {
    move || {
        let Some(report) = report.get() else {
            return view! {
                <p class="hint">"Press Run (or Ctrl+Enter in the editor) to run the kernel on the simulator and on your GPU."</p>
            }
            .into_any();
        };
        let gpu_line = match &report.gpu {
            GpuOutcome::Pending => "WebGPU: running…".to_owned(),
            GpuOutcome::Skipped(why) => {
                format!("WebGPU: not run: {why}. The simulator's results are below.")
            }
            GpuOutcome::Failed(why) => format!("WebGPU: {why}"),
            GpuOutcome::Done { ms, how, .. } => format!("WebGPU ({how}): {ms:.1} ms"),
        };
        let gpu_args = match &report.gpu {
            GpuOutcome::Done { args, .. } => Some(args.clone()),
            _ => None,
        };
        match &report.sim {
            Err(diagnostics) => view! {
                <div class="run-status" role="status" data-testid="run-status">
                    <p class="run-fault">
                        {format!("The simulator stopped the run: {}", diagnostics.iter().map(|d| format!("{} {}", d.code.as_str(), d.message)).collect::<Vec<_>>().join("; "))}
                    </p>
                    <p data-testid="gpu-status">{gpu_line}</p>
                </div>
            }
            .into_any(),
            Ok(SimRun { args, ms, cluster, .. }) => {
                let written = report.kernel.written_tensors();
                let kernel = report.kernel.clone();
                let args = args.clone();
                let cluster_line = cluster.as_ref().map(|run| super_tiles_line(&kernel, run));
                view! {
                    <div class="run-status" role="status" data-testid="run-status">
                        <p data-testid="sim-status">{format!("Simulator: {ms:.1} ms")}</p>
                        {cluster_line.map(|line| view! { <p data-testid="cluster-status">{line}</p> })}
                        <p data-testid="gpu-status">{gpu_line}</p>
                    </div>
                    {written.into_iter().map(|i| view! {
                        <TensorResult kernel=kernel.clone() index=i sim=args.clone() gpu=gpu_args.clone()/>
                    }).collect_view()}
                }
                .into_any()
            }
        }
    }
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

/// What the picked thread wrote in the last simulated run: (tensor, flat index, value).
fn writes_of(
    report: &RunReport,
    grid: Dim3,
    block: Dim3,
    thread: u32,
) -> Vec<(String, String, String)> {
    let Ok(sim) = &report.sim else {
        return Vec::new();
    };
    let id = launch_thread(grid, block, report.kernel.threads, thread) + 1;
    let mut out = Vec::new();
    for (param, who) in sim.writers.iter().enumerate() {
        let Some(tensor) = tensor(&sim.args, param) else {
            continue;
        };
        for (at, _) in who.iter().enumerate().filter(|(_, w)| **w == id) {
            let index = unflatten(at, &tensor.shape);
            out.push((
                report.kernel.params[param].name().to_owned(),
                index,
                show(tensor.bits[at], tensor.element),
            ));
        }
    }
    out
}

/// `[2, 7]` for flat index 2 * columns + 7 of a row-major shape.
fn unflatten(mut at: usize, shape: &[usize]) -> String {
    let mut index = vec![0; shape.len()];
    for (i, &extent) in shape.iter().enumerate().rev() {
        index[i] = at % extent.max(1);
        at /= extent.max(1);
    }
    format!(
        "[{}]",
        index
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The current launch in the hierarchy diagram; after a simulated run, the lane picked shows
/// what its thread wrote.
#[component]
pub fn LaunchDiagram(
    launch: RwSignal<Launch>,
    #[prop(into)] kernel: Signal<Option<Rc<Kernel>>, LocalStorage>,
    report: RwSignal<Option<RunReport>, LocalStorage>,
) -> impl IntoView {
    let config = Signal::derive_local(move || {
        let kernel = kernel
            .get()
            .ok_or_else(|| "Fix the source to see its launch.".to_owned())?;
        let (grid, lanes) = launch.with(|l| (l.grid, l.lanes));
        let shape = LaunchShape::new(Dim3::new(grid.x, grid.y, 1), kernel.threads, lanes)
            .map_err(|e| e.to_string())?;
        // The dashed tier of a kernel under @cluster, once its dimension's value is known.
        let cluster = kernel.cluster.and_then(|c| {
            let extent = launch.with(|l| l.dims.get(kernel.cluster_dim()?).copied())?;
            let supertiles = u64::try_from(extent).ok()?.div_ceil(c.size.max(1));
            Some(diagram::Cluster {
                nodes: launch.with(|l| l.nodes.max(1)),
                supertiles: u32::try_from(supertiles).ok()?,
            })
        });
        let config = DiagramConfig {
            shape,
            cluster,
            ..DiagramConfig::default()
        };
        config.check()?;
        Ok::<_, String>(config)
    });
    let picked = RwSignal::new(None::<(Dim3, u32)>);
    let on_pick = Callback::new(move |p| picked.set(p));
    let writes = move || {
        let (block, thread) = picked.get()?;
        let grid = launch.with(|l| l.grid);
        report.with(|r| {
            r.as_ref()
                .map(|r| (block, thread, writes_of(r, grid, block, thread)))
        })
    };
    view! {
        <section class="launch-diagram" aria-labelledby="launch-diagram-title">
            <h2 id="launch-diagram-title">"Where each thread sits"</h2>
            {move || match config.get() {
                Err(why) => view! { <p class="hint" data-testid="launch-diagram-error">{why}</p> }.into_any(),
                Ok(c) => view! {
                    <HierarchyDiagram config=c label="This launch, from the grid to one lane" on_pick=on_pick stacked=true/>
                }.into_any(),
            }}
            {move || launch.with(|l| l.grid.z > 1).then(|| view! {
                <p class="hint">"The grid has a z extent; the diagram shows the slice z = 0."</p>
            })}
            {move || writes().map(|(block, thread, list)| view! {
                <div class="thread-writes" data-testid="thread-writes">
                    <p>{format!("In the last simulated run, thread {thread} of block ({}, {}) wrote {}:", block.x, block.y, if list.is_empty() { "nothing".to_owned() } else { format!("{} element{}", list.len(), if list.len() == 1 { "" } else { "s" }) })}</p>
                    <ul>
                        {list.into_iter().take(32).map(|(name, index, value)| view! {
                            <li><code>{format!("{name}{index} = {value}")}</code></li>
                        }).collect_view()}
                    </ul>
                </div>
            })}
        </section>
    }
}

fn number_input(
    label: String,
    testid: String,
    value: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(String) + 'static,
) -> impl IntoView {
    view! {
        <label class="field">
            <span>{label}</span>
            <input type="number" inputmode="numeric" data-testid=testid prop:value=value on:change=move |ev| set(event_target_value(&ev))/>
        </label>
    }
}

fn parse_count(text: &str) -> Option<u32> {
    text.trim().parse::<u32>().ok()
}

/// The launch form for the picked kernel.
#[component]
pub fn LaunchPanel(
    launch: RwSignal<Launch>,
    warp_mode: RwSignal<Option<WarpMode>>,
    #[prop(into)] kernel: Signal<Option<Rc<Kernel>>, LocalStorage>,
    #[prop(into)] kernel_names: Signal<Vec<String>>,
    on_run: Callback<()>,
) -> impl IntoView {
    let axis = |which: usize| {
        let value = move || {
            launch
                .with(|l| match which {
                    0 => l.grid.x,
                    1 => l.grid.y,
                    _ => l.grid.z,
                })
                .to_string()
        };
        let set = move |text: String| {
            if let Some(n) = parse_count(&text) {
                launch.update(|l| match which {
                    0 => l.grid.x = n,
                    1 => l.grid.y = n,
                    _ => l.grid.z = n,
                });
            }
        };
        number_input(
            format!("grid.{}", ["x", "y", "z"][which]),
            format!("grid-{}", ["x", "y", "z"][which]),
            value,
            set,
        )
    };
    let parameters = move || {
        let Some(kernel) = kernel.get() else {
            return ().into_any();
        };
        let dims = kernel.dims.clone();
        let dim_fields = dims
            .into_iter()
            .map(|name| {
                let key = name.clone();
                let key2 = name.clone();
                number_input(
                    name.clone(),
                    format!("dim-{name}"),
                    move || {
                        launch.with(|l| l.dims.get(&key).map(i64::to_string).unwrap_or_default())
                    },
                    move |text| {
                        if let Ok(v) = text.trim().parse::<i64>() {
                            launch.update(|l| {
                                l.dims.insert(key2.clone(), v);
                            });
                        }
                    },
                )
            })
            .collect_view();
        let param_fields = kernel
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar { name, .. } => {
                    let (key, key2) = (name.clone(), name.clone());
                    number_input(
                        name.clone(),
                        format!("scalar-{name}"),
                        move || launch.with(|l| l.scalars.get(&key).map(f64::to_string).unwrap_or_default()),
                        move |text| {
                            if let Ok(v) = text.trim().parse::<f64>() {
                                launch.update(|l| {
                                    l.scalars.insert(key2.clone(), v);
                                });
                            }
                        },
                    )
                    .into_any()
                }
                Param::Tensor { name, .. } => {
                    let (key, key2) = (name.clone(), name.clone());
                    let current = move || {
                        launch.with(|l| l.inputs.get(&key).cloned().unwrap_or(Input::Zeros).to_string())
                    };
                    let options_now = current.clone();
                    view! {
                        <label class="field">
                            <span>{name.clone()}</span>
                            <select
                                data-testid=format!("input-{name}")
                                prop:value=current
                                on:change=move |ev| {
                                    let text = event_target_value(&ev);
                                    let input = if text == "rand" { Ok(Input::Rand(1)) } else { text.parse::<Input>() };
                                    if let Ok(input) = input {
                                        launch.update(|l| { l.inputs.insert(key2.clone(), input); });
                                    }
                                }
                            >
                                {move || {
                                    let now = options_now();
                                    let mut options: Vec<String> = ["zeros", "ones", "iota"].map(str::to_owned).to_vec();
                                    if now.starts_with("rand:") || now.starts_with("data") { options.push(now.clone()); }
                                    if !now.starts_with("rand:") { options.push("rand:1".into()); }
                                    options.into_iter().map(|o| view! { <option value=o.clone() selected=o == now>{o.clone()}</option> }).collect_view()
                                }}
                            </select>
                        </label>
                    }
                    .into_any()
                }
            })
            .collect_view();
        view! {
            <fieldset>
                <legend>"Parameters"</legend>
                {dim_fields}
                {param_fields}
            </fieldset>
        }
        .into_any()
    };
    view! {
        <form class="launch-panel" aria-label="Launch" on:submit=move |ev| { ev.prevent_default(); on_run.run(()); }>
            {move || (kernel_names.get().len() > 1).then(|| view! {
                <label class="field">
                    <span>"kernel"</span>
                    <select data-testid="kernel" on:change=move |ev| {
                        let name = event_target_value(&ev);
                        launch.update(|l| l.kernel = Some(name));
                    }>
                        {kernel_names.get().into_iter().map(|n| {
                            let selected = launch.with(|l| l.kernel.as_deref() == Some(n.as_str()));
                            view! { <option value=n.clone() selected=selected>{n.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
            })}
            <fieldset>
                <legend>"Grid and warps"</legend>
                {axis(0)}{axis(1)}{axis(2)}
                {number_input(
                    "ctx.lanes".into(),
                    "lanes".into(),
                    move || launch.with(|l| l.lanes.to_string()),
                    move |text| if let Some(n) = parse_count(&text) { launch.update(|l| l.lanes = n) },
                )}
                {move || kernel.get().is_some_and(|k| k.cluster.is_some()).then(|| number_input(
                    "@cluster nodes".into(),
                    "nodes".into(),
                    move || launch.with(|l| l.nodes.to_string()),
                    move |text| if let Some(n) = parse_count(&text) { launch.update(|l| l.nodes = n) },
                ))}
                <label class="field">
                    <span>"warps on the GPU"</span>
                    <select data-testid="warp-mode" on:change=move |ev| {
                        warp_mode.set(match event_target_value(&ev).as_str() {
                            "subgroups" => Some(WarpMode::Subgroups),
                            "emulated" => Some(WarpMode::Emulated),
                            _ => None,
                        });
                    }>
                        <option value="auto" selected=move || warp_mode.get().is_none()>"automatic"</option>
                        <option value="subgroups" selected=move || warp_mode.get() == Some(WarpMode::Subgroups)>"the GPU's subgroups"</option>
                        <option value="emulated" selected=move || warp_mode.get() == Some(WarpMode::Emulated)>"emulated in workgroup memory"</option>
                    </select>
                </label>
            </fieldset>
            {parameters}
            <button type="submit" class="primary" data-testid="run">"Run"</button>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_agree_within_the_tolerance_integers_exactly() {
        let f = |v: f32| v.to_bits();
        assert_eq!(
            difference(Scalar::F32, &[f(1.0), f(2.0)], &[f(1.0), f(2.0)]),
            (0.0, true)
        );
        let (d, agree) = difference(Scalar::F32, &[f(1000.0)], &[f(1000.05)]);
        assert!(agree && d > 0.0);
        assert!(!difference(Scalar::F32, &[f(1.0)], &[f(1.1)]).1);
        assert!(!difference(Scalar::I32, &[1], &[2]).1);
        assert!(!difference(Scalar::F32, &[f(f32::NAN)], &[f(1.0)]).1);
        assert!(!difference(Scalar::I32, &[1, 2], &[1]).1, "lengths differ");
    }

    #[test]
    fn flat_indices_read_back_as_row_major_indices() {
        assert_eq!(unflatten(7, &[2, 5]), "[1, 2]");
        assert_eq!(unflatten(7, &[40]), "[7]");
        assert_eq!(unflatten(0, &[1, 3, 4]), "[0, 0, 0]");
        assert_eq!(unflatten(23, &[2, 3, 4]), "[1, 2, 3]");
    }

    #[test]
    fn values_print_as_a_reader_expects() {
        assert_eq!(show(3.0f32.to_bits(), Scalar::F32), "3");
        assert_eq!(show(0.5f32.to_bits(), Scalar::F32), "0.5000");
        assert_eq!(show((-4i32) as u32, Scalar::I32), "-4");
        assert_eq!(show(0xffff_ffff, Scalar::U32), "0xffffffff");
        assert_eq!(show(1, Scalar::Bool), "true");
    }
}
