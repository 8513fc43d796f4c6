//! What a launch needs from any GPU API, worked out once for the native (wgpu) and the browser
//! (WebGPU through web-sys) runners: the device's limits checked, each tensor's storage buffer
//! and the uniform buffer as bytes, and how the results go back into the simulator's [`Args`].
//!
//! Invariant: the binding layout is the one [`Wgsl`] documents (one storage buffer per tensor,
//! read-only when never written; dimension values then scalars in one uniform buffer, 4 bytes
//! each, padded as the uniform struct is); the grid is the dispatch size.

use crate::{AdapterReport, RuntimeError};
use compiler_core::ir::{Kernel, Param};
use compiler_core::sim::{Arg, Args, Tensor};
use compiler_core::wgsl::Wgsl;
use std::collections::HashMap;

pub(crate) struct Plan {
    pub uniform: Vec<u8>,
    pub buffers: Vec<PlannedBuffer>,
    pub grid: [u32; 3],
}

pub(crate) struct PlannedBuffer {
    pub binding: u32,
    /// The tensor's index in the kernel's parameters (and in `Args::params`); `None` for the
    /// loop guard's word.
    pub param: Option<usize>,
    pub read_only: bool,
    /// Never empty: GPU APIs refuse empty buffers, so an empty tensor gets one element.
    pub bytes: Vec<u8>,
}

pub(crate) fn plan(
    report: &AdapterReport,
    kernel: &Kernel,
    wgsl: &Wgsl,
    args: &Args,
) -> Result<Plan, RuntimeError> {
    check_limits(report, wgsl, args)?;
    let mut uniform: Vec<u32> = args.dims.iter().map(|d| *d as u32).collect();
    for (param, arg) in kernel.params.iter().zip(&args.params) {
        if let (Param::Scalar { ty, .. }, Arg::Scalar(bits)) = (param, arg) {
            let [low, high] = compiler_core::ir::split_words(*bits);
            uniform.push(low);
            if ty.is_wide() {
                uniform.push(high);
            }
        }
    }
    uniform.resize((wgsl.uniform_bytes / 4) as usize, 0);
    let mut buffers = Vec::new();
    for binding in &wgsl.tensors {
        let Some(Arg::Tensor(tensor)) = args.params.get(binding.param) else {
            return Err(RuntimeError::Device(format!(
                "no data for tensor `{}`",
                binding.name
            )));
        };
        buffers.push(PlannedBuffer {
            binding: binding.binding,
            param: Some(binding.param),
            read_only: binding.read_only,
            bytes: bytes(&tensor.memory_words()),
        });
    }
    if let Some(guard) = &wgsl.guard {
        buffers.push(PlannedBuffer {
            binding: guard.binding,
            param: None,
            read_only: false,
            bytes: bytes(&[0]),
        });
    }
    Ok(Plan {
        uniform: bytes(&uniform),
        buffers,
        grid: [args.grid.x, args.grid.y, args.grid.z],
    })
}

