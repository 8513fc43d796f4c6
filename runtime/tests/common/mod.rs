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
