"""Hooks: code the backward walk runs only when somebody registered one (PyTorch's kinds).

On a Variable (kept on the node its gradient goes to, ``gradient_edge(v)``):

* ``v.register_hook(fn)``: ``fn(grad)`` on v's gradient before that node runs. A non-None
  result replaces the gradient.
* ``v.retain_grad()``: writes the gradient into ``v.grad``, after v's other hooks (as PyTorch).
* ``leaf.register_post_accumulate_grad_hook(fn)``: ``fn(leaf)`` once ``leaf.grad`` holds the
  new sum.

On a node (a ``grad_fn``), with PyTorch's signatures:

* ``node.register_prehook(fn)``: ``fn(grad_outputs)`` before the node's backward;
* ``node.register_hook(fn)``: ``fn(grad_inputs, grad_outputs)`` after it.

Both may return replacements (a tuple of the same length) or ``None``. All hooks live in one
side table, ``HOOKS`` (node -> its ``NodeHooks``, the node held weakly), not in a slot every node
would pay for. The walk looks there only when it is not empty (NOTE [Speed] below).
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Callable, Protocol, Sequence, cast

from . import events, messages

if TYPE_CHECKING:
    from .node import Node
    from .protocol import Gradient
    from .variable import Variable

Hook = Callable[..., object]  # a hook as registered: its result replaces, unless it is None
TensorHook = tuple[int, Hook]  # a Variable hook: (its output_nr, fn), fn a Hook or a RetainGrad


class NodeHooks:
    """The hooks of one node: Variable hooks, prehooks, hooks and post-accumulate hooks."""

    __slots__ = ("tensor", "pre", "post", "accumulated")

    def __init__(self) -> None:
        self.tensor: list[TensorHook] = []
        self.pre: list[Hook] = []
        self.post: list[Hook] = []
        self.accumulated: list[Hook] = []


class HookTable:
    """Node -> its ``NodeHooks``. A node is held weakly: its entry goes when the node does (the
    callback of its weak reference takes it out), so hooks never keep a graph alive."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: dict[weakref.ref[Node], NodeHooks] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, node: Node) -> bool:
        return weakref.ref(node) in self.entries  # a weak reference equals another to its node

    def get(self, node: Node) -> NodeHooks | None:
        return self.entries.get(weakref.ref(node))

    def __getitem__(self, node: Node) -> NodeHooks:
        return self.entries[weakref.ref(node)]

    def __setitem__(self, node: Node, record: NodeHooks) -> None:
        self.entries[weakref.ref(node, self._forget)] = record

    def _forget(self, ref: weakref.ref[Node]) -> None:
        self.entries.pop(ref, None)


# NOTE [Speed]
# The walk tests ``REGISTERED``, the table's plain dict, before it looks a node up: its truth
# test is a C-level check, where the table's own ``len`` would be a Python call.
HOOKS = HookTable()
REGISTERED = HOOKS.entries


class RemovableHandle:
    """What registering a hook returns (PyTorch's ``RemovableHandle``).

    ``.remove()`` takes the hook off again."""

    __slots__ = ("_hooks", "_hook")

    def __init__(self, hooks: list[object], hook: object) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def add(node: Node, kind: str, hook: Hook | TensorHook) -> RemovableHandle:
    """Register ``hook`` on ``node`` as one of ``kind``.

    ``kind`` is ``"tensor"``, ``"pre"``, ``"post"`` or ``"accumulated"``."""
    record = HOOKS.get(node)
    if record is None:
        record = HOOKS[node] = NodeHooks()
    hooks: list[object] = getattr(record, kind)
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def tensor_hooks(node: Node) -> list[TensorHook]:
    """The Variable hooks registered on ``node``: ``(output_nr, fn)`` pairs, empty if none."""
    record = HOOKS.get(node) if REGISTERED else None
    return record.tensor if record is not None else []


class RetainGrad:
    """The hook ``retain_grad()`` registers: it writes the gradient into the Variable's ``.grad``.

    It does so with ``accumulate(variable, grad, node)``, the engine's ``accumulate_into``."""

    __slots__ = ("ref", "accumulate")
    retains_grad = True

    def __init__(self, variable: Variable,
                 accumulate: Callable[[Variable, Gradient, Node | None], None]) -> None:
        self.ref = weakref.ref(variable)
        self.accumulate = accumulate

    def __call__(self, grad: Gradient) -> None:
        variable = self.ref()
        if variable is None:
            return
        if variable._grad is None and getattr(grad, "requires_grad", False):
            variable._grad = grad.clone()  # type: ignore[union-attr]  # PyTorch's CloneBackward0
            return
        self.accumulate(variable, grad, variable.grad_fn)


