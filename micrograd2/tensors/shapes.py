"""Shapes: ``reshape``/``view``, ``unsqueeze``, ``squeeze``, ``expand``/``expand_as``, ``permute``, ``t``,
``transpose``; copies: ``clone``, ``repeat``, ``flip`` and ``copy_`` (in place: ``src`` broadcast to the
Tensor's shape, the one ``CopyBackwards`` node).

All but ``clone`` are views (and ``contiguous``, which copies a Tensor that is not contiguous, as
``strides.py`` tells; a ``reshape`` may copy too): the result shares the input's memory (``Tensor._view``
records that, see ``views.py``).  The ``Function``\\ s come first; several only
reshape and differ from ``View`` in PyTorch's node name alone, so they are
``View`` renamed.  Then the methods ``Tensor`` is given, which read PyTorch's
arguments and pick the Function.
"""
from __future__ import annotations

import contextlib
import math
import numbers
from typing import TYPE_CHECKING, Any

from ..autograd import Function, grad_mode
from ..backends import array_types
from . import compute, strides
from .compute import Partial, backend, normalize_dims, renamed
from .storage import INTEGERS, storage_dtype

_array_types = array_types()

if TYPE_CHECKING:
    from .tensor import Tensor


class View(Function):
    """``reshape``/``view``/``flatten``: the same numbers in a new shape.  Backward reshapes back."""

    node_name = "ViewBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x, shape):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.reshape(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


Unsqueeze = renamed(View, "Unsqueeze", "UnsqueezeBackward0")  # a new axis of size 1: unsqueeze(d)
Squeeze = renamed(View, "Squeeze", "SqueezeBackward1")  # an axis of size 1 removed: squeeze(d)
SqueezeAll = renamed(View, "SqueezeAll", "SqueezeBackward0")  # every axis of size 1 removed: squeeze()
SqueezeDims = renamed(View, "SqueezeDims", "SqueezeBackward4")  # squeeze((d1, d2)); what 1-D @ 2-D ends with


class Expand(Function):
    """``expand(shape)``: broadcast to a bigger shape.  Backward sums back."""

    node_name = "ExpandBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x, shape):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return compute.sum_to(grad, ctx.shape)


class Permute(Function):
    """``permute(axes)`` and ``.T``: axes reordered.  Backward applies the inverse order."""

    node_name = "PermuteBackward0"
    ctx_slots = ("axes",)

    @staticmethod
    def forward(ctx, x, axes):
        ctx.axes = axes
        return backend(x).transpose(x, axes)

    @staticmethod
    def backward(ctx, grad):
        inverse = tuple(sorted(range(len(ctx.axes)), key=ctx.axes.__getitem__))
        return grad.permute(*inverse)


Transpose = renamed(Permute, "Transpose", "TransposeBackward0")  # transpose(d0, d1): two axes swapped


class T(Function):
    """``t()``: the transpose of a matrix (what ``Linear`` applies to its weight)."""

    node_name = "TBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.transpose(x, (1, 0)) if len(be.shape(x)) == 2 else x

    @staticmethod
    def backward(ctx, grad):
        return grad.t() if grad.ndim == 2 else grad


class Clone(Function):
    """``clone()``: a copy with its own memory.  ∂/∂x = 1."""

    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.astype(x, be.dtype(x))

    @staticmethod
    def backward(ctx, grad):
        return grad


