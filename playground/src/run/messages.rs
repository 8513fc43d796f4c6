//! The words the page and the worker speak: the jobs the page asks for, the replies the
//! worker makes, and the bytes both cross as. In: nothing of the run's code; out: plain data
//! (serde), read by `engine` (the page's side), `jobs` (what makes a reply) and `worker` (the
//! Web Worker), which import this file and never each other in a circle.

use super::steps::{self, StepView};
use crate::outputs::{Listing, Output};
use compiler_core::cluster::ClusterRun;
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::Launch;
use compiler_core::program::LaunchRecord;
use compiler_core::sim::{Args, MemoryProfile, Writers};
use compiler_core::wgsl::WarpMode;
use compiler_core::Diagnostic;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
/// A job or a reply as the bytes that cross between the page and the worker: postcard's
/// compact form, not JSON, whose reader for every type a reply holds was 22.6 KB of the page's
/// module's gzip (ARCHITECTURE.md, "the bytes are postcard's").
pub fn to_bytes<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(value).map_err(|error| error.to_string())
}

/// The job or reply that `to_bytes` wrote.
pub fn from_bytes<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|error| error.to_string())
}

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
    /// Step `index` of warp `warp` of the trace of CTA `block` of a program's launch number
    /// `nth` (0 for a kernel), kept by the worker that made it; made again by another. The
    /// third variant, `index` its first field: so its bytes begin with 2 and the index as a
    /// varint, which the read-ahead's e2e test (stepper.spec.ts) reads.
    Step {
        index: usize,
        warp: u32,
        nth: u32,
        block: Dim3,
        source: String,
        launch: Launch,
    },
    /// A puzzle's grading: `attempt` against the reference of `exercise` (an `Exercise` as
    /// JSON), both run with its launch on the simulator, then its rules
    /// (`compiler_core::grade`). In the worker, so that an attempt that never ends cannot
    /// freeze the page. The exercise and the verdict cross as JSON text, so the playground's
    /// page module, which shares these enums but grades nothing, carries no code to write an
    /// exercise or read a verdict (4.9 KB of gzip, BENCHMARKS.md "Site size").
    Grade { attempt: String, exercise: String },
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
    /// CTA `block`'s steps, kept in the worker; the page hears how many there are. For a
    /// program, those of its launch number `nth` (from 0, in the order the run makes them).
    Trace { nth: u32, block: Dim3 },
    /// Every memory access (of every launch, for a program).
    Count,
}

/// What a job made: for a launch that does not fit, its diagnostics.
#[derive(Serialize, Deserialize)]
pub enum Reply {
    /// A fault is the one diagnostic.
    Run(Result<Ran, Vec<Diagnostic>>),
    Trace(Result<Traced, Vec<Diagnostic>>),
    Step(Result<Stepped, String>),
    Count(Result<Counted, Vec<Diagnostic>>),
    Gpu(GpuOutcome),
    Listing(Result<Listing, String>),
    /// A `Result<Verdict, String>` as JSON; `Err`: the puzzle's reference does not run (a
    /// fault of the puzzle's, not the reader's).
    Grade(String),
}

/// A run's arguments before and after, who wrote each element, and how long it took.
#[derive(Serialize, Deserialize)]
pub struct Ran {
    pub inputs: Args,
    pub args: Args,
    pub writers: Writers,
    pub ms: f64,
    pub cluster: Option<ClusterRun>,
    /// A program's launches, in the order it made them (none for a kernel).
    pub launches: Vec<LaunchRecord>,
    /// `sim::Stats::order_dependent_sums`: the results say their f32 atomic sums could differ.
    pub order_dependent_sums: bool,
}

/// What the page knows of a trace the worker keeps: its steps and warps, why it ends early
/// (if it does), and the fault that ended the run, if one did.
#[derive(Clone, Serialize, Deserialize)]
pub struct Traced {
    pub steps: usize,
    pub warps: u32,
    pub lanes: u32,
    pub incomplete: Option<String>,
    pub fault: Option<Diagnostic>,
    pub ms: f64,
    /// A program's launch traced.
    pub launch: Option<LaunchRecord>,
}

/// One step of one warp (`None` for a trace with no steps), and for the timeline, how many of
/// the warp's lanes each step had active.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stepped {
    pub view: Option<StepView>,
    pub active: Vec<u8>,
    pub room: steps::StripRoom,
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
/// "E0515: …": the first of a launch's problems, for a request's failure line.
pub fn first_problem(diagnostics: Vec<Diagnostic>) -> String {
    diagnostics.first().map_or_else(String::new, |d| {
        format!("{}: {}", d.code.as_str(), d.message)
    })
}

/// How far a job has come: CTAs done of the job's total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    pub done: u64,
    pub total: u64,
}

/// What the GPU did with a run.
#[derive(Clone, Serialize, Deserialize)]
pub enum GpuOutcome {
    Pending,
    Skipped(String),
    Failed(String),
    Done {
        args: Args,
        ms: f64,
        how: String,
        /// The kernel's own time (a program's: its launches' timeline) by the GPU's
        /// timestamps, or why it has none.
        timing: Result<GpuTime, String>,
    },
}

/// What the GPU's timestamps measured of a run.
#[derive(Clone, Serialize, Deserialize)]
pub enum GpuTime {
    /// A kernel: dispatches of it after the run.
    Kernel(compiler_core::timing::Timing),
    /// A program: each launch as it ran.
    Launches(compiler_core::timing::LaunchTimes),
}

impl GpuTime {
    /// The seconds the run's work took on the GPU, where the timestamps can say it: a
    /// kernel's median, a program's launches summed (every one timed); none for a time under
    /// the timestamps' step, or longer than the whole run (`run_ms`, measured under load).
    pub fn seconds(&self, run_ms: f64) -> Option<f64> {
        let (ns, step) = match self {
            GpuTime::Kernel(t) => (t.median_ns(), t.resolution_ns),
            GpuTime::Launches(l) if l.spans_ns.iter().all(Option::is_some) => {
                (l.total_ns(), l.resolution_ns)
            }
            GpuTime::Launches(_) => return None,
        };
        (ns >= step && ns > 0.0 && ns <= run_ms * 1e6).then_some(ns * 1e-9)
    }
}
