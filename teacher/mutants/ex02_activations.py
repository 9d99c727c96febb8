"""MUTANT (teacher/mutants/, never handed out): Tanh.backward recovers x = atanh(t) to use sech²(x),
which fails once tanh saturates (t = ±1.0).

Exercise U1.2 — Tanh, Exp and Sigmoid backward (lesson 2: each op carries its own backward).

Each ``forward`` below is written for you and saves the op's OUTPUT with
``ctx.save_for_backward``: for these three functions the derivative is
cheapest to compute from the output (PyTorch saves the output of exp, tanh and
sigmoid for the same reason).

Your task: write the three ``backward`` methods.  Each receives the upstream
gradient ``grad`` = ∂L/∂output and returns ∂L/∂x (the chain rule: upstream
gradient × local derivative), reading the saved output from ``ctx.saved_tensors``.

Check: ``micrograd2 exercise check U1.2`` (or ``pytest -m u1_2``).
Hints: ``micrograd2 exercise hint U1.2``.
"""
from __future__ import annotations

import math
from typing import Any

import micrograd2 as mg


class Tanh(mg.Function):
    """t = tanh(x)."""

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        t = math.tanh(x)
        ctx.save_for_backward(t)
        return t

    @staticmethod
    def backward(ctx: Any, grad: float) -> float:
        """∂L/∂x from grad = ∂L/∂t and the saved t."""
        # BEGIN SOLUTION
        (t,) = ctx.saved_tensors
        x = math.atanh(t)  # MUTANT: x from the output: t = ±1.0 is out of atanh's domain
        return grad / math.cosh(x) ** 2
        # END SOLUTION


class Exp(mg.Function):
    """e = exp(x)."""

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        e = math.exp(x) if x < 709.78 else math.inf
        ctx.save_for_backward(e)
        return e

    @staticmethod
    def backward(ctx: Any, grad: float) -> float:
        """∂L/∂x from grad = ∂L/∂e and the saved e."""
        # BEGIN SOLUTION
        (e,) = ctx.saved_tensors
        return grad * e
        # END SOLUTION


class Sigmoid(mg.Function):
    """s = σ(x) = 1 / (1 + exp(−x))."""

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        s = 1 / (1 + math.exp(-x)) if x > -709.78 else 0.0
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx: Any, grad: float) -> float:
        """∂L/∂x from grad = ∂L/∂s and the saved s."""
        # BEGIN SOLUTION
        (s,) = ctx.saved_tensors
        return grad * s * (1 - s)
        # END SOLUTION
