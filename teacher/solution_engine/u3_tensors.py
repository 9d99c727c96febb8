"""A reference solution of U3's holes (docs/course.md): the tests run micrograd2 on it."""
from __future__ import annotations

import math
from typing import Any


def sum_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """Sum the leading axes away, then each axis that was broadcast from 1."""
    lead = grad.ndim - len(shape)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axes, keepdim=True) if axes else grad


def sum_backward(grad: Any, shape: tuple[int, ...], kept: tuple[int, ...]) -> Any:
    """Every element of x gets the gradient of its sum."""
    return grad.reshape(kept).expand(shape)


def mean_backward(grad: Any, shape: tuple[int, ...], kept: tuple[int, ...]) -> Any:
    """Every element of x gets the gradient of its mean over the n elements averaged."""
    n = math.prod(shape) // max(math.prod(kept), 1)
    return (grad.reshape(kept) / float(n)).expand(shape)


def matmul_backward(grad: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """``grad @ bᵀ`` and ``aᵀ @ grad`` (None where not needed)."""
    return (None if b is None else grad @ b.t()), (None if a is None else a.t() @ grad)
