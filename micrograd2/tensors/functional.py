"""Losses and layers as functions of Tensors (``mg.nn.functional`` hands Tensors over to these).

``mse_loss``, ``hinge_loss``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``,
``log_softmax``, ``cross_entropy``, ``nll_loss`` and ``linear``, with PyTorch's graphs:
``cross_entropy`` is ``nll_loss(log_softmax(logits, 1), targets)``
(``NllLossBackward0`` → ``LogSoftmaxBackward0``), ``linear`` on a batch is one
``AddmmBackward0`` fed by the weight's ``TBackward0``.  Each loss returns the
mean as a 0-d Tensor; ``reduction="sum"`` the sum, ``reduction="none"`` one loss per element (per
sample for the cross-entropies), as PyTorch's.
"""
from __future__ import annotations

import math
from typing import Any

from ..autograd import grad_mode
from .creation import tensor
from .linalg import TITLES, Addmm, same_dtype
from .losses import BinaryCrossEntropy, BinaryCrossEntropyWithLogits, MseLoss, NllLoss, check_reduction
from .storage import INTEGERS
from .tensor import Tensor

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "hinge_loss", "linear",
           "log_softmax", "mse_loss", "nll_loss", "softmax"]


def _like(x: Any, ref: Tensor) -> Any:
    """``x`` as an operand next to ``ref``: Tensors as they are, anything else a constant Tensor."""
    if isinstance(x, Tensor):
        return x
    return tensor(x, dtype=ref.dtype, device=ref.device)


def _float32(*inputs: Any) -> tuple[Any, ...]:
    """Under autocast, a composite loss runs in float32 (its inputs cast first), as PyTorch's losses."""
    policy = grad_mode.autocast_policy()
    if policy is None:
        return inputs
    return tuple(policy.cast((x,), "float32")[0] if isinstance(x, Tensor) else x for x in inputs)


def mse_loss(pred: Tensor, target: Any, *, reduction: str = "mean") -> Tensor:
    """mean((pred − target)²) (or the sum, or each square): one ``MseLossBackward0`` node."""
    return MseLoss.apply(pred, _like(target, pred), reduction=check_reduction(reduction))


def hinge_loss(scores: Tensor, labels: Any, *, reduction: str = "mean") -> Tensor:
    """micrograd's max-margin loss: mean of relu(1 − yᵢ·scoreᵢ), labels ±1 (same shape as scores)."""
    check_reduction(reduction)
    scores, labels = _float32(scores, _like(labels, scores))
    terms = (1.0 - labels * scores).relu()
    return terms if reduction == "none" else terms.sum() if reduction == "sum" else terms.mean()


def binary_cross_entropy(prob: Tensor, target: Any, *, reduction: str = "mean") -> Tensor:
    """−mean[y·log p + (1 − y)·log(1 − p)], logs clamped at −100 (``BinaryCrossEntropyBackward0``).

    (``mg.nn.functional.binary_cross_entropy`` refuses to run under autocast, as PyTorch's, before it
    hands Tensors over to this.)
    """
    target = _like(target, prob)
    if target.shape != prob.shape:  # torch.nn.functional's check
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({prob.shape}) is deprecated. Please ensure they have the same size.\n"
                         "What to do: pass one target per probability, with the same shape.")
    return BinaryCrossEntropy.apply(prob, target, reduction=check_reduction(reduction))


def binary_cross_entropy_with_logits(logits: Tensor, target: Any, *,
                                     reduction: str = "mean") -> Tensor:
    """``binary_cross_entropy(sigmoid(logits), target)`` in one stable node
    (``BinaryCrossEntropyWithLogitsBackward0``), on autocast's float32 list.  ``target`` has
    ``logits``' shape, as PyTorch requires."""
    check_reduction(reduction)
    y = _like(target, logits)
    if y.shape != logits.shape:
        raise ValueError(
            f"Target size ({y.shape}) must be the same as input size ({logits.shape})\n"
            "What to do: pass one target per logit, with the logits' shape."
        )
    return BinaryCrossEntropyWithLogits.apply(logits, y, reduction=reduction)


