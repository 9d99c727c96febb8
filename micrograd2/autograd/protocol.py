"""What the core asks of an engine: the ``Engine`` Protocol that ``Value`` and ``Tensor`` meet,
and the types of what flows through a graph (``Data``, ``Gradient``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from .node import Node
    from .pieces import Pieces

Data = Any  # what a Variable holds: a float (a Value's) or an array (a Tensor's)
Gradient = Any  # a float or an array; a Value or a Tensor while a backward records
Walker = Callable[..., "dict[Node, Gradient]"]  # a backward walk (engine.py's reference_walk)


class Engine(Protocol):
    """What the core asks of an engine's Variable class (``Value``, ``Tensor``).

    ``Variable`` gives each a default; an engine overrides what its data needs."""

    backward_receives_variables: ClassVar[bool]  # NOTE [What backward receives] (function.py)
    pieces: ClassVar[Pieces]  # the pieces the core calls for its graphs (pieces.py)

    @classmethod
    def _wrap(cls, data: Data, dtype: str | None, grad_fn: Node | None) -> Any:
        """A new Variable holding ``data`` rounded to ``dtype``, made by ``grad_fn``.

        ``grad_fn`` is None for a leaf."""

    @classmethod
    def _round_gradient(cls, grad: Gradient, dtype: str) -> Gradient:
        """The gradient ``grad`` rounded to ``dtype`` (itself for float64)."""

    @classmethod
    def _add_gradients(cls, a: Gradient, b: Gradient) -> Gradient:
        """``a + b`` for two gradients of one Variable."""

    @classmethod
    def _zeros_like(cls, data: Data, dtype: str) -> Gradient:
        """A zero gradient of ``data``'s shape, in ``dtype``."""

    def _seed(self, gradient: object) -> Gradient:
        """The gradient a backward from this Variable starts with."""

    def _as_grad(self, grad: Gradient) -> Gradient:
        """What ``.grad`` holds for the gradient ``grad`` of the walk: a fresh copy."""

    def _accumulate(self, grad: Gradient) -> Gradient:
        """``.grad`` after adding ``grad`` into it (a fresh copy the first time)."""
