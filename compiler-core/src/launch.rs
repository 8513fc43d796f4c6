//! A launch as data: which kernel, the grid, dimension and scalar values, inputs, lanes, the
//! step limit and the nodes. The CLI's flags, the playground's share links, the docs and the
//! tests all build this one struct, so the same launch means the same run everywhere.
//!
//! In: a [`Launch`], an IR kernel and the host's [`RunLimits`]. Out: a [`PreparedRun`] (the
//! kernel, the sizes checked, the simulator's [`Args`] built once: tensors made from data or
//! generators, dimensions inferred from data shapes and checked for agreement) that runs on
//! the simulator or, through its WGSL, on a GPU; or a diagnostic that says what does not fit.

use crate::cluster;
use crate::diagnostic::{Code, Diagnostic};
use crate::hierarchy::Dim3;
use crate::ir::Scalar;
use crate::ir::{DimRef, Kernel, Param, Size};
use crate::ptx;
use crate::sim::{
    self, Arg, Args, CtaOrder, MemoryProfile, Observers, Progress, SimOptions, Tensor, Trace,
    TraceLimits,
};
use crate::span::Span;
use crate::syntax::ast;
pub use crate::target::MAX_ELEMENTS;
use crate::wgsl::{self, WarpMode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

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
    /// Statement executions per CTA before the simulator stops the run (E0514); `None`: the
    /// host's default ([`RunLimits`]).
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
            step_limit: None,
            nodes: 1,
        }
    }
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

impl Input {
    /// What the input fills a tensor with, in a phrase, for the page and the CLI's help.
    pub fn describe(&self) -> String {
        match self {
            Input::Zeros => "every element 0".to_owned(),
            Input::Ones => "every element 1".to_owned(),
            Input::Iota => "0, 1, 2, … in row-major order".to_owned(),
            Input::Rand(seed) => format!(
                "pseudo-random from seed {seed}, the same every run: floats in [-1, 1), integers 0 to 99"
            ),
            Input::Data { shape, .. } => format!("data of shape {shape:?}"),
        }
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
        Input::Zeros => vec![element.bits(0.0); count],
        Input::Ones => vec![element.bits(1.0); count],
        Input::Iota => (0..count).map(|i| element.bits(i as f64)).collect(),
        Input::Rand(seed) => {
            let mut state = *seed;
            (0..count)
                .map(|_| {
                    let r = splitmix(&mut state);
                    match element {
                        Scalar::F32 | Scalar::F16 => {
                            element.bits((r >> 40) as f64 / (1u64 << 23) as f64 - 1.0)
                        }
                        _ => (r % 100) as u32,
                    }
                })
                .collect()
        }
        Input::Data { values, .. } => values.iter().map(|v| element.bits(*v)).collect(),
    }
}

/// The part of a launch a problem concerns: where the playground shows it, beside its field.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "kebab-case")]
pub enum LaunchField {
    Grid,
    Lanes,
    /// A dimension, by name.
    Dim(String),
    /// A scalar parameter, by name.
    Scalar(String),
    /// A tensor parameter's input, by name.
    Input(String),
    /// The launch as a whole: its tensors together.
    Size,
}

/// What does not fit in a launch, and where.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LaunchProblem {
    pub field: LaunchField,
    pub message: String,
    pub help: Option<String>,
}

impl LaunchProblem {
    fn new(field: LaunchField, message: String) -> Self {
        Self {
            field,
            message,
            help: None,
        }
    }

    fn with_help(self, help: impl Into<String>) -> Self {
        Self {
            help: Some(help.into()),
            ..self
        }
    }

