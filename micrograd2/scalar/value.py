"""``Value``: one scalar that remembers how it was computed (the scalar engine).

micrograd's idea with PyTorch's semantics: leaves and ``grad_fn`` nodes with
PyTorch's names, gradient accumulation on leaves only, ``retain_graph``,
``detach``, in-place checks and dtypes. Pure Python: no imports outside the
standard library.

The speed layer (``micrograd2/fast/``) replaces the hottest operators: see the end of this file.
"""
from __future__ import annotations

import builtins
import dataclasses
import numbers
from typing import Any, Callable, ClassVar, Iterable, Sequence

from .. import dtypes, fast
from ..autograd import Variable, pieces
from ..autograd.node import Node
from ..autograd.pieces import REFERENCE
from ..autograd.protocol import Data, Gradient
from ..autograd.saved import version_counter
from ..fast import scalar as fast_scalar
from ..fast.walk import walk as fast_walk
from . import ops

F64 = dtypes.FLOAT64


def _check_data(data: object) -> float:
    if type(data) is float:  # (a NumPy float64 is a float too: it is made a plain one below)
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
    data: float  # a Value holds a float (``Data`` says: a float or an array)
    _dot: ClassVar[Callable[..., Value]]  # ``dot``'s body: see ``dot`` below

    def __init__(self, data: object, requires_grad: bool = False, label: str | None = None,
                 dtype: str = F64) -> None:
        dtype = dtypes.check_dtype(dtype)
        self._set_slots(dtypes.round_to(_check_data(data), dtype), dtype, None, label)
        self._requires_grad = bool(requires_grad)

    # -- what the autograd core asks of an engine ---------------------------------------------
    @classmethod
    def _wrap(cls, data: Data, dtype: Any, grad_fn: Node | None) -> Value:
        if type(data) is not float:
            data = float(data)
        if dtype is not F64:
            dtype = F64 if dtype is None else dtype
            data = dtypes.round_to(data, dtype)
        v = cls.__new__(cls)
        v._set_slots(data, dtype, grad_fn)
        return v

    _promote = staticmethod(dtypes.promote)

    def _seed(self, gradient: object) -> Gradient:
        if gradient is None:
            return 1.0
        if isinstance(gradient, Value):
            return gradient if gradient.requires_grad else gradient.data
        if isinstance(gradient, numbers.Real) and not isinstance(gradient, bool):
            return float(gradient)
        raise TypeError(
            "backward(gradient=...) needs a number or a Value, "
            f"got {type(gradient).__name__}: {gradient!r}"
        )

    def _as_grad(self, grad: Gradient) -> Gradient:
        """A float; a Value gradient (create_graph) is copied, as PyTorch's ``CopyBackwards``."""
        if isinstance(grad, Value):
            return ops.Copy.apply(None, grad)
        return float(grad)  # type: ignore[arg-type]  # (a Value's gradient: a float here)

    @classmethod
    def _round_gradient(cls, grad: Gradient, dtype: str) -> Gradient:
        """A float gradient rounded to ``dtype`` (float64 is no rounding at all).

        A Value gradient, recorded under create_graph, stays as it is."""
        return dtypes.round_to(grad, dtype) if type(grad) is float else grad

    def _assign(self, data: Data) -> None:
        self.data = dtypes.round_to(float(data), self.dtype)

    @classmethod
    def _zeros_like(cls, data: Data, dtype: str) -> float:
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
            return ops.RoundDecimals.apply(self, decimals=decimals)
        return ops.Round.apply(self, decimals=None)

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
    def __add__(self, other: object) -> Value:
        return ops.Add.apply(self, other) if _operand(other) else NotImplemented

    __radd__ = __add__

    def __sub__(self, other: object) -> Value:
        return ops.Sub.apply(self, other) if _operand(other) else NotImplemented

    def __mul__(self, other: object) -> Value:
        return ops.Mul.apply(self, other) if _operand(other) else NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Value:
        return ops.Div.apply(self, other) if _operand(other) else NotImplemented

    def __neg__(self) -> Value:
        return ops.Neg.apply(self)

    def __rsub__(self, other: object) -> Value:
        return ops.Rsub.apply(self, c=other) if _operand(other) else NotImplemented

    def __rtruediv__(self, other: object) -> Value:
        if isinstance(other, Value):
            return ops.Div.apply(other, self)
        return ops.RDiv.apply(self, c=other) if _operand(other) else NotImplemented

    def __pow__(self, other: object) -> Value:
        if isinstance(other, Value):
            return ops.PowValue.apply(self, other)
        return ops.Pow.apply(self, exponent=other) if _operand(other) else NotImplemented

    def __rpow__(self, other: object) -> Value:
        return ops.RPow.apply(self, base=other) if _operand(other) else NotImplemented

    # -- the same ops by name, as a 0-d tensor's methods (``v.mul(2)`` is ``v * 2``: one node) --------
    def add(self, other: object, *, alpha: builtins.float = 1) -> Value:
        """``self + alpha·other``: ``self + other`` when alpha is 1, else one ``AddBackward0`` rounded once."""
        if not _operand(other):
            return _by_name(NotImplemented, "add", other)
        return self + other if alpha == 1 else ops.AddScaled.apply(self, other, alpha=alpha)  # type: ignore[operator]

    def sub(self, other: object, *, alpha: builtins.float = 1) -> Value:
        """``self − alpha·other``: ``self − other`` when alpha is 1, else one ``SubBackward0`` rounded once."""
        if not _operand(other):
            return _by_name(NotImplemented, "sub", other)
        return self - other if alpha == 1 else ops.SubScaled.apply(self, other, alpha=alpha)  # type: ignore[operator]

    def mul(self, other: object) -> Value:
        return _by_name(self.__mul__(other), "mul", other)

    def div(self, other: object) -> Value:
        return _by_name(self.__truediv__(other), "div", other)

    def pow(self, exponent: object) -> Value:
        return _by_name(self.__pow__(exponent), "pow", exponent)

    def neg(self) -> Value:
        return ops.Neg.apply(self)

    def square(self) -> Value:
        """``self ** 2`` (``PowBackward0``), as PyTorch's ``square``."""
        return ops.Pow.apply(self, exponent=2)

    def reciprocal(self) -> Value:
        return ops.Reciprocal.apply(self)

    def rsqrt(self) -> Value:
        return ops.Rsqrt.apply(self)

    def sign(self) -> Value:
        return ops.Sign.apply(self)

    def floor(self) -> Value:
        return ops.Floor.apply(self)

    def ceil(self) -> Value:
        return ops.Ceil.apply(self)

    # Comparisons give plain bools and record nothing. == and hash stay identity (as tensors in
    # sets); ``v.eq(w)`` compares the numbers, as ``v.lt(w)`` is ``v < w``.
    def eq(self, other: object) -> bool:
        return self.data == _number(other)

    def ne(self, other: object) -> bool:
        return self.data != _number(other)

    def lt(self, other: object) -> bool:
        return self.data < _number(other)

    def le(self, other: object) -> bool:
        return self.data <= _number(other)

    def gt(self, other: object) -> bool:
        return self.data > _number(other)

    def ge(self, other: object) -> bool:
        return self.data >= _number(other)

    def __lt__(self, other: object) -> bool:
        return self.data < _number(other)

    def __le__(self, other: object) -> bool:
        return self.data <= _number(other)

    def __gt__(self, other: object) -> bool:
        return self.data > _number(other)

    def __ge__(self, other: object) -> bool:
        return self.data >= _number(other)

    # -- functions ------------------------------------------------------------------------------
    def exp(self) -> Value:
        return ops.Exp.apply(self)

    def log(self) -> Value:
        return ops.Log.apply(self)

    def tanh(self) -> Value:
        return ops.Tanh.apply(self)

    def sin(self) -> Value:
        return ops.Sin.apply(self)

    def cos(self) -> Value:
        return ops.Cos.apply(self)

    def relu(self) -> Value:
        return ops.Relu.apply(self)

    def sigmoid(self) -> Value:
        return ops.Sigmoid.apply(self)

    def sqrt(self) -> Value:
        return ops.Sqrt.apply(self)

    def abs(self) -> Value:
        return ops.Abs.apply(self)

    __abs__ = abs

    # -- dtypes ------------------------------------------------------------------------------------
    def to(self, dtype: str) -> Value:
        """This Value cast to ``dtype``, differentiably (``ToCopyBackward0``).

        It is the Value itself if already so."""
        dtype = dtypes.check_dtype(dtype)
        return self if dtype is self.dtype else ops.ToCopy.apply(self, dtype=dtype,
                                                                 source_dtype=self.dtype)

    # -- copies and outside the graph -------------------------------------------------------------
    def clone(self) -> Value:
        """A copy in the graph (``CloneBackward0``: the gradient passes unchanged)."""
        return ops.Clone.apply(self)

    def detach(self) -> Value:
        """A new leaf with ``requires_grad=False``.

        It shares this Value's data and version counter."""
        return _DetachedValue(self)

    # -- in place ------------------------------------------------------------------------------
    def add_(self, other: Value | builtins.float, alpha: builtins.float = 1.0) -> Value:
        """``self += alpha · other`` in place (PyTorch's ``add_(other, alpha=…)``)."""
        return self._in_place(ops.Add, other if alpha == 1.0 else other * alpha)

    def sub_(self, other: Value | builtins.float, alpha: builtins.float = 1.0) -> Value:
        """``self −= alpha · other`` in place."""
        return self._in_place(ops.Sub, other if alpha == 1.0 else other * alpha)

    def mul_(self, other: Value | builtins.float) -> Value:
        return self._in_place(ops.Mul, other)

    def div_(self, other: Value | builtins.float) -> Value:
        return self._in_place(ops.Div, other)

    def zero_(self) -> Value:
        return self._in_place(ops.Zero)

    def exp_(self) -> Value:
        """``self = eˢᵉˡᶠ`` in place (``ExpBackward0``, keeping the new value, as PyTorch)."""
        return self._in_place(ops.Exp)


