//! Occupancy against figures worked by hand from NVIDIA's published limits: for each target, a
//! CTA where each of the four limits binds.

use compiler_core::occupancy::{occupancy, Limit, Occupancy};
use compiler_core::ptx::Arch;

fn of(arch: Arch, threads: u32, shared: u64, registers: u32) -> Occupancy {
    occupancy(arch, threads, shared, registers).unwrap_or_else(|why| panic!("{why}"))
}

#[test]
fn warp_slots_bind_a_large_cta() {
    for arch in Arch::ALL {
        // 1024 threads = 32 warps; 64 slots hold 2 CTAs. 16 registers: 512 per warp, 128
        // warps' worth, 4 CTAs.
        let o = of(arch, 1024, 0, 16);
        assert_eq!(o.ctas_by[..2], [2, 32], "{}", arch.name());
        assert_eq!(o.ctas_by[3], 4);
        assert_eq!((o.ctas, o.warps, o.occupancy), (2, 64, 1.0));
        assert_eq!(o.binding, vec![Limit::Warps]);
    }
}

#[test]
fn cta_slots_bind_a_one_warp_cta() {
    for arch in Arch::ALL {
        let o = of(arch, 32, 0, 16);
        // The shared memory limit: none on sm_70; the 1 KiB reserve on sm_80 and sm_90.
        let by_shared = match arch {
            Arch::Sm70 => u32::MAX,
            Arch::Sm80 => 164,
            Arch::Sm90 => 228,
        };
        assert_eq!(o.ctas_by, [64, 32, by_shared, 128], "{}", arch.name());
        assert_eq!((o.ctas, o.warps, o.occupancy), (32, 32, 0.5));
        assert_eq!(o.binding, vec![Limit::Ctas]);
    }
}

#[test]
fn shared_memory_binds_a_large_tile() {
    // 256 threads (8 warps), 16 registers, 40 KiB of tiles.
    let shared = 40 * 1024;
    // sm_70: 96 KiB per SM, no reserve: 98304 / 40960 = 2 CTAs, 16 warps, 25 %.
    let o = of(Arch::Sm70, 256, shared, 16);
    assert_eq!((o.shared_per_cta, o.ctas, o.warps), (40960, 2, 16));
    assert_eq!(o.occupancy, 0.25);
    assert_eq!(o.binding, vec![Limit::SharedMemory]);
    // sm_80: 41984 bytes with the 1 KiB reserve; 167936 / 41984 = 4 CTAs, 32 warps.
    let o = of(Arch::Sm80, 256, shared, 16);
    assert_eq!((o.shared_per_cta, o.ctas, o.warps), (41984, 4, 32));
    assert_eq!(o.binding, vec![Limit::SharedMemory]);
    // sm_90: 233472 / 41984 = 5 CTAs, 40 warps, 62.5 %.
    let o = of(Arch::Sm90, 256, shared, 16);
    assert_eq!((o.ctas, o.warps, o.occupancy), (5, 40, 0.625));
    assert_eq!(o.binding, vec![Limit::SharedMemory]);
    // Rounding: 1000 bytes take 1024 on sm_70 (units of 256) and 2048 on sm_90 (1024 + the
    // reserve of 1024, in units of 128).
    assert_eq!(of(Arch::Sm70, 256, 1000, 16).shared_per_cta, 1024);
    assert_eq!(of(Arch::Sm90, 256, 1000, 16).shared_per_cta, 2048);
}

#[test]
fn registers_bind_a_heavy_kernel() {
    for arch in Arch::ALL {
        // 128 registers: 4096 per warp, 16 warps' worth, 2 CTAs of 8 warps.
        let o = of(arch, 256, 0, 128);
        assert_eq!(o.registers_per_warp, 4096);
        assert_eq!(
            (o.ctas, o.warps, o.occupancy),
            (2, 16, 0.25),
            "{}",
            arch.name()
        );
        assert_eq!(o.binding, vec![Limit::Registers]);
        // 255 registers round up to 8192 per warp: 8 warps' worth, one CTA.
        let o = of(arch, 256, 0, 255);
        assert_eq!((o.registers_per_warp, o.ctas), (8192, 1));
    }
}

#[test]
fn ties_name_every_binding_limit() {
    // 1024 threads and 32 registers: 2 CTAs by warps and 2 by registers (1024 per warp).
    let o = of(Arch::Sm90, 1024, 0, 32);
    assert_eq!(o.binding, vec![Limit::Warps, Limit::Registers]);
}

#[test]
fn impossible_ctas_say_why() {
    let too_many = occupancy(Arch::Sm80, 2048, 0, 32);
    assert_eq!(
        too_many.err().as_deref(),
        Some("a CTA of 2048 threads: sm_80 allows 1 to 1024")
    );
    let registers = occupancy(Arch::Sm70, 64, 0, 300);
    assert!(registers.is_err_and(|why| why.contains("1 to 255")));
    let shared = occupancy(Arch::Sm90, 64, 49153, 32);
    assert!(shared.is_err_and(|why| why.contains("may have 49152")));
}

#[test]
fn the_text_marks_the_binding_limit() {
    let text = of(Arch::Sm80, 256, 40 * 1024, 16).to_text();
    assert!(
        text.starts_with("sm_80: 4 CTAs of 8 warps per SM, 32 of 64 warps: occupancy 50%\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "shared memory         4 CTAs  (167936 bytes per SM / 41984 bytes per CTA)  <- binds"
        ),
        "{text}"
    );
}

