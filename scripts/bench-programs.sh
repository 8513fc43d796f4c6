#!/usr/bin/env bash
# A program's launches against the same kernels launched one by one by the CLI (issue 32's
# target: no dearer): examples/programs/grid_sum.tsr over N values, on the simulator, median of
# RUNS runs of each. The one-by-one side writes Partial to .npy and reads it back, as a user
# chaining `tessera run` would.
#
#   scripts/bench-programs.sh [N] [RUNS]     defaults: 1000000, 5
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
runs=${2:-5}
tessera=${TESSERA:-target/release/tessera}
[ -x "$tessera" ] || cargo build --release -p tessera
file=examples/programs/grid_sum.tsr
ctas=$(( (n + 255) / 256 )); [ "$ctas" -le 1024 ] || ctas=1024
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }

program() { "$tessera" run "$file" --dim "N=$n" --in X=rand:1 --threads 1 --out "$scratch/p"; }
one_by_one() {
  "$tessera" run "$file" --kernel partial_sums --grid "$ctas" --dim "N=$n" --dim "P=$ctas" \
    --in X=rand:1 --threads 1 --out "$scratch/a"
  "$tessera" run "$file" --kernel total --grid 1 --in "Partial=$scratch/a/Partial.npy" \
    --threads 1 --out "$scratch/b"
}

p=$(for _ in $(seq "$runs"); do seconds program; done | median)
o=$(for _ in $(seq "$runs"); do seconds one_by_one; done | median)
echo "grid_sum, N = $n, median of $runs: program ${p} s, one by one ${o} s, ratio $(echo "scale=3; $p / $o" | bc)"
