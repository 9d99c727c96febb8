"""Small classification datasets, generated on the spot (no downloads), reproducible from a seed.

Each function returns a ``Dataset``: ``X`` is a list of points (lists of floats)
and ``y`` a list of class indices, pure Python for the scalar engine;
``dataset.numpy()`` gives ``(X float32 array, y int64 array)`` for the Tensor
engine.  A dataset unpacks like a pair: ``X, y = make_moons(100, 0.1, seed=1)``.

The generators follow scikit-learn's ``make_moons``/``make_circles`` and CS231n's
spirals; ``load_digits`` reads scikit-learn's bundled 8x8 digits.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["Dataset", "load_digits", "make_circles", "make_moons", "make_spirals", "NAMES"]


@dataclass
class Dataset:
    """Points ``X`` (``n`` lists of ``n_features`` floats) and labels ``y`` (ints in ``0..n_classes-1``)."""

    X: list[list[float]]
    y: list[int]
    n_classes: int
    name: str

    def __len__(self) -> int:
        return len(self.y)

    def __iter__(self) -> Iterator[Any]:  # X, y = dataset
        return iter((self.X, self.y))

    @property
    def n_features(self) -> int:
        return len(self.X[0]) if self.X else 0

    def signed_labels(self) -> list[float]:
        """The labels as -1.0/+1.0 (for ``hinge_loss``); only for two classes."""
        if self.n_classes != 2:
            raise ValueError(f"signed_labels() needs two classes, {self.name} has {self.n_classes}")
        return [2.0 * label - 1.0 for label in self.y]

    def numpy(self) -> tuple[Any, Any]:
        """``(X, y)`` as NumPy arrays: float32 of shape ``(n, n_features)`` and int64 of shape ``(n,)``."""
        import numpy as np

        return np.asarray(self.X, dtype=np.float32), np.asarray(self.y, dtype=np.int64)


def _check(n: int, noise: float) -> None:
    if n < 1:
        raise ValueError(f"a dataset needs at least one sample, got n={n}")
    if noise < 0:
        raise ValueError(f"noise is a standard deviation and can't be negative, got {noise}")


def _linspace(start: float, stop: float, n: int) -> list[float]:
    if n == 1:
        return [start]
    return [start + (stop - start) * i / (n - 1) for i in range(n)]


def _finish(points: list[tuple[float, float]], labels: list[int], noise: float, rng: random.Random,
            n_classes: int, name: str) -> Dataset:
    """Add Gaussian noise to every coordinate, then shuffle points and labels together."""
    X = [[x + rng.gauss(0.0, noise), y + rng.gauss(0.0, noise)] if noise else [x, y] for x, y in points]
    order = list(range(len(X)))
    rng.shuffle(order)
    return Dataset([X[i] for i in order], [labels[i] for i in order], n_classes, name)


def make_moons(n: int = 100, noise: float = 0.1, seed: int | None = 0) -> Dataset:
    """Two interleaving half circles (scikit-learn's ``make_moons``): class 0 on top, class 1 below."""
    _check(n, noise)
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    top = [(math.cos(t), math.sin(t)) for t in _linspace(0.0, math.pi, n_out)]
    bottom = [(1.0 - math.cos(t), 0.5 - math.sin(t)) for t in _linspace(0.0, math.pi, n_in)]
    return _finish(top + bottom, [0] * n_out + [1] * n_in, noise, rng, 2, "moons")


def make_circles(n: int = 100, noise: float = 0.05, seed: int | None = 0, factor: float = 0.8) -> Dataset:
    """A circle of class 0 around a smaller one (radius ``factor``) of class 1 (scikit-learn's ``make_circles``)."""
    _check(n, noise)
    if not 0 < factor < 1:
        raise ValueError(f"factor is the inner circle's radius and must be in (0, 1), got {factor}")
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    outer = [(math.cos(t), math.sin(t)) for t in _angles(n_out)]
    inner = [(factor * math.cos(t), factor * math.sin(t)) for t in _angles(n_in)]
    return _finish(outer + inner, [0] * n_out + [1] * n_in, noise, rng, 2, "circles")


def _angles(n: int) -> list[float]:
    return [2 * math.pi * i / n for i in range(n)]


def make_spirals(n: int = 150, classes: int = 3, noise: float = 0.2, seed: int | None = 0) -> Dataset:
    """``classes`` interleaved spiral arms (CS231n's spiral data); ``noise`` jitters each point's angle.

    Arm ``k`` holds points at radius r from 0 to 1 and angle ``4k + 4r``.
    """
    _check(n, noise)
    if classes < 2:
        raise ValueError(f"make_spirals needs at least 2 classes, got {classes}")
    rng = random.Random(seed)
    points: list[tuple[float, float]] = []
    labels: list[int] = []
    for k in range(classes):
        count = n // classes + (1 if k < n % classes else 0)
        for r in _linspace(0.0, 1.0, count):
            t = 4.0 * k + 4.0 * r + (rng.gauss(0.0, noise) if noise else 0.0)
            points.append((r * math.sin(t), r * math.cos(t)))
            labels.append(k)
    return _finish(points, labels, 0.0, rng, classes, "spirals")


def load_digits(n: int | None = None, seed: int | None = 0) -> Dataset:
    """scikit-learn's bundled 8x8 handwritten digits (1797 images, no download), pixels scaled to [0, 1].

    ``n`` keeps a seeded random subset of that many images (all of them by default).
    Raises ``ImportError`` with how to install scikit-learn when it is missing.
    """
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError as exc:
        raise ImportError(
            "load_digits() needs scikit-learn, which ships the 8x8 digits (no download).\n"
            "What to do: pip install scikit-learn, or use make_moons/make_circles/make_spirals."
        ) from exc
    bunch = sklearn_digits()
    X = [[float(p) / 16.0 for p in row] for row in bunch.data]
    y = [int(t) for t in bunch.target]
    order = list(range(len(y)))
    random.Random(seed).shuffle(order)
    if n is not None:
        if n < 1:
            raise ValueError(f"a dataset needs at least one sample, got n={n}")
        order = order[:n]
    return Dataset([X[i] for i in order], [y[i] for i in order], 10, "digits")


NAMES = ("moons", "circles", "spirals", "digits")
