"""The simulator's mma GEMM against numpy (issue 54), run by cli/tests/mma.rs.

usage: mma_numpy.py TESSERA MMA_GEMM.tsr SCRATCH_DIR

For GEMMs of several shapes over many CTAs, numpy makes f16 inputs (random, and one with the
extremes: +-0, f16 subnormals, 65504, infinities and NaN), `tessera run` computes C on the
simulator, and numpy checks it two ways:
- bit for bit against the spec's rule for mma, written out here in numpy's f32 arithmetic:
  each product of two f16s taken in f32 (exact), summed in increasing k starting from the
  first product, 16 at a time, and the accumulator added last;
- within the float tolerance against numpy's own A @ B in float64 (the order-free answer).
"""

import subprocess
import sys
from pathlib import Path

import numpy as np

tessera, source, scratch = sys.argv[1], sys.argv[2], Path(sys.argv[3])
scratch.mkdir(parents=True, exist_ok=True)


def rule(a16, b16):
    """mma_gemm's C by the spec's rule: acc = mma(a, b, acc) for each 16 columns of A."""
    a, b = a16.astype(np.float32), b16.astype(np.float32)
    m, k = a.shape
    acc = np.zeros((m, b.shape[1]), np.float32)
    for k0 in range(0, k, 16):
        s = a[:, k0 : k0 + 1] * b[k0 : k0 + 1, :]
        for kk in range(k0 + 1, k0 + 16):
            s = s + a[:, kk : kk + 1] * b[kk : kk + 1, :]
        acc = s + acc
    return acc


def extremes(rng, shape):
    values = np.array(
        [0.0, -0.0, 6e-8, -6e-8, 6.1e-5, 65504.0, -65504.0, np.inf, -np.inf, np.nan, 1.0, -2.5],
        np.float16,
    )
    return rng.choice(values, size=shape)


failures = []
cases = [
    # (M, K, N): grid (N / 32, M / 16), four warps a CTA.
    ((16, 16, 32), "random"),
    ((48, 64, 64), "random"),
    ((64, 128, 96), "random"),
    ((128, 32, 256), "random"),
    ((32, 48, 64), "extremes"),
]
with np.errstate(invalid="ignore", over="ignore"):
    for n, ((m, k, nn), kind) in enumerate(cases):
        rng = np.random.default_rng(54 + n)
        if kind == "random":
            a = rng.standard_normal((m, k)).astype(np.float16)
            b = rng.standard_normal((k, nn)).astype(np.float16)
        else:
            a, b = extremes(rng, (m, k)), extremes(rng, (k, nn))
        case = scratch / f"case{n}"
        case.mkdir(exist_ok=True)
        np.save(case / "a.npy", a)
        np.save(case / "b.npy", b)
        run = subprocess.run(
            [tessera, "run", source, "--grid", f"{nn // 32},{m // 16}",
             "--dim", f"M={m}", "--dim", f"K={k}", "--dim", f"N={nn}",
             "--in", f"A={case / 'a.npy'}", "--in", f"B={case / 'b.npy'}",
             "--in", "C=zeros", "--out", str(case / "out")],
            capture_output=True, text=True,
        )
        if run.returncode != 0:
            failures.append(f"{m}x{k}x{nn}: tessera failed: {run.stderr}")
            continue
        got = np.load(case / "out" / "C.npy")
        want = rule(a, b)
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
        if got.dtype != np.float32 or got.shape != want.shape or not same.all():
            where = np.argwhere(~same)[:3].tolist() if got.shape == want.shape else got.shape
            failures.append(f"{m}x{k}x{nn} {kind}: not the rule's bits at {where}")
            continue
        if kind == "random":
            exact = a.astype(np.float64) @ b.astype(np.float64)
            if not np.allclose(got, exact, rtol=1e-5, atol=1e-5 * k):
                failures.append(f"{m}x{k}x{nn}: off numpy's float64 product beyond the tolerance")
        print(f"{m}x{k}x{nn} {kind} on {nn // 32 * (m // 16)} CTAs: the rule's bits, numpy's product")

if failures:
    print("\n".join(failures))
    sys.exit(1)
