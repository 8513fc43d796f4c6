//! A tensor in the Run panel: its values as a table (1-D flat, 16 a row; rank 2 and more by
//! rows and columns, a window of columns and a slice of the leading axes at a time, a heat map),
//! every value reachable page by page or by going to its index; its numbers (min, max, sum,
//! mean, NaN and infinite counts); its `.npy` download and a check against an expected `.npy`;
//! and the GPU's verdict beside it. `results` lays these out for a run.
//!
//! In: the simulator's (and the GPU's) tensors. Out: views. Invariant: the reader's place in
//! each table ([`ResultsPlace`]) survives the table being drawn again.

use crate::outputs;
use compiler_core::ir::Scalar;
use compiler_core::sim::{compare_tensor, Arg, Args, Comparison, Tensor};
use leptos::prelude::*;

/// Values on one page of a tensor's table.
const PAGE_VALUES: usize = 256;
/// Values per row of a 1-D tensor.
const FLAT_ROW: usize = 16;
/// The most columns of a tensor's rows drawn at a time; wider rows are shown a window of
/// columns at a time.
const WIDEST_ROW: usize = 64;

pub fn tensor(args: &Args, index: usize) -> Option<&Tensor> {
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

/// How a tensor's values are laid out: a 1-D tensor flat, [`FLAT_ROW`] values a row; a
/// tensor of rank 2 or more by its last two axes, rows and columns with their numbers (a heat
/// map), at most [`WIDEST_ROW`] columns at a time, one slice of its leading axes at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Rows of the table (a 1-D tensor's values, [`FLAT_ROW`] a row).
    rows: usize,
    /// Values in a row.
    columns: usize,
    /// Slices of the leading axes (1 for rank 1 and 2).
    slices: usize,
    /// Rows and columns are the tensor's own.
    grid: bool,
}

impl Layout {
    fn of(shape: &[usize]) -> Layout {
        let count: usize = shape.iter().product();
        match shape {
            [] | [_] => Layout {
                rows: count.div_ceil(FLAT_ROW).max(1),
                columns: FLAT_ROW,
                slices: 1,
                grid: false,
            },
            [leading @ .., rows, columns] => Layout {
                rows: (*rows).max(1),
                columns: *columns,
                slices: leading.iter().product::<usize>().max(1),
                grid: true,
            },
        }
    }

    /// Columns shown at a time.
    fn shown(self) -> usize {
        self.columns.clamp(1, WIDEST_ROW)
    }

    /// Windows of columns.
    fn column_pages(self) -> usize {
        self.columns.div_ceil(self.shown()).max(1)
    }

    /// Rows on a page.
    fn per_page(self) -> usize {
        (PAGE_VALUES / self.shown()).max(1)
    }

    /// Which rows page `page` shows: (first row, rows on the page, pages); past the end is the
    /// last page.
    fn page_rows(self, page: usize) -> (usize, usize, usize) {
        let pages = self.rows.div_ceil(self.per_page());
        let page = page.min(pages - 1);
        let first = page * self.per_page();
        (first, self.per_page().min(self.rows - first), pages)
    }

    /// Where element `flat` is: (slice, row page, column window).
    fn place_of(self, flat: usize) -> Place {
        if !self.grid {
            return Place {
                page: flat / FLAT_ROW / self.per_page(),
                ..Place::default()
            };
        }
        let in_slice = flat % (self.rows * self.columns).max(1);
        Place {
            slice: flat / (self.rows * self.columns).max(1),
            page: in_slice / self.columns.max(1) / self.per_page(),
            window: in_slice % self.columns.max(1) / self.shown(),
        }
    }

    /// The flat index of the value at row `r`, column `c` of the window and slice `at` shows,
    /// if there is one.
    fn index(self, at: Place, r: usize, c: usize, count: usize) -> Option<usize> {
        let i = if self.grid {
            let column = at.window * self.shown() + c;
            if column >= self.columns {
                return None;
            }
            (at.slice * self.rows + r) * self.columns + column
        } else {
            r * FLAT_ROW + c
        };
        (i < count).then_some(i)
    }
}

