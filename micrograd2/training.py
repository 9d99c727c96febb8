"""One training loop for ``micrograd2 train`` and the lessons: ``train(TrainConfig(...)) -> TrainResult``.

An MLP learns a generated dataset (``micrograd2.data``) with the scalar engine:
micro-batches, gradient accumulation with normalized losses, optional
clipping, and optional mixed precision (autocast, plus a GradScaler for
float16).  ``device="cpu"``/``"cuda"`` hands the same config to the vectorized
engine's ``micrograd2.tensors.training.train``, which has the same signature.
"""
from __future__ import annotations

import importlib
import math
import random
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Iterator, Sequence

from . import data as datasets
from .amp import GradScaler, autocast
from .autograd import no_grad
from .nn import MLP
from .nn.functional import cross_entropy, hinge_loss
from .nn.utils import clip_grad_norm_
from .optim import SGD, Adam, Optimizer

__all__ = ["Progress", "TrainConfig", "TrainResult", "plot", "require_matplotlib", "train"]

DATASETS = datasets.NAMES
OPTIMIZERS = ("sgd", "adam")
DEVICES = ("scalar", "cpu", "cuda")
AMP_DTYPES = ("float16", "bfloat16")
DEFAULT_LR = {"sgd": 0.1, "adam": 0.02}

# progress(step, loss, accuracy): called after every optimizer step
Progress = Callable[[int, float, float], None]


@dataclass
class TrainConfig:
    """What to train and how; every field has a default (the CLI's options map onto them one to one).

    Fields:
        dataset: ``"moons"``, ``"circles"``, ``"spirals"`` (3 arms) or ``"digits"`` (needs scikit-learn).
        samples: number of training points (digits: a seeded subset of the 1797 images).
        noise: the dataset's noise; ``None`` = its default (moons 0.1, circles 0.05, spirals 0.2; unused by digits).
        steps: number of optimizer steps.
        batch_size: samples per micro-batch; ``None`` (or ≥ ``samples``) = every sample in each micro-batch.
            Micro-batches walk through a seeded shuffle of the data, reshuffled at each epoch.
        accum_steps: micro-batches per optimizer step; their gradients accumulate and each micro-batch's
            loss is divided by ``accum_steps``, so the step sees the mean gradient over all of them.
        lr: learning rate; ``None`` = 0.1 for SGD, 0.02 for Adam.
        optimizer: ``"sgd"`` or ``"adam"``.
        momentum: SGD's momentum (ignored by Adam).
        weight_decay: L2 penalty added to the gradient, as PyTorch's ``weight_decay``.
        clip: clip the total gradient norm to this value before each step (``None`` = no clipping).
        amp: ``None``, ``"float16"`` or ``"bfloat16"``: run the forward pass under ``autocast(amp)``;
            float16 also uses a ``GradScaler`` (bfloat16 has float32's range and needs none).
        hidden: sizes of the hidden layers (the output layer has 1 unit for two classes, else one per class).
        activation: the hidden layers' nonlinearity, ``"relu"`` or ``"tanh"``.
        seed: seeds the dataset, the initial weights and the batch order.
        device: ``"scalar"`` (Values, pure Python), or ``"cpu"``/``"cuda"`` (the vectorized engine).

    The loss is micrograd's ``hinge_loss`` (labels ±1, one output) for two classes, and
    ``cross_entropy`` (one logit per class) for more.
    """

    dataset: str = "moons"
    samples: int = 100
    noise: float | None = None
    steps: int = 100
    batch_size: int | None = None
    accum_steps: int = 1
    lr: float | None = None
    optimizer: str = "sgd"
    momentum: float = 0.0
    weight_decay: float = 0.0
    clip: float | None = None
    amp: str | None = None
    hidden: tuple[int, ...] = (16, 16)
    activation: str = "relu"
    seed: int = 0
    device: str = "scalar"

    @property
    def learning_rate(self) -> float:
        """``lr``, or the optimizer's default when ``lr`` is ``None``."""
        return DEFAULT_LR[self.optimizer] if self.lr is None else self.lr

    def check(self) -> None:
        """Raise ``ValueError`` naming the first field that is out of range."""
        _one_of("dataset", self.dataset, DATASETS)
        _one_of("optimizer", self.optimizer, OPTIMIZERS)
        _one_of("device", self.device, DEVICES)
        _one_of("activation", self.activation, ("relu", "tanh"))
        if self.amp is not None:
            _one_of("amp", self.amp, AMP_DTYPES)
        for name in ("samples", "steps", "accum_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")
        if not self.learning_rate > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if self.clip is not None and not self.clip > 0:
            raise ValueError(f"clip (the max gradient norm) must be positive, got {self.clip}")
        if any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden layer sizes must be at least 1, got {list(self.hidden)}")
        if self.noise is not None and self.noise < 0:
            raise ValueError(f"noise must be non-negative, got {self.noise}")


