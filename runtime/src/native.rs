//! The native runner: wgpu on Vulkan (Mesa's lavapipe on a machine without a GPU).

use crate::plan::{fill, leave_device, plan, read_back, Plan, PlannedBuffer, Storage};
use crate::{AdapterReport, GpuOutput, GpuRun, RuntimeError};
use compiler_core::cluster;
use compiler_core::ir::Kernel;
use compiler_core::program::{LaunchRecord, PreparedProgram, ProgramError, ProgramOutput, Runner};
use compiler_core::sim::{Args, Stats, Tensor};
use compiler_core::wgsl::{WarpMode, Wgsl};
use compiler_core::PreparedRun;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

/// How long a launch may take before it counts as hung.
const TIMEOUT: Duration = Duration::from_secs(60);

impl AdapterReport {
    fn of(adapter: &wgpu::Adapter) -> Self {
        let info = adapter.get_info();
        let limits = adapter.limits();
        Self {
            name: info.name,
            backend: info.backend.to_str().to_owned(),
            device_type: format!("{:?}", info.device_type).to_lowercase(),
            driver: info.driver,
            subgroups: adapter.features().contains(wgpu::Features::SUBGROUP),
            subgroup_min_size: info.subgroup_min_size,
            subgroup_max_size: info.subgroup_max_size,
            max_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
            max_workgroup_storage_bytes: limits.max_compute_workgroup_storage_size,
            max_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            max_storage_buffers: limits.max_storage_buffers_per_shader_stage,
            max_storage_buffer_bytes: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            timestamps: adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY),
            lanes_follow_index: false,
        }
    }
}
/// An opened GPU: the device and queue kernels run on, and what the adapter offers. A clone
/// shares the device (wgpu's handles are counted), so a host may open it once and keep it.
#[derive(Clone)]
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub report: AdapterReport,
}

/// Finds the default adapter and describes it, without opening a device.
pub async fn probe() -> Result<AdapterReport, RuntimeError> {
    Ok(AdapterReport::of(&default_adapter().await?))
}

/// Opens the default adapter's device, with subgroups enabled whenever the adapter offers them.
pub async fn open() -> Result<Gpu, RuntimeError> {
    let adapter = default_adapter().await?;
    let report = AdapterReport::of(&adapter);
    let mut required_features = wgpu::Features::empty();
    if report.subgroups {
        required_features |= wgpu::Features::SUBGROUP;
    }
    if report.timestamps {
        required_features |= wgpu::Features::TIMESTAMP_QUERY;
    }
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("tessera"),
        required_features,
        // Kernels are checked against the adapter's own limits, so ask for all of them.
        required_limits: adapter.limits(),
        ..Default::default()
    };
    let (device, queue) = adapter
        .request_device(&descriptor)
        .await
        .map_err(|error| RuntimeError::NoDevice(error.to_string()))?;
    let mut gpu = Gpu {
        device,
        queue,
        report,
    };
    gpu.report.lanes_follow_index = lanes_follow_index(&gpu);
    Ok(gpu)
}

/// Runs the [`crate::LANE_PROBE`] in subgroup mode: whether the lanes follow the index.
fn lanes_follow_index(gpu: &Gpu) -> bool {
    let Some(launch) = crate::lane_probe_launch(&gpu.report) else {
        return false;
    };
    let compilation = compiler_core::compile(crate::LANE_PROBE);
    let Ok(prepared) = compilation.prepare(&launch, compiler_core::RunLimits::TERMINAL) else {
        return false;
    };
    run(gpu, &prepared, WarpMode::Subgroups).is_ok_and(|out| crate::lanes_follow_index(&out.args))
}

async fn default_adapter() -> Result<wgpu::Adapter, RuntimeError> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|error| {
            RuntimeError::NoAdapter(format!(
                "{error}; natively Tessera needs a Vulkan driver, for example Mesa's lavapipe \
                 (Debian package mesa-vulkan-drivers)"
            ))
        })
}

/// Runs a prepared launch with its warps as `mode` gives them: its WGSL, over a copy of its
/// arguments, which come back as the kernel left them.
pub fn run(
    gpu: &Gpu,
    prepared: &PreparedRun<'_>,
    mode: WarpMode,
) -> Result<GpuOutput, RuntimeError> {
    run_timed(gpu, prepared, mode, 0)
}

