//! Run-time faults are errors that name the fault, the thread (block, warp, lane, thread) and the
//! source line; launches that do not fit the kernel are explained before anything runs.

use compiler_core::diagnostic::{render_all, Code};
use compiler_core::hierarchy::Dim3;
use compiler_core::ir::{
    CompareOp, CtxField, Kernel, Op, Operand, Reg, RegInfo, Scalar, Stmt, StmtKind,
};
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::{self, Arg, Args, SimOptions};
use compiler_core::span::Span;
use compiler_core::wgsl::WarpMode;
use compiler_core::RunLimits;

/// Runs `source` and returns the rendered error.
fn fault(source: &str, launch: Launch) -> (Code, String) {
    let compilation = compiler_core::compile(source);
    match compilation.run(&launch) {
        Ok(_) => panic!("the run did not fault"),
        Err(diagnostics) => (
            diagnostics[0].code,
            render_all(&diagnostics, source, "k.tsr"),
        ),
    }
}

fn launch(dims: &[(&str, i64)], inputs: Vec<(&str, Input)>) -> Launch {
    Launch {
        dims: dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        inputs: inputs
            .into_iter()
            .map(|(n, i)| (n.to_string(), i))
            .collect(),
        ..Launch::default()
    }
}

#[test]
fn an_out_of_bounds_read_names_the_tensor_index_shape_and_thread() {
    let source = "@launch(64)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  Y[ctx.thread] = X[ctx.thread + 1]\n}\n";
    let (code, text) = fault(source, launch(&[("N", 64)], vec![]));
    assert_eq!(code, Code::E0510);
    assert_eq!(
        text,
        "error[E0510]: X[64] is outside X's shape [64]\n --> k.tsr:3:19\n  |\n3 |   Y[ctx.thread] = X[ctx.thread + 1]\n  |                   ^^^^^^^^^^^^^^^^^ in block (0, 0, 0), warp 1, lane 31, thread 63\n\nerror: the run stopped\n"
    );
}

#[test]
fn an_out_of_bounds_write_is_a_fault_too() {
    let source = "@launch(32)\nkernel k(Y: tensor<i32>[4, 4]) {\n  Y[ctx.thread / 4, ctx.thread % 4] = 1\n}\n";
    let (code, text) = fault(source, launch(&[], vec![]));
    assert_eq!(code, Code::E0510);
    assert!(
        text.contains("Y[4, 0] is outside Y's shape [4, 4]"),
        "{text}"
    );
    assert!(text.contains("thread 16"), "{text}");
}

#[test]
fn integer_division_by_zero_names_the_thread() {
    let source = "@launch(32)\nkernel k(X: tensor<i32>[32], Y: tensor<i32>[32]) {\n  Y[ctx.lane] = 100 / X[ctx.lane]\n}\n";
    let values: Vec<f64> = (0..32).map(|i| if i == 5 { 0.0 } else { 1.0 }).collect();
    let (code, text) = fault(
        source,
        launch(
            &[],
            vec![(
                "X",
                Input::Data {
                    shape: vec![32],
                    values,
                },
            )],
        ),
    );
    assert_eq!(code, Code::E0511);
    assert!(text.contains("integer division by zero: 100 / 0"), "{text}");
    assert!(
        text.contains("in block (0, 0, 0), warp 0, lane 5, thread 5"),
        "{text}"
    );
}

#[test]
fn a_kernel_that_never_ends_stops_at_the_step_limit() {
    let source = "@launch(32)\nkernel k(Y: tensor<i32>[32]) {\n  var n = 0\n  while true {\n    n += 1\n  }\n}\n";
    let limited = Launch {
        step_limit: Some(10_000),
        ..Launch::default()
    };
    let (code, text) = fault(source, limited);
    assert_eq!(code, Code::E0514);
    assert!(
        text.contains("the CTA ran 10000 statements, its step limit, and had not finished"),
        "{text}"
    );
}

#[test]
fn the_step_limit_bounds_each_cta_not_the_whole_grid() {
    let source = "@launch(32)\nkernel k(Y: tensor<i32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    Y[i] = i\n  }\n}\n";
    let launch = Launch {
        grid: Dim3::new(50, 1, 1),
        dims: [("N".to_owned(), 1600)].into(),
        step_limit: Some(10),
        ..Launch::default()
    };
    let compilation = compiler_core::compile(source);
    let output = compilation.run(&launch).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(
        output.stats.steps > 10,
        "{} steps in all",
        output.stats.steps
    );
}

