#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU, in under five minutes, the CUDA differential
# tests (every example and 256 random kernels through PTX against the simulator, the loop
# guard, the launch limits, subnormal atomics and the kernels only the reverse CTA order stops), the WGSL path on the GPU's own Vulkan driver, and the bandwidth of
# a copy and of the matvec against the device's peak; then one summary.
#
#   scripts/gpu-check.sh build   build the binaries into target/gpu-check/ (needs cargo and the
#                                crates; a GPU machine without them is given that folder)
#   scripts/gpu-check.sh         run the check (building first when the folder is missing)
#
# Every step runs under a time limit; a step that cannot run (no CUDA driver, no Vulkan
# driver) says so in the summary instead of passing. BENCHMARKS.md ("CUDA") records the
# figures of the last run on a real GPU.
set -uo pipefail
cd "$(dirname "$0")/.."

bin=target/gpu-check
say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

build() {
  say "building tessera, the runtime's tests and the bandwidth program (release)"
  mkdir -p "$bin"
  cargo build --release --locked -p tessera --bin tessera || exit 1
  cargo build --release --locked -p runtime --example bandwidth || exit 1
  cp target/release/tessera target/release/examples/bandwidth "$bin/"
  # The test executables' names carry a hash: ask cargo for them.
  cargo test --release --locked -p runtime --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])
' | while read -r name path; do cp "$path" "$bin/$name"; done
  strip "$bin"/* 2>/dev/null || true
  du -sh "$bin"
}

if [ "${1:-}" = build ]; then
  build
  exit 0
fi
[ -x "$bin/cuda" ] || build

summary=()
step() { # name seconds command...
  local name=$1 seconds=$2
  shift 2
  say "$name"
  local log
  log=$(mktemp)
  timeout "$seconds" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ] && grep -q "did not run" "$log"; then
    summary+=("SKIP  $name: $(grep -m1 'did not run' "$log")")
  elif [ "$rc" -eq 0 ]; then
    summary+=("PASS  $name")
  elif [ "$rc" -eq 124 ]; then
    summary+=("FAIL  $name: over ${seconds} s")
  else
    summary+=("FAIL  $name (exit $rc)")
  fi
  rm -f "$log"
}

start=$(date +%s)
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
step "the GPUs Tessera sees" 60 "$bin/tessera" gpu
if "$bin/tessera" gpu 2>/dev/null | grep -q "^  cuda device"; then
  export TESSERA_REQUIRE_CUDA=1
fi
step "CUDA: arguments, loop guard, limits" 120 "$bin/cuda" --nocapture
step "CUDA: every example against the simulator" 120 "$bin/differential" every_example_on_cuda --nocapture
step "CUDA: every program example (launches in order) against the simulator" 120 "$bin/differential" every_program_example_on_cuda --nocapture
step "CUDA: 256 random kernels against the simulator" 180 env PROPTEST_CASES=256 "$bin/random_kernels" random_kernels_agree_with_the_simulator_on_cuda --nocapture
step "CUDA: subnormal f32 atomics flush as the simulator says (issue 51)" 60 "$bin/cuda" subnormal_float_atomics_on_cuda --nocapture
step "CUDA: the kernels only the reverse order stops, as the GPU runs them (issue 51)" 120 "$bin/cuda" the_reverse_order_kernels_on_cuda --nocapture
if "$bin/tessera" gpu 2>/dev/null | grep -q "^  adapter:"; then
  step "WGSL on Vulkan: every example, warps as subgroups" 120 "$bin/differential" every_example_in_subgroup_mode --nocapture
  step "WGSL on Vulkan: every example, 32-lane warps emulated" 120 "$bin/differential" every_example_with_emulated_32_lane_warps --nocapture
else
  summary+=("SKIP  WGSL on Vulkan: no Vulkan driver (tessera gpu says why)")
fi
if [ -n "${TESSERA_REQUIRE_CUDA:-}" ]; then
  step "CUDA: bandwidth (copy, matvec)" 120 "$bin/bandwidth" --backend cuda
else
  summary+=("SKIP  CUDA bandwidth: no CUDA device")
fi

say "summary ($(($(date +%s) - start)) s)"
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q '^FAIL'
