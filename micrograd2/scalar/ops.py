"""The scalar engine's ops, each a ``Function`` with ``forward`` and ``backward``.

``forward`` computes on plain floats; ``backward`` receives floats, or Values
when the backward pass is itself recorded (``create_graph=True``), and is
written so that both work: that is how higher-order gradients come for free.
Node names and what each op saves are PyTorch's.  The ops of many inputs
(``Sum``, ``Dot``) are in ``sums.py``, imported here with the others.
"""
from __future__ import annotations

import math
from typing import Any

from .. import dtypes, ieee
from ..autograd import Function, Variable
from ..autograd.saved import RESULT, Keep
from .sums import Dot, Sum, _exact_sum  # noqa: F401  (re-exported: value.py and the speed layer take them from here)


# -- helpers that work on floats and on Values alike (Values while create_graph records) ------
def _div(a: Any, b: Any) -> Any:
    if isinstance(a, Variable) or isinstance(b, Variable):
        return a / b
    return ieee.div(a, b)


def _log(x: Any) -> Any:
    return x.log() if isinstance(x, Variable) else ieee.log(x)  # type: ignore[attr-defined]


def _pow(x: Any, p: Any) -> Any:
    """x ** p for an exponent that is a Value in forward (PyTorch's pow(Tensor, Tensor): C's pow)."""
    if isinstance(x, Variable) or isinstance(p, Variable):
        return x**p
    return ieee.pow(x, p)


def _pow_scalar(x: Any, p: float) -> Any:
    """x ** p for a number p, as PyTorch's pow(Tensor, Scalar) (``ieee.pow_scalar``)."""
    return x**p if isinstance(x, Variable) else ieee.pow_scalar(x, p)  # type: ignore[operator]


def _where(cond: bool, a: Any, b: Any) -> Any:
    """``a if cond else b``; while recording, a ``WhereBackward0`` node (zero gradient to the other side)."""
    if isinstance(a, Variable) or isinstance(b, Variable):
        return Where.apply(a, b, cond=cond)
    return a if cond else b


# -- arithmetic -------------------------------------------------------------------------------
class Add(Function):
    """a + b.  Saves nothing: ∂/∂a = ∂/∂b = 1."""

    node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Function):
    """a − b.  ∂/∂a = 1, ∂/∂b = −1."""

    node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad


class Rsub(Function):
    """c − x for a number c: one input.  ∂/∂x = −1."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, x, c):
        return c - x

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Neg(Function):
    """−x."""

    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x):
        return -x

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Function):
    """a · b.  Keeps a only if b needs a gradient, and b only if a does (as PyTorch)."""

    node_name = "MulBackward0"
    saved_names = ("self", "other")
    keeps = (Keep(0, when=1), Keep(1, when=0))  # ∂/∂a reads b, ∂/∂b reads a

    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (None if b is None else grad * b), (None if a is None else grad * a)


class Div(Function):
    """a / b.  ∂/∂a = g / b, and ∂/∂b = −g·((a / b) / b), PyTorch's ``div_tensor_other_backward``:
    no b·b that overflows or underflows (1e300 / 1e200 has ∂/∂b = −1e-100, not −0.0).  Keeps a only
    if b needs a gradient (``x / 4`` keeps just 4)."""

    node_name = "DivBackward0"
    saved_names = ("self", "other")
    keeps = (Keep(0, when=1), Keep(1))  # ∂/∂b reads a and b, ∂/∂a reads b

    @staticmethod
    def forward(ctx, a, b):
        return ieee.div(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = _div(grad, b) if need_a else None
        grad_b = -grad * _div(_div(a, b), b) if need_b else None
        return grad_a, grad_b


class RDiv(Function):
    """c / x for a number c: one input, one node (``DivBackward0``, where PyTorch records
    reciprocal(x) · c).  Computed as PyTorch does: r = 1/x, then c·r; ∂/∂x = −(g·c)·r².  On autocast's
    float32 list, as PyTorch's reciprocal."""

    node_name = "DivBackward0"
    saved_names = ("other", "self")  # c / x: x is the divisor
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x, c):
        ctx.save_for_backward(x, c)
        return c * ieee.div(1.0, x)

    @staticmethod
    def backward(ctx, grad):
        x, c = ctx.saved_tensors
        r = _div(1.0, x)
        return -(grad * c) * (r * r)