def _one_of(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


@dataclass
class TrainResult:
    """What a run produced.

    Fields:
        config: the ``TrainConfig`` that was run.
        losses: the training loss at each optimizer step (the sum of its micro-batches' normalized
            losses, i.e. their mean loss; unscaled; it is that of the parameters *before* the step).
        accuracies: the fraction of that step's micro-batch samples classified correctly.
        accuracy: the fraction of the whole training set the final model classifies correctly.
        seconds: wall-clock time of the training loop (excluding dataset generation and final evaluation).
        skipped_steps: optimizer steps a ``GradScaler`` skipped for inf/nan gradients (0 without one).
        final_scale: the ``GradScaler``'s scale at the end, or ``None`` without one.
        n_parameters: number of scalar parameters of the model.
        model: the trained model (an ``nn.MLP`` on the scalar engine).
        dataset: the ``micrograd2.data.Dataset`` trained on.
        predict: ``predict(points) -> list[int]``: the trained model's class for each point
            (a sequence of feature lists); used to draw decision boundaries.
    """

    config: TrainConfig
    losses: list[float]
    accuracies: list[float]
    accuracy: float
    seconds: float
    skipped_steps: int
    final_scale: float | None
    n_parameters: int
    model: Any
    dataset: datasets.Dataset
    predict: Callable[[Sequence[Sequence[float]]], list[int]] = field(repr=False)

    @property
    def steps(self) -> int:
        """Optimizer steps run (skipped ones included)."""
        return len(self.losses)

    @property
    def final_loss(self) -> float:
        return self.losses[-1] if self.losses else math.nan

    @property
    def seconds_per_step(self) -> float:
        return self.seconds / max(self.steps, 1)


class EngineUnavailable(RuntimeError):
    """The vectorized engine (``micrograd2.tensors``) is not part of this build."""


# -- the run ---------------------------------------------------------------------------------------
def load_dataset(config: TrainConfig) -> datasets.Dataset:
    """The config's dataset, generated from its seed."""
    noise: dict[str, Any] = {} if config.noise is None else {"noise": config.noise}
    if config.dataset == "moons":
        return datasets.make_moons(config.samples, seed=config.seed, **noise)
    if config.dataset == "circles":
        return datasets.make_circles(config.samples, seed=config.seed, **noise)
    if config.dataset == "spirals":
        return datasets.make_spirals(config.samples, seed=config.seed, **noise)
    return datasets.load_digits(config.samples, seed=config.seed)


def train(config: TrainConfig, progress: Progress | None = None) -> TrainResult:
    """Train an MLP as ``config`` says; call ``progress(step, loss, accuracy)`` after every step."""
    config.check()
    if config.device != "scalar":
        return _vectorized(config, progress)
    dataset = load_dataset(config)
    binary = dataset.n_classes == 2
    model = MLP(dataset.n_features, [*config.hidden, 1 if binary else dataset.n_classes],
                activation=config.activation, seed=config.seed)

    def micro_step(batch: list[int] | None) -> tuple[Any, Tally]:
        indices = range(len(dataset)) if batch is None else batch
        outputs = [model(dataset.X[i]) for i in indices]
        loss = _loss(outputs, [dataset.y[i] for i in indices], binary)
        return loss, lambda: (sum(_predicted(o, binary) == dataset.y[i] for o, i in zip(outputs, indices)),
                              len(indices))

    loop = run_loop(config, model.parameters(), len(dataset), micro_step, progress)

    def predict(points: Sequence[Sequence[float]]) -> list[int]:
        with no_grad():
            return [_predicted(model(list(x)), binary) for x in points]

    predictions = predict(dataset.X)
    accuracy = sum(p == t for p, t in zip(predictions, dataset.y)) / len(dataset)
    return TrainResult(config, loop.losses, loop.accuracies, accuracy, loop.seconds, loop.skipped,
                       loop.final_scale, len(model.parameters()), model, dataset, predict)


Tally = Callable[[], tuple[int, int]]  # -> (correct, seen) for one micro-batch
MicroStep = Callable[[Any], tuple[Any, Tally]]  # batch indices (None: all) -> (loss, tally)


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
    """
    optimizer = _optimizer(config, parameters)
    scaler = GradScaler() if config.amp == "float16" else None
    batches = _micro_batches(n_samples, config.batch_size, random.Random(config.seed))
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


def _vectorized(config: TrainConfig, progress: Progress | None) -> TrainResult:
    """Hand the run to ``micrograd2.tensors.training.train`` (same signature), if this build has it."""
    try:
        module = importlib.import_module("micrograd2.tensors.training")
    except ModuleNotFoundError as exc:
        if exc.name not in ("micrograd2.tensors", "micrograd2.tensors.training"):
            raise EngineUnavailable(f"the vectorized engine can't be loaded: {exc}") from exc
        raise EngineUnavailable(
            f"--device {config.device} needs the vectorized engine (micrograd2.tensors), which isn't "
            "available in this build; use --device scalar"
        ) from exc
    result: TrainResult = module.train(config, progress)
    return result


def _optimizer(config: TrainConfig, params: list[Any]) -> Optimizer:
    if config.optimizer == "adam":
        return Adam(params, lr=config.learning_rate, weight_decay=config.weight_decay)
    return SGD(params, lr=config.learning_rate, momentum=config.momentum, weight_decay=config.weight_decay)


def _micro_batches(n: int, batch_size: int | None, rng: random.Random) -> Iterator[list[int] | None]:
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


def _loss(outputs: list[Any], labels: list[int], binary: bool) -> Any:
    if binary:
        return hinge_loss(outputs, [2.0 * t - 1.0 for t in labels])
    return cross_entropy(outputs, labels)


def _predicted(output: Any, binary: bool) -> int:
    if binary:
        return int(output.data > 0)
    scores = [o.data for o in output]
    return scores.index(max(scores))


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


# -- plotting (matplotlib is an optional extra) ---------------------------------------------------------
MATPLOTLIB_MISSING = "--plot needs matplotlib, which isn't installed: pip install matplotlib (or micrograd2[plot])"


def require_matplotlib() -> Any:
    """``matplotlib.pyplot`` with the file-only Agg backend; ``RuntimeError`` saying how to install it."""
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError(MATPLOTLIB_MISSING) from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot(result: TrainResult, path: str, grid: int = 40) -> str:
    """Write the loss curve and, for 2-D datasets, the decision boundary (a ``grid``×``grid`` map) to ``path``."""
    plt = require_matplotlib()
    two_d = result.dataset.n_features == 2
    fig, axes = plt.subplots(1, 2 if two_d else 1, figsize=(11 if two_d else 6, 4.5))
    loss_ax = axes[0] if two_d else axes
    loss_ax.plot(range(1, result.steps + 1), result.losses)
    loss_ax.set_xlabel("step")
    loss_ax.set_ylabel("training loss")
    loss_ax.set_title(f"{result.config.dataset}: final loss {result.final_loss:.4f}, "
                      f"accuracy {result.accuracy:.1%}")
    if two_d:
        _decision_boundary(axes[1], result, grid)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _decision_boundary(ax: Any, result: TrainResult, grid: int) -> None:
    xs = [p[0] for p in result.dataset.X]
    ys = [p[1] for p in result.dataset.X]
    x0, x1 = min(xs) - 0.25, max(xs) + 0.25
    y0, y1 = min(ys) - 0.25, max(ys) + 0.25
    gx = [x0 + (x1 - x0) * i / (grid - 1) for i in range(grid)]
    gy = [y0 + (y1 - y0) * j / (grid - 1) for j in range(grid)]
    classes = result.predict([[x, y] for y in gy for x in gx])
    rows = [classes[j * grid:(j + 1) * grid] for j in range(grid)]
    levels = [k - 0.5 for k in range(result.dataset.n_classes + 1)]  # one band per class
    ax.contourf(gx, gy, rows, levels=levels, cmap="coolwarm", alpha=0.35)
    ax.scatter(xs, ys, c=result.dataset.y, cmap="coolwarm", s=14, edgecolors="k", linewidths=0.3)
    ax.set_title("decision boundary")
    ax.set_aspect("equal")
