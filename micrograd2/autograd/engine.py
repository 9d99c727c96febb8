"""The engine: how an op is recorded (``Function.apply``) and how ``backward()`` walks the graph back.

Read it in this order (README "Read the engine"):

1. ``VariableBase``: what every Value and Tensor carries for autograd, and ``backward()``.
2. ``Function.apply``: the one way an op is recorded.  It runs ``forward`` on plain data and, when grad mode
   is on and an input requires grad, gives the result a ``grad_fn``: a node of the op's class
   (``MulBackward0``), which is the very ``ctx`` that ``forward`` filled in.
3. NOTE [Saved values]: what a node keeps of ``save_for_backward``, and ``saved_tensors``, which reads it
   back at backward time, as PyTorch does.
4. ``gradient_edge``, ``AccumulateGrad`` and ``accumulate_into``: where a leaf's ``.grad`` is written.
5. ``run_backward`` and ``Walk``: count how many edges lead into each node, then among the ready nodes
   visit the one created last (PyTorch's order); ``visit`` is the one place where a node is run.

A node holds no reference to the Value it made (no reference cycle: reference counting frees a graph at
once).  What exists only for rare cases is one call away: hooks (``hooks.py``), custom Functions' outputs
(``custom.py``), ``autograd.grad``'s inputs (``capture.py``); what exists only for speed is in
``micrograd2/fast/``.  No recursion over the graph: 10^6-node graphs work.
"""
from __future__ import annotations

import heapq
import itertools
import weakref
from typing import Any, Iterable, Iterator

from ..dtypes import FLOAT64  # the dtype whose gradients are never rounded
from . import anomaly, capture, custom, events, grad_mode, hooks, messages
from .display import FREED, INPUT, OTHER, OUTPUT, BackwardNodeDisplay, NodeDisplay
from .hooks import HOOKS, REGISTERED

_creation_order = itertools.count(0.0)  # floats: 24 bytes a node instead of an int's 28

class VariableBase:
    """What the engine keeps on every Value and Tensor, and ``backward()``: the part of a ``Variable``
    (``variable.py``) that this file needs, as PyTorch's C++ ``TensorBase`` lies under ``torch.Tensor``."""

    __slots__ = ("data", "_grad", "grad_fn", "_requires_grad", "label", "dtype",
                 "_accumulator", "_version_counter", "__weakref__")
    data: Any  # a float (Value) or an array (Tensor)
    grad_fn: Any  # the node that made it, or None for a leaf
    dtype: str
    label: str | None
    _grad: Any
    _requires_grad: bool
    _accumulator: Any  # a leaf's AccumulateGrad; (grad_fn, k) for output k >= 1 of a node's several
    _version_counter: Any  # how often its data changed in place (None: never)

    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Accumulate the gradient of this Variable into ``.grad`` of every leaf that requires grad.

        Seeds ``gradient`` (1.0 by default) and walks the graph once; saved values are freed afterwards
        unless ``retain_graph``.  With ``inputs``, only their ``.grad`` is accumulated (leaves or not).
        """
        seed = self._seed(gradient)  # type: ignore[attr-defined]
        if inputs is not None:
            return _backward_to(self, seed, retain_graph, create_graph, inputs)
        run_backward((self,), (seed,), retain_graph, create_graph)


def _backward_to(root: Any, seed: Any, retain_graph: bool | None, create_graph: bool, inputs: Any) -> None:
    """``backward(inputs=…)``: accumulate only into these inputs' ``.grad`` (a non-leaf keeps it from now on)."""
    inputs = capture.backward_inputs(inputs, VariableBase)
    grads = run_backward((root,), (seed,), retain_graph, create_graph, inputs, allow_unused=True)
    for x, g in zip(inputs, grads or ()):
        if g is not None and x.grad_fn is None:  # (a non-leaf's retain_grad hook has written it)
            accumulate_into(x, g, x._accumulator)