def log_softmax(logits: Tensor, dim: int = -1) -> Tensor:
    """zᵢ − log Σⱼ exp zⱼ along ``dim`` (``LogSoftmaxBackward0``), stable for large logits."""
    return logits.log_softmax(dim)


def softmax(logits: Tensor, dim: int = -1) -> Tensor:
    """exp zᵢ / Σⱼ exp zⱼ along ``dim`` (``SoftmaxBackward0``), stable for large logits."""
    return logits.softmax(dim)


def nll_loss(log_probs: Tensor, targets: Any, ignore_index: int = -100, *,
             reduction: str = "mean") -> Tensor:
    """−mean of ``log_probs[i, targets[i]]`` over the samples whose target is not ``ignore_index``
    (``NllLossBackward0``); targets are class indices.  ``"sum"``: the sum; ``"none"``: one loss per
    sample, 0 where the target is ignored."""
    check_reduction(reduction)
    if log_probs.ndim != 2:
        raise ValueError(
            f"nll_loss() takes log-probabilities of shape (N, C), got {log_probs.shape}\n"
            "What to do: pass one row of class scores per sample."
        )
    index = _class_indices(targets, log_probs, ignore_index)
    return NllLoss.apply(log_probs, targets=index.data, ignore_index=ignore_index,
                         reduction=reduction)


def cross_entropy(logits: Tensor, targets: Any, ignore_index: int = -100, label_smoothing: float = 0.0,
                  *, reduction: str = "mean") -> Tensor:
    """PyTorch's ``cross_entropy``: ``nll_loss(log_softmax(logits, 1), targets)``.

    ``logits`` is ``(N, C)``, ``(C,)`` for one sample, or ``(N, C, d1, …)``.  ``targets`` holds class indices
    (ints, an integer array or an int64 Tensor; a target equal to ``ignore_index`` counts for nothing) or
    class probabilities (a float Tensor of the logits' shape).  ``label_smoothing`` ε mixes each target with
    the uniform distribution: (1 − ε)·loss + ε·mean over classes of −log p.  Stable for any logits.
    ``reduction``: the mean over the samples kept, their ``"sum"``, or ``"none"`` (one loss per sample,
    shaped ``(N, d1, …)``).
    """
    check_reduction(reduction)
    one = logits.ndim == 1
    if one:  # one sample
        logits = logits.unsqueeze(0)
        targets = _one_sample(targets)
    per_sample = (logits.shape[0], *logits.shape[2:])  # the shape of reduction="none"'s result
    logp = log_softmax(logits, 1)
    if isinstance(targets, Tensor) and targets.shape == logits.shape:  # class probabilities (as PyTorch: by shape)
        loss = _soft_cross_entropy(logp, targets, label_smoothing, reduction)
    else:
        loss = _hard_cross_entropy(logp, targets, ignore_index, label_smoothing, reduction)
    if reduction != "none":
        return loss
    return loss.reshape(()) if one else loss.reshape(*per_sample)  # type: ignore[no-any-return]


def _soft_cross_entropy(logp: Tensor, targets: Tensor, label_smoothing: float,
                        reduction: str) -> Tensor:
    """−Σ_c y_c·log p_c per sample, for class-probability targets y (smoothed toward uniform)."""
    classes = logp.shape[1]
    y = targets if not label_smoothing else targets * (1 - label_smoothing) + label_smoothing / classes
    if reduction == "none":
        return -(logp * y).sum(1)  # type: ignore[no-any-return]
    total = -(logp * y).sum()
    return total if reduction == "sum" else total / (logp.numel() / classes)  # type: ignore[no-any-return]


