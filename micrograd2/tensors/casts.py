"""Casts: ``to(dtype)`` and ``to(device)``, both recorded as PyTorch's ``ToCopyBackward0``.

The gradient flows back cast to the input's dtype, or moved back to its device.  The
short spellings (``t.half()``, ``t.float()``, ``t.cpu()``…, ``t.type_as(u)``) are ``to``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..autograd import Function, no_grad
from ..backends import check_device, get_backend
from .compute import backend
from .storage import INTEGERS, check_tensor_dtype, is_device

if TYPE_CHECKING:
    from .tensor import Tensor


class ToCopy(Function):
    """A dtype cast (``t.to("float64")``).  The gradient flows back cast to the input's dtype."""

    node_name = "ToCopyBackward0"
    ctx_slots = ("source_dtype",)

    @staticmethod
    def forward(ctx, x, dtype, source_dtype):
        ctx.source_dtype = source_dtype
        return backend(x).astype(x, dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.source_dtype)


class ToDevice(Function):
    """A move to another device (``t.to("cuda")``).  The gradient is moved back."""

    node_name = "ToCopyBackward0"
    ctx_slots = ("source",)

    @staticmethod
    def forward(ctx, x, device, dtype):
        source = backend(x)
        ctx.source = source.name
        return get_backend(device).from_host(source.to_host(x), dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.source)


def to(x: Tensor, *args: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``to(dtype)``, ``to(device)``, or both: a differentiable copy (``ToCopyBackward0``);
    ``x`` itself when nothing changes, as PyTorch."""
    for a in args:
        if isinstance(a, type(x)):
            dtype, device = dtype or a.dtype, device or a.device
        elif is_device(a):
            device = a
        else:
            dtype = a
    out = x
    if dtype is not None:
        dtype = check_tensor_dtype(dtype)
        if dtype in INTEGERS:  # an integer result is not differentiable: a leaf, as PyTorch's
            with no_grad():
                out = ToCopy.apply(out, dtype=dtype, source_dtype=out.dtype)
        elif dtype != x.dtype:
            out = ToCopy.apply(out, dtype=dtype, source_dtype=out.dtype)
    if device is not None:
        name = check_device(device)
        if name != out.device:
            out = ToDevice.apply(out, device=name, dtype=out.dtype)
    return out


def type_as(x: Tensor, other: Tensor) -> Tensor:
    """``x.to(other.dtype)``."""
    return to(x, other.dtype)
