//! Runs Tessera kernels on a GPU: natively through wgpu (Vulkan), in the browser through WebGPU.
//!
//! In: the machine's GPUs. Out: an opened [`Gpu`], an [`AdapterReport`] that says what the GPU
//! offers for Tessera (above all whether it has subgroups and how wide they are, which decides
//! between the subgroup and the emulated-warp WGSL modes), and `run`, which launches a kernel's
//! WGSL on the simulator's bound [`compiler_core::sim::Args`] and copies the written tensors
//! back into them.
//!
//! The two runners share one [`plan`] (limits, buffers, read-back) and the same API: `open`,
//! `probe`, `run`, `Gpu`. Natively `run` blocks; in the browser it is `async`, since WebGPU
//! only answers through promises. The browser runner uses web-sys's WebGPU bindings rather than
//! wgpu's WebGPU backend, because wgpu 30 cannot request the browser's `subgroups` feature
//! (gfx-rs/wgpu#10146; ARCHITECTURE.md).
//!
//! Natively, [`cuda`] runs a kernel's PTX on an NVIDIA GPU through the CUDA driver API, and
//! [`Backend`] opens one of the three by name (`tessera run --backend`, Python's `backend=`).
//!
//! Invariant: this crate is the only one that touches a GPU API; the compiler core never does.

mod plan;

#[cfg(not(target_arch = "wasm32"))]
mod backend;
#[cfg(not(target_arch = "wasm32"))]
pub mod cuda;
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
pub mod ptxas;
#[cfg(not(target_arch = "wasm32"))]
pub use backend::{devices, Backend, Failure, BACKENDS};
#[cfg(not(target_arch = "wasm32"))]
pub use native::{open, probe, run, run_program, run_timed, run_wgsl, run_wgsl_timed, Gpu};

#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::{open, probe, run, run_program, run_timed, run_wgsl, Gpu};

use compiler_core::wgsl::{Stopped, WarpMode};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// What a GPU run measured.
#[derive(Clone, Debug)]
pub struct GpuRun {
    /// From submitting the dispatch to the results being mapped for reading.
    pub elapsed: Duration,
    /// The kernel's own time, or why there is none (not asked for, no timestamps, too slow,
    /// super-tiles).
    pub timing: Result<Timing, String>,
}

/// What [`run`] gives back: the arguments as the kernel left them, and the time it took.
#[derive(Clone, Debug)]
pub struct GpuOutput {
    pub args: compiler_core::sim::Args,
    pub elapsed: Duration,
    /// The kernel's own time ([`run_timed`]), or why there is none, in words.
    pub timing: Result<Timing, String>,
}

pub use compiler_core::timing::{
    dispatches_within, untimed, LaunchTimes, Timing, MAX_TIMED_LAUNCHES, TIMED_DISPATCHES,
};

impl GpuOutput {
    /// What both runners do first: the WGSL for `mode`, and the arguments to run it over (a
    /// copy of the prepared ones).
    fn start(
        prepared: &compiler_core::PreparedRun<'_>,
        mode: WarpMode,
    ) -> Result<(compiler_core::wgsl::Wgsl, GpuOutput), RuntimeError> {
        let wgsl = prepared
            .wgsl(mode)
            .map_err(|d| RuntimeError::Wgsl(d.message))?;
        let output = GpuOutput {
            args: prepared.args.clone(),
            elapsed: Duration::ZERO,
            timing: Err(untimed(false, true, false).to_owned()),
        };
        Ok((wgsl, output))
    }
}

