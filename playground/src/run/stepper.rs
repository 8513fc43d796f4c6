//! The stepper: one warp of a traced CTA, statement by statement. Each step shows the
//! statement (also marked in the editor), the warp's lanes as active, inactive, exited or
//! holding no thread with the mask in hex, a shuffle's exchanges as arrows from source lane
//! to destination lane, at a barrier which warps of the CTA arrived, and a table of lanes ×
//! variables with the values after the step (the cells it wrote marked).
//!
//! In: a [`TraceRun`] (the trace stays in the worker that made it) and the position
//! ([`Stepping`], which share links carry). Out: the view, and position changes. The worker
//! makes what the step shows ([`super::steps`]), one step at a time as the position moves
//! ([`StepReader`]); the component only draws it.
//!
//! Keys, with the focus anywhere in the stepper but its fields: ← and → step, Home and End go
//! to the first and last step, Page Up and Page Down move ten. A polite live region announces
//! each step ("step 12 of 40, line 7, 16 of 32 lanes active, mask 0x0000ffff").

use super::engine::{StepReader, TraceRun};
use super::steps::{AccessGroup, LaneRow, StepView, StripRoom};
use compiler_core::share::Stepping;
use compiler_core::sim::LaneState;
use leptos::prelude::*;
use std::rc::Rc;

fn state_class(state: LaneState) -> &'static str {
    match state {
        LaneState::Active => "active",
        LaneState::Inactive => "inactive",
        LaneState::Exited => "exited",
        LaneState::NoThread => "no-thread",
    }
}

fn state_words(state: LaneState) -> &'static str {
    match state {
        LaneState::Active => "active",
        LaneState::Inactive => "waiting",
        LaneState::Exited => "returned",
        LaneState::NoThread => "no thread",
    }
}

/// The timeline: one bar per step, as tall as the warp's lanes `active` in it, as an SVG path
/// in a steps × `lanes` box.
fn timeline_path(active: &[u8], lanes: u32) -> String {
    let mut path = String::new();
    for (i, &count) in active.iter().enumerate() {
        if count > 0 {
            path.push_str(&format!("M{i}.5 {lanes}v-{count}"));
        }
    }
    path
}

const STRIP_WIDTH: f64 = 640.0;
const STRIP_MARGIN: f64 = 4.0;
/// Room above the lanes for a shuffle's arrows.
const ARROW_ROOM: f64 = 70.0;
const LANE_HEIGHT: f64 = 30.0;
/// Room under the lanes for each lane's sector or bank.
const PLACE_HEIGHT: f64 = 18.0;

/// A sector's or a bank's colour: lanes in one sector (or bank) share it.
fn place_colour(place: u64, shared: bool) -> String {
    let steps = if shared { 32 } else { 16 };
    let hue = (place % steps) * 360 / steps;
    format!("fill: hsl({hue}, 65%, 72%)")
}

/// What the lane strip keeps from step to step: the lanes, and the room it makes above them
/// for arrows and under them for places, which is the whole trace's (so the strip keeps one
/// height from step to step). Built once per shape, like the table; a step changes only the
/// lanes' classes, the arrows, and the places' text and colours.
#[derive(Clone, Copy, PartialEq)]
struct StripShape {
    lanes: usize,
    room: StripRoom,
}

/// The memory group the lane strip shows: the reader's pick, or the step's last.
fn picked(view: &StepView, pick: usize) -> Option<&AccessGroup> {
    view.memory
        .get(pick.min(view.memory.len().saturating_sub(1)))
}

