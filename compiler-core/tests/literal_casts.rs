//! Untyped literals in casts and built-ins, as a property: random expressions over literals,
//! casts (`i32 u32 f32`) and built-ins give, on the simulator, the value of the same expression
//! over typed variables (`let v3: f32 = 2.5`), and the value a reference evaluator in Rust gives
//! by the spec's rules (wrapping integers, `/` toward zero, shifts by the count's low five bits,
//! float-to-integer casts that saturate with NaN as 0, IEEE `f32`).
//!
//! The generator types every node first, then writes each literal where its use gives it that
//! type: a cast asks nothing of its argument, so literals there take their default types (`i32`,
//! or `f32` for a float literal), and a `u32` with no use to give it that type is made by a cast.
//! The bug this guards against typed a cast's literal argument by the cast's target, so
//! `i32(sqrt(16.0))` computed `sqrt.i32 1098907648`.

use compiler_core::launch::Launch;
use compiler_core::sim::Arg;
use proptest::prelude::*;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    I32,
    U32,
    F32,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
        }
    }
}

/// A value as its bits and its type.
#[derive(Clone, Copy, Debug)]
struct Value(Ty, u32);

impl Value {
    fn i(self) -> i32 {
        self.1 as i32
    }
    fn f(self) -> f32 {
        f32::from_bits(self.1)
    }
}

