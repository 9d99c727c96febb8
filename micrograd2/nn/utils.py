"""Gradient utilities: ``clip_grad_norm_``, PyTorch's gradient clipping by total norm."""
from __future__ import annotations

import math
from typing import Any, Iterable

from ..autograd import Variable
from ..optim import grad_sq_norm, scale_grad_

__all__ = ["clip_grad_norm_"]

NONFINITE_NORM = (
    "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be clipped. "
    "To disable this error and scale the gradients by the non-finite norm anyway, set "
    "`error_if_nonfinite=False`\n"
    "What to do: find where the inf/nan gradient comes from (mg.detect_anomaly()), or let a GradScaler skip the step."
)


def clip_grad_norm_(parameters: Iterable[Any] | Any, max_norm: float, error_if_nonfinite: bool = False) -> float:
    """Scale all gradients in place so that their total L2 norm is at most ``max_norm``.

    Returns the total norm **before** clipping, ‖(g₁, g₂, …)‖₂ over every entry of
    every ``.grad``.  As in PyTorch, the gradients are multiplied by
    ``min(1, max_norm / (norm + 1e-6))`` — so a nan norm turns every gradient into
    nan — and ``error_if_nonfinite=True`` raises ``RuntimeError`` instead when the
    norm is inf or nan.  Parameters without a gradient are skipped.
    """
    if isinstance(parameters, Variable):
        parameters = [parameters]
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return 0.0
    norm = _total_norm([grad_sq_norm(p) for p in params])
    if error_if_nonfinite and not math.isfinite(norm):
        raise RuntimeError(NONFINITE_NORM)
    clip_coef = max_norm / (norm + 1e-6)
    if clip_coef < 1.0 or clip_coef != clip_coef:  # min(1, coef), where min(1, nan) is nan as torch.clamp
        for p in params:
            scale_grad_(p, clip_coef)
    return norm


def _total_norm(squares: list[float]) -> float:
    """√Σ squares, correctly rounded; inf if the sum overflows, nan if a square is nan."""
    try:
        return math.sqrt(math.fsum(squares))
    except (OverflowError, ValueError):
        return math.nan if any(s != s for s in squares) else math.inf
