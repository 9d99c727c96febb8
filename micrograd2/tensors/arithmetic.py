"""Arithmetic on Tensors: the ops behind ``+ - * / ** -x`` (broadcasting), comparisons, in-place updates.

Each op is a ``Function`` (``Add`` → ``AddBackward0``…); below them, the operators
``Tensor`` is given (``Tensor.__add__ = operator(Add)``) and the in-place
methods (``add_``, ``mul_``…).  A Tensor turns the other operand into a Tensor,
a number or a backend array first (``Tensor._operand``); an integer Tensor
meeting a float becomes float32, as in PyTorch.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from .. import dtypes
from ..autograd import Function, Variable
from .compute import (
    Partial,
    backend,
    binary,
    broadcast_shape,
    data_of,
    elementwise,
    nonnegative,
    power_scalar,
    promoted,
    recorder,
    shape_of,
    sum_to,
    where,
)
from .storage import FLOATS, INTEGERS

if TYPE_CHECKING:
    from .tensor import Tensor

Operator = Callable[[Any, Any], Any]


class Add(Function):
    """a + b.  Saves nothing but the shapes: ∂/∂a = ∂/∂b = 1, summed back over broadcast dims."""

    node_name = "AddBackward0"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        return elementwise(ctx, "add", a, b)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        return sum_to(grad, sa), sum_to(grad, sb)


class Sub(Function):
    """a − b.  ∂/∂a = 1, ∂/∂b = −1."""

    node_name = "SubBackward0"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        return elementwise(ctx, "sub", a, b)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad, sa) if need_a else None), (sum_to(-grad, sb) if need_b else None)


class AddScaled(Function):
    """a + alpha·b (``a.add_(b, alpha=…)``): one node, PyTorch's, alpha kept on it; rounded once, as
    PyTorch's fused multiply-add (the backend's ``iadd``).  ∂/∂a = 1, ∂/∂b = alpha."""

    node_name = "AddBackward0"
    ctx_slots = ("shapes", "alpha")

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.alpha = alpha
        return add_scaled(ctx, a, b, alpha)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad, sa) if need_a else None), (sum_to(grad * ctx.alpha, sb) if need_b else None)


class SubScaled(Function):
    """a − alpha·b (``a.sub_(b, alpha=…)``).  ∂/∂a = 1, ∂/∂b = −alpha (PyTorch's ``-grad * alpha``)."""

    node_name = "SubBackward0"
    ctx_slots = ("shapes", "alpha")

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.alpha = alpha
        return add_scaled(ctx, a, b, -alpha)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad, sa) if need_a else None), (sum_to(-grad * ctx.alpha, sb) if need_b else None)


# PyTorch's AddBackward0 and SubBackward0 show their alpha as ``_saved_alpha`` (the tracer reads it by that name)
AddScaled._node_class._saved_alpha = SubScaled._node_class._saved_alpha = property(  # type: ignore[attr-defined]
    lambda node: node.alpha)


def add_scaled(ctx: Any, a: Any, b: Any, alpha: float) -> Any:
    """``a + alpha·b`` into a copy of ``a`` by the backend's ``iadd`` (one rounding, as PyTorch), when ``b`` is
    a number or an array of a's dtype that broadcasts to a's shape; otherwise ``alpha·b``, then ``+``."""
    be, sb = backend(a), shape_of(b)
    ctx.shapes = (shape_of(a), sb)
    if sb is None or (be.dtype(b) == be.dtype(a) and broadcast_shape(be.shape(a), sb) == be.shape(a)):
        out = be.astype(a, be.dtype(a))
        be.iadd(out, b, alpha)
        return out
    return elementwise(ctx, "add", a, binary("mul", b, alpha))


