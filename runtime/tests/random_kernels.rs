//! Random differential testing: proptest writes random kernels that are well typed and
//! uniformity-correct (integer arithmetic, branches under varying and warp-uniform conditions,
//! counted loops, warp and CTA collectives, votes, scans, shuffles, partial warps) and each one
//! must give the simulator's results, exactly, on the native GPU (Mesa's lavapipe, subgroups of
//! 8) in subgroup mode and with 32-lane warps emulated.
//!
//! A failing kernel is shrunk by proptest and saved in `random_kernels.regressions`, which is kept in
//! the repository, so it is tried first on every later run. `PROPTEST_CASES` sets how many
//! kernels (256 by default, about 30 s; BENCHMARKS.md has longer runs).

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::{Arg, TraceLimits};
use compiler_core::wgsl::WarpMode;
use compiler_core::RunLimits;
use proptest::prelude::*;
use runtime::{open, run, Gpu};
use std::sync::OnceLock;

/// Where a statement sits: what its control lets it call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Control {
    Uniform,
    WarpUniform,
    Varying,
}

fn expr(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        Just("v".to_owned()),
        Just("a".to_owned()),
        Just("ctx.lane".to_owned()),
        Just("ctx.warp".to_owned()),
        Just("ctx.thread".to_owned()),
        (-20i32..20).prop_map(|n| n.to_string()),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let sub = expr(depth - 1);
    prop_oneof![
        2 => leaf,
        3 => (sub.clone(), prop::sample::select(vec!["+", "-", "*", "&", "|", "^"]), sub.clone())
            .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
        1 => (sub.clone(), prop::sample::select(vec![3, 5, 7]))
            .prop_map(|(a, d)| format!("({a} / {d})")),
        1 => (sub.clone(), prop::sample::select(vec![2, 6, 9]))
            .prop_map(|(a, d)| format!("({a} % {d})")),
        1 => (sub.clone(), sub).prop_map(|(a, b)| format!("min({a}, {b})")),
    ]
    .boxed()
}

fn condition() -> impl Strategy<Value = String> {
    (
        expr(1),
        prop::sample::select(vec!["<", ">", "==", "!="]),
        expr(1),
    )
        .prop_map(|(a, op, b)| format!("{a} {op} {b}"))
}

/// Statements for `control`, `depth` levels of nesting left.
fn block(control: Control, depth: u32) -> BoxedStrategy<Vec<String>> {
    prop::collection::vec(statement(control, depth), 1..4).boxed()
}

fn indent(lines: Vec<String>) -> String {
    lines
        .iter()
        .flat_map(|s| s.lines().map(|l| format!("  {l}\n")).collect::<Vec<_>>())
        .collect()
}

