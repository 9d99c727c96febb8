"""Hidden tests of exercise U0.1, gradients on paper: the worksheet handed out, never shown.

``micrograd2 exercise check WORKSPACE --tests teacher/hidden U0.1`` grades with them.  The public
tests grade whatever graph the file's SEED draws (a student may practise on others); these grade
the one ``micrograd2 exercise start`` hands out, SEED ``ASSIGNED``.  A teacher who hands out
another seed changes ``ASSIGNED``.
"""
from __future__ import annotations

from types import ModuleType

import pytest

from micrograd2.exercises import paper
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u0, pytest.mark.u0_1]

ASSIGNED = paper.DEFAULT_SEED  # the SEED of the worksheet the stub holds


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u0_gradients", __file__)


def test_the_worksheet_is_the_one_handed_out(student: ModuleType) -> None:
    seed = getattr(student, "SEED", None)
    expect(seed == ASSIGNED,
           f"u0_gradients.py holds the graph of SEED {seed!r}, but the graded worksheet is SEED "
           f"{ASSIGNED}: `python -m micrograd2.exercises.paper {ASSIGNED} > u0_gradients.py` "
           "writes it again, to answer")


def test_every_gradient_of_the_handed_out_graph(student: ModuleType) -> None:
    graph = paper.generate(ASSIGNED)
    for name, value in paper.forward(graph).items():
        mine = getattr(student, name, None)
        expect(isinstance(mine, (int, float)) and abs(mine - value) <= 1e-9 * max(1.0, abs(value)),
               f"{name} is {mine!r} in your file, but {value:.6g} in the worksheet of SEED "
               f"{ASSIGNED}: answer the worksheet handed out, its graph as written")
    got = student.gradients()
    problem = paper.problem_with(graph, got)
    expect(problem is None, str(problem))
    problem = paper.diagnose(graph, {name: float(value) for name, value in got.items()})
    expect(problem is None, str(problem))