class Pow(Function):
    """x ** p for a number p: one input.  ∂/∂x = g·(p·x^(p−1)), 0 for p = 0 (PyTorch's ``pow_backward``);
    x ** p itself as PyTorch computes it (``ieee.pow_scalar``: x·x for p = 2, √x for p = ½…)."""

    node_name = "PowBackward0"
    saved_names = ("self", "exponent")
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x, exponent):
        ctx.save_for_backward(x, exponent)
        return ieee.pow_scalar(x, exponent)

    @staticmethod
    def backward(ctx, grad):  # PyTorch's pow_backward
        x, p = ctx.saved_tensors
        if p == 0:
            return grad * 0.0
        return grad * (p * _pow_scalar(x, p - 1))


class PowValue(Function):
    """x ** y for two Values.  PyTorch's ``pow_backward_self``: ∂/∂x = g·(y·x^(y−1)), 0 where y = 0;
    ``pow_backward_exponent``: ∂/∂y = g·(x^y·log x), 0 where x = 0 and y ≥ 0."""

    node_name = "PowBackward1"
    saved_names = ("self", "exponent", "result")
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x, y):
        need_x, need_y = ctx.needs_input_grad
        out = ieee.pow(x, y)
        ctx.save_for_backward(x, y if need_x else None, out if need_y else None)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, y, out = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = _where(float(y) == 0, 0.0, grad * (y * _pow(x, y - 1))) if need_x else None
        grad_y = grad * _where(float(x) == 0 and float(y) >= 0, 0.0, out * _log(x)) if need_y else None
        return grad_x, grad_y


class RPow(Function):
    """c ** x for a number c: one input.  ∂/∂x = g·(c^x·log c), 0 where c = 0 and x ≥ 0
    (PyTorch's ``pow_backward_exponent``)."""

    node_name = "PowBackward2"
    saved_names = ("result", "self", "exponent")  # c ** x: the base c is "self"
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x, base):
        out = ieee.pow(base, x)
        ctx.save_for_backward(out, base, x)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, base, x = ctx.saved_tensors
        return grad * _where(base == 0 and float(x) >= 0, 0.0, out * ieee.log(base))


