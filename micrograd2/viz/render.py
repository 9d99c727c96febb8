"""``mg.render`` (``mg.viz.render_file``): a diagram to a file (SVG, PNG or PDF), or its DOT source.

Graphviz's ``dot`` program lays the diagrams out, unless a renderer was plugged
in with ``set_renderer(fn)`` (the browser playground draws with viz.js, Graphviz
compiled to WebAssembly).  A missing ``dot`` program is not an error:
``render_file`` writes the ``.dot`` source instead and warns in one line how to
install Graphviz; ``svg``/``svgs`` return ``None``.  ``svgs`` renders many graphs
with one ``dot`` process (the step-through page has one frame per backward step).
This module is ``micrograd2.viz.render``; the function has another name, so
that patching the module (``monkeypatch.setattr(micrograd2.viz.render, ...)``)
reaches the module and not a function of the same name.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence, Union

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
    """Graphviz's ``dot`` (or the plugged-in renderer) took longer than ``TIMEOUT_S`` seconds."""


# A renderer: (DOT source, output format such as "svg", time limit in seconds) -> the picture.
Renderer = Callable[[str, str, float], Union[bytes, str]]

# NOTE [Plugging in a renderer]
# Where no dot program can run (the browser, through Pyodide), ``set_renderer`` hands the layout to
# another Graphviz.  The renderer gets the same time limit as a dot run, TIMEOUT_S, and should raise
# ``GraphvizTimeout(timeout_message(source))`` past it; a renderer that cannot be stopped from
# inside (viz.js runs synchronously) is checked afterwards, and its caller stops it from outside
# (the playground restarts its worker).  Everything that draws goes through ``_lay_out``, so
# ``render_file``, ``svg``, ``svgs``, Jupyter's picture and the step-through page all use it.  The
# step-through page also asks for ``json0`` (Graphviz's layout as JSON, through ``texts``) to lay
# each pass out once; a renderer that cannot answer it makes a page laid out frame by frame.
_renderer: Renderer | None = None


def set_renderer(renderer: Renderer | None) -> Renderer | None:
    """Draw diagrams with ``renderer(source, fmt, timeout_s)`` instead of ``dot`` (``None``: ``dot``).

    Returns the renderer in use before (``None`` for ``dot``), so a caller can put it back.
    """
    global _renderer
    if renderer is not None and not callable(renderer):
        raise TypeError(f"set_renderer() takes a function (source, fmt, timeout_s) or None, not "
                        f"{type(renderer).__name__}\n"
                        "What to do: pass a function that returns the picture.")
    before, _renderer = _renderer, renderer
    return before


def dot_program() -> str | None:
    """The path of Graphviz's ``dot``, or ``None`` where it is not installed."""
    return shutil.which("dot")


def can_draw() -> bool:
    """Whether diagrams can be laid out here: a renderer is plugged in, or ``dot`` is installed."""
    return _renderer is not None or dot_program() is not None


def timeout_message(source: str) -> str:
    """What ``GraphvizTimeout`` says about the graph ``source``."""
    return (f"Graphviz's dot took more than {TIMEOUT_S} s to lay out the graph "
            f"({source.count(' -> ')} edges) and was stopped\n"
            "What to do: draw a smaller graph, or save its DOT source with a .dot suffix "
            "and lay it out yourself.")


def _lay_out(fmt: str, source: str) -> bytes:
    """The picture of ``source`` in format ``fmt``, by the plugged-in renderer or by ``dot``."""
    if _renderer is None:
        return run_dot([f"-T{fmt}"], source)
    began = time.monotonic()
    try:
        picture = _renderer(source, fmt, TIMEOUT_S)
    except GraphvizTimeout:
        raise
    except Exception as exc:
        first = (str(exc).splitlines() or [""])[0]
        raise RuntimeError(f"the diagram renderer failed: {first}\nWhat to do: save the DOT source "
                           "with a .dot suffix, or draw it with Graphviz's dot.") from exc
    if time.monotonic() - began > TIMEOUT_S:  # NOTE [Plugging in a renderer]
        raise GraphvizTimeout(timeout_message(source))
    return picture.encode("utf-8") if isinstance(picture, str) else bytes(picture)


