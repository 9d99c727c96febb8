r"""Indexing: ``x[i]``, ``x[a:b]``, ``x[None]``, index arrays and masks, ``x[index] = value``,
``x.unbind(dim)`` / ``for row in x`` (one ``UnbindBackward0`` whose output k is slice k), and
``x.gather(dim, index)`` (``GatherBackward0``, at the end).

Basic indexing (ints, slices, ``None``, ``...``) makes a view of ``x``; PyTorch names
its node after the last step (``SelectBackward0``, ``SliceBackward0``,
``UnsqueezeBackward0``), all one Function renamed.  An index array makes a copy
(``IndexBackward0``).  The ``Function``\ s come first, then the methods ``Tensor``
is given.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..autograd import Function, grad_mode
from ..backends import array_types
from ..backends.base import is_basic_index
from .compute import (
    Partial,
    backend,
    mask_mul,
    normalize_dims,
    renamed,
    shape_of,
    sum_to,
)
from .storage import FLOATS, INTEGERS, cross_device, storage_dtype

if TYPE_CHECKING:
    from .tensor import Tensor

_array_types = array_types()


class ViewIndex(Function):
    """``x[basic index]`` (ints, slices, ``None``): a view of ``x``.  Backward adds the gradient back at
    ``index``.  It saves no Tensor, as PyTorch's ``SelectBackward0`` and ``SliceBackward0`` keep only
    sizes and positions: a second backward through it alone works in both."""

    node_name = "SliceBackward0"
    ctx_slots = ("shape", "index")

    @staticmethod
    def forward(ctx, x, index):
        ctx.shape, ctx.index = backend(x).shape(x), index
        return _getitem(x, index)

    @staticmethod
    def backward(ctx, grad):
        return scatter(grad, ctx.shape, ctx.index)


class Index(Function):
    """``x[index]`` with index arrays or masks (advanced indexing): a copy.  Backward adds the gradient
    back at ``index`` (repeated positions add up)."""

    node_name = "IndexBackward0"
    saved_names = ("indices",)
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x, index):
        # NOTE [Saved indices]: PyTorch's IndexBackward0 saves its index Tensors, so backward frees them
        # and a second backward without retain_graph=True raises, as for any op that saves a Tensor.
        ctx.shape = backend(x).shape(x)
        ctx.save_for_backward(index)
        return _getitem(x, index)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return scatter(grad, ctx.shape, index)


def _getitem(x: Any, index: Any) -> Any:
    """The array ``x[index]``, with PyTorch's words for an index out of range."""
    be = backend(x)
    try:
        return be.getitem(x, index)
    except IndexError as error:  # NumPy's words for an axis are PyTorch's for a dimension
        raise IndexError(
            f"{str(error).replace('axis', 'dimension')}\n"
            f"What to do: the Tensor's shape is {tuple(be.shape(x))}; an index runs from -size to size - 1."
        ) from None


Select = renamed(ViewIndex, "Select", "SelectBackward0")  # x[i]: one position along an axis
Slice = renamed(ViewIndex, "Slice", "SliceBackward0")  # x[a:b]: a range along an axis
UnsqueezeIndex = renamed(ViewIndex, "UnsqueezeIndex", "UnsqueezeBackward0")  # x[None]: a new axis


def scatter(g: Any, out_shape: tuple[int, ...], index: Any) -> Any:
    """Zeros of ``out_shape`` with the gradient ``g`` added at ``index``: the backward of indexing."""
    return IndexPut.apply(g, shape=out_shape, index=index)


class IndexPut(Function):
    """Zeros with ``values`` added at ``index`` (repeated positions add up): the backward of indexing
    (recorded: PyTorch's ``IndexPutImplBackward0``)."""

    node_name = "IndexPutImplBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx, values, shape, index):
        be = backend(values)
        ctx.save_for_backward(index)  # NOTE [Saved indices]
        return be.scatter_add(shape, index, values, be.dtype(values))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return grad[index]


