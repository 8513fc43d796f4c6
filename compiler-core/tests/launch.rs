//! A launch against its kernel: the problems it has, each at its field, and the launch made to
//! fit a kernel whose signature changed.

use compiler_core::diagnostic::render_all;
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::Kernel;
use compiler_core::launch::{Input, Launch, LaunchField};
use compiler_core::{Compilation, RunLimits};

fn compiled(source: &str) -> Compilation {
    compiler_core::compile(source)
}

fn kernel(compilation: &Compilation) -> &Kernel {
    compilation
        .kernel(None)
        .unwrap_or_else(|d| panic!("{d:#?}"))
}

fn fields(launch: &Launch, kernel: &Kernel) -> Vec<LaunchField> {
    launch
        .problems(kernel, RunLimits::PAGE)
        .into_iter()
        .map(|p| p.field)
        .collect()
}

const SCALE: &str = "@launch(256)\nkernel scale(X: tensor<f32>[M], Y: tensor<f32>[M]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  Y[i] = 2.0 * X[i]\n}\n";

#[test]
fn a_kernel_pasted_over_another_gets_a_launch_that_runs() {
    let Some(matvec) = compiler_core::examples::find("matvec") else {
        panic!("no matvec")
    };
    let compilation = compiled(SCALE);
    let scale = kernel(&compilation);
    assert_eq!(
        fields(&matvec.launch, scale),
        [
            LaunchField::Input("A".into()),
            LaunchField::Input("W".into()),
            LaunchField::Dim("K".into()),
            LaunchField::Dim("N".into()),
            LaunchField::Dim("M".into())
        ],
        "before fitting: matvec's inputs and dimensions name nothing of scale, and M has no value"
    );
    let before = compiled(matvec.source);
    let fitted = matvec.launch.fitted_to(scale, Some(kernel(&before)));
    let m = i64::from(matvec.launch.grid.x) * 256;
    assert_eq!(fitted.dims, [("M".to_owned(), m)].into());
    assert_eq!(
        fitted.inputs,
        [("X".to_owned(), Input::Rand(1))].into(),
        "X is new and only read; Y is written, and starts as zeros"
    );
    assert!(fitted.scalars.is_empty());
    assert_eq!(fitted.grid, matvec.launch.grid, "the grid is kept");
    assert!(fields(&fitted, scale).is_empty());
    // Unguarded, `Y[i]` is inside the tensor for every thread of the grid: it runs.
    let output = compilation
        .run(&fitted)
        .unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(output.stats.steps > 0);
    assert_eq!(
        fitted.fitted_to(scale, Some(scale)),
        fitted,
        "fitting twice changes nothing"
    );
    assert_eq!(
        matvec.launch.fitted_to(kernel(&before), None),
        matvec.launch,
        "an example's launch fits its kernel as it is"
    );
}

#[test]
fn a_renamed_parameter_is_dropped_and_its_new_name_gets_a_default() {
    let Some(saxpy) = compiler_core::examples::find("saxpy") else {
        panic!("no saxpy")
    };
    let renamed = saxpy.source.replace("alpha", "beta");
    let compilation = compiled(&renamed);
    let before = compiled(saxpy.source);
    let fitted = saxpy
        .launch
        .fitted_to(kernel(&compilation), Some(kernel(&before)));
    assert_eq!(fitted.scalars, [("beta".to_owned(), 1.0)].into());
    assert_eq!(
        fitted.dims, saxpy.launch.dims,
        "N still applies and is kept"
    );
    assert_eq!(fitted.inputs, saxpy.launch.inputs, "X and Y still apply");
    assert!(compilation.run(&fitted).is_ok());
}

