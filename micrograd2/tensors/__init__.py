"""The vectorized engine: ``mg.tensor`` / ``mg.Tensor`` on an array backend, sharing the autograd core.

Importing this package imports NumPy (``import micrograd2`` alone does not).
"""
from __future__ import annotations

try:
    import numpy  # noqa: F401  (the one clear message below, before any module of ours needs it)
except ModuleNotFoundError as missing:
    if missing.name != "numpy":
        raise
    raise ModuleNotFoundError(
        "mg.tensor and mg.Tensor need NumPy, which is not installed here\n"
        "What to do: pip install numpy (mg.Value, the scalar engine, works without it).",
        name="numpy") from None

from .creation import (
    arange,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .storage import check_tensor_dtype
from .tensor import Tensor

__all__ = ["Tensor", "arange", "check_tensor_dtype", "empty_like", "eye", "full", "full_like", "linspace",
           "manual_seed", "ones", "ones_like", "rand", "randn", "tensor", "zeros", "zeros_like"]
