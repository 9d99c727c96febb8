"""Exercise U2.1 — Reverse topological order: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

import random
import time
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, consumers, describe, expect, load_student, node_names

pytestmark = [pytest.mark.u2, pytest.mark.u2_1]

DEEP = 100_000


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex03_topo_order", __file__)


def order_problem(order: Any, root: Any) -> str | None:
    """What is wrong with ``order`` as a reverse topological order of ``root``'s graph (None: nothing)."""
    if not isinstance(order, (list, tuple)):
        return f"reverse_topological_order should return a list of nodes, got {type(order).__name__}"
    start = root.grad_fn
    reachable = consumers(start)
    names = node_names(start)
    position: dict[Any, int] = {}
    for i, node in enumerate(order):
        if node in position:
            return (f"{describe(node, names)} appears twice (positions {position[node]} and {i}): each node must "
                    "appear exactly once — remember which nodes you have already seen")
        if node not in reachable:
            return f"position {i} holds {node!r}, which is not a node of this graph"
        position[node] = i
    missing = [n for n in reachable if n not in position]
    if missing:
        return (f"{len(missing)} of the {len(reachable)} nodes are missing, e.g. {describe(missing[0], names)}: "
                "follow every entry of next_functions (AccumulateGrad nodes included)")
    if order[0] is not start:
        return f"the order should start with root.grad_fn ({describe(start, names)}), not {describe(order[0], names)}"
    for i, node in enumerate(order):
        for nxt, _ in node.next_functions:
            if nxt is not None and position[nxt] < i:
                return (f"{describe(nxt, names)} comes at position {position[nxt]}, before its consumer "
                        f"{describe(node, names)} at position {i}: a node may come only after ALL the nodes that "
                        "use it (finish every consumer first — count incoming edges, or emit nodes in post-order "
                        "and reverse)")
    return None


def check_order(student: ModuleType, root: Any, what: str) -> None:
    problem = order_problem(student.reverse_topological_order(root), root)
    expect(problem is None, f"{what}: {problem}")


def test_block1_graph_is_ordered(student: ModuleType) -> None:
    x = [mg.Value(2.0, requires_grad=True, label="x0"), mg.Value(3.0, requires_grad=True, label="x1")]
    w = [mg.Value(4.0, requires_grad=True, label="w0"), mg.Value(5.0, requires_grad=True, label="w1")]
    check_order(student, mg.sum(a * b for a, b in zip(x, w)), "z = x0*w0 + x1*w1")


def test_a_reused_non_leaf_comes_after_all_its_consumers(student: ModuleType) -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    y = mg.Value(-1.0, requires_grad=True, label="y")
    h = x * y
    check_order(student, h * h + h.tanh(), "z = h*h + tanh(h) with h = x*y")
    a = x + 1.0
    b = a * 2.0
    check_order(student, (a * b) * (b + a), "a diamond: z = (a*b)*(b+a) with b = 2a")


def test_inputs_that_need_no_gradient_are_skipped(student: ModuleType) -> None:
    x = mg.Value(2.0, requires_grad=True, label="x")
    c = mg.Value(3.0, label="c")  # requires no grad: its edge is None
    check_order(student, (x * c + c) * x, "z = (x*c + c)*x with c a constant")
    expect(student.reverse_topological_order(mg.Value(1.0)) == [],
           "a Value without grad_fn has no graph: return []")


def random_graph(rng: random.Random, size: int) -> Any:
    """A random DAG of ``size`` ops over a few leaves (some needing no gradient), reusing earlier results."""
    pool: list[Any] = [mg.Value(rng.uniform(-1, 1), requires_grad=rng.random() < 0.8, label=f"x{i}")
                       for i in range(4)]
    pool[0].requires_grad = True
    for _ in range(size):
        a, b = rng.choice(pool), rng.choice(pool)
        op = rng.randrange(5)
        if op == 0:
            v = a * b
        elif op == 1:
            v = a + b * 0.5
        elif op == 2:
            v = a.tanh()
        elif op == 3:
            v = mg.sum([a, b, rng.choice(pool)])
        else:
            v = a - 1.0
        pool.append(v)
    return mg.sum([v for v in pool[-6:]] + [pool[0] * 1.0])


def test_random_dags_are_ordered(student: ModuleType) -> None:
    rng = random.Random(2024)
    for k in range(40):
        check_order(student, random_graph(rng, rng.randrange(5, 60)), f"random graph #{k}")


def test_a_100000_deep_chain_works_without_recursion(student: ModuleType) -> None:
    x = mg.Value(1.0, requires_grad=True, label="x")
    student.reverse_topological_order(x * 1.0)  # fails fast if not written yet
    v = x
    for _ in range(DEEP):
        v = v * 1.0
    started = time.perf_counter()
    try:
        order = student.reverse_topological_order(v)
    except RecursionError:
        raise Mistake(f"RecursionError on a chain of {DEEP} ops: Python allows about 1000 nested calls; "
                      "use an explicit stack (a list with append/pop) instead of recursion") from None
    seconds = time.perf_counter() - started
    problem = order_problem(order, v)
    expect(problem is None, f"a {DEEP}-deep chain: {problem}")
    expect(seconds < 20, f"a {DEEP}-deep chain took {seconds:.0f} s: looking nodes up in a list is slow; "
                         "use a set or a dict for the nodes seen")
