//! Expressions: each AST expression as IR operations in the current block, and the type its
//! untyped literals take (`literal_type`): the type their use asks for when they can take it,
//! else their default (`i32`, or `f32` for a float literal), as the checker typed them; a cast
//! asks nothing of its argument.

use super::lowering::{binary_op, constant, Binding, Lowering};
use super::*;
use crate::syntax::ast::{self, ExprKind, IndexArg};
use crate::syntax::ctx;

impl Lowering {
    /// The type an expression has by itself; `None` for untyped literals.
    pub(super) fn static_type(&self, e: &ast::Expr) -> Option<Scalar> {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) => None,
            ExprKind::Bool(_) => Some(Scalar::Bool),
            ExprKind::Name(name) => match self.lookup(name)? {
                Binding::Reg(_, ty) | Binding::Scalar(_, ty) | Binding::Const(_, ty) => Some(ty),
                Binding::Dim(_) => Some(Scalar::I32),
                Binding::Tensor(_) | Binding::Tile(_) | Binding::Local(_) => None,
            },
            ExprKind::Ctx(_) => Some(Scalar::I32),
            ExprKind::Unary(ast::UnaryOp::Not, _) => Some(Scalar::Bool),
            ExprKind::Unary(_, operand) => self.static_type(operand),
            ExprKind::Binary(op, l, r) => {
                if op.is_comparison() || matches!(op, ast::BinaryOp::And | ast::BinaryOp::Or) {
                    Some(Scalar::Bool)
                } else {
                    self.static_type(l).or_else(|| self.static_type(r))
                }
            }
            ExprKind::Call { callee, .. } if self.function(&callee.name).is_some() => self
                .function(&callee.name)
                .and_then(|f| self.result_type(f)),
            ExprKind::Call { callee, args } => match Scalar::element_from_name(&callee.name) {
                Some(ty) => Some(ty.widened()),
                None => match callee.name.as_str() {
                    "select" => args
                        .get(1)
                        .and_then(|a| self.static_type(a))
                        .or_else(|| args.get(2).and_then(|a| self.static_type(a))),
                    _ => args.iter().find_map(|a| self.static_type(a)),
                },
            },
            ExprKind::Collective { op, args, .. } => match op.name.as_str() {
                "any" | "all" => Some(Scalar::Bool),
                "ballot" => Some(Scalar::U32),
                _ => args.first().and_then(|a| self.static_type(a)),
            },
            ExprKind::Index { base, .. } => match &base.kind {
                ExprKind::Name(name) => match self.lookup(name)? {
                    // An 8-bit element is read as the i32 or u32 it widens to (a literal beside
                    // it is one of those, never wrapped to 8 bits).
                    Binding::Tensor(i) => Some(self.params[i].element().widened()),
                    Binding::Tile(array) => Some(self.shared[array].element),
                    Binding::Local(array) => Some(self.locals[array].element),
                    _ => None,
                },
                _ => None,
            },
            ExprKind::Bitcast { to, .. } => Scalar::from_name(&to.name),
            ExprKind::Scratch { .. } | ExprKind::Array { .. } | ExprKind::Error => None,
        }
    }

    pub(super) fn expr(&mut self, e: &ast::Expr, hint: Option<Scalar>) -> (Operand, Scalar) {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(value) => {
                let value = value.unwrap_or(0);
                let default = if value > u64::from(u32::MAX) {
                    Scalar::I64
                } else {
                    Scalar::I32
                };
                let ty = hint.filter(|t| *t != Scalar::Bool).unwrap_or(default);
                match ty {
                    // Past one word: computed into a register.
                    _ if ty.is_wide() && value > u64::from(u32::MAX) => {
                        (self.value(Op::Const64(value), ty, span), ty)
                    }
                    _ if ty.is_wide() => (Operand::Const(value as u32), ty),
                    _ => (constant(value as f64, ty), ty),
                }
            }
            ExprKind::Float(value) => {
                let ty = hint.filter(|t| t.is_float()).unwrap_or(Scalar::F32);
                (constant(*value, ty), ty)
            }
            ExprKind::Bool(value) => (Operand::Const(u32::from(*value)), Scalar::Bool),
            ExprKind::Name(name) => match self.lookup(name) {
                Some(Binding::Reg(reg, ty)) => (Operand::Reg(reg), ty),
                Some(Binding::Const(bits, ty)) => (Operand::Const(bits), ty),
                Some(Binding::Scalar(index, ty)) => (self.value(Op::Scalar(index), ty, span), ty),
                Some(Binding::Dim(index)) => {
                    (self.value(Op::Dim(index), Scalar::I32, span), Scalar::I32)
                }
                _ => (Operand::Const(0), Scalar::I32),
            },
            ExprKind::Ctx(path) => match ctx::resolve(path, span) {
                Ok(field) => (self.value(Op::Ctx(field), Scalar::I32, span), Scalar::I32),
                Err(_) => (Operand::Const(0), Scalar::I32),
            },
            ExprKind::Unary(op, operand) => {
                let hint = match op {
                    // `~` has no float meaning: `f32(~0)` computes `~0` as an i32.
                    ast::UnaryOp::BitNot => hint.filter(|t| t.is_integer()),
                    _ => hint,
                };
                let (value, ty) = self.expr(operand, hint);
                let op = match op {
                    ast::UnaryOp::Neg => UnaryOp::Neg,
                    ast::UnaryOp::Not => UnaryOp::Not,
                    ast::UnaryOp::BitNot => UnaryOp::BitNot,
                };
                (self.value(Op::Unary(op, ty, value), ty, span), ty)
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, hint, span),
            ExprKind::Call { callee, args } => self.call(callee, args, hint, span),
            ExprKind::Collective { op, over, args } => {
                let over = match &over.kind {
                    ExprKind::Ctx(path) if ctx::resolve(path, span) == Ok(CtxField::Thread) => {
                        Over::Cta
                    }
                    _ => Over::Warp,
                };
                let arg_hint = self
                    .static_type(e)
                    .filter(|_| !matches!(op.name.as_str(), "any" | "all" | "ballot"));
                let (value, ty) = match args.first() {
                    Some(arg) => self.expr(arg, arg_hint.or(hint)),
                    None => (Operand::Const(0), Scalar::I32),
                };
                if ty.is_wide() && over == Over::Warp {
                    return (self.wide_warp_collective(&op.name, ty, value, span), ty);
                }
                if op.name == "prefix_sum" && over == Over::Cta {
                    return (self.cta_prefix_sum(ty, value, span), ty);
                }
                let (op, result) = match op.name.as_str() {
                    "any" => (Op::Vote(Vote::Any, value), Scalar::Bool),
                    "all" => (Op::Vote(Vote::All, value), Scalar::Bool),
                    "ballot" => (Op::Vote(Vote::Ballot, value), Scalar::U32),
                    "prefix_sum" => (Op::PrefixSum(ty, value), ty),
                    name => (Op::Reduce(reduce_op(name), over, ty, value), ty),
                };
                (self.value(op, result, span), result)
            }
            ExprKind::Index { base, indices } => {
                let binding = match &base.kind {
                    ExprKind::Name(name) => self.lookup(name),
                    _ => None,
                };
                if let Some(Binding::Local(array)) = binding {
                    let element = self.locals[array].element;
                    let (index, coordinates) = self.local_index(array, indices, span);
                    let op = Op::LocalLoad {
                        array,
                        index,
                        coordinates,
                    };
                    return (self.value(op, element, span), element);
                }
                if let Some(Binding::Tile(array)) = binding {
                    self.mark_indexed(array);
                    let element = self.shared[array].element;
                    let indices = self.indices(indices);
                    return (
                        self.value(Op::SharedLoad { array, indices }, element, span),
                        element,
                    );
                }
                let tensor = match binding {
                    Some(Binding::Tensor(t)) => Some(t),
                    _ => None,
                };
                let single = indices.iter().all(|i| matches!(i, IndexArg::Single(_)));
                match (tensor, single) {
                    (Some(tensor), true) => {
                        // An 8-bit element loads as its widened value.
                        let element = self.params[tensor].element().widened();
                        let indices = self.indices(indices);
                        (
                            self.value(
                                Op::Load {
                                    tensor,
                                    indices,
                                    guarded: false,
                                },
                                element,
                                span,
                            ),
                            element,
                        )
                    }
                    _ => {
                        self.not_yet(span, "tiles");
                        (Operand::Const(0), Scalar::F32)
                    }
                }
            }
            ExprKind::Bitcast { to, args } => {
                let to = Scalar::from_name(&to.name).unwrap_or(Scalar::U32);
                let Some(arg) = args.first() else {
                    return (Operand::Const(0), to);
                };
                // An integer literal is an i32 where it fits, else a u32 (the checker's rule).
                let hint = match &arg.kind {
                    _ if to.is_wide() => Some(to),
                    ExprKind::Int(Some(n)) if *n > i32::MAX as u64 => Some(Scalar::U32),
                    _ => None,
                };
                let (value, from) = self.expr(arg, hint);
                if from == to {
                    return (value, to);
                }
                (self.value(Op::Bitcast { from, to, value }, to, span), to)
            }
            // A tile where a scalar is needed: the checker refused it already.
            ExprKind::Scratch { .. } | ExprKind::Array { .. } | ExprKind::Error => {
                (Operand::Const(0), Scalar::I32)
            }
        }
    }

    fn binary(
        &mut self,
        op: ast::BinaryOp,
        l: &ast::Expr,
        r: &ast::Expr,
        hint: Option<Scalar>,
        span: Span,
    ) -> (Operand, Scalar) {
        if matches!(op, ast::BinaryOp::MatMul) || self.is_tile_value(l) || self.is_tile_value(r) {
            self.not_yet(span, "a tile operation whose result is not stored");
            return (Operand::Const(0), Scalar::F32);
        }
        let comparison = op.is_comparison();
        let logical = matches!(op, ast::BinaryOp::And | ast::BinaryOp::Or);
        let operand_type = if logical {
            Scalar::Bool
        } else {
            let inferred = self.static_type(l).or_else(|| self.static_type(r));
            let hint = if comparison {
                None
            } else {
                integer_hint(op, hint)
            };
            inferred.unwrap_or_else(|| {
                // Literals past 32 bits are 64-bit integers (`i64` unless the use asks `u64`).
                if wide_literal(l) || wide_literal(r) {
                    hint.filter(|t| t.is_wide()).unwrap_or(Scalar::I64)
                } else {
                    literal_type(untyped_float(l) || untyped_float(r), hint)
                }
            })
        };
        let (a, _) = self.expr(l, Some(operand_type));
        if logical {
            return self.short_circuit(op, a, r, span);
        }
        let (b, _) = self.expr(r, Some(operand_type));
        let compare = |c| Some(c);
        let cmp = match op {
            ast::BinaryOp::Lt => compare(CompareOp::Lt),
            ast::BinaryOp::Le => compare(CompareOp::Le),
            ast::BinaryOp::Gt => compare(CompareOp::Gt),
            ast::BinaryOp::Ge => compare(CompareOp::Ge),
            ast::BinaryOp::Eq => compare(CompareOp::Eq),
            ast::BinaryOp::Ne => compare(CompareOp::Ne),
            _ => None,
        };
        if let Some(cmp) = cmp {
            return (
                self.value(Op::Compare(cmp, operand_type, a, b), Scalar::Bool, span),
                Scalar::Bool,
            );
        }
        let op = binary_op(op).unwrap_or(BinaryOp::Add);
        // Two 32-bit integer constants (an unrolled loop's `k + 1`): the result is one too,
        // the same wrapping bits every target computes, and no statement to run.
        if let (Operand::Const(x), Operand::Const(y), Scalar::I32 | Scalar::U32) =
            (a, b, operand_type)
        {
            let folded = match op {
                BinaryOp::Add => Some(x.wrapping_add(y)),
                BinaryOp::Sub => Some(x.wrapping_sub(y)),
                BinaryOp::Mul => Some(x.wrapping_mul(y)),
                BinaryOp::And => Some(x & y),
                BinaryOp::Or => Some(x | y),
                BinaryOp::Xor => Some(x ^ y),
                _ => None,
            };
            if let Some(bits) = folded {
                return (Operand::Const(bits), operand_type);
            }
        }
        (
            self.value(Op::Binary(op, operand_type, a, b), operand_type, span),
            operand_type,
        )
    }

    /// `a && b` evaluates `b` only where `a` holds: `r = a; if r { r = b }` (and dually).
    fn short_circuit(
        &mut self,
        op: ast::BinaryOp,
        a: Operand,
        r: &ast::Expr,
        span: Span,
    ) -> (Operand, Scalar) {
        let result = self.reg(Scalar::Bool, None);
        self.emit(
            StmtKind::Let {
                dst: result,
                op: Op::Copy(a),
            },
            span,
        );
        let condition = if op == ast::BinaryOp::And {
            Operand::Reg(result)
        } else {
            self.value(
                Op::Unary(UnaryOp::Not, Scalar::Bool, Operand::Reg(result)),
                Scalar::Bool,
                span,
            )
        };
        self.when(condition, span, |l| {
            let (b, _) = l.expr(r, Some(Scalar::Bool));
            l.emit(
                StmtKind::Let {
                    dst: result,
                    op: Op::Copy(b),
                },
                span,
            );
        });
        (Operand::Reg(result), Scalar::Bool)
    }

    /// `i8(x)` and `u8(x)` after the cast to `i32` (`u32`): the low byte, sign-extended for
    /// `i8`, as C's conversions to `int8_t` and `uint8_t` wrap. Other casts: `value` itself.
    fn wrap_to_8_bits(&mut self, to: Scalar, value: Operand, span: Span) -> Operand {
        let (i32_, u32_) = (Scalar::I32, Scalar::U32);
        match to {
            Scalar::I8 => {
                let up = self.value(
                    Op::Binary(BinaryOp::Shl, i32_, value, Operand::Const(24)),
                    i32_,
                    span,
                );
                self.value(
                    Op::Binary(BinaryOp::Shr, i32_, up, Operand::Const(24)),
                    i32_,
                    span,
                )
            }
            Scalar::U8 => self.value(
                Op::Binary(BinaryOp::And, u32_, value, Operand::Const(255)),
                u32_,
                span,
            ),
            _ => value,
        }
    }

    fn call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        hint: Option<Scalar>,
        span: Span,
    ) -> (Operand, Scalar) {
        let name = callee.name.as_str();
        if let Some(index) = self.function(name) {
            return self.inline(index, args, span);
        }
        if let Some(to) = Scalar::element_from_name(name) {
            let wide = to.widened();
            let Some(arg) = args.first() else {
                return (Operand::Const(0), wide);
            };
            // A cast converts a value: its argument is typed on its own, so untyped literals
            // take their default types (`f32(7 / 2)` is 3.0, `i32(sqrt(16.0))` is 4). A lone
            // integer literal is the smallest of i32, u32, i64 and u64 that holds it (the
            // cast's own type when that is 64 bits), so `i64(3000000000)` is 3000000000.
            let hint = match &arg.kind {
                ExprKind::Int(Some(_)) if wide.is_wide() => Some(wide),
                ExprKind::Int(Some(n)) => Some(match *n {
                    n if n <= i32::MAX as u64 => Scalar::I32,
                    n if n <= u64::from(u32::MAX) => Scalar::U32,
                    n if n <= i64::MAX as u64 => Scalar::I64,
                    _ => Scalar::U64,
                }),
                _ => None,
            };
            let (value, from) = self.expr(arg, hint);
            let cast = self.value(
                Op::Cast {
                    from,
                    to: wide,
                    value,
                },
                wide,
                span,
            );
            return (self.wrap_to_8_bits(to, cast, span), wide);
        }
        if let Some(op) = AtomicOp::from_name(name) {
            return self.atomic(op, args, true, span);
        }
        if matches!(name, "sum" | "max") && args.first().is_some_and(|a| self.is_tile_value(a)) {
            return self.tile_to_scalar(name, args, span);
        }
        let shuffle = match name {
            "shuffle" => Some(Shuffle::Index),
            "shuffle_xor" => Some(Shuffle::Xor),
            "shuffle_up" => Some(Shuffle::Up),
            "shuffle_down" => Some(Shuffle::Down),
            "broadcast" => Some(Shuffle::Broadcast),
            _ => None,
        };
        if let (Some(kind), [x, lane]) = (shuffle, args) {
            let x_hint = self.static_type(x).or(hint);
            let (value, ty) = self.expr(x, x_hint);
            let (lane, _) = self.expr(lane, Some(Scalar::I32));
            return (self.value(Op::Shuffle(kind, value, lane), ty, span), ty);
        }
        let first_operand = usize::from(name == "select");
        let ty = args[first_operand.min(args.len())..]
            .iter()
            .find_map(|a| self.static_type(a))
            .unwrap_or_else(|| literal_type(untyped_call_is_float(name, args), hint));
        let mut operands: Vec<Operand> = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            let want = if name == "select" && i == 0 {
                Scalar::Bool
            } else {
                ty
            };
            operands.push(self.expr(arg, Some(want)).0);
        }
        let operand = |i: usize| operands.get(i).copied().unwrap_or(Operand::Const(0));
        let op = match name {
            "min" => Op::Binary(BinaryOp::Min, ty, operand(0), operand(1)),
            "max" => Op::Binary(BinaryOp::Max, ty, operand(0), operand(1)),
            "clamp" => {
                let low = self.value(
                    Op::Binary(BinaryOp::Max, ty, operand(0), operand(1)),
                    ty,
                    span,
                );
                Op::Binary(BinaryOp::Min, ty, low, operand(2))
            }
            "select" => Op::Select(operand(0), operand(1), operand(2)),
            "fma" => Op::Fma(operand(0), operand(1), operand(2)),
            "pow" => Op::Pow(operand(0), operand(1)),
            other => Op::Math(math_fn(other), ty, operand(0)),
        };
        (self.value(op, ty, span), ty)
    }
}

