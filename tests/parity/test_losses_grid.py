"""Losses at their edges next to torch 2.13: a fully ignored batch, and GradScaler's closure refusal."""
from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: the parity suite compares with it")

import micrograd2 as mg  # noqa: E402


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (2, 3, 2)], ids=str)
def test_cross_entropy_of_a_fully_ignored_batch(shape, dtype: str, label_smoothing: float) -> None:
    z = np.random.default_rng(len(shape)).standard_normal(shape)
    targets = np.full((shape[0],) + shape[2:], -100)
    x = mg.tensor(z, dtype=dtype, requires_grad=True)
    loss = mg.nn.functional.cross_entropy(x, mg.tensor(targets, dtype="int64"),
                                          label_smoothing=label_smoothing)
    loss.backward()
    t = torch.tensor(z).to(getattr(torch, dtype)).requires_grad_()
    want = torch.nn.functional.cross_entropy(t, torch.tensor(targets), label_smoothing=label_smoothing)
    want.backward()
    assert math.isnan(loss.item()) and math.isnan(want.item())
    assert x.grad.tolist() == t.grad.tolist()  # zeros: a padded batch does not poison training


def test_grad_scaler_refuses_a_closure() -> None:
    w = mg.tensor([1.0], requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    (w * 2).sum().backward()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported if GradScaler is enabled."):
        mg.amp.GradScaler().step(opt, closure=lambda: None)
