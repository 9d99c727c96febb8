"""tensors/joining.py: cat and stack, one node each, each input's gradient its own part (no torch needed)."""
from __future__ import annotations

import pytest

import micrograd2 as mg
from micrograd2.autograd import grad as autograd_grad


def test_cat_joins_along_dim_and_slices_the_gradient_back() -> None:
    a = mg.tensor([[1.0, 2.0]], requires_grad=True)
    b = mg.tensor([[3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    y = mg.cat([a, b])
    assert y.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] and y.grad_fn.name() == "CatBackward0"
    (y * mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    assert a.grad.tolist() == [[1.0, 2.0]] and b.grad.tolist() == [[3.0, 4.0], [5.0, 6.0]]
    assert mg.cat([a, a], dim=-1).shape == (1, 4)


def test_cat_skips_a_1d_empty_tensor_and_promotes_dtypes() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    empty = mg.tensor([], requires_grad=True)
    y = mg.cat([a, empty, mg.tensor([3.0], dtype="float64")])
    assert y.dtype == "float64" and y.tolist() == [1.0, 2.0, 3.0]
    y.sum().backward()
    assert a.grad.dtype == "float32" and a.grad.tolist() == [1.0, 1.0] and empty.grad.shape == (0,)


def test_stack_adds_an_axis_and_second_derivatives_flow() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True, dtype="float64")
    y = mg.stack([a * a, a], dim=1)
    assert y.shape == (2, 2) and y.grad_fn.name() == "StackBackward0"
    (g,) = autograd_grad(y.sum(), [a], create_graph=True)
    assert g.tolist() == [3.0, 5.0]  # 2a + 1
    (gg,) = autograd_grad(g.sum(), [a])
    assert gg.tolist() == [2.0, 2.0]


def test_joining_refuses_what_torch_refuses() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        mg.cat([])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        mg.cat([mg.tensor([[1.0, 2.0]]), mg.tensor([[1.0]])])
    with pytest.raises(RuntimeError, match="zero-dimensional"):
        mg.cat([mg.tensor(1.0)])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        mg.stack([mg.tensor([1.0]), mg.tensor([1.0, 2.0])])
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        mg.stack([mg.tensor([1.0]), [1.0]])
