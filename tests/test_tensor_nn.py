"""The training kit (SGD, Adam, clip_grad_norm_, GradScaler, autocast, ``mg.nn.functional``) working unchanged
on Tensor parameters: tests about several modules at once.  ``Linear``/``TensorMLP`` alone are in ``test_linear.py``."""
from __future__ import annotations

import math

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.nn import Linear
from micrograd2.nn.utils import clip_grad_norm_

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def test_sgd_with_momentum_and_weight_decay_updates_tensors_in_place() -> None:
    layer = Linear(2, 1, seed=0)
    w = layer.weight
    data = w.data
    before = w.detach().numpy().copy()
    opt = mg.optim.SGD(layer.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    layer(mg.tensor([[1.0, 2.0]])).sum().backward()
    opt.step()
    assert w.data is data and w._version == 1 and w.is_leaf
    np.testing.assert_allclose(w.detach().numpy(), before - 0.1 * (np.array([[1.0, 2.0]]) + 0.01 * before),
                               rtol=1e-6)
    opt.zero_grad()
    assert w.grad is None


@needs_torch
@pytest.mark.parametrize("make", ["sgd", "adam"])
def test_optimizers_on_tensors_match_torch(make: str) -> None:
    rng = np.random.default_rng(0)
    w0 = rng.normal(size=(3, 2))
    x = rng.normal(size=(5, 3))
    w = mg.tensor(w0, requires_grad=True, dtype="float64")
    tw = torch.tensor(w0, requires_grad=True)
    if make == "sgd":
        opt, topt = mg.optim.SGD([w], lr=0.1, momentum=0.9), torch.optim.SGD([tw], lr=0.1, momentum=0.9)
    else:
        opt, topt = mg.optim.Adam([w], lr=0.05), torch.optim.Adam([tw], lr=0.05)
    for _ in range(5):
        opt.zero_grad()
        topt.zero_grad()
        ((mg.tensor(x, dtype="float64") @ w).tanh() ** 2).sum().backward()
        ((torch.tensor(x) @ tw).tanh() ** 2).sum().backward()
        opt.step()
        topt.step()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-10)


def test_zero_grad_set_to_none_false_keeps_zero_tensors() -> None:
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    opt = mg.optim.SGD([w], lr=0.1)
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]


def test_clip_grad_norm_on_tensors_returns_the_norm_before_clipping() -> None:
    a = mg.tensor([3.0], requires_grad=True)
    b = mg.tensor([4.0, 0.0], requires_grad=True)
    (a * 1.0).sum().backward()
    (b * mg.tensor([4.0, 0.0])).sum().backward()
    a.grad, b.grad = mg.tensor([3.0]), mg.tensor([4.0, 0.0])
    norm = clip_grad_norm_([a, b], max_norm=1.0)
    assert norm == pytest.approx(5.0)
    total = math.sqrt(a.grad.item() ** 2 + (b.grad * b.grad).sum().item())
    assert total == pytest.approx(1.0, rel=1e-5)


def test_grad_scaler_scales_unscales_and_steps_tensors() -> None:
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.5)
    scaler = mg.GradScaler(init_scale=1024.0)
    loss = (w * w).sum()
    scaled = scaler.scale(loss)
    assert isinstance(scaled, mg.Tensor) and scaled.item() == 5.0 * 1024
    scaled.backward()
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [0.0, 0.0]  # the unscaled gradient 2w, lr 0.5
    assert scaler.get_scale() == 1024.0


def test_grad_scaler_skips_a_step_with_inf_gradients_on_tensors() -> None:
    w = mg.tensor([1.0], requires_grad=True, dtype="float32")
    opt = mg.optim.SGD([w], lr=0.1)
    scaler = mg.GradScaler()
    with mg.autocast("float16"):
        loss = (w.half() * 2.0).sum()  # a float16 loss: loss · 65536 overflows (D17)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    assert w.tolist() == [1.0] and scaler.get_scale() == 32768.0


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("values, finite", [([1.0, -2.0], True), ([1.0, float("inf")], False),
                                            ([float("-inf"), 0.0], False), ([float("nan"), 1.0], False), ([], True)])
def test_the_inf_nan_check_of_a_tensor_gradient_warns_about_nothing(values, finite) -> None:
    w = mg.tensor([0.0] * len(values), requires_grad=True)
    w.grad = mg.tensor(values)
    assert mg.optim.grad_is_finite(w) is finite


def test_autocast_runs_linear_in_float16_with_cast_nodes_like_pytorch() -> None:
    layer = Linear(3, 2, seed=0)
    x = mg.tensor(np.ones((4, 3)))
    with mg.autocast("float16"):
        out = layer(x)
        loss = mg.nn.functional.mse_loss(out, mg.tensor(np.zeros((4, 2))))
    assert out.dtype == "float16" and loss.dtype == "float32"
    bias_edge, x_edge, t_edge = (n for n, _ in out.grad_fn.next_functions)
    assert bias_edge.name() == "ToCopyBackward0" and t_edge.name() == "TBackward0"
    assert t_edge.next_functions[0][0].name() == "ToCopyBackward0"  # D8: cast, then transpose
    loss.backward()
    assert layer.weight.grad.dtype == "float32" and layer.bias.grad.dtype == "float32"


def test_autocast_matmul_and_exp_lists() -> None:
    a = mg.tensor(np.ones((2, 2)), requires_grad=True)
    with mg.autocast("bfloat16"):
        assert (a @ a).dtype == "bfloat16"
        assert (a @ a).exp().dtype == "float32"
        assert ((a @ a) + 1).dtype == "bfloat16"


def test_nn_functional_hands_tensors_to_the_tensor_losses() -> None:
    p = mg.tensor([0.2, 0.7], requires_grad=True)
    t = mg.tensor([0.0, 1.0])
    F = mg.nn.functional
    assert F.mse_loss(p, t).grad_fn.name() == "MseLossBackward0"
    assert F.binary_cross_entropy(p, t).grad_fn.name() == "BinaryCrossEntropyBackward0"
    assert F.hinge_loss(p, mg.tensor([1.0, -1.0])).item() == pytest.approx((0.8 + 1.7) / 2)
    logits = mg.tensor([[1.0, 2.0]], requires_grad=True)
    assert F.log_softmax(logits, 1).grad_fn.name() == "LogSoftmaxBackward0"
    assert F.cross_entropy(logits, [1]).grad_fn.name() == "NllLossBackward0"
