"""Gradient utilities: ``clip_grad_norm_`` (clipping by total norm) and ``clip_grad_value_``, as
PyTorch's ``torch/nn/utils/clip_grad.py``."""
from __future__ import annotations

import math
from typing import Any, Iterable

from .. import dtypes
from ..autograd import Variable, no_grad
from ..optim import grad_norm_term, scale_grad_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


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
    the gradients' norms.  As in PyTorch, the gradients are multiplied by
    ``min(1, max_norm / (norm + 1e-6))`` — so a nan norm turns every gradient into nan — and
    ``error_if_nonfinite=True`` raises ``RuntimeError`` instead when the norm is inf or nan.
    Parameters without a gradient are skipped.

    NOTE [Clipping in the gradients' dtype]: as ``clip_grad.py``, each gradient's norm, the norm of
    those norms, ``norm + 1e-6`` and the coefficient are each rounded to the gradients' dtype (float32
    gradients give a float32 norm); then one multiply.  Each norm is computed exactly and rounded once,
    where torch's ``vector_norm`` adds in its own order: 1 ulp apart at most.
    """
    if isinstance(parameters, Variable):
        parameters = [parameters]
    params = [p for p in parameters if p.grad is not None]
    if not params:
        return 0.0
    norm_type = float(norm_type)
    kinds = [_grad_dtype(p) for p in params]
    dtype = dtypes.FLOAT64 if dtypes.FLOAT64 in kinds else kinds[0]
    norms = [dtypes.round_to(_total_norm([grad_norm_term(p, norm_type)], norm_type), kind)
             for p, kind in zip(params, kinds)]
    norm = dtypes.round_to(_total_norm([_power(n, norm_type) for n in norms], norm_type), dtype)
    if error_if_nonfinite and not math.isfinite(norm):
        raise RuntimeError(_nonfinite(norm_type))
    clip_coef = dtypes.round_to(max_norm / dtypes.round_to(norm + 1e-6, dtype), dtype)
    if clip_coef < 1.0 or clip_coef != clip_coef:  # min(1, coef), where min(1, nan) is nan as torch.clamp
        for p in params:
            scale_grad_(p, clip_coef)
    return norm


def clip_grad_value_(parameters: Iterable[Any] | Any, clip_value: float) -> None:
    """Clamp every gradient in place to [−clip_value, clip_value] (nan stays nan), as PyTorch's."""
    if isinstance(parameters, Variable):
        parameters = [parameters]
    c = float(clip_value)
    for p in parameters:
        g: Any = p.grad
        if g is None:
            continue
        if isinstance(g, Variable):  # a Tensor's gradient
            tensor_grad: Any = g
            with no_grad():
                tensor_grad.copy_(tensor_grad.clamp(-c, c))
        else:
            bound = dtypes.round_to(c, p.dtype)
            p.grad = g if g != g else min(max(g, -bound), bound)  # clamp's order: c < 0 gives c


def _grad_dtype(p: Any) -> str:
    """The dtype of ``p.grad`` (a Value's gradient is a float of the Value's dtype)."""
    return str(getattr(p.grad, "dtype", None) or p.dtype)


def _power(n: float, norm_type: float) -> float:
    """|n|^norm_type, the term a norm of norms adds (n itself for the max norm); inf on overflow."""
    if norm_type in (1.0, math.inf):
        return n
    if norm_type == 2.0:
        return n * n
    try:
        return float(n**norm_type)
    except OverflowError:
        return math.inf


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
