"""``micrograd2/course/walk.py``: a student's ``walk(roots, grads, visit)`` as the core's walk
piece, nodes of several outputs included (NOTE [A student's walk and nodes of several outputs])."""
from __future__ import annotations

import dataclasses
import heapq
from typing import Any, Callable

import micrograd2 as mg
from micrograd2.autograd import AccumulateGrad, pieces
from micrograd2.course.engine import as_walk
from micrograd2.course.walk import OutputGradients
from micrograd2.tensors import pieces as tensor_pieces


def heap_walk(roots: list[Any], grads: list[Any], visit: Callable[..., Any]) -> None:
    """A correct student walk: the ready node created last first, a leaf at once."""
    deps: dict[Any, int] = {root: 0 for root in roots}
    stack = list(deps)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                if nxt not in deps:
                    deps[nxt] = 0
                    stack.append(nxt)
                deps[nxt] += 1
    buffer = dict(zip(roots, grads))
    ready = [(-n.sequence_nr(), id(n), n) for n, k in deps.items() if k == 0]
    while ready:
        node = heapq.heappop(ready)[2]
        for (nxt, _), grad in zip(node.next_functions, visit(node, buffer.pop(node, None))):
            if nxt is None:
                continue
            if grad is not None:
                buffer[nxt] = grad if nxt not in buffer else buffer[nxt] + grad
            deps[nxt] -= 1
            if deps[nxt] == 0 and isinstance(nxt, AccumulateGrad):
                visit(nxt, buffer.pop(nxt, None))
            elif deps[nxt] == 0:
                heapq.heappush(ready, (-nxt.sequence_nr(), id(nxt), nxt))


def test_output_gradients_add_slot_by_slot() -> None:
    a, b = OutputGradients((1.0, None)), OutputGradients((None, 2.0))
    assert a + b == (1.0, 2.0) and (a + a)[0] == 2.0


def test_a_student_walk_gives_the_cores_gradients_through_several_outputs() -> None:
    record = dataclasses.replace(tensor_pieces.REFERENCE, walk=as_walk(heap_walk))
    t = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pieces.using(mg.Tensor, record):
        first, second, third = t.unbind(0)  # a node of three outputs
        (first * second + third * third + first).backward()
    assert t.grad.tolist() == [3.0, 1.0, 6.0]
