//! The drawing: the SVG, the breadcrumb, the buttons and the readout, from [`crate::zoom`].

use crate::geometry::{layout, CellText, Rect, GAP, MARGIN, WIDTH};
use crate::zoom::{Cell, Cluster, DiagramConfig, Level, Move, Zoom};
use leptos::ev;
use leptos::prelude::*;

/// A diagram instance's prefix for element ids (several diagrams may share a page).
fn instance_id() -> String {
    thread_local! {
        static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    NEXT.with(|n| {
        n.set(n.get() + 1);
        format!("hierarchy-{}", n.get())
    })
}

/// The drawing of one cell: its box, how full it is, its labels.
fn cell_view(cell: &Cell, rect: Rect, level: Level, id: String) -> impl IntoView {
    let empty = !cell.enterable && level == Level::Warp;
    let CellText {
        main,
        detail,
        size,
        detail_size,
        x: cx,
        main_y,
        detail_y,
    } = CellText::of(cell, level, rect);
    let fill = cell.filled.map(|(present, lanes)| {
        let fraction = f64::from(present) / f64::from(lanes.max(1));
        view! {
            <rect class="cell-fill" x=rect.x y=rect.y + rect.h - 6.0 width=rect.w * fraction height=6.0 rx=2/>
        }
    });
    let aria = if detail.is_empty() {
        cell.label.clone()
    } else {
        format!("{}, {}", cell.label, cell.detail)
    };
    view! {
        <g
            role="option"
            id=id
            aria-label=aria
            aria-disabled=(!cell.enterable).to_string()
            class="cell"
            class:empty=empty
            class:cluster=level == Level::Cluster
            data-index=cell.index
        >
            <rect class="cell-box" x=rect.x y=rect.y width=rect.w height=rect.h rx=5/>
            {fill}
            <text class="cell-label" x=cx y=main_y font-size=size text-anchor="middle" dominant-baseline="central">{main}</text>
        </g>
        // The second line beside the option, hidden from assistive technology (the option's
        // name says it): the option's own text is then one line, which its name contains, as
        // speech input needs (axe: label-content-name-mismatch). Clicks go through it.
        {(!detail.is_empty()).then(|| view! {
            <text class="cell-detail" aria-hidden="true" pointer-events="none" x=cx y=detail_y font-size=detail_size text-anchor="middle" dominant-baseline="central">{detail.clone()}</text>
        })}
    }
}

/// The CTA drawn as warp slots of numbered lanes, with the thread under each live lane. The
/// numbers are drawn beside the slot's option, hidden from assistive technology: the option's
/// name says them as a range ("Warp 1, threads 32–47") and holds its visible text ("warp 1"), as
/// speech input needs (axe's label-content-name-mismatch); a click goes through them to the slot.
fn lane_slots(config: &DiagramConfig, cell: &Cell, rect: Rect, id: String) -> impl IntoView {
    let lanes = config.shape.lanes;
    let present = cell.filled.map_or(0, |(p, _)| p);
    let first = cell.index * lanes;
    let lane_w = (rect.w - 60.0) / f64::from(lanes.max(1));
    let font = (lane_w * 0.55).clamp(5.0, 11.0);
    let boxes = (0..lanes)
        .map(|l| {
            let x = rect.x + 56.0 + f64::from(l) * lane_w;
            let live = l < present;
            view! {
                <g class="lane-slot" class:empty=!live>
                    <rect class="cell-box" x=x y=rect.y + 14.0 width=lane_w - 1.5 height=24.0 rx=2/>
                    <text class="cell-label" x=x + lane_w / 2.0 y=rect.y + 26.0 font-size=font text-anchor="middle" dominant-baseline="central">{l}</text>
                    {live.then(|| view! {
                        <text class="cell-detail" x=x + lane_w / 2.0 y=rect.y + 50.0 font-size=font text-anchor="middle" dominant-baseline="central">{first + l}</text>
                    })}
                </g>
            }
        })
        .collect_view();
    view! {
        <g role="option" id=id aria-label=format!("{}, {}", cell.label, cell.detail) aria-disabled="false" class="cell slot" data-index=cell.index>
            <rect class="slot-box" x=rect.x y=rect.y width=rect.w height=rect.h rx=5/>
            <text class="cell-label" x=rect.x + 8.0 y=rect.y + 8.0 font-size=11 dominant-baseline="central">{format!("warp {}", cell.index)}</text>
        </g>
        <g class="slot-lanes" aria-hidden="true" data-slot=cell.index>
            // Each row says what its numbers are: the lane in the warp, the thread in the CTA.
            <text class="cell-detail" x=rect.x + 8.0 y=rect.y + 26.0 font-size=9 dominant-baseline="central">"lane"</text>
            <text class="cell-detail" x=rect.x + 8.0 y=rect.y + 50.0 font-size=9 dominant-baseline="central">"thread"</text>
            {boxes}
        </g>
    }
}

/// Consecutive warps with the same mask, as (first, last, mask): a full CTA reads as one line.
fn mask_runs(
    masks: &[(u32, compiler_core::hierarchy::LaneMask)],
) -> Vec<(u32, u32, compiler_core::hierarchy::LaneMask)> {
    let mut runs: Vec<(u32, u32, compiler_core::hierarchy::LaneMask)> = Vec::new();
    for &(w, m) in masks {
        match runs.last_mut() {
            Some((_, last, mask)) if *mask == m && *last + 1 == w => *last = w,
            _ => runs.push((w, w, m)),
        }
    }
    runs
}

#[component]
pub fn HierarchyDiagram(
    #[prop(into)] config: Signal<DiagramConfig>,
    /// The drawing's accessible name.
    #[prop(default = "Launch hierarchy")]
    label: &'static str,
    /// A thread to show (CTA, index in the CTA): the diagram zooms onto it whenever it changes.
    #[prop(into, optional)]
    show: Option<Signal<Option<(compiler_core::hierarchy::Dim3, u32)>>>,
    /// Told the thread (CTA, index in the CTA) whenever a lane is picked, and `None` when the
    /// diagram leaves the lane level.
    #[prop(optional)]
    on_pick: Option<Callback<Option<(compiler_core::hierarchy::Dim3, u32)>>>,
    /// Told the warp (CTA, warp index) whenever the diagram shows a warp or one of its lanes,
    /// and `None` above the warp level.
    #[prop(optional)]
    on_warp: Option<Callback<Option<(compiler_core::hierarchy::Dim3, u32)>>>,
    /// The readout under the drawing instead of beside it (narrow places).
    #[prop(default = false)]
    stacked: bool,
) -> impl IntoView {
    let id = instance_id();
    let zoom = RwSignal::new(Zoom::start(&config.get_untracked()));
    let focused = RwSignal::new(false);
    // Where the last zoom came from, for the animation: (cell rectangle, drawing height).
    let origin = RwSignal::new(None::<(Rect, f64)>);
    Effect::new(move |_| {
        let c = config.get();
        let place = show.and_then(|s| s.get());
        let at = place.and_then(|(block, thread)| Zoom::at(&c, block, thread).ok());
        zoom.set(at.unwrap_or_else(|| Zoom::start(&c)));
        origin.set(None);
    });
    let path = Memo::new(move |_| zoom.with(|z| z.path.clone()));
    if let Some(on_pick) = on_pick {
        Effect::new(move |_| {
            path.track();
            let picked = config.with(|c| {
                zoom.with_untracked(|z| {
                    let (block, warp, lane) = (z.block(c)?, z.warp(c)?, z.lane(c)?);
                    Some((block, warp * c.shape.lanes + lane))
                })
            });
            on_pick.run(picked);
        });
    }
    if let Some(on_warp) = on_warp {
        Effect::new(move |_| {
            path.track();
            let warp = config.with(|c| zoom.with_untracked(|z| Some((z.block(c)?, z.warp(c)?))));
            on_warp.run(warp);
        });
    }
    let focus = Memo::new(move |_| zoom.with(|z| z.focus));
    let level = Memo::new(move |_| {
        path.track();
        config.with(|c| zoom.with_untracked(|z| z.level(c)))
    });
    let cells = Memo::new(move |_| {
        path.track();
        config.with(|c| zoom.with_untracked(|z| z.cells(c)))
    });
    let geometry = Memo::new(move |_| {
        let cells = cells.get();
        config.with(|c| zoom.with_untracked(|z| layout(c, z, &cells)))
    });
    let cell_id = {
        let id = id.clone();
        move |i: u32| format!("{id}-cell-{i}")
    };

    let enter = move |index: u32| {
        let rect = geometry.with_untracked(|(rects, h)| {
            cells
                .with_untracked(|cs| cs.iter().position(|c| c.index == index))
                .and_then(|p| rects.get(p).copied())
                .map(|r| (r, *h))
        });
        let mut entered = false;
        config.with_untracked(|c| zoom.update(|z| entered = z.enter(c, index)));
        if entered {
            origin.set(rect);
        }
    };
    let exit = move || {
        origin.set(None);
        zoom.update(|z| {
            z.exit();
        });
    };
    let on_keydown = move |ev: ev::KeyboardEvent| {
        let step = match ev.key().as_str() {
            "ArrowLeft" => Some(Move::Left),
            "ArrowRight" => Some(Move::Right),
            "ArrowUp" => Some(Move::Up),
            "ArrowDown" => Some(Move::Down),
            "Home" => Some(Move::First),
            "End" => Some(Move::Last),
            _ => None,
        };
        let handled = if let Some(step) = step {
            config.with_untracked(|c| zoom.update(|z| z.step(c, step)));
            true
        } else {
            match ev.key().as_str() {
                "Enter" | " " => {
                    enter(focus.get_untracked());
                    true
                }
                "Escape" | "Backspace" => {
                    let deeper = zoom.with_untracked(|z| !z.path.is_empty());
                    if deeper {
                        exit();
                    }
                    deeper
                }
                _ => false,
            }
        };
        if handled {
            ev.prevent_default();
        }
    };

    // Each zoom draws its level afresh (keyed by the geometry it shows), so every cell's
    // attributes are new and the zoom animation starts again.
    let drawing = {
        let cell_id = cell_id.clone();
        move || {
            let cells = cells.get_untracked();
            let (rects, height) = geometry.get_untracked();
            let level = level.get_untracked();
            let c = config.get_untracked();
            let animation = origin.get_untracked().map(|(r, h)| {
                let scale = (r.w / WIDTH).max(r.h / h).max(0.05);
                format!(
                    "--zoom-x: {:.1}px; --zoom-y: {:.1}px; --zoom-scale: {scale:.3}",
                    r.x, r.y
                )
            });
            let nodes = (level == Level::Cluster).then(|| {
                let cluster = c.cluster.unwrap_or(Cluster { nodes: 1, supertiles: 1 });
                let w = (WIDTH - 2.0 * MARGIN - GAP * f64::from(cluster.nodes - 1)) / f64::from(cluster.nodes);
                (0..cluster.nodes)
                    .map(|n| {
                        let x = MARGIN + f64::from(n) * (w + GAP);
                        view! {
                            <g class="node">
                                <rect class="node-box" x=x - 3.0 y=MARGIN - 2.0 width=w + 6.0 height=height - 2.0 * MARGIN + 4.0 rx=6/>
                                <text class="cell-detail" x=x + w / 2.0 y=MARGIN + 10.0 font-size=11 text-anchor="middle">{format!("node {n}")}</text>
                            </g>
                        }
                    })
                    .collect_view()
            });
            let key = (level == Level::Warp).then(|| view! {
                <text class="cell-detail" x=MARGIN y=MARGIN + 9.0 font-size=12 dominant-baseline="central">
                    "Each box: its lane (ctx.lane), and below it its thread (ctx.thread)"
                </text>
            });
            let drawn = cells
                .iter()
                .zip(&rects)
                .map(|(cell, &rect)| {
                    let index = cell.index;
                    let id = cell_id(index);
                    let inner = if level == Level::Cta && c.lane_labels {
                        lane_slots(&c, cell, rect, id).into_any()
                    } else {
                        cell_view(cell, rect, level, id).into_any()
                    };
                    view! {
                        <g role="presentation" on:click=move |_| {
                            zoom.update(|z| z.focus = index);
                            enter(index);
                        }>{inner}</g>
                    }
                })
                .collect_view();
            view! {
                <g role="presentation" class="level" class:zooming=animation.is_some() style=animation.clone().unwrap_or_default()>
                    {nodes}
                    {key}
                    {drawn}
                </g>
            }
        }
    };
    let ring = move || {
        let f = focus.get();
        let (rects, _) = geometry.get();
        let position = cells.with(|cs| cs.iter().position(|c| c.index == f));
        position.and_then(|p| rects.get(p).copied()).map(|r| {
            view! {
                <rect class="focus-ring" class:visible=move || focused.get() x=r.x - 3.0 y=r.y - 3.0 width=r.w + 6.0 height=r.h + 6.0 rx=7/>
            }
        })
    };
    let view_box = move || format!("0 0 {WIDTH} {:.0}", geometry.with(|(_, h)| *h));
    let active = {
        let cell_id = cell_id.clone();
        move || cell_id(focus.get())
    };
    let crumbs = move || config.with(|c| zoom.with(|z| z.breadcrumb(c)));
    let readout = move || config.with(|c| zoom.with(|z| z.readout(c)));
    let alt = move || config.with(|c| c.alt.clone());
    let cluster_note = move || config.with(|c| c.cluster.is_some());
    let describedby = format!("{id}-help");
    let help_id = describedby.clone();

    view! {
        <div class="hierarchy" data-testid="hierarchy">
            <nav class="hierarchy-crumbs" aria-label="Zoom level">
                <ol>
                    {move || {
                        let list = crumbs();
                        let last = list.len().saturating_sub(1);
                        list.into_iter().enumerate().map(|(i, text)| {
                            if i == last {
                                view! { <li><span aria-current="location" data-testid="crumb-current">{text}</span></li> }.into_any()
                            } else {
                                view! { <li><button type="button" class="crumb" on:click=move |_| { origin.set(None); zoom.update(|z| z.exit_to(i)); }>{text}</button></li> }.into_any()
                            }
                        }).collect_view()
                    }}
                </ol>
                <p class="visually-hidden" data-testid="breadcrumb">{move || crumbs().join(" › ")}</p>
            </nav>
            <div class="hierarchy-body" class:stacked=move || stacked || config.with(|c| c.lane_labels)>
                <div class="hierarchy-figure">
                    <svg
                        class="hierarchy-drawing"
                        class:focused=move || focused.get()
                        viewBox=view_box
                        tabindex="0"
                        role="listbox"
                        aria-label=label
                        aria-describedby=describedby
                        aria-activedescendant=active
                        data-testid="hierarchy-drawing"
                        on:keydown=on_keydown
                        on:focus=move |_| focused.set(true)
                        on:blur=move |_| focused.set(false)
                    >
                        <For
                            each=move || vec![(path.get(), config.with(|c| format!("{c:?}")))]
                            key=|k| k.clone()
                            children=move |_| drawing()
                        />
                        {ring}
                    </svg>
                    <p class="hierarchy-help" id=help_id>
                        {move || alt().map(|a| view! { <span class="alt" data-testid="alt">{a}" "</span> })}
                        "Click a cell, or focus the drawing and use the arrow keys and Enter, to zoom in on it; the buttons and Escape zoom back out."
                    </p>
                    <div class="hierarchy-buttons">
                        <button type="button" data-testid="zoom-out" disabled=move || zoom.with(|z| z.path.is_empty()) on:click=move |_| exit()>"Zoom out"</button>
                        <button type="button" data-testid="zoom-top" disabled=move || zoom.with(|z| z.path.is_empty()) on:click=move |_| { origin.set(None); zoom.update(|z| z.exit_to(0)); }>
                            {move || config.with(|c| format!("Back to the {}", c.levels()[0].name().to_lowercase()))}
                        </button>
                    </div>
                    {move || cluster_note().then(|| view! {
                        <p class="hierarchy-note">
                            "Experimental: the dashed tiers are the cluster path. With more super-tiles than nodes, "
                            "they are dealt round robin and a node runs several, one launch each. "
                            <code>"ctx"</code>" has no field for the cluster level: inside a node, "
                            <code>"ctx.block"</code>" counts the CTAs of the super-tile that launch runs on."
                        </p>
                    })}
                </div>
                // Screen readers hear the sentence of what is picked, not the whole table.
                <p class="visually-hidden" aria-live="polite" data-testid="readout-announce">
                    {move || readout().sentence.unwrap_or_default()}
                </p>
                <div class="hierarchy-readout" data-testid="readout">
                    {move || {
                        let r = readout();
                        view! {
                            {r.sentence.map(|s| view! { <p class="sentence" data-testid="readout-sentence">{s}</p> })}
                            <table class="ctx-table" data-testid="readout-table">
                                <caption class="visually-hidden">"The ctx fields of what is picked"</caption>
                                <thead><tr><th scope="col">"Field"</th><th scope="col">"Value"</th><th scope="col">"Why"</th></tr></thead>
                                <tbody>
                                    {r.rows.into_iter().map(|row| view! {
                                        <tr>
                                            <th scope="row"><code>{row.field}</code></th>
                                            <td class="value">{row.value}</td>
                                            <td>{row.why}</td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                            {r.relation.map(|rel| view! {
                                <p class="relation">
                                    <code>"ctx.thread = ctx.warp * ctx.lanes + ctx.lane"</code>": "
                                    <code data-testid="readout-relation">{rel}</code>
                                </p>
                            })}
                            {mask_runs(&r.masks).into_iter().map(|(first, last, m)| view! {
                                <p class="mask">
                                    {if first == last { format!("Active mask of warp {first}: ") } else { format!("Active mask of warps {first} to {last}: ") }}
                                    <code data-testid="readout-mask">{m.to_string()}</code>
                                    " ("{m.count()}" of "{m.lanes}" lanes hold a thread)"
                                </p>
                            }).collect_view()}
                        }
                    }}
                </div>
            </div>
        </div>
    }
}
