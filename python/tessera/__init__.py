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

from ._errors import (BackendError, CompileError, Diagnostic, LaunchError, RunError,
                      TesseraError, TesseraWarning)
from ._results import Outputs
from ._tessera import Chart, Module, Profile, compile, diagram, __version__

__all__ = ["compile", "diagram", "Module", "Profile", "Chart", "Outputs", "Diagnostic",
           "TesseraError", "TesseraWarning", "CompileError", "LaunchError", "RunError", "BackendError",
           "__version__"]