/// What one GPU adapter offers to Tessera.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterReport {
    pub name: String,
    /// The wgpu backend, e.g. `vulkan` natively or `webgpu` in the browser.
    pub backend: String,
    /// `cpu` for software devices such as Mesa's lavapipe.
    pub device_type: String,
    pub driver: String,
    /// Whether the adapter offers `Features::SUBGROUP` (WGSL's `enable subgroups;`).
    pub subgroups: bool,
    pub subgroup_min_size: u32,
    pub subgroup_max_size: u32,
    pub max_invocations_per_workgroup: u32,
    pub max_workgroup_storage_bytes: u32,
    pub max_workgroups_per_dimension: u32,
    /// Storage buffers one kernel may bind: one per tensor, and the loop guard's word. WebGPU
    /// promises 8; a device gives what its adapter offers.
    #[serde(default = "webgpu_storage_buffers")]
    pub max_storage_buffers: u32,
    /// The most bytes one storage buffer may bind (and be): the adapter's
    /// `maxStorageBufferBindingSize`, no more than its `maxBufferSize`. lavapipe's is 128 MiB,
    /// under the launch's own cap of 2^26 elements (256 MiB of `f32`).
    pub max_storage_buffer_bytes: u64,
    /// Whether the adapter offers `timestamp-query`: the GPU can time a kernel ([`Timing`]).
    #[serde(default)]
    pub timestamps: bool,
    /// Whether this device's subgroups are cut from consecutive invocations with
    /// `subgroup_invocation_id = local_invocation_index % size`, which subgroup mode assumes
    /// (WGSL does not promise it). Found by [`lane_probe`] when the device opens; `false` until
    /// then, and for a device without fixed-size subgroups.
    #[serde(default)]
    pub lanes_follow_index: bool,
}

/// WebGPU's guaranteed `maxStorageBuffersPerShaderStage`.
fn webgpu_storage_buffers() -> u32 {
    8
}

impl AdapterReport {
    /// Subgroups can stand in for warps only when every subgroup has the same width.
    pub fn fixed_subgroup_size(&self) -> Option<u32> {
        (self.subgroups && self.subgroup_min_size == self.subgroup_max_size)
            .then_some(self.subgroup_min_size)
    }

    /// Subgroups stand in for `lanes`-wide warps when every subgroup is exactly that wide and
    /// its lanes follow the invocation index (the probe said so); otherwise warps are emulated
    /// in workgroup memory.
    pub fn warp_mode(&self, lanes: u32) -> WarpMode {
        if self.fixed_subgroup_size() == Some(lanes) && self.lanes_follow_index {
            WarpMode::Subgroups
        } else {
            WarpMode::Emulated
        }
    }

    /// `subgroups of 4`, or `subgroups of 4 to 64`: what the run's note says of the GPU.
    pub fn subgroups(&self) -> String {
        match self.fixed_subgroup_size() {
            Some(size) if self.lanes_follow_index => format!("subgroups of {size}"),
            Some(size) => format!("subgroups of {size}, lanes not in invocation order"),
            None if self.subgroups => format!(
                "subgroups of {} to {}",
                self.subgroup_min_size, self.subgroup_max_size
            ),
            None => "no subgroups".to_owned(),
        }
    }
}

/// The kernel that checks, once per device, what subgroup mode assumes: a subgroup is the
/// consecutive invocations `size * k .. size * (k + 1)`, its lane `i` the invocation
/// `size * k + i`. In subgroup mode `ctx.lane` is `local_invocation_index % size` and a
/// shuffle reads the lane the hardware numbers so: each thread reads its own index back
/// exactly when the two numberings agree.
pub const LANE_PROBE: &str = "@launch(256)\nkernel lane_probe(Out: tensor<i32>[256]) {\n  Out[ctx.thread] = shuffle(ctx.thread, ctx.lane)\n}\n";

/// Whether `out`, the probe's result, shows the lanes following the invocation index.
fn lanes_follow_index(out: &compiler_core::sim::Args) -> bool {
    match out.params.first() {
        Some(compiler_core::sim::Arg::Tensor(t)) => {
            t.bits.iter().enumerate().all(|(i, &b)| b as usize == i)
        }
        _ => false,
    }
}

/// The probe's launch on a device whose subgroups are `size` wide, or `None` when the device
/// has no fixed subgroup size (subgroup mode is not used there anyway) or cannot hold it.
fn lane_probe_launch(report: &AdapterReport) -> Option<compiler_core::launch::Launch> {
    let size = report.fixed_subgroup_size()?;
    (report.max_invocations_per_workgroup >= 256 && 256 % size == 0).then(|| {
        compiler_core::launch::Launch {
            lanes: size,
            ..Default::default()
        }
    })
}

