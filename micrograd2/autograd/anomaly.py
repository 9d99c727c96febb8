"""Anomaly detection: find the op whose backward produced NaN, and where it was created.

``detect_anomaly()`` (a context manager) and ``set_detect_anomaly(flag)`` (a switch and a context
manager) work as in PyTorch. While on, each recorded op remembers the stack of its forward call.
Each backward result is checked for NaN (not for inf: PyTorch doesn't flag inf). While off, the
engine pays one global read per op.
"""
from __future__ import annotations

import os
import traceback
import warnings
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .node import Node
    from .protocol import Gradient

enabled = False
check_nan = True  # while enabled: are backward results checked for NaN? (PyTorch's check_nan)
_forward_stacks: weakref.WeakKeyDictionary[Node, str] = weakref.WeakKeyDictionary()


def _switch(mode: bool, nan: bool = True) -> None:
    """Switch anomaly detection on or off (warning, as PyTorch, when it goes on).

    ``nan``: check backward results for NaN while on."""
    global enabled, check_nan
    if mode and not enabled:
        warnings.warn(
            "Anomaly Detection has been enabled. "
            "This mode will increase the runtime and should only be enabled for debugging.",
            stacklevel=3,
        )
    enabled, check_nan = bool(mode), bool(nan)


class set_detect_anomaly:
    """``set_detect_anomaly(mode, check_nan=True)`` switches anomaly detection at once; used as
    ``with set_detect_anomaly(mode):`` it switches back at the end of the block (as PyTorch's).

    With ``check_nan=False`` forward stacks are kept, but backward results are not checked."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = enabled, globals()["check_nan"]
        _switch(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _switch(*self._prev)


def is_anomaly_enabled() -> bool:
    return enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Does anomaly mode check backward results for NaN (PyTorch's function of that name)?"""
    return check_nan


class detect_anomaly:
    """``with detect_anomaly(check_nan=True):`` turns anomaly detection on for the block."""

    def __init__(self, check_nan: bool = True) -> None:
        self._check_nan = check_nan

    def __enter__(self) -> None:
        self._prev = enabled, globals()["check_nan"]
        _switch(True, self._check_nan)

    def __exit__(self, *exc: object) -> None:
        _switch(*self._prev)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # micrograd2/
_LESSONS = os.path.join(_PACKAGE, "lessons")  # an installed package's lessons: user code


def remember_forward(node: Node) -> None:
    """Keep the stack of the forward call that created ``node``, up to the caller's line.

    The frames inside micrograd2 itself are left out, however many this engine path has."""
    frames = traceback.extract_stack()[:-1]
    while (frames and frames[-1].filename.startswith(_PACKAGE)
           and not frames[-1].filename.startswith(_LESSONS)):
        frames.pop()
    _forward_stacks[node] = "".join(traceback.format_list(frames))


def check_gradients(node: Node, grads: tuple[Gradient | None, ...]) -> None:
    """Raise if ``node``'s backward returned NaN in any output (when ``check_nan``)."""
    if not check_nan:
        return
    for i, g in enumerate(grads):
        if g is not None and _has_nan(g):
            stack = _forward_stacks.get(
                node, "(not recorded: the op ran before anomaly mode was on)\n")
            warnings.warn(
                f"Error detected in {node.name()}. "
                f"Traceback of forward call that caused the error:\n{stack}",
                stacklevel=2,
            )
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {i}th output.\n"
                f"What to do: look at the forward call of {node.name()} in anomaly mode's warning, "
                "\"Error detected in\" (e.g. sqrt or log at 0, 0 * inf)."
            )


def _has_nan(g: Gradient) -> bool:
    data = getattr(g, "data", g)
    if isinstance(data, float):
        return data != data
    try:
        import numpy

        return bool(numpy.isnan(numpy.asarray(data, dtype=float)).any())
    except (ImportError, TypeError, ValueError):
        return False
