"""Hidden tests of exercise U1.1, Mul and Sum: a sample of what a teacher grades with, never shown.

``micrograd2 exercise check WORKSPACE --tests teacher/hidden`` grades with these instead of
the public tests.  They check the same Functions on graphs the public tests do not build.
"""
from __future__ import annotations

import random
from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, check_backward, load_student

pytestmark = [pytest.mark.u1, pytest.mark.u1_1]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex01_mul_sum", __file__)


def test_random_products_and_sums_match_the_builtin_walk(student: ModuleType) -> None:
    rng = random.Random(27)
    mul, add = student.Mul.apply, student.Sum.apply
    for _ in range(5):
        xs = [round(rng.uniform(-2, 2), 3) for _ in range(3)]
        check_backward(lambda a, b, c: mul(add(a, b, c), mul(a, c)) * -1.5,
                       lambda a, b, c: mg.sum([a, b, c]) * (a * c) * -1.5, xs,
                       "Sum(a, b, c) * (a * c) * -1.5")


def test_a_product_of_a_value_with_itself_three_times(student: ModuleType) -> None:
    mul = student.Mul.apply
    check_backward(lambda a: mul(mul(a, a), a), lambda a: (a * a) * a, [1.5], "(a * a) * a")


def test_a_product_with_a_zero_factor_has_gradients(student: ModuleType) -> None:
    mul = student.Mul.apply
    try:
        check_backward(lambda a, b: mul(a, b) * 2.0, lambda a, b: (a * b) * 2.0, [0.0, 3.0],
                       "(a * b) * 2 at a = 0")
    except ZeroDivisionError:
        raise Mistake("Mul.backward divided by zero for (a * b) * 2 at a = 0: a product has a "
                      "gradient at 0 too (∂(a·b)/∂a does not depend on a), so write it without "
                      "dividing by an input or by the output") from None
