//! The worker's jobs: a run, a trace or memory counts on the simulator, a run on WebGPU, and
//! the PTX, WGSL and IR listings. Each is made from the source alone (the job compiles it itself,
//! as quick as sending a compilation), so it can cross to a Web Worker as JSON (`worker`) or run
//! here (native builds, the unit tests). The simulator, the backends (PTX, and naga for WGSL)
//! and the WebGPU runner are in the worker's module only: the page's module does not carry them
//! (ARCHITECTURE.md, "the worker has a module of its own").

use super::engine::GpuOutcome;
use crate::outputs::{listing, Listing, Output};
use compiler_core::cluster::ClusterRun;
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::Launch;
use compiler_core::sim::{Args, MemoryProfile, Trace, TraceLimits, Writers};
use compiler_core::wgsl::WarpMode;
use compiler_core::{Diagnostic, RunLimits};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What the page asks the worker for.
#[derive(Clone, Serialize, Deserialize)]
pub enum Job {
    /// `launch` on the simulator.
    Simulate {
        source: String,
        launch: Launch,
        what: Simulation,
    },
    /// A listing for the PTX, WGSL or IR tab.
    Listing {
        source: String,
        kernel: Option<String>,
        of: Output,
    },
    /// `launch` on WebGPU, with warps as `forced` says, else as the device's subgroups allow.
    Gpu {
        source: String,
        launch: Launch,
        forced: Option<WarpMode>,
    },
}

/// What a simulation records besides the results.
#[derive(Clone, Copy, Serialize, Deserialize)]
pub enum Simulation {
    /// Who wrote each element.
    Run,
    /// CTA `block`'s steps.
    Trace { block: Dim3 },
    /// Every memory access.
    Count,
}

/// What a job made: for a launch that does not fit, its diagnostics.
#[derive(Serialize, Deserialize)]
pub enum Reply {
    /// A fault is the one diagnostic.
    Run(Result<Ran, Vec<Diagnostic>>),
    Trace(Result<Traced, Vec<Diagnostic>>),
    Count(Result<Counted, Vec<Diagnostic>>),
    Gpu(GpuOutcome),
    Listing(Result<Listing, String>),
}

/// A run's arguments before and after, who wrote each element, and how long it took.
#[derive(Serialize, Deserialize)]
pub struct Ran {
    pub inputs: Args,
    pub args: Args,
    pub writers: Writers,
    pub ms: f64,
    pub cluster: Option<ClusterRun>,
}

/// One CTA's steps, and the fault that ended the run, if one did.
#[derive(Serialize, Deserialize)]
pub struct Traced {
    pub trace: Trace,
    pub fault: Option<Diagnostic>,
    pub ms: f64,
}

/// The memory counts (`Err`: why there are none), and the fault that ended the run, if one
/// did (the counts go up to it).
#[derive(Serialize, Deserialize)]
pub struct Counted {
    pub profile: Result<MemoryProfile, String>,
    pub fault: Option<Diagnostic>,
    pub ms: f64,
}

/// Told each time a CTA finishes, with the CTAs of the whole job.
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

impl Job {
    /// Makes what the job asks for, on this thread, telling `progress` as CTAs finish; `now`
    /// is a clock in milliseconds (the page's or the worker's).
    pub fn run(self, progress: Option<Progress>, now: fn() -> f64) -> Reply {
        match self {
            Job::Simulate {
                source,
                launch,
                what,
            } => what.simulate(&source, &launch, progress, now),
            // The worker runs it (`worker::run_on_gpu`): WebGPU is asynchronous, and native
            // builds have none.
            Job::Gpu { .. } => Reply::Gpu(GpuOutcome::Skipped(
                "WebGPU runs only in the browser".into(),
            )),
            Job::Listing { source, kernel, of } => Reply::Listing(listing(
                &compiler_core::compile(&source),
                kernel.as_deref(),
                of,
            )),
        }
    }
}

