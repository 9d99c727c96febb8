r"""Reductions: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``, ``argmax``/``argmin``, ``any``, ``all``;
``std``/``var``, ``prod``, ``cumsum``, ``logsumexp`` and ``norm`` (appended after them, with their backward
formulas from PyTorch's derivatives.yaml, zero and tie cases included).

Over everything or over dims.  The ``Function``\ s first (``Sum`` → ``SumBackward0``,
``SumDim`` → ``SumBackward1``…), then the methods ``Tensor`` is given: they read
PyTorch's arguments (``dim``, ``keepdim``, and NumPy's ``axis``/``keepdims`` as
aliases) and pick the Function.  A minimum is the maximum of −x, negated (exact,
NaN included); its gradient is routed as the maximum's, by the same code.  ``softmax``
is here too: an exp normalised by its sum over a dim (one ``SoftmaxBackward0`` node).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..autograd import Function
from .compute import backend, kept_shape, mask_mul, normalize_dims, where
from .storage import INTEGERS

if TYPE_CHECKING:
    from .tensor import Tensor


# NOTE [The reductions' backward are pieces]
# ``Sum``, ``SumDim``, ``Mean`` and ``MeanDim`` hand their gradient to the engine's pieces
# (``tensors/pieces.py``): these two functions, unless a student's engine took their place.
def sum_backward(grad: Tensor, shape: tuple[int, ...], kept: tuple[int, ...]) -> Tensor:
    """Each input element took part once in the sum: its gradient is the sum's, spread back.

    ``kept``: ``shape`` with the reduced axes as 1."""
    return _as_kept(grad, kept).expand(shape)


def mean_backward(grad: Tensor, shape: tuple[int, ...], kept: tuple[int, ...]) -> Tensor:
    """Each input element took part in the mean with weight 1/n, n the elements averaged."""
    n = math.prod(size for size, k in zip(shape, kept) if k == 1)
    return (_as_kept(grad, kept) / float(n)).expand(shape)


def _as_kept(grad: Tensor, kept: tuple[int, ...]) -> Tensor:
    """``grad`` with the reduced axes back as 1s; a 0-d gradient expands as it is."""
    return grad if grad.ndim in (0, len(kept)) else grad.reshape(kept)


class Sum(Function):
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
        return grad.pieces.sum_backward(grad, ctx.shape, (1,) * len(ctx.shape))


class SumDim(Function):
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
        return grad.pieces.sum_backward(grad, ctx.shape, ctx.kept)


def _accumulated(be: Any, x: Any) -> Any:
    """``x`` as the array a reduction adds up: float16 widened to float32 (exact), as PyTorch's CPU
    kernels accumulate in float32 (its ``acc_type``); bfloat16 is float32 storage already.

    NOTE [Half reductions round once]: a sum, a mean or a softmax of float16/bfloat16 is computed in
    float32 and rounded once to the result's dtype (``Tensor._wrap`` rounds what forward returns).
    The mean of 100 × 1000.0 in float16 is then 1000, where a float16 sum first would be inf."""
    return be.astype(x, "float32") if be.dtype(x) == "float16" else x


class Mean(Function):
    """The mean of all elements: ∂/∂xᵢ = 1/n (NOTE [Half reductions round once])."""

    node_name = "MeanBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.binary("div", be.sum(_accumulated(be, x)), float(math.prod(ctx.shape)))

    @staticmethod
    def backward(ctx, grad):
        return grad.pieces.mean_backward(grad, ctx.shape, (1,) * len(ctx.shape))


class MeanDim(Function):
    """The mean over ``dim``: ∂/∂xᵢ = 1/(number of elements averaged); half in float32 (as ``Mean``)."""

    node_name = "MeanBackward1"
    ctx_slots = ("shape", "kept", "n")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        ctx.shape = be.shape(x)
        ctx.kept = kept_shape(ctx.shape, dim)
        ctx.n = math.prod(ctx.shape[d] for d in dim)
        total = be.sum(_accumulated(be, x), axis=dim, keepdims=keepdim)
        return be.binary("div", total, float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        return grad.pieces.mean_backward(grad, ctx.shape, ctx.kept)


class MaxAll(Function):
    """The largest element (nan if there is one).  The gradient is shared evenly among ties, and among
    the nans when the maximum is nan (as PyTorch's ``max()``)."""

    node_name = "MaxBackward1"
    saved_names = ("self", "result")
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
        xd, od = x.data, out.data
        be = backend(xd)
        if not bool(be.to_host(be.binary("eq", od, od))):  # the max is nan: the nans share the gradient
            is_max = be.binary("eq", be.binary("eq", xd, xd), False)
            count = be.sum(be.astype(is_max, be.dtype(xd)))
            return mask_mul(grad.reshape(()).expand(ctx.shape) / count, is_max)
        dims = tuple(range(len(ctx.shape)))
        return _share_among_maxima(grad, xd, od, ctx.shape, dims, masked=True)


class Amax(Function):
    """The largest element over ``dim``; ties share the gradient evenly (``AmaxBackward0``).  A nan
    maximum equals no element: as PyTorch's (g/0)·0, the gradient is nan there."""

    node_name = "AmaxBackward0"
    saved_names = ("self", "result")
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
        return _share_among_maxima(grad, x.data, out.data, ctx.shape, ctx.dim, masked=False)


def _share_among_maxima(grad: Any, x: Any, out: Any, in_shape: tuple[int, ...], dims: tuple[int, ...],
                        masked: bool) -> Any:
    """The gradient ``grad`` (reduced over ``dims``) sent to the positions where the array ``x`` equals its
    maximum ``out`` (or minimum), split among ties: selected by a mask (``max()``), or multiplied by it
    (``amax``: PyTorch's (g / count)·mask)."""
    be = backend(x)
    kept = kept_shape(in_shape, dims)
    is_max = be.binary("eq", x, be.reshape(out, kept))
    count = be.sum(be.astype(is_max, be.dtype(x)), axis=dims, keepdims=True)
    share = grad.reshape(kept).expand(in_shape) / count
    if masked:
        return mask_mul(share, is_max)
    return share * be.astype(is_max, be.dtype(x))


class MaxDim(Function):
    """``max(dim)``: the values (this output) and their indices (an int64 Tensor, no gradient).

    The gradient goes to the position of each maximum (the first one, where ``argmax`` points).
    """

    node_name = "MaxBackward0"
    saved_names = ("indices",)
    ctx_slots = ("shape", "dim", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        return _values_and_indices(ctx, x, dim, keepdim, backend(x).max, backend(x).argmax)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors  # an array (the op's second output: no gradient)
        be = backend(indices)
        n = ctx.shape[ctx.dim]
        along = [1] * len(ctx.shape)
        along[ctx.dim] = n
        positions = be.reshape(be.arange(n), tuple(along))
        is_max = be.binary("eq", positions, indices)
        kept = kept_shape(ctx.shape, (ctx.dim,))
        return mask_mul(grad.reshape(kept).expand(ctx.shape), is_max)


def _values_and_indices(ctx: Any, x: Any, dim: int, keepdim: bool, extreme: Any, position: Any) -> Any:
    """``max(dim)``'s (or ``min(dim)``'s) two outputs: the ``extreme`` values along ``dim`` and their
    first ``position``s; the node keeps the indices and the sizes."""
    be = backend(x)
    indices = position(x, axis=dim, keepdims=True)
    values = extreme(x, axis=dim, keepdims=True)
    ctx.save_for_backward(indices)
    ctx.shape, ctx.dim, ctx.keepdim = be.shape(x), dim, keepdim
    if not keepdim:
        kept = be.shape(values)
        squeezed = kept[:dim] + kept[dim + 1:]
        values, indices = be.reshape(values, squeezed), be.reshape(indices, squeezed)
    return values, indices


# -- minima: the maxima of −x, negated (exact), with the maxima's gradients -------------------------------
def _negated(be: Any, x: Any) -> Any:
    """−x (``not x`` for a bool array): negation is exact, so min(x) = −max(−x), NaN and ±0 included."""
    return be.binary("eq", x, False) if be.dtype(x) == "bool" else be.unary("neg", x)


def smallest(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The minimum of an array (over ``axis``): −max(−x); NaN if there is one, as PyTorch's ``min``."""
    be = backend(x)
    return _negated(be, be.max(_negated(be, x), axis=axis, keepdims=keepdims))


def first_smallest(x: Any, axis: int, keepdims: bool = False) -> Any:
    """The index of the first minimum along ``axis`` (of the first NaN, if any): argmax(−x)."""
    be = backend(x)
    return be.argmax(_negated(be, x), axis=axis, keepdims=keepdims)


class MinAll(MaxAll):
    """The smallest element (nan if there is one), ``MinBackward1``: the gradient shared among ties (or
    among the nans), as ``max()``'s."""

    node_name = "MinBackward1"

    @staticmethod
    def forward(ctx, x):
        out = smallest(x)
        ctx.save_for_backward(x, out)
        ctx.shape = backend(x).shape(x)
        return out


class Amin(Amax):
    """The smallest element over ``dim`` (``AminBackward0``); ties share the gradient, as ``amax``'s."""

    node_name = "AminBackward0"

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        out = smallest(x, axis=dim, keepdims=keepdim)
        ctx.save_for_backward(x, out)
        ctx.shape, ctx.dim = backend(x).shape(x), dim
        return out


class MinDim(MaxDim):
    """``min(dim)``: the values and the indices of the first minima (``MinBackward0``), the gradient to
    those positions, as ``max(dim)``'s."""

    node_name = "MinBackward0"

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        return _values_and_indices(ctx, x, dim, keepdim, smallest, first_smallest)


class Softmax(Function):
    """exp(xᵢ − m) / Σⱼ exp(xⱼ − m) along ``dim``, m the maximum (stable for large x; float16 in
    float32): one ``SoftmaxBackward0`` node.  Along the last dim it multiplies by 1/Σ, as PyTorch's CPU kernel does.
    Backward: PyTorch's ``_softmax_backward_data``, y·(g − Σ g·y) with y the (saved) output."""

    node_name = "SoftmaxBackward0"
    saved_names = ("result",)
    autocast = "fp32"
    ctx_slots = ("dim",)

    @staticmethod
    def forward(ctx, x, dim):
        be = backend(x)
        x = _accumulated(be, x)  # NOTE [Half reductions round once]
        axis = dim if be.shape(x) else None  # a 0-d Tensor is one row of one element
        e = be.unary("exp", be.binary("sub", x, be.max(x, axis=axis, keepdims=True)))
        total = be.sum(e, axis=axis, keepdims=True)
        if axis is None or axis == len(be.shape(x)) - 1:
            out = be.binary("mul", e, be.binary("div", 1.0, total))
        else:
            out = be.binary("div", e, total)
        ctx.save_for_backward(out)
        ctx.dim = axis
        return out

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        dot = (grad * y).sum(ctx.dim, True)
        return y * (grad - dot)


def softmax_of(x: Tensor, dim: int) -> Tensor:
    """Softmax along ``dim`` (one ``SoftmaxBackward0`` node); an integer Tensor is taken as float32."""
    (d,) = normalize_dims(dim, x.ndim)
    return Softmax.apply(x._as_float(), dim=d)  # type: ignore[no-any-return]


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


def _extreme_of(name: str, whole: Any, along: Any, x: Tensor, dim: Any, keepdim: bool, axis: Any,
                keepdims: Any) -> Any:
    """``max``/``min``: of every element (``whole``), or a ``(values, indices)`` pair ``along`` one dim."""
    dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
    _check_not_empty(x, name)
    if dim is None:
        return whole.apply(x)
    if not isinstance(dim, int):
        raise TypeError(f"{name}(dim) takes one dim (an int)\nWhat to do: use a{name}(dims) for several dims.")
    (d,) = normalize_dims(dim, x.ndim)
    return MaxResult(*along.apply(x, dim=d, keepdim=keepdim))


def max_of(x: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
    """``max()``: the largest element (a Tensor, ``MaxBackward1``); ``max(dim)``: a ``(values, indices)``
    pair along ``dim`` (``MaxBackward0``; indices an int64 Tensor), as PyTorch."""
    return _extreme_of("max", MaxAll, MaxDim, x, dim, keepdim, axis, keepdims)


def min_of(x: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
    """``min()``: the smallest element (``MinBackward1``); ``min(dim)``: ``(values, indices)`` along ``dim``
    (``MinBackward0``).  NaN wins, and the gradient is routed as ``max``'s."""
    return _extreme_of("min", MinAll, MinDim, x, dim, keepdim, axis, keepdims)


def _all_extreme(fn: Any, name: str, x: Tensor, dim: Any, keepdim: bool, axis: Any, keepdims: Any) -> Tensor:
    dim, keepdim = _dim_alias(dim, keepdim, axis, keepdims)
    _check_not_empty(x, name)
    dims = normalize_dims(None if dim in ((), None) else dim, x.ndim)
    return fn.apply(x, dim=dims, keepdim=keepdim)  # type: ignore[no-any-return]


def amax_of(x: Tensor, dim: Any = (), keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The largest element over ``dim`` (all dims by default); ties share the gradient."""
    return _all_extreme(Amax, "amax", x, dim, keepdim, axis, keepdims)


def amin_of(x: Tensor, dim: Any = (), keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The smallest element over ``dim`` (all dims by default); ties share the gradient."""
    return _all_extreme(Amin, "amin", x, dim, keepdim, axis, keepdims)


def _position_of(position: Any, x: Tensor, dim: int | None, keepdim: bool, name: str) -> Tensor:
    be = x._backend
    if dim is None:
        if not math.prod(x.shape):
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.\n"
                             "What to do: give a dim, or check that the Tensor is not empty.")
        out = position(be.reshape(x.data, (-1,)), axis=0)
    else:
        (d,) = normalize_dims(dim, x.ndim)
        if x.ndim and not x.shape[d]:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.\n"
                             "What to do: reduce along an axis that has elements.")
        out = position(x.data, axis=d, keepdims=keepdim)
    return x._wrap(out, "int64", None)


def argmax_of(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the largest element (over the flattened Tensor, or along ``dim``): int64, no graph."""
    return _position_of(x._backend.argmax, x, dim, keepdim, "argmax")


def argmin_of(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the smallest element (the first; the first NaN if any): int64, no graph."""
    return _position_of(first_smallest, x, dim, keepdim, "argmin")


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


# -- spread: var and std ------------------------------------------------------------------------------------
def _on_dims(be: Any, x: Any, dim: tuple[int, ...] | None) -> tuple[Any, int]:
    """The axes a reduction over ``dim`` (None: all) takes, and how many elements each result sums."""
    shape = be.shape(x)
    axes = tuple(range(len(shape))) if dim is None else dim
    return axes, math.prod(shape[d] for d in axes)


def variance(be: Any, x: Any, dim: tuple[int, ...] | None, correction: float, keepdim: bool) -> Any:
    """Σ(x − mean)² / max(0, n − correction) over ``dim`` on arrays (float16 in float32): 0/0 is nan and
    c/0 is inf when there are no degrees of freedom left, as PyTorch's."""
    wide = _accumulated(be, x)
    axes, n = _on_dims(be, wide, dim)
    mean = be.binary("div", be.sum(wide, axis=axes, keepdims=True), float(n))
    deviation = be.binary("sub", wide, mean)
    total = be.sum(be.binary("mul", deviation, deviation), axis=axes, keepdims=keepdim)
    return be.binary("div", total, float(max(0.0, n - correction)))


def _unsqueezed(grad: Tensor, dim: tuple[int, ...], ndim: int, keepdim: bool) -> Tensor:
    """PyTorch's ``unsqueeze_multiple``: the reduced axes back as 1s (unless they were kept)."""
    if keepdim:
        return grad
    for d in sorted(dim):
        grad = grad.unsqueeze(d)
    return grad


def var_backward(grad: Tensor, x: Tensor, dim: tuple[int, ...] | None, correction: float,
                 keepdim: bool) -> Tensor:
    """PyTorch's ``var_backward``: 2/(n − correction) · grad · (x − mean).  Over every element with no
    degree of freedom left, grad·nan where x equals its mean and grad·inf elsewhere."""
    if x.ndim == 0 or dim is None:
        dof = x.numel() - correction
        if dof <= 0:
            mean = x.mean()
            be = x._backend
            flat = be.where(be.binary("eq", x.data, mean.data), math.nan, math.inf)
            return grad * x._wrap(be.astype(flat, be.dtype(x.data)), x.dtype, None)
        return (2.0 / dof) * grad * (x - x.mean())
    if x.ndim > 1:
        grad = _unsqueezed(grad, dim, x.ndim, keepdim)
    n = math.prod(x.shape[d] for d in dim) - correction
    scale = 2.0 / n if n else math.inf
    return scale * grad * (x - x.mean(dim, keepdim=True))


class Var(Function):
    """The variance over ``dim`` (None: every element) with ``correction`` (1: Bessel's, the default):
    ``VarBackward0``, derivatives.yaml's ``var_backward``."""

    node_name = "VarBackward0"
    saved_names = ("self",)
    ctx_slots = ("dim", "correction", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, correction, keepdim):
        ctx.save_for_backward(x)
        ctx.dim, ctx.correction, ctx.keepdim = dim, correction, keepdim
        return variance(backend(x), x, dim, correction, keepdim)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return var_backward(grad, x, ctx.dim, ctx.correction, ctx.keepdim)


class Std(Function):
    """The standard deviation √var (``StdBackward0``).  derivatives.yaml's ``std_backward``: var's
    gradient of grad / (2·std), that ratio 0 where std is 0 (no nan at a constant input)."""

    node_name = "StdBackward0"
    saved_names = ("self", "result")
    ctx_slots = ("dim", "correction", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, correction, keepdim):
        be = backend(x)
        out = be.unary("sqrt", variance(be, x, dim, correction, keepdim))
        ctx.save_for_backward(x, out)
        ctx.dim, ctx.correction, ctx.keepdim = dim, correction, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        from .selection import MaskedFill

        x, out = ctx.saved_tensors
        be = out._backend
        ratio = MaskedFill.apply(grad / (out * 2), mask=be.binary("eq", out.data, 0.0), value=0.0)
        return var_backward(ratio, x, ctx.dim, ctx.correction, ctx.keepdim)


def _spread(fn: Any, name: str, x: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any) -> Tensor:
    """``std``/``var`` as PyTorch 2.13 reads them: ``(dim=None, *, correction=1, keepdim=False)``, or the
    older ``(dim, unbiased, keepdim)`` and ``(unbiased)``."""
    if isinstance(dim, bool):  # x.std(False): the old unbiased argument
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{name}: can't specify both correction and unbiased arguments\n"
                           "What to do: pass correction= alone (unbiased=False is correction=0).")
    if x.dtype in INTEGERS:
        raise RuntimeError("std and var only support floating point and complex dtypes\n"
                           "What to do: use a float Tensor: t.float().")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    dims = None if dim is None else normalize_dims(dim, x.ndim)
    return fn.apply(x, dim=dims, correction=c, keepdim=bool(keepdim))  # type: ignore[no-any-return]


def var_of(x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
           correction: Any = None) -> Tensor:
    """The variance over ``dim`` (all elements by default), dividing by n − correction (``VarBackward0``)."""
    return _spread(Var, "var", x, dim, unbiased, keepdim, correction)


def std_of(x: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
           correction: Any = None) -> Tensor:
    """The standard deviation over ``dim`` (all elements by default), n − correction (``StdBackward0``)."""
    return _spread(Std, "std", x, dim, unbiased, keepdim, correction)


# -- products ---------------------------------------------------------------------------------------------------
def _host_reduce(be: Any, x: Any, reduce: Any) -> Any:
    """``reduce(host array)`` on x's backend, in x's dtype (the backends have no product or running sum)."""
    import numpy as np

    with np.errstate(all="ignore"):
        return be.from_host(reduce(be.to_host(x)), be.dtype(x))


class Prod(Function):
    """The product of all elements (``ProdBackward0``).  Backward: PyTorch's ``prod_backward``."""

    node_name = "ProdBackward0"
    saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, x):
        import numpy as np

        out = _host_reduce(backend(x), x, np.prod)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return prod_backward(grad, x, out, None, False)


class ProdDim(Function):
    """The product along ``dim`` (``ProdBackward1``)."""

    node_name = "ProdBackward1"
    saved_names = ("self", "result")
    ctx_slots = ("dim", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        import numpy as np

        out = _host_reduce(backend(x), x, lambda h: np.prod(h, axis=dim, keepdims=keepdim))
        ctx.save_for_backward(x, out)
        ctx.dim, ctx.keepdim = dim, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return prod_backward(grad, x, out, ctx.dim, ctx.keepdim)


# NOTE [Products with zeros]
# ∂(Π xₖ)/∂xᵢ is the product of the others.  Without a zero PyTorch computes it as result / xᵢ; with a
# zero that is 0/0, so it multiplies exclusive running products instead (``prod_safe_zeros_backward``:
# [1, a, ab] · [bc, c, 1]), which no zero spoils.  Here those products are one op (``ExclusiveProducts``)
# whose own backward is written with itself, so second derivatives hold at zeros too.
def prod_backward(grad: Tensor, x: Tensor, out: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    """PyTorch's ``prod_backward`` (NOTE [Products with zeros]): ``grad · result / x`` without zeros; with
    them, the exclusive products; zeros outright for a whole product with two zeros, unrecorded."""
    if x.ndim == 0:
        return grad
    be = x._backend
    zeros = int(be.to_host(be.sum(be.astype(be.binary("eq", x.data, 0.0), "int64"))))
    if dim is not None and not keepdim:
        grad, out = grad.unsqueeze(dim), out.unsqueeze(dim)
    if zeros == 0:
        return grad * (out / x)
    from ..autograd import grad_mode

    if dim is None and zeros > 1 and not grad_mode.is_grad_enabled():
        return x._wrap(be.full(x.shape, 0.0, be.dtype(x.data)), x.dtype, None)
    axis = 0 if dim is None else dim
    rows = x.reshape(-1) if dim is None else x
    others = ExclusiveProducts.apply(rows.transpose(axis, -1)).transpose(axis, -1)
    return grad * (others if dim is not None else others.reshape(*x.shape))


class ExclusiveProducts(Function):
    """For each element along the last axis, the product of the others (NOTE [Products with zeros]):
    [a, b, c] → [bc, ac, ab], computed as PyTorch's [1, a, ab] · [bc, c, 1].  Backward: ∂/∂xⱼ =
    Σᵢ≠ⱼ gᵢ · Π_{k≠i,j} xₖ, the products of rows with xⱼ set to 1 (this op again)."""

    node_name = "ExclusiveProductsBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        import numpy as np

        ctx.save_for_backward(x)

        def both_ways(h: Any) -> Any:
            ones = np.ones(h.shape[:-1] + (1,), dtype=h.dtype)
            before = np.cumprod(np.concatenate([ones, h[..., :-1]], -1), -1)
            after = np.cumprod(np.concatenate([ones, h[..., :0:-1]], -1), -1)[..., ::-1]
            return before * after

        return _host_reduce(backend(x), x, both_ways)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        be, n = x._backend, x.shape[-1]
        eye = be.binary("eq", be.reshape(be.arange(n), (n, 1)), be.reshape(be.arange(n), (1, n)))
        rows = x.unsqueeze(-2).expand(*x.shape[:-1], n, n)  # row j: x
        without_j = ExclusiveProducts.apply(where(eye, 1.0, rows))  # row j: x with xⱼ = 1
        return mask_mul(grad.unsqueeze(-2) * without_j, be.binary("eq", eye, False)).sum(-1)


def prod_of(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The product of all elements (``ProdBackward0``) or along ``dim`` (``ProdBackward1``); integers
    give int64, as PyTorch's."""
    if dtype is not None:
        x = x.to(dtype)
    elif x.dtype in INTEGERS:
        x = x.to("int64")
    if dim is None:
        return Prod.apply(x)  # type: ignore[no-any-return]
    if not isinstance(dim, int):
        raise TypeError("prod(): argument 'dim' must be int\nWhat to do: take the product over one dim at a time.")
    (d,) = normalize_dims(dim, x.ndim)
    return ProdDim.apply(x, dim=d, keepdim=bool(keepdim))  # type: ignore[no-any-return]


# -- running sums and log-sum-exp -------------------------------------------------------------------------------
class Cumsum(Function):
    """The running sum along ``dim`` (``CumsumBackward0``), accumulated in float64 (float32 for float16)
    and rounded once per element, as PyTorch's CPU kernel.  derivatives.yaml's ``cumsum_backward``: the
    gradient's running sum from the end, ``grad.flip(dim).cumsum(dim).flip(dim)``."""

    node_name = "CumsumBackward0"
    ctx_slots = ("dim",)

    @staticmethod
    def forward(ctx, x, dim):
        import numpy as np

        ctx.dim = dim
        wide = {"float16": np.float32, "int64": np.int64, "bool": np.int64}
        return _host_reduce(backend(x), x, lambda h: np.cumsum(h, axis=dim, dtype=wide.get(str(h.dtype), np.float64)))

    @staticmethod
    def backward(ctx, grad):
        d = ctx.dim
        if grad.numel() <= 1 or grad.shape[d] == 1:
            return grad
        return grad.flip(d).cumsum(d).flip(d)


def cumsum_of(x: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """The running sum along ``dim`` (``CumsumBackward0``); integers and bools give int64."""
    if dtype is not None:
        x = x.to(dtype)
    elif x.dtype in INTEGERS:
        x = x.to("int64")
    (d,) = normalize_dims(dim, x.ndim)
    return Cumsum.apply(x, dim=d)  # type: ignore[no-any-return]


class Logsumexp(Function):
    """log Σ exp x over ``dim``, computed as PyTorch's: m + log Σ exp(x − m), m the maximum (0 where it is
    infinite).  ``LogsumexpBackward0``: derivatives.yaml's ``grad · exp(x − result)``."""

    node_name = "LogsumexpBackward0"
    saved_names = ("self", "result")
    ctx_slots = ("dim", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        wide = _accumulated(be, x)
        m = be.max(wide, axis=dim, keepdims=True)
        m = be.where(be.binary("eq", be.unary("abs", m), math.inf), 0.0, m)
        total = be.sum(be.unary("exp", be.binary("sub", wide, m)), axis=dim, keepdims=keepdim)
        out = be.binary("add", be.unary("log", total), m if keepdim else be.reshape(m, be.shape(total)))
        out = be.astype(out, be.dtype(x))
        ctx.save_for_backward(x, out)
        ctx.dim, ctx.keepdim = dim, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        if x.ndim:
            grad, out = _unsqueezed(grad, ctx.dim, x.ndim, ctx.keepdim), _unsqueezed(out, ctx.dim, x.ndim, ctx.keepdim)
        return grad * (x - out).exp()


def logsumexp_of(x: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log Σ exp x over ``dim`` (an int or a tuple), stable for large x (``LogsumexpBackward0``)."""
    dims = normalize_dims(dim, x.ndim) if x.ndim else ()
    return Logsumexp.apply(x._as_float(), dim=dims, keepdim=bool(keepdim))  # type: ignore[no-any-return]


# -- vector norms -------------------------------------------------------------------------------------------------
def _norm_forward(be: Any, x: Any, p: float, dim: tuple[int, ...], keepdim: bool) -> Any:
    """‖x‖ₚ over ``dim`` on arrays: (Σ|x|ᵖ)^(1/p); max |x| for p = inf, min for −inf; the count of
    non-zeros for p = 0."""
    a = be.unary("abs", _accumulated(be, x))
    if p == math.inf:
        return be.max(a, axis=dim, keepdims=keepdim)
    if p == -math.inf:
        return smallest(a, axis=dim, keepdims=keepdim)
    if p == 0:
        return be.sum(be.astype(be.binary("eq", be.binary("eq", a, 0.0), False), be.dtype(a)), axis=dim,
                      keepdims=keepdim)
    if p == 1:
        return be.sum(a, axis=dim, keepdims=keepdim)
    if p == 2:
        return be.unary("sqrt", be.sum(be.binary("mul", a, a), axis=dim, keepdims=keepdim))
    return be.binary("pow", be.sum(be.binary("pow", a, p), axis=dim, keepdims=keepdim), 1.0 / p)


class VectorNorm(Function):
    """‖x‖ₚ over ``dim`` (``x.norm(p, dim)``, PyTorch's ``linalg.vector_norm``: ``LinalgVectorNormBackward0``).
    Backward: derivatives.yaml's ``norm_backward``; at a zero norm the gradient is 0 (p = 2), for p = ±inf it
    is shared among the elements of largest (smallest) |x|, NaNs included."""

    node_name = "LinalgVectorNormBackward0"
    saved_names = ("self", "result")
    ctx_slots = ("p", "dim", "keepdim")

    @staticmethod
    def forward(ctx, x, p, dim, keepdim):
        be = backend(x)
        out = _norm_forward(be, x, p, dim, keepdim)
        ctx.save_for_backward(x, out)
        ctx.p, ctx.dim, ctx.keepdim = p, dim, keepdim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, norm = ctx.saved_tensors
        return norm_backward(grad, x, ctx.p, norm, ctx.dim, ctx.keepdim)


def norm_backward(grad: Tensor, x: Tensor, p: float, norm: Tensor, dim: tuple[int, ...], keepdim: bool) -> Any:
    """PyTorch's ``norm_backward`` on Tensors (the unreduced axes restored first)."""
    from .selection import MaskedFill
    from .unary import Sgn

    if x.ndim:
        grad, norm = _unsqueezed(grad, dim, x.ndim, keepdim), _unsqueezed(norm, dim, x.ndim, keepdim)
    be = x._backend
    if p == 0:
        return zeros_of(x)
    if p == 1:
        return Sgn.apply(x) * grad
    at_zero = be.binary("eq", norm.data, 0.0)
    if p == 2:
        return grad * MaskedFill.apply(x / norm, mask=at_zero, value=0.0)
    if math.isinf(p):
        a = be.unary("abs", x.data)
        chosen = be.binary("maximum", be.binary("eq", a, norm.data), be.binary("eq", be.binary("eq", a, a), False))
        mask = x._wrap(be.astype(chosen, be.dtype(x.data)), x.dtype, None)
        return Sgn.apply(x) * ((grad / mask.sum(dim, True)) * mask)
    if p < 1:
        scaled = Sgn.apply(x) * MaskedFill.apply(x.abs() ** (p - 1), mask=be.binary("eq", x.data, 0.0), value=0.0)
        return scaled * grad * norm ** (1 - p)
    scaled = Sgn.apply(x) * x.abs() ** (p - 1) if p < 2 else x * x.abs() ** (p - 2)
    return scaled * MaskedFill.apply(grad / norm ** (p - 1), mask=at_zero, value=0.0)


def zeros_of(x: Tensor) -> Tensor:
    """Zeros of x's shape and dtype, outside the graph."""
    be = x._backend
    return x._wrap(be.full(x.shape, 0.0, be.dtype(x.data)), x.dtype, None)


def norm_of(x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """‖x‖ₚ over ``dim`` (all elements by default): p = 2 (``"fro"``), 1, ``inf``, ``-inf``, 0 or any other
    number (``LinalgVectorNormBackward0``, as PyTorch's ``Tensor.norm``)."""
    if p == "fro":
        p = 2.0
    if isinstance(p, str) or not isinstance(p, (int, float)):
        raise RuntimeError(f"norm(): p={p!r} is not a vector norm here\n"
                           "What to do: pass a number (2, 1, float('inf')) or 'fro'.")
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype in INTEGERS:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{'Long' if x.dtype == 'int64' else 'Bool'}\nWhat to do: use a float Tensor: t.float().")
    dims = normalize_dims(None if dim in ((), []) else dim, x.ndim)
    return VectorNorm.apply(x, p=float(p), dim=dims, keepdim=bool(keepdim))  # type: ignore[no-any-return]
