"""Softmax and the losses as single nodes: ``LogSoftmax``, ``NllLoss``, ``MseLoss``, the binary cross-entropies.

Each computes its loss in one ``forward`` on the backend, reduced as PyTorch's ``reduction`` says
(``"mean"``, ``"sum"`` or ``"none"``: see ``reduce_terms``), (stable where it
matters: log-softmax subtracts the largest logit, logs are clamped at −100 as in
PyTorch) and has its derivative written out.  ``functional.py`` puts them
behind PyTorch's names (``cross_entropy`` is ``nll_loss(log_softmax(z))``).
"""
from __future__ import annotations

import math
from typing import Any

from ..autograd import Function
from ..dtypes import BCE_EPSILON
from .compute import backend, shape_of, sum_to
from .indexing import scatter

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction: str) -> str:
    """``reduction`` if it is one of PyTorch's three, else PyTorch's ``ValueError``."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction\n"
                         "What to do: pass reduction='mean', 'sum' or 'none'.")
    return reduction


def reduce_terms(be: Any, terms: Any, reduction: str, count: float) -> Any:
    """The per-element losses ``terms`` as ``reduction`` asks: as they are (``"none"``), their sum, or
    their sum / ``count`` (``"mean"``).  The sum starts from +0, as PyTorch's (so −0.0 terms sum to 0.0)."""
    if reduction == "none":
        return terms
    total = be.binary("add", 0.0, be.sum(terms))
    return total if reduction == "sum" else be.binary("div", total, count)


class LogSoftmax(Function):
    """log softmax along ``dim``: zᵢ − log Σⱼ exp zⱼ, computed stably.  Keeps its output y:
    ∂/∂z = g − exp(y) · Σ g."""

    node_name = "LogSoftmaxBackward0"
    saved_names = ("result",)
    autocast = "fp32"
    ctx_slots = ("dim",)

    @staticmethod
    def forward(ctx, x, dim):
        be = backend(x)
        wide = be.astype(x, "float32") if be.dtype(x) == "float16" else x  # as PyTorch's CPU kernel
        out = be.log_softmax(wide, dim)  # (the result is rounded once to x's dtype)
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad - out.exp() * grad.sum(ctx.dim, True)


class NllLoss(Function):
    """−``logp[i, targets[i]]`` for each row whose target is not ``ignore_index`` (0 for the others: the
    negative log-likelihood of the right classes), reduced: the mean divides by the rows kept (0/0 = nan
    if every row is ignored, as PyTorch, and then the gradient is zeros).
    ∂/∂logp is −g (−g/count for the mean) at each kept row's target, 0 elsewhere.  The targets (class
    indices, an int64 array) are not an input of the node: they get no edge, as in PyTorch's
    ``NllLossBackward0``."""

    node_name = "NllLossBackward0"
    saved_names = ("target", "keep")
    autocast = "fp32"
    ctx_slots = ("shape", "count", "reduction")

    @staticmethod
    def forward(ctx, logp, targets, ignore_index=-100, reduction="mean"):
        be = backend(logp)
        keep = be.binary("eq", be.binary("eq", targets, ignore_index), False)
        safe = be.where(keep, targets, 0)  # an ignored row picks class 0, then counts as 0
        ctx.save_for_backward(safe, keep)
        ctx.shape = be.shape(logp)
        ctx.count = float(be.to_host(be.sum(be.astype(keep, "int64"))))
        ctx.reduction = reduction
        picked = be.where(keep, be.take_along_rows(logp, safe), 0.0)
        rows = be.binary("add", 0.0, be.unary("neg", picked))  # from +0, as PyTorch: no −0.0
        return reduce_terms(be, rows, reduction, ctx.count)

    @staticmethod
    def backward(ctx, grad):
        safe, keep = ctx.saved_tensors  # arrays: the targets, and the mask of the rows kept
        be = backend(safe)
        n = ctx.shape[0]
        if ctx.reduction == "none":
            per_row = -grad
        elif ctx.reduction == "sum":
            per_row = (-grad).reshape(1).expand(n)
        elif not ctx.count:  # the mean, every row ignored: the loss is nan, its gradient zeros
            return scatter(grad.reshape(1).expand(n) * 0.0, ctx.shape, (be.arange(n), safe))
        else:
            per_row = (grad / -ctx.count).reshape(1).expand(n)
        per_row = per_row * be.astype(keep, be.dtype(grad.data))
        return scatter(per_row, ctx.shape, (be.arange(n), safe))


