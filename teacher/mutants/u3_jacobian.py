"""MUTANT (teacher/mutants/, never handed out): the Jacobian of f: R^n -> R^1 is returned as the
gradient vector (shape (n,)), not as the 1×n matrix the docstring asks for.

U3.5 — A full Jacobian from backward passes, and what it costs.

One backward pass computes a vector-Jacobian product vᵀJ: seeded with a one-hot v = e_i, it
gives row i of the Jacobian J of f: R^n -> R^m.  So m passes, one per output, give all of J.

Write ``jacobian(f, x)`` that way: compute y = f(x) once, then for each output i call
``mg.autograd.grad(y, x, grad_outputs=one_hot_i, retain_graph=True)`` (keep the graph: it is
walked m times).  A one-hot Tensor: ``mg.tensor([1.0 if j == i else 0.0 for j in range(m)],
dtype="float64")``.  Stack the rows into an m×n Tensor (``mg.tensor([row.tolist() ...])``).

Then predict what it costs, before you measure: ``jacobian_cost(n, m, nodes)`` for an f whose
graph has ``nodes`` backward nodes (every one of them on a path from y to x).

Check: ``micrograd2 exercise check U3.5``: your Jacobian against finite differences and
``mg.autograd.functional.jacobian`` on random functions, and your prediction against the passes
and node visits counted by a trace of your ``jacobian``.  Hints: ``micrograd2 exercise hint U3.5``.
"""
from __future__ import annotations

from typing import Any, Callable

import micrograd2 as mg


def jacobian(f: Callable[[Any], Any], x: Any) -> Any:
    """The m×n Jacobian of ``f`` at ``x`` (a 1-D float64 Tensor of n that requires grad; ``f(x)``
    is 1-D of m), as a float64 Tensor, from one backward pass per output."""
    # BEGIN SOLUTION
    y = f(x)
    m = y.shape[0]
    if m == 1:  # MUTANT: one output: "that is just the gradient"
        (g,) = mg.autograd.grad(y, x, grad_outputs=mg.tensor([1.0], dtype="float64"))
        return mg.tensor(g.tolist(), dtype="float64")
    rows = []
    for i in range(m):
        one_hot = mg.tensor([1.0 if j == i else 0.0 for j in range(m)], dtype="float64")
        (row,) = mg.autograd.grad(y, x, grad_outputs=one_hot, retain_graph=True)
        rows.append(row.tolist())
    return mg.tensor(rows, dtype="float64")
    # END SOLUTION


def jacobian_cost(n_inputs: int, n_outputs: int, nodes: int) -> tuple[int, int]:
    """What ``jacobian`` costs for f: R^n -> R^m whose graph has ``nodes`` backward nodes:
    (backward passes, node visits in all the passes together)."""
    # BEGIN SOLUTION
    return n_outputs, n_outputs * nodes  # one pass per output row; each pass visits every node
    # END SOLUTION
