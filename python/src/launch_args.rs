//! A launch's keyword arguments as `Module.run` and `Module.profile` take them, before they
//! are read into a `Launch` (module.rs).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;

/// A launch's keyword arguments, as `run` and `profile` take them.
pub struct LaunchArgs<'py> {
    pub name: Option<String>,
    pub grid: Option<Bound<'py, PyAny>>,
    pub dims: Option<BTreeMap<String, i64>>,
    pub scalars: BTreeMap<String, f64>,
    pub lanes: Option<u32>,
    pub step_limit: Option<u64>,
    pub threads: Option<u32>,
    /// Timed dispatches after a GPU run (0: not timed).
    pub dispatches: u32,
    /// Tensors by name: `inputs={…}` (any name, one of `run`'s own included), then the
    /// keyword arguments.
    pub tensors: Vec<Bound<'py, PyDict>>,
}

impl LaunchArgs<'_> {
    /// The timed dispatches after a GPU run: `repeats` (9 by default), none without `timing`.
    pub fn dispatches(timing: bool, repeats: Option<u32>) -> u32 {
        if timing {
            repeats.unwrap_or(runtime::TIMED_DISPATCHES)
        } else {
            0
        }
    }

    /// The numpy array passed for the tensor `name`, if one was.
    pub fn passed(&self, name: &str) -> Option<Bound<'_, PyAny>> {
        let value = self
            .tensors
            .iter()
            .rev()
            .find_map(|t| t.get_item(name).ok().flatten())?;
        value
            .cast::<numpy::PyUntypedArray>()
            .is_ok()
            .then_some(value)
    }
}
