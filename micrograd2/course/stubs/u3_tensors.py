"""U3, tensors: the holes ``sum_to``, ``sum_backward``, ``mean_backward`` and ``matmul_backward``.

Their contracts are in docs/course.md. Until you fill one of them, Tensor graphs run on the
reference engine; once you have, they run on all of your holes (U1's and U2's too). Each
receives Tensors and computes with Tensor ops (``.sum``, ``.reshape``, ``.expand``, ``@``, ``.t()``).
"""
from __future__ import annotations

from typing import Any


def sum_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """``grad`` summed down to ``shape``: the backward of broadcasting an input of ``shape``.

    Sum away the leading axes ``grad`` has more than ``shape``; then sum, keeping the axis, each
    axis where ``shape`` has 1 and ``grad`` does not.
    """
    raise NotImplementedError("not implemented yet: sum_to (U3)")


def sum_backward(grad: Any, shape: tuple[int, ...], kept: tuple[int, ...]) -> Any:
    """The gradient of ``x`` for ``x.sum(...)``: ``shape`` is x's shape, ``kept`` the sum's
    shape as if ``keepdim=True`` (1 on each summed axis). Return a Tensor of ``shape``."""
    raise NotImplementedError("not implemented yet: sum_backward (U3)")


def mean_backward(grad: Any, shape: tuple[int, ...], kept: tuple[int, ...]) -> Any:
    """As ``sum_backward``, for ``x.mean(...)``: each element's share is divided by the number of
    elements averaged."""
    raise NotImplementedError("not implemented yet: mean_backward (U3)")


def matmul_backward(grad: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """``(grad_a, grad_b)`` for ``a @ b`` of two matrices: ``grad @ bᵀ`` and ``aᵀ @ grad``.

    ``a`` is None when ``b`` needs no gradient (it was not saved), ``b`` None when ``a`` needs
    none: return None for the gradient that is not needed.
    """
    raise NotImplementedError("not implemented yet: matmul_backward (U3)")