class Node(NodeDisplay):
    """A ``grad_fn``: one recorded op, waiting to turn its output's gradient into its inputs' gradients.

    ``_next``: one edge per forward input, the node its gradient goes to (or None); ``_seq``: a creation
    number (the walk's priority); ``_saved``: what the op kept for backward; ``_dtype``: its output's dtype.
    """

    __slots__ = ("_next", "_seq", "_saved", "_dtype", "__weakref__")
    _custom = _several = False  # custom.py's rules (a custom Function, differentiable_outputs); of several outputs
    _next: tuple[Any, ...]
    _seq: float
    _saved: Any
    _dtype: str

    def name(self) -> str:
        """PyTorch's name for this node, e.g. ``MulBackward0``."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Any, int], ...]:
        """One ``(node, output_nr)`` pair per input: where this node sends each gradient."""
        return tuple(edge if type(edge) is tuple else (edge, 0) for edge in self._next)

    def register_hook(self, hook: Any) -> hooks.RemovableHandle:
        """Run ``hook(grad_inputs, grad_outputs)`` after this node's backward (it may return new grad_inputs)."""
        return hooks.add(self, "post", hook)

    def register_prehook(self, hook: Any) -> hooks.RemovableHandle:
        """Run ``hook(grad_outputs)`` before this node's backward (it may return new grad_outputs)."""
        return hooks.add(self, "pre", hook)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class Function:
    """Base class of every op: ``forward(ctx, *args)`` on plain data, ``backward(ctx, *grads)``.

    ``node_name`` sets the node's name (built-ins use PyTorch's, like ``"MulBackward0"``); a custom
    Function's node is ``<ClassName>Backward``.  ``autocast``: the op's autocast list (``"lowp"``,
    ``"fp32"`` or ``None``).  ``ctx_slots``: a built-in op's plain ctx attributes (sizes, dims).
    ``differentiable_outputs``: every output of a built-in op is differentiable (``unbind``), as a custom
    Function's: output k is the edge ``(node, k)`` (custom.py's rules for outputs apply to its node).
    """

    node_name: str | None = None
    autocast: str | None = None
    ctx_slots: tuple[str, ...] = ()
    differentiable_outputs = False
    _node_class: type[BackwardNode]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Make this op's node class (``MulBackward0``), as PyTorch's ``FunctionMeta`` does; nothing else."""
        super().__init_subclass__(**kwargs)
        builtin = "node_name" in cls.__dict__
        name = cls.node_name if builtin and cls.node_name else f"{cls.__name__}Backward"
        body: dict[str, Any] = {"_fn": cls, "__module__": cls.__module__}
        # custom.py's rules for a custom Function's node, or a built-in's of several differentiable outputs
        body.update({"_custom": True} if not builtin or cls.differentiable_outputs else {"__slots__": cls.ctx_slots})
        cls._node_class = type(name, (BackwardNode,), body)

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError("a Function must define forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *inputs: Any, **attributes: Any) -> Any:
        """Run the op on ``inputs`` (Values, Tensors or numbers) and record it if needed.  Keyword
        ``attributes`` (an exponent, a ``dim``…) go to ``forward`` but get no edge; ``dtype=`` sets the
        result's dtype."""
        if grad_mode.state.autocast is not None:  # inside mg.autocast: the policy inserts its casts
            inputs = grad_mode.state.autocast(cls, inputs)
        variables: list[Any] = [x for x in inputs if isinstance(x, VariableBase)]
        if not variables:
            raise TypeError(f"{cls.__name__}.apply() needs at least one Value or Tensor input")
        dtype = attributes["dtype"] if "dtype" in attributes else _promoted(variables)
        record = grad_mode.state.grad_enabled and any(x._requires_grad for x in variables)
        ctx: Any = cls._node_class.__new__(cls._node_class)
        ctx._next = tuple(gradient_edge(x) if record and isinstance(x, VariableBase) and x._requires_grad
                          else None for x in inputs)
        ctx._saved = ()
        args = tuple(x.data if isinstance(x, VariableBase) else x for x in inputs)
        raw = cls.forward(ctx, *args, **attributes)
        if type(raw) is tuple or ctx._custom:  # several outputs, or a custom Function (custom.py)
            out = custom.outputs(ctx, raw, inputs, args, variables[0], dtype, record, remember)
        else:
            out = variables[0]._wrap(raw, dtype, ctx if record else None)  # the first Variable's kind
            if record:
                remember(ctx, out, inputs, args, raw, dtype)
        if events.listening:
            events.emit("forward", node=_first(out).grad_fn, fn=cls, inputs=inputs, output=_first(out))
        return out


