"""MUTANT (teacher/mutants/, never handed out) of U2's pieces, laid over a workspace's engine/:
``accumulate`` adds with ``+=``, which is a new float for a number but an in-place add for a
Tensor, so the old ``.grad`` object (which a hook or another name may hold) changes too."""
from __future__ import annotations

import heapq
from typing import Any, Callable

from micrograd2.autograd import AccumulateGrad


def accumulate(variable: Any, grad: Any) -> Any:
    """The old ``.grad`` plus ``grad`` (``grad`` the first time)."""
    total = variable.grad
    if total is None:
        return grad
    total += grad  # MUTANT: in place on a Tensor, so the old .grad object changes too
    return total


def count_dependencies(roots: list[Any]) -> dict[Any, int]:
    """Edges into each node reachable from ``roots``, by an explicit stack."""
    deps = {root: 0 for root in roots}
    stack = list(deps)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is None:
                continue
            if nxt not in deps:
                deps[nxt] = 0
                stack.append(nxt)
            deps[nxt] += 1
    return deps


def walk(roots: list[Any], grads: list[Any], visit: Callable[[Any, Any], tuple[Any, ...]]) -> None:
    """Visit the ready node created last, until none is left; a leaf as soon as it is ready."""
    deps = count_dependencies(roots)
    buffer: dict[Any, Any] = {}
    for root, grad in zip(roots, grads):
        buffer[root] = grad if root not in buffer else buffer[root] + grad
    ready = [(-node.sequence_nr(), id(node), node) for node, n in deps.items() if n == 0]
    heapq.heapify(ready)
    while ready:
        node = heapq.heappop(ready)[2]
        grads_in = visit(node, buffer.pop(node, None))
        for (nxt, _), grad in zip(node.next_functions, grads_in):
            if nxt is None:
                continue
            if grad is not None:
                buffer[nxt] = grad if nxt not in buffer else buffer[nxt] + grad
            deps[nxt] -= 1
            if deps[nxt] == 0 and isinstance(nxt, AccumulateGrad):  # a leaf: written at once
                visit(nxt, buffer.pop(nxt, None))
            elif deps[nxt] == 0:
                heapq.heappush(ready, (-nxt.sequence_nr(), id(nxt), nxt))
