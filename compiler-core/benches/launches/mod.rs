//! The launches the native benchmarks (`benches/simulator.rs`) and the wasm one
//! (`tests/wasm_throughput.rs`) measure, written once so both measure the same runs.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};

pub const MATVEC: &str = include_str!("../../../examples/matvec.tsr");
pub const TILED_TRANSPOSE: &str = include_str!("../../../examples/tiled_transpose.tsr");
pub const MMA_GEMM: &str = include_str!("../../../examples/mma_gemm.tsr");
pub const FMA_GEMM: &str = include_str!("../../../bench/mma/gemm_fma.tsr");

/// A launch of `grid` with `dims`, each named input random from its seed.
pub fn launch(grid: Dim3, dims: &[(&str, i64)], inputs: &[(&str, u64)]) -> Launch {
    Launch {
        grid,
        dims: dims.iter().map(|&(d, n)| (d.to_owned(), n)).collect(),
        inputs: inputs
            .iter()
            .map(|&(t, seed)| (t.to_owned(), Input::Rand(seed)))
            .collect(),
        ..Launch::default()
    }
}

/// The matvec with N = K = 2048: 256 CTAs of 256 threads, 39.5 M lane operations.
pub fn matvec_2048() -> Launch {
    launch(
        Dim3::new(2048 / 8, 1, 1),
        &[("N", 2048), ("K", 2048)],
        &[("A", 1), ("W", 2)],
    )
}

/// Memory counts against the plain run: the matvec (loads in a loop, a warp reduction) and the
/// tiled transpose (tile copies, a 32-way column read), whole grids: (name, source, launch).
pub fn memory_cases() -> [(&'static str, &'static str, Launch); 2] {
    [
        (
            "matvec N=64 K=2048",
            MATVEC,
            launch(
                Dim3::new(8, 1, 1),
                &[("N", 64), ("K", 2048)],
                &[("A", 1), ("W", 1)],
            ),
        ),
        (
            "tiled_transpose 256 x 256",
            TILED_TRANSPOSE,
            launch(Dim3::new(8, 8, 1), &[("R", 256), ("C", 256)], &[("In", 1)]),
        ),
    ]
}

/// The GEMM of `f16` inputs with `f32` sums at M = K = N = `n`, for `mma_gemm` and
/// `gemm_fma`, which share their grid: (N / 32, M / 16).
pub fn gemm(n: i64) -> Launch {
    let (x, y) = (
        u32::try_from(n / 32).unwrap_or(1),
        u32::try_from(n / 16).unwrap_or(1),
    );
    launch(
        Dim3::new(x, y, 1),
        &[("M", n), ("K", n), ("N", n)],
        &[("A", 36), ("B", 37)],
    )
}