class Copy(Function):
    """``self.copy_(src)`` (PyTorch's ``CopyBackwards``): ``src`` broadcast to self's shape, in self's dtype
    (``dtype=``) and on self's device.  Self's old value is overwritten: its gradient is 0; ``src``'s is the
    gradient summed back to its shape, in its dtype, on its device.

    Also a leaf's first ``.grad`` while backward is recorded (create_graph), made as PyTorch's
    ``AccumulateGrad`` makes it, ``new_empty().copy_(grad)``: ``self`` is ``None`` (new memory, no edge).
    So no two leaves share one gradient Tensor, nor a seed's memory."""

    node_name = "CopyBackwards"
    ctx_slots = ("source",)  # src's shape, device and dtype (None for a number)

    @staticmethod
    def forward(ctx, target, src, dtype=None, src_dtype=None):
        be = backend(src if target is None else target)
        if target is None:
            ctx.source = None
            return be.astype(src, be.dtype(src))
        shape, dtype = be.shape(target), dtype or be.dtype(target)
        source = _array_types.get(type(src))
        if source is None:  # a number
            ctx.source = None
            return be.full(shape, src, storage_dtype(dtype))
        ctx.source = (source.shape(src), source.name, src_dtype)
        if source is not be:  # another device: the numbers move (PyTorch's copy_ across devices)
            src = be.from_host(source.to_host(src), source.dtype(src))
        return be.astype(be.broadcast_to(src, shape), dtype)

    @staticmethod
    def backward(ctx, grad):
        old, src = ctx.needs_input_grad
        zeros = None
        if old:  # self's old history needs a gradient: 0, it was overwritten
            zeros = compute.zeros_like(grad)
        if not src or ctx.source is None:  # a number, or a leaf's first .grad (the gradient as it is)
            return zeros, grad if src else None
        shape, device, dtype = ctx.source
        return zeros, compute.sum_to(grad, shape).to(dtype, device)


# -- the methods ---------------------------------------------------------------------------------------
def shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    """A shape given as ``f(2, 3)`` or ``f((2, 3))``, as a tuple of ints."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(int(n) for n in shape[0])
    return tuple(int(n) for n in shape)


def _infer_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    known = math.prod(n for n in shape if n != -1)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred\nWhat to do: use -1 at most once.")
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}\n"
                               "What to do: the sizes must multiply to the number of elements.")
        shape = tuple(numel // known if n == -1 else n for n in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}\n"
                           "What to do: the sizes must multiply to the number of elements.")
    return shape


UnsafeView = renamed(View, "UnsafeView", "UnsafeViewBackward0")  # the new shape of a copy: reshape's second step
ReshapeAlias = renamed(View, "ReshapeAlias", "ReshapeAliasBackward0")  # reshape's view of a non-contiguous Tensor


def reshape(x: Tensor, *shape: Any) -> Tensor:
    """The same elements in a new shape (one ``-1`` is inferred), as PyTorch: a view when the memory allows
    (``ViewBackward0``; ``ReshapeAliasBackward0`` when ``x`` is not contiguous), else a copy in the new
    shape (``UnsafeViewBackward0`` over ``CloneBackward0``)."""
    new = _infer_shape(shape_arg(shape), x.numel())
    kind = strides.reshape_kind(x, new)
    if kind == "copy":
        return UnsafeView.apply(Clone.apply(x), shape=new)  # type: ignore[no-any-return]
    return x._view(View if kind == "view" else ReshapeAlias, shape=new)


def view(x: Tensor, *shape: Any) -> Tensor:
    """A view in a new shape; refused (``RuntimeError``) when the memory does not allow it, as PyTorch."""
    new = _infer_shape(shape_arg(shape), x.numel())
    if not strides.viewable(x, new):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.\n"
            "What to do: use reshape (it copies when it must), or make a contiguous copy first (t.clone())."
        )
    return x._view(View, shape=new)


def copy_(x: Tensor, src: Any) -> Tensor:
    """Copy ``src``'s values into ``x``, in place, as PyTorch (one ``CopyBackwards`` node): ``src``, a Tensor of
    any dtype and device or a number, is broadcast to x's shape and cast to x's dtype.  Its gradient flows
    back summed to its shape, in its dtype; x's old value gets 0 (it was overwritten)."""
    if isinstance(src, type(x)):
        target, source = x.shape, src.shape
        both = compute.broadcast_shape(target, source)
        if both is None:
            raise compute.shapes_differ(target, source)
        if both != target:
            raise RuntimeError(
                f"output with shape {list(target)} doesn't match the broadcast shape {list(both)}\n"
                "What to do: copy_ keeps the Tensor's shape; src must broadcast to it (sizes equal or 1)."
            )
    elif not isinstance(src, numbers.Real):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}\n"
            "What to do: pass a Tensor (mg.tensor(...)) or a number."
        )
    x._check_view_in_place()
    # (an integer Tensor is not differentiable: only its numbers change; the result keeps x's dtype)
    with grad_mode.no_grad() if x.dtype in INTEGERS else contextlib.nullcontext():
        x._in_place(Partial(Copy, dtype=x.dtype, src_dtype=getattr(src, "dtype", None)), src)
    return x


