"""``mg.draw``: a graph as a ``graphviz.Digraph`` — PyTorch's autograd view or micrograd's value view.

Colours are fixed, and every diagram carries them in a legend cluster:

* ``lightblue``        — a leaf that requires grad (with its data and ``.grad``)
* ``lightyellow``      — a constant: a number or a Value that needs no gradient
* ``lightgrey``        — a ``grad_fn`` node (and ``AccumulateGrad``); in the value view, an op
* ``orange``           — a value saved for backward (``show_saved=True``)
* ``darkolivegreen1``  — the output (the root you drew)
* ``white``            — an intermediate Value (value view)
* a **red** outline and red edges — with ``trace=t, highlight=k``: the node visited at
  step ``k`` and the edges its gradients travel, labelled with those gradients

The legend lists only the kinds the diagram shows, and says which way arrows
point: the way the forward pass went (input → op), except in a diagram of a
backward step (``highlight=k``), where they point the way gradients flow, from
the output towards the leaves (the layout stays the same: edges keep their
ends and are drawn with ``dir=back``).  ``view="autograd"``
draws what torchviz draws for PyTorch: one box per ``grad_fn`` with its name,
``AccumulateGrad`` to each leaf, inputs that need no gradient left out.
``view="value"`` draws micrograd's picture: every Value (label | data | grad)
with its op between them; see ``viz/graph.py`` for where each number comes
from (the graph keeps nodes, not Values: a trace fills in what it recorded).
A graph of more than ``MAX_NODES`` nodes becomes a one-box summary.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import graphviz

from ..autograd.saved import FREED
from ..autograd.variable import Variable
from ..tracing.values import format_value
from .graph import COUNT_LIMIT, MAX_NODES, Progress, SInput, Skeleton, SNode, from_root, output_key, progress

if TYPE_CHECKING:
    from ..tracing import Tracer

LEAF, CONSTANT, GRAD_FN, SAVED, OUTPUT, VALUE = (
    "lightblue", "lightyellow", "lightgrey", "orange", "darkolivegreen1", "white")
HIGHLIGHT = "red"
LEGEND = (
    ("leaf", "leaf that requires grad", LEAF),
    ("constant", "constant (needs no grad)", CONSTANT),
    ("grad_fn", "grad_fn node", GRAD_FN),
    ("saved", "saved for backward", SAVED),
    ("output", "output", OUTPUT),
    ("value", "intermediate value", VALUE),
)
ARROWS = {"forward": "arrows: forward, input → op", "backward": "arrows: gradients, output → leaves"}
VIEWS = ("autograd", "value")
RANKDIRS = ("LR", "TB", "RL", "BT")

SYMBOLS = {  # the value view's op labels
    "AddBackward0": "+", "SubBackward0": "−", "RsubBackward1": "c −", "NegBackward0": "neg",
    "MulBackward0": "*", "DivBackward0": "/", "PowBackward0": "** p", "PowBackward1": "**",
    "PowBackward2": "c **", "ExpBackward0": "exp", "LogBackward0": "log", "TanhBackward0": "tanh",
    "ReluBackward0": "relu", "SigmoidBackward0": "σ", "SqrtBackward0": "√", "AbsBackward0": "abs",
    "SumBackward0": "sum", "DotBackward0": "dot", "ToCopyBackward0": "to", "ZeroBackward0": "zero_",
}


def draw(root: Any, view: str = "autograd", rankdir: str = "LR", show_saved: bool = False,
         trace: Tracer | None = None, highlight: int | None = None) -> graphviz.Digraph:
    """The graph that produced ``root`` as a ``graphviz.Digraph`` (see the module docstring for colours).

    ``trace=t`` names nodes as the trace did and fills in what it recorded;
    with ``highlight=k`` the node visited at step ``k`` is outlined in red, the
    gradients it sends label its edges, and every ``.grad`` shows its value as of
    that step.  Render with ``mg.render(g, "graph.svg")``, or show it in Jupyter.
    """
    if not isinstance(root, Variable):
        raise TypeError(f"draw() needs a Value or a Tensor, got {type(root).__name__}")
    _check_options(view, rankdir)
    if highlight is not None and trace is None:
        raise ValueError("highlight=k needs the trace it refers to\nWhat to do: call draw(root, trace=t, highlight=k).")
    pr = progress(trace, highlight) if trace is not None else None
    return digraph(from_root(root, trace, show_saved), view, rankdir, pr)


def _check_options(view: str, rankdir: str) -> None:
    if view not in VIEWS:
        raise ValueError(f"view must be 'autograd' or 'value', got {view!r}\n"
                         "What to do: view='autograd' draws grad_fn nodes, view='value' draws every Value.")
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}\n"
                         "What to do: 'LR' draws left to right, 'TB' top to bottom.")


@dataclass
class Legend:
    """What a diagram's legend says: the kinds drawn (``LEGEND`` entries, in order), the step outlined in
    red (if any), and which way arrows point."""

    kinds: list[tuple[str, str, str]]
    step: int | None
    arrows: str


def digraph(sk: Skeleton, view: str = "autograd", rankdir: str = "LR", pr: Progress | None = None,
            name: str = "micrograd2") -> graphviz.Digraph:
    """A skeleton (``viz.graph``) drawn in ``view``, annotated with a trace's progress, with its legend."""
    return drawing(sk, view, rankdir, pr, name)[0]


