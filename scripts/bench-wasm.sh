#!/usr/bin/env bash
# The simulator's throughput as wasm in Debian's Chromium (wasm-bindgen-test-runner driving
# chromedriver). Needs what `make test` installs. Prints the median and lane operations per
# second; BENCHMARKS.md records the figure. Built with the `web` profile: as the playground ships.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/install-tools.sh bench
export PATH="$HOME/.cargo/bin:$PATH"
cd scripts/bench-wasm
CHROMEDRIVER=/usr/bin/chromedriver \
WASM_BINDGEN_TEST_TIMEOUT=300 \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --manifest-path "$root/Cargo.toml" -p compiler-core --profile web \
    --target wasm32-unknown-unknown --test wasm_throughput -- --nocapture
