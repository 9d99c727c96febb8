"""``mg.viz.stepper(trace, path)``: one self-contained HTML page to step through a backward pass.

One frame per backward step: the graph of that step's pass with the visited
node outlined and the gradients it sends on its edges (``draw(..., highlight=k)``),
and beside it the narration of that step.  Buttons and the ← → keys move
between frames.  The page needs no network: the SVGs and the script are inline.
Without Graphviz's ``dot`` the frames show the DOT source and say how to
install it.  Past ``MAX_FRAMES`` steps the page keeps the first and the last
frames and says which steps it left out.
"""
from __future__ import annotations

import html
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ..tracing.narrate import narration_lines
from .dot import digraph
from .graph import from_pass, progress
from .render import INSTALL, GraphvizMissingWarning, svgs

if TYPE_CHECKING:
    from ..tracing import Tracer

MAX_FRAMES = 500

_STYLE = """
body { font-family: Helvetica, Arial, sans-serif; margin: 1em; color: #222; }
header { display: flex; gap: 1em; align-items: center; flex-wrap: wrap; }
button { font-size: 1em; padding: .3em .9em; }
.frame { display: flex; gap: 1.5em; align-items: flex-start; margin-top: 1em; }
.frame[hidden] { display: none; }
.graph { flex: 0 1 auto; overflow: auto; max-width: 58vw; }
.graph svg { max-width: 100%; height: auto; }
.narration { flex: 1 1 auto; min-width: 0; white-space: pre; overflow-x: auto; font-family: Menlo, Consolas, monospace;
             font-size: .85em; background: #f6f6f6; padding: .8em; border-radius: 4px; }
.note { color: #a33; }
pre.dot { font-size: .8em; background: #fffbe6; padding: .5em; }
"""

_SCRIPT = """
(function () {
  var frames = document.querySelectorAll('.frame');
  var position = document.getElementById('position');
  var prev = document.getElementById('prev'), next = document.getElementById('next');
  var current = 0;
  function show(k) {
    current = Math.max(0, Math.min(frames.length - 1, k));
    for (var j = 0; j < frames.length; j++) { frames[j].hidden = (j !== current); }
    var f = frames[current];
    position.textContent = 'step ' + f.dataset.step + ' of ' + f.dataset.total + ' (frame ' + (current + 1) +
      ' of ' + frames.length + ')';
    prev.disabled = current === 0;
    next.disabled = current === frames.length - 1;
  }
  prev.addEventListener('click', function () { show(current - 1); });
  next.addEventListener('click', function () { show(current + 1); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowRight') { show(current + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { show(current - 1); e.preventDefault(); }
  });
  show(0);
})();
"""


def _kept(steps: list[int]) -> tuple[list[int], str | None]:
    """All steps, or the first and last MAX_FRAMES / 2 of them with a note about the rest."""
    if len(steps) <= MAX_FRAMES:
        return steps, None
    half = MAX_FRAMES // 2
    kept = steps[:half] + steps[-half:]
    note = (f"This trace has {len(steps)} backward steps: the page keeps the first {half} and the last {half}; "
            f"steps {steps[half]} to {steps[-half - 1]} are left out.")
    return kept, note


def stepper(trace: Tracer, path: str | os.PathLike[str], view: str = "autograd", rankdir: str = "LR",
            show_saved: bool = False, title: str = "micrograd2: step through backward") -> str:
    """Write the step-through page of ``trace`` to ``path`` (one HTML file); return the path.

    ``view``, ``rankdir`` and ``show_saved`` are ``mg.draw``'s; ``title`` heads the page.
    """
    events = [e for e in trace.events if e.kind == "backward" and e.step is not None]
    steps, note = _kept([e.step for e in events if e.step is not None])
    by_step = {e.step: e for e in events}
    lines = narration_lines(trace.events, trace.passes, "steps")
    headers = {ln.pass_no: ln.plain for ln in lines if ln.step is None and ln.plain.startswith("backward pass")}
    skeletons = {}
    graphs = []
    for k in steps:
        pass_no = by_step[k].pass_no or 0
        if pass_no not in skeletons:
            skeletons[pass_no] = from_pass(trace, pass_no, show_saved)
        graphs.append(digraph(skeletons[pass_no], view, rankdir, progress(trace, k), name=f"step{k}"))
    pictures = svgs(graphs)
    notes = [note] if note else []
    if pictures is None:
        notes.append(f"Graphviz's dot was not found, so each frame shows its DOT source; to see pictures, {INSTALL}.")
        warnings.warn(notes[-1], GraphvizMissingWarning, stacklevel=2)
    frames = []
    for i, k in enumerate(steps):
        text = [headers.get(by_step[k].pass_no, "")] + [ln.plain for ln in lines if ln.step == k]
        picture = pictures[i] if pictures is not None else f'<pre class="dot">{html.escape(graphs[i].source)}</pre>'
        frames.append(
            f'<section class="frame" data-step="{k}" data-total="{steps[-1] if steps else 0}" hidden>'
            f'<div class="graph">{picture}</div>'
            f'<pre class="narration">{html.escape(chr(10).join(t for t in text if t))}</pre></section>'
        )
    if not frames:
        notes.append("This trace has no backward step: call .backward() inside the `with mg.trace()` block.")
        frames.append('<section class="frame" data-step="0" data-total="0"><div class="graph"></div>'
                      '<pre class="narration">(no backward step)</pre></section>')
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>{html.escape(title)}</h1><button id=\"prev\" type=\"button\">← previous</button>"
        "<button id=\"next\" type=\"button\">next →</button><span id=\"position\"></span></header>"
        + "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
        + "\n".join(frames)
        + f"<script>{_SCRIPT}</script></body></html>\n"
    )
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return str(target)
