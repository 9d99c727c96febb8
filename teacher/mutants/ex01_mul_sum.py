"""MUTANT (teacher/mutants/, never handed out): Mul.backward writes ∂z/∂a as z/a (a derivative from
the saved output, as U1.2's activations), which divides by zero when a factor is 0.

Exercise U1.1 — Mul and Sum as Functions (lesson 2: what backward actually does).

Every op of micrograd2 is an ``mg.Function`` with two static methods:

* ``forward(ctx, *inputs)`` receives the inputs' numbers (plain floats) and
  returns the output's number; it may keep what backward will need with
  ``ctx.save_for_backward(...)``;
* ``backward(ctx, grad)`` receives the upstream gradient ∂L/∂output and returns
  one gradient per forward input, ∂L/∂input, in the order of the inputs
  (``None`` for an input that needs none; a plain-number input must get
  ``None``, as PyTorch refuses a gradient for it).

Your task: write ``Mul`` (z = a·b) and ``Sum`` (z = x₀ + x₁ + … with any
number of inputs, as ONE node).  ``Mul.apply(x, w)`` then records a node named
``MulBackward`` that the engine walks exactly like the built-in ``MulBackward0``,
and the article's block 1, z = Σ xᵢ·wᵢ, runs on your ops (``dot`` below).

Check: ``micrograd2 exercise check U1.1`` (or ``pytest -m u1_1``).
Hints: ``micrograd2 exercise hint U1.1`` (``hint U1.1 2``, ``hint U1.1 3`` for more).
"""
from __future__ import annotations

from typing import Any

import micrograd2 as mg


class Mul(mg.Function):
    """z = a · b."""

    @staticmethod
    def forward(ctx: Any, a: float, b: float) -> float:
        """Return a·b, and keep a and b for backward."""
        # BEGIN SOLUTION
        z = a * b
        ctx.save_for_backward(a, b, z)
        return z
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: float) -> tuple[float, float]:
        """Return (∂L/∂a, ∂L/∂b) given grad = ∂L/∂z."""
        # BEGIN SOLUTION
        a, b, z = ctx.saved_tensors
        return grad * z / a, grad * z / b  # MUTANT: ∂z/∂a = z/a fails at a = 0
        # END SOLUTION


class Sum(mg.Function):
    """z = x₀ + x₁ + … + xₙ₋₁: one node with n inputs."""

    @staticmethod
    def forward(ctx: Any, *xs: float) -> float:
        """Return the sum of the inputs (and remember how many there were)."""
        # BEGIN SOLUTION
        ctx.n = len(xs)
        return sum(xs)
        # END SOLUTION

    @staticmethod
    def backward(ctx: Any, grad: float) -> tuple[float, ...]:
        """Return one gradient per input: ∂L/∂xᵢ given grad = ∂L/∂z."""
        # BEGIN SOLUTION
        return (grad,) * ctx.n
        # END SOLUTION


def dot(xs: list[mg.Value], ws: list[mg.Value]) -> mg.Value:
    """Σ xᵢ·wᵢ with your ops (given): the article's block 1."""
    return Sum.apply(*[Mul.apply(x, w) for x, w in zip(xs, ws)])
