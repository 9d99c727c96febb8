"""Joining Tensors: ``cat`` (along an existing axis) and ``stack`` (along a new one), as ``torch.cat``/``torch.stack``.

Each is one node with one edge per input (``CatBackward0``, ``StackBackward0``);
backward hands input k its own part of the gradient: a slice along the axis for
``cat`` (PyTorch's ``cat_tensors_backward``), position k of the new axis for
``stack``.  The inputs are promoted to one dtype first, as PyTorch's; each
gradient comes back in its input's dtype.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..autograd import Function, Variable
from .compute import backend, cast_operand, normalize_dims
from .indexing import Stack
from .storage import FLOATS, INTEGERS, promote

if TYPE_CHECKING:
    from .tensor import Tensor


class Cat(Function):
    """Tensors joined along ``dim``: ``CatBackward0``.  Input k gets the gradient's slice
    [start_k, start_k + size_k) along ``dim`` (a 1-D empty input, which PyTorch skips, gets zeros)."""

    node_name = "CatBackward0"
    ctx_slots = ("dim", "sizes")

    @staticmethod
    def forward(ctx, *pieces, dim, dtype=None):  # type: ignore[override]  # (keyword-only attributes)
        be = backend(*pieces)
        kept = [a for a in pieces if not _skipped(be.shape(a))]
        ctx.dim, ctx.sizes = dim, tuple(be.shape(a) for a in pieces)
        if not kept:
            return be.astype(pieces[0], be.dtype(pieces[0]))
        first = be.shape(kept[0])
        out_shape = first[:dim] + (sum(be.shape(a)[dim] for a in kept),) + first[dim + 1:]
        out = be.full(out_shape, 0.0, be.dtype(kept[0]))
        start = 0
        for a in kept:
            n = be.shape(a)[dim]
            out = _written(be, out, (slice(None),) * dim + (slice(start, start + n),), a)
            start += n
        return out

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        every = (slice(None),) * ctx.dim
        for shape, need in zip(ctx.sizes, ctx.needs_input_grad):
            if _skipped(shape):
                grads.append(grad.new_zeros(0) if need else None)
                continue
            n = shape[ctx.dim]
            grads.append(grad[every + (slice(start, start + n),)] if need else None)
            start += n
        return tuple(grads)


def _skipped(shape: tuple[int, ...]) -> bool:
    """A 1-D empty Tensor: PyTorch's ``cat`` skips it, whatever the other shapes (its legacy rule)."""
    return shape == (0,)


def _written(be: Any, out: Any, where: Any, a: Any) -> Any:
    """``out`` with the array ``a`` written at the basic index ``where``."""
    window = be.getitem(out, where)
    if be.shares_memory(window, out):  # NumPy: a view of out, written into
        be.assign(window, a)
        return out
    return be.binary("add", out, be.scatter_add(be.shape(out), where, a, be.dtype(out)))  # (CUDA: a scatter)


# -- the functions ----------------------------------------------------------------------------------------
def _tensors(tensors: Any, name: str) -> list[Tensor]:
    """``tensors`` as a list of Tensors (PyTorch's errors for an empty list or another kind of element)."""
    from .tensor import Tensor

    if isinstance(tensors, Variable) or not isinstance(tensors, Sequence):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}\nWhat to do: pass a list of Tensors: mg.{name}([a, b]).")
    if not tensors:
        raise ValueError(f"torch.{name}(): expected a non-empty list of Tensors\n"
                         "What to do: pass at least one Tensor.")
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}\n"
                            "What to do: make each element a Tensor (mg.tensor(...)).")
    return list(tensors)


def _in_one_dtype(tensors: list[Tensor]) -> tuple[list[Any], str]:
    """The Tensors in their promoted dtype (PyTorch's ``result_type``): an integer one converted, a float one
    of another width cast inside the op, its gradient still going to it in its own dtype."""
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = promote(dtype, t.dtype)
    device = tensors[0]._backend
    out = []
    for t in tensors:
        if t._backend is not device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{tensors[0].device} and {t.device}!\nWhat to do: move one with .to(...).")
        if t.dtype == dtype:
            out.append(t)
        elif t.dtype in INTEGERS or dtype not in FLOATS:
            out.append(t.to(dtype))
        else:
            out.append(cast_operand(t, dtype))
    return out, dtype


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """The Tensors joined along the axis ``dim`` (``CatBackward0``); sizes must agree on the other axes."""
    ts = _tensors(tensors, "cat")
    kept = [(k, t) for k, t in enumerate(ts) if not _skipped(t.shape)]
    for k, t in kept:
        if not t.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated\n"
                               "What to do: unsqueeze it first (t.unsqueeze(0)), or use mg.stack.")
    ndim = kept[0][1].ndim if kept else 1
    (d,) = normalize_dims(dim, ndim)
    if kept:
        k0, first = kept[0]
        for k, t in kept[1:]:
            if t.ndim != first.ndim:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}\n"
                                   "What to do: reshape or unsqueeze them to one number of dims.")
            for axis, (n, m) in enumerate(zip(first.shape, t.shape)):
                if axis != d and n != m:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size {n} but got size {m} "
                        f"for tensor number {k} in the list.\nWhat to do: only the sizes along dim may differ.")
    inputs, dtype = _in_one_dtype(ts)
    return Cat.apply(*inputs, dim=d, dtype=dtype)  # type: ignore[no-any-return]


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """The Tensors (of one shape) stacked along a new axis ``dim`` (``StackBackward0``)."""
    ts = _tensors(tensors, "stack")
    for k, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ts[0].shape)} at entry 0 "
                               f"and {list(t.shape)} at entry {k}\nWhat to do: give every Tensor the same shape.")
    (d,) = normalize_dims(dim, ts[0].ndim + 1)
    inputs, dtype = _in_one_dtype(ts)
    return Stack.apply(*inputs, dim=d, dtype=dtype)  # type: ignore[no-any-return]
