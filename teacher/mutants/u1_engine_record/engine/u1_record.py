"""MUTANT (teacher/mutants/, never handed out) of U1's piece ``record``, laid over a workspace's
engine/: whether a non-leaf input requires grad is worked out again from its history, by a
recursive search for a leaf below it, instead of read from ``x.requires_grad``; an input at the
end of a long chain overflows Python's recursion limit."""
from __future__ import annotations

from typing import Any

import micrograd2 as mg
from micrograd2.autograd import AccumulateGrad, Variable, gradient_edge


def reaches_a_leaf(node: Any) -> bool:
    """MUTANT: a recursive walk of the input's whole history, at every op."""
    if node is None:
        return False
    if isinstance(node, AccumulateGrad):
        return True
    return any(reaches_a_leaf(nxt) for nxt, _ in node.next_functions)


def record(fn: Any, inputs: tuple[Any, ...], output: Any, ctx: Any) -> tuple[Any, ...] | None:
    """None unless grad mode is on and an input requires grad; else one edge per input."""
    needing = [isinstance(x, Variable) and (reaches_a_leaf(x.grad_fn) if x.grad_fn is not None
                                            else x.requires_grad) for x in inputs]
    if not mg.is_grad_enabled() or not any(needing):
        return None
    return tuple(gradient_edge(x) if need else (None, 0) for x, need in zip(inputs, needing))
