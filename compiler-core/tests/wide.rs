//! 64-bit integers (issue 53), as a property: every operation on `i64` and `u64`, run on the
//! simulator (which runs them as 32-bit words, `ir::wide`, as WGSL does), gives what Rust's
//! `i64` and `u64` give: wrapping `+ - *`, `/` toward zero and `%` with the dividend's sign
//! (`MIN / -1` wraps to `MIN`), shifts by the count's low six bits, comparisons, `min max abs`,
//! conversions to and from `i32`, `u32`, `bool` and `f32` (to `f32` rounded once, to the
//! nearest; from `f32` toward zero, saturating, NaN 0). The operands are drawn to reach the
//! words' edges: 0, ±1, 2^31, 2^32 ± 1, 2^63, and random bits.

use compiler_core::launch::{Launch, RunLimits};
use compiler_core::sim::Arg;
use proptest::prelude::*;

const KERNEL: &str = r#"
@launch(32)
kernel ops(A: tensor<i64>[N], B: tensor<i64>[N], R: tensor<i64>[N, 16], S: tensor<u64>[N, 16],
           X: tensor<f32>[N], F: tensor<f32>[N, 2], T: tensor<i64>[N, 4], W: tensor<i32>[N, 4]) {
  let i = ctx.thread
  if i < N {
    let a = A[i]
    let b = B[i]
    R[i, 0] = a + b
    R[i, 1] = a - b
    R[i, 2] = a * b
    R[i, 3] = a / b
    R[i, 4] = a % b
    R[i, 5] = a << b
    R[i, 6] = a >> b
    R[i, 7] = a & b
    R[i, 8] = a | b
    R[i, 9] = a ^ b
    R[i, 10] = min(a, b)
    R[i, 11] = max(a, b)
    R[i, 12] = -a
    R[i, 13] = ~a
    R[i, 14] = abs(a)
    R[i, 15] = select(a < b, 1, 0) + select(a <= b, 2, 0) + select(a == b, 4, 0) + select(a > b, 8, 0) + select(a >= b, 16, 0) + select(a != b, 32, 0)
    let c = bitcast<u64>(a)
    let d = bitcast<u64>(b)
    S[i, 0] = c + d
    S[i, 1] = c - d
    S[i, 2] = c * d
    S[i, 3] = c / d
    S[i, 4] = c % d
    S[i, 5] = c << d
    S[i, 6] = c >> d
    S[i, 7] = min(c, d)
    S[i, 8] = max(c, d)
    S[i, 9] = select(c < d, 1, 0) + select(c <= d, 2, 0) + select(c == d, 4, 0) + select(c > d, 8, 0) + select(c >= d, 16, 0) + select(c != d, 32, 0)
    S[i, 10] = u64(i32(a))
    S[i, 11] = u64(u32(a))
    S[i, 12] = u64(a != 0)
    S[i, 13] = 18446744073709551615 - c
    S[i, 14] = c * 4294967296 + 5000000000
    S[i, 15] = u64(X[i])
    F[i, 0] = f32(a)
    F[i, 1] = f32(c)
    T[i, 0] = i64(X[i])
    T[i, 1] = i64(i32(b))
    T[i, 2] = i64(u32(b))
    T[i, 3] = bitcast<i64>(d >> 1)
    W[i, 0] = i32(a)
    W[i, 1] = bitcast<i32>(u32(c))
    W[i, 2] = select(a < 0, 1, 0)
    W[i, 3] = i32(i8(a))
  }
}
"#;

fn edge() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0i64),
        Just(1),
        Just(-1),
        Just(i64::MIN),
        Just(i64::MAX),
        Just(1 << 31),
        Just((1 << 32) - 1),
        Just(1 << 32),
        Just((1 << 32) + 1),
        Just(-(1 << 32)),
        (-70i64..70),
        any::<i64>(),
        any::<u32>().prop_map(i64::from),
        (any::<i32>(), 0u32..40).prop_map(|(v, s)| i64::from(v) << s),
    ]
}

