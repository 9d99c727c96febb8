"""The graph's nodes: ``grad_fn`` objects, ``AccumulateGrad`` and saved values.

A node is created by each recorded op and is also the ``ctx`` its Function's
``forward`` and ``backward`` receive.  It holds, with no reference back to the
op's output (so no reference cycle, and reference counting frees a graph at
once):

* ``_next``: one entry per forward input: the input's node (its ``grad_fn``, or
  the ``AccumulateGrad`` of a leaf that requires grad) or ``None``;
* ``_seq``: a creation number (the backward walk's priority);
* ``_saved``: what ``save_for_backward`` kept, until backward frees it;
* ``_dtype``: the dtype of the op's output (its gradient is rounded to it).

Hooks (``register_hook``, ``retain_grad``) are rare, so they live beside the
nodes in ``HOOKS`` rather than in a slot every node would pay for.
"""
from __future__ import annotations

import itertools
import weakref
from operator import truth
from typing import Any, Callable

from . import grad_mode

_creation_order = itertools.count(0.0)  # floats: 24 bytes a node instead of an int's 32

FREED = "<freed>"  # what ``_saved`` becomes after a backward without retain_graph

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.\n"
    "What to do: call the first backward with retain_graph=True, or run the forward pass again."
)


class VersionCounter:
    """How many in-place ops have changed a Value's data (shared with its ``detach()``es)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class SavedVariable:
    """One input saved for backward whose data has been changed in place before: the Value and its
    version when saved.  (An input never changed in place — the usual case — is saved as the
    Value itself, version 0 implied: one object fewer per saved input for the garbage collector.)"""

    __slots__ = ("variable", "version")

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self.version = variable._version


# The classes of Values and Tensors (filled in by ``Variable.__init_subclass__``): a saved item of
# one of these types is an input saved at version 0.
VARIABLE_TYPES: set[type] = set()


def saved_input(variable: Any) -> Any:
    """How an input is kept for backward: itself (version 0), or a ``SavedVariable`` with its version."""
    return variable if variable._version_counter is None else SavedVariable(variable)


def unpack_input(variable: Any, version: int, node: Node, recording: bool) -> Any:
    """A saved input, checked: raise if it was changed in place since it was saved."""
    counter = variable._version_counter
    if counter is not None and counter.value != version:
        _raise_modified(variable, version, node, None)
    return variable if recording else variable.data


class SavedOutput(VersionCounter):
    """The op's own output, saved for backward (``exp``, ``tanh``…).

    Holds the output's data, not the output itself: the output holds the node,
    so holding the output here would be a reference cycle.  To notice in-place
    changes, it *is* the (fresh) output's version counter: one object, not two.
    """

    __slots__ = ("data", "kind")

    def __init__(self, output: Any) -> None:
        self.value = 0
        self.data = output.data
        self.kind = type(output)
        output._version_counter = self


def _raise_modified(var: Any, expected: int, node: Node, out_version: int | None) -> None:
    if out_version is None:
        what, now = f"[{type(var).__name__}]", var._version
    else:
        what, now = f"[output], which is output 0 of {node.name()},", out_version
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {what} is at version {now}; expected version {expected} instead.\n"
        "What to do: don't change a value in place between the forward pass and backward; "
        "use an out-of-place op (y = x + 1 instead of x.add_(1)) or enable detect_anomaly to find it."
    )


class Node:
    """A ``grad_fn``: one recorded op, waiting to turn its output's gradient into its inputs' gradients."""

    __slots__ = ("_next", "_seq", "_saved", "_dtype", "__weakref__")

    _next: tuple[Node | None, ...]
    _seq: float
    _saved: Any
    _dtype: str

    def name(self) -> str:
        """PyTorch's name for this node, e.g. ``MulBackward0``."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """One ``(node, 0)`` pair per input: where this node sends each gradient."""
        return tuple((n, 0) for n in self._next)

    @property
    def _hooks(self) -> list[Callable[[Any], Any]] | None:
        """The hooks run on the gradient arriving at this node (None if there are none)."""
        return HOOKS.get(self) if HOOKS.data else None  # type: ignore[attr-defined]

    def register_hook(self, hook: Callable[[Any], Any]) -> _HookHandle:
        """Run ``hook(grad)`` on the gradient arriving at this node; it may return a replacement."""
        hooks = HOOKS.setdefault(self, [])
        hooks.append(hook)
        return _HookHandle(hooks, hook)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class BackwardNode(Node):
    """The node of a ``Function``: it is the ``ctx`` of that Function's ``forward`` and ``backward``."""

    __slots__ = ()
    _fn: Any = None  # the Function class this node runs
    _saves_output = False

    # -- the ctx interface ------------------------------------------------------
    def save_for_backward(self, *items: Any) -> None:
        """Keep ``items`` (inputs, the output, or any other object) for backward.

        ``Function.apply`` then finds which Value each item is (see ``resolve_saved``).
        """
        self._saved = items

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """What ``save_for_backward`` kept: data normally, Values while recording (``create_graph``).

        Raises ``RuntimeError`` if backward already freed them, or if a saved Value
        was changed in place since.
        """
        saved = self._saved
        if saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        recording = grad_mode.on_everywhere or grad_mode.state.enabled
        values = []
        for item in saved:
            kind = type(item)
            if kind in VARIABLE_TYPES:  # an input, saved at version 0 (the usual case)
                values.append(unpack_input(item, 0, self, recording))
            elif kind is SavedOutput:  # the output; while recording, rebuilt with its graph
                if item.value != 0:
                    _raise_modified(None, 0, self, item.value)
                values.append(item.kind._wrap(item.data, self._dtype, self) if recording else item.data)
            elif kind is SavedVariable:
                values.append(unpack_input(item.variable, item.version, self, recording))
            else:
                values.append(item)  # a number or None, kept as it is
        return tuple(values)

    saved_values = saved_tensors

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """For each forward input: does it need a gradient?"""
        edges = self._next
        if len(edges) == 2:  # the common case, spelled out: twice as fast as the general line below
            return (edges[0] is not None, edges[1] is not None)
        return tuple(map(truth, edges))  # a node is truthy, None is not

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Accepted for PyTorch compatibility: extra outputs are never differentiable here."""

    def __call__(self, *grad_outputs: Any) -> Any:
        """Run this node's backward on ``grad_outputs`` by hand (as ``grad_fn(grad)`` in PyTorch)."""
        return self._fn.backward(self, *grad_outputs)

    # -- inspection ---------------------------------------------------------------
    @property
    def saved(self) -> tuple[Any, ...] | str:
        """What this node keeps for backward, for display (``FREED`` after backward)."""
        if self._saved is FREED:
            return FREED
        return tuple(
            s.variable if type(s) is SavedVariable else s.data if type(s) is SavedOutput else s
            for s in (self._saved or ())
        )


