"""Where the walk adds up the gradients that reach a node: one ``InputBuffer`` per node, with one
slot per output of the node (PyTorch's ``InputBuffer``).

Most nodes have one output, so one slot. A node of several outputs (``unbind``, a custom Function
that returns two) has one slot each: the edge ``(node, k)`` delivers into slot ``k``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from .function import BackwardNode
    from .node import Node
    from .protocol import Engine, Gradient


class InputBuffer:
    """The gradients delivered so far to one node during a backward pass, one per output.

    ``grads[k]`` is ``None`` until a gradient for output ``k`` arrives."""

    __slots__ = ("grads", "engine", "dtype")

    def __init__(self, node: Node, engine: type[Engine]) -> None:
        # one slot per output: several only for a node of custom.py's outputs (a BackwardNode)
        self.grads: list[Gradient | None] = ([None] * len(cast("BackwardNode", node)._outputs)
                                      if node._per_output else [None])
        self.engine, self.dtype = engine, node._dtype  # the engine rounds and adds

    def add(self, nr: int, grad: Gradient) -> None:
        """Add ``grad`` into output ``nr``'s slot, rounded to the node's dtype."""
        engine, earlier = self.engine, self.grads[nr]
        grad = engine._round_gradient(grad, self.dtype)
        if earlier is not None:
            grad = engine._round_gradient(engine._add_gradients(earlier, grad), self.dtype)
        self.grads[nr] = grad