class MseLoss(Function):
    """(pred − target)², reduced.  ∂/∂pred = 2(pred − target)·g (/n for the mean), ∂/∂target = −∂/∂pred."""

    node_name = "MseLossBackward0"
    saved_names = ("self", "target")
    autocast = "fp32"
    ctx_slots = ("shapes", "n", "reduction")

    @staticmethod
    def forward(ctx, pred, target, reduction="mean"):
        be = backend(pred, target)
        ctx.save_for_backward(pred, target)
        diff = be.binary("sub", pred, target)
        ctx.shapes = (shape_of(pred), shape_of(target))
        ctx.n = math.prod(be.shape(diff))
        ctx.reduction = reduction
        return reduce_terms(be, be.binary("mul", diff, diff), reduction, float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        pred, target = ctx.saved_tensors
        sp, st = ctx.shapes
        need_p, need_t = ctx.needs_input_grad
        # PyTorch's mse_loss_backward; of no elements, 2/0 is C's inf (the gradient is empty)
        norm = (2.0 / ctx.n if ctx.n else math.inf) if ctx.reduction == "mean" else 2.0
        g = (pred - target) * (grad * norm)
        return (sum_to(g, sp) if need_p else None), (sum_to(-g, st) if need_t else None)


def log1p(be: Any, u: Any) -> Any:
    """log(1 + u) accurate for small u, from the backend's ``log``: log(w)·u/(w − 1) with w = 1 + u
    (the rounding of w cancels), or u itself where w rounds to 1."""
    w = be.binary("add", 1.0, u)
    ratio = be.binary("div", be.binary("mul", be.unary("log", w), u), be.binary("sub", w, 1.0))
    return be.where(be.binary("eq", w, 1.0), u, ratio)


class BinaryCrossEntropy(Function):
    """−[y·log p + (1 − y)·log(1 − p)], each log clamped at −100 (as PyTorch: log(1 − p) is
    log1p(−p), exact for a tiny p), reduced.  ∂/∂p is ``BceGrad`` (PyTorch's kernel, and its own
    double backward); ∂/∂y = −logit(p)·g, each / n for the mean."""

    node_name = "BinaryCrossEntropyBackward0"
    saved_names = ("self", "target")
    autocast = "fp32"
    ctx_slots = ("n", "reduction")

    @staticmethod
    def forward(ctx, p, y, reduction="mean"):
        be = backend(p, y)
        if math.prod(be.shape(p)):  # PyTorch's check (a nan fails it too)
            high, minus_low = float(be.to_host(be.max(p))), float(be.to_host(be.max(be.unary("neg", p))))
            if not (high <= 1.0 and minus_low <= 0.0):
                raise RuntimeError("all elements of input should be between 0 and 1\n"
                                   "What to do: pass probabilities (e.g. x.sigmoid()), or the logits to "
                                   "binary_cross_entropy_with_logits.")
        ctx.save_for_backward(p, y)
        log_p = be.binary("maximum", be.unary("log", p), -100.0)
        log_q = be.binary("maximum", log1p(be, be.unary("neg", p)), -100.0)
        terms = be.binary("sub", be.binary("mul", be.binary("sub", y, 1.0), log_q), be.binary("mul", y, log_p))
        ctx.n = math.prod(be.shape(terms))
        ctx.reduction = reduction
        return reduce_terms(be, terms, reduction, float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        p, y = ctx.saved_tensors
        need_p, need_y = ctx.needs_input_grad
        n = float(ctx.n) if ctx.reduction == "mean" else 1.0
        grad_p = BceGrad.apply(grad, p, y, n=n) if need_p else None
        grad_y = None
        if need_y:  # PyTorch's binary_cross_entropy_target_backward: −logit(p)·g, then / n
            grad_y = -Logit.apply(p) * grad
            grad_y = grad_y / n if ctx.reduction == "mean" else grad_y
        return grad_p, grad_y


class BceGrad(Function):
    """PyTorch's ``binary_cross_entropy_backward(g, p, y)`` = g·(p − y) / max((1 − p)·p, ε) / n, as one
    op: NOTE [The binary cross-entropy's second derivative]."""

    node_name = "BinaryCrossEntropyBackwardBackward0"
    saved_names = ("grad_output", "self", "target")
    ctx_slots = ("n",)

    @staticmethod
    def forward(ctx, g, p, y, n):
        be = backend(p, y)
        ctx.save_for_backward(g, p, y)
        ctx.n = n
        denom = be.binary("maximum", be.binary("mul", be.binary("sub", 1.0, p), p), BCE_EPSILON)
        out = be.binary("div", be.binary("mul", g, be.binary("sub", p, y)), denom)
        return out if n == 1.0 else be.binary("div", out, n)

    # NOTE [The binary cross-entropy's second derivative]
    # derivatives.yaml differentiates the first derivative with formulas of its own, which put
    # ε = 1e-12 elsewhere than the first derivative's guard: ∂/∂p = (p² − 2py + y) /
    # ((p + ε)²(1 − p + ε)²)·gg·g, ∂/∂y = −gg·g / max((1 − p)p, ε), ∂/∂g = (p − y) /
    # ((p + ε)(1 − p + ε))·gg (each / n for the mean). The exact derivative differs near 0 and 1.
    @staticmethod
    def backward(ctx, gg):
        g, p, y = ctx.saved_tensors
        need_g, need_p, need_y = ctx.needs_input_grad
        eps, n = 1e-12, ctx.n
        grad_g = grad_p = grad_y = None
        if need_p:
            grad_p = (p * p - 2 * p * y + y) / ((p + eps) ** 2 * (1 - p + eps) ** 2) * (gg * g)
            grad_p = grad_p / n if n != 1.0 else grad_p
        if need_y:
            grad_y = (-gg * g) / ((1 - p) * p).detach().clamp_min(eps)
            grad_y = grad_y / n if n != 1.0 else grad_y
        if need_g:
            grad_g = (p - y) / ((p + eps) * (1 - p + eps)) * gg
            grad_g = sum_to(grad_g / n if n != 1.0 else grad_g, shape_of(g))
        return grad_g, grad_p, grad_y


class Logit(Function):
    """log(p / (1 − p)) (``LogitBackward0``): ∂/∂p = g / (p(1 − p)), nan outside [0, 1]."""

    node_name = "LogitBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, p):
        be = backend(p)
        ctx.save_for_backward(p)
        return be.unary("log", be.binary("div", p, be.binary("sub", 1.0, p)))

    @staticmethod
    def backward(ctx, grad):
        (p,) = ctx.saved_tensors
        return (grad / (p * (1.0 - p))).where(p <= 1.0, math.nan).where(p >= 0.0, math.nan)


class BinaryCrossEntropyWithLogits(Function):
    """−[y·log σ(x) + (1 − y)·log(1 − σ(x))] from logits x, as PyTorch: (1 − y)·x − log σ(x), with
    log σ(x) = min(x, 0) − log1p(e^−|x|) in x's dtype (exact for confident logits), reduced.
    ∂/∂x = (σ(x) − y)·g, ∂/∂y = −x·g, each then / n for the mean (PyTorch's order)."""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    saved_names = ("self", "target")
    autocast = "fp32"
    ctx_slots = ("n", "reduction")

    @staticmethod
    def forward(ctx, x, y, reduction="mean"):
        be = backend(x, y)
        ctx.save_for_backward(x, y)
        low = be.unary("neg", be.binary("maximum", be.unary("neg", x), 0.0))  # min(x, 0)
        log_sigmoid = be.binary("sub", low, log1p(be, be.unary("exp", be.unary("neg", be.unary("abs", x)))))
        terms = be.binary("sub", be.binary("mul", be.binary("sub", 1.0, y), x), log_sigmoid)
        ctx.n = math.prod(be.shape(terms))
        ctx.reduction = reduction
        return reduce_terms(be, terms, reduction, float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        n = float(ctx.n) if ctx.reduction == "mean" else None
        grad_x = (x.sigmoid() - y) * grad if need_x else None
        grad_y = -x * grad if need_y else None
        if n is not None:
            grad_x = None if grad_x is None else grad_x / n
            grad_y = None if grad_y is None else grad_y / n
        return grad_x, grad_y
