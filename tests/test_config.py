"""What to train and what came out (micrograd2/training/config.py): ``TrainConfig``, ``TrainResult``, ``load_dataset``.

It proves that a bad config is a ``ValueError`` naming its field (the first one out of range), that the default
learning rate depends on the optimizer, that a ``TrainResult`` describes its run (steps, final loss, parameter
count, time per step, ``predict``), and that ``load_dataset`` makes the configured dataset from its seed and noise.
"""
from __future__ import annotations

import pytest

from micrograd2.training import TrainConfig, TrainResult, train
from micrograd2.training.config import load_dataset

TINY = {"samples": 12, "steps": 3, "hidden": (4,)}


# -- what a run produced -------------------------------------------------------------------------------------
def test_the_result_describes_the_run() -> None:
    result = train(TrainConfig(**TINY))
    assert isinstance(result, TrainResult)
    assert result.steps == 3 and result.final_loss == result.losses[-1]
    assert result.n_parameters == 4 * 3 + 5 == len(result.model.parameters())
    assert result.skipped_steps == 0 and result.final_scale is None
    assert result.seconds_per_step == pytest.approx(result.seconds / 3)
    assert result.predict([[0.0, 1.0], [1.0, -0.5]]) in ([0, 0], [0, 1], [1, 0], [1, 1])
    assert 0.0 <= result.accuracy <= 1.0


# -- configuration -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dataset": "mnist"}, "dataset must be one of"),
        ({"optimizer": "rmsprop"}, "optimizer must be one of"),
        ({"steps": 0}, "steps must be at least 1"),
        ({"accum_steps": 0}, "accum_steps must be at least 1"),
        ({"batch_size": 0}, "batch_size must be at least 1"),
        ({"lr": -1.0}, "lr must be positive"),
        ({"amp": "float32"}, "amp must be one of"),
        ({"clip": 0.0}, "clip"),
        ({"hidden": (4, 0)}, "hidden layer sizes"),
        ({"device": "tpu"}, "device must be one of"),
    ],
)
def test_a_bad_config_is_a_value_error_naming_the_field(changes, message) -> None:
    with pytest.raises(ValueError, match=message):
        train(TrainConfig(**{**TINY, **changes}))


def test_default_learning_rates_per_optimizer() -> None:
    assert TrainConfig().learning_rate == 0.1 and TrainConfig(optimizer="adam").learning_rate == 0.02
    assert TrainConfig(lr=0.5).learning_rate == 0.5



def test_load_dataset_makes_the_configured_dataset_from_its_seed_and_noise() -> None:
    for name, classes in (("moons", 2), ("circles", 2), ("spirals", 3)):
        data = load_dataset(TrainConfig(dataset=name, samples=30, seed=1))
        assert (data.name, data.n_classes, data.n_features, len(data)) == (name, classes, 2, 30)
        assert data.X == load_dataset(TrainConfig(dataset=name, samples=30, seed=1)).X
        assert data.X != load_dataset(TrainConfig(dataset=name, samples=30, seed=2)).X
    assert load_dataset(TrainConfig(samples=30, noise=0.0)).X != load_dataset(TrainConfig(samples=30, noise=0.3)).X


def test_check_names_the_first_field_out_of_range_and_passes_a_good_config() -> None:
    TrainConfig(**TINY).check()
    with pytest.raises(ValueError, match="^noise must be non-negative, got -0.1$"):
        TrainConfig(noise=-0.1).check()
    with pytest.raises(ValueError, match="^activation must be one of relu, tanh; got 'gelu'$"):
        TrainConfig(activation="gelu", steps=0).check()  # the choices are checked before the counts
