//! The home page: what Tessera is, a kernel to read, and the thread finder, which runs the
//! compiler core's hierarchy arithmetic in the browser.

use compiler_core::hierarchy::{Dim3, LaunchShape, NVIDIA_LANES};
use diagram::{DiagramConfig, HierarchyDiagram};
use leptos::prelude::*;

/// `site/home.tsr`, highlighted by the compiler's highlighter when the site is built.
const MATVEC_HTML: &str = include_str!(concat!(env!("OUT_DIR"), "/home.html"));

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <section class="hero">
            <h1>"Tessera"</h1>
            <p class="lede">
                "A small GPU kernel language for learning how kernels address the launch "
                "hierarchy: the grid, the CTA, the warp and the lane."
            </p>
            // What a visitor came to try, above the fold at every width (issue 68).
            <p class="hero-actions">
                <a class="button primary" href="/play" data-testid="hero-play">"Open the playground"</a>
                <a class="button" href="/docs/intro">"Read the docs"</a>
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
                <pre class="code" tabindex="0"><code inner_html=MATVEC_HTML></code></pre>
                <figcaption>
                    "A matrix-vector product: each warp computes one output column, each lane "
                    "every 32nd product of it, and "<code>"sum<over ctx.lane>"</code>" folds "
                    "the lanes' partial sums into one."
                </figcaption>
            </figure>
        </section>
        <ThreadFinder/>
        <PartialWarp/>
        <section aria-labelledby="status">
            <h2 id="status">"Where to go from here"</h2>
            <ul>
                <li>
                    <a href="/play">"The playground"</a>": edit a kernel with its problems "
                    "underlined as you type, read its PTX, WGSL and IR line by line against the "
                    "source, run it on the simulator and on your GPU through WebGPU, and share "
                    "the whole state as a link."
                </li>
                <li>
                    <a href="/docs/intro">"The docs"</a>": the hierarchy, collectives, "
                    "uniformity, tiles and targets, with kernels that run in the page, the "
                    "spec, an index of every error and a glossary."
                </li>
                <li>
                    "The same compiler from a terminal: "<code>"tessera check"</code>", "
                    <code>"run"</code>" (simulator or GPU), "<code>"ptx"</code>", "
                    <code>"wgsl"</code>", "<code>"ir"</code>", "<code>"ctx"</code>" and "
                    <code>"gpu"</code>"."
                </li>
            </ul>
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
    placeholder: &'static str,
}

impl NumberField {
    fn new(id: &'static str, label: &'static str, value: u32) -> Self {
        Self {
            id,
            label,
            text: RwSignal::new(value.to_string()),
            placeholder: "",
        }
    }

    /// A field that starts empty, `placeholder` showing what it takes.
    fn empty(id: &'static str, label: &'static str, placeholder: &'static str) -> Self {
        Self {
            id,
            label,
            text: RwSignal::new(String::new()),
            placeholder,
        }
    }

    fn value(&self) -> Result<u32, String> {
        let text = self.text.get();
        text.trim()
            .parse()
            .map_err(|_| format!("{} must be a whole number, not “{text}”", self.label))
    }
}

