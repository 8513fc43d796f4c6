//! Where a launch runs, chosen by name: the simulator, WGSL on the Vulkan GPU, or PTX on an
//! NVIDIA GPU through CUDA. `tessera run --backend` and the Python package's `backend=` both
//! open one here, so a name means the same device and the same messages in both.
//!
//! In: a backend's name (`sim`, `gpu`, `cuda`), the warp width and whether to emulate warps.
//! Out: an opened [`Backend`] that runs a [`PreparedRun`] or a [`PreparedProgram`] on its GPU
//! (the simulator's runs stay with the caller, which watches them: progress, traces, counts),
//! and a run's [`Failure`] as both report it.

use crate::{cuda, GpuOutput, RuntimeError};
use compiler_core::program::{PreparedProgram, ProgramError, ProgramOutput};
use compiler_core::wgsl::WarpMode;
use compiler_core::{Diagnostic, PreparedRun};

/// Why a run on a GPU failed, as a host reports it: the source's doing, a diagnostic at its
/// statement (a runaway loop's E0514; in a program, which launch), or the device's, in words.
#[derive(Debug)]
pub enum Failure {
    Source(Diagnostic),
    Device(String),
}

impl From<RuntimeError> for Failure {
    fn from(error: RuntimeError) -> Failure {
        match error.diagnostic() {
            Some(diagnostic) => Failure::Source(diagnostic),
            None => Failure::Device(error.to_string()),
        }
    }
}

/// The names a backend is opened by.
pub const BACKENDS: [&str; 3] = ["sim", "gpu", "cuda"];

/// An opened backend.
pub enum Backend {
    Simulator,
    /// WGSL on a Vulkan GPU, its warps as `mode` gives them.
    Vulkan {
        gpu: crate::Gpu,
        mode: WarpMode,
    },
    /// PTX on an NVIDIA GPU.
    Cuda(cuda::CudaGpu),
}

impl Backend {
    /// Opens the backend `name` for warps of `lanes` lanes; the error says what is missing
    /// (no Vulkan adapter, no NVIDIA driver or GPU), or that the name is none of [`BACKENDS`].
    pub fn open(name: &str, emulate_warps: bool, lanes: u32) -> Result<Backend, String> {
        match name {
            "sim" => Ok(Backend::Simulator),
            "gpu" => {
                let gpu = pollster::block_on(crate::open()).map_err(|e| e.to_string())?;
                Ok(Backend::on_vulkan(gpu, emulate_warps, lanes))
            }
            "cuda" => {
                if emulate_warps {
                    return Err("emulated warps are for the Vulkan GPU (backend gpu): CUDA runs PTX, whose warps are the GPU's".to_owned());
                }
                cuda::open(0).map(Backend::Cuda).map_err(|e| e.to_string())
            }
            other => Err(format!(
                "`{other}` is not a backend: {}",
                BACKENDS.join(", ")
            )),
        }
    }

    /// An opened Vulkan GPU (one a host keeps, say) as the backend `gpu`, for warps of `lanes`
    /// lanes: its subgroups where they are that wide, else emulated, or emulated when asked.
    pub fn on_vulkan(gpu: crate::Gpu, emulate_warps: bool, lanes: u32) -> Backend {
        let mode = if emulate_warps {
            WarpMode::Emulated
        } else {
            gpu.report.warp_mode(lanes)
        };
        Backend::Vulkan { gpu, mode }
    }

    /// What a run's line says the kernel ran on: "the simulator", "llvmpipe (LLVM 19.1.7, 256
    /// bits) (32-lane warps emulated)".
    pub fn describe(&self, lanes: u32) -> String {
        match self {
            Backend::Simulator => "the simulator".to_owned(),
            Backend::Vulkan { gpu, mode } => format!(
                "{} ({})",
                gpu.report.name,
                match mode {
                    WarpMode::Subgroups => format!("warps are its subgroups of {lanes}"),
                    WarpMode::Emulated => format!("{lanes}-lane warps emulated"),
                }
            ),
            Backend::Cuda(gpu) => format!(
                "{} (CUDA, PTX for {})",
                gpu.report.name,
                gpu.report.arch().map_or("?", |a| a.name())
            ),
        }
    }

    /// Runs a prepared launch on the GPU, timed over [`crate::TIMED_DISPATCHES`]; `None` on
    /// the simulator, which the caller runs.
    pub fn run(
        &self,
        prepared: &PreparedRun<'_>,
        source: &str,
    ) -> Option<Result<GpuOutput, Failure>> {
        self.run_timed(prepared, source, crate::TIMED_DISPATCHES)
    }

    /// [`Backend::run`], timed over at most `dispatches` more dispatches (0: not timed, the
    /// run alone: Python's `timing=False`).
    pub fn run_timed(
        &self,
        prepared: &PreparedRun<'_>,
        source: &str,
        dispatches: u32,
    ) -> Option<Result<GpuOutput, Failure>> {
        let ran = match self {
            Backend::Simulator => return None,
            Backend::Vulkan { gpu, mode } => crate::run_timed(gpu, prepared, *mode, dispatches),
            Backend::Cuda(gpu) => cuda::run_timed(gpu, prepared, source, dispatches),
        };
        Some(ran.map_err(Failure::from))
    }

    /// Runs a prepared program's launches on the GPU; `None` on the simulator. A failure in
    /// a launch names it: the diagnostic through `PreparedProgram::in_launch`, the device's
    /// words with the kernel's name.
    pub fn run_program(
        &self,
        prepared: &PreparedProgram<'_>,
        source: &str,
    ) -> Option<Result<ProgramOutput, Failure>> {
        let ran = match self {
            Backend::Simulator => return None,
            Backend::Vulkan { gpu, mode } => crate::run_program(gpu, prepared, *mode),
            Backend::Cuda(gpu) => cuda::run_program(gpu, prepared, source),
        };
        Some(ran.map_err(|error| match error {
            ProgramError::Program(diagnostic) => Failure::Source(diagnostic),
            ProgramError::Launch(failure) => {
                let (error, record) = *failure;
                match error.diagnostic() {
                    Some(d) => Failure::Source(prepared.in_launch(d, &record)),
                    None => {
                        Failure::Device(format!("{error} (in the launch of `{}`)", record.kernel))
                    }
                }
            }
        }))
    }
}

/// The GPUs each backend would run on, as `tessera gpu` prints them (and `tessera.devices()`
/// gives them): the Vulkan adapter's report, then each CUDA device, or why there is none.
/// `Err` when there is neither.
pub fn devices() -> Result<String, String> {
    let vulkan = pollster::block_on(crate::probe()).map(|report| report.to_string());
    let cuda =
        cuda::devices().map(|devices| devices.iter().map(|d| format!("{d}\n")).collect::<String>());
    let indent = |found: Result<&String, &RuntimeError>| -> String {
        let text = match found {
            Ok(text) => text.clone(),
            Err(error) => format!("none: {error}\n"),
        };
        text.lines().map(|line| format!("  {line}\n")).collect()
    };
    let text = format!(
        "Vulkan (--backend gpu):\n{}\nCUDA (--backend cuda):\n{}",
        indent(vulkan.as_ref()),
        indent(cuda.as_ref())
    );
    match (vulkan, cuda) {
        (Err(_), Err(_)) => Err(text.trim_end().to_owned()),
        _ => Ok(text),
    }
}
