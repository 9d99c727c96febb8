"""Narration of each cell's backward passes: for ``micrograd2 lesson run`` and for Jupyter.

``CellNarrator`` records what the code run between ``start()`` and ``stop()`` does
(with ``mg.trace()``) and returns the narration of its backward passes.  The
runner calls it around every code cell; in Jupyter ``narrate_cells()`` hooks it
to IPython's cell events, so each narration appears under its cell (``micrograd2
lesson notebook`` adds that call in front of the notebook).
"""
from __future__ import annotations

import json
from typing import Any

MAX_DETAILED = 3  # backward passes of one cell narrated step by step; later ones get their summary line


class CellNarrator:
    """Records what the code run between ``start()`` and ``stop()`` does and narrates its backward passes.

    ``micrograd2 lesson run`` uses one per lesson; ``narrate_cells()`` one per notebook.
    Names and step numbers carry on from cell to cell.  ``extra`` tracers record the
    same code (the runner's ``--html`` trace).  With ``json=True`` ``stop`` returns the
    events as JSON lines (each tagged with ``lesson``).
    """

    def __init__(self, verbosity: str = "steps", color: bool = False, json: bool = False,
                 extra: tuple[Any, ...] = (), lesson: int | None = None, narrate: bool = True) -> None:
        import micrograd2 as mg
        from micrograd2.tracing.narrate import VERBOSITIES

        if verbosity not in VERBOSITIES:
            raise ValueError(f"verbosity must be one of {', '.join(VERBOSITIES)}, got {verbosity!r}")
        self.verbosity, self.color, self.json, self.lesson = verbosity, color, json, lesson
        self.narrating = narrate
        self.tracers = ((mg.trace(),) if narrate else ()) + tuple(extra)
        self.active = False

    def start(self) -> None:
        if not self.active:
            for t in self.tracers:
                t.__enter__()
            self.active = True

    def stop(self) -> str:
        """Stop recording; the narration of what was recorded since ``start`` ("" if nothing)."""
        if not self.active:
            return ""
        for t in self.tracers:
            t.__exit__(None, None, None)
        self.active = False
        if not self.narrating:
            return ""
        tracer = self.tracers[0]
        text = self._json(tracer) if self.json else self._text(tracer)
        tracer.clear()
        return text

    def _json(self, tracer: Any) -> str:
        lines = [json.loads(line) for line in tracer.to_json().splitlines()]
        return "\n".join(json.dumps({**record, "lesson": self.lesson}, ensure_ascii=False) for record in lines)

    def _text(self, tracer: Any) -> str:
        from micrograd2.tracing.narrate import narrate

        events = tracer.events
        if self.verbosity != "full":  # forward ops are not narrated: don't let them split a pass in two
            events = [e for e in events if e.kind != "forward"]
        numbers = sorted({e.pass_no for e in events if e.pass_no is not None})
        detailed = set(numbers if self.verbosity == "full" else numbers[:MAX_DETAILED])
        first = [e for e in events if e.pass_no is None or e.pass_no in detailed]
        rest = [e for e in events if e.pass_no is not None and e.pass_no not in detailed]
        text = narrate(first, [p for p in tracer.passes if p.pass_no in detailed], self.verbosity,
                       color=self.color, dropped=tracer.dropped)
        if rest:
            later = narrate(rest, [p for p in tracer.passes if p.pass_no not in detailed], "summary",
                            color=self.color)
            text += (f"\n\n(the cell's other {len(numbers) - len(detailed)} backward passes, one line each; "
                     f"--verbosity full narrates every step)\n{later}")
        if not text.strip():
            return ""
        body = "\n".join(f"    {line}".rstrip() for line in text.splitlines())
        return f"\n  What autograd did (the tracer's narration):\n{body}"


def narrate_cells(verbosity: str = "steps") -> None:
    """In Jupyter: narrate the backward passes of every cell run from now on, under its output."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("narrate_cells() works in Jupyter (IPython) only\n"
                           "What to do: outside Jupyter, run the lesson with micrograd2 lesson run N.")
    narrator = CellNarrator(verbosity)

    def after(*_: Any) -> None:
        text = narrator.stop()
        if text:
            print(text)

    shell.events.register("pre_run_cell", lambda *_: narrator.start())
    shell.events.register("post_run_cell", after)