impl Lowering {
    /// `atomic_op(X[i], value)` or `atomic_compare_exchange(X[i], expected, value)`; with
    /// `keep`, the old value in a register (else the statement drops it).
    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        args: &[ast::Expr],
        keep: bool,
        span: Span,
    ) -> (Operand, Scalar) {
        let Some(ExprKind::Index { base, indices }) = args.first().map(|a| &a.kind) else {
            return (Operand::Const(0), Scalar::I32);
        };
        let ExprKind::Name(name) = &base.kind else {
            return (Operand::Const(0), Scalar::I32);
        };
        let (place, ty) = match self.lookup(name) {
            Some(Binding::Tensor(tensor)) => {
                let indices = self.indices(indices);
                let ty = self.params[tensor].element();
                (Place::Tensor { tensor, indices }, ty)
            }
            Some(Binding::Tile(array)) => {
                self.mark_indexed(array);
                let indices = self.indices(indices);
                let ty = self.shared[array].element;
                (Place::Shared { array, indices }, ty)
            }
            _ => return (Operand::Const(0), Scalar::I32),
        };
        let mut operands = args[1..].iter().map(|a| self.expr(a, Some(ty)).0);
        let first = operands.next().unwrap_or(Operand::Const(0));
        let (expected, value) = match (op, operands.next()) {
            (AtomicOp::CompareExchange, Some(new)) => (Some(first), new),
            _ => (None, first),
        };
        let dst = keep.then(|| self.reg(ty, None));
        self.emit(
            StmtKind::Atomic(Atomic {
                dst,
                op,
                ty,
                place,
                value,
                expected,
            }),
            span,
        );
        (dst.map_or(Operand::Const(0), Operand::Reg), ty)
    }
}

