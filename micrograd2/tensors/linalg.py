r"""Matrix products: ``a @ b`` (``MmBackward0``, ``MvBackward0``, ``DotBackward0``, ``BmmBackward0``) and ``Addmm``.

The ``Function``\ s first, then ``matmul``, which builds PyTorch's graph from the
operands' dimensions (and, for batches, from their memory layout, as PyTorch's
``_matmul_impl``: a batch folded into one matrix product when that needs no copy,
else broadcast, ``expand``\ ed and multiplied by ``bmm``), and the ``@`` operators
``Tensor`` is given.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..autograd import Function, grad_mode
from .compute import backend, broadcast_shape, shape_of, shapes_differ, sum_to
from .shapes import SqueezeDims, UnsafeView, Unsqueeze
from .storage import cross_device
from .strides import strides_of

if TYPE_CHECKING:
    from .tensor import Tensor


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


def matmul_backward(grad: Tensor, a: Tensor | None, b: Tensor | None,
                    layouts: tuple[bool, bool] = (False, False)) -> tuple[Any, Any]:
    """The gradients of ``a @ b`` for two matrices: ∂/∂a = G bᵀ, ∂/∂b = aᵀ G, each made in its
    input's layout (``Mm``'s ``column_major``). ``None`` for one that needs none: its partner was
    not saved. ``Mm``'s backward hands its gradient to the engine's pieces (tensors/pieces.py)."""
    grad_a = None if b is None else Mm.apply(grad, b.t(), column_major=layouts[0])
    grad_b = None if a is None else Mm.apply(a.t(), grad, column_major=layouts[1])
    return grad_a, grad_b


class Mm(Function):
    """A @ B for two matrices.  ∂/∂A = G Bᵀ, ∂/∂B = Aᵀ G.  ``column_major``: the product is made in
    that layout (a gradient for a column-major input: ``_matmul_as``)."""

    node_name = "MmBackward0"
    saved_names = ("self", "mat2")
    autocast = "lowp"
    ctx_slots = ("layouts",)

    @staticmethod
    def forward(ctx, a, b, column_major=False):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        be = backend(a, b)
        ctx.layouts = _layouts(be, a, b)
        return _matmul_as(be, column_major, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad.pieces.matmul_backward(grad, a, b, ctx.layouts)


class Addmm(Function):
    """bias + A @ B in one node (what ``Linear`` computes on a batch: ``x @ W.t() + b``).

    ∂/∂bias = G summed to the bias's shape, ∂/∂A = G Bᵀ, ∂/∂B = Aᵀ G.
    """

    node_name = "AddmmBackward0"
    saved_names = ("self", "mat1", "mat2")
    autocast = "lowp"
    ctx_slots = ("bias_shape", "layouts")

    @staticmethod
    def forward(ctx, bias, a, b):
        _, need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(None, a if need_b else None, b if need_a else None)  # by position
        ctx.bias_shape = shape_of(bias)
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
        return (grad_bias, *matmul_backward(grad, a, b, ctx.layouts))


class Mv(Function):
    """A @ v for a matrix and a vector.  ∂/∂A = g vᵀ (an outer product), ∂/∂v = Aᵀ g."""

    node_name = "MvBackward0"
    saved_names = ("self", "vec")
    autocast = "lowp"

    @staticmethod
    def forward(ctx, a, v):
        need_a, need_v = ctx.needs_input_grad
        ctx.save_for_backward(a if need_v else None, v if need_a else None)
        return backend(a, v).matmul(a, v)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        grad_a = None if v is None else grad.reshape(-1, 1) @ v.reshape(1, -1)
        grad_v = None if a is None else a.t() @ grad
        return grad_a, grad_v


class Dot(Function):
    """u · v for two vectors (a 0-d result).  ∂/∂u = g v, ∂/∂v = g u."""

    node_name = "DotBackward0"
    saved_names = ("self", "tensor")
    autocast = "lowp"

    @staticmethod
    def forward(ctx, u, v):
        need_u, need_v = ctx.needs_input_grad
        ctx.save_for_backward(u if need_v else None, v if need_u else None)
        return backend(u, v).matmul(u, v)

    @staticmethod
    def backward(ctx, grad):
        u, v = ctx.saved_tensors
        return (None if v is None else grad * v), (None if u is None else grad * u)


class Bmm(Function):
    """A @ B for two stacks of matrices, (b, n, m) @ (b, m, p): one product per batch index.
    ∂/∂A = G Bᵀ, ∂/∂B = Aᵀ G, batch by batch (Bᵀ swaps each matrix's two axes)."""

    node_name = "BmmBackward0"
    saved_names = ("self", "mat2")
    autocast = "lowp"

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return stacked_product(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = None if b is None else Bmm.apply(grad, b.transpose(1, 2))  # (Bᵀ: each matrix's)
        grad_b = None if a is None else Bmm.apply(a.transpose(1, 2), grad)
        return grad_a, grad_b


SMALL_BMM = 400  # PyTorch's bmm sums term by term below this many multiply-adds per matrix (m·n·p)


def stacked_product(a: Any, b: Any) -> Any:
    """(b, n, m) @ (b, m, p) on arrays with PyTorch's rounding: below ``SMALL_BMM`` multiply-adds per
    product, its loop (acc = 0, then acc += a[:, :, k]·b[:, k, :] for k in order, each step rounded);
    above, one matrix product per batch index, as the backend's ``matmul`` computes it."""
    be = backend(a, b)
    (count, n, m), p = be.shape(a), be.shape(b)[2]
    if m * n * p >= SMALL_BMM or be.dtype(a) not in ("float32", "float64") or be.dtype(b) != be.dtype(a):
        return be.matmul(a, b)
    if m == 0:
        return be.full((count, n, p), 0.0, be.dtype(a))
    every = slice(None)
    acc: Any = 0.0
    for k in range(m):
        term = be.binary("mul", be.getitem(a, (every, every, slice(k, k + 1))), be.getitem(b, (every, slice(k, k + 1))))
        acc = be.binary("add", acc, term)
    return acc


# -- the methods ---------------------------------------------------------------------------------------
def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` with PyTorch's nodes: ``MmBackward0`` (2-D @ 2-D), ``MvBackward0`` (2-D @ 1-D),
    ``DotBackward0`` (1-D @ 1-D), 1-D @ 2-D as unsqueeze → mm → squeeze, and batches (an operand of 3
    or more dims) as PyTorch's ``_matmul_impl`` does them (``batched``)."""
    if a._backend is not b._backend:
        cross_device(a, b) if b.ndim else cross_device(b, a)
    same_dtype(a, b, "expected m1 and m2 to have the same dtype, but got: {} != {}", C_NAMES)
    na, nb = a.ndim, b.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D\n"
            "What to do: use * to multiply by a scalar."
        )
    if na > 2 or nb > 2:
        return batched(a, b)
    inner_a, inner_b = a.shape[-1], b.shape[0]
    if inner_a != inner_b:
        raise RuntimeError(_mismatch(a.shape, b.shape) + "\nWhat to do: the last size of the left operand "
                           "must equal the first size of the right one (transpose one with .T or .mT).")
    if na == 2:
        return (Mm if nb == 2 else Mv).apply(a, b)
    if nb == 1:
        return Dot.apply(a, b)
    row = a._view(Unsqueeze, shape=(1, inner_a))
    return Mm.apply(row, b)._view(SqueezeDims, shape=(b.shape[1],))


C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
           "int64": "long int", "bool": "bool"}  # the C++ names PyTorch's errors print
TITLES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
          "int64": "Long", "bool": "Bool"}


def same_dtype(a: Tensor, b: Tensor, message: str, names: dict[str, str]) -> None:
    """PyTorch's ``RuntimeError`` for a matrix product of two dtypes: it multiplies, it does not promote.
    (Under autocast both are cast to one dtype first, so nothing is refused there.)"""
    if a.dtype != b.dtype and grad_mode.autocast_policy() is None:
        raise RuntimeError(message.format(names.get(a.dtype, a.dtype), names.get(b.dtype, b.dtype))
                           + f"\nWhat to do: convert one operand first, e.g. b.to({a.dtype!r}).")


def _mismatch(sa: tuple[int, ...], sb: tuple[int, ...]) -> str:
    """PyTorch's words for two operands whose inner sizes differ (``mm``'s, ``mv``'s, ``dot``'s)."""
    if len(sa) == len(sb) == 1:
        return (f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the same number "
                f"of elements, but got {sa[0]} and {sb[0]} elements respectively")
    if len(sb) == 1:
        return f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec ({sb[0]})"
    rows = sa if len(sa) == 2 else (1, sa[0])
    return f"mat1 and mat2 shapes cannot be multiplied ({rows[0]}x{rows[1]} and {sb[0]}x{sb[1]})"


def batched(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` when an operand has 3 or more dims, as PyTorch's ``_matmul_impl``: folded into one
    ``mm``/``mv`` when the batch of the larger operand can be read as rows (``_should_fold``), else
    the batch dims broadcast, both operands expanded and reshaped to stacks, and one ``bmm``."""
    if _should_fold(a, b):
        return _folded(a, b)
    na, nb = a.ndim, b.ndim
    n, m1 = (a.shape[-2] if na > 1 else 1), a.shape[-1]
    m2, p = (b.shape[-2] if nb > 1 else b.shape[0]), (b.shape[-1] if nb > 1 else 1)
    batch_a, batch_b = a.shape[:max(na - 2, 0)], b.shape[:max(nb - 2, 0)]
    if na == 3 and nb == 3 and batch_a[0] != batch_b[0]:  # a batch of one that needs a gradient: squeezed
        if batch_a[0] == 1 and a.requires_grad:
            return matmul(a.squeeze(0), b)
        if batch_b[0] == 1 and b.requires_grad:
            return matmul(a, b.squeeze(0))
    batch = broadcast_shape(batch_a, batch_b)
    if batch is None:
        raise shapes_differ(batch_a, batch_b)
    count = math.prod(batch)
    stack_a = a.expand(*batch, n, m1).reshape(count, n, m1)
    if nb == 1:
        stack_b = b.expand(*batch, m2).reshape(count, m2).unsqueeze(2)
    else:
        stack_b = b.expand(*batch, m2, p).reshape(count, m2, p)
    if m1 != m2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{count}, {m1}] but got: "
            f"[{count}, {m2}].\nWhat to do: the last size of the left operand must equal the next-to-last "
            "size of the right one."
        )
    out = Bmm.apply(stack_a, stack_b)
    if nb == 1:
        out = out.squeeze(-1)
    shape = batch + ((n,) if na > 1 else ()) + ((p,) if nb > 1 else ())
    return UnsafeView.apply(out, shape=shape)  # type: ignore[no-any-return]


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``should_fold``: one operand has 3+ dims and the other 1 or 2, and either the smaller one
    needs a gradient (folding keeps its gradient a matrix), or the larger one's batch reads as rows with
    no copy (each batch stride is the next one's times its size)."""
    a_larger = a.ndim >= b.ndim
    larger, smaller = (a, b) if a_larger else (b, a)
    if not (larger.ndim >= 3 and smaller.ndim <= 2):
        return False
    if smaller.requires_grad:
        return True
    if a.ndim == 2:
        return False
    shape, steps = larger.shape, strides_of(larger)
    if not a_larger:  # PyTorch looks at b.mT: its last two axes swapped
        shape, steps = shape[:-2] + shape[-2:][::-1], steps[:-2] + steps[-2:][::-1]
    if not math.prod(shape):
        return True
    return all(steps[i] == steps[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded(a: Tensor, b: Tensor) -> Tensor:
    """The batch folded into rows: ``(…, n, m) @ (m, p)`` as one ``(… · n, m) @ (m, p)`` (the other way
    round, ``bᵀ @ aᵀ``, when the larger operand is on the right), reshaped back."""
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    rows = t1.shape[:-1]
    folded = t1.reshape(math.prod(rows), t1.shape[-1])
    if t2.ndim == 2:
        out: Tensor = UnsafeView.apply(matmul(folded, t2), shape=rows + (t2.shape[1],))
        return out.mT.contiguous() if transpose else out
    return UnsafeView.apply(matmul(folded, t2), shape=rows)  # type: ignore[no-any-return]


def _matrix_operand(x: Tensor, other: Any) -> Any:
    """``other`` as a Tensor next to ``x`` for ``@`` (lists and arrays become Tensors of x's dtype)."""
    o = other if isinstance(other, type(x)) else x._operand(other)
    if o is NotImplemented or isinstance(o, type(x)):
        return o
    return type(x)(o, dtype=x.dtype, device=x.device)


def matmul_operator(x: Tensor, other: Any) -> Any:
    """``x @ other``."""
    o = _matrix_operand(x, other)
    return NotImplemented if o is NotImplemented else matmul(x, o)


def rmatmul_operator(x: Tensor, other: Any) -> Any:
    """``other @ x`` (``other`` not a Tensor)."""
    o = _matrix_operand(x, other)
    return NotImplemented if o is NotImplemented else matmul(o, x)


def mm(x: Tensor, other: Tensor) -> Tensor:
    """The product of two matrices (``MmBackward0``); PyTorch's error for anything else."""
    for t, name in ((x, "self"), (other, "mat2")):
        if not isinstance(t, type(x)) or t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix\nWhat to do: mm multiplies two 2-D Tensors; use matmul (@) "
                               "for vectors and batches.")
    return matmul(x, other)