#[derive(Clone, Debug)]
enum Expr {
    /// A literal: its value, and whether it is written as an integer (`16` where an `f32` is
    /// wanted).
    Literal(Value, bool),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Cast(Ty, Box<Expr>),
    Call(&'static str, Vec<Expr>),
    /// `select(a < b, x, y)`.
    Select(Box<[Expr; 4]>),
}

fn literal(ty: Ty, hinted: bool) -> BoxedStrategy<Expr> {
    match ty {
        Ty::I32 => (-40i32..40)
            .prop_map(|n| Expr::Literal(Value(Ty::I32, n as u32), true))
            .boxed(),
        Ty::U32 => (0u32..80)
            .prop_map(|n| Expr::Literal(Value(Ty::U32, n), true))
            .boxed(),
        // Quarters are exact, so the text is the value; an integer is written without a point
        // only where the use makes it an f32.
        Ty::F32 => (-64i32..64, any::<bool>())
            .prop_map(move |(q, as_integer)| {
                let integer = hinted && as_integer && q % 4 == 0;
                let value = if integer {
                    (q / 4) as f32
                } else {
                    q as f32 / 4.0
                };
                Expr::Literal(Value(Ty::F32, value.to_bits()), integer)
            })
            .boxed(),
    }
}

/// An expression of type `ty`; `hinted`: its use gives untyped literals that type.
fn expr(ty: Ty, hinted: bool, depth: u32) -> BoxedStrategy<Expr> {
    let any_ty = || prop::sample::select(vec![Ty::I32, Ty::U32, Ty::F32]);
    // At the leaves a cast's argument is a literal, so not a u32 (which needs a cast itself).
    let from = if depth == 0 {
        prop::sample::select(vec![Ty::I32, Ty::F32])
    } else {
        any_ty()
    };
    let cast = from
        .prop_flat_map(move |from| {
            expr(from, false, depth.saturating_sub(1))
                .prop_map(move |e| Expr::Cast(ty, Box::new(e)))
        })
        .boxed();
    if ty == Ty::U32 && !hinted {
        // Nothing here makes literals u32 but a cast, or a cast beside them.
        if depth == 0 {
            return cast;
        }
        let ops = prop::sample::select(vec!["+", "-", "*", "&", "^"]);
        return prop_oneof![
            1 => cast.clone(),
            1 => (ops, cast, expr(Ty::U32, true, depth - 1))
                .prop_map(|(op, a, b)| Expr::Binary(op, Box::new(a), Box::new(b))),
        ]
        .boxed();
    }
    if depth == 0 {
        return literal(ty, hinted);
    }
    let sub = move || expr(ty, hinted, depth - 1);
    let ops = match ty {
        Ty::F32 => vec!["+", "-", "*", "/"],
        _ => vec!["+", "-", "*", "/", "%", "&", "^", "<<", ">>"],
    };
    let binary = (prop::sample::select(ops), sub(), sub())
        .prop_map(|(op, a, b)| Expr::Binary(op, Box::new(a), Box::new(b)));
    let calls = match ty {
        Ty::F32 => vec!["sqrt", "floor", "ceil", "abs", "min", "max"],
        _ => vec!["abs", "min", "max"],
    };
    let call = (prop::sample::select(calls), sub(), sub()).prop_map(move |(f, a, b)| {
        let args = if matches!(f, "min" | "max") {
            vec![a, b]
        } else {
            vec![a]
        };
        // A float built-in gives its argument a float type whatever its use.
        Expr::Call(f, args)
    });
    let float_call = (
        prop::sample::select(vec!["sqrt", "floor", "ceil"]),
        expr(Ty::F32, true, depth - 1),
    )
        .prop_map(|(f, a)| Expr::Call(f, vec![a]));
    let compared =
        any_ty().prop_flat_map(move |t| (expr(t, false, depth - 1), expr(t, false, depth - 1)));
    let select =
        (compared, sub(), sub()).prop_map(|((a, b), x, y)| Expr::Select(Box::new([a, b, x, y])));
    let mut choices = vec![
        (1, literal(ty, hinted)),
        (3, binary.boxed()),
        (2, cast),
        (1, select.boxed()),
    ];
    if ty == Ty::F32 {
        choices.push((2, float_call.boxed()));
    } else {
        choices.push((1, call.boxed()));
    }
    prop::strategy::Union::new_weighted(choices).boxed()
}

/// The source of `e`: with literals (`lets` is `None`), or with each literal a typed `let`,
/// listed in `lets`.
fn write_into(e: &Expr, lets: &mut Option<&mut Vec<String>>) -> String {
    match e {
        Expr::Literal(value, integer) => {
            let text = literal_text(*value, *integer);
            match lets {
                Some(lets) => {
                    let name = format!("v{}", lets.len());
                    lets.push(format!("let {name}: {} = {text}", value.0.name()));
                    name
                }
                None => text,
            }
        }
        Expr::Binary(op, a, b) => {
            format!("({} {op} {})", write_into(a, lets), write_into(b, lets))
        }
        Expr::Cast(ty, a) => format!("{}({})", ty.name(), write_into(a, lets)),
        Expr::Call(f, args) => {
            let args: Vec<String> = args.iter().map(|a| write_into(a, lets)).collect();
            format!("{f}({})", args.join(", "))
        }
        Expr::Select(parts) => {
            let [a, b, x, y] = &**parts;
            format!(
                "select({} < {}, {}, {})",
                write_into(a, lets),
                write_into(b, lets),
                write_into(x, lets),
                write_into(y, lets)
            )
        }
    }
}

fn literal_text(value: Value, integer: bool) -> String {
    match value.0 {
        Ty::I32 => value.i().to_string(),
        Ty::U32 => value.1.to_string(),
        Ty::F32 if integer => format!("{}", value.f() as i32),
        Ty::F32 => format!("{:.2}", value.f()),
    }
}

/// The value of `e` by the spec's rules; `None` where the simulator stops the run (a division
/// by zero).
fn evaluate(e: &Expr) -> Option<Value> {
    Some(match e {
        Expr::Literal(value, _) => *value,
        Expr::Binary(op, a, b) => binary(op, evaluate(a)?, evaluate(b)?)?,
        Expr::Cast(to, a) => cast(*to, evaluate(a)?),
        Expr::Call(f, args) => {
            let values: Vec<Value> = args.iter().map(evaluate).collect::<Option<_>>()?;
            call(f, &values)
        }
        Expr::Select(parts) => {
            let [a, b, x, y] = &**parts;
            let (a, b, x, y) = (evaluate(a)?, evaluate(b)?, evaluate(x)?, evaluate(y)?);
            let less = match a.0 {
                Ty::I32 => a.i() < b.i(),
                Ty::U32 => a.1 < b.1,
                Ty::F32 => a.f() < b.f(),
            };
            if less {
                x
            } else {
                y
            }
        }
    })
}

fn binary(op: &str, a: Value, b: Value) -> Option<Value> {
    let ty = a.0;
    let bits = match ty {
        Ty::F32 => {
            let (x, y) = (a.f(), b.f());
            match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                _ => x / y,
            }
            .to_bits()
        }
        Ty::I32 => {
            let (x, y) = (a.i(), b.i());
            (match op {
                "+" => x.wrapping_add(y),
                "-" => x.wrapping_sub(y),
                "*" => x.wrapping_mul(y),
                "/" if y == 0 => return None,
                "/" => x.wrapping_div(y),
                "%" if y == 0 => return None,
                "%" => x.wrapping_rem(y),
                "&" => x & y,
                "^" => x ^ y,
                "<<" => x.wrapping_shl(y as u32),
                _ => x.wrapping_shr(y as u32),
            }) as u32
        }
        Ty::U32 => {
            let (x, y) = (a.1, b.1);
            match op {
                "+" => x.wrapping_add(y),
                "-" => x.wrapping_sub(y),
                "*" => x.wrapping_mul(y),
                "/" | "%" if y == 0 => return None,
                "/" => x / y,
                "%" => x % y,
                "&" => x & y,
                "^" => x ^ y,
                "<<" => x.wrapping_shl(y),
                _ => x.wrapping_shr(y),
            }
        }
    };
    Some(Value(ty, bits))
}

