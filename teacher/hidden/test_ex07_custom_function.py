"""Hidden tests of exercise U5.3, custom Functions (a sample of what a teacher grades with).

``micrograd2 exercise check WORKSPACE --tests tests/teacher/hidden`` grades with these instead of
the public tests.
"""
from __future__ import annotations

from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_3]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex07_custom_function", __file__)


def test_hypot_of_a_pythagorean_triple(student: ModuleType) -> None:
    a, b = mg.Value(5.0, requires_grad=True), mg.Value(12.0, requires_grad=True)
    h = student.Hypot.apply(a, b)
    h.backward()
    expect(h.data == 13.0 and abs(a.grad - 5 / 13) < 1e-12 and abs(b.grad - 12 / 13) < 1e-12,
           f"Hypot(5, 12) = {show(h.data)} with gradients ({show(a.grad)}, {show(b.grad)}); "
           "expected 13 and (5/13, 12/13)")


def test_square_and_double_twice(student: ModuleType) -> None:
    x = mg.Value(0.5, requires_grad=True)
    y = student.SquareAndDouble.apply(student.SquareAndDouble.apply(x))  # 2(2x²)² = 8x⁴
    y.backward()
    expect(abs(y.data - 0.5) < 1e-12 and abs(x.grad - 4.0) < 1e-12,
           f"SquareAndDouble twice at 0.5 gives {show(y.data)} and x.grad {show(x.grad)}; "
           "expected 0.5 and 4.0")