def resolve_saved(items: tuple[Any, ...], inputs: tuple[Any, ...], args: Any, result: Any,
                  output: Any) -> tuple[Any, ...]:
    """Turn what forward saved into saved-value records, once forward has returned.

    ``args[k]`` is what forward received for ``inputs[k]``: an item that *is* the
    data of an input Value is saved as that Value (itself at version 0, else a
    ``SavedVariable``), the returned ``result`` as the output (``SavedOutput``,
    checked first: relu may return its input's very float); numbers and derived
    values as they are.  Items are looked for first at their own position
    (``save_for_backward(a, b)``).
    """
    saved: list[Any] = []
    n = len(args)
    for j, item in enumerate(items):
        if item is result:
            saved.append(SavedOutput(output))
        elif item is None:
            saved.append(None)
        elif j < n and args[j] is item:  # save_for_backward(a, b): the input at its own position
            x = inputs[j]
            saved.append(x if x is item or x._version_counter is None else SavedVariable(x))
        else:
            saved.append(_find_input(item, inputs, args))
    return tuple(saved)


def _find_input(item: Any, inputs: tuple[Any, ...], args: list[Any]) -> Any:
    for x, arg in zip(inputs, args):
        if arg is item and x is not item:
            return saved_input(x)
    return item


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds the incoming gradient into the leaf's ``.grad``."""

    __slots__ = ("_variable",)

    def __init__(self, variable: Any) -> None:
        self._next = ()
        self._seq = next(_creation_order)
        self._saved = None
        self._dtype = variable.dtype
        self._variable = weakref.ref(variable)

    def name(self) -> str:
        return "AccumulateGrad"

    @property
    def variable(self) -> Any:
        """The leaf this node accumulates into."""
        return self._variable()


# node -> its hooks.  ``HOOKS.data`` (the plain dict inside) is tested first: it is empty, and the
# test costs nothing, unless somebody registered a hook.
HOOKS: weakref.WeakKeyDictionary[Node, list[Callable[[Any], Any]]] = weakref.WeakKeyDictionary()


class _HookHandle:
    """Returned by ``register_hook``: ``.remove()`` takes the hook off again."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list[Any], hook: Callable[[Any], Any]) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
