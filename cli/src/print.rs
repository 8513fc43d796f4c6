//! What the CLI prints of a run: the one-line summary, a tensor's preview and the super-tiles
//! of a cluster run (the trace's JSON is `Trace::to_json`, the memory profile's
//! `MemoryProfile::to_json`). Text out only; nothing here runs.

use compiler_core::cluster::ClusterRun;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::{Kernel, Scalar};
use std::io::Write as _;

/// Text on stdout: a reader that stops early (`| head`) is not an error.
pub fn print_out(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}

pub fn ran_on_simulator(kernel: &Kernel, grid: Dim3, stats: compiler_core::sim::Stats) {
    eprintln!(
        "ran {} on the simulator, {} x {} x {} CTAs of {} threads: {} steps, {} lane operations",
        kernel.name, grid.x, grid.y, grid.z, kernel.threads, stats.steps, stats.lane_ops
    );
    note_order_dependent_sums(stats);
}

/// The note a run prints when its f32 atomic sums depend on the order of their additions.
pub fn note_order_dependent_sums(stats: compiler_core::sim::Stats) {
    if stats.order_dependent_sums {
        eprintln!("note: {}", compiler_core::sim::ORDER_DEPENDENT_SUMS);
    }
}

/// Which node ran which super-tile, on stderr.
pub fn print_super_tiles(kernel: &Kernel, run: &ClusterRun) {
    let dim = kernel.cluster_dim().unwrap_or_default();
    eprintln!(
        "@cluster: {} super-tiles of {dim} on {} node(s)",
        run.tiles.len(),
        run.nodes
    );
    for tile in &run.tiles {
        eprintln!(
            "  super-tile {}: {dim} {}..{} on node {}",
            tile.index,
            tile.start,
            tile.start + tile.len,
            tile.node
        );
    }
}

/// `C [1, 8] f32: [0, 1, …]`, at most 64 values.
pub fn preview(name: &str, tensor: &compiler_core::sim::Tensor) -> String {
    let words = tensor.element.words();
    if words > 1 {
        // A 64-bit integer: two words an element, shown exactly.
        let values: Vec<String> = tensor
            .bits
            .chunks(words)
            .take(64)
            .map(|w| tensor.element.show_words(w))
            .collect();
        let more = if tensor.bits.len() > 64 * words {
            ", …"
        } else {
            ""
        };
        return format!(
            "{name} {:?} {}: [{}{more}]",
            tensor.shape,
            tensor.element.name(),
            values.join(", ")
        );
    }
    let values: Vec<String> = tensor
        .bits
        .iter()
        .take(64)
        .map(|b| match tensor.element {
            Scalar::U32
                if name.to_lowercase().contains("mask")
                    || name.to_lowercase().contains("ballot") =>
            {
                format!("{b:#010x}")
            }
            element => element.value(*b).to_string(),
        })
        .collect();
    let more = if tensor.bits.len() > 64 { ", …" } else { "" };
    format!(
        "{name} {:?} {}: [{}{more}]",
        tensor.shape,
        tensor.element.name(),
        values.join(", ")
    )
}
