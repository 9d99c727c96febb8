"""The graph: nodes, the edges between them, and the node of a leaf.

* A ``Node`` is a ``grad_fn``: one recorded op. It turns the gradient of its output into the
  gradients of its inputs.
* An ``Edge`` is ``(node, input_nr)``, as in PyTorch: where one gradient goes. ``input_nr`` says
  which of that node's outputs the gradient belongs to. It is 0 unless the node has several.
* ``AccumulateGrad`` is the node of a leaf that requires grad. It adds into the leaf's ``.grad``.

What a node saves is ``saved.py``'s; what the core asks of an engine, ``protocol.py``'s.
"""
from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from . import hooks
from .protocol import Data, Gradient
from .saved import FREED, INPUT, NOTHING_SAVED, Freed, SavedEntry, SavedValues

if TYPE_CHECKING:
    from .variable import Variable


class Edge(NamedTuple):
    """Where one gradient goes, as PyTorch's pair ``(node, input_nr)``: ``input_nr`` says which
    of that node's outputs the gradient belongs to (0 unless it has several)."""

    node: Node | None
    input_nr: int

    def __repr__(self) -> str:  # printed as PyTorch prints its pairs
        return f"({self.node!r}, {self.input_nr})"


_as_edge = tuple.__new__  # an Edge from a pair in one C call (NamedTuple's __new__ is Python)


class _Zeros(dict[int, tuple[int, ...]]):
    """``ZEROS[n]``: the shared tuple of ``n`` zeros (NOTE [Memory]), made on first use.

    It is the input numbers of a node whose edges all lead to output 0."""

    def __missing__(self, n: int) -> tuple[int, ...]:
        nrs = self[n] = (0,) * n
        return nrs


ZEROS = _Zeros()

# The next creation number (PyTorch's ``sequence_nr``): the walk runs later nodes first.
new_sequence_nr: Callable[[], int] = itertools.count().__next__


