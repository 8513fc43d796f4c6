//! Simulator throughput in lane operations per second: the hierarchy page's matvec with
//! N = K = 2048, native, one thread.
//!
//! `cargo bench -p compiler-core --bench simulator`; figures go to BENCHMARKS.md.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::TraceLimits;
use compiler_core::RunLimits;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const MATVEC: &str = include_str!("../../examples/matvec.tsr");

fn simulator(c: &mut Criterion) {
    let compilation = compiler_core::compile(MATVEC);
    let launch = Launch {
        grid: Dim3::new(2048 / 8, 1, 1),
        dims: [("N".to_owned(), 2048), ("K".to_owned(), 2048)]
            .into_iter()
            .collect(),
        inputs: [
            ("A".to_owned(), Input::Rand(1)),
            ("W".to_owned(), Input::Rand(2)),
        ]
        .into_iter()
        .collect(),
        ..Launch::default()
    };
    let lane_ops = match compilation.run(&launch) {
        Ok(output) => output.stats.lane_ops,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let mut group = c.benchmark_group("simulator");
    group.sample_size(10);
    group.throughput(Throughput::Elements(lane_ops));
    group.bench_function("matvec N=K=2048 (lane operations)", |b| {
        b.iter(|| compilation.run(&launch).map(|o| o.stats.lane_ops))
    });
    group.finish();

    // The same run prepared once, its CTAs on one thread and on every core.
    let mut prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
        Ok(prepared) => prepared,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut group = c.benchmark_group("threads");
    group.sample_size(10);
    group.throughput(Throughput::Elements(lane_ops));
    for threads in [1, cores] {
        prepared.options.threads = threads;
        group.bench_function(format!("matvec N=K=2048, {threads} thread(s)"), |b| {
            b.iter(|| prepared.simulate().map(|o| o.stats.lane_ops))
        });
    }
    group.finish();
}

/// A 256-thread CTA with ten live variables and a divergent loop: the stepper's benchmark
/// kernel (`e2e/scripts/bench-step.mjs` reads the same file), where every step writes variables in every lane.
const TEN: &str = include_str!("ten_variables.tsr");

/// Recording a trace against the plain run of the same CTA, launched as a grid of one so that
/// both sides simulate exactly the traced CTA: the matvec's (256 threads, eight warps each
/// walking K = 2048 in steps of 32: 4 variables, 135 steps) and [`TEN`]'s (10 variables, 411
/// steps).
fn trace(c: &mut Criterion) {
    let mut group = c.benchmark_group("trace");
    group.sample_size(20);
    let cases = [
        (
            "matvec",
            MATVEC,
            vec![("N", 8), ("K", 2048)],
            vec!["A", "W"],
        ),
        ("ten variables", TEN, vec![("N", 256)], vec!["X"]),
    ];
    for (name, source, dims, inputs) in cases {
        let compilation = compiler_core::compile(source);
        let launch = Launch {
            grid: Dim3::new(1, 1, 1),
            dims: dims.into_iter().map(|(d, n)| (d.to_owned(), n)).collect(),
            inputs: inputs
                .into_iter()
                .enumerate()
                .map(|(seed, t)| (t.to_owned(), Input::Rand(seed as u64 + 1)))
                .collect(),
            ..Launch::default()
        };
        let prepared = match compilation.prepare(&launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        group.bench_function(format!("{name}, one CTA, plain"), |b| {
            b.iter(|| prepared.simulate_recording().map(|o| o.stats.steps))
        });
        group.bench_function(format!("{name}, one CTA, traced"), |b| {
            b.iter(|| {
                let traced = prepared.simulate_traced(Dim3::new(0, 0, 0), TraceLimits::default());
                traced.trace.steps.len()
            })
        });
    }
    group.finish();
}

const TILED_TRANSPOSE: &str = include_str!("../../examples/tiled_transpose.tsr");

/// Counting memory accesses (`simulate_profiled`) against the same run without: the matvec
/// (loads in a loop, a warp reduction) and the tiled transpose (tile copies, a 32-way column
/// read), whole grids.
fn memory(c: &mut Criterion) {
    let mut group = c.benchmark_group("memory");
    group.sample_size(20);
    let cases = [
        (
            "matvec N=64 K=2048",
            MATVEC,
            Dim3::new(8, 1, 1),
            vec![("N", 64), ("K", 2048)],
            vec!["A", "W"],
        ),
        (
            "tiled_transpose 256 x 256",
            TILED_TRANSPOSE,
            Dim3::new(8, 8, 1),
            vec![("R", 256), ("C", 256)],
            vec!["In"],
        ),
    ];
    for (name, source, grid, dims, inputs) in cases {
        let compilation = compiler_core::compile(source);
        let launch = Launch {
            grid,
            dims: dims.into_iter().map(|(d, n)| (d.to_owned(), n)).collect(),
            inputs: inputs
                .into_iter()
                .map(|t| (t.to_owned(), Input::Rand(1)))
                .collect(),
            ..Launch::default()
        };
        let prepared = match compilation.prepare(&launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        group.bench_function(format!("{name}, plain"), |b| {
            b.iter(|| prepared.simulate_recording().map(|o| o.stats.steps))
        });
        group.bench_function(format!("{name}, counted"), |b| {
            b.iter(|| prepared.simulate_profiled().profile.map(|p| p.sites.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, simulator, trace, memory);
criterion_main!(benches);
