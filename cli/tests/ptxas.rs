//! NVIDIA's assembler is part of the test toolchain (`make test` installs it from PyPI's
//! `nvidia-cuda-nvcc-cu12`): it must be found and accept PTX at the lowest `.version` of each
//! target the PTX backend emits for. Tests that check generated PTX reuse [`ptxas`].

use std::path::PathBuf;
use std::process::Command;

/// `$PTXAS`, else the copy `make test` puts in the repository's `.tools/venv`.
fn ptxas() -> PathBuf {
    if let Some(path) = std::env::var_os("PTXAS") {
        return PathBuf::from(path);
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.tools/venv");
    let found = glob_site_packages(&venv).map(|site| site.join("nvidia/cuda_nvcc/bin/ptxas"));
    match found {
        Some(path) if path.exists() => path,
        _ => panic!("ptxas not found: set PTXAS or run `make test`, which installs it"),
    }
}

fn glob_site_packages(venv: &std::path::Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    lib.filter_map(Result::ok)
        .map(|entry| entry.path().join("site-packages"))
        .find(|path| path.is_dir())
}

/// The smallest kernel that uses the warp: each thread stores its lane id.
fn lane_kernel(version: &str, arch: &str) -> String {
    format!(
        ".version {version}
.target {arch}
.address_size 64

.visible .entry lanes(.param .u64 out)
{{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r2;
    ret;
}}
"
    )
}

#[test]
fn ptxas_assembles_the_lowest_version_of_each_target() {
    let ptxas = ptxas();
    let dir = std::env::temp_dir().join(format!("tessera-ptxas-{}", std::process::id()));
    if let Err(error) = std::fs::create_dir_all(&dir) {
        panic!("{error}");
    }
    for (arch, version) in [("sm_70", "6.0"), ("sm_80", "7.0"), ("sm_90", "7.8")] {
        let source = dir.join(format!("{arch}.ptx"));
        if let Err(error) = std::fs::write(&source, lane_kernel(version, arch)) {
            panic!("{error}");
        }
        let output = Command::new(&ptxas)
            .arg(format!("-arch={arch}"))
            .arg(&source)
            .arg("-o")
            .arg(dir.join(format!("{arch}.cubin")))
            .output();
        let output = match output {
            Ok(output) => output,
            Err(error) => panic!("{} did not start: {error}", ptxas.display()),
        };
        assert!(
            output.status.success(),
            "ptxas rejected {arch}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn ptxas_rejects_a_malformed_kernel_with_a_line_number() {
    let ptxas = ptxas();
    let source = std::env::temp_dir().join(format!("tessera-bad-{}.ptx", std::process::id()));
    let broken = lane_kernel("6.0", "sm_70").replace("and.b32", "andd.b32");
    if let Err(error) = std::fs::write(&source, broken) {
        panic!("{error}");
    }
    let output = Command::new(&ptxas)
        .arg("-arch=sm_70")
        .arg(&source)
        .output();
    let Ok(output) = output else {
        panic!("{} did not start", ptxas.display());
    };
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 12; error"), "{stderr}");
}
