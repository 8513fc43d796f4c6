//! Calls: casts, math built-ins, `barrier()`, shuffles, tile reductions and collectives.
//!
//! Each built-in's signature, the uniformity of its result and the control it needs live here
//! and only here.

use super::types::{unify, Type};
use super::uniformity::Uniformity;
use super::{KernelChecker, Value};
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::AtomicOp;
use crate::ir::{CtxField, Scalar};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Ident};
use crate::syntax::builtins::{FAMILIES, LANE_ONLY, MATH, MATRIX, REDUCTIONS, SHUFFLES};
use crate::syntax::ctx;
pub(super) use crate::syntax::similar::closest;

impl KernelChecker {
    pub(super) fn arity(
        &mut self,
        callee: &Ident,
        args: &[Expr],
        expected: usize,
        span: Span,
    ) -> bool {
        if args.len() == expected {
            return true;
        }
        self.error(
            Diagnostic::error(
                Code::E0302,
                span,
                format!(
                    "`{}` takes {expected} argument{}, not {}",
                    callee.name,
                    if expected == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .with_label(format!("{} given", args.len())),
        );
        false
    }

    /// E0320 where a 64-bit integer goes where only 32-bit values do (`what`: the place);
    /// whether it was one.
    pub(super) fn refuse_wide(&mut self, ty: &Type, span: Span, what: &str, help: &str) -> bool {
        if !ty.is_wide() {
            return false;
        }
        self.error(
            Diagnostic::error(Code::E0320, span, format!("{what} cannot hold {ty}"))
                .with_label(format!("this is {}", ty.clone().concrete()))
                .with_help(help.to_owned()),
        );
        true
    }

    fn wrong_argument(&mut self, callee: &str, value: &Value, span: Span, expected: &str) -> Value {
        if !value.ty.is_error() {
            self.error(
                Diagnostic::error(
                    Code::E0302,
                    span,
                    format!("`{callee}` takes {expected}, not {}", value.ty),
                )
                .with_label(format!("this is {}", value.ty)),
            );
        }
        Value::error()
    }

    /// `bitcast<T>(x)`: the bits of a 32-bit value (`i32`, `u32`, `f32`) read as another
    /// 32-bit type, exactly. An untyped integer literal is an `i32` where it fits, else a `u32`
    /// (`bitcast<f32>(4286578688)` is `-inf`); a float literal is an `f32`.
    pub(super) fn bitcast(&mut self, to: &Ident, args: &[Expr], span: Span) -> Value {
        let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        let callee = Ident {
            name: format!("bitcast<{}>", to.name),
            span: to.span,
        };
        let target = match Scalar::from_name(&to.name) {
            Some(t @ (Scalar::I32 | Scalar::U32 | Scalar::F32 | Scalar::I64 | Scalar::U64)) => t,
            _ => {
                self.error(
                    Diagnostic::error(
                        Code::E0302,
                        to.span,
                        format!(
                            "bitcast reads bits as i32, u32, f32, i64 or u64, not as `{}`",
                            to.name
                        ),
                    )
                    .with_label("not a 32-bit number type")
                    .with_help("write bitcast<u32>(x), bitcast<i32>(x) or bitcast<f32>(x); for a conversion of the value, write u32(x)"),
                );
                return Value::error();
            }
        };
        if !self.arity(&callee, args, 1, span) {
            return Value::error();
        }
        let value = &values[0];
        if target.is_wide() {
            if !value.ty.is_wide()
                && !matches!(
                    value.ty,
                    Type::IntLiteral | Type::IntOnlyLiteral | Type::Error
                )
            {
                return self.wrong_argument(
                    &callee.name,
                    value,
                    args[0].span,
                    "an i64 or u64 (bitcast keeps the width: for a conversion, write i64(x))",
                );
            }
            return Value::new(Type::Scalar(target), value.uniformity);
        }
        let bits32 = matches!(
            value.ty,
            Type::Scalar(Scalar::I32 | Scalar::U32 | Scalar::F32)
                | Type::IntLiteral
                | Type::IntOnlyLiteral
                | Type::FloatLiteral
        );
        if !bits32 {
            return self.wrong_argument(&callee.name, value, args[0].span, "an i32, u32 or f32");
        }
        Value::new(Type::Scalar(target), value.uniformity)
    }

    pub(super) fn call(&mut self, callee: &Ident, args: &[Expr], span: Span) -> Value {
        let name = callee.name.as_str();
        if let Some(index) = self.functions.iter().position(|f| f.name.name == name) {
            return self.user_call(index, callee, args, span);
        }
        if name == "barrier" {
            if self.arity(callee, args, 0, span) {
                self.require_control(Uniformity::Uniform, "barrier()", span);
            }
            return Value::new(Type::Unit, Uniformity::Uniform);
        }
        if name == "range" {
            for arg in args {
                self.expr(arg);
            }
            self.error(
                Diagnostic::error(
                    Code::E0302,
                    span,
                    "range(...) is only the bounds of a for loop",
                )
                .with_label("not a value")
                .with_help("write for i in range(start, end, step) { ... }"),
            );
            return Value::error();
        }
        if let Some(op) = AtomicOp::from_name(name) {
            return self.atomic(op, callee, args, span);
        }
        let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        let uniformity = values
            .iter()
            .fold(Uniformity::Uniform, |u, v| u.join(v.uniformity));
        // `i8(x)` and `u8(x)` wrap to 8 bits and give the widened value (an `i32`, a `u32`).
        if let Some(target) = Scalar::element_from_name(name) {
            if !self.arity(callee, args, 1, span) {
                return Value::error();
            }
            let value = &values[0];
            // `f32(t)` widens a tile, `f16(t)` rounds one: the CTA converts it together.
            if let Type::Tile { shape, .. } = &value.ty {
                if !matches!(target, Scalar::F32 | Scalar::F16) {
                    return self.wrong_argument(
                        name,
                        value,
                        args[0].span,
                        "a number or a bool (a tile converts only to f32 or f16)",
                    );
                }
                self.require_control(Uniformity::Uniform, "a tile conversion", span);
                return Value::new(
                    Type::Tile {
                        element: target,
                        shape: shape.clone(),
                    },
                    Uniformity::Uniform,
                );
            }
            if value.ty.scalar().is_none() && !value.ty.is_error() {
                return self.wrong_argument(name, value, args[0].span, "a number or a bool");
            }
            return Value::new(Type::Scalar(target.widened()), uniformity);
        }
        if SHUFFLES.contains(&name) {
            return self.shuffle(callee, args, &values, span);
        }
        if (name == "sum" || name == "max") && values.first().is_some_and(|v| v.ty.is_tile()) {
            return self.tile_reduction(callee, args, &values, span);
        }
        match name {
            "min" | "max" | "clamp" | "select" | "fma" => {
                self.numeric_call(callee, args, &values, span, uniformity)
            }
            _ if MATH.contains(&name) => self.numeric_call(callee, args, &values, span, uniformity),
            _ if MATRIX.contains(&name) => {
                self.error(
                    Diagnostic::error(
                        Code::E0315,
                        callee.span,
                        format!("`{name}` needs <over ctx.lane>"),
                    )
                    .with_label("a warp's 32 lanes do one matrix operation together")
                    .with_help(format!("write {name}<over ctx.lane>(...)")),
                );
                Value::error()
            }
            _ if REDUCTIONS.contains(&name) || LANE_ONLY.contains(&name) => {
                self.error(
                    Diagnostic::error(Code::E0315, callee.span, format!("`{name}` needs <over ctx.lane> or <over ctx.thread>"))
                        .with_label("over which threads?")
                        .with_help(format!("write {name}<over ctx.lane>(x) for a warp, {name}<over ctx.thread>(x) for the CTA")),
                );
                Value::error()
            }
            _ => {
                let known = FAMILIES.into_iter().flatten().copied();
                let mut diagnostic = Diagnostic::error(
                    Code::E0206,
                    callee.span,
                    format!("there is no function `{name}`"),
                )
                .with_label("not a built-in");
                if let Some(help) = crate::syntax::cuda::help(name) {
                    diagnostic = match crate::syntax::cuda::replacement(name) {
                        Some(tessera) => diagnostic.with_fix(help, callee.span, tessera),
                        None => diagnostic.with_help(help),
                    };
                } else if let Some(similar) = closest(name, known) {
                    let help = format!("a built-in is similar: `{similar}`");
                    diagnostic = diagnostic.with_fix(help, callee.span, similar);
                }
                self.error(diagnostic);
                Value::error()
            }
        }
    }

    /// `atomic_add(X[i], v)` and the rest, `atomic_compare_exchange(X[i], expected, v)`: one
    /// element of a tensor or of a var tile, i32 or u32 (f32 for `atomic_add` only, which both
    /// GPUs' hardware or a compare-exchange loop give); the old value, which differs between
    /// threads however uniform the arguments are. No control is needed.
    fn atomic(&mut self, op: AtomicOp, callee: &Ident, args: &[Expr], span: Span) -> Value {
        let name = op.name();
        let arity = if op == AtomicOp::CompareExchange {
            3
        } else {
            2
        };
        let ExprKind::Index { base, indices } = &args.first().map_or(&ExprKind::Error, |a| &a.kind)
        else {
            for arg in args {
                self.expr(arg);
            }
            if let Some(first) = args.first().filter(|a| !matches!(a.kind, ExprKind::Error)) {
                self.error(
                    Diagnostic::error(
                        Code::E0317,
                        first.span,
                        format!("`{name}` changes an element of a tensor or a tile, and this is not one"),
                    )
                    .with_label("not an element such as H[i]")
                    .with_help(format!("name the element to change: {name}(H[i], ...)")),
                );
            } else {
                self.arity(callee, args, arity, span);
            }
            return Value::error();
        };
        let target = self.store_target(base, indices, args[0].span);
        let values: Vec<Value> = args[1..].iter().map(|a| self.expr(a)).collect();
        if !self.arity(callee, args, arity, span) {
            return Value::error();
        }
        let Some((element, is_slice)) = target else {
            return Value::error();
        };
        if element.is_error() {
            return Value::error();
        }
        let narrow = self.narrow_element(base);
        let fits = match element.scalar() {
            _ if narrow.is_some() => false,
            Some(Scalar::I32 | Scalar::U32) => !is_slice && !element.is_tile(),
            Some(Scalar::F32) => op.takes_f32(),
            // Two 32-bit atomics on the words, exact when no thread reads the old value.
            Some(Scalar::I64 | Scalar::U64) => {
                op == AtomicOp::Add
                    && !is_slice
                    && !element.is_tile()
                    && self.dropped_call == Some(span)
            }
            _ => false,
        };
        if !fits {
            let help = if let Some(narrow) = narrow {
                format!("atomics change 32-bit elements, and this tensor holds {}: keep i32 or u32 elements for counters", narrow.name())
            } else if element.is_tile() {
                format!("an atomic changes one element: index it fully, as in {name}(H[i], ...)")
            } else if element.is_wide() && op == AtomicOp::Add {
                "a 64-bit atomic_add is a statement: its old value cannot be used, since WGSL, which has no 64-bit atomics, adds the two words by two 32-bit ones, and the old value of both would not be one moment's".to_owned()
            } else if element.is_wide() {
                "of the atomics, only atomic_add (as a statement) changes a 64-bit element: WGSL has no 64-bit atomics, and a sum's two words can be added one after the other, a minimum's or an exchange's cannot".to_owned()
            } else if element.scalar() == Some(Scalar::F32) {
                "of the atomics, only atomic_add takes f32 elements; keep integers (i32, u32) for the others".to_owned()
            } else {
                "atomics take i32 and u32 elements, and atomic_add f32 too".to_owned()
            };
            let held = narrow.map_or(element.to_string(), |n| format!("an {} element", n.name()));
            self.error(
                Diagnostic::error(
                    Code::E0317,
                    args[0].span,
                    format!("`{name}` cannot change {held}"),
                )
                .with_label(format!("this is {held}"))
                .with_help(help),
            );
            return Value::error();
        }
        for (value, arg) in values.iter().zip(&args[1..]) {
            self.assigned_value(&element, None, value, arg.span, span);
        }
        Value::new(element, Uniformity::Varying)
    }

    /// min, max, clamp, select, fma and the float math functions.
    fn numeric_call(
        &mut self,
        callee: &Ident,
        args: &[Expr],
        values: &[Value],
        span: Span,
        uniformity: Uniformity,
    ) -> Value {
        let name = callee.name.as_str();
        let (arity, first_operand) = match name {
            "min" | "max" | "pow" => (2, 0),
            "clamp" | "fma" => (3, 0),
            "select" => (3, 1),
            _ => (1, 0),
        };
        if !self.arity(callee, args, arity, span) {
            return Value::error();
        }
        if name == "select" && values[0].ty != Type::BOOL && !values[0].ty.is_error() {
            return self.wrong_argument(name, &values[0], args[0].span, "a bool condition first");
        }
        let mut ty = values[first_operand].ty.clone();
        for (value, arg) in values.iter().zip(args).skip(first_operand + 1) {
            match unify(&ty, &value.ty) {
                Some(t) => ty = t,
                None => {
                    return self.wrong_argument(
                        name,
                        value,
                        arg.span,
                        &format!("operands of one type ({ty})"),
                    );
                }
            }
        }
        let wants_float = !matches!(name, "min" | "max" | "clamp" | "select" | "abs" | "sign");
        let fits = if wants_float {
            ty.is_float() || ty == Type::IntLiteral
        } else if name == "select" {
            ty.scalar().is_some()
        } else {
            ty.is_numeric()
        };
        if !fits && !ty.is_error() {
            let expected = if wants_float {
                "floats (f32 or f16)"
            } else {
                "numbers"
            };
            return self.wrong_argument(name, &Value::new(ty, uniformity), span, expected);
        }
        if name == "sign"
            && self.refuse_wide(
                &ty,
                span,
                "`sign`",
                "compare instead: select(x < 0, -1, select(x > 0, 1, 0))",
            )
        {
            return Value::error();
        }
        if wants_float && ty == Type::IntLiteral {
            ty = Type::FloatLiteral;
        }
        Value::new(ty, uniformity)
    }

    fn shuffle(&mut self, callee: &Ident, args: &[Expr], values: &[Value], span: Span) -> Value {
        let name = callee.name.as_str();
        if !self.arity(callee, args, 2, span) {
            return Value::error();
        }
        self.require_control(Uniformity::WarpUniform, &format!("{name}()"), span);
        let (value, lane) = (&values[0], &values[1]);
        if value.ty.scalar().is_none_or(|s| s == Scalar::Bool) && !value.ty.is_error() {
            return self.wrong_argument(
                name,
                value,
                args[0].span,
                "a number (i32, u32 or f32) to exchange",
            );
        }
        if (!lane.ty.is_integer() || lane.ty.is_wide()) && !lane.ty.is_error() {
            let what = if name == "shuffle_xor" {
                "an integer lane mask"
            } else {
                "an integer lane or distance"
            };
            return self.wrong_argument(name, lane, args[1].span, what);
        }
        let ty = value.ty.clone().concrete();
        if name == "broadcast" {
            if lane.uniformity > Uniformity::WarpUniform {
                self.error(
                    Diagnostic::error(Code::E0403, args[1].span, "broadcast's lane must be warp-uniform, and this is varying")
                        .with_label("this lane differs between threads of a warp")
                        .with_help("broadcast sends one lane's value to the whole warp; to read a different lane in each thread, use shuffle(x, lane)"),
                );
            }
            let uniformity = value.uniformity.min(Uniformity::WarpUniform);
            return Value::new(ty, uniformity);
        }
        let uniformity = if value.uniformity == Uniformity::Uniform {
            Uniformity::Uniform
        } else {
            Uniformity::Varying
        };
        Value::new(ty, uniformity)
    }

    /// `sum(t, axis)` and `max(t, axis)` over a tile: the tile without that axis.
    fn tile_reduction(
        &mut self,
        callee: &Ident,
        args: &[Expr],
        values: &[Value],
        span: Span,
    ) -> Value {
        if !self.arity(callee, args, 2, span) {
            return Value::error();
        }
        self.require_control(
            Uniformity::Uniform,
            &format!("{}(tile, axis)", callee.name),
            span,
        );
        let Type::Tile { element, shape } = &values[0].ty else {
            return Value::error();
        };
        let axis = match args[1].kind {
            ExprKind::Int(Some(axis)) if (axis as usize) < shape.len() => axis as usize,
            _ => {
                self.error(
                    Diagnostic::error(
                        Code::E0302,
                        args[1].span,
                        format!("the axis must be an integer literal below {}", shape.len()),
                    )
                    .with_label("which axis to reduce"),
                );
                return Value::error();
            }
        };
        let mut shape = shape.clone();
        shape.remove(axis);
        let ty = if shape.is_empty() {
            Type::Scalar(*element)
        } else {
            Type::Tile {
                element: *element,
                shape,
            }
        };
        Value::new(ty, Uniformity::Uniform)
    }

    pub(super) fn collective(
        &mut self,
        op: &Ident,
        over: &Expr,
        args: &[Expr],
        span: Span,
    ) -> Value {
        if MATRIX.contains(&op.name.as_str()) {
            return self.mma_op(op, over, args, span);
        }
        let values: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
        let name = op.name.as_str();
        if name == "barrier" {
            self.error(
                Diagnostic::error(
                    Code::E0315,
                    over.span,
                    "`barrier` takes no `<over …>`: it always synchronizes the whole CTA",
                )
                .with_label("remove `<over …>`")
                .with_help("write `barrier()`"),
            );
            return Value::error();
        }
        let field = match &over.kind {
            ExprKind::Ctx(path) => ctx::resolve(path, over.span).ok(),
            _ => None,
        };
        let level = match field {
            Some(CtxField::Lane) => Uniformity::WarpUniform,
            Some(CtxField::Thread) => Uniformity::Uniform,
            Some(other) => {
                self.error(
                    Diagnostic::error(
                        Code::E0315,
                        over.span,
                        format!("a collective cannot run over {}", other.name()),
                    )
                    .with_label("expected ctx.lane or ctx.thread")
                    .with_help("<over ctx.lane> combines the lanes of each warp; <over ctx.thread> every thread of the CTA"),
                );
                return Value::error();
            }
            None => return Value::error(),
        };
        if !REDUCTIONS.contains(&name) && !LANE_ONLY.contains(&name) {
            let known = REDUCTIONS.iter().chain(&LANE_ONLY).copied();
            let mut diagnostic = Diagnostic::error(
                Code::E0206,
                op.span,
                format!("there is no collective `{name}`"),
            )
            .with_label("not a collective");
            if let Some(similar) = closest(name, known) {
                let help = format!("a collective is similar: `{similar}`");
                diagnostic = diagnostic.with_fix(help, op.span, similar);
            }
            self.error(diagnostic);
            return Value::error();
        }
        // A CTA-wide scan is lowered from warp scans (`ir::tiles`); votes are the warp's own.
        if LANE_ONLY.contains(&name) && name != "prefix_sum" && level == Uniformity::Uniform {
            self.error(
                Diagnostic::error(
                    Code::E0315,
                    over.span,
                    format!("`{name}` runs over ctx.lane only"),
                )
                .with_label("votes are warp operations")
                .with_help(format!("write {name}<over ctx.lane>(...)")),
            );
            return Value::error();
        }
        let what = format!(
            "{name}<over {}>",
            if level == Uniformity::Uniform {
                "ctx.thread"
            } else {
                "ctx.lane"
            }
        );
        let callee = Ident {
            name: what.clone(),
            span: op.span,
        };
        if !self.arity(&callee, args, 1, span) {
            return Value::error();
        }
        self.require_control(level, &what, span);
        let value = &values[0];
        // A warp's 64-bit collective is shuffles (`ir::wide_warp`); the CTA's needs shared
        // memory of 32-bit words.
        if level == Uniformity::Uniform
            && self.refuse_wide(
                &value.ty,
                args[0].span,
                &format!("`{what}`"),
                "a CTA's collectives combine 32-bit values in shared memory: reduce over ctx.lane (which takes 64-bit values), then combine the warps' results yourself",
            )
        {
            return Value::error();
        }
        let ty = match name {
            "any" | "all" | "ballot" => {
                if value.ty != Type::BOOL && !value.ty.is_error() {
                    return self.wrong_argument(&what, value, args[0].span, "a bool");
                }
                if name == "ballot" {
                    Type::U32
                } else {
                    Type::BOOL
                }
            }
            "and" | "or" | "xor" => {
                if !value.ty.is_integer() && !value.ty.is_error() {
                    return self.wrong_argument(&what, value, args[0].span, "an integer");
                }
                value.ty.clone().concrete()
            }
            _ => {
                if !value.ty.is_numeric() && !value.ty.is_error() {
                    return self.wrong_argument(&what, value, args[0].span, "a number");
                }
                value.ty.clone().concrete()
            }
        };
        let uniformity = if name == "prefix_sum" {
            Uniformity::Varying
        } else {
            level
        };
        Value::new(ty, uniformity)
    }
}
