"""U3.2 — The reductions' backward: the public tests (the grader runs these, not your copy).

Shapes are drawn at random each run (``MICROGRAD2_SEED=S`` replays run S): everything reduced,
one dim (a negative one too), several dims, keepdim both ways.  The last test runs ``x.sum(...)``
and ``x.mean(...)`` with your functions in place of the engine's and gradchecks them.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_2]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_reductions", __file__)


def test_sum_backward_on_random_reductions(student: ModuleType) -> None:
    tc.check_reduction(student.sum_backward, mean=False, salt=201)


def test_mean_backward_on_random_reductions(student: ModuleType) -> None:
    tc.check_reduction(student.mean_backward, mean=True, salt=202)


def test_the_mean_of_a_row_divides_by_the_rows_length(student: ModuleType) -> None:
    grad = mg.tensor([1.0, 10.0], dtype="float64")  # x (2, 5).mean(1): one number per row
    what = "mean_backward(grad [1, 10], (2, 5), (2, 1)) for x.mean(1)"
    got = tc.answer_of(tc.calling(student.mean_backward, what, grad, (2, 5), (2, 1),
                                  hint=tc.EXPAND_HINT), what)
    want = tc.array(grad).reshape(2, 1).repeat(5, axis=1) / 5
    tc.compare(got, want, what, tc.reduction_mistakes(tc.array(grad), (2, 5), (2, 1), mean=True))


def test_reductions_pass_gradcheck_with_yours_in_place(student: ModuleType) -> None:
    tc.in_place(Path(str(student.__file__)), ["sum_backward", "mean_backward"], salt=203)
