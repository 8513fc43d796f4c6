//! Programs: launches in order over shared tensors, on the simulator. Sums and passes against
//! values worked out here, ping-pong buffers, a loop until a value a kernel wrote says stop
//! (and its limit), and the problems of a program named where they are.

use compiler_core::diagnostic::{render_all, Code};
use compiler_core::launch::{Input, Launch};
use compiler_core::program::ProgramOutput;
use compiler_core::sim::Arg;
use compiler_core::RunLimits;

fn run(
    source: &str,
    dims: &[(&str, i64)],
    inputs: Vec<(&str, Input)>,
) -> Result<ProgramOutput, String> {
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        inputs: inputs
            .into_iter()
            .map(|(n, i)| (n.to_string(), i))
            .collect(),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare_program(&launch, RunLimits::TERMINAL)
        .map_err(|d| render_all(&d, source, "p.tsr"))?;
    prepared
        .simulate()
        .map_err(|d| render_all(&[d], source, "p.tsr"))
}

fn bits(output: &ProgramOutput, param: usize) -> Vec<u32> {
    match &output.args.params[param] {
        Arg::Tensor(t) => t.bits.clone(),
        Arg::Scalar(_) => panic!("parameter {param} is a scalar"),
    }
}

fn grid_sum() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/programs/grid_sum.tsr"
    ))
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn grid_sum_sums_in_two_launches_with_grids_from_the_dimensions() {
    for (n, ctas) in [(1000, 4), (100_000, 391), (1_000_000, 1024)] {
        let output = run(&grid_sum(), &[("N", n)], vec![("X", Input::Ones)])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&output, 1), vec![(n as f32).to_bits()], "N = {n}");
        let launches: Vec<(String, u32)> = output
            .launches
            .iter()
            .map(|l| (l.kernel.clone(), l.grid.x))
            .collect();
        assert_eq!(
            launches,
            vec![("partial_sums".to_owned(), ctas), ("total".to_owned(), 1)]
        );
    }
}

const PING_PONG: &str = "@launch(64)
kernel step(A: tensor<i32>[N], B: tensor<i32>[N], k: i32) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {
    B[i] = A[i] * 2 + k
  }
}

program passes(A: tensor<i32>[N], rounds: i32) {
  let B = tensor<i32>[N]
  for k in range(rounds) {
    launch step(A, B, k) grid(ceil(N / 64))
    swap(A, B)
  }
}
";

