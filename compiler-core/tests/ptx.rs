//! The PTX backend: NVIDIA's own assembler (`ptxas`, from PyPI's `nvidia-cuda-nvcc-cu12`, which
//! `make test` installs) accepts every example for sm_70, sm_80 and sm_90, and the PTX of each
//! example is kept as a golden file (`TESSERA_BLESS=1` refreshes them; review the diff).

use compiler_core::ptx::Arch;
mod common;

use common::{examples, root, Golden};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `$PTXAS`, else the copy `make test` puts in `.tools/venv`.
fn ptxas() -> PathBuf {
    if let Some(path) = std::env::var_os("PTXAS") {
        return PathBuf::from(path);
    }
    let lib = root().join(".tools/venv/lib");
    let found = std::fs::read_dir(&lib).ok().and_then(|entries| {
        entries
            .filter_map(Result::ok)
            .map(|e| e.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas"))
            .find(|p| p.exists())
    });
    found.unwrap_or_else(|| {
        panic!("ptxas not found: set PTXAS or run `make test`, which installs it")
    })
}

fn ptx(source: &str, arch: Arch) -> compiler_core::ptx::Ptx {
    match compiler_core::compile(source).ptx(None, arch) {
        Ok(ptx) => ptx,
        Err(diagnostics) => panic!("{diagnostics:?}"),
    }
}

/// Whether `source`'s kernel is refused for `arch` because it uses `mma` and `arch` is sm_70,
/// which has no m16n8k16 (E0522): the one refusal an example may meet.
fn refused_for_mma(source: &str, arch: Arch) -> bool {
    arch == Arch::Sm70
        && matches!(compiler_core::compile(source).ptx(None, arch),
            Err(d) if d.iter().any(|d| d.code == compiler_core::Code::E0522))
}

/// `text` assembled by ptxas for `arch` (written to a file named `name` in the temp folder).
fn assemble(name: &str, text: &str, arch: Arch) -> std::process::Output {
    let file = std::env::temp_dir().join(format!(
        "tessera-{}-{name}.{}.ptx",
        std::process::id(),
        arch.name()
    ));
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("{e}"));
    Command::new(ptxas())
        .arg(format!("-arch={}", arch.name()))
        .arg(&file)
        .arg("-o")
        .arg(file.with_extension("cubin"))
        .output()
        .unwrap_or_else(|e| panic!("ptxas: {e}"))
}