def _first(out: Any) -> Any:
    return out[0] if type(out) is tuple else out


def _promoted(variables: list[Any]) -> Any:
    """The dtype of an op on these Variables: the widest (the engine's ``_promote`` decides)."""
    dtype = variables[0].dtype
    for x in variables[1:]:
        if x.dtype is not dtype:
            dtype = variables[0]._promote(dtype, x.dtype)
    return dtype


def remember(ctx: Any, out: Any, inputs: tuple[Any, ...], args: tuple[Any, ...], raw: Any, dtype: Any) -> None:
    """What a recorded node keeps: its creation number, dtype, its output's data and what forward saved."""
    ctx._seq, ctx._dtype, ctx._output = next(_creation_order), dtype, out.data
    ctx._saved = _encode(ctx._saved, inputs, args, raw, out)
    if anomaly.enabled:
        anomaly.remember_forward(ctx)


# NOTE [Saved values]
# ``forward`` sees plain data, so ``save_for_backward`` receives data.  Once forward has returned,
# ``_encode`` turns each item into what the node keeps; ``BackwardNode._read`` is the one reader:
#   * the output (the very object forward returned) -> a ``SavedOutput``: a *weak* reference to the output
#     Variable (it holds this node: a strong one would be a cycle); ``_output`` keeps the data for when
#     the Variable is gone;
#   * the data of an input -> that input Variable itself (read at backward time, as PyTorch does), or a
#     ``SavedVariable`` with its version if it had already been changed in place;
#   * anything else (a number, None) -> itself.
# An op saves only what the gradients it will compute need (``ctx.needs_input_grad`` tells it).
class SavedVariable(tuple):  # type: ignore[type-arg]
    """``(variable, version)``: a saved input already changed in place when it was saved, and its version."""

    __slots__ = ()


class SavedOutput(weakref.ref):  # type: ignore[type-arg]
    """The op's output, saved: a weak reference to it that is also its version counter (``value``), and its
    kind (to rebuild it under create_graph once it is gone)."""

    __slots__ = ("value", "kind")

    def __init__(self, output: Any) -> None:  # (weakref.ref's __new__ has set the referent)
        self.value = 0
        self.kind = type(output)


def _encode(items: tuple[Any, ...], inputs: tuple[Any, ...], args: tuple[Any, ...], result: Any,
            output: Any) -> tuple[Any, ...]:
    """What the node keeps for the ``items`` forward saved (NOTE [Saved values]); ``args[k]`` is what
    forward received for ``inputs[k]``: an item is looked for at its own position, then among all."""
    saved: list[Any] = []
    for j, item in enumerate(items):
        if item is result:  # looked for first: relu may return its input's very float (it is the output's)
            item = output._version_counter = output._version_counter or SavedOutput(output)
        elif item is not None:
            k = j if j < len(args) and args[j] is item else next((k for k, a in enumerate(args) if a is item), -1)
            x = inputs[k] if k >= 0 else None
            if isinstance(x, VariableBase):
                item = x if x._version_counter is None else SavedVariable((x, x._version_counter.value))
        saved.append(item)
    return tuple(saved)


