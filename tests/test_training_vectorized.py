"""``micrograd2.training.vectorized``: the vectorized engine's training run behind ``micrograd2 train --device cpu``."""
from __future__ import annotations

import pytest

from micrograd2 import training
from micrograd2.cli import run
from micrograd2.training import TrainConfig


def test_cpu_training_takes_the_same_steps_as_the_scalar_engine() -> None:
    config = dict(dataset="moons", samples=40, steps=5, batch_size=16, lr=0.1, seed=3)
    scalar = training.train(TrainConfig(**config, device="scalar"))
    vector = training.train(TrainConfig(**config, device="cpu"))
    assert vector.losses == pytest.approx(scalar.losses, rel=1e-4)  # float32 against float64
    assert vector.accuracies == scalar.accuracies


def test_cpu_training_learns_spirals_with_cross_entropy_and_reports_progress() -> None:
    seen: list[tuple[int, float, float]] = []
    result = training.train(
        TrainConfig(dataset="spirals", samples=3000, steps=60, batch_size=256, optimizer="adam", lr=0.02,
                    hidden=(32, 32), device="cpu"),
        lambda step, loss, acc: seen.append((step, loss, acc)),
    )
    assert [s for s, _, _ in seen] == list(range(1, 61))
    assert result.losses[-1] < result.losses[0] and result.accuracy > 0.6
    assert result.n_parameters == 2 * 32 + 32 + 32 * 32 + 32 + 32 * 3 + 3
    assert len(result.predict([[0.0, 0.0], [1.0, 1.0]])) == 2


def test_cpu_training_with_accumulation_clipping_and_float16_autocast() -> None:
    result = training.train(TrainConfig(dataset="circles", samples=64, steps=4, batch_size=16, accum_steps=2,
                                        clip=1.0, amp="float16", device="cpu"))
    assert result.steps == 4 and result.final_scale is not None


def test_digits_train_on_the_vectorized_engine() -> None:
    pytest.importorskip("sklearn")
    result = training.train(TrainConfig(dataset="digits", samples=300, steps=30, batch_size=100, hidden=(32,),
                                        optimizer="adam", lr=0.01, device="cpu"))
    assert result.accuracy > 0.5


def test_the_cli_trains_on_cpu() -> None:
    assert run(["train", "--device", "cpu", "--steps", "3", "--samples", "50"]) == 0
