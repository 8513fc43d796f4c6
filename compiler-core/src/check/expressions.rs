//! Expressions and tiles: names, operators (with untyped literals), tile operations and
//! indexing, each with its type and uniformity.

use super::*;

impl KernelChecker {
    pub(super) fn use_var(&mut self, id: usize, span: Span) -> Value {
        let var = &self.vars[id];
        let value = Value::new(var.ty.clone(), self.env[id]);
        self.names.push(NameInfo {
            span,
            name: var.name.clone(),
            kind: var.kind,
            ty: value.ty.clone(),
            uniformity: value.uniformity,
            declared_at: Some(var.declared_at),
        });
        value
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> Value {
        match &expr.kind {
            ExprKind::Int(Some(n)) if *n <= u64::from(u32::MAX) => {
                Value::new(Type::IntLiteral, Uniformity::Uniform)
            }
            ExprKind::Int(Some(_)) => Value::new(Type::WideLiteral, Uniformity::Uniform),
            ExprKind::Int(None) => {
                self.error(
                    Diagnostic::error(
                        Code::E0311,
                        expr.span,
                        "this integer does not fit in 64 bits",
                    )
                    .with_label("larger than 18446744073709551615"),
                );
                Value::error()
            }
            ExprKind::Float(f) if f.is_finite() => {
                Value::new(Type::FloatLiteral, Uniformity::Uniform)
            }
            ExprKind::Float(_) => {
                self.error(
                    Diagnostic::error(
                        Code::E0108,
                        expr.span,
                        "this number is too large for a float",
                    )
                    .with_label("not a finite number"),
                );
                Value::error()
            }
            ExprKind::Bool(_) => Value::new(Type::BOOL, Uniformity::Uniform),
            ExprKind::Name(name) => match self.lookup(name) {
                Some(id) => self.use_var(id, expr.span),
                None => {
                    self.unknown_name(name, expr.span, Wants::Value);
                    Value::error()
                }
            },
            ExprKind::Ctx(path) => match ctx::resolve(path, expr.span) {
                Ok(field) => {
                    let uniformity = ctx_uniformity(field);
                    self.names.push(NameInfo {
                        span: expr.span,
                        name: field.name(),
                        kind: NameKind::Ctx,
                        ty: Type::I32,
                        uniformity,
                        declared_at: None,
                    });
                    Value::new(Type::I32, uniformity)
                }
                Err(_) => Value::error(),
            },
            ExprKind::Unary(op, operand) => self.unary(*op, operand, expr.span),
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, expr.span),
            ExprKind::Call { callee, args } => self.call(callee, args, expr.span),
            ExprKind::Collective { op, over, args } => self.collective(op, over, args, expr.span),
            ExprKind::Bitcast { to, args } => self.bitcast(to, args, expr.span),
            ExprKind::Index { base, indices } => {
                let base_value = match &base.kind {
                    ExprKind::Name(_) => self.expr(base),
                    _ => {
                        let value = self.expr(base);
                        if !value.ty.is_error() {
                            self.error(
                                Diagnostic::error(
                                    Code::E0306,
                                    base.span,
                                    "only tensors and tiles can be indexed",
                                )
                                .with_label(format!("this is {}", value.ty)),
                            );
                        }
                        return Value::error();
                    }
                };
                let mut value = self.index(&base_value, base.span, indices, expr.span);
                if value.ty.is_tile() && matches!(base_value.ty, Type::Tensor { .. }) {
                    self.require_control(Uniformity::Uniform, "a tile load", expr.span);
                }
                // An element of a tensor the kernel writes may change under the load (another
                // thread, another CTA): what each thread reads differs, whatever the index.
                let written = matches!(&base.kind, ExprKind::Name(n) if self.written.contains(n));
                if written && matches!(base_value.ty, Type::Tensor { .. }) && !value.ty.is_tile() {
                    value.uniformity = Uniformity::Varying;
                }
                value
            }
            ExprKind::Scratch {
                element,
                shape,
                fill,
            } => self.scratch(element, shape, fill, expr.span),
            ExprKind::Array {
                element,
                shape,
                fill,
            } => self.array(element, shape, fill, expr.span),
            ExprKind::Error => Value::error(),
        }
    }