class Unbind(Function):
    """``x.unbind(dim)`` (and ``for row in x``): the slices of ``x`` along ``dim`` as one op with one
    differentiable output per slice, as PyTorch's ``UnbindBackward0`` (slice k is output k, the edge
    ``(node, k)``).  Backward stacks the slices' gradients back along ``dim``, zeros for one that got none."""

    node_name = "UnbindBackward0"
    differentiable_outputs = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        be = backend(x)
        return tuple(be.getitem(x, (slice(None),) * dim + (k,)) for k in range(be.shape(x)[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(*grads, dim=ctx.dim)


class Stack(Function):
    """Tensors of one shape stacked along a new axis ``dim`` (``torch.stack``, and unbind's backward):
    ``StackBackward0``.  Backward: PyTorch's ``stack_tensors_backward``, slice k of the gradient
    (``grad.select(dim, k)``) to input k."""

    node_name = "StackBackward0"
    ctx_slots = ("dim",)

    @staticmethod
    def forward(ctx, *slices, dim, dtype=None):  # type: ignore[override]  # (keyword-only attributes)
        ctx.dim = dim
        return stack(slices, dim)

    @staticmethod
    def backward(ctx, grad):
        every = (slice(None),) * ctx.dim
        return tuple(grad[every + (k,)] if need else None for k, need in enumerate(ctx.needs_input_grad))


def stack(slices: Any, dim: int) -> Any:
    """The arrays ``slices`` (of one shape) stacked along a new axis ``dim``: zeros, each slice written in."""
    be = backend(*slices)
    first = next(a for a in slices if type(a) in _array_types)
    shape, dtype = be.shape(first), be.dtype(first)
    out_shape = shape[:dim] + (len(slices),) + shape[dim:]
    out = be.full(out_shape, 0.0, dtype)
    for k, a in enumerate(slices):
        where = (slice(None),) * dim + (slice(k, k + 1),)
        window = be.getitem(out, where)
        if be.shares_memory(window, out):  # NumPy: a view of out, written into
            be.assign(window, be.reshape(a, shape[:dim] + (1,) + shape[dim:]))
        else:  # a backend whose indexing copies (CUDA): added as a scatter
            out = be.binary("add", out, be.scatter_add(out_shape, (slice(None),) * dim + (k,), a, dtype))
    return out


# A view made again from its base after an in-place op (PyTorch's as_strided, on the base's element numbers:
# ``index`` says where the view's elements are in the base; backward adds the gradient back there).
AsStrided = renamed(ViewIndex, "AsStrided", "AsStridedBackward0")

Unbound = renamed(ViewIndex, "Unbound", "SelectBackward0")  # an output of a recorded unbind, as a view (views.py)

SEVERAL_VIEWS = (
    "Output {k} of {op} is a view and is being modified inplace. This view is the output of a function that "
    "returns multiple views. Such functions do not allow the output views to be modified inplace. You should "
    "replace the inplace operation by an out-of-place one.\n"
    "What to do: make a new Tensor (row = row * 2), or change the Tensor it came from before unbinding it."
)


class SetItem(Function):
    """``x[index] = value`` written out of place (``index``: a keyword attribute, no edge): x's gradient is 0
    where it was overwritten; the value's gradient is the gradient there, summed to the value's shape.
    Recorded as PyTorch's ``CopySlices`` (the write a recorded backward through CopySlices makes)."""

    node_name = "CopySlices"
    ctx_slots = ("index", "value_shape", "keep")

    @staticmethod
    def forward(ctx, x, value, index):  # type: ignore[override]  # (index: a keyword attribute)
        out, ctx.keep = write_at(x, value, index)
        ctx.index, ctx.value_shape = index, shape_of(value)
        return out

    @staticmethod
    def backward(ctx, grad):
        return _written_back(ctx, grad, ctx.index)


class IndexPutInPlace(SetItem):
    """``x[arrays] = value``: PyTorch's ``index_put_`` (``IndexPutBackward0``), which saves its indices
    (NOTE [Saved indices])."""

    node_name = "IndexPutBackward0"
    saved_names = ("indices",)

    @staticmethod
    def forward(ctx, x, value, index):  # type: ignore[override]  # (index: a keyword attribute)
        ctx.save_for_backward(index)
        return SetItem.forward(ctx, x, value, index)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return _written_back(ctx, grad, index)


def _written_back(ctx: Any, grad: Any, index: Any) -> tuple[Any, Any]:
    """The gradients of ``x[index] = value``: x's, 0 where it was overwritten; the value's, the gradient
    there summed to the value's shape (None for a number)."""
    grad_value = None
    if ctx.value_shape is not None:
        grad_value = sum_to(grad[index], ctx.value_shape)
    return mask_mul(grad, ctx.keep), grad_value


def write_at(x: Any, value: Any, index: Any) -> tuple[Any, Any]:
    """The array ``x`` with ``value`` (broadcast) written at ``index``, out of place, and the mask of the
    positions kept (not written)."""
    be = backend(x)
    xs, dtype = be.shape(x), be.dtype(x)
    region = be.shape(be.getitem(x, index))
    v = be.broadcast_to(value if type(value) in _array_types else be.full((), float(value), dtype), region)
    last = _last_writes(be, xs, index)
    if last is not None:  # a position given twice: the last write wins (NumPy's and PyTorch's CPU rule)
        v = be.where(last, v, 0.0)
    filled = be.scatter_add(xs, index, v, dtype)
    written = be.binary("gt", be.scatter_add(xs, index, be.full(region, 1.0, dtype), dtype), 0.0)
    return be.where(written, filled, x), be.binary("eq", written, False)


def element_numbers(be: Any, shape: tuple[int, ...]) -> Any:
    """An int64 array of ``shape`` holding each element's position (0, 1, 2… in C order): index it, or
    view it, to find which elements of an array of that shape an index or a view reaches."""
    return be.reshape(be.arange(math.prod(shape)), shape)


def _last_writes(be: Any, shape: tuple[int, ...], index: Any) -> Any:
    """For ``x[index] = v`` when ``index`` gives some position twice: a mask over the written region,
    true where a write is the last one to its position.  None when no position repeats."""
    if is_basic_index(index):
        return None
    positions = np.asarray(be.to_host(be.getitem(element_numbers(be, shape), index)))
    flat = positions.ravel()
    if np.unique(flat).size == flat.size:
        return None
    _, first_from_the_end = np.unique(flat[::-1], return_index=True)
    last = np.zeros(flat.size, dtype=bool)
    last[flat.size - 1 - first_from_the_end] = True
    return be.from_host(last.reshape(positions.shape), "bool")


# -- the methods ---------------------------------------------------------------------------------------
def getitem(x: Tensor, index: Any) -> Tensor:
    """``x[i]`` (``SelectBackward0``), ``x[a:b]`` (``SliceBackward0``), ``x[None]``
    (``UnsqueezeBackward0``), index arrays or masks (``IndexBackward0``)."""
    index = _arrays_in(x, index)
    fn = _index_function(index)
    if fn is Index:  # advanced indexing: a copy
        return Index.apply(x, index=index)
    steps = _basic_steps(index, x.ndim)
    if len(steps) <= 1:
        return x._view(fn, index=index)  # basic indexing: a view of x
    for step_fn, step in steps:  # x[0, 1]: one view per step, as PyTorch (SelectBackward0 twice)
        x = x._view(step_fn, index=step)
    return x


def _basic_steps(index: Any, ndim: int) -> list[tuple[Any, tuple[Any, ...]]]:
    """A basic index as PyTorch applies it, one step per item left to right: an integer selects
    (``Select``), a slice other than ``:`` slices (``Slice``), ``None`` inserts an axis; each step
    as an index of the Tensor the previous steps made.  Refuses negative steps, as PyTorch."""
    parts = index if isinstance(index, tuple) else (index,)
    consumed = sum(1 for p in parts if p is not None and p is not Ellipsis)
    steps: list[tuple[Any, tuple[Any, ...]]] = []
    d = 0
    for p in parts:
        if p is Ellipsis:
            d += ndim - consumed
        elif p is None:
            steps.append((UnsqueezeIndex, (slice(None),) * d + (None,)))
            d += 1
        elif isinstance(p, slice):
            if p.step is not None and p.step < 0:
                raise ValueError("step must be greater than zero\n"
                                 "What to do: reverse with t.flip(dim) in PyTorch; here, index the positions "
                                 "in reverse order (t[[2, 1, 0]]).")
            if p != slice(None):
                steps.append((Slice, (slice(None),) * d + (p,)))
            d += 1
        else:
            steps.append((Select, (slice(None),) * d + (p,)))
    return steps


def setitem(x: Tensor, index: Any, value: Any) -> None:
    """``x[index] = value`` in place (``CopySlices``), as PyTorch.  With a basic index, while the op is
    recorded, PyTorch copies into the view ``x[index]``: its ``CopySlices`` keeps that ``CopyBackwards``
    (edges: x's old history, the value's)."""
    index = _arrays_in(x, index)
    value = _checked_value(x, index, value)
    if x._base is not None and grad_mode.is_grad_enabled():  # PyTorch writes through x[index]: named after it
        steps = _basic_steps(index, x.ndim) if is_basic_index(index) else []
        refuse_several_views_in_place(x, steps[-1][0] if steps else None)
    if _copies_into_a_view(x, index, value):
        x[index].copy_(value)
        return
    if not is_basic_index(index):
        index = _without_ellipsis(index, x.ndim)
        if _records(x, value) and not _only_arrays(index):  # PyTorch: the basic part as a view, then
            basic, rest = _split(index)  # index_put_ on it
            x[basic][rest] = value
            return
    if isinstance(value, type(x)):
        if value._backend is not x._backend:
            value = cross_device(x, value)
    elif type(value) not in _array_types:
        kind = storage_dtype(x.dtype) if x.dtype in FLOATS else x.dtype
        value = type(x)(value, dtype=kind, device=x.device).data
    x._check_view_in_place()
    # PyTorch's index_put_ for index arrays (on a view: inside the base's CopySlices); else numbers only
    x._in_place(Partial(IndexPutInPlace if _only_arrays(index) else SetItem, index=index), value)


def _checked_value(x: Tensor, index: Any, value: Any) -> Any:
    """``value`` for ``x[index] = value``, its leading 1s dropped where it has more dimensions than
    ``x[index]`` (as PyTorch's ``slicePrefix1sSize``); PyTorch's refusals: a value that is not a
    Tensor or a number (``TypeError``), a Tensor that does not broadcast (``RuntimeError``)."""
    if not isinstance(value, type(x)):
        if isinstance(value, (int, float, np.integer)):  # (bool is an int; numpy.float64 a float)
            return value
        name = type(value).__name__ if type(value).__module__ == "builtins" else \
            f"{type(value).__module__}.{type(value).__name__}"
        raise TypeError(f"can't assign a {name} to a {x.dtype} Tensor\n"
                        "What to do: assign a number or a Tensor (mg.tensor(...)).")
    try:  # x[index]'s shape, read from a zero-strided stand-in (no copy of x)
        target = np.broadcast_to(np.empty((), np.int8), x.shape)[index].shape
    except Exception:  # noqa: BLE001 - an index NumPy reads otherwise: the write reports it
        return value
    shape = list(value.shape)
    while len(shape) > len(target) and shape[0] == 1:  # PyTorch drops the value's leading 1s
        shape.pop(0)
    fits = len(shape) <= len(target) and all(
        n in (1, m) for n, m in zip(reversed(shape), reversed(target)))
    if fits:
        return value if len(shape) == value.ndim else value.reshape(*shape)
    if not is_basic_index(index):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}\n"
                           "What to do: give a value of the indexed shape, or one that broadcasts to it.")
    if len(shape) > len(target):
        raise RuntimeError(f"expand(size={list(target)}): the number of sizes provided ({len(target)}) "
                           f"must be greater or equal to the number of dimensions in the tensor "
                           f"({len(shape)})\nWhat to do: give a value of x[index]'s shape.")
    k = next(k for k in range(1, len(shape) + 1) if shape[-k] not in (1, target[-k]))
    raise RuntimeError(f"The expanded size of the tensor ({target[-k]}) must match the existing size "
                       f"({shape[-k]}) at non-singleton dimension {len(target) - k}.  Target sizes: "
                       f"{list(target)}.  Tensor sizes: {list(value.shape)}\n"
                       "What to do: give a value of x[index]'s shape, or one that broadcasts to it.")


def _only_arrays(index: Any) -> bool:
    """Is ``index`` made of index arrays and masks only (``:`` allowed), so that PyTorch writes it with
    ``index_put_`` on x itself, taking no view first?"""
    parts = index if isinstance(index, tuple) else (index,)
    return all(type(p) in _array_types or p == slice(None) for p in parts) and not is_basic_index(index)


def _copies_into_a_view(x: Tensor, index: Any, value: Any) -> bool:
    """Does ``x[index] = value`` record PyTorch's ``x[index].copy_(value)``: a basic index, in grad mode,
    a value of x's device, and x or the value in the graph?  (Else the numbers are written as they are.)"""
    return is_basic_index(index) and _records(x, value)


def _records(x: Tensor, value: Any) -> bool:
    """Is ``x[…] = value`` recorded: grad mode, a value of x's device (or a number), x or it in the graph?"""
    if not grad_mode.is_grad_enabled():
        return False
    tensor = isinstance(value, type(x))
    if tensor and value._backend is not x._backend or not tensor and not isinstance(value, (int, float)):
        return False
    return bool(x.requires_grad or (tensor and value.requires_grad))


def _axes(p: Any) -> int:
    """How many axes of x an index item takes: a mask its own number, ``None`` and ``...`` none, others one."""
    if type(p) in _array_types:
        return len(p.shape) if str(p.dtype) == "bool" else 1
    return 0 if p is None or p is Ellipsis else 1


def _without_ellipsis(index: Any, ndim: int) -> Any:
    """``index`` with its ``...`` written as one ``:`` per axis it stands for."""
    parts = index if isinstance(index, tuple) else (index,)
    if not any(p is Ellipsis for p in parts):
        return index
    rest = ndim - sum(map(_axes, parts))
    return tuple(q for p in parts for q in ([slice(None)] * rest if p is Ellipsis else [p]))


def _split(index: Any) -> tuple[Any, Any]:
    """``index`` (basic items mixed with index arrays, no ``...``) as PyTorch's ``applySlicing`` takes it
    apart: the basic index of a view (each array replaced by ``:``), and the arrays' index into that view."""
    basic: list[Any] = []
    rest: list[Any] = []
    for p in index if isinstance(index, tuple) else (index,):
        if type(p) in _array_types:
            basic += [slice(None)] * _axes(p)
            rest.append(p)
        elif isinstance(p, slice) or p is None:
            basic.append(p)
            rest.append(slice(None))
        else:  # an integer: its axis is gone from the view
            basic.append(p)
    return tuple(basic), tuple(rest)


def _arrays_in(x: Tensor, index: Any) -> Any:
    """``index`` with Tensors and lists turned into backend arrays, a 0-d integer Tensor into its int
    (PyTorch selects with it: a view), and a list of indices into a tuple (``_as_tuple``)."""
    index = _as_tuple(index, type(x))
    parts = index if isinstance(index, tuple) else (index,)
    out = []
    for p in parts:
        if isinstance(p, type(x)):
            if p.dtype not in INTEGERS:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors\n"
                                 "What to do: make the index with dtype=\"int64\" (or a bool mask).")
            p = p.data
        elif isinstance(p, list):
            kind = "bool" if p and all(isinstance(v, bool) for v in p) else "int64"
            p = x._backend.from_host(p, kind)
        if type(p) in _array_types and not p.shape and str(p.dtype) != "bool":
            p = int(x._backend.to_host(p))  # NOTE [A 0-d index selects]
        out.append(p)
    return tuple(out) if isinstance(index, tuple) else out[0]


