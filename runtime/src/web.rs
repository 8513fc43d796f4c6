//! The browser runner: WebGPU through web-sys, with the same plan, WGSL and binding layout as
//! the native runner. It asks for the adapter's `subgroups` feature and its own limits (WebGPU's
//! defaults, 16 KiB of workgroup storage, are below a 32 × 32 matmul's), and sends WGSL with
//! `enable subgroups;` where the kernel uses subgroups ([`Wgsl::browser_text`]).
//!
//! Errors are values: no WebGPU, no adapter, a shader the browser rejects (with its compiler's
//! messages), a lost device (the browser's GPU watchdog ends a runaway kernel that way).

use crate::plan::{fill, leave_device, plan, read_back, Plan, Storage};
use crate::{AdapterReport, GpuOutput, GpuRun, LaunchTimes, RuntimeError};
use compiler_core::cluster;
use compiler_core::ir::Kernel;
use compiler_core::program::{LaunchRecord, PreparedProgram, ProgramError, ProgramOutput, Runner};
use compiler_core::sim::{Args, Stats, Tensor};
use compiler_core::wgsl::{WarpMode, Wgsl};
use compiler_core::PreparedRun;
use js_sys::{JsString, Number, Object, Reflect, Uint8Array};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    gpu_buffer_usage as usage, gpu_map_mode, gpu_shader_stage, GpuAdapter, GpuBindGroupDescriptor,
    GpuBindGroupEntry, GpuBindGroupLayout, GpuBindGroupLayoutDescriptor, GpuBindGroupLayoutEntry,
    GpuBuffer, GpuBufferBindingLayout, GpuBufferBindingType, GpuBufferDescriptor,
    GpuCompilationMessageType, GpuComputePassDescriptor, GpuComputePassTimestampWrites,
    GpuComputePipeline, GpuComputePipelineDescriptor, GpuDevice, GpuDeviceDescriptor,
    GpuDeviceLostInfo, GpuErrorFilter, GpuPipelineLayoutDescriptor, GpuProgrammableStage,
    GpuQuerySet, GpuQuerySetDescriptor, GpuQueryType, GpuShaderModuleDescriptor,
};

/// An opened WebGPU device and what its adapter offers.
pub struct Gpu {
    pub device: GpuDevice,
    pub report: AdapterReport,
    /// Why the device was lost, once it is (its `lost` promise settled).
    lost: Rc<RefCell<Option<String>>>,
}

impl Gpu {
    /// The browser's reason when the device is lost (to its GPU watchdog after a kernel ran
    /// too long, a driver reset, or `destroy()`); a lost device never works again.
    pub fn lost(&self) -> Option<String> {
        self.lost.borrow().clone()
    }

    fn watch_for_loss(device: &GpuDevice) -> Rc<RefCell<Option<String>>> {
        let lost = Rc::new(RefCell::new(None));
        let slot = lost.clone();
        let on_lost = Closure::new(move |info: GpuDeviceLostInfo| {
            let message = info.message();
            *slot.borrow_mut() = Some(if message.is_empty() {
                "no reason given".to_owned()
            } else {
                message
            });
        });
        let _ = device.lost().then(&on_lost);
        // The promise may settle after the page has dropped this Gpu; the closure must outlive
        // it (one small closure per opened device).
        on_lost.forget();
        lost
    }

    fn lost_error(&self, during: &str) -> Option<RuntimeError> {
        self.lost().map(|reason| {
            RuntimeError::Device(format!(
                "the GPU device was lost {during} ({reason}); the next run opens a new one. \
                 Browsers end a kernel that runs for seconds this way."
            ))
        })
    }
}

