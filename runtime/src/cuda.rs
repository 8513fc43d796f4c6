//! The CUDA runner: a kernel's PTX on an NVIDIA GPU, through the CUDA driver API.
//!
//! In: a [`PreparedRun`] (or a program's, [`run_program`]) and its source. Out: the arguments as the kernel left them, as the
//! WGSL runners give them. cudarc loads NVIDIA's driver (`libcuda`) the first time it is
//! needed, so building needs no CUDA installation, and on a machine without the driver every
//! call says so ([`RuntimeError::NoCuda`]) instead of failing.
//!
//! Invariants: the PTX's target is the newest of sm_70, sm_80 and sm_90 the device runs
//! ([`Arch::for_compute_capability`]); the arguments follow [`ptx::entry_params`], the list
//! the PTX's `.param`s were written from; the loop guard's word is the last argument, 0 before
//! each launch and read back after it; a CTA is always `@launch` threads along x.

use crate::{GpuOutput, GpuRun, RuntimeError};
use compiler_core::cluster;
use compiler_core::guard::Guard;
use compiler_core::ir::Kernel;
use compiler_core::program::{PreparedProgram, ProgramError, ProgramOutput};
use compiler_core::ptx::{self, Arch, EntryParam, Ptx};
use compiler_core::sim::{Arg, Args};
use compiler_core::wgsl::Stopped;
use compiler_core::PreparedRun;
use cudarc::driver::sys::CUdevice_attribute as Attribute;
use cudarc::driver::{CudaContext, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One NVIDIA GPU, as its driver describes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CudaReport {
    /// The device's index, as `CUDA_VISIBLE_DEVICES` numbers them.
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (u32, u32),
    pub memory_bytes: u64,
    /// CTAs along x, y and z a launch may have.
    pub max_grid: [u32; 3],
    /// The memory's peak bandwidth in GB/s, from its clock and bus width; `None` where the
    /// driver does not say.
    pub peak_gb_per_s: Option<f64>,
}

impl CudaReport {
    /// The PTX target a run on this device uses.
    pub fn arch(&self) -> Option<Arch> {
        let (major, minor) = self.compute_capability;
        Arch::for_compute_capability(major, minor)
    }
}

impl fmt::Display for CudaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.compute_capability;
        write!(
            f,
            "cuda device {}: {} (compute capability {major}.{minor}, {:.1} GiB",
            self.ordinal,
            self.name,
            self.memory_bytes as f64 / f64::from(1u32 << 30)
        )?;
        if let Some(peak) = self.peak_gb_per_s {
            write!(f, ", {peak:.0} GB/s peak")?;
        }
        match self.arch() {
            Some(arch) => write!(f, "); runs PTX for {}", arch.name()),
            None => write!(f, "); too old for Tessera's PTX, which needs 7.0"),
        }
    }
}

/// An opened NVIDIA GPU: its context, and what it is.
pub struct CudaGpu {
    context: Arc<CudaContext>,
    pub report: CudaReport,
}

/// The NVIDIA GPUs the driver sees; an error when there is no driver or no GPU.
pub fn devices() -> Result<Vec<CudaReport>, RuntimeError> {
    driver_present()?;
    let count = CudaContext::device_count().map_err(|e| no_device(&e))?;
    if count < 1 {
        return Err(RuntimeError::NoCuda(
            "NVIDIA's driver is installed but sees no GPU".to_owned(),
        ));
    }
    (0..count as usize)
        .map(|ordinal| open(ordinal).map(|gpu| gpu.report))
        .collect()
}