class Rsub(Function):
    """c − x for a number c: one input.  ∂/∂x = −1."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, x, c):
        return binary("sub", c, x)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Neg(Function):
    """−x."""

    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x):
        return backend(x).unary("neg", x)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Function):
    """a · b.  Keeps a only if b needs a gradient, and b only if a does (as PyTorch)."""

    node_name = "MulBackward0"
    saved_names = ("self", "other")
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        if need_a or need_b:
            ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return elementwise(ctx, "mul", a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        sa, sb = ctx.shapes
        grad_a = None if b is None else sum_to(grad * b, sa)
        grad_b = None if a is None else sum_to(grad * a, sb)
        return grad_a, grad_b


class Div(Function):
    """a / b (also number / Tensor: one node).  ∂/∂a = g / b, and ∂/∂b = −g·((a / b) / b), PyTorch's
    ``div_tensor_other_backward``: no b·b that overflows or underflows."""

    node_name = "DivBackward0"
    saved_names = ("self", "other")
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return elementwise(ctx, "div", a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        sa, sb = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        grad_a = sum_to(grad / b, sa) if need_a else None
        grad_b = sum_to(-grad * Div.apply(Div.apply(a, b), b), sb) if need_b else None  # (a: maybe a number)
        return grad_a, grad_b


class Pow(Function):
    """x ** p for a number p, computed as PyTorch does (``power_scalar``).  ∂/∂x = g·(p·x^(p−1)), 0 for
    p = 0 (PyTorch's ``pow_backward``)."""

    node_name = "PowBackward0"
    saved_names = ("self", "exponent")
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x, exponent):
        ctx.save_for_backward(x, exponent)
        return power_scalar(x, exponent)

    @staticmethod
    def backward(ctx, grad):
        x, p = ctx.saved_tensors
        if p == 0:
            return grad * 0.0
        return grad * (x ** (p - 1) * p)


class PowTensor(Function):
    """x ** y for two Tensors.  PyTorch's ``pow_backward_self``: ∂/∂x = g·(y·x^(y−1)), 0 where y = 0;
    ``pow_backward_exponent``: ∂/∂y = g·(x^y·log x), 0 where x = 0 and y ≥ 0."""

    node_name = "PowBackward1"
    saved_names = ("self", "exponent", "result")
    autocast = "fp32"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, x, y):
        out = binary("pow", x, y)
        ctx.save_for_backward(x, y, out)
        ctx.shapes = (shape_of(x), shape_of(y))
        return out

    @staticmethod
    def backward(ctx, grad):
        x, y, out = ctx.saved_tensors  # (x or y may be a constant array)
        sx, sy = ctx.shapes
        need_x, need_y = ctx.needs_input_grad
        xd, yd = data_of(x), data_of(y)
        be = backend(xd, yd)
        grad_x = grad_y = None
        if need_x:  # x is a Tensor
            y_is_zero = be.binary("eq", yd, 0.0)
            grad_x = sum_to(where(y_is_zero, 0.0, grad * (x ** (y - 1.0) * y)), sx)
        if need_y:  # y is a Tensor
            at_zero = be.binary("mul", be.binary("eq", xd, 0.0), nonnegative(yd))
            log_x = x.log() if shape_of(x) is None else be.unary("log", x)  # (an array: a constant)
            grad_y = sum_to(grad * where(at_zero, 0.0, out * log_x), sy)
        return grad_x, grad_y


class RPow(Function):
    """c ** x for a number c.  ∂/∂x = g·(c^x·log c), 0 where c = 0 and x ≥ 0 (PyTorch's
    ``pow_backward_exponent``)."""

    node_name = "PowBackward2"
    saved_names = ("result", "self", "exponent")  # c ** x: the base c is "self"
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x, base):
        out = binary("pow", float(base), x)
        ctx.save_for_backward(out, base, x)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, base, x = ctx.saved_tensors
        log_base = math.log(base) if base > 0 else -math.inf if base == 0 else math.nan
        if base != 0:
            return grad * (out * log_base)
        return grad * where(nonnegative(x.data), 0.0, out * log_base)




class Reciprocal(Function):
    """1 / x.  Keeps its output r: ∂/∂x = −g·r² (PyTorch's ``ReciprocalBackward0``)."""

    node_name = "ReciprocalBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        out = binary("div", 1.0, x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -grad * (out * out)


class Zero(Function):
    """``zero_()`` on a non-leaf: the output is 0, so no gradient reaches the old value."""

    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.full(be.shape(x), 0.0, be.dtype(x))

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0


# -- the operators -------------------------------------------------------------------------------
def same_kind(x: Tensor, other: Any) -> tuple[Any, Any]:
    """``x`` and ``other`` as the op takes them, for PyTorch's result dtype (``compute.promoted``): an integer
    Tensor meeting a float is float32, a bool Tensor meeting an integer int64, and a 0-d Tensor widens
    a Tensor with dims only if it is of a higher category (bool < integer < float)."""
    if x.dtype in FLOATS and (type(other) is float or type(other) is int or getattr(other, "dtype", None) is x.dtype):
        return x, other  # (the usual case: a float Tensor and a number, or a Tensor of its dtype)
    return promoted(x, other)


def to_float(x: Tensor, other: Any) -> tuple[Any, Any]:
    """As ``same_kind``, the result a float (division of integers gives floats)."""
    return promoted(x, other, floats=True)


