r"""Matrix products: ``a @ b`` (``MmBackward0``, ``MvBackward0``, ``DotBackward0``) and ``Linear``'s ``Addmm``.

The ``Function``\ s first, then ``matmul``, which picks PyTorch's node from the
operands' dimensions, and the ``@`` operators ``Tensor`` is given.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .compute import TensorFunction, backend, is_tensor, matrix_product, mul, reshape, shape_of, sum_to, t
from .shapes import SqueezeDims, Unsqueeze
from .storage import cross_device

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


def _product_grads(ctx: Any, grad: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """The gradients of ``a @ b`` for two matrices (``None`` for one that needs none, whose partner was not
    saved): ∂/∂a = G bᵀ, ∂/∂b = aᵀ G, each in its input's layout."""
    if is_tensor(grad, a, b):
        return (None if b is None else grad @ t(b)), (None if a is None else t(a) @ grad)
    be = backend(grad)
    a_layout, b_layout = ctx.layouts
    grad_a = None if b is None else _matmul_as(be, a_layout, grad, be.transpose(b, (1, 0)))
    grad_b = None if a is None else _matmul_as(be, b_layout, be.transpose(a, (1, 0)), grad)
    return grad_a, grad_b


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
        return _product_grads(ctx, grad, a, b)


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
        return (grad_bias, *_product_grads(ctx, grad, a, b))


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
        grad_a = None if v is None else matrix_product(reshape(grad, (-1, 1)), reshape(v, (1, -1)))
        grad_v = None if a is None else matrix_product(t(a), grad)
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


# -- the methods ---------------------------------------------------------------------------------------
def matmul(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` with PyTorch's nodes: ``MmBackward0`` (2-D @ 2-D), ``MvBackward0`` (2-D @ 1-D),
    ``DotBackward0`` (1-D @ 1-D), and 1-D @ 2-D as unsqueeze → mm → squeeze."""
    if a._backend is not b._backend:
        cross_device(a, b) if b.ndim else cross_device(b, a)
    na, nb = a.ndim, b.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D\n"
            "What to do: use * to multiply by a scalar."
        )
    if na > 2 or nb > 2:
        raise RuntimeError(
            f"matmul here takes 1-D and 2-D operands, got {na}D and {nb}D\n"
            "What to do: reshape to 2-D (x.reshape(-1, x.shape[-1])) and back."
        )
    inner_a, inner_b = a.shape[-1], b.shape[0]
    if inner_a != inner_b:
        what = "size mismatch" if na == nb == 1 else "mat1 and mat2 shapes cannot be multiplied"
        raise RuntimeError(
            f"{what} ({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})\n"
            "What to do: the last size of the left operand must equal the first size of the right one."
        )
    if na == 2:
        return (Mm if nb == 2 else Mv).apply(a, b)
    if nb == 1:
        return Dot.apply(a, b)
    row = a._view(Unsqueeze, shape=(1, inner_a))
    return Mm.apply(row, b)._view(SqueezeDims, shape=(b.shape[1],))


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
