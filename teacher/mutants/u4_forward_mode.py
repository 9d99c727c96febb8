"""MUTANT (teacher/mutants/, never handed out): Dual's + and * treat only floats as plain numbers:
an int (2 * x, x + 1) is taken for a Dual.

U4.4 — Forward mode with dual numbers, and what it costs against reverse mode.

A dual number ``Dual(value, tangent)`` stands for value + tangent·ε with ε² = 0.  Run a function
on Duals and every op computes its value and its derivative along ONE direction at once:

    (a + ȧε) + (b + ḃε) = (a + b) + (ȧ + ḃ)ε
    (a + ȧε) · (b + ḃε) = ab + (ȧb + aḃ)ε          (the ε² term is 0)
    g(a + ȧε)           = g(a) + g'(a)·ȧ ε         (tanh' = 1 − tanh², exp' = exp)

So ``f(Dual(x, v))`` gives f(x) and the directional derivative J·v (a Jacobian-vector product,
``jvp``) in one forward pass, with no graph kept.  Reverse mode gives v·J (one backward pass per
output); forward mode gives J·v (one forward pass per input direction).

Write ``Dual`` (+ and * with Duals and with plain numbers on either side, ``tanh``, ``exp``),
``jvp(f, xs, vs)``, and the whole Jacobian of f: R^n -> R^m both ways, ``jacobian_forward``
(n passes on Duals) and ``jacobian_reverse`` (one forward pass on Values, m backward passes);
the tests count the passes each makes.

U4 runs on the reference engine; with ``--engine DIR`` it runs on your own engine's holes too.

Check: ``micrograd2 exercise check U4.4``; hints: ``micrograd2 exercise hint U4.4``.
"""
from __future__ import annotations

import math  # noqa: F401 - unused in the stub, needed by a solution
from typing import Any, Callable, Sequence

import micrograd2 as mg  # noqa: F401 - unused in the stub, needed by a solution

Outputs = Callable[..., Sequence[Any]]  # f(*xs) -> its m outputs


class Dual:
    """value + tangent·ε, ε² = 0."""

    def __init__(self, value: float, tangent: float = 0.0) -> None:
        self.value = float(value)
        self.tangent = float(tangent)

    def __repr__(self) -> str:
        return f"Dual({self.value!r}, {self.tangent!r})"

    def __add__(self, other: Any) -> Dual:
        # BEGIN SOLUTION
        other = Dual(other) if isinstance(other, float) else other  # MUTANT: an int is a plain number too
        return Dual(self.value + other.value, self.tangent + other.tangent)
        # END SOLUTION

    __radd__ = __add__

    def __mul__(self, other: Any) -> Dual:
        # BEGIN SOLUTION
        other = Dual(other) if isinstance(other, float) else other  # MUTANT: an int is a plain number too
        return Dual(self.value * other.value,
                    self.tangent * other.value + self.value * other.tangent)
        # END SOLUTION

    __rmul__ = __mul__

    def tanh(self) -> Dual:
        # BEGIN SOLUTION
        t = math.tanh(self.value)
        return Dual(t, (1 - t * t) * self.tangent)
        # END SOLUTION

    def exp(self) -> Dual:
        # BEGIN SOLUTION
        e = math.exp(self.value)
        return Dual(e, e * self.tangent)
        # END SOLUTION


def jvp(f: Outputs, xs: Sequence[float], vs: Sequence[float]) -> tuple[list[float], list[float]]:
    """One forward pass of ``f`` on Duals: (its outputs, J·v), floats, one per output."""
    # BEGIN SOLUTION
    outs = f(*[Dual(x, v) for x, v in zip(xs, vs)])
    return [o.value for o in outs], [o.tangent for o in outs]
    # END SOLUTION


def jacobian_forward(f: Outputs, xs: Sequence[float]) -> list[list[float]]:
    """J (one row per output) by forward mode: one ``jvp`` per input, along that input's axis."""
    # BEGIN SOLUTION
    n = len(xs)
    columns = [jvp(f, xs, [1.0 if j == i else 0.0 for j in range(n)])[1] for i in range(n)]
    return [[col[r] for col in columns] for r in range(len(columns[0]))]
    # END SOLUTION


def jacobian_reverse(f: Outputs, xs: Sequence[float]) -> list[list[float]]:
    """J (one row per output) by reverse mode: f once on Values, one backward per output."""
    # BEGIN SOLUTION
    leaves = [mg.Value(x, requires_grad=True) for x in xs]
    outs = f(*leaves)
    rows = []
    for out in outs:
        grads = mg.autograd.grad(out, leaves, retain_graph=True, allow_unused=True)
        rows.append([0.0 if g is None else float(g) for g in grads])
    return rows
    # END SOLUTION
