"""Hidden tests of exercise U4.4, forward mode: ints as plain numbers, a square Jacobian, an
output that is an input, never shown.  ``micrograd2 exercise check WORKSPACE --tests
teacher/hidden U4.4`` grades with them.
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, expect, load_student

pytestmark = [pytest.mark.u4, pytest.mark.u4_4]


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_forward_mode", __file__)


def test_ints_are_plain_numbers_too(student: ModuleType) -> None:
    D = student.Dual
    cases = [("Dual(2, 1) * 3", lambda: D(2.0, 1.0) * 3, 6.0, 3.0),
             ("3 * Dual(2, 1)", lambda: 3 * D(2.0, 1.0), 6.0, 3.0),
             ("Dual(2, 1) + 1", lambda: D(2.0, 1.0) + 1, 3.0, 1.0),
             ("1 + Dual(2, 1)", lambda: 1 + D(2.0, 1.0), 3.0, 1.0)]
    for text, make, value, tangent in cases:
        try:
            got = make()
        except (AttributeError, TypeError) as error:
            raise Mistake(f"{text} raised {type(error).__name__} ({error}): an int is a plain "
                          "number too, a Dual with tangent 0; test `isinstance(other, Dual)`, "
                          "not `isinstance(other, float)`") from None
        expect(math.isclose(got.value, value) and math.isclose(got.tangent, tangent),
               f"{text} = {got!r}, expected Dual({value}, {tangent})")


def f(a: Any, b: Any) -> list[Any]:
    """f: R^2 -> R^2 with int constants: (2ab + 1, exp(tanh(b)) + a); and a itself as an output."""
    return [2 * a * b + 1, (b.tanh()).exp() + a, a]


def test_a_square_jacobian_with_an_input_as_output(student: ModuleType) -> None:
    xs = [0.6, -0.4]
    leaves = [mg.Value(x, requires_grad=True) for x in xs]
    want = []
    for out in f(*leaves):
        grads = mg.autograd.grad(out, leaves, retain_graph=True, allow_unused=True)
        want.append([0.0 if g is None else float(g) for g in grads])
    for name in ("jacobian_forward", "jacobian_reverse"):
        try:
            got = getattr(student, name)(f, xs)
        except (AttributeError, TypeError) as error:
            raise Mistake(f"{name} of f(a, b) = (2ab + 1, exp(tanh b) + a, a) raised "
                          f"{type(error).__name__} ({error}): ints are plain numbers too") from None
        ok = len(got) == 3 and all(len(row) == 2 and all(math.isclose(float(g), w, abs_tol=1e-12)
                                                         for g, w in zip(row, w_row))
                                   for row, w_row in zip(got, want))
        expect(ok, f"{name} of f(a, b) = (2ab + 1, exp(tanh b) + a, a) at {xs} gave {got}, "
                   f"expected {want}")
