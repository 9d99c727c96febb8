"""``micrograd2.nn.linear``: the Tensor engine's layers, ``Linear`` (PyTorch's ``nn.Linear``) and ``TensorMLP``.

It proves that ``Linear`` has PyTorch's shapes, initialisation range and parameters, is seeded, computes a batch
as one ``AddmmBackward0`` fed by ``TBackward0`` with torch's values and gradients, and gives a contiguous weight
gradient; and that ``TensorMLP`` stacks Linears with activations, computes what the scalar ``MLP`` it is copied
from computes, and zeroes its gradients.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.nn import Linear, TensorMLP

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def test_linear_has_pytorchs_shapes_and_init_range() -> None:
    layer = Linear(4, 3, seed=0)
    assert layer.weight.shape == (3, 4) and layer.bias.shape == (3,)
    assert layer.weight.dtype == "float32" and layer.weight.requires_grad and layer.weight.is_leaf
    bound = 1 / math.sqrt(4)
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    assert layer.parameters() == [layer.weight, layer.bias]
    assert Linear(4, 3, bias=False).parameters()[0].shape == (3, 4)


def test_linear_is_seeded() -> None:
    a, b = Linear(3, 2, seed=7), Linear(3, 2, seed=7)
    assert a.weight.tolist() == b.weight.tolist()


def test_linear_on_a_batch_is_one_addmm_fed_by_tbackward() -> None:
    layer = Linear(3, 2, seed=0)
    out = layer(mg.tensor(np.ones((5, 3))))
    assert out.shape == (5, 2) and out.grad_fn.name() == "AddmmBackward0"
    names = [n.name() if n else None for n, _ in out.grad_fn.next_functions]
    assert names == ["AccumulateGrad", None, "TBackward0"]
    assert layer(mg.tensor([1.0, 2.0, 3.0])).shape == (2,)


@needs_torch
def test_linear_matches_torch_linear() -> None:
    layer = Linear(3, 2, dtype="float64", seed=1)
    t = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        t.weight.copy_(torch.tensor(layer.weight.tolist(), dtype=torch.float64))
        t.bias.copy_(torch.tensor(layer.bias.tolist(), dtype=torch.float64))
    x = np.random.default_rng(0).normal(size=(4, 3))
    out = layer(mg.tensor(x, dtype="float64"))
    tout = t(torch.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    (out * out).sum().backward()
    (tout * tout).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(layer.bias.grad.numpy(), t.bias.grad.numpy(), rtol=1e-12)


def test_weight_gradient_is_a_contiguous_array_of_the_weights_shape() -> None:
    layer = Linear(3, 2, seed=0)
    layer(mg.tensor(np.ones((5, 3)))).sum().backward()
    g = layer.weight.grad
    assert g.shape == (2, 3) and g.data.flags.c_contiguous and g.dtype == "float32"


def test_tensor_mlp_stacks_linears_with_activations() -> None:
    model = TensorMLP(2, [16, 16, 1], seed=0)
    assert [layer.weight.shape for layer in model.layers] == [(16, 2), (16, 16), (1, 16)]
    assert len(model.parameters()) == 6
    out = model(mg.tensor(np.ones((7, 2))))
    assert out.shape == (7, 1)
    with pytest.raises(ValueError, match="activation must be one of"):
        TensorMLP(2, [3], activation="gelu")


def test_tensor_mlp_from_a_scalar_mlp_computes_the_same_function() -> None:
    scalar = mg.nn.MLP(3, [4, 4, 2], activation="tanh", seed=3)
    model = TensorMLP.from_mlp(scalar)
    x = [0.5, -1.0, 2.0]
    expected = [v.data for v in scalar(x)]
    got = model(mg.tensor([x], dtype="float64")).tolist()[0]
    assert got == pytest.approx(expected, rel=1e-12)
    assert model.activation == "tanh" and model.layers[0].weight.dtype == "float64"


def test_module_zero_grad_on_tensor_parameters() -> None:
    model = TensorMLP(2, [3, 1], seed=0)
    model(mg.tensor(np.ones((2, 2)))).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
