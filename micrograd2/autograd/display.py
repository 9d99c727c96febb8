"""How the tracer and the diagrams see a node: what it saved, its inputs and its output, read without
raising (the walk reads saved values through ``saved_tensors`` instead).

``NodeDisplay`` and ``BackwardNodeDisplay`` are mixins of ``engine.Node`` and ``engine.BackwardNode``
(slot-free, so nodes stay small); ``FREED`` and the roles of saved items are named here.
"""
from __future__ import annotations

from typing import Any, Iterator

FREED = "<freed>"  # what a node's ``_saved`` becomes after a backward without retain_graph
INPUT, OUTPUT, OTHER = "input", "output", "other"  # the roles of saved items


class NodeDisplay:
    """A node's inputs and output, for display."""

    __slots__ = ()
    _next: tuple[Any, ...]

    @property
    def output(self) -> Any:
        """The data of the Variable this node made (a float, or an array)."""
        raise NotImplementedError

    @property
    def inputs(self) -> tuple[Any, ...]:
        """One entry per forward input: its data, reached through the edges (``None`` if none)."""
        return tuple(None if e is None else (e[0] if type(e) is tuple else e).output for e in self._next)


class BackwardNodeDisplay(NodeDisplay):
    """What a Function's node saved, its inputs and its output, for display."""

    __slots__ = ()
    _saved: Any
    _output: Any
    _custom: bool

    def _read(self, items: tuple[Any, ...], check: bool = False) -> Iterator[tuple[str, Any, Any]]:
        raise NotImplementedError  # the node's own (engine.BackwardNode._read)

    @property
    def saved(self) -> tuple[Any, ...] | str:
        """What this node keeps for backward: a saved input as its Variable, the saved output as its data,
        anything else as it is (``FREED`` after backward)."""
        if self._saved is FREED:
            return FREED
        return tuple(variable if role is INPUT else data for role, variable, data in self._read(self._saved))

    def saved_entries(self) -> tuple[tuple[str, Any, Any], ...] | str:
        """``(role, variable, data)`` per saved item (role ``"input"``, ``"output"`` or ``"other"``)."""
        return FREED if self._saved is FREED else tuple(self._read(self._saved))

    @property
    def inputs(self) -> tuple[Any, ...]:
        """One entry per forward input: its data, through the edges; an input without an edge as a built-in
        op saved it at its own position (``x * 3`` keeps 3), else ``None``."""
        saved = self._saved if self._saved is not FREED and not self._custom else ()
        kept = list(self._read(saved))
        return tuple(
            (e[0] if type(e) is tuple else e).output if e is not None
            else kept[k][2] if k < len(kept) and kept[k][0] is not OUTPUT else None
            for k, e in enumerate(self._next)
        )

    @property
    def output(self) -> Any:
        """The data of the Variable this node made: read from it while it lives, if saved, else as made."""
        for role, _, data in self._read(self._saved if self._saved is not FREED else ()):
            if role is OUTPUT:
                return data
        return self._output
