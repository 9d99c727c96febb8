"""The backward walk: one pass over the graph, in reverse topological order, without recursion.

1. Count, for every node reachable from the roots, how many edges bring it a
   gradient (an explicit stack, never recursion: 10^6-node graphs work).  With
   ``inputs`` (``autograd.grad``, ``backward(inputs=…)``) only the nodes on a path
   to them count: the rest of the graph is not run, as in PyTorch.
2. Keep the gradients of non-leaves in a buffer local to this call; a node is
   *ready* once every edge into it has delivered.
3. Among ready nodes, visit the one created last first (a priority on creation
   order, as PyTorch's CPU engine); a leaf's ``AccumulateGrad`` runs as soon as
   its gradient is complete.
4. ``visit`` runs the node's hooks, then its Function's ``backward``, announces
   it, and (without ``retain_graph``) frees what it saved.

Only leaves that require grad (and ``retain_grad()`` Values) get ``.grad``.
What an engine adds to this — rounding a gradient to a dtype, adding two
gradients — it provides as methods of its Variable class.
"""
from __future__ import annotations

import heapq
from typing import Any, Iterable

from ..dtypes import FLOAT64  # the dtype whose gradients are never rounded
from . import anomaly, events, grad_mode
from .node import FREED, HOOKS, AccumulateGrad, Node, _RetainGrad, accumulate_into, gradient_edge

NO_GRAD_FN = (
    "element 0 of tensors does not require grad and does not have a grad_fn\n"
    "What to do: make sure a leaf it was computed from has requires_grad=True and that it was not "
    "computed under no_grad() or from a detach()ed value."
)


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
    engine = type(roots[0])  # the Variable class whose graph this is: it rounds and adds gradients
    if create_graph:  # a recorded backward computes on Values/Tensors from its very first gradient
        grads = [g if isinstance(g, engine) else root._wrap(g, root.dtype, None) for root, g in zip(roots, grads)]
    starts = [(_start_node(root), g) for root, g in zip(roots, grads)]
    captures = _capture_points(inputs) if inputs is not None else None
    pass_no = events.next_pass_number()
    if events.listening:
        events.emit("backward_start", roots=roots, grads=tuple(g for _, g in starts), pass_no=pass_no)
    watched = captures is not None or events.listening or anomaly.enabled or bool(HOOKS.data)  # type: ignore
    walk = engine._unwatched_walk if not watched and engine._unwatched_walk is not None else reference_walk
    failed = True
    try:
        with grad_mode.set_grad_enabled(create_graph):
            captured = walk(engine, starts, retain_graph, captures, pass_no)
        failed = False
    finally:
        if events.listening:
            events.emit("backward_end", pass_no=pass_no, failed=failed)
    if inputs is None:
        return None
    return _collect(inputs, captured, allow_unused)


def _start_node(root: Any) -> Node:
    if root.grad_fn is None and not root.requires_grad:
        raise RuntimeError(NO_GRAD_FN)
    return gradient_edge(root)


def count_dependencies(starts: Iterable[Node], keep: dict[Node, Any] | None = None) -> dict[Node, int]:
    """For each node that backward will reach from ``starts``: how many edges lead into it
    (only nodes in ``keep``, when given: those on a path to ``autograd.grad``'s inputs)."""
    deps: dict[Node, int] = {}
    stack = [node for node in starts if keep is None or node in keep]
    for node in stack:
        deps[node] = 0
    while stack:
        for nxt in stack.pop()._next:
            if nxt is None or (keep is not None and nxt not in keep):
                continue
            if nxt not in deps:
                deps[nxt] = 0
                stack.append(nxt)
            deps[nxt] += 1
    return deps


def on_paths(starts: Iterable[Node], targets: Iterable[Node]) -> dict[Node, bool]:
    """The nodes from which a target can be reached (the targets too), each with whether it runs:
    a target is only captured, unless another target lies beyond it."""
    consumers: dict[Node, list[Node]] = {}
    stack = list(starts)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for nxt in node._next:
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


def reference_walk(engine: type, starts: list[tuple[Node, Any]], retain_graph: bool,
                   captures: dict[Node, int] | None, pass_no: int) -> dict[Node, Any]:
    """One backward pass by ``Walk``; returns the gradients captured for ``autograd.grad``."""
    return Walk(engine, starts, retain_graph, captures, pass_no).run()