/// [`run`], then, when the GPU has timestamps, up to `dispatches` more dispatches of the kernel
/// timed ([`crate::Timing`]; [`crate::dispatches_within`] a second). A kernel under
/// `@cluster` is not timed.
pub fn run_timed(
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
    )?;
    output.elapsed = ran.elapsed;
    output.timing = ran.timing;
    Ok(output)
}

/// Runs `wgsl` over `args.grid` and copies every written tensor back into `args`; a kernel
/// under `@cluster` runs one launch per super-tile, over its slices (`compiler_core::cluster`).
/// For a part of a launch (an MPI rank's super-tile) or WGSL of one's own; [`run`] is the
/// usual door.
/// A program's launches on the GPU, one after another (`compiler_core::program`'s walk), over
/// buffers that stay on the device: a tensor goes up before the first launch that uses it and
/// comes back only when the walk reads it (a `while` condition's element, the results at the
/// end). Each kernel's pipeline is made once and shared by its launches.
pub fn run_program(
    gpu: &Gpu,
    prepared: &PreparedProgram<'_>,
    mode: WarpMode,
) -> Result<ProgramOutput, ProgramError<RuntimeError>> {
    let mut runner = Resident {
        gpu,
        prepared,
        mode,
        pipelines: Pipelines::default(),
        buffers: HashMap::new(),
    };
    // Every launch and read finishes before its future is polled: the walk never waits.
    pollster::block_on(prepared.execute_with(&mut runner))
}

/// The native runner of a program's launches, and the device buffer of each storage slot
/// uploaded so far.
struct Resident<'g, 'p, 'm> {
    gpu: &'g Gpu,
    prepared: &'p PreparedProgram<'m>,
    mode: WarpMode,
    pipelines: Pipelines,
    buffers: HashMap<usize, wgpu::Buffer>,
}

impl<'m> Runner<'m> for Resident<'_, '_, 'm> {
    type Error = RuntimeError;

    fn launch(
        &mut self,
        kernel: &'m Kernel,
        mut args: Args,
        slots: Vec<Option<usize>>,
        _: LaunchRecord,
    ) -> impl Future<Output = (Args, Result<Stats, RuntimeError>)> {
        let result = self.launch_now(kernel, &mut args, &slots);
        std::future::ready((args, result.map(|()| Stats::default())))
    }

    fn fetch(
        &mut self,
        slot: usize,
        mut tensor: Tensor,
    ) -> impl Future<Output = Result<Tensor, RuntimeError>> {
        let read = match self.buffers.get(&slot) {
            Some(buffer) => read_buffer(self.gpu, buffer).map(|bytes| fill(&mut tensor, &bytes)),
            None => Ok(()),
        };
        std::future::ready(read.map(|()| tensor))
    }
}

impl Resident<'_, '_, '_> {
    fn launch_now(
        &mut self,
        kernel: &Kernel,
        args: &mut Args,
        slots: &[Option<usize>],
    ) -> Result<(), RuntimeError> {
        let wgsl = self
            .prepared
            .wgsl(kernel, self.mode)
            .map_err(|d| RuntimeError::Wgsl(d.message))?;
        if kernel.cluster.is_some() {
            // Super-tiles run over slices of the tensors, on the host's copies: the device's
            // come back first, and the host's stand after.
            for (tensor, buffer) in leave_device(slots, args, &mut self.buffers) {
                fill(tensor, &read_buffer(self.gpu, &buffer)?);
            }
            return run_wgsl_with(self.gpu, kernel, &wgsl, args, &self.pipelines, 0).map(|_| ());
        }
        let storage = Storage::Device {
            slots,
            buffers: &mut self.buffers,
        };
        run_launch(self.gpu, kernel, &wgsl, args, &self.pipelines, storage, 0).map(|_| ())
    }
}

/// A buffer's bytes, copied back from the device.
fn read_buffer(gpu: &Gpu, buffer: &wgpu::Buffer) -> Result<Vec<u8>, RuntimeError> {
    let device = &gpu.device;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &readback, 0, buffer.size());
    gpu.queue.submit([encoder.finish()]);
    readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    wait(gpu)?;
    let view = readback.slice(..).get_mapped_range().map_err(|error| {
        RuntimeError::Device(format!("could not read the results back: {error}"))
    })?;
    Ok(view.to_vec())
}

