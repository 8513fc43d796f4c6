//! The simulator's trace of one CTA, against expectations computed here from the inputs and
//! the language's rules, not from the simulator.

mod common;

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch, Traced};
use compiler_core::sim::{Arg, Exchange, LaneState, Memory, Trace, TraceLimits};
use compiler_core::RunLimits;

fn traced(source: &str, launch: &Launch, block: Dim3, limits: TraceLimits) -> (Traced, Vec<u32>) {
    let compilation = compiler_core::compile(source);
    let prepared = match compilation.prepare(launch, RunLimits::TERMINAL) {
        Ok(prepared) => prepared,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let first_input = match prepared.args.params.first() {
        Some(Arg::Tensor(t)) => t.bits.clone(),
        _ => Vec::new(),
    };
    (prepared.simulate_traced(block, limits), first_input)
}

fn trace_of(source: &str, launch: &Launch) -> (Trace, Vec<u32>) {
    let (traced, input) = traced(source, launch, Dim3::new(0, 0, 0), TraceLimits::default());
    if let Err(diagnostic) = traced.output {
        panic!("{diagnostic:?}");
    }
    (traced.trace, input)
}

fn launch(dims: &[(&str, i64)], inputs: &[(&str, Input)]) -> Launch {
    Launch {
        dims: dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        inputs: inputs
            .iter()
            .map(|(n, i)| (n.to_string(), i.clone()))
            .collect(),
        ..Launch::default()
    }
}

/// The steps whose statement is exactly `text`.
fn steps_of(trace: &Trace, source: &str, text: &str) -> Vec<usize> {
    let found: Vec<usize> = (0..trace.steps.len())
        .filter(|&i| &source[trace.steps[i].statement.range()] == text)
        .collect();
    assert!(!found.is_empty(), "no step runs `{text}`");
    found
}

const SPLIT: &str = "@launch(64)
kernel split(X: tensor<i32>[64], Y: tensor<i32>[64]) {
  let t = ctx.thread
  let x = X[t]
  if x % 3 == 0 {
    Y[t] = x
  } else {
    Y[t] = 0 - x
  }
}
";

#[test]
fn a_data_dependent_if_splits_each_warps_mask_as_the_input_says() {
    let (trace, x) = trace_of(SPLIT, &launch(&[], &[("X", Input::Rand(7))]));
    let divisible = |t: u32| (x[t as usize] as i32) % 3 == 0;
    let expected = |warp: u32, want: bool| {
        (0..32u32)
            .filter(|&lane| divisible(warp * 32 + lane) == want)
            .fold(0u128, |bits, lane| bits | 1 << lane)
    };
    let then_step = steps_of(&trace, SPLIT, "Y[t] = x")[0];
    let else_step = steps_of(&trace, SPLIT, "Y[t] = 0 - x")[0];
    assert!(then_step < else_step, "the then branch runs first");
    for warp in 0..2 {
        let then_mask = trace.steps[then_step].active.in_warp(warp, 32);
        let else_mask = trace.steps[else_step].active.in_warp(warp, 32);
        assert_eq!(then_mask.bits, expected(warp, true), "warp {warp}");
        assert_eq!(else_mask.bits, expected(warp, false), "warp {warp}");
        assert!(
            then_mask.bits != 0 && else_mask.bits != 0,
            "the input splits warp {warp}"
        );
    }
    // The `if` header runs with every lane; after the `if` they reconverge (no step after).
    let header = steps_of(&trace, SPLIT, "if x % 3 == 0")[0];
    assert_eq!(trace.steps[header].active.count(), 64);
    // Each store touches the element of its thread.
    for access in &trace.steps[then_step].accesses {
        assert!(access.write && access.memory == Memory::Tensor(1));
        assert_eq!(access.element, access.thread);
        assert!(divisible(access.thread));
    }
}

#[test]
fn the_values_of_a_step_are_each_lanes_own() {
    let (trace, x) = trace_of(SPLIT, &launch(&[], &[("X", Input::Rand(7))]));
    let step = steps_of(&trace, SPLIT, "let x = X[t]")[0];
    let variable = trace
        .variables
        .iter()
        .position(|v| v.name == "x")
        .unwrap_or_else(|| panic!("x is a variable"));
    let values = trace.values_after(step);
    let vars = trace.variables.len();
    for t in 0..64 {
        assert_eq!(
            values[t * vars + variable],
            Some(u64::from(x[t])),
            "thread {t}"
        );
    }
    // Before its `let`, x has no value.
    assert_eq!(trace.values_after(step - 1)[variable], None);
    let writes: Vec<u32> = trace.steps[step].writes.iter().map(|w| w.thread).collect();
    assert_eq!(writes, (0..64).collect::<Vec<u32>>());
}

/// A 64-bit variable and a 64-bit array element, split into words to run, are one variable
/// each in the trace, with their 64-bit values, written once a thread a step.
#[test]
fn a_64_bit_variable_is_one_value_not_two_words() {
    let source = "@launch(32)\nkernel k(Y: tensor<i64>[N]) {\n  var h: i64 = 5000000000 * i64(ctx.thread) - 7\n  var acc = array<u64>[2](0)\n  acc[1] = u64(h) + 18446744073709551615\n  Y[ctx.thread] = h + i64(acc[1])\n}\n";
    let (trace, _) = trace_of(source, &launch(&[("N", 32)], &[]));
    let names: Vec<&str> = trace.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["h", "acc[0]", "acc[1]"]);
    let vars = trace.variables.len();
    let store = "acc[1] = u64(h) + 18446744073709551615";
    let step = steps_of(&trace, source, store)[0];
    let values = trace.values_after(step);
    for t in 0..32u64 {
        let h = (5_000_000_000 * t as i64 - 7) as u64;
        assert_eq!(values[t as usize * vars], Some(h), "h of thread {t}");
        assert_eq!(
            values[t as usize * vars + 2],
            Some(h.wrapping_sub(1)),
            "acc[1] of {t}"
        );
        assert_eq!(trace.variables[0].show(h), (h as i64).to_string());
    }
    for text in ["var h: i64 = 5000000000 * i64(ctx.thread) - 7", store] {
        let step = steps_of(&trace, source, text)[0];
        let writers: Vec<u32> = trace.steps[step].writes.iter().map(|w| w.thread).collect();
        assert_eq!(writers, (0..32).collect::<Vec<u32>>(), "{text}");
    }
    // Its store is one access an element, in elements (the words are the run's business).
    assert_eq!(trace.shapes[0], [32]);
    let step = steps_of(&trace, source, "Y[ctx.thread] = h + i64(acc[1])")[0];
    let elements: Vec<u32> = trace.steps[step]
        .accesses
        .iter()
        .map(|a| a.element)
        .collect();
    assert_eq!(elements, (0..32).collect::<Vec<u32>>());
}

