"""The speed layer: what exists only for speed, apart from the reference core that students read.

* ``recording.py``: ``Function.apply`` for one or two inputs in one Python call
  (what ``Value``'s and ``Tensor``'s hot operators use); ``scalar.py``: the scalar
  engine's choice of them, and ``mg.dot`` in one pass;
* ``walk.py``: the backward walk used when nothing watches it (no hooks, tracer,
  anomaly mode or ``autograd.grad`` captures), with the chain's shortcut past the heap.

Every fast path builds exactly what the reference path builds — the same node
class, ``next_functions``, saved values (through the core's own encoder), dtype,
events and errors — and backward formulas live only in the Functions.  The
reference core never imports this package; an engine chooses it once, at import,
when ``ENABLED``.  ``MICROGRAD2_REFERENCE=1`` in the environment turns it off, so
that a debugger steps through the reference path; ``tests/test_fast.py`` proves
that both paths give one result.
"""
from __future__ import annotations

import os

ENABLED = os.environ.get("MICROGRAD2_REFERENCE", "") in ("", "0")  # read once, at import

__all__ = ["ENABLED"]
