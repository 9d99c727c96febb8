"""``Function``: an op with a ``forward`` and a ``backward``, and ``apply``, the one way ops are recorded.

Every op of micrograd2, built-in or yours, is a ``Function`` subclass::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):           # plain numbers (arrays for Tensors)
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad):          # one gradient per forward input
            a, b = ctx.saved_tensors
            return grad * b, grad * a

``Mul.apply(x, y)`` unwraps the inputs, runs ``forward``, wraps the result in
the inputs' kind (``Value`` or ``Tensor``) and, when grad mode is on and an input
requires grad, gives it a ``grad_fn``: a node of class ``MulBackward0``, which is
the very ``ctx`` that ``forward`` filled in (a ``BackwardNode``, below).
"""
from __future__ import annotations

import weakref
from typing import Any

from . import anomaly, events, grad_mode
from .node import FREED, Node, _creation_order, gradient_edge
from .variable import Variable

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.\n"
    "What to do: call the first backward with retain_graph=True, or run the forward pass again."
)


class Function:
    """Base class of every op.  Subclasses define ``forward(ctx, *args)`` and ``backward(ctx, *grads)``.

    ``node_name`` sets the node's name (built-ins use PyTorch's, like ``"MulBackward0"``);
    a custom Function's node is named ``<ClassName>Backward``, as in PyTorch.
    ``autocast`` names the op's autocast list: ``"lowp"``, ``"fp32"`` or ``None`` (promotion).
    """

    node_name: str | None = None
    autocast: str | None = None
    ctx_slots: tuple[str, ...] = ()  # a built-in op's plain ctx attributes (sizes, dims), kept after backward
    _node_class: type[BackwardNode]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Make this op's node class (``MulBackward0``), as PyTorch's ``FunctionMeta`` does; nothing else."""
        super().__init_subclass__(**kwargs)
        builtin = "node_name" in cls.__dict__
        name = cls.node_name if builtin and cls.node_name else f"{cls.__name__}Backward"
        body: dict[str, Any] = {"_fn": cls, "__module__": cls.__module__}
        if builtin:  # built-in nodes stay small (only their ctx_slots); a custom ctx may carry any attribute
            body["__slots__"] = tuple(cls.ctx_slots)
        cls._node_class = type(name, (BackwardNode,), body)

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError("a Function must define forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function must define backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *inputs: Any, **attributes: Any) -> Any:
        """Run the op on ``inputs`` (Values, Tensors or numbers) and record it if needed.

        Keyword ``attributes`` (an exponent, a ``dim``…) go to ``forward`` but are not
        inputs: they get no edge and no gradient.  ``dtype=`` sets the result's dtype.
        """
        policy = grad_mode.state.autocast
        if policy is not None:  # inside mg.autocast: the policy inserts the casts it wants
            inputs = policy(cls, inputs)
        variables = [x for x in inputs if isinstance(x, Variable)]
        if not variables:
            raise TypeError(f"{cls.__name__}.apply() needs at least one Value or Tensor input")
        template = variables[0]  # the result is of its kind
        dtype = attributes["dtype"] if "dtype" in attributes else _promoted(variables)
        record = grad_mode.state.grad_enabled and any(x._requires_grad for x in variables)

        ctx = cls._node_class.__new__(cls._node_class)
        ctx._next = tuple(gradient_edge(x) if record and isinstance(x, Variable) and x._requires_grad else None
                          for x in inputs)
        ctx._saved = ()
        args = tuple(x.data if isinstance(x, Variable) else x for x in inputs)
        raw = cls.forward(ctx, *args, **attributes)
        extra = ()
        if type(raw) is tuple:  # extra outputs (e.g. max's indices) are never differentiable
            raw, extra = raw[0], raw[1:]

        if not record:
            out = template._wrap(raw, dtype, None)
        else:
            ctx._seq = next(_creation_order)
            ctx._dtype = dtype
            out = template._wrap(raw, dtype, ctx)
            ctx._output = out.data
            ctx._saved = _encode(ctx._saved, inputs, args, raw, out)
            if anomaly.enabled:
                anomaly.remember_forward(ctx)
        if events.listening:
            events.emit("forward", node=out.grad_fn, fn=cls, inputs=inputs, output=out)
        return (out, *(template._wrap(e, None, None) for e in extra)) if extra else out


def _promoted(variables: list[Any]) -> Any:
    """The dtype of an op on these Variables: the widest (the engine's ``_promote`` decides)."""
    dtype = variables[0].dtype
    for x in variables[1:]:
        if x.dtype is not dtype:
            dtype = variables[0]._promote(dtype, x.dtype)
    return dtype


# NOTE [Saved values]
# ``forward`` sees plain data, so ``save_for_backward`` receives data.  Once forward has returned,
# ``_encode`` turns each item into what the node keeps — one encoding, read in one place (``_read``):
#   * the output (the very object forward returned) -> a ``SavedOutput``: a *weak* reference to the output
#     Variable (it holds this node: a strong one would be a cycle), which is also that Variable's version
#     counter; the node's ``_output`` keeps the data for when the Variable is gone;
#   * the data of an input -> that input Variable itself (read at backward time, as PyTorch does), or a
#     ``SavedVariable`` with its version if it had already been changed in place;
#   * anything else (a number, None) -> itself.
# An op saves only what the gradients it will compute need (``ctx.needs_input_grad`` tells it).
class SavedVariable(tuple):  # type: ignore[type-arg]
    """``(variable, version)``: a saved input whose data had been changed in place before it was saved, and
    its version then.  (An input never changed in place — the usual case — is kept as the Variable itself,
    version 0.)  A tuple: made in one step, as optimizers' in-place updates make it common for parameters."""

    __slots__ = ()


class SavedOutput(weakref.ref):  # type: ignore[type-arg]
    """The op's output, saved: a weak reference to it that is also its version counter (``value``)."""

    __slots__ = ("value", "kind")

    def __init__(self, output: Any) -> None:
        super().__init__(output)  # type: ignore[call-arg]
        self.value = 0
        self.kind = type(output)  # to rebuild it under create_graph once it is gone


INPUT, OUTPUT, OTHER = "input", "output", "other"  # the roles of saved items


def _encode(items: tuple[Any, ...], inputs: tuple[Any, ...], args: tuple[Any, ...], result: Any,
            output: Any) -> tuple[Any, ...]:
    """What the node keeps for the ``items`` forward saved (see NOTE [Saved values]).

    ``args[k]`` is what forward received for ``inputs[k]``; an item is looked for first at
    its own position (``save_for_backward(a, b)``), then among all inputs.
    """
    saved: list[Any] = []
    for j, item in enumerate(items):
        if item is result:  # checked first: relu may return its input's very float
            counter = output._version_counter
            if type(counter) is not SavedOutput:
                counter = output._version_counter = SavedOutput(output)
            saved.append(counter)
            continue
        k = j if j < len(args) and args[j] is item else next((k for k, a in enumerate(args) if a is item), -1)
        x = inputs[k] if k >= 0 else None
        if item is None or not isinstance(x, Variable):
            saved.append(item)
        else:
            saved.append(x if x._version_counter is None else SavedVariable((x, x._version)))
    return tuple(saved)


class BackwardNode(Node):
    """The node of a ``Function``: it is the ``ctx`` of that Function's ``forward`` and ``backward``."""

    __slots__ = ("_output",)
    _fn: Any = None  # the Function class this node runs
    _output: Any  # the data of the Variable this node made

    # -- the ctx interface ------------------------------------------------------
    def save_for_backward(self, *items: Any) -> None:
        """Keep ``items`` (inputs, the output, or any other object) for backward (NOTE [Saved values])."""
        self._saved = items

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """What ``save_for_backward`` kept, read now: data normally, Variables while recording
        (``create_graph``).  Raises ``RuntimeError`` if backward already freed them, or if a saved
        Variable was changed in place since."""
        if self._saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        recording = grad_mode.state.grad_enabled
        values = []
        for item in self._saved:
            role, variable, data = self._read(item)
            if role is not OTHER:
                self._check_version(item, variable)
            if role is OTHER or not recording:
                values.append(data)
            elif role is INPUT:
                values.append(variable)
            else:  # the output, rebuilt with this node as its grad_fn, so that its use is recorded
                values.append(item.kind._wrap(data, self._dtype, self))
        return tuple(values)

    saved_values = saved_tensors

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """For each forward input: does it need a gradient?"""
        return tuple(n is not None for n in self._next)

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Accepted for PyTorch compatibility: extra outputs are never differentiable here."""

    def __call__(self, *grad_outputs: Any) -> Any:
        """Run this node's backward on ``grad_outputs`` (as ``grad_fn(grad)`` in PyTorch)."""
        return self._fn.backward(self, *grad_outputs)

    # -- reading what was saved: the one decoder ----------------------------------
    def _read(self, item: Any) -> tuple[str, Any, Any]:
        """One saved item as it is now: ``(role, the Variable or None, its data)``."""
        kind = type(item)
        if kind is SavedOutput:
            out = item()
            return OUTPUT, out, self._output if out is None else out.data
        if kind is SavedVariable:
            return INPUT, item[0], item[0].data
        if isinstance(item, Variable):
            return INPUT, item, item.data
        return OTHER, None, item

    def _check_version(self, item: Any, variable: Any) -> None:
        """Raise if the saved ``item`` was changed in place since it was saved."""
        kind = type(item)
        if kind is SavedOutput:
            now, expected = item.value, 0
        else:
            counter = variable._version_counter
            now, expected = (0 if counter is None else counter.value), (item[1] if kind is SavedVariable else 0)
        if now != expected:
            what = f"[output], which is output 0 of {self.name()}," if kind is SavedOutput else \
                f"[{type(variable).__name__}]"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: {what} is at version {now}; expected version {expected} instead.\n"
                "What to do: don't change a value in place between the forward pass and backward; use an "
                "out-of-place op (y = x + 1 instead of x.add_(1)) or enable detect_anomaly to find it."
            )

    @property
    def saved(self) -> tuple[Any, ...] | str:
        """What this node keeps for backward, for display: a saved input as its Variable, the saved output
        as its data, anything else as it is (``FREED`` after backward)."""
        if self._saved is FREED:
            return FREED
        return tuple(variable if role is INPUT else data for role, variable, data in map(self._read, self._saved))

    def saved_entries(self) -> tuple[tuple[str, Any, Any], ...] | str:
        """``(role, variable, data)`` per saved item (role ``"input"``, ``"output"`` or ``"other"``), for
        the tracer and diagrams; ``FREED`` after backward."""
        if self._saved is FREED:
            return FREED
        return tuple(map(self._read, self._saved))

    @property
    def inputs(self) -> tuple[Any, ...]:
        """One entry per forward input: its data, through the edges; an input without an edge (a number, a
        Value that needs no gradient) as a built-in op saved it at its own position (``x * 3`` keeps 3),
        else ``None``."""
        saved = self._saved if self._saved is not FREED and "node_name" in self._fn.__dict__ else ()
        kept = [self._read(item) for item in saved]
        return tuple(
            nxt.output if nxt is not None else kept[k][2] if k < len(kept) and kept[k][0] is not OUTPUT else None
            for k, nxt in enumerate(self._next)
        )

    @property
    def output(self) -> Any:
        """The data of the Variable this node made: read from it while it lives, if saved, else as made."""
        for item in self._saved if self._saved is not FREED else ():
            if type(item) is SavedOutput:
                return self._read(item)[2]
        return self._output


