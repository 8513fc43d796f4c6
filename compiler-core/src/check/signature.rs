//! A kernel's signature and attributes: `@launch`, `@cluster` (and what it may split), the
//! parameters, their types and the dimensions they name.

use super::*;

impl KernelChecker {
    pub(super) fn kernel(&mut self, kernel: &Kernel) -> KernelInfo {
        let (params, dims) = self.params(kernel);
        let threads = self.launch(kernel);
        let cluster = self.cluster(kernel, &dims);
        self.unknown_attributes(kernel);
        self.note_written(kernel);
        let exits = self.block(&kernel.body);
        // A `return` ends the kernel; a stray break/continue was reported where it stands.
        drop(exits);
        self.mma_needs_whole_warps(kernel, threads);
        if let Some((dim, _)) = &cluster {
            self.what_a_cluster_can_split(dim, &params);
        }
        KernelInfo {
            name: kernel.name.name.clone(),
            span: kernel.span,
            threads,
            cluster,
            params,
            dims,
            shared_bytes: self.shared_bytes,
        }
    }

    pub(super) fn attributes<'k>(
        &mut self,
        kernel: &'k Kernel,
        name: &str,
    ) -> Option<&'k Attribute> {
        let mut found = kernel.attributes.iter().filter(|a| a.name.name == name);
        let first = found.next()?;
        for again in found {
            self.error(
                Diagnostic::error(Code::E0122, again.span, format!("@{name} is given twice"))
                    .with_label("given again here")
                    .with_secondary(first.span, "first given here"),
            );
        }
        Some(first)
    }

    pub(super) fn launch(&mut self, kernel: &Kernel) -> Option<u32> {
        let Some(attribute) = self.attributes(kernel, "launch") else {
            self.error(
                Diagnostic::error(
                    Code::E0120,
                    kernel.name.span,
                    format!("kernel `{}` has no @launch", kernel.name.name),
                )
                .with_label("how many threads does each CTA have?")
                .with_help("add @launch(THREADS) on the line before `kernel`, e.g. @launch(256)"),
            );
            return None;
        };
        let value = match attribute.args.as_slice() {
            [AttributeArg { key: None, value }] => match value.kind {
                ExprKind::Int(Some(n)) => Some((n, value.span)),
                _ => None,
            },
            _ => None,
        };
        match value {
            Some((n, _)) if (1..=u64::from(MAX_THREADS_PER_CTA)).contains(&n) => Some(n as u32),
            Some((n, span)) => {
                self.error(
                    Diagnostic::error(
                        Code::E0121,
                        span,
                        format!("@launch({n}) is outside 1 to {MAX_THREADS_PER_CTA} threads"),
                    )
                    .with_label("threads per CTA")
                    .with_help(format!(
                        "a CTA has at most {MAX_THREADS_PER_CTA} threads; use more CTAs in the grid for more work"
                    )),
                );
                None
            }
            None => {
                self.error(
                    Diagnostic::error(
                        Code::E0121,
                        attribute.span,
                        "@launch takes one integer literal",
                    )
                    .with_label("the CTA size must be known at compile time")
                    .with_help("write it as a number, e.g. @launch(256)"),
                );
                None
            }
        }
    }

    pub(super) fn cluster(&mut self, kernel: &Kernel, dims: &[String]) -> Option<(String, u64)> {
        let attribute = self.attributes(kernel, "cluster")?;
        match attribute.args.as_slice() {
            [AttributeArg {
                key: Some(dim),
                value:
                    Expr {
                        kind: ExprKind::Int(Some(size)),
                        ..
                    },
            }] if dims.contains(&dim.name) && *size > 0 => Some((dim.name.clone(), *size)),
            [AttributeArg { key: Some(dim), .. }] if !dims.contains(&dim.name) => {
                self.error(
                    Diagnostic::error(
                        Code::E0123,
                        dim.span,
                        format!(
                            "`{}` is not a dimension of kernel `{}`",
                            dim.name, kernel.name.name
                        ),
                    )
                    .with_label("not a dimension name")
                    .with_help(match dims {
                        [] => "the kernel's tensors name no dimensions to split".to_owned(),
                        _ => format!("its dimensions are {}", dims.join(", ")),
                    }),
                );
                None
            }
            _ => {
                self.error(
                    Diagnostic::error(Code::E0123, attribute.span, "@cluster takes DIM: SIZE")
                        .with_label("e.g. @cluster(N: 4096)")
                        .with_help(
                            "name one dimension of the kernel and a positive super-tile size",
                        ),
                );
                None
            }
        }
    }

    /// Under `@cluster(dim: …)` each super-tile runs over its own slice of every tensor with
    /// `dim` in its shape, and the slices are written back: a tensor sliced twice (`[N, N]`)
    /// would be a block of the diagonal, and a tensor without `dim` would be written by every
    /// super-tile, in an order no node knows.
    pub(super) fn what_a_cluster_can_split(&mut self, dim: &str, params: &[ParamInfo]) {
        let dims_of = |name: &str| {
            params
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| match &p.ty {
                    Type::Tensor { dims, .. } => Some(dims.clone()),
                    _ => None,
                })
        };
        for param in params {
            let Type::Tensor { dims, .. } = &param.ty else {
                continue;
            };
            if dims.iter().filter(|d| d.as_str() == dim).count() > 1 {
                let span = self
                    .names
                    .iter()
                    .find(|n| n.name == param.name && n.kind == NameKind::Param)
                    .map_or(Span::empty(0), |n| n.span);
                self.error(
                    Diagnostic::error(
                        Code::E0125,
                        span,
                        format!(
                            "`{}` has the cluster dimension `{dim}` on more than one axis",
                            param.name
                        ),
                    )
                    .with_label(format!("shape [{}]", dims.join(", ")))
                    .with_help(
                        "a super-tile slices one axis; give the other axis its own dimension name",
                    ),
                );
            }
        }
        let mut reported = Vec::new();
        for (name, span) in std::mem::take(&mut self.tensor_stores) {
            let sliced = dims_of(&name).is_some_and(|dims| dims.iter().any(|d| d == dim));
            if sliced || reported.contains(&name) {
                continue;
            }
            self.error(
                Diagnostic::error(
                    Code::E0126,
                    span,
                    format!("`{name}` is written, but @cluster does not slice it"),
                )
                .with_label(format!("`{name}` has no axis `{dim}`"))
                .with_help(
                    "every super-tile would write the whole tensor; write only tensors with the cluster dimension, or drop @cluster",
                ),
            );
            reported.push(name);
        }
    }

    pub(super) fn unknown_attributes(&mut self, kernel: &Kernel) {
        for attribute in &kernel.attributes {
            if !matches!(attribute.name.name.as_str(), "launch" | "cluster") {
                self.error(
                    Diagnostic::error(
                        Code::E0122,
                        attribute.name.span,
                        format!("unknown attribute @{}", attribute.name.name),
                    )
                    .with_label("not an attribute")
                    .with_help("the attributes are @launch(THREADS) and @cluster(DIM: SIZE)"),
                );
            }
        }
    }

    pub(super) fn params(&mut self, kernel: &Kernel) -> (Vec<ParamInfo>, Vec<String>) {
        let mut params = Vec::new();
        let mut dims: Vec<String> = Vec::new();
        let mut declared: HashMap<String, Span> = HashMap::new();
        let mut duplicate = |checker: &mut Self, name: &Ident, what: &str| {
            if let Some(first) = declared.insert(name.name.clone(), name.span) {
                checker.error(
                    Diagnostic::error(
                        Code::E0202,
                        name.span,
                        format!("`{}` is already a name of this kernel", name.name),
                    )
                    .with_label(format!("declared again as a {what}"))
                    .with_secondary(first, "first declared here"),
                );
                false
            } else {
                true
            }
        };
        // Scalars an extent may name: the integer ones, whose values the launch knows.
        let scalars: Vec<(&str, bool)> = kernel
            .params
            .iter()
            .filter_map(|p| match &p.ty {
                TypeExpr::Named(ty) => Some((
                    p.name.name.as_str(),
                    matches!(Scalar::from_name(&ty.name), Some(Scalar::I32 | Scalar::U32)),
                )),
                _ => None,
            })
            .collect();
        for param in &kernel.params {
            let ty = self.param_type(&param.ty);
            if duplicate(self, &param.name, "parameter") && param.name.name != "ctx" {
                self.declare(
                    &param.name,
                    ty.clone(),
                    NameKind::Param,
                    Uniformity::Uniform,
                );
            }
            if let TypeExpr::Tensor {
                dims: tensor_dims, ..
            } = &param.ty
            {
                for name in tensor_dims.iter().flat_map(dimension_names) {
                    let name = &name;
                    match scalars.iter().find(|(s, _)| *s == name.name) {
                        // An integer scalar's value is known at launch: the extent is computed.
                        Some((_, true)) => {
                            if let Some(p) = kernel.params.iter().find(|p| p.name.name == name.name)
                            {
                                let ty = self.param_type(&p.ty);
                                self.record_use(name, ty, NameKind::Param, p.name.span);
                            }
                            continue;
                        }
                        Some((_, false)) => {
                            self.error(
                                Diagnostic::error(
                                    Code::E0127,
                                    name.span,
                                    format!("a tensor's extent is an integer, and `{}` is a float scalar", name.name),
                                )
                                .with_label("not an integer")
                                .with_help("an extent may name dimensions and i32 or u32 scalar parameters"),
                            );
                            continue;
                        }
                        None => {}
                    }
                    if dims.contains(&name.name) {
                        let first = self.declared_at(&name.name).unwrap_or(name.span);
                        self.record_use(name, Type::I32, NameKind::Dim, first);
                        continue;
                    }
                    if duplicate(self, name, "dimension") {
                        dims.push(name.name.clone());
                        self.declare(name, Type::I32, NameKind::Dim, Uniformity::Uniform);
                    }
                }
            }
            params.push(ParamInfo {
                name: param.name.name.clone(),
                ty,
            });
        }
        (params, dims)
    }

    pub(super) fn param_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(name) => match Scalar::from_name(&name.name) {
                Some(scalar) if scalar != Scalar::Bool => Type::Scalar(scalar),
                // A launch gives a scalar a number, and no target passes a bool to a kernel.
                Some(_) => {
                    self.error(
                        Diagnostic::error(
                            Code::E0201,
                            name.span,
                            "a scalar parameter cannot be a `bool`",
                        )
                        .with_label("not a parameter type")
                        .with_help("scalar parameters are f32, f16, i32, u32, i64 or u64: pass an i32, 0 or 1, and test `flag != 0`"),
                    );
                    Type::Error
                }
                None => {
                    self.error(
                        Diagnostic::error(Code::E0201, name.span, format!("unknown type `{}`", name.name))
                            .with_label("not a parameter type")
                            .with_help(super::statements::eight_bit_help(&name.name).unwrap_or_else(|| {
                                "scalar parameters are f32, i32, u32, i64, u64 or f16; tensors are tensor<f32>[N, K]".to_owned()
                            })),
                    );
                    Type::Error
                }
            },
            TypeExpr::Tensor {
                element,
                dims,
                span,
            } => {
                let element_type = match Scalar::element_from_name(&element.name) {
                    Some(scalar) if scalar != Scalar::Bool => Some(scalar),
                    _ => {
                        self.error(
                            Diagnostic::error(
                                Code::E0124,
                                element.span,
                                format!("`{}` is not a tensor element type", element.name),
                            )
                            .with_label("expected f32, f16, i32, u32, i64, u64, i8 or u8"),
                        );
                        None
                    }
                };
                if !(1..=4).contains(&dims.len()) {
                    self.error(
                        Diagnostic::error(
                            Code::E0124,
                            *span,
                            format!("a tensor of rank {}", dims.len()),
                        )
                        .with_label("tensors have 1 to 4 dimensions"),
                    );
                    return Type::Error;
                }
                let mut names = Vec::new();
                let mut extents = Vec::new();
                for dim in dims {
                    match dim {
                        Dim::Literal(Some(n), _) if *n > 0 && *n <= u64::from(u32::MAX) => {
                            names.push(n.to_string());
                            extents.push(Some(*n));
                        }
                        Dim::Literal(_, span) => {
                            self.error(
                                Diagnostic::error(
                                    Code::E0311,
                                    *span,
                                    "a tensor extent must be from 1 to 4294967295",
                                )
                                .with_label("not a valid extent"),
                            );
                            names.push("?".into());
                            extents.push(None);
                        }
                        Dim::Name(name) => {
                            names.push(name.name.clone());
                            extents.push(None);
                        }
                        Dim::Expr(e) => {
                            self.extent_expression(e);
                            names.push(dim.text());
                            extents.push(None);
                        }
                    }
                }
                match element_type {
                    Some(element) => Type::Tensor {
                        element,
                        dims: names.into(),
                        extents: extents.into(),
                    },
                    None => Type::Error,
                }
            }
            TypeExpr::Tile { span, .. } => {
                self.error(
                    Diagnostic::error(Code::E0309, *span, "a kernel's parameter cannot be a tile")
                        .with_label("tiles live in one CTA's shared memory")
                        .with_help("pass a tensor, and copy a tile of it in the body: let t = A[r :+ 64, :]"),
                );
                Type::Error
            }
            TypeExpr::Error(_) => Type::Error,
        }
    }
}

