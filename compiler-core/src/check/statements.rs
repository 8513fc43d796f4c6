//! Statements: declarations, assignments and stores, `if`, the loops (iterated to a fixed
//! point for uniformity), `break`, `continue` and `return`.

use super::*;

impl KernelChecker {
    pub(super) fn block(&mut self, block: &Block) -> Vec<Exit> {
        self.with_scope(block.span, |checker| checker.statements(&block.stmts))
    }

    pub(super) fn statements(&mut self, stmts: &[Stmt]) -> Vec<Exit> {
        let depth = self.control.len();
        let mut exits = Vec::new();
        for stmt in stmts {
            for exit in self.stmt(stmt) {
                if let Some(cause) = exit.cause {
                    self.control.push(cause);
                }
                exits.push(exit);
            }
        }
        self.control.truncate(depth);
        exits
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt) -> Vec<Exit> {
        match &stmt.kind {
            StmtKind::Let {
                mutable,
                name,
                ty,
                value,
            } => {
                self.let_(*mutable, name, ty.as_ref(), value);
                Vec::new()
            }
            StmtKind::Assign { target, op, value } => {
                self.assign(target, *op, value, stmt.span);
                Vec::new()
            }
            StmtKind::Expr(expr) => {
                let outer = self.dropped_call.replace(expr.span);
                self.expr(expr);
                self.dropped_call = outer;
                Vec::new()
            }
            StmtKind::If {
                condition,
                then_block,
                else_branch,
            } => self.if_(condition, then_block, else_branch.as_deref()),
            StmtKind::Block(block) => self.block(block),
            StmtKind::While { condition, body } => self.while_(condition, body, stmt.span),
            StmtKind::For { var, range, body } => self.for_(var, range, body, stmt.span),
            StmtKind::Break => self.jump("break", stmt.span),
            StmtKind::Continue => self.jump("continue", stmt.span),
            StmtKind::Return(value) => self.return_(value.as_ref(), stmt.span),
            StmtKind::Error => Vec::new(),
        }
    }

    pub(super) fn let_(
        &mut self,
        mutable: bool,
        name: &Ident,
        declared: Option<&TypeExpr>,
        value_expr: &Expr,
    ) {
        let value = self.fragment_value(value_expr);
        let kind = if mutable {
            NameKind::Var
        } else {
            NameKind::Let
        };
        if value.ty.is_array()
            && !matches!(value_expr.kind, ExprKind::Array { .. })
            && !super::matrix::gives_fragment(value_expr)
        {
            self.whole_array(value_expr.span, &value.ty);
        }
        let ty = match declared {
            None => {
                if value.ty == Type::Unit {
                    self.no_value(name.span);
                    Type::Error
                } else {
                    value.ty.clone().concrete()
                }
            }
            Some(declared) => {
                let ty = self.local_type(declared);
                if !assignable(&value.ty, &ty) && !ty.is_error() {
                    self.error(
                        Diagnostic::error(
                            Code::E0312,
                            name.span,
                            format!("`{}` is declared {ty} but given {}", name.name, value.ty),
                        )
                        .with_label(format!("expected {ty}"))
                        .with_help(cast_help(&value.ty, &ty)),
                    );
                }
                ty
            }
        };
        if let Type::Tile { element, shape } = &ty {
            self.shared_bytes += shape.iter().product::<u64>() * element.size();
        }
        self.declare_local(name, ty, kind, value.uniformity);
    }

