//! Raising `tessera._errors`' exceptions, and issuing its warnings, from Rust: the command
//! line's text and the structured diagnostics, as `tessera check --json` gives them.

use compiler_core::diagnostic::{render_all, Diagnostic, Structured};
use compiler_core::span::LineIndex;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The exception `kind` (`CompileError`, `LaunchError`, `RunError`, `BackendError`) with
/// `text` and no diagnostics.
pub fn error(py: Python<'_>, kind: &str, text: String) -> PyErr {
    raise(py, kind, text, Vec::new())
}

/// The exception `kind` for `diagnostics` of `source` (the file `name`): its text is
/// `render_all`'s, what `tessera check` and `tessera run` print.
pub fn diagnosed(
    py: Python<'_>,
    kind: &str,
    diagnostics: &[Diagnostic],
    source: &str,
    name: &str,
) -> PyErr {
    let text = render_all(diagnostics, source, name);
    let objects = match objects(py, diagnostics, source) {
        Ok(objects) => objects,
        Err(error) => return error,
    };
    raise(py, kind, text, objects)
}

/// Each diagnostic as a `tessera.Diagnostic`.
pub fn objects<'py>(
    py: Python<'py>,
    diagnostics: &[Diagnostic],
    source: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let class = py.import("tessera._errors")?.getattr("Diagnostic")?;
    let index = LineIndex::new(source);
    diagnostics
        .iter()
        .map(|d| {
            let s = Structured::new(d, source, &index);
            class.call1((
                s.code,
                s.severity.name(),
                s.message,
                s.primary.start.line,
                s.primary.start.column,
                s.primary.end.line,
                s.primary.end.column,
                s.help,
                s.explanation,
            ))
        })
        .collect()
}

/// Issues `text` as a `tessera.TesseraWarning`, attributed to the Python frame `stacklevel`
/// up (1: the caller of the Rust function; 2: its caller, past `tessera.compile`'s wrapper).
pub fn warn(py: Python<'_>, text: &str, stacklevel: u32) -> PyResult<()> {
    let category = py.import("tessera._errors")?.getattr("TesseraWarning")?;
    py.import("warnings")?
        .call_method1("warn", (category.call1((text,))?, py.None(), stacklevel))?;
    Ok(())
}

fn raise(py: Python<'_>, kind: &str, text: String, diagnostics: Vec<Bound<'_, PyAny>>) -> PyErr {
    let made = (move || {
        let class = py.import("tessera._errors")?.getattr(kind)?;
        let list = PyList::new(py, diagnostics)?;
        class.call1((text, list))
    })();
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(error) => error,
    }
}
