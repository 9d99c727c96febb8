"""``Function``: an op with a ``forward`` and a ``backward``; ``apply``, which records it; and the
node that is its ``ctx``.

Every op of micrograd2, built-in or yours, is a ``Function`` subclass. Yours says in ``forward``
what backward will need, with ``ctx.save_for_backward``::

    class MyMul(Function):
        @staticmethod
        def forward(ctx, a, b):           # plain numbers (arrays for Tensors)
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):          # one gradient per forward input
            a, b = ctx.saved_tensors
            return grad * b, grad * a

A built-in op declares it instead, as PyTorch's derivatives.yaml does: ``Mul`` has
``keeps = (Keep(0, when=1), Keep(1, when=0))``, a only if b needs a gradient, b only if a does
(NOTE [What an op keeps, and when], saved.py).

``MyMul.apply(x, y)`` unwraps the inputs, runs ``forward``, wraps the result in the inputs' kind
(``Value`` or ``Tensor``) and, when grad mode is on and an input requires grad, gives it a
``grad_fn``: a node of class ``MyMulBackward``, the very ``ctx`` that ``forward`` filled in.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

from . import anomaly, custom, events, grad_mode, messages
from .node import ZEROS, Node, gradient_node, new_sequence_nr
from .protocol import Data, Gradient
from .saved import (
    FREED,
    INPUT,
    NOTHING_SAVED,
    OUTPUT,
    Freed,
    Keep,
    SavedEntry,
    SavedInput,
    SavedOutput,
    SavedValues,
    Several,
    save,
)
from .variable import Variable


class Keeps(dict[int, "tuple[Keep, ...] | None"]):
    """An op's ``keeps`` by its number of inputs, asked of the op once per number (most ops
    have one; ``Dot``'s depend on it). ``None``: its forward calls ``save_for_backward``."""

    def __init__(self, fn: type[Function]) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, n: int) -> tuple[Keep, ...] | None:
        keeps = self[n] = self.fn.keeps_for(n)
        return keeps


