//! The CUDA runner. What needs no GPU runs everywhere: the arguments a launch passes against
//! the `.param` list of the PTX the driver would load, for every example, with and without the
//! loop guard. What needs an NVIDIA GPU says that it did not run where there is none
//! (`common::cuda_or_skip`); `differential.rs` and `random_kernels.rs` compare results.

mod common;

use compiler_core::examples;
use compiler_core::guard::Guard;
use compiler_core::hierarchy::Dim3;
use compiler_core::launch::Launch;
use compiler_core::ptx::{self, Arch};
use compiler_core::sim::Arg;
use compiler_core::RunLimits;
use runtime::cuda::{self, Argument};

/// `(type, name)` of each `.param` of the entry `name`, in order, as the PTX text declares them.
fn declared_params(text: &str, name: &str) -> Vec<(String, String)> {
    let entry = format!(".visible .entry {name}(");
    let Some(start) = text.find(&entry) else {
        panic!("no entry {name} in:\n{text}");
    };
    text[start + entry.len()..]
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with(')'))
        .filter_map(|line| {
            let mut words = line.trim_end_matches(',').split_whitespace();
            match (words.next(), words.next(), words.next()) {
                (Some(".param"), Some(ty), Some(param)) => {
                    Some((ty.trim_start_matches('.').to_owned(), param.to_owned()))
                }
                _ => None,
            }
        })
        .collect()
}

