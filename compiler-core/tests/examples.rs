//! Every example in `examples/` runs on the simulator and matches a reference computed here in
//! plain Rust from the same inputs (never by the simulator).

mod common;

use compiler_core::hierarchy::Dim3;
use compiler_core::launch::{Input, Launch};
use compiler_core::sim::{Arg, Tensor};
use compiler_core::{RunLimits, RunOutput};
use std::collections::BTreeMap;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/{name}.tsr", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

struct Setup<'a> {
    grid: (u32, u32),
    dims: &'a [(&'a str, i64)],
    scalars: &'a [(&'a str, f64)],
    inputs: Vec<(&'a str, Input)>,
}

/// A run's output, and its kernel's parameter names (to find a tensor by name).
struct Ran {
    output: RunOutput,
    params: Vec<String>,
}

fn run(name: &str, setup: Setup<'_>) -> Ran {
    let launch = Launch {
        grid: Dim3::new(setup.grid.0, setup.grid.1, 1),
        dims: setup
            .dims
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect(),
        scalars: setup
            .scalars
            .iter()
            .map(|(n, v)| (n.to_string(), *v))
            .collect(),
        inputs: setup
            .inputs
            .into_iter()
            .map(|(n, i)| (n.to_string(), i))
            .collect::<BTreeMap<_, _>>(),
        ..Launch::default()
    };
    ran(&compiler_core::compile(&example(name)), &launch)
}

fn ran(compilation: &compiler_core::Compilation, launch: &Launch) -> Ran {
    let params = match compilation.kernel(None) {
        Ok(kernel) => kernel.params.iter().map(|p| p.name().to_owned()).collect(),
        Err(diagnostics) => panic!("{diagnostics:#?}"),
    };
    match compilation.run(launch) {
        Ok(output) => Ran { output, params },
        Err(diagnostics) => panic!("{diagnostics:#?}"),
    }
}

fn tensor<'a>(ran: &'a Ran, name: &str) -> &'a Tensor {
    let index = ran
        .params
        .iter()
        .position(|p| p == name)
        .unwrap_or_else(|| panic!("no parameter {name}"));
    match &ran.output.args.params[index] {
        Arg::Tensor(tensor) => tensor,
        Arg::Scalar(_) => panic!("{name} is a scalar"),
    }
}

fn f32s(output: &Ran, name: &str) -> Vec<f32> {
    tensor(output, name)
        .bits
        .iter()
        .map(|b| f32::from_bits(*b))
        .collect()
}

fn i32s(output: &Ran, name: &str) -> Vec<i32> {
    tensor(output, name)
        .bits
        .iter()
        .map(|b| *b as i32)
        .collect()
}

fn u32s(output: &Ran, name: &str) -> Vec<u32> {
    tensor(output, name).bits.clone()
}

fn assert_close(actual: &[f32], expected: &[f64], tolerance: f64) {
    assert_eq!(actual.len(), expected.len());
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let error = (f64::from(*a) - e).abs();
        assert!(
            error <= tolerance * e.abs().max(1.0),
            "element {i}: {a} vs {e}"
        );
    }
}

#[test]
fn vector_add() {
    let out = run(
        "vector_add",
        Setup {
            grid: (4, 1),
            dims: &[("N", 1000)],
            scalars: &[],
            inputs: vec![("A", Input::Rand(1)), ("B", Input::Rand(2))],
        },
    );
    let (a, b) = (f32s(&out, "A"), f32s(&out, "B"));
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(f32s(&out, "C"), expected);
}

#[test]
fn saxpy_returns_early_past_the_end() {
    let out = run(
        "saxpy",
        Setup {
            grid: (3, 1),
            dims: &[("N", 300)],
            scalars: &[("alpha", 2.5)],
            inputs: vec![("X", Input::Rand(3)), ("Y", Input::Iota)],
        },
    );
    let x = f32s(&out, "X");
    let expected: Vec<f32> = x
        .iter()
        .enumerate()
        .map(|(i, x)| 2.5f32.mul_add(*x, i as f32))
        .collect();
    assert_eq!(f32s(&out, "Y"), expected);
}

/// N = 1000 in super-tiles of 256 (the last 232 long); each runs as a launch over its slice, so
/// the index inside the kernel restarts at every super-tile, whatever the nodes.
#[test]
fn cluster_super_tiles_run_over_their_slices_on_any_number_of_nodes() {
    let source = example("cluster_scale");
    let compilation = compiler_core::compile(&source);
    let mut results = Vec::new();
    for nodes in [1, 2, 3, 4, 8] {
        let launch = Launch {
            grid: Dim3::new(4, 1, 1),
            dims: [("N".to_owned(), 1000)].into(),
            scalars: [("alpha".to_owned(), 2.0)].into(),
            inputs: [("X".to_owned(), Input::Rand(18))].into(),
            nodes,
            ..Launch::default()
        };
        let out = ran(&compilation, &launch);
        let run = out
            .output
            .cluster
            .as_ref()
            .map(|c| (c.nodes, c.tiles.len()));
        assert_eq!(run, Some((nodes as usize, 4)));
        let x = f32s(&out, "X");
        let expected: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(i, x)| 2.0 * x + (i % 256) as f32)
            .collect();
        assert_eq!(f32s(&out, "Y"), expected, "{nodes} nodes");
        results.push(f32s(&out, "Y"));
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn a_cluster_slices_the_axis_it_names_in_a_matrix() {
    // Each super-tile of N sees Y's columns start..start+len as columns 0..len.
    let source = "@launch(32)\n@cluster(N: 3)\nkernel k(Y: tensor<i32>[M, N]) {\n  let i = ctx.thread\n  if i < M * N {\n    Y[i / N, i % N] = i % N + 10 * N\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: [("M".to_owned(), 2), ("N".to_owned(), 7)].into(),
        nodes: 2,
        ..Launch::default()
    };
    let out = ran(&compilation, &launch);
    // Super-tiles: columns 0..3 (N = 3), 3..6 (N = 3), 6..7 (N = 1).
    let row = [30, 31, 32, 30, 31, 32, 10];
    assert_eq!(i32s(&out, "Y"), [row, row].concat());
}

#[test]
fn matvec_with_a_warp_sum() {
    let out = run(
        "matvec",
        Setup {
            grid: (5, 1),
            dims: &[("N", 40), ("K", 100)],
            scalars: &[],
            inputs: vec![("A", Input::Rand(4)), ("W", Input::Rand(5))],
        },
    );
    let (a, w) = (f32s(&out, "A"), f32s(&out, "W"));
    let expected: Vec<f64> = (0..40)
        .map(|col| {
            (0..100)
                .map(|k| f64::from(w[col * 100 + k]) * f64::from(a[k]))
                .sum()
        })
        .collect();
    assert_close(&f32s(&out, "C"), &expected, 1e-5);
}