    /// The problem as a diagnostic (E0515) for a terminal: pointed at what it concerns in the
    /// kernel's signature (`signature`, the kernel's source; a parameter's name, a
    /// dimension's first use, or the kernel's name for the grid, the lanes, the size and a name
    /// the kernel lacks), its label naming the `tessera run` flag that sets it. The message and
    /// the help are the problem's, which the playground shows beside its field. Without the
    /// signature, it points at the start of `kernel`.
    pub fn to_diagnostic(&self, kernel: &Kernel, signature: Option<&ast::Kernel>) -> Diagnostic {
        let Some(signature) = signature else {
            let diagnostic =
                Diagnostic::error(Code::E0515, Span::empty(kernel.span.start), &self.message);
            return self.with_help_of(diagnostic);
        };
        // A parameter's name, and whether it is a tensor.
        let param = |name: &str| {
            signature
                .params
                .iter()
                .find(|p| p.name.name == name)
                .map(|p| (p.name.span, matches!(p.ty, ast::TypeExpr::Tensor { .. })))
        };
        // A dimension's first use: an extent of its own, or a name in a derived extent's
        // expression (`K / 2`).
        let dim = |name: &str| {
            signature.params.iter().find_map(|p| match &p.ty {
                ast::TypeExpr::Tensor { dims, .. } => dims.iter().find_map(|d| match d {
                    ast::Dim::Name(id) if id.name == name => Some(id.span),
                    ast::Dim::Expr(e) => e
                        .names()
                        .into_iter()
                        .find(|id| id.name == name)
                        .map(|id| id.span),
                    _ => None,
                }),
                _ => None,
            })
        };
        let kernel_name = signature.name.span;
        let (span, label) = match &self.field {
            LaunchField::Grid => (
                kernel_name,
                "its grid is set by `--grid X[,Y[,Z]]`".to_owned(),
            ),
            LaunchField::Lanes => (
                kernel_name,
                "its warp width is set by `--lanes N`".to_owned(),
            ),
            LaunchField::Size => (
                kernel_name,
                "its tensors' sizes come from `--dim` and the inputs' shapes".to_owned(),
            ),
            LaunchField::Dim(name) => match dim(name) {
                Some(span) => (span, format!("set by `--dim {name}=…` or an input's shape")),
                None => (
                    kernel_name,
                    format!("`--dim {name}=…` names no dimension of this kernel"),
                ),
            },
            LaunchField::Scalar(name) => match param(name) {
                Some((span, false)) => (span, format!("set by `--scalar {name}=…`")),
                Some((span, true)) => (
                    span,
                    format!("a tensor: its contents are set by `--in {name}=…`"),
                ),
                None => (
                    kernel_name,
                    format!("`--scalar {name}=…` names no parameter of this kernel"),
                ),
            },
            LaunchField::Input(name) => match param(name) {
                Some((span, true)) => (span, format!("set by `--in {name}=…`")),
                Some((span, false)) => (
                    span,
                    format!("a scalar: its value is set by `--scalar {name}=…`"),
                ),
                None => (
                    kernel_name,
                    format!("`--in {name}=…` names no parameter of this kernel"),
                ),
            },
        };
        self.with_help_of(Diagnostic::error(Code::E0515, span, &self.message).with_label(label))
    }

    fn with_help_of(&self, diagnostic: Diagnostic) -> Diagnostic {
        match &self.help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        }
    }
}

