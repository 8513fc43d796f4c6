//! The native runner: wgpu on Vulkan (Mesa's lavapipe on a machine without a GPU).

use crate::plan::{plan, read_back, Plan};
use crate::{AdapterReport, GpuOutput, GpuRun, RuntimeError};
use compiler_core::cluster;
use compiler_core::ir::Kernel;
use compiler_core::program::{PreparedProgram, ProgramError, ProgramOutput};
use compiler_core::sim::Args;
use compiler_core::wgsl::{WarpMode, Wgsl};
use compiler_core::PreparedRun;
use std::cell::RefCell;
use std::collections::HashMap;
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
            lanes_follow_index: false,
        }
    }
}
/// An opened GPU: the device and queue kernels run on, and what the adapter offers.
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
    let required_features = if report.subgroups {
        wgpu::Features::SUBGROUP
    } else {
        wgpu::Features::empty()
    };
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
    let (wgsl, mut output) = GpuOutput::start(prepared, mode)?;
    output.elapsed = run_wgsl(gpu, prepared.kernel, &wgsl, &mut output.args)?.elapsed;
    Ok(output)
}

/// Runs `wgsl` over `args.grid` and copies every written tensor back into `args`; a kernel
/// under `@cluster` runs one launch per super-tile, over its slices (`compiler_core::cluster`).
/// For a part of a launch (an MPI rank's super-tile) or WGSL of one's own; [`run`] is the
/// usual door.
/// A program's launches on the GPU, one after another (`compiler_core::program`'s walk):
/// each launch's tensors go up before it and come back after it, as a kernel's launch's do,
/// so a `while` condition reads what the last launch left. Each kernel's pipeline is made once
/// and shared by its launches.
pub fn run_program(
    gpu: &Gpu,
    prepared: &PreparedProgram<'_>,
    mode: WarpMode,
) -> Result<ProgramOutput, ProgramError<RuntimeError>> {
    let pipelines = Pipelines::default();
    prepared.execute(|kernel, args, _| {
        let wgsl = prepared
            .wgsl(kernel, mode)
            .map_err(|d| RuntimeError::Wgsl(d.message))?;
        run_wgsl_with(gpu, kernel, &wgsl, args, &pipelines)?;
        Ok(compiler_core::sim::Stats::default())
    })
}

pub fn run_wgsl(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
) -> Result<GpuRun, RuntimeError> {
    run_wgsl_with(gpu, kernel, wgsl, args, &Pipelines::default())
}

/// [`run_wgsl`], taking the kernel's pipeline from `pipelines` when a launch before made it.
fn run_wgsl_with(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
    pipelines: &Pipelines,
) -> Result<GpuRun, RuntimeError> {
    if kernel.cluster.is_none() {
        return run_launch(gpu, kernel, wgsl, args, pipelines);
    }
    let mut elapsed = Duration::ZERO;
    let tiles = cluster::plan(kernel, args, 1);
    cluster::run_tiles(kernel, args, &tiles, None, |part, _| {
        elapsed += run_launch(gpu, kernel, wgsl, part, pipelines)?.elapsed;
        Ok::<(), RuntimeError>(())
    })?;
    Ok(GpuRun { elapsed })
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
    let buffers: Vec<wgpu::Buffer> = plan
        .buffers
        .iter()
        .map(|b| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: &b.bytes,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            })
        })
        .collect();
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
        if b.read_only {
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
    device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(TIMEOUT),
        })
        .map_err(|error| {
            RuntimeError::Device(format!(
                "the GPU did not finish within {TIMEOUT:?}: {error}"
            ))
        })?;
    let elapsed = start.elapsed();
    for (param, readback) in &written {
        let view = readback.slice(..).get_mapped_range().map_err(|error| {
            RuntimeError::Device(format!("could not read the results back: {error}"))
        })?;
        read_back(args, wgsl, *param, &view)?;
    }
    Ok(GpuRun { elapsed })
}
