//! A program's launches on the GPU as they ran: one bar a launch on a time axis, from the
//! first launch's start to the last one's end (the gaps between them are the host's: its
//! reads of a `while` condition, its next dispatch), and the same as a table.
//!
//! In: the GPU's [`LaunchTimes`] and the launches the program made (the simulator's walk,
//! which the GPU's follows). Out: an SVG figure with a caption, and a table of each launch's
//! start and time (in a `details`, for a screen reader and for the numbers).

use compiler_core::program::LaunchRecord;
use compiler_core::timing::{nanoseconds as time, LaunchTimes};
use leptos::prelude::*;

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 44.0;
/// The most launches listed in the table (the drawing has them all).
const LISTED: usize = 64;

#[component]
pub fn LaunchTimeline(times: LaunchTimes, launches: Vec<LaunchRecord>) -> impl IntoView {
    let span = times.span_ns().max(1.0);
    let name = |i: usize| {
        launches
            .get(i)
            .map_or_else(|| format!("launch {}", i + 1), |r| r.kernel.clone())
    };
    // Each kernel its own shade, in the order they first appear.
    let mut kernels: Vec<String> = Vec::new();
    for i in 0..times.spans_ns.len() {
        let n = name(i);
        if !kernels.contains(&n) {
            kernels.push(n);
        }
    }
    let bars = times
        .spans_ns
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|(a, b)| (i, a, b)))
        .map(|(i, a, b)| {
            let x = a / span * WIDTH;
            let w = ((b - a) / span * WIDTH).max(1.0);
            let shade = kernels.iter().position(|k| *k == name(i)).unwrap_or(0) % 4;
            view! {
                <rect class=format!("launch-bar shade-{shade}") x=format!("{x:.1}") y="6" width=format!("{w:.1}") height="22">
                    <title>{format!("{}. {}: {} from {}", i + 1, name(i), time(b - a), time(a))}</title>
                </rect>
            }
        })
        .collect_view();
    let rows = times
        .spans_ns
        .iter()
        .enumerate()
        .take(LISTED)
        .map(|(i, s)| {
            let (start, took) = match s {
                Some((a, b)) => (time(*a), time(b - a)),
                None => ("—".to_owned(), "not timed".to_owned()),
            };
            let grid = launches
                .get(i)
                .map_or(String::new(), |r| format!("{} x {} x {}", r.grid.x, r.grid.y, r.grid.z));
            view! {
                <tr><td>{i + 1}</td><td><code>{name(i)}</code></td><td>{grid}</td><td>{start}</td><td>{took}</td></tr>
            }
        })
        .collect_view();
    let more = times.spans_ns.len().saturating_sub(LISTED);
    let caption = format!(
        "The launches on the GPU's clock: {} from the first one's start to the last one's end; each bar is a launch, as long as it ran.",
        time(span)
    );
    let legend = kernels
        .iter()
        .enumerate()
        .map(|(k, n)| view! { <span class=format!("launch-key shade-{}", k % 4)><code>{n.clone()}</code></span> })
        .collect_view();
    view! {
        <figure class="launch-timeline" data-testid="launch-timeline">
            <svg viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=caption.clone() preserveAspectRatio="none">
                <line class="axis" x1="0" y1="34" x2=WIDTH y2="34"/>
                {bars}
            </svg>
            <figcaption>
                <span class="axis-ends"><span>"0"</span><span>{time(span)}</span></span>
                {legend}
            </figcaption>
            <details>
                <summary>"Each launch's start and time"</summary>
                <table data-testid="launch-times">
                    <thead><tr><th scope="col">"#"</th><th scope="col">"kernel"</th><th scope="col">"grid"</th><th scope="col">"start"</th><th scope="col">"time"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                {(more > 0).then(|| view! { <p class="hint">{format!("and {more} more launches, in the drawing")}</p> })}
            </details>
        </figure>
    }
}