#[test]
fn every_examples_arguments_follow_its_ptx_parameter_list() {
    for example in examples::all() {
        let compilation = compiler_core::compile(example.source);
        let prepared = compilation
            .prepare(&example.launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{}: {d:?}", example.name));
        let kernel = prepared.kernel;
        for guard in [Guard::Off, Guard::Trips(1000)] {
            let text = ptx::emit(kernel, example.source, Arch::Sm90, guard)
                .unwrap_or_else(|d| panic!("{}: {d:?}", example.name))
                .text;
            let declared = declared_params(&text, &kernel.name);
            let arguments = cuda::arguments(kernel, &prepared.args, guard)
                .unwrap_or_else(|e| panic!("{}: {e}", example.name));
            assert_eq!(declared.len(), arguments.len(), "{}", example.name);
            let mut dims = prepared.args.dims.iter();
            for ((ty, name), argument) in declared.iter().zip(&arguments) {
                let context = format!("{}: {ty} {name} given {argument:?}", example.name);
                match argument {
                    Argument::Buffer {
                        param: Some(p),
                        words,
                    } => {
                        assert_eq!(ty, "u64", "{context}");
                        assert!(
                            name.ends_with(&format!("_param_{}", kernel.params[*p].name())),
                            "{context}"
                        );
                        let Some(Arg::Tensor(tensor)) = prepared.args.params.get(*p) else {
                            panic!("{context}: not a tensor");
                        };
                        // As memory holds them (two f16s a word): they read back as given.
                        let mut back = tensor.clone();
                        back.set_from_memory(words.iter().copied());
                        assert_eq!(back.bits, tensor.bits, "{context}");
                        let bytes = tensor.len() as u64 * tensor.element.size();
                        assert_eq!(words.len() as u64, bytes.div_ceil(4).max(1), "{context}");
                    }
                    Argument::Buffer { param: None, words } => {
                        assert_eq!(
                            (ty.as_str(), name.as_str()),
                            ("u64", format!("{}_loop_guard", kernel.name).as_str())
                        );
                        assert_eq!(words, &[0], "{context}: the guard's word starts at 0");
                    }
                    Argument::Word(word) if name.contains("_dim_") => {
                        assert_eq!(ty, "u32", "{context}");
                        assert_eq!(Some(*word), dims.next().map(|d| *d as u32), "{context}");
                    }
                    Argument::Word(_) | Argument::Wide(_) => {
                        let param = kernel
                            .params
                            .iter()
                            .position(|p| name.ends_with(&format!("_param_{}", p.name())))
                            .unwrap_or_else(|| panic!("{context}: no such scalar"));
                        let (bits, types) = match argument {
                            Argument::Wide(bits) => (*bits, &["u64"][..]),
                            Argument::Word(word) => (u64::from(*word), &["u32", "f32"][..]),
                            _ => unreachable!(),
                        };
                        assert!(
                            matches!(prepared.args.params.get(param), Some(Arg::Scalar(b)) if *b == bits),
                            "{context}"
                        );
                        assert!(types.contains(&ty.as_str()), "{context}");
                        assert_eq!(
                            kernel.params[param].element().is_wide(),
                            types == ["u64"],
                            "{context}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn without_a_cuda_device_the_error_says_why() {
    if let Err(error) = cuda::devices() {
        let message = error.to_string();
        assert!(message.contains("CUDA"), "{message}");
    }
}

#[test]
fn an_endless_loop_on_cuda_stops_with_e0514_at_the_loop() {
    let Some(gpu) = common::cuda_or_skip("an_endless_loop_on_cuda_stops_with_e0514_at_the_loop")
    else {
        return;
    };
    let source = "@launch(64)\nkernel spin(X: tensor<i32>[N]) {\n  var i = ctx.thread\n  while i >= 0 {\n    i = (i + 1) % 7\n  }\n  X[ctx.thread] = i\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: [("N".to_owned(), 64)].into(),
        step_limit: Some(10_000),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let error = match cuda::run(&gpu, &prepared, source) {
        Ok(_) => panic!("the endless loop ended"),
        Err(error) => error,
    };
    let Some(diagnostic) = error.diagnostic() else {
        panic!("not a runaway: {error}");
    };
    assert_eq!(diagnostic.code, compiler_core::Code::E0514);
    assert_eq!(
        &source[diagnostic.span.start..diagnostic.span.start + 5],
        "while"
    );
    // The device is still usable: the next run works.
    let compilation = compiler_core::compile(
        "@launch(64)\nkernel ids(X: tensor<i32>[N]) {\n  X[ctx.thread] = ctx.thread\n}\n",
    );
    let launch = Launch {
        dims: [("N".to_owned(), 64)].into(),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let output = cuda::run(&gpu, &prepared, compilation.source()).unwrap_or_else(|e| panic!("{e}"));
    let Some(Arg::Tensor(x)) = output.args.params.first() else {
        panic!("no X");
    };
    assert!(x.bits.iter().enumerate().all(|(i, b)| *b as usize == i));
}

#[test]
fn a_grid_too_large_for_cuda_is_a_clear_error() {
    let Some(gpu) = common::cuda_or_skip("a_grid_too_large_for_cuda_is_a_clear_error") else {
        return;
    };
    let source = "@launch(32)\nkernel k(X: tensor<i32>[N]) {\n  X[0] = 1\n}\n";
    let compilation = compiler_core::compile(source);
    let launch = Launch {
        dims: [("N".to_owned(), 1)].into(),
        grid: Dim3::new(1, 70_000, 1),
        ..Launch::default()
    };
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let error = cuda::run(&gpu, &prepared, source)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("the grid has 70000 CTAs along y"), "{error}");
}

/// Issue 51 on an NVIDIA GPU: an `f32` `atomic_add` on a tensor flushes subnormal terms, start
/// and sum to zero (PTX's `atom.add.f32` on global memory), a tile's keeps them, and the
/// simulator gives the GPU's bits.
#[test]
fn subnormal_float_atomics_on_cuda_flush_as_the_simulator_says() {
    let Some(gpu) =
        common::cuda_or_skip("subnormal_float_atomics_on_cuda_flush_as_the_simulator_says")
    else {
        return;
    };
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../compiler-core/tests/wgsl/subnormal_atomics.tsr"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let compilation = compiler_core::compile(&source);
    let launch: Launch = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../compiler-core/tests/wgsl/subnormal_atomics.launch.json"),
        )
        .unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let prepared = compilation
        .prepare(&launch, RunLimits::TERMINAL)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let want = prepared.simulate().unwrap_or_else(|d| panic!("{d:?}")).args;
    let got = cuda::run(&gpu, &prepared, &source)
        .unwrap_or_else(|e| panic!("{e}"))
        .args;
    for param in [0, 1] {
        let (Arg::Tensor(g), Arg::Tensor(w)) = (&got.params[param], &want.params[param]) else {
            panic!("tensors")
        };
        assert_eq!(g.bits, w.bits, "parameter {param}");
    }
}

/// Issue 51 on an NVIDIA GPU: the kernel whose race grid order hides (CTA 0 reads `Data`
/// only when CTA 1's flag is up) and the one whose CTA 1 waits for CTA 0. The simulator stops
/// both (in reverse grid order); the GPU's outcome is recorded, since it has no defined one:
/// how many of 64 launches of 256 CTA pairs saw the flag, and that the waits finished here.
#[test]
fn the_reverse_order_kernels_on_cuda() {
    let Some(gpu) = common::cuda_or_skip("the_reverse_order_kernels_on_cuda") else {
        return;
    };
    let consume = "@launch(32)\nkernel consume(Flag: tensor<u32>[N], Data: tensor<u32>[N], Out: tensor<u32>[N]) {\n  let pair = ctx.block.x / 2\n  if ctx.thread == 0 {\n    if ctx.block.x % 2 == 1 {\n      Data[pair] = 7\n      atomic_exchange(Flag[pair], 1)\n    } else {\n      if atomic_add(Flag[pair], 0) == 1 {\n        Out[pair] = Data[pair] + 1\n      }\n    }\n  }\n}\n";
    let wait = "@launch(32)\nkernel wait(Flag: tensor<u32>[N], Out: tensor<u32>[N]) {\n  let pair = ctx.block.x / 2\n  if ctx.thread == 0 {\n    if ctx.block.x % 2 == 1 {\n      while atomic_add(Flag[pair], 0) == 0 {\n      }\n      Out[pair] = 1\n    } else {\n      atomic_exchange(Flag[pair], 1)\n    }\n  }\n}\n";
    let launch = Launch {
        grid: Dim3::new(512, 1, 1),
        dims: [("N".to_owned(), 256)].into(),
        step_limit: Some(100_000),
        ..Launch::default()
    };
    for (name, source) in [("consume", consume), ("wait", wait)] {
        let compilation = compiler_core::compile(source);
        let prepared = compilation
            .prepare(&launch, RunLimits::TERMINAL)
            .unwrap_or_else(|d| panic!("{d:?}"));
        let stopped = prepared.simulate().err().map(|d| d.code);
        assert!(stopped.is_some(), "{name}: the simulator ran it clean");
        let (mut seen, mut stuck) = (0, 0);
        for _ in 0..64 {
            match cuda::run(&gpu, &prepared, source) {
                Ok(out) => {
                    if let Some(Arg::Tensor(t)) = out.args.params.last() {
                        seen += t.bits.iter().filter(|&&b| b != 0).count();
                    }
                }
                // The loop guard stopped a CTA that waited past the step limit's budget.
                Err(runtime::RuntimeError::Runaway { .. }) => stuck += 1,
                Err(error) => panic!("{name}: {error}"),
            }
        }
        eprintln!(
            "{name} on {}: the simulator stops it ({stopped:?}); on the GPU, {seen} of {} pairs saw the flag, {stuck} of 64 launches stopped by the loop guard",
            gpu.report.name,
            64 * 256
        );
    }
}
