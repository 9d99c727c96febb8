"""``Value``: one scalar that remembers how it was computed (the scalar engine).

micrograd's idea with PyTorch's semantics: leaves and ``grad_fn`` nodes with
PyTorch's names, gradient accumulation on leaves only, ``retain_graph``,
``detach``, in-place checks and dtypes.  Pure Python: no imports outside the
standard library.
"""
from __future__ import annotations

import builtins
import numbers
from typing import Any, Iterable, Sequence

from .. import dtypes, fast
from ..autograd import Variable
from ..autograd.node import VersionCounter
from . import ops

F64 = dtypes.FLOAT64


def _check_data(data: Any) -> float:
    if isinstance(data, float):
        return data
    if isinstance(data, Variable):
        raise TypeError(
            f"Value(data) needs a real number, got a {type(data).__name__}; "
            "use v.item() for its number or v.detach() for a Value outside the graph"
        )
    if isinstance(data, numbers.Real):
        return float(data)
    raise TypeError(
        f"Value(data) needs a real number (int, float, bool), got {type(data).__name__}: {data!r}"
    )


class Value(Variable):
    """One scalar: ``Value(data, requires_grad=False, label=None, dtype="float64")``."""

    __slots__ = ()

    def __init__(self, data: Any, requires_grad: bool = False, label: str | None = None,
                 dtype: str = F64) -> None:
        dtype = dtypes.check_dtype(dtype)
        self.data = dtypes.round_to(_check_data(data), dtype)
        self._grad = None
        self.grad_fn = None
        self._requires_grad = bool(requires_grad)
        self.label = label
        self.dtype = dtype
        self._accumulator = None
        self._version_counter = None

    # -- what the autograd core asks of an engine ---------------------------------------------
    @classmethod
    def _wrap(cls, data: Any, dtype: Any, grad_fn: Any) -> Value:
        v = cls.__new__(cls)
        if type(data) is not float:
            data = float(data)
        if dtype is not F64:
            dtype = F64 if dtype is None else dtype
            data = dtypes.round_to(data, dtype)
        v.data = data
        v._grad = None
        v.grad_fn = grad_fn
        v._requires_grad = grad_fn is not None
        v.label = None
        v.dtype = dtype
        v._accumulator = None
        v._version_counter = None
        return v

    _promote = staticmethod(dtypes.promote)

    def _seed(self, gradient: Any) -> Any:
        if gradient is None:
            return 1.0
        if isinstance(gradient, Value):
            return gradient if gradient.requires_grad else gradient.data
        if isinstance(gradient, numbers.Real) and not isinstance(gradient, bool):
            return float(gradient)
        raise TypeError(
            f"backward(gradient=...) needs a number or a Value, got {type(gradient).__name__}: {gradient!r}"
        )

    def _as_grad(self, grad: Any) -> Any:
        """A float; a Value gradient (create_graph) is copied, as PyTorch's ``CopyBackwards``."""
        return ops.Copy.apply(None, grad) if isinstance(grad, Value) else float(grad)

    @classmethod
    def _round_gradient(cls, grad: Any, dtype: str) -> Any:
        """A float gradient rounded to ``dtype`` (a Value one, recorded under create_graph, stays as it is)."""
        return dtypes.round_to(grad, dtype) if type(grad) is float else grad

    def _assign(self, data: Any) -> None:
        self.data = dtypes.round_to(float(data), self.dtype)

    @classmethod
    def _zeros_like(cls, data: Any) -> Any:
        return 0.0

    # -- reading ----------------------------------------------------------------------------------
    def item(self) -> float:
        """The number, as a Python float."""
        return self.data

    def __float__(self) -> float:
        return float(self.data)

    def __int__(self) -> int:
        """The number truncated toward zero, as ``int(tensor)``."""
        return int(self.data)

    def round(self, decimals: int = 0) -> Value:
        """Rounded half to even (to ``decimals`` places), as ``tensor.round()``; its gradient is 0
        (``RoundBackward0``, ``RoundBackward1`` with decimals)."""
        if decimals:
            return ops.RoundDecimals.apply(self, decimals=decimals)  # type: ignore[no-any-return]
        return ops.Round.apply(self, decimals=None)  # type: ignore[no-any-return]

    def __round__(self, ndigits: int | None = None) -> Value:
        """``round(v)`` is ``v.round()`` (PyTorch's tensors have no ``round(t)``: ``t.round()``)."""
        return self.round(ndigits or 0)

    def __pos__(self) -> Value:
        """``+v`` is ``v`` itself, as ``+tensor``."""
        return self

    def __bool__(self) -> bool:
        return self.data != 0

    def __repr__(self) -> str:
        parts = [repr(self.data)]
        if self.dtype is not F64:
            parts.append(f"dtype={self.dtype}")
        if self.grad_fn is not None:
            parts.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            parts.append("requires_grad=True")
        if self.label is not None:
            parts.append(f"label={self.label!r}")
        return f"Value({', '.join(parts)})"

    def __format__(self, spec: str) -> str:
        return format(self.data, spec) if spec else repr(self)

    # -- arithmetic -------------------------------------------------------------------------------
    # ``x * y`` *is* ``Mul.apply(x, y)``: every op is recorded by ``Function.apply``.
    def __add__(self, other: Any) -> Any:
        return ops.Add.apply(self, other) if _operand(other) else NotImplemented

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return ops.Sub.apply(self, other) if _operand(other) else NotImplemented

    def __mul__(self, other: Any) -> Any:
        return ops.Mul.apply(self, other) if _operand(other) else NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        return ops.Div.apply(self, other) if _operand(other) else NotImplemented

    def __neg__(self) -> Any:
        return ops.Neg.apply(self)

    def __rsub__(self, other: Any) -> Any:
        return ops.Rsub.apply(self, c=other) if _operand(other) else NotImplemented

    def __rtruediv__(self, other: Any) -> Any:
        if isinstance(other, Value):
            return ops.Div.apply(other, self)
        return ops.RDiv.apply(self, c=other) if _operand(other) else NotImplemented

    def __pow__(self, other: Any) -> Any:
        if isinstance(other, Value):
            return ops.PowValue.apply(self, other)
        return ops.Pow.apply(self, exponent=other) if _operand(other) else NotImplemented

    def __rpow__(self, other: Any) -> Any:
        return ops.RPow.apply(self, base=other) if _operand(other) else NotImplemented

    @staticmethod
    def _accepts(other: Any) -> bool:
        return _operand(other)

    # comparisons give plain bools and record nothing; == and hash stay identity (as tensors in sets)
    def __lt__(self, other: Any) -> bool:
        return self.data < _number(other)

    def __le__(self, other: Any) -> bool:
        return self.data <= _number(other)

    def __gt__(self, other: Any) -> bool:
        return self.data > _number(other)

    def __ge__(self, other: Any) -> bool:
        return self.data >= _number(other)

    # -- functions ------------------------------------------------------------------------------
    def exp(self) -> Value:
        return ops.Exp.apply(self)  # type: ignore[no-any-return]

    def log(self) -> Value:
        return ops.Log.apply(self)  # type: ignore[no-any-return]

    def tanh(self) -> Value:
        return ops.Tanh.apply(self)  # type: ignore[no-any-return]

    def relu(self) -> Value:
        return ops.Relu.apply(self)  # type: ignore[no-any-return]

    def sigmoid(self) -> Value:
        return ops.Sigmoid.apply(self)  # type: ignore[no-any-return]

    def sqrt(self) -> Value:
        return ops.Sqrt.apply(self)  # type: ignore[no-any-return]

    def abs(self) -> Value:
        return ops.Abs.apply(self)  # type: ignore[no-any-return]

    __abs__ = abs

    # -- dtypes ------------------------------------------------------------------------------------
    def to(self, dtype: str) -> Value:
        """This Value cast to ``dtype``, differentiably (``ToCopyBackward0``); itself if already so."""
        dtype = dtypes.check_dtype(dtype)
        return self if dtype is self.dtype else ops.ToCopy.apply(self, dtype=dtype)

    # -- copies and outside the graph -------------------------------------------------------------
    def clone(self) -> Value:
        """A copy in the graph (``CloneBackward0``: the gradient passes unchanged)."""
        return ops.Clone.apply(self)  # type: ignore[no-any-return]

    def detach_(self) -> Value:
        """Make this Value a leaf outside the graph, in place (``requires_grad=False``); returns it."""
        self.grad_fn = None
        self._requires_grad = False
        self._accumulator = None
        return self

    def detach(self) -> Value:
        """A new leaf with ``requires_grad=False`` that shares this Value's data and version counter."""
        if self._version_counter is None:
            self._version_counter = VersionCounter()
        return _DetachedValue(self)

    # -- in place ------------------------------------------------------------------------------------
    def add_(self, other: Any, alpha: builtins.float = 1.0) -> Value:
        """``self += alpha · other`` in place (PyTorch's ``add_(other, alpha=…)``)."""
        return self._in_place(ops.Add, other if alpha == 1.0 else other * alpha)  # type: ignore[return-value]

    def sub_(self, other: Any, alpha: builtins.float = 1.0) -> Value:
        """``self −= alpha · other`` in place."""
        return self._in_place(ops.Sub, other if alpha == 1.0 else other * alpha)  # type: ignore[return-value]

    def mul_(self, other: Any) -> Value:
        return self._in_place(ops.Mul, other)  # type: ignore[return-value]

    def div_(self, other: Any) -> Value:
        return self._in_place(ops.Div, other)  # type: ignore[return-value]

    def zero_(self) -> Value:
        return self._in_place(ops.Zero)  # type: ignore[return-value]


