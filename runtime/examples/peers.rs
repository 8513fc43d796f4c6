//! Tessera's WGSL against its peers on this machine's GPU (BENCHMARKS.md, issue 55):
//! - each kernel with 32-lane warps emulated against the same kernel on the device's own
//!   subgroups (`--lanes` = their width);
//! - Tessera's WGSL (subgroup mode, guarded as `tessera run` runs it) against hand-written WGSL
//!   (`bench/wgsl/`), run over the same buffers with the same bindings; every output is checked
//!   against the simulator first (floats within the spec's tolerance, since a hand-written
//!   reduction adds in its own order).
//!
//! Times are GPU time from timestamps: the median of each run's timed dispatches, and of
//! `--rounds` rounds that interleave the variants.
//!
//! cargo run --release -p runtime --example peers -- [--rounds R] [--only NAME] [--examples]
//!
//! `--examples`: every example at its own launch instead (emulated against subgroups only).

use compiler_core::guard::Guard;
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::{compare_tensor, Arg, Args};
use compiler_core::wgsl::{WarpMode, Wgsl};
use compiler_core::{PreparedRun, RunLimits};
use runtime::Gpu;
use std::process::ExitCode;

/// A kernel, its launch, and its hand-written peer if it has one.
struct Case {
    name: &'static str,
    source: &'static str,
    launch: Launch,
    peer: Option<&'static str>,
}

fn launch(grid: (u32, u32), dims: &[(&str, i64)], inputs: &[(&str, Input)]) -> Launch {
    Launch {
        grid: Dim3::new(grid.0, grid.1, 1),
        dims: dims.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect(),
        inputs: inputs
            .iter()
            .map(|(n, i)| ((*n).to_owned(), i.clone()))
            .collect(),
        ..Launch::default()
    }
}

fn cases() -> Vec<Case> {
    let n = 1 << 20;
    let mut saxpy = launch(
        (n as u32 / 128, 1),
        &[("N", n)],
        &[("X", Input::Rand(1)), ("Y", Input::Rand(2))],
    );
    saxpy.scalars.insert("alpha".into(), 2.5);
    vec![
        Case {
            name: "loop probe",
            source: include_str!("../../bench/emulated/probe.tsr"),
            launch: launch((64, 1), &[("N", 16384)], &[("X", Input::Rand(1))]),
            peer: None,
        },
        Case {
            name: "matvec",
            source: include_str!("../../examples/matvec.tsr"),
            launch: launch(
                (128, 1),
                &[("N", 1024), ("K", 1024)],
                &[("A", Input::Rand(1)), ("W", Input::Rand(2))],
            ),
            peer: None,
        },
        Case {
            name: "saxpy",
            source: include_str!("../../examples/saxpy.tsr"),
            launch: saxpy,
            peer: Some(include_str!("../../bench/wgsl/saxpy.wgsl")),
        },
        Case {
            name: "warp_reduce",
            source: include_str!("../../examples/warp_reduce.tsr"),
            launch: launch(
                (n as u32 / 128, 1),
                &[("N", n), ("W", n / 4)],
                &[("X", Input::Rand(1))],
            ),
            peer: Some(include_str!("../../bench/wgsl/warp_reduce.wgsl")),
        },
        Case {
            name: "block_sum",
            source: include_str!("../../examples/block_sum.tsr"),
            launch: launch(
                (n as u32 / 256, 1),
                &[("N", n), ("B", n / 256)],
                &[("X", Input::Rand(1))],
            ),
            peer: Some(include_str!("../../bench/wgsl/block_sum.wgsl")),
        },
        Case {
            name: "tiled_transpose",
            source: include_str!("../../examples/tiled_transpose.tsr"),
            launch: launch(
                (32, 32),
                &[("R", 1024), ("C", 1024)],
                &[("In", Input::Rand(1))],
            ),
            peer: Some(include_str!("../../bench/wgsl/tiled_transpose.wgsl")),
        },
        Case {
            name: "tiled_matmul",
            source: include_str!("../../examples/tiled_matmul.tsr"),
            launch: launch(
                (8, 8),
                &[("M", 256), ("K", 256), ("N", 256)],
                &[("A", Input::Rand(1)), ("B", Input::Rand(2))],
            ),
            peer: Some(include_str!("../../bench/wgsl/tiled_matmul.wgsl")),
        },
    ]
}

/// The variants, in the order `measure` runs them.
const NAMES: [&str; 4] = ["emulated", "subgroups", "no loop guard", "hand-written"];

/// A way to run a case: its WGSL and its arguments.
struct Variant {
    wgsl: Wgsl,
    args: Args,
    /// GPU times of each round's median, in ms.
    medians: Vec<f64>,
}

impl Variant {
    fn new(prepared: &PreparedRun<'_>, wgsl: Wgsl) -> Variant {
        Variant {
            wgsl,
            args: prepared.args.clone(),
            medians: Vec::new(),
        }
    }

    /// Runs once over a copy of the arguments: the outputs, and the median of the timed
    /// dispatches in ms.
    fn run(&self, gpu: &Gpu, prepared: &PreparedRun<'_>) -> Result<(Args, f64), String> {
        let mut args = self.args.clone();
        let ran = runtime::run_wgsl_timed(gpu, prepared.kernel, &self.wgsl, &mut args, 9)
            .map_err(|e| e.to_string())?;
        let timing = ran.timing?;
        Ok((args, timing.median_ns() / 1e6))
    }
}

