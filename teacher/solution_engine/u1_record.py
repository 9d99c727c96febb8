"""A reference solution of U1's hole (docs/course.md): the tests run micrograd2 on it."""
from __future__ import annotations

from typing import Any

import micrograd2 as mg
from micrograd2.autograd import Variable, gradient_edge


def record(fn: Any, inputs: tuple[Any, ...], output: Any, ctx: Any) -> tuple[Any, ...] | None:
    """None unless grad mode is on and an input requires grad; else one edge per input."""
    needing = [isinstance(x, Variable) and x.requires_grad for x in inputs]
    if not mg.is_grad_enabled() or not any(needing):
        return None
    return tuple(gradient_edge(x) if need else (None, 0) for x, need in zip(inputs, needing))