#[test]
fn ptxas_accepts_every_example_for_every_target() {
    let mut failures = Vec::new();
    for (name, source) in examples() {
        for arch in Arch::ALL {
            if refused_for_mma(&source, arch) {
                continue;
            }
            let output = assemble(&name, &ptx(&source, arch).text, arch);
            if !output.status.success() {
                failures.push(format!(
                    "{name} {}: {}",
                    arch.name(),
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "ptxas rejected:\n{}",
        failures.join("\n")
    );
}

/// The loop guard's PTX (the option a GPU run uses): every example assembles for every target,
/// the guard's word is the last parameter, and each loop counts its trips at its top.
#[test]
fn ptxas_accepts_every_example_with_its_loops_guarded() {
    let mut failures = Vec::new();
    for (name, source) in examples() {
        let compilation = compiler_core::compile(&source);
        let Ok(kernel) = compilation.kernel(None) else {
            panic!("{name}: no kernel");
        };
        for arch in Arch::ALL {
            if refused_for_mma(&source, arch) {
                continue;
            }
            let guarded = compiler_core::ptx::emit(
                kernel,
                &source,
                arch,
                compiler_core::ptx::Guard::Trips(1000),
            )
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
            let loops = guarded
                .loop_guard
                .clone()
                .map(|g| g.loops)
                .unwrap_or_default();
            let text = &guarded.text;
            assert!(
                text.contains(&format!(".param .u64 {}_loop_guard\n)", kernel.name)),
                "{name}: the guard is not the last parameter"
            );
            assert_eq!(
                text.matches("setp.gt.u32").count(),
                loops.len(),
                "{name}: a check per loop"
            );
            for number in 1..=loops.len() {
                let stop = format!("], {number};\n    exit;");
                assert!(text.contains(&stop), "{name}: no stop for loop {number}");
            }
            let output = assemble(&format!("{name}-guarded"), text, arch);
            if !output.status.success() {
                failures.push(format!(
                    "{name} {}: {}",
                    arch.name(),
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "ptxas rejected:\n{}",
        failures.join("\n")
    );
}

#[test]
fn ptxas_rejects_broken_ptx_with_a_line_number() {
    let source =
        std::fs::read_to_string(root().join("examples/vector_add.tsr")).unwrap_or_default();
    let broken = ptx(&source, Arch::Sm70)
        .text
        .replacen("add.s32", "add.bogus", 1);
    let file = std::env::temp_dir().join(format!("tessera-broken-{}.ptx", std::process::id()));
    std::fs::write(&file, broken).unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(ptxas())
        .arg("-arch=sm_70")
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("error"),
        "{output:?}"
    );
}

#[test]
fn golden_ptx_for_every_example() {
    let mut golden = Golden::default();
    for (name, source) in examples() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/ptx/{name}.sm_80.ptx"));
        golden.check(&path, &ptx(&source, Arch::Sm80).text);
    }
    golden.finish();
}

#[test]
fn versions_warp_index_and_partial_warp_masks() {
    let source = std::fs::read_to_string(root().join("examples/lane_ids.tsr")).unwrap_or_default();
    for (arch, version) in [
        (Arch::Sm70, ".version 6.0"),
        (Arch::Sm80, ".version 7.0"),
        (Arch::Sm90, ".version 7.8"),
    ] {
        let text = ptx(&source, arch).text;
        assert!(text.contains(version), "{text}");
        assert!(text.contains(&format!(".target {}", arch.name())));
        assert!(!text.contains("%warpid"));
        assert!(text.contains("shr.u32"), "the warp index is %tid.x / 32");
        // 48 threads: warp 1 has lanes 0 to 15.
        assert!(
            text.contains("selp.b32 %r") && text.contains("0x0000ffff, -1,"),
            "{text}"
        );
        assert!(text.contains("vote.sync.ballot.b32"), "{text}");
    }
}

#[test]
fn integer_reductions_use_redux_from_sm_80_and_floats_a_butterfly() {
    let source =
        std::fs::read_to_string(root().join("examples/warp_reduce.tsr")).unwrap_or_default();
    assert!(!ptx(&source, Arch::Sm70).text.contains("redux.sync"));
    assert!(ptx(&source, Arch::Sm70).text.contains("shfl.sync.bfly.b32"));
    assert!(ptx(&source, Arch::Sm80).text.contains("redux.sync.add.s32"));
    let floats = std::fs::read_to_string(root().join("examples/matvec.tsr")).unwrap_or_default();
    let text = ptx(&floats, Arch::Sm90).text;
    assert!(!text.contains("redux.sync"));
    assert!(text.contains("shfl.sync.bfly.b32"));
}

#[test]
fn source_lines_are_comments_and_the_line_map_points_back() {
    let source = std::fs::read_to_string(root().join("examples/matvec.tsr")).unwrap_or_default();
    let ptx = ptx(&source, Arch::Sm70);
    assert!(
        ptx.text.contains("    // 9: acc += W[col, k] * A[0, k]\n"),
        "{}",
        ptx.text
    );
    let lines: Vec<&str> = ptx.text.lines().collect();
    // The first global load is W[col, k]: its line maps to exactly that expression.
    let load_line = lines
        .iter()
        .position(|l| l.contains("ld.global.f32"))
        .map(|i| i + 1)
        .unwrap_or(0);
    let mapped = ptx
        .line_map
        .iter()
        .find(|(line, _)| *line == load_line)
        .map(|(_, span)| &source[span.range()]);
    assert_eq!(mapped, Some("W[col, k]"));
}

/// The lines between a loop's label and its back branch.
fn loop_body(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("$L_loop_"))
        .take_while(|l| !l.trim_start().starts_with("bra $L_loop_"))
        .collect()
}

#[test]
fn counting_loops_advance_pointers_instead_of_recomputing_addresses() {
    let source = std::fs::read_to_string(root().join("examples/matvec.tsr")).unwrap_or_default();
    let text = ptx(&source, Arch::Sm90).text;
    let body = loop_body(&text);
    assert_eq!(body.iter().filter(|l| l.contains("ld.global")).count(), 2);
    assert!(!body.iter().any(|l| l.contains("mul.wide")), "{body:#?}");
    assert_eq!(
        body.iter().filter(|l| l.contains("add.s64")).count(),
        2,
        "one pointer per tensor advances per trip: {body:#?}"
    );
    assert!(text.contains("walks W with the loop"), "{text}");
    // A loop whose index is assigned in its body keeps computing each address.
    let mixed = "@launch(32)\nkernel k(A: tensor<f32>[N]) {\n  for i in range(0, N, 1) {\n    var j = i\n    j += 1\n    if j < N {\n      A[j] = 1.0\n    }\n  }\n}\n";
    let body_text = ptx(mixed, Arch::Sm70).text;
    assert!(loop_body(&body_text).iter().any(|l| l.contains("mul.wide")));
}

#[test]
fn integer_division_by_a_power_of_two_is_a_shift() {
    let source =
        std::fs::read_to_string(root().join("examples/tiled_transpose.tsr")).unwrap_or_default();
    let text = ptx(&source, Arch::Sm90).text;
    assert!(
        !text.contains("div.s32") && !text.contains("rem.s32"),
        "{text}"
    );
    assert!(text.contains("shr.s32"));
    let odd = "@launch(32)\nkernel k(A: tensor<i32>[N]) {\n  A[ctx.lane] = ctx.lane / 3\n}\n";
    assert!(ptx(odd, Arch::Sm70).text.contains("div.s32"));
}

#[test]
fn the_entry_requires_the_launch_threads() {
    let source = std::fs::read_to_string(root().join("examples/matvec.tsr")).unwrap_or_default();
    assert!(ptx(&source, Arch::Sm70).text.contains(".reqntid 256, 1, 1"));
}

/// The review's kernel: the loop starts at r = -3145728, whose flat index -3145728 * 1024 wraps
/// in 32 bits; only r = 0 is loaded.
const WRAPPING_START: &str = "@launch(32)\nkernel k(A: tensor<f32>[2, 1024], Out: tensor<f32>[1024]) {\n  let t = ctx.thread\n  var acc = 0.0\n  for r in range(-3145728, 2, 1048576) {\n    if r >= 0 {\n      acc += A[r, t]\n    }\n  }\n  Out[t] = acc\n}\n";

#[test]
fn an_induction_pointer_starts_from_its_index_in_64_bits() {
    let text = ptx(WRAPPING_START, Arch::Sm80).text;
    assert!(text.contains("walks A with the loop"), "{text}");
    let before_loop: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("cvt.s64.s32"))
        .take_while(|l| !l.starts_with("$L_loop_"))
        .collect();
    // The start: r sign-extended, times 1024 and plus t in 64 bits, then 4 bytes each.
    assert!(
        before_loop.iter().any(|l| l.contains("mul.lo.s64")),
        "{before_loop:#?}"
    );
    assert!(
        !before_loop.iter().any(|l| l.contains("mad.lo.s32")),
        "no 32-bit flat index feeds the pointer: {before_loop:#?}"
    );
    // The step: 1048576 rows of 1024 elements, 4 bytes each, widened before it can wrap
    // (2^32 bytes a trip).
    let widened = before_loop
        .iter()
        .position(|l| l.contains("mul.wide.s32"))
        .unwrap_or(usize::MAX);
    assert!(
        before_loop
            .get(widened + 1)
            .is_some_and(|l| l.contains("shl.b64")),
        "{before_loop:#?}"
    );
    // The simulator reads A[0, t] at r = 0, which the pointer now reaches exactly.
    let launch = compiler_core::launch::Launch {
        inputs: [("A".to_owned(), compiler_core::launch::Input::Iota)].into(),
        ..Default::default()
    };
    let out = compiler_core::compile(WRAPPING_START)
        .run(&launch)
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let Some(compiler_core::sim::Arg::Tensor(result)) = out.args.params.get(1) else {
        panic!("no Out")
    };
    let first: Vec<f32> = result.bits[..4]
        .iter()
        .map(|b| f32::from_bits(*b))
        .collect();
    assert_eq!(first, [0.0, 1.0, 2.0, 3.0]);
}

#[test]
fn ptxas_accepts_the_64_bit_induction_start() {
    let output = assemble("wrap", &ptx(WRAPPING_START, Arch::Sm90).text, Arch::Sm90);
    assert!(output.status.success(), "{output:?}");
}

/// A kernel whose one tile is `rows` x 128 f32.
fn tile_kernel(rows: u32) -> String {
    format!("@launch(256)\nkernel k(A: tensor<f32>[{rows}, 128], Out: tensor<f32>[{rows}, 128]) {{\n  var t = A[0 :+ {rows}, 0 :+ 128]\n  for e in range(ctx.thread, {rows} * 128, ctx.threads) {{\n    Out[e / 128, e % 128] = t[e / 128, e % 128] + 1.0\n  }}\n}}\n")
}

#[test]
fn a_tile_at_the_shared_memory_limit_assembles_and_one_past_it_is_refused() {
    // 96 x 128 x 4 bytes = 49152, the 48 KiB a CTA may declare.
    let at_limit = tile_kernel(96);
    for arch in Arch::ALL {
        let output = assemble("tile", &ptx(&at_limit, arch).text, arch);
        assert!(output.status.success(), "{} {output:?}", arch.name());
    }
    // 128 x 128 x 4 = 65536 bytes: ptxas would say "uses too much shared data".
    let past = compiler_core::compile(&tile_kernel(128));
    assert!(past.diagnostics.is_empty(), "the checker accepts it");
    for arch in Arch::ALL {
        let Err(diagnostics) = past.ptx(None, arch) else {
            panic!("PTX for 64 KiB of shared memory on {}", arch.name())
        };
        assert_eq!(diagnostics[0].code, compiler_core::Code::E0521);
        assert_eq!(
            diagnostics[0].message,
            format!(
                "kernel `k` needs 65536 bytes of shared memory; a CTA on {} may have 49152",
                arch.name()
            )
        );
    }
}

/// The playground's occupancy reads a kernel's shared memory without emitting its PTX: the
/// figure must be the one the PTX declares, for every example (tiles; a CTA-wide reduction's
/// warp partials).
#[test]
fn shared_memory_is_known_without_emitting() {
    let mut with_partials = 0;
    for (name, source) in examples() {
        let compilation = compiler_core::compile(&source);
        let kernel = compilation
            .kernel(None)
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let emitted = ptx(&source, Arch::Sm80);
        assert_eq!(
            compiler_core::ptx::shared_bytes(kernel),
            emitted.shared_bytes,
            "{name}"
        );
        with_partials += usize::from(emitted.text.contains("_warp_partials"));
    }
    assert!(with_partials > 0, "no example reduces over the CTA");
}

/// A CTA scan keeps a slot per warp, not per thread: 1,024 threads are 32 warps of 32 lanes, so
/// 128 bytes, and a kernel with 45,200 bytes of tiles beside it still fits the 48 KiB a CTA may
/// declare (it took 4 KiB and was refused, E0521). Warp 0 scans the totals a warp's width at a
/// time up to `ctx.warps`: one trip for 32 warps.
#[test]
fn a_cta_scan_keeps_a_slot_per_warp() {
    let source = "@launch(1024)\nkernel k(Y: tensor<i32>[N]) {\n  var big = tile<f32>[11300](0.0)\n  let i = ctx.block.x * ctx.threads + ctx.thread\n  let s = prefix_sum<over ctx.thread>(1)\n  if i < N {\n    Y[i] = s + i32(big[ctx.thread])\n  }\n}\n";
    let compilation = compiler_core::compile(source);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    for arch in Arch::ALL {
        let emitted = compilation
            .ptx(None, arch)
            .unwrap_or_else(|d| panic!("{}: {d:?}", arch.name()));
        assert_eq!(emitted.shared_bytes, 45_200 + 128, "{}", arch.name());
        assert!(
            emitted.text.contains("_warp_totals[128]"),
            "{}",
            emitted.text
        );
        assert_eq!(
            assemble("scan_slots", &emitted.text, arch).status.code(),
            Some(0)
        );
    }
    let ir = compiler_core::ir::print(compilation.ir().unwrap_or_else(|d| panic!("{d:?}")));
    assert!(
        ir.contains("warp_totals: i32[ctx.warps, at most 1024]"),
        "{ir}"
    );
}

/// The PTX of `tests/wgsl/NAME.tsr` for each target, each checked by ptxas.
fn assembled_test_kernel(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/wgsl/{name}.tsr"));
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    Arch::ALL
        .into_iter()
        .map(|arch| {
            let text = ptx(&source, arch).text;
            assert_assembles(name, &text, arch);
            text
        })
        .collect()
}

/// `text` assembled by ptxas for `arch`, or the test fails with ptxas's words.
fn assert_assembles(name: &str, text: &str, arch: Arch) {
    let output = assemble(name, text, arch);
    assert!(
        output.status.success(),
        "{}: {}",
        arch.name(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Whether each of `instructions` is in every one of `texts`.
fn assert_has_instructions(texts: &[String], instructions: &[&str]) {
    for text in texts {
        for instruction in instructions {
            assert!(text.contains(instruction), "{instruction}: {text}");
        }
    }
}

/// The spec's edges (tests/wgsl/edges.tsr: saturating casts, `round trunc sign erf pow` on
/// floats and `sign` on integers) assemble for every target, each built-in by its instruction.
#[test]
fn ptxas_accepts_the_spec_edges_and_the_numpy_built_ins() {
    assert_has_instructions(
        &assembled_test_kernel("edges"),
        &[
            "cvt.rni.f32.f32",
            "cvt.rzi.f32.f32",
            "lg2.approx.f32",
            "ex2.approx.f32",
            "setp.gt.s32",
        ],
    );
}

/// 64-bit integers (tests/wgsl/wide.tsr) assemble for every target, on native 64-bit
/// registers and instructions: loads, stores, arithmetic, shifts, conversions, the atomic add.
#[test]
fn ptxas_accepts_64_bit_integers() {
    assert_has_instructions(
        &assembled_test_kernel("wide"),
        &[
            "ld.global.u64",
            "st.global.u64",
            "mul.lo.s64",
            "rem.s64",
            "div.u64",
            "shl.b64",
            "shr.s64",
            "shr.u64",
            "cvt.rn.f32.s64",
            "cvt.rn.f32.u64",
            "cvt.rzi.s64.f32",
            "cvt.rzi.u64.f32",
            "setp.lt.s64",
            "red.global.add.u64",
        ],
    );
}

/// `f16` (tests/wgsl/half.tsr) assembles for every target: two-byte loads and stores, and
/// each rounding a `cvt.rn.f16.f32` and back.
#[test]
fn ptxas_accepts_f16_loads_stores_and_roundings() {
    assert_has_instructions(
        &assembled_test_kernel("half"),
        &[
            "ld.global.b16",
            "st.global.b16",
            "ld.shared.b16",
            "st.shared.b16",
            "cvt.rn.f16.f32",
            "cvt.f32.f16",
        ],
    );
}

/// 8-bit tensors (tests/wgsl/bytes.tsr) assemble for every target: byte loads that extend
/// into a 32-bit register, byte stores of its low byte.
#[test]
fn ptxas_accepts_byte_loads_and_stores() {
    assert_has_instructions(
        &assembled_test_kernel("bytes"),
        &[
            "ld.global.s8",
            "ld.global.u8",
            "st.global.s8",
            "st.global.u8",
        ],
    );
}

/// Every atomic (tests/wgsl/atomics.tsr) assembles for every target: `red` where the old
/// value is dropped, `atom` where it is used, an exchange always by `atom`, atomic_sub as the
/// add of a negation (PTX has no `atom.sub`), f32 adds on global and shared memory.
#[test]
fn ptxas_accepts_every_atomic_and_each_takes_its_instruction() {
    for text in assembled_test_kernel("atomics") {
        let instructions: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("atom.") || l.starts_with("red."))
            .map(|l| l.split_whitespace().next().unwrap_or(""))
            .collect();
        assert_eq!(
            instructions,
            [
                "red.global.add.u32",
                "red.global.add.u32",
                "red.global.min.s32",
                "atom.global.max.s32",
                "red.global.max.s32",
                "red.global.and.b32",
                "red.global.or.b32",
                "red.global.xor.b32",
                "atom.global.exch.b32",
                "red.global.or.b32",
                "atom.global.cas.b32",
                "red.global.add.u32",
                "atom.global.add.u32",
                "red.shared.add.u32",
                "red.shared.max.u32",
                "red.shared.add.f32",
                "red.global.add.f32",
                // The subnormal terms and start (issue 51): global f32 adds, which flush them.
                "red.global.add.f32",
                "red.global.add.f32",
                "red.global.add.u32",
                "red.global.add.f32",
                "red.global.max.u32",
            ],
            "{text}"
        );
        assert!(text.contains("neg.s32"), "{text}");
    }
}

/// A program's PTX is one module with an entry per kernel it launches (its runner launches them
/// in order): ptxas accepts each program example's for every target.
#[test]
fn ptxas_accepts_every_program_as_one_module() {
    for example in compiler_core::examples::programs() {
        let compilation = compiler_core::compile(example.source);
        let kernels = compilation.kernel_names();
        for arch in Arch::ALL {
            let text = match compilation.ptx(Some(example.name), arch) {
                Ok(ptx) => ptx.text,
                Err(d) => panic!("{}: {d:?}", example.name),
            };
            assert_eq!(text.matches(".version").count(), 1, "{text}");
            for kernel in &kernels {
                assert!(
                    text.contains(&format!(".visible .entry {kernel}(")),
                    "{} lacks {kernel}",
                    example.name
                );
            }
            let output = assemble(example.name, &text, arch);
            assert!(
                output.status.success(),
                "{} {}: {}",
                example.name,
                arch.name(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

/// An in-register array's constant index past its end (an unrolled copy the simulator stops
/// at) reads 0 and stores nothing: ptxas had refused the `.local` symbol such an array lacks.
#[test]
fn ptxas_accepts_a_constant_array_index_past_the_end() {
    let source = "@launch(32)\nkernel k(X: tensor<f32>[N], Y: tensor<f32>[N]) {\n  var a = array<f32>[8](0.0)\n  for q in range(9) {\n    a[q] = X[ctx.thread] + f32(q)\n  }\n  Y[ctx.thread] = a[7] + a[3 + 5]\n}\n";
    for arch in Arch::ALL {
        let text = ptx(source, arch).text;
        assert!(!text.contains(".local"), "{text}");
        assert_assembles("past_the_end", &text, arch);
    }
}

/// A 64-bit per-thread array, in registers (every index a constant) and in `.local` memory (an
/// index known at run time), assembles for every target with whole 64-bit moves, loads and
/// stores: its fill and element moves had been `mov.b32` of `.b64` registers (refused), its
/// `.local` elements 4 bytes wide, stored by a `.u32` that keeps the low word only.
#[test]
fn ptxas_accepts_64_bit_per_thread_arrays() {
    let source = "@launch(32)\nkernel k(X: tensor<u64>[N], Y: tensor<u64>[N]) {\n  let i = ctx.thread\n  var s = array<u64>[4](1)\n  var m = array<i64>[4](0)\n  for q in range(4) {\n    s[q] = X[i] * u64(q + 1) ^ s[q]\n    m[(i + q) & 3] = i64(q) - 5\n  }\n  Y[i] = s[0] + s[3] + bitcast<u64>(m[i & 3])\n}\n";
    for arch in Arch::ALL {
        let text = ptx(source, arch).text;
        assert!(text.contains("mov.b64"), "{text}");
        assert!(!text.contains("mov.b32 %rd"), "{text}");
        assert!(text.contains("st.local.s64"), "{text}");
        assert!(text.contains("ld.local.s64"), "{text}");
        assert!(text.contains("mul.wide.s32 %rd"), "{text}");
        assert_assembles("wide_arrays", &text, arch);
    }
}

/// E0522 is the matrix instruction's: loads and stores at the fragment map (the tensor-cores
/// page's `held`) are plain loads and stores, and assemble for sm_70 too; a kernel with an
/// `mma` is refused there, at the `mma`.
#[test]
fn only_the_matrix_instruction_needs_sm_80() {
    let held = "@launch(32)\nkernel held(A: tensor<f16>[16, 16], Held: tensor<f32>[32, 8]) {\n  let a = mma_load_a<over ctx.lane>(A[0 :+ 16, 0 :+ 16])\n  for i in range(8) {\n    Held[ctx.lane, i] = f32(a[i])\n  }\n}\n";
    for arch in Arch::ALL {
        assert_assembles("held", &ptx(held, arch).text, arch);
    }
    let product = "@launch(32)\nkernel k(A: tensor<f16>[16, 16], B: tensor<f16>[16, 8], C: tensor<f32>[16, 8]) {\n  let a = mma_load_a<over ctx.lane>(A[0 :+ 16, 0 :+ 16])\n  let b = mma_load_b<over ctx.lane>(B[0 :+ 16, 0 :+ 8])\n  var acc = array<f32>[4](0.0)\n  acc = mma<over ctx.lane>(a, b, acc)\n  mma_store<over ctx.lane>(C[0 :+ 16, 0 :+ 8], acc)\n}\n";
    let Err(refused) = compiler_core::compile(product).ptx(None, Arch::Sm70) else {
        panic!("sm_70 has no mma")
    };
    let at = product.find("mma<over").unwrap_or_default();
    assert!(
        refused
            .iter()
            .any(|d| d.code == compiler_core::Code::E0522 && d.span.start == at),
        "{refused:?}"
    );
}
