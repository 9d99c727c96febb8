"""U3.3 — Reshape and Transpose as your own Functions: the public tests (the grader runs these,
not your copy).

Shapes are drawn at random each run (``MICROGRAD2_SEED=S`` replays run S): 3 or 4 axes of sizes
2 to 5, a -1 in the new shape, negative dims, axes of different sizes.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

from micrograd2.exercises import tensor_checks as tc
from micrograd2.exercises.harness import Mistake, expect, load_student

pytestmark = [pytest.mark.u3, pytest.mark.u3_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u3_views", __file__)


def cases(salt: int) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, int]]]:
    """(shape, a new shape with a -1, two dims to swap: one negative, of different sizes)."""
    gen = tc.rng(salt)
    found: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, int]]] = []
    for ndim in (3, 4, 3):
        shape = tuple(int(s) for s in gen.integers(2, 6, size=ndim))
        if len(set(shape)) == 1:
            shape = (shape[0] + 1,) + shape[1:]
        first = int(np.argmin(shape))
        second = int(np.argmax(shape)) - ndim  # a negative dim
        found.append((shape, (shape[0] * shape[1], -1), (first, second)))
    return found


def applied(fn: Callable[..., Any], what: str, *args: Any) -> Any:
    """``fn(*args)``, a core error about a gradient's shape explained."""
    try:
        return fn(*args)
    except RuntimeError as error:
        if "invalid gradient" not in str(error):
            raise
        raise Mistake(f"{what}: {str(error).splitlines()[0]}: backward returns a gradient of the "
                      "INPUT's shape, the one forward received (keep it on ctx), not the "
                      "output's") from None


def test_reshape_gives_the_builtin_numbers_and_node(student: ModuleType) -> None:
    for shape, new, _ in cases(301):
        x = tc.tensor(tc.rng(302), shape, True)
        y = tc.calling(student.Reshape.apply, f"Reshape.apply(x {shape}, {new})", x, new)
        tc.compare(tc.array(y), tc.array(x).reshape(new), f"Reshape.apply(x {shape}, {new})", {})
        expect(y.grad_fn is not None and y.grad_fn.name() == "ReshapeBackward",
               f"Reshape.apply(x, {new}) has grad_fn {y.grad_fn}: it should be recorded, as "
               "ReshapeBackward")


def test_reshape_passes_gradcheck_on_random_shapes(student: ModuleType) -> None:
    for shape, new, _ in cases(303):
        x = tc.tensor(tc.rng(304), shape, True)
        what = f"Reshape.apply(x {shape}, {new})"
        applied(tc.gradcheck, what, lambda x, new=new: student.Reshape.apply(x, new), [x], what)


SWAPAXES = ("NumPy's x.transpose(...) takes a whole permutation of the axes; swap two with "
            "np.swapaxes(x, dim0, dim1)")


def test_transpose_gives_the_builtin_numbers(student: ModuleType) -> None:
    for shape, _, (d0, d1) in cases(305):
        x = tc.tensor(tc.rng(306), shape, True)
        what = f"Transpose.apply(x {shape}, {d0}, {d1})"
        y = tc.calling(student.Transpose.apply, what, x, d0, d1, hint=SWAPAXES)
        want = np.swapaxes(tc.array(x), d0, d1)
        expect(tuple(y.shape) == want.shape,
               f"{what} has shape {tuple(y.shape)}, expected {want.shape}: {SWAPAXES} "
               f"{tc.replay()}")
        tc.compare(tc.array(y), want, what, {})


def test_transpose_passes_gradcheck_on_random_shapes(student: ModuleType) -> None:
    for shape, _, (d0, d1) in cases(307):
        x = tc.tensor(tc.rng(308), shape, True)
        what = f"Transpose.apply(x {shape}, {d0}, {d1})"
        applied(tc.gradcheck, what, lambda x, d0=d0, d1=d1: student.Transpose.apply(x, d0, d1),
                [x], what)


def test_the_two_compose_in_one_graph(student: ModuleType) -> None:
    gen = tc.rng(309)
    x, w = tc.tensor(gen, (2, 3, 4), True), tc.tensor(gen, (6, 4), True)
    what = "Transpose.apply(Reshape.apply(x (2, 3, 4), (6, 4)), 0, 1) @ w"
    applied(tc.gradcheck, what,
            lambda x, w: student.Transpose.apply(student.Reshape.apply(x, (6, 4)), 0, 1) @ w,
            [x, w], what)
