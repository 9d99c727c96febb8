"""Functions of one variable, elementwise: ``exp``, ``log``, ``tanh``, ``relu``, ``sigmoid``, ``sqrt``, ``rsqrt``,
``abs``, ``sin``, ``cos`` (and ``exp_`` in place); and the steps ``sign``, ``floor``, ``ceil``, ``round``.

Each is a ``Function`` whose backward multiplies the gradient by the
derivative, computed from what forward kept (often its own output).  The steps
are flat almost everywhere: their gradient is a Tensor of zeros outside the
graph (PyTorch's ``zeros_like(grad)``), so a second derivative through them is
a constant.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..autograd import Function
from .compute import backend, power_scalar, recorder, sgn, where, zeros_like
from .storage import INTEGERS

if TYPE_CHECKING:
    from .tensor import Tensor


def on_floats(fn: type[Function]) -> Callable[[Any], Any]:
    """The method ``x.exp()`` for the one-input ``fn``: an integer Tensor is made float32 first."""
    one_input = recorder(fn, 1)

    def method(x: Tensor) -> Tensor:
        return one_input(x._as_float())

    method.__qualname__ = f"on_floats({fn.__name__})"
    method.__doc__ = fn.__doc__
    return method


def _output_kept(ctx: Any, op: str, x: Any) -> Any:
    """``op(x)`` on the backend, kept for backward: these functions' derivatives are written in their output."""
    out = backend(x).unary(op, x)
    ctx.save_for_backward(out)
    return out


class Exp(Function):
    """eˣ.  Keeps its output: ∂/∂x = eˣ."""

    node_name = "ExpBackward0"
    saved_names = ("result",)
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "exp", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


def _on_host(ufunc: Any, x: Any) -> Any:
    """The NumPy ``ufunc`` of the array ``x``, on x's backend.  (The backends have no ``sin`` or
    ``cos`` op: it runs on the host copy, which for NumPy is the array itself.)"""
    be = backend(x)
    with np.errstate(invalid="ignore"):  # sin(±inf) = nan, as PyTorch, without a warning
        return be.from_host(ufunc(be.to_host(x)), be.dtype(x))


class Sin(Function):
    """sin x.  Keeps its input: ∂/∂x = cos x (PyTorch's ``grad * self.cos()``)."""

    node_name = "SinBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _on_host(np.sin, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class Cos(Function):
    """cos x.  Keeps its input: ∂/∂x = −sin x (PyTorch's ``grad * -self.sin()``)."""

    node_name = "CosBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _on_host(np.cos, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -x.sin()


def exp_(x: Tensor) -> Tensor:
    """``x.exp_()``: eˣ in place (``ExpBackward0``, keeping the new x, as PyTorch)."""
    if x.dtype in INTEGERS:
        name = "Long" if x.dtype == "int64" else "Bool"
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}\n"
                           "What to do: an in-place op keeps the Tensor's dtype; use t.exp() or t.float().")
    x._check_view_in_place()
    x._in_place(Exp)
    return x


class Log(Function):
    """ln x.  ∂/∂x = 1/x."""

    node_name = "LogBackward0"
    saved_names = ("self",)
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return backend(x).unary("log", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


class Tanh(Function):
    """tanh x.  Keeps its output: ∂/∂x = 1 − tanh²x."""

    node_name = "TanhBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "tanh", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1.0 - out * out)


class Relu(Function):
    """max(x, 0) (−0.0 and nan pass through).  Keeps its output: ∂/∂x = g where the output is not ≤ 0
    (so nan passes), else 0: PyTorch's ``threshold_backward``."""

    node_name = "ReluBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "relu", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad, out)


class ThresholdBackward(Function):
    """relu's backward (PyTorch's ``threshold_backward``): g where relu's output is not 0, else 0 (that
    output is ≤ 0 only at ±0).  Recorded (create_graph) as ``ThresholdBackwardBackward0``; it depends on
    the output too, with derivative 0."""

    node_name = "ThresholdBackwardBackward0"
    ctx_slots = ("zero",)

    @staticmethod
    def forward(ctx, grad, out):
        be = backend(out)
        ctx.zero = be.binary("eq", out, 0.0)
        return be.where(ctx.zero, 0.0, grad)

    @staticmethod
    def backward(ctx, grad):
        return where(ctx.zero, 0.0, grad), where(ctx.zero, 0.0, grad * 0.0)


class Sigmoid(Function):
    """σ(x) = 1 / (1 + e⁻ˣ), PyTorch's formula.  Keeps its output: ∂/∂x = g·(1 − σ)·σ (PyTorch's
    ``sigmoid_backward``, in its order)."""

    node_name = "SigmoidBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "sigmoid", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if grad.requires_grad or out.requires_grad:  # create_graph: one node, as PyTorch's
            return SigmoidGrad.apply(grad, out)
        return grad * (1.0 - out) * out


class SigmoidGrad(Function):
    """PyTorch's ``sigmoid_backward(g, σ)`` = g·(1 − σ)·σ as one op (``SigmoidBackwardBackward0``),
    differentiated as derivatives.yaml does: ∂/∂g = sigmoid_backward(gg, σ), ∂/∂σ = gg·g·(−2σ + 1)
    (NOTE [Sigmoid's second derivative] in micrograd2/scalar/ops.py)."""

    node_name = "SigmoidBackwardBackward0"
    saved_names = ("grad_output", "output")

    @staticmethod
    def forward(ctx, g, out):
        be = backend(g, out)
        ctx.save_for_backward(g, out)
        return be.binary("mul", be.binary("mul", g, be.binary("sub", 1.0, out)), out)

    @staticmethod
    def backward(ctx, gg):
        g, out = ctx.saved_tensors
        need_g, need_out = ctx.needs_input_grad
        grad_g = SigmoidGrad.apply(gg, out) if need_g else None
        grad_out = gg * g * (-2.0 * out + 1.0) if need_out else None
        return grad_g, grad_out


class Sqrt(Function):
    """√x.  Keeps its output: ∂/∂x = 1 / (2√x) (inf at 0)."""

    node_name = "SqrtBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "sqrt", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad / (out * 2.0)


class Abs(Function):
    """|x|.  ∂/∂x = g·sgn(x) (0 at 0 and at nan, as PyTorch's sgn)."""

    node_name = "AbsBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return backend(x).unary("abs", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * Sgn.apply(x)


class Sgn(Function):
    """sgn(x) with derivative 0: what abs's backward multiplies by (recorded: PyTorch's ``SgnBackward0``)."""

    node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, x):
        return sgn(x)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0