class _DetachedValue(Value):
    """What ``detach()`` returns: a leaf whose ``data`` *is* the original's (reads and writes go there)."""

    __slots__ = ("_base",)
    _base: Value

    def __init__(self, base: Value) -> None:
        while isinstance(base, _DetachedValue):
            base = base._base
        self._base = base
        self._grad = None
        self.grad_fn = None
        self._requires_grad = False
        self.label = base.label
        self.dtype = base.dtype
        self._accumulator = None
        self._version_counter = base._version_counter

    @classmethod
    def _wrap(cls, data: Any, dtype: Any, grad_fn: Any) -> Value:
        return Value._wrap(data, dtype, grad_fn)  # results are ordinary Values

    @property  # type: ignore[override]
    def data(self) -> float:
        return self._base.data

    @data.setter
    def data(self, value: float) -> None:
        self._base.data = value


def _operand(x: Any) -> bool:
    """Can ``x`` take part in a Value op?  Values and real numbers can."""
    return isinstance(x, Value) or isinstance(x, numbers.Real)


def _number(x: Any) -> float:
    if isinstance(x, Value):
        return x.data
    if isinstance(x, numbers.Real):
        return float(x)
    raise TypeError(f"can't compare a Value with {type(x).__name__}")


# -- many inputs --------------------------------------------------------------------------------
def sum(values: Iterable[Any]) -> Value:  # noqa: A001 - mirrors tensor.sum()
    """Σ values as **one** node (``SumBackward0``) with one input per term."""
    items = tuple(values)
    if not any(isinstance(v, Variable) for v in items):
        return Value(ops._exact_sum([_check_data(v) for v in items]))
    return ops.Sum.apply(*items)


