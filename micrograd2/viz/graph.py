"""The graph a diagram shows, as plain data: read from a live root, or from a trace's backward pass.

Both diagrams start from a *skeleton*: one ``SNode`` per autograd node
(``grad_fn`` or ``AccumulateGrad``) with what is known of the Value it made —
name, data, ``.grad`` — and one ``SInput`` per forward input.  It comes from

* ``from_root(root, tracer)``: the live graph.  The graph holds nodes, not
  Values, so a leaf is found through ``AccumulateGrad.variable``, the root is
  the Value given, and an intermediate Value's data and inputs come from the
  tracer (if it recorded the op), else from the node itself (``node.output``,
  ``node.inputs``), read and named as a trace would (``_Namer``).
* ``from_pass(tracer, pass_no)``: the graph as one backward pass walked it,
  rebuilt from the trace's events alone (the step-through page uses this).

Traversal is iterative and stops at ``MAX_NODES``; past that the skeleton only
counts (up to ``COUNT_LIMIT``), so a 10^6-node graph is summarized at once.
``progress(tracer, step)`` says what a trace had done by a step: the node it
visited, the gradients travelling from it, and the gradients filled so far.
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..autograd.node import AccumulateGrad, Node
from ..autograd.saved import FREED, INPUT, OUTPUT
from ..autograd.variable import Variable
from ..tracing.names import CONST, NodeRecord
from ..tracing.nodes import grad_of, node_of, reachable, saved_items
from ..tracing.records import TraceEvent
from ..tracing.tracer import Tracer

MAX_NODES = 500  # larger graphs are summarized, not drawn
COUNT_LIMIT = 100_000  # a summary stops counting here


@dataclass
class SInput:
    """One forward input of a node: the node its gradient goes to (``None``: no gradient), name, value, and
    which output of that node it is (``nr``: k >= 1 for a later output of a custom Function or of unbind)."""

    id: str | None
    name: str
    value: Any = None
    nr: int = 0


@dataclass
class SNode:
    """One autograd node and the Value it made (for ``AccumulateGrad``: its leaf)."""

    id: str
    name: str  # MulBackward0, AccumulateGrad
    label: str  # the Value's name: its label, its expression (x[1]·w[1]) or v3, leaf#1
    data: Any = None  # None: unknown
    grad: Any = None
    inputs: list[SInput] = field(default_factory=list)
    saved: Any = None  # ((name, value), ...) or FREED; None when not asked for

    @property
    def is_leaf(self) -> bool:
        return self.name == "AccumulateGrad"


@dataclass
class Skeleton:
    """A graph to draw: nodes by id (inputs first is not guaranteed), the root, or a summary's counts."""

    nodes: dict[str, SNode]
    root_id: str | None
    root_label: str
    root_data: Any
    root_grad: Any = None
    count: int = 0  # nodes counted (all of them unless ``truncated``)
    truncated: bool = False  # counting stopped at COUNT_LIMIT
    kinds: Counter[str] = field(default_factory=Counter)

    @property
    def too_large(self) -> bool:
        return self.count > MAX_NODES


def _collect(start: Node | None) -> tuple[list[Node], int, bool, Counter[str]]:
    """Nodes reachable from ``start`` (``tracing.nodes.reachable``); counting stops at COUNT_LIMIT.

    Returns the nodes, how many were counted, whether counting stopped early, and
    (for a graph too large to draw) how many nodes of each kind were counted.
    """
    order = list(itertools.islice(reachable([start]), COUNT_LIMIT + 1))
    truncated = len(order) > COUNT_LIMIT
    if truncated:
        order.pop()
    kinds = Counter(n.name() for n in order) if len(order) > MAX_NODES else Counter()
    return order, len(order), truncated, kinds


