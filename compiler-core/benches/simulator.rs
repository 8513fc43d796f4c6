//! Simulator throughput in lane operations per second: the hierarchy page's matvec with
//! N = K = 2048, native, one thread.
//!
//! `cargo bench -p compiler-core --bench simulator`; figures go to BENCHMARKS.md.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
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

criterion_group!(benches, simulator);
criterion_main!(benches);
