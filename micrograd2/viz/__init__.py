"""Diagrams of the graph (``mg.draw``, ``mg.render``) and the step-through page (``mg.viz.stepper``).

``graph.py`` reads a graph (live, or from a trace) into plain data, ``dot.py``
draws it as a ``graphviz.Digraph`` in PyTorch's or micrograd's view,
``render.py`` (the module ``mg.viz.render``) writes files with Graphviz's ``dot``
(``render_file``, which is ``mg.render``) or with the renderer plugged in by
``set_renderer``, ``stepper.py`` writes the HTML page.  A Value's (or
Tensor's) ``_repr_svg_`` method calls ``repr_svg`` here, so Jupyter shows its graph
(``notebook_svg``: or its text, where the graph cannot be drawn).
"""
from __future__ import annotations

from . import render
from .dot import LEGEND, draw
from .graph import COUNT_LIMIT, MAX_NODES
from .render import (
    DiagramFailedWarning,
    GraphvizMissingWarning,
    GraphvizTimeout,
    notebook_svg,
    render_file,
    repr_svg,
    set_renderer,
    svg,
)
from .stepper import stepper

__all__ = ["COUNT_LIMIT", "LEGEND", "MAX_NODES", "DiagramFailedWarning", "GraphvizMissingWarning",
           "GraphvizTimeout", "draw", "notebook_svg", "render", "render_file", "repr_svg", "set_renderer",
           "stepper", "svg"]
