"""What a notebook user expects (issue 68): a kernel needs grid=, arrays passed for the tensors
a kernel writes are written in place, and warnings reach Python's warnings."""

import json
import subprocess
import warnings

import numpy as np
import pytest
import tessera

from conftest import ROOT

ROWS = """@launch(32)
kernel row_scale(X: tensor<f32>[R, C], Y: tensor<f32>[R, C]) {
  let r = ctx.block.x
  for c in range(ctx.thread, C, 32) {
    Y[r, c] = 2.0 * X[r, c]
  }
}
"""

FLAT = """@launch(256)
kernel double(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  let i = ctx.block.x * 256 + ctx.thread
  if i < N {
    Y[i] = 2.0 * X[i]
  }
}
"""


def test_a_kernel_without_grid_is_refused_with_grids_from_the_shapes():
    m = tessera.compile(ROWS)
    x = np.ones((8, 40), np.float32)
    with pytest.raises(tessera.LaunchError) as raised:
        m.run(X=x)
    text = str(raised.value)
    assert text.startswith("`row_scale` needs grid=")
    assert "grid=(8,) gives a CTA to each row of `Y` (8 rows)" in text
    assert "grid=(10,) a thread to each of its 320 elements (32 threads a CTA)" in text
    with pytest.raises(tessera.LaunchError, match=r"grid=\(4,\) gives a thread to each of the 1000 elements of `Y`"):
        tessera.compile(FLAT).profile(X=np.ones(1000, np.float32))
    # With one, every row is written.
    assert np.array_equal(m.run(grid=(8,), X=x)["Y"], 2 * x)


def test_a_program_needs_no_grid():
    source = FLAT + """
program twice(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  launch double(X, Y) grid(ceil(N / 256))
}
"""
    out = tessera.compile(source).run("twice", X=np.arange(300, dtype=np.float32))
    assert np.array_equal(out["Y"], 2 * np.arange(300, dtype=np.float32))


@pytest.mark.parametrize("order", ["C", "F"])
def test_an_array_passed_for_a_written_tensor_is_written_in_place(order):
    m = tessera.compile(ROWS)
    x = np.asarray(np.random.default_rng(1).standard_normal((8, 40)), np.float32, order=order)
    y = np.zeros((8, 40), np.float32, order=order)
    out = m.run(grid=(8,), X=x, Y=y)
    assert out["Y"] is y, "the dict's entry is the array passed"
    assert np.array_equal(y, 2 * x)
    assert y.flags.f_contiguous == (order == "F"), "its layout is kept"
    # The input only read is not written (nor returned).
    assert set(out) == {"Y"}


def test_a_read_only_array_is_left_as_it_was():
    m = tessera.compile(FLAT)
    y = np.zeros(300, np.float32)
    y.flags.writeable = False
    out = m.run(grid=(2,), X=np.ones(300, np.float32), Y=y)
    assert not y.any() and out["Y"] is not y and np.array_equal(out["Y"], np.full(300, 2.0))