#[test]
fn data_keeps_its_dimensions_and_data_of_another_rank_is_replaced() {
    let compilation = compiled(SCALE);
    let scale = kernel(&compilation);
    let data = |shape: Vec<usize>| Input::Data {
        values: vec![0.5; shape.iter().product()],
        shape,
    };
    let launch = Launch {
        inputs: [("X".to_owned(), data(vec![40]))].into(),
        ..Launch::default()
    };
    let fitted = launch.fitted_to(scale, None);
    assert!(fitted.dims.is_empty(), "M comes from X's shape: {fitted:?}");
    assert!(fields(&fitted, scale).is_empty());
    let wrong_rank = Launch {
        inputs: [("X".to_owned(), data(vec![4, 10]))].into(),
        ..Launch::default()
    };
    let fitted = wrong_rank.fitted_to(scale, None);
    assert_eq!(fitted.inputs.get("X"), None, "zeros");
    assert_eq!(fitted.dims.get("M"), Some(&256));
}

#[test]
fn new_dimensions_are_halved_until_the_tensors_are_small() {
    let source = "@launch(1024)\nkernel square(A: tensor<f32>[N, N]) {\n  A[ctx.block.x, ctx.thread % N] = 1.0\n}\n";
    let compilation = compiled(source);
    let launch = Launch {
        grid: Dim3::new(4096, 1, 1),
        ..Launch::default()
    };
    let fitted = launch.fitted_to(kernel(&compilation), None);
    assert_eq!(
        fitted.dims.get("N"),
        Some(&1024),
        "1024 × 1024 = 2^20 elements"
    );
}

#[test]
fn each_problem_names_its_field() {
    let Some(saxpy) = compiler_core::examples::find("saxpy") else {
        panic!("no saxpy")
    };
    let compilation = compiled(saxpy.source);
    let k = kernel(&compilation);
    let launch = Launch {
        grid: Dim3::new(0, 1, 1),
        lanes: 0,
        inputs: [("Z".to_owned(), Input::Ones)].into(),
        ..Launch::default()
    };
    let problems = launch.problems(k, RunLimits::PAGE);
    let found: Vec<(LaunchField, &str)> = problems
        .iter()
        .map(|p| (p.field.clone(), p.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                LaunchField::Grid,
                "the grid 0 x 1 x 1 has no CTAs: every extent must be at least 1"
            ),
            (LaunchField::Lanes, "a warp has 1 to 128 lanes, not 0"),
            (
                LaunchField::Input("Z".into()),
                "kernel `saxpy` has no parameter `Z`"
            ),
            (
                LaunchField::Scalar("alpha".into()),
                "the scalar `alpha: f32` has no value"
            ),
            (LaunchField::Dim("N".into()), "dimension N has no value"),
        ]
    );
    let too_big = Launch {
        dims: [("N".to_owned(), 10_000_000)].into(),
        scalars: [("alpha".to_owned(), 1.0)].into(),
        ..Launch::default()
    };
    assert_eq!(fields(&too_big, k), [LaunchField::Size]);
    assert!(too_big.problems(k, RunLimits::TERMINAL).is_empty());
}

#[test]
fn a_kernel_that_takes_a_ballot_runs_in_warps_of_at_most_32_lanes() {
    let Some(votes) = compiler_core::examples::find("votes") else {
        panic!("no votes example")
    };
    let compilation = compiled(votes.source);
    let k = kernel(&compilation);
    let wide = Launch {
        lanes: 64,
        ..votes.launch.clone()
    };
    let problems = wide.problems(k, RunLimits::TERMINAL);
    assert_eq!(
        problems.iter().map(|p| &p.field).collect::<Vec<_>>(),
        [&LaunchField::Lanes]
    );
    assert!(
        problems[0].message.contains(
            "takes a ballot, one u32 bit a lane: its warps have at most 32 lanes, not 64"
        ),
        "{}",
        problems[0].message
    );
    assert!(votes.launch.problems(k, RunLimits::TERMINAL).is_empty());
    // Without a ballot, 64-lane warps are fine.
    let Some(reduce) = compiler_core::examples::find("warp_reduce") else {
        panic!("no warp_reduce example")
    };
    let compilation = compiled(reduce.source);
    let wide = Launch {
        lanes: 64,
        ..reduce.launch.clone()
    };
    assert!(wide
        .problems(kernel(&compilation), RunLimits::TERMINAL)
        .is_empty());
}