class Rsqrt(Function):
    """1/√x.  Keeps its output r: ∂/∂x = −½·g·r³ (derivatives.yaml: ``-0.5 * grad * result.pow(3)``)."""

    node_name = "RsqrtBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        out = power_scalar(x, -0.5)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -0.5 * grad * out ** 3


class Step(Function):
    """A function that is flat almost everywhere (``sign``, ``floor``…): its gradient is zeros of the
    gradient's shape, outside the graph (derivatives.yaml's ``zeros_like(grad)``)."""

    @staticmethod
    def backward(ctx, grad):
        return zeros_like(grad)


class Sign(Step):
    """−1, 0 or 1 (0 at ±0 and at nan, as PyTorch's ``sign``)."""

    node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.binary("add", sgn(x), 0.0)  # (+ 0.0: sign(−0) is +0)


class Floor(Step):
    """The largest integer ≤ x."""

    node_name = "FloorBackward0"

    @staticmethod
    def forward(ctx, x):
        return _on_host(np.floor, x)


class Ceil(Step):
    """The smallest integer ≥ x."""

    node_name = "CeilBackward0"

    @staticmethod
    def forward(ctx, x):
        return _on_host(np.ceil, x)


class Round(Step):
    """The nearest integer, halves to even (as PyTorch's ``round``: 2.5 → 2, 3.5 → 4)."""

    node_name = "RoundBackward0"

    @staticmethod
    def forward(ctx, x):
        return _on_host(np.rint, x)


class RoundDecimals(Step):
    """Rounded to ``decimals`` places, as PyTorch computes it: rint(x·10ᵈ)/10ᵈ (rint(x/10⁻ᵈ)·10⁻ᵈ for
    d < 0), in x's dtype (``RoundBackward1``)."""

    node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, x, decimals):
        be = backend(x)
        host = be.to_host(x)
        scale = host.dtype.type(10.0 ** abs(decimals))
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.rint(host * scale) / scale if decimals > 0 else np.rint(host / scale) * scale
        return be.from_host(out, be.dtype(x))


def on_integers_too(fn: type[Function]) -> Callable[[Any], Any]:
    """The method ``x.floor()`` for a step ``fn``: an integer Tensor is returned as it is (a copy),
    as PyTorch's ``floor``/``ceil``/``round`` of integers; ``sign`` of integers computes in them."""
    one_input = recorder(fn, 1)

    def method(x: Tensor) -> Tensor:
        if x.dtype in INTEGERS:
            be = x._backend
            out = be.unary("sign", x.data) if fn is Sign and x.dtype == "int64" else x.data
            return x._wrap(be.astype(out, x.dtype), x.dtype, None)
        return one_input(x)

    method.__qualname__ = f"on_integers_too({fn.__name__})"
    method.__doc__ = fn.__doc__
    return method


sign, floor, ceil = on_integers_too(Sign), on_integers_too(Floor), on_integers_too(Ceil)
_round = on_integers_too(Round)


def round_of(x: Tensor, decimals: int = 0) -> Tensor:
    """Rounded half to even (``RoundBackward0``), or to ``decimals`` places (``RoundBackward1``)."""
    if not decimals:
        return _round(x)
    if x.dtype in INTEGERS:
        raise NotImplementedError(f"\"round_cpu\" not implemented for '{'Long' if x.dtype == 'int64' else 'Bool'}'"
                                  "\nWhat to do: round a float Tensor: t.float().round(decimals=...).")
    return RoundDecimals.apply(x, decimals=int(decimals))  # type: ignore[no-any-return]