#[test]
fn a_hosts_default_step_limit_shrinks_as_the_cta_grows() {
    assert_eq!(RunLimits::TERMINAL.step_limit(32), 1 << 22);
    assert_eq!(RunLimits::TERMINAL.step_limit(1024), 1 << 17);
    assert_eq!(RunLimits::PAGE.step_limit(256), 1 << 21);
    assert_eq!(
        RunLimits::TERMINAL.step_limit(0),
        1 << 27,
        "no threads is one thread"
    );
}

/// The checker rejects every barrier under divergent control, so this fault is built from IR
/// directly: `if ctx.thread < 16 { barrier() }`.
#[test]
fn a_barrier_not_reached_by_every_thread_is_a_fault() {
    let span = Span::new(10, 19);
    let stmt = |kind| Stmt {
        kind,
        span,
        statement: span,
    };
    let kernel = Kernel {
        name: "k".into(),
        threads: 32,
        params: vec![],
        dims: vec![],
        derived: vec![],
        regs: vec![
            RegInfo {
                ty: Scalar::I32,
                name: None,
                variable: false,
                high_of: None,
            },
            RegInfo {
                ty: Scalar::Bool,
                name: None,
                variable: false,
                high_of: None,
            },
        ],
        shared: vec![],
        locals: vec![],
        body: vec![
            stmt(StmtKind::Let {
                dst: Reg(0),
                op: Op::Ctx(CtxField::Thread),
            }),
            stmt(StmtKind::Let {
                dst: Reg(1),
                op: Op::Compare(
                    CompareOp::Lt,
                    Scalar::I32,
                    Operand::Reg(Reg(0)),
                    Operand::Const(16),
                ),
            }),
            stmt(StmtKind::If {
                condition: Operand::Reg(Reg(1)),
                then_block: vec![stmt(StmtKind::Barrier)],
                else_block: vec![],
            }),
        ],
        span,
        cluster: None,
        matrix: None,
        mma: None,
    };
    let mut args = Args {
        grid: Dim3::new(1, 1, 1),
        dims: vec![],
        params: vec![],
    };
    let result = sim::run(&kernel, &mut args, SimOptions::default());
    let Err(fault) = result else {
        panic!("no fault")
    };
    assert_eq!(fault.code, Code::E0512);
    assert_eq!(
        fault.message,
        "barrier() is reached by thread 0 but not by thread 16, which has not finished"
    );
    assert_eq!((fault.warp, fault.lane, fault.thread), (0, 16, 16));
}

#[test]
fn dimensions_from_two_inputs_must_agree() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/vector_add.tsr"
    ))
    .unwrap_or_default();
    let data = |n: usize| Input::Data {
        shape: vec![n],
        values: vec![0.0; n],
    };
    let (code, text) = fault(&source, launch(&[], vec![("A", data(8)), ("B", data(9))]));
    assert_eq!(code, Code::E0515);
    assert!(
        text.contains("dimension N is 8 from the shape of `A` but 9 from the shape of `B`"),
        "{text}"
    );
}

#[test]
fn a_dimension_without_a_value_is_explained() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/vector_add.tsr"
    ))
    .unwrap_or_default();
    let (_, text) = fault(&source, launch(&[], vec![]));
    assert!(
        text.contains("dimension N has no value")
            && text.contains(
                "help: give it one (on the command line: --dim N=V, or an input with data)"
            ),
        "{text}"
    );
}

