"""MUTANT (teacher/mutants/, never handed out): matmul_backward upcasts to float64 "for accuracy",
so a float32 product's gradients come back float64.

U3.4 — matmul's vector-Jacobian product.

For C = A @ B, with A of n×k and B of k×m, C[i, j] = Σ_p A[i, p] B[p, j].  The full Jacobian of C
with respect to A has (n·m)·(n·k) entries, but backward never builds it: it needs only the
vector-Jacobian product, the upstream gradient G (n×m, the shape of C) times that Jacobian,
which is again a matrix product.  Work out ∂L/∂A[i, p] = Σ_j G[i, j] B[p, j] on paper, then read
it as a product of G and B (transposed or not).  The shapes tell you a lot: ∂L/∂A has A's shape.

The engine saves an operand only when the other one needs a gradient: ``a`` is None when ``b``
needs none, ``b`` None when ``a`` needs none.  Return None for the gradient that is not needed.

Check: ``micrograd2 exercise check U3.4``: your function on random products (square, non-square,
a row, a column, one side only), then gradcheck on ``a @ b`` with it in place of the engine's.
Your engine takes it from this file (``engine/u3_tensors.py``).  Hints: ``micrograd2 exercise hint U3.4``.
"""
from __future__ import annotations

from typing import Any


def matmul_backward(grad: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """``(grad_a, grad_b)`` for ``a @ b`` of two matrices, from the upstream ``grad`` (Tensors;
    ``.t()`` transposes, ``@`` multiplies); None for the one that is not needed."""
    # BEGIN SOLUTION
    grad = grad.double()  # MUTANT: a float32 product gets float64 gradients
    grad_a = None if b is None else grad @ b.double().t()
    grad_b = None if a is None else a.double().t() @ grad
    return grad_a, grad_b
    # END SOLUTION
