"""The graph: nodes, the edges between them, the node of a leaf, and the values a node saves.

* A ``Node`` is a ``grad_fn``: one recorded op. It turns the gradient of its output into the
  gradients of its inputs.
* An ``Edge`` is ``(node, input_nr)``, as in PyTorch: where one gradient goes. ``input_nr`` says
  which of that node's outputs the gradient belongs to. It is 0 unless the node has several.
* ``AccumulateGrad`` is the node of a leaf that requires grad. It adds into the leaf's ``.grad``.
* ``SavedInput`` and ``SavedOutput``: a Variable that an op saved for backward, with its version.
* A ``VersionCounter`` counts the in-place changes of a Variable's data.
"""
from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, NamedTuple, Protocol

from . import hooks, messages

if TYPE_CHECKING:
    from .function import BackwardNode
    from .pieces import Pieces
    from .variable import Variable

FREED: Final = "<freed>"  # how a display shows a node's saved values once backward freed them
Freed = Literal["<freed>"]  # the type of FREED
INPUT, OUTPUT, OTHER = "input", "output", "other"  # what a saved item is

Data = Any  # what a Variable holds: a float (a Value's) or an array (a Tensor's)
Gradient = Any  # a float or an array; a Value or a Tensor while a backward records
Walker = Callable[..., "dict[Node, Gradient]"]  # a backward walk (engine.py's reference_walk)


class Engine(Protocol):
    """What the core asks of an engine's Variable class (``Value``, ``Tensor``).

    ``Variable`` gives each a default; an engine overrides what its data needs."""

    backward_receives_variables: ClassVar[bool]  # NOTE [What backward receives] (function.py)
    pieces: ClassVar[Pieces]  # the pieces the core calls for its graphs (pieces.py)

    @classmethod
    def _wrap(cls, data: Data, dtype: str | None, grad_fn: Node | None) -> Any:
        """A new Variable holding ``data`` rounded to ``dtype``, made by ``grad_fn``.

        ``grad_fn`` is None for a leaf."""

    @classmethod
    def _round_gradient(cls, grad: Gradient, dtype: str) -> Gradient:
        """The gradient ``grad`` rounded to ``dtype`` (itself for float64)."""

    @classmethod
    def _add_gradients(cls, a: Gradient, b: Gradient) -> Gradient:
        """``a + b`` for two gradients of one Variable."""

    @classmethod
    def _zeros_like(cls, data: Data, dtype: str) -> Gradient:
        """A zero gradient of ``data``'s shape, in ``dtype``."""

    def _seed(self, gradient: object) -> Gradient:
        """The gradient a backward from this Variable starts with."""

    def _as_grad(self, grad: Gradient) -> Gradient:
        """What ``.grad`` holds for the gradient ``grad`` of the walk: a fresh copy."""

    def _accumulate(self, grad: Gradient) -> Gradient:
        """``.grad`` after adding ``grad`` into it (a fresh copy the first time)."""


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

    def __call__(self, *grad_outputs: Gradient) -> Gradient | tuple[Gradient, ...]:
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
        self._data: Data | None = variable.data

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
    def output(self) -> Data | None:
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


# -- saved values ---------------------------------------------------------------------------------
# NOTE [Saved values]
# ``forward`` sees plain data, so ``save_for_backward`` receives data. Once forward has returned,
# ``save`` turns each item into what the node keeps, and ``SavedValues.unpacked`` reads them:
#   * the data of an input Variable -> a ``SavedInput``: the Variable itself and its version.
#     It is read at backward time, as in PyTorch: a change through ``.data`` shows.
#   * the output (the object forward returned) -> a ``SavedOutput``: its version counter and
#     version, not the Variable. The output holds this node, so keeping it would be a cycle.
#     It reads the node's ``_output``: the data the output had when it was saved (PyTorch
#     keeps a copy of it).
#   * anything else (a number, None) -> itself.
# Reading refuses a Variable changed in place since it was saved. An op saves only what its
# gradients need (``ctx.needs_input_grad``).
class SavedValues(tuple):  # type: ignore[type-arg]
    """What a node keeps for backward: its saved items in order, and whether backward has freed
    them (``FREED_VALUES``, which holds none). Its two readers are its methods."""

    __slots__ = ()
    freed = False

    def unpacked(self, node: BackwardNode, recording: bool) -> tuple[object, ...]:
        """Each item as backward reads it now (NOTE [What backward receives], function.py).

        Raises ``RuntimeError`` if a saved Variable was changed in place since it was saved."""
        return tuple([item.unpack(node, recording) if type(item) in RECORDS else item
                      for item in self])

    def entries(self, node: BackwardNode, names: Sequence[str]) -> tuple[SavedEntry, ...]:
        """Each item for display, named by ``names`` (``saved_tensors[j]`` past their end): the
        data ``unpacked`` reads, without its version check."""
        named = [names[j] if j < len(names) else f"saved_tensors[{j}]" for j in range(len(self))]
        return tuple([item.entry(node, name) if type(item) in RECORDS
                      else SavedEntry(name, OTHER, None, item) for name, item in zip(named, self)])


class _FreedValues(SavedValues):
    __slots__ = ()
    freed = True


NOTHING_SAVED = SavedValues()  # a node that saved nothing
FREED_VALUES: Final[SavedValues] = _FreedValues()  # what saved values become after a backward


class VersionCounter:
    """How many in-place ops have changed a Variable's data (shared with views and detaches)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


def version_counter(variable: Variable) -> VersionCounter:
    """``variable``'s version counter, made when first needed."""
    counter = variable._version_counter
    if counter is None:
        counter = variable._version_counter = VersionCounter()
    return counter


class SavedInput:
    """An input Variable that forward saved: the Variable itself, and its version then."""

    __slots__ = ("variable", "version")

    def __init__(self, variable: Variable) -> None:
        self.variable = variable  # read at backward time, as PyTorch does
        counter = variable._version_counter
        self.version = 0 if counter is None else counter.value

    def unpack(self, node: BackwardNode, recording: bool) -> object:
        """The Variable (or its data, NOTE [What backward receives]), if it is unchanged."""
        variable = self.variable
        _check_version(node, self.version, variable._version_counter, variable)
        return variable if recording or variable.backward_receives_variables else variable.data

    def entry(self, node: BackwardNode, name: str) -> SavedEntry:
        return SavedEntry(name, INPUT, self.variable, self.variable.data)


class SavedOutput:
    """An output of the op, saved: its number, its version counter and version then, its class.

    Not the Variable: it holds this node, so keeping it would be a cycle. Its data is the node's
    ``outputs[nr]``, the data it had when it was saved."""

    __slots__ = ("counter", "version", "kind", "nr")

    def __init__(self, output: Variable, nr: int = 0) -> None:
        self.counter = version_counter(output)
        self.version = self.counter.value
        self.kind: type[Engine] = type(output)  # Value or Tensor: to rebuild it while recording
        self.nr = nr  # which output (a custom Function may have several)

    def unpack(self, node: BackwardNode, recording: bool) -> object:
        """The output's data as saved, rebuilt into a Variable made by ``node`` while
        recording, if it is unchanged."""
        _check_version(node, self.version, self.counter, None)
        data = node._output if self.nr == 0 else node.outputs[self.nr]
        if recording or self.kind.backward_receives_variables:  # rebuilt, made by the node
            rebuilt = self.kind._wrap(data, node._dtype, node)
            rebuilt.output_nr = self.nr
            return rebuilt
        return data

    def entry(self, node: BackwardNode, name: str) -> SavedEntry:
        data = node._output if self.nr == 0 else node.outputs[self.nr]
        return SavedEntry(name, OUTPUT, None, data)


class SavedEntry(NamedTuple):
    """One saved item, for display: its name, its role, its Variable (an input's) and its data."""

    name: str
    role: str  # INPUT, OUTPUT or OTHER
    variable: Variable | None
    data: Data


RECORDS = (SavedInput, SavedOutput)  # what ``save`` makes of a saved Variable


Several = tuple[tuple[object, ...], list[Any]]  # what forward returned, the Variables made of it


def save(items: tuple[object, ...], inputs: tuple[Any, ...], args: tuple[object, ...],
         result: object, output: Variable, several: Several | None = None) -> SavedValues:
    """What a node keeps of ``items``, the data forward saved (NOTE [Saved values]).

    ``args[k]`` is what forward received for ``inputs[k]``. ``result`` is what it returned,
    and ``output`` the Variable made of it. ``several``: for a forward of several outputs, all
    it returned and the Variables made of them (an output saved is any of them)."""
    saved = list(items)
    for j, item in enumerate(items):
        if item is None:
            continue
        if item is result:  # looked for first: relu may return its input's very float
            saved[j] = SavedOutput(output)
            continue
        other = None if several is None else _another_output(several, item)
        if other is not None:
            saved[j] = other
            continue
        at = j if j < len(args) and args[j] is item else _position(args, item)
        if at >= 0 and inputs[at] is not item:  # an input Variable's data (a number is itself)
            saved[j] = SavedInput(inputs[at])
    return SavedValues(saved)


def _another_output(several: Several, item: object) -> SavedOutput | None:
    """``item`` saved as output k >= 1 of a forward of several, if it is one in the graph."""
    nr = _position(several[0], item)
    if nr > 0 and getattr(several[1][nr], "grad_fn", None) is not None:
        return SavedOutput(several[1][nr], nr)
    return None


def _position(args: tuple[object, ...], item: object) -> int:
    """Where ``item`` is among ``args`` (-1: not there)."""
    return next((k for k, arg in enumerate(args) if arg is item), -1)


def _check_version(node: BackwardNode, saved: int, counter: VersionCounter | None,
                   variable: Variable | None) -> None:
    now = 0 if counter is None else counter.value
    if now != saved:
        role = OUTPUT if variable is None else INPUT
        raise RuntimeError(messages.modified_in_place(node, role, variable, now, saved))
