"""Hidden tests of exercise U0.2, forward vs reverse mode: other sizes and shapes, never shown.

``micrograd2 exercise check WORKSPACE --tests teacher/hidden U0.2`` grades with them.  As the
public tests do, each RUNS both modes (``micrograd2.exercises.paper``) and compares what they
measure with the student's predictions: here on functions with more inputs than ops between
them, and on Jacobians whose m lies between n and 2n.
"""
from __future__ import annotations

from types import ModuleType

import pytest

from micrograd2.exercises import paper
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u0, pytest.mark.u0_2]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u0_modes", __file__)


@pytest.mark.parametrize("n, size", [(1, 1), (5, 40), (12, 13)])
def test_both_costs_on_other_sizes(student: ModuleType, n: int, size: int) -> None:
    graph = paper.random_function(7000 + 100 * n + size, n, size)
    forward, reverse = paper.forward_mode(graph), paper.reverse_mode(graph)
    said = (student.forward_mode_cost(n, size), student.reverse_mode_cost(n, size))
    want = ((forward.passes, forward.ops), (reverse.passes, reverse.ops))
    expect(tuple(map(tuple, said)) == want,
           f"for a random {n}-input function of {size} ops you predict forward mode {said[0]} "
           f"and reverse mode {said[1]}; running them measured {want[0]} and {want[1]}")


@pytest.mark.parametrize("n, m", [(3, 4), (5, 7), (10, 11), (4, 3), (7, 5)])
def test_the_cheaper_mode_when_the_sizes_are_close(student: ModuleType, n: int, m: int) -> None:
    graph = paper.random_function(8000 + 10 * n + m, n, max(n, m) + 3, m)
    forward, reverse = paper.forward_mode(graph), paper.reverse_mode(graph)
    fewer = "forward" if forward.passes < reverse.passes else "reverse"
    said = student.cheaper_mode(n, m)
    expect(said == fewer,
           f"cheaper_mode({n}, {m}) says {said!r}, but forward mode ran {forward.passes} passes "
           f"and reverse mode {reverse.passes}: the question is which needs fewer PASSES, "
           "however much one pass of each costs")