impl fmt::Display for AdapterReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "adapter: {} ({}, {})",
            self.name, self.backend, self.device_type
        )?;
        writeln!(f, "driver: {}", self.driver)?;
        if self.subgroups {
            writeln!(
                f,
                "subgroups: {} to {} lanes{}",
                self.subgroup_min_size,
                self.subgroup_max_size,
                if self.lanes_follow_index {
                    ", lane i of a subgroup is invocation size * k + i (checked)"
                } else {
                    ""
                }
            )?;
        } else {
            writeln!(f, "subgroups: not offered (warps will be emulated)")?;
        }
        writeln!(
            f,
            "workgroup: up to {} invocations, {} bytes of workgroup storage; {} storage buffers a kernel, of up to {} bytes each",
            self.max_invocations_per_workgroup, self.max_workgroup_storage_bytes, self.max_storage_buffers, self.max_storage_buffer_bytes
        )
    }
}

/// Why no GPU could be opened, or a launch did not run.
#[derive(Debug)]
pub enum RuntimeError {
    /// No adapter, and why (the API's message, or what the platform lacks).
    NoAdapter(String),
    NoDevice(String),
    /// No NVIDIA GPU through CUDA, and why (no driver, no GPU, the driver's error).
    NoCuda(String),
    /// The kernel does not fit the device: which limit, and by how much.
    Limit(String),
    /// The device rejected the shader or the launch, or was lost, or timed out.
    Device(String),
    /// The WGSL backend failed (a bug in Tessera, E0520).
    Wgsl(String),
    /// A loop of the kernel (its header at `span`) did not end: it ran more than `budget`
    /// trips in one thread and the loop guard stopped it, or the driver ended it early (E0514,
    /// as the simulator's step limit).
    Runaway {
        span: compiler_core::Span,
        budget: u32,
        by: compiler_core::wgsl::Stopped,
    },
}

impl RuntimeError {
    /// The diagnostic a runaway loop is, with the loop's span; `None` for the other errors,
    /// which are the GPU's, not the source's.
    pub fn diagnostic(&self) -> Option<compiler_core::Diagnostic> {
        let Self::Runaway { span, .. } = self else {
            return None;
        };
        let help = match self.stopped() {
            Some(Stopped::Driver) => "a loop that never ends needs an end; a long kernel runs to its end on the simulator, or on a GPU whose driver does not bound loops",
            _ => "a loop that never ends needs an end; the budget is the run's step limit, which a long kernel can raise (`tessera run --step-limit N`)",
        };
        Some(
            compiler_core::Diagnostic::error(compiler_core::Code::E0514, *span, self.to_string())
                .with_help(help),
        )
    }

    fn stopped(&self) -> Option<Stopped> {
        match self {
            Self::Runaway { by, .. } => Some(*by),
            _ => None,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoAdapter(why) => write!(f, "no GPU adapter was found: {why}"),
            Self::NoDevice(error) => write!(f, "the GPU adapter refused a device: {error}"),
            Self::NoCuda(why) => write!(f, "no CUDA device: {why}"),
            Self::Limit(message) => write!(f, "the kernel does not fit this GPU: {message}"),
            Self::Device(message) => write!(f, "the GPU run failed: {message}"),
            Self::Wgsl(message) => write!(f, "no WGSL for the GPU: {message}"),
            Self::Runaway {
                budget,
                by: Stopped::Guard,
                ..
            } => write!(
                f,
                "a loop ran more than {budget} trips in one thread on the GPU, so the loop guard stopped the kernel"
            ),
            Self::Runaway {
                by: Stopped::Driver,
                ..
            } => write!(
                f,
                "the GPU's driver ended a loop before it finished (Mesa's lavapipe gives each invocation one budget of 65,535 loop trips for all its loops, and leaves any loop once it is spent), so the kernel did not run to its end and its results are not shown"
            ),
        }
    }
}

impl std::error::Error for RuntimeError {}
