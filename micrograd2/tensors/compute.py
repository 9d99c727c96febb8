"""What every Tensor op is built on: forward computes on backend arrays, backward on Tensors.

A Tensor op's ``forward`` gets arrays and computes with the array backend
(``backends/base.py``: NumPy on ``"cpu"``, pycuda on ``"cuda"`` — never NumPy
directly, so every op runs on either).  Its ``backward`` receives Tensors and
computes with Tensor ops and the helpers here (``sum_to``, ``where``…), recorded
only while ``create_graph=True`` records the backward pass: that is how second
derivatives come for free (NOTE [Backward on Tensors]).

Broadcasting: an input that was broadcast receives its gradient summed back to
its own shape (``sum_to``).  Node names and what each op saves are PyTorch's;
sizes and dims are kept on the node (``ctx_slots``), as PyTorch keeps
``self_sym_sizes``, so they survive backward and a graph that saved no array
(``(a + 1).sum()``) can be walked twice.
"""
from __future__ import annotations

from typing import Any, Callable

from .. import fast
from ..autograd import Function, Variable
from ..autograd.node import gradient_node
from ..backends import array_types
from ..backends.base import ArrayBackend
from .storage import FLOATS, INTEGERS, promote

_array_types = array_types()  # array class -> backend (live)


# -- finding the backend: forward computes on arrays --------------------------------------------
def backend(*xs: Any) -> ArrayBackend:
    """The backend of the first array among ``xs`` (numbers are skipped)."""
    for x in xs:
        be = _array_types.get(type(x))
        if be is not None:
            return be
    raise TypeError(f"expected a backend array among {[type(x).__name__ for x in xs]}")


def data_of(x: Any) -> Any:
    """The array under an operand that may be a Tensor, a constant array or a number (for masks,
    which need no history)."""
    return x.data if isinstance(x, Variable) else x


def binary(op: str, a: Any, b: Any) -> Any:
    return backend(a, b).binary(op, a, b)


def power_scalar(x: Any, p: float) -> Any:
    """x ** p for an array x and a number p, as PyTorch computes it: x·x for p = 2, x·x·x for 3, 1/x and
    1/(x·x) for −1 and −2, √x and 1/√x for ½ and −½ ((−0)^½ = −0, (−inf)^½ = nan); else C's pow."""
    be = backend(x)
    if p == 2:
        return be.binary("mul", x, x)
    if p == 3:
        return be.binary("mul", be.binary("mul", x, x), x)
    if p == -1:
        return be.binary("div", 1.0, x)
    if p == -2:
        return be.binary("div", 1.0, be.binary("mul", x, x))
    if p == 0.5:
        return be.unary("sqrt", x)
    if p == -0.5:
        return be.binary("div", 1.0, be.unary("sqrt", x))
    return be.binary("pow", x, p)


def nonnegative(x: Any) -> Any:
    """The mask x ≥ 0 of an array (False at nan)."""
    be = backend(x)
    return be.binary("mul", be.binary("eq", be.binary("gt", 0.0, x), False), be.binary("eq", x, x))


def sgn(x: Any) -> Any:
    """−1, 0 or 1 (0 at nan, as PyTorch's sgn) for an array."""
    be = backend(x)
    return be.where(be.binary("eq", x, x), be.unary("sign", x), 0.0)


# -- backward computes on Tensors ---------------------------------------------------------------
# NOTE [Backward on Tensors]
# A Tensor op's ``backward`` receives Tensors (the gradient, and ``ctx.saved_tensors``) and computes
# with Tensor ops, as PyTorch's: outside ``create_graph`` the walk runs under ``no_grad`` and they
# record nothing; under it they build the graph of the backward pass, so second derivatives come
# for free.  A constant operand (a number, or an array given to an op) stays what it was.
def sum_to(g: Any, target: tuple[int, ...] | None) -> Any:
    """The gradient ``g`` summed down to ``target`` (the reverse of broadcasting) by the engine's
    ``sum_to`` piece (tensors/pieces.py); ``None`` for a number input (it gets no gradient)."""
    return None if target is None else g.pieces.sum_to(g, target)


def zeros_like(t: Any) -> Any:
    """A Tensor of zeros of ``t``'s shape, dtype and device, outside the graph."""
    be = t._backend
    return t._wrap(be.full(be.shape(t.data), 0.0, be.dtype(t.data)), t.dtype, None)