def contiguous(x: Tensor) -> Tensor:
    """``x`` itself if it is contiguous, else a row-major copy (``CloneBackward0``), as PyTorch."""
    return x if strides.is_contiguous(x) else Clone.apply(x)  # type: ignore[no-any-return]


def flatten(x: Tensor) -> Tensor:
    """The elements as a 1-D Tensor."""
    return reshape(x, -1)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    """A new axis of size 1 at ``dim`` (``UnsqueezeBackward0``)."""
    d = dim % (x.ndim + 1) if -(x.ndim + 1) <= dim <= x.ndim else None
    if d is None:
        normalize_dims(dim, x.ndim + 1)  # raises PyTorch's IndexError
    s = x.shape
    return x._view(Unsqueeze, shape=s[:d] + (1,) + s[d:])


def squeeze(x: Tensor, dim: Any = None) -> Tensor:
    """Axes of size 1 removed: all of them, or those among ``dim``."""
    s = x.shape
    if dim is None:
        return x._view(SqueezeAll, shape=tuple(n for n in s if n != 1))
    dims = normalize_dims(dim, x.ndim)
    fn = Squeeze if isinstance(dim, int) else SqueezeDims
    return x._view(fn, shape=tuple(n for i, n in enumerate(s) if not (i in dims and n == 1)))


def expand(x: Tensor, *shape: Any) -> Tensor:
    """Broadcast to a bigger shape (``-1`` keeps a size): ``ExpandBackward0``.  Only a size-1 axis grows."""
    new = shape_arg(shape)
    lead = len(new) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand({x.dtype} {list(x.shape)}, size={list(new)}): the number of sizes provided "
                           f"({len(new)}) must be greater or equal to the number of dimensions in the tensor "
                           f"({x.ndim})\nWhat to do: give a size for every axis (-1 keeps one).")
    full = tuple(x.shape[i - lead] if n == -1 and i >= lead else n for i, n in enumerate(new))
    for i in range(lead, len(new)):
        if full[i] != x.shape[i - lead] and x.shape[i - lead] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({full[i]}) must match the existing size ({x.shape[i - lead]}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(new)}.  Tensor sizes: {list(x.shape)}\n"
                "What to do: only an axis of size 1 can be expanded (-1 keeps a size).")
    return x._view(Expand, shape=full)


def sum_to_size(x: Tensor, *size: Any) -> Tensor:
    """Sum down to ``size`` (the reverse of broadcasting, as PyTorch's ``sum_to_size``)."""
    target = tuple(shape_arg(size))
    if x.shape == target:
        return x
    lead = x.ndim - len(target)
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(target) if n == 1 and x.shape[i + lead] != 1)
    out = x.sum(dims, keepdim=True) if dims else x
    return out.reshape(target) if out.shape != target else out


def permute(x: Tensor, *axes: Any) -> Tensor:
    """The axes in the order ``axes`` (``PermuteBackward0``)."""
    order = tuple(shape_arg(axes))
    if len(order) == x.ndim and len({a % max(x.ndim, 1) for a in order}) < len(order):
        raise RuntimeError("permute(): duplicate dims are not allowed.\nWhat to do: name every axis once.")
    if sorted(a % max(x.ndim, 1) for a in order) != list(range(x.ndim)):
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {x.ndim} is not equal to "
            f"len(dims) = {len(order)}\nWhat to do: name every axis once."
        )
    return x._view(Permute, axes=tuple(a % x.ndim for a in order))


