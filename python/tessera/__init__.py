"""Tessera from Python: compile a kernel, run it on numpy arrays, and see what it costs.

    import numpy as np, tessera
    m = tessera.compile(open("examples/matvec.tsr").read())
    A = np.ones((1, 100), np.float32)
    W = np.ones((40, 100), np.float32)
    out = m.run("mv", grid=(5,), A=A, W=W)             # {"C": array([[100., ...]], dtype=float32)}

Runs go to the reference simulator (``backend="sim"``), this machine's Vulkan GPU
(``backend="gpu"``) or its NVIDIA GPU (``backend="cuda"``), through the same compiler and
runtime as the ``tessera`` command line. ``Module.profile`` counts memory requests and work,
with the roofline and occupancy charts that display in Jupyter; ``tessera.diagram`` draws the
hierarchy.
"""

import os as _os
from typing import Union as _Union

from ._errors import (BackendError, CompileError, Diagnostic, LaunchError, RunError,
                      TargetError, TesseraError, TesseraWarning)
from ._results import Outputs, Trace
from ._tessera import Chart, Module, Profile, devices, diagram, __version__
from ._tessera import compile as _compile


def compile(source: "_Union[str, _os.PathLike[str]]", name: str = "<source>") -> Module:
    """Compiles ``source``, a kernel's text (a ``str`` is always source); a ``pathlib.Path``
    (any ``os.PathLike``) is read as a file, as ``load`` reads it. A source with errors raises
    ``CompileError``, whose text is what ``tessera check`` prints for a file called ``name``;
    its warnings are issued as ``TesseraWarning``."""
    if isinstance(source, _os.PathLike):
        return load(source)
    return _compile(source, name)


def load(path: "_Union[str, _os.PathLike[str]]") -> Module:
    """Reads the file at ``path`` and compiles it, named by its path in messages."""
    path = _os.fspath(path)
    with open(path, encoding="utf-8") as file:
        return _compile(file.read(), path)

__all__ = ["compile", "load", "devices", "diagram", "Module", "Profile", "Chart", "Outputs", "Trace", "Diagnostic",
           "TesseraError", "TesseraWarning", "CompileError", "LaunchError", "RunError", "TargetError",
           "BackendError",
           "__version__"]


def load_ipython_extension(ipython) -> None:
    """``%load_ext tessera``: the ``%%tessera NAME`` cell magic, which compiles the cell and
    binds the module to ``NAME`` in the notebook (its warnings shown as warnings)."""
    def tessera(line: str, cell: str) -> None:
        name = line.strip()
        if not name.isidentifier():
            raise ValueError(f"%%tessera NAME: a Python name to bind the module to, not {name!r}")
        ipython.user_ns[name] = _compile(cell, f"<cell {name}>")

    ipython.register_magic_function(tessera, magic_kind="cell", magic_name="tessera")
