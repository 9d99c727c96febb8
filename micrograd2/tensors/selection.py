"""Choosing elementwise between two sources: ``where``, ``maximum``/``minimum`` and ``masked_fill`` (``masked_fill_``).

Each element of the result comes from one input or the other, chosen by a mask
(``where``, ``masked_fill``) or by comparing them (``maximum``, ``minimum``); the
gradient goes back to the input that was chosen, by the same mask.  A tie in
``maximum``/``minimum`` splits it in two halves, and a NaN passes it to both (the
masks of derivatives.yaml).  The ``Function``\\ s first, then the methods and
functions ``Tensor`` and ``mg`` are given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..autograd import Function, Variable
from .arithmetic import declined
from .compute import Partial, Where, backend, broadcast_shape, promoted, shape_of, shapes_differ, sum_to, where
from .storage import FLOATS

if TYPE_CHECKING:
    from .tensor import Tensor


class MaskedFill(Function):
    """``x.masked_fill(mask, value)`` for a number ``value``: ``value`` where the constant bool ``mask``
    holds (broadcast), x elsewhere.  derivatives.yaml: ∂/∂x = ``grad.masked_fill(mask, 0)``."""

    node_name = "MaskedFillBackward0"
    ctx_slots = ("mask", "shape")

    @staticmethod
    def forward(ctx, x, mask, value):
        be = backend(x)
        ctx.mask, ctx.shape = mask, be.shape(x)
        return be.where(mask, value, x)

    @staticmethod
    def backward(ctx, grad):
        return sum_to(MaskedFill.apply(grad, mask=ctx.mask, value=0.0), ctx.shape)


class MaskedFillTensor(Function):
    """``x.masked_fill(mask, value)`` for a 0-d Tensor ``value`` (``MaskedFillBackward1``): x's gradient as
    ``MaskedFill``'s; the value's is the sum of the gradient where the mask holds (``masked_fill_backward``)."""

    node_name = "MaskedFillBackward1"
    ctx_slots = ("mask", "shape")

    @staticmethod
    def forward(ctx, x, value, mask, dtype):
        be = backend(x)
        ctx.mask, ctx.shape = mask, be.shape(x)
        return be.where(mask, be.astype(value, dtype), x)

    @staticmethod
    def backward(ctx, grad):
        need_x, need_value = ctx.needs_input_grad
        grad_x = sum_to(MaskedFill.apply(grad, mask=ctx.mask, value=0.0), ctx.shape) if need_x else None
        grad_value = None
        if need_value:
            be = grad._backend
            grad_value = grad[be.broadcast_to(ctx.mask, grad.shape)].sum()  # grad.masked_select(mask).sum()
        return grad_x, grad_value


class Maximum(Function):
    """The larger of two Tensors, elementwise (NaN if either is): ``MaximumBackward0``.  derivatives.yaml:
    each gets ``where(a == b, grad / 2, grad)``, 0 where it is the smaller."""

    node_name = "MaximumBackward0"
    saved_names = ("self", "other")
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.shapes = (shape_of(a), shape_of(b))
        return _larger(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return _chosen_gradients(ctx, grad, a.data, b.data, larger=True)


class Minimum(Maximum):
    """The smaller of two Tensors, elementwise (NaN if either is): ``MinimumBackward0``."""

    node_name = "MinimumBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        ctx.shapes = (shape_of(a), shape_of(b))
        be = backend(a, b)
        return be.unary("neg", _larger(be.unary("neg", a), be.unary("neg", b)))  # exact

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return _chosen_gradients(ctx, grad, a.data, b.data, larger=False)


def _larger(a: Any, b: Any) -> Any:
    """max(a, b) elementwise, NaN if either is NaN (the backend's ``maximum``)."""
    try:
        return backend(a, b).binary("maximum", a, b)
    except ValueError:
        raise shapes_differ(shape_of(a) or (), shape_of(b) or ()) from None


def _chosen_gradients(ctx: Any, grad: Any, a: Any, b: Any, larger: bool) -> tuple[Any, Any]:
    """derivatives.yaml's masks: half the gradient each on a tie, none to the input that lost."""
    be = backend(a, b)
    tie = be.binary("eq", a, b)
    a_lost, b_lost = (be.binary("gt", b, a), be.binary("gt", a, b))
    if not larger:
        a_lost, b_lost = b_lost, a_lost
    need_a, need_b = ctx.needs_input_grad
    shared = Where.apply(grad / 2, grad, cond=tie)
    sa, sb = ctx.shapes
    grad_a = sum_to(MaskedFill.apply(shared, mask=a_lost, value=0.0), sa) if need_a else None
    grad_b = sum_to(MaskedFill.apply(shared, mask=b_lost, value=0.0), sb) if need_b else None
    return grad_a, grad_b


# -- the methods and functions ---------------------------------------------------------------------------
def _two_tensors(name: str, x: Tensor, other: Any) -> tuple[Any, Any]:
    if not isinstance(other, type(x)):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}\n"
                        f"What to do: pass a Tensor (mg.tensor(...)); against a number use clamp(min=...).")
    return promoted(x, x._operand(other))


