"""Every scalar op: its value, and its gradient against central differences."""
from __future__ import annotations

import math

import pytest
from conftest import central_difference

import micrograd2 as mg

# name -> (function on Values, the same function on floats, points to check)
UNARY = {
    "neg": (lambda a: -a, lambda a: -a, [1.5, -2.0]),
    "exp": (lambda a: a.exp(), math.exp, [0.3, -1.2]),
    "log": (lambda a: a.log(), math.log, [0.5, 3.0]),
    "tanh": (lambda a: a.tanh(), math.tanh, [0.2, -0.9]),
    "relu": (lambda a: a.relu(), lambda a: max(a, 0.0), [1.3, -0.4]),
    "sigmoid": (lambda a: a.sigmoid(), lambda a: 1 / (1 + math.exp(-a)), [0.7, -2.5]),
    "sqrt": (lambda a: a.sqrt(), math.sqrt, [0.25, 4.0]),
    "abs": (lambda a: a.abs(), abs, [1.5, -0.5]),
    "pow_number": (lambda a: a**3, lambda a: a**3, [1.5, -0.7]),
    "pow_fraction": (lambda a: a**0.5, lambda a: a**0.5, [2.0]),
    "rpow": (lambda a: 2.0**a, lambda a: 2.0**a, [0.5, -1.5]),
    "rsub": (lambda a: 3.0 - a, lambda a: 3.0 - a, [1.0]),
    "rdiv": (lambda a: 3.0 / a, lambda a: 3.0 / a, [1.5, -2.0]),
    "add_number": (lambda a: a + 2.5, lambda a: a + 2.5, [1.0]),
    "mul_number": (lambda a: a * 2.5, lambda a: a * 2.5, [1.0]),
    "to_float32": (lambda a: a.float(), lambda a: a, [0.5]),
}

BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "pow": (lambda a, b: a**b, lambda a, b: a**b),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_op_value_and_gradient_match_central_difference(name: str) -> None:
    f_value, f_float, points = UNARY[name]
    for x0 in points:
        x = mg.Value(x0, requires_grad=True)
        y = f_value(x)
        assert y.data == pytest.approx(f_float(x0), rel=1e-12)
        y.backward()
        assert x.grad == pytest.approx(central_difference(f_float, [x0], 0), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_op_value_and_gradients_match_central_difference(name: str) -> None:
    f_value, f_float = BINARY[name]
    a, b = mg.Value(1.7, requires_grad=True), mg.Value(0.6, requires_grad=True)
    y = f_value(a, b)
    assert y.data == pytest.approx(f_float(1.7, 0.6), rel=1e-12)
    y.backward()
    assert a.grad == pytest.approx(central_difference(f_float, [1.7, 0.6], 0), rel=1e-6)
    assert b.grad == pytest.approx(central_difference(f_float, [1.7, 0.6], 1), rel=1e-6)


def test_dot_rejects_sequences_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        mg.dot([mg.Value(1.0)], [1.0, 2.0])


def test_sum_of_plain_numbers_is_a_constant_value() -> None:
    s = mg.sum([1, 2.5])
    assert s.data == 3.5 and s.is_leaf and not s.requires_grad


@pytest.mark.parametrize(
    "expr, expected",
    [
        (lambda: mg.Value(0.0).log(), -math.inf),
        (lambda: mg.Value(-1.0).log(), math.nan),
        (lambda: 1 / mg.Value(0.0), math.inf),
        (lambda: -1 / mg.Value(0.0), -math.inf),
        (lambda: mg.Value(0.0) / mg.Value(0.0), math.nan),
        (lambda: mg.Value(1000.0).exp(), math.inf),
        (lambda: mg.Value(-1.0).sqrt(), math.nan),
        (lambda: mg.Value(-8.0) ** (1 / 3), math.nan),
        (lambda: mg.Value(0.0) ** -1, math.inf),
        (lambda: mg.Value(-1000.0).sigmoid(), 0.0),
    ],
)
def test_math_follows_ieee_like_pytorch_never_raising(expr, expected) -> None:
    result = expr().data
    if math.isnan(expected):
        assert math.isnan(result)
    else:
        assert result == expected


def test_sqrt_gradient_at_zero_is_inf_and_relu_gradient_at_zero_is_zero() -> None:
    x = mg.Value(0.0, requires_grad=True)
    x.sqrt().backward()
    assert x.grad == math.inf
    y = mg.Value(0.0, requires_grad=True)
    y.relu().backward()
    assert y.grad == 0.0


def test_pow_of_two_values_at_zero_base_has_zero_exponent_gradient() -> None:
    x, y = mg.Value(0.0, requires_grad=True), mg.Value(2.0, requires_grad=True)
    (x**y).backward()
    assert x.grad == 0.0 and y.grad == 0.0
