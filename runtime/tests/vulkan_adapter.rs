//! The native GPU the tests rely on: wgpu must find a Vulkan adapter (Mesa's lavapipe on a
//! machine without a GPU) that offers subgroups, and a subgroup shader must run on it.

use runtime::{open, probe, Gpu};
use wgpu::util::DeviceExt;

fn opened() -> Gpu {
    match pollster::block_on(open()) {
        Ok(gpu) => gpu,
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn finds_a_vulkan_adapter_with_subgroups() {
    let report = match pollster::block_on(probe()) {
        Ok(report) => report,
        Err(error) => panic!("{error}"),
    };
    assert_eq!(report.backend, "vulkan", "{report}");
    assert!(
        report.subgroups,
        "the adapter offers no subgroups:\n{report}"
    );
    assert!(report.subgroup_min_size.is_power_of_two(), "{report}");
    assert!(
        report.subgroup_min_size <= report.subgroup_max_size,
        "{report}"
    );
    assert!(report.max_invocations_per_workgroup >= 256, "{report}");
}

/// Every invocation writes the sum of its subgroup's invocation indices, which a host can
/// predict from the subgroup size alone.
const SUBGROUP_SUM: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) index: u32) {
    out[index] = subgroupAdd(index);
}
"#;

#[test]
fn a_subgroup_shader_runs_and_sums_each_subgroup() {
    let Gpu {
        device,
        queue,
        report,
    } = opened();
    let Some(width) = report.fixed_subgroup_size() else {
        panic!("the adapter's subgroup size is not fixed:\n{report}");
    };
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("subgroup sum"),
        source: wgpu::ShaderSource::Wgsl(SUBGROUP_SUM.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("subgroup sum"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bytes = (64 * std::mem::size_of::<u32>()) as u64;
    let out = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("out"),
        contents: &[0; 64 * 4],
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.as_entire_binding(),
        }],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&out, 0, &readback, 0, bytes);
    queue.submit([encoder.finish()]);
    readback.slice(..).map_async(wgpu::MapMode::Read, |result| {
        assert!(result.is_ok(), "mapping the read-back buffer failed");
    });
    let within_a_minute = wgpu::PollType::Wait {
        submission_index: None,
        timeout: Some(std::time::Duration::from_secs(60)),
    };
    if let Err(error) = device.poll(within_a_minute) {
        panic!("the GPU did not finish: {error}");
    }
    let mapped = match readback.slice(..).get_mapped_range() {
        Ok(view) => view,
        Err(error) => panic!("the read-back buffer is not mapped: {error}"),
    };
    let got: Vec<u32> = mapped
        .chunks_exact(4)
        .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
        .collect();
    let expected: Vec<u32> = (0..64u32)
        .map(|index| {
            let first = index / width * width;
            (first..first + width).sum()
        })
        .collect();
    assert_eq!(got, expected, "subgroup size {width}");
}

#[test]
fn the_lane_probe_checks_lavapipes_subgroups_before_they_stand_in_for_warps() {
    let gpu = opened();
    let Some(size) = gpu.report.fixed_subgroup_size() else {
        assert!(!gpu.report.lanes_follow_index);
        return;
    };
    // Lavapipe cuts its subgroups from consecutive invocations: the probe finds it so, and
    // subgroup mode is chosen for warps of its width.
    assert!(gpu.report.lanes_follow_index, "{}", gpu.report);
    assert_eq!(
        gpu.report.warp_mode(size),
        compiler_core::wgsl::WarpMode::Subgroups
    );
    // The probe means what it claims: on the simulator every thread reads its own index back.
    let launch = compiler_core::launch::Launch {
        lanes: size,
        ..Default::default()
    };
    let out = compiler_core::compile(runtime::LANE_PROBE)
        .run(&launch)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let Some(compiler_core::sim::Arg::Tensor(t)) = out.args.params.first() else {
        panic!("no Out")
    };
    assert!(t.bits.iter().enumerate().all(|(i, &b)| b as usize == i));
    // Where the probe fails, warps are emulated instead.
    let mut unordered = gpu.report.clone();
    unordered.lanes_follow_index = false;
    assert_eq!(
        unordered.warp_mode(size),
        compiler_core::wgsl::WarpMode::Emulated
    );
}
