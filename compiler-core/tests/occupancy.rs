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
        assert_eq!(o.ctas_by, [2, 32, u32::MAX, 4], "{}", arch.name());
        assert_eq!((o.ctas, o.warps, o.occupancy), (2, 64, 1.0));
        assert_eq!(o.binding, vec![Limit::Warps]);
    }
}

#[test]
fn cta_slots_bind_a_one_warp_cta() {
    for arch in Arch::ALL {
        let o = of(arch, 32, 0, 16);
        assert_eq!(o.ctas_by, [64, 32, u32::MAX, 128], "{}", arch.name());
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