class BackwardNode(custom.CustomContext, BackwardNodeDisplay, Node):
    """The node of a ``Function``: it is the ``ctx`` of that Function's ``forward`` and ``backward``
    (a custom Function's ctx settings, ``mark_dirty`` and the like, are custom.py's ``CustomContext``)."""

    __slots__ = ("_output",)
    _output: Any  # the data of the Variable this node made
    _fn: Any = None  # the Function class this node runs

    # -- the ctx interface ------------------------------------------------------
    def save_for_backward(self, *items: Any) -> None:
        """Keep ``items`` (inputs, the output, or any other object) for backward (NOTE [Saved values])."""
        self._saved = items

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """What ``save_for_backward`` kept, read now: data, or the Variables while recording (create_graph).
        Raises ``RuntimeError`` if backward freed them, or if one was changed in place since."""
        if self._saved is FREED:
            raise RuntimeError(messages.SECOND_BACKWARD)
        read = self._read(self._saved, check=True)
        if not grad_mode.state.grad_enabled:
            return tuple([data for _, _, data in read])
        # recording: an input as itself, the output rebuilt with this node as grad_fn
        return tuple([data if role is OTHER else variable if role is INPUT else item.kind._wrap(data, self._dtype, self)
                      for item, (role, variable, data) in zip(self._saved, read)])

    saved_values = saved_tensors

    def _read(self, items: tuple[Any, ...], check: bool = False) -> Iterator[tuple[str, Any, Any]]:
        """Each saved item as it is now: ``(role, the Variable or None, its data)``; with ``check``, raise if
        one was changed in place since it was saved."""
        for item in items:
            kind = type(item)
            if kind is SavedOutput:
                role, variable, counter, expected = OUTPUT, item(), item, 0
            elif kind is SavedVariable:  # (variable, its version when saved)
                role, (variable, expected) = INPUT, item
                counter = variable._version_counter
            elif isinstance(item, VariableBase):
                role, variable, counter, expected = INPUT, item, item._version_counter, 0
            else:
                yield OTHER, None, item
                continue
            if check and counter is not None and counter.value != expected:
                raise RuntimeError(messages.modified_in_place(self, role, variable, counter.value, expected))
            yield role, variable, self._output if variable is None else variable.data

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """For each forward input: does it need a gradient?"""
        return tuple(n is not None for n in self._next)

    def __call__(self, *grad_outputs: Any) -> Any:
        """Run this node's backward on ``grad_outputs`` (as ``grad_fn(grad)`` in PyTorch)."""
        return self._fn.backward(self, *grad_outputs)


# -- leaves ---------------------------------------------------------------------------------------------
class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds the incoming gradient into the leaf's ``.grad``."""

    __slots__ = ("_variable",)

    def __init__(self, variable: Any) -> None:
        self._next = ()
        self._seq = next(_creation_order)
        self._saved = None
        self._dtype = variable.dtype
        self._variable = weakref.ref(variable)  # the leaf holds its node: a strong reference back is a cycle

    def name(self) -> str:
        return "AccumulateGrad"

    @property
    def variable(self) -> Any:
        """The leaf this node accumulates into (``None`` once the leaf is gone)."""
        return self._variable()

    @property
    def output(self) -> Any:
        """The leaf's data now (``None`` once the leaf is gone)."""
        leaf = self._variable()
        return None if leaf is None else leaf.data


def gradient_edge(variable: Any) -> Any:
    """Where a gradient for ``variable`` goes: its ``grad_fn`` (``(grad_fn, k)`` for output k >= 1 of a custom
    Function or of ``unbind``), or the ``AccumulateGrad`` of a leaf, made on first use and then kept by the leaf."""
    node = variable.grad_fn
    if node is None:
        node = variable._accumulator
        if node is None or type(node) is tuple:
            node = variable._accumulator = AccumulateGrad(variable)
    elif node._custom and variable._accumulator is not None:
        return variable._accumulator  # (grad_fn, k)
    return node


def accumulate_into(variable: Any, grad: Any, node: Any) -> None:
    """``variable.grad += grad`` (a fresh copy the first time).  As PyTorch's ``AccumulateGrad``: outside
    ``create_graph`` a Tensor ``.grad`` is added to **in place**, so it keeps its identity; while recording,
    the sum is a new Variable in the graph.  (A Value's ``.grad`` is a float: nothing to keep.)"""
    old = variable._grad
    new = variable._as_grad(grad) if old is None else old + grad
    if old is not None and variable.dtype != FLOAT64:
        new = variable._round_gradient(new, variable.dtype)
    if hasattr(old, "_assign") and old.grad_fn is None and not grad_mode.state.grad_enabled:  # a Tensor's
        old._assign(getattr(new, "data", new))
        old._bump_version()
        new = old
    variable._grad = new
    if events.listening:
        events.emit("accumulate", node=node, variable=variable, old=old, new=new)
    if REGISTERED and node in HOOKS:  # register_post_accumulate_grad_hook
        hooks.after_accumulate(node, variable)