class _Namer:
    """Ids and names for a live graph, as a trace names them (``tracing.names``).

    With ``tracer``: the names it gave.  Whatever it never saw (all of the graph,
    without a tracer) is read from the nodes themselves by a private tracer of
    our own (``Tracer.learn``): node ids in creation order (``MulBackward0#2``),
    Values by their short expression or a counter (``v3``), unlabelled leaves
    ``leaf#k``, each node's inputs and output.  It counts on from the trace's
    own counters, so no two names clash.
    """

    def __init__(self, nodes: list[Node], tracer: Tracer | None) -> None:
        self.tracer = tracer
        self.reader = Tracer()
        if tracer is not None:
            self.reader.names.counters = dict(tracer.names.counters)
        unknown = [n for n in nodes if tracer is None or tracer.known_id(n) is None]
        self.reader.learn(unknown)
        self.ids: dict[Node, str] = {}
        self.gone: dict[Node, str] = {}  # an unlabelled leaf that is gone -> its name here (leaf#k)
        for node in nodes:
            known = tracer.known_id(node) if tracer is not None else None
            self.ids[node] = known if known is not None else self.reader.node_id(node)

    def record(self, node: Node) -> NodeRecord | None:
        """What is known of ``node``'s forward op: the trace's record, else what the node told."""
        found = self.tracer.record_of(node) if self.tracer is not None else None
        return found if found is not None else self.reader.record_of(node)

    def edge_name(self, nxt: Node, nr: int = 0) -> str:
        """The name of the Value whose gradient goes to ``nxt``: a leaf, or output ``nr`` of ``nxt``."""
        if type(nxt) is AccumulateGrad:
            leaf = nxt.variable
            return self.name(leaf) if leaf is not None else self.gone_leaf(nxt)
        return self.value(nxt, nr)

    def gone_leaf(self, node: AccumulateGrad) -> str:
        """The name of a leaf that is gone: its label, as its node remembers it (NOTE [A leaf
        remembered] in autograd/node.py), else the name the trace gave it, else a new ``leaf#k``."""
        if node.label:
            return str(node.label)
        if node not in self.gone:
            known = self.tracer.names.leaves.get(node) if self.tracer is not None else None
            self.gone[node] = known or self.reader.names.number("leaf")
        return self.gone[node]

    def value(self, node: Node, nr: int = 0) -> str:
        """The name of the Value ``node`` made (its output ``nr``)."""
        namer = self.tracer if self.tracer is not None and self.tracer.record_of(node) is not None else self.reader
        return namer.output_name(node) if nr == 0 else namer.names.value_name(node, nr)

    def name(self, x: Any) -> str:
        """A Value's name in the diagram: its label, its expression or ``v3``, ``leaf#k``, or ``const``."""
        if isinstance(x, Variable) and not x.label and x.grad_fn is not None and x.grad_fn in self.ids:
            return self.value(x.grad_fn, x.output_nr)
        if self.tracer is not None and (not isinstance(x, Variable) or x.label or self.tracer.names.others.get(x)):
            return self.tracer.name_of(x)
        return self.reader.name_of(x)


def _saved_items(node: Node, namer: _Namer, output_label: str) -> Any:
    """What ``node`` saved, as ``(name, value)`` boxes: an input by its Value's name, the output by
    ``output_label``, a number unnamed (``tracing.nodes.saved_items`` reads them)."""
    items = saved_items(node)
    if isinstance(items, str):  # FREED
        return FREED
    out: list[tuple[str | None, Any]] = []
    for item in items:
        if item.role is INPUT:
            out.append((namer.name(item.variable), item.data))
        elif item.role is OUTPUT:
            out.append((output_label, item.data))
        elif item.data is not None:
            out.append((None, item.data))
    return tuple(out)


def from_root(root: Any, tracer: Tracer | None = None, show_saved: bool = False) -> Skeleton:
    """The skeleton of the live graph that produced ``root`` (see the module docstring)."""
    start = node_of(root)
    nodes, count, truncated, kinds = _collect(start)
    if count > MAX_NODES:  # a summary: only the root is named
        return Skeleton({}, start.name() if start is not None else None, str(root.label or "output"), root.data,
                        grad_of(root), count, truncated, kinds)
    namer = _Namer(nodes, tracer)
    root_label = namer.name(root)
    sk = Skeleton({}, None, root_label, root.data, grad_of(root), count, truncated, kinds)
    if start is None:
        return sk
    sk.root_id = namer.ids[start]
    for node in nodes:
        sk.nodes[namer.ids[node]] = _live_node(node, namer, tracer, show_saved, root_label if node is start else None)
    top = sk.nodes[sk.root_id]
    if not top.is_leaf:
        top.data, top.grad = root.data, grad_of(root)
    return sk


def _live_node(node: Node, namer: _Namer, tracer: Tracer | None, show_saved: bool, label: str | None) -> SNode:
    """One node of a live graph; ``label`` names its output when known (the root's)."""
    nid = namer.ids[node]
    if type(node) is AccumulateGrad:
        leaf = node.variable
        if leaf is None:  # gone: what its node remembers (its .grad went with it)
            return SNode(nid, "AccumulateGrad", namer.gone_leaf(node), node.output)
        return SNode(nid, "AccumulateGrad", namer.name(leaf), leaf.data, leaf.grad)
    record = namer.record(node)
    if label is None:
        label = namer.value(node)
    inputs = []
    for i, (nxt, nr) in enumerate(node.next_functions):  # (node, k): output k of the node the input came from
        target = None if nxt is None else namer.ids.get(nxt)
        if record is not None:
            inputs.append(SInput(target, record.input_names[i], record.input_values[i], nr))
        elif nxt is None:
            inputs.append(SInput(None, CONST))
        else:
            inputs.append(SInput(target, namer.edge_name(nxt, nr), nr=nr))
    data = record.output if record is not None else node.output
    saved = _saved_items(node, namer, label) if show_saved else None
    return SNode(nid, node.name(), label, data, None, inputs, saved)


def _class_of(node_id: str) -> str:
    return node_id.rsplit("#", 1)[0]


