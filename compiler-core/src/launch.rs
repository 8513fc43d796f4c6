//! A launch as data: which kernel, the grid, dimension and scalar values, inputs, lanes and
//! backend. The CLI's flags, the playground's share links and the tests all build this one
//! struct, so the same launch means the same run everywhere.
//!
//! In: a [`Launch`] and an IR kernel. Out: the simulator's [`Args`] (tensors made from data or
//! generators, dimensions inferred from data shapes and checked for agreement), or a
//! diagnostic that says what does not fit.

use crate::check::Scalar;
use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::Dim3;
use crate::ir::{DimRef, Kernel, Param};
use crate::sim::{Arg, Args, SimOptions, Tensor};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The version of the launch format, for share links made by older playgrounds.
pub const LAUNCH_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Launch {
    pub version: u32,
    /// The kernel to run; `None` means the file's only kernel.
    pub kernel: Option<String>,
    pub grid: Dim3,
    /// Dimension values given explicitly (others come from the inputs' shapes).
    pub dims: BTreeMap<String, i64>,
    pub scalars: BTreeMap<String, f64>,
    /// Each tensor's initial contents; tensors not named start as zeros.
    pub inputs: BTreeMap<String, Input>,
    /// `ctx.lanes`.
    pub lanes: u32,
    pub warp_mode: WarpMode,
    pub backend: Backend,
    pub step_limit: Option<u64>,
    /// The nodes a kernel under `@cluster` deals its super-tiles to (1: one node runs them
    /// all). Results do not depend on it; which node runs which super-tile does.
    pub nodes: u32,
}

impl Launch {
    /// A launch every kernel accepts, for the robustness tests and the fuzzers: one CTA, each
    /// dimension 8, each scalar 1, zeros in, and a short step limit.
    pub fn smoke(kernel: &Kernel) -> Launch {
        Launch {
            kernel: Some(kernel.name.clone()),
            dims: kernel.dims.iter().map(|d| (d.clone(), 8)).collect(),
            scalars: kernel
                .params
                .iter()
                .filter(|p| matches!(p, Param::Scalar { .. }))
                .map(|p| (p.name().to_owned(), 1.0))
                .collect(),
            step_limit: Some(20_000),
            ..Launch::default()
        }
    }
}

impl Default for Launch {
    fn default() -> Self {
        Self {
            version: LAUNCH_VERSION,
            kernel: None,
            grid: Dim3::new(1, 1, 1),
            dims: BTreeMap::new(),
            scalars: BTreeMap::new(),
            inputs: BTreeMap::new(),
            lanes: 32,
            warp_mode: WarpMode::Subgroups,
            backend: Backend::Sim,
            step_limit: None,
            nodes: 1,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarpMode {
    /// Warps are the GPU's subgroups (when their size is fixed and equals `lanes`).
    #[default]
    Subgroups,
    /// Warps emulated in workgroup memory, any width on any GPU.
    Emulated,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    #[default]
    Sim,
    Gpu,
}

/// A tensor's initial contents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    Zeros,
    Ones,
    /// 0, 1, 2, … in row-major order.
    Iota,
    /// Deterministic pseudo-random values from a seed: floats in [-1, 1), integers in [0, 100).
    Rand(u64),
    Data {
        shape: Vec<usize>,
        values: Vec<f64>,
    },
}

impl FromStr for Input {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "zeros" => Ok(Input::Zeros),
            "ones" => Ok(Input::Ones),
            "iota" => Ok(Input::Iota),
            _ => match text.strip_prefix("rand:").map(str::parse::<u64>) {
                Some(Ok(seed)) => Ok(Input::Rand(seed)),
                _ => Err(format!("`{text}` is not zeros, ones, iota or rand:SEED")),
            },
        }
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Zeros => f.write_str("zeros"),
            Input::Ones => f.write_str("ones"),
            Input::Iota => f.write_str("iota"),
            Input::Rand(seed) => write!(f, "rand:{seed}"),
            Input::Data { shape, .. } => write!(f, "data {shape:?}"),
        }
    }
}

/// The bits of `value` as an element of type `ty`.
pub fn to_bits(value: f64, ty: Scalar) -> u32 {
    match ty {
        Scalar::F32 | Scalar::F16 => (value as f32).to_bits(),
        Scalar::I32 => value as i32 as u32,
        Scalar::U32 => value as u32,
        Scalar::Bool => u32::from(value != 0.0),
    }
}

/// An element's value from its bits.
pub fn from_bits(bits: u32, ty: Scalar) -> f64 {
    match ty {
        Scalar::F32 | Scalar::F16 => f64::from(f32::from_bits(bits)),
        Scalar::I32 => f64::from(bits as i32),
        _ => f64::from(bits),
    }
}

