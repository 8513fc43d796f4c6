"""Every example kernel and program run through Python equals the command line's run, bit for
bit, with inputs passed as numpy arrays; and several equal numpy's own arithmetic."""

import copy as copy_module
import json
import pickle

import numpy as np
import pytest
import tessera

from conftest import EXAMPLES, bits, examples, generator, run_cli


@pytest.mark.parametrize("path,name,launch", examples(), ids=[e[1] for e in examples()])
def test_an_example_equals_the_command_lines_run(cli, tmp_path, path, name, launch):
    module = tessera.compile(path.read_text(), str(path))
    runnable = name if name in module.kernels + module.programs else None
    dtypes = {p: dtype for p, kind, dtype in module.parameters(runnable) if kind == "tensor"}
    # Data inputs become .npy files for the command line and arrays for Python.
    files, arrays = {}, {}
    for tensor, spec in launch.get("inputs", {}).items():
        if isinstance(spec, dict) and "data" in spec:
            data = spec["data"]
            array = np.array(data["values"], dtype=dtypes[tensor]).reshape(data["shape"])
            files[tensor] = tmp_path / f"in-{tensor}.npy"
            np.save(files[tensor], array)
            arrays[tensor] = array
    ran = run_cli(cli, path, runnable, launch, tmp_path / "cli", files)
    assert ran.returncode == 0, ran.stderr
    grid = launch.get("grid")
    kwargs = dict(
        dims=launch.get("dims", {}),
        scalars=launch.get("scalars", {}),
        lanes=launch.get("lanes"),
        threads=2,
    )
    if grid and not module.programs:
        kwargs["grid"] = (grid.get("x", 1), grid.get("y", 1), grid.get("z", 1))
    # First with the generators by name, to learn which tensors the run writes.
    tensors = {t: arrays[t] if t in arrays else generator(s)
               for t, s in launch.get("inputs", {}).items()}
    written = set(module.run(runnable, **kwargs, **tensors))
    # Then every tensor the run only reads as the array the command line made of it.
    for tensor in dtypes:
        if tensor not in written and tensor in tensors and tensor not in arrays:
            tensors[tensor] = np.load(tmp_path / "cli" / f"{tensor}.npy")
            assert tensors[tensor].dtype == np.dtype(dtypes[tensor])
    out = module.run(runnable, **kwargs, **tensors)
    assert set(out) == written and written, f"{name} writes {written}"
    for tensor, array in out.items():
        expected = np.load(tmp_path / "cli" / f"{tensor}.npy")
        assert array.dtype == expected.dtype and array.shape == expected.shape, tensor
        assert np.array_equal(bits(array), bits(expected)), f"{name}: {tensor} differs"


def load(name):
    return tessera.compile((EXAMPLES / f"{name}.tsr").read_text(), f"{name}.tsr")


def test_vector_add_saxpy_and_matvec_equal_numpy():
    rng = np.random.default_rng(56)
    a, b = rng.standard_normal(1000, np.float32), rng.standard_normal(1000, np.float32)
    out = load("vector_add").run(grid=(4,), A=a, B=b)
    assert np.array_equal(out["C"], a + b)
    x, y = rng.standard_normal(300, np.float32), rng.standard_normal(300, np.float32)
    expected = np.float32(2.5) * x + y
    out = load("saxpy").run(grid=(3,), scalars={"alpha": 2.5}, X=x, Y=y)
    np.testing.assert_allclose(out["Y"], expected, rtol=1e-6, atol=1e-6)
    assert out["Y"] is y, "Y, read and written, is updated in place"
    a, w = rng.standard_normal((1, 100), np.float32), rng.standard_normal((40, 100), np.float32)
    out = load("matvec").run("mv", grid=(5,), A=a, W=w)
    np.testing.assert_allclose(out["C"], a @ w.T, rtol=1e-5, atol=1e-5)


def test_fortran_ordered_and_strided_inputs_are_read_as_numpy_means_them():
    rng = np.random.default_rng(7)
    a, w = rng.standard_normal((1, 100), np.float32), rng.standard_normal((40, 100), np.float32)
    m = load("matvec")
    plain = m.run("mv", grid=(5,), A=a, W=w)["C"]
    fortran = m.run("mv", grid=(5,), A=np.asfortranarray(a), W=np.asfortranarray(w))["C"]
    wide = np.zeros((40, 200), np.float32)
    wide[:, ::2] = w
    strided = m.run("mv", grid=(5,), A=a, W=wide[:, ::2])["C"]
    assert np.array_equal(bits(plain), bits(fortran))
    assert np.array_equal(bits(plain), bits(strided))
    assert plain.flags.c_contiguous