    pub(super) fn local_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(name) => match Scalar::from_name(&name.name) {
                Some(scalar) => Type::Scalar(scalar),
                None => {
                    self.error(
                        Diagnostic::error(
                            Code::E0201,
                            name.span,
                            format!("unknown type `{}`", name.name),
                        )
                        .with_label("not a type")
                        .with_help(
                            eight_bit_help(&name.name).unwrap_or_else(|| {
                                "the scalar types are f32, i32, u32, i64, u64, f16 and bool"
                                    .to_owned()
                            }),
                        ),
                    );
                    Type::Error
                }
            },
            TypeExpr::Tensor { span, .. } => {
                self.error(
                    Diagnostic::error(Code::E0309, *span, "a local cannot be a tensor")
                        .with_label("tensors are kernel parameters")
                        .with_help("copy a tile of it instead: var t = A[r :+ 64, :]"),
                );
                Type::Error
            }
            TypeExpr::Tile { span, .. } => {
                self.error(
                    Diagnostic::error(
                        Code::E0309,
                        *span,
                        "a local's type cannot be written as a tile",
                    )
                    .with_label("tile types are for function parameters")
                    .with_help("leave the type out: var t = A[r :+ 64, :] is a tile"),
                );
                Type::Error
            }
            TypeExpr::Error(_) => Type::Error,
        }
    }

    pub(super) fn no_value(&mut self, span: Span) {
        self.error(
            Diagnostic::error(Code::E0314, span, "this expression has no value")
                .with_label("it returns nothing, as barrier() and a function without `-> T` do"),
        );
    }

    /// The uniformity a variable gets when `value` is assigned to it here.
    pub(super) fn assigned_uniformity(&self, id: usize, value: Uniformity) -> Uniformity {
        let depth = self.vars[id].control_depth.min(self.control.len());
        let control =
            strongest(&self.control[depth..]).map_or(Uniformity::Uniform, |c| c.uniformity);
        value.join(control)
    }

    pub(super) fn assign(
        &mut self,
        target: &Expr,
        op: Option<BinaryOp>,
        value_expr: &Expr,
        span: Span,
    ) {
        let value = match op {
            None => self.fragment_value(value_expr),
            Some(_) => self.expr(value_expr),
        };
        match &target.kind {
            ExprKind::Name(name) => {
                let Some(id) = self.lookup(name) else {
                    self.unknown_name(name, target.span, Wants::Value);
                    return;
                };
                let (ty, kind, declared_at) = {
                    let var = &self.vars[id];
                    (var.ty.clone(), var.kind, var.declared_at)
                };
                let uniformity = self.env[id];
                self.names.push(NameInfo {
                    span: target.span,
                    name: name.clone(),
                    kind,
                    ty: ty.clone(),
                    uniformity,
                    declared_at: Some(declared_at),
                });
                // A whole array takes only a fragment (`acc = mma<over ctx.lane>(a, b, acc)`).
                if ty.is_array() && !(op.is_none() && super::matrix::gives_fragment(value_expr)) {
                    self.whole_array(target.span, &ty);
                    return;
                }
                // A function's tile parameter is its argument, by reference: writable whole as
                // by element (a kernel has no tile parameters).
                let tile_param = kind == NameKind::Param && ty.is_tile();
                if kind != NameKind::Var && !tile_param {
                    self.error(
                        Diagnostic::error(
                            Code::E0204,
                            target.span,
                            format!("`{name}` cannot be assigned: it is {}", kind_phrase(kind)),
                        )
                        .with_label("assigned here")
                        .with_secondary(declared_at, "declared here")
                        .with_help(match kind {
                            NameKind::Let => {
                                format!("declare it with `var {name} = ...` to change it")
                            }
                            _ => "copy it into a var to change it".to_owned(),
                        }),
                    );
                    return;
                }
                // `acc += a @ b` of f16 tiles into an f32 tile: products and sums in f32.
                let mixed = matches!(
                    (&ty, &value.ty, &value_expr.kind, op),
                    (
                        Type::Tile { element: Scalar::F32, shape },
                        Type::Tile { element: Scalar::F16, shape: product },
                        ExprKind::Binary(BinaryOp::MatMul, ..),
                        None | Some(BinaryOp::Add),
                    ) if shape == product
                );
                let result = match mixed {
                    true => Some(Value::new(ty.clone(), value.uniformity)),
                    false => self.assigned_value(&ty, op, &value, value_expr.span, span),
                };
                if let Some(result) = result {
                    let combined = match op {
                        Some(_) => result.uniformity.join(self.env[id]),
                        None => result.uniformity,
                    };
                    self.env[id] = self.assigned_uniformity(id, combined);
                }
            }
            ExprKind::Index { base, indices } => {
                if let Some(id) = self.array_var(base) {
                    self.array_store(
                        id,
                        base,
                        indices,
                        target.span,
                        op,
                        &value,
                        value_expr.span,
                        span,
                    );
                    return;
                }
                let Some((element, is_tile_store)) = self.store_target(base, indices, target.span)
                else {
                    return;
                };
                if is_tile_store {
                    self.require_control(Uniformity::Uniform, "a tile store", target.span);
                    let fits = match &value.ty {
                        Type::Tile { .. } => value.ty == element,
                        other => other.is_numeric() || other.is_error(),
                    };
                    if !fits && !element.is_error() {
                        self.error(
                            Diagnostic::error(
                                Code::E0309,
                                value_expr.span,
                                format!("{} cannot be stored into {element}", value.ty),
                            )
                            .with_label("shapes and element types must match")
                            .with_secondary(target.span, format!("this is {element}")),
                        );
                    }
                } else {
                    self.assigned_value(&element, op, &value, value_expr.span, span);
                }
            }
            ExprKind::Error => {}
            _ => {
                let found = self.expr(target);
                if !found.ty.is_error() {
                    self.error(
                        Diagnostic::error(Code::E0204, target.span, "this cannot be assigned to")
                            .with_label("not a variable, a tensor element or a tile")
                            .with_help("assign to a var, to A[i, j] or to a tile A[r :+ 64, :]"),
                    );
                }
            }
        }
    }

    /// Checks `target op= value` for a scalar target of type `target`; the result's value.
    pub(super) fn assigned_value(
        &mut self,
        target: &Type,
        op: Option<BinaryOp>,
        value: &Value,
        value_span: Span,
        stmt_span: Span,
    ) -> Option<Value> {
        let result = match op {
            None => value.clone(),
            Some(op) => {
                let current = Value::new(target.clone(), Uniformity::Uniform);
                self.binary_types(op, &current, value, stmt_span)
            }
        };
        if result.ty.is_error() || target.is_error() {
            return Some(result);
        }
        if value.ty == Type::Unit {
            self.no_value(value_span);
            return None;
        }
        if result.ty == Type::WideLiteral && !assignable(&result.ty, target) {
            self.error(
                Diagnostic::error(
                    Code::E0311,
                    value_span,
                    format!("this integer does not fit in {target}"),
                )
                .with_label("larger than 4294967295")
                .with_help("an integer past 32 bits is an i64 or a u64: store it in one"),
            );
            return None;
        }
        if !assignable(&result.ty, target) {
            self.error(
                Diagnostic::error(
                    Code::E0312,
                    value_span,
                    format!("expected {target}, found {}", result.ty),
                )
                .with_label(format!("this is {}", result.ty))
                .with_help(cast_help(&result.ty, target)),
            );
            return None;
        }
        Some(result)
    }

    /// The element type of an assignment target `base[indices]`, and whether it is a tile
    /// store.
    pub(super) fn store_target(
        &mut self,
        base: &Expr,
        indices: &[IndexArg],
        span: Span,
    ) -> Option<(Type, bool)> {
        let ExprKind::Name(name) = &base.kind else {
            self.expr(base);
            self.error(
                Diagnostic::error(
                    Code::E0306,
                    base.span,
                    "only tensors and tiles can be indexed",
                )
                .with_label("not a tensor or tile name"),
            );
            return None;
        };
        let Some(id) = self.lookup(name) else {
            self.unknown_name(name, base.span, Wants::Indexed);
            return None;
        };
        let base_value = self.use_var(id, base.span);
        if let Type::Tile { .. } = &base_value.ty {
            self.tile_writable(id, name, base.span);
        }
        if let Type::Tensor { .. } = &base_value.ty {
            self.tensor_stores.push((self.kernel_name(name), base.span));
        }
        let value = self.index(&base_value, base.span, indices, span);
        let is_tile = value.ty.is_tile() && base_value.ty != value.ty;
        Some((
            value.ty,
            is_tile && matches!(base_value.ty, Type::Tensor { .. }),
        ))
    }

    /// The element type `base` (a tensor's name) holds in memory, when it is an 8-bit one,
    /// which a store takes as its widened type and an atomic not at all.
    pub(super) fn narrow_element(&self, base: &Expr) -> Option<Scalar> {
        let ExprKind::Name(name) = &base.kind else {
            return None;
        };
        let id = self.lookup(name)?;
        match &self.vars[id].ty {
            Type::Tensor { element, .. } if element.size() == 1 => Some(*element),
            _ => None,
        }
    }

    pub(super) fn if_(
        &mut self,
        condition: &Expr,
        then_block: &Block,
        else_branch: Option<&Stmt>,
    ) -> Vec<Exit> {
        let cond = self.condition(condition);
        self.push_cause(cond.uniformity, condition.span, CauseKind::Condition);
        let before = self.env.clone();
        let mut exits = self.block(then_block);
        let after_then = std::mem::replace(&mut self.env, before);
        self.env.resize(self.vars.len(), Uniformity::Uniform);
        if let Some(branch) = else_branch {
            exits.extend(self.stmt(branch));
        }
        join_env(&mut self.env, &after_then);
        self.control.pop();
        exits
    }

    /// E0204 where tile variable `id` (`name`, written at `span`) is a `let`. A function's
    /// tile parameter is its argument, which the call holds to a var.
    pub(super) fn tile_writable(&mut self, id: usize, name: &str, span: Span) {
        if matches!(self.vars[id].kind, NameKind::Var | NameKind::Param) {
            return;
        }
        self.error(
            Diagnostic::error(
                Code::E0204,
                span,
                format!("the tile `{name}` cannot be written: it is a let"),
            )
            .with_label("written here")
            .with_secondary(self.vars[id].declared_at, "declared here")
            .with_help(format!(
                "declare it with `var {name} = ...` to write its elements"
            )),
        );
    }

    pub(super) fn condition(&mut self, condition: &Expr) -> Value {
        let value = self.expr(condition);
        if value.ty != Type::BOOL && !value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0303,
                    condition.span,
                    format!("a condition must be a bool, not {}", value.ty),
                )
                .with_label(format!("this is {}", value.ty))
                .with_help("compare it, as in `x != 0`"),
            );
        }
        value
    }

    pub(super) fn jump(&mut self, keyword: &'static str, span: Span) -> Vec<Exit> {
        let Some(frame) = self.frames.last() else {
            self.error(
                Diagnostic::error(Code::E0313, span, format!("`{keyword}` outside a loop"))
                    .with_label("no loop to leave")
                    .with_help("use `return` to end the kernel for this thread"),
            );
            return Vec::new();
        };
        let cause = strongest(&self.control[frame.control_base..])
            .filter(|c| c.uniformity > Uniformity::Uniform)
            .map(|c| early_exit(c, keyword, span));
        let env = self.env.clone();
        if let Some(frame) = self.frames.last_mut() {
            let slot = if keyword == "break" {
                &mut frame.break_env
            } else {
                &mut frame.continue_env
            };
            match slot {
                Some(existing) => join_env(existing, &env),
                None => *slot = Some(env),
            }
            if let Some(cause) = cause {
                if frame
                    .divergent_exit
                    .is_none_or(|d| cause.uniformity > d.uniformity)
                {
                    frame.divergent_exit = Some(cause);
                }
            }
        }
        vec![Exit { keyword, cause }]
    }

    /// Walks a loop: `head` checks the condition or range and gives the trip-count cause.
    pub(super) fn loop_(
        &mut self,
        key: Span,
        body: &Block,
        head: impl FnOnce(&mut Self) -> Option<Cause>,
        declare: impl FnOnce(&mut Self),
    ) -> Vec<Exit> {
        let key = key.start ^ self.loop_salt;
        let state = self.previous_loops.get(&key).cloned().unwrap_or_default();
        join_env(&mut self.env, &state.back_edge);
        if self.widen {
            for (id, var) in self.vars.iter().enumerate() {
                if var.kind == NameKind::Var {
                    self.env[id] = Uniformity::Varying;
                }
            }
        }
        let at_head = self.env.clone();
        let depth = self.control.len();
        let trip = head(self);
        if let Some(trip) = trip {
            self.control.push(trip);
        }
        if let Some((uniformity, span, kind)) = state.divergent_exit {
            self.push_cause(uniformity, span, kind);
        }
        self.frames.push(LoopFrame {
            key,
            control_base: depth,
            continue_env: None,
            break_env: None,
            divergent_exit: None,
        });
        let exits = self.with_scope(body.span, |checker| {
            declare(checker);
            checker.statements(&body.stmts)
        });
        let frame = self.frames.pop();
        self.control.truncate(depth);
        let mut back_edge = self.env.clone();
        let mut after = at_head.clone();
        if let Some(frame) = frame {
            if let Some(env) = &frame.continue_env {
                join_env(&mut back_edge, env);
            }
            if let Some(env) = &frame.break_env {
                join_env(&mut after, env);
            }
            let mut merged = LoopState {
                back_edge: back_edge.clone(),
                divergent_exit: frame.divergent_exit.map(|c| (c.uniformity, c.span, c.kind)),
            };
            join_env(&mut merged.back_edge, &state.back_edge);
            if merged.divergent_exit.is_none() {
                merged.divergent_exit = state.divergent_exit;
            }
            // Another pass is needed only if what flows back would change the loop head.
            let mut head = at_head.clone();
            join_env(&mut head, &merged.back_edge);
            if head != at_head || merged.divergent_exit != state.divergent_exit {
                self.loops_changed = true;
            }
            self.loops.insert(frame.key, merged);
        }
        join_env(&mut after, &back_edge);
        // Variables declared in the body are out of scope; `env` stays indexed like `vars`.
        after.resize(self.vars.len(), Uniformity::Uniform);
        self.env = after;
        // Break and continue stay inside the loop; returns leave it.
        exits
            .into_iter()
            .filter(|e| e.keyword == "return")
            .collect()
    }

    pub(super) fn while_(&mut self, condition: &Expr, body: &Block, span: Span) -> Vec<Exit> {
        self.loop_(
            span,
            body,
            |checker| {
                let cond = checker.condition(condition);
                Some(Cause {
                    uniformity: cond.uniformity,
                    span: condition.span,
                    kind: CauseKind::Condition,
                })
            },
            |_| {},
        )
    }

    pub(super) fn for_(
        &mut self,
        var: &Ident,
        range: &Expr,
        body: &Block,
        span: Span,
    ) -> Vec<Exit> {
        let mut var_uniformity = Uniformity::Uniform;
        let mut trip = Uniformity::Uniform;
        let mut range_ok = true;
        let bounds = match &range.kind {
            ExprKind::Call { callee, args } if callee.name == "range" => Some(args),
            _ => None,
        };
        match bounds {
            Some(args) if (1..=3).contains(&args.len()) => {
                let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                for (arg, value) in args.iter().zip(&values) {
                    if !(assignable(&value.ty, &Type::I32) || value.ty.is_error()) {
                        range_ok = false;
                        self.error(
                            Diagnostic::error(
                                Code::E0310,
                                arg.span,
                                format!("range takes i32 bounds, not {}", value.ty),
                            )
                            .with_label(format!("this is {}", value.ty))
                            .with_help(cast_help(&value.ty, &Type::I32)),
                        );
                    }
                    trip = trip.join(value.uniformity);
                }
                if let [start, _end] = values.as_slice() {
                    var_uniformity = start.uniformity;
                }
                if let [start, _end, step] = values.as_slice() {
                    var_uniformity = start.uniformity.join(step.uniformity);
                    if let ExprKind::Int(Some(0)) = args[2].kind {
                        self.error(
                            Diagnostic::error(
                                Code::E0310,
                                args[2].span,
                                "a range with step 0 never ends",
                            )
                            .with_label("the step must not be zero"),
                        );
                    }
                }
            }
            Some(args) => {
                range_ok = false;
                self.error(
                    Diagnostic::error(
                        Code::E0310,
                        range.span,
                        format!("range takes 1 to 3 arguments, not {}", args.len()),
                    )
                    .with_label("range(end), range(start, end) or range(start, end, step)"),
                );
            }
            None => {
                range_ok = false;
                let value = self.expr(range);
                if !value.ty.is_error() {
                    self.error(
                        Diagnostic::error(
                            Code::E0310,
                            range.span,
                            "a for loop runs over range(...)",
                        )
                        .with_label("not a range")
                        .with_help("write for i in range(start, end, step)"),
                    );
                }
            }
        }
        let ty = if range_ok { Type::I32 } else { Type::Error };
        self.loop_(
            span,
            body,
            |_| {
                Some(Cause {
                    uniformity: trip,
                    span: range.span,
                    kind: CauseKind::TripCount,
                })
            },
            |checker| checker.declare_local(var, ty, NameKind::LoopVar, var_uniformity),
        )
    }
}

/// The help for `i8` or `u8` where a scalar type is needed: they are element types only.
pub(super) fn eight_bit_help(name: &str) -> Option<String> {
    let element = Scalar::element_from_name(name).filter(|e| e.size() == 1)?;
    Some(format!(
        "{name} is only a tensor's element type: its values are {} (a load widens them, a store keeps the low byte, {name}(x) wraps)",
        element.widened().name()
    ))
}
