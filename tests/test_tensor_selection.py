"""tensors/selection.py: where, maximum/minimum and masked_fill, the gradient to the side chosen (no torch needed)."""
from __future__ import annotations

import math

import pytest

import micrograd2 as mg


def test_where_sends_each_side_its_gradient() -> None:
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = mg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    out = mg.where(x > 0, x * 2, y)
    assert out.tolist() == [2.0, 20.0, 6.0] and out.grad_fn.name() == "WhereBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0] and y.grad.tolist() == [0.0, 1.0, 0.0]
    assert x.where(x < 0, 0.0).tolist() == [0.0, -2.0, 0.0]
    with pytest.raises(RuntimeError, match="boolean"):
        mg.where(x, x, y)


def test_maximum_splits_a_tie_and_passes_nan_to_both() -> None:
    a = mg.tensor([1.0, 5.0, 2.0, math.nan], requires_grad=True)
    b = mg.tensor([3.0, 4.0, 2.0, 0.0], requires_grad=True)
    out = mg.maximum(a, b)
    assert out.tolist()[:3] == [3.0, 5.0, 2.0] and math.isnan(out.tolist()[3])
    out.sum().backward()
    assert a.grad.tolist() == [0.0, 1.0, 0.5, 1.0] and b.grad.tolist() == [1.0, 0.0, 0.5, 1.0]
    assert mg.minimum(a, b).tolist()[:3] == [1.0, 4.0, 2.0]
    with pytest.raises(TypeError, match="must be Tensor"):
        mg.maximum(a, 1.0)


def test_masked_fill_and_its_in_place_form() -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = x.masked_fill(mg.tensor([True, False], dtype="bool"), -1.0)  # the mask broadcasts
    assert out.tolist() == [[-1.0, 2.0], [-1.0, 4.0]] and out.grad_fn.name() == "MaskedFillBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [0.0, 1.0]]
    v = mg.tensor(5.0, requires_grad=True)
    out = (x * 1.0).masked_fill(x > 2, v)
    assert out.grad_fn.name() == "MaskedFillBackward1"
    out.sum().backward()
    assert v.grad.item() == 2.0
    y = x.detach().clone()
    assert y.masked_fill_(y > 3, 0.0) is y and y.tolist() == [[1.0, 2.0], [3.0, 0.0]]
    with pytest.raises(RuntimeError, match="boolean masks"):
        x.masked_fill(mg.tensor([1.0, 0.0]), 0.0)