impl Launch {
    /// Everything that keeps this launch from running `kernel` within `limits`, each at its
    /// field; empty when it fits. Nothing is allocated: a host checks before it binds, and the
    /// playground checks as the launch is edited.
    pub fn problems(&self, kernel: &Kernel, limits: RunLimits) -> Vec<LaunchProblem> {
        let mut problems = Vec::new();
        if self.grid.volume() == 0 {
            problems.push(LaunchProblem::new(
                LaunchField::Grid,
                format!(
                    "the grid {} x {} x {} has no CTAs: every extent must be at least 1",
                    self.grid.x, self.grid.y, self.grid.z
                ),
            ));
        }
        if !(1..=crate::hierarchy::MAX_LANES).contains(&self.lanes) {
            problems.push(LaunchProblem::new(
                LaunchField::Lanes,
                format!(
                    "a warp has 1 to {} lanes, not {}",
                    crate::hierarchy::MAX_LANES,
                    self.lanes
                ),
            ));
        }
        let widest = kernel.widest_warp();
        if self.lanes > widest && self.lanes <= crate::hierarchy::MAX_LANES {
            problems.push(
                LaunchProblem::new(
                    LaunchField::Lanes,
                    format!(
                        "kernel `{}` takes a ballot, one u32 bit a lane: its warps have at most {widest} lanes, not {}",
                        kernel.name, self.lanes
                    ),
                )
                .with_help(format!("run it with ctx.lanes = {widest} or fewer")),
            );
        }
        let param = |name: &str| kernel.param_index(name).map(|i| &kernel.params[i]);
        let params = |scalars: bool| -> Vec<&str> {
            kernel
                .params
                .iter()
                .filter(|p| matches!(p, Param::Scalar { .. }) == scalars)
                .map(Param::name)
                .collect()
        };
        // A name the kernel lacks, or has as something else: the help lists its names of the
        // kind the flag sets.
        let misnamed = |field: LaunchField, message: String, kind: &str, names: Vec<&str>| {
            let help = if names.is_empty() {
                format!("kernel `{}` has no {kind}", kernel.name)
            } else {
                format!("its {kind} are {}", names.join(", "))
            };
            LaunchProblem::new(field, message).with_help(help)
        };
        let unknown = |name: &str| format!("kernel `{}` has no parameter `{name}`", kernel.name);
        for name in self.inputs.keys() {
            let message = match param(name) {
                Some(Param::Tensor { .. }) => continue,
                Some(Param::Scalar { .. }) => format!("`{name}` is a scalar, not a tensor"),
                None => unknown(name),
            };
            let field = LaunchField::Input(name.clone());
            problems.push(misnamed(field, message, "tensors", params(false)));
        }
        for name in self.scalars.keys() {
            let message = match param(name) {
                Some(Param::Scalar { .. }) => continue,
                Some(Param::Tensor { .. }) => format!("`{name}` is a tensor, not a scalar"),
                None => unknown(name),
            };
            let field = LaunchField::Scalar(name.clone());
            problems.push(misnamed(field, message, "scalars", params(true)));
        }
        // A derived extent (`L - KS + 1`) is computed, never given.
        let given: Vec<&str> = kernel.given_dims().map(|(_, n)| n.as_str()).collect();
        for name in self.dims.keys().filter(|n| !given.contains(&n.as_str())) {
            let message = format!("kernel `{}` has no dimension {name}", kernel.name);
            let dims = given.clone();
            problems.push(misnamed(
                LaunchField::Dim(name.clone()),
                message,
                "dimensions",
                dims,
            ));
        }
        for param in &kernel.params {
            if let Param::Scalar { name, ty } = param {
                match self.scalars.get(name) {
                    None => problems.push(
                        LaunchProblem::new(
                            LaunchField::Scalar(name.clone()),
                            format!("the scalar `{name}: {}` has no value", ty.name()),
                        )
                        .with_help(format!(
                            "give it one (on the command line: --scalar {name}=V)"
                        )),
                    ),
                    Some(&value) if ty.is_integer() && value.fract() != 0.0 => problems.push(
                        LaunchProblem::new(
                            LaunchField::Scalar(name.clone()),
                            format!(
                                "the scalar `{name}: {}` takes an integer, not {value}",
                                ty.name()
                            ),
                        )
                        .with_help(if value.is_finite() {
                            format!(
                                "give it an integer (on the command line: --scalar {name}={})",
                                value.trunc()
                            )
                        } else {
                            format!("give it an integer (on the command line: --scalar {name}=N)")
                        }),
                    ),
                    Some(_) => {}
                }
            }
        }
        let dims = match self.dimension_values(kernel) {
            Ok(dims) => dims,
            Err(found) => {
                problems.extend(found);
                return problems;
            }
        };
        let mut total = 0u64;
        for (param, shape) in kernel.params.iter().zip(tensor_shapes(kernel, &dims)) {
            let (Param::Tensor { name, .. }, Some(shape)) = (param, shape) else {
                continue;
            };
            let count = shape.iter().fold(1u64, |n, &e| n.saturating_mul(e as u64));
            total = total.saturating_add(count);
            let field = || LaunchField::Input(name.clone());
            if count > MAX_ELEMENTS as u64 {
                problems.push(LaunchProblem::new(
                    field(),
                    format!("`{name}` would have {count} elements; a launch holds at most {MAX_ELEMENTS} per tensor"),
                ));
            } else if let Some(Input::Data { values, .. }) = self.inputs.get(name) {
                if values.len() as u64 != count {
                    problems.push(LaunchProblem::new(
                        field(),
                        format!(
                            "`{name}` has {} values for a shape of {count} elements",
                            values.len()
                        ),
                    ));
                }
            }
        }
        if total > limits.max_elements {
            problems.push(
                LaunchProblem::new(
                    LaunchField::Size,
                    format!(
                        "the tensors would hold {total} elements together; {} holds at most {}",
                        limits.host, limits.max_elements
                    ),
                )
                .with_help(limits.larger),
            );
        }
        problems
    }

    /// The simulator's arguments for `kernel`, for a launch without [`Launch::problems`].
    fn bind(&self, kernel: &Kernel) -> Args {
        let dims = self.dimension_values(kernel).unwrap_or_default();
        let params = kernel
            .params
            .iter()
            .zip(tensor_shapes(kernel, &dims))
            .map(|(param, shape)| match param {
                Param::Scalar { name, ty } => {
                    Arg::Scalar(ty.bits(self.scalars.get(name).copied().unwrap_or(0.0)))
                }
                Param::Tensor { name, element, .. } => {
                    let shape = shape.unwrap_or_default();
                    let count = shape.iter().product();
                    let input = self.inputs.get(name).unwrap_or(&Input::Zeros);
                    Arg::Tensor(Tensor {
                        element: *element,
                        shape,
                        bits: generate(input, *element, count),
                    })
                }
            })
            .collect();
        Args {
            grid: self.grid,
            dims,
            params,
        }
    }

