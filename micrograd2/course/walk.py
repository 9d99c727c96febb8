"""A student's ``walk`` as the core's walk piece: the student orders the visits, the core visits.

The student's contract (docs/course.md) is ``walk(roots, grads, visit)``; the core's walk piece
is ``walk(engine, starts, retain_graph, captures, pass_no)``. ``student_walk`` joins them: it
hands the student the core's own ``Walk.visit``, so hooks, events, anomaly checks and freeing stay
the core's, and the tracer narrates the student's order.
"""
from __future__ import annotations

from typing import Any, Callable

from ..autograd.engine import Start, Walk
from ..autograd.input_buffer import InputBuffer
from ..autograd.node import Node
from ..autograd.protocol import Captured, Engine, Gradient

# walk(roots, grads, visit): a gradient, or an ``OutputGradients``, travels along each edge
StudentWalk = Callable[[list[Node], list[object], Callable[..., tuple[object, ...]]], object]


# NOTE [A student's walk and nodes of several outputs]
# A student's walk sums what each edge delivers into a node, ``buffer[nxt] + grad``, and hands the
# total to ``visit``.  A node of several outputs (``unbind``, a custom Function returning two) needs
# one sum per output instead.  So what ``visit`` returns along an edge into such a node is an
# ``OutputGradients``: the gradient in its output's slot, ``None`` in the others, added slot by
# slot.  The student's ``+`` then keeps the outputs apart, and ``visit`` unpacks the slots again.
class OutputGradients(tuple):  # type: ignore[type-arg]
    """One gradient per output of a node of several outputs; ``+`` adds slot by slot."""

    def __add__(self, other: object) -> OutputGradients:
        if not isinstance(other, OutputGradients):
            return NotImplemented
        return OutputGradients(b if a is None else a if b is None else a + b
                               for a, b in zip(self, other))

    __radd__ = __add__

    @classmethod
    def one(cls, node: Any, nr: int, grad: Gradient) -> OutputGradients:
        """``grad`` in output ``nr``'s slot of ``node``, ``None`` in the others."""
        return cls(grad if k == nr else None for k in range(len(node.outputs)))


def several(node: Node | None) -> bool:
    """Is ``node`` one of several outputs, whose gradients travel as ``OutputGradients``?"""
    return node is not None and node.several_outputs


def student_walk(walk: StudentWalk, engine: type[Engine], starts: list[Start],
                 retain_graph: bool, captures: dict[Node, int] | None,
                 pass_no: int) -> Captured:
    """One backward pass by a student's ``walk(roots, grads, visit)``, visiting with the core's
    own ``Walk.visit``; returns what ``autograd.grad`` captured."""
    core = Walk(engine, starts, retain_graph, captures, pass_no)

    def visit(node: Node, grad: Gradient | OutputGradients | None) -> tuple[object, ...]:
        edges = node.next_functions
        if not core.reaches(node):  # off autograd.grad's paths
            return (None,) * len(edges)
        buffer = InputBuffer(node, engine)  # the core's: it rounds to the node's dtype
        for nr, g in enumerate(grad if isinstance(grad, OutputGradients) else (grad,)):
            if g is not None:
                buffer.add(nr, g)
        grads = core.visit(node, buffer.grads)
        return tuple(  # NOTE [A student's walk and nodes of several outputs]
            OutputGradients.one(nxt, nr, g) if g is not None and several(nxt) else g
            for g, (nxt, nr) in zip(grads, edges))

    seeds: list[object] = [OutputGradients.one(node, nr, grad) if several(node) else grad
             for node, nr, grad in starts]
    walk([node for node, _, _ in starts], seeds, visit)
    return core.captured
