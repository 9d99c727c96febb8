"""The backward walk when nothing watches it: the reference walk's order and results, in fewer
steps.

``micrograd2.autograd.engine.Walk`` is the algorithm as it reads; this is the same
algorithm for a pass with no hooks, tracer, anomaly mode or ``autograd.grad``
captures (``run_backward`` decides, and only then uses the ``unwatched_walk``
of an engine's record of pieces, ``autograd/pieces.py``).  A graph with a custom Function's node in it (custom.py's
rules for outputs) goes to the reference walk, found while counting dependencies,
before anything runs.  What it leaves out is only what nobody watches:

* no visit function per node, and no events;
* one dictionary look-up per edge: a node's entry is its dependency count until
  the first edge delivers, then ``[edges still to deliver, gradient so far]``
  (a node that one edge reaches never needs the second form: nothing to add up);
* a node that becomes ready while no other is waiting is visited next without a
  trip through the heap (a chain's case: the heap would give it next anyway).

Gradients are added with ``+`` (the scalar engine's ``_add_gradients``), rounded
with the engine's ``_round_gradient``.

NOTE [Speed]: rounding to float64 is no rounding (the engine's ``_round_gradient``
returns the gradient itself), so this walk skips the call for float64 nodes; and it
calls a node's Function (``node._fn.backward(node, grad)``) where the reference walk
calls the node (``node(grad)``), one Python call fewer per node. Its entry for a node,
``[edges still to deliver, gradient so far]``, is the compact form of the reference walk's
``InputBuffer`` (input_buffer.py): one gradient, as a node of several outputs never comes here.
"""
from __future__ import annotations

import heapq
from typing import Any, Callable

from ..autograd.engine import (
    AccumulateGrad,
    Captured,
    Engine,
    Gradient,
    Node,
    Start,
    accumulate_into,
    checked,
    reference_walk,
)
from ..autograd.saved import FREED_VALUES
from ..dtypes import FLOAT64

Round = Callable[[Gradient, str], Gradient]  # the engine's _round_gradient


def dependencies(roots: list[Node]) -> dict[Node, int] | None:
    """The core's ``count_dependencies(roots)`` (how many edges lead into each node), one look-up
    per edge; ``None`` if a node of custom.py's rules (a custom Function's, or a built-in's of
    several differentiable outputs) is among them: the reference walk runs that graph."""
    deps = dict.fromkeys(roots, 0)
    stack = list(deps)
    get = deps.get
    while stack:
        node = stack.pop()
        if node._per_output:
            return None
        for nxt in node._next_nodes:
            if nxt is not None:
                count = get(nxt)
                if count is None:
                    deps[nxt] = 1
                    stack.append(nxt)
                else:
                    deps[nxt] = count + 1
    return deps


def pending(entries: dict[Node, Any], starts: list[Start],
            round_gradient: Round) -> list[tuple[int, Node]]:
    """Make each root's entry in ``entries`` (its dependency count) ``[that count, its seed]``
    (each seed rounded to the node's dtype, added up per node); return the heap of ready roots."""
    seeds: dict[Node, Any] = {}  # the engine's gradients: added with its +
    for node, _, g in starts:
        if node._dtype != FLOAT64:
            g = round_gradient(g, node._dtype)
        if node in seeds:
            g = seeds[node] + g
            if node._dtype != FLOAT64:
                g = round_gradient(g, node._dtype)
        seeds[node] = g
    for node, g in seeds.items():
        entries[node] = [entries[node], g]
    ready = [(-node._sequence_nr, node) for node in seeds if entries[node][0] == 0]  # (no edge in)
    heapq.heapify(ready)
    return ready


def first_ready(entries: dict[Node, Any], ready: list[tuple[int, Node]],
                ) -> tuple[Any, Gradient | None]:
    """The first node to visit, popped from the heap of ready roots, and its gradient.

    ``(None, None)`` if there is none."""
    if not ready:
        return None, None
    node = heapq.heappop(ready)[1]
    return node, entries[node][1]


def into_leaf(node: AccumulateGrad, grad: Gradient | None) -> None:
    """Add ``grad`` into the ``.grad`` of ``node``'s leaf.

    A gradient of None is not added, nor is one into a leaf that is gone."""
    if grad is not None and node.variable is not None:
        accumulate_into(node.variable, grad, node)


def walk(engine: type[Engine], starts: list[Start], retain_graph: bool, captures: None,
         pass_no: int) -> Captured:
    """Run one unwatched backward pass (``captures`` is always None here); the reference walk runs
    a graph that holds a custom Function's node."""
    entries = dependencies([node for node, _, _ in starts])
    if entries is None:
        return reference_walk(engine, starts, retain_graph, captures, pass_no)
    return run(engine, entries, starts, retain_graph)


def run(engine: type[Engine], entries: dict[Node, Any], starts: list[Start],
        retain_graph: bool) -> Captured:
    """The pass itself: visit each node once its every edge has delivered, the one created last
    first."""
    round_gradient = engine._round_gradient
    ready = pending(entries, starts, round_gradient)
    pop, push = heapq.heappop, heapq.heappush
    node, grad = first_ready(entries, ready)
    while node is not None:
        edges = node._next_nodes
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
            node._saved = FREED_VALUES
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
                    push(ready, (-only._sequence_nr, only))
                    only = None
                entries[nxt] = [0, g]
                push(ready, (-nxt._sequence_nr, nxt))
        if only is None and ready:
            only = pop(ready)[1]
            only_grad, entries[only][1] = entries[only][1], None
        node, grad = only, only_grad
    return {}
