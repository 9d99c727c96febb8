"""U0.1 — Gradients on paper: the public tests (the grader runs these, not your copy).

The graph is made again from your file's SEED (``micrograd2.exercises.paper.generate``); the
right gradients come from micrograd2's backward, checked against central finite differences.
"""
from __future__ import annotations

from types import ModuleType

import pytest

from micrograd2.exercises import paper
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u0, pytest.mark.u0_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u0_gradients", __file__)


def graph_of(student: ModuleType) -> paper.Graph:
    """The graph of the student's SEED, after checking that the file still holds it as written."""
    seed = getattr(student, "SEED", None)
    expect(isinstance(seed, int) and not isinstance(seed, bool),
           f"u0_gradients.py should define SEED = <an int>, got {seed!r}")
    graph = paper.generate(seed)
    for name, value in paper.forward(graph).items():
        mine = getattr(student, name, None)
        expect(isinstance(mine, (int, float)) and abs(mine - value) <= 1e-9 * max(1.0, abs(value)),
               f"{name} is {mine!r} in your file, but {value:.6g} in the graph of SEED {seed}: "
               "leave the graph as written (a fresh one: python -m micrograd2.exercises.paper "
               f"{seed})")
    return graph


def answers(student: ModuleType, graph: paper.Graph) -> dict[str, float]:
    """The student's gradients, once their shape is right (a number for every value)."""
    got = student.gradients()
    problem = paper.problem_with(graph, got)
    expect(problem is None, str(problem))
    return {name: float(value) for name, value in got.items()}


def test_every_value_has_a_gradient(student: ModuleType) -> None:
    graph = graph_of(student)
    answers(student, graph)


def test_each_gradient_follows_from_the_uses_of_its_value(student: ModuleType) -> None:
    graph = graph_of(student)
    problem = paper.diagnose(graph, answers(student, graph))
    expect(problem is None, str(problem))


def test_a_value_used_twice_gets_the_sum_of_both_uses(student: ModuleType) -> None:
    graph = graph_of(student)
    got, right = answers(student, graph), paper.gradients(graph)
    values = paper.forward(graph)
    for name in graph.shared():
        if paper.close(got[name], right[name]):
            continue
        why = next((m.why for m in paper.mistakes(graph, values, right, name)
                    if paper.close(got[name], m.value)), "")
        expect(False, f'dL["{name}"] is {got[name]:.6g}, expected {right[name]:.6g} = '
                      f"{paper.formula(graph, name)}{': ' + why if why else ''}")


def test_the_leaves_match_central_finite_differences(student: ModuleType) -> None:
    graph = graph_of(student)
    got, numeric = answers(student, graph), paper.finite_differences(graph)
    for leaf in graph.leaves:
        expect(paper.close(got[leaf], numeric[leaf]),
               f'dL["{leaf}"] is {got[leaf]:.6g}, but the central difference '
               f"(L({leaf} + h) - L({leaf} - h)) / 2h with h = {paper.STEP:g} gives "
               f"{numeric[leaf]:.6g}")
