"""The backward walk: one pass over the graph, in reverse topological order, without recursion.

1. Count, for every node reachable from the roots, how many edges bring it a
   gradient (an explicit stack, never recursion: 10^6-node graphs work).
2. Keep the gradients of non-leaves in a buffer local to this call; a node is
   *ready* once every edge into it has delivered.
3. Among ready nodes, visit the one created last first (a priority on creation
   order, as PyTorch's CPU engine); a leaf's ``AccumulateGrad`` runs as soon as
   its gradient is complete.
4. Visiting a node runs its hooks, then its Function's ``backward``, sends each
   input its gradient, and (without ``retain_graph``) frees what it saved.

Only leaves that require grad (and ``retain_grad()`` Values) get ``.grad``.
"""
from __future__ import annotations

import heapq
from typing import Any, Iterable

from ..dtypes import FLOAT64  # the dtype whose gradients are never rounded
from . import anomaly, events, grad_mode
from .node import FREED, HOOKS, AccumulateGrad, Node
from .variable import Variable, _RetainGrad

NO_GRAD_FN = (
    "element 0 of tensors does not require grad and does not have a grad_fn\n"
    "What to do: make sure a leaf it was computed from has requires_grad=True and that it was not "
    "computed under no_grad() or from a detach()ed value."
)

# Rounding a gradient to its Value's dtype: functions by gradient type, registered by the engines
# (float -> micrograd2.dtypes.round_to).  float64 gradients never reach them.
gradient_rounders: dict[type, Any] = {}

# Turning a sum of two gradients of one type back into that type, where adding changes it (NumPy adds
# two 0-d arrays up to a NumPy scalar): functions by gradient type, registered by the engines.
gradient_types: dict[type, Any] = {}


def run_backward(roots: Iterable[Any], grads: Iterable[Any], retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: tuple[Any, ...] | None = None,
                 allow_unused: bool = False) -> tuple[Any, ...] | None:
    """Backpropagate ``grads`` from ``roots``.

    With ``inputs`` (``autograd.grad``), return the gradient of each input instead of
    accumulating into ``.grad``.
    """
    if retain_graph is None:
        retain_graph = create_graph
    roots = tuple(roots)
    if create_graph:  # a recorded backward computes on Values/Tensors from its very first gradient
        grads = [g if isinstance(g, Variable) else root._wrap(g, root.dtype, None) for root, g in zip(roots, grads)]
    starts = [(_start_node(root), g) for root, g in zip(roots, grads)]
    captures = _capture_points(inputs) if inputs is not None else None
    pass_no = events.next_pass_number()
    if events.listening:
        events.emit("backward_start", roots=tuple(roots), grads=tuple(g for _, g in starts), pass_no=pass_no)
    failed = True
    try:
        with grad_mode.set_grad_enabled(create_graph):
            captured = _walk(starts, retain_graph, captures, pass_no)
        failed = False
    finally:
        if events.listening:
            events.emit("backward_end", pass_no=pass_no, failed=failed)
    if inputs is None:
        return None
    return _collect(inputs, captures, captured, allow_unused)


def _start_node(root: Any) -> Node:
    node = root.grad_fn
    if node is None:
        if not root.requires_grad:
            raise RuntimeError(NO_GRAD_FN)
        node = root._accumulator or root._make_accumulator()
    return node


def count_dependencies(starts: Iterable[Node]) -> dict[Node, int]:
    """For each node reachable from ``starts``: how many edges lead into it."""
    deps: dict[Node, int] = {}
    stack = list(starts)
    for node in stack:
        deps.setdefault(node, 0)
    pop, push, seen = stack.pop, stack.append, deps.get
    while stack:
        for nxt in pop()._next:
            if nxt is not None:
                count = seen(nxt)
                if count is None:
                    deps[nxt] = 1
                    push(nxt)
                else:
                    deps[nxt] = count + 1
    return deps


def _walk(starts: list[tuple[Node, Any]], retain_graph: bool, captures: dict[Node, Any] | None,
          pass_no: int) -> dict[Node, Any]:
    deps = count_dependencies(node for node, _ in starts)
    buffer: dict[Node, Any] = {}  # gradients waiting: for more edges to deliver, or in ``ready``
    node: Any
    for node, g in starts:  # a seed is a gradient too: rounded to its root's dtype (and so is a sum of two)
        if node._dtype != FLOAT64:
            g = _round(g, node._dtype)
        if node in buffer:
            earlier = buffer[node]
            g = _typed_like(earlier, earlier + g)
            if node._dtype != FLOAT64:
                g = _round(g, node._dtype)
        buffer[node] = g
    ready: list[tuple[float, Any]] = [(-node._seq, node) for node in buffer if deps[node] == 0]
    heapq.heapify(ready)
    captured: dict[Node, Any] = {}
    listening = events.listening
    watched = bool(HOOKS.data) or captures is not None or listening or anomaly.enabled  # type: ignore[attr-defined]
    pop = heapq.heappop
    node = pop(ready)[1] if ready else None
    grad = buffer.pop(node, None)
    while node is not None:
        if type(node) is AccumulateGrad:  # a root that is a leaf (other leaves are done on arrival)
            if grad is not None:
                _accumulate(node, grad, captures, captured)
            grads: tuple[Any, ...] = ()
        elif grad is None:  # no gradient reached this node: its inputs get none either
            grads = (None,) * len(node._next)
        elif watched:  # hooks, autograd.grad's captures, a tracer or anomaly mode: the full visit
            grads = _visit_watched(node, grad, captures, captured, listening, pass_no)
        else:
            grads = node._backward(node, grad)
            if type(grads) is not tuple:  # one input: a bare gradient is allowed
                grads = (grads,)
            if len(grads) != len(node._next):
                grads = _checked(node, grads)
        if not retain_graph and node._saved:
            if listening:
                events.emit("free", node=node, saved=node.saved)
            node._saved = FREED
        # Send each input its gradient.  A node whose last edge just delivered is ready; if it is
        # the only one ready, it is visited next without a trip through the heap (a chain's case).
        only = only_grad = None
        for nxt, g in zip(node._next, grads):
            if nxt is None:
                continue
            if g is not None and nxt._dtype != FLOAT64:
                g = _round(g, nxt._dtype)
            if buffer and nxt in buffer:  # other edges delivered before: add up
                earlier = buffer.pop(nxt)
                if g is None:
                    g = earlier
                else:
                    total = earlier + g
                    g = total if type(total) is type(earlier) else _typed_like(earlier, total)
                    if nxt._dtype != FLOAT64:
                        g = _round(g, nxt._dtype)
            left = deps[nxt] - 1
            if left:
                deps[nxt] = left
                if g is not None:
                    buffer[nxt] = g
            elif type(nxt) is AccumulateGrad:
                if g is not None:
                    _accumulate(nxt, g, captures, captured)
            elif only is None and not ready:
                only, only_grad = nxt, g
            else:
                if only is not None:
                    _enqueue(ready, buffer, only, only_grad)
                    only = None
                _enqueue(ready, buffer, nxt, g)
        if only is not None:
            node, grad = only, only_grad
        elif ready:
            node = pop(ready)[1]
            grad = buffer.pop(node, None)
        else:
            node = None
    return captured


