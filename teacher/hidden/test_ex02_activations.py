"""Hidden tests of exercise U1.2, the activations' backward: saturated inputs, a value used
twice, never shown.  ``micrograd2 exercise check WORKSPACE --tests teacher/hidden U1.2`` grades
with them.
"""
from __future__ import annotations

from types import ModuleType

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, check_backward, load_student

pytestmark = [pytest.mark.u1, pytest.mark.u1_2]

SATURATED = [-40.0, -20.0, 20.0, 40.0]  # tanh and σ are ±1 or 0 in floats here


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("ex02_activations", __file__)


def saturated(student: ModuleType, name: str, builtin: str) -> None:
    fn = getattr(student, name).apply
    for x in SATURATED:
        try:
            check_backward(lambda a: fn(a) * 1.5, lambda a: getattr(a, builtin)() * 1.5, [x],
                           f"{builtin}(x) * 1.5 where {builtin} saturates")
        except (ValueError, ZeroDivisionError, OverflowError) as error:
            raise Mistake(f"{name}.backward at x = {x} raised {type(error).__name__} ({error}): "
                          f"where {builtin} saturates its output is exactly ±1 or 0, and the "
                          "derivative is still a number; write it from the saved output alone, "
                          "without recovering x") from None


def test_tanh_where_it_saturates(student: ModuleType) -> None:
    saturated(student, "Tanh", "tanh")


def test_sigmoid_where_it_saturates(student: ModuleType) -> None:
    saturated(student, "Sigmoid", "sigmoid")


def test_exp_far_below_zero(student: ModuleType) -> None:
    check_backward(lambda a: student.Exp.apply(a) * 2.0, lambda a: a.exp() * 2.0, [-800.0],
                   "exp(x) * 2 where exp underflows to 0")


def test_an_activation_used_twice_and_chained(student: ModuleType) -> None:
    def mine(a: mg.Value, b: mg.Value) -> mg.Value:
        t = student.Tanh.apply(a * b)
        return student.Sigmoid.apply(t * t + student.Exp.apply(t))

    def builtin(a: mg.Value, b: mg.Value) -> mg.Value:
        t = (a * b).tanh()
        return (t * t + t.exp()).sigmoid()

    check_backward(mine, builtin, [0.7, -1.1], "sigmoid(t*t + exp(t)) with t = tanh(a*b)")
