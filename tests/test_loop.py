"""The training loop (micrograd2/training/loop.py): ``train(config)`` runs either engine's step under the same rules.

It proves that a run with gradient accumulation takes the same steps as full batches, that a moons run learns
(>= 95% training accuracy in 30 steps), that progress is reported after every step, that a seed fixes the run,
that parameters are updated in place, that both optimizers lower the loss, that clipping limits the step, that
float16 autocast uses a GradScaler (a gradient overflow is a skipped step and a smaller scale) and bfloat16 none,
that each engine supplies its micro-step to the one loop (a missing vectorized engine is a one-line
``EngineUnavailable``), and that micro-batches walk through a shuffle reshuffled at each epoch.
"""
from __future__ import annotations

import random
import sys

import pytest

import micrograd2 as mg
from micrograd2.nn import MLP
from micrograd2.training import EngineUnavailable, TrainConfig, train

TINY = {"samples": 12, "steps": 3, "hidden": (4,)}


# -- the run -------------------------------------------------------------------------------------------------
def test_a_run_with_accumulation_takes_the_same_steps_as_full_batches() -> None:
    """batch_size = n/2 with accum_steps = 2: each step sees one epoch, i.e. the full-batch gradient."""
    full = train(TrainConfig(**TINY))
    accumulated = train(TrainConfig(**TINY, batch_size=6, accum_steps=2))
    for p, q in zip(full.model.parameters(), accumulated.model.parameters()):
        assert p.data == pytest.approx(q.data, abs=1e-13)
    assert accumulated.losses == pytest.approx(full.losses, abs=1e-13)


def test_a_moons_run_reaches_95_percent_training_accuracy() -> None:
    config = TrainConfig(dataset="moons", samples=40, steps=30, optimizer="adam", lr=0.05, hidden=(16, 16), seed=0)
    result = train(config)
    assert result.accuracy >= 0.95
    assert result.losses[-1] < result.losses[0] / 3
    assert result.steps == 30 and result.seconds_per_step > 0


def test_progress_is_called_after_every_step_with_loss_and_accuracy() -> None:
    seen: list[tuple[int, float, float]] = []
    result = train(TrainConfig(**TINY), progress=lambda *args: seen.append(args))
    assert [s for s, _, _ in seen] == [1, 2, 3]
    assert [loss for _, loss, _ in seen] == result.losses
    assert [acc for _, _, acc in seen] == result.accuracies


def test_the_same_seed_gives_the_same_run() -> None:
    a, b = train(TrainConfig(**TINY, batch_size=5)), train(TrainConfig(**TINY, batch_size=5))
    assert a.losses == b.losses
    c = train(TrainConfig(**TINY, batch_size=5, seed=1))
    assert c.losses != a.losses


def test_parameters_are_updated_in_place() -> None:
    result = train(TrainConfig(**TINY))
    assert all(p._version == 3 for p in result.model.parameters() if p.grad)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_both_optimizers_lower_the_loss(optimizer) -> None:
    result = train(TrainConfig(samples=20, steps=8, hidden=(8,), optimizer=optimizer))
    assert result.losses[-1] < result.losses[0]


def test_clipping_limits_the_step() -> None:
    clipped = train(TrainConfig(**TINY, lr=10.0, clip=1e-3))
    free = train(TrainConfig(**TINY, lr=10.0))
    start = MLP(2, [4, 1], seed=0).parameters()
    moved = max(abs(p.data - q.data) for p, q in zip(clipped.model.parameters(), start))
    assert moved <= 3 * 10.0 * 1e-3 + 1e-12
    assert max(abs(p.data - q.data) for p, q in zip(free.model.parameters(), start)) > moved


def test_float16_amp_uses_a_grad_scaler_and_bfloat16_none() -> None:
    half = train(TrainConfig(**TINY, amp="float16", clip=1.0))
    assert half.final_scale is not None and half.skipped_steps >= 0
    assert all(p.dtype == "float64" for p in half.model.parameters())  # parameters keep their dtype (D7)
    bf16 = train(TrainConfig(**TINY, amp="bfloat16"))
    assert bf16.final_scale is None
    assert mg.amp.is_autocast_enabled() is False


def test_a_float16_gradient_overflow_shows_as_a_skipped_step_and_a_smaller_scale() -> None:
    """One sample: 65536 · (an input of the float16 product > 1) overflows float16 at step 1, which is
    skipped (the parameters and so the loss stay the same); the scale halves to 32768 and the run goes on."""
    result = train(TrainConfig(samples=1, steps=4, hidden=(4,), amp="float16", lr=0.01))
    assert result.skipped_steps == 1 and result.final_scale == 32768.0
    assert result.losses[1] == result.losses[0] and result.losses[3] < result.losses[2]


# -- the engines: each supplies its micro-step ---------------------------------------------------------------
def _without_the_vectorized_engine(monkeypatch) -> None:
    """As in a build without NumPy: ``micrograd2.training.vectorized`` cannot be imported."""
    import micrograd2.training

    monkeypatch.delattr(micrograd2.training, "vectorized", raising=False)
    monkeypatch.setitem(sys.modules, "micrograd2.training.vectorized", None)


def test_cpu_and_cuda_without_the_vectorized_engine_fail_with_one_line(monkeypatch) -> None:
    _without_the_vectorized_engine(monkeypatch)
    for device in ("cpu", "cuda"):
        with pytest.raises(EngineUnavailable) as info:
            train(TrainConfig(**TINY, device=device))
        message = str(info.value)
        assert "vectorized engine" in message and "isn't available in this build" in message
        assert "\n" not in message and isinstance(info.value, RuntimeError)


def test_each_engine_supplies_its_micro_step_to_the_one_loop(monkeypatch) -> None:
    from micrograd2.training import loop, scalar, vectorized

    prepared = []
    for module in (scalar, vectorized):
        real = module.prepare
        monkeypatch.setattr(module, "prepare", lambda config, dataset, real=real, name=module.__name__:
                            prepared.append(name) or real(config, dataset))
    loops = []
    real_loop = loop.run_loop
    monkeypatch.setattr(loop, "run_loop", lambda *args: loops.append(args[3]) or real_loop(*args))
    scalar_result = train(TrainConfig(**TINY))
    vector_result = train(TrainConfig(**TINY, device="cpu"))
    assert prepared == ["micrograd2.training.scalar", "micrograd2.training.vectorized"]
    assert len(loops) == 2 and loops[0] is not loops[1]
    assert type(scalar_result.model).__name__ == "MLP" and type(vector_result.model).__name__ == "TensorMLP"
    assert vector_result.steps == scalar_result.steps == TINY["steps"]


# -- micro-batches -------------------------------------------------------------------------------------------
def test_batches_walk_through_a_shuffle_reshuffled_each_epoch() -> None:
    from micrograd2.training.loop import micro_batches

    batches = micro_batches(5, 2, random.Random(0))
    first_epoch = [next(batches) for _ in range(5)]  # 10 indices = two epochs
    flat = [i for b in first_epoch for i in b]
    assert sorted(flat[:5]) == list(range(5)) and sorted(flat[5:]) == list(range(5))
    assert all(len(b) == 2 for b in first_epoch)

