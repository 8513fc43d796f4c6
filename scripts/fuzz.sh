#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ (stable Rust: no sanitizer, which Rust code without
# `unsafe` does not need to find panics, hangs and broken properties).
#
#   scripts/fuzz.sh [SECONDS] [TARGET ...]   each target for SECONDS (default 15; all targets)
#
# New inputs go to a scratch copy of fuzz/corpus/TARGET, so the test command leaves the tree
# as it was; to keep them, `cargo fuzz cmin` them into the corpus by hand. A failing input is
# written to fuzz/artifacts/TARGET/ and the script exits non-zero; fix the bug and copy the
# input to fuzz/regressions/TARGET/, which fuzz/tests/corpora.rs replays on every test run.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-15}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(pipeline share_link markup)

# The workspace's release profile is tuned for a small wasm (fat LTO, opt-level "z"), which
# takes minutes to build here; the fuzzers want a quick build that runs fast enough.
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_OPT_LEVEL=1
fuzz=(cargo fuzz run --release --sanitizer none --codegen-units 16 --fuzz-dir fuzz)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for target in "${targets[@]}"; do
  mkdir -p "$scratch/$target"
  printf '\033[1m==> fuzzing %s for %s s\033[0m\n' "$target" "$seconds"
  # -timeout: an input that takes over 10 s is a hang, and a failure.
  set +e
  "${fuzz[@]}" "$target" "$scratch/$target" "fuzz/corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 2>&1 |
    grep -E '^(Done|.*(ERROR|panicked|SUMMARY|Test unit written|error))'
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" -eq 0 ] || { echo "fuzz target $target failed; see fuzz/artifacts/$target/" >&2; exit 1; }
done
