//! A warp's matrix operations (tensor cores), all `<over ctx.lane>`, of shape m16n8k16
//! (`crate::mma`): `mma_load_a(X[r :+ 16, k :+ 16])` and `mma_load_b(X[k :+ 16, c :+ 8])` give
//! each lane its fragment of an `f16` tensor's or tile's block (`array<f16>[8]`,
//! `array<f16>[4]`), `mma(a, b, c)` the lane's fragment of `a · b + c` (`array<f32>[4]`), and
//! `mma_store(Y[r :+ 16, c :+ 8], d)` writes each lane's fragment of an `f32` block.
//!
//! Checked here: the operands' types and block shapes (E0321), warp-uniform control as every
//! warp collective needs (E0402), and whole warps: a kernel that uses them has a multiple of 32
//! threads (E0321 at `@launch`). A fragment is a whole per-thread array, which only these
//! operations give: `let a = mma_load_a<…>(…)`, `acc = mma<…>(a, b, acc)`.

use super::*;

/// Whether `expr` is a matrix operation that gives a fragment, a whole array that a `let` or
/// an assignment to an array may take (or one written without `<over …>`, which is refused
/// for that alone).
pub(super) fn gives_fragment(expr: &Expr) -> bool {
    let name = match &expr.kind {
        ExprKind::Collective { op, .. } => &op.name,
        ExprKind::Call { callee, .. } => &callee.name,
        _ => return false,
    };
    matches!(name.as_str(), "mma_load_a" | "mma_load_b" | "mma")
}

/// `mma_store`'s target's name, where it is a named tensor or tile: what it writes.
pub(super) fn stored_name(expr: &Expr) -> Option<&str> {
    let ExprKind::Collective { op, args, .. } = &expr.kind else {
        return None;
    };
    if op.name != "mma_store" {
        return None;
    }
    match &args.first()?.kind {
        ExprKind::Index { base, .. } => match &base.kind {
            ExprKind::Name(name) => Some(name),
            _ => None,
        },
        _ => None,
    }
}

impl KernelChecker {
    /// The value of a `let` or of an assignment: where a fragment may be given.
    pub(super) fn fragment_value(&mut self, value: &Expr) -> Value {
        let outer = self.fragment_site.replace(value.span);
        let result = self.expr(value);
        self.fragment_site = outer;
        result
    }

    /// One of the matrix operations (`syntax::builtins::MATRIX`), `name<over …>(args)`.
    pub(super) fn mma_op(&mut self, op: &Ident, over: &Expr, args: &[Expr], span: Span) -> Value {
        let name = op.name.as_str();
        let over_lanes = matches!(&over.kind, ExprKind::Ctx(path)
            if ctx::resolve(path, over.span).ok() == Some(CtxField::Lane));
        if !over_lanes {
            self.error(
                Diagnostic::error(
                    Code::E0315,
                    over.span,
                    format!("`{name}` runs over ctx.lane only"),
                )
                .with_label("a warp's 32 lanes do one matrix operation together")
                .with_help(format!("write {name}<over ctx.lane>(...)")),
            );
            return Value::error();
        }
        let what = format!("{name}<over ctx.lane>");
        let callee = Ident {
            name: what.clone(),
            span: op.span,
        };
        let expected = match name {
            "mma_load_a" | "mma_load_b" => 1,
            "mma" => 3,
            _ => 2,
        };
        if !self.arity(&callee, args, expected, span) {
            return Value::error();
        }
        self.require_control(Uniformity::WarpUniform, &what, span);
        self.mma_call.get_or_insert(span);
        // A fragment is a whole array: it is given to a variable, which the operations then
        // take by name.
        let site = self.fragment_site.take();
        if name != "mma_store" && site != Some(span) {
            self.error(
                Diagnostic::error(
                    Code::E0321,
                    span,
                    format!("`{name}` gives a whole fragment, which only a variable takes"),
                )
                .with_label("not the whole value of a let or an assignment")
                .with_help(format!(
                    "give it a name first: let f = {name}<over ctx.lane>(...), or acc = {name}<over ctx.lane>(...)"
                )),
            );
        }
        let fragment = |element, n: u32| Type::Array {
            element,
            shape: vec![u64::from(n)],
        };
        match name {
            "mma_load_a" | "mma_load_b" => {
                let operand = match name {
                    "mma_load_a" => crate::mma::Operand::A,
                    _ => crate::mma::Operand::B,
                };
                self.block_slice(&args[0], Scalar::F16, operand.extents(), name, false);
                Value::new(
                    fragment(Scalar::F16, operand.per_lane()),
                    Uniformity::Varying,
                )
            }
            "mma" => {
                let operands = [
                    (crate::mma::Operand::A, Scalar::F16, "a"),
                    (crate::mma::Operand::B, Scalar::F16, "b"),
                    (crate::mma::Operand::C, Scalar::F32, "c"),
                ];
                for (arg, (operand, element, role)) in args.iter().zip(operands) {
                    let want = fragment(element, operand.per_lane());
                    self.fragment_arg(arg, &want, &format!("`mma`'s {role}"));
                }
                Value::new(fragment(Scalar::F32, 4), Uniformity::Varying)
            }
            _ => {
                self.block_slice(
                    &args[0],
                    Scalar::F32,
                    crate::mma::Operand::C.extents(),
                    name,
                    true,
                );
                self.fragment_arg(&args[1], &fragment(Scalar::F32, 4), "`mma_store`'s d");
                Value::new(Type::Unit, Uniformity::Uniform)
            }
        }
    }