#[test]
fn matvec_is_exact_on_integers() {
    let out = run(
        "matvec",
        Setup {
            grid: (1, 1),
            dims: &[("N", 8), ("K", 64)],
            scalars: &[],
            inputs: vec![("A", Input::Ones), ("W", Input::Iota)],
        },
    );
    let expected: Vec<f32> = (0..8)
        .map(|col| (0..64).map(|k| (col * 64 + k) as f32).sum())
        .collect();
    assert_eq!(f32s(&out, "C"), expected);
}

#[test]
fn warp_reductions_include_the_zeros_past_the_end() {
    let out = run(
        "warp_reduce",
        Setup {
            grid: (2, 1),
            dims: &[("N", 200), ("W", 7)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(6))],
        },
    );
    let x = i32s(&out, "X");
    let warp = |w: usize| {
        (w * 32..w * 32 + 32)
            .map(|i| if i < 200 { x[i] } else { 0 })
            .collect::<Vec<i32>>()
    };
    assert_eq!(
        i32s(&out, "Sum"),
        (0..7).map(|w| warp(w).iter().sum()).collect::<Vec<i32>>()
    );
    assert_eq!(
        i32s(&out, "Max"),
        (0..7)
            .map(|w| *warp(w).iter().max().unwrap_or(&0))
            .collect::<Vec<i32>>()
    );
    assert_eq!(
        i32s(&out, "Min"),
        (0..7)
            .map(|w| *warp(w).iter().min().unwrap_or(&0))
            .collect::<Vec<i32>>()
    );
}

#[test]
fn block_sum_over_the_cta() {
    let out = run(
        "block_sum",
        Setup {
            grid: (4, 1),
            dims: &[("N", 1000), ("B", 4)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(7))],
        },
    );
    let x = f32s(&out, "X");
    let expected: Vec<f64> = (0..4)
        .map(|b| {
            x[b * 256..(b * 256 + 256).min(1000)]
                .iter()
                .map(|v| f64::from(*v))
                .sum()
        })
        .collect();
    assert_close(&f32s(&out, "Partial"), &expected, 1e-5);
}

#[test]
fn inclusive_prefix_sum_per_warp() {
    let out = run(
        "prefix_sum",
        Setup {
            grid: (2, 1),
            dims: &[("N", 100)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(8))],
        },
    );
    let x = i32s(&out, "X");
    let expected: Vec<i32> = (0..100).map(|i| x[i - i % 32..=i].iter().sum()).collect();
    assert_eq!(i32s(&out, "Y"), expected);
}

#[test]
fn a_cta_sum_by_hand_through_a_scratch_tile() {
    let out = run(
        "scratch_sum",
        Setup {
            grid: (3, 1),
            dims: &[("N", 250), ("B", 3)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(19))],
        },
    );
    let x = i32s(&out, "X");
    // 100-thread CTAs: the last one has 50 elements.
    let expected: Vec<i32> = (0..3)
        .map(|b| x[b * 100..(b * 100 + 100).min(250)].iter().sum())
        .collect();
    assert_eq!(i32s(&out, "Partial"), expected);
}

#[test]
fn inclusive_prefix_sum_over_the_cta() {
    let out = run(
        "cta_scan",
        Setup {
            grid: (3, 1),
            dims: &[("N", 200)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(20))],
        },
    );
    let x = i32s(&out, "X");
    // 80-thread CTAs (the last warp of each has 16 lanes); the last CTA has 40 elements.
    let expected: Vec<i32> = (0..200).map(|i| x[i - i % 80..=i].iter().sum()).collect();
    assert_eq!(i32s(&out, "Y"), expected);
}

#[test]
fn a_cta_scan_is_right_for_any_warp_width() {
    // Narrow warps make more warp totals than a warp has lanes: warp 0 scans them in chunks,
    // carrying each chunk's sum (80 threads in warps of 4 are 20 totals, 5 chunks).
    let compilation = compiler_core::compile(&example("cta_scan"));
    for lanes in [1, 3, 4, 8, 32, 64] {
        let launch = Launch {
            grid: Dim3::new(3, 1, 1),
            dims: [("N".to_owned(), 200)].into(),
            inputs: [("X".to_owned(), Input::Rand(20))].into(),
            lanes,
            ..Launch::default()
        };
        let out = ran(&compilation, &launch);
        let x = i32s(&out, "X");
        let expected: Vec<i32> = (0..200).map(|i| x[i - i % 80..=i].iter().sum()).collect();
        assert_eq!(i32s(&out, "Y"), expected, "{lanes} lanes");
    }
}

#[test]
fn ballot_any_and_all() {
    let out = run(
        "votes",
        Setup {
            grid: (2, 1),
            dims: &[("N", 100), ("W", 4)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(9))],
        },
    );
    let x = f32s(&out, "X");
    let positive = |i: usize| i < 100 && x[i] > 0.0;
    let ballots: Vec<u32> = (0..4)
        .map(|w| {
            (0..32)
                .filter(|l| positive(w * 32 + l))
                .fold(0, |m, l| m | 1 << l)
        })
        .collect();
    assert_eq!(u32s(&out, "Ballot"), ballots);
    assert_eq!(
        i32s(&out, "Any"),
        ballots
            .iter()
            .map(|b| i32::from(*b != 0))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        i32s(&out, "All"),
        ballots
            .iter()
            .map(|b| i32::from(*b == u32::MAX))
            .collect::<Vec<_>>()
    );
}

#[test]
fn each_shuffle_reads_the_lane_the_spec_names() {
    let out = run(
        "shuffles",
        Setup {
            grid: (1, 1),
            dims: &[],
            scalars: &[],
            inputs: vec![("X", Input::Iota)],
        },
    );
    let got = i32s(&out, "Out");
    let lane = |l: i32| -> i32 { l };
    let within = |own: i32, source: i32| {
        if (0..32).contains(&source) {
            source
        } else {
            own
        }
    };
    for l in 0..32i32 {
        let row = |r: usize| got[r * 32 + l as usize];
        assert_eq!(row(0), (l + 5).rem_euclid(32), "shuffle, lane {l}");
        assert_eq!(row(1), lane(l ^ 1), "shuffle_xor, lane {l}");
        assert_eq!(row(2), within(l, l - 2), "shuffle_up, lane {l}");
        assert_eq!(row(3), within(l, l + 2), "shuffle_down, lane {l}");
        assert_eq!(row(4), 7, "broadcast, lane {l}");
    }
}

#[test]
fn the_48_thread_cta_of_the_lane_glossary() {
    let out = run(
        "lane_ids",
        Setup {
            grid: (1, 1),
            dims: &[],
            scalars: &[],
            inputs: vec![],
        },
    );
    let expected_lane: Vec<i32> = (0..48).map(|t| t % 32).collect();
    let expected_warp: Vec<i32> = (0..48).map(|t| t / 32).collect();
    let expected_mask: Vec<u32> = (0..48)
        .map(|t| if t < 32 { 0xffff_ffff } else { 0x0000_ffff })
        .collect();
    assert_eq!(i32s(&out, "Lane"), expected_lane);
    assert_eq!(i32s(&out, "Warp"), expected_warp);
    assert_eq!(u32s(&out, "Mask"), expected_mask);
}