def _retain_last(entry: TensorHook) -> bool:
    return isinstance(entry[1], RetainGrad)


def before_backward(node: Node, grads: Sequence[Gradient | None],
                    variable: Variable | None) -> Sequence[Gradient | None]:
    """The gradients ``grads`` arriving at ``node`` (one per output), once its Variable hooks and
    ``retain_grad`` ran.

    ``variable`` is the leaf of an ``AccumulateGrad``. A hook is called with ``None`` for an
    output that received no gradient, as PyTorch calls it (``retain_grad`` then writes nothing)."""
    record = HOOKS[node]
    grads = list(grads)
    for nr, hook in sorted(record.tensor, key=_retain_last):
        before = grads[nr]
        if before is None and isinstance(hook, RetainGrad):
            continue
        result = hook(before)
        if result is not None:
            grads[nr] = _checked_gradient(result, before)
        if events.listening and before is not None and not isinstance(hook, RetainGrad):
            events.emit("hook", node=node, variable=variable, hook=hook, before=before,
                        after=grads[nr])
    return grads


def before_node(node: Node, grads: Sequence[Gradient | None]) -> Sequence[Gradient | None]:
    """The gradients ``grads`` about to enter ``node``'s backward, once its prehooks ran.

    They do not run where ``autograd.grad`` captures the gradient and the walk stops, as in
    PyTorch."""
    record = HOOKS.get(node)
    if record is None or not record.pre:
        return grads
    grads = tuple(grads)
    for hook in tuple(record.pre):
        result = hook(grads)
        if result is not None:
            grads = _same_count(hook, result, grads)
    return grads


def after_backward(node: Node, grad_inputs: tuple[Gradient | None, ...],
                   grads: Sequence[Gradient | None]) -> tuple[Gradient | None, ...]:
    """``grad_inputs`` once the hooks on ``node``, ``fn(grad_inputs, grad_outputs)``, ran.

    ``grads`` are the gradients its backward received, one per output."""
    record = HOOKS.get(node)
    for hook in tuple(record.post) if record is not None else ():
        result = hook(grad_inputs, tuple(grads))
        if result is not None:
            grad_inputs = _same_count(hook, result, grad_inputs)
    return grad_inputs


def after_accumulate(node: Node, variable: Variable) -> None:
    """Run the post-accumulate-grad hooks of the leaf ``variable``, whose node is ``node``."""
    record = HOOKS.get(node)
    for hook in tuple(record.accumulated) if record is not None else ():
        hook(variable)


def _checked_gradient(result: object, before: Gradient | None) -> Gradient:
    """What a Variable hook returned for a Tensor's gradient: a Tensor (PyTorch's TypeError)."""
    if hasattr(before, "shape") and not hasattr(result, "shape"):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'\n"
                        "What to do: return a Tensor (e.g. grad * 2), or None to keep it.")
    return cast("Gradient", result)  # a float or a Value for a Value: as the hook made it


def _same_count(hook: Hook, result: object, before: tuple[Gradient | None, ...],
                ) -> tuple[Gradient | None, ...]:
    """What a node hook returned in place of ``before``: a tuple of as many values, each of its
    size and dtype (PyTorch's checks)."""
    if type(result) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'\n"
                        "What to do: return None, or a tuple with one gradient per entry received.")
    name = getattr(hook, "__name__", type(hook).__name__)
    if len(result) != len(before):
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values "
            f"(got {len(result)}, but expected {len(before)})\n"
            "What to do: return None, or a tuple with one gradient (or None) per entry "
            "of what the hook received."
        )
    for new, old in zip(result, before):
        check_same_value(hook, new, old)
    return result


class _TensorGradient(Protocol):
    """A Tensor's gradient, as ``check_same_value`` reads one."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> str: ...


def check_same_value(hook: Hook, returned: object, received: object) -> None:
    """PyTorch's checks on a gradient that a hook returned in place of the one it received: it
    keeps its size and dtype (a Value's float gradient has neither)."""
    if returned is None or received is None or not hasattr(received, "shape"):
        return
    new, old = cast(_TensorGradient, returned), cast(_TensorGradient, received)
    name = getattr(hook, "__name__", type(hook).__name__)
    if tuple(new.shape) != tuple(old.shape):
        raise RuntimeError(
            f"hook '{name}' has changed the size of value\n"
            f"What to do: return gradients of the shapes received ({list(old.shape)} here)."
        )
    if new.dtype != old.dtype:
        was, got = old.dtype, new.dtype
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {messages.legacy_type(was)} "
            f"got {messages.legacy_type(got)})\n"
            f"What to do: return a {was} gradient: g.to({was!r})."
        )