# NOTE [A 0-d index selects]: ``y[i]`` with ``i = t.argmax()`` (a 0-d integer Tensor) is ``y[int(i)]`` in
# PyTorch: a view (``SelectBackward0``), so ``y[i] = v`` writes into y.  Taken as an index array it would
# make a copy, and the write would go into the copy.


def _as_tuple(index: Any, tensor_type: type) -> Any:
    """A list holding a slice, ``...``, ``None``, a Tensor or a sequence is a tuple of indices in
    PyTorch (NumPy's old rule, with PyTorch's deprecation warning): ``x[[slice(None), 0]]`` is
    ``x[:, 0]``.  A list of numbers stays one index array."""
    if not isinstance(index, list) or len(index) >= 32:
        return index
    if not any(p is None or p is Ellipsis or isinstance(p, (slice, list, tuple, tensor_type))
               or type(p) in _array_types for p in index):
        return index
    warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated (PyTorch 2.9)\n"
                  "What to do: write x[tuple(seq)] instead of x[seq].", UserWarning, stacklevel=4)
    return tuple(index)


def _index_function(index: Any) -> Any:
    """PyTorch's node for ``x[index]``: the last basic step (select, slice, new axis) names it;
    any index array makes it an ``IndexBackward0``."""
    parts = index if isinstance(index, tuple) else (index,)
    if any(type(p) in _array_types or isinstance(p, (list, tuple)) for p in parts):
        return Index
    steps = [p for p in parts if p is not Ellipsis and not (isinstance(p, slice) and p == slice(None))]
    if not steps:
        return Slice
    last = steps[-1]
    if last is None:
        return UnsqueezeIndex
    if isinstance(last, slice):
        return Slice
    return Select


