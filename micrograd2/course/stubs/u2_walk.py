"""U2, walk: the holes ``accumulate``, ``count_dependencies`` and ``walk`` (docs/course.md).

``micrograd2 lesson run 2 --engine .`` (from this folder) runs lesson 2 with them in place of
the core's. The core still runs each node (``visit``): hooks, the tracer's events, anomaly checks
and freeing saved values stay its own, and the tracer narrates your order.
"""
from __future__ import annotations

from typing import Any, Callable


def accumulate(variable: Any, grad: Any) -> Any:
    """What ``variable.grad`` holds once ``grad`` is accumulated into it; return it.

    The first time (``variable.grad is None``) that is ``grad``; after that, the old ``.grad``
    plus ``grad``. Add, never assign: it is called once per backward pass, with the sum of what
    the pass delivered to the leaf (a leaf used three times gets one call, with the sum of three
    gradients), and a second pass must add to what the first left.
    """
    raise NotImplementedError("not implemented yet: accumulate (U2)")


def count_dependencies(roots: list[Any]) -> dict[Any, int]:
    """For every node reachable from ``roots``: how many edges lead into it.

    A node's edges are ``node.next_functions``, pairs ``(next_node, input_nr)``; skip those whose
    node is ``None``. The roots are in the result too (0 if no edge leads into them). No
    recursion: a graph of a million nodes must work.
    """
    raise NotImplementedError("not implemented yet: count_dependencies (U2)")


def walk(roots: list[Any], grads: list[Any],
         visit: Callable[[Any, Any], tuple[Any, ...]]) -> None:
    """One backward pass from the nodes ``roots``, seeded with ``grads`` (one per root).

    Visit every node once, only when every edge into it has delivered its gradient
    (``count_dependencies``), and among the ready nodes the one created last first (the largest
    ``node.sequence_nr()``, as PyTorch; ``heapq`` helps). ``visit(node, grad)`` runs the node on
    its total gradient (the sum of what its edges delivered; ``None`` if none did) and returns one
    gradient per edge of ``node.next_functions``: deliver each that is not ``None`` along its
    edge. A leaf's node (``AccumulateGrad``) is visited too, as soon as its last edge has
    delivered (before the other ready nodes, as PyTorch does); it returns ``()``.
    """
    raise NotImplementedError("not implemented yet: walk (U2)")
