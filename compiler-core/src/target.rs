//! The targets and their limits: the one place that knows them.
//!
//! In: nothing. Out: [`Arch`] (sm_70, sm_80, sm_90: each one's PTX version and features, and
//! the peaks of the GPU the roofline draws for it, [`Peak`]),
//! [`SmLimits`] (an SM's threads, warps, CTAs, registers and shared memory, with NVIDIA's
//! allocation units) and [`MAX_ELEMENTS`] (what one tensor of a launch may hold). A leaf: the
//! launch, the checker, occupancy and the backends read it, and it reads none of them.
//!
//! The figures are NVIDIA's: the CUDA C++ Programming Guide's "Technical Specifications per
//! Compute Capability" and the CUDA toolkit's `cuda_occupancy.h` (see `occupancy`).

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// A GPU's peaks, for the roofline ([`Arch::peak`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Peak {
    pub gpu: &'static str,
    /// FP32 floating-point operations a second (a fused multiply-add two).
    pub flops_per_second: f64,
    /// Dense FP16 matrix operations with FP32 accumulation a second, on the tensor cores.
    pub tensor_flops_per_second: f64,
    /// DRAM bytes a second.
    pub bytes_per_second: f64,
}

impl Peak {
    /// The arithmetic intensity (FLOP/byte) where memory stops being the bound.
    pub fn ridge(self) -> f64 {
        self.flops_per_second / self.bytes_per_second
    }

    /// The least time `flops` operations on the FP32 pipe and `tensor_flops` on the tensor
    /// cores, over `bytes` of traffic, can take on this GPU: the largest of the three at peak
    /// (the units run at once), and whether memory is the bound. A bound, not a measurement:
    /// no caches, no latency, every unit busy.
    pub fn least_seconds(self, flops: u64, tensor_flops: u64, bytes: u64) -> (f64, Bound) {
        let memory = bytes as f64 / self.bytes_per_second;
        let compute = (flops as f64 / self.flops_per_second)
            .max(tensor_flops as f64 / self.tensor_flops_per_second);
        if memory >= compute {
            (memory, Bound::Memory)
        } else {
            (compute, Bound::Compute)
        }
    }
}

/// What limits a kernel on the roofline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Bound {
    Memory,
    Compute,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Memory => "memory-bound",
            Bound::Compute => "compute-bound",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arch {
    #[default]
    #[serde(rename = "sm_70")]
    Sm70,
    #[serde(rename = "sm_80")]
    Sm80,
    #[serde(rename = "sm_90")]
    Sm90,
}

impl Arch {
    pub const ALL: [Arch; 3] = [Arch::Sm70, Arch::Sm80, Arch::Sm90];

    /// The target for a GPU of compute capability `major.minor`: the newest of the three it
    /// runs, since a driver compiles PTX for an older target for a newer GPU, never the
    /// reverse. `None` below 7.0 (Volta): the lowest target is sm_70, and Volta's independent
    /// thread scheduling is what the model assumes.
    pub fn for_compute_capability(major: u32, minor: u32) -> Option<Arch> {
        match (major, minor) {
            (9.., _) => Some(Arch::Sm90),
            (8, _) => Some(Arch::Sm80),
            (7, _) => Some(Arch::Sm70),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm70 => "sm_70",
            Arch::Sm80 => "sm_80",
            Arch::Sm90 => "sm_90",
        }
    }

