//! Memory you can see: the run's accesses counted per access in the source (global memory by
//! 32-byte sector, shared memory by bank; the rules are `compiler_core::sim::profile`'s and the
//! spec's "Memory behaviour") with the run's roofline, and the kernel's occupancy on a target
//! beside the launch, with its curves (both charts are `charts`').
//!
//! In: a [`MemoryRun`] (made on request, never on an edit) and, for occupancy, the kernel, its
//! compilation and the target. Out: the views; [`memory_rows`] computes the table as data, so
//! its figures are tested without a browser.

use super::engine::MemoryRun;
use compiler_core::ir::Kernel;
use compiler_core::occupancy::{occupancy, DEFAULT_REGISTERS};
use compiler_core::ptx::Arch;
use compiler_core::span::{LineIndex, Span};
use leptos::prelude::*;
use std::rc::Rc;

/// One row of the memory table.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryRow {
    pub span: Span,
    /// "13:27".
    pub at: String,
    /// The access's text (its first line).
    pub access: String,
    /// "global read", "shared write", …
    pub memory: String,
    pub requests: u64,
    /// Global: sectors per request and the share of moved bytes asked for; shared: the conflict,
    /// worst and mean.
    pub figures: String,
    pub poor: bool,
}

/// The table's rows, in source order.
pub fn memory_rows(run: &MemoryRun) -> Vec<MemoryRow> {
    let Ok(profile) = &run.profile else {
        return Vec::new();
    };
    let source = run.compilation.source();
    let lines = LineIndex::new(source);
    profile
        .sites
        .iter()
        .map(|site| {
            let at = lines.line_column(source, site.span.start);
            MemoryRow {
                span: site.span,
                at: format!("{}:{}", at.line, at.column),
                access: site.span.first_line(source).to_owned(),
                memory: site.kind().to_owned(),
                requests: site.requests,
                figures: site.figures(),
                poor: site.is_poor(),
            }
        })
        .collect()
}

