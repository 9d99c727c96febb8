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

from .page import INDENT, PAGE, fit

# NOTE [A cell's passes]
# A cell that trains runs dozens of backward passes, each like the one before.  At the default
# verbosity the narrator traces the first TRACED passes of a cell and then stops listening (the
# rest run at full speed, untraced, and are counted).  It narrates a pass step by step the first
# time its graph (the nodes the walk visits, in order) appears in the lesson, up to MAX_DETAILED
# passes a cell; a pass whose graph was narrated before, in this cell or an earlier one, gets its
# one summary line.  ``full`` traces and narrates every pass of every cell.  Passes are told in the
# order they ran, numbered within their cell from 1, and steps within their pass from 1.  A pass of
# more than LONG steps (a model's training step) is told in its one line too: its first and last
# steps say little of a graph that size, and ``--verbosity full`` tells every step.  After such a
# pass the narrator stops listening at once: a training loop's next steps are like it, and tracing
# the forward ops of a graph that size is most of what a lesson's narration costs.
TRACED, MAX_DETAILED, LONG = 2, 1, 50



class CellNarrator:
    """Records what the code run between ``start()`` and ``stop()`` does and narrates its backward passes.

    ``micrograd2 lesson run`` uses one per lesson; ``narrate_cells()`` one per notebook.
    Names carry on from cell to cell; passes are numbered within their cell, and steps within
    their pass (NOTE [A cell's passes]).  ``extra`` tracers record the
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
        every = json or verbosity == "full"  # NOTE [A cell's passes]
        mine = (mg.trace(on_pass_end=None if every else self._pass_ended),) if narrate else ()
        self.tracers: tuple[Any, ...] = mine + tuple(extra)
        self.active = False
        self.traced = 0  # passes the narrator traced in this cell
        self.passes_before = 0  # the process's backward passes when the cell began
        self.traced_before = 0  # the tracer's passes when the cell began
        self.narrated: set[tuple[str, ...]] = set()  # the graphs narrated step by step so far

    def start(self) -> None:
        from micrograd2.autograd import events

        if not self.active:
            for t in self.tracers:
                t.__enter__()
            self.active = True
            self.traced, self.passes_before = 0, events.passes_run()
            self.traced_before = len(self.tracers[0].passes) if self.narrating else 0

    def _pass_ended(self, tracer: Any, pass_: Any) -> None:
        """Stop listening once the cell has run TRACED passes, or one of more than LONG steps
        (NOTE [A cell's passes])."""
        self.traced += 1
        long = sum(e.kind == "backward" and e.pass_no == pass_.pass_no for e in tracer.events) > LONG
        if (self.traced == TRACED or long) and tracer.active:
            tracer.__exit__(None, None, None)

    def stop(self) -> str:
        """Stop recording; the narration of what was recorded since ``start`` ("" if nothing)."""
        from micrograd2.autograd import events

        if not self.active:
            return ""
        for t in self.tracers:
            if t.active:
                t.__exit__(None, None, None)
        self.active = False
        if not self.narrating:
            return ""
        tracer = self.tracers[0]
        untraced = events.passes_run() - self.passes_before - (len(tracer.passes) - self.traced_before)
        text = self._json(tracer) if self.json else self._text(tracer, untraced)
        tracer.clear()
        return text

    def _json(self, tracer: Any) -> str:
        lines = [json.loads(line) for line in tracer.to_json().splitlines()]
        return "\n".join(json.dumps({**record, "lesson": self.lesson}, ensure_ascii=False) for record in lines)

    def _text(self, tracer: Any, untraced: int) -> str:
        from micrograd2.tracing.narrate import narrate

        events, passes = _numbered_in_cell(tracer.events, tracer.passes, self.traced_before)
        if self.verbosity != "full":  # forward ops are not narrated: don't let them split a pass in two
            events = [e for e in events if e.kind != "forward"]
        detailed = self._detailed(events)
        if self.verbosity == "full":
            parts = [narrate(events, passes, "full", color=self.color)]
        else:  # NOTE [A cell's passes]: in the order they ran, each step by step or in one line
            by_pass: dict[int, list[Any]] = {}
            for e in events:
                if e.pass_no is not None:
                    by_pass.setdefault(e.pass_no, []).append(e)
            parts = [narrate(by_pass[n], [p for p in passes if p.pass_no == n],
                             self.verbosity if n in detailed else "summary", color=self.color)
                     for n in sorted(by_pass)]
        if tracer.dropped:
            parts.append(f"({tracer.dropped} more events were not recorded: the trace was full)")
        if untraced > 0 and any(part.strip() for part in parts):
            parts.append(f"(and {untraced} more backward pass{'es' if untraced != 1 else ''} like these, "
                         "not traced: --verbosity full narrates every one)")
        text = "\n".join(part for part in parts if part.strip())
        if not text:
            return ""
        body = "\n".join(fit(f"{INDENT}{line}".rstrip(), PAGE) for line in text.splitlines())
        return f"  What autograd did (the tracer's narration):\n{body}"

    def _detailed(self, events: list[Any]) -> set[int]:
        """The passes narrated step by step: every one at ``full``; else those whose graph is new
        to the lesson (NOTE [A cell's passes])."""
        numbers = sorted({e.pass_no for e in events if e.pass_no is not None})
        if self.verbosity == "full":
            return set(numbers)
        visits: dict[int, list[str]] = {n: [] for n in numbers}
        for e in events:
            if e.kind == "backward" and e.pass_no is not None:
                visits[e.pass_no].append(e.node)
        detailed: set[int] = set()
        for n in numbers:
            graph = tuple(visits[n])
            if len(detailed) < MAX_DETAILED and len(graph) <= LONG and graph not in self.narrated:
                detailed.add(n)
                self.narrated.add(graph)
        return detailed


def _numbered_in_cell(events: list[Any], passes: list[Any], before: int) -> tuple[list[Any], list[Any]]:
    """Copies of a cell's ``events`` and ``passes`` with each pass numbered within the cell, from 1
    (the tracer numbers them across the lesson; ``before`` passes were made in earlier cells)."""
    from dataclasses import replace

    number = {p.pass_no: k for k, p in enumerate(passes[before:], start=1)}
    renumbered = [replace(p, pass_no=number[p.pass_no]) for p in passes[before:]]
    return ([e if e.pass_no not in number else replace(e, pass_no=number[e.pass_no]) for e in events],
            renumbered)


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
