//! Atomics on the simulator: every one's result against values worked out here, the order
//! the spec gives them (thread order, CTAs in grid order, whatever the simulator's threads),
//! the race detector (an atomic beside a plain access races; two atomics never do), and their
//! contention in the memory counts and the trace.

use compiler_core::diagnostic::Code;
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::Launch;
use compiler_core::sim::{Arg, TraceLimits};
use compiler_core::RunLimits;
use std::path::Path;

fn atomics_source() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wgsl/atomics.tsr");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"))
}

/// `tests/wgsl/atomics.launch.json`, the launch the GPU tests run too: 300 values
/// `(i * 37 % 211) - 90` over 5 CTAs of 64 threads; the min starts at i32::MAX, the max at
/// i32::MIN and the and at all ones, as a reduction's identity.
fn atomics_launch() -> (Launch, Vec<i32>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wgsl/atomics.launch.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let launch: Launch = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let x = (0..300).map(|i| (i * 37 % 211) - 90).collect();
    (launch, x)
}

fn tensor(output: &compiler_core::launch::RunOutput, index: usize) -> Vec<u32> {
    match &output.args.params[index] {
        Arg::Tensor(t) => t.bits.clone(),
        Arg::Scalar(_) => panic!("parameter {index} is a scalar"),
    }
}

#[test]
fn every_atomic_leaves_what_its_operation_computes() {
    let source = atomics_source();
    let (launch, x) = atomics_launch();
    let output = compiler_core::compile(&source)
        .run(&launch)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let s: Vec<i32> = tensor(&output, 1).into_iter().map(|b| b as i32).collect();
    let u = tensor(&output, 2);
    let f: Vec<f32> = tensor(&output, 3).into_iter().map(f32::from_bits).collect();
    let sum: i32 = x.iter().sum();
    assert_eq!(s[0], sum);
    assert_eq!(s[1], -sum);
    assert_eq!(s[2], *x.iter().min().unwrap_or(&0));
    assert_eq!(s[3], *x.iter().max().unwrap_or(&0));
    for bin in 0..8 {
        let count = x.iter().filter(|&&v| (v & 7) == bin).count() as i32;
        assert_eq!(s[4 + bin as usize], count, "bin {bin}");
    }
    let and = x
        .iter()
        .fold(u32::MAX, |a, &v| a & ((v as u32) | 0xFFFF_00F0));
    let or = x.iter().fold(0, |a, &v| a | ((v as u32) & 0xFF));
    let xor = x.iter().fold(0, |a, &v| a ^ (v as u32));
    let claims = (0..8).filter(|b| x.iter().any(|&v| (v & 7) == *b)).count() as u32;
    let unsigned_max = x.iter().map(|&v| v as u32).max().unwrap_or(0);
    assert_eq!(u, vec![and, or, xor, 7, 7, claims, unsigned_max]);
    // Subnormal terms and a subnormal start on a tensor are flushed to zero, as NVIDIA's
    // atom.add.f32 on global memory flushes them (they had summed to 3e-38 and stayed 5e-39).
    assert_eq!(f, vec![75.0, 150.0, 0.0, 0.0]);
    assert_eq!(tensor(&output, 3)[2..], [0, 0], "zeros of the terms' sign");
    assert_eq!(tensor(&output, 4), vec![300]);
    assert_eq!(
        tensor(&output, 5),
        vec![1; 300],
        "every ticket is taken once"
    );
    assert_eq!(tensor(&output, 6), vec![1; 8]);
}

/// The spec's order: within a statement the active threads by index, CTAs in grid order; so
/// the old values are the same whatever the simulator's threads.
#[test]
fn old_values_follow_thread_order_and_grid_order_on_any_number_of_threads() {
    let source = "@launch(64)\nkernel tickets(C: tensor<u32>[1], Old: tensor<u32>[N], F: tensor<f32>[1]) {\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  if i < N {\n    Old[i] = atomic_add(C[0], 1)\n    atomic_add(F[0], 0.1)\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        grid: Dim3::new(16, 1, 1),
        dims: [("N".to_owned(), 1000)].into(),
        ..Launch::default()
    };
    let mut runs = Vec::new();
    for threads in [1, 2, 4] {
        let mut prepared = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{d:?}"));
        prepared.options.threads = threads;
        let output = prepared.simulate().unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(tensor(&output, 1), (0..1000).collect::<Vec<u32>>());
        runs.push(tensor(&output, 2));
    }
    let sequential = (0..1000).fold(0f32, |a, _| a + 0.1);
    assert_eq!(runs[0], vec![sequential.to_bits()]);
    assert!(runs.iter().all(|r| *r == runs[0]), "{runs:?}");
}

fn run_error(source: &str) -> (Code, String) {
    let launch = Launch::default();
    match compiler_core::compile(source).run(&launch) {
        Ok(_) => panic!("the run did not fault"),
        Err(d) => (d[0].code, d[0].message.clone()),
    }
}

