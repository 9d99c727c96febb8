"""Hidden tests of exercise U3.3, Reshape and Transpose: other shapes, and two Reshapes in
one graph, never shown.  ``exercise check WORKSPACE --tests teacher/hidden U3`` grades with them.
"""
from __future__ import annotations

from types import ModuleType

import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import Mistake, expect, load_student

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


def test_two_reshapes_of_different_shapes_in_one_graph(student: ModuleType) -> None:
    gen = tc.rng(934)
    x, w = tc.tensor(gen, (2, 6), True), tc.tensor(gen, (4, 3), True)
    y = student.Reshape.apply(x, (3, 4)) * student.Reshape.apply(w, (3, 4))
    try:
        y.sum().backward()
    except RuntimeError as error:
        raise Mistake(f"two Reshapes in one graph, of x (2, 6) and w (4, 3): backward failed "
                      f"({str(error).splitlines()[0]}): each call must keep its own input's shape "
                      "on its ctx, not on the class or in a global, which the second call "
                      "overwrites") from None
    expect(tuple(x.grad.shape) == (2, 6) and tuple(w.grad.shape) == (4, 3),
           f"two Reshapes in one graph gave gradients of shapes {tuple(x.grad.shape)} and "
           f"{tuple(w.grad.shape)}, expected (2, 6) and (4, 3)")