#[test]
fn a_two_dimensional_grid() {
    let out = run(
        "grid2d",
        Setup {
            grid: (2, 3),
            dims: &[("R", 3), ("C", 100)],
            scalars: &[],
            inputs: vec![],
        },
    );
    let expected: Vec<i32> = (0..3)
        .flat_map(|r| (0..100).map(move |c| r * 10000 + (c / 64) * 100 + (c % 64) / 32))
        .collect();
    assert_eq!(i32s(&out, "Out"), expected);
}

#[test]
fn transpose() {
    let out = run(
        "transpose",
        Setup {
            grid: (2, 5),
            dims: &[("R", 5), ("C", 200)],
            scalars: &[],
            inputs: vec![("In", Input::Rand(10))],
        },
    );
    let input = f32s(&out, "In");
    let expected: Vec<f32> = (0..200)
        .flat_map(|c| (0..5).map(move |r| (r, c)))
        .map(|(r, c)| input[r * 200 + c])
        .collect();
    assert_eq!(f32s(&out, "Out"), expected);
}

#[test]
fn row_softmax() {
    let out = run(
        "softmax",
        Setup {
            grid: (2, 1),
            dims: &[("R", 6), ("C", 70)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(11))],
        },
    );
    let x = f32s(&out, "X");
    let mut expected = Vec::new();
    for row in x.chunks(70) {
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |m, v| m.max(f64::from(*v)));
        let total: f64 = row.iter().map(|v| (f64::from(*v) - max).exp()).sum();
        expected.extend(row.iter().map(|v| (f64::from(*v) - max).exp() / total));
    }
    assert_close(&f32s(&out, "Y"), &expected, 1e-5);
}

#[test]
fn three_point_stencil() {
    let out = run(
        "stencil",
        Setup {
            grid: (2, 1),
            dims: &[("N", 500)],
            scalars: &[],
            inputs: vec![("X", Input::Rand(12))],
        },
    );
    let x = f32s(&out, "X");
    let at = |i: i64| {
        if (0..500).contains(&i) {
            x[i as usize]
        } else {
            0.0
        }
    };
    let expected: Vec<f32> = (0..500i64)
        .map(|i| 0.25 * at(i - 1) + 0.5 * at(i) + 0.25 * at(i + 1))
        .collect();
    assert_eq!(f32s(&out, "Y"), expected);
}