def operator(fn: type[Function], convert: Callable[[Any, Any], Any] = same_kind) -> Operator:
    """``x (op) other`` recorded as ``fn``: ``Tensor.__add__ = operator(Add)``."""
    apply = recorder(fn, 2)

    def forward_operator(x: Tensor, other: Any) -> Any:
        if type(other) is type(x) and other._backend is x._backend and x.dtype in FLOATS and other.dtype is x.dtype:
            return apply(x, other)  # the common case
        o = x._operand(other)
        return NotImplemented if o is NotImplemented else fn.apply(*convert(x, o))

    forward_operator.__qualname__ = f"operator({fn.__name__})"
    return forward_operator


def rdiv_operator(x: Tensor, other: Any) -> Any:
    """``other / x``: ``DivBackward0`` for a Tensor or an array; for a number c, PyTorch's
    ``reciprocal(x) * c`` (``MulBackward0`` over ``ReciprocalBackward0``: the same values and graph)."""
    o = x._operand(other)
    if o is NotImplemented:
        return NotImplemented
    if shape_of(data_of(o)) is not None:
        return Div.apply(o, x._as_float())
    return Reciprocal.apply(x._as_float()) * o


def rsub_operator(x: Tensor, other: Any) -> Any:
    """``other − x``: ``SubBackward0`` for a Tensor or an array, ``RsubBackward1`` for a number."""
    o = x._operand(other)
    if o is NotImplemented:
        return NotImplemented
    if shape_of(data_of(o)) is not None:
        return Sub.apply(o, x)
    return Rsub.apply(x._float_for(o), c=o)


def pow_operator(x: Tensor, other: Any) -> Any:
    """``x ** other``: ``PowBackward0`` for a number exponent, ``PowBackward1`` for a Tensor or an array."""
    o = x._operand(other)
    if o is NotImplemented:
        return NotImplemented
    if isinstance(other, Variable) or shape_of(data_of(o)) is not None:
        return PowTensor.apply(*promoted(x, o, floats=True))
    return Pow.apply(x._float_for(o), exponent=_as_given(other, o))


def rpow_operator(x: Tensor, other: Any) -> Any:
    """``other ** x``: ``PowBackward2`` for a number base, ``PowBackward1`` for a Tensor or an array."""
    o = x._operand(other)
    if o is NotImplemented:
        return NotImplemented
    if shape_of(data_of(o)) is not None:
        return PowTensor.apply(o, x._as_float())
    if x.dtype == "int64" and type(o) is int:  # an integer to integer powers stays an integer, as PyTorch
        return x._wrap(x._backend.binary("pow", o, x.data), "int64", None)
    return RPow.apply(x._as_float(), base=_as_given(other, o))


def _as_given(number: Any, operand: Any) -> Any:
    """A power's number as the user wrote it (``x ** 3`` keeps 3, which the node saves and the tracer
    shows), else the operand ``Tensor._operand`` made of it."""
    return number if type(number) in (int, float) else operand


def comparison(op: str, swap: bool = False) -> Operator:
    """``x (op) other`` elementwise as a bool Tensor, no graph (as PyTorch); ``op`` is ``gt``, ``eq``, ``ne``
    or ``ge``, and ``swap`` flips the sides (``x < y`` is ``y > x``)."""

    def compare(x: Tensor, other: Any) -> Any:
        o = x._operand(other)
        if o is NotImplemented:
            return NotImplemented
        a, b = (data_of(o), x.data) if swap else (x.data, data_of(o))
        be = x._backend
        if op == "ne":
            out = be.binary("eq", be.binary("eq", a, b), False)
        elif op == "ge":  # a > b or a == b (so that NaN compares False, as IEEE says)
            out = be.binary("maximum", be.binary("gt", a, b), be.binary("eq", a, b))
        else:
            out = be.binary(op, a, b)
        return x._wrap(out, "bool", None)

    compare.__qualname__ = f"comparison({op!r})"
    return compare


