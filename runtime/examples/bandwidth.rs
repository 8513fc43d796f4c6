//! Memory bandwidth of two kernels on a GPU: a copy, and examples/matvec.tsr, at sizes that
//! keep the memory busy; the median of several launches as GB/s, and as a share of the device's
//! peak where the driver gives it. scripts/gpu-check.sh runs it on CUDA; `--backend gpu` runs
//! it through WGSL on the Vulkan GPU (small sizes on lavapipe, to check the program).
//!
//! cargo run --release -p runtime --example bandwidth -- [--backend cuda|gpu] [--elements N] [--runs R]

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::{PreparedRun, RunLimits};
use runtime::{GpuOutput, RuntimeError};
use std::process::ExitCode;
use std::time::Duration;

const COPY: &str = "@launch(256)\nkernel copy(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    Y[i] = X[i]\n  }\n}\n";
const MATVEC: &str = include_str!("../../examples/matvec.tsr");

struct Options {
    backend: String,
    /// Elements of the copy's tensors and of the matvec's matrix.
    elements: u32,
    runs: usize,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        backend: "cuda".to_owned(),
        elements: 1 << 26,
        runs: 20,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<u32>()
                .map_err(|_| format!("{flag} {value}: not a number"))
        };
        match flag.as_str() {
            "--backend" => options.backend = value.clone(),
            "--elements" => options.elements = number()?,
            "--runs" => options.runs = number()? as usize,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

type Runner = Box<dyn Fn(&PreparedRun<'_>, &str) -> Result<GpuOutput, RuntimeError>>;

/// The runner for `--backend`, what it runs on, and the device's peak GB/s if known.
fn runner(backend: &str) -> Result<(Runner, String, Option<f64>), RuntimeError> {
    if backend == "gpu" {
        let gpu = pollster::block_on(runtime::open())?;
        let name = gpu.report.name.clone();
        let run: Runner =
            Box::new(move |prepared, _| runtime::run(&gpu, prepared, gpu.report.warp_mode(32)));
        return Ok((run, format!("{name} (WGSL, Vulkan)"), None));
    }
    let gpu = runtime::cuda::open(0)?;
    let (name, peak) = (gpu.report.to_string(), gpu.report.peak_gb_per_s);
    let run: Runner = Box::new(move |prepared, source| runtime::cuda::run(&gpu, prepared, source));
    Ok((run, name, peak))
}

/// The median time of `runs` launches of `source` over `launch`.
fn median_time(
    run: &Runner,
    source: &str,
    launch: &Launch,
    runs: usize,
) -> Result<Duration, String> {
    let compilation = compiler_core::compile(source);
    let prepared = compilation
        .prepare(launch, RunLimits::TERMINAL)
        .map_err(|d| format!("{:?}", d.first().map(|d| &d.message)))?;
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        times.push(run(&prepared, source).map_err(|e| e.to_string())?.elapsed);
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn main() -> ExitCode {
    match measure() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

fn measure() -> Result<(), String> {
    let options = options()?;
    let (run, device, peak) = runner(&options.backend).map_err(|e| e.to_string())?;
    println!("bandwidth on {device}, median of {} launches", options.runs);
    let n = options.elements;
    let copy = Launch {
        grid: Dim3::new(n.div_ceil(256), 1, 1),
        dims: [("N".to_owned(), i64::from(n))].into(),
        inputs: [("X".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    // A square matrix of `n` elements; eight warps of 256 threads, one column each.
    let side = (f64::from(n).sqrt() as u32).max(32);
    let matvec = Launch {
        grid: Dim3::new(side.div_ceil(8), 1, 1),
        dims: [
            ("N".to_owned(), i64::from(side)),
            ("K".to_owned(), i64::from(side)),
        ]
        .into(),
        inputs: [("A".to_owned(), Input::Ones), ("W".to_owned(), Input::Ones)].into(),
        ..Launch::default()
    };
    let rows = [
        ("copy", COPY, &copy, 2.0 * f64::from(n) * 4.0),
        (
            "matvec",
            MATVEC,
            &matvec,
            (f64::from(side) * f64::from(side) + 3.0 * f64::from(side)) * 4.0,
        ),
    ];
    for (name, source, launch, bytes) in rows {
        let time = median_time(&run, source, launch, options.runs)?;
        let gb_per_s = bytes / time.as_secs_f64() / 1e9;
        let share = peak.map_or(String::new(), |p| {
            format!(", {:.0}% of {p:.0} GB/s peak", 100.0 * gb_per_s / p)
        });
        println!(
            "{name}: {:.1} MB in {:.3} ms: {gb_per_s:.1} GB/s{share}",
            bytes / 1e6,
            time.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
