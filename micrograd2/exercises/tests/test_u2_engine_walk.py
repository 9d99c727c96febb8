"""Exercise U2.3 — Walk: the public tests (the grader runs these, not your copy).

They call your ``count_dependencies``, ``walk`` and ``accumulate`` (engine/u2_walk.py) directly
on small graphs of stand-in nodes, then run lessons 2, 3 and 4 on your engine in a new process.
Where the engine is: micrograd2/exercises/course_units.py, NOTE [Where the tests find the engine].
"""
from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from micrograd2.exercises.course_units import check_lesson, hole
from micrograd2.exercises.harness import Mistake, expect, load_student

pytestmark = [pytest.mark.u2, pytest.mark.u2_3]

DEEP = 100_000


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u2_engine_walk", __file__)


class Node:
    """A stand-in for a graph node: a name, a creation number and edges with a weight each
    (what ``visit`` multiplies the node's gradient by for that edge)."""

    def __init__(self, name: str, seq: int, *edges: tuple[Node | None, float]) -> None:
        self.label, self.seq, self.weights = name, seq, [w for _, w in edges]
        self.next_functions = tuple((node, 0) for node, _ in edges)

    def sequence_nr(self) -> int:
        return self.seq

    def name(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return self.label


def diamond() -> tuple[Node, dict[str, Node]]:
    """y's node R uses A and B; B uses A too; A uses the leaf's node L (and a None edge).

    R -> A (×2), R -> B (×3), B -> A (×5), A -> L (×7): A gets 2 + 3·5 = 17, L 17·7 = 119."""
    leaf = Node("L", 0)
    a = Node("A", 1, (leaf, 7.0), (None, 1.0))
    b = Node("B", 2, (a, 5.0))
    root = Node("R", 3, (a, 2.0), (b, 3.0))
    return root, {"R": root, "A": a, "B": b, "L": leaf}


def walked(student: ModuleType, roots: list[Node], seeds: list[float]) -> list[tuple[str, Any]]:
    """The visits the student's ``walk`` makes: ``(node name, total gradient)`` each, in order."""
    visits: list[tuple[str, Any]] = []

    def visit(node: Node, grad: Any) -> tuple[Any, ...]:
        expect(len(visits) < 1000, "walk visited more than 1000 nodes of a 4-node graph: does it loop?")
        visits.append((node.name(), grad))
        return tuple(None if grad is None else grad * w for w in node.weights)

    result = hole(student, "walk")(roots, seeds, visit)
    expect(result is None, f"walk should return None (visit does the work), got {result!r:.60}")
    return visits


def test_count_dependencies_counts_the_edges_into_each_node(student: ModuleType) -> None:
    root, nodes = diamond()
    counts = hole(student, "count_dependencies")([root])
    expect(isinstance(counts, dict), f"count_dependencies should return a dict, got {counts!r:.80}")
    got = {getattr(n, "label", n): c for n, c in counts.items()}
    want = {"R": 0, "A": 2, "B": 1, "L": 1}
    expect(got == want, f"on the diamond R -> A, R -> B, B -> A, A -> L the counts should be {want} (the "
                        f"root with 0; A has two edges into it), got {got}; skip None edges")


def test_walk_visits_each_node_once_after_all_its_consumers(student: ModuleType) -> None:
    root, _ = diamond()
    order = [name for name, _ in walked(student, [root], [1.0])]
    for name in "RABL":
        expect(name in order, f"walk never visited {name} (visits: {order}): visit every reachable node")
    twice = sorted({n for n in order if order.count(n) > 1})
    if twice or order.index("A") < order.index("B"):
        raise Mistake(f"on the diamond R -> A, R -> B, B -> A the visits were {order}: A was visited "
                      f"{'more than once' if twice else 'before its consumer B'}. A node is ready only "
                      "when EVERY edge into it has delivered (count_dependencies, and count each "
                      "delivery down): a breadth-first walk visits it as soon as the first gradient "
                      "arrives")
    expect(order == ["R", "B", "A", "L"], f"the visits should be R, B, A, L, got {order}")


def test_walk_visits_the_ready_node_created_last_first(student: ModuleType) -> None:
    leaf = Node("L", 0)
    p, q = Node("P", 1, (leaf, 1.0)), Node("Q", 2, (leaf, 1.0))
    root = Node("R", 3, (p, 1.0), (q, 1.0))  # after R, both P and Q are ready
    order = [name for name, _ in walked(student, [root], [1.0])]
    expect(order == ["R", "Q", "P", "L"], f"R uses P (sequence_nr 1) and Q (sequence_nr 2): once R is "
           f"visited both are ready, and the one created last, Q, comes first, as in PyTorch; the visits "
           f"were {order}. Keep the ready nodes in a heap by -node.sequence_nr()")


def test_walk_visits_each_node_with_the_sum_of_what_it_received(student: ModuleType) -> None:
    root, _ = diamond()
    totals = dict(walked(student, [root], [1.0]))
    want = {"R": 1.0, "B": 3.0, "A": 17.0, "L": 119.0}
    expect(totals == want, f"visit(node, grad) should get each node's total gradient {want} (A receives "
           f"2 from R and 3 * 5 = 15 from B: 17), got {totals}: ADD what each edge delivers")


def test_accumulate_adds_never_assigns(student: ModuleType) -> None:
    accumulate = hole(student, "accumulate")
    leaf = SimpleNamespace(grad=None)
    first = accumulate(leaf, 3.0)
    expect(first == 3.0, f"accumulate into a .grad that is None should give the gradient itself, 3.0, got "
                         f"{first!r:.60}")
    leaf.grad = 2.0
    second = accumulate(leaf, 3.0)
    expect(second == 5.0, f"accumulate(x, 3.0) with x.grad = 2.0 gave {second!r:.60}, expected 5.0: add "
                          "the new gradient to the old .grad, never assign it (it is called once per backward "
                          "pass with that pass's sum; a second pass adds to the first)")
    expect(leaf.grad == 2.0, "accumulate changed x.grad itself: return the new .grad, the core stores it")


def test_a_100000_node_chain_works_without_recursion(student: ModuleType) -> None:
    nodes = [Node("n0", 0)]
    for i in range(1, DEEP):
        nodes.append(Node(f"n{i}", i, (nodes[-1], 1.0)))
    try:
        counts = hole(student, "count_dependencies")([nodes[-1]])
        visits = 0

        def visit(node: Node, grad: Any) -> tuple[Any, ...]:
            nonlocal visits
            visits += 1
            return (grad,) * len(node.next_functions)

        hole(student, "walk")([nodes[-1]], [1.0], visit)
    except RecursionError:
        raise Mistake(f"RecursionError on a chain of {DEEP} nodes: use an explicit stack (a list with "
                      "append/pop), not a recursive function") from None
    expect(len(counts) == DEEP, f"count_dependencies found {len(counts)} of the chain's {DEEP} nodes")
    expect(visits == DEEP, f"walk visited {visits} of the chain's {DEEP} nodes")


def test_lesson_2_passes_on_your_engine(student: ModuleType) -> None:
    check_lesson(student, 2)


def test_lesson_3_passes_on_your_engine(student: ModuleType) -> None:
    check_lesson(student, 3)


def test_lesson_4_passes_on_your_engine(student: ModuleType) -> None:
    check_lesson(student, 4)
