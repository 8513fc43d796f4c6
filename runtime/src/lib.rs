//! Runs Tessera kernels on a GPU through wgpu.
//!
//! In: the machine's GPUs (Vulkan natively, WebGPU in the browser). Out: a device and queue to
//! launch kernels on, and an [`AdapterReport`] that says what the GPU offers for Tessera: above
//! all whether it has subgroups and how wide they are, which decides between the subgroup and
//! the emulated-warp WGSL modes.
//!
//! Invariant: this crate is the only one that touches wgpu; the compiler core never does.

mod launch;

pub use launch::{run, GpuRun};

use serde::{Deserialize, Serialize};
use std::fmt;

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
}

impl AdapterReport {
    /// Subgroups can stand in for warps only when every subgroup has the same width.
    pub fn fixed_subgroup_size(&self) -> Option<u32> {
        (self.subgroups && self.subgroup_min_size == self.subgroup_max_size)
            .then_some(self.subgroup_min_size)
    }

    /// Subgroups stand in for `lanes`-wide warps when every subgroup is exactly that wide;
    /// otherwise warps are emulated in workgroup memory.
    pub fn warp_mode(&self, lanes: u32) -> compiler_core::launch::WarpMode {
        if self.fixed_subgroup_size() == Some(lanes) {
            compiler_core::launch::WarpMode::Subgroups
        } else {
            compiler_core::launch::WarpMode::Emulated
        }
    }

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
        }
    }
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
                "subgroups: {} to {} lanes",
                self.subgroup_min_size, self.subgroup_max_size
            )?;
        } else {
            writeln!(f, "subgroups: not offered (warps will be emulated)")?;
        }
        writeln!(
            f,
            "workgroup: up to {} invocations, {} bytes of workgroup storage",
            self.max_invocations_per_workgroup, self.max_workgroup_storage_bytes
        )
    }
}

/// Why no GPU could be opened, or a launch did not run.
#[derive(Debug)]
pub enum RuntimeError {
    NoAdapter(wgpu::RequestAdapterError),
    NoDevice(wgpu::RequestDeviceError),
    /// The kernel does not fit the device: which limit, and by how much.
    Limit(String),
    /// The device rejected the shader or the launch, or was lost, or timed out.
    Device(String),
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoAdapter(error) => write!(
                f,
                "no GPU adapter was found ({error}); natively Tessera needs a Vulkan driver, \
                 for example Mesa's lavapipe (Debian package mesa-vulkan-drivers)"
            ),
            Self::NoDevice(error) => write!(f, "the GPU adapter refused a device: {error}"),
            Self::Limit(message) => write!(f, "the kernel does not fit this GPU: {message}"),
            Self::Device(message) => write!(f, "the GPU run failed: {message}"),
        }
    }
}

impl std::error::Error for RuntimeError {}

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
        .map_err(RuntimeError::NoDevice)?;
    Ok(Gpu {
        device,
        queue,
        report,
    })
}

async fn default_adapter() -> Result<wgpu::Adapter, RuntimeError> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    instance
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(RuntimeError::NoAdapter)
}