/// The hierarchy page's schematic, live: pick a launch, then zoom through it in the diagram
/// or type a thread to go straight to it. The "Go to a thread" fields and the drawing show the
/// same thread both ways: typing one zooms onto it, picking a lane fills the fields, and
/// leaving the lane level empties them.
#[component]
fn ThreadFinder() -> impl IntoView {
    let schematic = LaunchShape::SCHEMATIC;
    let launch = [
        NumberField::new("grid-x", "ctx.blocks.x", schematic.grid.x),
        NumberField::new("grid-y", "ctx.blocks.y", schematic.grid.y),
        NumberField::new("threads", "@launch threads", schematic.threads),
        NumberField::new("lanes", "ctx.lanes", NVIDIA_LANES),
    ];
    // Empty until a thread is typed or picked; the placeholders show the worked example, as
    // examples ("e.g. 113"), so that they do not read as values.
    let place = [
        NumberField::empty("block-x", "ctx.block.x", "e.g. 2"),
        NumberField::empty("block-y", "ctx.block.y", "e.g. 1"),
        NumberField::empty("thread", "ctx.thread", "e.g. 113"),
    ];
    let placed = Memo::new(move |_| place.iter().any(|f| !f.text.get().trim().is_empty()));
    let config = Memo::new(move |_| diagram_config(&launch));
    // The drawing shows the last launch the fields described (never a default the fields do
    // not say), and says so while they describe none.
    let drawn = RwSignal::new(config.get_untracked().unwrap_or_default());
    let located = Memo::new(move |_| {
        let config = config.get()?;
        let [block_x, block_y, thread] = place.each_ref().map(NumberField::value);
        let (block, thread) = (Dim3::new(block_x?, block_y?, 0), thread?);
        config
            .shape
            .locate(block, thread)
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((block, thread))
    });
    // The thread the drawing shows: the fields' once they name one (a half-typed place leaves
    // the drawing where it is).
    let shown_thread = RwSignal::new(None::<(Dim3, u32)>);
    Effect::new(move |_| {
        if let Ok(at) = located.get() {
            if shown_thread.get_untracked() != Some(at) {
                shown_thread.set(Some(at));
            }
        }
    });
    // A new launch drawn shows the thread the fields name in it, or none: a thread picked in
    // an earlier launch never comes back.
    Effect::new(move |_| {
        let Ok(now) = config.get() else { return };
        if drawn.with_untracked(|d| *d != now) {
            shown_thread.set(located.get_untracked().ok());
            drawn.set(now);
        }
    });
    let on_pick = Callback::new(move |picked: Option<(Dim3, u32)>| match picked {
        Some((block, thread)) if located.get_untracked() != Ok((block, thread)) => {
            for (field, value) in place.iter().zip([block.x, block.y, thread]) {
                field.text.set(value.to_string());
            }
        }
        Some(_) => {}
        None => {
            if placed.get_untracked() {
                place.iter().for_each(|f| f.text.set(String::new()));
            }
        }
    });
    let error = move || {
        config
            .get()
            .err()
            .or_else(|| placed.get().then(|| located.get().err()).flatten())
    };
    // Which group of fields the error is about: the launch's, or the thread's.
    let launch_invalid = Signal::derive(move || config.with(Result::is_err));
    let place_invalid = Signal::derive(move || {
        !launch_invalid.get() && placed.get() && located.with(Result::is_err)
    });
    let shown = Signal::derive(move || drawn.get());
    let stale = move || {
        launch_invalid.get().then(|| {
            let shape = drawn.with(|d| d.shape);
            format!(
                "The drawing shows the last launch the fields described: {} × {} CTAs of {} \
                 threads, {} lanes to a warp.",
                shape.grid.x, shape.grid.y, shape.threads, shape.lanes
            )
        })
    };

    view! {
        <section class="finder" aria-labelledby="finder-title">
            <h2 id="finder-title">"Where does a thread sit?"</h2>
            <p>
                "A launch is a grid of CTAs, each CTA runs as warps, and each thread is one lane "
                "of its warp. Warps are cut from the thread's index in its CTA, so its warp and "
                "lane follow from "<code>"ctx.thread"</code>" and "<code>"ctx.lanes"</code>" alone."
            </p>
            // Seven fields stand before the drawing: a keyboard reader may go straight to it.
            <button type="button" class="finder-skip" data-testid="finder-skip" on:click=|_| focus_drawing()>"Skip the fields, to the drawing"</button>
            <form class="finder-form" on:submit=|event| event.prevent_default()>
                <fieldset>
                    <legend>"The launch"</legend>
                    {launch.map(|f| number_input(f, launch_invalid))}
                </fieldset>
                <fieldset>
                    <legend>"Go to a thread"</legend>
                    {place.map(|f| number_input(f, place_invalid))}
                </fieldset>
            </form>
            {move || error().map(|message| view! { <p class="error" role="alert" id="finder-error" data-testid="finder-error">{message}</p> })}
            {move || stale().map(|text| view! { <p class="hint" data-testid="finder-stale">{text}</p> })}
            <div id="finder-drawing">
                <HierarchyDiagram config=shown show=shown_thread on_pick=on_pick label="The launch, from the grid to one lane"/>
            </div>
        </section>
    }
}

fn number_input(field: NumberField, invalid: Signal<bool>) -> impl IntoView {
    view! {
        <label class="number-field">
            <span class="number-label">{field.label}</span>
            <input
                type="number"
                min="0"
                inputmode="numeric"
                data-testid=field.id
                prop:value=move || field.text.get()
                placeholder=field.placeholder
                aria-invalid=move || invalid.get().to_string()
                aria-describedby=move || invalid.get().then_some("finder-error")
                on:input=move |event| field.text.set(event_target_value(&event))
            />
        </label>
    }
}

/// Moves the keyboard focus to the finder's drawing (past its seven fields).
fn focus_drawing() {
    use wasm_bindgen::JsCast;
    let drawing = web_sys::window().and_then(|w| w.document()).and_then(|d| {
        d.query_selector("#finder-drawing .hierarchy-drawing")
            .ok()
            .flatten()
    });
    if let Some(drawing) = drawing {
        // An SVG element takes the focus as an HTML one does (`focus()` of HTMLOrSVGElement).
        let _ = drawing.unchecked_into::<web_sys::HtmlElement>().focus();
    }
}

fn diagram_config(launch: &[NumberField; 4]) -> Result<DiagramConfig, String> {
    let [grid_x, grid_y, threads, lanes] = launch.each_ref().map(NumberField::value);
    let grid = Dim3::new(grid_x?, grid_y?, 1);
    let shape = LaunchShape::new(grid, threads?, lanes?).map_err(|e| e.to_string())?;
    let config = DiagramConfig {
        shape,
        ..DiagramConfig::default()
    };
    config.check()?;
    Ok(config)
}

/// The glossary's occupancy view: a 48-thread CTA in two warp slots.
#[component]
fn PartialWarp() -> impl IntoView {
    view! {
        <section aria-labelledby="partial-title">
            <h2 id="partial-title">"A partial warp"</h2>
            <p>
                "A CTA of 48 threads fills one warp and half of another. Lane numbers restart at "
                "zero in each warp, and the lanes past thread 47 hold no thread at all, so warp "
                "1's active mask has sixteen bits set."
            </p>
            <HierarchyDiagram config=DiagramConfig::partial_warp() label="A 48-thread CTA in two warp slots"/>
        </section>
    }
}
