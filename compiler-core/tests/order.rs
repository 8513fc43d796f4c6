//! CTAs in any order (issue 51): a kernel whose CTAs can observe each other (an atomic's old
//! value on a tensor) runs in grid order and again in reverse, and a race or a wait either
//! order meets is the report, naming the order and, for a wait, both CTAs. The results are
//! grid order's; a float atomic sum whose order shows says so.

use compiler_core::diagnostic::Code;
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::Arg;
use compiler_core::RunLimits;

fn run(
    source: &str,
    grid: u32,
    dims: &[(&str, i64)],
    inputs: Vec<(&str, Input)>,
) -> Result<compiler_core::launch::RunOutput, compiler_core::Diagnostic> {
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(grid, 1, 1),
        dims: dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        inputs: inputs
            .into_iter()
            .map(|(n, i)| (n.to_string(), i))
            .collect(),
        step_limit: Some(20_000),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    prepared.simulate()
}

/// CTA `waiter` polls Flag[0] until CTA `setter` raises it.
fn waits(waiter: u32, setter: u32) -> String {
    format!("@launch(32)\nkernel wait(Flag: tensor<u32>[1], Out: tensor<u32>[2]) {{\n  if ctx.thread == 0 {{\n    if ctx.block.x == {waiter} {{\n      while atomic_add(Flag[0], 0) == 0 {{\n      }}\n    }}\n    if ctx.block.x == {setter} {{\n      atomic_exchange(Flag[0], 1)\n    }}\n    Out[ctx.block.x] = 1\n  }}\n}}\n")
}

#[test]
fn a_cta_that_waits_for_another_is_named_in_either_orientation() {
    // CTA 0 waits for CTA 1: grid order meets it.
    let error = run(&waits(0, 1), 2, &[], vec![])
        .err()
        .unwrap_or_else(|| panic!("ran"));
    assert_eq!(error.code, Code::E0514);
    assert!(
        error.message.starts_with("CTA (0, 0, 0) waits for CTA (1, 0, 0), which changes Flag[0]; CTAs have no forward-progress guarantee"),
        "{}",
        error.message
    );
    assert!(!error.message.contains("reverse"), "{}", error.message);
    assert_eq!(
        error.help.as_deref(),
        Some("wait for another CTA only between launches (split the kernel where it waits into two launches of a program), and for another warp of the CTA only at barrier()")
    );
    // CTA 1 waits for CTA 0: grid order runs clean, the reverse order meets it (it had run
    // clean, issue 51).
    let error = run(&waits(1, 0), 2, &[], vec![])
        .err()
        .unwrap_or_else(|| panic!("ran"));
    assert_eq!(error.code, Code::E0514);
    assert!(
        error.message.starts_with("CTA (1, 0, 0) waits for CTA (0, 0, 0), which changes Flag[0]")
            && error.message.ends_with("(found with the CTAs run in reverse grid order, the last first: CTAs may run in any order)"),
        "{}",
        error.message
    );
}

/// Decoupled look-back without its ticket: each CTA waits for the one before, by its index.
/// Grid order finishes; the reverse order stops at once, at the last CTA.
#[test]
fn a_chain_of_a_thousand_ctas_each_waiting_for_the_one_before_is_caught() {
    let source = "@launch(32)\nkernel chain(Flag: tensor<u32>[N]) {\n  let b = ctx.block.x\n  if ctx.thread == 0 {\n    if b > 0 {\n      while atomic_add(Flag[b - 1], 0) == 0 {\n      }\n    }\n    atomic_exchange(Flag[b], 1)\n  }\n}\n";
    let error = run(source, 1000, &[("N", 1000)], vec![])
        .err()
        .unwrap_or_else(|| panic!("ran"));
    assert_eq!(error.code, Code::E0514);
    assert!(
        error
            .message
            .starts_with("CTA (999, 0, 0) waits for CTA (998, 0, 0), which changes Flag[998]"),
        "{}",
        error.message
    );
}

/// A consumer CTA that reads only when the producer's flag is up: in grid order the consumer
/// runs first, finds no flag and never reads (it had run clean, issue 51); in reverse it reads
/// the producer's plain write, a race.
#[test]
fn a_race_that_grid_order_hides_is_found_in_reverse() {
    let source = "@launch(32)\nkernel consume(Flag: tensor<u32>[1], Data: tensor<u32>[1], Out: tensor<u32>[1]) {\n  if ctx.thread == 0 {\n    if ctx.block.x == 1 {\n      Data[0] = 7\n      atomic_exchange(Flag[0], 1)\n    } else {\n      if atomic_add(Flag[0], 0) == 1 {\n        Out[0] = Data[0]\n      }\n    }\n  }\n}\n";
    let error = run(source, 2, &[], vec![])
        .err()
        .unwrap_or_else(|| panic!("ran"));
    assert_eq!(error.code, Code::E0516);
    assert!(
        error.message.starts_with("data race on Data[0]: thread 0 of block (0, 0, 0) reads it, and block (1, 0, 0) wrote it")
            && error.message.contains("in reverse grid order"),
        "{}",
        error.message
    );
    // The producer and consumer swapped: grid order meets the race itself.
    let swapped = source.replace("ctx.block.x == 1", "ctx.block.x == 0");
    let error = run(&swapped, 2, &[], vec![])
        .err()
        .unwrap_or_else(|| panic!("ran"));
    assert_eq!(error.code, Code::E0516);
    assert!(!error.message.contains("reverse"), "{}", error.message);
}

