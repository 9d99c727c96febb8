"""What a trace records: ``TraceEvent`` (one thing autograd did) and ``Pass`` (one backward call).

Plain data only — names and value snapshots, never Values or nodes — so a
trace can be kept, compared, written as JSON and rendered long after the graph
is gone.  Every event has every field; a field that does not apply to its kind
is ``None`` (or an empty tuple).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .values import to_jsonable

KINDS = ("forward", "backward", "accumulate", "hook", "free")
Named = tuple[tuple[str, Any], ...]  # (name, value) pairs


@dataclass(slots=True)
class TraceEvent:
    """One thing autograd did, as plain data.

    * ``kind``: ``"forward"`` (an op ran), ``"backward"`` (a node was visited),
      ``"accumulate"`` (a ``.grad`` was written: a leaf's ``AccumulateGrad``, or a
      ``retain_grad()`` Value, then ``leaf`` is False), ``"hook"`` (a hook ran),
      ``"free"`` (a node's saved values were released).
    * ``step``: the number of the backward visit, from 1, continuing across passes;
      accumulate, hook and free events carry the step of the visit that caused
      them; ``None`` for forward events (and for what no visit caused).
    * ``pass_no``: which backward pass of the trace, from 1 (``None`` for forward).
    * ``node``: the node's class name (``MulBackward0``; ``AccumulateGrad`` for
      accumulate events); ``node_id``: its name in this trace, unique (``MulBackward0#3``),
      ``None`` for a forward op that was not recorded (no input requires grad, or no_grad).
    * ``label``: the Value the event is about — a forward/backward event's output,
      an accumulate/hook event's Value — by its label, else ``MulBackward0#3``,
      ``leaf#2`` (unlabelled leaf).
    * ``output``: the op's forward value; ``inputs``: its inputs as ``(name, value)``
      pairs (a number is named ``const``); ``input_ids``: for each input, the
      ``node_id`` its gradient goes to (``None``: no gradient); ``input_nrs``: for each input, which
      output of that node it is (its edge's ``input_nr``: 0, or k for output k of a node of many).
    * ``grad_output``: the upstream gradient; ``grad_inputs``: ``(name, gradient)``
      per input; ``saved``: ``(name, value)`` of what the node saved (forward, backward) or freed
      (free), named as the Value (``None`` for a number); ``saved_names``: the op's name for each,
      PyTorch's (``self``, ``other``, ``result``, ``exponent``), which formulas read them by.
    * ``old``/``new``: ``.grad`` before and after (accumulate); ``before``/``after``:
      the gradient a hook received and passed on (hook); ``hook``: its name.
    * ``op``: the Function's class name (``Mul``, ``SquareAndDouble``).
    * ``rounded``: ``(input index, dtype, gradient)`` for each gradient of a visit that the walk
      rounded on its way to the next node (NOTE [Rounded on the way] in nodes.py); ``why``: the
      reason a forward op was not recorded (``"grad mode is off"``, ``"no input requires grad"``);
      ``computed_in``: per input of a visit, the low-precision dtype its gradient was computed (and
      rounded) in (``"float16"``, ``"bfloat16"``), else ``None``; empty when there is none.

    Values are snapshots (``tracing.values.snapshot``): floats, small arrays, or summaries.
    """

    kind: str
    step: int | None = None
    pass_no: int | None = None
    node: str | None = None
    node_id: str | None = None
    label: str | None = None
    op: str | None = None
    output: Any = None
    inputs: Named = ()
    input_ids: tuple[str | None, ...] = ()
    input_nrs: tuple[int, ...] = ()
    grad_output: Any = None
    grad_inputs: Named = ()
    saved: tuple[tuple[str | None, Any], ...] = ()
    saved_names: tuple[str, ...] = ()
    old: Any = None
    new: Any = None
    leaf: bool | None = None
    before: Any = None
    after: Any = None
    hook: str | None = None
    rounded: tuple[tuple[int, str, Any], ...] = ()
    why: str | None = None
    computed_in: tuple[str | None, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data: ``kind``, ``step``, ``pass_no``, ``node`` always,
        other fields when set."""
        out: dict[str, Any] = {}
        always = _ALWAYS.get(self.kind, ())
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in always or not _empty(value):
                if f.name in ("inputs", "grad_inputs", "saved"):
                    out[f.name] = [[name, to_jsonable(v)] for name, v in value]
                elif f.name in ("input_ids", "input_nrs", "saved_names", "computed_in"):
                    out[f.name] = list(value)
                else:
                    out[f.name] = to_jsonable(value)
        return out


_COMMON = ("kind", "step", "pass_no", "node")
_ALWAYS = {  # fields written to JSON even when None (``old`` is None the first time a .grad is written)
    "forward": _COMMON + ("output",),
    "backward": _COMMON + ("output", "grad_output", "grad_inputs"),
    "accumulate": _COMMON + ("label", "old", "new", "leaf"),
    "hook": _COMMON + ("label", "before", "after"),
    "free": _COMMON + ("saved",),
}


def _empty(value: Any) -> bool:
    return value is None or (type(value) is tuple and not value)


@dataclass
class Pass:
    """One backward call seen by the trace: where it started and with what seed."""

    pass_no: int
    roots: Named  # (name, forward value) of each root
    root_nodes: tuple[str | None, ...]  # each root's node name (``SumBackward0``)
    root_ids: tuple[str | None, ...]  # each root's node_id in the trace
    seeds: tuple[Any, ...]
    finished: bool = False
