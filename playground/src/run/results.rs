//! The Run panel's results: the status of the simulator and of the GPU, a fault with the thread
//! and the line it happened on, and each tensor the kernel writes as the simulator computed it
//! (every value reachable, page by page; 2-D tensors as a heat map), with the GPU's verdict
//! beside it; and the inputs the run began with.

use super::engine::{GpuOutcome, RunReport, Running, SimRun, Stage};
use crate::outputs;
use compiler_core::cluster::ClusterRun;
use compiler_core::diagnostic::Phase;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Kernel;
use compiler_core::ir::Scalar;
use compiler_core::program::LaunchRecord;
use compiler_core::share::Stepping;
use compiler_core::sim::{compare_tensor, Arg, Args, Comparison, Tensor};
use compiler_core::span::LineIndex;
use compiler_core::{Code, Diagnostic, RunLimits};
use leptos::prelude::*;
use std::rc::Rc;

/// Values on one page of a tensor's table.
const PAGE_VALUES: usize = 256;
/// Values per row of a tensor shown flat (1-D, 3-D, or 2-D wider than [`WIDEST_ROW`]).
const FLAT_ROW: usize = 16;
/// The widest 2-D row drawn as a row of the heat map.
const WIDEST_ROW: usize = 64;

pub(super) fn tensor(args: &Args, index: usize) -> Option<&Tensor> {
    match args.params.get(index)? {
        Arg::Tensor(t) => Some(t),
        Arg::Scalar(_) => None,
    }
}

