"""What to train, what an engine supplies, what came out: ``TrainConfig``, ``EngineRun``, ``TrainResult``.

Both engines read the same config (the CLI's ``micrograd2 train`` options map
onto its fields one to one), supply the same ``EngineRun`` to the one loop
(``loop.py``), and fill in the same result.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .. import data as datasets

DATASETS = datasets.NAMES
OPTIMIZERS = ("sgd", "adam")
DEVICES = ("scalar", "cpu", "cuda")
AMP_DTYPES = ("float16", "bfloat16")
DEFAULT_LR = {"sgd": 0.1, "adam": 0.02}

# progress(step, loss, accuracy): called after every optimizer step
Progress = Callable[[int, float, float], None]
Tally = Callable[[], tuple[int, int]]  # -> (correct, seen) for one micro-batch
MicroStep = Callable[[Any], tuple[Any, Tally]]  # batch indices (None: all) -> (loss, tally)
Points = Sequence[Sequence[float]]


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
        model: the trained model (an ``nn.MLP`` on the scalar engine, a ``TensorMLP`` on the vectorized one).
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
    predict: Callable[[Points], list[int]] = field(repr=False)

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


@dataclass
class EngineRun:
    """What an engine supplies to the loop for one config and dataset (its ``prepare`` returns it).

    Fields:
        model: the model being trained.
        parameters: its parameters, for the optimizer.
        micro_step: ``micro_step(batch) -> (loss, tally)``: the forward pass on one micro-batch (sample
            indices, or ``None`` for every sample) and ``tally() -> (correct, seen)`` for it.
        predict: ``predict(points) -> list[int]``, each point's class.
        accuracy: ``accuracy()``: the fraction of the whole training set the model classifies correctly.
        n_parameters: the number of scalar parameters.
    """

    model: Any
    parameters: list[Any]
    micro_step: MicroStep
    predict: Callable[[Points], list[int]]
    accuracy: Callable[[], float]
    n_parameters: int


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
