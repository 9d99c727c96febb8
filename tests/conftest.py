"""Shared test helpers: central differences and the article's small graphs."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest

import micrograd2 as mg


def central_difference(f: Callable[..., float], xs: Sequence[float], i: int, eps: float = 1e-6) -> float:
    """(f(x + ε) − f(x − ε)) / 2ε in argument ``i``."""
    plus, minus = list(xs), list(xs)
    plus[i] += eps
    minus[i] -= eps
    return (f(*plus) - f(*minus)) / (2 * eps)


def values(*xs: float, requires_grad: bool = True) -> list[mg.Value]:
    return [mg.Value(x, requires_grad=requires_grad) for x in xs]


@pytest.fixture
def block1() -> dict[str, Any]:
    """The article's block 1 on scalars: z = Σ xᵢ·wᵢ with x = [2, 3], w = [4, 5]."""
    x = [mg.Value(2.0, requires_grad=True, label="x[0]"), mg.Value(3.0, requires_grad=True, label="x[1]")]
    w = [mg.Value(4.0, requires_grad=True, label="w[0]"), mg.Value(5.0, requires_grad=True, label="w[1]")]
    z = mg.sum(a * b for a, b in zip(x, w))
    return {"x": x, "w": w, "z": z}
