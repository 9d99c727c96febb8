"""Hidden tests of exercise U4.1, double backward: Hessian-vector products of functions linear
in one input or ignoring one, never shown.  ``micrograd2 exercise check WORKSPACE --tests
teacher/hidden U4.1`` grades with them (no PyTorch needed).
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Callable

import pytest

from micrograd2.exercises.harness import Mistake, expect, load_student, show

pytestmark = [pytest.mark.u4, pytest.mark.u4_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_double_backward", __file__)


def hvp(student: ModuleType, f: Callable[..., Any], xs: list[float], vs: list[float],
        what: str) -> list[float]:
    try:
        return [float(h) for h in student.hvp(f, xs, vs)]
    except RuntimeError as error:
        raise Mistake(f"hvp of {what} raised RuntimeError ({str(error).splitlines()[0]}): the "
                      "gradient g may not depend on every input (f linear in one, or ignoring "
                      "one), so g·v may not either: allow_unused=True in BOTH autograd.grad calls, "
                      "None read as 0.0") from None


def test_a_function_linear_in_one_input(student: ModuleType) -> None:
    got = hvp(student, lambda a, b: a * a * a + b * 2.0, [1.5, -3.0], [1.0, 4.0], "a³ + 2b")
    expect(all(math.isclose(g, w, abs_tol=1e-12) for g, w in zip(got, [9.0, 0.0])),
           f"hvp of a³ + 2b at (1.5, -3) along (1, 4) gave {[show(g) for g in got]}, expected "
           "[9, 0] (H = [[6a, 0], [0, 0]])")


def test_a_function_that_ignores_an_input(student: ModuleType) -> None:
    got = hvp(student, lambda a, b, c: (a * c).tanh(), [0.4, 9.0, -0.7], [1.0, 1.0, 1.0],
              "tanh(a·c), b unused")
    t = math.tanh(0.4 * -0.7)
    d2 = -2 * t * (1 - t * t)  # tanh'' at a·c
    h_aa, h_cc = d2 * 0.7 ** 2, d2 * 0.4 ** 2
    h_ac = d2 * 0.4 * -0.7 + (1 - t * t)
    want = [h_aa + h_ac, 0.0, h_ac + h_cc]
    expect(all(math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12) for g, w in zip(got, want)),
           f"hvp of tanh(a·c) (b unused) along (1, 1, 1) gave {[show(g) for g in got]}, expected "
           f"{[show(w) for w in want]}")


def test_softplus_in_a_product(student: ModuleType) -> None:
    got = hvp(student, lambda a, b: student.Softplus.apply(a) * b, [0.3, 2.0], [0.0, 1.0],
              "softplus(a)·b")
    s = 1 / (1 + math.exp(-0.3))
    expect(math.isclose(got[0], s, rel_tol=1e-9) and math.isclose(got[1], 0.0, abs_tol=1e-12),
           f"hvp of softplus(a)·b at (0.3, 2) along (0, 1) gave {[show(g) for g in got]}, "
           f"expected [{show(s)}, 0]")