    /// Each dimension's value: given explicitly or read from a data input's shape; every source
    /// must agree.
    fn dimension_values(&self, kernel: &Kernel) -> Result<Vec<i32>, Vec<LaunchProblem>> {
        let mut values: Vec<Option<(i64, String)>> = kernel
            .dims
            .iter()
            .enumerate()
            .map(|(i, name)| match kernel.is_derived(i) {
                true => None,
                false => self.dims.get(name).map(|v| (*v, "--dim".to_owned())),
            })
            .collect();
        for param in &kernel.params {
            let Param::Tensor { name, dims, .. } = param else {
                continue;
            };
            let Some(Input::Data { shape, .. }) = self.inputs.get(name) else {
                continue;
            };
            let field = || LaunchField::Input(name.clone());
            if shape.len() != dims.len() {
                return Err(vec![LaunchProblem::new(
                    field(),
                    format!(
                        "`{name}` has rank {} but its input has rank {} (shape {shape:?})",
                        dims.len(),
                        shape.len()
                    ),
                )]);
            }
            for (axis, (dim, &extent)) in dims.iter().zip(shape).enumerate() {
                match dim {
                    DimRef::Literal(n) if *n as usize != extent => {
                        return Err(vec![LaunchProblem::new(
                            field(),
                            format!("axis {axis} of `{name}` is {n}, but its input's is {extent}"),
                        )]);
                    }
                    DimRef::Literal(_) => {}
                    DimRef::Dim(i) => {
                        let dim_name = &kernel.dims[*i];
                        match &values[*i] {
                            Some((value, source)) if *value != extent as i64 => {
                                return Err(vec![LaunchProblem::new(
                                    LaunchField::Dim(dim_name.clone()),
                                    format!(
                                        "dimension {dim_name} is {value} from {source} but {extent} from the shape of `{name}`"
                                    ),
                                )]);
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
        let scalars: Vec<Option<i64>> = kernel
            .params
            .iter()
            .map(|p| match p {
                Param::Scalar {
                    name,
                    ty: Scalar::I32 | Scalar::U32,
                } => self.scalars.get(name).map(|v| *v as i64),
                _ => None,
            })
            .collect();
        derive_dims(kernel, &mut values, &scalars)?;
        let (mut found, mut problems) = (Vec::new(), Vec::new());
        for (i, (name, value)) in kernel.dims.iter().zip(values).enumerate() {
            let field = dim_field(kernel, i);
            match value {
                Some((v, _)) if (0..=i64::from(i32::MAX)).contains(&v) => found.push(v as i32),
                Some((v, source)) => {
                    let what = match kernel.is_derived(i) {
                        true => format!("the extent {name} is {v} ({source})"),
                        false => format!("dimension {name} is {v}"),
                    };
                    problems.push(LaunchProblem::new(
                        field,
                        format!("{what}; it must be from 0 to {}", i32::MAX),
                    ))
                }
                // A derived extent without a value lacks one of its operands, whose own
                // problem says so: one error, at the dimension to give.
                None if kernel.is_derived(i) => {}
                None => problems.push(
                    LaunchProblem::new(field, format!("dimension {name} has no value")).with_help(
                        format!(
                        "give it one (on the command line: --dim {name}=V, or an input with data)"
                    ),
                    ),
                ),
            }
        }
        if problems.is_empty() {
            Ok(found)
        } else {
            Err(problems)
        }
    }
}

/// Computes the derived dimensions from the named ones in `values`, each checked against the
/// value a data input's shape gave it, if any. One whose operands have no value yet is left
/// unset: the named dimension's own problem says so.
/// `scalars` is each parameter's integer value, where it is an integer scalar with one.
pub(crate) fn derive_dims(
    kernel: &Kernel,
    values: &mut [Option<(i64, String)>],
    scalars: &[Option<i64>],
) -> Result<(), Vec<LaunchProblem>> {
    let given: Vec<Option<i64>> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_ref()
                .filter(|_| !kernel.is_derived(i))
                .map(|(v, _)| *v)
        })
        .collect();
    for derived in &kernel.derived {
        let name = &kernel.dims[derived.dim];
        let field = || dim_field(kernel, derived.dim);
        let operands = derived.size.dims();
        let scalar_operands = derived.size.scalars();
        let scalar = |i: usize| scalars.get(i).copied().flatten();
        if operands.iter().any(|&d| given[d].is_none())
            || scalar_operands.iter().any(|&i| scalar(i).is_none())
        {
            continue;
        }
        let value = derived
            .size
            .evaluate(&mut |leaf| match leaf {
                Size::Dim(d) => Ok(given[*d].unwrap_or(0)),
                Size::Scalar(i) => Ok(scalar(*i).unwrap_or(0)),
                _ => Ok(0),
            })
            .map_err(|message| {
                vec![LaunchProblem::new(
                    field(),
                    format!("the extent {name}: {message}"),
                )]
            })?;
        let mut bound: Vec<String> = operands
            .iter()
            .map(|&d| format!("{} = {}", kernel.dims[d], given[d].unwrap_or(0)))
            .collect();
        for &i in &scalar_operands {
            let text = format!("{} = {}", kernel.params[i].name(), scalar(i).unwrap_or(0));
            if !bound.contains(&text) {
                bound.push(text);
            }
        }
        match &values[derived.dim] {
            Some((from_shape, source)) if *from_shape != value => {
                return Err(vec![LaunchProblem::new(
                    field(),
                    format!(
                        "the extent {name} is {value} ({}) but {from_shape} from {source}",
                        bound.join(", ")
                    ),
                )]);
            }
            _ => values[derived.dim] = Some((value, bound.join(", "))),
        }
    }
    Ok(())
}

/// Where a dimension's problem shows: its own field, or for a derived one the field of the
/// first dimension it is computed from (the one to change).
fn dim_field(kernel: &Kernel, dim: usize) -> LaunchField {
    let Some(derived) = kernel.derived.iter().find(|d| d.dim == dim) else {
        return LaunchField::Dim(kernel.dims[dim].clone());
    };
    match (derived.size.dims().first(), derived.size.scalars().first()) {
        (Some(&shown), _) => LaunchField::Dim(kernel.dims[shown].clone()),
        // An extent of scalars only (`tensor<f32>[ks]`): the scalar is the field to change.
        (None, Some(&param)) => LaunchField::Scalar(kernel.params[param].name().to_owned()),
        (None, None) => LaunchField::Dim(kernel.dims[dim].clone()),
    }
}

/// The elements a fitted launch gives its new dimensions at most, all tensors together: a
/// default that runs at once anywhere, the browser tab included.
const FITTED_ELEMENTS: u64 = 1 << 20;

impl Launch {
    /// This launch made to fit `kernel`, whose signature may have changed since the launch was
    /// made (a kernel pasted over another, a parameter renamed, a share link whose launch and
    /// source disagree); `previous` is the kernel the launch was made for, when known. What
    /// still applies is kept; what names nothing of the kernel is dropped; a dimension or a
    /// scalar without a value gets one that runs: a dimension sized to the grid (`grid.x` × the
    /// CTA's threads, halved while the tensors would hold more than 2^20 elements), a scalar 1.
    /// A tensor new since `previous` gets random values (`rand:` its position + 1) when the
    /// kernel only reads it; a tensor the launch does not name starts as zeros, as always.
    /// Fitting a fitted launch changes nothing.
    pub fn fitted_to(&self, kernel: &Kernel, previous: Option<&Kernel>) -> Launch {
        let mut launch = self.clone();
        let param = |name: &str| kernel.param_index(name).map(|i| &kernel.params[i]);
        launch
            .dims
            .retain(|name, _| kernel.given_dims().any(|(_, given)| given == name));
        launch
            .scalars
            .retain(|name, _| matches!(param(name), Some(Param::Scalar { .. })));
        launch
            .inputs
            .retain(|name, input| match (param(name), input) {
                (Some(Param::Tensor { dims, .. }), Input::Data { shape, .. }) => {
                    shape.len() == dims.len()
                }
                (Some(Param::Tensor { .. }), _) => true,
                _ => false,
            });
        let written = kernel.written_tensors();
        let was_a_tensor = |name: &str| {
            previous.is_some_and(|p| {
                matches!(
                    p.param_index(name).map(|i| &p.params[i]),
                    Some(Param::Tensor { .. })
                )
            })
        };
        for (index, param) in kernel.params.iter().enumerate() {
            match param {
                Param::Scalar { name, .. } => {
                    launch.scalars.entry(name.clone()).or_insert(1.0);
                }
                Param::Tensor { name, .. } => {
                    let new = previous.is_some() && !was_a_tensor(name);
                    if new && !written.contains(&index) {
                        launch
                            .inputs
                            .entry(name.clone())
                            .or_insert(Input::Rand(index as u64 + 1));
                    }
                }
            }
        }
        let from_data = launch.dims_from_data(kernel);
        let missing: Vec<&String> = kernel
            .given_dims()
            .map(|(_, name)| name)
            .filter(|name| !launch.dims.contains_key(*name) && !from_data.contains(name))
            .collect();
        if missing.is_empty() {
            return launch;
        }
        let mut size = (i64::from(self.grid.x) * i64::from(kernel.threads)).max(1);
        loop {
            for name in &missing {
                launch.dims.insert((*name).clone(), size);
            }
            let elements = launch.dimension_values(kernel).map(|dims| {
                tensor_shapes(kernel, &dims)
                    .flatten()
                    .map(|shape| shape.iter().product::<usize>() as u64)
                    .sum::<u64>()
            });
            if size == 1 || elements.is_ok_and(|n| n <= FITTED_ELEMENTS) {
                return launch;
            }
            size = (size / 2).max(1);
        }
    }

    /// The dimensions a data input's shape gives.
    fn dims_from_data(&self, kernel: &Kernel) -> Vec<String> {
        let mut names = Vec::new();
        for param in &kernel.params {
            if let Param::Tensor { name, dims, .. } = param {
                if let Some(Input::Data { .. }) = self.inputs.get(name) {
                    names.extend(dims.iter().filter_map(|d| match d {
                        DimRef::Dim(i) => kernel.dims.get(*i).cloned(),
                        DimRef::Literal(_) => None,
                    }));
                }
            }
        }
        names
    }
}

/// Each parameter's shape for these dimension values (`None` for a scalar).
fn tensor_shapes<'k>(
    kernel: &'k Kernel,
    dims: &'k [i32],
) -> impl Iterator<Item = Option<Vec<usize>>> + 'k {
    kernel.params.iter().map(move |param| match param {
        Param::Scalar { .. } => None,
        Param::Tensor { dims: extents, .. } => Some(
            extents
                .iter()
                .map(|d| match d {
                    DimRef::Literal(n) => *n as usize,
                    DimRef::Dim(i) => dims.get(*i).map_or(0, |v| (*v).max(0) as usize),
                })
                .collect(),
        ),
    })
}

/// What a host allows one run: the terminal, or a browser tab. The one place that knows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunLimits {
    /// Elements of all the launch's tensors together, checked before any is allocated (each
    /// tensor is also held to [`MAX_ELEMENTS`]).
    pub max_elements: u64,
    /// When the launch sets no step limit: statement executions per CTA times the CTA's
    /// threads. The time a step takes grows with the threads that run it, so a budget of
    /// thread-statements stops a runaway loop after about the same time in any CTA.
    pub step_budget: u64,
    /// Who runs it, for messages: "a run in the page".
    pub host: &'static str,
    /// What to do about a launch over `max_elements`, for the diagnostic's help.
    pub larger: &'static str,
}

impl RunLimits {
    /// `tessera run` and the tests: tensors up to [`MAX_ELEMENTS`] each, and 2^27
    /// thread-statements per CTA (4 M statements for 32 threads, 131 K for 1024), which an
    /// endless loop reaches in about 0.4 s in a release build and 8 s in a debug build
    /// (BENCHMARKS.md); `--step-limit` sets another.
    pub const TERMINAL: RunLimits = RunLimits {
        max_elements: u64::MAX,
        step_budget: 1 << 27,
        host: "a run from the command line",
        larger: "make the dimensions smaller",
    };
    /// A run in a browser tab, in the playground's simulator worker: 64 MB of tensors (three
    /// times that with the inputs kept and the writers recorded, and once more in the page
    /// after the reply), and 2^29 thread-statements per CTA (2 M statements for 256 threads,
    /// about two seconds in the browser).
    pub const PAGE: RunLimits = RunLimits {
        max_elements: 16 << 20,
        step_budget: 1 << 29,
        host: "a run in the page",
        larger: "make the dimensions smaller here, or run the same launch from a terminal with `tessera run`",
    };

