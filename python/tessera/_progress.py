"""The progress of a long run in a notebook or a terminal: tqdm's bar where tqdm is installed
(``tqdm.auto`` picks the notebook's widget), else a plain line on stderr. A run shows one only
once it has taken a second, as ``tessera run`` does."""

import sys
import time
import warnings


class _Line:
    def __init__(self, total, unit, elapsed):
        self.total, self.unit, self.done = total, unit, 0
        self.started = time.monotonic() - elapsed
        self.shown = 0.0

    def update(self, count):
        self.done += count
        now = time.monotonic()
        if now - self.shown >= 0.5:
            self.shown = now
            sys.stderr.write(f"\r{self.done}/{self.total} {self.unit}, "
                             f"{now - self.started:.1f} s")
            sys.stderr.flush()

    def close(self):
        sys.stderr.write("\n")
        sys.stderr.flush()


def bar(total, unit, elapsed=0.0):
    """A bar of ``total`` ``unit``s with ``update(count)`` and ``close()``, for a run that has
    taken ``elapsed`` seconds so far."""
    try:
        from tqdm import TqdmWarning
        from tqdm.auto import tqdm
    except ImportError:
        return _Line(total, unit, elapsed)
    # In a notebook without ipywidgets, tqdm.auto warns and draws its text bar: the text bar
    # is the answer there, without the warning (the notebook extra installs ipywidgets).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TqdmWarning)
        return tqdm(total=total, unit=f" {unit}", leave=False)
