"""The vectorized engine's part of a training run (``device="cpu"``/``"cuda"``): a ``TensorMLP`` on batches.

Each micro-batch is one ``(batch, features)`` Tensor.  The model starts from the
scalar ``MLP``'s initial weights for the same seed, so both engines take the
same steps (up to float32 rounding), and 10⁵ points train in seconds.  Hinge
loss for two classes (±1 targets, one output), cross-entropy for more.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import fast
from ..autograd import no_grad
from ..data import Dataset
from ..fast.tensor import keep_freed_memory
from ..nn.functional import cross_entropy, hinge_loss
from ..nn.linear import TensorMLP
from ..nn.modules import MLP
from ..tensors import Tensor, tensor
from .config import EngineRun, Points, Tally, TrainConfig


def prepare(config: TrainConfig, dataset: Dataset) -> EngineRun:
    """The model for ``config`` on ``config.device`` and its micro-step: one batch Tensor, one loss.
    With the speed layer on, each step reuses the memory of the arrays the last one freed (``fast.tensor``)."""
    if fast.ENABLED:
        keep_freed_memory()
    device = config.device
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

    def predict(points: Points) -> list[int]:
        with no_grad():
            batch = tensor(np.asarray(points, dtype=np.float32).reshape(-1, dataset.n_features), device=device)
            return _classes(model(batch), binary).tolist()

    def accuracy() -> float:
        with no_grad():
            labels = tensor(y_host, dtype="int64", device=device)
            return float((_classes(model(X), binary) == labels).float().mean().item())

    parameters = model.parameters()
    return EngineRun(model, parameters, micro_step, predict, accuracy, sum(p.numel() for p in parameters))


def _model(config: TrainConfig, n_features: int, n_outputs: int) -> TensorMLP:
    """The scalar engine's ``MLP`` for this config (same seed, same initial weights), as float32 Tensors:
    both engines start from the same point and follow the same path (up to float32 rounding)."""
    scalar = MLP(n_features, [*config.hidden, n_outputs], activation=config.activation, seed=config.seed)
    return TensorMLP.from_mlp(scalar, dtype="float32", device=config.device)


def _targets(y: Any, binary: bool, device: str) -> Tensor:
    """±1 float labels (a column, like the model's one output) for hinge loss; class indices otherwise."""
    if binary:
        return tensor((2.0 * y - 1.0).reshape(-1, 1), device=device)
    return tensor(y, dtype="int64", device=device)


def _loss(out: Tensor, targets: Tensor, binary: bool) -> Tensor:
    return hinge_loss(out, targets) if binary else cross_entropy(out, targets)


def _classes(out: Tensor, binary: bool) -> Tensor:
    """The predicted class of each row: score > 0 for one output, else the largest logit."""
    if binary:
        return (out.reshape(-1) > 0).long()
    return out.argmax(dim=1)


def _correct(out: Tensor, targets: Tensor, binary: bool) -> int:
    with no_grad():
        truth = (targets.reshape(-1) > 0).long() if binary else targets
        return int((_classes(out, binary) == truth).sum().item())
