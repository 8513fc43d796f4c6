"""Tessera's errors and diagnostics as Python objects.

Every error carries the text the command line prints (``str(error)``) and, where the source is
at fault, its diagnostics: a code (``E0112``), a message, where (line and column, from 1) and a
``help`` where one helps. ``tessera explain CODE`` and the docs' error index say more of a code.
"""


class Diagnostic:
    """One diagnostic: what the command line prints as ``error[E0112]: ...`` with its place."""

    __slots__ = ("code", "severity", "message", "line", "column", "end_line", "end_column",
                 "help", "explanation")

    def __init__(self, code, severity, message, line, column, end_line, end_column, help,
                 explanation):
        self.code = code
        self.severity = severity
        self.message = message
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.help = help
        self.explanation = explanation

    def __repr__(self):
        return (f"Diagnostic({self.code} {self.severity} at {self.line}:{self.column}: "
                f"{self.message!r})")


class TesseraError(Exception):
    """The base of Tessera's errors: ``str()`` is the command line's text, ``diagnostics`` the
    structured form (empty where no source is at fault)."""

    def __init__(self, text, diagnostics=()):
        super().__init__(text)
        self.text = text
        self.diagnostics = list(diagnostics)

    def __str__(self):
        return self.text


class CompileError(TesseraError):
    """The source has errors: ``tessera check`` would print them."""


class LaunchError(TesseraError, ValueError):
    """The launch does not fit the kernel: an unknown kernel, a missing dimension, an array of
    the wrong dtype, rank or shape (a ``ValueError`` that names the parameter)."""


class RunError(TesseraError):
    """The run stopped: a fault of the kernel (an access out of bounds, a race, the step
    limit) at its statement, or a GPU's error."""


class TargetError(TesseraError, ValueError):
    """The target cannot build the kernel: an ``arch`` that is not one (``sm_70``, ``sm_80``,
    ``sm_90``), or one that lacks what the kernel uses (its ``mma`` on sm_70, E0522; more
    shared memory than it has, E0521). Another target builds it; the source is not at fault."""


class BackendError(TesseraError, RuntimeError):
    """The backend asked for cannot be opened: no Vulkan GPU, no NVIDIA driver or GPU."""


class TesseraWarning(UserWarning):
    """A warning of the checker's (``str()`` as ``tessera check`` prints it), issued when a
    source compiles, or a run's note (a sum whose bits depend on the order of its additions).
    Python's ``warnings`` filters apply: ``warnings.simplefilter("error", TesseraWarning)``
    makes them errors."""