impl KernelChecker {
    /// A derived extent: integer literals and dimensions joined by + - * / %, `ceil(a / b)`,
    /// `log2(x)`, `min` and `max`, as a program's sizes are (E0127).
    fn extent_expression(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Name(_) => {}
            ExprKind::Unary(UnaryOp::Neg, x) => self.extent_expression(x),
            ExprKind::Binary(op, l, r) if crate::ir::Size::is_operator(*op) => {
                self.extent_expression(l);
                self.extent_expression(r);
            }
            ExprKind::Call { callee, args }
                if crate::ir::Size::is_function(&callee.name, args.len()) =>
            {
                for arg in args {
                    self.extent_expression(arg);
                }
            }
            _ => self.error(
                Diagnostic::error(
                    Code::E0127,
                    e.span,
                    "a tensor's extent is a number, a dimension, or an integer expression of them",
                )
                .with_label("not such an expression")
                .with_help("use + - * / % <<, ceil(a / b), log2(x), min and max: e.g. tensor<f32>[N / 2] or [L - K + 1]"),
            ),
        }
    }
}

/// The dimension names an extent names: itself, or those in its expression.
fn dimension_names(dim: &Dim) -> Vec<Ident> {
    match dim {
        Dim::Literal(..) => Vec::new(),
        Dim::Name(name) => vec![name.clone()],
        Dim::Expr(e) => e.names(),
    }
}
