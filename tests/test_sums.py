"""``micrograd2.scalar.sums``: ``sum`` and ``dot`` are one node each (PyTorch's names), with one gradient per
input matching central differences, keep only what their backward needs, add up correctly rounded, and are
the same classes ``ops`` re-exports."""
from __future__ import annotations

import math

import pytest
from conftest import central_difference

import micrograd2 as mg
from micrograd2.scalar import ops, sums


def test_sum_and_dot_are_one_node_each_with_gradient_per_input() -> None:
    w = [mg.Value(v, requires_grad=True) for v in (1.0, -2.0, 3.0)]
    x = [mg.Value(v, requires_grad=True) for v in (0.5, 0.25, -1.0)]
    b = mg.Value(0.1, requires_grad=True)
    y = mg.dot(w, x, b)
    assert y.grad_fn.name() == "DotBackward0"
    assert len(y.grad_fn.next_functions) == 7
    assert y.data == pytest.approx(0.5 - 0.5 - 3.0 + 0.1)
    y.backward()
    assert [v.grad for v in w] == [0.5, 0.25, -1.0]
    assert [v.grad for v in x] == [1.0, -2.0, 3.0]
    assert b.grad == 1.0
    s = mg.sum(w)
    assert s.grad_fn.name() == "SumBackward0" and len(s.grad_fn.next_functions) == 3


def test_dot_gradients_match_central_differences() -> None:
    point = [0.7, -1.3, 0.4, 2.1, -0.6]  # w0, w1, x0, x1, bias

    def f(w0: float, w1: float, x0: float, x1: float, bias: float) -> float:
        return math.tanh(w0 * x0 + w1 * x1 + bias)

    inputs = [mg.Value(v, requires_grad=True) for v in point]
    mg.dot(inputs[:2], inputs[2:4], inputs[4]).tanh().backward()
    for i, v in enumerate(inputs):
        assert v.grad == pytest.approx(central_difference(f, point, i), rel=1e-6)


def test_sum_gradients_match_central_differences() -> None:
    point = [0.3, -0.8, 1.9]

    def f(a: float, b: float, c: float) -> float:
        return (a + b + c) ** 2

    inputs = [mg.Value(v, requires_grad=True) for v in point]
    (mg.sum(inputs) ** 2).backward()
    for i, v in enumerate(inputs):
        assert v.grad == pytest.approx(central_difference(f, point, i), rel=1e-6)


def test_dot_keeps_x_only_for_a_w_that_needs_a_gradient() -> None:
    w = mg.Value(2.0, requires_grad=True)
    y = sums.Dot.apply(w, mg.Value(3.0))
    kept_w, kept_x = y.grad_fn.saved_tensors
    assert kept_w is None and kept_x.data == 3.0  # w's gradient needs x; nothing needs w
    y.backward()
    assert w.grad == 3.0


def test_dot_backward_recorded_gives_second_derivatives() -> None:
    w, x = mg.Value(1.5, requires_grad=True), mg.Value(-2.0, requires_grad=True)
    y = mg.dot([w], [x]) * mg.dot([w], [x])  # (w·x)²
    (dy_dw,) = mg.autograd.grad(y, [w], create_graph=True)
    assert dy_dw.data == 2 * 1.5 * (-2.0) ** 2
    dy_dw.backward()
    assert x.grad == 4 * 1.5 * -2.0  # ∂/∂x of 2·w·x²


def test_the_sum_is_correctly_rounded_whatever_the_order() -> None:
    assert sums._exact_sum([1e16, 1.0, -1e16]) == 1.0 and sum([1e16, 1.0, -1e16]) == 0.0
    assert mg.sum([mg.Value(1e16), mg.Value(1.0, requires_grad=True), mg.Value(-1e16)]).data == 1.0


def test_the_sum_gives_ieee_inf_and_nan_where_fsum_would_raise() -> None:
    assert sums._exact_sum([1e308, 1e308]) == math.inf  # fsum: OverflowError
    assert math.isnan(sums._exact_sum([math.inf, -math.inf]))  # fsum: ValueError
    assert sums._exact_sum([math.inf, 1.0]) == math.inf


def test_autocast_runs_dot_in_float16_and_sum_in_float32() -> None:
    w = mg.Value(0.1, requires_grad=True, dtype="float32")
    with mg.autocast(dtype="float16"):
        assert mg.dot([w], [1.0]).dtype == "float16"
        assert mg.sum([w, w]).dtype == "float32"


def test_ops_re_exports_the_same_classes_and_their_nodes_keep_pytorchs_names() -> None:
    assert (ops.Sum, ops.Dot, ops._exact_sum) == (sums.Sum, sums.Dot, sums._exact_sum)
    assert sums.Sum._node_class.__name__ == "SumBackward0" and sums.Dot._node_class.__name__ == "DotBackward0"
    assert sums.Dot._node_class.__module__ == "micrograd2.scalar.sums"
