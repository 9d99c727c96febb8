"""Hidden tests of exercise U5.3, custom Functions (a sample of what a teacher grades with).

``micrograd2 exercise check WORKSPACE --tests teacher/hidden`` grades with these instead of
the public tests.
"""
from __future__ import annotations

import math
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex07_custom_function", __file__)


def test_hypot_of_a_pythagorean_triple_at_every_scale(student: ModuleType) -> None:
    for scale in (1.0, 1e200, 1e-200):  # a² overflows past 1e154 and underflows below 1e-162
        a, b = mg.Value(5.0 * scale, requires_grad=True), mg.Value(12.0 * scale, requires_grad=True)
        try:
            h = student.Hypot.apply(a, b)
            h.backward()
        except (ZeroDivisionError, OverflowError) as error:
            raise Mistake(f"Hypot({show(a.data)}, {show(b.data)}) raised {type(error).__name__}: "
                          "a² + b² left the range of floats; math.hypot does not") from None
        expect(math.isclose(h.data, 13.0 * scale, rel_tol=1e-12)
               and abs(a.grad - 5 / 13) < 1e-12 and abs(b.grad - 12 / 13) < 1e-12,
               f"Hypot({show(a.data)}, {show(b.data)}) = {show(h.data)} with gradients "
               f"({show(a.grad)}, {show(b.grad)}); expected {show(13.0 * scale)} and (5/13, 12/13)"
               + ("" if scale == 1.0 else ": a² + b² overflows or underflows at this scale, "
                  "math.hypot does not"))


def test_square_and_double_twice(student: ModuleType) -> None:
    x = mg.Value(0.5, requires_grad=True)
    y = student.SquareAndDouble.apply(student.SquareAndDouble.apply(x))  # 2(2x²)² = 8x⁴
    y.backward()
    expect(abs(y.data - 0.5) < 1e-12 and abs(x.grad - 4.0) < 1e-12,
           f"SquareAndDouble twice at 0.5 gives {show(y.data)} and x.grad {show(x.grad)}; "
           "expected 0.5 and 4.0")