#[test]
fn dot_product() {
    let out = run(
        "dot",
        Setup {
            grid: (1, 1),
            dims: &[("N", 1000)],
            scalars: &[],
            inputs: vec![("A", Input::Rand(13)), ("B", Input::Rand(14))],
        },
    );
    let (a, b) = (f32s(&out, "A"), f32s(&out, "B"));
    let expected: f64 = a
        .iter()
        .zip(&b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    assert_close(&f32s(&out, "Out"), &[expected], 1e-4);
}

/// Mixed precision: f16 inputs, an f32 accumulator, the result rounded once to f16.
#[test]
fn dot_product_of_f16s_accumulates_in_f32() {
    let out = run(
        "dot_f16",
        Setup {
            grid: (1, 1),
            dims: &[("N", 1000)],
            scalars: &[],
            inputs: vec![("A", Input::Rand(25)), ("B", Input::Rand(26))],
        },
    );
    let (a, b) = (f32s(&out, "A"), f32s(&out, "B"));
    let f16 = |x: f32| f32::from_bits(compiler_core::ir::f16_round(x.to_bits()));
    assert!(a.iter().chain(&b).all(|&x| f16(x) == x), "inputs are f16s");
    assert!(a.iter().any(|&x| f16(x * 1.0001) != x * 1.0001));
    let expected: f64 = a
        .iter()
        .zip(&b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let wide = f32s(&out, "Wide")[0];
    assert_close(&[wide], &[expected], 1e-5);
    assert_eq!(
        f32s(&out, "Out"),
        vec![f16(wide)],
        "rounded once, from the f32 sum"
    );
}

/// 8-bit quantization: each f32 to the nearest multiple of the scale, clamped to ±127 and
/// stored as an i8 (its bits are the widened value), and back.
#[test]
fn quantize_stores_bytes_and_reads_them_back_widened() {
    let scale = 0.0075f32;
    let out = run(
        "quantize",
        Setup {
            grid: (4, 1),
            dims: &[("N", 1000)],
            scalars: &[("scale", f64::from(scale))],
            inputs: vec![("X", Input::Rand(27))],
        },
    );
    let x = f32s(&out, "X");
    let q = i32s(&out, "Q");
    let want: Vec<i32> = x
        .iter()
        .map(|v| ((v / scale).round_ties_even() as i32).clamp(-127, 127))
        .collect();
    assert_eq!(q, want);
    assert!(q.contains(&127) && q.contains(&-127), "some values clamp");
    let back: Vec<f32> = q.iter().map(|&v| v as f32 * scale).collect();
    assert_eq!(f32s(&out, "Back"), back);
}

#[test]
fn collatz_steps_with_divergent_loops() {
    let starts: Vec<f64> = (1..=100).map(f64::from).collect();
    let out = run(
        "collatz",
        Setup {
            grid: (2, 1),
            dims: &[],
            scalars: &[],
            inputs: vec![(
                "Start",
                Input::Data {
                    shape: vec![100],
                    values: starts,
                },
            )],
        },
    );
    let steps = |mut n: i32| {
        let mut count = 0;
        while n > 1 {
            n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
            count += 1;
        }
        count
    };
    assert_eq!(
        i32s(&out, "Steps"),
        (1..=100).map(steps).collect::<Vec<i32>>()
    );
}

#[test]
fn tiled_transpose_through_shared_memory() {
    let out = run(
        "tiled_transpose",
        Setup {
            grid: (2, 2),
            dims: &[("R", 40), ("C", 50)],
            scalars: &[],
            inputs: vec![("In", Input::Rand(15))],
        },
    );
    let input = f32s(&out, "In");
    let expected: Vec<f32> = (0..50)
        .flat_map(|c| (0..40).map(move |r| (r, c)))
        .map(|(r, c)| input[r * 50 + c])
        .collect();
    assert_eq!(f32s(&out, "Out"), expected);
}

#[test]
fn tiled_matmul_with_ragged_edges() {
    let (m, k, n) = (40usize, 70usize, 50usize);
    let out = run(
        "tiled_matmul",
        Setup {
            grid: (2, 2),
            dims: &[("M", 40), ("K", 70), ("N", 50)],
            scalars: &[],
            inputs: vec![("A", Input::Rand(16)), ("B", Input::Rand(17))],
        },
    );
    let (a, b) = (f32s(&out, "A"), f32s(&out, "B"));
    let expected: Vec<f64> = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| {
            (0..k)
                .map(|kk| f64::from(a[i * k + kk]) * f64::from(b[kk * n + j]))
                .sum()
        })
        .collect();
    assert_close(&f32s(&out, "C"), &expected, 1e-5);
}

/// Every value of X lands in its bin once, whichever CTA counted it: H is the histogram of
/// X % B for any grid, one CTA or more than there are values to share out.
#[test]
fn a_histogram_privatized_in_shared_memory() {
    let compilation = compiler_core::compile(&example("histogram"));
    for grid in [4, 1, 3, 50] {
        let launch = Launch {
            grid: Dim3::new(grid, 1, 1),
            dims: [("N".to_owned(), 10000), ("B".to_owned(), 100)].into(),
            inputs: [("X".to_owned(), Input::Rand(21))].into(),
            ..Launch::default()
        };
        let out = ran(&compilation, &launch);
        let mut expected = vec![0u32; 100];
        for v in u32s(&out, "X") {
            expected[(v % 100) as usize] += 1;
        }
        assert_eq!(expected.iter().sum::<u32>(), 10000);
        assert_eq!(u32s(&out, "H"), expected, "grid {grid}");
    }
}

#[test]
fn the_same_launch_gives_bit_identical_results() {
    let setup = || Setup {
        grid: (5, 1),
        dims: &[("N", 40), ("K", 100)],
        scalars: &[],
        inputs: vec![("A", Input::Rand(4)), ("W", Input::Rand(5))],
    };
    let first = u32s(&run("matvec", setup()), "C");
    let second = u32s(&run("matvec", setup()), "C");
    assert_eq!(first, second);
}

#[test]
fn every_example_checks_without_diagnostics() {
    let examples = common::examples();
    assert!(examples.len() >= 17);
    for (name, source) in examples {
        let compilation = compiler_core::compile(&source);
        assert!(
            compilation.diagnostics.is_empty(),
            "{name}: {:?}",
            compilation.diagnostics
        );
        assert!(compilation.ir().is_ok(), "{name} does not lower");
    }
}

/// The catalogue the playground and docs use lists every file in `examples/` once, each with a
/// launch in `launches.json` that the simulator runs.
#[test]
fn the_catalogue_lists_every_example_with_a_launch_that_runs() {
    let files: Vec<String> = common::examples().into_iter().map(|(n, _)| n).collect();
    let mut listed: Vec<String> = compiler_core::examples::all()
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    let mut launched = compiler_core::examples::launch_names();
    listed.sort();
    launched.sort();
    assert_eq!(
        listed, files,
        "examples.rs lists exactly the files in examples/"
    );
    assert_eq!(launched, files, "launches.json has one launch per example");
    for example in compiler_core::examples::all() {
        assert!(
            !example.summary().is_empty(),
            "{} has no opening comment",
            example.name
        );
        let compilation = compiler_core::compile(example.source);
        if let Err(d) = compilation.run(&example.launch) {
            panic!("{}: {d:#?}", example.name);
        }
    }
}

/// A recorded run names the thread that wrote each element: in vector_add, element i is
/// written by launch thread i (CTA i / 256, thread i % 256), and the inputs by nobody.
#[test]
fn a_recorded_run_knows_who_wrote_each_element() {
    let Some(example) = compiler_core::examples::find("vector_add") else {
        panic!("vector_add is not in the catalogue");
    };
    let launch = Launch {
        grid: Dim3::new(2, 1, 1),
        dims: [("N".to_owned(), 300)].into(),
        ..Launch::default()
    };
    let compilation = compiler_core::compile(example.source);
    let prepared = match compilation.prepare(&launch, RunLimits::TERMINAL) {
        Ok(prepared) => prepared,
        Err(d) => panic!("{d:#?}"),
    };
    let output = match prepared.simulate_recording() {
        Ok(output) => output,
        Err(d) => panic!("{d:#?}"),
    };
    let writers = output.writers.unwrap_or_default();
    let c = prepared.kernel.param_index("C").unwrap_or(usize::MAX);
    let a = prepared.kernel.param_index("A").unwrap_or(usize::MAX);
    let expected: Vec<u32> = (1..=300).collect();
    assert_eq!(writers[c], expected);
    assert!(writers[a].iter().all(|&w| w == 0));
    assert_eq!(
        compiler_core::hierarchy::launch_thread(Dim3::new(2, 1, 1), Dim3::new(1, 0, 0), 256, 44),
        300
    );
    assert!(compilation.run(&launch).is_ok_and(|o| o.writers.is_none()));
}

#[test]
fn tanh_keeps_zero_its_sign_and_small_values_on_the_simulator() {
    let source = "@launch(32)\nkernel t(X: tensor<f32>[4], Y: tensor<f32>[4]) {\n  if ctx.thread < 4 {\n    Y[ctx.thread] = tanh(X[ctx.thread])\n  }\n}\n";
    let launch = Launch {
        inputs: [(
            "X".to_owned(),
            Input::Data {
                shape: vec![4],
                values: vec![0.0, -0.0, 1e-8, 20.0],
            },
        )]
        .into(),
        ..Launch::default()
    };
    let out = ran(&compiler_core::compile(source), &launch);
    let y = tensor(&out, "Y");
    assert_eq!(y.bits[0], 0.0f32.to_bits());
    assert_eq!(y.bits[1], (-0.0f32).to_bits(), "tanh(-0) is -0");
    assert_eq!(f32::from_bits(y.bits[2]), 1e-8);
    assert_eq!(f32::from_bits(y.bits[3]), 1.0);
}

/// Examples whose launch leaves some elements of a tensor they write unwritten on purpose, and
/// why. Every other example's launch writes every element of every tensor its kernel writes.
const PARTLY_WRITTEN: &[(&str, &str)] = &[];

/// A value no example computes: a NaN with a payload, or the integer 2143289345.
const SENTINEL: u32 = 0x7fc0_0001;

/// Every example's launch from `launches.json` writes every element of every tensor its kernel
/// writes: a launch too small for its data (too few CTAs, say) leaves the rest as it was, which
/// a reader takes for a result. Who wrote each element is recorded; a kernel under `@cluster`,
/// whose super-tiles are separate launches, has its outputs filled with [`SENTINEL`] instead
/// (they are only written, never read, so nothing else changes).
#[test]
fn every_example_launch_writes_every_element_of_its_outputs() {
    let mut unwritten = Vec::new();
    for example in compiler_core::examples::all() {
        let compilation = compiler_core::compile(example.source);
        let mut prepared = match compilation.prepare(&example.launch, RunLimits::TERMINAL) {
            Ok(prepared) => prepared,
            Err(d) => panic!("{}: {d:#?}", example.name),
        };
        let written = prepared.kernel.written_tensors();
        assert!(!written.is_empty(), "{} writes nothing", example.name);
        let clustered = prepared.kernel.cluster.is_some();
        if clustered {
            for &i in &written {
                if let Some(Arg::Tensor(tensor)) = prepared.args.params.get_mut(i) {
                    tensor.bits.fill(SENTINEL);
                }
            }
        }
        let output = match prepared.simulate_recording() {
            Ok(output) => output,
            Err(d) => panic!("{}: {d:#?}", example.name),
        };
        if let Some(lines) = output.unwritten(prepared.kernel) {
            unwritten.extend(lines.into_iter().map(|l| format!("{}: {l}", example.name)));
            continue;
        }
        assert!(clustered, "{}: a recorded run has no writers", example.name);
        for &i in &written {
            let Some(Arg::Tensor(tensor)) = output.args.params.get(i) else {
                panic!("{}: parameter {i} is not a tensor", example.name)
            };
            let missed: Vec<usize> = (0..tensor.bits.len())
                .filter(|&e| tensor.bits[e] == SENTINEL)
                .collect();
            if !missed.is_empty() {
                unwritten.push(format!(
                    "{}: {} of the {} elements of `{}` are never written (the first at flat index {})",
                    example.name,
                    missed.len(),
                    tensor.bits.len(),
                    prepared.kernel.params[i].name(),
                    missed[0]
                ));
            }
        }
    }
    let excused = |line: &String| {
        PARTLY_WRITTEN
            .iter()
            .any(|(name, _)| line.starts_with(&format!("{name}: ")))
    };
    let unexcused: Vec<&String> = unwritten.iter().filter(|l| !excused(l)).collect();
    assert!(unexcused.is_empty(), "{unexcused:#?}");
    for (name, why) in PARTLY_WRITTEN {
        assert!(
            unwritten
                .iter()
                .any(|l| l.starts_with(&format!("{name}: "))),
            "{name} is listed as partly written ({why}) but its launch writes everything"
        );
    }
}

/// The built-ins numpy users expect (issue 34), with numpy's answers: `round` halves to even,
/// `trunc` drops the fraction, `sign` gives +0 for either zero and keeps NaN, `pow` of a
/// negative base needs a whole exponent (its parity gives the sign) and `pow(x, 0)` is 1,
/// `erf` within an ulp of the exact value.
#[test]
fn round_trunc_sign_pow_and_erf_give_numpys_answers_on_the_simulator() {
    let source = "@launch(32)\nkernel m(X: tensor<f32>[8], Y: tensor<f32>[8], M: tensor<f32>[6, 8], S: tensor<i32>[8]) {\n  let i = ctx.thread\n  if i < 8 {\n    M[0, i] = round(X[i])\n    M[1, i] = trunc(X[i])\n    M[2, i] = sign(X[i])\n    M[3, i] = pow(X[i], Y[i])\n    M[4, i] = erf(X[i])\n    M[5, i] = pow(2.0, Y[i])\n    S[i] = sign(i - 3)\n  }\n}\n";
    let data = |values: &[f64]| Input::Data {
        shape: vec![values.len()],
        values: values.to_vec(),
    };
    let x = [0.5, 1.5, 2.5, -0.5, -1.7, -0.0, f64::NAN, -2.0];
    let y = [2.0, 0.0, -1.0, 3.0, 0.5, 0.0, 0.0, 3.0];
    let launch = Launch {
        inputs: [("X".to_owned(), data(&x)), ("Y".to_owned(), data(&y))].into(),
        ..Launch::default()
    };
    let out = ran(&compiler_core::compile(source), &launch);
    let m: Vec<f32> = tensor(&out, "M")
        .bits
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
    let row = |r: usize| &m[r * 8..r * 8 + 8];
    let same = |got: &[f32], want: &[f32]| {
        got.iter()
            .zip(want)
            .all(|(g, w)| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()))
    };
    let round = [0.0, 2.0, 2.0, -0.0, -2.0, -0.0, f32::NAN, -2.0];
    assert!(same(row(0), &round), "round {:?}", row(0));
    let trunc = [0.0, 1.0, 2.0, -0.0, -1.0, -0.0, f32::NAN, -2.0];
    assert!(same(row(1), &trunc), "trunc {:?}", row(1));
    let sign = [1.0, 1.0, 1.0, -1.0, -1.0, 0.0, f32::NAN, -1.0];
    assert!(same(row(2), &sign), "sign {:?}", row(2));
    // 0.5², 1.5⁰, 2.5⁻¹, (-0.5)³, (-1.7)^0.5 (NaN), (-0)⁰, NaN⁰, (-2)³.
    let pow = [0.25, 1.0, 0.4, -0.125, f32::NAN, 1.0, 1.0, -8.0];
    assert!(same(row(3), &pow), "pow {:?}", row(3));
    // erf to 8 digits (Abramowitz and Stegun's tables; erf(-x) = -erf(x)).
    let erf = [
        0.520_499_9,
        0.966_105_1,
        0.999_593_1,
        -0.520_499_9,
        -0.983_790_5,
    ];
    for (got, want) in row(4).iter().zip(erf) {
        assert!(
            (got - want).abs() <= 1.5 * f32::EPSILON * want.abs(),
            "erf {got} against {want}"
        );
    }
    assert_eq!(row(4)[5].to_bits(), (-0.0f32).to_bits(), "erf(-0) is -0");
    assert!(row(4)[6].is_nan());
    assert_eq!(row(5), [4.0, 1.0, 0.5, 8.0, 2f32.sqrt(), 1.0, 1.0, 8.0]);
    let s: Vec<i32> = tensor(&out, "S").bits.iter().map(|&b| b as i32).collect();
    assert_eq!(s, [-1, -1, -1, 0, 1, 1, 1, 1]);
}