#[test]
fn an_atomic_beside_a_plain_access_of_another_thread_is_a_race_and_two_atomics_are_not() {
    let read_after = "@launch(32)\nkernel k(Y: tensor<u32>[32]) {\n  var t = tile<u32>[1](0)\n  atomic_add(t[0], 1)\n  Y[ctx.thread] = t[0]\n}\n";
    let (code, message) = run_error(read_after);
    assert_eq!(code, Code::E0513);
    assert!(
        message.contains("thread 0 reads it after other threads changed it by an atomic"),
        "{message}"
    );
    let write_before = "@launch(32)\nkernel k(Y: tensor<u32>[32]) {\n  var t = tile<u32>[1](0)\n  barrier()\n  if ctx.thread == 5 {\n    t[0] = 3\n  }\n  atomic_add(t[0], 1)\n  barrier()\n  Y[ctx.thread] = t[0]\n}\n";
    let (code, message) = run_error(write_before);
    assert_eq!(code, Code::E0513);
    assert!(
        message.contains("thread 0 changes it by an atomic after thread 5 wrote it"),
        "{message}"
    );
    let atomics_only = "@launch(32)\nkernel k(Y: tensor<u32>[32]) {\n  var t = tile<u32>[1](0)\n  atomic_add(t[0], 1)\n  atomic_max(t[0], u32(ctx.thread))\n  barrier()\n  Y[ctx.thread] = t[0]\n}\n";
    let output = compiler_core::compile(atomics_only)
        .run(&Launch::default())
        .unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(tensor(&output, 0), vec![32; 32]);
}

#[test]
fn an_atomic_outside_its_tensor_is_a_fault() {
    let source = "@launch(32)\nkernel k(H: tensor<u32>[8]) {\n  atomic_add(H[ctx.thread], 1)\n}\n";
    let (code, message) = run_error(source);
    assert_eq!(code, Code::E0510);
    assert_eq!(message, "H[8] is outside H's shape [8]");
}

/// The memory counts' turns: a warp on one counter takes 32 turns a request (marked), a warp
/// whose lanes each have an element takes one.
#[test]
fn the_memory_counts_count_an_atomics_turns() {
    let source = "@launch(64)\nkernel k(C: tensor<u32>[1], H: tensor<u32>[64]) {\n  atomic_add(C[0], 1)\n  atomic_add(H[ctx.thread], 1)\n  atomic_add(H[ctx.thread / 4], 1)\n}\n";
    let compilation = compiler_core::compile(source);
    let prepared = compilation
        .prepare(&Launch::default(), RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let profile = prepared
        .simulate_profiled()
        .profile
        .unwrap_or_else(|e| panic!("{e}"));
    let figures: Vec<(&str, u64, u64, u32, bool)> = profile
        .sites
        .iter()
        .map(|s| {
            (
                s.kind(),
                s.requests,
                s.turns,
                s.worst_contention,
                s.is_poor(),
            )
        })
        .collect();
    assert_eq!(
        figures,
        vec![
            ("global atomic", 2, 64, 32, true),
            ("global atomic", 2, 2, 1, false),
            ("global atomic", 2, 8, 4, true),
        ]
    );
    assert_eq!(
        profile.sites[0].figures(),
        "1.00 sectors per request, 0 excess of 2; up to 32 lanes on one element, 32.0 on average"
    );
}

#[test]
fn the_trace_shows_which_lanes_met_on_one_element() {
    let source = "@launch(8)\nkernel k(H: tensor<u32>[4]) {\n  let old = atomic_add(H[ctx.thread % 3], 1)\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        lanes: 8,
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let traced = prepared.simulate_traced(Dim3::new(0, 0, 0), TraceLimits::default());
    let kernel = prepared.kernel;
    let effects = traced.trace.effects(kernel, 0, 0);
    assert!(
        effects.contains(&"atomic_add of: 1 1 1 1 1 1 1 1; lanes met on one element (up to 3 in turn): lanes 0 3 6; lanes 1 4 7; lanes 2 5".to_owned()),
        "{effects:?}"
    );
    // The old values, in thread order.
    let text = traced.trace.to_text(kernel, source, None);
    assert!(text.contains("old = 0 0 0 1 1 1 2 2"), "{text}");
}

/// Issue 51: an f32 `atomic_add` on a tensor flushes a subnormal term, start and result to a
/// zero of its sign, as NVIDIA's `atom.add.f32` on global memory does (PTX ISA, `atom`); on a
/// tile, as `atom.shared.add.f32`, it keeps them. An integer computed from such a sum is the
/// same on every backend.
#[test]
fn a_tensors_f32_atomic_add_flushes_subnormals_and_a_tiles_keeps_them() {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wgsl/subnormal_atomics.tsr"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let launch: Launch = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wgsl/subnormal_atomics.launch.json"),
        )
        .unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let output = compiler_core::compile(&source)
        .run(&launch)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let f = tensor(&output, 0);
    assert_eq!(f[0], 0, "subnormal terms flushed: +0");
    assert_eq!(f[1], 0, "-0 terms add to +0");
    // The start, just under 2^-126, is subnormal: flushed, then 32 normal terms of 1e-37.
    let sum = (0..32).fold(0.0f32, |a, _| a + 1.0e-37);
    assert_eq!(f32::from_bits(f[2]), sum);
    let out: Vec<i32> = tensor(&output, 1).into_iter().map(|b| b as i32).collect();
    assert_eq!(out[0], 0);
    assert!(out[1] > 0, "the tile kept its subnormals: {}", out[1]);
}
