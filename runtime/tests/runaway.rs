//! Runaway loops on the native GPU (Mesa's lavapipe): the loop guard stops a loop that never
//! ends, in both warp modes, and the run reports E0514 at the loop's line; the device works for
//! the next run. Before the guard, the endless loop below returned made-up results with exit 0:
//! lavapipe leaves any loop after 65,535 trips and goes on after it (found by raising the step
//! limit past that figure: below it the guard stops the loop, above it the loop "ends"). The
//! guard notes such a cut too, so it is E0514 as well.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::Launch;
use compiler_core::span::LineIndex;
use compiler_core::wgsl::WarpMode;
use compiler_core::{Code, RunLimits};
use runtime::{open, run, Gpu, RuntimeError};

fn gpu() -> Gpu {
    pollster::block_on(open()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `source` (one CTA, the step limit `limit`) and gives the line of the loop the guard
/// stopped, or `None` when the run ended by itself.
fn stopped_at(gpu: &Gpu, source: &str, lanes: u32, mode: WarpMode, limit: u64) -> Option<usize> {
    let compilation = compiler_core::compile(source);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let launch = Launch {
        grid: Dim3::new(2, 1, 1),
        lanes,
        step_limit: Some(limit),
        ..Launch::default()
    };
    let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
        Ok(p) => p,
        Err(d) => panic!("{d:?}"),
    };
    if std::env::var_os("SHOW_WGSL").is_some() {
        eprintln!(
            "{}",
            prepared.wgsl(mode).map(|w| w.text).unwrap_or_default()
        );
    }
    match run(gpu, &prepared, mode) {
        Ok(_) => None,
        Err(error @ RuntimeError::Runaway { .. }) => {
            let diagnostic = error
                .diagnostic()
                .unwrap_or_else(|| panic!("no diagnostic"));
            assert_eq!(diagnostic.code, Code::E0514);
            Some(LineIndex::new(source).line_of(diagnostic.span.start) + 1)
        }
        Err(error) => panic!("{mode:?}: {error}"),
    }
}

/// The kernel: the loop has no effect, so a compiler may remove it.
const ENDLESS: &str = "@launch(32)
kernel endless(Y: tensor<i32>[32]) {
  var i = ctx.lane
  while i >= 0 {
    i = (i + 1) % 7
  }
  Y[ctx.lane] = i
}
";

/// A varying loop that never ends, then one that holds a barrier (a tile: uniform control).
const NESTED: &str = "@launch(64)
kernel nested(X: tensor<i32>[64], Y: tensor<i32>[64]) {
  var s = X[ctx.thread]
  while s < 1000000000 {
    if ctx.thread % 2 == 0 {
      s = s - 1
    }
    s = s + 0
  }
  var n = 0
  while true {
    var t = X[0 :+ 64]
    n = n + t[ctx.thread]
  }
  Y[ctx.thread] = s + n
}
";

fn modes(gpu: &Gpu) -> Vec<(u32, WarpMode)> {
    let mut modes = vec![(32, WarpMode::Emulated)];
    if let Some(lanes) = gpu.report.fixed_subgroup_size() {
        modes.push((lanes, WarpMode::Subgroups));
    }
    modes
}

#[test]
fn an_endless_loop_stops_with_e0514_at_its_line_and_the_device_works_after() {
    let gpu = gpu();
    for (lanes, mode) in modes(&gpu) {
        assert_eq!(
            stopped_at(&gpu, ENDLESS, lanes, mode, 10_000),
            Some(4),
            "{mode:?}"
        );
        let ends = ENDLESS.replace("while i >= 0", "while i >= 0 && i < 3");
        assert_eq!(
            stopped_at(&gpu, &ends, lanes, mode, 10_000),
            None,
            "{mode:?}"
        );
    }
}

#[test]
fn loops_with_barriers_and_nested_loops_stop_too() {
    let gpu = gpu();
    for (lanes, mode) in modes(&gpu) {
        // The varying loop runs away first; the barrier loop after it is stopped too.
        let line = stopped_at(&gpu, NESTED, lanes, mode, 5_000);
        assert!(matches!(line, Some(4) | Some(11)), "{mode:?}: {line:?}");
        // The endless loop, or the tile's copy inside it (a loop of its own), whichever
        // counts past the budget first.
        let only_barriers = NESTED.replace("while s < 1000000000", "while s < -5");
        let line = stopped_at(&gpu, &only_barriers, lanes, mode, 5_000);
        assert!(matches!(line, Some(11) | Some(12)), "{mode:?}: {line:?}");
    }
}

#[test]
fn a_loop_within_the_budget_is_not_stopped() {
    let gpu = gpu();
    // 100 trips per thread under a step limit of 1,000: at most 101 trips, never past it.
    let source = "@launch(32)
kernel counted(Y: tensor<i32>[32]) {
  var s = 0
  for k in range(100) {
    s = s + k
  }
  Y[ctx.lane] = s
}
";
    for (lanes, mode) in modes(&gpu) {
        assert_eq!(
            stopped_at(&gpu, source, lanes, mode, 1_000),
            None,
            "{mode:?}"
        );
        assert_eq!(
            stopped_at(&gpu, source, lanes, mode, 99),
            Some(4),
            "{mode:?}"
        );
    }
}

/// Issue 51: loops the simulator finishes run on the GPU with 32-lane warps emulated. The
/// emulation's loop votes and collectives had been loops over the CTA's lanes, and lavapipe
/// gives each invocation one budget of 65,535 loop trips for all the shader's loops, so a loop
/// of 254 trips at 256 threads was cut (E0514, pointed at another loop). Now a loop of 10,000
/// trips with a warp sum and a CTA sum in it runs, at 256 threads, and gives the simulator's
/// results.
#[test]
fn a_loop_of_ten_thousand_trips_runs_with_emulated_warps() {
    let gpu = gpu();
    let source = "@launch(256)
kernel long(X: tensor<i32>[N], Y: tensor<i32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  var s = 0
  for k in range(10000) {
    s = s + sum<over ctx.lane>(k % 3) + ctx.lane
    if k % 1000 == 0 {
      s = s + sum<over ctx.thread>(1)
    }
  }
  Y[i] = s + X[i]
}
";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(2, 1, 1),
        dims: [("N".to_owned(), 512)].into(),
        inputs: [("X".to_owned(), compiler_core::launch::Input::Iota)].into(),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let want = prepared.simulate().unwrap_or_else(|d| panic!("{d:?}")).args;
    for (lanes, mode) in modes(&gpu) {
        let launch = Launch {
            lanes,
            ..launch.clone()
        };
        let prepared = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let want = if lanes == 32 {
            want.clone()
        } else {
            prepared.simulate().unwrap_or_else(|d| panic!("{d:?}")).args
        };
        let got = run(&gpu, &prepared, mode)
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"))
            .args;
        let bits = |args: &compiler_core::sim::Args| match &args.params[1] {
            compiler_core::sim::Arg::Tensor(t) => t.bits.clone(),
            compiler_core::sim::Arg::Scalar(_) => Vec::new(),
        };
        assert_eq!(bits(&got), bits(&want), "{mode:?}");
    }
}
