"""Functions of one variable, elementwise: ``exp``, ``log``, ``tanh``, ``relu``, ``sigmoid``, ``sqrt``, ``abs``.

Each is a ``Function`` whose backward multiplies the gradient by the
derivative, computed from what forward kept (often its own output).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .compute import TensorFunction, backend, binary, div, is_tensor, mul, recorder, sgn, sub, where

if TYPE_CHECKING:
    from .tensor import Tensor


def on_floats(fn: type[TensorFunction]) -> Callable[[Any], Any]:
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


class Exp(TensorFunction):
    """eˣ.  Keeps its output: ∂/∂x = eˣ."""

    node_name = "ExpBackward0"
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "exp", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(grad, out)


class Log(TensorFunction):
    """ln x.  ∂/∂x = 1/x."""

    node_name = "LogBackward0"
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return backend(x).unary("log", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return div(grad, x)


class Tanh(TensorFunction):
    """tanh x.  Keeps its output: ∂/∂x = 1 − tanh²x."""

    node_name = "TanhBackward0"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "tanh", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(grad, sub(1.0, mul(out, out)) if is_tensor(out) else binary("sub", 1.0, binary("mul", out, out)))


class Relu(TensorFunction):
    """max(x, 0) (−0.0 and nan pass through).  Keeps its output: ∂/∂x = g where the output is not ≤ 0
    (so nan passes), else 0: PyTorch's ``threshold_backward``."""

    node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "relu", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if is_tensor(grad, out):
            return ThresholdBackward.apply(grad, out)
        return where(backend(out).binary("eq", out, 0.0), 0.0, grad)  # relu's output is ≤ 0 only at ±0


class ThresholdBackward(TensorFunction):
    """relu's backward, recorded (create_graph): g where relu's output is not 0, else 0.  It depends on
    that output too, with derivative 0 (PyTorch's ``ThresholdBackwardBackward0``)."""

    node_name = "ThresholdBackwardBackward0"
    ctx_slots = ("zero",)

    @staticmethod
    def forward(ctx, grad, out):
        ctx.zero = backend(out).binary("eq", out, 0.0)
        return where(ctx.zero, 0.0, grad)

    @staticmethod
    def backward(ctx, grad):
        return where(ctx.zero, 0.0, grad), where(ctx.zero, 0.0, mul(grad, 0.0))


class Sigmoid(TensorFunction):
    """σ(x) = 1 / (1 + e⁻ˣ), PyTorch's formula.  Keeps its output: ∂/∂x = g·(1 − σ)·σ (PyTorch's
    ``sigmoid_backward``, in its order)."""

    node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "sigmoid", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(mul(grad, sub(1.0, out)), out)


class Sqrt(TensorFunction):
    """√x.  Keeps its output: ∂/∂x = 1 / (2√x) (inf at 0)."""

    node_name = "SqrtBackward0"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "sqrt", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return div(grad, mul(out, 2.0))


class Abs(TensorFunction):
    """|x|.  ∂/∂x = g·sgn(x) (0 at 0 and at nan, as PyTorch's sgn)."""

    node_name = "AbsBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return backend(x).unary("abs", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return mul(grad, Sgn.apply(x) if is_tensor(x) else sgn(x))


class Sgn(TensorFunction):
    """sgn(x) with derivative 0: what abs's recorded backward multiplies by (PyTorch's ``SgnBackward0``)."""

    node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, x):
        return sgn(x)

    @staticmethod
    def backward(ctx, grad):
        return mul(grad, 0.0)
