"""The Python package's cost over the Rust API (BENCHMARKS.md, "Python"), in one run:

    .tools/pyvenv/bin/python python/bench/overhead.py [N] [ROUNDS]

Needs the package built as `pip install ./python` builds it ([profile.python]); builds and
runs compiler-core's `saxpy_api` example with the same profile. Prints the times of a saxpy
of N elements (2^20) on the simulator on one thread, each way (in five turns, Rust then
Python: the fastest round of each, the least disturbed by a shared machine, and the median
turn's median round), their ratios, and the bytes numpy held at most during a
call (tracemalloc: numpy reports its arrays there), against those of the inputs."""

import pathlib
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import tessera

ROOT = pathlib.Path(__file__).resolve().parents[2]
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7

subprocess.run(["cargo", "build", "-q", "--profile", "python", "-p", "compiler-core", "--example",
                "saxpy_api"], cwd=ROOT, check=True)
example = ROOT / "target" / "python" / "examples" / "saxpy_api"

m = tessera.compile((ROOT / "examples" / "saxpy.tsr").read_text())
i = np.arange(n)
x = ((i % 1000) * 1e-3).astype(np.float32)
y = ((i % 777) * 1e-2).astype(np.float32)


def python_rounds():
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        out = m.run(grid=(-(-n // 128),), scalars={"alpha": 2.5}, X=x, Y=y, threads=1,
                    progress=False)
        times.append((time.perf_counter() - started) * 1e3)
    return times, float(out["Y"][n // 2])


# Rust and Python in turns, so that the machine's drift falls on both alike.
rust_fastest, rust_medians, python_times = [], [], []
for _ in range(5):
    rust = subprocess.run([str(example), str(n), str(rounds), "1"], capture_output=True,
                          text=True, check=True).stdout.split()
    rust_fastest.append(float(rust[0]))
    rust_medians.append(float(rust[2]))
    times, middle = python_rounds()
    python_times.append(times)
    assert abs(middle - float(rust[1]) / rounds) < 1e-3, "the same result both ways"
rust_ms, python_ms = min(rust_fastest), min(min(t) for t in python_times)
rust_median = sorted(rust_medians)[2]
python_median = sorted(sorted(t)[len(t) // 2] for t in python_times)[2]


def allocated(call):
    """The most bytes numpy held at once during `call`, beyond what it held before."""
    tracemalloc.start()
    call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


launch = dict(grid=(-(-n // 128),), scalars={"alpha": 2.5}, threads=1, progress=False)
wide = np.zeros(2 * n, np.float32)
wide[::2] = x
print(f"saxpy, N = {n}, 1 thread, the fastest of 5 turns of {rounds} rounds: "
      f"Rust API {rust_ms:.1f} ms, Python {python_ms:.1f} ms, ratio {python_ms / rust_ms:.3f}; "
      f"the median turn's medians: {rust_median:.1f} ms and {python_median:.1f} ms, "
      f"ratio {python_median / rust_median:.3f}")
print(f"inputs 2 x {x.nbytes} bytes, output {y.nbytes} bytes; numpy's peak during a call: "
      f"C order {allocated(lambda: m.run(X=x, Y=y, **launch))}, "
      f"Fortran order {allocated(lambda: m.run(X=np.asfortranarray(x), Y=y, **launch))}, "
      f"a strided view {allocated(lambda: m.run(X=wide[::2], Y=y, **launch))}, "
      f"and with a copy made (np.ascontiguousarray of the view) "
      f"{allocated(lambda: m.run(X=np.ascontiguousarray(wide[::2]), Y=y, **launch))}")
