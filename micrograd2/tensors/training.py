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

from typing import Any, Sequence

import numpy as np

from ..autograd import no_grad
from ..nn.linear import TensorMLP
from ..nn.modules import MLP
from ..training import Progress, Tally, TrainConfig, TrainResult, load_dataset, run_loop
from . import functional as F
from .creation import tensor
from .tensor import Tensor

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

    def micro_step(batch: list[int] | None) -> tuple[Any, Tally]:
        if batch is None:
            xb, tb = X, targets
        else:
            index = np.asarray(batch, dtype=np.int64)
            xb, tb = X[index], targets[index]
        out = model(xb)
        return _loss(out, tb, binary), lambda: (_correct(out, tb, binary), tb.shape[0])

    loop = run_loop(config, model.parameters(), len(dataset), micro_step, progress)

    def predict(points: Sequence[Sequence[float]]) -> list[int]:
        with no_grad():
            out = model(tensor(np.asarray(points, dtype=np.float32).reshape(-1, dataset.n_features),
                               device=device))
            return _classes(out, binary).tolist()  # type: ignore[no-any-return]

    with no_grad():
        accuracy = float((_classes(model(X), binary) == mg_labels(y_host, device)).float().mean().item())
    n_parameters = sum(p.numel() for p in model.parameters())
    return TrainResult(config, loop.losses, loop.accuracies, accuracy, loop.seconds, loop.skipped,
                       loop.final_scale, n_parameters, model, dataset, predict)


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