def drawing(sk: Skeleton, view: str = "autograd", rankdir: str = "LR", pr: Progress | None = None,
            name: str = "micrograd2", legend: bool = True) -> tuple[graphviz.Digraph, Legend]:
    """``digraph`` and its ``Legend``; ``legend=False`` leaves the legend and the title out of the
    picture (the step-through page writes them as HTML beside it)."""
    _check_options(view, rankdir)
    g = graphviz.Digraph(name, graph_attr={"rankdir": rankdir, "fontname": "Helvetica"},
                         node_attr={"style": "filled", "shape": "box", "fontname": "Helvetica", "fontsize": "11"},
                         edge_attr={"fontname": "Helvetica", "fontsize": "10"})
    if sk.too_large:
        _summary(g, sk)
        kinds, backward = {"output"}, False
    else:
        drawn = (_AutogradView if view == "autograd" else _ValueView)(g, sk, pr)
        drawn.draw()
        kinds, backward = drawn.kinds, bool(drawn.flow)
    key = Legend([entry for entry in LEGEND if entry[0] in kinds], pr.step if pr is not None and pr.current else None,
                 ARROWS["backward" if backward else "forward"])
    if legend:
        _legend(g, key)
        if pr is not None and pr.event is not None:
            ev = pr.event
            where = "" if pr.current in sk.nodes or sk.too_large else " (not in this graph)"
            g.attr(label=_lines(f"step {ev.step} (pass {ev.pass_no}): {ev.node} {ev.node_id}{where}"),
                   labelloc="t")
    return g, key


# NOTE [Labels are text]
# A Value's label is the user's text: it may hold `<…>`, quotes, backslashes, braces, newlines.
# The graphviz package passes a string that starts with `<` and ends with `>` to dot as an HTML-like
# label, and dot reads a backslash as an escape (\n, \l, \N…); so every label drawn is made by
# `_lines` or `_record`, which double its backslashes, turn its newlines into line breaks and mark
# it `nohtml` (the package escapes its quotes).  Node names (ids) are never labels: they come from
# the graph (`MulBackward0#1`, `AccumulateGrad#1 leaf`), so two Values may share a label.
_BREAKS = str.maketrans({"\r": "\n"})


def _lines(*parts: str) -> str:
    """A multi-line label: each part on its own line, shown as written (NOTE [Labels are text])."""
    text = "\\n".join(p.replace("\r\n", "\n").translate(_BREAKS).replace("\\", "\\\\")
                      .replace("\n", "\\n") for p in parts)
    return graphviz.nohtml(text)


def _record(*fields: str) -> str:
    """A record's label: its fields stacked, each shown as written (NOTE [Labels are text])."""
    esc = {c: "\\" + c for c in "{}|<>\\"}
    esc["\n"] = esc["\r"] = "\\n"
    fields = tuple(f.replace("\r\n", "\n") for f in fields)
    return graphviz.nohtml("{ " + " | ".join("".join(esc.get(c, c) for c in f) for f in fields) + " }")


