"""The backward walk when nothing watches it: the reference walk's order and results, with fewer steps.

``micrograd2.autograd.engine.Walk`` is the algorithm as it reads; this is the same
algorithm for a pass with no hooks, tracer, anomaly mode or ``autograd.grad``
captures (``run_backward`` decides, and only then uses an engine's
``_unwatched_walk``).  What it leaves out is only what nobody watches: no visit
function per node, no events, and a node that becomes ready while no other is
waiting is visited next without a trip through the heap (a chain's case: the
heap would give it next anyway).  Gradients are added with ``+`` (the scalar
engine's ``_add_gradients``), rounded with the engine's ``_round_gradient``.
"""
from __future__ import annotations

import heapq
from typing import Any

from ..autograd.engine import accumulate_into, checked, count_dependencies
from ..autograd.node import FREED, AccumulateGrad, Node
from ..dtypes import FLOAT64


def walk(engine: Any, starts: list[tuple[Node, Any]], retain_graph: bool, captures: Any,
         pass_no: int) -> dict[Node, Any]:
    """Run one unwatched backward pass (``captures`` is always None here)."""
    round_gradient = engine._round_gradient
    deps = count_dependencies([node for node, _ in starts])
    buffer: dict[Node, Any] = {}
    node: Any
    grads: tuple[Any, ...]
    for node, g in starts:
        if node._dtype != FLOAT64:
            g = round_gradient(g, node._dtype)
        if node in buffer:
            g = buffer[node] + g
            if node._dtype != FLOAT64:
                g = round_gradient(g, node._dtype)
        buffer[node] = g
    ready = [(-node._seq, node) for node in buffer if deps[node] == 0]
    heapq.heapify(ready)
    pop, push = heapq.heappop, heapq.heappush
    node = pop(ready)[1] if ready else None
    grad = buffer.pop(node, None)
    while node is not None:
        edges = node._next
        if type(node) is AccumulateGrad:  # a root that is a leaf
            if grad is not None and node.variable is not None:
                accumulate_into(node.variable, grad, node)
            edges = grads = ()
        elif grad is None:
            grads = (None,) * len(edges)
        else:
            grads = node._fn.backward(node, grad)
            if type(grads) is not tuple or len(grads) != len(edges):
                grads = checked(node, grads)
        if not retain_graph and node._saved:
            node._saved = FREED
        only = only_grad = None
        for nxt, g in zip(edges, grads):
            if nxt is None:
                continue
            if g is not None and nxt._dtype != FLOAT64:
                g = round_gradient(g, nxt._dtype)
            if buffer and nxt in buffer:
                earlier = buffer.pop(nxt)
                if g is None:
                    g = earlier
                else:
                    g = earlier + g
                    if nxt._dtype != FLOAT64:
                        g = round_gradient(g, nxt._dtype)
            left = deps[nxt] - 1
            if left:
                deps[nxt] = left
                if g is not None:
                    buffer[nxt] = g
            elif type(nxt) is AccumulateGrad:
                if g is not None and nxt.variable is not None:
                    accumulate_into(nxt.variable, g, nxt)
            elif only is None and not ready:
                only, only_grad = nxt, g
            else:
                if only is not None:
                    if only_grad is not None:
                        buffer[only] = only_grad
                    push(ready, (-only._seq, only))
                    only = None
                if g is not None:
                    buffer[nxt] = g
                push(ready, (-nxt._seq, nxt))
        if only is not None:
            node, grad = only, only_grad
        elif ready:
            node = pop(ready)[1]
            grad = buffer.pop(node, None)
        else:
            node = None
    return {}
