"""``mg.autograd.functional.jacobian`` (autograd/functional.py), without torch."""
from __future__ import annotations

import math

import pytest

import micrograd2 as mg

jacobian = mg.autograd.functional.jacobian


def test_value_function():
    j = jacobian(lambda x: x.sin(), mg.Value(0.5))
    assert j.data == math.cos(0.5) and j.grad_fn is None


def test_tensor_function_shape_and_values():
    j = jacobian(lambda x: x * x, mg.tensor([1.0, 2.0, 3.0], dtype="float64"))
    assert j.tolist() == [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]


def test_inputs_are_left_alone():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    jacobian(lambda v: v * 3, x)
    assert x.grad is None


def test_unused_input_gives_zeros_and_strict_refuses():
    a, b = mg.Value(1.0), mg.Value(2.0)
    assert [v.data for v in jacobian(lambda x, y: x * 2, (a, b))] == [2.0, 0.0]
    with pytest.raises(RuntimeError, match="independent of input 1"):
        jacobian(lambda x, y: x * 2, (a, b), strict=True)


def test_create_graph_records_it():
    x = mg.Value(1.5, requires_grad=True)
    j = jacobian(lambda v: v * v * v, x, create_graph=True)
    j.backward()
    assert j.data == 6.75 and x.grad == 9.0


def test_refuses_what_is_not_a_variable():
    with pytest.raises(TypeError, match="What to do"):
        jacobian(lambda v: v, 1.0)
    with pytest.raises(ValueError, match="What to do"):
        jacobian(lambda v: v, mg.Value(1.0), strategy="forward-mode")
