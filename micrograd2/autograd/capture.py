"""Backward toward chosen inputs (``autograd.grad``, ``backward(inputs=…)``).

This file says which nodes run, and what is returned. With ``inputs``, the walk runs only the
nodes on a path from the roots to an input's node, as PyTorch does. It captures the gradient
arriving at each input's node, instead of accumulating it (for ``autograd.grad``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Union, cast

from .node import Node, gradient_node
from .protocol import Captured, Gradient

if TYPE_CHECKING:
    from .variable import Variable

Inputs = Union["Variable", Iterable["Variable"]]  # one Variable, or several


def capture_points(inputs: tuple[Variable, ...]) -> dict[Node, int]:
    """The node of each input -> the input's position."""
    points: dict[Node, int] = {}
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad\n"
                f"What to do: input {i} has requires_grad=False; "
                "differentiate with respect to a Value that requires grad."
            )
        points[gradient_node(x)] = i
    return points


def on_paths(starts: Iterable[Node], targets: Iterable[Node]) -> dict[Node, bool]:
    """The nodes from which a target can be reached (the targets too), each with whether it runs.

    A target is only captured, unless another target lies beyond it."""
    consumers: dict[Node, list[Node]] = {}
    stack = list(starts)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for nxt in node._next_nodes:
            if nxt is not None:
                consumers.setdefault(nxt, []).append(node)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    keep = {target: False for target in targets if target in seen}
    stack = list(keep)
    while stack:
        for parent in consumers.get(stack.pop(), ()):
            if parent not in keep:
                stack.append(parent)
            keep[parent] = True  # it runs: a target lies beyond it
    return keep


def collect(inputs: tuple[Variable, ...], captured: Captured,
            allow_unused: bool) -> tuple[Gradient | None, ...]:
    """One gradient per input, as ``.grad`` would first hold it (``None`` for an unused one, if
    allowed).

    Under create_graph it is the recorded gradient itself."""
    result: list[Gradient | None] = []
    for i, x in enumerate(inputs):
        node = gradient_node(x)
        grad = captured[node][x.output_nr] if node in captured else None
        if grad is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior.\n"
                    f"What to do: input {i} does not influence the output; "
                    "drop it or pass allow_unused=True."
                )
            result.append(None)
        else:
            recorded = hasattr(grad, "grad_fn")  # a Variable (create_graph): returned as it is
            result.append(grad if recorded else x._as_grad(grad))
    return tuple(result)


def backward_inputs(inputs: Inputs, variable_type: type[Variable]) -> tuple[Variable, ...]:
    """``backward(inputs=…)``'s inputs (``Inputs``: one Variable, or several) as a tuple.

    A non-leaf among them keeps ``.grad`` from now on."""
    several = cast("Iterable[Variable]", inputs)  # unless it is one Variable (a Tensor iterates)
    chosen = (inputs,) if isinstance(inputs, variable_type) else tuple(several)
    if not chosen:
        raise RuntimeError(
            "'inputs' argument to backward() cannot be empty.\n"
            "What to do: pass the Values whose .grad you want, or leave inputs out for every leaf."
        )
    for x in chosen:
        x.retain_grad()
    return chosen