/// Where a table is: its slice of the leading axes, its page of rows, its window of columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Place {
    slice: usize,
    page: usize,
    window: usize,
}

/// The coordinates of leading slice `slice` of `shape`: `[1, 2, :, :]`.
fn slice_text(shape: &[usize], slice: usize) -> String {
    let leading = &shape[..shape.len().saturating_sub(2)];
    let mut rest = slice;
    let mut at = vec![0; leading.len()];
    for (a, &n) in at.iter_mut().zip(leading).rev() {
        *a = rest % n.max(1);
        rest /= n.max(1);
    }
    let mut parts: Vec<String> = at.iter().map(usize::to_string).collect();
    parts.extend([":".to_owned(), ":".to_owned()]);
    format!("[{}]", parts.join(", "))
}

/// Where the reader is in the results, kept across their redraws (the GPU's answer coming
/// after the simulator's, the first edit after a run, the next run, a switch of tabs): where
/// each table is (its page, window of columns and slice), by table (`result-C`, `input-A`),
/// and whether the inputs are open.
#[derive(Clone, Copy)]
pub struct ResultsPlace {
    pages: StoredValue<Vec<(String, Place)>>,
    inputs_open: StoredValue<bool>,
}

impl ResultsPlace {
    /// Back to the first page of every table, the inputs closed: for another kernel or session.
    /// The slots stay, so a table still on screen keeps a valid one.
    pub fn clear(self) {
        self.pages
            .update_value(|p| p.iter_mut().for_each(|(_, at)| *at = Place::default()));
        self.inputs_open.set_value(false);
    }

