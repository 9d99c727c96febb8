"""Rules PyTorch enforces on Tensors, checked without torch (tests/parity/ compares them with torch itself):
views and copies, indexing steps, integer Tensors, reductions over NaN, cross-entropy's options."""
from __future__ import annotations

import math

import numpy as np
import pytest

import micrograd2 as mg


def _names(node, depth=3):
    out = []
    while node is not None and depth:
        out.append(node.name())
        nxt = [n for n, _ in node.next_functions if n is not None]
        node = nxt[0] if nxt else None
        depth -= 1
    return out


def test_reshape_copies_a_non_contiguous_tensor_and_view_refuses() -> None:
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    assert _names(x.reshape(3, 2).grad_fn, 1) == ["ViewBackward0"]
    assert _names(x.T.reshape(6).grad_fn) == ["UnsafeViewBackward0", "CloneBackward0", "PermuteBackward0"]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.T.view(6)
    x.T.reshape(6).sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2


def test_each_index_step_is_its_own_node_and_negative_steps_are_refused() -> None:
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    assert _names(x[0, 1].grad_fn) == ["SelectBackward0", "SelectBackward0", "AccumulateGrad"]
    assert _names(x[1:, 0].grad_fn) == ["SelectBackward0", "SliceBackward0", "AccumulateGrad"]
    x[1, 2].backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[:, ::-1]


def test_detach_in_place_is_refused_on_a_view() -> None:
    y = mg.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        y[0:2].detach_()


def test_integer_tensors() -> None:
    x = mg.tensor([1.5, 2.5], requires_grad=True)
    assert not x.long().requires_grad and x.long().grad_fn is None
    i = mg.tensor([1, 2], dtype="int64")
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        i.mean()
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        i += 1.5
    assert (2 ** i).dtype == "int64" and (2 ** i).tolist() == [2, 4]
    assert (mg.tensor([True], dtype="bool") + 1).dtype == "int64"
    assert mg.tensor(np.arange(6.0).reshape(2, 3)).sum(()).item() == 15.0


def test_max_and_amax_over_a_nan() -> None:
    x = mg.tensor([1.0, math.nan, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]  # the NaN is the maximum
    y = mg.tensor([1.0, math.nan, 3.0], requires_grad=True)
    y.amax(0).backward()
    assert all(math.isnan(g) for g in y.grad.tolist())  # (g / 0)·mask, as PyTorch


def test_cross_entropy_options() -> None:
    logits = mg.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], dtype="float64", requires_grad=True)
    F = mg.nn.functional
    one = F.cross_entropy(logits[0:1], mg.tensor([1], dtype="int64")).item()
    assert F.cross_entropy(logits, mg.tensor([1, -100], dtype="int64")).item() == pytest.approx(one)
    smooth = F.cross_entropy(logits, mg.tensor([1, 2], dtype="int64"), label_smoothing=0.0).item()
    assert F.cross_entropy(logits, mg.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype="float64")).item() == \
        pytest.approx(smooth)
    cube = mg.tensor(np.arange(12.0).reshape(2, 3, 2) / 5, dtype="float64")
    assert F.cross_entropy(cube, mg.tensor([[0, 2], [1, 1]], dtype="int64")).shape == ()


def test_grad_is_accumulated_in_place() -> None:
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    (p * 3).sum().backward()
    g = p.grad
    (p * 3).sum().backward()
    assert p.grad is g and g.tolist() == [6.0, 6.0]
    mg.optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad is g and g.tolist() == [0.0, 0.0]


def test_grad_of_another_shape_or_dtype_is_refused() -> None:
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient of size"):
        p.grad = mg.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
        p.grad = mg.tensor([1.0, 2.0], dtype="float64")


def test_a_hook_may_not_change_the_gradients_shape_or_dtype() -> None:
    for data, dtype, phrase in (([1.0, 2.0, 3.0], "float32", "changed the size"),
                                ([1.0, 2.0], "float64", "changed the type")):
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g, data=data, dtype=dtype: mg.tensor(data, dtype=dtype))
        with pytest.raises(RuntimeError, match=phrase):
            (x * 2).sum().backward()
