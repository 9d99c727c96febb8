"""Hidden tests of exercise U3.1, sum_to: other draws of shapes (their own salts) and a 5-axis
case, never shown.  ``exercise check WORKSPACE --tests tests/teacher/hidden U3`` grades with them.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_sum_to", __file__)


@pytest.mark.parametrize("salt", [911, 912, 913])
def test_sum_to_on_other_random_shapes(student: ModuleType, salt: int) -> None:
    tc.check_sum_to(student.sum_to, salt=salt)


def test_five_axes_to_a_size_one_middle(student: ModuleType) -> None:
    grad = tc.tensor(tc.rng(914), (2, 3, 4, 5, 2))
    what = "sum_to(grad of shape (2, 3, 4, 5, 2), (4, 1, 2))"
    got = tc.answer_of(tc.calling(student.sum_to, what, grad, (4, 1, 2)), what)
    tc.compare(got, tc.array(grad).sum(axis=(0, 1)).sum(axis=1, keepdims=True), what,
               tc.sum_to_mistakes(tc.array(grad), (4, 1, 2)))


def test_in_place_on_other_shapes(student: ModuleType) -> None:
    tc.in_place(Path(student.__file__), ["sum_to"], salt=915)