fn statement(control: Control, depth: u32) -> BoxedStrategy<String> {
    let mut options: Vec<(u32, BoxedStrategy<String>)> = vec![
        (4, expr(2).prop_map(|e| format!("v = {e}")).boxed()),
        (2, expr(2).prop_map(|e| format!("a = {e}")).boxed()),
    ];
    if control != Control::Varying {
        let warp = prop_oneof![
            prop::sample::select(vec!["sum", "max", "min", "and", "or", "xor"])
                .prop_map(|r| format!("v = {r}<over ctx.lane>(v)")),
            Just("v = prefix_sum<over ctx.lane>(v)".to_owned()),
            Just("v = v + select(any<over ctx.lane>(v > a), 1, 0)".to_owned()),
            Just("v = v + select(all<over ctx.lane>(v > 0), 2, 0)".to_owned()),
            Just("v = v ^ i32(ballot<over ctx.lane>(v % 2 == 0))".to_owned()),
            prop::sample::select(vec![1, 2, 4]).prop_map(|m| format!("v = shuffle_xor(v, {m})")),
            prop::sample::select(vec![1, 3]).prop_map(|d| format!("v = shuffle_down(v, {d})")),
            prop::sample::select(vec![1, 2]).prop_map(|d| format!("v = shuffle_up(v, {d})")),
            expr(1).prop_map(|l| format!("v = shuffle(v, {l})")),
            prop::sample::select(vec![0, 3]).prop_map(|l| format!("v = broadcast(v, {l})")),
        ];
        options.push((3, warp.boxed()));
    }
    if control == Control::Uniform {
        let cta = prop::sample::select(vec!["sum", "max", "min"])
            .prop_map(|r| format!("v = v + {r}<over ctx.thread>(a)"));
        options.push((1, cta.boxed()));
        // A tile of X in shared memory (a cooperative copy and a barrier), read per thread;
        // `if true` opens a scope, so two tiles never share a name.
        // `& (len - 1)` keeps the index in the tile even when `a` is negative (`%` would not).
        let tile = (prop::sample::select(vec![16, 32, 64]), 0i32..8).prop_map(|(len, shift)| {
            let mask = len - 1;
            format!("if true {{\n  var t = X[ctx.block.x * ctx.threads + {shift} :+ {len}]\n  v = v + t[(ctx.thread + a) & {mask}]\n}}")
        });
        options.push((1, tile.boxed()));
    }
    if depth > 0 {
        options.push((
            2,
            (
                condition(),
                block(Control::Varying.max_with(control), depth - 1),
            )
                .prop_map(|(c, b)| format!("if {c} {{\n{}}}", indent(b)))
                .boxed(),
        ));
        if control != Control::Varying {
            options.push((
                2,
                (
                    0i32..3,
                    block(Control::WarpUniform.max_with(control), depth - 1),
                )
                    .prop_map(|(w, b)| format!("if ctx.warp == {w} {{\n{}}}", indent(b)))
                    .boxed(),
            ));
        }
        // Counted loops are not nested in each other: two loops in a row, each holding
        // another, run wrong on lavapipe's emulated warps (see differential.rs).
        if depth > 1 {
            options.push((
                1,
                (1i32..4, block(control, 1))
                    .prop_map(|(n, b)| {
                        format!("for k in range({n}) {{\n  a = a + k\n{}}}", indent(b))
                    })
                    .boxed(),
            ));
        }
    }
    proptest::strategy::Union::new_weighted(options).boxed()
}

impl Control {
    /// The less uniform of two controls.
    fn max_with(self, other: Control) -> Control {
        let rank = |c: Control| match c {
            Control::Uniform => 0,
            Control::WarpUniform => 1,
            Control::Varying => 2,
        };
        if rank(self) >= rank(other) {
            self
        } else {
            other
        }
    }
}

fn kernel() -> impl Strategy<Value = (String, u32)> {
    (prop::sample::select(vec![32u32, 36, 64]), block(Control::Uniform, 2)).prop_map(
        |(threads, body)| {
            let source = format!(
                "@launch({threads})\nkernel rnd(X: tensor<i32>[N], Y: tensor<i32>[N]) {{\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  var v = 0\n  var a = ctx.lane\n  if i < N {{\n    v = X[i]\n  }}\n{}  if i < N {{\n    Y[i] = v + a\n  }}\n}}\n",
                indent(body)
            );
            (source, threads)
        },
    )
}

/// `PROPTEST_CASES` kernels (256 by default), each failure shrunk at most 200 times.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256),
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    }
}

fn gpu() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| pollster::block_on(open()).unwrap_or_else(|e| panic!("{e}")))
}

/// Y as the simulator computes it and as the GPU does in `mode` with `lanes`-wide warps.
fn compare(source: &str, threads: u32, lanes: u32, mode: WarpMode) -> Result<(), String> {
    let compilation = compiler_core::compile(source);
    if !compilation.diagnostics.is_empty() {
        return Err(format!(
            "the generator wrote a kernel the checker refuses: {:?}",
            compilation.diagnostics
        ));
    }
    let launch = Launch {
        grid: Dim3::new(2, 1, 1),
        dims: [("N".to_owned(), i64::from(2 * threads - 5))].into(),
        inputs: [("X".to_owned(), Input::Rand(7))].into(),
        lanes,
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .map_err(|d| format!("launch: {d:?}"))?;
    let expected = prepared
        .simulate()
        .map_err(|d| format!("simulator: {d:?}"))?;
    let args = run(gpu(), &prepared, mode).map_err(|e| e.to_string())?.args;
    let y = |a: &compiler_core::sim::Args| match a.params.get(1) {
        Some(Arg::Tensor(t)) => t.bits.clone(),
        _ => Vec::new(),
    };
    let (got, want) = (y(&args), y(&expected.args));
    if got == want {
        return Ok(());
    }
    let at = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
    Err(format!(
        "{mode:?}, {lanes} lanes: Y[{at}] is {} on the GPU and {} on the simulator",
        got.get(at).map_or(0, |b| *b as i32),
        want.get(at).map_or(0, |b| *b as i32)
    ))
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..config()
    })]

    #[test]
    fn random_kernels_agree_with_the_simulator_on_the_gpu((source, threads) in kernel()) {
        if std::env::var_os("SHOW_KERNELS").is_some() { eprintln!("{source}"); }
        let lanes = gpu().report.fixed_subgroup_size().unwrap_or(8);
        let subgroups = compare(&source, threads, lanes, WarpMode::Subgroups);
        prop_assert!(subgroups.is_ok(), "{}\n{source}", subgroups.err().unwrap_or_default());
        let emulated = compare(&source, threads, 32, WarpMode::Emulated);
        prop_assert!(emulated.is_ok(), "{}\n{source}", emulated.err().unwrap_or_default());
    }
}