/// Stream compaction takes slots with an atomic's old value: its CTAs observe each other, but
/// no order races or waits, so it runs in both and gives grid order's results.
/// The CLI's run ([`compiler_core::launch::PreparedRun::simulate_once`], its inputs moved in
/// rather than copied) reports a wait as every other run does: the run that looks for the
/// changing CTA starts from the launch's inputs there too, on one thread and on two.
#[test]
fn a_wait_in_the_clis_run_is_reported_as_in_every_run() {
    let source = "@launch(64)\nkernel k(Flag: tensor<u32>[1], X: tensor<u32>[4]) {\n  if ctx.warp == 1 {\n    while atomic_add(Flag[0], 0) == 0 {\n    }\n  } else {\n    if ctx.thread == 0 {\n      atomic_exchange(Flag[0], X[3])\n    }\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        inputs: [("X".to_owned(), Input::Iota)].into_iter().collect(),
        step_limit: Some(20_000),
        ..Launch::default()
    };
    for threads in [1, 2] {
        let prepare = || {
            let mut prepared = compilation
                .prepare(&launch, RunLimits::TERMINAL)
                .unwrap_or_else(|d| panic!("{d:?}"));
            prepared.options.threads = threads;
            prepared
        };
        let copied = prepare().simulate().err();
        let moved = prepare().simulate_once().err();
        assert!(
            copied.as_ref().is_some_and(|d| d.code == Code::E0514
                && d.message
                    .starts_with("CTA (0, 0, 0) waits for Flag[0] to change")),
            "{copied:?}"
        );
        assert_eq!(
            moved.map(|d| d.message),
            copied.map(|d| d.message),
            "{threads} threads"
        );
    }
}

#[test]
fn a_kernel_that_observes_other_ctas_without_a_race_runs_and_keeps_grid_orders_results() {
    let source = "@launch(32)\nkernel compact(X: tensor<u32>[N], Out: tensor<u32>[N], Count: tensor<u32>[1]) {\n  let i = ctx.block.x * 32 + ctx.thread\n  if i < N && X[i] % 2 == 0 {\n    let slot = atomic_add(Count[0], 1)\n    Out[slot] = X[i]\n  }\n}\n";
    let output =
        run(source, 4, &[("N", 128)], vec![("X", Input::Iota)]).unwrap_or_else(|d| panic!("{d:?}"));
    let Arg::Tensor(out) = &output.args.params[1] else {
        panic!("Out is a tensor")
    };
    let evens: Vec<u32> = (0..128).filter(|x| x % 2 == 0).collect();
    assert_eq!(&out.bits[..64], &evens[..], "grid order's slots");
}

/// Issue 51: a float atomic sum says when its order shows (a rounding, or terms of both
/// signs), and not when every order gives its bits.
#[test]
fn a_float_atomic_sum_says_when_its_order_shows() {
    let source = "@launch(32)\nkernel total(X: tensor<f32>[N], Out: tensor<f32>[1]) {\n  let i = ctx.block.x * 32 + ctx.thread\n  if i < N {\n    atomic_add(Out[0], X[i])\n  }\n}\n";
    let shows = |input: Input| {
        run(source, 2, &[("N", 64)], vec![("X", input)])
            .unwrap_or_else(|d| panic!("{d:?}"))
            .stats
            .order_dependent_sums
    };
    assert!(!shows(Input::Ones), "64 ones add exactly in any order");
    assert!(shows(Input::Rand(1)), "random terms of both signs");
    let cancel = run(
        source,
        1,
        &[("N", 3)],
        vec![(
            "X",
            Input::Data {
                shape: vec![3],
                values: vec![1e8, 1.0, -1e8],
            },
        )],
    )
    .unwrap_or_else(|d| panic!("{d:?}"));
    assert!(
        cancel.stats.order_dependent_sums,
        "1e8 + 1 rounds, then cancels"
    );
}

/// A warp that spins on what another warp of its own CTA writes after: the simulator's lockstep
/// never lets the writer past the `if`, and no CTA order changes that, so the report says the
/// element never changed and names the rule (it read "a loop that never ends needs an end").
#[test]
fn a_warp_waiting_for_another_warp_of_its_cta_is_told_the_rule() {
    let source = "@launch(64)\nkernel k(Flag: tensor<u32>[1]) {\n  if ctx.warp == 1 {\n    while atomic_add(Flag[0], 0) == 0 {\n    }\n  } else {\n    if ctx.thread == 0 {\n      atomic_exchange(Flag[0], 1)\n    }\n  }\n}\n";
    let error = run(source, 1, &[], vec![])
        .err()
        .unwrap_or_else(|| panic!("ran"));
    assert_eq!(error.code, Code::E0514);
    assert!(
        error.message.starts_with("CTA (0, 0, 0) waits for Flag[0] to change, and nothing changed it: a thread that waits for another (in another CTA, which may not be running, or in another warp of its own CTA) may wait for ever"),
        "{}",
        error.message
    );
    assert!(error
        .help
        .as_deref()
        .is_some_and(|h| h.contains("only at barrier()")));
}