# -- the walk -------------------------------------------------------------------------------------------
def run_backward(roots: Iterable[Any], grads: Iterable[Any], retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: tuple[Any, ...] | None = None,
                 allow_unused: bool = False) -> tuple[Any, ...] | None:
    """Backpropagate ``grads`` from ``roots``.  With ``inputs`` (``autograd.grad``), return the gradient of
    each input instead of accumulating into ``.grad``."""
    roots = tuple(roots)
    if any(root.grad_fn is None and not root.requires_grad for root in roots):
        raise RuntimeError(messages.NO_GRAD_FN)
    if create_graph:  # a recorded backward computes on Values/Tensors from its very first gradient
        grads = [g if isinstance(g, VariableBase) else r._wrap(g, r.dtype, None) for r, g in zip(roots, grads)]
    starts = [(gradient_edge(root), g) for root, g in zip(roots, grads)]
    captures = None if inputs is None else capture.capture_points(inputs, gradient_edge)
    engine = type(roots[0])  # the Variable class whose graph this is: it rounds and adds gradients
    with events.backward_pass(roots, starts) as pass_no, grad_mode.set_grad_enabled(create_graph):
        captured = _walk_for(engine, captures)(engine, starts, create_graph if retain_graph is None else
                                               retain_graph, captures, pass_no)
    return None if inputs is None else capture.collect(inputs, captured, allow_unused, gradient_edge)


def _walk_for(engine: Any, captures: Any) -> Any:
    """The speed layer's walk (an engine's ``_unwatched_walk``) for a pass nothing watches (no hooks, tracer,
    anomaly mode or ``autograd.grad``); else the reference walk."""
    watched = captures is not None or events.listening or anomaly.enabled or bool(REGISTERED)
    return engine._unwatched_walk if not watched and engine._unwatched_walk is not None else reference_walk


def count_dependencies(starts: Iterable[Node], keep: dict[Node, Any] | None = None) -> dict[Node, int]:
    """For each node that backward will reach from ``starts``: how many edges lead into it
    (only nodes in ``keep``, when given: those on a path to ``autograd.grad``'s inputs)."""
    deps = {node: 0 for node in starts if keep is None or node in keep}
    stack = list(deps)
    while stack:
        for edge in stack.pop()._next:
            nxt = edge[0] if type(edge) is tuple else edge  # (node, k): output k of a custom Function
            if nxt is None or (keep is not None and nxt not in keep):
                continue
            if nxt not in deps:
                deps[nxt] = 0
                stack.append(nxt)
            deps[nxt] += 1
    return deps


def reference_walk(engine: type, starts: list[tuple[Any, Any]], retain_graph: bool,
                   captures: dict[Node, int] | None, pass_no: int) -> dict[Node, Any]:
    """One backward pass by ``Walk``; returns the gradients captured for ``autograd.grad``."""
    return Walk(engine, starts, retain_graph, captures, pass_no).run()


