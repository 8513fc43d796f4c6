//! `Module.trace`: one CTA's steps on the simulator, as `tessera run --trace` gives them
//! (`Trace::to_json`'s data and `Trace::to_text`'s words), for Python's `tessera.Trace`.

use crate::arrays;
use crate::errors::error;
use crate::launch_args::LaunchArgs;
use crate::module::Module;
use compiler_core::diagnostic::render_all;
use compiler_core::hierarchy::Dim3;
use compiler_core::sim::TraceLimits;
use pyo3::prelude::*;

pub fn trace(
    module: &Module,
    py: Python<'_>,
    args: &LaunchArgs<'_>,
    block: Option<&Bound<'_, PyAny>>,
    warp: Option<u32>,
) -> PyResult<Py<PyAny>> {
    let name = args.name.as_deref();
    if module.compilation.runs_a_program(name) {
        return Err(error(
            py,
            "LaunchError",
            "a program is traced a kernel at a time: name one of its kernels, with its launch"
                .to_owned(),
        ));
    }
    let kernel = module
        .compilation
        .kernel(name)
        .map_err(|d| module.launch_error(py, &d))?;
    let launch = args.to_launch(py, kernel)?;
    if args.grid.is_none() {
        return Err(module.no_grid(py, &launch, kernel));
    }
    let at = match block {
        Some(block) => arrays::extents(py, block, 0, "block=")?,
        None => Dim3::new(0, 0, 0),
    };
    let grid = launch.grid;
    if at.x >= grid.x || at.y >= grid.y || at.z >= grid.z {
        return Err(error(
            py,
            "LaunchError",
            format!(
                "block=({}, {}, {}) is outside the grid ({}, {}, {})",
                at.x, at.y, at.z, grid.x, grid.y, grid.z
            ),
        ));
    }
    let prepared = module
        .compilation
        .prepare(&launch, crate::module::limits(1))
        .map_err(|d| module.diagnosed(py, "LaunchError", &d))?;
    let warps = kernel.threads.div_ceil(prepared.options.lanes.max(1));
    if let Some(w) = warp.filter(|&w| w >= warps) {
        return Err(error(
            py,
            "LaunchError",
            format!(
                "warp={w}: a CTA of {} threads has {warps} warps, numbered from 0",
                kernel.threads
            ),
        ));
    }
    let traced = py.detach(|| prepared.simulate_traced(at, TraceLimits::default()));
    let source = module.source();
    let data = traced.trace.to_json(source).to_string();
    let text = traced.trace.to_text(kernel, source, warp);
    let fault = traced
        .output
        .err()
        .map(|d| render_all(&[d], source, &module.name));
    let data = py.import("json")?.call_method1("loads", (data,))?;
    Ok(py
        .import("tessera._results")?
        .getattr("Trace")?
        .call1((data, text, fault))?
        .unbind())
}