/// What a launch names must be in the kernel, as what it is: a dimension, a scalar, a tensor.
/// The help lists what the kernel has.
#[test]
fn a_name_the_kernel_lacks_or_has_as_something_else_is_a_problem() {
    let Some(saxpy) = compiler_core::examples::find("saxpy") else {
        panic!("no saxpy")
    };
    let compilation = compiled(saxpy.source);
    let k = kernel(&compilation);
    let mut launch = saxpy.launch.clone();
    launch.dims.insert("X".into(), 3);
    launch.dims.insert("M".into(), 3);
    launch.scalars.insert("Y".into(), 1.0);
    launch.inputs.insert("alpha".into(), Input::Ones);
    let found: Vec<(LaunchField, String, Option<String>)> = launch
        .problems(k, RunLimits::PAGE)
        .into_iter()
        .map(|p| (p.field, p.message, p.help))
        .collect();
    let problem = |field: LaunchField, message: &str, help: &str| {
        (field, message.to_owned(), Some(help.to_owned()))
    };
    assert_eq!(
        found,
        [
            problem(
                LaunchField::Input("alpha".into()),
                "`alpha` is a scalar, not a tensor",
                "its tensors are X, Y"
            ),
            problem(
                LaunchField::Scalar("Y".into()),
                "`Y` is a tensor, not a scalar",
                "its scalars are alpha"
            ),
            problem(
                LaunchField::Dim("M".into()),
                "kernel `saxpy` has no dimension M",
                "its dimensions are N"
            ),
            problem(
                LaunchField::Dim("X".into()),
                "kernel `saxpy` has no dimension X",
                "its dimensions are N"
            ),
        ]
    );
    assert!(saxpy.launch.problems(k, RunLimits::PAGE).is_empty());
}

const TAKES_AN_I32: &str = "@launch(32)\nkernel k(n: i32, m: u32, x: f32, Y: tensor<i32>[32]) {\n  Y[ctx.thread] = n + i32(m) + i32(x)\n}\n";

/// An integer scalar given a fraction is refused rather than truncated; a float scalar takes
/// any number.
#[test]
fn an_integer_scalar_takes_only_integers() {
    let compilation = compiled(TAKES_AN_I32);
    let k = kernel(&compilation);
    let launch = |n: f64, m: f64| Launch {
        scalars: [
            ("n".to_owned(), n),
            ("m".to_owned(), m),
            ("x".to_owned(), 2.7),
        ]
        .into(),
        ..Launch::default()
    };
    assert!(launch(-3.0, 4e9).problems(k, RunLimits::PAGE).is_empty());
    let found: Vec<(LaunchField, String, Option<String>)> = launch(2.7, f64::NAN)
        .problems(k, RunLimits::PAGE)
        .into_iter()
        .map(|p| (p.field, p.message, p.help))
        .collect();
    assert_eq!(
        found,
        [
            (
                LaunchField::Scalar("n".into()),
                "the scalar `n: i32` takes an integer, not 2.7".to_owned(),
                Some("give it an integer (on the command line: --scalar n=2)".to_owned())
            ),
            (
                LaunchField::Scalar("m".into()),
                "the scalar `m: u32` takes an integer, not NaN".to_owned(),
                Some("give it an integer (on the command line: --scalar m=N)".to_owned())
            ),
        ]
    );
    assert!(compilation.run(&launch(2.7, 1.0)).is_err(), "not run as 2");
}