/// Opens the GPU `ordinal` (0 is the first).
pub fn open(ordinal: usize) -> Result<CudaGpu, RuntimeError> {
    driver_present()?;
    let context = CudaContext::new(ordinal).map_err(|e| no_device(&e))?;
    let attribute = |which| {
        context
            .attribute(which)
            .map(|v| u32::try_from(v).unwrap_or(0))
            .map_err(|e| no_device(&e))
    };
    let (major, minor) = (
        attribute(Attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attribute(Attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let max_grid = [
        attribute(Attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
        attribute(Attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
        attribute(Attribute::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
    ];
    // Double data rate: two transfers per clock (kHz) over the bus (bits).
    let clock_khz = attribute(Attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0);
    let bus_bits = attribute(Attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).unwrap_or(0);
    let peak = 2.0 * f64::from(clock_khz) * 1e3 * f64::from(bus_bits) / 8.0 / 1e9;
    let report = CudaReport {
        ordinal,
        name: context.name().map_err(|e| no_device(&e))?,
        compute_capability: (major, minor),
        memory_bytes: context.total_mem().map_err(|e| no_device(&e))? as u64,
        max_grid,
        peak_gb_per_s: (peak > 0.0).then_some(peak),
    };
    Ok(CudaGpu { context, report })
}

/// One of the two unsafe calls (the launch is the other): loading a library runs its
/// initializers, which for NVIDIA's driver is what every CUDA program does first.
#[allow(unsafe_code)]
fn driver_present() -> Result<(), RuntimeError> {
    // SAFETY: see above; cudarc tries the driver's usual file names and keeps none it loaded.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(RuntimeError::NoCuda(
            "libcuda.so could not be loaded (it comes with NVIDIA's GPU driver; Tessera needs no CUDA toolkit)"
                .to_owned(),
        ))
    }
}

fn no_device(error: &DriverError) -> RuntimeError {
    RuntimeError::NoCuda(describe(error))
}

/// `CUDA_ERROR_NAME: the driver's sentence`.
fn describe(error: &DriverError) -> String {
    let name = error.error_name().map(|n| n.to_string_lossy().into_owned());
    let text = error
        .error_string()
        .map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(name), Ok(text)) => format!("{name}: {text}"),
        _ => format!("CUDA error {}", error.0 as u32),
    }
}

/// Runs a prepared launch on `gpu`: its PTX (for the device's target, loops guarded by the
/// step limit), over a copy of its arguments, which come back as the kernel left them.
pub fn run(
    gpu: &CudaGpu,
    prepared: &PreparedRun<'_>,
    source: &str,
) -> Result<GpuOutput, RuntimeError> {
    run_timed(gpu, prepared, source, 0)
}

/// [`run`], then up to `dispatches` more launches of the kernel timed by CUDA events
/// ([`crate::Timing`]; [`crate::dispatches_within`] a second). A kernel under `@cluster` is
/// not timed.
pub fn run_timed(
    gpu: &CudaGpu,
    prepared: &PreparedRun<'_>,
    source: &str,
    dispatches: u32,
) -> Result<GpuOutput, RuntimeError> {
    let kernel = prepared.kernel;
    let arch = target(gpu, prepared.options.lanes)?;
    let ptx = prepared
        .ptx(source, arch)
        .map_err(|d| no_ptx(kernel, &d.message))?;
    let mut output = GpuOutput {
        args: prepared.args.clone(),
        elapsed: Duration::ZERO,
        timing: Err(crate::untimed(true, true, false).to_owned()),
    };
    let loaded = Loaded::new(gpu, kernel, &ptx)?;
    let ran = if kernel.cluster.is_none() {
        loaded.launch(&mut output.args, dispatches)?
    } else {
        run_ptx(gpu, kernel, &ptx, &mut output.args)?
    };
    output.elapsed = ran.elapsed;
    output.timing = ran.timing;
    Ok(output)
}

/// A program's launches on `gpu`, one after another (`compiler_core::program`'s walk), each
/// its kernel's PTX, loaded for the launch: its tensors go to the device before it and come
/// back after it, as a kernel's launch's do, so a `while` condition reads what the last
/// launch left.
pub fn run_program(
    gpu: &CudaGpu,
    prepared: &PreparedProgram<'_>,
    source: &str,
) -> Result<ProgramOutput, ProgramError<RuntimeError>> {
    prepared.execute(|kernel, args, _| {
        let arch = target(gpu, prepared.run.options.lanes)?;
        let ptx = prepared
            .ptx(kernel, source, arch)
            .map_err(|d| no_ptx(kernel, &d.message))?;
        run_ptx(gpu, kernel, &ptx, args)?;
        Ok(compiler_core::sim::Stats::default())
    })
}

/// The PTX target for `gpu`, which runs warps of 32 lanes only.
fn target(gpu: &CudaGpu, lanes: u32) -> Result<Arch, RuntimeError> {
    if lanes != 32 {
        return Err(RuntimeError::Limit(format!(
            "an NVIDIA warp is 32 lanes; this launch asks for {lanes} (leave out --lanes)"
        )));
    }
    gpu.report.arch().ok_or_else(|| {
        let (major, minor) = gpu.report.compute_capability;
        RuntimeError::Limit(format!(
            "{} has compute capability {major}.{minor}; Tessera's PTX needs 7.0 (Volta) or newer",
            gpu.report.name
        ))
    })
}

fn no_ptx(kernel: &Kernel, why: &str) -> RuntimeError {
    RuntimeError::Limit(format!("no PTX for kernel `{}`: {why}", kernel.name))
}

/// Runs `ptx` over `args.grid` and copies every tensor back into `args`; a kernel under
/// `@cluster` runs one launch per super-tile, over its slices, as on the other runners.
pub fn run_ptx(
    gpu: &CudaGpu,
    kernel: &Kernel,
    ptx: &Ptx,
    args: &mut Args,
) -> Result<GpuRun, RuntimeError> {
    let loaded = Loaded::new(gpu, kernel, ptx)?;
    if kernel.cluster.is_none() {
        return loaded.launch(args, 0);
    }
    let mut elapsed = Duration::ZERO;
    let tiles = cluster::plan(kernel, args, 1);
    cluster::run_tiles(kernel, args, &tiles, None, |part, _| {
        elapsed += loaded.launch(part, 0)?.elapsed;
        Ok::<(), RuntimeError>(())
    })?;
    // CUDA's events time any launch: only the super-tiles stop it.
    let timing = Err(crate::untimed(true, false, true).to_owned());
    Ok(GpuRun { elapsed, timing })
}

/// One argument of a launch, in the entry's parameter order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Argument {
    /// A buffer in device memory, passed by its address: a tensor (`param`) or the loop
    /// guard's word (`None`). Never empty: an empty tensor gets one element.
    Buffer {
        param: Option<usize>,
        words: Vec<u32>,
    },
    /// A dimension's value or a scalar's bits, passed by value (an `f32` as its bits).
    Word(u32),
    /// A 64-bit scalar's bits, passed by value (`.u64`).
    Wide(u64),
}

