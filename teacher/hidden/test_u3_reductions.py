"""Hidden tests of exercise U3.2, the reductions' backward: other draws (their own salts),
never shown.  ``exercise check WORKSPACE --tests tests/teacher/hidden U3`` grades with them.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_2]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_reductions", __file__)


@pytest.mark.parametrize("salt", [921, 922])
def test_sum_backward_on_other_random_reductions(student: ModuleType, salt: int) -> None:
    tc.check_reduction(student.sum_backward, mean=False, salt=salt)


@pytest.mark.parametrize("salt", [923, 924])
def test_mean_backward_on_other_random_reductions(student: ModuleType, salt: int) -> None:
    tc.check_reduction(student.mean_backward, mean=True, salt=salt)


def test_in_place_on_other_shapes(student: ModuleType) -> None:
    tc.in_place(Path(student.__file__), ["sum_backward", "mean_backward"], salt=925)