def test_f16_and_8_bit_arrays_round_trip():
    x = np.linspace(-2, 2, 16, dtype=np.float16)
    source = """@launch(32)
kernel copy(X: tensor<f16>[N], Y: tensor<f16>[N], A: tensor<i8>[N], B: tensor<i8>[N],
            U: tensor<u8>[N], V: tensor<u8>[N]) {
  let i = ctx.thread
  if i < N {
    Y[i] = X[i]
    B[i] = A[i]
    V[i] = U[i]
  }
}
"""
    a = np.arange(-8, 8, dtype=np.int8) * 16
    u = np.arange(16, dtype=np.uint8) * 17
    out = tessera.compile(source).run(grid=(1,), X=x, A=a, U=u)
    assert out["Y"].dtype == np.float16 and np.array_equal(bits(out["Y"]), bits(x))
    assert out["B"].dtype == np.int8 and np.array_equal(out["B"], a)
    assert out["V"].dtype == np.uint8 and np.array_equal(out["V"], u)
    assert set(out) == {"Y", "B", "V"}, "tensors only read are not copied back"


def test_the_gpu_backend_equals_the_simulator_on_lavapipe():
    x = np.random.default_rng(3).integers(-100, 100, 200, dtype=np.int32)
    m = load("warp_reduce")
    sim = m.run(grid=(2,), dims={"W": 7}, X=x)
    for emulate in (False, True):
        try:
            gpu = m.run(grid=(2,), dims={"W": 7}, X=x, backend="gpu", emulate_warps=emulate)
        except tessera.BackendError as error:
            pytest.fail(f"no Vulkan GPU (Mesa's lavapipe is installed by make test): {error}")
        assert "warps" in gpu.ran_on
        for tensor in sim:
            assert np.array_equal(bits(gpu[tensor]), bits(sim[tensor])), (emulate, tensor)


def test_numpy_makes_no_copy_of_an_input():
    """numpy reports its arrays' memory to tracemalloc: a run allocates its result, Y, and no
    array the size of an input (the launch's own data is Rust's, measured in BENCHMARKS.md)."""
    import tracemalloc

    n = 1 << 16
    x = np.ones(n, np.float32)
    wide = np.zeros(2 * n, np.float32)
    wide[::2] = x
    m = load("saxpy")
    # Y is written in place: a copy of x each time, made before the count starts.
    for inputs in ({"X": x, "Y": x.copy()}, {"X": wide[::2], "Y": np.array(x, order="F")}):
        tracemalloc.start()
        out = m.run(grid=(n // 128,), scalars={"alpha": 2.0}, progress=False, **inputs)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert np.all(out["Y"] == 3)
        # numpy allocates the output, Y, and nothing the size of an input besides.
        assert peak < 2 * x.nbytes, peak


def test_values_pass_exactly_nan_payloads_and_64_bit_integers_past_2_53():
    source = """@launch(32)
kernel copy(X: tensor<f32>[N], Y: tensor<f32>[N], A: tensor<i64>[N], B: tensor<i64>[N]) {
  let i = ctx.thread
  if i < N {
    Y[i] = X[i]
    B[i] = A[i] + 1
  }
}
"""
    x = np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x00000001], np.uint32).view(np.float32)
    a = np.array([2**53 + 1, -(2**62), 2**63 - 2, -1], np.int64)
    out = tessera.compile(source).run(grid=(1,), X=x, A=a)
    assert np.array_equal(bits(out["Y"]), bits(x)), "a signalling NaN, a payload, -0.0, a subnormal"
    assert np.array_equal(out["B"], a + 1)


def test_tensors_named_like_runs_options_pass_through_inputs():
    source = """@launch(32)
kernel k(grid: tensor<f32>[N], dims: tensor<f32>[N]) {
  if ctx.thread < N {
    dims[ctx.thread] = grid[ctx.thread] * 2.0
  }
}
"""
    g = np.arange(8, dtype=np.float32)
    out = tessera.compile(source).run(inputs={"grid": g}, grid=(1,))
    assert np.array_equal(out["dims"], g * 2)
    a = np.ones(1000, np.float32)
    with pytest.raises(tessera.LaunchError, match="`A` is given twice"):
        load("vector_add").run(grid=(4,), inputs={"A": a}, A=a, B=a)


def test_a_module_and_its_outputs_pickle_for_other_processes():
    m = tessera.compile((EXAMPLES / "saxpy.tsr").read_text(), "saxpy.tsr")
    x, y = np.arange(300, dtype=np.float32), np.ones(300, np.float32)
    out = m.run(grid=(3,), scalars={"alpha": 2.0}, X=x, Y=y)
    for copy in (pickle.loads(pickle.dumps(m)), copy_module.deepcopy(m)):
        assert copy is not m and copy.source == m.source and copy.kernels == m.kernels
        again = copy.run(grid=(3,), scalars={"alpha": 2.0}, X=x, Y=y)
        assert np.array_equal(again["Y"], out["Y"])
        # The file's name travels too: messages name it.
        with pytest.raises(tessera.LaunchError, match=r"saxpy\.tsr"):
            copy.run(grid=(3,), X=x, Y=y)
    back = pickle.loads(pickle.dumps(out))
    assert np.array_equal(back["Y"], out["Y"]) and back.ran_on == out.ran_on