/// The warp's lanes in a row, each by its state, with a shuffle's arrows above them and, for
/// a step that accesses memory, each lane's sector or bank of the picked group under it.
fn lane_strip(
    shape: StripShape,
    step: Memo<Option<StepView>>,
    pick: RwSignal<usize>,
    followed: RwSignal<Option<u32>>,
) -> impl IntoView {
    let count = shape.lanes.max(1) as f64;
    let w = (STRIP_WIDTH - 2.0 * STRIP_MARGIN) / count;
    let top = if shape.room.arrows {
        ARROW_ROOM
    } else {
        STRIP_MARGIN
    };
    let under = if shape.room.places { PLACE_HEIGHT } else { 0.0 };
    let centre = move |lane: u32| STRIP_MARGIN + (f64::from(lane) + 0.5) * w;
    let font = (w * 0.5).clamp(6.0, 12.0);
    // The lanes' states change on few steps: the cells re-run only then.
    let states = Memo::new(move |_| {
        step.with(|v| {
            v.as_ref()
                .map_or_else(Vec::new, |v| v.lanes.iter().map(|r| r.state).collect())
        })
    });
    let state = move |lane: usize| states.with(|s: &Vec<LaneState>| s.get(lane).copied());
    let cells = (0..shape.lanes)
        .map(|lane| {
            let x = STRIP_MARGIN + lane as f64 * w;
            // A click follows the lane (again: follows none), as the lane field does.
            let follow = move |_| {
                let lane = lane as u32;
                followed.set((followed.get_untracked() != Some(lane)).then_some(lane));
            };
            view! {
                <g class=move || format!("lane {}", state_class(state(lane).unwrap_or(LaneState::NoThread)))
                    class:followed=move || followed.get() == Some(lane as u32)
                    data-lane=lane on:click=follow>
                    <rect x=x + 1.0 y=top width=w - 2.0 height=LANE_HEIGHT rx=3/>
                    <text x=x + w / 2.0 y=top + LANE_HEIGHT / 2.0 font-size=font text-anchor="middle" dominant-baseline="central">{lane}</text>
                </g>
            }
        })
        .collect_view();
    let arrows = move || {
        step.with(|v| {
            v.as_ref().map_or_else(Vec::new, |v| v.arrows.clone())
        })
        .into_iter()
        .map(|(from, to)| {
            let (x1, x2) = (centre(from), centre(to));
            let lift = ((x2 - x1).abs() * 0.35).clamp(10.0, ARROW_ROOM - 12.0);
            let d = format!(
                "M{x1:.1} {top:.1} Q{:.1} {:.1} {x2:.1} {:.1}",
                (x1 + x2) / 2.0,
                top - lift * 2.0,
                top - 2.0
            );
            view! { <path class="shuffle-arrow" d=d marker-end="url(#step-arrowhead)" data-testid="shuffle-arrow" data-from=from data-to=to/> }
        })
        .collect_view()
    };
    // The group under the lanes: each lane's place, the strip's label.
    let group = Memo::new(move |_| step.with(|v| picked(v.as_ref()?, pick.get()).cloned()));
    let places = shape.room.places.then(|| {
        let y = top + LANE_HEIGHT + 2.0;
        // The row is born showing the step on show, and the effect below keeps it so.
        let mut shown: Vec<Place> = group.with_untracked(|g| {
            (0..shape.lanes).map(|lane| g.as_ref().and_then(|g| place_of(g, lane))).collect()
        });
        let lanes = shown
            .iter()
            .enumerate()
            .map(|(lane, &place)| {
                let x = STRIP_MARGIN + lane as f64 * w;
                // A lane the step does not access memory in keeps its place, empty. The text is
                // never empty, so its layout is made once, not on the first step with memory.
                view! {
                    <g class="place" data-testid=place.map(|_| "lane-place") data-lane=lane
                        data-place=place.map(|(p, _)| p) visibility=place.is_none().then_some("hidden")>
                        <rect x=x + 1.0 y=y width=w - 2.0 height=PLACE_HEIGHT - 2.0 rx=2
                            style=place.map(|(p, shared)| place_colour(p, shared))/>
                        <text x=x + w / 2.0 y=y + (PLACE_HEIGHT - 2.0) / 2.0 font-size=font * 0.85 text-anchor="middle" dominant-baseline="central">
                            {place_text(place)}
                        </text>
                    </g>
                }
            })
            .collect_view();
        let row = NodeRef::<leptos::svg::G>::new();
        Effect::new(move |_| {
            group.with(|g| {
                if let (Some(g), Some(row)) = (g.as_ref(), row.get()) {
                    update_places(&row, &mut shown, g);
                }
            });
        });
        // A step without memory hides the row as a whole and each lane keeps its last place, so
        // stepping in and out of the steps that access memory changes one attribute, not five per
        // lane (most kernels' accesses repeat their places).
        view! {
            <g class="places" node_ref=row visibility=move || group.with(Option::is_none).then_some("hidden")>{lanes}</g>
        }
    });
    let view_box = format!(
        "0 0 {STRIP_WIDTH} {:.0}",
        top + LANE_HEIGHT + STRIP_MARGIN + under
    );
    let label = move || {
        step.with(|v| {
            let v = v.as_ref()?;
            Some(match group.get() {
                Some(group) => format!(
                    "{}; under each lane, its {} of {}: {}",
                    lane_summary(v),
                    if group.shared { "bank" } else { "sector" },
                    group.label,
                    group.summary
                ),
                None => lane_summary(v),
            })
        })
    };
    view! {
        <svg class="lane-strip" viewBox=view_box role="img" aria-label=label data-testid="lane-strip">
            <defs>
                <marker id="step-arrowhead" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M0 0 L8 4 L0 8 z" class="arrowhead"/>
                </marker>
            </defs>
            {arrows}
            {cells}
            {places}
        </svg>
    }
}

