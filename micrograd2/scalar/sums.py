"""The scalar engine's ops of many inputs: ``sum`` and ``dot`` (Σ wᵢ·xᵢ + b), each one node.

One node for a whole sum is what keeps a neuron's graph small (n + 1 edges, not 2n
nodes).  The sum is correctly rounded (``math.fsum``), so it does not depend on the
order of the terms.  ``ops.py`` re-exports these names: the engine and the speed
layer take them from there with the other ops.
"""
from __future__ import annotations

import math
import operator
from typing import Any

from ..autograd import Function
from ..autograd.saved import Keep


def _exact_sum(xs: Any) -> float:
    """The sum, correctly rounded (``math.fsum``), or IEEE's inf/nan where fsum would raise."""
    try:
        return math.fsum(xs)
    except (ValueError, OverflowError):
        return sum(xs)


class Sum(Function):
    """x₀ + x₁ + … as one node.  Saves nothing (PyTorch keeps only the input's size)."""

    node_name = "SumBackward0"
    autocast = "fp32"

    @staticmethod
    def forward(ctx, *xs):
        return _exact_sum(xs)

    @staticmethod
    def backward(ctx, grad):
        return (grad,) * len(ctx.needs_input_grad)


class Dot(Function):
    """Σ wᵢ·xᵢ (+ bias) as one node: inputs w₀…wₙ₋₁, x₀…xₙ₋₁[, bias].  ∂/∂wᵢ = xᵢ, ∂/∂xᵢ = wᵢ.
    Keeps xᵢ only if wᵢ needs a gradient, and wᵢ only if xᵢ does."""

    node_name = "DotBackward0"
    saved_names = ()  # w₀…wₙ₋₁, x₀…xₙ₋₁: n varies, so each is named by position (saved_tensors[j])
    autocast = "lowp"

    @classmethod
    def keeps_for(cls, n_inputs):  # wᵢ if xᵢ needs a gradient, xᵢ if wᵢ does (not the bias)
        n = n_inputs // 2
        return (*[Keep(i, when=n + i) for i in range(n)], *[Keep(n + i, when=i) for i in range(n)])

    @staticmethod
    def forward(ctx, *args):
        n = len(args) // 2
        terms = list(map(operator.mul, args[:n], args[n : 2 * n]))
        if len(args) % 2:
            terms.append(args[2 * n])
        return _exact_sum(terms)

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors
        n = len(saved) // 2
        ws, xs = saved[:n], saved[n:]
        grad_ws = [None if x is None else grad * x for x in xs]
        grad_xs = [None if w is None else grad * w for w in ws]
        bias = (grad,) if len(ctx.needs_input_grad) % 2 else ()
        return (*grad_ws, *grad_xs, *bias)