/// Rust's `as` between these types is the spec's rule: wrapping between integers, the nearest
/// `f32` from an integer, and saturation (NaN as 0) from a float.
fn cast(to: Ty, v: Value) -> Value {
    let bits = match (v.0, to) {
        (Ty::F32, Ty::F32) | (Ty::I32 | Ty::U32, Ty::I32 | Ty::U32) => v.1,
        (Ty::F32, Ty::I32) => (v.f() as i32) as u32,
        (Ty::F32, Ty::U32) => v.f() as u32,
        (Ty::I32, Ty::F32) => (v.i() as f32).to_bits(),
        (Ty::U32, Ty::F32) => (v.1 as f32).to_bits(),
    };
    Value(to, bits)
}

fn call(f: &str, args: &[Value]) -> Value {
    let a = args[0];
    let bits = match (a.0, f) {
        (Ty::F32, _) => {
            let x = a.f();
            match f {
                "sqrt" => x.sqrt(),
                "floor" => x.floor(),
                "ceil" => x.ceil(),
                "abs" => x.abs(),
                "min" => x.min(args[1].f()),
                _ => x.max(args[1].f()),
            }
            .to_bits()
        }
        (Ty::I32, "abs") => a.i().wrapping_abs() as u32,
        (Ty::I32, "min") => a.i().min(args[1].i()) as u32,
        (Ty::I32, _) => a.i().max(args[1].i()) as u32,
        (Ty::U32, "min") => a.1.min(args[1].1),
        (Ty::U32, "max") => a.1.max(args[1].1),
        (Ty::U32, _) => a.1,
    };
    Value(a.0, bits)
}

/// Runs `Y[0] = expression` (after `lets`) on one thread; the bits of `Y[0]`, or the
/// simulator's diagnostics.
fn simulate(ty: Ty, lets: &[String], expression: &str) -> Result<u32, String> {
    let mut source = format!("@launch(1)\nkernel k(Y: tensor<{}>[1]) {{\n", ty.name());
    for line in lets {
        let _ = writeln!(source, "  {line}");
    }
    let _ = writeln!(source, "  Y[0] = {expression}\n}}");
    let output = compiler_core::compile(&source)
        .run(&Launch::default())
        .map_err(|d| format!("{source}\n{d:#?}"))?;
    match &output.args.params[0] {
        Arg::Tensor(tensor) => Ok(tensor.bits[0]),
        Arg::Scalar(_) => Err("Y is a scalar".to_owned()),
    }
}

fn same(ty: Ty, a: u32, b: u32) -> bool {
    a == b || (ty == Ty::F32 && f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan())
}

fn case() -> impl Strategy<Value = (Ty, Expr)> {
    prop::sample::select(vec![Ty::I32, Ty::U32, Ty::F32])
        .prop_flat_map(|ty| (Just(ty), expr(ty, true, 3)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn literals_in_casts_and_builtins_compute_as_typed_variables((ty, e) in case()) {
        let Some(expected) = evaluate(&e) else {
            return Ok(());
        };
        let with_literals = write_into(&e, &mut None);
        let mut lets = Vec::new();
        let with_variables = write_into(&e, &mut Some(&mut lets));
        let literal_bits = simulate(ty, &[], &with_literals).map_err(TestCaseError::fail)?;
        let variable_bits = simulate(ty, &lets, &with_variables).map_err(TestCaseError::fail)?;
        prop_assert!(
            same(ty, literal_bits, variable_bits),
            "Y[0] = {with_literals}: {literal_bits:#x}, but over typed variables {variable_bits:#x}"
        );
        prop_assert!(
            same(ty, literal_bits, expected.1),
            "Y[0] = {with_literals}: {literal_bits:#x}, but the spec's rules give {:#x}",
            expected.1
        );
    }
}

/// The cases, each as it was found.
#[test]
fn casts_of_float_literal_expressions_convert_their_value() {
    let cases: [(Ty, &str, u32); 6] = [
        (Ty::I32, "i32(floor(-2.5))", (-3i32) as u32),
        (Ty::I32, "i32(sqrt(16.0))", 4),
        (Ty::I32, "i32(0.5 * 10.0)", 5),
        (Ty::U32, "u32(abs(-5.5))", 5),
        (Ty::F32, "f32(7 / 2)", 3.0f32.to_bits()),
        (Ty::I32, "i32(sqrt(16) + 1)", 5),
    ];
    for (ty, expression, expected) in cases {
        let bits = simulate(ty, &[], expression).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits, expected, "Y[0] = {expression}");
    }
}