class Walk:
    """One backward pass: count dependencies, then visit the ready node created last, until none is left."""

    def __init__(self, engine: type, starts: list[tuple[Any, Any]], retain_graph: bool,
                 captures: dict[Node, int] | None, pass_no: int) -> None:
        self.engine, self.retain_graph, self.captures, self.pass_no = engine, retain_graph, captures, pass_no
        self.captured: dict[Node, Any] = {}
        roots = [edge[0] if type(edge) is tuple else edge for edge, _ in starts]
        self.runs = None if captures is None else capture.on_paths(roots, captures)  # None: all of it runs
        self.deps = count_dependencies(roots, self.runs)
        self.buffer: dict[Node, Any] = {}  # gradients waiting for more edges to deliver, or their visit
        for edge, grad in starts:  # a seed is a gradient too
            self.deliver(edge, grad)

    def run(self) -> dict[Node, Any]:
        """Visit every node in order; return the gradients captured for ``autograd.grad``."""
        ready = [(-node._seq, node) for node, count in self.deps.items() if count == 0]
        heapq.heapify(ready)
        while ready:
            node = heapq.heappop(ready)[1]
            for edge, grad in zip(node._next, self.visit(node, self.buffer.pop(node, None))):
                nxt = edge[0] if type(edge) is tuple else edge
                if nxt is None or nxt not in self.deps:
                    continue
                self.deliver(edge, grad)
                self.deps[nxt] -= 1
                if self.deps[nxt] == 0:  # complete: a leaf's accumulation runs now, other nodes queue
                    if type(nxt) is AccumulateGrad:
                        self.visit(nxt, self.buffer.pop(nxt, None))
                    else:
                        heapq.heappush(ready, (-nxt._seq, nxt))
        return self.captured

    def deliver(self, edge: Any, grad: Any) -> None:
        """Add ``grad`` into the gradient buffered for the node of ``edge``."""
        node, nr = edge if type(edge) is tuple else (edge, 0)
        if grad is not None and node in self.deps:
            earlier = self.buffer.get(node)
            self.buffer[node] = custom.into_slot(earlier, node, nr, grad, self.add) if node._several else \
                self.add(node, earlier, grad)

    def add(self, node: Node, earlier: Any, grad: Any) -> Any:
        """``earlier + grad`` (``grad`` if nothing arrived earlier), each rounded to ``node``'s dtype."""
        dtype, engine = node._dtype, self.engine
        if dtype != FLOAT64:
            grad = engine._round_gradient(grad, dtype)  # type: ignore[attr-defined]
        if earlier is None:
            return grad
        total = engine._add_gradients(earlier, grad)  # type: ignore[attr-defined]
        return total if dtype == FLOAT64 else engine._round_gradient(total, dtype)  # type: ignore[attr-defined]

    def visit(self, node: Any, grad: Any) -> tuple[Any, ...]:
        """Run ``node`` on its complete gradient ``grad`` (``None``: none reached it); return one gradient
        per input.  The one place where hooks, captures, backward, anomaly checks, events and freeing happen."""
        if REGISTERED and node in HOOKS:  # Variable hooks, retain_grad, prehooks (hooks.py)
            grad = hooks.before_backward(node, grad, node.variable if type(node) is AccumulateGrad else None)
        if self.captures is not None and self.capture(node, grad):  # autograd.grad: its input ends here
            return ()
        if type(node) is AccumulateGrad:
            if grad is not None and node.variable is not None:
                accumulate_into(node.variable, grad, node)
            grads: tuple[Any, ...] = ()
        elif node._custom:  # one gradient per output, zeros where none arrived (custom.py)
            grads = checked(node, node._fn.backward(node, *custom.grad_outputs(node, grad)))
        elif grad is None:  # no gradient reached this node: its inputs get none either
            grads = (None,) * len(node._next)
        else:
            grads = checked(node, node._fn.backward(node, grad))
        if REGISTERED and node in HOOKS:  # fn(grad_inputs, grad_outputs) (hooks.py)
            grads = hooks.after_backward(node, grads, grad)
        if events.listening and grad is not None and type(node) is not AccumulateGrad:
            events.emit("visit", node=node, grad_output=grad, grad_inputs=grads, pass_no=self.pass_no)
        if not self.retain_graph and node._saved:
            if events.listening:
                events.emit("free", node=node, saved=node.saved)
            node._saved = FREED
        return grads

    def capture(self, node: Node, grad: Any) -> bool:
        """For ``autograd.grad``: keep the gradient of an input's node; True if the walk ends there."""
        if node not in self.captures:  # type: ignore[operator]
            return False
        if grad is not None:
            self.captured[node] = grad
        return not self.runs[node]  # type: ignore[index]  # no other input lies beyond it


def checked(node: Any, grads: Any) -> tuple[Any, ...]:
    """What ``node``'s backward returned, as a tuple of one gradient per input (or an error)."""
    if type(grads) is not tuple:  # one input: a bare gradient is allowed
        grads = (grads,)
    if node._custom:  # trailing Nones dropped, none for a number input (custom.py)
        grads = custom.checked(node, grads)
    if len(grads) != len(node._next):
        raise RuntimeError(messages.wrong_count(node, len(grads)))
    if anomaly.enabled:
        anomaly.check_gradients(node, grads)
    return grads
