//! The current launch in the hierarchy diagram, and what the thread picked in it wrote.

use super::engine::RunReport;
use super::tensors::tensor;
use compiler_core::hierarchy::{self, Dim3, LaunchShape};
use compiler_core::ir::Kernel;
use compiler_core::launch::Launch;
use compiler_core::share::Stepping;
use diagram::{DiagramConfig, HierarchyDiagram};
use leptos::prelude::*;
use std::rc::Rc;

/// What the picked thread wrote in the last simulated run: (tensor, flat index, value).
fn writes_of(
    report: &RunReport,
    grid: Dim3,
    block: Dim3,
    thread: u32,
) -> Vec<(String, String, String)> {
    let (Ok(sim), Some(kernel)) = (&report.sim, report.kernel()) else {
        return Vec::new();
    };
    let id = hierarchy::launch_thread(grid, block, kernel.threads, thread) + 1;
    let mut out = Vec::new();
    for (param, who) in sim.writers.iter().enumerate() {
        let Some(tensor) = tensor(&sim.args, param) else {
            continue;
        };
        for (at, _) in who.iter().enumerate().filter(|(_, w)| **w == id) {
            let index = unflatten(at, &tensor.shape);
            out.push((
                kernel.params[param].name().to_owned(),
                index,
                tensor.show(at).unwrap_or_default(),
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
/// what its thread wrote. A part loaded when its place comes near the screen (`later`).
#[component]
pub fn LaunchDiagram(
    launch: RwSignal<Launch>,
    #[prop(into)] kernel: Signal<Option<Rc<Kernel>>, LocalStorage>,
    report: RwSignal<Option<RunReport>, LocalStorage>,
    /// Opens the stepper on a warp (CTA, warp), offered once a warp is picked after a run.
    #[prop(optional)]
    on_step_through: Option<Callback<Stepping>>,
    /// The lane followed, shared with the stepper and the lane map: a lane picked in the
    /// diagram is followed, and a lane followed elsewhere is shown, in the warp on show (else
    /// warp 0 of CTA (0, 0)).
    followed: RwSignal<Option<u32>>,
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
    let lanes = move || launch.with(|l| l.lanes).max(1);
    let picked = RwSignal::new(None::<(Dim3, u32)>);
    let on_pick = Callback::new(move |p: Option<(Dim3, u32)>| {
        picked.set(p);
        // Leaving the lane level follows no other lane: the reader is only looking around.
        if let Some((_, thread)) = p {
            let lane = Some(thread % lanes());
            if followed.get_untracked() != lane {
                followed.set(lane);
            }
        }
    });
    let picked_warp = RwSignal::new(None::<(Dim3, u32)>);
    let on_warp = Callback::new(move |w| picked_warp.set(w));
    // A lane followed elsewhere: the diagram zooms onto it, unless it shows that lane already
    // or the warp on show has no such lane (a partial warp, or a lane past this launch's
    // warps): then the diagram stays where the reader left it.
    let show = RwSignal::new(None::<(Dim3, u32)>);
    Effect::new(move |_| {
        let Some(lane) = followed.get() else { return };
        let here = picked.get_untracked().map(|(_, thread)| thread % lanes());
        let (block, warp) = picked_warp
            .get_untracked()
            .unwrap_or((Dim3::new(0, 0, 0), 0));
        let thread = warp * lanes() + lane;
        let threads = kernel.with_untracked(|k| k.as_ref().map_or(0, |k| k.threads));
        if here != Some(lane) && lane < lanes() && thread < threads {
            show.set(Some((block, thread)));
        }
    });
    let step_offer = move || {
        let (block, warp) = picked_warp.get()?;
        let step_through = on_step_through?;
        report.with(|r| r.is_some()).then(|| view! {
            <button type="button" class="step-through" data-testid="diagram-step-through" on:click=move |_| step_through.run(Stepping { launch: 0, block, warp, step: 0 })>
                {format!("Step through warp {warp} of block ({}, {})", block.x, block.y)}
            </button>
        })
    };
    let writes = move || {
        let (block, thread) = picked.get()?;
        let grid = launch.with(|l| l.grid);
        report.with(|r| {
            r.as_ref()
                .map(|r| (block, thread, writes_of(r, grid, block, thread)))
        })
    };
    // The section and its heading are the page's, around a `WhenSeen`: this is what is in it.
    view! {
        {move || match config.get() {
            Err(why) => view! { <p class="hint" data-testid="launch-diagram-error">{why}</p> }.into_any(),
            Ok(c) => view! {
                <HierarchyDiagram config=c label="This launch, from the grid to one lane" show=show on_pick=on_pick on_warp=on_warp stacked=true/>
            }.into_any(),
        }}
        {step_offer}
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_indices_read_back_as_row_major_indices() {
        assert_eq!(unflatten(7, &[2, 5]), "[1, 2]");
        assert_eq!(unflatten(7, &[40]), "[7]");
        assert_eq!(unflatten(0, &[1, 3, 4]), "[0, 0, 0]");
        assert_eq!(unflatten(23, &[2, 3, 4]), "[1, 2, 3]");
    }
}
