"""The engine: ``run_backward`` and the walk that carries gradients back through the graph.

1. ``run_backward`` finds the node of each root and starts one pass.
2. ``count_dependencies``: how many edges lead into each node that the pass will reach.
3. ``Walk.run``: among the nodes whose every edge has delivered, visit the one created last
   (PyTorch's order).  ``Walk.visit`` is the one place where a node runs: hooks, captures,
   its backward, anomaly checks, events and freeing.
4. ``accumulate_into``: what a leaf's ``AccumulateGrad`` does with its gradient.

The walk, the dependency count and the add into ``.grad`` are pieces: the core calls them through
the engine's record (``pieces.py``), the reference ones below unless an entry point chose others.

No recursion over the graph: 10^6-node graphs work.  What exists only for rare cases is one call
away: hooks (``hooks.py``), custom Functions' outputs (``custom.py``), ``autograd.grad``'s inputs
(``capture.py``); what exists only for speed is in ``micrograd2/fast/``.
"""
from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Iterable, Sequence

from . import anomaly, capture, custom, events, grad_mode, hooks, messages
from .hooks import HOOKS, REGISTERED
from .input_buffer import InputBuffer
from .node import AccumulateGrad, Node, gradient_node
from .protocol import Captured, Engine, Gradient, Walker
from .saved import FREED_VALUES

if TYPE_CHECKING:
    from .variable import Variable

Start = tuple[Node, int, Gradient]  # a root's node, its output_nr and its seed


def run_backward(roots: Sequence[Variable], grads: Sequence[Gradient],
                 retain_graph: bool | None = None, create_graph: bool = False,
                 inputs: tuple[Variable, ...] | None = None,
                 allow_unused: bool = False) -> tuple[Gradient | None, ...] | None:
    """Backpropagate ``grads`` from ``roots``.

    With ``inputs`` (``autograd.grad``), return the gradient of each input instead of
    accumulating into ``.grad``."""
    if any(root.grad_fn is None and not root._requires_grad for root in roots):
        raise RuntimeError(messages.NO_GRAD_FN)
    starts = [(gradient_node(root), root.output_nr, g) for root, g in zip(roots, grads)]
    captures = None if inputs is None else capture.capture_points(inputs)
    engine: type[Engine] = type(roots[0])  # the Variable class of this graph: it rounds, adds
    keep = create_graph if retain_graph is None else retain_graph
    recording = grad_mode.set_grad_enabled(bool(create_graph))
    with events.backward_pass(roots, starts) as pass_no, recording:
        captured = _walk_for(engine, captures)(engine, starts, keep, captures, pass_no)
    return None if inputs is None else capture.collect(inputs, captured, allow_unused)


def _walk_for(engine: type[Engine], captures: dict[Node, int] | None) -> Walker:
    """The walk for one pass: the engine's piece, or the speed layer's for a pass that nothing
    watches (no hooks, tracer, anomaly mode or ``autograd.grad``), when its record has one."""
    pieces = engine.pieces
    if pieces.unwatched_walk is None:
        return pieces.walk
    heard = events.listening and events.heard()  # a trace of this thread (events.py)
    watched = captures is not None or heard or anomaly.enabled or bool(REGISTERED)
    return pieces.walk if watched else pieces.unwatched_walk


def count_dependencies(starts: Iterable[Node], keep: dict[Node, bool] | None = None,
                       ) -> dict[Node, int]:
    """For each node that backward will reach from ``starts``: how many edges lead into it.

    When ``keep`` is given, only nodes in it count: those on a path to ``autograd.grad``'s
    inputs."""
    deps = {node: 0 for node in starts if keep is None or node in keep}
    stack = list(deps)
    while stack:
        for nxt in stack.pop()._next_nodes:
            if nxt is None or (keep is not None and nxt not in keep):
                continue
            if nxt not in deps:
                deps[nxt] = 0
                stack.append(nxt)
            deps[nxt] += 1
    return deps


def reference_walk(engine: type[Engine], starts: list[Start], retain_graph: bool,
                   captures: dict[Node, int] | None, pass_no: int) -> Captured:
    """One backward pass by ``Walk``; returns the gradients captured for ``autograd.grad``."""
    return Walk(engine, starts, retain_graph, captures, pass_no).run()


