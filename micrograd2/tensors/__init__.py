"""The vectorized engine: ``mg.tensor`` / ``mg.Tensor`` on an array backend, sharing the autograd core.

Importing this package imports NumPy (``import micrograd2`` alone does not).
"""
from __future__ import annotations

from .creation import full, ones, tensor, zeros
from .storage import check_tensor_dtype
from .tensor import Tensor

__all__ = ["Tensor", "check_tensor_dtype", "full", "ones", "tensor", "zeros"]
