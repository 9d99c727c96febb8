"""The Tensor engine's ops, each a ``Function`` with ``forward`` and ``backward`` on backend arrays.

The same pattern as the scalar engine (``scalar/ops.py``): ``forward`` receives
the inputs' arrays and computes with the array backend (``backends/base.py``:
NumPy on ``"cpu"``, pycuda on ``"cuda"`` — never NumPy directly, so every op
runs on either); ``backward`` receives the output's gradient and returns one
gradient per input.  Backward formulas use the helpers of the first section,
which work on arrays and, while ``create_graph=True`` records the backward
pass, on Tensors: that is how second derivatives come for free.

Broadcasting: an input that was broadcast receives its gradient summed back to
its own shape (``sum_to``).  Node names and what each op saves are PyTorch's;
sizes and dims are kept on the node (``ctx_slots``), as PyTorch keeps
``self_sym_sizes``, so they survive backward and a graph that saved no array
(``(a + 1).sum()``) can be walked twice.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd import Function, Variable
from ..backends import array_types, get_backend
from ..backends.base import is_basic_index

_array_types = array_types()  # array class -> backend (live)


# -- finding the backend and computing on arrays or Tensors -------------------------------------
def backend(*xs: Any) -> Any:
    """The backend of the first array among ``xs`` (numbers are skipped)."""
    for x in xs:
        be = _array_types.get(type(x))
        if be is not None:
            return be
    raise TypeError(f"expected a backend array among {[type(x).__name__ for x in xs]}")


def _is_t(*xs: Any) -> bool:
    """Is any of ``xs`` a Tensor (the backward pass is being recorded)?"""
    return any(isinstance(x, Variable) for x in xs)


def _data(x: Any) -> Any:
    """The array under a Tensor (constants such as masks need no history)."""
    return x.data if isinstance(x, Variable) else x


def _binary(op: str, a: Any, b: Any) -> Any:
    return backend(a, b).binary(op, a, b)


def add(a: Any, b: Any) -> Any:
    return a + b if _is_t(a, b) else _binary("add", a, b)


def sub(a: Any, b: Any) -> Any:
    return a - b if _is_t(a, b) else _binary("sub", a, b)


def mul(a: Any, b: Any) -> Any:
    return a * b if _is_t(a, b) else _binary("mul", a, b)


def div(a: Any, b: Any) -> Any:
    return a / b if _is_t(a, b) else _binary("div", a, b)


def power(a: Any, p: Any) -> Any:
    return a**p if _is_t(a, p) else _binary("pow", a, p)


def neg(a: Any) -> Any:
    return -a if _is_t(a) else backend(a).unary("neg", a)


def exp(a: Any) -> Any:
    return a.exp() if _is_t(a) else backend(a).unary("exp", a)


def log(a: Any) -> Any:
    return a.log() if _is_t(a) else backend(a).unary("log", a)


def shape(a: Any) -> tuple[int, ...]:
    return a.shape if _is_t(a) else backend(a).shape(a)  # type: ignore[no-any-return]


def reshape(g: Any, new_shape: tuple[int, ...]) -> Any:
    return g.reshape(new_shape) if _is_t(g) else backend(g).reshape(g, new_shape)


def expand(g: Any, new_shape: tuple[int, ...]) -> Any:
    """``g`` broadcast to ``new_shape`` (the backward of a sum)."""
    return g.expand(new_shape) if _is_t(g) else backend(g).broadcast_to(g, new_shape)


def sum_to(g: Any, target: tuple[int, ...] | None) -> Any:
    """``g`` summed down to ``target`` (the reverse of broadcasting); ``None`` for a number input."""
    if target is None:
        return None
    if _is_t(g):
        return g.sum_to_size(target)
    return backend(g).sum_to_shape(g, target)


def reduce_sum(g: Any, dim: Any, keepdim: bool) -> Any:
    return g.sum(dim, keepdim) if _is_t(g) else backend(g).sum(g, axis=dim, keepdims=keepdim)


def permute(g: Any, axes: tuple[int, ...]) -> Any:
    return g.permute(*axes) if _is_t(g) else backend(g).transpose(g, axes)


def t(g: Any) -> Any:
    """The transpose of a 2-D ``g``."""
    return g.t() if _is_t(g) else backend(g).transpose(g, (1, 0))


def matmul(a: Any, b: Any) -> Any:
    return a @ b if _is_t(a, b) else backend(a, b).matmul(a, b)


def scatter(g: Any, out_shape: tuple[int, ...], index: Any, dtype: str) -> Any:
    """Zeros of ``out_shape`` with ``g`` added at ``index``: the backward of indexing."""
    if _is_t(g):
        return IndexPut.apply(g, shape=out_shape, index=index)
    return backend(g).scatter_add(out_shape, index, g, dtype)


def mask_mul(g: Any, mask: Any) -> Any:
    """``g`` where ``mask`` else 0 (``mask`` an array: a constant)."""
    if _is_t(g):
        return g * mask
    return backend(g).where(mask, g, 0.0)


def _elementwise(ctx: Any, op: str, a: Any, b: Any) -> Any:
    """``a (op) b`` on their backend (either may be a number).  When the op is recorded, ``ctx`` keeps
    both shapes for the backward's un-broadcasting (``None`` for a number: it gets no gradient)."""
    be = _array_types.get(type(a)) or _array_types[type(b)]
    if ctx._next[0] is not None or ctx._next[1] is not None:  # an input needs a gradient
        ctx.shapes = (_shape_of(a), _shape_of(b))
    try:
        return be.binary(op, a, b)
    except ValueError:
        raise _shapes_differ(_shape_of(a) or (), _shape_of(b) or ()) from None


