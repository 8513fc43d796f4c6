//! The simulator's throughput as WebAssembly in Chromium (the browser's fallback when WebGPU is
//! missing): the same matvec as `benches/simulator.rs`. Run by `scripts/bench-wasm.sh`; on
//! native targets this file is empty.
#![cfg(target_arch = "wasm32")]

#[path = "../benches/launches/mod.rs"]
mod launches;

use compiler_core::RunLimits;
use launches::{FMA_GEMM, MATVEC, MMA_GEMM};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn matvec_2048_lane_operations_per_second() {
    let compilation = compiler_core::compile(MATVEC);
    let launch = launches::matvec_2048();
    let prepared = match compilation.prepare(&launch, RunLimits::PAGE) {
        Ok(prepared) => prepared,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    };
    let mut times = Vec::new();
    let mut lane_ops = 0;
    for _ in 0..7 {
        let start = js_sys::Date::now();
        let output = prepared.simulate();
        times.push(js_sys::Date::now() - start);
        lane_ops = output.map(|o| o.stats.lane_ops).unwrap_or(0);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    console_log!(
        "wasm matvec N=K=2048: median {median:.1} ms, {:.1} M lane operations/s ({lane_ops} lane operations)",
        lane_ops as f64 / median / 1e3
    );
    assert!(lane_ops > 0);
}

/// The playground's work per keystroke, for every example: check, then PTX (sm_70, the PTX
/// tab's default; sm_80 for the mma examples, which sm_70 refuses: E0522) and WGSL (emulated
/// 32-lane warps, the WGSL tab's default without a GPU). Budget: one frame, 16 ms.
#[wasm_bindgen_test]
fn keystroke_to_diagnostics_ptx_and_wgsl_per_example() {
    use compiler_core::ptx::Arch;
    use compiler_core::wgsl::WarpMode;
    let mut worst = (0.0f64, "");
    for example in compiler_core::examples::all() {
        let source = example.source;
        let uses_mma = compiler_core::compile(source)
            .kernel(None)
            .is_ok_and(|k| k.matrix.is_some());
        let arch = if uses_mma { Arch::Sm80 } else { Arch::Sm70 };
        let mut rounds = Vec::new();
        for _ in 0..9 {
            let start = js_sys::Date::now();
            const REPS: u32 = 10;
            for _ in 0..REPS {
                let compilation = compiler_core::compile(source);
                assert!(compilation.diagnostics.is_empty());
                assert!(compilation.ptx(None, arch).is_ok());
                assert!(compilation.wgsl(None, 32, WarpMode::Emulated).is_ok());
            }
            rounds.push((js_sys::Date::now() - start) / f64::from(REPS));
        }
        rounds.sort_by(f64::total_cmp);
        let median = rounds[rounds.len() / 2];
        console_log!("keystroke {}: median {median:.2} ms", example.name);
        if median > worst.0 {
            worst = (median, example.name);
        }
    }
    console_log!("keystroke worst: {} at {:.2} ms", worst.1, worst.0);
}

/// Counting memory accesses against the same run, in the page's engine (issue 19's target:
/// at most 1.5x): the matvec and the tiled transpose of `benches/simulator.rs`'s `memory`.
#[wasm_bindgen_test]
fn memory_counts_against_the_plain_run() {
    for (name, source, launch) in launches::memory_cases() {
        let compilation = compiler_core::compile(source);
        let prepared = match compilation.prepare(&launch, RunLimits::PAGE) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        let median = |run: &dyn Fn()| {
            let mut times: Vec<f64> = (0..9)
                .map(|_| {
                    let start = js_sys::Date::now();
                    run();
                    js_sys::Date::now() - start
                })
                .collect();
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        };
        let plain = median(&|| assert!(prepared.simulate_recording().is_ok()));
        let counted = median(&|| assert!(prepared.simulate_profiled().profile.is_ok()));
        console_log!(
            "wasm memory counts, {name}: plain {plain:.1} ms, counted {counted:.1} ms, {:.2}x",
            counted / plain
        );
    }
}

/// The GEMM on `mma` against the same GEMM in scalar multiply-adds (issue 54's target: at
/// least 3x the FLOP/s), at 256 cubed (a 512-cubed run of the multiply-adds takes seconds here).
#[wasm_bindgen_test]
fn mma_gemm_against_multiply_adds() {
    let launch = launches::gemm(256);
    let flops = 2.0 * 256f64.powi(3);
    let median = |source: &str| {
        let compilation = compiler_core::compile(source);
        let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(diagnostics) => panic!("{diagnostics:?}"),
        };
        let mut times: Vec<f64> = (0..5)
            .map(|_| {
                let start = js_sys::Date::now();
                assert!(prepared.simulate().is_ok());
                js_sys::Date::now() - start
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (mma, fma) = (median(MMA_GEMM), median(FMA_GEMM));
    console_log!(
        "wasm GEMM 256^3: mma {mma:.0} ms ({:.1} MFLOP/s), multiply-adds {fma:.0} ms ({:.1} MFLOP/s), {:.2}x",
        flops / mma / 1e3,
        flops / fma / 1e3,
        fma / mma
    );
}
