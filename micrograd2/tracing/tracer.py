"""``mg.trace()``: record what autograd does — every op and every backward step — as plain events.

While a ``Tracer`` is active it listens to ``micrograd2.autograd.events`` (the
core's hook point) and turns each announcement into a ``TraceEvent``: names
instead of objects, value snapshots instead of Values.  Names come from
``names.Names``: a node ``MulBackward0#3``, a Value its label, else its short
expression (``x[1]·w[1]``) or ``v7``, an unlabelled leaf ``leaf#2``, a number
``const``.  Nodes and Values are only ever held weakly, so tracing never keeps
a graph alive.

A trace is thread-local, as grad mode: it records the forward ops and backward
passes of the thread that opened it, and nothing another thread does (its steps
and pass numbers count that thread's work only).  While it records, the first
active tracer of its thread also narrates each event as it happens on the
``micrograd2.trace`` logger (``narrate.LiveNarration``), when that logger is
enabled for INFO.

With no tracer active the core pays one global read per op and per backward
pass (``events.listening``).  While one thread traces, another thread's
announcements reach no listener (NOTE [A thread's own listeners] in
autograd/events.py); ``benchmarks/bench_trace.py`` measures both costs.
"""
from __future__ import annotations

import logging
import re
import threading
import warnings
import weakref
from types import TracebackType
from typing import Any, Callable, Iterable

from ..autograd import events
from ..autograd.node import AccumulateGrad, Node
from ..autograd.saved import INPUT, OUTPUT
from ..autograd.variable import Variable
from .formulas import forward_formula
from .names import CONST, IdentityMap, Names, NodeRecord
from .narrate import LiveNarration, logger
from .nodes import (
    creation_order,
    edge_roundings,
    low_precision,
    node_of,
    outputs_of,
    reachable,
    saved_items,
    unrecorded_reason,
)
from .records import Pass, TraceEvent
from .values import snapshot

__all__ = ["CONST", "IdentityMap", "NodeRecord", "Tracer", "trace"]

Saved = tuple[tuple[tuple[str | None, Any], ...], tuple[str, ...]]  # an event's saved, saved_names
_tracers: weakref.WeakSet[Tracer] = weakref.WeakSet()  # every tracer still alive (NOTE [Freed numbers])
_tracers_lock = threading.Lock()  # threads make tracers while a diagram reads them


class _Narrating(threading.local):
    """Per thread: the active tracer that logs its narration (one, so nested ones don't repeat it)."""

    def __init__(self) -> None:  # runs once in each thread that looks
        self.tracers: list[Tracer] = []  # this thread's own list: a tracer closed elsewhere finds it


_narrating = _Narrating()


class _PassState:
    """A backward pass in progress: its record, the core's number for it, and the visit that ran last."""

    __slots__ = ("record", "core", "last_step", "last_node")

    def __init__(self, record: Pass, core: int | None) -> None:
        self.record = record
        self.core = core  # None: begun before the trace, number not known yet
        self.last_step: int | None = None
        self.last_node: Node | None = None


