"""``micrograd2.tensors.creation``: ``tensor(data)``, ``zeros``, ``ones`` and ``full``, as PyTorch's factories.

It proves that ``tensor`` makes a float32 leaf on the CPU holding a copy of its data (numbers, nested lists,
arrays, Tensors, Values), takes a dtype on request and rejects bad data and dtypes clearly, and that ``zeros``,
``ones`` and ``full`` make leaves of the shape (given as several ints or one sequence), value and dtype asked for.
"""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.tensors import full, ones, zeros


def test_tensor_defaults_to_a_float32_leaf_on_cpu() -> None:
    t = mg.tensor([[1, 2], [3, 4]])
    assert isinstance(t, mg.Tensor) and isinstance(t, mg.autograd.Variable)
    assert t.dtype == "float32" and t.device == "cpu" and t.shape == (2, 2)
    assert t.is_leaf and not t.requires_grad and t.grad_fn is None and t.grad is None
    assert t.data.dtype == np.float32 and t.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_tensor_copies_its_data_and_takes_dtype_on_request() -> None:
    host = np.array([1.5, 2.5])
    t = mg.tensor(host, dtype="float64")
    host[0] = 0.0
    assert t.tolist() == [1.5, 2.5] and t.dtype == "float64"
    assert mg.tensor([0, 2], dtype="int64").dtype == "int64"
    assert mg.tensor([True], dtype="bool").dtype == "bool"
    assert mg.tensor(1.0, dtype="double").dtype == "float64"
    assert mg.Tensor([1.0]).dtype == "float32"


def test_tensor_of_a_tensor_and_of_numbers_in_lists() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor(a)
    assert b.tolist() == [1.0, 2.0] and not b.requires_grad
    assert mg.tensor([mg.tensor(3.0), mg.Value(4.0)]).tolist() == [3.0, 4.0]


def test_bad_data_and_dtype_are_rejected_clearly() -> None:
    with pytest.raises(TypeError, match="invalid data type 'str'"):  # PyTorch's words (tensors/nested.py)
        mg.tensor("abc")
    with pytest.raises(ValueError, match="unknown dtype"):
        mg.tensor([1.0], dtype="float8")


def test_zeros_and_ones_take_the_shape_as_ints_or_one_sequence() -> None:
    a, b = zeros(2, 3), ones((2, 3))
    assert a.shape == b.shape == (2, 3) and a.dtype == b.dtype == "float32"
    assert a.tolist() == [[0.0] * 3] * 2 and b.tolist() == [[1.0] * 3] * 2
    assert a.is_leaf and not a.requires_grad and a.grad_fn is None
    assert zeros(()).shape == () and zeros(0, 3).shape == (0, 3)


def test_full_fills_with_the_value_in_the_dtype_asked_for() -> None:
    assert full((2, 2), 7, dtype="int64").tolist() == [[7, 7], [7, 7]]
    assert full((2, 2), 7, dtype="int64").dtype == "int64"
    half = full((3,), 1.0 / 3.0, dtype="float16")
    assert half.dtype == "float16" and half.tolist() == [0.333251953125] * 3  # 1/3 rounded to float16


def test_a_factory_leaf_may_require_grad_if_it_is_float() -> None:
    w = ones(2, dtype="float64", requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    (w * w).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="(?s)Only Tensors of floating point.*What to do"):
        zeros(2, dtype="int64", requires_grad=True)
    with pytest.raises(ValueError, match="(?s)unknown dtype 'float8'.*What to do"):
        full((2,), 1.0, dtype="float8")