def _shapes_differ(a: tuple[int, ...], b: tuple[int, ...]) -> RuntimeError:
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


def _shape_of(x: Any) -> tuple[int, ...] | None:
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


# -- the base class: built-in nodes with a few plain attributes ---------------------------------
class TensorFunction(Function):
    """Base of the built-in Tensor ops.  ``ctx_slots`` names plain attributes the node keeps
    (sizes, dims): unlike saved arrays they are not freed by backward."""


# -- elementwise arithmetic (with broadcasting) -------------------------------------------------
class Add(TensorFunction):
    """a + b.  Saves nothing but the shapes: ∂/∂a = ∂/∂b = 1, summed back over broadcast dims."""

    node_name = "AddBackward0"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        return _elementwise(ctx, "add", a, b)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        return sum_to(grad, sa), sum_to(grad, sb)


class Sub(TensorFunction):
    """a − b.  ∂/∂a = 1, ∂/∂b = −1."""

    node_name = "SubBackward0"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        return _elementwise(ctx, "sub", a, b)

    @staticmethod
    def backward(ctx, grad):
        sa, sb = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad, sa) if need_a else None), (sum_to(neg(grad), sb) if need_b else None)


class Rsub(TensorFunction):
    """c − x for a number c: one input.  ∂/∂x = −1."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, x, c):
        return _binary("sub", c, x)

    @staticmethod
    def backward(ctx, grad):
        return neg(grad)


class Neg(TensorFunction):
    """−x."""

    node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x):
        return backend(x).unary("neg", x)

    @staticmethod
    def backward(ctx, grad):
        return neg(grad)


class Mul(TensorFunction):
    """a · b.  Keeps a only if b needs a gradient, and b only if a does (as PyTorch)."""

    node_name = "MulBackward0"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        edge_a, edge_b = ctx._next  # (cheaper than ctx.needs_input_grad on this hot path)
        if edge_a is not None or edge_b is not None:
            ctx.save_for_backward(a if edge_b is not None else None, b if edge_a is not None else None)
        return _elementwise(ctx, "mul", a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        sa, sb = ctx.shapes
        grad_a = None if b is None else sum_to(mul(grad, b), sa)
        grad_b = None if a is None else sum_to(mul(grad, a), sb)
        return grad_a, grad_b


class Div(TensorFunction):
    """a / b (also number / Tensor: one node).  ∂/∂a = 1/b, ∂/∂b = −a/b²."""

    node_name = "DivBackward0"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _elementwise(ctx, "div", a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        sa, sb = ctx.shapes
        need_a, need_b = ctx.needs_input_grad
        grad_a = sum_to(div(grad, b), sa) if need_a else None
        grad_b = sum_to(neg(div(mul(grad, a), mul(b, b))), sb) if need_b else None
        return grad_a, grad_b


class Pow(TensorFunction):
    """x ** p for a number p.  ∂/∂x = p·x^(p−1)."""

    node_name = "PowBackward0"
    autocast = "fp32"
    ctx_slots = ("exponent",)

    @staticmethod
    def forward(ctx, x, exponent):
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        return _binary("pow", x, exponent)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        p = ctx.exponent
        if p == 0:
            return mul(grad, 0.0)
        return mul(grad, mul(power(x, p - 1), p))


class PowTensor(TensorFunction):
    """x ** y for two Tensors.  ∂/∂x = y·x^(y−1), ∂/∂y = x^y·log x (0 where x = 0 and y ≥ 0)."""

    node_name = "PowBackward1"
    autocast = "fp32"
    ctx_slots = ("shapes",)

    @staticmethod
    def forward(ctx, x, y):
        out = _binary("pow", x, y)
        ctx.save_for_backward(x, y, out)
        ctx.shapes = (_shape_of(x), _shape_of(y))
        return out

    @staticmethod
    def backward(ctx, grad):
        x, y, out = ctx.saved_tensors
        sx, sy = ctx.shapes
        need_x, need_y = ctx.needs_input_grad
        grad_x = sum_to(mul(grad, mul(y, power(x, sub(y, 1.0)))), sx) if need_x else None
        grad_y = None
        if need_y:
            xd, yd = _data(x), _data(y)
            be = backend(xd, yd)
            # where x == 0 and y >= 0 the true derivative is 0, not 0·log 0 = nan: take log 1 there
            at_zero = be.binary("mul", be.binary("eq", xd, 0.0), be.binary("eq", be.binary("gt", 0.0, yd), False))
            zero = be.astype(at_zero, be.dtype(xd))
            safe_x = add(mul(x, be.binary("sub", 1.0, zero)), zero)
            grad_y = sum_to(mul(mul(grad, out), log(safe_x)), sy)
        return grad_x, grad_y


class RPow(TensorFunction):
    """c ** x for a number c.  ∂/∂x = c^x · log c."""

    node_name = "PowBackward2"
    autocast = "fp32"
    ctx_slots = ("base",)

    @staticmethod
    def forward(ctx, x, base):
        out = _binary("pow", base, x)
        ctx.save_for_backward(out)
        ctx.base = base
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(grad, mul(out, math.log(ctx.base) if ctx.base > 0 else math.nan))


# -- functions of one variable ------------------------------------------------------------------
class Exp(TensorFunction):
    """eˣ.  Keeps its output: ∂/∂x = eˣ."""

    node_name = "ExpBackward0"
    autocast = "fp32"

    @staticmethod
    def forward(ctx, x):
        out = backend(x).unary("exp", x)
        ctx.save_for_backward(out)
        return out

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
        out = backend(x).unary("tanh", x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(grad, sub(1.0, mul(out, out)) if _is_t(out) else _binary("sub", 1.0, _binary("mul", out, out)))


class Relu(TensorFunction):
    """max(x, 0).  Keeps its output: ∂/∂x = 1 where the output is positive, else 0 (also at 0)."""

    node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, x):
        out = backend(x).unary("relu", x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        od = _data(out)
        return mask_mul(grad, backend(od).binary("gt", od, 0.0))


class Sigmoid(TensorFunction):
    """σ(x) = 1 / (1 + e⁻ˣ).  Keeps its output: ∂/∂x = σ(x)(1 − σ(x))."""

    node_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx, x):
        out = backend(x).unary("sigmoid", x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return mul(grad, mul(out, sub(1.0, out)))


class Sqrt(TensorFunction):
    """√x.  Keeps its output: ∂/∂x = 1 / (2√x) (inf at 0)."""

    node_name = "SqrtBackward0"

    @staticmethod
    def forward(ctx, x):
        out = backend(x).unary("sqrt", x)
        ctx.save_for_backward(out)
        return out

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
        xd = _data(x)
        return mul(grad, backend(xd).unary("sign", xd))


# -- reductions ---------------------------------------------------------------------------------
class Sum(TensorFunction):
    """Σ over all elements.  Keeps only the input's shape: the gradient is broadcast back."""

    node_name = "SumBackward0"
    autocast = "fp32"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.sum(x)

    @staticmethod
    def backward(ctx, grad):
        return expand(grad, ctx.shape)


