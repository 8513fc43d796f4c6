//! A launch's keyword arguments as `Module.run`, `Module.profile` and `Module.trace` take
//! them, and the `Launch` they describe: arrays read and checked against the parameters,
//! scalars and dimensions also taken by name (after `run`'s own options and the tensors).

use crate::arrays;
use crate::errors::error;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::{Kernel, Param};
use compiler_core::launch::{Input, Launch};
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

    /// The launch the keyword arguments describe, arrays read and checked against the
    /// parameters of `signature` (a kernel's, or a program's).
    pub fn to_launch(&self, py: Python<'_>, signature: &Kernel) -> PyResult<Launch> {
        let args = self;
        let mut launch = Launch {
            kernel: Some(signature.name.clone()),
            grid: match &args.grid {
                Some(grid) => arrays::extents(py, grid, 1, "grid=")?,
                None => Dim3::new(1, 1, 1),
            },
            dims: args.dims.clone().unwrap_or_default(),
            scalars: args.scalars.clone(),
            lanes: args.lanes.unwrap_or(compiler_core::hierarchy::NVIDIA_LANES),
            step_limit: args.step_limit,
            ..Launch::default()
        };
        for (key, value) in args.tensors.iter().flat_map(|t| t.iter()) {
            let name: String = key.extract()?;
            if launch.inputs.contains_key(&name) {
                return Err(error(
                    py,
                    "LaunchError",
                    format!("`{name}` is given twice: in inputs= and as a keyword argument"),
                ));
            }
            let twice = |name: &str| {
                error(
                    py,
                    "LaunchError",
                    format!("`{name}` is given twice: by name and in scalars= or dims="),
                )
            };
            let input = match signature
                .param_index(&name)
                .and_then(|i| signature.params.get(i))
            {
                Some(Param::Tensor { element, .. }) => arrays::input(py, &name, *element, &value)?,
                // A scalar or a dimension by name, where the name is unambiguous: after `run`'s
                // own options and the tensors, as Triton and Numba take them.
                Some(Param::Scalar { .. }) => {
                    let number = arrays::number(&name, &value)?;
                    if launch.scalars.insert(name.clone(), number).is_some() {
                        return Err(twice(&name));
                    }
                    continue;
                }
                None if signature.given_dims().any(|(_, d)| *d == name) => {
                    let extent: i64 = value.extract().map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "the dimension `{name}` takes a whole number, not {}",
                            value
                                .repr()
                                .map_or_else(|_| "?".to_owned(), |r| r.to_string())
                        ))
                    })?;
                    if launch.dims.insert(name.clone(), extent).is_some() {
                        return Err(twice(&name));
                    }
                    continue;
                }
                // Not a parameter or dimension of this kernel: the launch's own check says so,
                // as the command line's does (E0515, naming it).
                None => Input::Zeros,
            };
            launch.inputs.insert(name, input);
        }
        Ok(launch)
    }
}