def test_warnings_are_issued_at_compile_and_counted_in_the_repr():
    source = """@launch(32)
kernel k(Y: tensor<u32>[N]) {
  let i = ctx.block.x * ctx.thread
  if i < N {
    Y[i] = 1
  }
}
"""
    with pytest.warns(tessera.TesseraWarning, match=r"warning\[E0407\]") as caught:
        m = tessera.compile(source, "k.tsr")
    assert caught[0].filename == __file__, "attributed to the caller's line"
    assert "(1 warning)" in repr(m)
    assert [w.code for w in m.warnings] == ["E0407"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", tessera.TesseraWarning)
        with pytest.raises(tessera.TesseraWarning):
            tessera.compile(source)


def test_a_runs_note_is_a_warning():
    source = """@launch(32)
kernel total(X: tensor<f32>[N], S: tensor<f32>[1]) {
  let i = ctx.block.x * 32 + ctx.thread
  if i < N {
    atomic_add(S[0], X[i])
  }
}
"""
    x = np.array([1e8, 1.0, -1e8, 3.5] * 16, np.float32)
    with pytest.warns(tessera.TesseraWarning, match="depends on the order"):
        out = tessera.compile(source).run(grid=(2,), X=x)
    assert out.notes


def test_load_reads_a_file_and_compile_reads_a_path(tmp_path):
    path = tmp_path / "double.tsr"
    path.write_text(FLAT)
    for module in (tessera.load(path), tessera.load(str(path)), tessera.compile(path)):
        assert module.kernels == ["double"]
        assert str(path) in repr(module)
    # A str is always source, even one that names a file.
    with pytest.raises(tessera.CompileError):
        tessera.compile(str(path))


def test_a_scalar_that_is_not_a_number_is_a_type_error_naming_it():
    m = tessera.compile((ROOT / "examples" / "saxpy.tsr").read_text())
    x = np.ones(100, np.float32)
    with pytest.raises(TypeError, match=r"the scalar `alpha` takes a number \(an int or a float\), not 'two' \(str\)"):
        m.run(grid=(1,), scalars={"alpha": "two"}, X=x, Y=x.copy())


def test_an_integer_scalar_its_type_cannot_hold_is_refused():
    source = """@launch(32)
kernel k(n: i32, Y: tensor<i32>[1]) {
  if ctx.thread == 0 {
    Y[0] = n
  }
}
"""
    m = tessera.compile(source)
    with pytest.raises(tessera.LaunchError, match=r"the scalar `n: i32` takes integers from -2147483648 to 2147483647, not 5000000000"):
        m.run(grid=(1,), scalars={"n": 5_000_000_000})
    assert m.run(grid=(1,), scalars={"n": -2**31})["Y"][0] == -2**31


def test_a_target_that_cannot_build_the_kernel_is_a_target_error():
    mma = tessera.compile((ROOT / "examples" / "mma_gemm.tsr").read_text())
    with pytest.raises(tessera.TargetError) as raised:
        mma.ptx(arch="sm_70")
    assert raised.value.diagnostics[0].code == "E0522"
    assert isinstance(raised.value, ValueError)
    assert ".target sm_80" in mma.ptx(arch="sm_80")
    with pytest.raises(tessera.TargetError, match="sm_99"):
        tessera.compile(FLAT).ptx(arch="sm_99")
    with pytest.raises(tessera.TargetError):
        mma.occupancy(arch="sm_70")


def test_devices_says_what_tessera_gpu_says():
    text = tessera.devices()
    assert text.startswith("Vulkan (--backend gpu):\n") and "CUDA (--backend cuda):\n" in text


def test_a_gpu_run_without_timing_dispatches_once():
    m = tessera.compile(FLAT)
    x = np.arange(300, dtype=np.float32)
    try:
        out = m.run(grid=(2,), backend="gpu", timing=False, X=x)
    except tessera.BackendError as error:
        pytest.skip(f"no Vulkan GPU here: {error}")
    assert np.array_equal(out["Y"], 2 * x)
    assert out.gpu_seconds is None and out.gpu_time == "the kernel was not timed"


def _gpu_in_child(queue):
    try:
        tessera.compile(FLAT).run(grid=(1,), backend="gpu", X=np.ones(8, np.float32))
        queue.put("ran")
    except tessera.BackendError as error:
        queue.put(str(error))


def test_a_child_forked_after_a_gpu_run_is_told_to_spawn_not_left_waiting():
    import multiprocessing

    try:
        tessera.compile(FLAT).run(grid=(1,), backend="gpu", X=np.ones(8, np.float32))
    except tessera.BackendError as error:
        pytest.skip(f"no Vulkan GPU here: {error}")
    fork = multiprocessing.get_context("fork")
    queue = fork.Queue()
    child = fork.Process(target=_gpu_in_child, args=(queue,))
    child.start()
    said = queue.get(timeout=60)
    child.join(timeout=60)
    assert "forked from one that had run on the GPU" in said and '"spawn"' in said, said


def test_a_trace_is_the_command_lines(cli, tmp_path):
    path = tmp_path / "double.tsr"
    path.write_text(FLAT)
    m = tessera.load(path)
    trace = m.trace(block=1, warp=2, grid=(2,), dims={"N": 300}, X="iota")
    args = [str(cli), "run", str(path), "--grid", "2", "--dim", "N=300", "--in", "X=iota"]
    text = subprocess.run(args + ["--trace", "1,2"], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(str(trace)) and str(trace), str(trace)
    data = subprocess.run(args + ["--trace", "1", "--json"], capture_output=True, text=True)
    assert json.loads(data.stdout) == m.trace(block=(1,), grid=(2,), dims={"N": 300}, X="iota").data
    assert trace.steps and all("line" in step for step in trace.steps) and trace.fault is None
    assert "<pre" in trace._repr_html_()
    with pytest.raises(tessera.LaunchError, match=r"block=\(2, 0, 0\) is outside the grid \(2, 1, 1\)"):
        m.trace(block=2, grid=(2,), dims={"N": 300})
    with pytest.raises(tessera.LaunchError, match="warp=8: a CTA of 256 threads has 8 warps"):
        m.trace(warp=8, grid=(2,), dims={"N": 300})


def test_the_cell_magic_binds_the_compiled_module():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "tessera")
    shell.run_cell_magic("tessera", "doubler", FLAT)
    module = shell.user_ns["doubler"]
    assert isinstance(module, tessera.Module) and module.kernels == ["double"]
    with pytest.raises(ValueError, match="a Python name"):
        shell.run_cell_magic("tessera", "", FLAT)


def test_errors_speak_python_and_scalars_and_dimensions_go_by_name():
    saxpy = tessera.compile((ROOT / "examples" / "saxpy.tsr").read_text(), "saxpy.tsr")
    x = np.ones(100, np.float32)
    with pytest.raises(tessera.LaunchError) as raised:
        saxpy.run(grid=(1,), X=x, Y=x.copy())
    text = str(raised.value)
    assert 'scalars={"alpha": V}' in text and "--scalar" not in text, text
    # A scalar and a dimension by name, where the name is unambiguous.
    y = np.zeros(100, np.float32)
    out = saxpy.run(grid=(1,), alpha=2.0, X=x, Y=y)
    assert np.array_equal(out["Y"], np.full(100, 2.0, np.float32))
    double = tessera.compile(FLAT)
    assert np.array_equal(double.run(grid=(1,), N=8)["Y"], np.zeros(8, np.float32))
    with pytest.raises(tessera.LaunchError, match="given twice"):
        saxpy.run(grid=(1,), alpha=2.0, scalars={"alpha": 3.0}, X=x, Y=y)
    with pytest.raises(TypeError, match="the scalar `alpha` takes a number"):
        saxpy.run(grid=(1,), alpha="2", X=x, Y=y)
    # Which kernel, in Python's words.
    two = tessera.compile(FLAT + FLAT.replace("double", "triple"))
    with pytest.raises(tessera.LaunchError, match=r'several kernels \(double, triple\): name one, as `m.run\("NAME", …\)` does'):
        two.run(grid=(1,), X=x)
