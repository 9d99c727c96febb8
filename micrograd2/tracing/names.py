"""How a trace names what it sees: nodes are ``MulBackward0#3``, values are ``x[1]``, ``x[1]·w[1]`` or ``v7``.

Lesson 1 teaches that a Value and the node that made it are two things, so
they are never named alike:

* a **node** is named after its class plus a counter per class within the
  trace: ``MulBackward0#2`` (``node_id``);
* a **Value** is named by its ``label`` if it has one; else an intermediate
  Value by its expression when that is short (``x[1]·w[1]``, ``relu(v1)``),
  else by a value counter (``v7``); an unlabelled leaf ``leaf#2``; a plain
  number ``const`` (``name_of``, ``value_name``).

Names are given once, on first sight, and kept: a Value's own label always
wins, even one given later.  Two Values with one label that meet in one op
(a neuron called twice: ``l2.n0 − l2.n0``) are told apart: the second is
``l2.n0′`` (``distinct``).  Nodes and Values are held weakly (``IdentityMap``),
so naming never keeps a graph alive.
"""
from __future__ import annotations

import weakref
from typing import Any

from ..autograd.variable import Variable
from .nodes import outputs_of

CONST = "const"  # the name of an input that is a plain number
MAX_EXPRESSION = 24  # longer expressions are not used as names: the value gets a counter (v7)


class _Ref(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that remembers its key in an ``IdentityMap``."""

    __slots__ = ("key",)
    key: int


class IdentityMap:
    """A dict keyed by object identity that holds its keys weakly (an entry goes when its key dies).

    Faster than ``weakref.WeakKeyDictionary`` for lookups (no weak reference made
    per lookup) and safe for keys whose ``==`` is elementwise (Tensors).
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[_Ref, Any]] = {}

    def get(self, obj: Any, default: Any = None) -> Any:
        entry = self._entries.get(id(obj))
        return entry[1] if entry is not None and entry[0]() is obj else default

    def __setitem__(self, obj: Any, value: Any) -> None:
        ref = _Ref(obj, self._gone)
        ref.key = id(obj)
        self._entries[ref.key] = (ref, value)

    def pop(self, obj: Any, default: Any = None) -> Any:
        entry = self._entries.get(id(obj))
        if entry is None or entry[0]() is not obj:
            return default
        del self._entries[id(obj)]
        return entry[1]

    def setdefault(self, obj: Any, default: Any) -> Any:
        found = self.get(obj, _MISSING)
        if found is _MISSING:
            self[obj] = found = default
        return found

    def __len__(self) -> int:
        return len(self._entries)

    def _gone(self, ref: Any) -> None:
        entry = self._entries.get(ref.key)
        if entry is not None and entry[0] is ref:
            del self._entries[ref.key]


_MISSING = object()


class NodeRecord:
    """What a trace knows of a node's forward op: its inputs, its output, and its formula."""

    __slots__ = ("op", "output", "output_ref", "input_refs", "input_names", "input_values", "input_ids",
                 "formula", "complete", "constants")

    def __init__(self, op: str | None, output: Any, output_ref: Any, input_refs: tuple[Any, ...],
                 input_names: tuple[str, ...], input_values: tuple[Any, ...],
                 input_ids: tuple[str | None, ...], formula: str | None = None, complete: bool = False) -> None:
        self.op, self.output, self.output_ref = op, output, output_ref
        self.input_refs, self.input_names, self.input_values = input_refs, input_names, input_values
        self.input_ids = input_ids
        self.formula = formula  # x[1]·w[1], written with the inputs' names when the record was made
        self.complete = complete  # every node of the graph below this one has a record too
        self.constants: tuple[tuple[str, Any], ...] = ()  # numbers the op saved (exponent), by name


def short(expression: str | None) -> bool:
    """Whether ``expression`` is short enough to name a value by."""
    return expression is not None and len(expression) <= MAX_EXPRESSION and "…" not in expression