/// The Memory section of the Run panel.
#[component]
pub fn MemoryView(
    #[prop(into)] measured: Signal<Option<Rc<MemoryRun>>, LocalStorage>,
    /// "Counting: 12 of 64 CTAs" while counting.
    #[prop(into)]
    counting: Signal<Option<String>>,
    /// Whether the source or the launch changed since the counts.
    #[prop(into)]
    stale: Signal<bool, LocalStorage>,
    /// The seconds the run's work took on the reader's GPU, for the roofline's measured point.
    #[prop(into)]
    gpu_seconds: Signal<Option<f64>, LocalStorage>,
    on_measure: Callback<()>,
    on_close: Callback<()>,
) -> impl IntoView {
    let body = move || {
        measured.with(|m| {
            let run = m.as_ref()?;
            let rows = memory_rows(run);
            let note = match (&run.profile, &run.fault) {
                (Err(why), _) => Some(format!("Nothing was counted: {why}.")),
                (Ok(_), Some(fault)) => Some(format!(
                    "The run stopped at {}: {}; the counts go up to there.",
                    fault.code.as_str(),
                    fault.message
                )),
                _ => None,
            };
            let roofline = run
                .profile
                .as_ref()
                .ok()
                .map(|p| charts::roofline(&p.work, p.global_bytes(), gpu_seconds.get()));
            let poor = rows.iter().filter(|r| r.poor).count();
            let summary = match (rows.len(), poor) {
                (0, _) => "The kernel reads and writes no tensor or tile.".to_owned(),
                (n, 0) => format!("{n} accesses, none marked."),
                (n, p) => format!(
                    "{n} accesses; {p} marked (at least half of what it moved is excess: sectors, or wavefronts of a bank conflict), and underlined in the source."
                ),
            };
            // Where PTX keeps each per-thread array: registers move nothing, `.local` rows show.
            let arrays = run.profile.as_ref().ok().and_then(|p| {
                let places: Vec<String> = p.arrays.iter().map(|a| a.describe()).collect();
                (!places.is_empty()).then(|| format!("Per-thread arrays on PTX: {}.", places.join("; ")))
            });
            Some(view! {
                {note.map(|n| view! { <p class="step-notes">{n}</p> })}
                <p data-testid="memory-summary">{summary}</p>
                {arrays.map(|a| view! { <p class="hint" data-testid="memory-arrays">{a}</p> })}
                <div class="table-scroll" tabindex="0" role="region" aria-label="Memory accesses">
                    <table class="values memory-table" data-testid="memory-table">
                        <thead>
                            <tr>
                                <th scope="col">"line:col"</th>
                                <th scope="col">"access"</th>
                                <th scope="col">"memory"</th>
                                <th scope="col">"requests"</th>
                                <th scope="col">"figures"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {rows.into_iter().map(|r| view! {
                                <tr class:poor=r.poor data-poor=r.poor.to_string()>
                                    <td>{r.at}</td>
                                    <td><code>{r.access}</code></td>
                                    <td>{r.memory}</td>
                                    <td>{r.requests}</td>
                                    <td>{r.figures}{r.poor.then_some(" (marked)")}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
                {roofline.map(|html| view! { <div inner_html=html></div> })}
            })
        })
    };
    view! {
        <section class="memory" aria-labelledby="memory-title" data-testid="memory">
            <div class="stepper-head">
                <h2 id="memory-title">"Memory accesses"</h2>
                <button type="button" class="close" data-testid="memory-close" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
            <p class="hint">
                "Each access in the source, over every warp of the run: a request is one warp's access (32 lanes at most). Global memory moves 32-byte sectors; shared memory has 32 banks; the excess is what an access moved beyond the fewest its bytes need. "
                <a href="/docs/spec#memory-behaviour">"The rules"</a>
                ", and "<a href="/docs/memory">"what the figures mean"</a>"."
            </p>
            {move || counting.get().map(|text| view! { <p class="hint" role="status">{text}</p> })}
            {move || stale.get().then(|| view! {
                <p class="stale" role="status" data-testid="memory-stale">
                    "The source or the launch changed since these counts. "
                    <button type="button" on:click=move |_| on_measure.run(())>"Count again"</button>
                </p>
            })}
            {body}
        </section>
    }
}

/// The kernel's occupancy on the PTX tab's target, with the registers per thread to change
/// (a browser has no `ptxas` to ask).
#[component]
pub fn OccupancyView(
    #[prop(into)] kernel: Signal<Option<Rc<Kernel>>, LocalStorage>,
    arch: RwSignal<Arch>,
) -> impl IntoView {
    let registers = RwSignal::new(DEFAULT_REGISTERS);
    // The kernel's static shared memory is the PTX's (tiles, padding, a reduction's scratch),
    // known from the kernel without emitting it; none when the target cannot hold it (E0521).
    let shared = Memo::new(move |_| {
        let kernel = kernel.get()?;
        let bytes = compiler_core::ptx::shared_bytes(&kernel);
        (bytes <= arch.get().static_shared_bytes()).then_some((kernel.threads, bytes))
    });
    // No occupancy on a target that cannot build the kernel (its own `mma` on sm_70, E0522).
    let refused = Memo::new(move |_| {
        let kernel = kernel.get()?;
        compiler_core::ptx::refusal(&kernel, arch.get()).map(|_| arch.get())
    });
    let figures = move || {
        let (threads, bytes) = shared.get()?;
        Some((
            match refused.get() {
                Some(arch) => Err(format!(
                    "{} cannot build this kernel (its mma needs sm_80 or later): pick another target",
                    arch.name()
                )),
                None => occupancy(arch.get(), threads, bytes, registers.get()),
            },
            bytes,
        ))
    };
    view! {
        <details class="occupancy" data-testid="occupancy">
            <summary data-testid="occupancy-summary">{move || match figures() {
                Some((Ok(o), _)) => format!("Occupancy on {}: {:.0}% ({} of {} warps per SM)", o.arch.name(), o.occupancy * 100.0, o.warps, o.limits.warps),
                Some((Err(why), _)) => format!("Occupancy: {why}"),
                None => "Occupancy: no kernel".to_owned(),
            }}</summary>
            <div class="occupancy-body">
                <ArchSelect arch=arch testid="occupancy-arch"/>
                <label class="field small">
                    <span>"registers per thread"</span>
                    <input type="number" min="1" max="255" data-testid="occupancy-registers"
                        prop:value=move || registers.get().to_string()
                        on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).trim().parse::<u32>() {
                                registers.set(n.clamp(1, 255));
                            }
                        }/>
                </label>
                <p class="hint">"A browser cannot ask ptxas how many registers the kernel uses: 32 is a guess for small kernels (tessera occupancy reads it from ptxas -v)."</p>
                {move || figures().and_then(|(o, shared)| o.ok().map(|o| view! {
                    <table class="values occupancy-table" data-testid="occupancy-table">
                        <caption>{format!("{} threads ({} warps) per CTA, {shared} bytes of shared memory, {} registers per thread", o.warps_per_cta * 32, o.warps_per_cta, o.registers_per_thread)}</caption>
                        <thead><tr><th scope="col">"limit"</th><th scope="col">"CTAs per SM"</th></tr></thead>
                        <tbody>
                            {o.rows().into_iter().map(|(limit, shown, binds)| view! {
                                <tr class:binds=binds>
                                    <th scope="row">{limit.name()}</th>
                                    <td>{shown}{binds.then_some(" (binds)")}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }))}
                {move || shared.get().filter(|_| refused.get().is_none()).map(|(threads, bytes)| view! {
                    <div class="occupancy-curves" inner_html=charts::occupancy_curves(arch.get(), threads, bytes, registers.get())></div>
                })}
            </div>
        </details>
    }
}

/// The target for PTX and occupancy: one select, shared by the PTX tab and the occupancy view.
#[component]
pub fn ArchSelect(arch: RwSignal<Arch>, testid: &'static str) -> impl IntoView {
    view! {
        <label class="field small">
            <span>"target"</span>
            <select data-testid=testid on:change=move |ev| {
                if let Ok(a) = event_target_value(&ev).parse::<Arch>() { arch.set(a) }
            }>
                {Arch::ALL.into_iter().map(|a| view! {
                    <option value=a.name() selected=move || arch.get() == a>{a.name()}</option>
                }).collect_view()}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::launch::Launch;

    #[test]
    fn rows_give_each_accesss_figures_and_mark_the_poor_ones() {
        let source = compiler_core::examples::find("transpose")
            .map(|e| e.source)
            .unwrap_or_else(|| panic!("the transpose example"));
        let compilation = Rc::new(compiler_core::compile(source));
        let mut launch = Launch::default();
        launch.grid.y = 4;
        launch.dims.insert("R".into(), 4);
        launch.dims.insert("C".into(), 128);
        let profiled = match compilation.prepare(&launch, compiler_core::RunLimits::PAGE) {
            Ok(prepared) => prepared.simulate_profiled(),
            Err(d) => panic!("{d:?}"),
        };
        let run = MemoryRun {
            compilation: compilation.clone(),
            launch,
            profile: profiled.profile,
            fault: None,
            ms: 0.0,
        };
        let rows = memory_rows(&run);
        let store = rows
            .iter()
            .find(|r| r.memory == "global write")
            .unwrap_or_else(|| panic!("{rows:?}"));
        // Out[c, r]: consecutive lanes 4 elements (16 bytes) apart, as R = 4: two lanes per
        // 32-byte sector, 16 sectors for 128 bytes asked for, which 4 would hold: 12 excess in
        // each of 16 requests.
        assert_eq!(
            store.figures,
            "16.00 sectors per request, 192 excess of 256"
        );
        assert!(store.poor);
        let load = rows
            .iter()
            .find(|r| r.access == "In[r, c]")
            .unwrap_or_else(|| panic!("{rows:?}"));
        assert_eq!(load.figures, "4.00 sectors per request, 0 excess of 64");
        assert_eq!(load.requests, 4 * 4);
        assert!(!load.poor);
    }
}