def unbind(x: Tensor, dim: int, record_view: Any, iterating: bool = False) -> tuple[Tensor, ...]:
    """``x.unbind(dim)``: the slices along ``dim`` (one ``Unbind`` op), each a view of ``x``
    (``record_view``: views.py's ``record``); ``iterating``: for ``iter(x)``, PyTorch's error on a 0-d Tensor."""
    if iterating and not x.shape:
        raise TypeError("iteration over a 0-d tensor\nWhat to do: a 0-d Tensor holds one number: use t.item().")
    if not x.shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions\n"
                         "What to do: a 0-d Tensor has no slices; use t.item() for its number.")
    (d,) = normalize_dims(dim, x.ndim)
    if x.shape[d] == 0:
        return ()
    slices = Unbind.apply(x, dim=d)
    for k, part in enumerate(slices):
        view = Unbound if part.grad_fn is not None else Select  # Unbound: in place refused (below)
        record_view(part, x, view, {"index": (slice(None),) * d + (k,)})
    return slices


def refuse_several_views_in_place(t: Tensor, through: Any = None) -> None:
    """In grad mode, an in-place op on an output of a recorded unbind, or a view of one, is refused, as PyTorch
    (the op that made the views would have to be recorded again for all of them).  PyTorch's message names the
    view written to: ``t`` (its last step), or the view of ``t`` made by ``through`` (``t[0] = …``: Select)."""
    link = last = t._view_steps
    while link is not None:
        if link.fn is Unbound:
            if through is not None:
                k, op = 0, through.node_name
            elif last.fn is Unbound:
                k, op = last.attributes["index"][-1], "Unbind"
            else:
                k, op = 0, last.fn.node_name
            raise RuntimeError(SEVERAL_VIEWS.format(k=k, op=op.removesuffix("Backward0")))
        link = link.parent


