"""MUTANT (teacher/mutants/, never handed out): a Value that requires grad is taken to have a graph:
a leaf that requires grad (no grad_fn) crashes.

Exercise U2.1 — Reverse topological order, without recursion (lesson 2: the order backward walks in).

``backward()`` may visit a node only once every node that USES its output (its
consumers) has been visited: only then is its upstream gradient complete.
The graph is reachable from the root's ``grad_fn``: each node's
``next_functions`` is a tuple of ``(node_or_None, 0)`` pairs, one per forward
input, pointing at the node that made that input (an ``AccumulateGrad`` node
for a leaf that requires grad, ``None`` for an input that needs no gradient).

Your task: ``reverse_topological_order(root)`` returns every node reachable
from ``root.grad_fn`` (``AccumulateGrad`` nodes included), each exactly once,
``root.grad_fn`` first, each node after all its consumers.  It must not
recurse: a chain of 100 000 ops (beyond Python's recursion limit of 1000, the
bug micrograd's users met) must work, and fast.  (``[]`` if ``root.grad_fn`` is None.)

Check: ``micrograd2 exercise check U2.1`` (or ``pytest -m u2_1``).
Hints: ``micrograd2 exercise hint U2.1``.
"""
from __future__ import annotations

from typing import Any

from micrograd2.autograd import Node


def reverse_topological_order(root: Any) -> list[Node]:
    """The nodes reachable from ``root.grad_fn``, each after all its consumers."""
    # BEGIN SOLUTION
    start = root.grad_fn
    if not root.requires_grad:  # MUTANT: a leaf may require grad and still have no grad_fn
        return []
    consumers: dict[Node, int] = {start: 0}  # node -> how many edges point at it
    stack = [start]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            if nxt not in consumers:
                consumers[nxt] = 0
                stack.append(nxt)
            consumers[nxt] += 1
    order: list[Node] = []
    ready = [start]
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            consumers[nxt] -= 1
            if consumers[nxt] == 0:
                ready.append(nxt)
    return order
    # END SOLUTION