def from_pass(tracer: Tracer, pass_no: int, show_saved: bool = False) -> Skeleton:
    """The graph of backward pass ``pass_no`` as the trace recorded it (no live objects needed).

    ``show_saved``: each visited node carries what it had saved when it was visited.
    """
    p = tracer.passes[pass_no - 1]
    sk = Skeleton({}, p.root_ids[0] if p.root_ids else None,
                  p.roots[0][0] if p.roots else "output", p.roots[0][1] if p.roots else None)
    for ev in tracer.events:
        if ev.pass_no != pass_no:
            continue
        if ev.kind == "backward" and ev.node_id is not None:
            values = [v for _, v in ev.inputs] or [None] * len(ev.grad_inputs)
            inputs = [SInput(target, name, value, nr) for target, (name, _), value, nr
                      in zip(ev.input_ids, ev.grad_inputs, values, ev.input_nrs)]
            sk.nodes[ev.node_id] = SNode(ev.node_id, ev.node or "", ev.label or ev.node_id, ev.output,
                                         None, inputs, ev.saved if show_saved else None)
        elif ev.kind == "accumulate" and ev.leaf and ev.node_id is not None:  # the .grad after the pass
            leaf = sk.nodes.setdefault(ev.node_id, SNode(ev.node_id, "AccumulateGrad", ev.label or ev.node_id))
            leaf.grad = ev.new
    for node in list(sk.nodes.values()):  # inputs never visited: leaves, or nodes no gradient reached
        for inp in node.inputs:
            if inp.id is not None and inp.id not in sk.nodes:
                sk.nodes[inp.id] = SNode(inp.id, _class_of(inp.id), inp.name, inp.value)
            elif inp.id is not None and sk.nodes[inp.id].is_leaf and sk.nodes[inp.id].data is None:
                sk.nodes[inp.id].data = inp.value
    if sk.root_id is not None and sk.root_id not in sk.nodes:
        sk.nodes[sk.root_id] = SNode(sk.root_id, _class_of(sk.root_id), sk.root_label, sk.root_data)
    sk.count = len(sk.nodes)
    if sk.too_large:
        sk.kinds = Counter(n.name for n in sk.nodes.values())
        sk.nodes = {}
    return sk


# -- what a trace had done by a step ---------------------------------------------------------------
@dataclass
class Progress:
    """The state of a trace after step ``step`` (``None``: after its last event)."""

    step: int | None
    current: str | None = None  # node_id visited at ``step``
    flows: dict[str, Any] = field(default_factory=dict)  # input node_id -> gradient sent at ``step``
    grads: dict[str, Any] = field(default_factory=dict)  # node_id -> gradient filled so far
    partial: set[str] = field(default_factory=set)  # nodes whose gradient is still incomplete
    visited: set[str] = field(default_factory=set)  # nodes visited in this pass by ``step``
    event: TraceEvent | None = None


def output_key(node_id: str, nr: int) -> str:
    """How ``Progress`` keys the gradient of output ``nr`` of a node: its id, or ``"<id> output <nr>"`` for
    output k >= 1 of a node of several outputs (the value view's box of that output has this name)."""
    return node_id if nr == 0 else f"{node_id} output {nr}"


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    try:
        return a + b
    except TypeError:  # summaries of large arrays cannot be added
        return b


def progress(tracer: Tracer, step: int | None) -> Progress:
    """What the trace had done by ``step``: visited node, flowing gradients, gradients filled so far."""
    events = tracer.events
    target = next((e for e in events if e.kind == "backward" and e.step == step), None) if step else None
    if step is not None and target is None:
        steps = [e.step for e in events if e.kind == "backward"]
        raise ValueError(
            f"step {step} is not in this trace (its backward steps are "
            f"{f'{steps[0]} to {steps[-1]}' if steps else 'none'})\n"
            "What to do: pass highlight=k with k one of the trace's steps (see t.backward_events())."
        )
    last = max((i for i, e in enumerate(events) if step is None or e.step == step), default=-1)
    pass_no = target.pass_no if target is not None else max((e.pass_no or 0 for e in events), default=0)
    pr = Progress(step, event=target)
    before: dict[str, Any] = {}
    for i, ev in enumerate(events):
        if ev.kind == "accumulate" and ev.leaf and ev.node_id is not None:
            if i <= last:
                pr.grads[ev.node_id] = ev.new
            else:
                before.setdefault(ev.node_id, ev.old)
        if i > last or ev.pass_no != pass_no or ev.kind != "backward" or ev.node_id is None:
            continue
        several = type(ev.grad_output) is tuple  # a node of several outputs: one gradient each
        for k, g_out in enumerate(ev.grad_output if several else (ev.grad_output,)):
            pr.grads[output_key(ev.node_id, k)] = g_out
            pr.partial.discard(output_key(ev.node_id, k))
        pr.visited.add(ev.node_id)
        for target_id, (_, g), nr in zip(ev.input_ids, ev.grad_inputs, ev.input_nrs):
            if target_id is None or g is None or _class_of(target_id) == "AccumulateGrad":
                continue
            if target_id not in pr.visited:
                key = output_key(target_id, nr)
                pr.grads[key] = _add(pr.grads.get(key), g)
                pr.partial.add(key)
    for nid, old in before.items():
        pr.grads.setdefault(nid, old)
    if target is not None and target.node_id is not None:
        pr.current = target.node_id
        pr.flows = {output_key(t, nr): g
                    for t, (_, g), nr in zip(target.input_ids, target.grad_inputs, target.input_nrs)
                    if t is not None}
    return pr