# NOTE [What backward receives]
# ``saved_tensors`` gives a Tensor's backward Tensors, always, as in PyTorch. Grad mode decides
# whether the ops on them record (they do under ``create_graph``). A Value's backward receives
# floats, and Values only while recording. Floats and Values share Python's operators, so one
# formula serves both, and floats keep the scalar engine fast. The engine chooses, with its
# ``backward_receives_variables``.
class BackwardNode(custom.CustomContext, Node):
    """The node of a ``Function``: the ``ctx`` of its ``forward`` and ``backward``.

    A custom Function's ctx settings (``mark_dirty`` and the like) are custom.py's."""

    __slots__ = ("_output",)
    _output: Data  # the data of the Variable this node made
    _fn: type[Function]  # the Function this node runs
    _keeps: Keeps  # what it keeps for backward, by its number of inputs
    saved_names: tuple[str, ...] = ()  # the Function's names for what it saves

    def __init__(self, needing: tuple[Variable | None, ...]) -> None:
        """A node with one edge per forward input, to the node of each Variable in ``needing``.

        ``None`` in ``needing``: that input needs no gradient."""
        nodes: list[Node | None] = []
        several = False
        for x in needing:
            if x is None:
                nodes.append(None)
            else:
                nodes.append(x.grad_fn or x._accumulator or gradient_node(x))
                several = several or x.output_nr != 0
        self._next_nodes = tuple(nodes)
        self._next_nrs = (tuple([0 if x is None else x.output_nr for x in needing]) if several
                          else ZEROS[len(nodes)])  # all to output 0, unless to one of several
        self._saved = NOTHING_SAVED

    def _record(self, out: Variable, inputs: tuple[Any, ...], args: tuple[object, ...],
                raw: object, dtype: str, several: Several | None = None) -> None:
        """What a recorded node keeps once forward has run (NOTE [Saved values]).

        Its creation number, its output's dtype and data, and what forward saved. ``several``:
        all that a forward of several outputs returned, and the Variables made of them."""
        self._sequence_nr = new_sequence_nr()
        self._dtype = dtype
        self._output = out.data
        keeps = self._keeps[len(inputs)]
        if keeps:  # a built-in's declaration (NOTE [What an op keeps, and when])
            saved: list[object] = []
            for source, when in keeps:
                if when >= 0 and self._next_nodes[when] is None:  # no gradient that reads it
                    saved.append(None)
                elif source < 0:
                    saved.append(SavedOutput(out))
                elif inputs[source] is not args[source]:  # a Variable's data
                    saved.append(SavedInput(inputs[source]))
                else:  # a number input: itself
                    saved.append(args[source])
            self._saved = SavedValues(saved)
        elif self._saved:  # what forward gave save_for_backward (a custom Function's ctx)
            self._saved = save(self._saved, inputs, args, raw, out, several)
        if anomaly.enabled:
            anomaly.remember_forward(self)

    def connect(self, edges: Sequence[tuple[Node | None, int]]) -> None:
        """Give this node ``edges``, one ``(node, input_nr)`` per forward input, in place of
        the ones it was made with (a student's ``record`` chooses them: pieces.py)."""
        self._next_nodes = tuple([node for node, _ in edges])
        self._next_nrs = tuple([nr for _, nr in edges])

    # -- the ctx interface ------------------------------------------------------------------------
    def save_for_backward(self, *items: object) -> None:
        """Keep ``items`` (inputs, the output, or any other object) for backward."""
        self._saved = SavedValues(items)

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """For each forward input: does it need a gradient?"""
        return tuple(map(bool, self._next_nodes))  # (a node is always true, None false)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """What ``save_for_backward`` kept, read now (NOTE [What backward receives]).

        Raises ``RuntimeError`` if backward freed it, or if a saved Variable was changed in
        place since."""
        if self._saved.freed:
            raise RuntimeError(messages.SECOND_BACKWARD)
        return self._saved.unpacked(self, grad_mode.state.grad_enabled)

    saved_values = saved_tensors

    def __call__(self, *grad_outputs: Gradient | None) -> Gradient | tuple[Gradient, ...]:
        """Run this node's backward on ``grad_outputs`` (as ``grad_fn(grad)`` in PyTorch)."""
        return self._fn.backward(self, *grad_outputs)

    # -- for display -------------------------------------------------------------------------
    def saved_entries(self) -> tuple[SavedEntry, ...] | Freed:
        """What this node saved: one ``SavedEntry(name, role, variable, data)`` per item.

        Each is named by the Function's names (PyTorch's: ``self``, ``other``, ``result``…)."""
        if self._saved.freed:
            return FREED
        return self._saved.entries(self, self.saved_names)

    @property
    def output(self) -> Data:
        """The data of the Variable this node made, as it was made."""
        return self._output

    @property
    def outputs(self) -> tuple[Data, ...]:
        """The data of each output this node made, by output number.

        There is one, unless the op made several differentiable outputs (a custom Function's,
        ``unbind``'s)."""
        return self._outputs if self._per_output else (self._output,)

    @property
    def inputs(self) -> tuple[Data | None, ...]:
        """One entry per forward input: its data, reached through the edges.

        An input without an edge is what a built-in op saved at its own position (``x * 3``
        keeps 3), else ``None``."""
        kept = () if self._per_output else self._saved.entries(self, ())
        return tuple(node.output if node is not None
                     else kept[k].data if k < len(kept) and kept[k].role is not OUTPUT else None
                     for k, node in enumerate(self._next_nodes))


# NOTE [A node's edges, by its number of inputs]
# ``BackwardNode.__init__`` gives a node one edge per input, whatever their number. Most built-in
# ops have one input or two, and ``Function.__init_subclass__`` gives their node classes the same
# steps written out for that number: no loop and no list, about 1.4k instructions less an op.
# ``tests/test_node.py`` checks that each builds the edges ``__init__`` builds.
def _one_edge(node: BackwardNode, needing: tuple[Variable | None, ...]) -> None:
    """``BackwardNode.__init__`` for an op of one input."""
    try:
        (x,) = needing
    except ValueError:  # called with other inputs than forward names (a keyword's, or too many)
        return BackwardNode.__init__(node, needing)
    node._next_nodes = (None if x is None else x.grad_fn or x._accumulator or gradient_node(x),)
    node._next_nrs = ZEROS[1] if x is None or not x.output_nr else (x.output_nr,)
    node._saved = NOTHING_SAVED


