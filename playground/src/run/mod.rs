//! The Run tab: the launch as a form, a run on the simulator and on the user's GPU through
//! WebGPU, and the written tensors side by side with their largest difference.
//!
//! - `engine`: one press of Run (the simulator, then WebGPU), its progress and Cancel.
//! - `messages`: the jobs the page asks for and the worker's replies, as data and bytes.
//! - `jobs`: what makes each reply (a run, a trace, memory counts, a grading, listings).
//! - `worker`: those jobs in a Web Worker, from a module of their own.
//! - `results`: the run's status, its fault or its written tensors.
//! - `tensors`: a tensor's table, numbers, downloads and verdicts.
//! - `form`: the launch form.
//! - `diagram`: the launch in the hierarchy diagram, and what a picked thread wrote.
//! - `steps`: a traced CTA's steps as the stepper shows them, made in the worker.
//! - `stepper`: one warp of a traced CTA, step by step.
//! - `memory`: the run's memory accesses counted per access in the source, and occupancy.
//! - `later`: the views above that a first visit does not show, loaded when first shown.

mod diagram;
mod engine;
mod form;
pub mod jobs;
pub mod later;
mod memory;
pub mod messages;
mod results;
mod stepper;
pub mod steps;
mod tensors;
mod timeline;
#[cfg(target_arch = "wasm32")]
pub mod worker;

pub use ::diagram::FragmentMapProps;
pub use diagram::LaunchDiagramProps;
pub use engine::{
    grade_run, memory_run, run_on_gpu_anyway, start_run, trace_run, GradeRun, Latest,
    ListingWriter, MemoryRun, OnRequest, RunReport, Running, SimRun, Stage, StepReader, TraceRun,
};
pub use form::{LaunchPanel, UnreadFields};
pub use later::WhenSeen;
pub use memory::{ArchSelect, MemoryViewProps, OccupancyView};
pub use messages::GpuOutcome;
pub use results::Results;
pub use stepper::StepperProps;
pub use tensors::ResultsPlace;

use compiler_core::launch::Launch;
use leptos::prelude::*;
use std::rc::Rc;

/// A docs kernel run in place: compiles `source`, runs `launch` (resolved when the docs were
/// built) on the simulator at once and then on WebGPU, and shows the results as the playground
/// does.
#[component]
pub fn KernelRun(
    source: String,
    launch: Launch,
    /// The run's floating-point operations and global bytes, where the docs counted them.
    counts: Option<(u64, u64)>,
) -> impl IntoView {
    let running = Running::new(RwSignal::new_local(None::<RunReport>));
    start_run(
        Rc::new(compiler_core::compile(&source)),
        launch,
        None,
        running,
    );
    view! { <Results report=running.report running=running counts=Signal::derive_local(move || counts)/> }
}
