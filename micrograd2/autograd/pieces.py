"""The core's pieces: one frozen record per engine, chosen once, that the core calls.

Four parts of the core are pieces a student may write (docs/course.md): what an op records,
how a leaf's ``.grad`` grows, how many edges lead into each node, and the walk. The core calls
them through its engine's record, ``Value.pieces`` or ``Tensor.pieces``, and never asks whose
they are. The Tensor engine's record adds its own (``tensors/pieces.py``).

* ``REFERENCE``: the core's own pieces. Every engine starts with them.
* ``choose(engine, pieces)``: an entry point (the CLI, the grader's processes) sets an engine's
  record, once, before any graph is built.
* ``using(engine, pieces)``: the one override, for a block (the probes that put one student
  piece in place alone, and tests).

``micrograd2/course/engine.py`` builds a student's record from a folder; the speed layer's
record (``unwatched_walk``) is the Value engine's own, chosen at its import.
"""
from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from .engine import count_dependencies, reference_walk
from .node import Node
from .protocol import Gradient, Walker

if TYPE_CHECKING:
    from .function import BackwardNode, Function
    from .variable import Variable


class Record(Protocol):
    def __call__(self, fn: type[Function], inputs: tuple[object, ...], output: Variable,
                 ctx: BackwardNode) -> bool: ...


class Accumulate(Protocol):
    def __call__(self, variable: Variable, grad: Gradient) -> Gradient: ...


CountDependencies = Callable[[Sequence[Node], "dict[Node, bool] | None"], "dict[Node, int]"]


NO_OPERATORS: Mapping[str, Callable[..., object]] = MappingProxyType({})


@dataclasses.dataclass(frozen=True)
class Pieces:
    """The pieces the core calls for one engine's graphs.

    * ``record(fn, inputs, output, ctx)``: is the op just run recorded? If so, ``ctx`` holds
      its edges (``ctx.connect`` gives it others) and the core makes it ``output.grad_fn``.
    * ``accumulate(variable, grad)``: what ``variable.grad`` holds once ``grad`` is added.
    * ``count_dependencies(roots, keep)``: for each node a pass reaches, the edges into it.
    * ``walk(engine, starts, retain_graph, captures, pass_no)``: one backward pass.
    * ``unwatched_walk``: the speed layer's walk for a pass that nothing watches, or None.
    * ``operators``: methods of the engine's class that this record replaces, by name (the
      speed layer's hot operators; ``choose`` sets them, NOTE [Where a record replaces a method]).
    * ``path``: how a run names this record in its opening line.
    * ``student``: the pieces that are a student's, by name (none for the core's).
    """

    path: str
    record: Record
    accumulate: Accumulate
    count_dependencies: CountDependencies
    walk: Walker
    unwatched_walk: Walker | None = None
    operators: Mapping[str, Callable[..., object]] = dataclasses.field(
        default_factory=lambda: NO_OPERATORS)
    student: tuple[str, ...] = ()


def record(fn: type[Function], inputs: tuple[object, ...], output: Variable,
           ctx: BackwardNode) -> bool:
    """The core's ``record``: an op is recorded when ``ctx`` got an edge to a node, that is
    when grad mode was on and an input required grad (``Function.apply`` made ``ctx`` so)."""
    return any(ctx._next_nodes)


def accumulate(variable: Variable, grad: Gradient) -> Gradient:
    """The core's ``accumulate``: the engine's own add (``Variable._accumulate``)."""
    return variable._accumulate(grad)


REFERENCE = Pieces("the reference core", record, accumulate, count_dependencies,
                   reference_walk)

# NOTE [Where a record replaces a method]
# A record may replace methods of its engine's class (the speed layer's ``Value.__mul__``…): this
# is the one place where that happens. Choosing a record puts back the class's own methods that the
# record before had replaced, then sets the new record's. So on the reference record every method
# is the one the class's file defines, and a breakpoint there fires.
_OWN: dict[tuple[type, str], object] = {}  # a class's own method, kept while a record replaces it


def choose(engine: type[Variable], pieces: Pieces) -> None:
    """Run ``engine``'s graphs on ``pieces`` from now on (an entry point's one choice), with its
    operators in place of the class's own methods (NOTE [Where a record replaces a method])."""
    for name in engine.pieces.operators:
        setattr(engine, name, _OWN.pop((engine, name)))
    for name, operator in pieces.operators.items():
        _OWN[(engine, name)] = engine.__dict__[name]
        setattr(engine, name, operator)
    engine.pieces = pieces


@contextlib.contextmanager
def using(engine: type[Variable], pieces: Pieces) -> Iterator[Pieces]:
    """Run ``engine``'s graphs on ``pieces`` inside the block, then on the record before."""
    before = engine.pieces
    choose(engine, pieces)
    try:
        yield pieces
    finally:
        choose(engine, before)