class Walk:
    """One backward pass: count dependencies, then visit the ready node created last.

    It repeats until no node is left."""

    def __init__(self, engine: type[Engine], starts: list[Start], retain_graph: bool,
                 captures: dict[Node, int] | None, pass_no: int) -> None:
        self.engine, self.retain_graph, self.pass_no = engine, retain_graph, pass_no
        self.captures = captures
        self.captured: Captured = {}
        roots = [node for node, _, _ in starts]
        self.runs = None if captures is None else capture.on_paths(roots, captures)  # None: all
        self.deps = engine.pieces.count_dependencies(roots, self.runs)
        self.buffer: dict[Node, InputBuffer] = {}  # what reached each node, until its visit
        for node, nr, grad in starts:  # a seed is a gradient too
            if node in self.deps:  # (not off autograd.grad's paths)
                self.deliver(node, nr, grad)

    def run(self) -> Captured:
        """Visit every node in order; return the gradients captured for ``autograd.grad``."""
        ready = [(-node._sequence_nr, node) for node, count in self.deps.items() if count == 0]
        heapq.heapify(ready)
        while ready:
            node = heapq.heappop(ready)[1]
            grads = self.visit(node, self.buffer.pop(node).grads)
            for (nxt, nr), grad in zip(node.edges(), grads):
                if nxt is None or nxt not in self.deps:
                    continue
                self.deliver(nxt, nr, grad)
                self.deps[nxt] -= 1
                if self.deps[nxt] == 0:  # complete: a leaf accumulates now, other nodes queue
                    if type(nxt) is AccumulateGrad:
                        self.visit(nxt, self.buffer.pop(nxt).grads)
                    else:
                        heapq.heappush(ready, (-nxt._sequence_nr, nxt))
        return self.captured

    def deliver(self, node: Node, nr: int, grad: Gradient | None) -> None:
        """Add ``grad`` into ``node``'s buffer, in the slot of its output ``nr``."""
        buffer = self.buffer.get(node)
        if buffer is None:  # the first edge into the node: its buffer, slots empty
            buffer = self.buffer[node] = InputBuffer(node, self.engine)
        if grad is not None:
            buffer.add(nr, grad)

    def visit(self, node: Node, grads: Sequence[Gradient | None]) -> tuple[Gradient | None, ...]:
        """Run ``node`` on ``grads``, the complete gradient of each of its outputs; return one
        gradient per input.

        A gradient is ``None`` where none reached the node."""
        if REGISTERED and node in HOOKS:  # Variable hooks, retain_grad (hooks.py)
            leaf = node.variable if type(node) is AccumulateGrad else None
            grads = hooks.before_backward(node, grads, leaf)
        if self.captures is not None and self.capture(node, grads):  # autograd.grad's input
            return ()
        if REGISTERED and node in HOOKS:  # the node's prehooks (hooks.py)
            grads = hooks.before_node(node, grads)
        if type(node) is AccumulateGrad:
            if grads[0] is not None and node.variable is not None:
                accumulate_into(node.variable, grads[0], node)
            result: tuple[Gradient | None, ...] = ()
        elif node._per_output:  # zeros where no gradient arrived (custom.py)
            result = checked(node, node(*custom.grad_outputs(node, grads)))
        elif grads[0] is None:  # no gradient reached this node: its inputs get none either
            result = (None,) * len(node._next_nodes)
        else:
            result = checked(node, node(grads[0]))
        if REGISTERED and node in HOOKS:  # fn(grad_inputs, grad_outputs) (hooks.py)
            result = hooks.after_backward(node, result, grads)
        reached = events.listening and any(g is not None for g in grads)  # (said to a tracer)
        if reached and type(node) is not AccumulateGrad:
            events.emit("visit", node=node, grad_output=grads[0] if len(grads) == 1 else grads,
                        grad_inputs=result, pass_no=self.pass_no)
        if not self.retain_graph and node._saved:
            if events.listening:
                events.emit("free", node=node, saved=node.saved)
            node._saved = FREED_VALUES
        return result

    def reaches(self, node: Node) -> bool:
        """Does this pass run ``node``? Every node, except off ``autograd.grad``'s paths."""
        return self.runs is None or node in self.runs

    def capture(self, node: Node, grads: Sequence[Gradient | None]) -> bool:
        """For ``autograd.grad``: keep the gradients of an input's node, one per output.

        Returns True if the walk ends there."""
        assert self.captures is not None and self.runs is not None
        if node not in self.captures:
            return False
        self.captured[node] = grads
        return not self.runs[node]  # no other input lies beyond it


def checked(node: Node, returned: Gradient | tuple[Gradient | None, ...] | None,
            ) -> tuple[Gradient | None, ...]:
    """What ``node``'s backward returned, as a tuple of one gradient per input (or an error)."""
    grads = returned if isinstance(returned, tuple) else (returned,)  # one input: bare is allowed
    if node._user_function:  # trailing Nones dropped, none for a number input (custom.py)
        grads = custom.checked(node, grads)
    if len(grads) != len(node._next_nodes):
        raise RuntimeError(messages.wrong_count(node, len(grads)))
    if anomaly.enabled:
        anomaly.check_gradients(node, grads)
    return grads


def accumulate_into(variable: Variable, grad: Gradient, node: Node | None) -> None:
    """``variable.grad += grad``: what a leaf's ``AccumulateGrad`` does.

    The engine's ``accumulate`` piece adds. Then come its events and post-accumulate hooks.
    A leaf set to ``requires_grad_(False)`` since the graph was built gets nothing (PyTorch's
    ``AccumulateGrad`` checks it at backward time)."""
    if not variable._requires_grad:
        return
    old, heard = variable._grad, events.listening and events.heard()
    if heard and old is not None and not isinstance(old, float):
        old = old._snapshot()  # the add may write into it: NOTE [A .grad added to in place]
    new = variable._grad = type(variable).pieces.accumulate(variable, grad)
    if heard:
        events.emit("accumulate", node=node, variable=variable, old=old, new=new)
    if REGISTERED and node is not None and node in HOOKS:  # register_post_accumulate_grad_hook
        hooks.after_accumulate(node, variable)
