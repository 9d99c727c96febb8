"""``micrograd2.tensors.functional``: the Tensor losses and ``linear``, with PyTorch's values and graphs."""
from __future__ import annotations

import numpy as np
import pytest

import micrograd2 as mg
from micrograd2.tensors import functional as F

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


@needs_torch
def test_losses_match_torch_in_value_and_gradient() -> None:
    rng = np.random.default_rng(0)
    logits, p, t = rng.normal(size=(5, 4)), rng.uniform(0.05, 0.95, (5, 4)), rng.uniform(0, 1, (5, 4))
    targets = [3, 0, 1, 1, 2]
    cases = [
        (lambda a: F.cross_entropy(a, targets), lambda a: torch.nn.functional.cross_entropy(a, torch.tensor(targets)),
         logits),
        (lambda a: F.mse_loss(a, mg.tensor(t, dtype="float64")),
         lambda a: torch.nn.functional.mse_loss(a, torch.tensor(t)), logits),
        (lambda a: F.binary_cross_entropy(a, mg.tensor(t, dtype="float64")),
         lambda a: torch.nn.functional.binary_cross_entropy(a, torch.tensor(t)), p),
        (lambda a: F.nll_loss(F.log_softmax(a, 1), targets),
         lambda a: torch.nn.functional.nll_loss(a.log_softmax(1), torch.tensor(targets)), logits),
    ]
    for mine, theirs, x in cases:
        a = mg.tensor(x, requires_grad=True, dtype="float64")
        ta = torch.tensor(x, requires_grad=True)
        loss, tloss = mine(a), theirs(ta)
        loss.backward()
        tloss.backward()
        assert loss.item() == pytest.approx(tloss.item(), rel=1e-12)
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-10, atol=1e-15)


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary_cross_entropy_with_logits_matches_torch_for_extreme_logits(dtype) -> None:
    x = np.array([[-1e4, -100.0, -30.0, -2.0], [0.0, 0.5, 30.0, 1e4]])
    y = np.array([[1.0, 0.0, 1.0, 0.25], [0.5, 1.0, 0.0, 0.0]])
    a, b = mg.tensor(x, requires_grad=True, dtype=dtype), mg.tensor(y, requires_grad=True, dtype=dtype)
    tdtype = getattr(torch, dtype)
    ta = torch.tensor(x, requires_grad=True, dtype=tdtype)
    tb = torch.tensor(y, requires_grad=True, dtype=tdtype)
    loss, tloss = F.binary_cross_entropy_with_logits(a, b), torch.nn.functional.binary_cross_entropy_with_logits(ta, tb)
    loss.backward()
    tloss.backward()
    assert loss.grad_fn.name() == tloss.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    assert loss.dtype == dtype and np.isfinite(loss.item())
    rtol = 1e-12 if dtype == "float64" else 1e-6
    assert loss.item() == pytest.approx(tloss.item(), rel=rtol)
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=rtol, atol=1e-15)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=rtol)


def test_binary_cross_entropy_with_logits_second_derivative() -> None:
    """d²/dx² of the loss is σ(x)(1 − σ(x))/n: the backward is itself differentiable."""
    x = mg.tensor([0.5, -1.0], requires_grad=True, dtype="float64")
    loss = F.binary_cross_entropy_with_logits(x, [1.0, 0.0])
    (g,) = mg.autograd.grad(loss, [x], create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), [x])
    s = 1 / (1 + np.exp(-np.array([0.5, -1.0])))
    np.testing.assert_allclose(h.numpy(), s * (1 - s) / 2, rtol=1e-12)


def test_binary_cross_entropy_with_logits_needs_the_targets_shape() -> None:
    with pytest.raises(ValueError, match=r"Target size \(\(3,\)\) must be the same as input size \(\(2,\)\)"):
        F.binary_cross_entropy_with_logits(mg.tensor([1.0, 2.0]), [1.0, 0.0, 1.0])


def test_cross_entropy_of_one_sample_takes_a_class_index() -> None:
    z = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = F.cross_entropy(z, 2)
    assert loss.item() == pytest.approx(np.log(np.exp([1, 2, 3]).sum()) - 3, rel=1e-6)


def test_nll_loss_needs_a_matrix() -> None:
    with pytest.raises(ValueError, match="shape \\(N, C\\)"):
        F.nll_loss(mg.tensor([1.0, 2.0]), [0])


def test_hinge_loss_is_micrograds_max_margin_loss() -> None:
    s = mg.tensor([2.0, 0.5, -1.0], requires_grad=True)
    loss = F.hinge_loss(s, [1.0, 1.0, 1.0])
    assert loss.item() == pytest.approx((0 + 0.5 + 2.0) / 3)
    loss.backward()
    assert s.grad.tolist() == pytest.approx([0.0, -1 / 3, -1 / 3])


def test_linear_without_bias_and_on_one_sample() -> None:
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert F.linear(mg.tensor([[1.0, 1.0]]), w).tolist() == [[3.0, 7.0, 11.0]]
    assert F.linear(mg.tensor([1.0, 1.0]), w, mg.tensor([1.0, 1.0, 1.0])).tolist() == [4.0, 8.0, 12.0]


def test_losses_run_in_float32_under_autocast() -> None:
    a = mg.tensor(np.ones((2, 3)), requires_grad=True, dtype="float16")
    with mg.autocast("float16"):
        assert F.cross_entropy(a, [0, 1]).dtype == "float32"
        assert F.hinge_loss(a.sum(1), [1.0, -1.0]).dtype == "float32"
        assert F.mse_loss(a, mg.tensor(np.zeros((2, 3)), dtype="float16")).dtype == "float32"
        bce = F.binary_cross_entropy_with_logits(a, np.ones((2, 3)))
        assert bce.dtype == "float32" and bce.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"


def test_binary_cross_entropy_is_unsafe_to_autocast_whatever_the_dtypes() -> None:
    """PyTorch's autocast raises for binary_cross_entropy, even on float32 inputs, and names the fix."""
    p = mg.tensor([0.25, 0.75], requires_grad=True)
    with mg.autocast("float16"), pytest.raises(RuntimeError, match="unsafe to autocast") as info:
        mg.nn.functional.binary_cross_entropy(p, [0.0, 1.0])
    assert "binary_cross_entropy_with_logits" in str(info.value)
    with mg.autocast("float16"), mg.autocast(enabled=False):
        assert mg.nn.functional.binary_cross_entropy(p, [0.0, 1.0]).dtype == "float32"  # switched off: allowed
