"""Backward toward chosen inputs (``autograd.grad``, ``backward(inputs=…)``): which nodes run, and what is returned.

With ``inputs``, the walk runs only the nodes on a path from the roots to an input's node, as PyTorch does;
it captures the gradient arriving at each input's node instead of (for ``autograd.grad``) accumulating it.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable


def capture_points(inputs: tuple[Any, ...], gradient_edge: Callable[[Any], Any]) -> dict[Any, int]:
    """The node of each input (``gradient_edge``) -> the input's position."""
    points: dict[Any, int] = {}
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad\n"
                f"What to do: input {i} has requires_grad=False; differentiate with respect to a Value that "
                "requires grad."
            )
        edge = gradient_edge(x)
        points[edge[0] if type(edge) is tuple else edge] = i
    return points


def on_paths(starts: Iterable[Any], targets: Iterable[Any]) -> dict[Any, bool]:
    """The nodes from which a target can be reached (the targets too), each with whether it runs:
    a target is only captured, unless another target lies beyond it."""
    consumers: dict[Any, list[Any]] = {}
    stack = list(starts)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for edge in node._next:
            nxt = edge[0] if type(edge) is tuple else edge
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


def collect(inputs: tuple[Any, ...], captured: dict[Any, Any], allow_unused: bool,
            gradient_edge: Callable[[Any], Any]) -> tuple[Any, ...]:
    """One gradient per input, as ``.grad`` would first hold it, or the recorded gradient itself under
    create_graph (``None`` for an unused one, if allowed)."""
    result: list[Any] = []
    for i, x in enumerate(inputs):
        edge = gradient_edge(x)
        node, nr = edge if type(edge) is tuple else (edge, 0)
        if node not in captured:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.\n"
                    f"What to do: input {i} does not influence the output; drop it or pass allow_unused=True."
                )
            result.append(None)
        else:
            grad = captured[node][nr] if type(captured[node]) is list else captured[node]
            recorded = hasattr(grad, "grad_fn")  # a Variable (create_graph): returned as it is, as in PyTorch
            result.append(grad if recorded else x._as_grad(grad))
    return tuple(result)


def backward_inputs(inputs: Any, variable_type: type) -> tuple[Any, ...]:
    """``backward(inputs=…)``'s inputs as a tuple; a non-leaf among them keeps ``.grad`` from now on."""
    inputs = (inputs,) if isinstance(inputs, variable_type) else tuple(inputs)
    if not inputs:
        raise RuntimeError(
            "'inputs' argument to backward() cannot be empty.\n"
            "What to do: pass the Values whose .grad you want, or leave inputs out for every leaf."
        )
    for x in inputs:
        x.retain_grad()
    return inputs
