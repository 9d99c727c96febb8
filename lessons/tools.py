"""What the lessons share: checks against PyTorch, predictions, section headings, errors as Python prints them.

A lesson is a plain percent-format script (``# %%`` cells) that imports this module
as ``micrograd2.lessons.tools``.  Its functions print to standard output, so the
same lesson runs with ``python lessons/03_accumulation.py``, cell by cell with
``micrograd2 lesson run 3`` (which adds each cell's source and the narration of
its backward passes) and as a Jupyter notebook (``micrograd2 lesson notebook 3``).

* ``torch = live_torch()``: PyTorch when it is installed (else ``None``), so a lesson
  can run the same experiment on it, live.
* ``check(label, got, expected, torch=lambda: ..., recorded="...")``: one ✓/✗ line.  ``expected`` is
  what the lesson derives (from its own inputs or a formula); ``torch`` returns PyTorch's result and is
  called, and compared too, only when PyTorch is installed; otherwise ``recorded``, PyTorch's output
  written down, is shown beside.  ``Recorded(text, passes=3)`` with ``inputs={"passes": passes}`` says
  which inputs it was recorded for: after an edit of them it is shown as not applying, and not counted.
* ``with raises(label, RuntimeError, "phrase", torch=lambda: error_of(...), recorded="..."):`` code that
  must fail; the error is shown as Python prints it, micrograd2's own "What to do" advice marked as ours.
* ``error_of(fn)``: the error PyTorch raises for ``fn()`` (what ``raises``'s ``torch`` returns).
* ``guess = predict("L3.three-backwards", "What is x.grad after …?", answer=prediction)``, then
  ``guess.reveal(x.grad)`` once the result is computed: a prediction asked before the result is shown.
  ``micrograd2 lesson run N --interactive`` waits for the answer; otherwise the cell's ``prediction``
  (``...`` until filled in) is the answer.  Answers are recorded in ``predictions.json`` in the exercise
  workspace (``$MICROGRAD2_WORKSPACE``, else the current folder if it is one; else nowhere).
* ``section(title)``, ``show_error(exc)``, ``show_graph(root)``.
* ``summary("Lesson 3")``: the closing line, which says honestly what was compared::

      ✓ Lesson 3: 13 checks: 7 against PyTorch 2.13 run live, 6 against its recorded output; all pass.

  If a check failed, ``summary`` ends the script with exit status 1 (in Jupyter: raises
  ``LessonFailed``).

Each of these lives in a module of its own idea, which this one gathers for the lessons:
``checks`` (check, raises, Recorded, summary), ``pytorch`` (live_torch, error_of),
``predictions`` (predict), ``text`` (section, show_error), ``graphs`` (show_graph),
``session`` (the checks of one run, and how they are written) and ``compare`` (how results
are compared and shown).
"""
from __future__ import annotations

from .checks import Recorded, check, raises, summary, summary_line
from .compare import Live, live
from .graphs import Diagram, graph_lines, show_graph
from .predictions import PREDICTIONS_FILE, WORKSPACE_ENV, Prediction, predict, predictions_file
from .pytorch import NO_TORCH, error_of, live_torch
from .session import Check, LessonFailed, Session, session, start_session
from .text import section, show_error

__all__ = [
    "NO_TORCH", "PREDICTIONS_FILE", "WORKSPACE_ENV", "Check", "Diagram", "LessonFailed", "Live", "Prediction",
    "Recorded", "Session", "check", "error_of", "graph_lines", "live", "live_torch", "predict", "predictions_file",
    "raises", "section", "session", "show_error", "show_graph", "start_session", "summary", "summary_line",
]