# -- functions of one variable ---------------------------------------------------------------
class Exp(Function):
    """eˣ.  Keeps its output: ∂/∂x = eˣ."""

    node_name = "ExpBackward0"
    saved_names = ("result",)
    keeps = (Keep(RESULT),)
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        return ieee.exp(x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


class Log(Function):
    """ln x.  ∂/∂x = 1/x."""

    node_name = "LogBackward0"
    saved_names = ("self",)
    keeps = (Keep(0),)
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        return ieee.log(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _div(grad, x)


class Tanh(Function):
    """tanh x.  Keeps its output: ∂/∂x = 1 − tanh²x."""

    node_name = "TanhBackward0"
    saved_names = ("result",)
    keeps = (Keep(RESULT),)

    @staticmethod
    def forward(ctx, x):
        return math.tanh(x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)


def _sin(x: Any) -> Any:
    """sin x, on a float (``nan`` at ±inf, as C's ``sin``) or a Value (recorded)."""
    if isinstance(x, Variable):
        return x.sin()  # type: ignore[attr-defined]
    return float("nan") if math.isinf(x) else math.sin(x)


def _cos(x: Any) -> Any:
    """cos x, on a float (``nan`` at ±inf) or a Value (recorded)."""
    if isinstance(x, Variable):
        return x.cos()  # type: ignore[attr-defined]
    return float("nan") if math.isinf(x) else math.cos(x)


class Sin(Function):
    """sin x.  Keeps its input: ∂/∂x = cos x (PyTorch's ``grad * self.cos()``)."""

    node_name = "SinBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _cos(x)


class Cos(Function):
    """cos x.  Keeps its input: ∂/∂x = −sin x (PyTorch's ``grad * -self.sin()``)."""

    node_name = "CosBackward0"
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _cos(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -_sin(x)


class Relu(Function):
    """max(x, 0).  Keeps its output: ∂/∂x = g where the output is not ≤ 0 (so nan passes), else 0."""

    node_name = "ReluBackward0"
    saved_names = ("result",)
    keeps = (Keep(RESULT),)

    @staticmethod
    def forward(ctx, x):
        return 0.0 if x < 0 else x  # −0.0 and nan pass through, as PyTorch's clamp_min

    @staticmethod
    def backward(ctx, grad):  # PyTorch's threshold_backward(grad, result, 0)
        (out,) = ctx.saved_tensors
        if isinstance(out, Variable) or isinstance(grad, Variable):
            return ThresholdBackward.apply(grad, out)
        return 0.0 if out <= 0 else grad


class Sigmoid(Function):
    """σ(x) = 1 / (1 + e⁻ˣ).  Keeps its output: ∂/∂x = g·(1 − σ)·σ."""

    node_name = "SigmoidBackward0"
    saved_names = ("result",)
    keeps = (Keep(RESULT),)

    @staticmethod
    def forward(ctx, x):
        return ieee.div(1.0, 1.0 + ieee.exp(-x))  # PyTorch's formula: no cancellation on either side

    @staticmethod
    def backward(ctx, grad):  # PyTorch's sigmoid_backward, in its order
        (out,) = ctx.saved_tensors
        if isinstance(grad, Variable):  # create_graph: one node, with derivatives.yaml's formulas
            return SigmoidGrad.apply(grad, out, kind=grad.dtype)
        return grad * (1 - out) * out


def _sigmoid_backward(g: float, out: float, kind: str) -> float:
    """PyTorch's ``sigmoid_backward(g, σ)`` on floats, rounded to ``kind`` as it goes."""
    return dtypes.round_to(g * dtypes.round_to(1.0 - out, kind), kind) * out


class SigmoidGrad(Function):
    """PyTorch's ``sigmoid_backward(g, σ)`` = g·(1 − σ)·σ as one op (``SigmoidBackwardBackward0``).

    NOTE [Sigmoid's second derivative]: derivatives.yaml differentiates it as an op of its own:
    ∂/∂g = sigmoid_backward(gg, σ) and ∂/∂σ = gg·g·(−2σ + 1).  Written as three products instead,
    the float64 second derivative lands one ulp away from PyTorch's at some points."""

    node_name = "SigmoidBackwardBackward0"
    saved_names = ("grad_output", "output")
    ctx_slots = ("kind",)

    @staticmethod
    def forward(ctx, g, out, kind):
        ctx.save_for_backward(g, out)
        ctx.kind = kind
        return _sigmoid_backward(g, out, kind)

    @staticmethod
    def backward(ctx, gg):
        g, out = ctx.saved_tensors
        need_g, need_out = ctx.needs_input_grad
        grad_g = None
        if need_g:  # one recorded op while recording, else its formula on floats
            recorded = isinstance(gg, Variable) or isinstance(out, Variable)
            grad_g = SigmoidGrad.apply(gg, out, kind=ctx.kind) if recorded else \
                _sigmoid_backward(gg, out, ctx.kind)
        grad_out = gg * g * (-2 * out + 1) if need_out else None
        return grad_g, grad_out


class Sqrt(Function):
    """√x.  Keeps its output: ∂/∂x = 1 / (2√x) (inf at 0)."""

    node_name = "SqrtBackward0"
    saved_names = ("result",)
    keeps = (Keep(RESULT),)

    @staticmethod
    def forward(ctx, x):
        return ieee.sqrt(x)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return _div(grad, 2 * out)


class Abs(Function):
    """|x|.  ∂/∂x = g·sgn(x) (0 at 0 and at nan, as PyTorch's sgn)."""

    node_name = "AbsBackward0"
    saved_names = ("self",)
    keeps = (Keep(0),)

    @staticmethod
    def forward(ctx, x):
        return abs(x)

    @staticmethod
    def backward(ctx, grad):  # g · sgn(x), sgn recorded while create_graph records (as PyTorch)
        (x,) = ctx.saved_tensors
        return grad * (Sgn.apply(x) if isinstance(x, Variable) else ieee.sgn(x))


# -- casts and in-place helpers -----------------------------------------------------------------
class ToCopy(Function):
    """A dtype cast (``v.to("float16")``).  The gradient flows back unchanged, rounded to x's dtype."""

    node_name = "ToCopyBackward0"
    ctx_slots = ("source_dtype",)

    @staticmethod
    def forward(ctx, x, dtype, source_dtype):
        ctx.source_dtype = source_dtype
        return x

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, Variable):  # recorded (create_graph): cast back to x's dtype, as PyTorch
            return grad.to(ctx.source_dtype)
        return grad


class Zero(Function):
    """``zero_()`` on a non-leaf: the output is 0, so no gradient reaches the old value."""

    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, x):
        return 0.0

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0

class Round(Function):
    """Round half to even (to ``decimals`` places).  The derivative is 0 (PyTorch's ``RoundBackward0``)."""

    node_name = "RoundBackward0"

    @staticmethod
    def forward(ctx, x, decimals):
        if not decimals:
            return math.copysign(round(x), x) if math.isfinite(x) else x  # (round(−0.4) is −0.0)
        scale = 10.0 ** abs(decimals)  # PyTorch's way: round(x·10ᵈ)/10ᵈ in floats (2.675 → 2.68)
        y = x * scale if decimals > 0 else x / scale
        if not math.isfinite(y):
            return x
        return float(round(y)) / scale if decimals > 0 else float(round(y)) * scale

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0


class RoundDecimals(Round):
    """Round half to even to ``decimals`` places (PyTorch's ``RoundBackward1``)."""

    node_name = "RoundBackward1"


class Clone(Function):
    """A copy of x in the graph: the gradient passes unchanged (PyTorch's ``CloneBackward0``)."""

    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class Copy(Function):
    """A leaf's first ``.grad`` while backward is recorded (create_graph): a copy of the gradient, made as
    PyTorch's ``AccumulateGrad`` makes it, ``new_empty().copy_(grad)`` (``CopyBackwards``, with no edge for
    the new memory).  So no two leaves share one gradient Value."""

    node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, memory, grad):
        return grad

    @staticmethod
    def backward(ctx, grad):
        return None, grad


