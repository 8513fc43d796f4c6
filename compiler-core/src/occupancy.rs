//! Occupancy: how many CTAs of a kernel, and so how many warps, one streaming multiprocessor
//! (SM) holds at once on sm_70, sm_80 and sm_90, and which limit binds.
//!
//! In: the target, the CTA's threads (`@launch`), its static shared memory (the PTX's: the
//! tiles and the reductions' scratch) and the registers each thread uses (`ptxas -v`, or a
//! stated guess). Out: an [`Occupancy`]: CTAs per SM under each of the four limits (warps,
//! CTAs, shared memory, registers), the least of them, the resident warps and the fraction of
//! the SM's warp slots they fill.
//!
//! The figures are NVIDIA's: the CUDA C++ Programming Guide, "Compute Capabilities", table
//! "Technical Specifications per Compute Capability" (threads, warps and CTAs per SM, 32-bit
//! registers per SM, per CTA and per thread, shared memory per SM), and the allocation rules
//! of the CUDA toolkit's `cuda_occupancy.h`, which the Occupancy Calculator and
//! `cudaOccupancyMaxActiveBlocksPerMultiprocessor` follow:
//! - `cudaOccMaxBlocksPerSMRegsLimit`: a warp's registers (registers per thread × 32) are
//!   rounded up to units of 256 and allocated within one of the SM's 4 sub-partitions, each a
//!   quarter of the register file (16,384), so an SM holds 4 × ⌊16384 / per warp⌋ warps; and a
//!   CTA launches only if its warps, rounded up to a multiple of 4, fit in the 65,536 registers
//!   a CTA may have (the hardware's check, which assumes all 4 sub-partitions are used).
//! - `cudaOccMaxBlocksPerSMSmemLimit`: a CTA's shared memory plus the 1 KiB the system reserves
//!   for each CTA on 8.0 and 9.0 (charged even to a CTA that declares none), rounded up to units
//!   of 256 bytes on 7.0 and 128 on 8.0 and 9.0.
//!
//! Shared memory per SM is the largest carveout, as the driver picks when a kernel needs it.
//! A CTA that no SM can hold (too many registers as the hardware counts them) is an error,
//! not an occupancy of 0. This is the one place that knows these limits.

use crate::target::Arch;
pub use crate::target::SmLimits;
use serde::Serialize;

/// What can cap the CTAs an SM holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The SM's warp slots (its threads, counted in whole warps).
    Warps,
    /// The SM's CTA slots.
    Ctas,
    SharedMemory,
    Registers,
}

impl Limit {
    pub const ALL: [Limit; 4] = [
        Limit::Warps,
        Limit::Ctas,
        Limit::SharedMemory,
        Limit::Registers,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Limit::Warps => "warps",
            Limit::Ctas => "CTAs",
            Limit::SharedMemory => "shared memory",
            Limit::Registers => "registers",
        }
    }
}

/// A kernel's occupancy on one target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Occupancy {
    pub arch: Arch,
    pub limits: SmLimits,
    pub warps_per_cta: u32,
    pub registers_per_thread: u32,
    /// Registers one warp is given (rounded up to the unit).
    pub registers_per_warp: u32,
    /// Warps an SM holds by its registers: the warps each sub-partition holds, times the
    /// sub-partitions.
    pub warps_by_registers: u32,
    /// Shared memory one CTA is given (with the reserve, rounded up to the unit).
    pub shared_per_cta: u64,
    /// CTAs per SM under each limit, in [`Limit::ALL`]'s order (`u32::MAX`: no limit, for a
    /// CTA without shared memory).
    pub ctas_by: [u32; 4],
    /// CTAs per SM: the least of `ctas_by`.
    pub ctas: u32,
    /// The limits that give that least.
    pub binding: Vec<Limit>,
    /// Resident warps per SM.
    pub warps: u32,
    /// `warps` over the SM's warp slots, from 0 to 1.
    pub occupancy: f64,
}

/// Registers per thread assumed where `ptxas -v` cannot say: what small kernels use.
pub const DEFAULT_REGISTERS: u32 = 32;

/// `tessera occupancy`'s line for one target (and Python's `Module.occupancy` text): the
/// figures, then what they assume, the registers from `from` ("ptxas -v", a guess).
pub fn line(
    arch: Arch,
    threads: u32,
    shared_bytes: u64,
    registers: u32,
    from: &str,
) -> Result<String, String> {
    let o = occupancy(arch, threads, shared_bytes, registers)?;
    Ok(format!(
        "{}  ({threads} threads per CTA, {shared_bytes} bytes of shared memory, {registers} registers per thread from {from})\n",
        o.to_text()
    ))
}

fn round_up(value: u64, unit: u64) -> u64 {
    value.div_ceil(unit.max(1)) * unit.max(1)
}

