"""``micrograd2.tensors.tensor_hooks``: a Tensor's hook sees its gradient, a Tensor, may replace it, and may
not change its shape or dtype (PyTorch's errors, each with micrograd2's "What to do" line); while a backward
pass is recorded the hook gets the recorded Tensor."""
from __future__ import annotations

from typing import Any

import pytest

import micrograd2 as mg
from micrograd2.tensors.tensor import Tensor
from micrograd2.tensors.tensor_hooks import TensorHook


def test_the_hook_gets_the_gradient_tensor_and_its_result_replaces_it() -> None:
    seen: list[Any] = []
    hook = TensorHook(lambda g: seen.append(g) or g * 2, Tensor)
    g = mg.tensor([1.0, 3.0], dtype="float64")
    out = hook(g)
    assert seen[0] is g
    assert isinstance(out, Tensor) and out.dtype == "float64" and out.tolist() == [2.0, 6.0]


def test_a_hook_returning_none_leaves_the_gradient_to_the_engine() -> None:
    assert TensorHook(lambda g: None, Tensor)(mg.tensor([1.0, 1.0])) is None


def test_a_hook_that_replaces_the_gradient_changes_the_leafs_grad() -> None:
    x = mg.tensor([1.0, -1.0], requires_grad=True, dtype="float64")
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    assert x.grad.tolist() == [20.0, -20.0] and x.grad.dtype == "float64"


@pytest.mark.parametrize("data, dtype, phrase", [([1.0, 2.0, 3.0], "float32", "has changed the size of value"),
                                                 ([1.0, 2.0], "float64", "has changed the type of value")])
def test_a_hook_may_not_change_the_shape_or_dtype(data: list[float], dtype: str, phrase: str) -> None:
    def widen(g: Any) -> Any:
        return mg.tensor(data, dtype=dtype)

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(widen)
    with pytest.raises(RuntimeError, match=phrase) as caught:
        (x * 2).sum().backward()
    assert "hook 'widen'" in str(caught.value) and "\nWhat to do: " in str(caught.value)


def test_while_the_backward_pass_is_recorded_the_hook_gets_the_recorded_tensor() -> None:
    x = mg.tensor([2.0], requires_grad=True)
    seen: list[Any] = []
    y = x * x
    y.register_hook(lambda g: seen.append(g) or g * 3)
    (gx,) = mg.autograd.grad(y.sum(), [x], create_graph=True)
    assert isinstance(seen[0], Tensor) and gx.grad_fn is not None
    assert gx.tolist() == [12.0]  # 3 · 2x at x = 2