def _hard_cross_entropy(logp: Tensor, targets: Any, ignore_index: int, label_smoothing: float,
                        reduction: str) -> Tensor:
    """``nll_loss`` of the class-index targets, one row per position, mixed with the smoothing term."""
    classes = logp.shape[1]
    if logp.ndim > 2:  # (N, C, d…): the class axis last, one row per position
        axes = (0, *range(2, logp.ndim), 1)
        logp = logp.permute(*axes).reshape(-1, classes)
        targets = _like(targets, logp).reshape(-1) if not isinstance(targets, Tensor) else targets.reshape(-1)
    loss = nll_loss(logp, targets, ignore_index, reduction=reduction)
    if not label_smoothing:
        return loss
    index = _class_indices(targets, logp, ignore_index)
    kept = (index != ignore_index).to(logp.dtype)
    smooth = -(logp.sum(1) * kept)  # as PyTorch's masked_fill: ignored rows add 0
    if reduction == "mean":
        count = kept.sum()
        # every row ignored: nan, as PyTorch, with zero gradients (no 0/0 in the backward)
        smooth = smooth.sum() / count if count.item() else smooth.sum() + math.nan
    elif reduction == "sum":
        smooth = smooth.sum()
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / classes)  # type: ignore[no-any-return]


def _one_sample(targets: Any) -> Any:
    if isinstance(targets, Tensor):
        return targets.unsqueeze(0) if targets.dtype not in INTEGERS or targets.ndim == 0 else targets
    return [int(targets)]


def _class_indices(targets: Any, ref: Tensor, ignore_index: int = -100) -> Any:
    """``targets`` as an int64 Tensor on ``ref``'s device, checked against the number of classes
    (``ignore_index`` allowed)."""
    if isinstance(targets, Tensor):
        if targets.dtype not in INTEGERS:
            raise RuntimeError(
                f"expected scalar type Long but found {targets.dtype}\n"
                "What to do: class-index targets are integers: targets.long()."
            )
        t = targets if targets.dtype == "int64" else targets.to("int64")
        if t.device != ref.device:
            t = t.to(ref.device)
    else:
        t = tensor(targets, dtype="int64", device=ref.device)
    n, classes = ref.shape
    if t.shape != (n,):
        raise ValueError(
            f"Expected input batch_size ({n}) to match target batch_size ({t.shape[0] if t.ndim else 0}).\n"
            "What to do: pass one class index per row of logits."
        )
    if n:
        checked = [v for v in t.detach().tolist() if v != ignore_index]
        largest, smallest = max(checked, default=0), min(checked, default=0)
        bad = largest if largest >= classes else smallest if smallest < 0 else None
        if bad is not None:
            raise IndexError(f"Target {bad} is out of bounds.\n"
                             f"What to do: targets are class indices in 0..{classes - 1}.")
    return t


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weightᵀ + bias, as ``torch.nn.functional.linear`` builds it: on a batch one ``AddmmBackward0``
    node (the weight through ``TBackward0``); a contiguous input of any other number of dims is reshaped
    to rows, goes through the same ``Addmm`` and is viewed back (``ViewBackward0``); otherwise
    ``x @ weightᵀ`` with the bias added in place (``AddBackward0``).  No bias: ``x @ weightᵀ``.

    Under autocast the weight is cast before it is transposed, so the graph reads as PyTorch's
    (``AddmmBackward0`` → ``TBackward0`` → ``ToCopyBackward0`` → ``AccumulateGrad``).
    """
    policy = grad_mode.autocast_policy()
    if policy is not None and getattr(policy, "dtype", None):
        x, weight, bias = policy.cast((x, weight, bias), policy.dtype)
    same_dtype(x, weight, "mat1 and mat2 must have the same dtype, but got {} and {}", TITLES)
    if bias is not None:
        same_dtype(bias, weight, "self and mat2 must have the same dtype, but got {} and {}", TITLES)
    wt = weight.t()
    if bias is None:
        return x @ wt
    if x.ndim == 2:
        return Addmm.apply(bias, x, wt)
    if x.ndim and x.is_contiguous() and bias.ndim == 1:  # PyTorch's _flatten_nd_linear
        rows = x.reshape(math.prod(x.shape[:-1]), x.shape[-1])
        return Addmm.apply(bias, rows, wt).view(*x.shape[:-1], wt.shape[-1])  # type: ignore[no-any-return]
    return (x @ wt).add_(bias)
