"""Exercise U5.3 — Custom Functions that pass gradcheck: the public tests (the grader runs these, not your copy)."""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, check_backward, expect, load_student, show

pytestmark = [pytest.mark.u5, pytest.mark.u5_3]

NAME = "ex07_custom_function"


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student(NAME, __file__)


NOT_NONE = "returned a gradient different than None"  # the core's error for a plain-number input


def gradcheck(fn: Any, *xs: Any, plain: tuple[int, ...] = ()) -> None:
    """``mg.autograd.gradcheck(fn, inputs)``: each float becomes a Value that requires grad, except the
    inputs at the positions ``plain``, which stay plain numbers."""
    inputs = [mg.Value(x, requires_grad=True) if isinstance(x, float) and i not in plain else x
              for i, x in enumerate(xs)]
    at = tuple(getattr(x, "data", x) for x in inputs)
    name = getattr(fn, "__name__", "your function")
    try:
        mg.autograd.gradcheck(fn, inputs)
    except mg.autograd.GradcheckError as error:
        lines = str(error).splitlines()
        raise Mistake(f"gradcheck fails for {name} at {at}: {lines[0]} {' '.join(lines[1:3])}") from None
    except RuntimeError as error:
        if NOT_NONE not in str(error):
            raise
        raise Mistake(f"{name}.backward at {at} returned a gradient for an input that is a plain number: "
                      "return None for it (ctx.needs_input_grad[i] is False for such an input)") from None


# NOTE [The tests' own twins]
# The model solution is not installed, so the walk is compared with twins written here: the same two
# Functions, their derivatives taken another way (d(2x²)/dx as 2x + 2x; ∂h/∂a and ∂h/∂b as the cosine
# and sine of the angle of (a, b)).
class SquareAndDoubleTwin(mg.Function):
    node_name = "SquareAndDoubleBackward"

    @staticmethod
    def forward(ctx: Any, x: float) -> float:
        ctx.save_for_backward(x)
        return 2 * x ** 2

    @staticmethod
    def backward(ctx: Any, grad_output: float) -> float:
        (x,) = ctx.saved_tensors
        return grad_output * (2 * x + 2 * x)


class HypotTwin(mg.Function):
    node_name = "HypotBackward"

    @staticmethod
    def forward(ctx: Any, a: float, b: float) -> float:
        ctx.save_for_backward(a, b)
        return math.sqrt(a * a + b * b)

    @staticmethod
    def backward(ctx: Any, grad_output: float) -> tuple[float | None, float | None]:
        a, b = ctx.saved_tensors
        angle = math.atan2(b, a)
        need_a, need_b = ctx.needs_input_grad
        return (grad_output * math.cos(angle) if need_a else None,
                grad_output * math.sin(angle) if need_b else None)


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
    gradcheck(student.Hypot, 1.5, 2.0, plain=(1,))  # a plain-number input gets None
    gradcheck(student.Hypot, 2.0, -0.5, plain=(0,))
    x = mg.Value(3.0, requires_grad=True)
    student.Hypot.apply(x, x).backward()  # one input used twice: ∂/∂x √(2x²) = √2
    expect(abs(x.grad - 2 ** 0.5) < 1e-12, f"Hypot(x, x) at x = 3 gives x.grad = {show(x.grad)}, expected √2")


def test_backward_walk_matches_the_reference(student: ModuleType) -> None:
    check_backward(lambda a, b: student.Hypot.apply(student.SquareAndDouble.apply(a), b) * 2.0,
                   lambda a, b: HypotTwin.apply(SquareAndDoubleTwin.apply(a), b) * 2.0, [0.5, -1.5],
                   "Hypot(SquareAndDouble(a), b) * 2")


def test_saved_inputs_are_checked_for_in_place_changes(student: ModuleType) -> None:
    for name, apply in (("SquareAndDouble", lambda h: student.SquareAndDouble.apply(h)),
                        ("Hypot", lambda h: student.Hypot.apply(h, mg.Value(1.0)))):
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
