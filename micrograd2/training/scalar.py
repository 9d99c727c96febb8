"""The scalar engine's part of a training run: an ``nn.MLP`` of Values, one sample at a time."""
from __future__ import annotations

from typing import Any

from ..autograd import no_grad
from ..data import Dataset
from ..nn import MLP
from ..nn.functional import cross_entropy, hinge_loss
from .config import EngineRun, Points, Tally, TrainConfig


def prepare(config: TrainConfig, dataset: Dataset) -> EngineRun:
    """The model for ``config`` (seeded) and its micro-step: each sample through the MLP, one loss Value."""
    binary = dataset.n_classes == 2
    model = MLP(dataset.n_features, [*config.hidden, 1 if binary else dataset.n_classes],
                activation=config.activation, seed=config.seed)

    def micro_step(batch: list[int] | None) -> tuple[Any, Tally]:
        indices = range(len(dataset)) if batch is None else batch
        outputs = [model(dataset.X[i]) for i in indices]
        loss = _loss(outputs, [dataset.y[i] for i in indices], binary)
        return loss, lambda: (sum(_predicted(o, binary) == dataset.y[i] for o, i in zip(outputs, indices)),
                              len(indices))

    def predict(points: Points) -> list[int]:
        with no_grad():
            return [_predicted(model(list(x)), binary) for x in points]

    def accuracy() -> float:
        return sum(p == t for p, t in zip(predict(dataset.X), dataset.y)) / len(dataset)

    parameters = model.parameters()
    return EngineRun(model, parameters, micro_step, predict, accuracy, len(parameters))


def _loss(outputs: list[Any], labels: list[int], binary: bool) -> Any:
    if binary:
        return hinge_loss(outputs, [2.0 * t - 1.0 for t in labels])
    return cross_entropy(outputs, labels)


def _predicted(output: Any, binary: bool) -> int:
    if binary:
        return int(output.data > 0)
    scores = [o.data for o in output]
    return scores.index(max(scores))