/// Copies a written tensor's bytes, as read back from the GPU, into `args`; the loop guard's
/// word (`param` `None`) says whether a loop ran past its budget.
pub(crate) fn read_back(
    args: &mut Args,
    wgsl: &Wgsl,
    param: Option<usize>,
    bytes: &[u8],
) -> Result<(), RuntimeError> {
    let words = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    match param {
        Some(param) => {
            if let Some(Arg::Tensor(tensor)) = args.params.get_mut(param) {
                fill(tensor, bytes);
            }
            Ok(())
        }
        None => {
            let word = words.take(1).sum();
            match wgsl
                .guard
                .as_ref()
                .and_then(|g| Some((g.runaway(word)?, g.budget)))
            {
                Some(((span, by), budget)) => Err(RuntimeError::Runaway { span, budget, by }),
                None => Ok(()),
            }
        }
    }
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The device's limits against the kernel: which limit, and by how much.
fn check_limits(report: &AdapterReport, wgsl: &Wgsl, args: &Args) -> Result<(), RuntimeError> {
    if wgsl.workgroup_size > report.max_invocations_per_workgroup {
        return Err(RuntimeError::Limit(format!(
            "@launch({}) asks for {} invocations per workgroup; this GPU allows {}",
            wgsl.workgroup_size, wgsl.workgroup_size, report.max_invocations_per_workgroup
        )));
    }
    let storage = u64::from(report.max_workgroup_storage_bytes);
    if wgsl.workgroup_bytes > storage {
        return Err(RuntimeError::Limit(format!(
            "the tiles take {} bytes of workgroup memory; this GPU has {storage} ({} too many)",
            wgsl.workgroup_bytes,
            wgsl.workgroup_bytes - storage
        )));
    }
    let buffers = wgsl.tensors.len() + usize::from(wgsl.guard.is_some());
    let bindable = report.max_storage_buffers as usize;
    if buffers > bindable {
        let guard = if wgsl.guard.is_some() {
            " and the loop guard's word"
        } else {
            ""
        };
        return Err(RuntimeError::Limit(format!(
            "the kernel binds {buffers} storage buffers (one per tensor{guard}); this GPU binds at most {bindable} to a kernel: pass fewer tensors, or stack several into one with a leading dimension"
        )));
    }
    // Each tensor is one storage buffer: one past the device's binding size is its validation
    // error ("device rejected the kernel") unless it is named here first.
    for binding in &wgsl.tensors {
        let Some(Arg::Tensor(tensor)) = args.params.get(binding.param) else {
            continue;
        };
        let bytes = 4 * tensor.memory_words().len() as u64;
        if bytes > report.max_storage_buffer_bytes {
            return Err(RuntimeError::Limit(format!(
                "`{}` takes {bytes} bytes ({} elements of {}); this GPU binds at most {} bytes to one buffer: run it on the simulator, or split it into smaller tensors",
                binding.name,
                tensor.len(),
                tensor.element.name(),
                report.max_storage_buffer_bytes
            )));
        }
    }
    let most = report.max_workgroups_per_dimension;
    for (axis, n) in [("x", args.grid.x), ("y", args.grid.y), ("z", args.grid.z)] {
        if n > most {
            return Err(RuntimeError::Limit(format!(
                "the grid has {n} CTAs along {axis}; this GPU dispatches at most {most}"
            )));
        }
    }
    if wgsl.uses_subgroups && report.fixed_subgroup_size() != Some(wgsl.lanes) {
        let theirs = if report.subgroup_min_size == report.subgroup_max_size {
            format!("{} lanes", report.subgroup_min_size)
        } else {
            format!(
                "{} to {} lanes, picked per pipeline",
                report.subgroup_min_size, report.subgroup_max_size
            )
        };
        return Err(RuntimeError::Limit(format!(
            "subgroup mode needs subgroups of exactly {} lanes; this GPU's are {theirs}",
            wgsl.lanes
        )));
    }
    Ok(())
}

/// A tensor's elements from its buffer's bytes, as read back (a buffer may be longer: an
/// empty tensor's has one word; an `f16` tensor's holds two elements a word).
pub(crate) fn fill(tensor: &mut Tensor, bytes: &[u8]) {
    tensor.set_from_memory(
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])),
    );
}

/// Where a launch's tensors live: uploaded for the launch and read back after it, or, for a
/// program's launch, in device buffers (`B`: the GPU API's) that outlive it, one per storage
/// slot (`compiler_core::program::Runner`).
pub(crate) enum Storage<'a, B> {
    Host,
    Device {
        slots: &'a [Option<usize>],
        buffers: &'a mut HashMap<usize, B>,
    },
}

impl<B> Storage<'_, B> {
    /// The storage slot of tensor parameter `param`, when it lives on the device.
    pub(crate) fn slot(&self, param: Option<usize>) -> Option<usize> {
        match self {
            Storage::Host => None,
            Storage::Device { slots, .. } => slots.get(param?).copied().flatten(),
        }
    }
}

