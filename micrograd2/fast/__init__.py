"""The speed layer: what exists only for speed, apart from the reference core that students read.

* ``recording.py``: ``Function.apply`` for one or two inputs in one Python call
  (``Tensor``'s hot operators, and ``Value``'s functions of one input);
* ``scalar.py``: ``Value``'s ``+ - * /`` with their Functions' forwards inline, and
  ``mg.dot`` over whole tuples at once;
* ``walk.py``: the backward walk used when nothing watches it (no hooks, tracer,
  anomaly mode, custom Function or ``autograd.grad`` captures): one look-up per
  edge, and the chain's shortcut past the heap.

Every fast path builds exactly what the reference path builds — the same node
class, ``next_functions``, saved values (through the core's own encoder; a Dot
that keeps every w and x encodes them inline), dtype,
events and errors — and backward formulas live only in the Functions (a fused
forward repeats only its Function's arithmetic and what it saves).  The
reference core never imports this package; an engine chooses it once, at import,
when ``ENABLED``.  ``MICROGRAD2_REFERENCE=1`` in the environment turns it off, so
that a debugger steps through the reference path; ``tests/test_fast.py`` proves
that both paths give one result.
"""
from __future__ import annotations

import os

ENABLED = os.environ.get("MICROGRAD2_REFERENCE", "") in ("", "0")  # read once, at import

__all__ = ["ENABLED"]