class SumDim(TensorFunction):
    """Σ over ``dim`` (a tuple of axes), ``keepdim`` or not."""

    node_name = "SumBackward1"
    autocast = "fp32"
    ctx_slots = ("shape", "kept")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        ctx.shape = be.shape(x)
        ctx.kept = kept_shape(ctx.shape, dim)
        return be.sum(x, axis=dim, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return expand(reshape(grad, ctx.kept), ctx.shape)


class Mean(TensorFunction):
    """The mean of all elements: ∂/∂xᵢ = 1/n."""

    node_name = "MeanBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.binary("div", be.sum(x), float(math.prod(ctx.shape)))

    @staticmethod
    def backward(ctx, grad):
        return expand(div(grad, float(math.prod(ctx.shape))), ctx.shape)


class MeanDim(TensorFunction):
    """The mean over ``dim``: ∂/∂xᵢ = 1/(number of elements averaged)."""

    node_name = "MeanBackward1"
    ctx_slots = ("shape", "kept", "n")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        ctx.shape = be.shape(x)
        ctx.kept = kept_shape(ctx.shape, dim)
        ctx.n = math.prod(ctx.shape[d] for d in dim)
        return be.binary("div", be.sum(x, axis=dim, keepdims=keepdim), float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        return expand(div(reshape(grad, ctx.kept), float(ctx.n)), ctx.shape)


class MaxAll(TensorFunction):
    """The largest element.  The gradient is shared evenly among ties (as PyTorch's ``max()``)."""

    node_name = "MaxBackward1"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        out = be.max(x)
        ctx.save_for_backward(x, out)
        ctx.shape = be.shape(x)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        dims = tuple(range(len(ctx.shape)))
        return _share_among_maxima(grad, _data(x), _data(out), ctx.shape, dims)


class Amax(TensorFunction):
    """The largest element over ``dim``; ties share the gradient evenly (``AmaxBackward0``)."""

    node_name = "AmaxBackward0"
    ctx_slots = ("shape", "dim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        out = be.max(x, axis=dim, keepdims=keepdim)
        ctx.save_for_backward(x, out)
        ctx.shape, ctx.dim = be.shape(x), dim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return _share_among_maxima(grad, _data(x), _data(out), ctx.shape, ctx.dim)


def _share_among_maxima(grad: Any, x: Any, out: Any, in_shape: tuple[int, ...], dims: tuple[int, ...]) -> Any:
    """``grad`` (reduced over ``dims``) sent to the positions equal to the maximum, split among ties."""
    be = backend(x)
    kept = kept_shape(in_shape, dims)
    is_max = be.binary("eq", x, be.reshape(out, kept))
    count = be.sum(be.astype(is_max, be.dtype(x)), axis=dims, keepdims=True)
    share = div(expand(reshape(grad, kept), in_shape), count)
    return mask_mul(share, is_max)


class MaxDim(TensorFunction):
    """``max(dim)``: the values (this output) and their indices (an int64 Tensor, no gradient).

    The gradient goes to the position of each maximum (the first one, where ``argmax`` points).
    """

    node_name = "MaxBackward0"
    ctx_slots = ("shape", "dim", "keepdim")

    @staticmethod
    def forward(ctx, x, dim, keepdim):
        be = backend(x)
        indices = be.argmax(x, axis=dim, keepdims=True)
        values = be.max(x, axis=dim, keepdims=True)
        ctx.save_for_backward(indices)
        ctx.shape, ctx.dim, ctx.keepdim = be.shape(x), dim, keepdim
        if not keepdim:
            kept = be.shape(values)
            squeezed = kept[:dim] + kept[dim + 1:]
            values, indices = be.reshape(values, squeezed), be.reshape(indices, squeezed)
        return values, indices

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        be = backend(_data(indices))
        n = ctx.shape[ctx.dim]
        along = [1] * len(ctx.shape)
        along[ctx.dim] = n
        positions = be.reshape(be.arange(n), tuple(along))
        is_max = be.binary("eq", positions, _data(indices))
        kept = kept_shape(ctx.shape, (ctx.dim,))
        return mask_mul(expand(reshape(grad, kept), ctx.shape), is_max)


# -- shapes -------------------------------------------------------------------------------------
class View(TensorFunction):
    """``reshape``/``view``/``flatten``: the same numbers in a new shape.  Backward reshapes back."""

    node_name = "ViewBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x, shape):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.reshape(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return reshape(grad, ctx.shape)


class Unsqueeze(View):
    """A new axis of size 1 (``unsqueeze(d)``, ``x[None]``)."""

    node_name = "UnsqueezeBackward0"


class Squeeze(View):
    """An axis of size 1 removed (``squeeze(d)``)."""

    node_name = "SqueezeBackward1"


class SqueezeAll(View):
    """Every axis of size 1 removed (``squeeze()``)."""

    node_name = "SqueezeBackward0"


class SqueezeDims(View):
    """Several axes of size 1 removed (``squeeze((d1, d2))``; what 1-D @ 2-D ends with)."""

    node_name = "SqueezeBackward4"


class Expand(TensorFunction):
    """``expand(shape)``: broadcast to a bigger shape.  Backward sums back."""

    node_name = "ExpandBackward0"
    ctx_slots = ("shape",)

    @staticmethod
    def forward(ctx, x, shape):
        be = backend(x)
        ctx.shape = be.shape(x)
        return be.broadcast_to(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return sum_to(grad, ctx.shape)


class Permute(TensorFunction):
    """``permute(axes)`` and ``.T``: axes reordered.  Backward applies the inverse order."""

    node_name = "PermuteBackward0"
    ctx_slots = ("axes",)

    @staticmethod
    def forward(ctx, x, axes):
        ctx.axes = axes
        return backend(x).transpose(x, axes)

    @staticmethod
    def backward(ctx, grad):
        inverse = tuple(sorted(range(len(ctx.axes)), key=ctx.axes.__getitem__))
        return permute(grad, inverse)


class T(TensorFunction):
    """``t()``: the transpose of a matrix (what ``Linear`` applies to its weight)."""

    node_name = "TBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.transpose(x, (1, 0)) if len(be.shape(x)) == 2 else x

    @staticmethod
    def backward(ctx, grad):
        return t(grad) if len(shape(grad)) == 2 else grad


class Transpose(Permute):
    """``transpose(d0, d1)``: two axes swapped."""

    node_name = "TransposeBackward0"


class Clone(TensorFunction):
    """``clone()``: a copy with its own memory.  ∂/∂x = 1."""

    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.astype(x, be.dtype(x))

    @staticmethod
    def backward(ctx, grad):
        return grad


# -- indexing -----------------------------------------------------------------------------------
class Index(TensorFunction):
    """``x[index]`` with index arrays (advanced indexing).  Backward adds the gradient back at ``index``
    (repeated positions add up)."""

    node_name = "IndexBackward0"
    ctx_slots = ("shape", "index", "dtype")

    @staticmethod
    def forward(ctx, x, index):
        be = backend(x)
        ctx.shape, ctx.index, ctx.dtype = be.shape(x), index, be.dtype(x)
        try:
            return be.getitem(x, index)
        except IndexError as error:  # NumPy's words for an axis are PyTorch's for a dimension
            raise IndexError(
                f"{str(error).replace('axis', 'dimension')}\n"
                f"What to do: the Tensor's shape is {tuple(ctx.shape)}; an index runs from -size to size - 1."
            ) from None

    @staticmethod
    def backward(ctx, grad):
        return scatter(grad, ctx.shape, ctx.index, ctx.dtype)


class Select(Index):
    """``x[i]``: one position along an axis."""

    node_name = "SelectBackward0"


class Slice(Index):
    """``x[a:b]``: a range along an axis."""

    node_name = "SliceBackward0"


class UnsqueezeIndex(Index):
    """``x[None]``: a new axis."""

    node_name = "UnsqueezeBackward0"


class IndexPut(TensorFunction):
    """Zeros with ``values`` added at ``index``: the backward of indexing, recorded (create_graph)."""

    node_name = "IndexPutImplBackward0"
    ctx_slots = ("index",)

    @staticmethod
    def forward(ctx, values, shape, index):
        be = backend(values)
        ctx.index = index
        return be.scatter_add(shape, index, values, be.dtype(values))

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.index] if _is_t(grad) else backend(grad).getitem(grad, ctx.index)


class SetItem(TensorFunction):
    """``x[index] = value`` (in place, PyTorch's ``CopySlices``): x's gradient is 0 where it was
    overwritten; the value's gradient is the gradient there, summed to the value's shape."""

    node_name = "CopySlices"
    ctx_slots = ("index", "value_shape", "keep")

    @staticmethod
    def forward(ctx, x, value, index):
        be = backend(x)
        xs, dtype = be.shape(x), be.dtype(x)
        region = be.shape(be.getitem(x, index))
        v = be.broadcast_to(value if type(value) in _array_types else be.full((), float(value), dtype), region)
        last = _last_writes(be, xs, index)
        if last is not None:  # a position given twice: the last write wins (NumPy's and PyTorch's CPU rule)
            v = be.where(last, v, 0.0)
        filled = be.scatter_add(xs, index, v, dtype)
        written = be.binary("gt", be.scatter_add(xs, index, be.full(region, 1.0, dtype), dtype), 0.0)
        ctx.index, ctx.value_shape = index, _shape_of(value)
        ctx.keep = be.binary("eq", written, False)
        return be.where(written, filled, x)

    @staticmethod
    def backward(ctx, grad):
        grad_value = None
        if ctx.value_shape is not None:
            picked = grad[ctx.index] if _is_t(grad) else backend(grad).getitem(grad, ctx.index)
            grad_value = sum_to(picked, ctx.value_shape)
        return mask_mul(grad, ctx.keep), grad_value, None


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


# -- matrix products ----------------------------------------------------------------------------
def _layouts(be: Any, a: Any, b: Any) -> tuple[bool, bool]:
    """Is each operand column-major (a transposed view, like ``W.t()``)?  Backends that don't say
    (``is_column_major`` is optional) keep everything row-major."""
    column_major = getattr(be, "is_column_major", None)
    if column_major is None:
        return False, False
    return column_major(a), column_major(b)


def _matmul_as(be: Any, column_major: bool, left: Any, right: Any) -> Any:
    """``left @ right`` in the layout of the input it is the gradient of: a column-major input gets a
    column-major gradient, computed as ``(rightᵀ @ leftᵀ)ᵀ`` (the same product, no copy), so that the
    ``TBackward0`` after it hands the weight a row-major gradient."""
    if column_major:
        return be.transpose(be.matmul(be.transpose(right, (1, 0)), be.transpose(left, (1, 0))), (1, 0))
    return be.matmul(left, right)


class Mm(TensorFunction):
    """A @ B for two matrices.  ∂/∂A = G Bᵀ, ∂/∂B = Aᵀ G."""

    node_name = "MmBackward0"
    autocast = "lowp"
    ctx_slots = ("layouts",)

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        be = backend(a, b)
        ctx.layouts = _layouts(be, a, b)
        return be.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if _is_t(grad, a, b):
            return (None if b is None else grad @ t(b)), (None if a is None else t(a) @ grad)
        be = backend(grad)
        a_layout, b_layout = ctx.layouts
        grad_a = None if b is None else _matmul_as(be, a_layout, grad, be.transpose(b, (1, 0)))
        grad_b = None if a is None else _matmul_as(be, b_layout, be.transpose(a, (1, 0)), grad)
        return grad_a, grad_b


class Addmm(TensorFunction):
    """bias + A @ B in one node (what ``Linear`` computes on a batch: ``x @ W.t() + b``).

    ∂/∂bias = G summed to the bias's shape, ∂/∂A = G Bᵀ, ∂/∂B = Aᵀ G.
    """

    node_name = "AddmmBackward0"
    autocast = "lowp"
    ctx_slots = ("bias_shape", "layouts")

    @staticmethod
    def forward(ctx, bias, a, b):
        _, need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(None, a if need_b else None, b if need_a else None)  # by position
        ctx.bias_shape = _shape_of(bias)
        be = backend(a, b)
        ctx.layouts = _layouts(be, a, b)
        out = be.matmul(a, b)
        be.iadd(out, bias)  # out is new: adding in place saves a temporary
        return out

    @staticmethod
    def backward(ctx, grad):
        _, a, b = ctx.saved_tensors
        need_bias = ctx.needs_input_grad[0]
        grad_bias = sum_to(grad, ctx.bias_shape) if need_bias else None
        if _is_t(grad, a, b):
            return grad_bias, (None if b is None else grad @ t(b)), (None if a is None else t(a) @ grad)
        be = backend(grad)
        a_layout, b_layout = ctx.layouts
        grad_a = None if b is None else _matmul_as(be, a_layout, grad, be.transpose(b, (1, 0)))
        grad_b = None if a is None else _matmul_as(be, b_layout, be.transpose(a, (1, 0)), grad)
        return grad_bias, grad_a, grad_b


class Mv(TensorFunction):
    """A @ v for a matrix and a vector.  ∂/∂A = g vᵀ (an outer product), ∂/∂v = Aᵀ g."""

    node_name = "MvBackward0"
    autocast = "lowp"

    @staticmethod
    def forward(ctx, a, v):
        need_a, need_v = ctx.needs_input_grad
        ctx.save_for_backward(a if need_v else None, v if need_a else None)
        return backend(a, v).matmul(a, v)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        grad_a = None if v is None else matmul(reshape(grad, (-1, 1)), reshape(v, (1, -1)))
        grad_v = None if a is None else matmul(t(a), grad)
        return grad_a, grad_v


class Dot(TensorFunction):
    """u · v for two vectors (a 0-d result).  ∂/∂u = g v, ∂/∂v = g u."""

    node_name = "DotBackward0"
    autocast = "lowp"

    @staticmethod
    def forward(ctx, u, v):
        need_u, need_v = ctx.needs_input_grad
        ctx.save_for_backward(u if need_v else None, v if need_u else None)
        return backend(u, v).matmul(u, v)

    @staticmethod
    def backward(ctx, grad):
        u, v = ctx.saved_tensors
        return (None if v is None else mul(grad, v)), (None if u is None else mul(grad, u))


# -- casts --------------------------------------------------------------------------------------
class ToCopy(TensorFunction):
    """A dtype cast (``t.to("float64")``).  The gradient flows back cast to the input's dtype."""

    node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dtype):
        return backend(x).astype(x, dtype)

    @staticmethod
    def backward(ctx, grad):
        source = ctx._next[0]._dtype  # the input's dtype (its node exists: it needs the gradient)
        if _is_t(grad):
            return grad.to(source)
        return backend(grad).astype(grad, source)


class ToDevice(TensorFunction):
    """A move to another device (``t.to("cuda")``).  The gradient is moved back."""

    node_name = "ToCopyBackward0"
    ctx_slots = ("source",)

    @staticmethod
    def forward(ctx, x, device, dtype):
        source = backend(x)
        ctx.source = source.name
        return get_backend(device).from_host(source.to_host(x), dtype)

    @staticmethod
    def backward(ctx, grad):
        if _is_t(grad):
            return grad.to(ctx.source)
        be = backend(grad)
        return get_backend(ctx.source).from_host(be.to_host(grad), be.dtype(grad))


# -- softmax and losses -------------------------------------------------------------------------
class LogSoftmax(TensorFunction):
    """log softmax along ``dim``: zᵢ − log Σⱼ exp zⱼ, computed stably.  Keeps its output y:
    ∂/∂z = g − exp(y) · Σ g."""

    node_name = "LogSoftmaxBackward0"
    autocast = "fp32"
    ctx_slots = ("dim",)

    @staticmethod
    def forward(ctx, x, dim):
        out = backend(x).log_softmax(x, dim)
        ctx.save_for_backward(out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return sub(grad, mul(exp(out), reduce_sum(grad, ctx.dim, True)))


class NllLoss(TensorFunction):
    """−mean of ``logp[i, targets[i]]`` (the negative log-likelihood of the right classes).
    ∂/∂logp is −1/N at each sample's target, 0 elsewhere."""

    node_name = "NllLossBackward0"
    autocast = "fp32"
    ctx_slots = ("shape", "dtype")

    @staticmethod
    def forward(ctx, logp, targets):
        be = backend(logp)
        ctx.save_for_backward(targets)
        ctx.shape, ctx.dtype = be.shape(logp), be.dtype(logp)
        picked = be.take_along_rows(logp, targets)
        return be.binary("div", be.unary("neg", be.sum(picked)), float(ctx.shape[0]))

    @staticmethod
    def backward(ctx, grad):
        (targets,) = ctx.saved_tensors
        targets = _data(targets)
        be = backend(targets)
        n = ctx.shape[0]
        rows = be.arange(n)
        per_row = expand(reshape(div(grad, float(-n)), (1,)), (n,))
        return scatter(per_row, ctx.shape, (rows, targets), ctx.dtype), None


class MseLoss(TensorFunction):
    """mean((pred − target)²).  ∂/∂pred = 2(pred − target)/n, ∂/∂target = −∂/∂pred."""

    node_name = "MseLossBackward0"
    autocast = "fp32"
    ctx_slots = ("shapes", "n")

    @staticmethod
    def forward(ctx, pred, target):
        be = backend(pred, target)
        ctx.save_for_backward(pred, target)
        diff = be.binary("sub", pred, target)
        ctx.shapes = (_shape_of(pred), _shape_of(target))
        ctx.n = math.prod(be.shape(diff))
        return be.binary("div", be.sum(be.binary("mul", diff, diff)), float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        pred, target = ctx.saved_tensors
        sp, st = ctx.shapes
        need_p, need_t = ctx.needs_input_grad
        g = mul(sub(pred, target), mul(grad, 2.0 / ctx.n))
        return (sum_to(g, sp) if need_p else None), (sum_to(neg(g), st) if need_t else None)


class BinaryCrossEntropy(TensorFunction):
    """−mean[y·log p + (1 − y)·log(1 − p)], each log clamped at −100 (as PyTorch).
    ∂/∂p = (p − y) / max(p(1 − p), 1e−12) / n, ∂/∂y = (log(1 − p) − log p) / n."""

    node_name = "BinaryCrossEntropyBackward0"
    autocast = "fp32"
    ctx_slots = ("n",)

    @staticmethod
    def forward(ctx, p, y):
        be = backend(p, y)
        ctx.save_for_backward(p, y)
        log_p = be.binary("maximum", be.unary("log", p), -100.0)
        log_q = be.binary("maximum", be.unary("log", be.binary("sub", 1.0, p)), -100.0)
        terms = be.binary("add", be.binary("mul", y, log_p),
                          be.binary("mul", be.binary("sub", 1.0, y), log_q))
        ctx.n = math.prod(be.shape(terms))
        return be.binary("div", be.unary("neg", be.sum(terms)), float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        p, y = ctx.saved_tensors
        need_p, need_y = ctx.needs_input_grad
        pd = _data(p)
        be = backend(pd)
        scale = div(grad, float(ctx.n))
        grad_p = grad_y = None
        if need_p:
            denom = mul(p, sub(1.0, p))
            if not _is_t(denom):
                denom = be.binary("maximum", denom, 1e-12)  # PyTorch's guard against p = 0 or 1
            grad_p = div(mul(sub(p, y), scale), denom)
        if need_y:  # ∂/∂y = log(1 − p) − log p (the clamped logs, as PyTorch)
            if _is_t(p):
                grad_y = mul(scale, sub(log(sub(1.0, p)), log(p)))
            else:
                log_p = be.binary("maximum", be.unary("log", pd), -100.0)
                log_q = be.binary("maximum", be.unary("log", be.binary("sub", 1.0, pd)), -100.0)
                grad_y = mul(scale, be.binary("sub", log_q, log_p))
        return grad_p, grad_y


class BinaryCrossEntropyWithLogits(TensorFunction):
    """−mean[y·log σ(x) + (1 − y)·log(1 − σ(x))] from logits x, stably: each term is
    (1 − y)·x + m + log(e⁻ᵐ + e⁻ˣ⁻ᵐ) with m = max(−x, 0).  ∂/∂x = (σ(x) − y)/n, ∂/∂y = −x/n."""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    autocast = "fp32"
    ctx_slots = ("n",)

    @staticmethod
    def forward(ctx, x, y):
        be = backend(x, y)
        ctx.save_for_backward(x, y)
        neg_x = be.unary("neg", x)
        m = be.binary("maximum", neg_x, 0.0)
        both = be.binary("add", be.unary("exp", be.unary("neg", m)), be.unary("exp", be.binary("sub", neg_x, m)))
        terms = be.binary("add", be.binary("mul", be.binary("sub", 1.0, y), x),
                          be.binary("add", m, be.unary("log", both)))
        ctx.n = math.prod(be.shape(terms))
        return be.binary("div", be.sum(terms), float(ctx.n))

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        scale = div(grad, float(ctx.n))
        sigmoid_x = x.sigmoid() if _is_t(x) else backend(x).unary("sigmoid", x)
        grad_x = mul(sub(sigmoid_x, y), scale) if need_x else None
        grad_y = mul(neg(x), scale) if need_y else None
        return grad_x, grad_y


# -- in place -----------------------------------------------------------------------------------
class Zero(TensorFunction):
    """``zero_()`` on a non-leaf: the output is 0, so no gradient reaches the old value."""

    node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, x):
        be = backend(x)
        return be.full(be.shape(x), 0.0, be.dtype(x))

    @staticmethod
    def backward(ctx, grad):
        return mul(grad, 0.0)