/// The type untyped operands of `op` take from their use: never bool, and never a float for an
/// operator only integers have (`f32(7 & 3)` computes `7 & 3` as an i32; the checker refuses
/// such literals wherever else a float is needed).
fn integer_hint(op: ast::BinaryOp, hint: Option<Scalar>) -> Option<Scalar> {
    use ast::BinaryOp::*;
    let integer_only = matches!(op, Rem | Shl | Shr | BitAnd | BitOr | BitXor);
    hint.filter(|t| *t != Scalar::Bool && !(integer_only && t.is_float()))
}

/// The type untyped literals take where their use asks for `hint`: the hint when they can take
/// it (integer literals any number type, float literals a float type), else their default,
/// `f32` or `i32`. The checker has refused every other use, except a cast, which asks for
/// nothing.
fn literal_type(float: bool, hint: Option<Scalar>) -> Scalar {
    let default = if float { Scalar::F32 } else { Scalar::I32 };
    hint.filter(|t| *t != Scalar::Bool && (t.is_float() || !float))
        .unwrap_or(default)
}

/// Whether an expression with no type of its own (made of literals) is a float literal, as
/// the checker types it: a float literal anywhere in its arithmetic, or a float built-in.
fn untyped_float(e: &ast::Expr) -> bool {
    use ast::BinaryOp::*;
    match &e.kind {
        ExprKind::Float(_) => true,
        ExprKind::Unary(ast::UnaryOp::Neg, operand) => untyped_float(operand),
        ExprKind::Binary(Add | Sub | Mul | Div, l, r) => untyped_float(l) || untyped_float(r),
        ExprKind::Call { callee, args } => untyped_call_is_float(&callee.name, args),
        ExprKind::Collective { op, args, .. } => {
            !matches!(op.name.as_str(), "any" | "all" | "ballot") && args.iter().any(untyped_float)
        }
        _ => false,
    }
}

