"""Graphs: a lesson's autograd graph as indented text, and as a picture in Jupyter.

``show_graph(root)`` prints ``root``'s graph from its ``grad_fn`` down to the ``AccumulateGrad``
nodes, and returns a ``Diagram`` that Jupyter draws with Graphviz; the last one shown is the
graph ``micrograd2 lesson run N --graph FILE.svg`` draws.
"""
from __future__ import annotations

from typing import Any

from micrograd2.tracing.nodes import walk

from .compare import name_of
from .session import session

MAX_TREE_LINES = 40

class Diagram:
    """A graph picture: ``_repr_svg_`` draws it in Jupyter (with Graphviz's ``dot``), ``repr`` names it."""

    def __init__(self, root: Any, view: str) -> None:
        self.root, self.view = root, view

    def _repr_svg_(self) -> str | None:
        import micrograd2 as mg

        # None where dot cannot draw: Jupyter shows repr, and show_graph printed the text tree
        return mg.viz.notebook_svg(mg.draw(self.root, view=self.view))

    def __repr__(self) -> str:
        return f"<the {self.view} graph of {name_of(self.root)}>"


def show_graph(root: Any, title: str | None = None, view: str = "autograd") -> Diagram:
    """Print ``root``'s autograd graph as text and return it as a ``Diagram`` (a picture in Jupyter);
    it is also the graph ``micrograd2 lesson run N --graph FILE.svg`` draws."""
    s = session()
    s.graph = (root, view)
    s.write("")
    if title:
        s.write(title)
    for line in graph_lines(root):
        s.write(f"  {line}")
    return Diagram(root, view)


def graph_lines(root: Any) -> list[str]:
    """``root``'s autograd graph as indented text, from its ``grad_fn`` down to the ``AccumulateGrad``s.

    A node reached a second time is written once more with "(see above)" (``tracing.nodes.walk``
    follows every edge, without recursion).
    """
    start = getattr(root, "grad_fn", None)
    if start is None:
        return [f"{name_of(root)} is a leaf: no grad_fn, nothing to walk"]
    lines: list[str] = []
    below: dict[Any, str] = {start: ""}  # a node -> the indent of the lines below it
    for node, parent, edge_nr, first in walk([start]):
        if len(lines) >= MAX_TREE_LINES:
            lines.append("… (graph continues)")
            break
        lead = ""
        if parent is not None:
            last = edge_nr == len(parent.next_functions) - 1
            lead = below[parent] + ("└── " if last else "├── ")
            if first:
                below[node] = below[parent] + ("    " if last else "│   ")
        if node is None:
            lines.append(f"{lead}None   (an input that needs no gradient)")
            continue
        text = node.name() + (f" → {name_of(node.variable)}.grad" if node.name() == "AccumulateGrad" else "")
        again = not first and node.next_functions  # a node with inputs, written once already
        lines.append(f"{lead}{text}   (see above)" if again else lead + text)
    return lines
