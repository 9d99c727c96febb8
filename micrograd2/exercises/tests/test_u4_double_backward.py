"""U4.1 — Double backward: the public tests (the grader runs these, not your copy).

Each derivative is checked against central differences: the first derivative of f, and the second
as differences of the first; ``hvp`` also against ``torch.autograd.functional.hvp``, live, where
torch is installed.
"""
from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Callable

import pytest

import micrograd2 as mg
from micrograd2.exercises.harness import Mistake, expect, load_student, show

pytestmark = [pytest.mark.u4, pytest.mark.u4_1]

STEP = 1e-5
POINTS = (-2.0, -0.7, 0.0, 0.4, 1.3, 2.5)
PLAIN_NUMBERS = ("your backward used plain numbers: the second derivative is lost; write it with "
                 "Value ops")


@pytest.fixture(scope="module")
def student() -> ModuleType:
    return load_student("u4_double_backward", __file__)


def close(got: float, expected: float, tol: float = 1e-5) -> bool:
    return math.isclose(got, expected, rel_tol=tol, abs_tol=tol)


def derivative(fn: Any, x: float, create_graph: bool = False) -> Any:
    """d fn(x)/dx from the student's backward (a Value with create_graph, else a float)."""
    leaf = mg.Value(x, requires_grad=True)
    try:
        (d,) = mg.autograd.grad(fn.apply(leaf), leaf, create_graph=create_graph)
    except AttributeError as error:
        if "'float' object" not in str(error):
            raise
        raise Mistake(f"{fn.__name__}'s backward at x = {show(x)}: {error}: without "
                      "create_graph a backward receives plain floats, so call your sin, cos "
                      "and exp, which work on floats and on Values") from None
    return d


def second_derivative(fn: Any, x: float, name: str) -> float:
    """d²fn/dx² by double backward, with the diagnosis when the backward recorded nothing."""
    leaf = mg.Value(x, requires_grad=True)
    (d,) = mg.autograd.grad(fn.apply(leaf), leaf, create_graph=True)
    expect(isinstance(d, mg.Value) and d.grad_fn is not None,
           f"{name}: with create_graph=True its gradient at x = {show(x)} is {d!r}, with no "
           f"grad_fn: {PLAIN_NUMBERS} (sin, cos, exp above; never math.* on a Value, never .data)")
    (dd,) = mg.autograd.grad(d, leaf, allow_unused=True)
    return 0.0 if dd is None else float(dd)


def check_function(fn: Any, name: str, value: Callable[[float], float]) -> None:
    """Forward, first and second derivative of the Function ``fn`` against ``value`` and central
    differences; the plain-numbers diagnosis when only the second derivative is wrong."""
    for x in POINTS:
        got = fn.apply(mg.Value(x)).data
        expect(close(got, value(x), 1e-12), f"{name}.forward({show(x)}) = {show(got)}, "
               f"expected {show(value(x))}")
        first = float(derivative(fn, x))
        numeric = (value(x + STEP) - value(x - STEP)) / (2 * STEP)
        expect(close(first, numeric), f"{name}'s derivative at x = {show(x)} is {show(first)}; "
               f"central differences give {show(numeric)}")
        second = second_derivative(fn, x, name)
        numeric2 = (float(derivative(fn, x + STEP)) - float(derivative(fn, x - STEP))) / (2 * STEP)
        expect(close(second, numeric2, 1e-4),
               f"{name}: its first derivative is right, but its second at x = {show(x)} is "
               f"{show(second)}, while differences of the first give {show(numeric2)}: "
               f"{PLAIN_NUMBERS} (a math.* call or .data turned a Value into a constant)")


def test_sin_cos_exp_record_on_values_and_compute_on_floats(student: ModuleType) -> None:
    for name, reference in (("sin", math.sin), ("cos", math.cos), ("exp", math.exp)):
        fn = getattr(student, name)
        got = fn(0.3)
        expect(isinstance(got, float) and close(got, reference(0.3), 1e-12),
               f"{name}(0.3) = {got!r}, expected the float {reference(0.3)!r}")
        x = mg.Value(0.3, requires_grad=True)
        out = fn(x)
        expect(isinstance(out, mg.Value) and out.grad_fn is not None,
               f"{name}(Value) gave {out!r}, not a recorded Value: {PLAIN_NUMBERS} "
               f"(on a Value call its own method, x.{name}())")
        expect(close(out.data, reference(0.3), 1e-12), f"{name}(Value(0.3)) = {show(out.data)}")


def test_xsin_first_and_second_derivatives(student: ModuleType) -> None:
    check_function(student.XSin, "XSin", lambda x: x * math.sin(x))


def test_softplus_first_and_second_derivatives(student: ModuleType) -> None:
    check_function(student.Softplus, "Softplus", lambda x: math.log1p(math.exp(x)))