def _enqueue(ready: list[tuple[float, Any]], buffer: dict[Node, Any], node: Node, grad: Any) -> None:
    """Put a ready ``node`` on the heap (the one created last comes out first), its gradient in ``buffer``."""
    if grad is not None:
        buffer[node] = grad
    heapq.heappush(ready, (-node._seq, node))


def _visit_watched(node: Any, grad: Any, captures: dict[Node, Any] | None, captured: dict[Node, Any],
                   listening: bool, pass_no: int) -> tuple[Any, ...]:
    """Visit ``node`` with everything that may watch it: hooks, captures, anomaly checks, the tracer
    (``listening``: whether one listened when the walk began)."""
    if HOOKS.data and node in HOOKS:  # type: ignore[attr-defined]
        grad = _run_hooks(node, grad, None)
    if captures is not None and node in captures:
        captured[node] = grad
    grads = _checked(node, node._backward(node, grad))
    if listening:
        events.emit("visit", node=node, grad_output=grad, grad_inputs=grads, pass_no=pass_no)
    return grads


def _checked(node: Any, grads: Any) -> tuple[Any, ...]:
    """What ``node``'s backward returned, as a tuple of one gradient per input (or an error)."""
    if type(grads) is not tuple:
        grads = (grads,)
    if len(grads) != len(node._next):
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(node._next)}, got {len(grads)})\n"
            "What to do: return one gradient (or None) per input of forward, in the same order."
        )
    if anomaly.enabled:
        anomaly.check_gradients(node, grads)
    return grads


def _run_hooks(node: Node, grad: Any, variable: Any) -> Any:
    for hook in tuple(node._hooks or ()):
        result = hook(grad)
        if events.listening and not isinstance(hook, _RetainGrad):
            events.emit("hook", node=node, variable=variable, hook=hook, before=grad,
                        after=grad if result is None else result)
        if result is not None:
            grad = result
    return grad


def _accumulate(node: AccumulateGrad, grad: Any, captures: dict[Node, Any] | None,
                captured: dict[Node, Any]) -> None:
    leaf = node.variable
    if HOOKS.data and node in HOOKS:  # type: ignore[attr-defined]
        grad = _run_hooks(node, grad, leaf)
    if captures is not None:  # autograd.grad: report, don't touch .grad
        if node in captures:
            captured[node] = grad
        return
    if leaf is not None:
        accumulate_into(leaf, grad, node)


def accumulate_into(variable: Any, grad: Any, node: Any) -> None:
    """``variable.grad += grad`` (``.grad`` is set to a fresh copy the first time)."""
    old = variable._grad
    if old is None:
        new = variable._as_grad(grad)
    else:
        new = old + grad
        if variable.dtype != FLOAT64:
            new = _round(new, variable.dtype)
    variable._grad = new
    if events.listening:
        events.emit("accumulate", node=node, variable=variable, old=old, new=new)


def _typed_like(gradient: Any, total: Any) -> Any:
    """``total``, a sum of ``gradient`` and another, turned back into ``gradient``'s type if adding changed it."""
    restore = gradient_types.get(type(gradient))
    return total if restore is None or type(total) is type(gradient) else restore(total)


def _round(g: Any, dtype: str) -> Any:
    rounder = gradient_rounders.get(type(g))
    return rounder(g, dtype) if rounder is not None else g


def _capture_points(inputs: tuple[Any, ...]) -> dict[Node, Any]:
    points: dict[Node, Any] = {}
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad\n"
                f"What to do: input {i} has requires_grad=False; differentiate with respect to a Value that "
                "requires grad."
            )
        node = x.grad_fn or x._accumulator or x._make_accumulator()
        points[node] = i
    return points


def _collect(inputs: tuple[Any, ...], captures: dict[Node, Any] | None, captured: dict[Node, Any],
             allow_unused: bool) -> tuple[Any, ...]:
    result: list[Any] = []
    for i, x in enumerate(inputs):
        node = x.grad_fn or x._accumulator
        if node not in captured:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.\n"
                    f"What to do: input {i} does not influence the output; drop it or pass allow_unused=True."
                )
            result.append(None)
        else:
            result.append(x._as_grad(captured[node]))  # what .grad would hold: a float, or a Tensor
    return tuple(result)