/// `bitcast` keeps every bit, on the simulator: NaN payloads, -0.0, subnormals, infinities;
/// an integer literal past i32 is a u32's bits (`-inf`); and the checker refuses what has no
/// 32 bits or is no 32-bit type.
#[test]
fn bitcast_keeps_every_bit() {
    let source = "@launch(32)\nkernel b(U: tensor<u32>[N], Back: tensor<u32>[N], Sign: tensor<u32>[N], I: tensor<i32>[N], Inf: tensor<f32>[2]) {\n  let i = ctx.thread\n  if i < N {\n    let f = bitcast<f32>(U[i])\n    Back[i] = bitcast<u32>(f)\n    Sign[i] = bitcast<u32>(f) >> 31\n    I[i] = bitcast<i32>(f)\n  }\n  if i == 0 {\n    Inf[0] = bitcast<f32>(2139095040)\n    Inf[1] = bitcast<f32>(4286578688)\n  }\n}\n";
    let words: Vec<u32> = vec![
        0x7fc0_0001, // a quiet NaN with a payload
        0xff80_0001, // a signalling NaN, negative
        0x8000_0000, // -0.0
        0x0000_0001, // the least subnormal
        0x7f80_0000, // +inf
        0x3f80_0000, // 1.0
    ];
    let launch = Launch {
        inputs: [(
            "U".to_owned(),
            Input::Data {
                shape: vec![words.len()],
                values: words.iter().map(|&w| f64::from(w)).collect(),
            },
        )]
        .into(),
        ..Launch::default()
    };
    let out = ran(&compiler_core::compile(source), &launch);
    assert_eq!(tensor(&out, "Back").bits, words);
    let signs: Vec<u32> = words.iter().map(|w| w >> 31).collect();
    assert_eq!(tensor(&out, "Sign").bits, signs);
    assert_eq!(
        tensor(&out, "I").bits,
        words,
        "an i32's bits are the same bits"
    );
    assert_eq!(
        tensor(&out, "Inf").bits,
        [f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits()]
    );
    let refused = |body: &str| {
        let source = format!(
            "@launch(32)\nkernel b(X: tensor<f32>[N], Y: tensor<u32>[N]) {{\n  {body}\n}}\n"
        );
        compiler_core::compile(&source)
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(refused("Y[0] = bitcast<f16>(X[0])"), ["E0302"]);
    assert_eq!(refused("Y[0] = bitcast<u32>(true)"), ["E0302"]);
    assert_eq!(refused("Y[0] = bitcast<u32>(X[0], X[1])"), ["E0302"]);
    // Elsewhere `bitcast` is a name like any other.
    assert_eq!(
        refused("let bitcast = 3\n  Y[0] = u32(bitcast < 4)"),
        Vec::<&str>::new()
    );
}

/// The float radix sort (issue 53) sorts as `f32::total_cmp` orders, bit for bit: -0.0 before
/// +0.0, the infinities at the ends, a NaN past +inf, subnormals in place; at N = 1 and at its
/// most, 1024.
#[test]
fn radix_sort_f32_sorts_as_total_order() {
    let mut values: Vec<f32> = (0..1024)
        .map(|k| ((k * 7919 % 1024) as f32 - 512.0) / 3.0)
        .collect();
    values[..8].copy_from_slice(&[
        f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-45,
        -1e-45,
        f32::MIN,
    ]);
    assert_sorts("radix_sort_f32", &values);
}

/// An 8-bit element in arithmetic is the i32 or u32 it widens to, and so is a literal beside
/// it: `S[i] * 1000` of an `i8` tensor once multiplied in 8 bits (1000 wrapped to -24), on
/// every backend alike, so no comparison between them could see it.
#[test]
fn eight_bit_elements_compute_in_their_widened_type() {
    let source = "@launch(32)\nkernel k(S: tensor<i8>[N], B: tensor<u8>[N], Z: tensor<i32>[N], U: tensor<u32>[N]) {\n  let i = ctx.thread\n  if i < N {\n    Z[i] = S[i] * 1000 - 1\n    U[i] = B[i] * 1000 + 7\n  }\n}\n";
    let launch = Launch {
        dims: [("N".to_owned(), 8)].into(),
        inputs: [("S".to_owned(), Input::Iota), ("B".to_owned(), Input::Iota)].into(),
        ..Launch::default()
    };
    let out = ran(&compiler_core::compile(source), &launch);
    let z: Vec<i32> = (0..8).map(|i| i * 1000 - 1).collect();
    let u: Vec<u32> = (0..8).map(|i| i * 1000 + 7).collect();
    assert_eq!(
        tensor(&out, "Z").bits,
        z.iter().map(|&v| v as u32).collect::<Vec<_>>()
    );
    assert_eq!(tensor(&out, "U").bits, u);
}

/// Example `name` sorts the first 1, 1000 and 1024 of `values` into Y as `total_cmp` orders
/// them, bit for bit.
fn assert_sorts(name: &str, values: &[f32]) {
    for n in [1, 1000, 1024] {
        let input = &values[..n];
        let out = run(
            name,
            Setup {
                grid: (1, 1),
                dims: &[("N", n as i64)],
                scalars: &[],
                inputs: vec![(
                    "X",
                    Input::Data {
                        shape: vec![n],
                        values: input.iter().map(|&v| f64::from(v)).collect(),
                    },
                )],
            },
        );
        let mut want: Vec<f32> = input.to_vec();
        want.sort_by(f32::total_cmp);
        let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
        assert_eq!(tensor(&out, "Y").bits, want, "{name}, N = {n}");
    }
}

/// The bitonic sort (issue 53's functions: `order` writes the caller's tile) sorts finite
/// floats, -0.0 and the infinities, at N = 1 (nothing to sort), a partial 1000 and a full 1024.
#[test]
fn bitonic_sort_sorts_through_its_functions() {
    let mut values: Vec<f32> = (0..1024)
        .map(|k| ((k * 7919 % 1024) as f32 - 512.0) / 3.0)
        .collect();
    values[..4].copy_from_slice(&[f32::INFINITY, f32::NEG_INFINITY, 1e-45, f32::MIN]);
    assert_sorts("bitonic_sort", &values);
}

/// A function's tile parameter is written whole as by element (`acc += a @ b` in a helper,
/// mixed precision): the caller's var tile takes the sum (it had been refused as "a kernel
/// parameter"); the helper's two calls give 0.5 + 2 (A · B) with A = B = ones, 16 terms.
#[test]
fn a_function_writes_its_tile_parameter_whole() {
    let source = "fn mac(acc: tile<f32>[16, 16], a: tile<f16>[16, 16], b: tile<f16>[16, 16]) {\n  acc += a @ b\n}\n\n@launch(64)\nkernel k(A: tensor<f16>[16, 16], B: tensor<f16>[16, 16], C: tensor<f32>[16, 16]) {\n  var acc = tile<f32>[16, 16](0.5)\n  mac(acc, A[0 :+ 16, 0 :+ 16], B[0 :+ 16, 0 :+ 16])\n  mac(acc, A[0 :+ 16, 0 :+ 16], B[0 :+ 16, 0 :+ 16])\n  C[0 :+ 16, 0 :+ 16] = acc\n}\n";
    let launch = Launch {
        inputs: [("A".to_owned(), Input::Ones), ("B".to_owned(), Input::Ones)].into(),
        ..Launch::default()
    };
    let out = ran(&compiler_core::compile(source), &launch);
    assert!(tensor(&out, "C")
        .bits
        .iter()
        .all(|&b| f32::from_bits(b) == 32.5));
}

/// Attention with one thread per row (issue 53's per-thread arrays: q and o, eight each)
/// equals softmax(Q Kᵀ / √8) V computed in f64, within f32's rounding over 100 keys; the rows
/// past S (the second CTA's last threads) write nothing.
#[test]
fn attention_rows_equals_softmax_attention() {
    let s = 100usize;
    let data = |seed: usize| -> Vec<f64> {
        (0..s * 8)
            .map(|k| (((k * 7919 + seed * 104729) % 1000) as f64 - 500.0) / 500.0)
            .collect()
    };
    let (q, k, v) = (data(1), data(2), data(3));
    let input = |values: &[f64]| Input::Data {
        shape: vec![s, 8],
        values: values.to_vec(),
    };
    let out = run(
        "attention_rows",
        Setup {
            grid: (2, 1),
            dims: &[("S", s as i64)],
            scalars: &[],
            inputs: vec![("Q", input(&q)), ("K", input(&k)), ("V", input(&v))],
        },
    );
    let o = &tensor(&out, "O").bits;
    for row in 0..s {
        let scores: Vec<f64> = (0..s)
            .map(|j| (0..8).map(|d| q[row * 8 + d] * k[j * 8 + d]).sum::<f64>() / 8f64.sqrt())
            .collect();
        let top = scores.iter().cloned().fold(f64::MIN, f64::max);
        let weights: Vec<f64> = scores.iter().map(|x| (x - top).exp()).collect();
        let total: f64 = weights.iter().sum();
        for d in 0..8 {
            let want = (0..s).map(|j| weights[j] * v[j * 8 + d]).sum::<f64>() / total;
            let got = f64::from(f32::from_bits(o[row * 8 + d]));
            assert!(
                (got - want).abs() < 1e-5,
                "O[{row}, {d}] = {got}, want {want}"
            );
        }
    }
}

/// The mixed-precision GEMM (issue 53), on tensor cores (issue 54): its 32 × 32 × 32 tile
/// products are multiples of m16n8k16 in a CTA of whole warps, so each follows `mma`'s rule:
/// per 16 columns of A, the exact f32 products summed in increasing k from the first, then the
/// running total added. Computed here in f32, it is equal bit for bit.
#[test]
fn gemm_f16_f32_adds_exact_products_in_f32() {
    let (m, k, n) = (40usize, 70usize, 50usize);
    let f16 = |x: f64| f32::from_bits(compiler_core::ir::f16_round((x as f32).to_bits()));
    let a: Vec<f32> = (0..m * k)
        .map(|i| f16(((i * 37 % 101) as f64 - 50.0) / 7.0))
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| f16(((i * 53 % 97) as f64 - 48.0) / 9.0))
        .collect();
    let input = |values: &[f32], rows: usize, cols: usize| Input::Data {
        shape: vec![rows, cols],
        values: values.iter().map(|&v| f64::from(v)).collect(),
    };
    let out = run(
        "gemm_f16_f32",
        Setup {
            grid: (2, 2),
            dims: &[("M", m as i64), ("K", k as i64), ("N", n as i64)],
            scalars: &[],
            inputs: vec![("A", input(&a, m, k)), ("B", input(&b, k, n))],
        },
    );
    let c = &tensor(&out, "C").bits;
    for i in 0..m {
        for j in 0..n {
            // Tile by tile, as the kernel: past K, both tiles hold +0.
            let product = |kk: usize| match kk < k {
                true => a[i * k + kk] * b[kk * n + j],
                false => 0.0,
            };
            let mut acc = 0f32;
            for k0 in (0..k).step_by(32) {
                let mut total = 0f32;
                for c0 in (k0..k0 + 32).step_by(16) {
                    let mut sum = product(c0);
                    for kk in c0 + 1..c0 + 16 {
                        sum += product(kk);
                    }
                    total += sum; // the sum plus the running total: an addition commutes
                }
                acc += total;
            }
            assert_eq!(c[i * n + j], acc.to_bits(), "C[{i}, {j}]");
        }
    }
}

