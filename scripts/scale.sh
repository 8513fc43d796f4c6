#!/usr/bin/env bash
# The long reliability runs behind BENCHMARKS.md ("Reliability at scale"), not part of the test
# command: random kernels across many seeds on the machine's GPU (Mesa's lavapipe here), in
# both warp modes, and each fuzz target for a million runs. Resumable: each finished chunk is
# written to target/scale/done, and a second run skips it.
#
#   scripts/scale.sh kernels [TOTAL] [CHUNK]   TOTAL random kernels (default 10240) in chunks of
#                                              CHUNK (default 256), chunk k drawn with seed k
#   scripts/scale.sh fuzz [RUNS] [TARGET ...]  each fuzz target RUNS times (default 1000000), in
#                                              chunks of 100000 runs
#
# A failure stops the script: a random kernel's is shrunk and kept in
# runtime/tests/random_kernels.regressions, a fuzz input in fuzz/artifacts/TARGET/. Fix it, keep
# it as a regression, and run the script again: it goes on where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/e2e/node_modules/.bin:$HOME/.cargo/bin:$PATH" XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
mkdir -p target/scale
done_file=target/scale/done
touch "$done_file"
finished() { grep -qxF "$1" "$done_file"; }
record() { echo "$1" >>"$done_file"; }

kernels() {
  local total=${1:-10240} chunk=${2:-256}
  local chunks=$(((total + chunk - 1) / chunk))
  cargo test -p runtime --test random_kernels --locked --no-run
  for ((seed = 1; seed <= chunks; seed++)); do
    local key="kernels seed=$seed cases=$chunk"
    if finished "$key"; then continue; fi
    local start=$SECONDS
    PROPTEST_RNG_SEED=$seed PROPTEST_CASES=$chunk \
      cargo test -p runtime --test random_kernels --locked random_kernels_agree -q
    record "$key"
    echo "seed $seed of $chunks: $chunk kernels in $((SECONDS - start)) s"
  done
  echo "kernels: $(grep -c '^kernels ' "$done_file") chunks done"
}

fuzz() {
  local runs=${1:-1000000}
  shift || true
  local targets=("$@")
  [ ${#targets[@]} -gt 0 ] || targets=(pipeline share_link markup)
  # As scripts/fuzz.sh: a quick build that runs fast enough.
  export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_OPT_LEVEL=1
  local fuzz=(cargo fuzz run --release --sanitizer none --codegen-units 16 --fuzz-dir fuzz)
  local step=100000
  for target in "${targets[@]}"; do
    # The corpus grows across chunks, in a scratch copy (the repository's stays as it is).
    local corpus=target/scale/corpus/$target
    mkdir -p "$corpus"
    for ((done_runs = 0; done_runs < runs; done_runs += step)); do
      local key="fuzz $target from=$done_runs runs=$step"
      if finished "$key"; then continue; fi
      local start=$SECONDS
      set +e
      "${fuzz[@]}" "$target" "$corpus" "fuzz/corpus/$target" -- -runs="$step" -timeout=10 2>&1 |
        grep -E '^(Done|.*(ERROR|panicked|SUMMARY|Test unit written))'
      local status=${PIPESTATUS[0]}
      set -e
      [ "$status" -eq 0 ] || { echo "fuzz target $target failed; see fuzz/artifacts/$target/" >&2; exit 1; }
      record "$key"
      echo "$target: $((done_runs + step)) of $runs runs ($((SECONDS - start)) s for this chunk)"
    done
  done
}

case "${1:-}" in
  kernels) shift; kernels "$@" ;;
  fuzz) shift; fuzz "$@" ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac
