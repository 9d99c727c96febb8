"""How the presentation layers read a graph: the one walk, a Variable's node and ``.grad``, and what
a node saved, by name.

The tracer, the diagrams, the exercises' harness and the lessons read the core only through these
functions, which use only its public accessors (``next_functions``, ``sequence_nr()``, ``outputs``,
``saved_entries()``, ``gradient_edge``).

* ``walk(roots)``: every edge from the roots down, depth first, without recursion (``Visit``);
  ``reachable(roots)``: each node once.  They need only ``next_functions``, so they walk PyTorch's
  graphs too.
* ``node_of(v)``: the node a gradient for ``v`` goes to; ``grad_of(v)``: its ``.grad`` for display.
* ``outputs_of(node)``: the data of each output, by output number.
* ``saved_items(node)``: what the node keeps for backward, each item under PyTorch's name
  (``self``, ``other``, ``result``, ``exponent``…).
* ``edge_roundings(node, grads)``: which of a visit's gradients the walk rounds on their way to
  the next node, and to what; ``low_precision(grads)``: which were computed in float16 or
  bfloat16; ``unrecorded_reason(inputs)``: why an op made no node.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, NamedTuple

from .. import dtypes
from ..autograd import gradient_edge
from ..autograd.function import BackwardNode
from ..autograd.grad_mode import is_grad_enabled, is_inference_mode_enabled
from ..autograd.saved import FREED, OTHER, SavedEntry

PREFIX = "_saved_"  # PyTorch's prefix for what a node keeps (``_saved_self``), which torchviz reads


# -- the walk -----------------------------------------------------------------------------------
class Visit(NamedTuple):
    """One edge the walk follows: ``parent``'s edge number ``edge_nr`` leads to ``node``."""

    node: Any  # None: an input that needs no gradient
    parent: Any  # None for a root
    edge_nr: int  # which of parent's edges (0 for a root)
    first: bool  # the first time the walk reaches node: only then does it go below it


def walk(roots: Iterable[Any], expand: Callable[[Any], bool] | None = None) -> Iterator[Visit]:
    """Every edge from ``roots`` down, in the order a recursive walk meets them, but with a stack,
    so a 10^6-node graph works.  The walk goes below a node only the first time it reaches it, and
    only if ``expand(node)`` is true (always, without ``expand``)."""
    seen: set[Any] = set()
    stack = [Visit(root, None, 0, False) for root in reversed(list(roots))]
    while stack:
        node, parent, edge_nr, _ = stack.pop()
        first = node is not None and node not in seen
        yield Visit(node, parent, edge_nr, first)
        if first:
            seen.add(node)
            if expand is None or expand(node):
                edges = node.next_functions
                for i in reversed(range(len(edges))):  # reversed: the stack pops edge 0 first
                    stack.append(Visit(edges[i][0], node, i, False))


def reachable(roots: Iterable[Any], expand: Callable[[Any], bool] | None = None) -> Iterator[Any]:
    """Each node reachable from ``roots`` (None entries are skipped), once, depth first."""
    return (visit.node for visit in walk(roots, expand) if visit.first)


# -- Variables ----------------------------------------------------------------------------------
def node_of(variable: Any) -> Any:
    """The node a gradient for ``variable`` goes to: its ``grad_fn``, a leaf's ``AccumulateGrad``
    if it requires grad, else ``None`` (a leaf outside any graph)."""
    if variable.grad_fn is None and not variable.requires_grad:
        return None
    return gradient_edge(variable)[0]


def grad_of(variable: Any) -> Any:
    """``variable.grad`` as a diagram shows it: a non-leaf that does not retain its gradient has
    none (PyTorch warns when one reads it; we don't)."""
    if variable.is_leaf or variable.retains_grad:
        return variable.grad
    return None


def outputs_of(node: Any) -> tuple[Any, ...]:
    """The data of each output ``node`` made, by output number (a leaf's node: the leaf's data)."""
    return node.outputs if isinstance(node, BackwardNode) else (node.output,)


def creation_order(nodes: Iterable[Any]) -> list[Any]:
    """``nodes`` in the order they were created (``sequence_nr()``)."""
    return sorted(nodes, key=lambda node: node.sequence_nr())