fn float() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(-0.0f32),
        Just(9.223_372e18f32),
        Just(-9.223_372e18f32),
        Just(1.8446744e19f32),
        (-1e20f32..1e20f32),
        (-1e10f32..1e10f32),
        (-5.0f32..5.0f32),
    ]
}

fn words(values: impl IntoIterator<Item = u64>) -> Vec<u32> {
    values
        .into_iter()
        .flat_map(|v| [v as u32, (v >> 32) as u32])
        .collect()
}

fn wide(bits: &[u32]) -> Vec<u64> {
    bits.chunks(2)
        .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
        .collect()
}

fn compare_bits(a: i64, b: i64) -> u64 {
    u64::from(a < b)
        + 2 * u64::from(a <= b)
        + 4 * u64::from(a == b)
        + 8 * u64::from(a > b)
        + 16 * u64::from(a >= b)
        + 32 * u64::from(a != b)
}

fn compare_unsigned(a: u64, b: u64) -> u64 {
    u64::from(a < b)
        + 2 * u64::from(a <= b)
        + 4 * u64::from(a == b)
        + 8 * u64::from(a > b)
        + 16 * u64::from(a >= b)
        + 32 * u64::from(a != b)
}

fn check(cases: &[(i64, i64, f32)]) -> Result<(), TestCaseError> {
    let n = cases.len();
    let compilation = compiler_core::compile(KERNEL);
    let launch = Launch {
        dims: [("N".to_owned(), n as i64)].into(),
        ..Launch::default()
    };
    let mut run = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
    let inputs = [
        words(cases.iter().map(|c| c.0 as u64)),
        words(cases.iter().map(|c| c.1 as u64)),
    ];
    for (param, bits) in run.args.params.iter_mut().zip(inputs) {
        if let Arg::Tensor(t) = param {
            t.bits = bits;
        }
    }
    if let Arg::Tensor(t) = &mut run.args.params[4] {
        t.bits = cases.iter().map(|c| c.2.to_bits()).collect();
    }
    let output = run
        .simulate()
        .map_err(|e| TestCaseError::fail(e.message.clone()))?;
    let tensor = |i: usize| match &output.args.params[i] {
        Arg::Tensor(t) => t.bits.clone(),
        Arg::Scalar(_) => Vec::new(),
    };
    let (r, s, f, t, w) = (
        wide(&tensor(2)),
        wide(&tensor(3)),
        tensor(5),
        wide(&tensor(6)),
        tensor(7),
    );
    for (k, &(a, b, x)) in cases.iter().enumerate() {
        let (c, d) = (a as u64, b as u64);
        let shift = (b & 63) as u32;
        let signed = [
            a.wrapping_add(b),
            a.wrapping_sub(b),
            a.wrapping_mul(b),
            a.wrapping_div(b),
            a.wrapping_rem(b),
            a.wrapping_shl(shift),
            a.wrapping_shr(shift),
            a & b,
            a | b,
            a ^ b,
            a.min(b),
            a.max(b),
            a.wrapping_neg(),
            !a,
            a.wrapping_abs(),
            compare_bits(a, b) as i64,
        ];
        let unsigned = [
            c.wrapping_add(d),
            c.wrapping_sub(d),
            c.wrapping_mul(d),
            c / d,
            c % d,
            c.wrapping_shl(shift),
            c.wrapping_shr(shift),
            c.min(d),
            c.max(d),
            compare_unsigned(c, d),
            a as i32 as u64,
            u64::from(a as u32),
            u64::from(a != 0),
            u64::MAX - c,
            c.wrapping_mul(1 << 32).wrapping_add(5_000_000_000),
            x as u64,
        ];
        for (j, want) in signed.iter().enumerate() {
            prop_assert_eq!(
                r[k * 16 + j] as i64,
                *want,
                "R[{}, {}] of a = {}, b = {}",
                k,
                j,
                a,
                b
            );
        }
        for (j, want) in unsigned.iter().enumerate() {
            prop_assert_eq!(
                s[k * 16 + j],
                *want,
                "S[{}, {}] of c = {}, d = {}, x = {}",
                k,
                j,
                c,
                d,
                x
            );
        }
        prop_assert_eq!(f[k * 2], (a as f32).to_bits(), "f32({})", a);
        prop_assert_eq!(f[k * 2 + 1], (c as f32).to_bits(), "f32({}u64)", c);
        let from_float = [
            x as i64,
            i64::from(b as i32),
            i64::from(b as u32),
            (d >> 1) as i64,
        ];
        for (j, want) in from_float.iter().enumerate() {
            prop_assert_eq!(
                t[k * 4 + j] as i64,
                *want,
                "T[{}, {}] of b = {}, x = {}",
                k,
                j,
                b,
                x
            );
        }
        let narrow = [
            a as i32,
            a as u32 as i32,
            i32::from(a < 0),
            i32::from(a as i8),
        ];
        for (j, want) in narrow.iter().enumerate() {
            prop_assert_eq!(w[k * 4 + j] as i32, *want, "W[{}, {}] of a = {}", k, j, a);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn wide_operations_are_rusts(cases in prop::collection::vec(
        (edge(), edge().prop_filter("a divisor that is not 0", |b| *b != 0), float()),
        1..32,
    )) {
        check(&cases)?;
    }
}

/// The probe of the issue: `n * n % (2 * N)` for `n` up to 2^31, Python's (numpy's) answer.
#[test]
fn square_modulo_matches_python_integers() {
    let source = "@launch(64)\nkernel probe(X: tensor<i64>[N], Y: tensor<i64>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    let n = X[i]\n    Y[i] = n * n % (2 * i64(N))\n  }\n}\n";
    let values: Vec<i64> = (0..200)
        .map(|i: i64| (i * 2_654_435_761) % ((1 << 31) + 1))
        .chain([
            0,
            1,
            (1 << 31) - 1,
            1 << 31,
            46341,
            3_037_000_499 % (1 << 31),
        ])
        .collect();
    let n = values.len() as i64;
    let launch = Launch {
        grid: compiler_core::hierarchy::Dim3::new(4, 1, 1),
        inputs: [(
            "X".to_owned(),
            compiler_core::launch::Input::Data {
                shape: vec![values.len()],
                values: values.iter().map(|&v| v as f64).collect(),
            },
        )]
        .into(),
        ..Launch::default()
    };
    let output = compiler_core::compile(source)
        .run(&launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let Arg::Tensor(y) = &output.args.params[1] else {
        panic!("Y is a tensor")
    };
    let got = wide(&y.bits);
    for (v, g) in values.iter().zip(got) {
        let want = (i128::from(*v) * i128::from(*v) % i128::from(2 * n)) as u64;
        assert_eq!(g, want, "{v} * {v} % {}", 2 * n);
    }
}

/// A 64-bit division by zero stops the simulator, as a 32-bit one does.
#[test]
fn wide_division_by_zero_faults() {
    let source = "@launch(32)\nkernel k(X: tensor<i64>[N]) {\n  X[ctx.thread] = X[ctx.thread] / (X[ctx.thread] - X[ctx.thread])\n}\n";
    let launch = Launch {
        dims: [("N".to_owned(), 32)].into(),
        ..Launch::default()
    };
    let Err(error) = compiler_core::compile(source).run(&launch) else {
        panic!("no fault")
    };
    assert!(error[0].message.contains("zero"), "{}", error[0].message);
}

/// A 64-bit `atomic_add` (a statement) from every thread of many CTAs gives the exact sum,
/// its low words carrying thousands of times, on any number of the simulator's threads.
#[test]
fn wide_atomic_add_sums_exactly() {
    let source = "@launch(64)\nkernel total(X: tensor<u32>[N], T: tensor<u64>[4]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    atomic_add(T[i % 4], u64(X[i]) * 4000000000 + 4294967295)\n  }\n}\n";
    let n = 5000u64;
    let launch = Launch {
        grid: compiler_core::hierarchy::Dim3::new(79, 1, 1),
        dims: [("N".to_owned(), n as i64)].into(),
        inputs: [("X".to_owned(), compiler_core::launch::Input::Iota)].into(),
        ..Launch::default()
    };
    let compilation = compiler_core::compile(source);
    for threads in [1, 4] {
        let mut run = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|e| panic!("{e:?}"));
        run.options.threads = threads;
        let output = run.simulate().unwrap_or_else(|e| panic!("{e:?}"));
        let Arg::Tensor(t) = &output.args.params[1] else {
            panic!("T is a tensor")
        };
        for (k, got) in wide(&t.bits).into_iter().enumerate() {
            let want = (0..n).filter(|x| x % 4 == k as u64).fold(0u64, |s, x| {
                s.wrapping_add(x.wrapping_mul(4_000_000_000).wrapping_add(4_294_967_295))
            });
            assert_eq!(got, want, "T[{k}] on {threads} threads");
        }
    }
}

/// A lone integer literal in a cast is the first of i32, u32, i64 and u64 that holds it, so a
/// cast never wraps it on the way (`i64(3000000000)` was -1294967296).
#[test]
fn a_literal_in_a_cast_keeps_its_value() {
    let source = "@launch(32)\nkernel k(Y: tensor<i64>[4], F: tensor<f32>[2]) {\n  if ctx.thread == 0 {\n    Y[0] = i64(3000000000)\n    Y[1] = i64(4294967295)\n    Y[2] = bitcast<i64>(u64(18446744073709551615))\n    Y[3] = i64(i32(3000000000))\n    F[0] = f32(3000000000)\n    F[1] = f32(18446744073709551615)\n  }\n}\n";
    let output = compiler_core::compile(source)
        .run(&Launch::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (Arg::Tensor(y), Arg::Tensor(f)) = (&output.args.params[0], &output.args.params[1]) else {
        panic!("two tensors")
    };
    let y: Vec<i64> = wide(&y.bits).into_iter().map(|v| v as i64).collect();
    assert_eq!(y, [3_000_000_000, 4_294_967_295, -1, -1_294_967_296]);
    assert_eq!(f32::from_bits(f.bits[0]), 3.0e9);
    assert_eq!(f32::from_bits(f.bits[1]), 1.8446744e19);
}

/// A warp's collectives of 64-bit values (lowered to shuffles) give the sums, extremes, bitwise
/// combinations and scans of each warp's values, in partial warps too (50 threads a CTA), at
/// warps of 32, 8 and 4 lanes.
#[test]
fn wide_warp_collectives_combine_each_warp() {
    let source = "@launch(50)\nkernel coll(A: tensor<i64>[N], R: tensor<i64>[N, 7]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  var a = i64(0)\n  if i < N {\n    a = A[i]\n  }\n  let s = sum<over ctx.lane>(a)\n  let lo = min<over ctx.lane>(a)\n  let hi = max<over ctx.lane>(a)\n  let x = xor<over ctx.lane>(a)\n  let o = or<over ctx.lane>(a)\n  let n = and<over ctx.lane>(a)\n  let p = prefix_sum<over ctx.lane>(a)\n  if i < N {\n    R[i, 0] = s\n    R[i, 1] = lo\n    R[i, 2] = hi\n    R[i, 3] = x\n    R[i, 4] = o\n    R[i, 5] = n\n    R[i, 6] = p\n  }\n}\n";
    let values: Vec<i64> = (0..140i64)
        .map(|k| match k % 5 {
            0 => [i64::MIN, i64::MAX, -1, 1 << 40][(k / 5 % 4) as usize],
            _ => k.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64),
        })
        .collect();
    let compilation = compiler_core::compile(source);
    for lanes in [32u32, 8, 4] {
        let launch = Launch {
            grid: compiler_core::hierarchy::Dim3::new(3, 1, 1),
            dims: [("N".to_owned(), values.len() as i64)].into(),
            lanes,
            ..Launch::default()
        };
        let mut run = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|e| panic!("{e:?}"));
        if let Arg::Tensor(t) = &mut run.args.params[0] {
            t.bits = words(values.iter().map(|&v| v as u64));
        }
        let output = run.simulate().unwrap_or_else(|e| panic!("{e:?}"));
        let Arg::Tensor(r) = &output.args.params[1] else {
            panic!("R is a tensor")
        };
        let got = wide(&r.bits);
        let threads = 50;
        for i in 0..values.len() {
            let (cta, t) = (i / threads, i % threads);
            let warp = t / lanes as usize;
            let first = warp * lanes as usize;
            let last = ((warp + 1) * lanes as usize).min(threads);
            let a: Vec<i64> = (first..last)
                .map(|u| values.get(cta * threads + u).copied().unwrap_or(0))
                .collect();
            let fold = |f: fn(i64, i64) -> i64| a.iter().copied().reduce(f).unwrap_or(0);
            let want = [
                fold(i64::wrapping_add),
                fold(i64::min),
                fold(i64::max),
                fold(|x, y| x ^ y),
                fold(|x, y| x | y),
                fold(|x, y| x & y),
                a[..=t - first].iter().fold(0i64, |s, &v| s.wrapping_add(v)),
            ];
            let row: Vec<i64> = got[i * 7..(i + 1) * 7].iter().map(|&v| v as i64).collect();
            assert_eq!(row, want, "row {i} at {lanes} lanes");
        }
    }
}

/// A 64-bit tensor with a last extent of 2, written with constants only (no 64-bit register),
/// is split like any other: its elements hold the constants.
#[test]
fn a_pair_axis_of_constants_is_split_too() {
    let source = "@launch(32)\nkernel k(X: tensor<i64>[N, 2]) {\n  X[ctx.thread, 1] = 5000000000\n  X[ctx.thread, 0] = 7\n}\n";
    let launch = Launch {
        dims: [("N".to_owned(), 32)].into(),
        ..Launch::default()
    };
    let output = compiler_core::compile(source)
        .run(&launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let Arg::Tensor(x) = &output.args.params[0] else {
        panic!("X is a tensor")
    };
    assert_eq!(wide(&x.bits), [7, 5_000_000_000].repeat(32));
}

/// A 64-bit scalar parameter: the kernel reads both words (a negative `i64`, a `u64` past 32
/// bits), a program passes it its own parameter and integers it computes in 64 bits, and a
/// launch refuses a value a number cannot carry exactly (2^53 and past).
#[test]
fn wide_scalar_parameters_carry_both_words() {
    let source = "@launch(32)
kernel put(Y: tensor<i64>[N], a: i64, b: u64) {
  Y[ctx.thread] = a * i64(ctx.thread) + i64(b >> 1)
}
program twice(Y: tensor<i64>[N], Z: tensor<i64>[N], a: i64, b: u64) {
  launch put(Y, a, b) grid(1)
  launch put(Z, a * 3, b + 4294967296) grid(1)
}
";
    let compilation = compiler_core::compile(source);
    let (a, b) = (-6_000_000_000i64, 8_589_934_594u64);
    let launch = |a: f64, b: f64| Launch {
        dims: [("N".to_owned(), 32)].into(),
        scalars: [("a".to_owned(), a), ("b".to_owned(), b)].into(),
        ..Launch::default()
    };
    let want = |a: i64, b: u64| {
        (0..32)
            .map(|t| a.wrapping_mul(t).wrapping_add((b >> 1) as i64) as u64)
            .collect::<Vec<_>>()
    };
    let kernel = compilation
        .run(&launch(a as f64, b as f64))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let Arg::Tensor(y) = &kernel.args.params[0] else {
        panic!("Y is a tensor")
    };
    assert_eq!(wide(&y.bits), want(a, b));
    let program = compilation
        .prepare_program(&launch(a as f64, b as f64), RunLimits::TERMINAL)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .simulate()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let tensor = |i: usize| match &program.args.params[i] {
        Arg::Tensor(t) => wide(&t.bits),
        Arg::Scalar(_) => panic!("parameter {i} is a tensor"),
    };
    assert_eq!(tensor(0), want(a, b));
    assert_eq!(tensor(1), want(3 * a, b + (1 << 32)));
    for (a, b) in [(2f64.powi(53), 0.0), (0.0, -(2f64.powi(53)))] {
        let problems = compilation
            .prepare(&launch(a, b), RunLimits::TERMINAL)
            .err()
            .unwrap_or_else(|| panic!("{a} {b} refused"));
        assert!(
            problems.iter().any(|d| d.message.contains("below 2^53")),
            "{problems:?}"
        );
    }
}