# -- gather: the element at index[i][j] along dim, for each position -------------------------------------
def gather_index(be: Any, index: Any, dim: int) -> tuple[Any, ...]:
    """The advanced index that reads ``x.gather(dim, index)``: ``index`` on axis ``dim``, and on every
    other axis k the position along k (an ``arange`` shaped to broadcast against ``index``)."""
    shape = be.shape(index)
    parts = []
    for k, n in enumerate(shape):
        if k == dim:
            parts.append(index)
        else:
            along = [1] * len(shape)
            along[k] = n
            parts.append(be.reshape(be.arange(n), tuple(along)))
    return tuple(parts)


class Gather(Function):
    """``x.gather(dim, index)``: out[i][j] = x[i][index[i][j]] for ``dim`` = 1 (``GatherBackward0``).
    derivatives.yaml's ``gather_backward``: zeros of x's shape with the gradient added at the gathered
    positions (a position gathered twice gets both)."""

    node_name = "GatherBackward0"
    saved_names = ("index",)
    ctx_slots = ("dim", "shape")

    @staticmethod
    def forward(ctx, x, dim, index):
        be = backend(x)
        ctx.dim, ctx.shape = dim, be.shape(x)
        ctx.save_for_backward(index)  # NOTE [Saved indices]
        return be.getitem(x, gather_index(be, index, dim))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return ScatterAdd.apply(grad, dim=ctx.dim, index=index, shape=ctx.shape)