class _View:
    """What both views share: unique ids, gradient text, the output, highlighting."""

    def __init__(self, g: graphviz.Digraph, sk: Skeleton, pr: Progress | None) -> None:
        self.g, self.sk, self.pr = g, sk, pr
        self.used: set[str] = set(sk.nodes)
        self.kinds: set[str] = set()  # the legend's kinds drawn
        # a backward step's diagram: arrows the way gradients flow (same layout: dir=back keeps the ends)
        self.flow = {"dir": "back"} if pr is not None and pr.event is not None else {}

    def box(self, name: str, label: str, kind: str, **attrs: str) -> None:
        """A node coloured as ``kind`` of the legend."""
        self.kinds.add(kind)
        self.g.node(name, label, fillcolor=_COLOURS[kind], **attrs)

    def link(self, src: str, dst: str) -> None:
        """An edge src → dst of the graph (in the forward direction; see ``flow``)."""
        self.g.edge(src, dst, **self.flow)

    def unique(self, base: str) -> str:
        name, k = base, 1
        while name in self.used:
            k += 1
            name = f"{base} ({k})"
        self.used.add(name)
        return name

    def grad(self, node: SNode) -> str:
        pr = self.pr
        if pr is not None and node.id in pr.grads:
            suffix = " (so far)" if node.id in pr.partial else ""
            return format_value(pr.grads[node.id]) + suffix
        if pr is not None and node.is_leaf:  # a step's diagram: not written yet (node.grad: after the pass)
            return "None"
        if pr is not None and not node.is_leaf and node.id != self.sk.root_id:
            return "—"
        if node.grad is None and not node.is_leaf:
            return "—"
        return format_value(node.grad)

    def data(self, node: SNode) -> str:
        return "?" if node.data is None else format_value(node.data)

    def node_attrs(self, node_id: str) -> dict[str, str]:
        if self.pr is not None and self.pr.current == node_id:
            return {"color": HIGHLIGHT, "penwidth": "3"}
        return {}

    def edge(self, src: str, dst: str, target: str | None, into: str) -> None:
        """An edge src → dst carrying input ``target``'s gradient from node ``into``."""
        pr = self.pr
        if pr is not None and pr.current == into and target is not None and target in pr.flows:
            g = format_value(pr.flows[target])
            self.g.edge(src, dst, label=f"grad {g}", color=HIGHLIGHT, fontcolor=HIGHLIGHT, penwidth="2", **self.flow)
        else:
            self.link(src, dst)


class _AutogradView(_View):
    def draw(self) -> None:
        sk = self.sk
        for node in sk.nodes.values():
            if node.is_leaf:
                self.box(node.id, "AccumulateGrad", "grad_fn", **self.node_attrs(node.id))
                var = self.unique(f"{node.id} leaf")  # NOTE [Labels are text]: an id of the graph
                kind = "output" if node.id == sk.root_id else "leaf"
                self.box(var, _lines(node.label, f"data {self.data(node)}", f"grad {self.grad(node)}"), kind)
                self.link(var, node.id)
                continue
            text = _lines(node.name) if node.label in (node.id, "") else _lines(node.name, node.label)
            self.box(node.id, text, "grad_fn", **self.node_attrs(node.id))
            for inp in node.inputs:
                if inp.id is not None and inp.id in sk.nodes:
                    self.edge(inp.id, node.id, output_key(inp.id, inp.nr), node.id)
            self.saved(node)
        if sk.root_id is not None and sk.root_id in sk.nodes and not sk.nodes[sk.root_id].is_leaf:
            out = self.unique(f"{sk.root_id} output")
            root = sk.nodes[sk.root_id]
            self.box(out, _lines(sk.root_label, f"data {format_value(sk.root_data)}", f"grad {self.grad(root)}"),
                     "output")
            self.link(sk.root_id, out)
        elif sk.root_id is None:  # a Value outside any graph
            self.box(self.unique("value"), _lines(sk.root_label, f"data {format_value(sk.root_data)}"),
                     "output")

    def saved(self, node: SNode) -> None:
        if node.saved is None:
            return
        if node.saved is FREED or isinstance(node.saved, str):
            box = self.unique(f"{node.id} saved")
            self.box(box, "saved values freed", "saved", style="filled,dashed")
            self.g.edge(box, node.id, style="dashed", arrowhead="none")
            return
        for j, (name, value) in enumerate(node.saved):
            box = self.unique(f"{node.id} saved {j}")
            text = _lines(format_value(value)) if name is None else _lines(name, format_value(value))
            self.box(box, text, "saved")
            self.g.edge(box, node.id, style="dashed", arrowhead="none")


