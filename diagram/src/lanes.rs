//! The lane ↔ element map of a kernel that uses `mma`: A, B and C drawn as grids whose cells
//! are coloured by the lane that holds them and say its number.
//!
//! In: the picked lane, shared with the stepper's lane strip and the diagram (`lane`), and
//! `compiler_core::mma`'s table, the one the simulator, PTX and WGSL follow. Out: the grids, a
//! lane field, and a sentence of what the pick holds. Picking a lane (the field, the stepper,
//! the diagram) lights up its 16 elements; picking an element (a click or a tap; in a grid, the
//! arrow keys, or Enter on the cell in focus) names its lane and its index in that lane's
//! fragment, and picks that lane everywhere. Tab only passes through a grid: a reader tabbing
//! along the page changes no pick.
//!
//! Each grid is an ARIA grid with one tab stop (the cell last focused); each cell's name says
//! its element, lane and index, and the sentence under the field is a polite live region, so
//! the map reads without its colours. A pick changes, in place, the classes of the cells it
//! concerns and the tab stop: nothing is built again.

use compiler_core::mma::{Operand, MMA_LANES, SHAPE};
use leptos::prelude::*;

/// A cell of one operand: (row, column).
type Cell = (u32, u32);

/// The matrix's name: `A`, `B`, `C`.
fn matrix(op: Operand) -> String {
    op.name().to_ascii_uppercase()
}

/// `A[3, 10]`.
fn element_name(op: Operand, (row, col): Cell) -> String {
    format!("{}[{row}, {col}]", matrix(op))
}