/// A lane's place under the strip: its sector or bank number, and whether it is a bank.
type Place = Option<(u64, bool)>;

fn place_of(group: &AccessGroup, lane: usize) -> Place {
    group
        .places
        .get(lane)
        .copied()
        .flatten()
        .map(|p| (p, group.shared))
}

/// A place's number; a no-break space for none, so that the text node always has a layout.
fn place_text(place: Place) -> String {
    place.map_or_else(|| "\u{a0}".to_owned(), |(p, _)| p.to_string())
}

/// Brings the places row (`row`, a `g` per lane) from what it shows to `group`'s places,
/// writing only the lanes whose place differs, for the reason `update_rows` gives.
fn update_places(row: &web_sys::Element, shown: &mut [Place], group: &AccessGroup) {
    let lanes = row.children();
    for (lane, was) in shown.iter_mut().enumerate() {
        let now = place_of(group, lane);
        if *was == now {
            continue;
        }
        *was = now;
        let Some(g) = lanes.item(lane as u32) else {
            continue;
        };
        match now {
            Some((place, shared)) => {
                let _ = g.set_attribute("data-testid", "lane-place");
                let _ = g.set_attribute("data-place", &place.to_string());
                let _ = g.remove_attribute("visibility");
                if let Some(rect) = g.first_element_child() {
                    let _ = rect.set_attribute("style", &place_colour(place, shared));
                }
            }
            None => {
                let _ = g.remove_attribute("data-testid");
                let _ = g.remove_attribute("data-place");
                let _ = g.set_attribute("visibility", "hidden");
            }
        }
        if let Some(text) = g.last_element_child() {
            set_text(&text, &place_text(now));
        }
    }
}