class Walk:
    """One backward pass: the algorithm of the module docstring, with ``visit`` the one place where a
    node is run (hooks, captures, ``backward``, anomaly checks, events, freeing)."""

    def __init__(self, engine: type, starts: list[tuple[Node, Any]], retain_graph: bool,
                 captures: dict[Node, int] | None, pass_no: int) -> None:
        self.engine, self.retain_graph, self.captures, self.pass_no = engine, retain_graph, captures, pass_no
        self.captured: dict[Node, Any] = {}
        roots = [node for node, _ in starts]
        self.runs = None if captures is None else on_paths(roots, captures)  # None: the whole graph runs
        self.deps = count_dependencies(roots, self.runs)
        self.buffer: dict[Node, Any] = {}  # gradients waiting for more edges to deliver, or their visit
        for node, grad in starts:  # a seed is a gradient too
            if node in self.deps:
                self.deliver(node, grad)

    def run(self) -> dict[Node, Any]:
        """Visit every node in order; return the gradients captured for ``autograd.grad``."""
        ready = [(-node._seq, node) for node, count in self.deps.items() if count == 0]
        heapq.heapify(ready)
        while ready:
            node = heapq.heappop(ready)[1]
            grads = self.visit(node, self.buffer.pop(node, None))
            for nxt, grad in zip(node._next, grads):
                if nxt is None or nxt not in self.deps:
                    continue
                self.deliver(nxt, grad)
                self.deps[nxt] -= 1
                if self.deps[nxt] == 0:  # complete: a leaf's accumulation runs now, other nodes queue
                    if type(nxt) is AccumulateGrad:
                        self.visit(nxt, self.buffer.pop(nxt, None))
                    else:
                        heapq.heappush(ready, (-nxt._seq, nxt))
        return self.captured

    def deliver(self, node: Node, grad: Any) -> None:
        """Add ``grad`` (rounded to the node's dtype) into the node's buffered gradient."""
        if grad is None:
            return
        engine = self.engine
        if node._dtype != FLOAT64:
            grad = engine._round_gradient(grad, node._dtype)  # type: ignore[attr-defined]
        if node in self.buffer:
            grad = engine._add_gradients(self.buffer[node], grad)  # type: ignore[attr-defined]
            if node._dtype != FLOAT64:
                grad = engine._round_gradient(grad, node._dtype)  # type: ignore[attr-defined]
        self.buffer[node] = grad

    def visit(self, node: Any, grad: Any) -> tuple[Any, ...]:
        """Run ``node`` on its complete gradient ``grad`` (``None``: none reached it); return one
        gradient per input."""
        if grad is not None and HOOKS.data and node in HOOKS:  # type: ignore[attr-defined]
            grad = run_hooks(node, grad, node.variable if type(node) is AccumulateGrad else None)
        if self.captures is not None and node in self.captures:  # autograd.grad: report the gradient
            if grad is not None:
                self.captured[node] = grad
            if not self.runs[node]:  # type: ignore[index]  # no other input lies beyond it
                return ()
        if type(node) is AccumulateGrad:
            if grad is not None and node.variable is not None:
                accumulate_into(node.variable, grad, node)
            return ()
        if grad is None:  # no gradient reached this node: its inputs get none either
            grads: tuple[Any, ...] = (None,) * len(node._next)
        else:
            grads = checked(node, node._fn.backward(node, grad))
            if events.listening:
                events.emit("visit", node=node, grad_output=grad, grad_inputs=grads, pass_no=self.pass_no)
        if not self.retain_graph and node._saved:
            if events.listening:
                events.emit("free", node=node, saved=node.saved)
            node._saved = FREED
        return grads


def checked(node: Any, grads: Any) -> tuple[Any, ...]:
    """What ``node``'s backward returned, as a tuple of one gradient per input (or an error)."""
    if type(grads) is not tuple:  # one input: a bare gradient is allowed
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


def run_hooks(node: Node, grad: Any, variable: Any) -> Any:
    """Run the hooks registered on ``node`` on ``grad``; a hook's non-None result replaces it."""
    for hook in tuple(node._hooks or ()):
        result = hook(grad)
        if events.listening and not isinstance(hook, _RetainGrad):
            events.emit("hook", node=node, variable=variable, hook=hook, before=grad,
                        after=grad if result is None else result)
        if result is not None:
            grad = result
    return grad


def _capture_points(inputs: tuple[Any, ...]) -> dict[Node, int]:
    points: dict[Node, int] = {}
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad\n"
                f"What to do: input {i} has requires_grad=False; differentiate with respect to a Value that "
                "requires grad."
            )
        points[gradient_edge(x)] = i
    return points


def _collect(inputs: tuple[Any, ...], captured: dict[Node, Any], allow_unused: bool) -> tuple[Any, ...]:
    result: list[Any] = []
    for i, x in enumerate(inputs):
        node = gradient_edge(x)
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