#[test]
fn the_lanes_past_a_partial_warps_threads_are_no_thread_at_every_step() {
    let source = include_str!("../../examples/lane_ids.tsr");
    let (trace, _) = trace_of(source, &launch(&[], &[]));
    assert_eq!(trace.warps(), 2);
    assert!(!trace.steps.is_empty());
    for step in 0..trace.steps.len() {
        for lane in 0..32 {
            let state = trace.lane(step, 1, lane);
            if lane >= 16 {
                assert_eq!(state, LaneState::NoThread, "step {step}, lane {lane}");
            } else {
                assert_eq!(state, LaneState::Active, "step {step}, lane {lane}");
            }
        }
        assert_eq!(
            trace.steps[step].active.in_warp(1, 32).to_string(),
            "0x0000ffff"
        );
    }
    let ballot = steps_of(&trace, source, "Mask[t] = ballot<over ctx.lane>(true)")[0];
    match &trace.steps[ballot].exchanges[..] {
        [Exchange::Vote { ayes, .. }] => assert_eq!(ayes.count(), 48),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_xor_shuffle_takes_lane_i_from_lane_i_xor_d() {
    let source = "@launch(64)
kernel reduce(X: tensor<i32>[64], Y: tensor<i32>[64]) {
  var s = X[ctx.thread]
  var d = 1
  while d < 32 {
    s += shuffle_xor(s, d)
    d *= 2
  }
  Y[ctx.thread] = s
}
";
    let (trace, _) = trace_of(source, &launch(&[], &[("X", Input::Iota)]));
    let shuffles = steps_of(&trace, source, "s += shuffle_xor(s, d)");
    assert_eq!(shuffles.len(), 5, "d = 1, 2, 4, 8, 16");
    for (k, &step) in shuffles.iter().enumerate() {
        let d = 1u32 << k;
        let Exchange::Shuffle { sources, .. } = &trace.steps[step].exchanges[0] else {
            panic!("not a shuffle: {:?}", trace.steps[step].exchanges);
        };
        assert_eq!(sources.len(), 64);
        for &(destination, source) in sources {
            let lane = destination % 32;
            assert_eq!(source, destination - lane + (lane ^ d), "d = {d}");
        }
    }
}

#[test]
fn lanes_that_returned_stay_exited() {
    let source = "@launch(32)
kernel early(Y: tensor<i32>[32]) {
  if ctx.lane >= 20 {
    return
  }
  Y[ctx.lane] = 1
  Y[ctx.lane] += 1
}
";
    let (trace, _) = trace_of(source, &launch(&[], &[]));
    let ret = steps_of(&trace, source, "return")[0];
    assert_eq!(
        trace.steps[ret].active.in_warp(0, 32).to_string(),
        "0xfff00000"
    );
    assert!(ret + 1 < trace.steps.len());
    for step in ret + 1..trace.steps.len() {
        for lane in 0..32 {
            let expected = if lane >= 20 {
                LaneState::Exited
            } else {
                LaneState::Active
            };
            assert_eq!(trace.lane(step, 0, lane), expected, "step {step}");
        }
    }
}

#[test]
fn a_barrier_step_lists_every_warp_of_the_cta() {
    let source = "@launch(128)
kernel shift(X: tensor<f32>[128], Y: tensor<f32>[128]) {
  var t = X[0 :+ 128]
  barrier()
  Y[ctx.thread] = t[(ctx.thread + 1) % 128]
}
";
    let (trace, _) = trace_of(source, &launch(&[], &[("X", Input::Iota)]));
    let step = steps_of(&trace, source, "barrier()")[0];
    let barrier = trace.steps[step]
        .barrier
        .as_ref()
        .unwrap_or_else(|| panic!("a barrier"));
    assert_eq!(barrier.arrived, vec![0, 1, 2, 3]);
    assert!(barrier.finished.is_empty() && barrier.missing.is_empty());
    // Thread t reads the element of thread t + 1, in shared memory.
    let read = steps_of(&trace, source, "Y[ctx.thread] = t[(ctx.thread + 1) % 128]")[0];
    let shared: Vec<(u32, u32)> = trace.steps[read]
        .accesses
        .iter()
        .filter(|a| a.memory == Memory::Shared(0))
        .map(|a| (a.thread, a.element))
        .collect();
    assert_eq!(shared.len(), 128);
    assert!(shared.iter().all(|&(t, e)| e == (t + 1) % 128));
}

#[test]
fn a_trace_at_its_cap_says_so_and_the_run_still_finishes() {
    let source = include_str!("../../examples/collatz.tsr");
    let launch = launch(&[("N", 64)], &[("Start", Input::Iota)]);
    let limits = TraceLimits {
        steps: 10,
        ..TraceLimits::default()
    };
    let (traced, _) = traced(source, &launch, Dim3::new(0, 0, 0), limits);
    assert_eq!(traced.trace.steps.len(), 10);
    let why = traced
        .trace
        .incomplete
        .unwrap_or_else(|| panic!("the cap is reported"));
    assert!(why.contains("cap"), "{why}");
    let plain = compiler_core::compile(source)
        .run(&launch)
        .map_err(|d| format!("{d:?}"))
        .map(|o| o.args.params[1].clone());
    let with_trace = traced
        .output
        .map_err(|d| format!("{d:?}"))
        .map(|o| o.args.params[1].clone());
    assert_eq!(format!("{plain:?}"), format!("{with_trace:?}"));
}

#[test]
fn a_loops_steps_follow_each_lanes_trip_count_and_jumps_agree_with_replay() {
    let source = include_str!("../../examples/collatz.tsr");
    let launch = launch(&[("N", 64)], &[("Start", Input::Iota)]);
    let (trace, start) = trace_of(source, &launch);
    // The loop header runs once per trip, and once more to let the last lanes out: each
    // lane is active in it (collatz steps of its start) + 1 times.
    let header = steps_of(&trace, source, "while n > 1");
    let collatz = |mut n: u32| {
        let mut steps = 0;
        while n > 1 {
            n = if n.is_multiple_of(2) {
                n / 2
            } else {
                3 * n + 1
            };
            steps += 1;
        }
        steps
    };
    for t in 0..64u32 {
        let trips = header
            .iter()
            .filter(|&&s| trace.steps[s].active.contains(t))
            .count();
        assert_eq!(trips, collatz(start[t as usize]) + 1, "thread {t}");
    }
    assert!(trace.steps.len() > 300, "past a checkpoint");
    // values_after from a checkpoint equals a replay from the start.
    let vars = trace.variables.len();
    let mut replay = vec![None; 64 * vars];
    for (i, step) in trace.steps.iter().enumerate() {
        for w in &step.writes {
            replay[w.thread as usize * vars + w.variable as usize] = Some(w.bits);
        }
        if i % 97 == 0 || i + 1 == trace.steps.len() || i % 256 == 255 {
            assert_eq!(trace.values_after(i), replay, "step {i}");
        }
    }
}

#[test]
fn a_block_outside_the_grid_has_no_trace_and_says_why() {
    let (traced, _) = traced(
        SPLIT,
        &launch(&[], &[("X", Input::Iota)]),
        Dim3::new(3, 0, 0),
        TraceLimits::default(),
    );
    assert!(traced.output.is_ok());
    assert!(traced.trace.steps.is_empty());
    let why = traced.trace.incomplete.unwrap_or_default();
    assert!(why.contains("outside the grid"), "{why}");
}

/// The trace in words, as `tessera run --trace` prints it, for examples chosen to show each
/// kind of step: a partial warp, shuffles, votes on partial data, a scan, a warp and a CTA
/// reduction, and tile statements with their barriers.
/// A sum over the CTA in the stepper: this warp's lanes are one part of it; the line shows
/// every warp's sum (each warp w of iota sums 32 * 32w + 496) and the CTA's, and the step
/// says its sum meets in shared memory though it touches no tensor or tile.
#[test]
fn a_cta_sum_shows_every_warps_part_and_its_shared_memory() {
    let source = compiler_core::examples::find("block_sum")
        .unwrap_or_else(|| panic!("an example"))
        .source;
    let (trace, _) = trace_of(
        source,
        &launch(&[("N", 256), ("B", 1)], &[("X", Input::Iota)]),
    );
    let step = steps_of(&trace, source, "let total = sum<over ctx.thread>(x)")[0];
    let kernel = compiler_core::compile(source)
        .signature(None)
        .cloned()
        .unwrap_or_else(|d| panic!("{d:?}"));
    let effects = trace.effects(&kernel, step, 2);
    let each: Vec<String> = (0..8)
        .map(|w| format!("warp {w}: {}", 1024 * w + 496))
        .collect();
    let expected = format!(
        "each warp's sum, met in shared memory: {}; the CTA's: {}",
        each.join(", "),
        (0..256).sum::<u32>()
    );
    assert!(
        effects.iter().any(
            |e| e.starts_with("sum over the CTA, this warp's lanes: 64 65 66")
                && e.ends_with(&expected)
        ),
        "{effects:?}"
    );
    assert!(
        trace
            .without_memory(step)
            .contains("goes through shared memory")
            && trace.without_memory(step).contains("reads the 8 words"),
        "{}",
        trace.without_memory(step)
    );
    assert_eq!(
        trace.without_memory(0),
        "This step reads and writes no memory."
    );
}

/// One lane's write is said as such, its coordinates apart: matvec's lane 0 of warp 3 writes
/// column 3 of its one row (once `writes C[0,3 · · · …]`, which read as one index).
#[test]
fn one_lanes_access_names_the_lane_and_the_element() {
    let example = compiler_core::examples::find("matvec").unwrap_or_else(|| panic!("an example"));
    let (trace, _) = trace_of(example.source, &example.launch);
    let kernel = compiler_core::compile(example.source)
        .signature(None)
        .cloned()
        .unwrap_or_else(|d| panic!("{d:?}"));
    let step = steps_of(&trace, example.source, "C[0, col] = total")[0];
    assert_eq!(trace.effects(&kernel, step, 3), ["lane 0 writes C[0, 3]"]);
}

#[test]
fn golden_trace_text() {
    let cases: [(&str, u32, Option<u32>); 7] = [
        ("lane_ids", 0, None),
        ("shuffles", 0, Some(0)),
        ("votes", 1, Some(1)),
        ("prefix_sum", 1, Some(0)),
        ("warp_reduce", 0, Some(1)),
        ("block_sum", 3, Some(7)),
        ("tiled_transpose", 0, Some(0)),
    ];
    let mut golden = common::Golden::default();
    for (name, block, warp) in cases {
        let example = compiler_core::examples::find(name).unwrap_or_else(|| panic!("an example"));
        let compilation = compiler_core::compile(example.source);
        let prepared = match compilation.prepare(&example.launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{name}: {diagnostics:?}"),
        };
        let traced = prepared.simulate_traced(Dim3::new(block, 0, 0), TraceLimits::default());
        assert!(traced.output.is_ok(), "{name}");
        let kernel = prepared.kernel;
        let text = traced.trace.to_text(kernel, example.source, warp);
        golden.check(
            &common::root().join(format!("compiler-core/tests/trace/{name}.txt")),
            &text,
        );
    }
    golden.finish();
}
