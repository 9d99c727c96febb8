"""The two engines agree: the same MLP, the same initial weights and data, trained 20 SGD steps with Values
and with float64 Tensors, gives the same losses and weights (to 1e-9)."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.data import make_moons
from micrograd2.nn import TensorMLP

STEPS = 20


def _scalar_run(loss_name: str) -> tuple[list[float], mg.nn.MLP]:
    X, y = make_moons(24, noise=0.1, seed=4)
    model = mg.nn.MLP(2, [8, 8, 1], seed=5)
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    labels = [2.0 * t - 1.0 for t in y]
    losses = []
    for _ in range(STEPS):
        scores = [model(x) for x in X]
        if loss_name == "hinge":
            loss = mg.nn.functional.hinge_loss(scores, labels)
        else:
            loss = mg.nn.functional.mse_loss(scores, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.data)
    return losses, model


def _tensor_run(loss_name: str) -> tuple[list[float], TensorMLP]:
    X, y = make_moons(24, noise=0.1, seed=4)
    model = TensorMLP.from_mlp(mg.nn.MLP(2, [8, 8, 1], seed=5), dtype="float64")
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    x = mg.tensor(X, dtype="float64")
    labels = mg.tensor([[2.0 * t - 1.0] for t in y], dtype="float64")
    losses = []
    for _ in range(STEPS):
        scores = model(x)
        if loss_name == "hinge":
            loss = mg.nn.functional.hinge_loss(scores, labels)
        else:
            loss = mg.nn.functional.mse_loss(scores, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def _scalar_weights(model: mg.nn.MLP) -> list[np.ndarray]:
    out = []
    for layer in model.layers:
        out.append(np.array([[w.data for w in n.w] for n in layer.neurons]))
        out.append(np.array([n.b.data for n in layer.neurons]))
    return out


@pytest.mark.parametrize("loss_name", ["hinge", "mse"])
def test_scalar_and_tensor_engines_train_the_same_mlp_identically(loss_name: str) -> None:
    scalar_losses, scalar_model = _scalar_run(loss_name)
    tensor_losses, tensor_model = _tensor_run(loss_name)
    np.testing.assert_allclose(tensor_losses, scalar_losses, rtol=0, atol=1e-9)
    assert scalar_losses[-1] < scalar_losses[0]  # it did learn
    for mine, theirs in zip((p.detach().numpy() for p in tensor_model.parameters()), _scalar_weights(scalar_model)):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-9)


def test_the_tensor_mlp_starts_from_the_scalar_weights() -> None:
    start = [p.data for p in mg.nn.MLP(2, [8, 8, 1], seed=5).parameters()]
    model = TensorMLP.from_mlp(mg.nn.MLP(2, [8, 8, 1], seed=5), dtype="float64")
    flat = []
    for layer in model.layers:
        for row, b in zip(layer.weight.tolist(), layer.bias.tolist()):
            flat += [*row, b]
    assert flat == start  # micrograd's parameter order: neuron by neuron, weights then bias