/// Waits for the device's work so far.
fn wait(gpu: &Gpu) -> Result<(), RuntimeError> {
    gpu.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(TIMEOUT),
        })
        .map(|_| ())
        .map_err(|error| {
            RuntimeError::Device(format!(
                "the GPU did not finish within {TIMEOUT:?}: {error}"
            ))
        })
}

pub fn run_wgsl(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
) -> Result<GpuRun, RuntimeError> {
    run_wgsl_timed(gpu, kernel, wgsl, args, 0)
}

/// [`run_wgsl`], then up to `dispatches` more dispatches timed, as [`run_timed`] times them: for
/// WGSL of one's own, as the hand-written peers of `runtime/examples/peers.rs`.
pub fn run_wgsl_timed(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
    dispatches: u32,
) -> Result<GpuRun, RuntimeError> {
    run_wgsl_with(gpu, kernel, wgsl, args, &Pipelines::default(), dispatches)
}

/// [`run_wgsl`], taking the kernel's pipeline from `pipelines` when a launch before made it.
fn run_wgsl_with(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
    pipelines: &Pipelines,
    timed: u32,
) -> Result<GpuRun, RuntimeError> {
    if kernel.cluster.is_none() {
        return run_launch(gpu, kernel, wgsl, args, pipelines, Storage::Host, timed);
    }
    let mut elapsed = Duration::ZERO;
    let tiles = cluster::plan(kernel, args, 1);
    cluster::run_tiles(kernel, args, &tiles, None, |part, _| {
        elapsed += run_launch(gpu, kernel, wgsl, part, pipelines, Storage::Host, 0)?.elapsed;
        Ok::<(), RuntimeError>(())
    })?;
    let timing = Err(crate::untimed(gpu.report.timestamps, false, timed > 0).to_owned());
    Ok(GpuRun { elapsed, timing })
}

/// A kernel's WGSL made ready on the device: its bind group's layout and its pipeline. The
/// layout follows the WGSL alone (a binding per tensor, read-only or not, the guard's word, the
/// uniforms), so every launch of the kernel can use it.
struct Pipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// Pipelines made during one run, by kernel name.
#[derive(Default)]
struct Pipelines(RefCell<HashMap<String, Rc<Pipeline>>>);

impl Pipelines {
    /// `kernel`'s pipeline: the one made before, else made now.
    fn get(
        &self,
        gpu: &Gpu,
        kernel: &Kernel,
        wgsl: &Wgsl,
        plan: &Plan,
    ) -> Result<Rc<Pipeline>, RuntimeError> {
        if let Some(made) = self.0.borrow().get(&kernel.name) {
            return Ok(made.clone());
        }
        let made = Rc::new(make_pipeline(gpu, kernel, wgsl, plan)?);
        self.0
            .borrow_mut()
            .insert(kernel.name.clone(), made.clone());
        Ok(made)
    }
}

fn make_pipeline(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    plan: &Plan,
) -> Result<Pipeline, RuntimeError> {
    let device = &gpu.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&kernel.name),
        source: wgpu::ShaderSource::Wgsl(wgsl.text.as_str().into()),
    });
    let buffer_entry = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    // The layout is explicit: a tensor the kernel never touches still has its binding.
    let mut entries: Vec<wgpu::BindGroupLayoutEntry> = plan
        .buffers
        .iter()
        .map(|b| {
            let ty = wgpu::BufferBindingType::Storage {
                read_only: b.read_only,
            };
            buffer_entry(b.binding, ty)
        })
        .collect();
    entries.push(buffer_entry(
        wgsl.uniform_binding,
        wgpu::BufferBindingType::Uniform,
    ));
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(&kernel.name),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(&wgsl.entry_point),
        compilation_options: Default::default(),
        cache: None,
    });
    rejected(scope)?;
    Ok(Pipeline { layout, pipeline })
}

/// The validation error the device reported in `scope`, if any.
fn rejected(scope: wgpu::ErrorScopeGuard) -> Result<(), RuntimeError> {
    match pollster::block_on(scope.pop()) {
        Some(error) => Err(RuntimeError::Device(format!(
            "the device rejected the kernel: {error}"
        ))),
        None => Ok(()),
    }
}