class _ValueView(_View):
    def later_output(self, inp: SInput) -> str:
        """The box of output k >= 1 of a node of several outputs (``inp.nr``; its output 0 is the node's own
        box), drawn once, made by that node's op."""
        box = output_key(str(inp.id), inp.nr)
        if box not in self.used:
            self.used.add(box)
            data = "?" if inp.value is None else format_value(inp.value)
            grad = format_value(self.pr.grads[box]) if self.pr is not None and box in self.pr.grads else "—"
            self.box(box, _record(inp.name, f"data {data}", f"grad {grad}"), "value", shape="record")
            self.link(f"{inp.id} op", box)
        return box

    def draw(self) -> None:
        sk = self.sk
        for node in sk.nodes.values():
            kind = "output" if node.id == sk.root_id else "leaf" if node.is_leaf else "value"
            self.box(node.id, _record(node.label, f"data {self.data(node)}", f"grad {self.grad(node)}"), kind,
                     shape="record")
            if node.is_leaf:
                continue
            op = self.unique(f"{node.id} op")
            self.box(op, _lines(SYMBOLS.get(node.name, node.name.replace("Backward", ""))), "grad_fn",
                     shape="ellipse", **self.node_attrs(node.id))
            self.link(op, node.id)
            for i, inp in enumerate(node.inputs):
                if inp.id is not None and inp.id in sk.nodes and inp.nr:  # output k >= 1 of a node: its own box
                    self.edge(self.later_output(inp), op, output_key(inp.id, inp.nr), node.id)
                elif inp.id is not None and inp.id in sk.nodes:
                    self.edge(inp.id, op, inp.id, node.id)
                elif inp.id is None and inp.value is not None:  # known from a trace: draw the constant
                    const = self.unique(f"{node.id} input {i}")
                    self.box(const, _record(inp.name, f"data {format_value(inp.value)}"), "constant", shape="record")
                    self.link(const, op)


def _summary(g: graphviz.Digraph, sk: Skeleton) -> None:
    count = f"more than {COUNT_LIMIT:,}" if sk.truncated else f"{sk.count:,}"
    common = ", ".join(f"{name} × {n:,}" for name, n in sk.kinds.most_common(4))
    text = _lines(f"This graph has {count} nodes: too many to draw (the limit is {MAX_NODES}).",
                  f"Most common{' among those counted' if sk.truncated else ''}: {common}",
                  "Draw a smaller part, e.g. mg.draw(an intermediate Value).")
    g.node("summary", text, shape="note", fillcolor="white")
    g.node("output", _lines(sk.root_label, f"data {format_value(sk.root_data)}"), fillcolor=OUTPUT)
    g.edge("summary", "output", style="dashed")


def _legend(g: graphviz.Digraph, key: Legend) -> None:
    """The legend cluster: the kinds drawn, the step visited, and which way arrows point."""
    with g.subgraph(name="cluster_legend") as c:
        c.attr(label="legend", fontsize="10", style="rounded", color="grey")
        names = []
        for kind, text, color in key.kinds:
            names.append(f"legend {kind}")
            c.node(names[-1], text, fillcolor=color, fontsize="9", height="0.3")
        if key.step is not None:
            names.append("legend step")
            c.node(names[-1], f"visited at step {key.step}", fillcolor=GRAD_FN, color=HIGHLIGHT,
                   penwidth="3", fontsize="9", height="0.3")
        names.append("legend arrows")
        c.node(names[-1], key.arrows, shape="plaintext", style="", fontsize="9", height="0.3")
        for a, b in zip(names, names[1:]):  # one row (a column with rankdir=TB), beside the graph
            c.edge(a, b, style="invis")


_COLOURS = {key: color for key, _, color in LEGEND}