    /// A fragment argument: a per-thread array of type `want`, by its name.
    fn fragment_arg(&mut self, arg: &Expr, want: &Type, role: &str) {
        let value = self.expr(arg);
        // A matrix operation here has said why it cannot be.
        if gives_fragment(arg) {
            return;
        }
        if !matches!(arg.kind, ExprKind::Name(_)) && !value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0321,
                    arg.span,
                    format!("{role} is a fragment, passed by its name"),
                )
                .with_label("not a variable")
                .with_help("give it a name first: var acc = array<f32>[4](0.0), let a = mma_load_a<over ctx.lane>(...)"),
            );
            return;
        }
        if value.ty.is_error() || value.ty == *want {
            return;
        }
        self.error(
            Diagnostic::error(
                Code::E0321,
                arg.span,
                format!("{role} is {want}, not {}", value.ty),
            )
            .with_label(format!("this is {}", value.ty))
            .with_help("fragments come from mma_load_a (array<f16>[8]), mma_load_b (array<f16>[4]) and mma or array<f32>[4](0.0) (the accumulator)"),
        );
    }

    /// `X[r :+ rows, c :+ cols]`: a block of a rank-2 tensor or tile of `element`, its starts
    /// integers (each lane reads its own elements, so they may differ between lanes).
    fn block_slice(
        &mut self,
        arg: &Expr,
        element: Scalar,
        (rows, cols): (u32, u32),
        name: &str,
        store: bool,
    ) {
        let example = format!("X[r :+ {rows}, c :+ {cols}]");
        let refuse = |checker: &mut Self, span: Span, label: String| {
            checker.error(
                Diagnostic::error(
                    Code::E0321,
                    span,
                    format!(
                        "`{name}` takes a {rows} x {cols} block of a two-axis {} tensor or tile",
                        element.name()
                    ),
                )
                .with_label(label)
                .with_help(format!("write it as {example}: the block's first row and column, and the lengths {rows} and {cols}")),
            );
        };
        let ExprKind::Index { base, indices } = &arg.kind else {
            self.expr(arg);
            refuse(self, arg.span, "not a block of a tensor or tile".to_owned());
            return;
        };
        let ExprKind::Name(base_name) = &base.kind else {
            self.expr(arg);
            refuse(self, base.span, "not a tensor or tile name".to_owned());
            return;
        };
        let Some(id) = self.lookup(base_name) else {
            self.unknown_name(base_name, base.span, Wants::Indexed);
            return;
        };
        let base_value = self.use_var(id, base.span);
        let mut ok = true;
        for index in indices {
            match index {
                IndexArg::Tile { start, .. } => {
                    let start_value = self.expr(start);
                    ok &= self.integer_index(&start_value, start.span);
                }
                IndexArg::Single(e) => {
                    self.expr(e);
                }
                IndexArg::Whole(_) => {}
            }
        }
        // A rank-2 tensor or tile of `element`.
        let holds = match &base_value.ty {
            Type::Tensor {
                element: e,
                extents,
                ..
            } => *e == element && extents.len() == 2,
            Type::Tile { element: e, shape } => *e == element && shape.len() == 2,
            Type::Error => return,
            _ => false,
        };
        let lengths: Vec<Option<u64>> = indices
            .iter()
            .map(|index| match index {
                IndexArg::Tile { length, .. } => match length.kind {
                    ExprKind::Int(Some(n)) => Some(n),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        if !holds {
            refuse(self, base.span, format!("this is {}", base_value.ty));
        } else if lengths != [Some(u64::from(rows)), Some(u64::from(cols))] {
            refuse(self, arg.span, format!("expected {example}"));
        } else if ok && store {
            if let Type::Tensor { .. } = &base_value.ty {
                self.tensor_stores
                    .push((self.kernel_name(base_name), base.span));
            } else {
                self.tile_writable(id, base_name, base.span);
            }
        }
    }

    /// After a kernel's body: one that uses a matrix operation runs whole warps of 32 lanes.
    pub(super) fn mma_needs_whole_warps(&mut self, kernel: &Kernel, threads: Option<u32>) {
        let (Some(call), Some(threads)) = (self.mma_call, threads) else {
            return;
        };
        if threads % crate::mma::MMA_LANES == 0 {
            return;
        }
        let at = kernel
            .attributes
            .iter()
            .find(|a| a.name.name == "launch")
            .map_or(kernel.name.span, |a| a.span);
        self.error(
            Diagnostic::error(
                Code::E0321,
                at,
                format!("a kernel with a matrix operation runs whole warps, and @launch({threads}) leaves a partial one"),
            )
            .with_label(format!("{threads} is not a multiple of 32"))
            .with_secondary(call, "a matrix operation takes all 32 lanes of a warp")
            .with_help(format!(
                "launch a multiple of 32 threads, as in @launch({})",
                threads.div_ceil(32) * 32
            )),
        );
    }
}