fn untyped_call_is_float(name: &str, args: &[ast::Expr]) -> bool {
    match name {
        _ if Scalar::element_from_name(name).is_some() => false,
        "min" | "max" | "clamp" | "abs" | "sign" => args.iter().any(untyped_float),
        "select" => args.iter().skip(1).any(untyped_float),
        "shuffle" | "shuffle_xor" | "shuffle_up" | "shuffle_down" | "broadcast" => {
            args.first().is_some_and(untyped_float)
        }
        _ => true,
    }
}

fn reduce_op(name: &str) -> Reduce {
    match name {
        "max" => Reduce::Max,
        "min" => Reduce::Min,
        "and" => Reduce::And,
        "or" => Reduce::Or,
        "xor" => Reduce::Xor,
        _ => Reduce::Sum,
    }
}

fn math_fn(name: &str) -> MathFn {
    match name {
        "abs" => MathFn::Abs,
        "sqrt" => MathFn::Sqrt,
        "rsqrt" => MathFn::Rsqrt,
        "exp" => MathFn::Exp,
        "exp2" => MathFn::Exp2,
        "log" => MathFn::Log,
        "log2" => MathFn::Log2,
        "sin" => MathFn::Sin,
        "cos" => MathFn::Cos,
        "tanh" => MathFn::Tanh,
        "floor" => MathFn::Floor,
        "round" => MathFn::Round,
        "trunc" => MathFn::Trunc,
        "sign" => MathFn::Sign,
        "erf" => MathFn::Erf,
        _ => MathFn::Ceil,
    }
}

/// Whether `e` is an integer literal past 32 bits, which only a 64-bit integer holds.
fn wide_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Int(Some(n)) => *n > u64::from(u32::MAX),
        ExprKind::Unary(_, operand) => wide_literal(operand),
        ExprKind::Binary(_, l, r) => wide_literal(l) || wide_literal(r),
        _ => false,
    }
}
