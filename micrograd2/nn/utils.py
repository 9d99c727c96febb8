"""Gradient utilities: ``clip_grad_norm_``, PyTorch's gradient clipping by total norm."""
from __future__ import annotations

import math
from typing import Any, Iterable

from ..autograd import Variable
from ..optim import grad_norm_term, scale_grad_

__all__ = ["clip_grad_norm_"]


def _nonfinite(norm_type: float) -> str:
    return (
        f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
        "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
        "`error_if_nonfinite=False`\n"
        "What to do: find where the inf/nan gradient comes from (mg.detect_anomaly()), or let a GradScaler "
        "skip the step."
    )


def clip_grad_norm_(parameters: Iterable[Any] | Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False) -> float:
    """Scale all gradients in place so that their total norm is at most ``max_norm`` (PyTorch's order of
    arguments).

    Returns the total norm **before** clipping: the ``norm_type``-norm (1, 2, ``inf`` or any p > 0) of
    all entries of all ``.grad``s together.  As in PyTorch, the gradients are multiplied by
    ``min(1, max_norm / (norm + 1e-6))`` — so a nan norm turns every gradient into nan — and
    ``error_if_nonfinite=True`` raises ``RuntimeError`` instead when the norm is inf or nan.
    Parameters without a gradient are skipped.
    """
    if isinstance(parameters, Variable):
        parameters = [parameters]
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return 0.0
    norm_type = float(norm_type)
    norm = _total_norm([grad_norm_term(p, norm_type) for p in params], norm_type)
    if error_if_nonfinite and not math.isfinite(norm):
        raise RuntimeError(_nonfinite(norm_type))
    clip_coef = max_norm / (norm + 1e-6)
    if clip_coef < 1.0 or clip_coef != clip_coef:  # min(1, coef), where min(1, nan) is nan as torch.clamp
        for p in params:
            scale_grad_(p, clip_coef)
    return norm


def _total_norm(terms: list[float], norm_type: float) -> float:
    """(Σ terms)^(1/p) correctly rounded where it can be (max for p = inf); inf on overflow, nan if a term
    is nan."""
    if any(t != t for t in terms):
        return math.nan
    if norm_type == math.inf:
        return max(terms)
    try:
        total = math.fsum(terms)
    except OverflowError:
        return math.inf
    if norm_type == 1.0:
        return total
    return math.sqrt(total) if norm_type == 2.0 else total ** (1.0 / norm_type)
