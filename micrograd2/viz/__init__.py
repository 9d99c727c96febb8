"""Diagrams of the graph (``mg.draw``, ``mg.render``) and the step-through page (``mg.viz.stepper``).

``graph.py`` reads a graph (live, or from a trace) into plain data, ``dot.py``
draws it as a ``graphviz.Digraph`` in PyTorch's or micrograd's view,
``render.py`` writes files with Graphviz's ``dot``, ``stepper.py`` writes the
HTML page.  Importing this package also gives every Value (and Tensor) a
``_repr_svg_``, so Jupyter shows its graph; the core never imports this package.
"""
from __future__ import annotations

from ..autograd.variable import Variable
from .dot import LEGEND, draw
from .graph import COUNT_LIMIT, MAX_NODES
from .render import GraphvizMissingWarning, render, repr_svg, svg
from .stepper import stepper

Variable._repr_svg_ = repr_svg  # type: ignore[attr-defined]  # Value and Tensor inherit it: Jupyter draws graphs

__all__ = ["COUNT_LIMIT", "LEGEND", "MAX_NODES", "GraphvizMissingWarning", "draw", "render", "stepper", "svg"]
