"""Training an MLP on a generated dataset: ``train(TrainConfig(...)) -> TrainResult``, for either engine.

``config.py`` says what to train and what comes out, ``loop.py`` is the loop
(written once), ``scalar.py`` and ``vectorized.py`` are each engine's part (its
model and micro-step), ``plot.py`` draws the result.
"""
from __future__ import annotations

from .config import (
    AMP_DTYPES,
    DATASETS,
    DEFAULT_LR,
    DEVICES,
    OPTIMIZERS,
    EngineRun,
    Progress,
    TrainConfig,
    TrainResult,
    load_dataset,
)
from .loop import EngineUnavailable, run_loop, train
from .plot import MATPLOTLIB_MISSING, plot, require_matplotlib

__all__ = [
    "AMP_DTYPES", "DATASETS", "DEFAULT_LR", "DEVICES", "MATPLOTLIB_MISSING", "OPTIMIZERS", "EngineRun",
    "EngineUnavailable", "Progress", "TrainConfig", "TrainResult", "load_dataset", "plot", "require_matplotlib",
    "run_loop", "train",
]