    /// The lowest PTX ISA version the target accepts.
    pub fn version(self) -> &'static str {
        match self {
            Arch::Sm70 => "6.0",
            Arch::Sm80 => "7.0",
            Arch::Sm90 => "7.8",
        }
    }

    /// The static shared memory (`.shared` declared in the kernel) a CTA may use
    /// ([`SmLimits`]).
    pub fn static_shared_bytes(self) -> u64 {
        SmLimits::of(self).static_shared_per_cta
    }

    /// The static shared memory a CTA may use on every target: what a kernel may declare and
    /// still run anywhere.
    pub fn static_shared_bytes_everywhere() -> u64 {
        Arch::ALL
            .into_iter()
            .map(Arch::static_shared_bytes)
            .min()
            .unwrap_or(0)
    }

    /// The GPU the roofline draws for this target, from NVIDIA's data sheets (boost clocks,
    /// the SXM parts): FP32 without tensor cores, and DRAM bandwidth.
    pub fn peak(self) -> Peak {
        match self {
            // NVIDIA Tesla V100 data sheet (2018): 15.7 TFLOPS single precision, 125 TFLOPS
            // tensor performance (FP16 products, FP32 sums), HBM2 900 GB/s.
            Arch::Sm70 => Peak {
                gpu: "V100",
                flops_per_second: 15.7e12,
                tensor_flops_per_second: 125e12,
                bytes_per_second: 900e9,
            },
            // NVIDIA A100 data sheet (2021), 80 GB SXM: 19.5 TFLOPS FP32, 312 TFLOPS FP16
            // Tensor Core (dense; 624 with sparsity), HBM2e 2,039 GB/s.
            Arch::Sm80 => Peak {
                gpu: "A100",
                flops_per_second: 19.5e12,
                tensor_flops_per_second: 312e12,
                bytes_per_second: 2039e9,
            },
            // NVIDIA H100 data sheet (2023), SXM: 67 TFLOPS FP32, 1,979 TFLOPS FP16 Tensor
            // Core with sparsity (989.5 dense), HBM3 3.35 TB/s.
            Arch::Sm90 => Peak {
                gpu: "H100",
                flops_per_second: 67e12,
                tensor_flops_per_second: 989.5e12,
                bytes_per_second: 3.35e12,
            },
        }
    }

    /// `mma.sync.aligned.m16n8k16` (f16 products into f32, on the tensor cores) exists from
    /// sm_80: sm_70's PTX runs a tile product on the FP32 pipe and refuses `mma` (E0522).
    pub fn has_mma(self) -> bool {
        self != Arch::Sm70
    }

    /// `redux.sync` (integer warp reductions in one instruction) exists from sm_80.
    pub(crate) fn has_redux(self) -> bool {
        self != Arch::Sm70
    }
}

impl FromStr for Arch {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| format!("`{text}` is not a target: use sm_70, sm_80 or sm_90"))
    }
}

/// One target's SM, as the occupancy rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SmLimits {
    pub threads: u32,
    pub warps: u32,
    pub ctas: u32,
    /// 32-bit registers in the SM's register file.
    pub registers: u32,
    /// Registers are given to a warp in blocks of this many.
    pub register_unit: u32,
    /// The register file is split into this many sub-partitions; a warp's registers lie in one.
    pub register_partitions: u32,
    /// Registers a CTA may have.
    pub registers_per_cta: u32,
    pub registers_per_thread: u32,
    /// Shared memory per SM (the largest carveout), in bytes.
    pub shared_bytes: u64,
    /// Shared memory is given to a CTA in blocks of this many bytes.
    pub shared_unit: u64,
    /// Shared memory each CTA has reserved for the system.
    pub shared_reserved: u64,
    /// Static shared memory (`.shared` declared in the kernel) a CTA may use: more needs
    /// dynamic shared memory and an opt-in, which Tessera does not use.
    pub static_shared_per_cta: u64,
    /// Threads per CTA.
    pub threads_per_cta: u32,
}

const KIB: u64 = 1024;

impl SmLimits {
    pub fn of(arch: Arch) -> SmLimits {
        let common = SmLimits {
            threads: 2048,
            warps: 64,
            ctas: 32,
            registers: 65536,
            register_unit: 256,
            register_partitions: 4,
            registers_per_cta: 65536,
            registers_per_thread: 255,
            shared_bytes: 96 * KIB,
            shared_unit: 256,
            shared_reserved: 0,
            static_shared_per_cta: 48 * KIB,
            threads_per_cta: 1024,
        };
        match arch {
            // Compute capability 7.0 (V100).
            Arch::Sm70 => common,
            // 8.0 (A100): 164 KiB per SM.
            Arch::Sm80 => SmLimits {
                shared_bytes: 164 * KIB,
                shared_unit: 128,
                shared_reserved: KIB,
                ..common
            },
            // 9.0 (H100): 228 KiB per SM.
            Arch::Sm90 => SmLimits {
                shared_bytes: 228 * KIB,
                shared_unit: 128,
                shared_reserved: KIB,
                ..common
            },
        }
    }
}

/// The most CTAs a grid has on each axis (x, y, z): NVIDIA's limits for every compute
/// capability since 3.0 (CUDA C++ Programming Guide, "Technical Specifications per Compute
/// Capability": 2^31 - 1, 65,535, 65,535). A launch past them is refused on every backend,
/// so a size read from a sentinel (4294967295) stops at once instead of running for hours.
pub const MAX_GRID: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];

/// The most elements one tensor of a launch may have (64 Mi: 256 MiB of f32), so a typo in a
/// dimension cannot exhaust a browser's memory.
pub const MAX_ELEMENTS: usize = 1 << 26;
