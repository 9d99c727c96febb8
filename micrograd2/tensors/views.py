"""Views and in-place ops: keeping the graph right when two Tensors share memory.

``y[0:2]``, ``y.t()`` and ``y.reshape(…)`` return *views*: Tensors whose array is a window on
``y``'s (their *base*).  Writing through one changes the other, so an in-place op in grad mode must
change the history of both, as PyTorch does:

* in place on the base (``y.mul_(2)``): ``y`` gets its new ``grad_fn``;
* in place on a view (``y[0].mul_(w)``, ``y.t().copy_(s)``, ``y[0][1] = 5.0``, a view of a view): the op
  runs on the view's old value and its result is written into the base, recorded on the base as one
  ``CopySlices`` (edges: the base's old history, then the op's other inputs, here ``w``) that keeps the
  op's own node (``MulBackward0``) inside it, as PyTorch's; the view's elements are found in the base by
  making the same view of the base's element numbers;
* then every live view of ``y``, the changed one included, reads from ``y`` as it is now: its ``grad_fn``
  is ``AsStridedBackward0`` → ``y.grad_fn``, as PyTorch's (which makes it with ``as_strided`` on memory;
  here it picks the base's elements by their numbers, so it works on any device).

On CUDA only ``reshape`` makes true views (indexing and transposing copy); the histories are kept
the same way, a view's numbers are copied again after an in-place op on its base, and an in-place op
on such a copy is written into its base, under ``no_grad`` too.

A view keeps the steps that make it from its base (``_view_steps``: its last ``ViewStep``, which links
to the steps before it, so a long chain of views costs one link each); a base keeps its live views,
weakly (``_views``).
"""
from __future__ import annotations

import contextlib
import weakref
from typing import Any, NamedTuple

import numpy as np

from ..autograd import Function, Variable, grad_mode
from .compute import mask_mul
from .indexing import AsStrided, Select, SetItem, Slice, UnsqueezeIndex, element_numbers, write_at
from .shapes import View

INDEXING = (Select, Slice, UnsqueezeIndex)  # the views that ``x[index] = …`` can write back


class ViewStep(NamedTuple):
    """One step from a base to a view: the view Function ``fn`` applied with ``attributes``, after
    the steps ``parent`` (``None``: the first step, from the base itself)."""

    fn: type[Function]
    attributes: dict[str, Any]
    parent: ViewStep | None


def record(view: Any, source: Any, fn: Any, attributes: dict[str, Any]) -> None:
    """``view`` was made from ``source`` by the view Function ``fn``: it shares the memory and the
    version counter of ``source``'s base, and remembers the steps that make it from that base.
    (A ``reshape`` that had to copy is no view, as in PyTorch.)"""
    if fn is View and not source._backend.shares_memory(view.data, source.data):
        return
    view._share_version_counter(source)
    base = source._base if source._base is not None else source
    view._base = base
    view._view_steps = ViewStep(fn, attributes, source._view_steps)
    if base._views is None:
        base._views = weakref.WeakValueDictionary()  # keyed by id: a Tensor's == is elementwise
    base._views[id(view)] = view


def aliased(t: Any) -> bool:
    """Does ``t`` share memory with another Tensor: is it a view, or the base of a live view?"""
    return t._base is not None or bool(t._views)


class CopySlices(Function):
    """An in-place op on a view, recorded on the base as PyTorch's ``CopySlices``: the base with the op's
    result written where the view's elements are.  Its edges are the base's old history, then the op's
    other inputs (``base[0].mul_(w)``: base, w); the op's own node (``op``, e.g. ``MulBackward0``) is kept
    inside it, not as an edge.  Backward, as PyTorch's: the gradient's part at the view's elements goes
    through the op's backward; the op's gradient for the view's old value is written back into that part;
    its other gradients go to the other inputs."""

    node_name = "CopySlices"
    saved_names = ("fn",)
    ctx_slots = ("index", "keep")

    @staticmethod
    def forward(ctx, base, *others, value, op, index, dtype):  # type: ignore[override]  # (keyword-only)
        out, ctx.keep = write_at(base, value, index)
        ctx.save_for_backward(op)  # (saved: freed with this node's saved values, the op's own go with it)
        ctx.index = index
        return out

    @staticmethod
    def backward(ctx, grad):
        (op,), index = ctx.saved_tensors, ctx.index
        if op is None:  # the op recorded nothing: the view's elements were overwritten by a constant
            return mask_mul(grad, ctx.keep), *([None] * (len(ctx.needs_input_grad) - 1))
        grads = op(grad[index])
        grads = grads if type(grads) is tuple else (grads,)
        if grads[0] is None:
            return mask_mul(grad, ctx.keep), *grads[1:]
        return SetItem.apply(grad, grads[0], index=index), *grads[1:]


