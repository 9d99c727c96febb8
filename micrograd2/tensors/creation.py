"""Making Tensors: ``tensor(data)``, ``zeros``, ``ones`` and ``full``, as PyTorch's factory functions."""
from __future__ import annotations

from typing import Any, Sequence

from ..backends import get_backend
from .shapes import shape_arg
from .storage import check_tensor_dtype, storage_dtype
from .tensor import Tensor


def tensor(data: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A new leaf Tensor holding a copy of ``data`` (numbers, nested sequences, a NumPy array, a Tensor).

    ``dtype`` is ``"float32"`` unless asked otherwise (``"float64"``, ``"float16"``, ``"bfloat16"``,
    ``"int64"`` for class indices, ``"bool"``); ``device`` is ``"cpu"`` or ``"cuda"``.
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, device=device)


def zeros(*shape: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A Tensor of zeros."""
    return full(shape_arg(shape), 0.0, requires_grad=requires_grad, dtype=dtype, device=device)


def ones(*shape: Any, requires_grad: bool = False, dtype: Any = "float32", device: Any = "cpu") -> Tensor:
    """A Tensor of ones."""
    return full(shape_arg(shape), 1.0, requires_grad=requires_grad, dtype=dtype, device=device)


def full(shape: Sequence[int], value: float, requires_grad: bool = False, dtype: Any = "float32",
         device: Any = "cpu") -> Tensor:
    """A Tensor of ``shape`` filled with ``value``."""
    dtype = check_tensor_dtype(dtype)
    be = get_backend(device)
    t = Tensor._wrap(be.full(tuple(shape), value, storage_dtype(dtype)), dtype, None)
    if requires_grad:
        t.requires_grad = True
    return t