    /// The step limit of a CTA of `threads` threads, when the launch sets none.
    pub fn step_limit(self, threads: u32) -> u64 {
        (self.step_budget / u64::from(threads.max(1))).max(1)
    }
}

/// What a simulated run produced: every parameter as the kernel left it, and statistics.
pub struct RunOutput {
    pub args: Args,
    pub stats: sim::Stats,
    /// Who wrote each element last, when the run recorded it ([`PreparedRun::simulate_recording`];
    /// not for a kernel under `@cluster`, whose super-tiles are separate launches).
    pub writers: Option<sim::Writers>,
    /// The super-tiles and their nodes, for a kernel under `@cluster`.
    pub cluster: Option<cluster::ClusterRun>,
}

impl RunOutput {
    /// The tensors `kernel` writes that this recorded run left partly unwritten, each as
    /// "`Y`: 24 of the 40 elements are never written (the first at flat index 16)": a launch too
    /// small for its data leaves the rest as it was, which a reader takes for a result. `None`
    /// when the run recorded no writers.
    pub fn unwritten(&self, kernel: &Kernel) -> Option<Vec<String>> {
        let writers = self.writers.as_ref()?;
        Some(
            kernel
                .written_tensors()
                .into_iter()
                .filter_map(|i| {
                    let missed: Vec<usize> = writers
                        .get(i)?
                        .iter()
                        .enumerate()
                        .filter(|&(_, &w)| w == 0)
                        .map(|(e, _)| e)
                        .collect();
                    let first = *missed.first()?;
                    Some(format!(
                        "`{}`: {} of the {} elements are never written (the first at flat index {first})",
                        kernel.params[i].name(),
                        missed.len(),
                        writers[i].len()
                    ))
                })
                .collect(),
        )
    }
}

/// A run and the trace of one of its CTAs ([`PreparedRun::simulate_traced`]).
pub struct Traced {
    pub output: Result<RunOutput, Diagnostic>,
    pub trace: Trace,
}

/// A run with its memory requests counted ([`PreparedRun::simulate_profiled`]).
pub struct Profiled {
    pub output: Result<RunOutput, Diagnostic>,
    /// `Err`: why nothing was counted.
    pub profile: Result<MemoryProfile, String>,
}

/// A launch checked against its kernel once and its arguments built once: it runs on the
/// simulator ([`PreparedRun::simulate`]) and gives the WGSL a GPU runs it with
/// ([`PreparedRun::wgsl`]), as often as wanted.
pub struct PreparedRun<'k> {
    pub kernel: &'k Kernel,
    /// The arguments before the run: the inputs as the launch made them.
    pub args: Args,
    /// `ctx.lanes`, and the step limit (the host's default when the launch sets none).
    pub options: SimOptions,
    /// The nodes a kernel under `@cluster` deals its super-tiles to.
    pub nodes: usize,
    /// Told each time a CTA finishes (of [`PreparedRun::ctas`]), from any of the run's threads.
    pub progress: Option<Arc<dyn Fn(u64) + Send + Sync>>,
}

