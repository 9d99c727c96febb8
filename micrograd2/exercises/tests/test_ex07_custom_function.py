"""Exercise 7 — Custom Functions that pass gradcheck: the pristine tests (the grader runs these, not your copy)."""
from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, check_backward, expect, load_student, reference, show

pytestmark = pytest.mark.ex7

NAME = "ex07_custom_function"


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student(NAME, __file__)


def gradcheck(fn: Any, *xs: Any) -> None:
    inputs = [mg.Value(x, requires_grad=True) if isinstance(x, float) else x for x in xs]
    try:
        mg.autograd.gradcheck(fn, inputs)
    except mg.autograd.GradcheckError as error:
        lines = str(error).splitlines()
        raise Mistake(f"gradcheck fails for {getattr(fn, '__name__', 'your function')} at "
                      f"{tuple(getattr(x, 'data', x) for x in inputs)}: {lines[0]} {' '.join(lines[1:3])}") from None


def test_square_and_double_gives_the_articles_numbers(student: ModuleType) -> None:
    x = mg.Value(3.0, requires_grad=True)
    y = student.SquareAndDouble.apply(x)
    y.backward()
    expect(y.data == 18.0 and x.grad == 12.0,
           f"y = {show(y.data)}, x.grad = {show(x.grad)}; the article's block 5 prints y = 18.0 | x.grad = 12.0")


def test_square_and_double_passes_gradcheck(student: ModuleType) -> None:
    for x in (-2.0, -0.5, 0.0, 1.25, 3.0):
        gradcheck(student.SquareAndDouble, x)


def test_hypot_passes_gradcheck(student: ModuleType) -> None:
    for a, b in ((3.0, 4.0), (-1.0, 2.0), (0.5, -0.25), (2.0, 0.0)):
        gradcheck(student.Hypot, a, b)
    gradcheck(student.Hypot, mg.Value(1.5, requires_grad=True), 2.0)  # a number input gets no gradient
    x = mg.Value(3.0, requires_grad=True)
    student.Hypot.apply(x, x).backward()  # one input used twice: ∂/∂x √(2x²) = √2
    expect(abs(x.grad - 2 ** 0.5) < 1e-12, f"Hypot(x, x) at x = 3 gives x.grad = {show(x.grad)}, expected √2")


def test_backward_walk_matches_the_reference(student: ModuleType) -> None:
    ref = reference(NAME)
    check_backward(lambda a, b: student.Hypot.apply(student.SquareAndDouble.apply(a), b) * 2.0,
                   lambda a, b: ref.Hypot.apply(ref.SquareAndDouble.apply(a), b) * 2.0, [0.5, -1.5],
                   "Hypot(SquareAndDouble(a), b) * 2")


def test_saved_inputs_are_checked_for_in_place_changes(student: ModuleType) -> None:
    for name, apply in (("SquareAndDouble", lambda h: student.SquareAndDouble.apply(h)),
                        ("Hypot", lambda h: student.Hypot.apply(h, 1.0))):
        x = mg.Value(3.0, requires_grad=True)
        h = x * 1.0
        y = apply(h)
        h.add_(1.0)  # changes the input after forward saved it
        try:
            y.backward()
        except RuntimeError as error:
            expect("modified by an inplace operation" in str(error), f"{name}: unexpected error {error}")
            continue
        raise Mistake(f"{name}: its input was changed in place after forward, yet backward ran silently with "
                      "the old number: keep inputs with ctx.save_for_backward(...), not as attributes of ctx")