# -- once_differentiable -------------------------------------------------------------------------------------
ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(backward: Any) -> Any:
    """Mark a custom Function's ``backward`` as not differentiable itself (PyTorch's
    ``torch.autograd.function.once_differentiable``).

    It then runs under ``no_grad`` on plain gradients.  When a recorded backward pass hands it gradients
    that require grad, its results are tied to a node (PyTorch's ``Error``) whose own backward raises
    ``RuntimeError``: differentiating through it a second time is refused instead of silently wrong.
    """
    import functools

    @functools.wraps(backward)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        with grad_mode.no_grad():
            outputs = backward(ctx, *(g.detach() if isinstance(g, Variable) else g for g in grads))  # type: ignore[attr-defined]
        tracked = [g for g in grads if isinstance(g, Variable) and g.requires_grad]
        if not grad_mode.is_grad_enabled() or not tracked:
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        marked = tuple(o if o is None else _DelayedError.apply(o, *tracked) for o in results)
        return marked[0] if single else marked

    return wrapper


class _DelayedError(Function):
    """The node once_differentiable ties its results to: the value passes, backward raises."""

    node_name = "Error"

    @staticmethod
    def forward(ctx, value, *tracked):
        return value

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ONCE + "\nWhat to do: write a backward that is itself differentiable (ordinary "
                           "arithmetic on its inputs), or don't take a second derivative through it.")
