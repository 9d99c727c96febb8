"""Hidden tests of exercise U1.0, a Value from scratch: a value used both directly and through
another op, random graphs of +, *, tanh and constants, and a chain of 300 ops, each run on the
student's Value and on micrograd2 and compared number by number; and a ladder of 40 diamonds,
whose order must explore each Value once (2^40 paths lead to its bottom).  Never shown.
``micrograd2 exercise check WORKSPACE --tests teacher/hidden U1.0`` grades with them.
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import pytest

from micrograd2.exercises.harness import Mistake, expect, load_student
from micrograd2.exercises.value_checks import (
    Leaf,
    Program,
    build,
    compare,
    graph_of,
    order_problem,
)

pytestmark = [pytest.mark.u1, pytest.mark.u1_0]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u1_value_from_scratch", __file__)


def direct_and_through(leaf: Leaf) -> dict[str, Any]:
    """h reaches z in one step and in two: a breadth-first order visits h before h*h."""
    x, w = leaf(0.7, "x"), leaf(-1.3, "w")
    h = x * w
    hh = h * h
    return {"x": x, "w": w, "h": h, "h*h": hh, "z": h + hh}


def random_program(seed: int) -> Program:
    """A random graph over three leaves; every value not used by a later op is summed into z."""

    def program(leaf: Leaf) -> dict[str, Any]:
        rng = random.Random(seed)
        named = {f"x{i}": leaf(round(rng.uniform(-1.5, 1.5), 3), f"x{i}") for i in range(3)}
        unused = list(named)
        for k in range(rng.randrange(4, 14)):
            a, b = rng.choice(list(named)), rng.choice(list(named))
            op = rng.randrange(5)
            value = (
                named[a] + named[b]
                if op == 0
                else named[a] * named[b]
                if op == 1
                else named[a].tanh()
                if op == 2
                else 0.5 * named[a]
                if op == 3
                else named[a] + 1.0
            )
            for used in (a, b) if op < 2 else (a,):
                if used in unused:
                    unused.remove(used)
            named[f"v{k}"] = value
            unused.append(f"v{k}")
        total = named[unused[0]]
        for i, name in enumerate(unused[1:]):
            total = total + named[name]
            named[f"s{i}"] = total
        named["z"] = total * 1.0
        return named

    return program


def chain(leaf: Leaf) -> dict[str, Any]:
    """300 ops in a row, x added back in every tenth: deep, but under the recursion limit."""
    x = leaf(0.3, "x")
    named: dict[str, Any] = {"x": x}
    v = x
    for k in range(300):
        v = v + x if k % 10 == 9 else v.tanh() if k % 2 else v * 1.5
        named[f"v{k}"] = v
    named["z"] = v * 1.0
    return named


def ladder(leaf: Leaf) -> dict[str, Any]:
    """40 diamonds in a row: each rung uses the one below twice, so 2^40 paths reach x."""
    x = leaf(0.2, "x")
    named: dict[str, Any] = {"x": x}
    v = x
    for k in range(40):
        left, right = v * 0.5, v.tanh()
        v = left + right
        named.update({f"l{k}": left, f"r{k}": right, f"v{k}": v})
    named["z"] = v * 1.0
    return named


def counted_prev(root: Any) -> None:
    """Make each ``_prev`` of ``root``'s graph count its walks, and stop a walk that goes through
    them more than four times as often as there are Values."""
    nodes = graph_of(root)
    budget = 4 * len(nodes)
    left = [budget]

    class Counted(tuple):  # type: ignore[type-arg]
        def __iter__(self) -> Any:
            left[0] -= 1
            if left[0] < 0:
                raise Mistake(
                    f"reverse_topological_order went through _prev more than {budget} "
                    f"times on a graph of {len(nodes)} Values: a Value reached again is "
                    "explored again from every path to it (2^40 here); keep a set of the "
                    "Values visited and return at once for one already in it"
                )
            return super().__iter__()

    for value in nodes:
        value._prev = Counted(value._prev)


def test_a_ladder_of_diamonds_explores_each_value_once(student: ModuleType) -> None:
    built = build(ladder, lambda data, name: student.Value(data))
    counted_prev(built.root)
    names = {id(v): n for n, v in built.named.items()}
    problem = order_problem(student.reverse_topological_order(built.root), built.root, names)
    expect(problem is None, f"a ladder of 40 diamonds: reverse_topological_order: {problem}")
    compare(student, ladder, "a ladder of 40 diamonds")


def test_a_value_used_directly_and_through_another_op(student: ModuleType) -> None:
    compare(student, direct_and_through, "z = h + h*h with h = x*w")


def test_random_graphs_match_micrograd2(student: ModuleType) -> None:
    for seed in range(40):
        compare(student, random_program(seed), f"random graph #{seed}")


def test_a_chain_of_300_ops(student: ModuleType) -> None:
    compare(student, chain, "a chain of 300 ops")
