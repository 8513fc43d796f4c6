//! The simulator on several threads gives what it gives on one, bit for bit: every example
//! (at its catalogue launch and with four times the CTAs), the fault of the first faulting CTA,
//! the writers, the statistics, the memory counts and a trace.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::TraceLimits;
use compiler_core::{PreparedRun, RunLimits};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const THREADS: [usize; 3] = [2, 3, 8];

fn prepare<'c>(compilation: &'c compiler_core::Compilation, launch: &Launch) -> PreparedRun<'c> {
    compilation
        .prepare(launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:#?}"))
}

/// Everything a recorded run produced, as comparable data.
fn recorded(prepared: &PreparedRun<'_>) -> String {
    match prepared.simulate_recording() {
        Ok(output) => format!(
            "{:?}\n{:?}\n{:?}",
            output.args.params, output.writers, output.stats
        ),
        Err(diagnostic) => format!("{diagnostic:?}"),
    }
}

#[test]
fn every_example_gives_the_same_bits_on_any_number_of_threads() {
    for example in compiler_core::examples::all() {
        let compilation = compiler_core::compile(example.source);
        let mut wider = example.launch.clone();
        wider.grid.x *= 4;
        for launch in [&example.launch, &wider] {
            let mut prepared = prepare(&compilation, launch);
            let one = recorded(&prepared);
            for threads in THREADS {
                prepared.options.threads = threads;
                assert!(
                    recorded(&prepared) == one,
                    "{} on a grid of {:?}: {threads} threads differ from one",
                    example.name,
                    launch.grid
                );
            }
        }
    }
}

/// CTAs 5 and 9 of 16 read out of bounds: any number of threads reports CTA 5's fault, as one
/// thread running the CTAs in order meets it first.
#[test]
fn the_fault_reported_is_the_first_faulting_ctas() {
    let source = "@launch(32)\nkernel k(X: tensor<i32>[N], Y: tensor<i32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  var j = i\n  if ctx.block.x == 5 || ctx.block.x == 9 {\n    j = i + N\n  }\n  Y[i] = X[j]\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(16, 1, 1),
        dims: [("N".to_owned(), 16 * 32)].into(),
        inputs: [("X".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let mut prepared = prepare(&compilation, &launch);
    let one = recorded(&prepared);
    assert!(one.contains("block (5, 0, 0)"), "{one}");
    for threads in THREADS {
        prepared.options.threads = threads;
        assert_eq!(recorded(&prepared), one, "{threads} threads");
    }
}

/// Also up to a fault: block_sum on three times its grid writes `Partial` out of bounds from
/// CTA 4 on, while other threads may already have run CTAs past it.
#[test]
fn memory_counts_and_traces_are_the_same_on_any_number_of_threads() {
    for name in ["matvec", "tiled_transpose", "block_sum"] {
        let Some(example) = compiler_core::examples::find(name) else {
            panic!("{name} is not in the catalogue");
        };
        let compilation = compiler_core::compile(example.source);
        let mut launch = example.launch.clone();
        launch.grid.x *= 3;
        let mut prepared = prepare(&compilation, &launch);
        let counts = |p: &PreparedRun<'_>| p.simulate_profiled().profile;
        let trace = |p: &PreparedRun<'_>| {
            let traced = p.simulate_traced(Dim3::new(1, 0, 0), TraceLimits::default());
            serde_json::to_string(&traced.trace).unwrap_or_else(|e| panic!("{e}"))
        };
        let (one_counts, one_trace) = (counts(&prepared), trace(&prepared));
        assert!(one_counts.as_ref().is_ok_and(|p| !p.sites.is_empty()));
        let faults = prepared.simulate_profiled().output.is_err();
        assert_eq!(faults, name == "block_sum", "{name}");
        for threads in THREADS {
            prepared.options.threads = threads;
            assert_eq!(counts(&prepared), one_counts, "{name}, {threads} threads");
            assert!(trace(&prepared) == one_trace, "{name}, {threads} threads");
        }
    }
}

/// The progress callback hears of every CTA once, whatever the threads: the grid's CTAs, and
/// under `@cluster` the grid's CTAs once per super-tile.
#[test]
fn progress_counts_every_cta_once() {
    for name in ["vector_add", "cluster_scale"] {
        let Some(example) = compiler_core::examples::find(name) else {
            panic!("{name} is not in the catalogue");
        };
        let compilation = compiler_core::compile(example.source);
        let mut prepared = prepare(&compilation, &example.launch);
        for threads in [1, 3] {
            let done = Arc::new(AtomicU64::new(0));
            let counter = Arc::clone(&done);
            prepared.progress = Some(Arc::new(move |n| {
                counter.fetch_add(n, Ordering::Relaxed);
            }));
            prepared.options.threads = threads;
            assert!(prepared.simulate().is_ok());
            assert_eq!(done.load(Ordering::Relaxed), prepared.ctas(), "{name}");
        }
        let grid = example.launch.grid;
        assert!(prepared.ctas() >= u64::from(grid.x * grid.y * grid.z));
    }
}

/// A run that stops at a race on a tensor runs again in grid order on one thread; the progress
/// does not hear of that run's CTAs a second time. The race is between the last two CTAs, so
/// both runs go through nearly the whole grid.
#[test]
fn a_race_run_again_in_grid_order_counts_no_cta_twice() {
    let source = "@launch(32)\nkernel k(X: tensor<f32>[N], Out: tensor<f32>[1]) {\n  let s = sum<over ctx.thread>(X[ctx.block.x * 32 + ctx.thread])\n  if ctx.thread == 0 && ctx.block.x >= 62 {\n    Out[0] = s\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(64, 1, 1),
        dims: [("N".to_owned(), 2048)].into(),
        ..Launch::default()
    };
    let mut prepared = prepare(&compilation, &launch);
    let done = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&done);
    prepared.progress = Some(Arc::new(move |n| {
        counter.fetch_add(n, Ordering::Relaxed);
    }));
    prepared.options.threads = 4;
    assert!(prepared.simulate().is_err());
    assert!(done.load(Ordering::Relaxed) <= prepared.ctas());
}