def _two_edges(node: BackwardNode, needing: tuple[Variable | None, ...]) -> None:
    """``BackwardNode.__init__`` for an op of two inputs."""
    try:
        a, b = needing
    except ValueError:  # called with other inputs than forward names (a keyword's, or too many)
        return BackwardNode.__init__(node, needing)
    node._next_nodes = (None if a is None else a.grad_fn or a._accumulator or gradient_node(a),
                        None if b is None else b.grad_fn or b._accumulator or gradient_node(b))
    several = a is not None and a.output_nr or b is not None and b.output_nr
    node._next_nrs = ((0 if a is None else a.output_nr, 0 if b is None else b.output_nr)
                      if several else ZEROS[2])
    node._saved = NOTHING_SAVED


EdgesInit = Callable[[BackwardNode, tuple[Variable | None, ...]], None]
EDGES: dict[int | None, EdgesInit] = {1: _one_edge, 2: _two_edges}


def _arity(forward: Callable[..., Any]) -> int | None:
    """How many inputs ``forward(ctx, ...)`` takes, if a fixed number (no ``*args``)."""
    params = list(inspect.signature(forward).parameters.values())[1:]
    fixed = all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params)
    return len(params) if fixed else None


def _saved_property(j: int) -> property:
    """PyTorch's ``node._saved_<name>``: the j-th saved item; a saved input is its Variable
    (``y.grad_fn._saved_self is x``), anything else its data."""
    def read(node: BackwardNode) -> Any:
        if node._saved.freed:
            return FREED
        entry = node._saved.entries(node, ())[j]
        return entry.variable if entry.role == INPUT and entry.variable is not None else entry.data

    return property(read)


class Function:
    """Base class of every op: ``forward(ctx, *args)`` on plain data, ``backward(ctx, *grads)``.

    * ``node_name``: the node's name. Built-ins use PyTorch's, like ``"MulBackward0"``; a
      custom Function's node is ``<ClassName>Backward``.
    * ``saved_names``: the names of what ``forward`` saves, in order (PyTorch's
      ``_saved_self``…).
    * ``autocast``: the op's autocast list (``"lowp"``, ``"fp32"`` or ``None``).
    * ``ctx_slots``: a built-in op's plain ctx attributes (sizes, dims).
    * ``differentiable_outputs``: every output of a built-in op is differentiable
      (``unbind``), as a custom Function's. Output k is the edge ``(node, k)``, and custom.py's
      rules apply to its node.
    * ``keeps``: what a built-in op keeps for backward, and when (NOTE [What an op keeps, and
      when], saved.py). ``None``: its forward calls ``ctx.save_for_backward``, as yours does.
    """

    node_name: str | None = None
    saved_names: tuple[str, ...] = ()
    autocast: str | None = None
    ctx_slots: tuple[str, ...] = ()
    differentiable_outputs = False
    keeps: tuple[Keep, ...] | None = None
    _node_class: type[BackwardNode]

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Make this op's node class (``MulBackward0``), as PyTorch's ``FunctionMeta`` does."""
        super().__init_subclass__(**kwargs)
        builtin = "node_name" in cls.__dict__
        name = cls.node_name if builtin and cls.node_name else f"{cls.__name__}Backward"
        body: dict[str, object] = {"_fn": cls, "__module__": cls.__module__,
                                "saved_names": cls.saved_names, "_keeps": Keeps(cls)}
        body.update({f"_saved_{n}": _saved_property(j) for j, n in enumerate(cls.saved_names)})
        if not builtin:  # a custom Function: custom.py's rules for its ctx and its gradients
            body.update(_user_function=True, needs_input_grad=custom.NEEDS_INPUT_GRAD)
        if not builtin or cls.differentiable_outputs:  # one gradient per output (custom.py)
            body["_per_output"] = True
        else:
            body["__slots__"] = cls.ctx_slots
        if builtin:  # NOTE [A node's edges, by its number of inputs]
            body["__init__"] = EDGES.get(_arity(cls.forward), BackwardNode.__init__)
        cls._node_class = type(name, (BackwardNode,), body)

    @classmethod
    def keeps_for(cls, n_inputs: int) -> tuple[Keep, ...] | None:
        """What this op keeps when it has ``n_inputs`` inputs: ``keeps``, whatever their number
        (an op of any number of inputs, such as ``Dot``, says it per number)."""
        return cls.keeps

    @classmethod
    def unrecorded_ctx(cls, n_inputs: int) -> BackwardNode:
        """A ctx for running ``forward`` on data outside the graph: a node with no edges."""
        return cls._node_class((None,) * n_inputs)

    @staticmethod
    def forward(ctx: BackwardNode, *args: Any) -> Any:
        raise NotImplementedError("a Function must define forward(ctx, *inputs)")

    # ``setup_context(ctx, inputs, output)``: define it, and a ``forward(*inputs)`` without ctx,
    # for the form PyTorch's current documentation teaches (custom.run_forward).
    setup_context = staticmethod(custom.base_setup_context)

    @staticmethod
    def backward(ctx: BackwardNode, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *inputs: Any, **attributes: Any) -> Any:
        """Run the op on ``inputs`` (Values, Tensors or numbers), and record it if needed.

        Keyword ``attributes`` (an exponent, a ``dim``…) go to ``forward`` but get no edge.
        ``dtype=`` sets the result's dtype."""
        if grad_mode.state.autocast is not None:  # inside mg.autocast: its policy casts inputs
            inputs = grad_mode.state.autocast(cls, inputs)
        variables = [x for x in inputs if isinstance(x, Variable)]
        if not variables:  # (a custom Function's forward still runs: custom.py)
            return custom.without_variables(cls, inputs, attributes)
        dtype = attributes["dtype"] if "dtype" in attributes else promoted(variables)
        record = grad_mode.state.grad_enabled and any(x._requires_grad for x in variables)
        ctx = cls._node_class(tuple([x if record and isinstance(x, Variable) and x._requires_grad
                                     else None for x in inputs]))
        args = tuple([x.data if isinstance(x, Variable) else x for x in inputs])
        user = ctx._user_function  # a custom Function: its forward runs under no_grad (custom.py)
        raw = (custom.run_forward(cls, ctx, args, attributes) if user
               else cls.forward(ctx, *args, **attributes))
        if ctx._per_output or type(raw) is tuple:  # one gradient per output (custom.py)
            out = custom.outputs(ctx, raw, inputs, args, variables[0], dtype, record)
        else:
            out = variables[0]._wrap(raw, dtype, None)  # the first's kind
            if out.pieces.record(cls, inputs, out, ctx):  # the engine's pieces (pieces.py)
                out.grad_fn, out._requires_grad = ctx, True
                ctx._record(out, inputs, args, raw, dtype)
        if events.listening and events.here.seat.audible:  # a trace of this thread
            first = out[0] if type(out) is tuple else out
            events.forward(first.grad_fn, cls, inputs, first)
        return out