/// The arguments a launch of `kernel` over `args` passes, in [`ptx::entry_params`] order.
pub fn arguments(
    kernel: &Kernel,
    args: &Args,
    guard: Guard,
) -> Result<Vec<Argument>, RuntimeError> {
    ptx::entry_params(kernel, guard)
        .into_iter()
        .map(|param| match param {
            EntryParam::Tensor { param } => match args.params.get(param) {
                Some(Arg::Tensor(tensor)) => Ok(Argument::Buffer {
                    param: Some(param),
                    words: tensor.memory_words(),
                }),
                _ => Err(missing(kernel, param)),
            },
            EntryParam::Dim { dim } => match args.dims.get(dim) {
                Some(value) => Ok(Argument::Word(*value as u32)),
                None => Err(RuntimeError::Device(format!(
                    "no value for dimension `{}`",
                    kernel.dims[dim]
                ))),
            },
            EntryParam::Scalar { param, ty } => match args.params.get(param) {
                Some(Arg::Scalar(bits)) if ty.is_wide() => Ok(Argument::Wide(*bits)),
                Some(Arg::Scalar(bits)) => Ok(Argument::Word(*bits as u32)),
                _ => Err(missing(kernel, param)),
            },
            EntryParam::LoopGuard => Ok(Argument::Buffer {
                param: None,
                words: vec![0],
            }),
        })
        .collect()
}

fn missing(kernel: &Kernel, param: usize) -> RuntimeError {
    let name = kernel.params.get(param).map_or("?", |p| p.name());
    RuntimeError::Device(format!("no data for parameter `{name}`"))
}

/// A kernel's PTX loaded on a GPU, ready to launch.
struct Loaded<'a> {
    gpu: &'a CudaGpu,
    kernel: &'a Kernel,
    ptx: &'a Ptx,
    function: cudarc::driver::CudaFunction,
}

impl<'a> Loaded<'a> {
    fn new(gpu: &'a CudaGpu, kernel: &'a Kernel, ptx: &'a Ptx) -> Result<Self, RuntimeError> {
        let module = gpu
            .context
            .load_module(cudarc::nvrtc::Ptx::from_src(ptx.text.as_str()))
            .map_err(|e| {
                RuntimeError::Device(format!(
                    "the driver refused the PTX of kernel `{}`: {}",
                    kernel.name,
                    describe(&e)
                ))
            })?;
        let function = module.load_function(&kernel.name).map_err(|e| {
            RuntimeError::Device(format!(
                "the PTX has no entry `{}`: {}",
                kernel.name,
                describe(&e)
            ))
        })?;
        Ok(Self {
            gpu,
            kernel,
            ptx,
            function,
        })
    }

