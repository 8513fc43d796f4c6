//! A warp's matrix operation (`mma` m16n8k16) on the simulator: fragments hold the elements
//! the table (`compiler_core::mma`, checked against the PTX ISA in `cli/tests/mma.rs`) gives
//! each lane, and a GEMM over many CTAs gives the rule's sums bit for bit (exact products,
//! `f32` sums in increasing `k` from the first product, each 16-term sum then added to the
//! accumulator) and
//! the exact product within `f32`'s rounding.

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::mma::Operand;
use compiler_core::sim::{Arg, Tensor};

fn tensor(args: &compiler_core::sim::Args, i: usize) -> &Tensor {
    match &args.params[i] {
        Arg::Tensor(t) => t,
        Arg::Scalar(_) => panic!("parameter {i} is a scalar"),
    }
}

fn values(t: &Tensor) -> Vec<f64> {
    (0..t.len())
        .map(|i| t.value(i).unwrap_or(f64::NAN))
        .collect()
}

const FRAGMENTS: &str = "@launch(64)
kernel fragments(A: tensor<f16>[16, 16], B: tensor<f16>[16, 8], FA: tensor<f32>[64, 8], FB: tensor<f32>[64, 4], C: tensor<f32>[32, 8]) {
  let a = mma_load_a<over ctx.lane>(A[0 :+ 16, 0 :+ 16])
  let b = mma_load_b<over ctx.lane>(B[0 :+ 16, 0 :+ 8])
  for i in range(8) {
    FA[ctx.thread, i] = f32(a[i])
  }
  for i in range(4) {
    FB[ctx.thread, i] = f32(b[i])
  }
  var c = array<f32>[4](0.0)
  for i in range(4) {
    c[i] = f32(ctx.lane * 4 + i)
  }
  mma_store<over ctx.lane>(C[16 * ctx.warp :+ 16, 0 :+ 8], c)
}
";

/// Each lane's fragments of A and B (iota: element (r, c) holds its flat index) are the
/// table's elements, in both warps; `mma_store` puts each lane's element where the table says.
#[test]
fn fragments_hold_the_tables_elements() {
    let launch = Launch {
        inputs: [("A".to_owned(), Input::Iota), ("B".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let output = compiler_core::compile(FRAGMENTS)
        .run(&launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (fa, fb, c) = (
        values(tensor(&output.args, 2)),
        values(tensor(&output.args, 3)),
        values(tensor(&output.args, 4)),
    );
    for thread in 0..64u32 {
        let lane = thread % 32;
        for (operand, got, cols) in [(Operand::A, &fa, 16), (Operand::B, &fb, 8)] {
            let per = operand.per_lane();
            for index in 0..per {
                let (row, col) = operand.element(lane, index);
                assert_eq!(
                    got[(thread * per + index) as usize],
                    f64::from(row * cols + col),
                    "{operand:?}: thread {thread}, element {index}"
                );
            }
        }
    }
    for warp in 0..2u32 {
        for e in Operand::C.table() {
            let at = ((16 * warp + e.row) * 8 + e.col) as usize;
            assert_eq!(c[at], f64::from(e.lane * 4 + e.index), "warp {warp}: {e:?}");
        }
    }
}

/// A launch whose warps are not 32 lanes is refused, saying why; a kernel that launches a
/// partial warp does not compile (E0321, in the UI cases).
#[test]
fn a_launch_with_other_warps_is_refused() {
    let launch = Launch {
        lanes: 8,
        inputs: [("A".to_owned(), Input::Iota), ("B".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let problems = compiler_core::compile(FRAGMENTS)
        .prepare(&launch, compiler_core::RunLimits::TERMINAL)
        .err()
        .unwrap_or_else(|| panic!("8-lane warps were taken"));
    assert!(
        problems
            .iter()
            .any(|d| d.message.contains("takes warps of 32 lanes, not 8")),
        "{problems:?}"
    );
}

/// The example GEMM over 2 x 3 CTAs of four warps: C is the rule's sum, bit for bit, and the
/// exact product of the f16 inputs within f32's rounding of 64 terms.
#[test]
fn a_gemm_on_many_ctas_gives_the_rules_sums() {
    let example =
        compiler_core::examples::find("mma_gemm").unwrap_or_else(|| panic!("no example mma_gemm"));
    assert_eq!(example.launch.grid, Dim3::new(2, 3, 1));
    let output = compiler_core::compile(example.source)
        .run(&example.launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (a, b, c) = (
        tensor(&output.args, 0),
        tensor(&output.args, 1),
        tensor(&output.args, 2),
    );
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    assert_eq!((m, k, n), (48, 64, 64));
    let (a, b, c) = (values(a), values(b), values(c));
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            let mut exact = 0.0f64;
            for block in (0..k).step_by(16) {
                let mut sum = None;
                for kk in block..block + 16 {
                    let (x, y) = (a[i * k + kk] as f32, b[kk * n + j] as f32);
                    sum = Some(sum.map_or(x * y, |s: f32| s + x * y));
                    exact += f64::from(x) * f64::from(y);
                }
                acc += sum.unwrap_or(0.0);
            }
            let got = c[i * n + j];
            assert_eq!(got, f64::from(acc), "C[{i}, {j}]");
            assert!(
                (got - exact).abs() <= 1e-5 * (1.0 + exact.abs()),
                "C[{i}, {j}]"
            );
        }
    }
}

/// The run's work counts each warp's `mma` as 2 · 16 · 8 · 16 operations on the tensor cores,
/// apart from the FP32 pipe's (none here: the GEMM's arithmetic is all in `mma`), and the
/// summary places the run against each target's tensor-core roof.
#[test]
fn the_work_counts_a_gemms_products_on_the_tensor_cores() {
    let example =
        compiler_core::examples::find("mma_gemm").unwrap_or_else(|| panic!("no example mma_gemm"));
    let compilation = compiler_core::compile(example.source);
    let prepared = compilation
        .prepare(&example.launch, compiler_core::RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let profiled = prepared.simulate_profiled();
    let profile = profiled.profile.unwrap_or_else(|why| panic!("{why}"));
    let (m, k, n) = (48, 64, 64);
    assert_eq!(profile.work.tensor_flops, 2 * m * n * k);
    assert_eq!(profile.work.flops(), 0);
    let summary = profile.summary();
    assert!(
        summary.contains("393216 floating-point operations on the tensor cores"),
        "{summary}"
    );
    assert!(summary.contains("312 on tensor cores"), "{summary}");
    // The A100's least time: the tensor work at 312 TFLOP/s or the traffic at 2039 GB/s.
    let peak = compiler_core::target::Arch::Sm80.peak();
    let (seconds, _) = peak.least_seconds(0, profile.work.tensor_flops, profile.global_bytes());
    let want =
        (profile.work.tensor_flops as f64 / 312e12).max(profile.global_bytes() as f64 / 2039e9);
    assert!((seconds - want).abs() < 1e-15, "{seconds} {want}");
}
