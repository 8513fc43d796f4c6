"""Shared by the tests: the repository, the command line to compare with, and its runs."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def cli():
    """The `tessera` command line, built as the test command builds it."""
    subprocess.run(["cargo", "build", "-q", "-p", "tessera", "--locked"], cwd=ROOT, check=True)
    return ROOT / "target" / "debug" / "tessera"


def examples():
    """(file, name, launch) of every example kernel and program, as examples/launches.json and
    examples/programs/launches.json give their launches."""
    found = []
    for folder in (EXAMPLES, EXAMPLES / "programs"):
        for entry in json.loads((folder / "launches.json").read_text()):
            found.append((folder / f"{entry['name']}.tsr", entry["name"], entry["launch"]))
    return found


def generator(spec):
    """A launch's generator input as the command line and `Module.run` spell it."""
    if isinstance(spec, str):
        return spec
    return f"rand:{spec['rand']}"


def run_cli(cli, path, name, launch, out, files=None):
    """`tessera run` of a launch, every tensor written to `out`; `files` maps inputs to .npy
    files. Returns the completed process."""
    grid = launch.get("grid", {})
    args = [str(cli), "run", str(path), "--out", str(out), "--threads", "2"]
    if name:
        args += ["--kernel", name]
    if grid:
        args += ["--grid", f"{grid.get('x', 1)},{grid.get('y', 1)},{grid.get('z', 1)}"]
    for dim, value in launch.get("dims", {}).items():
        args += ["--dim", f"{dim}={value}"]
    for scalar, value in launch.get("scalars", {}).items():
        args += ["--scalar", f"{scalar}={value}"]
    for tensor, spec in launch.get("inputs", {}).items():
        source = (files or {}).get(tensor) or generator(spec)
        args += ["--in", f"{tensor}={source}"]
    if "lanes" in launch:
        args += ["--lanes", str(launch["lanes"])]
    return subprocess.run(args, capture_output=True, text=True)


def bits(array):
    """An array's bits, so that equal means bit for bit (NaNs and -0.0 included)."""
    array = np.ascontiguousarray(array)
    return array.view(f"u{array.dtype.itemsize}") if array.dtype.kind == "f" else array
