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
                        let bytes = tensor.bits.len() as u64 * tensor.element.size();
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
                    Argument::Word(word) => {
                        let param = kernel
                            .params
                            .iter()
                            .position(|p| name.ends_with(&format!("_param_{}", p.name())))
                            .unwrap_or_else(|| panic!("{context}: no such scalar"));
                        assert!(
                            matches!(prepared.args.params.get(param), Some(Arg::Scalar(bits)) if bits == word),
                            "{context}"
                        );
                        assert!(ty == "u32" || ty == "f32", "{context}");
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