fn run_launch(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
    pipelines: &Pipelines,
    mut storage: Storage<'_, wgpu::Buffer>,
    timed: u32,
) -> Result<GpuRun, RuntimeError> {
    let plan = plan(&gpu.report, kernel, wgsl, args)?;
    let made = pipelines.get(gpu, kernel, wgsl, &plan)?;
    let device = &gpu.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let uniform_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("params"),
        contents: &plan.uniform,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let create = |b: &PlannedBuffer| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: &b.bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        })
    };
    let mut buffers: Vec<wgpu::Buffer> = Vec::new();
    for b in &plan.buffers {
        let slot = storage.slot(b.param);
        buffers.push(match (slot, &mut storage) {
            (Some(slot), Storage::Device { buffers: kept, .. }) => {
                kept.entry(slot).or_insert_with(|| create(b)).clone()
            }
            _ => create(b),
        });
    }
    let mut bind_entries: Vec<wgpu::BindGroupEntry> = plan
        .buffers
        .iter()
        .zip(&buffers)
        .map(|(b, buffer)| wgpu::BindGroupEntry {
            binding: b.binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    bind_entries.push(wgpu::BindGroupEntry {
        binding: wgsl.uniform_binding,
        resource: uniform_buffer.as_entire_binding(),
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &made.layout,
        entries: &bind_entries,
    });
    rejected(scope)?;
    let start = Instant::now();
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&made.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        let [x, y, z] = plan.grid;
        pass.dispatch_workgroups(x, y, z);
    }
    let mut written = Vec::new();
    for (b, buffer) in plan.buffers.iter().zip(&buffers) {
        // A tensor kept on the device comes back when the walk asks for it.
        if b.read_only || storage.slot(b.param).is_some() {
            continue;
        }
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: buffer.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(buffer, 0, &readback, 0, buffer.size());
        written.push((b.param, readback));
    }
    gpu.queue.submit([encoder.finish()]);
    for (_, readback) in &written {
        readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    }
    wait(gpu)?;
    let elapsed = start.elapsed();
    for (param, readback) in &written {
        let view = readback.slice(..).get_mapped_range().map_err(|error| {
            RuntimeError::Device(format!("could not read the results back: {error}"))
        })?;
        read_back(args, wgsl, *param, &view)?;
    }
    let dispatches = crate::dispatches_within(elapsed, timed);
    let timing = if dispatches > 0 && gpu.report.timestamps {
        Ok(time_dispatches(
            gpu,
            &made.pipeline,
            &bind_group,
            plan.grid,
            dispatches,
        )?)
    } else {
        Err(crate::untimed(gpu.report.timestamps, true, timed > 0).to_owned())
    };
    Ok(GpuRun { elapsed, timing })
}

/// `dispatches` dispatches of a pipeline over its bound buffers, each in a pass of its own
/// with timestamps written at its start and end, and their times.
fn time_dispatches(
    gpu: &Gpu,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    grid: [u32; 3],
    dispatches: u32,
) -> Result<crate::Timing, RuntimeError> {
    let device = &gpu.device;
    let count = 2 * dispatches;
    let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("timing"),
        ty: wgpu::QueryType::Timestamp,
        count,
    });
    let size = u64::from(count) * 8;
    let resolved = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("timestamps"),
        size,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("timestamps read back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    for k in 0..dispatches {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(2 * k),
                end_of_pass_write_index: Some(2 * k + 1),
            }),
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        let [x, y, z] = grid;
        pass.dispatch_workgroups(x, y, z);
    }
    encoder.resolve_query_set(&queries, 0..count, &resolved, 0);
    encoder.copy_buffer_to_buffer(&resolved, 0, &readback, 0, size);
    gpu.queue.submit([encoder.finish()]);
    readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    wait(gpu)?;
    let view = readback.slice(..).get_mapped_range().map_err(|error| {
        RuntimeError::Device(format!("could not read the timestamps back: {error}"))
    })?;
    Ok(crate::Timing::from_resolved(
        &view,
        f64::from(gpu.queue.get_timestamp_period()),
    ))
}