def dot(ws: Sequence[Any], xs: Sequence[Any], bias: Any = None) -> Value:
    """Σ wᵢ·xᵢ (+ bias) as **one** node (``DotBackward0``): the scalar engine's matrix product."""
    ws, xs = tuple(ws), tuple(xs)
    if len(ws) != len(xs):
        raise ValueError(f"dot() needs two sequences of the same length, got {len(ws)} and {len(xs)}")
    inputs = (*ws, *xs) if bias is None else (*ws, *xs, bias)
    if not any(isinstance(v, Variable) for v in inputs):
        return Value(ops._exact_sum([w * x for w, x in zip(ws, xs)] + ([bias] if bias is not None else [])))
    return ops.Dot.apply(*inputs)


# -- the speed layer (micrograd2/fast/), chosen once, here ---------------------------------------------
# The methods above are the reference path.  Unless MICROGRAD2_REFERENCE=1, the engine takes the speed
# layer's versions of its hottest operators instead (they build exactly the same nodes) and its walk for
# backward passes that nothing watches.
if fast.ENABLED:
    from ..fast import scalar as _fast
    from ..fast.walk import walk as _unwatched_walk

    for _name, _method in _fast.scalar_methods(Value, ops).items():
        setattr(Value, _name, _method)
    Value._unwatched_walk = staticmethod(_unwatched_walk)
    dot = _fast.dot(ops.Dot, dot, Value, ops._exact_sum)  # type: ignore[assignment]
