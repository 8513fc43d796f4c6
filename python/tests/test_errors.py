"""Errors raise with the code and the text the command line gives."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tessera

from conftest import EXAMPLES, ROOT

RUNAWAY = """@launch(32)
kernel spin(Y: tensor<i32>[32]) {
  var i: i32 = 0
  while i >= 0 {
    i = i + 1
    if i > 1000000000 { i = 0 }
  }
  Y[ctx.thread] = i
}
"""


def slow(trips):
    """A kernel each thread of which adds 1.0 `trips` times: long enough to watch."""
    return f"""@launch(64)
kernel slow(Y: tensor<f32>[N]) {{
  var acc: f32 = 0.0
  for k in range(0, {trips}) {{
    acc += 1.0
  }}
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N {{
    Y[i] = acc
  }}
}}
"""


def cli_stderr(cli, *args):
    return subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True).stderr


def test_a_source_with_errors_raises_compile_error_as_tessera_check_prints(cli, tmp_path):
    bad = tmp_path / "bad.tsr"
    bad.write_text("@launch(32)\nkernel k(X: tensor<f32>[N]) {\n  X[ctx.thread] = y\n}\n")
    with pytest.raises(tessera.CompileError) as raised:
        tessera.compile(bad.read_text(), str(bad))
    assert str(raised.value) == cli_stderr(cli, "check", bad)
    (first,) = raised.value.diagnostics
    assert (first.code, first.line, first.column) == ("E0201", 3, 19)
    assert "y" in first.message and first.severity == "error"


def test_a_wrong_dtype_names_the_parameter():
    m = tessera.compile((EXAMPLES / "vector_add.tsr").read_text())
    with pytest.raises(ValueError, match=r"`A` is a tensor of f32, but the array passed for it holds float64"):
        m.run(grid=(4,), A=np.zeros(1000), B=np.zeros(1000, np.float32))
    with pytest.raises(ValueError, match=r"`B` is a tensor of f32: pass a numpy array of dtype float32"):
        m.run(grid=(4,), A=np.zeros(1000, np.float32), B=[0.0] * 1000)


def test_a_grid_that_is_not_one_to_three_whole_numbers_is_refused_saying_what_it_was():
    m = tessera.compile((EXAMPLES / "vector_add.tsr").read_text())
    a = np.zeros(1000, np.float32)
    with pytest.raises(ValueError, match=r"^grid= takes a whole number from 1, or a tuple of one to three of them, not \(-1,\)$"):
        m.run(grid=(-1,), A=a, B=a)
    with pytest.raises(ValueError, match=r"^grid= has one to three axes, not 0$"):
        m.run(grid=(), A=a, B=a)
    with pytest.raises(ValueError, match=r"^grid= has one to three axes, not 4$"):
        m.run(grid=(1, 1, 1, 1), A=a, B=a)
    with pytest.raises(tessera.LaunchError, match=r"has no CTAs"):
        m.run(grid=(0,), A=a, B=a)
    with pytest.raises(ValueError, match=r"^block= takes a whole number from 0, or a tuple of one to three of them, not 'a'$"):
        tessera.diagram(block="a")


def test_a_wrong_rank_or_shape_and_a_missing_dimension_raise_as_the_cli_reports(cli, tmp_path):
    path = EXAMPLES / "matvec.tsr"
    m = tessera.compile(path.read_text(), str(path))
    with pytest.raises(tessera.LaunchError) as raised:
        m.run("mv", grid=(5,), A=np.zeros((1, 100), np.float32))
    assert raised.value.diagnostics[0].code == "E0515"
    a = tmp_path / "a.npy"
    np.save(a, np.zeros((1, 100), np.float32))
    # The CLI's text, in Python's words (issue 68): `dims={"N": …}` where it says `--dim N=…`.
    text = str(raised.value)
    assert "--dim" not in text and 'dims={"N": V}' in text, text
    cli_text = cli_stderr(cli, "run", path, "--grid", 5, "--in", f"A={a}")
    assert text == (cli_text.replace("`--dim N=…`", '`dims={"N": …}`')
                    .replace("on the command line: --dim N=V", 'dims={"N": V}')), (text, cli_text)
    with pytest.raises(ValueError, match="`W`") as raised:
        m.run("mv", grid=(5,), A=np.zeros((1, 100), np.float32), W=np.zeros(100, np.float32))
    assert raised.value.diagnostics[0].code == "E0515"


def test_an_unknown_kernel_is_named_as_the_cli_names_it(cli):
    path = EXAMPLES / "matvec.tsr"
    m = tessera.compile(path.read_text(), str(path))
    with pytest.raises(tessera.LaunchError) as raised:
        m.run("nope")
    assert f"error: {raised.value}\n" == cli_stderr(cli, "run", path, "--kernel", "nope")


def test_a_runaway_kernel_stops_with_e0514_as_the_cli_reports(cli, tmp_path):
    path = tmp_path / "spin.tsr"
    path.write_text(RUNAWAY)
    m = tessera.compile(RUNAWAY, str(path))
    with pytest.raises(tessera.RunError) as raised:
        m.run(grid=(1,), step_limit=5000)
    assert raised.value.diagnostics[0].code == "E0514"
    assert str(raised.value) == cli_stderr(cli, "run", path, "--step-limit", 5000)


def test_the_cuda_backend_without_a_driver_says_what_is_missing():
    m = tessera.compile((EXAMPLES / "vector_add.tsr").read_text())
    try:
        out = m.run(grid=(4,), A="ones", B="ones", backend="cuda")
    except tessera.BackendError as error:
        assert "NVIDIA" in str(error) or "CUDA" in str(error), str(error)
    else:
        assert np.all(out["C"] == 2) and out.gpu_time


def test_ctrl_c_stops_a_long_run_and_says_where_with_progress_on_the_way():
    script = textwrap.dedent(f"""
        import sys, time, tessera
        m = tessera.compile({slow(20000)!r}, "slow.tsr")
        print("ready", flush=True)
        started = time.monotonic()
        try:
            m.run(grid=(4096,), dims={{"N": 4096 * 64}}, threads=1)
        except KeyboardInterrupt as interrupt:
            print(f"interrupted after {{time.monotonic() - started:.1f}} s: {{interrupt}}", flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    import time
    time.sleep(2.5)
    child.send_signal(2)
    out, err = child.communicate(timeout=30)
    assert "the run was interrupted at slow.tsr:" in out, (out, err)
    seconds = float(out.split("after ")[1].split(" s")[0])
    assert seconds < 10, out
    assert "/4096 CTAs" in err, err


def test_a_run_releases_the_gil():
    import threading
    import time

    m = tessera.compile(slow(2000))
    done = {}
    worker = threading.Thread(target=lambda: done.update(m.run(grid=(256,), dims={"N": 256 * 64},
                                                                threads=1, progress=False)))
    started = time.monotonic()
    worker.start()
    ticks = 0
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    elapsed = time.monotonic() - started
    assert np.all(done["Y"] == 2000)
    # Python ran beside the run: about one tick a millisecond, not one for the whole run.
    assert elapsed > 0.2 and ticks > elapsed * 200, (elapsed, ticks)


def test_another_signal_handlers_exception_stops_the_run_and_is_raised_as_it_was():
    import signal
    import time

    m = tessera.compile(slow(20000))

    def timeout(signum, frame):
        raise TimeoutError("the notebook's time limit")

    previous = signal.signal(signal.SIGALRM, timeout)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="time limit"):
            m.run(grid=(4096,), dims={"N": 4096 * 64}, threads=1, progress=False)
        assert time.monotonic() - started < 5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
