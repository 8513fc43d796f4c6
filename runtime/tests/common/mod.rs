//! What the CUDA tests share: the first NVIDIA GPU, or a line that says they did not run.

use runtime::cuda::{self, CudaGpu};
use std::io::Write as _;

/// The first NVIDIA GPU. Without one, writes that `what` did not run, past the test harness's
/// capture so that it shows even when the test passes, and returns `None`; with
/// `TESSERA_REQUIRE_CUDA=1` (scripts/gpu-check.sh) a missing GPU fails the test instead.
pub fn cuda_or_skip(what: &str) -> Option<CudaGpu> {
    match cuda::open(0) {
        Ok(gpu) => Some(gpu),
        Err(error) if std::env::var_os("TESSERA_REQUIRE_CUDA").is_some() => {
            panic!("TESSERA_REQUIRE_CUDA is set but there is no CUDA device: {error}")
        }
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "{what} did not run: {error}");
            None
        }
    }
}

/// `$PTXAS`, else the copy `make test` puts in `.tools/venv` (random_kernels.rs's alone).
#[allow(dead_code)]
pub fn ptxas() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("PTXAS") {
        return path.into();
    }
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/venv/lib");
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
