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
}

/// Recording a trace against the plain run of the same CTA: the matvec's first CTA (256
/// threads, eight warps each walking K = 2048 in steps of 32: 4 variables, 135 steps), and the
/// same launch as one CTA so that both sides simulate exactly the traced CTA.
fn trace(c: &mut Criterion) {
    let compilation = compiler_core::compile(MATVEC);
    let launch = Launch {
        grid: Dim3::new(1, 1, 1),
        dims: [("N".to_owned(), 8), ("K".to_owned(), 2048)]
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
    let prepared = match compilation.prepare(&launch, RunLimits::PAGE) {
        Ok(prepared) => prepared,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let mut group = c.benchmark_group("trace");
    group.sample_size(20);
    group.bench_function("matvec one CTA, plain", |b| {
        b.iter(|| prepared.simulate_recording().map(|o| o.stats.steps))
    });
    group.bench_function("matvec one CTA, traced", |b| {
        b.iter(|| {
            let traced = prepared.simulate_traced(Dim3::new(0, 0, 0), TraceLimits::default());
            traced.trace.steps.len()
        })
    });
    group.finish();
}

criterion_group!(benches, simulator, trace);
criterion_main!(benches);