def in_place(t: Any, fn: Any, others: tuple[Any, ...]) -> Any:
    """``t`` becomes ``fn(t, *others)``, for a Tensor ``t`` that shares memory with others."""
    base = t._base
    if base is None:  # the base: its own history changes, then its views follow
        Variable._in_place(t, fn, *others)
        _make_views_again(t)
        return t
    if not grad_mode.is_grad_enabled() or not _needs_history(base, others):  # only the numbers change
        Variable._in_place(t, fn, *others)
        if base._backend.shares_memory(t.data, base.data):
            _make_views_again(base, numbers=False)
        else:  # a copy (CUDA indexing, transposing): its new numbers are written into the base, the views follow
            base._assign(write_at(base.data, t.data, _index_in_base(t))[0])
            _make_views_again(base)
        return t
    index = _index_in_base(t)
    result = fn.apply(t._snapshot(), *others)  # the op on the view's old value: CopySlices keeps its node
    written = CopySlices.apply(base._snapshot(), *others, value=result.data, op=result.grad_fn, index=index,
                               dtype=base.dtype)
    base._assign(written.data)
    if written.grad_fn is not None:
        base._rebase(written.grad_fn)
    base._bump_version()
    _make_views_again(base)
    return t


def _index_in_base(view: Any) -> Any:
    """Where ``view``'s elements are in its base, to be written there: refused when the view repeats
    an element (an ``expand``), as PyTorch."""
    index = _where_in_base(view, {})
    if not isinstance(index, tuple) or not index or not isinstance(index[0], np.ndarray):
        return index
    positions = np.ravel_multi_index(index, view._backend.shape(view._base.data))
    if np.unique(positions).size != positions.size:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.\n"
            "What to do: an expand()ed view repeats elements; use an out-of-place op, or clone() it first."
        )
    return index


def _where_in_base(view: Any, made: dict[int, Any]) -> Any:
    """Where ``view``'s elements are in its base, as an index of the base: the view's own index when it
    was made by one indexing, else integer arrays found by making the same view of the base's element
    numbers.  ``made``: id of a steps link -> those numbers after those steps (views of views share them)."""
    last = view._view_steps
    if last.parent is None and last.fn in INDEXING:
        return last.attributes["index"]
    base = view._base
    be = base._backend
    shape = be.shape(base.data)
    pending, link = [], last
    while link is not None and id(link) not in made:
        pending.append(link)
        link = link.parent
    with grad_mode.no_grad():
        where = base._wrap(element_numbers(be, shape), "int64", None) if link is None else made[id(link)]
        for link in reversed(pending):
            where = made[id(link)] = link.fn.apply(where, **link.attributes)
    return np.unravel_index(np.asarray(be.to_host(where.data)), shape)


def _needs_history(base: Any, others: tuple[Any, ...]) -> bool:
    return base._requires_grad or any(isinstance(o, Variable) and o._requires_grad for o in others)


def _make_views_again(base: Any, numbers: bool = True) -> None:
    """After an in-place op on ``base`` or one of its views, each live view reads from the base as it is now,
    as PyTorch's: its history is one ``AsStridedBackward0`` whose edge is the base's new history (when that
    was recorded; under ``no_grad``, for a view that had a history: PyTorch's view reads its base afresh once
    their version changed) and, with ``numbers``, where the backend's view is a copy (CUDA indexing and
    transposing), it gets the base's new numbers.  Views of views share their first steps: each step is made once."""
    be = base._backend
    made: dict[int, Any] = {}
    recording = grad_mode.is_grad_enabled()
    for view in list(base._views.values()) if base._views else ():
        if not numbers and (view.grad_fn is None or not base._requires_grad):
            continue
        with grad_mode.enable_grad() if view.grad_fn is not None and not recording else contextlib.nullcontext():
            derived = AsStrided.apply(base, index=_where_in_base(view, made))
        if derived.grad_fn is not None:
            view._rebase(derived.grad_fn)
        if numbers and not be.shares_memory(view.data, base.data):
            be.assign(view.data, derived.data)