/// An integer scalar its type cannot hold is refused, as a fraction is (it wrapped silently:
/// 5,000,000,000 ran as 705,032,704); the largest it holds runs.
#[test]
fn an_integer_scalar_out_of_its_types_range_is_refused() {
    let source = "@launch(32)\nkernel k(n: i32, u: u32, Y: tensor<u32>[2]) {\n  if ctx.thread == 0 {\n    Y[0] = u32(n)\n    Y[1] = u\n  }\n}\n";
    let with = |n: f64, u: f64| {
        let mut l = launch(&[], vec![]);
        l.scalars.insert("n".into(), n);
        l.scalars.insert("u".into(), u);
        l
    };
    let (code, text) = fault(source, with(5e9, 1.0));
    assert_eq!(code, Code::E0515);
    assert!(
        text.contains(
            "the scalar `n: i32` takes integers from -2147483648 to 2147483647, not 5000000000"
        ),
        "{text}"
    );
    let (_, text) = fault(source, with(1.0, -1.0));
    assert!(
        text.contains("the scalar `u: u32` takes integers from 0 to 4294967295, not -1"),
        "{text}"
    );
    let ran = compiler_core::compile(source).run(&with(-2147483648.0, 4294967295.0));
    assert!(ran.is_ok(), "the ends of the ranges run");
}

#[test]
fn a_missing_scalar_is_explained() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/saxpy.tsr"
    ))
    .unwrap_or_default();
    let (_, text) = fault(&source, launch(&[("N", 4)], vec![]));
    assert!(
        text.contains("the scalar `alpha: f32` has no value")
            && text.contains("help: give it one (on the command line: --scalar alpha=V)"),
        "{text}"
    );
}

#[test]
fn the_launch_round_trips_through_json() {
    let launch = Launch {
        kernel: Some("mv".into()),
        grid: Dim3::new(4, 3, 1),
        inputs: [
            ("A".to_owned(), Input::Rand(7)),
            ("W".to_owned(), Input::Iota),
        ]
        .into_iter()
        .collect(),
        ..Launch::default()
    };
    let json = serde_json::to_string(&launch).unwrap_or_default();
    let back: Launch = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(back, launch);
    assert!(json.contains("\"rand\":7"), "{json}");
}

/// `f16` runs (it was refused with E0501): a cast to `f16` inside an `f32` kernel rounds to the
/// nearest `f16`, and the product of two `f16`s is rounded again, as the spec says.
#[test]
fn f16_runs_and_each_operation_rounds() {
    let cast = "@launch(32)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.thread] = f32(f16(X[ctx.thread]) * 3.0)\n}\n";
    let compilation = compiler_core::compile(cast);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let mut values = vec![0.1, 1.0 / 3.0, 1000.7, 70000.0];
    values.resize(32, 0.5);
    let launch = Launch {
        inputs: [(
            "X".to_owned(),
            Input::Data {
                shape: vec![32],
                values: values.clone(),
            },
        )]
        .into(),
        ..Launch::default()
    };
    let output = compilation.run(&launch).unwrap_or_else(|d| panic!("{d:?}"));
    let Arg::Tensor(x) = &output.args.params[0] else {
        panic!("no tensor")
    };
    let f16 = |v: f64| f64::from(f32::from_bits(Scalar::F16.bits(v)));
    let want: Vec<f64> = values.iter().map(|&v| f16(f16(v) * 3.0)).collect();
    let got: Vec<f64> = x.bits.iter().map(|&b| Scalar::F32.value(b)).collect();
    assert_eq!(got, want);
    // 0.1 is 0.0999755859375 in f16; times 3 is 0.2999267578125, which rounds again.
    assert_eq!(got[0], 0.2998046875);
    assert_eq!(got[3], f64::INFINITY, "70000 is past the largest f16");
}

#[test]
fn two_threads_writing_one_shared_element_is_a_race() {
    let source = "@launch(64)\nkernel k(A: tensor<f32>[32]) {\n  var t = A[0 :+ 32]\n  t[ctx.thread % 32] = 1.0\n}\n";
    let (code, text) = fault(source, Launch::default());
    assert_eq!(code, Code::E0513);
    assert!(text.contains("data race on element 0 of tile `t`: thread 32 writes it after thread 0 wrote it, with no barrier() between"), "{text}");
    assert!(text.contains("warp 1, lane 0, thread 32"), "{text}");
}

#[test]
fn reading_what_another_thread_wrote_needs_a_barrier() {
    let source = "@launch(32)\nkernel k(A: tensor<f32>[32], B: tensor<f32>[32]) {\n  var t = A[0 :+ 32]\n  t[ctx.lane] = 2.0\n  B[ctx.lane] = t[(ctx.lane + 1) % 32]\n}\n";
    let (code, text) = fault(source, Launch::default());
    assert_eq!(code, Code::E0513);
    assert!(
        text.contains("thread 0 reads it after thread 1 wrote it"),
        "{text}"
    );
}