# -- saved values, by name ----------------------------------------------------------------------
# NOTE [Saved values by name]
# A formula needs a node's exponent, its base or its result: it asks for them by PyTorch's names,
# never by position, since ops of the two engines save in different orders.  The names come from
# the Function's ``saved_names`` (``saved_entries()``); an op may also show an attribute the
# PyTorch way, as a ``_saved_<name>`` property (``PowBackward0._saved_exponent``): those follow.
_ATTRIBUTES: dict[type, tuple[str, ...]] = {}


def saved_items(node: Any) -> tuple[SavedEntry, ...] | str:
    """What ``node`` keeps for backward, one ``SavedEntry(name, role, variable, data)`` per item
    (NOTE [Saved values by name]); ``FREED`` once backward freed it."""
    entries = node.saved_entries()
    if isinstance(entries, str):  # FREED
        return FREED
    names = {entry.name for entry in entries}
    extra = [SavedEntry(name, OTHER, None, getattr(node, PREFIX + name))
             for name in _attribute_names(type(node)) if name not in names]
    return tuple(entries) + tuple(extra)


def _attribute_names(cls: type) -> tuple[str, ...]:
    """The names of the ``_saved_<name>`` properties of a node class (looked up once per class)."""
    names = _ATTRIBUTES.get(cls)
    if names is None:
        names = _ATTRIBUTES[cls] = tuple(a[len(PREFIX):] for a in dir(cls) if a.startswith(PREFIX))
    return names


# -- what the walk does to a gradient -------------------------------------------------------------
# NOTE [Rounded on the way]
# The engine rounds each gradient a visit sends to the dtype of the node it goes to (PyTorch casts
# it to its input's dtype), before adding it to what that node received.  A float16 output turns
# a gradient of 1e-08 into 0.0 and one of 65536.0 into inf there.  The narration must print the
# number that arrives, so the tracer records, per input, the rounded gradient when it differs.
def edge_roundings(node: Any, grads: Iterable[Any]) -> tuple[tuple[int, str, Any], ...]:
    """``(input index, dtype, rounded gradient)`` for each gradient of ``node``'s visit that the
    walk changes by rounding it to the dtype of the node it goes to (NOTE [Rounded on the way])."""
    from .values import snapshot

    found = []
    for i, (grad, (nxt, _)) in enumerate(zip(grads, node.next_functions)):
        dtype = getattr(nxt, "_dtype", None)
        if grad is None or dtype is None:
            continue
        if isinstance(grad, float):
            rounded = dtypes.round_to(grad, dtype)
        else:
            rounder = getattr(type(grad), "_round_gradient", None)
            rounded = grad if rounder is None else rounder(grad, dtype)
        if rounded is grad or (isinstance(grad, float) and _same(grad, rounded)):
            continue  # nothing changed (most edges): no snapshot taken
        after = snapshot(rounded)
        if not _same(snapshot(grad), after):
            found.append((i, str(dtype), after))
    return tuple(found)


def _same(a: Any, b: Any) -> bool:
    """Whether two snapshots hold the same numbers (NaN equal to NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if callable(getattr(a, "all", None)) and hasattr(b, "shape"):  # two small arrays
        if a.shape != b.shape:
            return False
        return bool(((a == b) | ((a != a) & (b != b))).all())
    return bool(a == b)  # numbers, summaries of large arrays


LOW_PRECISION = ("float16", "bfloat16")


def low_precision(grads: Iterable[Any]) -> tuple[str | None, ...]:
    """For each gradient of a visit, the low-precision dtype it was computed in (a node of a float16
    Tensor rounds its own arithmetic), else None; ``()`` when none is (the usual case)."""
    found = tuple(str(getattr(g, "dtype", "")) if str(getattr(g, "dtype", "")) in LOW_PRECISION else None
                  for g in grads)
    return found if any(found) else ()


def unrecorded_reason(inputs: Iterable[Any]) -> str:
    """Why an op made no node: inference mode, grad mode off, or no input that requires grad."""
    if is_inference_mode_enabled():
        return "inference mode"
    wanted = any(getattr(x, "requires_grad", False) for x in inputs)
    if wanted and not is_grad_enabled():
        return "grad mode is off"
    return "no input requires grad"