class _DetachedValue(Value):
    """What ``detach()`` returns: a leaf whose ``data`` *is* the original's.

    Reads and writes of ``data`` go there."""

    __slots__ = ("_base",)
    _base: Value

    def __init__(self, base: Value) -> None:
        while isinstance(base, _DetachedValue):
            base = base._base
        self._base = base  # first: ``data`` reads and writes through it
        label = f"{base.label}.detach()" if base.label else base.label  # a trace must not call it x
        self._set_slots(base.data, base.dtype, None, label, version_counter(base))

    @classmethod
    def _wrap(cls, data: Data, dtype: Any, grad_fn: Node | None) -> Value:
        return Value._wrap(data, dtype, grad_fn)  # results are ordinary Values

    @property
    def data(self) -> float:
        return self._base.data

    @data.setter
    def data(self, value: float) -> None:
        self._base.data = value


def _operand(x: object) -> bool:
    """Can ``x`` take part in a Value op?  Values and real numbers can."""
    return isinstance(x, Value) or isinstance(x, numbers.Real)


def _by_name(result: Any, name: str, other: object) -> Value:
    """What ``v.mul(other)`` returns: the operator's result; PyTorch's ``TypeError`` where it declines."""
    if result is NotImplemented:
        raise TypeError(f"{name}(): argument 'other' (position 1) must be a number or a Value, not "
                        f"{type(other).__name__}\nWhat to do: pass a number or a Value.")
    return result  # type: ignore[no-any-return]