/// The LeetGPU probe: a 2048-term f16 dot product, 32 terms a tile. Added into an f32 tile it
/// gives 682.5, the exact sum; kept in f16 tiles, each step rounds, and it gives 681.5.
#[test]
fn an_f16_dot_product_added_in_f32_gives_682_5_and_in_f16_681_5() {
    let source = "@launch(32)\nkernel probe(A: tensor<f16>[1, 2048], B: tensor<f16>[2048, 1], C: tensor<f32>[2]) {\n  var acc = tile<f32>[1, 1](0.0)\n  var all16 = f16(acc)\n  for k in range(0, 2048, 32) {\n    let a = A[0 :+ 1, k :+ 32]\n    let b = B[k :+ 32, 0 :+ 1]\n    acc += a @ b\n    all16 += a @ b\n  }\n  let wide = f32(all16)\n  if ctx.thread == 0 {\n    C[0] = acc[0, 0]\n    C[1] = wide[0, 0]\n  }\n}\n";
    let launch = Launch {
        inputs: [
            (
                "A".to_owned(),
                Input::Data {
                    shape: vec![1, 2048],
                    values: vec![1.0 / 3.0; 2048],
                },
            ),
            (
                "B".to_owned(),
                Input::Data {
                    shape: vec![2048, 1],
                    values: vec![1.0; 2048],
                },
            ),
        ]
        .into(),
        ..Launch::default()
    };
    let out = ran(&compiler_core::compile(source), &launch);
    let c: Vec<f32> = tensor(&out, "C")
        .bits
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
    assert_eq!(c, [682.5, 681.5]);
}

