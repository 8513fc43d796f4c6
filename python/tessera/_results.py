"""What a run gives back: its tensors as numpy arrays, in a dict, with what ran and how long."""


class Outputs(dict):
    """The tensors a kernel or program may write, by name (numpy arrays, C order), and what ran.

    Attributes: ``ran_on`` (the simulator, or the GPU and how its warps ran), ``seconds`` (the
    run's wall time, copies included), ``gpu_seconds`` (the kernel's own GPU time, the median of
    timed dispatches, or ``None``), ``gpu_time`` (that time in words, or why there is none),
    ``steps`` and ``lane_ops`` (the simulator's counts), ``launches`` (a program's, in order) and
    ``notes`` (what the command line would note, such as sums whose bits depend on order).
    """

    def __init__(self, arrays, info):
        super().__init__(arrays)
        self.ran_on = info.get("ran_on")
        self.seconds = info.get("seconds")
        self.gpu_seconds = info.get("gpu_seconds")
        self.gpu_time = info.get("gpu_time")
        self.steps = info.get("steps")
        self.lane_ops = info.get("lane_ops")
        self.launches = info.get("launches", [])
        self.notes = info.get("notes", [])
