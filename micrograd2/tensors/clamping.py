"""Clamping: ``clamp``/``clip``, ``clamp_min``, ``clamp_max`` — each element held within bounds, as PyTorch.

The forward is min(max(x, lo), hi) from the backend's ``maximum`` (a minimum is a
maximum of negations, which is exact): NaN passes through, an element equal to a
bound is kept as it is (its sign of zero too), and lo > hi gives hi everywhere.
The gradients are PyTorch's ``clamp_backward``: the gradient where lo ≤ x ≤ hi,
0 elsewhere (and at NaN).  Bounds that are Tensors (``ClampBackward0``) get the
gradient where they were chosen (``clamp_backward_min_max``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..autograd import Function
from .compute import backend, data_of, promoted, shape_of, sum_to, where
from .storage import INTEGERS

if TYPE_CHECKING:
    from .tensor import Tensor


def _at_least(x: Any, lo: Any) -> Any:
    """max(lo, x) of arrays or numbers, keeping x on a tie (the backend keeps the second operand)."""
    return backend(x, lo).binary("maximum", lo, x)


def _at_most(x: Any, hi: Any) -> Any:
    """min(x, hi) = −max(−hi, −x), keeping x on a tie."""
    be = backend(x, hi)
    minus_hi = -hi if isinstance(hi, (int, float)) else be.unary("neg", hi)
    return be.unary("neg", be.binary("maximum", minus_hi, be.unary("neg", x)))


def _clamped(x: Any, lo: Any, hi: Any) -> Any:
    out = x if lo is None else _at_least(x, lo)
    return out if hi is None else _at_most(out, hi)


def _at_or_above(be: Any, a: Any, b: Any) -> Any:
    """The mask a ≥ b: a > b or a = b (False where either is NaN, as IEEE says)."""
    return be.binary("maximum", be.binary("gt", a, b), be.binary("eq", a, b))


def _within(x: Any, lo: Any, hi: Any) -> Any:
    """The mask lo ≤ x ≤ hi (False at a NaN, of x or of a bound; a missing bound holds everywhere)."""
    be = backend(x)
    above = None if lo is None else _at_or_above(be, x, lo)
    below = None if hi is None else _at_or_above(be, hi, x)
    if above is None or below is None:
        return above if below is None else below
    return be.binary("mul", above, below)


class Clamp(Function):
    """x held in [lo, hi] for numbers lo and hi (either may be None): ``ClampBackward1``.
    ∂/∂x = 1 where lo ≤ x ≤ hi, else 0 (PyTorch's ``clamp_backward``)."""

    node_name = "ClampBackward1"
    saved_names = ("self",)
    ctx_slots = ("lo", "hi")

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return _clamped(x, lo, hi)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return where(_within(x.data, ctx.lo, ctx.hi), grad, 0.0)


class ClampMin(Clamp):
    """``clamp_min(lo)``: max(lo, x), ``ClampMinBackward0``."""

    node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    """``clamp_max(hi)``: min(x, hi), ``ClampMaxBackward0``."""

    node_name = "ClampMaxBackward0"


class ClampTensor(Function):
    """x held between the Tensors (or arrays) lo and hi, broadcasting: ``ClampBackward0``.  PyTorch's
    ``clamp_backward_min_max``: x gets the gradient where lo ≤ x ≤ hi; lo where x < lo < hi; hi where
    x > hi, or everywhere hi < lo (there hi is the result)."""

    node_name = "ClampBackward0"
    saved_names = ("self", "min", "max")
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x, lo, hi)
        ctx.shapes = (shape_of(x), shape_of(lo), shape_of(hi))
        return _clamped(x, lo, hi)

    @staticmethod
    def backward(ctx, grad):
        x, lo, hi = (data_of(v) for v in ctx.saved_tensors)  # for masks: the arrays
        be = backend(x)
        sx, slo, shi = ctx.shapes
        grad_x = sum_to(where(_within(x, lo, hi), grad, 0.0), sx)
        grad_lo = grad_hi = None
        if lo is not None:
            chosen = be.binary("gt", lo, x)  # x < lo
            if hi is not None:
                chosen = be.binary("mul", chosen, be.binary("gt", hi, lo))  # and lo < hi
            grad_lo = sum_to(where(chosen, grad, 0.0), slo)
        if hi is not None:
            chosen = be.binary("gt", x, hi)  # x > hi
            if lo is not None:
                chosen = be.binary("maximum", chosen, be.binary("gt", lo, hi))  # or hi < lo
            grad_hi = sum_to(where(chosen, grad, 0.0), shi)
        return grad_x, grad_lo, grad_hi


# -- the methods ---------------------------------------------------------------------------------------
def _bound(x: Tensor, value: Any) -> Any:
    """A bound as an op input: None, a number, or a Tensor on x's device."""
    if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return x._operand(value)


def clamp(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
    """Each element held within [min, max] (either may be None; numbers or Tensors), as ``torch.clamp``:
    ``ClampBackward1`` for numbers, ``ClampBackward0`` when a bound is a Tensor."""
    lo, hi = _bound(x, min), _bound(x, max)
    if lo is None and hi is None:
        raise RuntimeError(
            "torch.clamp: At least one of 'min' or 'max' must not be None\n"
            "What to do: pass min=, max= or both (x.clamp(min=0.0) is relu)."
        )
    if isinstance(lo, type(x)) or isinstance(hi, type(x)):  # PyTorch's result dtype of the three
        return ClampTensor.apply(*promoted(x, lo, hi))  # type: ignore[no-any-return]
    if x.dtype in INTEGERS and any(isinstance(b, float) for b in (lo, hi)):
        x = x.to("float32")
    return Clamp.apply(x, lo=lo, hi=hi)  # type: ignore[no-any-return]


def clamp_min(x: Tensor, min: Any) -> Tensor:  # noqa: A002
    """max(min, x) elementwise (``ClampMinBackward0`` for a number)."""
    if not isinstance(min, (int, float)):
        return clamp(x, min=min)
    return ClampMin.apply(x.to("float32") if x.dtype in INTEGERS and isinstance(min, float) else x,
                          lo=min, hi=None)  # type: ignore[no-any-return]


def clamp_max(x: Tensor, max: Any) -> Tensor:  # noqa: A002
    """min(x, max) elementwise (``ClampMaxBackward0`` for a number)."""
    if not isinstance(max, (int, float)):
        return clamp(x, max=max)
    return ClampMax.apply(x.to("float32") if x.dtype in INTEGERS and isinstance(max, float) else x,
                          lo=None, hi=max)  # type: ignore[no-any-return]