#[test]
fn a_for_loop_launches_each_pass_and_swap_trades_the_buffers_without_a_copy() {
    let compilation = compiler_core::compile(PING_PONG);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let launch = Launch {
        dims: [("N".to_owned(), 100)].into(),
        scalars: [("rounds".to_owned(), 5.0)].into(),
        inputs: [("A".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let output = compilation
        .prepare_program(&launch, RunLimits::TERMINAL)
        .and_then(|p| p.simulate().map_err(|d| vec![d]))
        .unwrap_or_else(|d| panic!("{d:?}"));
    // x -> 2x + k for k = 0..5, and A names the last pass's result.
    let want: Vec<u32> = (0..100)
        .map(|x: i32| (0..5).fold(x, |v, k| v * 2 + k) as u32)
        .collect();
    assert_eq!(bits(&output, 0), want);
    assert_eq!(output.launches.len(), 5);
}

const HALVING: &str = "@launch(64)
kernel count_nonzero(X: tensor<u32>[N], Count: tensor<u32>[1]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N && X[i] != 0 {
    atomic_add(Count[0], 1)
  }
}

@launch(64)
kernel halve(X: tensor<u32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {
    X[i] = X[i] / 2
  }
}

@launch(1)
kernel clear(Count: tensor<u32>[1]) {
  Count[0] = 0
}

program halving(X: tensor<u32>[N]) {
  let Count = tensor<u32>[1]
  launch count_nonzero(X, Count) grid(ceil(N / 64))
  while Count[0] != 0 limit LIMIT {
    launch halve(X) grid(ceil(N / 64))
    launch clear(Count) grid(1)
    launch count_nonzero(X, Count) grid(ceil(N / 64))
  }
}
";

#[test]
fn a_while_loop_runs_until_a_value_a_kernel_wrote_says_stop() {
    let source = HALVING.replace("LIMIT", "40");
    let output =
        run(&source, &[("N", 1000)], vec![("X", Input::Iota)]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bits(&output, 0), vec![0; 1000]);
    // 999 needs 10 halvings: one count, then three launches a pass.
    assert_eq!(output.launches.len(), 1 + 3 * 10);
}

#[test]
fn a_while_loop_that_reaches_its_limit_stops_and_says_so() {
    let source = HALVING.replace("LIMIT", "4");
    let error = run(&source, &[("N", 1000)], vec![("X", Input::Iota)])
        .err()
        .unwrap_or_else(|| panic!("the limit did not stop it"));
    assert!(
        error.starts_with("error[E0517]: the loop ran its limit of 4 passes, and its condition still holds\n  --> p.tsr:25:3"),
        "{error}"
    );
}

#[test]
fn a_size_that_does_not_evaluate_is_a_launch_problem_at_its_statement() {
    let source = "@launch(32)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.thread] = 1.0\n}\n\nprogram p(X: tensor<f32>[N]) {\n  let T = tensor<f32>[N - 100]\n  launch k(X) grid(1)\n}\n";
    let error = run(source, &[("N", 64)], vec![])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert!(
        error
            .starts_with("error[E0515]: temporary `T` would have an extent of -36\n --> p.tsr:7:3"),
        "{error}"
    );
}

#[test]
fn a_fault_in_a_launch_names_the_launch() {
    let source = "@launch(32)\nkernel fill(X: tensor<f32>[N]) {\n  X[ctx.thread] = 1.0\n}\n\nprogram p(X: tensor<f32>[N], Y: tensor<f32>[M]) {\n  launch fill(X) grid(1)\n  launch fill(Y) grid(1)\n}\n";
    let error = run(source, &[("N", 32), ("M", 16)], vec![])
        .err()
        .unwrap_or_else(|| panic!("no fault"));
    assert!(
        error.contains("error[E0510]: X[16] is outside X's shape [16]"),
        "{error}"
    );
    assert!(
        error.contains("in this launch of `fill` (grid 1 x 1 x 1) by program `p`"),
        "{error}"
    );
    assert!(error.contains("8 |   launch fill(Y) grid(1)"), "{error}");
}

#[test]
fn a_kernel_whose_dimension_two_tensors_give_differently_is_refused() {
    let source = "@launch(32)\nkernel add(A: tensor<f32>[N], B: tensor<f32>[N]) {\n  B[ctx.thread] = A[ctx.thread]\n}\n\nprogram p(A: tensor<f32>[N], B: tensor<f32>[M]) {\n  launch add(A, B) grid(1)\n}\n";
    let error = run(source, &[("N", 32), ("M", 16)], vec![])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert!(
        error.starts_with("error[E0515]: `add`'s dimension N is 32 from `A` and 16 from `B`"),
        "{error}"
    );
    let code = compiler_core::compile(source)
        .diagnostics
        .first()
        .map(|d| d.code);
    assert_eq!(code, None::<Code>);
}

/// Each program example (`examples/programs/`) with its catalogue launch, against values
/// worked out here from the same inputs.
#[test]
fn every_program_example_gives_what_a_reference_computes() {
    for example in compiler_core::examples::programs() {
        let compilation = compiler_core::compile(example.source);
        assert!(
            compilation.diagnostics.is_empty(),
            "{}: {:?}",
            example.name,
            compilation.diagnostics
        );
        let mut launch = example.launch.clone();
        launch.kernel = Some(example.name.to_owned());
        let prepared = compilation
            .prepare_program(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{}: {d:?}", example.name));
        let input = |param: usize| match &prepared.run.args.params[param] {
            Arg::Tensor(t) => (t.shape.clone(), t.bits.clone()),
            Arg::Scalar(_) => panic!("a scalar"),
        };
        let output = prepared.simulate().unwrap_or_else(|d| {
            panic!(
                "{}: {}",
                example.name,
                render_all(&[d], example.source, example.name)
            )
        });
        match example.name {
            "grid_sum" => {
                let x: Vec<f32> = input(0).1.into_iter().map(f32::from_bits).collect();
                let want: f64 = x.iter().map(|&v| f64::from(v)).sum();
                let got = f64::from(f32::from_bits(bits(&output, 1)[0]));
                assert!(
                    (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                    "{got} vs {want}"
                );
            }
            "scan_large" => {
                let x = input(0).1;
                let mut sum = 0i32;
                let want: Vec<u32> = x
                    .iter()
                    .map(|&v| {
                        sum += v as i32;
                        sum as u32
                    })
                    .collect();
                assert_eq!(bits(&output, 1), want);
            }
            "softmax_long_rows" => {
                let (shape, x) = input(0);
                let (rows, cols) = (shape[0], shape[1]);
                let y = bits(&output, 1);
                for r in 0..rows {
                    let row: Vec<f64> = x[r * cols..(r + 1) * cols]
                        .iter()
                        .map(|&b| f64::from(f32::from_bits(b)))
                        .collect();
                    let max = row.iter().cloned().fold(f64::MIN, f64::max);
                    let sum: f64 = row.iter().map(|v| (v - max).exp()).sum();
                    for (c, v) in row.iter().enumerate() {
                        let want = (v - max).exp() / sum;
                        let got = f64::from(f32::from_bits(y[r * cols + c]));
                        assert!(
                            (got - want).abs() <= 1e-4 * want.max(1e-3),
                            "[{r}, {c}]: {got} vs {want}"
                        );
                    }
                }
            }
            "bfs_grid" => {
                let (shape, walls) = input(0);
                let (h, w) = (shape[0], shape[1]);
                let mut want = vec![u32::MAX; h * w];
                want[0] = 0;
                let mut queue = std::collections::VecDeque::from([0usize]);
                while let Some(i) = queue.pop_front() {
                    let (r, c) = (i / w, i % w);
                    let mut near = Vec::new();
                    if r > 0 {
                        near.push(i - w)
                    }
                    if r + 1 < h {
                        near.push(i + w)
                    }
                    if c > 0 {
                        near.push(i - 1)
                    }
                    if c + 1 < w {
                        near.push(i + 1)
                    }
                    for n in near {
                        if walls[n] == 0 && want[n] == u32::MAX {
                            want[n] = want[i] + 1;
                            queue.push_back(n);
                        }
                    }
                }
                assert_eq!(bits(&output, 1), want);
                assert!(want.iter().filter(|&&d| d != u32::MAX).count() > h * w / 2);
            }
            "bfs_frontier" => {
                let (shape, terrain) = input(0);
                let open: Vec<bool> = terrain.iter().map(|&t| t < 75).collect();
                let (want, levels) = bfs_levels(shape[0], shape[1], &open);
                assert_eq!(bits(&output, 1), want);
                assert_frontier_grids(&output, &levels, 256);
                assert!(levels.len() > 200, "{} levels", levels.len());
            }
            "fft" => {
                let (shape, x) = input(0);
                let n = shape[0];
                let x: Vec<f32> = x.into_iter().map(f32::from_bits).collect();
                assert_dft(&x, &bits(&output, 1), n);
                // 4096 is a power of two: the radix-2 passes, log2(4096) of them.
                let names: Vec<&str> = output.launches.iter().map(|l| l.kernel.as_str()).collect();
                assert_eq!(names.len(), 13, "{names:?}");
                assert_eq!(names[0], "bit_reverse");
                assert!(names[1..].iter().all(|&k| k == "butterfly"), "{names:?}");
            }
            other => panic!("{other} has no reference here"),
        }
    }
}

/// A loop of a billion passes stops at the run's limit on launches and passes, with E0517.
#[test]
fn a_runaway_loop_of_launches_stops_at_the_runs_limit() {
    let source = "@launch(32)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.thread] += 1.0\n}\n\nprogram p(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  for i in range(1000000000) {\n    swap(X, Y)\n  }\n  launch k(X) grid(1)\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: [("N".to_owned(), 32)].into(),
        ..Launch::default()
    };
    let mut prepared = compilation
        .prepare_program(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    prepared.max_launches = 1000;
    let error = prepared
        .simulate()
        .err()
        .unwrap_or_else(|| panic!("no limit"));
    assert_eq!(error.code, Code::E0517);
    assert_eq!(
        error.message,
        "the program made 1000 launches and loop passes, the run's limit"
    );
}

#[test]
fn a_programs_step_limit_is_per_cta_of_its_largest_kernel() {
    let compilation = compiler_core::compile(&grid_sum());
    let Ok(program) = compilation.program(None) else {
        panic!("no program");
    };
    assert_eq!(program.signature.threads, 256);
    let launch = Launch {
        dims: [("N".to_owned(), 1000)].into(),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare_program(&launch, RunLimits::PAGE)
        .unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(
        prepared.run.options.step_limit,
        RunLimits::PAGE.step_limit(256)
    );
}

/// Issue 51: a program passes a scalar as a direct launch does. An `f16` parameter takes the
/// literal rounded once to `f16` (f16(0.1) = 0.0999755859375, not the f32 0.1), and a program's
/// `f32` or `f16` scalar or an integer literal passes its value (they had passed the f32's bits
/// read as an integer, "would be 1056964608, outside f16").
#[test]
fn a_programs_scalars_reach_an_f16_parameter_as_a_direct_launch_gives_them() {
    let kernel = "@launch(32)\nkernel k(z: f16, Out: tensor<f32>[N]) {\n  if ctx.thread < N {\n    Out[ctx.thread] = f32(z)\n  }\n}\n";
    let direct = |value: f64| {
        let compilation = compiler_core::compile(kernel);
        let launch = Launch {
            dims: [("N".to_owned(), 1)].into(),
            scalars: [("z".to_owned(), value)].into(),
            ..Launch::default()
        };
        let output = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .and_then(|p| p.simulate().map_err(|d| vec![d]))
            .unwrap_or_else(|d| panic!("{d:?}"));
        match &output.args.params[1] {
            Arg::Tensor(t) => t.bits.clone(),
            Arg::Scalar(_) => panic!("a scalar"),
        }
    };
    assert_eq!(direct(0.1), vec![(0.0999755859375f64 as f32).to_bits()]);
    for (argument, value) in [
        ("0.1", 0.1),
        ("a", 0.1),
        ("h", 0.1),
        ("3", 3.0),
        ("70000.0", 7e4),
    ] {
        let source = format!("{kernel}\nprogram p(a: f32, h: f16, Out: tensor<f32>[N]) {{\n  launch k({argument}, Out) grid(1)\n}}\n");
        let compilation = compiler_core::compile(&source);
        let launch = Launch {
            dims: [("N".to_owned(), 1)].into(),
            scalars: [("a".to_owned(), 0.1), ("h".to_owned(), 0.1)].into(),
            ..Launch::default()
        };
        let output = compilation
            .prepare_program(&launch, RunLimits::TERMINAL)
            .and_then(|p| p.simulate().map_err(|d| vec![d]))
            .unwrap_or_else(|d| panic!("{argument}: {d:?}"));
        assert_eq!(bits(&output, 2), direct(value), "launch k({argument}, Out)");
    }
}

/// Issue 51: a temporary's element count is exact. [34724, 27905, 49477, 384773] is 2^64 + 4
/// elements, which a `usize` product wrapped to 4.
#[test]
fn a_temporary_whose_element_count_would_wrap_is_refused() {
    let source = "@launch(32)\nkernel k(T: tensor<f32>[A, B, C, D]) {\n}\n\nprogram p(X: tensor<f32>[N]) {\n  let T = tensor<f32>[34724, 27905, 49477, 384773]\n  launch k(T) grid(1)\n}\n";
    let error = run(source, &[("N", 1)], vec![])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert!(
        error.starts_with("error[E0515]: temporary `T` would hold 18446744073709551620 elements, over the limit of 67108864\n --> p.tsr:6:3"),
        "{error}"
    );
}

/// Issue 51: `swap` of tensors whose extents differ stops the run at the swap (`A` came back
/// with `B`'s elements); of equal extents it runs.
#[test]
fn a_swap_of_tensors_of_different_shapes_stops_at_the_swap() {
    let source = "@launch(32)\nkernel k(A: tensor<f32>[N]) {\n  if ctx.thread < N {\n    A[ctx.thread] = 1.0\n  }\n}\n\nprogram p(A: tensor<f32>[N], B: tensor<f32>[M]) {\n  swap(A, B)\n  launch k(A) grid(1)\n}\n";
    let error = run(source, &[("N", 2), ("M", 3)], vec![])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert!(
        error.starts_with("error[E0515]: `A` has shape [2] and `B` [3]: swap exchanges tensors of one shape\n --> p.tsr:9:3"),
        "{error}"
    );
    let output = run(source, &[("N", 3), ("M", 3)], vec![]).unwrap_or_else(|e| panic!("{e}"));
    // After the run each name holds the tensor it holds then: `A` the one the launch wrote.
    assert_eq!(bits(&output, 0), vec![1.0f32.to_bits(); 3]);
    assert_eq!(bits(&output, 1), vec![0; 3]);
}

/// Issue 51: temporaries of every element type a tensor has (they had been f32, i32 and u32,
/// and an `f16` one an error with a cascade): an `f16` and an `i8` temporary carry values
/// between launches, and a while condition reads a negative `i8` element as negative (read as
/// unsigned, `B[N - 1] > 0` would hold, and the loop's limit of 0 would stop the run). The
/// third `f16` is 0.0999755859375 * 3 = 0.2999267578125 rounded to even, 0.2998046875.
#[test]
fn temporaries_hold_every_tensor_element_type() {
    let source = "@launch(32)
kernel put(H: tensor<f16>[N], B: tensor<i8>[N]) {
  if ctx.thread < N {
    H[ctx.thread] = f16(0.1) * f16(ctx.thread)
    B[ctx.thread] = i8(-ctx.thread)
  }
}

@launch(32)
kernel get(H: tensor<f16>[N], B: tensor<i8>[N], Out: tensor<f32>[N], C: tensor<i32>[N]) {
  if ctx.thread < N {
    Out[ctx.thread] = f32(H[ctx.thread])
    C[ctx.thread] = i32(B[ctx.thread])
  }
}

program p(Out: tensor<f32>[N], C: tensor<i32>[N]) {
  let H = tensor<f16>[N]
  let B = tensor<i8>[N]
  launch put(H, B) grid(1)
  while B[N - 1] > 0 limit 0 {
    launch put(H, B) grid(1)
  }
  launch get(H, B, Out, C) grid(1)
}
";
    let diagnostics = compiler_core::compile(source).diagnostics;
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let output = run(source, &[("N", 4)], vec![]).unwrap_or_else(|e| panic!("{e}"));
    let tenth = 0.0999755859375f64 as f32;
    let want: Vec<u32> = [0.0, tenth, 2.0 * tenth, 0.2998046875f64 as f32]
        .iter()
        .map(|v: &f32| v.to_bits())
        .collect();
    assert_eq!(bits(&output, 0), want);
    assert_eq!(
        bits(&output, 1),
        vec![0, -1i32 as u32, -2i32 as u32, -3i32 as u32]
    );
}

/// Issue 51: a negative while limit is refused (it read "limit of -1 passes"), and a runaway
/// program stops at 65,536 launches and passes by default.
#[test]
fn a_negative_while_limit_is_refused_and_the_default_cap_is_65536() {
    let source = HALVING.replace("LIMIT", "0 - 1");
    let error = run(&source, &[("N", 1000)], vec![("X", Input::Iota)])
        .err()
        .unwrap_or_else(|| panic!("no error"));
    assert!(
        error.starts_with("error[E0515]: the loop's limit is -1: a limit of passes is 0 or more"),
        "{error}"
    );
    assert_eq!(compiler_core::program::MAX_LAUNCHES, 65_536);
}

/// A program's temporaries may be `f16`, `i8` and `u8` tensors (issue 53): each element kept
/// in its own width between launches (an `f16` rounds to half precision, a `u8` wraps).
#[test]
fn temporaries_of_f16_i8_and_u8_keep_their_width_between_launches() {
    let source = "@launch(64)
kernel fill(H: tensor<f16>[N], S: tensor<i8>[N], B: tensor<u8>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {
    H[i] = f16(f32(i) + 0.1)
    S[i] = -i
    B[i] = u32(i) * 3
  }
}

@launch(64)
kernel widen(H: tensor<f16>[N], S: tensor<i8>[N], B: tensor<u8>[N], Y: tensor<f32>[N], Z: tensor<i32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {
    Y[i] = f32(H[i])
    Z[i] = S[i] * 1000 + i32(B[i])
  }
}

program p(Y: tensor<f32>[N], Z: tensor<i32>[N]) {
  let H = tensor<f16>[N]
  let S = tensor<i8>[N]
  let B = tensor<u8>[N]
  launch fill(H, S, B) grid(ceil(N / 64))
  launch widen(H, S, B, Y, Z) grid(ceil(N / 64))
}
";
    let output = run(source, &[("N", 200)], Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    let y: Vec<f32> = bits(&output, 0).into_iter().map(f32::from_bits).collect();
    let z: Vec<i32> = bits(&output, 1).into_iter().map(|b| b as i32).collect();
    for i in 0..200usize {
        let half = f32::from_bits(compiler_core::ir::f16_round((i as f32 + 0.1).to_bits()));
        assert_eq!(y[i], half, "Y[{i}]");
        let signed = i8::from_le_bytes([(-(i as i32)) as u8]) as i32;
        assert_eq!(z[i], signed * 1000 + (i as i32 * 3 % 256), "Z[{i}]");
    }
}

/// Issue 53: a kernel whose extent names an integer scalar (`(H - ks) / 2 + 1`) takes its
/// value from the launch's argument, and a temporary of the wrong extent is a problem there.
#[test]
fn a_launch_gives_an_extent_that_names_a_scalar_its_value() {
    let kernel = "@launch(32)
kernel pool(X: tensor<f32>[H], Y: tensor<f32>[(H - ks) / 2 + 1], ks: i32) {
  let i = ctx.thread
  if i < (H - ks) / 2 + 1 {
    var m = X[2 * i]
    for k in range(1, ks) {
      m = max(m, X[2 * i + k])
    }
    Y[i] = m
  }
}
";
    let source = format!("{kernel}\nprogram p(X: tensor<f32>[H], Y: tensor<f32>[M]) {{\n  launch pool(X, Y, 3) grid(1)\n}}\n");
    let output = run(&source, &[("H", 10), ("M", 4)], vec![("X", Input::Iota)])
        .unwrap_or_else(|e| panic!("{e}"));
    let maxima: Vec<u32> = [2.0f32, 4.0, 6.0, 8.0]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits(&output, 1), maxima);
    let Err(text) = run(&source, &[("H", 10), ("M", 5)], vec![("X", Input::Iota)]) else {
        panic!("ran with Y of 5 elements")
    };
    assert!(
        text.contains("(H - ks) / 2 + 1 is 4 (H = 10, ks = 3)"),
        "{text}"
    );
}

/// Breadth-first distances from cell 0 over the open cells of an h x w grid (4-neighbours),
/// u32::MAX where unreached, and the cells of each level, in order.
fn bfs_levels(h: usize, w: usize, open: &[bool]) -> (Vec<u32>, Vec<Vec<usize>>) {
    let mut dist = vec![u32::MAX; h * w];
    dist[0] = 0;
    let mut levels = vec![vec![0usize]];
    loop {
        let mut next = Vec::new();
        for &i in levels.last().into_iter().flatten() {
            let (r, c) = (i / w, i % w);
            let near = [
                (r > 0).then(|| i - w),
                (r + 1 < h).then(|| i + w),
                (c > 0).then(|| i - 1),
                (c + 1 < w).then(|| i + 1),
            ];
            for n in near.into_iter().flatten() {
                if open[n] && dist[n] == u32::MAX {
                    dist[n] = dist[i] + 1;
                    next.push(n);
                }
            }
        }
        if next.is_empty() {
            return (dist, levels);
        }
        levels.push(next);
    }
}

/// Each `expand` launch of a frontier BFS had ceil(frontier / threads) CTAs: the program sized
/// it from the count it read back.
fn assert_frontier_grids(output: &ProgramOutput, levels: &[Vec<usize>], threads: usize) {
    let grids: Vec<usize> = output
        .launches
        .iter()
        .filter(|l| l.kernel == "expand")
        .map(|l| l.grid.x as usize)
        .collect();
    let want: Vec<usize> = levels.iter().map(|l| l.len().div_ceil(threads)).collect();
    assert_eq!(grids, want);
}

/// `y` (n complex f32 pairs) is the DFT of `x` computed in f64, within 1e-4 of the largest
/// magnitude (f32 sums of n terms with sin and cos good to 2^-11 on WGSL).
fn assert_dft(x: &[f32], y: &[u32], n: usize) {
    let mut scale = 0f64;
    let mut want = Vec::with_capacity(2 * n);
    for k in 0..n {
        let (mut re, mut im) = (0f64, 0f64);
        for t in 0..n {
            let a = -2.0 * std::f64::consts::PI * ((k * t) % n) as f64 / n as f64;
            let (s, c) = a.sin_cos();
            let (xr, xi) = (f64::from(x[2 * t]), f64::from(x[2 * t + 1]));
            re += xr * c - xi * s;
            im += xr * s + xi * c;
        }
        scale = scale.max(re.hypot(im));
        want.extend([re, im]);
    }
    for (i, (&got, want)) in y.iter().zip(&want).enumerate() {
        let got = f64::from(f32::from_bits(got));
        assert!(
            (got - want).abs() <= 1e-4 * scale,
            "[{}, {}]: {got} vs {want} (largest {scale})",
            i / 2,
            i % 2
        );
    }
}

/// Issue 53: a program decides. `if` takes the branch its condition picks, on sizes (`1 <<
/// log2(N) == N`) or on an element a kernel wrote, and `else if` chains; a grid and an integer
/// argument read an element back where the walk reaches them. The FFT's two ways give one
/// transform, and the frontier BFS sizes each launch from the count it read, at 8 threads a
/// CTA here so that frontiers span many CTAs.
#[test]
fn a_program_decides_from_sizes_and_from_what_its_kernels_wrote() {
    let fft = include_str!("../../examples/programs/fft.tsr");
    for n in [1usize, 6, 64, 100] {
        let x = Input::Rand(n as u64);
        let output = run(fft, &[("N", n as i64)], vec![("X", x)]).unwrap_or_else(|e| panic!("{e}"));
        let Arg::Tensor(xs) = &output.args.params[0] else {
            panic!("X is a tensor")
        };
        let xs: Vec<f32> = xs.bits.iter().map(|&b| f32::from_bits(b)).collect();
        assert_dft(&xs, &bits(&output, 1), n);
        let first = output.launches[0].kernel.as_str();
        assert_eq!(
            first == "bit_reverse",
            n.is_power_of_two(),
            "N = {n}: {first}"
        );
    }
    let bfs = include_str!("../../examples/programs/bfs_frontier.tsr")
        .replace("@launch(256)", "@launch(8)")
        .replace("/ 256)", "/ 8)");
    let (h, w) = (24, 40);
    let terrain: Vec<f64> = (0..h * w)
        .map(|i| ((i * 37 + i / 7) % 100) as f64)
        .collect();
    let open: Vec<bool> = terrain.iter().map(|&t| t < 75.0).collect();
    let input = Input::Data {
        shape: vec![h, w],
        values: terrain,
    };
    let output = run(
        &bfs,
        &[("H", h as i64), ("W", w as i64)],
        vec![("Terrain", input)],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (want, levels) = bfs_levels(h, w, &open);
    assert_eq!(bits(&output, 1), want);
    assert_frontier_grids(&output, &levels, 8);
    assert!(levels.iter().any(|l| l.len() > 16), "{levels:?}");
    // `else if` chains, and an integer argument reads an element back.
    let source = "@launch(32)
kernel put(C: tensor<i32>[1], v: i32) {
  if ctx.block.x == 0 && ctx.thread == 0 {
    C[0] = v
  }
}

program p(C: tensor<i32>[1], Out: tensor<i32>[1], Pad: tensor<f32>[N]) {
  launch put(C, N) grid(1)
  if C[0] > 10 {
    launch put(Out, 1) grid(1)
  } else if C[0] > 5 {
    launch put(Out, 2 * C[0]) grid(C[0] - 5)
  } else {
    launch put(Out, 3) grid(1)
  }
}
";
    for (n, want, grid) in [(11, 1, 1), (7, 14, 2), (2, 3, 1)] {
        let output = run(source, &[("N", n)], vec![]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&output, 1), [want], "N = {n}");
        assert_eq!(output.launches[1].grid.x, grid, "N = {n}");
    }
}

/// An integer argument may read an element of a tensor the same launch is given: it is read
/// before the tensors move into the launch (it had read 0, so `launch dec(C, C[0] - 10)`
/// wrote -10 and the loop ended after one pass).
#[test]
fn an_integer_argument_reads_a_tensor_its_own_launch_is_given() {
    let source = "@launch(1)
kernel set(C: tensor<i32>[1], v: i32) {
  C[0] = v
}

program p(C: tensor<i32>[1]) {
  launch set(C, 100) grid(1)
  while C[0] > 35 limit 10 {
    launch set(C, C[0] - 10) grid(1)
  }
}
";
    let output = run(source, &[], vec![]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bits(&output, 0), [30]);
    assert_eq!(output.launches.len(), 8);
}

/// A grid read from a sentinel (4294967295, "no distance yet" in a BFS) is past NVIDIA's
/// limit of 2^31 - 1 CTAs on x: the run stops at the launch at once (it had run for hours).
#[test]
fn a_grid_past_nvidias_limit_stops_the_run_at_its_launch() {
    let source = "@launch(1)
kernel set(C: tensor<u32>[1]) {
  C[0] = 4294967295
}

program p(C: tensor<u32>[1]) {
  launch set(C) grid(1)
  launch set(C) grid(C[0])
}
";
    let Err(text) = run(source, &[], vec![]) else {
        panic!("ran")
    };
    assert!(
        text.contains("would have a grid of 4294967295 CTAs on axis x: from 1 to 2147483647"),
        "{text}"
    );
}