impl<'k> PreparedRun<'k> {
    /// `signature` is the kernel's source, where a launch's problems are pointed.
    pub(crate) fn new(
        kernel: &'k Kernel,
        launch: &Launch,
        limits: RunLimits,
        signature: Option<&ast::Kernel>,
    ) -> Result<Self, Vec<Diagnostic>> {
        // Before anything is allocated: a typo in a dimension must not exhaust a tab's memory.
        let problems = launch.problems(kernel, limits);
        if !problems.is_empty() {
            return Err(problems
                .iter()
                .map(|p| p.to_diagnostic(kernel, signature))
                .collect());
        }
        Ok(Self {
            kernel,
            args: launch.bind(kernel),
            options: SimOptions {
                lanes: launch.lanes,
                step_limit: launch
                    .step_limit
                    .unwrap_or_else(|| limits.step_limit(kernel.threads)),
                threads: 1,
                order: CtaOrder::Grid,
            },
            nodes: launch.nodes.max(1) as usize,
            progress: None,
        })
    }

    /// The CTAs a simulated run runs: the grid's, once per super-tile under `@cluster`.
    pub fn ctas(&self) -> u64 {
        let grid = self.args.grid;
        let per_grid = u64::from(grid.x) * u64::from(grid.y) * u64::from(grid.z);
        match self.kernel.cluster {
            Some(_) => per_grid * cluster::plan(self.kernel, &self.args, self.nodes).len() as u64,
            None => per_grid,
        }
    }

