"""MUTANT (teacher/mutants/, never handed out): sum_to computes in NumPy and wraps the result in a
new Tensor: the numbers are right, but the result is cut from the graph, so a double backward
through broadcasting loses it.

U3.1 — sum_to: broadcasting's backward, your engine's first Tensor hole.

When an input of shape (3,) is added to a (2, 4, 3) Tensor, broadcasting copies it along the two
leading axes; an input of shape (2, 1, 3) is copied along its axis of size 1.  Each copy's
gradient flows back, and the input's gradient is the SUM of its copies' gradients: ``grad``,
of the broadcast shape, summed down to the input's ``shape``.  Every broadcasting op of the
Tensor engine (``+``, ``*``, ``-``, ``/``, ``expand``…) calls ``sum_to`` in its backward.

Check: ``micrograd2 exercise check U3.1``: your ``sum_to`` on random shapes (leading axes, axes
of size 1, both, a scalar), then gradcheck on Tensor ops with it in place of the engine's.
Your engine takes it from this file (``engine/u3_tensors.py``): ``--engine`` runs on it.
Hints: ``micrograd2 exercise hint U3.1``.
"""
from __future__ import annotations

from typing import Any


def sum_to(grad: Any, shape: tuple[int, ...]) -> Any:
    """``grad`` (a Tensor) summed down to ``shape``, the shape before broadcasting: sum away the
    leading axes ``grad`` has more than ``shape``; then sum, keeping the axis (``keepdim=True``),
    each axis where ``shape`` has 1 and ``grad`` does not.  Return a Tensor of ``shape``."""
    # BEGIN SOLUTION
    import numpy as np

    import micrograd2 as mg

    g = np.asarray(grad.detach().numpy())  # MUTANT: NumPy numbers, outside the graph
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return mg.tensor(g.sum(axis=ones, keepdims=True) if ones else g, dtype=grad.dtype)
    # END SOLUTION