# -- in place ------------------------------------------------------------------------------------------
def in_place(x: Tensor, fn: type[Function], other: Any, alpha: float = 1.0) -> Tensor:
    """``x (op)= alpha · other`` through the core's in-place machinery: under ``no_grad`` only the
    numbers change (how optimizers update), in grad mode the history is rebased too; the version goes
    up either way."""
    o = x._operand(other)
    if o is NotImplemented:
        raise TypeError(f"unsupported operand type for an in-place op: {type(other).__name__}")
    if x.dtype in INTEGERS and (fn is Div or isinstance(o, float) or getattr(o, "dtype", None) in FLOATS):
        name = "Long" if x.dtype == "int64" else "Bool"
        raise RuntimeError(
            f"result type Float can't be cast to the desired output type {name}\n"
            "What to do: an in-place op keeps the Tensor's dtype; use t = t + x (a new float Tensor) or t.float()."
        )
    x._check_view_in_place()
    if alpha != 1.0 and x.dtype == "bfloat16":  # PyTorch takes alpha in x's dtype (the backend sees float32),
        alpha = dtypes.round_to(dtypes.round_to(alpha, dtypes.FLOAT32), dtypes.BFLOAT16)  # by way of a C float
    x._in_place(fn if alpha == 1.0 else Partial(AddScaled if fn is Add else SubScaled, alpha=alpha), o)
    return x


def add_(x: Tensor, other: Any, alpha: float = 1.0) -> Tensor:
    """``x += alpha · other`` in place (PyTorch's ``add_(other, alpha=…)``)."""
    return in_place(x, Add, other, alpha)


def sub_(x: Tensor, other: Any, alpha: float = 1.0) -> Tensor:
    """``x −= alpha · other`` in place."""
    return in_place(x, Sub, other, alpha)


def mul_(x: Tensor, other: Any) -> Tensor:
    """``x *= other`` in place."""
    return in_place(x, Mul, other)


def div_(x: Tensor, other: Any) -> Tensor:
    """``x /= other`` in place."""
    return in_place(x, Div, other)


def zero_(x: Tensor) -> Tensor:
    """Every element set to 0, in place."""
    x._check_view_in_place()
    x._in_place(Zero)
    return x


def fill_(x: Tensor, value: float) -> Tensor:
    """Every element set to ``value``, in place (under no_grad, or on a Tensor outside the graph)."""
    x._check_view_in_place()
    zero_(x)
    return add_(x, value) if value else x


# -- method forms: ``x.mul(y)`` is ``x * y`` (the same op, one node) --------------------------------------
def named(op: Operator, name: str) -> Operator:
    """The method ``x.mul(other)`` for the operator ``x * other`` (``Tensor.mul = named(__mul__, "mul")``):
    the same op and node; an operand the operator declines is PyTorch's ``TypeError``."""

    def method_form(x: Tensor, other: Any) -> Any:
        out = op(x, other)
        if out is NotImplemented:
            raise declined(name, other)
        return out

    method_form.__qualname__ = f"named({name!r})"
    method_form.__doc__ = f"``x.{name}(other)``: the same op as its operator."
    return method_form


def declined(name: str, other: Any) -> TypeError:
    """PyTorch's error for an operand that is not a Tensor or a number."""
    return TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}\n"
                     "What to do: pass a Tensor or a number.")


_add, _sub = named(operator(Add), "add"), named(operator(Sub), "sub")


def _scaled(x: Tensor, other: Any, alpha: Any, fn: type[Function], name: str) -> Any:
    """``x ± alpha·other`` as one ``AddBackward0``/``SubBackward0`` node keeping alpha (PyTorch's)."""
    o = x._operand(other)
    if o is NotImplemented:
        raise declined(name, other)
    a, b = same_kind(x, o)
    if a.dtype in INTEGERS and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.\n"
                           "What to do: pass an integer alpha, or make the Tensor a float first (.float()).")
    return fn.apply(a, b, alpha=alpha)


def add(x: Tensor, other: Any, *, alpha: Any = 1) -> Any:
    """``x + alpha·other`` (PyTorch's ``add``): ``x + other`` when alpha is 1, else one ``AddBackward0``
    rounded once."""
    return _add(x, other) if alpha == 1 else _scaled(x, other, alpha, AddScaled, "add")


def sub(x: Tensor, other: Any, *, alpha: Any = 1) -> Any:
    """``x − alpha·other`` (PyTorch's ``sub``): ``x − other`` when alpha is 1, else one ``SubBackward0``."""
    return _sub(x, other) if alpha == 1 else _scaled(x, other, alpha, SubScaled, "sub")


def square(x: Tensor) -> Any:
    """x², as PyTorch's ``square``: ``x ** 2`` (``PowBackward0``)."""
    return pow_operator(x, 2)


def reciprocal(x: Tensor) -> Any:
    """1/x (``ReciprocalBackward0``); an integer Tensor gives float32, as PyTorch."""
    return Reciprocal.apply(x._as_float())