def test_xsin_is_one_node_whose_backward_is_recorded(student: ModuleType) -> None:
    x = mg.Value(0.9, requires_grad=True)
    y = student.XSin.apply(x)
    expect(y.grad_fn is not None and y.grad_fn.name() == "XSinBackward",
           f"XSin.apply(x) should make one XSinBackward node, got {y.grad_fn!r}")
    (d,) = mg.autograd.grad(y, x, create_graph=True)
    (d3,) = mg.autograd.grad(mg.autograd.grad(d, x, create_graph=True)[0], x)  # third derivative
    expected = -3 * math.sin(0.9) - 0.9 * math.cos(0.9)
    expect(close(float(d3), expected), f"XSin's third derivative at 0.9 is {show(d3)}, expected "
           f"{show(expected)}: write the backward in Value ops only")


def f_mixed(a: Any, b: Any, c: Any) -> Any:
    """A function of three inputs with mixed second derivatives (reference ops only)."""
    return (a * b).tanh() + b.exp() * c + a * a * c


def test_hvp_matches_finite_differences_of_the_gradient(student: ModuleType) -> None:
    def gradient(xs: list[float]) -> list[float]:
        leaves = [mg.Value(x, requires_grad=True) for x in xs]
        return [float(g) for g in mg.autograd.grad(f_mixed(*leaves), leaves)]

    for xs, vs in (([0.3, -0.5, 1.2], [1.0, 0.0, 0.0]), ([0.3, -0.5, 1.2], [0.5, -2.0, 1.5]),
                   ([-1.0, 0.8, 0.1], [0.0, 1.0, -1.0])):
        got = student.hvp(f_mixed, xs, vs)
        plus = gradient([x + STEP * v for x, v in zip(xs, vs)])
        minus = gradient([x - STEP * v for x, v in zip(xs, vs)])
        expected = [(p - m) / (2 * STEP) for p, m in zip(plus, minus)]
        expect(isinstance(got, (list, tuple)) and len(got) == 3,
               f"hvp should return one float per input, got {got!r}")
        lost = all(float(g) == 0.0 for g in got) and any(abs(e) > 1e-3 for e in expected)
        expect(all(close(float(g), e, 1e-4) for g, e in zip(got, expected)),
               f"hvp at x = {xs}, v = {vs} gave {[show(g) for g in got]}; differences of the "
               f"gradient along v give {[show(e) for e in expected]}"
               + (": every entry is 0, as if the gradient were a constant: take it with "
                  "create_graph=True, so that g·v has a graph to differentiate" if lost else ""))


def test_hvp_through_your_own_functions_and_a_linear_input(student: ModuleType) -> None:
    def f(a: Any, b: Any) -> Any:
        return student.XSin.apply(a) * b + student.Softplus.apply(b)

    got = student.hvp(f, [0.7, -0.4], [1.0, 2.0])
    h_aa = 2 * math.cos(0.7) - 0.7 * math.sin(0.7)
    h_ab = math.sin(0.7) + 0.7 * math.cos(0.7)
    s = 1 / (1 + math.exp(0.4))
    h_bb = s * (1 - s)
    expected = [h_aa * -0.4 + h_ab * 2.0, h_ab * 1.0 + h_bb * 2.0]
    expect(all(close(float(g), e) for g, e in zip(got, expected)),
           f"hvp of XSin(a)·b + Softplus(b) at (0.7, -0.4), v = (1, 2) gave "
           f"{[show(g) for g in got]}, expected {[show(e) for e in expected]}")
    linear = student.hvp(lambda a, b: a * 3.0 + b, [1.0, 2.0], [1.0, 1.0])
    expect(list(map(float, linear)) == [0.0, 0.0],
           f"hvp of a linear function should be [0.0, 0.0] (its Hessian is 0), got {linear!r}")


def test_hvp_matches_torch(student: ModuleType) -> None:
    xs, vs = [0.3, -0.5, 1.2], [0.5, -2.0, 1.5]
    got = student.hvp(f_mixed, xs, vs)
    torch = pytest.importorskip("torch")

    def f_torch(x: Any) -> Any:
        a, b, c = x[0], x[1], x[2]
        return torch.tanh(a * b) + torch.exp(b) * c + a * a * c

    x = torch.tensor(xs, dtype=torch.float64)
    _, expected = torch.autograd.functional.hvp(f_torch, x, torch.tensor(vs, dtype=torch.float64))
    want = expected.tolist()
    if not all(close(float(g), e, 1e-9) for g, e in zip(got, want)):
        raise Mistake(f"hvp at x = {xs}, v = {vs} gave {[show(g) for g in got]}; "
                      f"torch.autograd.functional.hvp gives {[show(e) for e in want]}")