def run_dot(args: list[str], source: str) -> bytes:
    """What Graphviz's ``dot`` writes for ``source`` with ``args``, within ``TIMEOUT_S`` (then
    ``GraphvizTimeout``); a failure of ``dot`` is a ``RuntimeError`` saying what to do."""
    dot = dot_program()
    assert dot is not None
    try:
        done = subprocess.run([dot, *args], input=source.encode(), capture_output=True, timeout=TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        raise GraphvizTimeout(timeout_message(source)) from None
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz dot failed: {done.stderr.decode(errors='replace').strip()}\n"
                           "What to do: `micrograd2 doctor` checks that dot can draw SVG; or save the DOT "
                           "source with a .dot suffix.")
    return done.stdout


def render_file(digraph: graphviz.Digraph, path: str | os.PathLike[str]) -> str:
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
    if not can_draw():
        fallback = target.with_suffix(".dot")
        fallback.write_text(digraph.source, encoding="utf-8")
        warnings.warn(f"Graphviz's dot was not found, so {fallback} holds the DOT source instead of a "
                      f"{suffix[1:].upper()}; to draw pictures, {INSTALL}.", GraphvizMissingWarning, stacklevel=2)
        return str(fallback)
    target.write_bytes(_lay_out(FORMATS[suffix], digraph.source))
    return str(target)


def texts(fmt: str, digraphs: Sequence[Any]) -> str:
    """What Graphviz writes in the text format ``fmt`` (``json0``: the layout) for each diagram, one
    after the other: one ``dot`` run for all of them, or one call each of the plugged-in renderer
    (the step-through page lays its passes out by it, NOTE [One layout per pass] in stepper.py)."""
    if _renderer is not None:
        return "\n".join(_lay_out(fmt, g.source).decode("utf-8") for g in digraphs)
    return run_dot([f"-T{fmt}"], "\n".join(g.source for g in digraphs)).decode("utf-8")


def svg(digraph: graphviz.Digraph) -> str | None:
    """The diagram as SVG text, or ``None`` where ``dot`` is missing."""
    found = svgs([digraph])
    return found[0] if found else None


_SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def svgs(digraphs: Sequence[Any]) -> list[str] | None:
    """Each diagram as an ``<svg>`` element (no XML prolog), all with one ``dot`` run; ``None`` without dot."""
    if not can_draw():
        return None
    if not digraphs:
        return []
    if _renderer is not None:  # in process: one call per diagram costs nothing more
        return [_SVG.findall(_lay_out("svg", g.source).decode("utf-8"))[0] for g in digraphs]
    out = run_dot(["-Tsvg"], "\n".join(g.source for g in digraphs)).decode("utf-8")
    found = _SVG.findall(out)
    if len(found) != len(digraphs):  # should not happen; render one at a time instead
        found = [_SVG.findall(run_dot(["-Tsvg"], g.source).decode("utf-8"))[0] for g in digraphs]
    return found


class DiagramFailedWarning(UserWarning):
    """A notebook's picture could not be drawn (``dot`` failed): the cell shows text instead."""


def notebook_svg(digraph: graphviz.Digraph) -> str | None:
    """``svg(digraph)`` for a notebook's picture: ``None`` where it cannot be drawn, ``dot`` missing
    or failing, so that Jupyter shows the text instead (a failure warns in one line, with why)."""
    try:
        return svg(digraph)
    except (RuntimeError, OSError) as error:  # GraphvizTimeout is a RuntimeError too
        first = (str(error).splitlines() or [type(error).__name__])[0]
        warnings.warn(f"the graph could not be drawn ({first}), so it is shown as text; "
                      "`micrograd2 doctor` checks Graphviz", DiagramFailedWarning, stacklevel=2)
        return None


def repr_svg(value: Any) -> str | None:
    """Jupyter's picture of a Value or Tensor: its autograd graph as SVG (``None`` where it cannot be
    drawn: Jupyter then shows its text, ``notebook_svg``)."""
    if not can_draw():
        return None
    return notebook_svg(draw(value))