/// Cases worked by NVIDIA's rules in the CUDA toolkit's `cuda_occupancy.h`
/// (`cudaOccMaxBlocksPerSMRegsLimit`, `cudaOccMaxBlocksPerSMSmemLimit`): a warp's registers
/// rounded up to 256 and allocated within one of 4 sub-partitions of 16,384; a CTA's warps
/// rounded up to a multiple of 4 against the 65,536 registers a CTA may have; shared memory with
/// the 1 KiB per-CTA reserve on 8.0 and 9.0. `None`: the CTA cannot launch.
#[test]
fn occupancy_follows_nvidias_register_rule() {
    /// (arch, threads, shared bytes, registers per thread, CTAs and warps per SM).
    type Case = (Arch, u32, u64, u32, Option<(u32, u32)>);
    #[rustfmt::skip]
    let cases: [Case; 14] = [
        // (arch, threads, shared bytes, registers per thread, Some((CTAs, warps)) per SM)
        // 1280 registers per warp: 12 warps per sub-partition, 48 per SM, 24 CTAs (not 25).
        (Arch::Sm80, 64, 0, 40, Some((24, 48))),
        (Arch::Sm70, 64, 0, 40, Some((24, 48))),
        // 3328 per warp: 4 per sub-partition, 16 warps (not 19).
        (Arch::Sm80, 32, 0, 104, Some((16, 16))),
        // 25 warps count as 28 at 2560: 71,680 registers, over 65,536.
        (Arch::Sm80, 800, 0, 80, None),
        // 32 warps at 2048 fit exactly; at 65 registers (2304 per warp) they do not.
        (Arch::Sm80, 1024, 0, 64, Some((1, 32))),
        (Arch::Sm80, 1024, 0, 65, None),
        // 2304 per warp: 7 per sub-partition, 28 warps, 9 CTAs of 3.
        (Arch::Sm90, 96, 0, 72, Some((9, 27))),
        (Arch::Sm70, 256, 0, 128, Some((2, 16))),
        // 5376 per warp: 3 per sub-partition, 12 warps, 2 CTAs of 6.
        (Arch::Sm90, 192, 0, 168, Some((2, 12))),
        // 1536 per warp: 10 per sub-partition, 40 warps, 10 CTAs of 4.
        (Arch::Sm70, 128, 8192, 48, Some((10, 40))),
        // 20 warps at 3072: 61,440 as the hardware counts them; 5 per sub-partition, 1 CTA.
        (Arch::Sm80, 640, 0, 96, Some((1, 20))),
        // 1792 per warp: 9 per sub-partition, 36 warps, 4 CTAs of 9; 2000 + 1024 bytes of
        // shared memory round to 3072, 76 CTAs.
        (Arch::Sm90, 288, 2000, 56, Some((4, 36))),
        (Arch::Sm90, 32, 0, 16, Some((32, 32))),
        (Arch::Sm70, 32, 0, 16, Some((32, 32))),
    ];
    for (arch, threads, shared, registers, expected) in cases {
        let got = occupancy(arch, threads, shared, registers).map(|o| (o.ctas, o.warps));
        match expected {
            Some(figures) => assert_eq!(
                got,
                Ok(figures),
                "{} threads, {registers} registers on {}",
                threads,
                arch.name()
            ),
            None => assert!(
                got.as_ref().is_err_and(|why| why.contains("cannot launch")),
                "{threads} threads, {registers} registers on {}: {got:?}",
                arch.name()
            ),
        }
    }
}

/// `cudaOccMaxBlocksPerSMRegsLimit` written out as the header has it, for every CTA of a
/// multiple of 32 threads and every register count on each target (the 8,160 pairs per target
/// where Tessera's old rule was wrong on 760): the register limit must agree everywhere.
#[test]
fn the_register_limit_agrees_with_cuda_occupancy_h_everywhere() {
    fn nvidia_blocks_by_registers(threads: i64, registers: i64) -> i64 {
        let (granularity, sub_partitions, regs_per_block, regs_per_sm) = (256, 4, 65536, 65536);
        let warps_allocated_per_cta = (threads + 31) / 32;
        let regs_allocated_per_warp =
            (registers * 32 + granularity - 1) / granularity * granularity;
        let regs_allocated_per_cta = regs_allocated_per_warp * warps_allocated_per_cta;
        let regs_assumed_per_cta = regs_allocated_per_warp
            * ((warps_allocated_per_cta + sub_partitions - 1) / sub_partitions * sub_partitions);
        if regs_per_block < regs_assumed_per_cta || regs_per_block < regs_allocated_per_cta {
            return 0;
        }
        let warps_per_sub_partition = regs_per_sm / sub_partitions / regs_allocated_per_warp;
        warps_per_sub_partition * sub_partitions / warps_allocated_per_cta
    }
    for arch in Arch::ALL {
        for threads in (32..=1024).step_by(32) {
            for registers in 1..=255 {
                let nvidia = nvidia_blocks_by_registers(i64::from(threads), i64::from(registers));
                let ours =
                    occupancy(arch, threads, 0, registers).map_or(0, |o| i64::from(o.ctas_by[3]));
                assert_eq!(ours, nvidia, "{threads} threads, {registers} registers");
            }
        }
    }
}