/// The occupancy of a CTA of `threads` threads using `shared_bytes` of static shared memory
/// and `registers` registers per thread on `arch`, or why such a CTA cannot run there.
pub fn occupancy(
    arch: Arch,
    threads: u32,
    shared_bytes: u64,
    registers: u32,
) -> Result<Occupancy, String> {
    let limits = SmLimits::of(arch);
    if threads == 0 || threads > limits.threads_per_cta {
        return Err(format!(
            "a CTA of {threads} threads: {} allows 1 to {}",
            arch.name(),
            limits.threads_per_cta
        ));
    }
    if registers == 0 || registers > limits.registers_per_thread {
        return Err(format!(
            "{registers} registers per thread: {} allows 1 to {}",
            arch.name(),
            limits.registers_per_thread
        ));
    }
    if shared_bytes > limits.static_shared_per_cta {
        return Err(format!(
            "{shared_bytes} bytes of shared memory: a CTA on {} may have {}",
            arch.name(),
            limits.static_shared_per_cta
        ));
    }
    let warps_per_cta = threads.div_ceil(32);
    let registers_per_warp =
        round_up(u64::from(registers) * 32, u64::from(limits.register_unit)) as u32;
    let partitions = limits.register_partitions;
    // The hardware's check assumes every sub-partition holds a share of the CTA's warps.
    let warps_checked = round_up(u64::from(warps_per_cta), u64::from(partitions));
    let registers_checked = u64::from(registers_per_warp) * warps_checked;
    if registers_checked > u64::from(limits.registers_per_cta) {
        return Err(format!(
            "a CTA of {threads} threads at {registers} registers per thread cannot launch on {}: \
             the hardware counts its {warps_per_cta} warps as {warps_checked} (a multiple of the \
             {partitions} register sub-partitions) at {registers_per_warp} registers each, \
             {registers_checked} registers, over the {} a CTA may have",
            arch.name(),
            limits.registers_per_cta
        ));
    }
    let warps_by_registers = limits.registers / partitions / registers_per_warp * partitions;
    let shared_per_cta = round_up(shared_bytes + limits.shared_reserved, limits.shared_unit);
    let by_shared = limits
        .shared_bytes
        .checked_div(shared_per_cta)
        .map_or(u32::MAX, |n| n as u32);
    let by_registers = warps_by_registers / warps_per_cta;
    let ctas_by = [
        limits.warps / warps_per_cta,
        limits.ctas,
        by_shared,
        by_registers,
    ];
    let ctas = ctas_by.into_iter().min().unwrap_or(0);
    let binding = Limit::ALL
        .into_iter()
        .zip(ctas_by)
        .filter(|&(_, n)| n == ctas)
        .map(|(limit, _)| limit)
        .collect();
    let warps = ctas * warps_per_cta;
    Ok(Occupancy {
        arch,
        limits,
        warps_per_cta,
        registers_per_thread: registers,
        registers_per_warp,
        warps_by_registers,
        shared_per_cta,
        ctas_by,
        ctas,
        binding,
        warps,
        occupancy: f64::from(warps) / f64::from(limits.warps),
    })
}

impl Occupancy {
    /// "sm_80: 6 CTAs of 8 warps per SM, 48 of 64 warps: occupancy 75%".
    pub fn summary(&self) -> String {
        format!(
            "{}: {} CTAs of {} warps per SM, {} of {} warps: occupancy {:.0}%",
            self.arch.name(),
            self.ctas,
            self.warps_per_cta,
            self.warps,
            self.limits.warps,
            self.occupancy * 100.0
        )
    }

    /// Each limit with the CTAs it allows ("no limit" for a CTA without shared memory) and
    /// whether it binds, in [`Limit::ALL`]'s order.
    pub fn rows(&self) -> Vec<(Limit, String, bool)> {
        Limit::ALL
            .into_iter()
            .zip(self.ctas_by)
            .map(|(limit, n)| {
                let shown = if n == u32::MAX {
                    "no limit".to_owned()
                } else {
                    n.to_string()
                };
                (limit, shown, self.binding.contains(&limit))
            })
            .collect()
    }

    /// The figures in words, as `tessera occupancy` prints them.
    pub fn to_text(&self) -> String {
        let mut text = self.summary() + "\n";
        let why = [
            format!(
                "{} warp slots / {} warps per CTA",
                self.limits.warps, self.warps_per_cta
            ),
            format!("at most {} CTAs per SM", self.limits.ctas),
            if self.shared_per_cta == 0 {
                "the CTA uses no shared memory".to_owned()
            } else {
                format!(
                    "{} bytes per SM / {} bytes per CTA",
                    self.limits.shared_bytes, self.shared_per_cta
                )
            },
            format!(
                "{} sub-partitions x {} warps at {} registers per warp ({} per thread) / {} warps",
                self.limits.register_partitions,
                self.warps_by_registers / self.limits.register_partitions,
                self.registers_per_warp,
                self.registers_per_thread,
                self.warps_per_cta
            ),
        ];
        for ((limit, shown, binds), why) in self.rows().into_iter().zip(why) {
            let mark = if binds { "  <- binds" } else { "" };
            text += &format!("  {:<14} {:>8} CTAs  ({why}){mark}\n", limit.name(), shown);
        }
        text
    }
}