    /// Where `table`'s place is kept (from the first page, for a table not seen before).
    fn slot(self, table: &str) -> usize {
        self.pages
            .try_update_value(|p| match p.iter().position(|(t, _)| t == table) {
                Some(slot) => slot,
                None => {
                    p.push((table.to_owned(), Place::default()));
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
    let layout = Layout::of(&tensor.shape);
    let count = tensor.len();
    let shape_rank = tensor.shape.len();
    // A place kept from a larger tensor (another run) shows as this one's last.
    let fit = move |at: Place| Place {
        slice: at.slice.min(layout.slices - 1),
        page: at.page.min(layout.page_rows(0).2 - 1),
        window: at.window.min(layout.column_pages() - 1),
    };
    let slot = place.slot(&table);
    let at = RwSignal::new(fit(place.pages.with_value(|p| p[slot].1)));
    let turn = move |to: Place| {
        let to = fit(to);
        at.set(to);
        place.pages.update_value(|p| p[slot].1 = to);
    };
    let values: Vec<f64> = (0..count).filter_map(|i| tensor.value(i)).collect();
    let slice_shape = tensor.shape.clone();
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
    // Shared by the cells and the element gone to.
    let tensor = StoredValue::new_local(tensor);
    // The element gone to, in full: a cell shows it short, and its tooltip is the pointer's
    // way to the same.
    let target_value = RwSignal::new(None::<String>);
    let scroller = NodeRef::<leptos::html::Div>::new();
    let go = move |text: String| match element_at(&text, &shape) {
        Ok(flat) => {
            goto_problem.set(None);
            target.set(Some(flat));
            let exact = tensor
                .with_value(|t| t.show_exact(flat))
                .unwrap_or_default();
            target_value.set(Some(format!("[{flat}] = {exact}")));
            turn(layout.place_of(flat));
            // The cell, drawn in the next frame, scrolled into the table's view (a window of
            // 64 columns is wider than a phone).
            request_animation_frame(move || {
                let cell = scroller
                    .get_untracked()
                    .and_then(|table| table.query_selector("td.target").ok().flatten());
                if let Some(cell) = cell {
                    let options = web_sys::ScrollIntoViewOptions::new();
                    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    options.set_inline(web_sys::ScrollLogicalPosition::Center);
                    cell.scroll_into_view_with_scroll_into_view_options(&options);
                }
            });
        }
        Err(why) => {
            goto_problem.set(Some(why));
            target_value.set(None);
        }
    };
    let cell = move |i: usize| -> AnyView {
        tensor.with_value(|tensor| {
        let (Some(mine), Some(value)) = (tensor.show(i), tensor.value(i)) else {
            return view! { <td class="empty"></td> }.into_any();
        };
        let theirs = other.as_ref().and_then(|o| o.show(i));
        let differs = theirs.as_ref().is_some_and(|t| *t != mine);
        // The value in full: a cell shows it short.
        let exact = |t: &Tensor| t.show_exact(i).unwrap_or_default();
        let title = match &other {
            Some(o) if theirs.is_some() => {
                format!("[{i}] simulator {}, GPU {}", exact(tensor), exact(o))
            }
            _ => format!("[{i}] {}", exact(tensor)),
        };
        view! {
            <td class:differs=differs class:target=move || target.get() == Some(i) style=heat(value, low, high) title=title>
                {mine}
            </td>
        }
        .into_any()
    })
    };
    let table = move || {
        let now = at.get();
        let (first, rows, _) = layout.page_rows(now.page);
        let columns = if layout.grid {
            layout.shown()
        } else {
            FLAT_ROW
        };
        let first_column = now.window * layout.shown();
        let header = layout.grid.then(|| {
            let last = (first_column + columns).min(layout.columns);
            view! {
                <thead>
                    <tr>
                        <th></th>
                        {(first_column..last).map(|c| view! { <th scope="col">{c}</th> }).collect_view()}
                    </tr>
                </thead>
            }
        });
        view! {
            {header}
            <tbody>
                {(first..first + rows).map(|r| view! {
                    <tr>
                        <th scope="row">{if layout.grid { r } else { r * FLAT_ROW }}</th>
                        {(0..columns).filter_map(|c| {
                            match layout.index(now, r, c, count) {
                                Some(i) => Some(cell(i)),
                                // A flat table's last row ends in empty cells; a window of
                                // columns ends where the rows do.
                                None if !layout.grid => Some(view! { <td class="empty"></td> }.into_any()),
                                None => None,
                            }
                        }).collect_view()}
                    </tr>
                }).collect_view()}
            </tbody>
        }
    };
    let pager = move || {
        let now = at.get();
        let (first, rows, pages) = layout.page_rows(now.page);
        (pages > 1).then(|| {
            let shown = if layout.grid {
                format!(
                    "Rows {first} to {} of {}, page {} of {pages}",
                    first + rows - 1,
                    layout.rows,
                    now.page + 1
                )
            } else {
                format!(
                    "Values {} to {} of {count}, page {} of {pages}",
                    first * FLAT_ROW,
                    ((first + rows) * FLAT_ROW).min(count) - 1,
                    now.page + 1
                )
            };
            let page: Coordinate = (|p| p.page, |p, page| Place { page, ..p });
            pager_row(("page", "Previous", "Next"), shown, at, pages, page, turn)
        })
    };
    // Rows wider than the table shows: a window of columns at a time.
    let windows = move || {
        let now = at.get();
        let windows = layout.column_pages();
        (windows > 1).then(|| {
            let first = now.window * layout.shown();
            let shown = format!(
                "Columns {first} to {} of {}",
                (first + layout.shown()).min(layout.columns) - 1,
                layout.columns
            );
            let window: Coordinate = (|p| p.window, |p, window| Place { window, ..p });
            pager_row(
                ("columns", "◀ Columns", "Columns ▶"),
                shown,
                at,
                windows,
                window,
                turn,
            )
        })
    };
    // A tensor of rank 3 or 4: one slice of its leading axes at a time.
    let slices = (layout.slices > 1).then(move || {
        let shape = slice_shape.clone();
        view! {
            <div class="pager">
                <label class="field small">
                    <span>"slice"</span>
                    <input type="number" min="0" max=layout.slices - 1 data-testid="slice"
                        prop:value=move || at.get().slice.to_string()
                        on:change=move |ev| {
                            if let Ok(s) = event_target_value(&ev).trim().parse::<usize>() {
                                turn(Place { slice: s, ..at.get_untracked() });
                            }
                        }/>
                </label>
                <span data-testid="slice-info" aria-live="polite">{move || format!(
                    "{} of {} slices: {}",
                    at.get().slice + 1,
                    layout.slices,
                    slice_text(&shape, at.get().slice)
                )}</span>
            </div>
        }
    });
    let label = format!(
        "{name}{}",
        if layout.grid {
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
            {move || target_value.get().map(|text| view! {
                <span class="hint" role="status" data-testid="goto-value">{text}</span>
            })}
        }
    });
    view! {
        <div class="table-controls">{slices}{pager}{windows}{goto}</div>
        <div class="table-scroll" tabindex="0" role="region" aria-label=label.clone() node_ref=scroller>
            <table class="values" class:heat-map=layout.grid>
                {table}
            </table>
        </div>
    }
}

/// One coordinate of a [`Place`]: how to read it, how to set it.
type Coordinate = (fn(Place) -> usize, fn(Place, usize) -> Place);

/// Previous, where the table is, and Next (`{testid}-previous`, `-info`, `-next`), moving one
/// coordinate of its place (read by `of`, set by `with`) within `0..count`.
fn pager_row(
    (testid, back, forward): (&'static str, &'static str, &'static str),
    shown: String,
    at: RwSignal<Place>,
    count: usize,
    (of, with): Coordinate,
    turn: impl Fn(Place) + Copy + 'static,
) -> impl IntoView {
    let step = move |by: isize| {
        let now = at.get_untracked();
        turn(with(now, of(now).saturating_add_signed(by)));
    };
    view! {
        <div class="pager">
            <button type="button" data-testid=format!("{testid}-previous") disabled=move || of(at.get()) == 0
                on:click=move |_| step(-1)>{back}</button>
            <span data-testid=format!("{testid}-info") aria-live="polite">{shown}</span>
            <button type="button" data-testid=format!("{testid}-next") disabled=move || { of(at.get()) + 1 >= count }
                on:click=move |_| step(1)>{forward}</button>
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
pub(super) fn TensorResult(
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
                        {verdict_text(("GPU", "simulator"), want.element, &c, want.len())}
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
pub(super) fn save_zip(file_name: &str, tensors: &[(String, Tensor)]) {
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
    if tensor.element.is_wide() {
        return wide_summary(tensor);
    }
    let values: Vec<f64> = (0..tensor.len()).filter_map(|i| tensor.value(i)).collect();
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

/// A 64-bit integer tensor's summary, exact where an `f64` is not (past 2^53): the least and
/// largest elements and the sum as integers, the mean to 15 digits.
fn wide_summary(tensor: &Tensor) -> String {
    let signed = tensor.element == compiler_core::ir::Scalar::I64;
    let values: Vec<i128> = tensor
        .bits
        .chunks_exact(2)
        .map(|w| {
            let v = compiler_core::ir::join_words(w);
            if signed {
                i128::from(v as i64)
            } else {
                i128::from(v)
            }
        })
        .collect();
    let (Some(low), Some(high)) = (values.iter().min(), values.iter().max()) else {
        return "no value".to_owned();
    };
    let sum: i128 = values.iter().sum();
    let mean = sum as f64 / values.len() as f64;
    let mean = if mean.abs() < 1e15 {
        format!("{mean}")
    } else {
        format!("{mean:.14e}")
    };
    format!("min {low} · max {high} · sum {sum} · mean {mean}")
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
                    {verdict_text(("simulator", &file), tensor.element, &c, tensor.len())}
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
    let (shape, expected) = compiler_core::npy::read(bytes, what, name, tensor.element)?;
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
    Ok((
        compare_tensor(tensor.element, &tensor.bits, &expected),
        what.to_owned(),
    ))
}

/// What a run wrote, each tensor with its table, downloads and verdict, and the tensors as the
/// run began.
#[component]
pub(super) fn Written(
    /// The kernel's name, which names the zip of every result.
    kernel: String,
    /// The tensors the run wrote, as (parameter index, name).
    written: Vec<(usize, String)>,
    /// Every tensor parameter, as (parameter index, name).
    params: Vec<(usize, String)>,
    sim: Args,
    gpu: Option<Args>,
    inputs: std::rc::Rc<Args>,
    place: ResultsPlace,
) -> impl IntoView {
    let zip = (!written.is_empty()).then(|| {
        let all: Vec<(String, Tensor)> = written
            .iter()
            .filter_map(|(i, name)| Some((name.clone(), tensor(&sim, *i)?.clone())))
            .collect();
        let file = format!("{kernel}-results.zip");
        view! {
            <p class="run-actions">
                <button type="button" data-testid="download-zip" on:click=move |_| save_zip(&file, &all)>
                    {format!("Download every result ({} .npy in one .zip)", all.len())}
                </button>
                <span class="hint">"np.load opens it as an .npz."</span>
            </p>
        }
    });
    view! {
        {zip}
        {written.into_iter().map(|(index, name)| view! {
            <TensorResult name=name index=index sim=sim.clone() gpu=gpu.clone() place=place/>
        }).collect_view()}
        <Inputs kernel_params=params inputs=inputs place=place/>
    }
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
        let flat = Layout::of(&[1000]);
        assert_eq!(flat.page_rows(0), (0, 16, 4));
        assert_eq!(flat.page_rows(3), (48, 15, 4));
        assert_eq!(
            flat.page_rows(9),
            (48, 15, 4),
            "past the end is the last page"
        );
        assert_eq!(flat.index(Place::default(), 62, 7, 1000), Some(999));
        assert_eq!(flat.index(Place::default(), 62, 8, 1000), None);
        // A 2-D tensor of 50 columns, a row per row; of 1000, 64 columns at a time.
        let narrow = Layout::of(&[40, 50]);
        assert_eq!((narrow.shown(), narrow.column_pages()), (50, 1));
        assert_eq!(narrow.page_rows(0), (0, 5, 8));
        let wide = Layout::of(&[512, 1000]);
        assert_eq!(
            (wide.shown(), wide.column_pages(), wide.per_page()),
            (64, 16, 4)
        );
        let place = wide.place_of(3 * 1000 + 970);
        assert_eq!(
            place,
            Place {
                slice: 0,
                page: 0,
                window: 15
            }
        );
        assert_eq!(wide.index(place, 3, 970 - 15 * 64, 512_000), Some(3970));
        // The last window of columns ends at the last column.
        assert_eq!(wide.index(place, 3, 40, 512_000), None);
        // Rank 4: slices of the two leading axes, each a 2-D table.
        let four = Layout::of(&[2, 3, 4, 5]);
        assert_eq!((four.slices, four.rows, four.columns), (6, 4, 5));
        // Element [1, 2, 3, 4]: slice 1 * 3 + 2.
        let place = four.place_of(((3 + 2) * 4 + 3) * 5 + 4);
        assert_eq!(
            place,
            Place {
                slice: 5,
                page: 0,
                window: 0
            }
        );
        assert_eq!(four.index(place, 3, 4, 120), Some(119));
        assert_eq!(slice_text(&[2, 3, 4, 5], 5), "[1, 2, :, :]");
        assert_eq!(
            Layout::of(&[0]).page_rows(0),
            (0, 1, 1),
            "an empty tensor has one empty page"
        );
    }
}
