"""Hidden tests of exercise U3.2, the reductions' backward: other draws (their own salts),
and an x with an axis of size 1 that is not reduced, never shown.  ``exercise check WORKSPACE
--tests teacher/hidden U3`` grades with them.
"""
from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType

import numpy as np
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


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
def test_an_axis_of_size_one_that_is_not_reduced(student: ModuleType, mean: bool) -> None:
    # x of shape (3, 1, 4): its axis of size 1 is a 1 of kept without being summed.
    name = "mean_backward" if mean else "sum_backward"
    backward = getattr(student, name)
    gen = tc.rng(926 + mean)
    cases = ((2, (3, 1, 1), (3, 1)), ((0, 2), (1, 1, 1), (1,)), (0, (1, 1, 4), (1, 4)))
    for dim, kept, out in cases:
        g = tc.tensor(gen, out)
        what = f"{name}(grad of shape {out}, (3, 1, 4), {kept}) for x.{name[:-9]}({dim})"
        got = tc.answer_of(tc.calling(backward, what, g, (3, 1, 4), kept,
                                      hint="x itself has an axis of size 1 that was not reduced: "
                                           "the 1s of kept are not all summed axes"), what)
        n = 12 // math.prod(kept)
        want = np.broadcast_to(tc.array(g).reshape(kept), (3, 1, 4)) / (n if mean else 1)
        tc.compare(got, want, what, {})