/// SplitMix64: small, fast and the same on every platform.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn generate(input: &Input, element: Scalar, count: usize) -> Vec<u32> {
    match input {
        Input::Zeros => vec![to_bits(0.0, element); count],
        Input::Ones => vec![to_bits(1.0, element); count],
        Input::Iota => (0..count).map(|i| to_bits(i as f64, element)).collect(),
        Input::Rand(seed) => {
            let mut state = *seed;
            (0..count)
                .map(|_| {
                    let r = splitmix(&mut state);
                    match element {
                        Scalar::F32 | Scalar::F16 => {
                            to_bits((r >> 40) as f64 / (1u64 << 23) as f64 - 1.0, element)
                        }
                        _ => (r % 100) as u32,
                    }
                })
                .collect()
        }
        Input::Data { values, .. } => values.iter().map(|v| to_bits(*v, element)).collect(),
    }
}

fn launch_error(message: String) -> Diagnostic {
    Diagnostic::error(Code::E0515, crate::span::Span::empty(0), message)
}

impl Launch {
    /// A launch written as `key=value` words, as the docs' kernel blocks give it:
    /// `launch=NAME` starts from that example's launch, `grid=4` or `grid=4x2`, `lanes=8`,
    /// `steps=1000` (the step limit), `kernel=NAME`, `nodes=4` (for `@cluster`); any other key names one of `kernel`'s parameters or dimensions: a tensor
    /// takes an input (`A=rand:1`), a scalar a number (`alpha=2.5`), a dimension an integer.
    pub fn from_words(words: &[(String, String)], kernel: &Kernel) -> Result<Launch, String> {
        let mut launch = Launch::default();
        for (key, value) in words {
            let bad = || {
                format!(
                    "`{key}={value}` is not a launch setting for `{}`",
                    kernel.name
                )
            };
            let count = |text: &str| text.parse::<u32>().map_err(|_| bad());
            match key.as_str() {
                "launch" => {
                    launch = crate::examples::find(value)
                        .map(|e| e.launch)
                        .ok_or_else(|| {
                            format!("there is no example `{value}` to take a launch from")
                        })?;
                }
                "grid" => {
                    let (x, y) = value.split_once('x').unwrap_or((value, "1"));
                    launch.grid = Dim3::new(count(x)?, count(y)?, 1);
                }
                "lanes" => launch.lanes = count(value)?,
                "steps" => launch.step_limit = Some(u64::from(count(value)?)),
                "nodes" => launch.nodes = count(value)?.max(1),
                "kernel" => launch.kernel = Some(value.clone()),
                name if kernel.dims.iter().any(|d| d == name) => {
                    let n = value.parse::<i64>().map_err(|_| bad())?;
                    launch.dims.insert(name.to_owned(), n);
                }
                name => match kernel.param_index(name).map(|i| &kernel.params[i]) {
                    Some(Param::Tensor { .. }) => {
                        launch
                            .inputs
                            .insert(name.to_owned(), value.parse::<Input>().map_err(|_| bad())?);
                    }
                    Some(Param::Scalar { .. }) => {
                        launch
                            .scalars
                            .insert(name.to_owned(), value.parse::<f64>().map_err(|_| bad())?);
                    }
                    None => return Err(bad()),
                },
            }
        }
        Ok(launch)
    }

    /// How many elements the launch's tensors hold together, without allocating them: what a
    /// host with little memory (a browser tab) checks before binding.
    pub fn tensor_elements(&self, kernel: &Kernel) -> Result<u64, String> {
        let dims = self.dimension_values(kernel)?;
        let mut total = 0u64;
        for param in &kernel.params {
            if let Param::Tensor { dims: extents, .. } = param {
                let count = extents.iter().fold(1u64, |n, d| {
                    n.saturating_mul(match d {
                        DimRef::Literal(e) => u64::from(*e),
                        DimRef::Dim(i) => dims.get(*i).map_or(0, |v| (*v).max(0) as u64),
                    })
                });
                total = total.saturating_add(count);
            }
        }
        Ok(total)
    }

    pub fn sim_options(&self) -> SimOptions {
        SimOptions {
            lanes: self.lanes,
            step_limit: self.step_limit.unwrap_or(SimOptions::default().step_limit),
        }
    }

    /// The simulator's arguments for `kernel`, or what does not fit. `span` is the kernel's, so
    /// the error points at it.
    pub fn bind(&self, kernel: &Kernel) -> Result<Args, Diagnostic> {
        let at = |d: Diagnostic| Diagnostic {
            span: crate::span::Span::new(kernel.span.start, kernel.span.start),
            ..d
        };
        self.bind_inner(kernel)
            .map_err(|message| at(launch_error(message)))
    }