def where(cond: Any, a: Any, b: Any) -> Any:
    """``a`` where the constant mask ``cond`` holds, else ``b`` (a Tensor and a Tensor or a number):
    one ``WhereBackward0`` node when recorded, which gives each side its gradient, 0 elsewhere."""
    return Where.apply(a, b, cond=cond)


def mask_mul(g: Any, mask: Any) -> Any:
    """The gradient ``g`` where the constant ``mask`` holds, else an exact 0."""
    return Where.apply(g, 0.0, cond=mask)


def elementwise(ctx: Any, op: str, a: Any, b: Any) -> Any:
    """``a (op) b`` on their backend (either may be a number).  When the op is recorded, ``ctx`` keeps
    both shapes for the backward's un-broadcasting (``None`` for a number: it gets no gradient)."""
    be = _array_types.get(type(a)) or _array_types[type(b)]
    if any(ctx.needs_input_grad):
        ctx.shapes = (shape_of(a), shape_of(b))
    try:
        return be.binary(op, a, b)
    except ValueError:
        raise shapes_differ(shape_of(a) or (), shape_of(b) or ()) from None


def shapes_differ(a: tuple[int, ...], b: tuple[int, ...]) -> RuntimeError:
    """PyTorch's error for two shapes that don't broadcast, naming the first dimension (from the right)."""
    n = max(len(a), len(b))
    for i in range(1, n + 1):
        x, y = (a[-i] if i <= len(a) else 1), (b[-i] if i <= len(b) else 1)
        if x != y and 1 not in (x, y):
            break
    return RuntimeError(
        f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {n - i}\n"
        f"What to do: shapes {a} and {b} don't broadcast (compared from the right, sizes must be equal or 1); "
        "reshape or unsqueeze one of them."
    )


def shape_of(x: Any) -> tuple[int, ...] | None:
    """An array's shape; ``None`` for a number (it gets no gradient)."""
    be = _array_types.get(type(x))
    return be.shape(x) if be is not None else None


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """``dim`` (int, sequence or None = all) as a sorted tuple of non-negative axes, PyTorch's errors."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in dims:
        size = max(ndim, 1)
        if not -size <= d < size:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {d})\n"
                "What to do: pass a dim between -ndim and ndim - 1."
            )
        out.append(d % size if ndim else 0)
    return tuple(sorted(set(out)))


def kept_shape(in_shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    """``in_shape`` with each reduced dim set to 1 (the ``keepdim=True`` shape)."""
    return tuple(1 if i in dims else n for i, n in enumerate(in_shape))


# -- PyTorch's type promotion: categories and operand classes ------------------------------------
def _operand_class(x: Any) -> tuple[int, str] | None:
    """(class, dtype) of an op operand, PyTorch's three classes: 0 a Tensor (or array) with dims, 1 a 0-d
    one, 2 a Python number (a float counts as the default float32, an int as int64)."""
    if isinstance(x, Variable):
        return (0 if x.shape else 1), x.dtype  # type: ignore[attr-defined]
    be = _array_types.get(type(x))
    if be is not None:
        return (0 if be.shape(x) else 1), be.dtype(x)
    if isinstance(x, bool):
        return 2, "bool"
    if isinstance(x, int):
        return 2, "int64"
    if isinstance(x, float):
        return 2, "float32"
    return None


def _category(dtype: str) -> int:
    return 0 if dtype == "bool" else 1 if dtype in INTEGERS else 2


def _combine(higher: str | None, lower: str | None) -> str | None:
    """PyTorch's ``combine_categories``: a lower class takes part only when its category is higher."""
    if higher is None or lower is None:
        return higher or lower
    if _category(higher) == 2:
        return higher
    if higher == "bool" or _category(lower) == 2:
        return promote(higher, lower)
    return higher


def result_type(*operands: Any) -> str | None:
    """PyTorch's ``result_type``: the dtypes of each class promoted among themselves, then a 0-d Tensor or
    a number widens the result only if it is of a higher category (bool < integer < float): float32 [n]
    + a 0-d float64 Tensor is float32, int64 [n] + a 0-d float64 Tensor is float64."""
    by_class: list[str | None] = [None, None, None]
    for x in operands:
        found = _operand_class(x)
        if found is not None:
            k, dtype = found
            by_class[k] = dtype if by_class[k] is None else promote(by_class[k], dtype)  # type: ignore[arg-type]
    return _combine(by_class[0], _combine(by_class[1], by_class[2]))