#[test]
fn a_tile_element_outside_the_tile_is_a_fault() {
    let source = "@launch(32)\nkernel k(A: tensor<f32>[64], B: tensor<f32>[64]) {\n  var t = A[0 :+ 32]\n  B[ctx.lane] = t[ctx.lane + 1]\n}\n";
    let (code, text) = fault(source, Launch::default());
    assert_eq!(code, Code::E0510);
    assert!(
        text.contains("t[32] is outside the tile's shape [32]"),
        "{text}"
    );
}

/// Found by the random differential test: a tile filled in a loop and read per thread. The
/// next trip's copy must wait until every thread has finished reading, so the compiler puts a
/// barrier before a tile copy inside a loop; without it the simulator reports a race.
#[test]
fn a_tile_refilled_in_a_loop_is_not_a_race() {
    let source = "@launch(32)\nkernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {\n  var v = 0\n  for k in range(2) {\n    var t = X[ctx.block.x * ctx.threads :+ 16]\n    v = v + t[(ctx.thread + k) % 16]\n  }\n  if ctx.thread < N {\n    Y[ctx.thread] = v\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let launch = Launch {
        dims: [("N".to_owned(), 32)].into(),
        inputs: [("X".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let output = compilation.run(&launch).unwrap_or_else(|d| panic!("{d:?}"));
    let Some(Arg::Tensor(y)) = output.args.params.get(1) else {
        panic!("no Y")
    };
    // Thread t sums t % 16 and (t + 1) % 16.
    let expected: Vec<u32> = (0..32u32).map(|t| t % 16 + (t + 1) % 16).collect();
    assert_eq!(y.bits, expected);
}

#[test]
fn a_launch_too_large_for_its_host_is_refused_before_allocating() {
    let source =
        "@launch(64)\nkernel k(A: tensor<f32>[N, K], B: tensor<f32>[K], C: tensor<f32>[4]) {\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: [("N".to_owned(), 1000), ("K".to_owned(), 1_000_000)].into(),
        ..Launch::default()
    };
    // 4 GB of f32 together: a tab refuses it by counting, before any tensor exists.
    let Err(page) = compilation.prepare(&launch, RunLimits::PAGE) else {
        panic!("a tab accepted 1,001,000,004 elements")
    };
    assert!(page.iter().all(|d| d.code == Code::E0515));
    let Some(together) = page.iter().find(|d| d.message.contains("together")) else {
        panic!("{page:#?}")
    };
    assert!(
        together
            .message
            .contains("1001000004 elements together; a run in the page holds at most 16777216"),
        "{}",
        together.message
    );
    assert_eq!(together.help.as_deref(), Some(RunLimits::PAGE.larger));
    // A terminal holds each tensor to 64 Mi elements; `A` alone is over.
    let Err(terminal) = compilation.prepare(&launch, RunLimits::TERMINAL) else {
        panic!("a terminal accepted a tensor of 10^9 elements")
    };
    assert!(
        terminal[0]
            .message
            .contains("`A` would have 1000000000 elements"),
        "{}",
        terminal[0].message
    );
    let Err(missing) = compilation.prepare(&Launch::default(), RunLimits::PAGE) else {
        panic!("a launch without N ran")
    };
    assert!(
        missing[0].message.contains("dimension N has no value"),
        "{}",
        missing[0].message
    );
}

#[test]
fn a_scratch_tile_read_before_the_barrier_that_publishes_it_is_a_race() {
    // Each warp's lane 0 publishes the warp's sum, and warp 1 reads warp 0's slot at once.
    let source = "@launch(64)\nkernel k(B: tensor<i32>[64]) {\n  var sums = tile<i32>[2](0)\n  let s = sum<over ctx.lane>(1)\n  if ctx.lane == 0 {\n    sums[ctx.warp] = s\n  }\n  B[ctx.thread] = sums[0]\n}\n";
    let (code, text) = fault(source, Launch::default());
    assert_eq!(code, Code::E0513);
    assert!(text.contains("element 0 of tile `sums`"), "{text}");
    assert!(text.contains("k.tsr:8:"), "{text}");
    // With the barrier between, every thread reads warp 0's sum.
    let fixed = source.replace("  B[ctx.thread]", "  barrier()\n  B[ctx.thread]");
    let ran = compiler_core::compile(&fixed)
        .run(&Launch::default())
        .unwrap_or_else(|d| panic!("{d:?}"));
    let Arg::Tensor(b) = &ran.args.params[0] else {
        panic!("B is not a tensor");
    };
    assert!(b.bits.iter().all(|&bits| bits == 32), "{:?}", b.bits);
}

/// A collective over the CTA synchronizes it, as the spec says and the PTX (`bar.sync`) and
/// WGSL (`workgroupBarrier()`) do: a read before it and another thread's write after it do
/// not race, for a reduction and for a scan alike; without it they do.
#[test]
fn a_collective_over_the_cta_orders_shared_accesses_like_a_barrier() {
    for collective in ["sum<over ctx.thread>(1)", "prefix_sum<over ctx.thread>(1)"] {
        let source = format!("@launch(64)\nkernel k(B: tensor<i32>[64]) {{\n  var s = tile<i32>[64](1)\n  let mine = s[(ctx.thread + 1) % 64]\n  let c = {collective}\n  s[ctx.thread] = mine + c\n  barrier()\n  B[ctx.thread] = s[ctx.thread]\n}}\n");
        if let Err(diagnostics) = compiler_core::compile(&source).run(&Launch::default()) {
            panic!("{collective}: {diagnostics:?}");
        }
        let racy = source.replace(&format!("  let c = {collective}\n"), "  let c = 1\n");
        let (code, _) = fault(&racy, Launch::default());
        assert_eq!(code, Code::E0513, "without {collective}");
    }
}

/// A value passed between threads through a tensor with no barrier: on a GPU the reader may
/// run first (the audit's kernel gave Z[7] = 9 here and 0 on lavapipe), so it is a race.
#[test]
fn threads_of_a_cta_passing_values_through_a_tensor_without_a_barrier_race() {
    let racy = "@launch(64)\nkernel k(Y: tensor<i32>[64], Z: tensor<i32>[64]) {\n  let t = ctx.thread\n  Y[t] = t + 1\n  Z[t] = Y[(t + 1) % 64]\n}\n";
    let (code, text) = fault(racy, launch(&[], vec![]));
    assert_eq!(code, Code::E0516);
    assert!(
        text.contains("data race on Y[1]: thread 0 reads it after thread 1 wrote it, with no barrier() between"),
        "{text}"
    );
    let ordered = racy.replace("  Z[t]", "  barrier()\n  Z[t]");
    let output = compiler_core::compile(&ordered)
        .run(&launch(&[], vec![]))
        .unwrap_or_else(|d| panic!("{d:?}"));
    let Arg::Tensor(z) = &output.args.params[1] else {
        panic!("Z is a tensor")
    };
    assert_eq!(z.bits[7] as i32, 9);
}

/// Two CTAs on one element, one writing: nothing orders them, whatever the threads that run
/// the simulator; the later CTA in grid order reports it, naming both threads.
#[test]
fn two_ctas_writing_one_element_race_and_the_report_is_the_same_on_any_threads() {
    let source = "@launch(32)\nkernel k(X: tensor<f32>[N], Out: tensor<f32>[1]) {\n  let s = sum<over ctx.thread>(X[ctx.block.x * 32 + ctx.thread])\n  if ctx.thread == 0 {\n    Out[0] = s\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    let mut launch = launch(&[("N", 256)], vec![("X", Input::Iota)]);
    launch.grid = Dim3::new(8, 1, 1);
    for threads in [1, 2, 4] {
        let mut prepared = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{d:?}"));
        prepared.options.threads = threads;
        let copied = prepared.simulate();
        // The CLI's run, its inputs moved in: the run again in grid order starts from them too.
        for result in [copied, prepared.simulate_once()] {
            let Err(diagnostic) = result else {
                panic!("the race was not found on {threads} threads");
            };
            assert_eq!(diagnostic.code, Code::E0516);
            assert_eq!(
                diagnostic.message,
                "data race on Out[0]: thread 0 of block (1, 0, 0) writes it, and block (0, 0, 0) wrote it (its thread 0 touched it first) in the same launch; nothing orders two CTAs of a launch: they may touch one element only if both only read it or both only change it by atomics",
                "{threads} threads"
            );
        }
    }
}

/// Across CTAs: reads never race with reads, atomics never with atomics; a plain access beside
/// another CTA's atomic does.
#[test]
fn across_ctas_only_reads_together_or_atomics_together_are_free_of_races() {
    let run = |body: &str| {
        let source = format!("@launch(32)\nkernel k(X: tensor<u32>[4], C: tensor<u32>[1], Y: tensor<u32>[N]) {{\n  let i = ctx.block.x * 32 + ctx.thread\n{body}\n}}\n");
        let mut launch = launch(&[("N", 64)], vec![]);
        launch.grid = Dim3::new(2, 1, 1);
        compiler_core::compile(&source)
            .run(&launch)
            .map(|_| ())
            .map_err(|d| (d[0].code, d[0].message.clone()))
    };
    assert_eq!(run("  Y[i] = X[0] + X[1]"), Ok(()));
    assert_eq!(run("  atomic_add(C[0], X[0])\n  Y[i] = 1"), Ok(()));
    let (code, message) = run("  atomic_add(C[0], 1)\n  barrier()\n  if ctx.thread == 0 && ctx.block.x == 1 {\n    Y[i] = C[0]\n  }")
        .err()
        .unwrap_or_else(|| panic!("no race"));
    assert_eq!(code, Code::E0516);
    assert!(
        message.contains("thread 0 of block (1, 0, 0) reads it, and block (0, 0, 0) changed it by an atomic (its thread 0 touched it first)"),
        "{message}"
    );
    // Issue 51: a CTA that read an element plainly and changed it by an atomic, then another
    // CTA's atomic: the report names the plain read that races, not two atomics.
    let (code, message) = run("  if ctx.thread == 0 {\n    if ctx.block.x == 0 {\n      Y[i] = C[0]\n    }\n    atomic_add(C[0], 1)\n  }")
        .err()
        .unwrap_or_else(|| panic!("no race"));
    assert_eq!(code, Code::E0516);
    assert!(
        message.contains("thread 0 of block (1, 0, 0) changes it by an atomic, and block (0, 0, 0) read it (its thread 0 touched it first)"),
        "{message}"
    );
}

/// A per-thread array's index known only at run time, outside the array: E0518, with the
/// array's name, its shape and the thread, at the access.
#[test]
fn a_per_thread_array_index_outside_names_the_array_and_thread() {
    let source = "@launch(64)\nkernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {\n  var seen = array<i32>[4](0)\n  seen[X[ctx.thread]] += 1\n  Y[ctx.thread] = seen[0]\n}\n";
    let (code, text) = fault(source, launch(&[("N", 64)], vec![("X", Input::Iota)]));
    assert_eq!(code, Code::E0518);
    assert!(
        text.contains("index 4 is outside `seen`, an array<i32>[4] of 4 elements"),
        "{text}"
    );
    assert!(text.contains("thread 4"), "{text}");
    assert!(text.contains("k.tsr:4:"), "{text}");
}

/// A two-axis array checks each index against its axis: `a[0, 4]` of a `[4, 4]` array is
/// outside, though its flat index 4 is not (it had read `a[1, 0]`). And an index that is a
/// constant only once a loop is unrolled (`for q in range(9)` over 8 elements) or a constant
/// expression (`a[2 + 6]`) stops the simulator at the access, while PTX and WGSL stay valid
/// and check nothing (ptxas had refused an unknown `.local` symbol, naga a constant index out
/// of bounds).
#[test]
fn array_indices_are_checked_per_axis_and_constant_ones_past_the_end_stop_the_run() {
    let source = "@launch(32)\nkernel k(X: tensor<i32>[N], Y: tensor<f32>[N]) {\n  var a = array<f32>[4, 4](0.0)\n  a[1, 0] = 7.0\n  Y[ctx.thread] = a[0, X[ctx.thread]]\n}\n";
    let (code, text) = fault(source, launch(&[("N", 32)], vec![("X", Input::Iota)]));
    assert_eq!(code, Code::E0518);
    assert!(
        text.contains("index [0, 4] is outside `a`, an array<f32>[4, 4] of 16 elements"),
        "{text}"
    );
    assert!(text.contains("thread 4"), "{text}");
    // A u32 index reads as a u32: 4294967295, not -1.
    let source = "@launch(1)\nkernel k(Y: tensor<f32>[1], j: u32) {\n  var a = array<f32>[8](1.0)\n  a[j] = 3.0\n  Y[0] = a[j]\n}\n";
    let mut far = launch(&[], vec![]);
    far.scalars.insert("j".into(), 4294967295.0);
    let (code, text) = fault(source, far);
    assert_eq!(code, Code::E0518);
    assert!(text.contains("index 4294967295 is outside `a`"), "{text}");
    for (source, at) in [
        ("@launch(32)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  var a = array<f32>[8](0.0)\n  for q in range(9) {\n    a[q] = X[ctx.thread] + f32(q)\n  }\n  Y[ctx.thread] = a[7]\n}\n", "k.tsr:5:"),
        ("@launch(32)\nkernel k(Y: tensor<f32>[N]) {\n  var a = array<f32>[8](1.0)\n  Y[ctx.thread] = a[2 + 6]\n}\n", "k.tsr:4:"),
    ] {
        let (code, text) = fault(source, launch(&[("N", 32)], vec![]));
        assert_eq!(code, Code::E0518, "{text}");
        assert!(text.contains("index 8 is outside `a`"), "{text}");
        assert!(text.contains(at), "{text}");
        let compilation = compiler_core::compile(source);
        let kernel = compilation.kernel(None).unwrap_or_else(|d| panic!("{d:?}"));
        for mode in [WarpMode::Subgroups, WarpMode::Emulated] {
            let wgsl = compiler_core::wgsl::emit(kernel, 32, mode, Default::default());
            assert!(wgsl.is_ok(), "{mode:?}: {:?}", wgsl.err());
        }
        let ptx = compilation.ptx(None, compiler_core::ptx::Arch::Sm80);
        let ptx = ptx.unwrap_or_else(|d| panic!("{d:?}"));
        assert!(ptx.text.contains("outside the array"), "{}", ptx.text);
    }
}

/// A `u32` index is one: its arithmetic stays unsigned in the IR, and a fault names it as the
/// `u32` it is (4294967288), not as the `i32` of its bits (-8). A slice at a `u32` start past
/// every tensor reads 0 there (a slice's elements outside load as 0), its rows in the start's
/// type (32-bit index arithmetic wraps, as the spec says, so the start is 2^32 - 96, whose 16
/// rows stay below 2^32).
#[test]
fn a_u32_index_is_named_and_typed_as_a_u32() {
    let element = "@launch(32)\nkernel k(S: tensor<u32>[1], A: tensor<f32>[16, 16], Y: tensor<f32>[32]) {\n  Y[ctx.lane] = A[S[0] + u32(ctx.lane), 0]\n}\n";
    let start = vec![(
        "S",
        Input::Data {
            shape: vec![1],
            values: vec![4294967288.0],
        },
    )];
    let (code, text) = fault(element, launch(&[], start));
    assert_eq!(code, Code::E0510);
    assert!(
        text.contains("A[4294967288, 0] is outside A's shape [16, 16]"),
        "{text}"
    );
    let block = "@launch(32)\nkernel k(S: tensor<u32>[1], A: tensor<f16>[16, 16], Y: tensor<f32>[32, 8]) {\n  let a = mma_load_a<over ctx.lane>(A[S[0] :+ 16, 0 :+ 16])\n  for i in range(8) {\n    Y[ctx.lane, i] = f32(a[i]) + 1.0\n  }\n}\n";
    let compilation = compiler_core::compile(block);
    let ir = compiler_core::ir::print(compilation.ir().unwrap_or_else(|d| panic!("{d:?}")));
    assert!(ir.contains("add.u32"), "{ir}");
    let far = Input::Data {
        shape: vec![1],
        values: vec![4294967200.0],
    };
    let output = compilation
        .run(&launch(&[], vec![("S", far), ("A", Input::Iota)]))
        .unwrap_or_else(|d| panic!("{d:?}"));
    let Arg::Tensor(y) = &output.args.params[2] else {
        panic!("Y is a tensor")
    };
    assert!((0..y.len()).all(|i| y.value(i) == Some(1.0)));
}
