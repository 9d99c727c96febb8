"""PyTorch, live: the ``torch`` module when it is installed, its version, and the errors it raises.

``torch = live_torch()`` at the top of a lesson gives PyTorch, or ``None`` where it is not
installed or ``MICROGRAD2_NO_TORCH=1`` asks the lessons to behave as if it were not (the
checks then show PyTorch's recorded output).  ``error_of(fn)`` runs PyTorch code and returns
the error it raised, for ``raises(..., torch=lambda: error_of(...))``.
"""
from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Any, Callable

from .compare import Live

NO_TORCH = "MICROGRAD2_NO_TORCH"  # set to 1: the lessons behave as if PyTorch were not installed


def live_torch() -> ModuleType | None:
    """The ``torch`` module if PyTorch is installed (and ``MICROGRAD2_NO_TORCH`` is not set), else ``None``."""
    if os.environ.get(NO_TORCH):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch


def imported_version() -> str | None:
    """``"2.13"`` if PyTorch is imported already (and not switched off), else ``None``."""
    if "torch" in sys.modules and not os.environ.get(NO_TORCH):
        return short_version(sys.modules["torch"])
    return None


def short_version(torch: Any) -> str:
    """PyTorch's major and minor version: ``"2.13"`` for ``2.13.0+cpu``."""
    return ".".join(str(getattr(torch, "__version__", "?")).split("+")[0].split(".")[:2])


def error_of(fn: Callable[[], Any]) -> Live:
    """Run ``fn()`` (PyTorch code) and return the exception it raised, or ``None``, as a live value."""
    try:
        fn()
    except Exception as exc:  # the error is the result
        return Live(exc)
    return Live(None)
