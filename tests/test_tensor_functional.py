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