    fn bind_inner(&self, kernel: &Kernel) -> Result<Args, String> {
        if self.grid.volume() == 0 {
            return Err(format!(
                "the grid {} x {} x {} has no CTAs",
                self.grid.x, self.grid.y, self.grid.z
            ));
        }
        if !(1..=crate::hierarchy::MAX_LANES).contains(&self.lanes) {
            return Err(format!(
                "a warp has 1 to {} lanes, not {}",
                crate::hierarchy::MAX_LANES,
                self.lanes
            ));
        }
        for name in self.inputs.keys().chain(self.scalars.keys()) {
            if kernel.param_index(name).is_none() {
                return Err(format!(
                    "kernel `{}` has no parameter `{name}`",
                    kernel.name
                ));
            }
        }
        let dims = self.dimension_values(kernel)?;
        let mut params = Vec::new();
        for param in &kernel.params {
            match param {
                Param::Scalar { name, ty } => {
                    let Some(value) = self.scalars.get(name) else {
                        return Err(format!(
                            "the scalar `{name}: {}` has no value: give --scalar {name}=V",
                            ty.name()
                        ));
                    };
                    params.push(Arg::Scalar(to_bits(*value, *ty)));
                }
                Param::Tensor {
                    name,
                    element,
                    dims: extents,
                } => {
                    let shape: Vec<usize> = extents
                        .iter()
                        .map(|d| match d {
                            DimRef::Literal(n) => *n as usize,
                            DimRef::Dim(i) => dims[*i] as usize,
                        })
                        .collect();
                    let count: usize = shape.iter().product();
                    if count > MAX_ELEMENTS {
                        return Err(format!("`{name}` would have {count} elements; a launch holds at most {MAX_ELEMENTS} per tensor"));
                    }
                    let input = self.inputs.get(name).unwrap_or(&Input::Zeros);
                    if let Input::Data { values, .. } = input {
                        if values.len() != count {
                            return Err(format!(
                                "`{name}` has {} values for a shape of {count} elements",
                                values.len()
                            ));
                        }
                    }
                    params.push(Arg::Tensor(Tensor {
                        element: *element,
                        shape,
                        bits: generate(input, *element, count),
                    }));
                }
            }
        }
        Ok(Args {
            grid: self.grid,
            dims,
            params,
        })
    }

    /// Each dimension's value: given explicitly or read from a data input's shape; every source
    /// must agree.
    fn dimension_values(&self, kernel: &Kernel) -> Result<Vec<i32>, String> {
        let mut values: Vec<Option<(i64, String)>> = kernel
            .dims
            .iter()
            .map(|name| self.dims.get(name).map(|v| (*v, "--dim".to_owned())))
            .collect();
        for param in &kernel.params {
            let Param::Tensor { name, dims, .. } = param else {
                continue;
            };
            let Some(Input::Data { shape, .. }) = self.inputs.get(name) else {
                continue;
            };
            if shape.len() != dims.len() {
                return Err(format!(
                    "`{name}` has rank {} but its input has rank {} (shape {shape:?})",
                    dims.len(),
                    shape.len()
                ));
            }
            for (axis, (dim, &extent)) in dims.iter().zip(shape).enumerate() {
                match dim {
                    DimRef::Literal(n) if *n as usize != extent => {
                        return Err(format!(
                            "axis {axis} of `{name}` is {n}, but its input's is {extent}"
                        ));
                    }
                    DimRef::Literal(_) => {}
                    DimRef::Dim(i) => {
                        let dim_name = &kernel.dims[*i];
                        match &values[*i] {
                            Some((value, source)) if *value != extent as i64 => {
                                return Err(format!(
                                    "dimension {dim_name} is {value} from {source} but {extent} from the shape of `{name}`"
                                ));
                            }
                            Some(_) => {}
                            None => {
                                values[*i] = Some((extent as i64, format!("the shape of `{name}`")))
                            }
                        }
                    }
                }
            }
        }
        kernel
            .dims
            .iter()
            .zip(values)
            .map(|(name, value)| match value {
                Some((v, _)) if (0..=i64::from(i32::MAX)).contains(&v) => Ok(v as i32),
                Some((v, _)) => Err(format!(
                    "dimension {name} is {v}; it must be from 0 to {}",
                    i32::MAX
                )),
                None => Err(format!(
                    "dimension {name} has no value: give --dim {name}=V or an input with data"
                )),
            })
            .collect()
    }
}

/// The most elements one tensor of a launch may have (64 Mi: 256 MiB of f32), so a typo in a
/// dimension cannot exhaust a browser's memory.
pub const MAX_ELEMENTS: usize = 1 << 26;
