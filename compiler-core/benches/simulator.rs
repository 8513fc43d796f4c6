//! Simulator throughput in lane operations per second: the hierarchy page's matvec with
//! N = K = 2048, native, one thread.
//!
//! `cargo bench -p compiler-core --bench simulator`; figures go to BENCHMARKS.md.

mod launches;

use compiler_core::hierarchy::Dim3;
use compiler_core::sim::TraceLimits;
use compiler_core::RunLimits;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use launches::{FMA_GEMM, MATVEC, MMA_GEMM};

fn simulator(c: &mut Criterion) {
    let compilation = compiler_core::compile(MATVEC);
    let launch = launches::matvec_2048();
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
    let one = Dim3::new(1, 1, 1);
    let cases = [
        (
            "matvec",
            MATVEC,
            launches::launch(one, &[("N", 8), ("K", 2048)], &[("A", 1), ("W", 2)]),
        ),
        (
            "ten variables",
            TEN,
            launches::launch(one, &[("N", 256)], &[("X", 1)]),
        ),
    ];
    for (name, source, launch) in cases {
        let compilation = compiler_core::compile(source);
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

/// Counting memory accesses (`simulate_profiled`) against the same run without
/// (`launches::memory_cases`).
fn memory(c: &mut Criterion) {
    let mut group = c.benchmark_group("memory");
    group.sample_size(20);
    for (name, source, launch) in launches::memory_cases() {
        let compilation = compiler_core::compile(source);
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

/// The grid level (issue 32): an atomic against a plain store of the same elements (one each,
/// no contention, one thread), and the histogram example, privatized in shared memory.
fn grid_level(c: &mut Criterion) {
    let store = "@launch(256)\nkernel k(X: tensor<u32>[N], Y: tensor<u32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    Y[i] = X[i] + 1\n  }\n}\n";
    let atomic = store.replace("Y[i] = X[i] + 1", "atomic_add(Y[i], X[i] + 1)");
    let launch = compiler_core::launch::Launch {
        grid: Dim3::new(1024, 1, 1),
        dims: [("N".to_owned(), 1 << 18)].into(),
        inputs: [("X".to_owned(), compiler_core::launch::Input::Iota)].into(),
        ..Default::default()
    };
    let mut group = c.benchmark_group("grid level");
    group.sample_size(10);
    group.throughput(Throughput::Elements(1 << 18));
    for (name, source) in [("plain store", store.to_owned()), ("atomic_add", atomic)] {
        let compilation = compiler_core::compile(&source);
        let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        group.bench_function(format!("{name}, 2^18 elements (elements)"), |b| {
            b.iter(|| prepared.simulate().map(|o| o.stats.lane_ops))
        });
    }
    let histogram = compiler_core::examples::find("histogram").map(|e| (e.source, e.launch));
    if let Some((source, launch)) = histogram {
        let compilation = compiler_core::compile(source);
        let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        let n = launch.dims.get("N").copied().unwrap_or(1) as u64;
        group.throughput(Throughput::Elements(n));
        group.bench_function("histogram example (values)", |b| {
            b.iter(|| prepared.simulate().map(|o| o.stats.lane_ops))
        });
    }
    group.finish();
}

/// `f16` (issue 34): a load-convert-accumulate kernel (the `dot_f16` example: f16 loads, an f32
/// accumulator) against the same kernel on f32 tensors, 2^18 elements, one CTA of 256 threads.
fn half_precision(c: &mut Criterion) {
    let Some(example) = compiler_core::examples::find("dot_f16") else {
        panic!("dot_f16 is not in the catalogue");
    };
    let wide = example
        .source
        .replace("tensor<f16>[N]", "tensor<f32>[N]")
        .replace("f32(A[i]) * f32(B[i])", "A[i] * B[i]");
    let launch = compiler_core::launch::Launch {
        dims: [("N".to_owned(), 1 << 18)].into(),
        ..example.launch.clone()
    };
    let mut group = c.benchmark_group("f16");
    group.sample_size(10);
    group.throughput(Throughput::Elements(1 << 18));
    for (name, source) in [
        ("f16 loads", example.source.to_owned()),
        ("f32 loads", wide),
    ] {
        let compilation = compiler_core::compile(&source);
        let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        group.bench_function(format!("dot, {name}, f32 accumulator (elements)"), |b| {
            b.iter(|| prepared.simulate().map(|o| o.stats.lane_ops))
        });
    }
    group.finish();
}

/// A warp's `mma` against scalar multiply-adds: the same GEMM of `f16` inputs and `f32` sums
/// at 256 cubed, in FLOP/s, one thread (issue 54; `tests/wasm_throughput.rs` runs the same two
/// in wasm).
fn tensor_cores(c: &mut Criterion) {
    let launch = launches::gemm(256);
    let mut group = c.benchmark_group("mma");
    group.sample_size(10);
    group.throughput(Throughput::Elements(2 * 256u64.pow(3)));
    for (name, source) in [("mma_gemm 256^3", MMA_GEMM), ("gemm_fma 256^3", FMA_GEMM)] {
        let compilation = compiler_core::compile(source);
        let mut prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        prepared.options.threads = 1;
        group.bench_function(name, |b| b.iter(|| prepared.simulate().is_ok()));
    }
    group.finish();
}

criterion_group!(
    benches,
    simulator,
    trace,
    memory,
    grid_level,
    half_precision,
    tensor_cores
);
criterion_main!(benches);