class Tracer:
    """Records autograd events while active (``with mg.trace() as t: ...``).

    ``t.events`` lists the ``TraceEvent``\\ s in the order they happened, ``t.passes``
    one ``Pass`` per backward call; ``t.narrate()`` and ``t.to_json()`` render them.
    ``max_events`` bounds memory (later events are counted in ``t.dropped``);
    ``on_pass_end(tracer, pass_)`` is called as each backward pass finishes.

    A trace is thread-local, as grad mode: it records the forward ops and backward passes
    of the thread that opened it, and nothing another thread does; its steps and pass
    numbers count that thread's work only, and only that thread's events are narrated on
    the ``micrograd2.trace`` logger.  Several tracers may be active at once, in one thread
    or in several; each records its own thread's work on its own.
    """

    def __init__(self, max_events: int = 1_000_000,
                 on_pass_end: Callable[[Tracer, Pass], None] | None = None) -> None:
        self.events: list[TraceEvent] = []
        self.passes: list[Pass] = []
        self.errors: list[str] = []  # failures inside the tracer itself (the traced code goes on)
        self.dropped = 0
        self.max_events = max_events
        self.on_pass_end = on_pass_end
        self.active = False
        self._cleared = 0  # events removed by clear(): absolute index = list index + this
        self._step = 0
        self.names = Names()  # nodes' and values' names, and what the trace learnt of each node
        self._live: LiveNarration | None = None  # narrates on the logger while this tracer is the one that logs
        self._pending = IdentityMap()  # node -> indices of events waiting for its step
        self._core_passes: dict[int, _PassState] = {}
        self._open: list[_PassState] = []
        self._narrates: list[Tracer] | None = None  # its thread's _Narrating list, while this tracer narrates
        with _tracers_lock:
            _tracers.add(self)

    # -- on and off ---------------------------------------------------------------------------
    def __enter__(self) -> Tracer:
        if self.active:
            raise RuntimeError(
                "this tracer is already recording\n"
                "What to do: use one `with` block per tracer, or make a second tracer with mg.trace()."
            )
        self.active = True
        if not _narrating.tracers:
            self._narrates = _narrating.tracers
            self._narrates.append(self)
            self._live = LiveNarration(self.passes)
        events.subscribe(self._listen)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        events.unsubscribe(self._listen)
        self.active = False
        if self._narrates is not None:
            self._narrates.remove(self)
            self._narrates = None
        self._live = None

    def clear(self) -> None:
        """Forget the events recorded so far (names and step numbers carry on)."""
        self._cleared += len(self.events)
        self.events.clear()

    # -- names ----------------------------------------------------------------------------------
    def node_id(self, node: Node) -> str:
        """This node's name in the trace, ``MulBackward0#3``, given on first sight."""
        return self.names.node_id(node)

    def name_of(self, x: Any) -> str:
        """How the trace names ``x``: its label, else its expression or ``v7``, ``leaf#k``, or ``const``."""
        return self.names.name_of(x)

    def known_id(self, node: Node) -> str | None:
        """This node's name in the trace, or ``None`` if the trace never saw it."""
        return self.names.ids.get(node)

    def record_of(self, node: Node) -> NodeRecord | None:
        """What the trace learnt of ``node``'s forward op (inputs' names and values, output), if anything."""
        return self.names.records.get(node)

    def output_name(self, node: Node) -> str:
        """The name of the Value ``node`` made: its label if it still has one, else its value name."""
        return self.names.output_name(node)

    def _input_name(self, x: Any, nxt: Node | None, fallback: str, nr: int = 0) -> str:
        """Name input ``x`` (or, once it is gone, output ``nr`` of the node ``nxt`` its gradient goes to)."""
        if x is not None and (x.label or nxt is None or type(nxt) is AccumulateGrad):
            return self._leaf_name(x, nxt) if type(nxt) is AccumulateGrad else self.name_of(x)
        if nxt is None:
            return fallback
        if type(nxt) is AccumulateGrad:
            leaf = nxt.variable
            if leaf is not None:
                return self._leaf_name(leaf, nxt)
            # gone: as its node remembers it (NOTE [A leaf remembered] in autograd/node.py)
            known = nxt.label or self.names.leaves.get(nxt)
            if known is None:
                known = fallback if fallback != CONST else self.names.number("leaf")
                self.names.leaves[nxt] = known
            return str(known)
        return self.names.value_name(nxt, nr)  # the Value that node made, as it was when the op ran

    def _leaf_name(self, leaf: Any, node: AccumulateGrad) -> str:
        """Name a leaf, and remember the name by its node, for when the leaf is gone."""
        name = self.names.leaves[node] = self.name_of(leaf)
        return name

    def _input_names(self, node: Node, record: NodeRecord | None) -> tuple[str, ...]:
        if record is None:
            return tuple(self._input_name(None, nxt, CONST, nr) for nxt, nr in node.next_functions)
        return tuple(
            self._input_name(ref() if ref is not None else None, nxt, fallback, nr)
            for ref, (nxt, nr), fallback in zip(record.input_refs, node.next_functions, record.input_names)
        )

    @staticmethod
    def _input_values(node: Node) -> tuple[Any, ...]:
        """Snapshots of the node's inputs: through an edge ``(nxt, nr)``, output ``nr`` of ``nxt``;
        an input without an edge as the node tells it (``node.inputs``)."""
        return tuple(snapshot(value if nxt is None else outputs_of(nxt)[nr])
                     for (nxt, nr), value in zip(node.next_functions, node.inputs))

    def _unlinked_name(self, node: Node, i: int) -> str:
        """The name of input ``i``, which has no edge (a number, or a Value that needs no gradient): the
        Value's, if the op saved it at its own position (``save_for_backward(a, b)``, as
        ``node.inputs`` reads it), else ``const``."""
        items = saved_items(node)
        if isinstance(items, tuple) and i < len(items) and items[i].role is INPUT:
            return self.name_of(items[i].variable)
        return CONST

    def _complete(self, node: Node | None) -> bool:
        """Whether the trace knows the whole graph below ``node`` (a leaf's node: nothing below it)."""
        if node is None or type(node) is AccumulateGrad:
            return True
        record = self.names.records.get(node)
        return record is not None and record.complete

    def _ids_of(self, node: Node) -> tuple[str | None, ...]:
        return tuple(None if n is None else self.node_id(n) for n, _ in node.next_functions)

    @staticmethod
    def _nrs_of(node: Node) -> tuple[int, ...]:
        """Which output of its node each input is: the ``input_nr`` of each edge."""
        return tuple(nr for _, nr in node.next_functions)

    def _saved_of(self, node: Node, output_name: str | None = None) -> Saved:
        """What ``node`` saved, as a ``TraceEvent``'s ``(saved, saved_names)``: ``(the Value's
        name, value)`` per item (``None`` for a number; a ``None`` item is left out), and PyTorch's
        name of each.  ``output_name`` names the saved output (default: its name now)."""
        items = saved_items(node)
        if isinstance(items, str):  # already freed
            return (), ()
        saved: list[tuple[str | None, Any]] = []
        names: list[str] = []
        for item in items:
            if item.role is INPUT:
                saved.append((self.name_of(item.variable), snapshot(item.data)))
            elif item.role is OUTPUT:
                name = self.names.output_name(node) if output_name is None else output_name
                saved.append((name, snapshot(item.data)))
            elif item.data is not None:
                saved.append((None, snapshot(item.data)))
            else:
                continue
            names.append(item.name)
        return tuple(saved), tuple(names)

    # -- listening ------------------------------------------------------------------------------
    def _listen(self, kind: str, fields: dict[str, Any]) -> None:
        handler = getattr(self, "_on_" + kind, None)
        if handler is None:
            return
        try:
            handler(**fields)
        except Exception as exc:  # a tracer bug must never break the traced computation
            if not self.errors:
                warnings.warn(f"mg.trace: could not record a {kind!r} event ({exc!r}); the computation goes on",
                              RuntimeWarning, stacklevel=2)
            self.errors.append(f"{kind}: {exc!r}")

    def _append(self, event: TraceEvent) -> int:
        if self._live is not None and logger.isEnabledFor(logging.INFO):
            self._live.add(event)
        if len(self.events) >= self.max_events:
            self.dropped += 1
            return -1
        self.events.append(event)
        return self._cleared + len(self.events) - 1

    def _defer(self, node: Node, event: TraceEvent) -> None:
        """Record ``event``, which happened just before ``node``'s visit: it gets that visit's step."""
        index = self._append(event)
        if index >= 0:
            self._pending.setdefault(node, []).append(index)

    def _on_forward(self, node: Node | None, fn: type, inputs: tuple[Any, ...], output: Any) -> None:
        values = tuple(snapshot(x) for x in inputs)
        out = snapshot(output)
        if node is None:  # not recorded: no input requires grad, or grad mode is off
            names = tuple(self.name_of(x) for x in inputs)
            ev = TraceEvent("forward", node=_node_name(fn), op=fn.__name__, output=out,
                            inputs=tuple(zip(names, values)), input_ids=(None,) * len(inputs),
                            why=unrecorded_reason(inputs))
            ev.label = self.names.name_result(output, forward_formula(ev))
            self._append(ev)
            return
        edges = node.next_functions  # (node, k): output k of the node the input came from
        if not all(self._complete(nxt) for nxt, _ in edges):  # inputs made before the trace began
            self.learn(nxt for nxt, _ in edges)
        names = self.names.distinct(inputs, tuple(self._input_name(x if isinstance(x, Variable) else None,
                                                                    nxt, CONST, nr)
                                                  for x, (nxt, nr) in zip(inputs, edges)))
        ids = self._ids_of(node)
        saved, saved_names = self._saved_of(node, output_name="")  # named once its formula is known
        ev = TraceEvent("forward", node=node.name(), node_id=self.node_id(node), op=fn.__name__, output=out,
                        inputs=tuple(zip(names, values)), input_ids=ids,
                        input_nrs=self._nrs_of(node), saved=saved, saved_names=saved_names)
        refs = tuple(weakref.ref(x) if isinstance(x, Variable) else None for x in inputs)
        record = self.names.records[node] = NodeRecord(fn.__name__, out, weakref.ref(output), refs, names,
                                                       values, ids, forward_formula(ev), complete=True)
        record.constants = tuple((n, v) for (who, v), n in zip(saved, saved_names) if who is None)
        ev.label = self.name_of(output)
        ev.saved = tuple((ev.label if name == "" else name, v) for name, v in saved)
        self._append(ev)

    def _on_backward_start(self, roots: tuple[Any, ...], grads: tuple[Any, ...], pass_no: int) -> None:
        starts = [node_of(r) for r in roots]
        self.learn(starts)
        for root in roots:  # a root's own Value is at hand: its label names it
            record = self.names.records.get(root.grad_fn)
            if record is not None and record.output_ref is None:
                record.output_ref = weakref.ref(root)
        record = Pass(
            pass_no=len(self.passes) + 1,
            roots=tuple((self.name_of(r), snapshot(r.data)) for r in roots),
            root_nodes=tuple(None if n is None else n.name() for n in starts),
            root_ids=tuple(None if n is None else self.node_id(n) for n in starts),
            seeds=tuple(snapshot(g) for g in grads),
        )
        self.passes.append(record)
        state = self._core_passes[pass_no] = _PassState(record, pass_no)
        self._open.append(state)

    # -- a graph built before the trace -----------------------------------------------------------
    def learn(self, starts: Iterable[Node | None]) -> None:
        """Learn from the nodes themselves what no forward event told (a graph built before the trace
        began, or one a diagram draws): each node's inputs, output and formula, in creation order (inputs
        first), so names and numbers come out as if the trace had watched the forward pass.  A walk without
        recursion; it stops at nodes whose whole graph below is known (all of it, when the trace
        watched the forward pass)."""
        unknown: list[Node] = []
        partial: list[NodeRecord] = []  # records of ops the trace saw, whose inputs were made before it
        for node in reachable(starts, expand=self._incomplete):
            record = self.names.records.get(node)
            if record is not None and not record.complete:
                partial.append(record)
            elif record is None and (type(node) is not AccumulateGrad
                                     or self.names.ids.get(node) is None):
                unknown.append(node)
        for node in creation_order(unknown):
            self.node_id(node)
            if type(node) is not AccumulateGrad:
                self.names.records[node] = self._read_node(node)
                self.names.value_name(node)
        for record in partial:
            record.complete = True

    def _incomplete(self, node: Node) -> bool:
        """Whether ``learn`` must go below ``node``: the trace does not know its whole graph yet."""
        record = self.names.records.get(node)
        return record is None or not record.complete

    def _read_node(self, node: Node) -> NodeRecord:
        """A node's record read from the node (``node.output``, ``node.inputs``), its inputs' names from
        the nodes they came from."""
        names = tuple(self._input_name(None, nxt, CONST, nr) if nxt is not None else self._unlinked_name(node, i)
                      for i, (nxt, nr) in enumerate(node.next_functions))
        values = self._input_values(node)
        op = op_of(node)
        saved, saved_names = self._saved_of(node, output_name="")
        if not saved_names:
            saved, saved_names = _remembered(node)
        ev = TraceEvent("forward", node=node.name(), op=op, inputs=tuple(zip(names, values)),
                        saved=saved, saved_names=saved_names)
        return NodeRecord(op, snapshot(node.output), None, (None,) * len(names), names,
                          values, self._ids_of(node), forward_formula(ev), complete=True)

    def _state(self, core_pass: int | None = None) -> _PassState:
        """The pass an event belongs to (one begun before the trace gets a record of its own)."""
        if core_pass is not None and core_pass in self._core_passes:
            return self._core_passes[core_pass]
        if self._open and (core_pass is None or self._open[-1].core is None):
            state = self._open[-1]
        else:
            record = Pass(len(self.passes) + 1, (), (), (), ())
            self.passes.append(record)
            state = _PassState(record, None)
            self._open.append(state)
        if core_pass is not None and state.core is None:  # now we know the core's number for it
            state.core = core_pass
            self._core_passes[core_pass] = state
        return state

    def _on_backward_end(self, pass_no: int, failed: bool = False) -> None:
        state = self._core_passes.pop(pass_no, None)
        if state is None and self._open and self._open[-1].core is None:
            state = self._open[-1]  # a pass begun before the trace, whose number was never seen
        if state is None:
            return
        if state in self._open:
            self._open.remove(state)
        state.record.finished = not failed
        if self._live is not None:
            self._live.end_pass(state.record.pass_no)
        if self.on_pass_end is not None:
            self.on_pass_end(self, state.record)

    def _on_visit(self, node: Node, grad_output: Any, grad_inputs: tuple[Any, ...], pass_no: int) -> None:
        state = self._state(pass_no)
        self._step += 1
        step = self._step
        record = self.names.records.get(node)
        names = self._input_names(node, record)
        op = record.op if record is not None else op_of(node)
        saved, saved_names = self._saved_of(node)
        self._append(TraceEvent(
            "backward", step=step, pass_no=state.record.pass_no, node=node.name(), node_id=self.node_id(node),
            label=self.names.output_name(node), op=op,
            output=record.output if record is not None else snapshot(node.output),
            inputs=tuple(zip(names, record.input_values if record is not None else self._input_values(node))),
            input_ids=record.input_ids if record is not None else self._ids_of(node), input_nrs=self._nrs_of(node),
            grad_output=snapshot(grad_output),
            grad_inputs=tuple(zip(names, (snapshot(g) for g in grad_inputs))),
            saved=saved, saved_names=saved_names, rounded=edge_roundings(node, grad_inputs),
            computed_in=low_precision(grad_inputs),
        ))
        state.last_step, state.last_node = step, node
        for index in self._pending.pop(node, ()):
            i = index - self._cleared
            if 0 <= i < len(self.events):
                self.events[i].step = step

    def _on_free(self, node: Node, saved: Any) -> None:
        state = self._state()
        step = state.last_step if state.last_node is node else None  # None: freed without a visit
        saved_now, saved_names = self._saved_of(node)
        self._append(TraceEvent("free", step=step, pass_no=state.record.pass_no, node=node.name(),
                                node_id=self.node_id(node), label=self.names.output_name(node),
                                saved=saved_now, saved_names=saved_names))

    def _on_accumulate(self, node: Node, variable: Any, old: Any, new: Any) -> None:
        state = self._state()
        leaf = type(node) is AccumulateGrad
        event = TraceEvent("accumulate", step=state.last_step if leaf else None, pass_no=state.record.pass_no,
                           node="AccumulateGrad", node_id=self.node_id(node), label=self.name_of(variable),
                           old=snapshot(old), new=snapshot(new), leaf=leaf)
        if leaf:
            self._append(event)
        else:  # a retain_grad() write: it runs among the node's hooks, just before its visit
            self._defer(node, event)

    def _on_hook(self, node: Node, variable: Any, hook: Any, before: Any, after: Any) -> None:
        state = self._state()
        on_leaf = type(node) is AccumulateGrad
        label = self.name_of(variable) if variable is not None else self.names.output_name(node)
        event = TraceEvent("hook", step=state.last_step if on_leaf else None, pass_no=state.record.pass_no,
                           node=node.name(), node_id=self.node_id(node), label=label,
                           before=snapshot(before), after=snapshot(after),
                           hook=getattr(hook, "__name__", None) or type(hook).__name__)
        if on_leaf:
            self._append(event)
        else:
            self._defer(node, event)

    # -- renderings -------------------------------------------------------------------------------
    def backward_events(self) -> list[TraceEvent]:
        """The backward visits only, in step order."""
        return [e for e in self.events if e.kind == "backward"]

    def narrate(self, verbosity: str = "steps", color: bool | None = None) -> str:
        """The events as lesson text (``summary``, ``steps`` or ``full``); each line is also
        logged on the ``micrograd2.trace`` logger at INFO.  ``color=None``: ANSI colours
        only on a terminal and when ``NO_COLOR`` is unset."""
        from .narrate import narrate

        return narrate(self.events, self.passes, verbosity=verbosity, color=color, dropped=self.dropped)

    def to_json(self) -> str:
        """The events as JSON lines, one object per event."""
        import json

        return "\n".join(json.dumps(e.to_dict(), ensure_ascii=False) for e in self.events)

    def __repr__(self) -> str:
        state = "recording" if self.active else "stopped"
        return f"<Tracer {state}: {len(self.events)} events, {len(self.passes)} backward passes>"