def _number(x: object) -> float:
    if isinstance(x, Value):
        return x.data
    if isinstance(x, numbers.Real):
        return float(x)
    raise TypeError(f"can't compare a Value with {type(x).__name__}")


# -- many inputs --------------------------------------------------------------------------------
def sum(values: Iterable[object]) -> Value:  # noqa: A001 - mirrors tensor.sum()
    """Σ values as **one** node (``SumBackward0``) with one input per term."""
    items = tuple(values)
    if not any(isinstance(v, Variable) for v in items):
        return Value(ops._exact_sum([_check_data(v) for v in items]))
    return ops.Sum.apply(*items)


def dot(ws: Sequence[Any], xs: Sequence[Any], bias: Any = None) -> Value:
    """Σ wᵢ·xᵢ (+ bias) as **one** node (``DotBackward0``): the scalar engine's matrix product.

    It is ``Value._dot``, which the speed layer's record replaces (NOTE [Where a record replaces
    a method], autograd/pieces.py)."""
    return Value._dot(ws, xs, bias)


def _dot(ws: Sequence[Any], xs: Sequence[Any], bias: Any = None) -> Value:
    """``dot``'s reference path: the inputs checked, then one ``Dot`` op."""
    ws, xs = tuple(ws), tuple(xs)
    if len(ws) != len(xs):
        raise ValueError("dot() needs two sequences of the same length, "
                         f"got {len(ws)} and {len(xs)}")
    inputs = (*ws, *xs) if bias is None else (*ws, *xs, bias)
    if not any(isinstance(v, Variable) for v in inputs):
        terms = [w * x for w, x in zip(ws, xs)] + ([bias] if bias is not None else [])
        return Value(ops._exact_sum(terms))
    return ops.Dot.apply(*inputs)


Value._dot = staticmethod(_dot)  # type: ignore[assignment]


# -- the speed layer (micrograd2/fast/): a record of pieces of its own ---------------------------
# The methods above are the reference path. The speed layer's record replaces the hottest of them
# with versions that build exactly the same nodes in fewer steps, and walks a backward pass that
# nothing watches in fewer steps too. ``import micrograd2`` chooses it, unless
# MICROGRAD2_REFERENCE=1; the teaching commands (lessons, trace, exercise check) choose the
# reference record instead (autograd/pieces.py).
SPEED = dataclasses.replace(
    REFERENCE, path="the speed layer (micrograd2/fast/)", unwatched_walk=fast_walk,
    operators={**fast_scalar.scalar_methods(Value, ops),
               "_dot": staticmethod(fast_scalar.dot(ops.Dot, _dot, Value))})
if fast.ENABLED:
    pieces.choose(Value, SPEED)
