"""Where a Tensor's elements lie in memory: its strides, whether it is contiguous, whether a reshape can be a view.

PyTorch decides several graphs by the memory layout: ``contiguous()`` copies
(``CloneBackward0``) only a non-contiguous Tensor; ``reshape`` is a view
(``ViewBackward0``, or ``ReshapeAliasBackward0`` for a non-contiguous input)
when PyTorch's ``computeStride`` finds strides for the new shape, and a copy
otherwise; ``@`` folds batches into one matrix only when that needs no copy.
The layout here is the logical one, the same on every device (CUDA arrays are
copies, always contiguous): a Tensor that is no view is contiguous, and a view's
strides are read off the same view made of its base's element numbers.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .indexing import element_numbers

if TYPE_CHECKING:
    from .tensor import Tensor

Strides = tuple[int, ...]


def contiguous_strides(shape: tuple[int, ...]) -> Strides:
    """The strides of a row-major array of ``shape`` (in elements)."""
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def _positions(view: Tensor) -> Any:
    """Where each element of ``view`` is in its base (a host int64 array of the view's shape): the view's
    steps' forwards run again on the base's element numbers, each with a node of its own Function that
    records nothing (no edge, never in the graph; unseen by the tracer)."""
    steps, link = [], view._view_steps
    while link is not None:
        steps.append(link)
        link = link.parent
    be = view._base._backend
    where = element_numbers(be, be.shape(view._base.data))
    for step in reversed(steps):
        where = step.fn.forward(step.fn.unrecorded_ctx(1), where, **step.attributes)
    return np.asarray(be.to_host(where))


def strides_of(x: Tensor) -> Strides:
    """``x.stride()`` as PyTorch gives it, in elements (a size-1 axis gets the row-major stride)."""
    shape = x.shape
    natural = contiguous_strides(shape)
    if x._base is None or not math.prod(shape):
        return natural
    positions = _positions(x)
    origin = int(positions[(0,) * len(shape)])
    out = []
    for d, n in enumerate(shape):
        if n == 1:
            out.append(natural[d])
        else:
            step = [0] * len(shape)
            step[d] = 1
            out.append(int(positions[tuple(step)]) - origin)
    return tuple(out)


def is_contiguous(x: Tensor) -> bool:
    """Are ``x``'s elements, in row-major order, one after another in memory (PyTorch's ``is_contiguous``:
    size-1 axes don't count; an empty Tensor is)?"""
    if x._base is None or not math.prod(x.shape):
        return True
    return _contiguous(x.shape, strides_of(x))


def _contiguous(shape: tuple[int, ...], strides: Strides) -> bool:
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def reshape_kind(x: Tensor, new_shape: tuple[int, ...]) -> str:
    """What PyTorch's ``reshape`` makes: ``"view"`` of a contiguous Tensor, ``"alias"`` (a view of a
    non-contiguous one, ``_reshape_alias``) when ``computeStride`` finds strides, else ``"copy"``."""
    if x._base is None or not math.prod(x.shape):
        return "view"
    strides = strides_of(x)
    if _contiguous(x.shape, strides):
        return "view"
    return "alias" if view_strides(x.shape, strides, new_shape) is not None else "copy"


def view_strides(shape: tuple[int, ...], strides: Strides, new_shape: tuple[int, ...]) -> Strides | None:
    """PyTorch's ``computeStride``: the strides that read memory laid out as ``shape``/``strides`` in
    ``new_shape`` (same number of elements), or ``None`` when no strides can: then a view is impossible.

    Walking from the last axis, the axes are grouped into chunks that are contiguous among themselves;
    each chunk must be split into whole axes of the new shape.
    """
    if not shape:  # a 0-d Tensor: any shape of one element
        return (1,) * len(new_shape)
    if not math.prod(shape):
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        chunk_ends = tensor_d == 0 or (shape[tensor_d - 1] != 1
                                       and strides[tensor_d - 1] != tensor_numel * chunk_base_stride)
        if chunk_ends:
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(new_strides) if view_d == -1 else None


def viewable(x: Tensor, new_shape: tuple[int, ...]) -> bool:
    """Can ``x`` be read in ``new_shape`` without a copy (PyTorch's rule for ``view``)?"""
    if x._base is None:
        return True
    return view_strides(x.shape, strides_of(x), new_shape) is not None


PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.\n"
    "What to do: pass a copy of the input (y.add_(y.t().clone())): it shares some of y's elements."
)


def _span(x: Tensor) -> tuple[int, int] | None:
    """The block of its base's element numbers that ``x`` fills, ``(first, past the last)``; None if its
    elements are not one block without repeats (PyTorch's ``is_non_overlapping_and_dense`` fails)."""
    n = math.prod(x.shape)
    if x._base is None:
        return 0, n
    where = _positions(x).ravel()
    first, last = int(where.min()), int(where.max())
    return (first, last + 1) if last - first + 1 == n and len(np.unique(where)) == n else None


def overlap(a: Tensor, b: Tensor) -> str:
    """PyTorch's ``get_overlap_status`` of two Tensors: ``"full"`` (the same elements, laid out alike),
    ``"partial"``, ``"none"``, or ``"too hard"`` (either is not one block of elements: not checked)."""
    if (a._base if a._base is not None else a) is not (b._base if b._base is not None else b):
        return "none"  # not the same memory
    if a is b:
        return "full"
    if not math.prod(a.shape) or not math.prod(b.shape):
        return "none"
    span_a, span_b = _span(a), _span(b)
    if span_a is None or span_b is None:
        return "too hard"
    if span_a == span_b:
        return "full" if strides_of(a) == strides_of(b) else "partial"
    return "partial" if span_a[0] < span_b[1] and span_b[0] < span_a[1] else "none"


def refuse_partial_overlap(x: Tensor, inputs: tuple[Any, ...]) -> None:
    """Raise PyTorch's error if an in-place op on ``x`` reads an input that shares only some of its memory
    (``y.add_(y.t())``); the same Tensor (``y.add_(y)``) or its very elements laid out alike are fine."""
    for other in inputs:
        if hasattr(other, "_base") and overlap(x, other) == "partial":
            raise RuntimeError(PARTIAL_OVERLAP)
