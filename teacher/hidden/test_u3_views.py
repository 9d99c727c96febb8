"""Hidden tests of exercise U3.3, Reshape and Transpose: other shapes, never shown.
``exercise check WORKSPACE --tests tests/teacher/hidden U3`` grades with them.
"""
from __future__ import annotations

from types import ModuleType

import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_views", __file__)


@pytest.mark.parametrize("salt", [931, 932])
def test_views_on_five_axes(student: ModuleType, salt: int) -> None:
    gen = tc.rng(salt)
    shape = tuple(int(s) for s in gen.integers(2, 4, size=5))
    x = tc.tensor(gen, shape, True)
    tc.gradcheck(lambda x: student.Reshape.apply(x, (-1, shape[-1])), [x],
                 f"Reshape.apply(x {shape}, (-1, {shape[-1]}))")
    tc.gradcheck(lambda x: student.Transpose.apply(x, 1, -2), [x],
                 f"Transpose.apply(x {shape}, 1, -2)")


def test_a_view_of_a_view_goes_back(student: ModuleType) -> None:
    gen = tc.rng(933)
    x = tc.tensor(gen, (3, 4), True)
    y = student.Transpose.apply(student.Reshape.apply(x, (2, 6)), 0, 1)
    (y * tc.tensor(gen, (6, 2))).sum().backward()
    expect(x.grad is not None and tuple(x.grad.shape) == (3, 4),
           f"x.grad after a reshape and a transpose has shape "
           f"{None if x.grad is None else tuple(x.grad.shape)}, expected (3, 4)")
