"""The backward walk when nothing watches it: the reference walk's order and results, with fewer steps.

``micrograd2.autograd.engine.Walk`` is the algorithm as it reads; this is the same
algorithm for a pass with no hooks, tracer, anomaly mode or ``autograd.grad``
captures (``run_backward`` decides, and only then uses an engine's
``_unwatched_walk``).  A graph with a custom Function's node in it (custom.py's
rules for outputs) goes to the reference walk, found before anything runs.
What it leaves out is only what nobody watches:

* no visit function per node, and no events;
* one dictionary look-up per edge: a node's entry is its dependency count until
  the first edge delivers, then ``[edges still to deliver, gradient so far]``
  (a node that one edge reaches never needs the second form: nothing to add up);
* a node that becomes ready while no other is waiting is visited next without a
  trip through the heap (a chain's case: the heap would give it next anyway).

Gradients are added with ``+`` (the scalar engine's ``_add_gradients``), rounded
with the engine's ``_round_gradient``.
"""
from __future__ import annotations

import heapq
from typing import Any

from ..autograd import custom
from ..autograd.engine import FREED, AccumulateGrad, Node, accumulate_into, checked, reference_walk
from ..dtypes import FLOAT64


def dependencies(roots: list[Node]) -> dict[Node, int]:
    """The core's ``count_dependencies(roots)`` (how many edges lead into each node), one look-up per edge."""
    deps = dict.fromkeys(roots, 0)
    stack = list(deps)
    get = deps.get
    while stack:
        for nxt in stack.pop()._next:
            if nxt is not None:
                count = get(nxt)
                if count is None:
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = count + 1
    return deps


def custom_inside(roots: list[Any]) -> bool:
    """Whether a node of custom.py's rules (a custom Function's, or a built-in's of several differentiable
    outputs) is reachable from ``roots``; an edge ``(node, k)`` is output k >= 1 of one."""
    seen, stack = set(roots), list(roots)
    while stack:
        node = stack.pop()
        if type(node) is tuple or node._custom:
            return True
        for nxt in node._next:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def pending(starts: list[tuple[Node, Any]], round_gradient: Any) -> tuple[dict[Node, Any], list[Any]]:
    """For each node reachable from the roots, how many edges lead into it, or, for a root, ``[that count,
    its seed]`` (each seed rounded to the node's dtype, added up per node); and the heap of ready roots."""
    entries: dict[Node, Any] = dependencies([node for node, _ in starts])
    seeds: dict[Node, Any] = {}
    for node, g in starts:
        if node._dtype != FLOAT64:
            g = round_gradient(g, node._dtype)
        if node in seeds:
            g = seeds[node] + g
            if node._dtype != FLOAT64:
                g = round_gradient(g, node._dtype)
        seeds[node] = g
    for node, g in seeds.items():
        entries[node] = [entries[node], g]
    ready = [(-node._seq, node) for node in seeds if entries[node][0] == 0]  # (roots no edge reaches)
    heapq.heapify(ready)
    return entries, ready


def first_ready(entries: dict[Node, Any], ready: list[Any]) -> tuple[Any, Any]:
    """The first node to visit, popped from the heap of ready roots, and its gradient; ``(None, None)`` if none."""
    if not ready:
        return None, None
    node = heapq.heappop(ready)[1]
    return node, entries[node][1]


def into_leaf(node: AccumulateGrad, grad: Any) -> None:
    """Add ``grad`` into the ``.grad`` of ``node``'s leaf (not a gradient of None, nor into a leaf that is gone)."""
    if grad is not None and node.variable is not None:
        accumulate_into(node.variable, grad, node)


def walk(engine: Any, starts: list[tuple[Node, Any]], retain_graph: bool, captures: Any,
         pass_no: int) -> dict[Node, Any]:
    """Run one unwatched backward pass (``captures`` is always None here); the reference walk runs a graph
    that holds a custom Function's node."""
    if custom.LIVE and custom_inside([node for node, _ in starts]):  # (none alive: no graph holds one)
        return reference_walk(engine, starts, retain_graph, captures, pass_no)
    return run(engine, starts, retain_graph)


def run(engine: Any, starts: list[tuple[Node, Any]], retain_graph: bool) -> dict[Node, Any]:
    """The pass itself: visit each node once its every edge has delivered, the one created last first."""
    round_gradient = engine._round_gradient
    entries, ready = pending(starts, round_gradient)
    pop, push = heapq.heappop, heapq.heappush
    node, grad = first_ready(entries, ready)
    while node is not None:
        edges = node._next
        if type(node) is AccumulateGrad:  # a root that is a leaf
            into_leaf(node, grad)
            grads = edges  # (): an AccumulateGrad has no edges, nothing to pass on
        elif grad is None:
            grads = (None,) * len(edges)
        else:
            grads = node._fn.backward(node, grad)
            grads = grads if type(grads) is tuple else (grads,)
            if len(grads) != len(edges):
                checked(node, grads)  # raises the core's error
        if not retain_graph and node._saved:
            node._saved = FREED
        only = only_grad = None  # the one node made ready by this visit, while the heap is empty
        for nxt, g in zip(edges, grads):
            if nxt is None:
                continue
            if g is not None and nxt._dtype != FLOAT64:
                g = round_gradient(g, nxt._dtype)
            entry = entries[nxt]
            if type(entry) is int:  # the first edge to deliver into nxt
                if entry != 1:  # (others will follow: keep the gradient until they have)
                    entries[nxt] = [entry - 1, g]
                    continue
            else:  # add this gradient to the earlier ones
                if g is None:
                    g = entry[1]
                elif entry[1] is not None:
                    g = entry[1] + g
                    if nxt._dtype != FLOAT64:
                        g = round_gradient(g, nxt._dtype)
                entry[0] -= 1
                if entry[0]:
                    entry[1] = g
                    continue
            if type(nxt) is AccumulateGrad:
                into_leaf(nxt, g)
            elif only is None and not ready:
                only, only_grad = nxt, g
            else:  # onto the heap, and the node held back as ``only`` too
                if only is not None:
                    entries[only] = [0, only_grad]
                    push(ready, (-only._seq, only))
                    only = None
                entries[nxt] = [0, g]
                push(ready, (-nxt._seq, nxt))
        if only is None and ready:
            only = pop(ready)[1]
            only_grad, entries[only][1] = entries[only][1], None
        node, grad = only, only_grad
    return {}
