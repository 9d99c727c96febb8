"""The speed layer: what exists only for speed, apart from the reference core that students read.

* ``recording.py``: ``Function.apply`` for one or two inputs, or many Values, in one Python
  call: the hot operators of both engines;
* ``scalar.py``: which of ``Value``'s methods take them, and ``mg.dot`` over whole tuples;
* ``walk.py``: the backward walk used when nothing watches it (no hooks, tracer,
  anomaly mode, custom Function or ``autograd.grad`` captures): one look-up per
  edge, and the chain's shortcut past the heap.

Every fast path builds exactly what the reference path builds, with the core's own
constructors: the node class's ``__init__`` (edges) and ``_record`` (creation number,
dtype, output, and the saved values the op's ``keeps`` declare).  The same node class,
``next_functions``, saved values, dtype, events and errors; forward and backward
formulas live only in the Functions.  The reference core never imports this package;
an engine chooses it once, at import, when ``ENABLED``.  ``MICROGRAD2_REFERENCE=1`` in
the environment turns it off, so that a debugger steps through the reference path;
``tests/test_fast.py`` proves that both paths give one result.

NOTE [Speed, forward]: what a recorded op costs, in instructions a link of a chain
(``benchmarks/bench_callgrind.py``; ``benchmarks/callgrind.md`` keeps the table): about
21k for ``y * 1.0001 + 0.001`` against 13k at ``c7b66b8``, whose speed layer built nodes
itself and did each forward's arithmetic inline.  What the difference pays for, each a
rule of the core's data: the Function's ``forward`` called (about 1k), every slot of the
new Variable set in ``_set_slots`` (about 1k), the node's edges before forward and its
record after (two calls, about 3k), and a ``SavedValues`` record with its freed state
(about 1k over a tuple).  An op that keeps its output makes a ``SavedOutput`` and its
output's ``VersionCounter`` (about 4k: relu, exp); one that keeps an input Variable, a
``SavedInput`` (about 1.7k each: 16 per neuron of 16 inputs).
"""
from __future__ import annotations

import os

ENABLED = os.environ.get("MICROGRAD2_REFERENCE", "") in ("", "0")  # read once, at import

__all__ = ["ENABLED"]
