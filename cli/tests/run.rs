//! `tessera run` and `tessera ir`: .npy in and out, dimensions from shapes, clear errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(error) = std::fs::create_dir_all(&dir) {
        panic!("{error}");
    }
    dir
}

fn tessera(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
    {
        Ok(output) => output,
        Err(error) => panic!("tessera did not start: {error}"),
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn write_f32(path: &Path, shape: &[u64], values: &[f32]) {
    use npyz::WriterBuilder;
    let file = std::fs::File::create(path).unwrap_or_else(|e| panic!("{e}"));
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()
        .unwrap_or_else(|e| panic!("{e}"));
    writer
        .extend(values.iter().copied())
        .unwrap_or_else(|e| panic!("{e}"));
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
}

fn read_f32(path: &Path) -> (Vec<u64>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
    let shape = npy.shape().to_vec();
    (
        shape,
        npy.into_vec::<f32>().unwrap_or_else(|e| panic!("{e}")),
    )
}

#[test]
fn vector_add_from_npy_files_to_npy_files() {
    let dir = scratch("add");
    let a: Vec<f32> = (0..300).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..300).map(|i| 1000.0 - i as f32).collect();
    write_f32(&dir.join("a.npy"), &[300], &a);
    write_f32(&dir.join("b.npy"), &[300], &b);
    let file = examples().join("vector_add.tsr");
    let out = dir.join("out");
    let output = tessera(&[
        "run",
        &file.to_string_lossy(),
        "--grid",
        "2",
        "--in",
        &format!("A={}", dir.join("a.npy").display()),
        "--in",
        &format!("B={}", dir.join("b.npy").display()),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .starts_with("ran vector_add on the simulator, 2 x 1 x 1 CTAs of 256 threads"),
        "{}",
        stderr(&output)
    );
    let (shape, c) = read_f32(&out.join("C.npy"));
    assert_eq!(shape, vec![300]);
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, expected);
    assert_eq!(read_f32(&out.join("A.npy")).1, a);
}

/// A rank-4 NCHW batch from .npy, its four dimensions inferred from the shape, and back to .npy
/// with its shape: each channel scaled and shifted by its own numbers.
#[test]
fn a_rank_4_nchw_batch_goes_through_npy_files() {
    let dir = scratch("nchw");
    let (n, c, h, w) = (2u64, 3, 4, 5);
    let x: Vec<f32> = (0..n * c * h * w).map(|i| i as f32).collect();
    write_f32(&dir.join("x.npy"), &[n, c, h, w], &x);
    write_f32(&dir.join("scale.npy"), &[c], &[1.0, 2.0, 0.5]);
    write_f32(&dir.join("shift.npy"), &[c], &[0.0, 10.0, -1.0]);
    let file = examples().join("channel_scale.tsr");
    let out = dir.join("out");
    let input = |name: &str, file: &str| format!("{name}={}", dir.join(file).display());
    let output = tessera(&[
        "run",
        &file.to_string_lossy(),
        "--grid",
        "1,3,2",
        "--in",
        &input("X", "x.npy"),
        "--in",
        &input("Scale", "scale.npy"),
        "--in",
        &input("Shift", "shift.npy"),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (shape, y) = read_f32(&out.join("Y.npy"));
    assert_eq!(shape, vec![n, c, h, w]);
    let expected: Vec<f32> = x
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let channel = (i as u64 / (h * w)) % c;
            v * [1.0, 2.0, 0.5][channel as usize] + [0.0, 10.0, -1.0][channel as usize]
        })
        .collect();
    assert_eq!(y, expected);
}

/// f16 tensors are numpy's float16 (`<f2`) both ways: dot_f16 reads two float16 files and
/// writes its f16 result as float16, rounded once from the f32 sum.
#[test]
fn f16_tensors_are_float16_npy_files() {
    use npyz::WriterBuilder;
    let dir = scratch("float16");
    let write = |name: &str, values: &[f32]| {
        let file = std::fs::File::create(dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
        let mut writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&[values.len() as u64])
            .writer(file)
            .begin_nd()
            .unwrap_or_else(|e| panic!("{e}"));
        writer
            .extend(values.iter().map(|&v| half::f16::from_f32(v)))
            .unwrap_or_else(|e| panic!("{e}"));
        writer.finish().unwrap_or_else(|e| panic!("{e}"));
    };
    // 0.1 is not an f16: the file holds the nearest, 0.0999755859375.
    let a: Vec<f32> = (0..300)
        .map(|i| if i % 2 == 0 { 0.1 } else { 1.5 })
        .collect();
    let b = vec![3.0f32; 300];
    write("a.npy", &a);
    write("b.npy", &b);
    let out = dir.join("out");
    let input = |name: &str, file: &str| format!("{name}={}", dir.join(file).display());
    let output = tessera(&[
        "run",
        &examples().join("dot_f16.tsr").to_string_lossy(),
        "--in",
        &input("A", "a.npy"),
        "--in",
        &input("B", "b.npy"),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let bytes = std::fs::read(out.join("Out.npy")).unwrap_or_else(|e| panic!("{e}"));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(npy.dtype().descr().replace('\'', ""), "<f2");
    let got = npy
        .into_vec::<half::f16>()
        .unwrap_or_else(|e| panic!("{e}"));
    // 150 × 0.0999755859375 × 3 + 150 × 4.5 = 719.989…, whose nearest f16 is 720.
    let wide: f64 = 150.0 * 0.0999755859375 * 3.0 + 150.0 * 4.5;
    assert_eq!(got, vec![half::f16::from_f64(wide)]);
    assert_eq!(got[0].to_f32(), 720.0);
}

/// 8-bit tensors are numpy's int8 and uint8 (`|i1`, `|u1`): quantize writes its i8 result as
/// int8, clamped and wrapped as the kernel says.
#[test]
fn eight_bit_tensors_are_int8_npy_files() {
    let dir = scratch("int8");
    let x: Vec<f32> = vec![0.5, -0.5, 1.0, -1.0, 0.0123, 3.0];
    write_f32(&dir.join("x.npy"), &[x.len() as u64], &x);
    let out = dir.join("out");
    let output = tessera(&[
        "run",
        &examples().join("quantize.tsr").to_string_lossy(),
        "--scalar",
        "scale=0.01",
        "--in",
        &format!("X={}", dir.join("x.npy").display()),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let bytes = std::fs::read(out.join("Q.npy")).unwrap_or_else(|e| panic!("{e}"));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(npy.dtype().descr().replace('\'', ""), "|i1");
    let q = npy.into_vec::<i8>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(q, vec![50, -50, 100, -100, 1, 127]);
    // And back in: an int8 file is a tensor<i8>'s input; a float file is refused.
    let again = tessera(&[
        "run",
        &examples().join("quantize.tsr").to_string_lossy(),
        "--scalar",
        "scale=0.01",
        "--in",
        &format!("X={}", dir.join("x.npy").display()),
        "--in",
        &format!("Q={}", out.join("Q.npy").display()),
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    let wrong = tessera(&[
        "run",
        &examples().join("quantize.tsr").to_string_lossy(),
        "--scalar",
        "scale=0.01",
        "--in",
        &format!("Q={}", dir.join("x.npy").display()),
    ]);
    assert!(!wrong.status.success());
    assert!(
        stderr(&wrong).contains("expected dtype |i1"),
        "{}",
        stderr(&wrong)
    );
}

/// numpy saves a transposed array in Fortran order (`np.save(p, A.T)`): the kernel must see the
/// array numpy means, not its bytes taken as row-major, and the output is written in C order.
#[test]
fn a_fortran_ordered_npy_is_read_as_numpy_means_it() {
    use npyz::WriterBuilder;
    let dir = scratch("fortran");
    // In = [[0, 1, 2], [3, 4, 5]], stored column by column: 0 3 1 4 2 5.
    let path = dir.join("in.npy");
    let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[2, 3])
        .order(npyz::Order::Fortran)
        .writer(file)
        .begin_nd()
        .unwrap_or_else(|e| panic!("{e}"));
    writer
        .extend([0.0f32, 3.0, 1.0, 4.0, 2.0, 5.0])
        .unwrap_or_else(|e| panic!("{e}"));
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    let output = tessera(&[
        "run",
        &examples().join("transpose.tsr").to_string_lossy(),
        "--grid",
        "1,2",
        "--in",
        &format!("In={}", path.display()),
        "--out",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    // Out = In transposed: [[0, 3], [1, 4], [2, 5]], written row by row.
    let (shape, values) = read_f32(&out.join("Out.npy"));
    assert_eq!(shape, vec![3, 2]);
    assert_eq!(values, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let bytes = std::fs::read(out.join("Out.npy")).unwrap_or_else(|e| panic!("{e}"));
    let written = npyz::NpyFile::new(&bytes[..]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(written.order(), npyz::Order::C);
    // The input is written back as the kernel saw it: row-major.
    assert_eq!(
        read_f32(&out.join("In.npy")).1,
        vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    );
}

#[test]
fn a_dtype_that_does_not_match_the_parameter_is_an_error() {
    let dir = scratch("dtype");
    let path = dir.join("ints.npy");
    npyz::to_file_1d(&path, vec![1i32, 2, 3]).unwrap_or_else(|e| panic!("{e}"));
    let file = examples().join("vector_add.tsr");
    let output = tessera(&[
        "run",
        &file.to_string_lossy(),
        "--in",
        &format!("A={}", path.display()),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("holds <i4 values, but `A` is a tensor of f32 (expected dtype <f4)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn generators_and_explicit_dimensions() {
    let file = examples().join("lane_ids.tsr");
    let output = tessera(&["run", &file.to_string_lossy()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Mask [48] u32: [0xffffffff,"), "{stdout}");
    assert!(stdout.contains("0x0000ffff]"), "{stdout}");
}

#[test]
fn a_launch_that_does_not_fit_exits_one() {
    let file = examples().join("vector_add.tsr");
    let output = tessera(&["run", &file.to_string_lossy(), "--dim", "N=8"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = tessera(&["run", &file.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("dimension N has no value"),
        "{}",
        stderr(&output)
    );
}

/// A launch error points at the parameter or dimension it concerns and names the flag; a
/// `--dim` the kernel lacks and a fraction for an integer scalar are errors, not ignored.
#[test]
fn a_launch_error_points_at_the_signature_and_names_the_flag() {
    let file = examples().join("vector_add.tsr");
    let path = file.to_string_lossy();
    let output = tessera(&["run", &path, "--dim", "N=8", "--dim", "X=2"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        format!(
            "\
error[E0515]: kernel `vector_add` has no dimension X
 --> {path}:3:8
  |
3 | kernel vector_add(A: tensor<f32>[N], B: tensor<f32>[N], C: tensor<f32>[N]) {{
  |        ^^^^^^^^^^ `--dim X=…` names no dimension of this kernel
  = help: its dimensions are N

error: the run stopped
"
        )
    );
    let output = tessera(&["run", &path]);
    assert!(
        stderr(&output).contains(&format!(
            "\
error[E0515]: dimension N has no value
 --> {path}:3:34
  |
3 | kernel vector_add(A: tensor<f32>[N], B: tensor<f32>[N], C: tensor<f32>[N]) {{
  |                                  ^ set by `--dim N=…` or an input's shape
"
        )),
        "{}",
        stderr(&output)
    );
    let dir = scratch("integer-scalar");
    let kernel = dir.join("k.tsr");
    let source = "@launch(32)\nkernel k(n: i32, Y: tensor<i32>[32]) {\n  Y[ctx.thread] = n\n}\n";
    std::fs::write(&kernel, source).unwrap_or_else(|e| panic!("{e}"));
    let kernel = kernel.to_string_lossy();
    let output = tessera(&["run", &kernel, "--scalar", "n=2.7"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "\
error[E0515]: the scalar `n: i32` takes an integer, not 2.7
 --> "
        ) && stderr(&output).contains(
            "\
  |          ^ set by `--scalar n=…`
  = help: give it an integer (on the command line: --scalar n=2)
"
        ),
        "{}",
        stderr(&output)
    );
    assert!(tessera(&["run", &kernel, "--scalar", "n=-3"])
        .status
        .success());
    // `--in` for a name the kernel lacks, or for a scalar, is a launch problem like the rest.
    let output = tessera(&["run", &path, "--dim", "N=8", "--in", "Q=iota"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("error[E0515]: kernel `vector_add` has no parameter `Q`")
            && stderr(&output).contains("`--in Q=…` names no parameter of this kernel")
            && stderr(&output).contains("help: its tensors are A, B, C"),
        "{}",
        stderr(&output)
    );
    let output = tessera(&["run", &kernel, "--scalar", "n=1", "--in", "n=iota"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("error[E0515]: `n` is a scalar, not a tensor")
            && stderr(&output).contains("a scalar: its value is set by `--scalar n=…`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_gpu_backend_runs_on_the_machines_vulkan_device() {
    let file = examples().join("lane_ids.tsr");
    let gpu = |extra: &[&str]| {
        let mut args = vec![
            "run",
            &file.to_str().unwrap_or_default(),
            "--backend",
            "gpu",
        ];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(&args)
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let report = pollster::block_on(runtime::probe()).unwrap_or_else(|e| panic!("{e}"));
    let width = report.subgroup_min_size;
    // 32 lanes by default: emulated unless the GPU's subgroups are exactly 32 wide (lavapipe's
    // are 8).
    let output = gpu(&[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = if report.fixed_subgroup_size() == Some(32) {
        "(warps are its subgroups of 32)".to_owned()
    } else {
        "(32-lane warps emulated)".to_owned()
    };
    assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
    // The kernel timed by the GPU's timestamps (lavapipe has them), or why not.
    let timed = if report.timestamps {
        "GPU time: the kernel alone: "
    } else {
        "GPU time: this GPU does not offer timestamps"
    };
    assert!(stderr(&output).contains(timed), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("Warp [48] i32: [0, 0,"), "{stdout}");
    assert!(stdout.contains("0x0000ffff"), "{stdout}");
    // The device's own width: its subgroups.
    let lanes = width.to_string();
    let output = gpu(&["--lanes", &lanes]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = format!("(warps are its subgroups of {width})");
    assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
}

#[test]
fn ir_prints_the_lowered_kernel() {
    let file = examples().join("saxpy.tsr");
    let output = tessera(&["ir", &file.to_string_lossy()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with(
            "kernel saxpy(alpha: f32, X: tensor<f32>[N], Y: tensor<f32>[N]) threads=128 {\n"
        ),
        "{text}"
    );
    assert!(text.contains("  if %7 {\n    return\n  }\n"), "{text}");
    assert!(text.contains("store Y[%5.i] = %11"), "{text}");
}

#[test]
fn ptx_for_a_target_to_a_file() {
    let dir = scratch("ptx");
    let file = examples().join("matvec.tsr");
    let out = dir.join("mv.ptx");
    let output = tessera(&[
        "ptx",
        &file.to_string_lossy(),
        "--arch",
        "sm_90",
        "-o",
        &out.to_string_lossy(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(text.contains(".version 7.8\n.target sm_90\n"), "{text}");
    assert!(text.contains(".visible .entry mv("), "{text}");
    let bad = tessera(&["ptx", &file.to_string_lossy(), "--arch", "sm_61"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("`sm_61` is not a target: use sm_70, sm_80 or sm_90"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_kernel_past_its_step_limit_says_how_to_raise_it() {
    let dir = scratch("spin");
    let file = dir.join("spin.tsr");
    let source = "@launch(32)\nkernel spin(Y: tensor<i32>[32]) {\n  var n = 0\n  while true {\n    n += 1\n  }\n}\n";
    std::fs::write(&file, source).unwrap_or_else(|e| panic!("{e}"));
    let output = tessera(&["run", &file.display().to_string(), "--step-limit", "500"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(
        text.contains(
            "error[E0514]: the CTA ran 500 statements, its step limit, and had not finished"
        ),
        "{text}"
    );
    assert!(text.contains("help: a loop that never ends needs an end; a kernel that is only long needs a larger limit (`tessera run --step-limit N`)"), "{text}");
}

/// The kernel on the GPU: before the loop guard, lavapipe returned made-up results and
/// exit 0 (its driver leaves any loop after 65,535 trips). Now the run stops with E0514 at the
/// loop, by the guard under a small step limit and by the driver's cut under the default one.
#[test]
fn an_endless_loop_on_the_gpu_stops_with_e0514_at_the_loop() {
    let dir = scratch("endless");
    let file = dir.join("endless.tsr");
    let source = "@launch(32)\nkernel endless(Y: tensor<i32>[32]) {\n  var i = ctx.lane\n  while i >= 0 {\n    i = (i + 1) % 7\n  }\n  Y[ctx.lane] = i\n}\n";
    std::fs::write(&file, source).unwrap_or_else(|e| panic!("{e}"));
    let path = file.display().to_string();
    for limit in [Some("2000"), None] {
        let mut args = vec!["run", &path, "--backend", "gpu"];
        args.extend(limit.map(|l| ["--step-limit", l]).into_iter().flatten());
        let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(&args)
            .env("XDG_RUNTIME_DIR", "/tmp")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(text.contains("error[E0514]: "), "{text}");
        assert!(text.contains("endless.tsr:4:3"), "{text}");
        if limit.is_some() {
            assert!(
                text.contains("more than 2000 trips in one thread"),
                "{text}"
            );
        }
        assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    }
}

#[test]
fn ptx_and_wgsl_are_plain_unless_the_loop_guard_is_asked_for() {
    let file = examples().join("collatz.tsr");
    let path = file.to_string_lossy();
    for (command, marker) in [
        ("ptx", "collatz_loop_guard"),
        ("wgsl", "loop_guard[0u] = 1u;"),
    ] {
        let plain = tessera(&[command, &path]);
        assert!(plain.status.success(), "{}", stderr(&plain));
        assert!(!stdout(&plain).contains("loop_guard"), "{command}");
        let guarded = tessera(&[command, &path, "--loop-guard", "5000"]);
        assert!(guarded.status.success(), "{}", stderr(&guarded));
        assert!(
            stdout(&guarded).contains(marker),
            "{command}: {}",
            stdout(&guarded)
        );
        assert!(stdout(&guarded).contains("5000"), "{command}");
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn trace_prints_one_warps_steps_then_the_results() {
    let file = examples().join("lane_ids.tsr");
    let output = tessera(&["run", &file.to_string_lossy(), "--trace", "0,1"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("trace of block (0, 0, 0), warp 1 of 2: 4 steps")
    );
    assert_eq!(
        lines.next(),
        Some("step 1 of 4, line 5, 16 of 32 lanes active, mask 0x0000ffff: let t = ctx.thread")
    );
    assert_eq!(
        lines.next(),
        Some("  t = 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47")
    );
    assert!(text.contains("\nLane [48] i32: [0, 1, 2,"), "{text}");
}

#[test]
fn trace_as_json_has_each_steps_line_and_mask() {
    let file = examples().join("collatz.tsr");
    let output = tessera(&[
        "run",
        &file.to_string_lossy(),
        "--dim",
        "N=100",
        "--in",
        "Start=iota",
        "--grid",
        "2",
        "--trace",
        "1",
        "--json",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|e| panic!("{e}: {}", stdout(&output)));
    assert_eq!(json["block"]["x"], 1);
    assert_eq!(json["lanes"], 32);
    assert!(json["incomplete"].is_null());
    let steps = json["steps"].as_array().unwrap_or_else(|| panic!("steps"));
    assert_eq!(steps[0]["line"], 5, "let i = …");
    // Block 1 holds i = 64..127 and N = 100: `if i < N` lets threads 0..36 in.
    let inside = steps
        .iter()
        .find(|s| s["line"] == 7)
        .unwrap_or_else(|| panic!("the first statement inside the if"));
    assert_eq!(inside["active"], serde_json::json!([(1u64 << 36) - 1]));
}

#[test]
fn trace_outside_the_launch_is_an_error_that_says_the_range() {
    let file = examples().join("lane_ids.tsr");
    let path = file.to_string_lossy();
    let output = tessera(&["run", &path, "--trace", "1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the CTAs of a 1 x 1 x 1 grid are numbered 0 to 0"),
        "{}",
        stderr(&output)
    );
    let output = tessera(&["run", &path, "--trace", "0,2"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("has 2 warps"),
        "{}",
        stderr(&output)
    );
    let output = tessera(&["run", &path, "--trace", "0,x"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is not CTA or CTA,WARP"),
        "{}",
        stderr(&output)
    );
    let output = tessera(&["run", &path, "--json"]);
    assert_eq!(output.status.code(), Some(2), "--json needs --trace");
}

#[test]
fn profile_prints_each_access_with_its_figures() {
    let file = examples().join("tiled_transpose.tsr");
    let path = file.to_string_lossy();
    let args = [
        "run",
        &path,
        "--dim",
        "R=64",
        "--dim",
        "C=64",
        "--grid",
        "2,2",
        "--profile",
    ];
    let output = tessera(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let rows: Vec<&str> = text.lines().take(5).collect();
    assert!(rows[0].starts_with("line:col access"), "{text}");
    // 4 CTAs x 8 warps x 4 trips of the tile copy: 128 requests, full sectors.
    assert!(
        rows[1].starts_with(
            "9:11     In[r :+ 32, c :+ 32]           global read        128        4.00       0 of 512"
        ),
        "{text}"
    );
    // Reading the tile down a column: conflict-free, as the compiler pads its rows.
    assert!(rows[4].starts_with("14:27    t[j, i]"), "{text}");
    assert!(rows[4].ends_with("1-way, 1.0"), "{text}");
    // The naive transpose's write, lanes 64 elements apart: a sector each, marked.
    let naive = examples().join("transpose.tsr");
    let naive = naive.to_string_lossy();
    let output = tessera(&[
        "run",
        &naive,
        "--dim",
        "R=64",
        "--dim",
        "C=256",
        "--grid",
        "2,64",
        "--profile",
    ]);
    let text = stdout(&output);
    let write = text.lines().nth(1).unwrap_or_default();
    assert!(write.starts_with("7:5      Out[c, r] = In[r, c]"), "{text}");
    // 512 requests of 32 sectors each, where 4 would hold each one's 128 bytes.
    assert!(
        write.contains("global write       512       32.00 14336 of 16384"),
        "{text}"
    );
    assert!(write.ends_with(" !"), "{text}");

    let mut json_args = args.to_vec();
    json_args.push("--json");
    let output = tessera(&json_args);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output))
        .unwrap_or_else(|e| panic!("{e}: {}", stdout(&output)));
    let column = &json["sites"][3];
    assert_eq!(
        (column["line"].as_u64(), column["column"].as_u64()),
        (Some(14), Some(27))
    );
    assert_eq!(column["worst_degree"], 1);
    assert_eq!(column["poor"], false);
    assert_eq!(column["excess_wavefronts"], 0);
    // The tile copy's read: 128 requests of 4 sectors, the fewest 128 bytes need.
    let copy = &json["sites"][0];
    assert_eq!(
        (
            &copy["sectors"],
            &copy["ideal_sectors"],
            &copy["excess_sectors"]
        ),
        (&512.into(), &512.into(), &0.into())
    );
    assert_eq!(copy["poor"], false);
    // The run's work beside the sites (issue 35): a transpose moves 64 x 64 f32s in and out,
    // coalesced, and computes no floats.
    assert_eq!(json["flops"], 0);
    assert_eq!(json["global_bytes"], 2 * 64 * 64 * 4);
    assert_eq!(json["requested_bytes"], 2 * 64 * 64 * 4);
    assert_eq!(json["work"]["float_fmas"], 0);
    // The naive transpose's summary: its 16384 + 2048 sectors moved, for the 64 x 256 f32s
    // read and written, 4.5 times the bytes asked for.
    let moved = (16384 + 2048) * 32;
    let asked = 2 * 64 * 256 * 4;
    assert!(
        text.contains(&format!(
            "global memory: {moved} bytes moved in 32-byte sectors, {asked} bytes asked for"
        )),
        "{text}"
    );
}

#[test]
fn json_alone_says_what_it_needs() {
    let file = examples().join("lane_ids.tsr");
    let output = tessera(&["run", &file.to_string_lossy(), "--json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("add --trace CTA[,WARP] or --profile"),
        "{}",
        stderr(&output)
    );
}

/// `--threads`: the matvec on one thread and on three writes the same bytes; stderr (not a
/// terminal here) carries no progress bar; zero threads is refused.
#[test]
fn threads_change_nothing_in_the_results() {
    let dir = scratch("threads");
    let matvec = examples().join("matvec.tsr");
    let mut outputs = Vec::new();
    for threads in ["1", "3"] {
        let out = dir.join(threads);
        let output = tessera(&[
            "run",
            &matvec.to_string_lossy(),
            "--grid",
            "16",
            "--dim",
            "N=128",
            "--dim",
            "K=300",
            "--in",
            "A=rand:1",
            "--in",
            "W=rand:2",
            "--threads",
            threads,
            "--out",
            &out.to_string_lossy(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(!stderr(&output).contains('\r'), "{}", stderr(&output));
        let bytes = std::fs::read(out.join("C.npy")).unwrap_or_else(|e| panic!("{e}"));
        outputs.push(bytes);
    }
    assert_eq!(outputs[0], outputs[1]);
    let zero = tessera(&["run", &matvec.to_string_lossy(), "--threads", "0"]);
    assert_eq!(zero.status.code(), Some(2), "{}", stderr(&zero));
}

/// `--backend cuda` runs the PTX on an NVIDIA GPU and prints what the simulator prints; without
/// one it says why (tests/cuda.rs in the runtime checks the runner itself).
#[test]
fn the_cuda_backend_runs_the_ptx_or_says_why_not() {
    let file = examples().join("lane_ids.tsr");
    let path = file.to_str().unwrap_or_default();
    let output = tessera(&["run", path, "--backend", "cuda"]);
    match runtime::cuda::devices() {
        Ok(devices) => {
            assert!(output.status.success(), "{}", stderr(&output));
            assert!(
                stderr(&output).contains(&devices[0].name),
                "{}",
                stderr(&output)
            );
            let simulated = tessera(&["run", path]);
            assert_eq!(output.stdout, simulated.stdout);
        }
        Err(error) => {
            assert_eq!(output.status.code(), Some(2));
            assert_eq!(stderr(&output), format!("error: {error}\n"));
        }
    }
    let output = tessera(&["run", path, "--backend", "cuda", "--emulate-warps"]);
    assert!(
        stderr(&output).contains("emulated warps are for the Vulkan GPU"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn tessera_gpu_lists_vulkan_and_cuda() {
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("gpu")
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout.starts_with("Vulkan (--backend gpu):\n  adapter: "),
        "{stdout}"
    );
    let cuda = stdout
        .split("CUDA (--backend cuda):\n")
        .nth(1)
        .unwrap_or_default();
    match runtime::cuda::devices() {
        Ok(_) => assert!(cuda.starts_with("  cuda device 0: "), "{stdout}"),
        Err(error) => assert_eq!(cuda, format!("  none: {error}\n")),
    }
}

/// Issue 51: `tessera ptx` of a file with a program is one module with an entry per kernel
/// (it stopped with "E0515 … pick one with --kernel" at 1:1 and "the run stopped"), and
/// `tessera wgsl` of a program says which kernels to pass (it said "there is no kernel").
#[test]
fn ptx_and_wgsl_of_a_programs_file_give_every_kernel_or_say_which() {
    let file = examples().join("programs/grid_sum.tsr");
    let file = file.to_string_lossy();
    let output = tessera(&["ptx", &file]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(".visible .entry partial_sums("), "{text}");
    assert!(text.contains(".visible .entry total("), "{text}");
    let wgsl = tessera(&["wgsl", &file, "--kernel", "grid_sum"]);
    assert_eq!(wgsl.status.code(), Some(2));
    assert_eq!(
        stderr(&wgsl),
        "error: `grid_sum` is a program, and a WGSL module holds one kernel: pass --kernel partial_sums or --kernel total\n"
    );
    let wgsl = tessera(&["wgsl", &file]);
    assert_eq!(wgsl.status.code(), Some(2));
    assert_eq!(
        stderr(&wgsl),
        "error: the file has 2 kernels, and a WGSL module holds one: pass --kernel partial_sums or --kernel total\n"
    );
    let one = tessera(&["wgsl", &file, "--kernel", "total"]);
    assert!(one.status.success(), "{}", stderr(&one));
}

/// Issue 51: a float atomic sum whose order shows (terms of both signs) says so after a run.
#[test]
fn a_run_whose_float_atomic_sum_depends_on_the_order_says_so() {
    let dir = scratch("order-note");
    let file = dir.join("sum.tsr");
    let source = "@launch(32)\nkernel total(X: tensor<f32>[N], Out: tensor<f32>[1]) {\n  let i = ctx.block.x * 32 + ctx.thread\n  if i < N {\n    atomic_add(Out[0], X[i])\n  }\n}\n";
    std::fs::write(&file, source).unwrap_or_else(|e| panic!("{e}"));
    let file = file.to_string_lossy();
    let mixed = tessera(&[
        "run", &file, "--grid", "2", "--dim", "N=64", "--in", "X=rand:1",
    ]);
    assert!(mixed.status.success(), "{}", stderr(&mixed));
    assert!(
        stderr(&mixed).contains("note: an f32 atomic_add on a tensor rounded or met terms of both signs, so its sum depends on the order of the additions"),
        "{}",
        stderr(&mixed)
    );
    let ones = tessera(&[
        "run", &file, "--grid", "2", "--dim", "N=64", "--in", "X=ones",
    ]);
    assert!(!stderr(&ones).contains("note:"), "{}", stderr(&ones));
}

/// A reader that stops early (`tessera ir k.tsr | head -1`) ends the output quietly: printing
/// had panicked on the broken pipe, with a backtrace.
#[test]
fn a_reader_that_stops_early_is_not_a_panic() {
    use std::io::Read as _;
    // Output past a pipe's buffer (64 KiB), so the writer meets the closed pipe.
    let body = "  Y[ctx.thread] = Y[ctx.thread] * 1.5 + 0.25\n".repeat(3000);
    let file = std::env::temp_dir().join(format!("tessera-pipe-{}.tsr", std::process::id()));
    std::fs::write(
        &file,
        format!("@launch(32)\nkernel k(Y: tensor<f32>[N]) {{\n{body}}}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for command in ["ir", "ptx", "wgsl"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args([command, &file.display().to_string()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let mut first = [0u8; 1];
        if let Some(mut stdout) = child.stdout.take() {
            let _ = stdout.read(&mut first);
        }
        let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{command}: {stderr}");
    }
}