class ScatterAdd(Function):
    """Zeros of ``shape`` with ``src`` added at ``index`` along ``dim``: gather's backward (recorded:
    PyTorch's ``ScatterAddBackward0``, whose gradient for ``src`` is ``grad.gather(dim, index)``)."""

    node_name = "ScatterAddBackward0"
    saved_names = ("index",)
    ctx_slots = ("dim",)

    @staticmethod
    def forward(ctx, src, dim, index, shape):
        be = backend(src)
        ctx.dim = dim
        ctx.save_for_backward(index)
        return be.scatter_add(shape, gather_index(be, index, dim), src, be.dtype(src))

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return Gather.apply(grad, dim=ctx.dim, index=index)


def gather(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """The elements of ``x`` at ``index`` along ``dim`` (``GatherBackward0``); ``index`` is an int64 Tensor
    with x's number of dims, no larger than x on the other axes."""
    (d,) = normalize_dims(dim, x.ndim)
    if not isinstance(index, type(x)) or index.dtype != "int64":
        raise RuntimeError("gather(): Expected dtype int32/int64 for index\n"
                           "What to do: pass an int64 Tensor: mg.tensor([[0], [2]], dtype='int64').")
    if index.ndim != x.ndim and x.ndim and index.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor\n"
                           "What to do: give the index one axis per axis of the input (unsqueeze it).")
    for k, (n, m) in enumerate(zip(index.shape, x.shape)):
        if k != d and n > m:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(index.shape)} to be "
                               f"no larger than self {list(x.shape)} apart from dimension {d}\n"
                               "What to do: the index may be larger than the input only along dim.")
    values = index.detach().numpy()
    size = x.shape[d] if x.ndim else 1
    bad = values[(values < 0) | (values >= size)]
    if bad.size:
        raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}\n"
                           f"What to do: indices along dim run from 0 to {size - 1}.")
    return Gather.apply(x, dim=d, index=index.data)  # type: ignore[no-any-return]
