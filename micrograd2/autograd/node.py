"""The graph's node classes under the names other modules import them by (they live in ``engine.py``).

``Node`` (what every ``grad_fn`` is), ``AccumulateGrad`` (the node of a leaf), ``gradient_edge``,
``accumulate_into``, ``FREED`` and ``VersionCounter`` (``variable.py``): one place to import them from
for the tracer, the diagrams and the engines.
"""
from __future__ import annotations

from .engine import FREED, AccumulateGrad, Node, _creation_order, accumulate_into, gradient_edge
from .hooks import HOOKS, RemovableHandle
from .variable import VersionCounter

__all__ = ["FREED", "HOOKS", "AccumulateGrad", "Node", "RemovableHandle", "VersionCounter", "_creation_order",
           "accumulate_into", "gradient_edge"]