    /// Launches the kernel over `args` and copies its tensors back; then, when `timed` is more
    /// than 0, launches it again up to `timed` times between CUDA events.
    fn launch(&self, args: &mut Args, timed: u32) -> Result<GpuRun, RuntimeError> {
        let kernel = self.kernel;
        let grid = [args.grid.x, args.grid.y, args.grid.z];
        for ((axis, n), most) in ["x", "y", "z"]
            .iter()
            .zip(grid)
            .zip(self.gpu.report.max_grid)
        {
            if n > most {
                return Err(RuntimeError::Limit(format!(
                    "the grid has {n} CTAs along {axis}; CUDA launches at most {most}"
                )));
            }
        }
        let guard = match &self.ptx.loop_guard {
            Some(guard) => Guard::Trips(guard.budget),
            None => Guard::Off,
        };
        let arguments = arguments(kernel, args, guard)?;
        let failed = |what: &str, e: DriverError| {
            RuntimeError::Device(format!(
                "{what} for kernel `{}` failed: {}",
                kernel.name,
                describe(&e)
            ))
        };
        let stream = self.gpu.context.default_stream();
        let mut buffers: Vec<(Option<usize>, CudaSlice<u32>)> = Vec::new();
        for argument in &arguments {
            if let Argument::Buffer { param, words } = argument {
                let buffer = stream
                    .clone_htod(words)
                    .map_err(|e| failed("copying the inputs to the GPU", e))?;
                buffers.push((*param, buffer));
            }
        }
        let config = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (kernel.threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let dispatch = || {
            let mut builder = stream.launch_builder(&self.function);
            let mut next_buffer = buffers.iter();
            for argument in &arguments {
                match argument {
                    Argument::Word(word) => {
                        builder.arg(word);
                    }
                    Argument::Wide(bits) => {
                        builder.arg(bits);
                    }
                    Argument::Buffer { .. } => {
                        if let Some((_, buffer)) = next_buffer.next() {
                            builder.arg(buffer);
                        }
                    }
                }
            }
            launch(&mut builder, config).map_err(|e| failed("the launch", e))
        };
        let start = Instant::now();
        dispatch()?;
        stream.synchronize().map_err(|e| {
            let hint = if e.0 == cudarc::driver::sys::cudaError_enum::CUDA_ERROR_ILLEGAL_ADDRESS {
                " (PTX does not check indices: run it on the simulator, which names the thread and the index)"
            } else {
                ""
            };
            RuntimeError::Device(format!(
                "kernel `{}` failed on the GPU: {}{hint}",
                kernel.name,
                describe(&e)
            ))
        })?;
        let elapsed = start.elapsed();
        for (param, buffer) in &buffers {
            let words = stream
                .clone_dtoh(buffer)
                .map_err(|e| failed("copying the results back", e))?;
            match param {
                Some(param) => {
                    if let Some(Arg::Tensor(tensor)) = args.params.get_mut(*param) {
                        tensor.set_from_memory(words);
                    }
                }
                None => {
                    let word = words.first().copied().unwrap_or(0);
                    if let (Some(span), Some(guard)) =
                        (self.ptx.runaway(word), &self.ptx.loop_guard)
                    {
                        return Err(RuntimeError::Runaway {
                            span,
                            budget: guard.budget,
                            by: Stopped::Guard,
                        });
                    }
                }
            }
        }
        let dispatches = crate::dispatches_within(elapsed, timed);
        let timing = if dispatches > 0 {
            let mut samples_ns = Vec::new();
            let timed_event = || {
                stream
                    .record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(|e| failed("timing", e))
            };
            for _ in 0..dispatches {
                let begin = timed_event()?;
                dispatch()?;
                let end = timed_event()?;
                let ms = begin.elapsed_ms(&end).map_err(|e| failed("timing", e))?;
                samples_ns.push(f64::from(ms) * 1e6);
            }
            // CUDA's events: "a resolution of around 0.5 microseconds" (cuEventElapsedTime).
            Ok(crate::Timing {
                samples_ns,
                resolution_ns: 500.0,
            })
        } else {
            Err(crate::untimed(true, true, timed > 0).to_owned())
        };
        Ok(GpuRun { elapsed, timing })
    }
}

/// The other unsafe call: the driver cannot check a launch's arguments against the entry's
/// parameters. They are [`arguments`], built from [`ptx::entry_params`], the same list the
/// PTX's `.param` declarations were written from (`tests/cuda.rs` compares the two), each a
/// device buffer's address or a 4-byte word.
#[allow(unsafe_code)]
fn launch(
    builder: &mut cudarc::driver::LaunchArgs<'_>,
    config: LaunchConfig,
) -> Result<(), DriverError> {
    // SAFETY: see above; the buffers outlive the launch, which the caller synchronizes.
    unsafe { builder.launch(config) }.map(|_| ())
}