    /// What a run with `options` reports to: the writers, and the progress, except for the
    /// run again in grid order after a race ([`Self::in_either_order`], on fewer
    /// threads than the launch's), whose CTAs the first run counted already.
    fn observers<'o>(
        &'o self,
        options: SimOptions,
        writers: Option<&'o mut sim::Writers>,
    ) -> Observers<'o> {
        let again = options.threads < self.options.threads;
        Observers {
            writers,
            progress: self
                .progress
                .as_deref()
                .filter(|_| !again)
                .map(|p| p as Progress),
        }
    }

    /// Runs on the simulator.
    pub fn simulate(&self) -> Result<RunOutput, Diagnostic> {
        self.simulate_with(false)
    }

    /// Runs on the simulator, recording which thread wrote each element last.
    pub fn simulate_recording(&self) -> Result<RunOutput, Diagnostic> {
        self.simulate_with(true)
    }

    fn simulate_with(&self, record: bool) -> Result<RunOutput, Diagnostic> {
        if self.kernel.cluster.is_some() {
            return self.simulate_cluster();
        }
        let run = |options: SimOptions| {
            let mut args = self.args.clone();
            let mut writers = record.then(Vec::new);
            let observers = self.observers(options, writers.as_mut());
            let result = sim::run_with(self.kernel, &mut args, options, observers);
            (result, (args, writers))
        };
        let (result, (args, writers)) = self.in_either_order(run);
        let stats = result.map_err(|fault| fault.to_diagnostic())?;
        Ok(RunOutput {
            args,
            stats,
            writers,
            cluster: None,
        })
    }

    fn simulate_cluster(&self) -> Result<RunOutput, Diagnostic> {
        let mut args = self.args.clone();
        let progress = self.observers(self.options, None).progress;
        let (stats, run) =
            cluster::simulate(self.kernel, &mut args, self.options, self.nodes, progress)
                .map_err(|fault| fault.to_diagnostic())?;
        Ok(RunOutput {
            args,
            stats,
            writers: None,
            cluster: Some(run),
        })
    }

    /// [`PreparedRun::simulate_recording`], also tracing CTA `block`'s steps within `limits`.
    /// The run is the same, so its results are too; a fault ends the trace at its step.
    pub fn simulate_traced(&self, block: Dim3, limits: TraceLimits) -> Traced {
        if self.kernel.cluster.is_some() {
            let why = "a kernel under @cluster runs its super-tiles as separate launches, which the trace does not follow yet".to_owned();
            return Traced {
                output: self.simulate_cluster(),
                trace: Trace::unavailable(block, self.kernel.threads, self.options.lanes, why),
            };
        }
        let (output, trace) = self.observed(|args, writers, options| {
            let observers = self.observers(options, Some(writers));
            sim::run_traced(self.kernel, args, options, observers, block, limits)
        });
        Traced { output, trace }
    }

    /// [`PreparedRun::simulate_recording`], also counting every memory request by sector, line
    /// and bank (`sim::profile`'s rules). The run is the same, so its results are too.
    pub fn simulate_profiled(&self) -> Profiled {
        if self.kernel.cluster.is_some() {
            return Profiled {
                output: self.simulate_cluster(),
                profile: Err("a kernel under @cluster runs its super-tiles as separate launches, which the memory counts do not follow yet".to_owned()),
            };
        }
        let (output, profile) = self.observed(|args, writers, options| {
            sim::run_profiled(
                self.kernel,
                args,
                options,
                self.observers(options, Some(writers)),
            )
        });
        Profiled {
            output,
            profile: Ok(profile),
        }
    }

    /// `run` with the launch's options; and when several threads ran the CTAs and it stopped
    /// at a race on a tensor (E0516), once more on one thread. Which of two racing CTAs finds
    /// the race depends on the threads' timing; in grid order, the later one always does, so
    /// the fault reported is the same whatever the threads (a racy kernel pays twice).
    ///
    /// **Decision (issue 51):** CTAs may run in any order, and where they can observe each
    /// other ([`Kernel::ctas_observe_each_other`]: an atomic's old value on a tensor) one
    /// order can hide what another meets: a consumer CTA that runs first never reaches its
    /// racing read, a CTA waits for one that already ran. So such a kernel that runs clean in
    /// grid order runs again with its CTAs in reverse, and a race (E0516) or a stop (E0514)
    /// there is the report, naming the order; the results are grid order's. A CTA stopped
    /// while it polled an element is reported with the CTA that changes it, found by a run in
    /// the other order.
    fn in_either_order<T>(
        &self,
        run: impl Fn(SimOptions) -> (Result<sim::Stats, sim::Fault>, T),
    ) -> (Result<sim::Stats, sim::Fault>, T) {
        let first = run(self.options);
        let first = match &first.0 {
            Err(fault) if fault.code == Code::E0516 && self.options.threads > 1 => {
                run(SimOptions {
                    threads: 1,
                    ..self.options
                })
            }
            _ => first,
        };
        let observes = self.kernel.ctas_observe_each_other() && self.args.grid.volume() > 1;
        let (mut result, observed) = match &first.0 {
            Ok(_) if observes => {
                let reverse = run(SimOptions {
                    threads: 1,
                    order: CtaOrder::Reverse,
                    ..self.options
                });
                match &reverse.0 {
                    Err(fault) if matches!(fault.code, Code::E0516 | Code::E0514) => reverse,
                    _ => first,
                }
            }
            _ => first,
        };
        if let Err(fault) = &mut result {
            if let Some(waits) = fault.waits.as_mut() {
                waits.changed_by = self.changer(waits, fault.order);
            }
        }
        (result, observed)
    }

    /// The CTA that changes the element a CTA waited for when the CTAs ran in `order`: the
    /// last to change it in a run in the other order, if that run changes it.
    fn changer(&self, waits: &sim::Waits, order: CtaOrder) -> Option<Dim3> {
        let other = match order {
            CtaOrder::Grid => CtaOrder::Reverse,
            CtaOrder::Reverse => CtaOrder::Grid,
        };
        let options = SimOptions {
            threads: 1,
            order: other,
            ..self.options
        };
        let mut args = self.args.clone();
        let mut writers = Vec::new();
        let _ = sim::run_recording(self.kernel, &mut args, options, Some(&mut writers));
        let writer = *writers.get(waits.tensor)?.get(waits.element)?;
        let cta = u64::from(writer.checked_sub(1)?) / u64::from(self.kernel.threads.max(1));
        Some(self.args.grid.block_at(cta))
    }

    /// Runs `run` on a copy of the arguments, recording who wrote each element: the output,
    /// and what the run observed besides (a trace, memory counts).
    fn observed<T>(
        &self,
        run: impl Fn(&mut Args, &mut sim::Writers, SimOptions) -> (Result<sim::Stats, sim::Fault>, T),
    ) -> (Result<RunOutput, Diagnostic>, T) {
        let (result, (observed, args, writers)) = self.in_either_order(|options| {
            let mut args = self.args.clone();
            let mut writers = Vec::new();
            let (result, observed) = run(&mut args, &mut writers, options);
            (result, (observed, args, writers))
        });
        let output = result
            .map(|stats| RunOutput {
                args,
                stats,
                writers: Some(writers),
                cluster: None,
            })
            .map_err(|fault| fault.to_diagnostic());
        (output, observed)
    }

    /// The WGSL a GPU runs this launch with, its warps as `mode` gives them, its loops guarded
    /// by the step limit: no thread of a kernel the simulator finishes runs more trips (each
    /// runs a statement), and one that never ends stops (E0514, as on the simulator).
    pub fn wgsl(&self, mode: WarpMode) -> Result<wgsl::Wgsl, Diagnostic> {
        wgsl::emit(self.kernel, self.options.lanes, mode, self.loop_guard())
    }

    /// The PTX an NVIDIA GPU runs this launch with, for `arch`, its loops guarded as
    /// [`PreparedRun::wgsl`]'s; `source` gives its line comments. PTX warps are 32 lanes wide.
    pub fn ptx(&self, source: &str, arch: ptx::Arch) -> Result<ptx::Ptx, Diagnostic> {
        ptx::emit(self.kernel, source, arch, self.loop_guard())
    }

    fn loop_guard(&self) -> crate::guard::Guard {
        crate::guard::Guard::Trips(u32::try_from(self.options.step_limit).unwrap_or(u32::MAX))
    }
}
