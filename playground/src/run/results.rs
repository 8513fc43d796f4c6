//! The results of a run: the status of the simulator and of the GPU, and each tensor the
//! kernel writes, as the simulator computed it, with the GPU's verdict beside it.

use super::engine::{GpuOutcome, RunReport, SimRun};
use compiler_core::cluster::ClusterRun;
use compiler_core::ir::{Kernel, Scalar};
use compiler_core::sim::{compare_tensor, Arg, Args, Tensor};
use leptos::prelude::*;

/// Elements shown per tensor (the rest are summarised by the largest difference).
const SHOWN: usize = 256;

/// A value as the results table prints it.
pub(super) fn show(bits: u32, element: Scalar) -> String {
    match element {
        Scalar::F32 | Scalar::F16 => {
            let v = f32::from_bits(bits);
            if v == v.trunc() && v.abs() < 1e7 {
                format!("{v:.0}")
            } else {
                format!("{v:.4}")
            }
        }
        Scalar::Bool => (bits != 0).to_string(),
        Scalar::U32 if bits > 0xffff => format!("{bits:#010x}"),
        _ => format!("{}", element.value(bits)),
    }
}

pub(super) fn tensor(args: &Args, index: usize) -> Option<&Tensor> {
    match args.params.get(index)? {
        Arg::Tensor(t) => Some(t),
        Arg::Scalar(_) => None,
    }
}

/// The heat colour of a value between `low` and `high` (2-D results).
fn heat(value: f64, low: f64, high: f64) -> String {
    let t = if high > low {
        ((value - low) / (high - low)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    format!("--heat: {:.0}%", t * 100.0)
}

#[component]
fn TensorResult(name: String, index: usize, sim: Args, gpu: Option<Args>) -> impl IntoView {
    let Some(want) = tensor(&sim, index).cloned() else {
        return ().into_any();
    };
    let got = gpu.as_ref().and_then(|g| tensor(g, index)).cloned();
    let shape = want
        .shape
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" × ");
    let verdict = got.as_ref().map(|g| {
        let comparison = compare_tensor(want.element, &g.bits, &want.bits);
        (comparison.largest, comparison.agree())
    });
    let values: Vec<f64> = want.bits.iter().map(|&b| want.element.value(b)).collect();
    let (low, high) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    let columns = if want.shape.len() == 2 {
        want.shape[1].clamp(1, 16)
    } else {
        16
    };
    let rows_total = if want.shape.len() == 2 {
        want.shape[0]
    } else {
        want.bits.len().div_ceil(16)
    };
    let row_len = if want.shape.len() == 2 {
        want.shape[1]
    } else {
        16
    };
    let rows = rows_total.min(SHOWN / columns).max(1);
    let cell = move |i: usize| -> AnyView {
        let Some(&bits) = want.bits.get(i) else {
            return view! { <td></td> }.into_any();
        };
        let sim_text = show(bits, want.element);
        let gpu_text = got
            .as_ref()
            .and_then(|g| g.bits.get(i))
            .map(|&b| show(b, want.element));
        let differs = gpu_text.as_ref().is_some_and(|g| *g != sim_text);
        let title = match &gpu_text {
            Some(g) => format!("[{i}] simulator {sim_text}, GPU {g}"),
            None => format!("[{i}] {sim_text}"),
        };
        view! {
            <td class:differs=differs style=heat(want.element.value(bits), low, high) title=title>
                {sim_text}
            </td>
        }
        .into_any()
    };
    view! {
        <section class="tensor-result" data-testid=format!("result-{name}")>
            <h3>
                <code>{name.clone()}</code>" "<span class="shape">{shape}</span>
                {verdict.map(|(largest, agree)| view! {
                    <span class="verdict" class:agree=agree data-testid="verdict">
                        {if agree { "GPU = simulator" } else { "GPU ≠ simulator" }}
                        {format!(" · largest difference {largest:.3e}")}
                    </span>
                })}
            </h3>
            <div class="table-scroll">
                <table class="values" aria-label=format!("{name}, as the simulator computed it")>
                    <tbody>
                        {(0..rows).map(|r| view! {
                            <tr>
                                <th scope="row">{r * row_len}</th>
                                {(0..columns).map(|c| cell(r * row_len + c)).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            {(rows < rows_total || columns < row_len).then(|| view! {
                <p class="more">{format!("Showing the first {rows} rows and {columns} columns.")}</p>
            })}
        </section>
    }
    .into_any()
}

#[component]
pub fn Results(report: RwSignal<Option<RunReport>, LocalStorage>) -> impl IntoView {
    move || {
        let Some(report) = report.get() else {
            return view! {
                <p class="hint">"Press Run (or Ctrl+Enter in the editor) to run the kernel on the simulator and on your GPU."</p>
            }
            .into_any();
        };
        let gpu_line = match &report.gpu {
            GpuOutcome::Pending => "WebGPU: running…".to_owned(),
            GpuOutcome::Skipped(why) => {
                format!("WebGPU: not run: {why}. The simulator's results are below.")
            }
            GpuOutcome::Failed(why) => format!("WebGPU: {why}"),
            GpuOutcome::Done { ms, how, .. } => format!("WebGPU ({how}): {ms:.1} ms"),
        };
        let gpu_args = match &report.gpu {
            GpuOutcome::Done { args, .. } => Some(args.clone()),
            _ => None,
        };
        match &report.sim {
            Err(diagnostics) => view! {
                <div class="run-status" role="status" data-testid="run-status">
                    <p class="run-fault">
                        {format!("The simulator stopped the run: {}", diagnostics.iter().map(|d| format!("{} {}", d.code.as_str(), d.message)).collect::<Vec<_>>().join("; "))}
                    </p>
                    <p data-testid="gpu-status">{gpu_line}</p>
                </div>
            }
            .into_any(),
            Ok(SimRun { args, ms, cluster, .. }) => {
                let Some(kernel) = report.kernel() else {
                    return ().into_any();
                };
                let written: Vec<(usize, String)> = kernel
                    .written_tensors()
                    .into_iter()
                    .map(|i| (i, kernel.params[i].name().to_owned()))
                    .collect();
                let args = args.clone();
                let cluster_line = cluster.as_ref().map(|run| super_tiles_line(kernel, run));
                view! {
                    <div class="run-status" role="status" data-testid="run-status">
                        <p data-testid="sim-status">{format!("Simulator: {ms:.1} ms")}</p>
                        {cluster_line.map(|line| view! { <p data-testid="cluster-status">{line}</p> })}
                        <p data-testid="gpu-status">{gpu_line}</p>
                    </div>
                    {written.into_iter().map(|(index, name)| view! {
                        <TensorResult name=name index=index sim=args.clone() gpu=gpu_args.clone()/>
                    }).collect_view()}
                }
                .into_any()
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_a_reader_expects() {
        assert_eq!(show(3.0f32.to_bits(), Scalar::F32), "3");
        assert_eq!(show(0.5f32.to_bits(), Scalar::F32), "0.5000");
        assert_eq!(show((-4i32) as u32, Scalar::I32), "-4");
        assert_eq!(show(0xffff_ffff, Scalar::U32), "0xffffffff");
        assert_eq!(show(1, Scalar::Bool), "true");
    }
}
