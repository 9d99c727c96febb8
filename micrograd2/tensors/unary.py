"""Functions of one variable, elementwise: ``exp``, ``log``, ``tanh``, ``relu``, ``sigmoid``, ``sqrt``, ``abs``.

Each is a ``Function`` whose backward multiplies the gradient by the
derivative, computed from what forward kept (often its own output).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .compute import TensorFunction, backend, binary, data_of, div, is_tensor, mask_mul, mul, sub

if TYPE_CHECKING:
    from .tensor import Tensor


def on_floats(fn: type[TensorFunction]) -> Callable[[Any], Any]:
    """The method ``x.exp()`` for the one-input ``fn``: an integer Tensor is made float32 first."""
    one_input = fn.apply

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
    """max(x, 0).  Keeps its output: ∂/∂x = 1 where the output is positive, else 0 (also at 0)."""

    node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "relu", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        od = data_of(out)
        return mask_mul(grad, backend(od).binary("gt", od, 0.0))


class Sigmoid(TensorFunction):
    """σ(x) = 1 / (1 + e⁻ˣ).  Keeps its output: ∂/∂x = σ(x)(1 − σ(x))."""

    node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        return _output_kept(ctx, "sigmoid", x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(grad, mul(out, sub(1.0, out)))


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
    """|x|.  ∂/∂x = sign(x) (0 at 0)."""

    node_name = "AbsBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return backend(x).unary("abs", x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        xd = data_of(x)
        return mul(grad, backend(xd).unary("sign", xd))