/// The first tensor that disagrees with the simulator's, by name.
fn check(kernel: &compiler_core::ir::Kernel, got: &Args, want: &Args) -> Result<(), String> {
    for (i, (g, w)) in got.params.iter().zip(&want.params).enumerate() {
        if let (Arg::Tensor(g), Arg::Tensor(w)) = (g, w) {
            if let Some(at) = compare_tensor(g.element, &g.bits, &w.bits).first_mismatch {
                return Err(format!(
                    "{} differs from the simulator's at element {at}",
                    kernel.params[i].name()
                ));
            }
        }
    }
    Ok(())
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn measure(gpu: &Gpu, case: &Case, rounds: usize) -> Result<String, String> {
    let Some(width) = gpu.report.fixed_subgroup_size() else {
        return Err("the GPU has no fixed subgroup size".into());
    };
    let compilation = compiler_core::compile(case.source);
    let prepare = |lanes: u32| {
        let launch = Launch {
            lanes,
            ..case.launch.clone()
        };
        compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .map_err(|d| format!("{:?}", d.first().map(|d| &d.message)))
    };
    let (emulated, native) = (prepare(32)?, prepare(width)?);
    let wgsl = |prepared: &PreparedRun<'_>, mode| prepared.wgsl(mode).map_err(|d| d.message);
    let mut variants = vec![
        (
            Variant::new(&emulated, wgsl(&emulated, WarpMode::Emulated)?),
            &emulated,
        ),
        (
            Variant::new(&native, wgsl(&native, WarpMode::Subgroups)?),
            &native,
        ),
    ];
    // Tessera's WGSL without the loop guard (what the WGSL tab shows), to size the guard.
    let plain = compiler_core::wgsl::emit(native.kernel, width, WarpMode::Subgroups, Guard::Off)
        .map_err(|d| d.message)?;
    variants.push((Variant::new(&native, plain), &native));
    if let Some(text) = case.peer {
        let mut peer = wgsl(&native, WarpMode::Subgroups)?;
        // naga's own parser refuses `enable subgroups;` and the diagnostic a browser needs.
        peer.text = text
            .lines()
            .filter(|l| !l.starts_with("enable ") && !l.starts_with("diagnostic("))
            .collect::<Vec<_>>()
            .join("\n");
        peer.entry_point = "main".into();
        peer.guard = None;
        variants.push((Variant::new(&native, peer), &native));
    }
    let references = [emulated.simulate(), native.simulate()];
    for (round, _) in (0..rounds).enumerate() {
        for (k, (variant, prepared)) in variants.iter_mut().enumerate() {
            let (args, ms) = variant.run(gpu, prepared)?;
            if round == 0 {
                let want = references[usize::from(k > 0)]
                    .as_ref()
                    .map_err(|d| d.message.clone())?;
                check(prepared.kernel, &args, &want.args)
                    .map_err(|e| format!("{} ({}): {e}", case.name, NAMES[k]))?;
            }
            variant.medians.push(ms);
        }
    }
    let times: Vec<f64> = variants.iter().map(|(v, _)| median(&v.medians)).collect();
    let peer = times.get(3).map_or("— | — | —".to_owned(), |p| {
        format!("{p:.3} ms | {:.2}× | {:.2}×", times[1] / p, times[2] / p)
    });
    Ok(format!(
        "| {} | {:.3} ms | {:.3} ms | {:.2}× | {:.3} ms | {peer} |",
        case.name,
        times[0],
        times[1],
        times[0] / times[1],
        times[2],
    ))
}

/// Every example at its own launch (`examples/launches.json`), but those with `mma`, which
/// take 32-lane warps.
fn example_cases() -> Vec<Case> {
    compiler_core::examples::all()
        .into_iter()
        .filter(|e| {
            compiler_core::compile(e.source)
                .kernel(None)
                .is_ok_and(|k| k.matrix.is_none())
        })
        .map(|e| Case {
            name: e.name,
            source: e.source,
            launch: e.launch,
            peer: None,
        })
        .collect()
}

fn main() -> ExitCode {
    let mut rounds = 5;
    let mut only = None;
    let mut suite = cases as fn() -> Vec<Case>;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let known = match flag.as_str() {
            "--rounds" => args.next().and_then(|r| r.parse().ok()).map(|r| rounds = r),
            "--only" => args.next().map(|name| only = Some(name)),
            "--examples" => {
                suite = example_cases;
                Some(())
            }
            _ => None,
        };
        if known.is_none() {
            eprintln!("usage: peers [--rounds R] [--only NAME] [--examples]");
            return ExitCode::from(2);
        }
    }
    let gpu = match pollster::block_on(runtime::open()) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    println!(
        "{}, subgroups of {:?}; GPU time, median of {rounds} rounds of 9 dispatches\n",
        gpu.report.name,
        gpu.report.fixed_subgroup_size()
    );
    println!(
        "| kernel | 32-lane warps emulated | the device's subgroups | emulated / subgroups | \
         subgroups, no loop guard | hand-written WGSL | Tessera / hand-written | \
         no loop guard / hand-written |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut failed = false;
    for case in suite()
        .iter()
        .filter(|c| only.as_deref().is_none_or(|o| o == c.name))
    {
        match measure(&gpu, case, rounds) {
            Ok(row) => println!("{row}"),
            Err(e) => {
                failed = true;
                println!("| {} | error: {e} |", case.name);
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
