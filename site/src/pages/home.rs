//! The home page: what Tessera is, a kernel to read, and the thread finder, which runs the
//! compiler core's hierarchy arithmetic in the browser.

use compiler_core::hierarchy::{Dim3, LaunchShape, ThreadCtx, NVIDIA_LANES};
use leptos::prelude::*;

const MATVEC: &str = "\
@launch(256)
kernel mv(A: tensor<f32>[1, K], W: tensor<f32>[N, K], C: tensor<f32>[1, N]) {
  let col = ctx.block.x * ctx.warps + ctx.warp
  if col < N {
    var acc: f32 = 0.0
    for k in range(ctx.lane, K, ctx.lanes) {
      acc += W[col, k] * A[0, k]
    }
    let total = sum<over ctx.lane>(acc)
    if ctx.lane == 0 {
      C[0, col] = total
    }
  }
}";

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <section class="hero">
            <h1>"Tessera"</h1>
            <p class="lede">
                "A small GPU kernel language for learning how kernels address the launch "
                "hierarchy: the grid, the CTA, the warp and the lane."
            </p>
        </section>
        <section aria-labelledby="what">
            <h2 id="what">"What it is"</h2>
            <p>
                "A Tessera kernel says what every thread of a launch does. Each thread reads "
                "where it sits through eight "<code>"ctx"</code>" fields, and the compiler "
                "tracks which values are the same across a CTA ("<em>"uniform"</em>"), across "
                "a warp ("<em>"warp-uniform"</em>") or differ per thread ("<em>"varying"</em>"), "
                "so a collective such as a warp-wide sum can only be written where every lane "
                "reaches it."
            </p>
            <p>
                "One compiler, written in Rust, runs both in this page as WebAssembly and as the "
                <code>"tessera"</code>" command line. It lowers a kernel to PTX for NVIDIA GPUs "
                "and to WGSL for WebGPU, and a CPU simulator defines what every kernel means."
            </p>
            <figure class="code-figure">
                <pre class="code" tabindex="0"><code>{MATVEC}</code></pre>
                <figcaption>
                    "A matrix-vector product: each warp computes one output column, each lane "
                    "every 32nd product of it, and "<code>"sum<over ctx.lane>"</code>" folds "
                    "the lanes' partial sums into one."
                </figcaption>
            </figure>
        </section>
        <ThreadFinder/>
        <section aria-labelledby="status">
            <h2 id="status">"What works today"</h2>
            <ul>
                <li>
                    "The launch-hierarchy arithmetic above, computed by the compiler core in "
                    "your browser, and the same from a terminal with "<code>"tessera ctx"</code>"."
                </li>
                <li>
                    "The front end: the parser, and the checker of types and uniformity that "
                    "explains every mistake with a code and the spans responsible, from a "
                    "terminal with "<code>"tessera check"</code>"."
                </li>
                <li>
                    "The reference simulator, which runs any kernel exactly (warps in lockstep, "
                    "shared memory, every collective) and stops at out-of-bounds accesses, "
                    "division by zero, divergent barriers and data races with the thread and "
                    "line responsible: "<code>"tessera run"</code>"."
                </li>
                <li>
                    "PTX for NVIDIA GPUs (sm_70, sm_80, sm_90) that NVIDIA's assembler accepts, "
                    "with each source line as a comment: "<code>"tessera ptx"</code>"."
                </li>
                <li>
                    <code>"tessera gpu"</code>" describes the machine's GPU and its subgroups, "
                    "the lanes WGSL kernels will run on."
                </li>
            </ul>
            <p>
                "The WGSL back end, the playground and the docs are being built in the open; "
                "each appears here when it works."
            </p>
        </section>
    }
}

/// One number the user can change, with the text they typed (kept even when it is not a
/// number, so the input never fights the keyboard).
#[derive(Clone, Copy)]
struct NumberField {
    id: &'static str,
    label: &'static str,
    text: RwSignal<String>,
}

impl NumberField {
    fn new(id: &'static str, label: &'static str, value: u32) -> Self {
        Self {
            id,
            label,
            text: RwSignal::new(value.to_string()),
        }
    }