def promoted(*operands: Any, floats: bool = False) -> tuple[Any, ...]:
    """The operands (a Tensor, and Tensors, numbers or arrays: two for a binary op, three for
    ``clamp(x, lo, hi)``) ready for an op whose result has PyTorch's dtype (``result_type``; a float
    one when ``floats``, as true division's): an integer or bool Tensor is converted to it (no graph:
    it needs no gradient); a 0-d float Tensor of another float dtype is taken in that dtype, its
    gradient still going to it (``cast_operand``)."""
    dtype = result_type(*operands)
    if dtype is None:
        return operands
    if floats and dtype in INTEGERS:
        dtype = "float32"
    return tuple(_operand_as(v, dtype) for v in operands)


def _operand_as(v: Any, dtype: str) -> Any:
    if not isinstance(v, Variable) or v.dtype == dtype:
        return v
    if v.dtype in INTEGERS:
        return v.to(dtype)  # type: ignore[attr-defined]
    if not v.shape and dtype in FLOATS:  # type: ignore[attr-defined]
        return cast_operand(v, dtype)
    return v  # a float Tensor with dims: the other operand is narrower, and the op widens it


def cast_operand(t: Any, dtype: str) -> Any:
    """``t``'s numbers in ``dtype`` as an op's input, with no node of its own: the op's gradient for it goes
    to ``t``'s own (its ``grad_fn``, or its ``AccumulateGrad``), as PyTorch casts a 0-d operand inside the
    op and its engine casts the gradient back."""
    if t._requires_grad:
        gradient_node(t)  # (a leaf's AccumulateGrad, made now: the alias leads to it)
    alias = Variable._snapshot(t)  # t's history: its grad_fn and output_nr, or its AccumulateGrad
    alias.data, alias.dtype = t._backend.astype(t.data, dtype), dtype  # (a copy, rounded to dtype)
    alias.label = t.label
    return alias


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy's broadcast of two shapes, or ``None`` when they don't broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(x if y == 1 else y)
    return tuple(reversed(out))


class Partial:
    """``fn`` with keyword attributes fixed (an alpha, an index, a dtype), as the in-place machinery applies
    an op: ``fn.apply(x, *others)``, inputs only (``x.add_(w, alpha=2)`` is ``Partial(AddScaled, alpha=2)``)."""

    def __init__(self, fn: type[Function], **attributes: Any) -> None:
        self.fn, self.attributes = fn, attributes

    def apply(self, *inputs: Any) -> Any:
        return self.fn.apply(*inputs, **self.attributes)


def renamed(fn: type[Function], name: str, node_name: str) -> type[Function]:
    """``fn`` itself under another of PyTorch's node names: the same forward and backward, one definition.
    (PyTorch names some nodes after what the user called, e.g. ``unsqueeze`` and ``squeeze`` both
    only reshape.)"""
    doc = f"{fn.__name__} recorded as PyTorch's ``{node_name}``."
    return type(name, (fn,), {"node_name": node_name, "__doc__": doc, "__module__": fn.__module__})


def recorder(fn: type[Function], inputs: int) -> Callable[..., Any]:
    """``fn.apply`` for ``inputs`` (1 or 2) Tensors: the speed layer's one-call version when it is on
    (``micrograd2/fast/``, chosen once, at import; it builds exactly what ``apply`` builds)."""
    if not fast.ENABLED:
        return fn.apply
    from ..fast import recording

    return recording.two_inputs(fn, fn.apply) if inputs == 2 else recording.one_input(fn, fn.apply)


def method(fn: type[Function]) -> Callable[[Any], Any]:
    """``x.relu()`` for the one-input Function ``fn``: ``Tensor.relu = method(Relu)`` (as ``Value``'s ops)."""
    apply = recorder(fn, 1)

    def one_input(x: Any) -> Any:
        return apply(x)

    one_input.__qualname__ = f"method({fn.__name__})"
    one_input.__doc__ = fn.__doc__
    return one_input


class Where(Function):
    """``a`` where the constant mask ``cond`` holds, else ``b`` (PyTorch's ``where``): each side gets the
    gradient where it was chosen and an exact 0 elsewhere.  Recorded backward passes use it."""

    node_name = "WhereBackward0"
    ctx_slots = ("cond", "shapes")

    @staticmethod
    def forward(ctx, a, b, cond):
        ctx.cond = cond
        ctx.shapes = (shape_of(a), shape_of(b))
        return backend(cond).where(cond, a, b)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        cond = ctx.cond
        return sum_to(where(cond, grad, 0.0), sa), sum_to(where(cond, 0.0, grad), sb)
