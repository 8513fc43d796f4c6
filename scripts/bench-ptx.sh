#!/usr/bin/env bash
# Compares Tessera's PTX with nvcc's for the examples' matvec and issue 55's five kernels
# (BENCHMARKS.md, "PTX quality"): the registers ptxas reports and the SASS instructions (all,
# and in the innermost loop; a kernel with no loop is compared whole).
# Installs NVIDIA's nvcc, ptxas, cuobjdump and nvdisasm from PyPI into .tools/nvcc (about 350 MB); no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tools/nvcc
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m pip show -q nvidia-cuda-nvdisasm >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check nvidia-cuda-nvcc nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
fi
bin=$(dirname "$(find "$venv" -name nvcc -type f | head -n 1)")
export PATH="$bin:$PATH"
cargo build -q -p tessera
out=$(mktemp -d)
registers() { grep -o 'Used [0-9]* registers' | grep -o '[0-9]*'; }
# Memory instructions in one source iteration of each kernel's innermost loop, to turn an
# unrolled SASS loop into instructions per iteration.
declare -A memory_per_iteration=([matvec]=2 [saxpy]=0 [warp_reduce]=0 [block_sum]=0 [tiled_transpose]=2 [tiled_matmul]=2)
per_iteration() { # size memory_ops per_source_iteration
  if [ "$3" -eq 0 ] || [ "$2" -eq 0 ]; then echo "-"; else python3 -c "print(f'{$1 * $3 / $2:.1f}')"; fi
}
# nvcc contracts a * b + c into FMA; Tessera does not (results match the simulator bit for bit),
# so the table also compares with nvcc -fmad=false, which keeps Tessera's float semantics.
printf '| kernel | registers (nvcc / Tessera) | SASS instructions (nvcc / Tessera) | hot loop, instructions per iteration (nvcc / nvcc -fmad=false / Tessera) | ratio to nvcc | ratio to nvcc -fmad=false |\n|---|---|---|---|---|---|\n'
for kernel in matvec saxpy warp_reduce block_sum tiled_transpose tiled_matmul; do
  nvcc_regs=$(nvcc -O3 -arch=sm_90 -cubin -o "$out/$kernel.nvcc.cubin" "bench/nvcc/$kernel.cu" -Xptxas -v 2>&1 | registers)
  nvcc -O3 -arch=sm_90 -fmad=false -cubin -o "$out/$kernel.nofma.cubin" "bench/nvcc/$kernel.cu"
  target/debug/tessera ptx "examples/$kernel.tsr" --arch sm_90 -o "$out/$kernel.ptx"
  our_regs=$(ptxas -arch=sm_90 -O3 -v "$out/$kernel.ptx" -o "$out/$kernel.tessera.cubin" 2>&1 | registers)
  read -r nvcc_all nvcc_loop nvcc_memory < <(python3 scripts/sass_stats.py cuobjdump "$out/$kernel.nvcc.cubin")
  read -r nofma_all nofma_loop nofma_memory < <(python3 scripts/sass_stats.py cuobjdump "$out/$kernel.nofma.cubin")
  read -r our_all our_loop our_memory < <(python3 scripts/sass_stats.py cuobjdump "$out/$kernel.tessera.cubin")
  m=${memory_per_iteration[$kernel]}
  nvcc_iter=$(per_iteration "$nvcc_loop" "$nvcc_memory" "$m")
  nofma_iter=$(per_iteration "$nofma_loop" "$nofma_memory" "$m")
  our_iter=$(per_iteration "$our_loop" "$our_memory" "$m")
  # No loop: the whole kernel's instructions.
  ratio() { python3 -c "print(f'{$our_all / $2:.2f}x (whole)' if '$1' == '-' else f'{float(\"$our_iter\") / float(\"$1\"):.2f}x')"; }
  printf '| %s | %s / %s | %s / %s | %s / %s / %s | %s | %s |\n' "$kernel" "$nvcc_regs" "$our_regs" "$nvcc_all" "$our_all" \
    "$nvcc_iter" "$nofma_iter" "$our_iter" "$(ratio "$nvcc_iter" "$nvcc_all")" "$(ratio "$nofma_iter" "$nofma_all")"
done
rm -rf "$out"