impl AdapterReport {
    fn of(adapter: &GpuAdapter) -> Self {
        let info = adapter.info();
        let limits = adapter.limits();
        let subgroups = adapter.features().has("subgroups");
        Self {
            name: [info.vendor(), info.architecture(), info.description()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
            backend: "webgpu".into(),
            device_type: if info.is_fallback_adapter() {
                "cpu".into()
            } else {
                "gpu".into()
            },
            driver: info.device(),
            subgroups,
            subgroup_min_size: if subgroups {
                info.subgroup_min_size()
            } else {
                0
            },
            subgroup_max_size: if subgroups {
                info.subgroup_max_size()
            } else {
                0
            },
            max_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup(),
            max_workgroup_storage_bytes: limits.max_compute_workgroup_storage_size(),
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension(),
            max_storage_buffers: limits.max_storage_buffers_per_shader_stage(),
            max_storage_buffer_bytes: (limits.max_storage_buffer_binding_size() as u64)
                .min(limits.max_buffer_size() as u64),
            timestamps: adapter.features().has("timestamp-query"),
            lanes_follow_index: false,
        }
    }
}

fn js_error(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// `name` of the global scope: the page's window or a worker's scope, which both have a
/// navigator, a clock and timers.
fn global(name: &str) -> JsValue {
    Reflect::get(&js_sys::global(), &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

async fn adapter() -> Result<GpuAdapter, RuntimeError> {
    let navigator = global("navigator");
    let gpu = Reflect::get(&navigator, &JsValue::from_str("gpu")).unwrap_or(JsValue::UNDEFINED);
    if gpu.is_undefined() || gpu.is_null() {
        return Err(RuntimeError::NoAdapter(
            "this browser has no WebGPU (navigator.gpu is missing; it needs a secure context \
             and a browser that ships WebGPU)"
                .into(),
        ));
    }
    let found = gpu
        .unchecked_into::<web_sys::Gpu>()
        .request_adapter()
        .await
        .map_err(|e| RuntimeError::NoAdapter(js_error(&e)))?;
    found.as_option().ok_or_else(|| {
        RuntimeError::NoAdapter(
            "WebGPU is there but offered no adapter (the GPU may be blocklisted or disabled)"
                .into(),
        )
    })
}

/// Describes the browser's default adapter, without opening a device.
pub async fn probe() -> Result<AdapterReport, RuntimeError> {
    Ok(AdapterReport::of(&adapter().await?))
}

/// Opens the default adapter's device with `subgroups` when offered and the adapter's limits,
/// in a page or in a worker.
pub async fn open() -> Result<Gpu, RuntimeError> {
    let adapter = adapter().await?;
    let report = AdapterReport::of(&adapter);
    let descriptor = GpuDeviceDescriptor::new();
    descriptor.set_label("tessera");
    let features: Vec<JsString> = [
        ("subgroups", report.subgroups),
        ("timestamp-query", report.timestamps),
    ]
    .into_iter()
    .filter(|&(_, offered)| offered)
    .map(|(name, _)| JsString::from(name))
    .collect();
    descriptor.set_required_features(&features);
    let limits = Object::new();
    for (name, value) in [
        (
            "maxComputeInvocationsPerWorkgroup",
            report.max_invocations_per_workgroup,
        ),
        (
            "maxComputeWorkgroupStorageSize",
            report.max_workgroup_storage_bytes,
        ),
        (
            "maxComputeWorkgroupsPerDimension",
            report.max_workgroups_per_dimension,
        ),
        (
            "maxComputeWorkgroupSizeX",
            adapter.limits().max_compute_workgroup_size_x(),
        ),
        (
            "maxStorageBuffersPerShaderStage",
            report.max_storage_buffers,
        ),
    ] {
        let _ = Reflect::set(&limits, &JsValue::from_str(name), &Number::from(value));
    }
    descriptor.set_required_limits(limits.unchecked_ref());
    let device = adapter
        .request_device_with_descriptor(&descriptor)
        .await
        .map_err(|e| RuntimeError::NoDevice(js_error(&e)))?;
    let lost = Gpu::watch_for_loss(&device);
    let mut gpu = Gpu {
        device,
        report,
        lost,
    };
    gpu.report.lanes_follow_index = lanes_follow_index(&gpu).await;
    Ok(gpu)
}

/// Runs the [`crate::LANE_PROBE`] in subgroup mode: whether the lanes follow the index.
async fn lanes_follow_index(gpu: &Gpu) -> bool {
    let Some(launch) = crate::lane_probe_launch(&gpu.report) else {
        return false;
    };
    let compilation = compiler_core::compile(crate::LANE_PROBE);
    let Ok(prepared) = compilation.prepare(&launch, compiler_core::RunLimits::TERMINAL) else {
        return false;
    };
    match run(gpu, &prepared, WarpMode::Subgroups).await {
        Ok(out) => crate::lanes_follow_index(&out.args),
        Err(_) => false,
    }
}

fn device_error(what: &str, e: &JsValue) -> RuntimeError {
    RuntimeError::Device(format!("{what}: {}", js_error(e)))
}

fn buffer(device: &GpuDevice, size: usize, usage: u32) -> Result<GpuBuffer, RuntimeError> {
    // WebGPU sizes are multiples of 4; the plan's bytes always are.
    let descriptor = GpuBufferDescriptor::new(size.max(4) as u32, usage);
    device
        .create_buffer(&descriptor)
        .map_err(|e| device_error("could not create a buffer", &e))
}

/// A buffer filled with `bytes` through the queue.
fn filled_buffer(gpu: &Gpu, bytes: &[u8], usage: u32) -> Result<GpuBuffer, RuntimeError> {
    let created = buffer(&gpu.device, bytes.len(), usage | usage::COPY_DST)?;
    gpu.device
        .queue()
        .write_buffer_with_u32_and_u8_slice(&created, 0, bytes)
        .map_err(|e| device_error("could not upload a buffer", &e))?;
    Ok(created)
}

/// The browser's WGSL compiler's errors, with their lines, or `None` when it accepted the shader.
async fn compile_errors(module: &web_sys::GpuShaderModule) -> Option<String> {
    let info = module.get_compilation_info().await.ok()?;
    let errors: Vec<String> = info
        .messages()
        .iter()
        .filter(|m| m.type_() == GpuCompilationMessageType::Error)
        .map(|m| format!("{}:{}: {}", m.line_num(), m.line_pos(), m.message()))
        .collect();
    (!errors.is_empty()).then(|| errors.join("\n"))
}

/// Lets the event loop run for `ms` milliseconds (at once where there are no timers).
async fn pause(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let timer = global("setTimeout")
            .dyn_into::<js_sys::Function>()
            .and_then(|set_timeout| {
                set_timeout.call2(&js_sys::global(), &resolve, &JsValue::from(ms))
            });
        if timer.is_err() {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = promise.await;
}

fn now_ms() -> f64 {
    global("performance")
        .dyn_into::<web_sys::Performance>()
        .map_or(0.0, |p| p.now())
}

/// Runs a prepared launch with its warps as `mode` gives them: its WGSL, over a copy of its
/// arguments, which come back as the kernel left them.
pub async fn run(
    gpu: &Gpu,
    prepared: &PreparedRun<'_>,
    mode: WarpMode,
) -> Result<GpuOutput, RuntimeError> {
    run_timed(gpu, prepared, mode, 0).await
}

/// [`run`], then, when the GPU has `timestamp-query`, up to `dispatches` more dispatches of
/// the kernel timed ([`crate::Timing`]; [`crate::dispatches_within`] a second). A kernel
/// under `@cluster` is not timed.
pub async fn run_timed(
    gpu: &Gpu,
    prepared: &PreparedRun<'_>,
    mode: WarpMode,
    dispatches: u32,
) -> Result<GpuOutput, RuntimeError> {
    let (wgsl, mut output) = GpuOutput::start(prepared, mode)?;
    let ran = run_wgsl_with(
        gpu,
        prepared.kernel,
        &wgsl,
        &mut output.args,
        &Pipelines::default(),
        dispatches,
    )
    .await?;
    output.elapsed = ran.elapsed;
    output.timing = ran.timing;
    Ok(output)
}

/// A program's launches on WebGPU, one after another (`compiler_core::program`'s walk), as
/// the native runner runs them: one dispatch per launch over buffers that stay on the device,
/// a tensor going up before the first launch that uses it and coming back only when the walk
/// reads it (a `while` condition's element, the results at the end). Each kernel's pipeline is
/// made once and shared by its launches. The time is the launches' own; where the GPU has
/// timestamps, each launch's pass also writes them at its start and end, as it runs (the first
/// [`crate::MAX_TIMED_LAUNCHES`]), which give the program's timeline.
pub async fn run_program(
    gpu: &Gpu,
    prepared: &PreparedProgram<'_>,
    mode: WarpMode,
) -> Result<(ProgramOutput, Duration, Result<LaunchTimes, String>), ProgramError<RuntimeError>> {
    let stamps = match gpu.report.timestamps {
        true => Stamps::new(gpu).ok(),
        false => None,
    };
    let mut runner = Resident {
        gpu,
        prepared,
        mode,
        pipelines: Pipelines::default(),
        buffers: HashMap::new(),
        elapsed: Duration::ZERO,
        stamps,
    };
    let output = prepared.execute_with(&mut runner).await;
    for buffer in runner.buffers.values() {
        buffer.destroy();
    }
    let output = output?;
    let times = match runner.stamps {
        Some(stamps) => stamps.read(gpu).await,
        None => Err(crate::untimed(gpu.report.timestamps, true, true).to_owned()),
    };
    Ok((output, runner.elapsed, times))
}

/// A program run's timestamps: a query set of two for each launch timed, and which pair each
/// launch wrote (`None`: not timed).
struct Stamps {
    queries: GpuQuerySet,
    pairs: Vec<Option<u32>>,
    used: u32,
}

impl Stamps {
    fn new(gpu: &Gpu) -> Result<Stamps, RuntimeError> {
        let count = 2 * crate::MAX_TIMED_LAUNCHES as u32;
        let queries = gpu
            .device
            .create_query_set(&GpuQuerySetDescriptor::new(count, GpuQueryType::Timestamp))
            .map_err(|e| device_error("could not make the timestamps' query set", &e))?;
        Ok(Stamps {
            queries,
            pairs: Vec::new(),
            used: 0,
        })
    }

    /// The pair of timestamps the next launch writes, if there is one left and it is one
    /// dispatch; the launch is counted either way.
    fn next(&mut self, timed: bool) -> Option<(&GpuQuerySet, u32)> {
        let pair = (timed && (self.used as usize) < crate::MAX_TIMED_LAUNCHES).then_some(self.used);
        self.pairs.push(pair);
        let pair = pair?;
        self.used += 1;
        Some((&self.queries, pair))
    }

    /// Every launch's times, once the GPU has written them.
    async fn read(self, gpu: &Gpu) -> Result<LaunchTimes, String> {
        let ticks = match self.used {
            0 => Ok(Vec::new()),
            used => {
                let encoder = gpu.device.create_command_encoder();
                read_queries(gpu, encoder, &self.queries, 2 * used).await
            }
        };
        self.queries.destroy();
        let ticks = ticks.map_err(|e| e.to_string())?;
        let pairs: Vec<Option<(u64, u64)>> = self
            .pairs
            .iter()
            .map(|p| p.map(|k| (ticks[2 * k as usize], ticks[2 * k as usize + 1])))
            .collect();
        Ok(LaunchTimes::from_ticks(&pairs, 1.0))
    }
}

/// The browser's runner of a program's launches, and the device buffer of each storage slot
/// uploaded so far.
struct Resident<'g, 'p, 'm> {
    gpu: &'g Gpu,
    prepared: &'p PreparedProgram<'m>,
    mode: WarpMode,
    pipelines: Pipelines,
    buffers: HashMap<usize, GpuBuffer>,
    elapsed: Duration,
    stamps: Option<Stamps>,
}

impl<'m> Runner<'m> for Resident<'_, '_, 'm> {
    type Error = RuntimeError;

    async fn launch(
        &mut self,
        kernel: &'m Kernel,
        mut args: Args,
        slots: Vec<Option<usize>>,
        _: LaunchRecord,
    ) -> (Args, Result<Stats, RuntimeError>) {
        let result = self.launch_now(kernel, &mut args, &slots).await;
        (args, result.map(|()| Stats::default()))
    }

    async fn fetch(&mut self, slot: usize, mut tensor: Tensor) -> Result<Tensor, RuntimeError> {
        if let Some(buffer) = self.buffers.get(&slot) {
            fill(&mut tensor, &read_buffer(self.gpu, buffer).await?);
        }
        Ok(tensor)
    }
}

impl Resident<'_, '_, '_> {
    async fn launch_now(
        &mut self,
        kernel: &Kernel,
        args: &mut Args,
        slots: &[Option<usize>],
    ) -> Result<(), RuntimeError> {
        let wgsl = self
            .prepared
            .wgsl(kernel, self.mode)
            .map_err(|d| RuntimeError::Wgsl(d.message))?;
        let run = if kernel.cluster.is_some() {
            // Super-tiles run over slices of the tensors, on the host's copies: the device's
            // come back first, and the host's stand after.
            for (tensor, buffer) in leave_device(slots, args, &mut self.buffers) {
                fill(tensor, &read_buffer(self.gpu, &buffer).await?);
                buffer.destroy();
            }
            if let Some(stamps) = &mut self.stamps {
                stamps.next(false); // several dispatches, on the host's copies
            }
            run_wgsl_with(self.gpu, kernel, &wgsl, args, &self.pipelines, 0).await?
        } else {
            let storage = Storage::Device {
                slots,
                buffers: &mut self.buffers,
            };
            let timed = match self.stamps.as_mut().and_then(|s| s.next(true)) {
                Some((queries, pair)) => Timed::Stamped(queries, pair),
                None => Timed::Not,
            };
            run_launch(
                self.gpu,
                kernel,
                &wgsl,
                args,
                &self.pipelines,
                storage,
                timed,
            )
            .await?
        };
        self.elapsed += run.elapsed;
        Ok(())
    }
}

/// A buffer's bytes, copied back from the device.
async fn read_buffer(gpu: &Gpu, storage: &GpuBuffer) -> Result<Vec<u8>, RuntimeError> {
    let device = &gpu.device;
    let size = storage.size() as usize;
    let readback = buffer(device, size, usage::MAP_READ | usage::COPY_DST)?;
    let encoder = device.create_command_encoder();
    encoder
        .copy_buffer_to_buffer_with_u32_and_u32_and_u32(storage, 0, &readback, 0, size as u32)
        .map_err(|e| device_error("could not copy the results", &e))?;
    device.queue().submit(&[encoder.finish()]);
    let bytes = mapped(gpu, &readback).await;
    readback.destroy();
    bytes
}

/// A read-back buffer's bytes, once the GPU has written them.
async fn mapped(gpu: &Gpu, readback: &GpuBuffer) -> Result<Vec<u8>, RuntimeError> {
    if let Err(e) = readback.map_async(gpu_map_mode::READ).await {
        // The lost promise settles about when the read fails, in either order.
        pause(50).await;
        return Err(gpu
            .lost_error("during the run")
            .unwrap_or_else(|| device_error("the GPU did not finish", &e)));
    }
    let range = readback
        .get_mapped_range()
        .map_err(|e| device_error("could not read the results back", &e))?;
    let bytes = Uint8Array::new(&range).to_vec();
    readback.unmap();
    Ok(bytes)
}

/// Runs `wgsl` over `args.grid` and copies every written tensor back into `args`; a kernel
/// under `@cluster` runs one launch per super-tile, over its slices (`compiler_core::cluster`).
/// For a part of a launch (an MPI rank's super-tile) or WGSL of one's own; [`run`] is the
/// usual door.
pub async fn run_wgsl(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
) -> Result<GpuRun, RuntimeError> {
    run_wgsl_with(gpu, kernel, wgsl, args, &Pipelines::default(), 0).await
}

/// [`run_wgsl`], taking the kernel's pipeline from `pipelines` when a launch before made it.
async fn run_wgsl_with(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
    pipelines: &Pipelines,
    timed: u32,
) -> Result<GpuRun, RuntimeError> {
    if kernel.cluster.is_none() {
        let timed = Timed::Again(timed);
        return run_launch(gpu, kernel, wgsl, args, pipelines, Storage::Host, timed).await;
    }
    let mut elapsed = Duration::ZERO;
    for tile in cluster::plan(kernel, args, 1) {
        let mut part = cluster::slice(kernel, args, tile);
        elapsed += run_launch(
            gpu,
            kernel,
            wgsl,
            &mut part,
            pipelines,
            Storage::Host,
            Timed::Not,
        )
        .await?
        .elapsed;
        cluster::merge(kernel, args, tile, &part);
    }
    let timing = Err(crate::untimed(gpu.report.timestamps, false, timed > 0).to_owned());
    Ok(GpuRun { elapsed, timing })
}

/// A kernel's WGSL made ready on the device: its bind group's layout and its pipeline. The
/// layout follows the WGSL alone (a binding per tensor, read-only or not, the guard's word, the
/// uniforms), so every launch of the kernel can use it.
struct Pipeline {
    layout: GpuBindGroupLayout,
    pipeline: GpuComputePipeline,
}

/// Pipelines made during one run, by kernel name.
#[derive(Default)]
struct Pipelines(RefCell<HashMap<String, Rc<Pipeline>>>);

impl Pipelines {
    /// `kernel`'s pipeline: the one made before, else made now (the browser compiles the
    /// WGSL; its messages come back as the error).
    async fn get(
        &self,
        gpu: &Gpu,
        kernel: &Kernel,
        wgsl: &Wgsl,
        plan: &Plan,
    ) -> Result<Rc<Pipeline>, RuntimeError> {
        if let Some(made) = self.0.borrow().get(&kernel.name) {
            return Ok(made.clone());
        }
        let made = Rc::new(make_pipeline(gpu, wgsl, plan).await?);
        self.0
            .borrow_mut()
            .insert(kernel.name.clone(), made.clone());
        Ok(made)
    }
}

async fn make_pipeline(gpu: &Gpu, wgsl: &Wgsl, plan: &Plan) -> Result<Pipeline, RuntimeError> {
    let device = &gpu.device;
    device.push_error_scope(GpuErrorFilter::Validation);
    let module = device.create_shader_module(&GpuShaderModuleDescriptor::new(&wgsl.browser_text()));
    if let Some(errors) = compile_errors(&module).await {
        let _ = device.pop_error_scope().await;
        return Err(RuntimeError::Device(format!(
            "the browser's WGSL compiler rejected the kernel:\n{errors}"
        )));
    }
    let entry = |binding: u32, ty: GpuBufferBindingType| {
        let layout = GpuBufferBindingLayout::new();
        layout.set_type(ty);
        let entry = GpuBindGroupLayoutEntry::new(binding, gpu_shader_stage::COMPUTE);
        entry.set_buffer(&layout);
        entry
    };
    let mut entries: Vec<GpuBindGroupLayoutEntry> = plan
        .buffers
        .iter()
        .map(|b| {
            let ty = if b.read_only {
                GpuBufferBindingType::ReadOnlyStorage
            } else {
                GpuBufferBindingType::Storage
            };
            entry(b.binding, ty)
        })
        .collect();
    entries.push(entry(wgsl.uniform_binding, GpuBufferBindingType::Uniform));
    let layout = device
        .create_bind_group_layout(&GpuBindGroupLayoutDescriptor::new(&entries))
        .map_err(|e| device_error("the bind group layout was refused", &e))?;
    let layouts = [js_sys::JsNullable::wrap(layout.clone())];
    let pipeline_layout =
        device.create_pipeline_layout(&GpuPipelineLayoutDescriptor::new(&layouts));
    let stage = GpuProgrammableStage::new(&module);
    stage.set_entry_point(&wgsl.entry_point);
    let pipeline = device
        .create_compute_pipeline(&GpuComputePipelineDescriptor::new(&pipeline_layout, &stage));
    rejected(gpu).await?;
    Ok(Pipeline { layout, pipeline })
}

/// The validation error the device reported since the last `push_error_scope`, if any.
async fn rejected(gpu: &Gpu) -> Result<(), RuntimeError> {
    if let Ok(error) = gpu.device.pop_error_scope().await {
        if let Some(error) = error.as_option() {
            return Err(RuntimeError::Device(format!(
                "the device rejected the kernel: {}",
                error.message()
            )));
        }
    }
    Ok(())
}

/// How a launch is timed: not at all; by up to `n` more dispatches of it after it ran (a
/// kernel alone, over the tensors it left); or by the timestamps its own pass writes into a
/// query set's pair (a program's launch, timed as it runs).
enum Timed<'q> {
    Not,
    Again(u32),
    Stamped(&'q GpuQuerySet, u32),
}

async fn run_launch(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
    pipelines: &Pipelines,
    mut storage: Storage<'_, GpuBuffer>,
    timed: Timed<'_>,
) -> Result<GpuRun, RuntimeError> {
    if let Some(error) = gpu.lost_error("before the run") {
        return Err(error);
    }
    let plan = plan(&gpu.report, kernel, wgsl, args)?;
    let made = pipelines.get(gpu, kernel, wgsl, &plan).await?;
    let device = &gpu.device;
    device.push_error_scope(GpuErrorFilter::Validation);
    let uniform = filled_buffer(gpu, &plan.uniform, usage::UNIFORM)?;
    let mut buffers = Vec::new();
    for b in &plan.buffers {
        let fill = || filled_buffer(gpu, &b.bytes, usage::STORAGE | usage::COPY_SRC);
        let slot = storage.slot(b.param);
        buffers.push(match (slot, &mut storage) {
            (Some(slot), Storage::Device { buffers: kept, .. }) => match kept.get(&slot) {
                Some(made) => made.clone(),
                None => {
                    let made = fill()?;
                    kept.insert(slot, made.clone());
                    made
                }
            },
            _ => fill()?,
        });
    }
    let mut group_entries: Vec<GpuBindGroupEntry> = plan
        .buffers
        .iter()
        .zip(&buffers)
        .map(|(b, buffer)| GpuBindGroupEntry::new_with_gpu_buffer(b.binding, buffer))
        .collect();
    group_entries.push(GpuBindGroupEntry::new_with_gpu_buffer(
        wgsl.uniform_binding,
        &uniform,
    ));
    let group =
        device.create_bind_group(&GpuBindGroupDescriptor::new(&group_entries, &made.layout));
    rejected(gpu).await?;
    let start = now_ms();
    let encoder = device.create_command_encoder();
    let pass = match timed {
        Timed::Stamped(queries, pair) => {
            let writes = GpuComputePassTimestampWrites::new(queries);
            writes.set_beginning_of_pass_write_index(2 * pair);
            writes.set_end_of_pass_write_index(2 * pair + 1);
            let descriptor = GpuComputePassDescriptor::new();
            descriptor.set_timestamp_writes(&writes);
            encoder.begin_compute_pass_with_descriptor(&descriptor)
        }
        _ => encoder.begin_compute_pass(),
    };
    pass.set_pipeline(&made.pipeline);
    pass.set_bind_group(0, Some(&group));
    let [x, y, z] = plan.grid;
    pass.dispatch_workgroups_with_workgroup_count_y_and_workgroup_count_z(x, y, z);
    pass.end();
    let mut written = Vec::new();
    let mut kept = Vec::new();
    for (b, buffer_of) in plan.buffers.iter().zip(&buffers) {
        // A tensor kept on the device comes back when the walk asks for it.
        if storage.slot(b.param).is_some() {
            kept.push(buffer_of);
            continue;
        }
        if b.read_only {
            continue;
        }
        let size = b.bytes.len().max(4);
        let readback = buffer(device, size, usage::MAP_READ | usage::COPY_DST)?;
        encoder
            .copy_buffer_to_buffer_with_u32_and_u32_and_u32(buffer_of, 0, &readback, 0, size as u32)
            .map_err(|e| device_error("could not copy the results", &e))?;
        written.push((b.param, readback));
    }
    device.queue().submit(&[encoder.finish()]);
    if written.is_empty() {
        // Nothing to read back: the launch's time runs to the GPU's finishing it.
        let _ = device.queue().on_submitted_work_done().await;
    }
    for (param, readback) in &written {
        let bytes = mapped(gpu, readback).await?;
        readback.destroy();
        read_back(args, wgsl, *param, &bytes)?;
    }
    let elapsed = Duration::from_secs_f64((now_ms() - start).max(0.0) / 1000.0);
    let again = match timed {
        Timed::Again(n) => n,
        _ => 0,
    };
    let dispatches = crate::dispatches_within(elapsed, again);
    let timing = if dispatches > 0 && gpu.report.timestamps {
        Ok(time_dispatches(gpu, &made.pipeline, &group, plan.grid, dispatches).await?)
    } else {
        Err(crate::untimed(gpu.report.timestamps, true, again > 0).to_owned())
    };
    for buffer_of in buffers.iter().chain([&uniform]) {
        if !kept.contains(&buffer_of) {
            buffer_of.destroy();
        }
    }
    Ok(GpuRun { elapsed, timing })
}

/// `dispatches` dispatches of a pipeline over its bound buffers, each in a pass of its own
/// with timestamps written at its start and end (WebGPU's are in nanoseconds), and their times.
async fn time_dispatches(
    gpu: &Gpu,
    pipeline: &GpuComputePipeline,
    group: &web_sys::GpuBindGroup,
    grid: [u32; 3],
    dispatches: u32,
) -> Result<crate::Timing, RuntimeError> {
    let device = &gpu.device;
    let count = 2 * dispatches;
    let queries = device
        .create_query_set(&GpuQuerySetDescriptor::new(count, GpuQueryType::Timestamp))
        .map_err(|e| device_error("could not make the timestamps' query set", &e))?;
    let encoder = device.create_command_encoder();
    for k in 0..dispatches {
        let writes = GpuComputePassTimestampWrites::new(&queries);
        writes.set_beginning_of_pass_write_index(2 * k);
        writes.set_end_of_pass_write_index(2 * k + 1);
        let descriptor = GpuComputePassDescriptor::new();
        descriptor.set_timestamp_writes(&writes);
        let pass = encoder.begin_compute_pass_with_descriptor(&descriptor);
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, Some(group));
        let [x, y, z] = grid;
        pass.dispatch_workgroups_with_workgroup_count_y_and_workgroup_count_z(x, y, z);
        pass.end();
    }
    let ticks = read_queries(gpu, encoder, &queries, count).await;
    queries.destroy();
    Ok(crate::Timing::from_ticks(&ticks?, 1.0))
}

/// The first `count` timestamps of `queries`, resolved and read back after what `encoder`
/// holds (WebGPU's are in nanoseconds).
async fn read_queries(
    gpu: &Gpu,
    encoder: web_sys::GpuCommandEncoder,
    queries: &GpuQuerySet,
    count: u32,
) -> Result<Vec<u64>, RuntimeError> {
    let device = &gpu.device;
    let size = count as usize * 8;
    let resolved = buffer(device, size, usage::QUERY_RESOLVE | usage::COPY_SRC)?;
    let readback = buffer(device, size, usage::MAP_READ | usage::COPY_DST)?;
    encoder.resolve_query_set_with_u32(queries, 0, count, &resolved, 0);
    encoder
        .copy_buffer_to_buffer_with_u32_and_u32_and_u32(&resolved, 0, &readback, 0, size as u32)
        .map_err(|e| device_error("could not copy the timestamps", &e))?;
    device.queue().submit(&[encoder.finish()]);
    let bytes = mapped(gpu, &readback).await;
    for made in [&resolved, &readback] {
        made.destroy();
    }
    Ok(compiler_core::timing::resolved_ticks(&bytes?))
}
