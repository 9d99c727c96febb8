"""The values a node saves for backward, and the version counters that guard them.

* ``save`` turns what ``forward`` saved into records: a ``SavedInput`` per saved input Variable
  (the Variable and its version), a ``SavedOutput`` for the output (its version counter), and
  anything else as itself. A node keeps them in a ``SavedValues`` record, freed after backward.
* A ``VersionCounter`` counts the in-place changes of a Variable's data. Reading a saved Variable
  that changed since it was saved raises PyTorch's ``RuntimeError``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from . import messages
from .protocol import Data, Engine

if TYPE_CHECKING:
    from .function import BackwardNode
    from .variable import Variable

FREED: Final = "<freed>"  # how a display shows a node's saved values once backward freed them
Freed = Literal["<freed>"]  # the type of FREED
INPUT, OUTPUT, OTHER = "input", "output", "other"  # what a saved item is


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
        read: list[object] = []
        for item in self:
            read.append(item.unpack(node, recording) if type(item) in RECORDS else item)
        return tuple(read)

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


# NOTE [What an op keeps, and when]
# A built-in op declares what its backward reads, as PyTorch's derivatives.yaml does, instead of
# calling ``save_for_backward``: one ``Keep(source, when)`` per saved item. ``source`` is an
# input's position, or ``RESULT``; ``when`` is the input whose gradient reads it (``ALWAYS``:
# every gradient does). ``Mul`` keeps ``(Keep(0, when=1), Keep(1, when=0))``: a only if b needs
# a gradient. ``kept`` builds the node's saved values from it, on both paths, without searching
# what forward returned. A custom Function calls ``save_for_backward``, and ``save`` sorts out
# what it saved, as PyTorch's ``ctx`` does.
RESULT = -1  # Keep's source: the op's output
ALWAYS = -1  # Keep's when: whichever inputs need a gradient


class Keep(NamedTuple):
    """One item an op keeps for backward: its ``source`` (an input's position, or ``RESULT``),
    kept only if input ``when`` needs a gradient (``ALWAYS``: kept whenever the op records)."""

    source: int
    when: int = ALWAYS


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