/// The 64-bit FNV-1a hash (issue 53) gives Rust's `u64` hash of every row, at the launch's
/// random bytes.
#[test]
fn fnv_hash_is_rusts_fnv1a() {
    let example = compiler_core::examples::all()
        .into_iter()
        .find(|e| e.name == "fnv_hash")
        .unwrap_or_else(|| panic!("no example fnv_hash"));
    let output = compiler_core::compile(example.source)
        .run(&example.launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (Arg::Tensor(data), Arg::Tensor(hash)) = (&output.args.params[0], &output.args.params[1])
    else {
        panic!("two tensors")
    };
    let row_length = data.shape[1];
    for (row, words) in hash.bits.chunks(2).enumerate() {
        let want = data.bits[row * row_length..(row + 1) * row_length]
            .iter()
            .fold(14_695_981_039_346_656_037u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211)
            });
        let got = u64::from(words[0]) | u64::from(words[1]) << 32;
        assert_eq!(got, want, "row {row}");
    }
    assert_eq!(hash.bits.len(), 2 * data.shape[0]);
}

/// SplitMix64 with a `u64` scalar seed past 32 bits (issue 53): every element is Rust's
/// SplitMix64 of `seed + i + 1` and its top 24 bits as an `f32` in [0, 1).
#[test]
fn splitmix_is_splitmix64_of_its_u64_seed() {
    let example = compiler_core::examples::all()
        .into_iter()
        .find(|e| e.name == "splitmix")
        .unwrap_or_else(|| panic!("no example splitmix"));
    let seed = example.launch.scalars["seed"] as u64;
    assert!(seed > u64::from(u32::MAX), "the seed's high word is used");
    let output = compiler_core::compile(example.source)
        .run(&example.launch)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (Arg::Tensor(bits), Arg::Tensor(u)) = (&output.args.params[0], &output.args.params[1])
    else {
        panic!("two tensors")
    };
    assert!(matches!(output.args.params[2], Arg::Scalar(s) if s == seed));
    for (i, (words, &f)) in bits.bits.chunks(2).zip(&u.bits).enumerate() {
        let mut z = seed.wrapping_add((i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        assert_eq!(compiler_core::ir::join_words(words), z, "element {i}");
        assert_eq!(
            f32::from_bits(f),
            (z >> 40) as f32 / 16_777_216.0,
            "element {i}"
        );
    }
    assert_eq!(u.bits.len(), 1000);
}

/// A tile product, bit for bit against its rule (each element `acc op (Σ_k a·b, in increasing
/// k from 0)`), on each of its lowerings: a thread's elements in registers sharing a column
/// (64 threads, 16 x 8: two each), the element-by-element loop (48 threads deal 128 elements
/// unevenly), `acc -= a @ b` in place, and `acc = acc @ b`, whose target is an operand and so
/// goes through a tile of its own. Issue 55's register-blocked, in-place product.
#[test]
fn a_tile_product_keeps_its_bits_on_every_lowering() {
    let values = |seed: u32, n: usize| -> Vec<f64> {
        (0..n)
            .map(|i| {
                f64::from((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 2001) / 997.0
                    - 1.0
            })
            .collect()
    };
    let (a, b) = (values(1, 16 * 16), values(2, 16 * 8));
    let (a32, b32): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|&x| x as f32).collect(),
        b.iter().map(|&x| x as f32).collect(),
    );
    let product = |acc: &[f32], left: &[f32], op: fn(f32, f32) -> f32| -> Vec<f32> {
        let mut out = vec![0.0f32; 16 * 8];
        for i in 0..16 {
            for j in 0..8 {
                let mut s = 0.0f32;
                for k in 0..16 {
                    s += left[i * 16 + k] * b32[k * 8 + j];
                }
                out[i * 8 + j] = op(acc[i * 8 + j], s);
            }
        }
        out
    };
    let ones = vec![0.25f32; 16 * 8];
    let minus = product(&ones, &a32, |x, s| x - s);
    for threads in [64, 48, 32, 1] {
        let source = format!(
            "@launch({threads})\nkernel k(A: tensor<f32>[16, 16], B: tensor<f32>[16, 8], C: tensor<f32>[16, 8], D: tensor<f32>[16, 8]) {{\n  var acc = tile<f32>[16, 8](0.25)\n  acc -= A[0 :+ 16, 0 :+ 16] @ B[0 :+ 16, 0 :+ 8]\n  C[0 :+ 16, 0 :+ 8] = acc\n  var sq = tile<f32>[16, 16](0.0)\n  sq = A[0 :+ 16, 0 :+ 16]\n  var d = tile<f32>[16, 8](0.0)\n  sq = sq @ A[0 :+ 16, 0 :+ 16]\n  d = sq @ B[0 :+ 16, 0 :+ 8]\n  D[0 :+ 16, 0 :+ 8] = d\n}}\n"
        );
        let input = |values: &[f64], shape: Vec<usize>| Input::Data {
            shape,
            values: values.to_vec(),
        };
        let launch = Launch {
            inputs: [
                ("A".to_owned(), input(&a, vec![16, 16])),
                ("B".to_owned(), input(&b, vec![16, 8])),
            ]
            .into(),
            ..Launch::default()
        };
        let out = ran(&compiler_core::compile(&source), &launch);
        assert_eq!(f32s(&out, "C"), minus, "acc -= a @ b at {threads} threads");
        // sq = A · A (its own operand), then d = sq · B.
        let mut square = vec![0.0f32; 16 * 16];
        for i in 0..16 {
            for j in 0..16 {
                let mut s = 0.0f32;
                for k in 0..16 {
                    s += a32[i * 16 + k] * a32[k * 16 + j];
                }
                square[i * 16 + j] = s;
            }
        }
        let d = product(&vec![0.0; 16 * 8], &square, |_, s| s);
        assert_eq!(
            f32s(&out, "D"),
            d,
            "sq = sq @ a, then d = sq @ b at {threads} threads"
        );
    }
}

/// SwiGLU's block (`g += x @ W_gate`, `u += x @ W_up`, 32 x 32 tiles; issue 55): its tile
/// loads share storage once dead (`ir/reuse.rs`), so the kernel takes 16,640 bytes of shared
/// memory, which a WebGPU device's 32 KiB holds (four arrays, two of them padded, where each
/// operand had one of its own); the simulator's race checks pass on the merged arrays, and
/// Y equals silu(X Wg) · (X Wu) computed in f64.
#[test]
fn swiglu_reuses_its_tile_loads_and_fits_32_kib() {
    let source = include_str!("../../bench/tiles/swiglu.tsr");
    let compilation = compiler_core::compile(source);
    let kernel = match compilation.kernel(None) {
        Ok(kernel) => kernel,
        Err(diagnostics) => panic!("{diagnostics:#?}"),
    };
    assert_eq!(kernel.shared.len(), 4, "{:?}", kernel.shared);
    assert_eq!(kernel.shared_bytes_at(32), 16_640);
    let (m, k, n) = (40usize, 70usize, 36usize);
    let data = |seed: usize, len: usize| -> Vec<f64> {
        (0..len)
            .map(|i| (((i * 7919 + seed * 104729) % 1000) as f64 - 500.0) / 2000.0)
            .collect()
    };
    let (x, wg, wu) = (data(1, m * k), data(2, k * n), data(3, k * n));
    let input = |values: &[f64], shape: Vec<usize>| Input::Data {
        shape,
        values: values.to_vec(),
    };
    let mut launch = Launch {
        inputs: [
            ("X".to_owned(), input(&x, vec![m, k])),
            ("Wg".to_owned(), input(&wg, vec![k, n])),
            ("Wu".to_owned(), input(&wu, vec![k, n])),
        ]
        .into(),
        ..Launch::default()
    };
    launch.grid.x = n.div_ceil(32) as u32;
    launch.grid.y = m.div_ceil(32) as u32;
    let out = ran(&compilation, &launch);
    let mut want = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let dot = |w: &[f64]| (0..k).map(|kk| x[i * k + kk] * w[kk * n + j]).sum::<f64>();
            let (g, u) = (dot(&wg), dot(&wu));
            want[i * n + j] = g / (1.0 + (-g).exp()) * u;
        }
    }
    assert_close(&f32s(&out, "Y"), &want, 1e-5);
}
