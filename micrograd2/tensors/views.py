"""Views and in-place ops: keeping the graph right when two Tensors share memory.

``y[0:2]``, ``y.t()`` and ``y.reshape(…)`` return *views*: Tensors whose array is a window on
``y``'s (their *base*).  Writing through one changes the other, so an in-place op in grad mode must
change the history of both, as PyTorch does:

* in place on the base (``y.mul_(2)``): ``y`` gets its new ``grad_fn`` and every live view of ``y``
  is derived again from it (``v = y[0:2]`` now reads ``SliceBackward0`` → ``MulBackward0``);
* in place on a view made by indexing (``y[0:2].mul_(2)``): the op runs on the view's old value and
  the result is written into the base — ``y[0:2] = y[0:2] * 2``, so ``y.grad_fn`` is
  ``CopySlices`` — then every view of ``y``, this one included, is derived again from ``y``;
* in place on any other view (``t()``, ``reshape``, a view of a view): the same, with the view's
  elements located in the base by making the same view of the base's element numbers.

On CUDA only ``reshape`` makes true views (indexing and transposing copy); the histories are kept
the same way, and a view's numbers are copied again after an in-place op on its base.  Under
``no_grad``, an in-place op on such a copy does not reach its base.

A view keeps the steps that make it from its base (``_view_steps``: its last step and the steps before
it, a linked list, so a long chain of views costs one link each); a base keeps its live views, weakly
(``_views``).
"""
from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..autograd import Variable, grad_mode
from ..autograd.node import VersionCounter
from .indexing import Select, SetItem, Slice, UnsqueezeIndex, element_numbers
from .shapes import View

Step = tuple[Any, dict[str, Any]]  # a view Function and its attributes: ``(Slice, {"index": …})``

INDEXING = (Select, Slice, UnsqueezeIndex)  # the views that ``x[index] = …`` can write back


def record(view: Any, source: Any, fn: Any, attributes: dict[str, Any]) -> None:
    """``view`` was made from ``source`` by the view Function ``fn``: it shares the memory and the
    version counter of ``source``'s base, and remembers the steps that make it from that base.
    (A ``reshape`` that had to copy is no view, as in PyTorch.)"""
    if fn is View and not source._backend.shares_memory(view.data, source.data):
        return
    if source._version_counter is None:
        source._version_counter = VersionCounter()
    view._version_counter = source._version_counter
    base = source._base if source._base is not None else source
    view._base = base
    view._view_steps = (fn, attributes, source._view_steps)
    if base._views is None:
        base._views = weakref.WeakValueDictionary()  # keyed by id: a Tensor's == is elementwise
    base._views[id(view)] = view


def steps_of(view: Any) -> list[Step]:
    """The steps that make ``view`` from its base, first step first."""
    steps, link = [], view._view_steps
    while link is not None:
        fn, attributes, link = link
        steps.append((fn, attributes))
    return steps[::-1]


def aliased(t: Any) -> bool:
    """Does ``t`` share memory with another Tensor: is it a view, or the base of a live view?"""
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
    index = _index_in_base(t)
    result = fn.apply(t._snapshot(), *others)  # the op on the view's old value, out of place
    base._in_place(SetItem, result, index)  # CopySlices into the base, which then re-derives t
    return t


def _index_in_base(view: Any) -> Any:
    """Where ``view``'s elements are in its base, as an index for ``base[index] = …``: the view's own
    index when it was made by one indexing, else integer arrays found by making the same view of
    the base's element numbers."""
    fn, attributes, before = view._view_steps
    if before is None and fn in INDEXING:
        return attributes["index"]
    base = view._base
    be = base._backend
    shape = be.shape(base.data)
    where = base._wrap(element_numbers(be, shape), "int64", None)
    with grad_mode.no_grad():
        for fn, attributes in steps_of(view):
            where = fn.apply(where, **attributes)
    positions = np.asarray(be.to_host(where.data))
    if np.unique(positions).size != positions.size:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.\n"
            "What to do: an expand()ed view repeats elements; use an out-of-place op, or clone() it first."
        )
    return np.unravel_index(positions, shape)


def _needs_history(base: Any, others: tuple[Any, ...]) -> bool:
    return base._requires_grad or any(isinstance(o, Variable) and o._requires_grad for o in others)


def _derive_views_again(base: Any) -> None:
    """Make each live view of ``base`` again from the base as it is now: a history that starts from the
    base's new one (when that was recorded) and, where the backend's view is a copy (CUDA indexing and
    transposing), the base's new numbers.  Views of views share their first steps: each step is made once."""
    be = base._backend
    made: dict[int, Any] = {}  # id of a steps link -> the base's new view made by those steps
    for view in list(base._views.values()) if base._views else ():
        pending, link = [], view._view_steps
        while link is not None and id(link) not in made:
            pending.append(link)
            link = link[2]
        derived = base if link is None else made[id(link)]
        for link in reversed(pending):
            fn, attributes, _ = link
            derived = made[id(link)] = fn.apply(derived, **attributes)
        if derived.grad_fn is not None:
            view._rebase(derived.grad_fn)
        if not be.shares_memory(view.data, base.data):
            be.assign(view.data, derived.data)
