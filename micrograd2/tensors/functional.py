"""Losses and layers as functions of Tensors (``mg.nn.functional`` hands Tensors over to these).

``mse_loss``, ``hinge_loss``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``,
``log_softmax``, ``cross_entropy``, ``nll_loss`` and ``linear``, with PyTorch's graphs:
``cross_entropy`` is ``nll_loss(log_softmax(logits, 1), targets)``
(``NllLossBackward0`` → ``LogSoftmaxBackward0``), ``linear`` on a batch is one
``AddmmBackward0`` fed by the weight's ``TBackward0``.  Each loss returns the
mean as a 0-d Tensor.
"""
from __future__ import annotations

from typing import Any

from ..autograd import grad_mode
from .creation import tensor
from .linalg import Addmm
from .losses import BinaryCrossEntropy, BinaryCrossEntropyWithLogits, MseLoss, NllLoss
from .storage import INTEGERS
from .tensor import Tensor

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "hinge_loss", "linear",
           "log_softmax", "mse_loss", "nll_loss"]


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


def mse_loss(pred: Tensor, target: Any) -> Tensor:
    """mean((pred − target)²): one ``MseLossBackward0`` node."""
    return MseLoss.apply(pred, _like(target, pred))


def hinge_loss(scores: Tensor, labels: Any) -> Tensor:
    """micrograd's max-margin loss: mean of relu(1 − yᵢ·scoreᵢ), labels ±1 (same shape as scores)."""
    scores, labels = _float32(scores, _like(labels, scores))
    return (1.0 - labels * scores).relu().mean()


def binary_cross_entropy(prob: Tensor, target: Any) -> Tensor:
    """−mean[y·log p + (1 − y)·log(1 − p)], logs clamped at −100 (``BinaryCrossEntropyBackward0``).

    (``mg.nn.functional.binary_cross_entropy`` refuses to run under autocast, as PyTorch's, before it
    hands Tensors over to this.)
    """
    return BinaryCrossEntropy.apply(prob, _like(target, prob))


def binary_cross_entropy_with_logits(logits: Tensor, target: Any) -> Tensor:
    """``binary_cross_entropy(sigmoid(logits), target)`` in one stable node
    (``BinaryCrossEntropyWithLogitsBackward0``), on autocast's float32 list.  ``target`` has
    ``logits``' shape, as PyTorch requires."""
    y = _like(target, logits)
    if y.shape != logits.shape:
        raise ValueError(
            f"Target size ({y.shape}) must be the same as input size ({logits.shape})\n"
            "What to do: pass one target per logit, with the logits' shape."
        )
    return BinaryCrossEntropyWithLogits.apply(logits, y)


def log_softmax(logits: Tensor, dim: int = -1) -> Tensor:
    """zᵢ − log Σⱼ exp zⱼ along ``dim`` (``LogSoftmaxBackward0``), stable for large logits."""
    return logits.log_softmax(dim)


def nll_loss(log_probs: Tensor, targets: Any) -> Tensor:
    """−mean of ``log_probs[i, targets[i]]`` (``NllLossBackward0``); targets are class indices."""
    if log_probs.ndim != 2:
        raise ValueError(
            f"nll_loss() takes log-probabilities of shape (N, C), got {log_probs.shape}\n"
            "What to do: pass one row of class scores per sample."
        )
    index = _class_indices(targets, log_probs)
    return NllLoss.apply(log_probs, index)


def cross_entropy(logits: Tensor, targets: Any) -> Tensor:
    """Mean over samples of −log softmax(logits)[target] = ``nll_loss(log_softmax(logits, 1), targets)``.

    ``logits`` is ``(N, C)`` (or ``(C,)`` for one sample); ``targets`` holds class indices:
    a sequence of ints, an integer NumPy array or an ``"int64"`` Tensor.  Stable for any logits.
    """
    if logits.ndim == 1:
        logits = logits.unsqueeze(0)
        targets = [int(targets.item() if isinstance(targets, Tensor) else targets)]
    return nll_loss(log_softmax(logits, 1), targets)


def _class_indices(targets: Any, ref: Tensor) -> Any:
    """``targets`` as an int64 array of ``ref``'s backend, checked against the number of classes."""
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
        largest, smallest = t.detach().amax().item(), -(-t.detach()).amax().item()
        bad = largest if largest >= classes else smallest if smallest < 0 else None
        if bad is not None:
            raise IndexError(f"Target {bad} is out of bounds.\n"
                             f"What to do: targets are class indices in 0..{classes - 1}.")
    return t


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ weightᵀ + bias, as ``torch.nn.functional.linear``: on a batch one ``AddmmBackward0`` node
    (the weight through ``TBackward0``); on one sample a matrix-vector product.

    Under autocast the weight is cast before it is transposed, so the graph reads as PyTorch's
    (``AddmmBackward0`` → ``TBackward0`` → ``ToCopyBackward0`` → ``AccumulateGrad``).
    """
    policy = grad_mode.autocast_policy()
    if policy is not None and getattr(policy, "dtype", None):
        x, weight, bias = policy.cast((x, weight, bias), policy.dtype)
    wt = weight.t()
    if bias is None:
        return x @ wt
    if x.ndim == 2:
        return Addmm.apply(bias, x, wt)
    return x @ wt + bias
