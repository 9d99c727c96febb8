"""Exercise U2.3 — Walk: your engine runs the backward pass (lessons 2-4, on your engine).

This exercise's code is not in this file: it is the holes ``count_dependencies``, ``walk`` and
``accumulate`` in ``engine/u2_walk.py`` (the engine folder ``micrograd2 exercise start`` wrote
next to this file). ``backward()`` and ``mg.autograd.grad`` walk the graph with your ``walk``;
each node is still run by the core's ``visit`` (its backward, hooks, the tracer's events), and
a leaf's gradient from each pass (the sum of what its edges delivered) goes through your
``accumulate``, once per pass.

Your task, in ``engine/u2_walk.py``:

* ``count_dependencies(roots)``: for every node reachable from ``roots``, how many edges lead
  into it — with an explicit stack, not recursion (a chain of 10^5 nodes must work);
* ``walk(roots, grads, visit)``: visit each node once, only when every edge into it has
  delivered, the ready node created last (largest ``sequence_nr()``) first, with the sum of what
  was delivered to it; deliver what ``visit`` returns along the node's edges;
* ``accumulate(variable, grad)``: the new ``.grad`` — ``grad`` the first time, then the old
  ``.grad`` plus ``grad``: add, never assign (a second pass adds to what the first left).

The tests call each hole directly on small graphs, then run lessons 2, 3 and 4 on your engine:
their checks against PyTorch must pass, and no hole may differ from the reference.

Check: ``micrograd2 exercise check U2.3`` (or ``pytest -m u2_3``).
Hints: ``micrograd2 exercise hint U2.3``.
"""
from __future__ import annotations

from pathlib import Path


def engine_folder() -> Path:
    """The engine the tests grade: ``engine/`` next to this file (nothing to write here)."""
    folder = Path(__file__).resolve().parent / "engine"
    if folder.is_dir():
        return folder
    raise NotImplementedError("Exercise U2.3: no engine/ next to this file (`micrograd2 exercise start --force DIR`)")
