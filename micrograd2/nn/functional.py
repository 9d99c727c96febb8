"""Losses as functions of Values: ``mse_loss``, ``hinge_loss``, ``binary_cross_entropy``.

Each takes two Values or two equal-length sequences and returns the mean as
one Value.  (The vectorized engine adds Tensor versions and ``cross_entropy``.)
"""
from __future__ import annotations

from typing import Any, Sequence

from ..value import Value, sum


def _pairs(pred: Any, target: Any, name: str) -> tuple[Sequence[Any], Sequence[Any]]:
    if isinstance(pred, Value) or not hasattr(pred, "__len__"):
        return [pred], [target]
    if not hasattr(target, "__len__") or len(pred) != len(target):
        raise ValueError(f"{name}() needs predictions and targets of the same length")
    if len(pred) == 0:
        raise ValueError(f"{name}() needs at least one prediction")
    return pred, target


def mse_loss(pred: Any, target: Any) -> Value:
    """Mean of (pred − target)²."""
    ps, ts = _pairs(pred, target, "mse_loss")
    return sum((p - t) ** 2 for p, t in zip(ps, ts)) * (1.0 / len(ps))


def hinge_loss(scores: Any, labels: Any) -> Value:
    """micrograd's max-margin loss: mean of relu(1 − yᵢ·scoreᵢ), labels ±1."""
    ss, ys = _pairs(scores, labels, "hinge_loss")
    return sum((1 - y * s).relu() for s, y in zip(ss, ys)) * (1.0 / len(ss))


def binary_cross_entropy(prob: Any, target: Any) -> Value:
    """Mean of −[y·log p + (1 − y)·log(1 − p)] for probabilities p in (0, 1)."""
    ps, ts = _pairs(prob, target, "binary_cross_entropy")
    terms = (-(t * p.log() + (1 - t) * (1 - p).log()) for p, t in zip(ps, ts))
    return sum(terms) * (1.0 / len(ps))