/// For a launch that runs over the host's copies (a kernel under `@cluster`, whose super-tiles
/// are slices): each tensor parameter whose slot lives on the device, with its buffer, which
/// leaves `buffers` (the host's copy stands after the launch). The caller reads each buffer
/// into its tensor.
pub(crate) fn leave_device<'a, B>(
    slots: &[Option<usize>],
    args: &'a mut Args,
    buffers: &mut HashMap<usize, B>,
) -> Vec<(&'a mut Tensor, B)> {
    let mut left = Vec::new();
    for (param, arg) in args.params.iter_mut().enumerate() {
        let (Some(Some(slot)), Arg::Tensor(tensor)) = (slots.get(param), arg) else {
            continue;
        };
        if let Some(buffer) = buffers.remove(slot) {
            left.push((tensor, buffer));
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::launch::Launch;
    use compiler_core::wgsl::WarpMode;
    use compiler_core::RunLimits;

    fn report(max_storage_buffers: u32) -> AdapterReport {
        AdapterReport {
            name: "test".into(),
            backend: "test".into(),
            device_type: "cpu".into(),
            driver: String::new(),
            subgroups: false,
            subgroup_min_size: 0,
            subgroup_max_size: 0,
            max_invocations_per_workgroup: 256,
            max_workgroup_storage_bytes: 16384,
            max_workgroups_per_dimension: 65535,
            max_storage_buffers,
            max_storage_buffer_bytes: 1 << 27,
            timestamps: false,
            lanes_follow_index: false,
        }
    }

    /// A tensor past the device's binding size (lavapipe's 128 MiB; the launch holds 2^26 `f32`
    /// elements, 256 MiB) is named with its bytes and the limit, not left to the device's
    /// validation error (issue 68).
    #[test]
    fn a_tensor_past_the_binding_size_is_named_with_its_bytes() {
        let source = "@launch(32)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[32]) {\n  Y[ctx.thread] = X[ctx.thread]\n}\n";
        let compilation = compiler_core::compile(source);
        let launch = |n: i64| Launch {
            dims: [("N".to_owned(), n)].into(),
            ..Launch::default()
        };
        let check = |n: i64| {
            let prepared = compilation
                .prepare(&launch(n), RunLimits::TERMINAL)
                .unwrap_or_else(|d| panic!("{d:?}"));
            let wgsl = prepared
                .wgsl(WarpMode::Emulated)
                .unwrap_or_else(|d| panic!("{d:?}"));
            check_limits(&report(8), &wgsl, &prepared.args).map_err(|e| e.to_string())
        };
        assert_eq!(
            check((1 << 25) + 1).err().unwrap_or_default(),
            "the kernel does not fit this GPU: `X` takes 134217732 bytes (33554433 elements of f32); this GPU binds at most 134217728 bytes to one buffer: run it on the simulator, or split it into smaller tensors"
        );
        assert!(check(1 << 25).is_ok(), "exactly the limit binds");
    }

    /// A kernel of nine tensors (and a GPU run's loop guard) on a device that binds eight
    /// (WebGPU's promise) is a launch problem that says so, not the device's own refusal of the
    /// pipeline.
    #[test]
    fn more_tensors_than_the_device_binds_is_a_clear_limit() {
        let names = ["A", "B", "C", "D", "E", "F", "G", "H", "I"];
        let params: Vec<String> = names
            .iter()
            .map(|n| format!("{n}: tensor<f32>[N]"))
            .collect();
        let source = format!(
            "@launch(32)\nkernel nine({}) {{\n  I[ctx.thread] = A[ctx.thread]\n}}\n",
            params.join(", ")
        );
        let compilation = compiler_core::compile(&source);
        let launch = Launch {
            dims: [("N".to_owned(), 32)].into(),
            ..Launch::default()
        };
        let prepared = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let wgsl = prepared
            .wgsl(WarpMode::Emulated)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let error = check_limits(&report(8), &wgsl, &prepared.args)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            error.contains(
                "the kernel binds 10 storage buffers (one per tensor and the loop guard's word); this GPU binds at most 8"
            ),
            "{error}"
        );
        assert!(check_limits(&report(10), &wgsl, &prepared.args).is_ok());
    }
}
