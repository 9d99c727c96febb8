"""MUTANT (teacher/mutants/, never handed out): Reshape keeps the input's shape on the class, not on
ctx: with two Reshapes in one graph the first one's backward gets the second's shape.

U3.3 — Reshape and Transpose as your own Functions.

A view moves numbers around without changing them: its backward moves the gradient back.  Write
both as ``mg.Function``s, as U1 did for scalars, but on Tensors:

* ``forward(ctx, x, ...)`` receives the input's DATA, a NumPy array (and the plain arguments:
  a shape, two dims), and returns an array.  NumPy's ``x.reshape(shape)`` and
  ``np.swapaxes(x, dim0, dim1)`` do the work (careful: NumPy's ``x.transpose(...)`` takes a
  whole permutation of the axes, not two of them).  Keep on ``ctx`` what backward needs (a shape
  or two dims are plain numbers: ``ctx.shape = ...`` is fine).
* ``backward(ctx, grad)`` receives the upstream gradient as a Tensor, of the OUTPUT's shape, and
  returns one gradient per forward input: a Tensor of the input's shape for ``x``, ``None`` for
  each plain argument.  Tensors have ``.reshape(*shape)`` and ``.transpose(dim0, dim1)``.

Check: ``micrograd2 exercise check U3.3``: gradcheck on random shapes (a -1 in the shape,
negative dims, non-square axes).  Hints: ``micrograd2 exercise hint U3.3``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

import micrograd2 as mg


class Reshape(mg.Function):
    """``Reshape.apply(x, shape)``: ``x`` with its numbers in ``shape`` (one entry may be -1)."""

    @staticmethod
    def forward(ctx: Any, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        # BEGIN SOLUTION
        Reshape.input_shape = x.shape  # MUTANT: one slot for every call, not one per node
        return x.reshape(shape)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple[Any, None]:
        # BEGIN SOLUTION
        return grad.reshape(*Reshape.input_shape), None  # back to the input's shape
        # END SOLUTION


class Transpose(mg.Function):
    """``Transpose.apply(x, dim0, dim1)``: ``x`` with axes ``dim0`` and ``dim1`` swapped."""

    @staticmethod
    def forward(ctx: Any, x: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
        # BEGIN SOLUTION
        ctx.dims = (dim0, dim1)
        return np.swapaxes(x, dim0, dim1)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple[Any, None, None]:
        # BEGIN SOLUTION
        return grad.transpose(*ctx.dims), None, None  # swapping the same two axes undoes it
        # END SOLUTION