def reversed_axes(x: Tensor) -> Tensor:
    """``x.T``: the axes reversed (``PermuteBackward0``, as PyTorch's ``.T``)."""
    return x._view(Permute, axes=tuple(reversed(range(x.ndim))))


def t(x: Tensor) -> Tensor:
    """The transpose of a matrix (``TBackward0``); a 0-d or 1-D Tensor is returned as it is."""
    if x.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D\n"
            "What to do: use transpose(d0, d1) or permute(...)."
        )
    return x._view(T)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two axes (``TransposeBackward0``)."""
    (a,), (b,) = normalize_dims(dim0, x.ndim), normalize_dims(dim1, x.ndim)
    order = list(range(x.ndim))
    order[a], order[b] = order[b], order[a]
    return x._view(Transpose, axes=tuple(order))


class Flip(Function):
    """``flip(dims)``: the order of the elements reversed along ``dims`` (a copy, as PyTorch's).
    Backward flips the gradient back (``FlipBackward0``)."""

    node_name = "FlipBackward0"
    ctx_slots = ("dims",)

    @staticmethod
    def forward(ctx, x, dims):
        be = backend(x)
        ctx.dims = dims
        out = be.astype(x, be.dtype(x))
        for d in dims:  # one axis at a time (index arrays on several axes would pair up, not cross)
            backwards = be.from_host(list(range(be.shape(x)[d] - 1, -1, -1)), "int64")
            out = be.getitem(out, (slice(None),) * d + (backwards,))
        return out

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, dims=ctx.dims)


def flip(x: Tensor, *dims: Any) -> Tensor:
    """The elements in reverse order along ``dims`` (``FlipBackward0``)."""
    return Flip.apply(x, dims=normalize_dims(shape_arg(dims), x.ndim))  # type: ignore[no-any-return]


def expand_as(x: Tensor, other: Tensor) -> Tensor:
    """``x.expand(other.shape)`` (``ExpandBackward0``)."""
    return expand(x, other.shape)


class Repeat(Function):
    """``repeat(*sizes)``: the Tensor tiled ``sizes[i]`` times along axis i (leading sizes add axes).
    PyTorch's ``repeat_backward``: the gradient viewed as (repeat, size) pairs, summed over the repeats."""

    node_name = "RepeatBackward0"
    ctx_slots = ("repeats", "shape")

    @staticmethod
    def forward(ctx, x, repeats):
        be = backend(x)
        shape = be.shape(x)
        ctx.repeats, ctx.shape = repeats, shape
        full = (1,) * (len(repeats) - len(shape)) + shape
        paired = tuple(n for r, s in zip(repeats, full) for n in (1, s))
        tiled = tuple(n for r, s in zip(repeats, full) for n in (r, s))
        out = be.broadcast_to(be.reshape(x, paired), tiled)
        return be.reshape(be.astype(out, be.dtype(x)), tuple(r * s for r, s in zip(repeats, full)))

    @staticmethod
    def backward(ctx, grad):
        repeats, shape = ctx.repeats, ctx.shape
        if 0 in repeats:  # nothing was copied: zeros of the input's shape
            be = grad._backend
            return grad._wrap(be.full(shape, 0.0, be.dtype(grad.data)), grad.dtype, None)
        for _ in range(len(repeats) - len(shape)):
            grad = grad.sum(0)
        sizes: list[int] = []
        dims: list[int] = []
        for r, s in zip(repeats[len(repeats) - len(shape):], shape):
            if r != 1:
                sizes.append(r)
                dims.append(len(sizes) - 1)
            sizes.append(s)
        return grad.reshape(*sizes).sum(tuple(dims)) if dims else grad


def repeat(x: Tensor, *sizes: Any) -> Tensor:
    """The Tensor tiled: ``repeat(2, 1)`` stacks two copies along axis 0 (``RepeatBackward0``)."""
    repeats = shape_arg(sizes)
    if len(repeats) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor\nWhat to do: give one count per axis (1 keeps an axis as it is).")
    return Repeat.apply(x, repeats=repeats)  # type: ignore[no-any-return]
