"""micrograd2/autograd/capture.py: backward toward chosen inputs runs only the paths to them."""
from __future__ import annotations

import pytest
from conftest import Two

import micrograd2 as mg


def test_grad_runs_only_the_nodes_on_a_path_to_its_inputs() -> None:
    x = mg.Value(2.0, requires_grad=True)
    h = x.exp()
    y = h * h
    (g,) = mg.autograd.grad(y, [h])
    assert g == 2 * h.data
    h.backward()  # h's node did not run: its saved output is still there
    assert abs(x.grad - 7.38905609893065) < 1e-12


def test_backward_inputs_accumulates_only_into_them() -> None:
    a, b = mg.Value(2.0, requires_grad=True), mg.Value(3.0, requires_grad=True)
    h = a * b
    (h * h).backward(inputs=[a, h])
    assert a.grad == 2 * 6.0 * 3.0 and h.grad == 12.0 and b.grad is None


def test_misuses_raise_as_pytorch() -> None:
    x = mg.Value(2.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        mg.autograd.grad(x * 2, [x, mg.Value(1.0, requires_grad=True)])
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        mg.autograd.grad(x * 2, [mg.Value(1.0)])
    with pytest.raises(RuntimeError, match="'inputs' argument to backward\\(\\) cannot be empty"):
        (x * 2).backward(inputs=[])


def test_grad_with_respect_to_a_custom_functions_second_output() -> None:
    x = mg.Value(1.0, requires_grad=True)
    a, b = Two.apply(x)
    assert mg.autograd.grad(a * b * 5, [b]) == (10.0,)


def test_grad_of_a_non_leaf_applies_its_hooks_but_not_its_nodes_prehooks() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    ran = []
    h.grad_fn.register_prehook(lambda g: ran.append("prehook"))
    h.register_hook(lambda g: g * 10)
    (g,) = mg.autograd.grad((h * h).sum(), [h])
    assert (g.tolist(), ran) == ([40.0, 80.0], [])


def test_materialize_grads_gives_zeros_for_an_unused_input() -> None:
    x, z = mg.tensor([1.0, 2.0], requires_grad=True), mg.tensor([1.0, 2.0], requires_grad=True)
    gx, gz = mg.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    assert (gx.tolist(), gz.tolist()) == ([2.0, 2.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed"):
        mg.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True, allow_unused=False)
