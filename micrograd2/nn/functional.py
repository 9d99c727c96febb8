"""Losses: ``mse_loss``, ``hinge_loss``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``,
``cross_entropy`` (and ``log_softmax``).

On Values each takes two Values or two equal-length sequences and returns the
mean as one Value, built from the scalar engine's ops (so a trace shows every
step); ``reduction="sum"`` returns the sum, ``reduction="none"`` the list of
per-element losses (one Value when the inputs were single Values), as PyTorch's.
Given Tensors, each hands over to ``micrograd2.tensors.functional``'s function
of the same name.  Under ``mg.autocast`` every loss runs in float32
(its inputs are cast first, as PyTorch's autocast does for its losses), except
``binary_cross_entropy``, which raises there as PyTorch's does: use the
with-logits form.
"""
from __future__ import annotations

import functools
import math
import sys
from typing import Any, Callable, Sequence, TypeVar

from ..amp import autocast_float32, refuse_under_autocast
from ..autograd import Function, grad_mode
from ..dtypes import BCE_EPSILON, round_to
from ..scalar import Value, sum

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "hinge_loss",
           "log_softmax", "mse_loss", "relu", "softmax"]


def _tensor_version(name: str, x: Any) -> Any:
    """``micrograd2.tensors.functional.<name>`` when ``x`` is a Tensor, else ``None``.

    No Tensor exists unless ``micrograd2.tensors`` was imported, so this never imports NumPy.
    """
    tensors = sys.modules.get("micrograd2.tensors")
    tensor_class = getattr(tensors, "Tensor", None)
    if tensor_class is None or not isinstance(x, tensor_class):
        return None
    from ..tensors import functional

    return getattr(functional, name)


L = TypeVar("L", bound=Callable[..., Any])


def _either_engine(loss: L) -> L:
    """``loss`` as written for Values; given a Tensor (its first argument), the function of the same name
    in ``micrograd2.tensors.functional`` instead: the one place where the two engines part."""

    first = loss.__code__.co_varnames[0]  # the input (``pred``, ``logits``…), passed by position or by name

    @functools.wraps(loss)
    def on_either(*args: Any, **kwargs: Any) -> Any:
        tensor_fn = _tensor_version(loss.__name__, args[0] if args else kwargs.get(first))
        return (tensor_fn or loss)(*args, **kwargs)

    return on_either  # type: ignore[return-value]


REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> None:
    """PyTorch's ``ValueError`` for a ``reduction`` that is not one of its three."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction\n"
                         "What to do: pass reduction='mean', 'sum' or 'none'.")


def _reduced(terms: list[Any], reduction: str, single: bool) -> Any:
    """The per-element losses as ``reduction`` asks: their mean, their sum, or themselves (a list, or
    the one Value when the inputs were single Values, as PyTorch's 0-d result)."""
    if reduction == "none":
        return terms[0] if single else terms
    total = sum(terms)
    return total if reduction == "sum" else total / len(terms)


def _float32(*inputs: Any) -> tuple[Any, ...]:
    return autocast_float32(*inputs) if grad_mode.autocast_policy() is not None else inputs


def _pairs(pred: Any, target: Any, name: str) -> tuple[Sequence[Any], Sequence[Any]]:
    if isinstance(pred, Value) or not hasattr(pred, "__len__"):
        return [pred], [target]
    if not hasattr(target, "__len__") or len(pred) != len(target):
        raise ValueError(f"{name}() needs predictions and targets of the same length\n"
                         "What to do: pass one target per prediction.")
    if len(pred) == 0:
        raise ValueError(f"{name}() needs at least one prediction")
    return pred, target


def _single(x: Any) -> bool:
    return isinstance(x, Value) or not hasattr(x, "__len__")


@_either_engine
def mse_loss(pred: Any, target: Any, *, reduction: str = "mean") -> Any:
    """Mean of (pred − target)² (``reduction``: ``"mean"``, ``"sum"`` or ``"none"``)."""
    _check_reduction(reduction)
    pred, target = _float32(pred, target)
    ps, ts = _pairs(pred, target, "mse_loss")
    return _reduced([(p - t) ** 2 for p, t in zip(ps, ts)], reduction, _single(pred))


@_either_engine
def hinge_loss(scores: Any, labels: Any, *, reduction: str = "mean") -> Any:
    """micrograd's max-margin loss: mean of relu(1 − yᵢ·scoreᵢ), labels ±1."""
    _check_reduction(reduction)
    scores, labels = _float32(scores, labels)
    ss, ys = _pairs(scores, labels, "hinge_loss")
    return _reduced([(1 - y * s).relu() for s, y in zip(ss, ys)], reduction, _single(scores))


def binary_cross_entropy(prob: Any, target: Any, *, reduction: str = "mean") -> Any:
    """Mean of −[y·log p + (1 − y)·log(1 − p)] for probabilities p in [0, 1].

    As PyTorch, each log is clamped to be ≥ −100, so p = 0 or 1 gives a finite loss.
    Under autocast it raises ``RuntimeError`` ("unsafe to autocast"), as PyTorch's does.
    """
    _check_reduction(reduction)
    refuse_under_autocast("binary_cross_entropy", UNSAFE_BCE_WHAT_TO_DO)  # on either engine
    tensor_fn = _tensor_version("binary_cross_entropy", prob)
    if tensor_fn is not None:
        return tensor_fn(prob, target, reduction=reduction)
    ps, ts = _pairs(prob, target, "binary_cross_entropy")
    return _reduced([_bce_term(p, t) for p, t in zip(ps, ts)], reduction, _single(prob))


UNSAFE_BCE_WHAT_TO_DO = (
    "drop the sigmoid before the loss and call binary_cross_entropy_with_logits(logits, target), "
    "which is safe to autocast; or compute this loss outside the autocast block."
)


def _clamped_log(p: Any) -> Any:
    """max(log p, −100): past the clamp the term is a constant (no gradient)."""
    out = p.log() if isinstance(p, Value) else Value(p).log()
    return out if out.data >= -100.0 else Value(-100.0, dtype=out.dtype)


def _bce_term(p: Any, t: Any) -> Any:
    """−[t·log p + (1 − t)·log(1 − p)], each log clamped at −100.

    PyTorch's gradient is (p − t) / max((1 − p)·p, ε), ε = 1e−12 (as a float32): the same as the logs'
    −t/p + (1 − t)/(1 − p) except within ε of p = 0 or 1, where the guard holds (at p = 0 the logs'
    gradient would be 0 past the clamp, or ±inf).  There the logs are taken as constants and
    (p − p.detach())·c, which is 0, carries the gradient c = (p − t)/ε.
    """
    p = p if isinstance(p, Value) else Value(p)
    pd = p.data
    if not (1.0 - pd) * pd < BCE_EPSILON:  # (nan included)
        return -(t * _clamped_log(p) + (1 - t) * _clamped_log(1 - p))
    log_p, log_q = (Value(_clamped_log(q).data, dtype=p.dtype) for q in (p, 1 - p))
    dtype = p.dtype
    c = round_to(round_to(pd - float(t), dtype) / BCE_EPSILON, dtype)  # in p's dtype, as PyTorch
    return -(t * log_p + (1 - t) * log_q) + (p - p.detach()) * c




@_either_engine
def binary_cross_entropy_with_logits(logits: Any, target: Any, *, reduction: str = "mean") -> Any:
    """``binary_cross_entropy(sigmoid(x), y)`` from the logits x, computed stably as PyTorch's.

    Each term is −[y·log σ(x) + (1 − y)·log(1 − σ(x))] = (1 − y)·x + log(1 + e⁻ˣ), written
    (1 − y)·x + m + log(e⁻ᵐ + e⁻ˣ⁻ᵐ) with the constant m = max(−x, 0): no exponential
    overflows and no log sees 0, for any finite logit.  Its gradient is (σ(x) − y) / n.
    On autocast's float32 list (safe to autocast, unlike ``binary_cross_entropy``).
    """
    _check_reduction(reduction)
    logits, target = _float32(logits, target)
    xs, ts = _pairs(logits, target, "binary_cross_entropy_with_logits")
    return _reduced([_logit_term(x, t) for x, t in zip(xs, ts)], reduction, _single(logits))


def _logit_term(x: Any, t: Any) -> Any:
    """One term, as one ``BinaryCrossEntropyWithLogitsBackward0`` node (``LogitTerm``)."""
    x = x if isinstance(x, Value) else Value(x)
    return LogitTerm.apply(x, t, kind=x.dtype)


class LogitTerm(Function):
    """(1 − t)·x − log σ(x) on one logit, as PyTorch computes it: log σ(x) = min(x, 0) −
    log1p(e^−|x|), each step rounded to x's dtype (exact for confident logits, where
    log(1 + e⁻ˣ) rounds to 0).  ∂/∂x = σ(x) − t, PyTorch's formula (its cancellation
    included: 0 at x = 40, t = 1), ∂/∂t = −x."""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    saved_names = ("self", "target")
    ctx_slots = ("kind",)

    @staticmethod
    def forward(ctx, x, t, kind):
        ctx.save_for_backward(x, t)
        ctx.kind = kind
        r = functools.partial(round_to, dtype=kind)
        log_sigmoid = r(min(x, 0.0) - r(math.log1p(r(math.exp(-abs(x))))))
        return r(1.0 - t) * x - log_sigmoid

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        need_x, need_t = ctx.needs_input_grad
        sigmoid: Any
        if isinstance(grad, Value):  # recording (create_graph): Value ops, differentiable again
            sigmoid = x.sigmoid() if isinstance(x, Value) else Value(x, dtype=ctx.kind).sigmoid()
        else:  # 1/(1 + e⁻ˣ), each step in x's dtype, as PyTorch's kernel
            r = functools.partial(round_to, dtype=ctx.kind)
            sigmoid = r(1.0 / r(1.0 + r(math.exp(-x) if x > -709 else math.inf)))
        grad_x = (sigmoid - t) * grad if need_x else None
        return grad_x, (-x * grad if need_t else None)


@_either_engine
def log_softmax(logits: Any, dim: int = -1) -> Any:
    """zᵢ − log Σⱼ exp zⱼ for one sample's logits (a sequence of Values); Tensors: along ``dim``.

    Computed stably: the largest logit is subtracted first (a constant, so no gradient changes).
    """
    (zs,) = _float32(list(logits))
    lse = _logsumexp(zs)
    return [z - lse for z in zs]


@_either_engine
def softmax(logits: Any, dim: int = -1) -> Any:
    """exp zᵢ / Σⱼ exp zⱼ for one sample's logits (a sequence of Values); Tensors: along ``dim``
    (one ``SoftmaxBackward0`` node).  Computed stably, as ``log_softmax``."""
    (zs,) = _float32(list(logits))
    return [(z - _logsumexp(zs)).exp() for z in zs]


def relu(input: Any) -> Any:  # noqa: A002 - PyTorch's name
    """max(x, 0) of a Value or a Tensor (``ReluBackward0``), as ``torch.nn.functional.relu``."""
    if not hasattr(input, "relu"):
        raise TypeError(f"relu(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}\n"
                        "What to do: pass a Value or a Tensor.")
    return input.relu()


def _logsumexp(zs: Sequence[Any]) -> Any:
    m = max(float(z) for z in zs)
    if m != m or m in (float("inf"), float("-inf")):
        m = 0.0
    return sum((z - m).exp() for z in zs).log() + m


@_either_engine
def cross_entropy(logits: Any, targets: Any, *, reduction: str = "mean") -> Any:
    """Mean over samples of −log softmax(z)[target] = log Σⱼ exp zⱼ − z_target.

    Values: ``logits`` is one sample's sequence of Values with an int ``targets``,
    or a sequence of such sequences with a sequence of ints; ``reduction="none"``
    gives one loss per sample (one Value for one sample).  Tensors: PyTorch's
    ``cross_entropy(logits, targets)`` with class indices or probabilities.
    """
    _check_reduction(reduction)
    single = bool(len(logits)) and not hasattr(logits[0], "__len__")
    if single:
        logits, targets = [logits], [targets]
    if len(logits) != len(targets):
        raise ValueError("cross_entropy() needs one target class per sample\n"
                         f"What to do: got {len(logits)} samples and {len(targets)} targets.")
    if len(logits) == 0:
        raise ValueError("cross_entropy() needs at least one sample")
    losses = []
    for zs, t in zip(logits, targets):
        (zs,) = _float32(list(zs))
        if not 0 <= int(t) < len(zs):
            raise IndexError(f"Target {int(t)} is out of bounds.\n"
                             f"What to do: targets are class indices in 0..{len(zs) - 1}.")
        losses.append(_logsumexp(zs) - zs[int(t)])
    return _reduced(losses, reduction, single)
