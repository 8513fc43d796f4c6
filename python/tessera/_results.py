"""What a run gives back: its tensors as numpy arrays, in a dict, with what ran and how long."""

from typing import Any, Dict, List, Optional, Tuple


class Outputs(Dict[str, Any]):
    """The tensors a kernel or program may write, by name (numpy arrays, C order), and what ran.

    Attributes: ``ran_on`` (the simulator, or the GPU and how its warps ran), ``seconds`` (the
    run's wall time, copies included), ``gpu_seconds`` (the kernel's own GPU time, the median of
    timed dispatches, or ``None``), ``gpu_time`` (that time in words, or why there is none),
    ``steps`` and ``lane_ops`` (the simulator's counts), ``launches`` (a program's, in order) and
    ``notes`` (what the command line would note, such as sums whose bits depend on order).
    """

    ran_on: "Optional[str]"
    seconds: "Optional[float]"
    gpu_seconds: "Optional[float]"
    gpu_time: "Optional[str]"
    steps: "Optional[int]"
    lane_ops: "Optional[int]"
    launches: "List[Tuple[str, Tuple[int, int, int]]]"
    notes: "List[str]"

    def __init__(self, arrays: "Dict[str, Any]", info: "Dict[str, Any]") -> None:
        super().__init__(arrays)
        self.ran_on = info.get("ran_on")
        self.seconds = info.get("seconds")
        self.gpu_seconds = info.get("gpu_seconds")
        self.gpu_time = info.get("gpu_time")
        self.steps = info.get("steps")
        self.lane_ops = info.get("lane_ops")
        self.launches = info.get("launches", [])
        self.notes = info.get("notes", [])


class Trace:
    """One CTA's steps on the simulator (`Module.trace`), as ``tessera run --trace`` gives them.

    ``data`` is ``--trace --json``'s object: ``block``, ``threads``, ``lanes``, ``variables``,
    ``steps`` (each with its source ``line``, its active mask and what it wrote and read) and
    ``incomplete``; ``steps`` is ``data["steps"]``; ``str()`` is the command line's text, which
    a notebook shows; ``fault`` is the run's fault in the command line's words, or ``None``.
    """

    def __init__(self, data: "Dict[str, Any]", text: str, fault: "Optional[str]") -> None:
        self.data = data
        self.text = text
        self.fault = fault

    @property
    def steps(self) -> "List[Dict[str, Any]]":
        return self.data["steps"]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<tessera.Trace: {len(self.steps)} steps of block {tuple(self.data['block'].values())}>"

    def _repr_html_(self) -> str:
        import html

        fault = f"<p>{html.escape(self.fault)}</p>" if self.fault else ""
        return f"<pre class=\"tessera-trace\">{html.escape(self.text)}</pre>{fault}"
