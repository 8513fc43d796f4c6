# Types of the extension module (python/src/*.rs), for mypy and editors. Kept beside the Rust
# that defines them: a change of a signature there changes it here (python/tests/test_typing.py
# checks a script against these with mypy, and every name here against the module).
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from ._results import Outputs, Trace

__version__: str

Extents = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int]]
TensorValue = Union[np.ndarray, str]

class Chart:
    """A chart or diagram: SVG for a notebook (`_repr_svg_`), text for a terminal (`str`)."""
    figure: str
    svg: str
    text: str
    def _repr_svg_(self) -> str: ...

class Profile:
    """A run's memory counts and work (`tessera run --profile`)."""
    data: Dict[str, Any]
    outputs: Outputs
    @property
    def flops(self) -> int: ...
    @property
    def global_bytes(self) -> int: ...
    @property
    def sites(self) -> List[Dict[str, Any]]: ...
    def roofline(self, arch: Optional[str] = None) -> Chart: ...

class Module:
    """A compiled Tessera file: `tessera.compile(source)` or `tessera.load(path)`."""
    @property
    def kernels(self) -> List[str]: ...
    @property
    def programs(self) -> List[str]: ...
    @property
    def source(self) -> str: ...
    @property
    def warnings(self) -> List[Any]: ...
    def parameters(self, name: Optional[str] = None) -> List[Tuple[str, str, str]]: ...
    def run(
        self,
        name: Optional[str] = None,
        *,
        grid: Optional[Extents] = None,
        dims: Optional[Mapping[str, int]] = None,
        scalars: Optional[Mapping[str, Union[int, float]]] = None,
        backend: str = "sim",
        threads: Optional[int] = None,
        lanes: Optional[int] = None,
        emulate_warps: bool = False,
        step_limit: Optional[int] = None,
        progress: bool = True,
        timing: bool = True,
        repeats: Optional[int] = None,
        inputs: Optional[Mapping[str, TensorValue]] = None,
        **tensors: TensorValue,
    ) -> Outputs: ...
    def profile(
        self,
        name: Optional[str] = None,
        *,
        grid: Optional[Extents] = None,
        dims: Optional[Mapping[str, int]] = None,
        scalars: Optional[Mapping[str, Union[int, float]]] = None,
        backend: str = "sim",
        threads: Optional[int] = None,
        lanes: Optional[int] = None,
        emulate_warps: bool = False,
        step_limit: Optional[int] = None,
        progress: bool = True,
        timing: bool = True,
        repeats: Optional[int] = None,
        inputs: Optional[Mapping[str, TensorValue]] = None,
        **tensors: TensorValue,
    ) -> Profile: ...
    def trace(
        self,
        name: Optional[str] = None,
        *,
        block: Optional[Extents] = None,
        warp: Optional[int] = None,
        grid: Optional[Extents] = None,
        dims: Optional[Mapping[str, int]] = None,
        scalars: Optional[Mapping[str, Union[int, float]]] = None,
        lanes: Optional[int] = None,
        step_limit: Optional[int] = None,
        inputs: Optional[Mapping[str, TensorValue]] = None,
        **tensors: TensorValue,
    ) -> Trace: ...
    def ir(self, kernel: Optional[str] = None) -> str: ...
    def ptx(self, kernel: Optional[str] = None, arch: str = "sm_90") -> str: ...
    def wgsl(
        self, kernel: Optional[str] = None, lanes: Optional[int] = None, emulate_warps: bool = False
    ) -> str: ...
    def occupancy(
        self, kernel: Optional[str] = None, arch: str = "sm_90", registers: Optional[int] = None
    ) -> Chart: ...

def compile(source: str, name: str = "<source>") -> Module: ...
def devices() -> str: ...
def diagram(
    blocks: Optional[Extents] = None,
    threads: int = 256,
    lanes: int = 32,
    block: Optional[Extents] = None,
    thread: Optional[int] = None,
) -> Chart: ...