def promoted(variables: list[Variable]) -> str:
    """The dtype of an op on these Variables: the widest (the engine's ``_promote`` decides)."""
    dtype = variables[0].dtype
    for x in variables[1:]:
        if x.dtype is not dtype:
            dtype = variables[0]._promote(dtype, x.dtype)
    return dtype


# -- once_differentiable --------------------------------------------------------------------------
ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., object]:
    """Mark a custom Function's ``backward`` as not differentiable itself.

    This is PyTorch's ``torch.autograd.function.once_differentiable``. The backward then runs
    under ``no_grad`` on plain gradients. When a recorded backward pass hands it gradients that
    require grad, its results are tied to a node (PyTorch's ``Error``) whose own backward raises
    ``RuntimeError``. So a second derivative through it is refused, not wrong.
    """
    @functools.wraps(backward)
    def wrapper(ctx: BackwardNode, *grads: Gradient) -> object:
        with grad_mode.no_grad():
            outputs = backward(ctx, *(g.detach() if isinstance(g, Variable) else g for g in grads))
        tracked = [g for g in grads if isinstance(g, Variable) and g.requires_grad]
        if not grad_mode.is_grad_enabled() or not tracked:
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        marked = tuple(o if o is None else _DelayedError.apply(_fake_leaf(o, tracked[0]))
                       for o in results)
        return marked[0] if single else marked

    return wrapper


def _fake_leaf(result: Any, like: Variable) -> Variable:
    """A new leaf requiring grad that holds ``result``: what PyTorch ties its ``Error`` node to
    (so the node's ``next_functions`` is one ``AccumulateGrad`` per result)."""
    leaf = result.detach() if isinstance(result, Variable) else like._wrap(result, like.dtype, None)
    leaf.requires_grad_(True)
    return leaf


class _DelayedError(Function):
    """The node once_differentiable ties its results to: the value passes, backward raises."""

    node_name = "Error"

    @staticmethod
    def forward(ctx, value):
        return value

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ONCE + "\nWhat to do: write a backward that is itself differentiable "
                           "(ordinary arithmetic on its inputs), or don't take a second derivative "
                           "through it.")