    /// `tile<E>[n, m](fill)`: a tile of shared memory no tensor backs, every element `fill`.
    /// All the CTA's threads make it together, as they copy a tile, so it needs uniform
    /// control and a uniform fill; its size is known here, so one too large for every target
    /// is refused here.
    fn scratch(&mut self, element: &Ident, shape: &[IndexArg], fill: &[Expr], span: Span) -> Value {
        let fill_values: Vec<Value> = fill.iter().map(|f| self.expr(f)).collect();
        let callee = Ident {
            name: format!("tile<{}>[…]", element.name),
            span: element.span,
        };
        if !self.arity(&callee, fill, 1, span) {
            self.index_values(shape);
            return Value::error();
        }
        let (fill, fill_value) = (&fill[0], &fill_values[0]);
        self.require_control(Uniformity::Uniform, "a scratch tile", span);
        let element_type = match Scalar::from_name(&element.name) {
            Some(s @ (Scalar::F32 | Scalar::I32 | Scalar::U32)) => Some(s),
            _ => {
                self.error(
                    Diagnostic::error(
                        Code::E0316,
                        element.span,
                        format!(
                            "a scratch tile holds f32, i32 or u32, not `{}`",
                            element.name
                        ),
                    )
                    .with_label("not an element type of shared memory")
                    .with_help(
                        "write tile<f32>[32](0.0), tile<i32>[8, 32](0) or tile<u32>[256](0)",
                    ),
                );
                None
            }
        };
        let mut extents = Vec::new();
        for length in shape {
            match length {
                IndexArg::Single(Expr {
                    kind: ExprKind::Int(Some(n)),
                    ..
                }) if *n > 0 && *n <= u64::from(u32::MAX) => extents.push(*n),
                _ => {
                    self.index_values(std::slice::from_ref(length));
                    let at = match length {
                        IndexArg::Single(e) => e.span,
                        IndexArg::Tile { start, length } => start.span.to(length.span),
                        IndexArg::Whole(at) => *at,
                    };
                    self.error(
                        Diagnostic::error(Code::E0307, at, "a tile's length must be a positive integer literal")
                            .with_label("not a compile-time constant")
                            .with_help("the shared memory a tile takes is fixed when the kernel is compiled: write a number, e.g. tile<f32>[32](0.0)"),
                    );
                    return Value::error();
                }
            }
        }
        if extents.len() > 2 {
            self.error(
                Diagnostic::error(
                    Code::E0316,
                    span,
                    format!("a scratch tile has one or two axes, not {}", extents.len()),
                )
                .with_label("too many axes")
                .with_help("lay the elements out in rows: tile<f32>[rows, columns](0.0)"),
            );
            return Value::error();
        }
        let Some(element_type) = element_type else {
            return Value::error();
        };
        let bytes = extents
            .iter()
            .product::<u64>()
            .saturating_mul(element_type.size());
        let most = crate::target::Arch::static_shared_bytes_everywhere();
        if bytes > most {
            self.error(
                Diagnostic::error(
                    Code::E0316,
                    span,
                    format!("this scratch tile takes {bytes} bytes of shared memory; PTX lets a CTA declare {most}"),
                )
                .with_label("too large for the PTX targets (a WebGPU device may allow only 16384)")
                .with_help("a CTA's shared memory is small and fast: keep one value per thread or per warp, e.g. tile<f32>[32](0.0) for 32 warps' sums"),
            );
            return Value::error();
        }
        let element = Type::Scalar(element_type);
        if !assignable(&fill_value.ty, &element) && !fill_value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0312,
                    fill.span,
                    format!(
                        "a tile<{element}> is filled with {element}, not {}",
                        fill_value.ty
                    ),
                )
                .with_label(format!("this is {}", fill_value.ty))
                .with_help(cast_help(&fill_value.ty, &element)),
            );
        } else if fill_value.uniformity != Uniformity::Uniform && !fill_value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0404,
                    fill.span,
                    format!("a scratch tile's fill must be uniform, and this is {}", fill_value.uniformity),
                )
                .with_label(format!("this value {}", fill_value.uniformity.differs_between()))
                .with_help("fill it with one value (a literal, a parameter), then let each thread write its own element: t[ctx.thread] = x"),
            );
        }
        Value::new(
            Type::Tile {
                element: element_type,
                shape: extents,
            },
            Uniformity::Uniform,
        )
    }

    pub(super) fn unary(&mut self, op: UnaryOp, operand: &Expr, span: Span) -> Value {
        let value = self.expr(operand);
        let fits = match op {
            UnaryOp::Neg => value.ty.is_numeric() || value.ty.is_tile(),
            UnaryOp::Not => value.ty == Type::BOOL,
            UnaryOp::BitNot => value.ty.is_integer(),
        };
        if fits || value.ty.is_error() {
            return match op {
                UnaryOp::BitNot => Value::new(value.ty.integer_only(), value.uniformity),
                _ => value,
            };
        }
        self.error(
            Diagnostic::error(
                Code::E0301,
                span,
                format!("`{}` cannot be applied to {}", op.symbol(), value.ty),
            )
            .with_label(format!("this is {}", value.ty))
            .with_help(match op {
                UnaryOp::Neg => "negate a number",
                UnaryOp::Not => "`!` negates a bool; for integers use `~`",
                UnaryOp::BitNot => "`~` flips the bits of an integer; for a bool use `!`",
            }),
        );
        Value::error()
    }

    pub(super) fn binary(&mut self, op: BinaryOp, l: &Expr, r: &Expr, span: Span) -> Value {
        let left = self.expr(l);
        let right = if matches!(op, BinaryOp::And | BinaryOp::Or) {
            // The right side runs only where the left side lets it: control depends on it.
            self.push_cause(left.uniformity, l.span, CauseKind::Condition);
            let right = self.expr(r);
            self.control.pop();
            right
        } else {
            self.expr(r)
        };
        self.binary_types(op, &left, &right, span)
    }

    pub(super) fn binary_types(
        &mut self,
        op: BinaryOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> Value {
        let uniformity = left.uniformity.join(right.uniformity);
        if left.ty.is_error() || right.ty.is_error() {
            return Value::error();
        }
        if left.ty.is_tile() || right.ty.is_tile() {
            return self.tile_binary(op, left, right, span);
        }
        let operands_fit = |check: fn(&Type) -> bool| unify(&left.ty, &right.ty).filter(&check);
        let result = match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
                operands_fit(Type::is_numeric)
            }
            BinaryOp::Rem
            | BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::BitAnd
            | BinaryOp::BitOr
            | BinaryOp::BitXor => operands_fit(Type::is_integer).map(Type::integer_only),
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                operands_fit(Type::is_numeric).map(|_| Type::BOOL)
            }
            BinaryOp::Eq | BinaryOp::Ne => unify(&left.ty, &right.ty)
                .filter(|t| t.is_numeric() || *t == Type::BOOL)
                .map(|_| Type::BOOL),
            BinaryOp::And | BinaryOp::Or => {
                (left.ty == Type::BOOL && right.ty == Type::BOOL).then_some(Type::BOOL)
            }
            BinaryOp::MatMul => None,
        };
        match result {
            Some(ty) => Value::new(ty, uniformity),
            None => {
                let help = match op {
                    BinaryOp::MatMul => "`@` multiplies two 2-D tiles".to_owned(),
                    BinaryOp::And | BinaryOp::Or => {
                        "`&&` and `||` take bools; compare numbers first".to_owned()
                    }
                    BinaryOp::Rem
                    | BinaryOp::Shl
                    | BinaryOp::Shr
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
                        if left.ty.is_float() || right.ty.is_float() =>
                    {
                        format!("`{}` takes integers", op.symbol())
                    }
                    // A literal past 32 bits beside a 32-bit value: a cast of the value, not of
                    // the literal, which would wrap it.
                    _ if left.ty == Type::WideLiteral || right.ty == Type::WideLiteral => {
                        let (literal, other) = if left.ty == Type::WideLiteral {
                            ("left", &right.ty)
                        } else {
                            ("right", &left.ty)
                        };
                        format!("the {literal} operand is an integer past 32 bits, which {other} cannot hold: widen the other operand, as in i64(x)")
                    }
                    _ if left.ty == Type::IntOnlyLiteral => {
                        cast_help(&left.ty, &right.ty.clone().concrete())
                    }
                    _ => cast_help(&right.ty, &left.ty),
                };
                self.error(
                    Diagnostic::error(
                        Code::E0301,
                        span,
                        format!(
                            "`{}` cannot combine {} and {}",
                            op.symbol(),
                            left.ty,
                            right.ty
                        ),
                    )
                    .with_label(format!("{} {} {}", left.ty, op.symbol(), right.ty))
                    .with_help(help),
                );
                Value::error()
            }
        }
    }

    pub(super) fn tile_binary(
        &mut self,
        op: BinaryOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> Value {
        self.require_control(Uniformity::Uniform, "a tile operation", span);
        // Each element is computed by some thread of the CTA: a scalar operand must be the same
        // in all of them, or the result would depend on the split.
        let scalar = [left, right].into_iter().find(|v| !v.ty.is_tile());
        if let Some(scalar) = scalar.filter(|v| v.uniformity != Uniformity::Uniform) {
            self.error(
                Diagnostic::error(
                    Code::E0404,
                    span,
                    format!("a scalar combined with a tile must be uniform, and this one is {}", scalar.uniformity),
                )
                .with_label(format!("the scalar {}", scalar.uniformity.differs_between()))
                .with_help("the CTA computes a tile's elements together: use a value from ctx.block, parameters and literals"),
            );
            return Value::error();
        }
        let uniformity = Uniformity::Uniform;
        let result = match (op, &left.ty, &right.ty) {
            (
                BinaryOp::MatMul,
                Type::Tile {
                    element: a,
                    shape: sa,
                },
                Type::Tile {
                    element: b,
                    shape: sb,
                },
            ) if a == b && sa.len() == 2 && sb.len() == 2 && sa[1] == sb[0] => Some(Type::Tile {
                element: *a,
                shape: vec![sa[0], sb[1]],
            }),
            (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div, l, r) => match (l, r) {
                (Type::Tile { .. }, Type::Tile { .. }) if l == r => Some(l.clone()),
                (Type::Tile { element, .. }, s) | (s, Type::Tile { element, .. })
                    if !s.is_tile() && assignable(s, &Type::Scalar(*element)) =>
                {
                    Some(if l.is_tile() { l.clone() } else { r.clone() })
                }
                _ => None,
            },
            _ => None,
        };
        match result {
            Some(ty) => Value::new(ty, uniformity),
            None => {
                self.error(
                    Diagnostic::error(
                        Code::E0309,
                        span,
                        format!("`{}` cannot combine {} and {}", op.symbol(), left.ty, right.ty),
                    )
                    .with_label("tile shapes or element types do not fit")
                    .with_help("tiles combine element-wise with tiles of the same shape or with scalars; `@` takes [m, k] and [k, n]"),
                );
                Value::error()
            }
        }
    }

    /// `base[indices]` where `base` is a tensor (an element or a tile of it) or a tile (an
    /// element).
    pub(super) fn index(
        &mut self,
        base: &Value,
        base_span: Span,
        indices: &[IndexArg],
        span: Span,
    ) -> Value {
        let (element, extents, is_tensor) = match &base.ty {
            Type::Tensor {
                element, extents, ..
            } => (*element, extents.to_vec(), true),
            Type::Tile { element, shape } => {
                (*element, shape.iter().map(|&n| Some(n)).collect(), false)
            }
            Type::Array { element, shape } => {
                return self.array_index(base, base_span, *element, shape, indices, span);
            }
            Type::Error => {
                self.index_values(indices);
                return Value::error();
            }
            other => {
                let other = other.clone();
                self.index_values(indices);
                self.error(
                    Diagnostic::error(Code::E0306, base_span, format!("{other} cannot be indexed"))
                        .with_label("only tensors and tiles can be indexed"),
                );
                return Value::error();
            }
        };
        if indices.len() != extents.len() {
            self.index_values(indices);
            self.error(
                Diagnostic::error(
                    Code::E0304,
                    span,
                    format!(
                        "{} coordinates for a {} of rank {}",
                        indices.len(),
                        if is_tensor { "tensor" } else { "tile" },
                        extents.len()
                    ),
                )
                .with_label(format!(
                    "expected {} coordinate{}",
                    extents.len(),
                    if extents.len() == 1 { "" } else { "s" }
                ))
                .with_secondary(base_span, format!("this is {}", base.ty)),
            );
            return Value::error();
        }
        let mut uniformity = Uniformity::Uniform;
        let mut shape = Vec::new();
        let mut ok = true;
        for (arg, extent) in indices.iter().zip(&extents) {
            match arg {
                IndexArg::Single(index) => {
                    let value = self.expr(index);
                    ok &= self.integer_index(&value, index.span);
                    uniformity = uniformity.join(value.uniformity);
                }
                IndexArg::Tile { start, length } => {
                    let value = self.expr(start);
                    ok &= self.integer_index(&value, start.span);
                    if value.uniformity != Uniformity::Uniform && !value.ty.is_error() {
                        self.error(
                            Diagnostic::error(
                                Code::E0404,
                                start.span,
                                format!("a tile's start must be uniform, and this is {}", value.uniformity),
                            )
                            .with_label(format!("this start {}", value.uniformity.differs_between()))
                            .with_help("every thread copies the same tile together: compute its start from ctx.block, parameters and literals"),
                        );
                    }
                    match length.kind {
                        ExprKind::Int(Some(n)) if n > 0 && n <= u64::from(u32::MAX) => {
                            shape.push(n)
                        }
                        _ => {
                            ok = false;
                            self.expr(length);
                            self.error(
                                Diagnostic::error(Code::E0307, length.span, "a tile's length must be a positive integer literal")
                                    .with_label("not a compile-time constant")
                                    .with_help("the shared memory a tile takes is fixed when the kernel is compiled: write a number, e.g. A[r :+ 64, :]"),
                            );
                        }
                    }
                }
                IndexArg::Whole(whole) => match extent {
                    Some(n) => shape.push(*n),
                    None => {
                        ok = false;
                        self.error(
                            Diagnostic::error(Code::E0308, *whole, "`:` takes a whole axis, and this axis's extent is a name")
                                .with_label("its extent is only known at launch")
                                .with_secondary(base_span, format!("this is {}", base.ty))
                                .with_help("give a start and a length, as in r :+ 64, or declare the extent as a number"),
                        );
                    }
                },
            }
        }
        if !ok {
            return Value::error();
        }
        // An 8-bit element is read as its widened value, and a tile of them holds those.
        let element = element.widened();
        if shape.is_empty() {
            return Value::new(Type::Scalar(element), uniformity);
        }
        if !is_tensor {
            self.error(
                Diagnostic::error(Code::E0309, span, "a tile cannot be sliced")
                    .with_label("index a tile's elements one by one, as in a[i, j]"),
            );
            return Value::error();
        }
        if self.refuse_wide(
            &Type::Scalar(element),
            span,
            "a tile",
            "tiles hold 32-bit and 16-bit elements; read a 64-bit tensor by element, as in X[i]",
        ) {
            return Value::error();
        }
        Value::new(Type::Tile { element, shape }, Uniformity::Uniform)
    }

    /// `acc[i]`, `acc[i, j]`: an element of a per-thread array, as varying as the array and
    /// the indices.
    fn array_index(
        &mut self,
        base: &Value,
        base_span: Span,
        element: Scalar,
        shape: &[u64],
        indices: &[IndexArg],
        span: Span,
    ) -> Value {
        if indices.len() != shape.len() {
            self.index_values(indices);
            self.error(
                Diagnostic::error(
                    Code::E0304,
                    span,
                    format!(
                        "{} coordinates for an array of rank {}",
                        indices.len(),
                        shape.len()
                    ),
                )
                .with_label(format!("expected {}", shape.len()))
                .with_secondary(base_span, format!("this is {}", base.ty)),
            );
            return Value::error();
        }
        let mut uniformity = base.uniformity;
        let mut ok = true;
        for (arg, &extent) in indices.iter().zip(shape) {
            let IndexArg::Single(index) = arg else {
                self.index_values(std::slice::from_ref(arg));
                self.error(
                    Diagnostic::error(Code::E0319, span, "an array is indexed by element")
                        .with_label("not one element")
                        .with_help("index each coordinate with one integer, as in acc[i, j]"),
                );
                return Value::error();
            };
            let value = self.expr(index);
            ok &= self.integer_index(&value, index.span);
            self.constant_array_index(index, extent, base, base_span);
            uniformity = uniformity.join(value.uniformity);
        }
        if !ok {
            return Value::error();
        }
        Value::new(Type::Scalar(element), uniformity)
    }

    pub(super) fn index_values(&mut self, indices: &[IndexArg]) {
        for arg in indices {
            match arg {
                IndexArg::Single(e) => {
                    self.expr(e);
                }
                IndexArg::Tile { start, length } => {
                    self.expr(start);
                    self.expr(length);
                }
                IndexArg::Whole(_) => {}
            }
        }
    }

    pub(super) fn integer_index(&mut self, value: &Value, span: Span) -> bool {
        if value.ty.is_wide() {
            self.error(
                Diagnostic::error(
                    Code::E0305,
                    span,
                    format!(
                        "an index is an i32 or a u32, not {}",
                        value.ty.clone().concrete()
                    ),
                )
                .with_label("a 64-bit index")
                .with_help("no tensor has 2^32 elements: convert the index, as in i32(i)"),
            );
            return false;
        }
        if value.ty.is_integer() || value.ty.is_error() {
            return true;
        }
        self.error(
            Diagnostic::error(
                Code::E0305,
                span,
                format!("an index must be an integer, not {}", value.ty),
            )
            .with_label(format!("this is {}", value.ty))
            .with_help(cast_help(&value.ty, &Type::I32)),
        );
        false
    }
}
