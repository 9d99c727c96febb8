"""MUTANT (teacher/mutants/, never handed out): Hypot.forward computes √(a² + b²) by the definition,
which overflows (and underflows) where math.hypot does not.

Exercise U5.3 — Custom Functions that pass gradcheck (lesson 5: writing a custom backward).

The article's ``SquareAndDouble`` computes y = 2x² with a hand-written backward,
∂y/∂x = 4x; then ``Hypot``, an op with two inputs, h = √(a² + b²).  Write them
the way PyTorch's ``torch.autograd.Function`` is written:

* save what backward needs with ``ctx.save_for_backward(...)`` — the inputs, or
  the output you return — not as attributes of ``ctx``: saved Values are
  checked, so changing one in place before backward raises
  ``modified by an inplace operation`` instead of silently using a new number;
* ``backward`` returns one gradient per input (a tuple for two inputs), and
  ``None`` for an input that is a plain number (``Hypot.apply(x, 2.0)``): a
  number has no ``.grad`` to receive one, and PyTorch refuses a gradient for
  it.  ``ctx.needs_input_grad[i]`` is False for such an input.

``mg.autograd.gradcheck(Hypot, [a, b])`` compares your backward with central
differences; the tests run it at many points.

Check: ``micrograd2 exercise check U5.3`` (or ``pytest -m u5_3``).
Hints: ``micrograd2 exercise hint U5.3``.
"""
from __future__ import annotations

import math  # noqa: F401 - unused in the stub, needed by a solution
from typing import Any

import micrograd2 as mg


class SquareAndDouble(mg.Function):
    """y = 2·x²."""

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        # BEGIN SOLUTION
        ctx.save_for_backward(x)
        return 2 * x * x
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad_output: float) -> float:
        # BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_output * 4 * x
        # END SOLUTION


class Hypot(mg.Function):
    """h = √(a² + b²) (``math.hypot``)."""

    @staticmethod
    def forward(ctx: Any, a: float, b: float) -> float:
        # BEGIN SOLUTION
        h = math.sqrt(a * a + b * b)  # MUTANT: a * a overflows past 1e154
        ctx.save_for_backward(a, b, h)
        return h
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad_output: float) -> tuple[float | None, float | None]:
        # BEGIN SOLUTION
        a, b, h = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad_output * a / h if need_a else None), (grad_output * b / h if need_b else None)
        # END SOLUTION
