"""The vectorized engine: ``mg.tensor`` / ``mg.Tensor`` on an array backend, sharing the autograd core.

Importing this package imports NumPy (``import micrograd2`` alone does not).
"""
from __future__ import annotations

from .tensor import Tensor, check_tensor_dtype, full, ones, tensor, zeros

__all__ = ["Tensor", "check_tensor_dtype", "full", "ones", "tensor", "zeros"]
