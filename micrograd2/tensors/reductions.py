r"""Reductions: ``sum``, ``mean``, ``max``, ``amax``, ``argmax``, ``any``, ``all``, over everything or over dims.

The ``Function``\ s first (``Sum`` → ``SumBackward0``, ``SumDim`` →
``SumBackward1``…), then the methods ``Tensor`` is given: they read PyTorch's
arguments (``dim``, ``keepdim``, and NumPy's ``axis``/``keepdims`` as aliases)
and pick the Function.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .compute import (
    TensorFunction,
    backend,
    data_of,
    div,
    expand,
    kept_shape,
    mask_mul,
    mul,
    normalize_dims,
    reshape,
)
from .storage import INTEGERS

if TYPE_CHECKING:
    from .tensor import Tensor


class Sum(TensorFunction):
    """Σ over all elements.  Keeps only the input's shape: the gradient is broadcast back."""

    node_name = "SumBackward0"
    autocast = "fp32"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.sum(x)

    @staticmethod
    def backward(ctx, grad):
        return expand(grad, ctx.shape)


class SumDim(TensorFunction):
    """Σ over ``dim`` (a tuple of axes), ``keepdim`` or not."""

    node_name = "SumBackward1"
    autocast = "fp32"
    ctx_slots = ("shape", "kept")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        ctx.shape = be.shape(x)
        ctx.kept = kept_shape(ctx.shape, dim)
        return be.sum(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return expand(reshape(grad, ctx.kept), ctx.shape)


class Mean(TensorFunction):
    """The mean of all elements: ∂/∂xᵢ = 1/n."""

    node_name = "MeanBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.binary("div", be.sum(x), float(math.prod(ctx.shape)))

    @staticmethod
    def backward(ctx, grad):
        return expand(div(grad, float(math.prod(ctx.shape))), ctx.shape)


class MeanDim(TensorFunction):
    """The mean over ``dim``: ∂/∂xᵢ = 1/(number of elements averaged)."""

    node_name = "MeanBackward1"
    ctx_slots = ("shape", "kept", "n")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        ctx.shape = be.shape(x)
        ctx.kept = kept_shape(ctx.shape, dim)
        ctx.n = math.prod(ctx.shape[d] for d in dim)
        return be.binary("div", be.sum(x, axis=dim, keepdims=keepdim), float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        return expand(div(reshape(grad, ctx.kept), float(ctx.n)), ctx.shape)


class MaxAll(TensorFunction):
    """The largest element (nan if there is one).  The gradient is shared evenly among ties, and among
    the nans when the maximum is nan (as PyTorch's ``max()``)."""

    node_name = "MaxBackward1"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        out = be.max(x)
        ctx.save_for_backward(x, out)
        ctx.shape = be.shape(x)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        xd, od = data_of(x), data_of(out)
        be = backend(xd)
        if not bool(be.to_host(be.binary("eq", od, od))):  # the max is nan: the nans share the gradient
            is_max = be.binary("eq", be.binary("eq", xd, xd), False)
            count = be.sum(be.astype(is_max, be.dtype(xd)))
            return mask_mul(div(expand(reshape(grad, ()), ctx.shape), count), is_max)
        dims = tuple(range(len(ctx.shape)))
        return _share_among_maxima(grad, xd, od, ctx.shape, dims, masked=True)


class Amax(TensorFunction):
    """The largest element over ``dim``; ties share the gradient evenly (``AmaxBackward0``).  A nan
    maximum equals no element: as PyTorch's (g/0)·0, the gradient is nan there."""

    node_name = "AmaxBackward0"
    ctx_slots = ("shape", "dim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        out = be.max(x, axis=dim, keepdims=keepdim)
        ctx.save_for_backward(x, out)
        ctx.shape, ctx.dim = be.shape(x), dim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return _share_among_maxima(grad, data_of(x), data_of(out), ctx.shape, ctx.dim, masked=False)


def _share_among_maxima(grad: Any, x: Any, out: Any, in_shape: tuple[int, ...], dims: tuple[int, ...],
                        masked: bool) -> Any:
    """``grad`` (reduced over ``dims``) sent to the positions equal to the maximum, split among ties:
    selected by a mask (``max()``), or multiplied by it (``amax``: PyTorch's (g / count)·mask)."""
    be = backend(x)
    kept = kept_shape(in_shape, dims)
    is_max = be.binary("eq", x, be.reshape(out, kept))
    count = be.sum(be.astype(is_max, be.dtype(x)), axis=dims, keepdims=True)
    share = div(expand(reshape(grad, kept), in_shape), count)
    if masked:
        return mask_mul(share, is_max)
    return mul(share, be.astype(is_max, be.dtype(x)))


class MaxDim(TensorFunction):
    """``max(dim)``: the values (this output) and their indices (an int64 Tensor, no gradient).

    The gradient goes to the position of each maximum (the first one, where ``argmax`` points).
    """

    node_name = "MaxBackward0"
    ctx_slots = ("shape", "dim", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        indices = be.argmax(x, axis=dim, keepdims=True)
        values = be.max(x, axis=dim, keepdims=True)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = be.shape(x), dim, keepdim
        if not keepdim:
            kept = be.shape(values)
            squeezed = kept[:dim] + kept[dim + 1:]
            values, indices = be.reshape(values, squeezed), be.reshape(indices, squeezed)
        return values, indices

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        be = backend(data_of(indices))
        n = ctx.shape[ctx.dim]
        along = [1] * len(ctx.shape)
        along[ctx.dim] = n
        positions = be.reshape(be.arange(n), tuple(along))
        is_max = be.binary("eq", positions, data_of(indices))
        kept = kept_shape(ctx.shape, (ctx.dim,))
        return mask_mul(expand(reshape(grad, kept), ctx.shape), is_max)


# -- the methods ---------------------------------------------------------------------------------------
class MaxResult(tuple):
    """What ``max(dim)`` returns: a ``(values, indices)`` pair with named fields, as PyTorch's."""

    def __new__(cls, values: Any, indices: Any) -> MaxResult:
        return super().__new__(cls, (values, indices))

    @property
    def values(self) -> Any:
        return self[0]

    @property
    def indices(self) -> Any:
        return self[1]


def _dim_alias(dim: Any, keepdim: bool, axis: Any, keepdims: Any) -> tuple[Any, bool]:
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, bool(keepdim)


def _check_not_empty(x: Tensor, name: str) -> None:
    if x.numel() == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0.\n"
            "What to do: reduce a non-empty Tensor."
        )


def sum_of(x: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """Σ over all elements (``SumBackward0``) or over ``dim`` (``SumBackward1``); ``axis``/``keepdims``
    are accepted as aliases."""
    dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
    x = x.to("int64") if x.dtype == "bool" else x
    if dim is None:
        return Sum.apply(x)
    if dim == () or dim == []:  # PyTorch: an empty dim list reduces over every dimension
        dim = tuple(range(x.ndim))
    return SumDim.apply(x, dim=normalize_dims(dim, x.ndim), keepdim=keepdim)


def mean_of(x: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The mean of all elements (``MeanBackward0``) or over ``dim`` (``MeanBackward1``)."""
    dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
    if x.dtype in INTEGERS:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {'Long' if x.dtype == 'int64' else 'Bool'}\n"
            "What to do: take the mean of a float Tensor: t.float().mean()."
        )
    if dim == () or dim == []:
        dim = tuple(range(x.ndim))
    if dim is None:
        return Mean.apply(x)
    return MeanDim.apply(x, dim=normalize_dims(dim, x.ndim), keepdim=keepdim)


def max_of(x: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
    """``max()``: the largest element (a Tensor, ``MaxBackward1``); ``max(dim)``: a ``(values, indices)``
    pair along ``dim`` (``MaxBackward0``; indices an int64 Tensor), as PyTorch."""
    dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
    _check_not_empty(x, "max")
    if dim is None:
        return MaxAll.apply(x)
    if not isinstance(dim, int):
        raise TypeError("max(dim) takes one dim (an int)\nWhat to do: use amax(dims) for several dims.")
    (d,) = normalize_dims(dim, x.ndim)
    return MaxResult(*MaxDim.apply(x, dim=d, keepdim=keepdim))


def amax_of(x: Tensor, dim: Any = (), keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The largest element over ``dim`` (all dims by default); ties share the gradient."""
    dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
    _check_not_empty(x, "amax")
    dims = normalize_dims(None if dim in ((), None) else dim, x.ndim)
    return Amax.apply(x, dim=dims, keepdim=keepdim)


def argmax_of(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the largest element (over the flattened Tensor, or along ``dim``): int64, no graph."""
    be = x._backend
    if dim is None:
        out = be.argmax(be.reshape(x.data, (-1,)), axis=0)
    else:
        (d,) = normalize_dims(dim, x.ndim)
        out = be.argmax(x.data, axis=d, keepdims=keepdim)
    return x._wrap(out, "int64", None)


def any_of(x: Tensor) -> Tensor:
    """Is any element non-zero?  A bool Tensor (no graph)."""
    be = x._backend
    nonzero = be.binary("eq", be.binary("eq", x.data, 0), False)
    return x._wrap(be.binary("gt", be.sum(be.astype(nonzero, "int64")), 0), "bool", None)


def all_of(x: Tensor) -> Tensor:
    """Is every element non-zero?  A bool Tensor (no graph)."""
    be = x._backend
    zeros = be.sum(be.astype(be.binary("eq", x.data, 0), "int64"))
    return x._wrap(be.binary("eq", zeros, 0), "bool", None)