# -- ops that recorded backward passes use (create_graph=True) -----------------------------------------
class Where(Function):
    """``a if cond else b`` for a condition fixed at forward time, as PyTorch's ``where``: the gradient
    goes to the chosen input and an exact 0 to the other."""

    node_name = "WhereBackward0"
    ctx_slots = ("cond",)

    @staticmethod
    def forward(ctx, a, b, cond):
        ctx.cond = cond
        return a if cond else b

    @staticmethod
    def backward(ctx, grad):
        return (grad, 0.0) if ctx.cond else (0.0, grad)


class ThresholdBackward(Function):
    """relu's backward, recorded: g where the output is not ≤ 0, else 0.  Its output requires grad when
    relu's output does, with a zero derivative there (PyTorch's ``ThresholdBackwardBackward0``)."""

    node_name = "ThresholdBackwardBackward0"
    ctx_slots = ("passes",)

    @staticmethod
    def forward(ctx, grad, out):
        ctx.passes = not out <= 0
        return grad if ctx.passes else 0.0

    @staticmethod
    def backward(ctx, grad):
        return (grad if ctx.passes else 0.0), 0.0


class Sgn(Function):
    """sgn(x): −1, 0 or 1 (0 at nan), with derivative 0 (abs's backward records it, as PyTorch)."""

    node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, x):
        return ieee.sgn(x)

    @staticmethod
    def backward(ctx, grad):
        return 0.0