    fn value(&self) -> Result<u32, String> {
        let text = self.text.get();
        text.trim()
            .parse()
            .map_err(|_| format!("{} must be a whole number, not “{text}”", self.label))
    }
}

/// The worked example of the hierarchy page, live: pick a launch and a thread and see its
/// `ctx` fields with the reason for each value.
#[component]
fn ThreadFinder() -> impl IntoView {
    let schematic = LaunchShape::SCHEMATIC;
    let launch = [
        NumberField::new("grid-x", "ctx.blocks.x", schematic.grid.x),
        NumberField::new("grid-y", "ctx.blocks.y", schematic.grid.y),
        NumberField::new("threads", "@launch threads", schematic.threads),
        NumberField::new("lanes", "ctx.lanes", NVIDIA_LANES),
    ];
    let place = [
        NumberField::new("block-x", "ctx.block.x", 2),
        NumberField::new("block-y", "ctx.block.y", 1),
        NumberField::new("thread", "ctx.thread", 113),
    ];
    let located = Memo::new(move |_| locate(&launch, &place));

    view! {
        <section class="finder" aria-labelledby="finder-title">
            <h2 id="finder-title">"Where does a thread sit?"</h2>
            <p>
                "Pick a launch and one thread of it. Warps are cut from the thread's index in "
                "its CTA, so its warp and lane follow from "<code>"ctx.thread"</code>" and "
                <code>"ctx.lanes"</code>" alone."
            </p>
            <form class="finder-form" on:submit=|event| event.prevent_default()>
                <fieldset>
                    <legend>"The launch"</legend>
                    {launch.map(number_input)}
                </fieldset>
                <fieldset>
                    <legend>"The thread"</legend>
                    {place.map(number_input)}
                </fieldset>
            </form>
            <div class="finder-result" aria-live="polite">
                {move || match located.get() {
                    Ok(thread) => thread_readout(&thread).into_any(),
                    Err(message) => {
                        view! { <p class="error" data-testid="finder-error">{message}</p> }
                            .into_any()
                    }
                }}
            </div>
        </section>
    }
}

fn number_input(field: NumberField) -> impl IntoView {
    view! {
        <label class="number-field">
            <span class="number-label">{field.label}</span>
            <input
                type="number"
                min="0"
                inputmode="numeric"
                data-testid=field.id
                prop:value=move || field.text.get()
                on:input=move |event| field.text.set(event_target_value(&event))
            />
        </label>
    }
}

fn locate(launch: &[NumberField; 4], place: &[NumberField; 3]) -> Result<ThreadCtx, String> {
    let [grid_x, grid_y, threads, lanes] = launch.each_ref().map(NumberField::value);
    let [block_x, block_y, thread] = place.each_ref().map(NumberField::value);
    let grid = Dim3::new(grid_x?, grid_y?, 1);
    let shape = LaunchShape::new(grid, threads?, lanes?).map_err(|e| e.to_string())?;
    shape
        .locate(Dim3::new(block_x?, block_y?, 0), thread?)
        .map_err(|e| e.to_string())
}

fn thread_readout(thread: &ThreadCtx) -> impl IntoView {
    let rows = thread.explain().into_iter().map(|row| {
        view! {
            <tr>
                <th scope="row"><code>{row.field}</code></th>
                <td class="value">{row.value}</td>
                <td>{row.why}</td>
            </tr>
        }
    });
    view! {
        <p class="sentence" data-testid="sentence">{thread.sentence()}</p>
        <table class="ctx-table" data-testid="ctx-table">
            <caption class="visually-hidden">"The ctx fields of the thread picked"</caption>
            <thead>
                <tr><th scope="col">"Field"</th><th scope="col">"Value"</th><th scope="col">"Why"</th></tr>
            </thead>
            <tbody>{rows.collect_view()}</tbody>
        </table>
        <p class="relation">
            <code>"ctx.thread = ctx.warp * ctx.lanes + ctx.lane"</code>": "
            <code data-testid="relation">{thread.relation()}</code>
        </p>
        <p class="mask">
            "Active mask of warp "{thread.warp()}": "
            <code data-testid="active-mask">{thread.active_mask().to_string()}</code>
            " ("{thread.active_mask().count()}" of "{thread.shape.lanes}" lanes hold a thread)"
        </p>
    }
}
