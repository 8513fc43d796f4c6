//! The Rust API's cost of one saxpy run on the simulator, for the Python package's overhead
//! (BENCHMARKS.md, "Python"): `python/bench/overhead.py` runs this and `Module.run` on the same
//! launch and compares them.
//!
//! `cargo run --profile python -p compiler-core --example saxpy_api -- N ROUNDS THREADS` prints
//! the fastest and the median of ROUNDS runs in milliseconds, each from typed `f32` data in to typed data out:
//! the launch built (its inputs as element bits, as Python's are), prepared, simulated, and Y
//! read back as `f32`s.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::npy::Elements;
use compiler_core::sim::Arg;
use compiler_core::RunLimits;
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap_or_default())
        .collect();
    let (n, rounds, threads) = match args[..] {
        [n, rounds, threads] => (n, rounds, threads),
        _ => (1 << 20, 7, 1),
    };
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/saxpy.tsr");
    let source = std::fs::read_to_string(path).unwrap_or_default();
    let compilation = compiler_core::compile(&source);
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 1e-2).collect();
    let mut times = Vec::new();
    let mut checksum = 0.0f64;
    for _ in 0..rounds {
        let started = Instant::now();
        let data = |v: &[f32]| Input::Bits {
            shape: vec![n],
            bits: v.iter().map(|e| e.to_bits()).collect(),
        };
        let launch = Launch {
            kernel: Some("saxpy".into()),
            grid: Dim3::new(n.div_ceil(128) as u32, 1, 1),
            scalars: [("alpha".to_owned(), 2.5)].into(),
            inputs: [("X".to_owned(), data(&x)), ("Y".to_owned(), data(&y))].into(),
            ..Launch::default()
        };
        let mut prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(d) => panic!("{:?}", d.first().map(|d| &d.message)),
        };
        prepared.options.threads = threads.max(1);
        let output = match prepared.simulate() {
            Ok(output) => output,
            Err(d) => panic!("{}", d.message),
        };
        let result = match output.args.params.get(2) {
            Some(Arg::Tensor(t)) => Elements::of(t.element, &t.bits),
            _ => panic!("no Y"),
        };
        times.push(started.elapsed().as_secs_f64() * 1e3);
        if let Elements::F32(y) = result {
            checksum += f64::from(y[n / 2]);
        }
    }
    times.sort_by(f64::total_cmp);
    println!("{:.3} {checksum} {:.3}", times[0], times[times.len() / 2]);
}
