"""Hidden tests of exercise U2.3, the pieces of the walk (engine/u2_walk.py): accumulating
Tensor gradients, a walk from two roots, a ladder of diamonds, never shown.  ``micrograd2
exercise check WORKSPACE --tests teacher/hidden U2.3`` grades with them; they call the pieces
directly (course_units.hole), as the public tests do, on stand-in nodes.
"""
from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.course_units import hole
from micrograd2.exercises.harness import Mistake, expect, load_student

pytestmark = [pytest.mark.u2, pytest.mark.u2_3]

RUNGS = 20_000


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u2_engine_walk", __file__)


class Node:
    """A stand-in node: a name, a creation number, and edges with a weight each."""

    def __init__(self, name: str, seq: int, *edges: tuple[Any, float]) -> None:
        self.label, self.seq, self.weights = name, seq, [w for _, w in edges]
        self.next_functions = tuple((node, 0) for node, _ in edges)

    def sequence_nr(self) -> int:
        return self.seq

    def name(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return self.label


def test_accumulate_leaves_the_old_tensor_gradient_alone(student: ModuleType) -> None:
    old = mg.tensor([1.0, 2.0])
    leaf = SimpleNamespace(grad=old)
    total = hole(student, "accumulate")(leaf, mg.tensor([3.0, 4.0]))
    expect(total is not None and total.tolist() == [4.0, 6.0],
           f"accumulate of [3, 4] into a .grad of [1, 2] gave {total!r:.60}, expected [4, 6]")
    expect(old.tolist() == [1.0, 2.0],
           f"accumulate changed the old .grad Tensor itself to {old.tolist()}: `+=` adds in place "
           "on a Tensor, and the old gradient may be held elsewhere (a hook, another name): "
           "return old + new, a new Tensor")


def test_a_walk_from_two_roots(student: ModuleType) -> None:
    leaf = Node("L", 0)
    a = Node("A", 1, (leaf, 2.0))
    r1, r2 = Node("R1", 2, (a, 3.0)), Node("R2", 3, (a, 5.0), (leaf, 7.0))
    visits: dict[str, Any] = {}

    def visit(node: Node, grad: Any) -> tuple[Any, ...]:
        expect(node.name() not in visits, f"walk visited {node.name()} twice")
        visits[node.name()] = grad
        return tuple(None if grad is None else grad * w for w in node.weights)

    hole(student, "walk")([r1, r2], [1.0, 10.0], visit)
    want = {"R1": 1.0, "R2": 10.0, "A": 53.0, "L": 176.0}
    expect(visits == want, f"walk([R1, R2], [1, 10]) should visit with {want} (each root seeded "
                           f"with its own gradient; A gets 3 + 50), got {visits}")


def test_a_ladder_of_diamonds(student: ModuleType) -> None:
    top = Node("n0", 0)
    for k in range(1, RUNGS):
        side = Node(f"s{k}", 2 * k - 1, (top, 1.0))
        top = Node(f"n{k}", 2 * k, (top, 1.0), (side, 1.0))
    visits = 0

    def visit(node: Node, grad: Any) -> tuple[Any, ...]:
        nonlocal visits
        visits += 1
        return (grad,) * len(node.next_functions)

    try:
        counts = hole(student, "count_dependencies")([top])
        hole(student, "walk")([top], [1.0], visit)
    except RecursionError:
        raise Mistake(f"RecursionError on a ladder of {RUNGS} diamonds: use an explicit "
                      "stack") from None
    expect(len(counts) == 2 * RUNGS - 1 and visits == 2 * RUNGS - 1,
           f"a ladder of {RUNGS} diamonds has {2 * RUNGS - 1} nodes: count_dependencies found "
           f"{len(counts)}, walk visited {visits}; each node once")
