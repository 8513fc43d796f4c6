//! A launch against its kernel: the problems it has, each at its field (a dimension without a
//! value, a tensor whose data disagrees, a size over the host's limit), the derived extents
//! computed from the given ones, and the simulator's arguments bound from a launch that has none.

use super::{generate, tensor_shapes, Input, Launch, RunLimits, Spelling, MAX_ELEMENTS};
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{DimRef, Kernel, Param, Scalar, Size};
use crate::sim::{Arg, Args, Tensor};
use crate::span::Span;
use crate::syntax::ast;
use serde::Serialize;

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
    pub fn to_diagnostic(
        &self,
        kernel: &Kernel,
        signature: Option<&ast::Kernel>,
        spelling: Spelling,
    ) -> Diagnostic {
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
                format!("its grid is set by {}", spelling.grid()),
            ),
            LaunchField::Lanes => (
                kernel_name,
                format!("its warp width is set by {}", spelling.lanes()),
            ),
            LaunchField::Size => (
                kernel_name,
                format!(
                    "its tensors' sizes come from {} and the inputs' shapes",
                    spelling.dims()
                ),
            ),
            LaunchField::Dim(name) => match dim(name) {
                Some(span) => (
                    span,
                    format!("set by {} or an input's shape", spelling.dim(name)),
                ),
                None => (
                    kernel_name,
                    format!("{} names no dimension of this kernel", spelling.dim(name)),
                ),
            },
            LaunchField::Scalar(name) => match param(name) {
                Some((span, false)) => (span, format!("set by {}", spelling.scalar(name))),
                Some((span, true)) => (
                    span,
                    format!("a tensor: its contents are set by {}", spelling.input(name)),
                ),
                None => (
                    kernel_name,
                    format!(
                        "{} names no parameter of this kernel",
                        spelling.scalar(name)
                    ),
                ),
            },
            LaunchField::Input(name) => match param(name) {
                Some((span, true)) => (span, format!("set by {}", spelling.input(name))),
                Some((span, false)) => (
                    span,
                    format!("a scalar: its value is set by {}", spelling.scalar(name)),
                ),
                None => (
                    kernel_name,
                    format!("{} names no parameter of this kernel", spelling.input(name)),
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
        let axes = [self.grid.x, self.grid.y, self.grid.z];
        if let Some((n, most, name)) = axes
            .into_iter()
            .zip(crate::target::MAX_GRID)
            .zip(["x", "y", "z"])
            .map(|((n, most), name)| (n, most, name))
            .find(|(n, most, _)| n > most)
        {
            problems.push(LaunchProblem::new(
                LaunchField::Grid,
                format!("the grid has {n} CTAs on axis {name}: at most {most}, NVIDIA's limit"),
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
        if self.lanes != crate::mma::MMA_LANES && kernel.matrix.is_some() {
            problems.push(
                LaunchProblem::new(
                    LaunchField::Lanes,
                    format!(
                        "kernel `{}` uses mma<over ctx.lane>, which takes warps of 32 lanes, not {}",
                        kernel.name, self.lanes
                    ),
                )
                .with_help("run it with ctx.lanes = 32 (NVIDIA's warps; on a GPU with other subgroups, 32-lane warps are emulated)"),
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
                            "give it one ({})",
                            limits.spelling.example("scalar", name, "V")
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
                                "give it an integer ({})",
                                limits.spelling.example("scalar", name, &value.trunc().to_string())
                            )
                        } else {
                            format!("give it an integer ({})", limits.spelling.example("scalar", name, "N"))
                        }),
                    ),
                    // A launch's values are numbers (`f64`): past 2^53 one may already have
                    // been rounded, as an `.npy` input's would be.
                    Some(&value) if ty.is_wide() && value.abs() >= 9_007_199_254_740_992.0 => problems.push(
                        LaunchProblem::new(
                            LaunchField::Scalar(name.clone()),
                            format!(
                                "the scalar `{name}: {}` takes values below 2^53 (9007199254740992) in magnitude, not about {value}: a launch's values are numbers, exact only there",
                                ty.name()
                            ),
                        )
                        .with_help("a constant past 2^53 goes in the kernel as a literal (`let seed: u64 = 14695981039346656037`)"),
                    ),
                    // An integer its type cannot hold is refused as a fraction is: it would
                    // wrap to another number silently.
                    Some(&value) if integer_range(*ty).is_some_and(|(lo, hi)| value < lo || value > hi) => {
                        let (lo, hi) = integer_range(*ty).unwrap_or_default();
                        problems.push(LaunchProblem::new(
                            LaunchField::Scalar(name.clone()),
                            format!(
                                "the scalar `{name}: {}` takes integers from {lo} to {hi}, not {value}",
                                ty.name()
                            ),
                        ))
                    }
                    Some(_) => {}
                }
            }
        }
        let dims = match self.dimension_values(kernel, limits.spelling) {
            Ok(dims) => dims,
            Err(found) => {
                problems.extend(found);
                return problems;
            }
        };
        let mut total = 0u64;
        for (param, shape) in kernel.params.iter().zip(tensor_shapes(kernel, &dims)) {
            let (Param::Tensor { name, element, .. }, Some(shape)) = (param, shape) else {
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
            } else if let Some(given) = self.inputs.get(name).and_then(|i| i.elements(*element)) {
                if given as u64 != count {
                    problems.push(LaunchProblem::new(
                        field(),
                        format!("`{name}` has {given} values for a shape of {count} elements"),
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

    /// The simulator's arguments for `kernel`, for a launch without [`Launch::problems`], its
    /// generated inputs made on `threads` ([`RunLimits::threads`]).
    pub(super) fn bind(&self, kernel: &Kernel, threads: usize) -> Args {
        let dims = self
            .dimension_values(kernel, Spelling::CommandLine)
            .unwrap_or_default();
        let params = kernel
            .params
            .iter()
            .zip(tensor_shapes(kernel, &dims))
            .map(|(param, shape)| match param {
                Param::Scalar { name, ty } => {
                    Arg::Scalar(ty.argument_bits(self.scalars.get(name).copied().unwrap_or(0.0)))
                }
                Param::Tensor { name, element, .. } => {
                    let shape = shape.unwrap_or_default();
                    let count = shape.iter().product();
                    let input = self.inputs.get(name).unwrap_or(&Input::Zeros);
                    Arg::Tensor(Tensor {
                        element: *element,
                        shape,
                        bits: generate(input, *element, count, threads),
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
    pub(super) fn dimension_values(
        &self,
        kernel: &Kernel,
        spelling: Spelling,
    ) -> Result<Vec<i32>, Vec<LaunchProblem>> {
        let mut values: Vec<Option<(i64, String)>> = kernel
            .dims
            .iter()
            .enumerate()
            .map(|(i, name)| match kernel.is_derived(i) {
                true => None,
                false => self.dims.get(name).map(|v| {
                    let from = match spelling {
                        Spelling::CommandLine => "--dim",
                        Spelling::Python => "dims=",
                    };
                    (*v, from.to_owned())
                }),
            })
            .collect();
        for param in &kernel.params {
            let Param::Tensor { name, dims, .. } = param else {
                continue;
            };
            let Some(shape) = self.inputs.get(name).and_then(Input::shape) else {
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
                // The value the kernel reads: the number as its type keeps it (-1 is the
                // u32 4294967295), as a launch binds it.
                Param::Scalar {
                    name,
                    ty: ty @ (Scalar::I32 | Scalar::U32),
                } => self.scalars.get(name).map(|v| match ty.bits(*v) {
                    bits if *ty == Scalar::I32 => i64::from(bits as i32),
                    bits => i64::from(bits),
                }),
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
                            "give it one ({}, or an input with data)",
                            spelling.example("dim", name, "V")
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

/// The integers a scalar of type `ty` holds (a 64-bit one's, those a launch's numbers hold
/// exactly besides: below 2^53, checked apart); `None` for a float.
fn integer_range(ty: Scalar) -> Option<(f64, f64)> {
    Some(match ty {
        Scalar::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        Scalar::U32 => (0.0, f64::from(u32::MAX)),
        Scalar::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        Scalar::U8 => (0.0, f64::from(u8::MAX)),
        Scalar::I64 => (f64::MIN, f64::MAX),
        Scalar::U64 => (0.0, f64::MAX),
        Scalar::F32 | Scalar::F16 | Scalar::Bool => return None,
    })
}