/// Block 1 of the launch `compare` makes, traced: the results are those of a plain run, and
/// the trace's last values of `v` and `a` add up to what each thread stored in Y.
fn trace_agrees(source: &str, threads: u32) -> Result<(), String> {
    let compilation = compiler_core::compile(source);
    let n = 2 * threads - 5;
    let launch = Launch {
        grid: Dim3::new(2, 1, 1),
        dims: [("N".to_owned(), i64::from(n))].into(),
        inputs: [("X".to_owned(), Input::Rand(7))].into(),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .map_err(|d| format!("launch: {d:?}"))?;
    let plain = prepared.simulate().map_err(|d| format!("{d:?}"))?;
    let traced = prepared.simulate_traced(Dim3::new(1, 0, 0), TraceLimits::default());
    let output = traced.output.map_err(|d| format!("{d:?}"))?;
    let trace = traced.trace;
    let y = |a: &compiler_core::sim::Args| match a.params.get(1) {
        Some(Arg::Tensor(t)) => t.bits.clone(),
        _ => Vec::new(),
    };
    if y(&plain.args) != y(&output.args) {
        return Err("the traced run wrote another Y".into());
    }
    if trace.incomplete.is_some() {
        return Ok(());
    }
    let variable = |name: &str| trace.variables.iter().position(|v| v.name == name);
    let (Some(v), Some(a)) = (variable("v"), variable("a")) else {
        return Err("v or a is not in the trace".into());
    };
    let values = trace.values_after(trace.steps.len() - 1);
    let vars = trace.variables.len();
    let written = y(&output.args);
    for t in 0..threads {
        let i = threads + t;
        if i >= n {
            continue;
        }
        let at = |var: usize| values[t as usize * vars + var].unwrap_or(0);
        let sum = at(v).wrapping_add(at(a));
        if written[i as usize] != sum {
            return Err(format!(
                "thread {t}: Y[{i}] = {} but v + a = {sum}",
                written[i as usize] as i32
            ));
        }
    }
    for (s, step) in trace.steps.iter().enumerate() {
        if (0..threads).any(|t| step.active.contains(t) && step.exited.contains(t)) {
            return Err(format!("step {s}: a thread that returned is active"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_trace_changes_no_result_and_its_values_are_the_threads((source, threads) in kernel()) {
        let agrees = trace_agrees(&source, threads);
        prop_assert!(agrees.is_ok(), "{}\n{source}", agrees.err().unwrap_or_default());
    }
}

/// The launch `compare` makes with seven CTAs, on one thread and on `threads`: the tensors, the
/// writers and the statistics, bit for bit.
fn threads_agree(source: &str, threads: u32, workers: usize) -> Result<(), String> {
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(7, 1, 1),
        dims: [("N".to_owned(), i64::from(7 * threads - 5))].into(),
        inputs: [("X".to_owned(), Input::Rand(7))].into(),
        ..Launch::default()
    };
    let mut prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .map_err(|d| format!("launch: {d:?}"))?;
    let recorded = |p: &compiler_core::PreparedRun<'_>| match p.simulate_recording() {
        Ok(o) => format!("{:?} {:?} {:?}", o.args.params, o.writers, o.stats),
        Err(d) => format!("{d:?}"),
    };
    let one = recorded(&prepared);
    prepared.options.threads = workers;
    if recorded(&prepared) != one {
        return Err(format!("{workers} threads differ from one"));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_kernels_give_the_same_bits_on_any_number_of_threads(
        (source, threads) in kernel(),
        workers in 2usize..6,
    ) {
        let agrees = threads_agree(&source, threads, workers);
        prop_assert!(agrees.is_ok(), "{}\n{source}", agrees.err().unwrap_or_default());
    }
}