# NOTE [Memory]
# A node keeps its edges as two parallel tuples, ``_next_nodes`` and ``_next_nrs``, not as a
# tuple of ``Edge``s: measured with tracemalloc, a two-input node's edges take 192 bytes as
# Edges and 56 as a tuple of nodes, past the ceiling of 350 bytes a node. Almost every input
# number is 0, so ``_next_nrs`` is usually one tuple shared by every node (``ZEROS``). Readers
# take the pairs from ``edges()`` (the walk) or Edges from ``next_functions`` (PyTorch's
# accessor): nobody else zips the two tuples.
class Node:
    """A ``grad_fn``: one recorded op. Its edges, creation number, saved values and dtype."""

    __slots__ = ("_next_nodes", "_next_nrs", "_sequence_nr", "_saved", "_dtype", "__weakref__")
    _user_function = False  # a custom Function's node: custom.py's rules for its ctx and grads
    _per_output = False  # its backward takes one gradient per output (custom.py's outputs)
    _several = False  # it made several differentiable outputs
    _next_nodes: tuple[Node | None, ...]
    _next_nrs: tuple[int, ...]
    _sequence_nr: int
    _saved: SavedValues  # what it keeps for backward (NOTE [Saved values])
    _dtype: str

    def name(self) -> str:
        """PyTorch's name for this node, e.g. ``MulBackward0``."""
        return type(self).__name__

    def __call__(self, *grad_outputs: Gradient | None) -> Gradient | tuple[Gradient, ...]:
        """Run this node's backward on ``grad_outputs`` (``BackwardNode``'s)."""
        raise NotImplementedError(f"{self.name()} has no backward to call")

    def sequence_nr(self) -> int:
        """This node's creation number (PyTorch's ``_sequence_nr()``)."""
        return self._sequence_nr

    def edges(self) -> Iterator[tuple[Node | None, int]]:
        """Each edge, one per input, as the pair ``(node, input_nr)``: the walk's reader."""
        return zip(self._next_nodes, self._next_nrs)

    @property
    def next_functions(self) -> tuple[Edge, ...]:
        """One ``Edge(node, input_nr)`` per input: where this node sends each gradient."""
        return tuple([_as_edge(Edge, pair) for pair in self.edges()])

    @property
    def several_outputs(self) -> bool:
        """Did this node make several differentiable outputs (a gradient for each)?"""
        return self._several

    def register_hook(self, hook: hooks.Hook) -> hooks.RemovableHandle:
        """Run ``hook(grad_inputs, grad_outputs)`` after this node's backward.

        It may return new grad_inputs."""
        return hooks.add(self, "post", hook)

    def register_prehook(self, hook: hooks.Hook) -> hooks.RemovableHandle:
        """Run ``hook(grad_outputs)`` before this node's backward.

        It may return new grad_outputs."""
        return hooks.add(self, "pre", hook)

    # -- for display: the tracer and the diagrams read a node through these -----------------
    @property
    def output(self) -> Data:
        """The data of the Variable this node made (a float, or an array)."""
        raise NotImplementedError

    @property
    def inputs(self) -> tuple[Data | None, ...]:
        """One entry per forward input: its data, reached through the edges (``None`` if none)."""
        return tuple(None if node is None else node.output for node in self._next_nodes)

    def saved_entries(self) -> tuple[SavedEntry, ...] | Freed:
        """What this node saved, one ``SavedEntry`` per item (``FREED`` after backward)."""
        return ()

    @property
    def saved(self) -> tuple[object, ...] | Freed:
        """What this node keeps for backward (``FREED`` after backward).

        A saved input is its Variable, the saved output its data, anything else itself."""
        entries = self.saved_entries()
        if entries == FREED:
            return FREED
        return tuple(e.variable if e.role is INPUT else e.data for e in entries)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: it adds the incoming gradient into ``.grad``."""

    __slots__ = ("_variable", "_label", "_data")

    # NOTE [A leaf remembered]
    # The node holds its leaf weakly (the leaf holds its node: a strong reference would be a cycle),
    # so a diagram drawn after the student's ``del x`` (or after a lesson's cell ended) would find
    # no leaf. The node keeps what a diagram shows of it: the leaf's label and data, as last seen
    # (when the node was made, and each time ``label`` or ``output`` read the live leaf). Only this
    # node pays for them: two slots, and the data of a leaf that is gone kept while its graph lives.
    def __init__(self, variable: Variable) -> None:
        self._next_nodes, self._next_nrs = (), ZEROS[0]
        self._sequence_nr = new_sequence_nr()
        self._saved = NOTHING_SAVED
        self._dtype = variable.dtype
        self._variable = weakref.ref(variable)  # the leaf holds its node: a strong one is a cycle
        self._label: str | None = variable.label
        self._data: Data = variable.data

    def name(self) -> str:
        return "AccumulateGrad"

    @property
    def variable(self) -> Variable | None:
        """The leaf this node accumulates into (``None`` once the leaf is gone)."""
        return self._variable()

    @property
    def label(self) -> str | None:
        """The leaf's label: now, or as last seen once it is gone (NOTE [A leaf remembered])."""
        leaf = self._variable()
        if leaf is not None:
            self._label = leaf.label
        return self._label

    @property
    def output(self) -> Data:
        """The leaf's data: now, or as last seen once it is gone (NOTE [A leaf remembered])."""
        leaf = self._variable()
        if leaf is not None:
            self._data = leaf.data
        return self._data


def gradient_node(variable: Variable) -> Node:
    """The node a gradient for ``variable`` goes to.

    It is its ``grad_fn``, or else the ``AccumulateGrad`` of a leaf, made on first use and then
    kept by the leaf."""
    node = variable.grad_fn
    if node is None:
        node = variable._accumulator
        if node is None:
            node = variable._accumulator = AccumulateGrad(variable)
    return node


def gradient_edge(variable: Variable) -> Edge:
    """The edge a gradient for ``variable`` goes along: ``(its node, its output_nr)``."""
    return Edge(gradient_node(variable), variable.output_nr)
