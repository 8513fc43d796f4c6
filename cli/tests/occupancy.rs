//! `tessera occupancy`: the figures for each target, registers from ptxas (the copy `make test`
//! installs in `.tools/venv`) or from `--registers`, and errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `$PTXAS`, else the copy in `.tools/venv`.
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
    found.unwrap_or_else(|| panic!("ptxas not found: set PTXAS or run `make test`"))
}

fn tessera(args: &[&str], ptxas: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    command.args(args);
    match ptxas {
        Some(path) => command.env("PTXAS", path),
        None => command.env("PTXAS", "/nonexistent/ptxas"),
    };
    command
        .output()
        .unwrap_or_else(|error| panic!("tessera did not start: {error}"))
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn registers_come_from_ptxas_and_each_target_has_its_figures() {
    let file = root().join("examples/tiled_matmul.tsr");
    let output = tessera(&["occupancy", &file.to_string_lossy()], Some(&ptxas()));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = stdout(&output);
    assert!(
        text.contains("registers per thread from ptxas -v"),
        "{text}"
    );
    // Its tiles take 12288 bytes after reuse (three 32 x 32 arrays; 24576 before issue 55),
    // which allow 8 CTAs on sm_70 (98304 / 12288) and 12 on sm_80 (167936 / 13312 with the
    // 1 KiB reserve): the 64 warp slots bind first.
    assert!(text.contains("12288 bytes of shared memory"), "{text}");
    assert!(
        text.contains("shared memory         8 CTAs  (98304 bytes per SM / 12288 bytes per CTA)"),
        "{text}"
    );
    assert!(
        text.contains("sm_80: 8 CTAs of 8 warps per SM, 64 of 64 warps: occupancy 100%"),
        "{text}"
    );
}

#[test]
fn without_ptxas_the_guess_is_stated_and_registers_can_be_given() {
    let file = root().join("examples/matvec.tsr");
    let path = file.to_string_lossy();
    let guessed = stdout(&tessera(&["occupancy", &path, "--arch", "sm_90"], None));
    assert!(
        guessed.contains(
            "32 registers per thread from a guess (no ptxas on this machine; pass --registers N)"
        ),
        "{guessed}"
    );
    let given = tessera(
        &["occupancy", &path, "--arch", "sm_90", "--registers", "128"],
        None,
    );
    let text = stdout(&given);
    assert!(
        text.starts_with("sm_90: 2 CTAs of 8 warps per SM, 16 of 64 warps: occupancy 25%"),
        "{text}"
    );
    assert!(
        text.contains("registers             2 CTAs") && text.contains("<- binds"),
        "{text}"
    );
    let too_many = tessera(&["occupancy", &path, "--registers", "300"], None);
    assert_eq!(too_many.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&too_many.stderr)
        .contains("300 registers per thread: sm_70 allows 1 to 255"));
}

/// A CTA the register file cannot hold by NVIDIA's rule is an error with a non-zero exit, not an
/// occupancy: 800 threads are 25 warps, counted as 28, at 80 registers (2,560 a warp): 71,680.
#[test]
fn a_cta_that_cannot_launch_is_an_error() {
    let dir = std::env::temp_dir().join(format!("tessera-occupancy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("wide.tsr");
    std::fs::write(
        &file,
        "@launch(800)\nkernel wide(X: tensor<f32>[N]) {\n  X[ctx.thread] = 1.0\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_string_lossy();
    let output = tessera(
        &["occupancy", &path, "--arch", "sm_80", "--registers", "80"],
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("a CTA of 800 threads at 80 registers per thread cannot launch on sm_80")
            && stderr.contains("71680 registers, over the 65536 a CTA may have"),
        "{stderr}"
    );
    let fits = tessera(
        &["occupancy", &path, "--arch", "sm_80", "--registers", "72"],
        None,
    );
    assert!(fits.status.success());
}
