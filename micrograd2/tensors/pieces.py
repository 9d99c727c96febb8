"""The Tensor engine's pieces: the core's four, and the four a Tensor graph adds (docs/course.md).

``Tensor.pieces`` is the record the Tensor ops call for them: ``sum_to`` (broadcasting's
backward), the backward of the sum and mean reductions, and matmul's vector-Jacobian product.
``REFERENCE`` holds the engine's own, each defined beside its op; a student's record is built in
``micrograd2/course/``.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable

from ..autograd import pieces as core
from .linalg import matmul_backward
from .reductions import mean_backward, sum_backward

if TYPE_CHECKING:
    from .tensor import Tensor

Shape = tuple[int, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class TensorPieces(core.Pieces):
    """The core's pieces (``autograd/pieces.py``) and the Tensor ops' own four.

    * ``sum_to(grad, shape)``: ``grad`` summed down to ``shape`` (the reverse of broadcasting).
    * ``sum_backward(grad, shape, kept)``, ``mean_backward(grad, shape, kept)``: the gradient of
      a sum or mean of an input of ``shape``; ``kept`` is ``shape`` with the reduced axes as 1.
    * ``matmul_backward(grad, a, b, layouts)``: ``(∂/∂a, ∂/∂b)`` of ``a @ b`` for two matrices,
      ``None`` for one that needs none; ``layouts``: each input's layout (``linalg.Mm``).
    """

    sum_to: Callable[[Tensor, Shape], Tensor]
    sum_backward: Callable[[Tensor, Shape, Shape], Tensor]
    mean_backward: Callable[[Tensor, Shape, Shape], Tensor]
    matmul_backward: Callable[..., tuple[Any, Any]]


def sum_to(grad: Tensor, shape: Shape) -> Tensor:
    """The engine's ``sum_to``: ``Tensor.sum_to_size``."""
    return grad.sum_to_size(shape)


def core_pieces(pieces: core.Pieces) -> dict[str, Any]:
    """The core's fields of ``pieces``, by name: the start of a Tensor record built from it."""
    return {field.name: getattr(pieces, field.name) for field in dataclasses.fields(core.Pieces)}


REFERENCE = TensorPieces(**core_pieces(core.REFERENCE), sum_to=sum_to, sum_backward=sum_backward,
                         mean_backward=mean_backward, matmul_backward=matmul_backward)