# NOTE [Freed numbers]
# Backward frees what a node saved, the numbers too (``x ** p``'s exponent), so a diagram drawn
# after the pass could only write ``x^p``.  A tracer that watched the op ran keeps the numbers it
# saved (``NodeRecord.constants``); a graph read from its nodes later takes them from any tracer
# still alive that did (the lesson runner's, for a lesson's diagrams).
def _remembered(node: Node) -> Saved:
    """The numbers ``node`` saved, as a tracer that saw its op run recorded them (else nothing)."""
    with _tracers_lock:
        tracers = list(_tracers)
    for tracer in tracers:
        record = tracer.names.records.get(node)
        if record is not None and record.constants:
            return (tuple((None, v) for _, v in record.constants),
                    tuple(n for n, _ in record.constants))
    return (), ()


def op_of(node: Node) -> str:
    """The name of the Function whose node this is, read from the node's name: a custom Function's
    ``SquareAndDoubleBackward`` -> ``SquareAndDouble``, a built-in ``MulBackward0`` -> ``Mul``."""
    return re.sub(r"Backward\d*$", "", node.name()) or node.name()


def _node_name(fn: type) -> str:
    """The name of ``fn``'s node, as ``Function`` gives it: a built-in's own ``node_name``
    (``MulBackward0``), else ``<ClassName>Backward``."""
    return fn.__dict__.get("node_name") or f"{fn.__name__}Backward"


def trace(max_events: int = 1_000_000, on_pass_end: Callable[[Tracer, Pass], None] | None = None) -> Tracer:
    """A new ``Tracer``: ``with mg.trace() as t:`` records every op and backward step inside the block,
    of the thread that opens it (thread-local, as grad mode)."""
    return Tracer(max_events=max_events, on_pass_end=on_pass_end)