# -- the ops of PyTorch's method names a 0-d tensor has (``v.rsqrt()``, ``v.add(w, alpha=2)``…) ----------
def _fused_multiply_add(a: float, b: float, c: float) -> float:
    """a·b + c rounded once, as PyTorch's CPU kernels compute ``add(…, alpha)`` (a fused multiply-add):
    exact in fractions for finite numbers, IEEE's ``inf``/``nan`` otherwise."""
    if math.isfinite(a) and math.isfinite(b) and math.isfinite(c):
        from fractions import Fraction

        try:
            out = float(Fraction(a) * Fraction(b) + Fraction(c))
        except OverflowError:
            return a * b + c
        return a * b + c if out == 0 and a * b == 0 and c == 0 else out  # (−0 + −0 is −0)
    return a * b + c


class AddScaled(Function):
    """a + alpha·b (``v.add(w, alpha=…)``), rounded once: one ``AddBackward0``.  ∂/∂a = 1, ∂/∂b = alpha."""

    node_name = "AddBackward0"
    ctx_slots = ("alpha",)

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.alpha = alpha
        return _fused_multiply_add(float(alpha), b, a)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad * ctx.alpha


class SubScaled(Function):
    """a − alpha·b (``v.sub(w, alpha=…)``), rounded once: one ``SubBackward0``.  ∂/∂b = −alpha."""

    node_name = "SubBackward0"
    ctx_slots = ("alpha",)

    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.alpha = alpha
        return _fused_multiply_add(-float(alpha), b, a)

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad * ctx.alpha


# PyTorch's AddBackward0 and SubBackward0 show their alpha as ``_saved_alpha`` (the tracer reads it by that name)
AddScaled._node_class._saved_alpha = SubScaled._node_class._saved_alpha = property(  # type: ignore[attr-defined]
    lambda node: node.alpha)


class Reciprocal(Function):
    """1/x.  Keeps its output r: ∂/∂x = −g·r² (``ReciprocalBackward0``)."""

    node_name = "ReciprocalBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        out = ieee.div(1.0, x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -grad * (out * out)


class Rsqrt(Function):
    """1/√x.  Keeps its output r: ∂/∂x = −½·g·r³ (``RsqrtBackward0``)."""

    node_name = "RsqrtBackward0"
    saved_names = ("result",)

    @staticmethod
    def forward(ctx, x):
        out = ieee.pow_scalar(x, -0.5)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return -0.5 * grad * _pow_scalar(out, 3)


class Sign(Function):
    """−1, 0 or 1 (0 at ±0 and at nan, as PyTorch's ``sign``).  The derivative is 0, a constant (PyTorch's
    ``zeros_like(grad)``: no graph)."""

    node_name = "SignBackward0"

    @staticmethod
    def forward(ctx, x):
        return ieee.sgn(x)

    @staticmethod
    def backward(ctx, grad):
        return type(grad)(0.0, dtype=grad.dtype) if isinstance(grad, Variable) else 0.0  # type: ignore[call-arg]


class Floor(Sign):
    """The largest integer ≤ x (``FloorBackward0``); the derivative is 0."""

    node_name = "FloorBackward0"

    @staticmethod
    def forward(ctx, x):
        return math.copysign(math.floor(x), x) if math.isfinite(x) else x  # (floor(−0.0) is −0.0)


class Ceil(Sign):
    """The smallest integer ≥ x (``CeilBackward0``); the derivative is 0."""

    node_name = "CeilBackward0"

    @staticmethod
    def forward(ctx, x):
        return math.copysign(math.ceil(x), x) if math.isfinite(x) else x  # (ceil(−0.5) is −0.0)
