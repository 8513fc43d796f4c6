//! `tessera._tessera`: the compiler core and the runtime for Python (PyO3), which
//! `python/tessera/__init__.py` re-exports as `tessera`.
//!
//! In: a kernel's source text, launches as keyword arguments, numpy arrays. Out: a [`Module`]
//! (compiled forms, runs, profiles), numpy arrays, [`Chart`]s that display as SVG in Jupyter,
//! and Python exceptions (`tessera._errors`) carrying the command line's text and the
//! diagnostics. Invariant: nothing here compiles, checks or runs anything itself; each call
//! is `compiler_core`'s or `runtime`'s, as `tessera`'s command line makes it, so a launch
//! means the same run, bit for bit, from both.

mod arrays;
mod charts;
mod errors;
mod launch_args;
mod module;
mod trace;
mod watch;

use pyo3::prelude::*;

pub use charts::{Chart, Profile};
pub use module::Module;

/// Compiles `source`; a source with errors raises `CompileError`, whose text is what
/// `tessera check` prints for a file called `name`.
#[pyfunction]
#[pyo3(signature = (source, name = "<source>"))]
fn compile(py: Python<'_>, source: &str, name: &str) -> PyResult<Module> {
    Module::compile(py, source, name)
}

/// The GPUs each backend would run on, as `tessera gpu` prints them: the Vulkan adapter
/// (`backend="gpu"`) and each CUDA device (`backend="cuda"`), or why there is none.
#[pyfunction]
fn devices() -> String {
    runtime::devices().unwrap_or_else(|none| none)
}

#[pymodule]
fn _tessera(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(devices, m)?)?;
    m.add_function(wrap_pyfunction!(charts::diagram, m)?)?;
    m.add_class::<Module>()?;
    m.add_class::<Profile>()?;
    m.add_class::<Chart>()?;
    Ok(())
}
