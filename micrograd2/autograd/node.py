"""The graph's nodes: what every ``grad_fn`` has, and ``AccumulateGrad``, the node of a leaf.

A node is made by each recorded op (a ``BackwardNode``, see ``function.py``) and
holds, with no reference to the Value it made (so no reference cycle, and
reference counting frees a graph at once):

* ``_next``: one entry per forward input: the input's node (its ``grad_fn``, or
  the ``AccumulateGrad`` of a leaf that requires grad) or ``None``;
* ``_seq``: a creation number (the backward walk's priority);
* ``_saved``: what the op kept for backward, until backward frees it;
* ``_dtype``: the dtype of the op's output (its gradient is rounded to it).

Hooks (``register_hook``, ``retain_grad``) are rare, so they live beside the
nodes in ``HOOKS`` rather than in a slot every node would pay for.
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any, Callable

from ..dtypes import FLOAT64  # the dtype whose gradients are never rounded
from . import events, grad_mode

_creation_order = itertools.count(0.0)  # floats: 24 bytes a node instead of an int's 32

FREED = "<freed>"  # what ``_saved`` becomes after a backward without retain_graph


class VersionCounter:
    """How many in-place ops have changed a Value's data (shared with its ``detach()``es)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


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
    def output(self) -> Any:
        """The data of the Variable this node made (a float, or an array)."""
        raise NotImplementedError

    @property
    def inputs(self) -> tuple[Any, ...]:
        """One entry per forward input: its data, reached through the edges (``None`` for an input
        without an edge — a number, or a Value that needs no gradient — or a leaf that is gone)."""
        return tuple(None if nxt is None else nxt.output for nxt in self._next)

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


def gradient_edge(variable: Any) -> Node:
    """The node a gradient for ``variable`` goes to: its ``grad_fn``, or the ``AccumulateGrad`` of a leaf
    (made on first use, then kept by the leaf).  PyTorch's ``torch.autograd.graph.gradient_edge``."""
    node = variable.grad_fn
    if node is None:
        node = variable._accumulator
        if node is None:
            node = variable._accumulator = AccumulateGrad(variable)
    return node  # type: ignore[no-any-return]


def accumulate_into(variable: Any, grad: Any, node: Any) -> None:
    """``variable.grad += grad`` (``.grad`` is set to a fresh copy the first time).

    As PyTorch's ``AccumulateGrad``: outside ``create_graph`` a ``.grad`` that is a Variable (a Tensor)
    is added to **in place**, so it keeps its identity (``g = p.grad`` sees the new sum); while recording,
    the sum is a new Variable in the graph.  (A Value's ``.grad`` is a float: nothing to keep.)
    """
    old = variable._grad
    if old is None:
        new = variable._as_grad(grad)
    else:
        new = old + grad
        if variable.dtype != FLOAT64:
            new = variable._round_gradient(new, variable.dtype)
        if hasattr(old, "_assign") and old.grad_fn is None and not grad_mode.is_grad_enabled():
            old._assign(getattr(new, "data", new))
            old._bump_version()
            new = old
    variable._grad = new
    if events.listening:
        events.emit("accumulate", node=node, variable=variable, old=old, new=new)


class _RetainGrad:
    """The hook ``retain_grad()`` installs: writes the gradient into the Variable's ``.grad``."""

    __slots__ = ("ref",)

    def __init__(self, variable: Any) -> None:
        self.ref = weakref.ref(variable)

    def __call__(self, grad: Any) -> None:
        variable = self.ref()
        if variable is not None:
            accumulate_into(variable, grad, variable.grad_fn)


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
