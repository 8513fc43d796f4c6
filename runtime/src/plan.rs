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
        if let (Param::Scalar { .. }, Arg::Scalar(bits)) = (param, arg) {
            uniform.push(*bits);
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
    let most = report.max_workgroups_per_dimension;
    for (axis, n) in [("x", args.grid.x), ("y", args.grid.y), ("z", args.grid.z)] {
        if n > most {
            return Err(RuntimeError::Limit(format!(
                "the grid has {n} CTAs along {axis}; this GPU dispatches at most {most}"
            )));
        }
    }
    if wgsl.uses_subgroups && report.fixed_subgroup_size() != Some(wgsl.lanes) {
        return Err(RuntimeError::Limit(format!(
            "subgroup mode needs subgroups of exactly {} lanes; this GPU's are {} to {}",
            wgsl.lanes, report.subgroup_min_size, report.subgroup_max_size
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
