"""The training loop, written once: ``train(config)`` runs either engine's step under the same rules.

An MLP learns a generated dataset (``micrograd2.data``): micro-batches, gradient
accumulation with normalized losses, optional clipping, and optional mixed
precision (autocast, plus a GradScaler for float16).  The engine named by
``config.device`` supplies its model and its micro-step (``scalar.py`` for
``"scalar"``, ``vectorized.py`` for ``"cpu"``/``"cuda"``); the loop, the optimizer,
the scaler and the result are the same for both.
"""
from __future__ import annotations

import random
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Iterator

from ..amp import GradScaler, autocast
from ..data import Dataset
from ..nn.utils import clip_grad_norm_
from ..optim import SGD, Adam, Optimizer
from . import scalar
from .config import EngineRun, MicroStep, Progress, TrainConfig, TrainResult, load_dataset


class EngineUnavailable(RuntimeError):
    """The vectorized engine (``micrograd2.tensors``) is not part of this build."""


def train(config: TrainConfig, progress: Progress | None = None) -> TrainResult:
    """Train an MLP as ``config`` says; call ``progress(step, loss, accuracy)`` after every step."""
    config.check()
    prepare = _engine(config.device)
    dataset = load_dataset(config)
    run = prepare(config, dataset)
    loop = run_loop(config, run.parameters, len(dataset), run.micro_step, progress)
    return TrainResult(config, loop.losses, loop.accuracies, run.accuracy(), loop.seconds, loop.skipped,
                       loop.final_scale, run.n_parameters, run.model, dataset, run.predict)


def _engine(device: str) -> Callable[[TrainConfig, Dataset], EngineRun]:
    """The ``prepare`` of the engine for ``device``; the vectorized one is imported only when asked for
    (it imports NumPy)."""
    if device == "scalar":
        return scalar.prepare
    try:
        from . import vectorized
    except ModuleNotFoundError as exc:
        if exc.name not in ("numpy", "micrograd2.tensors", "micrograd2.training.vectorized"):
            raise EngineUnavailable(f"the vectorized engine can't be loaded: {exc}") from exc
        raise EngineUnavailable(
            f"--device {device} needs the vectorized engine (micrograd2.tensors), which isn't "
            "available in this build; use --device scalar"
        ) from exc
    return vectorized.prepare


@dataclass
class LoopStats:
    """What ``run_loop`` measured: per-step losses and accuracies, skipped steps, time, final scale."""

    losses: list[float]
    accuracies: list[float]
    skipped: int
    seconds: float
    final_scale: float | None


def run_loop(config: TrainConfig, parameters: list[Any], n_samples: int, micro_step: MicroStep,
             progress: Progress | None = None) -> LoopStats:
    """The training loop both engines share — the article's engineering rules in one place.

    Each optimizer step: ``zero_grad``; for each of ``accum_steps`` micro-batches,
    ``micro_step(batch)`` (batch = sample indices, or ``None`` for every sample) returns the
    loss and a ``tally()`` giving ``(correct, seen)``; the loss is normalized by ``accum_steps``
    (all under autocast when ``config.amp``) and backpropagated (scaled by a ``GradScaler`` for
    float16); the tally is taken outside autocast; then clip and step (``_step``).
    ``micro_step`` is the engine's part (``EngineRun.micro_step``); everything else is here, once.
    """
    optimizer = _optimizer(config, parameters)
    scaler = GradScaler() if config.amp == "float16" else None
    batches = micro_batches(n_samples, config.batch_size, random.Random(config.seed))
    stats = LoopStats([], [], 0, 0.0, None)
    start = time.perf_counter()
    for step in range(1, config.steps + 1):
        optimizer.zero_grad()
        loss_sum, correct, seen = 0.0, 0, 0
        for _ in range(config.accum_steps):
            with _autocast(config):
                loss, tally = micro_step(next(batches))
                loss = loss / config.accum_steps
            (scaler.scale(loss) if scaler is not None else loss).backward()
            batch_correct, batch_seen = tally()
            loss_sum += loss.item()
            correct += batch_correct
            seen += batch_seen
        stats.skipped += _step(optimizer, scaler, config.clip)
        stats.losses.append(loss_sum)
        stats.accuracies.append(correct / seen)
        if progress is not None:
            progress(step, loss_sum, correct / seen)
    stats.seconds = time.perf_counter() - start
    stats.final_scale = scaler.get_scale() if scaler is not None else None
    return stats


def _optimizer(config: TrainConfig, params: list[Any]) -> Optimizer:
    if config.optimizer == "adam":
        return Adam(params, lr=config.learning_rate, weight_decay=config.weight_decay)
    return SGD(params, lr=config.learning_rate, momentum=config.momentum, weight_decay=config.weight_decay)


def micro_batches(n: int, batch_size: int | None, rng: random.Random) -> Iterator[list[int] | None]:
    """Endless micro-batches of sample indices (``None``: every sample): consecutive slices of a
    seeded shuffle, reshuffled each epoch."""
    if batch_size is None or batch_size >= n:
        while True:
            yield None
    order: list[int] = []
    while True:
        if len(order) < batch_size:
            fresh = list(range(n))
            rng.shuffle(fresh)
            order += fresh
        batch, order = order[:batch_size], order[batch_size:]
        yield batch


def _autocast(config: TrainConfig) -> ContextManager[Any]:
    return autocast(config.amp) if config.amp is not None else nullcontext()


def _step(optimizer: Optimizer, scaler: GradScaler | None, clip: float | None) -> int:
    """Clip (if asked) and step, through the scaler if there is one; 1 if the step was skipped."""
    if scaler is None:
        if clip is not None:
            clip_grad_norm_(optimizer.params, clip)
        optimizer.step()
        return 0
    if clip is not None:
        scaler.unscale_(optimizer)  # the documented pattern: unscale, clip, step (PYTORCH_TRUTH D5)
        clip_grad_norm_(optimizer.params, clip)
    scale = scaler.get_scale()
    scaler.step(optimizer)
    scaler.update()
    return int(scaler.get_scale() < scale)