/// What `lane` holds of every operand, in fragment order.
fn lane_holds(lane: u32) -> String {
    Operand::ALL
        .into_iter()
        .map(|op| {
            let cells: Vec<String> = (0..op.per_lane())
                .map(|i| element_name(op, op.element(lane, i)))
                .collect();
            format!(
                "{} as {}[0] to {}[{}]",
                cells.join(", "),
                op.name(),
                op.name(),
                op.per_lane() - 1
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The sentence under the field: what the pick is and holds.
pub fn readout(lane: Option<u32>, element: Option<(Operand, Cell)>, linked: bool) -> String {
    match (lane, element) {
        (Some(lane), Some((op, cell))) if op.holder(cell.0, cell.1).0 == lane => {
            let index = op.holder(cell.0, cell.1).1;
            format!(
                "{} is held by lane {lane}, at index {index} of its {} fragment ({}[{index}], of {}). Lane {lane} holds {}.",
                element_name(op, cell),
                matrix(op),
                op.name(),
                op.per_lane(),
                lane_holds(lane)
            )
        }
        (Some(lane), _) => format!("Lane {lane} holds {}.", lane_holds(lane)),
        (None, _) if linked => {
            "No lane picked: pick one in the field, in the stepper's lane strip or in the diagram, or pick an element in a grid.".to_owned()
        }
        (None, _) => "No lane picked: pick one in the field, or pick an element in a grid.".to_owned(),
    }
}

/// The id of `op`'s cell.
fn cell_id(op: Operand, (row, col): Cell) -> String {
    format!("fragment-{}-{row}-{col}", op.name())
}

fn set_attribute(id: &str, name: &str, value: &str) {
    if let Some(cell) = document().get_element_by_id(id) {
        let _ = cell.set_attribute(name, value);
    }
}

fn toggle_class(id: &str, class: &str, on: bool) {
    if let Some(cell) = document().get_element_by_id(id) {
        let _ = cell.class_list().toggle_with_force(class, on);
    }
}

/// A lane's hue: the golden angle apart from the last lane's, so neighbours differ.
fn hue(lane: u32) -> u32 {
    (lane * 137 + lane / 2) % 360
}

/// One operand's grid.
fn grid(
    op: Operand,
    lane: RwSignal<Option<u32>>,
    element: RwSignal<Option<(Operand, Cell)>>,
) -> impl IntoView {
    let (rows, cols) = op.extents();
    // The grid's one tab stop: the cell last focused.
    let stop = RwSignal::new((0u32, 0u32));
    let id = move |cell: Cell| cell_id(op, cell);
    let pick = move |cell: Cell| {
        stop.set(cell);
        element.set(Some((op, cell)));
        let holder = Some(op.holder(cell.0, cell.1).0);
        if lane.get_untracked() != holder {
            lane.set(holder);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let (r, c) = stop.get_untracked();
        let to = match ev.key().as_str() {
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(rows - 1), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(cols - 1)),
            "Home" => (r, 0),
            "End" => (r, cols - 1),
            "PageUp" => (0, c),
            "PageDown" => (rows - 1, c),
            "Enter" | " " => (r, c),
            "Escape" => {
                lane.set(None);
                element.set(None);
                ev.prevent_default();
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        pick(to);
        if let Some(cell) = document().get_element_by_id(&id(to)) {
            if let Ok(cell) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(cell) {
                let _ = cell.focus();
            }
        }
    };
    let body = (0..rows)
        .map(|r| {
            let cells = (0..cols)
                .map(|c| {
                    let (holder, index) = op.holder(r, c);
                    view! {
                        <td role="gridcell" id=id((r, c)) class="fragment-cell"
                            style=format!("--lane-hue: {}", hue(holder))
                            tabindex=if (r, c) == (0, 0) { "0" } else { "-1" }
                            aria-label=format!("{}: lane {holder}, {}[{index}] ({holder}:{index})", element_name(op, (r, c)), op.name())
                            aria-selected="false"
                            data-lane=holder data-index=index
                            on:click=move |_| pick((r, c))>{format!("{holder}:{index}")}</td>
                    }
                })
                .collect_view();
            view! { <tr><th scope="row">{r}</th>{cells}</tr> }
        })
        .collect_view();
    // The tab stop moves in place: the last stop's cell leaves the tab order.
    Effect::new(move |last: Option<Cell>| {
        let now = stop.get();
        if let Some(last) = last.filter(|&l| l != now) {
            set_attribute(&id(last), "tabindex", "-1");
        }
        set_attribute(&id(now), "tabindex", "0");
        now
    });
    let (row_name, col_name) = match op {
        Operand::A => ("m", "k"),
        Operand::B => ("k", "n"),
        Operand::C => ("m", "n"),
    };
    let title = format!(
        "{} ({rows} × {cols}, {}; rows {row_name}, columns {col_name}; {} elements a lane)",
        matrix(op),
        if op == Operand::C { "f32" } else { "f16" },
        op.per_lane()
    );
    view! {
        <figure class="fragment-grid">
            <figcaption id=format!("fragment-{}-title", op.name())>{title}</figcaption>
            <div class="table-scroll">
                <table role="grid" aria-labelledby=format!("fragment-{}-title", op.name()) data-testid=format!("fragment-{}", op.name()) on:keydown=on_key>
                    <thead><tr><th></th>{(0..cols).map(|c| view! { <th scope="col">{c}</th> }).collect_view()}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        </figure>
    }
}

/// The map: in the playground for a kernel that uses `mma` (`linked`), on the tensor-cores
/// page on its own.
#[component]
pub fn FragmentMap(
    /// The picked lane of a warp, shared with the stepper and the diagram where `linked`.
    lane: RwSignal<Option<u32>>,
    /// In the playground, beside a kernel's stepper and diagram: the map has its heading and
    /// says that they follow one lane.
    #[prop(optional)]
    linked: bool,
) -> impl IntoView {
    let element = RwSignal::new(None::<(Operand, Cell)>);
    // A pick changes the classes of the cells it concerns, in place: the last lane's 16 and
    // the new one's, the last element and the new one; the other cells turn grey by the
    // grids' class alone (a class on each of 512 cells cost more than a frame).
    let grids = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |last: Option<Option<u32>>| {
        let now = lane.get();
        // Before the grids are there, nothing is lit (the effect runs again when they are).
        let grids = grids.get()?;
        let _ = grids
            .class_list()
            .toggle_with_force("picking", now.is_some());
        for (l, on) in [(last.flatten(), false), (now, true)] {
            let Some(l) = l else { continue };
            for op in Operand::ALL {
                for i in 0..op.per_lane() {
                    let cell = op.element(l, i);
                    toggle_class(&cell_id(op, cell), "picked", on);
                }
            }
        }
        now
    });
    Effect::new(move |last: Option<Option<(Operand, Cell)>>| {
        let now = element.get();
        for (e, on) in [(last.flatten(), false), (now, true)] {
            if let Some((op, cell)) = e {
                toggle_class(&cell_id(op, cell), "element", on);
                set_attribute(
                    &cell_id(op, cell),
                    "aria-selected",
                    if on { "true" } else { "false" },
                );
            }
        }
        now
    });
    view! {
        <section class="fragment-map" aria-label="Which lane holds which element" data-testid="fragment-map">
            {linked.then(|| view! { <h2>"Which lane holds which element"</h2> })}
            <p class="hint">
                {format!("{} ({SHAPE}): each of a warp's {MMA_LANES} lanes holds 8 elements of A, 4 of B and 4 of C, its fragments. Each cell is lane:index, the lane that holds it and the element's index in that lane's fragment. Pick a lane to light up its elements, or an element (arrow keys in a grid) to name its lane and index", if linked { "This kernel uses mma" } else { "A warp's mma" })}
                {if linked { "; the stepper's lane strip and the diagram follow the same lane. " } else { "." }}
                {linked.then(|| view! { <a href="/docs/tensor-cores">"Tensor cores"</a> })}
            </p>
            <label class="field small">
                <span>"lane"</span>
                <select data-testid="fragment-lane" on:change=move |ev| {
                    element.set(None);
                    lane.set(event_target_value(&ev).parse::<u32>().ok());
                }>
                    <option value="" selected=move || lane.get().is_none()>"none"</option>
                    {(0..MMA_LANES).map(|l| view! {
                        <option value=l selected=move || lane.get() == Some(l)>{l}</option>
                    }).collect_view()}
                </select>
            </label>
            <p class="fragment-readout" role="status" aria-live="polite" data-testid="fragment-readout">
                {move || readout(lane.get(), element.get(), linked)}
            </p>
            <div class="fragment-grids" node_ref=grids>
                {Operand::ALL.into_iter().map(|op| grid(op, lane, element)).collect_view()}
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_reads_as_its_elements_in_fragment_order() {
        // Lane 17: group 4, thread 1 in its group (the PTX ISA's formulas).
        let text = readout(Some(17), None, true);
        assert!(text.starts_with(
            "Lane 17 holds A[4, 2], A[4, 3], A[12, 2], A[12, 3], A[4, 10], A[4, 11], A[12, 10], A[12, 11] as a[0] to a[7]; B[2, 4], B[3, 4], B[10, 4], B[11, 4] as b[0] to b[3]; C[4, 2], C[4, 3], C[12, 2], C[12, 3] as c[0] to c[3]."
        ), "{text}");
    }

    #[test]
    fn an_element_names_its_lane_and_index() {
        let text = readout(Some(17), Some((Operand::A, (12, 11))), true);
        assert!(
            text.starts_with(
                "A[12, 11] is held by lane 17, at index 7 of its A fragment (a[7], of 8)."
            ),
            "{text}"
        );
        // An element of another lane than the picked one (the lane moved on): the lane's words.
        assert!(readout(Some(3), Some((Operand::A, (12, 11))), true).starts_with("Lane 3 holds"));
        assert!(readout(None, None, false).starts_with("No lane picked"));
    }

    #[test]
    fn every_lane_has_a_hue_of_its_own() {
        let mut hues: Vec<u32> = (0..MMA_LANES).map(hue).collect();
        hues.sort_unstable();
        hues.dedup();
        assert_eq!(hues.len(), MMA_LANES as usize);
        // Neighbours at least 30 degrees apart.
        for lane in 1..MMA_LANES {
            let d = hue(lane).abs_diff(hue(lane - 1));
            assert!(d.min(360 - d) >= 30, "{lane}");
        }
    }
}