/// On a terminal, a launch's problem points at what it concerns in the kernel's signature and
/// names the flag that sets it; the grid and a name the kernel lacks point at the kernel.
#[test]
fn a_launch_diagnostic_points_at_its_parameter_and_names_the_flag() {
    let compilation = compiled(TAKES_AN_I32);
    let launch = Launch {
        grid: Dim3::new(0, 1, 1),
        dims: [("N".to_owned(), 8)].into(),
        scalars: [("n".to_owned(), 2.5), ("x".to_owned(), 1.0)].into(),
        ..Launch::default()
    };
    let Err(diagnostics) = compilation.prepare(&launch, RunLimits::TERMINAL) else {
        panic!("ran")
    };
    let text = render_all(&diagnostics, compilation.source(), "k.tsr");
    assert_eq!(
        text,
        "\
error[E0515]: the grid 0 x 1 x 1 has no CTAs: every extent must be at least 1
 --> k.tsr:2:8
  |
2 | kernel k(n: i32, m: u32, x: f32, Y: tensor<i32>[32]) {
  |        ^ its grid is set by `--grid X[,Y[,Z]]`

error[E0515]: kernel `k` has no dimension N
 --> k.tsr:2:8
  |
2 | kernel k(n: i32, m: u32, x: f32, Y: tensor<i32>[32]) {
  |        ^ `--dim N=…` names no dimension of this kernel
  = help: kernel `k` has no dimensions

error[E0515]: the scalar `n: i32` takes an integer, not 2.5
 --> k.tsr:2:10
  |
2 | kernel k(n: i32, m: u32, x: f32, Y: tensor<i32>[32]) {
  |          ^ set by `--scalar n=…`
  = help: give it an integer (on the command line: --scalar n=2)

error[E0515]: the scalar `m: u32` has no value
 --> k.tsr:2:18
  |
2 | kernel k(n: i32, m: u32, x: f32, Y: tensor<i32>[32]) {
  |                  ^ set by `--scalar m=…`
  = help: give it one (on the command line: --scalar m=V)

error: the run stopped
"
    );
    let Some(matvec) = compiler_core::examples::find("matvec") else {
        panic!("no matvec")
    };
    let compilation = compiled(matvec.source);
    let mut launch = matvec.launch.clone();
    launch.dims.remove("K");
    launch.inputs.insert(
        "A".into(),
        Input::Data {
            shape: vec![100],
            values: vec![0.0; 100],
        },
    );
    let Err(diagnostics) = compilation.prepare(&launch, RunLimits::TERMINAL) else {
        panic!("ran")
    };
    let text = render_all(&diagnostics, compilation.source(), "matvec.tsr");
    assert!(
        text.contains(
            "\
error[E0515]: `A` has rank 2 but its input has rank 1 (shape [100])
 --> matvec.tsr:4:11
  |
4 | kernel mv(A: tensor<f32>[1, K], W: tensor<f32>[N, K], C: tensor<f32>[1, N]) {
  |           ^ set by `--in A=…`
"
        ),
        "{text}"
    );
    launch.inputs.remove("A");
    let Err(diagnostics) = compilation.prepare(&launch, RunLimits::TERMINAL) else {
        panic!("ran")
    };
    let text = render_all(&diagnostics, compilation.source(), "matvec.tsr");
    assert!(
        text.contains(
            "\
error[E0515]: dimension K has no value
 --> matvec.tsr:4:29
  |
4 | kernel mv(A: tensor<f32>[1, K], W: tensor<f32>[N, K], C: tensor<f32>[1, N]) {
  |                             ^ set by `--dim K=…` or an input's shape
  = help: give it one (on the command line: --dim K=V, or an input with data)
"
        ),
        "{text}"
    );
}

/// `Y: tensor<f32>[N - K + 1]`: the launch computes the extent from N and K, the form shows
/// only N and K, and a problem with the extent shows at the dimension it comes from.
const CONV: &str = "@launch(64)\nkernel conv(X: tensor<f32>[N], W: tensor<f32>[K], Y: tensor<f32>[N - K + 1]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N - K + 1 {\n    var acc = 0.0\n    for k in range(K) {\n      acc += X[i + k] * W[k]\n    }\n    Y[i] = acc\n  }\n}\n";

#[test]
fn a_derived_extent_is_computed_by_the_launch() {
    let compilation = compiled(CONV);
    let k = kernel(&compilation);
    assert_eq!(k.dims, ["N", "K", "N - K + 1"]);
    assert_eq!(
        k.given_dims().map(|(_, n)| n.as_str()).collect::<Vec<_>>(),
        ["N", "K"]
    );
    assert_eq!(k.dim_symbol(2), "N_sub_K_add_1_2");
    let launch = Launch {
        dims: [("N".to_owned(), 10), ("K".to_owned(), 3)].into(),
        inputs: [("X".to_owned(), Input::Iota), ("W".to_owned(), Input::Ones)].into(),
        ..Launch::default()
    };
    let output = compilation
        .run(&launch)
        .unwrap_or_else(|d| panic!("{}", render_all(&d, CONV, "conv.tsr")));
    assert_eq!(output.args.dims, [10, 3, 8]);
    let compiler_core::sim::Arg::Tensor(y) = &output.args.params[2] else {
        panic!("Y is a tensor")
    };
    assert_eq!(y.shape, [8]);
    let sums: Vec<f32> = y.bits.iter().map(|b| f32::from_bits(*b)).collect();
    assert_eq!(sums, [3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0, 24.0]);
    // A fitted launch gives values to N and K only; a value for the derived one is dropped.
    let mut stale = launch.clone();
    stale.dims.insert("N - K + 1".into(), 99);
    let fitted = stale.fitted_to(k, None);
    assert_eq!(fitted.dims, launch.dims);
}

#[test]
fn a_derived_extent_that_is_negative_or_disagrees_with_data_is_a_problem_at_its_dimension() {
    let compilation = compiled(CONV);
    let k = kernel(&compilation);
    let negative = Launch {
        dims: [("N".to_owned(), 2), ("K".to_owned(), 5)].into(),
        ..Launch::default()
    };
    let problems = negative.problems(k, RunLimits::PAGE);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].field, LaunchField::Dim("N".into()));
    assert_eq!(
        problems[0].message,
        format!(
            "the extent N - K + 1 is -2 (N = 2, K = 5); it must be from 0 to {}",
            i32::MAX
        )
    );
    let disagrees = Launch {
        dims: [("N".to_owned(), 10), ("K".to_owned(), 3)].into(),
        inputs: [(
            "Y".to_owned(),
            Input::Data {
                shape: vec![7],
                values: vec![0.0; 7],
            },
        )]
        .into(),
        ..Launch::default()
    };
    let problems = disagrees.problems(k, RunLimits::PAGE);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].field, LaunchField::Dim("N".into()));
    assert_eq!(
        problems[0].message,
        "the extent N - K + 1 is 8 (N = 10, K = 3) but 7 from the shape of `Y`"
    );
}

/// Issue 51: a derived extent's problems are one error, at the dimension to give. A dimension
/// used only in an expression (`K / 2`) is pointed at there (it read "`--dim K=…` names no
/// dimension"); an extent whose operand has no value says nothing of its own (it said
/// "dimension L - KS + 1 has no value", help `--dim L - KS + 1=V`); a mistyped `--dim` lists
/// only the dimensions a launch gives.
#[test]
fn a_derived_extent_without_a_value_is_one_error_at_the_dimension_to_give() {
    let source = "@launch(32)\nkernel conv(X: tensor<f32>[L], W: tensor<f32>[KS], Y: tensor<f32>[L - KS + 1], H: tensor<f32>[K / 2]) {\n}\n";
    let compilation = compiled(source);
    let launch = Launch {
        dims: [("L".to_owned(), 10), ("Q".to_owned(), 3)].into(),
        ..Launch::default()
    };
    let Err(diagnostics) = compilation.prepare(&launch, RunLimits::PAGE) else {
        panic!("ran")
    };
    let text = render_all(&diagnostics, source, "conv.tsr");
    assert!(!text.contains("L - KS + 1 has"), "{text}");
    assert!(
        text.contains("error[E0515]: dimension KS has no value"),
        "{text}"
    );
    assert!(
        text.contains("error[E0515]: dimension K has no value"),
        "{text}"
    );
    assert!(
        text.contains("kernel `conv` has no dimension Q\n"),
        "{text}"
    );
    assert!(
        text.contains("= help: its dimensions are L, KS, K\n"),
        "{text}"
    );
    assert_eq!(diagnostics.len(), 3, "{text}");
    // K is pointed at inside `K / 2`, labelled with the flag that sets it.
    let k = diagnostics
        .iter()
        .find(|d| d.message == "dimension K has no value")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(k.span.start, source.find("K / 2").unwrap_or(0), "{text}");
    assert_eq!(
        k.label.as_deref(),
        Some("set by `--dim K=…` or an input's shape")
    );
}

/// Issue 53: an extent may name an integer scalar (`(H - ks) / 2 + 1`), computed at launch;
/// a negative one is a problem at the dimension, or at the scalar when it reads no dimension.
#[test]
fn an_extent_that_names_an_integer_scalar_is_computed_from_its_value() {
    let source = "@launch(32)\nkernel pool(X: tensor<f32>[H], Y: tensor<f32>[(H - ks) / 2 + 1], ks: i32, Z: tensor<i32>[ks]) {\n  let i = ctx.thread\n  if i < (H - ks) / 2 + 1 {\n    var m = X[2 * i]\n    for k in range(1, ks) {\n      m = max(m, X[2 * i + k])\n    }\n    Y[i] = m\n  }\n  if i < ks {\n    Z[i] = i\n  }\n}\n";
    let compilation = compiled(source);
    let k = kernel(&compilation);
    assert_eq!(
        k.given_dims().map(|(_, n)| n.as_str()).collect::<Vec<_>>(),
        ["H"]
    );
    let launch = Launch {
        dims: [("H".to_owned(), 10)].into(),
        scalars: [("ks".to_owned(), 3.0)].into(),
        inputs: [("X".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let output = compilation
        .run(&launch)
        .unwrap_or_else(|d| panic!("{}", render_all(&d, source, "pool.tsr")));
    let compiler_core::sim::Arg::Tensor(y) = &output.args.params[1] else {
        panic!("Y is a tensor")
    };
    assert_eq!(y.shape, [4]);
    let maxima: Vec<f32> = y.bits.iter().map(|b| f32::from_bits(*b)).collect();
    assert_eq!(maxima, [2.0, 4.0, 6.0, 8.0]);
    let compiler_core::sim::Arg::Tensor(z) = &output.args.params[3] else {
        panic!("Z is a tensor")
    };
    assert_eq!(z.shape, [3]);
    let mut negative = launch.clone();
    negative.scalars.insert("ks".into(), -1.0);
    let problems = negative.problems(k, RunLimits::PAGE);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0].field, LaunchField::Scalar("ks".into()));
    assert_eq!(
        problems[0].message,
        format!(
            "the extent ks is -1 (ks = -1); it must be from 0 to {}",
            i32::MAX
        )
    );
    // A u32 scalar's extent uses the value the kernel reads; -1 is not one (it wrapped to
    // 4294967295 once: issue 68 refuses it, as 2.7 is).
    let source = "@launch(1)\nkernel k(X: tensor<f32>[H], Y: tensor<f32>[H - ks], ks: u32) {\n}\n";
    let compilation = compiled(source);
    let mut launch = Launch {
        dims: [("H".to_owned(), 10)].into(),
        scalars: [("ks".to_owned(), -1.0)].into(),
        ..Launch::default()
    };
    let problems = launch.problems(kernel(&compilation), RunLimits::PAGE);
    assert_eq!(
        problems[0].message,
        "the scalar `ks: u32` takes integers from 0 to 4294967295, not -1"
    );
    launch.scalars.insert("ks".into(), 4294967295.0);
    let problems = launch.problems(kernel(&compilation), RunLimits::PAGE);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0]
            .message
            .starts_with("the extent H - ks is -4294967285 (H = 10, ks = 4294967295)"),
        "{}",
        problems[0].message
    );
}

/// A grid past NVIDIA's limits (2^31 - 1 CTAs on x, 65,535 on y and z) is a problem at the
/// grid, on every backend.
#[test]
fn a_grid_past_nvidias_limits_is_a_problem_at_the_grid() {
    let compilation = compiled(SCALE);
    let k = kernel(&compilation);
    for (grid, message) in [
        (
            Dim3::new(1 << 31, 1, 1),
            "the grid has 2147483648 CTAs on axis x: at most 2147483647, NVIDIA's limit",
        ),
        (
            Dim3::new(1, 1, 65_536),
            "the grid has 65536 CTAs on axis z: at most 65535, NVIDIA's limit",
        ),
    ] {
        let launch = Launch {
            grid,
            dims: [("M".to_owned(), 256)].into(),
            ..Launch::default()
        };
        let problems = launch.problems(k, RunLimits::PAGE);
        assert!(
            problems
                .iter()
                .any(|p| p.field == LaunchField::Grid && p.message == message),
            "{problems:#?}"
        );
    }
}

/// Data as element bits (`Input::Bits`, Python's arrays) run as the same data as numbers, and
/// carry what numbers cannot: a NaN's payload, a 64-bit integer past 2^53. Its shape gives the
/// dimensions, and a count that disagrees with it is a problem at its field.
#[test]
fn data_as_bits_runs_as_data_as_numbers_and_keeps_every_bit() {
    let source = "@launch(32)\nkernel k(X: tensor<f32>[N], A: tensor<i64>[N], Y: tensor<f32>[N], B: tensor<i64>[N]) {\n  if ctx.thread < N {\n    Y[ctx.thread] = X[ctx.thread]\n    B[ctx.thread] = A[ctx.thread]\n  }\n}\n";
    let compilation = compiled(source);
    let x = [
        1.5f32,
        -0.0,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xffc0_0123),
    ];
    let a = [3i64, -7, (1 << 53) + 1, i64::MIN];
    let bits_launch = Launch {
        inputs: [
            (
                "X".to_owned(),
                Input::Bits {
                    shape: vec![4],
                    bits: x.iter().map(|v| v.to_bits()).collect(),
                },
            ),
            (
                "A".to_owned(),
                Input::Bits {
                    shape: vec![4],
                    bits: a
                        .iter()
                        .flat_map(|&v| compiler_core::ir::split_words(v as u64))
                        .collect(),
                },
            ),
        ]
        .into(),
        ..Launch::default()
    };
    let output = compilation
        .run(&bits_launch)
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let tensor = |i: usize| match &output.args.params[i] {
        compiler_core::sim::Arg::Tensor(t) => t.bits.clone(),
        _ => panic!("not a tensor"),
    };
    let y: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
    assert_eq!(
        tensor(2),
        y,
        "every bit of every f32, NaN payloads included"
    );
    assert_eq!(
        tensor(3)
            .chunks(2)
            .map(|w| compiler_core::ir::join_words(w) as i64)
            .collect::<Vec<_>>(),
        a
    );
    // The same values as numbers, where numbers hold them, give the same run.
    let numbers = Launch {
        inputs: [(
            "X".to_owned(),
            Input::Data {
                shape: vec![4],
                values: vec![1.5, -0.0, 2.0, 3.0],
            },
        )]
        .into(),
        ..Launch::default()
    };
    let as_bits = Launch {
        inputs: [(
            "X".to_owned(),
            Input::Bits {
                shape: vec![4],
                bits: [1.5f32, -0.0, 2.0, 3.0]
                    .iter()
                    .map(|v| v.to_bits())
                    .collect(),
            },
        )]
        .into(),
        ..Launch::default()
    };
    let run = |l: &Launch| {
        compilation.run(l).map(|o| {
            o.args
                .params
                .iter()
                .map(|p| match p {
                    compiler_core::sim::Arg::Tensor(t) => t.bits.clone(),
                    compiler_core::sim::Arg::Scalar(_) => Vec::new(),
                })
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(run(&numbers).ok(), run(&as_bits).ok());
    assert!(run(&as_bits).is_ok());
    let short = Launch {
        dims: [("N".to_owned(), 4)].into(),
        inputs: [(
            "X".to_owned(),
            Input::Bits {
                shape: vec![4],
                bits: vec![0; 3],
            },
        )]
        .into(),
        ..Launch::default()
    };
    assert_eq!(
        fields(&short, kernel(&compilation)),
        [LaunchField::Input("X".into())]
    );
}
