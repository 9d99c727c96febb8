"""The training loop of ``micrograd2 train --device cpu|cuda``: ``train(config, progress)`` on Tensors.

The same run as the scalar engine's ``micrograd2.training.train`` — same
dataset, same micro-batches (the same seeded shuffle), hinge loss for two
classes and cross-entropy for more, gradient accumulation with normalized
losses, optional clipping, autocast and a GradScaler — but each micro-batch is
one ``(batch, features)`` Tensor going through a ``TensorMLP`` that starts
from the scalar ``MLP``'s initial weights (so both engines take the same
steps, up to float32 rounding), and 10⁵ points train in seconds.  Returns
the same ``TrainResult``.
"""
from __future__ import annotations

import random
import time
from contextlib import nullcontext
from typing import Any, ContextManager, Sequence

import numpy as np

from ..amp import GradScaler, autocast
from ..autograd import no_grad
from ..nn.linear import TensorMLP
from ..nn.modules import MLP
from ..nn.utils import clip_grad_norm_
from ..optim import SGD, Adam, Optimizer
from ..training import Progress, TrainConfig, TrainResult, load_dataset
from . import functional as F
from .tensor import Tensor, tensor

__all__ = ["train"]


def train(config: TrainConfig, progress: Progress | None = None) -> TrainResult:
    """Train a ``TensorMLP`` as ``config`` says on ``config.device``; call ``progress(step, loss, accuracy)``
    after every optimizer step."""
    config.check()
    device = config.device
    dataset = load_dataset(config)
    X_host, y_host = dataset.numpy()
    binary = dataset.n_classes == 2
    X = tensor(X_host, device=device)
    targets = _targets(y_host, binary, device)
    model = _model(config, dataset.n_features, 1 if binary else dataset.n_classes)
    optimizer = _optimizer(config, model.parameters())
    scaler = GradScaler() if config.amp == "float16" else None
    batches = _micro_batches(len(dataset), config.batch_size, random.Random(config.seed))
    losses: list[float] = []
    accuracies: list[float] = []
    skipped = 0
    start = time.perf_counter()
    for step in range(1, config.steps + 1):
        optimizer.zero_grad()
        loss_sum, correct, seen = 0.0, 0, 0
        for _ in range(config.accum_steps):
            index = next(batches)
            xb, tb = (X, targets) if index is None else (X[index], targets[index])
            with _autocast(config):
                out = model(xb)
                loss = _loss(out, tb, binary) / config.accum_steps
            (scaler.scale(loss) if scaler is not None else loss).backward()
            loss_sum += loss.item()
            correct += _correct(out, tb, binary)
            seen += tb.shape[0]
        skipped += _step(optimizer, scaler, config.clip)
        losses.append(loss_sum)
        accuracies.append(correct / seen)
        if progress is not None:
            progress(step, loss_sum, correct / seen)
    seconds = time.perf_counter() - start

    def predict(points: Sequence[Sequence[float]]) -> list[int]:
        with no_grad():
            out = model(tensor(np.asarray(points, dtype=np.float32).reshape(-1, dataset.n_features),
                               device=device))
            return _classes(out, binary).tolist()  # type: ignore[no-any-return]

    with no_grad():
        accuracy = float((_classes(model(X), binary) == mg_labels(y_host, device)).float().mean().item())
    n_parameters = sum(p.numel() for p in model.parameters())
    return TrainResult(config, losses, accuracies, accuracy, seconds, skipped,
                       scaler.get_scale() if scaler is not None else None, n_parameters, model, dataset, predict)


def _model(config: TrainConfig, n_features: int, n_outputs: int) -> TensorMLP:
    """The scalar engine's ``MLP`` for this config (same seed, same initial weights), as float32 Tensors:
    both engines start from the same point and follow the same path (up to float32 rounding)."""
    scalar = MLP(n_features, [*config.hidden, n_outputs], activation=config.activation, seed=config.seed)
    return TensorMLP.from_mlp(scalar, dtype="float32", device=config.device)


def mg_labels(y: Any, device: str) -> Tensor:
    """The class labels as an int64 Tensor."""
    return tensor(y, dtype="int64", device=device)


def _targets(y: Any, binary: bool, device: str) -> Tensor:
    """±1 float labels (a column, like the model's one output) for hinge loss; class indices otherwise."""
    if binary:
        return tensor((2.0 * y - 1.0).reshape(-1, 1), device=device)
    return mg_labels(y, device)


def _loss(out: Tensor, targets: Tensor, binary: bool) -> Tensor:
    return F.hinge_loss(out, targets) if binary else F.cross_entropy(out, targets)


def _classes(out: Tensor, binary: bool) -> Tensor:
    """The predicted class of each row: score > 0 for one output, else the largest logit."""
    if binary:
        return (out.reshape(-1) > 0).long()
    return out.argmax(dim=1)


def _correct(out: Tensor, targets: Tensor, binary: bool) -> int:
    with no_grad():
        truth = (targets.reshape(-1) > 0).long() if binary else targets
        return int((_classes(out, binary) == truth).sum().item())


def _optimizer(config: TrainConfig, params: list[Any]) -> Optimizer:
    if config.optimizer == "adam":
        return Adam(params, lr=config.learning_rate, weight_decay=config.weight_decay)
    return SGD(params, lr=config.learning_rate, momentum=config.momentum, weight_decay=config.weight_decay)


def _micro_batches(n: int, batch_size: int | None, rng: random.Random) -> Any:
    """Endless micro-batches: ``None`` (every sample) or index arrays, slices of a seeded shuffle
    reshuffled at each epoch — the same order as the scalar engine's loop."""
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
        yield np.asarray(batch, dtype=np.int64)


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
        scaler.unscale_(optimizer)
        clip_grad_norm_(optimizer.params, clip)
    scale = scaler.get_scale()
    scaler.step(optimizer)
    scaler.update()
    return int(scaler.get_scale() < scale)