class Names:
    """The names one trace (or one diagram) gives: nodes, values, leaves (see the module docstring)."""

    def __init__(self) -> None:
        self.ids = IdentityMap()  # node -> "MulBackward0#3"
        self.values = IdentityMap()  # node -> {k: the name of its output k, when unlabelled}
        self.others = IdentityMap()  # a Value no recorded node made -> "leaf#2" (or its expression)
        self.records = IdentityMap()  # node -> NodeRecord
        self.leaves = IdentityMap()  # a leaf's AccumulateGrad -> the leaf's name (kept once it is gone)
        self.relabels = IdentityMap()  # a Value whose label another Value has -> (label, its own name)
        self.counters: dict[str, int] = {}

    def number(self, base: str, sep: str = "#") -> str:
        """The next name of a series: ``MulBackward0#3``, ``leaf#2``, ``v7`` (``sep=""``)."""
        k = self.counters.get(base, 0) + 1
        self.counters[base] = k
        return f"{base}{sep}{k}"

    def node_id(self, node: Any) -> str:
        """This node's name, ``MulBackward0#3``, given on first sight."""
        name = self.ids.get(node)
        if name is None:
            name = self.ids[node] = self.number(node.name())
        return name

    def value_name(self, node: Any, nr: int = 0) -> str:
        """The name of the (unlabelled) Value ``node`` made, its output ``nr``: its short
        expression, else ``v7``."""
        names = self.values.setdefault(node, {})
        if nr not in names:
            names[nr] = self._new_value_name(node, nr)
        return str(names[nr])

    def _new_value_name(self, node: Any, nr: int) -> str:
        """Output ``nr``'s expression (``Unbind(x)[1]`` for a node of several outputs) if short, else ``v7``."""
        record = self.records.get(node)
        formula = record.formula if record is not None else None
        if formula is not None and len(outputs_of(node)) > 1:
            formula = f"{formula}[{nr}]"
        return formula if formula is not None and short(formula) else self.number("v", "")

    def name_of(self, x: Any) -> str:
        """How ``x`` is named: its label, else its value name, ``leaf#k``, or ``const`` for a number."""
        if not isinstance(x, Variable):
            return CONST
        if x.label:
            renamed = self.relabels.get(x)
            return renamed[1] if renamed is not None and renamed[0] == x.label else str(x.label)
        if x.grad_fn is not None:
            return self.value_name(x.grad_fn, x.output_nr)
        name = self.others.get(x)
        if name is None:
            name = self.others[x] = self.number("leaf")
        return name

    def name_result(self, x: Any, formula: str) -> str:
        """Name a Value made by an op that was not recorded (no input needs grad) by its expression."""
        if isinstance(x, Variable) and not x.label and x.grad_fn is None and self.others.get(x) is None:
            self.others[x] = formula if short(formula) else self.number("v", "")
        return self.name_of(x)

    def output_name(self, node: Any) -> str:
        """The name of the Value ``node`` made: its label if it is alive and has one, else its value name."""
        record = self.records.get(node)
        out = record.output_ref() if record is not None and record.output_ref is not None else None
        return self.name_of(out) if out is not None and out.label else self.value_name(node)

    def distinct(self, inputs: tuple[Any, ...], names: tuple[str, ...]) -> tuple[str, ...]:
        """``names`` of an op's ``inputs``, with a labelled Value that has the name of another input
        renamed for good: ``l2.n0′``, ``l2.n0″``, then ``l2.n0′4`` (the module docstring)."""
        if len(set(names)) == len(names):
            return names
        out = list(names)
        for i, x in enumerate(inputs):
            clash = any(out[j] == out[i] and inputs[j] is not x for j in range(i))
            if clash and isinstance(x, Variable) and x.label and self.relabels.get(x) is None:
                k = self.counters.get(f"{x.label}′", 1) + 1
                self.counters[f"{x.label}′"] = k
                mark = "′" * (k - 1) if k <= 3 else f"′{k}"
                self.relabels[x] = (x.label, f"{x.label}{mark}")
                out[i] = self.name_of(x)
        return tuple(out)
