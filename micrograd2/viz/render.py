"""``mg.render``: a diagram to a file (SVG, PNG or PDF) with Graphviz's ``dot``, or its DOT source without it.

A missing ``dot`` program is not an error: ``render`` writes the ``.dot`` source
instead and warns in one line how to install Graphviz; ``svg``/``svgs`` return
``None``.  ``svgs`` renders many graphs with one ``dot`` process (the
step-through page has one frame per backward step).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any, Sequence

import graphviz

from .dot import draw

FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
SOURCES = (".dot", ".gv")
GRAPH_SUFFIXES = (*FORMATS, *SOURCES)  # what render() writes: the --graph options of the commands take these
TIMEOUT_S = 120  # no dot run lasts longer: it is stopped and GraphvizTimeout says so
INSTALL = ("install Graphviz: apt-get install graphviz (Debian/Ubuntu), brew install graphviz (macOS), "
           "conda install graphviz (conda)")


class GraphvizMissingWarning(UserWarning):
    """Graphviz's ``dot`` program is not installed: DOT source was written instead of a picture."""


class GraphvizTimeout(RuntimeError):
    """Graphviz's ``dot`` took longer than ``TIMEOUT_S`` seconds and was stopped."""


def dot_program() -> str | None:
    """The path of Graphviz's ``dot``, or ``None`` where it is not installed."""
    return shutil.which("dot")


def _run_dot(args: list[str], source: str) -> bytes:
    dot = dot_program()
    assert dot is not None
    try:
        done = subprocess.run([dot, *args], input=source.encode(), capture_output=True, timeout=TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        raise GraphvizTimeout(f"Graphviz's dot took more than {TIMEOUT_S} s to lay out the graph "
                              f"({source.count(' -> ')} edges) and was stopped\n"
                              "What to do: draw a smaller graph, or save its DOT source with a .dot suffix "
                              "and lay it out yourself.") from None
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz dot failed: {done.stderr.decode(errors='replace').strip()}\n"
                           "What to do: check the labels in the graph, or save the DOT source with a .dot suffix.")
    return done.stdout


def render(digraph: graphviz.Digraph, path: str | os.PathLike[str]) -> str:
    """Write ``digraph`` to ``path`` as SVG, PNG or PDF (by its suffix; ``.dot``/``.gv``: the source).

    Returns the path written.  Without ``dot``, writes the DOT source beside it
    (same stem, ``.dot``), returns that path and warns once how to install Graphviz.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in FORMATS and suffix not in SOURCES:
        raise ValueError(f"render() writes .svg, .png, .pdf or .dot files, not {suffix or 'a file without suffix'!r}\n"
                         f"What to do: name the file like graph.svg.")
    target.parent.mkdir(parents=True, exist_ok=True)
    if suffix in SOURCES:
        target.write_text(digraph.source, encoding="utf-8")
        return str(target)
    if dot_program() is None:
        fallback = target.with_suffix(".dot")
        fallback.write_text(digraph.source, encoding="utf-8")
        warnings.warn(f"Graphviz's dot was not found, so {fallback} holds the DOT source instead of a "
                      f"{suffix[1:].upper()}; to draw pictures, {INSTALL}.", GraphvizMissingWarning, stacklevel=2)
        return str(fallback)
    target.write_bytes(_run_dot([f"-T{FORMATS[suffix]}"], digraph.source))
    return str(target)


def svg(digraph: graphviz.Digraph) -> str | None:
    """The diagram as SVG text, or ``None`` where ``dot`` is missing."""
    found = svgs([digraph])
    return found[0] if found else None


_SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def svgs(digraphs: Sequence[Any]) -> list[str] | None:
    """Each diagram as an ``<svg>`` element (no XML prolog), all with one ``dot`` run; ``None`` without dot."""
    if dot_program() is None:
        return None
    if not digraphs:
        return []
    out = _run_dot(["-Tsvg"], "\n".join(g.source for g in digraphs)).decode("utf-8")
    found = _SVG.findall(out)
    if len(found) != len(digraphs):  # should not happen; render one at a time instead
        found = [_SVG.findall(_run_dot(["-Tsvg"], g.source).decode("utf-8"))[0] for g in digraphs]
    return found


def repr_svg(value: Any) -> str | None:
    """Jupyter's picture of a Value or Tensor: its autograd graph as SVG (``None`` without dot)."""
    if dot_program() is None:
        return None
    return svg(draw(value))
