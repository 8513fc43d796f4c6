//! The loop guard, one option for both GPU backends: a trip budget per thread that stops a loop
//! that never ends on the GPU, as the simulator's step limit does (E0514). Each backend builds
//! it its own way (`wgsl::guard`, `ptx`); targets.md ("The loop guard") says what it does.

use serde::{Deserialize, Serialize};

/// Whether the generated code stops runaway loops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Guard {
    /// Plain code: what the WGSL and PTX tabs show, `tessera wgsl` and `tessera ptx` write.
    #[default]
    Off,
    /// Each thread runs at most this many trips of any one loop (of all loops together where
    /// the backend counts them together).
    Trips(u32),
}