/// The heat colour of a value between `low` and `high`.
fn heat(value: f64, low: f64, high: f64) -> String {
    let t = if high > low {
        ((value - low) / (high - low)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    format!("--heat: {:.0}%", t * 100.0)
}

/// How a tensor's values are laid out: values per row, and whether the rows are a 2-D
/// tensor's own (a heat map with row and column numbers).
fn layout(shape: &[usize]) -> (usize, bool) {
    match shape {
        [_, columns] if (1..=WIDEST_ROW).contains(columns) => (*columns, true),
        _ => (FLAT_ROW, false),
    }
}

/// Which rows a page shows: (first row, rows on the page, pages).
fn page_rows(values: usize, row: usize, page: usize) -> (usize, usize, usize) {
    let rows = values.div_ceil(row).max(1);
    let per_page = (PAGE_VALUES / row).max(1);
    let pages = rows.div_ceil(per_page);
    let page = page.min(pages - 1);
    let first = page * per_page;
    (first, per_page.min(rows - first), pages)
}

/// Where the reader is in the results, kept across their redraws (the GPU's answer coming
/// after the simulator's, the first edit after a run, the next run, a switch of tabs): the page
/// each table shows, by table (`result-C`, `input-A`), and whether the inputs are open.
#[derive(Clone, Copy)]
pub struct ResultsPlace {
    pages: StoredValue<Vec<(String, usize)>>,
    inputs_open: StoredValue<bool>,
}

impl ResultsPlace {
    /// Back to the first page of every table, the inputs closed: for another kernel or session.
    /// The slots stay, so a table still on screen keeps a valid one.
    pub fn clear(self) {
        self.pages
            .update_value(|p| p.iter_mut().for_each(|(_, page)| *page = 0));
        self.inputs_open.set_value(false);
    }

    /// Where `table`'s page is kept (from the first page, for a table not seen before).
    fn slot(self, table: &str) -> usize {
        self.pages
            .try_update_value(|p| match p.iter().position(|(t, _)| t == table) {
                Some(slot) => slot,
                None => {
                    p.push((table.to_owned(), 0));
                    p.len() - 1
                }
            })
            .unwrap_or_default()
    }
}

impl Default for ResultsPlace {
    fn default() -> ResultsPlace {
        ResultsPlace {
            pages: StoredValue::new(Vec::new()),
            inputs_open: StoredValue::new(false),
        }
    }
}

/// A tensor's values as a table, page by page; `other` (a GPU's run) marks the values that
/// differ from these. `table` names it in the reader's [`ResultsPlace`].
#[component]
fn TensorTable(
    name: String,
    tensor: Tensor,
    other: Option<Tensor>,
    table: String,
    place: ResultsPlace,
) -> impl IntoView {
    let (row, grid) = layout(&tensor.shape);
    let count = tensor.bits.len();
    let shape_rank = tensor.shape.len();
    // A page kept from a longer tensor (another run) shows as this one's last.
    let last_page = page_rows(count, row, 0).2 - 1;
    let slot = place.slot(&table);
    let page = RwSignal::new(place.pages.with_value(|p| p[slot].1).min(last_page));
    let turn = move |to: usize| {
        let to = to.min(last_page);
        page.set(to);
        place.pages.update_value(|p| p[slot].1 = to);
    };
    let values: Vec<f64> = tensor
        .bits
        .iter()
        .map(|&b| tensor.element.value(b))
        .collect();
    let (low, high) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    // The element the reader went to, marked on its page.
    let target = RwSignal::new(None::<usize>);
    let goto_problem = RwSignal::new(None::<String>);
    let shape = tensor.shape.clone();
    let go = move |text: String| match element_at(&text, &shape) {
        Ok(flat) => {
            goto_problem.set(None);
            target.set(Some(flat));
            turn(flat / row / (PAGE_VALUES / row).max(1));
        }
        Err(why) => goto_problem.set(Some(why)),
    };
    let cell = move |i: usize| -> AnyView {
        let Some(&bits) = tensor.bits.get(i) else {
            return view! { <td class="empty"></td> }.into_any();
        };
        let mine = tensor.element.show(bits);
        let theirs = other
            .as_ref()
            .and_then(|o| o.bits.get(i))
            .map(|&b| tensor.element.show(b));
        let differs = theirs.as_ref().is_some_and(|t| *t != mine);
        let title = match &theirs {
            Some(t) => format!("[{i}] simulator {mine}, GPU {t}"),
            None => format!("[{i}] {mine}"),
        };
        view! {
            <td class:differs=differs class:target=move || target.get() == Some(i) style=heat(tensor.element.value(bits), low, high) title=title>
                {mine}
            </td>
        }
        .into_any()
    };
    let table = move || {
        let (first, rows, _) = page_rows(count, row, page.get());
        let header = grid.then(|| {
            view! {
                <thead>
                    <tr>
                        <th></th>
                        {(0..row).map(|c| view! { <th scope="col">{c}</th> }).collect_view()}
                    </tr>
                </thead>
            }
        });
        view! {
            {header}
            <tbody>
                {(first..first + rows).map(|r| view! {
                    <tr>
                        <th scope="row">{if grid { r } else { r * row }}</th>
                        {(0..row).map(|c| cell(r * row + c)).collect_view()}
                    </tr>
                }).collect_view()}
            </tbody>
        }
    };
    let pager = move || {
        let (first, rows, pages) = page_rows(count, row, page.get());
        (pages > 1).then(|| {
            let shown = format!(
                "Values {} to {} of {count}, page {} of {pages}",
                first * row,
                ((first + rows) * row).min(count) - 1,
                page.get().min(pages - 1) + 1
            );
            view! {
                <div class="pager">
                    <button type="button" data-testid="page-previous" disabled=move || page.get() == 0
                        on:click=move |_| turn(page.get_untracked().saturating_sub(1))>"Previous"</button>
                    <span data-testid="page-info" aria-live="polite">{shown}</span>
                    <button type="button" data-testid="page-next" disabled=move || { page.get() + 1 >= pages }
                        on:click=move |_| turn(page.get_untracked() + 1)>"Next"</button>
                </div>
            }
        })
    };
    let label = format!(
        "{name}{}",
        if grid {
            ", a heat map by row and column"
        } else {
            ""
        }
    );
    let placeholder = if shape_rank > 1 {
        "e.g. 3, 10"
    } else {
        "e.g. 517"
    };
    let goto = (count > PAGE_VALUES).then(|| {
        view! {
            <label class="field small goto">
                <span>"go to element"</span>
                <input type="text" inputmode="numeric" data-testid="goto"
                    placeholder=placeholder
                    aria-invalid=move || goto_problem.with(Option::is_some).to_string()
                    on:change=move |ev| { go(event_target_value(&ev)) }/>
                {move || goto_problem.get().map(|why| view! { <span class="field-problem" role="status" data-testid="goto-problem">{why}</span> })}
            </label>
        }
    });
    view! {
        {pager}
        {goto}
        <div class="table-scroll" tabindex="0" role="region" aria-label=label.clone()>
            <table class="values" class:heat-map=grid>
                {table}
            </table>
        </div>
    }
}

/// The row-major index of the element `text` names in a tensor of `shape`: a flat index
/// (`517`), or one coordinate per axis (`3, 10`, `(3, 10)` or `[3][10]`).
fn element_at(text: &str, shape: &[usize]) -> Result<usize, String> {
    let parts: Vec<&str> = text
        .split(|c: char| {
            c == ',' || c == '[' || c == ']' || c == '(' || c == ')' || c.is_whitespace()
        })
        .filter(|p| !p.is_empty())
        .collect();
    let numbers: Vec<usize> = parts
        .iter()
        .map(|p| {
            p.parse::<usize>()
                .map_err(|_| format!("{p} is not an index"))
        })
        .collect::<Result<_, _>>()?;
    let count: usize = shape.iter().product();
    match numbers.as_slice() {
        [] => Err("an index is needed here".to_owned()),
        [flat] if *flat < count => Ok(*flat),
        [flat] => Err(format!("element {flat} is past the end ({count} elements)")),
        coordinates if coordinates.len() == shape.len() => {
            coordinates
                .iter()
                .zip(shape)
                .try_fold(0, |flat, (&c, &extent)| {
                    if c < extent {
                        Ok(flat * extent + c)
                    } else {
                        Err(format!("{c} is past the axis of {extent}"))
                    }
                })
        }
        coordinates => Err(format!(
            "{} coordinates for a tensor of {} axes",
            coordinates.len(),
            shape.len()
        )),
    }
}

fn shape_text(tensor: &Tensor) -> String {
    tensor
        .shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" × ")
}

/// What a comparison of `got` against `want` (their names) says in words: floats by their
/// largest difference (within the tolerance, or not), integers by the first element that
/// differs, since they must be equal.
fn verdict_text(
    (got, want): (&str, &str),
    element: Scalar,
    c: &Comparison,
    elements: usize,
) -> String {
    let verdict = if c.agree() {
        format!("{got} = {want}")
    } else {
        format!("{got} ≠ {want}")
    };
    let detail = match c.first_mismatch {
        _ if c.largest == 0.0 && c.agree() => "every element equal".to_owned(),
        Some(at) if !element.is_float() => {
            format!("first difference at element {at} of {elements}")
        }
        _ => format!("largest difference {:.3e}", c.largest),
    };
    format!("{verdict} · {detail}")
}

#[component]
fn TensorResult(
    name: String,
    index: usize,
    sim: Args,
    gpu: Option<Args>,
    place: ResultsPlace,
) -> impl IntoView {
    let Some(want) = tensor(&sim, index).cloned() else {
        return ().into_any();
    };
    let got = gpu.as_ref().and_then(|g| tensor(g, index)).cloned();
    let verdict = got
        .as_ref()
        .map(|g| compare_tensor(want.element, &g.bits, &want.bits));
    let summary = summary(&want);
    let npy = {
        let (name, want) = (name.clone(), want.clone());
        move |_| save_npy(&name, &want)
    };
    view! {
        <section class="tensor-result" data-testid=format!("result-{}", name.clone())>
            <h3>
                <code>{name.clone()}</code>" "<span class="shape">{shape_text(&want)}</span>
                {verdict.map(|c| view! {
                    <span class="verdict" class:agree=c.agree() data-testid="verdict">
                        {verdict_text(("GPU", "simulator"), want.element, &c, want.bits.len())}
                    </span>
                })}
            </h3>
            <p class="tensor-summary" data-testid="summary">{summary}</p>
            <div class="tensor-actions">
                <button type="button" data-testid="download-npy" on:click=npy>{format!("Download {name}.npy")}</button>
                <Expected name=name.clone() tensor=want.clone()/>
            </div>
            <TensorTable name=name.clone() tensor=want other=got table=format!("result-{name}") place=place/>
        </section>
    }
    .into_any()
}

/// Saves `tensor` as `NAME.npy`.
fn save_npy(name: &str, tensor: &Tensor) {
    let bytes = compiler_core::npy::write(tensor.element, &tensor.shape, &tensor.bits);
    outputs::save(
        &format!("{name}.npy"),
        gloo_file::Blob::new_with_options(&bytes[..], Some("application/octet-stream")),
    );
}

/// Saves every tensor the run wrote as one `.zip` of `.npy` files, which `np.load` opens as an
/// `.npz`.
fn save_zip(file_name: &str, tensors: &[(String, Tensor)]) {
    let files: Vec<(String, Vec<u8>)> = tensors
        .iter()
        .map(|(name, t)| {
            let bytes = compiler_core::npy::write(t.element, &t.shape, &t.bits);
            (format!("{name}.npy"), bytes)
        })
        .collect();
    let bytes = compiler_core::npy::zip(&files);
    outputs::save(
        file_name,
        gloo_file::Blob::new_with_options(&bytes[..], Some("application/zip")),
    );
}

/// A tensor in numbers: "min -0.99 · max 0.98 · sum 1.25 · mean 0.0012", and how many values
/// are NaN or infinite when some are. Each value to the digits that tell it apart from its
/// neighbours (an `f32`'s shortest exact form).
fn summary(tensor: &Tensor) -> String {
    let values: Vec<f64> = tensor
        .bits
        .iter()
        .map(|&b| tensor.element.value(b))
        .collect();
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let nan = values.iter().filter(|v| v.is_nan()).count();
    let inf = values.iter().filter(|v| v.is_infinite()).count();
    let shown = |v: f64| {
        if tensor.element.is_float() {
            format!("{}", v as f32)
        } else {
            format!("{v}")
        }
    };
    let mut text = match (
        finite.iter().copied().reduce(f64::min),
        finite.iter().copied().reduce(f64::max),
    ) {
        (Some(low), Some(high)) => {
            let sum: f64 = finite.iter().sum();
            format!(
                "min {} · max {} · sum {} · mean {}",
                shown(low),
                shown(high),
                shown(sum),
                shown(sum / finite.len() as f64)
            )
        }
        _ => "no finite value".to_owned(),
    };
    if nan + inf > 0 {
        text += &format!(" · {nan} NaN, {inf} infinite");
    }
    text
}

/// "Compare with an expected .npy": a file the reader drops in or picks, checked against the
/// simulator's tensor by the rule GPU and simulator are (`compare_tensor`).
#[component]
fn Expected(name: String, tensor: Tensor) -> impl IntoView {
    let verdict = RwSignal::new(None::<Result<(Comparison, String), String>>);
    let reading = StoredValue::new_local(None::<gloo_file::callbacks::FileReader>);
    let id = format!("expected-{name}");
    let on_file = {
        let (name, tensor) = (name.clone(), tensor.clone());
        move |ev: leptos::ev::Event| {
            let input = event_target::<web_sys::HtmlInputElement>(&ev);
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            let file = gloo_file::File::from(file);
            let what = file.name();
            let (name, tensor) = (name.clone(), tensor.clone());
            let task = gloo_file::callbacks::read_as_bytes(&file, move |bytes| {
                verdict.set(Some(
                    bytes
                        .map_err(|e| format!("cannot read {what}: {e}"))
                        .and_then(|bytes| expected_verdict(&bytes, &what, &name, &tensor)),
                ));
            });
            reading.set_value(Some(task));
        }
    };
    view! {
        <label class="expected-file">
            "Compare with an expected .npy "
            <input type="file" accept=".npy" id=id data-testid="expected-npy" on:change=on_file/>
        </label>
        {move || verdict.get().map(|v| match v {
            Ok((c, file)) => view! {
                <span class="verdict" class:agree=c.agree() data-testid="expected-verdict" role="status">
                    {verdict_text(("simulator", &file), tensor.element, &c, tensor.bits.len())}
                </span>
            }.into_any(),
            Err(why) => view! {
                <span class="field-problem" data-testid="expected-verdict" role="status">{why}</span>
            }.into_any(),
        })}
    }
}

/// The simulator's `tensor` against the `.npy` file `what`'s bytes: their comparison, or why
/// they cannot be compared (not an `.npy`, another dtype, another shape).
fn expected_verdict(
    bytes: &[u8],
    what: &str,
    name: &str,
    tensor: &Tensor,
) -> Result<(Comparison, String), String> {
    let (shape, values) = compiler_core::npy::read(bytes, what, name, tensor.element)?;
    if shape != tensor.shape {
        let shape = shape
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(" × ");
        return Err(format!(
            "{what} is {shape}, but `{name}` is {}",
            shape_text(tensor)
        ));
    }
    let expected: Vec<u32> = values.iter().map(|&v| tensor.element.bits(v)).collect();
    Ok((
        compare_tensor(tensor.element, &tensor.bits, &expected),
        what.to_owned(),
    ))
}

/// The tensors as the run began.
#[component]
fn Inputs(
    kernel_params: Vec<(usize, String)>,
    inputs: std::rc::Rc<Args>,
    place: ResultsPlace,
) -> impl IntoView {
    let toggled = move |ev: leptos::ev::Event| {
        let open = event_target::<web_sys::Element>(&ev).has_attribute("open");
        place.inputs_open.set_value(open);
    };
    view! {
        <details class="run-inputs" data-testid="run-inputs" open=place.inputs_open.get_value() on:toggle=toggled>
            <summary>"The inputs, as the run began"</summary>
            {kernel_params.into_iter().filter_map(|(index, name)| {
                let t = tensor(&inputs, index)?.clone();
                Some(view! {
                    <section class="tensor-result" data-testid=format!("input-values-{}", name.clone())>
                        <h3><code>{name.clone()}</code>" "<span class="shape">{shape_text(&t)}</span></h3>
                        <TensorTable name=name.clone() tensor=t other=None table=format!("input-{name}") place=place/>
                    </section>
                })
            }).collect_view()}
        </details>
    }
}

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
        let gpu_line = match &report.gpu {
            GpuOutcome::Pending => "WebGPU: running…".to_owned(),
            GpuOutcome::Skipped(why) if report.sim.is_ok() => {
                format!("WebGPU: not run: {why}. The simulator's results are below.")
            }
            GpuOutcome::Skipped(why) => format!("WebGPU: not run: {why}."),
            GpuOutcome::Failed(why) => format!("WebGPU: {why}"),
            GpuOutcome::Done { ms, how, .. } => {
                format!("WebGPU ({how}): {ms:.1} ms, the whole run: upload, kernel and read-back")
            }
        };
        let gpu_time = match &report.gpu {
            GpuOutcome::Done {
                timing: Ok(timing),
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
        let gpu_time = gpu_time.map(|text| view! { <p data-testid="gpu-time">{text}</p> });
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
        let program = report.ran_a_program();
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
                    {(!written.is_empty()).then(|| {
                        let all: Vec<(String, Tensor)> = written
                            .iter()
                            .filter_map(|(i, name)| Some((name.clone(), tensor(&args, *i)?.clone())))
                            .collect();
                        let file = format!("{}-results.zip", kernel.name);
                        view! {
                            <p class="run-actions">
                                <button type="button" data-testid="download-zip" on:click=move |_| save_zip(&file, &all)>
                                    {format!("Download every result (.zip of .npy, {})", all.len())}
                                </button>
                                <span class="hint">"np.load opens it as an .npz."</span>
                            </p>
                        }
                    })}
                    {written.into_iter().map(|(index, name)| view! {
                        <TensorResult name=name index=index sim=args.clone() gpu=gpu_args.clone() place=place/>
                    }).collect_view()}
                    <Inputs kernel_params=tensors inputs=inputs.clone() place=place/>
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_names_the_first_integer_that_differs_and_the_largest_float_difference() {
        let c = |largest, first_mismatch| Comparison {
            largest,
            first_mismatch,
        };
        assert_eq!(
            verdict_text(("GPU", "simulator"), Scalar::U32, &c(0.0, None), 8),
            "GPU = simulator · every element equal"
        );
        assert_eq!(
            verdict_text(("GPU", "simulator"), Scalar::I32, &c(3.0, Some(5)), 8),
            "GPU ≠ simulator · first difference at element 5 of 8"
        );
        assert_eq!(
            verdict_text(("GPU", "simulator"), Scalar::F32, &c(2.5e-6, None), 8),
            "GPU = simulator · largest difference 2.500e-6"
        );
        assert_eq!(
            verdict_text(("GPU", "simulator"), Scalar::F32, &c(0.0, None), 8),
            "GPU = simulator · every element equal"
        );
    }

    #[test]
    fn a_summary_counts_what_is_not_finite_and_keeps_the_digits_that_tell_values_apart() {
        let values = [0.1f32, 0.3, f32::NAN, f32::INFINITY, -2.0];
        let t = Tensor {
            element: Scalar::F32,
            shape: vec![5],
            bits: values.iter().map(|v| v.to_bits()).collect(),
        };
        assert_eq!(
            summary(&t),
            "min -2 · max 0.3 · sum -1.6 · mean -0.5333333 · 1 NaN, 1 infinite"
        );
        let t = Tensor {
            element: Scalar::I32,
            shape: vec![3],
            bits: vec![3, (-1i32) as u32, 4],
        };
        assert_eq!(summary(&t), "min -1 · max 4 · sum 6 · mean 2");
    }

    #[test]
    fn an_expected_npy_is_checked_by_the_rule_gpu_and_simulator_are() {
        let t = Tensor {
            element: Scalar::F32,
            shape: vec![2, 2],
            bits: [1.0f32, 2.0, 3.0, 4.0]
                .iter()
                .map(|v| v.to_bits())
                .collect(),
        };
        let close: Vec<u32> = [1.0f32, 2.0, 3.0, 4.000001]
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let bytes = compiler_core::npy::write(Scalar::F32, &[2, 2], &close);
        let (c, file) =
            expected_verdict(&bytes, "c.npy", "C", &t).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.agree());
        assert_eq!(
            verdict_text(("simulator", &file), t.element, &c, 4),
            "simulator = c.npy · largest difference 9.537e-7"
        );
        let far: Vec<u32> = [1.0f32, 2.5, 3.0, 4.0]
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let bytes = compiler_core::npy::write(Scalar::F32, &[2, 2], &far);
        let (c, _) = expected_verdict(&bytes, "c.npy", "C", &t).unwrap_or_else(|e| panic!("{e}"));
        assert!(!c.agree());
        let bytes = compiler_core::npy::write(Scalar::F32, &[4], &far);
        assert_eq!(
            expected_verdict(&bytes, "c.npy", "C", &t).map(|_| ()),
            Err("c.npy is 4, but `C` is 2 × 2".to_owned())
        );
    }

    #[test]
    fn go_to_an_element_by_its_flat_index_or_its_coordinates() {
        let shape = [512, 1000];
        assert_eq!(element_at("517", &shape), Ok(517));
        assert_eq!(element_at("3, 10", &shape), Ok(3010));
        assert_eq!(element_at("(3,10)", &shape), Ok(3010));
        assert_eq!(element_at("[3][10]", &shape), Ok(3010));
        assert_eq!(
            element_at("512000", &shape),
            Err("element 512000 is past the end (512000 elements)".into())
        );
        assert_eq!(
            element_at("3, 1000", &shape),
            Err("1000 is past the axis of 1000".into())
        );
        assert_eq!(
            element_at("1, 2, 3", &shape),
            Err("3 coordinates for a tensor of 2 axes".into())
        );
        assert_eq!(element_at("x", &shape), Err("x is not an index".into()));
    }

    #[test]
    fn every_value_is_on_some_page() {
        // 1000 values, 16 a row: 63 rows, 16 rows a page, 4 pages; the last has 15 rows.
        assert_eq!(page_rows(1000, 16, 0), (0, 16, 4));
        assert_eq!(page_rows(1000, 16, 3), (48, 15, 4));
        assert_eq!(
            page_rows(1000, 16, 9),
            (48, 15, 4),
            "past the end is the last page"
        );
        // A 2-D tensor of 70 columns is shown flat; of 50, a row per row.
        assert_eq!(layout(&[6, 70]), (FLAT_ROW, false));
        assert_eq!(layout(&[40, 50]), (50, true));
        assert_eq!(page_rows(40 * 50, 50, 0), (0, 5, 8));
        assert_eq!(
            page_rows(0, 16, 0),
            (0, 1, 1),
            "an empty tensor has one empty page"
        );
    }
}
