"""Views and in-place ops: keeping the graph right when two Tensors share memory.

``y[0:2]``, ``y.t()`` and ``y.reshape(…)`` return *views*: Tensors whose array is a window on
``y``'s (their *base*).  Writing through one changes the other, so an in-place op in grad mode must
change the history of both, as PyTorch does:

* in place on the base (``y.mul_(2)``): ``y`` gets its new ``grad_fn`` and every live view of ``y``
  is derived again from it (``v = y[0:2]`` now reads ``SliceBackward0`` → ``MulBackward0``);
* in place on a view made by one indexing (``y[0:2].mul_(2)``): the op runs on the view's old
  value and the result is written into the base — ``y[0:2] = y[0:2] * 2``, so ``y.grad_fn`` is
  ``CopySlices`` — then every view of ``y``, this one included, is derived again from ``y``.

In place on any other view (``t()``, ``reshape``, a view of a view) while recording raises
``RuntimeError``: micrograd2 cannot write such a change back into the base's history.

On CUDA only ``reshape`` makes true views (indexing and transposing copy); the histories are kept
the same way, and a view's numbers are copied again after an in-place op on its base.  Under
``no_grad``, an in-place op on such a copy does not reach its base.

A view keeps the steps that make it from its base (``_view_steps``); a base keeps its live views,
weakly (``_views``).
"""
from __future__ import annotations

import weakref
from typing import Any

from ..autograd import Variable, grad_mode
from ..autograd.node import VersionCounter
from . import ops

Step = tuple[Any, dict[str, Any]]  # a view Function and its attributes: ``(ops.Slice, {"index": …})``

INDEXING = (ops.Select, ops.Slice, ops.UnsqueezeIndex)  # the views that ``x[index] = …`` can write back


def record(view: Any, source: Any, fn: Any, attributes: dict[str, Any]) -> None:
    """``view`` was made from ``source`` by the view Function ``fn``: it shares the memory and the
    version counter of ``source``'s base, and remembers the steps that make it from that base.
    (A ``reshape`` that had to copy is no view, as in PyTorch.)"""
    if fn is ops.View and not source._backend.shares_memory(view.data, source.data):
        return
    if source._version_counter is None:
        source._version_counter = VersionCounter()
    view._version_counter = source._version_counter
    base = source._base if source._base is not None else source
    view._base = base
    view._view_steps = (source._view_steps or ()) + ((fn, attributes),)
    if base._views is None:
        base._views = weakref.WeakValueDictionary()  # keyed by id: a Tensor's == is elementwise
    base._views[id(view)] = view


def shares_memory(t: Any) -> bool:
    """Is ``t`` a view, or the base of a live view?"""
    return t._base is not None or bool(t._views)


def in_place(t: Any, fn: Any, others: tuple[Any, ...]) -> Any:
    """``t`` becomes ``fn(t, *others)``, for a Tensor ``t`` that shares memory with others."""
    base = t._base
    if base is None:  # the base: its own history changes, then its views follow
        Variable._in_place(t, fn, *others)
        _derive_views_again(t)
        return t
    if not grad_mode.is_grad_enabled() or not _needs_history(base, others):  # only the numbers change
        return Variable._in_place(t, fn, *others)
    steps = t._view_steps
    if len(steps) != 1 or steps[0][0] not in INDEXING:
        made_by = " then ".join(step[0].node_name.removesuffix("Backward0") for step in steps)
        raise RuntimeError(
            f"in-place op on a view ({made_by}) of a Tensor in the graph: micrograd2 can write an in-place "
            "change back into the base's history only for a view made by one indexing (y[0:2], y[1]).\n"
            "What to do: use an out-of-place op (v = v * 2), or index the base directly (y[0:2] *= 2)."
        )
    result = fn.apply(t._snapshot(), *others)  # the op on the view's old value, out of place
    base._in_place(ops.SetItem, result, steps[0][1]["index"])  # CopySlices into the base, which re-derives t
    return t


def _needs_history(base: Any, others: tuple[Any, ...]) -> bool:
    return base._requires_grad or any(isinstance(o, Variable) and o._requires_grad for o in others)


def _derive_views_again(base: Any) -> None:
    """Make each live view of ``base`` again from the base as it is now: a history that starts from the
    base's new one (when that was recorded) and, where the backend's view is a copy (CUDA indexing and
    transposing), the base's new numbers."""
    be = base._backend
    for view in list(base._views.values()):
        derived = base
        for fn, attributes in view._view_steps:
            derived = fn.apply(derived, **attributes)
        if derived.grad_fn is not None:
            view.grad_fn = derived.grad_fn
            view._requires_grad = True
        if not be.shares_memory(view.data, base.data):
            be.assign(view.data, derived.data)
