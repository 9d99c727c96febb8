"""What the core asks of an engine: the ``Engine`` Protocol that ``Value`` and ``Tensor`` meet,
and the types of what flows through a graph (``Data``, ``Gradient``, an ``Array``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar, Union

if TYPE_CHECKING:
    from .node import Node
    from .pieces import Pieces
    from .variable import Variable

E = TypeVar("E", bound="Engine")


class Array(Protocol):
    """An array as the core sees one (NumPy's, or a GPU backend's): it has a shape and a dtype,
    and ``float(a)`` reads a one-element array. The core imports no array library."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> object: ...

    def __float__(self) -> float: ...


Data = Union[float, Array]  # what a Variable holds: a float (a Value's) or an array (a Tensor's)
# A gradient: a float (a Value's), or a Variable (a Tensor's, and a Value's while a backward
# records). A Tensor graph carries Tensors, never bare arrays (NOTE [Backward on Tensors]).
Gradient = Union[float, "Variable"]
Captured = dict["Node", Sequence[Gradient | None]]  # autograd.grad's: per node, one per output
Walker = Callable[..., Captured]  # a backward walk (engine.py's reference_walk)


class Engine(Protocol):
    """What the core asks of an engine's Variable class (``Value``, ``Tensor``).

    ``Variable`` gives each a default; an engine overrides what its data needs."""

    backward_receives_variables: ClassVar[bool]  # NOTE [What backward receives] (function.py)
    pieces: ClassVar[Pieces]  # the pieces the core calls for its graphs (pieces.py)

    @classmethod
    def _wrap(cls, data: Data, dtype: str | None, grad_fn: Node | None) -> Variable:
        """A new Variable holding ``data`` rounded to ``dtype``, made by ``grad_fn``.

        ``grad_fn`` is None for a leaf."""

    @staticmethod
    def _promote(a: str, b: str) -> str:
        """The dtype of an op on inputs of dtypes ``a`` and ``b`` (``Function.apply``)."""

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

    def _assign(self, data: Data) -> None:
        """Replace the data in place (an array is written into; a float is replaced)."""

    def _snapshot(self) -> Variable:
        """A twin holding this data and history now: what an in-place op saves of the old self."""

    def _in_place(self: E, fn: InPlaceOp, *others: object) -> E:
        """Apply ``fn`` to ``(self, *others)`` and make self hold the result (custom.py's
        ``mark_dirty``)."""

    def _rebase(self, node: Node, output_nr: int = 0) -> None:
        """Self's history becomes output ``output_nr`` of ``node``, after an in-place op."""

    def _bump_version(self) -> None:
        """Count one more in-place change of the data."""

    def _share_version_counter(self, source: Variable) -> None:
        """Count in-place changes together with ``source`` (they share data)."""


class InPlaceOp(Protocol):
    """What ``_in_place`` applies: a Function, or anything with its ``apply``."""

    def apply(self, old: Variable, *others: object) -> Variable: ...
