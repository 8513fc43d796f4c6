//! Per-thread arrays: `array<f32>[8](0.0)`, `array<i32>[4, 4](0)`, each thread's own elements
//! (E0319), read and written by element.
//!
//! An array's uniformity is one for all its elements: what was last stored in any element
//! joined with what was there (a store changes one element, and which one may differ between
//! threads), and with the control of the store, as a `var`'s is.

use super::*;

/// The most elements a per-thread array may have: a thread's registers are few.
pub const MAX_ARRAY_ELEMENTS: u64 = 256;

impl KernelChecker {
    /// `array<E>[n, m](fill)`.
    pub(super) fn array(
        &mut self,
        element: &Ident,
        shape: &[IndexArg],
        fill: &[Expr],
        span: Span,
    ) -> Value {
        let fill_values: Vec<Value> = fill.iter().map(|f| self.expr(f)).collect();
        let callee = Ident {
            name: format!("array<{}>[…]", element.name),
            span: element.span,
        };
        if !self.arity(&callee, fill, 1, span) {
            self.index_values(shape);
            return Value::error();
        }
        let element_type = Scalar::from_name(&element.name);
        if element_type.is_none() {
            self.error(
                Diagnostic::error(
                    Code::E0319,
                    element.span,
                    format!("an array holds a scalar type, not `{}`", element.name),
                )
                .with_label("not a scalar type")
                .with_help("write array<f32>[8](0.0), array<i32>[4, 4](0), array<f16>[8](0.0) or array<bool>[4](false)"),
            );
        }
        let mut extents = Vec::new();
        for length in shape {
            match length {
                IndexArg::Single(Expr {
                    kind: ExprKind::Int(Some(n)),
                    ..
                }) if *n > 0 => extents.push(*n),
                _ => {
                    self.index_values(std::slice::from_ref(length));
                    let at = match length {
                        IndexArg::Single(e) => e.span,
                        IndexArg::Tile { start, length } => start.span.to(length.span),
                        IndexArg::Whole(at) => *at,
                    };
                    let label = match length {
                        IndexArg::Single(Expr {
                            kind: ExprKind::Int(Some(_)),
                            ..
                        }) => "not positive",
                        _ => "not a compile-time constant",
                    };
                    self.error(
                        Diagnostic::error(Code::E0319, at, "an array's extent must be a positive integer literal")
                            .with_label(label)
                            .with_help("a thread's array is fixed when the kernel is compiled: write a number, e.g. array<f32>[8](0.0)"),
                    );
                    return Value::error();
                }
            }
        }
        let count = extents.iter().fold(1u64, |a, &n| a.saturating_mul(n));
        if !(1..=2).contains(&extents.len()) || count > MAX_ARRAY_ELEMENTS {
            self.error(
                Diagnostic::error(
                    Code::E0319,
                    span,
                    format!("an array of {} axes and {count} elements", extents.len()),
                )
                .with_label(format!("an array has one or two axes and at most {MAX_ARRAY_ELEMENTS} elements"))
                .with_help("a thread's array lives in its registers: keep it small, or use a tile (shared by the CTA) or a tensor"),
            );
            return Value::error();
        }
        let Some(element) = element_type else {
            return Value::error();
        };
        let fill_value = &fill_values[0];
        if !assignable(&fill_value.ty, &Type::Scalar(element)) && !fill_value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0312,
                    fill[0].span,
                    format!(
                        "an array of {} is filled with {}",
                        element.name(),
                        fill_value.ty
                    ),
                )
                .with_label(format!("expected {}", element.name()))
                .with_help(cast_help(&fill_value.ty, &Type::Scalar(element))),
            );
        }
        Value::new(
            Type::Array {
                element,
                shape: extents,
            },
            fill_value.uniformity,
        )
    }

    /// A literal index outside an array's extent (`acc[8]` of `array<f32>[8]`).
    pub(super) fn constant_array_index(
        &mut self,
        index: &Expr,
        extent: u64,
        base: &Value,
        base_span: Span,
    ) {
        let value = match &index.kind {
            ExprKind::Int(Some(n)) => *n as i128,
            ExprKind::Unary(UnaryOp::Neg, x) => match x.kind {
                ExprKind::Int(Some(n)) => -(n as i128),
                _ => return,
            },
            _ => return,
        };
        if (0..extent as i128).contains(&value) {
            return;
        }
        self.error(
            Diagnostic::error(
                Code::E0319,
                index.span,
                format!("index {value} is outside this array's extent of {extent}"),
            )
            .with_label(format!("from 0 to {}", extent.saturating_sub(1)))
            .with_secondary(base_span, format!("this is {}", base.ty)),
        );
    }

    /// The variable `base` names, when it is an array.
    pub(super) fn array_var(&self, base: &Expr) -> Option<usize> {
        let ExprKind::Name(name) = &base.kind else {
            return None;
        };
        let id = self.lookup(name)?;
        self.vars[id].ty.is_array().then_some(id)
    }

    /// `acc[i] op= value`: the element's type checked as a `var`'s; the array's uniformity
    /// joins the value's, the indices' and the store's control.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn array_store(
        &mut self,
        id: usize,
        base: &Expr,
        indices: &[IndexArg],
        target_span: Span,
        op: Option<BinaryOp>,
        value: &Value,
        value_span: Span,
        stmt_span: Span,
    ) {
        let base_value = self.use_var(id, base.span);
        let element = self.index(&base_value, base.span, indices, target_span);
        if self.vars[id].kind != NameKind::Var {
            let name = self.vars[id].name.clone();
            self.error(
                Diagnostic::error(
                    Code::E0204,
                    base.span,
                    format!("the array `{name}` cannot be written: it is a let"),
                )
                .with_label("written here")
                .with_secondary(self.vars[id].declared_at, "declared here")
                .with_help(format!(
                    "declare it with `var {name} = ...` to write its elements"
                )),
            );
            return;
        }
        if element.ty.is_error() {
            return;
        }
        if let Some(result) = self.assigned_value(&element.ty, op, value, value_span, stmt_span) {
            let joined = result.uniformity.join(element.uniformity);
            self.env[id] = self.assigned_uniformity(id, joined);
        }
    }

    /// An array used whole where only its elements may be (`let b = a`, `a = b`, `a + 1`).
    pub(super) fn whole_array(&mut self, span: Span, ty: &Type) {
        self.error(
            Diagnostic::error(
                Code::E0319,
                span,
                format!("{ty} is read and written by element"),
            )
            .with_label("a whole array is not a value")
            .with_help(
                "index it, as in acc[i]; copy one into another element by element in a loop",
            ),
        );
    }
}
