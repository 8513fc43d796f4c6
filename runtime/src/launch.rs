//! Running a kernel's WGSL on an opened GPU.
//!
//! In: a [`Gpu`], the IR kernel, its [`Wgsl`] and the simulator's [`Args`] (the same bound
//! launch the simulator runs). Out: the written tensors copied back into `args`, and the time
//! the GPU took; or a [`RuntimeError`] that says what failed (a limit and by how much, a shader
//! the device rejects, a lost device, a timeout), never a panic.

use crate::{Gpu, RuntimeError};
use compiler_core::ir::{Kernel, Param};
use compiler_core::sim::{Arg, Args};
use compiler_core::wgsl::Wgsl;
use std::time::{Duration, Instant};
use wgpu::util::DeviceExt;

/// What a GPU run measured.
#[derive(Clone, Copy, Debug)]
pub struct GpuRun {
    /// From submitting the dispatch to the results being mapped for reading.
    pub elapsed: Duration,
}

/// How long a launch may take before it counts as hung.
const TIMEOUT: Duration = Duration::from_secs(60);

fn check_limits(gpu: &Gpu, wgsl: &Wgsl, args: &Args) -> Result<(), RuntimeError> {
    let limits = gpu.device.limits();
    if wgsl.workgroup_size > limits.max_compute_invocations_per_workgroup {
        return Err(RuntimeError::Limit(format!(
            "@launch({}) asks for {} invocations per workgroup; this GPU allows {}",
            wgsl.workgroup_size, wgsl.workgroup_size, limits.max_compute_invocations_per_workgroup
        )));
    }
    if wgsl.workgroup_bytes > u64::from(limits.max_compute_workgroup_storage_size) {
        return Err(RuntimeError::Limit(format!(
            "the tiles take {} bytes of workgroup memory; this GPU has {} ({} too many)",
            wgsl.workgroup_bytes,
            limits.max_compute_workgroup_storage_size,
            wgsl.workgroup_bytes - u64::from(limits.max_compute_workgroup_storage_size)
        )));
    }
    let most = limits.max_compute_workgroups_per_dimension;
    for (axis, n) in [("x", args.grid.x), ("y", args.grid.y), ("z", args.grid.z)] {
        if n > most {
            return Err(RuntimeError::Limit(format!(
                "the grid has {n} CTAs along {axis}; this GPU dispatches at most {most}"
            )));
        }
    }
    if wgsl.uses_subgroups && gpu.report.fixed_subgroup_size() != Some(wgsl.lanes) {
        return Err(RuntimeError::Limit(format!(
            "subgroup mode needs subgroups of exactly {} lanes; this GPU's are {} to {}",
            wgsl.lanes, gpu.report.subgroup_min_size, gpu.report.subgroup_max_size
        )));
    }
    Ok(())
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs the kernel over `args.grid` and copies every written tensor back into `args`.
pub fn run(
    gpu: &Gpu,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &mut Args,
) -> Result<GpuRun, RuntimeError> {
    check_limits(gpu, wgsl, args)?;
    let device = &gpu.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(&kernel.name),
        source: wgpu::ShaderSource::Wgsl(wgsl.text.as_str().into()),
    });
    // The layout is explicit: a tensor the kernel never touches still has its binding.
    let mut entries: Vec<wgpu::BindGroupLayoutEntry> = wgsl
        .tensors
        .iter()
        .map(|t| wgpu::BindGroupLayoutEntry {
            binding: t.binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage {
                    read_only: t.read_only,
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    entries.push(wgpu::BindGroupLayoutEntry {
        binding: wgsl.uniform_binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    });
    let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bind_layout)],
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
    // Dimension values, then scalars, 4 bytes each, padded as the uniform struct is.
    let mut uniform: Vec<u32> = args.dims.iter().map(|d| *d as u32).collect();
    for (param, arg) in kernel.params.iter().zip(&args.params) {
        if let (Param::Scalar { .. }, Arg::Scalar(bits)) = (param, arg) {
            uniform.push(*bits);
        }
    }
    uniform.resize((wgsl.uniform_bytes / 4) as usize, 0);
    let uniform_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("params"),
        contents: &bytes(&uniform),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let mut buffers = Vec::new();
    for binding in &wgsl.tensors {
        let Some(Arg::Tensor(tensor)) = args.params.get(binding.param) else {
            return Err(RuntimeError::Device(format!(
                "no data for tensor `{}`",
                binding.name
            )));
        };
        // wgpu refuses empty buffers: an empty tensor still gets one element.
        let mut words = tensor.bits.clone();
        if words.is_empty() {
            words.push(0);
        }
        buffers.push(
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(&binding.name),
                contents: &bytes(&words),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            }),
        );
    }
    let mut bind_entries: Vec<wgpu::BindGroupEntry> = wgsl
        .tensors
        .iter()
        .zip(&buffers)
        .map(|(t, buffer)| wgpu::BindGroupEntry {
            binding: t.binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    bind_entries.push(wgpu::BindGroupEntry {
        binding: wgsl.uniform_binding,
        resource: uniform_buffer.as_entire_binding(),
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &bind_layout,
        entries: &bind_entries,
    });
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Err(RuntimeError::Device(format!(
            "the device rejected the kernel: {error}"
        )));
    }
    let written: Vec<(usize, wgpu::Buffer, u64)> = wgsl
        .tensors
        .iter()
        .zip(&buffers)
        .filter(|(t, _)| !t.read_only)
        .map(|(t, buffer)| {
            let size = buffer.size();
            let readback = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (t.param, readback, size)
        })
        .collect();
    let start = Instant::now();
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(args.grid.x, args.grid.y, args.grid.z);
    }
    for ((_, readback, size), binding) in written.iter().zip(
        wgsl.tensors
            .iter()
            .zip(&buffers)
            .filter(|(t, _)| !t.read_only),
    ) {
        encoder.copy_buffer_to_buffer(binding.1, 0, readback, 0, *size);
    }
    gpu.queue.submit([encoder.finish()]);
    for (_, readback, _) in &written {
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
    for (param, readback, _) in &written {
        let view = readback.slice(..).get_mapped_range().map_err(|error| {
            RuntimeError::Device(format!("could not read the results back: {error}"))
        })?;
        if let Some(Arg::Tensor(tensor)) = args.params.get_mut(*param) {
            let count = tensor.bits.len();
            tensor.bits = view
                .chunks_exact(4)
                .take(count)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect();
        }
    }
    Ok(GpuRun { elapsed })
}
