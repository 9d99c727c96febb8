"""Hidden tests of exercise U2.1, the reverse topological order: a leaf as the root, a ladder of
diamonds deep enough to need no recursion and no revisits, an input summed three times, never
shown.  ``micrograd2 exercise check WORKSPACE --tests teacher/hidden U2.1`` grades with them.
"""
from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, consumers, expect, load_student

pytestmark = [pytest.mark.u2, pytest.mark.u2_1]

RUNGS = 20_000


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex03_topo_order", __file__)


def valid(order: Any, root: Any) -> str | None:
    """What is wrong with ``order`` for ``root``'s graph, in a few words (None: nothing)."""
    reachable = consumers(root.grad_fn)
    if not isinstance(order, list) or len(order) != len(reachable) or set(order) != set(reachable):
        return (f"it holds {len(order) if isinstance(order, list) else order!r} entries for the "
                f"graph's {len(reachable)} nodes: each node exactly once")
    position = {node: i for i, node in enumerate(order)}
    for node in order:
        for nxt, _ in node.next_functions:
            if nxt is not None and position[nxt] < position[node]:
                return f"{nxt.name()} comes before its consumer {node.name()}"
    return None


def test_a_leaf_that_requires_grad_has_no_graph(student: ModuleType) -> None:
    leaf = mg.Value(2.0, requires_grad=True)
    try:
        order = student.reverse_topological_order(leaf)
    except AttributeError as error:
        raise Mistake(f"reverse_topological_order(a leaf that requires grad) raised "
                      f"AttributeError ({error}): a leaf has no grad_fn, whether or not it "
                      "requires grad, so there is no node to order: return []") from None
    expect(order == [], f"a leaf that requires grad has no grad_fn: its order is [], got {order!r}")


def test_an_input_summed_three_times(student: ModuleType) -> None:
    x = mg.Value(1.5, requires_grad=True)
    h = x * 2.0
    root = mg.sum([h, h, h]) * h
    problem = valid(student.reverse_topological_order(root), root)
    expect(problem is None, f"z = (h + h + h) * h, one node h used by four edges: {problem}")


def test_a_ladder_of_diamonds_without_recursion_or_revisits(student: ModuleType) -> None:
    v = mg.Value(0.5, requires_grad=True)
    for k in range(RUNGS):  # each rung: two paths of different lengths from v to the next v
        v = v + v.tanh() if k % 2 else v.tanh() + v
    started = time.perf_counter()
    try:
        order = student.reverse_topological_order(v)
    except RecursionError:
        raise Mistake(f"RecursionError on a ladder of {RUNGS} diamonds: walk it with an explicit "
                      "stack (a list with append/pop)") from None
    seconds = time.perf_counter() - started
    problem = valid(order, v)
    expect(problem is None, f"a ladder of {RUNGS} diamonds: {problem}")
    expect(seconds < 10, f"a ladder of {RUNGS} diamonds took {seconds:.0f} s: visit each node "
                         "once (a node reached by two paths is not walked twice)")


def test_the_order_of_a_value_inside_a_larger_graph(student: ModuleType) -> None:
    x, w = mg.Value(0.3, requires_grad=True), mg.Value(-2.0, requires_grad=True)
    h = (x * w).tanh() + x
    outer = h * h * w  # h has consumers outside its own graph: they are not part of its order
    problem = valid(student.reverse_topological_order(h), h)
    expect(problem is None and outer.grad_fn is not None,
           f"the order of h = tanh(x*w) + x, which a larger graph uses: {problem}")
