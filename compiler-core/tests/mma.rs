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

/// The memory and work counts of `source` run on the simulator with `launch`.
fn profile(source: &str, launch: &Launch) -> compiler_core::sim::MemoryProfile {
    let compilation = compiler_core::compile(source);
    let prepared = compilation
        .prepare(launch, compiler_core::RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    prepared
        .simulate_profiled()
        .profile
        .unwrap_or_else(|why| panic!("{why}"))
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
    let profile = profile(example.source, &example.launch);
    let (m, k, n) = (48, 64, 64);
    assert_eq!(profile.work.tensor_flops, 2 * m * n * k);
    assert_eq!(profile.work.flops(), 0);
    let summary = profile.summary();
    assert!(
        summary.contains("393216 floating-point operations on the tensor cores"),
        "{summary}"
    );
    assert!(summary.contains("312 on tensor cores"), "{summary}");
    // sm_70 has no mma (E0522): its line says so instead of charging tensor cores V100's PTX
    // cannot use.
    assert!(
        summary.contains("sm_70 V100: no PTX (the kernel's mma needs sm_80 or later, E0522)"),
        "{summary}"
    );
    assert_eq!(profile.work.on(compiler_core::target::Arch::Sm70), None);
    // The A100's least time: the tensor work at 312 TFLOP/s or the traffic at 2039 GB/s.
    let peak = compiler_core::target::Arch::Sm80.peak();
    let (seconds, _) = peak.least_seconds(0, profile.work.tensor_flops, profile.global_bytes());
    let want =
        (profile.work.tensor_flops as f64 / 312e12).max(profile.global_bytes() as f64 / 2039e9);
    assert!((seconds - want).abs() < 1e-15, "{seconds} {want}");
}

/// A tile product of f16 tiles into f32, 32 x 48 x 32 (multiples of m16n8k16) over two CTAs of
/// four warps: on tensor cores at 32-lane warps, element by element in `mma`'s order at 4, 8
/// and 64 lanes (the same IR, the other branch of `tensor_cores`). Every warp width gives the
/// same bits, and every width counts the same tile-product work (2 m n k), which each target
/// charges to its own unit: the tensor cores from sm_80, the FP32 pipe on sm_70.
const TILE_PRODUCT: &str = "@launch(128)
kernel tile_product(A: tensor<f16>[32, 48], B: tensor<f16>[48, 64], C: tensor<f32>[32, 64]) {
  let c = 32 * ctx.block.x
  var acc = tile<f32>[32, 32](0.0)
  acc += A[0 :+ 32, 0 :+ 48] @ B[0 :+ 48, c :+ 32]
  C[0 :+ 32, c :+ 32] = acc
}
";

#[test]
fn a_tile_product_on_tensor_cores_gives_the_same_bits_at_every_warp_width() {
    let compilation = compiler_core::compile(TILE_PRODUCT);
    let kernel = compilation.kernel(None).unwrap_or_else(|d| panic!("{d:?}"));
    // The product's mma statements, and no source matrix operation: no launch is refused.
    assert!(compiler_core::ir::matrix::first_mma(&kernel.body).is_some());
    assert!(kernel.matrix.is_none());
    let run = |lanes: u32| {
        let launch = Launch {
            grid: Dim3::new(2, 1, 1),
            lanes,
            inputs: [
                ("A".to_owned(), Input::Rand(54)),
                ("B".to_owned(), Input::Rand(55)),
            ]
            .into(),
            ..Launch::default()
        };
        let prepared = compilation
            .prepare(&launch, compiler_core::RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{lanes} lanes: {d:?}"));
        let profiled = prepared.simulate_profiled();
        let output = profiled
            .output
            .unwrap_or_else(|d| panic!("{lanes} lanes: {d:?}"));
        let profile = profiled.profile.unwrap_or_else(|why| panic!("{why}"));
        let work = &profile.work;
        assert_eq!(work.tensor_flops, 0, "{lanes} lanes");
        let per_target = compiler_core::target::Arch::ALL.map(|arch| work.on(arch));
        let tensor_flops = work.tile_product_flops;
        let f32s = |i| -> Vec<f32> {
            values(tensor(&output.args, i))
                .iter()
                .map(|&v| v as f32)
                .collect()
        };
        (
            tensor(&output.args, 2).bits.clone(),
            (tensor_flops, per_target),
            f32s(0),
            f32s(1),
        )
    };
    let (bits, flops, a, b) = run(32);
    // Two CTAs, each 8 blocks of 16 x 8 (32 x 32) by three mma (48 = 3 x 16): 48 mma of 4096,
    // or as many FP32 operations on sm_70. The `+=` of `acc` is the FP32 pipe's everywhere.
    let product = 2 * 8 * 3 * 4096;
    let adds = 32 * 64;
    assert_eq!(flops.0, product);
    assert_eq!(
        flops.1,
        [
            Some((adds + product, 0)),
            Some((adds, product)),
            Some((adds, product))
        ]
    );
    for lanes in [4, 8, 64] {
        let (other, other_flops, _, _) = run(lanes);
        assert_eq!(other, bits, "{lanes} lanes");
        assert_eq!(other_flops, flops, "{lanes} lanes");
    }
    // The rule, computed here: per 16 values of k, the exact products summed from the first,
    // then the running total added; then `acc` (+0) plus the product.
    for i in 0..32 {
        for j in 0..64 {
            let mut total = 0f32;
            for k0 in (0..48).step_by(16) {
                let mut sum = a[i * 48 + k0] * b[k0 * 64 + j];
                for k in k0 + 1..k0 + 16 {
                    sum += a[i * 48 + k] * b[k * 64 + j];
                }
                total += sum; // the sum plus the running total: an addition commutes
            }
            assert_eq!(bits[i * 64 + j], (0f32 + total).to_bits(), "C[{i}, {j}]");
        }
    }
}

/// The PTX of a tile product on tensor cores: `mma.sync` for sm_80 and sm_90; on sm_70, which
/// has no m16n8k16, the kernel is not refused: its `tensor_cores` is 0 and the warp branch a
/// `trap` never reached.
#[test]
fn a_tile_product_takes_mma_sync_from_sm_80_and_its_other_branch_on_sm_70() {
    use compiler_core::target::Arch;
    let compilation = compiler_core::compile(TILE_PRODUCT);
    for arch in Arch::ALL {
        let ptx = compilation
            .ptx(None, arch)
            .unwrap_or_else(|d| panic!("{}: {d:?}", arch.name()));
        let text = &ptx.text;
        assert_eq!(
            text.contains("mma.sync.aligned.m16n8k16"),
            arch != Arch::Sm70,
            "{}",
            arch.name()
        );
        assert_eq!(
            text.contains("trap;"),
            arch == Arch::Sm70,
            "{}",
            arch.name()
        );
    }
}

/// The tile product (f16 → f32, 64 products of 32 × 32 × 32 in a loop, 128 threads):
/// sm_70's PTX runs it on the FP32 pipe, so V100's line is at least (4,194,304 + 65,536) /
/// 15.7e12 = 0.271 µs, at any warp width; A100 and H100 charge the products to the tensor
/// cores at 32 lanes and at 8 alike (the simulator's branch does not pick the pipe).
#[test]
fn each_gpus_line_charges_what_its_own_ptx_executes() {
    let source = "@launch(128)
kernel k(A: tensor<f16>[32, 32], B: tensor<f16>[32, 32], C: tensor<f32>[32, 32]) {
  let ta = A[0 :+ 32, 0 :+ 32]
  let tb = B[0 :+ 32, 0 :+ 32]
  var acc = tile<f32>[32, 32](0.0)
  for i in range(64) {
    acc += ta @ tb
  }
  C[0 :+ 32, 0 :+ 32] = acc
}
";
    let mut lines = Vec::new();
    for lanes in [32, 8] {
        let launch = Launch {
            lanes,
            inputs: [
                ("A".to_owned(), Input::Rand(1)),
                ("B".to_owned(), Input::Rand(2)),
            ]
            .into(),
            ..Launch::default()
        };
        let profile = profile(source, &launch);
        assert_eq!(profile.work.tile_product_flops, 4_194_304, "{lanes} lanes");
        assert_eq!(profile.work.flops(), 65_536, "{lanes} lanes");
        let text = profile.roofline_text(None);
        let v100 = text
            .lines()
            .find(|l| l.contains("sm_70 V100"))
            .unwrap_or_default();
        assert!(
            v100.contains("compute-bound, at least 0.271 µs") && !v100.contains("tensor"),
            "{lanes} lanes: {text}"
        );
        for gpu in ["sm_80 A100", "sm_90 H100"] {
            let line = text.lines().find(|l| l.contains(gpu)).unwrap_or_default();
            assert!(line.contains("on tensor cores"), "{lanes} lanes: {text}");
        }
        lines.push(text.lines().find(|l| l.contains("V100")).map(str::to_owned));
    }
    // The traffic (and so the intensity) depends on the warp width; the V100's bound does not.
    assert_eq!(lines[0], lines[1]);
}

/// A GEMM at ragged sizes (M = 12, K = 24, N = 6) with one warp's 16 × 8 block: the slices
/// reach past the tensors on every axis, and outside is per axis (a column past a row's end
/// is outside, never the next row's element): loads read 0 there and the store drops those
/// elements, so C is exactly A · B and nothing else is written.
fn ragged() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/wgsl/ragged.tsr");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn slices_at_a_tensors_edge_read_zeros_and_drop_stores_axis_by_axis() {
    let (m, k, n) = (12usize, 24usize, 6usize);
    let launch = Launch {
        dims: [
            ("M".to_owned(), m as i64),
            ("K".to_owned(), k as i64),
            ("N".to_owned(), n as i64),
        ]
        .into(),
        inputs: [("A".to_owned(), Input::Iota), ("B".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let output = compiler_core::compile(&ragged())
        .run(&launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (a, b, c) = (
        values(tensor(&output.args, 0)),
        values(tensor(&output.args, 1)),
        values(tensor(&output.args, 2)),
    );
    assert_eq!(c.len(), m * n);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|q| a[i * k + q] * b[q * n + j]).sum();
            assert_eq!(c[i * n + j], want, "C[{i}, {j}]");
        }
    }
}

/// A kernel's own `mma` that this run never reached (a branch not taken) still leaves it
/// without sm_70 PTX: the V100 line says so, as for one that ran.
#[test]
fn an_mma_not_reached_still_has_no_v100_line() {
    let source = "@launch(32)
kernel k(A: tensor<f16>[16, 16], B: tensor<f16>[16, 8], C: tensor<f32>[N, 8]) {
  var acc = array<f32>[4](0.0)
  if N > 16 {
    let a = mma_load_a<over ctx.lane>(A[0 :+ 16, 0 :+ 16])
    let b = mma_load_b<over ctx.lane>(B[0 :+ 16, 0 :+ 8])
    acc = mma<over ctx.lane>(a, b, acc)
  }
  mma_store<over ctx.lane>(C[0 :+ 16, 0 :+ 8], acc)
}
";
    let launch = Launch {
        dims: [("N".to_owned(), 16)].into(),
        ..Launch::default()
    };
    let profile = profile(source, &launch);
    assert_eq!(profile.work.tensor_flops, 0);
    assert_eq!(profile.work.on(compiler_core::target::Arch::Sm70), None);
    assert!(profile.roofline_text(None).contains("sm_70 V100: no PTX"));
}