/// "lanes 0–15 active, 16–31 no thread": the strip in words, runs of one state.
fn lane_summary(view: &StepView) -> String {
    let mut runs: Vec<(u32, u32, LaneState)> = Vec::new();
    for row in &view.lanes {
        match runs.last_mut() {
            Some((_, last, state)) if *state == row.state => *last = row.lane,
            _ => runs.push((row.lane, row.lane, row.state)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(a, b, state)| {
            if a == b {
                format!("lane {a} {}", state_words(state))
            } else {
                format!("lanes {a}–{b} {}", state_words(state))
            }
        })
        .collect();
    parts.join(", ")
}

/// What a warp's table of values keeps from step to step: its columns, and each row's lane
/// and thread. The table is built once per shape; a step then changes only the cells' text and
/// classes (a move costs a few text nodes, not a new table of hundreds).
#[derive(Clone, PartialEq)]
struct TableShape {
    variables: Vec<String>,
    rows: Vec<(u32, Option<u32>)>,
}

impl TableShape {
    fn of(view: &StepView) -> Self {
        Self {
            variables: view.variables.clone(),
            rows: view.lanes.iter().map(|r| (r.lane, r.thread)).collect(),
        }
    }
}

/// The cells before a row's values: its lane (a heading), its thread and its state.
const LEADING_CELLS: u32 = 3;

/// What one row of the table shows, kept to compare the next step with.
struct ShownRow {
    state: LaneState,
    values: Vec<(String, bool)>,
}

/// Brings the table's rows in `body` from what they show to `lanes`, writing only the cells
/// that differ: on most moves a step writes one variable, so a few dozen text nodes and
/// classes change among hundreds of cells. (One reactive closure per cell cost more, in
/// leptos's bookkeeping, than the whole browser's work on the cells that changed.)
fn update_rows(body: &web_sys::Element, shown: &mut [ShownRow], lanes: &[LaneRow]) {
    let rows = body.children();
    for (r, (shown, lane)) in shown.iter_mut().zip(lanes).enumerate() {
        if lane.thread.is_none() {
            continue;
        }
        let Some(row) = rows.item(r as u32) else {
            continue;
        };
        if shown.state != lane.state {
            shown.state = lane.state;
            let followed = row.class_list().contains("followed");
            row.set_class_name(state_class(lane.state));
            let _ = row.class_list().toggle_with_force("followed", followed);
            if let Some(cell) = row.children().item(LEADING_CELLS - 1) {
                set_text(&cell, state_words(lane.state));
            }
        }
        let differs = shown.values.iter().zip(&lane.values).any(|(a, b)| a != b);
        if !differs {
            continue;
        }
        let cells = row.children();
        for (c, (was, now)) in shown.values.iter_mut().zip(&lane.values).enumerate() {
            if was == now {
                continue;
            }
            let Some(cell) = cells.item(LEADING_CELLS + c as u32) else {
                continue;
            };
            if was.0 != now.0 {
                set_text(&cell, &now.0);
                was.0.clone_from(&now.0);
            }
            if was.1 != now.1 {
                let _ = cell.class_list().toggle_with_force("changed", now.1);
                was.1 = now.1;
            }
        }
    }
}

/// Changes the text of `cell` in place: its text node's data, not a new node (which the browser
/// would insert, style and lay out as new).
fn set_text(cell: &web_sys::Element, text: &str) {
    match cell.first_child() {
        Some(node) => node.set_node_value(Some(text)),
        None => cell.set_text_content(Some(text)),
    }
}

fn values_table(
    shape: TableShape,
    step: Memo<Option<StepView>>,
    followed: RwSignal<Option<u32>>,
) -> impl IntoView {
    let columns = shape.variables.len();
    // The table is born showing the step on show, and the effect below keeps it so.
    let lanes = step.with_untracked(|v| v.as_ref().map(|v| v.lanes.clone()).unwrap_or_default());
    let row_of = |r: usize| lanes.get(r);
    let rows = shape
        .rows
        .iter()
        .enumerate()
        .map(|(r, &(lane, thread))| {
            let state = row_of(r).map_or(LaneState::NoThread, |row| row.state);
            let cells = match thread {
                None => view! { <td colspan=columns.max(1) class="no-thread">"no thread"</td> }
                    .into_any(),
                Some(_) => (0..columns)
                    .map(|c| {
                        let (text, wrote) = row_of(r)
                            .and_then(|row| row.values.get(c).cloned())
                            .unwrap_or_default();
                        view! { <td class:changed=wrote>{text}</td> }
                    })
                    .collect_view()
                    .into_any(),
            };
            let thread = thread.map_or("—".to_owned(), |t| t.to_string());
            view! {
                <tr class=state_class(state) data-lane=lane>
                    <th scope="row">{lane}</th>
                    <td>{thread}</td>
                    <td class="state">{state_words(state)}</td>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    let mut shown: Vec<ShownRow> = lanes
        .into_iter()
        .map(|row| ShownRow {
            state: row.state,
            values: row.values,
        })
        .collect();
    let body = NodeRef::<leptos::html::Tbody>::new();
    // The followed lane's row, marked in place (`update_rows` keeps the mark).
    Effect::new(move |_| {
        let followed = followed.get().map(|l| l.to_string());
        let Some(body) = body.get() else { return };
        let rows = body.children();
        for r in 0..rows.length() {
            if let Some(row) = rows.item(r) {
                let on = followed.is_some() && row.get_attribute("data-lane") == followed;
                let _ = row.class_list().toggle_with_force("followed", on);
            }
        }
    });
    Effect::new(move |_| {
        step.with(|v| {
            let (Some(v), Some(body)) = (v.as_ref(), body.get()) else {
                return;
            };
            update_rows(&body, &mut shown, &v.lanes);
        });
    });
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Each lane's variables after this step">
            <table class="values lane-values" data-testid="lane-values">
                <thead>
                    <tr>
                        <th scope="col">"lane"</th>
                        <th scope="col">"thread"</th>
                        <th scope="col">"state"</th>
                        {shape.variables.into_iter().map(|h| view! { <th scope="col"><code>{h}</code></th> }).collect_view()}
                    </tr>
                </thead>
                <tbody node_ref=body>{rows}</tbody>
            </table>
        </div>
    }
}

/// One part of the step on show, as a memo: it changes only when that part does.
fn part<T: PartialEq + Send + Sync + 'static>(
    view: Memo<Option<StepView>>,
    of: impl Fn(&StepView) -> T + Send + Sync + 'static,
) -> Memo<Option<T>> {
    Memo::new(move |_| view.with(|v| v.as_ref().map(&of)))
}

#[component]
pub fn Stepper(
    #[prop(into)] traced: Signal<Option<Rc<TraceRun>>, LocalStorage>,
    /// Reads the step on show from the tracer's worker.
    reader: StepReader,
    stepping: RwSignal<Option<Stepping>>,
    /// "Tracing…", then "Tracing: 12 of 64 CTAs", while a trace is being made.
    #[prop(into)]
    tracing: Signal<Option<String>>,
    /// Whether the source or the launch changed since the trace.
    #[prop(into)]
    stale: Signal<bool, LocalStorage>,
    /// Traces the position's CTA (again).
    on_trace: Callback<Stepping>,
    /// The lane followed: marked in the strip and the table, and shared with the diagram and
    /// the lane map of a kernel that uses `mma`.
    followed: RwSignal<Option<u32>>,
) -> impl IntoView {
    let position = move || stepping.get();
    let go = move |step: usize| {
        stepping.update(|s| {
            if let Some(s) = s {
                s.step = step as u32;
            }
        })
    };
    let count = move || traced.with(|t| t.as_ref().map_or(0, |t| t.traced.steps));
    let step_now = move || position().map_or(0, |p| p.step as usize);
    // A step past the trace's end (`u32::MAX`: where a fault stopped the run) is its last.
    Effect::new(move |_| {
        let last = count().checked_sub(1)?;
        (step_now() > last).then(|| go(last))
    });
    let move_by = move |delta: i64| {
        let last = count().saturating_sub(1) as i64;
        go((step_now() as i64 + delta).clamp(0, last.max(0)) as usize);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let tag = event_target::<web_sys::Element>(&ev).tag_name();
        if tag == "INPUT" || tag == "SELECT" {
            return;
        }
        match ev.key().as_str() {
            "ArrowLeft" => move_by(-1),
            "ArrowRight" => move_by(1),
            "PageUp" => move_by(-10),
            "PageDown" => move_by(10),
            "Home" => go(0),
            "End" => go(count().saturating_sub(1)),
            _ => return,
        }
        ev.prevent_default();
    };
    // Which of the step's tensors or tiles the lane row shows sectors or banks of.
    let memory_pick = RwSignal::new(0usize);
    // A new position or trace asks the worker for the step; the last one made stays on show
    // until it comes.
    Effect::new(move |_| {
        let Some(p) = position() else { return };
        traced.with(|t| {
            if let Some(t) = t {
                let last = t.traced.steps.saturating_sub(1);
                reader.request(t, (p.step as usize).min(last), p.warp);
            }
        });
    });
    let made = reader.made();
    let view_now = Memo::new(move |_| made.with(|m| m.as_ref()?.as_ref().ok()?.view.clone()));
    // The step's parts, each its own memo: a move changes the text that changed in place and
    // builds no elements, except where a part comes or goes (a step's memory groups, effects,
    // a barrier).
    let unread = Memo::new(move |_| made.with(|m| m.as_ref()?.as_ref().err().cloned()));
    let has_view = Memo::new(move |_| view_now.with(Option::is_some));
    let line = part(view_now, |v| format!("line {}", v.line));
    let statement = part(view_now, |v| v.statement.clone());
    let mask = part(view_now, |v| v.mask.clone());
    let active = part(view_now, |v| {
        format!(" · {} of {} lanes active", v.active, v.lanes.len())
    });
    let memory = part(view_now, |v| v.memory.clone());
    let without_memory = part(view_now, |v| v.without_memory.clone());
    let effects = part(view_now, |v| v.effects.clone());
    let barrier = part(view_now, |v| v.barrier.clone());
    let table_shape = Memo::new(move |_| view_now.with(|v| v.as_ref().map(TableShape::of)));
    let strip_shape = Memo::new(move |_| {
        let room = made.with(|m| Some(m.as_ref()?.as_ref().ok()?.room))?;
        view_now.with(|v| {
            Some(StripShape {
                lanes: v.as_ref()?.lanes.len(),
                room,
            })
        })
    });
    let warps = move || traced.with(|t| t.as_ref().map_or(0, |t| t.traced.warps));
    let lanes = move || traced.with(|t| t.as_ref().map_or(32, |t| t.traced.lanes));
    // Drawn again only when the bars change (another warp or trace), not on every step.
    let timeline = Memo::new(move |_| {
        let lanes = lanes();
        made.with(|m| Some(timeline_path(&m.as_ref()?.as_ref().ok()?.active, lanes)))
    });
    let grid = move || traced.with(|t| t.as_ref().map(|t| t.grid()));
    let set_block = move |axis: usize, value: String| {
        let Some(mut p) = position() else { return };
        let Ok(v) = value.trim().parse::<u32>() else {
            return;
        };
        let extent = grid().map_or(1, |g| [g.x, g.y, g.z][axis]);
        let v = v.min(extent.saturating_sub(1));
        match axis {
            0 => p.block.x = v,
            1 => p.block.y = v,
            _ => p.block.z = v,
        }
        p.step = 0;
        stepping.set(Some(p));
        on_trace.run(p);
    };
    let timeline_click = move |ev: leptos::ev::MouseEvent| {
        let target = event_target::<web_sys::Element>(&ev);
        let width = f64::from(target.client_width().max(1));
        let at = (pixels(ev.offset_x()) / width * count() as f64).floor() as usize;
        go(at.min(count().saturating_sub(1)));
    };
    let block_field = move |axis: usize, name: &'static str| {
        let value = move || {
            position().map_or(0, |p| match axis {
                0 => p.block.x,
                1 => p.block.y,
                _ => p.block.z,
            })
        };
        let max = move || grid().map_or(0, |g| [g.x, g.y, g.z][axis].saturating_sub(1));
        view! {
            <label class="field small">
                <span>{name}</span>
                <input type="number" min="0" max=max prop:value=move || value().to_string() data-testid=format!("step-block-{name}")
                    on:change=move |ev| set_block(axis, event_target_value(&ev))/>
            </label>
        }
    };

    view! {
        <section class="stepper" aria-labelledby="stepper-title" data-testid="stepper" on:keydown=on_key>
            <div class="stepper-head">
                <h2 id="stepper-title">"Step through a warp"</h2>
                <button type="button" class="close" data-testid="stepper-close" on:click=move |_| stepping.set(None)>"Close"</button>
            </div>
            <div class="stepper-pick" role="group" aria-label="Which warp">
                <span>"Block"</span>
                {block_field(0, "x")}
                {block_field(1, "y")}
                {block_field(2, "z")}
                <label class="field small">
                    <span>"warp"</span>
                    <select data-testid="step-warp" on:change=move |ev| {
                        if let Ok(w) = event_target_value(&ev).parse::<u32>() {
                            stepping.update(|s| if let Some(s) = s { s.warp = w });
                        }
                    }>
                        {move || (0..warps()).map(|w| view! {
                            <option value=w selected=move || position().is_some_and(|p| p.warp == w)>{w}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="field small">
                    <span>"follow lane"</span>
                    <select data-testid="step-lane" on:change=move |ev| followed.set(event_target_value(&ev).parse::<u32>().ok())>
                        <option value="" selected=move || followed.get().is_none()>"none"</option>
                        {move || (0..lanes()).map(|l| view! {
                            <option value=l selected=move || followed.get() == Some(l)>{l}</option>
                        }).collect_view()}
                    </select>
                </label>
            </div>
            {move || tracing.get().map(|text| view! { <p class="hint" role="status">{text}</p> })}
            {move || stale.get().then(|| view! {
                <p class="stale" role="status" data-testid="step-stale">
                    "The source or the launch changed since this trace. "
                    <button type="button" on:click=move |_| if let Some(p) = position() { on_trace.run(p) }>"Trace again"</button>
                </p>
            })}
            {move || traced.with(|t| t.as_ref().and_then(|t| {
                let fault = t.traced.fault.as_ref().map(|f| format!("The run stopped at the last step: {}: {}", f.code.as_str(), f.message));
                let unread = unread.get().map(|why| format!("This step cannot be shown: {why}."));
                let notes: Vec<String> = fault.into_iter().chain(t.traced.incomplete.clone()).chain(unread).collect();
                (!notes.is_empty()).then(|| view! {
                    <div class="step-notes" data-testid="step-notes">{notes.into_iter().map(|n| view! { <p>{n}</p> }).collect_view()}</div>
                })
            }))}
            // aria-disabled, not disabled: a button the focus is on keeps it at the first or
            // last step, so the keys go on working.
            <div class="stepper-controls" role="group" aria-label="Steps">
                <button type="button" data-testid="step-first" aria-label="First step" aria-disabled=move || (step_now() == 0).to_string() on:click=move |_| go(0)>"First"</button>
                <button type="button" data-testid="step-back" aria-label="Step back" aria-disabled=move || (step_now() == 0).to_string() on:click=move |_| move_by(-1)>"◀ Back"</button>
                <span class="step-position" data-testid="step-position">
                    {move || view_now.get().map(|v| format!("Step {} of {} · line {}", v.index + 1, v.count, v.line)).unwrap_or_else(|| "No steps".into())}
                </span>
                <button type="button" data-testid="step-forward" aria-label="Step forward" aria-disabled=move || { (step_now() + 1 >= count()).to_string() } on:click=move |_| move_by(1)>"Forward ▶"</button>
                <button type="button" data-testid="step-last" aria-label="Last step" aria-disabled=move || { (step_now() + 1 >= count()).to_string() } on:click=move |_| go(count().saturating_sub(1))>"Last"</button>
            </div>
            <input type="range" class="step-slider" data-testid="step-slider" aria-label="Step" min="1"
                max=move || count().max(1).to_string()
                prop:value=move || (step_now() + 1).to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                        go(v.saturating_sub(1));
                    }
                }/>
            <div class="timeline" data-testid="timeline" title="Each bar is a step, as tall as the lanes active in it: divergence shows as low bars">
                {move || timeline.get().map(|path| view! {
                    <svg viewBox=format!("0 0 {} {}", count().max(1), lanes()) preserveAspectRatio="none" aria-hidden="true" on:click=timeline_click>
                        <path d=path/>
                    </svg>
                })}
                <div class="timeline-now" style=move || {
                    let n = count().max(1) as f64;
                    format!("left: {:.3}%; width: max(2px, {:.3}%)", step_now() as f64 / n * 100.0, 100.0 / n)
                }></div>
            </div>
            {move || has_view.get().then(|| view! {
                <p class="step-statement">
                    <span class="line">{move || line.get().unwrap_or_default()}</span>" "
                    <code data-testid="step-statement">{move || statement.get().unwrap_or_default()}</code>
                </p>
                <p class="step-mask">
                    "Active mask "<code data-testid="step-mask">{move || mask.get().unwrap_or_default()}</code>
                    {move || active.get().unwrap_or_default()}
                </p>
            })}
            {move || strip_shape.get().map(|shape| lane_strip(shape, view_now, memory_pick, followed))}
            {move || has_view.get().then(|| view! {
                <p class="lane-legend" aria-hidden="true">
                    <span><span class="swatch active"></span>"active"</span>
                    <span><span class="swatch inactive"></span>"waiting (another branch or trip)"</span>
                    <span><span class="swatch exited"></span>"returned"</span>
                    <span><span class="swatch no-thread"></span>"no thread"</span>
                </p>
                // What the step did with memory and between lanes, in words, in room kept for
                // it (`.step-detail`), so the table below stays put from step to step.
                <div class="step-detail">
                    {move || memory.with(|groups| {
                        let groups = groups.as_ref()?;
                        let pick = memory_pick.get().min(groups.len().saturating_sub(1));
                        Some(match groups.get(pick) {
                            Some(g) => {
                                let text = format!("Under each lane, its {} of {}: {}. ", if g.shared { "bank (word mod 32)" } else { "32-byte sector" }, g.label, g.summary);
                                view! {
                                    <p class="lane-places" data-testid="lane-places">
                                        {text}
                                        <a href="/docs/memory">"Why it matters"</a>
                                    </p>
                                }.into_any()
                            }
                            None => view! { <p class="hint" data-testid="step-no-memory">{move || without_memory.get().unwrap_or_default()}</p> }.into_any(),
                        })
                    })}
                    {move || memory.with(|groups| {
                        let labels: Vec<String> = groups.as_ref()?.iter().map(|g| g.label.clone()).collect();
                        let pick = memory_pick.get().min(labels.len().saturating_sub(1));
                        (labels.len() > 1).then(|| view! {
                            <label class="field small">
                                <span>"Show under the lanes"</span>
                                <select data-testid="lane-places-pick" on:change=move |ev| {
                                    if let Ok(i) = event_target_value(&ev).parse::<usize>() { memory_pick.set(i) }
                                }>
                                    {labels.into_iter().enumerate().map(|(i, label)| view! {
                                        <option value=i selected=i == pick>{label}</option>
                                    }).collect_view()}
                                </select>
                            </label>
                        })
                    })}
                    {move || effects.get().filter(|e| !e.is_empty()).map(|effects| view! {
                        <ul class="step-effects" data-testid="step-effects">
                            {effects.into_iter().map(|e| view! { <li><code>{e}</code></li> }).collect_view()}
                        </ul>
                    })}
                </div>
                {move || barrier.get().flatten().map(|(text, warps)| view! {
                    <div class="step-barrier" data-testid="step-barrier">
                        <p>{text}</p>
                        <ol class="warp-row">
                            {warps.into_iter().map(|(w, state)| view! { <li class=state>{format!("warp {w}")}</li> }).collect_view()}
                        </ol>
                    </div>
                })}
            })}
            {move || table_shape.get().map(|shape| values_table(shape, view_now, followed))}
            <p class="visually-hidden" aria-live="polite" data-testid="step-announce">{move || view_now.get().map(|v| v.announce).unwrap_or_default()}</p>
        </section>
    }
}

/// A mouse position in pixels: web-sys gives `i32` for stable builds and `f64` where its
/// unstable APIs are on (the wasm build, for WebGPU), so one conversion serves both.
fn pixels(v: impl Into<f64>) -> f64 {
    v.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::steps::{kept, step_view};
    use compiler_core::hierarchy::Dim3;
    use compiler_core::launch::Launch;

    #[test]
    fn the_strip_in_words_is_runs_of_one_state() {
        let source = include_str!("../../../examples/lane_ids.tsr");
        let cta = kept(source, &Launch::default(), 0, Dim3::new(0, 0, 0))
            .unwrap_or_else(|d| panic!("{d:?}"));
        let Some(view) = step_view(&cta, 0, 1) else {
            panic!("no step")
        };
        assert_eq!(
            lane_summary(&view),
            "lanes 0–15 active, lanes 16–31 no thread"
        );
    }

    #[test]
    fn the_timeline_has_a_bar_per_step_with_active_lanes() {
        assert_eq!(timeline_path(&[32, 0, 4], 32), "M0.5 32v-32M2.5 32v-4");
    }
}
