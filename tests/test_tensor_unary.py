"""``micrograd2.tensors.unary``: the elementwise functions of one variable and their derivatives.

It proves the values that a table of values and gradients (the catalogue in ``test_tensor_ops.py``) does not
reach: PyTorch's conventions at the kinks and edges (``relu`` and ``abs`` have derivative 0 at 0, ``sqrt``'s is
inf at 0, ``log`` of 0 is -inf), that an integer input gives a float result, and that ``tanh``, ``sigmoid``, ``exp``
and ``sqrt`` keep their output for backward (so changing it in place is caught).
"""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

UNARY = ["relu", "abs", "sqrt", "log", "exp", "tanh", "sigmoid"]


def _value_and_gradient(name: str, xs: list[float]) -> tuple[list[float], list[float]]:
    x = mg.tensor(xs, requires_grad=True, dtype="float64")
    getattr(x, name)().sum().backward()
    return getattr(x, name)().tolist(), x.grad.tolist()


def test_pytorchs_conventions_at_the_kinks_and_edges() -> None:
    assert _value_and_gradient("relu", [0.0, -1.0, 2.0]) == ([0.0, 0.0, 2.0], [0.0, 0.0, 1.0])
    assert _value_and_gradient("abs", [0.0, -1.0, 2.0]) == ([0.0, 1.0, 2.0], [0.0, -1.0, 1.0])
    assert _value_and_gradient("sqrt", [0.0, 4.0]) == ([0.0, 2.0], [float("inf"), 0.25])
    assert _value_and_gradient("log", [0.0, 1.0]) == ([float("-inf"), 0.0], [float("inf"), 1.0])


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("name", UNARY)
def test_values_and_gradients_at_zero_one_and_the_extremes_match_torch(name: str) -> None:
    xs = [0.0, 1.0, 40.0, -40.0, 1e-300] if name not in ("sqrt", "log") else [0.0, 1.0, 40.0, 1e-300]
    value, grad = _value_and_gradient(name, xs)
    t = torch.tensor(xs, requires_grad=True, dtype=torch.float64)
    getattr(t, name)().sum().backward()
    np.testing.assert_allclose(value, getattr(t, name)().tolist(), rtol=1e-15)
    np.testing.assert_allclose(grad, t.grad.tolist(), rtol=1e-15)


def test_an_integer_input_gives_a_float_result_where_pytorch_does() -> None:
    i = mg.tensor([1, 4], dtype="int64")
    for name in ("exp", "log", "tanh", "sigmoid", "sqrt"):
        assert getattr(i, name)().dtype == "float32", name
    assert i.sqrt().tolist() == [1.0, 2.0]
    assert i.abs().dtype == "int64" and i.relu().dtype == "int64"  # these keep integers, as torch's


@pytest.mark.parametrize("name, node", [("exp", "ExpBackward0"), ("tanh", "TanhBackward0"),
                                        ("sigmoid", "SigmoidBackward0"), ("sqrt", "SqrtBackward0")])
def test_an_output_kept_for_backward_is_watched_for_in_place_changes(name: str, node: str) -> None:
    x = mg.tensor([1.0], requires_grad=True)
    y = getattr(x, name)()
    assert y.grad_fn.name() == node
    with mg.no_grad():
        y.add_(1.0)
    op = node.removesuffix("Backward0")  # PyTorch names the op: "output 0 of Exp"
    with pytest.raises(RuntimeError, match=f"modified by an inplace operation.*output 0 of {op},"):
        y.sum().backward()