def maximum(x: Tensor, other: Tensor) -> Tensor:
    """The larger of ``x`` and ``other`` elementwise, broadcasting (``MaximumBackward0``)."""
    return Maximum.apply(*_two_tensors("maximum", x, other))  # type: ignore[no-any-return]


def minimum(x: Tensor, other: Tensor) -> Tensor:
    """The smaller of ``x`` and ``other`` elementwise, broadcasting (``MinimumBackward0``)."""
    return Minimum.apply(*_two_tensors("minimum", x, other))  # type: ignore[no-any-return]


def _bool_mask(x: Tensor, mask: Any, name: str) -> Any:
    """The array of a bool Tensor ``mask``; PyTorch's ``RuntimeError`` for another dtype."""
    if not isinstance(mask, type(x)):
        raise TypeError(f"{name}(): argument 'mask' must be Tensor, not {type(mask).__name__}\n"
                        "What to do: pass a bool Tensor, e.g. x > 0.")
    if mask.dtype != "bool":
        kind = "float" if mask.dtype in FLOATS else "long int"
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {kind}\n"
                           "What to do: make the mask with a comparison (x > 0) or .to('bool').")
    return mask.data if mask._backend is x._backend else x._backend.from_host(mask.numpy(), "bool")


def _fill(x: Tensor, mask: Any, value: Any, name: str) -> tuple[Any, dict[str, Any], tuple[Any, ...]]:
    """The Function, its attributes and its inputs for ``x.masked_fill(mask, value)``."""
    m = _bool_mask(x, mask, "masked_fill_")
    if isinstance(value, Variable):
        if value.ndim:  # type: ignore[attr-defined]
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s).\nWhat to do: pass a number or a 0-d Tensor.")  # type: ignore[attr-defined]
        return MaskedFillTensor, {"mask": m, "dtype": x.dtype}, (x, value)
    if not isinstance(value, (int, float)):
        raise TypeError(f"{name}(): argument 'value' must be a number or a 0-d Tensor, not "
                        f"{type(value).__name__}\nWhat to do: pass e.g. 0.0 or float('-inf').")
    return MaskedFill, {"mask": m, "value": value}, (x,)


def masked_fill(x: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` where the bool ``mask`` holds, x elsewhere; both broadcast (``MaskedFillBackward0``, or
    ``MaskedFillBackward1`` when ``value`` is a 0-d Tensor)."""
    fn, attributes, inputs = _fill(x, mask, value, "masked_fill")
    shape = broadcast_shape(x.shape, mask.shape)
    if shape is None:
        raise shapes_differ(x.shape, mask.shape)
    if shape != x.shape:
        x = x.expand(*shape)
        inputs = (x, *inputs[1:])
    return fn.apply(*inputs, **attributes)  # type: ignore[no-any-return]


def masked_fill_(x: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``masked_fill`` in place: the mask must broadcast to x's shape."""
    fn, attributes, inputs = _fill(x, mask, value, "masked_fill_")
    if broadcast_shape(x.shape, mask.shape) != x.shape:
        raise RuntimeError(f"masked_fill_: mask of shape {list(mask.shape)} doesn't broadcast to the Tensor's "
                           f"shape {list(x.shape)}\nWhat to do: an in-place op keeps the Tensor's shape; "
                           "use the out-of-place masked_fill.")
    x._check_view_in_place()
    x._in_place(Partial(fn, **attributes), *inputs[1:])
    return x


def where_of(condition: Any, x: Any, other: Any) -> Any:
    """``x`` where the bool Tensor ``condition`` holds, else ``other`` (Tensors or numbers, broadcasting):
    one ``WhereBackward0`` node; each side's gradient is the gradient where it was chosen."""
    tensor_type = type(condition)
    if getattr(condition, "dtype", None) != "bool":
        kind = "Float" if getattr(condition, "dtype", None) in FLOATS else "Long"
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {kind}\n"
                           "What to do: make the condition with a comparison (x > 0).")
    a = condition._operand(x) if not isinstance(x, tensor_type) else x
    b = condition._operand(other) if not isinstance(other, tensor_type) else other
    for v, position in ((a, 2), (b, 3)):
        if v is NotImplemented:
            raise declined("where", x if position == 2 else other)
    if not isinstance(a, Variable) and not isinstance(b, Variable):  # two numbers: no graph
        be = condition._backend
        dtype = "float32" if isinstance(a, float) or isinstance(b, float) else "int64"
        return condition._wrap(be.where(condition.data, a, b), dtype, None)
    a, b = promoted(a, b)
    return where(condition.data, a, b)
