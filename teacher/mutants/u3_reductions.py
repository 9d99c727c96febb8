"""MUTANT (teacher/mutants/, never handed out): the summed axes are put back with unsqueeze at each
1 of kept, but an axis of x that is 1 and was not summed is a 1 of kept too: one axis too many.

U3.2 — The reductions' backward: sum and mean, over all axes or some, keepdim or not.

``y = x.sum(dim, keepdim)`` adds up the elements of ``x`` along ``dim``: each element of ``x``
counts once in one element of ``y``, so its gradient is that element's upstream gradient.
``y = x.mean(...)`` divides by the number n of elements averaged, and so does its gradient.

The engine hands you ``shape`` (x's shape) and ``kept``: the reduction's shape as if
``keepdim=True`` (1 on each summed axis; all 1s for ``x.sum()``).  ``grad`` has the reduction's
own shape: with ``keepdim=False`` the summed axes are gone from it.

Check: ``micrograd2 exercise check U3.2``: your functions on random shapes (every dim, negative
ones, several at once, keepdim both ways), then gradcheck on ``x.sum(...)`` and ``x.mean(...)``
with them in place of the engine's.  Your engine takes them from this file.
Hints: ``micrograd2 exercise hint U3.2``.
"""
from __future__ import annotations

import math
from typing import Any


def put_back(grad: Any, kept: tuple[int, ...]) -> Any:
    """grad with the summed axes back as 1s (the 1s of kept)."""
    if grad.ndim < len(kept):
        for axis, size in enumerate(kept):
            if size == 1:  # MUTANT: a 1 of kept may be an axis of x of size 1, not summed
                grad = grad.unsqueeze(axis)
    return grad


def sum_backward(grad: Any, shape: tuple[int, ...], kept: tuple[int, ...]) -> Any:
    """The gradient of ``x`` for ``x.sum(...)``: a Tensor of ``shape`` in which every element
    gets the upstream gradient of the sum it went into."""
    # BEGIN SOLUTION
    return put_back(grad, kept).expand(*shape)
    # END SOLUTION


def mean_backward(grad: Any, shape: tuple[int, ...], kept: tuple[int, ...]) -> Any:
    """As ``sum_backward``, for ``x.mean(...)``: each element's share is divided by n, the
    number of elements averaged (the product of the summed axes' sizes)."""
    # BEGIN SOLUTION
    n = math.prod(shape) // math.prod(kept)
    return (put_back(grad, kept) / float(n)).expand(*shape)
    # END SOLUTION