impl Simulation {
    fn simulate(
        self,
        source: &str,
        launch: &Launch,
        progress: Option<Progress>,
        now: fn() -> f64,
    ) -> Reply {
        let start = now();
        let compilation = compiler_core::compile(source);
        let mut prepared = match compilation.prepare(launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => {
                return match self {
                    Simulation::Run => Reply::Run(Err(diagnostics)),
                    Simulation::Trace { .. } => Reply::Trace(Err(diagnostics)),
                    Simulation::Count => Reply::Count(Err(diagnostics)),
                }
            }
        };
        if let Some(progress) = progress {
            let total = prepared.ctas();
            prepared.progress = Some(Arc::new(move |done| progress(done, total)));
        }
        match self {
            Simulation::Run => {
                let ran = prepared.simulate_recording().map(|output| Ran {
                    inputs: prepared.args.clone(),
                    args: output.args,
                    writers: output.writers.unwrap_or_default(),
                    ms: now() - start,
                    cluster: output.cluster,
                });
                Reply::Run(ran.map_err(|fault| vec![fault]))
            }
            Simulation::Trace { block } => {
                let traced = prepared.simulate_traced(block, TraceLimits::default());
                Reply::Trace(Ok(Traced {
                    trace: traced.trace,
                    fault: traced.output.err(),
                    ms: now() - start,
                }))
            }
            Simulation::Count => {
                let profiled = prepared.simulate_profiled();
                Reply::Count(Ok(Counted {
                    profile: profiled.profile,
                    fault: profiled.output.err(),
                    ms: now() - start,
                }))
            }
        }
    }
}

/// How far a job has come: CTAs done of the job's total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    pub done: u64,
    pub total: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(name: &str) -> (String, Launch) {
        let example = compiler_core::examples::find(name)
            .unwrap_or_else(|| panic!("{name} is not in the catalogue"));
        (example.source.to_owned(), example.launch.clone())
    }

    fn simulate(source: String, launch: Launch, what: Simulation) -> Reply {
        Job::Simulate {
            source,
            launch,
            what,
        }
        .run(None, || 0.0)
    }

    /// Through JSON and back, as the worker sends it (a run's bits travel beside the JSON in
    /// the browser, but JSON carries them too).
    fn round_trip(reply: &Reply) -> Reply {
        let text = serde_json::to_string(reply).unwrap_or_else(|e| panic!("{e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_run_crosses_to_the_page_whole() {
        let (source, launch) = example("vector_add");
        let reply = simulate(source, launch, Simulation::Run);
        let (Reply::Run(Ok(sent)), Reply::Run(Ok(got))) = (&reply, round_trip(&reply)) else {
            panic!("not a run's results");
        };
        assert_eq!(format!("{:?}", sent.args), format!("{:?}", got.args));
        assert_eq!(format!("{:?}", sent.inputs), format!("{:?}", got.inputs));
        assert_eq!(sent.writers, got.writers);
        assert!(got.writers.iter().any(|w| w.iter().any(|&t| t > 0)));
    }

    #[test]
    fn a_trace_crosses_whole_and_replays_the_same_values() {
        let (source, launch) = example("block_sum");
        let block = Dim3::new(0, 0, 0);
        let reply = simulate(source, launch, Simulation::Trace { block });
        let (Reply::Trace(Ok(sent)), Reply::Trace(Ok(mut got))) = (&reply, round_trip(&reply))
        else {
            panic!("not a trace");
        };
        got.trace.checkpoint();
        let last = sent.trace.steps.len() - 1;
        assert!(last > 0);
        assert_eq!(sent.trace.values_after(last), got.trace.values_after(last));
    }

    #[test]
    fn counts_and_launch_problems_cross_too() {
        let (source, mut launch) = example("tiled_transpose");
        let reply = simulate(source.clone(), launch.clone(), Simulation::Count);
        let (Reply::Count(Ok(sent)), Reply::Count(Ok(got))) = (&reply, round_trip(&reply)) else {
            panic!("not counts");
        };
        assert_eq!(sent.profile, got.profile);
        launch.grid.x = 0;
        let refused = simulate(source, launch, Simulation::Run);
        let Reply::Run(Err(problems)) = round_trip(&refused) else {
            panic!("a grid of 0 ran");
        };
        assert_eq!(problems[0].code, compiler_core::Code::E0515);
    }

    #[test]
    fn a_gpu_run_is_the_browser_s_own() {
        let (source, launch) = example("vector_add");
        let job = Job::Gpu {
            source,
            launch,
            forced: None,
        };
        let Reply::Gpu(GpuOutcome::Skipped(why)) = round_trip(&job.run(None, || 0.0)) else {
            panic!("a native GPU run");
        };
        assert!(why.contains("browser"), "{why}");
    }

    #[test]
    fn listings_cross_whole() {
        let (source, launch) = example("tiled_matmul");
        for of in [
            Output::Ptx(compiler_core::ptx::Arch::Sm90),
            Output::Wgsl {
                lanes: 32,
                mode: WarpMode::Emulated,
            },
            Output::Ir,
        ] {
            let job = Job::Listing {
                source: source.clone(),
                kernel: launch.kernel.clone(),
                of,
            };
            let Reply::Listing(Ok(got)) = round_trip(&job.run(None, || 0.0)) else {
                panic!("no {of:?} listing");
            };
            let compilation = compiler_core::compile(&source);
            assert_eq!(Ok(got), listing(&compilation, None, of), "{of:?}");
        }
    }
}
