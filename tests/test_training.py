"""Training as a whole (micrograd2.training): the principle of gradient accumulation (PYTORCH_TRUTH D16), and
runs on datasets of more than two classes or features that go through several modules at once (the config's
dataset, the scalar engine's model and loss, the loop).

The loop's own tests are in test_loop.py, the config's and the result's in test_config.py, the pictures in
test_plot.py, and the vectorized engine's in test_training_vectorized.py.
"""
from __future__ import annotations

import pytest

from micrograd2.data import make_moons
from micrograd2.nn import MLP
from micrograd2.nn.functional import hinge_loss
from micrograd2.training import TrainConfig, train


# -- gradient accumulation (D16) -----------------------------------------------------------------------
def gradients(model: MLP, batches: list[list[int]], X, y, normalize: bool) -> list[float]:
    """Accumulate the gradient over ``batches`` (each loss divided by len(batches) if ``normalize``)."""
    model.zero_grad()
    for batch in batches:
        loss = hinge_loss([model(X[i]) for i in batch], [2.0 * y[i] - 1.0 for i in batch])
        (loss / len(batches) if normalize else loss).backward()
    return [p.grad for p in model.parameters()]


def test_normalized_micro_batches_accumulate_the_full_batch_gradient() -> None:
    X, y = make_moons(16, seed=2)
    model = MLP(2, [5, 1], seed=2)
    full = gradients(model, [list(range(16))], X, y, normalize=True)
    accumulated = gradients(model, [list(range(k, k + 4)) for k in range(0, 16, 4)], X, y, normalize=True)
    assert max(abs(a - b) for a, b in zip(full, accumulated)) < 1e-15
    assert any(g != 0 for g in full)


def test_without_normalization_the_gradient_is_accum_steps_times_larger() -> None:
    X, y = make_moons(16, seed=2)
    model = MLP(2, [5, 1], seed=2)
    full = gradients(model, [list(range(16))], X, y, normalize=True)
    summed = gradients(model, [list(range(k, k + 4)) for k in range(0, 16, 4)], X, y, normalize=False)
    assert max(abs(s - 4 * f) for s, f in zip(summed, full)) < 1e-14


# -- more than two classes, more than two features ------------------------------------------------------
def test_spirals_train_with_cross_entropy() -> None:
    result = train(TrainConfig(dataset="spirals", samples=15, steps=3, hidden=(4,)))
    assert result.dataset.n_classes == 3 and len(result.model.layers[-1].neurons) == 3
    assert result.losses[0] == pytest.approx(result.losses[0])  # finite
    assert result.losses[-1] < 2.0


def test_digits_train_when_scikit_learn_is_installed() -> None:
    pytest.importorskip("sklearn")
    result = train(TrainConfig(dataset="digits", samples=10, steps=1, hidden=(3,)))
    assert result.dataset.n_features == 64 and result.n_parameters == 3 * 65 + 10 * 4
